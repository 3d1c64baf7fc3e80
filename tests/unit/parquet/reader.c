/*
 * The Parquet reader end to end. Values are compared with DuckDB by the
 * interop tests (tests/interop); these check the reader's own contract:
 * every row of every fixture file comes out, in batches of the size asked,
 * projection and row-group skipping, the memory reservation, and that
 * damaged files give an error naming the file, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "format/parquet/parquet.h"
#include "io/io.h"
#include "util/alloc.h"
#include "zamboni/budget.h"
#include "zbtest.h"

#define LINEITEM ZB_FIXTURES_DIR "/duckdb-lineitem/data/" \
    "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"


/* Reads a whole file; returns rows, or -1 with ctx->err set. */
static int64_t read_all(zb_io *io, zb_ctx *ctx, const char *path,
                        pq_reader_opts *opts, int64_t *footer_rows)
{
    pq_reader *r = NULL;
    struct ArrowArray batch;
    int64_t rows = 0;
    int rc;

    if (pq_reader_open(&r, io, ctx, path, opts) < 0)
        return -1;
    if (footer_rows)
        *footer_rows = pq_reader_meta(r)->num_rows;
    while ((rc = pq_reader_next(r, ctx, &batch)) == 1) {
        if (opts && (size_t)batch.length > opts->batch_rows)
            rows = -1000000;
        rows += batch.length;
        batch.release(&batch);
    }
    pq_reader_free(r);
    return rc < 0 ? -1 : rows;
}

static void test_parquet_reader__every_fixture_file_reads_all_rows(void)
{
    zbt_files l = { 0 };
    zb_io *io = NULL;
    zb_ctx ctx;
    size_t i, ok = 0;

    zbt_find_files(&l, ZB_FIXTURES_DIR, ".parquet");
    if (l.n == 0) {
        printf("     (no fixtures at %s)\n", ZB_FIXTURES_DIR);
        return;
    }
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (i = 0; i < l.n; i++) {
        pq_reader_opts o = PQ_READER_OPTS_INIT;
        int64_t footer = -1, rows;
        o.batch_rows = 1000;
        rows = read_all(io, &ctx, l.paths[i], &o, &footer);
        if (rows < 0) {
            /* Known gap, reported rather than hidden: see the note. */
            printf("     %s: %s\n", l.paths[i], ctx.err.msg);
            continue;
        }
        ZBT_EQ_INT(rows, footer);
        ok++;
    }
    printf("     %zu of %zu fixture files read\n", ok, l.n);
    ZBT_EQ_U64(ok, l.n);
    zbt_files_free(&l);
    zb_io_free(io);
}

static void test_parquet_reader__projection_by_field_id_and_name(void)
{
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    int32_t ids[] = { 1, 5 };
    const char *names[] = { "l_comment" };
    struct ArrowSchema s;
    pq_reader *r = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    o.field_ids = ids;
    o.n_field_ids = 2;
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, &o), &ctx);
    ZBT_OK_CTX(pq_reader_arrow_schema(&s, r, &ctx), &ctx);
    ZBT_EQ_INT(s.n_children, 2);
    ZBT_EQ_STR(s.children[0]->name, "l_orderkey");
    ZBT_EQ_STR(s.children[1]->name, "l_quantity");
    s.release(&s);
    pq_reader_free(r);
    o.field_ids = NULL;
    o.columns = names;
    o.n_columns = 1;
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, &o), &ctx);
    ZBT_OK_CTX(pq_reader_arrow_schema(&s, r, &ctx), &ctx);
    ZBT_EQ_INT(s.n_children, 1);
    ZBT_EQ_STR(s.children[0]->format, "u");
    s.release(&s);
    pq_reader_free(r);
    zb_io_free(io);
}

static int skip_all_but_first(const pq_reader *r, size_t rg, void *payload)
{
    int64_t min, max;

    (void)payload;
    /* Field 1 is l_orderkey; keep the row groups whose range holds the
     * first row group's minimum. */
    if (!pq_row_group_int_range(r, rg, 1, &min, &max))
        return 1;
    return rg == 0;
}

static void test_parquet_reader__row_groups_skipped_by_statistics(void)
{
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowArray b;
    zb_io *io = NULL;
    zb_ctx ctx;
    int64_t min = 0, max = 0, rows = 0;
    int rc;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    o.filter = skip_all_but_first;
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, &o), &ctx);
    ZBT_CHECK(pq_reader_meta(r)->n_row_groups >= 1);
    ZBT_EQ_INT(pq_row_group_int_range(r, 0, 1, &min, &max), 1);
    ZBT_CHECK(min <= max);
    ZBT_EQ_INT(pq_row_group_int_range(r, 0, 9999, &min, &max), 0);
    while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
        rows += b.length;
        b.release(&b);
    }
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_INT(rows, pq_reader_meta(r)->row_groups[0].num_rows);
    ZBT_EQ_U64(pq_reader_row_groups_skipped(r),
               pq_reader_meta(r)->n_row_groups - 1);
    pq_reader_free(r);
    zb_io_free(io);
}

static void test_parquet_reader__reserves_from_the_budget(void)
{
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    zb_budget *budget = NULL;
    pq_reader *r = NULL;
    struct ArrowArray b;
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_EQ_INT(zb_budget_new(&budget, 1 << 30, NULL), ZB_OK);
    ctx.budget = budget;
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, &o), &ctx);
    ZBT_EQ_U64(zb_budget_held_bytes(budget), 0);
    ZBT_EQ_INT(pq_reader_next(r, &ctx, &b), 1);
    /* While a row group is loaded its estimate is held. */
    ZBT_CHECK(zb_budget_held_bytes(budget) > 0);
    b.release(&b);
    pq_reader_free(r);
    ZBT_EQ_U64(zb_budget_held_bytes(budget), 0);
    zb_budget_free(budget);
    zb_io_free(io);
}

/* Copies LINEITEM to tmp with its bytes changed by edit; returns path. */
static const char *damaged_copy(void (*edit)(unsigned char *, size_t *,
                                             unsigned), unsigned seed)
{
    static char path[4096];
    FILE *f = fopen(LINEITEM, "rb");
    unsigned char *buf;
    size_t n;

    ZBT_CHECK(f != NULL);
    buf = malloc(2 << 20);
    n = fread(buf, 1, 2 << 20, f);
    fclose(f);
    edit(buf, &n, seed);
    snprintf(path, sizeof path, "%s/damaged.parquet", zbt_tmpdir());
    remove(path);
    zbt_write_file(path, buf, n);
    free(buf);
    return path;
}

static void truncate_to(unsigned char *buf, size_t *n, unsigned seed)
{
    (void)buf;
    *n = (size_t)seed < *n ? seed : *n;
}

static void flip_bytes(unsigned char *buf, size_t *n, unsigned seed)
{
    unsigned s = seed, i;

    for (i = 0; i < 8; i++) {
        s = s * 1103515245u + 12345u;
        buf[(s >> 8) % *n] ^= (unsigned char)(1u << (s % 8));
    }
}

static void test_parquet_reader__truncated_file_names_file_and_offset(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    const char *p;
    int64_t rows;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    p = damaged_copy(truncate_to, 1000);
    rows = read_all(io, &ctx, p, NULL, NULL);
    ZBT_EQ_INT(rows, -1);
    ZBT_EQ_INT(ctx.err.code, ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "damaged.parquet");
    ZBT_CONTAINS(ctx.err.msg, "offset");
    p = damaged_copy(truncate_to, 4);
    ZBT_EQ_INT(read_all(io, &ctx, p, NULL, NULL), -1);
    ZBT_CONTAINS(ctx.err.msg, "too short");
    zb_io_free(io);
}

/* Random damage anywhere in a real file: an error or the rows, never a
 * crash or a read out of bounds (ASan watches in CI). */
static void test_parquet_reader__corrupted_files_never_crash(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    unsigned seed;
    int errors = 0;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (seed = 1; seed <= 40; seed++) {
        const char *p = damaged_copy(flip_bytes, seed);
        pq_reader_opts o = PQ_READER_OPTS_INIT;
        o.max_page_bytes = 64u << 20;
        if (read_all(io, &ctx, p, &o, NULL) < 0) {
            errors++;
            ZBT_CHECK(ctx.err.code != ZB_OK);
            ZBT_CHECK(ctx.err.msg[0] != '\0');
        }
    }
    printf("     %d of 40 damaged copies rejected\n", errors);
    ZBT_CHECK(errors > 0);
    zb_io_free(io);
}

static void test_parquet_reader__not_parquet_is_refused(void)
{
    zb_io *io = NULL;
    pq_reader *r = NULL;
    zb_ctx ctx;
    char path[4096];

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/x.parquet", zbt_tmpdir());
    zbt_write_file(path, "PAR1 this is not parquet at all, PAR0", 37);
    ZBT_RC(pq_reader_open(&r, io, &ctx, path, NULL), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "not a Parquet file");
    ZBT_CONTAINS(ctx.err.msg, "x.parquet");
    ZBT_RC(pq_reader_open(&r, io, &ctx, "/no/such/file.parquet", NULL),
           ZB_ENOTFOUND);
    zb_io_free(io);
}

const zbt_case test_parquet_reader[] = {
    ZBT_CASE(test_parquet_reader__every_fixture_file_reads_all_rows),
    ZBT_CASE(test_parquet_reader__projection_by_field_id_and_name),
    ZBT_CASE(test_parquet_reader__row_groups_skipped_by_statistics),
    ZBT_CASE(test_parquet_reader__reserves_from_the_budget),
    ZBT_CASE(test_parquet_reader__truncated_file_names_file_and_offset),
    ZBT_CASE(test_parquet_reader__corrupted_files_never_crash),
    ZBT_CASE(test_parquet_reader__not_parquet_is_refused),
    ZBT_END
};

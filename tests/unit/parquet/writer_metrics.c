/*
 * The writer's per-leaf metrics (pq_write_result after close): counts
 * over all row groups, NaN, -0.0, byte-array bounds kept as prefixes with
 * their truncation flag, split offsets, and row-group copy taking its
 * numbers from the source footer. That they equal what DuckDB computes
 * from the data is checked by tests/interop/compare_stats.mjs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "zbtest.h"

#define LINEITEM_M ZB_FIXTURES_DIR "/duckdb-lineitem/data/" \
    "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"

static int copy_file(zb_io *io, zb_ctx *ctx, const char *uri,
                     int whole_groups, pq_write_result *res)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray b;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    int rc;

    wo.page_bytes = 4096;
    wo.row_group_bytes = 200000;
    if ((rc = pq_reader_open(&r, io, ctx, LINEITEM_M, &ro)) < 0)
        return rc;
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0) {
        pq_reader_free(r);
        return rc;
    }
    if ((rc = pq_writer_open(&w, io, ctx, uri, &s, &wo)) == 0) {
        if (whole_groups)
            rc = pq_writer_copy_row_groups(w, ctx, r);
        while (!whole_groups && (rc = pq_reader_next(r, ctx, &b)) == 1) {
            rc = pq_writer_write(w, ctx, &b);
            b.release(&b);
            if (rc < 0)
                break;
        }
        if (rc == 0)
            rc = pq_writer_close(w, ctx, res);
        else
            pq_writer_abort(w);
    }
    s.release(&s);
    pq_reader_free(r);
    return rc;
}

static void test_parquet_writer_metrics__lineitem(void)
{
    pq_write_result res, copied;
    char path[4096];
    zb_io *io = NULL;
    uint64_t bytes = 0;
    size_t i;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/a.parquet", zbt_tmpdir());
    ZBT_OK_CTX(copy_file(io, &ctx, path, 0, &res), &ctx);
    ZBT_EQ_U64(res.rows, 51793);
    ZBT_EQ_U64(res.n_leaves, 16);
    ZBT_CHECK(res.row_groups > 3);
    ZBT_EQ_U64(res.n_split_offsets, res.row_groups);
    ZBT_EQ_INT(res.split_offsets[0], 4);
    for (i = 1; i < res.n_split_offsets; i++)
        ZBT_CHECK(res.split_offsets[i] > res.split_offsets[i - 1]);
    for (i = 0; i < res.n_leaves; i++) {
        const pq_leaf_metrics *m = &res.leaves[i];
        ZBT_EQ_INT(m->field_id, (int)i + 1);
        ZBT_EQ_INT(m->value_count, 51793);
        ZBT_EQ_INT(m->null_count, 0);
        ZBT_EQ_INT(m->nan_count, -1);
        ZBT_CHECK(m->has_bounds && !m->in_repeated && m->path_len == 1);
        bytes += m->column_bytes;
    }
    ZBT_CHECK(bytes < res.file_bytes);
    ZBT_EQ_STR(res.leaves[0].path[0], "l_orderkey");
    ZBT_EQ_INT(res.leaves[4].logical.kind, PQ_LT_DECIMAL);
    /* Row-group copy: the numbers come from the source's footer. */
    snprintf(path, sizeof path, "%s/b.parquet", zbt_tmpdir());
    ZBT_OK_CTX(copy_file(io, &ctx, path, 1, &copied), &ctx);
    ZBT_EQ_U64(copied.n_leaves, 16);
    for (i = 0; i < copied.n_leaves; i++) {
        ZBT_EQ_INT(copied.leaves[i].value_count, 51793);
        ZBT_EQ_INT(copied.leaves[i].null_count, 0);
    }
    /* DuckDB wrote min_value/max_value: the same bounds as re-encoding. */
    ZBT_CHECK(copied.leaves[0].has_bounds);
    ZBT_CHECK(copied.leaves[0].min_len == res.leaves[0].min_len &&
              memcmp(copied.leaves[0].min, res.leaves[0].min, 8) == 0 &&
              memcmp(copied.leaves[0].max, res.leaves[0].max, 8) == 0);
    pq_write_result_free(&copied);
    pq_write_result_free(&res);
    pq_write_result_free(&res);    /* twice is fine: zeroed */
    zb_io_free(io);
}

static void no_release(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void test_parquet_writer_metrics__nan_zero_and_long_strings(void)
{
    enum { N = 6 };
    /* Arrow field metadata: one pair "PARQUET:field_id" -> "7" / "8". */
    static const char meta7[] = "\x01\x00\x00\x00\x10\x00\x00\x00"
                                "PARQUET:field_id\x01\x00\x00\x00" "7";
    static const char meta8[] = "\x01\x00\x00\x00\x10\x00\x00\x00"
                                "PARQUET:field_id\x01\x00\x00\x00" "8";
    struct ArrowSchema sd = { "g", "d", meta7, ARROW_FLAG_NULLABLE, 0, NULL,
                              NULL, no_release, NULL };
    struct ArrowSchema ss = { "u", "s", meta8, ARROW_FLAG_NULLABLE, 0, NULL,
                              NULL, no_release, NULL };
    struct ArrowSchema *sch[2] = { &sd, &ss };
    struct ArrowSchema root = { "+s", "", NULL, 0, 2, sch, NULL, no_release,
                                NULL };
    double dv[N] = { NAN, -0.0, 0.0, 1.5, 0, NAN };
    uint8_t dvalid = 0x2F;                 /* row 4 null */
    char data[600];
    int32_t off[N + 1];
    const void *dbuf[2] = { &dvalid, dv };
    const void *sbuf[3] = { NULL, off, data };
    const void *rbuf[1] = { NULL };
    struct ArrowArray ad = { N, 1, 0, 2, 0, dbuf, NULL, NULL, NULL, NULL };
    struct ArrowArray as = { N, 0, 0, 3, 0, sbuf, NULL, NULL, NULL, NULL };
    struct ArrowArray *kids[2] = { &ad, &as };
    struct ArrowArray batch = { N, 0, 0, 1, 2, rbuf, kids, NULL, NULL,
                                NULL };
    const char *strs[N] = { "m", "b", NULL, "m", "zz", "c" };
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    pq_write_result res;
    pq_writer *w = NULL;
    char path[4096];
    zb_io *io = NULL;
    const pq_leaf_metrics *d, *s;
    double x;
    size_t i, at = 0;
    zb_ctx ctx;

    /* Strings: row 2 is 300 x 'z' (longer than the bound cap), row 4
     * "zz" shares its prefix. */
    for (i = 0; i < N; i++) {
        off[i] = (int32_t)at;
        if (strs[i] == NULL) {
            memset(data + at, 'z', 300);
            at += 300;
        } else {
            memcpy(data + at, strs[i], strlen(strs[i]));
            at += strlen(strs[i]);
        }
    }
    off[N] = (int32_t)at;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/m.parquet", zbt_tmpdir());
    ZBT_OK_CTX(pq_writer_open(&w, io, &ctx, path, &root, &wo), &ctx);
    ZBT_OK_CTX(pq_writer_write(w, &ctx, &batch), &ctx);
    ZBT_OK_CTX(pq_writer_write(w, &ctx, &batch), &ctx);
    ZBT_OK_CTX(pq_writer_close(w, &ctx, &res), &ctx);
    ZBT_EQ_U64(res.n_leaves, 2);
    d = &res.leaves[0];
    s = &res.leaves[1];
    ZBT_EQ_INT(d->field_id, 7);
    ZBT_EQ_INT(s->field_id, 8);
    ZBT_EQ_INT(d->value_count, 2 * N);
    ZBT_EQ_INT(d->null_count, 2);
    ZBT_EQ_INT(d->nan_count, 4);
    ZBT_CHECK(d->has_bounds && d->min_len == 8 && d->max_len == 8);
    memcpy(&x, d->min, 8);
    ZBT_CHECK(x == 0 && signbit(x));       /* -0.0 */
    memcpy(&x, d->max, 8);
    ZBT_CHECK(x == 1.5);
    ZBT_EQ_INT(s->nan_count, -1);
    ZBT_EQ_INT(s->null_count, 0);
    ZBT_CHECK(s->has_bounds);
    ZBT_CHECK(s->min_len == 1 && s->min[0] == 'b' && !s->min_truncated);
    ZBT_EQ_U64(s->max_len, PQ_METRICS_BOUND_BYTES);
    ZBT_CHECK(s->max_truncated && s->max[0] == 'z' &&
              s->max[PQ_METRICS_BOUND_BYTES - 1] == 'z');
    pq_write_result_free(&res);
    zb_io_free(io);
}

const zbt_case test_parquet_writer_metrics[] = {
    ZBT_CASE(test_parquet_writer_metrics__lineitem),
    ZBT_CASE(test_parquet_writer_metrics__nan_zero_and_long_strings),
    ZBT_END
};

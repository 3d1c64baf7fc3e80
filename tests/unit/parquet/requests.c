/*
 * How many reads the Parquet and Avro readers ask of their backend. On an
 * object store each read is a request of ~20 ms, so the readers must read
 * in few, large pieces: a Parquet file costs one tail read plus one
 * vectored read per row group, an Avro manifest one or two reads. A
 * counting backend ("count://PATH", the local file at PATH) counts the
 * calls; what comes out must equal the same file read through the local
 * backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"
#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "util/alloc.h"
#include "zamboni/sys/io_backend.h"
#include "zbtest.h"

#define LINEITEM ZB_FIXTURES_DIR "/duckdb-lineitem/data/" \
    "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"
#define SMALL ZB_FIXTURES_DIR "/impala-v3-deletion-vectors/data/" \
    "00000-0-ec047627-1122-495a-9b07-87e0c47aebbb-0-00001.parquet"
#define MANIFEST ZB_FIXTURES_DIR "/duckdb-lineitem/metadata/" \
    "179b4fb1-0366-4f7d-ad35-99ee8da0abf5-m0.avro"
#define MANIFEST_LIST ZB_FIXTURES_DIR "/duckdb-lineitem/metadata/" \
    "snap-2354745328521181395-1-179b4fb1-0366-4f7d-ad35-99ee8da0abf5.avro"

#define SCHEME "count://"

/* Calls that would each be a request on an object store. */
static int n_pread, n_pread_vec;

static const char *local_path(const char *uri)
{
    return uri + strlen(SCHEME);
}

static int count_accepts(const char *uri)
{
    return strncmp(uri, SCHEME, strlen(SCHEME)) == 0;
}

static int count_stat(zb_io_stat *out, void *state, zb_ctx *ctx,
                      const char *uri)
{
    return zb_io_local.stat(out, state, ctx, local_path(uri));
}

static int count_open(void **file, uint64_t *size_out, void *state,
                      zb_ctx *ctx, const char *uri)
{
    return zb_io_local.open(file, size_out, state, ctx, local_path(uri));
}

static int count_pread(void *file, zb_ctx *ctx, uint64_t offset, void *dst,
                       size_t len)
{
    n_pread++;
    return zb_io_local.pread(file, ctx, offset, dst, len);
}

/* One call, as a store that fetches all ranges at once would make it. */
static int count_pread_vec(void *file, zb_ctx *ctx, const zb_io_range *ranges,
                           size_t n)
{
    size_t i;
    int rc;

    n_pread_vec++;
    for (i = 0; i < n; i++)
        if ((rc = zb_io_local.pread(file, ctx, ranges[i].offset,
                                    ranges[i].dst, ranges[i].len)) < 0)
            return rc;
    return ZB_OK;
}

static const zb_io_backend count_backend = {
    ZB_IO_BACKEND_VERSION, "count", NULL, NULL, count_accepts, count_stat,
    count_open, count_pread, NULL /* close: below */, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, count_pread_vec, NULL, NULL, NULL,
};

static zb_io_backend counting;

static void reset_counts(void)
{
    n_pread = 0;
    n_pread_vec = 0;
}

static zb_io *new_io(zb_ctx *ctx)
{
    zb_io *io = NULL;

    counting = count_backend;
    counting.close = zb_io_local.close;
    ZBT_OK_CTX(zb_io_new(&io, ctx), ctx);
    ZBT_OK_CTX(zb_io_add_backend(io, ctx, &counting), ctx);
    return io;
}

/*
 * Reads every row group of uri through io and writes the rows to the
 * local file out with our writer; *groups receives the row group count.
 * Two reads of the same rows give byte-identical outputs.
 */
static int copy_rows(zb_io *io, zb_ctx *ctx, const char *uri,
                     const char *out, size_t *groups)
{
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray b;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    int rc;

    if ((rc = pq_reader_open(&r, io, ctx, uri, NULL)) < 0)
        return rc;
    *groups = pq_reader_meta(r)->n_row_groups;
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0) {
        pq_reader_free(r);
        return rc;
    }
    if ((rc = pq_writer_open(&w, io, ctx, out, &s, &wo)) == ZB_OK) {
        while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
            rc = pq_writer_write(w, ctx, &b);
            b.release(&b);
            if (rc < 0)
                break;
        }
        if (rc == 0)
            rc = pq_writer_close(w, ctx, NULL);
        else
            pq_writer_abort(w);
    }
    s.release(&s);
    pq_reader_free(r);
    return rc;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;

    ZBT_CHECK(f != NULL);
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    p = malloc(*len + 1);
    ZBT_CHECK(p != NULL && fread(p, 1, *len, f) == *len);
    fclose(f);
    return p;
}

static void files_equal(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *pa = slurp(a, &la), *pb = slurp(b, &lb);

    ZBT_EQ_U64(la, lb);
    ZBT_CHECK(pa && pb && la == lb && memcmp(pa, pb, la) == 0);
    free(pa);
    free(pb);
}

/* Reads path locally and through count://, and checks the calls. */
static void check_parquet(const char *path, int *calls, size_t *groups)
{
    char uri[4200], local_out[4200], counted_out[4200];
    zb_io *io;
    zb_ctx ctx;
    size_t g2 = 0;

    zb_ctx_init(&ctx);
    io = new_io(&ctx);
    snprintf(uri, sizeof uri, SCHEME "%s", path);
    snprintf(local_out, sizeof local_out, "%s/local.parquet", zbt_tmpdir());
    snprintf(counted_out, sizeof counted_out, "%s/counted.parquet",
             zbt_tmpdir());
    ZBT_OK_CTX(copy_rows(io, &ctx, path, local_out, &g2), &ctx);
    reset_counts();
    ZBT_OK_CTX(copy_rows(io, &ctx, uri, counted_out, groups), &ctx);
    *calls = n_pread + n_pread_vec;
    ZBT_EQ_U64(*groups, g2);
    files_equal(local_out, counted_out);
    zb_io_free(io);
}

static void test_requests__small_parquet_file_costs_two_reads(void)
{
    int calls = 0;
    size_t groups = 0;

    check_parquet(SMALL, &calls, &groups);
    ZBT_EQ_U64(groups, 1);
    /* The tail (the whole file here), then the row group's chunks. */
    ZBT_EQ_INT(n_pread, 1);
    ZBT_EQ_INT(n_pread_vec, 1);
    ZBT_CHECK(calls <= 2);
}

static void test_requests__large_parquet_file_one_read_per_row_group(void)
{
    char path[4200];
    int calls = 0;
    size_t groups = 0;
    zb_io *io;
    zb_ctx ctx;

    /* LINEITEM rewritten in several row groups, over 64 KiB. */
    zb_ctx_init(&ctx);
    io = new_io(&ctx);
    snprintf(path, sizeof path, "%s/groups.parquet", zbt_tmpdir());
    {
        pq_reader *r = NULL;
        pq_writer *w = NULL;
        pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
        struct ArrowSchema s;
        struct ArrowArray b;
        int rc;
        wo.row_group_bytes = 200000;
        ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, NULL), &ctx);
        ZBT_OK_CTX(pq_reader_arrow_schema(&s, r, &ctx), &ctx);
        ZBT_OK_CTX(pq_writer_open(&w, io, &ctx, path, &s, &wo), &ctx);
        while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
            ZBT_OK_CTX(pq_writer_write(w, &ctx, &b), &ctx);
            b.release(&b);
        }
        ZBT_EQ_INT(rc, 0);
        ZBT_OK_CTX(pq_writer_close(w, &ctx, NULL), &ctx);
        s.release(&s);
        pq_reader_free(r);
    }
    zb_io_free(io);
    check_parquet(path, &calls, &groups);
    ZBT_CHECK(groups > 3);
    /* One tail read, one vectored read per row group, nothing else. */
    ZBT_EQ_INT(n_pread, 1);
    ZBT_EQ_U64((uint64_t)n_pread_vec, groups);
    ZBT_EQ_U64((uint64_t)calls, groups + 1);
}

/* A large file with a damaged head magic is still refused, at the first
 * row group (its check rides on that read, see pq_reader.c). */
static void test_requests__large_file_head_magic_still_checked(void)
{
    char path[4200];
    size_t len = 0;
    char *bytes = slurp(LINEITEM, &len);
    pq_reader *r = NULL;
    struct ArrowArray b;
    zb_io *io;
    zb_ctx ctx;
    int rc;

    ZBT_CHECK(len > (64u << 10));
    memcpy(bytes, "PAR0", 4);
    snprintf(path, sizeof path, "%s/bad_head.parquet", zbt_tmpdir());
    zbt_write_file(path, bytes, len);
    free(bytes);
    zb_ctx_init(&ctx);
    io = new_io(&ctx);
    rc = pq_reader_open(&r, io, &ctx, path, NULL);
    if (rc == ZB_OK) {
        rc = pq_reader_next(r, &ctx, &b);
        pq_reader_free(r);
    }
    ZBT_EQ_INT(rc, ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "not a Parquet file (no PAR1 magic at offset "
                 "0)");
    ZBT_CONTAINS(ctx.err.msg, "bad_head.parquet");
    /* Row-group copy reads chunks itself: refused the same way. */
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, path, NULL), &ctx);
    {
        uint8_t *chunk = NULL;
        uint64_t start = 0, clen = 0;
        ZBT_RC(pq_reader_read_chunk(r, &ctx, 0, 0, &chunk, &start, &clen),
               ZB_ECORRUPT);
        ZBT_CHECK(chunk == NULL);
        ZBT_CONTAINS(ctx.err.msg, "no PAR1 magic at offset 0");
    }
    pq_reader_free(r);
    zb_io_free(io);
}

/* An order-sensitive digest of a value tree. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

static uint64_t digest(uint64_t h, const zb_avro_value *v)
{
    size_t i;

    h = mix(h, &v->type, sizeof v->type);
    switch (v->type) {
    case ZB_AVRO_BOOLEAN:
        return mix(h, &v->v.boolean, sizeof v->v.boolean);
    case ZB_AVRO_INT:
    case ZB_AVRO_ENUM:
        return mix(h, &v->v.i32, sizeof v->v.i32);
    case ZB_AVRO_LONG:
        return mix(h, &v->v.i64, sizeof v->v.i64);
    case ZB_AVRO_FLOAT:
        return mix(h, &v->v.f32, sizeof v->v.f32);
    case ZB_AVRO_DOUBLE:
        return mix(h, &v->v.f64, sizeof v->v.f64);
    case ZB_AVRO_BYTES:
    case ZB_AVRO_FIXED:
        return mix(h, v->v.bytes.ptr, v->v.bytes.len);
    case ZB_AVRO_STRING:
        return mix(h, v->v.str.ptr, v->v.str.len);
    case ZB_AVRO_RECORD:
    case ZB_AVRO_ARRAY:
        for (i = 0; i < v->v.list.n; i++)
            h = digest(h, &v->v.list.items[i]);
        return h;
    case ZB_AVRO_MAP:
        for (i = 0; i < v->v.map.n; i++)
            h = digest(mix(h, v->v.map.entries[i].key,
                           v->v.map.entries[i].key_len),
                       v->v.map.entries[i].value);
        return h;
    case ZB_AVRO_UNION:
        h = mix(h, &v->v.u.branch, sizeof v->v.u.branch);
        return digest(h, v->v.u.value);
    default:
        return h;
    }
}

static void read_avro(zb_io *io, zb_ctx *ctx, const char *uri,
                      uint64_t *records, uint64_t *hash)
{
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    int rc;

    *records = 0;
    *hash = 14695981039346656037ULL;
    ZBT_OK_CTX(zb_avro_reader_open(&r, io, ctx, uri, NULL), ctx);
    if (r == NULL)
        return;
    while ((rc = zb_avro_reader_next(r, ctx, &v)) == 1) {
        (*records)++;
        *hash = digest(*hash, v);
    }
    ZBT_EQ_INT(rc, 0);
    zb_avro_reader_free(r);
}

static void test_requests__avro_manifest_costs_one_read(void)
{
    const char *const files[] = { MANIFEST, MANIFEST_LIST };
    size_t i;
    zb_io *io;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    io = new_io(&ctx);
    for (i = 0; i < 2; i++) {
        char uri[4200];
        uint64_t n1, n2, h1, h2;
        snprintf(uri, sizeof uri, SCHEME "%s", files[i]);
        read_avro(io, &ctx, files[i], &n1, &h1);
        reset_counts();
        read_avro(io, &ctx, uri, &n2, &h2);
        ZBT_CHECK(n1 > 0);
        ZBT_EQ_U64(n2, n1);
        ZBT_EQ_U64(h2, h1);
        /* A small file is read whole, once. */
        ZBT_EQ_INT(n_pread + n_pread_vec, 1);
    }
    zb_io_free(io);
}

/* A manifest over the whole-file threshold: 1 MiB pieces, and records
 * that still come out the same. */
static void test_requests__large_avro_file_reads_in_pieces(void)
{
    zb_avro_writer_opts wo = ZB_AVRO_WRITER_OPTS_INIT;
    zb_avro_writer *w = NULL;
    zb_avro_reader *src = NULL;
    char path[4200], uri[4300];
    const char *schema;
    zb_io *io;
    zb_ctx ctx;
    uint64_t n1, n2, h1, h2, size = 0;
    const zb_avro_value *v;
    int rc, k;

    zb_ctx_init(&ctx);
    io = new_io(&ctx);
    snprintf(path, sizeof path, "%s/big.avro", zbt_tmpdir());
    snprintf(uri, sizeof uri, SCHEME "%s", path);
    ZBT_OK_CTX(zb_avro_reader_open(&src, io, &ctx, MANIFEST, NULL), &ctx);
    schema = zb_avro_reader_meta_get(src, "avro.schema", NULL);
    ZBT_CHECK(schema != NULL);
    ZBT_OK_CTX(zb_avro_writer_open(&w, io, &ctx, path, schema, NULL, 0, &wo),
               &ctx);
    /* Each of the fixture's records many times, past 8 MiB. */
    while ((rc = zb_avro_reader_next(src, &ctx, &v)) == 1)
        for (k = 0; k < 20000; k++)
            ZBT_OK_CTX(zb_avro_writer_append(w, &ctx, v), &ctx);
    ZBT_EQ_INT(rc, 0);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &ctx), &ctx);
    zb_avro_reader_free(src);
    {
        zb_io_stat st;
        ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, path), &ctx);
        size = st.size_bytes;
    }
    ZBT_CHECK(size > (8u << 20));
    read_avro(io, &ctx, path, &n1, &h1);
    reset_counts();
    read_avro(io, &ctx, uri, &n2, &h2);
    ZBT_EQ_U64(n2, n1);
    ZBT_EQ_U64(h2, h1);
    /* About one read per MiB, never one per block. */
    ZBT_CHECK((uint64_t)(n_pread + n_pread_vec) <= size / (1u << 20) + 2);
    printf("     %llu bytes in %d reads\n", (unsigned long long)size,
           n_pread + n_pread_vec);
    zb_io_free(io);
}

const zbt_case test_requests[] = {
    ZBT_CASE(test_requests__small_parquet_file_costs_two_reads),
    ZBT_CASE(test_requests__large_parquet_file_one_read_per_row_group),
    ZBT_CASE(test_requests__large_file_head_magic_still_checked),
    ZBT_CASE(test_requests__avro_manifest_costs_one_read),
    ZBT_CASE(test_requests__large_avro_file_reads_in_pieces),
    ZBT_END
};

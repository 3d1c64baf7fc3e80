/*
 * The S3 backend against a real S3 server on loopback (s3rver, started by
 * tests/unit/io/with_s3rver.sh, which sets ZB_TEST_S3_ENDPOINT and
 * ZB_TEST_HTML_ENDPOINT): every call of zamboni/io.h, checked by reading
 * back what was written, plus the error replies a user meets.
 *
 * s3rver ignores If-None-Match and does not check signatures (only the
 * access key id): no case relies on either.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "util/alloc.h"
#include "util/prometheus.h"
#include "zamboni/io_s3.h"
#include "zbtest.h"

#define BUCKET "zbtest"
#define MIB (1024u * 1024)

static const char *endpoint(void)
{
    const char *e = getenv("ZB_TEST_S3_ENDPOINT");

    if (e == NULL || e[0] == '\0')
        zbt__fail(__FILE__, __LINE__, "ZB_TEST_S3_ENDPOINT is not set (run "
                  "through tests/unit/io/with_s3rver.sh)");
    return e;
}

static zb_s3_config base_config(void)
{
    zb_s3_config c;

    memset(&c, 0, sizeof c);
    c.endpoint = endpoint();
    c.region = "us-east-1";
    c.path_style = -1;
    c.access_key_id = "S3RVER";
    c.secret_access_key = "S3RVER";
    c.credentials_source = "test keys";
    c.max_attempts = 3;
    c.max_retry_seconds = 5;
    c.timeout_seconds = 10;
    c.multipart_threshold = 6 * MIB;
    c.part_size = 5 * MIB;
    return c;
}

static void setup_with(zb_io **io, zb_ctx *ctx, const zb_s3_config *c)
{
    zb_ctx_init(ctx);
    ZBT_OK_CTX(zb_io_new(io, ctx), ctx);
    ZBT_OK_CTX(zb_io_add_s3(*io, ctx, c), ctx);
}

static void setup(zb_io **io, zb_ctx *ctx)
{
    zb_s3_config c = base_config();

    setup_with(io, ctx, &c);
}

/* Bytes that differ at every offset, so a misplaced range shows. */
static unsigned char *pattern(size_t n, unsigned seed)
{
    unsigned char *p = zb_malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    size_t i;

    ZBT_CHECK(p != NULL);
    for (i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = (unsigned char)(x >> 24);
    }
    return p;
}

static void check_read_all(zb_io *io, zb_ctx *ctx, const char *uri,
                           const void *want, size_t n)
{
    zb_buf b = ZB_BUF_INIT(64 * MIB);

    ZBT_OK_CTX(zb_io__read_all(&b, io, ctx, uri), ctx);
    ZBT_EQ_U64(b.len, n);
    ZBT_CHECK(n == 0 || memcmp(b.ptr, want, n) == 0);
    zb_buf_free(&b);
}

static void test_io_s3__put_get_stat_delete(void)
{
    const char *uri = "s3://" BUCKET "/basic/hello.txt";
    zb_io *io = NULL;
    zb_ctx ctx;
    zb_io_stat st;
    char part[6];

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, uri, "hello, s3", 9), &ctx);
    check_read_all(io, &ctx, uri, "hello, s3", 9);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, uri), &ctx);
    ZBT_EQ_U64(st.size_bytes, 9);
    ZBT_CHECK(st.mtime_ms > 1500000000000LL);
    ZBT_OK_CTX(zb_io_read_range(io, &ctx, "s3a://" BUCKET "/basic/hello.txt",
                                4, part, 5), &ctx);
    ZBT_CHECK(memcmp(part, "o, s3", 5) == 0);
    ZBT_OK_CTX(zb_io_delete(io, &ctx, uri), &ctx);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, uri), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "s3://" BUCKET "/basic/hello.txt");
    /* S3 answers 204 for a key that is not there: documented as ZB_OK. */
    ZBT_OK_CTX(zb_io_delete(io, &ctx, uri), &ctx);
    zb_io_free(io);
}

static void test_io_s3__keys_used_as_written(void)
{
    const char *uri = "s3://" BUCKET "/odd keys/a b+c%20d=\xc3\xa9&x.txt";
    zb_io *io = NULL;
    zb_io_lister *l = NULL;
    zb_io_entry e;
    zb_ctx ctx;
    int n = 0;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, uri, "odd", 3), &ctx);
    check_read_all(io, &ctx, uri, "odd", 3);
    ZBT_OK_CTX(zb_io_list(&l, io, &ctx, "s3://" BUCKET "/odd keys"), &ctx);
    while (zb_io_lister_next(l, &ctx, &e) > 0) {
        ZBT_EQ_STR(e.uri, uri);
        n++;
    }
    ZBT_EQ_INT(n, 1);
    zb_io_lister_free(l);
    zb_io_free(io);
}

static void test_io_s3__open_keeps_the_tail(void)
{
    const char *big = "s3://" BUCKET "/tail/big.bin";
    const char *small = "s3://" BUCKET "/tail/small.bin";
    const char *empty = "s3://" BUCKET "/tail/empty.bin";
    size_t n = 300 * 1024, i;
    unsigned char *data = pattern(n, 1), got[4096];
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, big, data, n), &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, small, data, 1000), &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, empty, "", 0), &ctx);

    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, big), &ctx);
    ZBT_EQ_U64(zb_io_file_size(f), n);
    /* the footer, the head, the middle: each against the pattern */
    {
        const uint64_t offs[] = { n - 8, 0, n - 4096, 65536 - 100,
                                  150000 };
        for (i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            size_t len = offs[i] + 4096 > n ? n - offs[i] : 4096;
            ZBT_OK_CTX(zb_io_file_read(f, &ctx, offs[i], got, len), &ctx);
            ZBT_CHECK(memcmp(got, data + offs[i], len) == 0);
        }
    }
    ZBT_RC(zb_io_file_read(f, &ctx, n - 2, got, 4), ZB_EIO);
    zb_io_file_close(f);

    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, small), &ctx);
    ZBT_EQ_U64(zb_io_file_size(f), 1000);
    ZBT_OK_CTX(zb_io_file_read(f, &ctx, 10, got, 990), &ctx);
    ZBT_CHECK(memcmp(got, data + 10, 990) == 0);
    zb_io_file_close(f);

    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, empty), &ctx);
    ZBT_EQ_U64(zb_io_file_size(f), 0);
    zb_io_file_close(f);
    check_read_all(io, &ctx, empty, "", 0);

    ZBT_RC(zb_io_open(&f, io, &ctx, "s3://" BUCKET "/tail/missing.bin"),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "tail/missing.bin");
    ZBT_CONTAINS(ctx.err.msg, "NoSuchKey");
    zb_free(data);
    zb_io_free(io);
}

static void test_io_s3__vectored_reads(void)
{
    const char *uri = "s3://" BUCKET "/vec/data.bin";
    size_t n = 3 * MIB, i;
    unsigned char *data = pattern(n, 2);
    /* unsorted; near ones (merged), far ones, one inside the open tail */
    const uint64_t offs[] = { 2 * MIB, 10, 5000, 100000, 1 * MIB + 7,
                              n - 100, 700000, 300 };
    const size_t lens[] = { 70000, 100, 4000, 65536, 1, 100, 200000, 50 };
    enum { NR = sizeof offs / sizeof offs[0] };
    zb_io_range r[NR];
    unsigned char *bufs[NR];
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_metrics *m = NULL;
    zb_buf text = ZB_BUF_INIT(1 << 20);
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ctx.metrics = m;
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, uri, data, n), &ctx);
    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, uri), &ctx);
    for (i = 0; i < NR; i++) {
        bufs[i] = zb_calloc(1, lens[i]);
        r[i].offset = offs[i];
        r[i].len = lens[i];
        r[i].dst = bufs[i];
    }
    ZBT_OK_CTX(zb_io_file_read_vec(f, &ctx, r, NR), &ctx);
    for (i = 0; i < NR; i++) {
        ZBT_CHECK(memcmp(bufs[i], data + offs[i], lens[i]) == 0);
        zb_free(bufs[i]);
    }
    zb_io_file_close(f);
    ZBT_EQ_INT(zb_metrics_render(&text, m), ZB_OK);
    ZBT_CONTAINS(text.ptr, "zamboni_s3_requests_total{method=\"GET\"}");
    ZBT_CONTAINS(text.ptr, "zamboni_s3_read_bytes_total");
    ZBT_CONTAINS(text.ptr, "zamboni_s3_written_bytes_total");
    zb_buf_free(&text);
    zb_metrics_free(m);
    zb_free(data);
    zb_io_free(io);
}

typedef struct hooks {
    uint64_t held, peak, reserved, released;
} hooks;

static int on_reserve(void *user, zb_ctx *ctx, uint64_t bytes)
{
    hooks *h = user;

    (void)ctx;
    h->held += bytes;
    h->reserved += bytes;
    if (h->held > h->peak)
        h->peak = h->held;
    return ZB_OK;
}

static void on_release(void *user, zb_ctx *ctx, uint64_t bytes)
{
    hooks *h = user;

    (void)ctx;
    h->held -= bytes;
    h->released += bytes;
}

static void test_io_s3__multipart_upload(void)
{
    const char *uri = "s3://" BUCKET "/multi/big.bin";
    size_t n = 27 * MIB + 12345, off;
    unsigned char *data = pattern(n, 3);
    zb_s3_config c = base_config();
    hooks h = { 0, 0, 0, 0 };
    zb_io *io = NULL;
    zb_io_writer *w = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    c.reserve = on_reserve;
    c.release = on_release;
    c.hook_user = &h;
    setup_with(&io, &ctx, &c);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, uri), &ctx);
    for (off = 0; off < n; off += 777777) {
        size_t len = n - off < 777777 ? n - off : 777777;
        ZBT_OK_CTX(zb_io_writer_write(w, &ctx, data + off, len), &ctx);
    }
    /* not visible before the commit */
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, uri), ZB_ENOTFOUND);
    ZBT_OK_CTX(zb_io_writer_commit(w, &ctx), &ctx);
    check_read_all(io, &ctx, uri, data, n);
    ZBT_CHECK(h.reserved >= n);          /* every part's bytes */
    ZBT_EQ_U64(h.reserved, h.released);
    ZBT_CHECK(h.peak <= 4ull * 5 * MIB);  /* four parts in flight */
    ZBT_EQ_U64(h.held, 0);
    zb_free(data);
    zb_io_free(io);
}

static void test_io_s3__aborted_writes_leave_nothing(void)
{
    const char *big = "s3://" BUCKET "/abort/big.bin";
    const char *small = "s3://" BUCKET "/abort/small.bin";
    size_t n = 22 * MIB;
    unsigned char *data = pattern(n, 4);
    zb_io *io = NULL;
    zb_io_writer *w = NULL;
    zb_io_lister *l = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, big), &ctx);
    ZBT_OK_CTX(zb_io_writer_write(w, &ctx, data, n), &ctx);   /* parts sent */
    zb_io_writer_abort(w);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, small), &ctx);
    ZBT_OK_CTX(zb_io_writer_write(w, &ctx, data, 100), &ctx);
    zb_io_writer_abort(w);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, big), ZB_ENOTFOUND);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, small), ZB_ENOTFOUND);
    ZBT_RC(zb_io_list(&l, io, &ctx, "s3://" BUCKET "/abort"), ZB_ENOTFOUND);
    zb_free(data);
    zb_io_free(io);
}

static void test_io_s3__new_files_never_replace(void)
{
    const char *uri = "s3://" BUCKET "/nooverwrite/v1.metadata.json";
    zb_io *io = NULL;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, uri, "first", 5), &ctx);
    ZBT_RC(zb_io_write_new(io, &ctx, uri, "second", 6), ZB_EEXISTS);
    ZBT_CONTAINS(ctx.err.msg, "nooverwrite/v1.metadata.json");
    ZBT_RC(zb_io_write_new(io, &ctx, "s3n://" BUCKET
                           "/nooverwrite/v1.metadata.json", "third", 5),
           ZB_EEXISTS);
    check_read_all(io, &ctx, uri, "first", 5);
    zb_io_free(io);
}

static void test_io_s3__list_and_batch_delete_many(void)
{
    enum { N = 1100 };
    char **uris = zb_calloc(N + 1, sizeof *uris);
    int *rcs = zb_calloc(N + 1, sizeof *rcs);
    unsigned char *seen = zb_calloc(N, 1);
    zb_io *io = NULL;
    zb_io_lister *l = NULL;
    zb_io_entry e;
    zb_ctx ctx;
    size_t i, failed = 99;
    int rc, listed = 0;

    setup(&io, &ctx);
    for (i = 0; i < N; i++) {
        char name[128];
        snprintf(name, sizeof name, "s3://" BUCKET "/many/d%zu/f%05zu.parquet",
                 i % 7, i);
        uris[i] = zb_strdup(name);
        ZBT_OK_CTX(zb_io_write_new(io, &ctx, uris[i], name, i % 50), &ctx);
    }
    /* a neighbour that shares the prefix's letters, not its directory */
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, "s3://" BUCKET "/many2/x", "x", 1),
               &ctx);
    ZBT_OK_CTX(zb_io_list(&l, io, &ctx, "s3a://" BUCKET "/many"), &ctx);
    while ((rc = zb_io_lister_next(l, &ctx, &e)) > 0) {
        unsigned long k;
        ZBT_CHECK(strncmp(e.uri, "s3a://" BUCKET "/many/d", 18) == 0);
        ZBT_CHECK(sscanf(strrchr(e.uri, '/'), "/f%lu.parquet", &k) == 1);
        ZBT_CHECK(k < N && !seen[k]);
        seen[k] = 1;
        ZBT_EQ_U64(e.size_bytes, k % 50);
        ZBT_CHECK(e.mtime_ms > 1500000000000LL);
        listed++;
    }
    ZBT_OK_CTX(rc, &ctx);
    ZBT_EQ_INT(listed, N);
    zb_io_lister_free(l);

    /* one that was never there: S3 says Deleted, so it is ZB_OK */
    uris[N] = zb_strdup("s3://" BUCKET "/many/never-written");
    ZBT_OK_CTX(zb_io_delete_batch(io, &ctx, (const char *const *)uris, N + 1,
                                  rcs, &failed), &ctx);
    ZBT_EQ_U64(failed, 0);
    for (i = 0; i <= N; i++)
        ZBT_EQ_INT(rcs[i], ZB_OK);
    ZBT_RC(zb_io_list(&l, io, &ctx, "s3://" BUCKET "/many/"), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "many/");
    for (i = 0; i <= N; i++)
        zb_free(uris[i]);
    zb_free(uris);
    zb_free(rcs);
    zb_free(seen);
    ZBT_OK_CTX(zb_io_delete(io, &ctx, "s3://" BUCKET "/many2/x"), &ctx);
    zb_io_free(io);
}

static void test_io_s3__unknown_bucket_is_named(void)
{
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_io_lister *l = NULL;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_RC(zb_io_open(&f, io, &ctx, "s3://no-such-bucket-zb/k.parquet"),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "no-such-bucket-zb");
    ZBT_CONTAINS(ctx.err.msg, "NoSuchBucket");
    ZBT_CONTAINS(ctx.err.msg, endpoint());
    ZBT_RC(zb_io_list(&l, io, &ctx, "s3://no-such-bucket-zb/t"),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "NoSuchBucket");
    ZBT_RC(zb_io_write_new(io, &ctx, "s3://no-such-bucket-zb/k", "x", 1),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "no-such-bucket-zb");
    zb_io_free(io);
}

static void test_io_s3__refused_keys_show_the_code(void)
{
    zb_s3_config c = base_config();
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_ctx ctx;
    char source[160];

    /* s3rver checks the access key id (not the signature) */
    c.access_key_id = "NOT-A-KEY";
    c.secret_access_key = "wrong-secret-value";
    setup_with(&io, &ctx, &c);
    ZBT_RC(zb_io_open(&f, io, &ctx, "s3://" BUCKET "/x"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 403");
    ZBT_CONTAINS(ctx.err.msg, "InvalidAccessKeyId");
    ZBT_CHECK(strstr(ctx.err.msg, "wrong-secret-value") == NULL);
    ZBT_OK_CTX(zb_io_s3_describe_credentials(source, sizeof source, io, &ctx,
                                             "s3://" BUCKET "/x"), &ctx);
    ZBT_EQ_STR(source, "test keys");
    zb_io_free(io);
}

static void test_io_s3__prefix_settings_win(void)
{
    zb_s3_config good = base_config(), bad;
    zb_io *io = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    memset(&bad, 0, sizeof bad);
    bad.access_key_id = "OTHER-KEY";
    bad.secret_access_key = "x";
    setup_with(&io, &ctx, &good);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, "s3://" BUCKET "/pfx/a/f", "a", 1),
               &ctx);
    ZBT_OK_CTX(zb_io_s3_add_prefix(io, &ctx, "s3a://" BUCKET "/pfx/a/", &bad),
               &ctx);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://" BUCKET "/pfx/a/f"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 403");
    ZBT_OK_CTX(zb_io_s3_add_prefix(io, &ctx, "s3://" BUCKET "/pfx/a/f", &good),
               &ctx);                   /* longer: wins again */
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, "s3n://" BUCKET "/pfx/a/f"),
               &ctx);
    ZBT_OK_CTX(zb_io_delete(io, &ctx, "s3://" BUCKET "/pfx/a/f"), &ctx);
    zb_io_free(io);
}

static void test_io_s3__html_endpoint_is_named(void)
{
    const char *html = getenv("ZB_TEST_HTML_ENDPOINT");
    zb_s3_config c = base_config();
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_io_lister *l = NULL;
    zb_ctx ctx;

    ZBT_CHECK(html != NULL);
    c.endpoint = html;
    setup_with(&io, &ctx, &c);
    ZBT_RC(zb_io_open(&f, io, &ctx, "s3://" BUCKET "/t/k.parquet"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "not S3 XML");
    ZBT_CONTAINS(ctx.err.msg, html);
    ZBT_CONTAINS(ctx.err.msg, "t/k.parquet");
    ZBT_RC(zb_io_list(&l, io, &ctx, "s3://" BUCKET "/t"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "not S3 XML");
    ZBT_CONTAINS(ctx.err.msg, "s3://" BUCKET "/t/");
    zb_io_free(io);
}

static void test_io_s3__closed_port_fails_in_time(void)
{
    zb_s3_config c = base_config();
    zb_io *io = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    c.endpoint = "http://127.0.0.1:1";
    c.max_attempts = 2;
    setup_with(&io, &ctx, &c);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://" BUCKET "/k"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "store http://127.0.0.1:1");
    ZBT_CONTAINS(ctx.err.msg, "s3://" BUCKET "/k");
    zb_io_free(io);
}

static void test_io_s3__stop_flag_cancels(void)
{
    zb_s3_config c = base_config();
    atomic_int stop = 1;
    zb_io *io = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    setup_with(&io, &ctx, &c);
    ctx.stop = &stop;
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://" BUCKET "/k"), ZB_ECANCELED);
    zb_io_free(io);
}

/* ---- faults (fault_endpoint.mjs) ---------------------------------------- */

static void fault_setup(zb_io **io, zb_ctx *ctx, unsigned attempts,
                        unsigned timeout_s)
{
    zb_s3_config c = base_config();
    const char *e = getenv("ZB_TEST_FAULT_ENDPOINT");

    ZBT_CHECK(e != NULL);
    c.endpoint = e;
    c.max_attempts = attempts;
    c.timeout_seconds = timeout_s;
    setup_with(io, ctx, &c);
}

static void check_fault_bytes(const unsigned char *p, uint64_t off, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != (unsigned char)(((off + i) * 7) % 251))
            zbt__fail(__FILE__, __LINE__, "byte %llu is wrong",
                      (unsigned long long)(off + i));
}

static void test_io_s3__retries_slow_down(void)
{
    zb_io *io = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    fault_setup(&io, &ctx, 4, 5);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, "s3://b/slow503/a"), &ctx);
    ZBT_EQ_U64(st.size_bytes, 200000);
    zb_io_free(io);
    /* two attempts are not enough for two 503s: the code is named */
    fault_setup(&io, &ctx, 2, 5);
    ZBT_RC(zb_io_read_range(io, &ctx, "s3://b/slow503/b", 0,
                            (char[16]){ 0 }, 16), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 503 SlowDown");
    zb_io_free(io);
}

static void test_io_s3__cut_reads_resume(void)
{
    unsigned char *buf = zb_malloc(200000);
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_ctx ctx;

    fault_setup(&io, &ctx, 3, 5);
    /* the suffix GET of open is cut, then resumed */
    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, "s3://b/cut/a"), &ctx);
    ZBT_EQ_U64(zb_io_file_size(f), 200000);
    ZBT_OK_CTX(zb_io_file_read(f, &ctx, 200000 - 65536, buf, 65536), &ctx);
    check_fault_bytes(buf, 200000 - 65536, 65536);
    /* a read from byte 0 is cut and resumed from the byte it reached */
    ZBT_OK_CTX(zb_io_file_read(f, &ctx, 0, buf, 200000), &ctx);
    check_fault_bytes(buf, 0, 200000);
    zb_io_file_close(f);
    zb_free(buf);
    zb_io_free(io);
}

static void test_io_s3__short_bodies_are_errors(void)
{
    unsigned char *buf = zb_malloc(200000);
    zb_io *io = NULL;
    zb_ctx ctx;

    fault_setup(&io, &ctx, 3, 5);
    ZBT_RC(zb_io_read_range(io, &ctx, "s3://b/short/a", 1000, buf, 100000),
           ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "shorter than its Content-Length");
    ZBT_CONTAINS(ctx.err.msg, "short/a");
    zb_free(buf);
    zb_io_free(io);
}

static void test_io_s3__stalled_replies_time_out(void)
{
    char buf[64];
    zb_io *io = NULL;
    zb_ctx ctx;

    fault_setup(&io, &ctx, 1, 1);
    ZBT_RC(zb_io_read_range(io, &ctx, "s3://b/stall/a", 0, buf, 64),
           ZB_ETIMEOUT);
    ZBT_CONTAINS(ctx.err.msg, "stall/a");
    zb_io_free(io);
}

const zbt_case test_io_s3[] = {
    ZBT_CASE(test_io_s3__retries_slow_down),
    ZBT_CASE(test_io_s3__cut_reads_resume),
    ZBT_CASE(test_io_s3__short_bodies_are_errors),
    ZBT_CASE(test_io_s3__stalled_replies_time_out),
    ZBT_CASE(test_io_s3__put_get_stat_delete),
    ZBT_CASE(test_io_s3__keys_used_as_written),
    ZBT_CASE(test_io_s3__open_keeps_the_tail),
    ZBT_CASE(test_io_s3__vectored_reads),
    ZBT_CASE(test_io_s3__multipart_upload),
    ZBT_CASE(test_io_s3__aborted_writes_leave_nothing),
    ZBT_CASE(test_io_s3__new_files_never_replace),
    ZBT_CASE(test_io_s3__list_and_batch_delete_many),
    ZBT_CASE(test_io_s3__unknown_bucket_is_named),
    ZBT_CASE(test_io_s3__refused_keys_show_the_code),
    ZBT_CASE(test_io_s3__prefix_settings_win),
    ZBT_CASE(test_io_s3__html_endpoint_is_named),
    ZBT_CASE(test_io_s3__closed_port_fails_in_time),
    ZBT_CASE(test_io_s3__stop_flag_cancels),
    ZBT_END
};

/*
 * tests/unit/ops/expire_reach.c - the reachable-file machinery (ops/reachable/reachable_files.h):
 * path normalization (file:, s3a/s3n, hdfs authorities), sorted streams in
 * memory and spilled (the same output, sorted and distinct, tags merged),
 * under a budget, the merge join, allocation-failure torture, and
 * batched parallel deletion with its counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_fixture.h"
#include "ops/reachable/reachable_files.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

static void norm_is(const char *in, const char *want)
{
    zb_ctx ctx;
    zb_buf b = ZB_BUF_INIT(1 << 16);

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_reach_normalize(&b, &ctx, in), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), want);
    zb_buf_free(&b);
}

static void test_ops_reach__normalize(void)
{
    norm_is("/w/t/data/a.parquet", "/w/t/data/a.parquet");
    norm_is("file:/w/t/a", "/w/t/a");
    norm_is("file:///w/t/a", "/w/t/a");
    norm_is("file://host/w/t/a", "/w/t/a");
    norm_is("hdfs://localhost:20500/test-warehouse/x.parq",
            "/test-warehouse/x.parq");
    norm_is("viewfs://c/a/b", "/a/b");
    norm_is("s3a://bucket/w/t/a", "s3://bucket/w/t/a");
    norm_is("s3n://bucket/w/t/a", "s3://bucket/w/t/a");
    norm_is("S3://bucket/w//t/a/", "s3://bucket/w/t/a");
    norm_is("gs://b/x", "gs://b/x");
    norm_is("/w//t///a/", "/w/t/a");
    norm_is("/", "/");
    norm_is("data/x.parquet", "data/x.parquet");
    ZBT_CHECK(zb_reach_under("/w/t/a", "/w/t"));
    ZBT_CHECK(zb_reach_under("/w/t", "/w/t"));
    ZBT_CHECK(zb_reach_under("/w/t/a", "/w/t/"));
    ZBT_CHECK(!zb_reach_under("/w/tt/a", "/w/t"));
    ZBT_CHECK(!zb_reach_under("/w", "/w/t"));
}

/* Path i of a set with duplicates: 3 of 4 indexes are distinct. */
static int path_of(char *out, size_t n, unsigned i)
{
    unsigned k = i % 4 == 3 ? i - 1 : i;

    return snprintf(out, n, "/warehouse/db/t/data/p=%u/%08x-file-%u.parquet",
                    k % 97, k * 2654435761u, k);
}

/* Drains a stream: checks order and distinctness; returns the count and
 * a checksum of paths and tags. */
static uint64_t drain(zb_pathsort *s, zb_ctx *ctx, uint64_t *sum)
{
    const zb_pathrec *r;
    char prev[512] = "";
    uint64_t n = 0;
    int rc, first = 1;

    *sum = 0;
    while ((rc = zb_pathsort_next(s, ctx, &r)) > 0) {
        size_t i;
        if (!first)
            ZBT_CHECK(strcmp(prev, r->path) < 0);
        first = 0;
        ZBT_EQ_INT(strlen(r->path), r->len);
        snprintf(prev, sizeof prev, "%s", r->path);
        for (i = 0; i < r->len; i++)
            *sum = *sum * 31 + (unsigned char)r->path[i];
        *sum += r->tag * 7 + r->size_bytes;
        n++;
    }
    ZBT_OK_CTX(rc, ctx);
    return n;
}

static void fill(zb_pathsort *s, zb_ctx *ctx, unsigned n)
{
    char p[256];
    unsigned i;

    for (i = 0; i < n; i++) {
        int len = path_of(p, sizeof p, i);
        /* Duplicates carry another tag: the merged record has both. */
        ZBT_OK_CTX(zb_pathsort_add(s, ctx, p, (size_t)len,
                                   i % 4 == 3 ? ZB_REACH_LISTED
                                              : ZB_REACH_DATA,
                                   i % 4 == 3 ? 0 : 100 + (i % 4 == 2 ? 1 : 0),
                                   0),
                   ctx);
    }
}

static void test_ops_reach__sort_memory_and_spilled(void)
{
    zb_ctx ctx;
    zb_pathsort *a = NULL, *b = NULL;
    uint64_t na, nb, sa, sb;
    unsigned n = 200000;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_pathsort_new(&a, &ctx, "test", (uint64_t)1 << 30), &ctx);
    ZBT_OK_CTX(zb_pathsort_new(&b, &ctx, "test", (uint64_t)2 << 20), &ctx);
    fill(a, &ctx, n);
    fill(b, &ctx, n);
    ZBT_OK_CTX(zb_pathsort_finish(a, &ctx), &ctx);
    ZBT_OK_CTX(zb_pathsort_finish(b, &ctx), &ctx);
    ZBT_EQ_INT(zb_pathsort_runs(a), 0);
    ZBT_CHECK(zb_pathsort_runs(b) >= 5);
    na = drain(a, &ctx, &sa);
    nb = drain(b, &ctx, &sb);
    ZBT_EQ_U64(na, n / 4 * 3);
    ZBT_EQ_U64(na, nb);
    ZBT_EQ_U64(sa, sb);
    zb_pathsort_free(a);
    zb_pathsort_free(b);
}

/* A tiny cap: runs are merged whenever 64 exist; the same output. */
static void test_ops_reach__sort_many_runs(void)
{
    zb_ctx ctx;
    zb_pathsort *a = NULL, *b = NULL;
    uint64_t na, nb, sa, sb;
    unsigned n = 40000;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_pathsort_new(&a, &ctx, "test", (uint64_t)1 << 30), &ctx);
    ZBT_OK_CTX(zb_pathsort_new(&b, &ctx, "test", 16 << 10), &ctx);
    fill(a, &ctx, n);
    fill(b, &ctx, n);
    ZBT_OK_CTX(zb_pathsort_finish(a, &ctx), &ctx);
    ZBT_OK_CTX(zb_pathsort_finish(b, &ctx), &ctx);
    ZBT_CHECK(zb_pathsort_runs(b) >= 1 && zb_pathsort_runs(b) <= 64);
    na = drain(a, &ctx, &sa);
    nb = drain(b, &ctx, &sb);
    ZBT_EQ_U64(na, n / 4 * 3);
    ZBT_EQ_U64(na, nb);
    ZBT_EQ_U64(sa, sb);
    zb_pathsort_free(a);
    zb_pathsort_free(b);
}

/* A budget smaller than the data: the stream spills instead of growing
 * past it, and gives everything back. */
static void test_ops_reach__sort_under_budget(void)
{
    zb_ctx ctx;
    zb_budget *bg = NULL;
    zb_pathsort *s = NULL;
    uint64_t n, sum;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_budget_new(&bg, (uint64_t)3 << 20, NULL), &ctx);
    ctx.budget = bg;
    ZBT_OK_CTX(zb_pathsort_new(&s, &ctx, "test", 0), &ctx);
    fill(s, &ctx, 100000);
    ZBT_CHECK(zb_budget_held_bytes(bg) <= ((uint64_t)3 << 20));
    ZBT_OK_CTX(zb_pathsort_finish(s, &ctx), &ctx);
    ZBT_CHECK(zb_pathsort_runs(s) >= 2);
    n = drain(s, &ctx, &sum);
    ZBT_EQ_U64(n, 75000);
    zb_pathsort_free(s);
    ZBT_EQ_U64(zb_budget_held_bytes(bg), 0);
    zb_budget_free(bg);
}

typedef struct join_counts {
    unsigned a_only, b_only, both;
} join_counts;

static int count_join(const zb_pathrec *a, const zb_pathrec *b, void *p)
{
    join_counts *c = p;

    if (a && b)
        c->both++;
    else if (a)
        c->a_only++;
    else
        c->b_only++;
    return 0;
}

static void test_ops_reach__join(void)
{
    zb_ctx ctx;
    zb_pathsort *a = NULL;
    zb_pathfile *b = NULL;
    join_counts c = { 0, 0, 0 };
    zb_pathrec r;
    char p[64];
    unsigned i;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_pathsort_new(&a, &ctx, "test", 1 << 20), &ctx);
    ZBT_OK_CTX(zb_pathfile_open(&b, &ctx, "test"), &ctx);
    /* a: multiples of 2 (0..9998); b: multiples of 3, written in order. */
    for (i = 0; i < 10000; i += 2) {
        snprintf(p, sizeof p, "/x/%06u", i);
        ZBT_OK_CTX(zb_pathsort_add(a, &ctx, p, strlen(p), 1, 0, 0), &ctx);
    }
    memset(&r, 0, sizeof r);
    for (i = 0; i < 10000; i += 3) {
        snprintf(p, sizeof p, "/x/%06u", i);
        r.path = p;
        r.len = strlen(p);
        ZBT_OK_CTX(zb_pathfile_write(b, &ctx, &r), &ctx);
    }
    ZBT_OK_CTX(zb_pathsort_finish(a, &ctx), &ctx);
    ZBT_OK_CTX(zb_pathfile_rewind(b, &ctx), &ctx);
    ZBT_OK_CTX(zb_reach_join(&ctx, zb_pathsort_next_cb, a,
                             zb_pathfile_next_cb, b, count_join, &c),
               &ctx);
    ZBT_EQ_INT(c.both, 1667);           /* multiples of 6 below 10000 */
    ZBT_EQ_INT(c.a_only, 5000 - 1667);
    ZBT_EQ_INT(c.b_only, 3334 - 1667);
    zb_pathsort_free(a);
    zb_pathfile_free(b);
}

/* Each allocation of a spilling sort fails in turn: ZB_ENOMEM, no leak. */
static void test_ops_reach__alloc_torture(void)
{
    uint64_t nth;
    int oks = 0, fails = 0;

    for (nth = 1; nth < 400; nth += 3) {
        zb_ctx ctx;
        zb_pathsort *s = NULL;
        const zb_pathrec *r;
        char p[256];
        unsigned i;
        int rc;

        zb_ctx_init(&ctx);
        zb_alloc__fail_at(nth, 0);
        rc = zb_pathsort_new(&s, &ctx, "test", 1 << 20);
        for (i = 0; rc == ZB_OK && i < 20000; i++) {
            int len = path_of(p, sizeof p, i);
            rc = zb_pathsort_add(s, &ctx, p, (size_t)len, 1, 0, 0);
        }
        if (rc == ZB_OK)
            rc = zb_pathsort_finish(s, &ctx);
        while (rc == ZB_OK && (rc = zb_pathsort_next(s, &ctx, &r)) > 0)
            rc = ZB_OK;
        zb_alloc__fail_at(0, 0);
        zb_pathsort_free(s);
        if (rc == ZB_OK)
            oks++;
        else {
            ZBT_RC(rc, ZB_ENOMEM);
            fails++;
        }
    }
    ZBT_CHECK(fails > 0);
    ZBT_CHECK(oks > 0);
}

static void test_ops_reach__delete_batches(void)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_pathfile *f = NULL;
    zb_reach_deleted d;
    zb_pathrec r;
    char p[1024];
    const char *dir = zbt_tmpdir();
    unsigned i;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(zb_pathfile_open(&f, &ctx, "test"), &ctx);
    memset(&r, 0, sizeof r);
    for (i = 0; i < 1500; i++) {
        snprintf(p, sizeof p, "%s/d%u/f%04u", dir, i % 3, i);
        if (i % 10 != 0)                /* every tenth is already gone */
            zbt_write_file(p, "abc", 3);
        r.path = p;
        r.len = strlen(p);
        r.size_bytes = 3;
        ZBT_OK_CTX(zb_pathfile_write(f, &ctx, &r), &ctx);
    }
    /* One that cannot be deleted: a non-empty directory. */
    snprintf(p, sizeof p, "%s/d0", dir);
    r.path = p;
    r.len = strlen(p);
    ZBT_OK_CTX(zb_pathfile_write(f, &ctx, &r), &ctx);
    ZBT_OK_CTX(zb_reach_delete(&d, f, io, &ctx, 3), &ctx);
    ZBT_EQ_U64(d.files, 1350);
    ZBT_EQ_U64(d.bytes, 1350 * 3);
    ZBT_EQ_U64(d.missing, 150);
    ZBT_EQ_U64(d.failed, 1);
    ZBT_CONTAINS(d.first_error, "d0");
    snprintf(p, sizeof p, "%s/d1/f0001", dir);
    ZBT_CHECK(!of_exists(p));
    zb_pathfile_free(f);
    zb_io_free(io);
}

const zbt_case test_ops_reach[] = {
    ZBT_CASE(test_ops_reach__normalize),
    ZBT_CASE(test_ops_reach__sort_memory_and_spilled),
    ZBT_CASE(test_ops_reach__sort_many_runs),
    ZBT_CASE(test_ops_reach__sort_under_budget),
    ZBT_CASE(test_ops_reach__join),
    ZBT_CASE(test_ops_reach__alloc_torture),
    ZBT_CASE(test_ops_reach__delete_batches),
    ZBT_END
};

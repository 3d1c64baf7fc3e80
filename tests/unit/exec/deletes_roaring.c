/*
 * Roaring bitmaps and deletion-vector blobs (src/exec/roaring*.c):
 * building against a sorted reference array, lookups, iteration and
 * seeking, the portable format written and read back for every container
 * kind, byte vectors built by hand from the RoaringFormatSpec, the real
 * deletion vector of the impala-v3-deletion-vectors fixture, every
 * truncation and every single-byte corruption of serialized input, CRC-32
 * against zlib, and allocation failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "deletes_test.h"
#include "exec/roaring/roaring.h"
#include "util/alloc.h"

#define FIXTURE_DIR ZB_FIXTURES_DIR "/impala-v3-deletion-vectors"
#define BIG ((size_t)1 << 40)   /* buffer cap (SIZE_MAX overflows zb_buf) */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Sorts and dedupes v in place; returns the new length. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    size_t i, k = 0;

    qsort(v, n, sizeof *v, cmp_u64);
    for (i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* Checks that r holds exactly want[0..n) (sorted, unique). */
static void check_same(const zb_roaring *r, const uint64_t *want, size_t n)
{
    zb_roaring_iter it;
    uint64_t v, *got;
    size_t i, k;

    ZBT_EQ_U64(zb_roaring_cardinality(r), n);
    zb_roaring_iter_init(&it, r);
    for (i = 0; i < n; i++) {
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, want[i]);
        ZBT_CHECK(zb_roaring_contains(r, want[i]));
        if (i == 0 || want[i - 1] != want[i] - 1)
            ZBT_CHECK(!zb_roaring_contains(r, want[i] - 1) || want[i] == 0);
    }
    ZBT_CHECK(!zb_roaring_iter_next(&it, &v));
    if (n) {
        ZBT_EQ_U64(zb_roaring_min(r), want[0]);
        ZBT_EQ_U64(zb_roaring_max(r), want[n - 1]);
    }
    /* The batch reader, in odd-sized reads. */
    got = malloc((n + 1) * sizeof *got);
    ZBT_CHECK(got != NULL);
    zb_roaring_iter_init(&it, r);
    for (i = 0; (k = zb_roaring_iter_read(&it, got + i, 997)) > 0; i += k)
        ZBT_CHECK(i + k <= n);
    ZBT_EQ_U64(i, n);
    ZBT_CHECK(n == 0 || memcmp(got, want, n * sizeof *got) == 0);
    free(got);
}

/* Serializes r, reads it back, and checks the copy against want. */
static void check_round_trip(const zb_roaring *r, const uint64_t *want,
                             size_t n)
{
    zb_buf b = ZB_BUF_INIT(BIG);
    zb_roaring *back = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK(zb_roaring_serialize(r, &b));
    ZBT_EQ_U64(b.len, zb_roaring_serialized_size(r));
    ZBT_OK_CTX(zb_roaring_deserialize(&back, &ctx, b.ptr, b.len), &ctx);
    check_same(back, want, n);
    zb_roaring_free(back);
    zb_buf_free(&b);
}

/* A set from want[0..n) added in the given order. */
static zb_roaring *build(const uint64_t *values, size_t n)
{
    zb_roaring *r = NULL;
    size_t i;

    ZBT_OK(zb_roaring_new(&r));
    for (i = 0; i < n; i++)
        ZBT_OK(zb_roaring_add(r, values[i]));
    return r;
}

static void test_exec_roaring__empty(void)
{
    zb_roaring *r = build(NULL, 0);
    zb_buf b = ZB_BUF_INIT(1024);
    static const uint8_t want[8] = { 0 };

    check_same(r, NULL, 0);
    ZBT_CHECK(!zb_roaring_contains(r, 0));
    ZBT_EQ_U64(zb_roaring_min(r), 0);
    ZBT_EQ_U64(zb_roaring_max(r), 0);
    ZBT_OK(zb_roaring_serialize(r, &b));
    ZBT_EQ_U64(b.len, 8);
    ZBT_CHECK(memcmp(b.ptr, want, 8) == 0);
    check_round_trip(r, NULL, 0);
    zb_buf_free(&b);
    zb_roaring_free(r);
}

/* Random sets of every density, added in random order. */
static void test_exec_roaring__random_sets(void)
{
    static const struct { uint64_t span; size_t n; } shapes[] = {
        { 1000, 10 },            /* one sparse array */
        { 65536, 3000 },         /* one array near the limit */
        { 65536, 5000 },         /* one bitmap */
        { 65536, 60000 },        /* a dense bitmap */
        { 1 << 22, 100000 },     /* 64 containers of mixed kinds */
        { 1ULL << 40, 20000 },   /* many 32-bit keys */
        { UINT64_MAX, 5000 },    /* the whole range */
    };
    size_t s;
    uint64_t seed = 42;

    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t n = shapes[s].n, i, u;
        uint64_t *v = malloc(n * sizeof *v), *sorted = malloc(n * sizeof *v);
        zb_roaring *r;

        ZBT_CHECK(v && sorted);
        for (i = 0; i < n; i++)
            v[i] = shapes[s].span == UINT64_MAX
                       ? zbt_rand(&seed)
                       : zbt_rand(&seed) % shapes[s].span;
        memcpy(sorted, v, n * sizeof *v);
        u = sort_unique(sorted, n);
        r = build(v, n);
        check_same(r, sorted, u);
        check_round_trip(r, sorted, u);
        /* Absent values are absent. */
        for (i = 0; i < 1000; i++) {
            uint64_t x = zbt_rand(&seed) % (shapes[s].span == UINT64_MAX
                                                ? UINT64_MAX
                                                : shapes[s].span);
            ZBT_EQ_INT(zb_roaring_contains(r, x),
                       bsearch(&x, sorted, u, sizeof x, cmp_u64) != NULL);
        }
        zb_roaring_free(r);
        free(v);
        free(sorted);
    }
}

/* Runs: add_range, the run container choice when writing, reading runs. */
static void test_exec_roaring__ranges_and_runs(void)
{
    static const uint64_t ranges[][2] = {
        { 0, 3 }, { 10, 4000 }, { 70000, 140000 }, { 200000, 200001 },
        { (1ULL << 32) - 5, (1ULL << 32) + 70000 }, { 1ULL << 40, (1ULL << 40) + 65536 },
    };
    uint64_t *want = NULL;
    size_t n = 0, r_i;
    zb_roaring *r = NULL;
    zb_buf b = ZB_BUF_INIT(BIG);

    ZBT_OK(zb_roaring_new(&r));
    for (r_i = 0; r_i < sizeof ranges / sizeof ranges[0]; r_i++) {
        uint64_t x;
        ZBT_OK(zb_roaring_add_range(r, ranges[r_i][0], ranges[r_i][1]));
        want = realloc(want, (n + (ranges[r_i][1] - ranges[r_i][0])) *
                                 sizeof *want);
        ZBT_CHECK(want != NULL);
        for (x = ranges[r_i][0]; x < ranges[r_i][1]; x++)
            want[n++] = x;
    }
    check_same(r, want, n);
    /* Runs are far smaller than the arrays and bitmaps they replace. */
    ZBT_OK(zb_roaring_serialize(r, &b));
    ZBT_CHECK(b.len < 300);
    check_round_trip(r, want, n);
    /* Adding into run containers (read back) turns them into others. */
    {
        zb_ctx ctx;
        zb_roaring *back = NULL;
        zb_ctx_init(&ctx);
        ZBT_OK_CTX(zb_roaring_deserialize(&back, &ctx, b.ptr, b.len), &ctx);
        ZBT_OK(zb_roaring_add(back, 5));
        ZBT_OK(zb_roaring_add(back, 100));       /* inside a run: no change */
        ZBT_OK(zb_roaring_add(back, 75000 + 65536 * 3));
        ZBT_EQ_U64(zb_roaring_cardinality(back), n + 2);
        ZBT_CHECK(zb_roaring_contains(back, 5));
        ZBT_CHECK(zb_roaring_contains(back, 75000 + 65536 * 3));
        zb_roaring_free(back);
    }
    zb_buf_free(&b);
    zb_roaring_free(r);
    free(want);
}

/* Seek and peek over every container kind, from run containers too. */
static void test_exec_roaring__seek(void)
{
    uint64_t vals[] = { 3, 4, 5, 9, 70000, 70001, 140000,
                        (1ULL << 33) + 1, (1ULL << 33) + 7 };
    zb_roaring *r = build(vals, sizeof vals / sizeof vals[0]), *rr = NULL;
    zb_roaring *both[2];
    zb_buf b = ZB_BUF_INIT(BIG);
    zb_roaring_iter it;
    zb_ctx ctx;
    uint64_t v, x;
    int k;

    zb_ctx_init(&ctx);
    /* A bitmap container as well, and a run-container copy of all. */
    ZBT_OK(zb_roaring_add_range(r, 300000, 310000));
    ZBT_OK(zb_roaring_serialize(r, &b));
    ZBT_OK_CTX(zb_roaring_deserialize(&rr, &ctx, b.ptr, b.len), &ctx);
    both[0] = r;
    both[1] = rr;
    for (k = 0; k < 2; k++) {
        /* seek(t) then next gives the first value >= t, for many t. */
        for (x = 0; x < 320000; x += 17) {
            uint64_t want = UINT64_MAX;
            size_t i;
            for (i = 0; i < sizeof vals / sizeof vals[0]; i++)
                if (vals[i] >= x && vals[i] < want)
                    want = vals[i];
            if (x <= 300000)
                want = want < 300000 ? want : 300000;
            else if (x < 310000 && x < want)
                want = x;
            zb_roaring_iter_init(&it, both[k]);
            zb_roaring_iter_seek(&it, x);
            ZBT_CHECK(zb_roaring_iter_peek(&it, &v));
            ZBT_EQ_U64(v, want);
            ZBT_CHECK(zb_roaring_iter_next(&it, &v));
            ZBT_EQ_U64(v, want);
            /* Never backwards. */
            zb_roaring_iter_seek(&it, 0);
            if (zb_roaring_iter_peek(&it, &v))
                ZBT_CHECK(v > want);
        }
        zb_roaring_iter_init(&it, both[k]);
        zb_roaring_iter_seek(&it, (1ULL << 33) + 2);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, (1ULL << 33) + 7);
        ZBT_CHECK(!zb_roaring_iter_next(&it, &v));
        zb_roaring_iter_seek(&it, 5);
        ZBT_CHECK(!zb_roaring_iter_peek(&it, &v));
        /* Inside a run, step by step. */
        zb_roaring_iter_init(&it, both[k]);
        zb_roaring_iter_seek(&it, 305000);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, 305000);
        zb_roaring_iter_seek(&it, 305002);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, 305002);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, 305003);
    }
    zb_roaring_free(rr);
    zb_roaring_free(r);
    zb_buf_free(&b);
}

/* ---- hand-built bytes, from the RoaringFormatSpec ---- */

static size_t put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return 2;
}

static size_t put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
    return 4;
}

/*
 * One 32-bit key (7) holding: container 0 an array {1, 5, 9}, container
 * 2 a run [100, 199] and [300, 300], container 3 a bitmap of the even
 * values, container 9 an array {65535}: cookie 12347 with four containers,
 * so an offset header follows.
 */
static size_t hand_built(uint8_t *buf)
{
    size_t p = 0, base, offsets, i;

    p += put32(buf + p, 1);
    p += put32(buf + p, 0);
    p += put32(buf + p, 7);                 /* key */
    base = p;
    p += put32(buf + p, 12347 | 3u << 16);  /* 4 containers */
    buf[p++] = 0x02;                        /* container #1 is a run */
    p += put16(buf + p, 0);
    p += put16(buf + p, 2);                 /* 3 values */
    p += put16(buf + p, 2);
    p += put16(buf + p, 100);               /* 101 values */
    p += put16(buf + p, 3);
    p += put16(buf + p, 32767);             /* 32768 values */
    p += put16(buf + p, 9);
    p += put16(buf + p, 0);
    offsets = p;
    p += 16;
    put32(buf + offsets, (uint32_t)(p - base));
    p += put16(buf + p, 1);
    p += put16(buf + p, 5);
    p += put16(buf + p, 9);
    put32(buf + offsets + 4, (uint32_t)(p - base));
    p += put16(buf + p, 2);
    p += put16(buf + p, 100);
    p += put16(buf + p, 99);
    p += put16(buf + p, 300);
    p += put16(buf + p, 0);
    put32(buf + offsets + 8, (uint32_t)(p - base));
    for (i = 0; i < 1024; i++) {
        p += put32(buf + p, 0x55555555u);
        p += put32(buf + p, 0x55555555u);
    }
    put32(buf + offsets + 12, (uint32_t)(p - base));
    p += put16(buf + p, 65535);
    return p;
}

static void test_exec_roaring__hand_built(void)
{
    uint8_t *buf = malloc(16384);
    zb_roaring *r = NULL;
    zb_ctx ctx;
    uint64_t k7 = 7ULL << 32, v;
    size_t len;

    ZBT_CHECK(buf != NULL);
    len = hand_built(buf);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_roaring_deserialize(&r, &ctx, buf, len), &ctx);
    ZBT_EQ_U64(zb_roaring_cardinality(r), 3 + 101 + 32768 + 1);
    ZBT_CHECK(zb_roaring_contains(r, k7 | 5));
    ZBT_CHECK(!zb_roaring_contains(r, k7 | 6));
    ZBT_CHECK(!zb_roaring_contains(r, 5));
    ZBT_CHECK(zb_roaring_contains(r, k7 | 2 << 16 | 150));
    ZBT_CHECK(zb_roaring_contains(r, k7 | 2 << 16 | 300));
    ZBT_CHECK(!zb_roaring_contains(r, k7 | 2 << 16 | 200));
    ZBT_CHECK(zb_roaring_contains(r, k7 | 3 << 16 | 65534));
    ZBT_CHECK(!zb_roaring_contains(r, k7 | 3 << 16 | 65533));
    ZBT_CHECK(zb_roaring_contains(r, k7 | 9 << 16 | 65535));
    ZBT_EQ_U64(zb_roaring_min(r), k7 | 1);
    ZBT_EQ_U64(zb_roaring_max(r), k7 | 9 << 16 | 65535);
    {
        zb_roaring_iter it;
        zb_roaring_iter_init(&it, r);
        zb_roaring_iter_seek(&it, k7 | 2 << 16 | 199);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, k7 | 2 << 16 | 199);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, k7 | 2 << 16 | 300);
        ZBT_CHECK(zb_roaring_iter_next(&it, &v));
        ZBT_EQ_U64(v, k7 | 3 << 16 | 0);
    }
    /* Our writer picks the same kinds: byte for byte the same input. */
    {
        zb_buf b = ZB_BUF_INIT(BIG);
        ZBT_OK(zb_roaring_serialize(r, &b));
        ZBT_EQ_U64(b.len, len);
        ZBT_CHECK(memcmp(b.ptr, buf, len) == 0);
        zb_buf_free(&b);
    }
    zb_roaring_free(r);

    /* The same without runs: cookie 12346, count, offsets always. */
    {
        size_t p = 0;
        p += put32(buf + p, 1);
        p += put32(buf + p, 0);
        p += put32(buf + p, 0);
        p += put32(buf + p, 12346);
        p += put32(buf + p, 1);
        p += put16(buf + p, 0);
        p += put16(buf + p, 1);
        p += put32(buf + p, 4 + 4 + 4 + 4);
        p += put16(buf + p, 7);
        p += put16(buf + p, 8);
        ZBT_OK_CTX(zb_roaring_deserialize(&r, &ctx, buf, p), &ctx);
        ZBT_EQ_U64(zb_roaring_cardinality(r), 2);
        ZBT_CHECK(zb_roaring_contains(r, 8));
        zb_roaring_free(r);
        /* A wrong offset is refused. */
        put32(buf + 24, 17);
        ZBT_RC(zb_roaring_deserialize(&r, &ctx, buf, p), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "offset");
        ZBT_CHECK(r == NULL);
    }
    free(buf);
}

/* Each malformation named by the message. */
static void test_exec_roaring__invalid(void)
{
    static const struct { const char *hex; const char *msg; } cases[] = {
        { "", "truncated" },
        { "0100000000000000", "count larger" },
        { "0200000000000000" "00000000" "3a300000" "00000000"
          "00000000" "3a300000" "00000000", "keys not strictly" },
        { "0100000000000000" "00000000" "39300000" "00000000", "cookie" },
        { "0100000000000000" "00000000" "3a300000" "01000200", "65536" },
        { "0100000000000000" "00000000" "3a300000" "02000000"
          "05000000" "05000000" "18000000" "1a000000" "0100" "0100",
          "keys not strictly" },
        { "0100000000000000" "00000000" "3a300000" "01000000"
          "00000100" "10000000" "0500" "0500", "array values" },
        { "0100000000000000" "00000000" "3b300000" "01" "00000100"
          "0100" "0000" "0000", "run lengths differ" },
        { "0100000000000000" "00000000" "3b300000" "01" "00000200"
          "0200" "0000" "0000" "0000" "0000", "runs overlap" },
        { "0100000000000000" "00000000" "3b300000" "01" "00000100"
          "0100" "ffff" "0100", "passes 65535" },
        { "0100000000000000" "00000000" "3b300000" "01" "0000ffff"
          "0000", "without runs" },
        { "0100000000000000" "00000000" "3a300000" "00000000" "00",
          "trailing" },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[256];
        size_t n = zbt_unhex(buf, sizeof buf, cases[i].hex);
        zb_roaring *r = NULL;
        zb_ctx ctx;

        zb_ctx_init(&ctx);
        if (zb_roaring_deserialize(&r, &ctx, buf, n) != ZB_ECORRUPT)
            zbt__fail(__FILE__, __LINE__, "case %zu (%s) accepted", i,
                      cases[i].msg);
        ZBT_CHECK(r == NULL);
        ZBT_CONTAINS(ctx.err.msg, "roaring bitmap: byte ");
        ZBT_CONTAINS(ctx.err.msg, cases[i].msg);
    }
    /* A bitmap container whose population is not its cardinality. */
    {
        uint8_t *buf = calloc(1, 8 + 4 + 8 + 4 + 4 + 8192);
        size_t p = 0;
        zb_roaring *r = NULL;
        zb_ctx ctx;
        ZBT_CHECK(buf != NULL);
        zb_ctx_init(&ctx);
        p += put32(buf + p, 1);
        p += put32(buf + p, 0);
        p += put32(buf + p, 0);
        p += put32(buf + p, 12346);
        p += put32(buf + p, 1);
        p += put16(buf + p, 0);
        p += put16(buf + p, 5000 - 1);
        p += put32(buf + p, 16);
        memset(buf + p, 0xFF, 600);   /* 4800 bits set, 5000 declared */
        p += 8192;
        ZBT_RC(zb_roaring_deserialize(&r, &ctx, buf, p), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "population");
        free(buf);
    }
}

/* Inputs for the torture tests: small ones of every container kind. */
static size_t torture_input(uint8_t *buf, size_t cap, int which)
{
    zb_roaring *r = NULL;
    zb_buf b = ZB_BUF_INIT(BIG);
    size_t n;

    ZBT_OK(zb_roaring_new(&r));
    switch (which) {
    case 0:                                       /* arrays, two keys */
        ZBT_OK(zb_roaring_add(r, 1));
        ZBT_OK(zb_roaring_add(r, 3));
        ZBT_OK(zb_roaring_add(r, 70000));
        ZBT_OK(zb_roaring_add(r, (1ULL << 32) | 2));
        break;
    case 1:                                       /* runs, >= 4 of them */
        ZBT_OK(zb_roaring_add_range(r, 0, 100));
        ZBT_OK(zb_roaring_add_range(r, 65536, 65536 + 300));
        ZBT_OK(zb_roaring_add_range(r, 3 * 65536, 3 * 65536 + 9));
        ZBT_OK(zb_roaring_add_range(r, 5 * 65536 + 7, 5 * 65536 + 90));
        ZBT_OK(zb_roaring_add(r, 6 * 65536 + 1));
        break;
    default:                                      /* a bitmap */
        {
            uint64_t x;
            for (x = 0; x < 65536; x += 3)
                ZBT_OK(zb_roaring_add(r, x));
        }
        break;
    }
    ZBT_OK(zb_roaring_serialize(r, &b));
    ZBT_CHECK(b.len <= cap);
    memcpy(buf, b.ptr, b.len);
    n = b.len;
    zb_buf_free(&b);
    zb_roaring_free(r);
    return n;
}

/* Every prefix of valid input is refused cleanly. */
static void test_exec_roaring__truncated_everywhere(void)
{
    static uint8_t buf[16384];
    int which;

    for (which = 0; which < 3; which++) {
        size_t len = torture_input(buf, sizeof buf, which), cut;
        for (cut = 0; cut < len; cut++) {
            uint8_t *copy = malloc(cut ? cut : 1);
            zb_roaring *r = NULL;
            zb_ctx ctx;
            ZBT_CHECK(copy != NULL);
            memcpy(copy, buf, cut);
            zb_ctx_init(&ctx);
            ZBT_RC(zb_roaring_deserialize(&r, &ctx, copy, cut), ZB_ECORRUPT);
            ZBT_CHECK(r == NULL);
            free(copy);
        }
    }
}

/*
 * Every byte changed (to 3 values): refused, or accepted as a set that
 * is consistent (its own serialization reads back to the same values).
 */
static void test_exec_roaring__corrupt_everywhere(void)
{
    static uint8_t buf[16384];
    static const uint8_t deltas[] = { 0x01, 0x80, 0xFF };
    int which;
    size_t refused = 0, accepted = 0;

    for (which = 0; which < 3; which++) {
        size_t len = torture_input(buf, sizeof buf, which), at, d;
        for (at = 0; at < len; at++) {
            for (d = 0; d < sizeof deltas; d++) {
                uint8_t *copy = malloc(len);
                zb_roaring *r = NULL, *again = NULL;
                zb_buf b = ZB_BUF_INIT(BIG);
                zb_ctx ctx;
                int rc;
                ZBT_CHECK(copy != NULL);
                memcpy(copy, buf, len);
                copy[at] ^= deltas[d];
                zb_ctx_init(&ctx);
                rc = zb_roaring_deserialize(&r, &ctx, copy, len);
                if (rc == ZB_OK) {
                    zb_roaring_iter it1, it2;
                    uint64_t v1, v2;
                    accepted++;
                    ZBT_OK(zb_roaring_serialize(r, &b));
                    ZBT_OK_CTX(zb_roaring_deserialize(&again, &ctx, b.ptr,
                                                      b.len), &ctx);
                    ZBT_EQ_U64(zb_roaring_cardinality(again),
                               zb_roaring_cardinality(r));
                    zb_roaring_iter_init(&it1, r);
                    zb_roaring_iter_init(&it2, again);
                    while (zb_roaring_iter_next(&it1, &v1)) {
                        ZBT_CHECK(zb_roaring_iter_next(&it2, &v2));
                        ZBT_EQ_U64(v1, v2);
                        ZBT_CHECK(zb_roaring_contains(r, v1));
                    }
                } else {
                    refused++;
                    ZBT_RC(rc, ZB_ECORRUPT);
                    ZBT_CHECK(r == NULL);
                }
                zb_roaring_free(again);
                zb_roaring_free(r);
                zb_buf_free(&b);
                free(copy);
            }
        }
    }
    ZBT_CHECK(refused > 0 && accepted > 0);
}

/* ---- deletion vectors ---- */

static void test_exec_roaring__crc32_matches_zlib(void)
{
    uint8_t buf[1000];
    uint64_t seed = 7;
    size_t i, n;

    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)zbt_rand(&seed);
    for (n = 0; n <= sizeof buf; n += 37)
        ZBT_EQ_U64(zb_crc32(0, buf, n), crc32(0L, buf, (uInt)n));
    /* Continuing from a previous value. */
    ZBT_EQ_U64(zb_crc32(zb_crc32(0, buf, 100), buf + 100, 900),
               crc32(0L, buf, 1000));
    ZBT_EQ_U64(zb_crc32(0, "123456789", 9), 0xCBF43926u);
}

/* The Puffin file of the fixture: both blobs hold position 0. */
static void test_exec_roaring__fixture_deletion_vector(void)
{
    zbt_files f = { 0 };
    uint8_t *data;
    size_t len;
    long size;
    FILE *fp;
    zb_roaring *r = NULL;
    zb_ctx ctx;
    /* From the manifest (zb-manifest-cat): content_offset 4 and 46,
     * content_size_in_bytes 42, record_count 1, both into this file; the
     * Puffin footer says the same with cardinality "1". */
    static const size_t offsets[] = { 4, 46 };
    size_t i;

    zb_ctx_init(&ctx);
    ZBT_EQ_U64(zbt_find_files(&f, FIXTURE_DIR "/data", ".puffin"), 1);
    ZBT_CHECK((fp = fopen(f.paths[0], "rb")) != NULL);
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    rewind(fp);
    ZBT_EQ_U64(size, 824);
    data = malloc((size_t)size);
    ZBT_CHECK(data != NULL);
    ZBT_EQ_U64(fread(data, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    ZBT_CHECK(memcmp(data, "PFA1", 4) == 0);
    for (i = 0; i < 2; i++) {
        zb_buf b = ZB_BUF_INIT(BIG);
        len = 42;
        ZBT_OK_CTX(zb_dv_parse(&r, &ctx, data + offsets[i], len), &ctx);
        ZBT_EQ_U64(zb_roaring_cardinality(r), 1);
        ZBT_CHECK(zb_roaring_contains(r, 0));
        ZBT_CHECK(!zb_roaring_contains(r, 1));
        /* Our blob for the same set is Iceberg's, byte for byte. */
        ZBT_OK_CTX(zb_dv_build(&b, &ctx, r), &ctx);
        ZBT_EQ_U64(b.len, len);
        ZBT_CHECK(memcmp(b.ptr, data + offsets[i], len) == 0);
        zb_buf_free(&b);
        zb_roaring_free(r);
        r = NULL;
    }
    /* Damaged: each check named. */
    {
        uint8_t blob[42];
        memcpy(blob, data + 4, 42);
        ZBT_RC(zb_dv_parse(&r, &ctx, blob, 41), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "length field");
        ZBT_RC(zb_dv_parse(&r, &ctx, blob, 11), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "fewer than");
        blob[5] ^= 1;
        ZBT_RC(zb_dv_parse(&r, &ctx, blob, 42), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "magic");
        blob[5] ^= 1;
        blob[20] ^= 1;
        ZBT_RC(zb_dv_parse(&r, &ctx, blob, 42), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "CRC-32");
        blob[20] ^= 1;
        blob[41] ^= 1;
        ZBT_RC(zb_dv_parse(&r, &ctx, blob, 42), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "CRC-32");
        ZBT_CHECK(r == NULL);
    }
    free(data);
    zbt_files_free(&f);
}

static void test_exec_roaring__dv_round_trip(void)
{
    zb_roaring *r = NULL, *back = NULL;
    zb_buf b = ZB_BUF_INIT(BIG);
    zb_ctx ctx;
    uint64_t seed = 99;
    int i;

    zb_ctx_init(&ctx);
    ZBT_OK(zb_roaring_new(&r));
    for (i = 0; i < 50000; i++)
        ZBT_OK(zb_roaring_add(r, zbt_rand(&seed) % 10000000));
    ZBT_OK(zb_roaring_add_range(r, 20000000, 20100000));
    ZBT_OK(zb_roaring_add(r, (uint64_t)INT64_MAX));
    ZBT_OK_CTX(zb_dv_build(&b, &ctx, r), &ctx);
    ZBT_EQ_U64(b.len, zb_roaring_serialized_size(r) + 12);
    ZBT_OK_CTX(zb_dv_parse(&back, &ctx, b.ptr, b.len), &ctx);
    ZBT_EQ_U64(zb_roaring_cardinality(back), zb_roaring_cardinality(r));
    ZBT_EQ_U64(zb_roaring_max(back), (uint64_t)INT64_MAX);
    zb_roaring_free(back);
    back = NULL;
    /* Positions at or above 2^63 are no row positions. */
    ZBT_OK(zb_roaring_add(r, 1ULL << 63));
    ZBT_RC(zb_dv_build(&b, &ctx, r), ZB_EINVAL);
    {
        zb_buf raw = ZB_BUF_INIT(BIG);
        uint8_t head[8];
        uint32_t crc;
        size_t inner;
        ZBT_OK(zb_roaring_serialize(r, &raw));
        inner = raw.len + 4;
        head[0] = (uint8_t)(inner >> 24);
        head[1] = (uint8_t)(inner >> 16);
        head[2] = (uint8_t)(inner >> 8);
        head[3] = (uint8_t)inner;
        head[4] = 0xD1; head[5] = 0xD3; head[6] = 0x39; head[7] = 0x64;
        zb_buf_clear(&b);
        ZBT_OK(zb_buf_append(&b, head, 8));
        ZBT_OK(zb_buf_append(&b, raw.ptr, raw.len));
        crc = zb_crc32(0, b.ptr + 4, inner);
        head[0] = (uint8_t)(crc >> 24);
        head[1] = (uint8_t)(crc >> 16);
        head[2] = (uint8_t)(crc >> 8);
        head[3] = (uint8_t)crc;
        ZBT_OK(zb_buf_append(&b, head, 4));
        ZBT_RC(zb_dv_parse(&back, &ctx, b.ptr, b.len), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "2^63");
        ZBT_CHECK(back == NULL);
        zb_buf_free(&raw);
    }
    zb_buf_free(&b);
    zb_roaring_free(r);
}

/* Every allocation failing in turn: ZB_ENOMEM, no leak, set unchanged. */
static void test_exec_roaring__alloc_failures(void)
{
    uint8_t buf[16384];
    size_t len = torture_input(buf, sizeof buf, 1), i;
    uint64_t n, base = zb_alloc_live_bytes();
    int done = 0;

    for (n = 1; !done && n < 1000; n++) {
        zb_roaring *r = NULL;
        zb_ctx ctx;
        int rc;
        zb_ctx_init(&ctx);
        zb_alloc__fail_at(n, 1);
        rc = zb_roaring_deserialize(&r, &ctx, buf, len);
        done = zb_alloc__fail_at(0, 0) == 0;
        if (done) {
            ZBT_OK(rc);
        } else {
            ZBT_RC(rc, ZB_ENOMEM);
            ZBT_EQ_INT(ctx.err.code, ZB_ENOMEM);
            ZBT_CHECK(r == NULL);
        }
        zb_roaring_free(r);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
    /* Adds: a failed add leaves the set as it was. */
    for (n = 1, done = 0; !done && n < 1000; n++) {
        zb_roaring *r = NULL;
        int rc = ZB_OK;
        uint64_t added = 0;
        ZBT_OK(zb_roaring_new(&r));
        zb_alloc__fail_at(n, 0);
        for (i = 0; i < 6000 && rc == ZB_OK; i++) {
            rc = zb_roaring_add(r, (i * 7) % 9000 + (i % 3) * 65536);
            if (rc == ZB_OK)
                added++;
        }
        if (rc == ZB_OK)
            rc = zb_roaring_add_range(r, 500000, 700000);
        done = zb_alloc__fail_at(0, 0) == 0;
        if (!done) {
            zb_roaring_iter it;
            uint64_t v, count = 0;
            ZBT_RC(rc, ZB_ENOMEM);
            zb_roaring_iter_init(&it, r);
            while (zb_roaring_iter_next(&it, &v))
                count++;
            ZBT_EQ_U64(count, zb_roaring_cardinality(r));
        }
        zb_roaring_free(r);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
}

static void test_exec_roaring__mem_bytes(void)
{
    zb_roaring *r = NULL;
    uint64_t m0, m1;

    ZBT_OK(zb_roaring_new(&r));
    m0 = zb_roaring_mem_bytes(r);
    ZBT_OK(zb_roaring_add_range(r, 0, 65536 * 4));
    m1 = zb_roaring_mem_bytes(r);
    ZBT_CHECK(m1 >= m0 + 4 * 8192);
    ZBT_CHECK(m1 < m0 + 4 * 8192 + 4096);
    zb_roaring_free(r);
}

const zbt_case test_exec_deletes_roaring[] = {
    ZBT_CASE(test_exec_roaring__empty),
    ZBT_CASE(test_exec_roaring__random_sets),
    ZBT_CASE(test_exec_roaring__ranges_and_runs),
    ZBT_CASE(test_exec_roaring__seek),
    ZBT_CASE(test_exec_roaring__hand_built),
    ZBT_CASE(test_exec_roaring__invalid),
    ZBT_CASE(test_exec_roaring__truncated_everywhere),
    ZBT_CASE(test_exec_roaring__corrupt_everywhere),
    ZBT_CASE(test_exec_roaring__crc32_matches_zlib),
    ZBT_CASE(test_exec_roaring__fixture_deletion_vector),
    ZBT_CASE(test_exec_roaring__dv_round_trip),
    ZBT_CASE(test_exec_roaring__alloc_failures),
    ZBT_CASE(test_exec_roaring__mem_bytes),
    ZBT_END
};

/*
 * The spilling key set (src/exec/keyset*.c) and zb_budget_try_grow:
 * membership and max-merged values in memory; 1,000,000 random keys in
 * memory and forced to spill giving the same answers; spilling because
 * the budget refuses room, with the budget's holdings back to zero after;
 * one key repeated (unsplittable partition); the spill-disk limit, the
 * stop flag and over-long keys; allocation failures without leaks.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deletes_test.h"
#include "exec/keyset/keyset.h"
#include "exec/spill.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

/* Key number i: 8 bytes of i then 0..23 bytes that depend on i. */
static size_t make_key(uint8_t *buf, uint64_t i)
{
    uint64_t s = i * 31 + 7, r = zbt_rand(&s);
    size_t len = 8 + (size_t)(r % 24), k;

    memcpy(buf, &i, 8);
    for (k = 8; k < len; k++)
        buf[k] = (uint8_t)(r >> (k % 8 * 8));
    return len;
}

static uint64_t key_hash(const uint8_t *k, size_t len)
{
    return zb_keyset_hash(k, len, 0);
}

static void add_key(zb_keyset *ks, zb_ctx *ctx, uint64_t i, uint64_t value)
{
    uint8_t k[32];
    size_t len = make_key(k, i);

    ZBT_OK_CTX(zb_keyset_add(ks, ctx, k, len, key_hash(k, len), value), ctx);
}

static void test_exec_keyset__in_memory(void)
{
    zb_keyset *ks = NULL;
    zb_budget *b = NULL;
    zb_ctx ctx;
    uint8_t k[32];
    uint64_t i, v;
    size_t len;

    ZBT_OK(zb_budget_new(&b, 64 << 20, NULL));
    zb_ctx_init(&ctx);
    ctx.budget = b;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, NULL), &ctx);
    for (i = 0; i < 10000; i++)
        add_key(ks, &ctx, i, i);
    /* Again, smaller and larger values: the larger stays. */
    for (i = 0; i < 10000; i += 2)
        add_key(ks, &ctx, i, i / 2);
    for (i = 1; i < 10000; i += 2)
        add_key(ks, &ctx, i, i + 1000);
    /* The empty key is a key. */
    ZBT_OK_CTX(zb_keyset_add(ks, &ctx, "", 0, key_hash(k, 0), 5), &ctx);
    ZBT_EQ_U64(zb_keyset_added_keys(ks), 20001);
    ZBT_EQ_U64(zb_keyset_loaded_keys(ks), 10001);
    ZBT_CHECK(!zb_keyset_spilled(ks));
    /* Findable before seal too. */
    len = make_key(k, 42);
    ZBT_CHECK(zb_keyset_contains(ks, k, len, key_hash(k, len)));
    ZBT_OK_CTX(zb_keyset_seal(ks, &ctx), &ctx);
    ZBT_EQ_U64(zb_keyset_partitions(ks), 1);
    ZBT_EQ_U64(zb_keyset_partition_of(ks, UINT64_MAX), 0);
    ZBT_OK_CTX(zb_keyset_load_partition(ks, &ctx, 0), &ctx);
    for (i = 0; i < 20000; i++) {
        len = make_key(k, i);
        if (i < 10000) {
            ZBT_CHECK(zb_keyset_find(ks, k, len, key_hash(k, len), &v));
            ZBT_EQ_U64(v, i % 2 ? i + 1000 : i);
        } else {
            ZBT_CHECK(!zb_keyset_find(ks, k, len, key_hash(k, len), &v));
        }
        /* Same bytes, other length; same hash, other bytes. */
        ZBT_CHECK(!zb_keyset_contains(ks, k, len - 1, key_hash(k, len)));
        k[7] ^= 0x80;              /* i + 2^63: never added */
        ZBT_CHECK(!zb_keyset_contains(ks, k, len, key_hash(k, len)) ||
                  i >= 10000);
        ZBT_CHECK(!zb_keyset_contains(ks, k, len, key_hash(k, len) ^ 1) ||
                  i >= 10000);
    }
    ZBT_CHECK(zb_keyset_find(ks, "", 0, key_hash(k, 0), &v));
    ZBT_EQ_U64(v, 5);
    /* Everything it allocated is in its reservation. */
    ZBT_CHECK(zb_keyset_reserved_bytes(ks) > 10000 * 20);
    /* The estimate bounds the real use (keys of 8..31 bytes). */
    ZBT_CHECK(zb_keyset_estimate_bytes(10001, 10001 * 31) >=
              zb_keyset_reserved_bytes(ks) * 4 / 5);
    ZBT_CHECK(zb_keyset_estimate_bytes(10001, 10001 * 31) <
              zb_keyset_reserved_bytes(ks) * 3);
    ZBT_EQ_U64(zb_budget_held_bytes(b), zb_keyset_reserved_bytes(ks));
    zb_keyset_free(ks);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    zb_budget_free(b);
}

/*
 * Probes keys 0..2n (the first n present) in every partition of ks and
 * checks each answer against the construction: key i has value 3 * i + 1.
 */
static void probe_all(zb_keyset *ks, zb_ctx *ctx, uint64_t n,
                      uint64_t *found_out)
{
    unsigned p, parts = zb_keyset_partitions(ks);
    uint64_t i, found = 0, v, *hashes = malloc(2 * n * sizeof *hashes);
    uint8_t k[32];

    /* Hash once; each partition pass routes by hash, as a reader does. */
    ZBT_CHECK(hashes != NULL);
    for (i = 0; i < 2 * n; i++) {
        size_t len = make_key(k, i);
        hashes[i] = key_hash(k, len);
    }
    for (p = 0; p < parts; p++) {
        ZBT_OK_CTX(zb_keyset_load_partition(ks, ctx, p), ctx);
        for (i = 0; i < 2 * n; i++) {
            size_t len;
            int hit;
            if (zb_keyset_partition_of(ks, hashes[i]) != p)
                continue;
            len = make_key(k, i);
            hit = zb_keyset_find(ks, k, len, hashes[i], &v);
            if (i < n) {
                ZBT_CHECK(hit);
                ZBT_EQ_U64(v, 3 * i + 1);
                found++;
            } else {
                ZBT_CHECK(!hit);
            }
        }
    }
    free(hashes);
    *found_out = found;
}

static void build_million(zb_keyset **out, zb_ctx *ctx, uint64_t cap,
                          uint64_t n)
{
    zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
    uint64_t i, s = 1;

    o.max_memory_bytes = cap;
    ZBT_OK_CTX(zb_keyset_new(out, ctx, &o), ctx);
    /* In random order, each key three times with its largest value in
     * the middle. */
    for (i = 0; i < n; i++) {
        uint64_t j = (i * 0x9E3779B1ULL) % n;    /* a permutation of n */
        add_key(*out, ctx, j, 3 * j);
        if (zbt_rand(&s) % 4 == 0) {
            add_key(*out, ctx, j, 3 * j + 1);
            add_key(*out, ctx, j, 2 * j);
        } else {
            add_key(*out, ctx, j, 3 * j + 1);
        }
    }
    ZBT_OK_CTX(zb_keyset_seal(*out, ctx), ctx);
}

static void test_exec_keyset__spill_matches_memory(void)
{
    const uint64_t n = 1000000;
    zb_keyset *mem = NULL, *spill = NULL;
    uint64_t found_mem, found_spill, base = zb_alloc_live_bytes();
    zb_ctx ctx;

    zbt_spill_tmpdir();

    zb_ctx_init(&ctx);
    build_million(&mem, &ctx, 0, n);
    ZBT_CHECK(!zb_keyset_spilled(mem));
    probe_all(mem, &ctx, n, &found_mem);
    ZBT_EQ_U64(found_mem, n);
    ZBT_EQ_U64(zb_keyset_loaded_keys(mem), n);
    zb_keyset_free(mem);

    /* A cap of 4 MiB for a set of about 60 MiB. */
    build_million(&spill, &ctx, 4 << 20, n);
    ZBT_CHECK(zb_keyset_spilled(spill));
    ZBT_CHECK(zb_keyset_partitions(spill) >= 8);
    ZBT_CHECK(zb_keyset_added_keys(spill) >= 2 * n);
    probe_all(spill, &ctx, n, &found_spill);
    ZBT_EQ_U64(found_spill, n);
    ZBT_CHECK(zb_keyset_loaded_keys(spill) < n / 4);
    zb_keyset_free(spill);
    ZBT_EQ_U64(zb_spill_used_bytes(), 0);
    ZBT_EQ_U64(zb_alloc_live_bytes(), base);
}

/* The budget refuses: the set spills and never holds past the limit. */
static void test_exec_keyset__budget_spill(void)
{
    const uint64_t n = 200000, limit = 4 << 20;
    zb_reservation other = ZB_RESERVATION_INIT;
    zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
    zb_keyset *ks = NULL;
    zb_budget *b = NULL;
    zb_ctx ctx;
    uint64_t i, found;

    zbt_spill_tmpdir();

    ZBT_OK(zb_budget_new(&b, limit, NULL));
    zb_ctx_init(&ctx);
    ctx.budget = b;
    /* Someone else holds a quarter. */
    ZBT_OK(zb_budget_reserve(&other, b, limit / 4, NULL));
    o.expected_keys = n;
    o.expected_key_bytes = n * 20;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, &o), &ctx);
    for (i = 0; i < n; i++) {
        add_key(ks, &ctx, i, 3 * i + 1);
        ZBT_CHECK(zb_budget_held_bytes(b) <= limit);
    }
    ZBT_CHECK(zb_keyset_spilled(ks));
    ZBT_OK_CTX(zb_keyset_seal(ks, &ctx), &ctx);
    probe_all(ks, &ctx, n, &found);
    ZBT_EQ_U64(found, n);
    ZBT_CHECK(zb_budget_held_bytes(b) <= limit);
    ZBT_EQ_U64(zb_budget_held_bytes(b), limit / 4 +
                                        zb_keyset_reserved_bytes(ks));
    zb_keyset_free(ks);
    ZBT_EQ_U64(zb_budget_held_bytes(b), limit / 4);
    zb_budget_release(&other);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/* One key many times: its partition cannot be split, it still loads. */
static void test_exec_keyset__one_key_repeated(void)
{
    zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
    zb_keyset *ks = NULL;
    zb_ctx ctx;
    uint8_t k[32];
    size_t len;
    uint64_t i, v, h;
    unsigned p;

    zbt_spill_tmpdir();

    zb_ctx_init(&ctx);
    o.max_memory_bytes = 256 << 10;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, &o), &ctx);
    for (i = 0; i < 20000; i++)
        add_key(ks, &ctx, i, 1);             /* fills memory: spills */
    ZBT_CHECK(zb_keyset_spilled(ks));
    len = make_key(k, 7);
    h = key_hash(k, len);
    for (i = 0; i < 300000; i++)
        ZBT_OK_CTX(zb_keyset_add(ks, &ctx, k, len, h, i), &ctx);
    ZBT_OK_CTX(zb_keyset_seal(ks, &ctx), &ctx);
    p = zb_keyset_partition_of(ks, h);
    ZBT_OK_CTX(zb_keyset_load_partition(ks, &ctx, p), &ctx);
    ZBT_CHECK(zb_keyset_find(ks, k, len, h, &v));
    ZBT_EQ_U64(v, 299999);
    ZBT_CHECK(zb_keyset_loaded_keys(ks) < 20000);
    zb_keyset_free(ks);
}

static void test_exec_keyset__limits_and_stop(void)
{
    zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
    zb_keyset *ks = NULL;
    atomic_int stop = 0;
    zb_ctx ctx;
    uint8_t big[100];
    uint64_t i;
    int rc = ZB_OK;

    zbt_spill_tmpdir();

    zb_ctx_init(&ctx);
    memset(big, 1, sizeof big);
    o.max_key_bytes = 99;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, &o), &ctx);
    ZBT_RC(zb_keyset_add(ks, &ctx, big, 100, 1, 0), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "key of 100 bytes exceeds the 99-byte limit");
    ZBT_OK(zb_keyset_add(ks, &ctx, big, 99, 1, 0));
    zb_keyset_free(ks);

    /* The stop flag. */
    ctx.stop = &stop;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, NULL), &ctx);
    add_key(ks, &ctx, 1, 1);
    atomic_store(&stop, 1);
    ZBT_RC(zb_keyset_add(ks, &ctx, big, 10, 2, 0), ZB_ECANCELED);
    zb_keyset_free(ks);
    ctx.stop = NULL;

    /* The spill-disk limit. */
    zb_spill_set_limit(100000);
    o.max_memory_bytes = 128 << 10;
    ZBT_OK_CTX(zb_keyset_new(&ks, &ctx, &o), &ctx);
    for (i = 0; i < 100000 && rc == ZB_OK; i++) {
        uint8_t k[32];
        size_t len = make_key(k, i);
        rc = zb_keyset_add(ks, &ctx, k, len, key_hash(k, len), i);
    }
    ZBT_RC(rc, ZB_ENOMEM);
    ZBT_CONTAINS(ctx.err.msg, "spill-disk limit of 100000 bytes");
    ZBT_CONTAINS(ctx.err.msg, "key set");
    zb_keyset_free(ks);
    ZBT_EQ_U64(zb_spill_used_bytes(), 0);
    zb_spill_set_limit(0);
}

static void test_exec_keyset__hash(void)
{
    unsigned buckets[16] = { 0 }, i;
    uint64_t x;
    uint8_t buf[40];

    /* Stable across runs and builds. */
    ZBT_EQ_U64(zb_keyset_hash("", 0, 0), zb_keyset_hash("", 0, 0));
    ZBT_CHECK(zb_keyset_hash("a", 1, 0) != zb_keyset_hash("a", 1, 1));
    ZBT_CHECK(zb_keyset_hash("a", 1, 0) != zb_keyset_hash("a\0", 2, 0));
    memset(buf, 0, sizeof buf);
    for (i = 0; i < 40; i++)
        ZBT_CHECK(zb_keyset_hash(buf, i, 0) != zb_keyset_hash(buf, i + 1, 0));
    /* Top bits of sequential integers spread evenly (partitions). */
    for (x = 0; x < 160000; x++)
        buckets[zb_keyset_hash(&x, 8, 0) >> 60]++;
    for (i = 0; i < 16; i++)
        ZBT_CHECK(buckets[i] > 9500 && buckets[i] < 10500);
}

typedef struct waiting {
    zb_reservation r;
    zb_budget *b;
    int rc;
} waiting;

static void *reserve_500(void *p)
{
    waiting *w = p;

    w->rc = zb_budget_reserve(&w->r, w->b, 500, NULL);
    return NULL;
}

static void test_exec_keyset__try_grow(void)
{
    zb_reservation r = ZB_RESERVATION_INIT, s = ZB_RESERVATION_INIT;
    zb_budget *b = NULL, *off = NULL;

    ZBT_OK(zb_budget_new(&b, 1000, NULL));
    /* From empty, with the budget given. */
    ZBT_OK(zb_budget_try_grow(&r, b, 600));
    ZBT_EQ_U64(r.bytes, 600);
    ZBT_EQ_U64(zb_budget_holders(b), 1);
    ZBT_OK(zb_budget_try_grow(&r, NULL, 500));     /* no shrink */
    ZBT_EQ_U64(r.bytes, 600);
    ZBT_OK(zb_budget_try_grow(&r, b, 1000));
    /* Never past the limit, even alone (grow would admit that). */
    ZBT_RC(zb_budget_try_grow(&r, NULL, 1001), ZB_ENOMEM);
    ZBT_EQ_U64(r.bytes, 1000);
    ZBT_RC(zb_budget_try_grow(&s, b, 1), ZB_ENOMEM);
    ZBT_EQ_U64(s.bytes, 0);
    zb_budget_release(&s);
    zb_budget_release(&r);
    ZBT_OK(zb_budget_try_grow(&s, b, 400));
    ZBT_OK(zb_budget_try_grow(&r, b, 600));
    ZBT_RC(zb_budget_try_grow(&r, b, 601), ZB_ENOMEM);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 1000);
    ZBT_EQ_U64(zb_budget_holders(b), 2);
    zb_budget_release(&s);
    zb_budget_release(&r);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
    /* A reservation waiting ahead: try_grow does not jump the queue,
     * even for bytes that would fit. */
    {
        waiting w = { ZB_RESERVATION_INIT, NULL, 1 };
        pthread_t t;
        int i;
        ZBT_OK(zb_budget_new(&b, 1000, NULL));
        ZBT_OK(zb_budget_try_grow(&r, b, 900));
        w.b = b;
        ZBT_EQ_INT(pthread_create(&t, NULL, reserve_500, &w), 0);
        for (i = 0; i < 10000 && zb_budget_waiters(b) == 0; i++) {
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        }
        ZBT_EQ_U64(zb_budget_waiters(b), 1);
        ZBT_RC(zb_budget_try_grow(&s, b, 50), ZB_ENOMEM);
        zb_budget_release(&s);
        zb_budget_release(&r);
        ZBT_EQ_INT(pthread_join(t, NULL), 0);
        ZBT_OK(w.rc);
        ZBT_EQ_U64(zb_budget_held_bytes(b), 500);
        zb_budget_release(&w.r);
        zb_budget_free(b);
    }
    /* A disabled budget admits everything and counts it. */
    ZBT_OK(zb_budget_new(&off, 0, NULL));
    ZBT_OK(zb_budget_try_grow(&r, off, 1ULL << 50));
    ZBT_EQ_U64(zb_budget_held_bytes(off), 1ULL << 50);
    zb_budget_release(&r);
    zb_budget_free(off);
}

/* Every allocation failing in turn, in memory and while spilling. */
static void test_exec_keyset__alloc_failures(void)
{
    uint64_t base = zb_alloc_live_bytes(), n, i;
    int spill;

    zbt_spill_tmpdir();

    for (spill = 0; spill < 2; spill++) {
        int done = 0;
        for (n = 1; !done && n < 2000; n += spill ? 3 : 1) {
            zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
            zb_keyset *ks = NULL;
            zb_ctx ctx;
            int rc;
            zb_ctx_init(&ctx);
            o.max_memory_bytes = spill ? 128 << 10 : 0;
            zb_alloc__fail_at(n, 0);
            rc = zb_keyset_new(&ks, &ctx, &o);
            for (i = 0; rc == ZB_OK && i < 8000; i++) {
                uint8_t k[32];
                size_t len = make_key(k, i);
                rc = zb_keyset_add(ks, &ctx, k, len, key_hash(k, len), i);
            }
            if (rc == ZB_OK)
                rc = zb_keyset_seal(ks, &ctx);
            if (rc == ZB_OK)
                rc = zb_keyset_load_partition(ks, &ctx,
                                              zb_keyset_partitions(ks) - 1);
            done = zb_alloc__fail_at(0, 0) == 0;
            if (done) {
                ZBT_OK_CTX(rc, &ctx);
                ZBT_EQ_INT(zb_keyset_spilled(ks), spill);
            } else {
                ZBT_RC(rc, ZB_ENOMEM);
                ZBT_EQ_INT(ctx.err.code, ZB_ENOMEM);
            }
            zb_keyset_free(ks);
            ZBT_EQ_U64(zb_alloc_live_bytes(), base);
            ZBT_EQ_U64(zb_spill_used_bytes(), 0);
        }
        ZBT_CHECK(done);
    }
}

const zbt_case test_exec_deletes_keyset[] = {
    ZBT_CASE(test_exec_keyset__in_memory),
    ZBT_CASE(test_exec_keyset__spill_matches_memory),
    ZBT_CASE(test_exec_keyset__budget_spill),
    ZBT_CASE(test_exec_keyset__one_key_repeated),
    ZBT_CASE(test_exec_keyset__limits_and_stop),
    ZBT_CASE(test_exec_keyset__hash),
    ZBT_CASE(test_exec_keyset__try_grow),
    ZBT_CASE(test_exec_keyset__alloc_failures),
    ZBT_END
};

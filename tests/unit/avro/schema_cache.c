/*
 * The process cache of parsed Avro schemas (avro_schema_cache.c): off,
 * every get parses anew; on, a text seen before returns the same shared
 * schema, a different text (even by one byte) its own; the least
 * recently used entry gives way when the cache is full, and a schema
 * evicted or dropped while a reader still holds it stays valid until
 * released; a corrupt text is an error, never cached; threads that get
 * and release the same texts at once agree (run under TSan by
 * test_avro_threads).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "format/avro/avro.h"
#include "util/alloc.h"
#include "zbtest.h"

static void schema_text(char *out, size_t cap, int i)
{
    snprintf(out, cap, "{\"type\":\"record\",\"name\":\"r%d\",\"fields\":["
             "{\"name\":\"a\",\"type\":\"long\",\"field-id\":%d}]}", i, i);
}

static void test_avro_schema_cache__off_parses_each_time(void)
{
    zb_ctx ctx;
    zb_avro_schema *a = NULL, *b = NULL;
    uint64_t h0, m0, h1, m1;
    char t[256];

    zb_ctx_init(&ctx);
    zb_avro_schema_cache_set(0);
    schema_text(t, sizeof t, 1);
    zb_avro_schema_cache_stats(&h0, &m0);
    ZBT_OK_CTX(zb_avro_schema_get(&a, &ctx, t, strlen(t)), &ctx);
    ZBT_OK_CTX(zb_avro_schema_get(&b, &ctx, t, strlen(t)), &ctx);
    zb_avro_schema_cache_stats(&h1, &m1);
    ZBT_CHECK(a != b);
    ZBT_EQ_U64(h1 - h0, 0);
    ZBT_EQ_U64(m1 - m0, 2);
    zb_avro_schema_free(a);
    zb_avro_schema_free(b);
}

static void test_avro_schema_cache__shares_and_evicts(void)
{
    zb_ctx ctx;
    zb_avro_schema *a = NULL, *b = NULL, *c = NULL, *held = NULL;
    uint64_t live = zb_alloc_live_bytes();
    char t[256], u[256];
    int i;

    zb_ctx_init(&ctx);
    zb_avro_schema_cache_set(4);
    schema_text(t, sizeof t, 1);
    ZBT_OK_CTX(zb_avro_schema_get(&a, &ctx, t, strlen(t)), &ctx);
    ZBT_OK_CTX(zb_avro_schema_get(&b, &ctx, t, strlen(t)), &ctx);
    ZBT_CHECK(a == b);
    ZBT_EQ_STR(zb_avro_schema_json(a), t);
    /* one byte different (the field id): its own schema */
    snprintf(u, sizeof u, "%s", t);
    u[strlen(u) - 4] = '2';
    ZBT_OK_CTX(zb_avro_schema_get(&c, &ctx, u, strlen(u)), &ctx);
    ZBT_CHECK(c != a);
    ZBT_EQ_INT((int)zb_avro_schema_root(c)->fields[0].field_id, 2);
    ZBT_EQ_INT((int)zb_avro_schema_root(a)->fields[0].field_id, 1);
    zb_avro_schema_free(b);
    zb_avro_schema_free(c);
    /* hold t's schema, then push it out with 4 newer texts */
    held = a;
    for (i = 10; i < 14; i++) {
        schema_text(u, sizeof u, i);
        ZBT_OK_CTX(zb_avro_schema_get(&c, &ctx, u, strlen(u)), &ctx);
        zb_avro_schema_free(c);
    }
    ZBT_OK_CTX(zb_avro_schema_get(&b, &ctx, t, strlen(t)), &ctx);
    ZBT_CHECK(b != held);              /* parsed again: it was evicted */
    ZBT_EQ_STR(zb_avro_schema_json(held), t);
    ZBT_EQ_STR(zb_avro_schema_root(held)->fields[0].name, "a");
    zb_avro_schema_free(held);
    zb_avro_schema_free(b);
    /* a corrupt text: an error, and not cached */
    ZBT_RC(zb_avro_schema_get(&c, &ctx, "{\"type\":", 8), ZB_ECORRUPT);
    ZBT_CHECK(c == NULL);
    ZBT_RC(zb_avro_schema_get(&c, &ctx, "{\"type\":", 8), ZB_ECORRUPT);
    /* turning it off releases every entry */
    zb_avro_schema_cache_set(0);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

typedef struct racer {
    int seed;
    int failures;
} racer;

static void *race(void *p)
{
    racer *r = p;
    zb_ctx ctx;
    char t[256];
    int i;

    zb_ctx_init(&ctx);
    for (i = 0; i < 400; i++) {
        zb_avro_schema *s = NULL;

        schema_text(t, sizeof t, (i * 7 + r->seed) % 6);
        if (zb_avro_schema_get(&s, &ctx, t, strlen(t)) < 0 ||
            strcmp(zb_avro_schema_json(s), t) != 0)
            r->failures++;
        zb_avro_schema_free(s);
    }
    return NULL;
}

static void test_avro_schema_cache__threads(void)
{
    pthread_t th[4];
    racer r[4];
    uint64_t live = zb_alloc_live_bytes();
    int i;

    zb_avro_schema_cache_set(4);       /* 6 texts: evictions race gets */
    for (i = 0; i < 4; i++) {
        r[i].seed = i;
        r[i].failures = 0;
        ZBT_CHECK(pthread_create(&th[i], NULL, race, &r[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ZBT_EQ_INT(r[i].failures, 0);
    }
    zb_avro_schema_cache_set(0);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

const zbt_case test_avro_schema_cache[] = {
    ZBT_CASE(test_avro_schema_cache__off_parses_each_time),
    ZBT_CASE(test_avro_schema_cache__shares_and_evicts),
    ZBT_CASE(test_avro_schema_cache__threads),
    ZBT_END
};

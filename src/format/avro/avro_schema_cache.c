/*
 * format/avro/avro_schema_cache.c - parsed schemas shared by their text.
 *
 * Every manifest and manifest list carries its Avro schema as JSON in its
 * header, and the files one writer makes carry the same text. Parsing it
 * (jansson, then a node graph in a 64 KiB arena) costs about 0.2 ms, most
 * of opening a small manifest: a commit retried against a busy table
 * opens dozens of new manifests per attempt, and that time widens the
 * window in which another writer's commit makes the attempt fail.
 *
 * zb_avro_schema_get returns the cached schema for a text seen before
 * (a reference: zb_avro_schema_free releases it) and parses it
 * otherwise. Schemas are immutable once parsed, so threads share them;
 * the reference count is atomic and the table is under one mutex, never
 * held while parsing. The cache is off (every get parses) until the
 * process turns it on: it keeps memory past the last reader (at most
 * ZB_AVRO_SCHEMA_CACHE_MAX entries of about 64 KiB), which library
 * callers that count their live bytes would not expect. The least
 * recently used entry gives way.
 */
#define ZB_MODULE "avro"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "format/avro/avro_int.h"

typedef struct entry {
    uint64_t hash;
    uint64_t used;             /* tick of the last hit, for LRU */
    zb_avro_schema *s;         /* one reference held by the cache */
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static entry table[ZB_AVRO_SCHEMA_CACHE_MAX];
static size_t capacity;
static uint64_t tick;
static atomic_ullong hits, misses;

/* FNV-1a: the key is compared in full on a hash match. */
static uint64_t text_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;

    while (n--)
        h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
    return h;
}

static zb_avro_schema *ref(zb_avro_schema *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

static zb_avro_schema *find(uint64_t h, const char *json, size_t len)
{
    size_t i;

    for (i = 0; i < capacity; i++) {
        zb_avro_schema *s = table[i].s;

        if (s && table[i].hash == h && s->json_len == len &&
            memcmp(s->json, json, len) == 0) {
            table[i].used = ++tick;
            return s;
        }
    }
    return NULL;
}

/* Puts s in the free or least recently used slot; returns what it
 * evicted (the caller releases it outside the lock). */
static zb_avro_schema *insert(uint64_t h, zb_avro_schema *s)
{
    size_t i, victim = 0;
    zb_avro_schema *old;

    for (i = 0; i < capacity; i++) {
        if (table[i].s == NULL) {
            victim = i;
            break;
        }
        if (table[i].used < table[victim].used)
            victim = i;
    }
    old = table[victim].s;
    table[victim].hash = h;
    table[victim].used = ++tick;
    table[victim].s = ref(s);
    return old;
}

int zb_avro_schema_get(zb_avro_schema **out, zb_ctx *ctx, const char *json,
                       size_t len)
{
    zb_avro_schema *s, *evicted = NULL;
    uint64_t h;
    int rc;

    ZB_ASSERT_ARG(out && ctx && (json || len == 0));
    *out = NULL;
    h = text_hash(json, len);
    pthread_mutex_lock(&mu);
    s = capacity ? find(h, json, len) : NULL;
    if (s)
        *out = ref(s);
    pthread_mutex_unlock(&mu);
    if (s) {
        atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
        return ZB_OK;
    }
    atomic_fetch_add_explicit(&misses, 1, memory_order_relaxed);
    if ((rc = zb_avro_schema_parse(&s, ctx, json, len)) < 0)
        return rc;
    pthread_mutex_lock(&mu);
    if (capacity && find(h, json, len) == NULL)
        evicted = insert(h, s);
    pthread_mutex_unlock(&mu);
    zb_avro_schema_free(evicted);
    *out = s;
    return ZB_OK;
}

void zb_avro_schema_cache_set(size_t entries)
{
    zb_avro_schema *drop[ZB_AVRO_SCHEMA_CACHE_MAX];
    size_t i, n = 0;

    if (entries > ZB_AVRO_SCHEMA_CACHE_MAX)
        entries = ZB_AVRO_SCHEMA_CACHE_MAX;
    pthread_mutex_lock(&mu);
    for (i = entries; i < ZB_AVRO_SCHEMA_CACHE_MAX; i++) {
        if (table[i].s)
            drop[n++] = table[i].s;
        table[i].s = NULL;
    }
    capacity = entries;
    pthread_mutex_unlock(&mu);
    for (i = 0; i < n; i++)
        zb_avro_schema_free(drop[i]);
}

void zb_avro_schema_cache_stats(uint64_t *hit, uint64_t *miss)
{
    *hit = atomic_load(&hits);
    *miss = atomic_load(&misses);
}

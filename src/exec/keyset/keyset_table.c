/*
 * exec/keyset/keyset_table.c - one in-memory hash table of a key set (see
 * keyset_int.h): linear probing over (hash, reference) slots at a load
 * of at most 3/4, entries [u64 value][u32 len][bytes] packed in chunks.
 */
#define ZB_MODULE "keyset"

#include <string.h>

#include "exec/keyset/keyset_int.h"
#include "util/alloc.h"

uint64_t zb_keyset__slots_for(uint64_t n)
{
    uint64_t s = 16;

    while (s / 4 * 3 < n)
        s *= 2;
    return s;
}

static const uint8_t *entry_at(const ks_table *t, uint64_t ref)
{
    return t->chunks[(ref >> 32) - 1] + (uint32_t)ref;
}

static int entry_is(const uint8_t *e, const void *key, size_t len)
{
    uint32_t elen;

    memcpy(&elen, e + 8, 4);
    return elen == len && memcmp(e + KS_ENTRY_HEADER, key, len) == 0;
}

/* The slot holding key, or the empty slot where it would go. */
static ks_slot *probe(const ks_table *t, const void *key, size_t len,
                      uint64_t hash)
{
    uint64_t mask = t->nslots - 1, i = hash & mask;

    for (;; i = (i + 1) & mask) {
        ks_slot *s = &t->slots[i];
        if (s->ref == 0)
            return s;
        if (s->hash == hash && entry_is(entry_at(t, s->ref), key, len))
            return s;
    }
}

int zb_keyset__table_find(const ks_table *t, const void *key, size_t len,
                          uint64_t hash, uint64_t *value)
{
    ks_slot *s;

    if (t->nslots == 0)
        return 0;
    s = probe(t, key, len, hash);
    if (s->ref == 0)
        return 0;
    if (value)
        memcpy(value, entry_at(t, s->ref), 8);
    return 1;
}

/* Keeps the larger of the stored value and value. */
static void merge_value(const ks_table *t, const ks_slot *s, uint64_t value)
{
    uint8_t *e = (uint8_t *)entry_at(t, s->ref);
    uint64_t old;

    memcpy(&old, e, 8);
    if (value > old)
        memcpy(e, &value, 8);
}

static int resize(ks_table *t, uint64_t nslots)
{
    ks_slot *old = t->slots, *ns;
    uint64_t i, oldn = t->nslots;

    if ((ns = zb_calloc(nslots, sizeof *ns)) == NULL)
        return ZB_ENOMEM;
    t->slots = ns;
    t->nslots = nslots;
    for (i = 0; i < oldn; i++) {
        if (old[i].ref) {
            uint64_t j = old[i].hash & (nslots - 1);
            while (ns[j].ref)
                j = (j + 1) & (nslots - 1);
            ns[j] = old[i];
        }
    }
    zb_free(old);
    t->mem += (nslots - oldn) * sizeof *ns;
    return ZB_OK;
}

/* Size of the next chunk, for an entry of len key bytes. */
static size_t chunk_bytes(const ks_table *t, size_t len)
{
    size_t need = KS_ENTRY_HEADER + len;
    size_t size = t->next_chunk ? t->next_chunk : KS_CHUNK_MIN;

    return need > size ? need : size;
}

static int new_chunk(ks_table *t, size_t size)
{
    uint8_t *c;

    if (t->nchunks == t->chunks_cap) {
        size_t ncap = t->chunks_cap ? t->chunks_cap * 2 : 16;
        uint8_t **nl = zb_realloc(t->chunks, ncap * sizeof *nl);
        if (nl == NULL)
            return ZB_ENOMEM;
        t->mem += (ncap - t->chunks_cap) * sizeof *nl;
        t->chunks = nl;
        t->chunks_cap = ncap;
    }
    if ((c = zb_malloc(size)) == NULL)
        return ZB_ENOMEM;
    t->chunks[t->nchunks++] = c;
    t->last_used = 0;
    t->last_size = size;
    t->mem += size;
    if (t->next_chunk == 0)
        t->next_chunk = KS_CHUNK_MIN;
    if (t->next_chunk < KS_CHUNK_BYTES)
        t->next_chunk *= 2;
    return ZB_OK;
}

static int need_chunk(const ks_table *t, size_t len)
{
    return t->nchunks == 0 || t->last_size - t->last_used <
                              KS_ENTRY_HEADER + len;
}

int zb_keyset__table_stage(ks_table *t, size_t len, void **dst)
{
    int rc;

    if (need_chunk(t, len) && (rc = new_chunk(t, chunk_bytes(t, len))) < 0)
        return rc;
    *dst = t->chunks[t->nchunks - 1] + t->last_used + KS_ENTRY_HEADER;
    return ZB_OK;
}

/* Puts the staged entry into slot s (empty). */
static void place(ks_table *t, ks_slot *s, size_t len, uint64_t hash,
                  uint64_t value)
{
    uint8_t *e = t->chunks[t->nchunks - 1] + t->last_used;
    uint32_t len32 = (uint32_t)len;

    memcpy(e, &value, 8);
    memcpy(e + 8, &len32, 4);
    s->hash = hash;
    s->ref = (uint64_t)t->nchunks << 32 | t->last_used;
    t->last_used += KS_ENTRY_HEADER + len;
    t->count++;
    t->key_bytes += len;
}

void zb_keyset__table_commit_staged(ks_table *t, size_t len, uint64_t hash,
                                    uint64_t value)
{
    const uint8_t *key = t->chunks[t->nchunks - 1] + t->last_used +
                         KS_ENTRY_HEADER;
    ks_slot *s = probe(t, key, len, hash);

    if (s->ref)
        merge_value(t, s, value);
    else
        place(t, s, len, hash, value);
}

int zb_keyset__table_insert(ks_table *t, const void *key, size_t len,
                            uint64_t hash, uint64_t value, ks_hold_fn hold)
{
    uint64_t grow_to = 0, extra = 0;
    void *dst;
    ks_slot *s;
    int rc;

    if (t->nslots) {
        s = probe(t, key, len, hash);
        if (s->ref) {
            merge_value(t, s, value);
            return ZB_OK;
        }
    }
    if ((t->count + 1) > t->nslots / 4 * 3) {
        grow_to = t->nslots ? t->nslots * 2 : 16;
        extra += grow_to * sizeof(ks_slot);
    }
    if (need_chunk(t, len))
        extra += chunk_bytes(t, len) +
                 (t->nchunks == t->chunks_cap
                      ? (t->chunks_cap ? t->chunks_cap : 16) * sizeof(void *)
                      : 0);
    if (extra && hold(t->ks, t->mem + extra) != 0)
        return KS_REFUSED;
    if (grow_to && (rc = resize(t, grow_to)) < 0)
        return rc;
    if ((rc = zb_keyset__table_stage(t, len, &dst)) < 0)
        return rc;
    memcpy(dst, key, len);
    s = probe(t, key, len, hash);
    place(t, s, len, hash, value);
    return ZB_OK;
}

int zb_keyset__table_presize(ks_table *t, uint64_t n, uint64_t key_bytes)
{
    uint64_t entries = n * KS_ENTRY_HEADER + key_bytes;

    /* One chunk for a small partition, the largest ones otherwise. */
    t->next_chunk = entries < KS_CHUNK_MIN ? KS_CHUNK_MIN
                  : entries < KS_CHUNK_BYTES ? (size_t)entries
                  : KS_CHUNK_BYTES;
    return resize(t, zb_keyset__slots_for(n));
}

void zb_keyset__table_clear(ks_table *t)
{
    size_t i;

    for (i = 0; i < t->nchunks; i++)
        zb_free(t->chunks[i]);
    zb_free(t->chunks);
    zb_free(t->slots);
    t->slots = NULL;
    t->nslots = t->count = t->key_bytes = t->mem = 0;
    t->chunks = NULL;
    t->nchunks = t->chunks_cap = t->last_used = t->last_size = 0;
    t->next_chunk = 0;
}

int zb_keyset__table_each(ks_table *t, zb_ctx *ctx, ks_each_fn fn)
{
    uint64_t i, hash, value;
    uint32_t len;
    int rc;

    for (i = 0; i < t->nslots; i++) {
        const uint8_t *e;
        if (t->slots[i].ref == 0)
            continue;
        e = entry_at(t, t->slots[i].ref);
        hash = t->slots[i].hash;
        memcpy(&value, e, 8);
        memcpy(&len, e + 8, 4);
        if ((rc = fn(t->ks, ctx, e + KS_ENTRY_HEADER, len, hash, value)) < 0)
            return rc;
    }
    return ZB_OK;
}

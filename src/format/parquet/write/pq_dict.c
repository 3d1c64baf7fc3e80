/*
 * format/parquet/write/pq_dict.c - hash dictionary of distinct values (see
 * pq_dict.h).
 *
 * Values are appended to the PLAIN-encoded dictionary page as they are
 * first seen; an entry records where their bytes are and their hash. The
 * index is open addressing with linear probing over a power-of-two table
 * kept at most half full, so a lookup is one hash and a probe or two.
 * The hash mixes 8 bytes at a time (multiply and xor-shift; the length
 * is mixed in first, so a short tail need not be zero-padded), enough to
 * spread column values, not meant to resist adversaries: a bad input can
 * only make the writer slower.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/write/pq_dict.h"
#include "util/alloc.h"
#include "util/err.h"

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return h;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ n;
    uint64_t w;

    while (n >= 8) {
        memcpy(&w, p, 8);
        h = (h ^ mix(w)) * UINT64_C(0x9E3779B97F4A7C15);
        p += 8;
        n -= 8;
    }
    /* The last 0..7 bytes, without a variable-length copy: two
     * overlapping 4-byte loads, or three single bytes. */
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        w = (uint64_t)a << 32 | b;
    } else if (n > 0) {
        w = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
    } else {
        w = 0;
    }
    return mix(h ^ mix(w));
}

void pq_dict_init(pq_dict *d, int is_bytes, size_t max_bytes)
{
    memset(d, 0, sizeof *d);
    d->is_bytes = is_bytes;
    zb_buf_init(&d->plain, max_bytes);
}

void pq_dict_free(pq_dict *d)
{
    zb_buf_free(&d->plain);
    zb_free(d->entries);
    zb_free(d->slots);
    memset(d, 0, sizeof *d);
}

void pq_dict_clear(pq_dict *d)
{
    zb_buf_clear(&d->plain);
    d->n = 0;
    if (d->slots)
        memset(d->slots, 0, d->n_slots * sizeof *d->slots);
}

static int rehash(pq_dict *d)
{
    size_t n_slots = d->n_slots ? d->n_slots * 2 : 1024, i;
    uint32_t *slots = zb_calloc(n_slots, sizeof *slots);

    if (slots == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < d->n; i++) {
        size_t s = (size_t)d->entries[i].hash & (n_slots - 1);
        while (slots[s])
            s = (s + 1) & (n_slots - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    zb_free(d->slots);
    d->slots = slots;
    d->n_slots = n_slots;
    return ZB_OK;
}

int pq_dict_put(pq_dict *d, const uint8_t *v, size_t len, uint32_t *index,
                int *added)
{
    uint64_t h = hash_bytes(v, len);
    pq_dict_entry *e;
    uint8_t lenb[4];
    size_t s;
    int rc;

    *added = 0;
    if ((d->n + 1) * 2 > d->n_slots && (rc = rehash(d)) < 0)
        return rc;
    for (s = (size_t)h & (d->n_slots - 1); d->slots[s];
         s = (s + 1) & (d->n_slots - 1)) {
        e = &d->entries[d->slots[s] - 1];
        if (e->hash == h && e->len == len &&
            memcmp(d->plain.ptr + e->off, v, len) == 0) {
            *index = d->slots[s] - 1;
            return ZB_OK;
        }
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1024;
        pq_dict_entry *p = zb_realloc(d->entries, cap * sizeof *p);
        if (p == NULL)
            return ZB_ENOMEM;
        d->entries = p;
        d->cap = cap;
    }
    if (len > UINT32_MAX || d->plain.len + len + 4 > UINT32_MAX)
        return ZB_ENOMEM;
    if (d->is_bytes) {
        lenb[0] = (uint8_t)len;
        lenb[1] = (uint8_t)(len >> 8);
        lenb[2] = (uint8_t)(len >> 16);
        lenb[3] = (uint8_t)(len >> 24);
        if ((rc = zb_buf_append(&d->plain, lenb, 4)) < 0)
            return rc;
    }
    e = &d->entries[d->n];
    e->hash = h;
    e->off = (uint32_t)d->plain.len;
    e->len = (uint32_t)len;
    if ((rc = zb_buf_append(&d->plain, v, len)) < 0) {
        zb_buf_truncate(&d->plain, e->off - (d->is_bytes ? 4 : 0));
        return rc;
    }
    d->slots[s] = (uint32_t)(d->n + 1);
    *index = (uint32_t)d->n++;
    *added = 1;
    return ZB_OK;
}

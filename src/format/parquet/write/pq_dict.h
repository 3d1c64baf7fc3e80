/*
 * format/parquet/write/pq_dict.h - the writer's dictionary of one column chunk:
 * distinct values in first-seen order, found by hash.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_DICT_H
#define ZB_FORMAT_PARQUET_PQ_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct pq_dict_entry {
    uint64_t hash;
    uint32_t off;        /* value bytes start in plain */
    uint32_t len;
} pq_dict_entry;

typedef struct pq_dict {
    int is_bytes;        /* BYTE_ARRAY: plain holds a length before each */
    zb_buf plain;        /* the values, PLAIN-encoded: the dictionary page */
    pq_dict_entry *entries;
    size_t n, cap;
    uint32_t *slots;     /* open addressing: entry index + 1, 0 empty */
    size_t n_slots;      /* a power of two */
} pq_dict;

void pq_dict_init(pq_dict *d, int is_bytes, size_t max_bytes);
void pq_dict_free(pq_dict *d);
void pq_dict_clear(pq_dict *d);

/* Finds v or appends it; *index is its position, *added 1 if new.
 * Returns ZB_OK or ZB_ENOMEM (the dictionary's cap included). */
int pq_dict_put(pq_dict *d, const uint8_t *v, size_t len, uint32_t *index,
                int *added);

#endif

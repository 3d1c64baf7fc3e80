/*
 * exec/keyset/keyset_int.h - the inside of a zb_keyset, shared by keyset.c (the
 * set, its spilling and partitions) and keyset_table.c (one in-memory
 * hash table).
 */
#ifndef ZB_EXEC_KEYSET_INT_H
#define ZB_EXEC_KEYSET_INT_H

#include <stdatomic.h>

#include "zamboni/budget.h"
#include "exec/keyset/keyset.h"
#include "exec/spill.h"
#include "util/err.h"

#define KS_ENTRY_HEADER 12               /* u64 value, u32 length */
#define KS_CHUNK_BYTES (256 * 1024)      /* largest chunk of key storage */
#define KS_CHUNK_MIN 4096                /* first chunk; they double */
#define KS_REFUSED 1                     /* insert: the reservation said no */

typedef struct ks_slot {
    uint64_t hash;
    uint64_t ref;        /* 0: empty; else (chunk + 1) << 32 | offset */
} ks_slot;

typedef struct ks_table {
    zb_keyset *ks;
    ks_slot *slots;
    uint64_t nslots;     /* 0 or a power of two */
    uint64_t count;      /* distinct keys */
    uint64_t key_bytes;  /* their bytes */
    uint8_t **chunks;
    size_t nchunks, chunks_cap;
    size_t last_used;    /* bytes used in chunks[nchunks - 1] */
    size_t last_size;    /* and its size */
    size_t next_chunk;   /* size of the next chunk; 0: KS_CHUNK_MIN */
    uint64_t mem;        /* bytes allocated: slots, chunks, chunk list */
} ks_table;

struct zb_keyset {
    zb_budget *budget;           /* borrowed; NULL: none */
    const atomic_int *stop;      /* borrowed; may be NULL */
    zb_reservation res;          /* without a budget: bytes counted only */
    uint64_t cap;                /* max_memory_bytes; 0: none */
    size_t max_key;
    uint64_t expected_keys, expected_bytes;
    uint64_t added;
    ks_table t;                  /* in memory, or the loaded partition */
    int spilled, sealed;
    int loaded;                  /* partition in t; -1: none */
    unsigned bits;               /* P = 2^bits partitions */
    size_t spill_buf;            /* buffer bytes of each partition file */
    zb_spill **parts;            /* P files of records */
    uint64_t *part_keys;         /* records in each */
    uint64_t *part_bytes;        /* key bytes in each */
};

/* Asks for the reservation to cover total bytes; non-zero: refused. */
typedef int (*ks_hold_fn)(zb_keyset *ks, uint64_t total);

typedef int (*ks_each_fn)(zb_keyset *ks, zb_ctx *ctx, const void *key,
                          size_t len, uint64_t hash, uint64_t value);

/* Slots for n keys at a load of at most 3/4 (a power of two, >= 16). */
uint64_t zb_keyset__slots_for(uint64_t n);

/* An upper bound of the bytes a table of n keys of key_bytes takes. */
uint64_t zb_keyset__table_need(uint64_t n, uint64_t key_bytes);

/*
 * Inserts or, for a key present, keeps the larger value. Every growth is
 * first offered to hold. Returns ZB_OK, KS_REFUSED (nothing changed) or
 * ZB_ENOMEM (nothing changed).
 */
int zb_keyset__table_insert(ks_table *t, const void *key, size_t len,
                            uint64_t hash, uint64_t value, ks_hold_fn hold);

int zb_keyset__table_find(const ks_table *t, const void *key, size_t len,
                          uint64_t hash, uint64_t *value);

/* Frees everything the table holds; it is then empty and usable. */
void zb_keyset__table_clear(ks_table *t);

/*
 * Allocates the slots for n keys of key_bytes in an empty table, and
 * sizes its chunks for them. ZB_ENOMEM.
 */
int zb_keyset__table_presize(ks_table *t, uint64_t n, uint64_t key_bytes);

/*
 * Loading without copies: stage makes room for an entry of len key bytes
 * and points *dst at where they go; commit_staged then inserts it (or
 * merges it into the same key present). The slots must have room
 * (presize). stage returns ZB_OK or ZB_ENOMEM.
 */
int zb_keyset__table_stage(ks_table *t, size_t len, void **dst);
void zb_keyset__table_commit_staged(ks_table *t, size_t len, uint64_t hash,
                                    uint64_t value);

/* Calls fn for every key; stops at and returns its first error. */
int zb_keyset__table_each(ks_table *t, zb_ctx *ctx, ks_each_fn fn);

#endif

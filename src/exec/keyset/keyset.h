/*
 * exec/keyset/keyset.h - a hash set of byte-string keys that spills to disk
 * when it does not fit the memory budget (equality deletes).
 *
 * Keys are opaque bytes (the caller serializes its key columns, nulls
 * included, into one canonical byte string) with a 64-bit hash that the
 * caller passes in, normally zb_keyset_hash() of the same bytes; the same
 * function must hash the delete keys and the probed data keys. Each key
 * carries a 64-bit value; adding a key twice keeps the larger value
 * (equality deletes: the largest data sequence number of the delete files
 * that hold the key, so a data row of sequence s is deleted when its key
 * is found with value > s).
 *
 * Lifecycle:
 *
 *     zb_keyset_new(&ks, ctx, &opts);
 *     for each delete key:  zb_keyset_add(ks, ctx, key, len, hash, seq);
 *     zb_keyset_seal(ks, ctx);
 *     for (p = 0; p < zb_keyset_partitions(ks); p++) {
 *         zb_keyset_load_partition(ks, ctx, p);
 *         for each data key with zb_keyset_partition_of(ks, hash) == p:
 *             if (zb_keyset_find(ks, key, len, hash, &seq) && seq > s) ...
 *     }
 *     zb_keyset_free(ks);
 *
 * Memory. The set reserves what it allocates (hash slots, key storage,
 * spill buffers) from ctx->budget, growing its reservation with
 * zb_budget_try_grow, which never waits; it also stops at
 * opts.max_memory_bytes when that is not 0. When a growth is refused the
 * set spills: every key so far, and every later one, goes by hash to one
 * of P partition files (zb_spill), P a power of two chosen so that each
 * partition's table fits in what the set holds. zb_keyset_seal splits the
 * partitions further (doubling P) while one is still too large, up to 256
 * (each is an open file; a reader routing its data keys to P files of its
 * own then holds 2P). After seal the partition files hold no buffers, so
 * the reservation is free for one loaded partition at a time. In memory
 * P is 1 and the one partition is always loaded; zb_keyset_load_partition
 * is then a no-op. The reservation is released by zb_keyset_free.
 *
 * partition_of(hash) takes the hash's top log2(P) bits, the table slot
 * its low bits, so data keys can be routed to partitions (or to their own
 * spill files, Grace hash join style) with the same hash.
 *
 * A loaded partition whose table still exceeds the reservation (keys
 * that share one hash cannot be split) waits for the budget with
 * zb_budget_grow; it fails with ZB_ENOMEM only if waiting would deadlock.
 *
 * Not thread-safe for add/seal/load; find on a loaded partition may run
 * in several threads at once.
 */
#ifndef ZB_EXEC_KEYSET_H
#define ZB_EXEC_KEYSET_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"

typedef struct zb_keyset zb_keyset;

#define ZB_KEYSET_OPTS_VERSION 1

typedef struct zb_keyset_opts {
    unsigned version;            /* ZB_KEYSET_OPTS_VERSION */
    uint64_t max_memory_bytes;   /* 0: only the budget limits it */
    uint64_t expected_keys;      /* hint (e.g. delete record counts); 0 */
    uint64_t expected_key_bytes; /* hint: total key bytes; 0 */
    size_t max_key_bytes;        /* longer keys are ZB_EINVAL; 0: 1 MiB */
} zb_keyset_opts;

#define ZB_KEYSET_OPTS_INIT { ZB_KEYSET_OPTS_VERSION, 0, 0, 0, 0 }

/*
 * Creates an empty set that reserves from ctx->budget (may be NULL: no
 * budget). opts may be NULL (defaults). ctx->budget must outlive the set.
 * Returns ZB_OK or ZB_ENOMEM.
 */
int zb_keyset_new(zb_keyset **out, zb_ctx *ctx, const zb_keyset_opts *opts);

/* Frees the set, its spill files and its reservation. NULL is fine. */
void zb_keyset_free(zb_keyset *ks);

/*
 * Adds key[0..len) with its hash and value (before seal). A key already
 * present keeps the larger value. Returns ZB_OK, ZB_ENOMEM (no memory, or
 * the spill-disk limit), ZB_EIO (spill file), ZB_ECANCELED (stop flag),
 * or ZB_EINVAL (key longer than opts.max_key_bytes). After an error the
 * set may only be freed.
 */
int zb_keyset_add(zb_keyset *ks, zb_ctx *ctx, const void *key, size_t len,
                  uint64_t hash, uint64_t value);

/*
 * Ends adding. Spilled: flushes and, while a partition would not fit,
 * doubles the partitions. Afterwards no partition is loaded (in memory:
 * partition 0 stays loaded). Returns ZB_OK, ZB_ENOMEM, ZB_EIO,
 * ZB_ECANCELED.
 */
int zb_keyset_seal(zb_keyset *ks, zb_ctx *ctx);

/* Number of partitions P (a power of two; 1 in memory). After seal. */
unsigned zb_keyset_partitions(const zb_keyset *ks);

/* The partition a hash belongs to, 0 <= p < P. After seal. */
unsigned zb_keyset_partition_of(const zb_keyset *ks, uint64_t hash);

/*
 * Loads partition p into memory, freeing the one loaded before. After
 * seal. Returns ZB_OK, ZB_ENOMEM, ZB_EIO, ZB_ECORRUPT (spill file damaged),
 * ZB_ECANCELED.
 */
int zb_keyset_load_partition(zb_keyset *ks, zb_ctx *ctx, unsigned p);

/*
 * Looks key up in the loaded partition (in memory: in the whole set; may
 * also be called before seal). Returns 1 and stores its value in *value
 * (value may be NULL) when present, else 0. A key of another partition is
 * simply not found.
 */
int zb_keyset_find(const zb_keyset *ks, const void *key, size_t len,
                   uint64_t hash, uint64_t *value);

/* zb_keyset_find without the value. */
int zb_keyset_contains(const zb_keyset *ks, const void *key, size_t len,
                       uint64_t hash);

/* Non-zero once the set has spilled (P may still be 1 before seal). */
int zb_keyset_spilled(const zb_keyset *ks);

/* Distinct keys in memory now (the loaded partition when spilled). */
uint64_t zb_keyset_loaded_keys(const zb_keyset *ks);

/* Keys added, duplicates included. */
uint64_t zb_keyset_added_keys(const zb_keyset *ks);

/* Bytes the set holds in its budget reservation. */
uint64_t zb_keyset_reserved_bytes(const zb_keyset *ks);

/*
 * Bytes that a set of `keys` distinct keys totalling key_bytes takes in
 * memory (an upper bound of this layout: hash slots at load <= 3/4,
 * entries of 12 bytes + key, chunk slack), for estimates before reading.
 * The set reserves up to a quarter more while it grows.
 */
uint64_t zb_keyset_estimate_bytes(uint64_t keys, uint64_t key_bytes);

/*
 * A 64-bit hash of bytes (seeded), of good quality in all bits: use it
 * for zb_keyset_add and zb_keyset_find. Stable across runs and builds
 * (little-endian reads), so hashes may be written to spill files.
 */
uint64_t zb_keyset_hash(const void *data, size_t len, uint64_t seed);

#endif

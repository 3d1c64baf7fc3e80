/*
 * exec/keyset/keyset.c - the spilling hash set of byte-string keys (see
 * keyset.h).
 *
 * In memory the set is one table (keyset_table.c): open addressing with
 * linear probing over 16-byte slots (hash, reference), keys stored as
 * entries [u64 value][u32 len][bytes] in chunks. Every byte the table
 * allocates is reserved from the budget first, with zb_budget_try_grow.
 *
 * When a reservation is refused the set spills: P partition files are
 * opened and each key goes, as a record [u64 hash][u64 value][u32 len]
 * [bytes], to the file of its hash's top bits. Seal doubles P (splitting
 * every file into two) while the table of a partition would not fit the
 * reservation; loading a partition reads its file into a table sized
 * exactly for its record count, so a load never grows the table.
 */
#define ZB_MODULE "keyset"

#include <string.h>

#include "exec/keyset/keyset_int.h"
#include "util/alloc.h"

#define DEFAULT_MAX_KEY (1u << 20)
#define MAX_BITS 8                   /* at most 256 partition files */
#define RESERVE_STEP (1u << 20)      /* grow the reservation by >= 1 MiB */
#define MIN_SPILL_BUF 512
#define RECORD_HEADER 20

/* ---- reservation ---- */

/*
 * Makes the reservation hold at least total bytes, asking in steps so the
 * budget lock is not taken for every key. Non-zero when refused (by the
 * budget or by max_memory_bytes): the caller spills.
 */
static int try_hold(zb_keyset *ks, uint64_t total)
{
    uint64_t want;

    if (total <= ks->res.bytes)
        return 0;
    if (ks->cap && total > ks->cap)
        return -1;
    want = total + total / 4;
    if (want < ks->res.bytes + RESERVE_STEP)
        want = ks->res.bytes + RESERVE_STEP;
    if (ks->cap && want > ks->cap)
        want = ks->cap;
    if (ks->budget == NULL) {
        ks->res.bytes = want;          /* counted, nothing to ask */
        return 0;
    }
    if (zb_budget_try_grow(&ks->res, ks->budget, want) == ZB_OK)
        return 0;
    if (want > total && zb_budget_try_grow(&ks->res, ks->budget, total) ==
        ZB_OK)
        return 0;
    return -1;
}

/* ---- public ---- */

int zb_keyset_new(zb_keyset **out, zb_ctx *ctx, const zb_keyset_opts *opts)
{
    static const zb_keyset_opts defaults = ZB_KEYSET_OPTS_INIT;
    zb_keyset *ks;

    ZB_ASSERT_ARG(out && ctx);
    *out = NULL;
    if (opts == NULL)
        opts = &defaults;
    ZB_ASSERT_ARG(opts->version == ZB_KEYSET_OPTS_VERSION);
    if ((ks = zb_calloc(1, sizeof *ks)) == NULL)
        return zb_fail_oom(ctx);
    ks->budget = ctx->budget;
    ks->stop = ctx->stop;
    ks->cap = opts->max_memory_bytes;
    ks->max_key = opts->max_key_bytes ? opts->max_key_bytes : DEFAULT_MAX_KEY;
    ks->expected_keys = opts->expected_keys;
    ks->expected_bytes = opts->expected_key_bytes;
    ks->loaded = 0;
    ks->t.ks = ks;
    *out = ks;
    return ZB_OK;
}

static void close_parts(zb_keyset *ks)
{
    unsigned p;

    if (ks->parts)
        for (p = 0; p < (1u << ks->bits); p++)
            zb_spill_close(ks->parts[p]);
    zb_free(ks->parts);
    zb_free(ks->part_keys);
    zb_free(ks->part_bytes);
    ks->parts = NULL;
    ks->part_keys = NULL;
    ks->part_bytes = NULL;
}

void zb_keyset_free(zb_keyset *ks)
{
    if (ks == NULL)
        return;
    zb_keyset__table_clear(&ks->t);
    close_parts(ks);
    if (ks->budget)
        zb_budget_release(&ks->res);
    zb_free(ks);
}

static int stopped(const zb_keyset *ks, zb_ctx *ctx)
{
    if (ks->stop && atomic_load((atomic_int *)ks->stop) != 0)
        return zb_fail(ctx, ZB_ECANCELED, "key set: stopped");
    return ZB_OK;
}

/*
 * Memory a table needs for n entries holding key_bytes of keys, loaded
 * with presize: the slots, the entries, the unused tail of the chunks (one
 * chunk for a small table; for large ones, the last chunk and what entries
 * leave at the end of each) and the chunk list.
 */
uint64_t zb_keyset__table_need(uint64_t n, uint64_t key_bytes)
{
    uint64_t entries = n * KS_ENTRY_HEADER + key_bytes;
    uint64_t slack = entries < KS_CHUNK_BYTES ? KS_CHUNK_MIN
                                              : KS_CHUNK_BYTES + entries / 32;

    return zb_keyset__slots_for(n) * sizeof(ks_slot) + entries + slack +
           (entries / KS_CHUNK_BYTES + 16) * sizeof(void *);
}

uint64_t zb_keyset_estimate_bytes(uint64_t keys, uint64_t key_bytes)
{
    return zb_keyset__table_need(keys, key_bytes);
}

static unsigned part_of(unsigned bits, uint64_t hash)
{
    return bits ? (unsigned)(hash >> (64 - bits)) : 0;
}

static int write_record(zb_keyset *ks, zb_ctx *ctx, const void *key,
                        size_t len, uint64_t hash, uint64_t value)
{
    unsigned p = part_of(ks->bits, hash);
    uint8_t head[RECORD_HEADER];
    uint32_t len32 = (uint32_t)len;
    int rc;

    memcpy(head, &hash, 8);
    memcpy(head + 8, &value, 8);
    memcpy(head + 16, &len32, 4);
    if ((rc = zb_spill_write(ks->parts[p], ctx, head, sizeof head)) < 0 ||
        (rc = zb_spill_write(ks->parts[p], ctx, key, len)) < 0)
        return zb_err_prefix(ctx, "key set");
    ks->part_keys[p]++;
    ks->part_bytes[p] += len;
    return ZB_OK;
}

/* Opens 2^bits empty partition files with buffers of buf bytes. */
static int open_parts(zb_keyset *ks, zb_ctx *ctx, unsigned bits, size_t buf,
                      zb_spill ***parts, uint64_t **keys, uint64_t **bytes)
{
    unsigned p, n = 1u << bits;
    int rc;

    *parts = zb_calloc(n, sizeof **parts);
    *keys = zb_calloc(n, sizeof **keys);
    *bytes = zb_calloc(n, sizeof **bytes);
    if (*parts == NULL || *keys == NULL || *bytes == NULL)
        return zb_fail_oom(ctx);
    for (p = 0; p < n; p++)
        if ((rc = zb_spill_open(&(*parts)[p], ctx, "key set", buf)) < 0)
            return rc;
    ZB_UNUSED(ks);
    return ZB_OK;
}

static void free_parts(unsigned bits, zb_spill **parts, uint64_t *keys,
                       uint64_t *bytes)
{
    unsigned p;

    if (parts)
        for (p = 0; p < (1u << bits); p++)
            zb_spill_close(parts[p]);
    zb_free(parts);
    zb_free(keys);
    zb_free(bytes);
}

/* Buffer size of each of 2^bits files being written: all of them take a
 * quarter of what the set holds, within [512 B, 64 KiB]. */
static size_t spill_buf_for(uint64_t held, unsigned bits)
{
    uint64_t buf = held / 4 >> bits;

    if (buf > ZB_SPILL_DEFAULT_BUF_BYTES)
        buf = ZB_SPILL_DEFAULT_BUF_BYTES;
    if (buf < MIN_SPILL_BUF)
        buf = MIN_SPILL_BUF;
    return (size_t)buf;
}

static unsigned ceil_log2(uint64_t x)
{
    unsigned b = 0;

    while (b < 63 && (1ULL << b) < x)
        b++;
    return b;
}

/*
 * Moves from memory to partition files: chooses P from what the set
 * holds and what it expects, writes out every key held, and frees the
 * table (the reservation stays, for loading partitions later).
 */
static int start_spill(zb_keyset *ks, zb_ctx *ctx)
{
    uint64_t held = ks->res.bytes, est, per_part;
    unsigned bits;
    size_t buf;
    int rc;

    if (held < ks->t.mem)
        held = ks->t.mem;
    if (held < 64 * 1024)
        held = 64 * 1024;
    /* Expect at least twice what came so far. */
    est = zb_keyset__table_need(ks->t.count * 2, ks->t.key_bytes * 2);
    if (ks->expected_keys &&
        zb_keyset__table_need(ks->expected_keys, ks->expected_bytes) > est)
        est = zb_keyset__table_need(ks->expected_keys, ks->expected_bytes);
    per_part = held / 4 * 3;
    bits = ceil_log2((est + per_part - 1) / per_part);
    if (bits < 1)
        bits = 1;
    if (bits > MAX_BITS)
        bits = MAX_BITS;
    buf = spill_buf_for(held, bits);
    ks->bits = bits;
    ks->spill_buf = buf;
    ks->spilled = 1;
    if ((rc = open_parts(ks, ctx, bits, buf, &ks->parts, &ks->part_keys,
                         &ks->part_bytes)) < 0)
        return rc;
    if ((rc = zb_keyset__table_each(&ks->t, ctx, write_record)) < 0)
        return rc;
    zb_keyset__table_clear(&ks->t);
    ks->loaded = -1;
    return ZB_OK;
}

int zb_keyset_add(zb_keyset *ks, zb_ctx *ctx, const void *key, size_t len,
                  uint64_t hash, uint64_t value)
{
    int rc;

    ZB_ASSERT_ARG(ks && ctx && (key || len == 0) && !ks->sealed);
    if (len > ks->max_key)
        return zb_fail(ctx, ZB_EINVAL,
                       "key set: key of %zu bytes exceeds the %zu-byte limit",
                       len, ks->max_key);
    if ((rc = stopped(ks, ctx)) < 0)
        return rc;
    ks->added++;
    if (ks->spilled)
        return write_record(ks, ctx, key, len, hash, value);
    rc = zb_keyset__table_insert(&ks->t, key, len, hash, value, try_hold);
    if (rc == KS_REFUSED) {
        if ((rc = start_spill(ks, ctx)) < 0)
            return rc;
        return write_record(ks, ctx, key, len, hash, value);
    }
    if (rc < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* The largest table one partition needs. */
static uint64_t max_need(const zb_keyset *ks)
{
    uint64_t m = 0, need;
    unsigned p;

    for (p = 0; p < (1u << ks->bits); p++) {
        need = zb_keyset__table_need(ks->part_keys[p], ks->part_bytes[p]);
        if (need > m)
            m = need;
    }
    return m;
}

/*
 * What a loaded partition may take: the reservation less the buffer it
 * is read through (the others are dropped by then).
 */
static uint64_t part_room(const zb_keyset *ks)
{
    return ks->res.bytes > ks->spill_buf ? ks->res.bytes - ks->spill_buf : 0;
}

/* Splits every partition file into two by the next bit of the hash. */
static int split(zb_keyset *ks, zb_ctx *ctx)
{
    unsigned bits = ks->bits + 1, p, n = 1u << ks->bits;
    size_t buf = spill_buf_for(ks->res.bytes, bits);
    zb_spill **parts = NULL;
    uint64_t *keys = NULL, *bytes = NULL, i;
    uint8_t head[RECORD_HEADER], *key = NULL;
    int rc;

    if ((rc = open_parts(ks, ctx, bits, buf, &parts, &keys, &bytes)) < 0)
        goto done;
    if ((key = zb_malloc(ks->max_key ? ks->max_key : 1)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (p = 0; p < n; p++) {
        zb_spill *from = ks->parts[p];
        if ((rc = zb_spill_rewind(from, ctx)) < 0)
            goto done;
        for (i = 0; i < ks->part_keys[p]; i++) {
            uint64_t hash;
            uint32_t len;
            unsigned q;
            if ((i & 0xFFFF) == 0 && (rc = stopped(ks, ctx)) < 0)
                goto done;
            if ((rc = zb_spill_read_full(from, ctx, head, sizeof head)) < 0)
                goto done;
            memcpy(&hash, head, 8);
            memcpy(&len, head + 16, 4);
            if (len > ks->max_key || part_of(ks->bits, hash) != p) {
                rc = zb_fail(ctx, ZB_ECORRUPT,
                             "key set: spill file of partition %u damaged", p);
                goto done;
            }
            if ((rc = zb_spill_read_full(from, ctx, key, len)) < 0)
                goto done;
            q = part_of(bits, hash);
            if ((rc = zb_spill_write(parts[q], ctx, head, sizeof head)) < 0 ||
                (rc = zb_spill_write(parts[q], ctx, key, len)) < 0)
                goto done;
            keys[q]++;
            bytes[q] += len;
        }
        /* Give the disk back as soon as a file is split. */
        zb_spill_close(from);
        ks->parts[p] = NULL;
    }
    free_parts(ks->bits, ks->parts, ks->part_keys, ks->part_bytes);
    ks->parts = parts;
    ks->part_keys = keys;
    ks->part_bytes = bytes;
    ks->bits = bits;
    ks->spill_buf = buf;
    parts = NULL;
    keys = bytes = NULL;
    rc = ZB_OK;
done:
    if (rc < 0 && rc != ZB_ENOMEM && rc != ZB_ECANCELED)
        zb_err_prefix(ctx, "key set");
    free_parts(bits, parts, keys, bytes);
    zb_free(key);
    return rc;
}

int zb_keyset_seal(zb_keyset *ks, zb_ctx *ctx)
{
    uint64_t need, before = UINT64_MAX;
    unsigned p;
    int rc;

    ZB_ASSERT_ARG(ks && ctx && !ks->sealed);
    ks->sealed = 1;
    if (!ks->spilled)
        return ZB_OK;
    for (p = 0; p < (1u << ks->bits); p++)
        if ((rc = zb_spill_flush(ks->parts[p], ctx)) < 0)
            return zb_err_prefix(ctx, "key set");
    /* Split while a partition is too big and splitting still helps. */
    while ((need = max_need(ks)) > part_room(ks) && ks->bits < MAX_BITS &&
           need < before) {
        before = need;
        if ((rc = split(ks, ctx)) < 0)
            return rc;
    }
    /* Files wait to be read, one at a time: no buffers meanwhile. */
    for (p = 0; p < (1u << ks->bits); p++)
        if ((rc = zb_spill_drop_buffer(ks->parts[p], ctx)) < 0)
            return zb_err_prefix(ctx, "key set");
    return ZB_OK;
}

unsigned zb_keyset_partitions(const zb_keyset *ks)
{
    return 1u << ks->bits;
}

unsigned zb_keyset_partition_of(const zb_keyset *ks, uint64_t hash)
{
    return part_of(ks->bits, hash);
}

int zb_keyset_load_partition(zb_keyset *ks, zb_ctx *ctx, unsigned p)
{
    uint64_t need, i;
    zb_spill *f;
    int rc;

    ZB_ASSERT_ARG(ks && ctx && ks->sealed && p < (1u << ks->bits));
    if (!ks->spilled || ks->loaded == (int)p)
        return ZB_OK;
    zb_keyset__table_clear(&ks->t);
    ks->loaded = -1;
    need = zb_keyset__table_need(ks->part_keys[p], ks->part_bytes[p]) +
           ks->spill_buf;
    if (need > ks->res.bytes && ks->budget) {
        /* Keys that share one hash cannot be split: wait for room. */
        if (zb_budget_try_grow(&ks->res, ks->budget, need) != ZB_OK &&
            (rc = zb_budget_grow(&ks->res, need, ks->stop)) < 0)
            return zb_fail(ctx, rc,
                           "key set: partition %u needs %llu bytes, more "
                           "than the budget can give", p,
                           (unsigned long long)need);
    } else if (need > ks->res.bytes) {
        ks->res.bytes = need;
    }
    if ((rc = zb_keyset__table_presize(&ks->t, ks->part_keys[p],
                                       ks->part_bytes[p])) < 0)
        return zb_fail_oom(ctx);
    f = ks->parts[p];
    if ((rc = zb_spill_rewind(f, ctx)) < 0)
        return zb_err_prefix(ctx, "key set");
    for (i = 0; i < ks->part_keys[p]; i++) {
        uint8_t head[RECORD_HEADER];
        uint64_t hash, value;
        uint32_t len;
        void *dst;

        if ((i & 0xFFFF) == 0 && (rc = stopped(ks, ctx)) < 0)
            goto fail;
        if ((rc = zb_spill_read_full(f, ctx, head, sizeof head)) < 0)
            goto fail;
        memcpy(&hash, head, 8);
        memcpy(&value, head + 8, 8);
        memcpy(&len, head + 16, 4);
        if (len > ks->max_key || part_of(ks->bits, hash) != p) {
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "key set: spill file of partition %u damaged", p);
            goto fail;
        }
        if ((rc = zb_keyset__table_stage(&ks->t, len, &dst)) < 0) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        if ((rc = zb_spill_read_full(f, ctx, dst, len)) < 0)
            goto fail;
        zb_keyset__table_commit_staged(&ks->t, len, hash, value);
    }
    if ((rc = zb_spill_drop_buffer(f, ctx)) < 0)
        goto fail;
    ks->loaded = (int)p;
    return ZB_OK;
fail:
    if (rc == ZB_EIO || rc == ZB_ECORRUPT)
        zb_err_prefix(ctx, "key set");
    zb_keyset__table_clear(&ks->t);
    return rc;
}

int zb_keyset_find(const zb_keyset *ks, const void *key, size_t len,
                   uint64_t hash, uint64_t *value)
{
    if (ks->loaded < 0)
        return 0;
    if (ks->spilled && part_of(ks->bits, hash) != (unsigned)ks->loaded)
        return 0;
    return zb_keyset__table_find(&ks->t, key, len, hash, value);
}

int zb_keyset_contains(const zb_keyset *ks, const void *key, size_t len,
                       uint64_t hash)
{
    return zb_keyset_find(ks, key, len, hash, NULL);
}

int zb_keyset_spilled(const zb_keyset *ks)
{
    return ks->spilled;
}

uint64_t zb_keyset_loaded_keys(const zb_keyset *ks)
{
    return ks->loaded < 0 ? 0 : ks->t.count;
}

uint64_t zb_keyset_added_keys(const zb_keyset *ks)
{
    return ks->added;
}

uint64_t zb_keyset_reserved_bytes(const zb_keyset *ks)
{
    return ks->budget ? ks->res.bytes : 0;
}

/*
 * exec/sort/xsort_int.h - private parts of the external sort shared by
 * xsort.c (input, runs, API) and xsort_merge.c (run files, merging).
 */
#ifndef ZB_EXEC_XSORT_INT_H
#define ZB_EXEC_XSORT_INT_H

#include <string.h>

#include "exec/sort/xsort.h"
#include "exec/arrow/arrow_spill.h"
#include "exec/spill.h"
#include "zamboni/budget.h"

/* A block: one serialized batch of a run, at off in its run file. */
typedef struct xs_block {
    uint64_t off;
    uint64_t bytes;              /* in the file (packed or not) */
    uint64_t raw;                /* uncompressed: its memory once read */
    uint32_t rows;
} xs_block;

/* A run: blocks [first, first + n) of its file, in key order. */
typedef struct xs_run {
    size_t first, n;
} xs_run;

/* A spill file of runs written one after the other. */
typedef struct xs_runfile {
    zb_spill *sp;
    xs_block *blocks;
    size_t nblocks, cap_blocks;
    xs_run *runs;
    size_t nruns, cap_runs;
    uint64_t max_frame;          /* largest block in the file, bytes */
    uint64_t max_raw;            /* largest block uncompressed */
    uint64_t max_packed;         /* largest packed block uncompressed
                                    (a reader's LZ4 buffer), 0: none */
    zb_arrow_pack *pk;           /* the writer's compressor, counted */
    uint32_t max_rows;           /* largest block, rows */
    uint8_t *cp;                 /* bytes every key of every run starts */
    size_t cp_len;               /* with (merges compare past them) */
    int cp_set;                  /* cp known: a run was ended */
} xs_runfile;

typedef struct xs_merger xs_merger;
typedef struct zb_xsort_ahead zb_xsort_ahead;

typedef struct xs_held {
    struct ArrowArray a;
    zb_keybuf kb;
    uint64_t bytes;              /* batch + keys, as counted */
} xs_held;

typedef struct xs_ent {
    uint64_t prefix;             /* 8 key bytes past the common
                                    prefix, big-endian, 0-padded */
    uint32_t src;                /* held batch */
    uint32_t row;                /* its row; the key is in its kb */
} xs_ent;

struct zb_xsort {
    const struct ArrowSchema *schema;
    zb_sortkey *key;
    zb_xsort_opts opts;
    zb_budget *budget;           /* NULL: only opts.max_memory_bytes */
    zb_reservation own;          /* without opts.reservation */
    zb_reservation *rp;          /* own or opts.reservation */
    uint64_t keep;               /* bytes of *rp that are not the sort's */
    uint64_t used;               /* bytes counted as held */
    uint64_t block_target;       /* bytes per spilled block */
    double avg_row_bytes;        /* of the input, for block sizing */
    double avg_key_bytes;
    zb_xsort_stats st;
    int finished, failed, in_memory;

    /* input phase: batches held, their keys, the sort index */
    struct xs_held *held;
    size_t nheld, cap_held;
    struct xs_ent *ents, *tmp;
    size_t nents, cap_ents;
    uint64_t held_bytes;         /* batches + keys */
    size_t mem_pos;              /* in-memory output: next entry */
    int mem_run;                 /* the final merge reads held rows */
    zb_arrow_rowref *refs;       /* in-memory output / run writing */
    size_t cap_refs;
    size_t held_lcp;             /* after a sort of the index: the prefix */
    const uint8_t *held_key;     /* every key held shares, and one key */

    xs_runfile rf;               /* spilled runs */
    xs_merger *final;            /* the last merge, feeding next() */
    zb_xsort_ahead *ahead;       /* opts.threads > 1: final on a thread */
};

/* 8 bytes as a big-endian integer. */
static inline uint64_t zb_xsort__be64(const uint8_t *k)
{
    uint64_t p;

    memcpy(&p, k, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    p = __builtin_bswap64(p);
#endif
    return p;
}

/* Key bytes base..base+7 as a big-endian integer, 0-padded. */
static inline uint64_t zb_xsort__prefix(const uint8_t *k, size_t len,
                                        size_t base)
{
    uint64_t p = 0;
    size_t j;

    if (len >= base + 8)
        return zb_xsort__be64(k + base);
    for (j = base; j < base + 8; j++)
        p = p << 8 | (j < len ? k[j] : 0);
    return p;
}

/* Bytes a[0..n) and b[0..n) have in common at their start. */
size_t zb_xsort__common(const uint8_t *a, const uint8_t *b, size_t n);

/*
 * Makes the reservation hold need bytes. must == 0: only if that fits at
 * once (under opts.max_memory_bytes and the budget): returns 1 when
 * refused. must != 0: waits for the budget if it has to. Returns ZB_OK,
 * 1, ZB_ENOMEM or ZB_ECANCELED.
 */
int zb_xsort__ensure(zb_xsort *xs, zb_ctx *ctx, uint64_t need, int must);

/* Bytes of the reservation that are the sort's. */
uint64_t zb_xsort__held(const zb_xsort *xs);

/* Adds delta (may be negative) to the bytes in use, tracking the peak. */
void zb_xsort__account(zb_xsort *xs, int64_t delta);

/* Rows per block for the rows seen so far. */
size_t zb_xsort__block_rows(const zb_xsort *xs);

/* Makes xs->refs hold n row references (counted). ZB_OK, ZB_ENOMEM. */
int zb_xsort__grow_refs(zb_xsort *xs, zb_ctx *ctx, size_t n);

/* Gathers entries [lo, lo + n) of the sorted index into *out. */
int zb_xsort__gather(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx,
                     size_t lo, size_t n);

/* Writes the sorted rows held as a run of xs->rf and frees them. */
int zb_xsort__write_run(zb_xsort *xs, zb_ctx *ctx);

/*
 * zb_xsort__write_run with the blocks gathered on a second thread
 * (xsort_pipe.c); first is the run's first block. Returns ZB_OK, a
 * negative rc, or 1 when no thread could be started (nothing done).
 */
int zb_xsort__write_run_piped(zb_xsort *xs, zb_ctx *ctx, size_t first);

/*
 * The final merge on a thread of its own, batches ahead of next()
 * (xsort_pipe.c). start: ZB_OK with *out NULL when no thread could be
 * had (next() then merges itself), or ZB_ENOMEM. next: as
 * zb_xsort__final_next. stop: joins the thread, frees what it queued;
 * NULL ok.
 */
int zb_xsort__ahead_start(zb_xsort_ahead **out, zb_xsort *xs, zb_ctx *ctx);
int zb_xsort__ahead_next(struct ArrowArray *out, zb_xsort_ahead *a,
                         zb_ctx *ctx);
void zb_xsort__ahead_stop(zb_xsort_ahead *a);

/* The sort's stats, read when the merge thread is not changing them. */
void zb_xsort__ahead_stats(zb_xsort_stats *out, zb_xsort_ahead *a);

/* Ends the run written from block first, frees the rows held. */
int zb_xsort__finish_run(zb_xsort *xs, zb_ctx *ctx, size_t first);

/* Frees the batches held and their keys; empties the index. */
void zb_xsort__drop_held(zb_xsort *xs);

/* Frees the index and its scratch array. */
void zb_xsort__free_index(zb_xsort *xs);

/* Appends a block (the batch arr) to the run being written to rf. */
int zb_xsort__write_block(zb_xsort *xs, zb_ctx *ctx, xs_runfile *rf,
                          const struct ArrowArray *arr);

/* Ends the run whose blocks start at block first. */
int zb_xsort__end_run(zb_xsort *xs, zb_ctx *ctx, xs_runfile *rf,
                      size_t first);

void zb_xsort__runfile_free(zb_xsort *xs, xs_runfile *rf);

/*
 * Narrows rf's common prefix to what it shares with the first lcp bytes
 * of key (the prefix every key of a run just ended starts with); key
 * NULL: nothing. ZB_OK or ZB_ENOMEM.
 */
int zb_xsort__fold_prefix(zb_ctx *ctx, xs_runfile *rf, const uint8_t *key,
                          size_t lcp);

/*
 * Merges xs->rf's runs and the sorted rows still held (xs->nents > 0):
 * those join the final merge as its last run, read from memory, when
 * the memory allows one merge of everything; else they are spilled too.
 * Passes over groups of runs until one merge can take them all, then
 * leaves xs->final ready for zb_xsort__final_next.
 */
int zb_xsort__merge(zb_xsort *xs, zb_ctx *ctx);

/* The final merge's next batch (released at the end). */
int zb_xsort__final_next(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx);

void zb_xsort__merger_free(zb_xsort *xs, xs_merger *m);

#endif

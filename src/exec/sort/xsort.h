/*
 * exec/sort/xsort.h - external merge sort of Arrow struct batches by
 * normalized sort keys or z-order keys (exec/sort/sortkey.h), within the
 * memory budget, spilling sorted runs to TMPDIR (exec/spill.h).
 *
 *     zb_xsort_new(&xs, ctx, schema, &opts);
 *     for each input batch:   zb_xsort_add(xs, ctx, &batch);   (moved in)
 *     zb_xsort_finish(xs, ctx);
 *     for (;;) {
 *         zb_xsort_next(&out, xs, ctx);
 *         if (out.release == NULL) break;          (end)
 *         ... use out ...; zb_arrow_array_release(&out);
 *     }
 *     zb_xsort_stats_get(&st, xs);
 *     zb_xsort_free(xs);
 *
 * The order is stable: rows with equal keys come out in input order.
 *
 * Memory. The sort reserves what it holds (input batches, their keys, the
 * sort index; during merges, one block per run being merged and the
 * output batch) from ctx->budget, growing its reservation with
 * zb_budget_try_grow, which never waits; it also stops at
 * opts.max_memory_bytes when that is not 0. When a growth is refused the
 * rows held so far are sorted and written to a spill file as a run of
 * blocks, and the memory is used again. If one batch alone does not fit,
 * the sort waits for it with zb_budget_grow (ZB_ENOMEM only if waiting
 * would deadlock). A task that already holds a reservation (a compaction
 * group) passes it as opts.reservation instead, so that it never waits
 * for a second one while holding the first: the sort then grows that
 * reservation (never releasing it), treating its first
 * opts.reservation_keep_bytes as the caller's own. The merge reads each
 * run a block at a time; when more runs exist than blocks fit in memory,
 * runs are merged in groups into longer runs first (several passes). If
 * everything fits, nothing is spilled and the output comes from memory.
 * The sort's own reservation is released by zb_xsort_free.
 *
 * The stop flag of ctx makes any call return ZB_ECANCELED. Spill files
 * count against the process-wide spill-disk limit (ZB_ENOMEM when it is
 * reached). Not thread-safe: one thread at a time. With opts.threads > 1
 * the sort starts threads of its own (xsort_pipe.c): one that gathers a
 * run's blocks while the caller's thread writes them, and one that runs
 * the final merge a few batches ahead of zb_xsort_next; the output is the
 * same as with one thread.
 */
#ifndef ZB_EXEC_XSORT_H
#define ZB_EXEC_XSORT_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"
#include "exec/arrow/arrow.h"
#include "exec/sort/sortkey.h"
#include "zamboni/budget.h"

typedef struct zb_xsort zb_xsort;

#define ZB_XSORT_OPTS_VERSION 1

typedef struct zb_xsort_opts {
    unsigned version;            /* ZB_XSORT_OPTS_VERSION */
    zb_sortkey_spec key;         /* columns, copied at zb_xsort_new */
    uint64_t max_memory_bytes;   /* 0: only the budget limits it */
    size_t out_batch_rows;       /* rows per output batch at most; 0:
                                    65536 (fewer when an eighth of the
                                    memory cannot hold that many) */
    unsigned max_fan_in;         /* runs merged at once; 0: as memory
                                    allows (at least 2) */
    zb_reservation *reservation; /* borrowed; NULL: the sort reserves
                                    its own from ctx->budget */
    uint64_t reservation_keep_bytes; /* of *reservation, not the sort's */
    unsigned threads;            /* > 1: a run's blocks are gathered on a
                                    second thread while the caller's
                                    writes them, and the final merge
                                    runs ahead of next() on a thread of
                                    its own (the same output); 0 or 1:
                                    none */
} zb_xsort_opts;

#define ZB_XSORT_OPTS_INIT \
    { ZB_XSORT_OPTS_VERSION, { ZB_SORTKEY_LEXICAL, NULL, 0, 0 }, 0, 0, 0, \
      NULL, 0, 1 }

typedef struct zb_xsort_stats {
    uint64_t rows;               /* rows added */
    uint64_t runs;               /* sorted runs spilled by the first phase */
    uint64_t bytes_spilled;      /* bytes written to spill files, all
                                    passes */
    uint64_t bytes_packed;       /* of the blocks LZ4-compressed (the
                                    disk was short), their raw bytes */
    uint64_t merge_passes;       /* merges over spilled runs, final one
                                    included; 0 when nothing spilled */
    uint64_t rows_unspilled;     /* rows of the last run, merged from
                                    memory instead of spilled */
    uint64_t peak_reserved_bytes; /* largest reservation held */
    uint64_t peak_used_bytes;    /* largest memory counted as in use */
} zb_xsort_stats;

/*
 * Creates a sort of batches of schema (a struct, "+s"; borrowed, must
 * outlive the sort). Returns ZB_OK, ZB_EINVAL (a bad key spec; message
 * names the column) or ZB_ENOMEM.
 */
int zb_xsort_new(zb_xsort **out, zb_ctx *ctx,
                 const struct ArrowSchema *schema, const zb_xsort_opts *opts);

/*
 * Adds a batch of the schema; the sort takes it over (*batch is left
 * released), also on failure. Returns ZB_OK, ZB_EINVAL/ZB_EUNSUPPORTED
 * (the batch does not match the schema), ZB_ENOMEM, ZB_EIO or
 * ZB_ECANCELED.
 */
int zb_xsort_add(zb_xsort *xs, zb_ctx *ctx, struct ArrowArray *batch);

/*
 * Ends the input: sorts what is held and, if runs were spilled, merges
 * them down to what can be merged at once. Returns ZB_OK, ZB_ENOMEM,
 * ZB_EIO, ZB_ECORRUPT or ZB_ECANCELED.
 */
int zb_xsort_finish(zb_xsort *xs, zb_ctx *ctx);

/*
 * The next sorted batch (at most opts.out_batch_rows rows), owned by the
 * caller. At the end *out is released (out->release == NULL) and ZB_OK is
 * returned. Returns ZB_OK, ZB_ENOMEM, ZB_EIO, ZB_ECORRUPT or
 * ZB_ECANCELED.
 */
int zb_xsort_next(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx);

void zb_xsort_stats_get(zb_xsort_stats *out, const zb_xsort *xs);

/* Frees the sort, its spill files and its reservation. NULL is fine. */
void zb_xsort_free(zb_xsort *xs);

#endif

/*
 * plan/group/file_group.h - file grouping, the step between scan planning
 * and a rewrite: scan tasks binned by (spec id, partition tuple), each
 * bin's files taken largest first and cut into runs of at most max_bytes
 * (a file larger than that is a run alone), so that neither the memory
 * nor the work of one run scales with the partition.
 *
 * Which tasks are candidates, and what becomes of a run (a group that is
 * rewritten, or a skip with its reason), is the caller's policy:
 * compaction's is in ops/compact/compact_plan.c. Memory: the added tasks
 * are deep-copied into the caller's arena; the bins hold pointers to them.
 */
#ifndef ZB_PLAN_FILE_GROUP_H
#define ZB_PLAN_FILE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "plan/scan/scan_plan.h"
#include "util/arena.h"

typedef struct zb_file_bins zb_file_bins;

/* A task in a bin, with the caller's mark (compaction: "deletes made it a
 * candidate"). */
typedef struct zb_file_cand {
    zb_scan_task task;             /* a copy, in the arena */
    int mark;
} zb_file_cand;

/* One cut of one bin: cands[0..n) largest first (ties by path). */
typedef struct zb_file_run {
    int32_t spec_id;
    const char *partition;         /* "(v1,v2)", "()" when unpartitioned;
                                      in the arena */
    const zb_file_cand *cands;
    size_t n;
    uint64_t bytes;                /* the runs' file_size_in_bytes */
} zb_file_run;

/* Empty bins whose copies go to arena (borrowed, outlives the bins). */
int zb_file_bins_new(zb_file_bins **out, zb_ctx *ctx, zb_arena *arena);
void zb_file_bins_free(zb_file_bins *b);

/* Adds a copy of t to the bin of its spec id and partition tuple. */
int zb_file_bins_add(zb_file_bins *b, zb_ctx *ctx, const zb_scan_task *t,
                     int mark);

/* Number of tasks added. */
size_t zb_file_bins_count(const zb_file_bins *b);

/*
 * Cuts every bin, in the order the bins were first seen, into runs of at
 * most max_bytes and calls fn on each, in order; a negative return from
 * fn stops the cut and is returned.
 */
typedef int (*zb_file_run_fn)(const zb_file_run *run, zb_ctx *ctx,
                              void *payload);
int zb_file_bins_cut(zb_file_bins *b, zb_ctx *ctx, uint64_t max_bytes,
                     zb_file_run_fn fn, void *payload);

#endif

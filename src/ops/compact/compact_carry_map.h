/*
 * ops/compact/compact_carry_map.h - the position map of a rewrite (issue
 * 21): for each input file of a group, where each row that survived the
 * rewrite went (output file, position), so that position deletes and
 * deletion vectors committed against the inputs while compaction ran can
 * be carried onto the outputs (ops/compact/compact_carry.h).
 *
 * Binpack writes the surviving rows of each input in their order, the
 * inputs one after another, the outputs cut from that one sequence. So
 * the map is the sequence of runs (input task, first position, length)
 * in output order: run k's rows are the output rows right after run
 * k-1's, the outputs' record counts cutting them into files. A run ends
 * only where a row was deleted while rewriting (or the input changes),
 * so a group has at most (files + rows deleted while rewriting) runs.
 *
 * Memory: 24 bytes a run, capped by max_runs (zb_carry_map_init); past
 * the cap the map is lost (the group then drops concurrent deletes as
 * before: the commit names why). Sort and z-order (a permutation, one
 * run a row) keep theirs on disk instead (compact_carry_sorted.h).
 *
 *     zb_carry_map m;
 *     zb_carry_map_init(&m, 0);
 *     zb_carry_map_add_sel(&m, task, pos0, sel, nsel);   per batch
 *     ...
 *     zb_carry_index_new(&ix, ctx, m.runs.items, m.runs.len, counts, n);
 *     if (zb_carry_index_find(ix, task, pos, &file, &out_pos)) ...
 */
#ifndef ZB_OPS_COMPACT_CARRY_MAP_H
#define ZB_OPS_COMPACT_CARRY_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/vec.h"
#include "zamboni/zamboni.h"

/* Default cap: 4 Mi runs (96 MiB). */
#define ZB_CARRY_MAX_RUNS_DEFAULT ((uint64_t)4 << 20)

typedef struct zb_carry_run {
    uint64_t in_pos;               /* first position in the input file */
    uint64_t len;                  /* rows */
    uint32_t task;                 /* index into the group's tasks */
} zb_carry_run;

typedef struct zb_carry_map {
    zb_vec runs;                   /* zb_carry_run, in output order */
    uint64_t rows;                 /* rows the runs cover */
    uint64_t max_runs;
    const char *lost;              /* why there is no map; NULL: kept */
} zb_carry_map;

/* max_runs 0: ZB_CARRY_MAX_RUNS_DEFAULT. */
void zb_carry_map_init(zb_carry_map *m, uint64_t max_runs);
void zb_carry_map_free(zb_carry_map *m);

/* Gives up the map (why: a static string); later adds do nothing. */
void zb_carry_map_lose(zb_carry_map *m, const char *why);

/* Rows pos..pos+len of input task, written next; merged into the last
 * run when they continue it. ZB_OK (also when lost or over the cap,
 * which loses the map) or ZB_ENOMEM. */
int zb_carry_map_add(zb_carry_map *m, uint32_t task, uint64_t pos,
                     uint64_t len);

/* A batch of a row stream: rows pos0 + sel[i] for i < nsel (sel NULL:
 * pos0..pos0+nsel), sel increasing. */
int zb_carry_map_add_sel(zb_carry_map *m, uint32_t task, uint64_t pos0,
                         const uint32_t *sel, size_t nsel);

/* The lookup form of runs[0..n) against outputs of out_rows[0..n_out)
 * rows each (their record counts, in order). ZB_EINVAL (message in ctx)
 * when the runs do not cover exactly the outputs' rows. */
typedef struct zb_carry_index zb_carry_index;
int zb_carry_index_new(zb_carry_index **out, zb_ctx *ctx,
                       const zb_carry_run *runs, size_t n,
                       const int64_t *out_rows, size_t n_out);
/* 1 and where row pos of input task went; 0 when it did not survive
 * the rewrite (deleted while rewriting, or not of the group). */
int zb_carry_index_find(const zb_carry_index *ix, uint32_t task,
                        uint64_t pos, size_t *file, uint64_t *out_pos);
void zb_carry_index_free(zb_carry_index *ix);

#endif

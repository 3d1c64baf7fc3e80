/*
 * ops/compact/compact_int.h - private to compact*.c: what the plan, rewrite,
 * commit and run parts share.
 */
#ifndef ZB_OPS_COMPACT_INT_H
#define ZB_OPS_COMPACT_INT_H

#include <stdatomic.h>

#include "catalog/catalog.h"
#include "exec/sort/xsort.h"
#include "plan/read/scan_read.h"
#include "ops/compact/compact.h"
#include "zamboni/budget.h"

/* The snapshot branch (NULL: main) points at; NULL when it has none. */
int zb_compact__head(const ice_snapshot **out, zb_ctx *ctx,
                     const ice_metadata *m, const char *branch);

/* The estimate of a group: the row stream's plus the writer's. */
uint64_t zb_compact__group_memory(const zb_compact_group *g,
                                  int64_t target, size_t batch_rows,
                                  uint64_t eq_memory_bytes);

/* o's equality key-set cap (0: 64 MiB). */
uint64_t zb_compact__eq_memory(const zb_compact_opts *o);

/* Rows per batch for a group (opts, else from the target and widths). */
size_t zb_compact__batch_rows(const zb_compact_opts *o, int64_t target,
                              const zb_compact_group *g);

/*
 * One work unit of a group (compact_slice.c): the inputs tasks[first,
 * first + n) of g, with a reservation, a row stream and a writer of its
 * own. A group is one slice, or (binpack) several cut from the plan by
 * zb_compact__slices.
 */
typedef struct zb_compact_slice {
    zb_compact_group *g;
    size_t first, n;               /* of g->tasks */
    uint64_t bytes;                /* file_size_in_bytes of its inputs */
    uint64_t est_memory_bytes;     /* what the unit reserves */
    unsigned writer_threads;       /* pq_writer_opts.threads */
    int of_several;                /* the group has other slices */
    /* A retry's smaller memory (0: the group's): rows of the input
     * batches and the sort's bytes; output batches stay the group's. */
    size_t in_batch_rows;
    uint64_t sort_memory_bytes;
    /* After the rewrite: */
    uint64_t rows_read, rows_deleted, rows_written, copied_files;
    unsigned read_workers;         /* compact_rewrite.c read_workers */
    uint64_t sort_runs, sort_spilled_bytes, eq_spilled;
    ice_data_file *outputs;        /* n_outputs, in the unit's arena */
    size_t n_outputs;
    /* Issue 21, carried deletes: the slice's position map
     * (ops/compact/compact_carry_map.h; runs in the unit's arena, task
     * indexes into g->tasks), or why it has none. */
    struct zb_carry_run *carry_runs;
    size_t n_carry_runs;
    const char *carry_lost;
    /* Sort and z-order: the spilled map (compact_carry_sorted.h), owned
     * here until the group takes it (zb_compact__finish_group). */
    struct zb_carry_sorted *carry_sorted;
} zb_compact_slice;

/* The average input size below which a group is not cut. */
#define ZB_COMPACT_SLICE_MIN_INPUT_BYTES ((uint64_t)64 << 10)

/*
 * Cuts g into slices (out: room for g->n_tasks, or NULL to count them);
 * returns their number (at least 1). The rule is compact.h's "Slices".
 */
size_t zb_compact__slices(zb_compact_slice *out, zb_compact_group *g,
                          const zb_compact_opts *o, int64_t target);

/*
 * Rewrites slice sl of table: writes its output files (into sl->outputs,
 * in arena, which must be thread-safe: one arena per unit). ctx is the
 * unit's own (its budget unused: the caller reserved; res, its
 * reservation or an empty one, is lent to the sort). On failure every
 * file it wrote is deleted. Counts are checked by
 * zb_compact__finish_group.
 */
/*
 * Read-ahead (compact_readahead.c): the tasks' files decoded by n_workers
 * threads ahead of the caller, the batches handed over in the tasks'
 * order, the same batches one row stream over them gives. fits: whether
 * the tasks can take it (more than one, none with delete files).
 */
typedef struct zb_readahead zb_readahead;

int zb_compact__readahead_fits(const zb_scan_task *tasks, size_t n);
int zb_compact__readahead_open(zb_readahead **out, zb_io *io, zb_ctx *ctx,
                               const zb_rowstream_opts *ro,
                               const zb_scan_task *tasks, size_t n,
                               unsigned n_workers);
/* 1 and a batch (the caller releases it), 0 at the end, or an rc. */
int zb_compact__readahead_next(zb_readahead *ra, zb_ctx *ctx,
                               struct ArrowArray *out);
void zb_compact__readahead_counts(const zb_readahead *ra,
                                  zb_read_counts *sum);
void zb_compact__readahead_free(zb_readahead *ra);

int zb_compact__rewrite(zb_compact_slice *sl, zb_arena *arena, zb_io *io,
                        zb_ctx *ctx, const zb_table *table,
                        const zb_compact_opts *o, int64_t target,
                        zb_reservation *res);

/*
 * Gathers g's slices[0..n) (each rewritten, ok: all of them succeeded)
 * into g: counts, outputs (in arena) in slice order; then verifies the
 * row counts (row_skew: the test hook's, 0 in a real run): rows read =
 * the manifests' record counts, rows written = rows read - rows deleted,
 * else ZB_EUNSAFE. g becomes WRITTEN, or FAILED with every slice's files
 * deleted (also when !ok). Returns ZB_OK or the failure.
 */
int zb_compact__finish_group(zb_compact_group *g, zb_compact_slice *slices,
                             size_t n, int ok, zb_arena *arena, zb_io *io,
                             zb_ctx *ctx, const zb_table *table,
                             int64_t row_skew);

/* Deletes the files of slices[0..n), best effort, keeping ctx->err. */
void zb_compact__drop_slices(zb_compact_slice *slices, size_t n,
                             zb_io *io, zb_ctx *ctx);

/*
 * The sort part of g's estimate (0 for binpack); g NULL: the cap. With
 * the default sort memory and max_bytes (a group's allowed memory, 0:
 * none) it is cut so that the group's estimate fits max_bytes, down to
 * ZB_COMPACT_SORT_MIN_BYTES.
 */
#define ZB_COMPACT_SORT_MIN_BYTES ((uint64_t)16 << 20)
uint64_t zb_compact__sort_memory(const zb_compact_opts *o,
                                 const zb_compact_group *g, int64_t target,
                                 uint64_t max_bytes);

/* The memory a group's default sort gives way to (zb_compact__sort_memory):
 * max_group_memory_bytes, else budget's limit (budget may be NULL); 0: no
 * limit. */
uint64_t zb_compact__max_group_memory(const zb_compact_opts *o,
                                      zb_budget *budget);

/* Deletes g's output files, best effort, keeping ctx->err. */
void zb_compact__drop_outputs(zb_compact_group *g, zb_io *io, zb_ctx *ctx);

/*
 * Commits groups[0..n) (those in state WRITTEN) as one replace snapshot:
 * validates each attempt against the snapshots committed since the plan
 * (start snapshot id, sequence number); groups found in conflict become
 * DROPPED (their files deleted), the others COMMITTED. *snapshot_id gets
 * the snapshot committed. ZB_OK (also when every group was dropped: then
 * *snapshot_id is -1), ZB_ETIMEOUT (unknown: nothing deleted, groups stay
 * WRITTEN), or another failure (groups FAILED, files deleted).
 */
int zb_compact__commit(zb_compact_group **groups, size_t n,
                       const zb_op_target *t, zb_ctx *ctx,
                       const zb_compact_plan *plan, const zb_compact_opts *o,
                       int64_t *snapshot_id);

/*
 * The sort columns of o against m: o's, or (SORT without columns) the
 * table's default sort order, whose id goes to *order_id (else -1).
 * *out (zb_free) is NULL for binpack. ZB_EINVAL (no columns, bad
 * z-order column count), ZB_EUNSUPPORTED (a non-identity sort field).
 */
int zb_compact__sort_fields(zb_compact_sort_field **out, size_t *n,
                            int32_t *order_id, zb_ctx *ctx,
                            const ice_metadata *m, const zb_compact_opts *o);

/* A group's external sort over schema by fields, in res (may be empty). */
int zb_compact__xsort_new(zb_xsort **out, zb_ctx *ctx,
                          const struct ArrowSchema *schema,
                          const zb_compact_opts *o,
                          const zb_compact_sort_field *fields, size_t n,
                          uint64_t sort_bytes, size_t out_batch_rows,
                          zb_reservation *res, const char *table);

/* Partition values of rows under another spec (compact_repart.c). */
typedef struct zb_repart zb_repart;
int zb_compact__repart_new(zb_repart **out, zb_ctx *ctx,
                           const ice_metadata *m,
                           const ice_partition_spec *spec,
                           const struct ArrowSchema *schema);
void zb_compact__repart_free(zb_repart *p);
size_t zb_compact__repart_fields(const zb_repart *p);
/* vals[0..fields) of logical row of batch; strings borrowed. */
int zb_compact__repart_row(ice_value *vals, zb_ctx *ctx, const zb_repart *p,
                           const struct ArrowArray *batch, int64_t row);
/* "a=1/b=x" of vals (out cleared first). */
int zb_compact__repart_folder(zb_buf *out, zb_ctx *ctx, const zb_repart *p,
                              const ice_value *vals);

#endif

/*
 * table/commit/commit_snap_int.h - private to commit_snap*.c: per-file helpers
 * of the snapshot producer (commit_snap_file.c).
 */
#ifndef ZB_TABLE_COMMIT_SNAP_INT_H
#define ZB_TABLE_COMMIT_SNAP_INT_H

#include "table/commit/commit_int.h"
#include "util/arena.h"
#include "util/buf.h"

/* Iceberg Java's SnapshotSummary.UpdateMetrics, for added or removed. */
typedef struct ice_snap_counts {
    int64_t data_files, delete_files, pos_files, eq_files, dvs;
    int64_t records, size, pos_deletes, eq_deletes;
} ice_snap_counts;

/* Deep copy of src into arena (partition names and ids are dropped). */
int ice_snap__copy_file(ice_data_file *dst, zb_ctx *ctx, zb_arena *a,
                        const ice_data_file *src);

/* Estimated bytes of f's entry in a manifest. */
size_t ice_snap__entry_bytes(const ice_data_file *f);

/* A key naming f's partition under spec_id (into out, cleared first). */
int ice_snap__partition_key(zb_buf *out, zb_ctx *ctx, int32_t spec_id,
                            const ice_data_file *f);

void ice_snap__count(ice_snap_counts *c, const ice_data_file *f);

/* The op's data sequence number for added files (commit_seq.c). */
int64_t *ice_snap__data_seq(ice_commit_op *op);

#endif

/*
 * table/commit/commit_seq.h - the data sequence number of files a rewrite adds
 * (Iceberg Java's RewriteFiles.dataSequenceNumber, compaction's
 * use-starting-sequence-number).
 *
 * A replace snapshot normally gives the files it adds its own sequence
 * number (inherited: null in the manifest). Compaction instead gives
 * them the sequence number of the snapshot it planned from, written out
 * in each ADDED entry: equality deletes committed after that snapshot
 * (sequence number greater) then still apply to the rewritten rows, and
 * the ones that applied before were applied while rewriting (the new
 * files' number is not below theirs, so they no longer apply). The
 * file sequence number stays the snapshot's own.
 */
#ifndef ZB_TABLE_COMMIT_SEQ_H
#define ZB_TABLE_COMMIT_SEQ_H

#include <stdint.h>

#include "table/commit/commit.h"

/*
 * Sets the data sequence number of every file op adds; kind is the kind
 * op was made with (ICE_OP_REPLACE only: ZB_EINVAL otherwise, or for
 * seq < 1). Ignored for v1 tables. The caller takes it from a snapshot
 * of the table (it is never above the base's last sequence number).
 */
int ice_commit_op_set_data_sequence_number(ice_commit_op *op, zb_ctx *ctx,
                                           ice_commit_op_kind kind,
                                           int64_t seq);

#endif

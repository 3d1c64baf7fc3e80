/*
 * table/commit/commit_seq.c - the data sequence number of added files
 * (table/commit/commit_seq.h). The producer (commit_snap.c) writes the number
 * into each ADDED entry when it is set.
 */
#define ZB_MODULE "commit"

#include "table/commit/commit_seq.h"
#include "table/commit/commit_snap_int.h"
#include "util/err.h"

int ice_commit_op_set_data_sequence_number(ice_commit_op *op, zb_ctx *ctx,
                                           ice_commit_op_kind kind,
                                           int64_t seq)
{
    ZB_ASSERT_ARG(op && ctx);
    if (kind != ICE_OP_REPLACE)
        return zb_fail(ctx, ZB_EINVAL, "a data sequence number is only for "
                       "replace operations");
    if (seq < 1)
        return zb_fail(ctx, ZB_EINVAL, "data sequence number %lld: must be "
                       "at least 1", (long long)seq);
    *ice_snap__data_seq(op) = seq;
    return ZB_OK;
}

/*
 * format/parquet/read/pq_assemble.h - record assembly: the triplets of a batch
 * of rows, one pq_leaf_batch per leaf column, become nested Arrow arrays.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_ASSEMBLE_H
#define ZB_FORMAT_PARQUET_PQ_ASSEMBLE_H

#include "format/parquet/read/pq_column.h"

/*
 * Builds the Arrow array of node. batches is indexed by leaf index and
 * must hold every leaf below node. Returns ZB_OK, ZB_ENOMEM, or
 * ZB_ECORRUPT when the leaves disagree on the rows' shape.
 */
int pq_assemble(struct ArrowArray *out, zb_ctx *ctx, const pq_schema *schema,
                const pq_node *node, pq_leaf_batch *const *batches);

#endif

/*
 * format/parquet/read/pq_column.h - reading one column chunk as a stream of
 * (definition level, repetition level, value) triplets, a batch of rows
 * at a time.
 *
 * A pq_column owns the chunk's compressed bytes (read whole, within the
 * reader's memory reservation) and one decoded page at a time: its levels
 * and its present values, already converted to their Arrow form (see
 * pq_conv). pq_column_read appends whole rows to a pq_leaf_batch, which
 * record assembly (pq_assemble.h) turns into Arrow arrays.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_COLUMN_H
#define ZB_FORMAT_PARQUET_PQ_COLUMN_H

#include "format/parquet/encoding/pq_encoding.h"
#include "format/parquet/pq_compression.h"
#include "format/parquet/read/pq_schema.h"
#include "util/buf.h"

typedef struct pq_leaf_batch {
    zb_buf defs;          /* uint16_t per triplet; empty when max_def == 0 */
    zb_buf reps;          /* uint16_t per triplet; empty when max_rep == 0 */
    size_t n_levels;      /* triplets */
    zb_buf fixed;         /* present values, value_width bytes each (bool: 1) */
    zb_buf offsets;       /* bytes: int64 end offset of each present value */
    zb_buf data;          /* bytes: the values' bytes */
    size_t n_values;      /* present values */
} pq_leaf_batch;

void pq_leaf_batch_init(pq_leaf_batch *b, size_t max_bytes);
void pq_leaf_batch_clear(pq_leaf_batch *b);
void pq_leaf_batch_free(pq_leaf_batch *b);

typedef struct pq_column pq_column;

/*
 * Opens a column over chunk[0..chunk_len), the column chunk's bytes,
 * which start at file offset chunk_offset (for messages). Takes ownership
 * of chunk (zb_malloc'd). uri names the file in messages. codec is the
 * reader's decompression state, borrowed (may be NULL).
 */
int pq_column_open(pq_column **out, zb_ctx *ctx, const char *uri,
                   const pq_node *leaf, const pq_column_meta *meta,
                   uint8_t *chunk, size_t chunk_len, uint64_t chunk_offset,
                   size_t max_page_bytes, zb_codec_state *codec);
void pq_column_free(pq_column *c);

/*
 * Appends up to rows whole rows to out. *rows_got receives how many were
 * appended: fewer than rows only at the end of the chunk.
 */
int pq_column_read(pq_column *c, zb_ctx *ctx, pq_leaf_batch *out,
                   size_t rows, size_t *rows_got);

#endif

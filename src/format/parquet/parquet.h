/*
 * format/parquet/parquet.h - reading Parquet files as Arrow batches: what
 * the parquet module shows the layers above it.
 *
 *     pq_reader_opts o = PQ_READER_OPTS_INIT;
 *     o.batch_rows = 8192;
 *     pq_reader_open(&r, io, ctx, uri, &o);
 *     pq_reader_arrow_schema(&schema, r);        a struct of the columns
 *     while ((rc = pq_reader_next(r, ctx, &batch)) == 1) {
 *         use(batch);                            a struct array, one row a slot
 *         batch.release(&batch);
 *     }
 *     pq_reader_free(r);
 *
 * Memory: the reader holds the projected column chunks of one row group
 * (compressed), one decoded page per column, and the batch being built.
 * Before it reads a row group it reserves that estimate from the context's
 * byte budget (ctx->budget, when set), waiting if the budget is full, and
 * it releases the reservation when it moves on.
 *
 * Errors name the file, the column and the byte offset: ZB_ECORRUPT for
 * malformed input, ZB_EUNSUPPORTED for valid input this reader does not
 * handle (encrypted files, LZO, decimals wider than 38 digits), ZB_EIO,
 * ZB_ENOMEM, ZB_ECANCELED (the stop flag, while waiting for memory).
 */
#ifndef ZB_FORMAT_PARQUET_PARQUET_H
#define ZB_FORMAT_PARQUET_PARQUET_H

#include "exec/arrow/arrow.h"
#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/read/pq_schema.h"
#include "zamboni/io.h"

typedef struct pq_reader pq_reader;

/* Returns non-zero to read row group rg, zero to skip it. */
typedef int (*pq_row_group_filter)(const pq_reader *r, size_t rg,
                                   void *payload);

typedef struct pq_reader_opts {
    unsigned version;
    size_t batch_rows;              /* rows per batch, at most */
    const int32_t *field_ids;       /* top-level columns by field id */
    size_t n_field_ids;
    const char *const *columns;     /* or by name; neither: all */
    size_t n_columns;
    size_t max_page_bytes;          /* a larger page is ZB_ECORRUPT */
    pq_row_group_filter filter;     /* NULL: every row group */
    void *filter_payload;
    uint64_t file_size;             /* from metadata, 0: unknown; spares
                                     * object stores a request */
} pq_reader_opts;

#define PQ_READER_OPTS_VERSION 1
#define PQ_READER_OPTS_INIT \
    { PQ_READER_OPTS_VERSION, 65536, NULL, 0, NULL, 0, 512u << 20, NULL, NULL, 0 }

int pq_reader_open(pq_reader **out, zb_io *io, zb_ctx *ctx, const char *uri,
                   const pq_reader_opts *opts);
void pq_reader_free(pq_reader *r);

/*
 * Chooses other columns (as the options' field_ids and columns) before
 * any row is read, without opening the file again: a reader that learns
 * from the schema that it must match by name keeps its footer (and, on
 * an object store, the bytes already fetched). The arrays are read during
 * the call only. ZB_EINVAL once rows were read.
 */
int pq_reader_reproject(pq_reader *r, zb_ctx *ctx, const int32_t *field_ids,
                        size_t n_field_ids, const char *const *columns,
                        size_t n_columns);

const pq_file_meta *pq_reader_meta(const pq_reader *r);
const pq_schema *pq_reader_schema(const pq_reader *r);

/* The Arrow schema of the batches: a struct of the projected columns. */
int pq_reader_arrow_schema(struct ArrowSchema *out, pq_reader *r,
                           zb_ctx *ctx);

/* The next batch: 1 with *out set (the caller releases it), 0 at the end. */
int pq_reader_next(pq_reader *r, zb_ctx *ctx, struct ArrowArray *out);

/* Rows read so far, and row groups skipped by the filter. */
uint64_t pq_reader_rows_read(const pq_reader *r);
size_t pq_reader_row_groups_skipped(const pq_reader *r);

/*
 * Reads the compressed bytes of column chunk col of row group rg, whole
 * (dictionary page included), into a new zb_malloc'd buffer. *start
 * receives the chunk's offset in the file. For row-group copy.
 */
int pq_reader_read_chunk(pq_reader *r, zb_ctx *ctx, size_t rg, size_t col,
                         uint8_t **bytes, uint64_t *start, uint64_t *len);

/*
 * The min and max statistics of the integer leaf column with the given
 * field id in row group rg (INT32 or INT64 without an unsigned
 * annotation). Returns 1 with *min, *max set, 0 when the row group has no
 * usable statistics for it (unknown field id, other type, absent stats).
 */
int pq_row_group_int_range(const pq_reader *r, size_t rg, int32_t field_id,
                           int64_t *min, int64_t *max);

#endif

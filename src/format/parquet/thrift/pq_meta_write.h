/*
 * format/parquet/thrift/pq_meta_write.h - encoding the Parquet footer
 * (FileMetaData) and page headers of pq_meta.h in the Thrift compact
 * protocol; the counterpart of pq_meta_parse and pq_page_header_parse.
 *
 * Required fields are always written; optional ones only when their has_*
 * flag is set (or, for those pq_meta.h keeps without a flag, when they
 * differ from the absent value: a NULL string, SchemaElement.type_length
 * for FIXED_LEN_BYTE_ARRAY or when non-zero, num_children for groups).
 * The footer also gets FileMetaData.column_orders, one TypeDefinedOrder
 * per leaf of the schema, which readers need before they trust
 * Statistics.min_value/max_value.
 *
 * pq_column_index_write and pq_offset_index_write encode a column
 * chunk's page index (ColumnIndex, OffsetIndex; parquet-format
 * PageIndex.md), which the writer puts between the last chunk and the
 * footer.
 *
 * Every function appends to out, which keeps its cap (zb_buf_init); on
 * failure out is truncated back to its length at the call.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_META_WRITE_H
#define ZB_FORMAT_PARQUET_PQ_META_WRITE_H

#include "format/parquet/thrift/pq_meta.h"
#include "util/buf.h"
#include "util/err.h"

/*
 * Appends meta as a FileMetaData: the bytes that go between a file's
 * last column chunk and its 4-byte footer length + "PAR1". Returns ZB_OK,
 * ZB_ENOMEM (allocation failed or out's cap was reached), or ZB_EINVAL
 * (meta cannot be encoded: a NULL name, key or path element, NULL arrays
 * with non-zero counts, a LogicalType member or TimeUnit not in pq_meta.h,
 * an INTEGER bit width other than 8/16/32/64; the message says which).
 */
int pq_meta_write(zb_buf *out, zb_ctx *ctx, const pq_file_meta *meta);

/*
 * Appends h as a PageHeader: type, sizes, crc when has_crc, and the
 * sub-header its type calls for (data, dictionary, v2, or the empty index
 * page header). page_stats, when not NULL, becomes the statistics of a
 * DATA_PAGE or DATA_PAGE_V2 header. DictionaryPageHeader.is_sorted is
 * written when true; DataPageHeaderV2.is_compressed always. Returns
 * ZB_OK, ZB_ENOMEM, or ZB_EINVAL (an unknown page type, a negative size,
 * or page_stats for a dictionary or index page).
 */
int pq_page_header_write(zb_buf *out, zb_ctx *ctx, const pq_page_header *h,
                         const pq_statistics *page_stats);

/*
 * The page index of one column chunk (parquet-format PageIndex.md): a
 * ColumnIndex (per data page: whether it holds only nulls, its min and
 * max in the column's order, empty for a null page; the boundary order;
 * the null counts) and an OffsetIndex (per data page: where its header
 * starts, its size header included, the row-group row index of its
 * first row). Dictionary pages take no part.
 */
typedef enum pq_boundary_order {
    PQ_BOUNDARY_UNORDERED = 0,
    PQ_BOUNDARY_ASCENDING = 1,
    PQ_BOUNDARY_DESCENDING = 2
} pq_boundary_order;

typedef struct pq_column_index {
    size_t n_pages;
    const uint8_t *null_pages;          /* n_pages, 0 or 1 */
    const uint8_t *const *min_values;   /* n_pages; NULL entry: empty */
    const size_t *min_lens;
    const uint8_t *const *max_values;
    const size_t *max_lens;
    pq_boundary_order boundary_order;
    const int64_t *null_counts;         /* n_pages, or NULL: not written */
} pq_column_index;

typedef struct pq_page_location {
    int64_t offset;                     /* file offset of the page header */
    int32_t compressed_page_size;       /* header included */
    int64_t first_row_index;            /* within the row group */
} pq_page_location;

/* Appends ci as a ColumnIndex. ZB_OK, ZB_ENOMEM or ZB_EINVAL (NULL
 * arrays for pages, a boundary order out of range). */
int pq_column_index_write(zb_buf *out, zb_ctx *ctx,
                          const pq_column_index *ci);

/* Appends the n page locations as an OffsetIndex. */
int pq_offset_index_write(zb_buf *out, zb_ctx *ctx,
                          const pq_page_location *locs, size_t n);

#endif

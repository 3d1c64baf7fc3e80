/*
 * format/parquet/pq_meta_write.h - encoding the Parquet footer
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
 * Both functions append to out, which keeps its cap (zb_buf_init); on
 * failure out is truncated back to its length at the call.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_META_WRITE_H
#define ZB_FORMAT_PARQUET_PQ_META_WRITE_H

#include "format/parquet/pq_meta.h"
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

#endif

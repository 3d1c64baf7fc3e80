/*
 * format/parquet/parquet_write.h - writing Arrow batches to a Parquet file.
 *
 *     pq_writer_opts o = PQ_WRITER_OPTS_INIT;
 *     pq_writer_open(&w, io, ctx, uri, &schema, &o);   schema: a struct
 *     pq_writer_write(w, ctx, &batch);                 any number of times
 *     pq_writer_close(w, ctx, &result);                footer, then the file
 *                                                      appears (never
 *                                                      overwriting)
 *
 * What it writes: every field's field_id (from the Arrow field metadata key
 * "PARQUET:field_id", as Arrow does), logical types, nested structs, lists
 * (three-level) and maps, RLE levels, dictionary encoding (one dictionary per
 * column chunk, given up for PLAIN when it passes dict_bytes or does not beat
 * PLAIN on the first page), PLAIN values, data pages v1 or v2, the chosen
 * codec, column-chunk and page statistics (min, max, null count) with the
 * type's sort order, and row-group copy. After close, the result carries what
 * Iceberg's data-file metrics are made of (pq_leaf_metrics;
 * table/metrics/file_metrics.h turns them into Iceberg's).
 *
 * With opts.page_index, the page index too (parquet-format PageIndex.md): at
 * close, before the footer, every written column chunk's ColumnIndex (per data
 * page: null_pages, min/max as in the page statistics, null_counts;
 * boundary_order from the pages' bounds), then every chunk's OffsetIndex (data
 * pages only: header offset, size with header, first row index), and the
 * footer's column/offset_index_offset and _length. Where a page header has no
 * bounds because a byte array passes STAT_MAX_BYTES (64), the index has them
 * truncated to 64 bytes (the least value's prefix; the greatest's prefix with
 * its last byte below 0xff incremented), as parquet-mr does. A chunk gets no
 * ColumnIndex when a page with values still has no bounds (only NaN; a prefix
 * all 0xff); its OffsetIndex is still written. Row groups copied with
 * pq_writer_copy_row_groups get neither (their source's indexes are not
 * carried; readers then read those chunks without one). Off by default, so that
 * files stay as they were (sizes, byte-for-byte tests) and our reader does not
 * use them; the table property write.parquet.page-index-enabled=true turns it
 * on (pq_writer_opts_apply_properties; PyIceberg's key). parquet-mr (Iceberg
 * Java) writes the index always and PyIceberg now by default: turning the
 * default on is a one-line change once the suite accepts the larger files. Not
 * yet: bloom filters.
 */
#ifndef ZB_FORMAT_PARQUET_PARQUET_WRITE_H
#define ZB_FORMAT_PARQUET_PARQUET_WRITE_H

#include "exec/arrow/arrow.h"
#include "format/parquet/pq_compression.h"
#include "format/parquet/thrift/pq_meta.h"
#include "zamboni/io.h"

typedef struct pq_writer pq_writer;
struct pq_reader;

typedef struct pq_writer_opts {
    unsigned version;
    int codec;                     /* pq_codec */
    int codec_level;               /* 0: the codec's default */
    uint64_t row_group_bytes;      /* buffered bytes that end a row group */
    uint64_t page_bytes;           /* encoded bytes that end a page */
    int page_v2;                   /* data pages v2 instead of v1 */
    int dictionary;                /* dictionary-encode, falling back */
    uint64_t dict_bytes;           /* dictionary size that ends its use */
    const char *created_by;
    int page_index;                /* write column and offset indexes */
    /* Threads that compress data pages while the calling thread
     * shreds and encodes (it compresses too when it must wait), and
     * share out a row group's dictionaries; a writer with more than one
     * owns a pool from open to close. A page joins its chunk a fixed
     * number of row slices after it ends, whatever the threads: the
     * file is byte-identical for any value. 0 or 1: the calling thread
     * alone. */
    unsigned threads;
} pq_writer_opts;

#define PQ_WRITER_OPTS_VERSION 1
#define PQ_WRITER_OPTS_INIT                                              \
    { PQ_WRITER_OPTS_VERSION, PQ_CODEC_ZSTD, 3, 128u << 20, 1u << 20, 0,  \
      1, 2u << 20, "zamboni version " ZB_VERSION_STRING, 0, 1 }

/*
 * Applies Iceberg's write.parquet.* table properties (kv: a NULL-
 * terminated key, value, ... array) to o; see pq_write_props.c for the
 * keys. *unsupported counts properties asked for that this writer does
 * not honour yet (bloom filters), each logged. ZB_OK or ZB_EINVAL.
 */
int pq_writer_opts_apply_properties(pq_writer_opts *o, zb_ctx *ctx,
                                    const char *const *kv, int *unsupported);

/* Byte-array bounds in pq_leaf_metrics keep at most this many bytes. */
#define PQ_METRICS_BOUND_BYTES 256

/*
 * One leaf column over the whole file (every row group, written or
 * copied), as Iceberg's metrics need it. Counts follow the Parquet
 * footer: value_count is the number of levels (nulls and empty lists
 * included: Iceberg's value_counts), null_count the levels below the
 * maximum definition level.
 */
typedef struct pq_leaf_metrics {
    int32_t field_id;             /* -1: the leaf has none */
    const char *const *path;      /* path_in_schema: top-level name first,
                                     "list"/"key_value" wrappers included */
    size_t path_len;
    pq_type type;                 /* physical type of the bounds' bytes */
    int32_t type_length;          /* FIXED_LEN_BYTE_ARRAY */
    pq_logical logical;           /* annotation; kind PQ_LT_NONE if none */
    int in_repeated;              /* inside a list or a map */
    int64_t value_count;
    int64_t null_count;           /* -1: unknown (a copied chunk lacked it) */
    int64_t nan_count;            /* -1: not FLOAT/DOUBLE, or unknown */
    uint64_t column_bytes;        /* compressed bytes of its chunks */
    /*
     * Bounds in PLAIN form (BYTE_ARRAY without its length prefix), under
     * the type's order; floats exclude NaN and order -0 below +0. A
     * byte-array bound longer than PQ_METRICS_BOUND_BYTES is kept as its
     * prefix with *_truncated set: the prefix is still a lower bound, but
     * the upper bound must be incremented before use. has_bounds is 0
     * when every value was null or NaN, or a copied chunk had no bounds.
     */
    int has_bounds;
    const uint8_t *min, *max;
    size_t min_len, max_len;
    int min_truncated, max_truncated;
} pq_leaf_metrics;

/*
 * What pq_writer_close wrote. leaves and split_offsets are owned by the
 * result: release them with pq_write_result_free (a result that close
 * did not fill is zeroed and safe to free).
 */
typedef struct pq_write_result {
    uint64_t file_bytes;
    uint64_t rows;
    size_t row_groups;
    pq_leaf_metrics *leaves;      /* one per leaf column, schema order */
    size_t n_leaves;
    int64_t *split_offsets;       /* each row group's first byte */
    size_t n_split_offsets;
    zb_arena *arena;              /* private: holds the arrays */
} pq_write_result;

/* Frees what close put in r and zeroes it; NULL is fine. */
void pq_write_result_free(pq_write_result *r);

/* schema must be a struct ("+s") of the columns; it is copied. */
int pq_writer_open(pq_writer **out, zb_io *io, zb_ctx *ctx, const char *uri,
                   const struct ArrowSchema *schema,
                   const pq_writer_opts *opts);

/* Appends the rows of batch, a struct array of the schema's columns. */
int pq_writer_write(pq_writer *w, zb_ctx *ctx, const struct ArrowArray *batch);

/*
 * Row-group copy: appends every row group of src to the file as it is,
 * its compressed pages copied byte for byte, not decoded. Rows written
 * with pq_writer_write before are first closed into a row group of their
 * own. The schemas must match element by element (types, repetition,
 * annotations, field ids): ZB_EINVAL names the first difference. Row
 * groups smaller than min_rows are not worth copying (a file of a thousand
 * tiny row groups reads badly); callers decide with
 * pq_writer_copy_worthwhile().
 */
int pq_writer_copy_row_groups(pq_writer *w, zb_ctx *ctx,
                              struct pq_reader *src);

/* Whether src's row groups average at least min_rows rows. */
int pq_writer_copy_worthwhile(const struct pq_reader *src, uint64_t min_rows);

/* Bytes buffered and written so far: the file's size if closed now,
 * about (pages not yet joined to their chunk count uncompressed); the
 * same after the same batches whatever opts.threads. */
uint64_t pq_writer_bytes(const pq_writer *w);

/* Writes the footer and publishes the file; frees w in every case. */
int pq_writer_close(pq_writer *w, zb_ctx *ctx, pq_write_result *result);

/* Drops everything; nothing appears. NULL is fine. */
void pq_writer_abort(pq_writer *w);

#endif

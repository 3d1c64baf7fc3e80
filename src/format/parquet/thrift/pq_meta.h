/*
 * format/parquet/thrift/pq_meta.h - the Parquet footer (FileMetaData) and page
 * headers, decoded from the Thrift compact protocol.
 *
 * Field numbers and enum values are those of parquet.thrift
 * (apache/parquet-format). Every field that real writers set is kept;
 * unknown fields are skipped. Strings are copied into the caller's arena
 * and NUL-terminated; byte strings (statistics) are copied too, with their
 * length. "has_*" flags say whether an optional field was present.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_META_H
#define ZB_FORMAT_PARQUET_PQ_META_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/err.h"

typedef enum pq_type {
    PQ_BOOLEAN = 0,
    PQ_INT32 = 1,
    PQ_INT64 = 2,
    PQ_INT96 = 3,
    PQ_FLOAT = 4,
    PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6,
    PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_type;

typedef enum pq_repetition {
    PQ_REQUIRED = 0,
    PQ_OPTIONAL = 1,
    PQ_REPEATED = 2
} pq_repetition;

/* ConvertedType (legacy annotations). */
typedef enum pq_converted {
    PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3,
    PQ_CT_ENUM = 4, PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7,
    PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10, PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14, PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16, PQ_CT_INT_32 = 17, PQ_CT_INT_64 = 18, PQ_CT_JSON = 19,
    PQ_CT_BSON = 20, PQ_CT_INTERVAL = 21
} pq_converted;

/* LogicalType union: the field number of the member that was set. */
typedef enum pq_logical_kind {
    PQ_LT_NONE = 0, PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3,
    PQ_LT_ENUM = 4, PQ_LT_DECIMAL = 5, PQ_LT_DATE = 6, PQ_LT_TIME = 7,
    PQ_LT_TIMESTAMP = 8, PQ_LT_INTEGER = 10, PQ_LT_UNKNOWN = 11,
    PQ_LT_JSON = 12, PQ_LT_BSON = 13, PQ_LT_UUID = 14, PQ_LT_FLOAT16 = 15,
    PQ_LT_VARIANT = 16, PQ_LT_GEOMETRY = 17, PQ_LT_GEOGRAPHY = 18
} pq_logical_kind;

typedef enum pq_time_unit {
    PQ_UNIT_MILLIS = 1,
    PQ_UNIT_MICROS = 2,
    PQ_UNIT_NANOS = 3
} pq_time_unit;

typedef struct pq_logical {
    pq_logical_kind kind;
    int32_t scale, precision;      /* DECIMAL */
    int is_adjusted_to_utc;        /* TIME, TIMESTAMP */
    pq_time_unit unit;             /* TIME, TIMESTAMP */
    int bit_width;                 /* INTEGER: 8, 16, 32, 64 */
    int is_signed;                 /* INTEGER */
} pq_logical;

typedef struct pq_schema_element {
    const char *name;
    int has_type;
    pq_type type;
    int32_t type_length;           /* FIXED_LEN_BYTE_ARRAY */
    int has_repetition;
    pq_repetition repetition;
    int32_t num_children;          /* 0 for a leaf */
    int has_converted_type;
    pq_converted converted_type;
    int has_scale, has_precision;
    int32_t scale, precision;
    int has_field_id;
    int32_t field_id;
    pq_logical logical;            /* kind PQ_LT_NONE when absent */
} pq_schema_element;

typedef struct pq_statistics {
    /* Deprecated max/min (signed byte order) and max_value/min_value. */
    const uint8_t *max, *min, *max_value, *min_value;
    size_t max_len, min_len, max_value_len, min_value_len;
    int has_max, has_min, has_max_value, has_min_value;
    int has_null_count, has_distinct_count;
    int64_t null_count, distinct_count;
} pq_statistics;

typedef struct pq_column_meta {
    pq_type type;
    int32_t *encodings;
    size_t n_encodings;
    const char **path_in_schema;
    size_t path_len;
    int32_t codec;                 /* pq_codec of pq_compression.h */
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    int64_t data_page_offset;
    int has_index_page_offset;
    int64_t index_page_offset;
    int has_dictionary_page_offset;
    int64_t dictionary_page_offset;
    int has_statistics;
    pq_statistics statistics;
} pq_column_meta;

typedef struct pq_column_chunk {
    const char *file_path;         /* NULL: this file */
    int64_t file_offset;
    int has_meta_data;
    pq_column_meta meta_data;
    int has_offset_index;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int has_column_index;
    int64_t column_index_offset;
    int32_t column_index_length;
} pq_column_chunk;

typedef struct pq_row_group {
    pq_column_chunk *columns;
    size_t n_columns;
    int64_t total_byte_size;
    int64_t num_rows;
    int has_file_offset;
    int64_t file_offset;
    int has_total_compressed_size;
    int64_t total_compressed_size;
    int has_ordinal;
    int16_t ordinal;
} pq_row_group;

typedef struct pq_key_value {
    const char *key;
    const char *value;             /* NULL when absent */
} pq_key_value;

typedef struct pq_file_meta {
    int32_t version;
    pq_schema_element *schema;     /* depth-first, schema[0] is the root */
    size_t n_schema;
    int64_t num_rows;
    pq_row_group *row_groups;
    size_t n_row_groups;
    pq_key_value *key_value;
    size_t n_key_value;
    const char *created_by;        /* NULL when absent */
} pq_file_meta;

/*
 * Decodes a FileMetaData from buf[0..len) (the footer bytes between the
 * file's body and its 4-byte length + "PAR1"). Allocates from arena.
 * Returns ZB_OK, ZB_ECORRUPT (malformed: the message names the field and
 * the byte offset within the footer), or ZB_ENOMEM. Never reads outside
 * buf, and bounds the nesting depth and every count by the bytes left.
 */
int pq_meta_parse(pq_file_meta *out, zb_arena *arena, zb_ctx *ctx,
                  const uint8_t *buf, size_t len);

typedef enum pq_page_type {
    PQ_DATA_PAGE = 0,
    PQ_INDEX_PAGE = 1,
    PQ_DICTIONARY_PAGE = 2,
    PQ_DATA_PAGE_V2 = 3
} pq_page_type;

typedef struct pq_page_header {
    pq_page_type type;
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    int has_crc;
    int32_t crc;
    /* DATA_PAGE */
    struct {
        int32_t num_values;
        int32_t encoding;
        int32_t definition_level_encoding;
        int32_t repetition_level_encoding;
    } data;
    /* DICTIONARY_PAGE */
    struct {
        int32_t num_values;
        int32_t encoding;
        int is_sorted;
    } dict;
    /* DATA_PAGE_V2 */
    struct {
        int32_t num_values;
        int32_t num_nulls;
        int32_t num_rows;
        int32_t encoding;
        int32_t definition_levels_byte_length;
        int32_t repetition_levels_byte_length;
        int is_compressed;         /* defaults to 1 when absent */
    } v2;
} pq_page_header;

/*
 * Decodes one PageHeader from the start of buf[0..len) without
 * allocating (page statistics are skipped). *header_len receives the
 * bytes the header took. Returns ZB_OK or ZB_ECORRUPT (the header is
 * truncated or malformed, or a size is negative).
 */
int pq_page_header_parse(pq_page_header *out, size_t *header_len,
                         zb_ctx *ctx, const uint8_t *buf, size_t len);

/* Encoding enum of parquet.thrift. */
enum {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9
};

#endif

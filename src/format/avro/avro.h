/*
 * format/avro/avro.h - Avro object container files (Avro 1.11 spec), read
 * and written, for Iceberg manifests and manifest lists.
 *
 * Schema model. zb_avro_schema_parse() turns schema JSON into a graph of
 * zb_avro_node: the primitive types, record, enum, array, map, union and
 * fixed, with named-type references resolved to the node they name (a
 * recursive type is a cycle). Each node and record field keeps its own
 * JSON text (attrs_json: the JSON object with every attribute, known or
 * not, less the nested schemas "fields", "items", "values" and a field's
 * "type"), and the schema keeps the whole text: the writer puts that text into the
 * file's avro.schema as it was given, so Iceberg's field-id, element-id,
 * key-id and value-id, logicalType, doc and default survive a rewrite.
 * The Iceberg ids are also decoded into integers for convenience.
 *
 * Values. A zb_avro_value is a tree whose shape follows the schema: a
 * record's fields in schema order, an array's items, a map's entries, a
 * union's branch index and value. The reader allocates each record's tree
 * in an arena that it resets on the next call, so a caller copies what it
 * keeps. The writer reads trees that the caller builds however it likes.
 *
 * Reading streams: one block is in memory at a time, plus the record
 * being returned. Block sizes and counts read from the file are checked
 * against the file size and opts.max_block_bytes before any allocation
 * (ZB_ECORRUPT when they cannot be right, ZB_ENOMEM when they pass the
 * cap). No schema resolution: records come out in the writer's schema.
 *
 * Errors name the file, the record's field path and the byte offset:
 *   ".../snap-1.avro: block 0 at offset 3012, record 7: record manifest_file
 *    field partitions: offset 3190: truncated long"
 * Offsets are file offsets for the null codec and offsets into the
 * decompressed block (said so in the message) for the others.
 *
 * Codes: ZB_ECORRUPT (malformed input or schema), ZB_ENOMEM (allocation
 * failure or a cap), ZB_EIO/ZB_ENOTFOUND (storage), ZB_EUNSUPPORTED (an
 * unknown codec), ZB_EINVAL (a value that does not match the schema when
 * writing).
 */
#ifndef ZB_FORMAT_AVRO_AVRO_H
#define ZB_FORMAT_AVRO_AVRO_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/io.h"
#include "zamboni/zamboni.h"

typedef enum zb_avro_type {
    ZB_AVRO_NULL,
    ZB_AVRO_BOOLEAN,
    ZB_AVRO_INT,
    ZB_AVRO_LONG,
    ZB_AVRO_FLOAT,
    ZB_AVRO_DOUBLE,
    ZB_AVRO_BYTES,
    ZB_AVRO_STRING,
    ZB_AVRO_RECORD,
    ZB_AVRO_ENUM,
    ZB_AVRO_ARRAY,
    ZB_AVRO_MAP,
    ZB_AVRO_UNION,
    ZB_AVRO_FIXED
} zb_avro_type;

/* "null", "record", ...; never NULL. */
const char *zb_avro_type_name(zb_avro_type t);

typedef struct zb_avro_node zb_avro_node;

/* An Iceberg id attribute that is absent reads as this. */
#define ZB_AVRO_NO_ID INT64_MIN

typedef struct zb_avro_field {
    const char *name;
    zb_avro_node *type;
    const char *attrs_json;   /* the field's JSON object less "type" */
    int64_t field_id;         /* "field-id", or ZB_AVRO_NO_ID */
} zb_avro_field;

struct zb_avro_node {
    zb_avro_type type;
    const char *name;         /* full name of a record, enum or fixed */
    const char *logical_type; /* "logicalType" or NULL */
    const char *attrs_json;   /* the node's JSON less nested schemas
                                 ("\"int\"" for a bare primitive) */
    size_t n;                 /* fields, symbols or branches */
    zb_avro_field *fields;    /* record */
    const char **symbols;     /* enum */
    zb_avro_node **branches;  /* union */
    zb_avro_node *items;      /* array items, map values */
    size_t fixed_bytes;       /* fixed */
    int64_t element_id;       /* array "element-id", or ZB_AVRO_NO_ID */
    int64_t key_id;           /* map "key-id", or ZB_AVRO_NO_ID */
    int64_t value_id;         /* map "value-id", or ZB_AVRO_NO_ID */
    size_t min_bytes;         /* least encoded size of one datum */
};

typedef struct zb_avro_schema zb_avro_schema;

/*
 * Parses schema JSON (len bytes, need not end in NUL). The schema owns its
 * nodes and a copy of the text. ZB_ECORRUPT with the JSON path of the
 * first problem; ZB_ENOMEM.
 */
int zb_avro_schema_parse(zb_avro_schema **out, zb_ctx *ctx, const char *json,
                         size_t len);
/* Releases a reference (the last one frees the schema); NULL is fine. */
void zb_avro_schema_free(zb_avro_schema *s);

/*
 * The same as zb_avro_schema_parse, but a text seen before returns the
 * schema parsed then (shared and immutable; release it with
 * zb_avro_schema_free) while the process cache is on. Readers and
 * writers of Avro files get their schema this way.
 */
int zb_avro_schema_get(zb_avro_schema **out, zb_ctx *ctx, const char *json,
                       size_t len);

/*
 * Turns the process cache on with room for `entries` schemas (at most
 * ZB_AVRO_SCHEMA_CACHE_MAX, each about 64 KiB), or off with 0, dropping
 * what no longer fits. Off by default: the zamboni executable turns it
 * on at start (avro_schema_cache.c says why it is not a library
 * default).
 */
#define ZB_AVRO_SCHEMA_CACHE_MAX 32
void zb_avro_schema_cache_set(size_t entries);
void zb_avro_schema_cache_stats(uint64_t *hits, uint64_t *misses);

/* The top node and the JSON text as given (NUL-terminated); borrowed. */
const zb_avro_node *zb_avro_schema_root(const zb_avro_schema *s);
const char *zb_avro_schema_json(const zb_avro_schema *s);

/* Index of a record field by name, or -1. */
int zb_avro_field_index(const zb_avro_node *record, const char *name);

typedef struct zb_avro_value zb_avro_value;

typedef struct zb_avro_map_entry {
    const char *key;          /* NUL-terminated */
    size_t key_len;
    zb_avro_value *value;
} zb_avro_map_entry;

struct zb_avro_value {
    zb_avro_type type;        /* the schema node's type (never a union's
                                 branch: see u) */
    union {
        int boolean;
        int32_t i32;                                   /* int, enum index */
        int64_t i64;                                   /* long */
        float f32;
        double f64;
        struct { const uint8_t *ptr; size_t len; } bytes; /* bytes, fixed */
        struct { const char *ptr; size_t len; } str;   /* NUL-terminated on
                                                          read */
        struct { zb_avro_value *items; size_t n; } list; /* record fields,
                                                            array items */
        struct { zb_avro_map_entry *entries; size_t n; } map;
        struct { int32_t branch; zb_avro_value *value; } u;
    } v;
};

/* --- reading ---------------------------------------------------------- */

typedef struct zb_avro_reader zb_avro_reader;

typedef struct zb_avro_reader_opts {
    unsigned version;
    size_t max_block_bytes;   /* a block, compressed or not (64 MiB) */
    size_t max_record_bytes;  /* one record's value tree (64 MiB) */
    size_t max_header_bytes;  /* magic, metadata and sync (16 MiB) */
} zb_avro_reader_opts;

#define ZB_AVRO_READER_OPTS_VERSION 1
#define ZB_AVRO_READER_OPTS_INIT \
    { ZB_AVRO_READER_OPTS_VERSION, 64u << 20, 64u << 20, 16u << 20 }

/*
 * Opens a file through FileIO and reads its header. opts may be NULL.
 * The reader keeps the file open until zb_avro_reader_free.
 */
int zb_avro_reader_open(zb_avro_reader **out, zb_io *io, zb_ctx *ctx,
                        const char *uri, const zb_avro_reader_opts *opts);

/*
 * The same on a whole file in memory; data stays the caller's and must
 * outlive the reader. name is used in error messages.
 */
int zb_avro_reader_open_mem(zb_avro_reader **out, zb_ctx *ctx,
                            const char *name, const void *data, size_t len,
                            const zb_avro_reader_opts *opts);

/*
 * The next record: 1 with *out set (valid until the next call or free),
 * 0 at the end of the file, or a negative rc.
 */
int zb_avro_reader_next(zb_avro_reader *r, zb_ctx *ctx,
                        const zb_avro_value **out);

/* The writer schema (borrowed from the reader). */
const zb_avro_schema *zb_avro_reader_schema(const zb_avro_reader *r);

/* "null", "deflate", "snappy" or "zstd". */
const char *zb_avro_reader_codec(const zb_avro_reader *r);

/*
 * File metadata: the number of entries, and entry i's key and value
 * (bytes, NUL-terminated; borrowed). avro.schema and avro.codec are
 * included. zb_avro_reader_meta_get finds a key; NULL if absent.
 */
size_t zb_avro_reader_meta_count(const zb_avro_reader *r);
const char *zb_avro_reader_meta_at(const zb_avro_reader *r, size_t i,
                                   const char **value, size_t *value_len);
const char *zb_avro_reader_meta_get(const zb_avro_reader *r, const char *key,
                                    size_t *value_len);

void zb_avro_reader_free(zb_avro_reader *r);

/* --- writing ---------------------------------------------------------- */

typedef enum zb_avro_codec {
    ZB_AVRO_CODEC_NULL,
    ZB_AVRO_CODEC_DEFLATE,    /* raw deflate (RFC 1951) */
    ZB_AVRO_CODEC_SNAPPY,     /* snappy + big-endian CRC32 of the input */
    ZB_AVRO_CODEC_ZSTD
} zb_avro_codec;

typedef struct zb_avro_writer_opts {
    unsigned version;
    zb_avro_codec codec;
    int level;                /* codec level; 0 = the codec's default */
    size_t block_bytes;       /* flush a block at this uncompressed size
                                 (1 MiB) */
} zb_avro_writer_opts;

#define ZB_AVRO_WRITER_OPTS_VERSION 1
#define ZB_AVRO_WRITER_OPTS_INIT \
    { ZB_AVRO_WRITER_OPTS_VERSION, ZB_AVRO_CODEC_NULL, 0, 1u << 20 }

typedef struct zb_avro_meta {
    const char *key;
    const char *value;
    size_t value_len;         /* bytes of value */
} zb_avro_meta;

typedef struct zb_avro_writer zb_avro_writer;

/*
 * Starts a new file at uri (through zb_io_writer_open): parses
 * schema_json, which goes into avro.schema byte for byte, and writes the
 * header with the n_meta user entries (keys starting "avro." are
 * refused: ZB_EINVAL). opts may be NULL.
 */
int zb_avro_writer_open(zb_avro_writer **out, zb_io *io, zb_ctx *ctx,
                        const char *uri, const char *schema_json,
                        const zb_avro_meta *meta, size_t n_meta,
                        const zb_avro_writer_opts *opts);

/* The parsed schema, to build values against (borrowed). */
const zb_avro_schema *zb_avro_writer_schema(const zb_avro_writer *w);

/*
 * Appends one record; ZB_EINVAL with the field path when the value does
 * not match the schema (the record is then not written).
 */
int zb_avro_writer_append(zb_avro_writer *w, zb_ctx *ctx,
                          const zb_avro_value *record);

/* Records appended so far. */
uint64_t zb_avro_writer_records(const zb_avro_writer *w);

/*
 * Flushes the last block and makes the file appear (zb_io_writer_commit).
 * Frees the writer whatever the outcome.
 */
int zb_avro_writer_commit(zb_avro_writer *w, zb_ctx *ctx);

/* Drops the file; frees the writer. NULL is fine. */
void zb_avro_writer_abort(zb_avro_writer *w);

#endif

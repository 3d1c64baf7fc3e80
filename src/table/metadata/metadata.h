/*
 * table/metadata/metadata.h - Iceberg table metadata JSON (format/spec.md
 * "Table Metadata", Appendix C): parse, look up, change, write back.
 *
 * A metadata file is kept twice. The parsed JSON document is the source of
 * truth: writing serialises it, so every field Zamboni does not model
 * (encryption keys, unknown future fields, summary entries, key order)
 * survives a rewrite unchanged. From the document a typed, read-only
 * model is built in an arena (struct ice_metadata below) for the rest of
 * the library. Changes go through the setters, which edit a copy of the
 * document, rebuild the model from it and only then replace both, so a
 * failed setter leaves the metadata as it was.
 *
 *     ice_metadata *m = NULL;
 *     if ((rc = ice_metadata_load(&m, io, ctx, uri)) < 0) ...
 *     const ice_snapshot *cur = ice_metadata_current_snapshot(m);
 *     const ice_schema *s = ice_metadata_current_schema(m);
 *     ...
 *     ice_metadata_free(m);
 *
 * Lifetimes: every pointer in the model, and every pointer a lookup
 * returns, is owned by the ice_metadata and stays valid until it is freed
 * or until the next successful setter (which rebuilds the model).
 *
 * Versions: format-version 1, 2 and 3 are read; anything else is
 * ZB_EUNSUPPORTED naming the version. v1 tables may carry only the
 * deprecated "schema" and "partition-spec"; the model presents them as one
 * schema (id 0, or the file's current-schema-id) and one spec (id 0) as
 * the spec says readers should.
 *
 * Codes: ZB_ECORRUPT (malformed JSON, with file, line and column; a
 * required field missing, named; a wrong JSON type; ids that do not
 * resolve; nesting deeper than ICE_MAX_TYPE_DEPTH), ZB_EUNSUPPORTED (format
 * version, unknown primitive type), ZB_ENOMEM, and the
 * FileIO codes for load and find_latest.
 */
#ifndef ZB_TABLE_METADATA_H
#define ZB_TABLE_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "table/value/ice_type.h"
#include "util/buf.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

/* "No snapshot": current-snapshot-id absent, null or -1; no parent. */
#define ICE_NO_SNAPSHOT ((int64_t)-1)

/* Schema types nest at most this deep (struct in list in map ...). */
#define ICE_MAX_TYPE_DEPTH 64

/* Largest metadata file ice_metadata_load reads (and the parse accepts). */
#define ICE_METADATA_MAX_BYTES ((size_t)512 << 20)

typedef struct ice_metadata ice_metadata;
typedef struct ice_type ice_type;

typedef struct ice_kv {
    const char *key;
    const char *value;
} ice_kv;

/* One field of a struct (format/spec.md "Nested Types"). */
typedef struct ice_field {
    int32_t id;
    const char *name;
    int required;
    const ice_type *type;
    const char *doc;               /* NULL when absent */
    /* v3 default values as compact JSON text, NULL when absent. */
    const char *initial_default;
    const char *write_default;
} ice_field;

/*
 * A type: a primitive (id < ICE_STRUCT, parameters in prim) or a struct,
 * list or map. text is the type string as the file wrote it for
 * primitives ("decimal(9, 2)", "geometry(srid:4326)"), NULL for nested.
 */
struct ice_type {
    ice_type_id id;
    ice_prim prim;                 /* prim.id == id for primitives */
    const char *text;
    /* GEOMETRY, GEOGRAPHY: parameters as written, NULL = the default. */
    const char *crs;
    const char *edges;             /* GEOGRAPHY only */
    /* STRUCT */
    size_t n_fields;
    const ice_field *fields;
    /* LIST */
    int32_t element_id;
    int element_required;
    const ice_type *element;
    /* MAP */
    int32_t key_id;
    const ice_type *key;
    int32_t value_id;
    int value_required;
    const ice_type *value;
};

typedef struct ice_schema {
    int32_t schema_id;
    const ice_type *root;          /* a STRUCT */
    size_t n_identifier_field_ids;
    const int32_t *identifier_field_ids;
} ice_schema;

typedef struct ice_partition_field {
    int32_t source_id;             /* source_ids[0] */
    size_t n_source_ids;           /* 1 unless a v3 multi-argument transform */
    const int32_t *source_ids;
    int32_t field_id;              /* v1 without field-id: 1000 + position */
    const char *name;
    const char *transform;         /* "identity", "bucket[16]", ... */
} ice_partition_field;

typedef struct ice_partition_spec {
    int32_t spec_id;
    size_t n_fields;
    const ice_partition_field *fields;
} ice_partition_spec;

typedef enum ice_sort_direction { ICE_SORT_ASC, ICE_SORT_DESC } ice_sort_direction;
typedef enum ice_null_order { ICE_NULLS_FIRST, ICE_NULLS_LAST } ice_null_order;

typedef struct ice_sort_field {
    int32_t source_id;
    size_t n_source_ids;
    const int32_t *source_ids;
    const char *transform;
    ice_sort_direction direction;
    ice_null_order null_order;
} ice_sort_field;

typedef struct ice_sort_order {
    int32_t order_id;              /* 0: unsorted */
    size_t n_fields;
    const ice_sort_field *fields;
} ice_sort_order;

typedef struct ice_snapshot {
    int64_t snapshot_id;
    int64_t parent_snapshot_id;    /* ICE_NO_SNAPSHOT when absent */
    int64_t sequence_number;       /* 0 in v1 */
    int64_t timestamp_ms;
    const char *manifest_list;     /* NULL for a v1 "manifests" snapshot */
    size_t n_manifests;            /* v1 "manifests" list */
    const char *const *manifests;
    const char *operation;         /* summary "operation"; NULL if none */
    size_t n_summary;              /* every summary entry, operation too */
    const ice_kv *summary;
    int has_schema_id;
    int32_t schema_id;
    int has_first_row_id;          /* v3 row lineage */
    int64_t first_row_id;
    int has_added_rows;
    int64_t added_rows;
} ice_snapshot;

typedef enum ice_ref_type { ICE_REF_BRANCH, ICE_REF_TAG } ice_ref_type;

/* A snapshot reference; the retention fields are -1 when absent. */
typedef struct ice_ref {
    const char *name;
    ice_ref_type type;
    int64_t snapshot_id;
    int32_t min_snapshots_to_keep;
    int64_t max_snapshot_age_ms;
    int64_t max_ref_age_ms;
    int implicit;    /* the "main" branch implied by current-snapshot-id */
} ice_ref;

typedef struct ice_snapshot_log_entry {
    int64_t timestamp_ms;
    int64_t snapshot_id;
} ice_snapshot_log_entry;

typedef struct ice_metadata_log_entry {
    int64_t timestamp_ms;
    const char *metadata_file;
} ice_metadata_log_entry;

typedef struct ice_blob_metadata {
    const char *type;
    int64_t snapshot_id;
    int64_t sequence_number;
    size_t n_fields;
    const int32_t *fields;
} ice_blob_metadata;

typedef struct ice_statistics_file {
    int64_t snapshot_id;
    const char *statistics_path;
    int64_t file_size_in_bytes;
    int64_t file_footer_size_in_bytes;   /* -1 for partition statistics */
    size_t n_blobs;
    const ice_blob_metadata *blobs;
} ice_statistics_file;

/*
 * The model. Read-only for users: change it with the setters. Arrays keep
 * the file's order.
 */
struct ice_metadata {
    int format_version;
    const char *table_uuid;        /* NULL only in a v1 file without one */
    const char *location;
    int64_t last_sequence_number;  /* 0 in v1 */
    int64_t last_updated_ms;
    int32_t last_column_id;

    size_t n_schemas;
    const ice_schema *schemas;
    int32_t current_schema_id;

    size_t n_specs;
    const ice_partition_spec *specs;
    int32_t default_spec_id;
    int32_t last_partition_id;

    size_t n_sort_orders;          /* v1 without sort-orders: the unsorted order */
    const ice_sort_order *sort_orders;
    int32_t default_sort_order_id;

    size_t n_properties;
    const ice_kv *properties;

    int64_t current_snapshot_id;   /* ICE_NO_SNAPSHOT when none */
    size_t n_snapshots;
    const ice_snapshot *snapshots;
    size_t n_snapshot_log;
    const ice_snapshot_log_entry *snapshot_log;
    size_t n_metadata_log;
    const ice_metadata_log_entry *metadata_log;
    /* Every ref; with an implicit "main" when the file has no main ref
     * and there is a current snapshot. */
    size_t n_refs;
    const ice_ref *refs;
    size_t n_statistics;
    const ice_statistics_file *statistics;
    size_t n_partition_statistics;
    const ice_statistics_file *partition_statistics;

    int has_next_row_id;           /* v3 */
    int64_t next_row_id;

    const char *source_uri;        /* as given to parse or load; may be "" */

    struct ice_metadata_int *internal;   /* document and arenas; private */
};

/*
 * Parses len bytes of metadata JSON. source_uri (may be NULL) names the
 * file in error messages and is kept in the model. Bytes that start with
 * the gzip magic are inflated first (at most ICE_METADATA_MAX_BYTES): a
 * truncated or corrupt stream is ZB_ECORRUPT.
 */
int ice_metadata_parse(ice_metadata **out, zb_ctx *ctx, const char *json,
                       size_t len, const char *source_uri);

/* Reads uri through io (at most ICE_METADATA_MAX_BYTES) and parses it; a
 * gzip name (ice_metadata_gzip_name) that holds no gzip is ZB_ECORRUPT. */
int ice_metadata_load(ice_metadata **out, zb_io *io, zb_ctx *ctx,
                      const char *uri);

/*
 * Appends the document, as JSON indented by two spaces with its keys in
 * their order, to out. A document written and parsed again is json-equal
 * to the one parsed (and with the setters' changes).
 */
int ice_metadata_write(zb_buf *out, const ice_metadata *m, zb_ctx *ctx);

void ice_metadata_free(ice_metadata *m);

/* ---- gzip-compressed metadata files (metadata_gzip.c) ----------------- */

/* The table property naming the codec of new metadata files: "gzip" or
 * "none" (absent: none), any case, as Iceberg Java reads it. */
#define ICE_PROP_METADATA_CODEC "write.metadata.compression-codec"

/* 1 when uri is a gzip metadata name (*.gz.metadata.json, or the older
 * *.metadata.json.gz): such a file holds gzip, any other plain JSON. */
int ice_metadata_gzip_name(const char *uri);

/* 1 when m's write.metadata.compression-codec is gzip. */
int ice_metadata_gzip_codec(const ice_metadata *m);

/* ice_metadata_write, gzip-compressed when uri is a gzip name: the bytes
 * of the file uri is to hold. */
int ice_metadata_write_file(zb_buf *out, const ice_metadata *m,
                            zb_ctx *ctx, const char *uri);

/*
 * Finds a table folder's newest metadata file: metadata/version-hint.text
 * when present and naming an existing file (a version N means
 * vN.metadata.json; a file name is taken as it is), else the highest
 * version among metadata/vN.metadata.json and metadata/NNNNN-<id>.metadata.json
 * (equal versions: the newest modification time, then the greater name).
 * Gzipped metadata (vN.gz.metadata.json, .metadata.json.gz) counts as
 * the same versions; a hint's version N is vN.metadata.json or
 * vN.gz.metadata.json, whichever exists. *uri_out is freed with zb_free.
 * ZB_ENOTFOUND when the folder has no metadata file.
 */
int ice_metadata_find_latest(char **uri_out, zb_io *io, zb_ctx *ctx,
                             const char *table_dir);

/*
 * Lookups: borrowed pointers, NULL when there is none. Linear or
 * logarithmic in the list sizes; no allocation.
 */
const ice_schema *ice_metadata_schema(const ice_metadata *m, int32_t schema_id);
const ice_schema *ice_metadata_current_schema(const ice_metadata *m);
/* A struct field at any depth (inside structs, lists and maps). List
 * elements and map keys and values are not struct fields: NULL for their
 * ids; ice_schema_find_type finds the type of any id. */
const ice_field *ice_schema_find_field(const ice_schema *s, int32_t field_id);
/* The type of any field id: struct field, list element, map key or value. */
const ice_type *ice_schema_find_type(const ice_schema *s, int32_t field_id);
const ice_partition_spec *ice_metadata_spec(const ice_metadata *m, int32_t spec_id);
const ice_partition_spec *ice_metadata_default_spec(const ice_metadata *m);
const ice_sort_order *ice_metadata_sort_order(const ice_metadata *m, int32_t order_id);
const ice_snapshot *ice_metadata_snapshot(const ice_metadata *m, int64_t snapshot_id);
const ice_snapshot *ice_metadata_current_snapshot(const ice_metadata *m);
const ice_ref *ice_metadata_ref(const ice_metadata *m, const char *name);
/* The value of a table property, or NULL. */
const char *ice_metadata_property(const ice_metadata *m, const char *key);

/*
 * The ancestry of snapshot_id, itself first, then its parent and so on
 * until a snapshot has no parent or its parent is no longer in the
 * metadata. Stores up to max pointers in out (out may be NULL when max is
 * 0) and returns the full length of the chain (0 if snapshot_id is
 * unknown). A chain never exceeds n_snapshots, even in a corrupt file
 * with a cycle.
 */
size_t ice_metadata_ancestors(const ice_snapshot **out, size_t max,
                              const ice_metadata *m, int64_t snapshot_id);

/*
 * Setters. Each edits the document, rebuilds the model, and on failure
 * leaves both unchanged. They do not touch last-updated-ms unless stated.
 */
int ice_metadata_set_property(ice_metadata *m, zb_ctx *ctx, const char *key,
                              const char *value);
/* Removing a property that is not there is ZB_OK. */
int ice_metadata_remove_property(ice_metadata *m, zb_ctx *ctx,
                                 const char *key);
int ice_metadata_set_last_updated_ms(ice_metadata *m, zb_ctx *ctx,
                                     int64_t timestamp_ms);

/*
 * Sets (creates or replaces) a ref. Retention fields < 0 are left out.
 * Setting "main" to a snapshot also sets current-snapshot-id and appends
 * to the snapshot log (timestamp: last-updated-ms). The snapshot must
 * exist: ZB_EINVAL otherwise. Removing "main" is ZB_EINVAL.
 */
int ice_metadata_set_ref(ice_metadata *m, zb_ctx *ctx, const ice_ref *ref);
int ice_metadata_remove_ref(ice_metadata *m, zb_ctx *ctx, const char *name);

/*
 * Appends one entry to metadata-log (the previous metadata file and its
 * last-updated-ms), then drops the oldest entries beyond max_entries (the
 * table property write.metadata.previous-versions-max; 0: keep all).
 */
int ice_metadata_append_metadata_log(ice_metadata *m, zb_ctx *ctx,
                                     const char *metadata_file,
                                     int64_t timestamp_ms, size_t max_entries);

/* A snapshot to add with ice_metadata_add_snapshot. */
typedef struct ice_snapshot_new {
    int64_t snapshot_id;           /* > 0, not in the table */
    int64_t parent_snapshot_id;    /* ICE_NO_SNAPSHOT for none */
    int64_t sequence_number;       /* v2+: above last-sequence-number */
    int64_t timestamp_ms;
    const char *manifest_list;
    const char *operation;         /* "append", "replace", ... */
    size_t n_summary;              /* further summary entries */
    const ice_kv *summary;
    int32_t schema_id;             /* < 0: the current schema */
    int64_t first_row_id;          /* v3: >= next-row-id; < 0: next-row-id */
    int64_t added_rows;            /* v3: added to next-row-id */
    const char *branch;            /* NULL: "main" */
} ice_snapshot_new;

/*
 * Adds a snapshot as a commit does: appends it to "snapshots" (fields in
 * the order Iceberg Java writes), sets last-sequence-number (v2+),
 * last-updated-ms (to its timestamp), next-row-id (v3: first-row-id +
 * added-rows), and points the branch at it; for "main" that also sets
 * current-snapshot-id and appends the snapshot log. ZB_EINVAL for an id
 * already present, a sequence number not above last-sequence-number, or a
 * first-row-id below next-row-id.
 */
int ice_metadata_add_snapshot(ice_metadata *m, zb_ctx *ctx,
                              const ice_snapshot_new *s);

#endif

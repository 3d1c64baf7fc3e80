/*
 * table/manifest/manifest.h - Iceberg manifest lists and manifests
 * (format/spec.md "Manifests", "Manifest Entry Fields", "Data File Fields",
 * "Manifest Lists", "Sequence Number Inheritance", "First Row ID Inheritance")
 * for format versions 1, 2 and 3: read as streams, and written with the spec's
 * Avro schemas and field ids.
 *
 *     ice_path_remap remaps[] = { { "/old/location", "/new/folder" } };
 *     ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;
 *     o.remaps = remaps; o.n_remaps = 1;
 *     ice_snapshot_iter *it = NULL;
 *     const ice_manifest_entry *e;
 *     const ice_manifest_file *mf;
 *     if ((rc = ice_snapshot_iter_open(&it, io, ctx, meta, snap, &o)) < 0) ...
 *     while ((rc = ice_snapshot_iter_next(it, ctx, &e, &mf)) > 0)
 *         use(e->data_file.file_path, mf->manifest_path);
 *     ice_snapshot_iter_free(it);
 *
 * Reading. Fields are found in each file's own Avro schema by their
 * Iceberg field ids (never by name: Iceberg Java's v1 manifest lists call
 * field 504 "added_data_files_count"). A required field that is missing,
 * or a field known by name but without a field-id, is ZB_ECORRUPT naming
 * the file and the field. Fields this reader does not know are counted in
 * ice_manifest_reader_unknown() so that callers (the interop test) can
 * refuse to pass silently over them.
 *
 * Inheritance is applied when a manifest is read with its manifest-list
 * entry (ice_manifest_file) as context:
 *   - snapshot_id: null inherits the entry's added_snapshot_id;
 *   - sequence_number, file_sequence_number: null inherits the manifest's
 *     sequence_number when the status is ADDED (or the manifest's number
 *     is 0, as for v1 manifests carried into a v2 table); null on an
 *     EXISTING or DELETED entry is ZB_ECORRUPT; a manifest without the
 *     columns (v1) reads 0;
 *   - first_row_id (v3): a data file with a null first_row_id gets the
 *     manifest's first_row_id plus the record counts of the data files
 *     before it in the manifest whose first_row_id was also null; delete
 *     files never inherit one; a manifest without first_row_id leaves it
 *     null.
 * The ICE_ENTRY_*_EXPLICIT bits say which values the file itself held, so
 * that a rewrite can keep inherited values null or write them out.
 *
 * Paths. Every path read (manifest lists, manifests) goes through the
 * remap list and then the resolve callback of ice_manifest_opts: a table
 * copied to another folder still names its old location in metadata.
 *
 * Lifetimes: entries and manifest-list entries returned by a reader are
 * valid until the next call on that reader (they live in its arena and in
 * the Avro reader's block). Copy what you keep.
 *
 * Codes: ZB_ECORRUPT (malformed file, missing field, bad inheritance),
 * ZB_ENOMEM, ZB_EINVAL (a writer given values that break the schema),
 * ZB_EUNSUPPORTED (format version, partition source type), and the FileIO
 * codes.
 */
#ifndef ZB_TABLE_MANIFEST_H
#define ZB_TABLE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "format/avro/avro.h"
#include "table/value/ice_value.h"
#include "table/metadata/metadata.h"
#include "util/arena.h"
#include "util/buf.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

/* Entry status (field 0). */
typedef enum ice_entry_status {
    ICE_STATUS_EXISTING = 0,
    ICE_STATUS_ADDED = 1,
    ICE_STATUS_DELETED = 2
} ice_entry_status;

/* data_file.content (field 134); all v1 files are data files. */
typedef enum ice_file_content {
    ICE_CONTENT_DATA = 0,
    ICE_CONTENT_POSITION_DELETES = 1,
    ICE_CONTENT_EQUALITY_DELETES = 2
} ice_file_content;

/* manifest_file.content (field 517): 0 for all v1 manifests. */
typedef enum ice_manifest_content {
    ICE_MANIFEST_DATA = 0,
    ICE_MANIFEST_DELETES = 1
} ice_manifest_content;

/* A value that is null in the file and was not inherited. */
#define ICE_NULL_LONG INT64_MIN

/* --- the model ------------------------------------------------------- */

/* One partition field's summary in a manifest-list entry (field 508). */
typedef struct ice_field_summary {
    int contains_null;             /* 509 */
    int contains_nan;              /* 518: 0, 1, or -1 when null */
    const uint8_t *lower_bound;    /* 510: NULL when null */
    size_t lower_bound_len;
    const uint8_t *upper_bound;    /* 511 */
    size_t upper_bound_len;
} ice_field_summary;

/* A manifest-list entry (manifest_file). Counts are -1 when null (v1). */
typedef struct ice_manifest_file {
    const char *manifest_path;     /* 500, as written (not remapped) */
    int64_t manifest_length;       /* 501 */
    int32_t partition_spec_id;     /* 502 */
    ice_manifest_content content;  /* 517; 0 in v1 */
    int64_t sequence_number;       /* 515; 0 in v1 */
    int64_t min_sequence_number;   /* 516; 0 in v1 */
    int64_t added_snapshot_id;     /* 503; ICE_NULL_LONG when null (v1) */
    int64_t added_files_count;     /* 504 */
    int64_t existing_files_count;  /* 505 */
    int64_t deleted_files_count;   /* 506 */
    int64_t added_rows_count;      /* 512 */
    int64_t existing_rows_count;   /* 513 */
    int64_t deleted_rows_count;    /* 514 */
    int has_partitions;            /* 507 present (may hold 0 summaries) */
    size_t n_partitions;
    const ice_field_summary *partitions;
    const uint8_t *key_metadata;   /* 519; NULL when null */
    size_t key_metadata_len;
    int64_t first_row_id;          /* 520; ICE_NULL_LONG when null */
} ice_manifest_file;

/* One entry of an int -> long metrics map. */
typedef struct ice_metric_long {
    int32_t field_id;
    int64_t value;
} ice_metric_long;

/* One entry of an int -> binary metrics map (bounds: Appendix D bytes). */
typedef struct ice_metric_bytes {
    int32_t field_id;
    const uint8_t *ptr;
    size_t len;
} ice_metric_bytes;

/* A map that may be null (has == 0) or present with n entries. */
typedef struct ice_long_map {
    int has;
    size_t n;
    const ice_metric_long *items;
} ice_long_map;

typedef struct ice_bytes_map {
    int has;
    size_t n;
    const ice_metric_bytes *items;
} ice_bytes_map;

typedef struct ice_data_file {
    ice_file_content content;      /* 134 */
    const char *file_path;         /* 100 */
    const char *file_format;       /* 101, as written ("PARQUET", "puffin") */
    /* 102: one value per partition field, in the manifest's partition
     * struct order; types from the Avro schema (logical types included). */
    size_t n_partition;
    const ice_value *partition;
    const char *const *partition_names;   /* the struct's field names */
    const int32_t *partition_field_ids;   /* their field ids */
    int64_t record_count;          /* 103 */
    int64_t file_size_in_bytes;    /* 104 */
    int64_t block_size_in_bytes;   /* 105, v1; ICE_NULL_LONG when absent */
    ice_long_map column_sizes;     /* 108 */
    ice_long_map value_counts;     /* 109 */
    ice_long_map null_value_counts;/* 110 */
    ice_long_map nan_value_counts; /* 137 */
    ice_bytes_map lower_bounds;    /* 125 */
    ice_bytes_map upper_bounds;    /* 128 */
    const uint8_t *key_metadata;   /* 131; NULL when null */
    size_t key_metadata_len;
    int has_split_offsets;         /* 132 */
    size_t n_split_offsets;
    const int64_t *split_offsets;
    int has_equality_ids;          /* 135 */
    size_t n_equality_ids;
    const int32_t *equality_ids;
    int has_sort_order_id;         /* 140 */
    int32_t sort_order_id;
    int64_t first_row_id;          /* 142 (after inheritance) or ICE_NULL_LONG */
    const char *referenced_data_file; /* 143; NULL when null */
    int64_t content_offset;        /* 144; ICE_NULL_LONG when null */
    int64_t content_size_in_bytes; /* 145; ICE_NULL_LONG when null */
} ice_data_file;

/*
 * Whether a delete file is a deletion vector: a position delete file
 * whose file_format is "puffin" in any case (Java writes "PUFFIN").
 * format/spec.md "Deletion Vectors" tracks DVs as position deletes with
 * file_format puffin; content_offset alone does not make one (the spec
 * only requires it, with content_size_in_bytes, of DVs).
 */
int ice_data_file_is_dv(const ice_data_file *f);

/*
 * The bytes a file takes in the table: a deletion vector its blob
 * (content_size_in_bytes, when set: one Puffin file holds many DVs),
 * any other file its file_size_in_bytes.
 */
int64_t ice_data_file_stored_bytes(const ice_data_file *f);

/* Which values the file held, rather than inherited. */
#define ICE_ENTRY_SNAPSHOT_ID_EXPLICIT   0x1u
#define ICE_ENTRY_SEQ_EXPLICIT           0x2u
#define ICE_ENTRY_FILE_SEQ_EXPLICIT      0x4u
#define ICE_ENTRY_FIRST_ROW_ID_EXPLICIT  0x8u

typedef struct ice_manifest_entry {
    ice_entry_status status;       /* 0 */
    int64_t snapshot_id;           /* 1; ICE_NULL_LONG if null, no context */
    int64_t sequence_number;       /* 3; data sequence number */
    int64_t file_sequence_number;  /* 4 */
    unsigned explicit_mask;        /* ICE_ENTRY_*_EXPLICIT */
    ice_data_file data_file;       /* 2 */
} ice_manifest_entry;

/* --- options: path resolution ---------------------------------------- */

/* A path starting with from (at a '/' boundary) is rewritten to to. */
typedef struct ice_path_remap {
    const char *from;
    const char *to;
} ice_path_remap;

/*
 * Resolves a path read from metadata into the URI to open: appends it to
 * out (already holding the remapped path, which it may replace after
 * zb_buf_clear). ZB_OK or a negative rc with the message in ctx.
 */
typedef int (*ice_path_resolve_cb)(zb_buf *out, zb_ctx *ctx, const char *path,
                                   void *payload);

typedef struct ice_manifest_opts {
    unsigned version;
    const ice_path_remap *remaps;  /* first match wins */
    size_t n_remaps;
    ice_path_resolve_cb resolve;   /* after the remaps; may be NULL */
    void *resolve_payload;
    zb_avro_reader_opts avro;      /* caps of the Avro reader */
} ice_manifest_opts;

#define ICE_MANIFEST_OPTS_VERSION 1
#define ICE_MANIFEST_OPTS_INIT \
    { ICE_MANIFEST_OPTS_VERSION, NULL, 0, NULL, NULL, \
      ZB_AVRO_READER_OPTS_INIT }

/*
 * The URI to open for a path found in metadata: remaps, then the
 * callback. Appends to out (cleared first). opts may be NULL.
 */
int ice_manifest_resolve_path(zb_buf *out, zb_ctx *ctx,
                              const ice_manifest_opts *opts, const char *path);

/* --- reading a manifest list ------------------------------------------ */

typedef struct ice_manifest_list_reader ice_manifest_list_reader;

/*
 * Opens a manifest list. format_version is the table's (1, 2 or 3);
 * fields the version lacks read as the spec says (v1: content 0,
 * sequence numbers 0). opts may be NULL. path is resolved through opts.
 */
int ice_manifest_list_open(ice_manifest_list_reader **out, zb_io *io,
                           zb_ctx *ctx, const char *path, int format_version,
                           const ice_manifest_opts *opts);

/* 1 with *out (valid until the next call), 0 at the end, or an rc. */
int ice_manifest_list_next(ice_manifest_list_reader *r, zb_ctx *ctx,
                           const ice_manifest_file **out);

void ice_manifest_list_free(ice_manifest_list_reader *r);

/* --- reading a manifest ----------------------------------------------- */

typedef struct ice_manifest_reader ice_manifest_reader;

/*
 * Opens the manifest that mf names (mf->manifest_path, resolved through
 * opts) and applies inheritance from mf. mf is copied. With mf NULL,
 * path names the file and nothing is inherited (nulls stay
 * ICE_NULL_LONG, except v1's absent sequence numbers, which read 0).
 */
int ice_manifest_open(ice_manifest_reader **out, zb_io *io, zb_ctx *ctx,
                      const ice_manifest_file *mf, const char *path,
                      int format_version, const ice_manifest_opts *opts);

/* 1 with *out (valid until the next call), 0 at the end, or an rc. */
int ice_manifest_next(ice_manifest_reader *r, zb_ctx *ctx,
                      const ice_manifest_entry **out);

/* The Avro key-value metadata value of key ("partition-spec-id"), or NULL. */
const char *ice_manifest_reader_meta(const ice_manifest_reader *r,
                                     const char *key);

/*
 * Fields of the file's manifest_entry and data_file records this reader
 * does not interpret (a v4 content_stats, say): how many, and the name of
 * the i-th. The deprecated v1 fields 106, 107 and 111 are read past and
 * counted here too.
 */
size_t ice_manifest_reader_unknown(const ice_manifest_reader *r);
const char *ice_manifest_reader_unknown_name(const ice_manifest_reader *r,
                                             size_t i);

/* The URI actually opened (after remapping). */
const char *ice_manifest_reader_uri(const ice_manifest_reader *r);

void ice_manifest_free(ice_manifest_reader *r);

/* --- the live entries of a snapshot ------------------------------------ */

typedef struct ice_snapshot_iter ice_snapshot_iter;

/*
 * Walks snap's manifest list (or, for a v1 snapshot with "manifests",
 * that list) and each manifest in turn, yielding the entries whose status
 * is not DELETED. One manifest is open at a time. meta and snap must
 * outlive the iterator; opts is copied (its strings must outlive it).
 */
int ice_snapshot_iter_open(ice_snapshot_iter **out, zb_io *io, zb_ctx *ctx,
                           const ice_metadata *meta, const ice_snapshot *snap,
                           const ice_manifest_opts *opts);

/*
 * Which manifests the walk reads: keep returns 1 to read mf, 0 to pass
 * over it unopened, or an rc that ends the walk with it. Without one
 * (the default) every manifest is read. Set it before the first next.
 */
typedef int (*ice_manifest_keep_cb)(const ice_manifest_file *mf,
                                    zb_ctx *ctx, void *payload);
void ice_snapshot_iter_filter(ice_snapshot_iter *it,
                              ice_manifest_keep_cb keep, void *payload);

/*
 * 1 with the entry and its manifest-list entry (both valid until the next
 * call), 0 at the end, or an rc (the message names the manifest).
 * ZB_ECANCELED when ctx is stopped.
 */
int ice_snapshot_iter_next(ice_snapshot_iter *it, zb_ctx *ctx,
                           const ice_manifest_entry **entry,
                           const ice_manifest_file **manifest);

/*
 * What a snapshot holds, counted in one walk of its live entries: the
 * figures describe, `maintenance --status` and a run's health before and
 * after report. Bytes are ice_data_file_stored_bytes (a deletion vector
 * counts its blob); data file sizes are also binned as
 * <1 MiB, 1-16, 16-64, 64-128 MiB and larger, and counted below
 * small_below_bytes (0: none counted).
 */
typedef struct ice_live_counts {
    uint64_t data_files, data_bytes, data_rows;
    uint64_t small_data_files;
    uint64_t size_bins[5];
    uint64_t position_deletes, equality_deletes, deletion_vectors;
    uint64_t delete_files, delete_bytes;
} ice_live_counts;

/* Counts snap's live entries into *out (zeroed first; a NULL snap is an
 * empty table). */
int ice_snapshot_live_counts(ice_live_counts *out, zb_io *io, zb_ctx *ctx,
                             const ice_metadata *meta,
                             const ice_snapshot *snap,
                             const ice_manifest_opts *opts,
                             int64_t small_below_bytes);

/* Unknown fields seen so far in any manifest (see above). */
size_t ice_snapshot_iter_unknown(const ice_snapshot_iter *it);
const char *ice_snapshot_iter_unknown_name(const ice_snapshot_iter *it,
                                           size_t i);

void ice_snapshot_iter_free(ice_snapshot_iter *it);

/* --- writing ----------------------------------------------------------- */

typedef struct ice_manifest_writer ice_manifest_writer;

typedef struct ice_manifest_writer_opts {
    unsigned version;
    int format_version;            /* 1, 2 or 3 */
    ice_manifest_content content;  /* data or deletes (v2+) */
    const ice_schema *schema;      /* the table schema */
    const ice_partition_spec *spec;
    /* The snapshot that commits the manifest: its id and sequence number
     * fill the manifest-list entry (added_snapshot_id, sequence_number,
     * and min_sequence_number for entries whose number is inherited). */
    int64_t snapshot_id;
    int64_t sequence_number;
    zb_avro_codec codec;
} ice_manifest_writer_opts;

#define ICE_MANIFEST_WRITER_OPTS_VERSION 1
#define ICE_MANIFEST_WRITER_OPTS_INIT \
    { ICE_MANIFEST_WRITER_OPTS_VERSION, 2, ICE_MANIFEST_DATA, NULL, NULL, \
      0, 0, ZB_AVRO_CODEC_NULL }

/*
 * Starts a manifest at uri (written through io as given, no remapping).
 * The Avro schema is the spec's for the version, with the partition
 * struct derived from the spec's transforms and the schema's source
 * types; the file metadata holds schema, schema-id, partition-spec,
 * partition-spec-id, format-version and (v2+) content.
 */
int ice_manifest_writer_open(ice_manifest_writer **out, zb_io *io,
                             zb_ctx *ctx, const char *uri,
                             const ice_manifest_writer_opts *opts);

/*
 * Appends an entry. Values are written as given: a value whose
 * ICE_ENTRY_*_EXPLICIT bit is clear is written as null (to be inherited),
 * as is any ICE_NULL_LONG. v1 requires snapshot_id and writes
 * block_size_in_bytes (given, or 64 MiB). Partition values must match the
 * partition types (nulls allowed); ZB_EINVAL otherwise. Fields a version
 * lacks (content in v1, DV fields before v3) must be unset/0.
 */
int ice_manifest_writer_add(ice_manifest_writer *w, zb_ctx *ctx,
                            const ice_manifest_entry *e);

/*
 * Finishes the file and fills *out, the manifest-list entry for it
 * (counts, partition summaries, length; first_row_id ICE_NULL_LONG),
 * its strings and bounds allocated in arena. Frees the writer whatever
 * the outcome. out may be NULL.
 */
int ice_manifest_writer_commit(ice_manifest_writer *w, zb_ctx *ctx,
                               ice_manifest_file *out, zb_arena *arena);

void ice_manifest_writer_abort(ice_manifest_writer *w);

typedef struct ice_manifest_list_writer ice_manifest_list_writer;

typedef struct ice_manifest_list_writer_opts {
    unsigned version;
    int format_version;
    int64_t snapshot_id;
    int64_t parent_snapshot_id;    /* ICE_NO_SNAPSHOT for none */
    int64_t sequence_number;       /* v2+ */
    int64_t first_row_id;          /* v3: the snapshot's first-row-id */
    zb_avro_codec codec;
} ice_manifest_list_writer_opts;

#define ICE_MANIFEST_LIST_WRITER_OPTS_VERSION 1
#define ICE_MANIFEST_LIST_WRITER_OPTS_INIT \
    { ICE_MANIFEST_LIST_WRITER_OPTS_VERSION, 2, 0, ICE_NO_SNAPSHOT, 0, 0, \
      ZB_AVRO_CODEC_NULL }

/*
 * Starts a manifest list. Metadata: snapshot-id, parent-snapshot-id,
 * sequence-number, format-version (and first-row-id in v3).
 */
int ice_manifest_list_writer_open(ice_manifest_list_writer **out, zb_io *io,
                                  zb_ctx *ctx, const char *uri,
                                  const ice_manifest_list_writer_opts *opts);

/*
 * Appends a manifest. v3: a data manifest whose first_row_id is null is
 * assigned one (the spec's "First Row ID Assignment": the running next
 * row id, advanced by its added and existing row counts).
 */
int ice_manifest_list_writer_add(ice_manifest_list_writer *w, zb_ctx *ctx,
                                 const ice_manifest_file *mf);

/* The v3 next row id after the manifests added so far. */
int64_t ice_manifest_list_writer_next_row_id(
    const ice_manifest_list_writer *w);

/* Finishes the file; frees the writer whatever the outcome. */
int ice_manifest_list_writer_commit(ice_manifest_list_writer *w,
                                    zb_ctx *ctx);
void ice_manifest_list_writer_abort(ice_manifest_list_writer *w);

/* --- schema text ------------------------------------------------------- */

/*
 * The Avro schema JSON of a manifest for the version and partition
 * struct (types: ice_transform_result_type of each field's source), and
 * of a manifest list. Appended to out.
 */
int ice_manifest_avro_schema(zb_buf *out, zb_ctx *ctx, int format_version,
                             const ice_schema *schema,
                             const ice_partition_spec *spec);
int ice_manifest_list_avro_schema(zb_buf *out, int format_version);

/* The Iceberg schema and the partition fields as JSON (Appendix C). */
int ice_schema_to_json(zb_buf *out, zb_ctx *ctx, const ice_schema *schema);
int ice_partition_fields_to_json(zb_buf *out, const ice_partition_spec *spec);

#endif

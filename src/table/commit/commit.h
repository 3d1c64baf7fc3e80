/*
 * table/commit/commit.h - table changes in the REST catalog's language
 * (apache/iceberg open-api/rest-catalog-open-api.yaml: TableRequirement,
 * TableUpdate): build them, check them, apply them; create new table
 * metadata; name new metadata files; produce snapshots (append, replace,
 * delete, overwrite) that write their manifests and manifest list.
 *
 * A commit is two JSON arrays: requirements (TableRequirement objects,
 * "type": "assert-...") and updates (TableUpdate objects, "action":
 * "add-snapshot", ...). The REST catalog sends them as they are; the SQL
 * and folder catalogs run, against the metadata they hold:
 *
 *     if ((rc = ice_commit_check_requirements(cur, ctx, reqs)) < 0)
 *         return rc;                              // ZB_ECONFLICT: retry
 *     if ((rc = ice_commit_apply_next(&next, cur, ctx, updates, old_uri,
 *                                     old_ms, max)) < 0)
 *         return rc;                              // cur unchanged
 *     ice_commit_next_metadata_uri(&uri, ctx, next, root, old_uri, style);
 *     ... write next to uri (never overwriting), swap the pointer ...
 *     ice_commit_metadata_to_prune(&old, &n, ctx, base, next);  // delete
 *
 * A writer builds the updates with a snapshot producer:
 *
 *     ice_commit_op *op = NULL;
 *     ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
 *     o.kind = ICE_OP_REPLACE; o.io = io; o.root = t->root;
 *     o.paths = &t->paths;
 *     ice_commit_op_new(&op, ctx, &o);
 *     ice_commit_op_remove_file(op, ctx, "s3://b/t/data/old-1.parquet");
 *     ice_commit_op_add_file(op, ctx, -1, &new_data_file);
 *     for (attempt = 1;; attempt++) {
 *         ice_commit_result r = ICE_COMMIT_RESULT_INIT;
 *         rc = ice_commit_op_build(op, ctx, t->meta, &r);  // writes files
 *         if (rc == ZB_OK)
 *             rc = zb_catalog_commit(cat, ctx, t, r.requirements,
 *                                    r.updates, &t2);
 *         if (rc == ZB_ECONFLICT && ice_commit_conflict_retryable(ctx))
 *             { ice_commit_result_delete_files(&r, io, ctx); reload t;
 *               continue; }                        // re-validates
 *         if (rc != ZB_OK && rc != ZB_ETIMEOUT)
 *             ice_commit_result_delete_files(&r, io, ctx);
 *         ice_commit_result_free(&r);             // ZB_ETIMEOUT: keep all
 *         break;
 *     }
 *     ice_commit_op_free(op);
 *
 * Conflicts. Two kinds of ZB_ECONFLICT come from this module:
 *   - a requirement that fails (ice_commit_check_requirements): another
 *     writer moved the table; reload and build again (retryable);
 *   - a validation that fails (ice_commit_op_build): a file the operation
 *     removes is no longer live in the base (another writer removed or
 *     rewrote it). Retrying cannot help: the operation must be planned
 *     again. Its zb_err has module "commit-validate".
 * ice_commit_conflict_retryable(ctx) tells them apart (1: retry).
 *
 * Codes: ZB_ECONFLICT (above), ZB_EUNSUPPORTED (an update action or a
 * requirement type this module does not know, named; a format version
 * above 3), ZB_EINVAL (a malformed update or requirement, named with its
 * index; an update that breaks the metadata, as a current schema removed),
 * ZB_ENOMEM, ZB_ECORRUPT (an existing manifest that does not read), and
 * the FileIO codes.
 */
#ifndef ZB_TABLE_COMMIT_H
#define ZB_TABLE_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "util/json.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

/* zb_err.module of a validation conflict (not retryable). */
#define ICE_COMMIT_VALIDATE_MODULE "commit-validate"

/* Table property names and defaults (Iceberg TableProperties). */
#define ICE_PROP_METADATA_PATH "write.metadata.path"
#define ICE_PROP_DATA_PATH "write.data.path"
#define ICE_PROP_DELETE_AFTER_COMMIT "write.metadata.delete-after-commit.enabled"
#define ICE_PROP_PREVIOUS_VERSIONS_MAX "write.metadata.previous-versions-max"
#define ICE_PREVIOUS_VERSIONS_MAX_DEFAULT 100
#define ICE_PROP_MANIFEST_TARGET "commit.manifest.target-size-bytes"
#define ICE_MANIFEST_TARGET_DEFAULT ((int64_t)8 << 20)

/* ---- requirements and updates ----------------------------------------- */

/*
 * Checks every requirement of the JSON array against m (NULL: the table
 * does not exist; then only "assert-create" holds). ZB_OK, or
 * ZB_ECONFLICT naming the first failed requirement and both values
 * ("assert-ref-snapshot-id main: expected 12, table has 13"). Types:
 * assert-create, assert-table-uuid, assert-ref-snapshot-id (snapshot-id
 * null: the ref must not exist), assert-last-assigned-field-id,
 * assert-current-schema-id, assert-last-assigned-partition-id,
 * assert-default-spec-id, assert-default-sort-order-id. An unknown type
 * is ZB_EUNSUPPORTED, a malformed one ZB_EINVAL.
 */
int ice_commit_check_requirements(const ice_metadata *m, zb_ctx *ctx,
                                  const zb_json *requirements);

/*
 * Applies a JSON array of TableUpdate objects to m, in order, as one
 * transaction: on any failure m is unchanged (document and model). The
 * result is rebuilt and checked as a metadata file is when loaded.
 * Actions, with Iceberg Java's TableMetadata.Builder semantics:
 *   assign-uuid, upgrade-format-version (fills the fields the new version
 *   requires; never downgrades), add-schema (an equal schema's id is
 *   reused, otherwise the highest id + 1; raises last-column-id),
 *   set-current-schema (-1: the schema added last in this list),
 *   add-spec (reuse or highest + 1; fields without field-id get
 *   last-partition-id + 1...), set-default-spec (-1: last added),
 *   add-sort-order (unsorted is 0; reuse or highest + 1),
 *   set-default-sort-order (-1: last added), add-snapshot (sequence
 *   number above last-sequence-number unless v1 or no parent; v3:
 *   first-row-id >= next-row-id, next-row-id += added-rows),
 *   set-snapshot-ref (the snapshot must exist; "main" moves
 *   current-snapshot-id and appends the snapshot log), remove-snapshots
 *   (also drops the refs and statistics of removed snapshots and the
 *   snapshot-log entries up to the last removed one), remove-snapshot-ref
 *   ("main": no current snapshot), set-location, set-properties,
 *   remove-properties, set-statistics, remove-statistics,
 *   set-partition-statistics, remove-partition-statistics,
 *   remove-partition-specs (not the default spec), remove-schemas (not
 *   the current schema), add-encryption-key, remove-encryption-key.
 * last-updated-ms becomes the timestamp of the last snapshot added, or
 * the clock when none was. An unknown action (and the view actions) is
 * ZB_EUNSUPPORTED naming it; a malformed update ZB_EINVAL naming its
 * index and action.
 */
int ice_commit_apply_updates(ice_metadata *m, zb_ctx *ctx,
                             const zb_json *updates);

/*
 * A catalog's next metadata in one transaction: base with updates
 * applied as above and prev_file (base's own file, written at prev_ms)
 * appended to the metadata log, which keeps its newest max_log entries
 * (0: all). base is left as it is; the result is a new model in *out.
 */
int ice_commit_apply_next(ice_metadata **out, const ice_metadata *base,
                          zb_ctx *ctx, const zb_json *updates,
                          const char *prev_file, int64_t prev_ms,
                          size_t max_log);

/* ---- update builders (each returns a new JSON object, or NULL: oom) --- */

zb_json *ice_update_set_properties(const ice_kv *kv, size_t n);
zb_json *ice_update_remove_properties(const char *const *keys, size_t n);
/* order: a SortOrder JSON object (copied); add-sort-order then
 * set-default-sort-order -1 are appended to the updates array. */
int ice_update_set_sort_order(zb_json *updates, zb_ctx *ctx,
                              const zb_json *order);
/* A set-snapshot-ref for ref (retention fields < 0 left out). */
zb_json *ice_update_set_ref(const ice_ref *ref);
zb_json *ice_update_remove_ref(const char *name);
zb_json *ice_update_remove_snapshots(const int64_t *ids, size_t n);
/* Requirements. */
zb_json *ice_requirement_table_uuid(const char *uuid);
/* snapshot_id ICE_NO_SNAPSHOT: null (the ref must not exist). */
zb_json *ice_requirement_ref_snapshot_id(const char *ref, int64_t snapshot_id);
/* Appends v to arr, taking v (NULL v: oom). ZB_OK or ZB_ENOMEM. */
int ice_commit_append(zb_json *arr, zb_ctx *ctx, zb_json *v);

/* ---- new tables and metadata files ------------------------------------- */

/*
 * New table metadata, as Iceberg Java's newTableMetadata builds it:
 * fresh field ids for the schema (1, 2, ... breadth-first per struct, as
 * AssignFreshIds does), schema id 0; the spec (PartitionSpec JSON, may be
 * NULL: unpartitioned) with source ids moved to the fresh ids, spec id
 * 0, field ids from 1000; the sort order (NULL: unsorted) with order id
 * 1 (0 if it has no fields); a random table-uuid; location as given (no
 * trailing '/'); properties (may be NULL; "format-version" among them is
 * taken as the version when format_version is 0; it and Java's other
 * reserved keys, "uuid", "snapshot-count", "current-*", "default-*", are
 * not stored; write.parquet.compression-codec is zstd unless given, as
 * Java sets for new tables); format_version 0: 2. Source ids in spec and
 * order refer to the given schema's ids. ZB_EINVAL for a malformed
 * schema, a duplicate id, or a source id not in the schema.
 */
int ice_metadata_create(ice_metadata **out, zb_ctx *ctx,
                        const zb_json *schema, const zb_json *spec,
                        const zb_json *sort_order, const char *location,
                        const ice_kv *properties, size_t n_properties,
                        int format_version);

typedef enum ice_metadata_naming {
    ICE_NAMING_SEQUENTIAL, /* <dir>/<NNNNN>-<uuid>.metadata.json (SQL, REST) */
    ICE_NAMING_HADOOP      /* <dir>/v<N>.metadata.json (table folders) */
} ice_metadata_naming;

/*
 * The metadata directory of a table: write.metadata.path (no trailing
 * '/'), else <root>/metadata; root NULL: m->location. *out: zb_free.
 */
int ice_commit_metadata_dir(char **out, zb_ctx *ctx, const ice_metadata *m,
                            const char *root);
/* The same with write.metadata.path resolved through paths (a table's
 * t->paths), so that a moved or copied table writes under its new
 * location, not the one its properties still name. paths NULL: as above. */
int ice_commit_metadata_dir_paths(char **out, zb_ctx *ctx,
                                  const ice_metadata *m, const char *root,
                                  const ice_manifest_opts *paths);

/*
 * The URI of the next metadata file: the version parsed from current
 * (the file name's leading number, or v<N>; NULL or unparsable: none) +
 * 1; a new table starts at 00000 (sequential) or v1 (Hadoop). With
 * write.metadata.compression-codec=gzip in m the name ends in
 * .gz.metadata.json, as Java names it (write it with
 * ice_metadata_write_file). *out: zb_free.
 */
int ice_commit_next_metadata_uri(char **out, zb_ctx *ctx,
                                 const ice_metadata *m, const char *root,
                                 const char *current,
                                 ice_metadata_naming naming);
/* The same in ice_commit_metadata_dir_paths's folder. */
int ice_commit_next_metadata_uri_paths(char **out, zb_ctx *ctx,
                                       const ice_metadata *m,
                                       const char *root,
                                       const ice_manifest_opts *paths,
                                       const char *current,
                                       ice_metadata_naming naming);

/* The version number in a metadata file name, or -1. */
int64_t ice_commit_metadata_version(const char *uri);

/*
 * The metadata files to delete after committed replaced base: when
 * committed has write.metadata.delete-after-commit.enabled=true, the
 * entries of base's metadata-log that committed's no longer lists
 * (Iceberg Java's deleteRemovedMetadataFiles). *out (zb_free the array
 * and each string) may be NULL with *n 0.
 */
int ice_commit_metadata_to_prune(char ***out, size_t *n, zb_ctx *ctx,
                                 const ice_metadata *base,
                                 const ice_metadata *committed);

/* A random UUID v4, lowercase, into out[37]. */
void ice_commit_uuid(char out[37]);

/* ---- the snapshot producer --------------------------------------------- */

/*
 * The operation, and the summary "operation" it writes (format/spec.md
 * "Snapshots"). APPEND writes "append" for data files alone; with delete
 * files it is a row-level delete, "delete" (deletes alone) or
 * "overwrite" (data and deletes), as Iceberg Java's RowDelta says.
 * Appends never merge existing manifests (Java's FastAppend; merging is
 * the rewrite-manifests operation's job). The manifests a REPLACE, DELETE
 * or OVERWRITE rewrites to mark removed files are merged: their entries go
 * into one new manifest per content and spec, rolled at the target size.
 */
typedef enum ice_commit_op_kind {
    ICE_OP_APPEND,    /* add data and delete files; removes nothing */
    ICE_OP_REPLACE,   /* rewrite: remove and add data/delete files;
                         the records stay the same ("replace") */
    ICE_OP_DELETE,    /* remove files only ("delete"), such as
                         dangling delete files */
    ICE_OP_OVERWRITE  /* remove and add, records change ("overwrite") */
} ice_commit_op_kind;

typedef struct ice_commit_op ice_commit_op;

typedef struct ice_commit_op_opts {
    unsigned version;
    ice_commit_op_kind kind;
    zb_io *io;                      /* borrowed; reads and writes */
    /* Where new files go: <root>/metadata unless write.metadata.path.
     * NULL: the base's location. Borrowed. */
    const char *root;
    /* Path resolution for manifests read from the base (zb_table.paths).
     * Copied; its strings must outlive the op. May be NULL. */
    const ice_manifest_opts *paths;
    /* NULL: "main". A branch that does not exist yet is created from
     * the current snapshot (its manifests carried over). */
    const char *branch;
    int64_t snapshot_id;            /* 0: random, not in the base */
    int64_t timestamp_ms;           /* 0: the clock */
    /* 0: commit.manifest.target-size-bytes, else 8 MiB. Manifest sizes
     * are estimated from the entries written (paths, metrics, bounds). */
    int64_t manifest_target_bytes;
    zb_avro_codec codec;            /* manifests and list */
    /* What the attempts of one commit share (commit_cache.h): the
     * snapshot id, the manifests read, the manifests rewritten for the
     * removed files. Borrowed; NULL: none. */
    struct ice_commit_cache *cache;
} ice_commit_op_opts;

#define ICE_COMMIT_OP_OPTS_VERSION 1
#define ICE_COMMIT_OP_OPTS_INIT \
    { ICE_COMMIT_OP_OPTS_VERSION, ICE_OP_APPEND, NULL, NULL, NULL, NULL, \
      0, 0, 0, ZB_AVRO_CODEC_NULL, NULL }

int ice_commit_op_new(ice_commit_op **out, zb_ctx *ctx,
                      const ice_commit_op_opts *opts);
void ice_commit_op_free(ice_commit_op *op);

/*
 * Adds a data file or a delete file (by f->content: position or
 * equality deletes, v2+) to the snapshot. f is deep-copied. spec_id: the
 * partition spec of f's partition values; -1: the table's default spec
 * at build time. ZB_EINVAL for an APPEND/REPLACE/OVERWRITE mismatch
 * (DELETE adds nothing).
 */
int ice_commit_op_add_file(ice_commit_op *op, zb_ctx *ctx, int32_t spec_id,
                           const ice_data_file *f);

/*
 * Removes the live data or delete file whose file_path (as written in
 * the manifest, not remapped) is path. Not allowed for APPEND.
 */
int ice_commit_op_remove_file(ice_commit_op *op, zb_ctx *ctx,
                              const char *path);

/* An extra summary entry (the producer's own keys win). */
int ice_commit_op_set_summary(ice_commit_op *op, zb_ctx *ctx,
                              const char *key, const char *value);

/* What a build produced. Owned; free with ice_commit_result_free. */
typedef struct ice_commit_result {
    zb_json *requirements;           /* assert-table-uuid,
    assert-ref-snapshot-id */
    zb_json *updates;                /* add-snapshot, set-snapshot-ref */
    int64_t snapshot_id;
    int64_t sequence_number;        /* 0 in v1 */
    char *manifest_list;            /* the URI written */
    size_t n_written;               /* every file written (list included) */
    char **written;
} ice_commit_result;

#define ICE_COMMIT_RESULT_INIT { NULL, NULL, 0, 0, NULL, 0, NULL }

/*
 * Builds the snapshot against base: validates that every file to remove
 * is live in base's branch head (ZB_ECONFLICT, module
 * ICE_COMMIT_VALIDATE_MODULE, naming the file), writes the new manifests
 * (<metadata dir>/<uuid>-m<N>.avro: added files, rolled at the target
 * size; each base manifest holding a removed file rewritten with those
 * entries DELETED and the rest EXISTING) and the manifest list
 * (snap-<id>-<attempt>-<uuid>.avro) carrying every other manifest over,
 * and fills out. Manifests left with no live entry are dropped. The
 * summary has Iceberg Java's keys (added-data-files, added-records,
 * added-files-size, deleted-data-files, removed-delete-files, ...,
 * changed-partition-count, total-*; totals carried from the parent's
 * summary, and left out when the parent has none). Each call is a new
 * attempt: it may be
 * run again with a newer base after a conflict. On failure, out holds
 * the files written so far (delete them) and no JSON.
 */
int ice_commit_op_build(ice_commit_op *op, zb_ctx *ctx,
                        const ice_metadata *base, ice_commit_result *out);

/*
 * Deletes every file r->written lists, best effort: files already gone
 * are fine; returns the first other error's code. ctx->err is left as
 * it was, so the failure that led to the cleanup keeps its message (and
 * ice_commit_conflict_retryable its answer).
 */
int ice_commit_result_delete_files(const ice_commit_result *r, zb_io *io,
                                   zb_ctx *ctx);
void ice_commit_result_free(ice_commit_result *r);

/*
 * After a ZB_ECONFLICT: 1 when reloading and building again may succeed
 * (a requirement failed), 0 when a validation failed (see above).
 */
int ice_commit_conflict_retryable(const zb_ctx *ctx);

#endif

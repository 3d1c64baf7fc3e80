/*
 * ops/ingest/table_write.h - writing to a table the way streaming ingest does:
 * create it, append Parquet data files, add position and equality delete
 * files, each change one commit through the catalog. Tests, benchmarks
 * and the demo build their tables with it; compaction writes its output
 * files with zb_ingest_write_parquet.
 *
 *     zb_table *t = NULL;
 *     zb_ingest_create(&t, cat, ctx, "db.events", NULL, schema, NULL,
 *                     NULL, 0, 2);
 *     zb_ingest_append(&t, cat, io, ctx, &arrow_schema, &batch, 1, NULL);
 *     zb_ingest_delete_positions(&t, cat, io, ctx, paths, positions, n, NULL);
 *     zb_table_free(t);
 *
 * Each call that commits replaces *t with the table as committed. A
 * commit that loses a race (ZB_ECONFLICT that table/commit/commit.h calls
 * retryable) reloads the table and tries again, up to the table's
 * commit.retry.num-retries (default 4) with backoff from
 * commit.retry.min-wait-ms (100) doubling to commit.retry.max-wait-ms
 * (60000); the files of a failed attempt are deleted, except when the
 * outcome is unknown (ZB_ETIMEOUT): then nothing is deleted.
 *
 * Files go to <root>/data/[<partition folder>/]<uuid>.parquet, or under
 * write.data.path when the table sets it; Parquet options from the
 * table's write.parquet.* properties; metrics by its
 * write.metadata.metrics.* properties.
 */
#ifndef ZB_OPS_TABLE_WRITE_H
#define ZB_OPS_TABLE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "exec/arrow/arrow.h"
#include "format/parquet/parquet_write.h"
#include "table/manifest/manifest.h"
#include "util/arena.h"
#include "util/json.h"

/* Which partition the rows of a write belong to (NULL: unpartitioned). */
typedef struct zb_write_partition {
    int32_t spec_id;               /* -1: the table's default spec */
    size_t n_values;               /* one per field of the spec, in order */
    const ice_value *values;
    const char *folder;            /* "day=2026-01-02", or NULL */
} zb_write_partition;

/*
 * Creates ident with schema (an Iceberg Schema JSON object), spec (a
 * PartitionSpec JSON object or NULL), properties and format version
 * (0: 2); location NULL: the catalog's default.
 */
int zb_ingest_create(zb_table **out, zb_catalog *cat, zb_ctx *ctx,
                     const char *ident, const char *location,
                     const zb_json *schema, const zb_json *spec,
                     const ice_kv *props, size_t n_props, int format_version);

/* The table's write.parquet.* properties applied to the writer's
 * defaults. */
int zb_ingest_writer_opts(pq_writer_opts *o, zb_ctx *ctx,
                          const ice_metadata *m);

/*
 * The URI of a new file of t: <data location>[/<folder>]/<uuid>.<ext>,
 * the data location being write.data.path (resolved as the table's
 * other paths: a copied folder, remaps) or <root>/data. Appends to out
 * after clearing it.
 */
int zb_ingest_new_file_uri(zb_buf *out, zb_ctx *ctx, const zb_table *t,
                           const char *folder, const char *ext);

/*
 * Writes batches (struct arrays of schema, whose fields carry
 * PARQUET:field_id metadata) into one new Parquet file of t and fills
 * *out (strings and arrays in arena) as a manifest data_file of the
 * given content, its partition from part. Commits nothing.
 */
int zb_ingest_write_parquet(ice_data_file *out, zb_arena *arena, zb_io *io,
                            zb_ctx *ctx, const zb_table *t,
                            ice_file_content content,
                            const struct ArrowSchema *schema,
                            const struct ArrowArray *batches, size_t n_batches,
                            const zb_write_partition *part);

/*
 * One append commit of files already written (data and delete files
 * alike); spec_ids[i] is the spec of files[i] (-1: the default; spec_ids
 * may be NULL for all -1).
 */
int zb_ingest_commit_files(zb_table **t, zb_catalog *cat, zb_io *io,
                           zb_ctx *ctx, const ice_data_file *files,
                           const int32_t *spec_ids, size_t n);

/* Writes one data file from batches and appends it: one commit. */
int zb_ingest_append(zb_table **t, zb_catalog *cat, zb_io *io, zb_ctx *ctx,
                     const struct ArrowSchema *schema,
                     const struct ArrowArray *batches, size_t n_batches,
                     const zb_write_partition *part);

/*
 * Writes one position delete file deleting positions[i] of the data file
 * paths[i] (as the manifests name it), sorted as the spec asks, and
 * commits it. Format version 2 or later.
 */
int zb_ingest_delete_positions(zb_table **t, zb_catalog *cat, zb_io *io,
                               zb_ctx *ctx, const char *const *paths,
                               const int64_t *positions, size_t n,
                               const zb_write_partition *part);

/*
 * v3: replaces data file path's deletion vector old_dv (its Puffin file,
 * removed whole; NULL: none) by one deleting positions[0..n) (all of
 * them: a writer merging a file's vector, as Spark does), in one
 * overwrite commit (no old_dv: an append); n 0 only removes old_dv (a
 * delete commit). new_dv (may be NULL) gets the new DV's Puffin path
 * (zb_free; NULL when n is 0). ZB_ECONFLICT when old_dv is no longer
 * live (another commit removed it).
 */
int zb_ingest_replace_dv(zb_table **t, zb_catalog *cat, zb_io *io,
                         zb_ctx *ctx, const char *old_dv, const char *path,
                         const int64_t *positions, size_t n,
                         const zb_write_partition *part, char **new_dv);

/*
 * Writes one equality delete file holding the rows of batch (a struct
 * of the equality columns, with field ids) with equality_ids eq_ids, and
 * commits it. Format version 2 or later.
 */
int zb_ingest_delete_equal(zb_table **t, zb_catalog *cat, zb_io *io,
                           zb_ctx *ctx, const int32_t *eq_ids, size_t n_ids,
                           const struct ArrowSchema *schema,
                           const struct ArrowArray *batch,
                           const zb_write_partition *part);

#endif

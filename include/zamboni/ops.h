/*
 * zamboni/ops.h - the six maintenance operations, one call each on one
 * table of a catalog, for programs that embed Zamboni. They are the
 * operations the command line runs (`zamboni compact TABLE`, ...): the
 * same code, the same safety checks, the same commits.
 *
 *     zb_ops_compact_opts o = ZB_OPS_COMPACT_OPTS_INIT;
 *     zb_ops_compact_result r;
 *     o.target_file_bytes = (int64_t)64 << 20;
 *     rc = zb_ops_compact(&r, cat, &ctx, "db.events", &o);
 *     if (rc < 0)
 *         fprintf(stderr, "%s: %s\n", zb_rc_name(rc), ctx.err.msg);
 *     else
 *         printf("%" PRIu64 " file(s) into %" PRIu64 "\n",
 *                r.files_rewritten, r.files_written);
 *
 * Every operation is
 *     int zb_ops_OP(zb_ops_OP_result *out, zb_catalog *cat, zb_ctx *ctx,
 *                   const char *table, const zb_ops_OP_opts *opts);
 * table is named as zb_table_load takes it (zamboni/table.h); the
 * operation loads it itself. opts NULL is ZB_OPS_OP_OPTS_INIT. *out is
 * always filled, as far as the work went (zeros, and -1 for a snapshot
 * id, where it did not get). With dry_run the counts are real and
 * nothing is written, committed or deleted.
 *
 * The options are the ones most often set. Everything else takes what the
 * command line takes when no table-config.json names the table: the
 * table's properties (write.target-file-size-bytes,
 * history.expire.max-snapshot-age-ms, gc.enabled, ...), then the built-in
 * defaults. A field at its INIT value means "not set".
 *
 * ctx supplies the rest (zamboni/zamboni.h): the byte budget a
 * compaction group reserves before it reads, the stop flag (a compaction
 * stopped between groups is ZB_OK with stopped set), the progress
 * callback (stages such as "compact: groups", "expire: files deleted"),
 * the logger and the metrics registry.
 *
 * Codes, as the command line maps them to exit codes:
 *   ZB_OK                            done (exit 0)
 *   ZB_EUNSAFE                       a safety check aborted the work and
 *                                    nothing was deleted (exit 4)
 *   ZB_EREFUSED, ZB_EUNSUPPORTED     a request Zamboni will not do, or a
 *                                    feature of the table this build lacks
 *                                    (exit 3)
 *   ZB_EUSAGE, ZB_EINVAL             bad options (exit 2)
 *   ZB_ECONFLICT                     other writers kept winning the commit
 *   ZB_ETIMEOUT                      the commit's outcome is unknown;
 *                                    nothing of it was deleted
 *   others (ZB_ENOTFOUND, ZB_EIO...) failed (exit 1)
 * ctx->err holds the message, naming the table.
 */
#ifndef ZAMBONI_OPS_H
#define ZAMBONI_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/catalog.h"
#include "zamboni/zamboni.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- compact: small and delete-laden data files rewritten into files of
 * the target size, one "replace" commit ---- */

typedef enum zb_ops_compact_strategy {
    ZB_OPS_COMPACT_BINPACK = 0,     /* rows in the order they are read */
    ZB_OPS_COMPACT_SORT = 1,        /* sorted by columns or the table's
                                       sort order */
    ZB_OPS_COMPACT_ZORDER = 2       /* by the Morton order of columns */
} zb_ops_compact_strategy;

/* A column to order by: a top-level column of the table's schema. */
typedef struct zb_ops_sort_column {
    const char *name;
    int descending;                 /* 0: ascending */
    int nulls_first;                /* 0: nulls last */
} zb_ops_sort_column;

#define ZB_OPS_COMPACT_OPTS_VERSION 1

typedef struct zb_ops_compact_opts {
    unsigned version;               /* ZB_OPS_COMPACT_OPTS_VERSION */
    int dry_run;                    /* 0 */
    /* 0: write.parquet.target-file-size-bytes, else
     * write.target-file-size-bytes, else 128 MiB */
    int64_t target_file_bytes;
    zb_ops_compact_strategy strategy;   /* ZB_OPS_COMPACT_BINPACK */
    /* SORT: the columns, NULL/0 for the table's default sort order;
     * ZORDER: 2 to 16 columns (their direction is not used). NULL/0. */
    const zb_ops_sort_column *sort_columns;
    size_t n_sort_columns;
} zb_ops_compact_opts;

#define ZB_OPS_COMPACT_OPTS_INIT                                         \
    { .version = ZB_OPS_COMPACT_OPTS_VERSION, .dry_run = 0,              \
      .target_file_bytes = 0, .strategy = ZB_OPS_COMPACT_BINPACK,        \
      .sort_columns = NULL, .n_sort_columns = 0 }

typedef struct zb_ops_compact_result {
    int64_t planned_snapshot_id;    /* planned from; -1: empty table */
    uint64_t groups;                /* compaction groups planned */
    uint64_t groups_committed;
    uint64_t groups_failed;         /* dropped (a conflict, a stop) or
                                       failed: nothing of them committed */
    uint64_t files_rewritten;       /* data files replaced (dry run: in
                                       the groups) */
    uint64_t bytes_rewritten;
    uint64_t files_written;         /* new data files (dry run: the
                                       estimate) */
    uint64_t bytes_written;         /* (dry run: 0) */
    uint64_t rows;                  /* rows written (dry run: the groups'
                                       rows) */
    uint64_t commits;
    int64_t snapshot_id;            /* the last committed, or -1 */
    int stopped;                    /* the stop flag ended the run early */
} zb_ops_compact_result;

int zb_ops_compact(zb_ops_compact_result *out, zb_catalog *cat, zb_ctx *ctx,
                   const char *table, const zb_ops_compact_opts *opts);

/* ---- apply-properties: the table brought to the properties and format
 * version given, in one commit when anything differs ---- */

typedef struct zb_ops_property {
    const char *key;
    const char *value;
} zb_ops_property;

#define ZB_OPS_APPLY_PROPERTIES_OPTS_VERSION 1

typedef struct zb_ops_apply_properties_opts {
    unsigned version;               /* ZB_OPS_APPLY_PROPERTIES_OPTS_VERSION */
    int dry_run;                    /* 0 */
    const zb_ops_property *set;     /* properties to have; NULL/0 */
    size_t n_set;
    const char *const *remove;      /* keys to not have; NULL/0 */
    size_t n_remove;
    int format_version;             /* 0: as it is; below the table's:
                                       ZB_EREFUSED */
} zb_ops_apply_properties_opts;

#define ZB_OPS_APPLY_PROPERTIES_OPTS_INIT                                 \
    { .version = ZB_OPS_APPLY_PROPERTIES_OPTS_VERSION, .dry_run = 0,      \
      .set = NULL, .n_set = 0, .remove = NULL, .n_remove = 0,             \
      .format_version = 0 }

typedef struct zb_ops_apply_properties_result {
    uint64_t changes;               /* made, or would be (dry run) */
    int committed;
} zb_ops_apply_properties_result;

int zb_ops_apply_properties(zb_ops_apply_properties_result *out,
                            zb_catalog *cat, zb_ctx *ctx, const char *table,
                            const zb_ops_apply_properties_opts *opts);

/* ---- remove-dangling-deletes: delete files that apply to no live data
 * file dropped from the current snapshot ---- */

#define ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_VERSION 1

typedef struct zb_ops_remove_dangling_deletes_opts {
    unsigned version;       /* ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_VERSION */
    int dry_run;            /* 0 */
} zb_ops_remove_dangling_deletes_opts;

#define ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_INIT \
    { .version = ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_VERSION, .dry_run = 0 }

typedef struct zb_ops_remove_dangling_deletes_result {
    uint64_t delete_files;          /* live delete files */
    uint64_t dangling;              /* of them applying to no data file */
    uint64_t removed;               /* removed, or would be (dry run) */
    uint64_t removed_bytes;
    uint64_t kept_shared;           /* dangling deletion vectors kept: their
                                       Puffin file holds live ones */
    int64_t snapshot_id;            /* committed, or -1 */
    int committed;
} zb_ops_remove_dangling_deletes_result;

int zb_ops_remove_dangling_deletes(
    zb_ops_remove_dangling_deletes_result *out, zb_catalog *cat, zb_ctx *ctx,
    const char *table, const zb_ops_remove_dangling_deletes_opts *opts);

/* ---- rewrite-manifests: the current snapshot's manifests regrouped by
 * partition ---- */

#define ZB_OPS_REWRITE_MANIFESTS_OPTS_VERSION 1

typedef struct zb_ops_rewrite_manifests_opts {
    unsigned version;               /* ZB_OPS_REWRITE_MANIFESTS_OPTS_VERSION */
    int dry_run;                    /* 0 */
} zb_ops_rewrite_manifests_opts;

#define ZB_OPS_REWRITE_MANIFESTS_OPTS_INIT \
    { .version = ZB_OPS_REWRITE_MANIFESTS_OPTS_VERSION, .dry_run = 0 }

typedef struct zb_ops_rewrite_manifests_result {
    int skipped;                    /* nothing to do: see reason */
    char reason[200];               /* "" unless skipped */
    uint64_t data_manifests;        /* in the current snapshot */
    uint64_t new_data_manifests;    /* after (or would be) */
    uint64_t delete_manifests;
    uint64_t new_delete_manifests;
    uint64_t entries;               /* live entries rewritten */
    int64_t snapshot_id;            /* committed, or -1 */
    int committed;
} zb_ops_rewrite_manifests_result;

int zb_ops_rewrite_manifests(zb_ops_rewrite_manifests_result *out,
                             zb_catalog *cat, zb_ctx *ctx, const char *table,
                             const zb_ops_rewrite_manifests_opts *opts);

/* ---- expire: old snapshots expired, and the files only they reached
 * deleted ---- */

#define ZB_OPS_EXPIRE_OPTS_VERSION 1

typedef struct zb_ops_expire_opts {
    unsigned version;               /* ZB_OPS_EXPIRE_OPTS_VERSION */
    int dry_run;                    /* 0 */
    /* < 0: history.expire.max-snapshot-age-ms, else 5 days */
    int64_t max_snapshot_age_ms;
    /* < 1: history.expire.min-snapshots-to-keep, else 1 */
    int32_t min_snapshots_to_keep;
    /* refs other than main older than this are dropped; < 0:
     * history.expire.max-ref-age-ms, else never */
    int64_t max_ref_age_ms;
} zb_ops_expire_opts;

#define ZB_OPS_EXPIRE_OPTS_INIT                                      \
    { .version = ZB_OPS_EXPIRE_OPTS_VERSION, .dry_run = 0,           \
      .max_snapshot_age_ms = -1, .min_snapshots_to_keep = -1,        \
      .max_ref_age_ms = -1 }

typedef struct zb_ops_expire_result {
    uint64_t snapshots_expired;     /* or would be (dry run) */
    uint64_t snapshots_retained;
    uint64_t refs_dropped;
    uint64_t files_deleted;         /* deleted, or would be (dry run) */
    uint64_t bytes_deleted;         /* as the metadata records them */
    uint64_t files_not_deleted;     /* deletions that failed */
    uint64_t metadata_files_deleted;/* old metadata files past
                                       write.metadata.previous-versions-max */
    int committed;
    int gc_disabled;                /* gc.enabled=false: nothing deleted */
} zb_ops_expire_result;

int zb_ops_expire(zb_ops_expire_result *out, zb_catalog *cat, zb_ctx *ctx,
                  const char *table, const zb_ops_expire_opts *opts);

/* ---- remove-orphans: files under the table's location that no metadata
 * references, and older than the age guard, deleted ---- */

#define ZB_OPS_REMOVE_ORPHANS_OPTS_VERSION 1

typedef struct zb_ops_remove_orphans_opts {
    unsigned version;               /* ZB_OPS_REMOVE_ORPHANS_OPTS_VERSION */
    int dry_run;                    /* 0 */
    /* The age guard: only files older than this go. < 0: 3 days. Below
     * 24 hours ZB_EREFUSED unless force: a running writer's files are not
     * referenced yet. */
    int64_t older_than_ms;
    int force;                      /* 1: allow a guard below 24 hours; 0 */
} zb_ops_remove_orphans_opts;

#define ZB_OPS_REMOVE_ORPHANS_OPTS_INIT                                  \
    { .version = ZB_OPS_REMOVE_ORPHANS_OPTS_VERSION, .dry_run = 0,       \
      .older_than_ms = -1, .force = 0 }

typedef struct zb_ops_remove_orphans_result {
    uint64_t files_scanned;         /* listed under the table's roots */
    uint64_t files_referenced;
    uint64_t files_unreferenced;
    uint64_t files_deleted;         /* deleted, or would be (dry run) */
    uint64_t bytes_deleted;
    uint64_t files_left;            /* unreferenced, younger than the guard */
    uint64_t files_not_deleted;     /* deletions that failed */
    int64_t older_than_ms;          /* the guard applied */
} zb_ops_remove_orphans_result;

int zb_ops_remove_orphans(zb_ops_remove_orphans_result *out, zb_catalog *cat,
                          zb_ctx *ctx, const char *table,
                          const zb_ops_remove_orphans_opts *opts);

#ifdef __cplusplus
}
#endif
#endif

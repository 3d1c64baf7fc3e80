/*
 * ops/config/table_config.h - table-config.json, version 2: the per-table
 * maintenance settings of one warehouse (ZAMBONI-INTERFACE.md section 3,
 * the format the Python tool of the same name reads).
 *
 *     {
 *       "version": 2,
 *       "warehouse": "acme",
 *       "defaults": { BLOCK },
 *       "namespaces": {
 *         "db":     { "tables": { "events": { BLOCK } } },
 *         "db.raw": { "tables": { "clicks": { BLOCK } } }
 *       }
 *     }
 * A dotted namespace key is a nested namespace (table "db.raw.clicks");
 * table names hold no dot. Tables not listed get the defaults block.
 *
 * BLOCK keys, each optional (defaults in brackets):
 *   description             string
 *   partition               [{column, transform [identity] (identity|year|
 *                           month|day|hour|bucket|truncate|void),
 *                           num_buckets (bucket only, required, >= 1),
 *                           width (truncate only, required, >= 1), name
 *                           [column, or column_<transform> as Iceberg
 *                           names it]}], field names unique
 *   partition_evolution     {enabled [true], rules: [{from, to,
 *                           older_than_days >= 0}]}, from/to in hour < day
 *                           < month < year, to coarser than from; when the
 *                           file has no "defaults" key the built-in
 *                           default is day -> month after 90 days
 *   ordering                {mode [none] (none|sort|zorder), sort: [{column,
 *                           direction [asc] (asc|desc), nulls [last]
 *                           (first|last)}], zorder: {columns (>= 2,
 *                           unique), precision_bits [16] (1..32,
 *                           bits * columns <= 62)}}; the block given must
 *                           match the mode
 *   target_file_size_bytes  >= 100, or null [null: the table's
 *                           write.target-file-size-bytes, else 128 MiB]
 *   min_input_files         >= 1 [2]
 *   max_concurrent_file_group_rewrites
 *                           1..256, or null [null: the threads figure,
 *                           --threads or the cores rule]: compaction
 *                           groups rewritten at once (Iceberg's Spark
 *                           option of that name)
 *   min_file_size_bytes, max_file_size_bytes, rewrite_all,
 *   delete_file_threshold, delete_ratio_threshold,
 *   max_file_group_size_bytes, partial_progress_enabled,
 *   partial_progress_max_commits, max_files_to_rewrite,
 *   rewrite_job_order, output_spec_id, use_starting_sequence_number
 *                           Iceberg's rewrite_data_files options (its
 *                           names, dots and dashes as underscores), each
 *                           optional (null: not given) and merged per
 *                           key; meaning, range
 *                           and default: ops/compact/compact_options.h
 *   retention               {expire_snapshots {enabled [true],
 *                           max_snapshot_age_days >= 0|null,
 *                           min_snapshots_to_keep >= 1|null,
 *                           max_ref_age_days >= 0|null},
 *                           remove_orphan_files {enabled [true],
 *                           older_than_days >= 0 [3]},
 *                           remove_dangling_deletes {enabled [true]},
 *                           rewrite_manifests {enabled [true],
 *                           min_input_manifests >= 2 [2]},
 *                           metadata {previous_versions_max >= 1|null,
 *                           delete_after_commit bool|null}};
 *                           remove_orphan_files enabled while
 *                           expire_snapshots is not is an error
 *   schedule                {OPERATION: {min_interval_minutes >= 0|null}}
 *                           for OPERATION in compact, apply-properties,
 *                           remove-dangling-deletes, rewrite-manifests,
 *                           expire, remove-orphans: how soon `zamboni
 *                           serve` plans the operation again after its
 *                           last success [null: the planner's default]
 * Unknown keys are rejected with their key path; so is a version 1 file
 * (top-level "tables"), with how to move it to version 2.
 *
 * Merge, per section (zb_table_config_effective): a table's block replaces
 * each section it gives and inherits the others from "defaults", except
 * that min_input_files is not inherited (a listed table without it gets
 * 2), an ordering of mode "none" does not override an ordering of the
 * defaults, and retention is replaced whole (its missing parts get the
 * built-in values, not the defaults' ones); schedule merges per
 * operation (a table's schedule.compact replaces the defaults' one and
 * inherits the others).
 */
#ifndef ZB_OPS_TABLE_CONFIG_H
#define ZB_OPS_TABLE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "zamboni/zamboni.h"

typedef struct zb_table_config zb_table_config;

/* Largest table-config.json read, in bytes. */
#define ZB_TABLE_CONFIG_MAX_BYTES (16u << 20)

typedef enum zb_tc_transform {
    ZB_TC_IDENTITY,
    ZB_TC_YEAR,
    ZB_TC_MONTH,
    ZB_TC_DAY,
    ZB_TC_HOUR,
    ZB_TC_BUCKET,
    ZB_TC_TRUNCATE,
    ZB_TC_VOID
} zb_tc_transform;

typedef struct zb_tc_partition_field {
    const char *column;
    zb_tc_transform transform;
    int32_t num_buckets;       /* bucket; else 0 */
    int32_t width;             /* truncate; else 0 */
    const char *name;          /* as given, or the Iceberg default name */
    int name_given;
} zb_tc_partition_field;

typedef struct zb_tc_evolution_rule {
    zb_tc_transform from;      /* hour, day, month or year */
    zb_tc_transform to;        /* coarser than from */
    int64_t older_than_days;
} zb_tc_evolution_rule;

typedef enum zb_tc_order_mode {
    ZB_TC_ORDER_NONE,
    ZB_TC_ORDER_SORT,
    ZB_TC_ORDER_ZORDER
} zb_tc_order_mode;

typedef struct zb_tc_sort_key {
    const char *column;
    int descending;
    int nulls_first;
} zb_tc_sort_key;

/* -1 (ZB_UNSET, ops/table_settings.h) in the int64_t fields below means
 * null: use the table property. */
typedef struct zb_tc_retention {
    int expire_enabled;
    int64_t max_snapshot_age_days;
    int64_t min_snapshots_to_keep;
    int64_t max_ref_age_days;
    int orphans_enabled;
    int64_t orphans_older_than_days;
    int dangling_enabled;
    int manifests_enabled;
    int64_t min_input_manifests;
    int64_t previous_versions_max;
    int delete_after_commit;           /* -1 null, 0, 1 */
    /* The keys above with a built-in value that the file gave (the
     * nullable ones say it by not being -1): ZB_TC_GIVEN_*. */
    unsigned given;
} zb_tc_retention;

#define ZB_TC_GIVEN_ORPHAN_DAYS (1u << 0)    /* older_than_days */
#define ZB_TC_GIVEN_MIN_MANIFESTS (1u << 1)  /* min_input_manifests */

/* Iceberg's rewrite_data_files options (the block keys above); their
 * meaning is ops/compact/compact_options.h. */
typedef enum zb_tc_rw {
    ZB_TC_RW_MIN_FILE_SIZE,
    ZB_TC_RW_MAX_FILE_SIZE,
    ZB_TC_RW_REWRITE_ALL,
    ZB_TC_RW_DELETE_FILE_THRESHOLD,
    ZB_TC_RW_DELETE_RATIO,
    ZB_TC_RW_MAX_GROUP_SIZE,
    ZB_TC_RW_PARTIAL_PROGRESS,
    ZB_TC_RW_MAX_COMMITS,
    ZB_TC_RW_MAX_FILES,
    ZB_TC_RW_JOB_ORDER,
    ZB_TC_RW_OUTPUT_SPEC,
    ZB_TC_RW_START_SEQ,
    ZB_TC_RW_COUNT
} zb_tc_rw;

typedef enum zb_tc_rw_kind {
    ZB_TC_RW_BYTES,                /* whole number, lo..hi */
    ZB_TC_RW_INT,                  /* whole number, lo..hi */
    ZB_TC_RW_BOOL,                 /* true or false: 1, 0 */
    ZB_TC_RW_RATIO,                /* a number from 0 to 1 */
    ZB_TC_RW_ORDER                 /* a zb_tc_job_order name */
} zb_tc_rw_kind;

typedef struct zb_tc_rw_desc {
    const char *iceberg;           /* "partial-progress.max-commits" */
    const char *key;               /* "partial_progress_max_commits" */
    const char *flag;              /* "--partial-progress-max-commits" */
    zb_tc_rw_kind kind;
    int64_t lo, hi;
} zb_tc_rw_desc;

extern const zb_tc_rw_desc zb_tc_rw_opts[ZB_TC_RW_COUNT];

/* rewrite-job-order values, in Iceberg's spelling. */
typedef enum zb_tc_job_order {
    ZB_TC_ORDER_JOBS_NONE,
    ZB_TC_ORDER_BYTES_ASC,
    ZB_TC_ORDER_BYTES_DESC,
    ZB_TC_ORDER_FILES_ASC,
    ZB_TC_ORDER_FILES_DESC
} zb_tc_job_order;

const char *zb_tc_job_order_name(int order);

/* Values given (a bit per zb_tc_rw in given), from a block or flags. */
typedef struct zb_tc_rw_values {
    unsigned given;
    double v[ZB_TC_RW_COUNT];
} zb_tc_rw_values;

/* The option whose flag is flag ("--max-files-to-rewrite"), else -1. */
int zb_tc_rw_for_flag(const char *flag);

/*
 * Parses text as option id's value (kind and range of zb_tc_rw_opts;
 * bools as true/false). ZB_OK, or ZB_EUSAGE with why in why (may be
 * NULL; n bytes).
 */
int zb_tc_rw_parse(double *out, zb_tc_rw id, const char *text, char *why,
                   size_t n);

/* Sections of a block, for presence bits and origins. */
typedef enum zb_tc_section {
    ZB_TC_SEC_DESCRIPTION,
    ZB_TC_SEC_PARTITION,
    ZB_TC_SEC_EVOLUTION,
    ZB_TC_SEC_ORDERING,
    ZB_TC_SEC_TARGET_FILE_SIZE,
    ZB_TC_SEC_MIN_INPUT_FILES,
    ZB_TC_SEC_RETENTION,
    ZB_TC_SEC_MAX_CONCURRENT_REWRITES,
    ZB_TC_SEC_SCHEDULE,
    ZB_TC_SEC_COUNT
} zb_tc_section;

/* The operations a schedule names, in zb_maint_op_names' order. */
#define ZB_TC_SCHEDULE_OPS 6
extern const char *const zb_tc_schedule_ops[ZB_TC_SCHEDULE_OPS];

typedef struct zb_tc_block {
    unsigned present;                  /* 1u << zb_tc_section, as given */
    const char *description;           /* NULL: none */
    size_t n_partition;
    const zb_tc_partition_field *partition;
    int evolution_enabled;
    size_t n_rules;
    const zb_tc_evolution_rule *rules;
    zb_tc_order_mode order_mode;
    size_t n_sort;
    const zb_tc_sort_key *sort;
    size_t n_zorder;
    const char *const *zorder_columns;
    int precision_bits;
    int64_t target_file_size_bytes;    /* -1: null */
    int64_t min_input_files;
    int64_t max_concurrent_rewrites;   /* -1: null (the threads) */
    zb_tc_retention retention;
    /* schedule.<op>.min_interval_minutes, indexed as zb_maint_op_names
     * (ops/maintenance_run.h); -1: not given. */
    int64_t min_interval_minutes[ZB_TC_SCHEDULE_OPS];
    zb_tc_rw_values rw;                /* the rewrite_data_files keys */
} zb_tc_block;

typedef enum zb_tc_origin {
    ZB_TC_FROM_BUILTIN,    /* the built-in default */
    ZB_TC_FROM_DEFAULTS,   /* the file's "defaults" block */
    ZB_TC_FROM_TABLE       /* the table's own block */
} zb_tc_origin;

typedef struct zb_tc_effective {
    zb_tc_block block;                 /* pointers borrowed from the config */
    zb_tc_origin origin[ZB_TC_SEC_COUNT];
    int listed;                        /* the table has its own block */
    unsigned rw_from_table;            /* block.rw keys the table's own
                                          block gave (bit per zb_tc_rw) */
} zb_tc_effective;

/*
 * Parses and validates text (len bytes) named name in messages. The first
 * problem is reported as "NAME:LINE:COL: not valid JSON: ..." or
 * "NAME: KEY.PATH: RULE (got VALUE)", with ZB_EUSAGE. ZB_ENOMEM.
 */
int zb_table_config_parse(zb_table_config **out, zb_ctx *ctx,
                          const char *name, const char *text, size_t len);

/* Reads and parses path; ZB_ENOTFOUND when missing, ZB_EIO. */
int zb_table_config_load(zb_table_config **out, zb_ctx *ctx,
                         const char *path);

void zb_table_config_free(zb_table_config *tc);

const char *zb_table_config_name(const zb_table_config *tc);
const char *zb_table_config_warehouse(const zb_table_config *tc);

/*
 * The multi-tenant assertion: the file's warehouse must equal the one
 * that selected it. ZB_EREFUSED (exit 3) with both names otherwise.
 */
int zb_table_config_check_warehouse(zb_ctx *ctx, const zb_table_config *tc,
                                    const char *warehouse);

/* Listed tables as "ns.table", sorted (byte order); borrowed. */
size_t zb_table_config_table_count(const zb_table_config *tc);
const char *zb_table_config_table(const zb_table_config *tc, size_t i);

/*
 * The effective block of table ident ("ns.table"): its own merged over
 * the defaults, or the defaults for a table not listed. Never fails.
 */
void zb_table_config_effective(zb_tc_effective *out,
                               const zb_table_config *tc, const char *ident);

/*
 * The block's keys that are table properties, for apply-properties
 * (ops/apply_properties.h): target_file_size_bytes, retention.metadata and
 * retention.expire_snapshots; null keys stay -1 (not declared).
 */
struct zb_config_props;
void zb_table_config_props(struct zb_config_props *out,
                           const zb_tc_block *b);

/* Names: "identity", "bucket", ...; "none", "sort", "zorder". */
const char *zb_tc_transform_name(zb_tc_transform t);
const char *zb_tc_order_mode_name(zb_tc_order_mode m);
const char *zb_tc_section_name(zb_tc_section s);

/*
 * Appends the `table-config summary` text: the defaults, then each listed
 * table (or only table, when not NULL) with every setting; values from
 * the built-in default are marked "(default)", those from the defaults
 * block "(from defaults)", and settings an engine cannot honour
 * "-- not available on: trino". ZB_ENOMEM.
 */
int zb_table_config_summary(zb_buf *out, zb_ctx *ctx,
                            const zb_table_config *tc, const char *table);

#endif

/*
 * ops/maintenance_run.h - the maintenance run of one table: the six
 * operations in their load-bearing order (DESIGN.md "The six operations,
 * in order"; ZAMBONI-INTERFACE.md section 4).
 *
 *     zb_maint_opts o = ZB_MAINT_OPTS_INIT;
 *     o.config = tc;                        (may be NULL: built-in values)
 *     rc = zb_maintenance_table(&target, ctx, &o, on_step, payload);
 *
 * Order: compact, apply-properties, remove-dangling-deletes,
 * rewrite-manifests, expire, remove-orphans (zb_maint_op_names; a test
 * fails if it changes). o.run[] selects a subset (a profile's
 * operations: list); the order stays this one whatever order the subset
 * was given in. Per operation, from the table's effective block of the
 * table config (zb_table_config_effective):
 *   - a section disabled in the config is not run: status DISABLED, with
 *     the key that disabled it ("retention.expire_snapshots.enabled");
 *   - an operation this build lacks: status UNAVAILABLE (not an error);
 *   - otherwise it runs with the config's values, each overridden by the
 *     corresponding field of o when that is set (flag beats file);
 *   - after an operation returns ZB_EUNSAFE (a safety check aborted), the
 *     rest of the table is not run: status STOPPED, naming the operation.
 * The table is loaded first: when that fails its code is returned and no step
 * is reported. Each step is reported to on_step once, in order, with its report
 * lines (the operation's zb_<op>_report text). The table's other failures do
 * not stop the later operations: each works on the table as the catalog has it.
 *
 * The return value is the worst code of the table's operations, ranked as
 * the CLI ranks exit codes (zb_maint_rc_rank): ZB_EUNSAFE above
 * ZB_EREFUSED/ZB_EUNSUPPORTED above usage above the other failures.
 */
#ifndef ZB_OPS_MAINTENANCE_H
#define ZB_OPS_MAINTENANCE_H

#include <stdint.h>

#include "ops/ops.h"
#include "ops/config/table_config.h"
#include "ops/table_settings.h"

typedef enum zb_maint_op {
    ZB_MAINT_COMPACT,
    ZB_MAINT_APPLY_PROPERTIES,
    ZB_MAINT_REMOVE_DANGLING,
    ZB_MAINT_REWRITE_MANIFESTS,
    ZB_MAINT_EXPIRE,
    ZB_MAINT_REMOVE_ORPHANS,
    ZB_MAINT_OP_COUNT
} zb_maint_op;

/* "compact", "apply-properties", ... in the order above. */
extern const char *const zb_maint_op_names[ZB_MAINT_OP_COUNT];

/* The op of a name, or -1. */
int zb_maint_op_from_name(const char *name);

typedef enum zb_maint_status {
    ZB_MAINT_RAN,            /* ran; rc says how it went */
    ZB_MAINT_DISABLED,       /* disabled in the table config */
    ZB_MAINT_NOT_SELECTED,   /* not in o.run (not reported) */
    ZB_MAINT_STOPPED         /* an earlier operation aborted */
} zb_maint_status;

/*
 * Overrides, the flags of the CLI. Each field's default is its value in
 * ZB_MAINT_OPTS_INIT. A setting left ZB_UNSET takes the table config's
 * value, else the table property, else the built-in default, as
 * ops/table_settings.h resolves it (zb_maint_settings shows the result).
 */
typedef struct zb_maint_opts {
    unsigned version;                /* ZB_MAINT_OPTS_VERSION */
    const zb_table_config *config;   /* borrowed; default NULL: built-in
                                        values */
    int run[ZB_MAINT_OP_COUNT];      /* 1: run it; default: all */
    /* compact */
    int64_t target_file_size_bytes;  /* bytes; default ZB_UNSET */
    int min_input_files;             /* files; default ZB_UNSET */
    int rewrite_all;                 /* default 0 */
    int partial_progress;            /* default 0 */
    /* Iceberg's rewrite_data_files options given as flags
     * (ops/compact/compact_options.h); default: none given */
    zb_tc_rw_values rw;
    uint64_t max_group_memory_bytes; /* bytes; default 0: the budget's */
    const char *branch;              /* default NULL: main */
    int threads;                     /* zb_compact_opts.threads; default 0:
                                        1 */
    int max_concurrent;              /* groups at once; default 0: the
                                        table config's
                                        max_concurrent_file_group_rewrites,
                                        else threads */
    long drain_timeout_ms;           /* zb_compact_opts.drain_timeout_ms:
                                        after a stop, commit the groups
                                        written within it; default 0:
                                        drop them */
    /* expire */
    int64_t max_snapshot_age_days;   /* days; default ZB_UNSET */
    int64_t min_snapshots_to_keep;   /* snapshots; default ZB_UNSET */
    int64_t max_ref_age_days;        /* days; default ZB_UNSET */
    /* remove-orphans */
    int64_t older_than_days;         /* days; default ZB_UNSET (3) */
    int orphans_force;               /* default 0; 1: allow a guard below
                                        24 hours */
    /* rewrite-manifests */
    int64_t min_input_manifests;     /* manifests; default ZB_UNSET (2) */
    /* compact ordering: sort by the table's sort order, or by n_sort_by
     * columns (top-level names); neither (the default: 0, 0, NULL): the
     * config's ordering (sort or zorder), else binpack */
    int sort_by_table_order;
    size_t n_sort_by;
    const zb_tc_sort_key *sort_by;
} zb_maint_opts;

#define ZB_MAINT_OPTS_VERSION 1
#define ZB_MAINT_OPTS_INIT                                                 \
    {                                                                      \
        .version = ZB_MAINT_OPTS_VERSION, .config = NULL,                  \
        .run = { 1, 1, 1, 1, 1, 1 },                                       \
        .target_file_size_bytes = ZB_UNSET, .min_input_files = ZB_UNSET,   \
        .rewrite_all = 0, .partial_progress = 0, .rw = { 0, { 0 } },       \
        .max_group_memory_bytes = 0, .branch = NULL,                       \
        .threads = 0, .max_concurrent = 0, .drain_timeout_ms = 0,          \
        .max_snapshot_age_days = ZB_UNSET,                                 \
        .min_snapshots_to_keep = ZB_UNSET, .max_ref_age_days = ZB_UNSET,   \
        .older_than_days = ZB_UNSET, .orphans_force = 0,                   \
        .min_input_manifests = ZB_UNSET, .sort_by_table_order = 0,         \
        .n_sort_by = 0, .sort_by = NULL,                                   \
    }

/* What on_step gets for each operation of the table. */
typedef struct zb_maint_step {
    const char *table;
    zb_maint_op op;
    zb_maint_status status;
    int rc;                  /* ZB_OK unless RAN and it failed */
    const char *detail;      /* DISABLED: the key; STOPPED: the op that
                                aborted; RAN: the report lines ("T: ..."
                                lines, '\n'-separated) */
    const char *error;       /* RAN with rc < 0: ctx's message */
    int64_t elapsed_ms;
} zb_maint_step;

typedef void (*zb_maint_step_fn)(const zb_maint_step *step, void *payload);

/*
 * Runs the selected operations on t's table (t->dry_run previews each
 * with real counts). Returns the worst code (see above); on_step may be
 * NULL. ctx's error is cleared between operations.
 */
int zb_maintenance_table(const zb_op_target *t, zb_ctx *ctx,
                         const zb_maint_opts *o, zb_maint_step_fn on_step,
                         void *payload);

/*
 * Every setting of ops/table_settings.h for table ident as a run with o
 * uses it: o's field (the flag), o->config's effective block, the
 * properties of m (the table as loaded; NULL: not read), the default.
 * ZB_EINVAL (an unusable history.expire.* property, which expire would
 * refuse) after filling every setting: the caller may still show them.
 */
int zb_maint_settings(zb_table_settings *out, zb_ctx *ctx,
                      const zb_maint_opts *o, const char *ident,
                      const ice_metadata *m);

/* 0 for ZB_OK, 1 other failures, 2 ZB_EUSAGE, 3 refused/unsupported,
 * 4 ZB_EUNSAFE: the severity order of the CLI's exit codes. */
int zb_maint_rc_rank(int rc);

#endif

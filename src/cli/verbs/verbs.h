/*
 * cli/verbs/verbs.h - the operation verbs (compact, apply-properties,
 * remove-dangling-deletes, rewrite-manifests, expire, remove-orphans),
 * maintenance, and the read-only verbs around them: their shared flag
 * parsing, help texts, and the resolution of TABLE arguments into a
 * catalog (ZAMBONI-INTERFACE.md sections 1, 2, 4, 5).
 *
 * Flags live in one table (verb_args.c) that says which verbs take
 * each, its value, its default and its meaning; --help is printed from
 * it, so every flag a verb takes is explained with its default.
 */
#ifndef ZB_CLI_VERBS_H
#define ZB_CLI_VERBS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "cli/config/resources.h"
#include "cli/config/settings.h"
#include "cli/verbs/scan_print.h"
#include "ops/add_files/add_files.h"
#include "ops/maintenance_run.h"
#include "ops/config/table_config.h"
#include "util/err.h"

/* One bit per verb, for the flag table. */
enum {
    ZB_VERB_MAINTENANCE = 1u << 0,
    ZB_VERB_COMPACT = 1u << 1,
    ZB_VERB_APPLY = 1u << 2,
    ZB_VERB_DANGLING = 1u << 3,
    ZB_VERB_MANIFESTS = 1u << 4,
    ZB_VERB_EXPIRE = 1u << 5,
    ZB_VERB_ORPHANS = 1u << 6,
    ZB_VERB_DESCRIBE = 1u << 7,
    ZB_VERB_PLAN = 1u << 8,
    ZB_VERB_WAREHOUSES = 1u << 9,
    ZB_VERB_ENGINES = 1u << 10,
    ZB_VERB_TABLE_CONFIG = 1u << 11,
    ZB_VERB_DEMO = 1u << 12,
    ZB_VERB_DOCTOR = 1u << 13,
    ZB_VERB_SCAN = 1u << 14,
    ZB_VERB_ADD_FILES = 1u << 15,
    ZB_VERB_WORKER = 1u << 24,     /* cli/verbs/verb_worker.c */
    ZB_VERB_SERVE = 1u << 25       /* cli/verbs/verb_serve.c */
};

#define ZB_VERB_MAX_TABLES 4096
#define ZB_VERB_MAX_REMAPS 16

typedef struct zb_verb_args {
    const char *verb;              /* "compact" */
    unsigned bit;                  /* ZB_VERB_* */
    size_t n_pos;                  /* positional arguments */
    const char *pos[ZB_VERB_MAX_TABLES];
    int dry_run, yes, status, verbose, json;
    int parallel;                  /* maintenance --parallel N; 0: 1 */
    const char *table_config;      /* --table-config FILE */
    const char *setting_flags[ZB_SET_COUNT];
    const char *profile_path, *env_path;
    const char *table_filter;      /* table-config summary --table */
    const char *output;            /* table-config generate -o */
    const char *namespace_filter;  /* table-config generate --namespace */
    int overwrite;                 /* table-config generate --force */
    int from_catalog;              /* table-config from-catalog CAT */
    int no_evolution;              /* from-catalog --no-evolution */
    zb_maint_opts mo;              /* overrides (ops/maintenance_run.h) */
    /* --remap OLD=NEW, in order: from points into remap_text, to into
     * argv; handed to every catalog the verb opens */
    size_t n_remaps;
    ice_path_remap remaps[ZB_VERB_MAX_REMAPS];
    char remap_text[8192];
    /* scan */
    int have_snapshot, count;
    int64_t snapshot_id;
    zb_scan_format format;
    /* add-files (--source, --create, ...) */
    zb_add_files_opts af;
    /* compaction flags taken for compatibility (see the help) */
    const char *memory_mode;
    const char *temp_directory;
    const char *sort_by;
    int sort_by_table_order;
    zb_tc_sort_key sort_keys[16];  /* --sort-by, parsed */
    char sort_text[1024];
    const char *snapshot_operation;
    const char *dangling_delete_policy;
    const char *location;          /* demo --location URI */
    int fleet;                     /* demo --fleet */
} zb_verb_args;

/*
 * Parses argv (argv[0] is the verb). Returns an exit code: 0 to go on
 * (*help set when --help was asked), 2 after printing a usage error.
 * max_pos: positional arguments allowed; min_pos: required.
 */
int zb_verb_parse(zb_verb_args *a, unsigned bit, int argc, char **argv,
                  size_t min_pos, size_t max_pos, int *help);

/* Prints the help of verb (usage, description, the flags it takes). */
void zb_verb_help(FILE *out, unsigned bit);

/* The preview trailer's end: "rewrite and commit.", ... */
const char *zb_verb_trailer(unsigned bit);

/* "zamboni VERB: " + message on stderr, and the usage hint; returns 2. */
int zb_verb_usage(const char *verb, const char *fmt, ...) ZB_PRINTF(2, 3);

/*
 * What a run needs: the settings, a FileIO, the configured catalog
 * (opened on first use), the table config (--table-config, else
 * $ZAMBONI_ROOT/configs/<warehouse>/table-config.json when it exists;
 * its warehouse checked against the configured one).
 */
typedef struct zb_verb_env {
    const zb_verb_args *args;
    zb_settings *settings;
    zb_io *io;
    zb_catalog *catalog;           /* the configured one, or NULL */
    zb_table_config *tc;           /* or NULL */
    char tc_path[4096];
    int need_tc;                   /* set before open: a missing one is an error */
    int no_tc;                     /* set before open: no table config (scan) */
    /* The process's memory budget and threads (cli/config/resources.h),
     * for the verbs that work on tables; ctx->budget points at budget
     * until close. */
    zb_resources res;
    zb_budget *budget;
    zb_ctx *ctx;
    unsigned s3_pinned;            /* ZB_S3_PIN_* the user gave */
} zb_verb_env;

/*
 * Loads the settings and the table config; for a verb that works on
 * tables (zb_verb_reads_tables) also resolves the memory budget and the
 * threads, creates the one budget of the process (ctx->metrics records
 * it) and sets ctx->budget, warning once when no memory limit was found.
 * ZB_EUSAGE (config errors), ZB_EREFUSED (the table config names another
 * warehouse), ZB_EIO, ZB_ENOMEM.
 */
int zb_verb_env_open(zb_verb_env *env, zb_ctx *ctx, const zb_verb_args *a);
void zb_verb_env_close(zb_verb_env *env);

/*
 * The budget's figures for a --json report: {"limit_bytes", "source",
 * "peak_reserved_bytes", "wait_seconds", "oversized"} (zb_budget_stats_get;
 * limit 0: no budget), or JSON null when the verb made none. New
 * reference; NULL when out of memory.
 */
struct json_t *zb_verb_budget_json(const zb_verb_env *env);

/* Whether the verb bit reads or writes tables (and so has a budget). */
int zb_verb_reads_tables(unsigned bit);

/* "memory budget 1.5GiB (SOURCE)" and "threads 2 (SOURCE)" lines, each
 * starting with prefix, for doctor-like reports and --verbose. */
void zb_verb_print_resources(FILE *out, const zb_verb_env *env,
                             const char *prefix);

/* The engine named (flag, ZAMBONI_ENGINE, profile, "local"). */
const char *zb_verb_engine(const zb_verb_env *env);

/*
 * The catalog for TABLE: a new PATH catalog when TABLE names a folder
 * (*owned set: free it), else the configured catalog (opened once; a
 * SQLite database that does not exist is ZB_ENOTFOUND, never created).
 * Either gets the --remap list.
 */
int zb_verb_catalog(zb_catalog **out, int *owned, zb_verb_env *env,
                    zb_ctx *ctx, const char *table);

/* Every table of the configured catalog, in every namespace, sorted
 * (*out: zb_verb_catalog_tables_free). */
int zb_verb_catalog_tables(char ***out, size_t *n, zb_verb_env *env,
                           zb_ctx *ctx);
void zb_verb_catalog_tables_free(char **v, size_t n);

/* The compaction options a plan of ident takes from the flags (mo) and
 * the table config, as `zamboni plan` shows them (verb_describe.c). */
struct zb_compact_opts;
void zb_verb_plan_opts(struct zb_compact_opts *co, const zb_verb_env *env,
                       const zb_maint_opts *mo, const char *ident);

/* SIGINT and SIGTERM raise *flag (once set up; the flag must live as long
 * as the process): work stops starting, what runs finishes or drains. */
void zb_verb_catch_stop_signals(atomic_int *flag);

/*
 * The tables a run works on: the TABLE arguments, else the tables: list
 * of zamboni.yml, else the table config's tables (*n may be 0); -1 when
 * none of those exists, -2 out of memory. *out: zb_free (the strings are
 * borrowed).
 */
int zb_verb_pick_tables(const char ***out, size_t *n, zb_verb_env *env,
                        const zb_verb_args *a);

/* The configured catalog (borrowed from env; opened once). */
int zb_verb_configured_catalog(zb_catalog **out, zb_verb_env *env,
                               zb_ctx *ctx);

/*
 * The S3 backend's settings from s (verb_s3.c): endpoint, region, path
 * style, retry bounds, the static keys, the budget hooks; returns the
 * ZB_S3_PIN_* bits of what the user gave, for zb_catalog_config.s3_pinned.
 * Strings are borrowed from s.
 */
struct zb_s3_config;
unsigned zb_verb_s3_config(struct zb_s3_config *out, const zb_settings *s);
/* Adds the S3 backend to io with those; *pinned (may be NULL) the bits. */
int zb_verb_add_s3(zb_io *io, zb_ctx *ctx, const zb_settings *s,
                   unsigned *pinned);
/*
 * "endpoint E (origin), region R (origin), path-style addressing (origin),
 * credentials from SOURCE" for uri on an object store (doctor, --verbose);
 * never a secret. ZB_ENOTFOUND when uri is not on an object store; an
 * error of the credentials' lookup still fills out (SOURCE says why).
 */
int zb_verb_s3_describe(char *out, size_t size, zb_verb_env *env,
                        zb_ctx *ctx, const char *uri);
/* "PREFIXstorage URI: <zb_verb_s3_describe>" on out when uri is on an
 * object store (--verbose); nothing otherwise. */
void zb_verb_print_s3(FILE *out, zb_verb_env *env, zb_ctx *ctx,
                      const char *uri, const char *prefix);

/*
 * Whether the verb of a commits or deletes (the six operations,
 * maintenance, add-files) rather than reads or previews (--dry-run). For
 * such a verb zb_verb_catalog refuses a table folder on an object store
 * (zb_catalog_check_writable: exit 3) before anything is read; for it
 * and for its --dry-run, a metadata file named as the table that is not
 * the folder's newest (exit 3).
 */
int zb_verb_commits(const zb_verb_args *a);

/* Whether TABLE names a table folder (or one of its metadata files, a
 * path or file: URI, or an existing *.json file) rather than
 * namespace.table. */
int zb_verb_names_folder(const char *table);

/* The warehouse name for messages: the setting, else "tables". */
const char *zb_verb_warehouse(const zb_verb_env *env);

/*
 * Refuses what this build cannot do (an engine other than local, sorted
 * compaction, ...): exit 3 after a message; applies --temp-directory.
 */
int zb_verb_check_flags(const zb_verb_args *a, const zb_verb_env *env);

/*
 * A moved table (its recorded location resolves elsewhere: a copied
 * folder, a --remap) must write under its new location: a
 * write.data.path or write.metadata.path the remaps leave outside it
 * would put files where the original still lives. ZB_EREFUSED then; a
 * table that does not load is left to the caller to report (ZB_OK).
 */
int zb_verb_check_moved(zb_catalog *cat, zb_ctx *ctx, const char *table);

/*
 * Opens table's catalog, checks it with zb_verb_check_moved and runs the
 * operations mo selects
 * (zb_maintenance_table); returns its code, or the catalog's.
 */
int zb_verb_run_table(zb_verb_env *env, zb_ctx *ctx, const char *table,
                      const zb_maint_opts *mo, zb_maint_step_fn on_step,
                      void *payload);

/* "retention.expire_snapshots.enabled" -> "expire_snapshots". */
void zb_verb_section_of(char *out, size_t size, const char *key);

/*
 * `table-config generate` (cli/verbs/verb_table_config_generate.c): writes a
 * table-config.json for the configured catalog's tables. ZB_EUSAGE (no
 * warehouse, output exists without --force), the catalog's codes.
 */
int zb_verb_generate(zb_verb_env *env, zb_ctx *ctx, const zb_verb_args *a);

/*
 * `table-config from-catalog CAT`: generate with the catalog given as
 * pos[1] (a URI --uri takes, or a SQLite database file, whose text is
 * kept in uri[size]); sets a->from_catalog. Returns 0 or exit code 2.
 */
int zb_verb_from_catalog_args(zb_verb_args *a, char *uri, size_t size);

/* Run entry points (argv[0] is the verb); each returns an exit code. */
int zb_cli_op_run(int argc, char **argv);          /* the six verbs */
int zb_cli_maintenance_run(int argc, char **argv);
int zb_cli_describe_run(int argc, char **argv);
int zb_cli_plan_run(int argc, char **argv);
int zb_cli_warehouses_run(int argc, char **argv);
int zb_cli_engines_run(int argc, char **argv);
int zb_cli_table_config_run(int argc, char **argv);
int zb_cli_validate_config_run(int argc, char **argv);
int zb_cli_demo_run(int argc, char **argv);
/* demo --fleet (demo_fleet.c): migrate the queue of the demo in dir, start
 * serve and a worker on it in the background, print how to stop them. */
int zb_cli_demo_fleet(zb_ctx *ctx, const char *dir);
int zb_cli_doctor_run(int argc, char **argv);   /* cli/verbs/verb_doctor.c */
int zb_cli_worker_run(int argc, char **argv);   /* cli/verbs/verb_worker.c */
int zb_cli_serve_run(int argc, char **argv);    /* cli/verbs/verb_serve.c */

/* --status (cli/verbs/maintenance_status.c): one table's counts. */
typedef struct zb_status_row {
    const char *table;
    int ok;                        /* loaded and counted */
    uint64_t data_files, data_bytes, data_rows;
    uint64_t delete_files, delete_bytes;
    uint64_t snapshots;
    uint64_t metadata_bytes;       /* under <root>/metadata */
    uint64_t disk_files, disk_bytes; /* everything under the root */
    int disk_ok;                   /* the root was listed */
    int rows_ok;                   /* live_rows was counted */
    uint64_t live_rows;            /* rows with every delete applied */
} zb_status_row;

/* Counts table; row->ok 0 (and ctx's error) when it cannot. */
int zb_status_collect(zb_status_row *row, zb_verb_env *env, zb_ctx *ctx,
                      const char *table);
/* "W, before:" / "W, after:" and the line of totals. */
void zb_status_print_totals(FILE *out, const char *warehouse,
                            const char *when, const zb_status_row *rows,
                            size_t n);
/* "  reclaimed N" and the per-table block. */
void zb_status_print_change(FILE *out, const zb_status_row *before,
                            const zb_status_row *after, size_t n);

#endif

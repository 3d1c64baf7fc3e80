/*
 * cli/verbs/verb_scan.c - `zamboni scan TABLE [--snapshot ID] [--count]
 * [--format jsonl|csv] [--remap OLD=NEW]...`: prints a table's live rows
 * (every position delete, deletion vector and equality delete applied) so
 * that users and tests can compare a table before and after maintenance.
 *
 * Steps: parse the arguments; load the table through the PATH catalog
 * (catalog/catalog.h: newest metadata file, remaps, the recorded location
 * resolved into the folder) or, for namespace.table, through the catalog
 * the settings name (cli/config/settings.h); pick the snapshot (--snapshot, else the
 * current one) and its schema (the table's current schema; with
 * --snapshot, the schema-id that snapshot records, as time travel reads); plan it (plan/scan/scan_plan.h) and read each task's live rows
 * (plan/read/scan_read.h), printing each batch (cli/verbs/scan_print.h) or adding
 * its length.
 *
 * Row order: data files in the planner's order (manifest list order, then
 * entry order in each manifest), each file's rows in file order.
 *
 * Tasks are copied (zb_scan_task_copy) into groups of up to GROUP_TASKS
 * data files or GROUP_BYTES of copies, and each group is read by one row
 * stream, so a delete file that applies to many data files of a group
 * is read once for the group (once per group over the table).
 *
 * --count reads a single column (the first that is not a variant) and
 * counts the rows that survive the deletes; the row stream still reads
 * the equality key columns it needs.
 */
#define ZB_MODULE "cli"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "cli/exit.h"
#include "cli/verbs/verb_scan.h"
#include "cli/verbs/scan_print.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "cli/config/settings.h"

const char zb_cli_scan_help[] =
    "Usage: zamboni scan TABLE [--snapshot ID] [--count] [--format jsonl|csv]\n"
    "                    [--remap OLD=NEW]...\n"
    "\n"
    "Prints the live rows of a table: every position delete, deletion\n"
    "vector and equality delete applied. Read-only.\n"
    "\n"
    "TABLE is the path or file: URI of a table folder (one holding\n"
    "metadata/); its newest metadata file is read (version-hint.text, else\n"
    "the highest version). A folder copied from elsewhere is read in place:\n"
    "paths under the location its metadata records resolve into the folder.\n"
    "Otherwise TABLE is namespace.table in the configured catalog (uri:\n"
    "SQLite at $ZAMBONI_ROOT/catalog.db by default, sqlite:PATH,\n"
    "postgresql://..., or a REST catalog; from the flags below, ZAMBONI_*\n"
    "variables, .env, ./zamboni.yml, $ZAMBONI_ROOT/zamboni.yml). A name that\n"
    "holds a slash, starts with file:, or is an existing directory is a\n"
    "folder.\n"
    "\n"
    "Options:\n"
    "  --snapshot ID        read this snapshot instead of the current one, with\n"
    "                       the schema it records (without it: the table's\n"
    "                       current schema); an ID the table does not have\n"
    "                       fails (exit 1)\n"
    "  --count              print only the number of live rows\n"
    "  --format FORMAT      jsonl (default): one JSON object a row, keyed by\n"
    "                       column name, each value in the Iceberg spec's JSON\n"
    "                       single-value serialization (Appendix D: decimals,\n"
    "                       dates, times and timestamps as strings, binary as\n"
    "                       hex, nested structs keyed by field id, maps as\n"
    "                       {\"keys\": [...], \"values\": [...]}, variants as\n"
    "                       {\"metadata\": HEX, \"value\": HEX}); NaN and the\n"
    "                       infinities as the strings \"NaN\", \"Infinity\",\n"
    "                       \"-Infinity\".\n"
    "                       csv: RFC 4180, a header line of column names, CRLF\n"
    "                       line ends; null is an empty field, an empty string\n"
    "                       is \"\"; nested values as their JSON text.\n"
    "  --remap OLD=NEW      read paths starting with OLD under NEW instead\n"
    "                       (repeatable; the first match wins), for data kept\n"
    "                       outside the table folder\n"
    "  --uri URI, --warehouse W, --local-warehouse PATH, --profile FILE,\n"
    "  --env FILE, ...      the catalog settings, for namespace.table\n"
    "                       (secrets come from the environment or .env)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Rows come in the planner's file order (manifest list order, then entry\n"
    "order), each data file's rows in file order.\n"
    "\n"
    "Exit codes: 0 printed, 1 failed (unreadable or corrupt table, unknown\n"
    "table or snapshot, no catalog database), 2 usage error (also a bad\n"
    "configuration), 3 not supported by this build (non-Parquet data\n"
    "files).\n";

/* A group of tasks read by one row stream. */
#define GROUP_TASKS 4096
#define GROUP_BYTES ((size_t)64 << 20)
#define GROUP_ARENA_MAX ((size_t)256 << 20)

typedef struct scan_args {
    const char *table;
    int have_snapshot;
    int64_t snapshot_id;
    int count;
    zb_scan_format format;
    size_t n_remaps;
    ice_path_remap *remaps;
    /* catalog settings given as flags (--uri, --warehouse, ...): values
     * by zb_setting_id; --profile and --env files */
    const char *setting_flags[32];
    const char *profile_path;
    const char *env_path;
} scan_args;

static int usage(const char *fmt, ...) ZB_PRINTF(1, 2);

static int usage(const char *fmt, ...)
{
    va_list ap;

    fputs("zamboni scan: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'zamboni scan --help'.\n", stderr);
    return ZB_EXIT_USAGE;
}

/* The option's value: "--opt=v" or the next argument. NULL: missing. */
static const char *option_value(int argc, char **argv, int *i,
                                const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];

    if (strncmp(a, name, n) == 0 && a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int is_option(const char *a, const char *name)
{
    size_t n = strlen(name);

    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static int parse_args(scan_args *sa, int argc, char **argv, int *help)
{
    int i, options_done = 0;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;

        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            if (sa->table)
                return usage("unexpected argument '%s'", a);
            sa->table = a;
        } else if (strcmp(a, "--") == 0) {
            options_done = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            return ZB_EXIT_OK;
        } else if (strcmp(a, "--count") == 0) {
            sa->count = 1;
        } else if (is_option(a, "--snapshot")) {
            char *end;
            long long id;

            if ((v = option_value(argc, argv, &i, "--snapshot")) == NULL)
                return usage("option '%s' needs a value", "--snapshot");
            errno = 0;
            id = strtoll(v, &end, 10);
            if (errno || end == v || *end != '\0')
                return usage("invalid snapshot id '%s'", v);
            sa->have_snapshot = 1;
            sa->snapshot_id = (int64_t)id;
        } else if (is_option(a, "--format")) {
            if ((v = option_value(argc, argv, &i, "--format")) == NULL)
                return usage("option '%s' needs a value", "--format");
            if (strcmp(v, "jsonl") == 0)
                sa->format = ZB_SCAN_FORMAT_JSONL;
            else if (strcmp(v, "csv") == 0)
                sa->format = ZB_SCAN_FORMAT_CSV;
            else
                return usage("invalid value '%s' for --format (jsonl or csv)",
                             v);
        } else if (is_option(a, "--remap")) {
            const char *eq;
            ice_path_remap *r;

            if ((v = option_value(argc, argv, &i, "--remap")) == NULL)
                return usage("option '%s' needs a value", "--remap");
            eq = strchr(v, '=');
            if (eq == NULL || eq == v || eq[1] == '\0')
                return usage("invalid value '%s' for --remap (OLD=NEW)", v);
            r = zb_realloc(sa->remaps, (sa->n_remaps + 1) * sizeof *r);
            if (r == NULL) {
                fputs("zamboni scan: out of memory\n", stderr);
                return ZB_EXIT_FAILED;
            }
            sa->remaps = r;
            r[sa->n_remaps].from = zb_strndup(v, (size_t)(eq - v));
            r[sa->n_remaps].to = zb_strdup(eq + 1);
            sa->n_remaps++;
            if (!r[sa->n_remaps - 1].from || !r[sa->n_remaps - 1].to) {
                fputs("zamboni scan: out of memory\n", stderr);
                return ZB_EXIT_FAILED;
            }
        } else {
            char flag[64];
            size_t fl = strcspn(a, "=");
            int id;
            zb_ctx fctx;

            zb_ctx_init(&fctx);
            if (zb_settings_removed_flag(&fctx, a) < 0) {
                fprintf(stderr, "zamboni scan: %s\n", fctx.err.msg);
                return ZB_EXIT_USAGE;
            }
            if (fl < sizeof flag) {
                memcpy(flag, a, fl);
                flag[fl] = '\0';
                id = zb_settings_id_for_flag(flag);
                if (id >= 0 || strcmp(flag, "--profile") == 0 ||
                    strcmp(flag, "--env") == 0) {
                    if ((v = option_value(argc, argv, &i, flag)) == NULL)
                        return usage("option '%s' needs a value", flag);
                    if (strcmp(flag, "--profile") == 0)
                        sa->profile_path = v;
                    else if (strcmp(flag, "--env") == 0)
                        sa->env_path = v;
                    else if ((size_t)id < sizeof sa->setting_flags /
                                              sizeof sa->setting_flags[0])
                        sa->setting_flags[id] = v;
                    continue;
                }
            }
            return usage("unknown option '%s'", a);
        }
    }
    if (sa->table == NULL)
        return usage("%s", "missing TABLE (a table folder or namespace.table)");
    return ZB_EXIT_OK;
}

static void free_args(scan_args *sa)
{
    size_t k;

    for (k = 0; k < sa->n_remaps; k++) {
        zb_free((char *)sa->remaps[k].from);
        zb_free((char *)sa->remaps[k].to);
    }
    zb_free(sa->remaps);
}

/*
 * Whether TABLE names a folder (a file: URI, a path with a slash, or an
 * existing directory) rather than namespace.table.
 */
static int names_folder(const char *table)
{
    struct stat st;

    if (strncmp(table, "file:", 5) == 0 || strchr(table, '/') != NULL)
        return 1;
    if (stat(table, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    return strchr(table, '.') == NULL;
}

/* --count reads one column: the first that is not a variant. */
static int count_column(const ice_schema *schema, int32_t *id)
{
    size_t k;

    for (k = 0; k < schema->root->n_fields; k++) {
        const ice_field *f = &schema->root->fields[k];

        if (f->type->id != ICE_VARIANT) {
            *id = f->id;
            return 1;
        }
    }
    return 0;
}

typedef struct scan_run {
    const scan_args *args;
    zb_io *io;
    zb_table *table;
    const ice_snapshot *snap;
    const ice_schema *schema;
    uint64_t rows;
    int header_done;
} scan_run;

/* Reads the live rows of tasks[0..n): prints them or counts them. */
static int read_group(scan_run *r, zb_ctx *ctx, const zb_scan_task *tasks,
                      size_t n)
{
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowArray batch;
    struct ArrowSchema sch;
    int32_t one_id;
    int rc;

    memset(&batch, 0, sizeof batch);
    memset(&sch, 0, sizeof sch);
    o.meta = r->table->meta;
    o.schema = r->schema;
    o.paths = &r->table->paths;
    if (r->args->count && count_column(r->schema, &one_id)) {
        o.field_ids = &one_id;
        o.n_field_ids = 1;
    }
    if ((rc = zb_rowstream_open(&rs, r->io, ctx, &o, tasks, n)) < 0)
        goto done;
    while ((rc = zb_rowstream_next(rs, ctx, &batch,
                                   r->args->count ? NULL : &sch)) == 1) {
        if (r->args->count) {
            r->rows += (uint64_t)batch.length;
        } else {
            if (!r->header_done) {
                if ((rc = zb_scan_print_header(stdout, ctx, r->args->format,
                                               &sch)) < 0)
                    goto done;
                r->header_done = 1;
            }
            if ((rc = zb_scan_print_batch(stdout, ctx, r->args->format, &sch,
                                          &batch)) < 0)
                goto done;
            zb_arrow_schema_release(&sch);
        }
        zb_arrow_array_release(&batch);
    }
done:
    zb_arrow_array_release(&batch);
    zb_arrow_schema_release(&sch);
    zb_rowstream_free(rs);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * Plans the snapshot and reads it group by group: tasks are copied into
 * the arena until the group is full, then read and dropped.
 */
static int read_snapshot(scan_run *r, zb_ctx *ctx)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *plan = NULL;
    zb_arena *arena = NULL;
    zb_scan_task *group = NULL;
    const zb_scan_task *task;
    size_t n = 0;
    int rc;

    po.manifest = &r->table->paths;
    if ((rc = zb_arena_new(&arena, GROUP_ARENA_MAX)) < 0 ||
        (group = zb_calloc(GROUP_TASKS, sizeof *group)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_scan_plan_open(&plan, r->io, ctx, r->table->meta, r->snap,
                                &po)) < 0)
        goto done;
    while ((rc = zb_scan_plan_next(plan, ctx, &task)) > 0) {
        rc = zb_scan_task_copy(&group[n], ctx, arena, task);
        if (rc == ZB_ENOMEM && n > 0) {
            /* the arena is full: read what it holds, then copy again */
            zb_err_clear(&ctx->err);
            if ((rc = read_group(r, ctx, group, n)) < 0)
                goto done;
            n = 0;
            zb_arena_reset(arena);
            rc = zb_scan_task_copy(&group[n], ctx, arena, task);
        }
        if (rc < 0)
            goto done;
        if (++n == GROUP_TASKS || zb_arena_held_bytes(arena) >= GROUP_BYTES) {
            if ((rc = read_group(r, ctx, group, n)) < 0)
                goto done;
            n = 0;
            zb_arena_reset(arena);
        }
    }
    if (rc == 0 && n > 0)
        rc = read_group(r, ctx, group, n);
done:
    zb_scan_plan_free(plan);
    zb_free(group);
    zb_arena_free(arena);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * The CSV header when no batch came (an empty table or snapshot): the
 * header still names the columns, from an empty stream's schema.
 */
static int empty_header(scan_run *r, zb_ctx *ctx)
{
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowSchema sch;
    int rc;

    memset(&sch, 0, sizeof sch);
    o.meta = r->table->meta;
    o.schema = r->schema;
    if ((rc = zb_rowstream_open(&rs, r->io, ctx, &o, NULL, 0)) < 0)
        goto done;
    if ((rc = zb_rowstream_schema(&sch, rs, ctx)) < 0)
        goto done;
    rc = zb_scan_print_header(stdout, ctx, r->args->format, &sch);
done:
    zb_arrow_schema_release(&sch);
    zb_rowstream_free(rs);
    return rc;
}

static int scan_table(scan_run *r, zb_ctx *ctx)
{
    const ice_metadata *m = r->table->meta;
    int rc;

    if (r->args->have_snapshot) {
        r->snap = ice_metadata_snapshot(m, r->args->snapshot_id);
        if (r->snap == NULL)
            return zb_fail(ctx, ZB_ENOTFOUND, "no snapshot %lld in %s",
                           (long long)r->args->snapshot_id,
                           r->table->metadata_location);
    } else {
        r->snap = ice_metadata_current_snapshot(m);
    }
    /* time travel reads with the snapshot's schema; a plain scan with
     * the table's current one (as Iceberg's readers do) */
    r->schema = NULL;
    if (r->args->have_snapshot && r->snap->has_schema_id)
        r->schema = ice_metadata_schema(m, r->snap->schema_id);
    if (r->schema == NULL)
        r->schema = ice_metadata_current_schema(m);
    if (r->schema == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s has no current schema",
                       r->table->metadata_location);
    if (r->snap != NULL && (rc = read_snapshot(r, ctx)) < 0)
        return rc;
    rc = ZB_OK;
    if (r->args->count)
        printf("%llu\n", (unsigned long long)r->rows);
    else if (!r->header_done && r->args->format == ZB_SCAN_FORMAT_CSV)
        rc = empty_header(r, ctx);
    return rc;
}

/*
 * The configured catalog (cli/config/settings.h: flags, ZAMBONI_* variables,
 * zamboni.yml, $ZAMBONI_ROOT) with the --remap list. A SQLite catalog
 * whose database file does not exist is an error here: a read-only
 * command does not create one.
 */
static int open_configured(zb_catalog **cat, zb_settings **settings,
                           zb_ctx *ctx, zb_io *io, const scan_args *sa)
{
    zb_settings_input in = ZB_SETTINGS_INPUT_INIT;
    zb_catalog_config cfg;
    struct stat st;
    size_t k;
    int rc;

    for (k = 0; k < ZB_SET_COUNT &&
                k < sizeof sa->setting_flags / sizeof sa->setting_flags[0];
         k++)
        in.flags[k] = sa->setting_flags[k];
    in.profile_path = sa->profile_path;
    in.env_path = sa->env_path;
    in.cwd = ".";
    if ((rc = zb_settings_load(settings, ctx, &in)) < 0)
        return rc;
    memset(&cfg, 0, sizeof cfg);
    if ((rc = zb_settings_catalog_config(&cfg, ctx, *settings)) < 0)
        return rc;
    if (cfg.kind == ZB_CATALOG_SQLITE && cfg.sqlite_path &&
        stat(cfg.sqlite_path, &st) != 0)
        return zb_fail(ctx, ZB_ENOTFOUND,
                       "no catalog database at %s; set ZAMBONI_URI or "
                       "ZAMBONI_ROOT, or give the table's folder",
                       cfg.sqlite_path);
    cfg.n_remaps = sa->n_remaps;
    cfg.remaps = sa->remaps;
    return zb_catalog_open(cat, ctx, io, &cfg);
}

int zb_cli_scan_run(int argc, char **argv)
{
    scan_args sa;
    scan_run run;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *cat = NULL;
    zb_settings *settings = NULL;
    zb_ctx ctx;
    int help = 0, code, rc;

    memset(&sa, 0, sizeof sa);
    memset(&run, 0, sizeof run);
    zb_ctx_init(&ctx);
    if ((code = parse_args(&sa, argc, argv, &help)) != ZB_EXIT_OK || help) {
        if (help)
            fputs(zb_cli_scan_help, stdout);
        free_args(&sa);
        return code;
    }
    run.args = &sa;
    if ((rc = zb_io_new(&run.io, &ctx)) < 0)
        goto done;
    if (names_folder(sa.table)) {
        cfg.kind = ZB_CATALOG_PATH;
        cfg.name = "folder";
        cfg.n_remaps = sa.n_remaps;
        cfg.remaps = sa.remaps;
        rc = zb_catalog_open(&cat, &ctx, run.io, &cfg);
    } else {
        rc = open_configured(&cat, &settings, &ctx, run.io, &sa);
    }
    if (rc < 0)
        goto done;
    if ((rc = zb_catalog_load_table(cat, &ctx, sa.table, &run.table)) < 0)
        goto done;
    rc = scan_table(&run, &ctx);
    if (rc == ZB_OK && fflush(stdout) != 0)
        rc = zb_fail(&ctx, ZB_EIO, "cannot write the rows: %s",
                     strerror(errno));
done:
    if (rc < 0)
        fprintf(stderr, "zamboni scan: %s: %s\n", sa.table,
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    zb_table_free(run.table);
    zb_catalog_free(cat);
    zb_settings_free(settings);
    zb_io_free(run.io);
    free_args(&sa);
    return zb_cli_exit_code(rc);
}

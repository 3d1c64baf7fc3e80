/*
 * cli/verbs/verb_add_files.c - `zamboni add-files TABLE --source DIR_OR_URI
 * [--create] [--dry-run] [--allow-duplicates]`: existing Parquet files
 * become data files of TABLE in one append (ops/add_files/add_files.h). TABLE is
 * namespace.table in the configured catalog or a table folder, resolved
 * as the other verbs resolve it (cli/verbs/verbs.h); the catalog flags and
 * settings are theirs. Output: the report lines on stdout, errors on
 * stderr naming the table; exit code from cli/exit.c (3 for a refused
 * file or duplicates).
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/config/settings.h"
#include "cli/verbs/verbs.h"
#include "cli/verbs/verb_add_files.h"
#include "ops/add_files/add_files.h"
#include "util/alloc.h"
#include "util/err.h"

const char zb_cli_add_files_help[] =
    "Usage: zamboni add-files TABLE --source DIR_OR_URI [options]\n"
    "\n"
    "Registers existing Parquet files as data files of TABLE, without\n"
    "rewriting them (as Spark's add_files procedure and PyIceberg's\n"
    "add_files do), in one append snapshot. TABLE is namespace.table in\n"
    "the configured catalog or the path of a table folder.\n"
    "\n"
    "  --source DIR_OR_URI  a directory (listed recursively) or one file.\n"
    "                       Names starting with '.' or '_' are skipped,\n"
    "                       and so are files in hidden or temporary\n"
    "                       directories (.spark-staging, _temporary: '.',\n"
    "                       or '_' without '='); other files that are not\n"
    "                       Parquet are skipped; skipped files are counted\n"
    "  --create             create TABLE from the first file's schema\n"
    "                       (fresh field ids, schema.name-mapping.default\n"
    "                       set); NAME=VALUE directories become columns\n"
    "                       (long, date or string) and identity partition\n"
    "                       fields. Default: TABLE must exist\n"
    "  --partition-by SPEC  with --create: more partition fields after the\n"
    "                       directories', e.g. \"day(ts), bucket(16, id)\"\n"
    "                       (COL, year/month/day/hour(COL), bucket(N, COL),\n"
    "                       truncate(W, COL)); values from the files'\n"
    "                       statistics. Default: none\n"
    "  --format-version N   with --create: 1, 2 or 3 (default 2)\n"
    "  --allow-duplicates   add files that are already data files of TABLE\n"
    "                       (default: refuse, exit 3, nothing committed)\n"
    "  --dry-run            read and check every file, print what would be\n"
    "                       added; create and commit nothing\n"
    "  --warehouse W, --uri URI, --local-warehouse PATH, --profile FILE,\n"
    "  --env FILE, ...      the catalog settings, as for the other verbs\n"
    "\n"
    "Files without field ids are read by column name through the table's\n"
    "schema.name-mapping.default (set from the current schema when the\n"
    "table has none); files with field ids must use the table's ids.\n"
    "Every column must map to a field (none is dropped) and be readable\n"
    "as its field's type; with --create, as the first file's. Partition\n"
    "values: identity fields from NAME=VALUE directories (URL-decoded,\n"
    "__HIVE_DEFAULT_PARTITION__ is null), other fields (and identity\n"
    "fields without a directory) from the column's min and max, which\n"
    "must give one value (bucket: min = max). A NAME=VALUE directory for\n"
    "a column that is not identity-partitioned is refused unless the\n"
    "file holds that column with that value. Files already in TABLE (or\n"
    "listed twice) are duplicates; paths compare normalized (file:/x,\n"
    "file:///x and /x are one). Metrics (counts, bounds) come from the\n"
    "footers.\n"
    "A corrupt file or one that does not fit fails the whole command,\n"
    "naming the file, before anything is committed.\n"
    "\n"
    "Exit: 0 added, 1 failed, 2 usage, 3 refused (duplicates, a file that\n"
    "does not fit, --create on an existing table).\n";

static int parse(zb_verb_args *a, zb_add_files_opts *o, int argc,
                 char **argv, int *help)
{
    int i;

    *help = 0;
    a->verb = argv[0];
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
        char name[64];
        size_t nl = strcspn(arg, "=");
        int id;
        zb_ctx fctx;

        if (arg[0] != '-') {
            if (a->n_pos >= 1)
                return zb_verb_usage("add-files", "unexpected argument '%s'", arg);
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help = 1;
            return ZB_EXIT_OK;
        }
        if (strcmp(arg, "--create") == 0) {
            o->create = 1;
            continue;
        }
        if (strcmp(arg, "--dry-run") == 0) {
            a->dry_run = 1;
            continue;
        }
        if (strcmp(arg, "--allow-duplicates") == 0) {
            o->allow_duplicates = 1;
            continue;
        }
        zb_ctx_init(&fctx);
        if (zb_settings_removed_flag(&fctx, arg) < 0) {
            fprintf(stderr, "zamboni add-files: %s\n", fctx.err.msg);
            return ZB_EXIT_USAGE;
        }
        if (nl >= sizeof name)
            return zb_verb_usage("add-files", "unknown option '%s'", arg);
        memcpy(name, arg, nl);
        name[nl] = '\0';
        id = zb_settings_id_for_flag(name);
        if (id < 0 && strcmp(name, "--source") != 0 &&
            strcmp(name, "--profile") != 0 && strcmp(name, "--env") != 0 &&
            strcmp(name, "--format-version") != 0 &&
            strcmp(name, "--partition-by") != 0)
            return zb_verb_usage("add-files", "unknown option '%s'", arg);
        if (arg[nl] == '=')
            v = arg + nl + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        if (v == NULL)
            return zb_verb_usage("add-files", "option '%s' needs a value", name);
        if (strcmp(name, "--source") == 0) {
            o->source = v;
        } else if (strcmp(name, "--partition-by") == 0) {
            o->partition_by = v;
        } else if (strcmp(name, "--profile") == 0) {
            a->profile_path = v;
        } else if (strcmp(name, "--env") == 0) {
            a->env_path = v;
        } else if (strcmp(name, "--format-version") == 0) {
            if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3"))
                return zb_verb_usage("add-files", "invalid value '%s' for --format-version "
                             "(1, 2 or 3)", v);
            o->format_version = v[0] - '0';
        } else if (id < ZB_SET_COUNT) {
            a->setting_flags[id] = v;
        }
    }
    if (a->n_pos == 0)
        return zb_verb_usage("add-files", "%s", "missing TABLE (a table folder or "
                           "namespace.table)");
    if (o->source == NULL)
        return zb_verb_usage("add-files", "%s", "missing --source DIR_OR_URI");
    return ZB_EXIT_OK;
}

int zb_cli_add_files_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    zb_verb_env env;
    zb_op_target t;
    zb_catalog *cat = NULL;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;
    int owned = 0, help, code, rc;

    if ((a = zb_calloc(1, sizeof *a)) == NULL) {
        fputs("zamboni: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if ((code = parse(a, &o, argc, argv, &help)) != 0 || help) {
        if (help)
            fputs(zb_cli_add_files_help, stdout);
        goto done;
    }
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0 ||
        (rc = zb_verb_catalog(&cat, &owned, &env, &ctx, a->pos[0])) < 0) {
        fprintf(stderr, "zamboni add-files: %s\n", ctx.err.msg);
        code = zb_cli_exit_code(rc);
        goto done;
    }
    memset(&t, 0, sizeof t);
    t.catalog = cat;
    t.io = env.io;
    t.ident = a->pos[0];
    t.dry_run = a->dry_run;
    rc = zb_add_files(&t, &ctx, &o, &r);
    if (rc == ZB_OK) {
        zb_add_files_report(&out, t.ident, &r, t.dry_run);
        fputs(zb_buf_cstr(&out), stdout);
        if (t.dry_run)
            printf("\n  dry run -- nothing changed; re-run without "
                   "--dry-run to add the files.\n");
    } else {
        size_t tl = strlen(t.ident);
        if (strncmp(ctx.err.msg, t.ident, tl) == 0 && ctx.err.msg[tl] == ':')
            fprintf(stderr, "zamboni add-files: %s\n", ctx.err.msg);
        else
            fprintf(stderr, "zamboni add-files: %s: %s\n", t.ident,
                    ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    }
    code = zb_cli_exit_code(rc);
done:
    zb_buf_free(&out);
    if (owned)
        zb_catalog_free(cat);
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

/*
 * cli/verbs/verb_operations.c - the six operation verbs: `zamboni compact
 * TABLE`, apply-properties, remove-dangling-deletes, rewrite-manifests, expire,
 * remove-orphans.
 *
 * Each verb is the maintenance run (ops/maintenance_run.h) of one table with
 * only its operation selected, so a verb and the same step of
 * `maintenance` take their values from the same places: the flag, then
 * the table's entry in the table config, then the table's properties,
 * then the built-in default. Output: the operation's report lines on
 * stdout ("T: ..."), errors on stderr naming the table; with --dry-run a
 * trailer says nothing changed. Exit code from cli/exit.c.
 *
 * zb_verb_run_table is shared with `maintenance`
 * (cli/verbs/verb_maintenance.c): it opens the table's catalog (with the
 * --remap list), refuses a moved table that would write outside its new
 * location, and runs the selected operations with the process's threads
 * (zb_maint_opts.threads, from cli/config/resources.h).
 */
#define ZB_MODULE "cli"

#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli/exit.h"
#include "cli/verbs/progress.h"
#include "cli/verbs/verbs.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"

int zb_verb_check_flags(const zb_verb_args *a, const zb_verb_env *env)
{
    const char *engine = zb_verb_engine(env);

    if (strcmp(engine, "local") != 0) {
        fprintf(stderr, "zamboni %s: engine '%s' is not available in this "
                        "build; use --engine local (zamboni engines)\n",
                a->verb, engine);
        return ZB_EXIT_REFUSED;
    }
    if (a->snapshot_operation && strcmp(a->snapshot_operation, "replace")) {
        fprintf(stderr, "zamboni %s: --snapshot-operation %s is not "
                        "available in this build (replace is)\n",
                a->verb, a->snapshot_operation);
        return ZB_EXIT_REFUSED;
    }
    if (a->dangling_delete_policy &&
        strcmp(a->dangling_delete_policy, "report")) {
        fprintf(stderr, "zamboni %s: --dangling-delete-policy %s is not "
                        "available in this build (report is)\n",
                a->verb, a->dangling_delete_policy);
        return ZB_EXIT_REFUSED;
    }
    if (a->temp_directory != NULL)
        setenv("TMPDIR", a->temp_directory, 1);
    return ZB_EXIT_OK;
}

/* Whether path is dir or lies under it. */
static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 &&
           (path[n] == '\0' || path[n] == '/');
}

/* A moved table's write folders must lie under its new location. */
int zb_verb_check_moved(zb_catalog *cat, zb_ctx *ctx, const char *table)
{
    static const char *const props[2] = { ICE_PROP_DATA_PATH,
                                          ICE_PROP_METADATA_PATH };
    zb_table *t = NULL;
    zb_buf b = ZB_BUF_INIT(1 << 16);
    const char *loc, *p;
    size_t k;
    int rc;

    if (zb_catalog_load_table(cat, ctx, table, &t) < 0) {
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    loc = t->meta->location ? t->meta->location : "";
    rc = zb_table_resolve(&b, ctx, t, loc);
    if (rc == ZB_OK && strcmp(zb_buf_cstr(&b), loc) != 0) {
        for (k = 0; k < 2 && rc == ZB_OK; k++) {
            if ((p = ice_metadata_property(t->meta, props[k])) == NULL ||
                (rc = zb_table_resolve(&b, ctx, t, p)) < 0)
                continue;
            if (!is_under(zb_buf_cstr(&b), t->root))
                rc = zb_fail(ctx, ZB_EREFUSED,
                             "moved table (location %s, now %s): %s %s lies "
                             "outside its new location; give a --remap that "
                             "brings it under %s",
                             loc, t->root, props[k], zb_buf_cstr(&b),
                             t->root);
        }
    }
    zb_buf_free(&b);
    zb_table_free(t);
    return rc;
}

int zb_verb_run_table(zb_verb_env *env, zb_ctx *ctx, const char *table,
                      const zb_maint_opts *mo, zb_maint_step_fn on_step,
                      void *payload)
{
    zb_maint_opts m = *mo;
    zb_op_target t;
    zb_catalog *cat = NULL;
    int owned = 0, rc;

    /* the process's threads, unless the caller chose */
    if (m.threads <= 0 && env->res.threads > 0)
        m.threads = (int)env->res.threads;
    if ((rc = zb_verb_catalog(&cat, &owned, env, ctx, table)) < 0)
        return rc;
    if ((rc = zb_verb_check_moved(cat, ctx, table)) < 0) {
        if (owned)
            zb_catalog_free(cat);
        return rc;
    }
    memset(&t, 0, sizeof t);
    t.catalog = cat;
    t.io = env->io;
    t.ident = table;
    t.dry_run = env->args->dry_run;
    rc = zb_maintenance_table(&t, ctx, &m, on_step, payload);
    if (owned)
        zb_catalog_free(cat);
    return rc;
}

/* "retention.expire_snapshots.enabled" -> "expire_snapshots". */
void zb_verb_section_of(char *out, size_t size, const char *key)
{
    const char *s = strchr(key, '.'), *e;

    s = s ? s + 1 : key;
    e = strchr(s, '.');
    snprintf(out, size, "%.*s", (int)(e ? (size_t)(e - s) : strlen(s)), s);
}

typedef struct op_out {
    const zb_verb_args *args;
    int rc;
} op_out;

static void print_step(const zb_maint_step *st, void *payload)
{
    op_out *o = payload;
    char sec[64];

    zb_cli_progress_clear();
    switch (st->status) {
    case ZB_MAINT_RAN:
        if (st->detail && st->detail[0]) {
            fputs(st->detail, stdout);
            if (st->detail[strlen(st->detail) - 1] != '\n')
                putchar('\n');
        }
        if (st->rc < 0) {
            const char *msg = st->error ? st->error : zb_rc_name(st->rc);
            size_t tl = strlen(st->table);

            fflush(stdout);
            if (strncmp(msg, st->table, tl) == 0 && msg[tl] == ':')
                fprintf(stderr, "zamboni %s: %s\n", o->args->verb, msg);
            else
                fprintf(stderr, "zamboni %s: %s: %s\n", o->args->verb,
                        st->table, msg);
        }
        o->rc = st->rc;
        break;
    case ZB_MAINT_DISABLED:
        zb_verb_section_of(sec, sizeof sec, st->detail);
        printf("%s: %s is disabled in the table config\n", st->table, sec);
        break;
    default:
        break;
    }
}

int zb_cli_op_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_verb_env env;
    op_out o;
    zb_ctx ctx;
    unsigned bit;
    int op, help, code, i, rc;

    op = zb_maint_op_from_name(argv[0]);
    if (op < 0)
        return ZB_EXIT_USAGE;
    bit = ZB_VERB_COMPACT << op;
    if ((a = zb_calloc(1, sizeof *a)) == NULL) {
        fputs("zamboni: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if ((code = zb_verb_parse(a, bit, argc, argv, 1, 1, &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, bit);
        goto done;
    }
    for (i = 0; i < ZB_MAINT_OP_COUNT; i++)
        a->mo.run[i] = i == op;
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0) {
        fprintf(stderr, "zamboni %s: %s\n", a->verb, ctx.err.msg);
        code = zb_cli_exit_code(rc);
        goto done;
    }
    if ((code = zb_verb_check_flags(a, &env)) != 0)
        goto done;
    a->mo.config = env.tc;
    if (a->verbose) {
        const char *wh = zb_settings_get(env.settings,
                                         ZB_SET_LOCAL_WAREHOUSE);

        zb_verb_print_resources(stdout, &env, "");
        zb_verb_print_s3(stdout, &env, &ctx,
                         zb_verb_names_folder(a->pos[0]) ? a->pos[0] : wh,
                         "");
    }
    memset(&o, 0, sizeof o);
    o.args = a;
    zb_cli_progress_install(&ctx, isatty(STDERR_FILENO));
    rc = zb_verb_run_table(&env, &ctx, a->pos[0], &a->mo, print_step, &o);
    zb_cli_progress_end(&ctx);
    if (rc < 0 && o.rc == 0) {
        /* the catalog or the table did not open */
        fprintf(stderr, "zamboni %s: %s: %s\n", a->verb, a->pos[0],
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    }
    if (a->dry_run && rc == ZB_OK)
        printf("\n  dry run -- nothing changed; re-run without --dry-run "
               "to %s\n", zb_verb_trailer(bit));
    code = zb_cli_exit_code(rc);
done:
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

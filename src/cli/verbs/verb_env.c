/*
 * cli/verbs/verb_env.c - the run environment every verb opens the same
 * way, after zb_verb_parse (verb_args.c): zb_verb_env_open loads the
 * settings from the five sources of cli/config/settings.h and the table
 * config from --table-config or $ZAMBONI_ROOT/configs/<W>/table-config.json,
 * whose warehouse must be W (exit 3 before anything is touched), and for
 * a verb that works on tables the one memory budget of the process
 * (cli/config/resources.h) in ctx->budget; then
 * zb_verb_catalog opens the catalog of each table (a folder, or the
 * configured catalog), with the verb's --remap values. Every verb's FileIO
 * has the S3 backend (verb_s3.c), from the settings.
 */
#define ZB_MODULE "cli"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "exec/pool.h"
#include "exec/spill.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"
#include "zamboni/budget.h"

int zb_verb_names_folder(const char *table)
{
    struct stat st;

    if (strncmp(table, "file:", 5) == 0 || strchr(table, '/') != NULL)
        return 1;
    if (stat(table, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    /* a metadata file named directly ("v3.metadata.json" here) */
    if (stat(table, &st) == 0 && S_ISREG(st.st_mode) &&
        (zb_str_ends_with(table, ".json") ||
         zb_str_ends_with(table, ".json.gz")))
        return 1;
    return strchr(table, '.') == NULL;
}

const char *zb_verb_engine(const zb_verb_env *env)
{
    const char *e = env->settings ? zb_settings_get(env->settings,
                                                    ZB_SET_ENGINE)
                                  : NULL;
    return e ? e : "local";
}

const char *zb_verb_warehouse(const zb_verb_env *env)
{
    const char *w = env->settings ? zb_settings_get(env->settings,
                                                    ZB_SET_WAREHOUSE)
                                  : NULL;
    return w ? w : "tables";
}

/*
 * The budget and threads from the settings and the limits; the budget
 * into ctx. The warning is given once per process.
 */
static int open_budget(zb_verb_env *env, zb_ctx *ctx)
{
    static int warned;
    const char *pack = zb_settings_get(env->settings,
                                       ZB_SET_SPILL_COMPRESSION);
    zb_sys_limits l;
    int rc;

    /* validated by the settings: auto, always or never */
    zb_spill_set_pack(pack && strcmp(pack, "always") == 0
                      ? ZB_SPILL_PACK_ALWAYS
                      : pack && strcmp(pack, "never") == 0
                      ? ZB_SPILL_PACK_NEVER : ZB_SPILL_PACK_AUTO);
    zb_sys_limits_read(&l, NULL);
    zb_resources_resolve(&env->res, env->settings, &l);
    if (env->res.no_mem_limit && !warned) {
        warned = 1;
        zb_log_warn(ctx, "no memory limit found (no cgroup memory limit): "
                    "the memory budget is %llu bytes, the physical memory "
                    "minus the headroom; set --memory-budget-bytes, "
                    "ZAMBONI_MEMORY_BUDGET_BYTES or memory_budget_bytes: in "
                    "zamboni.yml", (unsigned long long)env->res.budget_bytes);
    }
    if ((rc = zb_budget_new(&env->budget, env->res.budget_bytes,
                            ctx->metrics)) < 0)
        return zb_fail(ctx, rc, "cannot create the memory budget: %s",
                       zb_rc_name(rc));
    env->ctx = ctx;
    ctx->budget = env->budget;
    return ZB_OK;
}

void zb_verb_print_resources(FILE *out, const zb_verb_env *env,
                             const char *prefix)
{
    char b[32];

    if (env->budget == NULL)
        return;
    if (env->res.budget_bytes == 0)
        snprintf(b, sizeof b, "none");
    else
        zb_str_format_bytes(b, sizeof b, env->res.budget_bytes);
    fprintf(out, "%smemory budget %s, %llu bytes (%s)\n", prefix, b,
            (unsigned long long)env->res.budget_bytes,
            env->res.budget_source);
    fprintf(out, "%sthreads %u (%s)\n", prefix, env->res.threads,
            env->res.threads_source);
}

json_t *zb_verb_budget_json(const zb_verb_env *env)
{
    zb_budget_stats st;

    if (env->budget == NULL)
        return json_null();
    zb_budget_stats_get(&st, env->budget);
    return json_pack("{sIsssIsfsI}", "limit_bytes",
                     (json_int_t)st.limit_bytes, "source",
                     env->res.budget_source, "peak_reserved_bytes",
                     (json_int_t)st.peak_bytes, "wait_seconds",
                     st.wait_seconds, "oversized",
                     (json_int_t)st.oversized);
}

int zb_verb_env_open(zb_verb_env *env, zb_ctx *ctx, const zb_verb_args *a)
{
    zb_settings_input in = ZB_SETTINGS_INPUT_INIT;
    const char *wh;
    struct stat st;
    size_t k;
    int rc;

    env->args = a;
    for (k = 0; k < ZB_SET_COUNT; k++)
        in.flags[k] = a->setting_flags[k];
    in.profile_path = a->profile_path;
    in.env_path = a->env_path;
    in.cwd = ".";
    if ((rc = zb_settings_load(&env->settings, ctx, &in)) < 0)
        return rc;
    if ((rc = zb_io_new(&env->io, ctx)) < 0 ||
        (rc = zb_verb_add_s3(env->io, ctx, env->settings,
                             &env->s3_pinned)) < 0)
        return rc;
    if (zb_verb_reads_tables(a->bit) && (rc = open_budget(env, ctx)) < 0)
        return rc;
    wh = zb_settings_get(env->settings, ZB_SET_WAREHOUSE);
    env->tc_path[0] = '\0';
    if (env->no_tc) {
        return ZB_OK;
    } else if (a->table_config != NULL) {
        snprintf(env->tc_path, sizeof env->tc_path, "%s", a->table_config);
    } else if (wh != NULL) {
        zb_buf p;

        zb_buf_init(&p, sizeof env->tc_path - 1);
        rc = zb_settings_table_config_path(&p, ctx, env->settings);
        if (rc == ZB_OK)
            snprintf(env->tc_path, sizeof env->tc_path, "%s",
                     zb_buf_cstr(&p));
        zb_buf_free(&p);
        if (rc < 0)
            return rc;
        if (stat(env->tc_path, &st) != 0 && !env->need_tc)
            env->tc_path[0] = '\0';
    }
    if (env->tc_path[0] == '\0')
        return ZB_OK;
    rc = zb_table_config_load(&env->tc, ctx, env->tc_path);
    if (rc == ZB_ENOTFOUND)
        return zb_fail(ctx, ZB_EUSAGE, "no table config at %s%s",
                       env->tc_path,
                       a->table_config ? "" : " (selected by the warehouse)");
    if (rc < 0)
        return rc;
    if (wh != NULL &&
        (rc = zb_table_config_check_warehouse(ctx, env->tc, wh)) < 0)
        return rc;
    return ZB_OK;
}

void zb_verb_env_close(zb_verb_env *env)
{
    zb_catalog_free(env->catalog);
    zb_table_config_free(env->tc);
    zb_settings_free(env->settings);
    zb_io_free(env->io);
    env->catalog = NULL;
    env->tc = NULL;
    env->settings = NULL;
    env->io = NULL;
    /* last: whatever held a reservation is gone */
    if (env->ctx != NULL && env->ctx->budget == env->budget)
        env->ctx->budget = NULL;
    zb_budget_free(env->budget);
    env->budget = NULL;
    env->ctx = NULL;
}

static int writes(const zb_verb_args *a)
{
    const unsigned writers = ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT |
                             ZB_VERB_APPLY | ZB_VERB_DANGLING |
                             ZB_VERB_MANIFESTS | ZB_VERB_EXPIRE |
                             ZB_VERB_ORPHANS | ZB_VERB_ADD_FILES;

    return a != NULL && (a->bit & writers) != 0;
}

int zb_verb_commits(const zb_verb_args *a)
{
    return writes(a) && !a->dry_run;
}

int zb_verb_configured_catalog(zb_catalog **out, zb_verb_env *env,
                               zb_ctx *ctx)
{
    zb_catalog_config cfg;
    struct stat st;
    int rc;

    *out = NULL;
    if (env->catalog == NULL) {
        memset(&cfg, 0, sizeof cfg);
        if ((rc = zb_settings_catalog_config(&cfg, ctx, env->settings)) < 0)
            return rc;
        if (cfg.kind == ZB_CATALOG_SQLITE && cfg.sqlite_path &&
            stat(cfg.sqlite_path, &st) != 0)
            return zb_fail(ctx, ZB_ENOTFOUND,
                           "no catalog database at %s; set ZAMBONI_URI or "
                           "ZAMBONI_ROOT, or give the table's folder",
                           cfg.sqlite_path);
        cfg.n_remaps = env->args->n_remaps;
        cfg.remaps = env->args->remaps;
        cfg.s3_pinned = env->s3_pinned;
        if ((rc = zb_catalog_open(&env->catalog, ctx, env->io, &cfg)) < 0)
            return rc;
    }
    *out = env->catalog;
    return ZB_OK;
}

int zb_verb_catalog(zb_catalog **out, int *owned, zb_verb_env *env,
                    zb_ctx *ctx, const char *table)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    int rc;

    *out = NULL;
    *owned = 0;
    if (zb_verb_names_folder(table)) {
        cfg.kind = ZB_CATALOG_PATH;
        cfg.name = "folder";
        cfg.n_remaps = env->args->n_remaps;
        cfg.remaps = env->args->remaps;
        cfg.s3_pinned = env->s3_pinned;
        if ((rc = zb_catalog_open(out, ctx, env->io, &cfg)) < 0)
            return rc;
        *owned = 1;
        /* refused before any request: the work would be lost at commit */
        /* a preview of a change from an older named metadata file
         * would list what the real run refuses (remove-orphans: newer
         * live files as orphans), so it is refused the same way */
        if (zb_verb_commits(env->args))
            rc = zb_catalog_check_writable(*out, ctx, table);
        else if (writes(env->args))
            rc = zb_catalog_check_current(*out, ctx, table);
        else
            rc = ZB_OK;
        if (rc < 0) {
            zb_catalog_free(*out);
            *out = NULL;
            *owned = 0;
            return rc;
        }
        return ZB_OK;
    }
    return zb_verb_configured_catalog(out, env, ctx);
}

static atomic_int *stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    if (stop_flag != NULL)
        atomic_store(stop_flag, 1);
}

void zb_verb_catch_stop_signals(atomic_int *flag)
{
    struct sigaction sa;

    stop_flag = flag;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

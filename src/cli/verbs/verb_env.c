/*
 * cli/verbs/verb_env.c - the run environment every verb opens the same
 * way, after zb_verb_parse (verb_args.c): zb_verb_env_open loads the
 * settings from the five sources of cli/config/settings.h and the table
 * config from --table-config or $ZAMBONI_ROOT/configs/<W>/table-config.json,
 * whose warehouse must be W (exit 3 before anything is touched); then
 * zb_verb_catalog opens the catalog of each table (a folder, or the
 * configured catalog), with the verb's --remap values.
 */
#define ZB_MODULE "cli"

#include <string.h>
#include <sys/stat.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"

int zb_verb_names_folder(const char *table)
{
    struct stat st;

    if (strncmp(table, "file:", 5) == 0 || strchr(table, '/') != NULL)
        return 1;
    if (stat(table, &st) == 0 && S_ISDIR(st.st_mode))
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
    if ((rc = zb_io_new(&env->io, ctx)) < 0)
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
        if ((rc = zb_catalog_open(out, ctx, env->io, &cfg)) < 0)
            return rc;
        *owned = 1;
        return ZB_OK;
    }
    return zb_verb_configured_catalog(out, env, ctx);
}

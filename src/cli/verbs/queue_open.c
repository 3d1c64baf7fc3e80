/*
 * cli/verbs/queue_open.c - which database holds the task queue
 * (queue_open.h) and the size classes the verbs use.
 */
#define ZB_MODULE "cli"

#define _XOPEN_SOURCE 700   /* realpath */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs/queue_open.h"
#include "util/err.h"
#include "util/str.h"

static int is_pg_uri(const char *u)
{
    return zb_str_starts_with(u, "postgresql://") ||
           zb_str_starts_with(u, "postgres://") ||
           zb_str_starts_with(u, "postgresql+");
}

/* sqlite:PATH, and the SQLAlchemy spellings sqlite:///rel, sqlite:////abs. */
static const char *sqlite_path_of(const char *u)
{
    const char *p = u + strlen("sqlite:");

    if (strncmp(p, "///", 3) == 0)
        p += 3;
    return p;
}

static int open_uri(zb_sqldb **out, zb_verb_env *env, zb_ctx *ctx,
                    const char *uri)
{
    zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;
    zb_catalog_config cc;
    char path[4096];
    int rc;

    if (zb_str_starts_with(uri, "sqlite:")) {
        const char *p = sqlite_path_of(uri);
        const char *home = getenv("HOME");

        if (p[0] == '\0')
            return zb_fail(ctx, ZB_EUSAGE, "queue_uri sqlite: names no "
                           "file (sqlite:PATH)");
        if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
            snprintf(path, sizeof(path), "%s%s", home, p + 1);
        else
            snprintf(path, sizeof(path), "%s", p);
        cfg.sqlite_path = path;
        return zb_sqldb_open(out, ctx, &cfg);
    }
    if (!is_pg_uri(uri))
        return zb_fail(ctx, ZB_EUSAGE, "queue_uri (%s) must be sqlite:PATH "
                       "or postgresql://...",
                       zb_settings_origin(env->settings, ZB_SET_QUEUE_URI));
    /* The pools and the read URL are the SQL catalog's settings. */
    memset(&cc, 0, sizeof(cc));
    if ((rc = zb_settings_catalog_config(&cc, ctx, env->settings)) < 0)
        zb_err_clear(&ctx->err);
    cfg.pg_write_url = uri;
    cfg.pg_read_url = zb_settings_get(env->settings, ZB_SET_PG_READ_URL);
    cfg.pg_write_pool = rc == ZB_OK ? cc.pg_write_pool : 0;
    cfg.pg_read_pool = rc == ZB_OK ? cc.pg_read_pool : 0;
    return zb_sqldb_open(out, ctx, &cfg);
}

/* The SQL catalog's handle, or NULL (*is_sql 0) for another kind. */
static int catalog_db(zb_sqldb **out, int *is_sql, zb_verb_env *env,
                      zb_ctx *ctx)
{
    zb_catalog_config cc;
    zb_catalog *cat = NULL;
    int rc;

    *out = NULL;
    *is_sql = 0;
    memset(&cc, 0, sizeof(cc));
    if ((rc = zb_settings_catalog_config(&cc, ctx, env->settings)) < 0)
        return rc;
    if (cc.kind != ZB_CATALOG_SQLITE && cc.kind != ZB_CATALOG_POSTGRES)
        return ZB_OK;
    *is_sql = 1;
    if ((rc = zb_verb_configured_catalog(&cat, env, ctx)) < 0)
        return rc;
    if (zb_catalog_sqldb(cat) == NULL)
        return zb_fail(ctx, ZB_EINVAL, "the SQL catalog has no database");
    *out = zb_sqldb_ref(zb_catalog_sqldb(cat));
    return ZB_OK;
}

int zb_verb_queue_db(zb_sqldb **out, zb_verb_env *env, zb_ctx *ctx)
{
    const char *quri = zb_settings_get(env->settings, ZB_SET_QUEUE_URI);
    const char *curi = zb_settings_get(env->settings, ZB_SET_URI);
    const char *root = zb_settings_get(env->settings, ZB_SET_ROOT);
    char path[4096];
    int is_sql = 0, rc;

    *out = NULL;
    if (quri != NULL && quri[0] != '\0') {
        /* The catalog's own database: share its connections. */
        if (curi != NULL && strcmp(quri, curi) == 0 &&
            (rc = catalog_db(out, &is_sql, env, ctx)) == ZB_OK && is_sql)
            return ZB_OK;
        zb_err_clear(&ctx->err);
        rc = open_uri(out, env, ctx, quri);
        if (rc < 0)
            zb_err_prefix(ctx, "opening the queue database");
        return rc;
    }
    if ((rc = catalog_db(out, &is_sql, env, ctx)) < 0) {
        zb_err_prefix(ctx, "the queue lives in the SQL catalog's database "
                      "(or set ZAMBONI_QUEUE_URI)");
        return rc;
    }
    if (is_sql)
        return ZB_OK;
    snprintf(path, sizeof(path), "%s/queue.db", root ? root : ".");
    {
        zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;

        cfg.sqlite_path = path;
        rc = zb_sqldb_open(out, ctx, &cfg);
    }
    if (rc < 0)
        zb_err_prefix(ctx, "opening the queue database");
    return rc;
}

int zb_verb_size_classes(zb_size_classes *out, zb_verb_env *env,
                         zb_ctx *ctx)
{
    const char *json = zb_settings_get(env->settings, ZB_SET_SIZE_CLASSES);

    if (json == NULL || json[0] == '\0') {
        zb_size_classes_default(out);
        return ZB_OK;
    }
    return zb_size_classes_parse_json(out, ctx, json,
        zb_settings_origin(env->settings, ZB_SET_SIZE_CLASSES));
}

int zb_verb_queue_open(zb_queue **out, zb_verb_env *env, zb_ctx *ctx)
{
    zb_size_classes cs;
    zb_sqldb *db = NULL;
    int rc;

    *out = NULL;
    if ((rc = zb_verb_size_classes(&cs, env, ctx)) < 0 ||
        (rc = zb_verb_queue_db(&db, env, ctx)) < 0)
        return rc;
    rc = zb_queue_open(out, ctx, db);
    zb_sqldb_close(db);             /* the queue holds its own reference */
    if (rc == ZB_OK)
        zb_queue_set_size_classes(*out, &cs);
    return rc;
}

void zb_verb_queue_clock_check(zb_queue *q, const char *verb)
{
    int64_t skew = 0;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    if (zb_queue_clock_skew_ms(q, &ctx, &skew) < 0) {
        fprintf(stderr, "zamboni %s: warning: cannot compare this host's "
                "clock with the queue database's: %s\n", verb, ctx.err.msg);
        return;
    }
    if (skew > ZB_QUEUE_CLOCK_SKEW_WARN_MS ||
        skew < -ZB_QUEUE_CLOCK_SKEW_WARN_MS)
        fprintf(stderr, "zamboni %s: warning: this host's clock is %lld s "
                "%s the queue database's (%s): leases and schedules follow "
                "the database's clock; fix the host's time sync (NTP)\n",
                verb, (long long)((skew < 0 ? -skew : skew) / 1000),
                skew > 0 ? "ahead of" : "behind",
                zb_sqldb_describe(zb_queue_db(q)));
    fflush(stderr);
}

void zb_verb_queue_for_records(zb_queue **out, char *why, size_t why_size,
                               zb_verb_env *env, zb_ctx *ctx)
{
    const char *quri = zb_settings_get(env->settings, ZB_SET_QUEUE_URI);
    zb_sqldb *db = NULL;
    zb_err saved;
    int version = 0, is_sql = 0, rc;

    *out = NULL;
    why[0] = '\0';
    zb_err_copy(&saved, &ctx->err);
    if (quri != NULL && quri[0] != '\0')
        rc = zb_verb_queue_db(&db, env, ctx);
    else if ((rc = catalog_db(&db, &is_sql, env, ctx)) == ZB_OK && !is_sql)
        snprintf(why, why_size, "no queue database configured");
    if (rc == ZB_OK && db != NULL &&
        (rc = zb_queue_schema_version(db, ctx, &version)) == ZB_OK &&
        version == 0 && (quri == NULL || quri[0] == '\0'))
        snprintf(why, why_size, "the catalog's database has no queue "
                 "schema");
    else if (rc == ZB_OK && db != NULL)
        rc = zb_queue_open(out, ctx, db);
    if (rc < 0)
        snprintf(why, why_size, "%s", ctx->err.msg);
    zb_sqldb_close(db);
    zb_err_copy(&ctx->err, &saved);
}

int zb_verb_catalog_in_queue_db(const zb_settings *s,
                                const zb_catalog_config *cfg)
{
    const char *q = zb_settings_get(s, ZB_SET_QUEUE_URI);
    char a[PATH_MAX], b[PATH_MAX];

    if (cfg->kind != ZB_CATALOG_SQLITE && cfg->kind != ZB_CATALOG_POSTGRES)
        return 0;
    if (q == NULL)
        return 1;                  /* the queue defaults to the catalog's */
    if (cfg->kind == ZB_CATALOG_SQLITE && strncmp(q, "sqlite:", 7) == 0 &&
        cfg->sqlite_path != NULL)
        return realpath(q + 7, a) != NULL &&
               realpath(cfg->sqlite_path, b) != NULL && strcmp(a, b) == 0;
    return cfg->kind == ZB_CATALOG_POSTGRES && cfg->pg_write_url != NULL &&
           strcmp(q, cfg->pg_write_url) == 0;
}

int zb_verb_service_catalog(zb_catalog **out, zb_ctx *ctx,
                            const zb_verb_env *env, zb_queue *q, int share_db,
                            const char *warehouse)
{
    zb_catalog_config cfg;
    zb_io *io = NULL;
    unsigned pinned = 0;
    int rc;

    *out = NULL;
    memset(&cfg, 0, sizeof cfg);
    rc = zb_settings_catalog_config(&cfg, ctx, env->settings);
    if (rc == ZB_OK && (rc = zb_io_new(&io, ctx)) == ZB_OK)
        rc = zb_verb_add_s3(io, ctx, env->settings, &pinned);
    if (rc == ZB_OK) {
        cfg.warehouse = warehouse;
        cfg.s3_pinned = pinned;
        cfg.owns_io = 1;
        if (share_db)
            cfg.sqldb = zb_queue_db(q);
        rc = zb_catalog_open(out, ctx, io, &cfg);
        if (rc == ZB_OK)
            io = NULL;             /* the catalog owns it */
    }
    zb_io_free(io);
    return rc;
}

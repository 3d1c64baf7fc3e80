/*
 * cli/config/settings.c - the configuration resolved from flags, the
 * environment, .env and the two profiles (see settings.h for the order).
 *
 * zb_settings_load reads the sources in the order their dependencies
 * allow: ./zamboni.yml (or --profile) and --env or ./.env first, then the
 * root (which may come from any of those), then $ZAMBONI_ROOT/.env when no
 * other .env was used, then $ZAMBONI_ROOT/zamboni.yml. Each setting of the
 * table below is then resolved once, walking the sources from highest to
 * lowest, and its value and origin are copied into the settings' arena.
 * The profiles and the .env are kept (for operations, tables and paths)
 * and freed with the settings.
 */
#define ZB_MODULE "config"

#include "cli/config/settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"

typedef struct setting_def {
    const char *key;       /* name in messages and describe */
    const char *flag;      /* command-line flag, or NULL */
    const char *env;       /* ZAMBONI_* variable */
    const char *env_alt;   /* a second accepted spelling, or NULL */
    const char *profile;   /* zamboni.yml key, or NULL (not allowed there) */
    const char *def;       /* built-in default, or NULL */
    int secret;
    /* Variables of other tools read after the profiles, before the
     * default (AWS_REGION for s3_region), or NULL. */
    const char *fallback_env[2];
} setting_def;

static const setting_def defs[ZB_SET_COUNT] = {
    [ZB_SET_URI] = { "uri", "--uri", "ZAMBONI_URI", NULL, "uri", NULL, 0,
                     { NULL, NULL } },
    [ZB_SET_WAREHOUSE] = { "warehouse", "--warehouse", "ZAMBONI_WAREHOUSE",
                           NULL, "warehouse", NULL, 0, { NULL, NULL } },
    [ZB_SET_ENGINE] = { "engine", "--engine", "ZAMBONI_ENGINE", NULL,
                        "engine", "local", 0, { NULL, NULL } },
    [ZB_SET_ROOT] = { "root", NULL, "ZAMBONI_ROOT", NULL, "root",
                      "~/.zamboni", 0, { NULL, NULL } },
    /* the interface document's env.sample spelled it without the 2 */
    [ZB_SET_OAUTH2_SERVER_URI] = { "oauth2_server_uri", "--oauth2-server-uri",
                                   "ZAMBONI_OAUTH2_SERVER_URI",
                                   "ZAMBONI_OAUTH_SERVER_URI", NULL, NULL, 0,
                                       { NULL, NULL } },
    [ZB_SET_SCOPE] = { "scope", "--scope", "ZAMBONI_SCOPE", NULL, NULL, NULL,
                       0, { NULL, NULL } },
    [ZB_SET_LOCAL_WAREHOUSE] = { "local_warehouse", "--local-warehouse",
                                 "ZAMBONI_LOCAL_WAREHOUSE", NULL, NULL, NULL,
                                 0, { NULL, NULL } },
    [ZB_SET_S3_ENDPOINT] = { "s3_endpoint", "--s3-endpoint",
                             "ZAMBONI_S3_ENDPOINT", NULL, "s3_endpoint",
                             NULL, 0, { NULL, NULL } },
    [ZB_SET_S3_REGION] = { "s3_region", "--s3-region", "ZAMBONI_S3_REGION",
                           NULL, "s3_region", "us-east-1", 0,
                           { "AWS_REGION", "AWS_DEFAULT_REGION" } },
    [ZB_SET_S3_ACCESS_KEY_ID] = { "s3_access_key_id", "--s3-access-key-id",
                                  "ZAMBONI_S3_ACCESS_KEY_ID", NULL, NULL,
                                  NULL, 0, { NULL, NULL } },
    [ZB_SET_S3_SECRET_ACCESS_KEY] = { "s3_secret_access_key", NULL,
                                      "ZAMBONI_S3_SECRET_ACCESS_KEY", NULL,
                                      NULL, NULL, 1, { NULL, NULL } },
    [ZB_SET_S3_SESSION_TOKEN] = { "s3_session_token", NULL,
                                  "ZAMBONI_S3_SESSION_TOKEN", NULL, NULL,
                                  NULL, 1, { NULL, NULL } },
    [ZB_SET_S3_PATH_STYLE_ACCESS] = { "s3_path_style_access",
                                      "--s3-path-style-access",
                                      "ZAMBONI_S3_PATH_STYLE_ACCESS", NULL,
                                      "s3_path_style_access", NULL, 0,
                                      { NULL, NULL } },
    [ZB_SET_S3_MAX_ATTEMPTS] = { "s3_max_attempts", "--s3-max-attempts",
                                 "ZAMBONI_S3_MAX_ATTEMPTS", NULL,
                                 "s3_max_attempts", NULL, 0, { NULL, NULL } },
    [ZB_SET_S3_MAX_RETRY_SECONDS] = { "s3_max_retry_seconds",
                                      "--s3-max-retry-seconds",
                                      "ZAMBONI_S3_MAX_RETRY_SECONDS", NULL,
                                      "s3_max_retry_seconds", NULL, 0,
                                      { NULL, NULL } },
    [ZB_SET_S3_TIMEOUT_SECONDS] = { "s3_timeout_seconds",
                                    "--s3-timeout-seconds",
                                    "ZAMBONI_S3_TIMEOUT_SECONDS", NULL,
                                    "s3_timeout_seconds", NULL, 0,
                                    { NULL, NULL } },
    [ZB_SET_S3_MULTIPART_THRESHOLD_BYTES] = {
        "s3_multipart_threshold_bytes", "--s3-multipart-threshold-bytes",
        "ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES", NULL,
        "s3_multipart_threshold_bytes", NULL, 0, { NULL, NULL } },
    [ZB_SET_CREDENTIAL] = { "credential", NULL, "ZAMBONI_CREDENTIAL", NULL,
                            NULL, NULL, 1, { NULL, NULL } },
    [ZB_SET_TOKEN] = { "token", NULL, "ZAMBONI_TOKEN", NULL, NULL, NULL, 1,
                       { NULL, NULL } },
    [ZB_SET_TRINO_HOST] = { "trino_host", "--trino-host",
                            "ZAMBONI_TRINO_HOST", NULL, "trino.host", NULL,
                            0, { NULL, NULL } },
    [ZB_SET_TRINO_PORT] = { "trino_port", "--trino-port",
                            "ZAMBONI_TRINO_PORT", NULL, "trino.port", NULL,
                            0, { NULL, NULL } },
    [ZB_SET_TRINO_USER] = { "trino_user", "--trino-user",
                            "ZAMBONI_TRINO_USER", NULL, "trino.user", NULL,
                            0, { NULL, NULL } },
    [ZB_SET_TRINO_CATALOG] = { "trino_catalog", "--trino-catalog",
                               "ZAMBONI_TRINO_CATALOG", NULL, "trino.catalog",
                               NULL, 0, { NULL, NULL } },
    [ZB_SET_TRINO_VERSION] = { "trino_version", "--trino-version",
                               "ZAMBONI_TRINO_VERSION", NULL, "trino.version",
                               NULL, 0, { NULL, NULL } },
    [ZB_SET_SPARK_REMOTE] = { "spark_remote", "--spark-remote",
                              "ZAMBONI_SPARK_REMOTE", NULL, "spark.remote",
                              NULL, 0, { NULL, NULL } },
    [ZB_SET_SPARK_MASTER] = { "spark_master", "--spark-master",
                              "ZAMBONI_SPARK_MASTER", NULL, "spark.master",
                              NULL, 0, { NULL, NULL } },
    [ZB_SET_SPARK_CATALOG] = { "spark_catalog", "--spark-catalog",
                               "ZAMBONI_SPARK_CATALOG", NULL, "spark.catalog",
                               NULL, 0, { NULL, NULL } },
    [ZB_SET_PG_READ_URL] = { "pg_read_url", NULL, "ZAMBONI_PG_READ_URL", NULL,
                             NULL, NULL, 1, { NULL, NULL } },
    [ZB_SET_PG_WRITE_POOL] = { "pg_write_pool", NULL, "ZAMBONI_PG_WRITE_POOL",
                               NULL, NULL, "2", 0, { NULL, NULL } },
    [ZB_SET_PG_READ_POOL] = { "pg_read_pool", NULL, "ZAMBONI_PG_READ_POOL",
                              NULL, NULL, "2", 0, { NULL, NULL } },
    /* no default here: cli/config/resources.c sizes them from the limits */
    [ZB_SET_MEMORY_BUDGET_BYTES] = { "memory_budget_bytes",
                                     "--memory-budget-bytes",
                                     "ZAMBONI_MEMORY_BUDGET_BYTES", NULL,
                                     "memory_budget_bytes", NULL, 0,
                                         { NULL, NULL } },
    [ZB_SET_THREADS] = { "threads", "--threads", "ZAMBONI_THREADS", NULL,
                         "threads", NULL, 0, { NULL, NULL } },
    /* NULL: the catalog's database when the catalog is SQL, else
     * sqlite:$ZAMBONI_ROOT/queue.db (service/) */
    [ZB_SET_QUEUE_URI] = { "queue_uri", "--queue-uri", "ZAMBONI_QUEUE_URI",
                           NULL, "queue_uri", NULL, 1, { NULL, NULL } },
    [ZB_SET_QUEUE_MAX_TASKS] = { "queue_max_tasks", NULL,
                                 "ZAMBONI_QUEUE_MAX_TASKS", NULL,
                                 "queue_max_tasks", "10000", 0,
                                 { NULL, NULL } },
    [ZB_SET_MAX_ATTEMPTS] = { "max_attempts", "--max-attempts",
                              "ZAMBONI_MAX_ATTEMPTS", NULL, "max_attempts",
                              "5", 0, { NULL, NULL } },
    [ZB_SET_SIZE_CLASS] = { "size_class", "--size-class",
                            "ZAMBONI_SIZE_CLASS", NULL, "size_class", NULL, 0,
                            { NULL, NULL } },
    /* zamboni.yml's size_classes: is a list, read by the profile */
    [ZB_SET_SIZE_CLASSES] = { "size_classes", NULL, "ZAMBONI_SIZE_CLASSES",
                              NULL, "size_classes", NULL, 0, { NULL, NULL } },
    [ZB_SET_WORKERS] = { "workers", "--workers", "ZAMBONI_WORKERS", NULL,
                         "workers", "1", 0, { NULL, NULL } },
    [ZB_SET_DRAIN_TIMEOUT] = { "drain_timeout", "--drain-timeout",
                               "ZAMBONI_DRAIN_TIMEOUT", NULL, "drain_timeout",
                               "0", 0, { NULL, NULL } },
    [ZB_SET_MAX_LIFETIME] = { "max_lifetime", "--max-lifetime",
                              "ZAMBONI_MAX_LIFETIME", NULL, "max_lifetime",
                              "1h", 0, { NULL, NULL } },
    [ZB_SET_IDLE_EXIT_AFTER] = { "idle_exit_after", "--idle-exit-after",
                                 "ZAMBONI_IDLE_EXIT_AFTER", NULL,
                                 "idle_exit_after", "180s", 0,
                                 { NULL, NULL } },
    [ZB_SET_LEASE_SECONDS] = { "lease_seconds", "--lease-seconds",
                               "ZAMBONI_LEASE_SECONDS", NULL, "lease_seconds",
                               "60", 0, { NULL, NULL } },
    [ZB_SET_HEARTBEAT_SECONDS] = { "heartbeat_seconds", "--heartbeat-seconds",
                                   "ZAMBONI_HEARTBEAT_SECONDS", NULL,
                                   "heartbeat_seconds", "10", 0,
                                   { NULL, NULL } },
    [ZB_SET_SPILL_DISK_LIMIT_BYTES] = { "spill_disk_limit_bytes", NULL,
                                        "ZAMBONI_SPILL_DISK_LIMIT_BYTES", NULL,
                                        "spill_disk_limit_bytes",
                                        "107374182400", 0, { NULL, NULL } },
    [ZB_SET_SPILL_COMPRESSION] = { "spill_compression", NULL,
                                   "ZAMBONI_SPILL_COMPRESSION", NULL,
                                   "spill_compression", "auto", 0,
                                   { NULL, NULL } },
    /* serve (issue 18) */
    [ZB_SET_LISTEN] = { "listen", "--listen", "ZAMBONI_LISTEN", NULL,
                        "listen", "127.0.0.1:8650", 0, { NULL, NULL } },
    [ZB_SET_SERVE_TOKEN] = { "serve_token", NULL, "ZAMBONI_SERVE_TOKEN",
                             NULL, NULL, NULL, 1, { NULL, NULL } },
    [ZB_SET_PLAN_INTERVAL] = { "plan_interval", "--plan-interval",
                               "ZAMBONI_PLAN_INTERVAL", NULL,
                               "plan_interval", "60s", 0, { NULL, NULL } },
};

int zb_duration_parse_ms(int64_t *out, const char *text)
{
    uint64_t n = 0, unit = 1000;
    const char *p = text;

    if (text == NULL || *text < '0' || *text > '9')
        return ZB_EUSAGE;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > UINT64_C(1) << 40)
            return ZB_EUSAGE;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (strcmp(p, "ms") == 0)
        unit = 1;
    else if (*p == '\0' || strcmp(p, "s") == 0)
        unit = 1000;
    else if (strcmp(p, "m") == 0)
        unit = 60000;
    else if (strcmp(p, "h") == 0)
        unit = 3600000;
    else if (strcmp(p, "d") == 0)
        unit = 86400000;
    else
        return ZB_EUSAGE;
    *out = (int64_t)(n * unit);
    return ZB_OK;
}

int zb_settings_duration_ms(int64_t *out, zb_ctx *ctx, const zb_settings *s,
                            zb_setting_id id)
{
    const char *v = zb_settings_get(s, id);

    *out = 0;
    if (v == NULL)
        return ZB_OK;
    if (zb_duration_parse_ms(out, v) < 0)
        return zb_fail(ctx, ZB_EUSAGE, "%s '%s' (%s) is not a duration: give "
                       "seconds or a number with ms, s, m, h or d (30s, 10m, "
                       "1h)", zb_settings_key_name(id), v,
                       zb_settings_origin(s, id));
    return ZB_OK;
}

/* The largest budget taken: 1 EiB (more is a typo, not a machine). */
#define MEMORY_BUDGET_MAX ((uint64_t)1 << 60)
/* S3's largest single PUT: files above go in parts anyway. */
#define S3_PUT_MAX ((uint64_t)5 << 30)

#define SETTINGS_ARENA_MAX (4u << 20)
#define PATH_MAX_BYTES 4096

struct zb_settings {
    zb_arena *arena;
    const char *value[ZB_SET_COUNT];
    const char *origin[ZB_SET_COUNT];
    zb_setting_source source[ZB_SET_COUNT];
    zb_profile *profile;        /* ./zamboni.yml or --profile */
    zb_profile *root_profile;   /* $ZAMBONI_ROOT/zamboni.yml */
    zb_dotenv *dotenv;
    zb_settings_getenv_fn getenv_fn;
    void *getenv_payload;
    const char *home;
    const char *ops_origin;      /* "PATH:LINE" of operations:, or NULL */
    const char *tables_origin;   /* "PATH:LINE" of tables:, or NULL */
};

static int find_list(const char **origin_out, zb_ctx *ctx, zb_settings *s,
                     const char *const *(*get)(const zb_profile *, size_t *,
                                               unsigned *));

static const char *plain_getenv(const char *name, void *payload)
{
    ZB_UNUSED(payload);
    return getenv(name);
}

void zb_settings_free(zb_settings *s)
{
    if (s == NULL)
        return;
    zb_profile_free(s->profile);
    zb_profile_free(s->root_profile);
    zb_dotenv_free(s->dotenv);
    zb_arena_free(s->arena);
    zb_free(s);
}

/* An unset or empty variable counts as absent. */
static const char *real_env(const zb_settings *s, const char *name)
{
    const char *v = name ? s->getenv_fn(name, s->getenv_payload) : NULL;
    return (v && v[0]) ? v : NULL;
}

static const char *file_env(const zb_settings *s, const char *name)
{
    const char *v = name ? zb_dotenv_get(s->dotenv, name) : NULL;
    return (v && v[0]) ? v : NULL;
}

/* "~" and "~/x" with $HOME; other values as they are. */
static int expand_home(const char **out, zb_ctx *ctx, zb_settings *s,
                       const char *v, const char *origin)
{
    *out = v;
    if (v == NULL || v[0] != '~' || (v[1] != '\0' && v[1] != '/'))
        return ZB_OK;
    if (s->home == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "cannot expand '%s' (%s): HOME is "
                       "not set; set ZAMBONI_ROOT to a full path", v, origin);
    if ((*out = zb_arena_sprintf(s->arena, "%s%s", s->home, v + 1)) == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static int set_value(zb_settings *s, zb_ctx *ctx, zb_setting_id id,
                     const char *value, zb_setting_source src,
                     const char *origin)
{
    s->value[id] = value ? zb_arena_strdup(s->arena, value) : NULL;
    s->origin[id] = zb_arena_strdup(s->arena, origin);
    s->source[id] = src;
    if ((value && s->value[id] == NULL) || s->origin[id] == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/*
 * One setting from the sources, highest first. root_profile_too is 0
 * while the root itself is being resolved.
 */
static int resolve(zb_settings *s, zb_ctx *ctx, const zb_settings_input *in,
                   zb_setting_id id, int root_profile_too)
{
    const setting_def *d = &defs[id];
    const char *names[2] = { d->env, d->env_alt };
    char origin[PATH_MAX_BYTES + 64];
    const char *v;
    unsigned line;

    if (in->flags[id] != NULL) {
        snprintf(origin, sizeof(origin), "%s",
                 d->flag ? d->flag : "command line");
        return set_value(s, ctx, id, in->flags[id], ZB_SRC_FLAG, origin);
    }
    for (int i = 0; i < 2; i++) {
        if ((v = real_env(s, names[i])) != NULL) {
            snprintf(origin, sizeof(origin), "%s (environment)", names[i]);
            return set_value(s, ctx, id, v, ZB_SRC_ENV, origin);
        }
    }
    for (int i = 0; i < 2; i++) {
        if ((v = file_env(s, names[i])) != NULL) {
            snprintf(origin, sizeof(origin), "%s (%s:%u)", names[i],
                     zb_dotenv_path(s->dotenv),
                     zb_dotenv_line(s->dotenv, names[i]));
            return set_value(s, ctx, id, v, ZB_SRC_DOTENV, origin);
        }
    }
    if (d->profile != NULL) {
        zb_profile *ps[2] = { s->profile,
                              root_profile_too ? s->root_profile : NULL };
        for (int i = 0; i < 2; i++) {
            if ((v = zb_profile_get(ps[i], d->profile, &line)) != NULL) {
                snprintf(origin, sizeof(origin), "%s:%u",
                         zb_profile_path(ps[i]), line);
                return set_value(s, ctx, id, v,
                                 i == 0 ? ZB_SRC_PROFILE
                                        : ZB_SRC_ROOT_PROFILE, origin);
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        if ((v = real_env(s, d->fallback_env[i])) != NULL) {
            snprintf(origin, sizeof(origin), "%s (environment)",
                     d->fallback_env[i]);
            return set_value(s, ctx, id, v, ZB_SRC_AWS_ENV, origin);
        }
    }
    if (d->def != NULL)
        return set_value(s, ctx, id, d->def, ZB_SRC_DEFAULT, "default");
    return set_value(s, ctx, id, NULL, ZB_SRC_NONE, "");
}

static int join(const char **out, zb_ctx *ctx, zb_settings *s,
                const char *dir, const char *name)
{
    *out = zb_arena_sprintf(s->arena, "%s/%s", dir, name);
    return *out ? ZB_OK : zb_fail_oom(ctx);
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int check_int(zb_ctx *ctx, const zb_settings *s, zb_setting_id id,
                     uint64_t lo, uint64_t hi)
{
    uint64_t n;
    const char *v = s->value[id];

    if (v == NULL)
        return ZB_OK;
    if (zb_str_to_u64(&n, v) < 0 || n < lo || n > hi)
        return zb_fail(ctx, ZB_EUSAGE, "%s '%s' (%s) must be a whole number "
                       "from %llu to %llu", defs[id].key, v, s->origin[id],
                       (unsigned long long)lo, (unsigned long long)hi);
    return ZB_OK;
}

static int validate(zb_ctx *ctx, const zb_settings *s)
{
    const char *e = s->value[ZB_SET_ENGINE];
    const char *sc = s->value[ZB_SET_SPILL_COMPRESSION];
    int rc;

    if (e && strcmp(e, "local") != 0 && strcmp(e, "spark") != 0 &&
        strcmp(e, "trino") != 0)
        return zb_fail(ctx, ZB_EUSAGE, "engine '%s' (%s) is not one of "
                       "local, spark, trino", e, s->origin[ZB_SET_ENGINE]);
    if (sc && strcmp(sc, "auto") != 0 && strcmp(sc, "always") != 0 &&
        strcmp(sc, "never") != 0)
        return zb_fail(ctx, ZB_EUSAGE, "spill_compression '%s' (%s) is not "
                       "one of auto, always, never", sc,
                       s->origin[ZB_SET_SPILL_COMPRESSION]);
    if ((rc = check_int(ctx, s, ZB_SET_TRINO_PORT, 1, 65535)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_PG_WRITE_POOL, 1, 1000)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_PG_READ_POOL, 1, 1000)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_MEMORY_BUDGET_BYTES, 0,
                        MEMORY_BUDGET_MAX)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_THREADS, 1, 256)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_S3_MAX_ATTEMPTS, 1, 100)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_S3_MAX_RETRY_SECONDS, 1, 86400)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_S3_TIMEOUT_SECONDS, 1, 3600)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES, 1,
                        S3_PUT_MAX)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_QUEUE_MAX_TASKS, 1, 10000000)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_MAX_ATTEMPTS, 1, 1000)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_WORKERS, 1, 256)) < 0 ||
        (rc = check_int(ctx, s, ZB_SET_SPILL_DISK_LIMIT_BYTES, 0,
                        MEMORY_BUDGET_MAX)) < 0)
        return rc;
    {
        static const zb_setting_id durations[] = {
            ZB_SET_DRAIN_TIMEOUT, ZB_SET_MAX_LIFETIME, ZB_SET_IDLE_EXIT_AFTER,
            ZB_SET_LEASE_SECONDS, ZB_SET_HEARTBEAT_SECONDS,
            ZB_SET_PLAN_INTERVAL
        };
        size_t i;
        int64_t ms;

        for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
            if ((rc = zb_settings_duration_ms(&ms, ctx, s, durations[i])) < 0)
                return rc;
    }
    if ((s->value[ZB_SET_S3_ACCESS_KEY_ID] == NULL) !=
        (s->value[ZB_SET_S3_SECRET_ACCESS_KEY] == NULL))
        return zb_fail(ctx, ZB_EUSAGE, "%s is set (%s) but %s is not: give "
                       "both, or neither to use the AWS credential chain",
                       s->value[ZB_SET_S3_ACCESS_KEY_ID]
                           ? "s3_access_key_id" : "s3_secret_access_key",
                       s->value[ZB_SET_S3_ACCESS_KEY_ID]
                           ? s->origin[ZB_SET_S3_ACCESS_KEY_ID]
                           : s->origin[ZB_SET_S3_SECRET_ACCESS_KEY],
                       s->value[ZB_SET_S3_ACCESS_KEY_ID]
                           ? "ZAMBONI_S3_SECRET_ACCESS_KEY"
                           : "ZAMBONI_S3_ACCESS_KEY_ID");
    if (zb_settings_s3_path_style(s) == -2)
        return zb_fail(ctx, ZB_EUSAGE, "s3_path_style_access '%s' (%s) must "
                       "be true or false (unset: path style for an IP or "
                       "localhost endpoint, virtual-hosted otherwise)",
                       s->value[ZB_SET_S3_PATH_STYLE_ACCESS],
                       s->origin[ZB_SET_S3_PATH_STYLE_ACCESS]);
    return ZB_OK;
}

/* -2: neither true nor false (validate refuses it). */
int zb_settings_s3_path_style(const zb_settings *s)
{
    const char *v = s ? s->value[ZB_SET_S3_PATH_STYLE_ACCESS] : NULL;

    if (v == NULL)
        return -1;
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        return 1;
    if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        return 0;
    return -2;
}

int zb_settings_given(const zb_settings *s, zb_setting_id id)
{
    return s && id >= 0 && id < ZB_SET_COUNT &&
           s->source[id] >= ZB_SRC_ROOT_PROFILE;
}

static int load_profiles_and_env(zb_settings *s, zb_ctx *ctx,
                                 const zb_settings_input *in, const char *cwd)
{
    const char *path, *root;
    int rc;

    /* ./zamboni.yml, or --profile which must exist */
    if (in->profile_path != NULL) {
        rc = zb_profile_load(&s->profile, ctx, in->profile_path);
        if (rc == ZB_ENOTFOUND)
            return zb_fail(ctx, ZB_EUSAGE, "--profile %s: no such file",
                           in->profile_path);
    } else {
        if ((rc = join(&path, ctx, s, cwd, "zamboni.yml")) < 0)
            return rc;
        rc = zb_profile_load(&s->profile, ctx, path);
        if (rc == ZB_ENOTFOUND) {
            zb_err_clear(&ctx->err);
            rc = ZB_OK;
        }
    }
    if (rc < 0)
        return rc;
    /* --env or ./.env; $ZAMBONI_ROOT/.env needs the root first */
    if ((rc = zb_dotenv_find(&s->dotenv, ctx, in->env_path, cwd, NULL)) < 0)
        return rc;
    if ((rc = resolve(s, ctx, in, ZB_SET_ROOT, 0)) < 0)
        return rc;
    if ((rc = expand_home(&root, ctx, s, s->value[ZB_SET_ROOT],
                          s->origin[ZB_SET_ROOT])) < 0)
        return rc;
    s->value[ZB_SET_ROOT] = root;
    if (s->dotenv == NULL && in->env_path == NULL &&
        (rc = zb_dotenv_find(&s->dotenv, ctx, NULL, cwd, root)) < 0)
        return rc;
    if ((rc = join(&path, ctx, s, root, "zamboni.yml")) < 0)
        return rc;
    if (s->profile != NULL && same_file(path, zb_profile_path(s->profile)))
        return ZB_OK;
    rc = zb_profile_load(&s->root_profile, ctx, path);
    if (rc == ZB_ENOTFOUND) {
        zb_err_clear(&ctx->err);
        rc = ZB_OK;
    }
    return rc;
}

int zb_settings_load(zb_settings **out, zb_ctx *ctx,
                     const zb_settings_input *in)
{
    zb_settings *s = NULL;
    const char *cwd;
    int rc;

    ZB_ASSERT_ARG(out && ctx && in);
    ZB_ASSERT_ARG(in->version == ZB_SETTINGS_INPUT_VERSION);
    *out = NULL;
    cwd = in->cwd ? in->cwd : ".";
    if ((s = zb_calloc(1, sizeof(*s))) == NULL)
        return zb_fail_oom(ctx);
    if (zb_arena_new(&s->arena, SETTINGS_ARENA_MAX) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    s->getenv_fn = in->getenv_fn ? in->getenv_fn : plain_getenv;
    s->getenv_payload = in->getenv_payload;
    s->home = real_env(s, "HOME");
    if ((rc = load_profiles_and_env(s, ctx, in, cwd)) < 0)
        goto done;
    for (int id = 0; id < ZB_SET_COUNT; id++) {
        if (id != ZB_SET_ROOT && (rc = resolve(s, ctx, in, id, 1)) < 0)
            goto done;
    }
    if ((rc = validate(ctx, s)) < 0 ||
        (rc = find_list(&s->ops_origin, ctx, s, zb_profile_operations)) < 0 ||
        (rc = find_list(&s->tables_origin, ctx, s, zb_profile_tables)) < 0)
        goto done;
    *out = s;
    s = NULL;
done:
    zb_settings_free(s);
    return rc;
}

const char *zb_settings_get(const zb_settings *s, zb_setting_id id)
{
    return (s && id >= 0 && id < ZB_SET_COUNT) ? s->value[id] : NULL;
}

zb_setting_source zb_settings_source(const zb_settings *s, zb_setting_id id)
{
    return (s && id >= 0 && id < ZB_SET_COUNT) ? s->source[id] : ZB_SRC_NONE;
}

const char *zb_settings_origin(const zb_settings *s, zb_setting_id id)
{
    if (s == NULL || id < 0 || id >= ZB_SET_COUNT || s->origin[id] == NULL)
        return "";
    return s->origin[id];
}

const char *zb_settings_key_name(zb_setting_id id)
{
    return (id >= 0 && id < ZB_SET_COUNT) ? defs[id].key : NULL;
}

const char *zb_settings_flag_name(zb_setting_id id)
{
    return (id >= 0 && id < ZB_SET_COUNT) ? defs[id].flag : NULL;
}

const char *zb_settings_env_name(zb_setting_id id)
{
    return (id >= 0 && id < ZB_SET_COUNT) ? defs[id].env : NULL;
}

const char *zb_settings_default(zb_setting_id id)
{
    return (id >= 0 && id < ZB_SET_COUNT) ? defs[id].def : NULL;
}

int zb_settings_is_secret(zb_setting_id id)
{
    return (id >= 0 && id < ZB_SET_COUNT) ? defs[id].secret : 0;
}

int zb_settings_id_for_flag(const char *flag)
{
    if (flag == NULL)
        return -1;
    if (strcmp(flag, "--db") == 0)
        return ZB_SET_WAREHOUSE;
    for (int id = 0; id < ZB_SET_COUNT; id++)
        if (defs[id].flag && strcmp(defs[id].flag, flag) == 0)
            return id;
    return -1;
}

/* The first profile holding a list, and "PATH:LINE" for it. */
static int find_list(const char **origin_out, zb_ctx *ctx, zb_settings *s,
                     const char *const *(*get)(const zb_profile *, size_t *,
                                               unsigned *))
{
    const zb_profile *ps[2] = { s->profile, s->root_profile };
    size_t n;
    unsigned line;

    *origin_out = NULL;
    for (int i = 0; i < 2; i++) {
        if (get(ps[i], &n, &line) != NULL) {
            *origin_out = zb_arena_sprintf(s->arena, "%s:%u",
                                           zb_profile_path(ps[i]), line);
            return *origin_out ? ZB_OK : zb_fail_oom(ctx);
        }
    }
    return ZB_OK;
}

static const zb_profile *list_owner(const zb_settings *s,
                                    const char *const *(*get)(
                                        const zb_profile *, size_t *,
                                        unsigned *))
{
    if (get(s->profile, NULL, NULL) != NULL)
        return s->profile;
    if (get(s->root_profile, NULL, NULL) != NULL)
        return s->root_profile;
    return NULL;
}

const char *const *zb_settings_operations(const zb_settings *s, size_t *n,
                                          const char **origin)
{
    const zb_profile *p = s ? list_owner(s, zb_profile_operations) : NULL;

    if (p != NULL) {
        if (origin)
            *origin = s->ops_origin;
        return zb_profile_operations(p, n, NULL);
    }
    if (n)
        *n = 6;
    if (origin)
        *origin = "default";
    return zb_profile_operation_names;
}

const char *const *zb_settings_tables(const zb_settings *s, size_t *n,
                                      const char **origin)
{
    const zb_profile *p = s ? list_owner(s, zb_profile_tables) : NULL;

    if (origin)
        *origin = p ? s->tables_origin : "";
    if (p == NULL) {
        if (n)
            *n = 0;
        return NULL;
    }
    return zb_profile_tables(p, n, NULL);
}

const char *zb_settings_profile_path(const zb_settings *s)
{
    return s ? zb_profile_path(s->profile) : NULL;
}

const char *zb_settings_root_profile_path(const zb_settings *s)
{
    return s ? zb_profile_path(s->root_profile) : NULL;
}

const char *zb_settings_dotenv_path(const zb_settings *s)
{
    return s ? zb_dotenv_path(s->dotenv) : NULL;
}

int zb_settings_describe(zb_buf *out, const zb_settings *s)
{
    const char *origin;
    size_t n;
    int rc = ZB_OK;

    if (s == NULL)
        return ZB_EINVAL;
    for (int id = 0; id < ZB_SET_COUNT && rc == ZB_OK; id++) {
        if (s->value[id] == NULL)
            continue;
        rc = zb_buf_appendf(out, "  %-20s %s  (%s)\n", defs[id].key,
                            defs[id].secret ? "(set)" : s->value[id],
                            s->origin[id]);
    }
    const char *const *ops = zb_settings_operations(s, &n, &origin);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(out, "  %-20s ", "operations");
    for (size_t i = 0; i < n && rc == ZB_OK; i++)
        rc = zb_buf_appendf(out, "%s%s", i ? "," : "", ops[i]);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(out, "  (%s)\n", origin);
    const char *const *tables = zb_settings_tables(s, &n, &origin);
    if (tables != NULL && rc == ZB_OK) {
        rc = zb_buf_appendf(out, "  %-20s ", "tables");
        for (size_t i = 0; i < n && rc == ZB_OK; i++)
            rc = zb_buf_appendf(out, "%s%s", i ? "," : "", tables[i]);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(out, "  (%s)\n", origin);
    }
    const char *files[3][2] = {
        { "profile", zb_settings_profile_path(s) },
        { "root profile", zb_settings_root_profile_path(s) },
        { "env file", zb_settings_dotenv_path(s) },
    };
    for (int i = 0; i < 3 && rc == ZB_OK; i++)
        rc = zb_buf_appendf(out, "  %-20s %s\n", files[i][0],
                            files[i][1] ? files[i][1] : "(none)");
    return rc;
}

/* sqlite:PATH -> PATH; see settings.h for the spellings. */
static int sqlite_path(const char **out, zb_ctx *ctx, zb_settings *s,
                       const char *uri)
{
    const char *rest = uri + strlen("sqlite:");

    if (rest[0] == '\0')
        return join(out, ctx, s, s->value[ZB_SET_ROOT], "catalog.db");
    if (strncmp(rest, "///", 3) == 0 && rest[3] != '\0')
        rest += 3;
    else if (strncmp(rest, "//", 2) == 0)
        return zb_fail(ctx, ZB_EUSAGE, "uri '%s' (%s): write sqlite:PATH "
                       "(or sqlite:///PATH) for a database file", uri,
                       s->origin[ZB_SET_URI]);
    return expand_home(out, ctx, s, rest, s->origin[ZB_SET_URI]);
}

/* postgres:// and postgresql+driver:// -> postgresql:// for libpq. */
static int pg_url(const char **out, zb_ctx *ctx, zb_settings *s,
                  const char *uri)
{
    const char *sep = strstr(uri, "://");
    *out = zb_arena_sprintf(s->arena, "postgresql%s", sep);
    return *out ? ZB_OK : zb_fail_oom(ctx);
}

static int scheme_is(const char *uri, const char *scheme)
{
    size_t n = strlen(scheme);
    if (strncmp(uri, scheme, n) != 0)
        return 0;
    /* "postgresql+psycopg2://" counts as postgresql:// */
    if (uri[n] == '+') {
        const char *sep = strstr(uri + n, "://");
        return sep != NULL && strcspn(uri + n, "/:") == (size_t)(sep - uri - n);
    }
    return strncmp(uri + n, "://", 3) == 0;
}

int zb_settings_catalog_config(zb_catalog_config *out, zb_ctx *ctx,
                               zb_settings *s)
{
    const char *uri, *wh;
    int rc;

    ZB_ASSERT_ARG(out && ctx && s);
    zb_catalog_config init = ZB_CATALOG_CONFIG_INIT;
    *out = init;
    uri = s->value[ZB_SET_URI];
    wh = s->value[ZB_SET_WAREHOUSE];
    out->warehouse = wh;
    out->name = wh ? wh : "zamboni";
    if (uri == NULL || zb_str_starts_with(uri, "sqlite:")) {
        out->kind = ZB_CATALOG_SQLITE;
        if (uri == NULL)
            rc = join(&out->sqlite_path, ctx, s, s->value[ZB_SET_ROOT],
                      "catalog.db");
        else
            rc = sqlite_path(&out->sqlite_path, ctx, s, uri);
        if (rc < 0)
            return rc;
    } else if (scheme_is(uri, "postgresql") || scheme_is(uri, "postgres")) {
        out->kind = ZB_CATALOG_POSTGRES;
        if ((rc = pg_url(&out->pg_write_url, ctx, s, uri)) < 0)
            return rc;
        out->pg_read_url = s->value[ZB_SET_PG_READ_URL];
        out->pg_write_pool = (int)strtol(s->value[ZB_SET_PG_WRITE_POOL], NULL,
                                         10);
        out->pg_read_pool = (int)strtol(s->value[ZB_SET_PG_READ_POOL], NULL,
                                        10);
    } else if (scheme_is(uri, "http") || scheme_is(uri, "https")) {
        out->kind = ZB_CATALOG_REST;
        out->uri = uri;
        out->credential = s->value[ZB_SET_CREDENTIAL];
        out->token = s->value[ZB_SET_TOKEN];
        out->oauth2_server_uri = s->value[ZB_SET_OAUTH2_SERVER_URI];
        out->scope = s->value[ZB_SET_SCOPE];
        return ZB_OK;
    } else {
        return zb_fail(ctx, ZB_EUSAGE, "uri '%.80s' (%s) names no catalog "
                       "Zamboni speaks: use http(s):// (REST), sqlite:PATH "
                       "or postgresql://", uri, s->origin[ZB_SET_URI]);
    }
    /* SQL: where new tables go */
    if (s->value[ZB_SET_LOCAL_WAREHOUSE] != NULL) {
        if ((rc = expand_home(&out->warehouse_location, ctx, s,
                              s->value[ZB_SET_LOCAL_WAREHOUSE],
                              s->origin[ZB_SET_LOCAL_WAREHOUSE])) < 0)
            return rc;
    } else if (wh != NULL) {
        out->warehouse_location = zb_arena_sprintf(
            s->arena, "%s/warehouses/%s", s->value[ZB_SET_ROOT], wh);
        if (out->warehouse_location == NULL)
            return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

int zb_settings_table_config_path(zb_buf *out, zb_ctx *ctx,
                                  const zb_settings *s)
{
    const char *wh;

    ZB_ASSERT_ARG(out && ctx && s);
    zb_buf_clear(out);
    wh = s->value[ZB_SET_WAREHOUSE];
    if (wh == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "no warehouse: give --warehouse (or "
                       "--db), ZAMBONI_WAREHOUSE or warehouse: in "
                       "zamboni.yml");
    if (wh[0] == '\0' || strcmp(wh, ".") == 0 || strcmp(wh, "..") == 0 ||
        strchr(wh, '/') != NULL)
        return zb_fail(ctx, ZB_EUSAGE, "warehouse '%.80s' (%s) is not a "
                       "plain name: it selects the folder configs/<name>",
                       wh, s->origin[ZB_SET_WAREHOUSE]);
    if (zb_buf_appendf(out, "%s/configs/%s/table-config.json",
                       s->value[ZB_SET_ROOT], wh) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int zb_settings_removed_flag(zb_ctx *ctx, const char *flag)
{
    static const char *const removed[3][2] = {
        { "--token", "ZAMBONI_TOKEN" },
        { "--credential", "ZAMBONI_CREDENTIAL" },
        { "--s3-secret-access-key", "ZAMBONI_S3_SECRET_ACCESS_KEY" },
    };

    ZB_ASSERT_ARG(ctx && flag);
    size_t n = strcspn(flag, "=");
    for (int i = 0; i < 3; i++) {
        if (strlen(removed[i][0]) == n && strncmp(flag, removed[i][0], n) == 0)
            return zb_fail(ctx, ZB_EUSAGE, "%s was removed: a secret on the "
                           "command line is visible to other users (ps, "
                           "shell history). Set %s in the environment or "
                           "in a .env file (chmod 600)", removed[i][0],
                           removed[i][1]);
    }
    return ZB_OK;
}

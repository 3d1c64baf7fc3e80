/*
 * cli/config/settings.h - resolving the configuration from its five sources
 * (seed 003; ZAMBONI-INTERFACE.md section 2; DESIGN.md "Configuration").
 *
 * Each setting takes the first value found, highest first:
 *   1. a command-line flag                     (--uri)
 *   2. a ZAMBONI_* environment variable        (ZAMBONI_URI), a real one
 *      before one from the .env file
 *   3. ./zamboni.yml, or the file of --profile (uri:)
 *   4. $ZAMBONI_ROOT/zamboni.yml
 *   5. the built-in default
 * s3_region alone takes, between 4. and 5., AWS_REGION then
 * AWS_DEFAULT_REGION (as the AWS tools do), so a ZAMBONI_* or profile
 * value still wins over them.
 * Secrets (token, credential, S3 secret key and session token, PostgreSQL
 * read URL) come from
 * the environment or .env only: the profile refuses them and their flags
 * were removed (zb_settings_removed_flag).
 *
 * The root is resolved first, because two sources live under it: flag,
 * then ZAMBONI_ROOT (real, then from --env or ./.env), then root: in
 * ./zamboni.yml, then ~/.zamboni. A leading "~" is expanded with $HOME.
 * $ZAMBONI_ROOT/.env is searched only when --env and ./.env gave nothing,
 * and $ZAMBONI_ROOT/zamboni.yml is skipped when it is ./zamboni.yml.
 *
 * Every value keeps its origin ("--uri", "ZAMBONI_URI (environment)",
 * "ZAMBONI_URI (/srv/zamboni/.env:3)", "./zamboni.yml:2", "default") for
 * --verbose and --status.
 *
 * Catalog from uri (zb_settings_catalog_config):
 *   none or "sqlite:"      SQLite at $ZAMBONI_ROOT/catalog.db (embedded)
 *   sqlite:PATH            SQLite at PATH ("~" expanded); the SQLAlchemy
 *                          spellings sqlite:///rel.db and sqlite:////abs.db
 *                          are accepted for configs of the Python tool
 *   postgresql://...       PostgreSQL, uri as libpq's write URL
 *   (postgres://, postgresql+driver:// likewise); ZAMBONI_PG_READ_URL
 *                          a read replica; ZAMBONI_PG_WRITE_POOL and
 *                          ZAMBONI_PG_READ_POOL connection counts
 *   http://, https://      REST catalog
 * New tables of the SQL catalog go under local_warehouse, or
 * $ZAMBONI_ROOT/warehouses/<warehouse>.
 */
#ifndef ZB_CLI_SETTINGS_H
#define ZB_CLI_SETTINGS_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "cli/config/dotenv.h"
#include "cli/config/profile.h"
#include "util/buf.h"
#include "zamboni/zamboni.h"

typedef enum zb_setting_id {
    ZB_SET_URI,
    ZB_SET_WAREHOUSE,
    ZB_SET_ENGINE,
    ZB_SET_ROOT,
    ZB_SET_OAUTH2_SERVER_URI,
    ZB_SET_SCOPE,
    ZB_SET_LOCAL_WAREHOUSE,
    ZB_SET_S3_ENDPOINT,
    ZB_SET_S3_REGION,
    ZB_SET_S3_ACCESS_KEY_ID,
    ZB_SET_S3_SECRET_ACCESS_KEY,   /* secret */
    ZB_SET_S3_SESSION_TOKEN,       /* secret */
    ZB_SET_S3_PATH_STYLE_ACCESS,   /* "true"/"false"; unset: auto */
    ZB_SET_S3_MAX_ATTEMPTS,        /* per request, 1..100 */
    ZB_SET_S3_MAX_RETRY_SECONDS,   /* retrying one request, 1..86400 */
    ZB_SET_S3_TIMEOUT_SECONDS,     /* no progress on a request, 1..3600 */
    ZB_SET_S3_MULTIPART_THRESHOLD_BYTES, /* larger files go in parts */
    ZB_SET_CREDENTIAL,             /* secret: "client_id:client_secret" */
    ZB_SET_TOKEN,                  /* secret */
    ZB_SET_TRINO_HOST,
    ZB_SET_TRINO_PORT,
    ZB_SET_TRINO_USER,
    ZB_SET_TRINO_CATALOG,
    ZB_SET_TRINO_VERSION,
    ZB_SET_SPARK_REMOTE,
    ZB_SET_SPARK_MASTER,
    ZB_SET_SPARK_CATALOG,
    ZB_SET_PG_READ_URL,            /* secret */
    ZB_SET_PG_WRITE_POOL,
    ZB_SET_PG_READ_POOL,
    ZB_SET_MEMORY_BUDGET_BYTES,    /* bytes, 0: disabled; cli/config/resources.h */
    ZB_SET_THREADS,                /* 1..256; cli/config/resources.h */
    /* The task queue and the worker (service/): */
    ZB_SET_QUEUE_URI,              /* secret; sqlite:PATH | postgresql:// */
    ZB_SET_QUEUE_MAX_TASKS,        /* live tasks, 1..10000000 */
    ZB_SET_MAX_ATTEMPTS,           /* per task, 1..1000 */
    ZB_SET_SIZE_CLASS,             /* the class a worker serves */
    ZB_SET_SIZE_CLASSES,           /* JSON list (env); yml: a list */
    ZB_SET_WORKERS,                /* worker loops in one process, 1..256 */
    ZB_SET_DRAIN_TIMEOUT,          /* duration (zb_settings_duration_ms) */
    ZB_SET_MAX_LIFETIME,           /* duration; 0: off */
    ZB_SET_IDLE_EXIT_AFTER,        /* duration; 0: off */
    ZB_SET_LEASE_SECONDS,          /* duration */
    ZB_SET_HEARTBEAT_SECONDS,      /* duration */
    ZB_SET_SPILL_DISK_LIMIT_BYTES, /* bytes under TMPDIR */
    ZB_SET_SPILL_COMPRESSION,      /* auto, always, never (exec/spill.h) */
    /* serve (issue 18): */
    ZB_SET_LISTEN,                 /* ADDR:PORT of serve's HTTP */
    ZB_SET_SERVE_TOKEN,            /* secret: Bearer token of serve's HTTP */
    ZB_SET_PLAN_INTERVAL,          /* duration between planner cycles */
    ZB_SET_COUNT
} zb_setting_id;

typedef enum zb_setting_source {
    ZB_SRC_NONE,          /* not set anywhere, no default */
    ZB_SRC_DEFAULT,
    ZB_SRC_AWS_ENV,       /* s3_region from AWS_REGION / AWS_DEFAULT_REGION */
    ZB_SRC_ROOT_PROFILE,  /* $ZAMBONI_ROOT/zamboni.yml */
    ZB_SRC_PROFILE,       /* ./zamboni.yml or --profile */
    ZB_SRC_DOTENV,        /* ZAMBONI_* from the .env file */
    ZB_SRC_ENV,           /* ZAMBONI_* from the real environment */
    ZB_SRC_FLAG
} zb_setting_source;

/* Looks a variable up; returns NULL when unset. */
typedef const char *(*zb_settings_getenv_fn)(const char *name, void *payload);

typedef struct zb_settings_input {
    unsigned version;
    /* Values given on the command line, NULL when the flag was not. */
    const char *flags[ZB_SET_COUNT];
    const char *profile_path;   /* --profile FILE (must exist), or NULL */
    const char *env_path;       /* --env FILE (must exist), or NULL */
    const char *cwd;            /* where ./zamboni.yml and ./.env are; "." */
    /* The environment; NULL: getenv. $HOME is read through it too. */
    zb_settings_getenv_fn getenv_fn;
    void *getenv_payload;
} zb_settings_input;

#define ZB_SETTINGS_INPUT_VERSION 1
#define ZB_SETTINGS_INPUT_INIT { .version = ZB_SETTINGS_INPUT_VERSION }

typedef struct zb_settings zb_settings;

/*
 * Reads the sources and resolves every setting. ZB_EUSAGE (exit 2) for a
 * bad profile, a refused or malformed .env, a missing --profile/--env
 * file or a bad value (engine, port, pool size), with the message naming
 * the file and line or the variable; ZB_ENOMEM; ZB_EIO.
 */
int zb_settings_load(zb_settings **out, zb_ctx *ctx,
                     const zb_settings_input *in);
void zb_settings_free(zb_settings *s);

/* The value (borrowed), or NULL when unset. */
const char *zb_settings_get(const zb_settings *s, zb_setting_id id);
zb_setting_source zb_settings_source(const zb_settings *s, zb_setting_id id);
/* Where the value came from, as described above; "" when unset. */
const char *zb_settings_origin(const zb_settings *s, zb_setting_id id);

/* Static facts about a setting. */
const char *zb_settings_key_name(zb_setting_id id);   /* "trino_port" */
const char *zb_settings_flag_name(zb_setting_id id);  /* "--trino-port"|NULL */
const char *zb_settings_env_name(zb_setting_id id);   /* "ZAMBONI_TRINO_PORT" */
const char *zb_settings_default(zb_setting_id id);    /* NULL: none */
int zb_settings_is_secret(zb_setting_id id);

/*
 * Whether the user gave id (a flag, ZAMBONI_*, .env or a profile): such a
 * value wins over the table's own config from the catalog; a default or
 * an AWS_* fallback does not (ISSUE16's order).
 */
int zb_settings_given(const zb_settings *s, zb_setting_id id);

/*
 * A duration setting in ms: "90" (seconds), "30s", "10m", "1h", "2d",
 * "0" (off, where the setting allows it). ZB_EUSAGE naming the setting and
 * its origin when malformed; an unset one without a default is 0.
 */
int zb_settings_duration_ms(int64_t *out, zb_ctx *ctx, const zb_settings *s,
                            zb_setting_id id);

/* The same parse of a string alone: ZB_EUSAGE when malformed. */
int zb_duration_parse_ms(int64_t *out, const char *text);

/* s3_path_style_access as zb_s3_config.path_style: 1, 0, or -1 (auto). */
int zb_settings_s3_path_style(const zb_settings *s);
/* The id of a flag ("--db" is --warehouse), or -1. */
int zb_settings_id_for_flag(const char *flag);

/*
 * The operations to run, in order: the profile's list, or the six of
 * zb_profile_operation_names (origin "default"). Borrowed.
 */
const char *const *zb_settings_operations(const zb_settings *s, size_t *n,
                                          const char **origin);
/* The profile's tables list, or NULL (use the table config's). */
const char *const *zb_settings_tables(const zb_settings *s, size_t *n,
                                      const char **origin);

/* Files used: NULL when none was. Borrowed. */
const char *zb_settings_profile_path(const zb_settings *s);
const char *zb_settings_root_profile_path(const zb_settings *s);
const char *zb_settings_dotenv_path(const zb_settings *s);

/*
 * Appends one line per set value, "  key  value  (origin)", secrets shown
 * as "(set)", then the files read. For --verbose and --status.
 */
int zb_settings_describe(zb_buf *out, const zb_settings *s);

/*
 * Fills a catalog config from uri, warehouse and the rest (see above).
 * Strings are borrowed from s and live as long as it does. ZB_EUSAGE for
 * a URI no catalog speaks.
 */
int zb_settings_catalog_config(zb_catalog_config *out, zb_ctx *ctx,
                               zb_settings *s);

/*
 * $ZAMBONI_ROOT/configs/<warehouse>/table-config.json into out (cleared).
 * ZB_EUSAGE when the warehouse is unset or is not a plain name (empty,
 * ".", "..", or holding '/').
 */
int zb_settings_table_config_path(zb_buf *out, zb_ctx *ctx,
                                  const zb_settings *s);

/*
 * The removed secret flags --token, --credential and
 * --s3-secret-access-key (with or without "=VALUE"): ZB_EUSAGE with
 * "--token was removed: a secret on the command line is visible to other
 * users (ps, shell history). Set ZAMBONI_TOKEN in the environment or in a
 * .env file (chmod 600)". ZB_OK for any other flag.
 */
int zb_settings_removed_flag(zb_ctx *ctx, const char *flag);

#endif

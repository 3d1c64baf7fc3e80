/*
 * catalog/catalog.h - one interface over the catalogs Zamboni finds tables
 * in and commits through: the SQL catalog (SQLite, the embedded default;
 * PostgreSQL), the Iceberg REST catalog, and a table folder addressed by
 * its path alone.
 *
 *     zb_catalog *cat = NULL;
 *     zb_table *t = NULL;
 *     if ((rc = zb_catalog_open(&cat, ctx, io, &cfg)) < 0) ...
 *     if ((rc = zb_catalog_load_table(cat, ctx, "db.events", &t)) < 0) ...
 *     ... read t->meta, plan a change, build requirements and updates ...
 *     rc = zb_catalog_commit(cat, ctx, t, requirements, updates, &t2);
 *     zb_table_free(t); zb_table_free(t2);
 *     zb_catalog_free(cat);
 *
 * Commits speak the REST catalog's language whatever the backend: a commit is a
 * JSON array of TableRequirement objects and a JSON array of TableUpdate
 * objects, as open-api/rest-catalog-open-api.yaml defines them
 * ("assert-ref-snapshot-id", "add-snapshot", "set-snapshot-ref", ...). The REST
 * client sends them as they are; the SQL and folder catalogs check the
 * requirements against the current metadata, apply the updates
 * (table/commit/commit.h), write the next metadata file without overwriting,
 * and swap the pointer (a compare-and-swap on metadata_location in SQL; the
 * creation of the next version's file in a folder).
 *
 * Codes of zb_catalog_commit:
 *   ZB_OK         committed; *out holds the new state;
 *   ZB_ECONFLICT  a requirement failed or another writer won the swap:
 *                 nothing changed; reload, re-validate, retry;
 *   ZB_ETIMEOUT   the outcome is unknown (a timeout, a 5xx or a broken
 *                 connection after the request was sent): the caller must
 *                 not delete anything the commit references;
 *   other codes   the commit did not happen (bad request, auth, I/O
 *                 before the swap).
 * Every error message names the catalog (its name and kind) and the table.
 */
#ifndef ZB_CATALOG_CATALOG_H
#define ZB_CATALOG_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "util/json.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

typedef struct zb_catalog zb_catalog;
typedef struct zb_sqldb zb_sqldb;

typedef enum zb_catalog_kind {
    ZB_CATALOG_SQLITE,
    ZB_CATALOG_POSTGRES,
    ZB_CATALOG_REST,
    ZB_CATALOG_PATH
} zb_catalog_kind;

/* Capabilities (zb_catalog_caps). */
#define ZB_CATALOG_CAP_WAREHOUSES  0x1u  /* list_warehouses answers */
#define ZB_CATALOG_CAP_NAMESPACES  0x2u  /* namespaces can be listed */
#define ZB_CATALOG_CAP_CREATE      0x4u  /* tables can be created */
#define ZB_CATALOG_CAP_CREDENTIALS 0x8u  /* load vends storage credentials */

/* One key=value string pair (config, properties, headers). */
typedef struct zb_catalog_kv {
    const char *key;
    const char *value;
} zb_catalog_kv;

/*
 * What to open. Strings are copied by zb_catalog_open. Fields a kind does
 * not use are ignored.
 */
typedef struct zb_catalog_config {
    unsigned version;
    zb_catalog_kind kind;
    const char *name;          /* shown in messages; SQL: default catalog_name */
    /* SQL: the warehouse is the catalog_name rows are keyed by (NULL:
     * name). REST: the "warehouse" parameter of /v1/config. */
    const char *warehouse;
    /* SQLITE: the database file (created when missing). */
    const char *sqlite_path;
    /* POSTGRES: libpq connection strings; read_url NULL: write_url. */
    const char *pg_write_url;
    const char *pg_read_url;
    int pg_write_pool;         /* connections; <= 0: 2 */
    int pg_read_pool;          /* <= 0: 2 */
    /* SQL: where new tables go: <warehouse_location>/<ns>/<table>. */
    const char *warehouse_location;
    /* REST */
    const char *uri;           /* base URI, without /v1 */
    const char *credential;    /* "client_id:client_secret" for OAuth2 */
    const char *token;         /* a bearer token */
    const char *oauth2_server_uri;   /* NULL: <uri>/v1/oauth/tokens */
    const char *scope;         /* NULL: "catalog" */
    size_t n_headers;          /* extra HTTP headers */
    const zb_catalog_kv *headers;
    long timeout_ms;           /* per request; <= 0: 30000 */
    int max_retries;           /* on 429, 5xx, network errors; < 0: 3 */
    /* PATH and every kind: paths starting with from are read at to. */
    size_t n_remaps;
    const ice_path_remap *remaps;
    /* 1: the catalog takes io over once it is open, and zb_catalog_free
     * frees it (a failed open leaves io to the caller). For handles that
     * outlive their opener: the public API's (include/zamboni/catalog.h). */
    int owns_io;
    /* ZB_S3_PIN_* (catalog/catalog_s3.h): the S3 settings of io the user
     * gave (flag, ZAMBONI_*, profile), which win over a table's own from
     * a REST catalog; 0: the table's win over every io setting. */
    unsigned s3_pinned;
    /* SQLITE, POSTGRES: an open database to use (a reference is taken;
     * sqlite_path and the pg_* fields are then ignored), so that the
     * catalog and the task queue of a process share its connections.
     * NULL: open the database the fields above name. */
    zb_sqldb *sqldb;
} zb_catalog_config;

#define ZB_CATALOG_CONFIG_VERSION 1
#define ZB_CATALOG_CONFIG_INIT \
    { .version = ZB_CATALOG_CONFIG_VERSION, .kind = ZB_CATALOG_SQLITE }

/*
 * A loaded table: its metadata, where that metadata lies, and how to
 * reach its files. Owned by the caller; free with zb_table_free.
 */
typedef struct zb_table {
    char *ident;               /* "ns.table", or the folder for PATH */
    char *metadata_location;   /* the metadata file loaded */
    ice_metadata *meta;
    /*
     * Where the table's files are read and written: for a folder, the
     * folder; otherwise meta->location. New files go under it.
     */
    char *root;
    /*
     * Path resolution for every path read from metadata: the catalog's
     * remaps, then (PATH) the recorded location -> the folder, and
     * scheme+authority stripping for hdfs:// style paths that resolve
     * into the folder. Ready to pass to table/manifest/manifest.h readers.
     */
    ice_manifest_opts paths;
    /* REST loadTable "config" (storage credentials among them). */
    size_t n_config;
    zb_catalog_kv *config;
    struct zb_table_int *internal;   /* private */
} zb_table;

void zb_table_free(zb_table *t);

/*
 * Resolves a path read from the table's metadata into a URI to open
 * (t->paths applied). Appends to out after clearing it.
 */
int zb_table_resolve(zb_buf *out, zb_ctx *ctx, const zb_table *t,
                     const char *path);

int zb_catalog_open(zb_catalog **out, zb_ctx *ctx, zb_io *io,
                    const zb_catalog_config *cfg);
void zb_catalog_free(zb_catalog *c);

zb_catalog_kind zb_catalog_get_kind(const zb_catalog *c);
const char *zb_catalog_kind_name(zb_catalog_kind kind); /* "sqlite", ... */
const char *zb_catalog_name(const zb_catalog *c);
unsigned zb_catalog_caps(const zb_catalog *c);
/* The FileIO the catalog reads tables through; borrowed. */
zb_io *zb_catalog_io(const zb_catalog *c);

/*
 * Listings call fn once per item, in the catalog's order; fn returning
 * non-zero stops the listing and that value is returned. A catalog
 * without the capability returns ZB_EUNSUPPORTED.
 */
typedef int (*zb_catalog_list_cb)(const char *item, void *payload);

int zb_catalog_list_warehouses(zb_catalog *c, zb_ctx *ctx,
                               zb_catalog_list_cb fn, void *payload);
/* Namespaces under parent (NULL: the top level), levels joined by '.'. */
int zb_catalog_list_namespaces(zb_catalog *c, zb_ctx *ctx, const char *parent,
                               zb_catalog_list_cb fn, void *payload);
/* Tables of a namespace, as "ns.table". */
int zb_catalog_list_tables(zb_catalog *c, zb_ctx *ctx, const char *ns,
                           zb_catalog_list_cb fn, void *payload);

int zb_catalog_create_namespace(zb_catalog *c, zb_ctx *ctx, const char *ns);

/*
 * Loads "ns.table" (the last '.' separates the name); for PATH, ident is
 * the folder. ZB_ENOTFOUND when there is no such table.
 */
int zb_catalog_load_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                          zb_table **out);

/*
 * Creates a table from the metadata JSON of its first version (the
 * caller builds it, table/commit/commit.h helps); location NULL: the catalog's
 * default location for ident. ZB_EEXISTS when the name is taken.
 */
int zb_catalog_create_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            const char *location, const ice_metadata *first,
                            zb_table **out);

/*
 * Registers an existing metadata file under ident (SQL, REST).
 */
int zb_catalog_register_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                              const char *metadata_location, zb_table **out);

/*
 * Whether tables of c can be changed at all (no I/O but for a named
 * metadata file, see zb_catalog_check_current): ZB_OK, or
 * ZB_EREFUSED (exit 3) for a table folder (PATH) on an object store
 * (zb_io_is_object_store): without a catalog a commit would rely on the
 * store alone, and an object store has no atomic rename or honoured
 * put-if-absent, so one of two concurrent writers' commits could be lost.
 * The message says so and what to do (register the table in a SQL or
 * REST catalog). Such a table stays readable (scan, describe, plan, dry
 * runs). The PATH catalog's commit and create refuse the same way, so no
 * caller can get past it; callers that delete files without committing
 * (remove-orphans) ask first.
 */
int zb_catalog_check_writable(zb_catalog *c, zb_ctx *ctx, const char *ident);

/*
 * For a PATH ident that names a metadata file (a name ending in .json or
 * .json.gz): ZB_EREFUSED unless that file is its table folder's newest
 * (a change from an older one would fork the table, a deletion from it
 * lose newer files), naming the newest; zb_catalog_check_writable checks
 * this too. ZB_OK for every other ident and catalog.
 */
int zb_catalog_check_current(zb_catalog *c, zb_ctx *ctx, const char *ident);

/*
 * Commits requirements (JSON array of TableRequirement) and updates (JSON
 * array of TableUpdate) to the table base was loaded as. See the codes
 * above. *out (may be NULL) gets the table as committed.
 */
int zb_catalog_commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                      const zb_json *requirements, const zb_json *updates,
                      zb_table **out);

/* Drops the table from the catalog, not its files. */
int zb_catalog_drop_table(zb_catalog *c, zb_ctx *ctx, const char *ident);

/*
 * The database of an SQL catalog (borrowed; zb_sqldb_ref to keep it), or
 * NULL for the REST and folder catalogs.
 */
zb_sqldb *zb_catalog_sqldb(const zb_catalog *c);

/*
 * A commit fence: a condition every commit through a handle must meet
 * while the fence is set, so that a worker that lost its lease cannot
 * commit (service/ sets one per task; the catalog knows nothing of
 * queues). sql_condition is a boolean SQL expression with '?'
 * placeholders (params, text) that db evaluates.
 *   - An SQL catalog on the same zb_sqldb handle puts it in the WHERE
 *     clause of its compare-and-swap UPDATE: the check and the swap are
 *     one statement, so only a holder of the lease commits.
 *   - Any other catalog (REST, folders, an SQL catalog in another
 *     database) evaluates it in db right before the commit; the window
 *     between that check and the catalog's swap remains.
 * A refused commit is ZB_EFENCED (nothing committed; never retried), its
 * message naming what. The fence is borrowed: it must outlive its
 * setting; NULL clears it.
 */
typedef struct zb_commit_fence {
    zb_sqldb *db;
    const char *sql_condition;
    int n_params;                  /* at most 8 */
    const char *params[8];
    const char *what;              /* "task 12 attempt 3": messages */
} zb_commit_fence;

void zb_catalog_set_fence(zb_catalog *c, const zb_commit_fence *fence);

#endif

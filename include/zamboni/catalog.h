/*
 * zamboni/catalog.h - the catalog a program finds its tables in and
 * commits through, for programs that embed Zamboni.
 *
 *     zb_ctx ctx;
 *     zb_catalog *cat = NULL;
 *     zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
 *
 *     zb_ctx_init(&ctx);
 *     o.uri = "sqlite:/var/lib/zamboni/catalog.db";
 *     o.warehouse = "lake";
 *     if (zb_catalog_new(&cat, &ctx, &o) < 0)
 *         fprintf(stderr, "%s\n", ctx.err.msg);
 *     ... zb_table_load (zamboni/table.h), zb_ops_* (zamboni/ops.h) ...
 *     zb_catalog_free(cat);
 *
 * The URIs are the command line's (--uri, ZAMBONI_URI):
 *   NULL              table folders: a table is named by its folder's
 *                     path (Hadoop-style tables, copied or moved tables)
 *   sqlite:PATH       the SQL catalog (Iceberg's JdbcCatalog schema) in a
 *                     SQLite database file; SQLAlchemy's sqlite:///PATH
 *                     is the same (sqlite:////abs/path for an absolute
 *                     one). The file must exist
 *   postgresql://...  the SQL catalog on PostgreSQL, a libpq URL
 *                     (postgres:// and postgresql+DRIVER:// are taken
 *                     too); ZB_EUNSUPPORTED in a build without libpq
 *   http(s)://...     an Iceberg REST catalog: its base URI, without /v1
 * Unlike the command line, nothing is read from the environment, .env or
 * zamboni.yml: a relative path is relative to the working directory, "~"
 * is not expanded, and there is no default database.
 *
 * A catalog owns its FileIO (the local filesystem; a URI of another
 * scheme in table metadata fails with ZB_EUNSUPPORTED). Like a zb_ctx, a
 * handle is used by one thread at a time; open one per thread.
 */
#ifndef ZAMBONI_CATALOG_H
#define ZAMBONI_CATALOG_H

#include "zamboni/zamboni.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_catalog zb_catalog;

#define ZB_CATALOG_OPTS_VERSION 1

/* What to open. Strings are copied; every field may stay at its INIT
 * value, which is the default given beside it. */
typedef struct zb_catalog_opts {
    unsigned version;               /* ZB_CATALOG_OPTS_VERSION */
    const char *uri;                /* NULL: table folders (see above) */
    /* SQL: the catalog_name its rows are keyed by (NULL: "zamboni");
     * REST: the warehouse parameter of /v1/config (NULL: none). */
    const char *warehouse;
    const char *credential;         /* REST OAuth2 "client_id:secret";
                                       NULL: none */
    const char *token;              /* REST bearer token; NULL: none */
    const char *oauth2_server_uri;  /* REST; NULL: <uri>/v1/oauth/tokens */
    const char *scope;              /* REST OAuth2 scope; NULL: "catalog" */
    const char *pg_read_url;        /* PostgreSQL reads (a replica);
                                       NULL: uri */
} zb_catalog_opts;

#define ZB_CATALOG_OPTS_INIT                                              \
    { .version = ZB_CATALOG_OPTS_VERSION, .uri = NULL, .warehouse = NULL, \
      .credential = NULL, .token = NULL, .oauth2_server_uri = NULL,      \
      .scope = NULL, .pg_read_url = NULL }

/*
 * Opens the catalog opts describes (NULL: ZB_CATALOG_OPTS_INIT, table
 * folders) into *out; free it with zb_catalog_free. The message in
 * ctx->err names the URI or the database. Codes: ZB_EUSAGE (a URI that
 * names no catalog Zamboni speaks, sqlite: without a path), ZB_ENOTFOUND
 * (no SQLite database at the path), ZB_EIO (a server that does not
 * answer), ZB_EUNSUPPORTED (PostgreSQL in a build without it), ZB_EINVAL
 * (opts of another version), ZB_ENOMEM.
 */
int zb_catalog_new(zb_catalog **out, zb_ctx *ctx,
                   const zb_catalog_opts *opts);

/* Closes the catalog and its FileIO. NULL is fine. */
void zb_catalog_free(zb_catalog *cat);

#ifdef __cplusplus
}
#endif
#endif

/*
 * catalog/sql/catalog_sql.h - private to src/catalog: the SQL catalog's
 * common logic (catalog_sql.c) over a small driver interface that SQLite
 * (catalog_sqlite.c) and PostgreSQL (catalog_pg.c) implement.
 *
 * Statements are written once, with '?' placeholders (the PostgreSQL
 * driver numbers them $1, $2, ...); parameters and result values are
 * text, NULL for SQL NULL. Every statement runs on its own (autocommit):
 * the commit is one compare-and-swap UPDATE, so no transaction spans two
 * statements.
 */
#ifndef ZB_CATALOG_CATALOG_SQL_H
#define ZB_CATALOG_CATALOG_SQL_H

#include <stdint.h>

#include "catalog/catalog_int.h"

/* One result row: n values, NULL for SQL NULL. Non-zero stops. */
typedef int (*zb_sql_row_cb)(void *payload, int n, const char *const *vals);

/* Where a statement runs (exec's mode). */
enum {
    ZB_SQL_READ = 0,     /* a read: the read pool (replicas) */
    ZB_SQL_PRIMARY = 1,  /* a read a commit depends on: the write pool */
    ZB_SQL_WRITE = 2     /* a change: the write pool */
};

typedef struct zb_sql_driver {
    const char *name;              /* "sqlite", "postgres" */
    /*
     * Runs sql with n params; mode is ZB_SQL_READ, _PRIMARY or _WRITE.
     * fn (may be NULL) gets each row; *changes_out (may be NULL) the rows
     * changed. A read whose pooled connection turns out broken is run
     * again once on a new connection. Codes: ZB_EEXISTS (a unique key
     * taken), ZB_EIO (the database failed), ZB_ETIMEOUT (the connection
     * broke during a ZB_SQL_WRITE: its outcome is unknown), or fn's
     * non-zero value. Messages name what failed, not the catalog.
     */
    int (*exec)(void *db, zb_ctx *ctx, int mode, const char *sql, int n,
                const char *const *params, zb_sql_row_cb fn, void *payload,
                int64_t *changes_out);
    /* The catalog's clock in ms since the epoch (the clock rule). */
    int (*now_ms)(void *db, zb_ctx *ctx, int64_t *out);
    void (*close)(void *db);
} zb_sql_driver;

/*
 * Finishes opening an SQL catalog on an open driver handle: creates the
 * tables when missing (Iceberg JdbcCatalog's schema, with iceberg_type),
 * notes whether iceberg_type exists (tables made by PyIceberg lack it),
 * and sets c->ops. Takes db over (closed on failure too).
 */
int zb_catalog__sql_open(zb_catalog *c, zb_ctx *ctx,
                         const zb_catalog_config *cfg,
                         const zb_sql_driver *driver, void *db);

#endif

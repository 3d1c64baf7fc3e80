/*
 * catalog/sql/sqldb_int.h - private to src/catalog/sql: the driver
 * interface SQLite (catalog_sqlite.c) and PostgreSQL (catalog_pg.c)
 * implement under zb_sqldb (sqldb.h, sqldb.c).
 */
#ifndef ZB_CATALOG_SQLDB_INT_H
#define ZB_CATALOG_SQLDB_INT_H

#include <stdatomic.h>

#include "catalog/sql/sqldb.h"

typedef struct zb_sql_driver {
    const char *name;              /* "sqlite", "postgres" */
    /* zb_sqldb_exec's contract. */
    int (*exec)(void *db, zb_ctx *ctx, int mode, const char *sql, int n,
                const char *const *params, zb_sql_row_cb fn, void *payload,
                int64_t *changes_out);
    int (*now_ms)(void *db, zb_ctx *ctx, int64_t *out);
    /* A write connection in a transaction begun (*conn: the driver's). */
    int (*tx_begin)(void *db, zb_ctx *ctx, void **conn);
    int (*tx_exec)(void *db, void *conn, zb_ctx *ctx, const char *sql, int n,
                   const char *const *params, zb_sql_row_cb fn,
                   void *payload, int64_t *changes_out);
    /* Commits (commit 1) or rolls back, and gives the connection back. */
    int (*tx_end)(void *db, void *conn, zb_ctx *ctx, int commit);
    void (*stats)(const void *db, zb_sqldb_stats *out);
    void (*close)(void *db);
} zb_sql_driver;

struct zb_sqldb {
    const zb_sql_driver *drv;
    void *db;                      /* the driver's state */
    atomic_int refs;
    int is_pg;
    char desc[256];                /* zb_sqldb_describe */
};

/* Fill s->drv, s->db, s->desc; on failure leave s->db NULL. */
int zb_sqldb__sqlite_open(zb_sqldb *s, zb_ctx *ctx, const char *path);
int zb_sqldb__pg_open(zb_sqldb *s, zb_ctx *ctx, const zb_sqldb_config *cfg);

#endif

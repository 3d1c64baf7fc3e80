/*
 * catalog/sql/sqldb.h - a connection to the SQL database Zamboni keeps its
 * rows in: the SQL catalog's (catalog_sql.c) and the task queue's
 * (service/queue). One handle, shared by threads and reference counted,
 * so that the catalog and the queue of a process use the same connections
 * when they live in the same database (seeds/001: at most the configured
 * pool per process).
 *
 *     zb_sqldb *db = NULL;
 *     zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;
 *     cfg.sqlite_path = "/var/lib/zamboni/catalog.db";
 *     rc = zb_sqldb_open(&db, ctx, &cfg);
 *     rc = zb_sqldb_exec(db, ctx, ZB_SQL_WRITE, "UPDATE t SET a = ? "
 *                        "WHERE b = ?", 2, params, NULL, NULL, &changed);
 *     zb_sqldb_close(db);
 *
 * Statements are written once with '?' placeholders (PostgreSQL's driver
 * numbers them $1, $2, ...); parameters and result values are text, NULL
 * for SQL NULL. zb_sqldb_exec runs one statement on its own (autocommit);
 * zb_sqldb_transaction runs a few on one connection in one transaction
 * (SQLite: BEGIN IMMEDIATE, so writers queue at its start instead of
 * failing at its end). Callers keep transactions short and do no other
 * I/O inside them, so that idle_in_transaction_session_timeout never
 * fires.
 *
 * SQLite: one connection, serialised by a mutex; WAL; a busy timeout.
 * PostgreSQL: a write pool (the primary: writes, leases, the reads a write
 * depends on) and a read pool (replicas; the write pool when no read URL
 * is given), each of at most its size, opened on demand.
 */
#ifndef ZB_CATALOG_SQLDB_H
#define ZB_CATALOG_SQLDB_H

#include <stdint.h>

#include "zamboni/zamboni.h"

typedef struct zb_sqldb zb_sqldb;

/* One result row: n values, NULL for SQL NULL. Non-zero stops. */
typedef int (*zb_sql_row_cb)(void *payload, int n, const char *const *vals);

/* Where a statement runs (exec's mode). */
enum {
    ZB_SQL_READ = 0,     /* a read: the read pool (replicas) */
    ZB_SQL_PRIMARY = 1,  /* a read a write depends on: the write pool */
    ZB_SQL_WRITE = 2     /* a change: the write pool */
};

/* At most this many parameters and result columns per statement. */
#define ZB_SQL_MAX_PARAMS 24
#define ZB_SQL_MAX_COLS 32

typedef struct zb_sqldb_config {
    const char *sqlite_path;       /* SQLite: the file (created if missing) */
    const char *pg_write_url;      /* PostgreSQL: libpq URLs */
    const char *pg_read_url;       /* NULL: the write URL */
    int pg_write_pool;             /* connections; <= 0: 2 */
    int pg_read_pool;              /* <= 0: 2 */
} zb_sqldb_config;

#define ZB_SQLDB_CONFIG_INIT { NULL, NULL, NULL, 0, 0 }

/*
 * Opens the database cfg names (sqlite_path, else pg_write_url), with
 * one reference. PostgreSQL connects once to each URL now, so that a
 * wrong host or password shows at open. Codes: ZB_EUSAGE (neither given,
 * a malformed URL; never printed, it may hold a password), ZB_EIO (a
 * server that does not answer, a file that cannot be opened),
 * ZB_EUNSUPPORTED (PostgreSQL in a build without libpq), ZB_ENOMEM.
 */
int zb_sqldb_open(zb_sqldb **out, zb_ctx *ctx, const zb_sqldb_config *cfg);

/* Another reference to db (returned). */
zb_sqldb *zb_sqldb_ref(zb_sqldb *db);

/* Drops a reference; the last one closes. NULL is fine. */
void zb_sqldb_close(zb_sqldb *db);

/* 1 for PostgreSQL, 0 for SQLite (the dialect a caller writes). */
int zb_sqldb_is_postgres(const zb_sqldb *db);

/* "sqlite PATH" or "postgresql HOST:PORT/DB" for messages: never a
 * password. */
const char *zb_sqldb_describe(const zb_sqldb *db);

/*
 * Runs sql with n params (at most ZB_SQL_MAX_PARAMS) in mode. fn (may be
 * NULL) gets each row; *changes_out (may be NULL) the rows changed. A
 * read whose pooled connection turns out broken runs again once on a new
 * connection. Codes: ZB_EEXISTS (a unique key taken), ZB_EIO (the
 * database failed), ZB_ETIMEOUT (the connection broke during a
 * ZB_SQL_WRITE: the outcome is unknown), or fn's non-zero value.
 */
int zb_sqldb_exec(zb_sqldb *db, zb_ctx *ctx, int mode, const char *sql,
                  int n, const char *const *params, zb_sql_row_cb fn,
                  void *payload, int64_t *changes_out);

/* The database's clock in ms since the epoch (PostgreSQL: the server's
 * now(); SQLite: the host's). Leases compare against this clock. */
int zb_sqldb_now_ms(zb_sqldb *db, zb_ctx *ctx, int64_t *out);

/*
 * A transaction on one write connection: fn runs its statements with
 * zb_sqldb_tx_exec; fn < 0 rolls back and is returned, otherwise the
 * transaction commits (a commit whose connection broke is ZB_ETIMEOUT).
 * fn must not call zb_sqldb_exec on the same SQLite database (its one
 * connection is held) nor do other I/O.
 */
typedef struct zb_sqldb_tx zb_sqldb_tx;
typedef int (*zb_sqldb_tx_fn)(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload);

int zb_sqldb_transaction(zb_sqldb *db, zb_ctx *ctx, zb_sqldb_tx_fn fn,
                         void *payload);
int zb_sqldb_tx_exec(zb_sqldb_tx *tx, zb_ctx *ctx, const char *sql, int n,
                     const char *const *params, zb_sql_row_cb fn,
                     void *payload, int64_t *changes_out);

/* Connections opened since the handle was (for benchmarks and /metrics):
 * write and read pools; SQLite counts its one connection as a write. */
typedef struct zb_sqldb_stats {
    uint64_t write_connects, read_connects;
    int write_pool, read_pool;     /* the pools' sizes */
} zb_sqldb_stats;

void zb_sqldb_stats_get(const zb_sqldb *db, zb_sqldb_stats *out);

#endif

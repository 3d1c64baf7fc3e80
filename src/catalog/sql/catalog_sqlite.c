/*
 * catalog/sql/catalog_sqlite.c - the SQLite driver of zb_sqldb (sqldb.h):
 * the embedded default, one database file (callers pass its path; the CLI
 * puts it under $ZAMBONI_ROOT).
 *
 * One connection per handle, serialised by a mutex so that a handle may
 * be shared by threads; a transaction holds the mutex from BEGIN
 * IMMEDIATE to its end. WAL journal (readers never block the
 * writer, and processes share the file), synchronous=NORMAL (durable at
 * checkpoints, never corrupt), and a busy timeout so that writers from
 * several processes wait for each other instead of failing: a
 * transaction takes the write lock at its start, so waiting is always
 * safe.
 *
 * The catalog's clock for the clock rule is the host's.
 */
#define ZB_MODULE "sqldb"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "catalog/sql/sqldb_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define SQLITE_BUSY_TIMEOUT_MS 30000

typedef struct sqlite_db {
    sqlite3 *db;
    char *path;
    pthread_mutex_t lock;
} sqlite_db;

static int sqlite_rc(zb_ctx *ctx, sqlite_db *d, int src, const char *what)
{
    int ext = sqlite3_extended_errcode(d->db);

    if (src == SQLITE_CONSTRAINT &&
        (ext == SQLITE_CONSTRAINT_PRIMARYKEY || ext == SQLITE_CONSTRAINT_UNIQUE))
        return zb_fail(ctx, ZB_EEXISTS, "sqlite %s: %s: %s", d->path, what,
                       sqlite3_errmsg(d->db));
    if (src == SQLITE_NOMEM)
        return zb_fail_oom(ctx);
    /* SQLITE_BUSY after the busy timeout: the statement did not run. */
    return zb_fail(ctx, ZB_EIO, "sqlite %s: %s: %s", d->path, what,
                   sqlite3_errmsg(d->db));
}

/* One statement on the connection; the caller holds d->lock. */
static int exec_locked(sqlite_db *d, zb_ctx *ctx, const char *sql, int n,
                       const char *const *params, zb_sql_row_cb fn,
                       void *payload, int64_t *changes_out)
{
    sqlite3_stmt *st = NULL;
    const char *vals[ZB_SQL_MAX_COLS];
    int i, src, rc = ZB_OK;

    if (changes_out != NULL)
        *changes_out = 0;
    src = sqlite3_prepare_v2(d->db, sql, -1, &st, NULL);
    if (src != SQLITE_OK) {
        rc = sqlite_rc(ctx, d, src, "preparing a statement");
        goto done;
    }
    for (i = 0; i < n; i++) {
        src = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1,
                                            SQLITE_TRANSIENT)
                        : sqlite3_bind_null(st, i + 1);
        if (src != SQLITE_OK) {
            rc = sqlite_rc(ctx, d, src, "binding a parameter");
            goto done;
        }
    }
    for (;;) {
        src = sqlite3_step(st);
        if (src == SQLITE_DONE)
            break;
        if (src != SQLITE_ROW) {
            rc = sqlite_rc(ctx, d, src, "running a statement");
            goto done;
        }
        if (fn != NULL) {
            int cols = sqlite3_column_count(st);
            if (cols > ZB_SQL_MAX_COLS)
                cols = ZB_SQL_MAX_COLS;
            for (i = 0; i < cols; i++)
                vals[i] = (const char *)sqlite3_column_text(st, i);
            if ((rc = fn(payload, cols, vals)) != 0)
                goto done;
        }
    }
    if (changes_out != NULL)
        *changes_out = sqlite3_changes(d->db);
done:
    sqlite3_finalize(st);
    return rc;
}

static int sqlite_exec(void *db, zb_ctx *ctx, int mode, const char *sql,
                       int n, const char *const *params, zb_sql_row_cb fn,
                       void *payload, int64_t *changes_out)
{
    sqlite_db *d = db;
    int rc;

    ZB_UNUSED(mode);
    pthread_mutex_lock(&d->lock);
    rc = exec_locked(d, ctx, sql, n, params, fn, payload, changes_out);
    pthread_mutex_unlock(&d->lock);
    return rc;
}

static int sqlite_tx_begin(void *db, zb_ctx *ctx, void **conn)
{
    sqlite_db *d = db;
    int rc;

    pthread_mutex_lock(&d->lock);
    rc = exec_locked(d, ctx, "BEGIN IMMEDIATE", 0, NULL, NULL, NULL, NULL);
    if (rc < 0) {
        pthread_mutex_unlock(&d->lock);
        return rc;
    }
    *conn = d;
    return ZB_OK;
}

static int sqlite_tx_exec(void *db, void *conn, zb_ctx *ctx, const char *sql,
                          int n, const char *const *params, zb_sql_row_cb fn,
                          void *payload, int64_t *changes_out)
{
    ZB_UNUSED(conn);
    return exec_locked(db, ctx, sql, n, params, fn, payload, changes_out);
}

static int sqlite_tx_end(void *db, void *conn, zb_ctx *ctx, int commit)
{
    sqlite_db *d = db;
    int rc;

    ZB_UNUSED(conn);
    rc = exec_locked(d, ctx, commit ? "COMMIT" : "ROLLBACK", 0, NULL, NULL,
                     NULL, NULL);
    if (rc < 0 && commit) {
        /* A COMMIT that failed (SQLITE_BUSY, I/O) leaves the transaction
         * open: roll it back so that the connection is usable again. */
        zb_err saved;

        zb_err_copy(&saved, &ctx->err);
        (void)exec_locked(d, ctx, "ROLLBACK", 0, NULL, NULL, NULL, NULL);
        zb_err_copy(&ctx->err, &saved);
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

static void sqlite_stats(const void *db, zb_sqldb_stats *out)
{
    ZB_UNUSED(db);
    out->write_connects = 1;
    out->write_pool = 1;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sqlite_now_ms(void *db, zb_ctx *ctx, int64_t *out)
{
    ZB_UNUSED(db);
    ZB_UNUSED(ctx);
    *out = now_ms();
    return ZB_OK;
}

static void sqlite_close(void *db)
{
    sqlite_db *d = db;

    if (d == NULL)
        return;
    sqlite3_close_v2(d->db);
    pthread_mutex_destroy(&d->lock);
    zb_free(d->path);
    zb_free(d);
}

static const zb_sql_driver sqlite_driver = {
    "sqlite", sqlite_exec, sqlite_now_ms, sqlite_tx_begin, sqlite_tx_exec,
    sqlite_tx_end, sqlite_stats, sqlite_close
};

int zb_sqldb__sqlite_open(zb_sqldb *s, zb_ctx *ctx, const char *path)
{
    sqlite_db *d = NULL;
    char *errmsg = NULL;
    int src;

    if (path == NULL || path[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "no SQLite database file given");
    if ((d = zb_calloc(1, sizeof(*d))) == NULL)
        return zb_fail_oom(ctx);
    if ((d->path = zb_strdup(path)) == NULL) {
        zb_free(d);
        return zb_fail_oom(ctx);
    }
    pthread_mutex_init(&d->lock, NULL);
    src = sqlite3_open_v2(d->path, &d->db,
                          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                              SQLITE_OPEN_NOMUTEX, NULL);
    if (src != SQLITE_OK) {
        zb_fail(ctx, ZB_EIO, "opening SQLite database %s: %s", d->path,
                d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(src));
        sqlite_close(d);
        return ZB_EIO;
    }
    sqlite3_busy_timeout(d->db, SQLITE_BUSY_TIMEOUT_MS);
    /* synchronous=FULL: a commit's pointer swap must survive a power
     * loss, since files may be deleted on the strength of it; commits
     * are few, so the extra sync costs little. */
    src = sqlite3_exec(d->db, "PRAGMA journal_mode=WAL; "
                       "PRAGMA synchronous=FULL;", NULL, NULL, &errmsg);
    if (src != SQLITE_OK) {
        zb_fail(ctx, ZB_EIO, "SQLite database %s: setting WAL mode: %s",
                d->path, errmsg ? errmsg : sqlite3_errstr(src));
        sqlite3_free(errmsg);
        sqlite_close(d);
        return ZB_EIO;
    }
    s->drv = &sqlite_driver;
    s->db = d;
    snprintf(s->desc, sizeof(s->desc), "sqlite %s", d->path);
    return ZB_OK;
}

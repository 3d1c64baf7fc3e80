/*
 * catalog/sql/catalog_pg.c - the PostgreSQL driver of zb_sqldb (sqldb.h),
 * on libpq.
 *
 * Two pools, as seeds/001 asks of a production catalog database: the
 * write URL (the primary: commits, DDL, and the reads a commit depends on)
 * and the read URL (replicas: loads and listings; NULL means the write
 * URL). Each pool holds at most its configured number of connections,
 * opened on demand; a caller that finds every connection busy waits for
 * one to come back. A connection that breaks is closed and replaced by
 * the next caller.
 *
 * Errors: a malformed connection string is ZB_EUSAGE (libpq's parser
 * names the problem; the string itself is never printed, it may hold a
 * password); a server that does not answer is ZB_EIO with libpq's reason
 * and the host and port; a connection lost while a write was in flight is
 * ZB_ETIMEOUT: the write may or may not have happened.
 *
 * The catalog's clock for the clock rule is the server's now().
 */
#define ZB_MODULE "sqldb"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "catalog/sql/sqldb_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

#define PG_DEFAULT_POOL 2
#define PG_CONNECT_TIMEOUT_S "10"

typedef struct pg_pool {
    const char *role;              /* "write", "read" */
    char *url;
    int size;
    int n_open;                    /* connections out or idle */
    int n_idle;
    uint64_t connects;             /* connections opened, ever */
    PGconn **idle;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} pg_pool;

typedef struct pg_db {
    pg_pool write;
    pg_pool read;
    int shared;                    /* read URL is the write URL: one pool */
} pg_db;

/* libpq's message on one line (it ends with '\n' and may hold several). */
static void one_line(char *out, size_t size, const char *msg)
{
    size_t i, j = 0;

    for (i = 0; msg && msg[i] && j + 1 < size; i++) {
        char ch = msg[i] == '\n' || msg[i] == '\t' ? ' ' : msg[i];
        if (ch == ' ' && (j == 0 || out[j - 1] == ' '))
            continue;
        out[j++] = ch;
    }
    while (j > 0 && out[j - 1] == ' ')
        j--;
    out[j] = '\0';
}

static int pool_init(pg_pool *p, zb_ctx *ctx, const char *role,
                     const char *url, int size)
{
    p->role = role;
    p->size = size > 0 ? size : PG_DEFAULT_POOL;
    if ((p->url = zb_strdup(url)) == NULL ||
        (p->idle = zb_calloc((size_t)p->size, sizeof(PGconn *))) == NULL)
        return zb_fail_oom(ctx);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    return ZB_OK;
}

static void pool_free(pg_pool *p)
{
    int i;

    if (p->idle == NULL) {
        zb_free(p->url);
        return;
    }
    for (i = 0; i < p->n_idle; i++)
        PQfinish(p->idle[i]);
    zb_free(p->idle);
    zb_free(p->url);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
}

/* Server notices ("relation ... already exists, skipping") are not ours
 * to print: libpq's default writes them to stderr. */
static void quiet_notice(void *arg, const char *message)
{
    ZB_UNUSED(arg);
    ZB_UNUSED(message);
}

static int pg_connect(PGconn **out, zb_ctx *ctx, const pg_pool *p)
{
    const char *keys[] = { "connect_timeout", "application_name", "dbname",
                           NULL };
    const char *vals[] = { PG_CONNECT_TIMEOUT_S, "zamboni", p->url, NULL };
    char msg[200];
    PGconn *conn;

    *out = NULL;
    /* expand_dbname: the URL's own settings override these defaults. */
    conn = PQconnectdbParams(keys, vals, 1);
    if (conn == NULL)
        return zb_fail_oom(ctx);
    if (PQstatus(conn) != CONNECTION_OK) {
        one_line(msg, sizeof(msg), PQerrorMessage(conn));
        zb_fail(ctx, ZB_EIO, "connecting to PostgreSQL (%s URL, host %s, "
                "port %s): %s", p->role, PQhost(conn) ? PQhost(conn) : "?",
                PQport(conn) ? PQport(conn) : "?", msg);
        PQfinish(conn);
        return ZB_EIO;
    }
    PQsetNoticeProcessor(conn, quiet_notice, NULL);
    *out = conn;
    return ZB_OK;
}

/* 1 when an idle connection still answers (an empty query: one round
 * trip), so that a write is never sent on one the server has closed. */
static int alive(PGconn *conn)
{
    PGresult *res = PQexec(conn, "");
    int ok = res != NULL && PQresultStatus(res) == PGRES_EMPTY_QUERY &&
             PQstatus(conn) == CONNECTION_OK;

    PQclear(res);
    return ok;
}

/* A connection of pool p; check: make sure an idle one is alive. */
static int pool_get(PGconn **out, zb_ctx *ctx, pg_pool *p, int check)
{
    int rc;

    pthread_mutex_lock(&p->lock);
    while (p->n_idle == 0 && p->n_open >= p->size)
        pthread_cond_wait(&p->cond, &p->lock);
    if (p->n_idle > 0) {
        *out = p->idle[--p->n_idle];
        pthread_mutex_unlock(&p->lock);
        if (!check || alive(*out))
            return ZB_OK;
        PQfinish(*out);            /* replaced below, in the same slot */
        *out = NULL;
        pthread_mutex_lock(&p->lock);
        p->n_open--;
    }
    p->n_open++;
    pthread_mutex_unlock(&p->lock);
    rc = pg_connect(out, ctx, p);
    pthread_mutex_lock(&p->lock);
    if (rc < 0) {
        p->n_open--;
        pthread_cond_signal(&p->cond);
    } else {
        p->connects++;
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

static void pool_put(pg_pool *p, PGconn *conn)
{
    pthread_mutex_lock(&p->lock);
    if (PQstatus(conn) != CONNECTION_OK ||
        PQtransactionStatus(conn) != PQTRANS_IDLE) {
        PQfinish(conn);
        p->n_open--;
    } else {
        p->idle[p->n_idle++] = conn;
    }
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* sql with '?' placeholders numbered $1, $2, ... */
static int number_params(zb_buf *out, const char *sql)
{
    int n = 0;

    for (; *sql; sql++) {
        if (*sql == '?') {
            if (zb_buf_appendf(out, "$%d", ++n) < 0)
                return -1;
        } else if (zb_buf_putc(out, *sql) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The SQLSTATE-mapped error of a failed statement on a live connection. */
static int statement_error(zb_ctx *ctx, const pg_pool *p, PGresult *res,
                           const char *msg)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    if (state != NULL && (strcmp(state, "23505") == 0 ||
                          strcmp(state, "42P07") == 0))
        return zb_fail(ctx, ZB_EEXISTS, "PostgreSQL: %s", msg);
    return zb_fail(ctx, ZB_EIO, "PostgreSQL (%s URL): %s", p->role, msg);
}

/* Hands res's rows to fn and its changed-row count to *changes_out. */
static int result_rows(PGresult *res, zb_sql_row_cb fn, void *payload,
                       int64_t *changes_out)
{
    const char *vals[ZB_SQL_MAX_COLS];
    int rc, rows, cols, i, j;

    if (changes_out != NULL) {
        const char *t = PQcmdTuples(res);
        *changes_out = t && *t ? strtoll(t, NULL, 10) : 0;
    }
    if (fn == NULL || PQresultStatus(res) != PGRES_TUPLES_OK)
        return ZB_OK;
    rows = PQntuples(res);
    cols = PQnfields(res);
    if (cols > ZB_SQL_MAX_COLS)
        cols = ZB_SQL_MAX_COLS;
    for (i = 0; i < rows; i++) {
        for (j = 0; j < cols; j++)
            vals[j] = PQgetisnull(res, i, j) ? NULL : PQgetvalue(res, i, j);
        if ((rc = fn(payload, cols, vals)) != 0)
            return rc;
    }
    return ZB_OK;
}

static int ok_status(const PGresult *res)
{
    return res != NULL && (PQresultStatus(res) == PGRES_COMMAND_OK ||
                           PQresultStatus(res) == PGRES_TUPLES_OK);
}

static int pg_exec(void *db, zb_ctx *ctx, int mode, const char *sql, int n,
                   const char *const *params, zb_sql_row_cb fn,
                   void *payload, int64_t *changes_out)
{
    pg_db *d = db;
    pg_pool *p = mode != ZB_SQL_READ || d->shared ? &d->write : &d->read;
    PGconn *conn = NULL;
    PGresult *res = NULL;
    zb_buf q = ZB_BUF_INIT(1 << 16);
    char msg[200];
    int rc, attempt;

    if (changes_out != NULL)
        *changes_out = 0;
    if (n > ZB_SQL_MAX_PARAMS)
        return zb_fail(ctx, ZB_EINVAL, "too many statement parameters");
    if (number_params(&q, sql) < 0)
        return zb_fail_oom(ctx);
    for (attempt = 0;; attempt++) {
        if ((rc = pool_get(&conn, ctx, p, mode == ZB_SQL_WRITE)) < 0)
            goto done;
        res = PQexecParams(conn, q.ptr, n, NULL, params, NULL, NULL, 0);
        if (ok_status(res))
            break;
        one_line(msg, sizeof(msg),
                 res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
        if (PQstatus(conn) != CONNECTION_OK ||
            (res == NULL && mode == ZB_SQL_WRITE)) {
            /* No result at all for a write (libpq out of memory) is as
             * unknown as a lost connection. */
            /* A pooled connection the server closed (a restart, an idle
             * timeout): a read runs again on a new one; a write may have
             * reached the server, so its outcome is unknown. */
            if (mode != ZB_SQL_WRITE && attempt == 0) {
                PQclear(res);
                res = NULL;
                pool_put(p, conn);
                conn = NULL;
                continue;
            }
            rc = zb_fail(ctx, mode == ZB_SQL_WRITE ? ZB_ETIMEOUT : ZB_EIO,
                         "PostgreSQL (%s URL): connection lost%s: %s", p->role,
                         mode == ZB_SQL_WRITE ? ", the outcome is unknown"
                                              : "", msg);
        } else {
            rc = statement_error(ctx, p, res, msg);
        }
        goto done;
    }
    rc = result_rows(res, fn, payload, changes_out);
done:
    PQclear(res);
    if (conn != NULL)
        pool_put(p, conn);
    zb_buf_free(&q);
    return rc;
}

/* A statement inside a transaction: a lost connection rolls the
 * transaction back on the server, so every failure is a plain one. */
static int pg_tx_exec(void *db, void *connp, zb_ctx *ctx, const char *sql,
                      int n, const char *const *params, zb_sql_row_cb fn,
                      void *payload, int64_t *changes_out)
{
    pg_db *d = db;
    PGconn *conn = connp;
    PGresult *res;
    zb_buf q = ZB_BUF_INIT(1 << 16);
    char msg[200];
    int rc;

    if (changes_out != NULL)
        *changes_out = 0;
    if (n > ZB_SQL_MAX_PARAMS)
        return zb_fail(ctx, ZB_EINVAL, "too many statement parameters");
    if (number_params(&q, sql) < 0)
        return zb_fail_oom(ctx);
    res = PQexecParams(conn, q.ptr, n, NULL, params, NULL, NULL, 0);
    if (ok_status(res)) {
        rc = result_rows(res, fn, payload, changes_out);
    } else {
        one_line(msg, sizeof(msg),
                 res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
        rc = PQstatus(conn) != CONNECTION_OK
                 ? zb_fail(ctx, ZB_EIO, "PostgreSQL (write URL): connection "
                           "lost in a transaction: %s", msg)
                 : statement_error(ctx, &d->write, res, msg);
    }
    PQclear(res);
    zb_buf_free(&q);
    return rc;
}

static int pg_tx_begin(void *db, zb_ctx *ctx, void **connp)
{
    pg_db *d = db;
    PGconn *conn = NULL;
    int rc;

    if ((rc = pool_get(&conn, ctx, &d->write, 1)) < 0)
        return rc;
    if ((rc = pg_tx_exec(db, conn, ctx, "BEGIN", 0, NULL, NULL, NULL,
                         NULL)) < 0) {
        pool_put(&d->write, conn);
        return rc;
    }
    *connp = conn;
    return ZB_OK;
}

static int pg_tx_end(void *db, void *connp, zb_ctx *ctx, int commit)
{
    pg_db *d = db;
    PGconn *conn = connp;
    PGresult *res = PQexec(conn, commit ? "COMMIT" : "ROLLBACK");
    char msg[200];
    int rc = ZB_OK;

    if (!ok_status(res)) {
        one_line(msg, sizeof(msg),
                 res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
        /* A COMMIT sent on a connection that then broke: the server may
         * have committed. */
        if (PQstatus(conn) != CONNECTION_OK && commit)
            rc = zb_fail(ctx, ZB_ETIMEOUT, "PostgreSQL (write URL): "
                         "connection lost at COMMIT, the outcome is "
                         "unknown: %s", msg);
        else if (commit)
            rc = statement_error(ctx, &d->write, res, msg);
    }
    PQclear(res);
    pool_put(&d->write, conn);     /* closed when not idle and healthy */
    return rc;
}

static void pg_stats(const void *db, zb_sqldb_stats *out)
{
    pg_db *d = (pg_db *)db;

    pthread_mutex_lock(&d->write.lock);
    out->write_connects = d->write.connects;
    out->write_pool = d->write.size;
    pthread_mutex_unlock(&d->write.lock);
    if (!d->shared) {
        pthread_mutex_lock(&d->read.lock);
        out->read_connects = d->read.connects;
        out->read_pool = d->read.size;
        pthread_mutex_unlock(&d->read.lock);
    }
}

typedef struct now_value {
    int found;
    int64_t ms;
} now_value;

static int now_cb(void *payload, int n, const char *const *vals)
{
    now_value *v = payload;

    if (n >= 1 && vals[0] != NULL) {
        v->ms = strtoll(vals[0], NULL, 10);
        v->found = 1;
    }
    return 0;
}

static int pg_now_ms(void *db, zb_ctx *ctx, int64_t *out)
{
    now_value v = { 0, 0 };
    int rc;

    rc = pg_exec(db, ctx, ZB_SQL_PRIMARY,
                 "SELECT CAST(floor(extract(epoch FROM now()) * 1000) AS bigint)",
                 0, NULL, now_cb, &v, NULL);
    if (rc < 0)
        return rc;
    if (!v.found)
        return zb_fail(ctx, ZB_EIO, "PostgreSQL: now() gave no value");
    *out = v.ms;
    return ZB_OK;
}

static void pg_close(void *db)
{
    pg_db *d = db;

    if (d == NULL)
        return;
    pool_free(&d->write);
    if (!d->shared)
        pool_free(&d->read);
    zb_free(d);
}

static const zb_sql_driver pg_driver = {
    "postgres", pg_exec, pg_now_ms, pg_tx_begin, pg_tx_exec, pg_tx_end,
    pg_stats, pg_close
};

/* ZB_EUSAGE when libpq cannot parse url. */
static int check_url(zb_ctx *ctx, const char *role, const char *url)
{
    char *err = NULL, msg[200];
    PQconninfoOption *opts;

    if (url == NULL || url[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "no PostgreSQL %s URL given", role);
    opts = PQconninfoParse(url, &err);
    if (opts == NULL) {
        one_line(msg, sizeof(msg), err ? err : "out of memory");
        PQfreemem(err);
        return zb_fail(ctx, ZB_EUSAGE, "bad PostgreSQL %s URL: %s", role, msg);
    }
    PQconninfoFree(opts);
    return ZB_OK;
}

int zb_sqldb__pg_open(zb_sqldb *s, zb_ctx *ctx, const zb_sqldb_config *cfg)
{
    const char *rurl = cfg->pg_read_url ? cfg->pg_read_url : cfg->pg_write_url;
    pg_db *d = NULL;
    PGconn *conn = NULL;
    int rc;

    if ((rc = check_url(ctx, "write", cfg->pg_write_url)) < 0 ||
        (rc = check_url(ctx, "read", rurl)) < 0)
        return rc;
    if ((d = zb_calloc(1, sizeof(*d))) == NULL)
        return zb_fail_oom(ctx);
    d->shared = strcmp(rurl, cfg->pg_write_url) == 0 &&
                cfg->pg_read_pool <= 0;
    if ((rc = pool_init(&d->write, ctx, "write", cfg->pg_write_url,
                        cfg->pg_write_pool)) < 0 ||
        (!d->shared &&
         (rc = pool_init(&d->read, ctx, "read", rurl, cfg->pg_read_pool)) < 0))
        goto fail;
    /* Connect once to each now, so that a wrong host or password shows at
     * open, not at the first load. */
    if ((rc = pool_get(&conn, ctx, &d->write, 0)) < 0)
        goto fail;
    snprintf(s->desc, sizeof(s->desc), "postgresql %s:%s/%s",
             PQhost(conn) ? PQhost(conn) : "?",
             PQport(conn) ? PQport(conn) : "?", PQdb(conn) ? PQdb(conn) : "?");
    pool_put(&d->write, conn);
    if (!d->shared) {
        if ((rc = pool_get(&conn, ctx, &d->read, 0)) < 0)
            goto fail;
        pool_put(&d->read, conn);
    }
    s->drv = &pg_driver;
    s->db = d;
    return ZB_OK;
fail:
    pg_close(d);
    return rc;
}

/*
 * catalog/sql/sqldb.c - the zb_sqldb handle (sqldb.h): opening by kind,
 * the reference count, and the calls that go through to the driver.
 */
#define ZB_MODULE "sqldb"

#include <string.h>

#include "catalog/sql/sqldb_int.h"
#include "util/alloc.h"
#include "util/err.h"

struct zb_sqldb_tx {
    zb_sqldb *db;
    void *conn;
};

int zb_sqldb_open(zb_sqldb **out, zb_ctx *ctx, const zb_sqldb_config *cfg)
{
    zb_sqldb *s;
    int rc;

    *out = NULL;
    if (cfg == NULL || ((cfg->sqlite_path == NULL || !cfg->sqlite_path[0]) &&
                        (cfg->pg_write_url == NULL || !cfg->pg_write_url[0])))
        return zb_fail(ctx, ZB_EUSAGE, "no database given (a SQLite file "
                       "or a PostgreSQL URL)");
    if ((s = zb_calloc(1, sizeof(*s))) == NULL)
        return zb_fail_oom(ctx);
    atomic_init(&s->refs, 1);
    if (cfg->sqlite_path != NULL && cfg->sqlite_path[0]) {
        rc = zb_sqldb__sqlite_open(s, ctx, cfg->sqlite_path);
    } else {
#ifdef ZB_HAVE_PG
        s->is_pg = 1;
        rc = zb_sqldb__pg_open(s, ctx, cfg);
#else
        rc = zb_fail(ctx, ZB_EUNSUPPORTED, "PostgreSQL: this build has no "
                     "libpq");
#endif
    }
    if (rc < 0) {
        zb_free(s);
        return rc;
    }
    *out = s;
    return ZB_OK;
}

zb_sqldb *zb_sqldb_ref(zb_sqldb *db)
{
    if (db != NULL)
        atomic_fetch_add(&db->refs, 1);
    return db;
}

void zb_sqldb_close(zb_sqldb *db)
{
    if (db == NULL || atomic_fetch_sub(&db->refs, 1) != 1)
        return;
    db->drv->close(db->db);
    zb_free(db);
}

int zb_sqldb_is_postgres(const zb_sqldb *db)
{
    return db != NULL && db->is_pg;
}

const char *zb_sqldb_describe(const zb_sqldb *db)
{
    return db != NULL ? db->desc : "(no database)";
}

int zb_sqldb_exec(zb_sqldb *db, zb_ctx *ctx, int mode, const char *sql,
                  int n, const char *const *params, zb_sql_row_cb fn,
                  void *payload, int64_t *changes_out)
{
    if (n > ZB_SQL_MAX_PARAMS)
        return zb_fail(ctx, ZB_EINVAL, "too many statement parameters");
    return db->drv->exec(db->db, ctx, mode, sql, n, params, fn, payload,
                         changes_out);
}

int zb_sqldb_now_ms(zb_sqldb *db, zb_ctx *ctx, int64_t *out)
{
    return db->drv->now_ms(db->db, ctx, out);
}

int zb_sqldb_transaction(zb_sqldb *db, zb_ctx *ctx, zb_sqldb_tx_fn fn,
                         void *payload)
{
    zb_sqldb_tx tx = { db, NULL };
    int rc, erc;

    if ((rc = db->drv->tx_begin(db->db, ctx, &tx.conn)) < 0)
        return rc;
    rc = fn(&tx, ctx, payload);
    if (rc < 0) {
        zb_err saved;

        zb_err_copy(&saved, &ctx->err);
        (void)db->drv->tx_end(db->db, tx.conn, ctx, 0);
        zb_err_copy(&ctx->err, &saved);
        return rc;
    }
    if ((erc = db->drv->tx_end(db->db, tx.conn, ctx, 1)) < 0)
        return erc;
    return rc;
}

int zb_sqldb_tx_exec(zb_sqldb_tx *tx, zb_ctx *ctx, const char *sql, int n,
                     const char *const *params, zb_sql_row_cb fn,
                     void *payload, int64_t *changes_out)
{
    if (n > ZB_SQL_MAX_PARAMS)
        return zb_fail(ctx, ZB_EINVAL, "too many statement parameters");
    return tx->db->drv->tx_exec(tx->db->db, tx->conn, ctx, sql, n, params, fn,
                                payload, changes_out);
}

void zb_sqldb_stats_get(const zb_sqldb *db, zb_sqldb_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (db != NULL)
        db->drv->stats(db->db, out);
}

/*
 * tests/unit/catalog/cat_fence.c - commit fences (catalog.h,
 * zb_commit_fence) and the shared database handle (catalog/sql/sqldb.h):
 * a fence in the catalog's own database joins the swap (SQLite,
 * PostgreSQL); a fence in another database is checked before the commit
 * (every catalog, REST included); a refused commit is ZB_EFENCED and leaves
 * the table and its metadata folder as they were; transactions commit or
 * roll back as a whole; a catalog opened on an open handle shares it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat_test.h"
#include "catalog/sql/sqldb.h"

static zb_table *make_table(cat_env *e, const char *ident)
{
    zb_table *t = NULL;
    ice_metadata *first = cat_first_metadata(e, "/unused/location");
    int rc = zb_catalog_create_namespace(e->cat, &e->ctx, "db");

    ZBT_CHECK(rc == ZB_OK || rc == ZB_EEXISTS);
    ZBT_OK_CTX(zb_catalog_create_table(e->cat, &e->ctx, ident, NULL, first,
                                       &t), &e->ctx);
    ice_metadata_free(first);
    return t;
}

static void exec_ok(zb_sqldb *db, zb_ctx *ctx, const char *sql)
{
    ZBT_OK_CTX(zb_sqldb_exec(db, ctx, ZB_SQL_WRITE, sql, 0, NULL, NULL, NULL,
                             NULL), ctx);
}

/* Commits set-properties k=v; returns the code, the table reloaded. */
static int set_prop(cat_env *e, const zb_table *base, const char *k,
                    const char *v)
{
    json_t *u = cat_set_property(k, v);
    zb_table *t2 = NULL;
    int rc = zb_catalog_commit(e->cat, &e->ctx, base, NULL,
                               (const zb_json *)u, &t2);

    json_decref(u);
    zb_table_free(t2);
    return rc;
}

static void check_fence(cat_env *e, zb_sqldb *db)
{
    char tbl[128], sql[512], cond[256], dir[1024];
    zb_commit_fence f;
    zb_table *t = NULL, *now = NULL;
    size_t files;

    snprintf(tbl, sizeof(tbl), "fence_%s", e->warehouse);
    snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s", tbl);
    exec_ok(db, &e->ctx, sql);
    snprintf(sql, sizeof(sql), "CREATE TABLE %s (holder VARCHAR(16))", tbl);
    exec_ok(db, &e->ctx, sql);
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES ('a')", tbl);
    exec_ok(db, &e->ctx, sql);
    snprintf(cond, sizeof(cond), "EXISTS (SELECT 1 FROM %s WHERE holder = ?)",
             tbl);
    memset(&f, 0, sizeof(f));
    f.db = db;
    f.sql_condition = cond;
    f.n_params = 1;
    f.params[0] = "a";
    f.what = "test holder a";

    t = make_table(e, "db.fenced");
    zb_catalog_set_fence(e->cat, &f);
    ZBT_OK_CTX(set_prop(e, t, "one", "1"), &e->ctx);
    /* The holder changes: the fence no longer holds. */
    snprintf(sql, sizeof(sql), "UPDATE %s SET holder = 'b'", tbl);
    exec_ok(db, &e->ctx, sql);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.fenced", &now),
               &e->ctx);
    snprintf(dir, sizeof(dir), "%s/metadata", t->meta->location);
    files = cat_count_files(dir, ".metadata.json");
    ZBT_RC(set_prop(e, t, "two", "2"), ZB_EFENCED);
    ZBT_CONTAINS(e->ctx.err.msg, "test holder a no longer holds its lease");
    zb_table_free(t);
    t = NULL;
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.fenced", &t),
               &e->ctx);
    ZBT_EQ_STR(t->metadata_location, now->metadata_location);
    ZBT_CHECK(ice_metadata_property(t->meta, "two") == NULL);
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), files);
    /* The new holder's fence commits; no fence commits too. */
    f.params[0] = "b";
    ZBT_OK_CTX(set_prop(e, t, "three", "3"), &e->ctx);
    zb_catalog_set_fence(e->cat, NULL);
    snprintf(sql, sizeof(sql), "DELETE FROM %s", tbl);
    exec_ok(db, &e->ctx, sql);
    ZBT_OK_CTX(set_prop(e, t, "four", "4"), &e->ctx);
    snprintf(sql, sizeof(sql), "DROP TABLE %s", tbl);
    exec_ok(db, &e->ctx, sql);
    zb_table_free(t);
    zb_table_free(now);
}

/* The fence in the catalog's own database: one statement with the swap. */
static void same_database(cat_env *e)
{
    zb_sqldb *db = zb_catalog_sqldb(e->cat);

    ZBT_CHECK(db != NULL);
    check_fence(e, db);
}

/* The fence in a database of its own: checked before the commit. */
static void other_database(cat_env *e)
{
    zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;
    zb_sqldb *db = NULL;
    char path[700];

    snprintf(path, sizeof(path), "%s/fence.db", e->dir);
    cfg.sqlite_path = path;
    ZBT_OK_CTX(zb_sqldb_open(&db, &e->ctx, &cfg), &e->ctx);
    ZBT_CHECK(zb_catalog_sqldb(e->cat) != db);
    check_fence(e, db);
    zb_sqldb_close(db);
}

typedef struct tx_case {
    const char *tbl;
    const char *first, *second;    /* the values inserted */
    int fail;                      /* then fail on purpose */
} tx_case;

static int tx_body(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    tx_case *c = payload;
    char sql[256];
    int rc;

    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (?)", c->tbl);
    if ((rc = zb_sqldb_tx_exec(tx, ctx, sql, 1, &c->first, NULL, NULL,
                               NULL)) < 0 ||
        (rc = zb_sqldb_tx_exec(tx, ctx, sql, 1, &c->second, NULL, NULL,
                               NULL)) < 0)
        return rc;
    return c->fail ? zb_fail(ctx, ZB_ECONFLICT, "asked to fail") : ZB_OK;
}

static int count_cb(void *payload, int n, const char *const *vals)
{
    *(long *)payload = n >= 1 && vals[0] ? strtol(vals[0], NULL, 10) : -1;
    return 0;
}

static long count_rows(zb_sqldb *db, zb_ctx *ctx, const char *tbl)
{
    char sql[256];
    long n = -1;

    snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", tbl);
    ZBT_OK_CTX(zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY, sql, 0, NULL, count_cb,
                             &n, NULL), ctx);
    return n;
}

static void transactions(cat_env *e)
{
    zb_sqldb *db = zb_catalog_sqldb(e->cat);
    zb_catalog *other = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_sqldb_stats st;
    char tbl[128], sql[256];
    tx_case c;

    snprintf(tbl, sizeof(tbl), "tx_%s", e->warehouse);
    snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s", tbl);
    exec_ok(db, &e->ctx, sql);
    snprintf(sql, sizeof(sql), "CREATE TABLE %s (v VARCHAR(8) PRIMARY KEY)",
             tbl);
    exec_ok(db, &e->ctx, sql);
    c.tbl = tbl;
    c.first = "x";
    c.second = "y";
    c.fail = 1;
    ZBT_RC(zb_sqldb_transaction(db, &e->ctx, tx_body, &c), ZB_ECONFLICT);
    ZBT_CONTAINS(e->ctx.err.msg, "asked to fail");
    ZBT_EQ_INT(count_rows(db, &e->ctx, tbl), 0);
    /* A unique key broken by the second statement: the first goes too. */
    c.fail = 0;
    c.second = "x";
    ZBT_RC(zb_sqldb_transaction(db, &e->ctx, tx_body, &c), ZB_EEXISTS);
    ZBT_EQ_INT(count_rows(db, &e->ctx, tbl), 0);
    c.second = "y";
    ZBT_OK_CTX(zb_sqldb_transaction(db, &e->ctx, tx_body, &c), &e->ctx);
    ZBT_EQ_INT(count_rows(db, &e->ctx, tbl), 2);
    /* Once more: both keys are taken now, and the connection still
     * answers after the failures. */
    ZBT_RC(zb_sqldb_transaction(db, &e->ctx, tx_body, &c), ZB_EEXISTS);
    ZBT_EQ_INT(count_rows(db, &e->ctx, tbl), 2);
    snprintf(sql, sizeof(sql), "DROP TABLE %s", tbl);
    exec_ok(db, &e->ctx, sql);

    /* A catalog opened on the handle shares it (and its connections). */
    cfg.kind = e->kind;
    cfg.name = "test";
    cfg.warehouse = e->warehouse;
    cfg.sqldb = db;
    ZBT_OK_CTX(zb_catalog_open(&other, &e->ctx, e->io, &cfg), &e->ctx);
    ZBT_CHECK(zb_catalog_sqldb(other) == db);
    zb_catalog_free(other);
    zb_sqldb_stats_get(db, &st);
    ZBT_CHECK(st.write_connects >= 1);
    ZBT_CHECK(st.write_pool >= 1);
    ZBT_CHECK(strstr(zb_sqldb_describe(db), zb_sqldb_is_postgres(db)
                                                ? "postgresql " : "sqlite ")
              == zb_sqldb_describe(db));
}

static void run(zb_catalog_kind kind, void (*body)(cat_env *))
{
    cat_env e;

    if (!cat_env_open(&e, kind))
        return;
    body(&e);
    cat_env_close(&e);
}

#define SQL(body)                                                           \
    static void test_catalog_fence__##body##_sqlite(void)                   \
    {                                                                       \
        run(ZB_CATALOG_SQLITE, body);                                       \
    }                                                                       \
    static void test_catalog_fence__##body##_pg(void)                       \
    {                                                                       \
        run(ZB_CATALOG_POSTGRES, body);                                     \
    }

SQL(same_database)
SQL(other_database)
SQL(transactions)

#ifdef ZB_TEST_HAVE_REST_SERVER
static void test_catalog_fence__other_database_rest(void)
{
    run(ZB_CATALOG_REST, other_database);
}
#endif

const zbt_case test_catalog_fence[] = {
    ZBT_CASE(test_catalog_fence__same_database_sqlite),
    ZBT_CASE(test_catalog_fence__same_database_pg),
    ZBT_CASE(test_catalog_fence__other_database_sqlite),
    ZBT_CASE(test_catalog_fence__other_database_pg),
#ifdef ZB_TEST_HAVE_REST_SERVER
    ZBT_CASE(test_catalog_fence__other_database_rest),
#endif
    ZBT_CASE(test_catalog_fence__transactions_sqlite),
    ZBT_CASE(test_catalog_fence__transactions_pg),
    ZBT_END
};

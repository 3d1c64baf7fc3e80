/*
 * service/queue/queue_schema.c - the queue's versioned schema: the
 * migrations, applied by `zamboni db migrate` (zb_queue_migrate) and
 * only checked by everything else (zb_queue_open).
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* Migration 1: tasks, attempts, workers. Each entry one statement. */
static const char *const migration_1[] = {
    "CREATE TABLE zamboni_tasks ("
    "id @ID, warehouse TEXT NOT NULL, table_name TEXT NOT NULL, "
    "operation TEXT NOT NULL, op_rank INTEGER NOT NULL, "
    "size_class TEXT NOT NULL, est_memory_bytes BIGINT NOT NULL DEFAULT 0, "
    "est_unspillable_bytes BIGINT NOT NULL DEFAULT 0, "
    "est_cores INTEGER NOT NULL DEFAULT 1, "
    "priority INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL, "
    "scheduled_for_ms BIGINT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, "
    "max_attempts INTEGER NOT NULL, lease_expires_ms BIGINT, "
    "heartbeat_ms BIGINT, created_ms BIGINT NOT NULL, worker_id TEXT, "
    "progress TEXT, options TEXT, last_message TEXT, "
    "UNIQUE (warehouse, table_name, operation))",
    /* take: the due tasks of a class in take's order, so that it reads
     * the first few index entries instead of sorting the queue */
    "CREATE INDEX zamboni_tasks_take ON zamboni_tasks "
    "(state, size_class, priority DESC, scheduled_for_ms, id)",
    /* take's runbook order: the earlier operations of a table */
    "CREATE INDEX zamboni_tasks_table ON zamboni_tasks "
    "(warehouse, table_name, op_rank)",
    /* sweep: expired leases */
    "CREATE INDEX zamboni_tasks_lease ON zamboni_tasks "
    "(state, lease_expires_ms)",
    "CREATE TABLE zamboni_attempts ("
    "id @ID, task_id BIGINT, attempt INTEGER NOT NULL, "
    "warehouse TEXT NOT NULL, table_name TEXT NOT NULL, "
    "operation TEXT NOT NULL, size_class TEXT NOT NULL, "
    "worker_id TEXT NOT NULL, outcome TEXT NOT NULL, message TEXT, "
    "started_ms BIGINT NOT NULL, finished_ms BIGINT NOT NULL, report TEXT, "
    "before_data_files BIGINT, before_data_bytes BIGINT, "
    "before_delete_files BIGINT, before_snapshots BIGINT, "
    "before_metadata_bytes BIGINT, after_data_files BIGINT, "
    "after_data_bytes BIGINT, after_delete_files BIGINT, "
    "after_snapshots BIGINT, after_metadata_bytes BIGINT, "
    "UNIQUE (task_id, attempt))",
    "CREATE INDEX zamboni_attempts_table ON zamboni_attempts "
    "(warehouse, table_name, finished_ms)",
    "CREATE TABLE zamboni_workers ("
    "id TEXT PRIMARY KEY, host TEXT NOT NULL, size_class TEXT NOT NULL, "
    "memory_bytes BIGINT NOT NULL, cores INTEGER NOT NULL, "
    "spill_bytes BIGINT NOT NULL, started_ms BIGINT NOT NULL, "
    "heartbeat_ms BIGINT NOT NULL, task_id BIGINT, "
    "budget_reserved_bytes BIGINT NOT NULL DEFAULT 0, "
    "budget_wait_seconds @REAL NOT NULL DEFAULT 0, "
    "rows_done BIGINT NOT NULL DEFAULT 0, "
    "bytes_done BIGINT NOT NULL DEFAULT 0)",
    NULL
};

/* Migration 2 (issue 18): serve's leader lease. */
static const char *const migration_2[] = {
    "CREATE TABLE zamboni_leader (name TEXT PRIMARY KEY, "
    "holder TEXT NOT NULL, expires_ms BIGINT NOT NULL)",
    NULL
};

static const char *const *const migrations[ZB_QUEUE_SCHEMA_VERSION] = {
    migration_1,
    migration_2,
};

/* One row, one int column: *payload = the value; no row leaves it. */
static int int_row(void *payload, int n, const char *const *vals)
{
    int *v = payload;

    if (n >= 1 && vals[0] != NULL)
        *v = (int)strtol(vals[0], NULL, 10);
    return 0;
}

static const char *exists_sql(const zb_queue *q)
{
    return q->pg ? "SELECT CASE WHEN to_regclass('zamboni_schema') IS NULL "
                   "THEN 0 ELSE 1 END"
                 : "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                   "AND name = 'zamboni_schema'";
}

/* The applied version: 0 when the database has no queue schema. */
static int read_version(const zb_queue *q, zb_ctx *ctx, int *out)
{
    int exists = 0, rc;

    *out = 0;
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_PRIMARY, exists_sql(q), 0, NULL,
                       int_row, &exists, NULL);
    if (rc < 0 || !exists)
        return rc;
    return zb_sqldb_exec(q->db, ctx, ZB_SQL_PRIMARY,
                         "SELECT max(version) FROM zamboni_schema", 0, NULL,
                         int_row, out, NULL);
}

typedef struct migrate_step {
    const zb_queue *q;
    int before;                    /* the version found in the transaction */
} migrate_step;

/*
 * Applies the next migration, if any, in one transaction: PostgreSQL
 * takes an advisory lock first so that two migrating processes queue;
 * SQLite's BEGIN IMMEDIATE does the same.
 */
static int migrate_one(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    migrate_step *m = payload;
    const zb_queue *q = m->q;
    const char *const *stmt;
    char vtext[24];
    const char *params[1];
    int exists = 0, rc;

    m->before = 0;
    if (q->pg &&
        (rc = zb_sqldb_tx_exec(tx, ctx, "SELECT pg_advisory_xact_lock("
                               "7365031)", 0, NULL, NULL, NULL, NULL)) < 0)
        return rc;
    if ((rc = zb_sqldb_tx_exec(tx, ctx, exists_sql(q), 0, NULL, int_row,
                               &exists, NULL)) < 0)
        return rc;
    if (!exists) {
        if ((rc = zb_sqldb_tx_exec(tx, ctx, "CREATE TABLE zamboni_schema "
                                   "(version INTEGER NOT NULL)", 0, NULL,
                                   NULL, NULL, NULL)) < 0)
            return rc;
    } else if ((rc = zb_sqldb_tx_exec(tx, ctx, "SELECT max(version) FROM "
                                      "zamboni_schema", 0, NULL, int_row,
                                      &m->before, NULL)) < 0) {
        return rc;
    }
    if (m->before >= ZB_QUEUE_SCHEMA_VERSION)
        return ZB_OK;              /* done, or newer: the caller tells */
    for (stmt = migrations[m->before]; *stmt != NULL; stmt++)
        if ((rc = zb_queue__tx_exec(q, tx, ctx, *stmt, 0, NULL, NULL, NULL,
                                    NULL)) < 0) {
            zb_err_prefix(ctx, "migration %d", m->before + 1);
            return rc;
        }
    params[0] = zb_queue__i64(vtext, m->before + 1);
    if ((rc = zb_sqldb_tx_exec(tx, ctx, "DELETE FROM zamboni_schema", 0, NULL,
                               NULL, NULL, NULL)) < 0 ||
        (rc = zb_sqldb_tx_exec(tx, ctx, "INSERT INTO zamboni_schema "
                               "(version) VALUES (CAST(? AS INTEGER))", 1,
                               params, NULL, NULL, NULL)) < 0)
        return rc;
    return ZB_OK;
}

static int refuse_newer(zb_ctx *ctx, const zb_queue *q, int version)
{
    return zb_fail(ctx, ZB_EREFUSED, "the queue database %s has schema "
                   "version %d, newer than this build's %d: upgrade zamboni",
                   zb_sqldb_describe(q->db), version,
                   ZB_QUEUE_SCHEMA_VERSION);
}

int zb_queue_migrate(zb_sqldb *db, zb_ctx *ctx, int *from, int *to)
{
    zb_queue q;
    migrate_step m;
    int first = -1, rc;

    ZB_ASSERT_ARG(db != NULL);
    memset(&q, 0, sizeof(q));
    q.db = db;
    q.pg = zb_sqldb_is_postgres(db);
    m.q = &q;
    for (;;) {
        m.before = 0;
        rc = zb_sqldb_transaction(db, ctx, migrate_one, &m);
        if (rc < 0) {
            zb_err_prefix(ctx, "migrating the queue schema of %s",
                          zb_sqldb_describe(db));
            return rc;
        }
        if (first < 0)
            first = m.before;
        if (m.before > ZB_QUEUE_SCHEMA_VERSION)
            return refuse_newer(ctx, &q, m.before);
        if (m.before == ZB_QUEUE_SCHEMA_VERSION)
            break;
    }
    if (from != NULL)
        *from = first;
    if (to != NULL)
        *to = ZB_QUEUE_SCHEMA_VERSION;
    return ZB_OK;
}

int zb_queue_open(zb_queue **out, zb_ctx *ctx, zb_sqldb *db)
{
    zb_queue *q;
    int version = 0, rc;

    ZB_ASSERT_ARG(out != NULL && db != NULL);
    *out = NULL;
    if ((q = zb_calloc(1, sizeof(*q))) == NULL)
        return zb_fail_oom(ctx);
    q->db = db;
    q->pg = zb_sqldb_is_postgres(db);
    zb_size_classes_default(&q->classes);
    if ((rc = read_version(q, ctx, &version)) < 0) {
        zb_err_prefix(ctx, "reading the queue schema of %s",
                      zb_sqldb_describe(db));
        zb_free(q);
        return rc;
    }
    if (version > ZB_QUEUE_SCHEMA_VERSION) {
        rc = refuse_newer(ctx, q, version);
        zb_free(q);
        return rc;
    }
    if (version < ZB_QUEUE_SCHEMA_VERSION) {
        rc = version == 0
                 ? zb_fail(ctx, ZB_EREFUSED, "the queue database %s has no "
                           "queue schema: run `zamboni db migrate`",
                           zb_sqldb_describe(db))
                 : zb_fail(ctx, ZB_EREFUSED, "the queue database %s has "
                           "schema version %d, older than this build's %d: "
                           "run `zamboni db migrate`", zb_sqldb_describe(db),
                           version, ZB_QUEUE_SCHEMA_VERSION);
        zb_free(q);
        return rc;
    }
    q->db = zb_sqldb_ref(db);
    *out = q;
    return ZB_OK;
}

void zb_queue_close(zb_queue *q)
{
    if (q == NULL)
        return;
    zb_sqldb_close(q->db);
    zb_free(q);
}

zb_sqldb *zb_queue_db(const zb_queue *q)
{
    return q != NULL ? q->db : NULL;
}

void zb_queue_set_size_classes(zb_queue *q, const zb_size_classes *classes)
{
    if (q == NULL)
        return;
    if (classes != NULL && classes->n > 0)
        q->classes = *classes;
    else
        zb_size_classes_default(&q->classes);
}

int zb_queue_schema_version(zb_sqldb *db, zb_ctx *ctx, int *version)
{
    zb_queue q;

    memset(&q, 0, sizeof(q));
    q.db = db;
    q.pg = zb_sqldb_is_postgres(db);
    return read_version(&q, ctx, version);
}

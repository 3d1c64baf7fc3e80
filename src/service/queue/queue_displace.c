/*
 * service/queue/queue_displace.c - serve's enqueue under the queue's hard
 * cap (issue 18, seed 004): below the cap the task is inserted; at the
 * cap the lowest-priority excluded task makes room (its removal logged in
 * zamboni_attempts as "evicted"), in the same transaction; scheduled,
 * running and should-stop tasks are never displaced; with nothing to
 * displace the task is refused.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/err.h"

#define DEFAULT_MAX_ATTEMPTS 5

static const char insert_sql[] =
    "INSERT INTO zamboni_tasks (warehouse, table_name, operation, op_rank, "
    "size_class, est_memory_bytes, est_unspillable_bytes, est_cores, "
    "priority, state, scheduled_for_ms, attempt, max_attempts, created_ms, "
    "options) VALUES (CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), "
    "CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS BIGINT), "
    "CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS INTEGER), "
    "'scheduled', @NOW + CAST(? AS BIGINT), 0, CAST(? AS INTEGER), @NOW, "
    "CAST(? AS TEXT)) RETURNING id";

/* Lowest priority first, then the oldest. */
static const char victim_sql[] =
    "SELECT id FROM zamboni_tasks WHERE state = 'excluded' ORDER BY "
    "priority, created_ms, id LIMIT 1";

/* The eviction takes the next attempt number: the task's own attempts
 * keep theirs (as cancel does). */
static const char evict_log_sql[] =
    "INSERT INTO zamboni_attempts (task_id, attempt, warehouse, table_name, "
    "operation, size_class, worker_id, outcome, message, started_ms, "
    "finished_ms) SELECT id, attempt + 1, warehouse, table_name, operation, "
    "size_class, '', 'evicted', 'displaced at the queue''s cap by a new "
    "task', @NOW, @NOW FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND "
    "state = 'excluded'";

static const char evict_sql[] =
    "DELETE FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND "
    "state = 'excluded'";

typedef struct displace_job {
    const zb_queue *q;
    const zb_task_new *t;
    int64_t max_tasks;
    const char *params[12];
    char nums[7][24];
    zb_displace_result *r;
} displace_job;

static int i64_row(void *payload, int n, const char *const *vals)
{
    int64_t *v = payload;

    if (n >= 1 && vals[0] != NULL)
        *v = zb_queue__num(vals[0]);
    return 0;
}

static int displace_tx(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    displace_job *j = payload;
    zb_displace_result *r = j->r;
    int64_t live = 0, victim = 0, changes = 0;
    char vt[24];
    const char *vp[1];
    int rc;

    memset(r, 0, sizeof(*r));
    /* serve's planner and `zamboni enqueue` may both insert: counting
     * and inserting must not interleave (SQLite's writer is one). */
    if (j->q->pg &&
        (rc = zb_sqldb_tx_exec(tx, ctx, "SELECT pg_advisory_xact_lock("
                               "7365032)", 0, NULL, NULL, NULL, NULL)) < 0)
        return rc;
    if ((rc = zb_sqldb_tx_exec(tx, ctx, "SELECT id FROM zamboni_tasks WHERE "
                               "warehouse = ? AND table_name = ? AND "
                               "operation = ?", 3, j->params, i64_row,
                               &r->id, NULL)) < 0)
        return rc;
    if (r->id > 0) {
        r->outcome = ZB_DISPLACE_LIVE;
        return ZB_OK;
    }
    if (j->max_tasks > 0) {
        if ((rc = zb_sqldb_tx_exec(tx, ctx, "SELECT count(*) FROM "
                                   "zamboni_tasks", 0, NULL, i64_row, &live,
                                   NULL)) < 0)
            return rc;
        if (live >= j->max_tasks) {
            if ((rc = zb_queue__tx_exec(j->q, tx, ctx, victim_sql, 0, NULL,
                                        i64_row, &victim, NULL)) < 0)
                return rc;
            if (victim <= 0) {
                r->outcome = ZB_DISPLACE_REFUSED;
                return ZB_OK;
            }
            vp[0] = zb_queue__i64(vt, victim);
            if ((rc = zb_queue__tx_exec(j->q, tx, ctx, evict_log_sql, 1, vp,
                                        NULL, NULL, NULL)) < 0 ||
                (rc = zb_queue__tx_exec(j->q, tx, ctx, evict_sql, 1, vp,
                                        NULL, NULL, &changes)) < 0)
                return rc;
            if (changes != 1)
                return zb_fail(ctx, ZB_ECONFLICT, "excluded task %lld went "
                               "away while displacing it", (long long)victim);
            r->evicted_id = victim;
        }
    }
    if ((rc = zb_queue__tx_exec(j->q, tx, ctx, insert_sql, 12, j->params,
                                i64_row, &r->id, NULL)) < 0)
        return rc;
    r->outcome = r->evicted_id > 0 ? ZB_DISPLACE_EVICTED
                                   : ZB_DISPLACE_INSERTED;
    return ZB_OK;
}

int zb_queue_enqueue_displace(zb_queue *q, zb_ctx *ctx, const zb_task_new *t,
                              int64_t max_tasks, zb_displace_result *out)
{
    displace_job j;
    const zb_size_class *sc;
    int rank, rc;

    ZB_ASSERT_ARG(q != NULL && t != NULL && t->warehouse != NULL &&
                  t->table != NULL && t->operation != NULL && out != NULL);
    memset(out, 0, sizeof(*out));
    if ((rank = zb_queue__op_rank(t->operation)) < 0)
        return zb_fail(ctx, ZB_EUSAGE, "enqueue %s: unknown operation '%s'",
                       t->table, t->operation);
    memset(&j, 0, sizeof(j));
    j.q = q;
    j.t = t;
    j.max_tasks = max_tasks;
    j.r = out;
    sc = t->size_class != NULL && t->size_class[0]
             ? NULL : zb_size_class_for(&q->classes, t->est_memory_bytes);
    j.params[0] = t->warehouse;
    j.params[1] = t->table;
    j.params[2] = t->operation;
    j.params[3] = zb_queue__i64(j.nums[0], rank);
    j.params[4] = sc != NULL ? sc->name : t->size_class;
    j.params[5] = zb_queue__i64(j.nums[1], (int64_t)t->est_memory_bytes);
    j.params[6] = zb_queue__i64(j.nums[2], (int64_t)t->est_unspillable_bytes);
    j.params[7] = zb_queue__i64(j.nums[3], t->est_cores > 0 ? t->est_cores
                                                            : 1);
    j.params[8] = zb_queue__i64(j.nums[4], t->priority);
    j.params[9] = zb_queue__i64(j.nums[5], t->delay_ms > 0 ? t->delay_ms : 0);
    j.params[10] = zb_queue__i64(j.nums[6], t->max_attempts > 0
                                                ? t->max_attempts
                                                : DEFAULT_MAX_ATTEMPTS);
    j.params[11] = t->options;
    rc = zb_sqldb_transaction(q->db, ctx, displace_tx, &j);
    if (rc < 0) {
        memset(out, 0, sizeof(*out));
        zb_err_prefix(ctx, "enqueue %s %s", t->table, t->operation);
    }
    return rc;
}

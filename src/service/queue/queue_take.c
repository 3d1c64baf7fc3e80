/*
 * service/queue/queue_take.c - a task's life: enqueue, take, heartbeat,
 * finish, and the sweep of expired leases. Each is one statement or one
 * short transaction on the write connection (queue.h).
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define BACKOFF_BASE_MS 30000
#define BACKOFF_MAX_MS 3600000
#define ABANDON_DELAY_MS 120000
#define DEFAULT_MAX_ATTEMPTS 5
#define SWEEP_BATCH 256

/* ---- enqueue ---- */

static const char enqueue_sql[] =
    "INSERT INTO zamboni_tasks (warehouse, table_name, operation, op_rank, "
    "size_class, est_memory_bytes, est_unspillable_bytes, est_cores, "
    "priority, state, scheduled_for_ms, attempt, max_attempts, created_ms, "
    "options) SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), "
    "CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS BIGINT), "
    "CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS INTEGER), "
    "'scheduled', @NOW + CAST(? AS BIGINT), 0, CAST(? AS INTEGER), @NOW, "
    "CAST(? AS TEXT) WHERE CAST(? AS BIGINT) <= 0 OR "
    "(SELECT count(*) FROM zamboni_tasks) < CAST(? AS BIGINT) "
    "ON CONFLICT (warehouse, table_name, operation) DO NOTHING RETURNING id";

static int id_row(void *payload, int n, const char *const *vals)
{
    int64_t *id = payload;

    if (n >= 1 && vals[0] != NULL)
        *id = zb_queue__num(vals[0]);
    return 0;
}

int zb_queue_enqueue(zb_queue *q, zb_ctx *ctx, const zb_task_new *t,
                     int64_t max_tasks, int *inserted, int64_t *id_out)
{
    char nums[8][24];
    const char *params[14];
    const zb_size_class *sc;
    int64_t id = 0;
    int rank, rc;

    ZB_ASSERT_ARG(q != NULL && t != NULL && t->warehouse != NULL &&
                  t->table != NULL && t->operation != NULL);
    if (inserted != NULL)
        *inserted = 0;
    if (id_out != NULL)
        *id_out = 0;
    if ((rank = zb_queue__op_rank(t->operation)) < 0)
        return zb_fail(ctx, ZB_EUSAGE, "enqueue %s: unknown operation '%s'",
                       t->table, t->operation);
    sc = t->size_class != NULL && t->size_class[0]
             ? NULL : zb_size_class_for(&q->classes, t->est_memory_bytes);
    params[0] = t->warehouse;
    params[1] = t->table;
    params[2] = t->operation;
    params[3] = zb_queue__i64(nums[0], rank);
    params[4] = sc != NULL ? sc->name : t->size_class;
    params[5] = zb_queue__i64(nums[1], (int64_t)t->est_memory_bytes);
    params[6] = zb_queue__i64(nums[2], (int64_t)t->est_unspillable_bytes);
    params[7] = zb_queue__i64(nums[3], t->est_cores > 0 ? t->est_cores : 1);
    params[8] = zb_queue__i64(nums[4], t->priority);
    params[9] = zb_queue__i64(nums[5], t->delay_ms > 0 ? t->delay_ms : 0);
    params[10] = zb_queue__i64(nums[6], t->max_attempts > 0
                                            ? t->max_attempts
                                            : DEFAULT_MAX_ATTEMPTS);
    params[11] = t->options;
    params[12] = zb_queue__i64(nums[7], max_tasks);
    params[13] = params[12];
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, enqueue_sql, 14, params, id_row,
                        &id, NULL);
    if (rc < 0) {
        zb_err_prefix(ctx, "enqueue %s %s", t->table, t->operation);
        return rc;
    }
    if (id > 0) {
        if (inserted != NULL)
            *inserted = 1;
        if (id_out != NULL)
            *id_out = id;
        return ZB_OK;
    }
    /* Nothing inserted: a live task holds the key, or the cap. */
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_PRIMARY, "SELECT id FROM "
                       "zamboni_tasks WHERE warehouse = ? AND table_name = ? "
                       "AND operation = ?", 3, params, id_row, &id, NULL);
    if (rc < 0)
        return rc;
    if (id > 0) {
        if (id_out != NULL)
            *id_out = id;
        return ZB_OK;
    }
    return zb_fail(ctx, ZB_EREFUSED, "enqueue %s %s: the queue holds %lld "
                   "live tasks, its cap (queue_max_tasks)", t->table,
                   t->operation, (long long)max_tasks);
}

/* ---- take ---- */

#define TAKE_SET                                                            \
    "UPDATE zamboni_tasks SET state = 'running', attempt = attempt + 1, "   \
    "lease_expires_ms = @NOW + CAST(? AS BIGINT), heartbeat_ms = @NOW, "    \
    "worker_id = CAST(? AS TEXT), progress = NULL WHERE id = (SELECT t.id " \
    "FROM zamboni_tasks t WHERE t.state = 'scheduled' AND "                 \
    "t.scheduled_for_ms <= @NOW AND "
/* Runbook order: a table's later operation waits for its earlier live
 * ones (excluded ones do not block). */
#define TAKE_REST                                                           \
    "NOT EXISTS (SELECT 1 FROM zamboni_tasks e WHERE "                      \
    "e.warehouse = t.warehouse AND e.table_name = t.table_name AND "        \
    "e.op_rank < t.op_rank AND e.state <> 'excluded') "                     \
    "ORDER BY t.priority DESC, t.scheduled_for_ms, t.id LIMIT 1 @SKIP) "    \
    "AND state = 'scheduled' RETURNING " ZB_QUEUE_TASK_COLS

static const char take_class_sql[] =
    TAKE_SET "t.size_class = CAST(? AS TEXT) AND " TAKE_REST;
static const char take_any_sql[] = TAKE_SET TAKE_REST;

int zb_queue_take(zb_queue *q, zb_ctx *ctx, const zb_take_opts *o,
                  zb_task *out, int *got)
{
    char lease[24];
    const char *params[3];
    int any, rc;

    ZB_ASSERT_ARG(q != NULL && o != NULL && out != NULL && got != NULL);
    *got = 0;
    memset(out, 0, sizeof(*out));
    any = o->size_class == NULL || o->size_class[0] == '\0';
    params[0] = zb_queue__i64(lease, o->lease_ms);
    params[1] = o->worker_id ? o->worker_id : "";
    params[2] = o->size_class;
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE,
                        any ? take_any_sql : take_class_sql, any ? 2 : 3,
                        params, zb_queue__task_row, out, NULL);
    if (rc < 0) {
        zb_err_prefix(ctx, "taking a task");
        return rc;
    }
    *got = out->id > 0;
    return ZB_OK;
}

/* ---- heartbeat ---- */

static const char heartbeat_sql[] =
    "UPDATE zamboni_tasks SET lease_expires_ms = @NOW + CAST(? AS BIGINT), "
    "heartbeat_ms = @NOW, progress = COALESCE(CAST(? AS TEXT), progress) "
    "WHERE id = CAST(? AS BIGINT) AND attempt = CAST(? AS INTEGER) AND "
    "state IN " ZB_QUEUE_HELD_STATES " AND lease_expires_ms > @NOW "
    "RETURNING state";

static int state_row(void *payload, int n, const char *const *vals)
{
    char *state = payload;

    if (n >= 1)
        zb_queue__str(state, 16, vals[0]);
    return 0;
}

int zb_queue_heartbeat(zb_queue *q, zb_ctx *ctx, const zb_task *t,
                       int64_t lease_ms, const char *progress,
                       zb_lease_state *state)
{
    char lease[24], id[24], attempt[24], now_state[16] = "";
    const char *params[4];
    int rc;

    ZB_ASSERT_ARG(q != NULL && t != NULL && state != NULL);
    *state = ZB_LEASE_LOST;
    params[0] = zb_queue__i64(lease, lease_ms);
    params[1] = progress;
    params[2] = zb_queue__i64(id, t->id);
    params[3] = zb_queue__i64(attempt, t->attempt);
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, heartbeat_sql, 4, params,
                        state_row, now_state, NULL);
    if (rc < 0) {
        zb_err_prefix(ctx, "heartbeat of task %lld attempt %d",
                      (long long)t->id, t->attempt);
        return rc;
    }
    if (strcmp(now_state, ZB_TASK_STATE_RUNNING) == 0)
        *state = ZB_LEASE_HELD;
    else if (strcmp(now_state, ZB_TASK_STATE_SHOULD_STOP) == 0)
        *state = ZB_LEASE_STOP;
    return ZB_OK;
}

/* ---- finish ---- */

static const char finish_delete_sql[] =
    "DELETE FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state IN " ZB_QUEUE_HELD_STATES;
/* A cancel asked (should-stop) wins over a retry. */
static const char finish_stop_sql[] =
    "DELETE FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state = 'should-stop'";
static const char finish_failed_sql[] =
    "UPDATE zamboni_tasks SET state = CASE WHEN attempt < max_attempts "
    "THEN 'scheduled' ELSE 'excluded' END, scheduled_for_ms = @NOW + "
    "CAST(? AS BIGINT), lease_expires_ms = NULL, worker_id = NULL, "
    "last_message = CAST(? AS TEXT) WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state = 'running'";
static const char finish_abandoned_sql[] =
    "UPDATE zamboni_tasks SET state = 'scheduled', scheduled_for_ms = @NOW "
    "+ CAST(? AS BIGINT), max_attempts = max_attempts + 1, "
    "lease_expires_ms = NULL, worker_id = NULL, last_message = "
    "CAST(? AS TEXT) WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state = 'running'";

typedef struct finish_job {
    const zb_queue *q;
    const zb_task *t;
    const zb_attempt_result *r;
    int64_t delay_ms;
    int reschedule;                /* failed or abandoned */
    int abandoned;
} finish_job;

static int finish_tx(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    finish_job *j = payload;
    const zb_task *t = j->t;
    zb_queue_attempt_params ap;
    char id[24], attempt[24], delay[24];
    const char *params[4];
    int64_t changes = 0;
    int rc;

    params[0] = zb_queue__i64(delay, j->delay_ms);
    params[1] = j->r->message;
    params[2] = zb_queue__i64(id, t->id);
    params[3] = zb_queue__i64(attempt, t->attempt);
    if (j->reschedule) {
        rc = zb_queue__tx_exec(j->q, tx, ctx, j->abandoned
                                   ? finish_abandoned_sql : finish_failed_sql,
                               4, params, NULL, NULL, &changes);
        if (rc < 0)
            return rc;
        if (changes == 0 &&
            (rc = zb_queue__tx_exec(j->q, tx, ctx, finish_stop_sql, 2,
                                    params + 2, NULL, NULL, &changes)) < 0)
            return rc;
    } else if ((rc = zb_queue__tx_exec(j->q, tx, ctx, finish_delete_sql, 2,
                                       params + 2, NULL, NULL,
                                       &changes)) < 0) {
        return rc;
    }
    if (changes == 0)
        return zb_fail(ctx, ZB_EFENCED, "task %lld attempt %d no longer "
                       "holds its lease: nothing recorded", (long long)t->id,
                       t->attempt);
    zb_queue__attempt_params(&ap, t->id, t->attempt, t->warehouse, t->table,
                             t->operation, t->size_class, t->worker_id, j->r);
    return zb_queue__tx_exec(j->q, tx, ctx, ZB_QUEUE_ATTEMPT_INSERT,
                             ZB_QUEUE_ATTEMPT_NPARAMS, ap.v, NULL, NULL,
                             NULL);
}

static int64_t backoff_ms(int attempt)
{
    int64_t d = BACKOFF_BASE_MS;
    int i;

    for (i = 1; i < attempt && d < BACKOFF_MAX_MS; i++)
        d *= 2;
    return d < BACKOFF_MAX_MS ? d : BACKOFF_MAX_MS;
}

int zb_queue_finish(zb_queue *q, zb_ctx *ctx, const zb_task *t,
                    const zb_attempt_result *r)
{
    finish_job j;
    const char *o;
    int rc;

    ZB_ASSERT_ARG(q != NULL && t != NULL && r != NULL && r->outcome != NULL);
    o = r->outcome;
    memset(&j, 0, sizeof(j));
    j.q = q;
    j.t = t;
    j.r = r;
    if (strcmp(o, ZB_OUTCOME_FAILED) == 0) {
        j.reschedule = 1;
        j.delay_ms = r->retry_delay_ms > 0 ? r->retry_delay_ms
                                           : backoff_ms(t->attempt);
    } else if (strcmp(o, ZB_OUTCOME_ABANDONED) == 0) {
        j.reschedule = j.abandoned = 1;
        j.delay_ms = r->retry_delay_ms > 0 ? r->retry_delay_ms
                                           : ABANDON_DELAY_MS;
    } else if (strcmp(o, ZB_OUTCOME_SUCCESS) != 0 &&
               strcmp(o, ZB_OUTCOME_CANCELLED) != 0) {
        return zb_fail(ctx, ZB_EINVAL, "finish task %lld: outcome '%s' is "
                       "none of success, failed, abandoned, cancelled",
                       (long long)t->id, o);
    }
    rc = zb_sqldb_transaction(q->db, ctx, finish_tx, &j);
    if (rc < 0 && rc != ZB_EFENCED)
        zb_err_prefix(ctx, "finishing task %lld attempt %d",
                      (long long)t->id, t->attempt);
    return rc;
}

/* ---- sweep ---- */

typedef struct swept {
    int64_t id, heartbeat_ms, lease_ms;
    int attempt, stop;
    char warehouse[256], table[1024], operation[32], size_class[64];
    char worker_id[256];
    char progress[1024];           /* its last heartbeat's */
} swept;

typedef struct sweep_list {
    swept *items;
    int n;
} sweep_list;

static int sweep_row(void *payload, int n, const char *const *vals)
{
    sweep_list *l = payload;
    swept *s;
    zb_task t;

    if (l->n >= SWEEP_BATCH)
        return 0;
    zb_queue__task_from_row(&t, n, vals);
    s = &l->items[l->n++];
    s->id = t.id;
    s->attempt = t.attempt;
    s->heartbeat_ms = t.heartbeat_ms;
    s->lease_ms = t.lease_expires_ms;
    s->stop = strcmp(t.state, ZB_TASK_STATE_SHOULD_STOP) == 0;
    zb_queue__str(s->warehouse, sizeof(s->warehouse), t.warehouse);
    zb_queue__str(s->table, sizeof(s->table), t.table);
    zb_queue__str(s->operation, sizeof(s->operation), t.operation);
    zb_queue__str(s->size_class, sizeof(s->size_class), t.size_class);
    zb_queue__str(s->worker_id, sizeof(s->worker_id), t.worker_id);
    zb_queue__str(s->progress, sizeof(s->progress), t.progress);
    return 0;
}

static const char sweep_find_sql[] =
    "SELECT " ZB_QUEUE_TASK_COLS " FROM zamboni_tasks WHERE state IN "
    ZB_QUEUE_HELD_STATES " AND lease_expires_ms < @NOW ORDER BY id";
/* Lost attempts count: a task that kills its worker every time ends
 * excluded. A cancel asked (should-stop) is carried out. */
static const char sweep_requeue_sql[] =
    "UPDATE zamboni_tasks SET state = CASE WHEN attempt < max_attempts "
    "THEN 'scheduled' ELSE 'excluded' END, size_class = CAST(? AS TEXT), "
    "scheduled_for_ms = @NOW, lease_expires_ms = NULL, worker_id = NULL, "
    "last_message = CAST(? AS TEXT) WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state = 'running' AND "
    "lease_expires_ms < @NOW";
static const char sweep_delete_sql[] =
    "DELETE FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND "
    "attempt = CAST(? AS INTEGER) AND state = 'should-stop' AND "
    "lease_expires_ms < @NOW";

typedef struct sweep_job {
    const zb_queue *q;
    const swept *s;
    const char *up;
    char message[2048];
    int64_t now_ms;
    int done;
} sweep_job;

static int sweep_tx(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    sweep_job *j = payload;
    const swept *s = j->s;
    zb_queue_attempt_params ap;
    zb_attempt_result r;
    char id[24], attempt[24];
    const char *params[4];
    int64_t changes = 0;
    int rc;

    params[0] = j->up;
    params[1] = j->message;
    params[2] = zb_queue__i64(id, s->id);
    params[3] = zb_queue__i64(attempt, s->attempt);
    rc = s->stop ? zb_queue__tx_exec(j->q, tx, ctx, sweep_delete_sql, 2,
                                     params + 2, NULL, NULL, &changes)
                 : zb_queue__tx_exec(j->q, tx, ctx, sweep_requeue_sql, 4,
                                     params, NULL, NULL, &changes);
    if (rc < 0 || changes == 0)
        return rc;                 /* renewed or finished meanwhile */
    memset(&r, 0, sizeof(r));
    r.outcome = ZB_OUTCOME_LOST;
    r.message = j->message;
    r.started_ms = s->heartbeat_ms;
    r.finished_ms = j->now_ms;
    zb_queue__attempt_params(&ap, s->id, s->attempt, s->warehouse, s->table,
                             s->operation, s->size_class, s->worker_id, &r);
    if ((rc = zb_queue__tx_exec(j->q, tx, ctx, ZB_QUEUE_ATTEMPT_INSERT,
                                ZB_QUEUE_ATTEMPT_NPARAMS, ap.v, NULL, NULL,
                                NULL)) < 0)
        return rc;
    j->done = 1;
    return ZB_OK;
}

int zb_queue_sweep(zb_queue *q, zb_ctx *ctx, const zb_size_classes *classes,
                   int *n_lost)
{
    sweep_list l;
    sweep_job j;
    int i, rc;

    ZB_ASSERT_ARG(q != NULL);
    if (n_lost != NULL)
        *n_lost = 0;
    if (classes == NULL || classes->n == 0)
        classes = &q->classes;
    l.n = 0;
    if ((l.items = zb_calloc(SWEEP_BATCH, sizeof(*l.items))) == NULL)
        return zb_fail_oom(ctx);
    rc = zb_queue__exec(q, ctx, ZB_SQL_PRIMARY, sweep_find_sql, 0, NULL,
                        sweep_row, &l, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "sweep: finding expired leases");
    for (i = 0; rc >= 0 && i < l.n; i++) {
        const swept *s = &l.items[i];
        const zb_size_class *up = zb_size_class_up(classes, s->size_class);

        memset(&j, 0, sizeof(j));
        j.q = q;
        j.s = s;
        j.up = up != NULL ? up->name : s->size_class;
        snprintf(j.message, sizeof(j.message), "lost: worker %s let its "
                 "lease expire (at %lld ms, last heartbeat %lld ms)%s%s%.600s",
                 s->worker_id[0] ? s->worker_id : "?", (long long)s->lease_ms,
                 (long long)s->heartbeat_ms,
                 s->stop ? "; cancel was asked, task removed" : "",
                 s->progress[0] ? "; its last progress (files of groups "
                                  "written and not committed are left for "
                                  "remove-orphans): " : "",
                 s->progress);
        if ((rc = zb_sqldb_now_ms(q->db, ctx, &j.now_ms)) < 0)
            break;
        rc = zb_sqldb_transaction(q->db, ctx, sweep_tx, &j);
        if (rc < 0)
            zb_err_prefix(ctx, "sweep: task %lld attempt %d",
                          (long long)s->id, s->attempt);
        else if (j.done && n_lost != NULL)
            (*n_lost)++;
    }
    zb_free(l.items);
    return rc < 0 ? rc : ZB_OK;
}

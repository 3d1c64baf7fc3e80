/*
 * service/queue/queue_admin.c - operating the queue by hand (zamboni
 * tasks): list, get, cancel, requeue, and the counts per state.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct list_job {
    zb_task_fn fn;
    void *payload;
    zb_task t;
} list_job;

static int list_row(void *payload, int n, const char *const *vals)
{
    list_job *j = payload;

    zb_queue__task_from_row(&j->t, n, vals);
    return j->fn(j->payload, &j->t);
}

int zb_queue_list(zb_queue *q, zb_ctx *ctx, const char *state,
                  zb_task_fn fn, void *payload)
{
    list_job *j;
    int rc;

    ZB_ASSERT_ARG(q != NULL && fn != NULL);
    /* A zb_task is large: keep it off the stack of callers' threads. */
    if ((j = zb_calloc(1, sizeof(*j))) == NULL)
        return zb_fail_oom(ctx);
    j->fn = fn;
    j->payload = payload;
    rc = state != NULL
             ? zb_sqldb_exec(q->db, ctx, ZB_SQL_READ, "SELECT "
                             ZB_QUEUE_TASK_COLS " FROM zamboni_tasks WHERE "
                             "state = ? ORDER BY id", 1, &state, list_row, j,
                             NULL)
             : zb_sqldb_exec(q->db, ctx, ZB_SQL_READ, "SELECT "
                             ZB_QUEUE_TASK_COLS " FROM zamboni_tasks ORDER BY "
                             "id", 0, NULL, list_row, j, NULL);
    zb_free(j);
    if (rc < 0 && ctx->err.code != ZB_OK)
        zb_err_prefix(ctx, "listing tasks");
    return rc;
}

int zb_queue_get(zb_queue *q, zb_ctx *ctx, int64_t id, zb_task *out)
{
    char idt[24];
    const char *params[1];
    int rc;

    ZB_ASSERT_ARG(q != NULL && out != NULL);
    memset(out, 0, sizeof(*out));
    params[0] = zb_queue__i64(idt, id);
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_PRIMARY, "SELECT "
                       ZB_QUEUE_TASK_COLS " FROM zamboni_tasks WHERE id = "
                       "CAST(? AS BIGINT)", 1, params, zb_queue__task_row,
                       out, NULL);
    if (rc < 0)
        return rc;
    if (out->id == 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "no live task %lld", (long long)id);
    return ZB_OK;
}

/* ---- cancel ---- */

static const char cancel_running_sql[] =
    "UPDATE zamboni_tasks SET state = 'should-stop' WHERE "
    "id = CAST(? AS BIGINT) AND state = 'running'";
/* The cancelled attempt takes the next number: the task's own attempts
 * keep theirs. */
static const char cancel_log_sql[] =
    "INSERT INTO zamboni_attempts (task_id, attempt, warehouse, table_name, "
    "operation, size_class, worker_id, outcome, message, started_ms, "
    "finished_ms) SELECT id, attempt + 1, warehouse, table_name, operation, "
    "size_class, '', 'cancelled', 'cancelled by hand', @NOW, @NOW FROM "
    "zamboni_tasks WHERE id = CAST(? AS BIGINT) AND state IN "
    "('scheduled', 'excluded')";
static const char cancel_delete_sql[] =
    "DELETE FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND state IN "
    "('scheduled', 'excluded')";

typedef struct cancel_job {
    const zb_queue *q;
    const char *id;
    int64_t changes;
} cancel_job;

static int cancel_tx(zb_sqldb_tx *tx, zb_ctx *ctx, void *payload)
{
    cancel_job *j = payload;
    int rc;

    if ((rc = zb_queue__tx_exec(j->q, tx, ctx, cancel_running_sql, 1, &j->id,
                                NULL, NULL, &j->changes)) < 0 ||
        j->changes > 0)
        return rc;
    if ((rc = zb_queue__tx_exec(j->q, tx, ctx, cancel_log_sql, 1, &j->id,
                                NULL, NULL, &j->changes)) < 0 ||
        j->changes == 0)
        return rc;
    return zb_queue__tx_exec(j->q, tx, ctx, cancel_delete_sql, 1, &j->id,
                             NULL, NULL, NULL);
}

int zb_queue_cancel(zb_queue *q, zb_ctx *ctx, int64_t id)
{
    cancel_job j;
    zb_task *t;
    char idt[24];
    int rc;

    ZB_ASSERT_ARG(q != NULL);
    j.q = q;
    j.id = zb_queue__i64(idt, id);
    j.changes = 0;
    if ((rc = zb_sqldb_transaction(q->db, ctx, cancel_tx, &j)) < 0) {
        zb_err_prefix(ctx, "cancelling task %lld", (long long)id);
        return rc;
    }
    if (j.changes > 0)
        return ZB_OK;
    /* Nothing changed: gone, or already stopping (fine). */
    if ((t = zb_calloc(1, sizeof(*t))) == NULL)
        return zb_fail_oom(ctx);
    rc = zb_queue_get(q, ctx, id, t);
    zb_free(t);
    return rc;
}

/* ---- requeue ---- */

int zb_queue_requeue(zb_queue *q, zb_ctx *ctx, int64_t id)
{
    char idt[24];
    const char *params[1];
    zb_task *t;
    int64_t changes = 0;
    int rc;

    ZB_ASSERT_ARG(q != NULL);
    params[0] = zb_queue__i64(idt, id);
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, "UPDATE zamboni_tasks SET "
                        "state = 'scheduled', scheduled_for_ms = @NOW, "
                        "max_attempts = max_attempts + attempt WHERE "
                        "id = CAST(? AS BIGINT) AND state = 'excluded'", 1,
                        params, NULL, NULL, &changes);
    if (rc < 0) {
        zb_err_prefix(ctx, "requeueing task %lld", (long long)id);
        return rc;
    }
    if (changes > 0)
        return ZB_OK;
    if ((t = zb_calloc(1, sizeof(*t))) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_queue_get(q, ctx, id, t)) == ZB_OK)
        rc = zb_fail(ctx, ZB_EREFUSED, "task %lld is %s, not excluded: only "
                     "an excluded task is requeued", (long long)id, t->state);
    zb_free(t);
    return rc;
}

/* ---- counts ---- */

static int counts_row(void *payload, int n, const char *const *vals)
{
    zb_queue_counts *c = payload;
    int64_t v;

    if (n < 3 || vals[0] == NULL)
        return 0;
    v = zb_queue__num(vals[1]);
    if (strcmp(vals[0], ZB_TASK_STATE_SCHEDULED) == 0) {
        c->scheduled = v;
        c->due = zb_queue__num(vals[2]);
    } else if (strcmp(vals[0], ZB_TASK_STATE_RUNNING) == 0) {
        c->running = v;
    } else if (strcmp(vals[0], ZB_TASK_STATE_SHOULD_STOP) == 0) {
        c->should_stop = v;
    } else if (strcmp(vals[0], ZB_TASK_STATE_EXCLUDED) == 0) {
        c->excluded = v;
    }
    return 0;
}

#define COUNTS_SQL                                                          \
    "SELECT state, count(*), sum(CASE WHEN scheduled_for_ms <= @NOW THEN "  \
    "1 ELSE 0 END) FROM zamboni_tasks "

int zb_queue_counts_get(zb_queue *q, zb_ctx *ctx, const char *size_class,
                        zb_queue_counts *out)
{
    int rc;

    ZB_ASSERT_ARG(q != NULL && out != NULL);
    memset(out, 0, sizeof(*out));
    rc = size_class != NULL
             ? zb_queue__exec(q, ctx, ZB_SQL_READ, COUNTS_SQL "WHERE "
                              "size_class = ? GROUP BY state", 1, &size_class,
                              counts_row, out, NULL)
             : zb_queue__exec(q, ctx, ZB_SQL_READ, COUNTS_SQL "GROUP BY "
                              "state", 0, NULL, counts_row, out, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "counting tasks");
    return rc;
}

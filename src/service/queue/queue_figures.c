/*
 * service/queue/queue_figures.c - the figures serve reports: the demand of
 * a class (/demand), grouped counts of tasks and attempts, the last
 * success per warehouse, the bytes reclaimed and the workers' heartbeat
 * figures (/metrics). Reads only, on the read pool, one statement each.
 */
#define ZB_MODULE "queue"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/err.h"

/* ---- demand ---- */

/* The due tasks take would hand out (its runbook order, queue_take.c),
 * plus the running ones. */
static const char demand_sql[] =
    "SELECT (SELECT count(*) FROM zamboni_tasks t WHERE t.state = "
    "'scheduled' AND t.size_class = CAST(? AS TEXT) AND t.scheduled_for_ms "
    "<= @NOW AND NOT EXISTS (SELECT 1 FROM zamboni_tasks e WHERE "
    "e.warehouse = t.warehouse AND e.table_name = t.table_name AND "
    "e.op_rank < t.op_rank AND e.state <> 'excluded')) + (SELECT count(*) "
    "FROM zamboni_tasks r WHERE r.state = 'running' AND r.size_class = "
    "CAST(? AS TEXT))";

static int one_num(void *payload, int n, const char *const *vals)
{
    int64_t *out = payload;

    if (n >= 1)
        *out = zb_queue__num(vals[0]);
    return 0;
}

int zb_queue_demand(zb_queue *q, zb_ctx *ctx, const char *size_class,
                    int64_t *out)
{
    const char *params[2];
    int rc;

    ZB_ASSERT_ARG(q != NULL && size_class != NULL && out != NULL);
    *out = 0;
    params[0] = size_class;
    params[1] = size_class;
    rc = zb_queue__exec(q, ctx, ZB_SQL_READ, demand_sql, 2, params, one_num,
                        out, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "the demand of class %s", size_class);
    return rc;
}

/* ---- grouped figures ---- */

typedef struct group_job {
    zb_queue_group_fn fn;
    void *payload;
    int two;                       /* the rows carry a second label */
} group_job;

static int group_row(void *payload, int n, const char *const *vals)
{
    group_job *g = payload;
    int want = g->two ? 3 : 2;

    if (n < want || vals[0] == NULL || (g->two && vals[1] == NULL))
        return 0;
    return g->fn(g->payload, vals[0], g->two ? vals[1] : NULL,
                 zb_queue__num(vals[want - 1]));
}

static int grouped(zb_queue *q, zb_ctx *ctx, const char *sql, int two,
                   zb_queue_group_fn fn, void *payload, const char *what)
{
    group_job g;
    int rc;

    ZB_ASSERT_ARG(q != NULL && fn != NULL);
    g.fn = fn;
    g.payload = payload;
    g.two = two;
    rc = zb_queue__exec(q, ctx, ZB_SQL_READ, sql, 0, NULL, group_row, &g,
                        NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "%s", what);
    return rc;
}

int zb_queue_counts_by_class(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                             void *payload)
{
    return grouped(q, ctx, "SELECT size_class, state, count(*) FROM "
                   "zamboni_tasks GROUP BY size_class, state ORDER BY "
                   "size_class, state", 1, fn, payload,
                   "counting tasks by class");
}

int zb_queue_outcome_totals(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                            void *payload)
{
    return grouped(q, ctx, "SELECT outcome, count(*) FROM zamboni_attempts "
                   "GROUP BY outcome ORDER BY outcome", 0, fn, payload,
                   "counting attempts by outcome");
}

int zb_queue_last_success(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                          void *payload)
{
    return grouped(q, ctx, "SELECT warehouse, max(finished_ms) FROM "
                   "zamboni_attempts WHERE outcome = 'success' GROUP BY "
                   "warehouse ORDER BY warehouse", 0, fn, payload,
                   "the last success per warehouse");
}

#define RECLAIMED(kind, col)                                                \
    "SELECT operation, '" kind "', sum(CASE WHEN before_" col " > after_"  \
    col " THEN before_" col " - after_" col " ELSE 0 END) FROM "           \
    "zamboni_attempts WHERE outcome = 'success' AND before_" col " IS NOT " \
    "NULL AND after_" col " IS NOT NULL GROUP BY operation"

int zb_queue_bytes_reclaimed(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                             void *payload)
{
    return grouped(q, ctx, "SELECT * FROM (" RECLAIMED("data", "data_bytes")
                   " UNION ALL " RECLAIMED("metadata", "metadata_bytes")
                   ") x ORDER BY 1, 2", 1, fn, payload,
                   "the bytes reclaimed");
}

int zb_queue_assigned_total(zb_queue *q, zb_ctx *ctx, int64_t *out)
{
    int rc;

    ZB_ASSERT_ARG(q != NULL && out != NULL);
    *out = 0;
    rc = zb_queue__exec(q, ctx, ZB_SQL_READ, "SELECT (SELECT count(*) FROM "
                        "zamboni_attempts WHERE task_id IS NOT NULL AND "
                        "outcome <> 'cancelled') + (SELECT count(*) FROM "
                        "zamboni_tasks WHERE state IN "
                        ZB_QUEUE_HELD_STATES ")", 0, NULL, one_num, out,
                        NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "counting the tasks assigned");
    return rc;
}

/* ---- workers ---- */

typedef struct workers_job {
    zb_worker_info_fn fn;
    void *payload;
} workers_job;

static int worker_row(void *payload, int n, const char *const *vals)
{
    workers_job *j = payload;
    zb_worker_info w;

    if (n < 9 || vals[0] == NULL)
        return 0;
    memset(&w, 0, sizeof(w));
    w.id = vals[0];
    w.host = vals[1] ? vals[1] : "";
    w.size_class = vals[2] ? vals[2] : "";
    w.heartbeat_ms = zb_queue__num(vals[3]);
    w.f.task_id = zb_queue__num(vals[4]);
    w.f.budget_reserved_bytes = (uint64_t)zb_queue__num(vals[5]);
    w.f.budget_wait_seconds = vals[6] ? strtod(vals[6], NULL) : 0.0;
    w.f.rows_done = (uint64_t)zb_queue__num(vals[7]);
    w.f.bytes_done = (uint64_t)zb_queue__num(vals[8]);
    if (n >= 13) {
        w.memory_bytes = (uint64_t)zb_queue__num(vals[9]);
        w.cores = (int)zb_queue__num(vals[10]);
        w.spill_bytes = (uint64_t)zb_queue__num(vals[11]);
        w.started_ms = zb_queue__num(vals[12]);
    }
    return j->fn(j->payload, &w);
}

int zb_queue_workers_list(zb_queue *q, zb_ctx *ctx, zb_worker_info_fn fn,
                          void *payload)
{
    workers_job j;
    int rc;

    ZB_ASSERT_ARG(q != NULL && fn != NULL);
    j.fn = fn;
    j.payload = payload;
    rc = zb_queue__exec(q, ctx, ZB_SQL_READ, "SELECT id, host, size_class, "
                        "heartbeat_ms, task_id, budget_reserved_bytes, "
                        "budget_wait_seconds, rows_done, bytes_done, "
                        "memory_bytes, cores, spill_bytes, started_ms FROM "
                        "zamboni_workers ORDER BY id", 0, NULL, worker_row,
                        &j, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "listing the workers");
    return rc;
}

/* ---- rewrites and conflicts, from the attempts' reports ---- */

static int rewrite_row(void *payload, int n, const char *const *vals)
{
    zb_queue_rewrite_totals *t = payload;
    const char *report = n >= 1 ? vals[0] : NULL;
    const char *message = n >= 2 ? vals[1] : NULL;
    const char *outcome = n >= 3 && vals[2] ? vals[2] : "";
    const char *at;
    unsigned long long files, bytes, dropped;

    if (report != NULL && (at = strstr(report, ": rewrote ")) != NULL &&
        sscanf(at, ": rewrote %llu file(s) (%llu bytes)", &files, &bytes) ==
            2)
        t->bytes_rewritten += (int64_t)bytes;
    if (report != NULL && strcmp(outcome, "abandoned") != 0 &&
        strcmp(outcome, "cancelled") != 0 &&
        (at = strstr(report, "warning: ")) != NULL &&
        sscanf(at, "warning: %llu group(s) dropped", &dropped) == 1)
        t->commit_conflicts += (int64_t)dropped;
    if (message != NULL && strstr(message, "another writer committed first"))
        t->commit_conflicts++;
    return 0;
}

int zb_queue_rewrite_totals_get(zb_queue *q, zb_ctx *ctx,
                                zb_queue_rewrite_totals *out)
{
    int rc;

    ZB_ASSERT_ARG(q != NULL && out != NULL);
    memset(out, 0, sizeof(*out));
    rc = zb_queue__exec(q, ctx, ZB_SQL_READ, "SELECT report, message, "
                        "outcome FROM zamboni_attempts WHERE report IS NOT "
                        "NULL OR message IS NOT NULL", 0, NULL, rewrite_row,
                        out, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "reading the attempts' reports");
    return rc;
}

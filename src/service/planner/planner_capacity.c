/*
 * service/planner/planner_capacity.c - how many tasks of a class the
 * fleet can take now: the free slots of its live workers, or its max_jobs
 * when none is alive (scaling from zero), less what is already queued
 * for it.
 */
#define ZB_MODULE "planner"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "service/planner/planner.h"
#include "util/err.h"

typedef struct cap_job {
    int64_t alive, free_slots;
} cap_job;

/* One row per live worker: its running tasks. A worker runs one task at
 * a time (one per loop). */
static int worker_row(void *payload, int n, const char *const *vals)
{
    cap_job *j = payload;
    long long running = n >= 1 && vals[0] ? strtoll(vals[0], NULL, 10) : 0;

    j->alive++;
    if (running < 1)
        j->free_slots++;
    return 0;
}

static int count_row(void *payload, int n, const char *const *vals)
{
    int64_t *v = payload;

    if (n >= 1 && vals[0] != NULL)
        *v = strtoll(vals[0], NULL, 10);
    return 0;
}

int zb_planner_capacity(zb_queue *q, zb_ctx *ctx, const zb_size_class *c,
                        int64_t worker_stale_ms, int64_t *free_slots,
                        int64_t *alive)
{
    zb_sqldb *db = zb_queue_db(q);
    cap_job j = { 0, 0 };
    int64_t now = 0, queued = 0, running = 0, slots;
    char since[24];
    const char *params[2];
    int rc;

    ZB_ASSERT_ARG(q != NULL && c != NULL && free_slots != NULL);
    *free_slots = 0;
    if ((rc = zb_sqldb_now_ms(db, ctx, &now)) < 0)
        return rc;
    snprintf(since, sizeof since, "%" PRId64, now - worker_stale_ms);
    params[0] = c->name;
    params[1] = since;
    rc = zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY, "SELECT (SELECT count(*) "
                       "FROM zamboni_tasks t WHERE t.worker_id = w.id AND "
                       "t.state IN ('running', 'should-stop')) FROM "
                       "zamboni_workers w WHERE w.size_class = ? AND "
                       "w.heartbeat_ms > CAST(? AS BIGINT)", 2, params,
                       worker_row, &j, NULL);
    if (rc == ZB_OK)
        rc = zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY, "SELECT count(*) FROM "
                           "zamboni_tasks WHERE size_class = ? AND state = "
                           "'scheduled'", 1, params, count_row, &queued,
                           NULL);
    if (rc == ZB_OK && j.alive == 0)
        rc = zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY, "SELECT count(*) FROM "
                           "zamboni_tasks WHERE size_class = ? AND state IN "
                           "('running', 'should-stop')", 1, params,
                           count_row, &running, NULL);
    if (rc < 0) {
        zb_err_prefix(ctx, "the capacity of class %s", c->name);
        return rc;
    }
    slots = j.alive > 0 ? j.free_slots : (int64_t)c->max_jobs - running;
    slots -= queued;
    *free_slots = slots > 0 ? slots : 0;
    if (alive != NULL)
        *alive = j.alive;
    return ZB_OK;
}

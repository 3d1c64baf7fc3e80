/*
 * service/queue/queue_workers.c - the workers' rows: registered at start,
 * refreshed by each heartbeat with the figures serve shows, removed at a
 * clean exit.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/err.h"

/* A restarted worker that reuses its id takes its row over. */
static const char register_sql[] =
    "INSERT INTO zamboni_workers (id, host, size_class, memory_bytes, "
    "cores, spill_bytes, started_ms, heartbeat_ms) VALUES (CAST(? AS TEXT), "
    "CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), "
    "CAST(? AS INTEGER), CAST(? AS BIGINT), @NOW, @NOW) ON CONFLICT (id) DO "
    "UPDATE SET host = excluded.host, size_class = excluded.size_class, "
    "memory_bytes = excluded.memory_bytes, cores = excluded.cores, "
    "spill_bytes = excluded.spill_bytes, started_ms = excluded.started_ms, "
    "heartbeat_ms = excluded.heartbeat_ms, task_id = NULL";

int zb_queue_worker_register(zb_queue *q, zb_ctx *ctx,
                             const zb_worker_row *w)
{
    char nums[3][24];
    const char *params[6];
    int rc;

    ZB_ASSERT_ARG(q != NULL && w != NULL && w->id != NULL);
    params[0] = w->id;
    params[1] = w->host ? w->host : "";
    params[2] = w->size_class ? w->size_class : "";
    params[3] = zb_queue__i64(nums[0], (int64_t)w->memory_bytes);
    params[4] = zb_queue__i64(nums[1], w->cores);
    params[5] = zb_queue__i64(nums[2], (int64_t)w->spill_bytes);
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, register_sql, 6, params, NULL,
                        NULL, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "registering worker %s", w->id);
    return rc;
}

int zb_queue_worker_heartbeat(zb_queue *q, zb_ctx *ctx, const char *id,
                              const zb_worker_figures *f)
{
    char nums[5][32];
    const char *params[6];
    int64_t changes = 0;
    int rc;

    ZB_ASSERT_ARG(q != NULL && id != NULL && f != NULL);
    params[0] = f->task_id > 0 ? zb_queue__i64(nums[0], f->task_id) : NULL;
    params[1] = zb_queue__i64(nums[1], (int64_t)f->budget_reserved_bytes);
    snprintf(nums[2], sizeof(nums[2]), "%.3f", f->budget_wait_seconds);
    params[2] = nums[2];
    params[3] = zb_queue__i64(nums[3], (int64_t)f->rows_done);
    params[4] = zb_queue__i64(nums[4], (int64_t)f->bytes_done);
    params[5] = id;
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, "UPDATE zamboni_workers SET "
                        "heartbeat_ms = @NOW, task_id = CAST(? AS BIGINT), "
                        "budget_reserved_bytes = CAST(? AS BIGINT), "
                        "budget_wait_seconds = CAST(? AS @REAL), "
                        "rows_done = CAST(? AS BIGINT), "
                        "bytes_done = CAST(? AS BIGINT) WHERE id = ?", 6,
                        params, NULL, NULL, &changes);
    if (rc < 0) {
        zb_err_prefix(ctx, "heartbeat of worker %s", id);
        return rc;
    }
    if (changes == 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "worker %s is not registered", id);
    return ZB_OK;
}

int zb_queue_worker_deregister(zb_queue *q, zb_ctx *ctx, const char *id)
{
    int rc;

    ZB_ASSERT_ARG(q != NULL && id != NULL);
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_WRITE, "DELETE FROM zamboni_workers "
                       "WHERE id = ?", 1, &id, NULL, NULL, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "deregistering worker %s", id);
    return rc;
}

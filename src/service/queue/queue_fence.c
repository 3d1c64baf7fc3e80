/*
 * service/queue/queue_fence.c - the commit fence of a task's attempt
 * (catalog.h zb_commit_fence): the attempt still holds the lease by the
 * database's clock. PostgreSQL locks the task row FOR SHARE inside the
 * check, so a sweep (an UPDATE of that row) and a fenced commit
 * serialise: whichever comes second sees the other's outcome.
 */
#define ZB_MODULE "queue"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"

#define FENCE_TMPL                                                          \
    "EXISTS (SELECT 1 FROM zamboni_tasks WHERE id = CAST(? AS BIGINT) AND " \
    "attempt = CAST(? AS INTEGER) AND state IN " ZB_QUEUE_HELD_STATES       \
    " AND lease_expires_ms > @NOW @SHARE)"

static char fence_pg[512], fence_sqlite[512];

/* The condition of each dialect, expanded once (the fence points at it
 * for as long as it is set). */
static pthread_once_t fence_once = PTHREAD_ONCE_INIT;

static void fence_build(void)
{
    zb_queue pg, lite;

    memset(&pg, 0, sizeof(pg));
    memset(&lite, 0, sizeof(lite));
    pg.pg = 1;
    if (zb_queue__sql(fence_pg, sizeof(fence_pg), &pg, FENCE_TMPL) < 0)
        fence_pg[0] = '\0';
    if (zb_queue__sql(fence_sqlite, sizeof(fence_sqlite), &lite,
                      FENCE_TMPL) < 0)
        fence_sqlite[0] = '\0';
}

void zb_queue_fence(const zb_queue *q, const zb_task *t, zb_commit_fence *out,
                    zb_queue_fence_buf *buf)
{
    pthread_once(&fence_once, fence_build);
    memset(out, 0, sizeof(*out));
    out->db = q->db;
    out->sql_condition = q->pg ? fence_pg : fence_sqlite;
    out->n_params = 2;
    snprintf(buf->id, sizeof(buf->id), "%lld", (long long)t->id);
    snprintf(buf->attempt, sizeof(buf->attempt), "%d", t->attempt);
    snprintf(buf->what, sizeof(buf->what), "task %lld attempt %d",
             (long long)t->id, t->attempt);
    out->params[0] = buf->id;
    out->params[1] = buf->attempt;
    out->what = buf->what;
}

/*
 * service/queue/queue_leader.c - a named leader lease (zamboni_leader,
 * migration 2): serve's replicas plan one at a time. Taking and renewing
 * are one statement by the database's clock, so replicas with skewed
 * clocks agree on who holds it.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>

#include "service/queue/queue_int.h"
#include "util/err.h"

/* The lease is ours when the row is new, expired, or already ours; the
 * upsert returns no row otherwise. */
static const char acquire_sql[] =
    "INSERT INTO zamboni_leader (name, holder, expires_ms) VALUES "
    "(CAST(? AS TEXT), CAST(? AS TEXT), @NOW + CAST(? AS BIGINT)) "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
    "expires_ms = excluded.expires_ms WHERE zamboni_leader.holder = "
    "excluded.holder OR zamboni_leader.expires_ms <= @NOW RETURNING holder";

static int holder_row(void *payload, int n, const char *const *vals)
{
    int *held = payload;

    if (n >= 1 && vals[0] != NULL)
        *held = 1;
    return 0;
}

int zb_queue_leader_acquire(zb_queue *q, zb_ctx *ctx, const char *name,
                            const char *holder, int64_t lease_ms, int *held)
{
    char lease[24];
    const char *params[3];
    int rc;

    ZB_ASSERT_ARG(q != NULL && name != NULL && holder != NULL &&
                  held != NULL);
    *held = 0;
    params[0] = name;
    params[1] = holder;
    params[2] = zb_queue__i64(lease, lease_ms > 0 ? lease_ms : 1);
    rc = zb_queue__exec(q, ctx, ZB_SQL_WRITE, acquire_sql, 3, params,
                        holder_row, held, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "taking the leader lease %s", name);
    return rc;
}

int zb_queue_leader_release(zb_queue *q, zb_ctx *ctx, const char *name,
                            const char *holder)
{
    const char *params[2];
    int rc;

    ZB_ASSERT_ARG(q != NULL && name != NULL && holder != NULL);
    params[0] = name;
    params[1] = holder;
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_WRITE, "DELETE FROM zamboni_leader "
                       "WHERE name = ? AND holder = ?", 2, params, NULL,
                       NULL, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "releasing the leader lease %s", name);
    return rc;
}

typedef struct leader_job {
    char *holder;
    size_t size;
    int64_t expires_ms;
} leader_job;

static int leader_row(void *payload, int n, const char *const *vals)
{
    leader_job *j = payload;

    if (n >= 2) {
        zb_queue__str(j->holder, j->size, vals[0]);
        j->expires_ms = zb_queue__num(vals[1]);
    }
    return 0;
}

int zb_queue_leader_get(zb_queue *q, zb_ctx *ctx, const char *name,
                        char *holder, size_t size, int64_t *expires_ms)
{
    leader_job j;
    int rc;

    ZB_ASSERT_ARG(q != NULL && name != NULL && holder != NULL && size > 0);
    holder[0] = '\0';
    j.holder = holder;
    j.size = size;
    j.expires_ms = 0;
    rc = zb_queue__exec(q, ctx, ZB_SQL_PRIMARY, "SELECT holder, expires_ms "
                        "FROM zamboni_leader WHERE name = ? AND expires_ms > "
                        "@NOW", 1, &name, leader_row, &j, NULL);
    if (rc < 0) {
        zb_err_prefix(ctx, "reading the leader lease %s", name);
        return rc;
    }
    if (expires_ms != NULL)
        *expires_ms = j.expires_ms;
    return ZB_OK;
}

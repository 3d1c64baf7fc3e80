/*
 * service/queue/queue_clock.c - the host's clock against the database's
 * (leases run on the database's clock; a host far off it sees leases
 * expire early or late in its own logs and figures: seed 001's rule).
 */
#define ZB_MODULE "queue"

#include <time.h>

#include "service/queue/queue_int.h"
#include "util/err.h"

int zb_queue_clock_skew_ms(zb_queue *q, zb_ctx *ctx, int64_t *skew_ms)
{
    struct timespec a, b;
    int64_t db_ms, host_ms;
    int rc;

    ZB_ASSERT_ARG(q != NULL && skew_ms != NULL);
    *skew_ms = 0;
    clock_gettime(CLOCK_REALTIME, &a);
    if ((rc = zb_sqldb_now_ms(q->db, ctx, &db_ms)) < 0) {
        zb_err_prefix(ctx, "reading the database's clock");
        return rc;
    }
    clock_gettime(CLOCK_REALTIME, &b);
    /* the host's time halfway through the round trip */
    host_ms = ((int64_t)a.tv_sec * 1000 + a.tv_nsec / 1000000 +
               (int64_t)b.tv_sec * 1000 + b.tv_nsec / 1000000) / 2;
    *skew_ms = host_ms - db_ms;
    return ZB_OK;
}

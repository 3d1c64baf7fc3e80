/*
 * service/http/http_health.c - /health's check: "SELECT 1" on the queue
 * database's write pool, on a thread of its own, waited for at most the
 * timeout. A stopped server refuses at once; one that hangs (a network
 * cut) would hold a request for the TCP timeout, so the wait is bounded
 * here and the probe thread is left to end on its own.
 */
#define _POSIX_C_SOURCE 200809L
#define ZB_MODULE "http"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "service/http/http.h"
#include "util/alloc.h"
#include "util/err.h"

/* Checks still running (hanging) in the process; past this many a new
 * check fails at once instead of piling up threads. */
#define MAX_IN_FLIGHT 4

static atomic_int in_flight;

typedef struct probe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;                      /* the waiter and the thread */
    int done;
    int rc;
    char msg[400];
    zb_sqldb *db;                  /* a reference of the probe's own */
} probe;

static void probe_unref(probe *p)
{
    int last;

    pthread_mutex_lock(&p->mu);
    last = --p->refs == 0;
    pthread_mutex_unlock(&p->mu);
    if (!last)
        return;
    zb_sqldb_close(p->db);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    zb_free(p);
}

static void *probe_main(void *arg)
{
    probe *p = arg;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = zb_sqldb_exec(p->db, &ctx, ZB_SQL_PRIMARY, "SELECT 1", 0, NULL,
                       NULL, NULL, NULL);
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    if (rc < 0) {
        char *c;

        snprintf(p->msg, sizeof p->msg, "%.390s",
                 ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
        for (c = p->msg; *c; c++)      /* libpq's messages span lines */
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
    }
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_sub(&in_flight, 1);
    probe_unref(p);
    return NULL;
}

static void deadline_in(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

int zb_http_health_check(zb_sqldb *db, int64_t timeout_ms, char *msg,
                         size_t msg_size)
{
    pthread_attr_t attr;
    pthread_t th;
    struct timespec until;
    probe *p;
    int ok, e = 0;

    if (msg_size > 0)
        msg[0] = '\0';
    if (timeout_ms <= 0)
        timeout_ms = 2000;
    if (db == NULL) {
        snprintf(msg, msg_size, "failed: no queue database");
        return 0;
    }
    if (atomic_fetch_add(&in_flight, 1) >= MAX_IN_FLIGHT) {
        atomic_fetch_sub(&in_flight, 1);
        snprintf(msg, msg_size, "no answer within %lld ms (earlier checks "
                 "still wait)", (long long)timeout_ms);
        return 0;
    }
    if ((p = zb_calloc(1, sizeof *p)) == NULL) {
        atomic_fetch_sub(&in_flight, 1);
        snprintf(msg, msg_size, "failed: out of memory");
        return 0;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->refs = 2;
    p->db = zb_sqldb_ref(db);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, probe_main, p) != 0) {
        pthread_attr_destroy(&attr);
        atomic_fetch_sub(&in_flight, 1);
        p->refs = 1;
        probe_unref(p);
        snprintf(msg, msg_size, "failed: cannot start the check's thread");
        return 0;
    }
    pthread_attr_destroy(&attr);
    deadline_in(&until, timeout_ms);
    pthread_mutex_lock(&p->mu);
    while (!p->done && e != ETIMEDOUT)
        e = pthread_cond_timedwait(&p->cv, &p->mu, &until);
    if (!p->done) {
        ok = 0;
        snprintf(msg, msg_size, "no answer within %lld ms",
                 (long long)timeout_ms);
    } else if (p->rc < 0) {
        ok = 0;
        snprintf(msg, msg_size, "failed: %s", p->msg);
    } else {
        ok = 1;
        snprintf(msg, msg_size, "ok");
    }
    pthread_mutex_unlock(&p->mu);
    probe_unref(p);
    return ok;
}

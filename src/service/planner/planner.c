/*
 * service/planner/planner.c - serve's planning cycle (planner.h): the
 * leader lease, the lost-task sweep, each warehouse's tables read and
 * judged, and the due tasks enqueued by priority within the fleet's free
 * capacity per class, under the queue's cap with displacement.
 */
#define ZB_MODULE "planner"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/maintenance_run.h"
#include "service/planner/planner.h"
#include "service/planner/planner_int.h"
#include "util/alloc.h"
#include "util/err.h"

struct zb_planner {
    zb_queue *queue;
    zb_size_classes classes;
    size_t n_warehouses;
    char **warehouses;
    int64_t max_tasks;
    int max_attempts;
    char *replica_id;
    char *leader_name;
    int64_t lease_ms, worker_stale_ms;
    zb_planner_host host;
    pthread_mutex_t mu;            /* guards counters */
    int mu_ready;
    zb_planner_counters counters;
};

static double mono_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void zb_planner__log(const zb_planner *p, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (p->host.log_line != NULL)
        p->host.log_line(line, p->host.payload);
    else
        fprintf(stderr, "%s\n", line);
}

int zb_planner_new(zb_planner **out, zb_ctx *ctx, const zb_planner_opts *o)
{
    zb_planner *p;
    char host[128] = "";

    ZB_ASSERT_ARG(out != NULL && o != NULL && o->queue != NULL);
    *out = NULL;
    if (o->version != ZB_PLANNER_OPTS_VERSION)
        return zb_fail(ctx, ZB_EINVAL, "planner options version %u, this "
                       "build's is %u", o->version, ZB_PLANNER_OPTS_VERSION);
    if ((p = zb_calloc(1, sizeof(*p))) == NULL)
        return zb_fail_oom(ctx);
    p->queue = o->queue;
    if (o->classes != NULL && o->classes->n > 0)
        p->classes = *o->classes;
    else
        zb_size_classes_default(&p->classes);
    p->max_tasks = o->max_tasks;
    p->max_attempts = o->max_attempts > 0 ? o->max_attempts : 5;
    p->lease_ms = o->leader_lease_ms > 0 ? o->leader_lease_ms : 30000;
    p->worker_stale_ms = o->worker_stale_ms > 0 ? o->worker_stale_ms : 60000;
    p->host = o->host;
    if (o->replica_id == NULL || o->replica_id[0] == '\0')
        snprintf(host, sizeof host, "planner-%p", (void *)p);
    p->replica_id = zb_strdup(host[0] ? host : o->replica_id);
    p->leader_name = zb_strdup(o->leader_name && o->leader_name[0]
                                   ? o->leader_name : "planner");
    if (o->n_warehouses > 0)
        p->warehouses = zb_calloc(o->n_warehouses, sizeof(char *));
    if (p->replica_id == NULL || p->leader_name == NULL ||
        (o->n_warehouses > 0 && p->warehouses == NULL)) {
        zb_planner_free(p);
        return zb_fail_oom(ctx);
    }
    for (size_t i = 0; i < o->n_warehouses; i++) {
        if ((p->warehouses[i] = zb_strdup(o->warehouses[i])) == NULL) {
            zb_planner_free(p);
            return zb_fail_oom(ctx);
        }
        p->n_warehouses = i + 1;
    }
    pthread_mutex_init(&p->mu, NULL);
    p->mu_ready = 1;
    *out = p;
    return ZB_OK;
}

void zb_planner_free(zb_planner *p)
{
    zb_ctx ctx;

    if (p == NULL)
        return;
    if (p->counters.leader) {
        zb_ctx_init(&ctx);
        if (zb_queue_leader_release(p->queue, &ctx, p->leader_name,
                                    p->replica_id) < 0)
            zb_planner__log(p, "planner event=release-failed replica=%s "
                            "error=%s", p->replica_id, ctx.err.msg);
    }
    for (size_t i = 0; i < p->n_warehouses; i++)
        zb_free(p->warehouses[i]);
    zb_free(p->warehouses);
    zb_free(p->replica_id);
    zb_free(p->leader_name);
    if (p->mu_ready)
        pthread_mutex_destroy(&p->mu);
    zb_free(p);
}

void zb_planner_counters_get(zb_planner *p, zb_planner_counters *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->counters;
    pthread_mutex_unlock(&p->mu);
}

static void set_leader(zb_planner *p, int leader)
{
    pthread_mutex_lock(&p->mu);
    p->counters.leader = leader;
    pthread_mutex_unlock(&p->mu);
}

/* ---- enqueueing the candidates ---- */

static int cmp_candidate(const void *a, const void *b)
{
    const zb_planner_candidate *x = a, *y = b;

    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int class_index(const zb_planner *p, const zb_size_class *c)
{
    for (int i = 0; i < p->classes.n; i++)
        if (&p->classes.c[i] == c)
            return i;
    return 0;
}

/* Enqueues candidates by priority while their classes have room; a
 * table's operations in runbook order, stopping at the first that does
 * not fit. */
static int enqueue_all(zb_planner *p, zb_ctx *ctx, zb_planner_cands *cs,
                       int64_t free_slots[ZB_SIZE_CLASSES_MAX],
                       zb_planner_counters *delta)
{
    int64_t room = 0;
    int rc, full = 0;

    for (int i = 0; i < p->classes.n; i++)
        room += free_slots[i];
    if (cs->n > 1)
        qsort(cs->v, cs->n, sizeof(cs->v[0]), cmp_candidate);
    for (size_t k = 0; k < cs->n && room > 0; k++) {
        zb_planner_candidate *c = &cs->v[k];

        for (int op = 0; op < ZB_PLANNER_OPS; op++) {
            zb_task_new t;
            zb_displace_result r;
            const zb_size_class *sc;
            int ci;

            if (!c->due[op])
                continue;
            sc = zb_size_class_for(&p->classes, c->est_memory[op]);
            ci = class_index(p, sc);
            if (free_slots[ci] <= 0)
                break;             /* later ones wait: runbook order */
            /* The queue refused one: it is at its cap with nothing to
             * displace, and stays so this cycle. The rest are counted
             * as refused (as far as the room goes) without asking. */
            if (full) {
                delta->refused++;
                room--;
                break;
            }
            memset(&t, 0, sizeof t);
            t.warehouse = c->warehouse;
            t.table = c->ident;
            t.operation = zb_maint_op_names[op];
            t.size_class = sc->name;
            t.est_memory_bytes = c->est_memory[op];
            t.priority = c->priority;
            t.max_attempts = p->max_attempts;
            rc = zb_queue_enqueue_displace(p->queue, ctx, &t, p->max_tasks,
                                           &r);
            if (rc < 0)
                return rc;
            if (r.outcome == ZB_DISPLACE_REFUSED) {
                delta->refused++;
                zb_planner__log(p, "planner event=refused warehouse=%s "
                                "table=%s operation=%s cap=%" PRId64,
                                c->warehouse, c->ident, t.operation,
                                p->max_tasks);
                full = 1;
                room--;
                break;
            }
            if (r.outcome == ZB_DISPLACE_LIVE)
                continue;
            free_slots[ci]--;
            room--;
            delta->added++;
            if (r.outcome == ZB_DISPLACE_EVICTED) {
                delta->evicted++;
                zb_planner__log(p, "planner event=evicted task=%" PRId64
                                " for=%" PRId64, r.evicted_id, r.id);
            }
            zb_planner__log(p, "planner event=added task=%" PRId64
                            " warehouse=%s table=%s operation=%s class=%s "
                            "priority=%d", r.id, c->warehouse, c->ident,
                            t.operation, sc->name, c->priority);
        }
    }
    return ZB_OK;
}

/* ---- the cycle ---- */

static void add_delta(zb_planner *p, const zb_planner_counters *d,
                      double seconds)
{
    pthread_mutex_lock(&p->mu);
    p->counters.cycles++;
    p->counters.added += d->added;
    p->counters.evicted += d->evicted;
    p->counters.refused += d->refused;
    p->counters.tables_seen += d->tables_seen;
    p->counters.swept += d->swept;
    p->counters.table_errors += d->table_errors;
    p->counters.last_cycle_seconds = seconds;
    pthread_mutex_unlock(&p->mu);
}

int zb_planner_cycle(zb_planner *p, zb_ctx *ctx)
{
    zb_planner_counters delta;
    zb_planner_cands cs;
    int64_t free_slots[ZB_SIZE_CLASSES_MAX], room = 0, now = 0;
    double t0 = mono_seconds();
    int held = 0, lost = 0, rc;

    ZB_ASSERT_ARG(p != NULL);
    memset(&delta, 0, sizeof delta);
    memset(&cs, 0, sizeof cs);
    rc = zb_queue_leader_acquire(p->queue, ctx, p->leader_name,
                                 p->replica_id, p->lease_ms, &held);
    if (rc < 0) {
        set_leader(p, 0);          /* unknown: plan nothing */
        return rc;
    }
    if (held != p->counters.leader)
        zb_planner__log(p, "planner event=%s replica=%s", held ? "leader"
                        : "follower", p->replica_id);
    set_leader(p, held);
    if (!held)
        return ZB_OK;
    if ((rc = zb_queue_sweep(p->queue, ctx, &p->classes, &lost)) < 0)
        return rc;
    delta.swept = (uint64_t)(lost > 0 ? lost : 0);
    for (int i = 0; i < p->classes.n; i++) {
        if ((rc = zb_planner_capacity(p->queue, ctx, &p->classes.c[i],
                                      p->worker_stale_ms, &free_slots[i],
                                      NULL)) < 0)
            return rc;
        room += free_slots[i];
    }
    if ((rc = zb_sqldb_now_ms(zb_queue_db(p->queue), ctx, &now)) < 0)
        return rc;
    /* with no room this cycle nothing is read: the next one plans */
    for (size_t w = 0; w < p->n_warehouses && room > 0; w++) {
        if (zb_ctx_stopped(ctx))
            break;
        rc = zb_planner__warehouse(p->queue, ctx, &p->host,
                                   p->warehouses[w], now, &cs, &delta,
                                   p);
        if (rc < 0)
            break;
    }
    if (rc == ZB_OK && room > 0)
        rc = enqueue_all(p, ctx, &cs, free_slots, &delta);
    zb_planner__cands_free(&cs);
    add_delta(p, &delta, mono_seconds() - t0);
    zb_planner__log(p, "planner event=cycle replica=%s tables=%" PRIu64
                    " added=%" PRIu64 " evicted=%" PRIu64 " refused=%"
                    PRIu64 " lost=%d room=%" PRId64 " ms=%.0f",
                    p->replica_id, delta.tables_seen, delta.added,
                    delta.evicted, delta.refused, lost, room,
                    (mono_seconds() - t0) * 1000.0);
    return rc;
}

/*
 * service/worker/worker.c - the worker loops, the heartbeat thread and the
 * drain wait (worker.h). One task run is worker_task.c.
 */
#define ZB_MODULE "worker"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/worker/worker_int.h"
#include "util/alloc.h"
#include "util/err.h"

int64_t zb_worker__mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t zb_worker__wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void zb_worker__log(zb_worker_state *ws, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one line: a message never carries a newline into the log */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    pthread_mutex_lock(&ws->log_mu);
    if (ws->o->host.log_line != NULL)
        ws->o->host.log_line(line, ws->o->host.payload);
    else
        fprintf(stderr, "%s\n", line);
    pthread_mutex_unlock(&ws->log_mu);
}

int zb_worker__draining(const zb_worker_state *ws)
{
    return (ws->o->drain != NULL && atomic_load(ws->o->drain)) ||
           atomic_load(&ws->quit);
}

/* Sleeps ms, waking early on a drain. */
static void nap(zb_worker_state *ws, int64_t ms)
{
    int64_t end = zb_worker__mono_ms() + ms;

    while (!zb_worker__draining(ws)) {
        int64_t left = end - zb_worker__mono_ms();
        struct timespec ts;

        if (left <= 0)
            break;
        if (left > 50)
            left = 50;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)left * 1000000L;
        nanosleep(&ts, NULL);
    }
}

int zb_worker_check_opts(const zb_worker_opts *o, zb_ctx *ctx)
{
    ZB_ASSERT_ARG(o && ctx);
    if (o->queue == NULL || o->host.open_catalog == NULL ||
        o->classes == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "worker: no queue, catalog or size "
                       "classes given");
    if (o->size_class == NULL || o->size_class[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "worker: no size class given");
    if (zb_size_class_find(o->classes, o->size_class) == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "size class '%s' is not configured "
                       "(size_classes: in zamboni.yml or "
                       "ZAMBONI_SIZE_CLASSES)", o->size_class);
    if (o->lease_ms < 1000)
        return zb_fail(ctx, ZB_EUSAGE, "the lease (%lld ms) must be at "
                       "least 1 s", (long long)o->lease_ms);
    if (o->heartbeat_ms <= 0 || o->heartbeat_ms * 3 > o->lease_ms)
        return zb_fail(ctx, ZB_EUSAGE, "the heartbeat (%lld ms) must be "
                       "more than 0 and at most a third of the lease "
                       "(%lld ms)", (long long)o->heartbeat_ms,
                       (long long)o->lease_ms);
    if (o->drain_timeout_ms < 0 || o->max_lifetime_ms < 0 ||
        o->idle_exit_ms < 0)
        return zb_fail(ctx, ZB_EUSAGE, "worker: a negative duration");
    return ZB_OK;
}

static void *loop_main(void *arg)
{
    zb_worker_slot *sl = arg;
    zb_worker_state *ws = sl->ws;
    const zb_worker_opts *o = ws->o;
    zb_worker_row row;
    zb_catalog *cat = NULL;
    char cat_wh[256] = "";
    const char *reason = "drain";
    unsigned seed = (unsigned)getpid() * 2654435761u + (unsigned)sl->index;
    int64_t idle_since;
    uint64_t n_tasks = 0;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ctx.budget = sl->budget;
    memset(&row, 0, sizeof row);
    row.id = sl->id;
    row.host = o->host_name ? o->host_name : "localhost";
    row.size_class = o->size_class;
    row.memory_bytes = o->memory_bytes;
    row.cores = (int)o->cores;
    row.spill_bytes = o->spill_bytes;
    if (zb_queue_worker_register(o->queue, &ctx, &row) < 0) {
        zb_worker__log(ws, "worker id=%s event=error message=register: %s",
                       sl->id, ctx.err.msg);
        zb_err_clear(&ctx.err);
    }
    zb_worker__log(ws, "worker id=%s event=start class=%s memory=%llu "
                   "cores=%u spill=%llu", sl->id, o->size_class,
                   (unsigned long long)o->memory_bytes, o->cores,
                   (unsigned long long)o->spill_bytes);
    idle_since = zb_worker__mono_ms();
    for (;;) {
        zb_take_opts take;
        zb_task task;
        int got = 0, n_lost = 0;

        if (zb_worker__draining(ws)) {
            reason = "drain";
            break;
        }
        if (o->max_lifetime_ms > 0 &&
            zb_worker__mono_ms() - ws->start_ms >= o->max_lifetime_ms) {
            reason = "lifetime";
            break;
        }
        if (zb_queue_sweep(o->queue, &ctx, o->classes, &n_lost) < 0) {
            zb_worker__log(ws, "worker id=%s event=error message=sweep: %s",
                           sl->id, ctx.err.msg);
            zb_err_clear(&ctx.err);
        }
        memset(&take, 0, sizeof take);
        take.worker_id = sl->id;
        take.size_class = o->size_class;
        take.lease_ms = o->lease_ms;
        if (zb_queue_take(o->queue, &ctx, &take, &task, &got) < 0) {
            zb_worker__log(ws, "worker id=%s event=error message=take: %s",
                           sl->id, ctx.err.msg);
            zb_err_clear(&ctx.err);
            got = 0;
        }
        if (got) {
            zb_worker__run_task(sl, &task, &cat, cat_wh, sizeof cat_wh);
            n_tasks++;
            idle_since = zb_worker__mono_ms();
            continue;
        }
        if (o->idle_exit_ms > 0 &&
            zb_worker__mono_ms() - idle_since >= o->idle_exit_ms) {
            reason = "idle";
            break;
        }
        seed = seed * 1103515245u + 12345u;
        nap(ws, o->poll_ms + (int64_t)((seed >> 8) %
                                       (unsigned)(o->poll_ms / 4 + 1)));
    }
    zb_catalog_free(cat);
    if (zb_queue_worker_deregister(o->queue, &ctx, sl->id) < 0) {
        zb_worker__log(ws, "worker id=%s event=error message=deregister: %s",
                       sl->id, ctx.err.msg);
        zb_err_clear(&ctx.err);
    }
    zb_worker__log(ws, "worker id=%s event=exit reason=%s tasks=%llu",
                   sl->id, reason, (unsigned long long)n_tasks);
    pthread_mutex_lock(&ws->mu);
    sl->done = 1;
    if (strcmp(reason, "drain") == 0)
        ws->sum.drained = 1;
    pthread_mutex_unlock(&ws->mu);
    return NULL;
}

/* One heartbeat for sl's running task, if any. */
static void beat_task(zb_worker_state *ws, zb_worker_slot *sl, zb_ctx *ctx)
{
    zb_lease_state state = ZB_LEASE_HELD;
    zb_task t;
    char progress[128];
    int running, rc;

    pthread_mutex_lock(&ws->mu);
    running = sl->running && !sl->finished;
    if (running)
        t = sl->task;
    pthread_mutex_unlock(&ws->mu);
    if (!running)
        return;
    /* The progress a sweep quotes when this attempt is lost: groups
     * written but not committed leave their files for remove-orphans. */
    snprintf(progress, sizeof progress,
             "{\"groups_written\": %llu, \"input_bytes_done\": %llu}",
             (unsigned long long)atomic_load(&sl->groups_done),
             (unsigned long long)atomic_load(&sl->bytes_done));
    rc = zb_queue_heartbeat(ws->o->queue, ctx, &t, ws->o->lease_ms,
                            progress, &state);
    if (rc == ZB_EFENCED) {
        state = ZB_LEASE_LOST;
    } else if (rc < 0) {
        zb_worker__log(ws, "worker id=%s event=error message=heartbeat: %s",
                       sl->id, ctx->err.msg);
        zb_err_clear(&ctx->err);
        return;
    }
    zb_err_clear(&ctx->err);
    if (state == ZB_LEASE_HELD)
        return;
    /* Tests only: a lost lease left unnoticed, so that the commit meets
     * the fence (the test of the fence itself, tests/fleet). */
    if (state == ZB_LEASE_LOST && ws->o->test_ignore_lost)
        return;
    pthread_mutex_lock(&ws->mu);
    if (sl->running && sl->task.id == t.id &&
        sl->task.attempt == t.attempt) {
        if (state == ZB_LEASE_LOST)
            sl->lost = 1;
        else
            sl->cancelled = 1;
        atomic_store(&sl->stop, 1);
    }
    pthread_mutex_unlock(&ws->mu);
}

static void beat_worker(zb_worker_state *ws, zb_worker_slot *sl, zb_ctx *ctx)
{
    zb_worker_figures f;
    zb_budget_stats st;
    int done;

    memset(&f, 0, sizeof f);
    pthread_mutex_lock(&ws->mu);
    done = sl->done;
    if (sl->running)
        f.task_id = sl->task.id;
    pthread_mutex_unlock(&ws->mu);
    if (done)
        return;
    if (sl->budget != NULL) {
        zb_budget_stats_get(&st, sl->budget);
        f.budget_reserved_bytes = st.held_bytes;
        f.budget_wait_seconds = st.wait_seconds;
    }
    f.rows_done = (uint64_t)atomic_load(&sl->rows_done);
    f.bytes_done = (uint64_t)atomic_load(&sl->bytes_done);
    if (zb_queue_worker_heartbeat(ws->o->queue, ctx, sl->id, &f) < 0) {
        zb_worker__log(ws, "worker id=%s event=error message=worker "
                       "heartbeat: %s", sl->id, ctx->err.msg);
        zb_err_clear(&ctx->err);
    }
}

static void *heartbeat_main(void *arg)
{
    zb_worker_state *ws = arg;
    int64_t next = zb_worker__mono_ms() + ws->o->heartbeat_ms;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    while (!atomic_load(&ws->hb_quit)) {
        struct timespec ts = { 0, 20 * 1000000L };
        int i;

        /* a drain stops the running tasks at once, not at the next beat */
        if (zb_worker__draining(ws))
            for (i = 0; i < ws->n; i++)
                atomic_store(&ws->slots[i].stop, 1);
        if (zb_worker__mono_ms() >= next) {
            for (i = 0; i < ws->n; i++) {
                beat_task(ws, &ws->slots[i], &ctx);
                beat_worker(ws, &ws->slots[i], &ctx);
            }
            next = zb_worker__mono_ms() + ws->o->heartbeat_ms;
        }
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The drain timeout ran out: the tasks still running are abandoned here. */
static void abandon_running(zb_worker_state *ws)
{
    zb_ctx ctx;
    int i;

    zb_ctx_init(&ctx);
    for (i = 0; i < ws->n; i++) {
        zb_worker_slot *sl = &ws->slots[i];
        zb_attempt_result r;
        zb_task t;
        int mine;

        pthread_mutex_lock(&ws->mu);
        mine = sl->running && !sl->finished;
        if (mine) {
            sl->finished = 1;
            t = sl->task;
        }
        pthread_mutex_unlock(&ws->mu);
        if (!mine)
            continue;
        memset(&r, 0, sizeof r);
        r.outcome = ZB_OUTCOME_ABANDONED;
        r.message = "drain timeout ran out before the task finished";
        r.started_ms = sl->started_wall_ms;
        r.finished_ms = zb_worker__wall_ms();
        r.retry_delay_ms = ZB_WORKER_ABANDON_RETRY_MS;
        if (zb_queue_finish(ws->o->queue, &ctx, &t, &r) < 0) {
            zb_worker__log(ws, "worker id=%s event=error message=finish: %s",
                           sl->id, ctx.err.msg);
            zb_err_clear(&ctx.err);
        }
        zb_worker__log(ws, "worker event=drain-timeout task=%lld attempt=%d "
                       "outcome=abandoned", (long long)t.id, t.attempt);
        zb_worker__log(ws, "task id=%lld attempt=%d op=%s warehouse=%s "
                       "table=%s worker=%s outcome=abandoned ms=%lld "
                       "message=%s", (long long)t.id, t.attempt, t.operation,
                       t.warehouse, t.table, sl->id,
                       (long long)(zb_worker__mono_ms() - sl->started_mono_ms),
                       r.message);
        pthread_mutex_lock(&ws->mu);
        ws->sum.tasks++;
        ws->sum.abandoned++;
        pthread_mutex_unlock(&ws->mu);
    }
}

static int all_done(zb_worker_state *ws)
{
    int i, done = 1;

    pthread_mutex_lock(&ws->mu);
    for (i = 0; i < ws->n; i++)
        if (ws->slots[i].started && !ws->slots[i].done)
            done = 0;
    pthread_mutex_unlock(&ws->mu);
    return done;
}

static void state_free(zb_worker_state *ws)
{
    int i;

    if (ws == NULL)
        return;
    for (i = 0; i < ws->n; i++)
        zb_budget_free(ws->slots[i].budget);
    pthread_mutex_destroy(&ws->mu);
    pthread_mutex_destroy(&ws->log_mu);
    zb_free(ws->slots);
    zb_free(ws);
}

int zb_worker_run(const zb_worker_opts *o, zb_ctx *ctx, zb_worker_summary *out)
{
    zb_worker_state *ws = NULL;
    const zb_size_classes *cs;
    pthread_t hb;
    int hb_started = 0, i, rc;
    int64_t deadline = 0;

    ZB_ASSERT_ARG(o && ctx && out);
    memset(out, 0, sizeof *out);
    if ((rc = zb_worker_check_opts(o, ctx)) < 0)
        return rc;
    if ((ws = zb_calloc(1, sizeof *ws)) == NULL)
        return zb_fail_oom(ctx);
    ws->o = o;
    ws->n = o->workers > 0 ? o->workers : 1;
    pthread_mutex_init(&ws->mu, NULL);
    pthread_mutex_init(&ws->log_mu, NULL);
    cs = o->classes;
    ws->largest = cs->n > 0 ? &cs->c[cs->n - 1] : NULL;
    ws->start_ms = zb_worker__mono_ms();
    if ((ws->slots = zb_calloc((size_t)ws->n, sizeof *ws->slots)) == NULL) {
        state_free(ws);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < ws->n; i++) {
        zb_worker_slot *sl = &ws->slots[i];

        sl->ws = ws;
        sl->index = i;
        snprintf(sl->id, sizeof sl->id, "%s-%ld-%d",
                 o->host_name ? o->host_name : "localhost", (long)getpid(),
                 i);
        if ((rc = zb_budget_new(&sl->budget, o->memory_bytes, NULL)) < 0) {
            state_free(ws);
            return zb_fail(ctx, rc, "worker: no memory for a budget");
        }
    }
    for (i = 0; i < ws->n; i++) {
        if (pthread_create(&ws->slots[i].thread, NULL, loop_main,
                           &ws->slots[i]) != 0) {
            rc = zb_fail(ctx, ZB_ERROR, "worker: cannot start thread %d: %s",
                         i, strerror(errno));
            break;
        }
        pthread_mutex_lock(&ws->mu);
        ws->slots[i].started = 1;
        pthread_mutex_unlock(&ws->mu);
    }
    if (rc == ZB_OK) {
        if (pthread_create(&hb, NULL, heartbeat_main, ws) != 0)
            rc = zb_fail(ctx, ZB_ERROR, "worker: cannot start the heartbeat "
                         "thread");
        else
            hb_started = 1;
    }
    if (rc < 0)
        atomic_store(&ws->quit, 1);
    while (!all_done(ws)) {
        struct timespec ts = { 0, 50 * 1000000L };

        if (deadline == 0 && zb_worker__draining(ws))
            deadline = zb_worker__mono_ms() + o->drain_timeout_ms +
                       o->drain_grace_ms;
        if (deadline != 0 && zb_worker__mono_ms() >= deadline) {
            abandon_running(ws);
            pthread_mutex_lock(&ws->mu);
            *out = ws->sum;
            pthread_mutex_unlock(&ws->mu);
            out->drained = 1;
            out->left_running = 1;
            /* the loops still run and use ws: the caller exits now */
            return rc;
        }
        nanosleep(&ts, NULL);
    }
    for (i = 0; i < ws->n; i++)
        if (ws->slots[i].started)
            pthread_join(ws->slots[i].thread, NULL);
    atomic_store(&ws->hb_quit, 1);
    if (hb_started)
        pthread_join(hb, NULL);
    *out = ws->sum;
    state_free(ws);
    return rc;
}

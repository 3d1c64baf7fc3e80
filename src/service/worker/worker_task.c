/*
 * service/worker/worker_task.c - one taken task: fence, health before,
 * the one operation (zb_maintenance_table), health after, the outcome
 * recorded with zb_queue_finish and logged (worker.h).
 */
#define ZB_MODULE "worker"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/maintenance_run.h"
#include "service/worker/worker_int.h"
#include "util/buf.h"
#include "util/err.h"

/* What on_step saw of the one operation. */
typedef struct step_seen {
    int seen;
    zb_maint_status status;
    int rc;
    zb_buf report;
    char error[1024];
    char detail[256];
} step_seen;

static void on_step(const zb_maint_step *step, void *payload)
{
    step_seen *s = payload;

    if (step->status == ZB_MAINT_NOT_SELECTED)
        return;
    s->seen = 1;
    s->status = step->status;
    s->rc = step->rc;
    if (step->status == ZB_MAINT_RAN && step->detail != NULL)
        (void)zb_buf_appendf(&s->report, "%s", step->detail);
    else if (step->detail != NULL)
        snprintf(s->detail, sizeof s->detail, "%s", step->detail);
    if (step->error != NULL)
        snprintf(s->error, sizeof s->error, "%.1000s", step->error);
}

/* The figures the worker's heartbeat carries (zb_worker_figures). */
static void on_progress(const char *stage, uint64_t done, uint64_t total,
                        void *payload)
{
    zb_worker_slot *sl = payload;
    int64_t delay = sl->ws->o->test_group_delay_ms;

    (void)total;
    if (strcmp(stage, ZB_PROGRESS_COMPACT_BYTES) == 0)
        atomic_store(&sl->bytes_done, done);
    if (strcmp(stage, ZB_PROGRESS_COMPACT_GROUPS) == 0)
        atomic_store(&sl->groups_done, done);
    /* A group was written (its report comes before the commit). */
    if (delay > 0 && done > 0 &&
        strcmp(stage, ZB_PROGRESS_COMPACT_GROUPS) == 0) {
        struct timespec ts = { (time_t)(delay / 1000),
                               (long)(delay % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
}

static int64_t summary_i64(const ice_snapshot *snap, const char *key)
{
    size_t i;

    for (i = 0; snap != NULL && i < snap->n_summary; i++)
        if (strcmp(snap->summary[i].key, key) == 0 &&
            snap->summary[i].value != NULL)
            return strtoll(snap->summary[i].value, NULL, 10);
    return 0;
}

void zb_worker_table_health(zb_table_health *out, zb_catalog *cat,
                            zb_ctx *ctx, const zb_table *t)
{
    const ice_snapshot *snap;
    zb_io_stat st;

    memset(out, 0, sizeof *out);
    if (t == NULL || t->meta == NULL)
        return;
    snap = ice_metadata_current_snapshot(t->meta);
    out->known = 1;
    out->data_files = summary_i64(snap, "total-data-files");
    out->data_bytes = summary_i64(snap, "total-files-size");
    out->delete_files = summary_i64(snap, "total-delete-files");
    out->snapshots = (int64_t)t->meta->n_snapshots;
    if (cat != NULL && t->metadata_location != NULL &&
        zb_io_stat_uri(&st, zb_catalog_io(cat), ctx,
                       t->metadata_location) == ZB_OK)
        out->metadata_bytes = (int64_t)st.size_bytes;
    zb_err_clear(&ctx->err);     /* a figure, not a reason to fail */
}

static void measure(zb_table_health *out, zb_catalog *cat, zb_ctx *ctx,
                    const char *ident)
{
    zb_table *t = NULL;

    memset(out, 0, sizeof *out);
    if (zb_catalog_load_table(cat, ctx, ident, &t) == ZB_OK)
        zb_worker_table_health(out, cat, ctx, t);
    zb_table_free(t);
    zb_err_clear(&ctx->err);
}

/* The loop's catalog for warehouse, reopened when it changes. */
static int catalog_for(zb_catalog **cat, char *cat_wh, size_t size,
                       zb_worker_state *ws, zb_ctx *ctx,
                       const char *warehouse)
{
    int rc;

    if (*cat != NULL && strcmp(cat_wh, warehouse) == 0)
        return ZB_OK;
    zb_catalog_free(*cat);
    *cat = NULL;
    cat_wh[0] = '\0';
    rc = ws->o->host.open_catalog(cat, ctx, warehouse, ws->o->host.payload);
    if (rc == ZB_OK)
        snprintf(cat_wh, size, "%s", warehouse);
    return rc;
}

/* Whether the stop ended the operation early (rather than after it was
 * done anyway). */
static int stopped_early(const step_seen *s, int rc)
{
    if (rc == ZB_ECANCELED || s->rc == ZB_ECANCELED)
        return 1;
    if (!s->seen)
        return 1;
    return s->report.ptr != NULL &&
           strstr(zb_buf_cstr(&s->report), "stopped on request") != NULL;
}

void zb_worker__run_task(zb_worker_slot *sl, const zb_task *task,
                         zb_catalog **cat, char *cat_wh, size_t cat_wh_size)
{
    zb_worker_state *ws = sl->ws;
    const zb_worker_opts *o = ws->o;
    const zb_table_config *tc = NULL;
    zb_queue_fence_buf fbuf;
    zb_commit_fence fence;
    zb_attempt_result r;
    step_seen seen;
    const char *outcome = ZB_OUTCOME_SUCCESS;
    char message[1024] = "";
    int op, rc = ZB_OK, lost, cancelled, finished, ran = 0, fenced = 0;
    int64_t ms;
    zb_ctx tctx;

    memset(&seen, 0, sizeof seen);
    zb_buf_init(&seen.report, 256 * 1024);
    memset(&r, 0, sizeof r);
    zb_ctx_init(&tctx);
    tctx.budget = sl->budget;
    tctx.stop = &sl->stop;
    tctx.progress = on_progress;
    tctx.progress_payload = sl;
    atomic_store(&sl->stop, 0);
    atomic_store(&sl->bytes_done, 0);
    atomic_store(&sl->groups_done, 0);
    pthread_mutex_lock(&ws->mu);
    sl->task = *task;
    sl->running = 1;
    sl->lost = sl->cancelled = sl->finished = 0;
    sl->started_wall_ms = zb_worker__wall_ms();
    sl->started_mono_ms = zb_worker__mono_ms();
    pthread_mutex_unlock(&ws->mu);
    if (zb_worker__draining(ws))
        atomic_store(&sl->stop, 1);
    r.started_ms = sl->started_wall_ms;
    zb_worker__log(ws, "task id=%lld attempt=%d op=%s warehouse=%s table=%s "
                   "worker=%s event=start", (long long)task->id,
                   task->attempt, task->operation, task->warehouse,
                   task->table, sl->id);

    op = zb_maint_op_from_name(task->operation);
    if (op < 0) {
        outcome = ZB_OUTCOME_FAILED;
        snprintf(message, sizeof message, "unknown operation '%s'",
                 task->operation);
    } else if (op == ZB_MAINT_COMPACT && ws->largest != NULL &&
               task->est_unspillable_bytes > ws->largest->memory_bytes) {
        /* refused before anything is read or written */
        outcome = ZB_OUTCOME_FAILED;
        snprintf(message, sizeof message, "compaction needs %" PRIu64
                 " bytes that cannot spill, more than the largest size "
                 "class %s holds (%" PRIu64 " bytes)",
                 task->est_unspillable_bytes, ws->largest->name,
                 ws->largest->memory_bytes);
    } else if ((rc = catalog_for(cat, cat_wh, cat_wh_size, ws, &tctx,
                                 task->warehouse)) < 0) {
        outcome = ZB_OUTCOME_FAILED;
        snprintf(message, sizeof message, "catalog of warehouse %.200s: "
                 "%.700s", task->warehouse, tctx.err.msg);
    } else if (o->host.table_config != NULL &&
               (rc = o->host.table_config(&tc, &tctx, task->warehouse,
                                          o->host.payload)) < 0) {
        outcome = ZB_OUTCOME_FAILED;
        snprintf(message, sizeof message, "table config of warehouse "
                 "%.200s: %.700s", task->warehouse, tctx.err.msg);
    } else {
        zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
        zb_op_target target;
        int k;

        zb_queue_fence(o->queue, task, &fence, &fbuf);
        zb_catalog_set_fence(*cat, &fence);
        fenced = 1;
        measure(&r.before, *cat, &tctx, task->table);
        for (k = 0; k < ZB_MAINT_OP_COUNT; k++)
            mo.run[k] = k == op;
        mo.config = tc;
        mo.threads = (int)(o->cores > 0 ? o->cores : 1);
        mo.drain_timeout_ms = (long)o->drain_timeout_ms;
        memset(&target, 0, sizeof target);
        target.catalog = *cat;
        target.io = zb_catalog_io(*cat);
        target.ident = task->table;
        rc = zb_maintenance_table(&target, &tctx, &mo, on_step, &seen);
        ran = 1;
        if (rc < 0 && seen.error[0] == '\0')
            snprintf(seen.error, sizeof seen.error, "%.1000s",
                     tctx.err.msg);
        zb_err_clear(&tctx.err);
        measure(&r.after, *cat, &tctx, task->table);
    }
    if (fenced)
        zb_catalog_set_fence(*cat, NULL);

    pthread_mutex_lock(&ws->mu);
    lost = sl->lost;
    cancelled = sl->cancelled;
    finished = sl->finished;
    sl->running = 0;
    pthread_mutex_unlock(&ws->mu);
    if (finished) {                /* the drain wait recorded it */
        zb_buf_free(&seen.report);
        return;
    }
    if (ran) {
        if (rc == ZB_EFENCED || seen.rc == ZB_EFENCED || lost) {
            outcome = ZB_OUTCOME_LOST;
            snprintf(message, sizeof message, "%.1000s", lost
                     ? "the lease was lost (the heartbeat said so)"
                     : seen.error);
        } else if (cancelled) {
            outcome = ZB_OUTCOME_CANCELLED;
            snprintf(message, sizeof message, "cancelled by hand "
                     "(zamboni tasks cancel)");
        } else if (atomic_load(&sl->stop) && stopped_early(&seen, rc)) {
            if (op == ZB_MAINT_REWRITE_MANIFESTS) {
                outcome = ZB_OUTCOME_FAILED;
                snprintf(message, sizeof message, "rewrite-manifests stopped "
                         "by a drain (counts as a failed attempt)");
            } else {
                outcome = ZB_OUTCOME_ABANDONED;
                snprintf(message, sizeof message, "stopped by a drain%s",
                         o->drain_timeout_ms > 0
                             ? ": the groups written were committed"
                             : ": the groups written were dropped");
                r.retry_delay_ms = ZB_WORKER_ABANDON_RETRY_MS;
            }
        } else if (rc < 0) {
            outcome = ZB_OUTCOME_FAILED;
            snprintf(message, sizeof message, "%.1000s", seen.error);
        } else if (seen.status == ZB_MAINT_DISABLED) {
            snprintf(message, sizeof message, "disabled by %s",
                     seen.detail);
        }
    }
    r.outcome = outcome;
    r.message = message[0] ? message : NULL;
    r.report = seen.report.ptr != NULL ? zb_buf_cstr(&seen.report) : NULL;
    r.finished_ms = zb_worker__wall_ms();
    if (strcmp(outcome, ZB_OUTCOME_LOST) != 0) {
        rc = zb_queue_finish(o->queue, &tctx, task, &r);
        if (rc == ZB_EFENCED) {
            outcome = ZB_OUTCOME_LOST;
            snprintf(message, sizeof message, "finish refused: %.900s",
                     tctx.err.msg);
        } else if (rc < 0) {
            zb_worker__log(ws, "worker id=%s event=error message=finish: %s",
                           sl->id, tctx.err.msg);
        }
        zb_err_clear(&tctx.err);
    }
    ms = zb_worker__mono_ms() - sl->started_mono_ms;
    zb_worker__log(ws, "task id=%lld attempt=%d op=%s warehouse=%s table=%s "
                   "worker=%s outcome=%s ms=%lld%s%s", (long long)task->id,
                   task->attempt, task->operation, task->warehouse,
                   task->table, sl->id, outcome, (long long)ms,
                   message[0] ? " message=" : "", message);
    pthread_mutex_lock(&ws->mu);
    ws->sum.tasks++;
    if (strcmp(outcome, ZB_OUTCOME_SUCCESS) == 0)
        ws->sum.succeeded++;
    else if (strcmp(outcome, ZB_OUTCOME_FAILED) == 0)
        ws->sum.failed++;
    else if (strcmp(outcome, ZB_OUTCOME_ABANDONED) == 0)
        ws->sum.abandoned++;
    else if (strcmp(outcome, ZB_OUTCOME_CANCELLED) == 0)
        ws->sum.cancelled++;
    else
        ws->sum.lost++;
    pthread_mutex_unlock(&ws->mu);
    zb_buf_free(&seen.report);
}

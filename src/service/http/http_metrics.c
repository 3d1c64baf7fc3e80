/*
 * service/http/http_metrics.c - the /metrics text. Families (every
 * replica reads the queue's tables, so the zamboni_tasks*, attempts and
 * worker figures agree whichever replica is scraped; the planner ones are
 * this replica's own):
 *   zamboni_tasks{class,state}                          gauge
 *       live tasks; every configured class with the four states, zeros too
 *   zamboni_demand{class}                               gauge  (/demand's N)
 *   zamboni_attempts_total{outcome}                     counter
 *       attempts recorded: success (completed), failed, lost, abandoned,
 *       cancelled (always present), and any other outcome found
 *   zamboni_tasks_assigned_total                        counter
 *   zamboni_planner_cycles_total                        counter
 *   zamboni_planner_tasks_added_total                   counter
 *   zamboni_planner_tasks_evicted_total                 counter
 *   zamboni_planner_tasks_refused_total                 counter
 *   zamboni_planner_cycle_duration_seconds              gauge (last cycle)
 *   zamboni_planner_tables_seen                         gauge
 *   zamboni_planner_leader                              gauge 0|1
 *   zamboni_warehouse_last_success_timestamp_seconds{warehouse}   gauge
 *   zamboni_reclaimed_bytes_total{operation,kind}       counter
 *   zamboni_rewritten_bytes_total                       counter
 *   zamboni_commit_conflicts_total                      counter
 *       kind data|metadata: health before - after of successful attempts
 *   zamboni_worker_budget_reserved_bytes{worker,class}  gauge
 *   zamboni_worker_budget_wait_seconds{worker,class}    gauge
 *   zamboni_worker_rows_done{worker,class}              gauge
 *   zamboni_worker_bytes_done{worker,class}             gauge
 *   zamboni_worker_busy{worker,class}                   gauge 0|1
 *   zamboni_worker_last_heartbeat_timestamp_seconds{worker,class} gauge
 */
#define ZB_MODULE "http"

#include <stdio.h>
#include <string.h>

#include "service/http/http.h"
#include "service/http/prom.h"
#include "util/alloc.h"
#include "util/err.h"

#define N_STATES 4

static const char *const states[N_STATES] = {
    ZB_TASK_STATE_SCHEDULED, ZB_TASK_STATE_RUNNING, ZB_TASK_STATE_SHOULD_STOP,
    ZB_TASK_STATE_EXCLUDED
};

static const char *const outcomes[] = {
    ZB_OUTCOME_SUCCESS, ZB_OUTCOME_FAILED, ZB_OUTCOME_LOST,
    ZB_OUTCOME_ABANDONED, ZB_OUTCOME_CANCELLED
};
#define N_OUTCOMES (sizeof outcomes / sizeof outcomes[0])

/* ---- grouped rows collected first (families must not interleave) ---- */

typedef struct row {
    char a[256], b[64];
    int64_t v;
} row;

typedef struct rows {
    row *r;
    size_t n, cap;
    int oom;
} rows;

static int rows_add(void *payload, const char *a, const char *b, int64_t v)
{
    rows *rs = payload;
    row *grown;

    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 16;
        if ((grown = zb_realloc(rs->r, cap * sizeof *grown)) == NULL) {
            rs->oom = 1;
            return ZB_ENOMEM;
        }
        rs->r = grown;
        rs->cap = cap;
    }
    snprintf(rs->r[rs->n].a, sizeof rs->r[0].a, "%s", a);
    snprintf(rs->r[rs->n].b, sizeof rs->r[0].b, "%s", b ? b : "");
    rs->r[rs->n++].v = v;
    return 0;
}

static void rows_free(rows *rs)
{
    zb_free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static int64_t rows_find(const rows *rs, const char *a, const char *b)
{
    size_t i;

    for (i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].a, a) == 0 && (b == NULL ||
                                           strcmp(rs->r[i].b, b) == 0))
            return rs->r[i].v;
    return 0;
}

static int class_known(const zb_size_classes *cs, const char *name)
{
    return zb_size_class_find(cs, name) != NULL;
}

static int state_known(const char *s)
{
    int i;

    for (i = 0; i < N_STATES; i++)
        if (strcmp(states[i], s) == 0)
            return 1;
    return 0;
}

static int outcome_known(const char *s)
{
    size_t i;

    for (i = 0; i < N_OUTCOMES; i++)
        if (strcmp(outcomes[i], s) == 0)
            return 1;
    return 0;
}

/* ---- the families ---- */

static int tasks_family(zb_prom *p, zb_ctx *ctx, zb_queue *q,
                        const zb_size_classes *cs)
{
    rows rs = { 0 };
    const char *l[5] = { "class", NULL, "state", NULL, NULL };
    int rc, i, j;
    size_t k;

    if ((rc = zb_queue_counts_by_class(q, ctx, rows_add, &rs)) < 0) {
        rows_free(&rs);
        return rc;
    }
    zb_prom_family(p, "zamboni_tasks", "gauge",
                   "Live tasks in the queue by size class and state.");
    for (i = 0; i < cs->n; i++)
        for (j = 0; j < N_STATES; j++) {
            l[1] = cs->c[i].name;
            l[3] = states[j];
            zb_prom_sample(p, "zamboni_tasks", l,
                           (double)rows_find(&rs, l[1], l[3]));
        }
    /* classes no longer configured, states this build does not know */
    for (k = 0; k < rs.n; k++)
        if (!class_known(cs, rs.r[k].a) || !state_known(rs.r[k].b)) {
            l[1] = rs.r[k].a;
            l[3] = rs.r[k].b;
            zb_prom_sample(p, "zamboni_tasks", l, (double)rs.r[k].v);
        }
    rows_free(&rs);
    return ZB_OK;
}

static int demand_family(zb_prom *p, zb_ctx *ctx, zb_queue *q,
                         const zb_size_classes *cs)
{
    const char *l[3] = { "class", NULL, NULL };
    int64_t n;
    int i, rc;

    zb_prom_family(p, "zamboni_demand", "gauge",
                   "Tasks a worker of the class could take now plus the "
                   "running ones (what /demand answers).");
    for (i = 0; i < cs->n; i++) {
        if ((rc = zb_queue_demand(q, ctx, cs->c[i].name, &n)) < 0)
            return rc;
        l[1] = cs->c[i].name;
        zb_prom_sample(p, "zamboni_demand", l, (double)n);
    }
    return ZB_OK;
}

static int attempts_family(zb_prom *p, zb_ctx *ctx, zb_queue *q)
{
    rows rs = { 0 };
    const char *l[3] = { "outcome", NULL, NULL };
    int64_t assigned = 0;
    size_t k;
    int rc;

    if ((rc = zb_queue_outcome_totals(q, ctx, rows_add, &rs)) < 0 ||
        (rc = zb_queue_assigned_total(q, ctx, &assigned)) < 0) {
        rows_free(&rs);
        return rc;
    }
    zb_prom_family(p, "zamboni_attempts_total", "counter",
                   "Attempts recorded in the run history by outcome "
                   "(success: completed).");
    for (k = 0; k < N_OUTCOMES; k++) {
        l[1] = outcomes[k];
        zb_prom_sample(p, "zamboni_attempts_total", l,
                       (double)rows_find(&rs, outcomes[k], NULL));
    }
    for (k = 0; k < rs.n; k++)
        if (!outcome_known(rs.r[k].a)) {
            l[1] = rs.r[k].a;
            zb_prom_sample(p, "zamboni_attempts_total", l,
                           (double)rs.r[k].v);
        }
    rows_free(&rs);
    zb_prom_family(p, "zamboni_tasks_assigned_total", "counter",
                   "Tasks handed to workers: task attempts recorded "
                   "(cancellations aside) plus the tasks running now.");
    zb_prom_sample(p, "zamboni_tasks_assigned_total", NULL, (double)assigned);
    return ZB_OK;
}

static void planner_family(zb_prom *p, const zb_planner_counters *c)
{
    static const struct {
        const char *name, *type, *help;
    } f[] = {
        { "zamboni_planner_cycles_total", "counter",
          "Planner cycles this replica ran as the leader." },
        { "zamboni_planner_tasks_added_total", "counter",
          "Tasks this replica's planner created." },
        { "zamboni_planner_tasks_evicted_total", "counter",
          "Excluded tasks this replica's planner displaced (queue full)." },
        { "zamboni_planner_tasks_refused_total", "counter",
          "Tasks this replica's planner did not create: the queue was full "
          "and nothing could be displaced." },
        { "zamboni_planner_cycle_duration_seconds", "gauge",
          "Duration of this replica's last planner cycle." },
        { "zamboni_planner_tables_seen", "gauge",
          "Tables this replica's planner has looked at." },
        { "zamboni_planner_leader", "gauge",
          "1 while this replica holds the planner's leader lease." },
    };
    double v[7];
    size_t i;

    v[0] = (double)c->cycles;
    v[1] = (double)c->added;
    v[2] = (double)c->evicted;
    v[3] = (double)c->refused;
    v[4] = c->last_cycle_seconds;
    v[5] = (double)c->tables_seen;
    v[6] = c->leader ? 1.0 : 0.0;
    for (i = 0; i < sizeof f / sizeof f[0]; i++) {
        zb_prom_family(p, f[i].name, f[i].type, f[i].help);
        zb_prom_sample(p, f[i].name, NULL, v[i]);
    }
}

static int history_families(zb_prom *p, zb_ctx *ctx, zb_queue *q)
{
    rows last = { 0 }, rec = { 0 };
    const char *l[5] = { NULL, NULL, NULL, NULL, NULL };
    size_t k;
    int rc;

    if ((rc = zb_queue_last_success(q, ctx, rows_add, &last)) < 0 ||
        (rc = zb_queue_bytes_reclaimed(q, ctx, rows_add, &rec)) < 0)
        goto done;
    zb_prom_family(p, "zamboni_warehouse_last_success_timestamp_seconds",
                   "gauge", "When the last successful attempt on a table "
                   "of the warehouse finished (Unix time).");
    l[0] = "warehouse";
    for (k = 0; k < last.n; k++) {
        l[1] = last.r[k].a;
        zb_prom_sample(p, "zamboni_warehouse_last_success_timestamp_seconds",
                       l, (double)last.r[k].v / 1000.0);
    }
    zb_prom_family(p, "zamboni_reclaimed_bytes_total", "counter",
                   "Bytes successful attempts took off their tables (health "
                   "before minus after) by operation and kind (data, "
                   "metadata).");
    l[0] = "operation";
    l[2] = "kind";
    for (k = 0; k < rec.n; k++) {
        l[1] = rec.r[k].a;
        l[3] = rec.r[k].b;
        zb_prom_sample(p, "zamboni_reclaimed_bytes_total", l,
                       (double)rec.r[k].v);
    }
    {
        zb_queue_rewrite_totals rt;

        if ((rc = zb_queue_rewrite_totals_get(q, ctx, &rt)) < 0)
            goto done;
        zb_prom_family(p, "zamboni_rewritten_bytes_total", "counter",
                       "Input bytes compaction rewrote in committed groups "
                       "(the attempts' reports).");
        zb_prom_sample(p, "zamboni_rewritten_bytes_total", NULL,
                       (double)rt.bytes_rewritten);
        zb_prom_family(p, "zamboni_commit_conflicts_total", "counter",
                       "Commit conflicts: compaction groups a concurrent "
                       "commit made drop, and attempts that failed on "
                       "another writer's commit.");
        zb_prom_sample(p, "zamboni_commit_conflicts_total", NULL,
                       (double)rt.commit_conflicts);
    }
done:
    rows_free(&last);
    rows_free(&rec);
    return rc;
}

/* ---- workers ---- */

typedef struct worker_copy {
    char id[256], cls[64];
    int64_t heartbeat_ms;
    zb_worker_figures f;
} worker_copy;

typedef struct workers {
    worker_copy *w;
    size_t n, cap;
} workers;

static int worker_add(void *payload, const zb_worker_info *w)
{
    workers *ws = payload;
    worker_copy *grown;

    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? ws->cap * 2 : 8;
        if ((grown = zb_realloc(ws->w, cap * sizeof *grown)) == NULL)
            return ZB_ENOMEM;
        ws->w = grown;
        ws->cap = cap;
    }
    snprintf(ws->w[ws->n].id, sizeof ws->w[0].id, "%s", w->id);
    snprintf(ws->w[ws->n].cls, sizeof ws->w[0].cls, "%s", w->size_class);
    ws->w[ws->n].heartbeat_ms = w->heartbeat_ms;
    ws->w[ws->n++].f = w->f;
    return 0;
}

static int worker_families(zb_prom *p, zb_ctx *ctx, zb_queue *q)
{
    static const struct {
        const char *name, *help;
    } f[] = {
        { "zamboni_worker_budget_reserved_bytes",
          "Memory budget the worker had reserved at its last heartbeat." },
        { "zamboni_worker_budget_wait_seconds",
          "Time the worker's current task waited for its memory budget." },
        { "zamboni_worker_rows_done",
          "Rows the worker's current task has written." },
        { "zamboni_worker_bytes_done",
          "Bytes the worker's current task has written." },
        { "zamboni_worker_busy", "1 while the worker runs a task." },
        { "zamboni_worker_last_heartbeat_timestamp_seconds",
          "When the worker last sent a heartbeat (database clock, Unix "
          "time)." },
    };
    workers ws = { 0 };
    const char *l[5] = { "worker", NULL, "class", NULL, NULL };
    size_t i, k;
    double v;
    int rc;

    if ((rc = zb_queue_workers_list(q, ctx, worker_add, &ws)) < 0) {
        if (rc == ZB_ENOMEM)
            zb_fail_oom(ctx);
        zb_free(ws.w);
        return rc;
    }
    for (i = 0; i < sizeof f / sizeof f[0]; i++) {
        zb_prom_family(p, f[i].name, "gauge", f[i].help);
        for (k = 0; k < ws.n; k++) {
            const worker_copy *w = &ws.w[k];
            switch (i) {
            case 0: v = (double)w->f.budget_reserved_bytes; break;
            case 1: v = w->f.budget_wait_seconds; break;
            case 2: v = (double)w->f.rows_done; break;
            case 3: v = (double)w->f.bytes_done; break;
            case 4: v = w->f.task_id > 0 ? 1.0 : 0.0; break;
            default: v = (double)w->heartbeat_ms / 1000.0; break;
            }
            l[1] = w->id;
            l[3] = w->cls;
            zb_prom_sample(p, f[i].name, l, v);
        }
    }
    zb_free(ws.w);
    return ZB_OK;
}

int zb_http_metrics_text(zb_buf *out, zb_ctx *ctx, zb_queue *q,
                         const zb_size_classes *classes,
                         const zb_planner_counters *planner)
{
    zb_size_classes def;
    zb_prom p;
    int rc;

    ZB_ASSERT_ARG(out != NULL && q != NULL);
    if (classes == NULL || classes->n == 0) {
        zb_size_classes_default(&def);
        classes = &def;
    }
    zb_prom_init(&p, out);
    if ((rc = tasks_family(&p, ctx, q, classes)) < 0 ||
        (rc = demand_family(&p, ctx, q, classes)) < 0 ||
        (rc = attempts_family(&p, ctx, q)) < 0)
        return rc;
    if (planner != NULL)
        planner_family(&p, planner);
    if ((rc = history_families(&p, ctx, q)) < 0 ||
        (rc = worker_families(&p, ctx, q)) < 0)
        return rc;
    if (p.rc < 0)
        return zb_fail(ctx, p.rc, "the metrics text is too large");
    return ZB_OK;
}

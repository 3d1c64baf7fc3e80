/*
 * service/http/http_api.c - the dashboard's read-only JSON API under
 * /api/v1/ (docs/api/dashboard-openapi.yaml). Every task and attempt is
 * written by service/queue/queue_json.h, the code `zamboni tasks list
 * --json` and `zamboni history --json` print with, so the API and the
 * CLI agree field for field. The per-warehouse and per-table figures are
 * folded here from the attempts (newest first) and the live tasks:
 *
 *   health      of a table: the newest attempt's health after, else its
 *               health before (the worker measures both)
 *   reclaimed   of a successful attempt with both known: the data bytes
 *               and the metadata bytes it took off (before - after where
 *               positive), as zb_queue_bytes_reclaimed counts them
 *   need        excess files (data files beyond ceil(data bytes / 128
 *               MiB)) + delete files + snapshots beyond the first + 10 x
 *               metadata bytes / data bytes (at most 100); tables are
 *               listed by need, highest first
 */
#define ZB_MODULE "http"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "service/http/http.h"
#include "service/queue/queue_json.h"
#include "util/alloc.h"
#include "util/err.h"

#define DAY_MS 86400000LL
#define SCAN_LIMIT 5000            /* attempts folded per answer */
#define TARGET_FILE_BYTES 134217728LL

static int dump_to_buf(const char *text, size_t n, void *payload)
{
    return zb_buf_append(payload, text, n) == ZB_OK ? 0 : -1;
}

/* Writes j (reference taken) as the answer. */
static int put(zb_buf *out, zb_ctx *ctx, json_t *j)
{
    int rc;

    if (j == NULL)
        return zb_fail_oom(ctx);
    rc = json_dump_callback(j, dump_to_buf, out, JSON_PRESERVE_ORDER |
                            JSON_COMPACT);
    json_decref(j);
    if (rc < 0 || zb_buf_putc(out, '\n') < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static int put_error(zb_buf *out, int *status, zb_ctx *ctx, int code,
                     const char *msg)
{
    json_t *e = json_string(msg);

    *status = code;
    return put(out, ctx, json_pack("{s:o}", "error",
                                   e ? e : json_string("error")));
}

/* jansson refuses NULL; an append that fails is out of memory. */
static int add(json_t *arr, json_t *v)
{
    return v != NULL && json_array_append_new(arr, v) == 0 ? 0 : ZB_ENOMEM;
}

static int64_t now_ms(zb_queue *q)
{
    zb_ctx c;
    int64_t now = 0;

    zb_ctx_init(&c);
    if (zb_sqldb_now_ms(zb_queue_db(q), &c, &now) < 0)
        now = 0;
    return now;
}

static int64_t pos(int64_t v)
{
    return v > 0 ? v : 0;
}

static int64_t reclaimed(const zb_attempt *a)
{
    if (strcmp(a->outcome, ZB_OUTCOME_SUCCESS) != 0 || !a->before.known ||
        !a->after.known)
        return -1;
    return pos(a->before.data_bytes - a->after.data_bytes) +
           pos(a->before.metadata_bytes - a->after.metadata_bytes);
}

static int is_failure(const zb_attempt *a)
{
    return strcmp(a->outcome, ZB_OUTCOME_FAILED) == 0 ||
           strcmp(a->outcome, ZB_OUTCOME_LOST) == 0;
}

static int64_t need_of(const zb_table_health *h)
{
    int64_t want, n = 0;

    if (!h->known)
        return 0;
    want = (h->data_bytes + TARGET_FILE_BYTES - 1) / TARGET_FILE_BYTES;
    n += pos(h->data_files - want);
    n += pos(h->delete_files);
    n += pos(h->snapshots - 1);
    if (h->data_bytes > 0) {
        int64_t r = h->metadata_bytes * 10 / h->data_bytes;
        n += r > 100 ? 100 : r;
    } else if (h->metadata_bytes > 0) {
        n += 100;
    }
    return n;
}

/* ---- collecting ---- */

typedef struct collect {
    json_t *arr;                   /* attempts as queue_json writes them */
    int64_t since_ms;              /* > 0: failures since then only */
    int64_t n;
} collect;

static int collect_attempt(void *payload, const zb_attempt *a)
{
    collect *c = payload;

    if (c->since_ms > 0 && (!is_failure(a) || a->finished_ms < c->since_ms))
        return 0;
    c->n++;
    return add(c->arr, zb_queue_attempt_json(a));
}

typedef struct task_filter {
    json_t *arr;
    const char *warehouse, *table; /* NULL: any */
} task_filter;

static int collect_task(void *payload, const zb_task *t)
{
    task_filter *f = payload;

    if ((f->warehouse && strcmp(f->warehouse, t->warehouse) != 0) ||
        (f->table && strcmp(f->table, t->table) != 0))
        return 0;
    return add(f->arr, zb_queue_task_json(t));
}

static int live_tasks(json_t **out, zb_ctx *ctx, zb_queue *q,
                      const char *state, const char *warehouse,
                      const char *table)
{
    task_filter f = { NULL, warehouse, table };
    int rc;

    if ((f.arr = json_array()) == NULL)
        return zb_fail_oom(ctx);
    rc = zb_queue_list(q, ctx, state, collect_task, &f);
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    if (rc < 0) {
        json_decref(f.arr);
        return rc;
    }
    *out = f.arr;
    return ZB_OK;
}

static int attempts(json_t **out, zb_ctx *ctx, zb_queue *q,
                    const char *warehouse, const char *table, int64_t task,
                    int limit, int64_t failures_since_ms)
{
    collect c = { NULL, failures_since_ms, 0 };
    int rc;

    if ((c.arr = json_array()) == NULL)
        return zb_fail_oom(ctx);
    rc = zb_queue_attempts_where(q, ctx, warehouse, table, task, limit,
                                 collect_attempt, &c);
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    if (rc < 0) {
        json_decref(c.arr);
        return rc;
    }
    *out = c.arr;
    return ZB_OK;
}

/* ---- fleet, workers ---- */

static int group_row(void *payload, const char *a, const char *b, int64_t v)
{
    return add(payload, json_pack("{s:s, s:s, s:I}", "size_class", a,
                                  "state", b ? b : "", "tasks",
                                  (json_int_t)v));
}

static int outcome_row(void *payload, const char *a, const char *b,
                       int64_t v)
{
    (void)b;
    return json_object_set_new(payload, a, json_integer(v)) == 0
               ? 0 : ZB_ENOMEM;
}

static int worker_one(void *payload, const zb_worker_info *w)
{
    json_t *o;

    o = json_pack("{s:s, s:s, s:s, s:I, s:i, s:I, s:I, s:I, s:I, s:f, s:I,"
                  " s:I}",
                  "id", w->id, "host", w->host, "size_class", w->size_class,
                  "memory_bytes", (json_int_t)w->memory_bytes, "cores",
                  w->cores, "spill_bytes", (json_int_t)w->spill_bytes,
                  "started_ms", (json_int_t)w->started_ms, "heartbeat_ms",
                  (json_int_t)w->heartbeat_ms, "budget_reserved_bytes",
                  (json_int_t)w->f.budget_reserved_bytes,
                  "budget_wait_seconds", w->f.budget_wait_seconds,
                  "rows_done", (json_int_t)w->f.rows_done, "bytes_done",
                  (json_int_t)w->f.bytes_done);
    if (o == NULL)
        return ZB_ENOMEM;
    json_object_set_new(o, "task_id", w->f.task_id > 0
                            ? json_integer(w->f.task_id) : json_null());
    return add(payload, o);
}

static int workers(json_t **out, zb_ctx *ctx, zb_queue *q)
{
    json_t *arr = json_array(), *o;
    json_int_t id;
    size_t i;
    zb_task t;
    zb_ctx c;
    int rc;

    if (arr == NULL)
        return zb_fail_oom(ctx);
    rc = zb_queue_workers_list(q, ctx, worker_one, arr);
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    if (rc < 0) {
        json_decref(arr);
        return rc;
    }
    /* the task each runs, when still live (it may finish meanwhile);
     * looked up after the list, never from inside its callback, which
     * holds the database's connection */
    json_array_foreach(arr, i, o) {
        id = json_integer_value(json_object_get(o, "task_id"));
        zb_ctx_init(&c);
        if (id > 0 && zb_queue_get(q, &c, id, &t) == 0)
            json_object_set_new(o, "task", json_pack(
                "{s:s, s:s, s:s, s:i}", "warehouse", t.warehouse, "table",
                t.table, "operation", t.operation, "attempt", t.attempt));
        else
            json_object_set_new(o, "task", json_null());
    }
    *out = arr;
    return ZB_OK;
}

static json_t *planner_json(const zb_planner_counters *p)
{
    if (p == NULL)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:b, s:I, s:I}",
                     "cycles", (json_int_t)p->cycles, "added",
                     (json_int_t)p->added, "evicted", (json_int_t)p->evicted,
                     "refused", (json_int_t)p->refused, "tables_seen",
                     (json_int_t)p->tables_seen, "last_cycle_seconds",
                     p->last_cycle_seconds, "leader", p->leader, "swept",
                     (json_int_t)p->swept, "table_errors",
                     (json_int_t)p->table_errors);
}

static int fleet(json_t **out, zb_ctx *ctx, const zb_http_api_src *src)
{
    json_t *o = NULL, *queue = NULL, *w = NULL, *fail = NULL, *tot = NULL;
    int64_t now = now_ms(src->queue);
    int rc;

    if ((queue = json_array()) == NULL || (tot = json_object()) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_queue_counts_by_class(src->queue, ctx, group_row,
                                       queue)) < 0 ||
        (rc = zb_queue_outcome_totals(src->queue, ctx, outcome_row,
                                      tot)) < 0 ||
        (rc = workers(&w, ctx, src->queue)) < 0 ||
        (rc = attempts(&fail, ctx, src->queue, NULL, NULL, 0, SCAN_LIMIT,
                       now - DAY_MS)) < 0)
        goto done;
    o = json_pack("{s:I, s:O, s:O, s:O, s:o, s:O}", "now_ms",
                  (json_int_t)now, "queue", queue, "workers", w,
                  "failures_24h", fail, "planner", planner_json(src->planner),
                  "outcomes", tot);
    if (o == NULL)
        rc = zb_fail_oom(ctx);
done:
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    json_decref(queue);
    json_decref(tot);
    json_decref(w);
    json_decref(fail);
    *out = o;
    return rc < 0 ? rc : ZB_OK;
}

/* ---- warehouses ---- */

/* Per warehouse: tables (an object used as a set), counts. */
typedef struct wh_fold {
    json_t *by_name;               /* name -> object */
    int64_t since_ms;
} wh_fold;

static json_t *wh_get(wh_fold *f, const char *name, int configured)
{
    json_t *o = json_object_get(f->by_name, name);

    if (o != NULL) {
        if (configured)
            json_object_set_new(o, "configured", json_true());
        return o;
    }
    o = json_pack("{s:s, s:b, s:{}, s:n, s:I, s:I, s:I, s:I}", "name", name,
                  "configured", configured, "tables", "last_success_ms",
                  "attempts", (json_int_t)0, "failures_24h", (json_int_t)0,
                  "live_tasks", (json_int_t)0, "bytes_reclaimed",
                  (json_int_t)0);
    if (o == NULL || json_object_set_new(f->by_name, name, o) < 0)
        return NULL;
    return o;
}

static void bump(json_t *o, const char *key, int64_t by)
{
    json_t *v = json_object_get(o, key);

    json_integer_set(v, json_integer_value(v) + by);
}

static int wh_attempt(void *payload, const zb_attempt *a)
{
    wh_fold *f = payload;
    json_t *o = wh_get(f, a->warehouse, 0);
    int64_t r = reclaimed(a);

    if (o == NULL)
        return ZB_ENOMEM;
    json_object_set_new(json_object_get(o, "tables"), a->table, json_true());
    bump(o, "attempts", 1);
    if (is_failure(a) && a->finished_ms >= f->since_ms)
        bump(o, "failures_24h", 1);
    if (r > 0)
        bump(o, "bytes_reclaimed", r);
    if (strcmp(a->outcome, ZB_OUTCOME_SUCCESS) == 0 &&
        json_is_null(json_object_get(o, "last_success_ms")))
        json_object_set_new(o, "last_success_ms",
                            json_integer(a->finished_ms));
    return 0;
}

static int wh_task(void *payload, const zb_task *t)
{
    wh_fold *f = payload;
    json_t *o = wh_get(f, t->warehouse, 0);

    if (o == NULL)
        return ZB_ENOMEM;
    json_object_set_new(json_object_get(o, "tables"), t->table, json_true());
    bump(o, "live_tasks", 1);
    return 0;
}

static int warehouses(json_t **out, zb_ctx *ctx, const zb_http_api_src *src)
{
    wh_fold f = { json_object(), now_ms(src->queue) - DAY_MS };
    json_t *arr = json_array(), *o;
    const char *name;
    size_t i;
    int rc = ZB_OK;

    *out = NULL;
    if (f.by_name == NULL || arr == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < src->n_warehouses; i++)
        if (wh_get(&f, src->warehouses[i], 1) == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    if ((rc = zb_queue_attempts_where(src->queue, ctx, NULL, NULL, 0,
                                      SCAN_LIMIT, wh_attempt, &f)) < 0 ||
        (rc = zb_queue_list(src->queue, ctx, NULL, wh_task, &f)) < 0)
        goto done;
    json_object_foreach(f.by_name, name, o) {
        /* the set of tables becomes its size */
        json_object_set_new(o, "tables", json_integer((json_int_t)
                            json_object_size(json_object_get(o, "tables"))));
        if (add(arr, json_incref(o)) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    }
    *out = arr;
    arr = NULL;
done:
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    json_decref(arr);
    json_decref(f.by_name);
    return rc;
}

/* ---- one warehouse: its tables by need ---- */

typedef struct tables_fold {
    json_t *by_table;              /* table -> object */
    json_t *reclaimed;             /* [{finished_ms, bytes, ...}] newest
                                      first, reversed at the end */
} tables_fold;

static json_t *table_get(tables_fold *f, const char *table)
{
    json_t *o = json_object_get(f->by_table, table);

    if (o != NULL)
        return o;
    o = json_pack("{s:s, s:n, s:n, s:n, s:n, s:n, s:I, s:I, s:I, s:I, s:I}",
                  "table", table, "last_finished_ms", "last_outcome",
                  "last_operation", "health", "health_ms", "attempts",
                  (json_int_t)0, "failures", (json_int_t)0, "bytes_reclaimed",
                  (json_int_t)0, "live_tasks", (json_int_t)0, "need",
                  (json_int_t)0);
    if (o == NULL || json_object_set_new(f->by_table, table, o) < 0)
        return NULL;
    return o;
}

static int table_attempt(void *payload, const zb_attempt *a)
{
    tables_fold *f = payload;
    json_t *o = table_get(f, a->table);
    const zb_table_health *h = a->after.known ? &a->after
                               : a->before.known ? &a->before : NULL;
    int64_t r = reclaimed(a);

    if (o == NULL)
        return ZB_ENOMEM;
    if (json_is_null(json_object_get(o, "last_finished_ms"))) {
        json_object_set_new(o, "last_finished_ms",
                            json_integer(a->finished_ms));
        json_object_set_new(o, "last_outcome", json_string(a->outcome));
        json_object_set_new(o, "last_operation", json_string(a->operation));
    }
    if (h != NULL && json_is_null(json_object_get(o, "health"))) {
        json_object_set_new(o, "health", zb_queue_health_json(h));
        json_object_set_new(o, "health_ms", json_integer(a->finished_ms));
        json_object_set_new(o, "need", json_integer(need_of(h)));
    }
    bump(o, "attempts", 1);
    if (is_failure(a))
        bump(o, "failures", 1);
    if (r > 0) {
        bump(o, "bytes_reclaimed", r);
        if (add(f->reclaimed, json_pack("{s:I, s:I, s:s, s:s}",
                                        "finished_ms",
                                        (json_int_t)a->finished_ms, "bytes",
                                        (json_int_t)r, "table", a->table,
                                        "operation", a->operation)) < 0)
            return ZB_ENOMEM;
    }
    return 0;
}

static int table_task(void *payload, const zb_task *t)
{
    tables_fold *f = payload;
    json_t *o = table_get(f, t->table);

    if (o == NULL)
        return ZB_ENOMEM;
    bump(o, "live_tasks", 1);
    return 0;
}

typedef struct wh_task_fold {
    tables_fold *f;
    const char *warehouse;
} wh_task_fold;

static int table_task_of(void *payload, const zb_task *t)
{
    wh_task_fold *w = payload;

    return strcmp(t->warehouse, w->warehouse) == 0 ? table_task(w->f, t) : 0;
}

static int by_need(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t nx = json_integer_value(json_object_get(x, "need"));
    json_int_t ny = json_integer_value(json_object_get(y, "need"));

    if (nx != ny)
        return nx > ny ? -1 : 1;
    return strcmp(json_string_value(json_object_get(x, "table")),
                  json_string_value(json_object_get(y, "table")));
}

static int warehouse(json_t **out, int *found, zb_ctx *ctx,
                     const zb_http_api_src *src, const char *name)
{
    tables_fold f = { json_object(), json_array() };
    wh_task_fold wt = { &f, name };
    json_t *arr = json_array(), *o, **v = NULL, *rev = json_array();
    const char *key;
    size_t i, n;
    int rc;

    *out = NULL;
    *found = 0;
    if (f.by_table == NULL || f.reclaimed == NULL || arr == NULL ||
        rev == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_queue_attempts_where(src->queue, ctx, name, NULL, 0,
                                      SCAN_LIMIT, table_attempt, &f)) < 0 ||
        (rc = zb_queue_list(src->queue, ctx, NULL, table_task_of, &wt)) < 0)
        goto done;
    for (i = 0; i < src->n_warehouses; i++)
        if (strcmp(src->warehouses[i], name) == 0)
            *found = 1;
    n = json_object_size(f.by_table);
    *found |= n > 0;
    if (n > 0 && (v = zb_calloc(n, sizeof *v)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    i = 0;
    json_object_foreach(f.by_table, key, o)
        v[i++] = o;
    if (n > 1)
        qsort(v, n, sizeof *v, by_need);
    for (i = 0; i < n; i++)
        if (add(arr, json_incref(v[i])) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    for (i = json_array_size(f.reclaimed); i > 0; i--)
        if (add(rev, json_incref(json_array_get(f.reclaimed, i - 1))) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    if ((*out = json_pack("{s:s, s:O, s:O}", "warehouse", name, "tables",
                          arr, "reclaimed", rev)) == NULL)
        rc = zb_fail_oom(ctx);
done:
    if (rc == ZB_ENOMEM && ctx->err.msg[0] == '\0')
        zb_fail_oom(ctx);
    zb_free(v);
    json_decref(arr);
    json_decref(rev);
    json_decref(f.by_table);
    json_decref(f.reclaimed);
    return rc;
}

/* ---- one table, one task ---- */

static int table(json_t **out, int *found, zb_ctx *ctx,
                 const zb_http_api_src *src, const char *wh, const char *t)
{
    json_t *att = NULL, *tasks = NULL;
    int rc;

    *out = NULL;
    if ((rc = attempts(&att, ctx, src->queue, wh, t, 0, 200, 0)) < 0 ||
        (rc = live_tasks(&tasks, ctx, src->queue, NULL, wh, t)) < 0)
        goto done;
    *found = json_array_size(att) + json_array_size(tasks) > 0;
    /* the plan reads the table's manifests: its own endpoint, fetched
     * once per page view rather than at every refresh */
    *out = json_pack("{s:s, s:s, s:O, s:O}", "warehouse", wh, "table", t,
                     "attempts", att, "tasks", tasks);
    if (*out == NULL)
        rc = zb_fail_oom(ctx);
done:
    json_decref(att);
    json_decref(tasks);
    return rc;
}

static int task(json_t **out, int *found, zb_ctx *ctx,
                const zb_http_api_src *src, int64_t id)
{
    json_t *att = NULL, *live;
    zb_task t;
    int rc;

    *out = NULL;
    rc = zb_queue_get(src->queue, ctx, id, &t);
    if (rc == ZB_ENOTFOUND) {
        zb_err_clear(&ctx->err);
        live = json_null();
    } else if (rc < 0) {
        return rc;
    } else if ((live = zb_queue_task_json(&t)) == NULL) {
        return zb_fail_oom(ctx);
    }
    if ((rc = attempts(&att, ctx, src->queue, NULL, NULL, id, 1000,
                       0)) < 0) {
        json_decref(live);
        return rc;
    }
    *found = !json_is_null(live) || json_array_size(att) > 0;
    *out = json_pack("{s:I, s:o, s:o}", "id", (json_int_t)id, "task", live,
                     "attempts", att);
    return *out != NULL ? ZB_OK : zb_fail_oom(ctx);
}

static int plan(json_t **out, int *status, zb_ctx *ctx,
                const zb_http_api_src *src, const char *wh, const char *t)
{
    zb_buf b = ZB_BUF_INIT(64u << 20);
    int rc;

    *out = NULL;
    if (src->table_plan == NULL) {
        *status = 501;
        *out = json_pack("{s:s}", "error", "this server does not plan "
                         "tables: run `zamboni plan TABLE`");
        return *out ? ZB_OK : zb_fail_oom(ctx);
    }
    rc = src->table_plan(src->payload, ctx, wh, t, &b);
    if (rc == ZB_ENOMEM) {
        zb_buf_free(&b);
        return rc;
    }
    if (rc < 0) {
        json_t *e = json_string(ctx->err.msg[0] ? ctx->err.msg
                                                : zb_rc_name(rc));

        *status = rc == ZB_ENOTFOUND ? 404 : 503;
        *out = json_pack("{s:o}", "error", e ? e : json_string("error"));
        zb_err_clear(&ctx->err);
    } else {
        json_t *text = json_string(zb_buf_cstr(&b));

        *out = json_pack("{s:s, s:s, s:o, s:I}", "warehouse", wh, "table", t,
                         "plan", text ? text : json_string(""),
                         "computed_ms", (json_int_t)now_ms(src->queue));
    }
    zb_buf_free(&b);
    return *out ? ZB_OK : zb_fail_oom(ctx);
}

/* ---- the entry ---- */

static int limit_of(const char *s, int def)
{
    char *end;
    long v;

    if (s == NULL || s[0] == '\0')
        return def;
    v = strtol(s, &end, 10);
    if (*end != '\0' || v <= 0)
        return -1;
    return v > SCAN_LIMIT ? SCAN_LIMIT : (int)v;
}

int zb_http_api_json(zb_buf *out, int *status, zb_ctx *ctx,
                     const zb_http_api_src *src, const zb_http_route *r,
                     const zb_http_api_query *qry)
{
    static const zb_http_api_query none;
    json_t *j = NULL;
    int found = 1, limit, rc;
    int64_t task_id = 0;

    ZB_ASSERT_ARG(out && status && src && src->queue && r);
    if (qry == NULL)
        qry = &none;
    *status = 200;
    switch (r->kind) {
    case ZB_ROUTE_API_FLEET:
        rc = fleet(&j, ctx, src);
        break;
    case ZB_ROUTE_API_WAREHOUSES:
        rc = warehouses(&j, ctx, src);
        break;
    case ZB_ROUTE_API_WAREHOUSE:
        rc = warehouse(&j, &found, ctx, src, r->warehouse);
        break;
    case ZB_ROUTE_API_TABLE:
        rc = table(&j, &found, ctx, src, r->warehouse, r->table);
        break;
    case ZB_ROUTE_API_TABLE_PLAN:
        rc = plan(&j, status, ctx, src, r->warehouse, r->table);
        break;
    case ZB_ROUTE_API_TASKS:
        if (qry->state && qry->state[0] &&
            strcmp(qry->state, ZB_TASK_STATE_SCHEDULED) != 0 &&
            strcmp(qry->state, ZB_TASK_STATE_RUNNING) != 0 &&
            strcmp(qry->state, ZB_TASK_STATE_SHOULD_STOP) != 0 &&
            strcmp(qry->state, ZB_TASK_STATE_EXCLUDED) != 0)
            return put_error(out, status, ctx, 400, "state is one of "
                             "scheduled, running, should-stop, excluded");
        rc = live_tasks(&j, ctx, src->queue, qry->state && qry->state[0]
                        ? qry->state : NULL, NULL, NULL);
        break;
    case ZB_ROUTE_API_TASK:
        rc = task(&j, &found, ctx, src, r->task_id);
        break;
    case ZB_ROUTE_API_WORKERS:
        rc = workers(&j, ctx, src->queue);
        break;
    case ZB_ROUTE_API_RUNS:
        /* `zamboni history --json`'s filters and its default limit */
        if ((limit = limit_of(qry->limit, 100)) < 0)
            return put_error(out, status, ctx, 400, "limit is a positive "
                             "integer");
        if (qry->task && qry->task[0] &&
            ((task_id = strtoll(qry->task, NULL, 10)) <= 0))
            return put_error(out, status, ctx, 400, "task is a task id");
        rc = attempts(&j, ctx, src->queue, qry->warehouse, qry->table,
                      task_id, limit, 0);
        break;
    default:
        return put_error(out, status, ctx, 404, "no such endpoint");
    }
    if (rc == ZB_ENOMEM) {
        json_decref(j);
        return rc;
    }
    if (rc < 0) {
        json_decref(j);
        return put_error(out, status, ctx, 503, ctx->err.msg[0]
                         ? ctx->err.msg : zb_rc_name(rc));
    }
    if (!found) {
        json_decref(j);
        return put_error(out, status, ctx, 404, r->kind == ZB_ROUTE_API_TASK
                         ? "no task or attempt has that id"
                         : "nothing is known of that warehouse or table");
    }
    return put(out, ctx, j);
}

/*
 * service/planner/planner_warehouse.c - one warehouse's pass of a cycle:
 * its table config's tables, each loaded and judged (planner_signals.c,
 * planner_due.c) against the last successes in zamboni_attempts and the
 * live tasks, the ones with due operations kept as candidates.
 */
#define ZB_MODULE "planner"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/maintenance_run.h"
#include "service/planner/planner_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* One (table, operation) row: a last success, or a live task. */
typedef struct op_row {
    char *table;
    int op;
    int64_t ms;                    /* the last success (0: none) */
    int64_t any_ms;                /* the last attempt of any outcome */
} op_row;

typedef struct op_rows {
    op_row *v;
    size_t n, cap;
    int oom;
} op_rows;

static void rows_free(op_rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        zb_free(r->v[i].table);
    zb_free(r->v);
    memset(r, 0, sizeof(*r));
}

static int row_cb(void *payload, int n, const char *const *vals)
{
    op_rows *r = payload;
    op_row *row;
    int op;

    if (n < 2 || vals[0] == NULL || vals[1] == NULL)
        return 0;
    if ((op = zb_maint_op_from_name(vals[1])) < 0)
        return 0;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        op_row *v = zb_realloc(r->v, cap * sizeof(*v));

        if (v == NULL) {
            r->oom = 1;
            return 1;
        }
        r->v = v;
        r->cap = cap;
    }
    row = &r->v[r->n];
    if ((row->table = zb_strdup(vals[0])) == NULL) {
        r->oom = 1;
        return 1;
    }
    row->op = op;
    row->ms = n >= 3 && vals[2] ? strtoll(vals[2], NULL, 10) : 0;
    row->any_ms = n >= 4 && vals[3] ? strtoll(vals[3], NULL, 10) : 0;
    r->n++;
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const op_row *)a)->table, ((const op_row *)b)->table);
}

static int load_rows(op_rows *r, zb_queue *q, zb_ctx *ctx, const char *sql,
                     const char *warehouse)
{
    int rc = zb_sqldb_exec(zb_queue_db(q), ctx, ZB_SQL_READ, sql, 1,
                           &warehouse, row_cb, r, NULL);

    if (r->oom)
        return zb_fail_oom(ctx);
    if (rc < 0)
        return rc;
    if (r->n > 1)
        qsort(r->v, r->n, sizeof(r->v[0]), cmp_row);
    return ZB_OK;
}

/* The first row of table in the sorted rows, or NULL. */
static const op_row *rows_find(const op_rows *r, const char *table,
                               size_t *count)
{
    size_t lo = 0, hi = r->n, end;

    *count = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(r->v[mid].table, table) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (end = lo; end < r->n && strcmp(r->v[end].table, table) == 0; end++)
        ;
    *count = end - lo;
    return *count ? &r->v[lo] : NULL;
}

void zb_planner__cands_free(zb_planner_cands *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        zb_free(cs->v[i].ident);
    zb_free(cs->v);
    memset(cs, 0, sizeof(*cs));
}

static int cands_push(zb_planner_cands *cs, zb_ctx *ctx,
                      const zb_planner_candidate *c)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 64;
        zb_planner_candidate *v = zb_realloc(cs->v, cap * sizeof(*v));

        if (v == NULL)
            return zb_fail_oom(ctx);
        cs->v = v;
        cs->cap = cap;
    }
    cs->v[cs->n] = *c;
    cs->v[cs->n].seq = cs->n;
    cs->n++;
    return ZB_OK;
}

/* One table: its signals, its due operations less the live ones. */
static int judge_table(zb_ctx *ctx, zb_catalog *cat,
                       const zb_table_config *tc, const char *ident,
                       char *warehouse, int64_t now_ms,
                       const op_rows *succ, const op_rows *live,
                       zb_planner_cands *cs, const zb_planner *p,
                       zb_planner_counters *delta)
{
    zb_planner_candidate c;
    zb_planner_signals s;
    zb_tc_effective eff;
    zb_table *t = NULL;
    const op_row *row;
    size_t n;
    int rc, any = 0;

    zb_table_config_effective(&eff, tc, ident);
    rc = zb_catalog_load_table(cat, ctx, ident, &t);
    if (rc == ZB_OK)
        rc = zb_planner_read_signals(&s, ctx, cat, t, &eff, now_ms);
    zb_table_free(t);
    if (rc == ZB_ENOMEM)
        return rc;
    if (rc < 0) {
        delta->table_errors++;
        zb_planner__log(p, "planner event=table-error warehouse=%s table=%s "
                        "error=%s", warehouse, ident, ctx->err.msg);
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    delta->tables_seen++;
    if ((row = rows_find(succ, ident, &n)) != NULL)
        for (size_t i = 0; i < n; i++) {
            s.last_success_ms[row[i].op] = row[i].ms;
            if (row[i].op == ZB_MAINT_COMPACT)
                s.last_compact_attempt_ms = row[i].any_ms;
        }
    memset(&c, 0, sizeof c);
    zb_planner_due(c.due, &s, &eff);
    if ((row = rows_find(live, ident, &n)) != NULL)
        for (size_t i = 0; i < n; i++)
            c.due[row[i].op] = 0;  /* already queued or running */
    for (int op = 0; op < ZB_PLANNER_OPS; op++) {
        any |= c.due[op];
        c.est_memory[op] = zb_planner_estimate_memory(&s, op);
    }
    if (!any)
        return ZB_OK;
    c.priority = zb_planner_priority(&s, c.due);
    c.warehouse = warehouse;
    if ((c.ident = zb_strdup(ident)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = cands_push(cs, ctx, &c)) < 0)
        zb_free(c.ident);
    return rc;
}

/* Per (table, operation): the last success and the last attempt; an
 * eviction or a cancel is no run. */
static const char succ_sql[] =
    "SELECT table_name, operation, max(CASE WHEN outcome = 'success' THEN "
    "finished_ms END), max(finished_ms) FROM zamboni_attempts WHERE "
    "warehouse = ? AND outcome NOT IN ('evicted', 'cancelled') GROUP BY "
    "table_name, operation";
static const char live_sql[] =
    "SELECT table_name, operation FROM zamboni_tasks WHERE warehouse = ?";

int zb_planner__warehouse(zb_queue *q, zb_ctx *ctx,
                          const zb_planner_host *host, char *warehouse,
                          int64_t now_ms, zb_planner_cands *cs,
                          zb_planner_counters *delta, const zb_planner *p)
{
    const zb_table_config *tc;
    zb_catalog *cat = NULL;
    op_rows succ, live;
    int rc;

    memset(&succ, 0, sizeof succ);
    memset(&live, 0, sizeof live);
    tc = host->table_config ? host->table_config(host->payload, warehouse)
                            : NULL;
    if (tc == NULL) {
        zb_planner__log(p, "planner event=skip warehouse=%s reason=no-table-"
                        "config", warehouse);
        return ZB_OK;
    }
    if (host->open_catalog == NULL ||
        (rc = host->open_catalog(host->payload, ctx, warehouse, &cat)) < 0 ||
        cat == NULL) {
        zb_planner__log(p, "planner event=skip warehouse=%s reason=catalog "
                        "error=%s", warehouse, ctx->err.msg);
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    if ((rc = load_rows(&succ, q, ctx, succ_sql, warehouse)) == ZB_OK &&
        (rc = load_rows(&live, q, ctx, live_sql, warehouse)) == ZB_OK) {
        size_t n = zb_table_config_table_count(tc);

        for (size_t i = 0; i < n && rc == ZB_OK; i++) {
            if (zb_ctx_stopped(ctx))
                break;
            rc = judge_table(ctx, cat, tc, zb_table_config_table(tc, i),
                             warehouse, now_ms, &succ, &live, cs, p, delta);
        }
    }
    rows_free(&succ);
    rows_free(&live);
    if (host->release_catalog != NULL)
        host->release_catalog(host->payload, warehouse, cat);
    return rc;
}

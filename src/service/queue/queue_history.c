/*
 * service/queue/queue_history.c - the run history: the attempts of a
 * task or of all, and the runs `zamboni maintenance` makes without one.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "service/queue/queue_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define ATTEMPT_COLS                                                        \
    "task_id, attempt, warehouse, table_name, operation, size_class, "     \
    "worker_id, outcome, message, started_ms, finished_ms, "               \
    "before_data_files, before_data_bytes, before_delete_files, "          \
    "before_snapshots, before_metadata_bytes, after_data_files, "          \
    "after_data_bytes, after_delete_files, after_snapshots, "              \
    "after_metadata_bytes, report"
#define ATTEMPT_NCOLS 22

typedef struct attempts_job {
    zb_attempt_fn fn;
    void *payload;
    zb_attempt a;
} attempts_job;

static void health_from(zb_table_health *h, const char *const *v)
{
    memset(h, 0, sizeof(*h));
    h->known = v[0] != NULL;
    h->data_files = zb_queue__num(v[0]);
    h->data_bytes = zb_queue__num(v[1]);
    h->delete_files = zb_queue__num(v[2]);
    h->snapshots = zb_queue__num(v[3]);
    h->metadata_bytes = zb_queue__num(v[4]);
}

static int attempt_row(void *payload, int n, const char *const *v)
{
    attempts_job *j = payload;
    zb_attempt *a = &j->a;

    if (n < ATTEMPT_NCOLS)
        return 0;
    memset(a, 0, sizeof(*a));
    a->task_id = zb_queue__num(v[0]);
    a->attempt = (int)zb_queue__num(v[1]);
    zb_queue__str(a->warehouse, sizeof(a->warehouse), v[2]);
    zb_queue__str(a->table, sizeof(a->table), v[3]);
    zb_queue__str(a->operation, sizeof(a->operation), v[4]);
    zb_queue__str(a->size_class, sizeof(a->size_class), v[5]);
    zb_queue__str(a->worker_id, sizeof(a->worker_id), v[6]);
    zb_queue__str(a->outcome, sizeof(a->outcome), v[7]);
    zb_queue__str(a->message, sizeof(a->message), v[8]);
    a->started_ms = zb_queue__num(v[9]);
    a->finished_ms = zb_queue__num(v[10]);
    health_from(&a->before, v + 11);
    health_from(&a->after, v + 16);
    a->report = v[21];
    return j->fn(j->payload, a);
}

int zb_queue_attempts(zb_queue *q, zb_ctx *ctx, int64_t task_id, int limit,
                      zb_attempt_fn fn, void *payload)
{
    attempts_job *j;
    char idt[24], lim[24];
    const char *params[2];
    int rc;

    ZB_ASSERT_ARG(q != NULL && fn != NULL);
    if ((j = zb_calloc(1, sizeof(*j))) == NULL)
        return zb_fail_oom(ctx);
    j->fn = fn;
    j->payload = payload;
    params[0] = zb_queue__i64(lim, limit > 0 ? limit : 100);
    params[1] = zb_queue__i64(idt, task_id);
    rc = task_id > 0
             ? zb_sqldb_exec(q->db, ctx, ZB_SQL_READ, "SELECT " ATTEMPT_COLS
                             " FROM zamboni_attempts WHERE task_id = "
                             "CAST(? AS BIGINT) ORDER BY id DESC LIMIT "
                             "CAST(? AS INTEGER)", 2,
                             (const char *const[]){ params[1], params[0] },
                             attempt_row, j, NULL)
             : zb_sqldb_exec(q->db, ctx, ZB_SQL_READ, "SELECT " ATTEMPT_COLS
                             " FROM zamboni_attempts ORDER BY id DESC LIMIT "
                             "CAST(? AS INTEGER)", 1, params, attempt_row, j,
                             NULL);
    zb_free(j);
    if (rc < 0 && ctx->err.code != ZB_OK)
        zb_err_prefix(ctx, "reading attempts");
    return rc;
}

int zb_queue_attempts_where(zb_queue *q, zb_ctx *ctx, const char *warehouse,
                            const char *table, int64_t task_id, int limit,
                            zb_attempt_fn fn, void *payload)
{
    attempts_job *j;
    char sql[1024], idt[24], lim[24];
    const char *params[4];
    int n = 0, rc;

    ZB_ASSERT_ARG(q != NULL && fn != NULL);
    if ((j = zb_calloc(1, sizeof(*j))) == NULL)
        return zb_fail_oom(ctx);
    j->fn = fn;
    j->payload = payload;
    snprintf(sql, sizeof sql, "SELECT " ATTEMPT_COLS " FROM zamboni_attempts "
             "WHERE 1 = 1%s%s%s ORDER BY id DESC LIMIT CAST(? AS INTEGER)",
             warehouse != NULL && warehouse[0] ? " AND warehouse = ?" : "",
             table != NULL && table[0] ? " AND table_name = ?" : "",
             task_id > 0 ? " AND task_id = CAST(? AS BIGINT)" : "");
    if (warehouse != NULL && warehouse[0])
        params[n++] = warehouse;
    if (table != NULL && table[0])
        params[n++] = table;
    if (task_id > 0)
        params[n++] = zb_queue__i64(idt, task_id);
    params[n++] = zb_queue__i64(lim, limit > 0 ? limit : 100);
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_READ, sql, n, params, attempt_row,
                       j, NULL);
    zb_free(j);
    if (rc < 0 && ctx->err.code != ZB_OK)
        zb_err_prefix(ctx, "reading attempts");
    return rc;
}

int zb_queue_record_run(zb_queue *q, zb_ctx *ctx, const char *warehouse,
                        const char *table, const char *operation,
                        const zb_attempt_result *r)
{
    zb_queue_attempt_params ap;
    char host[256] = "";
    int rc;

    ZB_ASSERT_ARG(q != NULL && table != NULL && operation != NULL &&
                  r != NULL);
    if (gethostname(host, sizeof(host) - 1) != 0)
        snprintf(host, sizeof(host), "localhost");
    zb_queue__attempt_params(&ap, 0, 1, warehouse, table, operation, "",
                             host, r);
    rc = zb_sqldb_exec(q->db, ctx, ZB_SQL_WRITE, ZB_QUEUE_ATTEMPT_INSERT,
                       ZB_QUEUE_ATTEMPT_NPARAMS, ap.v, NULL, NULL, NULL);
    if (rc < 0)
        zb_err_prefix(ctx, "recording the run of %s on %s", operation, table);
    return rc;
}

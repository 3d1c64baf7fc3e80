/*
 * service/queue/queue_int.h - private to src/service/queue: the handle,
 * the SQL of both dialects written once with tokens, and the row readers
 * the files of the queue share.
 */
#ifndef ZB_SERVICE_QUEUE_INT_H
#define ZB_SERVICE_QUEUE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "service/queue/queue.h"

struct zb_queue {
    zb_sqldb *db;
    int pg;                        /* zb_sqldb_is_postgres */
    zb_size_classes classes;       /* enqueue's class when none is given */
};

/*
 * SQL templates: "@NOW" is the database clock in ms (PostgreSQL:
 * clock_timestamp(), SQLite: julianday('now')), "@SKIP" the row lock of
 * take (PostgreSQL: FOR UPDATE SKIP LOCKED, SQLite: nothing: its one
 * writer is serialised), "@SHARE" the fence's lock (FOR SHARE), "@ID" an
 * identity primary key. Expanded into out; ZB_EINVAL when it does not fit.
 */
int zb_queue__sql(char *out, size_t size, const zb_queue *q,
                  const char *tmpl);

/* zb_sqldb_exec / zb_sqldb_tx_exec of an expanded template. */
int zb_queue__exec(const zb_queue *q, zb_ctx *ctx, int mode,
                   const char *tmpl, int n, const char *const *params,
                   zb_sql_row_cb fn, void *payload, int64_t *changes_out);
int zb_queue__tx_exec(const zb_queue *q, zb_sqldb_tx *tx, zb_ctx *ctx,
                      const char *tmpl, int n, const char *const *params,
                      zb_sql_row_cb fn, void *payload, int64_t *changes_out);

/* Decimal text of v in buf (24 bytes); returns buf. */
const char *zb_queue__i64(char buf[24], int64_t v);
/* A value as a number: NULL and junk are 0. */
int64_t zb_queue__num(const char *v);
/* Copies v (NULL: "") into out, cut to size. */
void zb_queue__str(char *out, size_t size, const char *v);

/* The columns of a task row, in the order zb_queue__task_row reads. */
#define ZB_QUEUE_TASK_COLS                                                  \
    "id, warehouse, table_name, operation, size_class, est_memory_bytes, " \
    "est_unspillable_bytes, est_cores, priority, state, scheduled_for_ms, " \
    "attempt, max_attempts, lease_expires_ms, heartbeat_ms, created_ms, "  \
    "worker_id, progress, options, last_message"
#define ZB_QUEUE_TASK_NCOLS 20

/* Row callback: fills the zb_task payload (the first row only). */
int zb_queue__task_row(void *payload, int n, const char *const *vals);
void zb_queue__task_from_row(zb_task *t, int n, const char *const *vals);

/* The attempts row as finish, sweep, cancel and record_run insert it:
 * 22 parameters (NULL task_id for a CLI run; health NULL when unknown). */
#define ZB_QUEUE_ATTEMPT_INSERT                                             \
    "INSERT INTO zamboni_attempts (task_id, attempt, warehouse, "          \
    "table_name, operation, size_class, worker_id, outcome, message, "     \
    "started_ms, finished_ms, report, before_data_files, "                 \
    "before_data_bytes, before_delete_files, before_snapshots, "           \
    "before_metadata_bytes, after_data_files, after_data_bytes, "          \
    "after_delete_files, after_snapshots, after_metadata_bytes) VALUES "   \
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define ZB_QUEUE_ATTEMPT_NPARAMS 22

typedef struct zb_queue_attempt_params {
    char task_id[24], attempt[24], started[24], finished[24];
    char health[10][24];
    const char *v[ZB_QUEUE_ATTEMPT_NPARAMS];
} zb_queue_attempt_params;

/* Fills p for an attempt of t (task_id 0: NULL) with result r. */
void zb_queue__attempt_params(zb_queue_attempt_params *p, int64_t task_id,
                              int attempt, const char *warehouse,
                              const char *table, const char *operation,
                              const char *size_class, const char *worker_id,
                              const zb_attempt_result *r);

/* The op_rank of an operation: its index in zb_maint_op_names, or -1. */
int zb_queue__op_rank(const char *operation);

/* The lease states a holder may be in (SQL list). */
#define ZB_QUEUE_HELD_STATES "('running', 'should-stop')"

#endif

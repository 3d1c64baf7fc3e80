/*
 * service/queue/queue.h - the task queue in a SQL database (SQLite or
 * PostgreSQL, catalog/sql/sqldb.h): live tasks, the attempts that ran
 * them (the run history), the workers that take them. Seeds 000, 001 and
 * 004; DESIGN.md "Service"; issue 17.
 *
 *     zb_queue *q = NULL;
 *     rc = zb_queue_open(&q, ctx, db);             (checks the schema)
 *     rc = zb_queue_take(q, ctx, &take, &task, &got);
 *     ... zb_queue_fence(q, &task, &fence, ...); run the operation ...
 *     rc = zb_queue_heartbeat(q, ctx, &task, lease_ms, progress, &lease);
 *     rc = zb_queue_finish(q, ctx, &task, &result);
 *     zb_queue_close(q);
 *
 * Tables (the schema is versioned, zb_queue_migrate):
 *   zamboni_schema(version)               one row: the applied version
 *   zamboni_tasks                         live tasks, unique (warehouse,
 *                                         table_name, operation)
 *   zamboni_attempts                      every finished attempt, unique
 *                                         (task_id, attempt); CLI runs of
 *                                         maintenance have task_id NULL
 *   zamboni_workers                       registered workers
 *   zamboni_leader(name, holder,          leader leases (migration 2):
 *                  expires_ms)            serve's planner
 *
 * States: "scheduled" (due once scheduled_for has passed), "running",
 * "should-stop" (cancel asked; the worker sees it at its heartbeat),
 * "excluded" (past max_attempts; kept with its last message until
 * requeued by hand). A task that succeeds or is cancelled leaves the live
 * table; its attempts stay.
 *
 * Fencing: the attempt number, incremented by every take, is the fencing
 * token. Heartbeats, progress, finishing and commits are keyed by (task,
 * attempt); one for a past attempt changes nothing and answers
 * ZB_LEASE_LOST / ZB_EFENCED, so the worker stops.
 *
 * Times are the database's clock (zb_sqldb_now_ms), in ms since the epoch,
 * so workers on hosts with skewed clocks agree on leases.
 *
 * Statements: each call is one statement or one short transaction on the
 * write connection; none holds a transaction across other I/O. Lists and
 * shows read on the read pool.
 */
#ifndef ZB_SERVICE_QUEUE_H
#define ZB_SERVICE_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "catalog/sql/sqldb.h"
#include "service/size_class.h"
#include "zamboni/zamboni.h"

/* The schema version this build writes and reads. */
#define ZB_QUEUE_SCHEMA_VERSION 2

typedef struct zb_queue zb_queue;

/*
 * Applies the migrations db lacks, in order, each in its own transaction
 * (`zamboni db migrate`); *from and *to (may be NULL) the versions before
 * and after. Two processes migrating at once: one applies, the other finds
 * it done. ZB_EREFUSED when the database is newer than this build (message
 * names both versions).
 */
int zb_queue_migrate(zb_sqldb *db, zb_ctx *ctx, int *from, int *to);

/*
 * Opens the queue in db (a reference is taken) after checking, never
 * applying, the schema: ZB_EREFUSED with "run `zamboni db migrate`" when
 * it is missing or older, ZB_EREFUSED naming both versions when it is
 * newer than this build.
 */
int zb_queue_open(zb_queue **out, zb_ctx *ctx, zb_sqldb *db);
void zb_queue_close(zb_queue *q);
zb_sqldb *zb_queue_db(const zb_queue *q);       /* borrowed */

/* The schema version applied in db (0: none), without refusing any
 * (maintenance's "is a queue configured and migrated"). */
int zb_queue_schema_version(zb_sqldb *db, zb_ctx *ctx, int *version);

/* The classes enqueue picks from when a task names none (copied; NULL
 * or empty: zb_size_classes_default, the one open starts with). */
void zb_queue_set_size_classes(zb_queue *q, const zb_size_classes *classes);

/* ---- tasks ---- */

#define ZB_TASK_STATE_SCHEDULED "scheduled"
#define ZB_TASK_STATE_RUNNING "running"
#define ZB_TASK_STATE_SHOULD_STOP "should-stop"
#define ZB_TASK_STATE_EXCLUDED "excluded"

typedef struct zb_task {
    int64_t id;
    char warehouse[256];
    char table[1024];              /* as the catalog names it: "ns.tbl" */
    char operation[32];            /* zb_maint_op_names: "compact", ... */
    char size_class[64];
    uint64_t est_memory_bytes;     /* what its plan needs */
    uint64_t est_unspillable_bytes;/* of that, what cannot spill */
    int est_cores;
    int priority;                  /* higher first */
    char state[16];
    int64_t scheduled_for_ms;
    int attempt;                   /* the fencing token (0: never taken) */
    int max_attempts;
    int64_t lease_expires_ms;      /* 0: none */
    int64_t heartbeat_ms;          /* 0: none */
    int64_t created_ms;
    char worker_id[256];           /* "" when not running */
    char progress[1024];           /* JSON object text, "" when none */
    char options[4096];            /* JSON object text, "" when none */
    char last_message[1024];       /* the last attempt's message */
} zb_task;

/* What enqueue inserts. Strings are copied. */
typedef struct zb_task_new {
    const char *warehouse;
    const char *table;
    const char *operation;         /* zb_maint_op_names */
    const char *size_class;        /* NULL: zb_size_class_for(estimate) */
    uint64_t est_memory_bytes;
    uint64_t est_unspillable_bytes;
    int est_cores;                 /* <= 0: 1 */
    int priority;
    int64_t delay_ms;              /* due this long from now */
    int max_attempts;              /* <= 0: 5 */
    const char *options;           /* JSON object text or NULL */
} zb_task_new;

/*
 * Inserts the task unless one is live for its (warehouse, table,
 * operation) (the unique key: the insert does nothing then, *inserted 0).
 * ZB_EREFUSED when the queue holds max_tasks live tasks already (it
 * never displaces a live task; serve's planner may replace excluded
 * ones).
 */
int zb_queue_enqueue(zb_queue *q, zb_ctx *ctx, const zb_task_new *t,
                     int64_t max_tasks, int *inserted, int64_t *id_out);

/* What zb_queue_enqueue_displace did. */
typedef enum zb_displace_outcome {
    ZB_DISPLACE_INSERTED = 1,      /* below the cap: inserted */
    ZB_DISPLACE_EVICTED,           /* at the cap: an excluded task made
                                      room (evicted_id), then inserted */
    ZB_DISPLACE_LIVE,              /* a live task holds the key: nothing */
    ZB_DISPLACE_REFUSED            /* at the cap, nothing excluded to
                                      displace: not created */
} zb_displace_outcome;

typedef struct zb_displace_result {
    zb_displace_outcome outcome;
    int64_t id;                    /* the new or the live task; 0 refused */
    int64_t evicted_id;            /* EVICTED: the excluded task removed */
} zb_displace_result;

/*
 * serve's enqueue (queue_displace.c): in one transaction, nothing when a
 * live task holds the key; below max_tasks live tasks (<= 0: no cap) an
 * insert; at the cap the excluded task of lowest priority (then oldest)
 * is deleted, its removal logged in zamboni_attempts (outcome "evicted",
 * next attempt number), and the task inserted; with no excluded task the
 * task is refused. Scheduled, running and should-stop tasks are never
 * displaced. Refused is ZB_OK with out->outcome ZB_DISPLACE_REFUSED.
 */
int zb_queue_enqueue_displace(zb_queue *q, zb_ctx *ctx, const zb_task_new *t,
                              int64_t max_tasks, zb_displace_result *out);

typedef struct zb_take_opts {
    const char *worker_id;
    const char *size_class;
    int64_t lease_ms;
} zb_take_opts;

/*
 * Takes the due "scheduled" task of o->size_class with the highest
 * priority, oldest first, whose table has no live task of an earlier
 * operation (runbook order; excluded ones do not block), in one
 * statement (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one write
 * statement): state running, attempt + 1, lease from now, worker set.
 * *got 0 when none is due.
 */
int zb_queue_take(zb_queue *q, zb_ctx *ctx, const zb_take_opts *o,
                  zb_task *out, int *got);

typedef enum zb_lease_state {
    ZB_LEASE_HELD,                 /* go on */
    ZB_LEASE_STOP,                 /* should-stop: cancel asked */
    ZB_LEASE_LOST                  /* another attempt holds the task now,
                                      or it is gone: stop, commit nothing */
} zb_lease_state;

/*
 * Extends the lease of t's attempt by lease_ms from now and records the
 * heartbeat and progress (JSON object text; NULL keeps the last).
 */
int zb_queue_heartbeat(zb_queue *q, zb_ctx *ctx, const zb_task *t,
                       int64_t lease_ms, const char *progress,
                       zb_lease_state *state);

/* The health of a table before or after an attempt (issue 17). */
typedef struct zb_table_health {
    int known;                     /* 0: not measured */
    int64_t data_files, data_bytes, delete_files, snapshots, metadata_bytes;
} zb_table_health;

#define ZB_OUTCOME_SUCCESS "success"
#define ZB_OUTCOME_FAILED "failed"
#define ZB_OUTCOME_LOST "lost"
#define ZB_OUTCOME_ABANDONED "abandoned"
#define ZB_OUTCOME_CANCELLED "cancelled"
#define ZB_OUTCOME_EVICTED "evicted"   /* displaced at the cap (excluded) */

typedef struct zb_attempt_result {
    const char *outcome;           /* ZB_OUTCOME_* */
    const char *message;           /* one line; NULL: none */
    int64_t started_ms;            /* the worker's clock is fine here */
    int64_t finished_ms;
    const char *report;            /* the operation's report lines, or a
                                      JSON object; NULL: none */
    zb_table_health before, after;
    int64_t retry_delay_ms;        /* abandoned: when to run again (<= 0:
                                      120 s); failed: <= 0 backoff */
} zb_attempt_result;

/*
 * Ends t's attempt: records it in zamboni_attempts, then
 *   success, cancelled    the live task is deleted;
 *   failed                scheduled again after backoff (30 s * 2^(attempt
 *                         - 1), at most 1 h) while attempt < max_attempts,
 *                         else excluded with the message;
 *   abandoned             scheduled again after retry_delay_ms; the
 *                         attempt does not count against max_attempts
 *                         (the attempt number is the fencing token and
 *                         still grows, so max_attempts grows with it);
 * all keyed by (id, attempt): for a past attempt nothing changes and the
 * answer is ZB_EFENCED.
 */
int zb_queue_finish(zb_queue *q, zb_ctx *ctx, const zb_task *t,
                    const zb_attempt_result *r);

/*
 * Finds running and should-stop tasks whose lease expired, logs each
 * attempt "lost" (message naming the worker and the expiry) and
 * schedules the task again now, one class up in classes (the same when it
 * is the largest), or excludes it when attempts are spent. *n_lost (may be
 * NULL) the tasks swept. Run by every worker between tasks and by serve.
 */
int zb_queue_sweep(zb_queue *q, zb_ctx *ctx, const zb_size_classes *classes,
                   int *n_lost);

/*
 * The commit fence of t's attempt (catalog.h): the task row with this id
 * and attempt is running (or should-stop) and its lease has not expired
 * by the database's clock. buf (at least 64 bytes each) holds the
 * parameter texts and the what; *out points into them and into q.
 */
typedef struct zb_queue_fence_buf {
    char id[24], attempt[16], what[96];
} zb_queue_fence_buf;

void zb_queue_fence(const zb_queue *q, const zb_task *t, zb_commit_fence *out,
                    zb_queue_fence_buf *buf);

/* ---- operating by hand (zamboni tasks) ---- */

/* Live tasks, by id. state NULL: all. fn non-zero stops. */
typedef int (*zb_task_fn)(void *payload, const zb_task *t);
int zb_queue_list(zb_queue *q, zb_ctx *ctx, const char *state,
                  zb_task_fn fn, void *payload);
/* ZB_ENOTFOUND when no live task has that id. */
int zb_queue_get(zb_queue *q, zb_ctx *ctx, int64_t id, zb_task *out);
/*
 * Cancel: a scheduled or excluded task is deleted (attempt logged
 * "cancelled"); a running one goes to should-stop (its worker stops at
 * the next heartbeat and logs it). ZB_ENOTFOUND when there is none.
 */
int zb_queue_cancel(zb_queue *q, zb_ctx *ctx, int64_t id);
/* Requeue an excluded task: scheduled now with its attempts allowed
 * again (max_attempts grows by the attempts spent). ZB_EREFUSED when it
 * is not excluded. */
int zb_queue_requeue(zb_queue *q, zb_ctx *ctx, int64_t id);

/* Counts of live tasks per state for one class (NULL: all), for /demand
 * and the bench. */
typedef struct zb_queue_counts {
    int64_t scheduled, due, running, should_stop, excluded;
} zb_queue_counts;
int zb_queue_counts_get(zb_queue *q, zb_ctx *ctx, const char *size_class,
                        zb_queue_counts *out);

/* ---- attempts (the run history) ---- */

typedef struct zb_attempt {
    int64_t task_id;               /* 0: a CLI run (no task) */
    int attempt;
    char warehouse[256], table[1024], operation[32], size_class[64];
    char worker_id[256];
    char outcome[16];
    char message[1024];
    int64_t started_ms, finished_ms;
    zb_table_health before, after;
    const char *report;            /* borrowed for the callback; NULL: none */
} zb_attempt;

typedef int (*zb_attempt_fn)(void *payload, const zb_attempt *a);
/* Attempts of one task (task_id > 0) or all (0), newest first, at most
 * limit (<= 0: 100). */
int zb_queue_attempts(zb_queue *q, zb_ctx *ctx, int64_t task_id, int limit,
                      zb_attempt_fn fn, void *payload);

/* The same, filtered: warehouse, table (NULL or "": any), task_id (0:
 * any); `zamboni history [--warehouse W] [TABLE]`. */
int zb_queue_attempts_where(zb_queue *q, zb_ctx *ctx, const char *warehouse,
                            const char *table, int64_t task_id, int limit,
                            zb_attempt_fn fn, void *payload);
/*
 * Records a run that no task drove (`zamboni maintenance` from the
 * command line) as an attempt with task_id NULL and worker_id the host.
 */
int zb_queue_record_run(zb_queue *q, zb_ctx *ctx, const char *warehouse,
                        const char *table, const char *operation,
                        const zb_attempt_result *r);

/* ---- workers ---- */

typedef struct zb_worker_row {
    const char *id;                /* unique: host-pid-n */
    const char *host;
    const char *size_class;
    uint64_t memory_bytes;
    int cores;
    uint64_t spill_bytes;
} zb_worker_row;

/* What a worker's heartbeat carries (serve shows and exports them). */
typedef struct zb_worker_figures {
    int64_t task_id;               /* 0: idle */
    uint64_t budget_reserved_bytes;
    double budget_wait_seconds;
    uint64_t rows_done, bytes_done;
} zb_worker_figures;

int zb_queue_worker_register(zb_queue *q, zb_ctx *ctx,
                             const zb_worker_row *w);
int zb_queue_worker_heartbeat(zb_queue *q, zb_ctx *ctx, const char *id,
                              const zb_worker_figures *f);
int zb_queue_worker_deregister(zb_queue *q, zb_ctx *ctx, const char *id);

/* ---- serve's figures (queue_figures.c): /demand and /metrics ---- */

/*
 * The demand of a class, for KEDA: its "scheduled" tasks due now that
 * take would hand out (no live earlier operation of their table, as
 * zb_queue_take's runbook order), plus its "running" ones. Tasks in
 * backoff (not yet due) or waiting for an earlier operation do not count.
 */
int zb_queue_demand(zb_queue *q, zb_ctx *ctx, const char *size_class,
                    int64_t *out);

/* One row of a grouped figure: its labels a and b (b NULL when the
 * figure has one) and the value. Non-zero stops. */
typedef int (*zb_queue_group_fn)(void *payload, const char *a,
                                 const char *b, int64_t v);

/* Live tasks per (size_class a, state b). */
int zb_queue_counts_by_class(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                             void *payload);
/* Every attempt recorded (CLI runs included) per outcome a. */
int zb_queue_outcome_totals(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                            void *payload);
/* Per warehouse a, the finished_ms of its last successful attempt. */
int zb_queue_last_success(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                          void *payload);
/* Per operation a and kind b ("data" or "metadata"), the bytes the
 * successful attempts whose health before and after is known took off
 * their tables (before - after where that is positive). */
int zb_queue_bytes_reclaimed(zb_queue *q, zb_ctx *ctx, zb_queue_group_fn fn,
                             void *payload);
/*
 * From the compaction attempts' reports (the "T: rewrote N file(s) (B
 * bytes)" line zb_compact_report writes): the input bytes rewritten by
 * committed groups, and the commit conflicts: groups dropped because a
 * concurrent commit changed their files (attempts not stopped by a drain
 * or cancel), plus attempts of any operation that failed on "another
 * writer committed first".
 */
typedef struct zb_queue_rewrite_totals {
    int64_t bytes_rewritten;
    int64_t commit_conflicts;
} zb_queue_rewrite_totals;
int zb_queue_rewrite_totals_get(zb_queue *q, zb_ctx *ctx,
                                zb_queue_rewrite_totals *out);
/* Takes of tasks: the task attempts recorded (cancellations aside) plus
 * the tasks running now. */
int zb_queue_assigned_total(zb_queue *q, zb_ctx *ctx, int64_t *out);

/* A registered worker and the figures of its last heartbeat. */
typedef struct zb_worker_info {
    const char *id, *host, *size_class;
    int64_t heartbeat_ms;
    zb_worker_figures f;
    uint64_t memory_bytes;         /* what it registered with */
    int cores;
    uint64_t spill_bytes;
    int64_t started_ms;
} zb_worker_info;

typedef int (*zb_worker_info_fn)(void *payload, const zb_worker_info *w);
/* The registered workers, by id. */
int zb_queue_workers_list(zb_queue *q, zb_ctx *ctx, zb_worker_info_fn fn,
                          void *payload);

/* ---- the clock (queue_clock.c) ---- */

/* The host's clock minus the database's (zb_sqldb_now_ms), in ms, the
 * round trip halved; serve and worker warn past a minute at start. */
#define ZB_QUEUE_CLOCK_SKEW_WARN_MS 60000
int zb_queue_clock_skew_ms(zb_queue *q, zb_ctx *ctx, int64_t *skew_ms);

/* ---- leader leases (queue_leader.c, migration 2) ---- */

/*
 * Takes or renews lease name for holder, for lease_ms from now by the
 * database's clock, in one statement (an upsert that applies only where
 * the lease is free, expired or already holder's): *held 1 when holder
 * has it now, 0 when another holds it unexpired.
 */
int zb_queue_leader_acquire(zb_queue *q, zb_ctx *ctx, const char *name,
                            const char *holder, int64_t lease_ms, int *held);
/* Gives it up when holder has it (a clean stop), so another takes it at
 * once. */
int zb_queue_leader_release(zb_queue *q, zb_ctx *ctx, const char *name,
                            const char *holder);
/* The unexpired holder of name (holder "" when none) and its expiry. */
int zb_queue_leader_get(zb_queue *q, zb_ctx *ctx, const char *name,
                        char *holder, size_t size, int64_t *expires_ms);

#endif

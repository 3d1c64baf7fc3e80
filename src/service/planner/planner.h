/*
 * service/planner/planner.h - `zamboni serve`'s planner (issue 18; seed
 * 004): for each warehouse it serves, for each table of its table config,
 * cheap health signals from the metadata and the manifest list decide
 * which of the six operations are due (schedule.<op>.min_interval_minutes
 * in table-config.json bounds how soon one runs again), and tasks are
 * created on demand: per cycle no more than the fleet's free capacity per
 * class, never the backlog, in runbook order, the tables with most to gain
 * first with an age term. The queue's hard cap holds; a full queue lets a
 * new task displace only excluded tasks, lowest priority first. One
 * replica plans at a time: a leader lease in the queue's database.
 *
 *     zb_planner *p = NULL;
 *     zb_planner_opts o = ZB_PLANNER_OPTS_INIT;
 *     o.queue = q; o.classes = &classes; o.warehouses = whs; ...
 *     rc = zb_planner_new(&p, ctx, &o);
 *     while (!stop) { rc = zb_planner_cycle(p, ctx); sleep(interval); }
 *     zb_planner_free(p);
 *
 * This is the contract between serve's planner and its HTTP side
 * (service/http/, cli/verbs/verb_serve.c); either side may add to it.
 *
 * Signals (zb_planner_read_signals), per table, cheap: the current
 * metadata and its current snapshot's manifest list only (no manifest is
 * read): the snapshot summary's total-data-files, total-files-size,
 * total-delete-files, total-position-deletes, total-equality-deletes
 * (when a writer left them out: the list's added + existing files counts,
 * and no size), the list's manifests (data and delete), the snapshots and
 * their ages, the table properties against the table config; from
 * zamboni_attempts the last success of each operation on the table.
 *
 * Due rules (zb_planner_due), each operation only when its section of the
 * table config is enabled (expire_snapshots, remove_orphan_files,
 * remove_dangling_deletes, rewrite_manifests; compact and
 * apply-properties have no switch) and its last success is at least
 * schedule.<op>.min_interval_minutes ago (default
 * ZB_PLANNER_DEFAULT_INTERVAL_MIN, remove-orphans
 * ZB_PLANNER_ORPHANS_INTERVAL_MIN):
 *   compact                  delete files exist, or at least
 *                            min_input_files data files whose average
 *                            size is below half the target
 *                            (target_file_size_bytes, else
 *                            write.target-file-size-bytes, else 128 MiB)
 *   apply-properties         a property the table config declares
 *                            (zb_table_config_props) is absent or differs
 *   remove-dangling-deletes  delete files exist
 *   rewrite-manifests        the list holds min_input_manifests manifests
 *                            or more (default 2)
 *   expire                   snapshots older than the max snapshot age,
 *                            other than the current one, beyond
 *                            min_snapshots_to_keep (config, properties,
 *                            defaults as ops/table_settings.h resolves)
 *   remove-orphans           a compaction attempt (any outcome: runs
 *                            stopped before their commit leave files)
 *                            finished on the table since its last orphan
 *                            sweep; at most once per its interval
 *
 * Capacity per class, each cycle: the free slots of the class's live
 * workers (zamboni_workers rows whose heartbeat is younger than
 * worker_stale_ms; a worker runs one task at a time, so 1 less its
 * running tasks), or the class's max_jobs when none is alive (scaling
 * from zero), less the class's scheduled tasks already queued; a cycle
 * creates no more. The class: zb_size_class_for on the task's memory
 * estimate (zb_planner_estimate_memory).
 *
 * Order: tables by priority (zb_planner_priority: gain per byte plus an
 * age term, so none starves), highest first; a table's due operations
 * are enqueued together in runbook order with the table's priority (the
 * queue's take keeps the order); at the first that does not fit (its
 * class full, or the queue refused it) the table's later operations wait
 * for a next cycle.
 */
#ifndef ZB_SERVICE_PLANNER_H
#define ZB_SERVICE_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "ops/config/table_config.h"
#include "service/queue/queue.h"
#include "service/size_class.h"
#include "zamboni/zamboni.h"

typedef struct zb_planner zb_planner;

/* What the CLI supplies (nothing of the CLI leaks below it). */
typedef struct zb_planner_host {
    /* A catalog handle for warehouse, used by the planner's thread only. */
    int (*open_catalog)(void *payload, zb_ctx *ctx, const char *warehouse,
                        zb_catalog **out);
    /* The table config of warehouse (borrowed, lives as long as the
     * planner), or NULL when it has none. */
    const zb_table_config *(*table_config)(void *payload,
                                           const char *warehouse);
    void (*log_line)(const char *line, void *payload);
    /* May be NULL. Called after a warehouse's pass with the handle
     * open_catalog gave; without it the handle stays the host's, never
     * freed by the planner. */
    void (*release_catalog)(void *payload, const char *warehouse,
                            zb_catalog *cat);
    void *payload;
} zb_planner_host;

typedef struct zb_planner_opts {
    unsigned version;              /* ZB_PLANNER_OPTS_VERSION */
    zb_queue *queue;               /* borrowed */
    const zb_size_classes *classes;
    size_t n_warehouses;
    const char *const *warehouses;
    int64_t max_tasks;             /* the queue's cap; default 10000 */
    int max_attempts;              /* per task; default 5 */
    const char *replica_id;        /* HOST-PID: the leader lease's holder */
    int64_t leader_lease_ms;       /* default 30 s */
    zb_planner_host host;
    int64_t worker_stale_ms;       /* a worker is alive while its
                                      heartbeat is younger; default 60 s */
    const char *leader_name;       /* the lease's row; default "planner" */
} zb_planner_opts;

#define ZB_PLANNER_OPTS_VERSION 1
#define ZB_PLANNER_OPTS_INIT                                              \
    { .version = ZB_PLANNER_OPTS_VERSION, .max_tasks = 10000,             \
      .max_attempts = 5, .leader_lease_ms = 30000,                        \
      .worker_stale_ms = 60000, .leader_name = "planner" }

/* The schedule's defaults, in minutes. */
#define ZB_PLANNER_DEFAULT_INTERVAL_MIN 60
#define ZB_PLANNER_ORPHANS_INTERVAL_MIN 1440

/* Counters of this replica's planning (for /metrics); monotonic. */
typedef struct zb_planner_counters {
    uint64_t cycles;               /* cycles this replica planned in */
    uint64_t added;                /* tasks created */
    uint64_t evicted;              /* excluded tasks displaced */
    uint64_t refused;              /* tasks not created: the queue full */
    uint64_t tables_seen;
    double last_cycle_seconds;
    int leader;                    /* holds the leader lease now */
    uint64_t swept;                /* lost tasks the sweeps rescheduled */
    uint64_t table_errors;         /* tables whose signals failed */
} zb_planner_counters;

/* ---- the pieces of a cycle, for tests and the benchmark ---- */

#define ZB_PLANNER_OPS 6           /* zb_maint_op_names, runbook order */

typedef struct zb_planner_signals {
    int64_t now_ms;
    int has_snapshot;              /* 0: an empty table */
    int64_t data_files;
    int64_t data_bytes;            /* -1: unknown (no summary) */
    int64_t delete_files;
    int64_t position_deletes, equality_deletes;
    int64_t manifests, delete_manifests;
    int64_t snapshots;
    int64_t oldest_snapshot_ms;
    int64_t expirable_snapshots;   /* old, not current, beyond the keep */
    int64_t props_missing;         /* declared properties absent/differing */
    /* resolved settings */
    int64_t target_bytes, min_input_files, min_input_manifests;
    int64_t max_snapshot_age_ms, min_snapshots_to_keep;
    /* the last success of each operation, ms (0: never) */
    int64_t last_success_ms[ZB_PLANNER_OPS];
    /* the last compact attempt of any outcome, ms (0: never) */
    int64_t last_compact_attempt_ms;
} zb_planner_signals;

/*
 * The signals of t (loaded from cat) at now_ms, with cfg its effective
 * table config block (NULL: none); last_success_ms left 0 (the cycle
 * fills them and last_compact_attempt_ms from zamboni_attempts). Reads the manifest list only.
 */
int zb_planner_read_signals(zb_planner_signals *out, zb_ctx *ctx,
                            zb_catalog *cat, const zb_table *t,
                            const zb_tc_effective *cfg, int64_t now_ms);

/* The due operations, due[i] for zb_maint_op_names[i] (see the top). */
void zb_planner_due(int due[ZB_PLANNER_OPS], const zb_planner_signals *s,
                    const zb_tc_effective *cfg);

/* The minimum interval of op for cfg, in ms. */
int64_t zb_planner_min_interval_ms(const zb_tc_effective *cfg, int op);

/* A table's priority for its due operations: gain per byte (small files
 * and delete files) on a log scale, 0..600, plus hours since the oldest
 * last success of the due ones (never run: 336), at most 336. */
int zb_planner_priority(const zb_planner_signals *s,
                        const int due[ZB_PLANNER_OPS]);

/* The memory estimate of op on the table, from the signals only
 * (compact: its data bytes, at most 4 targets; the others 0: the
 * smallest class). */
uint64_t zb_planner_estimate_memory(const zb_planner_signals *s, int op);

/* Free slots of class c now (see the top); *alive the live workers. */
int zb_planner_capacity(zb_queue *q, zb_ctx *ctx, const zb_size_class *c,
                        int64_t worker_stale_ms, int64_t *free_slots,
                        int64_t *alive);

int zb_planner_new(zb_planner **out, zb_ctx *ctx, const zb_planner_opts *o);

/*
 * One cycle: takes or renews the leader lease; when this replica holds
 * it, sweeps lost tasks (zb_queue_sweep) and plans every warehouse (see
 * the top). A replica without the lease does nothing and returns ZB_OK.
 * One table's failure is logged and does not stop the cycle.
 */
int zb_planner_cycle(zb_planner *p, zb_ctx *ctx);

/* Thread-safe (the HTTP threads read it while a cycle runs). */
void zb_planner_counters_get(zb_planner *p, zb_planner_counters *out);

/* Gives up the leader lease (a clean stop), so another replica takes it
 * at once. */
void zb_planner_free(zb_planner *p);

#endif

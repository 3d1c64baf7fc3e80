/*
 * service/worker/worker.h - the worker: loops that take maintenance tasks
 * from the queue (service/queue/queue.h) and run each with
 * zb_maintenance_table, within their share of the process's memory, cores
 * and spill disk (issue 17; seeds 000 and 004).
 *
 *     zb_worker_resources r;
 *     zb_worker_resources_compute(&r, &limits, headroom, workers, spill);
 *     zb_worker_opts o = ZB_WORKER_OPTS_INIT;
 *     o.queue = q; o.classes = &classes; o.size_class = "standard"; ...
 *     rc = zb_worker_run(&o, ctx, &summary);
 *
 * One thread per worker loop (o.workers in one process), each with its
 * own zb_budget of o.memory_bytes (so one cannot starve another) and its
 * own catalog handles (host.open_catalog; a zb_catalog is used by one
 * thread at a time). One heartbeat thread per process beats for every
 * running task and every worker row. The queue handle is shared by the
 * threads (zb_sqldb is thread-safe; each call takes its own ctx).
 *
 * A loop: register the worker row; then, until it stops, sweep lost
 * tasks, take one task of o.size_class, run it, finish it; when none is
 * due, sleep o.poll_ms (with jitter). It stops
 *   - drain (o.drain raised, SIGTERM/SIGINT): no new task; the running
 *     task's stop flag is raised at once, so compaction starts no new
 *     group and commits the written ones within o.drain_timeout_ms (0:
 *     drops them). The attempt is logged abandoned (rescheduled in
 *     ZB_WORKER_ABANDON_RETRY_MS) unless the task finished anyway
 *     (success). A stopped rewrite-manifests is failed (seed 004).
 *     zb_worker_run waits at most drain_timeout_ms + drain_grace_ms for
 *     the loops; a task still running then is finished abandoned by
 *     zb_worker_run itself and summary.left_running is set: the caller
 *     must exit the process (_exit) without freeing what the loops use.
 *   - max lifetime (o.max_lifetime_ms after start, 0: off): no new task;
 *     the running one runs to its end.
 *   - idle exit (o.idle_exit_ms without a task, 0: off).
 * It deregisters its row at every exit.
 *
 * A task: the commit fence of its attempt (zb_queue_fence) is set on the
 * loop's catalog, so a commit after the lease was lost is refused
 * (ZB_EFENCED, outcome lost: the sweep has logged or will log the
 * attempt). The table's health (data files, data bytes, delete files,
 * snapshots from the current snapshot's summary; metadata bytes: the
 * current metadata file) is measured before and after. A compaction
 * whose est_unspillable_bytes exceeds the largest class's memory fails
 * before anything is read, its message naming both sizes. A heartbeat
 * answering ZB_LEASE_STOP (cancel) raises the stop flag and the attempt is
 * logged cancelled; ZB_LEASE_LOST raises it and nothing is recorded.
 *
 * Log lines (host.log; stable, the fleet tests parse them; one line each,
 * fields in this order, message last and to the end of the line):
 *   Optimize: workers=N class=C memory=B (H) cores=K spill=B (H) each;
 *       limits: SOURCE                        (zb_worker_resources_line)
 *   worker id=ID event=start class=C memory=B cores=K spill=B
 *   task id=T attempt=A op=OP warehouse=W table=TBL worker=ID event=start
 *   task id=T attempt=A op=OP warehouse=W table=TBL worker=ID
 *       outcome=O ms=MS[ message=TEXT]
 *       O: success | failed | abandoned | cancelled | lost
 *   worker id=ID event=exit reason=R tasks=N     R: drain | lifetime | idle
 *   worker event=drain-timeout task=T attempt=A outcome=abandoned
 *   worker id=ID event=error message=TEXT        (a queue call failed; the
 *                                                 loop goes on)
 */
#ifndef ZB_SERVICE_WORKER_H
#define ZB_SERVICE_WORKER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "exec/sys_limits.h"
#include "ops/config/table_config.h"
#include "service/queue/queue.h"
#include "service/size_class.h"
#include "zamboni/zamboni.h"

/* An abandoned attempt runs again this much later (the issue's ~2 min). */
#define ZB_WORKER_ABANDON_RETRY_MS 120000

/* ---- resources ---- */

typedef struct zb_worker_resources {
    int workers;
    uint64_t memory_bytes;         /* each worker's budget */
    unsigned cores;                /* each worker's threads */
    uint64_t spill_bytes;          /* each worker's share of the disk */
    /* what they came from */
    uint64_t mem_limit_bytes, headroom_bytes, spill_total_bytes;
    double cpu_limit;
    int cgroup_version;            /* 0: none found */
    int mem_from_cgroup, cpu_from_cgroup;
    int no_limit;                  /* the machine's figures: warn */
} zb_worker_resources;

/*
 * Each of workers (>= 1) gets (limit - headroom) / workers memory, the
 * cores rule (exec/sys_limits.h) on its share of the limit's CPU
 * (floor(cpu_limit) / workers) and memory, at least 1, and
 * spill_total_bytes / workers of spill disk. Never fails.
 */
void zb_worker_resources_compute(zb_worker_resources *out,
                                 const zb_sys_limits *l,
                                 uint64_t headroom_bytes, int workers,
                                 uint64_t spill_total_bytes);

/* The "Optimize: ..." line (no newline) for class. */
void zb_worker_resources_line(char *out, size_t size,
                              const zb_worker_resources *r,
                              const char *size_class);

/* ---- the loops ---- */

/* What the CLI supplies, so that nothing of it leaks below. Each may be
 * called from any loop thread at once. */
typedef struct zb_worker_host {
    /* A new catalog handle for warehouse, for one loop (the caller frees
     * it with zb_catalog_free); its FileIO is zb_catalog_io's. */
    int (*open_catalog)(zb_catalog **out, zb_ctx *ctx, const char *warehouse,
                        void *payload);
    /* warehouse's table config (borrowed; lives as long as the host), or
     * *out NULL: the built-in values. May be NULL. */
    int (*table_config)(const zb_table_config **out, zb_ctx *ctx,
                        const char *warehouse, void *payload);
    /* One log line, without its newline. NULL: stderr. */
    void (*log_line)(const char *line, void *payload);
    void *payload;
} zb_worker_host;

typedef struct zb_worker_opts {
    unsigned version;              /* ZB_WORKER_OPTS_VERSION */
    zb_queue *queue;               /* borrowed */
    const zb_size_classes *classes;/* borrowed; the sweep moves lost tasks
                                      one class up */
    const char *size_class;        /* the class served */
    int workers;                   /* loops; <= 0: 1 */
    uint64_t memory_bytes;         /* per loop (its zb_budget; 0: none) */
    unsigned cores;                /* per loop: zb_maint_opts.threads */
    uint64_t spill_bytes;          /* per loop (for the worker row) */
    const char *host_name;         /* worker ids are HOST-PID-N */
    int64_t lease_ms;              /* default 60 s */
    int64_t heartbeat_ms;          /* default 10 s; at most lease / 3 */
    int64_t drain_timeout_ms;      /* default 0 */
    int64_t drain_grace_ms;        /* past drain_timeout, for dropping the
                                      written files; default 5 s */
    int64_t max_lifetime_ms;       /* default 0: off */
    int64_t idle_exit_ms;          /* default 0: off */
    int64_t poll_ms;               /* idle sleep; default 1 s (jittered by
                                      up to a quarter) */
    const atomic_int *drain;       /* raised by SIGTERM/SIGINT */
    /* Tests only: a pause after each compaction group is written, before
     * the commit, so that a signal can land mid-compaction; default 0. */
    int64_t test_group_delay_ms;
    /* Tests only: a heartbeat that finds the lease lost does not stop the
     * task, so that its commit is refused by the fence; default 0. */
    int test_ignore_lost;
    zb_worker_host host;
} zb_worker_opts;

#define ZB_WORKER_OPTS_VERSION 1
#define ZB_WORKER_OPTS_INIT                                               \
    {                                                                     \
        .version = ZB_WORKER_OPTS_VERSION, .workers = 1,                  \
        .lease_ms = 60000, .heartbeat_ms = 10000, .drain_timeout_ms = 0,  \
        .drain_grace_ms = 5000, .max_lifetime_ms = 0, .idle_exit_ms = 0,  \
        .poll_ms = 1000,                                                  \
    }

typedef struct zb_worker_summary {
    uint64_t tasks;                /* attempts run */
    uint64_t succeeded, failed, abandoned, cancelled, lost;
    int drained;                   /* a drain ended the run */
    int left_running;              /* the drain timeout ran out with a task
                                      still running: exit without cleanup */
} zb_worker_summary;

/*
 * Checks o (ZB_EUSAGE: a heartbeat over a third of the lease, a lease of
 * 0, no class, no queue or host.open_catalog) and the class (ZB_EUSAGE
 * when o->classes lacks it).
 */
int zb_worker_check_opts(const zb_worker_opts *o, zb_ctx *ctx);

/*
 * Runs the loops until each has stopped (see above). Returns ZB_OK for
 * the drain, lifetime and idle exits; ZB_EUSAGE (zb_worker_check_opts),
 * ZB_ENOMEM or a thread that would not start, before any task.
 */
int zb_worker_run(const zb_worker_opts *o, zb_ctx *ctx,
                  zb_worker_summary *out);

/* The health of a loaded table (the figures above). */
void zb_worker_table_health(zb_table_health *out, zb_catalog *cat,
                            zb_ctx *ctx, const zb_table *t);

#endif

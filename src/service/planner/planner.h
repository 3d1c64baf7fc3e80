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
} zb_planner_opts;

#define ZB_PLANNER_OPTS_VERSION 1
#define ZB_PLANNER_OPTS_INIT                                              \
    { .version = ZB_PLANNER_OPTS_VERSION, .max_tasks = 10000,             \
      .max_attempts = 5, .leader_lease_ms = 30000 }

/* Counters of this replica's planning (for /metrics); monotonic. */
typedef struct zb_planner_counters {
    uint64_t cycles;               /* cycles this replica planned in */
    uint64_t added;                /* tasks created */
    uint64_t evicted;              /* excluded tasks displaced */
    uint64_t refused;              /* tasks not created: the queue full */
    uint64_t tables_seen;
    double last_cycle_seconds;
    int leader;                    /* holds the leader lease now */
} zb_planner_counters;

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

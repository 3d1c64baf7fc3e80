/*
 * service/worker/worker_int.h - what the loops (worker.c) and one task's
 * run (worker_task.c) share: the per-loop slot the heartbeat thread reads.
 */
#ifndef ZB_SERVICE_WORKER_INT_H
#define ZB_SERVICE_WORKER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "service/worker/worker.h"
#include "util/err.h"
#include "zamboni/budget.h"

typedef struct zb_worker_state zb_worker_state;

/* One loop. The fields below "under mu" are read by the heartbeat thread
 * and by the drain wait. */
typedef struct zb_worker_slot {
    zb_worker_state *ws;
    int index;
    char id[300];                  /* HOST-PID-N */
    pthread_t thread;
    zb_budget *budget;
    atomic_int stop;               /* the running task's ctx->stop */
    atomic_ullong rows_done, bytes_done;
    atomic_ullong groups_done;     /* compaction groups written */
    /* under mu: */
    int started, done;
    int running;                   /* task holds the attempt being run */
    zb_task task;
    int lost, cancelled;           /* the heartbeat's answers */
    int finished;                  /* the drain wait finished it already */
    int64_t started_wall_ms, started_mono_ms;
} zb_worker_slot;

struct zb_worker_state {
    const zb_worker_opts *o;
    int n;
    zb_worker_slot *slots;
    const zb_size_class *largest;
    int64_t start_ms;              /* monotonic */
    atomic_int quit;               /* start-up failed: stop the loops */
    atomic_int hb_quit;
    pthread_mutex_t mu, log_mu;
    zb_worker_summary sum;         /* under mu */
};

int64_t zb_worker__mono_ms(void);
int64_t zb_worker__wall_ms(void);
void zb_worker__log(zb_worker_state *ws, const char *fmt, ...)
    ZB_PRINTF(2, 3);
int zb_worker__draining(const zb_worker_state *ws);

/* Runs one taken task to its recorded end (worker_task.c). *cat is the
 * loop's catalog handle for warehouse cat_wh, reopened when the task's
 * warehouse differs. */
void zb_worker__run_task(zb_worker_slot *sl, const zb_task *task,
                         zb_catalog **cat, char *cat_wh, size_t cat_wh_size);

#endif

/*
 * service/planner/planner_int.h - private to src/service/planner: the
 * candidates a cycle gathers and the per-warehouse pass.
 */
#ifndef ZB_SERVICE_PLANNER_INT_H
#define ZB_SERVICE_PLANNER_INT_H

#include "service/planner/planner.h"
#include "util/err.h"

/* A table with due operations. */
typedef struct zb_planner_candidate {
    char *warehouse;               /* borrowed from the planner */
    char *ident;                   /* owned */
    int due[ZB_PLANNER_OPS];
    uint64_t est_memory[ZB_PLANNER_OPS];
    int priority;
    size_t seq;                    /* gathering order: ties keep it */
} zb_planner_candidate;

typedef struct zb_planner_cands {
    zb_planner_candidate *v;
    size_t n, cap;
} zb_planner_cands;

void zb_planner__cands_free(zb_planner_cands *cs);

/*
 * Reads every table of warehouse's table config and adds the ones with
 * due operations to cs (a table's failure is logged and counted in
 * delta->table_errors); delta->tables_seen counts the tables read. Fails
 * only on the queue's errors (and ZB_ENOMEM).
 */
int zb_planner__warehouse(zb_queue *q, zb_ctx *ctx,
                          const zb_planner_host *host, char *warehouse,
                          int64_t now_ms, zb_planner_cands *cs,
                          zb_planner_counters *delta, const zb_planner *p);

void zb_planner__log(const zb_planner *p, const char *fmt, ...)
    ZB_PRINTF(2, 3);

#endif

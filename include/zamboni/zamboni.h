/*
 * zamboni/zamboni.h - the library's entry header: version and the context
 * that every operation takes.
 *
 * A zb_ctx belongs to one task (one operation on one table) or to one
 * handle; it is not shared between threads that run at the same time. It
 * carries the task's error record and borrows the process-wide services the
 * task uses: the logger, the metrics registry, the byte budget and the stop
 * flag. Initialise it with zb_ctx_init(); every borrowed pointer may stay
 * NULL, which means: log to the process default logger, record no metrics,
 * no memory budget, never stopped.
 */
#ifndef ZAMBONI_ZAMBONI_H
#define ZAMBONI_ZAMBONI_H

#include <stdatomic.h>
#include <stdint.h>

#include "zamboni/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZB_VERSION_STRING "0.1.0"

typedef struct zb_log zb_log;
typedef struct zb_metrics zb_metrics;
typedef struct zb_budget zb_budget;

/* Called as work advances; stage is a short constant string. */
typedef void (*zb_progress_cb)(const char *stage, uint64_t done,
                               uint64_t total, void *payload);

#define ZB_CTX_VERSION 1

typedef struct zb_ctx {
    unsigned version;            /* ZB_CTX_VERSION */
    zb_err err;                  /* the last error of this task */
    zb_log *log;                 /* borrowed; NULL: process default */
    zb_metrics *metrics;         /* borrowed; NULL: none recorded */
    zb_budget *budget;           /* borrowed; NULL: no memory budget */
    const atomic_int *stop;      /* borrowed; non-zero asks work to stop */
    zb_progress_cb progress;     /* optional */
    void *progress_payload;
} zb_ctx;

/* Clears *ctx and sets its version. Never fails. */
void zb_ctx_init(zb_ctx *ctx);

/* Non-zero when the context's stop flag has been raised. */
int zb_ctx_stopped(const zb_ctx *ctx);

/* The library's version, ZB_VERSION_STRING of the build. */
const char *zb_version(void);

#ifdef __cplusplus
}
#endif
#endif

/*
 * exec/pool.h - a small fixed-size thread pool, and the core count that
 * the process's cgroup limits allow.
 *
 * Jobs are (fn, arg) pairs run in submission order by a fixed set of
 * threads. zb_pool_wait waits until every job submitted so far has ended
 * and returns the first failure. When the stop flag given at creation is
 * raised, jobs that have not started are dropped (never run) and
 * zb_pool_wait returns ZB_ECANCELED; running jobs should watch the same
 * flag themselves. Submit and wait are called from one thread (the
 * owner); jobs run on the pool's threads.
 *
 * The core count a pool should have is exec/sys_limits.h's (included
 * here for the callers that took it from this header).
 */
#ifndef ZB_EXEC_POOL_H
#define ZB_EXEC_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "exec/sys_limits.h"
#include "zamboni/zamboni.h"

typedef struct zb_pool zb_pool;

/* A job: returns ZB_OK or a negative rc that zb_pool_wait reports. */
typedef int (*zb_pool_fn)(void *arg);

/*
 * Starts threads (1..256) threads. stop (may be NULL) is borrowed and
 * must outlive the pool. Returns ZB_OK, ZB_EINVAL or ZB_ENOMEM (also when
 * a thread cannot be started; the message says so).
 */
int zb_pool_new(zb_pool **out, zb_ctx *ctx, unsigned threads,
                const atomic_int *stop);

/*
 * Queues fn(arg). Returns ZB_OK, ZB_ENOMEM, or ZB_ECANCELED when the
 * stop flag is raised (fn is then not queued).
 */
int zb_pool_submit(zb_pool *p, zb_pool_fn fn, void *arg);

/*
 * Waits until every queued job has ended or been dropped. Returns ZB_OK,
 * the rc of the first job that failed, or ZB_ECANCELED when jobs were
 * dropped because of the stop flag. The failure is then forgotten, so the
 * pool can take new jobs.
 */
int zb_pool_wait(zb_pool *p);

/* Number of threads. */
unsigned zb_pool_threads(const zb_pool *p);

/* Waits for the jobs (see zb_pool_wait), stops the threads, frees p. */
void zb_pool_free(zb_pool *p);

#endif

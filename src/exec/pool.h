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
 * Cores (DESIGN.md "Memory, cores and disk"): cores = min(floor(cpu
 * limit), memory limit / 4 GiB), at least 1, where the CPU limit is
 * cgroup v2 cpu.max (quota / period) or else the online CPUs, and the
 * memory limit is cgroup v2 memory.max or else the physical memory.
 */
#ifndef ZB_EXEC_POOL_H
#define ZB_EXEC_POOL_H

#include <stdatomic.h>
#include <stdint.h>

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

typedef struct zb_sys_limits {
    double cpu_limit;            /* cores the process may use */
    uint64_t mem_limit_bytes;    /* memory it may use */
    int cpu_from_cgroup;         /* 1 when cpu.max set the limit */
    int mem_from_cgroup;         /* 1 when memory.max set the limit */
    unsigned cores;              /* zb_cores_from_limits of the above */
} zb_sys_limits;

#define ZB_CORE_MEMORY_BYTES (4ull << 30)

/*
 * Reads the limits. cgroup_dir is the folder holding cpu.max and
 * memory.max; NULL finds the process's own cgroup v2 folder through
 * /proc/self/cgroup under /sys/fs/cgroup. Missing or unlimited ("max")
 * values fall back to sysconf's online CPUs and physical memory (and the
 * smaller of the two applies when both exist). Never fails.
 */
void zb_sys_limits_read(zb_sys_limits *out, const char *cgroup_dir);

/* min(floor(cpu_limit), mem_bytes / 4 GiB), at least 1. */
unsigned zb_cores_from_limits(double cpu_limit, uint64_t mem_bytes);

#endif

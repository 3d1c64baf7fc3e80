/*
 * cli/config/resources.h - the process's memory budget and thread count,
 * each with where it came from (for doctor and --verbose).
 *
 * Memory budget (bytes; every zamboni process that works on tables makes
 * one zb_budget of this size, include/zamboni/budget.h):
 *   1. memory_budget_bytes of cli/config/settings.h: --memory-budget-bytes,
 *      ZAMBONI_MEMORY_BUDGET_BYTES, memory_budget_bytes: in zamboni.yml;
 *      0 disables the budget (nothing waits; holdings are still counted)
 *   2. else the cgroup memory limit minus the headroom
 *   3. else the physical memory minus the headroom; no_mem_limit is set so
 *      that the caller warns that no memory limit was found
 * The memory figures are those of exec/pool.h (zb_sys_limits_read).
 *
 * Headroom (zb_resources_headroom): what the process needs outside the
 * budget (code, table metadata, allocator slack, buffers too small to
 * reserve): a quarter of the limit, at least 160 MiB, at most 2 GiB, and
 * never more than half the limit. A 2 GiB limit leaves a 1.5 GiB budget;
 * 16 GiB leaves 14 GiB; 256 MiB leaves 128 MiB.
 *
 * Threads (1..256):
 *   1. threads of settings.h: --threads, ZAMBONI_THREADS, threads:
 *   2. else the cores rule of exec/pool.h: min(floor(CPU limit), memory
 *      limit / 4 GiB), at least 1
 */
#ifndef ZB_CLI_RESOURCES_H
#define ZB_CLI_RESOURCES_H

#include <stdint.h>

#include "cli/config/settings.h"
#include "exec/pool.h"

#define ZB_RESOURCES_MAX_THREADS 256

typedef struct zb_resources {
    uint64_t budget_bytes;        /* 0: no budget */
    char budget_source[192];      /* "--memory-budget-bytes", "cgroup ..." */
    unsigned threads;             /* 1..256 */
    char threads_source[192];
    int no_mem_limit;             /* sized from the physical memory */
} zb_resources;

/* The headroom of a memory limit (see above). */
uint64_t zb_resources_headroom(uint64_t limit_bytes);

/*
 * Fills out from the settings (NULL: none given; their values were
 * checked when they loaded) and the limits. Never fails.
 */
void zb_resources_resolve(zb_resources *out, const zb_settings *s,
                          const zb_sys_limits *l);

#endif

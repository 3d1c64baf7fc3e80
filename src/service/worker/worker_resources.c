/*
 * service/worker/worker_resources.c - each worker's share of the process's
 * memory, cores and spill disk, and the "Optimize:" line (worker.h).
 */
#define ZB_MODULE "worker"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "service/worker/worker.h"
#include "util/str.h"

void zb_worker_resources_compute(zb_worker_resources *out,
                                 const zb_sys_limits *l,
                                 uint64_t headroom_bytes, int workers,
                                 uint64_t spill_total_bytes)
{
    uint64_t usable, share_limit;
    double cpu_share;

    memset(out, 0, sizeof *out);
    if (workers < 1)
        workers = 1;
    out->workers = workers;
    out->mem_limit_bytes = l->mem_limit_bytes;
    out->cpu_limit = l->cpu_limit;
    out->cgroup_version = l->cgroup_version;
    out->mem_from_cgroup = l->mem_from_cgroup;
    out->cpu_from_cgroup = l->cpu_from_cgroup;
    out->no_limit = !l->mem_from_cgroup && !l->cpu_from_cgroup;
    if (headroom_bytes >= l->mem_limit_bytes)
        headroom_bytes = l->mem_limit_bytes / 2;
    out->headroom_bytes = headroom_bytes;
    usable = l->mem_limit_bytes - headroom_bytes;
    out->memory_bytes = usable / (uint64_t)workers;
    /* the cores rule on each worker's share of the limits */
    share_limit = l->mem_limit_bytes / (uint64_t)workers;
    cpu_share = floor(l->cpu_limit) / (double)workers;
    out->cores = zb_cores_from_limits(cpu_share, share_limit);
    out->spill_total_bytes = spill_total_bytes;
    out->spill_bytes = spill_total_bytes / (uint64_t)workers;
}

void zb_worker_resources_line(char *out, size_t size,
                              const zb_worker_resources *r,
                              const char *size_class)
{
    char mem[32], spill[32], lim[32], src[160];

    zb_str_format_bytes(mem, sizeof mem, r->memory_bytes);
    zb_str_format_bytes(spill, sizeof spill, r->spill_bytes);
    zb_str_format_bytes(lim, sizeof lim, r->mem_limit_bytes);
    if (r->cgroup_version > 0 && (r->mem_from_cgroup || r->cpu_from_cgroup))
        snprintf(src, sizeof src, "cgroup v%d memory %s%s cpu %.2f%s",
                 r->cgroup_version, lim,
                 r->mem_from_cgroup ? "" : " (machine)", r->cpu_limit,
                 r->cpu_from_cgroup ? "" : " (machine)");
    else
        snprintf(src, sizeof src, "machine memory %s cpu %.2f (no cgroup "
                 "limit found)", lim, r->cpu_limit);
    snprintf(out, size, "Optimize: workers=%d class=%s memory=%llu (%s) "
             "cores=%u spill=%llu (%s) each; limits: %s", r->workers,
             size_class ? size_class : "-",
             (unsigned long long)r->memory_bytes, mem, r->cores,
             (unsigned long long)r->spill_bytes, spill, src);
}

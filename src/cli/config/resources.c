/*
 * cli/config/resources.c - the memory budget and the threads of a process,
 * with their sources (resources.h has the rules).
 */
#define ZB_MODULE "config"

#include "cli/config/resources.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

#define MIB ((uint64_t)1 << 20)
#define HEADROOM_MIN (160 * MIB)
#define HEADROOM_MAX (2048 * MIB)

uint64_t zb_resources_headroom(uint64_t limit_bytes)
{
    uint64_t h = limit_bytes / 4;

    if (h < HEADROOM_MIN)
        h = HEADROOM_MIN;
    if (h > HEADROOM_MAX)
        h = HEADROOM_MAX;
    return h > limit_bytes / 2 ? limit_bytes / 2 : h;
}

/* A setting's value as a number, 1 when it was given. */
static int given(uint64_t *v, const zb_settings *s, zb_setting_id id)
{
    const char *text = s ? zb_settings_get(s, id) : NULL;

    return text != NULL && zb_str_to_u64(v, text) == ZB_OK;
}

static void resolve_budget(zb_resources *out, const zb_settings *s,
                           const zb_sys_limits *l)
{
    char lim[32], head[32];
    uint64_t v, h;

    if (given(&v, s, ZB_SET_MEMORY_BUDGET_BYTES)) {
        out->budget_bytes = v;
        snprintf(out->budget_source, sizeof out->budget_source, "%s%s",
                 zb_settings_origin(s, ZB_SET_MEMORY_BUDGET_BYTES),
                 v == 0 ? "; 0: no budget" : "");
        return;
    }
    h = zb_resources_headroom(l->mem_limit_bytes);
    out->budget_bytes = l->mem_limit_bytes - h;
    out->no_mem_limit = !l->mem_from_cgroup;
    zb_str_format_bytes(lim, sizeof lim, l->mem_limit_bytes);
    zb_str_format_bytes(head, sizeof head, h);
    snprintf(out->budget_source, sizeof out->budget_source,
             "%s %s minus %s headroom%s",
             !l->mem_from_cgroup ? "physical memory"
             : l->cgroup_version == 1 ? "cgroup v1 memory.limit_in_bytes"
                                      : "cgroup v2 memory.max",
             lim, head,
             l->mem_from_cgroup ? "" : " (no memory limit found)");
}

static void resolve_threads(zb_resources *out, const zb_settings *s,
                            const zb_sys_limits *l)
{
    char mem[32];
    uint64_t v;

    if (given(&v, s, ZB_SET_THREADS) && v >= 1 &&
        v <= ZB_RESOURCES_MAX_THREADS) {
        out->threads = (unsigned)v;
        snprintf(out->threads_source, sizeof out->threads_source, "%s",
                 zb_settings_origin(s, ZB_SET_THREADS));
        return;
    }
    out->threads = l->cores < 1 ? 1
                   : l->cores > ZB_RESOURCES_MAX_THREADS
                       ? ZB_RESOURCES_MAX_THREADS
                       : l->cores;
    zb_str_format_bytes(mem, sizeof mem, l->mem_limit_bytes);
    snprintf(out->threads_source, sizeof out->threads_source,
             "cores rule: min(floor(%.2f CPUs, %s), %s memory / 4 GiB), "
             "at least 1", l->cpu_limit,
             l->cpu_from_cgroup ? "cgroup CPU limit" : "online CPUs", mem);
}

void zb_resources_resolve(zb_resources *out, const zb_settings *s,
                          const zb_sys_limits *l)
{
    memset(out, 0, sizeof *out);
    resolve_budget(out, s, l);
    resolve_threads(out, s, l);
}

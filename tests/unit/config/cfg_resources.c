/*
 * tests/unit/config/cfg_resources.c - the memory budget and threads of a
 * process (src/cli/config/resources.c): the headroom rule at and around
 * each of its bounds, and which source wins with the text it gives.
 */
#include <string.h>

#include "cli/config/resources.h"
#include "zbtest.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* limit/4, at least 160 MiB, at most 2 GiB, never more than limit/2. */
static void test_config_resources__headroom_rule(void)
{
    /* a quarter between the bounds */
    ZBT_EQ_U64(zb_resources_headroom(2 * GIB), 512 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(1 * GIB), 256 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(8 * GIB), 2 * GIB);
    /* at least 160 MiB: a quarter of 400 MiB is 100 MiB */
    ZBT_EQ_U64(zb_resources_headroom(400 * MIB), 160 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(640 * MIB), 160 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(644 * MIB), 161 * MIB);
    /* at most 2 GiB */
    ZBT_EQ_U64(zb_resources_headroom(9 * GIB), 2 * GIB);
    ZBT_EQ_U64(zb_resources_headroom(64 * GIB), 2 * GIB);
    /* never more than half: below 320 MiB the floor would pass it */
    ZBT_EQ_U64(zb_resources_headroom(256 * MIB), 128 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(300 * MIB), 150 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(320 * MIB), 160 * MIB);
    ZBT_EQ_U64(zb_resources_headroom(0), 0);
}

static zb_sys_limits limits(uint64_t mem, int mem_cgroup, double cpu,
                            unsigned cores)
{
    zb_sys_limits l;

    memset(&l, 0, sizeof l);
    l.mem_limit_bytes = mem;
    l.mem_from_cgroup = mem_cgroup;
    l.cpu_limit = cpu;
    l.cpu_from_cgroup = 1;
    l.cgroup_version = mem_cgroup ? 2 : 0;
    l.cores = cores;
    return l;
}

static void test_config_resources__from_limits(void)
{
    zb_sys_limits l = limits(2 * GIB, 1, 3.5, 3);
    zb_resources r;

    zb_resources_resolve(&r, NULL, &l);
    ZBT_EQ_U64(r.budget_bytes, 2 * GIB - 512 * MIB);
    ZBT_EQ_INT(r.no_mem_limit, 0);
    ZBT_EQ_STR(r.budget_source, "cgroup v2 memory.max 2.0GiB minus "
                                "512.0MiB headroom");
    ZBT_EQ_INT(r.threads, 3);
    ZBT_CONTAINS(r.threads_source, "cores rule");
    ZBT_CONTAINS(r.threads_source, "cgroup CPU limit");
    /* no cgroup limit: physical memory, and the caller is told */
    l = limits(16 * GIB, 0, 8, 4);
    zb_resources_resolve(&r, NULL, &l);
    ZBT_EQ_U64(r.budget_bytes, 14 * GIB);
    ZBT_EQ_INT(r.no_mem_limit, 1);
    ZBT_CONTAINS(r.budget_source, "physical memory 16.0GiB minus 2.0GiB "
                                  "headroom (no memory limit found)");
    ZBT_EQ_INT(r.threads, 4);
    /* the cores figure is kept within 1..256 */
    l = limits(16 * GIB, 1, 1, 0);
    zb_resources_resolve(&r, NULL, &l);
    ZBT_EQ_INT(r.threads, 1);
    l = limits(4096 * GIB, 1, 1000, 1000);
    zb_resources_resolve(&r, NULL, &l);
    ZBT_EQ_INT(r.threads, 256);
}

const zbt_case test_config_resources[] = {
    ZBT_CASE(test_config_resources__headroom_rule),
    ZBT_CASE(test_config_resources__from_limits),
    ZBT_END
};

/*
 * tests/unit/exec/sys_limits.c - the cgroup figures read from test trees
 * laid out like /sys/fs/cgroup, with a /proc/self/cgroup-format file
 * beside them: v2 with limits and with "max", v1 with limits and
 * unlimited, a hybrid system, a nested cgroup (its ancestors limit it), a
 * container's view, and the core count on each. The machine's own
 * figures (no cgroup) are what every expectation is bounded by, so the
 * cases hold on any machine.
 */
#include <stdio.h>
#include <string.h>

#include "exec/sys_limits.h"
#include "zbtest.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/%s", root, rel);
    zbt_write_file(path, text, strlen(text));
}

/* The machine's figures: a tree with no cgroup named. */
static void machine(zb_sys_limits *sys, const char *root)
{
    char proc[1024];

    snprintf(proc, sizeof proc, "%s/none", root);
    zb_sys_limits_read_tree(sys, root, proc);
    ZBT_EQ_INT(sys->cgroup_version, 0);
    ZBT_EQ_INT(sys->cpu_from_cgroup, 0);
    ZBT_EQ_INT(sys->mem_from_cgroup, 0);
    ZBT_CHECK(sys->cpu_limit >= 1 && sys->mem_limit_bytes > 0);
}

/* Reads root/cg with root/proc as /proc/self/cgroup. */
static void read_tree(zb_sys_limits *l, const char *root)
{
    char cg[1024], proc[1024];

    snprintf(cg, sizeof cg, "%s/cg", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    zb_sys_limits_read_tree(l, cg, proc);
}

/* Checks l against a cgroup that allows cpu cores and mem bytes (0: no
 * limit), bounded by the machine's sys. */
static void expect(const zb_sys_limits *l, const zb_sys_limits *sys,
                   double cpu, uint64_t mem, int version)
{
    int cpu_below = cpu > 0 && cpu < sys->cpu_limit;
    int mem_below = mem > 0 && mem < sys->mem_limit_bytes;
    double want_cpu = cpu_below ? cpu : sys->cpu_limit;
    uint64_t want_mem = mem_below ? mem : sys->mem_limit_bytes;

    ZBT_EQ_INT(l->cgroup_version, version);
    ZBT_EQ_INT(l->cpu_from_cgroup, cpu_below);
    ZBT_EQ_INT(l->mem_from_cgroup, mem_below);
    ZBT_CHECK(l->cpu_limit > want_cpu - 1e-9 &&
              l->cpu_limit < want_cpu + 1e-9);
    ZBT_EQ_U64(l->mem_limit_bytes, want_mem);
    ZBT_EQ_INT(l->cores, zb_cores_from_limits(want_cpu, want_mem));
}

static void test_exec_sys_limits__v2_with_limits(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "0::/app.slice/job.scope\n");
    put(root, "cg/app.slice/job.scope/cpu.max", "50000 100000\n");
    put(root, "cg/app.slice/job.scope/memory.max", "1073741824\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.5, GIB, 2);
    ZBT_EQ_INT(l.cores, 1);
    ZBT_EQ_INT(l.cpu_from_cgroup, 1);   /* half a core is below any */
}

static void test_exec_sys_limits__v2_max_is_no_limit(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "0::/app.slice\n");
    put(root, "cg/app.slice/cpu.max", "max 100000\n");
    put(root, "cg/app.slice/memory.max", "max\n");
    read_tree(&l, root);
    expect(&l, &sys, 0, 0, 2);
    ZBT_EQ_INT(l.cores, sys.cores);
}

static void test_exec_sys_limits__v1_with_limits(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc",
        "12:memory:/batch/job7\n"
        "5:cpu,cpuacct:/batch/job7\n"
        "3:cpuset:/batch/job7\n"
        "1:name=systemd:/batch/job7\n");
    put(root, "cg/memory/batch/job7/memory.limit_in_bytes", "536870912\n");
    put(root, "cg/cpu,cpuacct/batch/job7/cpu.cfs_quota_us", "50000\n");
    put(root, "cg/cpu,cpuacct/batch/job7/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.5, 512 * MIB, 1);
    ZBT_EQ_INT(l.cpu_from_cgroup, 1);
    ZBT_EQ_INT(l.cores, 1);
}

/* v1's "no limit" values, and the cpu controller mounted alone. */
static void test_exec_sys_limits__v1_unlimited(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "9:memory:/\n4:cpu:/\n");
    put(root, "cg/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "cg/cpu/cpu.cfs_quota_us", "-1\n");
    put(root, "cg/cpu/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0, 0, 1);
    ZBT_EQ_INT(l.cores, sys.cores);
}

/* Hybrid: controllers on v1 lines are read there, not in the unified
 * hierarchy's folder (which names a higher figure here). */
static void test_exec_sys_limits__hybrid_reads_v1_controllers(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc",
        "0::/user.slice\n"
        "7:memory:/user.slice\n"
        "6:cpu,cpuacct:/user.slice\n");
    put(root, "cg/user.slice/memory.max", "2147483648\n");
    put(root, "cg/memory/user.slice/memory.limit_in_bytes", "268435456\n");
    put(root, "cg/cpu,cpuacct/user.slice/cpu.cfs_quota_us", "25000\n");
    put(root, "cg/cpu,cpuacct/user.slice/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.25, 256 * MIB, 1);
}

/* A nested cgroup: its own folder says "max" for memory, a parent sets
 * it; each level's CPU quota limits it and the smallest wins. */
static void test_exec_sys_limits__nested_path_takes_ancestors(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "0::/user.slice/user-1000.slice/session-2.scope\n");
    put(root, "cg/user.slice/memory.max", "1610612736\n");
    put(root, "cg/user.slice/cpu.max", "max 100000\n");
    put(root, "cg/user.slice/user-1000.slice/memory.max", "max\n");
    put(root, "cg/user.slice/user-1000.slice/cpu.max", "75000 100000\n");
    put(root, "cg/user.slice/user-1000.slice/session-2.scope/memory.max",
        "max\n");
    put(root, "cg/user.slice/user-1000.slice/session-2.scope/cpu.max",
        "150000 100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.75, 1536 * MIB, 2);

    /* The same under v1. */
    put(root, "proc",
        "3:memory:/a/b\n"
        "2:cpu,cpuacct:/a/b\n");
    put(root, "cg/memory/a/memory.limit_in_bytes", "805306368\n");
    put(root, "cg/memory/a/b/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "cg/cpu,cpuacct/a/cpu.cfs_quota_us", "-1\n");
    put(root, "cg/cpu,cpuacct/a/cpu.cfs_period_us", "100000\n");
    put(root, "cg/cpu,cpuacct/a/b/cpu.cfs_quota_us", "60000\n");
    put(root, "cg/cpu,cpuacct/a/b/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.6, 768 * MIB, 1);
}

/* A container sees its own cgroup at the mount's top while /proc names
 * the host's path: the leading parts of the path are dropped until a
 * folder exists. */
static void test_exec_sys_limits__container_view(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "0::/system.slice/docker-4f2a.scope\n");
    put(root, "cg/memory.max", "402653184\n");
    put(root, "cg/cpu.max", "40000 100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.4, 384 * MIB, 2);

    put(root, "proc", "11:memory:/docker/4f2a/app\n4:cpu:/docker/4f2a\n");
    put(root, "cg/memory/app/memory.limit_in_bytes", "134217728\n");
    put(root, "cg/memory/memory.limit_in_bytes", "268435456\n");
    put(root, "cg/cpu/cpu.cfs_quota_us", "30000\n");
    put(root, "cg/cpu/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    expect(&l, &sys, 0.3, 128 * MIB, 1);
}

/* The core rule on limits that allow several cores, where the machine
 * has them: min(floor(cpu), memory / 4 GiB). */
static void test_exec_sys_limits__cores_from_tree_limits(void)
{
    const char *root = zbt_tmpdir();
    zb_sys_limits sys, l;

    machine(&sys, root);
    put(root, "proc", "0::/w\n");
    put(root, "cg/w/cpu.max", "250000 100000\n");          /* 2.5 */
    put(root, "cg/w/memory.max", "12884901888\n");         /* 12 GiB */
    read_tree(&l, root);
    expect(&l, &sys, 2.5, 12 * GIB, 2);
    if (sys.cpu_limit >= 3 && sys.mem_limit_bytes > 12 * GIB)
        ZBT_EQ_INT(l.cores, 2);                /* floor(2.5) */
    put(root, "cg/w/memory.max", "4294967296\n");          /* 4 GiB */
    read_tree(&l, root);
    expect(&l, &sys, 2.5, 4 * GIB, 2);
    ZBT_EQ_INT(l.cores, 1);                    /* 4 GiB per core */
}

/* One folder of v2 files (zb_sys_limits_read with a folder) reports v2
 * when a file is there, and no cgroup when none is. */
static void test_exec_sys_limits__folder_of_v2_files(void)
{
    const char *dir = zbt_tmpdir();
    zb_sys_limits sys, l;

    zb_sys_limits_read(&sys, dir);
    ZBT_EQ_INT(sys.cgroup_version, 0);
    put(dir, "memory.max", "max\n");
    zb_sys_limits_read(&l, dir);
    ZBT_EQ_INT(l.cgroup_version, 2);
    ZBT_EQ_INT(l.mem_from_cgroup, 0);
    ZBT_EQ_U64(l.mem_limit_bytes, sys.mem_limit_bytes);
    zb_sys_limits_read(&l, NULL);              /* this process: sane */
    ZBT_CHECK(l.cores >= 1 && l.cpu_limit > 0 && l.mem_limit_bytes > 0);
    ZBT_CHECK(l.cgroup_version >= 0 && l.cgroup_version <= 2);
}

const zbt_case test_exec_sys_limits[] = {
    ZBT_CASE(test_exec_sys_limits__v2_with_limits),
    ZBT_CASE(test_exec_sys_limits__v2_max_is_no_limit),
    ZBT_CASE(test_exec_sys_limits__v1_with_limits),
    ZBT_CASE(test_exec_sys_limits__v1_unlimited),
    ZBT_CASE(test_exec_sys_limits__hybrid_reads_v1_controllers),
    ZBT_CASE(test_exec_sys_limits__nested_path_takes_ancestors),
    ZBT_CASE(test_exec_sys_limits__container_view),
    ZBT_CASE(test_exec_sys_limits__cores_from_tree_limits),
    ZBT_CASE(test_exec_sys_limits__folder_of_v2_files),
    ZBT_END
};

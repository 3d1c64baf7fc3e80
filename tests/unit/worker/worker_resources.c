/*
 * tests/unit/worker/worker_resources.c - each worker's memory, cores and
 * spill disk and the "Optimize:" line, from test cgroup trees (v2 and
 * v1) laid out like /sys/fs/cgroup; the lease and heartbeat checks. The
 * trees' limits (1 CPU, 2 or 4 GiB) are below any machine's, so the
 * figures hold everywhere.
 */
#include <stdio.h>
#include <string.h>

#include "service/worker/worker.h"
#include "zbtest.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/%s", root, rel);
    zbt_write_file(path, text, strlen(text));
}

static void read_tree(zb_sys_limits *l, const char *root)
{
    char cg[1024], proc[1024];

    snprintf(cg, sizeof cg, "%s/cg", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    zb_sys_limits_read_tree(l, cg, proc);
}

static void test_worker_resources__cgroup_v2(void)
{
    char root[1024], line[1024];
    zb_worker_resources r;
    zb_sys_limits l;

    snprintf(root, sizeof root, "%s/v2", zbt_tmpdir());
    put(root, "proc", "0::/job\n");
    put(root, "cg/job/cpu.max", "100000 100000\n");
    put(root, "cg/job/memory.max", "2147483648\n");
    read_tree(&l, root);
    ZBT_EQ_INT(l.cgroup_version, 2);
    zb_worker_resources_compute(&r, &l, 512 * MIB, 2, 1000);
    ZBT_EQ_INT(r.workers, 2);
    ZBT_EQ_U64(r.memory_bytes, 768 * MIB);
    ZBT_EQ_INT(r.cores, 1);
    ZBT_EQ_U64(r.spill_bytes, 500);
    ZBT_EQ_INT(r.no_limit, 0);
    zb_worker_resources_line(line, sizeof line, &r, "small");
    ZBT_EQ_STR(line, "Optimize: workers=2 class=small memory=805306368 "
               "(768.0MiB) cores=1 spill=500 (500B) each; limits: cgroup "
               "v2 memory 2.0GiB cpu 1.00");
}

static void test_worker_resources__cgroup_v1(void)
{
    char root[1024], line[1024];
    zb_worker_resources r;
    zb_sys_limits l;

    snprintf(root, sizeof root, "%s/v1", zbt_tmpdir());
    put(root, "proc", "4:memory:/pod\n3:cpu,cpuacct:/pod\n0::/\n");
    put(root, "cg/memory/pod/memory.limit_in_bytes", "4294967296\n");
    put(root, "cg/cpu,cpuacct/pod/cpu.cfs_quota_us", "100000\n");
    put(root, "cg/cpu,cpuacct/pod/cpu.cfs_period_us", "100000\n");
    read_tree(&l, root);
    ZBT_EQ_INT(l.cgroup_version, 1);
    zb_worker_resources_compute(&r, &l, GIB, 1, 107374182400ull);
    ZBT_EQ_U64(r.memory_bytes, 3 * GIB);
    ZBT_EQ_INT(r.cores, 1);
    ZBT_EQ_U64(r.spill_bytes, 107374182400ull);
    zb_worker_resources_line(line, sizeof line, &r, "standard");
    ZBT_EQ_STR(line, "Optimize: workers=1 class=standard memory=3221225472 "
               "(3.0GiB) cores=1 spill=107374182400 (100.0GiB) each; "
               "limits: cgroup v1 memory 4.0GiB cpu 1.00");
}

/* No cgroup: the machine's figures, flagged for the warning. */
static void test_worker_resources__machine(void)
{
    char root[1024], proc[1024], line[1024];
    zb_worker_resources r;
    zb_sys_limits l;

    snprintf(root, sizeof root, "%s/none", zbt_tmpdir());
    snprintf(proc, sizeof proc, "%s/missing", root);
    zb_sys_limits_read_tree(&l, root, proc);
    zb_worker_resources_compute(&r, &l, 0, 4, 0);
    ZBT_EQ_INT(r.no_limit, 1);
    ZBT_CHECK(r.cores >= 1);
    ZBT_EQ_U64(r.memory_bytes, l.mem_limit_bytes / 4);
    zb_worker_resources_line(line, sizeof line, &r, "standard");
    ZBT_CONTAINS(line, "(no cgroup limit found)");
    ZBT_CHECK(strncmp(line, "Optimize: workers=4 class=standard memory=",
                      42) == 0);
    /* a headroom larger than the limit leaves half of it */
    l.mem_limit_bytes = 100;
    zb_worker_resources_compute(&r, &l, 1000, 1, 0);
    ZBT_EQ_U64(r.memory_bytes, 50);
    ZBT_EQ_INT(r.cores, 1);
}

static void test_worker_resources__lease_rules(void)
{
    zb_worker_opts o = ZB_WORKER_OPTS_INIT;
    zb_size_classes cs;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    zb_size_classes_default(&cs);
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    o.queue = (zb_queue *)&cs;     /* never used by the check */
    o.classes = &cs;
    o.host.open_catalog = NULL;
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    o.host.open_catalog = (int (*)(zb_catalog **, zb_ctx *, const char *,
                                   void *))1;
    o.size_class = "standard";
    ZBT_OK_CTX(zb_worker_check_opts(&o, &ctx), &ctx);
    o.size_class = "huge";
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "size class 'huge' is not configured");
    o.size_class = "standard";
    o.lease_ms = 60000;
    o.heartbeat_ms = 20000;        /* a third: allowed */
    ZBT_OK_CTX(zb_worker_check_opts(&o, &ctx), &ctx);
    o.heartbeat_ms = 20001;
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "at most a third of the lease (60000 ms)");
    o.heartbeat_ms = 0;
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    o.heartbeat_ms = 100;
    o.lease_ms = 500;
    ZBT_RC(zb_worker_check_opts(&o, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "at least 1 s");
}

const zbt_case test_worker_resources[] = {
    ZBT_CASE(test_worker_resources__cgroup_v2),
    ZBT_CASE(test_worker_resources__cgroup_v1),
    ZBT_CASE(test_worker_resources__machine),
    ZBT_CASE(test_worker_resources__lease_rules),
    ZBT_END
};

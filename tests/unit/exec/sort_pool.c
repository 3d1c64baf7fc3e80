/*
 * tests/unit/exec/sort_pool.c - the thread pool (every job runs once,
 * failures reach wait, the stop flag drops queued jobs) and the core
 * count from cgroup v2 files written here. Run under TSan by
 * scripts/test.sh --tsan.
 */
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>

#include "zbtest.h"
#include "exec/pool.h"
#include "util/alloc.h"

typedef struct counter {
    atomic_int runs;
    atomic_long sum;
    int fail_at;
    atomic_int *stop;
} counter;

typedef struct jobarg {
    counter *c;
    int n;
} jobarg;

static int add_job(void *arg)
{
    jobarg *j = arg;

    atomic_fetch_add(&j->c->runs, 1);
    atomic_fetch_add(&j->c->sum, j->n);
    return j->n == j->c->fail_at ? ZB_EIO : ZB_OK;
}

static void test_exec_sort_pool__runs_every_job(void)
{
    static jobarg args[2000];
    counter c = { 0, 0, -1, NULL };
    zb_pool *p = NULL;
    zb_ctx ctx;
    int i, round;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_pool_new(&p, &ctx, 4, NULL), &ctx);
    ZBT_EQ_INT(zb_pool_threads(p), 4);
    for (round = 0; round < 3; round++) {
        atomic_store(&c.runs, 0);
        atomic_store(&c.sum, 0);
        c.fail_at = round == 1 ? 777 : -1;
        for (i = 0; i < 2000; i++) {
            args[i].c = &c;
            args[i].n = i;
            ZBT_EQ_INT(zb_pool_submit(p, add_job, &args[i]), ZB_OK);
        }
        ZBT_RC(zb_pool_wait(p), round == 1 ? ZB_EIO : ZB_OK);
        ZBT_EQ_INT(atomic_load(&c.runs), 2000);
        ZBT_EQ_INT(atomic_load(&c.sum), 1999 * 2000 / 2);
    }
    ZBT_RC(zb_pool_wait(p), ZB_OK);       /* nothing pending */
    zb_pool_free(p);
}

static int slow_job(void *arg)
{
    jobarg *j = arg;
    struct timespec ts = { 0, 2000000 };

    atomic_fetch_add(&j->c->runs, 1);
    if (j->n == 3)
        atomic_store(j->c->stop, 1);
    nanosleep(&ts, NULL);
    return ZB_OK;
}

static void test_exec_sort_pool__stop_drops_queued(void)
{
    static jobarg args[200];
    atomic_int stop = 0;
    counter c = { 0, 0, -1, &stop };
    zb_pool *p = NULL;
    zb_ctx ctx;
    int i;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_pool_new(&p, &ctx, 2, &stop), &ctx);
    for (i = 0; i < 200; i++) {
        args[i].c = &c;
        args[i].n = i;
        ZBT_EQ_INT(zb_pool_submit(p, slow_job, &args[i]), ZB_OK);
    }
    ZBT_RC(zb_pool_wait(p), ZB_ECANCELED);
    ZBT_CHECK(atomic_load(&c.runs) < 200);
    ZBT_CHECK(atomic_load(&c.runs) >= 4);
    ZBT_RC(zb_pool_submit(p, slow_job, &args[0]), ZB_ECANCELED);
    atomic_store(&stop, 0);
    ZBT_EQ_INT(zb_pool_submit(p, slow_job, &args[10]), ZB_OK);
    ZBT_RC(zb_pool_wait(p), ZB_OK);
    zb_pool_free(p);
    zb_pool_free(NULL);
}

static void test_exec_sort_pool__bad_size(void)
{
    zb_pool *p = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(zb_pool_new(&p, &ctx, 0, NULL), ZB_EINVAL);
    ZBT_RC(zb_pool_new(&p, &ctx, 100000, NULL), ZB_EINVAL);
    ZBT_CHECK(p == NULL);
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    zbt_write_file(path, text, strlen(text));
}

static void test_exec_sort_pool__limits(void)
{
    const char *dir = zbt_tmpdir();
    zb_sys_limits l, sys;

    ZBT_EQ_INT(zb_cores_from_limits(8, 64ull << 30), 8);
    ZBT_EQ_INT(zb_cores_from_limits(8, 10ull << 30), 2);
    ZBT_EQ_INT(zb_cores_from_limits(2.9, 64ull << 30), 2);
    ZBT_EQ_INT(zb_cores_from_limits(0.5, 64ull << 30), 1);
    ZBT_EQ_INT(zb_cores_from_limits(16, 1ull << 30), 1);
    zb_sys_limits_read(&sys, dir);            /* no files: the system */
    ZBT_EQ_INT(sys.cpu_from_cgroup, 0);
    ZBT_EQ_INT(sys.mem_from_cgroup, 0);
    ZBT_CHECK(sys.cpu_limit >= 1 && sys.mem_limit_bytes > 0);
    ZBT_EQ_INT(sys.cores, zb_cores_from_limits(sys.cpu_limit,
                                               sys.mem_limit_bytes));
    put(dir, "cpu.max", "50000 100000\n");
    put(dir, "memory.max", "1073741824\n");
    zb_sys_limits_read(&l, dir);
    ZBT_EQ_INT(l.cpu_from_cgroup, 1);
    ZBT_CHECK(l.cpu_limit > 0.49 && l.cpu_limit < 0.51);
    ZBT_EQ_INT(l.mem_from_cgroup, sys.mem_limit_bytes > (1ull << 30));
    ZBT_EQ_INT(l.cores, 1);
    put(dir, "cpu.max", "max 100000\n");
    put(dir, "memory.max", "max\n");
    zb_sys_limits_read(&l, dir);
    ZBT_EQ_INT(l.cpu_from_cgroup, 0);
    ZBT_EQ_INT(l.mem_from_cgroup, 0);
    ZBT_EQ_U64(l.mem_limit_bytes, sys.mem_limit_bytes);
    zb_sys_limits_read(&l, NULL);             /* this process: sane */
    ZBT_CHECK(l.cores >= 1 && l.cpu_limit > 0);
}

const zbt_case test_exec_sort_pool[] = {
    ZBT_CASE(test_exec_sort_pool__runs_every_job),
    ZBT_CASE(test_exec_sort_pool__stop_drops_queued),
    ZBT_CASE(test_exec_sort_pool__bad_size),
    ZBT_CASE(test_exec_sort_pool__limits),
    ZBT_END
};

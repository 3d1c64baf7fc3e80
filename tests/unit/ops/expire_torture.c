/*
 * tests/unit/ops/expire_torture.c - allocation failures in expire and
 * remove-orphans. A table folder (PATH catalog) is made once; each round
 * works on a fresh copy and fails the n-th allocation (every n for a dry
 * run, a stride of them for real runs). Every round returns ZB_OK or
 * ZB_ENOMEM; a dry run leaves every byte as it was; a real run, however
 * far it got, leaves a table whose every snapshot still reads whole (no
 * referenced file is ever deleted) and deletes nothing it should not.
 * ASan runs of the suite check that nothing leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_fixture.h"
#include "ops/expire/expire.h"
#include "ops/orphans/remove_orphans.h"
#include "table/commit/commit.h"
#include "util/alloc.h"

typedef int (*op_fn)(zb_op_target *t, zb_ctx *ctx);

static int run_expire(zb_op_target *t, zb_ctx *ctx)
{
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    int rc;

    o.min_snapshots_to_keep = 2;
    o.delete_threads = 2;
    rc = zb_expire(t, ctx, &o, &r);
    zb_expire_result_free(&r);
    return rc;
}

static int run_orphans(zb_op_target *t, zb_ctx *ctx)
{
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;

    o.delete_threads = 2;
    return zb_remove_orphans(t, ctx, &o, &r);
}

/* With a previous-versions-max of 2: old metadata files to delete. */
static int short_log;

/* A folder table of 6 snapshots with a removed file and an old stray. */
static void make_master(of_env *e, const char *folder)
{
    zb_table *t = of_make_catalog_table(e, folder, NULL, 4, 5);
    char *path = of_data_file(e, t, 1), stray[1200];
    if (short_log) {
        ice_kv kv = { "write.metadata.previous-versions-max", "2" };
        of_commit(e, &t, (json_t *)ice_update_set_properties(&kv, 1));
    }

    of_remove_file(e, &t, path);
    of_append_to(e, &t, -1, 100, 5);
    free(path);
    snprintf(stray, sizeof stray, "%s/data/stray.parquet", folder);
    of_make_file(stray, 7, 10 * OF_DAY_MS);
    zb_table_free(t);
}

static void torture(op_fn fn, int dry_run)
{
    of_env e;
    char master[700], copy[700], cmd[1600], *before, *after;
    uint64_t n_allocs, nth, stride, failed;
    zb_op_target tg;
    int rc, rounds = 0, enomem = 0;

    of_open_catalog(&e, 0);
    snprintf(master, sizeof master, "%s/master", e.dir);
    snprintf(copy, sizeof copy, "%s/copy", e.dir);
    make_master(&e, master);
    memset(&tg, 0, sizeof tg);
    tg.catalog = e.cat;
    tg.io = e.io;
    tg.ident = copy;
    tg.dry_run = dry_run;
    tg.now_ms = of_now_ms() + 10 * OF_DAY_MS;

    /* A clean round counts the allocations. */
    of_copy(master, copy);
    n_allocs = zb_alloc__count();
    ZBT_OK_CTX(fn(&tg, &e.ctx), &e.ctx);
    n_allocs = zb_alloc__count() - n_allocs;
    ZBT_CHECK(n_allocs > 10);
    stride = dry_run ? 1 + n_allocs / 100 : 1 + n_allocs / 40;
    for (nth = 1; nth <= n_allocs; nth += stride) {
        zb_table *t = NULL;
        size_t i;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
        ZBT_CHECK(system(cmd) == 0);
        of_copy(master, copy);
        before = of_tree(copy);
        zb_ctx_init(&e.ctx);
        zb_alloc__fail_at(nth, 0);
        rc = fn(&tg, &e.ctx);
        failed = zb_alloc__fail_at(0, 0);
        rounds++;
        if (rc != ZB_OK) {
            if (rc != ZB_ENOMEM)
                zbt__fail(__FILE__, __LINE__, "allocation %llu: %s (%s)",
                          (unsigned long long)nth, zb_rc_name(rc),
                          e.ctx.err.msg);
            ZBT_CHECK(failed > 0);
            enomem++;
        }
        after = of_tree(copy);
        if (dry_run)
            ZBT_EQ_STR(after, before);
        zb_ctx_init(&e.ctx);
        ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, copy, &t), &e.ctx);
        for (i = 0; i < t->meta->n_snapshots; i++)
            ZBT_CHECK(of_check_snapshot(&e, t, &t->meta->snapshots[i],
                                        OF_CHECK_ALL) > 0);
        for (i = 0; i < t->meta->n_metadata_log; i++) {
            zb_buf b = ZB_BUF_INIT(1 << 16);   /* the log's files stay */
            ZBT_OK_CTX(zb_table_resolve(&b, &e.ctx, t,
                                        t->meta->metadata_log[i].metadata_file),
                       &e.ctx);
            ZBT_CHECK(of_exists(zb_buf_cstr(&b)));
            zb_buf_free(&b);
        }
        zb_table_free(t);
        free(before);
        free(after);
    }
    printf("  %d rounds of %llu allocations, %d ZB_ENOMEM\n", rounds,
           (unsigned long long)n_allocs, enomem);
    ZBT_CHECK(enomem > 0);
    of_close(&e);
}

static void test_ops_expire__torture_dry_run(void)
{
    torture(run_expire, 1);
}

static void test_ops_expire__torture(void)
{
    torture(run_expire, 0);
}

static void test_ops_expire__torture_metadata_dry_run(void)
{
    short_log = 1;
    torture(run_expire, 1);
    short_log = 0;
}

static void test_ops_expire__torture_metadata(void)
{
    short_log = 1;
    torture(run_expire, 0);
    short_log = 0;
}

static void test_ops_orphans__torture_dry_run(void)
{
    torture(run_orphans, 1);
}

static void test_ops_orphans__torture(void)
{
    torture(run_orphans, 0);
}

const zbt_case test_ops_expire_torture[] = {
    ZBT_CASE(test_ops_expire__torture_dry_run),
    ZBT_CASE(test_ops_expire__torture),
    ZBT_CASE(test_ops_expire__torture_metadata_dry_run),
    ZBT_CASE(test_ops_expire__torture_metadata),
    ZBT_CASE(test_ops_orphans__torture_dry_run),
    ZBT_CASE(test_ops_orphans__torture),
    ZBT_END
};

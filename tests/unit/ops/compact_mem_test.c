/*
 * tests/unit/ops/compact_mem_test.c - the memory a sort compaction group
 * is planned with under a byte budget (ops/compact/compact.h sort_memory_bytes):
 * the default sort memory gives way to the budget's limit (or
 * max_group_memory_bytes) so that the group fits instead of being refused;
 * an explicit sort memory is kept. Dry runs over a table whose four data
 * files claim 10 MiB each (the plan reads manifests, never the data).
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ops/compact/compact.h"
#include "ops/ingest/table_write.h"
#include "util/alloc.h"
#include "zamboni/budget.h"
#include "zbtest.h"

#define MIB ((uint64_t)1 << 20)

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}";

typedef struct env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    char dir[4096];
} env;

static void env_open(env *e, const char *name)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    ice_data_file df[4];
    zb_table *t = NULL;
    char path[4200];
    int i;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    snprintf(e->dir, sizeof e->dir, "%s/%s", zbt_tmpdir(), name);
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    ZBT_CHECK(schema != NULL);
    ZBT_OK_CTX(zb_ingest_create(&t, e->cat, &e->ctx, e->dir, NULL,
                                (const zb_json *)schema,
                                NULL, NULL, 0, 2), &e->ctx);
    memset(df, 0, sizeof df);
    for (i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/data/f%d.parquet", e->dir, i);
        df[i].content = ICE_CONTENT_DATA;
        df[i].file_path = zb_strdup(path);
        df[i].file_format = "PARQUET";
        df[i].record_count = 200000;
        df[i].file_size_in_bytes = (int64_t)(10 * MIB);
        df[i].block_size_in_bytes = ICE_NULL_LONG;
        df[i].first_row_id = ICE_NULL_LONG;
        df[i].content_offset = ICE_NULL_LONG;
        df[i].content_size_in_bytes = ICE_NULL_LONG;
    }
    ZBT_OK_CTX(zb_ingest_commit_files(&t, e->cat, e->io, &e->ctx, df, NULL,
                                      4), &e->ctx);
    for (i = 0; i < 4; i++)
        zb_free((char *)df[i].file_path);
    zb_table_free(t);
    json_decref(schema);
}

static void env_close(env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
}

/* The one group's planned memory (dry run), with a budget of budget_mib
 * (0: none). */
static uint64_t planned(env *e, uint64_t budget_mib, uint64_t sort_mib,
                        uint64_t max_group_mib)
{
    zb_op_target t = { e->cat, e->io, e->dir, 1, 0 };
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field f = { 1, 0, 0 };
    zb_compact_result r;
    zb_budget *b = NULL;
    uint64_t est;

    if (budget_mib > 0)
        ZBT_RC(zb_budget_new(&b, budget_mib * MIB, NULL), ZB_OK);
    e->ctx.budget = b;
    o.strategy = ZB_COMPACT_SORT;
    o.sort_fields = &f;
    o.n_sort_fields = 1;
    o.rewrite_all = 1;
    o.sort_memory_bytes = sort_mib * MIB;
    o.max_group_memory_bytes = max_group_mib * MIB;
    ZBT_OK_CTX(zb_compact(&t, &e->ctx, &o, &r), &e->ctx);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    est = r.plan.groups[0].est_memory_bytes;
    zb_compact_result_free(&r);
    e->ctx.budget = NULL;
    zb_budget_free(b);
    return est;
}

static void test_ops_compact_mem__sort_fits_budget(void)
{
    env e;
    uint64_t free_est, est, base;

    env_open(&e, "mem-sort");
    /* No budget: the rest of the estimate plus the 128 MiB default. */
    free_est = planned(&e, 0, 0, 0);
    base = free_est - 128 * MIB;
    printf("  no budget: %llu MiB (sort 128 MiB)\n",
           (unsigned long long)(free_est / MIB));
    ZBT_CHECK(base + 64 * MIB < 256 * MIB);
    ZBT_CHECK(free_est > 256 * MIB);
    /* 256 MiB budget: the sort takes what is left, the group fits. */
    est = planned(&e, 256, 0, 0);
    ZBT_EQ_U64(est, 256 * MIB);
    /* max_group_memory_bytes rules over the budget's limit. */
    est = planned(&e, 256, 0, (base + 40 * MIB) / MIB + 1);
    ZBT_CHECK(est <= base + 41 * MIB && est >= base + 40 * MIB);
    /* Never below 16 MiB of sort (the group then runs alone, above the
     * budget). */
    est = planned(&e, (base + 4 * MIB) / MIB, 0, 0);
    ZBT_EQ_U64(est, base + 16 * MIB);
    /* An explicit sort memory is kept. */
    est = planned(&e, 256, 128, 0);
    ZBT_EQ_U64(est, free_est);
    env_close(&e);
}

static const zbt_case test_ops_compact_mem[] = {
    ZBT_CASE(test_ops_compact_mem__sort_fits_budget),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_compact_mem, NULL };

    return zbt_main(argc, argv, suites);
}

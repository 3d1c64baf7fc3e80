/*
 * The scan filter on fixture tables, with counts read by hand from their
 * manifests (zb-manifest-cat):
 *   impala-v1-non-partitioned: 20 one-row files, id (field 1, int) 1..20
 *     (lower == upper), action (3) view x8, download x6, click x6, no
 *     nulls (null_value_counts 0 for every column);
 *   impala-v1-partitioned: the same rows, partitioned by
 *     hour(event_time) (4, timestamptz) and identity(action): view in
 *     hour 438296, click in 438297, download in 438298;
 *   impala-v2-pos-partitioned: identity(action), one data manifest with
 *     summary click..view, no nulls; files click, download, view.
 */
#include <stdio.h>
#include <string.h>

#include "scan_test.h"

static size_t count(sfx *f, const zb_scan_pred *preds, size_t n,
                    zb_scan_stats *st)
{
    splan p;
    size_t r;

    ZBT_OK_CTX(splan_run(&p, f, NULL, preds, n), &f->ctx);
    r = p.n;
    if (st)
        *st = p.st;
    ZBT_EQ_U64(p.st.data_files, p.n);
    splan_free(&p);
    return r;
}

static zb_scan_pred pi(int32_t id, zb_scan_op op, int32_t v)
{
    zb_scan_pred p;

    p.field_id = id;
    p.op = op;
    p.literal = ice_value_int(v);
    return p;
}

static zb_scan_pred ps(int32_t id, zb_scan_op op, const char *s)
{
    zb_scan_pred p;

    p.field_id = id;
    p.op = op;
    p.literal = ice_value_string(s, strlen(s));
    return p;
}

static zb_scan_pred pn(int32_t id, zb_scan_op op)
{
    zb_scan_pred p;

    p.field_id = id;
    p.op = op;
    p.literal = ice_value_null(ICE_INT);
    return p;
}

static void test_plan_scan_filter__column_bounds(void)
{
    sfx f;
    zb_scan_pred q[2];
    zb_scan_stats st;

    if (!sfx_open(&f, "impala-v1-non-partitioned"))
        return;
    q[0] = pi(1, ZB_SCAN_EQ, 7);
    ZBT_EQ_U64(count(&f, q, 1, &st), 1);
    ZBT_EQ_U64(st.data_files_skipped, 19);
    q[0] = pi(1, ZB_SCAN_LT, 5);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 4);
    q[0] = pi(1, ZB_SCAN_LE, 5);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 5);
    q[0] = pi(1, ZB_SCAN_GE, 18);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 3);
    q[0] = pi(1, ZB_SCAN_GT, 20);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 0);
    q[0].literal = ice_value_long(7);     /* a long literal, int column */
    q[0].op = ZB_SCAN_EQ;
    ZBT_EQ_U64(count(&f, q, 1, NULL), 1);
    q[0] = ps(3, ZB_SCAN_EQ, "click");
    ZBT_EQ_U64(count(&f, q, 1, NULL), 6);
    q[0] = ps(3, ZB_SCAN_GT, "download");
    ZBT_EQ_U64(count(&f, q, 1, NULL), 8);
    q[0] = ps(3, ZB_SCAN_EQ, "zzz");
    ZBT_EQ_U64(count(&f, q, 1, NULL), 0);
    q[0] = pn(1, ZB_SCAN_IS_NULL);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 0);
    q[0] = pn(1, ZB_SCAN_NOT_NULL);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 20);
    /* conjunction: view files with id <= 10 (ids of view: 1,4,7,10,...) */
    q[0] = ps(3, ZB_SCAN_EQ, "view");
    q[1] = pi(1, ZB_SCAN_LE, 10);
    ZBT_CHECK(count(&f, q, 2, NULL) <= 8);
    ZBT_CHECK(count(&f, q, 2, NULL) >= 1);
    sfx_close(&f);
}

static void test_plan_scan_filter__partition_transforms(void)
{
    sfx f;
    zb_scan_pred q[1];
    const int64_t hour_us = 3600LL * 1000000LL;

    if (!sfx_open(&f, "impala-v1-partitioned"))
        return;
    q[0].field_id = 4;
    q[0].op = ZB_SCAN_GE;
    q[0].literal = ice_value_time(ICE_TIMESTAMPTZ, 438298LL * hour_us);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 6);
    q[0].op = ZB_SCAN_LT;
    q[0].literal = ice_value_time(ICE_TIMESTAMPTZ, 438297LL * hour_us);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 8);
    q[0].op = ZB_SCAN_GT;
    q[0].literal = ice_value_time(ICE_TIMESTAMPTZ, 438299LL * hour_us);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 0);
    q[0] = ps(3, ZB_SCAN_EQ, "download");
    ZBT_EQ_U64(count(&f, q, 1, NULL), 6);
    sfx_close(&f);
}

static void test_plan_scan_filter__manifest_summaries(void)
{
    sfx f;
    zb_scan_pred q[1];
    zb_scan_stats st;

    if (!sfx_open(&f, "impala-v2-pos-partitioned"))
        return;
    q[0] = ps(3, ZB_SCAN_EQ, "zzz");   /* above the summary's "view" */
    ZBT_EQ_U64(count(&f, q, 1, &st), 0);
    ZBT_EQ_U64(st.manifests_skipped, 1);
    ZBT_EQ_U64(st.data_files_skipped, 0);
    ZBT_EQ_U64(st.pos_delete_files, 3);     /* deletes never filtered */
    q[0] = ps(3, ZB_SCAN_EQ, "click");
    ZBT_EQ_U64(count(&f, q, 1, &st), 1);
    ZBT_EQ_U64(st.manifests_skipped, 0);
    ZBT_EQ_U64(st.data_files_skipped, 2);
    ZBT_EQ_U64(st.delete_refs, 1);
    q[0] = ps(3, ZB_SCAN_LT, "click");
    ZBT_EQ_U64(count(&f, q, 1, &st), 0);
    ZBT_EQ_U64(st.manifests_skipped, 1);
    q[0] = pn(3, ZB_SCAN_IS_NULL);
    ZBT_EQ_U64(count(&f, q, 1, &st), 0);
    ZBT_EQ_U64(st.manifests_skipped, 1);
    q[0] = pn(3, ZB_SCAN_NOT_NULL);
    ZBT_EQ_U64(count(&f, q, 1, NULL), 3);
    sfx_close(&f);
}

static void test_plan_scan_filter__bad_predicates(void)
{
    sfx f;
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    zb_scan_pred q[1];

    if (!sfx_open(&f, "impala-v1-non-partitioned"))
        return;
    po.manifest = &f.o;
    po.preds = q;
    po.n_preds = 1;
    q[0] = pi(99, ZB_SCAN_EQ, 1);           /* no such field */
    ZBT_RC(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                             ice_metadata_current_snapshot(f.m), &po),
           ZB_EINVAL);
    ZBT_CONTAINS(f.ctx.err.msg, "field id 99");
    q[0] = ps(1, ZB_SCAN_EQ, "7");          /* string literal, int field */
    ZBT_RC(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                             ice_metadata_current_snapshot(f.m), &po),
           ZB_EINVAL);
    ZBT_CONTAINS(f.ctx.err.msg, "literal is string");
    q[0] = pn(1, ZB_SCAN_EQ);               /* null literal */
    ZBT_RC(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                             ice_metadata_current_snapshot(f.m), &po),
           ZB_EINVAL);
    ZBT_CHECK(p == NULL);
    sfx_close(&f);
}

const zbt_case test_plan_scan_filter[] = {
    ZBT_CASE(test_plan_scan_filter__column_bounds),
    ZBT_CASE(test_plan_scan_filter__partition_transforms),
    ZBT_CASE(test_plan_scan_filter__manifest_summaries),
    ZBT_CASE(test_plan_scan_filter__bad_predicates),
    ZBT_END
};

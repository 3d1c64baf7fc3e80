/*
 * tests/unit/ops/compact_sort.c - the sort and z-order strategies: rows
 * unchanged, and every output file read back on its own (its Parquet
 * rows, in file order) is sorted: by id descending; by the table's sort
 * order (part asc, id asc), whose id stamps the files; by the z-values
 * of (id, part) computed here from sortkey.h's definition; also with a
 * sort memory small enough to spill runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "format/parquet/parquet.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit.h"
#include "util/alloc.h"

typedef enum { BY_ID_DESC, BY_PART_ID, BY_ZORDER } order_kind;

static uint64_t zvalue(int64_t id, int32_t part)
{
    uint64_t a = ((uint64_t)id ^ ((uint64_t)1 << 63)) >> 48;
    uint64_t b = ((uint64_t)((uint32_t)part ^ (1u << 31)) << 32) >> 48;
    uint64_t z = 0;
    int k;

    /* Bit 15 of column 0 first, then bit 15 of column 1, ... */
    for (k = 15; k >= 0; k--)
        z = (z << 2) | (((a >> k) & 1) << 1) | ((b >> k) & 1);
    return z;
}

/* 1 when row (id1, p1) may follow (id0, p0). */
static int in_order(order_kind k, int64_t id0, int32_t p0, int64_t id1,
                    int32_t p1)
{
    switch (k) {
    case BY_ID_DESC:
        return id1 <= id0;
    case BY_PART_ID:
        return p1 > p0 || (p1 == p0 && id1 >= id0);
    default:
        return zvalue(id1, p1) >= zvalue(id0, p0);
    }
}

/* Every live data file sorted on its own; returns the files checked. */
static size_t check_sorted(of_env *e, order_kind k, int32_t stamp)
{
    zb_table *t = of_load(e);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    size_t files = 0;
    int rc;

    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta,
                                 ice_metadata_current_snapshot(t->meta), &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        pq_reader_opts ro = PQ_READER_OPTS_INIT;
        pq_reader *r = NULL;
        struct ArrowArray b;
        int32_t fids[2] = { 1, 2 };
        int64_t last_id = 0;
        int32_t last_p = 0;
        int first = 1;

        if (stamp >= 0) {
            ZBT_CHECK(task->data.file->has_sort_order_id);
            ZBT_EQ_INT(task->data.file->sort_order_id, stamp);
        }
        ro.field_ids = fids;
        ro.n_field_ids = 2;
        ZBT_OK_CTX(pq_reader_open(&r, e->io, &e->ctx, task->data.uri, &ro),
                   &e->ctx);
        while ((rc = pq_reader_next(r, &e->ctx, &b)) == 1) {
            const int64_t *ids = b.children[0]->buffers[1];
            const int32_t *ps = b.children[1]->buffers[1];
            int64_t i;

            for (i = 0; i < b.length; i++) {
                int64_t id = ids[i + b.children[0]->offset];
                int32_t pt = ps[i + b.children[1]->offset];

                if (!first && !in_order(k, last_id, last_p, id, pt)) {
                    printf("  %s: (%lld, %d) after (%lld, %d)\n",
                           task->data.file->file_path, (long long)id, pt,
                           (long long)last_id, last_p);
                    ZBT_CHECK(!"output file not sorted");
                }
                first = 0;
                last_id = id;
                last_p = pt;
            }
            b.release(&b);
        }
        ZBT_OK_CTX(rc < 0 ? rc : 0, &e->ctx);
        pq_reader_free(r);
        files++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_scan_plan_free(p);
    zb_table_free(t);
    return files;
}

/* A table whose appends hold ids out of order. */
static void make_table(of_env *e, const char *name, int partitioned)
{
    int a;

    of_open(e, name);
    of_make_table(e, 2, partitioned, 2, 0, 0);
    for (a = 0; a < 24; a++)
        of_append(e, partitioned ? a % 2 : -1, (int64_t)((a * 7) % 24) * 100,
                  100);
}

static void run_sort(const char *name, int partitioned, zb_compact_opts *o,
                     order_kind k, int32_t stamp)
{
    of_env e;
    zb_compact_result r;
    uint64_t rows0, h0, rows1, h1;
    size_t files;

    make_table(&e, name, partitioned);
    of_rows(&e, &rows0, &h0);
    o->target_file_bytes = 8192;
    o->rewrite_all = 1;
    ZBT_OK_CTX(ct_compact(&e, o, &r), &e.ctx);
    ZBT_CHECK(r.groups_committed >= 1);
    of_rows(&e, &rows1, &h1);
    ZBT_EQ_U64(rows1, rows0);
    ZBT_EQ_U64(h1, h0);
    files = check_sorted(&e, k, stamp);
    printf("  %zu sorted file(s), %llu run(s) spilled (%llu bytes)\n", files,
           (unsigned long long)r.plan.groups[0].sort_runs,
           (unsigned long long)r.plan.groups[0].sort_spilled_bytes);
    if (o->sort_memory_bytes > 0 && o->sort_memory_bytes < (64 << 10))
        ZBT_CHECK(r.plan.groups[0].sort_runs > 1);
    ZBT_CHECK(files > 1);
    zb_compact_result_free(&r);
    of_close(&e);
}

static void test_ops_compact_sort__columns(void)
{
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field f = { 1, 1, 0 };

    o.strategy = ZB_COMPACT_SORT;
    o.sort_fields = &f;
    o.n_sort_fields = 1;
    run_sort("s-cols", 1, &o, BY_ID_DESC, -1);
}

static void test_ops_compact_sort__spill(void)
{
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field f = { 1, 1, 0 };

    o.strategy = ZB_COMPACT_SORT;
    o.sort_fields = &f;
    o.n_sort_fields = 1;
    o.sort_memory_bytes = 16 << 10;
    o.batch_rows = 256;
    run_sort("s-spill", 0, &o, BY_ID_DESC, -1);
}

static void test_ops_compact_sort__table_order(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    zb_table *t, *t2 = NULL;
    json_t *updates = json_array(), *reqs = json_array();
    json_t *order = json_loads(
        "{\"order-id\":1,\"fields\":["
        "{\"source-id\":2,\"transform\":\"identity\",\"direction\":\"asc\","
        "\"null-order\":\"nulls-first\"},"
        "{\"source-id\":1,\"transform\":\"identity\",\"direction\":\"asc\","
        "\"null-order\":\"nulls-first\"}]}", 0, NULL);

    make_table(&e, "s-order", 0);
    /* Unsorted table: sort without columns is refused. */
    o.strategy = ZB_COMPACT_SORT;
    ZBT_RC(ct_compact(&e, &o, &r), ZB_EINVAL);
    ZBT_CONTAINS(e.ctx.err.msg, "unsorted");
    zb_compact_result_free(&r);
    ZBT_CHECK(order != NULL && updates != NULL && reqs != NULL);
    ZBT_OK_CTX(ice_update_set_sort_order((zb_json *)updates, &e.ctx,
                                         (const zb_json *)order), &e.ctx);
    t = of_load(&e);
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)updates, &t2),
               &e.ctx);
    zb_table_free(t);
    zb_table_free(t2);
    json_decref(order);
    json_decref(updates);
    json_decref(reqs);
    of_close(&e);
    {
        of_env e2;
        uint64_t rows0, h0;

        of_open(&e2, "s-order");
        of_rows(&e2, &rows0, &h0);
        o.target_file_bytes = 8192;
        o.rewrite_all = 1;
        ZBT_OK_CTX(ct_compact(&e2, &o, &r), &e2.ctx);
        zb_compact_result_free(&r);
        {
            uint64_t rows1, h1;

            of_rows(&e2, &rows1, &h1);
            ZBT_EQ_U64(rows1, rows0);
            ZBT_EQ_U64(h1, h0);
        }
        ZBT_CHECK(check_sorted(&e2, BY_PART_ID, 1) > 1);
        of_close(&e2);
    }
}

static void test_ops_compact_sort__zorder(void)
{
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field f[2] = { { 1, 0, 0 }, { 2, 0, 0 } };

    o.strategy = ZB_COMPACT_ZORDER;
    o.sort_fields = f;
    o.n_sort_fields = 2;
    run_sort("s-z", 0, &o, BY_ZORDER, -1);
    o.n_sort_fields = 1;
    {
        of_env e;
        zb_compact_result r;

        make_table(&e, "s-z1", 0);
        ZBT_RC(ct_compact(&e, &o, &r), ZB_EINVAL);
        zb_compact_result_free(&r);
        of_close(&e);
    }
}

const zbt_case test_ops_compact_sort[] = {
    ZBT_CASE(test_ops_compact_sort__columns),
    ZBT_CASE(test_ops_compact_sort__spill),
    ZBT_CASE(test_ops_compact_sort__table_order),
    ZBT_CASE(test_ops_compact_sort__zorder),
    ZBT_END
};

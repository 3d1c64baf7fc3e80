/*
 * tests/unit/ops/compact_gen.c - compaction of generated tables: plans
 * and their lines, binpack of v1/v2/v3 tables partitioned or not, with
 * position and equality deletes (on two columns), the live rows before
 * and after (count and an order-free hash of every value), file counts
 * against ceil(bytes / target), the starting sequence number, dry run,
 * the row-count abort, the memory refusal, partial progress, stop, and
 * allocation failure while planning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "format/parquet/parquet.h"
#include "plan/scan/scan_plan.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

#define SMALL_TARGET 4096

static void same_rows(of_env *e, uint64_t rows0, uint64_t h0)
{
    uint64_t rows, h;

    of_rows(e, &rows, &h);
    ZBT_EQ_U64(rows, rows0);
    ZBT_EQ_U64(h, h0);
}

static void test_ops_compact_gen__plan(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    char *before, *after;

    of_open(&e, "cplan");
    of_make_table(&e, 2, 1, 4, 16, 50);
    e.t.dry_run = 1;
    before = of_listing(e.dir);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    after = of_listing(e.dir);
    ZBT_EQ_STR(before, after);     /* a dry run writes nothing */
    ZBT_EQ_U64(r.plan.n_groups, 4);
    ZBT_EQ_U64(r.plan.files, 16);
    ZBT_EQ_U64(r.plan.rows, 16 * 50);
    ZBT_EQ_U64(r.plan.live_files, 16);
    ZBT_EQ_U64(r.plan.est_out_files, 4);
    ZBT_CHECK(r.plan.est_peak_memory_bytes > 0);
    ZBT_EQ_INT(r.plan.target_file_bytes, ZB_TSET_DEFAULT_TARGET_FILE_BYTES);
    ZBT_OK_CTX(zb_compact_plan_report(&out, "db.t", &r.plan), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "db.t: 4 group(s), 16 file(s), target "
                                    "134217728 bytes, snapshot ");
    ZBT_CONTAINS(zb_buf_cstr(&out), "  group 1: spec=0 partition=(");
    ZBT_CONTAINS(zb_buf_cstr(&out), "files=4 bytes=");
    ZBT_CONTAINS(zb_buf_cstr(&out), "rows=200");
    {
        uint64_t per_file = r.plan.bytes / 16;

        zb_compact_result_free(&r);
        /* Groups cut at 2.5 files' bytes: two files each. */
        o.max_group_bytes = per_file * 5 / 2;
        ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
        ZBT_EQ_U64(r.plan.n_groups, 8);
        ZBT_EQ_U64(r.plan.files, 16);
        zb_compact_result_free(&r);
        o.max_group_bytes = 0;
    }
    o.min_input_files = 5;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 0);
    ZBT_EQ_U64(r.plan.n_skipped, 4);
    ZBT_EQ_STR(r.plan.skipped[0].reason,
               "4 candidate file(s) < min_input_files=5");
    zb_compact_result_free(&r);
    /* Files within [min, max] are no candidates, unless all (issue
     * 21: above max-file-size-bytes, 180% of the target, they are). */
    o.min_input_files = 2;
    o.target_file_bytes = 100;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 4);
    ZBT_EQ_U64(r.plan.groups[0].why[ZB_COMPACT_WHY_LARGE], 4);
    zb_compact_result_free(&r);
    o.max_file_bytes = INT64_MAX;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 0);
    ZBT_EQ_U64(r.plan.kept_in_range, 16);
    zb_compact_result_free(&r);
    o.rewrite_all = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 4);
    zb_compact_result_free(&r);
    zb_buf_free(&out);
    zb_free(before);
    zb_free(after);
    of_close(&e);
}

/* Compacts a generated table with a small target and checks rows,
 * file counts, the summary and the sequence numbers. */
static void binpack(const char *name, int fv, int partitioned, int deletes,
                    uint64_t eq_memory)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    size_t n_before, n_after, n_ids, i;
    int64_t start_seq, *ids;
    of_items live;
    char *op, *zop;

    of_open(&e, name);
    of_make_table(&e, fv, partitioned, 3, 30, 200);
    if (deletes) {
        int64_t pos[] = { 0, 7, 199 };
        int64_t eq[] = { 3 * 200 + 5, 3 * 200 + 6, 6 * 200 + 1 };
        char *p = ct_delete_pos(&e, 0, pos, 3, partitioned ? 0 : -1);

        zb_free(p);
        /* ids of append 3 and 6 live in partition 0 (3 % 3, 6 % 3). */
        ct_delete_eq2(&e, eq, 3, partitioned ? 0 : -1);
    }
    of_rows(&e, &rows0, &h0);
    n_before = ct_check_file_counts(&e, 0);
    ZBT_EQ_U64(n_before, 30);
    start_seq = 0;
    {
        zb_table *t = of_load(&e);

        start_seq = t->meta->last_sequence_number;
        zb_table_free(t);
    }
    o.target_file_bytes = SMALL_TARGET;
    o.rewrite_all = 1;
    o.reset_row_lineage = 1;
    o.eq_memory_bytes = eq_memory;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    if (eq_memory > 0 && deletes)
        ZBT_CHECK(r.plan.groups[0].eq_spilled +
                      (r.plan.n_groups > 1 ? r.plan.groups[1].eq_spilled
                                           : 0) +
                      (r.plan.n_groups > 2 ? r.plan.groups[2].eq_spilled
                                           : 0) > 0);
    ZBT_EQ_U64(r.groups_committed, partitioned ? 3 : 1);
    ZBT_EQ_U64(r.files_removed, 30);
    ZBT_EQ_U64(r.commits, 1);
    ZBT_EQ_U64(r.rows_written, rows0);
    same_rows(&e, rows0, h0);
    n_after = ct_check_file_counts(&e, SMALL_TARGET);
    printf("  %zu files -> %zu (%llu bytes)\n", n_before, n_after,
           (unsigned long long)r.bytes_added);
    ZBT_EQ_U64(n_after, r.files_added);
    op = of_summary(&e, "operation");
    zop = of_summary(&e, "zamboni.operation");
    ZBT_EQ_STR(op, "replace");
    ZBT_EQ_STR(zop, "compaction");
    zb_free(op);
    zb_free(zop);
    op = of_summary(&e, "zamboni.removed-data-files");
    ZBT_EQ_STR(op, "30");
    zb_free(op);
    /* The new files carry the starting snapshot's sequence number. */
    of_live(&live, &e);
    for (i = 0; i < live.n; i++)
        if (live.v[i].content == 0 && fv >= 2) {
            ZBT_EQ_INT(live.v[i].seq, start_seq);
            ZBT_EQ_INT(live.v[i].fseq, start_seq + 1);
        }
    of_items_free(&live);
    of_check_files(&e);
    zb_compact_result_free(&r);
    if (fv >= 2) {
        /* A later equality delete applies to the rewritten rows. */
        int64_t eq = 9 * 200 + 3;      /* append 9: partition 0 */

        ct_delete_eq2(&e, &eq, 1, partitioned ? 0 : -1);
        ids = ct_ids(&e, &n_ids);
        ZBT_EQ_U64(n_ids, rows0 - 1);
        for (i = 0; i < n_ids; i++)
            ZBT_CHECK(ids[i] != eq);
        if (deletes)
            for (i = 0; i < n_ids; i++)
                ZBT_CHECK(ids[i] != 605 && ids[i] != 606 && ids[i] != 1201);
        zb_free(ids);
        /* A second run finds nothing worth doing but the deletes. */
        o.rewrite_all = 0;
        ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
        zb_compact_result_free(&r);
        ids = ct_ids(&e, &n_ids);
        ZBT_EQ_U64(n_ids, rows0 - 1);
        zb_free(ids);
    }
    of_close(&e);
}

static void test_ops_compact_gen__v2_unpartitioned(void)
{
    binpack("c-v2u", 2, 0, 0, 0);
}

static void test_ops_compact_gen__v2_partitioned(void)
{
    binpack("c-v2p", 2, 1, 0, 0);
}

static void test_ops_compact_gen__v2_deletes(void)
{
    binpack("c-v2d", 2, 1, 1, 0);
    binpack("c-v2ds", 2, 1, 1, 64);   /* key sets spill */
}

static void test_ops_compact_gen__v2_deletes_unpartitioned(void)
{
    binpack("c-v2du", 2, 0, 1, 0);
}

static void test_ops_compact_gen__v1(void)
{
    binpack("c-v1", 1, 1, 0, 0);
}

static void test_ops_compact_gen__v3_deletes(void)
{
    binpack("c-v3d", 3, 1, 1, 0);
}

/* Row-group copy: inputs without deletes whose row groups are big
 * enough (here: any) are copied, not decoded; rows unchanged. */
static void test_ops_compact_gen__copy(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;

    of_open(&e, "c-copy");
    of_make_table(&e, 2, 1, 2, 12, 100);
    of_rows(&e, &rows0, &h0);
    o.copy_min_rows = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 2);
    ZBT_EQ_U64(r.plan.groups[0].copied_files + r.plan.groups[1].copied_files,
               12);
    same_rows(&e, rows0, h0);
    ZBT_EQ_U64(ct_check_file_counts(&e, ZB_TSET_DEFAULT_TARGET_FILE_BYTES), 2);
    of_check_files(&e);
    zb_compact_result_free(&r);
    /* With deletes the group is decoded (deletes applied), not copied. */
    ct_delete_eq2(&e, (int64_t[]){ 0 }, 1, 0);
    of_append(&e, 0, 5000, 10);
    of_rows(&e, &rows0, &h0);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.plan.groups[0].copied_files, 0);
    same_rows(&e, rows0, h0);
    zb_compact_result_free(&r);
    of_close(&e);
}

/* Evolves t's spec to identity(part) + bucket[3](id). */
static void evolve_spec(of_env *e)
{
    ct_set_spec(e, "[{\"source-id\":2,\"field-id\":1000,\"name\":\"part\","
                   "\"transform\":\"identity\"},{\"source-id\":1,"
                   "\"field-id\":1001,\"name\":\"id_bucket\","
                   "\"transform\":\"bucket[3]\"}]");
}

/* Files of the old spec (identity(part)) rewritten into the new one
 * (identity(part), bucket[3](id)):
 * every output file is in spec 1, and its rows' part column and id
 * bucket are its partition values (read back from the file). */
static void test_ops_compact_gen__spec_evolution(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    of_items live;
    zb_table *t;
    size_t i, files = 0;

    of_open(&e, "c-evo");
    of_make_table(&e, 2, 1, 3, 6, 40);  /* spec 0: identity(part) */
    evolve_spec(&e);
    of_rows(&e, &rows0, &h0);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_CHECK(r.groups_committed >= 1);
    ZBT_EQ_INT(r.plan.groups[0].out_spec_id, 1);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    of_live(&live, &e);
    for (i = 0; i < live.n; i++)
        ZBT_EQ_INT(live.v[i].spec_id, 1);
    of_items_free(&live);
    /* Each file: its rows match its partition values. */
    t = of_load(&e);
    {
        zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
        zb_scan_plan *p = NULL;
        const zb_scan_task *task;
        int rc;

        po.manifest = &t->paths;
        ZBT_OK_CTX(zb_scan_plan_open(&p, e.io, &e.ctx, t->meta,
                                     ice_metadata_current_snapshot(t->meta),
                                     &po), &e.ctx);
        while ((rc = zb_scan_plan_next(p, &e.ctx, &task)) > 0) {
            const ice_data_file *f = task->data.file;
            pq_reader_opts ro = PQ_READER_OPTS_INIT;
            pq_reader *rd = NULL;
            struct ArrowArray b;
            int32_t fids[2] = { 1, 2 };
            ice_transform tr = { ICE_TR_BUCKET, 3 };

            ZBT_EQ_U64(f->n_partition, 2);
            ro.field_ids = fids;
            ro.n_field_ids = 2;
            ZBT_OK_CTX(pq_reader_open(&rd, e.io, &e.ctx, task->data.uri,
                                      &ro), &e.ctx);
            while ((rc = pq_reader_next(rd, &e.ctx, &b)) == 1) {
                const int64_t *ids = b.children[0]->buffers[1];
                const int32_t *ps = b.children[1]->buffers[1];
                int64_t k;

                for (k = 0; k < b.length; k++) {
                    ice_value in = ice_value_long(ids[k]), out;

                    ZBT_OK_CTX(ice_transform_apply(&out, &e.ctx, &tr, &in),
                               &e.ctx);
                    ZBT_EQ_INT(ps[k], f->partition[0].u.i);
                    ZBT_EQ_INT(out.u.i, f->partition[1].u.i);
                }
                b.release(&b);
            }
            ZBT_CHECK(rc == 0);
            pq_reader_free(rd);
            files++;
        }
        ZBT_OK_CTX(rc, &e.ctx);
        zb_scan_plan_free(p);
    }
    zb_table_free(t);
    printf("  %zu files in spec 1, each holding its partition's rows\n",
           files);
    ZBT_CHECK(files >= 3);
    of_close(&e);
}

/* v3 without reset_row_lineage: compacted, the new files written with
 * the row lineage columns (compact_lineage.c checks their values). */
static void test_ops_compact_gen__v3_lineage(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;

    of_open(&e, "c-v3r");
    of_make_table(&e, 3, 0, 1, 4, 10);
    of_rows(&e, &rows0, &h0);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.files_added, 1);
    same_rows(&e, rows0, h0);
    zb_compact_result_free(&r);
    of_close(&e);
}

/* Rows written != rows read - deleted: ZB_EUNSAFE, nothing changes. */
static void test_ops_compact_gen__row_mismatch(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    char *before, *after;
    int64_t id;

    of_open(&e, "c-skew");
    of_make_table(&e, 2, 1, 2, 8, 20);
    id = of_current_id(&e);
    before = of_listing(e.dir);
    hk.row_skew = 1;
    ZBT_RC(ct_compact_hooked(&e, &o, &hk, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, "nothing committed");
    ZBT_EQ_U64(r.groups_failed, 2);
    ZBT_EQ_U64(r.groups_committed, 0);
    after = of_listing(e.dir);
    ZBT_EQ_STR(before, after);     /* outputs deleted, no commit */
    ZBT_EQ_INT(of_current_id(&e), id);
    zb_compact_result_free(&r);
    zb_free(before);
    zb_free(after);
    of_close(&e);
}

/* A group above max_group_memory_bytes fails before writing (a budget
 * smaller than a group is no refusal: compact_par.c). */
static void test_ops_compact_gen__memory(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    zb_budget *b = NULL;
    char *before, *after;
    uint64_t rows0, h0;

    of_open(&e, "c-mem");
    of_make_table(&e, 2, 1, 4, 16, 50);
    of_rows(&e, &rows0, &h0);
    before = of_listing(e.dir);
    ZBT_OK_CTX(zb_budget_new(&b, (uint64_t)1 << 20, NULL), &e.ctx);
    e.ctx.budget = b;
    o.max_group_memory_bytes = (uint64_t)1 << 20;
    ZBT_RC(ct_compact(&e, &o, &r), ZB_ENOMEM);
    ZBT_CONTAINS(e.ctx.err.msg, "bytes of memory, more than the 1048576 "
                                "allowed");
    after = of_listing(e.dir);
    ZBT_EQ_STR(before, after);
    zb_compact_result_free(&r);
    zb_budget_free(b);
    o.max_group_memory_bytes = 0;
    /* With room for two groups at once, on two threads. */
    ZBT_OK_CTX(zb_budget_new(&b, (uint64_t)512 << 20, NULL), &e.ctx);
    e.ctx.budget = b;
    o.max_concurrent = 2;
    o.target_file_bytes = SMALL_TARGET;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 4);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    same_rows(&e, rows0, h0);
    zb_compact_result_free(&r);
    e.ctx.budget = NULL;
    zb_budget_free(b);
    zb_free(before);
    zb_free(after);
    of_close(&e);
}

static void test_ops_compact_gen__partial_progress(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    size_t snaps;

    of_open(&e, "c-pp");
    of_make_table(&e, 2, 1, 4, 16, 50);
    of_rows(&e, &rows0, &h0);
    snaps = of_snapshot_count(&e);
    o.partial_progress = 1;
    o.max_commits = 2;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.commits, 2);
    ZBT_EQ_U64(r.groups_committed, 4);
    ZBT_EQ_U64(of_snapshot_count(&e), snaps + 2);
    same_rows(&e, rows0, h0);
    ZBT_EQ_U64(ct_check_file_counts(&e, ZB_TSET_DEFAULT_TARGET_FILE_BYTES), 4);
    zb_compact_result_free(&r);
    of_close(&e);
}

static void test_ops_compact_gen__stop(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    atomic_int stop = 1;
    char *before, *after;

    of_open(&e, "c-stop");
    of_make_table(&e, 2, 1, 2, 8, 20);
    before = of_listing(e.dir);
    e.ctx.stop = &stop;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_CHECK(r.stopped);
    ZBT_EQ_U64(r.groups_committed, 0);
    after = of_listing(e.dir);
    ZBT_EQ_STR(before, after);
    e.ctx.stop = NULL;
    zb_compact_result_free(&r);
    zb_free(before);
    zb_free(after);
    of_close(&e);
}

static void raise_stop(void *payload)
{
    atomic_store((atomic_int *)payload, 1);
}

/* A stop raised after the groups are written: with no drain time their
 * files are deleted and nothing commits; with one, they commit. */
static void test_ops_compact_gen__stop_drain(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    atomic_int stop = 0;
    char *before, *after;
    int64_t id;
    uint64_t rows0, h0;

    of_open(&e, "c-drain");
    of_make_table(&e, 2, 1, 2, 8, 20);
    of_rows(&e, &rows0, &h0);
    id = of_current_id(&e);
    before = of_listing(e.dir);
    e.ctx.stop = &stop;
    hk.before_commit = raise_stop;
    hk.payload = &stop;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_CHECK(r.stopped);
    ZBT_EQ_U64(r.groups_committed, 0);
    ZBT_EQ_U64(r.groups_dropped, 2);
    zb_compact_result_free(&r);
    after = of_listing(e.dir);
    ZBT_EQ_STR(before, after);
    ZBT_EQ_INT(of_current_id(&e), id);
    atomic_store(&stop, 0);
    o.drain_timeout_ms = 10000;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 2);
    zb_compact_result_free(&r);
    e.ctx.stop = NULL;
    same_rows(&e, rows0, h0);
    zb_free(before);
    zb_free(after);
    of_close(&e);
}

/* Each allocation of a plan (dry run) fails in turn: ZB_ENOMEM or OK,
 * never a crash or a leak (ASan). */
static void test_ops_compact_gen__plan_alloc_failure(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t n0, total, nth, fails = 0;

    of_open(&e, "c-oom");
    of_make_table(&e, 2, 1, 2, 6, 10);
    ct_delete_eq2(&e, (int64_t[]){ 3 }, 1, 0);
    e.t.dry_run = 1;
    n0 = zb_alloc__count();
    ZBT_OK_CTX(zb_compact(&e.t, &e.ctx, &o, &r), &e.ctx);
    total = zb_alloc__count() - n0;
    zb_compact_result_free(&r);
    for (nth = 1; nth <= total + 2; nth += total > 400 ? total / 200 : 1) {
        int rc;

        zb_err_clear(&e.ctx.err);
        zb_alloc__fail_at(nth, 0);
        rc = zb_compact(&e.t, &e.ctx, &o, &r);
        zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        fails += rc == ZB_ENOMEM;
        zb_compact_result_free(&r);
    }
    printf("  %llu allocations, %llu runs failed with ZB_ENOMEM\n",
           (unsigned long long)total, (unsigned long long)fails);
    ZBT_CHECK(fails > 0);
    of_close(&e);
}

const zbt_case test_ops_compact_gen[] = {
    ZBT_CASE(test_ops_compact_gen__plan),
    ZBT_CASE(test_ops_compact_gen__v2_unpartitioned),
    ZBT_CASE(test_ops_compact_gen__v2_partitioned),
    ZBT_CASE(test_ops_compact_gen__v2_deletes),
    ZBT_CASE(test_ops_compact_gen__v2_deletes_unpartitioned),
    ZBT_CASE(test_ops_compact_gen__v1),
    ZBT_CASE(test_ops_compact_gen__v3_deletes),
    ZBT_CASE(test_ops_compact_gen__copy),
    ZBT_CASE(test_ops_compact_gen__spec_evolution),
    ZBT_CASE(test_ops_compact_gen__v3_lineage),
    ZBT_CASE(test_ops_compact_gen__row_mismatch),
    ZBT_CASE(test_ops_compact_gen__memory),
    ZBT_CASE(test_ops_compact_gen__partial_progress),
    ZBT_CASE(test_ops_compact_gen__stop),
    ZBT_CASE(test_ops_compact_gen__stop_drain),
    ZBT_CASE(test_ops_compact_gen__plan_alloc_failure),
    ZBT_END
};

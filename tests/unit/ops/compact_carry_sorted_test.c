/*
 * tests/unit/ops/compact_carry_sorted_test.c - issue 21 for sort and
 * z-order groups (ops/compact/compact_carry_sorted.h): a table of 24
 * appends whose ids are out of order is sorted (id descending) or
 * z-ordered (id, part) into several files while, between the group's
 * write and its commit, position deletes (v2) or deletion vectors (v3)
 * of 9 rows in 3 of its inputs are committed. The group commits with the
 * deletes carried (one position delete file for v2; one DV per new data
 * file that holds a deleted row for v3), and the rows readable after
 * the commit are exactly those before minus the 9, as zamboni's reader
 * and the independent reference reader (tests/interop/scan_reference.mjs,
 * no code shared with src/) both say. One input also has a delete
 * applied while rewriting (the row stream's selection), and the z-order
 * run decodes its inputs ahead on threads (the other way rows enter the
 * sort). Then a map that cannot be kept: under a spill-disk limit of one
 * byte the group is dropped and the report names why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "exec/spill.h"
#include "ops/compact/compact_carry_sorted.h"
#include "format/parquet/parquet.h"
#include "plan/scan/scan_plan.h"
#include "util/alloc.h"
#include "zbtest.h"

#define APPENDS 24
#define ROWS 100
#define VICTIMS 3
#define PER 3

typedef struct victim {
    char *path;                    /* as written */
    int64_t pos[PER], id[PER];
} victim;

typedef struct inject {
    of_env *e;
    victim v[VICTIMS];
} inject;

static void make_table(of_env *e, const char *name, int fv)
{
    int a;

    of_open(e, name);
    of_make_table(e, fv, 0, 1, 0, 0);
    for (a = 0; a < APPENDS; a++)
        of_append(e, -1, (int64_t)((a * 7) % APPENDS) * ROWS, ROWS);
}

/* The ids at pos[0..PER) of data file uri (its rows in file order). */
static void ids_at(of_env *e, const char *uri, const int64_t *pos,
                   int64_t *ids)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowArray b;
    int32_t fid = 1;
    int64_t at = 0;
    int rc, k, found = 0;

    ro.field_ids = &fid;
    ro.n_field_ids = 1;
    ZBT_OK_CTX(pq_reader_open(&r, e->io, &e->ctx, uri, &ro), &e->ctx);
    while ((rc = pq_reader_next(r, &e->ctx, &b)) == 1) {
        const int64_t *v = b.children[0]->buffers[1];

        for (k = 0; k < PER; k++)
            if (pos[k] >= at && pos[k] < at + b.length) {
                ids[k] = v[pos[k] - at + b.children[0]->offset + b.offset];
                found++;
            }
        at += b.length;
        b.release(&b);
    }
    ZBT_OK_CTX(rc < 0 ? rc : 0, &e->ctx);
    pq_reader_free(r);
    ZBT_EQ_INT(found, PER);
}

/* Victims: rows 3, 50, 97 of the 3rd, 10th and 18th live data files,
 * not counting avoid (the file with a delete applied while rewriting: a
 * v3 writer would have to merge its DV, which the test writer cannot). */
static void pick(inject *in, of_env *e, const char *avoid)
{
    static const size_t nth[VICTIMS] = { 2, 9, 17 };
    zb_table *t = of_load(e);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    size_t n = 0, k = 0;
    int rc;

    memset(in, 0, sizeof *in);
    in->e = e;
    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta,
                                 ice_metadata_current_snapshot(t->meta), &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        if (avoid != NULL &&
            strcmp(task->data.file->file_path, avoid) == 0)
            continue;
        if (k < VICTIMS && n == nth[k]) {
            victim *v = &in->v[k++];

            v->pos[0] = 3;
            v->pos[1] = 50;
            v->pos[2] = 97;
            v->path = zb_strdup(task->data.file->file_path);
            ids_at(e, task->data.uri, v->pos, v->id);
        }
        n++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ZBT_EQ_U64(k, VICTIMS);
    zb_scan_plan_free(p);
    zb_table_free(t);
}

static void before_commit(void *payload)
{
    inject *in = payload;
    size_t i;

    for (i = 0; i < VICTIMS; i++)
        ZBT_OK_CTX(ct_delete_pos_rc(in->e, in->v[i].path, in->v[i].pos, PER,
                                    -1), &in->e->ctx);
}

/* ids[0..*n) without the victims' (sorted stays sorted). */
static void remove_victims(int64_t *ids, size_t *n, const inject *in)
{
    size_t i, j, k, at = 0;

    for (i = 0; i < *n; i++) {
        int hit = 0;

        for (j = 0; j < VICTIMS; j++)
            for (k = 0; k < PER; k++)
                hit |= ids[i] == in->v[j].id[k];
        if (!hit)
            ids[at++] = ids[i];
    }
    *n = at;
}

/* The delete files the current snapshot added; *refs: distinct data
 * files its DVs reference. */
static size_t added_deletes(of_env *e, size_t *refs)
{
    zb_table *t = of_load(e);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    const ice_snapshot *cur = ice_metadata_current_snapshot(t->meta);
    json_t *seen = json_object();
    size_t hits = 0;

    ZBT_CHECK(cur != NULL && seen != NULL);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, cur,
                                      &t->paths), &e->ctx);
    while (ice_snapshot_iter_next(it, &e->ctx, &en, &mf) > 0) {
        const ice_data_file *d = &en->data_file;

        if (d->content != ICE_CONTENT_POSITION_DELETES ||
            en->snapshot_id != cur->snapshot_id)
            continue;
        hits++;
        if (ice_data_file_is_dv(d) && d->referenced_data_file != NULL)
            json_object_set_new(seen, d->referenced_data_file, json_true());
    }
    ice_snapshot_iter_free(it);
    *refs = json_object_size(seen);
    json_decref(seen);
    zb_table_free(t);
    return hits;
}

/* One run: strategy over fields, on a v fv table; lose: under a spill
 * limit of one byte (the map cannot be kept). */
static void run(const char *name, int fv, zb_compact_strategy strategy,
                const zb_compact_sort_field *fields, size_t n_fields,
                unsigned threads, int lose)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    inject in;
    int64_t *want, *got, *ref, pre = 10;
    size_t n_want, n_got, n_ref, i, refs = 0, added;
    char *pre_path = NULL;

    make_table(&e, name, fv);
    if (threads <= 1)              /* a delete applied while rewriting */
        pre_path = ct_delete_pos(&e, 0, &pre, 1, -1);
    pick(&in, &e, pre_path);
    want = ct_ids(&e, &n_want);
    remove_victims(want, &n_want, &in);
    ZBT_EQ_U64(n_want, APPENDS * ROWS - (threads <= 1) - VICTIMS * PER);
    o.strategy = strategy;
    o.sort_fields = fields;
    o.n_sort_fields = n_fields;
    o.target_file_bytes = 8192;
    o.rewrite_all = 1;
    o.threads = threads;
    hk.before_commit = before_commit;
    hk.payload = &in;
    if (lose)
        zb_spill_set_limit(1);
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    zb_spill_set_limit(0);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_OK_CTX(zb_compact_report(&out, "t", &r, 0), &e.ctx);
    if (lose) {
        ZBT_EQ_U64(r.groups_committed, 0);
        ZBT_EQ_U64(r.groups_dropped, 1);
        ZBT_CONTAINS(zb_buf_cstr(&out), "dropped group");
        ZBT_CONTAINS(zb_buf_cstr(&out), "spill disk limit");
    } else {
        const zb_compact_group *g = &r.plan.groups[0];

        ZBT_EQ_U64(r.groups_committed, 1);
        ZBT_EQ_U64(r.groups_dropped, 0);
        ZBT_CHECK(g->out_files > 1);
        if (threads > 1)           /* rows came through the read-ahead */
            ZBT_CHECK(g->read_workers > 1);
        ZBT_EQ_U64(g->carried_rows, VICTIMS * PER);
        ZBT_EQ_U64(g->carried_deletes, VICTIMS);
        ZBT_CONTAINS(zb_buf_cstr(&out), "carried deletes: 1 group(s)");
        ZBT_CONTAINS(zb_buf_cstr(&out), "hiding 9 row(s)");
        added = added_deletes(&e, &refs);
        printf("  %llu output(s); the replace added %zu delete file(s), "
               "DVs for %zu file(s)\n", (unsigned long long)g->out_files,
               added, refs);
        if (fv >= 3) {
            /* One DV per new data file holding a deleted row: the sort
             * spread the 9 rows over more than one. */
            ZBT_EQ_U64(added, refs);
            ZBT_CHECK(refs > 1);
        } else {
            ZBT_EQ_U64(added, 1);
        }
    }
    zb_compact_result_free(&r);
    zb_buf_free(&out);
    got = ct_ids(&e, &n_got);
    ct_same_ids(got, n_got, want, n_want);
    if ((ref = ct_reference_ids(&e, &n_ref)) != NULL)
        ct_same_ids(ref, n_ref, want, n_want);
    of_check_files(&e);
    zb_free(ref);
    zb_free(got);
    zb_free(want);
    zb_free(pre_path);
    for (i = 0; i < VICTIMS; i++)
        zb_free(in.v[i].path);
    of_close(&e);
}

static const zb_compact_sort_field by_id_desc[1] = { { 1, 1, 0 } };
static const zb_compact_sort_field id_part[2] = { { 1, 0, 0 },
                                                   { 2, 0, 0 } };

static void test_ops_compact_carry_sorted__sort_v2(void)
{
    run("cs-sort-v2", 2, ZB_COMPACT_SORT, by_id_desc, 1, 1, 0);
}

static void test_ops_compact_carry_sorted__sort_dv_v3(void)
{
    run("cs-sort-v3", 3, ZB_COMPACT_SORT, by_id_desc, 1, 1, 0);
}

static void test_ops_compact_carry_sorted__zorder_v3_read_ahead(void)
{
    run("cs-z-v3", 3, ZB_COMPACT_ZORDER, id_part, 2, 2, 0);
}

static void test_ops_compact_carry_sorted__zorder_v2(void)
{
    run("cs-z-v2", 2, ZB_COMPACT_ZORDER, id_part, 2, 1, 0);
}

static void test_ops_compact_carry_sorted__lost_over_spill_limit(void)
{
    run("cs-lost", 2, ZB_COMPACT_SORT, by_id_desc, 1, 1, 1);
}

/* ---- the map alone: tag, untag (no sort between), map ---- */

/* A batch of n rows of one long column 0..n-1. */
static void long_batch(struct ArrowArray *b, int64_t n)
{
    int64_t *v, i;

    ZBT_CHECK(zb_arrow_array_init(b, 1, 1) == 0);
    ZBT_CHECK(zb_arrow_array_init(b->children[0], 2, 0) == 0);
    ZBT_CHECK((v = zb_malloc((size_t)n * sizeof *v + 1)) != NULL);
    for (i = 0; i < n; i++)
        v[i] = i;
    b->children[0]->buffers[1] = v;
    b->length = b->children[0]->length = n;
}

static void test_ops_compact_carry_sorted__map_unit(void)
{
    static const uint32_t sel[4] = { 1, 4, 6, 9 };
    const int64_t outs[2] = { 3, 3 };
    struct ArrowSchema sch;
    struct ArrowArray b;
    zb_carry_sorted *m = NULL;
    zb_roaring *pos[3] = { NULL, NULL, NULL }, *per_out[2] = { NULL, NULL };
    uint64_t rows = 0;
    zb_ctx ctx;
    size_t i;

    zb_ctx_init(&ctx);
    memset(&sch, 0, sizeof sch);
    ZBT_CHECK(zb_arrow_schema_init(&sch, "+s", "", NULL, 0, 0, 1) == 0);
    ZBT_CHECK(zb_arrow_schema_field(sch.children[0], "l", "x", 1, 0, 0) ==
              0);
    ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch, 3, NULL), &ctx);
    ZBT_EQ_INT(zb_carry_sorted_schema(m)->n_children, 2);
    /* Task 2 rows 101, 104, 106, 109, then task 0 rows 7, 8 (output
     * rows 0..5: the first output holds 101, 104, 106). */
    long_batch(&b, 4);
    ZBT_OK_CTX(zb_carry_sorted_tag(m, &ctx, &b, 2, 100, sel, 4), &ctx);
    ZBT_EQ_INT(b.n_children, 2);
    ZBT_OK_CTX(zb_carry_sorted_untag(m, &ctx, &b), &ctx);
    ZBT_EQ_INT(b.n_children, 1);
    ZBT_EQ_INT(((const int64_t *)b.children[0]->buffers[1])[3], 3);
    zb_arrow_array_release(&b);
    long_batch(&b, 2);
    ZBT_OK_CTX(zb_carry_sorted_tag(m, &ctx, &b, 0, 7, NULL, 2), &ctx);
    ZBT_OK_CTX(zb_carry_sorted_untag(m, &ctx, &b), &ctx);
    zb_arrow_array_release(&b);
    zb_carry_sorted_finish(m, &ctx, 6);
    ZBT_CHECK(zb_carry_sorted_lost(m) == NULL);
    ZBT_CHECK(zb_roaring_new(&pos[0]) == 0 && zb_roaring_new(&pos[2]) == 0);
    ZBT_CHECK(zb_roaring_add(pos[2], 104) == 0);
    ZBT_CHECK(zb_roaring_add(pos[2], 109) == 0);
    ZBT_CHECK(zb_roaring_add(pos[2], 105) == 0);   /* not in the map */
    ZBT_CHECK(zb_roaring_add(pos[0], 8) == 0);
    ZBT_OK_CTX(zb_carry_sorted_map(m, &ctx, pos, 3, outs, 2, per_out, &rows),
               &ctx);
    ZBT_EQ_U64(rows, 3);
    ZBT_CHECK(per_out[0] != NULL && per_out[1] != NULL);
    ZBT_EQ_U64(zb_roaring_cardinality(per_out[0]), 1);
    ZBT_CHECK(zb_roaring_contains(per_out[0], 1));   /* 104 */
    ZBT_EQ_U64(zb_roaring_cardinality(per_out[1]), 2);
    ZBT_CHECK(zb_roaring_contains(per_out[1], 0));   /* 109 */
    ZBT_CHECK(zb_roaring_contains(per_out[1], 2));   /* 8 */
    /* Outputs that do not hold the map's rows: refused, named. */
    ZBT_EQ_INT(zb_carry_sorted_map(m, &ctx, pos, 3, outs, 1, per_out, &rows),
               ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "6 entries");
    zb_err_clear(&ctx.err);
    zb_carry_sorted_free(m);
    for (i = 0; i < 2; i++)
        zb_roaring_free(per_out[i]);
    /* Read-ahead's form over inputs of 2 and 3 rows, and a count that
     * does not match: lost, named. */
    ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch, 3, NULL), &ctx);
    {
        const uint32_t task[2] = { 1, 2 };
        const int64_t rws[2] = { 2, 3 };

        long_batch(&b, 5);
        ZBT_OK_CTX(zb_carry_sorted_tag_seq(m, &ctx, &b, task, rws, 2), &ctx);
        ZBT_EQ_INT(((const int64_t *)b.children[1]->buffers[1])[3],
                   (int64_t)(((uint64_t)2 << 40) | 1));
        ZBT_OK_CTX(zb_carry_sorted_untag(m, &ctx, &b), &ctx);
        zb_arrow_array_release(&b);
    }
    zb_carry_sorted_finish(m, &ctx, 6);
    ZBT_CONTAINS(zb_carry_sorted_lost(m), "does not cover");
    ZBT_EQ_INT(zb_carry_sorted_map(m, &ctx, pos, 3, outs, 2, per_out, &rows),
               ZB_EINVAL);
    zb_err_clear(&ctx.err);
    zb_carry_sorted_free(m);
    /* A position past 2^40: lost; the rows still go through. */
    ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch, 3, NULL), &ctx);
    long_batch(&b, 1);
    ZBT_OK_CTX(zb_carry_sorted_tag(m, &ctx, &b, 0, (uint64_t)1 << 40, NULL,
                                   1), &ctx);
    ZBT_OK_CTX(zb_carry_sorted_untag(m, &ctx, &b), &ctx);
    ZBT_EQ_INT(b.n_children, 1);
    zb_arrow_array_release(&b);
    ZBT_CONTAINS(zb_carry_sorted_lost(m), "too large");
    zb_carry_sorted_free(m);
    /* A full budget: the buffer is taken from the sort's share (the
     * map kept); with room the reservation grows by it. */
    {
        zb_budget *bu = NULL;
        zb_reservation res = ZB_RESERVATION_INIT;

        ZBT_CHECK(zb_budget_new(&bu, (uint64_t)1 << 20, NULL) == 0);
        ZBT_CHECK(zb_budget_try_grow(&res, bu, (uint64_t)1 << 20) == 0);
        ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch, 3, &res), &ctx);
        ZBT_CHECK(zb_carry_sorted_lost(m) == NULL);
        ZBT_EQ_U64(zb_carry_sorted_sort_cut(m), 64 << 10);
        ZBT_EQ_U64(res.bytes, (uint64_t)1 << 20);
        zb_carry_sorted_free(m);
        zb_budget_release(&res);
        ZBT_CHECK(zb_budget_try_grow(&res, bu, (uint64_t)512 << 10) == 0);
        ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch, 3, &res), &ctx);
        ZBT_EQ_U64(zb_carry_sorted_sort_cut(m), 0);
        ZBT_EQ_U64(res.bytes, (uint64_t)576 << 10);
        zb_carry_sorted_free(m);
        zb_budget_release(&res);
        zb_budget_free(bu);
    }
    /* Too many inputs: lost from the start. */
    ZBT_OK_CTX(zb_carry_sorted_new(&m, &ctx, &sch,
                                   (size_t)ZB_CARRY_SORTED_MAX_TASKS + 1,
                                   NULL), &ctx);
    ZBT_CONTAINS(zb_carry_sorted_lost(m), "too many inputs");
    zb_carry_sorted_free(m);
    zb_roaring_free(pos[0]);
    zb_roaring_free(pos[2]);
    zb_arrow_schema_release(&sch);
}

/* One map made, fed and read with the nth allocation failing: each step
 * succeeds, loses the map or returns ZB_ENOMEM; nothing leaks (ASan). */
static void test_ops_compact_carry_sorted__alloc_faults(void)
{
    struct ArrowSchema sch;
    const int64_t outs[1] = { 4 };
    zb_roaring *pos[1] = { NULL };
    uint64_t nth, failed = 1;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    memset(&sch, 0, sizeof sch);
    ZBT_CHECK(zb_arrow_schema_init(&sch, "+s", "", NULL, 0, 0, 1) == 0);
    ZBT_CHECK(zb_arrow_schema_field(sch.children[0], "l", "x", 1, 0, 0) ==
              0);
    ZBT_CHECK(zb_roaring_new(&pos[0]) == 0 && zb_roaring_add(pos[0], 2) == 0);
    for (nth = 1; failed > 0 && nth < 200; nth++) {
        zb_carry_sorted *m = NULL;
        zb_roaring *per_out[1] = { NULL };
        struct ArrowArray b;
        uint64_t rows = 0;
        int rc;

        long_batch(&b, 4);
        (void)zb_alloc__fail_at(nth, 0);
        rc = zb_carry_sorted_new(&m, &ctx, &sch, 1, NULL);
        if (rc == ZB_OK)
            rc = zb_carry_sorted_tag(m, &ctx, &b, 0, 0, NULL, 4);
        else
            zb_arrow_array_release(&b);
        if (rc == ZB_OK)
            rc = zb_carry_sorted_untag(m, &ctx, &b);
        if (rc == ZB_OK) {
            zb_carry_sorted_finish(m, &ctx, 4);
            rc = zb_carry_sorted_map(m, &ctx, pos, 1, outs, 1, per_out,
                                     &rows);
        }
        failed = zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM ||
                  (rc == ZB_EINVAL && zb_carry_sorted_lost(m) != NULL));
        if (rc == ZB_OK) {
            ZBT_EQ_U64(rows, 1);
            ZBT_CHECK(zb_roaring_contains(per_out[0], 2));
        }
        zb_err_clear(&ctx.err);
        zb_arrow_array_release(&b);
        zb_roaring_free(per_out[0]);
        zb_carry_sorted_free(m);
    }
    ZBT_CHECK(failed == 0);
    printf("  %llu allocation(s) failed in turn\n",
           (unsigned long long)(nth - 2));
    zb_roaring_free(pos[0]);
    zb_arrow_schema_release(&sch);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_ops_compact_carry_sorted__map_unit),
    ZBT_CASE(test_ops_compact_carry_sorted__alloc_faults),
    ZBT_CASE(test_ops_compact_carry_sorted__sort_v2),
    ZBT_CASE(test_ops_compact_carry_sorted__sort_dv_v3),
    ZBT_CASE(test_ops_compact_carry_sorted__zorder_v3_read_ahead),
    ZBT_CASE(test_ops_compact_carry_sorted__zorder_v2),
    ZBT_CASE(test_ops_compact_carry_sorted__lost_over_spill_limit),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

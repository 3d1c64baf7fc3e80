/*
 * tests/unit/ops/compact_merged_dv.c - issue 21, a v3 writer that merges
 * a data file's deletion vector while compaction runs (as Spark does: at
 * most one DV a data file, so deleting more rows of a file removes its
 * DV and adds one holding the old positions and the new ones, in one
 * commit). A group whose input had a DV (applied while rewriting) is
 * planned and written; between its write and its commit the writer
 * replaces that DV by a merged one. The group commits (binpack and sort):
 * the merged DV is carried through the position map, the old positions
 * mapping to nothing, so the carried DV on the new files hides exactly
 * the new rows; the rows readable after the commit are those before
 * minus the new ones, as zamboni's reader and the independent reference
 * reader (tests/interop/scan_reference.mjs) both say; no live data file
 * has more than one DV; also when the file's DV is merged twice before
 * the commit. A DV removed with no replacement still drops the group,
 * the report naming why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "format/parquet/parquet.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "util/alloc.h"
#include "zbtest.h"

#define APPENDS 4
#define ROWS 100
#define OLD 2                      /* positions of the DV planned */
#define ALL 5                      /* the merged DV: OLD + 3 new */

static const int64_t all_pos[ALL] = { 3, 4, 10, 50, 97 };

typedef struct inject {
    of_env *e;
    char *data;                    /* the data file with the DV */
    char *dv;                      /* its DV's Puffin file */
    size_t n;                      /* positions of the merged DV; 0:
                                      removed with no replacement */
    int twice;                     /* merged in two commits: old + 1 new,
                                      then all */
} inject;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The ids at pos[0..n) of live data file path (file order). */
static void ids_at(of_env *e, const char *path, const int64_t *pos,
                   size_t n, int64_t *ids)
{
    zb_table *t = of_load(e);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    size_t found = 0, k;
    int rc;

    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta,
                                 ice_metadata_current_snapshot(t->meta), &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        pq_reader_opts ro = PQ_READER_OPTS_INIT;
        pq_reader *r = NULL;
        struct ArrowArray b;
        int32_t fid = 1;
        int64_t at = 0;

        if (strcmp(task->data.file->file_path, path) != 0)
            continue;
        ro.field_ids = &fid;
        ro.n_field_ids = 1;
        ZBT_OK_CTX(pq_reader_open(&r, e->io, &e->ctx, task->data.uri, &ro),
                   &e->ctx);
        while ((rc = pq_reader_next(r, &e->ctx, &b)) == 1) {
            const int64_t *v = b.children[0]->buffers[1];

            for (k = 0; k < n; k++)
                if (pos[k] >= at && pos[k] < at + b.length) {
                    ids[k] = v[pos[k] - at + b.children[0]->offset +
                               b.offset];
                    found++;
                }
            at += b.length;
            b.release(&b);
        }
        ZBT_OK_CTX(rc < 0 ? rc : 0, &e->ctx);
        pq_reader_free(r);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_scan_plan_free(p);
    zb_table_free(t);
    ZBT_EQ_U64(found, n);
}

/* Live DVs per live data file: at most one each; returns how many of
 * the current snapshot's own DVs there are (carried). */
static size_t check_dvs(of_env *e)
{
    zb_table *t = of_load(e);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    const ice_snapshot *cur = ice_metadata_current_snapshot(t->meta);
    json_t *data = json_object(), *dvs = json_object(), *v;
    const char *key;
    size_t own = 0;

    ZBT_CHECK(cur != NULL && data != NULL && dvs != NULL);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, cur,
                                      &t->paths), &e->ctx);
    while (ice_snapshot_iter_next(it, &e->ctx, &en, &mf) > 0) {
        const ice_data_file *d = &en->data_file;
        json_t *c;

        if (d->content == ICE_CONTENT_DATA) {
            json_object_set_new(data, d->file_path, json_true());
            continue;
        }
        if (!ice_data_file_is_dv(d) || d->referenced_data_file == NULL)
            continue;
        own += en->snapshot_id == cur->snapshot_id;
        c = json_object_get(dvs, d->referenced_data_file);
        json_object_set_new(dvs, d->referenced_data_file,
                            json_integer(c ? json_integer_value(c) + 1 : 1));
    }
    ice_snapshot_iter_free(it);
    json_object_foreach(dvs, key, v)
        if (json_object_get(data, key) != NULL &&
            json_integer_value(v) > 1) {
            printf("  %s has %lld DVs\n", key,
                   (long long)json_integer_value(v));
            ZBT_CHECK(!"more than one DV for a live data file");
        }
    json_decref(data);
    json_decref(dvs);
    zb_table_free(t);
    return own;
}

/* The concurrent writer: the file's DV replaced by the merged one (or
 * removed). */
static void before_commit(void *payload)
{
    inject *in = payload;
    zb_table *t = of_load(in->e);
    char *mid = NULL;

    /* The second merge removes a DV the group never applied. */
    if (in->twice)
        ZBT_OK_CTX(zb_ingest_replace_dv(&t, in->e->cat, in->e->io,
                                        &in->e->ctx, in->dv, in->data,
                                        all_pos, OLD + 1, NULL, &mid),
                   &in->e->ctx);
    ZBT_OK_CTX(zb_ingest_replace_dv(&t, in->e->cat, in->e->io, &in->e->ctx,
                                    mid != NULL ? mid : in->dv, in->data,
                                    all_pos, in->n, NULL, NULL),
               &in->e->ctx);
    zb_free(mid);
    zb_table_free(t);
}

static void run(const char *name, zb_compact_strategy strategy,
                size_t merged, int twice)
{
    static const zb_compact_sort_field by_id_desc[1] = { { 1, 1, 0 } };
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    inject in;
    of_items live;
    int64_t *want, *got, *ref, id[ALL] = { 0 };
    size_t n_want, n_got, n_ref, i, j, at;
    int a;

    of_open(&e, name);
    of_make_table(&e, 3, 0, 1, 0, 0);
    for (a = 0; a < APPENDS; a++)
        of_append(&e, -1, (int64_t)a * ROWS, ROWS);
    memset(&in, 0, sizeof in);
    in.e = &e;
    in.n = merged;
    in.twice = twice;
    in.data = ct_delete_pos(&e, 1, all_pos, OLD, -1);
    of_live(&live, &e);
    for (i = 0; i < live.n; i++)
        if (live.v[i].content == 1) {
            ZBT_CHECK(in.dv == NULL);
            in.dv = zb_strdup(live.v[i].path);
        }
    of_items_free(&live);
    ZBT_CHECK(in.dv != NULL);
    ids_at(&e, in.data, all_pos, ALL, id);
    want = ct_ids(&e, &n_want);
    ZBT_EQ_U64(n_want, APPENDS * ROWS - OLD);
    if (merged) {                  /* the new positions go */
        for (i = at = 0; i < n_want; i++) {
            int hit = 0;

            for (j = OLD; j < ALL; j++)
                hit |= want[i] == id[j];
            if (!hit)
                want[at++] = want[i];
        }
        n_want = at;
    } else {                       /* the old ones come back */
        ZBT_CHECK((want = zb_realloc(want, (n_want + OLD) *
                                               sizeof *want)) != NULL);
        for (j = 0; j < OLD; j++)
            want[n_want++] = id[j];
        qsort(want, n_want, sizeof *want, cmp_i64);
    }
    o.strategy = strategy;
    if (strategy == ZB_COMPACT_SORT) {
        o.sort_fields = by_id_desc;
        o.n_sort_fields = 1;
    }
    o.rewrite_all = 1;
    hk.before_commit = before_commit;
    hk.payload = &in;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_OK_CTX(zb_compact_report(&out, "t", &r, 0), &e.ctx);
    if (merged) {
        const zb_compact_group *g = &r.plan.groups[0];

        ZBT_EQ_U64(r.groups_committed, 1);
        ZBT_EQ_U64(r.groups_dropped, 0);
        /* Only the new positions: the old ones were gone already. */
        ZBT_EQ_U64(g->carried_rows, ALL - OLD);
        ZBT_EQ_U64(g->carried_deletes, twice ? 2 : 1);
        ZBT_CONTAINS(zb_buf_cstr(&out), "carried deletes: 1 group(s)");
        ZBT_CONTAINS(zb_buf_cstr(&out), "hiding 3 row(s)");
        ZBT_CHECK(check_dvs(&e) >= 1);
    } else {
        ZBT_EQ_U64(r.groups_committed, 0);
        ZBT_EQ_U64(r.groups_dropped, 1);
        ZBT_CONTAINS(zb_buf_cstr(&out), "dropped group");
        ZBT_CONTAINS(zb_buf_cstr(&out), "removed deletion vector with no "
                                        "replacement");
        ZBT_EQ_U64(check_dvs(&e), 0);
    }
    zb_buf_free(&out);
    zb_compact_result_free(&r);
    got = ct_ids(&e, &n_got);
    ct_same_ids(got, n_got, want, n_want);
    if ((ref = ct_reference_ids(&e, &n_ref)) != NULL)
        ct_same_ids(ref, n_ref, want, n_want);
    of_check_files(&e);
    zb_free(ref);
    zb_free(got);
    zb_free(want);
    zb_free(in.data);
    zb_free(in.dv);
    of_close(&e);
}

static void test_ops_compact_merged_dv__binpack(void)
{
    run("mdv-binpack", ZB_COMPACT_BINPACK, ALL, 0);
}

/* Merged twice before the commit: both added DVs carried (their union
 * hides the 3 new rows once each). */
static void test_ops_compact_merged_dv__merged_twice(void)
{
    run("mdv-twice", ZB_COMPACT_BINPACK, ALL, 1);
}

static void test_ops_compact_merged_dv__sort(void)
{
    run("mdv-sort", ZB_COMPACT_SORT, ALL, 0);
}

static void test_ops_compact_merged_dv__removed_without_replacement(void)
{
    run("mdv-removed", ZB_COMPACT_BINPACK, 0, 0);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_ops_compact_merged_dv__binpack),
    ZBT_CASE(test_ops_compact_merged_dv__merged_twice),
    ZBT_CASE(test_ops_compact_merged_dv__sort),
    ZBT_CASE(test_ops_compact_merged_dv__removed_without_replacement),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

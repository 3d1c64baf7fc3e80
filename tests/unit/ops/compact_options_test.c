/*
 * test_ops_compact_options: issue 21's Iceberg rewrite_data_files options
 * (ops/compact/compact_options.h) on generated tables. Each case plans
 * (dry run) with one option set and compares the files the plan takes,
 * file by file, with what the option's definition says about the table's
 * live files (sizes, delete files, deleted rows read from the scan tasks
 * here, not from the planner); a few cases run to check what the option
 * changes in the commit. The config and flag parsing is checked too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "ops/compact/compact_options.h"
#include "ops/config/table_config.h"
#include "util/alloc.h"
#include "zbtest.h"

/* One live file as the test sees it. */
typedef struct live {
    const char *path;
    int part;
    int64_t size, records, known_deleted;
    size_t n_deletes;
    int32_t spec_id;
} live;

typedef struct table_view {
    zb_arena *arena;
    zb_scan_task *tasks;
    live v[64];
    size_t n;
    int32_t default_spec;
} table_view;

static int part_of(const char *path)
{
    const char *p = strstr(path, "part=");

    return p != NULL ? atoi(p + 5) : -1;
}

static void view(of_env *e, table_view *tv)
{
    zb_table *t = of_load(e);
    size_t n, i, k;

    memset(tv, 0, sizeof *tv);
    tv->tasks = of_plan_tasks(e, t, ice_metadata_current_snapshot(t->meta),
                              &tv->arena, &n);
    ZBT_CHECK(n <= 64);
    for (i = 0; i < n; i++) {
        const zb_scan_task *s = &tv->tasks[i];
        live *l = &tv->v[i];

        l->path = s->data.file->file_path;
        l->part = part_of(l->path);
        l->size = s->data.file->file_size_in_bytes;
        l->records = s->data.file->record_count;
        l->n_deletes = s->n_deletes;
        l->spec_id = s->data.spec_id;
    }
    tv->n = n;
    tv->default_spec = t->meta->default_spec_id;
    /* Iceberg counts the rows of deletes scoped to the file (a DV, or a
     * position delete file with its referenced data file) */
    for (i = 0; i < n; i++)
        for (k = 0; k < tv->tasks[i].n_deletes; k++) {
            const ice_data_file *d = tv->tasks[i].deletes[k].file;

            if (d->content == ICE_CONTENT_POSITION_DELETES &&
                d->referenced_data_file != NULL &&
                strcmp(d->referenced_data_file, tv->v[i].path) == 0)
                tv->v[i].known_deleted += d->record_count;
        }
    zb_table_free(t);
}

static int64_t cur_seq(of_env *e)
{
    zb_table *t = of_load(e);
    int64_t seq = ice_metadata_current_snapshot(t->meta)->sequence_number;

    zb_table_free(t);
    return seq;
}

static void view_free(table_view *tv)
{
    zb_free(tv->tasks);
    zb_arena_free(tv->arena);
}

/* The option's definition, written here from Iceberg's documentation:
 * is l a candidate, and does it force its group to run alone. */
static int cand(const zb_compact_opts *o, int64_t target, const live *l,
                int32_t default_spec, int *forces)
{
    int32_t out = o->output_spec_id >= 0 ? o->output_spec_id : default_spec;
    int other = l->spec_id != out;
    int64_t lo = o->min_file_bytes >= 0 ? o->min_file_bytes
                                        : target * 3 / 4;
    int64_t hi = o->max_file_bytes >= 0 ? o->max_file_bytes
                                        : target * 9 / 5;
    int big = l->size > hi;
    int dels = o->delete_file_threshold > 0 &&
               (int64_t)l->n_deletes >= o->delete_file_threshold;
    int ratio = l->n_deletes > 0 && l->records > 0 &&
                (double)l->known_deleted >= o->delete_ratio *
                                                (double)l->records;

    *forces = big || dels || ratio || other || l->n_deletes > 0 ||
              o->rewrite_all;
    return o->rewrite_all || l->size < lo || big || dels || ratio || other;
}

/* The paths the definition selects, one partition at a time (one group
 * per partition: no size cap), as a sorted newline list. */
static char *expected(const zb_compact_opts *o, int64_t target,
                      const table_view *tv, int min_files)
{
    zb_buf out = ZB_BUF_INIT(1 << 20);
    char *lines[64];
    size_t nl = 0, i, j;
    int p;

    for (p = -1; p < 8; p++) {
        size_t n = 0, first = nl;
        int64_t bytes = 0;
        int forced = 0;

        for (i = 0; i < tv->n; i++) {
            int f;

            if (tv->v[i].part != p ||
                !cand(o, target, &tv->v[i], tv->default_spec, &f))
                continue;
            lines[nl++] = (char *)tv->v[i].path;
            bytes += tv->v[i].size;
            forced |= f;
            n++;
        }
        if (!(forced || (int)n >= min_files || (n > 1 && bytes > target)))
            nl = first;         /* skipped */
    }
    for (i = 1; i < nl; i++)
        for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *t = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = t;
        }
    for (i = 0; i < nl; i++)
        ZBT_CHECK(zb_buf_appendf(&out, "%s\n", lines[i]) == ZB_OK);
    return zb_buf_detach(&out);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths the plan takes, sorted, one a line. */
static char *planned(const zb_compact_plan *p)
{
    zb_buf out = ZB_BUF_INIT(1 << 20);
    const char *v[64];
    size_t n = 0, i, k;

    for (i = 0; i < p->n_groups; i++)
        for (k = 0; k < p->groups[i].n_tasks && n < 64; k++)
            v[n++] = p->groups[i].tasks[k].data.file->file_path;
    qsort(v, n, sizeof v[0], cmp_str);
    for (i = 0; i < n; i++)
        ZBT_CHECK(zb_buf_appendf(&out, "%s\n", v[i]) == ZB_OK);
    return zb_buf_detach(&out);
}

/* Plans with o, compares with the definition; returns the plan's groups. */
static size_t check_selection(of_env *e, const zb_compact_opts *o,
                              const table_view *tv, int min_files,
                              zb_compact_result *r)
{
    char *want, *got;

    e->t.dry_run = 1;
    ZBT_OK_CTX(ct_compact(e, o, r), &e->ctx);
    want = expected(o, r->plan.target_file_bytes, tv, min_files);
    got = planned(&r->plan);
    ZBT_EQ_STR(got, want);
    zb_free(want);
    zb_free(got);
    return r->plan.n_groups;
}

/* Partition 0: two tiny files and one large; 1: one mid file alone; 2:
 * one tiny alone; 3: two mid files. The target is the mid files' size. */
static int64_t make_fv(of_env *e, const char *name, int fv)
{
    zb_table *t;
    table_view tv;
    int64_t target = 0;
    size_t i;

    of_open(e, name);
    of_make_table(e, fv, 1, 1, 0, 0);
    t = of_load(e);
    of_append_to(e, &t, 0, 0, 5);
    of_append_to(e, &t, 0, 100, 5);
    of_append_to(e, &t, 0, 1000, 6000);
    of_append_to(e, &t, 1, 10000, 1500);
    of_append_to(e, &t, 2, 20000, 5);
    of_append_to(e, &t, 3, 30000, 1500);
    of_append_to(e, &t, 3, 40000, 1500);
    zb_table_free(t);
    view(e, &tv);
    for (i = 0; i < tv.n; i++)
        if (tv.v[i].part == 1)
            target = tv.v[i].size;
    view_free(&tv);
    ZBT_CHECK(target > 0);
    return target;
}

static int64_t make(of_env *e, const char *name)
{
    return make_fv(e, name, 2);
}

static void test_ops_compact_options__sizes(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    table_view tv;
    int64_t target = make(&e, "o-sizes");
    size_t i, large = 0, small = 0;

    view(&e, &tv);
    o.target_file_bytes = target;
    /* defaults: below 75% and above 180% of the target */
    check_selection(&e, &o, &tv, 2, &r);
    for (i = 0; i < r.plan.n_groups; i++) {
        large += r.plan.groups[i].why[ZB_COMPACT_WHY_LARGE];
        small += r.plan.groups[i].why[ZB_COMPACT_WHY_SMALL];
    }
    ZBT_EQ_U64(large, 1);            /* the 6000-row file */
    ZBT_EQ_U64(small, 2);            /* the tiny one alone is skipped */
    ZBT_EQ_INT(r.plan.min_file_bytes, (int64_t)((double)target * 0.75));
    ZBT_EQ_INT(r.plan.max_file_bytes, (int64_t)((double)target * 1.8));
    ZBT_EQ_U64(r.plan.kept_in_range, 3);
    ZBT_EQ_U64(r.plan.n_skipped, 1);  /* the tiny file alone */
    zb_compact_result_free(&r);
    /* a min above the mid files: partition 3 and 1 too */
    o.min_file_bytes = target + 1;
    check_selection(&e, &o, &tv, 2, &r);
    zb_compact_result_free(&r);
    /* a max above the large file: it stays */
    o.min_file_bytes = ZB_UNSET;
    o.max_file_bytes = INT64_MAX / 2;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 1);
    zb_compact_result_free(&r);
    /* min-input-files 3: two tiny files alone no longer run, but the
     * large file still forces partition 0 */
    o.max_file_bytes = ZB_UNSET;
    o.min_input_files = 3;
    check_selection(&e, &o, &tv, 3, &r);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    zb_compact_result_free(&r);
    view_free(&tv);
    of_close(&e);
}

static void test_ops_compact_options__rewrite_all(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    table_view tv;
    int64_t target = make(&e, "o-all");
    uint64_t rows, hash, rows2, hash2;

    view(&e, &tv);
    o.target_file_bytes = target;
    o.rewrite_all = 1;
    /* every live file, the single ones included: 4 groups */
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 4);
    ZBT_EQ_U64(r.plan.files, tv.n);
    ZBT_EQ_U64(r.plan.n_skipped, 0);
    zb_compact_result_free(&r);
    /* and it runs: partition 1's one file is replaced */
    of_rows(&e, &rows, &hash);
    e.t.dry_run = 0;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 4);
    zb_compact_result_free(&r);
    {
        of_items after;
        size_t i;

        of_live(&after, &e);
        for (i = 0; i < after.n; i++)
            ZBT_CHECK(strcmp(after.v[i].path, tv.v[0].path) != 0);
        for (i = 0; i < tv.n; i++) {
            size_t k;

            for (k = 0; k < after.n; k++)
                ZBT_CHECK(strcmp(after.v[k].path, tv.v[i].path) != 0);
        }
        of_items_free(&after);
    }
    of_rows(&e, &rows2, &hash2);
    ZBT_EQ_U64(rows2, rows);
    ZBT_EQ_U64(hash2, hash);
    view_free(&tv);
    of_close(&e);
}

/* The indexes of partition 1's file and partition 3's first one. */
static void mids(const table_view *tv, size_t *mid1, size_t *mid3)
{
    size_t i;

    *mid1 = *mid3 = SIZE_MAX;
    for (i = 0; i < tv->n; i++) {
        if (tv->v[i].part == 1)
            *mid1 = i;
        if (tv->v[i].part == 3 && *mid3 == SIZE_MAX)
            *mid3 = i;
    }
    ZBT_CHECK(*mid1 != SIZE_MAX && *mid3 != SIZE_MAX);
}

/* v2: delete-file-threshold (the partition-scoped position delete files
 * our writer makes name no file alone: no deleted share is known). */
static void test_ops_compact_options__delete_files(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    table_view tv;
    int64_t target = make(&e, "o-del");
    int64_t pos[2] = { 0, 1 };
    size_t mid1, mid3;

    view(&e, &tv);
    mids(&tv, &mid1, &mid3);
    /* partition 1's file: one delete file; partition 3's first: two */
    ZBT_OK_CTX(ct_delete_pos_rc(&e, tv.v[mid1].path, pos, 1, 1), &e.ctx);
    ZBT_OK_CTX(ct_delete_pos_rc(&e, tv.v[mid3].path, pos, 1, 3), &e.ctx);
    ZBT_OK_CTX(ct_delete_pos_rc(&e, tv.v[mid3].path, pos + 1, 1, 3),
               &e.ctx);
    view_free(&tv);
    view(&e, &tv);
    mids(&tv, &mid1, &mid3);
    ZBT_EQ_U64(tv.v[mid1].n_deletes, 1);
    o.target_file_bytes = target;
    o.max_file_bytes = INT64_MAX / 2;     /* sizes out of the way */
    o.min_file_bytes = 0;
    /* ours: any delete file makes a candidate (threshold 1) */
    /* (they apply to every file of their partition: 1 + 2 files) */
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 2);
    ZBT_EQ_U64(r.plan.groups[0].why[ZB_COMPACT_WHY_DELETE_FILES] +
                   r.plan.groups[1].why[ZB_COMPACT_WHY_DELETE_FILES], 3);
    zb_compact_result_free(&r);
    /* threshold 2: partition 3's files (two delete files each) */
    o.delete_file_threshold = 2;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 1);
    ZBT_EQ_U64(r.plan.groups[0].n_tasks, 2);
    ZBT_CONTAINS(r.plan.groups[0].tasks[0].data.file->file_path, "part=3/");
    ZBT_EQ_U64(r.plan.kept_deletes, 1);
    zb_compact_result_free(&r);
    /* threshold 3: none */
    o.delete_file_threshold = 3;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 0);
    ZBT_EQ_U64(r.plan.kept_deletes, 3);
    zb_compact_result_free(&r);
    view_free(&tv);
    of_close(&e);
}

/* v3: delete-ratio-threshold on a deletion vector (file-scoped). */
static void test_ops_compact_options__delete_ratio(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    table_view tv;
    int64_t target = make_fv(&e, "o-ratio", 3);
    int64_t pos[600];
    size_t i, mid1, mid3;

    view(&e, &tv);
    mids(&tv, &mid1, &mid3);
    for (i = 0; i < 600; i++)
        pos[i] = (int64_t)i;
    /* 600 of partition 1's 1500 rows (0.4); 150 of partition 3's (0.1) */
    ZBT_OK_CTX(ct_delete_pos_rc(&e, tv.v[mid1].path, pos, 600, 1), &e.ctx);
    ZBT_OK_CTX(ct_delete_pos_rc(&e, tv.v[mid3].path, pos, 150, 3), &e.ctx);
    view_free(&tv);
    view(&e, &tv);
    mids(&tv, &mid1, &mid3);
    ZBT_EQ_INT(tv.v[mid1].known_deleted, 600);
    o.target_file_bytes = target;
    o.max_file_bytes = INT64_MAX / 2;
    o.min_file_bytes = 0;
    o.delete_file_threshold = 0;          /* the ratio alone */
    /* Iceberg's 0.3: partition 1's file, alone in its partition */
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 1);
    ZBT_EQ_STR(r.plan.groups[0].tasks[0].data.file->file_path,
               tv.v[mid1].path);
    ZBT_EQ_U64(r.plan.groups[0].why[ZB_COMPACT_WHY_DELETE_RATIO], 1);
    ZBT_EQ_U64(r.plan.kept_deletes, 1);
    zb_compact_result_free(&r);
    /* 0.4 is reached (Iceberg's >=); 0.5 is not; 0.05 takes both */
    o.delete_ratio = 0.4;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 1);
    zb_compact_result_free(&r);
    o.delete_ratio = 0.5;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 0);
    ZBT_EQ_U64(r.plan.kept_deletes, 2);
    zb_compact_result_free(&r);
    o.delete_ratio = 0.05;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 2);
    zb_compact_result_free(&r);
    view_free(&tv);
    of_close(&e);
}

static void test_ops_compact_options__groups(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    table_view tv;
    int64_t target = make(&e, "o-groups");
    size_t i;

    view(&e, &tv);
    o.target_file_bytes = target;
    o.rewrite_all = 1;
    /* a cap of one mid file: partition 3's two files are two groups */
    o.max_group_bytes = (uint64_t)target;
    e.t.dry_run = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    {
        size_t in3 = 0;

        for (i = 0; i < r.plan.n_groups; i++)
            if (strstr(r.plan.groups[i].tasks[0].data.file->file_path,
                       "part=3/") != NULL) {
                in3++;
                ZBT_CHECK(r.plan.groups[i].note != NULL);
                ZBT_EQ_U64(r.plan.groups[i].n_tasks, 1);
            }
        ZBT_EQ_U64(in3, 2);
    }
    ZBT_OK_CTX(zb_compact_plan_report(&out, "t", &r.plan), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "by max-file-group-size-bytes");
    ZBT_CONTAINS(zb_buf_cstr(&out), "alone in its partition");
    zb_compact_result_free(&r);
    o.max_group_bytes = 0;
    /* job orders: the groups' bytes and files in that order */
    for (int ord = ZB_TC_ORDER_BYTES_ASC; ord <= ZB_TC_ORDER_FILES_DESC;
         ord++) {
        o.job_order = ord;
        ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
        ZBT_EQ_U64(r.plan.n_groups, 4);
        for (i = 1; i < r.plan.n_groups; i++) {
            const zb_compact_group *a = &r.plan.groups[i - 1];
            const zb_compact_group *b = &r.plan.groups[i];

            if (ord == ZB_TC_ORDER_BYTES_ASC)
                ZBT_CHECK(a->bytes <= b->bytes);
            else if (ord == ZB_TC_ORDER_BYTES_DESC)
                ZBT_CHECK(a->bytes >= b->bytes);
            else if (ord == ZB_TC_ORDER_FILES_ASC)
                ZBT_CHECK(a->n_tasks <= b->n_tasks);
            else
                ZBT_CHECK(a->n_tasks >= b->n_tasks);
        }
        zb_compact_result_free(&r);
    }
    /* max-files-to-rewrite 4 by bytes-desc: partition 0 (3 files, the
     * largest) whole, then one file of the next, the largest of it */
    o.job_order = ZB_TC_ORDER_BYTES_DESC;
    o.max_files_to_rewrite = 4;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.files, 4);
    ZBT_EQ_U64(r.plan.capped_files, tv.n - 4);
    ZBT_EQ_U64(r.plan.n_groups, 2);
    ZBT_EQ_U64(r.plan.groups[0].n_tasks, 3);
    ZBT_CHECK(strstr(r.plan.groups[0].tasks[0].data.file->file_path,
                     "part=0/") != NULL);
    ZBT_EQ_U64(r.plan.groups[1].n_tasks, 1);
    zb_compact_result_free(&r);
    /* output-spec-id: a spec the table lacks is refused */
    o.max_files_to_rewrite = 0;
    o.output_spec_id = 7;
    ZBT_RC(ct_compact(&e, &o, &r), ZB_EINVAL);
    zb_compact_result_free(&r);
    zb_buf_free(&out);
    view_free(&tv);
    of_close(&e);
}

/* output-spec-id: files of another spec than the output one are
 * candidates and run even alone; with the old spec as the output, the
 * size rules alone choose. */
static void test_ops_compact_options__output_spec(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    table_view tv;
    int64_t target = make(&e, "o-spec");
    zb_table *t = of_load(&e), *t2 = NULL;
    json_t *reqs = json_array();
    json_t *updates = json_loads(
        "[{\"action\":\"add-spec\",\"spec\":{\"spec-id\":1,\"fields\":["
        "{\"source-id\":2,\"field-id\":1000,\"name\":\"part\","
        "\"transform\":\"identity\"},"
        "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_bucket\","
        "\"transform\":\"bucket[3]\"}]}},"
        "{\"action\":\"set-default-spec\",\"spec-id\":-1}]", 0, NULL);

    ZBT_CHECK(reqs != NULL && updates != NULL);
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)updates, &t2), &e.ctx);
    zb_table_free(t);
    zb_table_free(t2);
    json_decref(reqs);
    json_decref(updates);
    view(&e, &tv);
    ZBT_EQ_INT(tv.default_spec, 1);
    o.target_file_bytes = target;
    /* the default spec (1) is the output: every file, single ones too */
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 4);
    ZBT_EQ_U64(r.plan.files, tv.n);
    ZBT_EQ_INT(r.plan.groups[0].out_spec_id, 1);
    ZBT_CHECK(r.plan.groups[0].why[ZB_COMPACT_WHY_SPEC] > 0);
    zb_compact_result_free(&r);
    /* output-spec-id 0: the files' own spec, the size rules alone */
    o.output_spec_id = 0;
    ZBT_EQ_U64(check_selection(&e, &o, &tv, 2, &r), 1);
    ZBT_EQ_INT(r.plan.groups[0].out_spec_id, 0);
    zb_compact_result_free(&r);
    view_free(&tv);
    of_close(&e);
}

/* A file above max-file-size-bytes is rewritten alone and split into
 * files of about the target, rows unchanged; partial progress with
 * max-commits; the new files' sequence numbers with and without
 * use-starting-sequence-number. */
static void test_ops_compact_options__split_commits(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    of_items it;
    int64_t target = make(&e, "o-split"), planned_seq;
    uint64_t rows, hash, rows2, hash2;
    size_t i, in0 = 0;

    of_rows(&e, &rows, &hash);
    o.target_file_bytes = target;
    o.min_file_bytes = 0;              /* only the large file */
    e.t.dry_run = 0;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.files_removed, 1);
    ZBT_CHECK(r.files_added >= 3);     /* 6000 rows of 4 targets' size */
    zb_compact_result_free(&r);
    of_rows(&e, &rows2, &hash2);
    ZBT_EQ_U64(rows2, rows);
    ZBT_EQ_U64(hash2, hash);
    of_live(&it, &e);
    for (i = 0; i < it.n; i++)
        if (strstr(it.v[i].path, "part=0/") != NULL && it.v[i].records > 5) {
            in0++;
            ZBT_CHECK(it.v[i].size < target * 9 / 5);
        }
    ZBT_CHECK(in0 >= 3);
    of_items_free(&it);
    /* partial progress: 3 groups (rewrite-all) in at most 2 commits,
     * without the starting sequence number */
    planned_seq = cur_seq(&e);
    o.min_file_bytes = ZB_UNSET;
    o.rewrite_all = 1;
    o.partial_progress = 1;
    o.max_commits = 2;
    o.use_starting_seq = 0;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.commits, 2);
    zb_compact_result_free(&r);
    of_live(&it, &e);
    for (i = 0; i < it.n; i++)
        ZBT_CHECK(it.v[i].seq > planned_seq);   /* the new commits' */
    of_items_free(&it);
    /* with it: every new file keeps the planned snapshot's number */
    planned_seq = cur_seq(&e);
    o.partial_progress = 0;
    o.use_starting_seq = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.commits, 1);
    zb_compact_result_free(&r);
    of_live(&it, &e);
    for (i = 0; i < it.n; i++)
        ZBT_EQ_INT(it.v[i].seq, planned_seq);
    of_items_free(&it);
    of_rows(&e, &rows2, &hash2);
    ZBT_EQ_U64(rows2, rows);
    ZBT_EQ_U64(hash2, hash);
    of_close(&e);
}

/* The table-config keys and the flags' text, and the origins. */
static void test_ops_compact_options__config(void)
{
    static const char text[] =
        "{\"version\": 2, \"warehouse\": \"w\",\n"
        " \"defaults\": {\"max_files_to_rewrite\": 9,\n"
        "              \"delete_ratio_threshold\": 0.5},\n"
        " \"namespaces\": {\"db\": {\"tables\": {\"t\": {\n"
        "   \"min_file_size_bytes\": 1000, \"rewrite_job_order\": "
        "\"files-desc\",\n"
        "   \"use_starting_sequence_number\": false,\n"
        "   \"partial_progress_max_commits\": 3}}}}}";
    zb_table_config *tc = NULL;
    zb_tc_effective eff;
    zb_compact_options r;
    zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
    zb_tc_rw_values flags;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;
    double d;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_parse(&tc, &ctx, "tc.json", text,
                                     strlen(text)), &ctx);
    zb_table_config_effective(&eff, tc, "db.t");
    memset(&flags, 0, sizeof flags);
    ZBT_OK_CTX(zb_tc_rw_parse(&d, ZB_TC_RW_MIN_FILE_SIZE, "2000", NULL, 0),
               &ctx);
    flags.v[ZB_TC_RW_MIN_FILE_SIZE] = d;
    flags.given |= 1u << ZB_TC_RW_MIN_FILE_SIZE;
    zb_compact_options_resolve(&r, &flags, &eff);
    zb_compact_options_apply(&co, &r);
    ZBT_EQ_INT(co.min_file_bytes, 2000);         /* the flag beats it */
    ZBT_EQ_INT(co.max_files_to_rewrite, 9);      /* defaults block */
    ZBT_CHECK(co.delete_ratio == 0.5);
    ZBT_EQ_INT(co.job_order, ZB_TC_ORDER_FILES_DESC);
    ZBT_EQ_INT(co.use_starting_seq, 0);
    ZBT_EQ_INT(co.max_commits, 3);
    ZBT_EQ_INT(co.delete_file_threshold, 1);     /* default */
    ZBT_EQ_INT(co.max_file_bytes, ZB_UNSET);
    ZBT_OK_CTX(zb_compact_options_report(&out, &r, NULL), &ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "min-file-size-bytes 2000 (flag "
                                    "--min-file-size-bytes)");
    ZBT_CONTAINS(zb_buf_cstr(&out), "max-files-to-rewrite 9 (table config "
                                    "max_files_to_rewrite, defaults)");
    ZBT_CONTAINS(zb_buf_cstr(&out), "rewrite-job-order files-desc (table "
                                    "config rewrite_job_order, the table's "
                                    "entry)");
    ZBT_CONTAINS(zb_buf_cstr(&out), "delete-file-threshold 1 (default: 1, "
                                    "ours");
    ZBT_CONTAINS(zb_buf_cstr(&out), "max-file-group-size-bytes "
                                    "107374182400 (default: 100 GiB)");
    zb_table_config_free(tc);
    /* bad values: the key path, or the rule */
    {
        static const char *const bad[] = {
            "{\"version\":2,\"warehouse\":\"w\",\"defaults\":"
            "{\"delete_ratio_threshold\": 1.5}}",
            "{\"version\":2,\"warehouse\":\"w\",\"defaults\":"
            "{\"rewrite_job_order\": \"random\"}}",
            "{\"version\":2,\"warehouse\":\"w\",\"defaults\":"
            "{\"max_files_to_rewrite\": 0}}",
            "{\"version\":2,\"warehouse\":\"w\",\"defaults\":"
            "{\"rewrite_all\": 1}}",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            tc = NULL;
            ZBT_RC(zb_table_config_parse(&tc, &ctx, "tc.json", bad[i],
                                         strlen(bad[i])), ZB_EUSAGE);
            ZBT_CONTAINS(ctx.err.msg, "defaults.");
            zb_table_config_free(tc);
        }
    }
    ZBT_RC(zb_tc_rw_parse(&d, ZB_TC_RW_DELETE_RATIO, "0", NULL, 0),
           ZB_EUSAGE);
    ZBT_RC(zb_tc_rw_parse(&d, ZB_TC_RW_START_SEQ, "yes", NULL, 0),
           ZB_EUSAGE);
    ZBT_RC(zb_tc_rw_parse(&d, ZB_TC_RW_MAX_COMMITS, "0", NULL, 0),
           ZB_EUSAGE);
    ZBT_OK_CTX(zb_tc_rw_parse(&d, ZB_TC_RW_JOB_ORDER, "bytes-asc", NULL, 0),
               &ctx);
    ZBT_CHECK(d == ZB_TC_ORDER_BYTES_ASC);
    ZBT_EQ_INT(zb_tc_rw_for_flag("--partial-progress-max-commits"),
               ZB_TC_RW_MAX_COMMITS);
    zb_buf_free(&out);
}

/* The table the CLI test (tests/interop/compact_options.mjs) works on:
 * with ZB_OPTS_KEEP set, make()'s table is copied there. */
static void test_ops_compact_options__keep(void)
{
    of_env e;
    const char *keep = getenv("ZB_OPTS_KEEP");
    int64_t target = make(&e, "o-keep");

    if (keep != NULL && keep[0] != '\0') {
        char cmd[2048];

        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s' '%s'", keep,
                 e.dir, keep);
        ZBT_EQ_INT(system(cmd), 0);
        printf("  kept the table in %s (mid file %lld bytes)\n", keep,
               (long long)target);
    }
    of_close(&e);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_ops_compact_options__sizes),
    ZBT_CASE(test_ops_compact_options__rewrite_all),
    ZBT_CASE(test_ops_compact_options__delete_files),
    ZBT_CASE(test_ops_compact_options__delete_ratio),
    ZBT_CASE(test_ops_compact_options__groups),
    ZBT_CASE(test_ops_compact_options__output_spec),
    ZBT_CASE(test_ops_compact_options__split_commits),
    ZBT_CASE(test_ops_compact_options__config),
    ZBT_CASE(test_ops_compact_options__keep),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

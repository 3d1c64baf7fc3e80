/*
 * ops/compact/compact_plan.c - compaction planning (ops/compact/compact.h
 * "Plan").
 *
 * zb_compact_plan_build streams the planner's tasks (plan/scan/scan_plan.h)
 * once. Each task is classified (candidate or not: compaction's policy,
 * here); candidates go to the file grouping (plan/group/file_group.h),
 * which bins them by (spec id, partition tuple) and cuts each bin, largest
 * files first, into runs of at most max_group_bytes. Each run becomes a
 * group, or a skip by the min_input_files rule, and a group gets its
 * memory estimate. Memory: the copied candidate tasks (their entries, metrics
 * and delete lists), never the data.
 */
#define ZB_MODULE "compact"

#include <stdlib.h>
#include <string.h>

#include "format/parquet/parquet_write.h"
#include "ops/compact/compact_int.h"
#include "plan/group/file_group.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/vec.h"

#define PLAN_ARENA_MAX ((size_t)4 << 30)
/* The file_path column of position delete files (format/spec.md). */
#define ZB_FILE_PATH_FIELD_ID 2147483546

int64_t zb_compact_target_bytes(const zb_compact_opts *o,
                                const ice_metadata *m)
{
    zb_tset_value v;

    /* the target's unusable properties are passed over, never an error */
    (void)zb_tset_resolve(&v, NULL, ZB_TSET_TARGET_FILE_SIZE,
                          o != NULL ? o->target_file_bytes : ZB_UNSET, NULL,
                          m);
    return v.value;
}

/* The files a group needs, as zb_tset_resolve gives it. */
static int min_input_files(const zb_compact_opts *o)
{
    zb_tset_value v;

    (void)zb_tset_resolve(&v, NULL, ZB_TSET_MIN_INPUT_FILES,
                          o->min_input_files, NULL, NULL);
    return (int)v.value;
}

/* A position delete file that names one data file only: its referenced
 * data file, or (as Iceberg reads it) equal bounds of file_path. */
static int file_scoped(const ice_data_file *d, const char *path)
{
    const ice_metric_bytes *lo = NULL, *hi = NULL;
    size_t i;

    if (d->referenced_data_file != NULL)
        return 1;
    for (i = 0; i < d->lower_bounds.n; i++)
        if (d->lower_bounds.items[i].field_id == ZB_FILE_PATH_FIELD_ID)
            lo = &d->lower_bounds.items[i];
    for (i = 0; i < d->upper_bounds.n; i++)
        if (d->upper_bounds.items[i].field_id == ZB_FILE_PATH_FIELD_ID)
            hi = &d->upper_bounds.items[i];
    return lo != NULL && hi != NULL && lo->len == hi->len && lo->len > 0 &&
           memcmp(lo->ptr, hi->ptr, lo->len) == 0 && path != NULL &&
           strlen(path) == lo->len && memcmp(lo->ptr, path, lo->len) == 0;
}

/* Rows that DVs and file-scoped position deletes name in this file. */
static uint64_t known_deleted(const zb_scan_task *t)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < t->n_deletes; i++) {
        const ice_data_file *d = t->deletes[i].file;

        if (d->content == ICE_CONTENT_POSITION_DELETES &&
            file_scoped(d, t->data.file->file_path) &&
            d->record_count > 0)
            n += (uint64_t)d->record_count;
    }
    return n;
}

/* Why t is a candidate: a ZB_COMPACT_WHY_* bit mask, 0: it is not. */
static unsigned why_candidate(const zb_compact_opts *o, const zb_scan_task *t,
                              int32_t out_spec, int64_t min_bytes,
                              int64_t max_bytes)
{
    const ice_data_file *f = t->data.file;
    unsigned why = 0;

    if (f->file_size_in_bytes < min_bytes)
        why |= 1u << ZB_COMPACT_WHY_SMALL;
    if (f->file_size_in_bytes > max_bytes)
        why |= 1u << ZB_COMPACT_WHY_LARGE;
    if (t->n_deletes > 0 && o->delete_file_threshold > 0 &&
        t->n_deletes >= (size_t)o->delete_file_threshold)
        why |= 1u << ZB_COMPACT_WHY_DELETE_FILES;
    /* Iceberg's test: the deleted share reaches the threshold */
    if (t->n_deletes > 0 && o->delete_ratio > 0 && f->record_count > 0 &&
        (double)known_deleted(t) / (double)f->record_count >=
            o->delete_ratio)
        why |= 1u << ZB_COMPACT_WHY_DELETE_RATIO;
    if (t->data.spec_id != out_spec)
        why |= 1u << ZB_COMPACT_WHY_SPEC;
    if (why == 0 && o->rewrite_all)
        why |= 1u << ZB_COMPACT_WHY_ALL;
    return why;
}

/* The bits that make a file run even alone in its group. */
#define WHY_FORCES ((1u << ZB_COMPACT_WHY_LARGE) |                       \
                    (1u << ZB_COMPACT_WHY_DELETE_FILES) |                \
                    (1u << ZB_COMPACT_WHY_DELETE_RATIO) |                \
                    (1u << ZB_COMPACT_WHY_SPEC))

uint64_t zb_compact__max_group_memory(const zb_compact_opts *o,
                                      zb_budget *budget)
{
    if (o != NULL && o->max_group_memory_bytes > 0)
        return o->max_group_memory_bytes;
    return budget != NULL ? zb_budget_limit_bytes(budget) : 0;
}

uint64_t zb_compact__eq_memory(const zb_compact_opts *o)
{
    return o != NULL && o->eq_memory_bytes ? o->eq_memory_bytes
                                           : (uint64_t)64 << 20;
}

uint64_t zb_compact__group_memory(const zb_compact_group *g,
                                  int64_t target, size_t batch_rows,
                                  uint64_t eq_memory_bytes)
{
    /* With a cap the key sets spill past it: the estimate is capped. */
    uint64_t est = zb_scan_estimate_bytes(g->tasks, g->n_tasks, batch_rows,
                                          eq_memory_bytes, NULL);
    uint64_t rg = (uint64_t)128 << 20;   /* PQ_WRITER_OPTS_INIT's row group */

    /* The writer buffers at most a row group of encoded pages (a file
     * ends at the target first when that is smaller), plus the page
     * being built and the codec's output: a few MiB. */
    if ((uint64_t)target < rg)
        rg = (uint64_t)target;
    /* ...and never more than the group's rows decoded (compressed bytes
     * times a generous expansion). */
    if (g->bytes < rg / 8)
        rg = g->bytes * 8 + ((uint64_t)1 << 20);
    return est + rg + ((uint64_t)8 << 20);
}

uint64_t zb_compact__sort_memory(const zb_compact_opts *o,
                                 const zb_compact_group *g, int64_t target,
                                 uint64_t max_bytes)
{
    uint64_t cap, base;

    if (o == NULL || o->strategy == ZB_COMPACT_BINPACK)
        return 0;
    cap = o->sort_memory_bytes ? o->sort_memory_bytes : (uint64_t)128 << 20;
    /* No more than the group's rows decoded, generously. */
    if (g != NULL && g->bytes < cap / 8)
        cap = g->bytes * 8 + ((uint64_t)1 << 20);
    /* The default gives way to the memory a group may have: the sort
     * spills sooner instead of the group being refused. */
    if (o->sort_memory_bytes == 0 && g != NULL && max_bytes > 0) {
        base = zb_compact__group_memory(g, target,
                                        zb_compact__batch_rows(o, target, g),
                                        zb_compact__eq_memory(o));
        if (base + cap > max_bytes)
            cap = max_bytes > base + ZB_COMPACT_SORT_MIN_BYTES
                      ? max_bytes - base : ZB_COMPACT_SORT_MIN_BYTES;
    }
    return cap;
}

size_t zb_compact__batch_rows(const zb_compact_opts *o, int64_t target,
                              const zb_compact_group *g)
{
    uint64_t width = 64, rows;

    if (o != NULL && o->batch_rows > 0)
        return o->batch_rows;
    if (g != NULL && g->rows > 0 && g->bytes / g->rows > 0)
        width = g->bytes / g->rows;
    /* A batch is written whole before the file can roll: keep one
     * batch to about a quarter of the target so files end near it. */
    rows = (uint64_t)target / 4 / width;
    if (rows < 1024)
        rows = 1024;
    if (rows > 65536)
        rows = 65536;
    return (size_t)rows;
}

/* What becomes of a run of the file grouping (plan/group/file_group.h):
 * a group, or a skip with its reason. The runs are gathered first
 * (collect_run), then ordered and capped (zb_compact_plan_build), then
 * made groups or skips (take_run). */
typedef struct cut_state {
    zb_compact_plan *p;
    const zb_compact_opts *o;
    zb_vec *groups, *skips, *runs;
    int32_t out_spec;
    int min_files;
} cut_state;

/* A run, and whether it runs. */
typedef struct run_item {
    zb_file_run run;
    int runs;                      /* 1: a group */
    unsigned pieces;               /* its place among its bin's runs */
    unsigned bin_pieces;           /* runs its bin was cut into */
    size_t seq;                    /* plan order */
} run_item;

/* Iceberg's group test (ours: any file with a delete file forces it). */
static int run_runs(const cut_state *cs, const zb_file_run *run)
{
    size_t k;

    if (cs->o->rewrite_all)
        return 1;
    for (k = 0; k < run->n; k++)
        if (((unsigned)run->cands[k].mark & WHY_FORCES) ||
            run->cands[k].task.n_deletes > 0)
            return 1;
    if (run->n >= (size_t)cs->min_files)
        return 1;
    return run->n > 1 && run->bytes > (uint64_t)cs->p->target_file_bytes;
}

static int collect_run(const zb_file_run *run, zb_ctx *ctx, void *payload)
{
    cut_state *cs = payload;
    run_item *it, *prev;
    size_t n = cs->runs->len;

    if (zb_vec_push(cs->runs, (void **)&it) < 0)
        return zb_fail_oom(ctx);
    it->run = *run;
    it->runs = run_runs(cs, run);
    it->seq = n;
    it->pieces = 1;
    /* the cuts of one bin come one after another */
    prev = n > 0 ? zb_vec_at(cs->runs, n - 1) : NULL;
    if (prev != NULL && prev->run.spec_id == run->spec_id &&
        strcmp(prev->run.partition, run->partition) == 0)
        it->pieces = prev->pieces + 1;
    return ZB_OK;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int job_order_cmp(const void *a, const void *b, void *arg)
{
    const run_item *x = a, *y = b;
    int order = *(const int *)arg, c = 0;

    switch (order) {
    case ZB_TC_ORDER_BYTES_ASC:
        c = cmp_u64(x->run.bytes, y->run.bytes);
        break;
    case ZB_TC_ORDER_BYTES_DESC:
        c = cmp_u64(y->run.bytes, x->run.bytes);
        break;
    case ZB_TC_ORDER_FILES_ASC:
        c = cmp_u64(x->run.n, y->run.n);
        break;
    case ZB_TC_ORDER_FILES_DESC:
        c = cmp_u64(y->run.n, x->run.n);
        break;
    default:
        break;
    }
    return c != 0 ? c : cmp_u64(x->seq, y->seq);
}

/* Insertion sort: stable, and the runs are few (one or a few a
 * partition); qsort_r is not C11. */
static void sort_runs(run_item *v, size_t n, int order)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        run_item t = v[i];

        for (j = i; j > 0 && job_order_cmp(&v[j - 1], &t, &order) > 0; j--)
            v[j] = v[j - 1];
        v[j] = t;
    }
}

static int take_run(const run_item *it, zb_ctx *ctx, cut_state *cs)
{
    const zb_file_run *run = &it->run;
    zb_compact_plan *p = cs->p;
    const zb_compact_opts *o = cs->o;
    size_t k;
    zb_compact_group *g;
    zb_compact_skip *s;

    if (!it->runs) {
        if (zb_vec_push(cs->skips, (void **)&s) < 0)
            return zb_fail_oom(ctx);
        s->spec_id = run->spec_id;
        s->partition = run->partition;
        s->candidates = run->n;
        /* the texts scripts match; the plan says more per group */
        s->reason = run->n == 1 ? "single candidate file"
                    : zb_arena_sprintf(p->arena,
                                       "%zu candidate file(s) < "
                                       "min_input_files=%d",
                                       run->n, cs->min_files);
        if (s->reason == NULL)
            return zb_fail_oom(ctx);
        return ZB_OK;
    }
    if (zb_vec_push(cs->groups, (void **)&g) < 0 ||
        (g->tasks = zb_arena_calloc(p->arena, run->n,
                                    sizeof *g->tasks)) == NULL ||
        (g->task_why = zb_arena_calloc(p->arena, run->n,
                                       sizeof *g->task_why)) == NULL)
        return zb_fail_oom(ctx);
    g->spec_id = run->spec_id;
    g->out_spec_id = cs->out_spec;
    g->partition = run->partition;
    g->n_tasks = run->n;
    for (k = 0; k < run->n; k++) {
        const ice_data_file *f = run->cands[k].task.data.file;
        unsigned why = (unsigned)run->cands[k].mark;

        g->tasks[k] = run->cands[k].task;
        g->task_why[k] = why;
        g->bytes += (uint64_t)f->file_size_in_bytes;
        g->rows += f->record_count > 0 ? (uint64_t)f->record_count : 0;
        g->delete_files += run->cands[k].task.n_deletes;
        for (unsigned b = 0; b < ZB_COMPACT_WHY_COUNT; b++)
            g->why[b] += (why >> b) & 1u;
    }
    if (it->bin_pieces > 1 &&
        (g->note = zb_arena_sprintf(p->arena, "partition cut into %u "
                                    "groups by max-file-group-size-bytes",
                                    it->bin_pieces)) == NULL)
        return zb_fail_oom(ctx);
    g->est_out_files = (g->bytes + (uint64_t)p->target_file_bytes - 1) /
                       (uint64_t)p->target_file_bytes;
    if (g->est_out_files == 0 && g->rows > 0)
        g->est_out_files = 1;
    g->est_memory_bytes = zb_compact__group_memory(
        g, p->target_file_bytes,
        zb_compact__batch_rows(o, p->target_file_bytes, g),
        zb_compact__eq_memory(o)) +
        zb_compact__sort_memory(o, g, p->target_file_bytes,
                                zb_compact__max_group_memory(
                                    o, ctx->budget));
    {
        zb_compact_slice *sl = zb_calloc(g->n_tasks + 1, sizeof *sl);

        if (sl == NULL)
            return zb_fail_oom(ctx);
        g->n_slices = zb_compact__slices(sl, g, o, p->target_file_bytes);
        for (k = 0; k < g->n_slices; k++)
            if (sl[k].est_memory_bytes > g->est_slice_memory_bytes)
                g->est_slice_memory_bytes = sl[k].est_memory_bytes;
        zb_free(sl);
    }
    return ZB_OK;
}

typedef struct pstate {
    zb_compact_plan *p;
    zb_ctx *ctx;
    const zb_compact_opts *o;
    const ice_metadata *m;
    int32_t out_spec;              /* the outputs' spec */
    zb_file_bins *bins;
} pstate;

static int add_task(pstate *s, const zb_scan_task *t)
{
    const zb_compact_opts *o = s->o;
    const ice_data_file *f = t->data.file;
    unsigned why;

    s->p->live_files++;
    if (o->file_filter != NULL && !o->file_filter(t->data.spec_id, f,
                                                  o->file_filter_payload)) {
        s->p->kept_filtered++;
        return ZB_OK;
    }
    why = why_candidate(o, t, s->out_spec, s->p->min_file_bytes,
                        s->p->max_file_bytes);
    if (why == 0) {
        if (t->n_deletes > 0)
            s->p->kept_deletes++;
        else
            s->p->kept_in_range++;
        return ZB_OK;
    }
    return zb_file_bins_add(s->bins, s->ctx, t, (int)why);
}

/* Iceberg's defaults: 75% and 180% of the target. */
static void size_range(zb_compact_plan *p, const zb_compact_opts *o)
{
    int64_t t = p->target_file_bytes;

    p->min_file_bytes = o->min_file_bytes != ZB_UNSET
                            ? o->min_file_bytes
                            : (int64_t)((double)t * 0.75);
    p->max_file_bytes = o->max_file_bytes != ZB_UNSET
                            ? o->max_file_bytes
                            : (int64_t)((double)t * 1.8);
}

/* Orders the runs, caps their files, and makes each a group or a skip. */
static int take_runs(cut_state *cs, zb_ctx *ctx)
{
    run_item *v = cs->runs->items;
    size_t n = cs->runs->len, i;
    int64_t left = cs->o->max_files_to_rewrite;
    int rc;

    for (i = n; i-- > 0;)
        v[i].bin_pieces = i + 1 < n && v[i + 1].pieces > v[i].pieces
                              ? v[i + 1].bin_pieces : v[i].pieces;
    sort_runs(v, n, cs->o->job_order);
    for (i = 0; i < n; i++) {
        if (v[i].runs && cs->o->max_files_to_rewrite > 0) {
            if (left <= 0) {
                cs->p->capped_files += v[i].run.n;
                continue;
            }
            if ((int64_t)v[i].run.n > left) {
                /* largest first: the cut keeps the largest */
                size_t k;

                cs->p->capped_files += v[i].run.n - (size_t)left;
                v[i].run.n = (size_t)left;
                v[i].run.bytes = 0;
                for (k = 0; k < v[i].run.n; k++)
                    v[i].run.bytes += (uint64_t)
                        v[i].run.cands[k].task.data.file->file_size_in_bytes;
            }
            left -= (int64_t)v[i].run.n;
        }
        if ((rc = take_run(&v[i], ctx, cs)) < 0)
            return rc;
    }
    return ZB_OK;
}

int zb_compact__head(const ice_snapshot **out, zb_ctx *ctx,
                     const ice_metadata *m, const char *branch)
{
    const ice_ref *ref = ice_metadata_ref(m, branch ? branch : "main");

    *out = NULL;
    if (ref == NULL)
        return ZB_OK;
    if (ref->type != ICE_REF_BRANCH)
        return zb_fail(ctx, ZB_EINVAL, "%s: %s is a tag, not a branch",
                       m->location, branch);
    if ((*out = ice_metadata_snapshot(m, ref->snapshot_id)) == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: branch %s points at missing "
                       "snapshot %lld", m->location, branch ? branch : "main",
                       (long long)ref->snapshot_id);
    return ZB_OK;
}

int zb_compact_plan_build(zb_compact_plan *p, zb_io *io, zb_ctx *ctx,
                          const zb_table *table, const zb_compact_opts *o)
{
    zb_compact_opts dflt = ZB_COMPACT_OPTS_INIT;
    zb_scan_plan_opts so = ZB_SCAN_PLAN_OPTS_INIT;
    const ice_metadata *m = table->meta;
    const ice_snapshot *snap = NULL;
    zb_scan_plan *sp = NULL;
    const zb_scan_task *t;
    zb_vec groups, skips, runs;
    cut_state cs;
    pstate s;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(p && io && ctx && table);
    if (o == NULL)
        o = &dflt;
    memset(p, 0, sizeof *p);
    memset(&s, 0, sizeof s);
    zb_vec_init(&groups, sizeof(zb_compact_group), SIZE_MAX / 2);
    zb_vec_init(&skips, sizeof(zb_compact_skip), SIZE_MAX / 2);
    zb_vec_init(&runs, sizeof(run_item), SIZE_MAX / 2);
    s.p = p;
    s.ctx = ctx;
    s.o = o;
    s.m = m;
    p->snapshot_id = -1;
    p->format_version = m->format_version;
    p->target_file_bytes = zb_compact_target_bytes(o, m);
    size_range(p, o);
    if (zb_arena_new(&p->arena, PLAN_ARENA_MAX) < 0 ||
        (p->ident = zb_arena_strdup(p->arena, table->ident)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_file_bins_new(&s.bins, ctx, p->arena)) < 0)
        goto done;
    if (o->output_spec_id >= 0 &&
        ice_metadata_spec(m, o->output_spec_id) == NULL) {
        rc = zb_fail(ctx, ZB_EINVAL, "%s: output spec %d does not exist",
                     table->ident, (int)o->output_spec_id);
        goto done;
    }
    s.out_spec = o->output_spec_id >= 0 ? o->output_spec_id
                                        : m->default_spec_id;
    if ((rc = zb_compact__head(&snap, ctx, m, o->branch)) < 0 || snap == NULL)
        goto done;
    p->snapshot_id = snap->snapshot_id;
    p->sequence_number = snap->sequence_number;
    so.manifest = &table->paths;
    so.threads = o->threads > 0 ? (unsigned)o->threads : 1;
    if ((rc = zb_scan_plan_open(&sp, io, ctx, m, snap, &so)) < 0)
        goto done;
    while ((rc = zb_scan_plan_next(sp, ctx, &t)) > 0)
        if ((rc = add_task(&s, t)) < 0)
            break;
    if (rc < 0)
        goto done;
    cs.p = p;
    cs.o = o;
    cs.groups = &groups;
    cs.skips = &skips;
    cs.runs = &runs;
    cs.out_spec = s.out_spec;
    cs.min_files = min_input_files(o);
    if ((rc = zb_file_bins_cut(s.bins, ctx,
                               o->max_group_bytes
                                   ? o->max_group_bytes
                                   : ZB_COMPACT_MAX_GROUP_DEFAULT,
                               collect_run, &cs)) < 0 ||
        (rc = take_runs(&cs, ctx)) < 0)
        goto done;
    for (i = 0; i < groups.len; i++) {
        zb_compact_group *g = zb_vec_at(&groups, i);

        p->files += g->n_tasks;
        p->bytes += g->bytes;
        p->rows += g->rows;
        p->est_out_files += g->est_out_files;
        if (g->est_memory_bytes > p->est_peak_memory_bytes)
            p->est_peak_memory_bytes = g->est_memory_bytes;
        {
            /* A unit's estimate less what its sort may give up. */
            uint64_t sortm = zb_compact__sort_memory(
                o, g, p->target_file_bytes,
                zb_compact__max_group_memory(o, ctx->budget));
            uint64_t unit = g->est_slice_memory_bytes;
            uint64_t keep = sortm > 0 ? ZB_COMPACT_SORT_MIN_BYTES : 0;

            unit = unit > sortm ? unit - sortm + keep : keep;
            if (unit > p->est_unspillable_bytes)
                p->est_unspillable_bytes = unit;
        }
    }
    /* Move the arrays into the arena: one owner for everything. */
    if ((groups.len > 0 &&
         (p->groups = zb_arena_calloc(p->arena, groups.len,
                                      sizeof *p->groups)) == NULL) ||
        (skips.len > 0 &&
         (p->skipped = zb_arena_calloc(p->arena, skips.len,
                                       sizeof *p->skipped)) == NULL)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (groups.len > 0)
        memcpy(p->groups, groups.items, groups.len * sizeof *p->groups);
    if (skips.len > 0)
        memcpy(p->skipped, skips.items, skips.len * sizeof *p->skipped);
    p->n_groups = groups.len;
    p->n_skipped = skips.len;
    rc = ZB_OK;
done:
    zb_scan_plan_free(sp);
    zb_file_bins_free(s.bins);
    zb_vec_free(&groups);
    zb_vec_free(&skips);
    zb_vec_free(&runs);
    if (rc < 0) {
        zb_err_prefix(ctx, "planning compaction of %s", table->ident);
        zb_compact_plan_free(p);
    }
    return rc;
}

int zb_compact_plan_table(zb_compact_plan *p, zb_table **table_out,
                          const zb_op_target *t, zb_ctx *ctx,
                          const zb_compact_opts *o)
{
    zb_table *table = NULL;
    int rc;

    ZB_ASSERT_ARG(p && t && t->catalog && t->io && t->ident && ctx);
    memset(p, 0, sizeof *p);
    if (table_out != NULL)
        *table_out = NULL;
    if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &table)) < 0)
        return rc;
    if ((rc = zb_compact_plan_build(p, t->io, ctx, table, o)) < 0) {
        zb_table_free(table);
        return rc;
    }
    if (table_out != NULL)
        *table_out = table;
    else
        zb_table_free(table);
    return ZB_OK;
}

void zb_compact_plan_free(zb_compact_plan *p)
{
    if (p == NULL)
        return;
    zb_arena_free(p->arena);
    memset(p, 0, sizeof *p);
}

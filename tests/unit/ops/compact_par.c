/*
 * tests/unit/ops/compact_par.c - compaction on several threads within a
 * memory budget (ops/compact/compact.h "Memory, threads and slices"):
 * a group cut into slices writes the same files with 3 threads as with 1;
 * two runs in one process share a budget sized for one run; a unit above
 * the whole budget runs alone; with 2 threads and a budget of one unit
 * the units run one at a time; a sort that spills writes the same files
 * with 2 threads as with 1. Generated tables with a small target, so
 * that a group has several slices (inputs of 75 KiB: smaller ones are not
 * cut).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compact_test.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

/* Inputs of about 75 KiB (50000 rows), above the 64 KiB below which
 * groups are not cut; slices of about 4 of them. */
#define PAR_TARGET (256 << 10)
#define PAR_ROWS 50000

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bytes of a file (path as written: a local path, maybe file:). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f;
    char *buf;
    long n;

    if (strncmp(path, "file://", 7) == 0)
        path += 7;
    else if (strncmp(path, "file:", 5) == 0)
        path += 5;
    f = fopen(path, "rb");
    ZBT_CHECK(f != NULL);
    ZBT_CHECK(fseek(f, 0, SEEK_END) == 0);
    n = ftell(f);
    ZBT_CHECK(n > 0);
    rewind(f);
    buf = malloc((size_t)n);
    ZBT_CHECK(buf != NULL);
    ZBT_CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The live data files' bytes in manifest order, one string each. */
typedef struct files {
    char **bytes;
    size_t *len;
    size_t n;
} files;

static void files_read(files *out, of_env *e)
{
    zb_table *t = of_load(e);
    of_items live;
    size_t i;

    of_live(&live, e);
    out->n = of_count(&live, ICE_CONTENT_DATA);
    of_items_free(&live);
    out->bytes = calloc(out->n + 1, sizeof *out->bytes);
    out->len = calloc(out->n + 1, sizeof *out->len);
    ZBT_CHECK(out->bytes != NULL && out->len != NULL);
    for (i = 0; i < out->n; i++) {
        char *p = of_data_file(e, t, i);

        out->bytes[i] = slurp(p, &out->len[i]);
        free(p);
    }
    zb_table_free(t);
}

static void files_free(files *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        free(f->bytes[i]);
    free(f->bytes);
    free(f->len);
}

/* The same files, byte for byte, in the same order. */
static void files_same(const files *a, const files *b)
{
    size_t i;

    ZBT_EQ_U64(b->n, a->n);
    for (i = 0; i < a->n && i < b->n; i++)
        ZBT_CHECK(b->len[i] == a->len[i] &&
                  memcmp(b->bytes[i], a->bytes[i], a->len[i]) == 0);
}

/* main back at snap: the next compaction starts where the last did. */
static void rewind_main(of_env *e, int64_t snap)
{
    zb_table *t = of_load(e);

    of_set_ref(e, &t, "main", 0, snap, -1);
    zb_table_free(t);
}

static void same_rows(of_env *e, uint64_t rows0, uint64_t h0)
{
    uint64_t rows, h;

    of_rows(e, &rows, &h);
    ZBT_EQ_U64(rows, rows0);
    ZBT_EQ_U64(h, h0);
}

/* Watches a budget from its own thread while a run goes on: what it
 * holds is sampled (no timing is assumed: only what every sample must
 * satisfy is checked). */
typedef struct watch {
    zb_budget *b;
    atomic_int done;
    unsigned max_holders;
    uint64_t max_held;
    unsigned over_not_alone;       /* samples past the limit, not alone */
    unsigned waiting_seen;
    pthread_t thr;
} watch;

static void *watch_main(void *arg)
{
    watch *w = arg;

    while (!atomic_load(&w->done)) {
        zb_budget_stats st;

        zb_budget_stats_get(&st, w->b);
        if (st.holders > w->max_holders)
            w->max_holders = st.holders;
        if (st.held_bytes > w->max_held)
            w->max_held = st.held_bytes;
        if (st.held_bytes > st.limit_bytes && st.holders > 1)
            w->over_not_alone++;
        if (st.waiters > 0)
            w->waiting_seen++;
        sched_yield();
    }
    return NULL;
}

static void watch_start(watch *w, zb_budget *b)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    atomic_init(&w->done, 0);
    ZBT_CHECK(pthread_create(&w->thr, NULL, watch_main, w) == 0);
}

static void watch_stop(watch *w)
{
    atomic_store(&w->done, 1);
    ZBT_CHECK(pthread_join(w->thr, NULL) == 0);
    printf("  budget watched: at most %u holder(s), %llu bytes; waiters "
           "seen in %u samples\n", w->max_holders,
           (unsigned long long)w->max_held, w->waiting_seen);
}

/* The largest unit estimate of e's table (a dry run with o). */
static uint64_t unit_estimate(of_env *e, const zb_compact_opts *o,
                              size_t *slices)
{
    zb_compact_result r;
    uint64_t est = 0;
    size_t i;

    e->t.dry_run = 1;
    ZBT_OK_CTX(ct_compact(e, o, &r), &e->ctx);
    e->t.dry_run = 0;
    *slices = 0;
    for (i = 0; i < r.plan.n_groups; i++) {
        if (r.plan.groups[i].est_slice_memory_bytes > est)
            est = r.plan.groups[i].est_slice_memory_bytes;
        *slices += r.plan.groups[i].n_slices;
    }
    zb_compact_result_free(&r);
    return est;
}

/*
 * (a) One table compacted twice from the same snapshot: 1 thread, then
 * 3 (main reset in between). Partition 0 has a position delete (its
 * rows streamed), partition 1 none (its files copied by row group). The
 * output files, in manifest order, are byte for byte the same.
 */
static void test_ops_compact_par__same_bytes(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    int64_t pos[] = { 1, 50, 120 }, snap0;
    files one, three;
    double t0, t1, t3;
    size_t i;

    of_open(&e, "c-par-bytes");
    of_make_table(&e, 2, 1, 2, 24, PAR_ROWS);
    zb_free(ct_delete_pos(&e, 0, pos, 3, 0));
    of_rows(&e, &rows0, &h0);
    snap0 = of_current_id(&e);
    o.target_file_bytes = PAR_TARGET;
    o.copy_min_rows = 1;

    o.threads = 1;
    t0 = now_s();
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    t1 = now_s() - t0;
    ZBT_EQ_U64(r.plan.n_groups, 2);
    ZBT_EQ_U64(r.groups_committed, 2);
    for (i = 0; i < r.plan.n_groups; i++)
        ZBT_CHECK(r.plan.groups[i].n_slices >= 3);
    ZBT_CHECK(r.plan.groups[0].copied_files + r.plan.groups[1].copied_files >
              0);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&one, &e);

    rewind_main(&e, snap0);
    same_rows(&e, rows0, h0);

    o.threads = 3;
    o.max_concurrent = 3;
    t0 = now_s();
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    t3 = now_s() - t0;
    ZBT_EQ_U64(r.groups_committed, 2);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&three, &e);

    printf("  %zu output files; threads 1: %.3f s, threads 3: %.3f s\n",
           one.n, t1, t3);
    ZBT_CHECK(one.n > 2);
    files_same(&one, &three);
    files_free(&one);
    files_free(&three);
    of_close(&e);
}

/*
 * (e) One group of one slice, no deletes, inputs too small for a
 * row-group copy: its files are decoded ahead on 3 threads
 * (compact_readahead.c), and the file is the one 1 thread writes.
 */
static void test_ops_compact_par__read_ahead_same_bytes(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    int64_t snap0;
    files one, three;

    of_open(&e, "c-par-ahead");
    of_make_table(&e, 2, 0, 1, 12, 3000);
    of_rows(&e, &rows0, &h0);
    snap0 = of_current_id(&e);
    o.target_file_bytes = 64 << 20;

    o.threads = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_EQ_U64(r.plan.groups[0].n_slices, 1);
    ZBT_EQ_U64(r.plan.groups[0].copied_files, 0);
    ZBT_EQ_INT(r.plan.groups[0].read_workers, 1);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&one, &e);

    rewind_main(&e, snap0);

    o.threads = 3;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_INT(r.plan.groups[0].read_workers, 3);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&three, &e);

    ZBT_EQ_U64(one.n, 1);
    files_same(&one, &three);
    files_free(&one);
    files_free(&three);
    of_close(&e);
}

/*
 * (f) One sort group whose sort spills many runs, with 1 thread and then
 * 2 (a run gathered and written on threads while the next is read, the
 * final merge ahead of the writer): the same files, byte for byte, and
 * as many of them (files are cut between the sort's output batches).
 */
static void test_ops_compact_par__sort_same_bytes(void)
{
    static const zb_compact_sort_field by_id_desc[1] = { { 1, 1, 0 } };
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    uint64_t rows0, h0;
    int64_t snap0;
    files one, two;
    zb_budget *b = NULL;

    of_open(&e, "c-par-sort");
    of_make_table(&e, 2, 0, 1, 12, 20000);
    of_rows(&e, &rows0, &h0);
    snap0 = of_current_id(&e);
    o.strategy = ZB_COMPACT_SORT;
    o.sort_fields = by_id_desc;
    o.n_sort_fields = 1;
    o.sort_memory_bytes = 1 << 20;
    o.target_file_bytes = 16 << 10;
    /* a budget: the group's reservation (which the readers grow with
       threads) must not change the sort's batches */
    ZBT_EQ_INT(zb_budget_new(&b, 256 << 20, NULL), ZB_OK);
    e.ctx.budget = b;

    o.threads = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_CHECK(r.plan.groups[0].sort_runs >= 4);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&one, &e);

    rewind_main(&e, snap0);

    o.threads = 2;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_CHECK(r.plan.groups[0].sort_runs >= 4);
    zb_compact_result_free(&r);
    same_rows(&e, rows0, h0);
    files_read(&two, &e);

    printf("  sorted into %zu files\n", one.n);
    ZBT_CHECK(one.n > 1);
    files_same(&one, &two);
    files_free(&one);
    files_free(&two);
    e.ctx.budget = NULL;
    zb_budget_free(b);
    of_close(&e);
}

typedef struct run_arg {
    of_env *e;
    zb_compact_opts o;
    zb_compact_result r;
    int rc;
} run_arg;

static void *run_main(void *arg)
{
    run_arg *a = arg;

    a->rc = zb_compact(&a->e->t, &a->e->ctx, &a->o, &a->r);
    return NULL;
}

/*
 * (b) Two runs at once in one process (two tables, 2 threads each), one
 * budget with room for one run's two largest units: both complete, the
 * rows as they were.
 */
static void test_ops_compact_par__shared_budget(void)
{
    of_env e[2];
    run_arg a[2];
    pthread_t thr[2];
    uint64_t rows0[2], h0[2], est = 0, one;
    zb_budget *b = NULL;
    watch w;
    size_t slices;
    int i;

    for (i = 0; i < 2; i++) {
        zb_compact_opts o = ZB_COMPACT_OPTS_INIT;

        of_open(&e[i], i == 0 ? "c-par-shared-a" : "c-par-shared-b");
        of_make_table(&e[i], 2, 1, 2, 16, PAR_ROWS);
        of_rows(&e[i], &rows0[i], &h0[i]);
        o.target_file_bytes = PAR_TARGET;
        o.threads = 2;
        o.max_concurrent = 2;
        memset(&a[i], 0, sizeof a[i]);
        a[i].e = &e[i];
        a[i].o = o;
        one = unit_estimate(&e[i], &o, &slices);
        ZBT_CHECK(slices > 2);
        if (one > est)
            est = one;
    }
    ZBT_OK_CTX(zb_budget_new(&b, 2 * est, NULL), &e[0].ctx);
    e[0].ctx.budget = e[1].ctx.budget = b;
    watch_start(&w, b);
    for (i = 0; i < 2; i++)
        ZBT_CHECK(pthread_create(&thr[i], NULL, run_main, &a[i]) == 0);
    for (i = 0; i < 2; i++)
        ZBT_CHECK(pthread_join(thr[i], NULL) == 0);
    watch_stop(&w);
    ZBT_CHECK(w.max_held <= 2 * est);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    for (i = 0; i < 2; i++) {
        if (a[i].rc < 0)
            printf("  run %d: %s\n", i, e[i].ctx.err.msg);
        ZBT_OK_CTX(a[i].rc, &e[i].ctx);
        ZBT_EQ_U64(a[i].r.groups_committed, a[i].r.plan.n_groups);
        ZBT_EQ_U64(a[i].r.groups_failed, 0);
        zb_compact_result_free(&a[i].r);
        e[i].ctx.budget = NULL;
        same_rows(&e[i], rows0[i], h0[i]);
        of_close(&e[i]);
    }
    zb_budget_free(b);
}

/*
 * (c) A budget of 1 MiB, below every unit's estimate: each unit runs
 * alone (admitted as the only holder) and the run completes, binpack
 * and sort.
 */
static void test_ops_compact_par__above_budget(void)
{
    zb_compact_sort_field f = { 1, 0, 0 };
    int strategy;

    for (strategy = 0; strategy < 2; strategy++) {
        of_env e;
        zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
        zb_compact_result r;
        zb_budget *b = NULL;
        uint64_t rows0, h0, limit = (uint64_t)1 << 20;
        size_t i;
        watch w;

        of_open(&e, strategy == 0 ? "c-par-over-bin" : "c-par-over-sort");
        of_make_table(&e, 2, 1, 2, 12, 200);
        of_rows(&e, &rows0, &h0);
        o.target_file_bytes = 4096;
        o.threads = 2;
        o.max_concurrent = 2;
        if (strategy == 1) {
            o.strategy = ZB_COMPACT_SORT;
            o.sort_fields = &f;
            o.n_sort_fields = 1;
        }
        ZBT_OK_CTX(zb_budget_new(&b, limit, NULL), &e.ctx);
        e.ctx.budget = b;
        watch_start(&w, b);
        ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
        watch_stop(&w);
        ZBT_CHECK(r.plan.n_groups == 2);
        for (i = 0; i < r.plan.n_groups; i++)
            ZBT_CHECK(r.plan.groups[i].est_slice_memory_bytes > limit);
        ZBT_EQ_U64(r.groups_committed, 2);
        ZBT_EQ_U64(r.groups_failed, 0);
        ZBT_EQ_U64(w.over_not_alone, 0);
        ZBT_CHECK(w.max_holders <= 1);
        ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
        zb_compact_result_free(&r);
        e.ctx.budget = NULL;
        zb_budget_free(b);
        same_rows(&e, rows0, h0);
        of_close(&e);
    }
}

/*
 * (d) 2 threads, one group of several slices, a budget as large as the
 * largest slice's estimate: no two units fit at once, so they run one at
 * a time (never two holders) and none fails.
 */
static void test_ops_compact_par__one_unit_at_a_time(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    zb_budget *b = NULL;
    uint64_t rows0, h0, est;
    size_t slices;
    watch w;

    of_open(&e, "c-par-one");
    of_make_table(&e, 2, 0, 1, 20, PAR_ROWS);
    of_rows(&e, &rows0, &h0);
    o.target_file_bytes = PAR_TARGET;
    o.threads = 2;
    o.max_concurrent = 2;
    est = unit_estimate(&e, &o, &slices);
    ZBT_CHECK(slices >= 3);
    ZBT_OK_CTX(zb_budget_new(&b, est, NULL), &e.ctx);
    e.ctx.budget = b;
    watch_start(&w, b);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    watch_stop(&w);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_EQ_U64(r.plan.groups[0].n_slices, slices);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.groups_failed, 0);
    ZBT_CHECK(w.max_holders <= 1);
    ZBT_CHECK(w.max_held <= est);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_compact_result_free(&r);
    e.ctx.budget = NULL;
    zb_budget_free(b);
    same_rows(&e, rows0, h0);
    of_close(&e);
}

const zbt_case test_ops_compact_par[] = {
    ZBT_CASE(test_ops_compact_par__same_bytes),
    ZBT_CASE(test_ops_compact_par__read_ahead_same_bytes),
    ZBT_CASE(test_ops_compact_par__sort_same_bytes),
    ZBT_CASE(test_ops_compact_par__shared_budget),
    ZBT_CASE(test_ops_compact_par__above_budget),
    ZBT_CASE(test_ops_compact_par__one_unit_at_a_time),
    ZBT_END
};

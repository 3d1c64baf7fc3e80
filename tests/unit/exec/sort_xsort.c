/*
 * tests/unit/exec/sort_xsort.c - the external sort against qsort: rows of
 * (id, string, double) with many equal keys, sorted under budgets that
 * force many runs and several merge passes, must come out exactly in the
 * order of a qsort by a plain comparator with the input position as the
 * last key (the stable order); z-order sorts against z-values computed
 * here; the budget is back to 0 and every byte freed afterwards; the stop
 * flag, the spill-disk limit and failing allocations end cleanly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zbtest.h"
#include "sort_util.h"
#include "exec/sort/xsort.h"
#include "exec/spill.h"
#include "zamboni/budget.h"
#include "util/alloc.h"

typedef struct row {
    int64_t id;
    char s[4];
    size_t len;
    int s_valid;
    double d;
    int d_valid;
} row;

static row *rows_g;

static void gen_rows(row *r, size_t n, uint64_t seed)
{
    uint64_t rs = seed;
    size_t i, j;

    for (i = 0; i < n; i++) {
        uint64_t x = su_rand(&rs);
        r[i].id = (int64_t)i;
        r[i].len = x % 4;
        for (j = 0; j < r[i].len; j++)
            r[i].s[j] = (char)('a' + ((x >> (4 + 2 * j)) % 3));
        r[i].s_valid = (x >> 20) % 9 != 0;
        r[i].d = (double)((int)((x >> 24) % 5) - 2) * 0.5;
        if ((x >> 32) % 50 == 0)
            r[i].d = NAN;
        r[i].d_valid = (x >> 40) % 7 != 0;
    }
}

/* Sort order: s asc nulls last, then d desc nulls first, then input. */
static int ref_cmp(const void *pa, const void *pb)
{
    const row *a = &rows_g[*(const uint32_t *)pa];
    const row *b = &rows_g[*(const uint32_t *)pb];
    int r;

    if (a->s_valid != b->s_valid)
        return a->s_valid ? -1 : 1;
    if (a->s_valid) {
        r = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        if (r == 0)
            r = (a->len > b->len) - (a->len < b->len);
        if (r)
            return r;
    }
    if (a->d_valid != b->d_valid)
        return a->d_valid ? 1 : -1;
    if (a->d_valid) {
        int an = isnan(a->d) != 0, bn = isnan(b->d) != 0;
        r = (an || bn) ? an - bn : (a->d > b->d) - (a->d < b->d);
        if (r)
            return -r;
    }
    return (a->id > b->id) - (a->id < b->id);
}

static void schema3(struct ArrowSchema *s)
{
    su_schema(s, "+s", NULL, 3);
    su_schema(s->children[0], "l", "id", 0);
    su_schema(s->children[1], "u", "s", 0);
    su_schema(s->children[2], "g", "d", 0);
}

/* Batch of rows [lo, lo + n), built with 2 extra rows before it and an
   offset of 2 when sliced is set. */
static void batch_of(struct ArrowArray *a, const row *r, size_t lo, size_t n,
                     int sliced)
{
    size_t pre = sliced ? 2 : 0, i, m = n + pre;
    int64_t *ids = zb_malloc(m * 8);
    double *ds = zb_malloc(m * 8);
    const char **sp = zb_malloc(m * sizeof *sp);
    size_t *sl = zb_malloc(m * sizeof *sl);
    uint8_t *sv = zb_malloc(m), *dv = zb_malloc(m);
    struct ArrowArray cols[3];

    for (i = 0; i < m; i++) {
        const row *x = &r[lo + i - (i < pre ? i : pre)];
        ids[i] = i < pre ? -1 : x->id;
        ds[i] = x->d;
        sp[i] = x->s;
        sl[i] = x->len;
        sv[i] = (uint8_t)x->s_valid;
        dv[i] = (uint8_t)x->d_valid;
    }
    su_fixed(&cols[0], (int64_t)m, 8, ids, NULL);
    su_binary(&cols[1], (int64_t)m, sp, sl, sv, 0);
    su_fixed(&cols[2], (int64_t)m, 8, ds, dv);
    su_struct(a, (int64_t)m, 3, cols, NULL);
    a->offset = (int64_t)pre;
    a->length = (int64_t)n;
    zb_free(ids);
    zb_free(ds);
    zb_free(sp);
    zb_free(sl);
    zb_free(sv);
    zb_free(dv);
}

static const zb_sort_col sort_cols[2] = {
    { { 1 }, 1, 0, 0 },     /* s asc, nulls last */
    { { 2 }, 1, 1, 1 },     /* d desc, nulls first */
};

/*
 * Sorts n rows in batches of batch_rows under opts and ctx; checks the
 * output ids against the stable reference when check is set. All input
 * batches are built first; then, when fault_nth is not 0, allocation
 * fault_nth of the sort fails. Returns the rc of the first failing call
 * and fills *st.
 */
/* When set, run_sort appends each output batch's length here. */
static uint64_t *batch_trace;
static size_t batch_trace_n, batch_trace_cap;

static int run_sort(zb_ctx *ctx, zb_xsort_opts *opts, size_t n,
                    size_t batch_rows, uint64_t seed, int check,
                    zb_xsort_stats *st, uint64_t fault_nth)
{
    struct ArrowSchema s;
    struct ArrowArray *bs, out;
    zb_xsort *xs = NULL;
    uint32_t *order = NULL;
    row *r = zb_malloc((n ? n : 1) * sizeof *r);
    size_t lo, i, at = 0, nb = (n + batch_rows - 1) / batch_rows;
    int rc;

    ZBT_CHECK(r != NULL);
    gen_rows(r, n, seed);
    schema3(&s);
    bs = calloc(nb ? nb : 1, sizeof *bs);
    for (lo = 0, i = 0; lo < n; lo += batch_rows, i++)
        batch_of(&bs[i], r, lo, n - lo < batch_rows ? n - lo : batch_rows,
                 (int)(i % 2));
    if (check) {
        order = malloc((n ? n : 1) * sizeof *order);
        for (i = 0; i < n; i++)
            order[i] = (uint32_t)i;
        rows_g = r;
        qsort(order, n, sizeof *order, ref_cmp);
    }
    opts->key.cols = sort_cols;
    opts->key.ncols = 2;
    memset(st, 0, sizeof *st);
    if (fault_nth)
        zb_alloc__fail_at(fault_nth, 0);
    if ((rc = zb_xsort_new(&xs, ctx, &s, opts)) < 0)
        goto done;
    for (i = 0; i < nb; i++) {
        if ((rc = zb_xsort_add(xs, ctx, &bs[i])) < 0)
            goto done;
        ZBT_CHECK(bs[i].release == NULL);
    }
    if ((rc = zb_xsort_finish(xs, ctx)) < 0)
        goto done;
    for (;;) {
        if ((rc = zb_xsort_next(&out, xs, ctx)) < 0)
            goto done;
        if (out.release == NULL)
            break;
        ZBT_CHECK((size_t)out.length <= opts->out_batch_rows ||
                  opts->out_batch_rows == 0);
        if (batch_trace != NULL && batch_trace_n < batch_trace_cap)
            batch_trace[batch_trace_n++] = (uint64_t)out.length;
        if (check) {
            const int64_t *ids = (const int64_t *)out.children[0]->buffers[1];
            int64_t base = out.children[0]->offset + out.offset;
            for (i = 0; i < (size_t)out.length; i++, at++) {
                ZBT_CHECK(at < n);
                if (ids[base + (int64_t)i] != (int64_t)order[at])
                    zbt__fail(__FILE__, __LINE__, "output row %zu is id "
                              "%lld, want %u", at,
                              (long long)ids[base + (int64_t)i], order[at]);
            }
        }
        zb_arrow_array_release(&out);
    }
    if (check)
        ZBT_EQ_U64(at, n);
done:
    if (xs)
        zb_xsort_stats_get(st, xs);
    zb_xsort_free(xs);
    for (i = 0; i < nb; i++)
        zb_arrow_array_release(&bs[i]);
    free(bs);
    free(order);
    zb_free(r);
    zb_arrow_schema_release(&s);
    return rc;
}

/* 1M rows under a 4 MiB budget: many runs, more than one merge. */
static void test_exec_sort_xsort__million_rows_budget(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    zb_budget *b = NULL;
    uint64_t live = zb_alloc_live_bytes(), spill0 = zb_spill_used_bytes();
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 4 << 20, NULL), ZB_OK);
    ctx.budget = b;
    opts.out_batch_rows = 10000;
    opts.max_fan_in = 8;            /* 16 runs or more: two passes */
    ZBT_OK_CTX(run_sort(&ctx, &opts, 1000000, 8192, 1, 1, &st, 0), &ctx);
    ZBT_EQ_U64(st.rows, 1000000);
    ZBT_CHECK(st.runs >= 16);
    ZBT_CHECK(st.merge_passes >= 2);
    ZBT_CHECK(st.bytes_spilled > 20000000);
    ZBT_CHECK(st.peak_reserved_bytes <= 4 << 20);
    ZBT_CHECK(st.peak_reserved_bytes > 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_spill_used_bytes(), spill0);
    zb_budget_free(b);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

/*
 * opts.threads 2 (a run's blocks gathered on a second thread, the final
 * merge ahead of next()): the same stable order as the reference, over
 * many runs and passes, with and without the last run in memory; nothing
 * held or leaked afterwards.
 */
static void test_exec_sort_xsort__two_threads(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st, st1;
    zb_budget *b = NULL;
    uint64_t live = zb_alloc_live_bytes(), spill0 = zb_spill_used_bytes();
    zb_ctx ctx;

    uint64_t trace1[512], trace2[512];
    size_t n1, i;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 4 << 20, NULL), ZB_OK);
    ctx.budget = b;
    opts.out_batch_rows = 3000;
    batch_trace = trace1;
    batch_trace_cap = 512;
    batch_trace_n = 0;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 300000, 8192, 11, 1, &st1, 0), &ctx);
    n1 = batch_trace_n;
    opts.threads = 2;
    batch_trace = trace2;
    batch_trace_n = 0;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 300000, 8192, 11, 1, &st, 0), &ctx);
    batch_trace = NULL;
    ZBT_EQ_U64(st.rows, 300000);
    ZBT_CHECK(st.runs >= 4);
    /* the same runs and the same output batches: a caller that cuts
       files between batches writes the same files */
    ZBT_EQ_U64(st.runs, st1.runs);
    ZBT_EQ_U64(st.bytes_spilled, st1.bytes_spilled);
    ZBT_CHECK(n1 > 0 && n1 < 512);
    ZBT_EQ_U64(batch_trace_n, n1);
    for (i = 0; i < n1 && i < batch_trace_n; i++)
        ZBT_EQ_U64(trace2[i], trace1[i]);
    ZBT_CHECK(st.peak_reserved_bytes <= 4 << 20);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    /* a fan-in of 2: passes before the final merge */
    opts.max_fan_in = 2;
    opts.max_memory_bytes = 512 << 10;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 100000, 1000, 12, 1, &st, 0), &ctx);
    ZBT_CHECK(st.merge_passes >= 3);
    /* the last run merged from memory */
    opts.max_fan_in = 0;
    opts.max_memory_bytes = 1280 << 10;
    opts.out_batch_rows = 100;
    ctx.budget = NULL;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 20000, 500, 13, 1, &st, 0), &ctx);
    ZBT_CHECK(st.rows_unspilled > 0);
    zb_budget_free(b);
    ZBT_EQ_U64(zb_spill_used_bytes(), spill0);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

/*
 * Compression forced on (as when the spill disk runs short): the same
 * stable order through merge passes and the final merge, with one and two
 * threads; blocks LZ4-packed; within the budget; the disk of every block
 * read given back as the merges go, so nothing is held at the end.
 */
static void test_exec_sort_xsort__packed_spill(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st, plain;
    zb_budget *b = NULL;
    uint64_t live = zb_alloc_live_bytes(), spill0 = zb_spill_used_bytes();
    zb_ctx ctx;
    int threads;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 4 << 20, NULL), ZB_OK);
    ctx.budget = b;
    opts.out_batch_rows = 5000;
    opts.max_fan_in = 4;
    zb_spill_set_pack(ZB_SPILL_PACK_NEVER);
    ZBT_OK_CTX(run_sort(&ctx, &opts, 300000, 8192, 21, 1, &plain, 0), &ctx);
    ZBT_EQ_U64(plain.bytes_packed, 0);
    zb_spill_set_pack(ZB_SPILL_PACK_ALWAYS);
    for (threads = 1; threads <= 2; threads++) {
        opts.threads = threads;
        ZBT_OK_CTX(run_sort(&ctx, &opts, 300000, 8192, 21, 1, &st, 0), &ctx);
        ZBT_EQ_U64(st.rows, 300000);
        ZBT_CHECK(st.merge_passes >= 2);
        ZBT_CHECK(st.bytes_packed > 0);
        /* every block was packed: its raw bytes are at least what went
           to disk (headers aside: the generated strings compress) */
        ZBT_CHECK(st.bytes_spilled < st.bytes_packed);
        ZBT_CHECK(st.peak_reserved_bytes <= 4 << 20);
        ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
        ZBT_EQ_U64(zb_spill_used_bytes(), spill0);
    }
    zb_spill_set_pack(ZB_SPILL_PACK_AUTO);
    zb_budget_free(b);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

/* A fan-in of 3 over dozens of runs: several passes, same order. */
static void test_exec_sort_xsort__many_passes(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    opts.max_memory_bytes = 512 << 10;
    opts.max_fan_in = 3;
    opts.out_batch_rows = 777;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 100000, 1000, 2, 1, &st, 0), &ctx);
    ZBT_CHECK(st.runs > 9);
    ZBT_CHECK(st.merge_passes >= 3);
}

/* Without a budget or cap nothing spills; output straight from memory. */
static void test_exec_sort_xsort__in_memory(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(run_sort(&ctx, &opts, 50000, 3000, 3, 1, &st, 0), &ctx);
    ZBT_EQ_U64(st.runs, 0);
    ZBT_EQ_U64(st.bytes_spilled, 0);
    ZBT_EQ_U64(st.merge_passes, 0);
    ZBT_OK_CTX(run_sort(&ctx, &opts, 0, 10, 3, 1, &st, 0), &ctx);
}

/*
 * Z-order of (x int32, y int32) with 10 bits: z-values computed here
 * never decrease, and equal ones keep input order.
 */
static void test_exec_sort_xsort__zorder(void)
{
    enum { NZ = 60000, B = 10 };
    zb_sort_col zc[2] = { { { 0 }, 1, 0, 0 }, { { 1 }, 1, 0, 0 } };
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray cols[3], a, out;
    int32_t *x = zb_malloc(NZ * 4), *y = zb_malloc(NZ * 4);
    int64_t *id = zb_malloc(NZ * 8);
    uint64_t rs = 9, prev_z = 0, prev_id = 0, n = 0;
    zb_xsort *xs = NULL;
    zb_xsort_stats st;
    zb_ctx ctx;
    int64_t i;

    zb_ctx_init(&ctx);
    for (i = 0; i < NZ; i++) {
        x[i] = (int32_t)su_rand(&rs) >> (i % 3 ? 0 : 24);
        y[i] = (int32_t)su_rand(&rs);
        id[i] = i;
    }
    su_schema(&s, "+s", NULL, 3);
    su_schema(s.children[0], "i", "x", 0);
    su_schema(s.children[1], "i", "y", 0);
    su_schema(s.children[2], "l", "id", 0);
    opts.key.mode = ZB_SORTKEY_ZORDER;
    opts.key.cols = zc;
    opts.key.ncols = 2;
    opts.key.zorder_bits = B;
    opts.max_memory_bytes = 256 << 10;
    ZBT_OK_CTX(zb_xsort_new(&xs, &ctx, &s, &opts), &ctx);
    for (i = 0; i < NZ; i += 5000) {
        su_fixed(&cols[0], 5000, 4, x + i, NULL);
        su_fixed(&cols[1], 5000, 4, y + i, NULL);
        su_fixed(&cols[2], 5000, 8, id + i, NULL);
        su_struct(&a, 5000, 3, cols, NULL);
        ZBT_OK_CTX(zb_xsort_add(xs, &ctx, &a), &ctx);
    }
    ZBT_OK_CTX(zb_xsort_finish(xs, &ctx), &ctx);
    for (;;) {
        ZBT_OK_CTX(zb_xsort_next(&out, xs, &ctx), &ctx);
        if (out.release == NULL)
            break;
        for (i = 0; i < out.length; i++, n++) {
            int64_t r = ((const int64_t *)out.children[2]->buffers[1])[i];
            uint32_t u[2];
            uint64_t z = 0;
            int j;
            u[0] = (uint32_t)((uint64_t)((int64_t)x[r] - INT32_MIN) >>
                              (32 - B));
            u[1] = (uint32_t)((uint64_t)((int64_t)y[r] - INT32_MIN) >>
                              (32 - B));
            for (j = B - 1; j >= 0; j--)
                z = z << 2 | ((u[0] >> j) & 1) << 1 | ((u[1] >> j) & 1);
            ZBT_CHECK(n == 0 || z > prev_z ||
                      (z == prev_z && (uint64_t)r > prev_id));
            prev_z = z;
            prev_id = (uint64_t)r;
        }
        zb_arrow_array_release(&out);
    }
    ZBT_EQ_U64(n, NZ);
    zb_xsort_stats_get(&st, xs);
    ZBT_CHECK(st.runs > 1);
    zb_xsort_free(xs);
    zb_arrow_schema_release(&s);
    zb_free(x);
    zb_free(y);
    zb_free(id);
}

/*
 * A sort that spills a little: its last rows stay in memory and join the
 * final merge from there; at a smaller budget they are spilled too.
 */
static void test_exec_sort_xsort__last_run_in_memory(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    zb_budget *b = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 16 << 20, NULL), ZB_OK);
    ctx.budget = b;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 220000, 1000, 10, 1, &st, 0), &ctx);
    ZBT_CHECK(st.runs >= 1);
    ZBT_CHECK(st.rows_unspilled > 0 && st.rows_unspilled < 220000);
    ZBT_EQ_U64(st.merge_passes, 1);
    opts.max_fan_in = 2;        /* 2 spilled runs leave no room for it */
    ZBT_OK_CTX(run_sort(&ctx, &opts, 500000, 1000, 10, 1, &st, 0), &ctx);
    ZBT_CHECK(st.runs >= 3);
    ZBT_EQ_U64(st.rows_unspilled, 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/*
 * Batches larger than the whole budget: each is admitted alone (the
 * budget's oversized rule) and becomes a run of its own.
 */
static void test_exec_sort_xsort__oversized_batches(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    zb_budget *b = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 1 << 20, NULL), ZB_OK);
    ctx.budget = b;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 150000, 50000, 8, 1, &st, 0), &ctx);
    ZBT_EQ_U64(st.runs, 3);
    ZBT_CHECK(st.peak_reserved_bytes > 1 << 20);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/*
 * A caller's reservation (a compaction group's) lent to the sort: grown,
 * never released by it, the first keep bytes left alone.
 */
static void test_exec_sort_xsort__borrowed_reservation(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_reservation r = ZB_RESERVATION_INIT;
    zb_xsort_stats st;
    zb_budget *b = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_budget_new(&b, 4 << 20, NULL), ZB_OK);
    ctx.budget = b;
    ZBT_EQ_INT(zb_budget_reserve(&r, b, 1 << 20, NULL), ZB_OK);
    opts.reservation = &r;
    opts.reservation_keep_bytes = 512 << 10;
    ZBT_OK_CTX(run_sort(&ctx, &opts, 200000, 5000, 9, 1, &st, 0), &ctx);
    ZBT_CHECK(st.runs > 2);
    ZBT_CHECK(st.peak_reserved_bytes <= (4 << 20) - (512 << 10));
    ZBT_EQ_U64(zb_budget_holders(b), 1);       /* only the caller's */
    ZBT_CHECK(r.bytes >= 1 << 20 && r.bytes <= 4 << 20);
    zb_budget_release(&r);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

static void test_exec_sort_xsort__stop_flag(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    atomic_int stop = 1;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ctx.stop = &stop;
    opts.max_memory_bytes = 256 << 10;
    ZBT_RC(run_sort(&ctx, &opts, 1000, 100, 4, 0, &st, 0), ZB_ECANCELED);
    ZBT_CONTAINS(ctx.err.msg, "stopped");

    /* raised between calls of a spilling sort: the next call stops */
    {
        struct ArrowSchema s;
        struct ArrowArray b, out;
        zb_xsort *xs = NULL;
        row *r = zb_malloc(20000 * sizeof *r);
        uint64_t live = zb_alloc_live_bytes();
        int i;

        atomic_store(&stop, 0);
        gen_rows(r, 20000, 4);
        schema3(&s);
        opts.key.cols = sort_cols;
        opts.key.ncols = 2;
        ZBT_OK_CTX(zb_xsort_new(&xs, &ctx, &s, &opts), &ctx);
        for (i = 0; i < 10; i++) {
            batch_of(&b, r, (size_t)i * 2000, 2000, 0);
            ZBT_OK_CTX(zb_xsort_add(xs, &ctx, &b), &ctx);
        }
        ZBT_OK_CTX(zb_xsort_finish(xs, &ctx), &ctx);
        ZBT_OK_CTX(zb_xsort_next(&out, xs, &ctx), &ctx);
        zb_arrow_array_release(&out);
        atomic_store(&stop, 1);
        ZBT_RC(zb_xsort_next(&out, xs, &ctx), ZB_ECANCELED);
        ZBT_CHECK(out.release == NULL);
        zb_xsort_stats_get(&st, xs);
        ZBT_CHECK(st.runs > 1);
        zb_xsort_free(xs);
        zb_arrow_schema_release(&s);
        zb_free(r);
        ZBT_CHECK(zb_alloc_live_bytes() < live);
    }
}

static void test_exec_sort_xsort__spill_limit(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_xsort_stats st;
    uint64_t old = zb_spill_limit(), live = zb_alloc_live_bytes();
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    zb_spill_set_limit(zb_spill_used_bytes() + (100 << 10));
    opts.max_memory_bytes = 256 << 10;
    ZBT_RC(run_sort(&ctx, &opts, 100000, 1000, 5, 0, &st, 0), ZB_ENOMEM);
    ZBT_CONTAINS(ctx.err.msg, "spill-disk limit");
    zb_spill_set_limit(old);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

/*
 * Each allocation (or every step-th) of a small spilling sort failing in
 * turn, until a run meets no fault: ZB_ENOMEM or success, nothing held
 * or leaked.
 */
static void fault_loop(zb_xsort_opts *opts, size_t rows, size_t batch_rows,
                       zb_budget *b, uint64_t want_runs, int want_mem_run,
                       uint64_t step)
{
    zb_xsort_stats st;
    uint64_t live, nth, failed;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    ctx.budget = b;
    live = zb_alloc_live_bytes();
    ZBT_OK_CTX(run_sort(&ctx, opts, rows, batch_rows, 6, 1, &st, 0), &ctx);
    ZBT_CHECK(st.runs >= want_runs);
    ZBT_CHECK((st.rows_unspilled > 0) == want_mem_run);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
    for (nth = 1;; nth += step) {
        rc = run_sort(&ctx, opts, rows, batch_rows, 6, 0, &st, nth);
        failed = zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        ZBT_CHECK(rc == ZB_OK || failed > 0);
        if (b)
            ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
        if (zb_alloc_live_bytes() != live)
            zbt__fail(__FILE__, __LINE__, "fault %llu (rc %d): %llu bytes "
                      "leaked (%s)", (unsigned long long)nth, rc,
                      (unsigned long long)(zb_alloc_live_bytes() - live),
                      ctx.err.msg);
        if (rc == ZB_OK && failed == 0)
            break;
    }
    ZBT_CHECK(nth > 50);
}

static void test_exec_sort_xsort__alloc_failures(void)
{
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_budget *b = NULL;

    ZBT_EQ_INT(zb_budget_new(&b, 1 << 20, NULL), ZB_OK);
    opts.max_memory_bytes = 64 << 10;       /* many runs, 2-way passes */
    opts.max_fan_in = 2;
    opts.out_batch_rows = 100;
    fault_loop(&opts, 3000, 250, b, 3, 0, 1);
    zb_budget_free(b);
    opts.max_memory_bytes = 1280 << 10;     /* the last run from memory */
    opts.max_fan_in = 0;
    fault_loop(&opts, 20000, 500, NULL, 1, 1, 3);
    /* the same with the sort's own threads: a failure on either side of
       each pipe is reported, and nothing is left behind */
    opts.threads = 2;
    fault_loop(&opts, 20000, 500, NULL, 1, 1, 7);
    ZBT_EQ_INT(zb_budget_new(&b, 1 << 20, NULL), ZB_OK);
    opts.max_memory_bytes = 64 << 10;
    opts.max_fan_in = 2;
    fault_loop(&opts, 3000, 250, b, 3, 0, 1);
    zb_budget_free(b);
}

/* ---- keys that share a long prefix ------------------------------------ */

typedef struct prow {
    char s[40];
    size_t len;
    int valid;
} prow;

static const prow *prows_g;

/* s asc, nulls last, then input position (the stable order). */
static int pref_cmp(const void *pa, const void *pb)
{
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    const prow *a = &prows_g[ia], *b = &prows_g[ib];
    int r;

    if (a->valid != b->valid)
        return a->valid ? -1 : 1;
    if (a->valid) {
        r = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        if (r == 0)
            r = (a->len > b->len) - (a->len < b->len);
        if (r)
            return r;
    }
    return (ia > ib) - (ia < ib);
}

/*
 * Rows of (id, s) where s is "tenant-0042/user-" and 0 to 12 more
 * characters from a small alphabet (many ties, keys much longer than
 * the 8 bytes an index entry holds), with mode 1 a few rows that are a
 * prefix of the common part or null from the second half on (the
 * prefix every key shares shrinks with the input seen), mode 2 every row
 * the same string (nothing past the common prefix differs: the order is
 * the input's). Sorted by s in memory and under a cap that spills many
 * runs: the ids must come out in the qsort order.
 */
static void prefix_case(int mode, uint64_t cap, size_t n, size_t batch_rows)
{
    static const char common[] = "tenant-0042/user-";
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    zb_sort_col col = { { 1 }, 1, 0, 0 };
    struct ArrowSchema s;
    struct ArrowArray out;
    zb_xsort *xs = NULL;
    zb_xsort_stats st;
    prow *r = zb_malloc(n * sizeof *r);
    uint32_t *order = malloc(n * sizeof *order);
    uint64_t rs = 77 + (uint64_t)mode;
    size_t i, j, lo, at = 0;
    zb_ctx ctx;

    ZBT_CHECK(r != NULL && order != NULL);
    zb_ctx_init(&ctx);
    for (i = 0; i < n; i++) {
        uint64_t x = su_rand(&rs);
        memcpy(r[i].s, common, sizeof common - 1);
        r[i].len = sizeof common - 1;
        r[i].valid = 1;
        if (mode != 2)
            for (j = 0; j < x % 13; j++)
                r[i].s[r[i].len++] = (char)('0' + ((x >> (4 + 3 * j)) % 4));
        if (mode == 1 && i >= n / 2 && (x >> 50) % 97 == 0)
            r[i].len = (x >> 40) % 10;          /* "tenant-00" and shorter */
        if (mode == 1 && i >= n / 2 && (x >> 56) % 89 == 0)
            r[i].valid = 0;
        order[i] = (uint32_t)i;
    }
    prows_g = r;
    qsort(order, n, sizeof *order, pref_cmp);
    su_schema(&s, "+s", NULL, 2);
    su_schema(s.children[0], "l", "id", 0);
    su_schema(s.children[1], "u", "s", 0);
    opts.key.cols = &col;
    opts.key.ncols = 1;
    opts.max_memory_bytes = cap;
    opts.out_batch_rows = 1000;
    ZBT_OK_CTX(zb_xsort_new(&xs, &ctx, &s, &opts), &ctx);
    for (lo = 0; lo < n; lo += batch_rows) {
        size_t m = n - lo < batch_rows ? n - lo : batch_rows;
        int64_t *ids = zb_malloc(m * 8);
        const char **sp = zb_malloc(m * sizeof *sp);
        size_t *sl = zb_malloc(m * sizeof *sl);
        uint8_t *sv = zb_malloc(m);
        struct ArrowArray cols[2], b;

        for (i = 0; i < m; i++) {
            ids[i] = (int64_t)(lo + i);
            sp[i] = r[lo + i].s;
            sl[i] = r[lo + i].len;
            sv[i] = (uint8_t)r[lo + i].valid;
        }
        su_fixed(&cols[0], (int64_t)m, 8, ids, NULL);
        su_binary(&cols[1], (int64_t)m, sp, sl, sv, 0);
        su_struct(&b, (int64_t)m, 2, cols, NULL);
        ZBT_OK_CTX(zb_xsort_add(xs, &ctx, &b), &ctx);
        zb_free(ids);
        zb_free(sp);
        zb_free(sl);
        zb_free(sv);
    }
    ZBT_OK_CTX(zb_xsort_finish(xs, &ctx), &ctx);
    for (;;) {
        const int64_t *ids;
        int64_t base;

        ZBT_OK_CTX(zb_xsort_next(&out, xs, &ctx), &ctx);
        if (out.release == NULL)
            break;
        ids = (const int64_t *)out.children[0]->buffers[1];
        base = out.children[0]->offset + out.offset;
        for (i = 0; i < (size_t)out.length; i++, at++) {
            ZBT_CHECK(at < n);
            if (ids[base + (int64_t)i] != (int64_t)order[at])
                zbt__fail(__FILE__, __LINE__, "mode %d, cap %llu: output "
                          "row %zu is id %lld, want %u", mode,
                          (unsigned long long)cap, at,
                          (long long)ids[base + (int64_t)i], order[at]);
        }
        zb_arrow_array_release(&out);
    }
    ZBT_EQ_U64(at, n);
    zb_xsort_stats_get(&st, xs);
    if (cap > 0)
        ZBT_CHECK(st.runs >= 4);
    else
        ZBT_EQ_U64(st.runs, 0);
    zb_xsort_free(xs);
    zb_arrow_schema_release(&s);
    free(order);
    zb_free(r);
}

static void test_exec_sort_xsort__common_prefix(void)
{
    int mode;

    for (mode = 0; mode < 3; mode++) {
        prefix_case(mode, 0, 30000, 4000);
        prefix_case(mode, 256 << 10, 30000, 1500);
        prefix_case(mode, 0, 700, 100);        /* small runs: no radix */
    }
}

const zbt_case test_exec_sort_xsort[] = {
    ZBT_CASE(test_exec_sort_xsort__million_rows_budget),
    ZBT_CASE(test_exec_sort_xsort__two_threads),
    ZBT_CASE(test_exec_sort_xsort__many_passes),
    ZBT_CASE(test_exec_sort_xsort__packed_spill),
    ZBT_CASE(test_exec_sort_xsort__in_memory),
    ZBT_CASE(test_exec_sort_xsort__zorder),
    ZBT_CASE(test_exec_sort_xsort__last_run_in_memory),
    ZBT_CASE(test_exec_sort_xsort__oversized_batches),
    ZBT_CASE(test_exec_sort_xsort__borrowed_reservation),
    ZBT_CASE(test_exec_sort_xsort__stop_flag),
    ZBT_CASE(test_exec_sort_xsort__spill_limit),
    ZBT_CASE(test_exec_sort_xsort__alloc_failures),
    ZBT_CASE(test_exec_sort_xsort__common_prefix),
    ZBT_END
};

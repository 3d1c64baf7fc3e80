/*
 * ops/compact/compact_carry_map.c - the position map of a rewrite
 * (ops/compact/compact_carry_map.h).
 */
#define ZB_MODULE "compact"

#include <stdlib.h>
#include <string.h>

#include "ops/compact/compact_carry_map.h"
#include "util/alloc.h"
#include "util/err.h"

void zb_carry_map_init(zb_carry_map *m, uint64_t max_runs)
{
    memset(m, 0, sizeof *m);
    m->max_runs = max_runs ? max_runs : ZB_CARRY_MAX_RUNS_DEFAULT;
    zb_vec_init(&m->runs, sizeof(zb_carry_run), SIZE_MAX / 2);
}

void zb_carry_map_free(zb_carry_map *m)
{
    zb_vec_free(&m->runs);
}

void zb_carry_map_lose(zb_carry_map *m, const char *why)
{
    if (m->lost == NULL)
        m->lost = why;
    zb_vec_free(&m->runs);
    zb_vec_init(&m->runs, sizeof(zb_carry_run), SIZE_MAX / 2);
}

int zb_carry_map_add(zb_carry_map *m, uint32_t task, uint64_t pos,
                     uint64_t len)
{
    zb_carry_run *r;

    if (m->lost != NULL || len == 0)
        return ZB_OK;
    m->rows += len;
    if (m->runs.len > 0) {
        r = zb_vec_at(&m->runs, m->runs.len - 1);
        if (r->task == task && r->in_pos + r->len == pos) {
            r->len += len;
            return ZB_OK;
        }
    }
    if ((uint64_t)m->runs.len >= m->max_runs) {
        zb_carry_map_lose(m, "its position map passed its cap of runs");
        return ZB_OK;
    }
    if (zb_vec_push(&m->runs, (void **)&r) < 0)
        return ZB_ENOMEM;
    r->task = task;
    r->in_pos = pos;
    r->len = len;
    return ZB_OK;
}

int zb_carry_map_add_sel(zb_carry_map *m, uint32_t task, uint64_t pos0,
                         const uint32_t *sel, size_t nsel)
{
    size_t i, j;
    int rc;

    if (sel == NULL)
        return zb_carry_map_add(m, task, pos0, nsel);
    for (i = 0; i < nsel && m->lost == NULL; i = j) {
        for (j = i + 1; j < nsel && sel[j] == sel[j - 1] + 1; j++)
            ;
        if ((rc = zb_carry_map_add(m, task, pos0 + sel[i], j - i)) < 0)
            return rc;
    }
    return ZB_OK;
}

/* A run with the output row it starts at. */
typedef struct irun {
    uint64_t in_pos, len, out_row;
    uint32_t task;
} irun;

struct zb_carry_index {
    irun *runs;                    /* sorted by (task, in_pos) */
    size_t n;
    uint64_t *out_start;           /* n_out + 1 cumulative row counts */
    size_t n_out;
};

static int cmp_irun(const void *a, const void *b)
{
    const irun *x = a, *y = b;

    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return (x->in_pos > y->in_pos) - (x->in_pos < y->in_pos);
}

int zb_carry_index_new(zb_carry_index **out, zb_ctx *ctx,
                       const zb_carry_run *runs, size_t n,
                       const int64_t *out_rows, size_t n_out)
{
    zb_carry_index *ix;
    uint64_t at = 0;
    size_t i;

    *out = NULL;
    if ((ix = zb_calloc(1, sizeof *ix)) == NULL ||
        (ix->runs = zb_calloc(n + 1, sizeof *ix->runs)) == NULL ||
        (ix->out_start = zb_calloc(n_out + 1, sizeof *ix->out_start)) ==
            NULL) {
        zb_carry_index_free(ix);
        return zb_fail_oom(ctx);
    }
    ix->n = n;
    ix->n_out = n_out;
    for (i = 0; i < n; i++) {
        ix->runs[i].in_pos = runs[i].in_pos;
        ix->runs[i].len = runs[i].len;
        ix->runs[i].task = runs[i].task;
        ix->runs[i].out_row = at;
        at += runs[i].len;
    }
    for (i = 0; i < n_out; i++) {
        if (out_rows[i] < 0) {
            zb_carry_index_free(ix);
            return zb_fail(ctx, ZB_EINVAL, "position map: output %zu has "
                           "no record count", i);
        }
        ix->out_start[i + 1] = ix->out_start[i] + (uint64_t)out_rows[i];
    }
    if (at != ix->out_start[n_out]) {
        zb_fail(ctx, ZB_EINVAL, "position map: its runs hold %llu rows, "
                "the outputs %llu", (unsigned long long)at,
                (unsigned long long)ix->out_start[n_out]);
        zb_carry_index_free(ix);
        return ZB_EINVAL;
    }
    qsort(ix->runs, n, sizeof *ix->runs, cmp_irun);
    for (i = 1; i < n; i++)
        if (ix->runs[i].task == ix->runs[i - 1].task &&
            ix->runs[i].in_pos <
                ix->runs[i - 1].in_pos + ix->runs[i - 1].len) {
            zb_fail(ctx, ZB_EINVAL, "position map: input %u has position "
                    "%llu twice", (unsigned)ix->runs[i].task,
                    (unsigned long long)ix->runs[i].in_pos);
            zb_carry_index_free(ix);
            return ZB_EINVAL;
        }
    *out = ix;
    return ZB_OK;
}

int zb_carry_index_find(const zb_carry_index *ix, uint32_t task,
                        uint64_t pos, size_t *file, uint64_t *out_pos)
{
    size_t lo = 0, hi = ix->n, f_lo, f_hi;
    const irun *r;
    uint64_t row;

    /* The last run at or before (task, pos). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const irun *m = &ix->runs[mid];

        if (m->task < task || (m->task == task && m->in_pos <= pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    r = &ix->runs[lo - 1];
    if (r->task != task || pos >= r->in_pos + r->len)
        return 0;
    row = r->out_row + (pos - r->in_pos);
    /* The output whose rows hold it: the last start at or before row. */
    f_lo = 0;
    f_hi = ix->n_out;
    while (f_lo < f_hi) {
        size_t mid = f_lo + (f_hi - f_lo) / 2;

        if (ix->out_start[mid + 1] <= row)
            f_lo = mid + 1;
        else
            f_hi = mid;
    }
    *file = f_lo;
    *out_pos = row - ix->out_start[f_lo];
    return 1;
}

void zb_carry_index_free(zb_carry_index *ix)
{
    if (ix == NULL)
        return;
    zb_free(ix->runs);
    zb_free(ix->out_start);
    zb_free(ix);
}

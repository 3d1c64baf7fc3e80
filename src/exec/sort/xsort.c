/*
 * exec/sort/xsort.c - external merge sort: input, sorted runs, the API
 * (exec/sort/xsort.h); the merge lives in xsort_merge.c.
 *
 * Input phase. Each added batch is kept as it came, with its keys
 * (zb_sortkey_build) in a key buffer of its own, and one 16-byte index
 * entry per row: 8 key bytes as a big-endian integer (most comparisons
 * end there), and the row's batch and row number, which find the whole
 * key when the prefixes tie. The 8 bytes are taken when the run is
 * sorted, past the bytes that every key held starts with (a constant
 * column, null markers, a shared string start such as "user-": keys
 * that start alike would otherwise tie on their first 8 bytes and fall
 * through to whole-key compares). Before a batch is kept, the
 * memory it brings (batch, keys, index growth, twice: the merge sort's
 * scratch array is sized with the index) plus the margin needed to write
 * a run is reserved with a try-grow; when that is refused, the rows held
 * so far become a run: the index is sorted (stable: LSD radix on the
 * prefixes, then a bottom-up merge sort of equal-prefix stretches), the
 * rows are gathered in key order into blocks of about block_target bytes
 * (zb_arrow_take) and each block is framed into the run file
 * (zb_arrow_spill_write); then the batches and keys are freed and the
 * index reused. The run file keeps the bytes every key of its runs
 * starts with, for the merge to compare past them.
 *
 * finish() sorts what is left. With no run spilled, next() gathers output
 * batches straight from the sorted index; otherwise xsort_merge.c merges
 * the runs, with the rows still held as the last run, read from memory,
 * when there is room for that (else they are spilled first).
 *
 * Memory: `used` counts what the sort holds; the reservation is grown
 * ahead of it and never shrunk until free (the budget has no shrink).
 */
#define ZB_MODULE "xsort"

#include <string.h>

#include "exec/sort/xsort_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define DEFAULT_OUT_ROWS 65536
#define GROW_CHUNK (1u << 20)
#define BLOCK_MIN (32u << 10)
#define BLOCK_MAX (4u << 20)
#define BASIS_UNBOUNDED (64u << 20)

/* ---- memory ------------------------------------------------------------ */

void zb_xsort__account(zb_xsort *xs, int64_t delta)
{
    xs->used = (uint64_t)((int64_t)xs->used + delta);
    if (xs->used > xs->st.peak_used_bytes)
        xs->st.peak_used_bytes = xs->used;
}

uint64_t zb_xsort__held(const zb_xsort *xs)
{
    return xs->rp->bytes > xs->keep ? xs->rp->bytes - xs->keep : 0;
}

static void note_peak(zb_xsort *xs)
{
    if (zb_xsort__held(xs) > xs->st.peak_reserved_bytes)
        xs->st.peak_reserved_bytes = zb_xsort__held(xs);
}

int zb_xsort__ensure(zb_xsort *xs, zb_ctx *ctx, uint64_t need, int must)
{
    uint64_t cap = xs->opts.max_memory_bytes, want;
    int rc;

    if (!must && cap && need > cap)
        return 1;
    if (need <= zb_xsort__held(xs))
        return ZB_OK;
    if (xs->budget == NULL)
        return ZB_OK;
    want = need + (need / 8 > GROW_CHUNK ? need / 8 : GROW_CHUNK);
    if (cap && want > cap)
        want = cap > need ? cap : need;
    if (zb_budget_try_grow(xs->rp, xs->budget, xs->keep + want) == ZB_OK ||
        zb_budget_try_grow(xs->rp, xs->budget, xs->keep + need) == ZB_OK) {
        note_peak(xs);
        return ZB_OK;
    }
    if (!must)
        return 1;
    if (xs->rp->bytes == 0)
        rc = zb_budget_reserve(xs->rp, xs->budget, xs->keep + need,
                               ctx->stop);
    else
        rc = zb_budget_grow(xs->rp, xs->keep + need, ctx->stop);
    if (rc == ZB_ECANCELED)
        return zb_fail(ctx, rc, "sort stopped while waiting for memory");
    if (rc < 0)
        return zb_fail(ctx, rc,
                       "sort needs %llu bytes of memory and the budget "
                       "cannot give them (every holder is waiting)",
                       (unsigned long long)need);
    note_peak(xs);
    return ZB_OK;
}

/* ---- index sort -------------------------------------------------------- */

/* What comparisons of a run's entries need: the keys, and where the
   bytes past the prefixes start (the common prefix + 8). */
typedef struct ent_ctx {
    const xs_held *h;
    size_t base;
} ent_ctx;

static inline int ent_cmp(const ent_ctx *c, const xs_ent *a,
                          const xs_ent *b)
{
    const zb_keybuf *ka, *kb;
    const uint8_t *pa, *pb;
    uint64_t la, lb, m;
    int r;

    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    ka = &c->h[a->src].kb;
    kb = &c->h[b->src].kb;
    pa = ka->data + ka->offs[a->row];
    pb = kb->data + kb->offs[b->row];
    la = ka->offs[a->row + 1] - ka->offs[a->row];
    lb = kb->offs[b->row + 1] - kb->offs[b->row];
    m = la < lb ? la : lb;
    if (m > c->base &&
        (r = memcmp(pa + c->base, pb + c->base, (size_t)(m - c->base))) != 0)
        return r;
    return (la > lb) - (la < lb);
}

static void insertion_sort(const ent_ctx *c, xs_ent *a, size_t n)
{
    size_t i, j;
    xs_ent t;

    for (i = 1; i < n; i++) {
        t = a[i];
        for (j = i; j > 0 && ent_cmp(c, &a[j - 1], &t) > 0; j--)
            a[j] = a[j - 1];
        a[j] = t;
    }
}

/* Stable: on ties the left (earlier) entry goes first. */
static void merge_into(const ent_ctx *c, xs_ent *dst, const xs_ent *a,
                       size_t na, const xs_ent *b, size_t nb)
{
    size_t i = 0, j = 0, k = 0;

    while (i < na && j < nb)
        dst[k++] = ent_cmp(c, &b[j], &a[i]) < 0 ? b[j++] : a[i++];
    memcpy(dst + k, a + i, (na - i) * sizeof *a);
    k += na - i;
    memcpy(dst + k, b + j, (nb - j) * sizeof *b);
}

/* Stable merge sort of a[0..n) with scratch tmp (n entries). */
static void merge_sort(const ent_ctx *c, xs_ent *a, xs_ent *tmp, size_t n)
{
    xs_ent *src = a, *dst = tmp, *t;
    size_t lo, w;

    for (lo = 0; lo < n; lo += 32)
        insertion_sort(c, src + lo, n - lo < 32 ? n - lo : 32);
    for (w = 32; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            if (mid == hi || ent_cmp(c, &src[mid - 1], &src[mid]) <= 0)
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
            else
                merge_into(c, dst + lo, src + lo, mid - lo, src + mid,
                           hi - mid);
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *src);
}

/* The key of an entry and its length. */
static inline const uint8_t *ent_key(const xs_held *h, const xs_ent *e,
                                     size_t *len)
{
    const zb_keybuf *kb = &h[e->src].kb;

    *len = (size_t)(kb->offs[e->row + 1] - kb->offs[e->row]);
    return kb->data + kb->offs[e->row];
}

/*
 * The length of the prefix every key held shares (a constant first
 * column, a common string start such as "user-", the null markers):
 * the entries' prefixes are taken past it, where keys differ.
 */
static size_t common_prefix(const zb_xsort *xs)
{
    const uint8_t *r, *k;
    size_t n = xs->nents, lcp, len, i;

    if (n == 0)
        return 0;
    r = ent_key(xs->held, &xs->ents[0], &lcp);
    for (i = 1; i < n && lcp > 0; i++) {
        k = ent_key(xs->held, &xs->ents[i], &len);
        lcp = zb_xsort__common(r, k, len < lcp ? len : lcp);
    }
    return lcp;
}

size_t zb_xsort__common(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t j;

    for (j = 0; j + 8 <= n; j += 8) {
        uint64_t x, y;
        memcpy(&x, a + j, 8);
        memcpy(&y, b + j, 8);
        if (x != y)
            break;
    }
    while (j < n && a[j] == b[j])
        j++;
    return j;
}

/* Each entry's prefix: key bytes base..base+7, big-endian, 0-padded. */
static void fill_prefixes(zb_xsort *xs, size_t base)
{
    size_t i, len;

    for (i = 0; i < xs->nents; i++) {
        xs_ent *e = &xs->ents[i];
        const uint8_t *k = ent_key(xs->held, e, &len);

        e->prefix = zb_xsort__prefix(k, len, base);
    }
}

/*
 * The run's index in key order, stably: the prefix every key shares is
 * skipped, then an LSD radix sort on the next 8 bytes of each key (a
 * byte that is the same in every entry costs one counting pass and no
 * moves), then a merge sort of each stretch of equal prefixes by the
 * rest of the key. Radix passes are stable, so equal keys keep their
 * input order. Small runs go straight to the merge sort.
 */
static void sort_ents(zb_xsort *xs)
{
    xs_ent *src = xs->ents, *dst = xs->tmp, *t;
    size_t n = xs->nents, i, j, cnt[256], pos, len;
    unsigned shift, b;
    ent_ctx c;

    c.h = xs->held;
    c.base = common_prefix(xs);
    xs->held_lcp = c.base;
    xs->held_key = n > 0 ? ent_key(xs->held, &xs->ents[0], &len) : NULL;
    fill_prefixes(xs, c.base);
    c.base += 8;
    if (n < 1024) {
        merge_sort(&c, xs->ents, xs->tmp, n);
        return;
    }
    for (shift = 0; shift < 64; shift += 8) {
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++)
            cnt[(src[i].prefix >> shift) & 255]++;
        if (cnt[(src[0].prefix >> shift) & 255] == n)
            continue;
        for (pos = 0, b = 0; b < 256; b++) {
            size_t k = cnt[b];
            cnt[b] = pos;
            pos += k;
        }
        for (i = 0; i < n; i++)
            dst[cnt[(src[i].prefix >> shift) & 255]++] = src[i];
        t = src;
        src = dst;
        dst = t;
    }
    if (src != xs->ents)
        memcpy(xs->ents, src, n * sizeof *src);
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && xs->ents[j].prefix == xs->ents[i].prefix;)
            j++;
        if (j - i > 1)
            merge_sort(&c, xs->ents + i, xs->tmp, j - i);
    }
}

/* ---- runs -------------------------------------------------------------- */

void zb_xsort__drop_held(zb_xsort *xs)
{
    size_t i;

    for (i = 0; i < xs->nheld; i++) {
        zb_arrow_array_release(&xs->held[i].a);
        zb_keybuf_free(&xs->held[i].kb);
        zb_xsort__account(xs, -(int64_t)xs->held[i].bytes);
    }
    xs->nheld = 0;
    xs->nents = 0;
    xs->held_bytes = 0;
    xs->held_key = NULL;
}

int zb_xsort__grow_refs(zb_xsort *xs, zb_ctx *ctx, size_t n)
{
    zb_arrow_rowref *r;

    if (n <= xs->cap_refs)
        return ZB_OK;
    if ((r = zb_realloc(xs->refs, n * sizeof *r)) == NULL)
        return zb_fail_oom(ctx);
    zb_xsort__account(xs, (int64_t)((n - xs->cap_refs) * sizeof *r));
    xs->refs = r;
    xs->cap_refs = n;
    return ZB_OK;
}

size_t zb_xsort__block_rows(const zb_xsort *xs)
{
    double rb = xs->avg_row_bytes > 1 ? xs->avg_row_bytes : 1;
    double r = (double)xs->block_target / rb;

    return r < 1 ? 1 : r > 1048576 ? 1048576 : (size_t)r;
}

/* Gathers entries [lo, lo + n) of the sorted index into *out. */
int zb_xsort__gather(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx,
                     size_t lo, size_t n)
{
    const struct ArrowArray *srcs_small[64];
    const struct ArrowArray **srcs = srcs_small;
    size_t i;
    int rc;

    if ((rc = zb_xsort__grow_refs(xs, ctx, n)) < 0)
        return rc;
    if (xs->nheld > 64 &&
        (srcs = zb_malloc(xs->nheld * sizeof *srcs)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < xs->nheld; i++)
        srcs[i] = &xs->held[i].a;
    for (i = 0; i < n; i++) {
        xs->refs[i].src = xs->ents[lo + i].src;
        xs->refs[i].row = xs->ents[lo + i].row;
    }
    rc = zb_arrow_take(out, xs->schema, srcs, xs->refs, n);
    if (srcs != srcs_small)
        zb_free(srcs);
    if (rc < 0)
        return zb_fail(ctx, rc, "sort: gathering %zu rows failed", n);
    return ZB_OK;
}

int zb_xsort__finish_run(zb_xsort *xs, zb_ctx *ctx, size_t first)
{
    int rc;

    if ((rc = zb_xsort__end_run(xs, ctx, &xs->rf, first)) < 0 ||
        (rc = zb_xsort__fold_prefix(ctx, &xs->rf, xs->held_key,
                                    xs->held_lcp)) < 0)
        return rc;
    xs->st.runs++;
    zb_xsort__drop_held(xs);
    return ZB_OK;
}

/* Writes the sorted rows held as a run and frees them. */
int zb_xsort__write_run(zb_xsort *xs, zb_ctx *ctx)
{
    struct ArrowArray blk;
    size_t lo, n, per = zb_xsort__block_rows(xs), first = xs->rf.nblocks;
    int rc;

    /* A run of more than one block: gathered on a second thread. */
    if (xs->opts.threads > 1 && xs->nents > per &&
        (rc = zb_xsort__write_run_piped(xs, ctx, first)) <= 0)
        return rc;
    for (lo = 0; lo < xs->nents; lo += n) {
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "sort stopped");
        n = xs->nents - lo < per ? xs->nents - lo : per;
        if ((rc = zb_xsort__gather(&blk, xs, ctx, lo, n)) < 0)
            return rc;
        rc = zb_xsort__write_block(xs, ctx, &xs->rf, &blk);
        zb_arrow_array_release(&blk);
        if (rc < 0)
            return rc;
    }
    return zb_xsort__finish_run(xs, ctx, first);
}

void zb_xsort__free_index(zb_xsort *xs)
{
    zb_free(xs->ents);
    zb_free(xs->tmp);
    zb_xsort__account(xs, -(int64_t)(xs->cap_ents * 2 * sizeof(xs_ent)));
    xs->ents = xs->tmp = NULL;
    xs->cap_ents = 0;
    xs->nents = 0;
}

static int spill_run(zb_xsort *xs, zb_ctx *ctx)
{
    sort_ents(xs);
    return zb_xsort__write_run(xs, ctx);
}

/* ---- API --------------------------------------------------------------- */

int zb_xsort_new(zb_xsort **out, zb_ctx *ctx,
                 const struct ArrowSchema *schema, const zb_xsort_opts *opts)
{
    zb_xsort *xs;
    uint64_t basis;
    int rc;

    *out = NULL;
    ZB_ASSERT_ARG(opts && opts->version == ZB_XSORT_OPTS_VERSION);
    if ((xs = zb_calloc(1, sizeof *xs)) == NULL)
        return zb_fail_oom(ctx);
    xs->schema = schema;
    xs->opts = *opts;
    xs->opts.key.cols = NULL;     /* the resolved copy lives in key */
    if (xs->opts.out_batch_rows == 0)
        xs->opts.out_batch_rows = DEFAULT_OUT_ROWS;
    if (opts->reservation) {
        xs->rp = opts->reservation;
        xs->keep = opts->reservation_keep_bytes;
        xs->budget = xs->rp->budget ? xs->rp->budget : ctx->budget;
    } else {
        xs->rp = &xs->own;
        xs->budget = ctx->budget;
    }
    if ((rc = zb_sortkey_new(&xs->key, ctx, &opts->key, schema)) < 0) {
        zb_free(xs);
        return rc;
    }
    basis = opts->max_memory_bytes;
    if (xs->budget && zb_budget_limit_bytes(xs->budget) &&
        (basis == 0 || zb_budget_limit_bytes(xs->budget) < basis))
        basis = zb_budget_limit_bytes(xs->budget);
    if (basis == 0)
        basis = BASIS_UNBOUNDED;
    xs->block_target = basis / 256;
    if (xs->block_target < BLOCK_MIN)
        xs->block_target = BLOCK_MIN;
    if (xs->block_target > BLOCK_MAX)
        xs->block_target = BLOCK_MAX;
    *out = xs;
    return ZB_OK;
}

/*
 * What writing a run needs besides the rows: the block being gathered and
 * the one being written, with their row references; with a second thread
 * (xsort_pipe.c) also the blocks queued between the two and the helper's
 * references (counted with one thread too).
 */
static uint64_t run_margin(const zb_xsort *xs)
{
    uint64_t refs = zb_xsort__block_rows(xs) * sizeof(zb_arrow_rowref);

    /* the same whatever the threads: runs, and so the merged batches a
       caller cuts files between, do not depend on them */
    return 4 * xs->block_target + 2 * refs;
}

static int add_batch(zb_xsort *xs, zb_ctx *ctx, struct ArrowArray *a)
{
    zb_keybuf kb = ZB_KEYBUF_INIT;
    uint64_t bytes, need, kbytes;
    size_t n = (size_t)a->length, cap, i;
    int64_t ents_extra;
    xs_held *h;
    int rc;

    if ((rc = zb_arrow_check(ctx, xs->schema, a)) < 0)
        return rc;
    if (a->length == 0)
        return ZB_OK;
    if ((uint64_t)a->length > UINT32_MAX || xs->nheld >= UINT32_MAX)
        return zb_fail(ctx, ZB_EINVAL, "sort: batch of %lld rows is too "
                       "large", (long long)a->length);
    bytes = zb_arrow_array_bytes(xs->schema, a);
    /* sized from the keys seen so far, so the build rarely reallocates
       (growth by doubling leaves holes in the heap, run after run) */
    if (xs->st.rows > 0 &&
        zb_keybuf_reserve(&kb, n, (size_t)((double)n * xs->avg_key_bytes *
                                           1.1) + 64) < 0)
        goto oom;
    if ((rc = zb_sortkey_build(&kb, ctx, xs->key, a)) < 0)
        goto fail;
    zb_keybuf_shrink(&kb);
    kbytes = zb_keybuf_bytes(&kb);
    for (;;) {
        cap = xs->cap_ents ? xs->cap_ents : 1024;
        while (cap < xs->nents + n)
            cap *= 2;
        ents_extra = (int64_t)((cap - xs->cap_ents) * 2 * sizeof(xs_ent));
        need = xs->used + bytes + kbytes + (uint64_t)ents_extra +
               run_margin(xs);
        rc = zb_xsort__ensure(xs, ctx, need, xs->nents == 0);
        if (rc <= 0)
            break;
        if ((rc = spill_run(xs, ctx)) < 0)
            break;
    }
    if (rc < 0)
        goto fail;
    if (cap > xs->cap_ents) {
        xs_ent *e, *t;
        if ((e = zb_realloc(xs->ents, cap * sizeof *e)) == NULL)
            goto oom;
        xs->ents = e;
        if ((t = zb_realloc(xs->tmp, cap * sizeof *t)) == NULL)
            goto oom;
        xs->tmp = t;
        zb_xsort__account(xs, ents_extra);
        xs->cap_ents = cap;
    }
    if (xs->nheld == xs->cap_held) {
        size_t c = xs->cap_held ? xs->cap_held * 2 : 16;
        xs_held *hh = zb_realloc(xs->held, c * sizeof *hh);
        if (hh == NULL)
            goto oom;
        xs->held = hh;
        xs->cap_held = c;
    }
    h = &xs->held[xs->nheld];
    h->a = *a;
    a->release = NULL;
    h->kb = kb;
    h->bytes = bytes + kbytes;
    for (i = 0; i < n; i++) {  /* prefixes: when sorted (sort_ents) */
        xs_ent *e = &xs->ents[xs->nents + i];
        e->prefix = 0;
        e->src = (uint32_t)xs->nheld;
        e->row = (uint32_t)i;
    }
    xs->nheld++;
    xs->nents += n;
    xs->held_bytes += h->bytes;
    zb_xsort__account(xs, (int64_t)h->bytes);
    xs->st.rows += n;
    xs->avg_row_bytes = (xs->avg_row_bytes * (double)(xs->st.rows - n) +
                         (double)bytes) / (double)xs->st.rows;
    xs->avg_key_bytes = (xs->avg_key_bytes * (double)(xs->st.rows - n) +
                         (double)kb.len) / (double)xs->st.rows;
    return ZB_OK;
oom:
    rc = zb_fail_oom(ctx);
fail:
    zb_keybuf_free(&kb);
    return rc;
}

int zb_xsort_add(zb_xsort *xs, zb_ctx *ctx, struct ArrowArray *batch)
{
    struct ArrowArray a = *batch;
    int rc;

    batch->release = NULL;
    if (xs->failed || xs->finished)
        rc = zb_fail(ctx, ZB_EINVAL, "sort: add after %s",
                     xs->failed ? "a failure" : "finish");
    else if (zb_ctx_stopped(ctx))
        rc = zb_fail(ctx, ZB_ECANCELED, "sort stopped");
    else
        rc = add_batch(xs, ctx, &a);
    zb_arrow_array_release(&a);
    if (rc < 0 && rc != ZB_EINVAL && rc != ZB_EUNSUPPORTED)
        xs->failed = 1;
    return rc;
}

int zb_xsort_finish(zb_xsort *xs, zb_ctx *ctx)
{
    int rc = ZB_OK;

    if (xs->failed || xs->finished)
        return zb_fail(ctx, ZB_EINVAL, "sort: finish after %s",
                       xs->failed ? "a failure" : "finish");
    if (zb_ctx_stopped(ctx))
        rc = zb_fail(ctx, ZB_ECANCELED, "sort stopped");
    else if (xs->rf.nruns == 0) {
        sort_ents(xs);
        xs->in_memory = 1;
    } else {
        /* the last rows stay in memory if the merge leaves them room */
        sort_ents(xs);
        rc = zb_xsort__merge(xs, ctx);
        if (rc == ZB_OK && xs->opts.threads > 1)
            rc = zb_xsort__ahead_start(&xs->ahead, xs, ctx);
    }
    xs->finished = 1;
    if (rc < 0)
        xs->failed = 1;
    return rc;
}

int zb_xsort_next(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx)
{
    size_t n;
    int rc;

    memset(out, 0, sizeof *out);
    if (!xs->finished || xs->failed)
        return zb_fail(ctx, ZB_EINVAL, "sort: next %s",
                       xs->failed ? "after a failure" : "before finish");
    if (zb_ctx_stopped(ctx)) {
        xs->failed = 1;
        return zb_fail(ctx, ZB_ECANCELED, "sort stopped");
    }
    if (xs->ahead != NULL)
        rc = zb_xsort__ahead_next(out, xs->ahead, ctx);
    else if (!xs->in_memory)
        rc = zb_xsort__final_next(out, xs, ctx);
    else if (xs->mem_pos >= xs->nents)
        return ZB_OK;
    else {
        n = xs->nents - xs->mem_pos;
        if (n > xs->opts.out_batch_rows)
            n = xs->opts.out_batch_rows;
        if ((rc = zb_xsort__gather(out, xs, ctx, xs->mem_pos, n)) == ZB_OK)
            xs->mem_pos += n;
    }
    if (rc < 0)
        xs->failed = 1;
    return rc;
}

void zb_xsort_stats_get(zb_xsort_stats *out, const zb_xsort *xs)
{
    if (xs->ahead != NULL)
        zb_xsort__ahead_stats(out, xs->ahead);
    else
        *out = xs->st;
}

void zb_xsort_free(zb_xsort *xs)
{
    if (xs == NULL)
        return;
    zb_xsort__ahead_stop(xs->ahead);
    zb_xsort__merger_free(xs, xs->final);
    zb_xsort__drop_held(xs);
    zb_free(xs->held);
    zb_free(xs->ents);
    zb_free(xs->tmp);
    zb_free(xs->refs);
    zb_xsort__runfile_free(xs, &xs->rf);
    zb_sortkey_free(xs->key);
    zb_budget_release(&xs->own);
    zb_free(xs);
}

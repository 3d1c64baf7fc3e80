/*
 * exec/sort/xsort_pipe.c - a sorted run written by two threads: a helper
 * gathers the rows of block i + 1 in key order (zb_arrow_take) while the
 * calling thread frames block i into the run file (xsort_int.h,
 * zb_xsort__write_run_piped).
 *
 * Gathering (a copy of every value into key order) and writing (a second
 * copy, into the page cache) cost about the same, and while a run is
 * written nothing else of the sort can go on: the input's readers wait
 * on it. With two threads the run takes about the longer of the two
 * instead of their sum. The blocks, their order and the file are the
 * same as with one thread (zb_xsort__write_run).
 *
 * Memory: the helper has its own row references (block_rows of them) and
 * at most PIPE_SLOTS gathered blocks wait for the writer, besides the one
 * it is gathering and the one being written; add_batch reserves that
 * margin when opts.threads > 1. The helper touches nothing of xs but
 * what it reads (the sorted index, the batches held) until it is joined.
 */
#define ZB_MODULE "xsort"

#include <pthread.h>
#include <string.h>

#include "exec/sort/xsort_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define PIPE_SLOTS 2

typedef struct pipe {
    zb_xsort *xs;
    const struct ArrowArray **srcs;
    zb_arrow_rowref *refs;
    size_t per;                  /* rows per block */
    size_t n;                    /* entries of the run */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct ArrowArray q[PIPE_SLOTS];
    size_t head, len;
    int quit;                    /* the writer gave up: stop gathering */
    int done;                    /* the helper gathered its last block */
    int rc;                      /* the helper's failure, if any */
    size_t failed_rows;
} pipe;

/* Entries [lo, lo + n) of the sorted index as a batch, on the helper. */
static int gather(pipe *p, struct ArrowArray *out, size_t lo, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        p->refs[i].src = p->xs->ents[lo + i].src;
        p->refs[i].row = p->xs->ents[lo + i].row;
    }
    return zb_arrow_take(out, p->xs->schema, p->srcs, p->refs, n);
}

static void *helper(void *arg)
{
    pipe *p = arg;
    size_t lo, n;
    int rc = ZB_OK;

    for (lo = 0; lo < p->n; lo += n) {
        struct ArrowArray blk;

        n = p->n - lo < p->per ? p->n - lo : p->per;
        if ((rc = gather(p, &blk, lo, n)) < 0) {
            p->failed_rows = n;
            break;
        }
        pthread_mutex_lock(&p->mu);
        while (p->len == PIPE_SLOTS && !p->quit)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            zb_arrow_array_release(&blk);
            break;
        }
        p->q[(p->head + p->len) % PIPE_SLOTS] = blk;
        p->len++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The next gathered block into *out; out->release == NULL: no more. */
static void take_next(pipe *p, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&p->mu);
    while (p->len == 0 && !p->done)
        pthread_cond_wait(&p->cv, &p->mu);
    if (p->len > 0) {
        *out = p->q[p->head];
        p->head = (p->head + 1) % PIPE_SLOTS;
        p->len--;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Tells the helper to stop, waits for it, frees what it queued. */
static void stop_helper(pipe *p, pthread_t th)
{
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(th, NULL);
    while (p->len > 0) {
        zb_arrow_array_release(&p->q[p->head]);
        p->head = (p->head + 1) % PIPE_SLOTS;
        p->len--;
    }
}

int zb_xsort__write_run_piped(zb_xsort *xs, zb_ctx *ctx, size_t first)
{
    const struct ArrowArray *srcs_small[64];
    pipe p;
    pthread_t th;
    size_t i;
    int rc = ZB_OK, made = 0;

    memset(&p, 0, sizeof p);
    p.xs = xs;
    p.n = xs->nents;
    p.per = zb_xsort__block_rows(xs);
    p.srcs = srcs_small;
    if ((xs->nheld > 64 &&
         (p.srcs = zb_malloc(xs->nheld * sizeof *p.srcs)) == NULL) ||
        (p.refs = zb_malloc(p.per * sizeof *p.refs)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < xs->nheld; i++)
        p.srcs[i] = &xs->held[i].a;
    if (pthread_mutex_init(&p.mu, NULL) != 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (pthread_cond_init(&p.cv, NULL) != 0) {
        pthread_mutex_destroy(&p.mu);
        rc = zb_fail_oom(ctx);
        goto done;
    }
    made = 1;
    if (pthread_create(&th, NULL, helper, &p) != 0) {
        /* No thread to be had: the run is written on this one. */
        rc = 1;
        goto done;
    }
    for (;;) {
        struct ArrowArray blk;

        take_next(&p, &blk);
        if (blk.release == NULL)
            break;
        if (zb_ctx_stopped(ctx))
            rc = zb_fail(ctx, ZB_ECANCELED, "sort stopped");
        else
            rc = zb_xsort__write_block(xs, ctx, &xs->rf, &blk);
        zb_arrow_array_release(&blk);
        if (rc < 0)
            break;
    }
    stop_helper(&p, th);
    if (rc == ZB_OK && p.rc < 0)
        rc = zb_fail(ctx, p.rc, "sort: gathering %zu rows failed",
                     p.failed_rows);
    if (rc == ZB_OK)
        rc = zb_xsort__finish_run(xs, ctx, first);
done:
    if (made) {
        pthread_cond_destroy(&p.cv);
        pthread_mutex_destroy(&p.mu);
    }
    if (p.srcs != srcs_small)
        zb_free(p.srcs);
    zb_free(p.refs);
    return rc;
}

/* ---- the final merge, ahead of its reader ------------------------------ */

/*
 * With opts.threads > 1 the final merge runs on a thread of its own, up
 * to PIPE_SLOTS batches ahead of zb_xsort_next, so that the caller's
 * work on a batch (a Parquet writer's encoding) overlaps the merge of
 * the next. The batches and their order are those of the merge itself.
 * The merge's own state (the merger, xs->used) is the thread's alone
 * until zb_xsort__ahead_stop joins it.
 */
struct zb_xsort_ahead {
    zb_xsort *xs;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct ArrowArray q[PIPE_SLOTS];
    size_t head, len;
    int quit, done, rc;
    zb_ctx ctx;                  /* the merge's errors, copied out */
};

static void *ahead_main(void *arg)
{
    zb_xsort_ahead *a = arg;
    int rc;

    for (;;) {
        struct ArrowArray out;

        if ((rc = zb_xsort__final_next(&out, a->xs, &a->ctx)) < 0 ||
            out.release == NULL)
            break;
        pthread_mutex_lock(&a->mu);
        while (a->len == PIPE_SLOTS && !a->quit)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->quit) {
            pthread_mutex_unlock(&a->mu);
            zb_arrow_array_release(&out);
            rc = ZB_OK;
            break;
        }
        a->q[(a->head + a->len) % PIPE_SLOTS] = out;
        a->len++;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    pthread_mutex_lock(&a->mu);
    a->rc = rc;
    a->done = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int zb_xsort__ahead_start(zb_xsort_ahead **out, zb_xsort *xs, zb_ctx *ctx)
{
    zb_xsort_ahead *a;

    *out = NULL;
    if ((a = zb_calloc(1, sizeof *a)) == NULL)
        return zb_fail_oom(ctx);
    a->xs = xs;
    zb_ctx_init(&a->ctx);
    a->ctx.log = ctx->log;
    a->ctx.metrics = ctx->metrics;
    a->ctx.stop = ctx->stop;
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        zb_free(a);
        return zb_fail_oom(ctx);
    }
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        zb_free(a);
        return zb_fail_oom(ctx);
    }
    if (pthread_create(&a->th, NULL, ahead_main, a) != 0) {
        /* No thread: next() merges on the caller's, as without one. */
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        zb_free(a);
        return ZB_OK;
    }
    *out = a;
    return ZB_OK;
}

int zb_xsort__ahead_next(struct ArrowArray *out, zb_xsort_ahead *a,
                         zb_ctx *ctx)
{
    int rc = ZB_OK;

    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&a->mu);
    while (a->len == 0 && !a->done)
        pthread_cond_wait(&a->cv, &a->mu);
    if (a->len > 0) {
        *out = a->q[a->head];
        a->head = (a->head + 1) % PIPE_SLOTS;
        a->len--;
        pthread_cond_broadcast(&a->cv);
    } else if (a->rc < 0) {
        rc = a->rc;
        zb_err_copy(&ctx->err, &a->ctx.err);
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void zb_xsort__ahead_stats(zb_xsort_stats *out, zb_xsort_ahead *a)
{
    /* The merge thread touches the stats (peak memory) only while it
       merges: a full queue or its end is a moment it does not. */
    pthread_mutex_lock(&a->mu);
    while (a->len < PIPE_SLOTS && !a->done)
        pthread_cond_wait(&a->cv, &a->mu);
    *out = a->xs->st;
    pthread_mutex_unlock(&a->mu);
}

void zb_xsort__ahead_stop(zb_xsort_ahead *a)
{
    if (a == NULL)
        return;
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, NULL);
    while (a->len > 0) {
        zb_arrow_array_release(&a->q[a->head]);
        a->head = (a->head + 1) % PIPE_SLOTS;
        a->len--;
    }
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    zb_free(a);
}

/* ---- a run written while the next one is read --------------------------- */

/*
 * With opts.threads > 1 a full run is handed over whole (its batches, keys
 * and sorted index) to a thread that gathers and writes it, and the
 * caller goes on adding batches to a new run meanwhile (xsort.c caps each
 * run at half of the sort's memory for that). The thread owns the run
 * file and the run's memory until it is reaped: the caller's only shared
 * state is the file, which nothing else touches before the reap, and the
 * spill counters of the stats, which only the writer changes. The bytes
 * the run holds stay counted in xs->used until the reap gives them back,
 * so the reservation is never overdrawn.
 */
struct zb_xsort_bg {
    zb_xsort *xs;
    pthread_t th;
    xs_held *held;
    size_t nheld;
    xs_ent *ents, *tmp;
    size_t nents;
    uint64_t bytes;              /* counted in xs->used */
    const uint8_t *key;          /* one key of the run, and the prefix */
    size_t lcp;                  /* every key of it shares */
    size_t per, first;
    zb_arrow_rowref *refs;
    int rc;
    zb_ctx ctx;
};

static void *bg_main(void *arg)
{
    zb_xsort_bg *b = arg;
    zb_xsort *xs = b->xs;
    const struct ArrowArray *srcs_small[64], **srcs = srcs_small;
    size_t lo, n, i;
    int rc = ZB_OK;

    if (b->nheld > 64 &&
        (srcs = zb_malloc(b->nheld * sizeof *srcs)) == NULL)
        rc = zb_fail_oom(&b->ctx);
    for (i = 0; rc == ZB_OK && i < b->nheld; i++)
        srcs[i] = &b->held[i].a;
    for (lo = 0; rc == ZB_OK && lo < b->nents; lo += n) {
        struct ArrowArray blk;

        n = b->nents - lo < b->per ? b->nents - lo : b->per;
        if (zb_ctx_stopped(&b->ctx)) {
            rc = zb_fail(&b->ctx, ZB_ECANCELED, "sort stopped");
            break;
        }
        for (i = 0; i < n; i++) {
            b->refs[i].src = b->ents[lo + i].src;
            b->refs[i].row = b->ents[lo + i].row;
        }
        if ((rc = zb_arrow_take(&blk, xs->schema, srcs, b->refs, n)) < 0) {
            rc = zb_fail(&b->ctx, rc, "sort: gathering %zu rows failed", n);
            break;
        }
        rc = zb_xsort__write_block(xs, &b->ctx, &xs->rf, &blk);
        zb_arrow_array_release(&blk);
    }
    if (rc == ZB_OK &&
        (rc = zb_xsort__end_run(xs, &b->ctx, &xs->rf, b->first)) == ZB_OK &&
        (rc = zb_xsort__fold_prefix(&b->ctx, &xs->rf, b->key, b->lcp)) ==
            ZB_OK)
        xs->st.runs++;
    if (srcs != srcs_small)
        zb_free(srcs);
    b->rc = rc;
    return NULL;
}

/* Frees what the run held (its batches, keys, index). */
static void bg_drop(zb_xsort_bg *b)
{
    size_t i;

    for (i = 0; i < b->nheld; i++) {
        zb_arrow_array_release(&b->held[i].a);
        zb_keybuf_free(&b->held[i].kb);
    }
    zb_free(b->held);
    zb_free(b->ents);
    zb_free(b->tmp);
    zb_free(b->refs);
    b->held = NULL;
    b->ents = b->tmp = NULL;
    b->refs = NULL;
    b->nheld = b->nents = 0;
}

int zb_xsort__bg_start(zb_xsort *xs, zb_ctx *ctx)
{
    zb_xsort_bg *b;
    int rc;

    if (xs->rf.sp == NULL) {
        /* opened here: its buffer is counted by this thread */
        if ((rc = zb_spill_open(&xs->rf.sp, ctx, "sort", 0)) < 0)
            return rc;
        zb_xsort__account(xs, ZB_SPILL_DEFAULT_BUF_BYTES);
    }
    if ((b = zb_calloc(1, sizeof *b)) == NULL)
        return zb_fail_oom(ctx);
    b->xs = xs;
    b->per = zb_xsort__block_rows(xs);
    if ((b->refs = zb_malloc(b->per * sizeof *b->refs)) == NULL) {
        zb_free(b);
        return zb_fail_oom(ctx);
    }
    zb_ctx_init(&b->ctx);
    b->ctx.log = ctx->log;
    b->ctx.metrics = ctx->metrics;
    b->ctx.stop = ctx->stop;
    /* the run moves to b; the sort starts an empty one */
    b->held = xs->held;
    b->nheld = xs->nheld;
    b->ents = xs->ents;
    b->tmp = xs->tmp;
    b->nents = xs->nents;
    b->bytes = xs->held_bytes + xs->cap_ents * 2 * sizeof(xs_ent);
    b->key = xs->held_key;
    b->lcp = xs->held_lcp;
    b->first = xs->rf.nblocks;
    xs->ents_hint = xs->nents;
    xs->held = NULL;
    xs->nheld = xs->cap_held = 0;
    xs->ents = xs->tmp = NULL;
    xs->nents = xs->cap_ents = 0;
    xs->held_bytes = 0;
    xs->held_key = NULL;
    xs->bg = b;
    if (pthread_create(&b->th, NULL, bg_main, b) != 0) {
        /* No thread to be had: written here, reaped at once. */
        bg_main(b);
        b->th = pthread_self();
        return zb_xsort__bg_reap(xs, ctx);
    }
    return ZB_OK;
}

int zb_xsort__bg_reap(zb_xsort *xs, zb_ctx *ctx)
{
    zb_xsort_bg *b = xs->bg;
    int rc;

    if (b == NULL)
        return ZB_OK;
    if (!pthread_equal(b->th, pthread_self()))
        pthread_join(b->th, NULL);
    xs->bg = NULL;
    bg_drop(b);
    zb_xsort__account(xs, -(int64_t)b->bytes);
    rc = b->rc;
    if (rc < 0)
        zb_err_copy(&ctx->err, &b->ctx.err);
    zb_free(b);
    return rc;
}

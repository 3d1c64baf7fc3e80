/*
 * exec/sort/xsort_pipe.c - the external sort's own threads, with
 * opts.threads > 1 (xsort_int.h): a sorted run written by two threads,
 * and the final merge run ahead of its reader (second part below).
 *
 * A run: a helper gathers the rows of block i + 1 in key order
 * (zb_arrow_take) while the calling thread frames block i into the run
 * file (zb_xsort__write_run_piped).
 *
 * Gathering (a copy of every value into key order) and writing (a second
 * copy, into the page cache) cost about the same, and while a run is
 * written nothing else of the sort can go on: the input's readers wait
 * on it. With two threads the run takes about the longer of the two
 * instead of their sum. The blocks, their order and the file are the
 * same as with one thread (zb_xsort__write_run).
 *
 * Memory: the helper fills the sort's row references (xs->refs, which
 * the writing thread does not touch meanwhile), and at most PIPE_SLOTS
 * gathered blocks wait for the writer, besides the one it is gathering
 * and the one being written; add_batch reserves that margin whatever
 * the threads. Besides the references the helper only reads xs (the
 * sorted index, the batches held) until it is joined.
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
    /* the helper fills the sort's own references, grown (and counted)
       as a one-thread run grows them: the memory counted, and so where
       runs end, is the same for any threads */
    if ((rc = zb_xsort__grow_refs(xs, ctx, p.per)) < 0)
        goto done;
    p.refs = xs->refs;
    if (xs->nheld > 64 &&
        (p.srcs = zb_malloc(xs->nheld * sizeof *p.srcs)) == NULL) {
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

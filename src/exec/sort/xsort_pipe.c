/*
 * exec/sort/xsort_pipe.c - the external sort's own threads, with
 * opts.threads > 1 (xsort_int.h): a sorted run written by two threads,
 * and the final merge run ahead of its reader (second part below).
 *
 * A run: a helper gathers the rows of the next blocks in key order
 * (zb_arrow_take) while the calling thread frames the current one into
 * the run file (zb_xsort__write_run_piped); the caller also gathers every
 * third block itself.
 *
 * Gathering (a copy of every value into key order, scattered reads)
 * costs about twice what writing (a second copy, into the page cache)
 * does, and while a run is written nothing else of the sort can go on:
 * the input's readers wait on it. Split this way the two threads take
 * about the same time, instead of one thread taking their sum. The
 * blocks, their order and the file are the same as with one thread
 * (zb_xsort__write_run).
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

/* ---- a bounded queue of batches between two threads ------------------- */

/* The producer puts, the consumer takes; quit (the consumer gave up)
   stops the producer, done (the producer's end, with its rc) stops the
   consumer's wait. */
typedef struct bqueue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct ArrowArray q[PIPE_SLOTS];
    size_t head, len;
    int quit, done, rc;
} bqueue;

static int bq_init(bqueue *b)
{
    memset(b, 0, sizeof *b);
    if (pthread_mutex_init(&b->mu, NULL) != 0)
        return ZB_ENOMEM;
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        return ZB_ENOMEM;
    }
    return ZB_OK;
}

/* Waits for room and queues *a; 0 (a released) when the consumer quit. */
static int bq_put(bqueue *b, struct ArrowArray *a)
{
    pthread_mutex_lock(&b->mu);
    while (b->len == PIPE_SLOTS && !b->quit)
        pthread_cond_wait(&b->cv, &b->mu);
    if (b->quit) {
        pthread_mutex_unlock(&b->mu);
        zb_arrow_array_release(a);
        return 0;
    }
    b->q[(b->head + b->len) % PIPE_SLOTS] = *a;
    b->len++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return 1;
}

/* The producer's last word. */
static void bq_done(bqueue *b, int rc)
{
    pthread_mutex_lock(&b->mu);
    b->rc = rc;
    b->done = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* The next batch into *out (out->release == NULL: no more), else the
   producer's rc. */
static int bq_take(bqueue *b, struct ArrowArray *out)
{
    int rc = ZB_OK;

    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&b->mu);
    while (b->len == 0 && !b->done)
        pthread_cond_wait(&b->cv, &b->mu);
    if (b->len > 0) {
        *out = b->q[b->head];
        b->head = (b->head + 1) % PIPE_SLOTS;
        b->len--;
        pthread_cond_broadcast(&b->cv);
    } else {
        rc = b->rc;
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

/* Stops the producer, joins it, frees what it queued and the queue. */
static void bq_stop(bqueue *b, pthread_t th)
{
    pthread_mutex_lock(&b->mu);
    b->quit = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(th, NULL);
    while (b->len > 0) {
        zb_arrow_array_release(&b->q[b->head]);
        b->head = (b->head + 1) % PIPE_SLOTS;
        b->len--;
    }
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}

/* ---- a run, gathered and written on two threads ------------------------ */

typedef struct pipe {
    zb_xsort *xs;
    const struct ArrowArray **srcs;
    zb_arrow_rowref *refs;
    size_t per;                  /* rows per block */
    size_t n;                    /* entries of the run */
    bqueue bq;
    size_t failed_rows;
} pipe;

/*
 * Every CALLER_EVERY-th block is gathered by the writing thread itself:
 * gathering costs about twice what writing does, so a helper that
 * gathered every block would keep the writer waiting half the time.
 */
#define CALLER_EVERY 3

static int callers_block(size_t b)
{
    return b % CALLER_EVERY == CALLER_EVERY - 1;
}

/* Entries [lo, lo + n) of the sorted index as a batch, through refs. */
static int gather(const pipe *p, zb_arrow_rowref *refs,
                  struct ArrowArray *out, size_t lo, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        refs[i].src = p->xs->ents[lo + i].src;
        refs[i].row = p->xs->ents[lo + i].row;
    }
    return zb_arrow_take(out, p->xs->schema, p->srcs, refs, n);
}

static void *helper(void *arg)
{
    pipe *p = arg;
    size_t lo, n, b;
    int rc = ZB_OK;

    for (lo = 0, b = 0; lo < p->n; lo += n, b++) {
        struct ArrowArray blk;

        n = p->n - lo < p->per ? p->n - lo : p->per;
        if (callers_block(b))
            continue;
        if ((rc = gather(p, p->refs, &blk, lo, n)) < 0) {
            p->failed_rows = n;
            break;
        }
        if (!bq_put(&p->bq, &blk))
            break;
    }
    bq_done(&p->bq, rc);
    return NULL;
}

int zb_xsort__write_run_piped(zb_xsort *xs, zb_ctx *ctx, size_t first)
{
    const struct ArrowArray *srcs_small[64];
    zb_arrow_rowref *mine = NULL;
    pipe p;
    pthread_t th;
    size_t i, lo, n, b;
    int rc = ZB_OK;

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
    /* this thread's own references: within run_margin's second set */
    if ((mine = zb_malloc(p.per * sizeof *mine)) == NULL ||
        (xs->nheld > 64 &&
         (p.srcs = zb_malloc(xs->nheld * sizeof *p.srcs)) == NULL)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < xs->nheld; i++)
        p.srcs[i] = &xs->held[i].a;
    if (bq_init(&p.bq) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (pthread_create(&th, NULL, helper, &p) != 0) {
        /* No thread to be had: the run is written on this one. */
        pthread_cond_destroy(&p.bq.cv);
        pthread_mutex_destroy(&p.bq.mu);
        rc = 1;
        goto done;
    }
    for (lo = 0, b = 0; lo < p.n; lo += n, b++) {
        struct ArrowArray blk;

        n = p.n - lo < p.per ? p.n - lo : p.per;
        if (callers_block(b)) {
            if ((rc = gather(&p, mine, &blk, lo, n)) < 0) {
                rc = zb_fail(ctx, rc, "sort: gathering %zu rows failed", n);
                break;
            }
        } else if (bq_take(&p.bq, &blk) < 0 || blk.release == NULL) {
            break;          /* the helper failed */
        }
        if (zb_ctx_stopped(ctx))
            rc = zb_fail(ctx, ZB_ECANCELED, "sort stopped");
        else
            rc = zb_xsort__write_block(xs, ctx, &xs->rf, &blk);
        zb_arrow_array_release(&blk);
        if (rc < 0)
            break;
    }
    bq_stop(&p.bq, th);
    if (rc == ZB_OK && p.bq.rc < 0)
        rc = zb_fail(ctx, p.bq.rc, "sort: gathering %zu rows failed",
                     p.failed_rows);
    if (rc == ZB_OK)
        rc = zb_xsort__finish_run(xs, ctx, first);
done:
    if (p.srcs != srcs_small)
        zb_free(p.srcs);
    zb_free(mine);
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
    bqueue bq;
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
        if (!bq_put(&a->bq, &out))
            break;
    }
    bq_done(&a->bq, rc);
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
    if (bq_init(&a->bq) < 0) {
        zb_free(a);
        return zb_fail_oom(ctx);
    }
    if (pthread_create(&a->th, NULL, ahead_main, a) != 0) {
        /* No thread: next() merges on the caller's, as without one. */
        pthread_cond_destroy(&a->bq.cv);
        pthread_mutex_destroy(&a->bq.mu);
        zb_free(a);
        return ZB_OK;
    }
    *out = a;
    return ZB_OK;
}

int zb_xsort__ahead_next(struct ArrowArray *out, zb_xsort_ahead *a,
                         zb_ctx *ctx)
{
    int rc = bq_take(&a->bq, out);

    if (rc < 0)
        zb_err_copy(&ctx->err, &a->ctx.err);
    return rc;
}

void zb_xsort__ahead_stats(zb_xsort_stats *out, zb_xsort_ahead *a)
{
    /* The merge thread touches the stats (peak memory) only while it
       merges: a full queue or its end is a moment it does not. */
    pthread_mutex_lock(&a->bq.mu);
    while (a->bq.len < PIPE_SLOTS && !a->bq.done)
        pthread_cond_wait(&a->bq.cv, &a->bq.mu);
    *out = a->xs->st;
    pthread_mutex_unlock(&a->bq.mu);
}

void zb_xsort__ahead_stop(zb_xsort_ahead *a)
{
    if (a == NULL)
        return;
    bq_stop(&a->bq, a->th);
    zb_free(a);
}

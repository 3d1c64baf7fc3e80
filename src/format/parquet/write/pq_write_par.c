/*
 * format/parquet/write/pq_write_par.c - a writer's threads
 * (pq_writer_opts.threads > 1): the pool, and a row group's per-leaf
 * work shared out among them (the dictionary pages; data pages are page
 * jobs, pq_write_jobs.c).
 *
 * The work of such a step touches only one leaf and one pq_scratch:
 * leaves are handed out in leaf order to one job per thread (the pool's
 * threads - 1 and the calling thread), and the step returns when every
 * leaf is done. So every decision that shapes the file is taken on the
 * same state as with one thread, and the file is the same byte for byte.
 * Each job has a zb_ctx of its own (a zb_ctx is not shared between
 * threads); the error of the first failing leaf, in leaf order, is
 * copied back.
 */
#define ZB_MODULE "parquet"

#include <stdint.h>
#include <string.h>

#include "format/parquet/write/pq_writer_int.h"
#include "util/alloc.h"

int pq_writer__par_open(pq_writer *w, zb_ctx *ctx)
{
    unsigned k;

    if (w->n_threads <= 1)
        return ZB_OK;
    if ((w->jobs = zb_calloc(w->n_threads, sizeof *w->jobs)) == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < w->n_threads; k++) {
        w->jobs[k].w = w;
        w->jobs[k].k = k;
    }
    return zb_pool_new(&w->pool, ctx, w->n_threads - 1, NULL);
}

void pq_writer__par_free(pq_writer *w)
{
    zb_pool_free(w->pool);
    w->pool = NULL;
    zb_free(w->jobs);
    w->jobs = NULL;
}

/* A job: takes leaves in order until none is left or a job has failed
 * (the leaves before the failing one were all taken, so the first
 * failure in leaf order is among those met). */
static int run_job(void *arg)
{
    pq_par_job *j = arg;
    pq_writer *w = j->w;
    size_t n = w->schema.n_leaves, i;
    int rc;

    while (!atomic_load(&w->par_failed) &&
           (i = atomic_fetch_add(&w->next_leaf, 1)) < n) {
        if ((rc = w->par_fn(w, &w->scratch[j->k], &j->ctx, &w->leaves[i],
                            w->par_arg)) < 0) {
            j->rc = rc;
            j->failed_leaf = i;
            atomic_store(&w->par_failed, 1);
            break;
        }
    }
    return ZB_OK;
}

int pq_writer__par_leaves(pq_writer *w, zb_ctx *ctx, pq_leaf_fn fn,
                          void *arg)
{
    unsigned k, jobs = w->n_threads;
    const pq_par_job *first = NULL;
    size_t i;
    int rc;

    if (jobs > w->schema.n_leaves)
        jobs = (unsigned)w->schema.n_leaves;
    if (jobs <= 1 || w->pool == NULL) {
        for (i = 0; i < w->schema.n_leaves; i++)
            if ((rc = fn(w, &w->scratch[0], ctx, &w->leaves[i], arg)) < 0)
                return rc;
        return ZB_OK;
    }
    w->par_fn = fn;
    w->par_arg = arg;
    atomic_store(&w->next_leaf, 0);
    atomic_store(&w->par_failed, 0);
    for (k = 0; k < jobs; k++) {
        pq_par_job *j = &w->jobs[k];
        j->ctx = *ctx;
        zb_err_clear(&j->ctx.err);
        j->ctx.metrics = NULL;      /* nothing here records; not shared */
        j->ctx.progress = NULL;
        j->rc = ZB_OK;
        j->failed_leaf = SIZE_MAX;
    }
    /* A job that cannot be queued is no failure: the calling thread's
     * job takes the leaves it would have. */
    for (k = 1; k < jobs; k++)
        if (zb_pool_submit(w->pool, run_job, &w->jobs[k]) < 0)
            break;
    run_job(&w->jobs[0]);
    zb_pool_wait(w->pool);      /* the jobs return ZB_OK; errors are in j */
    for (k = 0; k < jobs; k++)
        if (w->jobs[k].failed_leaf != SIZE_MAX &&
            (first == NULL || w->jobs[k].failed_leaf < first->failed_leaf))
            first = &w->jobs[k];
    if (first == NULL)
        return ZB_OK;
    zb_err_copy(&ctx->err, &first->ctx.err);
    return first->rc;
}

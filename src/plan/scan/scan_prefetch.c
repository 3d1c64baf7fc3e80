/*
 * plan/scan/scan_prefetch.c - manifests read and decoded ahead on a thread
 * pool, handed back in the order they were queued (scan_plan_int.h).
 *
 * Each queued manifest is one pool job: it opens the manifest, reads every
 * entry that is not DELETED and deep-copies it into the job's own arena,
 * with the job's own ctx (a copy of the owner's: log, metrics, budget and
 * stop flag shared, its own error). The owner pops jobs oldest first,
 * waiting for each to end, so whatever it builds from the entries is what
 * a one-thread walk builds. A job that fails keeps the entries it read
 * before the failure and its error, which pop hands over after them.
 *
 * Memory: the decoded entries of the queued manifests (the window the
 * owner keeps, two per thread in scan_plan.c), not reserved from the
 * budget; a manifest's entries are a few hundred bytes each.
 */
#define ZB_MODULE "plan"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/pool.h"
#include "plan/scan/scan_plan_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define JOB_ARENA_BYTES ((size_t)1 << 34)

struct zb_mf_prefetch {
    zb_io *io;
    int format_version;
    const ice_manifest_opts *mopts;
    zb_pool *pool;
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    zb_mf_job **q;                 /* queued, oldest first */
    size_t head, n, cap;
    zb_mf_job *popped;             /* the job the owner is reading */
};

static void job_free(zb_mf_job *j)
{
    if (j == NULL)
        return;
    zb_vec_free(&j->entries);
    zb_arena_free(j->arena);
    zb_free(j);
}

static int job_read(zb_mf_prefetch *pf, zb_mf_job *j)
{
    ice_manifest_reader *m = NULL;
    const ice_manifest_entry *e;
    int rc;

    if ((rc = ice_manifest_open(&m, pf->io, &j->ctx, &j->mf, NULL,
                                pf->format_version, pf->mopts)) < 0)
        return rc;
    if ((j->uri = zb_arena_strdup(j->arena, ice_manifest_reader_uri(m))) ==
        NULL) {
        rc = zb_fail_oom(&j->ctx);
        goto done;
    }
    if (j->v1) {
        const char *id = ice_manifest_reader_meta(m, "partition-spec-id");
        j->mf.partition_spec_id = id ? (int32_t)strtol(id, NULL, 10) : 0;
    }
    while ((rc = ice_manifest_next(m, &j->ctx, &e)) > 0) {
        ice_manifest_entry c;

        if (e->status == ICE_STATUS_DELETED)
            continue;
        c = *e;
        if (zb_scan__data_file_copy(&c.data_file, j->arena,
                                    &e->data_file) < 0 ||
            zb_vec_append(&j->entries, &c) < 0) {
            rc = zb_fail_oom(&j->ctx);
            break;
        }
        if (zb_ctx_stopped(&j->ctx)) {
            rc = zb_fail(&j->ctx, ZB_ECANCELED, "%s: planning stopped",
                         j->uri);
            break;
        }
    }
done:
    ice_manifest_free(m);
    return rc < 0 ? rc : ZB_OK;
}

static int job_run(void *arg)
{
    zb_mf_job *j = arg;
    zb_mf_prefetch *pf = j->pf;

    j->rc = job_read(pf, j);
    pthread_mutex_lock(&pf->lock);
    j->done = 1;
    pthread_cond_broadcast(&pf->done_cv);
    pthread_mutex_unlock(&pf->lock);
    return ZB_OK;                  /* the owner reports j->rc in order */
}

static void *arena_memdup(zb_arena *a, const void *p, size_t n)
{
    void *q = zb_arena_alloc(a, n);

    if (q != NULL)
        memcpy(q, p, n);
    return q;
}

int zb_scan__prefetch_new(zb_mf_prefetch **out, zb_ctx *ctx, zb_io *io,
                          int format_version, const ice_manifest_opts *mopts,
                          unsigned threads)
{
    zb_mf_prefetch *pf;
    int rc;

    *out = NULL;
    if ((pf = zb_calloc(1, sizeof *pf)) == NULL)
        return zb_fail_oom(ctx);
    pf->io = io;
    pf->format_version = format_version;
    pf->mopts = mopts;
    pthread_mutex_init(&pf->lock, NULL);
    pthread_cond_init(&pf->done_cv, NULL);
    if ((rc = zb_pool_new(&pf->pool, ctx, threads > 256 ? 256 : threads,
                          ctx->stop)) < 0) {
        zb_scan__prefetch_free(pf);
        return rc;
    }
    *out = pf;
    return ZB_OK;
}

size_t zb_scan__prefetch_queued(const zb_mf_prefetch *pf)
{
    return pf->n;
}

int zb_scan__prefetch_push(zb_mf_prefetch *pf, zb_ctx *ctx,
                           const ice_manifest_file *mf, int v1)
{
    zb_mf_job *j;
    int rc;

    if (pf->n == pf->cap) {
        size_t ncap = pf->cap ? pf->cap * 2 : 8, i;
        zb_mf_job **nq = zb_calloc(ncap, sizeof *nq);
        if (nq == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < pf->n; i++)
            nq[i] = pf->q[(pf->head + i) % pf->cap];
        zb_free(pf->q);
        pf->q = nq;
        pf->head = 0;
        pf->cap = ncap;
    }
    if ((j = zb_calloc(1, sizeof *j)) == NULL)
        return zb_fail_oom(ctx);
    j->pf = pf;
    j->v1 = v1;
    j->ctx = *ctx;
    zb_err_clear(&j->ctx.err);
    j->ctx.progress = NULL;
    j->ctx.progress_payload = NULL;
    zb_vec_init(&j->entries, sizeof(ice_manifest_entry), SIZE_MAX / 2);
    j->mf = *mf;
    j->mf.has_partitions = 0;      /* the summaries are the owner's */
    j->mf.n_partitions = 0;
    j->mf.partitions = NULL;
    if (zb_arena_new(&j->arena, JOB_ARENA_BYTES) < 0 ||
        (j->mf.manifest_path = zb_arena_strdup(j->arena,
                                               mf->manifest_path)) == NULL ||
        (mf->key_metadata_len > 0 &&
         (j->mf.key_metadata = arena_memdup(j->arena, mf->key_metadata,
                                            mf->key_metadata_len)) ==
             NULL)) {
        job_free(j);
        return zb_fail_oom(ctx);
    }
    pf->q[(pf->head + pf->n) % pf->cap] = j;
    pf->n++;
    if ((rc = zb_pool_submit(pf->pool, job_run, j)) < 0) {
        /* Not queued: the job is dropped with the queue's tail. */
        pf->n--;
        job_free(j);
        if (rc == ZB_ECANCELED)
            return zb_fail(ctx, rc, "%s: planning stopped",
                           mf->manifest_path);
        return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

int zb_scan__prefetch_pop(zb_mf_prefetch *pf, zb_ctx *ctx, zb_mf_job **out)
{
    zb_mf_job *j;
    int done;

    *out = NULL;
    job_free(pf->popped);
    pf->popped = NULL;
    if (pf->n == 0)
        return 0;
    j = pf->q[pf->head];
    pthread_mutex_lock(&pf->lock);
    while (!j->done && !zb_ctx_stopped(ctx)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&pf->done_cv, &pf->lock, &ts);
    }
    done = j->done;
    pthread_mutex_unlock(&pf->lock);
    if (!done) {
        /* Stopped: jobs not started are dropped, never run. */
        (void)zb_pool_wait(pf->pool);
        pthread_mutex_lock(&pf->lock);
        done = j->done;
        pthread_mutex_unlock(&pf->lock);
        if (!done)
            return zb_fail(ctx, ZB_ECANCELED, "planning stopped");
    }
    pf->head = (pf->head + 1) % pf->cap;
    pf->n--;
    pf->popped = j;
    *out = j;
    return 1;
}

int zb_scan__prefetch_error(zb_ctx *ctx, const zb_mf_job *j)
{
    ctx->err = j->ctx.err;
    return j->rc;
}

void zb_scan__prefetch_free(zb_mf_prefetch *pf)
{
    size_t i;

    if (pf == NULL)
        return;
    zb_pool_free(pf->pool);        /* waits for running jobs */
    for (i = 0; i < pf->n; i++)
        job_free(pf->q[(pf->head + i) % pf->cap]);
    job_free(pf->popped);
    zb_free(pf->q);
    pthread_cond_destroy(&pf->done_cv);
    pthread_mutex_destroy(&pf->lock);
    zb_free(pf);
}

/*
 * ops/reachable/reachable_read.c - the files of many manifests read on a
 * thread pool and added to their streams in the order the manifests were
 * queued (reachable_files.h, zb_reach_reader).
 *
 * A queued manifest is one pool job with its own zb_ctx (a copy of the
 * owner's with its own error): it opens the manifest as zb_reach_manifest
 * does, resolves and normalizes each path, and appends (length, tag, size,
 * path) records to its buffer, stopping at the first failure. The owner
 * keeps at most 2 x threads jobs queued; when the queue is full, and on
 * drain, it waits for the oldest, adds its records to the stream and
 * hands its rc to the done callback, so streams, errors and warnings come
 * in the order of a one-thread walk. Memory: the queued jobs' records.
 */
#define ZB_MODULE "reach"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "exec/pool.h"
#include "ops/reachable/reachable_files.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct rjob {
    struct zb_reach_reader *rr;
    zb_pathsort *out;
    char *uri;
    int live_only;
    zb_buf recs;                   /* rec_hdr, path bytes, ... */
    zb_ctx ctx;
    int rc;
    int done;
} rjob;

typedef struct rec_hdr {
    uint32_t len, tag;
    uint64_t size;
} rec_hdr;

struct zb_reach_reader {
    zb_io *io;
    const zb_table *t;
    zb_reach_done_fn done_fn;
    void *payload;
    unsigned threads;
    zb_pool *pool;
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    rjob **q;                      /* ring of window jobs */
    size_t head, n, window;
};

static void rjob_free(rjob *j)
{
    if (j == NULL)
        return;
    zb_buf_free(&j->recs);
    zb_free(j->uri);
    zb_free(j);
}

static int rjob_read(rjob *j)
{
    zb_reach_reader *rr = j->rr;
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    zb_buf norm = ZB_BUF_INIT(ZB_REACH_MAX_PATH + 1);
    int rc;

    if ((rc = ice_manifest_open(&r, rr->io, &j->ctx, NULL, j->uri,
                                rr->t->meta->format_version, NULL)) < 0)
        goto done;
    while ((rc = ice_manifest_next(r, &j->ctx, &e)) > 0) {
        const ice_data_file *f = &e->data_file;
        rec_hdr h;

        if (j->live_only && e->status == ICE_STATUS_DELETED)
            continue;
        if (f->file_path == NULL)
            continue;
        if ((rc = zb_table_resolve(&res, &j->ctx, rr->t, f->file_path)) < 0 ||
            (rc = zb_reach_normalize(&norm, &j->ctx, zb_buf_cstr(&res))) < 0)
            break;
        h.len = (uint32_t)norm.len;
        h.tag = f->content == ICE_CONTENT_DATA ? ZB_REACH_DATA
                                               : ZB_REACH_DELETE;
        h.size = f->file_size_in_bytes > 0 ? (uint64_t)f->file_size_in_bytes
                                           : 0;
        if (zb_buf_append(&j->recs, &h, sizeof h) < 0 ||
            zb_buf_append(&j->recs, norm.ptr, norm.len) < 0) {
            rc = zb_fail_oom(&j->ctx);
            break;
        }
        if (zb_ctx_stopped(&j->ctx)) {
            rc = zb_fail(&j->ctx, ZB_ECANCELED, "%s: stopped", j->uri);
            break;
        }
    }
done:
    ice_manifest_free(r);
    zb_buf_free(&res);
    zb_buf_free(&norm);
    return rc < 0 ? rc : ZB_OK;
}

static int rjob_run(void *arg)
{
    rjob *j = arg;
    zb_reach_reader *rr = j->rr;

    j->rc = rjob_read(j);
    pthread_mutex_lock(&rr->lock);
    j->done = 1;
    pthread_cond_broadcast(&rr->done_cv);
    pthread_mutex_unlock(&rr->lock);
    return ZB_OK;                  /* the owner reports j->rc in order */
}

int zb_reach_reader_new(zb_reach_reader **out, zb_ctx *ctx, zb_io *io,
                        const zb_table *t, unsigned threads,
                        zb_reach_done_fn done, void *payload)
{
    zb_reach_reader *rr;
    int rc;

    *out = NULL;
    if ((rr = zb_calloc(1, sizeof *rr)) == NULL)
        return zb_fail_oom(ctx);
    rr->io = io;
    rr->t = t;
    rr->done_fn = done;
    rr->payload = payload;
    rr->threads = threads > 256 ? 256 : threads > 1 ? threads : 1;
    pthread_mutex_init(&rr->lock, NULL);
    pthread_cond_init(&rr->done_cv, NULL);
    if (rr->threads > 1) {
        rr->window = 2 * (size_t)rr->threads;
        if ((rr->q = zb_calloc(rr->window, sizeof *rr->q)) == NULL) {
            zb_reach_reader_free(rr);
            return zb_fail_oom(ctx);
        }
        if ((rc = zb_pool_new(&rr->pool, ctx, rr->threads, ctx->stop)) < 0) {
            zb_reach_reader_free(rr);
            return rc;
        }
    }
    *out = rr;
    return ZB_OK;
}

/* Waits for the oldest job, adds its records, reports its rc. */
static int finish_oldest(zb_reach_reader *rr, zb_ctx *ctx)
{
    rjob *j = rr->q[rr->head];
    size_t off = 0;
    int done, rc = ZB_OK;

    pthread_mutex_lock(&rr->lock);
    while (!j->done && !zb_ctx_stopped(ctx)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&rr->done_cv, &rr->lock, &ts);
    }
    done = j->done;
    pthread_mutex_unlock(&rr->lock);
    /* A raised stop flag drops jobs not started: wait them out. */
    if (!done) {
        (void)zb_pool_wait(rr->pool);
        pthread_mutex_lock(&rr->lock);
        done = j->done;
        pthread_mutex_unlock(&rr->lock);
    }
    rr->q[rr->head] = NULL;
    rr->head = (rr->head + 1) % rr->window;
    rr->n--;
    if (!done) {
        rjob_free(j);
        return zb_fail(ctx, ZB_ECANCELED, "reading manifests: stopped");
    }
    while (rc == ZB_OK && off < j->recs.len) {
        rec_hdr h;
        memcpy(&h, j->recs.ptr + off, sizeof h);
        off += sizeof h;
        rc = zb_pathsort_add(j->out, ctx, j->recs.ptr + off, h.len, h.tag,
                             h.size, 0);
        off += h.len;
    }
    if (rc == ZB_OK) {
        if (j->rc < 0)
            ctx->err = j->ctx.err;
        rc = rr->done_fn ? rr->done_fn(rr->payload, ctx, j->rc) : j->rc;
    }
    rjob_free(j);
    return rc;
}

int zb_reach_reader_add(zb_reach_reader *rr, zb_ctx *ctx, zb_pathsort *out,
                        const char *uri, int live_only)
{
    rjob *j;
    int rc;

    if (rr->threads <= 1) {
        rc = zb_reach_manifest(out, rr->io, ctx, rr->t, uri, live_only);
        return rr->done_fn ? rr->done_fn(rr->payload, ctx, rc) : rc;
    }
    if (rr->n == rr->window && (rc = finish_oldest(rr, ctx)) < 0)
        return rc;
    if ((j = zb_calloc(1, sizeof *j)) == NULL ||
        (j->uri = zb_strdup(uri)) == NULL) {
        zb_free(j);
        return zb_fail_oom(ctx);
    }
    j->rr = rr;
    j->out = out;
    j->live_only = live_only;
    j->ctx = *ctx;
    zb_err_clear(&j->ctx.err);
    j->ctx.progress = NULL;
    j->ctx.progress_payload = NULL;
    zb_buf_init(&j->recs, SIZE_MAX / 2);
    rr->q[(rr->head + rr->n) % rr->window] = j;
    rr->n++;
    if ((rc = zb_pool_submit(rr->pool, rjob_run, j)) < 0) {
        rr->n--;
        rr->q[(rr->head + rr->n) % rr->window] = NULL;
        rjob_free(j);
        return rc == ZB_ECANCELED
                   ? zb_fail(ctx, rc, "reading manifests: stopped")
                   : zb_fail_oom(ctx);
    }
    return ZB_OK;
}

int zb_reach_reader_drain(zb_reach_reader *rr, zb_ctx *ctx)
{
    int rc;

    while (rr->n > 0)
        if ((rc = finish_oldest(rr, ctx)) < 0)
            return rc;
    return ZB_OK;
}

void zb_reach_reader_free(zb_reach_reader *rr)
{
    size_t i;

    if (rr == NULL)
        return;
    zb_pool_free(rr->pool);        /* waits for running jobs */
    for (i = 0; i < rr->n; i++)
        rjob_free(rr->q[(rr->head + i) % rr->window]);
    zb_free(rr->q);
    pthread_cond_destroy(&rr->done_cv);
    pthread_mutex_destroy(&rr->lock);
    zb_free(rr);
}

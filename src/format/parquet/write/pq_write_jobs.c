/*
 * format/parquet/write/pq_write_jobs.c - data pages compressed while the
 * writer goes on (see pq_writer_int.h, PQ_PAGE_LAG).
 *
 * pq_writer__flush_page builds a page's body into a job and submits it;
 * with a pool, the job is queued and a pool thread compresses it (the
 * calling thread takes queued jobs too when it must wait), so that one
 * leaf's consecutive pages compress at once; without one it is
 * compressed on the spot. Either way the page is settled (its header
 * written with the compressed size, the page index told, header and
 * bytes appended to the chunk's spool) only at the points
 * pq_writer__slice_done and pq_writer__settle_all fix, which depend on
 * the rows alone: the buffered bytes that end row groups and files are
 * then the same whatever the threads, and so is the file.
 *
 * Memory: pending pages hold their bodies uncompressed, at most about
 * PQ_PAGE_LAG slices' worth (and never much over PQ_PENDING_CAP_BYTES
 * after a slice), plus their compressed bytes once done.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "util/alloc.h"

#define FREE_LIST_MAX 64        /* settled jobs kept for their buffers */

int pq_writer__jobs_open(pq_writer *w, zb_ctx *ctx)
{
    pq_jobs *pj;
    size_t k, n = w->n_threads > 1 ? w->n_threads - 1 : 0;

    if ((pj = zb_calloc(1, sizeof *pj)) == NULL)
        return zb_fail_oom(ctx);
    w->pj = pj;
    pj->w = w;
    if (pthread_mutex_init(&pj->mu, NULL) != 0)
        return zb_fail_oom(ctx);
    if (pthread_cond_init(&pj->cv, NULL) != 0) {
        pthread_mutex_destroy(&pj->mu);
        return zb_fail_oom(ctx);
    }
    pj->sync_made = 1;
    if (n && (pj->codecs = zb_calloc(n, sizeof *pj->codecs)) == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < n; k++) {
        if (zb_codec_state_new(&pj->codecs[k]) < 0)
            return zb_fail_oom(ctx);
        pj->n_codecs++;
    }
    return ZB_OK;
}

static void job_free(pq_page_job *j)
{
    zb_buf_free(&j->body);
    zb_buf_free(&j->compressed);
    zb_free(j);
}

void pq_writer__jobs_cancel(pq_writer *w)
{
    pq_jobs *pj = w->pj;

    if (pj == NULL || !pj->sync_made)
        return;
    pthread_mutex_lock(&pj->mu);
    pj->q_head = pj->q_tail = NULL;     /* the pool threads find nothing */
    pthread_mutex_unlock(&pj->mu);
}

void pq_writer__jobs_free(pq_writer *w)
{
    pq_jobs *pj = w->pj;
    size_t i;

    if (pj == NULL)
        return;
    for (i = 0; w->leaves && i < w->schema.n_leaves; i++) {
        leaf *l = &w->leaves[i];
        while (l->pend) {
            pq_page_job *j = l->pend;
            l->pend = j->next;
            job_free(j);
        }
        l->pend_tail = NULL;
        l->pend_bytes = 0;
    }
    while (pj->free_list) {
        pq_page_job *j = pj->free_list;
        pj->free_list = j->next;
        job_free(j);
    }
    for (i = 0; i < pj->n_codecs; i++)
        zb_codec_state_free(pj->codecs[i]);
    zb_free(pj->codecs);
    if (pj->sync_made) {
        pthread_cond_destroy(&pj->cv);
        pthread_mutex_destroy(&pj->mu);
    }
    zb_free(pj);
    w->pj = NULL;
}

pq_page_job *pq_writer__job_get(const pq_writer *w)
{
    pq_jobs *pj = w->pj;
    pq_page_job *j = pj->free_list;

    if (j) {
        pj->free_list = j->next;
        pj->n_free--;
    } else if ((j = zb_calloc(1, sizeof *j)) != NULL) {
        zb_buf_init(&j->body, (size_t)1 << 31);
        zb_buf_init(&j->compressed, (size_t)1 << 31);
    } else {
        return NULL;
    }
    j->next = j->qprev = j->qnext = NULL;
    zb_buf_clear(&j->body);
    zb_buf_clear(&j->compressed);
    j->rc = ZB_OK;
    return j;
}

void pq_writer__job_put(const pq_writer *w, pq_page_job *j)
{
    pq_jobs *pj = w->pj;

    if (pj->n_free >= FREE_LIST_MAX) {
        job_free(j);
        return;
    }
    j->next = pj->free_list;
    pj->free_list = j;
    pj->n_free++;
}

/* Compresses j's body with codec; the outcome stays in j. */
static void compress_job(const pq_writer *w, pq_page_job *j,
                         zb_codec_state *codec)
{
    zb_ctx c;

    zb_ctx_init(&c);
    j->rc = pq_writer__compress_page(w, codec, &c, j->column,
                                     (const uint8_t *)j->body.ptr + j->in_off,
                                     j->body.len - j->in_off,
                                     &j->compressed);
    if (j->rc < 0)
        zb_err_copy(&j->err, &c.err);
}

/* Takes j out of the queue (under mu). */
static void unqueue(pq_jobs *pj, pq_page_job *j)
{
    if (j->qprev)
        j->qprev->qnext = j->qnext;
    else
        pj->q_head = j->qnext;
    if (j->qnext)
        j->qnext->qprev = j->qprev;
    else
        pj->q_tail = j->qprev;
    j->qprev = j->qnext = NULL;
}

/* A pool thread's job: the oldest queued page, if any is left (the
 * calling thread may have taken it). */
static int run_one(void *arg)
{
    pq_jobs *pj = arg;
    pq_page_job *j;
    zb_codec_state *codec;

    pthread_mutex_lock(&pj->mu);
    if ((j = pj->q_head) == NULL || pj->n_codecs == 0) {
        pthread_mutex_unlock(&pj->mu);
        return ZB_OK;
    }
    unqueue(pj, j);
    j->state = PQ_JOB_RUNNING;
    codec = pj->codecs[--pj->n_codecs];
    pthread_mutex_unlock(&pj->mu);
    compress_job(pj->w, j, codec);
    pthread_mutex_lock(&pj->mu);
    pj->codecs[pj->n_codecs++] = codec;
    j->state = PQ_JOB_DONE;
    pthread_cond_broadcast(&pj->cv);
    pthread_mutex_unlock(&pj->mu);
    return ZB_OK;
}

void pq_writer__job_submit(const pq_writer *w, pq_scratch *s, leaf *l,
                           pq_page_job *j)
{
    pq_jobs *pj = w->pj;

    j->column = l->node->name;
    j->step = pj->step;
    j->next = NULL;
    if (l->pend_tail)
        l->pend_tail->next = j;
    else
        l->pend = j;
    l->pend_tail = j;
    l->pend_bytes += j->body.len + PQ_PENDING_HEADER_BYTES;
    if (w->pool == NULL) {
        compress_job(w, j, s->codec);
        j->state = PQ_JOB_DONE;
        return;
    }
    pthread_mutex_lock(&pj->mu);
    j->state = PQ_JOB_QUEUED;
    j->qprev = pj->q_tail;
    if (pj->q_tail)
        pj->q_tail->qnext = j;
    else
        pj->q_head = j;
    pj->q_tail = j;
    pthread_mutex_unlock(&pj->mu);
    /* Not queued in the pool: the calling thread compresses it when it
     * settles it. */
    (void)zb_pool_submit(w->pool, run_one, pj);
}

/* Until j is compressed; the calling thread compresses queued pages
 * meanwhile (j first), rather than wait idle. */
static void wait_job(pq_writer *w, pq_page_job *j)
{
    pq_jobs *pj = w->pj;

    if (w->pool == NULL)
        return;
    pthread_mutex_lock(&pj->mu);
    while (j->state != PQ_JOB_DONE) {
        pq_page_job *t = j->state == PQ_JOB_QUEUED ? j : pj->q_head;
        if (t == NULL) {
            pthread_cond_wait(&pj->cv, &pj->mu);
            continue;
        }
        unqueue(pj, t);
        t->state = PQ_JOB_RUNNING;
        pthread_mutex_unlock(&pj->mu);
        compress_job(w, t, w->scratch[0].codec);
        pthread_mutex_lock(&pj->mu);
        t->state = PQ_JOB_DONE;
    }
    pthread_mutex_unlock(&pj->mu);
}

void pq_writer__header_stats(pq_statistics *ps, const stats *st)
{
    memset(ps, 0, sizeof *ps);
    ps->has_null_count = 1;
    ps->null_count = st->nulls;
    if (st->has && !st->skip_bounds) {
        ps->has_min_value = ps->has_max_value = 1;
        ps->min_value = st->min;
        ps->max_value = st->max;
        ps->min_value_len = st->min_len;
        ps->max_value_len = st->max_len;
    }
}

/* The oldest pending page of l into its chunk: header, page index,
 * spool. */
static int settle_one(pq_writer *w, zb_ctx *ctx, leaf *l)
{
    pq_page_job *j = l->pend;
    pq_scratch *s = &w->scratch[0];
    pq_statistics ps;
    size_t levels = w->opts.page_v2 ? j->in_off : 0, clen;
    int rc;

    wait_job(w, j);
    if (j->rc < 0) {
        zb_err_copy(&ctx->err, &j->err);
        return j->rc;
    }
    clen = j->compressed.len;
    j->h.compressed_page_size = (int32_t)(levels + clen);
    pq_writer__header_stats(&ps, &j->pst);
    zb_buf_clear(&s->header);
    if ((rc = pq_page_header_write(&s->header, ctx, &j->h, &ps)) < 0)
        return rc;
    if (w->opts.page_index) {
        j->rec.off = l->chunk.len;
        j->rec.size = (uint32_t)(s->header.len + levels + clen);
        if (zb_buf_append(&l->pages, &j->rec, sizeof j->rec) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "column %s: page index too "
                           "large", l->node->name);
    }
    if (pq_writer__spool_append(&l->chunk, s->header.ptr, s->header.len) < 0 ||
        pq_writer__spool_append(&l->chunk, j->body.ptr, levels) < 0 ||
        pq_writer__spool_append(&l->chunk, j->compressed.ptr, clen) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: column chunk larger than "
                       "its cap", l->node->name);
    l->chunk_uncompressed += s->header.len + j->body.len;
    l->pend_bytes -= j->body.len + PQ_PENDING_HEADER_BYTES;
    if ((l->pend = j->next) == NULL)
        l->pend_tail = NULL;
    pq_writer__job_put(w, j);
    return ZB_OK;
}

/* Settles every leaf's pages of slices up to step, leaf after leaf. */
static int settle_upto(pq_writer *w, zb_ctx *ctx, uint64_t step)
{
    size_t i;
    int rc;

    for (i = 0; i < w->schema.n_leaves; i++) {
        leaf *l = &w->leaves[i];
        while (l->pend && l->pend->step <= step)
            if ((rc = settle_one(w, ctx, l)) < 0)
                return rc;
    }
    return ZB_OK;
}

int pq_writer__settle_all(pq_writer *w, zb_ctx *ctx)
{
    return settle_upto(w, ctx, UINT64_MAX);
}

int pq_writer__slice_done(pq_writer *w, zb_ctx *ctx)
{
    pq_jobs *pj = w->pj;
    uint64_t step = pj->step++;
    int rc;

    if (step >= PQ_PAGE_LAG &&
        (rc = settle_upto(w, ctx, step - PQ_PAGE_LAG)) < 0)
        return rc;
    for (;;) {
        uint64_t pend = 0, oldest = UINT64_MAX;
        size_t i;
        for (i = 0; i < w->schema.n_leaves; i++) {
            const leaf *l = &w->leaves[i];
            pend += l->pend_bytes;
            if (l->pend && l->pend->step < oldest)
                oldest = l->pend->step;
        }
        if (pend <= PQ_PENDING_CAP_BYTES || oldest == UINT64_MAX)
            return ZB_OK;
        if ((rc = settle_upto(w, ctx, oldest)) < 0)
            return rc;
    }
}

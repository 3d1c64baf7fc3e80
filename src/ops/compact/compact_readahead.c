/*
 * ops/compact/compact_readahead.c - a slice's input files decoded on
 * several threads ahead of the one writing them (compact_int.h).
 *
 * Worker w of W streams the tasks w, w + W, w + 2W, ... each through a row
 * stream of its own (plan/read/scan_read.h) and queues the batches, at
 * most QUEUE_BATCHES at a time; the consumer takes them task by task, in
 * the tasks' order. A row stream never joins two files into one batch, so
 * the consumer sees exactly the batches one stream over all the tasks
 * gives, and the files written are the same for any W.
 *
 * Only for tasks without delete files: a stream per file would read a
 * position delete file once for every data file it covers, and build an
 * equality key set once per file. The caller checks (zb_compact__
 * readahead_fits).
 *
 * Workers stream with a ctx of their own (the caller's log, metrics and
 * stop flag; no budget: the slice's reservation, grown by the caller for
 * the workers' readers and queues, covers them). The first failure in task
 * order is the one reported, as a single stream would report it.
 */
#define ZB_MODULE "compact"

#include <pthread.h>
#include <string.h>

#include "ops/compact/compact_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define QUEUE_BATCHES 2

typedef struct item {
    struct ArrowArray batch;       /* release == NULL: end of a task */
} item;

typedef struct worker {
    struct zb_readahead *ra;
    pthread_t thread;
    int started;
    item q[QUEUE_BATCHES];
    size_t head, len;
    int failed;                    /* rc below, err in ctx */
    int rc;
    size_t failed_task;            /* the task it failed on */
    zb_ctx ctx;
    zb_read_counts counts;
} worker;

struct zb_readahead {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int quit;
    zb_io *io;
    const zb_rowstream_opts *ro;
    const zb_scan_task *tasks;
    size_t n, next;                /* next: the task the consumer is on */
    unsigned n_workers;
    worker *w;
};

int zb_compact__readahead_fits(const zb_scan_task *tasks, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (tasks[i].n_deletes > 0)
            return 0;
    return n > 1;
}

/* Waits for room in w's queue; 0 when told to quit. Lock held. */
static int wait_room(worker *w)
{
    while (w->len == QUEUE_BATCHES && !w->ra->quit)
        pthread_cond_wait(&w->ra->changed, &w->ra->lock);
    return !w->ra->quit;
}

static void push(worker *w, const struct ArrowArray *b)
{
    w->q[(w->head + w->len) % QUEUE_BATCHES].batch = *b;
    w->len++;
    pthread_cond_broadcast(&w->ra->changed);
}

static void add_counts(zb_read_counts *sum, const zb_read_counts *c)
{
    sum->rows_read += c->rows_read;
    sum->deleted_by_position += c->deleted_by_position;
    sum->deleted_by_equality += c->deleted_by_equality;
    sum->rows_out += c->rows_out;
    sum->null_position_deletes += c->null_position_deletes;
    sum->data_files += c->data_files;
    sum->eq_spilled += c->eq_spilled;
    sum->eq_partition_passes += c->eq_partition_passes;
}

/* Streams one task into w's queue, the end marker last. */
static int stream_task(worker *w, size_t ti)
{
    struct zb_readahead *ra = w->ra;
    zb_rowstream *rs = NULL;
    struct ArrowArray b, end;
    int rc;

    memset(&end, 0, sizeof end);
    if ((rc = zb_rowstream_open(&rs, ra->io, &w->ctx, ra->ro,
                                &ra->tasks[ti], 1)) < 0)
        return rc;
    while ((rc = zb_rowstream_next(rs, &w->ctx, &b, NULL)) == 1) {
        pthread_mutex_lock(&ra->lock);
        if (!wait_room(w)) {
            pthread_mutex_unlock(&ra->lock);
            b.release(&b);
            rc = ZB_ECANCELED;
            break;
        }
        push(w, &b);
        pthread_mutex_unlock(&ra->lock);
    }
    if (rc == 0) {
        add_counts(&w->counts, zb_rowstream_counts(rs));
        pthread_mutex_lock(&ra->lock);
        if (wait_room(w))
            push(w, &end);
        else
            rc = ZB_ECANCELED;
        pthread_mutex_unlock(&ra->lock);
    }
    zb_rowstream_free(rs);
    return rc;
}

static void *work(void *arg)
{
    worker *w = arg;
    struct zb_readahead *ra = w->ra;
    size_t ti;
    int rc;

    for (ti = (size_t)(w - ra->w); ti < ra->n; ti += ra->n_workers) {
        if ((rc = stream_task(w, ti)) < 0) {
            pthread_mutex_lock(&ra->lock);
            w->failed = 1;
            w->rc = rc;
            w->failed_task = ti;
            pthread_cond_broadcast(&ra->changed);
            pthread_mutex_unlock(&ra->lock);
            break;
        }
    }
    return NULL;
}

int zb_compact__readahead_open(zb_readahead **out, zb_io *io, zb_ctx *ctx,
                               const zb_rowstream_opts *ro,
                               const zb_scan_task *tasks, size_t n,
                               unsigned n_workers)
{
    zb_readahead *ra;
    unsigned i;

    *out = NULL;
    if (n_workers < 1)
        n_workers = 1;
    if (n_workers > n)
        n_workers = (unsigned)n;
    if ((ra = zb_calloc(1, sizeof *ra)) == NULL ||
        (ra->w = zb_calloc(n_workers ? n_workers : 1, sizeof *ra->w)) ==
            NULL) {
        zb_free(ra);
        return zb_fail_oom(ctx);
    }
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    ra->io = io;
    ra->ro = ro;
    ra->tasks = tasks;
    ra->n = n;
    ra->n_workers = n_workers;
    for (i = 0; i < n_workers; i++) {
        worker *w = &ra->w[i];

        w->ra = ra;
        zb_ctx_init(&w->ctx);
        w->ctx.log = ctx->log;
        w->ctx.metrics = ctx->metrics;
        w->ctx.stop = ctx->stop;
        if (pthread_create(&w->thread, NULL, work, w) != 0) {
            zb_compact__readahead_free(ra);
            return zb_fail(ctx, ZB_ENOMEM, "compaction read-ahead: cannot "
                           "start a thread");
        }
        w->started = 1;
    }
    *out = ra;
    return ZB_OK;
}

int zb_compact__readahead_next(zb_readahead *ra, zb_ctx *ctx,
                               struct ArrowArray *out)
{
    int rc = 1;

    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&ra->lock);
    while (ra->next < ra->n) {
        worker *w = &ra->w[ra->next % ra->n_workers];

        if (w->len > 0) {
            item *it = &w->q[w->head];

            w->head = (w->head + 1) % QUEUE_BATCHES;
            w->len--;
            pthread_cond_broadcast(&ra->changed);
            if (it->batch.release == NULL) {
                ra->next++;            /* that task is done */
                continue;
            }
            *out = it->batch;
            goto done;
        }
        if (w->failed && w->failed_task == ra->next) {
            zb_err_copy(&ctx->err, &w->ctx.err);
            rc = w->rc;
            goto done;
        }
        pthread_cond_wait(&ra->changed, &ra->lock);
    }
    rc = 0;
done:
    pthread_mutex_unlock(&ra->lock);
    return rc;
}

void zb_compact__readahead_counts(const zb_readahead *ra,
                                  zb_read_counts *sum)
{
    unsigned i;

    memset(sum, 0, sizeof *sum);
    for (i = 0; i < ra->n_workers; i++)
        add_counts(sum, &ra->w[i].counts);
}

void zb_compact__readahead_free(zb_readahead *ra)
{
    unsigned i;

    if (ra == NULL)
        return;
    pthread_mutex_lock(&ra->lock);
    ra->quit = 1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
    for (i = 0; i < ra->n_workers; i++) {
        worker *w = &ra->w[i];

        if (w->started)
            pthread_join(w->thread, NULL);
        while (w->len > 0) {
            item *it = &w->q[w->head];

            if (it->batch.release != NULL)
                it->batch.release(&it->batch);
            w->head = (w->head + 1) % QUEUE_BATCHES;
            w->len--;
        }
    }
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
    zb_free(ra->w);
    zb_free(ra);
}

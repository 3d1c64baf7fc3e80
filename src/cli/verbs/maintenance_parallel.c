/*
 * cli/verbs/maintenance_parallel.c - the runner behind `maintenance
 * --parallel N` (cli/verbs/maintenance_parallel.h): worker threads take
 * the tables in order, the calling thread waits for each in turn and
 * writes its output, so table k is written once the tables before it
 * are. A table's output is captured through stdio streams of our own
 * (fopencookie: in memory, counted, no free() of libc's).
 */
#define _GNU_SOURCE   /* fopencookie */
#define ZB_MODULE "cli"

#include <pthread.h>
#include <string.h>

#include "cli/verbs/maintenance_parallel.h"
#include "util/alloc.h"
#include "util/err.h"

/* A table's report is a few lines an operation; the caps bound a
 * runaway one (what does not fit is reported lost). */
#define OUT_MAX_BYTES (64u << 20)
#define OUT_MAX_SEGS (1u << 20)
#define MAX_THREADS 64

typedef struct zb_cli_table_out_seg {
    size_t end;                    /* offset in text where the run ends */
    int is_err;
} zb_cli_table_out_seg;

static ssize_t out_write(void *cookie, const char *data, size_t n)
{
    zb_cli_table_out_tag *t = cookie;
    zb_cli_table_out *o = t->owner;
    zb_cli_table_out_seg *last = o->segs.len
                                 ? zb_vec_at(&o->segs, o->segs.len - 1)
                                 : NULL;

    if (n == 0)
        return 0;
    if (zb_buf_append(&o->text, data, n) < 0) {
        o->lost = 1;
        return -1;
    }
    if (last == NULL || last->is_err != t->is_err) {
        if (zb_vec_push(&o->segs, (void **)&last) < 0) {
            zb_buf_truncate(&o->text, o->text.len - n);
            o->lost = 1;
            return -1;
        }
        last->is_err = t->is_err;
    }
    last->end = o->text.len;
    return (ssize_t)n;
}

int zb_cli_table_out_open(zb_cli_table_out *o, int capture)
{
    cookie_io_functions_t fns;
    int i;

    memset(o, 0, sizeof *o);
    zb_buf_init(&o->text, OUT_MAX_BYTES);
    zb_vec_init(&o->segs, sizeof(zb_cli_table_out_seg), OUT_MAX_SEGS);
    if (!capture) {
        o->out = stdout;
        o->err = stderr;
        return 0;
    }
    memset(&fns, 0, sizeof fns);
    fns.write = out_write;
    o->captured = 1;
    for (i = 0; i < 2; i++) {
        o->tags[i].owner = o;
        o->tags[i].is_err = i;
    }
    o->out = fopencookie(&o->tags[0], "w", fns);
    o->err = fopencookie(&o->tags[1], "w", fns);
    if (o->out == NULL || o->err == NULL) {
        zb_cli_table_out_close(o);
        return -1;
    }
    /* unbuffered: each write lands in the log in the order made */
    setvbuf(o->out, NULL, _IONBF, 0);
    setvbuf(o->err, NULL, _IONBF, 0);
    return 0;
}

void zb_cli_table_out_replay(zb_cli_table_out *o, FILE *to_out, FILE *to_err)
{
    size_t i, start = 0;

    if (!o->captured)
        return;
    for (i = 0; i < o->segs.len; i++) {
        const zb_cli_table_out_seg *s = zb_vec_at(&o->segs, i);

        if (s->is_err) {
            fflush(to_out);
            fwrite(o->text.ptr + start, 1, s->end - start, to_err);
        } else {
            fwrite(o->text.ptr + start, 1, s->end - start, to_out);
        }
        start = s->end;
    }
    if (o->lost) {
        fflush(to_out);
        fputs("  (output of this table lost: out of memory)\n", to_err);
    }
    fflush(to_out);
}

void zb_cli_table_out_close(zb_cli_table_out *o)
{
    if (o->captured) {
        if (o->out != NULL)
            fclose(o->out);
        if (o->err != NULL)
            fclose(o->err);
    }
    o->out = o->err = NULL;
    zb_buf_free(&o->text);
    zb_vec_free(&o->segs);
}

/* ---- the runner ---- */

typedef struct runner {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t n, next;
    size_t first_unstarted;        /* n until no new k may start */
    unsigned char *finished;       /* per k */
    const atomic_int *stop;
    zb_cli_work_fn work;
    void *payload;
} runner;

/* The next k to start, under the lock; 0 once nothing more starts. */
static int claim_locked(runner *r, size_t *k)
{
    if (r->first_unstarted == r->n && r->next < r->n && r->stop != NULL &&
        atomic_load(r->stop))
        r->first_unstarted = r->next;
    if (r->next >= r->first_unstarted || r->next >= r->n)
        return 0;
    *k = r->next++;
    return 1;
}

static void *worker(void *arg)
{
    runner *r = arg;
    size_t k;

    pthread_mutex_lock(&r->lock);
    while (claim_locked(r, &k)) {
        pthread_mutex_unlock(&r->lock);
        r->work(k, r->payload);
        pthread_mutex_lock(&r->lock);
        r->finished[k] = 1;
        pthread_cond_broadcast(&r->cond);
    }
    /* the caller may wait for a k no one will start */
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static size_t run_inline(size_t n, const atomic_int *stop,
                         zb_cli_work_fn work, zb_cli_done_fn done,
                         void *payload)
{
    size_t k;

    for (k = 0; k < n; k++) {
        if (stop != NULL && atomic_load(stop))
            return k;
        work(k, payload);
        if (done != NULL && done(k, payload) != 0)
            return k + 1;
    }
    return n;
}

size_t zb_cli_parallel_run(size_t n, int parallel, const atomic_int *stop,
                             zb_cli_work_fn work, zb_cli_done_fn done,
                             void *payload)
{
    pthread_t threads[MAX_THREADS];
    runner r;
    size_t k, started = 0, want, result;
    int halt = 0;

    want = parallel > 1 ? (size_t)parallel : 1;
    if (want > MAX_THREADS)
        want = MAX_THREADS;
    if (want > n)
        want = n;
    if (want <= 1)
        return run_inline(n, stop, work, done, payload);
    memset(&r, 0, sizeof r);
    if ((r.finished = zb_calloc(n, 1)) == NULL)
        return run_inline(n, stop, work, done, payload);
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.cond, NULL);
    r.n = n;
    r.first_unstarted = n;
    r.stop = stop;
    r.work = work;
    r.payload = payload;
    /* fewer threads when the system gives fewer; none: the caller's */
    while (started < want &&
           pthread_create(&threads[started], NULL, worker, &r) == 0)
        started++;
    if (started == 0) {
        pthread_mutex_destroy(&r.lock);
        pthread_cond_destroy(&r.cond);
        zb_free(r.finished);
        return run_inline(n, stop, work, done, payload);
    }
    pthread_mutex_lock(&r.lock);
    for (k = 0; k < n; k++) {
        /* below first_unstarted, k is or will be claimed */
        while (!r.finished[k] && k < r.first_unstarted)
            pthread_cond_wait(&r.cond, &r.lock);
        if (!r.finished[k])
            break;                 /* not started: none after it either */
        pthread_mutex_unlock(&r.lock);
        if (done != NULL && done(k, payload) != 0 && !halt) {
            halt = 1;
            pthread_mutex_lock(&r.lock);
            if (r.first_unstarted > r.next)
                r.first_unstarted = r.next;
            pthread_mutex_unlock(&r.lock);
        }
        pthread_mutex_lock(&r.lock);
    }
    result = r.first_unstarted;
    pthread_mutex_unlock(&r.lock);
    for (k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    pthread_mutex_destroy(&r.lock);
    pthread_cond_destroy(&r.cond);
    zb_free(r.finished);
    return result;
}

/*
 * exec/pool.c - fixed-size thread pool (exec/pool.h).
 *
 * One mutex guards a FIFO of job nodes (allocated at submit, freed by the
 * thread that runs or drops them) and the counts: queued + running jobs
 * is "pending"; wait sleeps on `idle` until it is 0. Threads sleep on
 * `work`. The stop flag is polled: a thread that takes a job while the
 * flag is raised drops it instead of running it, and wait, which sleeps
 * in slices of STOP_POLL_MS, drops the whole queue itself when it sees
 * the flag, so nobody has to signal the pool when the flag goes up.
 * (The cgroup limits are in sys_limits.c.)
 */
#define ZB_MODULE "pool"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "exec/pool.h"
#include "util/alloc.h"
#include "util/err.h"

#define STOP_POLL_MS 20
#define MAX_THREADS 256

typedef struct job {
    struct job *next;
    zb_pool_fn fn;
    void *arg;
} job;

struct zb_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;       /* a job was queued, or shutdown */
    pthread_cond_t idle;       /* pending reached 0 */
    job *head, *tail;
    uint64_t pending;          /* queued + running */
    int first_rc;              /* first failure since the last wait */
    int dropped;               /* jobs dropped for the stop flag */
    int shutdown;
    const atomic_int *stop;
    unsigned nthreads;
    pthread_t threads[MAX_THREADS];
};

static int stopped(const zb_pool *p)
{
    return p->stop && atomic_load(p->stop) != 0;
}

/* Drops every queued job; called with the lock held. */
static void drop_queue(zb_pool *p)
{
    while (p->head) {
        job *j = p->head;
        p->head = j->next;
        zb_free(j);
        p->pending--;
        p->dropped = 1;
    }
    p->tail = NULL;
    if (p->pending == 0)
        pthread_cond_broadcast(&p->idle);
}

static void *worker(void *arg)
{
    zb_pool *p = arg;
    job *j;
    int rc;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->head == NULL && !p->shutdown)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->head == NULL)
            break;
        j = p->head;
        p->head = j->next;
        if (p->head == NULL)
            p->tail = NULL;
        if (stopped(p)) {
            p->dropped = 1;
            rc = ZB_OK;
        } else {
            pthread_mutex_unlock(&p->lock);
            rc = j->fn(j->arg);
            pthread_mutex_lock(&p->lock);
        }
        zb_free(j);
        if (rc < 0 && p->first_rc == ZB_OK)
            p->first_rc = rc;
        if (--p->pending == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void stop_threads(zb_pool *p, unsigned n)
{
    unsigned i;

    pthread_mutex_lock(&p->lock);
    p->shutdown = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i < n; i++)
        pthread_join(p->threads[i], NULL);
}

int zb_pool_new(zb_pool **out, zb_ctx *ctx, unsigned threads,
                const atomic_int *stop)
{
    pthread_condattr_t attr;
    zb_pool *p;
    unsigned i;
    int e;

    *out = NULL;
    if (threads < 1 || threads > MAX_THREADS)
        return zb_fail(ctx, ZB_EINVAL, "thread pool of %u threads (1 to %d)",
                       threads, MAX_THREADS);
    if ((p = zb_calloc(1, sizeof *p)) == NULL)
        return zb_fail_oom(ctx);
    p->stop = stop;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, &attr);
    pthread_condattr_destroy(&attr);
    for (i = 0; i < threads; i++) {
        if ((e = pthread_create(&p->threads[i], NULL, worker, p)) != 0) {
            stop_threads(p, i);
            pthread_cond_destroy(&p->work);
            pthread_cond_destroy(&p->idle);
            pthread_mutex_destroy(&p->lock);
            zb_free(p);
            return zb_fail(ctx, ZB_ENOMEM,
                           "cannot start thread %u of a pool of %u: %s",
                           i + 1, threads, strerror(e));
        }
        p->nthreads = i + 1;
    }
    *out = p;
    return ZB_OK;
}

int zb_pool_submit(zb_pool *p, zb_pool_fn fn, void *arg)
{
    job *j;

    if (stopped(p))
        return ZB_ECANCELED;
    if ((j = zb_malloc(sizeof *j)) == NULL)
        return ZB_ENOMEM;
    j->next = NULL;
    j->fn = fn;
    j->arg = arg;
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->pending++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    return ZB_OK;
}

int zb_pool_wait(zb_pool *p)
{
    struct timespec ts;
    int rc;

    pthread_mutex_lock(&p->lock);
    while (p->pending > 0) {
        if (stopped(p))
            drop_queue(p);
        if (p->pending == 0)
            break;
        if (p->stop == NULL) {
            pthread_cond_wait(&p->idle, &p->lock);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += STOP_POLL_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->idle, &p->lock, &ts);
    }
    rc = p->first_rc != ZB_OK ? p->first_rc
         : p->dropped ? ZB_ECANCELED : ZB_OK;
    p->first_rc = ZB_OK;
    p->dropped = 0;
    pthread_mutex_unlock(&p->lock);
    return rc;
}

unsigned zb_pool_threads(const zb_pool *p)
{
    return p->nthreads;
}

void zb_pool_free(zb_pool *p)
{
    if (p == NULL)
        return;
    zb_pool_wait(p);
    stop_threads(p, p->nthreads);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->idle);
    pthread_mutex_destroy(&p->lock);
    zb_free(p);
}

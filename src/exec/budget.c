/*
 * exec/budget.c - the process-wide byte budget (see zamboni/budget.h).
 *
 * State is guarded by one mutex. Waiters queue as nodes on their own stack
 * in two FIFO lists: growers, served first, then new reservations. Only the
 * head of a list may be admitted, which makes service first come, first
 * served; every change of state broadcasts the condition variable and each
 * waiter re-checks whether it is now at the head and fits.
 *
 * Admission:
 *   reserve n:  head of reservations, no grower waiting, and
 *               held + n <= limit, or nobody holds anything (oversized).
 *   grow by d:  head of growers, and held + d <= limit, or it is the only
 *               holder. If every holder is a waiting grower, the newest
 *               grower leaves with ZB_ENOMEM: nobody would ever release.
 *
 * With a stop flag, waits are timed (STOP_POLL_MS) so that a raised flag is
 * seen without anyone having to signal the budget.
 */
#define ZB_MODULE "budget"

#include <pthread.h>
#include <time.h>

#include "zamboni/budget.h"
#include "util/err.h"
#include "util/alloc.h"
#include "util/prometheus.h"

#define STOP_POLL_MS 50

typedef struct waiter {
    struct waiter *next;
    uint64_t bytes;             /* reserve: all; grow: the extra */
} waiter;

typedef struct queue {
    waiter *head, *tail;
    unsigned len;
} queue;

struct zb_budget {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t limit;             /* 0: disabled */
    uint64_t held;
    unsigned holders;
    queue reserves;
    queue grows;
    zb_metric *wait_reserve;    /* NULL without metrics */
    zb_metric *wait_grow;
    zb_metric *held_gauge;
    zb_metric *waiters_gauge;
};

static void enqueue(queue *q, waiter *w)
{
    w->next = NULL;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
    q->len++;
}

static void dequeue(queue *q, waiter *w)
{
    waiter **pp = &q->head, *prev = NULL;

    while (*pp && *pp != w) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp == NULL)
        return;
    *pp = w->next;
    if (q->tail == w)
        q->tail = prev;
    q->len--;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Publishes gauges; called with the lock held after every change. */
static void publish(zb_budget *b)
{
    zb_metric_set(b->held_gauge, (double)b->held);
    zb_metric_set(b->waiters_gauge,
                  (double)(b->reserves.len + b->grows.len));
}

static int register_metrics(zb_budget *b, zb_metrics *m)
{
    static const char *const reserve_labels[] = { "kind", "reserve", NULL };
    static const char *const grow_labels[] = { "kind", "grow", NULL };
    static const char wait_help[] =
        "Seconds a memory reservation waited for room in the budget.";
    zb_metric *limit;
    int rc;

    if ((rc = zb_metrics_histogram(&b->wait_reserve, m,
                                   "zamboni_budget_wait_seconds", wait_help,
                                   zb_metrics_job_seconds_buckets,
                                   zb_metrics_job_seconds_buckets_len,
                                   reserve_labels)) < 0 ||
        (rc = zb_metrics_histogram(&b->wait_grow, m,
                                   "zamboni_budget_wait_seconds", wait_help,
                                   zb_metrics_job_seconds_buckets,
                                   zb_metrics_job_seconds_buckets_len,
                                   grow_labels)) < 0 ||
        (rc = zb_metrics_gauge(&b->held_gauge, m, "zamboni_budget_held_bytes",
                               "Bytes reserved from the memory budget.",
                               NULL)) < 0 ||
        (rc = zb_metrics_gauge(&b->waiters_gauge, m, "zamboni_budget_waiters",
                               "Reservations waiting for room in the budget.",
                               NULL)) < 0 ||
        (rc = zb_metrics_gauge(&limit, m, "zamboni_budget_limit_bytes",
                               "Size of the memory budget; 0 is disabled.",
                               NULL)) < 0)
        return rc;
    zb_metric_set(limit, (double)b->limit);
    return ZB_OK;
}

int zb_budget_new(zb_budget **out, uint64_t limit_bytes, zb_metrics *metrics)
{
    zb_budget *b;
    pthread_condattr_t attr;
    int rc;

    *out = NULL;
    if ((b = zb_calloc(1, sizeof *b)) == NULL)
        return ZB_ENOMEM;
    b->limit = limit_bytes;
    if (metrics && (rc = register_metrics(b, metrics)) < 0) {
        zb_free(b);
        return rc;
    }
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        pthread_condattr_destroy(&attr);
        zb_free(b);
        return ZB_ERROR;
    }
    if (pthread_cond_init(&b->changed, &attr) != 0) {
        pthread_condattr_destroy(&attr);
        pthread_mutex_destroy(&b->lock);
        zb_free(b);
        return ZB_ERROR;
    }
    pthread_condattr_destroy(&attr);
    *out = b;
    return ZB_OK;
}

void zb_budget_free(zb_budget *b)
{
    if (b == NULL)
        return;
    assert(b->holders == 0 && b->reserves.len == 0 && b->grows.len == 0);
    pthread_cond_destroy(&b->changed);
    pthread_mutex_destroy(&b->lock);
    zb_free(b);
}

static int stopped(const atomic_int *stop)
{
    return stop && atomic_load((atomic_int *)stop) != 0;
}

static void wait_changed(zb_budget *b, const atomic_int *stop)
{
    struct timespec until;

    if (stop == NULL) {
        pthread_cond_wait(&b->changed, &b->lock);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += STOP_POLL_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&b->changed, &b->lock, &until);
}

static int fits(const zb_budget *b, uint64_t extra)
{
    return extra <= b->limit && b->held <= b->limit - extra;
}

static void admit(zb_budget *b, zb_reservation *r, uint64_t extra)
{
    if (r->bytes == 0)
        b->holders++;
    b->held += extra;
    r->bytes += extra;
    r->budget = b;
    /* Past the limit only ever alone (oversized or grown sole holder). */
    assert(b->limit == 0 || b->held <= b->limit || b->holders == 1);
}

int zb_budget_reserve(zb_reservation *r, zb_budget *b, uint64_t bytes,
                      const atomic_int *stop)
{
    waiter self;
    double start;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(r && b && r->bytes == 0);
    r->budget = b;
    if (bytes == 0)
        return ZB_OK;
    start = now_seconds();
    pthread_mutex_lock(&b->lock);
    if (b->limit == 0) {
        admit(b, r, bytes);
        goto done;
    }
    self.bytes = bytes;
    enqueue(&b->reserves, &self);
    publish(b);
    for (;;) {
        if (b->reserves.head == &self && b->grows.len == 0 &&
            (fits(b, bytes) || b->holders == 0)) {
            admit(b, r, bytes);
            break;
        }
        if (stopped(stop)) {
            rc = ZB_ECANCELED;
            r->budget = NULL;
            break;
        }
        wait_changed(b, stop);
    }
    dequeue(&b->reserves, &self);
    /* The next in line may fit now that the head has moved. */
    pthread_cond_broadcast(&b->changed);
done:
    publish(b);
    pthread_mutex_unlock(&b->lock);
    zb_metric_observe(b->wait_reserve, now_seconds() - start);
    return rc;
}

int zb_budget_grow(zb_reservation *r, uint64_t total_bytes,
                   const atomic_int *stop)
{
    zb_budget *b;
    waiter self;
    uint64_t extra;
    double start;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(r && r->budget);
    b = r->budget;
    if (total_bytes <= r->bytes)
        return ZB_OK;
    if (r->bytes == 0)
        return zb_budget_reserve(r, b, total_bytes, stop);
    extra = total_bytes - r->bytes;
    start = now_seconds();
    pthread_mutex_lock(&b->lock);
    if (b->limit == 0) {
        admit(b, r, extra);
        goto done;
    }
    self.bytes = extra;
    enqueue(&b->grows, &self);
    publish(b);
    for (;;) {
        if (b->grows.head == &self && (fits(b, extra) || b->holders == 1)) {
            admit(b, r, extra);
            break;
        }
        if (b->grows.len == b->holders && b->grows.tail == &self) {
            rc = ZB_ENOMEM;   /* every holder waits to grow: deadlock */
            break;
        }
        if (stopped(stop)) {
            rc = ZB_ECANCELED;
            break;
        }
        wait_changed(b, stop);
    }
    dequeue(&b->grows, &self);
    pthread_cond_broadcast(&b->changed);
done:
    publish(b);
    pthread_mutex_unlock(&b->lock);
    zb_metric_observe(b->wait_grow, now_seconds() - start);
    return rc;
}

int zb_budget_try_grow(zb_reservation *r, zb_budget *b, uint64_t total_bytes)
{
    uint64_t extra;
    int rc = ZB_ENOMEM;

    ZB_ASSERT_ARG(r && (r->budget || b));
    ZB_ASSERT_ARG(b == NULL || r->budget == NULL || r->budget == b);
    if (r->budget == NULL)
        r->budget = b;
    b = r->budget;
    if (total_bytes <= r->bytes)
        return ZB_OK;
    extra = total_bytes - r->bytes;
    pthread_mutex_lock(&b->lock);
    if (b->limit == 0 ||
        (b->reserves.len == 0 && b->grows.len == 0 && fits(b, extra))) {
        admit(b, r, extra);
        rc = ZB_OK;
        publish(b);
    }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

void zb_budget_release(zb_reservation *r)
{
    zb_budget *b;

    if (r == NULL || r->budget == NULL)
        return;
    b = r->budget;
    if (r->bytes) {
        pthread_mutex_lock(&b->lock);
        b->held -= r->bytes;
        b->holders--;
        publish(b);
        pthread_cond_broadcast(&b->changed);
        pthread_mutex_unlock(&b->lock);
    }
    r->bytes = 0;
    r->budget = NULL;
}

uint64_t zb_budget_limit_bytes(const zb_budget *b)
{
    return b->limit;
}

void zb_budget_stats_get(zb_budget_stats *out, zb_budget *b)
{
    pthread_mutex_lock(&b->lock);
    out->limit_bytes = b->limit;
    out->held_bytes = b->held;
    out->holders = b->holders;
    out->waiters = b->reserves.len + b->grows.len;
    out->peak_bytes = 0;         /* kept by issue 15's budget work */
    out->wait_seconds = 0;
    out->oversized = 0;
    pthread_mutex_unlock(&b->lock);
}

uint64_t zb_budget_held_bytes(zb_budget *b)
{
    zb_budget_stats st;

    zb_budget_stats_get(&st, b);
    return st.held_bytes;
}

unsigned zb_budget_holders(zb_budget *b)
{
    zb_budget_stats st;

    zb_budget_stats_get(&st, b);
    return st.holders;
}

unsigned zb_budget_waiters(zb_budget *b)
{
    zb_budget_stats st;

    zb_budget_stats_get(&st, b);
    return st.waiters;
}

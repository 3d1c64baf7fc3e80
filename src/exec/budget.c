/*
 * exec/budget.c - the process-wide byte budget (see zamboni/budget.h).
 *
 * State is guarded by one mutex. Waiters queue as nodes on their own stack
 * in two FIFO lists: the first ("grows") holds grows and nested
 * reservations (a thread that already holds bytes reserving again), served
 * first; the second new reservations. Only the head of a list may be
 * admitted, which makes service first come, first served; every change of
 * state broadcasts the condition variable and each waiter re-checks
 * whether it is now at the head and fits.
 *
 * The budget knows who took each reservation: a record per thread that
 * holds bytes in it (struct zb_budget_owner, in the budget's list, found
 * by a thread id that is never reused), made when the thread's first
 * reservation is admitted and freed when the last one it took is released
 * and nothing of it waits, by whichever thread does so. A reservation
 * points at its record, so a release or grow from another thread counts
 * against the right one. A reservation whose record could not be
 * allocated stands alone.
 *
 * A held reservation is blocked while a grow of it waits, or while the
 * thread that took it waits in the first list (a waiting thread releases
 * nothing). `blocked` counts them; when it equals `holders`, nobody is
 * left to release.
 *
 * Admission:
 *   reserve n:  head of new reservations, nothing in the first list, and
 *               held + n <= limit, or nobody holds anything (oversized).
 *   grow by d,  head of the first list, and held + d <= limit, or every
 *   nested n:   held reservation is one the call blocks (it is alone).
 *               If every held reservation is blocked and the head cannot
 *               be admitted, the newest in the first list leaves with
 *               ZB_ENOMEM.
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

typedef struct zb_budget_owner owner;

typedef struct waiter {
    struct waiter *next;
    uint64_t bytes;             /* reserve: all; grow: the extra */
    owner *by;                  /* first list: the caller's record */
    unsigned other;             /* 1: grows a reservation not by's */
} waiter;

typedef struct queue {
    waiter *head, *tail;
    unsigned len;
} queue;

/* One thread's holdings in one budget; guarded by the budget's lock. */
struct zb_budget_owner {
    struct zb_budget_owner *prev, *next;
    uint64_t thread;            /* thread_id() of the thread */
    unsigned held;              /* reservations it took that hold bytes */
    unsigned waiting;           /* its thread's calls in the first list */
    unsigned grown;             /* waiting grows of them by other threads */
};

struct zb_budget {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t limit;             /* 0: disabled */
    uint64_t held;
    unsigned holders;           /* reservations holding bytes */
    unsigned blocked;           /* of them, blocked (see the top) */
    owner *owners;
    queue reserves;
    queue grows;                /* grows and nested reservations */
    uint64_t peak;
    double wait_seconds;        /* time calls spent queued */
    uint64_t oversized;
    zb_metric *wait_reserve;    /* NULL without metrics */
    zb_metric *wait_grow;
    zb_metric *held_gauge;
    zb_metric *waiters_gauge;
    zb_metric *oversized_total;
};

/* A process-unique id per thread: pthread_t values are reused once a
 * thread ends, and a record may outlive its thread (a pool job's
 * reservation released by the job's owner). */
static uint64_t thread_id(void)
{
    static atomic_uint_fast64_t next_id = 1;
    static _Thread_local uint64_t id;

    if (id == 0)
        id = atomic_fetch_add(&next_id, 1);
    return id;
}

static owner *find_owner(const zb_budget *b, uint64_t thread)
{
    owner *o;

    for (o = b->owners; o; o = o->next)
        if (o->thread == thread)
            return o;
    return NULL;
}

/* How many of o's reservations are blocked. */
static unsigned blocked_of(const owner *o)
{
    if (o->waiting > 0)
        return o->held;
    return o->grown < o->held ? o->grown : o->held;
}

/* Changes o's counts, keeps b->blocked right, and frees o once nothing
 * of it holds or waits. */
static void owner_change(zb_budget *b, owner *o, int d_held, int d_waiting,
                         int d_grown)
{
    unsigned before = blocked_of(o);

    o->held = (unsigned)((int)o->held + d_held);
    o->waiting = (unsigned)((int)o->waiting + d_waiting);
    o->grown = (unsigned)((int)o->grown + d_grown);
    b->blocked = b->blocked - before + blocked_of(o);
    if (o->held == 0 && o->waiting == 0 && o->grown == 0) {
        if (o->prev)
            o->prev->next = o->next;
        else
            b->owners = o->next;
        if (o->next)
            o->next->prev = o->prev;
        zb_free(o);
    }
}

/* The calling thread's record, made if it has none; NULL without memory
 * (the reservation then stands alone). */
static owner *own_record(zb_budget *b)
{
    uint64_t me = thread_id();
    owner *o = find_owner(b, me);

    if (o == NULL && (o = zb_calloc(1, sizeof *o)) != NULL) {
        o->thread = me;
        o->next = b->owners;
        if (b->owners)
            b->owners->prev = o;
        b->owners = o;
    }
    return o;
}

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
        (rc = zb_metrics_gauge(&b->held_gauge, m,
                               "zamboni_budget_reserved_bytes",
                               "Bytes reserved from the memory budget.",
                               NULL)) < 0 ||
        (rc = zb_metrics_gauge(&b->waiters_gauge, m, "zamboni_budget_waiters",
                               "Reservations waiting for room in the budget.",
                               NULL)) < 0 ||
        (rc = zb_metrics_gauge(&limit, m, "zamboni_budget_limit_bytes",
                               "Size of the memory budget; 0 is disabled.",
                               NULL)) < 0 ||
        (rc = zb_metrics_counter(&b->oversized_total, m,
                                 "zamboni_budget_oversized_total",
                                 "Reservations and grows admitted past the "
                                 "budget's limit, each alone.", NULL)) < 0)
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
    assert(b->owners == NULL);
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

/* Adds extra (> 0) bytes to *r; an empty r joins the calling thread's
 * record. Counts an admission past the limit and the peak. */
static void admit(zb_budget *b, zb_reservation *r, uint64_t extra)
{
    if (b->limit != 0 && !fits(b, extra)) {
        b->oversized++;
        zb_metric_add(b->oversized_total, 1);
    }
    if (r->bytes == 0) {
        b->holders++;
        r->owner = own_record(b);
        if (r->owner)
            owner_change(b, r->owner, 1, 0, 0);
    }
    b->held += extra;
    if (b->held > b->peak)
        b->peak = b->held;
    r->bytes += extra;
    r->budget = b;
}

/* Whether w, a call in the first list, may be admitted when at the head:
 * it fits, or nobody holds, or every held reservation is one it blocks. */
static int first_admissible(const zb_budget *b, const waiter *w)
{
    unsigned mine = (w->by ? w->by->held : 0) + w->other;

    return fits(b, w->bytes) || b->holders == 0 || mine >= b->holders;
}

/* Marks what a first-list call blocks (sign 1) or no longer blocks (-1):
 * the caller's reservations, and the one it grows when not the caller's. */
static void block(zb_budget *b, const waiter *w, owner *grown, int sign)
{
    if (w->by)
        owner_change(b, w->by, 0, sign, 0);
    if (w->other && grown)
        owner_change(b, grown, 0, 0, sign);
    else if (w->other)
        b->blocked = (unsigned)((int)b->blocked + sign);
}

/*
 * A call in the first list: a grow of r or a nested reservation into r
 * (empty). Admits extra into r, or gives up with ZB_ENOMEM or
 * ZB_ECANCELED. ZB_ENOMEM goes to the newest call when every held
 * reservation is blocked and the head cannot be admitted: nobody is left
 * to release. Called and returns with the lock held.
 */
static int wait_first(zb_budget *b, zb_reservation *r, uint64_t extra,
                      const atomic_int *stop)
{
    waiter self;
    owner *grown = r->bytes ? r->owner : NULL;
    double since = 0;
    int rc = ZB_OK;

    self.bytes = extra;
    self.by = find_owner(b, thread_id());
    self.other = r->bytes > 0 && (r->owner == NULL || r->owner != self.by);
    enqueue(&b->grows, &self);
    block(b, &self, grown, 1);
    publish(b);
    for (;;) {
        if (b->grows.head == &self && first_admissible(b, &self)) {
            admit(b, r, extra);
            break;
        }
        if (b->grows.tail == &self && b->holders > 0 &&
            b->blocked == b->holders &&
            !first_admissible(b, b->grows.head)) {
            rc = ZB_ENOMEM;
            break;
        }
        if (stopped(stop)) {
            rc = ZB_ECANCELED;
            break;
        }
        if (since == 0)
            since = now_seconds();
        wait_changed(b, stop);
    }
    if (since != 0)
        b->wait_seconds += now_seconds() - since;
    dequeue(&b->grows, &self);
    /* A nested admission joined self.by (it held already), so this frees
     * nothing that holds. */
    block(b, &self, grown, -1);
    pthread_cond_broadcast(&b->changed);
    return rc;
}

int zb_budget_reserve(zb_reservation *r, zb_budget *b, uint64_t bytes,
                      const atomic_int *stop)
{
    waiter self;
    owner *mine;
    double start, since = 0;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(r && b && r->bytes == 0);
    r->budget = b;
    r->owner = NULL;
    if (bytes == 0)
        return ZB_OK;
    start = now_seconds();
    pthread_mutex_lock(&b->lock);
    if (b->limit == 0) {
        admit(b, r, bytes);
        goto done;
    }
    mine = find_owner(b, thread_id());
    if (mine && mine->held > 0) {
        /* Nested: this thread holds bytes its own wait would keep. */
        rc = wait_first(b, r, bytes, stop);
        if (rc != ZB_OK)
            r->budget = NULL;
        goto done;
    }
    self.bytes = bytes;
    self.by = NULL;
    self.other = 0;
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
        if (since == 0)
            since = now_seconds();
        wait_changed(b, stop);
    }
    if (since != 0)
        b->wait_seconds += now_seconds() - since;
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
    if (b->limit == 0)
        admit(b, r, extra);
    else
        rc = wait_first(b, r, extra, stop);
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
        if (r->owner)
            owner_change(b, r->owner, -1, 0, 0);
        publish(b);
        pthread_cond_broadcast(&b->changed);
        pthread_mutex_unlock(&b->lock);
    }
    r->bytes = 0;
    r->budget = NULL;
    r->owner = NULL;
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
    out->peak_bytes = b->peak;
    out->wait_seconds = b->wait_seconds;
    out->oversized = b->oversized;
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

/*
 * Budget tests: the rules of zamboni/budget.h, each shown with real
 * threads. That a call is waiting is what the budget itself reports
 * (zb_budget_waiters(), under its lock) and a done flag, never a sleep:
 * wait_waiters() polls the count and fails the case after 5 seconds.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/prometheus.h"
#include "zamboni/budget.h"
#include "zbtest.h"

typedef struct job {
    zb_budget *budget;
    zb_reservation *r;      /* reserve into, or grow */
    uint64_t bytes;
    int grow;
    const atomic_int *stop;
    atomic_int done;
    int rc;
} job;

static void *run_job(void *p)
{
    job *j = p;

    if (j->grow)
        j->rc = zb_budget_grow(j->r, j->bytes, j->stop);
    else
        j->rc = zb_budget_reserve(j->r, j->budget, j->bytes, j->stop);
    atomic_store(&j->done, 1);
    return NULL;
}

static void start(pthread_t *t, job *j)
{
    ZBT_EQ_INT(pthread_create(t, NULL, run_job, j), 0);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Polls until the budget reports n calls waiting; fails the case after
 * 5 s, with the count it reports. */
static void wait_waiters(zb_budget *b, unsigned n)
{
    unsigned seen = 0;
    int i;

    for (i = 0; i < 5000; i++) {
        if ((seen = zb_budget_waiters(b)) == n)
            return;
        sleep_ms(1);
    }
    zbt__fail(__FILE__, __LINE__,
              "after 5 s the budget reports %u waiting call(s), want %u",
              seen, n);
}

static void test_exec_budget__reserve_and_release(void)
{
    zb_budget *b = NULL;
    zb_reservation r = ZB_RESERVATION_INIT, r2 = ZB_RESERVATION_INIT;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r, b, 60, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r2, b, 40, NULL), ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 100);
    ZBT_EQ_U64(zb_budget_holders(b), 2);
    ZBT_EQ_U64(r.bytes, 60);
    zb_budget_release(&r);
    zb_budget_release(&r);      /* idempotent */
    ZBT_EQ_U64(zb_budget_held_bytes(b), 40);
    zb_budget_release(&r2);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    ZBT_CHECK(r.budget == NULL && r.bytes == 0);
    zb_budget_free(b);
}

static void test_exec_budget__exhausted_reserve_waits_for_release(void)
{
    zb_metrics *m = NULL;
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, rb = ZB_RESERVATION_INIT;
    job j = { 0 };
    zb_metric *wait = NULL;
    const char *labels[] = { "kind", "reserve", NULL };
    pthread_t t;

    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ZBT_EQ_INT(zb_budget_new(&b, 100, m), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 80, NULL), ZB_OK);
    j.budget = b, j.r = &rb, j.bytes = 50;
    start(&t, &j);
    wait_waiters(b, 1);
    ZBT_EQ_INT(atomic_load(&j.done), 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 80);
    /* Not evidence of the wait (the count above is): the room stays taken
     * 50 ms so that the histogram has a wait worth measuring. */
    sleep_ms(50);
    ZBT_EQ_U64(zb_budget_waiters(b), 1);
    ZBT_EQ_INT(atomic_load(&j.done), 0);
    zb_budget_release(&a);
    pthread_join(t, NULL);
    ZBT_EQ_INT(j.rc, ZB_OK);
    ZBT_EQ_U64(rb.bytes, 50);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 50);
    zb_budget_release(&rb);
    /* The wait was measured: two reserves, one of them >= 50 ms. */
    ZBT_EQ_INT(zb_metrics_histogram(&wait, m, "zamboni_budget_wait_seconds",
                                    "Seconds a memory reservation waited for "
                                    "room in the budget.",
                                    zb_metrics_job_seconds_buckets,
                                    zb_metrics_job_seconds_buckets_len,
                                    labels), ZB_OK);
    ZBT_EQ_U64(zb_metric_count(wait), 2);
    ZBT_CHECK(zb_metric_value(wait) >= 0.05);
    zb_budget_free(b);
    zb_metrics_free(m);
}

static void test_exec_budget__oversized_is_admitted_alone(void)
{
    zb_budget *b = NULL;
    zb_reservation small = ZB_RESERVATION_INIT, big = ZB_RESERVATION_INIT,
                   after = ZB_RESERVATION_INIT;
    job jb = { 0 }, ja = { 0 };
    pthread_t tb, ta;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&small, b, 10, NULL), ZB_OK);
    jb.budget = b, jb.r = &big, jb.bytes = 500;
    start(&tb, &jb);
    wait_waiters(b, 1);
    /* A small request that would fit queues behind the oversized one. */
    ja.budget = b, ja.r = &after, ja.bytes = 1;
    start(&ta, &ja);
    wait_waiters(b, 2);
    ZBT_EQ_INT(atomic_load(&jb.done), 0);
    zb_budget_release(&small);
    pthread_join(tb, NULL);
    ZBT_EQ_INT(jb.rc, ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 500);
    wait_waiters(b, 1);
    ZBT_EQ_INT(atomic_load(&ja.done), 0);
    zb_budget_release(&big);
    pthread_join(ta, NULL);
    ZBT_EQ_INT(ja.rc, ZB_OK);
    zb_budget_release(&after);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

static void test_exec_budget__oversized_with_empty_budget_is_immediate(void)
{
    zb_budget *b = NULL;
    zb_reservation r = ZB_RESERVATION_INIT;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r, b, 1000, NULL), ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 1000);
    zb_budget_release(&r);
    zb_budget_free(b);
}

static void test_exec_budget__grow_waits_for_the_extra(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, other = ZB_RESERVATION_INIT;
    job j = { 0 };
    pthread_t t;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 50, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&other, b, 40, NULL), ZB_OK);
    /* Shrinking is a no-op. */
    ZBT_EQ_INT(zb_budget_grow(&a, 20, NULL), ZB_OK);
    ZBT_EQ_U64(a.bytes, 50);
    j.r = &a, j.bytes = 80, j.grow = 1;
    start(&t, &j);
    wait_waiters(b, 1);
    ZBT_EQ_INT(atomic_load(&j.done), 0);
    zb_budget_release(&other);
    pthread_join(t, NULL);
    ZBT_EQ_INT(j.rc, ZB_OK);
    ZBT_EQ_U64(a.bytes, 80);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 80);
    ZBT_EQ_U64(zb_budget_holders(b), 1);
    zb_budget_release(&a);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

static void test_exec_budget__sole_holder_grows_past_the_limit(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 50, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_grow(&a, 500, NULL), ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 500);
    zb_budget_release(&a);
    zb_budget_free(b);
}

static void test_exec_budget__growers_go_before_new_reservations(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, other = ZB_RESERVATION_INIT,
                   c = ZB_RESERVATION_INIT;
    job jc = { 0 }, ja = { 0 };
    pthread_t tc, ta;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 50, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&other, b, 40, NULL), ZB_OK);
    jc.budget = b, jc.r = &c, jc.bytes = 45;
    start(&tc, &jc);
    wait_waiters(b, 1);
    ja.r = &a, ja.bytes = 95, ja.grow = 1;
    start(&ta, &ja);
    wait_waiters(b, 2);
    /* 50 free: enough for either the grow (+45) or c (45), not both. */
    zb_budget_release(&other);
    pthread_join(ta, NULL);
    ZBT_EQ_INT(ja.rc, ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 95);
    wait_waiters(b, 1);
    ZBT_EQ_INT(atomic_load(&jc.done), 0);
    zb_budget_release(&a);
    pthread_join(tc, NULL);
    ZBT_EQ_INT(jc.rc, ZB_OK);
    zb_budget_release(&c);
    zb_budget_free(b);
}

static void test_exec_budget__growers_that_would_deadlock_get_enomem(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, c = ZB_RESERVATION_INIT;
    job ja = { 0 };
    pthread_t ta;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 60, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&c, b, 40, NULL), ZB_OK);
    ja.r = &a, ja.bytes = 80, ja.grow = 1;
    start(&ta, &ja);
    wait_waiters(b, 1);
    /* Both holders now wait to grow: the newer grower is refused. */
    ZBT_EQ_INT(zb_budget_grow(&c, 70, NULL), ZB_ENOMEM);
    ZBT_EQ_U64(c.bytes, 40);
    ZBT_EQ_INT(atomic_load(&ja.done), 0);
    zb_budget_release(&c);
    pthread_join(ta, NULL);
    ZBT_EQ_INT(ja.rc, ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 80);
    zb_budget_release(&a);
    zb_budget_free(b);
}

static void test_exec_budget__queue_is_first_come_first_served(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, r1 = ZB_RESERVATION_INIT,
                   r2 = ZB_RESERVATION_INIT;
    job j1 = { 0 }, j2 = { 0 };
    pthread_t t1, t2;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 90, NULL), ZB_OK);
    j1.budget = b, j1.r = &r1, j1.bytes = 50;
    start(&t1, &j1);
    wait_waiters(b, 1);
    /* 5 bytes would fit now, but it waits behind the 50. */
    j2.budget = b, j2.r = &r2, j2.bytes = 5;
    start(&t2, &j2);
    wait_waiters(b, 2);
    ZBT_EQ_INT(atomic_load(&j2.done), 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 90);
    zb_budget_release(&a);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    ZBT_EQ_INT(j1.rc, ZB_OK);
    ZBT_EQ_INT(j2.rc, ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 55);
    zb_budget_release(&r1);
    zb_budget_release(&r2);
    zb_budget_free(b);
}

static void test_exec_budget__stop_flag_cancels_a_wait(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, r = ZB_RESERVATION_INIT;
    atomic_int stop = 0;
    job j = { 0 };
    pthread_t t;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 100, NULL), ZB_OK);
    j.budget = b, j.r = &r, j.bytes = 10, j.stop = &stop;
    start(&t, &j);
    wait_waiters(b, 1);
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    ZBT_EQ_INT(j.rc, ZB_ECANCELED);
    ZBT_CHECK(r.budget == NULL && r.bytes == 0);
    ZBT_EQ_U64(zb_budget_waiters(b), 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 100);
    zb_budget_release(&a);
    zb_budget_free(b);
}

static void test_exec_budget__zero_disables(void)
{
    zb_budget *b = NULL;
    zb_reservation r1 = ZB_RESERVATION_INIT, r2 = ZB_RESERVATION_INIT;

    ZBT_EQ_INT(zb_budget_new(&b, 0, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r1, b, UINT64_C(1) << 40, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r2, b, UINT64_C(1) << 40, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_grow(&r2, UINT64_C(1) << 41, NULL), ZB_OK);
    ZBT_EQ_U64(zb_budget_held_bytes(b), UINT64_C(3) << 40);
    zb_budget_release(&r1);
    zb_budget_release(&r2);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/* ---- randomized stress ---- */

#define STRESS_THREADS 8
#define STRESS_ROUNDS 3000
#define STRESS_LIMIT 1000

typedef struct stress_arg {
    zb_budget *budget;
    unsigned seed;
    int failures;
    atomic_ulong *peak_violations;
} stress_arg;

static void *stress_worker(void *p)
{
    stress_arg *a = p;
    int i;

    for (i = 0; i < STRESS_ROUNDS; i++) {
        zb_reservation r = ZB_RESERVATION_INIT;
        unsigned pick = (unsigned)rand_r(&a->seed);
        /* Mostly small, sometimes near the limit, rarely oversized. */
        uint64_t bytes = pick % 50 == 0 ? STRESS_LIMIT + 500
                         : pick % 7 == 0 ? 600 : 1 + pick % 200;
        int rc;

        if (zb_budget_reserve(&r, a->budget, bytes, NULL) != ZB_OK)
            a->failures++;
        if (pick % 5 == 0) {
            rc = zb_budget_grow(&r, r.bytes + 1 + pick % 300, NULL);
            if (rc != ZB_OK && rc != ZB_ENOMEM)
                a->failures++;
        }
        {
            zb_budget_stats st;
            zb_budget_stats_get(&st, a->budget);
            if (st.held_bytes > STRESS_LIMIT && st.holders > 1)
                atomic_fetch_add(a->peak_violations, 1);
        }
        if (pick % 3 == 0)
            sched_yield();
        zb_budget_release(&r);
    }
    return NULL;
}

static void test_exec_budget__randomized_stress_never_deadlocks(void)
{
    zb_budget *b = NULL;
    pthread_t t[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    atomic_ulong violations = 0;
    int i;

    ZBT_EQ_INT(zb_budget_new(&b, STRESS_LIMIT, NULL), ZB_OK);
    for (i = 0; i < STRESS_THREADS; i++) {
        args[i].budget = b;
        args[i].seed = (unsigned)(i * 7919 + 1);
        args[i].failures = 0;
        args[i].peak_violations = &violations;
        ZBT_EQ_INT(pthread_create(&t[i], NULL, stress_worker, &args[i]), 0);
    }
    for (i = 0; i < STRESS_THREADS; i++) {
        pthread_join(t[i], NULL);
        ZBT_EQ_INT(args[i].failures, 0);
    }
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    ZBT_EQ_U64(zb_budget_waiters(b), 0);
    /* Over the limit only ever with a single holder (oversized or grown). */
    ZBT_EQ_U64(atomic_load(&violations), 0);
    zb_budget_free(b);
}

/* Larger than the whole budget: waits while anyone holds, however many,
 * then runs alone, and is counted as oversized. */
static void test_exec_budget__oversized_waits_until_the_only_holder(void)
{
    zb_budget *b = NULL;
    zb_reservation r1 = ZB_RESERVATION_INIT, r2 = ZB_RESERVATION_INIT,
                   big = ZB_RESERVATION_INIT;
    zb_budget_stats st;
    job jb = { 0 };
    pthread_t tb;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r1, b, 30, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r2, b, 40, NULL), ZB_OK);
    jb.budget = b, jb.r = &big, jb.bytes = 250;
    start(&tb, &jb);
    wait_waiters(b, 1);
    zb_budget_release(&r1);
    /* One holder is left: still waiting (the count says it queues). */
    ZBT_EQ_U64(zb_budget_holders(b), 1);
    ZBT_EQ_U64(zb_budget_waiters(b), 1);
    ZBT_EQ_INT(atomic_load(&jb.done), 0);
    zb_budget_stats_get(&st, b);
    ZBT_EQ_U64(st.oversized, 0);
    zb_budget_release(&r2);
    pthread_join(tb, NULL);
    ZBT_EQ_INT(jb.rc, ZB_OK);
    zb_budget_stats_get(&st, b);
    ZBT_EQ_U64(st.held_bytes, 250);
    ZBT_EQ_U64(st.holders, 1);
    ZBT_EQ_U64(st.oversized, 1);
    ZBT_EQ_U64(st.peak_bytes, 250);
    ZBT_CHECK(st.wait_seconds > 0);
    zb_budget_release(&big);
    zb_budget_free(b);
}

static void test_exec_budget__stats_peak_and_oversized(void)
{
    zb_budget *b = NULL, *off = NULL;
    zb_reservation r1 = ZB_RESERVATION_INIT, r2 = ZB_RESERVATION_INIT;
    zb_budget_stats st;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    zb_budget_stats_get(&st, b);
    ZBT_EQ_U64(st.peak_bytes, 0);
    ZBT_EQ_U64(st.oversized, 0);
    ZBT_CHECK(st.wait_seconds == 0);
    ZBT_EQ_INT(zb_budget_reserve(&r1, b, 60, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r2, b, 40, NULL), ZB_OK);
    zb_budget_release(&r1);
    ZBT_EQ_INT(zb_budget_grow(&r2, 50, NULL), ZB_OK);
    zb_budget_stats_get(&st, b);
    ZBT_EQ_U64(st.held_bytes, 50);
    ZBT_EQ_U64(st.peak_bytes, 100);      /* 60 + 40, before the release */
    ZBT_EQ_U64(st.oversized, 0);         /* up to the limit is not past it */
    /* Admitted at once: no time queued. */
    ZBT_CHECK(st.wait_seconds == 0);
    /* try_grow never goes past the limit, so never counts. */
    ZBT_EQ_INT(zb_budget_try_grow(&r2, NULL, 101), ZB_ENOMEM);
    ZBT_EQ_INT(zb_budget_try_grow(&r2, NULL, 100), ZB_OK);
    /* The sole holder's grow past the limit counts once. */
    ZBT_EQ_INT(zb_budget_grow(&r2, 300, NULL), ZB_OK);
    zb_budget_release(&r2);
    /* An oversized reservation admitted on an empty budget counts. */
    ZBT_EQ_INT(zb_budget_reserve(&r1, b, 150, NULL), ZB_OK);
    zb_budget_release(&r1);
    zb_budget_stats_get(&st, b);
    ZBT_EQ_U64(st.oversized, 2);
    ZBT_EQ_U64(st.peak_bytes, 300);
    ZBT_EQ_U64(st.held_bytes, 0);
    ZBT_CHECK(st.wait_seconds == 0);
    zb_budget_free(b);

    /* Disabled: the peak is kept, nothing is past a limit. */
    ZBT_EQ_INT(zb_budget_new(&off, 0, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r1, off, 1000, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_grow(&r1, 5000, NULL), ZB_OK);
    zb_budget_release(&r1);
    zb_budget_stats_get(&st, off);
    ZBT_EQ_U64(st.peak_bytes, 5000);
    ZBT_EQ_U64(st.oversized, 0);
    zb_budget_free(off);
}

/* wait_seconds adds up the time calls spent queued: a reserve and a grow
 * each kept waiting at least 50 ms add at least 0.1 s. */
static void test_exec_budget__stats_wait_seconds(void)
{
    zb_budget *b = NULL;
    zb_reservation a = ZB_RESERVATION_INIT, w = ZB_RESERVATION_INIT;
    zb_budget_stats st;
    job jr = { 0 }, jg = { 0 };
    pthread_t tr, tg;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 100, NULL), ZB_OK);
    jr.budget = b, jr.r = &w, jr.bytes = 40;
    start(&tr, &jr);
    wait_waiters(b, 1);
    /* Not evidence of the wait (the count is): room stays taken 50 ms. */
    sleep_ms(50);
    zb_budget_release(&a);
    pthread_join(tr, NULL);
    ZBT_EQ_INT(jr.rc, ZB_OK);
    zb_budget_stats_get(&st, b);
    ZBT_CHECK(st.wait_seconds >= 0.05);
    ZBT_CHECK(st.wait_seconds < 60);
    /* w holds 40; a takes 50; w's grow to 60 waits for a. */
    ZBT_EQ_INT(zb_budget_reserve(&a, b, 50, NULL), ZB_OK);
    jg.r = &w, jg.bytes = 60, jg.grow = 1;
    start(&tg, &jg);
    wait_waiters(b, 1);
    sleep_ms(50);
    zb_budget_release(&a);
    pthread_join(tg, NULL);
    ZBT_EQ_INT(jg.rc, ZB_OK);
    zb_budget_stats_get(&st, b);
    ZBT_CHECK(st.wait_seconds >= 0.1);
    zb_budget_release(&w);
    zb_budget_free(b);
}

/* The exposition carries the budget's series under their documented
 * names, with their values. */
static void test_exec_budget__metrics_exposition(void)
{
    zb_metrics *m = NULL;
    zb_budget *b = NULL;
    zb_reservation r = ZB_RESERVATION_INIT;
    zb_buf out = ZB_BUF_INIT(1 << 20);

    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ZBT_EQ_INT(zb_budget_new(&b, 100, m), ZB_OK);
    ZBT_EQ_INT(zb_budget_reserve(&r, b, 60, NULL), ZB_OK);
    ZBT_EQ_INT(zb_budget_grow(&r, 250, NULL), ZB_OK);   /* alone, past */
    ZBT_EQ_INT(zb_metrics_render(&out, m), ZB_OK);
    ZBT_CONTAINS(out.ptr, "# TYPE zamboni_budget_reserved_bytes gauge\n"
                           "zamboni_budget_reserved_bytes 250\n");
    ZBT_CONTAINS(out.ptr, "# TYPE zamboni_budget_oversized_total counter\n"
                           "zamboni_budget_oversized_total 1\n");
    ZBT_CONTAINS(out.ptr, "# TYPE zamboni_budget_limit_bytes gauge\n"
                           "zamboni_budget_limit_bytes 100\n");
    ZBT_CONTAINS(out.ptr, "# TYPE zamboni_budget_waiters gauge\n"
                           "zamboni_budget_waiters 0\n");
    ZBT_CONTAINS(out.ptr, "# TYPE zamboni_budget_wait_seconds histogram\n");
    ZBT_CONTAINS(out.ptr,
                 "zamboni_budget_wait_seconds_count{kind=\"reserve\"} 1\n");
    ZBT_CONTAINS(out.ptr,
                 "zamboni_budget_wait_seconds_count{kind=\"grow\"} 1\n");
    /* The gauge's old name is gone. */
    ZBT_CHECK(strstr(out.ptr, "zamboni_budget_held_bytes") == NULL);
    zb_budget_release(&r);
    zb_buf_free(&out);
    zb_budget_free(b);
    zb_metrics_free(m);
}

const zbt_case test_exec_budget[] = {
    ZBT_CASE(test_exec_budget__reserve_and_release),
    ZBT_CASE(test_exec_budget__exhausted_reserve_waits_for_release),
    ZBT_CASE(test_exec_budget__oversized_is_admitted_alone),
    ZBT_CASE(test_exec_budget__oversized_with_empty_budget_is_immediate),
    ZBT_CASE(test_exec_budget__grow_waits_for_the_extra),
    ZBT_CASE(test_exec_budget__sole_holder_grows_past_the_limit),
    ZBT_CASE(test_exec_budget__growers_go_before_new_reservations),
    ZBT_CASE(test_exec_budget__growers_that_would_deadlock_get_enomem),
    ZBT_CASE(test_exec_budget__queue_is_first_come_first_served),
    ZBT_CASE(test_exec_budget__stop_flag_cancels_a_wait),
    ZBT_CASE(test_exec_budget__zero_disables),
    ZBT_CASE(test_exec_budget__randomized_stress_never_deadlocks),
    ZBT_CASE(test_exec_budget__oversized_waits_until_the_only_holder),
    ZBT_CASE(test_exec_budget__stats_peak_and_oversized),
    ZBT_CASE(test_exec_budget__stats_wait_seconds),
    ZBT_CASE(test_exec_budget__metrics_exposition),
    ZBT_END
};

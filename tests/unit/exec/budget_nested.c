/*
 * Budget tests: nested reservations (a thread that holds bytes reserving
 * again) never deadlock, and a reservation released by another thread
 * leaves the budget's record of its taker right.
 *
 * Every scenario runs its holders on their own threads under a watchdog:
 * the main thread waits at most WATCHDOG_MS for each to finish, and on a
 * timeout raises the stop flag every call was given, which ends a
 * deadlocked wait with ZB_ECANCELED, joins the threads and fails the case.
 * A deadlock therefore FAILS the test instead of hanging it (the cases
 * below that say so were run against the budget without nested handling
 * and failed this way). Checks run on the main thread only, after the
 * joins, since a failed check leaves the case by longjmp.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zamboni/budget.h"
#include "zbtest.h"

#define WATCHDOG_MS 5000
#define MAX_STEPS 3
#define MAX_SLOTS 4

enum { STEP_RESERVE, STEP_GROW };

typedef struct step {
    int kind;
    int slot;                /* reservation to take (empty) or grow */
    uint64_t bytes;          /* reserve: bytes; grow: the new total */
    int rc;
    zb_budget_stats after;   /* the budget right after the call */
} step;

/* A thread that takes slot 0 (unless first is 0), says so, waits for go,
 * runs its steps up to the first that fails, waits for release_go when
 * asked, then releases all. */
typedef struct holder {
    zb_budget *b;
    const atomic_int *stop;
    uint64_t first;
    step steps[MAX_STEPS];
    int n_steps;
    int hold_until_told;     /* wait for release_go before releasing */
    zb_reservation r[MAX_SLOTS];
    uint64_t bytes_after[MAX_SLOTS];   /* each slot after the steps */
    int rc_first;
    atomic_int holding, go, steps_done, release_go, done;
    pthread_t t;
    int started;
} holder;

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Polls *flag for up to ms; 1 when it was set. */
static int flag_within(atomic_int *flag, long ms)
{
    long i;

    for (i = 0; i < ms; i++) {
        if (atomic_load(flag))
            return 1;
        sleep_ms(1);
    }
    return atomic_load(flag) != 0;
}

/* Polls until the budget reports n waiting calls, up to ms; 1 if so. */
static int waiters_within(zb_budget *b, unsigned n, long ms)
{
    long i;

    for (i = 0; i < ms; i++) {
        if (zb_budget_waiters(b) == n)
            return 1;
        sleep_ms(1);
    }
    return 0;
}

static void *run_holder(void *p)
{
    holder *h = p;
    int i;

    for (i = 0; i < MAX_SLOTS; i++)
        h->r[i] = (zb_reservation)ZB_RESERVATION_INIT;
    if (h->first)
        h->rc_first = zb_budget_reserve(&h->r[0], h->b, h->first, h->stop);
    atomic_store(&h->holding, 1);
    while (!atomic_load(&h->go))
        sleep_ms(1);
    for (i = 0; i < h->n_steps; i++) {
        step *s = &h->steps[i];
        if (s->kind == STEP_RESERVE)
            s->rc = zb_budget_reserve(&h->r[s->slot], h->b, s->bytes,
                                      h->stop);
        else
            s->rc = zb_budget_grow(&h->r[s->slot], s->bytes, h->stop);
        zb_budget_stats_get(&s->after, h->b);
        if (s->rc != ZB_OK)
            break;           /* later steps stay "not run" */
    }
    for (i = 0; i < MAX_SLOTS; i++)
        h->bytes_after[i] = h->r[i].bytes;
    atomic_store(&h->steps_done, 1);
    while (h->hold_until_told && !atomic_load(&h->release_go))
        sleep_ms(1);
    for (i = 0; i < MAX_SLOTS; i++)
        zb_budget_release(&h->r[i]);
    atomic_store(&h->done, 1);
    return NULL;
}

static void holder_init(holder *h, zb_budget *b, const atomic_int *stop,
                        uint64_t first)
{
    memset(h, 0, sizeof *h);
    h->b = b;
    h->stop = stop;
    h->first = first;
}

static void add_step(holder *h, int kind, int slot, uint64_t bytes)
{
    step *s = &h->steps[h->n_steps++];

    s->kind = kind;
    s->slot = slot;
    s->bytes = bytes;
    s->rc = 1;               /* not run */
}

/* Starts h and waits (watchdog) until it holds its first reservation;
 * 0 on a timeout. */
static int holder_start(holder *h)
{
    if (pthread_create(&h->t, NULL, run_holder, h) != 0)
        return 0;
    h->started = 1;
    return flag_within(&h->holding, WATCHDOG_MS);
}

/*
 * The watchdog: waits up to WATCHDOG_MS for each holder to finish; on a
 * timeout raises *stop (ending any wait), lets every holder go on, and
 * joins them all. Returns 1 when all finished in time.
 */
static int finish_all(holder *const *hs, int n, atomic_int *stop)
{
    int i, in_time = 1;

    for (i = 0; i < n; i++)
        if (hs[i]->started && !flag_within(&hs[i]->done, WATCHDOG_MS)) {
            in_time = 0;
            break;
        }
    if (!in_time)
        atomic_store(stop, 1);
    for (i = 0; i < n; i++) {
        atomic_store(&hs[i]->go, 1);
        atomic_store(&hs[i]->release_go, 1);
    }
    for (i = 0; i < n; i++)
        if (hs[i]->started)
            pthread_join(hs[i]->t, NULL);
    return in_time;
}

/* A thread holds 60 of 100 when a new request for 50 queues; its second
 * reservation (30, which fits) must not queue behind the new one, which
 * waits for room that only this thread's release frees. Deadlocks (and
 * fails here) with nested reservations served as new ones. */
static void test_exec_budget_nested__reserve_goes_ahead_of_new_ones(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    holder h, nw;
    holder *all[] = { &h, &nw };
    int queued, in_time;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    holder_init(&h, b, &stop, 60);
    add_step(&h, STEP_RESERVE, 1, 30);
    holder_init(&nw, b, &stop, 0);
    add_step(&nw, STEP_RESERVE, 1, 50);
    holder_start(&h);
    holder_start(&nw);
    atomic_store(&nw.go, 1);
    queued = waiters_within(b, 1, WATCHDOG_MS);
    atomic_store(&h.go, 1);
    in_time = finish_all(all, 2, &stop);
    ZBT_CHECK(queued);
    if (!in_time)
        zbt__fail(__FILE__, __LINE__, "deadlock: the nested reservation "
                  "waited %d ms behind a new one", WATCHDOG_MS);
    ZBT_EQ_INT(h.rc_first, ZB_OK);
    ZBT_EQ_INT(h.steps[0].rc, ZB_OK);
    ZBT_EQ_U64(h.bytes_after[1], 30);
    /* Admitted while the new request still waited. */
    ZBT_EQ_U64(h.steps[0].after.held_bytes, 90);
    ZBT_EQ_U64(h.steps[0].after.waiters, 1);
    ZBT_EQ_U64(h.steps[0].after.oversized, 0);
    ZBT_EQ_INT(nw.steps[0].rc, ZB_OK);
    ZBT_EQ_U64(nw.bytes_after[1], 50);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    zb_budget_free(b);
}

/* Two threads hold 60 and 40 of 100; one waits to grow to 80, then the
 * other reserves 10 more: every holder now waits, so the nested
 * reservation (the newest) gets ZB_ENOMEM holding nothing, and once its
 * thread releases, the grow goes through. Deadlocks (and fails here)
 * without the rule. */
static void test_exec_budget_nested__every_holder_waiting_gets_enomem(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    holder ga, nc;
    holder *all[] = { &ga, &nc };
    int queued, in_time;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    holder_init(&ga, b, &stop, 60);
    add_step(&ga, STEP_GROW, 0, 80);
    holder_init(&nc, b, &stop, 40);
    add_step(&nc, STEP_RESERVE, 1, 10);
    holder_start(&ga);
    holder_start(&nc);
    atomic_store(&ga.go, 1);
    queued = waiters_within(b, 1, WATCHDOG_MS);
    atomic_store(&nc.go, 1);
    in_time = finish_all(all, 2, &stop);
    ZBT_CHECK(queued);
    if (!in_time)
        zbt__fail(__FILE__, __LINE__, "deadlock: every holder waited "
                  "%d ms and none was refused", WATCHDOG_MS);
    ZBT_EQ_INT(nc.rc_first, ZB_OK);
    ZBT_EQ_INT(nc.steps[0].rc, ZB_ENOMEM);
    ZBT_EQ_U64(nc.bytes_after[1], 0);
    ZBT_EQ_U64(nc.bytes_after[0], 40);
    ZBT_EQ_INT(ga.steps[0].rc, ZB_OK);
    ZBT_EQ_U64(ga.bytes_after[0], 80);
    ZBT_EQ_U64(ga.steps[0].after.held_bytes, 80);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/* The only holder reserves again past the limit: alone, it is admitted
 * (oversized, counted) instead of waiting for itself. Deadlocks (and
 * fails here) with nested reservations served as new ones. */
static void test_exec_budget_nested__sole_holder_reserves_past_the_limit(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    holder h;
    holder *all[] = { &h };
    int in_time;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    holder_init(&h, b, &stop, 60);
    add_step(&h, STEP_RESERVE, 1, 70);
    add_step(&h, STEP_GROW, 1, 80);
    holder_start(&h);
    atomic_store(&h.go, 1);
    in_time = finish_all(all, 1, &stop);
    if (!in_time)
        zbt__fail(__FILE__, __LINE__, "deadlock: the only holder waited "
                  "%d ms for itself", WATCHDOG_MS);
    ZBT_EQ_INT(h.steps[0].rc, ZB_OK);
    ZBT_EQ_U64(h.steps[0].after.held_bytes, 130);
    ZBT_EQ_U64(h.steps[0].after.holders, 2);
    ZBT_EQ_U64(h.steps[0].after.oversized, 1);
    /* Its grow is alone too. */
    ZBT_EQ_INT(h.steps[1].rc, ZB_OK);
    ZBT_EQ_U64(h.steps[1].after.held_bytes, 140);
    ZBT_EQ_U64(h.steps[1].after.oversized, 2);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/* A thread's reservation released by another thread (a pool job's, by
 * the job's owner) no longer counts as that thread's: its next
 * reservation is a new one and queues behind an earlier new one. A
 * reservation whose thread has ended, released by another, leaves
 * nothing behind (zb_budget_free checks the records are gone). */
static void test_exec_budget_nested__release_from_another_thread(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    holder job, t, nw;
    holder *all[] = { &job, &t, &nw };
    zb_reservation m = ZB_RESERVATION_INIT, taken;
    int queued = 0, t_waited = 0, in_time;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    /* A job thread that reserves and ends; main releases its bytes. */
    holder_init(&job, b, &stop, 20);
    job.hold_until_told = 0;
    holder_start(&job);
    taken = job.r[0];
    job.r[0] = (zb_reservation)ZB_RESERVATION_INIT;
    atomic_store(&job.go, 1);
    flag_within(&job.done, WATCHDOG_MS);
    pthread_join(job.t, NULL);
    job.started = 0;
    zb_budget_release(&taken);

    /* t takes 60; main releases it; main then holds 60 itself. */
    holder_init(&t, b, &stop, 60);
    add_step(&t, STEP_RESERVE, 1, 30);
    holder_start(&t);
    taken = t.r[0];
    t.r[0] = (zb_reservation)ZB_RESERVATION_INIT;
    zb_budget_release(&taken);
    ZBT_EQ_INT(zb_budget_reserve(&m, b, 60, NULL), ZB_OK);
    holder_init(&nw, b, &stop, 0);
    add_step(&nw, STEP_RESERVE, 1, 50);
    nw.hold_until_told = 1;
    t.hold_until_told = 1;
    if (holder_start(&nw)) {
        atomic_store(&nw.go, 1);
        queued = waiters_within(b, 1, WATCHDOG_MS);
        /* t holds nothing now: its 30 (which would fit) waits behind. */
        atomic_store(&t.go, 1);
        t_waited = waiters_within(b, 2, WATCHDOG_MS) &&
                   !atomic_load(&t.steps_done);
    }
    zb_budget_release(&m);
    if (flag_within(&t.steps_done, WATCHDOG_MS)) {
        atomic_store(&nw.release_go, 1);
        atomic_store(&t.release_go, 1);
    }
    in_time = finish_all(all, 3, &stop);
    ZBT_CHECK(in_time);
    ZBT_CHECK(queued);
    ZBT_CHECK(t_waited);
    ZBT_EQ_INT(nw.steps[0].rc, ZB_OK);
    ZBT_EQ_INT(t.steps[0].rc, ZB_OK);
    /* Served in order: the new 50 first, then t's 30. */
    ZBT_EQ_U64(t.steps[0].after.held_bytes, 80);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    zb_budget_free(b);
}

/* A thread holding two reservations grows one while another thread
 * holds: it waits; once the other has left, every held reservation is
 * its own, so the grow goes through alone, past the limit. Deadlocks (and
 * fails here) when "alone" means one reservation. */
static void test_exec_budget_nested__grow_while_holding_two(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    holder h, other;
    holder *all[] = { &h, &other };
    int queued, in_time;

    ZBT_EQ_INT(zb_budget_new(&b, 100, NULL), ZB_OK);
    holder_init(&other, b, &stop, 30);
    other.hold_until_told = 1;
    holder_init(&h, b, &stop, 40);
    add_step(&h, STEP_RESERVE, 1, 20);   /* fits: 90 */
    add_step(&h, STEP_GROW, 1, 80);      /* +60: waits for other */
    holder_start(&other);
    atomic_store(&other.go, 1);
    holder_start(&h);
    atomic_store(&h.go, 1);
    queued = waiters_within(b, 1, WATCHDOG_MS);
    atomic_store(&other.release_go, 1);
    in_time = finish_all(all, 2, &stop);
    ZBT_CHECK(queued);
    if (!in_time)
        zbt__fail(__FILE__, __LINE__, "deadlock: the grow waited %d ms "
                  "with only its own thread holding", WATCHDOG_MS);
    ZBT_EQ_INT(h.steps[0].rc, ZB_OK);
    ZBT_EQ_INT(h.steps[1].rc, ZB_OK);
    /* Admitted once other left: alone (two reservations, one thread). */
    ZBT_EQ_U64(h.steps[1].after.held_bytes, 120);
    ZBT_EQ_U64(h.steps[1].after.holders, 2);
    ZBT_EQ_U64(h.steps[1].after.oversized, 1);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    zb_budget_free(b);
}

/* ---- randomized: nested reservations and grows from many threads ---- */

#define MIX_THREADS 8
#define MIX_ROUNDS 2000
#define MIX_LIMIT 1000

typedef struct mix_arg {
    zb_budget *budget;
    const atomic_int *stop;
    unsigned seed;
    int failures;            /* an rc the rules do not allow */
    int refused;             /* ZB_ENOMEM, allowed for nested and grows */
    atomic_int done;
} mix_arg;

static void *mix_worker(void *p)
{
    mix_arg *a = p;
    int i, rc;

    for (i = 0; i < MIX_ROUNDS && !atomic_load(a->stop); i++) {
        zb_reservation r1 = ZB_RESERVATION_INIT, r2 = ZB_RESERVATION_INIT;
        unsigned pick = (unsigned)rand_r(&a->seed);
        uint64_t bytes = pick % 40 == 0 ? MIX_LIMIT + 200 : 1 + pick % 400;

        rc = zb_budget_reserve(&r1, a->budget, bytes, a->stop);
        if (rc == ZB_ECANCELED)
            break;
        if (rc != ZB_OK)
            a->failures++;
        if (pick % 3 == 0) {             /* nested */
            rc = zb_budget_reserve(&r2, a->budget, 1 + (pick >> 8) % 500,
                                   a->stop);
            if (rc == ZB_ENOMEM)
                a->refused++;
            else if (rc != ZB_OK && rc != ZB_ECANCELED)
                a->failures++;
        }
        if (pick % 4 == 0) {
            rc = zb_budget_grow(&r1, r1.bytes + 1 + (pick >> 12) % 300,
                                a->stop);
            if (rc == ZB_ENOMEM)
                a->refused++;
            else if (rc != ZB_OK && rc != ZB_ECANCELED)
                a->failures++;
        }
        if (pick % 5 == 0)
            sched_yield();
        if (pick % 2)
            zb_budget_release(&r2);
        zb_budget_release(&r1);
        zb_budget_release(&r2);
    }
    atomic_store(&a->done, 1);
    return NULL;
}

static void test_exec_budget_nested__randomized_never_deadlocks(void)
{
    zb_budget *b = NULL;
    atomic_int stop = 0;
    pthread_t t[MIX_THREADS];
    mix_arg args[MIX_THREADS];
    int i, in_time = 1, failures = 0;

    ZBT_EQ_INT(zb_budget_new(&b, MIX_LIMIT, NULL), ZB_OK);
    for (i = 0; i < MIX_THREADS; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].budget = b;
        args[i].stop = &stop;
        args[i].seed = (unsigned)(i * 104729 + 7);
        ZBT_EQ_INT(pthread_create(&t[i], NULL, mix_worker, &args[i]), 0);
    }
    /* The whole run takes well under a second; 20 s means a deadlock. */
    for (i = 0; i < MIX_THREADS && in_time; i++)
        in_time = flag_within(&args[i].done, 4 * WATCHDOG_MS);
    if (!in_time)
        atomic_store(&stop, 1);
    for (i = 0; i < MIX_THREADS; i++) {
        pthread_join(t[i], NULL);
        failures += args[i].failures;
    }
    if (!in_time)
        zbt__fail(__FILE__, __LINE__, "deadlock: the threads did not "
                  "finish in %d ms", 4 * WATCHDOG_MS);
    ZBT_EQ_INT(failures, 0);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    ZBT_EQ_U64(zb_budget_waiters(b), 0);
    zb_budget_free(b);
}

const zbt_case test_exec_budget_nested[] = {
    ZBT_CASE(test_exec_budget_nested__reserve_goes_ahead_of_new_ones),
    ZBT_CASE(test_exec_budget_nested__every_holder_waiting_gets_enomem),
    ZBT_CASE(test_exec_budget_nested__sole_holder_reserves_past_the_limit),
    ZBT_CASE(test_exec_budget_nested__release_from_another_thread),
    ZBT_CASE(test_exec_budget_nested__grow_while_holding_two),
    ZBT_CASE(test_exec_budget_nested__randomized_never_deadlocks),
    ZBT_END
};

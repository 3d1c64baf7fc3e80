/*
 * zamboni/budget.h - the process-wide memory budget, in bytes.
 *
 * Every piece of work that buffers data (a compaction group reading its
 * files, a sort, an equality-delete set) reserves its estimated need from
 * one budget before it reads anything, and releases it when the commit has
 * consumed what it built. The rules, from the seed document on merge
 * budgets:
 *
 *  - A reservation is taken whole in one acquire. A request that does not
 *    fit WAITS for others to release; it never fails for lack of room.
 *    A thread that holds nothing holds no part of what others need while
 *    it waits, so its wait cannot deadlock (for one that holds, below).
 *  - Waiters are served first come, first served, so a large request is
 *    not starved by a stream of small ones.
 *  - A request larger than the whole budget is admitted once it is the
 *    only holder, so oversized work still makes progress, alone.
 *  - A reservation may grow by a second acquire (zb_budget_grow), which
 *    waits for the extra bytes, ahead of new reservations. Shrinking is a
 *    no-op.
 *  - A thread that holds bytes and reserves again (a second, separate
 *    reservation: a reader's row group while the same work's delete set
 *    holds its share) is served like a grow, ahead of new reservations:
 *    queued behind them it would wait for room that only its own release
 *    can free. A reservation belongs to the thread that took it, even
 *    when another thread releases or grows it (a pool job's reservation
 *    released by the job's owner); the budget keeps a small record per
 *    holding thread for this, and should that record fail to allocate,
 *    the thread's later reservations are served as new ones.
 *  - Oversized work alone: a grow or nested reservation whose thread is
 *    the only one holding is admitted past the limit. Since a thread's
 *    reservations count as one holder, take a job's reservation in the
 *    thread that runs the job (as a pool job does), not in a driver that
 *    holds others' reservations: the driver's would be nested.
 *  - When every thread holding bytes is waiting to grow or in a nested
 *    reservation, none could ever proceed: the newest of those calls gets
 *    ZB_ENOMEM instead of waiting, holding nothing new. Its caller should
 *    spill, retry its work with less memory, or release and start over.
 *    This rule counts the holder that took each reservation, so it sees a
 *    deadlock only among threads that release their own reservations.
 *  - A budget of 0 bytes is disabled: nothing waits, holdings are counted.
 *
 * A zb_reservation lives in the caller's memory (taking one never fails
 * for want of memory) and must be released with zb_budget_release before it
 * goes out of scope. All functions are thread-safe.
 *
 * With a metrics registry, the budget keeps:
 *   zamboni_budget_wait_seconds{kind="reserve"|"grow"}  histogram
 *       (every call, the instant ones included)
 *   zamboni_budget_reserved_bytes, zamboni_budget_limit_bytes,
 *   zamboni_budget_waiters                                gauges
 *   zamboni_budget_oversized_total                        counter of
 *       admissions past the limit (see zb_budget_stats.oversized)
 */
#ifndef ZAMBONI_BUDGET_H
#define ZAMBONI_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#include "zamboni/zamboni.h"

#ifdef __cplusplus
extern "C" {
#endif

struct zb_budget_owner;

typedef struct zb_reservation {
    zb_budget *budget;   /* NULL while nothing is held */
    uint64_t bytes;      /* bytes held */
    struct zb_budget_owner *owner;   /* private: who took it */
} zb_reservation;

#define ZB_RESERVATION_INIT { NULL, 0, NULL }

/*
 * Creates a budget of limit_bytes (0: disabled). metrics may be NULL; when
 * given it must outlive the budget. Returns ZB_OK, ZB_ENOMEM or ZB_EINVAL
 * (metrics of the same names registered with another shape).
 */
int zb_budget_new(zb_budget **out, uint64_t limit_bytes, zb_metrics *metrics);

/* Frees the budget; nothing may be held. NULL is fine. */
void zb_budget_free(zb_budget *b);

/*
 * Reserves bytes into *r, which must be empty, waiting as long as it
 * takes. stop may be NULL; when it becomes non-zero a waiting call gives
 * up. Returns ZB_OK, ZB_ECANCELED with nothing held, or, only when the
 * calling thread holds other reservations of b, ZB_ENOMEM with nothing
 * held when waiting would deadlock (see above).
 */
int zb_budget_reserve(zb_reservation *r, zb_budget *b, uint64_t bytes,
                      const atomic_int *stop);

/*
 * Grows *r to hold total_bytes, waiting for the difference. A total not
 * above what is held already returns ZB_OK at once. Returns ZB_OK,
 * ZB_ECANCELED (holding what it held before), or ZB_ENOMEM when waiting
 * would deadlock (see above).
 */
int zb_budget_grow(zb_reservation *r, uint64_t total_bytes,
                   const atomic_int *stop);

/*
 * Grows *r to hold total_bytes only if that fits at once: the difference
 * fits under the limit now and no grow or reservation is waiting ahead.
 * Never waits, and never takes the budget past its limit (not even for a
 * sole holder). *r may be empty: b is then the budget to reserve from
 * (otherwise it must be r->budget or NULL). With a disabled budget it
 * always succeeds. Returns ZB_OK, or ZB_ENOMEM holding what it held
 * before: the caller should spill or shrink its work instead. For work
 * that can trade memory for disk (key sets, sorts).
 */
int zb_budget_try_grow(zb_reservation *r, zb_budget *b, uint64_t total_bytes);

/* Gives back everything *r holds and empties it. Safe on an empty one. */
void zb_budget_release(zb_reservation *r);

/* One consistent view of the budget's state. */
typedef struct zb_budget_stats {
    uint64_t limit_bytes;
    uint64_t held_bytes;
    unsigned holders;        /* reservations holding bytes */
    unsigned waiters;        /* calls waiting */
    /* Since the budget was made: */
    uint64_t peak_bytes;     /* most bytes held at once */
    double wait_seconds;     /* time reserve and grow calls spent queued
                                (calls admitted at once add nothing) */
    uint64_t oversized;      /* admissions past the limit: an oversized
                                reservation or a grow, each alone; never
                                with a disabled budget */
} zb_budget_stats;

void zb_budget_stats_get(zb_budget_stats *out, zb_budget *b);

/*
 * Single readings of the same, each taken under the budget's lock.
 * zb_budget_waiters is the number of zb_budget_reserve and zb_budget_grow
 * calls queued for room right now (a call counts from when it queues until
 * it is admitted or gives up), so that a test or a gauge can tell that a
 * call is waiting without sleeping.
 */
uint64_t zb_budget_limit_bytes(const zb_budget *b);
uint64_t zb_budget_held_bytes(zb_budget *b);
unsigned zb_budget_holders(zb_budget *b);
unsigned zb_budget_waiters(zb_budget *b);

#ifdef __cplusplus
}
#endif
#endif

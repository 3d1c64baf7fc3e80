/*
 * ops/compact/compact.c - a compaction run (ops/compact/compact.h): plan, cut
 * the groups into work units (compact_slice.c), check each unit's memory,
 * rewrite the units (on one thread pool when there is more than one thread),
 * commit, count.
 *
 * zb_compact: zb_compact_plan_table; refusals (sort options the table cannot
 * take); dry run ends here. Groups are then taken in waves: one wave of every
 * group without partial progress, else waves of ceil(groups / max_commits). A
 * wave's units are submitted group by group, each group's slices in order;
 * a unit (a job) first enters its group into the flight (at most
 * max_concurrent groups), then waits for its reservation of its estimate from
 * ctx->budget, rewrites with a ctx of its own (no budget: the reservation
 * covers it; the same log, metrics and stop flag) and releases the
 * reservation once its files are written. The last unit of a group to end
 * gathers and verifies the group (zb_compact__finish_group) and leaves the
 * flight. The wave's written groups are then committed as one snapshot
 * (compact_commit.c). A raised stop flag starts no new unit; a group some of
 * whose units never ran has its files deleted and stays planned; written
 * groups are committed when drain_timeout_ms > 0, else their files are
 * deleted. The run's rc is the worst of its groups': ZB_EUNSAFE first.
 * zb_compact is zb_compact_test_run without hooks
 * (ops/compact/compact_hooks.h): the hooks reach only the row count check and
 * the point before a commit.
 */
#define ZB_MODULE "compact"

#include <pthread.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "exec/pool.h"
#include "ops/compact/compact_carry_sorted.h"
#include "ops/compact/compact_int.h"
#include "ops/compact/compact_hooks.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define GROUP_ARENA_MAX ((size_t)1 << 30)

/* Progress of the run (ops/ops.h): groups, their files and bytes done
 * (rewritten or failed) of the plan's; jobs report one at a time. */
typedef struct run_progress {
    pthread_mutex_t lock;
    zb_ctx *ctx;                   /* the run's: its callback */
    uint64_t done[3], total[3];    /* groups, files, bytes */
} run_progress;

static void progress_report(run_progress *p, const zb_compact_group *g)
{
    if (p == NULL || p->ctx->progress == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    if (g != NULL) {
        p->done[0]++;
        p->done[1] += g->n_tasks;
        p->done[2] += g->bytes;
    }
    zb_op__progress(p->ctx, ZB_PROGRESS_COMPACT_GROUPS, p->done[0],
                    p->total[0]);
    zb_op__progress(p->ctx, ZB_PROGRESS_COMPACT_FILES, p->done[1],
                    p->total[1]);
    zb_op__progress(p->ctx, ZB_PROGRESS_COMPACT_BYTES, p->done[2],
                    p->total[2]);
    pthread_mutex_unlock(&p->lock);
}

/* Groups in flight: at most max, entered by a group's first unit to
 * start and left when its last unit ends. */
typedef struct flight {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int in_flight, max;
} flight;

struct unit;

typedef struct job {               /* a group */
    zb_compact_group *g;
    zb_ctx ctx;                    /* the group's own: its error */
    zb_compact_slice *slices;      /* n_slices, one unit each */
    struct unit *units;
    size_t n_slices;
    size_t left;                   /* units not ended (flight's lock) */
    int entered;                   /* counted in flight (flight's lock) */
    int failed;                    /* a unit failed: no other starts */
    int finished;
    zb_budget *budget;
    const zb_table *table;
    zb_io *io;
    const zb_compact_opts *o;
    const zb_compact_test_hooks *hooks;  /* never NULL */
    int64_t target;
    int rc;
    int started;
    run_progress *progress;
    flight *flight;
} job;

typedef struct unit {              /* a slice of a group */
    job *j;
    zb_compact_slice *sl;
    zb_ctx ctx;                    /* the unit's own */
    zb_arena *arena;               /* its outputs' records */
    int ran;
    int rc;
} unit;

/*
 * A group's buffers (the writer's row group, the reader's, the sort's)
 * are freed when it ends, but an allocator that keeps freed blocks (the
 * CLI's, zb_alloc_tune_process) keeps them in the arena of the pool
 * thread that ran the group: the process would hold a group's peak per
 * thread, outside the budget. They go back to the system before the
 * reservation does.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZB_SANITIZED_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ZB_SANITIZED_MALLOC 1
#endif
#endif

/* Under ASan and TSan malloc is theirs: glibc's malloc_trim then walks
 * arenas that were never set up, and crashes when pool threads call it
 * at once. */
static void give_back_memory(void)
{
#if defined(__GLIBC__) && !defined(ZB_SANITIZED_MALLOC)
    (void)malloc_trim(0);
#endif
}

/* Counts j in flight once, waiting for room; 0 when stopped waiting.
 * No deadlock: jobs are submitted group by group and run in that order,
 * so every unit of a group in flight is already running or done. */
static int enter_flight(job *j)
{
    flight *f = j->flight;
    int ok = 1;

    pthread_mutex_lock(&f->lock);
    while (!j->entered && f->in_flight >= f->max) {
        struct timespec ts;

        if (zb_ctx_stopped(&j->ctx)) {
            ok = 0;
            break;
        }
        /* The stop flag rings no bell: look again now and then. */
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000;
        if (ts.tv_nsec >= 1000 * 1000 * 1000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000 * 1000 * 1000;
        }
        (void)pthread_cond_timedwait(&f->cond, &f->lock, &ts);
    }
    if (ok && !j->entered) {
        j->entered = 1;
        f->in_flight++;
    }
    pthread_mutex_unlock(&f->lock);
    return ok;
}

/*
 * The group after its units: FAILED with the first failure; PLANNED
 * (files deleted, stopped) when a stop kept units from running; else
 * its slices gathered and verified. Called once, by the last unit to
 * end or by the run for units the pool dropped.
 */
static void finish_job(job *j, zb_arena *arena)
{
    size_t i, ran = 0;
    int rc = ZB_OK;

    j->finished = 1;
    for (i = 0; i < j->n_slices; i++) {
        unit *u = &j->units[i];

        ran += u->ran;
        if (u->rc < 0 && rc == ZB_OK) {
            rc = u->rc;
            zb_err_copy(&j->ctx.err, &u->ctx.err);
        }
    }
    if (ran == 0 && rc == ZB_OK)
        return;                    /* not started: stays PLANNED */
    j->started = 1;
    if (rc < 0) {
        zb_compact__drop_slices(j->slices, j->n_slices, j->io, &j->ctx);
        j->g->state = ZB_GROUP_FAILED;
    } else if (ran < j->n_slices) {
        zb_compact__drop_slices(j->slices, j->n_slices, j->io, &j->ctx);
        j->started = 0;            /* stopped: nothing of it kept */
        return;
    } else {
        /* No arena: the group fails (its files deleted). */
        rc = zb_compact__finish_group(j->g, j->slices, j->n_slices,
                                      arena != NULL, arena, j->io, &j->ctx,
                                      j->table, j->hooks->row_skew);
        if (arena == NULL)
            rc = zb_fail_oom(&j->ctx);
        if (j->hooks->lose_maps)   /* issue 21: as after a restart */
            j->g->carry_lost = "its position map was lost";
    }
    j->rc = rc;
    if (rc < 0)
        j->g->state = ZB_GROUP_FAILED;
    progress_report(j->progress, j->g);
}

/* One unit has ended (run, skipped or stopped); the last one finishes
 * the group and leaves the flight. */
static void end_unit(unit *u)
{
    job *j = u->j;
    flight *f = j->flight;
    int last, entered;

    pthread_mutex_lock(&f->lock);
    if (u->rc < 0)
        j->failed = 1;
    last = --j->left == 0;
    pthread_mutex_unlock(&f->lock);
    if (!last)
        return;
    if (u->arena == NULL)
        (void)zb_arena_new(&u->arena, GROUP_ARENA_MAX); /* else fails */
    finish_job(j, u->arena);
    pthread_mutex_lock(&f->lock);
    entered = j->entered;
    j->entered = 0;
    if (entered)
        f->in_flight--;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

/*
 * Rewrites u's slice under res. A sort that needs to grow while every
 * holder of the budget waits gets ZB_ENOMEM: the unit then tries again
 * with half the input batch and half the sort memory (output batches
 * stay: the same files), reserving less, down to the sort's minimum.
 */
static int rewrite_unit(unit *u, zb_reservation *res)
{
    job *j = u->j;
    zb_compact_slice *sl = u->sl;
    int rc, tries = 0;

    for (;;) {
        rc = zb_compact__rewrite(sl, u->arena, j->io, &u->ctx, j->table,
                                 j->o, j->target, res);
        if (rc != ZB_ENOMEM || j->budget == NULL ||
            j->o->strategy == ZB_COMPACT_BINPACK || tries++ >= 4)
            return rc;
        {
            uint64_t sort = sl->sort_memory_bytes > 0
                                ? sl->sort_memory_bytes
                                : zb_compact__sort_memory(
                                      j->o, j->g, j->target,
                                      zb_compact__max_group_memory(
                                          j->o, j->budget));
            size_t rows = sl->in_batch_rows > 0
                              ? sl->in_batch_rows
                              : zb_compact__batch_rows(j->o, j->target,
                                                       j->g);
            uint64_t less = sort / 2 > ZB_COMPACT_SORT_MIN_BYTES
                                ? sort / 2 : ZB_COMPACT_SORT_MIN_BYTES;

            if (less == sort && rows <= 256)
                return rc;         /* as small as it gets */
            zb_log_warn(&u->ctx, "%s partition %s: the sort found no "
                        "memory (%s); again with %llu bytes of sort "
                        "memory", j->table->ident, j->g->partition,
                        u->ctx.err.msg, (unsigned long long)less);
            sl->est_memory_bytes -= sort - less;
            sl->sort_memory_bytes = less;
            sl->in_batch_rows = rows / 2 > 256 ? rows / 2 : 256;
        }
        zb_err_clear(&u->ctx.err);
        zb_budget_release(res);
        give_back_memory();
        if (zb_budget_reserve(res, j->budget, sl->est_memory_bytes,
                              u->ctx.stop) < 0)
            return zb_fail(&u->ctx, ZB_ECANCELED, "%s: stopped",
                           j->table->ident);
    }
}

static int run_unit(void *arg)
{
    unit *u = arg;
    job *j = u->j;
    zb_reservation res = ZB_RESERVATION_INIT;
    int failed;

    if (zb_ctx_stopped(&u->ctx) || !enter_flight(j))
        goto end;                  /* not started */
    pthread_mutex_lock(&j->flight->lock);
    failed = j->failed;
    pthread_mutex_unlock(&j->flight->lock);
    if (failed)
        goto end;                  /* its group failed already */
    /* Reserved before anything is read; a unit that does not fit
     * waits (one above the whole budget: until it is the only holder). */
    if (j->budget != NULL &&
        zb_budget_reserve(&res, j->budget, u->sl->est_memory_bytes,
                          u->ctx.stop) < 0)
        goto end;                  /* stopped while waiting */
    u->ran = 1;
    if (u->arena == NULL && zb_arena_new(&u->arena, GROUP_ARENA_MAX) < 0)
        u->rc = zb_fail_oom(&u->ctx);
    else
        u->rc = rewrite_unit(u, &res);
    give_back_memory();
    /* The files are written: the commit holds no row data. */
    zb_budget_release(&res);
end:
    end_unit(u);
    return ZB_OK;                  /* failures are read from the unit */
}

/* Worse of two rcs: EUNSAFE, then the first other failure. */
static int worse(int a, int b)
{
    if (a == ZB_EUNSAFE || b == ZB_EUNSAFE)
        return ZB_EUNSAFE;
    return a < 0 ? a : b;
}

/* Every unit's estimate against max_group_memory_bytes (0: no cap; the
 * budget admits a unit larger than itself alone). */
static int check_memory(const zb_compact_plan *p, zb_ctx *ctx,
                        const zb_compact_opts *o, const job *jobs)
{
    uint64_t max = o->max_group_memory_bytes;
    size_t i, k;

    for (i = 0; max > 0 && i < p->n_groups; i++)
        for (k = 0; k < jobs[i].n_slices; k++) {
            const zb_compact_slice *s = &jobs[i].slices[k];

            if (s->est_memory_bytes > max)
                return zb_fail(ctx, ZB_ENOMEM, "%s: compaction group %s "
                               "(%zu files, %llu bytes) needs %llu bytes "
                               "of memory, more than the %llu allowed; "
                               "nothing written", p->ident,
                               p->groups[i].partition, s->n,
                               (unsigned long long)s->bytes,
                               (unsigned long long)s->est_memory_bytes,
                               (unsigned long long)max);
        }
    return ZB_OK;
}

static void count(zb_compact_result *r, const zb_compact_group *g)
{
    switch (g->state) {
    case ZB_GROUP_COMMITTED:
        r->groups_committed++;
        r->files_removed += g->n_tasks;
        r->bytes_removed += g->bytes;
        r->files_added += g->out_files;
        r->bytes_added += g->out_bytes;
        r->rows_written += g->out_rows;
        r->groups_carried += g->carried_deletes > 0;
        r->carried_deletes += g->carried_deletes;
        r->carried_rows += g->carried_rows;
        break;
    case ZB_GROUP_DROPPED:
        r->groups_dropped++;
        break;
    case ZB_GROUP_FAILED:
        r->groups_failed++;
        break;
    default:
        break;
    }
}

/* Runs jobs[0..n) and commits the written ones. */
static int run_wave(job *jobs, size_t n, zb_pool *pool,
                    const zb_op_target *t, zb_ctx *ctx,
                    zb_compact_result *r, const zb_compact_opts *o,
                    const zb_compact_test_hooks *hooks)
{
    zb_compact_group **written = NULL;
    size_t i, k, n_written = 0;
    int stop_submit = 0;
    int64_t snap = -1;
    int rc = ZB_OK, crc;

    /* Group by group, slices in order (enter_flight counts on it). */
    for (i = 0; i < n && !stop_submit; i++)
        for (k = 0; k < jobs[i].n_slices; k++) {
            if (pool == NULL) {
                (void)run_unit(&jobs[i].units[k]);
            } else if (zb_pool_submit(pool, run_unit,
                                      &jobs[i].units[k]) < 0) {
                zb_err_clear(&ctx->err);
                stop_submit = 1;   /* stop raised: the rest never start */
                break;
            }
        }
    if (pool != NULL)
        (void)zb_pool_wait(pool);
    /* Groups whose units were never run (dropped on a stop). */
    for (i = 0; i < n; i++)
        if (!jobs[i].finished)
            finish_job(&jobs[i], NULL);   /* some never ran: no gathering */
    if ((written = zb_calloc(n + 1, sizeof *written)) == NULL)
        rc = zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        job *j = &jobs[i];

        if (!j->started && j->g->state == ZB_GROUP_PLANNED)
            r->stopped = 1;
        if (j->rc < 0) {
            if (rc == ZB_OK || j->rc == ZB_EUNSAFE)
                zb_err_copy(&ctx->err, &j->ctx.err);
            rc = worse(rc, j->rc);
        } else if (j->g->state == ZB_GROUP_WRITTEN && written != NULL) {
            written[n_written++] = j->g;
        }
    }
    if (written == NULL)
        return rc;
    if (n_written > 0 && hooks->before_commit != NULL)
        hooks->before_commit(hooks->payload);
    if (zb_ctx_stopped(ctx) && o->drain_timeout_ms <= 0) {
        for (i = 0; i < n_written; i++) {
            zb_compact__drop_outputs(written[i], t->io, ctx);
            written[i]->state = ZB_GROUP_DROPPED;
        }
        r->stopped = 1;
        n_written = 0;
    }
    if (n_written > 0) {
        zb_err saved;

        zb_err_copy(&saved, &ctx->err);
        crc = zb_compact__commit(written, n_written, t, ctx, &r->plan, o,
                                 &snap);
        if (crc == ZB_OK) {
            zb_err_copy(&ctx->err, &saved);
            if (snap >= 0) {
                r->commits++;
                r->snapshot_id = snap;
            }
        }
        rc = worse(rc, crc);
    }
    /* The wave is committed or dropped: its sorted maps' spill files go. */
    for (i = 0; i < n; i++) {
        zb_carry_sorted_free(jobs[i].g->carry_sorted);
        jobs[i].g->carry_sorted = NULL;
    }
    zb_free(written);
    return rc;
}

int zb_compact(const zb_op_target *t, zb_ctx *ctx, const zb_compact_opts *o,
               zb_compact_result *r)
{
    return zb_compact_test_run(t, ctx, o, NULL, r);
}

int zb_compact_test_run(const zb_op_target *t, zb_ctx *ctx,
                        const zb_compact_opts *o,
                        const zb_compact_test_hooks *hooks,
                        zb_compact_result *r)
{
    static const zb_compact_test_hooks no_hooks = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_opts dflt = ZB_COMPACT_OPTS_INIT;
    zb_table *table = NULL;
    zb_pool *pool = NULL;
    job *jobs = NULL;
    run_progress prog;
    flight fl;
    size_t i, wave, at, units = 0;
    int rc, threads, fl_made = 0;

    ZB_ASSERT_ARG(t && ctx && r);
    memset(r, 0, sizeof *r);
    memset(&prog, 0, sizeof prog);      /* prog.ctx set: lock made */
    memset(&fl, 0, sizeof fl);
    r->snapshot_id = -1;
    if (o == NULL)
        o = &dflt;
    if (hooks == NULL)
        hooks = &no_hooks;
    if ((rc = zb_compact_plan_table(&r->plan, &table, t, ctx, o)) < 0) {
        if (rc == ZB_ECANCELED && zb_ctx_stopped(ctx)) {
            /* A stop is no failure: nothing started. */
            zb_err_clear(&ctx->err);
            r->stopped = 1;
            return ZB_OK;
        }
        return rc;
    }
    {
        zb_compact_sort_field *sf = NULL;
        size_t n_sf;
        int32_t stamp;

        rc = zb_compact__sort_fields(&sf, &n_sf, &stamp, ctx, table->meta,
                                     o);
        zb_free(sf);
        if (rc < 0)
            goto done;
    }
    if (t->dry_run || r->plan.n_groups == 0)
        goto done;
    if ((jobs = zb_calloc(r->plan.n_groups, sizeof *jobs)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    pthread_mutex_init(&prog.lock, NULL);
    prog.ctx = ctx;
    pthread_mutex_init(&fl.lock, NULL);
    pthread_cond_init(&fl.cond, NULL);
    fl_made = 1;
    fl.max = o->max_concurrent > 0 ? o->max_concurrent : 1;
    for (i = 0; i < r->plan.n_groups; i++) {
        job *j = &jobs[i];
        size_t k;

        j->g = &r->plan.groups[i];
        zb_ctx_init(&j->ctx);
        j->ctx.log = ctx->log;
        j->ctx.metrics = ctx->metrics;
        j->ctx.stop = ctx->stop;
        j->budget = ctx->budget;
        j->table = table;
        j->io = t->io;
        j->o = o;
        j->hooks = hooks;
        j->target = r->plan.target_file_bytes;
        j->progress = &prog;
        j->flight = &fl;
        j->n_slices = zb_compact__slices(NULL, j->g, o, j->target);
        if ((j->slices = zb_calloc(j->n_slices, sizeof *j->slices)) ==
                NULL ||
            (j->units = zb_calloc(j->n_slices, sizeof *j->units)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        (void)zb_compact__slices(j->slices, j->g, o, j->target);
        j->left = j->n_slices;
        for (k = 0; k < j->n_slices; k++) {
            unit *u = &j->units[k];

            u->j = j;
            u->sl = &j->slices[k];
            zb_ctx_init(&u->ctx);
            u->ctx.log = ctx->log;
            u->ctx.metrics = ctx->metrics;
            u->ctx.stop = ctx->stop;
        }
        units += j->n_slices;
        prog.total[0]++;
        prog.total[1] += j->g->n_tasks;
        prog.total[2] += j->g->bytes;
    }
    if ((rc = check_memory(&r->plan, ctx, o, jobs)) < 0)
        goto done;
    progress_report(&prog, NULL);
    /* One pool for the run: threads, or max_concurrent when that is more
     * (callers from before threads existed set only max_concurrent). */
    threads = o->threads > o->max_concurrent ? o->threads : o->max_concurrent;
    if (threads > 256)
        threads = 256;
    if ((size_t)threads > units)
        threads = (int)units;
    if (threads > 1 &&
        (rc = zb_pool_new(&pool, ctx, (unsigned)threads, ctx->stop)) < 0)
        goto done;
    wave = r->plan.n_groups;
    if (o->partial_progress) {
        size_t commits = o->max_commits > 0 ? (size_t)o->max_commits : 10;

        wave = (r->plan.n_groups + commits - 1) / commits;
    }
    for (at = 0; at < r->plan.n_groups; at += wave) {
        size_t n = r->plan.n_groups - at < wave ? r->plan.n_groups - at
                                                : wave;
        int wrc = run_wave(jobs + at, n, pool, t, ctx, r, o, hooks);

        rc = worse(rc, wrc);
        if (wrc == ZB_ETIMEOUT || zb_ctx_stopped(ctx))
            break;
    }
    for (i = at + wave; i < r->plan.n_groups; i++)
        if (r->plan.groups[i].state == ZB_GROUP_PLANNED)
            r->stopped = 1;
done:
    for (i = 0; i < r->plan.n_groups; i++)
        count(r, &r->plan.groups[i]);
    zb_pool_free(pool);
    if (jobs != NULL)
        for (i = 0; i < r->plan.n_groups; i++) {
            size_t k;

            /* The outputs' records lived in the units' arenas. */
            r->plan.groups[i].outputs = NULL;
            /* Sorted position maps (issue 21): their spill files. */
            zb_carry_sorted_free(r->plan.groups[i].carry_sorted);
            r->plan.groups[i].carry_sorted = NULL;
            for (k = 0; jobs[i].slices != NULL && k < jobs[i].n_slices; k++)
                zb_carry_sorted_free(jobs[i].slices[k].carry_sorted);
            for (k = 0; jobs[i].units != NULL && k < jobs[i].n_slices; k++)
                zb_arena_free(jobs[i].units[k].arena);
            zb_free(jobs[i].units);
            zb_free(jobs[i].slices);
        }
    zb_free(jobs);
    if (fl_made) {
        pthread_mutex_destroy(&fl.lock);
        pthread_cond_destroy(&fl.cond);
    }
    zb_table_free(table);
    if (prog.ctx != NULL)
        pthread_mutex_destroy(&prog.lock);
    return rc;
}

void zb_compact_result_free(zb_compact_result *r)
{
    if (r == NULL)
        return;
    zb_compact_plan_free(&r->plan);
    memset(r, 0, sizeof *r);
}

/*
 * ops/compact/compact.c - a compaction run (ops/compact/compact.h): plan, check
 * the memory each group needs, rewrite the groups (on a thread pool when
 * max_concurrent > 1), commit, count.
 *
 * zb_compact: zb_compact_plan_table; refusals (sort options the table cannot
 * take); dry run ends here. Groups are then taken in waves: one wave of every
 * group without partial progress, else waves of ceil(groups / max_commits). In
 * a wave each group (a job) waits for its reservation of est_memory_bytes from
 * ctx->budget, rewrites with a ctx of its own (no budget: the reservation
 * covers it; the same log, metrics and stop flag) and releases the reservation
 * once its files are written. The wave's written groups are then committed as
 * one snapshot (compact_commit.c). A raised stop flag starts no new group;
 * written groups are committed when drain_timeout_ms > 0, else their files are
 * deleted. The run's rc is the worst of its groups': ZB_EUNSAFE first.
 * zb_compact is zb_compact_test_run without hooks
 * (ops/compact/compact_hooks.h): the hooks reach only the row count check and
 * the point before a commit.
 */
#define ZB_MODULE "compact"

#include <pthread.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "exec/pool.h"
#include "ops/compact/compact_int.h"
#include "ops/compact/compact_hooks.h"
#include "util/alloc.h"
#include "util/err.h"

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

typedef struct job {
    zb_compact_group *g;
    zb_ctx ctx;                    /* the group's own */
    zb_arena *arena;
    zb_budget *budget;
    const zb_table *table;
    zb_io *io;
    const zb_compact_opts *o;
    const zb_compact_test_hooks *hooks;  /* never NULL */
    int64_t target;
    int rc;
    int started;
    run_progress *progress;
} job;

/*
 * A group's buffers (the writer's row group, the reader's, the sort's)
 * are freed when it ends, but an allocator that keeps freed blocks (the
 * CLI's, zb_alloc_tune_process) keeps them in the arena of the pool
 * thread that ran the group: the process would hold a group's peak per
 * thread, outside the budget. They go back to the system before the
 * reservation does.
 */
static void give_back_memory(void)
{
#if defined(__GLIBC__)
    (void)malloc_trim(0);
#endif
}

static int run_job(void *arg)
{
    job *j = arg;
    zb_reservation res = ZB_RESERVATION_INIT;
    int rc;

    if (zb_ctx_stopped(&j->ctx))
        return ZB_OK;              /* not started: stays PLANNED */
    j->started = 1;
    if (j->budget != NULL &&
        (rc = zb_budget_reserve(&res, j->budget, j->g->est_memory_bytes,
                                j->ctx.stop)) < 0) {
        j->started = 0;            /* stopped while waiting */
        return ZB_OK;
    }
    if ((rc = zb_arena_new(&j->arena, GROUP_ARENA_MAX)) < 0)
        rc = zb_fail_oom(&j->ctx);
    else
        rc = zb_compact__rewrite(j->g, j->arena, j->io, &j->ctx, j->table,
                                 j->o, j->target, j->hooks->row_skew, &res);
    give_back_memory();
    zb_budget_release(&res);
    j->rc = rc;
    if (rc < 0)
        j->g->state = ZB_GROUP_FAILED;
    progress_report(j->progress, j->g);
    return ZB_OK;                  /* failures are read from the job */
}

/* Worse of two rcs: EUNSAFE, then the first other failure. */
static int worse(int a, int b)
{
    if (a == ZB_EUNSAFE || b == ZB_EUNSAFE)
        return ZB_EUNSAFE;
    return a < 0 ? a : b;
}

static int check_memory(const zb_compact_plan *p, zb_ctx *ctx,
                        const zb_compact_opts *o)
{
    uint64_t max = o->max_group_memory_bytes;
    size_t i;

    if (max == 0 && ctx->budget != NULL)
        max = zb_budget_limit_bytes(ctx->budget);
    for (i = 0; max > 0 && i < p->n_groups; i++)
        if (p->groups[i].est_memory_bytes > max)
            return zb_fail(ctx, ZB_ENOMEM, "%s: compaction group %s (%zu "
                           "files, %llu bytes) needs %llu bytes of memory, "
                           "more than the %llu allowed; nothing written",
                           p->ident, p->groups[i].partition,
                           p->groups[i].n_tasks,
                           (unsigned long long)p->groups[i].bytes,
                           (unsigned long long)p->groups[i].est_memory_bytes,
                           (unsigned long long)max);
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
    size_t i, n_written = 0;
    int64_t snap = -1;
    int rc = ZB_OK, crc;

    for (i = 0; i < n; i++) {
        if (pool == NULL) {
            (void)run_job(&jobs[i]);
        } else if (zb_pool_submit(pool, run_job, &jobs[i]) < 0) {
            zb_err_clear(&ctx->err);
            break;                 /* stop raised: the rest never start */
        }
    }
    if (pool != NULL)
        (void)zb_pool_wait(pool);
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
    size_t i, wave, at;
    int rc;

    ZB_ASSERT_ARG(t && ctx && r);
    memset(r, 0, sizeof *r);
    memset(&prog, 0, sizeof prog);      /* prog.ctx set: lock made */
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
    if ((rc = check_memory(&r->plan, ctx, o)) < 0)
        goto done;
    if ((jobs = zb_calloc(r->plan.n_groups, sizeof *jobs)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    pthread_mutex_init(&prog.lock, NULL);
    prog.ctx = ctx;
    for (i = 0; i < r->plan.n_groups; i++) {
        job *j = &jobs[i];

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
        prog.total[0]++;
        prog.total[1] += j->g->n_tasks;
        prog.total[2] += j->g->bytes;
    }
    progress_report(&prog, NULL);
    if (o->max_concurrent > 1 && r->plan.n_groups > 1 &&
        (rc = zb_pool_new(&pool, ctx,
                          (unsigned)(o->max_concurrent > 256
                                         ? 256 : o->max_concurrent),
                          ctx->stop)) < 0)
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
            /* The outputs' records lived in the group's arena. */
            r->plan.groups[i].outputs = NULL;
            zb_arena_free(jobs[i].arena);
        }
    zb_free(jobs);
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

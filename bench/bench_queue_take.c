/*
 * bench_queue_take - a library-level figure for the task queue (issue 17):
 * P worker processes (fork; each its own zb_sqldb, as each `zamboni
 * worker` has) take and finish tasks with no work in between
 * (zb_queue_take + zb_queue_finish success) until none is due. Prints the
 * take+complete throughput over the wall time and the connections each
 * process opened (zb_sqldb_stats_get). Not the product figure: that is
 * bench/queue_throughput.sh's real `zamboni worker` run.
 *
 * Usage: bench_queue_take URL TASKS PROCS
 *   URL   postgresql://... or sqlite:PATH (a new database: migrated here)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "service/queue/queue.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_db(zb_sqldb **db, zb_ctx *ctx, const char *url)
{
    zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;

    if (strncmp(url, "sqlite:", 7) == 0)
        cfg.sqlite_path = url + 7;
    else
        cfg.pg_write_url = url;
    return zb_sqldb_open(db, ctx, &cfg);
}

static int fail(const char *what, const zb_ctx *ctx)
{
    fprintf(stderr, "bench_queue_take: %s: %s\n", what, ctx->err.msg);
    return 1;
}

static int enqueue_all(const char *url, int tasks)
{
    zb_sqldb *db = NULL;
    zb_queue *q = NULL;
    zb_ctx ctx;
    char table[64];
    int i, inserted, from, to;
    int64_t id;

    zb_ctx_init(&ctx);
    if (open_db(&db, &ctx, url) < 0)
        return fail("open", &ctx);
    if (zb_queue_migrate(db, &ctx, &from, &to) < 0 ||
        zb_queue_open(&q, &ctx, db) < 0) {
        zb_sqldb_close(db);
        return fail("migrate", &ctx);
    }
    for (i = 0; i < tasks; i++) {
        zb_task_new t;
        memset(&t, 0, sizeof t);
        snprintf(table, sizeof table, "bench.t%d", i);
        t.warehouse = "w";
        t.table = table;
        t.operation = "compact";
        t.size_class = "standard";
        if (zb_queue_enqueue(q, &ctx, &t, 0, &inserted, &id) < 0) {
            zb_queue_close(q);
            zb_sqldb_close(db);
            return fail("enqueue", &ctx);
        }
    }
    zb_queue_close(q);
    zb_sqldb_close(db);
    return 0;
}

/* One worker process: take + finish until nothing is due. */
static int worker(const char *url, int n)
{
    zb_sqldb *db = NULL;
    zb_queue *q = NULL;
    zb_sqldb_stats st;
    zb_ctx ctx;
    zb_take_opts o;
    char wid[64];
    long done = 0;
    int got = 1;

    zb_ctx_init(&ctx);
    snprintf(wid, sizeof wid, "bench-%d-%d", (int)getpid(), n);
    o.worker_id = wid;
    o.size_class = "standard";
    o.lease_ms = 60000;
    if (open_db(&db, &ctx, url) < 0 || zb_queue_open(&q, &ctx, db) < 0)
        return fail("open", &ctx);
    while (got) {
        zb_task t;
        if (zb_queue_take(q, &ctx, &o, &t, &got) < 0)
            return fail("take", &ctx);
        if (got) {
            zb_attempt_result r;
            memset(&r, 0, sizeof r);
            r.outcome = ZB_OUTCOME_SUCCESS;
            if (zb_queue_finish(q, &ctx, &t, &r) < 0)
                return fail("finish", &ctx);
            done++;
        }
    }
    zb_sqldb_stats_get(db, &st);
    printf("worker %d: %ld tasks, connections opened: %" PRIu64
           " write, %" PRIu64 " read\n", n, done, st.write_connects,
           st.read_connects);
    fflush(stdout);
    zb_queue_close(q);
    zb_sqldb_close(db);
    return 0;
}

int main(int argc, char **argv)
{
    int tasks, procs, i, status, failed = 0;
    double t0, secs;

    if (argc != 4 || (tasks = atoi(argv[2])) <= 0 ||
        (procs = atoi(argv[3])) <= 0 || procs > 256) {
        fputs("usage: bench_queue_take URL TASKS PROCS\n", stderr);
        return 2;
    }
    if (enqueue_all(argv[1], tasks) != 0)
        return 1;
    printf("bench_queue_take (library level: zb_queue_take + zb_queue_finish,"
           " no work): %d tasks, %d processes\n", tasks, procs);
    fflush(stdout);
    t0 = now();
    for (i = 0; i < procs; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(worker(argv[1], i));
        if (p < 0) {
            perror("fork");
            return 1;
        }
    }
    for (i = 0; i < procs; i++)
        if (wait(&status) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            failed++;
    secs = now() - t0;
    printf("take+complete: %d tasks in %.3f s: %.0f tasks/s (goal >= 500)\n",
           tasks, secs, tasks / secs);
    return failed ? 1 : 0;
}

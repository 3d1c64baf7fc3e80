/*
 * tests/cli/maintenance_parallel_test.c - the runner of `maintenance
 * --parallel N` (src/cli/verbs/maintenance_parallel.c): every k worked
 * once and done in order of k in the calling thread; with N > 1 work runs
 * at once (k = 0 waits for k = 1 to start: without threads it would time
 * out, not hang); with N = 1 done(k) comes before work(k + 1); a raised
 * stop or a done that returns non-zero starts no new k, and every k started
 * gets its done; a captured table's stdout and stderr come back
 * interleaved as written.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/verbs/maintenance_parallel.h"
#include "zbtest.h"

#define N_TABLES 40

typedef struct trace {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t caller;
    int worked[N_TABLES];
    int done_order[N_TABLES];
    size_t n_done;
    int started_1;                 /* k = 1 has started */
    int waited_ok;                 /* k = 0 saw k = 1 start */
    int done_in_caller;
    int done_before_next;          /* N = 1: done(k) before work(k + 1) */
    size_t stop_at;                /* raise stop in work(stop_at) */
    size_t halt_at;                /* done(halt_at) returns 1 */
    atomic_int stop;
    int wait_for_1;
} trace;

static void trace_init(trace *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    t->caller = pthread_self();
    t->done_in_caller = 1;
    t->done_before_next = 1;
    t->stop_at = t->halt_at = (size_t)-1;
}

static void trace_free(trace *t)
{
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->cond);
}

static void work(size_t k, void *payload)
{
    trace *t = payload;

    pthread_mutex_lock(&t->lock);
    t->worked[k]++;
    if (k > 0 && t->n_done < k)
        t->done_before_next = 0;
    if (k == 1) {
        t->started_1 = 1;
        pthread_cond_broadcast(&t->cond);
    }
    if (k == 0 && t->wait_for_1) {
        struct timespec until;

        /* a watchdog, not a timing: one thread would wait it out */
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        while (!t->started_1 &&
               pthread_cond_timedwait(&t->cond, &t->lock, &until) == 0) {
        }
        t->waited_ok = t->started_1;
    }
    if (k == t->stop_at)
        atomic_store(&t->stop, 1);
    pthread_mutex_unlock(&t->lock);
}

static int done(size_t k, void *payload)
{
    trace *t = payload;

    if (!pthread_equal(pthread_self(), t->caller))
        t->done_in_caller = 0;
    pthread_mutex_lock(&t->lock);
    t->done_order[t->n_done++] = (int)k;
    pthread_mutex_unlock(&t->lock);
    return k == t->halt_at;
}

/* done(0..n-1) in order, each k worked once; none after. */
static void check_prefix(const trace *t, size_t n)
{
    size_t k;

    ZBT_EQ_U64(t->n_done, n);
    for (k = 0; k < n; k++) {
        ZBT_EQ_INT(t->done_order[k], (int)k);
        ZBT_EQ_INT(t->worked[k], 1);
    }
    for (k = n; k < N_TABLES; k++)
        ZBT_EQ_INT(t->worked[k], 0);
    ZBT_CHECK(t->done_in_caller);
}

static void test_cli_parallel__all_in_order(void)
{
    int n;

    for (n = 1; n <= 8; n *= 2) {
        trace t;

        trace_init(&t);
        ZBT_EQ_U64(zb_cli_parallel_run(N_TABLES, n, &t.stop, work, done,
                                         &t),
                   N_TABLES);
        check_prefix(&t, N_TABLES);
        if (n == 1)
            ZBT_CHECK(t.done_before_next);
        trace_free(&t);
    }
}

static void test_cli_parallel__overlap(void)
{
    trace t;

    trace_init(&t);
    t.wait_for_1 = 1;
    ZBT_EQ_U64(zb_cli_parallel_run(N_TABLES, 2, NULL, work, done, &t),
               N_TABLES);
    ZBT_CHECK(t.waited_ok);
    check_prefix(&t, N_TABLES);
    trace_free(&t);
}

static void test_cli_parallel__stop(void)
{
    int n;

    for (n = 1; n <= 4; n++) {
        trace t;
        size_t first;

        trace_init(&t);
        t.stop_at = 5;
        first = zb_cli_parallel_run(N_TABLES, n, &t.stop, work, done, &t);
        /* the k running when the stop came finish; nothing starts after */
        if (n == 1)
            ZBT_EQ_U64(first, 6);
        ZBT_CHECK(first >= 6 && first < N_TABLES);
        check_prefix(&t, first);
        trace_free(&t);
    }
    {
        trace t;

        trace_init(&t);
        atomic_store(&t.stop, 1);
        ZBT_EQ_U64(zb_cli_parallel_run(N_TABLES, 3, &t.stop, work, done,
                                         &t),
                   0);
        check_prefix(&t, 0);
        trace_free(&t);
    }
}

static void test_cli_parallel__done_halts(void)
{
    int n;

    for (n = 1; n <= 4; n++) {
        trace t;
        size_t first;

        trace_init(&t);
        t.halt_at = 3;
        first = zb_cli_parallel_run(N_TABLES, n, NULL, work, done, &t);
        if (n == 1)
            ZBT_EQ_U64(first, 4);
        ZBT_CHECK(first >= 4);
        check_prefix(&t, first);
        trace_free(&t);
    }
}

/* Everything written to f, as a string (malloc'd). */
static char *contents(FILE *f)
{
    long n;
    char *s;

    fflush(f);
    n = ftell(f);
    ZBT_CHECK(n >= 0);
    s = malloc((size_t)n + 1);
    ZBT_CHECK(s != NULL);
    rewind(f);
    ZBT_CHECK(fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = '\0';
    return s;
}

static void test_cli_parallel__capture(void)
{
    zb_cli_table_out o;
    FILE *out = tmpfile(), *err = tmpfile(), *both = tmpfile();
    char *a, *b, *c;

    ZBT_CHECK(out != NULL && err != NULL && both != NULL);
    ZBT_EQ_INT(zb_cli_table_out_open(&o, 1), 0);
    fprintf(o.out, "\nns.t\n  compact: done\n");
    fprintf(o.err, "  expire: failed (exit %d)\n", 1);
    fprintf(o.out, "  remove-orphans: %s\n", "scanned 3");
    fprintf(o.err, "  %s\n", "last");
    zb_cli_table_out_replay(&o, out, err);
    a = contents(out);
    b = contents(err);
    ZBT_EQ_STR(a, "\nns.t\n  compact: done\n  remove-orphans: scanned 3\n");
    ZBT_EQ_STR(b, "  expire: failed (exit 1)\n  last\n");
    /* one stream for both: the order as written */
    zb_cli_table_out_replay(&o, both, both);
    c = contents(both);
    ZBT_EQ_STR(c, "\nns.t\n  compact: done\n  expire: failed (exit 1)\n"
                  "  remove-orphans: scanned 3\n  last\n");
    zb_cli_table_out_close(&o);
    free(a);
    free(b);
    free(c);
    /* not captured: the process's streams, and replay writes nothing */
    ZBT_EQ_INT(zb_cli_table_out_open(&o, 0), 0);
    ZBT_CHECK(o.out == stdout && o.err == stderr);
    zb_cli_table_out_replay(&o, both, both);
    ZBT_CHECK(ftell(both) == (long)strlen("\nns.t\n  compact: done\n  expire: "
                                          "failed (exit 1)\n  remove-orphans:"
                                          " scanned 3\n  last\n"));
    zb_cli_table_out_close(&o);
    fclose(out);
    fclose(err);
    fclose(both);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_cli_parallel__all_in_order),
    ZBT_CASE(test_cli_parallel__overlap),
    ZBT_CASE(test_cli_parallel__stop),
    ZBT_CASE(test_cli_parallel__done_halts),
    ZBT_CASE(test_cli_parallel__capture),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

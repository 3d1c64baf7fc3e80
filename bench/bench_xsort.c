/*
 * bench_xsort - the external sort on its own: rows of (long, string of
 * 15..25 letters, double), generated batch by batch (65,536 rows), sorted
 * by (string, long) under a byte budget.
 *
 *   bench_xsort [ROWS] [BUDGET_MIB ...]     default 10000000 64 1024
 *
 * Each budget runs 3 times, each run in a child process of its own so
 * that peak RSS (getrusage) belongs to that run alone. Printed per budget,
 * medians: rows/s of the sort calls (add, finish, next; generating the
 * input is not timed) by the clock and per CPU-second (the sort runs on
 * one thread; the second figure holds on a loaded machine), bytes
 * spilled, runs, merge passes, peak bytes reserved, peak bytes allocated
 * (zb_alloc_live_bytes sampled after each call), peak RSS. Every run
 * checks that its output is in order and complete.
 * BENCH_XSORT_NO_TUNE=1 skips zb_alloc_tune_process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/sort/xsort.h"
#include "zamboni/budget.h"
#include "util/alloc.h"

#define RUNS 3
#define BATCH 65536

typedef struct result {
    double rows_per_s, rows_per_cpu_s;
    double spilled, runs, passes, peak_reserved, rss, peak_live;
} result;

static uint64_t peak_live;

static void sample_live(void)
{
    uint64_t l = zb_alloc_live_bytes();

    if (l > peak_live)
        peak_live = l;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int schema_init(struct ArrowSchema *s)
{
    if (zb_arrow_schema_init(s, "+s", NULL, NULL, 0, 0, 3) != 0 ||
        zb_arrow_schema_init(s->children[0], "l", "id", NULL, 0, 0, 0) ||
        zb_arrow_schema_init(s->children[1], "u", "name", NULL, 0, 0, 0) ||
        zb_arrow_schema_init(s->children[2], "g", "value", NULL, 0, 0, 0))
        return -1;
    return 0;
}

static int make_batch(struct ArrowArray *a, size_t n, uint64_t *rs)
{
    int64_t *ids = zb_malloc(n * 8);
    double *vals = zb_malloc(n * 8);
    int32_t *offs = zb_malloc((n + 1) * 4);
    char *data = zb_malloc(n * 25);
    size_t i, j, at = 0;

    if (!ids || !vals || !offs || !data ||
        zb_arrow_array_init(a, 1, 3) != 0 ||
        zb_arrow_array_init(a->children[0], 2, 0) != 0 ||
        zb_arrow_array_init(a->children[1], 3, 0) != 0 ||
        zb_arrow_array_init(a->children[2], 2, 0) != 0)
        return -1;
    for (i = 0; i < n; i++) {
        uint64_t r = rnd(rs), r2 = rnd(rs);
        size_t len = 15 + r % 11;
        ids[i] = (int64_t)(r2 >> 1) % 1000000;
        vals[i] = (double)(r >> 11) / 9007199254740992.0;
        offs[i] = (int32_t)at;
        for (j = 0; j < len; j++) {
            if (j % 6 == 0)
                r2 = rnd(rs);
            data[at++] = (char)('a' + (r2 >> (8 * (j % 6))) % 26);
        }
    }
    offs[n] = (int32_t)at;
    a->length = (int64_t)n;
    a->children[0]->length = (int64_t)n;
    a->children[0]->buffers[1] = ids;
    a->children[1]->length = (int64_t)n;
    a->children[1]->buffers[1] = offs;
    a->children[1]->buffers[2] = data;
    a->children[2]->length = (int64_t)n;
    a->children[2]->buffers[1] = vals;
    return 0;
}

/* One run in this process; returns 0 when the output was right. */
static int run(result *res, uint64_t rows, uint64_t budget_bytes)
{
    static const zb_sort_col cols[2] = { { { 1 }, 1, 0, 0 },
                                         { { 0 }, 1, 0, 0 } };
    zb_xsort_opts opts = ZB_XSORT_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray a, out;
    zb_budget *b = NULL;
    zb_xsort *xs = NULL;
    zb_xsort_stats st;
    zb_ctx ctx;
    uint64_t rs = 12345, done = 0, seen = 0;
    char prev[32] = "";
    size_t prev_len = 0;
    int64_t prev_id = -1, i;
    double t = 0, t0, cpu = 0, c0;
    struct rusage ru;

    zb_ctx_init(&ctx);
    if (schema_init(&s) != 0 || zb_budget_new(&b, budget_bytes, NULL) != 0)
        return -1;
    ctx.budget = b;
    opts.key.cols = cols;
    opts.key.ncols = 2;
    if (zb_xsort_new(&xs, &ctx, &s, &opts) != 0)
        goto fail;
    while (done < rows) {
        size_t n = rows - done < BATCH ? (size_t)(rows - done) : BATCH;
        if (make_batch(&a, n, &rs) != 0)
            goto fail;
        t0 = now();
        c0 = cpu_now();
        if (zb_xsort_add(xs, &ctx, &a) != 0)
            goto fail;
        t += now() - t0;
        cpu += cpu_now() - c0;
        sample_live();
        done += n;
    }
    t0 = now();
    c0 = cpu_now();
    if (zb_xsort_finish(xs, &ctx) != 0)
        goto fail;
    for (;;) {
        if (zb_xsort_next(&out, xs, &ctx) != 0)
            goto fail;
        if (out.release == NULL)
            break;
        sample_live();
        {
            const int32_t *o = out.children[1]->buffers[1];
            const char *d = out.children[1]->buffers[2];
            const int64_t *ids = out.children[0]->buffers[1];
            for (i = 0; i < out.length; i++) {
                size_t len = (size_t)(o[i + 1] - o[i]), m;
                int c;
                m = len < prev_len ? len : prev_len;
                c = memcmp(d + o[i], prev, m);
                if (c == 0)
                    c = (len > prev_len) - (len < prev_len);
                if (seen > 0 && (c < 0 || (c == 0 && ids[i] < prev_id))) {
                    fprintf(stderr, "bench_xsort: row %llu out of order\n",
                            (unsigned long long)seen);
                    return -1;
                }
                memcpy(prev, d + o[i], len);
                prev_len = len;
                prev_id = ids[i];
                seen++;
            }
        }
        zb_arrow_array_release(&out);
    }
    t += now() - t0;
    cpu += cpu_now() - c0;
    if (seen != rows) {
        fprintf(stderr, "bench_xsort: %llu rows out of %llu\n",
                (unsigned long long)seen, (unsigned long long)rows);
        return -1;
    }
    zb_xsort_stats_get(&st, xs);
    zb_xsort_free(xs);
    zb_budget_free(b);
    zb_arrow_schema_release(&s);
    getrusage(RUSAGE_SELF, &ru);
    res->rows_per_s = (double)rows / t;
    res->rows_per_cpu_s = (double)rows / cpu;
    res->spilled = (double)st.bytes_spilled;
    res->runs = (double)st.runs;
    res->passes = (double)st.merge_passes;
    res->peak_reserved = (double)st.peak_reserved_bytes;
    res->rss = (double)ru.ru_maxrss * 1024.0;
    res->peak_live = (double)peak_live;
    return 0;
fail:
    fprintf(stderr, "bench_xsort: %s\n", ctx.err.msg);
    return -1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

static double med(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp_double);
    return v[RUNS / 2];
}

int main(int argc, char **argv)
{
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    uint64_t budgets[8] = { 64, 1024 };
    int nb = 2, i, k;

    if (getenv("BENCH_XSORT_NO_TUNE") == NULL)
        zb_alloc_tune_process();
    if (argc > 2)
        for (nb = 0; nb < 8 && nb + 2 < argc; nb++)
            budgets[nb] = strtoull(argv[nb + 2], NULL, 10);
    printf("bench_xsort: %llu rows (long, string 15-25 B, double) by "
           "(string, long), medians of %d\n", (unsigned long long)rows, RUNS);
    for (i = 0; i < nb; i++) {
        double v[8][RUNS];
        for (k = 0; k < RUNS; k++) {
            int fd[2], status;
            result r;
            pid_t pid;
            if (pipe(fd) != 0 || (pid = fork()) < 0)
                return 1;
            if (pid == 0) {
                close(fd[0]);
                if (run(&r, rows, budgets[i] << 20) != 0)
                    _exit(1);
                if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r)
                    _exit(1);
                _exit(0);
            }
            close(fd[1]);
            if (read(fd[0], &r, sizeof r) != (ssize_t)sizeof r ||
                waitpid(pid, &status, 0) < 0 || status != 0) {
                fprintf(stderr, "bench_xsort: run failed\n");
                return 1;
            }
            close(fd[0]);
            v[0][k] = r.rows_per_s;
            v[1][k] = r.spilled;
            v[2][k] = r.runs;
            v[3][k] = r.passes;
            v[4][k] = r.peak_reserved;
            v[5][k] = r.rss;
            v[6][k] = r.peak_live;
            v[7][k] = r.rows_per_cpu_s;
        }
        printf("budget %5llu MiB: %9.0f rows/s (%9.0f per CPU-second)  "
               "spilled %7.1f MiB  runs "
               "%4.0f  merge passes %.0f  peak reserved %6.1f MiB  peak "
               "allocated %6.1f MiB  peak RSS %6.1f MiB\n",
               (unsigned long long)budgets[i], med(v[0]), med(v[7]),
               med(v[1]) / 1048576, med(v[2]), med(v[3]),
               med(v[4]) / 1048576, med(v[6]) / 1048576,
               med(v[5]) / 1048576);
    }
    return 0;
}

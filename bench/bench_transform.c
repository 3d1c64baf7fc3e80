/*
 * bench_transform - throughput of the hot per-row partition transforms:
 * bucket[16] of longs and strings, day of timestamps, truncate[4] of
 * strings. Prints the median of 7 runs of 2M values, in Mvalues/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "table/value/transform.h"

#define N 2000000
#define RUNS 7

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double run(const char *spec, ice_value (*make)(uint64_t, char *))
{
    double t[RUNS];
    ice_transform tr;
    zb_ctx ctx;
    char scratch[32];
    uint64_t sink = 0;
    int r;

    zb_ctx_init(&ctx);
    if (ice_transform_parse(&tr, &ctx, spec) < 0) {
        fprintf(stderr, "%s\n", ctx.err.msg);
        exit(1);
    }
    for (r = 0; r < RUNS; r++) {
        double t0 = now_s();
        uint64_t i;

        for (i = 0; i < N; i++) {
            ice_value in = make(i, scratch), out;

            if (ice_transform_apply(&out, &ctx, &tr, &in) < 0)
                exit(1);
            sink += (uint64_t)out.u.l;
        }
        t[r] = now_s() - t0;
    }
    qsort(t, RUNS, sizeof t[0], cmp_d);
    if (sink == 42)
        printf(" ");
    return N / t[RUNS / 2] / 1e6;
}

static ice_value mk_long(uint64_t i, char *s)
{
    (void)s;
    return ice_value_long((int64_t)(i * 2654435761u));
}

static ice_value mk_ts(uint64_t i, char *s)
{
    (void)s;
    return ice_value_time(ICE_TIMESTAMPTZ, (int64_t)(i * 1234567891ull) -
                                               (int64_t)1e15);
}

static ice_value mk_str(uint64_t i, char *s)
{
    int n = snprintf(s, 32, "user-%llu-x", (unsigned long long)i);

    return ice_value_string(s, (size_t)n);
}

int main(void)
{
    printf("bucket[16] long      %.1f Mvalues/s\n", run("bucket[16]", mk_long));
    printf("bucket[16] string    %.1f Mvalues/s\n", run("bucket[16]", mk_str));
    printf("day timestamptz      %.1f Mvalues/s\n", run("day", mk_ts));
    printf("month timestamptz    %.1f Mvalues/s\n", run("month", mk_ts));
    printf("truncate[4] string   %.1f Mvalues/s\n", run("truncate[4]", mk_str));
    return 0;
}

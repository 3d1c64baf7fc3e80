/*
 * bench_budget - cost of the memory budget on its hot path.
 *
 * Prints the median over 5 runs of: an uncontended reserve + release pair,
 * and the throughput of 2 and 8 threads reserving and releasing against a
 * budget small enough that they queue.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "zamboni/budget.h"

#define RUNS 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp_double);
    return v[RUNS / 2];
}

typedef struct arg {
    zb_budget *b;
    long iters;
} arg;

static void *worker(void *p)
{
    arg *a = p;
    long i;

    for (i = 0; i < a->iters; i++) {
        zb_reservation r = ZB_RESERVATION_INIT;
        zb_budget_reserve(&r, a->b, 300 + (uint64_t)(i % 400), NULL);
        zb_budget_release(&r);
    }
    return NULL;
}

static double contended(int threads, long iters)
{
    pthread_t t[16];
    arg a;
    zb_budget *b = NULL;
    double start;
    int i;

    zb_budget_new(&b, 1000, NULL);
    a.b = b;
    a.iters = iters;
    start = now();
    for (i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, &a);
    for (i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    start = now() - start;
    zb_budget_free(b);
    return (double)(threads * iters) / start;
}

int main(void)
{
    const long iters = 2000000;
    double single[RUNS], two[RUNS], eight[RUNS];
    int run;

    for (run = 0; run < RUNS; run++) {
        zb_budget *b = NULL;
        double start;
        long i;

        zb_budget_new(&b, UINT64_C(3) << 30, NULL);
        start = now();
        for (i = 0; i < iters; i++) {
            zb_reservation r = ZB_RESERVATION_INIT;
            zb_budget_reserve(&r, b, 1 << 20, NULL);
            zb_budget_release(&r);
        }
        single[run] = (now() - start) / (double)iters * 1e9;
        zb_budget_free(b);
        two[run] = contended(2, 200000);
        eight[run] = contended(8, 50000);
    }
    printf("budget uncontended reserve+release: %.0f ns (median of %d)\n",
           median(single), RUNS);
    printf("budget 2 threads, queueing:  %.0f reserve+release/s\n",
           median(two));
    printf("budget 8 threads, queueing:  %.0f reserve+release/s\n",
           median(eight));
    return 0;
}

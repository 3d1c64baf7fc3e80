/*
 * bench_parquet_read - decode throughput of the Parquet reader.
 *
 * Usage: bench_parquet_read [--threads N] [--runs R] FILE...
 * Each thread takes files from a shared counter and decodes every column
 * of every row into Arrow batches (65,536 rows each). Prints the median of
 * R runs (default 3) as rows/s and MB/s of input file bytes, and the CPU
 * time (steadier than wall time on a shared machine), in the same
 * form as bench/duckdb_read.mjs, so bench/parquet_read.sh can set the two
 * side by side.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "format/parquet/parquet.h"
#include "io/io.h"
#include "util/alloc.h"

typedef struct shared {
    char **files;
    int n_files;
    atomic_int next;
    atomic_llong rows;
    atomic_int failed;
} shared;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *p)
{
    shared *s = p;
    zb_io *io = NULL;
    zb_ctx ctx;
    int i;

    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0) {
        atomic_store(&s->failed, 1);
        return NULL;
    }
    while ((i = atomic_fetch_add(&s->next, 1)) < s->n_files) {
        pq_reader *r = NULL;
        struct ArrowArray b;
        int rc;
        if (pq_reader_open(&r, io, &ctx, s->files[i], NULL) < 0) {
            fprintf(stderr, "%s\n", ctx.err.msg);
            atomic_store(&s->failed, 1);
            break;
        }
        while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
            atomic_fetch_add(&s->rows, b.length);
            b.release(&b);
        }
        if (rc < 0) {
            fprintf(stderr, "%s\n", ctx.err.msg);
            atomic_store(&s->failed, 1);
        }
        pq_reader_free(r);
    }
    zb_io_free(io);
    return NULL;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int threads = 1, runs = 3, i, run;
    shared s;
    double secs[16], cpu[16];
    long long bytes = 0, rows = 0;
    pthread_t t[64];

    zb_alloc_tune_process();
    memset(&s, 0, sizeof s);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
    }
    if (i == argc || threads < 1 || threads > 64 || runs < 1 || runs > 16) {
        fprintf(stderr, "usage: bench_parquet_read [--threads N] [--runs R] "
                        "FILE...\n");
        return 2;
    }
    s.files = argv + i;
    s.n_files = argc - i;
    for (i = 0; i < s.n_files; i++) {
        struct stat st;
        if (stat(s.files[i], &st) == 0)
            bytes += st.st_size;
    }
    for (run = 0; run < runs; run++) {
        double t0 = now(), c0 = cpu_now();
        atomic_store(&s.next, 0);
        atomic_store(&s.rows, 0);
        for (i = 0; i < threads; i++)
            pthread_create(&t[i], NULL, worker, &s);
        for (i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        secs[run] = now() - t0;
        cpu[run] = cpu_now() - c0;
        rows = atomic_load(&s.rows);
        if (atomic_load(&s.failed))
            return 1;
    }
    qsort(secs, (size_t)runs, sizeof *secs, cmp_double);
    qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
    printf("zamboni  threads=%d files=%d rows=%lld: %.0f rows/s, %.1f MB/s "
           "(median of %d: %.3f s wall, %.3f s cpu: %.0f rows per cpu-s)\n",
           threads, s.n_files, rows, (double)rows / secs[runs / 2],
           (double)bytes / 1e6 / secs[runs / 2], runs, secs[runs / 2],
           cpu[runs / 2], (double)rows / cpu[runs / 2]);
    return 0;
}

/*
 * bench_parquet_write_threads - library-level micro-benchmark of the
 * Parquet writer's threads (pq_writer_opts.threads), not of the zamboni
 * executable: the same in-memory batches encoded and compressed (zstd
 * level 3, the default options) into one file with 1 and with 2 threads,
 * alternating, RUNS times each. Prints the median wall and CPU seconds
 * and rows/s per thread count (the wall also up to the last batch, before
 * close's last row group, footer and fsync), the speedup, and whether the
 * files are byte-identical (they must be).
 *
 * Usage: bench_parquet_write_threads [--rows N] [--runs R] [OUT_DIR]
 * Default 2,000,000 rows (about 90 MB of values: two int64 columns, a
 * double, a flag, a 40-value string and a 24-byte random string) in
 * batches of 65,536 rows, 3 runs, OUT_DIR the temp folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/parquet/parquet_write.h"
#include "io/io.h"

#define NCOLS 6
#define BATCH 65536
#define MAX_RUNS 9

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void noop_schema(struct ArrowSchema *x) { x->release = NULL; }
static void noop_array(struct ArrowArray *x) { x->release = NULL; }

typedef struct data {
    int64_t rows;
    int64_t *user_id, *ts;
    double *amount;
    uint8_t *flag;
    int32_t *country_off, *payload_off;
    char *country, *payload;
    struct ArrowSchema root, cs[NCOLS], *csp[NCOLS];
    struct ArrowArray ca[NCOLS], *cap[NCOLS];
    const void *bufs[NCOLS][3];
} data;

static int make_data(data *d, int64_t rows)
{
    static const char *const fmts[NCOLS] = { "l", "l", "g", "b", "u", "u" };
    static const char *const names[NCOLS] = { "user_id", "ts", "amount",
                                              "flag", "country", "payload" };
    unsigned seed = 42;
    size_t co = 0, po = 0;
    int64_t i;
    int k;

    memset(d, 0, sizeof *d);
    d->rows = rows;
    d->user_id = malloc((size_t)rows * 8);
    d->ts = malloc((size_t)rows * 8);
    d->amount = malloc((size_t)rows * 8);
    d->flag = calloc((size_t)rows / 8 + 1, 1);
    d->country_off = malloc(((size_t)rows + 1) * 4);
    d->payload_off = malloc(((size_t)rows + 1) * 4);
    d->country = malloc((size_t)rows * 4);
    d->payload = malloc((size_t)rows * 24);
    if (!d->user_id || !d->ts || !d->amount || !d->flag || !d->country_off ||
        !d->payload_off || !d->country || !d->payload)
        return -1;
    for (i = 0; i < rows; i++) {
        int j;
        d->user_id[i] = rand_r(&seed) % 1000000;
        d->ts[i] = 1700000000000000 + i * 37;
        d->amount[i] = (double)(rand_r(&seed) % 100000) / 100.0;
        if (rand_r(&seed) % 3 == 0)
            d->flag[i / 8] |= (uint8_t)(1u << (i % 8));
        d->country_off[i] = (int32_t)co;
        co += (size_t)snprintf(d->country + co, 4, "c%02d",
                               rand_r(&seed) % 40);
        d->payload_off[i] = (int32_t)po;
        for (j = 0; j < 24; j++)
            d->payload[po++] = (char)('a' + rand_r(&seed) % 26);
    }
    d->country_off[rows] = (int32_t)co;
    d->payload_off[rows] = (int32_t)po;
    memset(&d->root, 0, sizeof d->root);
    d->root.format = "+s";
    d->root.name = "";
    d->root.n_children = NCOLS;
    d->root.children = d->csp;
    d->root.release = noop_schema;
    d->bufs[0][1] = d->user_id;
    d->bufs[1][1] = d->ts;
    d->bufs[2][1] = d->amount;
    d->bufs[3][1] = d->flag;
    d->bufs[4][1] = d->country_off;
    d->bufs[4][2] = d->country;
    d->bufs[5][1] = d->payload_off;
    d->bufs[5][2] = d->payload;
    for (k = 0; k < NCOLS; k++) {
        memset(&d->cs[k], 0, sizeof d->cs[k]);
        d->cs[k].format = fmts[k];
        d->cs[k].name = names[k];
        d->cs[k].flags = 2;
        d->cs[k].release = noop_schema;
        d->csp[k] = &d->cs[k];
        memset(&d->ca[k], 0, sizeof d->ca[k]);
        d->ca[k].length = rows;
        d->ca[k].n_buffers = fmts[k][0] == 'u' ? 3 : 2;
        d->ca[k].buffers = d->bufs[k];
        d->ca[k].release = noop_array;
        d->cap[k] = &d->ca[k];
    }
    return 0;
}

static void free_data(data *d)
{
    free(d->user_id);
    free(d->ts);
    free(d->amount);
    free(d->flag);
    free(d->country_off);
    free(d->payload_off);
    free(d->country);
    free(d->payload);
}

/* Writes every batch to path with threads; wall and CPU seconds. */
static int write_once(zb_io *io, data *d, const char *path, unsigned threads,
                      double *wall, double *cpu, double *enc,
                      uint64_t *bytes)
{
    static const void *rbufs[1] = { NULL };
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    pq_write_result res;
    struct ArrowArray b;
    pq_writer *w = NULL;
    zb_ctx ctx;
    double w0, c0;
    int64_t at;
    int rc;

    zb_ctx_init(&ctx);
    o.threads = threads;
    unlink(path);
    w0 = now(CLOCK_MONOTONIC);
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if ((rc = pq_writer_open(&w, io, &ctx, path, &d->root, &o)) < 0)
        goto fail;
    for (at = 0; at < d->rows; at += BATCH) {
        memset(&b, 0, sizeof b);
        b.length = d->rows - at < BATCH ? d->rows - at : BATCH;
        b.offset = at;
        b.n_buffers = 1;
        b.buffers = rbufs;
        b.n_children = NCOLS;
        b.children = d->cap;
        b.release = noop_array;
        if ((rc = pq_writer_write(w, &ctx, &b)) < 0) {
            pq_writer_abort(w);
            goto fail;
        }
    }
    *enc = now(CLOCK_MONOTONIC) - w0;
    if ((rc = pq_writer_close(w, &ctx, &res)) < 0)
        goto fail;
    *wall = now(CLOCK_MONOTONIC) - w0;
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *bytes = res.file_bytes;
    pq_write_result_free(&res);
    return 0;
fail:
    fprintf(stderr, "write failed: %s\n", ctx.err.msg);
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca, cb;

    while (same) {
        ca = getc(fa);
        cb = getc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    double wall[2][MAX_RUNS], cpu[2][MAX_RUNS], enc[2][MAX_RUNS], med_w[2],
        med_c[2], med_e[2];
    char path[2][4096];
    int64_t rows = 2000000;
    uint64_t bytes = 0;
    int runs = 3, i, r, t, same;
    zb_io *io = NULL;
    zb_ctx ctx;
    data d;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = atoll(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else
            dir = argv[i];
    }
    if (rows < 1 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_parquet_write_threads [--rows N] "
                        "[--runs 1..%d] [OUT_DIR]\n", MAX_RUNS);
        return 2;
    }
    zb_ctx_init(&ctx);
    if (make_data(&d, rows) < 0 || zb_io_new(&io, &ctx) < 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (t = 0; t < 2; t++)
        snprintf(path[t], sizeof path[t], "%s/bench-pq-threads-%d.parquet",
                 dir, t + 1);
    printf("library-level micro-benchmark (pq_writer, not the zamboni "
           "executable): %lld rows, %d runs, zstd 3\n", (long long)rows,
           runs);
    for (r = 0; r < runs; r++)
        for (t = 0; t < 2; t++)   /* alternating: 1, 2, 1, 2, ... */
            if (write_once(io, &d, path[t], (unsigned)t + 1, &wall[t][r],
                           &cpu[t][r], &enc[t][r], &bytes) < 0)
                return 1;
    same = same_file(path[0], path[1]);
    for (t = 0; t < 2; t++) {
        qsort(wall[t], (size_t)runs, sizeof(double), cmp_double);
        qsort(cpu[t], (size_t)runs, sizeof(double), cmp_double);
        qsort(enc[t], (size_t)runs, sizeof(double), cmp_double);
        med_w[t] = wall[t][runs / 2];
        med_c[t] = cpu[t][runs / 2];
        med_e[t] = enc[t][runs / 2];
        printf("threads %d: median wall %.3f s (batches written %.3f s, "
               "then close: last row group, footer, fsync), cpu %.3f s, "
               "%.0f rows/s\n", t + 1, med_w[t], med_e[t], med_c[t],
               (double)rows / med_w[t]);
    }
    printf("speedup (wall, threads 1 / threads 2): %.2fx, of the batches "
           "alone %.2fx; file %llu bytes; files byte-identical: %s\n",
           med_w[0] / med_w[1], med_e[0] / med_e[1],
           (unsigned long long)bytes, same ? "yes" : "NO");
    for (t = 0; t < 2; t++)
        unlink(path[t]);
    zb_io_free(io);
    free_data(&d);
    return same ? 0 : 1;
}

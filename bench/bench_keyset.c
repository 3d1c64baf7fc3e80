/*
 * bench_keyset - the equality-delete key set, in memory and spilled.
 *
 * Builds a set of N keys (default 5,000,000; 16 bytes each, like two
 * int64 key columns) and probes N keys, half of them present, in two
 * modes: the budget ample, and the budget at 1/20 of what the set holds
 * in memory (measured by the first mode), which makes it spill. A spilled
 * probe works as the row stream's does (Grace hash join): one pass routes
 * the probe keys with their hashes to one spill file per partition, then
 * each partition is loaded and its file of probe keys looked up.
 *
 * Each run is a child process, so that its peak RSS (getrusage) is its
 * own. Prints, per mode, the median over RUNS runs of build and probe
 * keys/s, the partitions, and the largest peak RSS.
 *
 * Usage: bench_keyset [N] [RUNS]    (defaults 5000000 3)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/keyset/keyset.h"
#include "exec/spill.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

#define MAX_RUNS 15

typedef struct result {
    double build_keys_s, probe_keys_s;
    uint64_t reserved_bytes, peak_rss_kib, found;
    unsigned partitions;
    int ok;
} result;

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

/* Key i: two 8-byte columns derived from i. */
static void make_key(uint8_t *k, uint64_t i)
{
    uint64_t a = i * 0x9E3779B97F4A7C15ULL, b = i ^ 0x5555;

    memcpy(k, &a, 8);
    memcpy(k + 8, &b, 8);
}

/*
 * Spilled, as the row stream does it (Grace hash join): one pass routes
 * each probe key with its hash to the file of its partition, then each
 * partition of the set is loaded and its file looked up.
 */
static int probe_spilled(zb_keyset *ks, zb_ctx *ctx, uint64_t n,
                         uint64_t *found)
{
    unsigned p, parts = zb_keyset_partitions(ks);
    zb_spill **files = calloc(parts, sizeof *files);
    uint8_t rec[24];
    uint64_t i, h;
    int rc = ZB_OK;

    if (files == NULL)
        return ZB_ENOMEM;
    for (p = 0; p < parts && rc == ZB_OK; p++)
        rc = zb_spill_open(&files[p], ctx, "probe keys", 8192);
    for (i = 0; i < n && rc == ZB_OK; i++) {
        make_key(rec + 8, i);
        h = zb_keyset_hash(rec + 8, 16, 0);
        memcpy(rec, &h, 8);
        rc = zb_spill_write(files[zb_keyset_partition_of(ks, h)], ctx, rec,
                            sizeof rec);
    }
    for (p = 0; p < parts && rc == ZB_OK; p++) {
        size_t got;
        if ((rc = zb_keyset_load_partition(ks, ctx, p)) < 0 ||
            (rc = zb_spill_rewind(files[p], ctx)) < 0)
            break;
        while ((rc = zb_spill_read(files[p], ctx, rec, sizeof rec, &got)) ==
                   ZB_OK && got == sizeof rec) {
            memcpy(&h, rec, 8);
            if (zb_keyset_contains(ks, rec + 8, 16, h))
                (*found)++;
        }
        zb_spill_close(files[p]);
        files[p] = NULL;
    }
    for (p = 0; p < parts; p++)
        zb_spill_close(files[p]);
    free(files);
    return rc;
}

static void run(result *res, uint64_t n, uint64_t budget_bytes)
{
    zb_budget *b = NULL;
    zb_keyset *ks = NULL;
    zb_keyset_opts o = ZB_KEYSET_OPTS_INIT;
    zb_ctx ctx;
    uint8_t k[16];
    uint64_t i, found = 0;
    unsigned parts;
    double t0, t1, t2;
    struct rusage ru;

    memset(res, 0, sizeof *res);
    zb_ctx_init(&ctx);
    if (zb_budget_new(&b, budget_bytes, NULL) != ZB_OK)
        return;
    ctx.budget = b;
    o.expected_keys = n;
    o.expected_key_bytes = n * 16;
    if (zb_keyset_new(&ks, &ctx, &o) != ZB_OK)
        goto done;
    t0 = now();
    for (i = 0; i < n; i++) {
        make_key(k, 2 * i);
        if (zb_keyset_add(ks, &ctx, k, 16, zb_keyset_hash(k, 16, 0), i) !=
            ZB_OK) {
            fprintf(stderr, "add: %s\n", ctx.err.msg);
            goto done;
        }
    }
    if (zb_keyset_seal(ks, &ctx) != ZB_OK) {
        fprintf(stderr, "seal: %s\n", ctx.err.msg);
        goto done;
    }
    t1 = now();
    /* Probe keys 0..n-1: the even ones are present. */
    parts = zb_keyset_partitions(ks);
    if (parts == 1) {
        for (i = 0; i < n; i++) {
            make_key(k, i);
            if (zb_keyset_contains(ks, k, 16, zb_keyset_hash(k, 16, 0)))
                found++;
        }
    } else if (probe_spilled(ks, &ctx, n, &found) != ZB_OK) {
        fprintf(stderr, "probe: %s\n", ctx.err.msg);
        goto done;
    }
    t2 = now();
    getrusage(RUSAGE_SELF, &ru);
    res->build_keys_s = (double)n / (t1 - t0);
    res->probe_keys_s = (double)n / (t2 - t1);
    res->reserved_bytes = zb_keyset_reserved_bytes(ks);
    res->partitions = parts;
    res->peak_rss_kib = (uint64_t)ru.ru_maxrss;
    res->found = found;
    res->ok = found == (n + 1) / 2;
done:
    zb_keyset_free(ks);
    zb_budget_free(b);
}

/* Runs one measurement in a child; its result comes back through a pipe. */
static int run_child(result *res, uint64_t n, uint64_t budget_bytes)
{
    int fd[2], status;
    pid_t pid;
    ssize_t got;

    if (pipe(fd) != 0)
        return -1;
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        run(res, n, budget_bytes);
        if (write(fd[1], res, sizeof *res) != (ssize_t)sizeof *res)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    got = read(fd[0], res, sizeof *res);
    close(fd[0]);
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *res && res->ok ? 0 : -1;
}

static int measure(const char *name, uint64_t n, int runs,
                   uint64_t budget_bytes, result *first)
{
    double build[MAX_RUNS], probe[MAX_RUNS];
    uint64_t rss = 0;
    int r;

    for (r = 0; r < runs; r++) {
        result res;
        if (run_child(&res, n, budget_bytes) != 0) {
            fprintf(stderr, "%s: run %d failed\n", name, r);
            return -1;
        }
        build[r] = res.build_keys_s;
        probe[r] = res.probe_keys_s;
        if (res.peak_rss_kib > rss)
            rss = res.peak_rss_kib;
        if (r == 0)
            *first = res;
    }
    qsort(build, (size_t)runs, sizeof *build, cmp_double);
    qsort(probe, (size_t)runs, sizeof *probe, cmp_double);
    printf("keyset %-22s build %9.0f keys/s  probe %9.0f keys/s  "
           "partitions %3u  reserved %6.1f MiB  peak RSS %6.1f MiB\n",
           name, build[runs / 2], probe[runs / 2], first->partitions,
           (double)first->reserved_bytes / 1048576.0, (double)rss / 1024.0);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
    int runs = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
    result ample, small;
    char name[64];

    if (runs < 1 || runs > MAX_RUNS || n == 0) {
        fprintf(stderr, "usage: bench_keyset [N] [RUNS <= %d]\n", MAX_RUNS);
        return 2;
    }
    zb_alloc_tune_process();
    printf("keyset: %llu keys of 16 bytes, probes half present, median of "
           "%d runs, spill dir %s\n", (unsigned long long)n, runs,
           zb_spill_dir());
    /* Ample: a budget of 64 GiB never refuses. */
    if (measure("budget ample", n, runs, 64ULL << 30, &ample) != 0)
        return 1;
    snprintf(name, sizeof name, "budget 1/20 (%.1f MiB)",
             (double)(ample.reserved_bytes / 20) / 1048576.0);
    if (measure(name, n, runs, ample.reserved_bytes / 20, &small) != 0)
        return 1;
    return 0;
}

/*
 * bench_io_list - streaming listing of a large table-like tree.
 *
 * Usage: bench_io_list [FILES] [DIR]
 * Creates FILES empty files (default 200000) under DIR (default a new
 * directory in $TMPDIR), 1000 to a partition directory, unless DIR already
 * holds a tree made by an earlier run with the same FILES. Then lists it
 * three times and prints the median rate and the peak bytes the library
 * held while listing, which is what "bounded memory" means here: it must
 * not grow with FILES.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"
#include "util/alloc.h"

#define PER_DIR 1000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int make_tree(const char *root, long files)
{
    char path[4096];
    long i;

    for (i = 0; i < files; i++) {
        int fd;
        if (i % PER_DIR == 0) {
            snprintf(path, sizeof path, "%s/data/day=%05ld", root,
                     i / PER_DIR);
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                return -1;
        }
        snprintf(path, sizeof path, "%s/data/day=%05ld/part-%07ld.parquet",
                 root, i / PER_DIR, i);
        if ((fd = open(path, O_WRONLY | O_CREAT, 0644)) < 0)
            return -1;
        close(fd);
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long files = argc > 1 ? atol(argv[1]) : 200000;
    char root[4096], stamp[4200];
    double secs[3];
    uint64_t peak = 0, base;
    long listed = 0;
    zb_io *io = NULL;
    zb_ctx ctx;
    struct rusage ru;
    int run;

    if (argc > 2) {
        snprintf(root, sizeof root, "%s", argv[2]);
        mkdir(root, 0755);
    } else {
        const char *t = getenv("TMPDIR");
        snprintf(root, sizeof root, "%s/zb-bench-list-XXXXXX",
                 t && t[0] ? t : "/tmp");
        if (mkdtemp(root) == NULL)
            return 1;
    }
    snprintf(stamp, sizeof stamp, "%s/.made-%ld", root, files);
    if (access(stamp, F_OK) != 0) {
        double t0 = now();
        char data[4200];
        snprintf(data, sizeof data, "%s/data", root);
        mkdir(data, 0755);
        if (make_tree(root, files) != 0) {
            perror("make_tree");
            return 1;
        }
        close(open(stamp, O_WRONLY | O_CREAT, 0644));
        printf("created %ld files in %.1f s under %s\n", files, now() - t0,
               root);
    }
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        return 1;
    base = zb_alloc_live_bytes();
    for (run = 0; run < 3; run++) {
        zb_io_lister *l = NULL;
        zb_io_entry e;
        double t0 = now();
        int rc;

        listed = 0;
        if (zb_io_list(&l, io, &ctx, root) < 0) {
            fprintf(stderr, "%s\n", ctx.err.msg);
            return 1;
        }
        while ((rc = zb_io_lister_next(l, &ctx, &e)) == 1) {
            uint64_t live = zb_alloc_live_bytes() - base;
            if (live > peak)
                peak = live;
            listed++;
        }
        zb_io_lister_free(l);
        if (rc < 0) {
            fprintf(stderr, "%s\n", ctx.err.msg);
            return 1;
        }
        secs[run] = now() - t0;
    }
    qsort(secs, 3, sizeof *secs, cmp_double);
    getrusage(RUSAGE_SELF, &ru);
    printf("listed %ld files (%ld partition dirs): median %.2f s, %.0f files/s\n",
           listed, (files + PER_DIR - 1) / PER_DIR, secs[1],
           (double)listed / secs[1]);
    printf("peak library bytes held while listing: %llu\n",
           (unsigned long long)peak);
    printf("process max RSS: %ld KiB\n", ru.ru_maxrss);
    zb_io_free(io);
    return 0;
}

/*
 * bench_scan_read - the row stream over one data file with a large
 * equality-delete set: in memory, and with the key set's memory far below
 * the set's size (spilling by hash partition: the data's keys routed to
 * partition files in one pass, each partition looked up, then the final
 * read).
 *
 * Usage: bench_scan_read [--rows N] [--deletes D] [--runs R] [--dir DIR]
 *        (defaults: 4,000,000 rows, 1,000,000 deleted keys, 3 runs)
 *        bench_scan_read --read DIR ROWS DELETES EQ_MEMORY_BYTES  (a child)
 *
 * A third mode reads the file without deletes (the projection alone).
 *
 * The parent writes data.parquet (id long, v long, s string of 12 bytes,
 * in one file) and eq.parquet (the ids of D rows spread evenly, equality
 * ids [1]) under DIR, then runs each mode R times, each run in a fresh
 * child process (fork + exec of itself) so that every run's peak RSS
 * (getrusage ru_maxrss) is its own. Prints the median of rows read per
 * second of wall time, the median CPU time (steadier on a shared
 * machine), the peak RSS beside zb_scan_estimate_bytes for the group,
 * and the stream's counts, which must say rows out = N - D.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/parquet/parquet_write.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"

static const char META[] =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-"
    "a0705ddf69c1\",\"location\":\"/t\",\"last-sequence-number\":2,"
    "\"last-updated-ms\":1,\"last-column-id\":3,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"v\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":3,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":"
    "[]}],\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
    "\"current-snapshot-id\":-1,\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[]}";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const zb_ctx *ctx)
{
    fprintf(stderr, "bench_scan_read: %s: %s\n", what, ctx->err.msg);
    exit(1);
}

static void field(struct ArrowSchema *s, const char *fmt, const char *name,
                  const char *id)
{
    const char *kv[3] = { "PARQUET:field_id", id, NULL };
    char *meta = NULL;
    size_t len = 0;

    if (zb_arrow_metadata(&meta, &len, kv) < 0 ||
        zb_arrow_schema_init(s, fmt, name, meta, len, 0, 0) < 0)
        exit(1);
    zb_free(meta);
}

/* Writes rows [0, n) of ids given by id_of into a file of 1 or 3 columns. */
static void write_file(zb_io *io, zb_ctx *ctx, const char *path, uint64_t n,
                       uint64_t step, int full)
{
    enum { CHUNK = 1 << 20 };
    struct ArrowSchema s;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    pq_writer *w = NULL;
    pq_write_result res;
    uint64_t start;
    int ncol = full ? 3 : 1;

    memset(&res, 0, sizeof res);
    if (zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, ncol) < 0)
        exit(1);
    field(s.children[0], "l", "id", "1");
    if (full) {
        field(s.children[1], "l", "v", "2");
        field(s.children[2], "u", "s", "3");
    }
    wo.dictionary = 0;
    if (pq_writer_open(&w, io, ctx, path, &s, &wo) < 0)
        die(path, ctx);
    for (start = 0; start < n; start += CHUNK) {
        uint64_t m = n - start < CHUNK ? n - start : CHUNK, i;
        struct ArrowArray a;
        int64_t *id, *v;
        int32_t *off;
        char *str;
        if (zb_arrow_array_init(&a, 1, ncol) < 0)
            exit(1);
        a.length = (int64_t)m;
        zb_arrow_array_init(a.children[0], 2, 0);
        a.children[0]->length = (int64_t)m;
        id = zb_malloc(m * 8);
        for (i = 0; i < m; i++)
            id[i] = (int64_t)((start + i) * step);
        a.children[0]->buffers[1] = id;
        if (full) {
            zb_arrow_array_init(a.children[1], 2, 0);
            zb_arrow_array_init(a.children[2], 3, 0);
            a.children[1]->length = a.children[2]->length = (int64_t)m;
            v = zb_malloc(m * 8);
            off = zb_malloc((m + 1) * 4);
            str = zb_malloc(m * 12 + 1);
            off[0] = 0;
            for (i = 0; i < m; i++) {
                char tmp[16];
                v[i] = (int64_t)((start + i) * 2654435761u % 1000003u);
                snprintf(tmp, sizeof tmp, "r%011llu",
                         (unsigned long long)(start + i));
                memcpy(str + 12 * i, tmp, 12);
                off[i + 1] = (int32_t)(12 * (i + 1));
            }
            a.children[1]->buffers[1] = v;
            a.children[2]->buffers[1] = off;
            a.children[2]->buffers[2] = str;
        }
        if (pq_writer_write(w, ctx, &a) < 0)
            die(path, ctx);
        zb_arrow_array_release(&a);
    }
    if (pq_writer_close(w, ctx, &res) < 0)
        die(path, ctx);
    pq_write_result_free(&res);
    zb_arrow_schema_release(&s);
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* The child: one read, one line of figures. */
static int child(const char *dir, uint64_t rows, uint64_t dels,
                 uint64_t eq_mem)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    ice_metadata *m = NULL;
    char pd[4096], pe[4096];
    ice_data_file dd, de;
    zb_scan_file del;
    zb_scan_task task;
    int32_t eq_ids[1] = { 1 };
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowArray b;
    const zb_read_counts *c;
    struct rusage ru;
    double t0, t1;
    int rc;

    zb_alloc_tune_process();
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0 ||
        ice_metadata_parse(&m, &ctx, META, strlen(META), "bench") < 0)
        die("setup", &ctx);
    snprintf(pd, sizeof pd, "%s/data.parquet", dir);
    snprintf(pe, sizeof pe, "%s/eq.parquet", dir);
    memset(&dd, 0, sizeof dd);
    dd.content = ICE_CONTENT_DATA;
    dd.file_path = pd;
    dd.file_format = "PARQUET";
    dd.record_count = (int64_t)rows;
    dd.file_size_in_bytes = file_size(pd);
    dd.content_offset = dd.content_size_in_bytes = ICE_NULL_LONG;
    de = dd;
    de.content = ICE_CONTENT_EQUALITY_DELETES;
    de.file_path = pe;
    de.record_count = (int64_t)dels;
    de.file_size_in_bytes = file_size(pe);
    de.has_equality_ids = 1;
    de.n_equality_ids = 1;
    de.equality_ids = eq_ids;
    memset(&del, 0, sizeof del);
    del.file = &de;
    del.data_sequence_number = 2;
    memset(&task, 0, sizeof task);
    task.data.file = &dd;
    task.data.data_sequence_number = 1;
    task.n_deletes = dels > 0;
    task.deletes = &del;
    o.meta = m;
    o.eq_memory_bytes = eq_mem;
    t0 = now();
    if (zb_rowstream_open(&rs, io, &ctx, &o, &task, 1) < 0)
        die("open", &ctx);
    while ((rc = zb_rowstream_next(rs, &ctx, &b, NULL)) == 1)
        b.release(&b);
    if (rc < 0)
        die("next", &ctx);
    t1 = now();
    c = zb_rowstream_counts(rs);
    getrusage(RUSAGE_SELF, &ru);
    printf("%.6f %ld %llu %llu %llu %llu %llu %llu %.6f\n", t1 - t0,
           ru.ru_maxrss,
           (unsigned long long)zb_scan_estimate_bytes(&task, 1, 0, eq_mem,
                                                      NULL),
           (unsigned long long)c->rows_read,
           (unsigned long long)c->deleted_by_equality,
           (unsigned long long)c->rows_out,
           (unsigned long long)c->eq_spilled,
           (unsigned long long)c->eq_partition_passes,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    zb_rowstream_free(rs);
    ice_metadata_free(m);
    zb_io_free(io);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_child(const char *self, const char *dir, uint64_t rows,
                     uint64_t dels, uint64_t eq_mem, double *secs,
                     double *cpu, long *rss_kib, unsigned long long *cnt)
{
    int fd[2], status;
    pid_t pid;
    char a[3][32], line[512];
    FILE *f;

    snprintf(a[0], sizeof a[0], "%llu", (unsigned long long)rows);
    snprintf(a[1], sizeof a[1], "%llu", (unsigned long long)dels);
    snprintf(a[2], sizeof a[2], "%llu", (unsigned long long)eq_mem);
    if (pipe(fd) < 0)
        return -1;
    if ((pid = fork()) == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execl(self, self, "--read", dir, a[0], a[1], a[2], (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    f = fdopen(fd[0], "r");
    if (f == NULL || fgets(line, sizeof line, f) == NULL ||
        sscanf(line, "%lf %ld %llu %llu %llu %llu %llu %llu %lf", secs,
               rss_kib, &cnt[5], &cnt[0], &cnt[1], &cnt[2], &cnt[3],
               &cnt[4], cpu) != 9) {
        if (f)
            fclose(f);
        waitpid(pid, &status, 0);
        return -1;
    }
    fclose(f);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    uint64_t rows = 4000000, dels = 1000000;
    int runs = 3, i, mode;
    char dir[4096] = "", pd[4200], pe[4200], self[4096];
    zb_ctx ctx;
    zb_io *io = NULL;
    ssize_t sl;

    if (argc == 6 && strcmp(argv[1], "--read") == 0)
        return child(argv[2], strtoull(argv[3], NULL, 10),
                     strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10));
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--deletes") == 0 && i + 1 < argc)
            dels = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        else {
            fprintf(stderr, "usage: bench_scan_read [--rows N] [--deletes D] "
                    "[--runs R] [--dir DIR]\n");
            return 2;
        }
    }
    if (dels == 0 || dels > rows || runs < 1 || runs > 99)
        return 2;
    if ((sl = readlink("/proc/self/exe", self, sizeof self - 1)) < 0)
        return 1;
    self[sl] = '\0';
    if (dir[0] == '\0') {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/bench_scan_read.%d",
                 t && *t ? t : "/tmp", (int)getpid());
    }
    mkdir(dir, 0700);
    snprintf(pd, sizeof pd, "%s/data.parquet", dir);
    snprintf(pe, sizeof pe, "%s/eq.parquet", dir);
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        die("io", &ctx);
    if (file_size(pd) == 0) {
        printf("writing %llu rows and %llu delete keys under %s\n",
               (unsigned long long)rows, (unsigned long long)dels, dir);
        write_file(io, &ctx, pd, rows, 1, 1);
        /* ids 0, step, 2*step, ...: D keys spread over the file. */
        write_file(io, &ctx, pe, dels, rows / dels, 0);
    }
    zb_io_free(io);
    printf("data %lld bytes, deletes %lld bytes\n", (long long)file_size(pd),
           (long long)file_size(pe));
    for (mode = 0; mode < 3; mode++) {
        uint64_t eq_mem = mode == 1 ? (uint64_t)4 << 20 : 0;
        uint64_t nd = mode == 2 ? 0 : dels;
        double secs[99], cpu[99], rate;
        long rss[99], rss_max = 0;
        unsigned long long cnt[6];
        for (i = 0; i < runs; i++) {
            if (run_child(self, dir, rows, nd, eq_mem, &secs[i], &cpu[i],
                          &rss[i], cnt) < 0) {
                fprintf(stderr, "bench_scan_read: a run failed\n");
                return 1;
            }
            if (rss[i] > rss_max)
                rss_max = rss[i];
        }
        qsort(secs, (size_t)runs, sizeof secs[0], cmp_d);
        qsort(cpu, (size_t)runs, sizeof cpu[0], cmp_d);
        rate = (double)rows / secs[runs / 2];
        printf("%-24s %6.2f M rows/s (median of %d: %.2f s wall, %.2f s "
               "CPU)  peak RSS %ld MiB (estimate %llu MiB)  read %llu "
               "eq-deleted %llu out %llu spilled %llu partitions %llu\n",
               mode == 0 ? "eq set in memory:"
               : mode == 1 ? "eq set capped at 4 MiB:" : "no deletes:",
               rate / 1e6, runs, secs[runs / 2], cpu[runs / 2],
               rss_max / 1024,
               cnt[5] >> 20, cnt[0],
               cnt[1], cnt[2], cnt[3], cnt[4]);
        if (cnt[2] != rows - nd) {
            fprintf(stderr, "bench_scan_read: %llu rows out, want %llu\n",
                    cnt[2], (unsigned long long)(rows - nd));
            return 1;
        }
    }
    return 0;
}

/*
 * bench_parquet_rewrite - compaction's core: many small Parquet files
 * rewritten into files of a target size.
 *
 * Usage: bench_parquet_rewrite --mode reencode|copy [--threads N]
 *                              [--target-bytes N] OUT_DIR FILE...
 * With N threads the files are cut into N contiguous slices, each
 * rewritten by its own reader and writer, as compaction runs groups.
 * reencode: every row decoded by our reader and encoded by our writer
 *           (zstd level 3, the writer's default);
 * copy:     row groups appended as they are (row-group copy).
 * Output files roll when the writer has written target bytes (default
 * 128 MiB). Prints rows/s, input MB/s, CPU seconds and the peak RSS, in
 * the form bench/duckdb_copy.mjs prints DuckDB's COPY of the same input.
 *
 * Like for like with DuckDB: both zstd level 3 (our default is the level
 * Iceberg's unset write.parquet.compression-level means, zstd's default,
 * which is 3; duckdb_copy.mjs asks for 3), each page one zstd frame, and
 * the same columns PLAIN or dictionary-encoded. Unlike: our time includes the fsync of each
 * output file and its folder (FileIO publishes only durable files);
 * DuckDB's COPY does not fsync. On a shared machine compare the CPU
 * seconds (or perf stat task-clock) and take the median of several runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "util/alloc.h"

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct job {
    const char *mode, *out_dir;
    char **files;
    int n_files, id;
    uint64_t target, rows, in_bytes;
    int n_out, rc;
    char err[256];
} job;

/* Rewrites job->files into job->out_dir/out-<id>-NNNNN.parquet. */
static void *rewrite(void *p)
{
    job *j = p;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    struct ArrowSchema schema;
    pq_writer *w = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    int i, rc = ZB_OK, have_schema = 0;

    zb_ctx_init(&ctx);
    if ((rc = zb_io_new(&io, &ctx)) < 0)
        goto done;
    for (i = 0; i < j->n_files && rc == ZB_OK; i++) {
        pq_reader *r = NULL;
        struct ArrowArray b;
        struct stat st;

        if (stat(j->files[i], &st) == 0)
            j->in_bytes += (uint64_t)st.st_size;
        if ((rc = pq_reader_open(&r, io, &ctx, j->files[i], NULL)) < 0)
            break;
        if (w == NULL) {
            char path[4096];
            if (!have_schema) {
                if ((rc = pq_reader_arrow_schema(&schema, r, &ctx)) < 0) {
                    pq_reader_free(r);
                    break;
                }
                have_schema = 1;
            }
            snprintf(path, sizeof path, "%s/out-%d-%05d.parquet", j->out_dir,
                     j->id, j->n_out++);
            remove(path);
            if ((rc = pq_writer_open(&w, io, &ctx, path, &schema, &wo)) < 0) {
                pq_reader_free(r);
                break;
            }
        }
        if (j->mode[0] == 'c') {
            rc = pq_writer_copy_row_groups(w, &ctx, r);
            j->rows += (uint64_t)pq_reader_meta(r)->num_rows;
        } else {
            while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
                j->rows += (uint64_t)b.length;
                rc = pq_writer_write(w, &ctx, &b);
                b.release(&b);
                if (rc < 0)
                    break;
            }
        }
        pq_reader_free(r);
        if (rc == ZB_OK && pq_writer_bytes(w) >= j->target) {
            rc = pq_writer_close(w, &ctx, NULL);
            w = NULL;
        }
    }
    if (w && rc == ZB_OK)
        rc = pq_writer_close(w, &ctx, NULL);
    else if (w)
        pq_writer_abort(w);
done:
    if (rc < 0)
        snprintf(j->err, sizeof j->err, "%s", ctx.err.msg);
    j->rc = rc;
    if (have_schema)
        schema.release(&schema);
    zb_io_free(io);
    return NULL;
}

int main(int argc, char **argv)
{
    uint64_t target = 128u << 20, rows = 0, in_bytes = 0;
    const char *mode = NULL, *out_dir = NULL;
    int i, first, threads = 1, t, n_out = 0, n_files;
    double t0, c0, secs, cpu;
    pthread_t tid[16];
    job jobs[16];
    struct rusage ru;

    zb_alloc_tune_process();
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--target-bytes") == 0 && i + 1 < argc)
            target = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
    }
    if (mode == NULL || i + 1 >= argc || threads < 1 || threads > 16 ||
        (strcmp(mode, "reencode") != 0 && strcmp(mode, "copy") != 0)) {
        fprintf(stderr, "usage: bench_parquet_rewrite --mode reencode|copy "
                        "[--threads N] [--target-bytes N] OUT_DIR FILE...\n");
        return 2;
    }
    out_dir = argv[i++];
    first = i;
    n_files = argc - first;
    mkdir(out_dir, 0755);
    t0 = now(CLOCK_MONOTONIC);
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    /* Contiguous slices, one per thread, as compaction's groups would be. */
    for (t = 0; t < threads; t++) {
        int lo = first + n_files * t / threads;
        int hi = first + n_files * (t + 1) / threads;
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].mode = mode;
        jobs[t].out_dir = out_dir;
        jobs[t].files = argv + lo;
        jobs[t].n_files = hi - lo;
        jobs[t].id = t;
        jobs[t].target = target;
        pthread_create(&tid[t], NULL, rewrite, &jobs[t]);
    }
    for (t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        if (jobs[t].rc < 0) {
            fprintf(stderr, "bench_parquet_rewrite: %s\n", jobs[t].err);
            return 1;
        }
        rows += jobs[t].rows;
        in_bytes += jobs[t].in_bytes;
        n_out += jobs[t].n_out;
    }
    secs = now(CLOCK_MONOTONIC) - t0;
    cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    getrusage(RUSAGE_SELF, &ru);
    printf("zamboni  %-8s threads=%d files=%d rows=%llu -> %d file(s): "
           "%.0f rows/s, %.1f MB/s in, %.2f s cpu, peak RSS %ld MiB\n", mode,
           threads, n_files, (unsigned long long)rows, n_out,
           (double)rows / secs, (double)in_bytes / 1e6 / secs, cpu,
           ru.ru_maxrss / 1024);
    return 0;
}

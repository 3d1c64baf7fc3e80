/*
 * bench_parquet_rewrite - compaction's core: many small Parquet files
 * rewritten into files of a target size.
 *
 * Usage: bench_parquet_rewrite --mode reencode|copy [--target-bytes N]
 *                              [--codec-level N] OUT_DIR FILE...
 * reencode: every row decoded by our reader and encoded by our writer
 *           (zstd, the level given, default 3);
 * copy:     row groups appended as they are (row-group copy).
 * Output files roll when the writer has written target bytes (default
 * 128 MiB). Prints rows/s, input MB/s, CPU seconds and the peak RSS, in
 * the form bench/duckdb_copy.mjs prints DuckDB's COPY of the same input.
 */
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

int main(int argc, char **argv)
{
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    uint64_t target = 128u << 20, rows = 0, in_bytes = 0;
    const char *mode = NULL, *out_dir = NULL;
    struct ArrowSchema schema;
    pq_writer *w = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    double t0, c0, secs, cpu;
    struct rusage ru;
    int i, first, n_out = 0, rc = ZB_OK, have_schema = 0;

    zb_alloc_tune_process();
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--target-bytes") == 0 && i + 1 < argc)
            target = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--codec-level") == 0 && i + 1 < argc)
            wo.codec_level = atoi(argv[++i]);
    }
    if (mode == NULL || i + 1 >= argc ||
        (strcmp(mode, "reencode") != 0 && strcmp(mode, "copy") != 0)) {
        fprintf(stderr, "usage: bench_parquet_rewrite --mode reencode|copy "
                        "[--target-bytes N] OUT_DIR FILE...\n");
        return 2;
    }
    out_dir = argv[i++];
    first = i;
    mkdir(out_dir, 0755);
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        return 1;
    t0 = now(CLOCK_MONOTONIC);
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (; i < argc && rc == ZB_OK; i++) {
        pq_reader *r = NULL;
        struct ArrowArray b;
        struct stat st;

        if (stat(argv[i], &st) == 0)
            in_bytes += (uint64_t)st.st_size;
        if ((rc = pq_reader_open(&r, io, &ctx, argv[i], NULL)) < 0)
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
            snprintf(path, sizeof path, "%s/out-%05d.parquet", out_dir,
                     n_out++);
            remove(path);
            if ((rc = pq_writer_open(&w, io, &ctx, path, &schema, &wo)) < 0) {
                pq_reader_free(r);
                break;
            }
        }
        if (mode[0] == 'c') {
            rc = pq_writer_copy_row_groups(w, &ctx, r);
            rows += (uint64_t)pq_reader_meta(r)->num_rows;
        } else {
            while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
                rows += (uint64_t)b.length;
                rc = pq_writer_write(w, &ctx, &b);
                b.release(&b);
                if (rc < 0)
                    break;
            }
        }
        pq_reader_free(r);
        if (rc == ZB_OK && pq_writer_bytes(w) >= target) {
            rc = pq_writer_close(w, &ctx, NULL);
            w = NULL;
        }
    }
    if (w && rc == ZB_OK)
        rc = pq_writer_close(w, &ctx, NULL);
    else if (w)
        pq_writer_abort(w);
    if (rc < 0) {
        fprintf(stderr, "bench_parquet_rewrite: %s\n", ctx.err.msg);
        return 1;
    }
    secs = now(CLOCK_MONOTONIC) - t0;
    cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    getrusage(RUSAGE_SELF, &ru);
    printf("zamboni  %-8s files=%d rows=%llu -> %d file(s): %.0f rows/s, "
           "%.1f MB/s in, %.2f s cpu, peak RSS %ld MiB\n", mode, argc - first,
           (unsigned long long)rows, n_out, (double)rows / secs,
           (double)in_bytes / 1e6 / secs, cpu, ru.ru_maxrss / 1024);
    if (have_schema)
        schema.release(&schema);
    zb_io_free(io);
    return 0;
}

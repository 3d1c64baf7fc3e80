/*
 * bench/bench_compact.c - compaction of a table made of many small zstd
 * Parquet files (bench/gen_parquet_bench.mjs: the event schema, e.g.
 * 2,000 files of 5,000 rows), binpack or sort, against DuckDB's COPY of
 * the same files (bench/duckdb_copy.mjs), one run each.
 *
 *   bench_compact IN_DIR WORK_DIR [binpack|sort] [BUDGET_MIB] [THREADS]
 *                 [GROUP_MIB]
 *
 * The files of IN_DIR are registered as the data files of a new folder
 * table under WORK_DIR (an append of existing files; they carry no field
 * ids, so the table gets a schema.name-mapping.default). Then a child
 * process compacts it (target 128 MiB, byte budget BUDGET_MIB, default
 * 512; THREADS concurrent groups, default 2; groups cut at GROUP_MIB,
 * default: the input split in THREADS groups) and the parent prints
 * rows/s, the child's CPU time and peak RSS. A sort run then reads every
 * output file back (outside the timing) and checks that its rows are in
 * (user_id, event_id) order, ascending, nulls last: each file alone, as
 * the sort promises; it exits 1 when one is not. With ZB_BENCH_DUCKDB=1
 * it then runs `node bench/duckdb_copy.mjs [--order-by=user_id,event_id]
 * THREADS OUT FILES...` (the ORDER BY in sort mode) and prints the ratio
 * of the two throughputs.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "exec/arrow/arrow.h"
#include "format/parquet/parquet.h"
#include "ops/compact/compact.h"
#include "ops/ingest/table_write.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"event_id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"event_time\",\"required\":false,"
    "\"type\":\"timestamp\"},"
    "{\"id\":3,\"name\":\"event_type\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":4,\"name\":\"user_id\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":5,\"name\":\"amount\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":6,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":7,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static const char MAPPING[] =
    "[{\"field-id\":1,\"names\":[\"event_id\"]},"
    "{\"field-id\":2,\"names\":[\"event_time\"]},"
    "{\"field-id\":3,\"names\":[\"event_type\"]},"
    "{\"field-id\":4,\"names\":[\"user_id\"]},"
    "{\"field-id\":5,\"names\":[\"amount\"]},"
    "{\"field-id\":6,\"names\":[\"flag\"]},"
    "{\"field-id\":7,\"names\":[\"payload\"]}]";

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int die(zb_ctx *ctx, const char *what, int rc)
{
    fprintf(stderr, "bench_compact: %s: %s (%s)\n", what, zb_rc_name(rc),
            ctx->err.msg);
    exit(1);
}

/* Lists IN_DIR's .parquet files, sorted. */
static size_t list_files(char ***out, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t n = 0, cap = 0;

    if (d == NULL) {
        perror(dir);
        exit(1);
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        char path[4096];

        if (len < 8 || strcmp(e->d_name + len - 8, ".parquet") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            v = zb_realloc(v, cap * sizeof *v);
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        v[n++] = zb_strdup(path);
    }
    closedir(d);
    qsort(v, n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

/* A folder table whose data files are the input files. */
static void make_table(zb_ctx *ctx, zb_io *io, zb_catalog *cat,
                       const char *tdir, char **files, size_t n,
                       uint64_t *rows, uint64_t *bytes)
{
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    ice_kv props[] = { { "schema.name-mapping.default", MAPPING } };
    ice_data_file *df = zb_calloc(n, sizeof *df);
    zb_table *t = NULL;
    size_t i;
    int rc;

    if ((rc = zb_ingest_create(&t, cat, ctx, tdir, NULL, (const zb_json *)schema,
                               NULL, props,
                               1, 2)) < 0)
        die(ctx, "create", rc);
    for (i = 0; i < n; i++) {
        pq_reader *r = NULL;
        struct stat st;

        if ((rc = pq_reader_open(&r, io, ctx, files[i], NULL)) < 0)
            die(ctx, files[i], rc);
        stat(files[i], &st);
        df[i].content = ICE_CONTENT_DATA;
        df[i].file_path = files[i];
        df[i].file_format = "PARQUET";
        df[i].record_count = pq_reader_meta(r)->num_rows;
        df[i].file_size_in_bytes = st.st_size;
        df[i].block_size_in_bytes = ICE_NULL_LONG;
        df[i].first_row_id = ICE_NULL_LONG;
        df[i].content_offset = ICE_NULL_LONG;
        df[i].content_size_in_bytes = ICE_NULL_LONG;
        *rows += (uint64_t)df[i].record_count;
        *bytes += (uint64_t)st.st_size;
        pq_reader_free(r);
    }
    if ((rc = zb_ingest_commit_files(&t, cat, io, ctx, df, NULL, n)) < 0)
        die(ctx, "commit", rc);
    zb_table_free(t);
    zb_free(df);
    json_decref(schema);
}

/* ---- read-back check of a sorted output -------------------------------- */

/* One row's sort columns: user_id (a string or null), event_id. */
typedef struct sort_row {
    const char *user;            /* NULL: null */
    size_t user_len;
    int64_t id;
    int id_null;
} sort_row;

/* The child of a struct schema named name; -1 if none. */
static int child_index(const struct ArrowSchema *s, const char *name)
{
    int64_t i;

    for (i = 0; i < s->n_children; i++)
        if (strcmp(s->children[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static int is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;

    i += a->offset;
    return v == NULL || ((v[i >> 3] >> (i & 7)) & 1);
}

/* Row i of the batch (top-level offset included) into *r. */
static void get_row(sort_row *r, const struct ArrowSchema *us,
                    const struct ArrowArray *u, const struct ArrowArray *e,
                    int64_t i)
{
    int64_t j = u->offset + i, lo, hi;

    r->user = NULL;
    r->user_len = 0;
    if (is_valid(u, i)) {
        if (us->format[0] == 'U' || us->format[0] == 'Z') {
            lo = ((const int64_t *)u->buffers[1])[j];
            hi = ((const int64_t *)u->buffers[1])[j + 1];
        } else {
            lo = ((const int32_t *)u->buffers[1])[j];
            hi = ((const int32_t *)u->buffers[1])[j + 1];
        }
        r->user = (const char *)u->buffers[2] + lo;
        r->user_len = (size_t)(hi - lo);
    }
    r->id_null = !is_valid(e, i);
    r->id = r->id_null ? 0 : ((const int64_t *)e->buffers[1])[e->offset + i];
}

/* Order of two rows by (user_id, event_id), ascending, nulls last. */
static int row_cmp(const sort_row *a, const sort_row *b)
{
    size_t m;
    int c;

    if ((a->user == NULL) != (b->user == NULL))
        return a->user == NULL ? 1 : -1;
    if (a->user != NULL) {
        m = a->user_len < b->user_len ? a->user_len : b->user_len;
        if ((c = memcmp(a->user, b->user, m)) != 0)
            return c;
        if (a->user_len != b->user_len)
            return a->user_len < b->user_len ? -1 : 1;
    }
    if (a->id_null != b->id_null)
        return a->id_null ? 1 : -1;
    return (a->id > b->id) - (a->id < b->id);
}

/*
 * Reads the file back: 1 when its rows are in order, 0 (message on
 * stderr) when not. *rows receives the rows read.
 */
static int check_sorted(zb_ctx *ctx, zb_io *io, const char *path,
                        uint64_t *rows)
{
    static const char *const cols[] = { "user_id", "event_id" };
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowSchema s;
    struct ArrowArray b;
    sort_row prev, cur;
    char *keep = NULL;           /* prev's string, copied across batches */
    size_t keep_cap = 0;
    int ui, ei, have = 0, ok = 1, rc;
    uint64_t at = 0;

    o.columns = cols;
    o.n_columns = 2;
    if ((rc = pq_reader_open(&r, io, ctx, path, &o)) < 0)
        die(ctx, path, rc);
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0)
        die(ctx, path, rc);
    ui = child_index(&s, "user_id");
    ei = child_index(&s, "event_id");
    if (ui < 0 || ei < 0 || strcmp(s.children[ei]->format, "l") != 0) {
        fprintf(stderr, "bench_compact: %s: no user_id or event_id "
                        "column\n", path);
        exit(1);
    }
    while (ok && (rc = pq_reader_next(r, ctx, &b)) == 1) {
        const struct ArrowArray *u = b.children[ui], *e = b.children[ei];
        int64_t i;

        for (i = 0; i < b.length; i++, at++) {
            get_row(&cur, s.children[ui], u, e, b.offset + i);
            if (have && row_cmp(&prev, &cur) > 0) {
                fprintf(stderr, "bench_compact: %s: row %llu is out of "
                                "order (user_id %.*s, event_id %lld after "
                                "%.*s, %lld)\n", path,
                        (unsigned long long)at, (int)cur.user_len,
                        cur.user ? cur.user : "", (long long)cur.id,
                        (int)prev.user_len, prev.user ? prev.user : "",
                        (long long)prev.id);
                ok = 0;
                break;
            }
            prev = cur;
            have = 1;
        }
        if (ok && have && prev.user != NULL) {   /* outlive the batch */
            if (prev.user_len + 1 > keep_cap) {
                keep_cap = prev.user_len + 64;
                keep = zb_realloc(keep, keep_cap);
            }
            memcpy(keep, prev.user, prev.user_len);
            prev.user = keep;
        }
        b.release(&b);
    }
    if (rc < 0)
        die(ctx, path, rc);
    *rows = at;
    zb_free(keep);
    s.release(&s);
    pq_reader_free(r);
    return ok;
}

static zb_ctx *walk_ctx;
static zb_io *walk_io;
static uint64_t walk_files, walk_rows, walk_bad;

static int check_one(const char *path, const struct stat *st, int type,
                     struct FTW *ftw)
{
    size_t len = strlen(path);
    uint64_t n = 0;

    (void)st;
    (void)ftw;
    if (type != FTW_F || len < 8 || strcmp(path + len - 8, ".parquet") != 0)
        return 0;
    if (!check_sorted(walk_ctx, walk_io, path, &n))
        walk_bad++;
    walk_files++;
    walk_rows += n;
    return 0;
}

/*
 * Checks every Parquet file under the table folder: they are all the
 * compaction's outputs (the inputs stay in IN_DIR; WORK_DIR starts
 * without a table, or the create fails).
 */
static void check_outputs(zb_ctx *ctx, zb_io *io, const char *tdir)
{
    walk_ctx = ctx;
    walk_io = io;
    if (nftw(tdir, check_one, 16, FTW_PHYS) != 0) {
        perror(tdir);
        exit(1);
    }
    printf("check: %llu sorted file(s) read back, %llu rows, %s\n",
           (unsigned long long)walk_files, (unsigned long long)walk_rows,
           walk_bad ? "NOT all in (user_id, event_id) order"
                    : "each in (user_id, event_id) order");
    fflush(stdout);
    if (walk_bad)
        exit(1);
}

int main(int argc, char **argv)
{
    const char *in, *work, *mode;
    uint64_t budget_mib, group_mib, rows = 0, bytes = 0;
    unsigned threads;
    char tdir[4096], **files = NULL;
    size_t n, i;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *cat = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    struct rusage ru;
    double t0, secs;
    pid_t pid;
    int st = 0, rc;

    if (argc < 3) {
        fprintf(stderr, "usage: bench_compact IN_DIR WORK_DIR [binpack|sort] "
                        "[BUDGET_MIB] [THREADS] [GROUP_MIB]\n");
        return 2;
    }
    in = argv[1];
    work = argv[2];
    mode = argc > 3 ? argv[3] : "binpack";
    budget_mib = argc > 4 ? strtoull(argv[4], NULL, 10) : 512;
    threads = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 2;
    group_mib = argc > 6 ? strtoull(argv[6], NULL, 10) : 0;
    zb_ctx_init(&ctx);
    n = list_files(&files, in);
    snprintf(tdir, sizeof tdir, "%s/table", work);
    if (zb_io_new(&io, &ctx) < 0)
        return 1;
    cfg.kind = ZB_CATALOG_PATH;
    if ((rc = zb_catalog_open(&cat, &ctx, io, &cfg)) < 0)
        die(&ctx, "catalog", rc);
    make_table(&ctx, io, cat, tdir, files, n, &rows, &bytes);
    if (group_mib == 0)
        group_mib = bytes / threads / (1 << 20) + 1;
    printf("input: %zu files, %llu rows, %.1f MB; %s, budget %llu MiB, "
           "%u thread(s), groups of %llu MiB\n", n,
           (unsigned long long)rows, (double)bytes / 1e6, mode,
           (unsigned long long)budget_mib, threads,
           (unsigned long long)group_mib);
    fflush(stdout);
    t0 = now_s();
    if ((pid = fork()) == 0) {
        zb_op_target t = { cat, io, tdir, 0, 0 };
        zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
        zb_compact_sort_field sf[2] = { { 4, 0, 0 }, { 1, 0, 0 } };
        zb_compact_result r;
        zb_budget *b = NULL;

        if (zb_budget_new(&b, budget_mib << 20, NULL) < 0)
            _exit(1);
        ctx.budget = b;
        o.max_concurrent = (int)threads;
        o.max_group_bytes = group_mib << 20;
        o.rewrite_all = 1;
        if (strcmp(mode, "sort") == 0) {
            o.strategy = ZB_COMPACT_SORT;
            o.sort_fields = sf;        /* user_id, event_id */
            o.n_sort_fields = 2;
            /* What a group's share of the budget leaves beside the
             * reading and writing (about 160 MiB): groups run at once. */
            o.sort_memory_bytes = budget_mib / threads > 192
                                      ? (budget_mib / threads - 160) << 20
                                      : (uint64_t)32 << 20;
        }
        if ((rc = zb_compact(&t, &ctx, &o, &r)) < 0)
            die(&ctx, "compact", rc);
        printf("zamboni  %s: %llu group(s), %llu files -> %llu (%.1f MB), "
               "%llu rows written\n", mode,
               (unsigned long long)r.groups_committed,
               (unsigned long long)r.files_removed,
               (unsigned long long)r.files_added,
               (double)r.bytes_added / 1e6,
               (unsigned long long)r.rows_written);
        for (i = 0; i < r.plan.n_groups; i++)
            if (r.plan.groups[i].sort_spilled_bytes > 0)
                printf("  group %zu: %llu runs, %.1f MB spilled\n", i + 1,
                       (unsigned long long)r.plan.groups[i].sort_runs,
                       (double)r.plan.groups[i].sort_spilled_bytes / 1e6);
        zb_compact_result_free(&r);
        ctx.budget = NULL;
        zb_budget_free(b);
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    secs = now_s() - t0;
    getrusage(RUSAGE_CHILDREN, &ru);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_compact: the compaction child failed\n");
        return 1;
    }
    printf("zamboni  %s: %.0f rows/s, %.1f MB/s in, %.2f s, %.2f s cpu "
           "(%.2f user), peak RSS %ld MiB\n", mode, (double)rows / secs,
           (double)bytes / 1e6 / secs, secs,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec / 1e6,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
           ru.ru_maxrss / 1024);
    fflush(stdout);
    if (strcmp(mode, "sort") == 0)
        check_outputs(&ctx, io, tdir);
    if (getenv("ZB_BENCH_DUCKDB") != NULL) {
        /* node bench/duckdb_copy.mjs [--order-by=...] THREADS OUT
         * FILES... */
        const char *order = strcmp(mode, "sort") == 0
                                ? " --order-by=user_id,event_id" : "";
        size_t len = 256 + strlen(work);
        char *cmd, tbuf[16];
        FILE *p;
        char line[1024];
        double drps = 0;

        for (i = 0; i < n; i++)
            len += strlen(files[i]) + 3;
        cmd = zb_malloc(len);
        snprintf(tbuf, sizeof tbuf, "%u", threads);
        {
            size_t at = (size_t)snprintf(cmd, len, "node %s/bench/"
                                         "duckdb_copy.mjs%s %s "
                                         "%s/duckdb.parquet", ZB_SOURCE_DIR,
                                         order, tbuf, work);

            for (i = 0; i < n; i++)
                at += (size_t)snprintf(cmd + at, len - at, " %s", files[i]);
        }
        if ((p = popen(cmd, "r")) != NULL) {
            while (fgets(line, sizeof line, p) != NULL) {
                char *at = strstr(line, ": ");

                fputs(line, stdout);
                if (at != NULL && strstr(line, "rows/s") != NULL)
                    drps = strtod(at + 2, NULL);
            }
            pclose(p);
        }
        if (drps > 0)
            printf("ratio: zamboni %s / duckdb copy%s = %.2f\n", mode,
                   *order ? " order by" : "",
                   (double)rows / secs / drps);
        zb_free(cmd);
    }
    for (i = 0; i < n; i++)
        zb_free(files[i]);
    zb_free(files);
    zb_catalog_free(cat);
    zb_io_free(io);
    return 0;
}

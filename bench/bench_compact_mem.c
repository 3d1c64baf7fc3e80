/*
 * bench/bench_compact_mem.c - the memory of compaction under a byte
 * budget (issue 8, "done when": with a 256 MiB budget, compacting a 4 GiB
 * table, binpack and sort, keeps peak RSS under 400 MiB).
 *
 *   bench_compact_mem [WORK_DIR] [--files N] [--rows R] [--procs P]
 *                     [--budget-mib B] [--limit-mib L] [--threads T]
 *                     [--group-mib G] [--sort-mib S] [--only binpack|sort]
 *                     [--use N] [--no-tune] [--clean]
 *
 * WORK_DIR (default $TMPDIR/zb-compact-mem, else /tmp/...) holds gen/: N
 * zstd Parquet files (default 2,048 of 38,000 rows: about 4 GiB on disk)
 * of an event schema whose payloads are random words and tokens, so the
 * data compresses but not trivially. They are written by P forked
 * processes (default 2) with our own Parquet writer, and listed in
 * gen/files.txt last: a later run finds the list and reuses the files.
 *
 * For each strategy a new folder table (WORK_DIR/run-<strategy>) gets the
 * generated files as its data files in one append, then a child process
 * compacts it with a byte budget of B MiB (default 256), T groups at once
 * (default 2), groups of at most G MiB of input (default 1024), target
 * 128 MiB; sort by (user_id, event_id) with S MiB of sort memory (default
 * 0: compaction's own choice). The child sets up the allocator as the
 * CLI does (zb_alloc_tune_process; --no-tune: glibc's defaults) and
 * samples zb_alloc_live_bytes, so that what was allocated shows beside
 * what the process kept. The parent takes the child's peak RSS from
 * wait4 and prints rows, input bytes, output files, seconds, rows/s, peak
 * RSS, bytes spilled, and PASS or FAIL against L MiB (default 400); --use
 * N registers only the first N files (a smaller run). After
 * the sort run, the first output file is read back and checked to be in
 * (user_id, event_id) order. Each run's table is deleted after it; with
 * --clean gen/ is too, at the end. Exit 0 when every run passed.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
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

#define N_WORDS 1024
#define N_TYPES 12
#define PAYLOAD_MAX 200

typedef struct cfg {
    char work[2048];
    int files, rows, procs, threads, clean, use, no_tune;
    uint64_t budget_mib, limit_mib, group_mib, sort_mib;
    const char *only;
} cfg;

/* What the compaction child reports through its pipe. */
typedef struct child_out {
    int rc;
    uint64_t groups, files_added, bytes_added, rows_written;
    uint64_t spilled, runs, est_peak, live_peak, plan_rows;
    char msg[512];
} child_out;

static char g_words[N_WORDS][12];
static const char *const TYPES[N_TYPES] = {
    "click", "view", "purchase", "refund", "login", "logout", "search",
    "add_to_cart", "remove_from_cart", "share", "signup", "error"
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void make_words(void)
{
    uint64_t s = 42;
    int i, j;

    for (i = 0; i < N_WORDS; i++) {
        int len = 3 + (int)(rnd(&s) % 8);

        for (j = 0; j < len; j++)
            g_words[i][j] = (char)('a' + rnd(&s) % 26);
        g_words[i][len] = '\0';
    }
}

static void fail(const char *what, zb_ctx *ctx, int rc)
{
    fprintf(stderr, "bench_compact_mem: %s: %s (%s)\n", what, zb_rc_name(rc),
            ctx != NULL ? ctx->err.msg : "");
    exit(1);
}

static int make_schema(struct ArrowSchema *s)
{
    static const char *const fmt[7] = { "l", "tsu:", "u", "u", "g", "b",
                                        "u" };
    static const char *const name[7] = { "event_id", "event_time",
                                         "event_type", "user_id", "amount",
                                         "flag", "payload" };
    int i;

    if (zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, 7) < 0)
        return -1;
    for (i = 0; i < 7; i++)
        if (zb_arrow_schema_field(s->children[i], fmt[i], name[i], i + 1, 1,
                                  0) < 0)
            return -1;
    return 0;
}

/* A string column of n values made by fn into a fresh child array. */
static int string_col(struct ArrowArray *a, int n, size_t max_len,
                      size_t (*fn)(char *, uint64_t *, int64_t),
                      uint64_t *s, int64_t first, int null_every)
{
    int32_t *off;
    uint8_t *valid = NULL;
    char *chars;
    int i, at = 0;

    if (zb_arrow_array_init(a, 3, 0) < 0)
        return -1;
    off = zb_malloc(((size_t)n + 1) * sizeof *off);
    chars = zb_malloc((size_t)n * max_len + 1);
    if (null_every > 0)
        valid = zb_calloc((size_t)n / 8 + 1, 1);
    a->buffers[0] = valid;
    a->buffers[1] = off;
    a->buffers[2] = chars;
    if (off == NULL || chars == NULL || (null_every > 0 && valid == NULL))
        return -1;
    off[0] = 0;
    for (i = 0; i < n; i++) {
        if (null_every > 0 && i % null_every == null_every - 1) {
            a->null_count++;
        } else {
            if (valid != NULL)
                zb_arrow_set_bit(valid, i);
            at += (int)fn(chars + at, s, first + i);
        }
        off[i + 1] = at;
    }
    a->length = n;
    return 0;
}

static size_t gen_type(char *out, uint64_t *s, int64_t id)
{
    /* Skewed: the first types far more often. */
    uint64_t r = rnd(s) % 1000;
    const char *t = TYPES[r < 500 ? 0 : r < 800 ? 1 : 2 + (int)(r % 10)];
    size_t len = strlen(t);

    (void)id;
    memcpy(out, t, len);
    return len;
}

static size_t gen_user(char *out, uint64_t *s, int64_t id)
{
    (void)id;
    return (size_t)snprintf(out, 24, "user-%07u",
                            (unsigned)(rnd(s) % 5000000));
}

static size_t gen_payload(char *out, uint64_t *s, int64_t id)
{
    static const char B32[] = "abcdefghijklmnopqrstuvwxyz234567";
    int words = 4 + (int)(rnd(s) % 10), i;
    size_t at = 0;
    uint64_t tok = rnd(s);

    (void)id;
    for (i = 0; i < words; i++) {
        const char *w = g_words[rnd(s) % N_WORDS];
        size_t len = strlen(w);

        memcpy(out + at, w, len);
        at += len;
        out[at++] = ' ';
    }
    out[at++] = '#';
    for (i = 0; i < 24; i++) {
        if (i == 12)
            tok = rnd(s);
        out[at++] = B32[tok & 31];
        tok >>= 5;
    }
    return at;
}

/* The rows of file f: n rows, event ids from f * n. */
static int make_batch(struct ArrowArray *b, int f, int n)
{
    uint64_t s = 0x5eed0000ull + (uint64_t)f;
    int64_t first = (int64_t)f * n, *ids, *ts;
    double *amt;
    uint8_t *flag;
    int i;

    if (zb_arrow_array_init(b, 1, 7) < 0)
        return -1;
    for (i = 0; i < 7; i++)
        if (i != 2 && i != 3 && i != 6 &&
            zb_arrow_array_init(b->children[i], 2, 0) < 0)
            return -1;
    ids = zb_malloc((size_t)n * sizeof *ids);
    ts = zb_malloc((size_t)n * sizeof *ts);
    amt = zb_malloc((size_t)n * sizeof *amt);
    flag = zb_calloc((size_t)n / 8 + 1, 1);
    b->children[0]->buffers[1] = ids;
    b->children[1]->buffers[1] = ts;
    b->children[4]->buffers[1] = amt;
    b->children[5]->buffers[1] = flag;
    if (ids == NULL || ts == NULL || amt == NULL || flag == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        ids[i] = first + i;
        /* 2026-01-01 plus about 5 ms per event, jittered. */
        ts[i] = 1767225600000000ll + (first + i) * 5000 +
                (int64_t)(rnd(&s) % 5000);
        amt[i] = (double)(rnd(&s) % 1000000) / 100.0;
        if (rnd(&s) & 1)
            zb_arrow_set_bit(flag, i);
    }
    if (string_col(b->children[2], n, 20, gen_type, &s, first, 0) < 0 ||
        string_col(b->children[3], n, 16, gen_user, &s, first, 0) < 0 ||
        string_col(b->children[6], n, PAYLOAD_MAX, gen_payload, &s, first,
                   50) < 0)
        return -1;
    for (i = 0; i < 7; i++)
        b->children[i]->length = n;
    b->length = n;
    return 0;
}

static void gen_path(char *out, size_t size, const cfg *c, int f)
{
    snprintf(out, size, "%s/gen/data/part-%05d.parquet", c->work, f);
}

/* Writes files f = p, p + procs, ... (skipping those already there). */
static int gen_worker(const cfg *c, int p)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    struct ArrowSchema s;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    int f, rc = 0;

    zb_ctx_init(&ctx);
    memset(&s, 0, sizeof s);
    if (zb_io_new(&io, &ctx) < 0 || make_schema(&s) < 0)
        return -1;
    for (f = p; f < c->files && rc == 0; f += c->procs) {
        char path[4096];
        struct ArrowArray b;
        struct stat st;
        pq_writer *w = NULL;
        pq_write_result res;

        gen_path(path, sizeof path, c, f);
        if (stat(path, &st) == 0)
            continue;
        memset(&b, 0, sizeof b);
        memset(&res, 0, sizeof res);
        if (make_batch(&b, f, c->rows) < 0) {
            fprintf(stderr, "bench_compact_mem: out of memory\n");
            rc = -1;
        } else if ((rc = pq_writer_open(&w, io, &ctx, path, &s, &wo)) < 0 ||
                   (rc = pq_writer_write(w, &ctx, &b)) < 0 ||
                   (rc = pq_writer_close(w, &ctx, &res)) < 0) {
            if (rc < 0 && w != NULL && ctx.err.code != ZB_OK)
                fprintf(stderr, "bench_compact_mem: %s: %s\n", path,
                        ctx.err.msg);
            rc = -1;
        }
        pq_write_result_free(&res);
        zb_arrow_array_release(&b);
    }
    zb_arrow_schema_release(&s);
    zb_io_free(io);
    return rc;
}

/* Generates gen/ unless gen/files.txt is there. */
static void generate(const cfg *c)
{
    char list[4096], tmp[4200], dir[4096];
    struct stat st;
    FILE *out;
    double t0 = now_s();
    uint64_t bytes = 0;
    int p, f, failed = 0;

    snprintf(list, sizeof list, "%s/gen/files.txt", c->work);
    if (stat(list, &st) == 0) {
        printf("reusing the table in %s/gen\n", c->work);
        return;
    }
    snprintf(dir, sizeof dir, "%s/gen", c->work);
    mkdir(c->work, 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/gen/data", c->work);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    printf("generating %d files of %d rows into %s (%d processes)\n",
           c->files, c->rows, dir, c->procs);
    fflush(stdout);
    for (p = 0; p < c->procs; p++) {
        pid_t pid = fork();

        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (pid == 0)
            _exit(gen_worker(c, p) < 0 ? 1 : 0);
    }
    for (p = 0; p < c->procs; p++) {
        int ws;

        if (wait(&ws) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            failed++;
    }
    if (failed) {
        fprintf(stderr, "bench_compact_mem: %d generator(s) failed\n",
                failed);
        exit(1);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", list);
    if ((out = fopen(tmp, "w")) == NULL) {
        perror(tmp);
        exit(1);
    }
    for (f = 0; f < c->files; f++) {
        char path[4096];

        gen_path(path, sizeof path, c, f);
        if (stat(path, &st) < 0) {
            perror(path);
            exit(1);
        }
        fprintf(out, "%s %d %lld\n", path, c->rows, (long long)st.st_size);
        bytes += (uint64_t)st.st_size;
    }
    if (fclose(out) != 0 || rename(tmp, list) < 0) {
        perror(list);
        exit(1);
    }
    printf("generated %.2f GiB in %.1f s\n", (double)bytes / (1 << 30),
           now_s() - t0);
}

/* gen/files.txt as data_file records (paths zb_strdup'd). */
static size_t read_list(ice_data_file **out, const cfg *c, uint64_t *rows,
                        uint64_t *bytes)
{
    char list[4096], path[4096];
    long long r, sz;
    FILE *in;
    ice_data_file *v = NULL;
    size_t n = 0, cap = 0;

    snprintf(list, sizeof list, "%s/gen/files.txt", c->work);
    if ((in = fopen(list, "r")) == NULL) {
        perror(list);
        exit(1);
    }
    *rows = *bytes = 0;
    while ((c->use <= 0 || n < (size_t)c->use) &&
           fscanf(in, "%4095s %lld %lld", path, &r, &sz) == 3) {
        ice_data_file *d;

        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = zb_realloc(v, cap * sizeof *v);
            if (v == NULL)
                fail("list", NULL, ZB_ENOMEM);
        }
        d = &v[n++];
        memset(d, 0, sizeof *d);
        d->content = ICE_CONTENT_DATA;
        d->file_path = zb_strdup(path);
        d->file_format = "PARQUET";
        d->record_count = r;
        d->file_size_in_bytes = sz;
        d->block_size_in_bytes = ICE_NULL_LONG;
        d->first_row_id = ICE_NULL_LONG;
        d->content_offset = ICE_NULL_LONG;
        d->content_size_in_bytes = ICE_NULL_LONG;
        *rows += (uint64_t)r;
        *bytes += (uint64_t)sz;
    }
    fclose(in);
    *out = v;
    return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_tree(const char *dir)
{
    (void)nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
}

/* A new folder table at tdir whose data files are the generated ones. */
static void make_table(zb_catalog *cat, zb_io *io, zb_ctx *ctx,
                       const char *tdir, const ice_data_file *df, size_t n)
{
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    zb_table *t = NULL;
    int rc;

    rm_tree(tdir);
    if ((rc = zb_ingest_create(&t, cat, ctx, tdir, NULL, (const zb_json *)schema,
                               NULL, NULL,
                               0, 2)) < 0)
        fail("create", ctx, rc);
    if ((rc = zb_ingest_commit_files(&t, cat, io, ctx, df, NULL, n)) < 0)
        fail("commit", ctx, rc);
    zb_table_free(t);
    json_decref(schema);
}

static atomic_int g_sampling;
static _Atomic uint64_t g_live_peak;

/* Samples the bytes held through zb_malloc every 5 ms. */
static void *sampler(void *arg)
{
    struct timespec ts = { 0, 5000000 };

    (void)arg;
    while (atomic_load(&g_sampling)) {
        uint64_t l = zb_alloc_live_bytes();

        if (l > atomic_load(&g_live_peak))
            atomic_store(&g_live_peak, l);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void child_run(int fd, zb_catalog *cat, zb_io *io, const char *tdir,
                      const cfg *c, int sort)
{
    zb_op_target t = { cat, io, tdir, 0, 0 };
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field sf[2] = { { 4, 0, 0 }, { 1, 0, 0 } };
    zb_compact_result r;
    zb_budget *b = NULL;
    child_out co;
    zb_ctx ctx;
    size_t i;

    pthread_t th;
    int sampling;

    memset(&co, 0, sizeof co);
    zb_ctx_init(&ctx);
    /* As the CLI runs: freed blocks stay in the heap (util/alloc.h). */
    if (!c->no_tune)
        zb_alloc_tune_process();
    atomic_store(&g_sampling, 1);
    sampling = pthread_create(&th, NULL, sampler, NULL) == 0;
    if ((co.rc = zb_budget_new(&b, c->budget_mib << 20, NULL)) < 0)
        goto out;
    ctx.budget = b;
    o.max_concurrent = c->threads;
    o.max_group_bytes = c->group_mib << 20;
    o.rewrite_all = 1;
    if (sort) {
        o.strategy = ZB_COMPACT_SORT;
        o.sort_fields = sf;            /* user_id, event_id */
        o.n_sort_fields = 2;
        o.sort_memory_bytes = c->sort_mib << 20;
    }
    co.rc = zb_compact(&t, &ctx, &o, &r);
    co.groups = r.groups_committed;
    co.files_added = r.files_added;
    co.bytes_added = r.bytes_added;
    co.rows_written = r.rows_written;
    co.est_peak = r.plan.est_peak_memory_bytes;
    co.plan_rows = r.plan.rows;
    for (i = 0; i < r.plan.n_groups; i++) {
        co.spilled += r.plan.groups[i].sort_spilled_bytes;
        co.runs += r.plan.groups[i].sort_runs;
    }
    snprintf(co.msg, sizeof co.msg, "%s", ctx.err.msg);
    atomic_store(&g_sampling, 0);
    if (sampling)
        pthread_join(th, NULL);
    co.live_peak = atomic_load(&g_live_peak);
    zb_compact_result_free(&r);
    ctx.budget = NULL;
    zb_budget_free(b);
out:
    if (write(fd, &co, sizeof co) != (ssize_t)sizeof co)
        _exit(1);
    _exit(0);
}

/* Reads one output file of the sorted table and checks its order. */
static int check_sorted(zb_catalog *cat, zb_io *io, const char *tdir)
{
    zb_ctx ctx;
    zb_table *t = NULL;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    char *path = NULL, prev_user[64] = "";
    int64_t prev_id = INT64_MIN, rows = 0, bad = 0;
    int32_t ids[2] = { 1, 4 };
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowSchema s;
    struct ArrowArray b;
    int rc, ci = -1, cu = -1, k;

    zb_ctx_init(&ctx);
    memset(&s, 0, sizeof s);
    if ((rc = zb_catalog_load_table(cat, &ctx, tdir, &t)) < 0 ||
        (rc = ice_snapshot_iter_open(&it, io, &ctx, t->meta,
                                     ice_metadata_current_snapshot(t->meta),
                                     &t->paths)) < 0)
        fail("reload", &ctx, rc);
    while (path == NULL && (rc = ice_snapshot_iter_next(it, &ctx, &e,
                                                        &mf)) > 0)
        if (e->data_file.content == ICE_CONTENT_DATA)
            path = zb_strdup(e->data_file.file_path);
    ice_snapshot_iter_free(it);
    if (path == NULL)
        fail("no output file", &ctx, rc);
    ro.field_ids = ids;
    ro.n_field_ids = 2;
    if ((rc = pq_reader_open(&r, io, &ctx, path, &ro)) < 0 ||
        (rc = pq_reader_arrow_schema(&s, r, &ctx)) < 0)
        fail(path, &ctx, rc);
    for (k = 0; k < s.n_children; k++) {
        if (strcmp(s.children[k]->name, "event_id") == 0)
            ci = k;
        else if (strcmp(s.children[k]->name, "user_id") == 0)
            cu = k;
    }
    if (ci < 0 || cu < 0)
        fail("sorted check: columns missing", &ctx, ZB_EINVAL);
    while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
        const struct ArrowArray *ai = b.children[ci], *au = b.children[cu];
        const int64_t *iv = (const int64_t *)ai->buffers[1];
        const int32_t *off = (const int32_t *)au->buffers[1];
        const char *ch = (const char *)au->buffers[2];
        int64_t i;

        for (i = 0; i < b.length; i++) {
            char u[64];
            int64_t id = iv[ai->offset + i];
            int32_t a = off[au->offset + i], z = off[au->offset + i + 1];
            int cmp;

            snprintf(u, sizeof u, "%.*s", (int)(z - a), ch + a);
            cmp = strcmp(prev_user, u);
            if (rows > 0 && (cmp > 0 || (cmp == 0 && prev_id > id)))
                bad++;
            snprintf(prev_user, sizeof prev_user, "%s", u);
            prev_id = id;
            rows++;
        }
        b.release(&b);
    }
    if (rc < 0)
        fail(path, &ctx, rc);
    printf("  sorted check: %s: %lld rows, %lld out of (user_id, event_id) "
           "order: %s\n", path, (long long)rows, (long long)bad,
           bad == 0 && rows > 0 ? "ok" : "NOT SORTED");
    s.release(&s);
    pq_reader_free(r);
    zb_free(path);
    zb_table_free(t);
    return bad == 0 && rows > 0 ? 0 : -1;
}

/* One strategy: register, compact in a child, report. 0 on PASS. */
static int run(const cfg *c, const char *mode, const ice_data_file *df,
               size_t n, uint64_t rows, uint64_t bytes)
{
    int sort = strcmp(mode, "sort") == 0, fds[2], ws = 0, ok;
    char tdir[4200];
    zb_catalog_config cc = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *cat = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    struct rusage ru;
    child_out co;
    double t0, secs;
    long rss_mib;
    pid_t pid;
    int rc;

    zb_ctx_init(&ctx);
    snprintf(tdir, sizeof tdir, "%s/run-%s", c->work, mode);
    if (zb_io_new(&io, &ctx) < 0)
        fail("io", &ctx, ZB_ENOMEM);
    cc.kind = ZB_CATALOG_PATH;
    if ((rc = zb_catalog_open(&cat, &ctx, io, &cc)) < 0)
        fail("catalog", &ctx, rc);
    make_table(cat, io, &ctx, tdir, df, n);
    memset(&co, 0, sizeof co);
    memset(&ru, 0, sizeof ru);
    if (pipe(fds) < 0) {
        perror("pipe");
        exit(1);
    }
    fflush(stdout);
    t0 = now_s();
    if ((pid = fork()) == 0) {
        close(fds[0]);
        child_run(fds[1], cat, io, tdir, c, sort);
    }
    close(fds[1]);
    if (pid < 0 || read(fds[0], &co, sizeof co) != (ssize_t)sizeof co)
        co.rc = ZB_ERROR;
    close(fds[0]);
    if (pid > 0)
        (void)wait4(pid, &ws, 0, &ru);
    secs = now_s() - t0;
    rss_mib = ru.ru_maxrss / 1024;
    if (co.rc < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        printf("%-7s: FAIL: compaction failed: %s (%s)\n", mode,
               zb_rc_name(co.rc), co.msg);
        ok = 0;
    } else {
        ok = co.rows_written == co.plan_rows &&
             (uint64_t)rss_mib < c->limit_mib;
        printf("%-7s: rows %llu, input %.2f GiB (%zu files), output %llu "
               "files (%.2f GiB) in %llu group(s), %.1f s, %.0f rows/s, "
               "peak RSS %ld MiB (allocated at most %llu MiB), spilled "
               "%.2f GiB (%llu runs), largest group estimate %llu MiB: %s "
               "(limit %llu MiB)\n",
               mode, (unsigned long long)co.rows_written,
               (double)bytes / (1 << 30), n,
               (unsigned long long)co.files_added,
               (double)co.bytes_added / (1 << 30),
               (unsigned long long)co.groups, secs,
               (double)co.rows_written / secs,
               rss_mib, (unsigned long long)(co.live_peak >> 20),
               (double)co.spilled / (1 << 30),
               (unsigned long long)co.runs,
               (unsigned long long)(co.est_peak >> 20),
               ok ? "PASS" : "FAIL", (unsigned long long)c->limit_mib);
        if (co.rows_written != co.plan_rows)
            printf("  rows written %llu != rows of the groups %llu (table: "
                   "%llu)\n", (unsigned long long)co.rows_written,
                   (unsigned long long)co.plan_rows,
                   (unsigned long long)rows);
        if (sort && check_sorted(cat, io, tdir) < 0)
            ok = 0;
    }
    fflush(stdout);
    zb_catalog_free(cat);
    zb_io_free(io);
    rm_tree(tdir);
    return ok ? 0 : -1;
}

static uint64_t num(const char *v)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);

    if (*v == '\0' || *end != '\0') {
        fprintf(stderr, "bench_compact_mem: not a number: %s\n", v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    cfg c;
    const char *tmp = getenv("TMPDIR");
    ice_data_file *df = NULL;
    uint64_t rows, bytes;
    size_t n, i;
    int a, failed = 0;

    memset(&c, 0, sizeof c);
    c.files = 2048;
    c.rows = 38000;
    c.procs = 2;
    c.threads = 2;
    c.budget_mib = 256;
    c.limit_mib = 400;
    c.group_mib = 1024;
    snprintf(c.work, sizeof c.work, "%s/zb-compact-mem",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    for (a = 1; a < argc; a++) {
        const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;

        if (strcmp(k, "--clean") == 0 || strcmp(k, "--no-tune") == 0) {
            *(k[2] == 'c' ? &c.clean : &c.no_tune) = 1;
            continue;
        }
        if (k[0] != '-') {
            snprintf(c.work, sizeof c.work, "%s", k);
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "usage: bench_compact_mem [WORK_DIR] [--files N] "
                    "[--rows R] [--procs P] [--budget-mib B] "
                    "[--limit-mib L] [--threads T] [--group-mib G] "
                    "[--sort-mib S] [--only binpack|sort] [--use N] "
                    "[--no-tune] [--clean]\n");
            return 2;
        }
        a++;
        if (strcmp(k, "--files") == 0) c.files = (int)num(v);
        else if (strcmp(k, "--rows") == 0) c.rows = (int)num(v);
        else if (strcmp(k, "--procs") == 0) c.procs = (int)num(v);
        else if (strcmp(k, "--threads") == 0) c.threads = (int)num(v);
        else if (strcmp(k, "--budget-mib") == 0) c.budget_mib = num(v);
        else if (strcmp(k, "--limit-mib") == 0) c.limit_mib = num(v);
        else if (strcmp(k, "--group-mib") == 0) c.group_mib = num(v);
        else if (strcmp(k, "--sort-mib") == 0) c.sort_mib = num(v);
        else if (strcmp(k, "--only") == 0) c.only = v;
        else if (strcmp(k, "--use") == 0) c.use = (int)num(v);
        else {
            fprintf(stderr, "bench_compact_mem: unknown option %s\n", k);
            return 2;
        }
    }
    if (c.files < 1 || c.rows < 1 || c.procs < 1 || c.threads < 1) {
        fprintf(stderr, "bench_compact_mem: counts must be positive\n");
        return 2;
    }
    make_words();
    generate(&c);
    n = read_list(&df, &c, &rows, &bytes);
    printf("table: %zu files, %llu rows, %.2f GiB; budget %llu MiB, %d "
           "group(s) at once, groups of <= %llu MiB\n", n,
           (unsigned long long)rows, (double)bytes / (1 << 30),
           (unsigned long long)c.budget_mib, c.threads,
           (unsigned long long)c.group_mib);
    if (c.only == NULL || strcmp(c.only, "binpack") == 0)
        failed += run(&c, "binpack", df, n, rows, bytes) < 0;
    if (c.only == NULL || strcmp(c.only, "sort") == 0)
        failed += run(&c, "sort", df, n, rows, bytes) < 0;
    for (i = 0; i < n; i++)
        zb_free((char *)df[i].file_path);
    zb_free(df);
    if (c.clean) {
        char gen[4200];

        snprintf(gen, sizeof gen, "%s/gen", c.work);
        rm_tree(gen);
        rmdir(c.work);
    }
    return failed ? 1 : 0;
}

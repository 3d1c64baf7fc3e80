/*
 * bench_rewrite_manifests - rewrite-manifests of a table with many small
 * manifests: by default 1,000,000 data files in 10,000 manifests of 100
 * entries, the table partitioned by identity(part) over 1,000 partitions
 * and every manifest holding files of 100 partitions (the layout many
 * streaming appends leave). Entries carry metrics for three columns and
 * bounds for two. Data files are not written: the rewrite reads only
 * metadata.
 *
 * The table is built in <dir> (a PATH catalog folder; default under
 * $TMPDIR) with the manifest writer and one add-snapshot commit; then a
 * dry run and the rewrite each run in a child process, whose time and
 * peak RSS (wait4) are printed, and the rewritten table's live entries
 * are counted. With --runs N the rewrite runs N times (main is set back
 * to the built snapshot between runs) and the medians are printed.
 *
 * Usage: bench_rewrite_manifests [--files N] [--manifests M] [--parts P]
 *                                [--runs N] [--dir DIR] [--keep]
 */
#define _DEFAULT_SOURCE
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

#include "catalog/catalog.h"
#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "ops/ingest/table_write.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/arena.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const zb_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_rewrite_manifests: %s: %s\n", what,
            ctx ? ctx->err.msg : "failed");
    exit(1);
}

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"part\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":3,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";
static const char SPEC[] =
    "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
    "\"name\":\"part\",\"transform\":\"identity\"}]}";

typedef struct env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    const char *dir;
} env;

static void open_env(env *e, const char *dir)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    zb_ctx_init(&e->ctx);
    e->dir = dir;
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "bench";
    if (zb_io_new(&e->io, &e->ctx) < 0 ||
        zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg) < 0)
        die(&e->ctx, "open");
}

static void close_env(env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
}

/* The table: n_files entries in n_mf manifests, one snapshot. */
static void build(env *e, long n_files, long n_mf, long n_parts)
{
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    json_t *spec = json_loads(SPEC, 0, NULL);
    zb_table *t = NULL, *t2 = NULL;
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_list_writer *lw = NULL;
    zb_arena *arena = NULL;
    json_t *reqs, *updates, *snap;
    const int64_t sid = 1000001;
    char uri[4096], path[512], list_uri[4096];
    long per = n_files / n_mf, m, k, at = 0;

    if (zb_ingest_create(&t, e->cat, &e->ctx, e->dir, NULL,
                         (const zb_json *)schema, (const zb_json *)spec,
                         NULL, 0, 2) < 0)
        die(&e->ctx, "create");
    json_decref(schema);
    json_decref(spec);
    if (zb_arena_new(&arena, (size_t)1 << 32) < 0)
        die(NULL, "arena");
    snprintf(list_uri, sizeof list_uri, "%s/metadata/snap-%lld-1-bench.avro",
             e->dir, (long long)sid);
    lo.format_version = 2;
    lo.snapshot_id = sid;
    lo.sequence_number = 1;
    if (ice_manifest_list_writer_open(&lw, e->io, &e->ctx, list_uri, &lo) < 0)
        die(&e->ctx, "list");
    for (m = 0; m < n_mf; m++) {
        ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
        ice_manifest_writer *w = NULL;
        ice_manifest_file mf;

        snprintf(uri, sizeof uri, "%s/metadata/bench-m%ld.avro", e->dir, m);
        wo.format_version = 2;
        wo.schema = ice_metadata_current_schema(t->meta);
        wo.spec = ice_metadata_default_spec(t->meta);
        wo.snapshot_id = sid;
        wo.sequence_number = 1;
        if (ice_manifest_writer_open(&w, e->io, &e->ctx, uri, &wo) < 0)
            die(&e->ctx, "manifest");
        for (k = 0; k < per && at < n_files; k++, at++) {
            ice_manifest_entry en;
            ice_data_file *f = &en.data_file;
            int32_t part = (int32_t)((m * per + k) % n_parts);
            ice_value pv = ice_value_int(part);
            ice_metric_long cs[3] = { { 1, 4000 }, { 2, 100 }, { 3, 9000 } };
            ice_metric_long vc[3] = { { 1, 1000 }, { 2, 1000 }, { 3, 1000 } };
            ice_metric_long nc[3] = { { 1, 0 }, { 2, 0 }, { 3, 143 } };
            int64_t lo_id = (int64_t)at * 1000, hi_id = lo_id + 999;
            uint8_t lb[8], ub[8], pb[4];
            ice_metric_bytes lbs[2] = { { 1, lb, 8 }, { 2, pb, 4 } };
            ice_metric_bytes ubs[2] = { { 1, ub, 8 }, { 2, pb, 4 } };
            int i;

            for (i = 0; i < 8; i++) {
                lb[i] = (uint8_t)(lo_id >> (8 * i));
                ub[i] = (uint8_t)(hi_id >> (8 * i));
            }
            for (i = 0; i < 4; i++)
                pb[i] = (uint8_t)(part >> (8 * i));
            memset(&en, 0, sizeof en);
            en.status = ICE_STATUS_ADDED;
            en.snapshot_id = sid;
            en.sequence_number = en.file_sequence_number = ICE_NULL_LONG;
            en.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
            snprintf(path, sizeof path,
                     "%s/data/part=%d/00000-%ld-0f3c6a1e-bench-%08ld.parquet",
                     e->dir, part, m, at);
            f->content = ICE_CONTENT_DATA;
            f->file_path = path;
            f->file_format = "PARQUET";
            f->n_partition = 1;
            f->partition = &pv;
            f->record_count = 1000;
            f->file_size_in_bytes = 13000;
            f->block_size_in_bytes = ICE_NULL_LONG;
            f->column_sizes = (ice_long_map){ 1, 3, cs };
            f->value_counts = (ice_long_map){ 1, 3, vc };
            f->null_value_counts = (ice_long_map){ 1, 3, nc };
            f->lower_bounds = (ice_bytes_map){ 1, 2, lbs };
            f->upper_bounds = (ice_bytes_map){ 1, 2, ubs };
            f->first_row_id = ICE_NULL_LONG;
            f->content_offset = f->content_size_in_bytes = ICE_NULL_LONG;
            if (ice_manifest_writer_add(w, &e->ctx, &en) < 0)
                die(&e->ctx, "entry");
        }
        if (ice_manifest_writer_commit(w, &e->ctx, &mf, arena) < 0 ||
            ice_manifest_list_writer_add(lw, &e->ctx, &mf) < 0)
            die(&e->ctx, "manifest commit");
        zb_arena_reset(arena);
    }
    if (ice_manifest_list_writer_commit(lw, &e->ctx) < 0)
        die(&e->ctx, "list commit");
    snap = json_pack("{sIsIs{ssssss}sssi}", "snapshot-id", (json_int_t)sid,
                     "sequence-number", (json_int_t)1, "summary",
                     "operation", "append", "total-records", "0",
                     "total-data-files", "0", "manifest-list", list_uri,
                     "schema-id", 0);
    {
        char num[32];

        snprintf(num, sizeof num, "%ld", n_files * 1000);
        json_object_set_new(json_object_get(snap, "summary"), "total-records",
                            json_string(num));
        snprintf(num, sizeof num, "%ld", n_files);
        json_object_set_new(json_object_get(snap, "summary"),
                            "total-data-files", json_string(num));
        json_object_set_new(snap, "timestamp-ms",
                            json_integer((json_int_t)time(NULL) * 1000));
    }
    updates = json_pack("[{ssso}{sssssIss}]", "action", "add-snapshot",
                        "snapshot", snap, "action", "set-snapshot-ref",
                        "ref-name", "main", "snapshot-id", (json_int_t)sid,
                        "type", "branch");
    reqs = json_array();
    if (updates == NULL || reqs == NULL ||
        zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                          (const zb_json *)updates, &t2) < 0)
        die(&e->ctx, "commit");
    json_decref(reqs);
    json_decref(updates);
    zb_table_free(t);
    zb_table_free(t2);
    zb_arena_free(arena);
}

/* Points main back at the built snapshot. */
static void reset_main(const char *dir)
{
    env e;
    zb_table *t = NULL, *t2 = NULL;
    ice_ref ref;
    json_t *u, *r;

    open_env(&e, dir);
    if (zb_catalog_load_table(e.cat, &e.ctx, dir, &t) < 0)
        die(&e.ctx, "load");
    memset(&ref, 0, sizeof ref);
    ref.name = "main";
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = 1000001;
    ref.min_snapshots_to_keep = -1;
    ref.max_snapshot_age_ms = ref.max_ref_age_ms = -1;
    u = json_array();
    r = json_array();
    if (u == NULL || r == NULL ||
        ice_commit_append((zb_json *)u, &e.ctx, ice_update_set_ref(&ref)) < 0 ||
        zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)r,
                          (const zb_json *)u, &t2) < 0)
        die(&e.ctx, "reset main");
    json_decref(u);
    json_decref(r);
    zb_table_free(t);
    zb_table_free(t2);
    close_env(&e);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* One run in a child; prints time and peak RSS, returns both. */
static void run(const char *dir, int dry_run, double *wall, double *rss_mib)
{
    struct rusage ru;
    int st;
    pid_t pid;
    double t0 = now_s();

    fflush(stdout);
    if ((pid = fork()) < 0)
        die(NULL, "fork");
    if (pid == 0) {
        env e;
        zb_op_target t;
        zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
        zb_rewrite_manifests_result r;
        zb_buf b;
        double s0 = now_s();

        open_env(&e, dir);
        memset(&t, 0, sizeof t);
        t.catalog = e.cat;
        t.io = e.io;
        t.ident = dir;
        t.dry_run = dry_run;
        if (zb_rewrite_manifests(&t, &e.ctx, &o, &r) < 0)
            die(&e.ctx, "rewrite");
        zb_buf_init(&b, 1 << 20);
        zb_rewrite_manifests_report(&b, "bench", &r, dry_run);
        printf("%s", zb_buf_cstr(&b));
        printf("  %s: %.2f s, %llu pass(es), target %lld bytes\n",
               dry_run ? "dry run" : "rewrite", now_s() - s0,
               (unsigned long long)r.passes, (long long)r.target_bytes);
        zb_buf_free(&b);
        close_env(&e);
        fflush(stdout);
        _exit(0);
    }
    if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        die(NULL, "child failed");
    *wall = now_s() - t0;
    *rss_mib = (double)ru.ru_maxrss / 1024.0;
    printf("  %s child: %.2f s wall, peak RSS %.1f MiB\n",
           dry_run ? "dry run" : "rewrite", *wall, *rss_mib);
}

static void count_live(const char *dir)
{
    env e;
    zb_table *t = NULL;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    long n = 0;
    int rc;

    open_env(&e, dir);
    if (zb_catalog_load_table(e.cat, &e.ctx, dir, &t) < 0 ||
        ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta,
                               ice_metadata_current_snapshot(t->meta),
                               &t->paths) < 0)
        die(&e.ctx, "load");
    while ((rc = ice_snapshot_iter_next(it, &e.ctx, &en, &mf)) > 0)
        n++;
    if (rc < 0)
        die(&e.ctx, "iter");
    printf("  live entries after: %ld\n", n);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    close_env(&e);
}

int main(int argc, char **argv)
{
    long n_files = 1000000, n_mf = 10000, n_parts = 1000;
    char dir[1024] = "";
    int keep = 0, i, runs = 1;
    env e;
    double t0, wall[16], rss[16], w1, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--files") == 0 && i + 1 < argc)
            n_files = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--manifests") == 0 && i + 1 < argc)
            n_mf = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--parts") == 0 && i + 1 < argc)
            n_parts = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = (int)strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else {
            fprintf(stderr, "usage: bench_rewrite_manifests [--files N] "
                    "[--manifests M] [--parts P] [--runs N] [--dir DIR] "
                    "[--keep]\n");
            return 2;
        }
    }
    if (n_files < 1 || n_mf < 1 || n_parts < 1 || runs < 1 || runs > 16)
        return 2;
    if (dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");

        snprintf(dir, sizeof dir, "%s/zb-bench-rewrite-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL)
            die(NULL, "mkdtemp");
    }
    printf("table %s: %ld data files in %ld manifests, %ld partitions\n",
           dir, n_files, n_mf, n_parts);
    open_env(&e, dir);
    t0 = now_s();
    build(&e, n_files, n_mf, n_parts);
    close_env(&e);
    printf("  built in %.2f s\n", now_s() - t0);
    run(dir, 1, &w1, &r1);
    for (i = 0; i < runs; i++) {
        if (i > 0)
            reset_main(dir);
        run(dir, 0, &wall[i], &rss[i]);
    }
    count_live(dir);
    qsort(wall, (size_t)runs, sizeof wall[0], cmp_double);
    qsort(rss, (size_t)runs, sizeof rss[0], cmp_double);
    printf("rewrite of %ld files in %ld manifests: median %.2f s, peak RSS "
           "median %.1f MiB (%d run(s))\n", n_files, n_mf, wall[runs / 2],
           rss[runs / 2], runs);
    if (!keep) {
        char cmd[1200];

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    return 0;
}

/*
 * bench_scan_plan - plans a synthetic snapshot of N data files (default
 * 1,000,000) in M data manifests (default 100), identity-partitioned on
 * an int column p with 1,000 values (manifest k holds the files of
 * partitions 10k..10k+9), each entry with bounds and counts for 2
 * columns; plus delete manifests: one position delete file per
 * partition, one DV for every 1,000th data file, 20 partitioned and 5
 * global (unpartitioned spec) equality delete files.
 *
 * The table is written (with the manifest writers of table/manifest/manifest.h)
 * by a child process, so that the parent's peak RSS (getrusage
 * ru_maxrss) is the planner's alone. The parent plans the snapshot
 * three times (median files/s), then once with the filter p = 5.
 * Prints files/s, deletes attached, the delete index size, peak RSS and
 * the peak of zb_alloc_live_bytes, which must not grow with N.
 *
 * Usage: bench_scan_plan [N_FILES [N_MANIFESTS [DIR]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"
#include "plan/scan/scan_plan.h"
#include "util/alloc.h"

#define N_PARTS 1000

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long max_rss_kb(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int die(zb_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_scan_plan: %s: %s\n", what, ctx->err.msg);
    return 1;
}

static const char meta_json[] =
    "{\"format-version\":3,"
    "\"table-uuid\":\"7c2e4a6b-1d3f-4a5b-9c8d-0e1f2a3b4c5d\","
    "\"location\":\"/bench/t\",\"last-sequence-number\":0,"
    "\"last-updated-ms\":1700000000000,\"last-column-id\":3,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"p\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":3,\"name\":\"v\",\"required\":false,\"type\":\"string\"}]}],"
    "\"current-schema-id\":0,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[{\"name\":\"p\","
    "\"transform\":\"identity\",\"source-id\":2,\"field-id\":1000}]},"
    "{\"spec-id\":1,\"fields\":[]}],"
    "\"default-spec-id\":0,\"last-partition-id\":1000,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":-1,"
    "\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[],\"next-row-id\":0}";

static void entry_init(ice_manifest_entry *e)
{
    memset(e, 0, sizeof *e);
    e->status = ICE_STATUS_ADDED;
    e->snapshot_id = ICE_NULL_LONG;
    e->sequence_number = ICE_NULL_LONG;
    e->file_sequence_number = ICE_NULL_LONG;
    e->data_file.block_size_in_bytes = ICE_NULL_LONG;
    e->data_file.first_row_id = ICE_NULL_LONG;
    e->data_file.content_offset = ICE_NULL_LONG;
    e->data_file.content_size_in_bytes = ICE_NULL_LONG;
    e->data_file.file_format = "PARQUET";
    e->data_file.record_count = 1000;
    e->data_file.file_size_in_bytes = 1 << 20;
}

typedef struct gen {
    zb_ctx *ctx;
    zb_io *io;
    ice_metadata *m;
    const char *dir;
    zb_arena *arena;
    ice_manifest_file *mfs;
    int n_mf;
    ice_manifest_writer *w;
} gen;

static int begin(gen *g, ice_manifest_content content, int spec_id,
                 int64_t seq)
{
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    char path[4096];

    wo.format_version = 3;
    wo.content = content;
    wo.schema = ice_metadata_current_schema(g->m);
    wo.spec = ice_metadata_spec(g->m, spec_id);
    wo.snapshot_id = 100 + seq;
    wo.sequence_number = seq;
    snprintf(path, sizeof path, "%s/m%05d.avro", g->dir, g->n_mf);
    return ice_manifest_writer_open(&g->w, g->io, g->ctx, path, &wo);
}

static int end(gen *g)
{
    int rc = ice_manifest_writer_commit(g->w, g->ctx, &g->mfs[g->n_mf],
                                        g->arena);

    g->w = NULL;
    if (rc == 0)
        g->n_mf++;
    return rc;
}

static const char *data_path(char *buf, size_t cap, long i, int part)
{
    snprintf(buf, cap, "/bench/t/data/p=%d/f-%07ld.parquet", part, i);
    return buf;
}

/* Writes the table; returns 0 or 1. */
static int generate(const char *dir, long n_files, int n_manifests)
{
    zb_ctx ctx;
    gen g;
    ice_manifest_entry e;
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_list_writer *lw = NULL;
    ice_snapshot_new sn;
    zb_buf out = ZB_BUF_INIT((size_t)1 << 26);
    char path[4096], list[4096], ref[256];
    static const int32_t eq_ids[] = { 1 };
    uint8_t lo_b[2][8], hi_b[2][8];
    ice_metric_bytes lows[2], highs[2];
    ice_metric_long counts[2], nulls[2];
    long i, per = (n_files + n_manifests - 1) / n_manifests;
    int k, rc = 1;

    zb_ctx_init(&ctx);
    memset(&g, 0, sizeof g);
    g.ctx = &ctx;
    g.dir = dir;
    if (zb_io_new(&g.io, &ctx) < 0 ||
        ice_metadata_parse(&g.m, &ctx, meta_json, strlen(meta_json),
                           "bench.json") < 0 ||
        zb_arena_new(&g.arena, (size_t)1 << 28) < 0 ||
        (g.mfs = zb_calloc((size_t)n_manifests + 8,
                           sizeof *g.mfs)) == NULL)
        return die(&ctx, "setup");
    /* data manifests: files of partitions 10k..10k+9 in manifest k */
    for (k = 0; k < n_manifests; k++) {
        if (begin(&g, ICE_MANIFEST_DATA, 0, 1) < 0)
            return die(&ctx, "manifest");
        for (i = (long)k * per; i < (long)(k + 1) * per && i < n_files;
             i++) {
            int part = (int)(((long)k * N_PARTS / n_manifests) +
                             (i % (N_PARTS / n_manifests > 0 ?
                                   N_PARTS / n_manifests : 1)));
            ice_value pv = ice_value_int(part);
            int64_t id_lo = i * 1000, id_hi = i * 1000 + 999;
            entry_init(&e);
            e.data_file.file_path = data_path(path, sizeof path, i, part);
            e.data_file.n_partition = 1;
            e.data_file.partition = &pv;
            memcpy(lo_b[0], &id_lo, 8);
            memcpy(hi_b[0], &id_hi, 8);
            memcpy(lo_b[1], &part, 4);
            memcpy(hi_b[1], &part, 4);
            lows[0] = (ice_metric_bytes){ 1, lo_b[0], 8 };
            highs[0] = (ice_metric_bytes){ 1, hi_b[0], 8 };
            lows[1] = (ice_metric_bytes){ 2, lo_b[1], 4 };
            highs[1] = (ice_metric_bytes){ 2, hi_b[1], 4 };
            counts[0] = (ice_metric_long){ 1, 1000 };
            counts[1] = (ice_metric_long){ 2, 1000 };
            nulls[0] = (ice_metric_long){ 1, 0 };
            nulls[1] = (ice_metric_long){ 2, 0 };
            e.data_file.lower_bounds = (ice_bytes_map){ 1, 2, lows };
            e.data_file.upper_bounds = (ice_bytes_map){ 1, 2, highs };
            e.data_file.value_counts = (ice_long_map){ 1, 2, counts };
            e.data_file.null_value_counts = (ice_long_map){ 1, 2, nulls };
            if (ice_manifest_writer_add(g.w, &ctx, &e) < 0)
                return die(&ctx, "add data");
        }
        if (end(&g) < 0)
            return die(&ctx, "commit data manifest");
    }
    /* position deletes, one per partition (seq 2) */
    if (begin(&g, ICE_MANIFEST_DELETES, 0, 2) < 0)
        return die(&ctx, "manifest");
    for (k = 0; k < N_PARTS; k++) {
        ice_value pv = ice_value_int(k);
        entry_init(&e);
        e.data_file.content = ICE_CONTENT_POSITION_DELETES;
        snprintf(path, sizeof path, "/bench/t/data/p=%d/pos-%d.parquet", k, k);
        e.data_file.file_path = path;
        e.data_file.n_partition = 1;
        e.data_file.partition = &pv;
        e.data_file.record_count = 50;
        if (ice_manifest_writer_add(g.w, &ctx, &e) < 0)
            return die(&ctx, "add pos");
    }
    /* equality deletes in 20 partitions (seq 3) */
    for (k = 0; k < 20; k++) {
        ice_value pv = ice_value_int(k * 50);
        entry_init(&e);
        e.data_file.content = ICE_CONTENT_EQUALITY_DELETES;
        snprintf(path, sizeof path, "/bench/t/data/eq-%d.parquet", k);
        e.data_file.file_path = path;
        e.data_file.n_partition = 1;
        e.data_file.partition = &pv;
        e.data_file.has_equality_ids = 1;
        e.data_file.n_equality_ids = 1;
        e.data_file.equality_ids = eq_ids;
        if (ice_manifest_writer_add(g.w, &ctx, &e) < 0)
            return die(&ctx, "add eq");
    }
    if (end(&g) < 0)
        return die(&ctx, "commit deletes");
    /* DVs for every 1,000th data file (seq 4) */
    if (begin(&g, ICE_MANIFEST_DELETES, 0, 4) < 0)
        return die(&ctx, "manifest");
    for (i = 0; i < n_files; i += 1000) {
        k = (int)(i / per);
        {
            int part = (int)(((long)k * N_PARTS / n_manifests) +
                             (i % (N_PARTS / n_manifests > 0 ?
                                   N_PARTS / n_manifests : 1)));
            ice_value pv = ice_value_int(part);
            entry_init(&e);
            e.data_file.content = ICE_CONTENT_POSITION_DELETES;
            e.data_file.file_path = "/bench/t/data/dvs.puffin";
            e.data_file.file_format = "puffin";
            e.data_file.referenced_data_file =
                data_path(ref, sizeof ref, i, part);
            e.data_file.content_offset = 4 + i;
            e.data_file.content_size_in_bytes = 40;
            e.data_file.n_partition = 1;
            e.data_file.partition = &pv;
            if (ice_manifest_writer_add(g.w, &ctx, &e) < 0)
                return die(&ctx, "add dv");
        }
    }
    if (end(&g) < 0)
        return die(&ctx, "commit dvs");
    /* global equality deletes (unpartitioned spec 1, seq 5) */
    if (begin(&g, ICE_MANIFEST_DELETES, 1, 5) < 0)
        return die(&ctx, "manifest");
    for (k = 0; k < 5; k++) {
        entry_init(&e);
        e.data_file.content = ICE_CONTENT_EQUALITY_DELETES;
        snprintf(path, sizeof path, "/bench/t/data/geq-%d.parquet", k);
        e.data_file.file_path = path;
        e.data_file.has_equality_ids = 1;
        e.data_file.n_equality_ids = 1;
        e.data_file.equality_ids = eq_ids;
        if (ice_manifest_writer_add(g.w, &ctx, &e) < 0)
            return die(&ctx, "add global eq");
    }
    if (end(&g) < 0)
        return die(&ctx, "commit global eq");
    /* the list and the metadata */
    snprintf(list, sizeof list, "%s/snap.avro", dir);
    lo.format_version = 3;
    lo.snapshot_id = 5;
    lo.sequence_number = 5;
    if (ice_manifest_list_writer_open(&lw, g.io, &ctx, list, &lo) < 0)
        return die(&ctx, "list");
    for (k = 0; k < g.n_mf; k++)
        if (ice_manifest_list_writer_add(lw, &ctx, &g.mfs[k]) < 0)
            return die(&ctx, "list add");
    memset(&sn, 0, sizeof sn);
    sn.added_rows = ice_manifest_list_writer_next_row_id(lw);
    if (ice_manifest_list_writer_commit(lw, &ctx) < 0)
        return die(&ctx, "list commit");
    sn.snapshot_id = 5;
    sn.parent_snapshot_id = ICE_NO_SNAPSHOT;
    sn.sequence_number = 5;
    sn.timestamp_ms = 1700000000100LL;
    sn.manifest_list = list;
    sn.operation = "overwrite";
    sn.schema_id = -1;
    sn.first_row_id = 0;
    snprintf(path, sizeof path, "%s/v1.metadata.json", dir);
    if (ice_metadata_add_snapshot(g.m, &ctx, &sn) < 0 ||
        ice_metadata_write(&out, g.m, &ctx) < 0 ||
        zb_io_write_new(g.io, &ctx, path, out.ptr, out.len) < 0)
        return die(&ctx, "metadata");
    rc = 0;
    zb_buf_free(&out);
    ice_metadata_free(g.m);
    zb_arena_free(g.arena);
    zb_free(g.mfs);
    zb_io_free(g.io);
    return rc;
}

/* Plans once: seconds, and the stats. */
static int plan_once(double *secs, zb_scan_stats *st, uint64_t *peak_live,
                     zb_io *io, zb_ctx *ctx, const ice_metadata *m,
                     const zb_scan_pred *preds, size_t n_preds)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *t;
    double t0 = now_s();
    uint64_t n = 0;
    int rc;

    po.preds = preds;
    po.n_preds = n_preds;
    if ((rc = zb_scan_plan_open(&p, io, ctx, m,
                                ice_metadata_current_snapshot(m), &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(p, ctx, &t)) > 0) {
        if ((++n & 4095) == 0 && zb_alloc_live_bytes() > *peak_live)
            *peak_live = zb_alloc_live_bytes();
    }
    zb_scan_plan_stats(st, p);
    zb_scan_plan_free(p);
    *secs = now_s() - t0;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n_files = argc > 1 ? atol(argv[1]) : 1000000;
    int n_manifests = argc > 2 ? atoi(argv[2]) : 100;
    char tmpl[] = "/tmp/bench_scan_plan.XXXXXX", path[4096];
    const char *dir = argc > 3 ? argv[3] : NULL;
    zb_ctx ctx;
    zb_io *io = NULL;
    ice_metadata *m = NULL;
    zb_scan_stats st;
    zb_scan_pred pred;
    double secs[3], fsecs, t0;
    uint64_t peak_live = 0, base_live;
    pid_t pid;
    int status, r;
    long rss_before;

    if (n_files <= 0 || n_manifests <= 0 || n_manifests > 10000) {
        fprintf(stderr, "usage: bench_scan_plan [N_FILES [N_MANIFESTS"
                " [DIR]]]\n");
        return 2;
    }
    zb_alloc_tune_process();
    if (dir == NULL && (dir = mkdtemp(tmpl)) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    t0 = now_s();
    if ((pid = fork()) == 0)
        _exit(generate(dir, n_files, n_manifests));
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_scan_plan: generating the table failed\n");
        return 1;
    }
    printf("table: %ld data files in %d manifests, written in %.1f s (%s)\n",
           n_files, n_manifests, now_s() - t0, dir);
    zb_ctx_init(&ctx);
    snprintf(path, sizeof path, "%s/v1.metadata.json", dir);
    if (zb_io_new(&io, &ctx) < 0 || ice_metadata_load(&m, io, &ctx, path) < 0)
        return die(&ctx, "load");
    rss_before = max_rss_kb();
    base_live = zb_alloc_live_bytes();
    for (r = 0; r < 3; r++)
        if (plan_once(&secs[r], &st, &peak_live, io, &ctx, m, NULL, 0) < 0)
            return die(&ctx, "plan");
    qsort(secs, 3, sizeof secs[0], cmp_double);
    printf("plan: %llu tasks, %llu deletes attached, index %llu pos + %llu"
           " eq + %llu dv = %.1f KiB, %llu manifests\n",
           (unsigned long long)st.data_files,
           (unsigned long long)st.delete_refs,
           (unsigned long long)st.pos_delete_files,
           (unsigned long long)st.eq_delete_files,
           (unsigned long long)st.dv_files, (double)st.index_bytes / 1024.0,
           (unsigned long long)st.manifests_read);
    printf("plan: median %.2f s, %.0f files/s (runs %.2f %.2f %.2f)\n",
           secs[1], (double)st.data_files / secs[1], secs[0], secs[1],
           secs[2]);
    pred.field_id = 2;
    pred.op = ZB_SCAN_EQ;
    pred.literal = ice_value_int(5);
    if (plan_once(&fsecs, &st, &peak_live, io, &ctx, m, &pred, 1) < 0)
        return die(&ctx, "plan with filter");
    printf("plan p = 5: %llu tasks, %llu files skipped, %llu of %llu data"
           " manifests skipped, %.3f s\n",
           (unsigned long long)st.data_files,
           (unsigned long long)st.data_files_skipped,
           (unsigned long long)st.manifests_skipped,
           (unsigned long long)n_manifests, fsecs);
    printf("memory: peak RSS %ld KiB (%ld KiB before planning), peak live"
           " allocations while planning %.1f MiB\n", max_rss_kb(), rss_before,
           (double)(peak_live - base_live) / (1024.0 * 1024.0));
    ice_metadata_free(m);
    zb_io_free(io);
    if (argc <= 3) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_scan_plan: could not remove %s\n", dir);
    }
    return 0;
}

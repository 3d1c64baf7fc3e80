/*
 * bench_manifest - writes a synthetic snapshot of N data files in M
 * manifests (default 1,000,000 in 10,000: 100 per manifest), partitioned
 * by day(ts), each entry with metrics maps (sizes, value, null and NaN
 * counts, lower and upper bounds) for 5 columns, into a temporary folder;
 * then streams every live entry of the snapshot with ice_snapshot_iter.
 * Prints entries/s for writing and for reading, the process's peak RSS
 * (getrusage) and the peak of zb_alloc_live_bytes during each phase,
 * which must stay flat: one manifest is held at a time.
 *
 * Usage: bench_manifest [N_FILES [N_MANIFESTS [DIR]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "io/io.h"
#include "table/manifest/manifest.h"
#include "util/alloc.h"

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
    fprintf(stderr, "bench_manifest: %s: %s\n", what, ctx->err.msg);
    return 1;
}

static const char meta_json[] =
    "{\"format-version\":2,"
    "\"table-uuid\":\"0d1f3b5c-7a9e-4c2d-8f10-2b3c4d5e6f71\","
    "\"location\":\"%s\",\"last-sequence-number\":0,"
    "\"last-updated-ms\":1700000000000,\"last-column-id\":5,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":4,\"name\":\"qty\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":5,\"name\":\"score\",\"required\":false,\"type\":\"double\"}]}],"
    "\"current-schema-id\":0,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[{\"name\":\"ts_day\","
    "\"transform\":\"day\",\"source-id\":3,\"field-id\":1000}]}],"
    "\"default-spec-id\":0,\"last-partition-id\":1000,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":-1,"
    "\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[]}";

int main(int argc, char **argv)
{
    long n_files = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    long n_manifests = argc > 2 ? strtol(argv[2], NULL, 10) : 10000;
    char tmpl[] = "/tmp/bench_manifest.XXXXXX";
    const char *dir = argc > 3 ? argv[3] : mkdtemp(tmpl);
    long per = n_files / n_manifests, i, j, k, n_read = 0;
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_buf json = ZB_BUF_INIT(1 << 20), path = ZB_BUF_INIT(4096);
    ice_metadata *m = NULL;
    zb_arena *arena = NULL;
    ice_manifest_list_writer *lw = NULL;
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_snapshot_iter *it = NULL;
    ice_snapshot_new sn;
    uint64_t peak_w = 0, peak_r = 0, base;
    double t0, t_write, t_read;
    char list_path[4096], cmd[4200];
    int rc;

    if (dir == NULL || per <= 0)
        return 2;
    zb_alloc_tune_process();
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0 || zb_arena_new(&arena, 64 << 20) < 0 ||
        zb_buf_appendf(&json, meta_json, dir) < 0 ||
        ice_metadata_parse(&m, &ctx, json.ptr, json.len, "bench") < 0)
        return die(&ctx, "setup");
    snprintf(list_path, sizeof list_path, "%s/metadata/snap-1-list.avro", dir);
    wo.format_version = 2;
    wo.schema = ice_metadata_current_schema(m);
    wo.spec = ice_metadata_default_spec(m);
    wo.snapshot_id = 1;
    wo.sequence_number = 1;
    lo.format_version = 2;
    lo.snapshot_id = 1;
    lo.sequence_number = 1;
    base = zb_alloc_live_bytes();

    t0 = now_s();
    if (ice_manifest_list_writer_open(&lw, io, &ctx, list_path, &lo) < 0)
        return die(&ctx, "list open");
    for (i = 0; i < n_manifests; i++) {
        ice_manifest_writer *w = NULL;
        ice_manifest_file mf;
        zb_buf_clear(&path);
        zb_buf_appendf(&path, "%s/metadata/m%ld.avro", dir, i);
        if (ice_manifest_writer_open(&w, io, &ctx, path.ptr, &wo) < 0)
            return die(&ctx, "manifest open");
        for (j = 0; j < per; j++) {
            long id = i * per + j;
            char fpath[256];
            ice_manifest_entry e;
            ice_value pv = ice_value_date((int32_t)(19000 + id % 365));
            ice_metric_long sizes[5], counts[5], nulls[5], nans[1];
            ice_metric_bytes lows[5], highs[5];
            uint8_t lb[5][8], hb[5][8];
            memset(&e, 0, sizeof e);
            e.status = ICE_STATUS_ADDED;
            e.snapshot_id = 1;
            e.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
            e.sequence_number = e.file_sequence_number = ICE_NULL_LONG;
            snprintf(fpath, sizeof fpath,
                     "s3://bucket/warehouse/db/t/data/ts_day=%d/"
                     "00000-%ld-6f1c2e3d-0000-4000-8000-000000000000.parquet",
                     (int)pv.u.i, id);
            e.data_file.file_path = fpath;
            e.data_file.file_format = "PARQUET";
            e.data_file.n_partition = 1;
            e.data_file.partition = &pv;
            e.data_file.record_count = 1000 + id % 1000;
            e.data_file.file_size_in_bytes = 1 << 20;
            e.data_file.block_size_in_bytes = ICE_NULL_LONG;
            e.data_file.first_row_id = ICE_NULL_LONG;
            e.data_file.content_offset = ICE_NULL_LONG;
            e.data_file.content_size_in_bytes = ICE_NULL_LONG;
            for (k = 0; k < 5; k++) {
                sizes[k] = (ice_metric_long){ (int32_t)k + 1, 4000 + k };
                counts[k] = (ice_metric_long){ (int32_t)k + 1, 1000 };
                nulls[k] = (ice_metric_long){ (int32_t)k + 1, k };
                memset(lb[k], (int)k, 8);
                memset(hb[k], 0x7f, 8);
                lows[k] = (ice_metric_bytes){ (int32_t)k + 1, lb[k], 8 };
                highs[k] = (ice_metric_bytes){ (int32_t)k + 1, hb[k], 8 };
            }
            nans[0] = (ice_metric_long){ 5, 0 };
            e.data_file.column_sizes = (ice_long_map){ 1, 5, sizes };
            e.data_file.value_counts = (ice_long_map){ 1, 5, counts };
            e.data_file.null_value_counts = (ice_long_map){ 1, 5, nulls };
            e.data_file.nan_value_counts = (ice_long_map){ 1, 1, nans };
            e.data_file.lower_bounds = (ice_bytes_map){ 1, 5, lows };
            e.data_file.upper_bounds = (ice_bytes_map){ 1, 5, highs };
            if (ice_manifest_writer_add(w, &ctx, &e) < 0)
                return die(&ctx, "add");
        }
        if (zb_alloc_live_bytes() - base > peak_w)
            peak_w = zb_alloc_live_bytes() - base;
        zb_arena_reset(arena);
        if (ice_manifest_writer_commit(w, &ctx, &mf, arena) < 0 ||
            ice_manifest_list_writer_add(lw, &ctx, &mf) < 0)
            return die(&ctx, "commit");
    }
    if (ice_manifest_list_writer_commit(lw, &ctx) < 0)
        return die(&ctx, "list commit");
    t_write = now_s() - t0;
    memset(&sn, 0, sizeof sn);
    sn.snapshot_id = 1;
    sn.parent_snapshot_id = ICE_NO_SNAPSHOT;
    sn.sequence_number = 1;
    sn.timestamp_ms = 1700000000001LL;
    sn.manifest_list = list_path;
    sn.operation = "append";
    sn.schema_id = -1;
    sn.first_row_id = -1;
    if (ice_metadata_add_snapshot(m, &ctx, &sn) < 0)
        return die(&ctx, "snapshot");
    printf("write: %ld entries in %ld manifests, %.2f s, %.0f entries/s,"
           " peak live %.2f MiB, max RSS %.1f MiB\n", n_files, n_manifests,
           t_write, (double)n_files / t_write, (double)peak_w / 1048576.0,
           (double)max_rss_kb() / 1024.0);

    {
        const ice_manifest_entry *e;
        const ice_manifest_file *mf;
        int64_t rows = 0;
        base = zb_alloc_live_bytes();
        t0 = now_s();
        if (ice_snapshot_iter_open(&it, io, &ctx, m,
                                   ice_metadata_current_snapshot(m), NULL) < 0)
            return die(&ctx, "iter open");
        while ((rc = ice_snapshot_iter_next(it, &ctx, &e, &mf)) > 0) {
            uint64_t live = zb_alloc_live_bytes() - base;
            if (live > peak_r)
                peak_r = live;
            rows += e->data_file.record_count;
            n_read++;
        }
        if (rc < 0)
            return die(&ctx, "iter");
        t_read = now_s() - t0;
        ice_snapshot_iter_free(it);
        printf("read:  %ld entries (%lld rows), %.2f s, %.0f entries/s,"
               " peak live %.2f MiB, max RSS %.1f MiB\n", n_read,
               (long long)rows, t_read, (double)n_read / t_read,
               (double)peak_r / 1048576.0, (double)max_rss_kb() / 1024.0);
    }
    ice_metadata_free(m);
    zb_arena_free(arena);
    zb_buf_free(&json);
    zb_buf_free(&path);
    zb_io_free(io);
    if (argc <= 3) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
    }
    return n_read == n_files ? 0 : 1;
}

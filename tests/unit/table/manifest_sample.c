/*
 * A small table written with our manifest writers, shared by the unit
 * tests (manifest.c) and the interop generator (zb-manifest-gen): for
 * format version v, <dir>/metadata/v1.metadata.json (+ version-hint.text),
 * a data manifest (partitioned by day(ts), identity(name), bucket[4](id)
 * and identity(price), a decimal; or unpartitioned), a delete manifest
 * (v2: position deletes with a referenced data file and equality deletes;
 * v3: deletion vectors and equality deletes) and the manifest list.
 * Data file paths name files that do not exist.
 *
 * The entries: data file A ADDED with null sequence numbers (inherited),
 * metrics maps for 5 columns, split offsets, sort order 0, key metadata;
 * B EXISTING with explicit sequence numbers (v2+) and null partition
 * values; C DELETED (not live). Deletes are ADDED.
 */
#include <stdio.h>
#include <string.h>

#include "manifest_sample.h"
#include "io/io.h"
#include "util/alloc.h"

#define CHECK(expr)                                                     \
    do {                                                                \
        if ((rc = (expr)) < 0) {                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, \
                    ctx->err.msg);                                      \
            goto done;                                                  \
        }                                                               \
    } while (0)

static const char schema_json[] =
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":4,\"name\":\"price\",\"required\":false,"
    "\"type\":\"decimal(9, 2)\"},"
    "{\"id\":5,\"name\":\"score\",\"required\":false,\"type\":\"double\"}]}],"
    "\"current-schema-id\":0,";

static const char spec_part[] =
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":3,"
    "\"field-id\":1000},"
    "{\"name\":\"name\",\"transform\":\"identity\",\"source-id\":2,"
    "\"field-id\":1001},"
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[4]\",\"source-id\":1,"
    "\"field-id\":1002},"
    "{\"name\":\"price\",\"transform\":\"identity\",\"source-id\":4,"
    "\"field-id\":1003}]}],\"default-spec-id\":0,"
    "\"last-partition-id\":1003,";

static const char spec_unpart[] =
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"default-spec-id\":0,\"last-partition-id\":999,";

int mfs_metadata_json(zb_buf *out, int version, const char *location,
                      int partitioned)
{
    return zb_buf_appendf(out,
        "{\"format-version\":%d,"
        "\"table-uuid\":\"0d1f3b5c-7a9e-4c2d-8f10-2b3c4d5e6f70\","
        "\"location\":\"%s\",\"last-sequence-number\":0,"
        "\"last-updated-ms\":1700000000000,\"last-column-id\":5,%s%s"
        "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
        "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":-1,"
        "\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
        "\"metadata-log\":[]%s}",
        version, location, schema_json, partitioned ? spec_part : spec_unpart,
        version >= 3 ? ",\"next-row-id\":0" : "");
}

/* Bounds and metrics of the 5 columns, shared by the data files. */
static uint8_t lo_bytes[5][16], hi_bytes[5][16];
static ice_metric_long sizes[5], counts[5], nulls[5], nans[1];
static ice_metric_bytes lows[5], highs[5];

static int fill_metrics(zb_ctx *ctx)
{
    ice_value lo[5], hi[5];
    zb_buf b = ZB_BUF_INIT(1024);
    int i, rc = ZB_OK;

    lo[0] = ice_value_long(1);
    hi[0] = ice_value_long(1000);
    lo[1] = ice_value_string("apple", 5);
    hi[1] = ice_value_string("pear", 4);
    lo[2] = ice_value_time(ICE_TIMESTAMPTZ, 1700000000000000LL);
    hi[2] = ice_value_time(ICE_TIMESTAMPTZ, 1700086400000000LL);
    lo[3] = ice_value_decimal64(-12345, 2);
    hi[3] = ice_value_decimal64(99999, 2);
    lo[4] = ice_value_double(-1.5);
    hi[4] = ice_value_double(2.25);
    for (i = 0; i < 5 && rc == ZB_OK; i++) {
        sizes[i] = (ice_metric_long){ i + 1, 100 + i };
        counts[i] = (ice_metric_long){ i + 1, 10 };
        nulls[i] = (ice_metric_long){ i + 1, i == 1 ? 2 : 0 };
        zb_buf_clear(&b);
        if ((rc = ice_value_to_bytes(&b, ctx, &lo[i])) < 0)
            break;
        memcpy(lo_bytes[i], b.ptr, b.len);
        lows[i] = (ice_metric_bytes){ i + 1, lo_bytes[i], b.len };
        zb_buf_clear(&b);
        if ((rc = ice_value_to_bytes(&b, ctx, &hi[i])) < 0)
            break;
        memcpy(hi_bytes[i], b.ptr, b.len);
        highs[i] = (ice_metric_bytes){ i + 1, hi_bytes[i], b.len };
    }
    nans[0] = (ice_metric_long){ 5, 1 };
    zb_buf_free(&b);
    return rc;
}

void mfs_entry_init(ice_manifest_entry *e)
{
    memset(e, 0, sizeof *e);
    e->snapshot_id = ICE_NULL_LONG;
    e->sequence_number = ICE_NULL_LONG;
    e->file_sequence_number = ICE_NULL_LONG;
    e->data_file.block_size_in_bytes = ICE_NULL_LONG;
    e->data_file.first_row_id = ICE_NULL_LONG;
    e->data_file.content_offset = ICE_NULL_LONG;
    e->data_file.content_size_in_bytes = ICE_NULL_LONG;
    e->data_file.file_format = "PARQUET";
}

static const int64_t splits[] = { 4, 1048576 };
static const int32_t eq_ids[] = { 1 };
static const uint8_t key_meta[] = { 0xde, 0xad, 0xbe, 0xef };

int mfs_write_table(zb_io *io, zb_ctx *ctx, const char *dir, int version,
                    int partitioned, mfs_result *res)
{
    zb_buf json = ZB_BUF_INIT(1 << 20), path = ZB_BUF_INIT(4096);
    zb_buf out = ZB_BUF_INIT(1 << 20);
    char data_a[512], data_b[512], data_c[512], list_path[512];
    ice_metadata *m = NULL;
    ice_manifest_writer *w = NULL;
    ice_manifest_list_writer *lw = NULL;
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_file mfs[2];
    ice_manifest_entry e;
    ice_value part[4];
    zb_arena *arena = NULL;
    ice_snapshot_new sn;
    int rc, i, n_mf = 0;
    const int64_t snap_id = 3051729675574597004LL;

    memset(res, 0, sizeof *res);
    CHECK(fill_metrics(ctx));
    CHECK(zb_arena_new(&arena, 1 << 20));
    CHECK(mfs_metadata_json(&json, version, dir, partitioned));
    CHECK(ice_metadata_parse(&m, ctx, json.ptr, json.len, "sample.json"));
    snprintf(data_a, sizeof data_a, "%s/data/a.parquet", dir);
    snprintf(data_b, sizeof data_b, "%s/data/b.parquet", dir);
    snprintf(data_c, sizeof data_c, "%s/data/c.parquet", dir);

    /* the data manifest */
    wo.format_version = version;
    wo.schema = ice_metadata_current_schema(m);
    wo.spec = ice_metadata_default_spec(m);
    wo.snapshot_id = snap_id;
    wo.sequence_number = 1;
    CHECK(zb_buf_appendf(&path, "%s/metadata/m-data.avro", dir));
    CHECK(ice_manifest_writer_open(&w, io, ctx, path.ptr, &wo));
    part[0] = ice_value_date(19675);
    part[1] = ice_value_string("apple", 5);
    part[2] = ice_value_int(3);
    part[3] = ice_value_decimal64(1999, 2);
    mfs_entry_init(&e);
    e.status = ICE_STATUS_ADDED;
    e.snapshot_id = snap_id;
    e.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
    e.data_file.file_path = data_a;
    e.data_file.n_partition = partitioned ? 4 : 0;
    e.data_file.partition = part;
    e.data_file.record_count = 10;
    e.data_file.file_size_in_bytes = 4096;
    e.data_file.column_sizes = (ice_long_map){ 1, 5, sizes };
    e.data_file.value_counts = (ice_long_map){ 1, 5, counts };
    e.data_file.null_value_counts = (ice_long_map){ 1, 5, nulls };
    e.data_file.nan_value_counts = (ice_long_map){ 1, 1, nans };
    e.data_file.lower_bounds = (ice_bytes_map){ 1, 5, lows };
    e.data_file.upper_bounds = (ice_bytes_map){ 1, 5, highs };
    e.data_file.has_split_offsets = 1;
    e.data_file.n_split_offsets = 2;
    e.data_file.split_offsets = splits;
    e.data_file.has_sort_order_id = 1;
    e.data_file.key_metadata = key_meta;
    e.data_file.key_metadata_len = sizeof key_meta;
    CHECK(ice_manifest_writer_add(w, ctx, &e));

    /* B: existing, null partition values, explicit sequence numbers */
    {
        ice_value nullpart[4] = { ice_value_null(ICE_DATE),
                                  ice_value_null(ICE_STRING),
                                  ice_value_null(ICE_INT),
                                  ice_value_null(ICE_DECIMAL) };
        mfs_entry_init(&e);
        e.status = version == 1 ? ICE_STATUS_ADDED : ICE_STATUS_EXISTING;
        e.snapshot_id = 1111111111111111111LL;
        e.sequence_number = 1;
        e.file_sequence_number = 1;
        e.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT |
                          ICE_ENTRY_SEQ_EXPLICIT | ICE_ENTRY_FILE_SEQ_EXPLICIT;
        e.data_file.file_path = data_b;
        e.data_file.n_partition = partitioned ? 4 : 0;
        e.data_file.partition = nullpart;
        e.data_file.record_count = 7;
        e.data_file.file_size_in_bytes = 2048;
        if (version >= 3) {
            e.data_file.first_row_id = 100;
            e.explicit_mask |= ICE_ENTRY_FIRST_ROW_ID_EXPLICIT;
        }
        CHECK(ice_manifest_writer_add(w, ctx, &e));
        /* C: deleted */
        e.status = ICE_STATUS_DELETED;
        e.data_file.file_path = data_c;
        e.data_file.partition = part;
        e.data_file.record_count = 3;
        if (version >= 3)
            e.data_file.first_row_id = 200;
        CHECK(ice_manifest_writer_add(w, ctx, &e));
    }
    rc = ice_manifest_writer_commit(w, ctx, &mfs[n_mf], arena);
    w = NULL;
    CHECK(rc);
    n_mf++;

    /* the delete manifest */
    if (version >= 2) {
        zb_buf_clear(&path);
        wo.content = ICE_MANIFEST_DELETES;
        CHECK(zb_buf_appendf(&path, "%s/metadata/m-deletes.avro", dir));
        CHECK(ice_manifest_writer_open(&w, io, ctx, path.ptr, &wo));
        mfs_entry_init(&e);
        e.status = ICE_STATUS_ADDED;
        e.data_file.content = ICE_CONTENT_POSITION_DELETES;
        e.data_file.n_partition = partitioned ? 4 : 0;
        e.data_file.partition = part;
        e.data_file.record_count = 2;
        e.data_file.referenced_data_file = data_a;
        if (version >= 3) {
            e.data_file.file_path = "dv.puffin";
            e.data_file.file_format = "puffin";
            e.data_file.file_size_in_bytes = 824;
            e.data_file.content_offset = 4;
            e.data_file.content_size_in_bytes = 42;
        } else {
            e.data_file.file_path = "pos-deletes.parquet";
            e.data_file.file_size_in_bytes = 900;
        }
        CHECK(ice_manifest_writer_add(w, ctx, &e));
        mfs_entry_init(&e);
        e.status = ICE_STATUS_ADDED;
        e.data_file.content = ICE_CONTENT_EQUALITY_DELETES;
        e.data_file.file_path = "eq-deletes.parquet";
        e.data_file.n_partition = partitioned ? 4 : 0;
        e.data_file.partition = part;
        e.data_file.record_count = 1;
        e.data_file.file_size_in_bytes = 700;
        e.data_file.has_equality_ids = 1;
        e.data_file.n_equality_ids = 1;
        e.data_file.equality_ids = eq_ids;
        e.data_file.has_sort_order_id = 1;
        CHECK(ice_manifest_writer_add(w, ctx, &e));
        rc = ice_manifest_writer_commit(w, ctx, &mfs[n_mf], arena);
        w = NULL;
        CHECK(rc);
        n_mf++;
    }

    /* the manifest list and the snapshot */
    snprintf(list_path, sizeof list_path,
             "%s/metadata/snap-%lld-1-sample.avro", dir, (long long)snap_id);
    lo.format_version = version;
    lo.snapshot_id = snap_id;
    lo.sequence_number = 1;
    lo.first_row_id = 0;
    CHECK(ice_manifest_list_writer_open(&lw, io, ctx, list_path, &lo));
    for (i = 0; i < n_mf; i++)
        CHECK(ice_manifest_list_writer_add(lw, ctx, &mfs[i]));
    res->next_row_id = ice_manifest_list_writer_next_row_id(lw);
    rc = ice_manifest_list_writer_commit(lw, ctx);
    lw = NULL;
    CHECK(rc);
    memset(&sn, 0, sizeof sn);
    sn.snapshot_id = snap_id;
    sn.parent_snapshot_id = ICE_NO_SNAPSHOT;
    sn.sequence_number = version >= 2 ? 1 : 0;
    sn.timestamp_ms = 1700000000100LL;
    sn.manifest_list = list_path;
    sn.operation = "append";
    sn.schema_id = -1;
    sn.first_row_id = version >= 3 ? 0 : -1;
    sn.added_rows = version >= 3 ? res->next_row_id : 0;
    CHECK(ice_metadata_add_snapshot(m, ctx, &sn));
    CHECK(ice_metadata_write(&out, m, ctx));
    zb_buf_clear(&path);
    CHECK(zb_buf_appendf(&path, "%s/metadata/v1.metadata.json", dir));
    CHECK(zb_io_write_new(io, ctx, path.ptr, out.ptr, out.len));
    zb_buf_clear(&path);
    CHECK(zb_buf_appendf(&path, "%s/metadata/version-hint.text", dir));
    CHECK(zb_io_write_new(io, ctx, path.ptr, "1", 1));
    res->n_manifests = n_mf;
    res->data_length = mfs[0].manifest_length;
    res->snapshot_id = snap_id;
    rc = ZB_OK;
done:
    ice_manifest_writer_abort(w);
    ice_manifest_list_writer_abort(lw);
    ice_metadata_free(m);
    zb_arena_free(arena);
    zb_buf_free(&json);
    zb_buf_free(&path);
    zb_buf_free(&out);
    return rc;
}

/*
 * Manifests and manifest lists: the sample table (manifest_sample.c)
 * written for v1, v2 and v3 and read back through the snapshot iterator
 * and the plain readers; the inheritance rules of format/spec.md
 * (snapshot id, data and file sequence numbers, first row id); path
 * remapping; writer refusals; and bad files: truncated and corrupted
 * manifests and a schema without field ids fail with messages that name
 * the file and field, and never crash (run under ASan in CI).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "manifest_sample.h"
#include "util/alloc.h"
#include "zbtest.h"

typedef struct fx {
    zb_ctx ctx;
    zb_io *io;
    char dir[1024];
    ice_metadata *m;
    mfs_result res;
} fx;

static void fx_table(fx *f, int version, int partitioned)
{
    char *uri = NULL;

    zb_ctx_init(&f->ctx);
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    snprintf(f->dir, sizeof f->dir, "%s/t", zbt_tmpdir());
    ZBT_OK_CTX(mfs_write_table(f->io, &f->ctx, f->dir, version, partitioned,
                               &f->res), &f->ctx);
    ZBT_OK_CTX(ice_metadata_find_latest(&uri, f->io, &f->ctx, f->dir),
               &f->ctx);
    ZBT_OK_CTX(ice_metadata_load(&f->m, f->io, &f->ctx, uri), &f->ctx);
    zb_free(uri);
}

static void fx_free(fx *f)
{
    ice_metadata_free(f->m);
    zb_io_free(f->io);
}

static const ice_manifest_entry *find(const ice_manifest_entry **es,
                                      size_t n, const char *suffix)
{
    size_t i, k = strlen(suffix);

    for (i = 0; i < n; i++) {
        const char *p = es[i]->data_file.file_path;
        size_t l = strlen(p);
        if (l >= k && strcmp(p + l - k, suffix) == 0)
            return es[i];
    }
    return NULL;
}

/* Walks the current snapshot; copies of the entries' scalars go in out. */
typedef struct seen {
    ice_manifest_entry e;
    char path[512];
    ice_value part[4];
    char part_str[4][32];
    size_t n_lower;
    int64_t first_lower_len;
} seen;

static size_t walk(fx *f, seen *out, size_t max)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    size_t n = 0, i;
    int rc;

    ZBT_OK_CTX(ice_snapshot_iter_open(&it, f->io, &f->ctx, f->m,
                                      ice_metadata_current_snapshot(f->m),
                                      NULL), &f->ctx);
    while ((rc = ice_snapshot_iter_next(it, &f->ctx, &e, &mf)) > 0) {
        ZBT_CHECK(n < max);
        ZBT_CHECK(mf != NULL && mf->manifest_path != NULL);
        out[n].e = *e;
        snprintf(out[n].path, sizeof out[n].path, "%s",
                 e->data_file.file_path);
        out[n].e.data_file.file_path = out[n].path;
        for (i = 0; i < e->data_file.n_partition && i < 4; i++) {
            out[n].part[i] = e->data_file.partition[i];
            if (out[n].part[i].type == ICE_STRING && !out[n].part[i].is_null) {
                snprintf(out[n].part_str[i], 32, "%.*s",
                         (int)out[n].part[i].u.bin.len,
                         (const char *)out[n].part[i].u.bin.ptr);
                out[n].part[i].u.bin.ptr = (const uint8_t *)out[n].part_str[i];
            }
        }
        out[n].n_lower = e->data_file.lower_bounds.n;
        out[n].first_lower_len = e->data_file.lower_bounds.n
                                     ? (int64_t)e->data_file.lower_bounds.items[0].len
                                     : -1;
        n++;
    }
    ZBT_OK_CTX(rc, &f->ctx);
    ZBT_EQ_INT(ice_snapshot_iter_unknown(it), 0);
    ice_snapshot_iter_free(it);
    return n;
}

static void check_version(int version)
{
    fx f;
    seen s[8];
    const ice_manifest_entry *es[8] = { NULL };
    const ice_manifest_entry *a, *b, *pos, *eq;
    size_t n, i;

    fx_table(&f, version, 1);
    n = walk(&f, s, 8);
    for (i = 0; i < n; i++)
        es[i] = &s[i].e;
    ZBT_EQ_INT(n, version == 1 ? 2 : 4);   /* C is DELETED: skipped */
    a = find(es, n, "/data/a.parquet");
    b = find(es, n, "/data/b.parquet");
    ZBT_CHECK(a && b && find(es, n, "/data/c.parquet") == NULL);
    ZBT_EQ_INT(a->status, ICE_STATUS_ADDED);
    ZBT_EQ_INT(a->snapshot_id, f.res.snapshot_id);
    /* A's sequence numbers are null in the file: inherited (v1: 0) */
    ZBT_EQ_INT(a->sequence_number, version == 1 ? 0 : 1);
    ZBT_EQ_INT(a->file_sequence_number, version == 1 ? 0 : 1);
    ZBT_EQ_INT(a->explicit_mask & ICE_ENTRY_SEQ_EXPLICIT, 0);
    ZBT_EQ_INT(a->data_file.record_count, 10);
    ZBT_EQ_INT(a->data_file.content, ICE_CONTENT_DATA);
    ZBT_EQ_INT(a->data_file.n_partition, 4);
    ZBT_EQ_INT(a->data_file.column_sizes.n, 5);
    ZBT_EQ_INT(a->data_file.nan_value_counts.n, 1);
    ZBT_EQ_INT(a->data_file.split_offsets == NULL, 0);
    ZBT_EQ_INT(a->data_file.has_sort_order_id, 1);
    ZBT_EQ_INT(a->data_file.block_size_in_bytes,
               version == 1 ? (64 << 20) : ICE_NULL_LONG);
    ZBT_EQ_INT(b->status, version == 1 ? ICE_STATUS_ADDED
                                       : ICE_STATUS_EXISTING);
    ZBT_EQ_INT(b->snapshot_id, 1111111111111111111LL);
    if (version >= 2) {
        ZBT_CHECK(b->explicit_mask & ICE_ENTRY_SEQ_EXPLICIT);
        pos = NULL;
        eq = NULL;
        for (i = 0; i < n; i++) {
            if (es[i]->data_file.content == ICE_CONTENT_POSITION_DELETES)
                pos = es[i];
            if (es[i]->data_file.content == ICE_CONTENT_EQUALITY_DELETES)
                eq = es[i];
        }
        ZBT_CHECK(pos && eq);
        ZBT_EQ_INT(pos->sequence_number, 1);
        ZBT_EQ_INT(pos->data_file.first_row_id, ICE_NULL_LONG);
        ZBT_EQ_INT(eq->data_file.n_equality_ids, 1);
        ZBT_EQ_INT(eq->data_file.has_equality_ids, 1);
        if (version >= 3) {
            ZBT_EQ_INT(pos->data_file.content_offset, 4);
            ZBT_EQ_INT(pos->data_file.content_size_in_bytes, 42);
        } else {
            ZBT_EQ_INT(pos->data_file.content_offset, ICE_NULL_LONG);
        }
    }
    if (version >= 3) {
        /* the list writer gave the data manifest first_row_id 0, so A
         * (null) inherits 0; B is explicit */
        ZBT_EQ_INT(a->data_file.first_row_id, 0);
        ZBT_EQ_INT(b->data_file.first_row_id, 100);
        ZBT_EQ_INT(f.res.next_row_id, 17);   /* 10 added + 7 existing */
    } else {
        ZBT_EQ_INT(a->data_file.first_row_id, ICE_NULL_LONG);
    }
    fx_free(&f);
}

static void test_table_manifest__roundtrip_v1(void) { check_version(1); }
static void test_table_manifest__roundtrip_v2(void) { check_version(2); }
static void test_table_manifest__roundtrip_v3(void) { check_version(3); }

static void test_table_manifest__partition_values(void)
{
    fx f;
    seen s[8];
    size_t n, i;
    int found = 0;

    fx_table(&f, 2, 1);
    n = walk(&f, s, 8);
    for (i = 0; i < n; i++) {
        if (strstr(s[i].path, "/data/a.parquet")) {
            ice_value want = ice_value_decimal64(1999, 2);
            ZBT_EQ_INT(s[i].part[0].u.i, 19675);
            ZBT_EQ_STR(s[i].part_str[1], "apple");
            ZBT_EQ_INT(s[i].part[2].type, ICE_INT);
            ZBT_EQ_INT(s[i].part[2].u.i, 3);
            ZBT_EQ_INT(s[i].part[3].type, ICE_DECIMAL);
            ZBT_EQ_INT(ice_value_cmp(&s[i].part[3], &want), 0);
            found++;
        }
        if (strstr(s[i].path, "/data/b.parquet")) {
            ZBT_CHECK(s[i].part[0].is_null && s[i].part[1].is_null &&
                      s[i].part[2].is_null && s[i].part[3].is_null);
            found++;
        }
    }
    ZBT_EQ_INT(found, 2);
    fx_free(&f);
}

static void test_table_manifest__list_summaries(void)
{
    fx f;
    ice_manifest_list_reader *r = NULL;
    const ice_manifest_file *mf;
    int rc, n = 0;

    fx_table(&f, 3, 1);
    ZBT_OK_CTX(ice_manifest_list_open(&r, f.io, &f.ctx,
                                      ice_metadata_current_snapshot(f.m)->manifest_list,
                                      3, NULL), &f.ctx);
    while ((rc = ice_manifest_list_next(r, &f.ctx, &mf)) > 0) {
        if (n == 0) {
            ZBT_EQ_INT(mf->content, ICE_MANIFEST_DATA);
            ZBT_EQ_INT(mf->added_files_count, 1);
            ZBT_EQ_INT(mf->existing_files_count, 1);
            ZBT_EQ_INT(mf->deleted_files_count, 1);
            ZBT_EQ_INT(mf->added_rows_count, 10);
            ZBT_EQ_INT(mf->existing_rows_count, 7);
            ZBT_EQ_INT(mf->deleted_rows_count, 3);
            ZBT_EQ_INT(mf->sequence_number, 1);
            ZBT_EQ_INT(mf->min_sequence_number, 1);
            ZBT_EQ_INT(mf->first_row_id, 0);
            ZBT_EQ_INT(mf->manifest_length, f.res.data_length);
            ZBT_EQ_INT(mf->n_partitions, 4);
            ZBT_EQ_INT(mf->partitions[0].contains_null, 1);
            ZBT_EQ_INT(mf->partitions[0].contains_nan, -1);
            ZBT_EQ_INT(mf->partitions[0].lower_bound_len, 4);
            ZBT_EQ_INT(mf->partitions[1].lower_bound_len, 5);
            ZBT_CHECK(memcmp(mf->partitions[1].lower_bound, "apple", 5) == 0);
        } else {
            ZBT_EQ_INT(mf->content, ICE_MANIFEST_DELETES);
            ZBT_EQ_INT(mf->first_row_id, ICE_NULL_LONG);
        }
        n++;
    }
    ZBT_OK_CTX(rc, &f.ctx);
    ZBT_EQ_INT(n, 2);
    ice_manifest_list_free(r);
    fx_free(&f);
}

/* Reads the data manifest of the sample with a made-up list entry. */
static void read_with(fx *f, const char *name, const ice_manifest_file *mf,
                      int version, int64_t *seq_a, int64_t *row_a,
                      int64_t *snap_a)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    char path[1200];
    int rc;

    snprintf(path, sizeof path, "%s/metadata/%s", f->dir, name);
    ZBT_OK_CTX(ice_manifest_open(&r, f->io, &f->ctx, mf, path, version,
                                 NULL), &f->ctx);
    while ((rc = ice_manifest_next(r, &f->ctx, &e)) > 0) {
        if (e->status == ICE_STATUS_ADDED) {
            *seq_a = e->sequence_number;
            *row_a = e->data_file.first_row_id;
            *snap_a = e->snapshot_id;
        }
    }
    ZBT_OK_CTX(rc, &f->ctx);
    ice_manifest_free(r);
}

static void test_table_manifest__inheritance_rules(void)
{
    fx f;
    ice_manifest_file mf;
    char path[1200];
    int64_t seq = 0, row = 0, snap = 0;

    fx_table(&f, 3, 0);
    snprintf(path, sizeof path, "%s/metadata/m-data.avro", f.dir);
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = path;
    mf.sequence_number = 5;
    mf.added_snapshot_id = 42;
    mf.first_row_id = 1000;
    /* ADDED with null sequence numbers inherits the manifest's */
    read_with(&f, "m-data.avro", &mf, 3, &seq, &row, &snap);
    ZBT_EQ_INT(seq, 5);
    ZBT_EQ_INT(row, 1000);
    /* the snapshot id is explicit in the file: not inherited */
    ZBT_EQ_INT(snap, f.res.snapshot_id);
    /* without a list entry nothing is inherited */
    read_with(&f, "m-data.avro", NULL, 3, &seq, &row, &snap);
    ZBT_EQ_INT(seq, ICE_NULL_LONG);
    ZBT_EQ_INT(row, ICE_NULL_LONG);
    /* a manifest without first_row_id leaves it null */
    mf.first_row_id = ICE_NULL_LONG;
    read_with(&f, "m-data.avro", &mf, 3, &seq, &row, &snap);
    ZBT_EQ_INT(row, ICE_NULL_LONG);
    /* delete files never inherit a first_row_id; their snapshot id is
     * null in the file and inherits added_snapshot_id */
    snprintf(path, sizeof path, "%s/metadata/m-deletes.avro", f.dir);
    mf.first_row_id = 1000;
    read_with(&f, "m-deletes.avro", &mf, 3, &seq, &row, &snap);
    ZBT_EQ_INT(row, ICE_NULL_LONG);
    ZBT_EQ_INT(snap, 42);
    ZBT_EQ_INT(seq, 5);
    fx_free(&f);
}

static void test_table_manifest__v1_sequence_zero(void)
{
    fx f;
    ice_manifest_file mf;
    char path[1200];
    int64_t seq = -5, row = 0, snap = 0;

    fx_table(&f, 1, 1);
    snprintf(path, sizeof path, "%s/metadata/m-data.avro", f.dir);
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = path;
    mf.sequence_number = 7;        /* a v1 manifest has no seq columns */
    mf.first_row_id = ICE_NULL_LONG;
    read_with(&f, "m-data.avro", &mf, 1, &seq, &row, &snap);
    ZBT_EQ_INT(seq, 0);
    fx_free(&f);
}

static void test_table_manifest__remap(void)
{
    zb_ctx ctx;
    zb_buf b = ZB_BUF_INIT(4096);
    ice_path_remap rm[] = { { "hdfs://nn:8020/wh/t", "/local/t" },
                            { "s3://b/", "/s3/" } };
    ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;

    zb_ctx_init(&ctx);
    o.remaps = rm;
    o.n_remaps = 2;
    ZBT_OK_CTX(ice_manifest_resolve_path(&b, &ctx, &o,
                                         "hdfs://nn:8020/wh/t/metadata/x.avro"),
               &ctx);
    ZBT_EQ_STR(b.ptr, "/local/t/metadata/x.avro");
    /* only at a '/' boundary */
    ZBT_OK_CTX(ice_manifest_resolve_path(&b, &ctx, &o,
                                         "hdfs://nn:8020/wh/t2/m.avro"), &ctx);
    ZBT_EQ_STR(b.ptr, "hdfs://nn:8020/wh/t2/m.avro");
    ZBT_OK_CTX(ice_manifest_resolve_path(&b, &ctx, &o, "s3://b/x/y"), &ctx);
    ZBT_EQ_STR(b.ptr, "/s3/x/y");
    ZBT_OK_CTX(ice_manifest_resolve_path(&b, &ctx, NULL, "rel/p"), &ctx);
    ZBT_EQ_STR(b.ptr, "rel/p");
    zb_buf_free(&b);
}

static void test_table_manifest__writer_refuses(void)
{
    fx f;
    ice_manifest_writer *w = NULL;
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    ice_manifest_entry e;
    ice_value part[4];
    char path[1200];

    fx_table(&f, 2, 1);
    snprintf(path, sizeof path, "%s/metadata/bad.avro", f.dir);
    wo.format_version = 2;
    wo.schema = ice_metadata_current_schema(f.m);
    wo.spec = ice_metadata_default_spec(f.m);
    ZBT_OK_CTX(ice_manifest_writer_open(&w, f.io, &f.ctx, path, &wo),
               &f.ctx);
    mfs_entry_init(&e);
    e.status = ICE_STATUS_ADDED;
    e.data_file.file_path = "x.parquet";
    e.data_file.n_partition = 4;
    e.data_file.partition = part;
    part[0] = ice_value_string("not a date", 10);
    part[1] = ice_value_null(ICE_STRING);
    part[2] = ice_value_null(ICE_INT);
    part[3] = ice_value_null(ICE_DECIMAL);
    ZBT_RC(ice_manifest_writer_add(w, &f.ctx, &e), ZB_EINVAL);
    ZBT_CONTAINS(f.ctx.err.msg, "ts_day");
    part[0] = ice_value_date(1);
    e.status = ICE_STATUS_EXISTING;          /* needs explicit seqs */
    ZBT_RC(ice_manifest_writer_add(w, &f.ctx, &e), ZB_EINVAL);
    e.status = ICE_STATUS_ADDED;
    e.data_file.content = ICE_CONTENT_EQUALITY_DELETES;
    ZBT_RC(ice_manifest_writer_add(w, &f.ctx, &e), ZB_EINVAL);
    e.data_file.content = ICE_CONTENT_DATA;
    e.data_file.content_offset = 4;          /* DVs need v3 */
    ZBT_RC(ice_manifest_writer_add(w, &f.ctx, &e), ZB_EINVAL);
    ice_manifest_writer_abort(w);
    fx_free(&f);
}

/* ---- bad files ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *p;
    long n;

    ZBT_CHECK(fp != NULL);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    p = malloc((size_t)n + 1);
    ZBT_CHECK(p && fread(p, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return p;
}

/* Reads a whole manifest; returns the rc (ZB_OK when it all decodes). */
static int read_all(fx *f, const char *path, int version)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    ice_manifest_file mf;
    int rc;

    memset(&mf, 0, sizeof mf);
    mf.manifest_path = path;
    mf.sequence_number = 3;
    mf.first_row_id = 0;
    if ((rc = ice_manifest_open(&r, f->io, &f->ctx, &mf, NULL, version,
                                NULL)) < 0)
        return rc;
    while ((rc = ice_manifest_next(r, &f->ctx, &e)) > 0)
        ;
    ice_manifest_free(r);
    return rc;
}

static void test_table_manifest__truncated(void)
{
    fx f;
    char src[1200], dst[1200];
    unsigned char *data;
    size_t len, cut;
    int failures = 0;

    fx_table(&f, 3, 1);
    snprintf(src, sizeof src, "%s/metadata/m-data.avro", f.dir);
    data = slurp(src, &len);
    for (cut = 0; cut < len; cut += (cut < 64 ? 1 : 7)) {
        int rc;
        snprintf(dst, sizeof dst, "%s/cut-%zu.avro", zbt_tmpdir(), cut);
        zbt_write_file(dst, data, cut);
        rc = read_all(&f, dst, 3);
        ZBT_CHECK(rc < 0);
        ZBT_CONTAINS(f.ctx.err.msg, "cut-");
        failures++;
    }
    ZBT_CHECK(failures > 20);
    free(data);
    fx_free(&f);
}

static void test_table_manifest__corrupted(void)
{
    fx f;
    char src[1200], dst[1200];
    unsigned char *data;
    size_t len, i;
    int errors = 0;

    fx_table(&f, 2, 1);
    snprintf(src, sizeof src, "%s/metadata/m-data.avro", f.dir);
    data = slurp(src, &len);
    srand(7);
    for (i = 0; i < 300; i++) {
        unsigned char *copy = malloc(len);
        size_t at = (size_t)rand() % len;
        int rc;
        memcpy(copy, data, len);
        copy[at] ^= (unsigned char)(1 + rand() % 255);
        snprintf(dst, sizeof dst, "%s/flip-%zu.avro", zbt_tmpdir(), i);
        zbt_write_file(dst, copy, len);
        rc = read_all(&f, dst, 2);
        if (rc < 0) {
            ZBT_CONTAINS(f.ctx.err.msg, "flip-");
            errors++;
        }
        free(copy);
    }
    ZBT_CHECK(errors > 0);
    free(data);
    fx_free(&f);
}

static void test_table_manifest__no_field_ids(void)
{
    fx f;
    zb_avro_writer *w = NULL;
    char path[1200];
    const char *schema =
        "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
        "{\"name\":\"status\",\"type\":\"int\"},"
        "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":"
        "\"r2\",\"fields\":[{\"name\":\"file_path\",\"type\":\"string\"}]}}]}";

    fx_table(&f, 2, 0);
    snprintf(path, sizeof path, "%s/noids.avro", zbt_tmpdir());
    ZBT_OK_CTX(zb_avro_writer_open(&w, f.io, &f.ctx, path, schema, NULL, 0,
                                   NULL), &f.ctx);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &f.ctx), &f.ctx);
    ZBT_RC(read_all(&f, path, 2), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "noids.avro");
    ZBT_CONTAINS(f.ctx.err.msg, "status has no field-id");
    fx_free(&f);
}

static void test_table_manifest__missing_required(void)
{
    fx f;
    zb_avro_writer *w = NULL;
    char path[1200];
    const char *schema =
        "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
        "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
        "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":"
        "\"r2\",\"fields\":[{\"name\":\"content\",\"type\":\"int\","
        "\"field-id\":134},{\"name\":\"file_path\",\"type\":\"string\","
        "\"field-id\":100}]},\"field-id\":2}]}";

    fx_table(&f, 2, 0);
    snprintf(path, sizeof path, "%s/short.avro", zbt_tmpdir());
    ZBT_OK_CTX(zb_avro_writer_open(&w, f.io, &f.ctx, path, schema, NULL, 0,
                                   NULL), &f.ctx);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &f.ctx), &f.ctx);
    ZBT_RC(read_all(&f, path, 2), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "short.avro");
    ZBT_CONTAINS(f.ctx.err.msg, "file_format");
    fx_free(&f);
}

/* An EXISTING entry whose sequence number is null cannot inherit. */
static void test_table_manifest__existing_null_seq(void)
{
    fx f;
    zb_avro_writer *w = NULL;
    zb_avro_value rec, fields[3], dff[6], nullv, partv;
    char path[1200];
    const char *schema =
        "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
        "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
        "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],"
        "\"field-id\":3},"
        "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":"
        "\"r2\",\"fields\":[{\"name\":\"content\",\"type\":\"int\","
        "\"field-id\":134},{\"name\":\"file_path\",\"type\":\"string\","
        "\"field-id\":100},{\"name\":\"file_format\",\"type\":\"string\","
        "\"field-id\":101},{\"name\":\"partition\",\"type\":{\"type\":"
        "\"record\",\"name\":\"r102\",\"fields\":[]},\"field-id\":102},"
        "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
        "{\"name\":\"file_size_in_bytes\",\"type\":\"long\","
        "\"field-id\":104}]},\"field-id\":2}]}";

    fx_table(&f, 2, 0);
    snprintf(path, sizeof path, "%s/existing.avro", zbt_tmpdir());
    memset(&rec, 0, sizeof rec);
    memset(fields, 0, sizeof fields);
    memset(dff, 0, sizeof dff);
    memset(&nullv, 0, sizeof nullv);
    memset(&partv, 0, sizeof partv);
    nullv.type = ZB_AVRO_NULL;
    rec.type = ZB_AVRO_RECORD;
    rec.v.list.items = fields;
    rec.v.list.n = 3;
    fields[0].type = ZB_AVRO_INT;
    fields[0].v.i32 = ICE_STATUS_EXISTING;
    fields[1].type = ZB_AVRO_UNION;
    fields[1].v.u.branch = 0;
    fields[1].v.u.value = &nullv;
    fields[2].type = ZB_AVRO_RECORD;
    fields[2].v.list.items = dff;
    fields[2].v.list.n = 6;
    dff[0].type = ZB_AVRO_INT;
    dff[1].type = ZB_AVRO_STRING;
    dff[1].v.str.ptr = "f.parquet";
    dff[1].v.str.len = 9;
    dff[2].type = ZB_AVRO_STRING;
    dff[2].v.str.ptr = "PARQUET";
    dff[2].v.str.len = 7;
    dff[3].type = ZB_AVRO_RECORD;
    dff[4].type = ZB_AVRO_LONG;
    dff[5].type = ZB_AVRO_LONG;
    ZBT_OK_CTX(zb_avro_writer_open(&w, f.io, &f.ctx, path, schema, NULL, 0,
                                   NULL), &f.ctx);
    ZBT_OK_CTX(zb_avro_writer_append(w, &f.ctx, &rec), &f.ctx);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &f.ctx), &f.ctx);
    ZBT_RC(read_all(&f, path, 2), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "existing.avro");
    ZBT_CONTAINS(f.ctx.err.msg, "EXISTING entry with a null sequence_number");
    fx_free(&f);
}

typedef struct keep_state {
    int want;                      /* -1 every manifest, else a content */
    int rc;                        /* returned for a refused manifest */
    size_t asked;
} keep_state;

static int keep_content(const ice_manifest_file *mf, zb_ctx *ctx,
                        void *payload)
{
    keep_state *k = payload;

    k->asked++;
    if (k->want < 0 || (int)mf->content == k->want)
        return 1;
    return k->rc < 0 ? zb_fail(ctx, k->rc, "refused %s", mf->manifest_path)
                     : 0;
}

/* Walks with a keep callback: n entries (all of content want), rc. */
static int walk_kept(fx *f, keep_state *k, size_t *n)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    int rc;

    *n = 0;
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, f->io, &f->ctx, f->m,
                                      ice_metadata_current_snapshot(f->m),
                                      NULL), &f->ctx);
    ice_snapshot_iter_filter(it, keep_content, k);
    while ((rc = ice_snapshot_iter_next(it, &f->ctx, &e, &mf)) > 0) {
        ZBT_CHECK(k->want < 0 || (int)mf->content == k->want);
        ZBT_CHECK(e->status != ICE_STATUS_DELETED);
        (*n)++;
    }
    ice_snapshot_iter_free(it);
    return rc;
}

/* The keep callback picks the manifests the walk opens; an rc from it
 * ends the walk with that rc. */
static void test_table_manifest__iter_filter(void)
{
    keep_state k;
    size_t n;
    fx f;

    fx_table(&f, 2, 1);
    k.want = -1, k.rc = 0, k.asked = 0;
    ZBT_OK_CTX(walk_kept(&f, &k, &n), &f.ctx);
    ZBT_EQ_INT(n, 4);              /* as the unfiltered walk */
    ZBT_CHECK(k.asked >= 2);
    k.want = ICE_MANIFEST_DELETES, k.asked = 0;
    ZBT_OK_CTX(walk_kept(&f, &k, &n), &f.ctx);
    ZBT_EQ_INT(n, 2);              /* the position and equality deletes */
    k.want = ICE_MANIFEST_DATA, k.asked = 0;
    ZBT_OK_CTX(walk_kept(&f, &k, &n), &f.ctx);
    ZBT_EQ_INT(n, 2);              /* A and B; C is DELETED */
    k.want = ICE_MANIFEST_DATA, k.rc = ZB_ECORRUPT, k.asked = 0;
    ZBT_RC(walk_kept(&f, &k, &n), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "refused ");
    zb_err_clear(&f.ctx.err);
    fx_free(&f);
}

/* A v1 table: its manifests are asked about too. */
static void test_table_manifest__iter_filter_v1(void)
{
    keep_state k;
    size_t n;
    fx f;

    fx_table(&f, 1, 1);
    k.want = ICE_MANIFEST_DELETES, k.rc = 0, k.asked = 0;
    ZBT_OK_CTX(walk_kept(&f, &k, &n), &f.ctx);
    ZBT_EQ_INT(n, 0);
    ZBT_CHECK(k.asked >= 1);
    fx_free(&f);
}

static ice_data_file dfile(ice_file_content content, const char *format,
                           int64_t offset, int64_t blob, int64_t size)
{
    ice_data_file f;

    memset(&f, 0, sizeof f);
    f.content = content;
    f.file_path = "s3://b/t/data/f";
    f.file_format = format;
    f.file_size_in_bytes = size;
    f.content_offset = offset;
    f.content_size_in_bytes = blob;
    return f;
}

/* A DV is a position delete file in Puffin format, whatever the case of
 * the format name; content_offset alone does not make one. */
static void test_table_manifest__is_dv(void)
{
    ice_data_file f;

    f = dfile(ICE_CONTENT_POSITION_DELETES, "PUFFIN", 4, 40, 200);
    ZBT_CHECK(ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, "puffin", 4, 40, 200);
    ZBT_CHECK(ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, "Puffin", ICE_NULL_LONG,
              ICE_NULL_LONG, 200);
    ZBT_CHECK(ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PARQUET", 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PUFFINS", 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PU", 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_POSITION_DELETES, NULL, 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_EQUALITY_DELETES, "PUFFIN", 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
    f = dfile(ICE_CONTENT_DATA, "PUFFIN", 4, 40, 200);
    ZBT_CHECK(!ice_data_file_is_dv(&f));
}

/* A DV takes its blob's bytes; every other file its whole size. */
static void test_table_manifest__stored_bytes(void)
{
    ice_data_file f;

    f = dfile(ICE_CONTENT_POSITION_DELETES, "PUFFIN", 4, 40, 200);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 40);
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PUFFIN", 4, 0, 200);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 0);
    /* a DV without its blob size (corrupt) counts the whole file */
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PUFFIN", 4, ICE_NULL_LONG, 200);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 200);
    f = dfile(ICE_CONTENT_POSITION_DELETES, "PARQUET", 4, 40, 200);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 200);
    f = dfile(ICE_CONTENT_EQUALITY_DELETES, "PARQUET", ICE_NULL_LONG,
              ICE_NULL_LONG, 300);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 300);
    f = dfile(ICE_CONTENT_DATA, "PARQUET", ICE_NULL_LONG, ICE_NULL_LONG,
              1000);
    ZBT_EQ_INT(ice_data_file_stored_bytes(&f), 1000);
}

const zbt_case test_table_manifest[] = {
    ZBT_CASE(test_table_manifest__roundtrip_v1),
    ZBT_CASE(test_table_manifest__roundtrip_v2),
    ZBT_CASE(test_table_manifest__roundtrip_v3),
    ZBT_CASE(test_table_manifest__partition_values),
    ZBT_CASE(test_table_manifest__list_summaries),
    ZBT_CASE(test_table_manifest__inheritance_rules),
    ZBT_CASE(test_table_manifest__v1_sequence_zero),
    ZBT_CASE(test_table_manifest__remap),
    ZBT_CASE(test_table_manifest__writer_refuses),
    ZBT_CASE(test_table_manifest__truncated),
    ZBT_CASE(test_table_manifest__corrupted),
    ZBT_CASE(test_table_manifest__no_field_ids),
    ZBT_CASE(test_table_manifest__missing_required),
    ZBT_CASE(test_table_manifest__existing_null_seq),
    ZBT_CASE(test_table_manifest__iter_filter),
    ZBT_CASE(test_table_manifest__iter_filter_v1),
    ZBT_CASE(test_table_manifest__is_dv),
    ZBT_CASE(test_table_manifest__stored_bytes),
    ZBT_END
};

/*
 * Scan planning on small tables written here with the manifest writers
 * (rules the fixtures do not reach), on damaged manifests, and under
 * allocation failure.
 *
 * The synthetic table: schema id long (1), name string (2), score double
 * (3); spec 0 unpartitioned, spec 1 identity(name), spec 2 bucket[4](id).
 * Each manifest has its own sequence number, inherited by its entries.
 * Data and delete paths name files that do not exist: planning never
 * opens them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan_test.h"
#include "table/value/transform.h"
#include "util/alloc.h"

typedef struct synth {
    zb_ctx ctx;
    zb_io *io;
    char dir[512];
    ice_metadata *m;
    zb_arena *arena;
    ice_manifest_file mfs[16];
    int n_mf;
    ice_manifest_writer *w;
    int spec_id;
    int64_t max_seq;
    const ice_snapshot *snap;
} synth;

static const char synth_json[] =
    "{\"format-version\":3,"
    "\"table-uuid\":\"5a1c3e2f-0b4d-4e6f-8a9b-0c1d2e3f4a5b\","
    "\"location\":\"/wh/t\",\"last-sequence-number\":0,"
    "\"last-updated-ms\":1700000000000,\"last-column-id\":3,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"score\",\"required\":false,\"type\":\"double\"}"
    "]}],\"current-schema-id\":0,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]},"
    "{\"spec-id\":1,\"fields\":[{\"name\":\"name\",\"transform\":"
    "\"identity\",\"source-id\":2,\"field-id\":1000}]},"
    "{\"spec-id\":2,\"fields\":[{\"name\":\"id_bucket\",\"transform\":"
    "\"bucket[4]\",\"source-id\":1,\"field-id\":1001}]}],"
    "\"default-spec-id\":1,\"last-partition-id\":1001,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":-1,"
    "\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[],\"next-row-id\":0}";

static void sy_init(synth *s)
{
    static int serial;

    memset(s, 0, sizeof *s);
    zb_ctx_init(&s->ctx);
    snprintf(s->dir, sizeof s->dir, "%s/t%d", zbt_tmpdir(), serial++);
    ZBT_CHECK(mkdir(s->dir, 0755) == 0);
    ZBT_OK_CTX(zb_io_new(&s->io, &s->ctx), &s->ctx);
    ZBT_OK_CTX(ice_metadata_parse(&s->m, &s->ctx, synth_json,
                                  strlen(synth_json), "synth.json"), &s->ctx);
    ZBT_CHECK(zb_arena_new(&s->arena, 1 << 20) == 0);
}

static void sy_free(synth *s)
{
    ice_manifest_writer_abort(s->w);
    ice_metadata_free(s->m);
    zb_arena_free(s->arena);
    zb_io_free(s->io);
}

static void sy_begin(synth *s, ice_manifest_content content, int spec_id,
                     int64_t seq)
{
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    char path[700];

    wo.format_version = 3;
    wo.content = content;
    wo.schema = ice_metadata_current_schema(s->m);
    wo.spec = ice_metadata_spec(s->m, spec_id);
    wo.snapshot_id = 1000 + seq;
    wo.sequence_number = seq;
    snprintf(path, sizeof path, "%s/m%d.avro", s->dir, s->n_mf);
    ZBT_OK_CTX(ice_manifest_writer_open(&s->w, s->io, &s->ctx, path, &wo),
               &s->ctx);
    s->spec_id = spec_id;
    if (seq > s->max_seq)
        s->max_seq = seq;
}

static void entry_init(ice_manifest_entry *e, const ice_value *part)
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
    e->data_file.record_count = 10;
    e->data_file.file_size_in_bytes = 1000;
    e->data_file.n_partition = part ? 1 : 0;
    e->data_file.partition = part;
}

static void sy_add(synth *s, const ice_manifest_entry *e)
{
    ZBT_OK_CTX(ice_manifest_writer_add(s->w, &s->ctx, e), &s->ctx);
}

static void sy_data(synth *s, const char *path, const ice_value *part)
{
    ice_manifest_entry e;

    entry_init(&e, part);
    e.data_file.file_path = path;
    sy_add(s, &e);
}

static void sy_pos(synth *s, const char *path, const ice_value *part,
                   const char *ref)
{
    ice_manifest_entry e;

    entry_init(&e, part);
    e.data_file.content = ICE_CONTENT_POSITION_DELETES;
    e.data_file.file_path = path;
    e.data_file.referenced_data_file = ref;
    sy_add(s, &e);
}

static void sy_dv(synth *s, const char *path, const ice_value *part,
                  const char *ref, int64_t offset)
{
    ice_manifest_entry e;

    entry_init(&e, part);
    e.data_file.content = ICE_CONTENT_POSITION_DELETES;
    e.data_file.file_path = path;
    e.data_file.file_format = "puffin";
    e.data_file.referenced_data_file = ref;
    e.data_file.content_offset = offset;
    e.data_file.content_size_in_bytes = 40;
    sy_add(s, &e);
}

static const int32_t eq_ids[] = { 1 };

static void sy_eq(synth *s, const char *path, const ice_value *part)
{
    ice_manifest_entry e;

    entry_init(&e, part);
    e.data_file.content = ICE_CONTENT_EQUALITY_DELETES;
    e.data_file.file_path = path;
    e.data_file.has_equality_ids = 1;
    e.data_file.n_equality_ids = 1;
    e.data_file.equality_ids = eq_ids;
    sy_add(s, &e);
}

/* Finishes the manifest; listed with content as_content (a lie if it
 * differs from what was written). */
static void sy_end(synth *s, ice_manifest_content as_content)
{
    int rc = ice_manifest_writer_commit(s->w, &s->ctx, &s->mfs[s->n_mf],
                                        s->arena);

    s->w = NULL;
    ZBT_OK_CTX(rc, &s->ctx);
    s->mfs[s->n_mf++].content = as_content;
}

static void sy_commit(synth *s)
{
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_list_writer *lw = NULL;
    ice_snapshot_new sn;
    char path[700];
    int i, rc;

    snprintf(path, sizeof path, "%s/snap.avro", s->dir);
    lo.format_version = 3;
    lo.snapshot_id = 77;
    lo.sequence_number = s->max_seq;
    ZBT_OK_CTX(ice_manifest_list_writer_open(&lw, s->io, &s->ctx, path, &lo),
               &s->ctx);
    for (i = 0; i < s->n_mf; i++)
        ZBT_OK_CTX(ice_manifest_list_writer_add(lw, &s->ctx, &s->mfs[i]),
                   &s->ctx);
    memset(&sn, 0, sizeof sn);
    sn.added_rows = ice_manifest_list_writer_next_row_id(lw);
    rc = ice_manifest_list_writer_commit(lw, &s->ctx);
    ZBT_OK_CTX(rc, &s->ctx);
    sn.snapshot_id = 77;
    sn.parent_snapshot_id = ICE_NO_SNAPSHOT;
    sn.sequence_number = s->max_seq;
    sn.timestamp_ms = 1700000000100LL;
    sn.manifest_list = path;
    sn.operation = "overwrite";
    sn.schema_id = -1;
    sn.first_row_id = 0;
    ZBT_OK_CTX(ice_metadata_add_snapshot(s->m, &s->ctx, &sn), &s->ctx);
    s->snap = ice_metadata_current_snapshot(s->m);
    ZBT_CHECK(s->snap != NULL);
}

static int sy_plan(splan *p, synth *s, const zb_scan_pred *preds, size_t n)
{
    sfx f;

    memset(&f, 0, sizeof f);
    f.ctx = s->ctx;
    f.io = s->io;
    f.m = s->m;
    {
        ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;
        f.o = o;
    }
    {
        int rc = splan_run(p, &f, s->snap, preds, n);
        s->ctx = f.ctx;
        return rc;
    }
}

static ice_value sv(const char *s)
{
    return ice_value_string(s, strlen(s));
}

/* Builds the rules table:
 *   seq 1, spec 0: data /wh/t/u1
 *   seq 1, spec 1: data /wh/t/a1 (name a), /wh/t/b1 (name b)
 *   seq 2, spec 1: data /wh/t/a2 (a)
 *   seq 2, spec 1 deletes: eq-a2 (a), pos-a2 (a, no reference)
 *   seq 3, spec 0 deletes: eq-g3 (global), pos-u3 (unpartitioned pos)
 *   seq 3, spec 1 deletes: dv-a1 (a, DV for hdfs://nn:8020/wh/t/a1),
 *                          pos-b3 (b, referencing /wh/t/b1)
 *   seq 1, spec 1 deletes: dv-old (a, DV for /wh/t/a2: older than a2)
 */
static void build_rules(synth *s)
{
    ice_value a = sv("a"), b = sv("b");

    sy_init(s);
    sy_begin(s, ICE_MANIFEST_DATA, 0, 1);
    sy_data(s, "/wh/t/u1", NULL);
    sy_end(s, ICE_MANIFEST_DATA);
    sy_begin(s, ICE_MANIFEST_DATA, 1, 1);
    sy_data(s, "/wh/t/a1", &a);
    sy_data(s, "/wh/t/b1", &b);
    sy_end(s, ICE_MANIFEST_DATA);
    sy_begin(s, ICE_MANIFEST_DATA, 1, 2);
    sy_data(s, "/wh/t/a2", &a);
    sy_end(s, ICE_MANIFEST_DATA);
    sy_begin(s, ICE_MANIFEST_DELETES, 1, 2);
    sy_eq(s, "/wh/t/eq-a2", &a);
    sy_pos(s, "/wh/t/pos-a2", &a, NULL);
    sy_end(s, ICE_MANIFEST_DELETES);
    sy_begin(s, ICE_MANIFEST_DELETES, 0, 3);
    sy_eq(s, "/wh/t/eq-g3", NULL);
    sy_pos(s, "/wh/t/pos-u3", NULL, NULL);
    sy_end(s, ICE_MANIFEST_DELETES);
    sy_begin(s, ICE_MANIFEST_DELETES, 1, 3);
    sy_dv(s, "/wh/t/dv.puffin", &a, "hdfs://nn:8020/wh/t/a1", 4);
    sy_pos(s, "/wh/t/pos-b3", &b, "/wh/t/b1");
    sy_end(s, ICE_MANIFEST_DELETES);
    sy_begin(s, ICE_MANIFEST_DELETES, 1, 1);
    sy_dv(s, "/wh/t/dv-old.puffin", &a, "/wh/t/a2", 4);
    sy_end(s, ICE_MANIFEST_DELETES);
    sy_commit(s);
}

static void test_plan_scan_bad__rules(void)
{
    synth s;
    splan p;
    const stask *t;

    build_rules(&s);
    ZBT_OK_CTX(sy_plan(&p, &s, NULL, 0), &s.ctx);
    ZBT_EQ_U64(p.n, 4);
    /* u1: the unpartitioned position delete and the global eq delete */
    t = splan_find(&p, "/wh/t/u1");
    ZBT_EQ_U64(t->n, 2);
    ZBT_EQ_STR(t->d[0].path, "/wh/t/pos-u3");
    ZBT_EQ_STR(t->d[1].path, "/wh/t/eq-g3");
    /* a1: the DV (scheme+authority path) hides pos-a2; eq-a2 then eq-g3 */
    t = splan_find(&p, "/wh/t/a1");
    ZBT_EQ_U64(t->n, 3);
    ZBT_EQ_STR(t->d[0].path, "/wh/t/dv.puffin");
    ZBT_CHECK(t->d[0].dv);
    ZBT_EQ_STR(t->d[1].path, "/wh/t/eq-a2");
    ZBT_EQ_STR(t->d[2].path, "/wh/t/eq-g3");
    /* b1: its referencing position delete and the global eq delete */
    t = splan_find(&p, "/wh/t/b1");
    ZBT_EQ_U64(t->n, 2);
    ZBT_EQ_STR(t->d[0].path, "/wh/t/pos-b3");
    ZBT_EQ_STR(t->d[1].path, "/wh/t/eq-g3");
    /* a2 (seq 2): pos-a2 of the same sequence number applies, eq-a2 of
     * the same does not, the older DV does not */
    t = splan_find(&p, "/wh/t/a2");
    ZBT_EQ_U64(t->n, 2);
    ZBT_EQ_STR(t->d[0].path, "/wh/t/pos-a2");
    ZBT_EQ_STR(t->d[1].path, "/wh/t/eq-g3");
    ZBT_EQ_U64(p.st.dv_files, 2);
    ZBT_EQ_U64(p.st.pos_delete_files, 3);
    ZBT_EQ_U64(p.st.eq_delete_files, 2);
    ZBT_EQ_U64(p.st.unused_delete_files, 1);     /* dv-old */
    ZBT_EQ_U64(p.st.manifests_read, 7);
    splan_free(&p);
    sy_free(&s);
}

static void test_plan_scan_bad__two_dvs(void)
{
    synth s;
    splan p;
    ice_value a = sv("a");

    sy_init(&s);
    sy_begin(&s, ICE_MANIFEST_DATA, 1, 1);
    sy_data(&s, "/wh/t/a1", &a);
    sy_end(&s, ICE_MANIFEST_DATA);
    sy_begin(&s, ICE_MANIFEST_DELETES, 1, 2);
    sy_dv(&s, "/wh/t/x.puffin", &a, "/wh/t/a1", 4);
    sy_dv(&s, "/wh/t/y.puffin", &a, "/wh/t/a1", 4);
    sy_end(&s, ICE_MANIFEST_DELETES);
    sy_commit(&s);
    ZBT_RC(sy_plan(&p, &s, NULL, 0), ZB_ECORRUPT);
    ZBT_CONTAINS(s.ctx.err.msg, "two deletion vectors");
    ZBT_CONTAINS(s.ctx.err.msg, "/wh/t/a1");
    splan_free(&p);
    sy_free(&s);
}

static void test_plan_scan_bad__content_mismatch(void)
{
    synth s;
    splan p;
    ice_value a = sv("a");

    /* a data manifest listed as a delete manifest */
    sy_init(&s);
    sy_begin(&s, ICE_MANIFEST_DATA, 1, 1);
    sy_data(&s, "/wh/t/a1", &a);
    sy_end(&s, ICE_MANIFEST_DELETES);
    sy_commit(&s);
    ZBT_RC(sy_plan(&p, &s, NULL, 0), ZB_ECORRUPT);
    ZBT_CONTAINS(s.ctx.err.msg, "delete manifest");
    ZBT_CONTAINS(s.ctx.err.msg, "/wh/t/a1");
    ZBT_CONTAINS(s.ctx.err.msg, "/wh/t");
    splan_free(&p);
    sy_free(&s);
    /* a delete manifest listed as a data manifest */
    sy_init(&s);
    sy_begin(&s, ICE_MANIFEST_DELETES, 1, 1);
    sy_eq(&s, "/wh/t/eq", &a);
    sy_end(&s, ICE_MANIFEST_DATA);
    sy_commit(&s);
    ZBT_RC(sy_plan(&p, &s, NULL, 0), ZB_ECORRUPT);
    ZBT_CONTAINS(s.ctx.err.msg, "data manifest");
    ZBT_CONTAINS(s.ctx.err.msg, "/wh/t/eq");
    splan_free(&p);
    sy_free(&s);
}

/* Bucket and NaN-aware bounds on a spec-2 table. bucket[4] of the long
 * ids 1 and 34 (Appendix B: murmur3 of the 8-byte value mod 4) is taken
 * from ice_transform_apply, so the test checks the projection, not the
 * hash. */
static void test_plan_scan_bad__filter_bucket_nan(void)
{
    synth s;
    splan p;
    zb_scan_pred q[1];
    ice_manifest_entry e;
    ice_value b1, b2, lo, hi;
    uint8_t lob[8], hib[8];
    ice_metric_bytes lows[1], highs[1];
    ice_metric_long nans[1], zero_nans[1];
    ice_transform t = { ICE_TR_BUCKET, 4 };
    ice_value id1 = ice_value_long(1), id2 = ice_value_long(2);
    int64_t other;

    sy_init(&s);
    ZBT_OK_CTX(ice_transform_apply(&b1, &s.ctx, &t, &id1), &s.ctx);
    for (other = 2; other < 100; other++) {   /* an id in another bucket */
        id2 = ice_value_long(other);
        ZBT_OK_CTX(ice_transform_apply(&b2, &s.ctx, &t, &id2), &s.ctx);
        if (b2.u.i != b1.u.i)
            break;
    }
    ZBT_CHECK(b2.u.i != b1.u.i);
    lo = ice_value_double(-1.5);
    hi = ice_value_double(2.25);
    memcpy(lob, &lo.u.d, 8);      /* little-endian IEEE 754 (Appendix D) */
    memcpy(hib, &hi.u.d, 8);
    lows[0] = (ice_metric_bytes){ 3, lob, 8 };
    highs[0] = (ice_metric_bytes){ 3, hib, 8 };
    sy_begin(&s, ICE_MANIFEST_DATA, 2, 1);
    entry_init(&e, &b1);
    e.data_file.file_path = "/wh/t/nan";          /* bucket of id 1 */
    e.data_file.lower_bounds = (ice_bytes_map){ 1, 1, lows };
    e.data_file.upper_bounds = (ice_bytes_map){ 1, 1, highs };
    nans[0] = (ice_metric_long){ 3, 1 };
    e.data_file.nan_value_counts = (ice_long_map){ 1, 1, nans };
    sy_add(&s, &e);
    entry_init(&e, &b2);
    e.data_file.file_path = "/wh/t/nonan";        /* the other bucket */
    e.data_file.lower_bounds = (ice_bytes_map){ 1, 1, lows };
    e.data_file.upper_bounds = (ice_bytes_map){ 1, 1, highs };
    zero_nans[0] = (ice_metric_long){ 3, 0 };
    e.data_file.nan_value_counts = (ice_long_map){ 1, 1, zero_nans };
    sy_add(&s, &e);
    sy_end(&s, ICE_MANIFEST_DATA);
    sy_commit(&s);

    q[0].field_id = 1;
    q[0].op = ZB_SCAN_EQ;
    q[0].literal = id1;
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 1);
    ZBT_EQ_STR(p.t[0].path, "/wh/t/nan");
    splan_free(&p);
    q[0].literal = ice_value_int((int32_t)other);   /* int literal, long */
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 1);
    ZBT_EQ_STR(p.t[0].path, "/wh/t/nonan");
    splan_free(&p);
    q[0].op = ZB_SCAN_LT;          /* bucket says nothing about < */
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 2);
    splan_free(&p);
    /* score > 100: "nan" holds a NaN (count 1), kept whatever its bounds
     * say; "nonan" (NaN count 0, upper bound 2.25) skipped */
    q[0].field_id = 3;
    q[0].op = ZB_SCAN_GT;
    q[0].literal = ice_value_double(100.0);
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 1);
    ZBT_EQ_STR(p.t[0].path, "/wh/t/nan");
    splan_free(&p);
    /* score < -10: the same by the lower bound -1.5 */
    q[0].op = ZB_SCAN_LT;
    q[0].literal = ice_value_double(-10.0);
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 1);
    ZBT_EQ_STR(p.t[0].path, "/wh/t/nan");
    splan_free(&p);
    /* score <= -1.5 keeps "nonan" (its lower bound) */
    q[0].op = ZB_SCAN_LE;
    q[0].literal = ice_value_double(-1.5);
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 2);
    splan_free(&p);
    /* = -0.0 inside [-1.5, 2.25]: both kept */
    q[0].op = ZB_SCAN_EQ;
    q[0].literal = ice_value_double(-0.0);
    ZBT_OK_CTX(sy_plan(&p, &s, q, 1), &s.ctx);
    ZBT_EQ_U64(p.n, 2);
    splan_free(&p);
    sy_free(&s);
}

/* --- damaged fixture manifests ------------------------------------------ */

static void copy_tree(const char *from, const char *to)
{
    char cmd[4096];

    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s'", from, to);
    ZBT_CHECK(system(cmd) == 0);
}

/* impala-v2-pos-partitioned: data manifest 771485e9-...-m0.avro, delete
 * manifest 464c179e-...-m0.avro (see the fixture's manifest list). */
static void damage(const char *path, long keep, long flip_at)
{
    FILE *fp = fopen(path, "r+b");
    long size;

    ZBT_CHECK(fp != NULL);
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    if (flip_at >= 0 && flip_at < size) {
        int c;
        fseek(fp, flip_at, SEEK_SET);
        c = fgetc(fp);
        fseek(fp, flip_at, SEEK_SET);
        fputc(c ^ 0x5a, fp);
    }
    fclose(fp);
    if (keep >= 0 && keep < size)
        ZBT_CHECK(truncate(path, keep) == 0);
}

static int plan_copy(const char *root, const char *manifest, long keep,
                     long flip_at, char *msg, size_t msg_cap)
{
    sfx f;
    splan p;
    char path[2048];
    int rc;

    ZBT_CHECK(sfx_open_at(&f, root, "t"));
    snprintf(path, sizeof path, "%s/t/metadata/%s", root, manifest);
    damage(path, keep, flip_at);
    rc = splan_run(&p, &f, NULL, NULL, 0);
    snprintf(msg, msg_cap, "%s", f.ctx.err.msg);
    splan_free(&p);
    sfx_close(&f);
    return rc;
}

static void test_plan_scan_bad__truncated_manifests(void)
{
    static const char *const names[2] = {
        "464c179e-c9ba-40f5-a35f-144106a1f16c-m0.avro",   /* deletes */
        "771485e9-78ac-4ffc-b1ef-1fda5bab33cf-m0.avro",   /* data */
    };
    char src[1024], root[1024], msg[512];
    struct stat st;
    int i;
    long keep;

    snprintf(src, sizeof src, "%s/impala-v2-pos-partitioned", ZB_FIXTURES_DIR);
    if (stat(src, &st) != 0)
        return;
    for (i = 0; i < 2; i++) {
        char mpath[1200];
        snprintf(mpath, sizeof mpath, "%s/metadata/%s", src, names[i]);
        if (stat(mpath, &st) != 0)
            zbt__fail(__FILE__, __LINE__, "no %s", mpath);
        for (keep = 0; keep < st.st_size; keep += st.st_size / 9 + 1) {
            int rc;
            snprintf(root, sizeof root, "%s/k%d-%ld", zbt_tmpdir(), i, keep);
            ZBT_CHECK(mkdir(root, 0755) == 0);
            snprintf(mpath, sizeof mpath, "%s/t", root);
            copy_tree(src, mpath);
            rc = plan_copy(root, names[i], keep, -1, msg, sizeof msg);
            if (rc != ZB_ECORRUPT)
                zbt__fail(__FILE__, __LINE__, "%s cut at %ld: %s (%s)",
                          names[i], keep, zb_rc_name(rc), msg);
            ZBT_CONTAINS(msg, names[i]);
        }
    }
}

static void test_plan_scan_bad__corrupt_bytes(void)
{
    static const char *const names[2] = {
        "464c179e-c9ba-40f5-a35f-144106a1f16c-m0.avro",
        "771485e9-78ac-4ffc-b1ef-1fda5bab33cf-m0.avro",
    };
    char src[1024], root[1024], mpath[1200], msg[512];
    struct stat st;
    int i, n_err = 0;
    long at;

    snprintf(src, sizeof src, "%s/impala-v2-pos-partitioned", ZB_FIXTURES_DIR);
    if (stat(src, &st) != 0)
        return;
    for (i = 0; i < 2; i++) {
        snprintf(mpath, sizeof mpath, "%s/metadata/%s", src, names[i]);
        ZBT_CHECK(stat(mpath, &st) == 0);
        for (at = 0; at < st.st_size; at += st.st_size / 23 + 1) {
            int rc;
            snprintf(root, sizeof root, "%s/c%d-%ld", zbt_tmpdir(), i, at);
            ZBT_CHECK(mkdir(root, 0755) == 0);
            snprintf(mpath, sizeof mpath, "%s/t", root);
            copy_tree(src, mpath);
            /* any outcome but a crash; errors name something */
            rc = plan_copy(root, names[i], -1, at, msg, sizeof msg);
            if (rc < 0) {
                n_err++;
                ZBT_CHECK(msg[0] != '\0');
            }
        }
    }
    ZBT_CHECK(n_err > 0);
}

/* --- allocation failure ------------------------------------------------- */

static void test_plan_scan_bad__alloc_torture(void)
{
    synth s;
    uint64_t nth;
    int done = 0;

    build_rules(&s);
    for (nth = 1; !done && nth < 100000; nth++) {
        zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
        zb_scan_plan *p = NULL;
        const zb_scan_task *t;
        size_t n = 0;
        uint64_t failed;
        int rc;

        zb_scan_pred q;

        /* name = "a": a1, a2, and u1 (unpartitioned, no bounds) */
        q.field_id = 2;
        q.op = ZB_SCAN_EQ;
        q.literal = ice_value_string("a", 1);
        po.preds = &q;
        po.n_preds = 1;
        zb_alloc__fail_at(nth, 0);
        rc = zb_scan_plan_open(&p, s.io, &s.ctx, s.m, s.snap, &po);
        if (rc == 0) {
            while ((rc = zb_scan_plan_next(p, &s.ctx, &t)) > 0)
                n++;
        }
        zb_scan_plan_free(p);
        failed = zb_alloc__fail_at(0, 0);
        if (failed == 0) {
            ZBT_OK_CTX(rc, &s.ctx);
            ZBT_EQ_U64(n, 3);
            done = 1;
        } else if (rc != ZB_ENOMEM) {
            zbt__fail(__FILE__, __LINE__, "allocation %llu failed: %s (%s)",
                      (unsigned long long)nth, zb_rc_name(rc), s.ctx.err.msg);
        }
    }
    ZBT_CHECK(done);
    printf("  %llu allocation points\n", (unsigned long long)nth - 1);
    sy_free(&s);
}

const zbt_case test_plan_scan_bad[] = {
    ZBT_CASE(test_plan_scan_bad__rules),
    ZBT_CASE(test_plan_scan_bad__two_dvs),
    ZBT_CASE(test_plan_scan_bad__content_mismatch),
    ZBT_CASE(test_plan_scan_bad__filter_bucket_nan),
    ZBT_CASE(test_plan_scan_bad__truncated_manifests),
    ZBT_CASE(test_plan_scan_bad__corrupt_bytes),
    ZBT_CASE(test_plan_scan_bad__alloc_torture),
    ZBT_END
};

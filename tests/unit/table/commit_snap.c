/*
 * The snapshot producer on real files: a table created with
 * ice_metadata_create in a temporary folder, then append (data), append
 * (position or DV and equality deletes), replace (a data file and its
 * deletes rewritten), delete (a dangling delete file removed), each
 * committed the way a folder catalog does (requirements checked, updates
 * applied, the next vN.metadata.json written), for v1, v2 and v3. Read
 * back with the snapshot iterator and the manifest reader: entries,
 * statuses, sequence numbers, snapshot ids, first row ids, summaries.
 * Also: validation conflicts, stale-base conflicts and the retry,
 * manifests rolled at the target size, files written by a failed build.
 *
 * With ZB_COMMIT_OUT set, the tables are kept there with expected.json
 * (what our reader saw) for commit_check.mjs, which reads the same
 * files with avsc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit_test.h"
#include "table/commit/commit_cache.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "zamboni/io.h"

typedef struct tbl {
    zb_ctx ctx;
    zb_io *io;
    ice_metadata *m;
    char dir[1024];
    char *meta_uri;
    int version;
} tbl;

static const char schema_json[] =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":10,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":20,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]}";
static const char spec_json[] =
    "{\"fields\":[{\"name\":\"name\",\"transform\":\"identity\","
    "\"source-id\":20}]}";

static void write_version(tbl *t, const char *uri)
{
    zb_buf b = ZB_BUF_INIT(1 << 24), hint = ZB_BUF_INIT(4096);

    ZBT_OK_CTX(ice_metadata_write(&b, t->m, &t->ctx), &t->ctx);
    ZBT_OK_CTX(zb_io_write_new(t->io, &t->ctx, uri, b.ptr, b.len), &t->ctx);
    zb_buf_appendf(&hint, "%s/metadata/version-hint.text", t->dir);
    zb_io_delete(t->io, &t->ctx, zb_buf_cstr(&hint));
    {
        char v[32];
        int n = snprintf(v, sizeof v, "%lld",
                         (long long)ice_commit_metadata_version(uri));
        ZBT_OK_CTX(zb_io_write_new(t->io, &t->ctx, zb_buf_cstr(&hint), v,
                                   (size_t)n), &t->ctx);
    }
    zb_free(t->meta_uri);
    t->meta_uri = zb_strdup(uri);
    zb_buf_free(&b);
    zb_buf_free(&hint);
}

static void tbl_create(tbl *t, int version, const char *dir, const char *props)
{
    json_t *schema = ct_json(schema_json), *spec = ct_json(spec_json);
    ice_kv kv[1] = { { ICE_PROP_MANIFEST_TARGET, props } };
    char *uri = NULL;

    memset(t, 0, sizeof *t);
    zb_ctx_init(&t->ctx);
    t->version = version;
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    ZBT_OK_CTX(zb_io_new(&t->io, &t->ctx), &t->ctx);
    ZBT_OK_CTX(ice_metadata_create(&t->m, &t->ctx, (const zb_json *)schema,
                                   (const zb_json *)spec, NULL, dir,
                                   kv, props ? 1 : 0, version), &t->ctx);
    ZBT_EQ_INT(t->m->format_version, version);
    ZBT_EQ_INT(t->m->last_column_id, 2);
    ZBT_EQ_INT(t->m->specs[0].fields[0].source_id, 2);
    ZBT_EQ_INT(t->m->specs[0].fields[0].field_id, 1000);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&uri, &t->ctx, t->m, dir, NULL,
                                            ICE_NAMING_HADOOP), &t->ctx);
    ZBT_CONTAINS(uri, "/metadata/v1.metadata.json");
    write_version(t, uri);
    zb_free(uri);
    json_decref(schema);
    json_decref(spec);
}

static void tbl_free(tbl *t)
{
    ice_metadata_free(t->m);
    zb_free(t->meta_uri);
    zb_io_free(t->io);
}

/* Commits r against the table as a folder catalog would. */
static void tbl_commit(tbl *t, const ice_commit_result *r)
{
    char *uri = NULL;
    int64_t old_ms = t->m->last_updated_ms;

    ZBT_OK_CTX(ice_commit_check_requirements(t->m, &t->ctx, r->requirements),
               &t->ctx);
    ZBT_OK_CTX(ice_commit_apply_updates(t->m, &t->ctx, r->updates), &t->ctx);
    ZBT_OK_CTX(ice_metadata_append_metadata_log(t->m, &t->ctx, t->meta_uri,
                                                old_ms, 100), &t->ctx);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&uri, &t->ctx, t->m, t->dir,
                                            t->meta_uri, ICE_NAMING_HADOOP),
               &t->ctx);
    write_version(t, uri);
    zb_free(uri);
}

static ice_commit_op *new_op(tbl *t, ice_commit_op_kind kind)
{
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_op *op = NULL;

    o.kind = kind;
    o.io = t->io;
    o.root = t->dir;
    ZBT_OK_CTX(ice_commit_op_new(&op, &t->ctx, &o), &t->ctx);
    return op;
}

static const ice_metric_long value_counts[] = { { 1, 10 } };
static const int32_t eq_ids[] = { 1 };

/* A file of partition name (or unpartitioned when name is NULL). */
static void add(tbl *t, ice_commit_op *op, const char *file, const char *name,
                ice_file_content content, int64_t records, const char *ref)
{
    ice_data_file f;
    ice_value part = ice_value_string(name, strlen(name));
    char path[1200];

    snprintf(path, sizeof path, "%s/data/%s", t->dir, file);
    memset(&f, 0, sizeof f);
    f.content = content;
    f.file_path = path;
    f.file_format = "PARQUET";
    f.n_partition = 1;
    f.partition = &part;
    f.record_count = records;
    f.file_size_in_bytes = 1000 + records;
    f.block_size_in_bytes = ICE_NULL_LONG;
    f.value_counts = (ice_long_map){ 1, 1, value_counts };
    f.first_row_id = ICE_NULL_LONG;
    f.content_offset = ICE_NULL_LONG;
    f.content_size_in_bytes = ICE_NULL_LONG;
    if (content == ICE_CONTENT_EQUALITY_DELETES) {
        f.has_equality_ids = 1;
        f.n_equality_ids = 1;
        f.equality_ids = eq_ids;
    }
    if (ref != NULL) {
        char rp[1200];

        snprintf(rp, sizeof rp, "%s/data/%s", t->dir, ref);
        f.referenced_data_file = rp;
        if (t->version >= 3) {
            f.file_format = "PUFFIN";
            f.content_offset = 4;
            f.content_size_in_bytes = 40;
        }
        ZBT_OK_CTX(ice_commit_op_add_file(op, &t->ctx, -1, &f), &t->ctx);
        return;
    }
    ZBT_OK_CTX(ice_commit_op_add_file(op, &t->ctx, -1, &f), &t->ctx);
}

static void rm(tbl *t, ice_commit_op *op, const char *file)
{
    char path[1200];

    snprintf(path, sizeof path, "%s/data/%s", t->dir, file);
    ZBT_OK_CTX(ice_commit_op_remove_file(op, &t->ctx, path), &t->ctx);
}

typedef struct seen seen;
static size_t live(tbl *t, seen *out, size_t max);

/* With ZB_COMMIT_OUT: what our iterator sees in the new snapshot, for
 * commit_check.mjs to compare with its own reading. */
static void dump_expected(tbl *t);

/* Builds and commits op; returns the new snapshot id. */
static int64_t run(tbl *t, ice_commit_op *op)
{
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    int64_t id;

    ZBT_OK_CTX(ice_commit_op_build(op, &t->ctx, t->m, &r), &t->ctx);
    ZBT_CHECK(r.n_written >= 2);
    tbl_commit(t, &r);
    id = r.snapshot_id;
    ZBT_EQ_INT(t->m->current_snapshot_id, id);
    dump_expected(t);
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    return id;
}

static const char *summary(const tbl *t, const char *key)
{
    const ice_snapshot *s = ice_metadata_current_snapshot(t->m);
    size_t i;

    for (i = 0; s != NULL && i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            return s->summary[i].value;
    return NULL;
}

#define SUM(t, key, want)                                                   \
    do {                                                                    \
        const char *zs = summary(t, key);                                   \
        if ((want) == NULL)                                                 \
            ZBT_CHECK(zs == NULL);                                          \
        else                                                                \
            ZBT_EQ_STR(zs, (const char *)(want));                           \
    } while (0)

/* A live entry as the snapshot iterator gives it. */
struct seen {
    char name[64];
    int status;
    int content;
    int64_t snapshot_id, seq, fseq, first_row_id;
    int64_t records;
};

static size_t live(tbl *t, seen *out, size_t max)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    size_t n = 0;
    int rc;

    ZBT_OK_CTX(ice_snapshot_iter_open(&it, t->io, &t->ctx, t->m,
                                      ice_metadata_current_snapshot(t->m),
                                      NULL), &t->ctx);
    while ((rc = ice_snapshot_iter_next(it, &t->ctx, &e, &mf)) > 0) {
        const char *slash = strrchr(e->data_file.file_path, '/');

        ZBT_CHECK(n < max);
        snprintf(out[n].name, sizeof out[n].name, "%s", slash + 1);
        out[n].status = (int)e->status;
        out[n].content = (int)e->data_file.content;
        out[n].snapshot_id = e->snapshot_id;
        out[n].seq = e->sequence_number;
        out[n].fseq = e->file_sequence_number;
        out[n].first_row_id = e->data_file.first_row_id;
        out[n].records = e->data_file.record_count;
        n++;
    }
    ZBT_EQ_INT(rc, 0);
    ice_snapshot_iter_free(it);
    return n;
}

static void dump_expected(tbl *t)
{
    const char *keep = getenv("ZB_COMMIT_OUT");
    char path[1200];
    seen e[64];
    size_t i, n;
    FILE *f;

    if (keep == NULL || strncmp(t->dir, keep, strlen(keep)) != 0)
        return;
    n = live(t, e, 64);
    snprintf(path, sizeof path, "%s/expected.txt", t->dir);
    ZBT_CHECK((f = fopen(path, "a")) != NULL);
    for (i = 0; i < n; i++) {
        fprintf(f, "%lld %s %d %d %lld %lld %lld ",
                (long long)t->m->current_snapshot_id, e[i].name, e[i].status,
                e[i].content, (long long)e[i].snapshot_id,
                (long long)e[i].seq, (long long)e[i].fseq);
        if (e[i].first_row_id == ICE_NULL_LONG)
            fprintf(f, "null\n");
        else
            fprintf(f, "%lld\n", (long long)e[i].first_row_id);
    }
    fclose(f);
}

static const seen *find(const seen *s, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0)
            return &s[i];
    zbt__fail(__FILE__, __LINE__, "%s is not live", name);
}

/* Every entry of the current snapshot's manifests, deleted ones too:
 * count the DELETED entries naming file. */
static int deleted_in_current(tbl *t, const char *file, int64_t *snap,
                              int64_t *seq)
{
    const ice_snapshot *s = ice_metadata_current_snapshot(t->m);
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    int rc, hits = 0;

    ZBT_OK_CTX(ice_manifest_list_open(&lr, t->io, &t->ctx, s->manifest_list,
                                      t->version, NULL), &t->ctx);
    while ((rc = ice_manifest_list_next(lr, &t->ctx, &mf)) > 0) {
        ice_manifest_reader *r = NULL;
        const ice_manifest_entry *e;

        ZBT_OK_CTX(ice_manifest_open(&r, t->io, &t->ctx, mf, NULL, t->version,
                                     NULL), &t->ctx);
        while ((rc = ice_manifest_next(r, &t->ctx, &e)) > 0)
            if (e->status == ICE_STATUS_DELETED &&
                strstr(e->data_file.file_path, file) != NULL) {
                hits++;
                *snap = e->snapshot_id;
                *seq = e->sequence_number;
            }
        ZBT_EQ_INT(rc, 0);
        ice_manifest_free(r);
    }
    ZBT_EQ_INT(rc, 0);
    ice_manifest_list_free(lr);
    return hits;
}

static void scenario(int version, const char *dir)
{
    tbl t;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    int64_t s1, s2 = 0, s3, s4, snap = 0, seq = 0;
    int64_t base_seq = version >= 2 ? 1 : 0;
    seen e[16];
    size_t n;

    tbl_create(&t, version, dir, NULL);

    /* 1: append two data files in two partitions */
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    add(&t, op, "B.parquet", "b", ICE_CONTENT_DATA, 20, NULL);
    s1 = run(&t, op);
    SUM(&t, "operation", "append");
    SUM(&t, "added-data-files", "2");
    SUM(&t, "added-records", "30");
    SUM(&t, "added-files-size", "2030");
    SUM(&t, "changed-partition-count", "2");
    SUM(&t, "total-records", "30");
    SUM(&t, "total-data-files", "2");
    SUM(&t, "total-delete-files", "0");
    SUM(&t, "total-files-size", "2030");
    SUM(&t, "deleted-data-files", NULL);
    n = live(&t, e, 16);
    ZBT_EQ_INT(n, 2);
    ZBT_EQ_INT(find(e, n, "A.parquet")->status, ICE_STATUS_ADDED);
    ZBT_EQ_INT(find(e, n, "A.parquet")->snapshot_id, s1);
    ZBT_EQ_INT(find(e, n, "B.parquet")->seq, base_seq);
    ZBT_EQ_INT(t.m->last_sequence_number, base_seq);
    if (version >= 3) {
        ZBT_EQ_INT(find(e, n, "A.parquet")->first_row_id, 0);
        ZBT_EQ_INT(find(e, n, "B.parquet")->first_row_id, 10);
        ZBT_EQ_INT(t.m->next_row_id, 30);
        ZBT_EQ_INT(ice_metadata_current_snapshot(t.m)->first_row_id, 0);
        ZBT_EQ_INT(ice_metadata_current_snapshot(t.m)->added_rows, 30);
    }

    /* 2: row-level deletes (v2+): a position delete (v3: a DV) on A and
     * an equality delete in b */
    if (version >= 2) {
        op = new_op(&t, ICE_OP_APPEND);
        add(&t, op, "D.parquet", "a", ICE_CONTENT_POSITION_DELETES, 2,
            "A.parquet");
        add(&t, op, "E.parquet", "b", ICE_CONTENT_EQUALITY_DELETES, 1, NULL);
        s2 = run(&t, op);
        SUM(&t, "operation", "delete");
        SUM(&t, "added-delete-files", "2");
        SUM(&t, version >= 3 ? "added-dvs" : "added-position-delete-files",
            "1");
        SUM(&t, "added-equality-delete-files", "1");
        SUM(&t, "added-position-deletes", "2");
        SUM(&t, "added-equality-deletes", "1");
        SUM(&t, "total-delete-files", "2");
        SUM(&t, "total-position-deletes", "2");
        SUM(&t, "total-equality-deletes", "1");
        SUM(&t, "total-records", "30");
        SUM(&t, "total-data-files", "2");
        n = live(&t, e, 16);
        ZBT_EQ_INT(n, 4);
        ZBT_EQ_INT(find(e, n, "E.parquet")->seq, 2);
        ZBT_EQ_INT(find(e, n, "A.parquet")->seq, 1);
        ZBT_EQ_INT(find(e, n, "D.parquet")->content,
                   ICE_CONTENT_POSITION_DELETES);
    }

    /* 3: replace A (and its deletes) by C */
    op = new_op(&t, ICE_OP_REPLACE);
    rm(&t, op, "A.parquet");
    if (version >= 2)
        rm(&t, op, "D.parquet");
    add(&t, op, "C.parquet", "a", ICE_CONTENT_DATA, 8, NULL);
    s3 = run(&t, op);
    SUM(&t, "operation", "replace");
    SUM(&t, "added-data-files", "1");
    SUM(&t, "deleted-data-files", "1");
    SUM(&t, "added-records", "8");
    SUM(&t, "deleted-records", "10");
    SUM(&t, "removed-files-size", version >= 2 ? "2012" : "1010");
    SUM(&t, "changed-partition-count", "1");
    SUM(&t, "total-records", "28");
    SUM(&t, "total-data-files", "2");
    SUM(&t, "total-delete-files", version >= 2 ? "1" : "0");
    SUM(&t, "total-position-deletes", "0");
    if (version >= 2) {
        SUM(&t, "removed-delete-files", "1");
        SUM(&t, "removed-position-deletes", "2");
        SUM(&t, version >= 3 ? "removed-dvs" : "removed-position-delete-files",
            "1");
    }
    n = live(&t, e, 16);
    ZBT_EQ_INT(n, version >= 2 ? 3 : 2);
    ZBT_EQ_INT(find(e, n, "B.parquet")->status, ICE_STATUS_EXISTING);
    ZBT_EQ_INT(find(e, n, "B.parquet")->snapshot_id, s1);
    ZBT_EQ_INT(find(e, n, "B.parquet")->seq, base_seq);
    ZBT_EQ_INT(find(e, n, "B.parquet")->fseq, base_seq);
    ZBT_EQ_INT(find(e, n, "C.parquet")->status, ICE_STATUS_ADDED);
    ZBT_EQ_INT(find(e, n, "C.parquet")->seq, version >= 2 ? 3 : 0);
    if (version >= 2) {
        ZBT_EQ_INT(find(e, n, "E.parquet")->status, ICE_STATUS_EXISTING);
        ZBT_EQ_INT(find(e, n, "E.parquet")->snapshot_id, s2);
        ZBT_EQ_INT(find(e, n, "E.parquet")->seq, 2);
    }
    ZBT_EQ_INT(deleted_in_current(&t, "A.parquet", &snap, &seq), 1);
    ZBT_EQ_INT(snap, s3);
    ZBT_EQ_INT(seq, base_seq);     /* the data sequence number is kept */
    if (version >= 3) {
        ZBT_EQ_INT(find(e, n, "B.parquet")->first_row_id, 10);
        ZBT_CHECK(find(e, n, "C.parquet")->first_row_id >= 30);
        ZBT_EQ_INT(t.m->next_row_id,
                   ice_metadata_current_snapshot(t.m)->first_row_id +
                   ice_metadata_current_snapshot(t.m)->added_rows);
    }

    /* removing A again: a validation conflict, nothing written */
    op = new_op(&t, ICE_OP_REPLACE);
    rm(&t, op, "A.parquet");
    ZBT_RC(ice_commit_op_build(op, &t.ctx, t.m, &r), ZB_ECONFLICT);
    ZBT_CONTAINS(t.ctx.err.msg, "A.parquet");
    ZBT_CHECK(!ice_commit_conflict_retryable(&t.ctx));
    ZBT_EQ_INT(r.n_written, 0);
    ZBT_CHECK(r.updates == NULL && r.requirements == NULL);
    ice_commit_result_free(&r);
    ice_commit_op_free(op);

    /* 4: delete: the equality delete (v2+) or B (v1) */
    op = new_op(&t, ICE_OP_DELETE);
    rm(&t, op, version >= 2 ? "E.parquet" : "B.parquet");
    s4 = run(&t, op);
    SUM(&t, "operation", "delete");
    if (version >= 2) {
        SUM(&t, "removed-delete-files", "1");
        SUM(&t, "removed-equality-delete-files", "1");
        SUM(&t, "removed-equality-deletes", "1");
        SUM(&t, "total-delete-files", "0");
        SUM(&t, "total-records", "28");
        n = live(&t, e, 16);
        ZBT_EQ_INT(n, 2);
    } else {
        SUM(&t, "deleted-data-files", "1");
        SUM(&t, "total-records", "8");
        SUM(&t, "total-data-files", "1");
        n = live(&t, e, 16);
        ZBT_EQ_INT(n, 1);
    }
    ZBT_EQ_INT(find(e, n, "C.parquet")->snapshot_id, s3);
    ZBT_CHECK(s4 != s3);
    ZBT_EQ_INT(t.m->n_snapshots, version >= 2 ? 4 : 3);
    ZBT_EQ_INT(t.m->n_metadata_log, version >= 2 ? 4 : 3);
    tbl_free(&t);
}

static const char *out_dir(const char *name, char *buf, size_t size)
{
    const char *keep = getenv("ZB_COMMIT_OUT");

    snprintf(buf, size, "%s/%s", keep ? keep : zbt_tmpdir(), name);
    return buf;
}

static void test_table_commit_snap__v1(void)
{
    char d[1024];

    scenario(1, out_dir("v1", d, sizeof d));
}

static void test_table_commit_snap__v2(void)
{
    char d[1024];

    scenario(2, out_dir("v2", d, sizeof d));
}

static void test_table_commit_snap__v3(void)
{
    char d[1024];

    scenario(3, out_dir("v3", d, sizeof d));
}

/* A stale base fails its requirement (retryable); a rebuild succeeds. */
static void test_table_commit_snap__retry(void)
{
    tbl t;
    ice_commit_op *op, *op2;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    ice_metadata *stale = NULL;
    zb_buf b = ZB_BUF_INIT(1 << 24);
    size_t i;

    tbl_create(&t, 2, zbt_tmpdir(), NULL);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    run(&t, op);
    ZBT_OK_CTX(ice_metadata_write(&b, t.m, &t.ctx), &t.ctx);
    ZBT_OK_CTX(ice_metadata_parse(&stale, &t.ctx, b.ptr, b.len, "stale"),
               &t.ctx);
    /* another writer commits first */
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "B.parquet", "b", ICE_CONTENT_DATA, 5, NULL);
    run(&t, op);
    /* ours, built on the stale base */
    op2 = new_op(&t, ICE_OP_APPEND);
    add(&t, op2, "C.parquet", "c", ICE_CONTENT_DATA, 7, NULL);
    ZBT_OK_CTX(ice_commit_op_build(op2, &t.ctx, stale, &r), &t.ctx);
    ZBT_CONTAINS(r.manifest_list, "-1-");
    ZBT_RC(ice_commit_check_requirements(t.m, &t.ctx, r.requirements),
           ZB_ECONFLICT);
    ZBT_CHECK(ice_commit_conflict_retryable(&t.ctx));
    for (i = 0; i < r.n_written; i++) {
        zb_io_stat st;

        ZBT_OK_CTX(zb_io_stat_uri(&st, t.io, &t.ctx, r.written[i]), &t.ctx);
    }
    ZBT_OK_CTX(ice_commit_result_delete_files(&r, t.io, &t.ctx), &t.ctx);
    ZBT_EQ_INT(t.ctx.err.code, ZB_ECONFLICT);       /* kept */
    ZBT_OK_CTX(ice_commit_result_delete_files(&r, t.io, &t.ctx), &t.ctx);
    ZBT_EQ_INT(t.ctx.err.code, ZB_ECONFLICT);       /* gone: still fine */
    for (i = 0; i < r.n_written; i++) {
        zb_io_stat st;

        ZBT_RC(zb_io_stat_uri(&st, t.io, &t.ctx, r.written[i]), ZB_ENOTFOUND);
    }
    ice_commit_result_free(&r);
    /* the retry: attempt 2 against the new base */
    ZBT_OK_CTX(ice_commit_op_build(op2, &t.ctx, t.m, &r), &t.ctx);
    ZBT_CONTAINS(r.manifest_list, "-2-");
    tbl_commit(&t, &r);
    ice_commit_result_free(&r);
    ice_commit_op_free(op2);
    SUM(&t, "total-data-files", "3");
    SUM(&t, "total-records", "22");
    ice_metadata_free(stale);
    zb_buf_free(&b);
    tbl_free(&t);
}

/* A commit to a new branch starts from the current snapshot. */
static void test_table_commit_snap__branch(void)
{
    tbl t;
    ice_commit_op *op;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    int64_t main_id;
    const ice_ref *dev;
    char *req;

    tbl_create(&t, 2, zbt_tmpdir(), NULL);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    main_id = run(&t, op);
    o.kind = ICE_OP_APPEND;
    o.io = t.io;
    o.root = t.dir;
    o.branch = "dev";
    ZBT_OK_CTX(ice_commit_op_new(&op, &t.ctx, &o), &t.ctx);
    add(&t, op, "B.parquet", "b", ICE_CONTENT_DATA, 5, NULL);
    ZBT_OK_CTX(ice_commit_op_build(op, &t.ctx, t.m, &r), &t.ctx);
    req = json_dumps((const json_t *)r.requirements, JSON_COMPACT);
    ZBT_CONTAINS(req, "\"ref\":\"dev\",\"snapshot-id\":null");
    free(req);
    ZBT_OK_CTX(ice_commit_check_requirements(t.m, &t.ctx, r.requirements),
               &t.ctx);
    ZBT_OK_CTX(ice_commit_apply_updates(t.m, &t.ctx, r.updates), &t.ctx);
    ZBT_EQ_INT(t.m->current_snapshot_id, main_id);
    ZBT_CHECK((dev = ice_metadata_ref(t.m, "dev")) != NULL);
    ZBT_EQ_INT(dev->snapshot_id, r.snapshot_id);
    ZBT_EQ_INT(ice_metadata_snapshot(t.m, r.snapshot_id)->parent_snapshot_id,
               main_id);
    {
        const ice_snapshot *s = ice_metadata_snapshot(t.m, r.snapshot_id);
        size_t i;

        for (i = 0; i < s->n_summary; i++)
            if (strcmp(s->summary[i].key, "total-data-files") == 0)
                ZBT_EQ_STR(s->summary[i].value, "2");
    }
    {
        ice_snapshot_iter *it = NULL;
        const ice_manifest_entry *e;
        const ice_manifest_file *mf;
        int rc, n = 0;

        ZBT_OK_CTX(ice_snapshot_iter_open(&it, t.io, &t.ctx, t.m,
                                          ice_metadata_snapshot(t.m,
                                                                r.snapshot_id),
                                          NULL), &t.ctx);
        while ((rc = ice_snapshot_iter_next(it, &t.ctx, &e, &mf)) > 0)
            n++;
        ZBT_EQ_INT(rc, 0);
        ZBT_EQ_INT(n, 2);
        ice_snapshot_iter_free(it);
    }
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    tbl_free(&t);
}

/* Overwrite: files out and in, records change; write.metadata.path
 * decides where manifests and lists go. */
static void test_table_commit_snap__overwrite_metadata_path(void)
{
    tbl t;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    char where[1200];
    size_t i;

    tbl_create(&t, 2, zbt_tmpdir(), NULL);
    snprintf(where, sizeof where, "%s/elsewhere/meta", t.dir);
    ZBT_OK_CTX(ice_metadata_set_property(t.m, &t.ctx, ICE_PROP_METADATA_PATH,
                                         where), &t.ctx);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    add(&t, op, "B.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    run(&t, op);
    op = new_op(&t, ICE_OP_OVERWRITE);
    rm(&t, op, "A.parquet");
    add(&t, op, "C.parquet", "c", ICE_CONTENT_DATA, 3, NULL);
    ZBT_OK_CTX(ice_commit_op_build(op, &t.ctx, t.m, &r), &t.ctx);
    for (i = 0; i < r.n_written; i++)
        ZBT_CHECK(strncmp(r.written[i], where, strlen(where)) == 0);
    ZBT_CHECK(strncmp(r.manifest_list, where, strlen(where)) == 0);
    tbl_commit(&t, &r);
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    SUM(&t, "operation", "overwrite");
    SUM(&t, "added-records", "3");
    SUM(&t, "deleted-records", "10");
    SUM(&t, "total-records", "13");
    SUM(&t, "changed-partition-count", "2");
    tbl_free(&t);
}

/* Manifests roll at commit.manifest.target-size-bytes. */
static void test_table_commit_snap__rolling(void)
{
    tbl t;
    ice_commit_op *op;
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    seen e[64];
    int i, rc, n_mf = 0;
    int64_t files = 0;

    tbl_create(&t, 2, zbt_tmpdir(), "2000");
    op = new_op(&t, ICE_OP_APPEND);
    for (i = 0; i < 40; i++) {
        char name[64];

        snprintf(name, sizeof name, "part-%05d-a-rather-long-file-name-to-"
                 "fill-the-manifest.parquet", i);
        add(&t, op, name, i % 2 ? "x" : "y", ICE_CONTENT_DATA, 1, NULL);
    }
    run(&t, op);
    ZBT_EQ_INT(live(&t, e, 64), 40);
    ZBT_OK_CTX(ice_manifest_list_open(&lr, t.io, &t.ctx,
                                      ice_metadata_current_snapshot(t.m)
                                          ->manifest_list, 2, NULL), &t.ctx);
    while ((rc = ice_manifest_list_next(lr, &t.ctx, &mf)) > 0) {
        n_mf++;
        files += mf->added_files_count;
        ZBT_CHECK(mf->manifest_length < 2000 + 4096);
    }
    ZBT_EQ_INT(rc, 0);
    ice_manifest_list_free(lr);
    ZBT_CHECK(n_mf >= 3);
    ZBT_EQ_INT(files, 40);
    SUM(&t, "changed-partition-count", "2");
    tbl_free(&t);
}

/* Refusals of the producer. */
static void test_table_commit_snap__refused(void)
{
    tbl t;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;

    tbl_create(&t, 1, zbt_tmpdir(), NULL);
    op = new_op(&t, ICE_OP_APPEND);
    ZBT_RC(ice_commit_op_remove_file(op, &t.ctx, "x"), ZB_EINVAL);
    add(&t, op, "D.parquet", "a", ICE_CONTENT_EQUALITY_DELETES, 1, NULL);
    ZBT_RC(ice_commit_op_build(op, &t.ctx, t.m, &r), ZB_EINVAL);
    ZBT_CONTAINS(t.ctx.err.msg, "format version 2");
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    op = new_op(&t, ICE_OP_DELETE);
    {
        ice_data_file f;

        memset(&f, 0, sizeof f);
        f.file_path = "x";
        ZBT_RC(ice_commit_op_add_file(op, &t.ctx, -1, &f), ZB_EINVAL);
    }
    /* removing from an empty table */
    rm(&t, op, "nothing.parquet");
    ZBT_RC(ice_commit_op_build(op, &t.ctx, t.m, &r), ZB_ECONFLICT);
    ZBT_CHECK(!ice_commit_conflict_retryable(&t.ctx));
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    tbl_free(&t);
}

static size_t count_files(const char *dir)
{
    zbt_files f = { 0 };
    size_t n = zbt_find_files(&f, dir, ".avro");

    zbt_files_free(&f);
    return n;
}

/* Every allocation of a replace build failing in turn: ZB_ENOMEM, the
 * files it wrote listed (and deleted), the base untouched; then it runs. */
static void test_table_commit_snap__torture(void)
{
    tbl t;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    char meta[1200];
    size_t before;
    uint64_t n;
    int rc = ZB_ENOMEM;

    tbl_create(&t, 2, zbt_tmpdir(), NULL);
    snprintf(meta, sizeof meta, "%s/metadata", t.dir);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    add(&t, op, "B.parquet", "b", ICE_CONTENT_DATA, 20, NULL);
    run(&t, op);
    before = count_files(meta);
    op = new_op(&t, ICE_OP_REPLACE);
    rm(&t, op, "A.parquet");
    add(&t, op, "C.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    for (n = 1; n < 100000; n++) {
        zb_ctx_init(&t.ctx);
        zb_alloc__fail_at(n, 1);
        rc = ice_commit_op_build(op, &t.ctx, t.m, &r);
        zb_alloc__fail_at(0, 0);
        if (rc == ZB_OK)
            break;
        if (rc != ZB_ENOMEM)
            zbt__fail(__FILE__, __LINE__, "fault %llu: %s (%s)",
                      (unsigned long long)n, zb_rc_name(rc), t.ctx.err.msg);
        ZBT_CHECK(r.updates == NULL);
        ice_commit_result_delete_files(&r, t.io, &t.ctx);
        ice_commit_result_free(&r);
        ZBT_EQ_INT(count_files(meta), before);
    }
    ZBT_EQ_INT(rc, ZB_OK);
    ZBT_CHECK(n > 10);
    tbl_commit(&t, &r);
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    SUM(&t, "total-records", "30");
    tbl_free(&t);
}


/* A replace op of attempt k (compaction makes one per attempt). */
static ice_commit_op *cached_op(tbl *t, ice_commit_cache *c)
{
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_op *op = NULL;

    o.kind = ICE_OP_REPLACE;
    o.io = t->io;
    o.root = t->dir;
    o.cache = c;
    ZBT_OK_CTX(ice_commit_op_new(&op, &t->ctx, &o), &t->ctx);
    rm(t, op, "A.parquet");
    add(t, op, "C.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    return op;
}

static int exists(tbl *t, const char *uri)
{
    zb_io_stat st;

    return zb_io_stat_uri(&st, t->io, &t->ctx, uri) == ZB_OK;
}

/*
 * Issue 21: a retry with a commit cache reads only the manifests it has
 * not seen, keeps its snapshot id, lists the manifests it rewrote and
 * wrote before instead of writing them again, and commits the same
 * table a fresh build would. max_bytes 1: nothing cached, same result.
 */
static void cache_retry(int version, uint64_t max_bytes)
{
    tbl t;
    ice_commit_cache *c = NULL;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    ice_metadata *stale = NULL;
    zb_buf b = ZB_BUF_INIT(1 << 24);
    char **kept = NULL;
    size_t n_kept = 0, i, n;
    uint64_t rd, hits, rd1;
    int64_t id1;
    seen e[16];
    char d[1024];

    snprintf(d, sizeof d, "%s/cache-v%d-%llu", zbt_tmpdir(), version,
             (unsigned long long)max_bytes);
    tbl_create(&t, version, d, NULL);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    add(&t, op, "B.parquet", "a", ICE_CONTENT_DATA, 20, NULL);
    run(&t, op);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "D.parquet", "d", ICE_CONTENT_DATA, 5, NULL);
    run(&t, op);
    ZBT_OK_CTX(ice_metadata_write(&b, t.m, &t.ctx), &t.ctx);
    ZBT_OK_CTX(ice_metadata_parse(&stale, &t.ctx, b.ptr, b.len, "stale"),
               &t.ctx);
    op = new_op(&t, ICE_OP_APPEND);        /* the writer wins the race */
    add(&t, op, "E.parquet", "e", ICE_CONTENT_DATA, 7, NULL);
    run(&t, op);
    ZBT_OK_CTX(ice_commit_cache_new(&c, &t.ctx, NULL, max_bytes), &t.ctx);
    /* Attempt 1, on the stale base: lost. */
    op = cached_op(&t, c);
    ZBT_OK_CTX(ice_commit_op_build(op, &t.ctx, stale, &r), &t.ctx);
    ice_commit_op_free(op);
    id1 = r.snapshot_id;
    ice_commit_cache_counts(c, &rd1, &hits);
    ZBT_EQ_INT(rd1, 2);
    ZBT_EQ_INT(hits, 0);
    ZBT_RC(ice_commit_check_requirements(t.m, &t.ctx, r.requirements),
           ZB_ECONFLICT);
    /* What the cleanup deletes: the list; the manifests of C and the
     * rewritten one of A and B belong to the cache. */
    ZBT_EQ_INT(r.n_written, 1);
    ice_commit_result_delete_files(&r, t.io, &t.ctx);
    ice_commit_result_free(&r);
    zb_err_clear(&t.ctx.err);
    /* Attempt 2 on the new base: reads E's manifest only. */
    op = cached_op(&t, c);
    ZBT_OK_CTX(ice_commit_op_build(op, &t.ctx, t.m, &r), &t.ctx);
    ice_commit_op_free(op);
    ice_commit_cache_counts(c, &rd, &hits);
    if (max_bytes == 1) {
        ZBT_EQ_INT(rd, rd1 + 3);
        ZBT_EQ_INT(hits, 0);
    } else {
        ZBT_EQ_INT(rd, rd1 + 1);
        ZBT_EQ_INT(hits, 2);
        ZBT_CHECK(ice_commit_cache_bytes(c) > 0);
    }
    ZBT_EQ_INT(r.snapshot_id, id1);
    ZBT_EQ_INT(r.n_written, 1);            /* again only the list */
    tbl_commit(&t, &r);
    ice_commit_result_free(&r);
    n = live(&t, e, 16);
    ZBT_EQ_INT(n, 4);
    ZBT_EQ_INT(find(e, n, "C.parquet")->snapshot_id, id1);
    ZBT_EQ_INT(find(e, n, "B.parquet")->status, ICE_STATUS_EXISTING);
    find(e, n, "D.parquet");
    find(e, n, "E.parquet");
    SUM(&t, "deleted-data-files", "1");
    SUM(&t, "added-data-files", "1");
    SUM(&t, "total-data-files", "4");
    SUM(&t, "total-records", "42");
    {
        /* The files the snapshot lists stay after finish(committed). */
        ice_manifest_list_reader *lr = NULL;
        const ice_manifest_file *mf;
        const ice_snapshot *cur = ice_metadata_current_snapshot(t.m);

        ZBT_OK_CTX(ice_manifest_list_open(&lr, t.io, &t.ctx,
                                          cur->manifest_list, version,
                                          NULL), &t.ctx);
        while (ice_manifest_list_next(lr, &t.ctx, &mf) > 0) {
            kept = zb_realloc(kept, (n_kept + 1) * sizeof *kept);
            kept[n_kept++] = zb_strdup(mf->manifest_path);
            if (mf->added_snapshot_id == id1)
                ZBT_EQ_INT(mf->sequence_number, t.m->last_sequence_number);
        }
        ice_manifest_list_free(lr);
    }
    ZBT_EQ_INT(n_kept, 4);                 /* C's, A+B rewritten, D, E */
    ice_commit_cache_finish(c, t.io, &t.ctx, 1);
    for (i = 0; i < n_kept; i++) {
        ZBT_CHECK(exists(&t, kept[i]));
        zb_free(kept[i]);
    }
    zb_free(kept);
    ice_commit_cache_free(c);
    ice_metadata_free(stale);
    zb_buf_free(&b);
    tbl_free(&t);
}

static void test_table_commit_snap__cache_retry(void)
{
    cache_retry(2, 0);
    cache_retry(3, 0);
    cache_retry(2, 1);
}

/* A commit that loses every attempt: finish(0) deletes the manifests
 * the cache kept; the table still reads as before. */
static void test_table_commit_snap__cache_gave_up(void)
{
    tbl t;
    ice_commit_cache *c = NULL;
    ice_commit_op *op;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    char meta[1200];
    size_t before;

    tbl_create(&t, 2, zbt_tmpdir(), NULL);
    snprintf(meta, sizeof meta, "%s/metadata", t.dir);
    op = new_op(&t, ICE_OP_APPEND);
    add(&t, op, "A.parquet", "a", ICE_CONTENT_DATA, 10, NULL);
    run(&t, op);
    before = count_files(meta);
    ZBT_OK_CTX(ice_commit_cache_new(&c, &t.ctx, NULL, 0), &t.ctx);
    op = cached_op(&t, c);
    ZBT_OK_CTX(ice_commit_op_build(op, &t.ctx, t.m, &r), &t.ctx);
    ice_commit_op_free(op);
    ZBT_CHECK(count_files(meta) > before + 1);
    ice_commit_result_delete_files(&r, t.io, &t.ctx);
    ice_commit_result_free(&r);
    ZBT_CHECK(count_files(meta) > before);
    ice_commit_cache_finish(c, t.io, &t.ctx, 0);
    ZBT_EQ_INT(count_files(meta), before);
    ice_commit_cache_free(c);
    tbl_free(&t);
}

const zbt_case test_table_commit_snap[] = {
    ZBT_CASE(test_table_commit_snap__v1),
    ZBT_CASE(test_table_commit_snap__v2),
    ZBT_CASE(test_table_commit_snap__v3),
    ZBT_CASE(test_table_commit_snap__retry),
    ZBT_CASE(test_table_commit_snap__branch),
    ZBT_CASE(test_table_commit_snap__overwrite_metadata_path),
    ZBT_CASE(test_table_commit_snap__rolling),
    ZBT_CASE(test_table_commit_snap__refused),
    ZBT_CASE(test_table_commit_snap__torture),
    ZBT_CASE(test_table_commit_snap__cache_retry),
    ZBT_CASE(test_table_commit_snap__cache_gave_up),
    ZBT_END
};

/*
 * tests/unit/ops/add_files_test.c - zb_add_files (ops/add_files/add_files.h) on
 * files written by our Parquet writer without field ids (or with them),
 * into folder tables: partition values from key=value directories and
 * from column statistics (day(ts)), files spanning partitions, duplicates,
 * field ids, type mismatches, corrupt and truncated files, dry runs,
 * --create, and every allocation failing in turn (no partial commit).
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "exec/arrow/arrow.h"
#include "format/parquet/parquet_write.h"
#include "ops/add_files/add_files.h"
#include "ops/ingest/table_write.h"
#include "table/value/ice_value.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "zbtest.h"

#define DAY_US 86400000000LL

typedef struct env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_op_target t;
    char table[1024], src[1024];
} env;

static void env_open(env *e)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    snprintf(e->table, sizeof e->table, "%s/table", zbt_tmpdir());
    snprintf(e->src, sizeof e->src, "%s/src", zbt_tmpdir());
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "af";
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    e->t.catalog = e->cat;
    e->t.io = e->io;
    e->t.ident = e->table;
}

static void env_close(env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
}

static void make_table_spec(env *e, const char *spec);

/* The table: id long, ts timestamp, name string, region string;
 * partitioned by day(ts) and identity(region); no name mapping. */
static void make_table(env *e)
{
    make_table_spec(e, NULL);
}

static void make_table_full(env *e, const char *schema_json,
                            const char *spec_json);

static void make_table_spec(env *e, const char *spec_json)
{
    make_table_full(e, NULL, spec_json);
}

static void make_table_full(env *e, const char *schema_json,
                            const char *spec_json)
{
    static const char schema[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
        "{\"id\":3,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":4,\"name\":\"region\",\"required\":false,"
        "\"type\":\"string\"}]}";
    static const char spec[] =
        "{\"spec-id\":0,\"fields\":["
        "{\"source-id\":2,\"field-id\":1000,\"name\":\"ts_day\","
        "\"transform\":\"day\"},"
        "{\"source-id\":4,\"field-id\":1001,\"name\":\"region\","
        "\"transform\":\"identity\"}]}";
    json_t *s = json_loads(schema_json ? schema_json : schema, 0, NULL);
    json_t *p = json_loads(spec_json ? spec_json : spec, 0, NULL);
    zb_table *t = NULL;

    ZBT_OK_CTX(zb_ingest_create(&t, e->cat, &e->ctx, e->table, NULL,
                                (const zb_json *)s, (const zb_json *)p,
                                NULL, 0, 2), &e->ctx);
    zb_table_free(t);
    json_decref(s);
    json_decref(p);
}

/* One batch: rows [first, first + n) of id, ts (ts0 + i * step_us), name;
 * id_type "l" (long) or "u" (a string id, which does not fit). */
static void make_batch(struct ArrowArray *a, int64_t first, int64_t n,
                       int64_t ts0, int64_t step_us, int is_str)
{
    int64_t *idv, *tsv, i;
    int32_t *off, *soff;
    char *chars, *schars;
    size_t at = 0, sat = 0;

    ZBT_CHECK(zb_arrow_array_init(a, 1, 3) == 0);
    ZBT_CHECK(zb_arrow_array_init(a->children[0], is_str ? 3 : 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(a->children[1], 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(a->children[2], 3, 0) == 0);
    idv = zb_malloc((size_t)(n + 1) * 8);
    tsv = zb_malloc((size_t)(n + 1) * 8);
    off = zb_malloc((size_t)(n + 1) * 4);
    chars = zb_malloc((size_t)(n + 1) * 24);
    soff = zb_malloc((size_t)(n + 1) * 4);
    schars = zb_malloc((size_t)(n + 1) * 24);
    off[0] = soff[0] = 0;
    for (i = 0; i < n; i++) {
        idv[i] = first + i;
        tsv[i] = ts0 + (first + i) * step_us;
        at += (size_t)snprintf(chars + at, 24, "name-%06lld",
                               (long long)(first + i));
        off[i + 1] = (int32_t)at;
        sat += (size_t)snprintf(schars + sat, 24, "%lld",
                                (long long)(first + i));
        soff[i + 1] = (int32_t)sat;
    }
    if (is_str) {
        a->children[0]->buffers[1] = soff;
        a->children[0]->buffers[2] = schars;
        zb_free(idv);
    } else {
        a->children[0]->buffers[1] = idv;
        zb_free(soff);
        zb_free(schars);
    }
    a->children[1]->buffers[1] = tsv;
    a->children[2]->buffers[1] = off;
    a->children[2]->buffers[2] = chars;
    a->length = a->children[0]->length = a->children[1]->length =
        a->children[2]->length = n;
}

/* Writes rows [first, first + n) to path in batches of 200, the ts of
 * row k being ts0 + (k - first) * step_us: without field ids unless ids
 * (then name gets extra_id). */
static void write_file(env *e, const char *path, int64_t first, int64_t n,
                       int64_t ts0, int64_t step_us, int ids,
                       const char *id_type, int32_t extra_id)
{
    struct ArrowSchema s;
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    pq_writer *w = NULL;
    pq_write_result res;
    char dir[1024], *slash;
    int64_t k;
    int is_str = strcmp(id_type, "u") == 0;

    snprintf(dir, sizeof dir, "%s", path);
    if ((slash = strrchr(dir, '/')) != NULL) {
        char cmd[1100];
        *slash = '\0';
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        ZBT_EQ_INT(system(cmd), 0);
    }
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 3) == 0);
    if (ids) {
        ZBT_CHECK(zb_arrow_schema_field(s.children[0], id_type, "id", 1, 0,
                                        0) == 0);
        ZBT_CHECK(zb_arrow_schema_field(s.children[1], "tsu:", "ts", 2, 1,
                                        0) == 0);
        ZBT_CHECK(zb_arrow_schema_field(s.children[2], "u", "name",
                                        extra_id, 1, 0) == 0);
    } else {
        ZBT_CHECK(zb_arrow_schema_init(s.children[0], id_type, "id", NULL,
                                       0, 0, 0) == 0);
        ZBT_CHECK(zb_arrow_schema_init(s.children[1], "tsu:", "ts", NULL, 0,
                                       ARROW_FLAG_NULLABLE, 0) == 0);
        ZBT_CHECK(zb_arrow_schema_init(s.children[2], "u", "name", NULL, 0,
                                       ARROW_FLAG_NULLABLE, 0) == 0);
    }
    o.row_group_bytes = 2048;      /* several row groups to merge */
    o.page_bytes = 1024;
    memset(&res, 0, sizeof res);
    ZBT_OK_CTX(pq_writer_open(&w, e->io, &e->ctx, path, &s, &o), &e->ctx);
    for (k = 0; k < n; k += 200) {
        struct ArrowArray a;
        make_batch(&a, first + k, n - k < 200 ? n - k : 200,
                   ts0 - first * step_us, step_us, is_str);
        ZBT_OK_CTX(pq_writer_write(w, &e->ctx, &a), &e->ctx);
        zb_arrow_array_release(&a);
    }
    ZBT_OK_CTX(pq_writer_close(w, &e->ctx, &res), &e->ctx);
    ZBT_CHECK(res.row_groups >= 1);
    pq_write_result_free(&res);
    zb_arrow_schema_release(&s);
}

/* A file of one column, id long (rows first .. first + n - 1). */
static void write_narrow(env *e, const char *path, int64_t first, int64_t n)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    pq_writer *w = NULL;
    pq_write_result res;
    char dir[1024], cmd[1100], *slash;
    int64_t *v, i;

    snprintf(dir, sizeof dir, "%s", path);
    if ((slash = strrchr(dir, '/')) != NULL) {
        *slash = '\0';
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        ZBT_EQ_INT(system(cmd), 0);
    }
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 1) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s.children[0], "l", "id", NULL, 0, 0,
                                   0) == 0);
    ZBT_CHECK(zb_arrow_array_init(&a, 1, 1) == 0);
    ZBT_CHECK(zb_arrow_array_init(a.children[0], 2, 0) == 0);
    v = zb_malloc((size_t)(n + 1) * 8);
    for (i = 0; i < n; i++)
        v[i] = first + i;
    a.children[0]->buffers[1] = v;
    a.length = a.children[0]->length = n;
    memset(&res, 0, sizeof res);
    ZBT_OK_CTX(pq_writer_open(&w, e->io, &e->ctx, path, &s, &o), &e->ctx);
    ZBT_OK_CTX(pq_writer_write(w, &e->ctx, &a), &e->ctx);
    ZBT_OK_CTX(pq_writer_close(w, &e->ctx, &res), &e->ctx);
    pq_write_result_free(&res);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static int64_t day0_us(void)
{
    return 19723LL * DAY_US;     /* 2024-01-01 */
}

/* Standard source: region=eu (day 0), region=us (day 1), a note. */
static void write_source(env *e)
{
    char p[1200];

    snprintf(p, sizeof p, "%s/region=eu/a.parquet", e->src);
    write_file(e, p, 0, 1000, day0_us(), 60000000LL, 0, "l", 0);
    snprintf(p, sizeof p, "%s/region=us%%2Fwest/b.parquet", e->src);
    write_file(e, p, 1000, 500, day0_us() + DAY_US + 7, 1000000LL, 0, "l",
               0);
    snprintf(p, sizeof p, "%s/region=eu/notes.txt", e->src);
    zbt_write_file(p, "hello\n", 6);
    snprintf(p, sizeof p, "%s/_SUCCESS", e->src);
    zbt_write_file(p, "", 0);
}

static size_t n_snapshots(env *e)
{
    zb_table *t = NULL;
    size_t n;

    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, e->table, &t),
               &e->ctx);
    n = t->meta->n_snapshots;
    zb_table_free(t);
    return n;
}

static void test_ops_add_files__partitions_from_paths_and_stats(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *me;
    const ice_manifest_file *mf;
    zb_table *t = NULL;
    zb_buf out = ZB_BUF_INIT(4096);
    int seen = 0;
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 2);
    ZBT_EQ_U64(r.rows_added, 1500);
    ZBT_EQ_U64(r.files_skipped, 2);
    ZBT_EQ_U64(r.partitions, 2);
    ZBT_EQ_INT(r.mapping_set, 1);
    ZBT_CHECK(r.snapshot_id != 0);
    ZBT_OK_CTX(zb_add_files_report(&out, "T", &r, 0), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "T: added 2 file(s), 1500 rows");
    ZBT_CONTAINS(zb_buf_cstr(&out), "skipped 2 file(s)");
    zb_buf_free(&out);

    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    ZBT_CONTAINS(ice_metadata_property(t->meta,
                                       "schema.name-mapping.default"),
                 "\"names\":[\"region\"]");
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths), &e.ctx);
    while (ice_snapshot_iter_next(it, &e.ctx, &me, &mf) > 0) {
        const ice_data_file *d = &me->data_file;
        int is_a = strstr(d->file_path, "/a.parquet") != NULL;
        size_t k;

        ZBT_EQ_INT(d->n_partition, 2);
        ZBT_EQ_INT(d->partition[0].u.i, is_a ? 19723 : 19724);
        ZBT_EQ_INT((int)d->partition[1].u.bin.len, is_a ? 2 : 7);
        ZBT_CHECK(memcmp(d->partition[1].u.bin.ptr, is_a ? "eu" : "us/west",
                         d->partition[1].u.bin.len) == 0);
        ZBT_EQ_INT(d->record_count, is_a ? 1000 : 500);
        ZBT_CHECK(d->file_path[0] == '/');
        ZBT_CHECK(d->has_split_offsets && d->n_split_offsets > 1);
        /* id bounds from several row groups' statistics */
        for (k = 0; k < d->lower_bounds.n; k++)
            if (d->lower_bounds.items[k].field_id == 1) {
                int64_t lo;
                ZBT_EQ_INT(d->lower_bounds.items[k].len, 8);
                memcpy(&lo, d->lower_bounds.items[k].ptr, 8);
                ZBT_EQ_INT(lo, is_a ? 0 : 1000);
                seen++;
            }
        for (k = 0; k < d->upper_bounds.n; k++)
            if (d->upper_bounds.items[k].field_id == 1) {
                int64_t hi;
                memcpy(&hi, d->upper_bounds.items[k].ptr, 8);
                ZBT_EQ_INT(hi, is_a ? 999 : 1499);
                seen++;
            }
        for (k = 0; k < d->value_counts.n; k++)
            if (d->value_counts.items[k].field_id == 3)
                ZBT_EQ_INT(d->value_counts.items[k].value,
                           is_a ? 1000 : 500);
    }
    ZBT_EQ_INT(seen, 4);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    env_close(&e);
}

static void test_ops_add_files__spanning_file_refused(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    /* two days in one file */
    snprintf(p, sizeof p, "%s/region=eu/span.parquet", e.src);
    write_file(&e, p, 5000, 10, day0_us() + DAY_US - 5, 1, 0, "l", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "span.parquet");
    ZBT_CONTAINS(e.ctx.err.msg, "ts_day");
    ZBT_CONTAINS(e.ctx.err.msg, "2024-01-01 to 2024-01-02");
    ZBT_EQ_U64(r.files_added, 0);
    ZBT_EQ_INT(n_snapshots(&e), 0);
    env_close(&e);
}

static void test_ops_add_files__duplicates(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "2 of the files are data files");
    ZBT_CONTAINS(e.ctx.err.msg, "--allow-duplicates");
    ZBT_EQ_INT(n_snapshots(&e), 1);
    o.allow_duplicates = 1;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.mapping_set, 0);   /* set by the first run */
    ZBT_EQ_INT(n_snapshots(&e), 2);
    env_close(&e);
}

static void test_ops_add_files__field_ids(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200], src2[1100];
    env e;

    env_open(&e);
    make_table(&e);
    /* ids of the table: taken as they are */
    snprintf(p, sizeof p, "%s/region=eu/ids.parquet", e.src);
    write_file(&e, p, 0, 100, day0_us(), 1000, 1, "l", 3);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.rows_added, 100);
    /* an id the table does not have */
    snprintf(src2, sizeof src2, "%s/src2", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/region=eu/bad-ids.parquet", src2);
    write_file(&e, p, 0, 10, day0_us(), 1000, 1, "l", 99);
    o.source = src2;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "bad-ids.parquet");
    ZBT_CONTAINS(e.ctx.err.msg, "field id 99");
    ZBT_EQ_INT(n_snapshots(&e), 1);
    env_close(&e);
}

static void test_ops_add_files__type_mismatch(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    snprintf(p, sizeof p, "%s/region=eu/strid.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "u", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "strid.parquet: column id (BYTE_ARRAY)");
    ZBT_CONTAINS(e.ctx.err.msg, "long");
    ZBT_EQ_INT(n_snapshots(&e), 0);
    env_close(&e);
}

static void test_ops_add_files__corrupt_and_truncated(void)
{
    size_t c;

    for (c = 0; c < 3; c++) {
        zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
        zb_add_files_result r;
        char p[1200], q[1200];
        FILE *f;
        long len;
        char *buf;
        env e;
        int rc;

        env_open(&e);
        snprintf(e.src, sizeof e.src, "%s/src-%zu", zbt_tmpdir(), c);
        snprintf(e.table, sizeof e.table, "%s/table-%zu", zbt_tmpdir(), c);
        make_table(&e);
        write_source(&e);
        snprintf(p, sizeof p, "%s/region=eu/a.parquet", e.src);
        snprintf(q, sizeof q, "%s/region=eu/zz-bad.parquet", e.src);
        f = fopen(p, "rb");
        ZBT_CHECK(f != NULL);
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = zb_malloc((size_t)len);
        ZBT_EQ_INT(fread(buf, 1, (size_t)len, f), len);
        fclose(f);
        if (c == 0)
            zbt_write_file(q, buf, (size_t)len - 9);     /* footer cut */
        else if (c == 1) {
            memset(buf + len - 200, 0xA5, 190);          /* footer mangled */
            zbt_write_file(q, buf, (size_t)len);
        } else
            zbt_write_file(q, "PAR1", 4);
        zb_free(buf);
        o.source = e.src;
        rc = zb_add_files(&e.t, &e.ctx, &o, &r);
        ZBT_CHECK(rc < 0);
        ZBT_CONTAINS(e.ctx.err.msg, "zz-bad.parquet");
        ZBT_EQ_INT(n_snapshots(&e), 0);
        env_close(&e);
    }
}

static void test_ops_add_files__dry_run(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    zb_table *t = NULL;
    zb_buf out = ZB_BUF_INIT(4096);
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    o.source = e.src;
    e.t.dry_run = 1;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 2);
    ZBT_EQ_U64(r.rows_added, 1500);
    ZBT_EQ_INT(r.snapshot_id, 0);
    ZBT_EQ_INT(n_snapshots(&e), 0);
    ZBT_OK_CTX(zb_add_files_report(&out, "T", &r, 1), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "T: would add 2 file(s)");
    ZBT_CONTAINS(zb_buf_cstr(&out), "would set schema.name-mapping");
    zb_buf_free(&out);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    ZBT_CHECK(ice_metadata_property(t->meta, "schema.name-mapping.default")
              == NULL);
    zb_table_free(t);
    env_close(&e);
}

static void test_ops_add_files__create(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    zb_table *t = NULL;
    const ice_schema *s;
    const ice_partition_spec *sp;
    char p[1200];
    env e;

    env_open(&e);
    write_source(&e);
    o.source = e.src;
    o.create = 1;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.created, 1);
    ZBT_EQ_U64(r.rows_added, 1500);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    s = ice_metadata_current_schema(t->meta);
    ZBT_EQ_INT(s->root->n_fields, 4);          /* id, ts, name + region */
    ZBT_EQ_STR(s->root->fields[0].name, "id");
    ZBT_EQ_INT(s->root->fields[0].type->id, ICE_LONG);
    ZBT_EQ_INT(s->root->fields[0].required, 1);
    ZBT_EQ_INT(s->root->fields[1].type->id, ICE_TIMESTAMP);
    ZBT_EQ_STR(s->root->fields[3].name, "region");
    ZBT_EQ_INT(s->root->fields[3].type->id, ICE_STRING);
    sp = ice_metadata_default_spec(t->meta);
    ZBT_EQ_INT(sp->n_fields, 1);
    ZBT_EQ_STR(sp->fields[0].transform, "identity");
    ZBT_CHECK(ice_metadata_property(t->meta, "schema.name-mapping.default"));
    ZBT_EQ_INT(t->meta->n_snapshots, 1);
    zb_table_free(t);
    /* again: the table exists */
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "exists already");
    env_close(&e);

    /* a second file that does not fit the first's schema: nothing made */
    env_open(&e);
    snprintf(e.table, sizeof e.table, "%s/table2", zbt_tmpdir());
    snprintf(e.src, sizeof e.src, "%s/src-mixed", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/a.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "l", 0);
    snprintf(p, sizeof p, "%s/b.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "u", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "b.parquet");
    {
        struct stat st;
        ZBT_CHECK(stat(e.table, &st) != 0);
    }
    env_close(&e);
}

static void test_ops_add_files__create_partition_by(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *me;
    const ice_manifest_file *mf;
    const ice_partition_spec *sp;
    zb_table *t = NULL;
    int n = 0;
    env e;

    env_open(&e);
    write_source(&e);
    o.source = e.src;
    o.create = 1;
    o.partition_by = "nosuch";
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EUSAGE);
    ZBT_CONTAINS(e.ctx.err.msg, "no top-level column 'nosuch'");
    o.partition_by = "day(name)";
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EUSAGE);
    ZBT_CONTAINS(e.ctx.err.msg, "day cannot take column name_day");
    o.partition_by = "bucket(4, id)";   /* each file spans buckets */
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "id_bucket");
    o.partition_by = " day(ts) ";
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    sp = ice_metadata_default_spec(t->meta);
    ZBT_EQ_INT(sp->n_fields, 2);
    ZBT_EQ_STR(sp->fields[0].name, "region");
    ZBT_EQ_STR(sp->fields[1].name, "ts_day");
    ZBT_EQ_STR(sp->fields[1].transform, "day");
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths), &e.ctx);
    while (ice_snapshot_iter_next(it, &e.ctx, &me, &mf) > 0) {
        const ice_data_file *d = &me->data_file;
        int is_a = strstr(d->file_path, "/a.parquet") != NULL;
        ZBT_EQ_INT(d->partition[1].u.i, is_a ? 19723 : 19724);
        n++;
    }
    ZBT_EQ_INT(n, 2);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    /* only with create */
    o.create = 0;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EUSAGE);
    env_close(&e);
}

/* A directory value for a column the file also holds must match it. */
static void test_ops_add_files__path_value_checked(void)
{
    static const char spec[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":3,\"field-id\":1000,"
        "\"name\":\"name\",\"transform\":\"identity\"}]}";
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    make_table_spec(&e, spec);
    snprintf(p, sizeof p, "%s/name=name-000005/ok.parquet", e.src);
    write_file(&e, p, 5, 1, day0_us(), 1, 0, "l", 0);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 1);
    snprintf(e.src, sizeof e.src, "%s/src-wrong", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/name=elsewhere/bad.parquet", e.src);
    write_file(&e, p, 6, 1, day0_us(), 1, 0, "l", 0);
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "bad.parquet: directory name=elsewhere does "
                 "not match");
    ZBT_EQ_INT(n_snapshots(&e), 1);
    env_close(&e);
}

/* bucket[4] of a long, through the table's transform code. */
static int32_t bucket4(env *e, int64_t v)
{
    ice_transform tr;
    ice_value in = ice_value_long(v), out;

    ZBT_OK_CTX(ice_transform_parse(&tr, &e->ctx, "bucket[4]"), &e->ctx);
    ZBT_OK_CTX(ice_transform_apply(&out, &e->ctx, &tr, &in), &e->ctx);
    return out.u.i;
}

/* bucket does not keep order: the bounds may share a bucket that a value
 * between them does not. Such a file is refused; a file of one value
 * takes that value's bucket. */
static void test_ops_add_files__bucket_needs_one_value(void)
{
    static const char spec[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":1,\"field-id\":1000,"
        "\"name\":\"id_bucket\",\"transform\":\"bucket[4]\"}]}";
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *me;
    const ice_manifest_file *mf;
    zb_table *t = NULL;
    char p[1200];
    int64_t k;
    int n = 0;
    env e;

    env_open(&e);
    for (k = 0; k < 100000; k++)
        if (bucket4(&e, k) == bucket4(&e, k + 2) &&
            bucket4(&e, k + 1) != bucket4(&e, k))
            break;
    ZBT_CHECK(k < 100000);
    make_table_spec(&e, spec);
    snprintf(p, sizeof p, "%s/span.parquet", e.src);
    write_file(&e, p, k, 3, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "span.parquet");
    ZBT_CONTAINS(e.ctx.err.msg, "id_bucket");
    ZBT_CONTAINS(e.ctx.err.msg, "transform bucket[4] does not keep order");
    ZBT_EQ_INT(n_snapshots(&e), 0);

    snprintf(e.src, sizeof e.src, "%s/src-one", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/one.parquet", e.src);
    write_file(&e, p, k + 1, 1, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths), &e.ctx);
    while (ice_snapshot_iter_next(it, &e.ctx, &me, &mf) > 0) {
        ZBT_EQ_INT(me->data_file.partition[0].u.i, bucket4(&e, k + 1));
        n++;
    }
    ZBT_EQ_INT(n, 1);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    env_close(&e);
}

/* Files in hidden or temporary directories (a Spark job's _temporary,
 * .spark-staging) are skipped and counted; a "_k=v" directory is not. */
static void test_ops_add_files__hidden_dirs_skipped(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    make_table(&e);
    snprintf(p, sizeof p, "%s/region=eu/a.parquet", e.src);
    write_file(&e, p, 0, 100, day0_us(), 1000, 0, "l", 0);
    snprintf(p, sizeof p, "%s/region=eu/_x=1/c.parquet", e.src);
    write_file(&e, p, 100, 10, day0_us(), 1000, 0, "l", 0);
    snprintf(p, sizeof p, "%s/_temporary/0/attempt_1/region=eu/"
             "part-0.parquet", e.src);
    write_file(&e, p, 200, 10, day0_us(), 1000, 0, "l", 0);
    snprintf(p, sizeof p, "%s/region=eu/.spark-staging/b.parquet", e.src);
    write_file(&e, p, 300, 10, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 2);
    ZBT_EQ_U64(r.rows_added, 110);
    ZBT_EQ_U64(r.files_skipped, 2);
    env_close(&e);
}

/* One data file commit naming path as it is (file:/x, say). */
static void commit_raw_path(env *e, const char *path, int64_t rows)
{
    zb_table *t = NULL;
    ice_data_file df;
    struct stat st;

    ZBT_CHECK(stat(strncmp(path, "file:", 5) == 0 ? path + 5 : path,
                   &st) == 0);
    memset(&df, 0, sizeof df);
    df.content = ICE_CONTENT_DATA;
    df.file_path = path;
    df.file_format = "PARQUET";
    df.record_count = rows;
    df.file_size_in_bytes = (int64_t)st.st_size;
    df.block_size_in_bytes = ICE_NULL_LONG;
    df.first_row_id = ICE_NULL_LONG;
    df.content_offset = ICE_NULL_LONG;
    df.content_size_in_bytes = ICE_NULL_LONG;
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, e->table, &t),
               &e->ctx);
    ZBT_OK_CTX(zb_ingest_commit_files(&t, e->cat, e->io, &e->ctx, &df, NULL,
                                      1), &e->ctx);
    zb_table_free(t);
}

/* Duplicates are found whatever form the paths take: /x, file:/x,
 * file:///x, and a table path that resolves (through a remap) to the
 * file. add-files names local files by their plain absolute path. */
static void test_ops_add_files__duplicates_normalized(void)
{
    static const char unpartitioned[] = "{\"spec-id\":0,\"fields\":[]}";
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    ice_path_remap remap;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *me;
    const ice_manifest_file *mf;
    zb_table *t = NULL;
    char uri[1200], p[1200], moved[1200];
    int n = 0;
    env e;

    env_open(&e);
    make_table(&e);
    write_source(&e);
    snprintf(uri, sizeof uri, "file://%s", e.src);
    o.source = uri;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 2);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.table, &t), &e.ctx);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths), &e.ctx);
    while (ice_snapshot_iter_next(it, &e.ctx, &me, &mf) > 0) {
        ZBT_CHECK(strncmp(me->data_file.file_path, e.src,
                          strlen(e.src)) == 0);
        n++;
    }
    ZBT_EQ_INT(n, 2);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "2 of the files are data files");
    snprintf(uri, sizeof uri, "file:%s", e.src);
    o.source = uri;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "2 of the files are data files");
    ZBT_EQ_INT(n_snapshots(&e), 1);
    env_close(&e);

    /* the table names the file file:/x (as Hadoop writers do) */
    env_open(&e);
    snprintf(e.table, sizeof e.table, "%s/table-raw", zbt_tmpdir());
    snprintf(e.src, sizeof e.src, "%s/src-raw", zbt_tmpdir());
    make_table_spec(&e, unpartitioned);
    snprintf(p, sizeof p, "%s/n.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "l", 0);
    snprintf(uri, sizeof uri, "file:%s", p);
    commit_raw_path(&e, uri, 10);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "1 of the files are data files");
    ZBT_CONTAINS(e.ctx.err.msg, "n.parquet");
    ZBT_EQ_INT(n_snapshots(&e), 1);

    /* the files moved; the catalog remaps the old folder to the new */
    snprintf(moved, sizeof moved, "%s/src-raw-moved", zbt_tmpdir());
    ZBT_EQ_INT(rename(e.src, moved), 0);
    snprintf(uri, sizeof uri, "file:%s", e.src);
    remap.from = uri;              /* the table's form: file:/x/n.parquet */
    remap.to = moved;
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "af-remap";
    cfg.n_remaps = 1;
    cfg.remaps = &remap;
    zb_catalog_free(e.cat);
    ZBT_OK_CTX(zb_catalog_open(&e.cat, &e.ctx, e.io, &cfg), &e.ctx);
    e.t.catalog = e.cat;
    o.source = moved;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "1 of the files are data files");
    ZBT_CONTAINS(e.ctx.err.msg, "src-raw-moved/n.parquet");
    env_close(&e);
}

/* A key=value directory naming a column that is not identity-partitioned:
 * its value would be lost unless the file holds it. */
static void test_ops_add_files__directory_of_unpartitioned_column(void)
{
    static const char spec[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
        "\"name\":\"ts_day\",\"transform\":\"day\"}]}";
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    make_table_spec(&e, spec);
    /* region is a column, not partitioned, and not in the file */
    snprintf(p, sizeof p, "%s/region=eu/a.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "a.parquet: directory region=eu names "
                 "column region, which is not identity-partitioned and "
                 "not in the file");
    ZBT_EQ_INT(n_snapshots(&e), 0);
    /* a null directory: the column reads null, as it says */
    snprintf(e.src, sizeof e.src, "%s/src-null", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/region=__HIVE_DEFAULT_PARTITION__/n.parquet",
             e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    /* the file holds the column, with the directory's value: fine */
    snprintf(e.src, sizeof e.src, "%s/src-same", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/name=name-000005/ok.parquet", e.src);
    write_file(&e, p, 5, 1, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_added, 1);
    /* ... with other values: refused */
    snprintf(e.src, sizeof e.src, "%s/src-other", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/name=name-000005/bad.parquet", e.src);
    write_file(&e, p, 5, 2, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "bad.parquet: directory name=name-000005 "
                 "names column name, which is not identity-partitioned, "
                 "and the file's values of it are not all name-000005");
    ZBT_EQ_INT(n_snapshots(&e), 2);
    env_close(&e);
}

/* A column that maps to no field of the table is refused, not dropped:
 * into an existing table, and with --create for a later file that has
 * columns the first file lacks. */
static void test_ops_add_files__unmapped_columns_refused(void)
{
    static const char schema[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,"
        "\"type\":\"timestamp\"}]}";
    static const char spec[] = "{\"spec-id\":0,\"fields\":[]}";
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    struct stat st;
    env e;

    env_open(&e);
    make_table_full(&e, schema, spec);
    snprintf(p, sizeof p, "%s/wide.parquet", e.src);
    write_file(&e, p, 0, 10, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "wide.parquet: 1 column(s) map to no field "
                 "of the table's schema by name through the name mapping "
                 "(name)");
    ZBT_EQ_INT(n_snapshots(&e), 0);
    /* a file of the table's columns only goes in */
    snprintf(e.src, sizeof e.src, "%s/src-narrow", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/narrow.parquet", e.src);
    write_narrow(&e, p, 0, 10);
    o.source = e.src;
    ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
    env_close(&e);

    env_open(&e);
    snprintf(e.table, sizeof e.table, "%s/table-created", zbt_tmpdir());
    snprintf(e.src, sizeof e.src, "%s/src-create", zbt_tmpdir());
    snprintf(p, sizeof p, "%s/a.parquet", e.src);
    write_narrow(&e, p, 0, 10);
    snprintf(p, sizeof p, "%s/b.parquet", e.src);
    write_file(&e, p, 10, 10, day0_us(), 1000, 0, "l", 0);
    o.source = e.src;
    o.create = 1;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "b.parquet: 2 column(s) map to no field");
    ZBT_CONTAINS(e.ctx.err.msg, "(ts, name)");
    ZBT_CHECK(stat(e.table, &st) != 0);
    env_close(&e);
}

static void test_ops_add_files__missing(void)
{
    zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
    zb_add_files_result r;
    char p[1200];
    env e;

    env_open(&e);
    o.source = "/nonexistent/add-files-source";
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_ENOTFOUND);
    ZBT_CONTAINS(e.ctx.err.msg, "/nonexistent/add-files-source");
    /* a source without Parquet files */
    snprintf(p, sizeof p, "%s/only-notes/x.txt", zbt_tmpdir());
    zbt_write_file(p, "x", 1);
    snprintf(p, sizeof p, "%s/only-notes", zbt_tmpdir());
    o.source = p;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_ENOTFOUND);
    ZBT_CONTAINS(e.ctx.err.msg, "no Parquet files");
    /* a table that does not exist, without create */
    write_source(&e);
    o.source = e.src;
    ZBT_RC(zb_add_files(&e.t, &e.ctx, &o, &r), ZB_ENOTFOUND);
    env_close(&e);
}

/*
 * Every allocation of the reading and checking phase fails in turn (the
 * allocations a dry run makes, which a real run makes first): an error,
 * no commit, nothing leaked. The commit phase (table/commit, catalog) is
 * left out: a failed append inside jansson's json_dump_callback for an
 * object key is ignored by jansson, and table/metadata/metadata_json.c's dump then
 * writes metadata without that key (seen as "transform" missing).
 */
static void test_ops_add_files__alloc_faults(void)
{
    uint64_t total, nth, step, failures = 0;

    {
        zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
        zb_add_files_result r;
        uint64_t before;
        env e;

        env_open(&e);
        snprintf(e.table, sizeof e.table, "%s/count", zbt_tmpdir());
        make_table(&e);
        write_source(&e);
        o.source = e.src;
        e.t.dry_run = 1;
        before = zb_alloc__count();
        ZBT_OK_CTX(zb_add_files(&e.t, &e.ctx, &o, &r), &e.ctx);
        total = zb_alloc__count() - before;
        env_close(&e);
    }
    ZBT_CHECK(total > 10);
    step = total / 300 + 1;
    for (nth = 1; nth <= total; nth += step) {
        zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
        zb_add_files_result r;
        uint64_t live;
        env e;
        int rc;

        env_open(&e);
        snprintf(e.table, sizeof e.table, "%s/t-%llu", zbt_tmpdir(),
                 (unsigned long long)nth);
        make_table(&e);
        o.source = e.src;
        live = zb_alloc_live_bytes();
        zb_alloc__fail_at(nth, 0);
        rc = zb_add_files(&e.t, &e.ctx, &o, &r);
        zb_alloc__fail_at(0, 0);
        ZBT_EQ_U64(zb_alloc_live_bytes(), live);
        /* Lower layers may get over a failure (a version hint that does
         * not read falls back to listing): then the run succeeds. */
        if (rc != ZB_ENOMEM && rc != ZB_OK)
            zbt__fail(__FILE__, __LINE__, "allocation %llu of %llu: %s (%s)",
                      (unsigned long long)nth, (unsigned long long)total,
                      zb_rc_name(rc), e.ctx.err.msg);
        if (rc == ZB_ENOMEM)
            failures++;
        ZBT_EQ_INT(n_snapshots(&e), rc == ZB_OK ? 1 : 0);
        env_close(&e);
    }
    ZBT_CHECK(failures > total / step / 2);
}

static const zbt_case suite[] = {
    ZBT_CASE(test_ops_add_files__partitions_from_paths_and_stats),
    ZBT_CASE(test_ops_add_files__spanning_file_refused),
    ZBT_CASE(test_ops_add_files__duplicates),
    ZBT_CASE(test_ops_add_files__field_ids),
    ZBT_CASE(test_ops_add_files__type_mismatch),
    ZBT_CASE(test_ops_add_files__corrupt_and_truncated),
    ZBT_CASE(test_ops_add_files__dry_run),
    ZBT_CASE(test_ops_add_files__create),
    ZBT_CASE(test_ops_add_files__create_partition_by),
    ZBT_CASE(test_ops_add_files__path_value_checked),
    ZBT_CASE(test_ops_add_files__bucket_needs_one_value),
    ZBT_CASE(test_ops_add_files__hidden_dirs_skipped),
    ZBT_CASE(test_ops_add_files__duplicates_normalized),
    ZBT_CASE(test_ops_add_files__directory_of_unpartitioned_column),
    ZBT_CASE(test_ops_add_files__unmapped_columns_refused),
    ZBT_CASE(test_ops_add_files__missing),
    ZBT_CASE(test_ops_add_files__alloc_faults),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { suite, NULL };

    return zbt_main(argc, argv, suites);
}

/*
 * tests/unit/ops/compact_evolve_test.c - partition evolution by
 * compaction (ops/compact/compact_evolve.h) on a generated table of (id long, ts
 * timestamp, payload string) partitioned by day(ts), with days both old
 * and recent against a fixed clock:
 *   - the period arithmetic (hour, day, month, year ends);
 *   - a dry run counts the old partitions and changes no file;
 *   - the run adds the month spec (not default), moves exactly the old
 *     days' files into it, leaves the recent ones as they were, keeps the
 *     rows (count and an order-free hash through the row stream), and
 *     each moved row sits in the month of its ts;
 *   - running again does nothing; a later clock evolves more days into
 *     the same spec;
 *   - the maintenance run with a table config evolves, and its regular
 *     pass leaves the coarse files alone;
 *   - a rule that covers no field does nothing; an hour(ts) table goes
 *     to day with one step only; the filters on a result made by hand;
 *     a rule that does not coarsen is refused; a truncated manifest fails
 *     the run with the reader's error before anything is committed.
 * With ZB_EVOLVE_KEEP set the last table is left in ZB_EVOLVE_KEEP (a
 * folder) for the independent reader (tests/interop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "exec/arrow/arrow.h"
#include "ops/compact/compact_evolve.h"
#include "ops/maintenance_run.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "table/value/transform.h"
#include "ops_fixture.h"
#include "util/alloc.h"

#define DAY_MS ((int64_t)86400000)
#define DAY_US ((int64_t)86400000000)

/* 2026-06-15 00:00 UTC */
static const int64_t NOW_MS = (int64_t)20619 * DAY_MS;

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"ts\",\"required\":true,\"type\":\"timestamp\"},"
    "{\"id\":3,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static const char SPEC[] =
    "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
    "\"name\":\"ts_day\",\"transform\":\"day\"}]}";

/* The name of column 3 (the clash tests rename it). */
static const char *col3_name = "payload";

static void field(struct ArrowSchema *s, const char *fmt, const char *name,
                  int id, int nullable)
{
    char idtext[16], *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", idtext, NULL };

    snprintf(idtext, sizeof idtext, "%d", id);
    ZBT_CHECK(zb_arrow_metadata(&md, &md_len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s, fmt, name, md, md_len,
                                   nullable ? ARROW_FLAG_NULLABLE : 0,
                                   0) == 0);
    zb_free(md);
}

/* rows rows with ts spread over [ts0, ts0 + span) microseconds, ids
 * from first, into the partition pv of the default spec. */
static void append_rows(of_env *e, ice_value pv, const char *folder,
                        int64_t first, int rows, int64_t ts0, int64_t span)
{
    struct ArrowSchema s;
    struct ArrowArray b, *ids, *ts, *pay;
    zb_table *t = of_load(e);
    zb_write_partition wp;
    int64_t *idv, *tsv;
    int32_t *off;
    uint8_t *valid;
    char *chars;
    int i, at = 0;

    memset(&s, 0, sizeof s);
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 3) == 0);
    field(s.children[0], "l", "id", 1, 0);
    field(s.children[1], "tsu:", "ts", 2, 0);
    field(s.children[2], "u", col3_name, 3, 1);
    memset(&b, 0, sizeof b);
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 3) == 0);
    ids = b.children[0];
    ts = b.children[1];
    pay = b.children[2];
    ZBT_CHECK(zb_arrow_array_init(ids, 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(ts, 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(pay, 3, 0) == 0);
    idv = zb_malloc((size_t)rows * sizeof *idv + 1);
    tsv = zb_malloc((size_t)rows * sizeof *tsv + 1);
    off = zb_malloc(((size_t)rows + 1) * sizeof *off);
    valid = zb_calloc((size_t)rows / 8 + 1, 1);
    chars = zb_malloc((size_t)rows * 24 + 1);
    ZBT_CHECK(idv && tsv && off && valid && chars);
    ids->buffers[1] = idv;
    ts->buffers[1] = tsv;
    pay->buffers[0] = valid;
    pay->buffers[1] = off;
    pay->buffers[2] = chars;
    off[0] = 0;
    for (i = 0; i < rows; i++) {
        idv[i] = first + i;
        /* spread over the period, the last row at its last microsecond */
        tsv[i] = ts0 + (rows > 1 ? (span - 1) / (rows - 1) * i : 0);
        if (i % 7 == 3) {
            pay->null_count++;
        } else {
            zb_arrow_set_bit(valid, i);
            at += snprintf(chars + at, 24, "p-%lld", (long long)(first + i));
        }
        off[i + 1] = at;
    }
    b.length = ids->length = ts->length = pay->length = rows;
    memset(&wp, 0, sizeof wp);
    wp.spec_id = -1;
    wp.n_values = 1;
    wp.values = &pv;
    wp.folder = folder;
    ZBT_OK_CTX(zb_ingest_append(&t, e->cat, e->io, &e->ctx, &s, &b, 1, &wp),
               &e->ctx);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
}

/* rows rows of day `day` (days from 1970-01-01), ids from first. */
static void append_day(of_env *e, int32_t day, int64_t first, int rows)
{
    char folder[32];

    snprintf(folder, sizeof folder, "ts_day=%d", (int)day);
    append_rows(e, ice_value_date(day), folder, first, rows,
                (int64_t)day * DAY_US, DAY_US);
}

/* Days (from 1970-01-01) of the generated table, now = 2026-06-15. */
enum {
    D_MAR01 = 20513, D_MAR02 = 20514, D_APR10 = 20553,
    D_MAY15 = 20588,   /* ends 05-16 00:00 = now - 30 d: old, just */
    D_MAY16 = 20589,   /* ends a day later: recent */
    D_JUN10 = 20614, D_JUN14 = 20618
};

/* Months from 1970-01 */
#define M_2026_03 674
#define M_2026_04 675
#define M_2026_05 676

/* An empty table of schema and spec (JSON text). */
static void create_table(of_env *e, const char *name, const char *schema_text,
                         const char *spec_text)
{
    json_t *schema = json_loads(schema_text, 0, NULL);
    json_t *spec = json_loads(spec_text, 0, NULL);
    zb_table *t = NULL;

    of_open(e, name);
    e->t.now_ms = NOW_MS;
    ZBT_CHECK(schema != NULL && spec != NULL);
    ZBT_OK_CTX(zb_ingest_create(&t, e->cat, &e->ctx, e->dir, NULL,
                                (const zb_json *)schema,
                                (const zb_json *)spec, NULL, 0, 2), &e->ctx);
    json_decref(schema);
    json_decref(spec);
    zb_table_free(t);
}

static void fill_table(of_env *e)
{
    append_day(e, D_MAR01, 0, 100);
    append_day(e, D_MAR01, 100, 50);
    append_day(e, D_MAR02, 200, 60);
    append_day(e, D_APR10, 300, 70);
    append_day(e, D_MAY15, 400, 80);
    append_day(e, D_MAY16, 500, 90);
    append_day(e, D_JUN10, 600, 40);
    append_day(e, D_JUN10, 700, 40);
    append_day(e, D_JUN14, 800, 30);
}

static void make_table(of_env *e, const char *name)
{
    create_table(e, name, SCHEMA, SPEC);
    fill_table(e);
}

static const zb_tc_evolution_rule DAY_MONTH_30[] = {
    { ZB_TC_DAY, ZB_TC_MONTH, 30 }
};

static int run_evolve(of_env *e, const zb_tc_evolution_rule *rules, size_t n,
                      zb_compact_evolve_result *r)
{
    zb_compact_evolve_opts o = ZB_COMPACT_EVOLVE_OPTS_INIT;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    int rc;

    o.rules = rules;
    o.n_rules = n;
    rc = zb_compact_evolve(&e->t, &e->ctx, &o, r);
    if (rc < 0)
        printf("  evolve: %s\n", e->ctx.err.msg);
    ZBT_RC(zb_compact_evolve_report(&out, r, e->t.dry_run), ZB_OK);
    printf("%s", out.len ? zb_buf_cstr(&out) : "  (no evolution line)\n");
    zb_buf_free(&out);
    return rc;
}

/* The partition value and spec of each live data file. */
typedef struct fileinfo {
    char *path;
    int32_t spec_id;
    int32_t value;
    int64_t records;
} fileinfo;

static size_t live_files(of_env *e, fileinfo *out, size_t max)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    size_t n = 0;
    int rc;

    ZBT_CHECK(s != NULL);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, s,
                                      &t->paths), &e->ctx);
    while ((rc = ice_snapshot_iter_next(it, &e->ctx, &en, &mf)) > 0) {
        if (en->data_file.content != ICE_CONTENT_DATA)
            continue;
        ZBT_CHECK(n < max);
        if (n >= max)
            break;
        out[n].path = zb_strdup(en->data_file.file_path);
        out[n].spec_id = mf->partition_spec_id;
        ZBT_EQ_INT((int)en->data_file.n_partition, 1);
        out[n].value = en->data_file.partition[0].u.i;
        out[n].records = en->data_file.record_count;
        n++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    return n;
}

static void free_files(fileinfo *f, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        zb_free(f[i].path);
}

static size_t count_spec(const fileinfo *f, size_t n, int32_t spec,
                         int32_t value)
{
    size_t i, k = 0;

    for (i = 0; i < n; i++)
        k += f[i].spec_id == spec && (value < 0 || f[i].value == value);
    return k;
}

/* Every row of each data file of spec `spec` has a ts in the file's
 * month (spec 1) or day (spec 0): read through the row stream. */
static void check_rows_in_partitions(of_env *e)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    zb_arena *arena = NULL;
    int rc;
    uint64_t checked = 0;

    ZBT_CHECK(zb_arena_new(&arena, (size_t)1 << 28) == 0);
    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta, s, &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
        zb_rowstream *rs = NULL;
        zb_scan_task copy;
        struct ArrowArray b;
        struct ArrowSchema sch;
        const ice_partition_spec *spec =
            ice_metadata_spec(t->meta, task->data.spec_id);
        int32_t want = task->data.file->partition[0].u.i;

        ZBT_CHECK(spec != NULL);
        ZBT_OK_CTX(zb_scan_task_copy(&copy, &e->ctx, arena, task), &e->ctx);
        ro.meta = t->meta;
        ro.paths = &t->paths;
        ZBT_OK_CTX(zb_rowstream_open(&rs, e->io, &e->ctx, &ro, &copy, 1),
                   &e->ctx);
        while ((rc = zb_rowstream_next(rs, &e->ctx, &b, &sch)) == 1) {
            const int64_t *tsv = b.children[1]->buffers[1];
            int64_t r;

            for (r = 0; r < b.length; r++) {
                ice_value in = ice_value_time(ICE_TIMESTAMP,
                                              tsv[r + b.children[1]->offset]);
                ice_value got;
                ice_transform tr;

                ZBT_OK_CTX(ice_transform_parse(&tr, &e->ctx,
                                               spec->fields[0].transform),
                           &e->ctx);
                ZBT_OK_CTX(ice_transform_apply(&got, &e->ctx, &tr, &in),
                           &e->ctx);
                if (got.u.i != want) {
                    ZBT_EQ_INT((int)got.u.i, (int)want);
                    break;
                }
                checked++;
            }
            b.release(&b);
            sch.release(&sch);
        }
        ZBT_OK_CTX(rc, &e->ctx);
        zb_rowstream_free(rs);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ZBT_CHECK(checked == 560);
    zb_scan_plan_free(p);
    zb_arena_free(arena);
    zb_table_free(t);
}

static void test_ops_evolve__period_end(void)
{
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_HOUR, 0) == 3600000);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_HOUR, -1) == 0);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_DAY, 0) == DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_DAY, D_MAY15) ==
              NOW_MS - 30 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, 0) ==
              31 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, 1) ==
              59 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, 11) ==
              365 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, -1) == 0);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, -13) ==
              -365 * DAY_MS);
    /* 2026-05 ends at 2026-06-01 = day 20605 */
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_MONTH, M_2026_05) ==
              (int64_t)20605 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_YEAR, 0) ==
              365 * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_YEAR, 2) ==
              (365 + 365 + 366) * DAY_MS);
    ZBT_CHECK(zb_compact_evolve_period_end_ms(ZB_TC_IDENTITY, 5) == 0);
}

static void test_ops_evolve__day_to_month(void)
{
    of_env e;
    zb_compact_evolve_result r;
    fileinfo f[64];
    size_t n, i;
    uint64_t rows0, hash0, rows1, hash1;
    char *list0, *list1;
    zb_table *t;
    const ice_partition_spec *c;
    int64_t snap;
    size_t nsnap;
    fileinfo before[64];
    size_t nb;

    make_table(&e, "evolve_day");
    of_rows(&e, &rows0, &hash0);
    ZBT_CHECK(rows0 == 560);
    nb = live_files(&e, before, 64);
    ZBT_EQ_INT((int)nb, 9);

    /* dry run: counts, nothing written */
    list0 = of_listing(e.dir);
    e.t.dry_run = 1;
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.applicable, 1);
    ZBT_EQ_INT((int)r.files, 5);
    ZBT_EQ_INT((int)r.partitions, 4);
    ZBT_CHECK(r.rows == 360);
    ZBT_EQ_INT((int)r.coarse_spec_id, -1);
    ZBT_EQ_INT(r.spec_added, 1);
    ZBT_EQ_INT(r.ran, 0);
    ZBT_EQ_INT((int)r.n_fields, 1);
    ZBT_CHECK(strcmp(r.fields[0].coarse_name, "ts_month") == 0);
    zb_compact_evolve_result_free(&r);
    list1 = of_listing(e.dir);
    ZBT_CHECK(strcmp(list0, list1) == 0);
    zb_free(list0);
    zb_free(list1);
    e.t.dry_run = 0;

    /* the run */
    nsnap = of_snapshot_count(&e);
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.ran, 1);
    ZBT_EQ_INT(r.spec_added, 1);
    ZBT_EQ_INT((int)r.coarse_spec_id, 1);
    ZBT_EQ_INT((int)r.files, 5);
    ZBT_EQ_INT((int)r.partitions, 4);
    ZBT_EQ_INT((int)r.files_added, 4);   /* one per source day */
    /* then the two March files merged: a second replace */
    ZBT_CHECK(r.merge.files_removed == 2 && r.merge.files_added == 1);
    zb_compact_evolve_result_free(&r);
    ZBT_EQ_INT((int)of_snapshot_count(&e), (int)nsnap + 2);
    t = of_load(&e);
    ZBT_EQ_INT((int)t->meta->default_spec_id, 0);
    ZBT_EQ_INT((int)t->meta->n_specs, 2);
    c = ice_metadata_spec(t->meta, 1);
    ZBT_CHECK(c != NULL && c->n_fields == 1);
    if (c != NULL && c->n_fields == 1) {
        ZBT_EQ_INT((int)c->fields[0].source_id, 2);
        ZBT_CHECK(strcmp(c->fields[0].transform, "month") == 0);
        ZBT_CHECK(strcmp(c->fields[0].name, "ts_month") == 0);
        ZBT_EQ_INT((int)c->fields[0].field_id, 1001);
    }
    zb_table_free(t);
    of_rows(&e, &rows1, &hash1);
    ZBT_CHECK(rows1 == rows0 && hash1 == hash0);
    n = live_files(&e, f, 64);
    ZBT_EQ_INT((int)n, 7);
    ZBT_EQ_INT((int)count_spec(f, n, 1, M_2026_03), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 1, M_2026_04), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 1, M_2026_05), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 0, -1), 4);
    /* the recent files are the very same */
    for (i = 0; i < nb; i++) {
        size_t k;
        int found = 0;

        if (before[i].value < D_MAY16)
            continue;
        for (k = 0; k < n; k++)
            found |= strcmp(before[i].path, f[k].path) == 0 &&
                     f[k].spec_id == 0;
        ZBT_CHECK(found);
    }
    check_rows_in_partitions(&e);
    free_files(f, n);

    /* again: nothing new */
    snap = of_current_id(&e);
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT((int)r.files, 0);
    ZBT_EQ_INT(r.spec_added, 0);
    ZBT_EQ_INT((int)r.coarse_spec_id, 1);
    zb_compact_evolve_result_free(&r);
    ZBT_CHECK(of_current_id(&e) == snap);
    t = of_load(&e);
    ZBT_EQ_INT((int)t->meta->n_specs, 2);
    zb_table_free(t);

    /* 29 days later the 05-16 and 06-10 days are old too (06-14 not):
     * into the existing spec, no spec added */
    e.t.now_ms = NOW_MS + 29 * DAY_MS;
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT((int)r.files, 3);
    ZBT_EQ_INT((int)r.partitions, 2);
    ZBT_EQ_INT(r.spec_added, 0);
    ZBT_EQ_INT((int)r.coarse_spec_id, 1);
    zb_compact_evolve_result_free(&r);
    of_rows(&e, &rows1, &hash1);
    ZBT_CHECK(rows1 == rows0 && hash1 == hash0);
    n = live_files(&e, f, 64);
    ZBT_EQ_INT((int)count_spec(f, n, 0, -1), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 0, D_JUN14), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 1, -1), 4);   /* one per month */
    free_files(f, n);
    check_rows_in_partitions(&e);
    of_check_files(&e);
    free_files(before, nb);
    of_close(&e);
}

/* Rules that cover nothing, and no rules. */
static void test_ops_evolve__not_applicable(void)
{
    static const zb_tc_evolution_rule hour_day[] = {
        { ZB_TC_HOUR, ZB_TC_DAY, 1 }
    };
    of_env e;
    zb_compact_evolve_result r;
    int64_t snap;

    make_table(&e, "evolve_none");
    snap = of_current_id(&e);
    ZBT_RC(run_evolve(&e, hour_day, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.applicable, 0);
    ZBT_EQ_INT((int)r.files, 0);
    zb_compact_evolve_result_free(&r);
    ZBT_RC(run_evolve(&e, NULL, 0, &r), ZB_OK);
    ZBT_EQ_INT(r.applicable, 0);
    zb_compact_evolve_result_free(&r);
    /* far in the past: nothing is old */
    e.t.now_ms = (int64_t)20000 * DAY_MS;
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.applicable, 1);
    ZBT_EQ_INT((int)r.files, 0);
    ZBT_EQ_INT(r.spec_added, 0);
    zb_compact_evolve_result_free(&r);
    ZBT_CHECK(of_current_id(&e) == snap);
    {
        zb_table *t = of_load(&e);

        ZBT_EQ_INT((int)t->meta->n_specs, 1);
        zb_table_free(t);
    }
    of_close(&e);
}

/* An hour(ts) table with a field named "h": rules hour -> day after 2
 * days and day -> month after 1 day: only the first applies (one step
 * from the default spec's transform), and the coarse field is "h_day". */
static void test_ops_evolve__hour_to_day(void)
{
    static const char hour_spec[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
        "\"name\":\"h\",\"transform\":\"hour\"}]}";
    static const zb_tc_evolution_rule rules[] = {
        { ZB_TC_DAY, ZB_TC_MONTH, 1 },
        { ZB_TC_HOUR, ZB_TC_DAY, 2 }
    };
    /* hours from the epoch; now = 2026-06-15 00:00 = hour 494856 */
    static const int32_t hours[] = { 494800, 494800, 494801, 494808,
                                     494807, 494833, 494855 };
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    json_t *spec = json_loads(hour_spec, 0, NULL);
    zb_compact_evolve_result r;
    zb_table *t = NULL;
    of_env e;
    fileinfo f[64];
    size_t n, i;
    uint64_t rows0, hash0, rows1, hash1;

    of_open(&e, "evolve_hour");
    e.t.now_ms = NOW_MS;
    ZBT_CHECK(schema != NULL && spec != NULL);
    ZBT_OK_CTX(zb_ingest_create(&t, e.cat, &e.ctx, e.dir, NULL,
                                (const zb_json *)schema,
                                (const zb_json *)spec, NULL, 0, 2), &e.ctx);
    json_decref(schema);
    json_decref(spec);
    zb_table_free(t);
    for (i = 0; i < sizeof hours / sizeof hours[0]; i++) {
        char folder[32];

        snprintf(folder, sizeof folder, "h=%d", (int)hours[i]);
        append_rows(&e, ice_value_int(hours[i]), folder, (int64_t)i * 100,
                    20, (int64_t)hours[i] * 3600000000, 3600000000);
    }
    of_rows(&e, &rows0, &hash0);
    /* cutoff now - 2 d = hour 494808: hours ending <= it are old (494800,
     * 494801 and 494807; 494808 ends an hour later) */
    ZBT_RC(run_evolve(&e, rules, 2, &r), ZB_OK);
    ZBT_EQ_INT((int)r.n_fields, 1);
    ZBT_EQ_INT((int)r.fields[0].from, (int)ZB_TC_HOUR);
    ZBT_CHECK(strcmp(r.fields[0].coarse_name, "h_day") == 0);
    ZBT_EQ_INT((int)r.files, 4);
    ZBT_EQ_INT((int)r.partitions, 3);
    ZBT_EQ_INT(r.spec_added, 1);
    zb_compact_evolve_result_free(&r);
    of_rows(&e, &rows1, &hash1);
    ZBT_CHECK(rows1 == rows0 && hash1 == hash0);
    n = live_files(&e, f, 64);
    /* 494800..494807 are 16:00..23:00 of day 20616 (2026-06-12) */
    ZBT_EQ_INT((int)count_spec(f, n, 1, 20616), 1);   /* merged */
    ZBT_EQ_INT((int)count_spec(f, n, 0, -1), 3);
    free_files(f, n);
    t = of_load(&e);
    ZBT_EQ_INT((int)t->meta->default_spec_id, 0);
    {
        const ice_partition_spec *c = ice_metadata_spec(t->meta, 1);

        ZBT_CHECK(c != NULL && c->n_fields == 1 &&
                  strcmp(c->fields[0].transform, "day") == 0 &&
                  strcmp(c->fields[0].name, "h_day") == 0);
    }
    zb_table_free(t);
    of_close(&e);
}

/* The filters on a result made by hand, and a rule that does not
 * coarsen. */
static void test_ops_evolve__filters(void)
{
    static const zb_tc_evolution_rule bad[] = {
        { ZB_TC_DAY, ZB_TC_HOUR, 3 }
    };
    zb_compact_evolve_result r;
    ice_data_file f;
    ice_value v;
    of_env e;

    memset(&r, 0, sizeof r);
    memset(&f, 0, sizeof f);
    r.applicable = 1;
    r.fine_spec_id = 0;
    r.coarse_spec_id = 3;
    r.n_fields = 1;
    r.fields[0].index = 0;
    r.fields[0].from = ZB_TC_DAY;
    r.fields[0].to = ZB_TC_MONTH;
    r.fields[0].cutoff_ms = (int64_t)100 * DAY_MS;
    f.n_partition = 1;
    f.partition = &v;
    v = ice_value_date(99);              /* ends at day 100: old */
    ZBT_EQ_INT(zb_compact_evolve_filter(0, &f, &r), 1);
    ZBT_EQ_INT(zb_compact_evolve_regular_filter(0, &f, &r), 0);
    ZBT_EQ_INT(zb_compact_evolve_filter(2, &f, &r), 0);  /* other spec */
    ZBT_EQ_INT(zb_compact_evolve_regular_filter(2, &f, &r), 1);
    ZBT_EQ_INT(zb_compact_evolve_regular_filter(3, &f, &r), 0); /* coarse */
    v = ice_value_date(100);
    ZBT_EQ_INT(zb_compact_evolve_filter(0, &f, &r), 0);
    ZBT_EQ_INT(zb_compact_evolve_regular_filter(0, &f, &r), 1);
    v = ice_value_null(ICE_DATE);
    ZBT_EQ_INT(zb_compact_evolve_filter(0, &f, &r), 0);
    f.n_partition = 0;
    ZBT_EQ_INT(zb_compact_evolve_filter(0, &f, &r), 0);
    r.applicable = 0;
    ZBT_EQ_INT(zb_compact_evolve_regular_filter(3, &f, &r), 1);

    make_table(&e, "evolve_bad");
    ZBT_RC(run_evolve(&e, bad, 1, &r), ZB_EINVAL);
    ZBT_CONTAINS(e.ctx.err.msg, "does not coarsen");
    zb_compact_evolve_result_free(&r);
    of_close(&e);
}

/* A truncated manifest: the planning fails with the reader's error,
 * before anything is committed (no spec added, no snapshot). */
static void test_ops_evolve__corrupt_manifest(void)
{
    zb_compact_evolve_result r;
    zbt_files mf;
    of_env e;
    char meta[1100], *list0, *list1;
    int64_t snap;
    size_t i;
    int rc;

    make_table(&e, "evolve_corrupt");
    snap = of_current_id(&e);
    snprintf(meta, sizeof meta, "%s/metadata", e.dir);
    memset(&mf, 0, sizeof mf);
    ZBT_CHECK(zbt_find_files(&mf, meta, "-m0.avro") == 9);
    for (i = 0; i < mf.n; i++)
        ZBT_EQ_INT(truncate(mf.paths[i], 40), 0);
    zbt_files_free(&mf);
    list0 = of_listing(e.dir);
    rc = run_evolve(&e, DAY_MONTH_30, 1, &r);
    ZBT_CHECK(rc < 0);
    ZBT_CHECK(strstr(e.ctx.err.msg, "-m0.avro") != NULL);
    zb_compact_evolve_result_free(&r);
    list1 = of_listing(e.dir);
    ZBT_CHECK(strcmp(list0, list1) == 0);
    zb_free(list0);
    zb_free(list1);
    ZBT_CHECK(of_current_id(&e) == snap);
    of_close(&e);
}

typedef struct steps {
    char text[8192];
    int rc;
} steps;

static void on_step(const zb_maint_step *st, void *payload)
{
    steps *s = payload;
    size_t at = strlen(s->text);

    if (st->detail != NULL)
        snprintf(s->text + at, sizeof s->text - at, "%s\n", st->detail);
    if (st->rc < 0) {
        s->rc = st->rc;
        printf("  step failed: %s\n", st->error ? st->error : "?");
    }
}

/* The compact step of maintenance with a table config: evolution first,
 * then the regular pass, which compacts the two small 06-10 files in the
 * day spec and leaves the month files alone. */
static void test_ops_evolve__maintenance(void)
{
    static const char cfg[] =
        "{\"version\":2,\"warehouse\":\"w\",\"defaults\":{"
        "\"min_input_files\":2,"
        "\"partition_evolution\":{\"rules\":[{\"from\":\"day\","
        "\"to\":\"month\",\"older_than_days\":30}]}}}";
    zb_table_config *tc = NULL;
    zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
    of_env e;
    steps s;
    fileinfo f[64];
    size_t n, i;
    uint64_t rows0, hash0, rows1, hash1;
    char *list0, *list1;
    const char *keep = getenv("ZB_EVOLVE_KEEP");

    make_table(&e, "evolve_maint");
    of_rows(&e, &rows0, &hash0);
    ZBT_OK_CTX(zb_table_config_parse(&tc, &e.ctx, "cfg.json", cfg,
                                     strlen(cfg)), &e.ctx);
    mo.config = tc;
    for (i = 0; i < ZB_MAINT_OP_COUNT; i++)
        mo.run[i] = i == ZB_MAINT_COMPACT;

    /* preview: nothing changes, the line says what would evolve */
    list0 = of_listing(e.dir);
    e.t.dry_run = 1;
    memset(&s, 0, sizeof s);
    ZBT_RC(zb_maintenance_table(&e.t, &e.ctx, &mo, on_step, &s), ZB_OK);
    printf("%s", s.text);
    ZBT_CHECK(strstr(s.text, "  evolution ts_day -> ts_month (older than "
                             "30 days): would evolve 5 file(s)") != NULL);
    /* the preview's regular pass: only the 06-10 pair */
    ZBT_CHECK(strstr(s.text, ": 1 group(s), 2 file(s)") != NULL);
    list1 = of_listing(e.dir);
    ZBT_CHECK(strcmp(list0, list1) == 0);
    zb_free(list0);
    zb_free(list1);

    e.t.dry_run = 0;
    memset(&s, 0, sizeof s);
    ZBT_RC(zb_maintenance_table(&e.t, &e.ctx, &mo, on_step, &s), ZB_OK);
    printf("%s", s.text);
    ZBT_EQ_INT(s.rc, 0);
    ZBT_CHECK(strstr(s.text, "rewrote 2 file(s)") != NULL);
    ZBT_CHECK(strstr(s.text, "evolved 5 file(s)") != NULL);
    ZBT_CHECK(strstr(s.text, "of spec 1 (spec added); merged 2 file(s) "
                             "of spec 1 into 1") != NULL);
    n = live_files(&e, f, 64);
    ZBT_EQ_INT((int)count_spec(f, n, 1, -1), 3);
    ZBT_EQ_INT((int)count_spec(f, n, 0, D_JUN10), 1);
    ZBT_EQ_INT((int)count_spec(f, n, 0, -1), 3);
    free_files(f, n);
    of_rows(&e, &rows1, &hash1);
    ZBT_CHECK(rows1 == rows0 && hash1 == hash0);

    /* again: nothing to do (the month files stay where they are) */
    memset(&s, 0, sizeof s);
    ZBT_RC(zb_maintenance_table(&e.t, &e.ctx, &mo, on_step, &s), ZB_OK);
    printf("%s", s.text);
    ZBT_CHECK(strstr(s.text, "no groups") != NULL);
    ZBT_CHECK(strstr(s.text, "no partition old enough") != NULL);
    n = live_files(&e, f, 64);
    ZBT_EQ_INT((int)n, 6);
    ZBT_EQ_INT((int)count_spec(f, n, 1, M_2026_03), 1);
    free_files(f, n);
    check_rows_in_partitions(&e);
    if (keep != NULL && keep[0] != '\0') {
        char cmd[3000];

        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s' '%s'", keep,
                 e.dir, keep);
        ZBT_EQ_INT(system(cmd), 0);
        printf("  kept the table in %s\n", keep);
    }
    zb_table_config_free(tc);
    of_close(&e);
}

/* An equality delete of id in the day partition `day` (spec 0). */
static void delete_eq(of_env *e, int32_t day, int64_t id)
{
    zb_table *t = of_load(e);
    zb_write_partition wp;
    ice_value v = ice_value_date(day);
    struct ArrowSchema s;
    struct ArrowArray b;
    int32_t eq = 1;
    int64_t *idv;

    memset(&wp, 0, sizeof wp);
    wp.spec_id = -1;
    wp.n_values = 1;
    wp.values = &v;
    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 1) == 0);
    field(s.children[0], "l", "id", 1, 0);
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 1) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[0], 2, 0) == 0);
    idv = zb_malloc(sizeof *idv);
    ZBT_CHECK(idv != NULL);
    *idv = id;
    b.children[0]->buffers[1] = idv;
    b.length = b.children[0]->length = 1;
    ZBT_OK_CTX(zb_ingest_delete_equal(&t, e->cat, e->io, &e->ctx, &eq, 1, &s,
                                      &b, &wp), &e->ctx);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
}

/* Number of partition specs of the table. */
static size_t n_specs(of_env *e)
{
    zb_table *t = of_load(e);
    size_t n = t->meta->n_specs;

    zb_table_free(t);
    return n;
}

/*
 * A live equality delete file: rows moved to the month spec would escape
 * the equality deletes written later in the day spec, so the evolution
 * is skipped (ZB_OK, refused says why, the report line too), nothing is
 * committed (no spec, no snapshot), dry run or not; the regular filter
 * then keeps the old files in (and still leaves a coarse spec's out).
 */
static void test_ops_evolve__eq_deletes_refused(void)
{
    of_env e;
    zb_compact_evolve_result r;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    ice_data_file df;
    ice_value v = ice_value_date(D_MAR01);
    int64_t snap;
    int dry;

    make_table(&e, "evolve_eqdel");
    delete_eq(&e, D_JUN14, 805);
    snap = of_current_id(&e);
    for (dry = 1; dry >= 0; dry--) {
        e.t.dry_run = dry;
        ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
        ZBT_EQ_INT(r.applicable, 1);
        ZBT_CHECK(strstr(r.refused, "1 equality delete file(s)") != NULL);
        ZBT_EQ_INT((int)r.files, 0);
        ZBT_EQ_INT(r.spec_added, 0);
        ZBT_EQ_INT(r.ran, 0);
        ZBT_CHECK(r.merge.plan.n_groups == 0);
        ZBT_RC(zb_compact_evolve_report(&out, &r, dry), ZB_OK);
        ZBT_CHECK(strstr(zb_buf_cstr(&out), "(older than 30 days): "
                         "skipped: snapshot ") != NULL);
        zb_buf_clear(&out);
        /* an old file of spec 0 goes to the regular pass */
        memset(&df, 0, sizeof df);
        df.n_partition = 1;
        df.partition = &v;
        ZBT_EQ_INT(zb_compact_evolve_regular_filter(0, &df, &r), 1);
        r.coarse_spec_id = 1;
        ZBT_EQ_INT(zb_compact_evolve_regular_filter(1, &df, &r), 0);
        zb_compact_evolve_result_free(&r);
        ZBT_CHECK(of_current_id(&e) == snap);
        ZBT_EQ_INT((int)n_specs(&e), 1);
    }
    zb_buf_free(&out);
    of_close(&e);
}

/*
 * Identifier fields (a keyed table: upserts by equality deletes): the
 * maintenance run skips the evolution with the reason on its line, does
 * not fail, and its regular pass compacts in the day spec as if there
 * were no rule (the March 1 pair and the June 10 pair).
 */
static void test_ops_evolve__identifier_refused(void)
{
    static const char keyed[] =
        "{\"type\":\"struct\",\"schema-id\":0,"
        "\"identifier-field-ids\":[1],\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":true,"
        "\"type\":\"timestamp\"},"
        "{\"id\":3,\"name\":\"payload\",\"required\":false,"
        "\"type\":\"string\"}]}";
    static const char cfg[] =
        "{\"version\":2,\"warehouse\":\"w\",\"defaults\":{"
        "\"min_input_files\":2,"
        "\"partition_evolution\":{\"rules\":[{\"from\":\"day\","
        "\"to\":\"month\",\"older_than_days\":30}]}}}";
    zb_table_config *tc = NULL;
    zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
    zb_compact_evolve_result r;
    of_env e;
    steps s;
    fileinfo f[64];
    size_t n, i;
    uint64_t rows0, hash0, rows1, hash1;

    create_table(&e, "evolve_keyed", keyed, SPEC);
    fill_table(&e);
    of_rows(&e, &rows0, &hash0);
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_CHECK(strstr(r.refused, "schema 0 has identifier fields") != NULL);
    ZBT_EQ_INT(r.ran, 0);
    zb_compact_evolve_result_free(&r);
    ZBT_EQ_INT((int)n_specs(&e), 1);

    ZBT_OK_CTX(zb_table_config_parse(&tc, &e.ctx, "cfg.json", cfg,
                                     strlen(cfg)), &e.ctx);
    mo.config = tc;
    for (i = 0; i < ZB_MAINT_OP_COUNT; i++)
        mo.run[i] = i == ZB_MAINT_COMPACT;
    memset(&s, 0, sizeof s);
    ZBT_RC(zb_maintenance_table(&e.t, &e.ctx, &mo, on_step, &s), ZB_OK);
    printf("%s", s.text);
    ZBT_EQ_INT(s.rc, 0);
    ZBT_CHECK(strstr(s.text, "  evolution ts_day -> ts_month (older than "
                             "30 days): skipped: schema 0 has identifier "
                             "fields") != NULL);
    ZBT_CHECK(strstr(s.text, "rewrote 4 file(s)") != NULL);
    ZBT_EQ_INT((int)n_specs(&e), 1);
    n = live_files(&e, f, 64);
    ZBT_EQ_INT((int)n, 7);
    ZBT_EQ_INT((int)count_spec(f, n, 0, -1), 7);
    ZBT_EQ_INT((int)count_spec(f, n, 0, D_MAR01), 1);
    free_files(f, n);
    of_rows(&e, &rows1, &hash1);
    ZBT_CHECK(rows1 == rows0 && hash1 == hash0);
    zb_table_config_free(tc);
    of_close(&e);
}

/*
 * The coarse field's name must be free (Java refuses a partition field
 * named as a column that is not its identity source): with a column
 * "ts_month" the month field is "ts_month_1" in the committed spec; with
 * a kept field "ts_month" (identity of payload) and a column
 * "TS_MONTH_1" (case-insensitive) it is "ts_month_2"; with every name
 * taken up to _99 the evolution is skipped, saying why, nothing
 * committed.
 */
static void test_ops_evolve__name_clash(void)
{
    static const char schema_month[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":true,"
        "\"type\":\"timestamp\"},"
        "{\"id\":3,\"name\":\"ts_month\",\"required\":false,"
        "\"type\":\"string\"}]}";
    static const char schema_month1[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":true,"
        "\"type\":\"timestamp\"},"
        "{\"id\":3,\"name\":\"payload\",\"required\":false,"
        "\"type\":\"string\"},"
        "{\"id\":4,\"name\":\"TS_MONTH_1\",\"required\":false,"
        "\"type\":\"string\"}]}";
    static const char spec2[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
        "\"name\":\"ts_day\",\"transform\":\"day\"},{\"source-id\":3,"
        "\"field-id\":1001,\"name\":\"ts_month\","
        "\"transform\":\"identity\"}]}";
    of_env e;
    zb_compact_evolve_result r;
    zb_table *t;
    const ice_partition_spec *c;
    char big[8192];
    size_t at;
    int k;

    /* a column named ts_month: the run commits ts_month_1 */
    col3_name = "ts_month";
    create_table(&e, "evolve_clash", schema_month, SPEC);
    fill_table(&e);
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.ran, 1);
    ZBT_EQ_INT(r.spec_added, 1);
    ZBT_EQ_STR(r.fields[0].coarse_name, "ts_month_1");
    zb_compact_evolve_result_free(&r);
    t = of_load(&e);
    c = ice_metadata_spec(t->meta, 1);
    ZBT_CHECK(c != NULL && c->n_fields == 1);
    if (c != NULL && c->n_fields == 1)
        ZBT_EQ_STR(c->fields[0].name, "ts_month_1");
    zb_table_free(t);
    col3_name = "payload";
    of_close(&e);

    /* a kept field ts_month and a column TS_MONTH_1 (empty table, dry) */
    create_table(&e, "evolve_clash2", schema_month1, spec2);
    e.t.dry_run = 1;
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_EQ_INT(r.applicable, 1);
    ZBT_EQ_STR(r.fields[0].coarse_name, "ts_month_2");
    zb_compact_evolve_result_free(&r);
    of_close(&e);

    /* every name taken: columns ts_month_1 .. ts_month_99 */
    at = (size_t)snprintf(big, sizeof big, "{\"type\":\"struct\","
                          "\"schema-id\":0,\"fields\":["
                          "{\"id\":1,\"name\":\"id\",\"required\":true,"
                          "\"type\":\"long\"},{\"id\":2,\"name\":\"ts\","
                          "\"required\":true,\"type\":\"timestamp\"},"
                          "{\"id\":3,\"name\":\"ts_month\","
                          "\"required\":false,\"type\":\"string\"}");
    for (k = 1; k < 100 && at < sizeof big; k++)
        at += (size_t)snprintf(big + at, sizeof big - at,
                               ",{\"id\":%d,\"name\":\"ts_month_%d\","
                               "\"required\":false,\"type\":\"int\"}",
                               k + 3, k);
    ZBT_CHECK(at + 3 < sizeof big);
    snprintf(big + at, sizeof big - at, "]}");
    create_table(&e, "evolve_clash3", big, SPEC);
    ZBT_RC(run_evolve(&e, DAY_MONTH_30, 1, &r), ZB_OK);
    ZBT_CHECK(strstr(r.refused, "no free name for the coarse partition "
                     "field of ts_day") != NULL);
    ZBT_EQ_INT(r.ran, 0);
    zb_compact_evolve_result_free(&r);
    ZBT_EQ_INT((int)n_specs(&e), 1);
    of_close(&e);
}

static const zbt_case test_ops_evolve[] = {
    ZBT_CASE(test_ops_evolve__period_end),
    ZBT_CASE(test_ops_evolve__day_to_month),
    ZBT_CASE(test_ops_evolve__not_applicable),
    ZBT_CASE(test_ops_evolve__hour_to_day),
    ZBT_CASE(test_ops_evolve__filters),
    ZBT_CASE(test_ops_evolve__corrupt_manifest),
    ZBT_CASE(test_ops_evolve__maintenance),
    ZBT_CASE(test_ops_evolve__eq_deletes_refused),
    ZBT_CASE(test_ops_evolve__identifier_refused),
    ZBT_CASE(test_ops_evolve__name_clash),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_evolve, NULL };

    return zbt_main(argc, argv, suites);
}

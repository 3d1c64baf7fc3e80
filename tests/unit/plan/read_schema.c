/*
 * tests/unit/plan/read_schema.c - projection to the read schema: type
 * promotion (int to long, float to double, date to timestamp), added
 * columns with initial defaults, files without field ids through the
 * name mapping, identity-partition columns the file lacks, nested
 * structs and lists matched by id and reordered, and type changes the
 * spec does not allow. Expectations come from the values each case
 * writes.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/parquet_write.h"
#include "read_util.h"
#include "table/value/ice_value.h"
#include "util/alloc.h"
#include "zbtest.h"

#define META_HEAD                                                           \
    "{\"format-version\":3,\"table-uuid\":\"9c12d441-03fe-4693-9a96-"      \
    "a0705ddf69c1\",\"location\":\"/t\",\"last-sequence-number\":1,"        \
    "\"last-updated-ms\":1,\"last-column-id\":20,\"next-row-id\":0,"       \
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\","            \
    "\"schema-id\":0,\"fields\":["
#define META_TAIL(spec, props)                                              \
    "]}],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,"       \
    "\"fields\":[" spec "]}],\"last-partition-id\":1000,"                   \
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"        \
    "\"fields\":[]}],\"properties\":{" props "},"                          \
    "\"current-snapshot-id\":-1,\"snapshots\":[],\"snapshot-log\":[],"      \
    "\"metadata-log\":[]}"

typedef struct fx {
    zb_ctx ctx;
    zb_io *io;
    ice_metadata *meta;
    char path[600];
    ice_data_file df;
    zb_scan_task task;
    zb_rowstream_opts o;
} fx;

static void fx_init(fx *f, const char *meta)
{
    zb_rowstream_opts init = ZB_ROWSTREAM_OPTS_INIT;

    memset(f, 0, sizeof *f);
    zb_ctx_init(&f->ctx);
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    f->meta = rt_metadata(&f->ctx, meta);
    snprintf(f->path, sizeof f->path, "%s/d.parquet", zbt_tmpdir());
    f->o = init;
    f->o.meta = f->meta;
}

static void fx_task(fx *f, int64_t rows, int64_t size)
{
    f->df = rt_file(ICE_CONTENT_DATA, f->path, rows, size);
    memset(&f->task, 0, sizeof f->task);
    f->task.data.file = &f->df;
}

static void fx_free(fx *f)
{
    ice_metadata_free(f->meta);
    zb_io_free(f->io);
}

static void test_plan_read__promotion_and_defaults(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":4,\"name\":\"y\",\"required\":false,\"type\":\"int\","
        "\"initial-default\":42},"
        "{\"id\":5,\"name\":\"s\",\"required\":false,\"type\":\"string\","
        "\"initial-default\":\"zz\"},"
        "{\"id\":6,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
        "{\"id\":7,\"name\":\"x\",\"required\":false,\"type\":\"double\"},"
        "{\"id\":8,\"name\":\"gone\",\"required\":false,\"type\":\"string\"}"
        META_TAIL("", "");
    static const int32_t id[3] = { 1, 2, 3 };
    static const int32_t days[3] = { 0, 1, -1 };
    static const float x[3] = { 0.25f, -2, 8 };
    static const uint8_t xn[3] = { 0, 1, 0 };
    rt_col c[3] = { { "id", 1, "i", id, NULL }, { "dt", 6, "tdD", days, NULL },
                    { "x", 7, "f", x, xn } };
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 3, rt_write_parquet(f.io, &f.ctx, f.path, c, 3, 3));
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &f.o, &f.task, 1, NULL),
               "1,42,zz,0,0.25,null\n"
               "2,42,zz,86400000000,null,null\n"
               "3,42,zz,-86400000000,8,null\n");
    {
        /* The batches' schema: names, field ids, promoted types. */
        zb_rowstream *rs = NULL;
        struct ArrowSchema s;
        char idtxt[16];
        ZBT_OK_CTX(zb_rowstream_open(&rs, f.io, &f.ctx, &f.o, &f.task, 1),
                   &f.ctx);
        ZBT_OK_CTX(zb_rowstream_schema(&s, rs, &f.ctx), &f.ctx);
        ZBT_EQ_INT(s.n_children, 6);
        ZBT_EQ_STR(s.children[0]->format, "l");
        ZBT_EQ_STR(s.children[0]->name, "id");
        ZBT_EQ_INT(s.children[0]->flags & ARROW_FLAG_NULLABLE, 0);
        ZBT_EQ_STR(s.children[3]->format, "tsu:");
        ZBT_EQ_STR(s.children[4]->format, "g");
        ZBT_CHECK(zb_arrow_metadata_get(idtxt, sizeof idtxt,
                                        s.children[4]->metadata,
                                        "PARQUET:field_id"));
        ZBT_EQ_STR(idtxt, "7");
        zb_arrow_schema_release(&s);
        zb_rowstream_free(rs);
    }
    fx_free(&f);
}

static void test_plan_read__name_mapping(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":3,\"name\":\"c\",\"required\":false,\"type\":\"string\"}"
        META_TAIL("", "\"schema.name-mapping.default\":\"[{\\\"field-id\\\":"
                  "1,\\\"names\\\":[\\\"a\\\"]},{\\\"field-id\\\":2,"
                  "\\\"names\\\":[\\\"b\\\",\\\"bb\\\"]}]\"");
    static const int32_t a[2] = { 1, 2 };
    static const int64_t bb[2] = { 10, 20 };
    static const char *const cc[2] = { "x", "y" };
    /* No field ids; "c" has no mapping entry, so it reads as null. */
    rt_col c[3] = { { "a", -1, "i", a, NULL }, { "bb", -1, "l", bb, NULL },
                    { "c", -1, "u", cc, NULL } };
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 2, rt_write_parquet(f.io, &f.ctx, f.path, c, 3, 2));
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &f.o, &f.task, 1, NULL),
               "1,10,null\n2,20,null\n");
    fx_free(&f);
}

static void test_plan_read__bad_name_mapping(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"}"
        META_TAIL("", "\"schema.name-mapping.default\":"
                  "\"[{\\\"names\\\":3}]\"");
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 0, 0);
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &f.o, &f.task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "name-mapping");
    fx_free(&f);
}

static void test_plan_read__identity_partition_from_metadata(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"i\",\"required\":false,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"p\",\"required\":false,\"type\":\"long\"}"
        META_TAIL("{\"name\":\"p\",\"transform\":\"identity\","
                  "\"source-id\":2,\"field-id\":1000}", "");
    static const int32_t i[3] = { 5, 6, 7 };
    rt_col c[1] = { { "i", 1, "i", i, NULL } };
    static const int32_t pids[1] = { 1000 };
    ice_value pv[1];
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 3, rt_write_parquet(f.io, &f.ctx, f.path, c, 1, 3));
    pv[0] = ice_value_long(-9);
    f.df.n_partition = 1;
    f.df.partition = pv;
    f.df.partition_field_ids = pids;
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &f.o, &f.task, 1, NULL),
               "5,-9\n6,-9\n7,-9\n");
    fx_free(&f);
}

static void test_plan_read__type_change_refused(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"}"
        META_TAIL("", "");
    static const int64_t a[1] = { 1 };
    rt_col c[1] = { { "a", 1, "l", a, NULL } };
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 1, rt_write_parquet(f.io, &f.ctx, f.path, c, 1, 1));
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &f.o, &f.task, 1), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(f.ctx.err.msg, "d.parquet");
    ZBT_CONTAINS(f.ctx.err.msg, "field a");
    fx_free(&f);
}

static void test_plan_read__required_field_missing(void)
{
    static const char meta[] = META_HEAD
        "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":9,\"name\":\"r\",\"required\":true,\"type\":\"long\"}"
        META_TAIL("", "");
    static const int64_t a[1] = { 1 };
    rt_col c[1] = { { "a", 1, "l", a, NULL } };
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 1, rt_write_parquet(f.io, &f.ctx, f.path, c, 1, 1));
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &f.o, &f.task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "required field r");
    ZBT_CONTAINS(f.ctx.err.msg, "d.parquet");
    fx_free(&f);
}

/* Writes struct st<a int (8), b string (9)> (7) and list<int> (11/12). */
static int64_t write_nested(fx *f)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    pq_writer *w = NULL;
    pq_write_result res;
    char *meta;
    size_t ml;
    int64_t size;
    const char *kv[3] = { "PARQUET:field_id", NULL, NULL };
    struct ArrowArray *st, *li;
    int32_t *ai, *off, *el;
    int32_t *soff;
    char *sdata;
    uint8_t *v;

#define META(id)                                                          \
    do {                                                                  \
        kv[1] = (id);                                                     \
        ZBT_CHECK(zb_arrow_metadata(&meta, &ml, kv) == 0);                \
    } while (0)
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 2) == 0);
    META("7");
    ZBT_CHECK(zb_arrow_schema_init(s.children[0], "+s", "st", meta, ml,
                                   ARROW_FLAG_NULLABLE, 2) == 0);
    zb_free(meta);
    META("8");
    ZBT_CHECK(zb_arrow_schema_init(s.children[0]->children[0], "i", "a",
                                   meta, ml, ARROW_FLAG_NULLABLE, 0) == 0);
    zb_free(meta);
    META("9");
    ZBT_CHECK(zb_arrow_schema_init(s.children[0]->children[1], "u", "b",
                                   meta, ml, ARROW_FLAG_NULLABLE, 0) == 0);
    zb_free(meta);
    META("11");
    ZBT_CHECK(zb_arrow_schema_init(s.children[1], "+l", "li", meta, ml,
                                   ARROW_FLAG_NULLABLE, 1) == 0);
    zb_free(meta);
    META("12");
    ZBT_CHECK(zb_arrow_schema_init(s.children[1]->children[0], "i",
                                   "element", meta, ml, ARROW_FLAG_NULLABLE,
                                   0) == 0);
    zb_free(meta);
#undef META
    /* Rows: {1,"p"} [1,2]; null [] ; {3,null} null. */
    ZBT_CHECK(zb_arrow_array_init(&a, 1, 2) == 0);
    a.length = 3;
    st = a.children[0];
    ZBT_CHECK(zb_arrow_array_init(st, 1, 2) == 0);
    st->length = 3;
    st->null_count = 1;
    v = zb_calloc(1, 1);
    v[0] = 0x5;
    st->buffers[0] = v;
    ZBT_CHECK(zb_arrow_array_init(st->children[0], 2, 0) == 0);
    st->children[0]->length = 3;
    ai = zb_malloc(12);
    ai[0] = 1, ai[1] = 0, ai[2] = 3;
    st->children[0]->buffers[1] = ai;
    ZBT_CHECK(zb_arrow_array_init(st->children[1], 3, 0) == 0);
    st->children[1]->length = 3;
    st->children[1]->null_count = 2;
    v = zb_calloc(1, 1);
    v[0] = 0x1;
    st->children[1]->buffers[0] = v;
    soff = zb_calloc(4, sizeof *soff);
    soff[1] = soff[2] = soff[3] = 1;
    sdata = zb_malloc(2);
    sdata[0] = 'p';
    st->children[1]->buffers[1] = soff;
    st->children[1]->buffers[2] = sdata;
    li = a.children[1];
    ZBT_CHECK(zb_arrow_array_init(li, 2, 1) == 0);
    li->length = 3;
    li->null_count = 1;
    v = zb_calloc(1, 1);
    v[0] = 0x3;
    li->buffers[0] = v;
    off = zb_calloc(4, sizeof *off);
    off[1] = 2, off[2] = 2, off[3] = 2;
    li->buffers[1] = off;
    ZBT_CHECK(zb_arrow_array_init(li->children[0], 2, 0) == 0);
    li->children[0]->length = 2;
    el = zb_malloc(8);
    el[0] = 1, el[1] = 2;
    li->children[0]->buffers[1] = el;

    memset(&res, 0, sizeof res);
    ZBT_OK_CTX(pq_writer_open(&w, f->io, &f->ctx, f->path, &s, &wo), &f->ctx);
    ZBT_OK_CTX(pq_writer_write(w, &f->ctx, &a), &f->ctx);
    ZBT_OK_CTX(pq_writer_close(w, &f->ctx, &res), &f->ctx);
    size = (int64_t)res.file_bytes;
    pq_write_result_free(&res);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
    return size;
}

static void test_plan_read__nested_by_id(void)
{
    /* The struct's fields reordered, one promoted, one added with a
     * default; the list's element promoted to long. */
    static const char meta[] = META_HEAD
        "{\"id\":11,\"name\":\"li\",\"required\":false,\"type\":{\"type\":"
        "\"list\",\"element-id\":12,\"element-required\":false,\"element\":"
        "\"long\"}},"
        "{\"id\":7,\"name\":\"st\",\"required\":false,\"type\":{\"type\":"
        "\"struct\",\"fields\":["
        "{\"id\":9,\"name\":\"b\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":10,\"name\":\"c\",\"required\":false,\"type\":\"int\","
        "\"initial-default\":5},"
        "{\"id\":8,\"name\":\"a\",\"required\":false,\"type\":\"long\"}]}}"
        META_TAIL("", "");
    fx f;

    fx_init(&f, meta);
    fx_task(&f, 3, write_nested(&f));
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &f.o, &f.task, 1, NULL),
               "[1,2],{p,5,1}\n"
               "[],null\n"
               "null,{null,5,3}\n");
    fx_free(&f);
}

const zbt_case test_plan_read_schema[] = {
    ZBT_CASE(test_plan_read__promotion_and_defaults),
    ZBT_CASE(test_plan_read__name_mapping),
    ZBT_CASE(test_plan_read__bad_name_mapping),
    ZBT_CASE(test_plan_read__identity_partition_from_metadata),
    ZBT_CASE(test_plan_read__type_change_refused),
    ZBT_CASE(test_plan_read__required_field_missing),
    ZBT_CASE(test_plan_read__nested_by_id),
    ZBT_END
};

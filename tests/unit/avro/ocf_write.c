/*
 * Schema parsing and writing: the sample schema's nodes, ids and
 * attributes; bad schemas refused; a round trip of every type through
 * every codec and many blocks, with the schema text kept byte for byte
 * and the metadata kept; values that do not fit the schema refused with
 * their field path; errors naming file, field and offset; allocation
 * failures while writing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "sample.h"
#include "util/alloc.h"
#include "zbtest.h"

static void test_avro_schema__sample_nodes_ids_and_attrs(void)
{
    zb_avro_schema *s = NULL;
    const zb_avro_node *root, *n;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_avro_schema_parse(&s, &ctx, sample_schema_json,
                                    strlen(sample_schema_json)), &ctx);
    root = zb_avro_schema_root(s);
    ZBT_EQ_INT(root->type, ZB_AVRO_RECORD);
    ZBT_EQ_STR(root->name, "zb.test.sample");
    ZBT_EQ_U64(root->n, 20);
    ZBT_EQ_STR(zb_avro_schema_json(s), sample_schema_json);
    ZBT_EQ_INT(root->fields[zb_avro_field_index(root, "part")].field_id, 102);
    ZBT_CONTAINS(root->fields[7].attrs_json, "\"doc\":\"text\"");
    ZBT_CONTAINS(root->attrs_json, "\"doc\":\"every type\"");
    n = root->fields[zb_avro_field_index(root, "tags")].type;
    ZBT_EQ_INT(n->type, ZB_AVRO_ARRAY);
    ZBT_EQ_INT(n->element_id, 14);
    n = root->fields[zb_avro_field_index(root, "counts")].type;
    ZBT_EQ_INT(n->key_id, 19);
    ZBT_EQ_INT(n->value_id, 20);
    n = root->fields[zb_avro_field_index(root, "mm")].type->items;
    ZBT_EQ_INT(n->key_id, 25);
    ZBT_EQ_INT(n->items->type, ZB_AVRO_UNION);
    n = root->fields[zb_avro_field_index(root, "ts")].type;
    ZBT_EQ_STR(n->logical_type, "timestamp-micros");
    ZBT_CONTAINS(n->attrs_json, "\"adjust-to-utc\":true");
    n = root->fields[zb_avro_field_index(root, "u3")].type;
    ZBT_EQ_INT(n->branches[3]->type, ZB_AVRO_ENUM);
    ZBT_EQ_STR(n->branches[3]->name, "zb.test.color");
    ZBT_EQ_INT(root->fields[zb_avro_field_index(root, "n")].field_id, 1);
    ZBT_EQ_INT(root->fields[0].type->element_id, ZB_AVRO_NO_ID);
    zb_avro_schema_free(s);
}

static void test_avro_schema__bad_schemas_are_refused(void)
{
    static const char *const bad[] = {
        "", "{", "\"nosuch\"", "[]", "{\"type\":\"record\",\"fields\":[]}",
        "{\"type\":\"record\",\"name\":\"a\"}",
        "{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[]}",
        "{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}",
        "{\"type\":\"array\"}", "[\"null\",[\"int\"]]",
        "{\"type\":\"record\",\"name\":\"a\",\"fields\":[{\"name\":\"x\","
        "\"type\":\"int\",\"field-id\":\"one\"}]}",
        "{\"type\":\"record\",\"name\":\"a\",\"fields\":[{\"name\":\"x\","
        "\"type\":{\"type\":\"record\",\"name\":\"a\",\"fields\":[]}}]}",
        NULL
    };
    size_t i;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    for (i = 0; bad[i]; i++) {
        zb_avro_schema *s = NULL;
        int rc = zb_avro_schema_parse(&s, &ctx, bad[i], strlen(bad[i]));
        if (rc != ZB_ECORRUPT)
            printf("     schema %zu: %s\n", i, zb_rc_name(rc));
        ZBT_RC(rc, ZB_ECORRUPT);
        ZBT_CHECK(s == NULL);
    }
}

static void test_avro_schema__recursive_type(void)
{
    static const char js[] =
        "{\"type\":\"record\",\"name\":\"node\",\"fields\":[{\"name\":\"v\","
        "\"type\":\"int\"},{\"name\":\"next\",\"type\":[\"null\",\"node\"]}]}";
    zb_avro_schema *s = NULL;
    const zb_avro_node *root;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_avro_schema_parse(&s, &ctx, js, strlen(js)), &ctx);
    root = zb_avro_schema_root(s);
    ZBT_CHECK(root->fields[1].type->branches[1] == root);
    zb_avro_schema_free(s);
}

static const char *const codec_names[] = { "null", "deflate", "snappy",
                                           "zstd" };

static void write_sample(zb_io *io, zb_ctx *ctx, const char *path,
                         zb_avro_codec codec, uint64_t count,
                         size_t block_bytes)
{
    zb_avro_writer_opts o = ZB_AVRO_WRITER_OPTS_INIT;
    zb_avro_meta meta[2] = { { "format-version", "2", 1 },
                             { "bin", "a\0b", 3 } };
    zb_avro_writer *w = NULL;
    zb_arena *a = NULL;
    uint64_t i;

    o.codec = codec;
    o.block_bytes = block_bytes;
    ZBT_OK_CTX(zb_arena_new(&a, 1 << 20), ctx);
    ZBT_OK_CTX(zb_avro_writer_open(&w, io, ctx, path, sample_schema_json,
                                   meta, 2, &o), ctx);
    for (i = 0; i < count; i++) {
        zb_avro_value *v;
        zb_arena_reset(a);
        v = sample_record(a, i);
        ZBT_CHECK(v != NULL);
        ZBT_OK_CTX(zb_avro_writer_append(w, ctx, v), ctx);
    }
    ZBT_EQ_U64(zb_avro_writer_records(w), count);
    ZBT_OK_CTX(zb_avro_writer_commit(w, ctx), ctx);
    zb_arena_free(a);
}

static void test_avro_write__round_trip_every_type_and_codec(void)
{
    const char *dir = zbt_tmpdir();
    zb_io *io = NULL;
    zb_arena *a = NULL;
    zb_ctx ctx;
    int c;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(zb_arena_new(&a, 1 << 20), &ctx);
    for (c = 0; c < 4; c++) {
        char path[4096];
        zb_avro_reader *r = NULL;
        const zb_avro_value *v;
        const zb_avro_node *root;
        const char *val;
        size_t len;
        uint64_t i = 0;
        int rc;
        snprintf(path, sizeof path, "%s/%s.avro", dir, codec_names[c]);
        write_sample(io, &ctx, path, (zb_avro_codec)c, 1000, 4096);
        ZBT_OK_CTX(zb_avro_reader_open(&r, io, &ctx, path, NULL), &ctx);
        ZBT_EQ_STR(zb_avro_reader_codec(r), codec_names[c]);
        ZBT_EQ_STR(zb_avro_schema_json(zb_avro_reader_schema(r)),
                   sample_schema_json);
        ZBT_EQ_STR(zb_avro_reader_meta_get(r, "format-version", NULL), "2");
        val = zb_avro_reader_meta_get(r, "bin", &len);
        ZBT_CHECK(val && len == 3 && memcmp(val, "a\0b", 3) == 0);
        ZBT_EQ_U64(zb_avro_reader_meta_count(r), 4);
        root = zb_avro_schema_root(zb_avro_reader_schema(r));
        while ((rc = zb_avro_reader_next(r, &ctx, &v)) == 1) {
            zb_avro_value *want;
            zb_arena_reset(a);
            want = sample_record(a, i);
            if (!sample_equal(root, want, v))
                ZBT_CHECK(!"record differs");
            i++;
        }
        ZBT_OK_CTX(rc < 0 ? rc : 0, &ctx);
        ZBT_EQ_U64(i, 1000);
        zb_avro_reader_free(r);
    }
    zb_arena_free(a);
    zb_io_free(io);
}

static void test_avro_write__empty_file_and_one_big_block(void)
{
    const char *dir = zbt_tmpdir();
    char path[4096];
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    zb_io *io = NULL;
    zb_ctx ctx;
    int n = 0;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/empty.avro", dir);
    write_sample(io, &ctx, path, ZB_AVRO_CODEC_DEFLATE, 0, 4096);
    ZBT_OK_CTX(zb_avro_reader_open(&r, io, &ctx, path, NULL), &ctx);
    ZBT_EQ_INT(zb_avro_reader_next(r, &ctx, &v), 0);
    zb_avro_reader_free(r);
    snprintf(path, sizeof path, "%s/big.avro", dir);
    write_sample(io, &ctx, path, ZB_AVRO_CODEC_ZSTD, 5000, 64u << 20);
    ZBT_OK_CTX(zb_avro_reader_open(&r, io, &ctx, path, NULL), &ctx);
    while (zb_avro_reader_next(r, &ctx, &v) == 1)
        n++;
    ZBT_EQ_INT(n, 5000);
    zb_avro_reader_free(r);
    zb_io_free(io);
}

static void test_avro_write__mismatched_values_are_refused(void)
{
    const char *dir = zbt_tmpdir();
    char path[4096];
    zb_avro_writer *w = NULL;
    zb_avro_value *v;
    zb_arena *a = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    zb_avro_meta reserved = { "avro.codec", "x", 1 };

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(zb_arena_new(&a, 1 << 20), &ctx);
    snprintf(path, sizeof path, "%s/bad.avro", dir);
    ZBT_RC(zb_avro_writer_open(&w, io, &ctx, path, sample_schema_json,
                               &reserved, 1, NULL), ZB_EINVAL);
    ZBT_RC(zb_avro_writer_open(&w, io, &ctx, path, "{\"type\":", NULL, 0,
                               NULL), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "bad.avro");
    ZBT_OK_CTX(zb_avro_writer_open(&w, io, &ctx, path, sample_schema_json,
                                   NULL, 0, NULL), &ctx);
    v = sample_record(a, 1);
    v->v.list.items[13].v.list.items[1].v.u.value->type = ZB_AVRO_LONG;
    ZBT_RC(zb_avro_writer_append(w, &ctx, v), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "record zb.test.sample field part: "
                              "record zb.test.r102 field cat");
    v = sample_record(a, 2);
    v->v.list.items[19].v.u.branch = 9;
    ZBT_RC(zb_avro_writer_append(w, &ctx, v), ZB_EINVAL);
    v = sample_record(a, 3);
    v->v.list.items[9].v.bytes.len = 3;
    ZBT_RC(zb_avro_writer_append(w, &ctx, v), ZB_EINVAL);
    ZBT_OK_CTX(zb_avro_writer_append(w, &ctx, sample_record(a, 4)), &ctx);
    ZBT_EQ_U64(zb_avro_writer_records(w), 1);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &ctx), &ctx);
    zb_arena_free(a);
    zb_io_free(io);
}

/* An error deep in a record names the file, the fields and the offset. */
static void test_avro_write__errors_name_file_field_and_offset(void)
{
    static const char js[] =
        "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"partitions\","
        "\"type\":{\"type\":\"array\",\"items\":\"long\"}}]}";
    const char *dir = zbt_tmpdir();
    char path[4096];
    zb_avro_value f[2], item, rec;
    zb_avro_writer *w = NULL;
    zb_avro_reader *r = NULL;
    const zb_avro_value *out;
    unsigned char *data;
    zb_io *io = NULL;
    zb_buf b = ZB_BUF_INIT(1 << 20);
    zb_ctx ctx;
    size_t at;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/snap-1.avro", dir);
    memset(f, 0, sizeof f);
    f[0].type = ZB_AVRO_LONG;
    f[0].v.i64 = 1;
    f[1].type = ZB_AVRO_ARRAY;
    item.type = ZB_AVRO_LONG;
    item.v.i64 = -1;
    f[1].v.list.items = &item;
    f[1].v.list.n = 1;
    rec.type = ZB_AVRO_RECORD;
    rec.v.list.items = f;
    rec.v.list.n = 2;
    ZBT_OK_CTX(zb_avro_writer_open(&w, io, &ctx, path, js, NULL, 0, NULL),
               &ctx);
    ZBT_OK_CTX(zb_avro_writer_append(w, &ctx, &rec), &ctx);
    ZBT_OK_CTX(zb_avro_writer_commit(w, &ctx), &ctx);
    ZBT_OK_CTX(zb_io__read_all(&b, io, &ctx, path), &ctx);
    data = (unsigned char *)b.ptr;
    /* Record bytes 02 02 01 00 end 16 bytes before the file's end. */
    at = b.len - 16 - 4;
    ZBT_CHECK(memcmp(data + at, "\x02\x02\x01\x00", 4) == 0);
    data[at + 2] = 0x81;
    data[at + 3] = 0x80;
    ZBT_OK_CTX(zb_avro_reader_open_mem(&r, &ctx, path, data, b.len, NULL),
               &ctx);
    ZBT_RC(zb_avro_reader_next(r, &ctx, &out), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "snap-1.avro: block 0 at offset");
    ZBT_CONTAINS(ctx.err.msg, "record 0: record manifest_file field "
                              "partitions: array item 0: offset");
    ZBT_CONTAINS(ctx.err.msg, ": truncated long");
    printf("     %s\n", ctx.err.msg);
    ZBT_EQ_INT(zb_avro_reader_next(r, &ctx, &out), 0);
    zb_avro_reader_free(r);
    zb_buf_free(&b);
    zb_io_free(io);
}

static void test_avro_write__allocation_failures_return_enomem(void)
{
    const char *dir = zbt_tmpdir();
    zb_io *io = NULL;
    zb_ctx ctx;
    int c;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (c = 0; c < 4; c++) {
        uint64_t nth, base = zb_alloc_live_bytes(), absorbed = 0;
        for (nth = 1;; nth++) {
            zb_avro_writer_opts o = ZB_AVRO_WRITER_OPTS_INIT;
            zb_avro_writer *w = NULL;
            zb_arena *a = NULL;
            char path[4096];
            uint64_t i;
            int rc;
            snprintf(path, sizeof path, "%s/t%d-%llu.avro", dir, c,
                     (unsigned long long)nth);
            o.codec = (zb_avro_codec)c;
            o.block_bytes = 512;
            ZBT_OK_CTX(zb_arena_new(&a, 1 << 20), &ctx);
            zb_alloc__fail_at(nth, 0);
            rc = zb_avro_writer_open(&w, io, &ctx, path, sample_schema_json,
                                     NULL, 0, &o);
            for (i = 0; rc == 0 && i < 20; i++) {
                zb_avro_value *v = sample_record(a, i);
                rc = v ? zb_avro_writer_append(w, &ctx, v) : ZB_ENOMEM;
            }
            if (rc == 0)
                rc = zb_avro_writer_commit(w, &ctx);
            else
                zb_avro_writer_abort(w);
            zb_arena_free(a);
            if (zb_alloc__fail_at(0, 0) == 0) {
                ZBT_OK_CTX(rc, &ctx);
                break;
            }
            /* io_local's commit syncs the parent directory as a best
             * effort and absorbs a failure there: the file is whole. */
            if (rc == ZB_OK) {
                absorbed++;
                continue;
            }
            ZBT_RC(rc, ZB_ENOMEM);
            ZBT_EQ_U64(zb_alloc_live_bytes(), base);
        }
        printf("     %s: %llu allocation points (%llu absorbed by FileIO)\n",
               codec_names[c], (unsigned long long)nth - 1,
               (unsigned long long)absorbed);
        ZBT_CHECK(absorbed <= 1);
    }
    zb_io_free(io);
}

const zbt_case test_avro_schema[] = {
    ZBT_CASE(test_avro_schema__sample_nodes_ids_and_attrs),
    ZBT_CASE(test_avro_schema__bad_schemas_are_refused),
    ZBT_CASE(test_avro_schema__recursive_type),
    ZBT_END
};

const zbt_case test_avro_write[] = {
    ZBT_CASE(test_avro_write__round_trip_every_type_and_codec),
    ZBT_CASE(test_avro_write__empty_file_and_one_big_block),
    ZBT_CASE(test_avro_write__mismatched_values_are_refused),
    ZBT_CASE(test_avro_write__errors_name_file_field_and_offset),
    ZBT_CASE(test_avro_write__allocation_failures_return_enomem),
    ZBT_END
};

/*
 * Parquet footer and page headers: the Thrift compact protocol reader on
 * hand-built bytes for every wire type (and skipping each), footers and
 * page headers built by a small encoder here (required fields, unknown
 * fields, bad trees), then every fixture file of ../shared/fixtures: the
 * footer parses, row counts add up, each leaf has column metadata, and
 * the first page header of every column chunk parses. A few values are
 * checked against numbers read with an independent reader (hyparquet
 * 1.33.0). Every truncated prefix and thousands of random byte changes of
 * real footers must give ZB_OK or ZB_ECORRUPT, never a crash (the suite
 * runs under ASan+UBSan in CI), and allocation failures give ZB_ENOMEM.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_thrift.h"
#include "util/alloc.h"
#include "zbtest.h"

/* ---- A small compact-protocol encoder --------------------------------- */

typedef struct enc {
    uint8_t b[8192];
    size_t n;
    int16_t last[32];    /* field id state per open struct */
    int depth;
} enc;

static void e_u8(enc *e, unsigned v)
{
    ZBT_CHECK(e->n < sizeof e->b);
    e->b[e->n++] = (uint8_t)v;
}

static void e_bytes(enc *e, const void *p, size_t n)
{
    ZBT_CHECK(e->n + n <= sizeof e->b);
    memcpy(e->b + e->n, p, n);
    e->n += n;
}

static void e_varint(enc *e, uint64_t v)
{
    while (v >= 0x80) {
        e_u8(e, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    e_u8(e, (unsigned)v);
}

static void e_zz(enc *e, int64_t v)
{
    e_varint(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void e_begin(enc *e)
{
    e->last[++e->depth] = 0;
}

static void e_end(enc *e)
{
    e_u8(e, 0);
    e->depth--;
}

static void e_field(enc *e, unsigned type, int id)
{
    int delta = id - e->last[e->depth];

    if (delta > 0 && delta <= 15) {
        e_u8(e, (unsigned)delta << 4 | type);
    } else {
        e_u8(e, type);
        e_zz(e, id);
    }
    e->last[e->depth] = (int16_t)id;
}

static void e_bin(enc *e, const char *s)
{
    e_varint(e, strlen(s));
    e_bytes(e, s, strlen(s));
}

static void e_list(enc *e, unsigned elem, size_t n)
{
    if (n < 15) {
        e_u8(e, (unsigned)n << 4 | elem);
    } else {
        e_u8(e, 0xf0 | elem);
        e_varint(e, n);
    }
}

static void f_i32(enc *e, int id, int32_t v)
{
    e_field(e, PQ_TT_I32, id);
    e_zz(e, v);
}

static void f_i64(enc *e, int id, int64_t v)
{
    e_field(e, PQ_TT_I64, id);
    e_zz(e, v);
}

static void f_str(enc *e, int id, const char *s)
{
    e_field(e, PQ_TT_BINARY, id);
    e_bin(e, s);
}

/* Flags that leave out one field of the footer built below. */
enum {
    NO_VERSION = 1 << 0, NO_SCHEMA = 1 << 1, NO_NUM_ROWS = 1 << 2,
    NO_ROW_GROUPS = 1 << 3, NO_CM_TYPE = 1 << 4, NO_NAME = 1 << 5,
    NO_RG_NUM_ROWS = 1 << 6, EXTRA_FIELDS = 1 << 7, TWO_LEAVES = 1 << 8,
    BAD_TREE = 1 << 9
};

/* Skippable junk: a list of maps of string to set of doubles, a uuid. */
static void e_junk(enc *e, int id)
{
    double d = 2.5;

    e_field(e, PQ_TT_LIST, id);
    e_list(e, PQ_TT_MAP, 1);
    e_varint(e, 1);
    e_u8(e, PQ_TT_BINARY << 4 | PQ_TT_SET);
    e_bin(e, "k");
    e_list(e, PQ_TT_DOUBLE, 2);
    e_bytes(e, &d, 8);
    e_bytes(e, &d, 8);
    e_field(e, PQ_TT_UUID, id + 1);
    e_bytes(e, "0123456789abcdef", 16);
    e_field(e, PQ_TT_TRUE, id + 2);
}

/* A footer of one INT32 leaf "a" (field id 7) and one row group. */
static void build_footer(enc *e, unsigned flags)
{
    memset(e, 0, sizeof *e);
    e_begin(e);
    if (!(flags & NO_VERSION))
        f_i32(e, 1, 2);
    if (!(flags & NO_SCHEMA)) {
        e_field(e, PQ_TT_LIST, 2);
        e_list(e, PQ_TT_STRUCT, 2);
        e_begin(e);
        f_str(e, 4, "root");
        f_i32(e, 5, (flags & TWO_LEAVES) ? 2 : (flags & BAD_TREE) ? 0 : 1);
        e_end(e);
        e_begin(e);
        f_i32(e, 1, PQ_INT32);
        f_i32(e, 3, PQ_OPTIONAL);
        if (!(flags & NO_NAME))
            f_str(e, 4, "a");
        f_i32(e, 9, 7);
        if (flags & EXTRA_FIELDS)
            e_junk(e, 20);
        e_field(e, PQ_TT_STRUCT, 10);      /* LogicalType INTEGER(32) */
        e_begin(e);
        e_field(e, PQ_TT_STRUCT, 10);
        e_begin(e);
        e_field(e, PQ_TT_I8, 1);
        e_u8(e, 32);
        e_field(e, PQ_TT_TRUE, 2);
        e_end(e);
        e_end(e);
        e_end(e);
    }
    if (!(flags & NO_NUM_ROWS))
        f_i64(e, 3, 5);
    if (!(flags & NO_ROW_GROUPS)) {
        e_field(e, PQ_TT_LIST, 4);
        e_list(e, PQ_TT_STRUCT, 1);
        e_begin(e);
        e_field(e, PQ_TT_LIST, 1);
        e_list(e, PQ_TT_STRUCT, 1);
        e_begin(e);
        f_i64(e, 2, 4);
        e_field(e, PQ_TT_STRUCT, 3);
        e_begin(e);
        if (!(flags & NO_CM_TYPE))
            f_i32(e, 1, PQ_INT32);
        e_field(e, PQ_TT_LIST, 2);
        e_list(e, PQ_TT_I32, 2);
        e_zz(e, PQ_ENC_PLAIN);
        e_zz(e, PQ_ENC_RLE);
        e_field(e, PQ_TT_LIST, 3);
        e_list(e, PQ_TT_BINARY, 1);
        e_bin(e, "a");
        f_i32(e, 4, 0);
        f_i64(e, 5, 5);
        f_i64(e, 6, 30);
        f_i64(e, 7, 30);
        f_i64(e, 9, 4);
        if (flags & EXTRA_FIELDS)
            e_junk(e, 13);
        e_end(e);
        e_end(e);
        f_i64(e, 2, 30);
        if (!(flags & NO_RG_NUM_ROWS))
            f_i64(e, 3, 5);
        e_end(e);
    }
    f_str(e, 6, "zb test");
    if (flags & EXTRA_FIELDS)
        e_junk(e, 7);
    e_end(e);
}

/* ---- Helpers ----------------------------------------------------------- */

static zb_arena *new_arena(size_t max_bytes)
{
    zb_arena *a = NULL;

    ZBT_EQ_INT(zb_arena_new(&a, max_bytes), ZB_OK);
    return a;
}

static void thrift_on(pq_thrift *t, zb_ctx *ctx, const uint8_t *b, size_t n)
{
    zb_ctx_init(ctx);
    pq_thrift_init(t, ctx, "test", b, n);
}

/* ---- Thrift wire types ------------------------------------------------- */

static void test_parquet_meta__varint_and_zigzag(void)
{
    static const uint8_t spec[] = { 0xdf, 0x89, 0x03 };   /* 50399 */
    static const uint8_t max64[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0x01 };
    static const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0x02 };
    static const uint8_t longer[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x00 };
    static const uint8_t zz[] = { 0x00, 0x01, 0x02, 0x03, 0xfe, 0xff, 0x03,
                                  0xff, 0xff, 0xff, 0xff, 0x0f };
    static const uint8_t i32_over[] = { 0x80, 0x80, 0x80, 0x80, 0x10 };
    pq_thrift t;
    zb_ctx ctx;
    uint64_t u;
    int64_t v;
    int32_t i32;
    int16_t i16;

    thrift_on(&t, &ctx, spec, sizeof spec);
    ZBT_OK_CTX(pq_thrift_varint(&t, &u, "x"), &ctx);
    ZBT_EQ_U64(u, 50399);
    ZBT_EQ_U64(t.pos, 3);
    thrift_on(&t, &ctx, max64, sizeof max64);
    ZBT_OK_CTX(pq_thrift_varint(&t, &u, "x"), &ctx);
    ZBT_EQ_U64(u, UINT64_MAX);
    thrift_on(&t, &ctx, over, sizeof over);
    ZBT_RC(pq_thrift_varint(&t, &u, "X.big"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "X.big at offset 0");
    thrift_on(&t, &ctx, longer, sizeof longer);
    ZBT_RC(pq_thrift_varint(&t, &u, "x"), ZB_ECORRUPT);
    thrift_on(&t, &ctx, spec, 2);
    ZBT_RC(pq_thrift_varint(&t, &u, "X.cut"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "truncated");
    ZBT_EQ_STR(ctx.err.module, "parquet");

    thrift_on(&t, &ctx, zz, sizeof zz);
    ZBT_OK_CTX(pq_thrift_i64(&t, &v, "x"), &ctx);
    ZBT_EQ_INT(v, 0);
    ZBT_OK_CTX(pq_thrift_i64(&t, &v, "x"), &ctx);
    ZBT_EQ_INT(v, -1);
    ZBT_OK_CTX(pq_thrift_i32(&t, &i32, "x"), &ctx);
    ZBT_EQ_INT(i32, 1);
    ZBT_OK_CTX(pq_thrift_i16(&t, &i16, "x"), &ctx);
    ZBT_EQ_INT(i16, -2);
    ZBT_OK_CTX(pq_thrift_i16(&t, &i16, "x"), &ctx);   /* fe ff 03 */
    ZBT_EQ_INT(i16, INT16_MAX);
    ZBT_OK_CTX(pq_thrift_i32(&t, &i32, "x"), &ctx);   /* ff ff ff ff 0f */
    ZBT_EQ_INT(i32, INT32_MIN);
    ZBT_EQ_U64(t.pos, sizeof zz);
    thrift_on(&t, &ctx, i32_over, sizeof i32_over);
    ZBT_RC(pq_thrift_i32(&t, &i32, "X.n"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "i32");
    thrift_on(&t, &ctx, zz + 4, 3);
    ZBT_RC(pq_thrift_i16(&t, &i16, "x"), ZB_OK);
    thrift_on(&t, &ctx, i32_over, sizeof i32_over);
    ZBT_RC(pq_thrift_i16(&t, &i16, "x"), ZB_ECORRUPT);
}

static void test_parquet_meta__i8_double_binary_bool(void)
{
    static const uint8_t b[] = {
        0xfe,                                             /* i8 -2 */
        0, 0, 0, 0, 0, 0, 0xf8, 0x3f,                     /* 1.5 */
        3, 'a', 'b', 'c',                                 /* binary */
        0, 1, 2, 3                                        /* bools */
    };
    const uint8_t *data;
    size_t len;
    pq_thrift t;
    zb_ctx ctx;
    int8_t i8;
    double d;
    int flag;

    thrift_on(&t, &ctx, b, sizeof b);
    ZBT_OK_CTX(pq_thrift_i8(&t, &i8, "x"), &ctx);
    ZBT_EQ_INT(i8, -2);
    ZBT_OK_CTX(pq_thrift_double(&t, &d, "x"), &ctx);
    ZBT_CHECK(d == 1.5);
    ZBT_OK_CTX(pq_thrift_binary(&t, &data, &len, "x"), &ctx);
    ZBT_EQ_U64(len, 3);
    ZBT_CHECK(memcmp(data, "abc", 3) == 0);
    ZBT_OK_CTX(pq_thrift_bool_elem(&t, &flag, "x"), &ctx);
    ZBT_EQ_INT(flag, 0);
    ZBT_OK_CTX(pq_thrift_bool_elem(&t, &flag, "x"), &ctx);
    ZBT_EQ_INT(flag, 1);
    ZBT_OK_CTX(pq_thrift_bool_elem(&t, &flag, "x"), &ctx);
    ZBT_EQ_INT(flag, 0);
    ZBT_RC(pq_thrift_bool_elem(&t, &flag, "L.flag"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "L.flag at offset 16");
    /* Short reads. */
    thrift_on(&t, &ctx, b + 1, 7);
    ZBT_RC(pq_thrift_double(&t, &d, "x"), ZB_ECORRUPT);
    thrift_on(&t, &ctx, b + 9, 3);
    ZBT_RC(pq_thrift_binary(&t, &data, &len, "S.name"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "S.name at offset 0: length 3 exceeds");
    thrift_on(&t, &ctx, b, 0);
    ZBT_RC(pq_thrift_i8(&t, &i8, "x"), ZB_ECORRUPT);
}

static void test_parquet_meta__field_headers(void)
{
    /* struct: 1:i32 5, 2:true, 3:false, 300:i64 -3 (long form), 301:i32
     * (delta 1 from the long form), -5:binary (negative id), stop. */
    static const uint8_t b[] = {
        0x15, 0x0a, 0x11, 0x12, 0x06, 0xd8, 0x04, 0x05, 0x15, 0x02,
        0x08, 0x09, 0x00, 0x00
    };
    static const uint8_t overflow[] = { 0x05, 0xfe, 0xff, 0x03, 0x02,
                                        0x15, 0x02, 0x00 };
    static const uint8_t bad_type[] = { 0x1e, 0x00 };
    static const uint8_t typeless[] = { 0x10 };
    pq_thrift_field f;
    pq_thrift t;
    zb_ctx ctx;
    int16_t last;
    int32_t i32;
    int64_t i64;
    int flag;

    thrift_on(&t, &ctx, b, sizeof b);
    ZBT_OK_CTX(pq_thrift_struct_begin(&t, &last, "S"), &ctx);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 1);
    ZBT_EQ_INT(f.type, PQ_TT_I32);
    ZBT_OK_CTX(pq_thrift_field_i32(&t, &f, &i32, "S.a"), &ctx);
    ZBT_EQ_INT(i32, 5);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 2);
    ZBT_OK_CTX(pq_thrift_field_bool(&t, &f, &flag, "S.b"), &ctx);
    ZBT_EQ_INT(flag, 1);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 3);
    ZBT_OK_CTX(pq_thrift_field_bool(&t, &f, &flag, "S.c"), &ctx);
    ZBT_EQ_INT(flag, 0);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 300);
    ZBT_EQ_U64(f.offset, 4);
    /* A wrong wire type is named with the field and the offset. */
    ZBT_RC(pq_thrift_field_i32(&t, &f, &i32, "S.d"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "S.d at offset 4: field 300 is i64, expected "
                              "i32");
    ZBT_OK_CTX(pq_thrift_field_i64(&t, &f, &i64, "S.d"), &ctx);
    ZBT_EQ_INT(i64, -3);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 301);
    ZBT_OK_CTX(pq_thrift_field_i32(&t, &f, &i32, "S.e"), &ctx);
    ZBT_EQ_INT(i32, 1);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, -5);
    ZBT_OK_CTX(pq_thrift_skip(&t, f.type, "S"), &ctx);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.type, PQ_TT_STOP);
    pq_thrift_struct_end(&t);
    ZBT_EQ_U64(t.pos, sizeof b);
    ZBT_EQ_INT(t.depth, 0);

    /* Field 32767 then a delta: the id would overflow i16. */
    thrift_on(&t, &ctx, overflow, sizeof overflow);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "S"), ZB_ECORRUPT);
    thrift_on(&t, &ctx, overflow, 4);
    last = 0;
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "S"), &ctx);
    ZBT_EQ_INT(f.id, 32767);
    thrift_on(&t, &ctx, overflow + 5, 3);
    ZBT_RC(pq_thrift_field_next(&t, &f, &last, "S"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "overflows");
    thrift_on(&t, &ctx, bad_type, sizeof bad_type);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "S"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "type 14");
    thrift_on(&t, &ctx, typeless, sizeof typeless);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "S"), ZB_ECORRUPT);
    /* A struct without its stop byte is truncated. */
    thrift_on(&t, &ctx, b, sizeof b - 1);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "S"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "at offset 13");
}

static void test_parquet_meta__lists_sets_maps(void)
{
    static const uint8_t short_list[] = { 0x35, 0x02, 0x04, 0x06 };
    static const uint8_t bool_list[] = { 0x21, 0x01, 0x02 };
    static const uint8_t empty_any[] = { 0x00 };
    static const uint8_t big_claim[] = { 0xf5, 0xff, 0xff, 0x03, 0x00 };
    static const uint8_t map[] = { 0x02, 0x85, 0x01, 'a', 0x02, 0x01,
                                   'b', 0x04 };
    static const uint8_t map_claim[] = { 0x03, 0x85, 0x01, 'a', 0x02 };
    static const uint8_t bad_elem[] = { 0x10 };
    uint8_t long_list[40];
    uint8_t et, kt, vt;
    size_t n, i;
    pq_thrift t;
    zb_ctx ctx;
    int32_t v;

    thrift_on(&t, &ctx, short_list, sizeof short_list);
    ZBT_OK_CTX(pq_thrift_list_begin(&t, &et, &n, "L"), &ctx);
    ZBT_EQ_INT(et, PQ_TT_I32);
    ZBT_EQ_U64(n, 3);
    for (i = 0; i < n; i++) {
        ZBT_OK_CTX(pq_thrift_i32(&t, &v, "L"), &ctx);
        ZBT_EQ_INT(v, (int)i + 1);
    }
    pq_thrift_container_end(&t);
    ZBT_EQ_INT(t.depth, 0);
    /* Long form: size 20 as a varint after the 0xf? header. */
    long_list[0] = 0xf3;
    long_list[1] = 20;
    for (i = 0; i < 20; i++)
        long_list[2 + i] = (uint8_t)i;
    thrift_on(&t, &ctx, long_list, 22);
    ZBT_OK_CTX(pq_thrift_list_begin(&t, &et, &n, "L"), &ctx);
    ZBT_EQ_U64(n, 20);
    ZBT_EQ_INT(et, PQ_TT_I8);
    thrift_on(&t, &ctx, long_list, 22);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_SET, "L"), &ctx);
    ZBT_EQ_U64(t.pos, 22);
    thrift_on(&t, &ctx, long_list, 21);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_LIST, "L.x"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "L.x at offset 0: list of 20 elements in 19");
    /* Bools as elements, both spellings of false accepted elsewhere. */
    thrift_on(&t, &ctx, bool_list, sizeof bool_list);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_LIST, "L"), &ctx);
    ZBT_EQ_U64(t.pos, 3);
    /* An empty list may carry any element type, even 0. */
    thrift_on(&t, &ctx, empty_any, 1);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_LIST, "L"), &ctx);
    thrift_on(&t, &ctx, bad_elem, 1);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_LIST, "L"), ZB_ECORRUPT);
    /* A count larger than the bytes left fails before anything else. */
    thrift_on(&t, &ctx, big_claim, sizeof big_claim);
    ZBT_RC(pq_thrift_list_begin(&t, &et, &n, "L.big"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "list of 65535 elements in 1 bytes");
    /* Maps: empty is one 0 byte; else size, kkkkvvvv, pairs. */
    thrift_on(&t, &ctx, empty_any, 1);
    ZBT_OK_CTX(pq_thrift_map_begin(&t, &kt, &vt, &n, "M"), &ctx);
    ZBT_EQ_U64(n, 0);
    thrift_on(&t, &ctx, map, sizeof map);
    ZBT_OK_CTX(pq_thrift_map_begin(&t, &kt, &vt, &n, "M"), &ctx);
    ZBT_EQ_U64(n, 2);
    ZBT_EQ_INT(kt, PQ_TT_BINARY);
    ZBT_EQ_INT(vt, PQ_TT_I32);
    thrift_on(&t, &ctx, map, sizeof map);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_MAP, "M"), &ctx);
    ZBT_EQ_U64(t.pos, sizeof map);
    thrift_on(&t, &ctx, map_claim, sizeof map_claim);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_MAP, "M.m"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "map of 3 entries");
}

static void test_parquet_meta__skip_every_type(void)
{
    enc e;
    double d = -0.25;
    pq_thrift t;
    zb_ctx ctx;
    int type;

    memset(&e, 0, sizeof e);
    e_begin(&e);
    e_field(&e, PQ_TT_TRUE, 1);
    e_field(&e, PQ_TT_FALSE, 2);
    e_field(&e, PQ_TT_I8, 3);
    e_u8(&e, 0x80);
    e_field(&e, PQ_TT_I16, 4);
    e_zz(&e, -300);
    e_field(&e, PQ_TT_I32, 5);
    e_zz(&e, INT32_MAX);
    e_field(&e, PQ_TT_I64, 6);
    e_zz(&e, INT64_MIN);
    e_field(&e, PQ_TT_DOUBLE, 7);
    e_bytes(&e, &d, 8);
    e_field(&e, PQ_TT_BINARY, 8);
    e_bin(&e, "hello");
    e_field(&e, PQ_TT_LIST, 9);
    e_list(&e, PQ_TT_LIST, 2);
    e_list(&e, PQ_TT_I64, 1);
    e_zz(&e, 7);
    e_list(&e, PQ_TT_TRUE, 0);
    e_field(&e, PQ_TT_SET, 10);
    e_list(&e, PQ_TT_STRUCT, 16);
    for (type = 0; type < 16; type++) {
        e_begin(&e);
        e_field(&e, PQ_TT_I32, 1000 + type);
        e_zz(&e, type);
        e_end(&e);
    }
    e_field(&e, PQ_TT_MAP, 11);
    e_varint(&e, 1);
    e_u8(&e, PQ_TT_UUID << 4 | PQ_TT_MAP);
    e_bytes(&e, "0123456789abcdef", 16);
    e_u8(&e, 0);                      /* the value: an empty map */
    e_field(&e, PQ_TT_STRUCT, 12);
    e_begin(&e);
    e_field(&e, PQ_TT_STRUCT, 1);
    e_begin(&e);
    e_end(&e);
    e_end(&e);
    e_field(&e, PQ_TT_UUID, 13);
    e_bytes(&e, "fedcba9876543210", 16);
    e_end(&e);

    thrift_on(&t, &ctx, e.b, e.n);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_STRUCT, "All"), &ctx);
    ZBT_EQ_U64(t.pos, e.n);
    ZBT_EQ_INT(t.depth, 0);
    /* Every proper prefix is truncated, never read past. */
    for (size_t n = 0; n < e.n; n++) {
        thrift_on(&t, &ctx, e.b, n);
        ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "All"), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "All at offset");
    }
    thrift_on(&t, &ctx, e.b, e.n);
    ZBT_RC(pq_thrift_skip(&t, 0, "Z"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "cannot skip type 0");
}

static void test_parquet_meta__depth_is_bounded(void)
{
    static uint8_t b[4096];
    pq_thrift t;
    zb_ctx ctx;
    size_t i, n = 0;

    /* 63 nested structs (field 1 of each) plus the outer one: fine. */
    for (i = 0; i < 63; i++)
        b[n++] = 0x1c;
    for (i = 0; i < 64; i++)
        b[n++] = 0x00;
    thrift_on(&t, &ctx, b, n);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_STRUCT, "D"), &ctx);
    /* One more is too deep, and so are lists of lists. */
    n = 0;
    for (i = 0; i < 64; i++)
        b[n++] = 0x1c;
    for (i = 0; i < 65; i++)
        b[n++] = 0x00;
    thrift_on(&t, &ctx, b, n);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_STRUCT, "D"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "nested deeper than 64");
    memset(b, 0x19, 3000);
    thrift_on(&t, &ctx, b, 3000);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_LIST, "D"), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "nested deeper");
    memset(b, 0x01, 3000);            /* maps of one map entry each */
    for (i = 1; i < 3000; i += 2)
        b[i] = PQ_TT_MAP << 4 | PQ_TT_MAP;
    thrift_on(&t, &ctx, b, 3000);
    ZBT_RC(pq_thrift_skip(&t, PQ_TT_MAP, "D"), ZB_ECORRUPT);
}

/* ---- Footers built here ------------------------------------------------ */

static void test_parquet_meta__built_footer(void)
{
    static const unsigned variants[] = { 0, EXTRA_FIELDS };
    pq_file_meta m;
    zb_arena *a = new_arena(1 << 20);
    zb_ctx ctx;
    size_t v;
    enc e;

    zb_ctx_init(&ctx);
    for (v = 0; v < 2; v++) {
        const pq_column_meta *cm;

        build_footer(&e, variants[v]);
        ZBT_OK_CTX(pq_meta_parse(&m, a, &ctx, e.b, e.n), &ctx);
        ZBT_EQ_INT(m.version, 2);
        ZBT_EQ_U64(m.n_schema, 2);
        ZBT_EQ_STR(m.schema[0].name, "root");
        ZBT_EQ_INT(m.schema[0].num_children, 1);
        ZBT_EQ_INT(m.schema[0].has_type, 0);
        ZBT_EQ_STR(m.schema[1].name, "a");
        ZBT_EQ_INT(m.schema[1].type, PQ_INT32);
        ZBT_EQ_INT(m.schema[1].repetition, PQ_OPTIONAL);
        ZBT_EQ_INT(m.schema[1].has_field_id, 1);
        ZBT_EQ_INT(m.schema[1].field_id, 7);
        ZBT_EQ_INT(m.schema[1].logical.kind, PQ_LT_INTEGER);
        ZBT_EQ_INT(m.schema[1].logical.bit_width, 32);
        ZBT_EQ_INT(m.schema[1].logical.is_signed, 1);
        ZBT_EQ_INT(m.num_rows, 5);
        ZBT_EQ_U64(m.n_row_groups, 1);
        ZBT_EQ_U64(m.row_groups[0].n_columns, 1);
        ZBT_EQ_INT(m.row_groups[0].num_rows, 5);
        ZBT_EQ_INT(m.row_groups[0].columns[0].file_offset, 4);
        ZBT_CHECK(m.row_groups[0].columns[0].file_path == NULL);
        cm = &m.row_groups[0].columns[0].meta_data;
        ZBT_EQ_INT(m.row_groups[0].columns[0].has_meta_data, 1);
        ZBT_EQ_INT(cm->type, PQ_INT32);
        ZBT_EQ_U64(cm->n_encodings, 2);
        ZBT_EQ_INT(cm->encodings[1], PQ_ENC_RLE);
        ZBT_EQ_U64(cm->path_len, 1);
        ZBT_EQ_STR(cm->path_in_schema[0], "a");
        ZBT_EQ_INT(cm->total_compressed_size, 30);
        ZBT_EQ_INT(cm->data_page_offset, 4);
        ZBT_EQ_INT(cm->has_dictionary_page_offset, 0);
        ZBT_EQ_INT(cm->has_statistics, 0);
        ZBT_EQ_STR(m.created_by, "zb test");
        ZBT_EQ_U64(m.n_key_value, 0);
    }
    zb_arena_free(a);
}

static void test_parquet_meta__missing_required_fields(void)
{
    static const struct {
        unsigned flags;
        const char *message;
    } cases[] = {
        { NO_VERSION, "FileMetaData at offset 0: required field version (1)" },
        { NO_SCHEMA, "required field schema (2) is missing" },
        { NO_NUM_ROWS, "required field num_rows (3) is missing" },
        { NO_ROW_GROUPS, "required field row_groups (4) is missing" },
        { NO_CM_TYPE, "ColumnMetaData at offset " },
        { NO_NAME, "SchemaElement at offset 13: required field name" },
        { NO_RG_NUM_ROWS, "RowGroup at offset " },
        { TWO_LEAVES, "1 children announced but missing" },
    };
    pq_file_meta m;
    zb_arena *a = new_arena(1 << 20);
    zb_ctx ctx;
    size_t i;
    enc e;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zb_ctx_init(&ctx);
        build_footer(&e, cases[i].flags);
        ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, cases[i].message);
        ZBT_CONTAINS(ctx.err.msg, "parquet footer: ");
        ZBT_EQ_U64(m.n_schema, 0);      /* *out stays cleared */
    }
    build_footer(&e, NO_CM_TYPE);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "required field type (1) is missing");
    zb_arena_free(a);
}

static void test_parquet_meta__bad_values(void)
{
    pq_file_meta m;
    zb_arena *a = new_arena(1 << 20);
    zb_ctx ctx;
    size_t at;
    enc e;

    zb_ctx_init(&ctx);
    /* Physical type 9 does not exist. */
    build_footer(&e, 0);
    for (at = 0; at + 1 < e.n; at++)
        if (e.b[at] == 0x15 && e.b[at + 1] == 2 * PQ_INT32 &&
            e.b[at + 2] == 0x25)
            break;
    ZBT_CHECK(at + 1 < e.n);
    e.b[at + 1] = 18;
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "SchemaElement.type at offset");
    ZBT_CONTAINS(ctx.err.msg, "value 9 is out of range");
    /* A negative num_rows. */
    build_footer(&e, NO_NUM_ROWS);
    e.n--;
    e.depth = 1;                      /* reopen the struct, last id 6 */
    e_field(&e, PQ_TT_I64, 3);
    e_zz(&e, -1);
    e_u8(&e, 0);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "FileMetaData.num_rows");
    /* A field of the wrong wire type. */
    build_footer(&e, NO_VERSION);
    e.n--;
    e.depth = 1;
    e_field(&e, PQ_TT_I64, 1);
    e_zz(&e, 1);
    e_u8(&e, 0);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "FileMetaData.version");
    ZBT_CONTAINS(ctx.err.msg, "expected i32");
    /* Root with two children but only one leaf and one column. */
    build_footer(&e, BAD_TREE);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "element 1 is outside the tree");
    /* Trailing bytes after the struct are not this parser's business. */
    build_footer(&e, 0);
    e_u8(&e, 0xff);
    ZBT_OK_CTX(pq_meta_parse(&m, a, &ctx, e.b, e.n), &ctx);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, 0), ZB_ECORRUPT);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, NULL, 0), ZB_ECORRUPT);
    zb_arena_free(a);
}

static void test_parquet_meta__out_of_memory(void)
{
    pq_file_meta m;
    zb_arena *a;
    zb_ctx ctx;
    uint64_t nth, before;
    enc e;
    int rc = ZB_ENOMEM;

    build_footer(&e, EXTRA_FIELDS);
    zb_ctx_init(&ctx);
    /* An arena too small for the result. */
    a = new_arena(256);
    ZBT_RC(pq_meta_parse(&m, a, &ctx, e.b, e.n), ZB_ENOMEM);
    ZBT_CONTAINS(ctx.err.msg, "out of memory");
    zb_arena_free(a);
    /* Each allocation failing in turn. */
    before = zb_alloc_live_bytes();
    for (nth = 1; rc == ZB_ENOMEM && nth < 100; nth++) {
        a = new_arena(1 << 20);
        zb_alloc__fail_at(nth, 0);
        rc = pq_meta_parse(&m, a, &ctx, e.b, e.n);
        zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        zb_arena_free(a);
    }
    ZBT_EQ_INT(rc, ZB_OK);
    ZBT_EQ_U64(zb_alloc_live_bytes(), before);
}

/* ---- Page headers built here ------------------------------------------ */

static void build_page(enc *e, int type, int sub, int with_stats)
{
    memset(e, 0, sizeof *e);
    e_begin(e);
    f_i32(e, 1, type);
    f_i32(e, 2, 100);
    f_i32(e, 3, 60);
    f_i32(e, 4, -123456);
    if (sub == 5) {
        e_field(e, PQ_TT_STRUCT, 5);
        e_begin(e);
        f_i32(e, 1, 10);
        f_i32(e, 2, PQ_ENC_RLE_DICTIONARY);
        f_i32(e, 3, PQ_ENC_RLE);
        f_i32(e, 4, PQ_ENC_BIT_PACKED);
        if (with_stats) {
            e_field(e, PQ_TT_STRUCT, 5);
            e_begin(e);
            f_str(e, 1, "max");
            f_i64(e, 3, 2);
            e_field(e, PQ_TT_TRUE, 7);
            e_end(e);
        }
        e_end(e);
    } else if (sub == 7) {
        e_field(e, PQ_TT_STRUCT, 7);
        e_begin(e);
        f_i32(e, 1, 9);
        f_i32(e, 2, PQ_ENC_PLAIN);
        e_field(e, PQ_TT_TRUE, 3);
        e_end(e);
    } else if (sub == 8) {
        e_field(e, PQ_TT_STRUCT, 8);
        e_begin(e);
        f_i32(e, 1, 10);
        f_i32(e, 2, 3);
        f_i32(e, 3, 8);
        f_i32(e, 4, PQ_ENC_PLAIN);
        f_i32(e, 5, 4);
        f_i32(e, 6, 2);
        if (with_stats) {
            e_field(e, PQ_TT_FALSE, 7);
            e_field(e, PQ_TT_STRUCT, 8);
            e_begin(e);
            f_str(e, 5, "zz");
            e_end(e);
        }
        e_end(e);
    }
    e_end(e);
}

static void test_parquet_meta__page_headers(void)
{
    pq_page_header h;
    size_t hl, n;
    zb_ctx ctx;
    enc e;

    zb_ctx_init(&ctx);
    build_page(&e, PQ_DATA_PAGE, 5, 1);
    n = e.n;
    e_bytes(&e, "page bytes follow", 17);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), &ctx);
    ZBT_EQ_U64(hl, n);
    ZBT_EQ_INT(h.type, PQ_DATA_PAGE);
    ZBT_EQ_INT(h.uncompressed_page_size, 100);
    ZBT_EQ_INT(h.compressed_page_size, 60);
    ZBT_EQ_INT(h.has_crc, 1);
    ZBT_EQ_INT(h.crc, -123456);
    ZBT_EQ_INT(h.data.num_values, 10);
    ZBT_EQ_INT(h.data.encoding, PQ_ENC_RLE_DICTIONARY);
    ZBT_EQ_INT(h.data.definition_level_encoding, PQ_ENC_RLE);
    ZBT_EQ_INT(h.data.repetition_level_encoding, PQ_ENC_BIT_PACKED);

    build_page(&e, PQ_DICTIONARY_PAGE, 7, 0);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), &ctx);
    ZBT_EQ_INT(h.type, PQ_DICTIONARY_PAGE);
    ZBT_EQ_INT(h.dict.num_values, 9);
    ZBT_EQ_INT(h.dict.is_sorted, 1);

    build_page(&e, PQ_DATA_PAGE_V2, 8, 0);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), &ctx);
    ZBT_EQ_INT(h.v2.num_values, 10);
    ZBT_EQ_INT(h.v2.num_nulls, 3);
    ZBT_EQ_INT(h.v2.num_rows, 8);
    ZBT_EQ_INT(h.v2.definition_levels_byte_length, 4);
    ZBT_EQ_INT(h.v2.repetition_levels_byte_length, 2);
    ZBT_EQ_INT(h.v2.is_compressed, 1);      /* the default */
    build_page(&e, PQ_DATA_PAGE_V2, 8, 1);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), &ctx);
    ZBT_EQ_INT(h.v2.is_compressed, 0);
    ZBT_EQ_U64(hl, e.n);

    build_page(&e, PQ_INDEX_PAGE, 0, 0);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), &ctx);
    ZBT_EQ_INT(h.type, PQ_INDEX_PAGE);

    /* A data page without its data_page_header. */
    build_page(&e, PQ_DATA_PAGE, 7, 0);
    ZBT_RC(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "has no data_page_header");
    ZBT_EQ_U64(hl, 0);
    build_page(&e, 4, 5, 0);
    ZBT_RC(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "parquet page header: PageHeader.type at "
                              "offset 1: value 4 is out of range");
    /* Negative compressed size. */
    build_page(&e, PQ_DATA_PAGE, 5, 0);
    ZBT_EQ_INT(e.b[6], 120);                /* zigzag(60) */
    e.b[6] = 119;                           /* zigzag(-60) */
    ZBT_RC(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "PageHeader.compressed_page_size at offset 6: "
                              "negative value -60");
    /* A data page header without its encodings. */
    memset(&e, 0, sizeof e);
    e_begin(&e);
    f_i32(&e, 1, PQ_DATA_PAGE);
    f_i32(&e, 2, 1);
    f_i32(&e, 3, 1);
    e_field(&e, PQ_TT_STRUCT, 5);
    e_begin(&e);
    f_i32(&e, 1, 1);
    e_end(&e);
    e_end(&e);
    ZBT_RC(pq_page_header_parse(&h, &hl, &ctx, e.b, e.n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "DataPageHeader at offset 7: required field "
                              "encoding (2) is missing");
    /* Every prefix is truncated. */
    build_page(&e, PQ_DATA_PAGE_V2, 8, 1);
    for (n = 0; n < e.n; n++)
        ZBT_RC(pq_page_header_parse(&h, &hl, &ctx, e.b, n), ZB_ECORRUPT);
}

/* ---- Fixture files ------------------------------------------------------ */

static zbt_files fx;   /* listed once, for every case */

static size_t fixtures(void)
{
    struct stat st;

    if (fx.n)
        return fx.n;
    if (stat(ZB_FIXTURES_DIR, &st) != 0) {
        printf("note: %s is missing; fixture cases skipped\n",
               ZB_FIXTURES_DIR);
        return 0;
    }
    ZBT_CHECK(zbt_find_files(&fx, ZB_FIXTURES_DIR, ".parquet") > 0);
    return fx.n;
}

typedef struct file_bytes {
    uint8_t *data;
    size_t len;
    const uint8_t *footer;   /* inside data */
    size_t footer_len;
} file_bytes;

static void read_fixture(file_bytes *fb, const char *path)
{
    FILE *f = fopen(path, "rb");
    long size;
    uint32_t flen;

    ZBT_CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    ZBT_CHECK(size >= 12);
    fb->len = (size_t)size;
    fb->data = zb_malloc(fb->len);
    ZBT_CHECK(fb->data != NULL);
    ZBT_EQ_U64(fread(fb->data, 1, fb->len, f), fb->len);
    fclose(f);
    ZBT_CHECK(memcmp(fb->data, "PAR1", 4) == 0);
    ZBT_CHECK(memcmp(fb->data + fb->len - 4, "PAR1", 4) == 0);
    flen = (uint32_t)fb->data[fb->len - 8] |
           (uint32_t)fb->data[fb->len - 7] << 8 |
           (uint32_t)fb->data[fb->len - 6] << 16 |
           (uint32_t)fb->data[fb->len - 5] << 24;
    ZBT_CHECK(flen <= fb->len - 12);
    fb->footer_len = flen;
    fb->footer = fb->data + fb->len - 8 - flen;
}

/* The fixture whose path contains needle. */
static const char *find_fixture(const char *needle)
{
    size_t i;

    for (i = 0; i < fixtures(); i++)
        if (strstr(fx.paths[i], needle))
            return fx.paths[i];
    zbt__fail(__FILE__, __LINE__, "no fixture matches %s", needle);
}

/* Checks one file's footer and the first page of each column chunk. */
static void check_file(const char *path, size_t *pages)
{
    file_bytes fb;
    pq_file_meta m;
    zb_arena *a = new_arena((size_t)64 << 20);
    zb_ctx ctx;
    int64_t rows = 0;
    size_t g, c, i, leaf;

    zb_ctx_init(&ctx);
    read_fixture(&fb, path);
    if (pq_meta_parse(&m, a, &ctx, fb.footer, fb.footer_len) != ZB_OK)
        zbt__fail(__FILE__, __LINE__, "%s: %s", path, ctx.err.msg);
    ZBT_CHECK(m.n_schema >= 2);
    ZBT_CHECK(m.schema[0].num_children > 0);
    for (g = 0; g < m.n_row_groups; g++) {
        const pq_row_group *rg = &m.row_groups[g];

        rows += rg->num_rows;
        /* Column chunks follow the leaves in schema order. */
        for (c = 0, leaf = 1; c < rg->n_columns; c++, leaf++) {
            const pq_column_chunk *cc = &rg->columns[c];
            const pq_column_meta *cm = &cc->meta_data;
            pq_page_header h;
            int64_t off;
            size_t hl;

            while (m.schema[leaf].num_children > 0)
                leaf++;
            ZBT_CHECK(cc->has_meta_data);
            ZBT_CHECK(cc->file_path == NULL);
            ZBT_EQ_INT(cm->type, m.schema[leaf].type);
            ZBT_CHECK(cm->path_len >= 1);
            ZBT_EQ_STR(cm->path_in_schema[cm->path_len - 1],
                       m.schema[leaf].name);
            ZBT_CHECK(cm->n_encodings >= 1);
            ZBT_CHECK(cm->num_values >= rg->num_rows);
            off = cm->has_dictionary_page_offset &&
                          cm->dictionary_page_offset > 0
                      ? cm->dictionary_page_offset
                      : cm->data_page_offset;
            ZBT_CHECK(off >= 4 && (size_t)off < fb.len - 8 - fb.footer_len);
            if (pq_page_header_parse(&h, &hl, &ctx, fb.data + off,
                                     fb.len - (size_t)off) != ZB_OK)
                zbt__fail(__FILE__, __LINE__, "%s rg %zu col %zu: %s", path,
                          g, c, ctx.err.msg);
            if (off == cm->data_page_offset)
                ZBT_CHECK(h.type == PQ_DATA_PAGE ||
                          h.type == PQ_DATA_PAGE_V2 ||
                          h.type == PQ_DICTIONARY_PAGE);
            else
                ZBT_EQ_INT(h.type, PQ_DICTIONARY_PAGE);
            ZBT_CHECK((int64_t)hl + h.compressed_page_size <=
                      cm->total_compressed_size);
            (*pages)++;
        }
        for (; leaf < m.n_schema; leaf++)
            ZBT_CHECK(m.schema[leaf].num_children > 0);
    }
    ZBT_EQ_INT(rows, m.num_rows);
    for (i = 0; i < m.n_key_value; i++)
        ZBT_CHECK(m.key_value[i].key != NULL);
    zb_arena_free(a);
    zb_free(fb.data);
}

static void test_parquet_meta__every_fixture(void)
{
    size_t i, pages = 0;

    for (i = 0; i < fixtures(); i++)
        check_file(fx.paths[i], &pages);
    printf("     %zu fixture files, %zu first pages\n", fx.n, pages);
    ZBT_CHECK(fx.n == 0 || fx.n >= 165);
}

/* Parses the footer of the fixture matching needle into *m. */
static void load(pq_file_meta *m, zb_arena *a, const char *needle,
                 size_t *footer_len)
{
    file_bytes fb;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    read_fixture(&fb, find_fixture(needle));
    ZBT_OK_CTX(pq_meta_parse(m, a, &ctx, fb.footer, fb.footer_len), &ctx);
    *footer_len = fb.footer_len;
    zb_free(fb.data);
}

static int64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Expected values below were read with hyparquet 1.33.0. */
static void test_parquet_meta__fixture_values(void)
{
    pq_file_meta m;
    zb_arena *a;
    size_t flen, i;
    const pq_column_meta *cm;

    if (fixtures() == 0)
        return;
    a = new_arena((size_t)64 << 20);

    /* DuckDB 1.2.2, one row. */
    load(&m, a, "event_type=click/00000-8-c8ef1f50", &flen);
    ZBT_EQ_U64(flen, 180);
    ZBT_EQ_INT(m.version, 1);
    ZBT_EQ_INT(m.num_rows, 1);
    ZBT_EQ_STR(m.created_by, "DuckDB version v1.2.2 (build 7c039464e4)");
    ZBT_EQ_STR(m.schema[0].name, "duckdb_schema");
    ZBT_EQ_STR(m.schema[1].name, "user_id");
    ZBT_EQ_INT(m.schema[1].field_id, 2);
    ZBT_EQ_INT(m.schema[1].converted_type, PQ_CT_INT_64);
    ZBT_EQ_INT(m.schema[1].repetition, PQ_OPTIONAL);
    cm = &m.row_groups[0].columns[0].meta_data;
    ZBT_EQ_INT(cm->codec, 1);                       /* SNAPPY */
    ZBT_EQ_INT(cm->dictionary_page_offset, 4);
    ZBT_EQ_INT(cm->data_page_offset, 27);
    ZBT_EQ_U64(cm->n_encodings, 1);
    ZBT_EQ_INT(cm->encodings[0], PQ_ENC_RLE_DICTIONARY);
    ZBT_CHECK(cm->has_statistics);
    ZBT_EQ_INT(cm->statistics.distinct_count, 1);
    ZBT_EQ_INT(cm->statistics.null_count, 0);
    ZBT_EQ_U64(cm->statistics.min_value_len, 8);
    ZBT_EQ_INT(le64(cm->statistics.min_value), 24680);
    ZBT_EQ_INT(le64(cm->statistics.max), 24680);

    /* parquet-mr 1.12.3 via Hive/Impala: 200 row groups of 100 rows. */
    load(&m, a, "impala-lineitem-multiblock", &flen);
    ZBT_EQ_U64(flen, 333192);
    ZBT_EQ_INT(m.num_rows, 20000);
    ZBT_EQ_U64(m.n_row_groups, 200);
    ZBT_EQ_INT(m.row_groups[199].num_rows, 100);
    ZBT_EQ_STR(m.created_by, "parquet-mr version 1.12.3 (build "
                             "f8dced182c4c1fbdec6ccb3185537b5a01e6ed6b)");
    ZBT_EQ_U64(m.n_schema, 17);
    for (i = 1; i < 17; i++)
        ZBT_EQ_INT(m.schema[i].field_id, (int)i);
    ZBT_EQ_STR(m.schema[5].name, "l_quantity");
    ZBT_EQ_INT(m.schema[5].logical.kind, PQ_LT_DECIMAL);
    ZBT_EQ_INT(m.schema[5].logical.scale, 2);
    ZBT_EQ_INT(m.schema[5].logical.precision, 12);
    ZBT_EQ_INT(m.schema[5].converted_type, PQ_CT_DECIMAL);
    ZBT_EQ_INT(m.schema[16].logical.kind, PQ_LT_STRING);
    ZBT_EQ_U64(m.n_key_value, 1);
    ZBT_EQ_STR(m.key_value[0].key, "iceberg.schema");
    ZBT_EQ_U64(strlen(m.key_value[0].value), 1076);
    cm = &m.row_groups[0].columns[0].meta_data;
    ZBT_EQ_INT(cm->data_page_offset, 142);
    ZBT_EQ_U64(cm->n_encodings, 3);
    ZBT_EQ_INT(cm->encodings[0], PQ_ENC_PLAIN_DICTIONARY);
    ZBT_EQ_INT(cm->encodings[1], PQ_ENC_BIT_PACKED);
    ZBT_EQ_INT(cm->num_values, 100);

    /* parquet-cpp-arrow 19.0.1 (PyIceberg): TIME and TIMESTAMP kinds. */
    load(&m, a, "00000-0-f1823874-113e-405c-b412-f75145620823", &flen);
    ZBT_EQ_U64(flen, 4129);
    ZBT_EQ_INT(m.version, 2);
    ZBT_EQ_STR(m.created_by, "parquet-cpp-arrow version 19.0.1");
    ZBT_EQ_U64(m.n_schema, 16);
    ZBT_EQ_STR(m.schema[9].name, "col_time");
    ZBT_EQ_INT(m.schema[9].logical.kind, PQ_LT_TIME);
    ZBT_EQ_INT(m.schema[9].logical.is_adjusted_to_utc, 1);
    ZBT_EQ_INT(m.schema[9].logical.unit, PQ_UNIT_MICROS);
    ZBT_EQ_INT(m.schema[10].logical.kind, PQ_LT_TIMESTAMP);
    ZBT_EQ_INT(m.schema[10].logical.is_adjusted_to_utc, 0);
    ZBT_EQ_INT(m.schema[11].logical.is_adjusted_to_utc, 1);
    ZBT_EQ_INT(m.schema[7].logical.precision, 16);
    ZBT_EQ_INT(m.schema[13].type, PQ_FIXED_LEN_BYTE_ARRAY);
    ZBT_EQ_INT(m.schema[13].field_id, 13);
    ZBT_EQ_STR(m.key_value[0].key, "ARROW:schema");
    ZBT_EQ_U64(strlen(m.key_value[0].value), 2336);
    cm = &m.row_groups[0].columns[0].meta_data;
    ZBT_EQ_INT(cm->codec, 6);                       /* ZSTD */
    ZBT_EQ_INT(cm->statistics.has_max, 0);
    ZBT_EQ_U64(cm->statistics.max_value_len, 4);
    ZBT_CHECK(memcmp(cm->statistics.max_value, "test", 4) == 0);

    /* Impala 4.2 position deletes: reserved field ids, INTEGER(64). */
    load(&m, a, "00191-4-6e780302-527b-4911-8c6e-88d416adac57", &flen);
    ZBT_EQ_U64(flen, 651);
    ZBT_EQ_INT(m.schema[1].field_id, 2147483546);
    ZBT_EQ_INT(m.schema[2].field_id, 2147483545);
    ZBT_EQ_INT(m.schema[2].logical.kind, PQ_LT_INTEGER);
    ZBT_EQ_INT(m.schema[2].logical.bit_width, 64);
    ZBT_EQ_INT(m.schema[2].logical.is_signed, 1);
    ZBT_EQ_INT(m.row_groups[0].columns[0].meta_data.data_page_offset, 186);

    /* Trino 481 variant: a group of two required leaves. */
    load(&m, a, "impala-v3-trino-variant", &flen);
    ZBT_EQ_U64(flen, 466);
    ZBT_EQ_INT(m.num_rows, 55);
    ZBT_EQ_STR(m.schema[3].name, "v");
    ZBT_EQ_INT(m.schema[3].num_children, 2);
    ZBT_EQ_INT(m.schema[3].field_id, 3);
    ZBT_EQ_INT(m.schema[5].repetition, PQ_REQUIRED);
    ZBT_EQ_U64(m.row_groups[0].n_columns, 4);
    zb_arena_free(a);
}

/* xorshift64*: reproducible pseudo-random bytes. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

static void test_parquet_meta__truncated_and_mutated_footers(void)
{
    static const char *const needles[] = {
        "00000-0-f1823874-113e-405c-b412-f75145620823",
        "00000-7-3180aeb0-e342-4d28-87ad-87847496148c",
        "impala-v3-trino-variant", "event_type=click/00000-8-c8ef1f50",
    };
    size_t k, n, i, ok = 0, corrupt = 0;
    uint8_t *copy;
    file_bytes fb;
    pq_file_meta m;
    zb_arena *a;
    zb_ctx ctx;
    int rc;

    if (fixtures() == 0)
        return;
    a = new_arena((size_t)64 << 20);
    zb_ctx_init(&ctx);
    for (k = 0; k < sizeof needles / sizeof needles[0]; k++) {
        read_fixture(&fb, find_fixture(needles[k]));
        /* A copy of exactly the footer, so ASan sees any overread. */
        copy = zb_malloc(fb.footer_len);
        ZBT_CHECK(copy != NULL);
        for (n = 0; n < fb.footer_len; n++) {
            memcpy(copy, fb.footer, n);
            ZBT_RC(pq_meta_parse(&m, a, &ctx, copy, n), ZB_ECORRUPT);
            ZBT_CONTAINS(ctx.err.msg, "at offset");
            zb_arena_reset(a);
        }
        for (i = 0; i < 3000; i++) {
            size_t flips = 1 + rnd() % 3, j;

            memcpy(copy, fb.footer, fb.footer_len);
            for (j = 0; j < flips; j++) {
                uint64_t r = rnd();
                size_t at = (size_t)(r % fb.footer_len);

                if (r & (1ULL << 40))
                    copy[at] ^= (uint8_t)(1u << (r >> 41) % 8);
                else
                    copy[at] = (uint8_t)(r >> 48);
            }
            rc = pq_meta_parse(&m, a, &ctx, copy, fb.footer_len);
            if (rc != ZB_OK && rc != ZB_ECORRUPT)
                zbt__fail(__FILE__, __LINE__, "rc %s: %s", zb_rc_name(rc),
                          ctx.err.msg);
            if (rc == ZB_OK)
                ok++;
            else
                corrupt++;
            zb_arena_reset(a);
        }
        zb_free(copy);
        zb_free(fb.data);
    }
    printf("     mutations: %zu parsed, %zu corrupt\n", ok, corrupt);
    ZBT_CHECK(corrupt > 0);
    zb_arena_free(a);
}

static void test_parquet_meta__mutated_page_headers(void)
{
    file_bytes fb;
    pq_file_meta m;
    pq_page_header h;
    uint8_t copy[256];
    zb_arena *a;
    zb_ctx ctx;
    size_t c, i, n, hl;
    int rc;

    if (fixtures() == 0)
        return;
    a = new_arena((size_t)64 << 20);
    zb_ctx_init(&ctx);
    read_fixture(&fb, find_fixture("00000-0-f1823874-113e-405c"));
    ZBT_OK_CTX(pq_meta_parse(&m, a, &ctx, fb.footer, fb.footer_len), &ctx);
    for (c = 0; c < m.row_groups[0].n_columns; c++) {
        const pq_column_meta *cm = &m.row_groups[0].columns[c].meta_data;
        int64_t off = cm->data_page_offset;

        ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, fb.data + off,
                                        fb.len - (size_t)off),
                   &ctx);
        ZBT_CHECK(hl <= sizeof copy);
        for (n = 0; n < hl; n++) {
            size_t got;

            memcpy(copy, fb.data + off, n);
            ZBT_RC(pq_page_header_parse(&h, &got, &ctx, copy, n),
                   ZB_ECORRUPT);
        }
        for (i = 0; i < 500; i++) {
            uint64_t r = rnd();

            memcpy(copy, fb.data + off, hl);
            copy[r % hl] = (uint8_t)(r >> 32);
            rc = pq_page_header_parse(&h, &n, &ctx, copy, hl);
            ZBT_CHECK(rc == ZB_OK || rc == ZB_ECORRUPT);
            ZBT_CHECK(rc != ZB_OK || n <= hl);
        }
    }
    zb_free(fb.data);
    zb_arena_free(a);
}

const zbt_case test_parquet_meta[] = {
    ZBT_CASE(test_parquet_meta__varint_and_zigzag),
    ZBT_CASE(test_parquet_meta__i8_double_binary_bool),
    ZBT_CASE(test_parquet_meta__field_headers),
    ZBT_CASE(test_parquet_meta__lists_sets_maps),
    ZBT_CASE(test_parquet_meta__skip_every_type),
    ZBT_CASE(test_parquet_meta__depth_is_bounded),
    ZBT_CASE(test_parquet_meta__built_footer),
    ZBT_CASE(test_parquet_meta__missing_required_fields),
    ZBT_CASE(test_parquet_meta__bad_values),
    ZBT_CASE(test_parquet_meta__out_of_memory),
    ZBT_CASE(test_parquet_meta__page_headers),
    ZBT_CASE(test_parquet_meta__every_fixture),
    ZBT_CASE(test_parquet_meta__fixture_values),
    ZBT_CASE(test_parquet_meta__truncated_and_mutated_footers),
    ZBT_CASE(test_parquet_meta__mutated_page_headers),
    ZBT_END
};

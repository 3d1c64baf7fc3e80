/*
 * Parquet footer and page header writers: the Thrift compact protocol
 * writer byte by byte against encodings worked out by hand from the spec
 * (field id deltas and the long form, bool nibbles, zigzag extremes, short
 * and long list headers, nested structs' id state), and read back with
 * pq_thrift.c; pq_meta_write and pq_page_header_write against hand-checked
 * bytes (logical types, column orders, page kinds, page statistics), and
 * unencodable input gives ZB_EINVAL and leaves the buffer as it was.
 * meta_write_files.c has the fixture round trips, allocation failures and
 * a complete tiny file.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/thrift/pq_thrift.h"
#include "format/parquet/thrift/pq_thrift_write.h"
#include "util/alloc.h"
#include "zbtest.h"

/* Checks that b holds exactly the n bytes of want, showing both if not. */
static void bytes_are(const zb_buf *b, const uint8_t *want, size_t n,
                      int line)
{
    char got_hex[1024] = "", want_hex[1024] = "";
    size_t i, k;

    if (b->len == n && (n == 0 || memcmp(b->ptr, want, n) == 0))
        return;
    for (i = 0, k = 0; i < b->len && k + 4 < sizeof got_hex; i++)
        k += (size_t)snprintf(got_hex + k, sizeof got_hex - k, "%02x ",
                              (unsigned)(uint8_t)b->ptr[i]);
    for (i = 0, k = 0; i < n && k + 4 < sizeof want_hex; i++)
        k += (size_t)snprintf(want_hex + k, sizeof want_hex - k, "%02x ",
                              (unsigned)want[i]);
    zbt__fail(__FILE__, line, "bytes differ:\n      got  %s\n      want %s",
              got_hex, want_hex);
}

#define BYTES_ARE(b, ...)                                                   \
    do {                                                                    \
        static const uint8_t want_[] = { __VA_ARGS__ };                     \
        bytes_are((b), want_, sizeof want_, __LINE__);                      \
    } while (0)

/* ---- Thrift writer ----------------------------------------------------- */

static void test_parquet_meta_write__field_headers(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_thrift_writer w;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_struct_begin(&w);
    pq_thrift_put_field_i32(&w, 1, 0);        /* delta 1: 0x15 */
    pq_thrift_put_field_bool(&w, 2, 1);       /* true in the nibble: 0x11 */
    pq_thrift_put_field_bool(&w, 3, 0);       /* false: 0x12 */
    pq_thrift_put_field_i32(&w, 18, 7);       /* delta 15: 0xf5 */
    pq_thrift_put_field_i32(&w, 34, 1);       /* delta 16: long, zz(34)=68 */
    pq_thrift_put_field_i32(&w, 20, -1);      /* down: long, zz(20)=40 */
    pq_thrift_put_field_bool(&w, 300, 1);     /* long bool: zz(300)=600 */
    pq_thrift_put_field_struct_begin(&w, 301); /* delta 1: 0x1c */
    pq_thrift_put_field_i64(&w, 1, -3);       /* inner starts at 0: 0x16 */
    pq_thrift_put_struct_end(&w);             /* 0x00 */
    pq_thrift_put_field_i16(&w, 302, 5);      /* outer state is 301: 0x14 */
    pq_thrift_put_field_i8(&w, -1, -1);       /* negative id: long */
    pq_thrift_put_struct_end(&w);
    pq_thrift_put_struct_begin(&w);           /* first id above 15: long */
    pq_thrift_put_field_binary(&w, 16, "ab", 2);
    pq_thrift_put_field_empty_struct(&w, 17);
    pq_thrift_put_struct_end(&w);
    ZBT_OK_CTX(pq_thrift_put_rc(&w), &ctx);
    BYTES_ARE(&b, 0x15, 0x00, 0x11, 0x12, 0xf5, 0x0e, 0x05, 0x44, 0x02,
              0x05, 0x28, 0x01, 0x01, 0xd8, 0x04, 0x1c, 0x16, 0x05, 0x00,
              0x14, 0x0a, 0x03, 0x01, 0xff, 0x00, 0x08, 0x20, 0x02, 'a',
              'b', 0x1c, 0x00, 0x00);
    zb_buf_free(&b);
}

static void test_parquet_meta_write__values(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_thrift_writer w;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_i32(&w, 1);                 /* 02 */
    pq_thrift_put_i32(&w, -1);                /* 01 */
    pq_thrift_put_i32(&w, -64);               /* 7f */
    pq_thrift_put_i32(&w, 64);                /* 80 01 */
    pq_thrift_put_i32(&w, -65);               /* 81 01 */
    pq_thrift_put_i32(&w, INT32_MIN);         /* ff ff ff ff 0f */
    pq_thrift_put_i32(&w, INT32_MAX);         /* fe ff ff ff 0f */
    pq_thrift_put_i16(&w, INT16_MIN);         /* ff ff 03 */
    pq_thrift_put_i64(&w, INT64_MIN);         /* ff x9, 01 */
    pq_thrift_put_i64(&w, INT64_MAX);         /* fe, ff x8, 01 */
    pq_thrift_put_i8(&w, -2);                 /* fe */
    pq_thrift_put_varint(&w, 300);            /* ac 02 */
    pq_thrift_put_double(&w, -2.5);           /* c004000000000000 LE */
    pq_thrift_put_string(&w, "");             /* 00 */
    pq_thrift_put_binary(&w, "\x00\xff", 2);  /* 02 00 ff */
    pq_thrift_put_bool_elem(&w, 1);           /* 01 */
    pq_thrift_put_bool_elem(&w, 0);           /* 02 */
    ZBT_OK_CTX(pq_thrift_put_rc(&w), &ctx);
    BYTES_ARE(&b, 0x02, 0x01, 0x7f, 0x80, 0x01, 0x81, 0x01, 0xff, 0xff,
              0xff, 0xff, 0x0f, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff,
              0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
              0x01, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
              0x01, 0xfe, 0xac, 0x02, 0, 0, 0, 0, 0, 0, 0x04, 0xc0, 0x00,
              0x02, 0x00, 0xff, 0x01, 0x02);
    zb_buf_free(&b);
}

static void test_parquet_meta_write__lists_and_maps(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_thrift_writer w;
    zb_ctx ctx;
    int i;

    zb_ctx_init(&ctx);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_list_begin(&w, PQ_TT_I32, 0);      /* 05 */
    pq_thrift_put_list_begin(&w, PQ_TT_STRUCT, 14);  /* ec */
    pq_thrift_put_list_begin(&w, PQ_TT_BINARY, 15);  /* f8 0f */
    pq_thrift_put_list_begin(&w, PQ_TT_I64, 200);    /* f6 c8 01 */
    pq_thrift_put_list_begin(&w, PQ_TT_TRUE, 2);     /* 21 */
    pq_thrift_put_map_begin(&w, PQ_TT_BINARY, PQ_TT_I32, 0); /* 00 */
    pq_thrift_put_map_begin(&w, PQ_TT_BINARY, PQ_TT_I32, 3); /* 03 85 */
    ZBT_OK_CTX(pq_thrift_put_rc(&w), &ctx);
    BYTES_ARE(&b, 0x05, 0xec, 0xf8, 0x0f, 0xf6, 0xc8, 0x01, 0x21, 0x00,
              0x03, 0x85);

    /* A list field of 20 i32s takes the long header: 0xf5 then 20. */
    zb_buf_clear(&b);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_struct_begin(&w);
    pq_thrift_put_field_list_begin(&w, 2, PQ_TT_I32, 20);
    for (i = 0; i < 20; i++)
        pq_thrift_put_i32(&w, i - 10);
    pq_thrift_put_struct_end(&w);
    ZBT_OK_CTX(pq_thrift_put_rc(&w), &ctx);
    ZBT_EQ_U64(b.len, 1 + 2 + 20 + 1);
    ZBT_EQ_INT((uint8_t)b.ptr[0], 0x29);
    ZBT_EQ_INT((uint8_t)b.ptr[1], 0xf5);
    ZBT_EQ_INT((uint8_t)b.ptr[2], 20);
    ZBT_EQ_INT((uint8_t)b.ptr[3], 19);        /* zz(-10) */
    ZBT_EQ_INT((uint8_t)b.ptr[22], 18);       /* zz(9) */
    ZBT_EQ_INT((uint8_t)b.ptr[23], 0);
    zb_buf_free(&b);
}

/* What the writer writes, pq_thrift.c reads back. */
static void test_parquet_meta_write__read_back(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_thrift_writer w;
    pq_thrift t;
    pq_thrift_field f;
    zb_ctx ctx;
    int16_t last, inner, id;
    int32_t v32 = 0;
    int64_t v64 = 0;
    double d = 0;
    const uint8_t *data = NULL;
    size_t n = 0, i;
    int flag = 0;

    zb_ctx_init(&ctx);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_struct_begin(&w);
    for (id = 1; id <= 200; id += 20) {       /* gaps of 19: long form */
        pq_thrift_put_field_i64(&w, id, -(int64_t)id * 1000003);
        pq_thrift_put_field_bool(&w, (int16_t)(id + 1), id & 1);
    }
    pq_thrift_put_field_double(&w, 250, 0.1);
    pq_thrift_put_field_list_begin(&w, 251, PQ_TT_STRUCT, 30);
    for (i = 0; i < 30; i++) {
        pq_thrift_put_struct_begin(&w);
        pq_thrift_put_field_i32(&w, (int16_t)(i * 7 + 1), (int32_t)i);
        pq_thrift_put_struct_end(&w);
    }
    pq_thrift_put_field_string(&w, 252, "end");
    pq_thrift_put_struct_end(&w);
    ZBT_OK_CTX(pq_thrift_put_rc(&w), &ctx);

    pq_thrift_init(&t, &ctx, "test", (const uint8_t *)b.ptr, b.len);
    ZBT_OK_CTX(pq_thrift_struct_begin(&t, &last, "s"), &ctx);
    for (id = 1; id <= 200; id += 20) {
        ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
        ZBT_EQ_INT(f.id, id);
        ZBT_OK_CTX(pq_thrift_field_i64(&t, &f, &v64, "s"), &ctx);
        ZBT_EQ_INT(v64, -(int64_t)id * 1000003);
        ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
        ZBT_EQ_INT(f.id, id + 1);
        ZBT_OK_CTX(pq_thrift_field_bool(&t, &f, &flag, "s"), &ctx);
        ZBT_EQ_INT(flag, id & 1);
    }
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
    ZBT_EQ_INT(f.id, 250);
    ZBT_OK_CTX(pq_thrift_double(&t, &d, "s"), &ctx);
    ZBT_CHECK(d == 0.1);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
    ZBT_OK_CTX(pq_thrift_field_list(&t, &f, PQ_TT_STRUCT, &n, "s"), &ctx);
    ZBT_EQ_U64(n, 30);
    for (i = 0; i < n; i++) {
        ZBT_OK_CTX(pq_thrift_struct_begin(&t, &inner, "e"), &ctx);
        ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &inner, "e"), &ctx);
        ZBT_EQ_INT(f.id, i * 7 + 1);
        ZBT_OK_CTX(pq_thrift_field_i32(&t, &f, &v32, "e"), &ctx);
        ZBT_EQ_INT(v32, i);
        ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &inner, "e"), &ctx);
        ZBT_EQ_INT(f.type, PQ_TT_STOP);
        pq_thrift_struct_end(&t);
    }
    pq_thrift_container_end(&t);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
    ZBT_EQ_INT(f.id, 252);
    ZBT_OK_CTX(pq_thrift_field_binary(&t, &f, &data, &n, "s"), &ctx);
    ZBT_CHECK(n == 3 && memcmp(data, "end", 3) == 0);
    ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "s"), &ctx);
    ZBT_EQ_INT(f.type, PQ_TT_STOP);
    ZBT_EQ_U64(t.pos, b.len);
    /* The whole struct skips as one value too. */
    pq_thrift_init(&t, &ctx, "test", (const uint8_t *)b.ptr, b.len);
    ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_STRUCT, "s"), &ctx);
    ZBT_EQ_U64(t.pos, b.len);
    zb_buf_free(&b);
}

static void test_parquet_meta_write__writer_errors(void)
{
    zb_buf b = ZB_BUF_INIT(8);
    pq_thrift_writer w;
    zb_ctx ctx;
    int i;

    /* A full buffer: ENOMEM, and it sticks. */
    zb_ctx_init(&ctx);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_struct_begin(&w);
    ZBT_RC(pq_thrift_put_field_string(&w, 1, "longer than eight"),
           ZB_ENOMEM);
    ZBT_CONTAINS(ctx.err.msg, "8-byte cap");
    ZBT_RC(pq_thrift_put_i8(&w, 1), ZB_ENOMEM);
    ZBT_RC(pq_thrift_put_struct_end(&w), ZB_ENOMEM);
    ZBT_RC(pq_thrift_put_rc(&w), ZB_ENOMEM);
    zb_buf_free(&b);

    zb_buf_init(&b, 1 << 16);
    pq_thrift_writer_init(&w, &b, &ctx);
    ZBT_RC(pq_thrift_put_struct_end(&w), ZB_EINVAL);
    pq_thrift_writer_init(&w, &b, &ctx);
    ZBT_RC(pq_thrift_put_field_i32(&w, 1, 1), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "outside a struct");
    pq_thrift_writer_init(&w, &b, &ctx);
    for (i = 0; i < PQ_THRIFT_MAX_DEPTH; i++)
        ZBT_OK_CTX(pq_thrift_put_struct_begin(&w), &ctx);
    ZBT_RC(pq_thrift_put_struct_begin(&w), ZB_EINVAL);
    pq_thrift_writer_init(&w, &b, &ctx);
    ZBT_RC(pq_thrift_put_list_begin(&w, PQ_TT_I32, (size_t)INT32_MAX + 1),
           ZB_EINVAL);
    pq_thrift_writer_init(&w, &b, &ctx);
    ZBT_RC(pq_thrift_put_list_begin(&w, 14, 1), ZB_EINVAL);
    pq_thrift_writer_init(&w, &b, &ctx);
    pq_thrift_put_struct_begin(&w);
    ZBT_RC(pq_thrift_put_field_header(&w, PQ_TT_TRUE, 1), ZB_EINVAL);
    pq_thrift_writer_init(&w, &b, &ctx);
    ZBT_RC(pq_thrift_put_string(&w, NULL), ZB_EINVAL);
    zb_buf_free(&b);
}

/* ---- Footer and page header bytes -------------------------------------- */

static void test_parquet_meta_write__footer_bytes(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_schema_element se[4];
    pq_file_meta m;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    memset(&m, 0, sizeof m);
    memset(se, 0, sizeof se);
    m.version = 1;
    m.schema = se;
    m.n_schema = 1;
    se[0].name = "root";
    /* An empty schema: no leaves, so no column_orders. */
    ZBT_OK_CTX(pq_meta_write(&b, &ctx, &m), &ctx);
    BYTES_ARE(&b, 0x15, 0x02, 0x19, 0x1c, 0x48, 0x04, 'r', 'o', 'o', 't',
              0x15, 0x00, 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00);

    /* TIMESTAMP(utc, MICROS), DECIMAL(9, 2), INTEGER(16, unsigned). */
    se[0].num_children = 3;
    se[1].name = "t";
    se[1].has_type = 1;
    se[1].type = PQ_INT64;
    se[1].logical.kind = PQ_LT_TIMESTAMP;
    se[1].logical.is_adjusted_to_utc = 1;
    se[1].logical.unit = PQ_UNIT_MICROS;
    se[2] = se[1];
    se[2].name = "d";
    se[2].type = PQ_INT32;
    memset(&se[2].logical, 0, sizeof se[2].logical);
    se[2].logical.kind = PQ_LT_DECIMAL;
    se[2].logical.scale = 2;
    se[2].logical.precision = 9;
    se[3] = se[2];
    se[3].name = "i";
    memset(&se[3].logical, 0, sizeof se[3].logical);
    se[3].logical.kind = PQ_LT_INTEGER;
    se[3].logical.bit_width = 16;
    m.n_schema = 4;
    m.created_by = "z";
    zb_buf_clear(&b);
    ZBT_OK_CTX(pq_meta_write(&b, &ctx, &m), &ctx);
    BYTES_ARE(&b, 0x15, 0x02, 0x19, 0x4c,
              /* root */ 0x48, 0x04, 'r', 'o', 'o', 't', 0x15, 0x06, 0x00,
              /* t */ 0x15, 0x04, 0x38, 0x01, 't', 0x6c, 0x8c, 0x11, 0x1c,
              0x2c, 0x00, 0x00, 0x00, 0x00, 0x00,
              /* d */ 0x15, 0x02, 0x38, 0x01, 'd', 0x6c, 0x5c, 0x15, 0x04,
              0x15, 0x12, 0x00, 0x00, 0x00,
              /* i */ 0x15, 0x02, 0x38, 0x01, 'i', 0x6c, 0xac, 0x13, 0x10,
              0x12, 0x00, 0x00, 0x00,
              /* num_rows, row_groups, created_by */ 0x16, 0x00, 0x19,
              0x0c, 0x28, 0x01, 'z',
              /* column_orders: 3 x TYPE_ORDER */ 0x19, 0x3c, 0x1c, 0x00,
              0x00, 0x1c, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00);
    zb_buf_free(&b);
}

static void test_parquet_meta_write__page_header_bytes(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_page_header h, back;
    pq_statistics st;
    zb_ctx ctx;
    size_t hl;

    zb_ctx_init(&ctx);
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE;
    h.uncompressed_page_size = 40;
    h.compressed_page_size = 40;
    h.data.num_values = 5;
    h.data.encoding = PQ_ENC_PLAIN;
    h.data.definition_level_encoding = PQ_ENC_RLE;
    h.data.repetition_level_encoding = PQ_ENC_RLE;
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, NULL), &ctx);
    BYTES_ARE(&b, 0x15, 0x00, 0x15, 0x50, 0x15, 0x50, 0x2c, 0x15, 0x0a,
              0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00);

    /* crc, and page statistics (field 5 of DataPageHeader). */
    h.has_crc = 1;
    h.crc = -1;
    memset(&st, 0, sizeof st);
    st.has_null_count = 1;
    st.null_count = 2;
    st.has_max_value = 1;
    st.max_value = (const uint8_t *)"b";
    st.max_value_len = 1;
    st.has_min_value = 1;
    st.min_value = (const uint8_t *)"a";
    st.min_value_len = 1;
    zb_buf_clear(&b);
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, &st), &ctx);
    BYTES_ARE(&b, 0x15, 0x00, 0x15, 0x50, 0x15, 0x50, 0x15, 0x01, 0x1c,
              0x15, 0x0a, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x1c, 0x36,
              0x04, 0x28, 0x01, 'b', 0x18, 0x01, 'a', 0x00, 0x00, 0x00);
    ZBT_OK_CTX(pq_page_header_parse(&back, &hl, &ctx,
                                    (const uint8_t *)b.ptr, b.len), &ctx);
    ZBT_EQ_U64(hl, b.len);
    ZBT_EQ_INT(back.crc, -1);
    ZBT_EQ_INT(back.data.num_values, 5);

    /* Dictionary page, sorted: field 7, is_sorted true in the nibble. */
    memset(&h, 0, sizeof h);
    h.type = PQ_DICTIONARY_PAGE;
    h.uncompressed_page_size = 3;
    h.compressed_page_size = 2;
    h.dict.num_values = 1;
    h.dict.encoding = PQ_ENC_PLAIN;
    h.dict.is_sorted = 1;
    zb_buf_clear(&b);
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, NULL), &ctx);
    BYTES_ARE(&b, 0x15, 0x04, 0x15, 0x06, 0x15, 0x04, 0x4c, 0x15, 0x02,
              0x15, 0x00, 0x11, 0x00, 0x00);

    /* V2, not compressed, with statistics in field 8. */
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE_V2;
    h.uncompressed_page_size = 10;
    h.compressed_page_size = 10;
    h.v2.num_values = 3;
    h.v2.num_nulls = 1;
    h.v2.num_rows = 2;
    h.v2.encoding = PQ_ENC_RLE_DICTIONARY;
    h.v2.definition_levels_byte_length = 4;
    h.v2.repetition_levels_byte_length = 1;
    memset(&st, 0, sizeof st);
    st.has_distinct_count = 1;
    st.distinct_count = 1;
    zb_buf_clear(&b);
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, &st), &ctx);
    BYTES_ARE(&b, 0x15, 0x06, 0x15, 0x14, 0x15, 0x14, 0x5c, 0x15, 0x06,
              0x15, 0x02, 0x15, 0x04, 0x15, 0x10, 0x15, 0x08, 0x15, 0x02,
              0x12, 0x1c, 0x46, 0x02, 0x00, 0x00, 0x00);
    ZBT_OK_CTX(pq_page_header_parse(&back, &hl, &ctx,
                                    (const uint8_t *)b.ptr, b.len), &ctx);
    ZBT_EQ_INT(back.v2.is_compressed, 0);
    ZBT_EQ_INT(back.v2.encoding, PQ_ENC_RLE_DICTIONARY);

    /* Index page: the empty IndexPageHeader, field 6. */
    memset(&h, 0, sizeof h);
    h.type = PQ_INDEX_PAGE;
    zb_buf_clear(&b);
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, NULL), &ctx);
    BYTES_ARE(&b, 0x15, 0x02, 0x15, 0x00, 0x15, 0x00, 0x3c, 0x00, 0x00);
    zb_buf_free(&b);
}

/* Input that cannot be encoded: EINVAL, and the buffer is as it was. */
static void test_parquet_meta_write__invalid_input(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    pq_schema_element se[2];
    pq_page_header h;
    pq_statistics st;
    pq_file_meta m;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_buf_append(&b, "keep", 4), &ctx);
    memset(&m, 0, sizeof m);
    memset(se, 0, sizeof se);
    m.schema = se;
    m.n_schema = 2;
    se[0].name = "root";
    se[0].num_children = 1;
    ZBT_RC(pq_meta_write(&b, &ctx, &m), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "schema element 1 has no name");
    ZBT_EQ_U64(b.len, 4);
    se[1].name = "x";
    se[1].has_type = 1;
    se[1].logical.kind = PQ_LT_INTEGER;
    se[1].logical.bit_width = 12;
    ZBT_RC(pq_meta_write(&b, &ctx, &m), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "schema element x: integer bit width 12");
    se[1].logical.kind = PQ_LT_TIME;
    se[1].logical.unit = (pq_time_unit)0;
    ZBT_RC(pq_meta_write(&b, &ctx, &m), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "time unit 0");
    se[1].logical.kind = (pq_logical_kind)9;
    ZBT_RC(pq_meta_write(&b, &ctx, &m), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "logical type member 9");
    ZBT_EQ_U64(b.len, 4);
    ZBT_CHECK(memcmp(b.ptr, "keep", 4) == 0);

    memset(&h, 0, sizeof h);
    h.type = (pq_page_type)4;
    ZBT_RC(pq_page_header_write(&b, &ctx, &h, NULL), ZB_EINVAL);
    h.type = PQ_DATA_PAGE;
    h.compressed_page_size = -1;
    ZBT_RC(pq_page_header_write(&b, &ctx, &h, NULL), ZB_EINVAL);
    memset(&st, 0, sizeof st);
    h.type = PQ_DICTIONARY_PAGE;
    h.compressed_page_size = 0;
    ZBT_RC(pq_page_header_write(&b, &ctx, &h, &st), ZB_EINVAL);
    st.has_min_value = 1;
    st.min_value_len = 3;                     /* and min_value NULL */
    h.type = PQ_DATA_PAGE;
    ZBT_RC(pq_page_header_write(&b, &ctx, &h, &st), ZB_EINVAL);
    ZBT_EQ_U64(b.len, 4);
    zb_buf_free(&b);
}

const zbt_case test_parquet_meta_write[] = {
    ZBT_CASE(test_parquet_meta_write__field_headers),
    ZBT_CASE(test_parquet_meta_write__values),
    ZBT_CASE(test_parquet_meta_write__lists_and_maps),
    ZBT_CASE(test_parquet_meta_write__read_back),
    ZBT_CASE(test_parquet_meta_write__writer_errors),
    ZBT_CASE(test_parquet_meta_write__footer_bytes),
    ZBT_CASE(test_parquet_meta_write__page_header_bytes),
    ZBT_CASE(test_parquet_meta_write__invalid_input),
    ZBT_END
};

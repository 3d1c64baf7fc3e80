/*
 * Parquet footer and page header writers on real files: for every fixture
 * of ../shared/fixtures (skipped with a note when the directory is
 * missing), the footer and the first page header of every column chunk go
 * parse -> pq_meta_write / pq_page_header_write -> parse, and a deep
 * comparison checks every field pq_meta.h models; writing the parsed copy
 * again gives the same bytes, and the written footer carries one
 * TypeDefinedOrder per leaf. Each allocation of a footer's write fails in
 * turn (ZB_ENOMEM, the buffer as it was, nothing leaked), and so does a
 * buffer cap one byte short. Last, a complete tiny Parquet file (PAR1, a
 * PLAIN data page v1 of 5 INT64 values, footer, length, PAR1) is written
 * by hand into a temp dir and read back from disk.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/thrift/pq_thrift.h"
#include "util/alloc.h"
#include "zbtest.h"

/* ---- Deep comparison --------------------------------------------------- */

static char where[512];   /* what is being compared, for failures */

#define EQ(a, b)                                                            \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ != b_)                                                       \
            zbt__fail(__FILE__, __LINE__, "%s: %s: %lld != %lld", where,    \
                      #a, a_, b_);                                          \
    } while (0)

static void str_eq(const char *a, const char *b, const char *what, int line)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
        zbt__fail(__FILE__, line, "%s: %s: \"%s\" != \"%s\"", where, what,
                  a ? a : "(null)", b ? b : "(null)");
}

#define STR_EQ(a, b) str_eq((a), (b), #a, __LINE__)

static void bytes_eq(const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen, const char *what, int line)
{
    if (alen != blen || (alen && memcmp(a, b, alen) != 0))
        zbt__fail(__FILE__, line, "%s: %s differ (%zu and %zu bytes)", where,
                  what, alen, blen);
}

#define BYTES_EQ(a, alen, b, blen) bytes_eq((a), (alen), (b), (blen), #a, \
                                            __LINE__)

static void stats_eq(const pq_statistics *a, const pq_statistics *b)
{
    EQ(a->has_max, b->has_max);
    EQ(a->has_min, b->has_min);
    EQ(a->has_max_value, b->has_max_value);
    EQ(a->has_min_value, b->has_min_value);
    if (a->has_max)
        BYTES_EQ(a->max, a->max_len, b->max, b->max_len);
    if (a->has_min)
        BYTES_EQ(a->min, a->min_len, b->min, b->min_len);
    if (a->has_max_value)
        BYTES_EQ(a->max_value, a->max_value_len, b->max_value,
                 b->max_value_len);
    if (a->has_min_value)
        BYTES_EQ(a->min_value, a->min_value_len, b->min_value,
                 b->min_value_len);
    EQ(a->has_null_count, b->has_null_count);
    EQ(a->null_count, b->null_count);
    EQ(a->has_distinct_count, b->has_distinct_count);
    EQ(a->distinct_count, b->distinct_count);
}

static void schema_eq(const pq_schema_element *a, const pq_schema_element *b)
{
    STR_EQ(a->name, b->name);
    EQ(a->has_type, b->has_type);
    EQ(a->type, b->type);
    EQ(a->type_length, b->type_length);
    EQ(a->has_repetition, b->has_repetition);
    EQ(a->repetition, b->repetition);
    EQ(a->num_children, b->num_children);
    EQ(a->has_converted_type, b->has_converted_type);
    EQ(a->converted_type, b->converted_type);
    EQ(a->has_scale, b->has_scale);
    EQ(a->scale, b->scale);
    EQ(a->has_precision, b->has_precision);
    EQ(a->precision, b->precision);
    EQ(a->has_field_id, b->has_field_id);
    EQ(a->field_id, b->field_id);
    EQ(a->logical.kind, b->logical.kind);
    EQ(a->logical.scale, b->logical.scale);
    EQ(a->logical.precision, b->logical.precision);
    EQ(a->logical.is_adjusted_to_utc, b->logical.is_adjusted_to_utc);
    EQ(a->logical.unit, b->logical.unit);
    EQ(a->logical.bit_width, b->logical.bit_width);
    EQ(a->logical.is_signed, b->logical.is_signed);
}

static void column_meta_eq(const pq_column_meta *a, const pq_column_meta *b)
{
    size_t i;

    EQ(a->type, b->type);
    EQ(a->n_encodings, b->n_encodings);
    for (i = 0; i < a->n_encodings; i++)
        EQ(a->encodings[i], b->encodings[i]);
    EQ(a->path_len, b->path_len);
    for (i = 0; i < a->path_len; i++)
        STR_EQ(a->path_in_schema[i], b->path_in_schema[i]);
    EQ(a->codec, b->codec);
    EQ(a->num_values, b->num_values);
    EQ(a->total_uncompressed_size, b->total_uncompressed_size);
    EQ(a->total_compressed_size, b->total_compressed_size);
    EQ(a->data_page_offset, b->data_page_offset);
    EQ(a->has_index_page_offset, b->has_index_page_offset);
    EQ(a->index_page_offset, b->index_page_offset);
    EQ(a->has_dictionary_page_offset, b->has_dictionary_page_offset);
    EQ(a->dictionary_page_offset, b->dictionary_page_offset);
    EQ(a->has_statistics, b->has_statistics);
    stats_eq(&a->statistics, &b->statistics);
}

static void chunk_eq(const pq_column_chunk *a, const pq_column_chunk *b)
{
    STR_EQ(a->file_path, b->file_path);
    EQ(a->file_offset, b->file_offset);
    EQ(a->has_meta_data, b->has_meta_data);
    if (a->has_meta_data)
        column_meta_eq(&a->meta_data, &b->meta_data);
    EQ(a->has_offset_index, b->has_offset_index);
    EQ(a->offset_index_offset, b->offset_index_offset);
    EQ(a->offset_index_length, b->offset_index_length);
    EQ(a->has_column_index, b->has_column_index);
    EQ(a->column_index_offset, b->column_index_offset);
    EQ(a->column_index_length, b->column_index_length);
}

static void meta_eq(const pq_file_meta *a, const pq_file_meta *b,
                    const char *name)
{
    size_t i, c;

    snprintf(where, sizeof where, "%s: FileMetaData", name);
    EQ(a->version, b->version);
    EQ(a->num_rows, b->num_rows);
    STR_EQ(a->created_by, b->created_by);
    EQ(a->n_schema, b->n_schema);
    EQ(a->n_row_groups, b->n_row_groups);
    EQ(a->n_key_value, b->n_key_value);
    for (i = 0; i < a->n_schema; i++) {
        snprintf(where, sizeof where, "%s: schema[%zu]", name, i);
        schema_eq(&a->schema[i], &b->schema[i]);
    }
    for (i = 0; i < a->n_row_groups; i++) {
        const pq_row_group *ra = &a->row_groups[i], *rb = &b->row_groups[i];

        snprintf(where, sizeof where, "%s: row group %zu", name, i);
        EQ(ra->total_byte_size, rb->total_byte_size);
        EQ(ra->num_rows, rb->num_rows);
        EQ(ra->has_file_offset, rb->has_file_offset);
        EQ(ra->file_offset, rb->file_offset);
        EQ(ra->has_total_compressed_size, rb->has_total_compressed_size);
        EQ(ra->total_compressed_size, rb->total_compressed_size);
        EQ(ra->has_ordinal, rb->has_ordinal);
        EQ(ra->ordinal, rb->ordinal);
        EQ(ra->n_columns, rb->n_columns);
        for (c = 0; c < ra->n_columns; c++) {
            snprintf(where, sizeof where, "%s: row group %zu column %zu",
                     name, i, c);
            chunk_eq(&ra->columns[c], &rb->columns[c]);
        }
    }
    for (i = 0; i < a->n_key_value; i++) {
        snprintf(where, sizeof where, "%s: key_value[%zu]", name, i);
        STR_EQ(a->key_value[i].key, b->key_value[i].key);
        STR_EQ(a->key_value[i].value, b->key_value[i].value);
    }
}

static void page_eq(const pq_page_header *a, const pq_page_header *b)
{
    EQ(a->type, b->type);
    EQ(a->uncompressed_page_size, b->uncompressed_page_size);
    EQ(a->compressed_page_size, b->compressed_page_size);
    EQ(a->has_crc, b->has_crc);
    EQ(a->crc, b->crc);
    EQ(a->data.num_values, b->data.num_values);
    EQ(a->data.encoding, b->data.encoding);
    EQ(a->data.definition_level_encoding, b->data.definition_level_encoding);
    EQ(a->data.repetition_level_encoding, b->data.repetition_level_encoding);
    EQ(a->dict.num_values, b->dict.num_values);
    EQ(a->dict.encoding, b->dict.encoding);
    EQ(a->dict.is_sorted, b->dict.is_sorted);
    EQ(a->v2.num_values, b->v2.num_values);
    EQ(a->v2.num_nulls, b->v2.num_nulls);
    EQ(a->v2.num_rows, b->v2.num_rows);
    EQ(a->v2.encoding, b->v2.encoding);
    EQ(a->v2.definition_levels_byte_length,
       b->v2.definition_levels_byte_length);
    EQ(a->v2.repetition_levels_byte_length,
       b->v2.repetition_levels_byte_length);
    EQ(a->v2.is_compressed, b->v2.is_compressed);
}

/* The number of ColumnOrder entries (each must be TYPE_ORDER {}). */
static size_t column_orders(const zb_buf *b, zb_ctx *ctx)
{
    pq_thrift t;
    pq_thrift_field f, g;
    int16_t last, inner;
    size_t n = 0, i;

    pq_thrift_init(&t, ctx, "written footer", (const uint8_t *)b->ptr,
                   b->len);
    ZBT_OK_CTX(pq_thrift_struct_begin(&t, &last, "fmd"), ctx);
    for (;;) {
        ZBT_OK_CTX(pq_thrift_field_next(&t, &f, &last, "fmd"), ctx);
        if (f.type == PQ_TT_STOP)
            break;
        if (f.id != 7) {
            ZBT_OK_CTX(pq_thrift_skip_field(&t, &f, "fmd"), ctx);
            continue;
        }
        ZBT_OK_CTX(pq_thrift_field_list(&t, &f, PQ_TT_STRUCT, &n, "co"), ctx);
        for (i = 0; i < n; i++) {
            ZBT_OK_CTX(pq_thrift_struct_begin(&t, &inner, "co"), ctx);
            ZBT_OK_CTX(pq_thrift_field_next(&t, &g, &inner, "co"), ctx);
            ZBT_CHECK(g.id == 1 && g.type == PQ_TT_STRUCT);
            ZBT_OK_CTX(pq_thrift_skip(&t, PQ_TT_STRUCT, "co"), ctx);
            ZBT_OK_CTX(pq_thrift_field_next(&t, &g, &inner, "co"), ctx);
            ZBT_EQ_INT(g.type, PQ_TT_STOP);
            pq_thrift_struct_end(&t);
        }
        pq_thrift_container_end(&t);
    }
    ZBT_EQ_U64(t.pos, b->len);
    return n;
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
    const uint8_t *footer;
    size_t footer_len;
} file_bytes;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void read_file(file_bytes *fb, const char *path)
{
    FILE *f = fopen(path, "rb");
    long size;

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
    fb->footer_len = le32(fb->data + fb->len - 8);
    ZBT_CHECK(fb->footer_len <= fb->len - 12);
    fb->footer = fb->data + fb->len - 8 - fb->footer_len;
}

static zb_arena *new_arena(void)
{
    zb_arena *a = NULL;

    ZBT_EQ_INT(zb_arena_new(&a, (size_t)256 << 20), ZB_OK);
    return a;
}

/* Round trips one file's footer and first page headers; counts pages. */
static void round_trip(const char *path, size_t *pages)
{
    zb_buf w1 = ZB_BUF_INIT((size_t)64 << 20), w2 = ZB_BUF_INIT((size_t)64 << 20);
    zb_arena *a = new_arena();
    pq_file_meta m, back;
    file_bytes fb;
    zb_ctx ctx;
    size_t g, c, i, leaves = 0;

    zb_ctx_init(&ctx);
    read_file(&fb, path);
    ZBT_OK_CTX(pq_meta_parse(&m, a, &ctx, fb.footer, fb.footer_len), &ctx);
    ZBT_OK_CTX(pq_meta_write(&w1, &ctx, &m), &ctx);
    ZBT_OK_CTX(pq_meta_parse(&back, a, &ctx, (const uint8_t *)w1.ptr,
                             w1.len), &ctx);
    meta_eq(&m, &back, path);
    /* Written again from the parsed copy: the same bytes. */
    ZBT_OK_CTX(pq_meta_write(&w2, &ctx, &back), &ctx);
    ZBT_CHECK(w1.len == w2.len && memcmp(w1.ptr, w2.ptr, w1.len) == 0);
    for (i = 1; i < m.n_schema; i++)
        leaves += m.schema[i].num_children == 0;
    ZBT_EQ_U64(column_orders(&w1, &ctx), leaves);

    for (g = 0; g < m.n_row_groups; g++) {
        for (c = 0; c < m.row_groups[g].n_columns; c++) {
            const pq_column_meta *cm = &m.row_groups[g].columns[c].meta_data;
            pq_page_header h, h2;
            int64_t off = cm->has_dictionary_page_offset &&
                                  cm->dictionary_page_offset > 0
                              ? cm->dictionary_page_offset
                              : cm->data_page_offset;
            size_t hl, hl2;

            ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, fb.data + off,
                                            fb.len - (size_t)off), &ctx);
            zb_buf_clear(&w2);
            ZBT_OK_CTX(pq_page_header_write(&w2, &ctx, &h, NULL), &ctx);
            ZBT_OK_CTX(pq_page_header_parse(&h2, &hl2, &ctx,
                                            (const uint8_t *)w2.ptr, w2.len),
                       &ctx);
            ZBT_EQ_U64(hl2, w2.len);
            snprintf(where, sizeof where, "%s: page of rg %zu col %zu", path,
                     g, c);
            page_eq(&h, &h2);
            (*pages)++;
        }
    }
    zb_buf_free(&w1);
    zb_buf_free(&w2);
    zb_arena_free(a);
    zb_free(fb.data);
}

static void test_parquet_meta_write__every_fixture(void)
{
    size_t i, pages = 0;

    for (i = 0; i < fixtures(); i++)
        round_trip(fx.paths[i], &pages);
    printf("     %zu fixture footers, %zu first page headers\n", fx.n,
           pages);
    ZBT_CHECK(fx.n == 0 || fx.n >= 165);
}

/* Every allocation fails in turn; then a cap one byte short. */
static void test_parquet_meta_write__out_of_memory(void)
{
    zb_buf b = ZB_BUF_INIT((size_t)64 << 20);
    zb_arena *a;
    pq_file_meta m;
    file_bytes fb;
    zb_ctx ctx;
    uint64_t nth, live;
    size_t i, best = 0, need;
    int rc;

    if (fixtures() == 0)
        return;
    for (i = 1; i < fx.n; i++)     /* many columns: many growths */
        if (strstr(fx.paths[i], "lineitem"))
            best = i;
    zb_ctx_init(&ctx);
    read_file(&fb, fx.paths[best]);
    a = new_arena();
    ZBT_OK_CTX(pq_meta_parse(&m, a, &ctx, fb.footer, fb.footer_len), &ctx);
    live = zb_alloc_live_bytes();
    for (nth = 1;; nth++) {
        zb_alloc__fail_at(nth, 0);
        rc = pq_meta_write(&b, &ctx, &m);
        zb_alloc__fail_at(0, 0);
        if (rc == ZB_OK)
            break;
        ZBT_RC(rc, ZB_ENOMEM);
        ZBT_EQ_U64(b.len, 0);
        ZBT_CHECK(nth < 1000);
    }
    ZBT_CHECK(nth > 1);
    need = b.len;
    zb_buf_free(&b);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);

    zb_buf_init(&b, need - 1);
    ZBT_RC(pq_meta_write(&b, &ctx, &m), ZB_ENOMEM);
    ZBT_EQ_U64(b.len, 0);
    zb_buf_free(&b);
    zb_buf_init(&b, need);
    ZBT_OK_CTX(pq_meta_write(&b, &ctx, &m), &ctx);
    zb_buf_free(&b);
    zb_arena_free(a);
    zb_free(fb.data);
}

/* ---- A complete tiny file ---------------------------------------------- */

static void le64_at(uint8_t *p, int64_t v)
{
    int i;

    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static void test_parquet_meta_write__tiny_file(void)
{
    static const int64_t values[5] = { 7, -1, 0, INT64_MAX, INT64_MIN };
    zb_buf b = ZB_BUF_INIT(1 << 20);
    uint8_t data[40], min[8], max[8], len4[4];
    int32_t encodings[] = { PQ_ENC_PLAIN, PQ_ENC_RLE };
    const char *col_path[] = { "x" };
    pq_schema_element schema[2];
    pq_column_chunk cc;
    pq_row_group rg;
    pq_file_meta m, back;
    pq_page_header h;
    file_bytes fb;
    zb_arena *a = new_arena();
    zb_ctx ctx;
    char path[512];
    size_t i, hl, footer_at;

    zb_ctx_init(&ctx);
    for (i = 0; i < 5; i++)
        le64_at(data + 8 * i, values[i]);
    le64_at(min, INT64_MIN);
    le64_at(max, INT64_MAX);
    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE;
    h.uncompressed_page_size = h.compressed_page_size = 40;
    h.data.num_values = 5;
    h.data.definition_level_encoding = PQ_ENC_RLE;
    h.data.repetition_level_encoding = PQ_ENC_RLE;
    ZBT_OK_CTX(zb_buf_append(&b, "PAR1", 4), &ctx);
    ZBT_OK_CTX(pq_page_header_write(&b, &ctx, &h, NULL), &ctx);
    ZBT_OK_CTX(zb_buf_append(&b, data, sizeof data), &ctx);

    memset(schema, 0, sizeof schema);
    schema[0].name = "schema";
    schema[0].num_children = 1;
    schema[1].name = "x";
    schema[1].has_type = schema[1].has_repetition = 1;
    schema[1].type = PQ_INT64;
    schema[1].repetition = PQ_REQUIRED;
    schema[1].has_field_id = 1;
    schema[1].field_id = 1;
    memset(&cc, 0, sizeof cc);
    cc.file_offset = 4;
    cc.has_meta_data = 1;
    cc.meta_data.type = PQ_INT64;
    cc.meta_data.encodings = encodings;
    cc.meta_data.n_encodings = 2;
    cc.meta_data.path_in_schema = col_path;
    cc.meta_data.path_len = 1;
    cc.meta_data.num_values = 5;
    cc.meta_data.total_uncompressed_size = (int64_t)b.len - 4;
    cc.meta_data.total_compressed_size = (int64_t)b.len - 4;
    cc.meta_data.data_page_offset = 4;
    cc.meta_data.has_statistics = 1;
    cc.meta_data.statistics.has_min_value = 1;
    cc.meta_data.statistics.min_value = min;
    cc.meta_data.statistics.min_value_len = 8;
    cc.meta_data.statistics.has_max_value = 1;
    cc.meta_data.statistics.max_value = max;
    cc.meta_data.statistics.max_value_len = 8;
    cc.meta_data.statistics.has_null_count = 1;
    memset(&rg, 0, sizeof rg);
    rg.columns = &cc;
    rg.n_columns = 1;
    rg.total_byte_size = (int64_t)b.len - 4;
    rg.num_rows = 5;
    memset(&m, 0, sizeof m);
    m.version = 1;
    m.schema = schema;
    m.n_schema = 2;
    m.num_rows = 5;
    m.row_groups = &rg;
    m.n_row_groups = 1;
    m.created_by = "zamboni test";
    footer_at = b.len;
    ZBT_OK_CTX(pq_meta_write(&b, &ctx, &m), &ctx);
    for (i = 0; i < 4; i++)
        len4[i] = (uint8_t)((b.len - footer_at) >> (8 * i));
    ZBT_OK_CTX(zb_buf_append(&b, len4, 4), &ctx);
    ZBT_OK_CTX(zb_buf_append(&b, "PAR1", 4), &ctx);
    snprintf(path, sizeof path, "%s/tiny.parquet", zbt_tmpdir());
    zbt_write_file(path, b.ptr, b.len);
    zb_buf_free(&b);

    /* Read back from disk, as a reader would. */
    read_file(&fb, path);
    ZBT_OK_CTX(pq_meta_parse(&back, a, &ctx, fb.footer, fb.footer_len),
               &ctx);
    snprintf(where, sizeof where, "tiny file");
    meta_eq(&m, &back, "tiny file");
    ZBT_EQ_INT(back.schema[1].field_id, 1);
    ZBT_EQ_STR(back.schema[1].name, "x");
    ZBT_EQ_INT(back.row_groups[0].columns[0].meta_data.data_page_offset, 4);
    ZBT_OK_CTX(pq_page_header_parse(&h, &hl, &ctx, fb.data + 4, fb.len - 4),
               &ctx);
    ZBT_EQ_INT(h.type, PQ_DATA_PAGE);
    ZBT_EQ_INT(h.data.num_values, 5);
    ZBT_EQ_INT(h.data.encoding, PQ_ENC_PLAIN);
    ZBT_EQ_U64(4 + hl + 40, fb.footer - fb.data);
    ZBT_EQ_U64(4 + hl + 40 - 4,
               back.row_groups[0].columns[0].meta_data.total_compressed_size);
    ZBT_CHECK(memcmp(fb.data + 4 + hl, data, 40) == 0);
    zb_free(fb.data);
    zb_arena_free(a);
}

const zbt_case test_parquet_meta_write_files[] = {
    ZBT_CASE(test_parquet_meta_write__every_fixture),
    ZBT_CASE(test_parquet_meta_write__out_of_memory),
    ZBT_CASE(test_parquet_meta_write__tiny_file),
    ZBT_END
};

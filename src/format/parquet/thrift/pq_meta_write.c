/*
 * format/parquet/thrift/pq_meta_write.c - encoding the Parquet footer
 * (FileMetaData) and page headers (see pq_meta_write.h), from
 * parquet.thrift of apache/parquet-format; pq_meta.c decodes the same
 * structs.
 *
 * Functions: pq_meta_write -> file_meta -> {schema_element -> logical_type
 * -> {time_type -> time_unit}, row_group -> column_chunk -> column_meta ->
 * statistics, key_value, column_orders}; pq_page_header_write ->
 * page_header -> {data_page, dict_page, data_page_v2} -> statistics.
 *
 * Each struct is written field by field in ascending id order through
 * pq_thrift_write.c, whose errors are sticky: the encoders here write
 * without checking each call and the result is read once, at the end.
 * The only checks made here are those the encoding needs (a string that
 * is NULL, an array that is NULL with a non-zero count, a union member
 * with no known encoding); they fail with ZB_EINVAL and name the element.
 * Values are otherwise written as given: validating a footer's meaning
 * (the schema tree, counts against sizes) is the reader's job and the
 * writer's caller's.
 *
 * Optional fields follow the has_* flags of pq_meta.h. For the few that
 * pq_meta.h keeps without a flag, absence is a NULL string or the value a
 * reader gets when the field is missing, so parse(write(m)) == m for
 * every footer pq_meta_parse returns.
 */
#define ZB_MODULE "parquet"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/thrift/pq_thrift_write.h"

/* Records ZB_EINVAL "parquet <doc>: <reason>" unless a failure is known. */
static int bad(pq_thrift_writer *w, const char *fmt, ...) ZB_PRINTF(2, 3);

static int bad(pq_thrift_writer *w, const char *fmt, ...)
{
    char reason[200];
    va_list ap;

    if (w->rc < 0)
        return w->rc;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    w->rc = zb_fail(w->ctx, ZB_EINVAL, "parquet footer writer: %s", reason);
    return w->rc;
}

/* ---- LogicalType ------------------------------------------------------ */

/* TimeUnit: a union of empty structs, the member's id is the unit. */
static int time_unit(pq_thrift_writer *w, pq_time_unit unit,
                     const char *name)
{
    if (unit < PQ_UNIT_MILLIS || unit > PQ_UNIT_NANOS)
        return bad(w, "schema element %s: time unit %d", name, (int)unit);
    pq_thrift_put_field_struct_begin(w, 2);
    pq_thrift_put_field_empty_struct(w, (int16_t)unit);
    return pq_thrift_put_struct_end(w);
}

/* TimeType and TimestampType: isAdjustedToUTC, unit. */
static int time_type(pq_thrift_writer *w, const pq_logical *lt,
                     const char *name)
{
    pq_thrift_put_field_bool(w, 1, lt->is_adjusted_to_utc);
    return time_unit(w, lt->unit, name);
}

static int logical_type(pq_thrift_writer *w, const pq_logical *lt,
                        const char *name)
{
    int16_t id = (int16_t)lt->kind;

    switch (lt->kind) {
    case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM:
    case PQ_LT_DATE: case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON:
    case PQ_LT_UUID: case PQ_LT_FLOAT16:
    /* All the fields of these three are optional; the empty struct is
     * the type with its defaults. */
    case PQ_LT_VARIANT: case PQ_LT_GEOMETRY: case PQ_LT_GEOGRAPHY:
        pq_thrift_put_field_struct_begin(w, 10);
        pq_thrift_put_field_empty_struct(w, id);
        return pq_thrift_put_struct_end(w);
    case PQ_LT_DECIMAL:
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
    case PQ_LT_INTEGER:
        break;
    default:
        return bad(w, "schema element %s: logical type member %d", name,
                   (int)lt->kind);
    }
    if (lt->kind == PQ_LT_INTEGER && lt->bit_width != 8 &&
        lt->bit_width != 16 && lt->bit_width != 32 && lt->bit_width != 64)
        return bad(w, "schema element %s: integer bit width %d", name,
                   lt->bit_width);
    pq_thrift_put_field_struct_begin(w, 10);
    pq_thrift_put_field_struct_begin(w, id);
    if (lt->kind == PQ_LT_DECIMAL) {
        pq_thrift_put_field_i32(w, 1, lt->scale);
        pq_thrift_put_field_i32(w, 2, lt->precision);
    } else if (lt->kind == PQ_LT_INTEGER) {
        pq_thrift_put_field_i8(w, 1, (int8_t)lt->bit_width);
        pq_thrift_put_field_bool(w, 2, lt->is_signed);
    } else {
        time_type(w, lt, name);
    }
    pq_thrift_put_struct_end(w);
    return pq_thrift_put_struct_end(w);
}

/* ---- Schema ----------------------------------------------------------- */

static int schema_element(pq_thrift_writer *w, const pq_schema_element *se,
                          size_t index)
{
    if (se->name == NULL)
        return bad(w, "schema element %zu has no name", index);
    pq_thrift_put_struct_begin(w);
    if (se->has_type)
        pq_thrift_put_field_i32(w, 1, (int32_t)se->type);
    /* type_length has no flag: a reader that misses it sees 0. */
    if ((se->has_type && se->type == PQ_FIXED_LEN_BYTE_ARRAY) ||
        se->type_length != 0)
        pq_thrift_put_field_i32(w, 2, se->type_length);
    if (se->has_repetition)
        pq_thrift_put_field_i32(w, 3, (int32_t)se->repetition);
    pq_thrift_put_field_string(w, 4, se->name);
    /* A group (no type) always says how many children it has. */
    if (!se->has_type || se->num_children != 0)
        pq_thrift_put_field_i32(w, 5, se->num_children);
    if (se->has_converted_type)
        pq_thrift_put_field_i32(w, 6, (int32_t)se->converted_type);
    if (se->has_scale)
        pq_thrift_put_field_i32(w, 7, se->scale);
    if (se->has_precision)
        pq_thrift_put_field_i32(w, 8, se->precision);
    if (se->has_field_id)
        pq_thrift_put_field_i32(w, 9, se->field_id);
    if (se->logical.kind != PQ_LT_NONE)
        logical_type(w, &se->logical, se->name);
    return pq_thrift_put_struct_end(w);
}

/* ---- Column chunks ---------------------------------------------------- */

static int bytes_field(pq_thrift_writer *w, int16_t id, const uint8_t *p,
                       size_t len)
{
    if (p == NULL && len > 0)
        return bad(w, "statistics field %d is NULL", (int)id);
    return pq_thrift_put_field_binary(w, id, p, len);
}

/* Writes st as the struct of field id of the enclosing struct. */
static int statistics(pq_thrift_writer *w, int16_t id,
                      const pq_statistics *st)
{
    pq_thrift_put_field_struct_begin(w, id);
    if (st->has_max)
        bytes_field(w, 1, st->max, st->max_len);
    if (st->has_min)
        bytes_field(w, 2, st->min, st->min_len);
    if (st->has_null_count)
        pq_thrift_put_field_i64(w, 3, st->null_count);
    if (st->has_distinct_count)
        pq_thrift_put_field_i64(w, 4, st->distinct_count);
    if (st->has_max_value)
        bytes_field(w, 5, st->max_value, st->max_value_len);
    if (st->has_min_value)
        bytes_field(w, 6, st->min_value, st->min_value_len);
    return pq_thrift_put_struct_end(w);
}

static int column_meta(pq_thrift_writer *w, const pq_column_meta *cm,
                       size_t rg, size_t col)
{
    size_t i;

    if ((cm->encodings == NULL && cm->n_encodings > 0) ||
        (cm->path_in_schema == NULL && cm->path_len > 0))
        return bad(w, "row group %zu column %zu: encodings or path is NULL",
                   rg, col);
    pq_thrift_put_field_struct_begin(w, 3);
    pq_thrift_put_field_i32(w, 1, (int32_t)cm->type);
    pq_thrift_put_field_list_begin(w, 2, PQ_TT_I32, cm->n_encodings);
    for (i = 0; i < cm->n_encodings; i++)
        pq_thrift_put_i32(w, cm->encodings[i]);
    pq_thrift_put_field_list_begin(w, 3, PQ_TT_BINARY, cm->path_len);
    for (i = 0; i < cm->path_len; i++) {
        if (cm->path_in_schema[i] == NULL)
            return bad(w, "row group %zu column %zu: path_in_schema[%zu] "
                          "is NULL", rg, col, i);
        pq_thrift_put_string(w, cm->path_in_schema[i]);
    }
    pq_thrift_put_field_i32(w, 4, cm->codec);
    pq_thrift_put_field_i64(w, 5, cm->num_values);
    pq_thrift_put_field_i64(w, 6, cm->total_uncompressed_size);
    pq_thrift_put_field_i64(w, 7, cm->total_compressed_size);
    pq_thrift_put_field_i64(w, 9, cm->data_page_offset);
    if (cm->has_index_page_offset)
        pq_thrift_put_field_i64(w, 10, cm->index_page_offset);
    if (cm->has_dictionary_page_offset)
        pq_thrift_put_field_i64(w, 11, cm->dictionary_page_offset);
    if (cm->has_statistics)
        statistics(w, 12, &cm->statistics);
    return pq_thrift_put_struct_end(w);
}

static int column_chunk(pq_thrift_writer *w, const pq_column_chunk *cc,
                        size_t rg, size_t col)
{
    pq_thrift_put_struct_begin(w);
    if (cc->file_path != NULL)
        pq_thrift_put_field_string(w, 1, cc->file_path);
    /* Deprecated but required (= 0): readers check that it is there. */
    pq_thrift_put_field_i64(w, 2, cc->file_offset);
    if (cc->has_meta_data)
        column_meta(w, &cc->meta_data, rg, col);
    if (cc->has_offset_index) {
        pq_thrift_put_field_i64(w, 4, cc->offset_index_offset);
        pq_thrift_put_field_i32(w, 5, cc->offset_index_length);
    }
    if (cc->has_column_index) {
        pq_thrift_put_field_i64(w, 6, cc->column_index_offset);
        pq_thrift_put_field_i32(w, 7, cc->column_index_length);
    }
    return pq_thrift_put_struct_end(w);
}

static int row_group(pq_thrift_writer *w, const pq_row_group *rg,
                     size_t index)
{
    size_t i;

    if (rg->columns == NULL && rg->n_columns > 0)
        return bad(w, "row group %zu: columns is NULL", index);
    pq_thrift_put_struct_begin(w);
    pq_thrift_put_field_list_begin(w, 1, PQ_TT_STRUCT, rg->n_columns);
    for (i = 0; i < rg->n_columns; i++)
        column_chunk(w, &rg->columns[i], index, i);
    pq_thrift_put_field_i64(w, 2, rg->total_byte_size);
    pq_thrift_put_field_i64(w, 3, rg->num_rows);
    if (rg->has_file_offset)
        pq_thrift_put_field_i64(w, 5, rg->file_offset);
    if (rg->has_total_compressed_size)
        pq_thrift_put_field_i64(w, 6, rg->total_compressed_size);
    if (rg->has_ordinal)
        pq_thrift_put_field_i16(w, 7, rg->ordinal);
    return pq_thrift_put_struct_end(w);
}

/* ---- FileMetaData ----------------------------------------------------- */

static int key_value(pq_thrift_writer *w, const pq_key_value *kv,
                     size_t index)
{
    if (kv->key == NULL)
        return bad(w, "key_value_metadata[%zu] has no key", index);
    pq_thrift_put_struct_begin(w);
    pq_thrift_put_field_string(w, 1, kv->key);
    if (kv->value != NULL)
        pq_thrift_put_field_string(w, 2, kv->value);
    return pq_thrift_put_struct_end(w);
}

/*
 * ColumnOrder is a union with one entry per leaf, in schema order. Every
 * leaf gets TYPE_ORDER (1: TypeDefinedOrder, an empty struct): the order
 * of its logical type, or its physical type when it has none. Without the
 * list, readers must ignore min_value and max_value.
 */
static int column_orders(pq_thrift_writer *w, const pq_file_meta *m)
{
    size_t i, leaves = 0;

    for (i = 1; i < m->n_schema; i++)
        if (m->schema[i].num_children == 0)
            leaves++;
    if (leaves == 0)
        return pq_thrift_put_rc(w);
    pq_thrift_put_field_list_begin(w, 7, PQ_TT_STRUCT, leaves);
    for (i = 0; i < leaves; i++) {
        pq_thrift_put_struct_begin(w);
        pq_thrift_put_field_empty_struct(w, 1);
        pq_thrift_put_struct_end(w);
    }
    return pq_thrift_put_rc(w);
}

static int file_meta(pq_thrift_writer *w, const pq_file_meta *m)
{
    size_t i;

    if ((m->schema == NULL && m->n_schema > 0) ||
        (m->row_groups == NULL && m->n_row_groups > 0) ||
        (m->key_value == NULL && m->n_key_value > 0))
        return bad(w, "schema, row_groups or key_value is NULL");
    pq_thrift_put_struct_begin(w);
    pq_thrift_put_field_i32(w, 1, m->version);
    pq_thrift_put_field_list_begin(w, 2, PQ_TT_STRUCT, m->n_schema);
    for (i = 0; i < m->n_schema; i++)
        schema_element(w, &m->schema[i], i);
    pq_thrift_put_field_i64(w, 3, m->num_rows);
    pq_thrift_put_field_list_begin(w, 4, PQ_TT_STRUCT, m->n_row_groups);
    for (i = 0; i < m->n_row_groups; i++)
        row_group(w, &m->row_groups[i], i);
    if (m->n_key_value > 0) {
        pq_thrift_put_field_list_begin(w, 5, PQ_TT_STRUCT, m->n_key_value);
        for (i = 0; i < m->n_key_value; i++)
            key_value(w, &m->key_value[i], i);
    }
    if (m->created_by != NULL)
        pq_thrift_put_field_string(w, 6, m->created_by);
    column_orders(w, m);
    return pq_thrift_put_struct_end(w);
}

int pq_meta_write(zb_buf *out, zb_ctx *ctx, const pq_file_meta *meta)
{
    pq_thrift_writer w;
    size_t start;
    int rc;

    ZB_ASSERT_ARG(out && ctx && meta);
    start = out->len;
    pq_thrift_writer_init(&w, out, ctx);
    if ((rc = file_meta(&w, meta)) < 0)
        zb_buf_truncate(out, start);
    return rc;
}

/* ---- Page headers ----------------------------------------------------- */

static int data_page(pq_thrift_writer *w, const pq_page_header *h,
                     const pq_statistics *st)
{
    pq_thrift_put_field_struct_begin(w, 5);
    pq_thrift_put_field_i32(w, 1, h->data.num_values);
    pq_thrift_put_field_i32(w, 2, h->data.encoding);
    pq_thrift_put_field_i32(w, 3, h->data.definition_level_encoding);
    pq_thrift_put_field_i32(w, 4, h->data.repetition_level_encoding);
    if (st)
        statistics(w, 5, st);
    return pq_thrift_put_struct_end(w);
}

static int dict_page(pq_thrift_writer *w, const pq_page_header *h)
{
    pq_thrift_put_field_struct_begin(w, 7);
    pq_thrift_put_field_i32(w, 1, h->dict.num_values);
    pq_thrift_put_field_i32(w, 2, h->dict.encoding);
    /* Optional, and absent reads as "not known to be sorted". */
    if (h->dict.is_sorted)
        pq_thrift_put_field_bool(w, 3, 1);
    return pq_thrift_put_struct_end(w);
}

static int data_page_v2(pq_thrift_writer *w, const pq_page_header *h,
                        const pq_statistics *st)
{
    pq_thrift_put_field_struct_begin(w, 8);
    pq_thrift_put_field_i32(w, 1, h->v2.num_values);
    pq_thrift_put_field_i32(w, 2, h->v2.num_nulls);
    pq_thrift_put_field_i32(w, 3, h->v2.num_rows);
    pq_thrift_put_field_i32(w, 4, h->v2.encoding);
    pq_thrift_put_field_i32(w, 5, h->v2.definition_levels_byte_length);
    pq_thrift_put_field_i32(w, 6, h->v2.repetition_levels_byte_length);
    /* Defaults to true, but say it: some readers ignored the default. */
    pq_thrift_put_field_bool(w, 7, h->v2.is_compressed);
    if (st)
        statistics(w, 8, st);
    return pq_thrift_put_struct_end(w);
}

static int page_header(pq_thrift_writer *w, const pq_page_header *h,
                       const pq_statistics *st)
{
    if ((int)h->type < PQ_DATA_PAGE || (int)h->type > PQ_DATA_PAGE_V2)
        return bad(w, "page type %d", (int)h->type);
    if (h->uncompressed_page_size < 0 || h->compressed_page_size < 0)
        return bad(w, "negative page size");
    if (st && h->type != PQ_DATA_PAGE && h->type != PQ_DATA_PAGE_V2)
        return bad(w, "statistics for a page of type %d", (int)h->type);
    pq_thrift_put_struct_begin(w);
    pq_thrift_put_field_i32(w, 1, (int32_t)h->type);
    pq_thrift_put_field_i32(w, 2, h->uncompressed_page_size);
    pq_thrift_put_field_i32(w, 3, h->compressed_page_size);
    if (h->has_crc)
        pq_thrift_put_field_i32(w, 4, h->crc);
    switch (h->type) {
    case PQ_DATA_PAGE:
        data_page(w, h, st);
        break;
    case PQ_INDEX_PAGE:
        pq_thrift_put_field_empty_struct(w, 6);
        break;
    case PQ_DICTIONARY_PAGE:
        dict_page(w, h);
        break;
    case PQ_DATA_PAGE_V2:
        data_page_v2(w, h, st);
        break;
    }
    return pq_thrift_put_struct_end(w);
}

int pq_page_header_write(zb_buf *out, zb_ctx *ctx, const pq_page_header *h,
                         const pq_statistics *page_stats)
{
    pq_thrift_writer w;
    size_t start;
    int rc;

    ZB_ASSERT_ARG(out && ctx && h);
    start = out->len;
    pq_thrift_writer_init(&w, out, ctx);
    if ((rc = page_header(&w, h, page_stats)) < 0)
        zb_buf_truncate(out, start);
    return rc;
}

/* ---- Page index ------------------------------------------------------- */

static int column_index(pq_thrift_writer *w, const pq_column_index *ci)
{
    size_t i;

    if (ci->n_pages > 0 &&
        (ci->null_pages == NULL || ci->min_values == NULL ||
         ci->min_lens == NULL || ci->max_values == NULL ||
         ci->max_lens == NULL))
        return bad(w, "column index: NULL page arrays");
    if ((int)ci->boundary_order < PQ_BOUNDARY_UNORDERED ||
        (int)ci->boundary_order > PQ_BOUNDARY_DESCENDING)
        return bad(w, "column index: boundary order %d",
                   (int)ci->boundary_order);
    pq_thrift_put_struct_begin(w);
    pq_thrift_put_field_list_begin(w, 1, PQ_TT_TRUE, ci->n_pages);
    for (i = 0; i < ci->n_pages; i++)
        pq_thrift_put_bool_elem(w, ci->null_pages[i] != 0);
    pq_thrift_put_field_list_begin(w, 2, PQ_TT_BINARY, ci->n_pages);
    for (i = 0; i < ci->n_pages; i++)
        pq_thrift_put_binary(w, ci->min_values[i] ? ci->min_values[i]
                                                  : (const uint8_t *)"",
                             ci->min_values[i] ? ci->min_lens[i] : 0);
    pq_thrift_put_field_list_begin(w, 3, PQ_TT_BINARY, ci->n_pages);
    for (i = 0; i < ci->n_pages; i++)
        pq_thrift_put_binary(w, ci->max_values[i] ? ci->max_values[i]
                                                  : (const uint8_t *)"",
                             ci->max_values[i] ? ci->max_lens[i] : 0);
    pq_thrift_put_field_i32(w, 4, (int32_t)ci->boundary_order);
    if (ci->null_counts) {
        pq_thrift_put_field_list_begin(w, 5, PQ_TT_I64, ci->n_pages);
        for (i = 0; i < ci->n_pages; i++)
            pq_thrift_put_i64(w, ci->null_counts[i]);
    }
    return pq_thrift_put_struct_end(w);
}

int pq_column_index_write(zb_buf *out, zb_ctx *ctx,
                          const pq_column_index *ci)
{
    pq_thrift_writer w;
    size_t start;
    int rc;

    ZB_ASSERT_ARG(out && ctx && ci);
    start = out->len;
    pq_thrift_writer_init(&w, out, ctx);
    if ((rc = column_index(&w, ci)) < 0)
        zb_buf_truncate(out, start);
    return rc;
}

int pq_offset_index_write(zb_buf *out, zb_ctx *ctx,
                          const pq_page_location *locs, size_t n)
{
    pq_thrift_writer w;
    size_t start, i;
    int rc;

    ZB_ASSERT_ARG(out && ctx && (locs || n == 0));
    start = out->len;
    pq_thrift_writer_init(&w, out, ctx);
    pq_thrift_put_struct_begin(&w);
    pq_thrift_put_field_list_begin(&w, 1, PQ_TT_STRUCT, n);
    for (i = 0; i < n; i++) {
        pq_thrift_put_struct_begin(&w);
        pq_thrift_put_field_i64(&w, 1, locs[i].offset);
        pq_thrift_put_field_i32(&w, 2, locs[i].compressed_page_size);
        pq_thrift_put_field_i64(&w, 3, locs[i].first_row_index);
        pq_thrift_put_struct_end(&w);
    }
    if ((rc = pq_thrift_put_struct_end(&w)) < 0)
        zb_buf_truncate(out, start);
    return rc;
}

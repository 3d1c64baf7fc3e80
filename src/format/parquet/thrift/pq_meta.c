/*
 * format/parquet/thrift/pq_meta.c - decoding the Parquet footer (FileMetaData)
 * (see pq_meta.h), from parquet.thrift of apache/parquet-format; the page
 * headers are in pq_page_header.c, with the field readers of pq_meta_int.h.
 *
 * Functions: pq_meta_parse -> file_meta -> {schema_element -> logical
 * (pq_logical_type.c),
 * row_group -> column_chunk -> column_meta -> statistics, key_value}, then
 * check_schema.
 *
 * Each struct decoder is one loop over the field headers of pq_thrift.c: a
 * field whose id it knows is read with a reader that checks the wire type,
 * any other field is skipped whatever it holds (column_orders, encryption,
 * encoding_stats, size_statistics, bloom filter offsets, page statistics,
 * and fields added to the format later). Known fields set a bit in a
 * `seen` mask, and the struct's required fields are checked against it at
 * its stop byte, so a missing one is reported by name and by the offset
 * where the struct starts.
 *
 * Values a reader would index or size with are checked here once: enums
 * are in range, counts and sizes are not negative, the schema's child
 * counts describe one tree, and each row group has one column chunk per
 * leaf. Strings and byte strings are copied into the arena (lists are
 * allocated only after pq_thrift has checked their count against the bytes
 * left), so the result does not borrow the input.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_meta_int.h"
#include "format/parquet/thrift/pq_thrift.h"

int pq_meta__next(pq_thrift *t, pq_thrift_field *f, int16_t *last,
                  const char *what)
{
    int rc = pq_thrift_field_next(t, f, last, what);

    return rc < 0 ? rc : f->type != PQ_TT_STOP;
}

int pq_meta__require(pq_thrift *t, size_t start, const char *what,
                     uint32_t seen, uint32_t need_mask,
                     const char *const *names)
{
    unsigned id;

    for (id = 0; id < 32; id++)
        if ((need_mask & BIT(id)) && !(seen & BIT(id)))
            return pq_thrift_fail(t, start, what,
                                  "required field %s (%u) is missing",
                                  names[id] ? names[id] : "?", id);
    return ZB_OK;
}

static int oom(pq_thrift *t)
{
    return zb_fail_oom(t->ctx);
}

int pq_meta__enum_field(pq_thrift *t, const pq_thrift_field *f,
                        int32_t max, int32_t *out, const char *what)
{
    size_t start = t->pos;
    int rc;

    if ((rc = pq_thrift_field_i32(t, f, out, what)) < 0)
        return rc;
    if (*out < 0 || *out > max)
        return pq_thrift_fail(t, start, what, "value %d is out of range",
                              (int)*out);
    return ZB_OK;
}

int pq_meta__nonneg_i32(pq_thrift *t, const pq_thrift_field *f,
                        int32_t *out, const char *what)
{
    size_t start = t->pos;
    int rc;

    if ((rc = pq_thrift_field_i32(t, f, out, what)) < 0)
        return rc;
    if (*out < 0)
        return pq_thrift_fail(t, start, what, "negative value %d", (int)*out);
    return ZB_OK;
}

static int nonneg_i64(pq_thrift *t, const pq_thrift_field *f, int64_t *out,
                      const char *what)
{
    size_t start = t->pos;
    int rc;

    if ((rc = pq_thrift_field_i64(t, f, out, what)) < 0)
        return rc;
    if (*out < 0)
        return pq_thrift_fail(t, start, what, "negative value %lld",
                              (long long)*out);
    return ZB_OK;
}

/* A byte string copied into the arena, NUL-terminated (not counted). */
static int copy_bytes(pq_thrift *t, zb_arena *a, const uint8_t **out,
                      size_t *out_len, const uint8_t *data, size_t len)
{
    uint8_t *p = zb_arena_alloc(a, len + 1);

    if (p == NULL)
        return oom(t);
    if (len)
        memcpy(p, data, len);
    p[len] = 0;
    *out = p;
    if (out_len)
        *out_len = len;
    return ZB_OK;
}

static int string_field(pq_thrift *t, zb_arena *a, const pq_thrift_field *f,
                        const char **out, const char *what)
{
    const uint8_t *data = NULL, *copy = NULL;
    size_t len;
    int rc;

    if ((rc = pq_thrift_field_binary(t, f, &data, &len, what)) < 0 ||
        (rc = copy_bytes(t, a, &copy, NULL, data, len)) < 0)
        return rc;
    *out = (const char *)copy;
    return ZB_OK;
}

static int bytes_field(pq_thrift *t, zb_arena *a, const pq_thrift_field *f,
                       const uint8_t **out, size_t *out_len, const char *what)
{
    const uint8_t *data = NULL;
    size_t len = 0;
    int rc;

    if ((rc = pq_thrift_field_binary(t, f, &data, &len, what)) < 0)
        return rc;
    return copy_bytes(t, a, out, out_len, data, len);
}

/* ---- Schema ----------------------------------------------------------- */

static int schema_element(pq_thrift *t, zb_arena *a, pq_schema_element *se)
{
    static const char *const names[] = { NULL, NULL, NULL, NULL, "name" };
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int32_t v = 0;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "SchemaElement")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "SchemaElement")) > 0) {
        switch (f.id) {
        case 1:
            rc = pq_meta__enum_field(t, &f, PQ_FIXED_LEN_BYTE_ARRAY, &v,
                            "SchemaElement.type");
            se->type = (pq_type)v;
            se->has_type = 1;
            break;
        case 2:
            rc = pq_thrift_field_i32(t, &f, &se->type_length,
                                     "SchemaElement.type_length");
            break;
        case 3:
            rc = pq_meta__enum_field(t, &f, PQ_REPEATED, &v,
                            "SchemaElement.repetition_type");
            se->repetition = (pq_repetition)v;
            se->has_repetition = 1;
            break;
        case 4:
            rc = string_field(t, a, &f, &se->name, "SchemaElement.name");
            break;
        case 5:
            rc = pq_meta__nonneg_i32(t, &f, &se->num_children,
                            "SchemaElement.num_children");
            break;
        case 6:
            rc = pq_meta__enum_field(t, &f, PQ_CT_INTERVAL, &v,
                            "SchemaElement.converted_type");
            se->converted_type = (pq_converted)v;
            se->has_converted_type = 1;
            break;
        case 7:
            rc = pq_thrift_field_i32(t, &f, &se->scale,
                                     "SchemaElement.scale");
            se->has_scale = 1;
            break;
        case 8:
            rc = pq_thrift_field_i32(t, &f, &se->precision,
                                     "SchemaElement.precision");
            se->has_precision = 1;
            break;
        case 9:
            rc = pq_thrift_field_i32(t, &f, &se->field_id,
                                     "SchemaElement.field_id");
            se->has_field_id = 1;
            break;
        case 10:
            if ((rc = pq_thrift_field_struct(t, &f,
                                             "SchemaElement.logicalType")) ==
                ZB_OK)
                rc = pq_meta__logical_type(t, &se->logical);
            break;
        default:
            rc = pq_thrift_skip_field(t, &f, "SchemaElement");
            break;
        }
        if (rc < 0)
            return rc;
        if (f.id > 0 && f.id < 32)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "SchemaElement", seen, BIT(4), names);
}

/* ---- Column chunks ---------------------------------------------------- */

static int statistics(pq_thrift *t, zb_arena *a, pq_statistics *st)
{
    pq_thrift_field f;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "Statistics")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "Statistics")) > 0) {
        switch (f.id) {
        case 1:
            rc = bytes_field(t, a, &f, &st->max, &st->max_len,
                             "Statistics.max");
            st->has_max = 1;
            break;
        case 2:
            rc = bytes_field(t, a, &f, &st->min, &st->min_len,
                             "Statistics.min");
            st->has_min = 1;
            break;
        case 3:
            rc = pq_thrift_field_i64(t, &f, &st->null_count,
                                     "Statistics.null_count");
            st->has_null_count = 1;
            break;
        case 4:
            rc = pq_thrift_field_i64(t, &f, &st->distinct_count,
                                     "Statistics.distinct_count");
            st->has_distinct_count = 1;
            break;
        case 5:
            rc = bytes_field(t, a, &f, &st->max_value, &st->max_value_len,
                             "Statistics.max_value");
            st->has_max_value = 1;
            break;
        case 6:
            rc = bytes_field(t, a, &f, &st->min_value, &st->min_value_len,
                             "Statistics.min_value");
            st->has_min_value = 1;
            break;
        default:
            rc = pq_thrift_skip_field(t, &f, "Statistics");
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return ZB_OK;
}

static int encodings(pq_thrift *t, zb_arena *a, const pq_thrift_field *f,
                     pq_column_meta *cm)
{
    const char *what = "ColumnMetaData.encodings";
    size_t i, n;
    int rc;

    if ((rc = pq_thrift_field_list(t, f, PQ_TT_I32, &n, what)) < 0)
        return rc;
    if ((cm->encodings = zb_arena_calloc(a, n, sizeof(int32_t))) == NULL)
        return oom(t);
    for (i = 0; i < n; i++)
        if ((rc = pq_thrift_i32(t, &cm->encodings[i], what)) < 0)
            return rc;
    cm->n_encodings = n;
    pq_thrift_container_end(t);
    return ZB_OK;
}

static int path_in_schema(pq_thrift *t, zb_arena *a,
                          const pq_thrift_field *f, pq_column_meta *cm)
{
    const char *what = "ColumnMetaData.path_in_schema";
    const uint8_t *data = NULL, *copy = NULL;
    size_t i, n, len;
    int rc;

    if ((rc = pq_thrift_field_list(t, f, PQ_TT_BINARY, &n, what)) < 0)
        return rc;
    if ((cm->path_in_schema = zb_arena_calloc(a, n, sizeof(char *))) == NULL)
        return oom(t);
    for (i = 0; i < n; i++) {
        if ((rc = pq_thrift_binary(t, &data, &len, what)) < 0 ||
            (rc = copy_bytes(t, a, &copy, NULL, data, len)) < 0)
            return rc;
        cm->path_in_schema[i] = (const char *)copy;
    }
    cm->path_len = n;
    pq_thrift_container_end(t);
    return ZB_OK;
}

static int column_meta(pq_thrift *t, zb_arena *a, pq_column_meta *cm)
{
    static const char *const names[] = {
        NULL, "type", "encodings", "path_in_schema", "codec", "num_values",
        "total_uncompressed_size", "total_compressed_size", NULL,
        "data_page_offset"
    };
    const uint32_t need = BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) |
                          BIT(6) | BIT(7) | BIT(9);
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int32_t v = 0;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "ColumnMetaData")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "ColumnMetaData")) > 0) {
        switch (f.id) {
        case 1:
            rc = pq_meta__enum_field(t, &f, PQ_FIXED_LEN_BYTE_ARRAY, &v,
                            "ColumnMetaData.type");
            cm->type = (pq_type)v;
            break;
        case 2:
            rc = encodings(t, a, &f, cm);
            break;
        case 3:
            rc = path_in_schema(t, a, &f, cm);
            break;
        case 4:
            rc = pq_meta__nonneg_i32(t, &f, &cm->codec, "ColumnMetaData.codec");
            break;
        case 5:
            rc = nonneg_i64(t, &f, &cm->num_values,
                            "ColumnMetaData.num_values");
            break;
        case 6:
            rc = nonneg_i64(t, &f, &cm->total_uncompressed_size,
                            "ColumnMetaData.total_uncompressed_size");
            break;
        case 7:
            rc = nonneg_i64(t, &f, &cm->total_compressed_size,
                            "ColumnMetaData.total_compressed_size");
            break;
        case 9:
            rc = nonneg_i64(t, &f, &cm->data_page_offset,
                            "ColumnMetaData.data_page_offset");
            break;
        case 10:
            rc = pq_thrift_field_i64(t, &f, &cm->index_page_offset,
                                     "ColumnMetaData.index_page_offset");
            cm->has_index_page_offset = 1;
            break;
        case 11:
            rc = pq_thrift_field_i64(t, &f, &cm->dictionary_page_offset,
                                     "ColumnMetaData.dictionary_page_offset");
            cm->has_dictionary_page_offset = 1;
            break;
        case 12:
            if ((rc = pq_thrift_field_struct(t, &f,
                                             "ColumnMetaData.statistics")) ==
                ZB_OK)
                rc = statistics(t, a, &cm->statistics);
            cm->has_statistics = 1;
            break;
        default:
            /* key_value_metadata, encoding_stats, bloom filter, sizes */
            rc = pq_thrift_skip_field(t, &f, "ColumnMetaData");
            break;
        }
        if (rc < 0)
            return rc;
        if (f.id > 0 && f.id < 32)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "ColumnMetaData", seen, need, names);
}

static int column_chunk(pq_thrift *t, zb_arena *a, pq_column_chunk *cc)
{
    pq_thrift_field f;
    int16_t last;
    int rc;

    /* file_offset is "required ... = 0" and deprecated: absent means 0. */
    if ((rc = pq_thrift_struct_begin(t, &last, "ColumnChunk")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "ColumnChunk")) > 0) {
        switch (f.id) {
        case 1:
            rc = string_field(t, a, &f, &cc->file_path,
                              "ColumnChunk.file_path");
            break;
        case 2:
            rc = pq_thrift_field_i64(t, &f, &cc->file_offset,
                                     "ColumnChunk.file_offset");
            break;
        case 3:
            if ((rc = pq_thrift_field_struct(t, &f,
                                             "ColumnChunk.meta_data")) ==
                ZB_OK)
                rc = column_meta(t, a, &cc->meta_data);
            cc->has_meta_data = 1;
            break;
        case 4:
            rc = nonneg_i64(t, &f, &cc->offset_index_offset,
                            "ColumnChunk.offset_index_offset");
            cc->has_offset_index = 1;
            break;
        case 5:
            rc = pq_meta__nonneg_i32(t, &f, &cc->offset_index_length,
                            "ColumnChunk.offset_index_length");
            break;
        case 6:
            rc = nonneg_i64(t, &f, &cc->column_index_offset,
                            "ColumnChunk.column_index_offset");
            cc->has_column_index = 1;
            break;
        case 7:
            rc = pq_meta__nonneg_i32(t, &f, &cc->column_index_length,
                            "ColumnChunk.column_index_length");
            break;
        default:
            /* crypto_metadata, encrypted_column_metadata */
            rc = pq_thrift_skip_field(t, &f, "ColumnChunk");
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return ZB_OK;
}

static int row_group(pq_thrift *t, zb_arena *a, pq_row_group *rg)
{
    static const char *const names[] = {
        NULL, "columns", "total_byte_size", "num_rows"
    };
    size_t start = t->pos, i, n;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "RowGroup")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "RowGroup")) > 0) {
        switch (f.id) {
        case 1:
            if ((rc = pq_thrift_field_list(t, &f, PQ_TT_STRUCT, &n,
                                           "RowGroup.columns")) < 0)
                return rc;
            if ((rg->columns = zb_arena_calloc(a, n, sizeof *rg->columns)) ==
                NULL)
                return oom(t);
            rg->n_columns = n;
            for (i = 0; i < n && rc == ZB_OK; i++)
                rc = column_chunk(t, a, &rg->columns[i]);
            pq_thrift_container_end(t);
            break;
        case 2:
            rc = pq_thrift_field_i64(t, &f, &rg->total_byte_size,
                                     "RowGroup.total_byte_size");
            break;
        case 3:
            rc = nonneg_i64(t, &f, &rg->num_rows, "RowGroup.num_rows");
            break;
        case 5:
            rc = pq_thrift_field_i64(t, &f, &rg->file_offset,
                                     "RowGroup.file_offset");
            rg->has_file_offset = 1;
            break;
        case 6:
            rc = pq_thrift_field_i64(t, &f, &rg->total_compressed_size,
                                     "RowGroup.total_compressed_size");
            rg->has_total_compressed_size = 1;
            break;
        case 7:
            rc = pq_thrift_field_i16(t, &f, &rg->ordinal,
                                     "RowGroup.ordinal");
            rg->has_ordinal = 1;
            break;
        default:
            /* sorting_columns */
            rc = pq_thrift_skip_field(t, &f, "RowGroup");
            break;
        }
        if (rc < 0)
            return rc;
        if (f.id > 0 && f.id < 32)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "RowGroup", seen, BIT(1) | BIT(2) | BIT(3),
                   names);
}

/* ---- FileMetaData ----------------------------------------------------- */

static int key_value(pq_thrift *t, zb_arena *a, pq_key_value *kv)
{
    static const char *const names[] = { NULL, "key" };
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "KeyValue")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "KeyValue")) > 0) {
        if (f.id == 1)
            rc = string_field(t, a, &f, &kv->key, "KeyValue.key");
        else if (f.id == 2)
            rc = string_field(t, a, &f, &kv->value, "KeyValue.value");
        else
            rc = pq_thrift_skip_field(t, &f, "KeyValue");
        if (rc < 0)
            return rc;
        if (f.id == 1)
            seen |= BIT(1);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "KeyValue", seen, BIT(1), names);
}

/* Allocates *out of n elements of size each and decodes them with fn. */
typedef int (*elem_fn)(pq_thrift *t, zb_arena *a, void *elem);

static int struct_list(pq_thrift *t, zb_arena *a, const pq_thrift_field *f,
                       void **out, size_t *n_out, size_t size, elem_fn fn,
                       const char *what)
{
    unsigned char *elems;
    size_t i, n;
    int rc;

    if ((rc = pq_thrift_field_list(t, f, PQ_TT_STRUCT, &n, what)) < 0)
        return rc;
    if ((elems = zb_arena_calloc(a, n, size)) == NULL)
        return oom(t);
    for (i = 0; i < n; i++)
        if ((rc = fn(t, a, elems + i * size)) < 0)
            return rc;
    pq_thrift_container_end(t);
    *out = elems;
    *n_out = n;
    return ZB_OK;
}

static int schema_elem_fn(pq_thrift *t, zb_arena *a, void *e)
{
    return schema_element(t, a, e);
}

static int row_group_fn(pq_thrift *t, zb_arena *a, void *e)
{
    return row_group(t, a, e);
}

static int key_value_fn(pq_thrift *t, zb_arena *a, void *e)
{
    return key_value(t, a, e);
}

/*
 * The schema is a tree flattened depth first: walking it, `open` counts
 * the child slots announced and not yet filled. It must stay positive
 * before each element and end at zero. Each leaf must have a type, and
 * each row group one column chunk per leaf, in the same order.
 */
static int check_schema(pq_thrift *t, const pq_file_meta *m)
{
    uint64_t open = 1, leaves = 0;
    size_t i;

    if (m->n_schema == 0)
        return pq_thrift_fail(t, 0, "FileMetaData.schema", "schema is empty");
    for (i = 0; i < m->n_schema; i++) {
        const pq_schema_element *se = &m->schema[i];

        if (open == 0)
            return pq_thrift_fail(t, 0, "FileMetaData.schema",
                                  "element %zu is outside the tree", i);
        open = open - 1 + (uint64_t)se->num_children;
        if (i > 0 && se->num_children == 0) {
            if (!se->has_type)
                return pq_thrift_fail(t, 0, "FileMetaData.schema",
                                      "leaf %zu (%s) has no type", i,
                                      se->name);
            leaves++;
        }
    }
    if (open != 0)
        return pq_thrift_fail(t, 0, "FileMetaData.schema",
                              "%llu children announced but missing",
                              (unsigned long long)open);
    for (i = 0; i < m->n_row_groups; i++)
        if (m->row_groups[i].n_columns != leaves)
            return pq_thrift_fail(t, 0, "RowGroup.columns",
                                  "row group %zu has %zu columns, the schema "
                                  "%llu leaves",
                                  i, m->row_groups[i].n_columns,
                                  (unsigned long long)leaves);
    return ZB_OK;
}

static int file_meta(pq_thrift *t, zb_arena *a, pq_file_meta *m)
{
    static const char *const names[] = {
        NULL, "version", "schema", "num_rows", "row_groups"
    };
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    void *p = NULL;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "FileMetaData")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "FileMetaData")) > 0) {
        switch (f.id) {
        case 1:
            rc = pq_thrift_field_i32(t, &f, &m->version,
                                     "FileMetaData.version");
            break;
        case 2:
            rc = struct_list(t, a, &f, &p, &m->n_schema,
                             sizeof *m->schema, schema_elem_fn,
                             "FileMetaData.schema");
            if (rc == ZB_OK)
                m->schema = p;
            break;
        case 3:
            rc = nonneg_i64(t, &f, &m->num_rows, "FileMetaData.num_rows");
            break;
        case 4:
            rc = struct_list(t, a, &f, &p, &m->n_row_groups,
                             sizeof *m->row_groups, row_group_fn,
                             "FileMetaData.row_groups");
            if (rc == ZB_OK)
                m->row_groups = p;
            break;
        case 5:
            rc = struct_list(t, a, &f, &p, &m->n_key_value,
                             sizeof *m->key_value, key_value_fn,
                             "FileMetaData.key_value_metadata");
            if (rc == ZB_OK)
                m->key_value = p;
            break;
        case 6:
            rc = string_field(t, a, &f, &m->created_by,
                              "FileMetaData.created_by");
            break;
        default:
            /* column_orders, encryption_algorithm, signing key */
            rc = pq_thrift_skip_field(t, &f, "FileMetaData");
            break;
        }
        if (rc < 0)
            return rc;
        if (f.id > 0 && f.id < 32)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    if ((rc = pq_meta__require(t, 0, "FileMetaData", seen,
                      BIT(1) | BIT(2) | BIT(3) | BIT(4), names)) < 0)
        return rc;
    return check_schema(t, m);
}

int pq_meta_parse(pq_file_meta *out, zb_arena *arena, zb_ctx *ctx,
                  const uint8_t *buf, size_t len)
{
    pq_file_meta m;
    pq_thrift t;
    int rc;

    ZB_ASSERT_ARG(out && arena && ctx && (buf || len == 0));
    memset(out, 0, sizeof *out);
    memset(&m, 0, sizeof m);
    pq_thrift_init(&t, ctx, "footer", buf, len);
    if ((rc = file_meta(&t, arena, &m)) < 0)
        return rc;
    *out = m;
    return ZB_OK;
}

/*
 * format/parquet/thrift/pq_page_header.c - decoding page headers (see
 * pq_meta.h): pq_page_header_parse -> {data_page, dict_page, data_page_v2},
 * with the field readers the footer decoder uses (pq_meta_int.h). It
 * allocates nothing.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_meta_int.h"
#include "format/parquet/thrift/pq_thrift.h"

/* ---- Page headers ----------------------------------------------------- */

/*
 * The three page kinds' headers: fields 1..n are required non-negative
 * i32s (counts, sizes, encodings), field bool_id (if any) an optional
 * bool, and the rest (statistics) skipped.
 */
typedef struct sub_header {
    const char *name;
    int n;
    const char *const *fields;     /* [1..n] */
    int bool_id;
} sub_header;

static const char *const data_fields[] = {
    NULL, "DataPageHeader.num_values", "DataPageHeader.encoding",
    "DataPageHeader.definition_level_encoding",
    "DataPageHeader.repetition_level_encoding"
};
static const char *const dict_fields[] = {
    NULL, "DictionaryPageHeader.num_values", "DictionaryPageHeader.encoding",
    "DictionaryPageHeader.is_sorted"
};
static const char *const v2_fields[] = {
    NULL, "DataPageHeaderV2.num_values", "DataPageHeaderV2.num_nulls",
    "DataPageHeaderV2.num_rows", "DataPageHeaderV2.encoding",
    "DataPageHeaderV2.definition_levels_byte_length",
    "DataPageHeaderV2.repetition_levels_byte_length",
    "DataPageHeaderV2.is_compressed"
};
static const sub_header data_header = { "DataPageHeader", 4, data_fields, 0 };
static const sub_header dict_header = { "DictionaryPageHeader", 2,
                                        dict_fields, 3 };
static const sub_header v2_header = { "DataPageHeaderV2", 6, v2_fields, 7 };

static int sub_page(pq_thrift *t, const sub_header *sh, int32_t *const *dest,
                    int *flag)
{
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, sh->name)) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, sh->name)) > 0) {
        if (f.id >= 1 && f.id <= sh->n) {
            rc = pq_meta__nonneg_i32(t, &f, dest[f.id], sh->fields[f.id]);
            seen |= BIT(f.id);
        } else if (sh->bool_id && f.id == sh->bool_id) {
            rc = pq_thrift_field_bool(t, &f, flag, sh->fields[f.id]);
        } else {
            rc = pq_thrift_skip_field(t, &f, sh->name);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    if (seen != (BIT(sh->n + 1) - 2u)) {
        int id = 1;

        while (seen & BIT(id))
            id++;
        return pq_thrift_fail(t, start, sh->name,
                              "required field %s (%d) is missing",
                              strchr(sh->fields[id], '.') + 1, id);
    }
    return ZB_OK;
}

static int data_page(pq_thrift *t, pq_page_header *h)
{
    int32_t *const dest[] = {
        NULL, &h->data.num_values, &h->data.encoding,
        &h->data.definition_level_encoding,
        &h->data.repetition_level_encoding
    };

    return sub_page(t, &data_header, dest, NULL);
}

static int dict_page(pq_thrift *t, pq_page_header *h)
{
    int32_t *const dest[] = { NULL, &h->dict.num_values, &h->dict.encoding };

    return sub_page(t, &dict_header, dest, &h->dict.is_sorted);
}

static int data_page_v2(pq_thrift *t, pq_page_header *h)
{
    int32_t *const dest[] = {
        NULL, &h->v2.num_values, &h->v2.num_nulls, &h->v2.num_rows,
        &h->v2.encoding, &h->v2.definition_levels_byte_length,
        &h->v2.repetition_levels_byte_length
    };

    h->v2.is_compressed = 1;
    return sub_page(t, &v2_header, dest, &h->v2.is_compressed);
}

static int page_header(pq_thrift *t, pq_page_header *h)
{
    static const char *const names[] = {
        NULL, "type", "uncompressed_page_size", "compressed_page_size"
    };
    static const char *const sub[] = {
        "data_page_header", NULL, "dictionary_page_header",
        "data_page_header_v2"
    };
    static const unsigned sub_id[] = { 5, 6, 7, 8 };
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int32_t v = 0;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "PageHeader")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "PageHeader")) > 0) {
        switch (f.id) {
        case 1:
            rc = pq_meta__enum_field(t, &f, PQ_DATA_PAGE_V2, &v, "PageHeader.type");
            h->type = (pq_page_type)v;
            break;
        case 2:
            rc = pq_meta__nonneg_i32(t, &f, &h->uncompressed_page_size,
                            "PageHeader.uncompressed_page_size");
            break;
        case 3:
            rc = pq_meta__nonneg_i32(t, &f, &h->compressed_page_size,
                            "PageHeader.compressed_page_size");
            break;
        case 4:
            rc = pq_thrift_field_i32(t, &f, &h->crc, "PageHeader.crc");
            h->has_crc = 1;
            break;
        case 5:
            if ((rc = pq_thrift_field_struct(
                     t, &f, "PageHeader.data_page_header")) == ZB_OK)
                rc = data_page(t, h);
            break;
        case 7:
            if ((rc = pq_thrift_field_struct(
                     t, &f, "PageHeader.dictionary_page_header")) == ZB_OK)
                rc = dict_page(t, h);
            break;
        case 8:
            if ((rc = pq_thrift_field_struct(
                     t, &f, "PageHeader.data_page_header_v2")) == ZB_OK)
                rc = data_page_v2(t, h);
            break;
        default:
            /* index_page_header (empty), later additions */
            rc = pq_thrift_skip_field(t, &f, "PageHeader");
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
    if ((rc = pq_meta__require(t, 0, "PageHeader", seen, BIT(1) | BIT(2) | BIT(3),
                      names)) < 0)
        return rc;
    if (sub[h->type] && !(seen & BIT(sub_id[h->type])))
        return pq_thrift_fail(t, 0, "PageHeader",
                              "page of type %d has no %s", (int)h->type,
                              sub[h->type]);
    if (h->type == PQ_DATA_PAGE_V2 &&
        (int64_t)h->v2.definition_levels_byte_length +
                h->v2.repetition_levels_byte_length >
            h->compressed_page_size)
        return pq_thrift_fail(t, 0, "DataPageHeaderV2",
                              "level bytes exceed the page's %d bytes",
                              (int)h->compressed_page_size);
    return ZB_OK;
}

int pq_page_header_parse(pq_page_header *out, size_t *header_len,
                         zb_ctx *ctx, const uint8_t *buf, size_t len)
{
    pq_page_header h;
    pq_thrift t;
    int rc;

    ZB_ASSERT_ARG(out && header_len && ctx && (buf || len == 0));
    memset(out, 0, sizeof *out);
    *header_len = 0;
    memset(&h, 0, sizeof h);
    pq_thrift_init(&t, ctx, "page header", buf, len);
    if ((rc = page_header(&t, &h)) < 0)
        return rc;
    *out = h;
    *header_len = t.pos;
    return ZB_OK;
}

/*
 * format/parquet/write/pq_writer_copy.c - row-group copy (see parquet_write.h).
 *
 * When a compaction merges files whose schemas match, their row groups
 * can be appended to the output as they are: each column chunk's bytes
 * (dictionary page, data pages, compressed) are read and written again
 * unchanged, and only the footer's view of them moves. The chunk's page
 * offsets shift by the distance the chunk moved; statistics, encodings
 * and counts stay; column and offset indexes, which point at the old
 * file, are dropped, and a writer with page_index on writes none for
 * copied chunks (only for the row groups it encodes itself). One chunk
 * is in memory at a time.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/parquet.h"
#include "format/parquet/write/pq_writer_int.h"
#include "util/alloc.h"

/* Logical annotations agree, or one side states its type only through
 * the legacy converted type (the writer's side was derived from it). */
static int same_logical(const pq_logical *a, const pq_logical *b)
{
    if (a->kind == PQ_LT_NONE || b->kind == PQ_LT_NONE)
        return 1;
    return a->kind == b->kind && a->scale == b->scale &&
           a->precision == b->precision && a->unit == b->unit &&
           a->is_adjusted_to_utc == b->is_adjusted_to_utc &&
           a->bit_width == b->bit_width && a->is_signed == b->is_signed;
}

static int same_element(const pq_schema_element *a,
                        const pq_schema_element *b, int is_root)
{
    return a->has_type == b->has_type &&
           (!a->has_type || (a->type == b->type &&
                             (a->type != PQ_FIXED_LEN_BYTE_ARRAY ||
                              a->type_length == b->type_length))) &&
           (is_root || (a->has_repetition ? a->repetition : PQ_REQUIRED) ==
                           (b->has_repetition ? b->repetition : PQ_REQUIRED)) &&
           a->num_children == b->num_children &&
           a->has_field_id == b->has_field_id &&
           (!a->has_field_id || a->field_id == b->field_id) &&
           same_logical(&a->logical, &b->logical);
}

static int check_schema(pq_writer *w, zb_ctx *ctx, const pq_file_meta *m)
{
    size_t i;

    if (m->n_schema != w->schema.n_elements)
        return zb_fail(ctx, ZB_EINVAL, "row-group copy: the source has %zu "
                       "schema elements, the output %zu", m->n_schema,
                       w->schema.n_elements);
    for (i = 0; i < m->n_schema; i++)
        if (!same_element(&m->schema[i], &w->schema.elements[i], i == 0))
            return zb_fail(ctx, ZB_EINVAL, "row-group copy: schema element "
                           "%zu (%s) differs from the output's (%s)", i,
                           m->schema[i].name ? m->schema[i].name : "",
                           w->schema.elements[i].name);
    return ZB_OK;
}

static const uint8_t *keep_bytes(pq_writer *w, const uint8_t *p, size_t n)
{
    uint8_t *q;

    if (p == NULL)
        return NULL;
    if ((q = zb_arena_alloc(w->arena, n ? n : 1)) != NULL && n)
        memcpy(q, p, n);
    return q;
}

/* Copies what the footer says of a chunk, moved by delta bytes. */
static int copy_meta(pq_writer *w, zb_ctx *ctx, const leaf *l,
                     pq_column_chunk *dst, const pq_column_chunk *src,
                     int64_t delta)
{
    const pq_column_meta *s = &src->meta_data;
    pq_column_meta *d = &dst->meta_data;
    pq_statistics *st = &d->statistics;

    memset(dst, 0, sizeof *dst);
    dst->has_meta_data = 1;
    *d = *s;
    d->has_index_page_offset = 0;
    d->data_page_offset += delta;
    if (d->has_dictionary_page_offset && d->dictionary_page_offset > 0)
        d->dictionary_page_offset += delta;
    else
        d->has_dictionary_page_offset = 0;
    if ((d->encodings = zb_arena_calloc(w->arena, s->n_encodings + 1,
                                        sizeof(int32_t))) == NULL)
        return zb_fail_oom(ctx);
    if (s->n_encodings)
        memcpy(d->encodings, s->encodings, s->n_encodings * sizeof(int32_t));
    st->max = keep_bytes(w, s->statistics.max, s->statistics.max_len);
    st->min = keep_bytes(w, s->statistics.min, s->statistics.min_len);
    st->max_value = keep_bytes(w, s->statistics.max_value,
                               s->statistics.max_value_len);
    st->min_value = keep_bytes(w, s->statistics.min_value,
                               s->statistics.min_value_len);
    return pq_writer__set_path(w, ctx, l, d);
}

int pq_writer_copy_row_groups(pq_writer *w, zb_ctx *ctx, pq_reader *src)
{
    const pq_file_meta *m = pq_reader_meta(src);
    size_t rg, c;
    int rc;

    ZB_ASSERT_ARG(w && ctx && src);
    if ((rc = check_schema(w, ctx, m)) < 0 ||
        (rc = pq_writer__flush_row_group(w, ctx)) < 0)
        return zb_err_prefix(ctx, "%s", w->uri);
    for (rg = 0; rg < m->n_row_groups; rg++) {
        const pq_row_group *sg = &m->row_groups[rg];
        pq_row_group *g;

        if (sg->num_rows == 0)
            continue;
        if ((g = pq_writer__new_row_group(w, ctx)) == NULL)
            return ZB_ENOMEM;
        g->n_columns = w->schema.n_leaves;
        if ((g->columns = zb_arena_calloc(w->arena, g->n_columns + 1,
                                          sizeof *g->columns)) == NULL)
            return zb_fail_oom(ctx);
        g->num_rows = sg->num_rows;
        g->has_file_offset = 1;
        g->file_offset = (int64_t)w->file_pos;
        g->has_total_compressed_size = 1;
        g->has_ordinal = 1;
        g->ordinal = (int16_t)w->n_groups;
        for (c = 0; c < w->schema.n_leaves; c++) {
            uint8_t *bytes = NULL;
            uint64_t start, len;
            int64_t delta;

            if ((rc = pq_reader_read_chunk(src, ctx, rg, c, &bytes, &start,
                                           &len)) < 0)
                return rc;
            delta = (int64_t)w->file_pos - (int64_t)start;
            rc = copy_meta(w, ctx, &w->leaves[c], &g->columns[c],
                           &sg->columns[c], delta);
            pq_write_metrics__copied_chunk(&w->leaves[c].fs,
                                           w->leaves[c].node->order,
                                           &sg->columns[c].meta_data);
            g->columns[c].file_offset = (int64_t)w->file_pos;
            if (rc == ZB_OK)
                rc = pq_writer__write_bytes(w, ctx, bytes, (size_t)len);
            zb_free(bytes);
            if (rc < 0)
                return zb_err_prefix(ctx, "%s", w->uri);
            g->total_byte_size += g->columns[c].meta_data
                                      .total_uncompressed_size;
            g->total_compressed_size += (int64_t)len;
        }
        w->n_groups++;
        w->rows_total += (uint64_t)sg->num_rows;
    }
    return ZB_OK;
}

int pq_writer_copy_worthwhile(const pq_reader *src, uint64_t min_rows)
{
    const pq_file_meta *m = pq_reader_meta(src);

    return m->n_row_groups > 0 &&
           (uint64_t)m->num_rows / m->n_row_groups >= min_rows;
}

/*
 * format/parquet/write/pq_write_metrics.c - the whole file's view of each leaf
 * column, for Iceberg's data-file metrics (pq_leaf_metrics in
 * parquet_write.h; table/metrics/file_metrics.c makes Iceberg's maps of them).
 *
 * Call order: while batches are shredded, pq_write_metrics__nan sees
 * every float value and pq_write_metrics__value every value new to the
 * chunk (the chunk's dictionary makes the rest repeats, which change no
 * bound); when a row group is flushed, pq_write_metrics__chunk adds the
 * chunk's counts and compressed size as they went into the footer; a
 * copied row group adds what its footer says instead
 * (pq_write_metrics__copied_chunk); pq_writer_close calls
 * pq_write_metrics__result last.
 *
 * Bounds. The file's min and max use the chunk statistics' type-defined
 * order, except that floats order -0 below +0 (as Iceberg Java's
 * Float.compare does, so a column of only 0.0 has the bounds 0.0, 0.0)
 * and NaN is counted, never a bound. Byte arrays are kept as prefixes of
 * at most PQ_METRICS_BOUND_BYTES: taking a fixed-length prefix never
 * changes the order of two values (a <= b implies prefix(a) <=
 * prefix(b)), so the min of the prefixes is the prefix of the min, and
 * likewise for the max. A flag remembers whether the kept bound is the
 * value itself or only its prefix; among values sharing the kept prefix,
 * the min is exact as soon as one of them is not longer than the prefix,
 * the max is a prefix as soon as one of them is longer.
 */
#define ZB_MODULE "parquet"

#include <math.h>
#include <string.h>

#include "format/parquet/write/pq_writer_int.h"

void pq_write_metrics__nan(leaf *l, const uint8_t *v)
{
    if (l->node->conv == PW_FLOAT) {
        float f;
        memcpy(&f, v, 4);
        l->fs.nans += isnan(f) != 0;
    } else {
        double d;
        memcpy(&d, v, 8);
        l->fs.nans += isnan(d) != 0;
    }
}

static int is_float_order(pw_order o)
{
    return o == PW_ORDER_FLOAT || o == PW_ORDER_DOUBLE;
}

static int is_nan(pw_order order, const uint8_t *v)
{
    if (order == PW_ORDER_FLOAT) {
        float f;
        memcpy(&f, v, 4);
        return isnan(f) != 0;
    }
    if (order == PW_ORDER_DOUBLE) {
        double d;
        memcpy(&d, v, 8);
        return isnan(d) != 0;
    }
    return 0;
}

/* The sign bit of a PLAIN float or double (little-endian). */
static int sign_bit(pw_order order, const uint8_t *v)
{
    return (v[order == PW_ORDER_FLOAT ? 3 : 7] & 0x80) != 0;
}

/* The file order: the chunk order, with -0 < +0 for floats. */
static int file_cmp(pw_order order, const uint8_t *a, size_t al,
                    const uint8_t *b, size_t bl)
{
    int c = pq_write_stats__cmp(order, a, al, b, bl);

    if (c == 0 && is_float_order(order))
        c = sign_bit(order, b) - sign_bit(order, a);
    return c;
}

static void take(fstats *f, pw_order order, const uint8_t *v, size_t len)
{
    size_t keep = len > PQ_METRICS_BOUND_BYTES ? PQ_METRICS_BOUND_BYTES
                                               : len;
    int trunc = len > keep, c;

    if (is_float_order(order) && is_nan(order, v))
        return;
    if (!f->has) {
        memcpy(f->min, v, keep);
        memcpy(f->max, v, keep);
        f->min_len = f->max_len = keep;
        f->min_trunc = f->max_trunc = trunc;
        f->has = 1;
        return;
    }
    c = file_cmp(order, v, keep, f->min, f->min_len);
    if (c < 0) {
        memcpy(f->min, v, keep);
        f->min_len = keep;
        f->min_trunc = trunc;
    } else if (c == 0 && !trunc) {
        f->min_trunc = 0;
    }
    c = file_cmp(order, v, keep, f->max, f->max_len);
    if (c > 0) {
        memcpy(f->max, v, keep);
        f->max_len = keep;
        f->max_trunc = trunc;
    } else if (c == 0 && trunc) {
        f->max_trunc = 1;
    }
}

/* Whether every value fits the page bounds, so that the file's bounds
 * can be taken from the pages' instead of value by value. */
static int bounded_by_pages(const leaf *l)
{
    return l->node->conv != PW_BYTES &&
           (l->node->conv != PW_FIXED ||
            (size_t)l->node->type_length <= STAT_MAX_BYTES);
}

void pq_write_metrics__value(leaf *l, const uint8_t *v, size_t len)
{
    /* The chunk's statistics are merged from its pages' (pq_writer.c),
     * and so are the file's for values the pages bound whole. */
    if (!bounded_by_pages(l))
        take(&l->fs, l->node->order, v, len);
}

void pq_write_metrics__page(leaf *l, const stats *page)
{
    if (!bounded_by_pages(l) || !page->has)
        return;
    take(&l->fs, l->node->order, page->min, page->min_len);
    take(&l->fs, l->node->order, page->max, page->max_len);
}

void pq_write_metrics__chunk(fstats *f, const pq_column_meta *m,
                             int64_t nulls)
{
    f->values += m->num_values;
    f->nulls += nulls;
    f->bytes += (uint64_t)m->total_compressed_size;
}

/* Orders whose deprecated min/max (signed comparison) are still right. */
static int legacy_ok(pw_order order)
{
    return order == PW_ORDER_BOOL || order == PW_ORDER_I32 ||
           order == PW_ORDER_I64 || is_float_order(order);
}

/* A copied bound is usable if it has the length the type requires. */
static int bound_fits(pw_order order, size_t len)
{
    switch (order) {
    case PW_ORDER_BOOL: return len == 1;
    case PW_ORDER_I32: case PW_ORDER_U32: case PW_ORDER_FLOAT:
        return len == 4;
    case PW_ORDER_I64: case PW_ORDER_U64: case PW_ORDER_DOUBLE:
        return len == 8;
    default: return 1;
    }
}

void pq_write_metrics__copied_chunk(fstats *f, pw_order order,
                                    const pq_column_meta *m)
{
    const pq_statistics *s = &m->statistics;
    const uint8_t *lo = NULL, *hi = NULL;
    size_t lo_len = 0, hi_len = 0;
    int all_null;

    f->values += m->num_values;
    f->bytes += (uint64_t)m->total_compressed_size;
    if (m->has_statistics && s->has_null_count)
        f->nulls += s->null_count;
    else
        f->nulls_unknown = 1;
    /* The footer does not count NaN. */
    f->nans_unknown = 1;
    all_null = m->has_statistics && s->has_null_count &&
               s->null_count >= m->num_values;
    if (m->has_statistics && s->has_min_value && s->has_max_value) {
        lo = s->min_value, lo_len = s->min_value_len;
        hi = s->max_value, hi_len = s->max_value_len;
    } else if (m->has_statistics && s->has_min && s->has_max &&
               legacy_ok(order)) {
        lo = s->min, lo_len = s->min_len;
        hi = s->max, hi_len = s->max_len;
    }
    if (lo && hi && bound_fits(order, lo_len) && bound_fits(order, hi_len)) {
        take(f, order, lo, lo_len);
        take(f, order, hi, hi_len);
    } else if (!all_null) {
        f->lost = 1;
    }
}

static const uint8_t *keep_bytes(zb_arena *a, const uint8_t *p, size_t n)
{
    uint8_t *q = zb_arena_alloc(a, n ? n : 1);

    if (q && n)
        memcpy(q, p, n);
    return q;
}

static int fill_leaf(pq_leaf_metrics *o, zb_arena *a, const leaf *l,
                     const pq_schema_element *e)
{
    const fstats *f = &l->fs;
    const char **path;
    size_t k;

    o->field_id = e && e->has_field_id ? e->field_id : -1;
    o->type = l->node->type;
    o->type_length = l->node->type_length;
    if (e)
        o->logical = e->logical;
    if ((path = zb_arena_calloc(a, 2 * l->depth + 1, sizeof *path)) == NULL)
        return ZB_ENOMEM;
    for (k = 0; k < l->depth; k++) {
        const pw_node *pn = l->path[k];
        if ((path[o->path_len++] = zb_arena_strdup(a, pn->name)) == NULL)
            return ZB_ENOMEM;
        if (pn->kind == PW_LIST)
            path[o->path_len++] = "list";
        if (pn->kind == PW_LIST || pn->kind == PW_MAP)
            o->in_repeated = 1;
    }
    o->path = path;
    o->value_count = f->values;
    o->null_count = f->nulls_unknown ? -1 : f->nulls;
    o->nan_count = is_float_order(l->node->order) && !f->nans_unknown
                       ? f->nans : -1;
    o->column_bytes = f->bytes;
    if (f->has && !f->lost) {
        o->has_bounds = 1;
        if ((o->min = keep_bytes(a, f->min, f->min_len)) == NULL ||
            (o->max = keep_bytes(a, f->max, f->max_len)) == NULL)
            return ZB_ENOMEM;
        o->min_len = f->min_len;
        o->max_len = f->max_len;
        o->min_truncated = f->min_trunc;
        o->max_truncated = f->max_trunc;
    }
    return ZB_OK;
}

int pq_write_metrics__result(pq_write_result *r, const pq_writer *w,
                             zb_ctx *ctx)
{
    size_t i, e = 1, n = w->schema.n_leaves;
    const pw_schema *s = &w->schema;
    zb_arena *a = NULL;

    memset(r, 0, sizeof *r);
    r->file_bytes = w->file_pos;
    r->rows = w->rows_total;
    r->row_groups = w->n_groups;
    if (zb_arena_new(&a, (size_t)1 << 30) < 0)
        return zb_fail_oom(ctx);
    r->arena = a;
    if ((r->leaves = zb_arena_calloc(a, n + 1, sizeof *r->leaves)) == NULL ||
        (r->split_offsets = zb_arena_calloc(a, w->n_groups + 1,
                                            sizeof(int64_t))) == NULL)
        goto oom;
    for (i = 0; i < n; i++, e++) {
        /* Leaves are the schema's childless elements, in order. */
        while (e < s->n_elements && s->elements[e].num_children > 0)
            e++;
        if (fill_leaf(&r->leaves[i], a, &w->leaves[i],
                      e < s->n_elements ? &s->elements[e] : NULL) < 0)
            goto oom;
    }
    r->n_leaves = n;
    for (i = 0; i < w->n_groups; i++)
        r->split_offsets[i] = w->groups[i].file_offset;
    r->n_split_offsets = w->n_groups;
    return ZB_OK;
oom:
    pq_write_result_free(r);
    return zb_fail_oom(ctx);
}

void pq_write_result_free(pq_write_result *r)
{
    if (r == NULL)
        return;
    zb_arena_free(r->arena);
    memset(r, 0, sizeof *r);
}

/*
 * ops/add_files/add_files_footer.c - a file's metrics from its Parquet footer,
 * for add-files: the column chunks' counts, sizes and statistics merged over
 * the row groups into the pq_leaf_metrics the writer would have given
 * (format/parquet/parquet_write.h), which table/metrics/file_metrics.h turns
 * into Iceberg's maps as for any written file.
 *
 * Bounds are taken from min_value/max_value, or from the deprecated
 * min/max only where their signed order is the type's (booleans, signed
 * integers, floats), as Iceberg Java's footer metrics do. Orders: signed
 * or unsigned integers (by annotation), floats numerically (a NaN bound
 * drops the column's bounds; -0 is taken as the lower and +0 as the upper
 * end of zero, as parquet-format asks readers to), decimals in bytes as
 * signed big-endian numbers, other byte arrays as unsigned bytes. INT96
 * and FLOAT16 get no bounds. A chunk without bounds that is not all null
 * loses the column's bounds. Byte-array bounds longer than
 * PQ_METRICS_BOUND_BYTES are cut as the writer cuts them.
 */
#define ZB_MODULE "add-files"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/add_files/add_files_int.h"
#include "util/err.h"

typedef enum order {
    ORD_NONE, ORD_BOOL, ORD_I32, ORD_U32, ORD_I64, ORD_U64, ORD_FLOAT,
    ORD_DOUBLE, ORD_BYTES, ORD_DECIMAL
} order;

static order order_of(const pq_schema_element *e, const pq_logical *l)
{
    int uns = l->kind == PQ_LT_INTEGER && !l->is_signed;

    if (l->kind == PQ_LT_DECIMAL &&
        (e->type == PQ_BYTE_ARRAY || e->type == PQ_FIXED_LEN_BYTE_ARRAY))
        return ORD_DECIMAL;
    switch (e->type) {
    case PQ_BOOLEAN: return ORD_BOOL;
    case PQ_INT32: return uns ? ORD_U32 : ORD_I32;
    case PQ_INT64: return uns ? ORD_U64 : ORD_I64;
    case PQ_FLOAT: return ORD_FLOAT;
    case PQ_DOUBLE: return ORD_DOUBLE;
    case PQ_BYTE_ARRAY: return ORD_BYTES;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        return l->kind == PQ_LT_FLOAT16 ? ORD_NONE : ORD_BYTES;
    default: return ORD_NONE;
    }
}

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;

    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

static double as_double(order o, const uint8_t *p)
{
    if (o == ORD_FLOAT) {
        uint32_t u = (uint32_t)le(p, 4);
        float f;
        memcpy(&f, &u, 4);
        return f;
    } else {
        uint64_t u = le(p, 8);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
}

/* The fixed width of a bound of order o (0: variable). */
static size_t width_of(order o)
{
    switch (o) {
    case ORD_BOOL: return 1;
    case ORD_I32: case ORD_U32: case ORD_FLOAT: return 4;
    case ORD_I64: case ORD_U64: case ORD_DOUBLE: return 8;
    default: return 0;
    }
}

/* Signed big-endian numbers of any lengths. */
static int cmp_decimal(const uint8_t *a, size_t al, const uint8_t *b,
                       size_t bl)
{
    int an = al > 0 && (a[0] & 0x80), bn = bl > 0 && (b[0] & 0x80);
    size_t n = al > bl ? al : bl, i;

    if (an != bn)
        return an ? -1 : 1;
    for (i = 0; i < n; i++) {
        /* sign-extend the shorter one */
        int x = i < n - al ? (an ? 0xFF : 0) : a[i - (n - al)];
        int y = i < n - bl ? (bn ? 0xFF : 0) : b[i - (n - bl)];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int cmp(order o, const uint8_t *a, size_t al, const uint8_t *b,
               size_t bl)
{
    size_t n;
    int c;

    switch (o) {
    case ORD_BOOL: return (a[0] != 0) - (b[0] != 0);
    case ORD_I32: {
        int32_t x = (int32_t)(uint32_t)le(a, 4), y = (int32_t)(uint32_t)le(b, 4);
        return (x > y) - (x < y);
    }
    case ORD_U32: case ORD_U64: {
        uint64_t x = le(a, al), y = le(b, bl);
        return (x > y) - (x < y);
    }
    case ORD_I64: {
        int64_t x = (int64_t)le(a, 8), y = (int64_t)le(b, 8);
        return (x > y) - (x < y);
    }
    case ORD_FLOAT: case ORD_DOUBLE: {
        double x = as_double(o, a), y = as_double(o, b);
        return (x > y) - (x < y);
    }
    case ORD_DECIMAL:
        return cmp_decimal(a, al, b, bl);
    default:
        n = al < bl ? al : bl;
        c = n ? memcmp(a, b, n) : 0;
        return c ? (c < 0 ? -1 : 1) : (al > bl) - (al < bl);
    }
}

/* One leaf's bounds while merging. */
typedef struct acc {
    const uint8_t *min, *max;
    size_t min_len, max_len;
    int has, lost;
} acc;

static void take(acc *a, order o, const uint8_t *lo, size_t lo_len,
                 const uint8_t *hi, size_t hi_len)
{
    if (!a->has) {
        a->min = lo, a->min_len = lo_len;
        a->max = hi, a->max_len = hi_len;
        a->has = 1;
        return;
    }
    if (cmp(o, lo, lo_len, a->min, a->min_len) < 0)
        a->min = lo, a->min_len = lo_len;
    if (cmp(o, hi, hi_len, a->max, a->max_len) > 0)
        a->max = hi, a->max_len = hi_len;
}

static void chunk_bounds(acc *a, order o, const pq_column_meta *m)
{
    const pq_statistics *s = &m->statistics;
    const uint8_t *lo = NULL, *hi = NULL;
    size_t lo_len = 0, hi_len = 0, w = width_of(o);
    int all_null = m->has_statistics && s->has_null_count &&
                   s->null_count >= m->num_values;

    if (o == ORD_NONE) {
        a->lost = 1;
        return;
    }
    if (m->has_statistics && s->has_min_value && s->has_max_value) {
        lo = s->min_value, lo_len = s->min_value_len;
        hi = s->max_value, hi_len = s->max_value_len;
    } else if (m->has_statistics && s->has_min && s->has_max &&
               (o == ORD_BOOL || o == ORD_I32 || o == ORD_I64 ||
                o == ORD_FLOAT || o == ORD_DOUBLE)) {
        lo = s->min, lo_len = s->min_len;
        hi = s->max, hi_len = s->max_len;
    }
    if (lo == NULL || hi == NULL || (w && (lo_len != w || hi_len != w))) {
        if (!all_null)
            a->lost = 1;
        return;
    }
    if ((o == ORD_FLOAT || o == ORD_DOUBLE) &&
        (isnan(as_double(o, lo)) || isnan(as_double(o, hi)))) {
        a->lost = 1;
        return;
    }
    take(a, o, lo, lo_len, hi, hi_len);
}

static const uint8_t *keep(zb_arena *ar, const uint8_t *p, size_t n)
{
    uint8_t *q = zb_arena_alloc(ar, n ? n : 1);

    if (q && n)
        memcpy(q, p, n);
    return q;
}

/* -0.0 as the lower end, +0.0 as the upper end of zero. */
static void fix_zero(uint8_t *p, order o, int upper)
{
    size_t w = o == ORD_FLOAT ? 4 : 8;

    if (as_double(o, p) != 0.0)
        return;
    if (upper)
        p[w - 1] &= 0x7F;
    else
        p[w - 1] |= 0x80;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

    return (a > b) - (a < b);
}

int zb_af__footer_result(pq_write_result *out, zb_arena *arena, zb_ctx *ctx,
                         const char *uri, const pq_file_meta *m,
                         const pq_schema *ps, const int32_t *leaf_ids,
                         uint64_t file_bytes)
{
    size_t i, g, n = ps->n_leaves;

    memset(out, 0, sizeof *out);
    out->file_bytes = file_bytes;
    out->rows = m->num_rows > 0 ? (uint64_t)m->num_rows : 0;
    out->row_groups = m->n_row_groups;
    out->leaves = zb_arena_calloc(arena, n + 1, sizeof *out->leaves);
    out->split_offsets = zb_arena_calloc(arena, m->n_row_groups + 1,
                                         sizeof *out->split_offsets);
    if (out->leaves == NULL || out->split_offsets == NULL)
        return zb_fail_oom(ctx);
    for (g = 0; g < m->n_row_groups; g++)
        if (m->row_groups[g].n_columns != n)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: row group %zu has %zu "
                           "column chunks for %zu columns", uri, g,
                           m->row_groups[g].n_columns, n);
    for (i = 0; i < n; i++) {
        const pq_node *leaf = ps->leaves[i];
        const pq_schema_element *e = leaf->elem;
        pq_leaf_metrics *lm = &out->leaves[i];
        pq_logical l = pq_schema_element_logical(e);
        order o = order_of(e, &l);
        const pq_node *p;
        acc a;
        int nulls_known = 1;

        memset(&a, 0, sizeof a);
        lm->field_id = leaf_ids ? leaf_ids[i] : -1;
        lm->path = NULL;
        lm->path_len = 0;
        lm->type = e->type;
        lm->type_length = e->type_length;
        lm->logical = l;
        for (p = leaf->parent; p != NULL; p = p->parent)
            if (p->kind == PQ_NODE_LIST || p->kind == PQ_NODE_MAP)
                lm->in_repeated = 1;
        lm->nan_count = -1;    /* footers do not count NaN */
        for (g = 0; g < m->n_row_groups; g++) {
            const pq_column_chunk *cc = &m->row_groups[g].columns[i];
            const pq_column_meta *cm = &cc->meta_data;

            if (!cc->has_meta_data)
                return zb_fail(ctx, ZB_ECORRUPT, "%s: row group %zu, column "
                               "%s: no column metadata", uri, g, leaf->name);
            lm->value_count += cm->num_values;
            lm->column_bytes += cm->total_compressed_size > 0
                                    ? (uint64_t)cm->total_compressed_size : 0;
            if (cm->has_statistics && cm->statistics.has_null_count)
                lm->null_count += cm->statistics.null_count;
            else
                nulls_known = 0;
            chunk_bounds(&a, o, cm);
        }
        if (!nulls_known)
            lm->null_count = -1;
        if (a.has && !a.lost) {
            size_t lo = a.min_len, hi = a.max_len;
            uint8_t *mn, *mx;

            if (lo > PQ_METRICS_BOUND_BYTES) {
                lo = PQ_METRICS_BOUND_BYTES;
                lm->min_truncated = 1;
            }
            if (hi > PQ_METRICS_BOUND_BYTES) {
                hi = PQ_METRICS_BOUND_BYTES;
                lm->max_truncated = 1;
            }
            mn = (uint8_t *)keep(arena, a.min, lo);
            mx = (uint8_t *)keep(arena, a.max, hi);
            if (mn == NULL || mx == NULL)
                return zb_fail_oom(ctx);
            if (o == ORD_FLOAT || o == ORD_DOUBLE) {
                fix_zero(mn, o, 0);
                fix_zero(mx, o, 1);
            }
            lm->has_bounds = 1;
            lm->min = mn, lm->min_len = lo;
            lm->max = mx, lm->max_len = hi;
        }
    }
    out->n_leaves = n;
    /* Split offsets: where each row group starts, ascending. */
    for (g = 0; g < m->n_row_groups && n > 0; g++) {
        const pq_column_meta *cm = &m->row_groups[g].columns[0].meta_data;
        int64_t at = cm->data_page_offset;

        if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
            cm->dictionary_page_offset < at)
            at = cm->dictionary_page_offset;
        out->split_offsets[out->n_split_offsets++] = at;
    }
    qsort(out->split_offsets, out->n_split_offsets, sizeof(int64_t), cmp_i64);
    for (g = 1; g < out->n_split_offsets; g++)
        if (out->split_offsets[g] <= out->split_offsets[g - 1] ||
            out->split_offsets[g] < 4 ||
            (uint64_t)out->split_offsets[g] >= file_bytes)
            out->n_split_offsets = 0;   /* not believable: none */
    return ZB_OK;
}

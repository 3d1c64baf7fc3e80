/*
 * format/parquet/write/pq_writer.c - Arrow batches to a Parquet file (see
 * parquet_write.h).
 *
 * Each leaf column keeps the current page (levels and PLAIN values) and
 * the finished, compressed pages of the current row group. A batch is
 * shredded column by column: for every row, the leaf's path is walked
 * from the top-level array down (Dremel), emitting a definition and
 * repetition level per slot and a value where the slot is defined all the
 * way down (top-level primitive columns take a shorter path, shred_top,
 * with the same result). A page ends, at a row boundary, when its values
 * pass the page size; PLAIN values are compressed where they were
 * gathered, the page's levels put in a gap kept in front of them. Byte
 * arrays' page bounds come from the page's least and greatest value,
 * found as values arrive; fixed-width ones from a scan at flush. A row
 * group ends when the buffered bytes pass the row-group size, and its
 * column chunks (kept in blocks that never move) are then written one
 * after the other. Closing writes the footer. The file is written through a FileIO writer that
 * publishes it only on close, and never over an existing file.
 */
#define ZB_MODULE "parquet"

#include <assert.h>
#include <string.h>

#include "format/parquet/parquet_write.h"
#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/write/pq_encode.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/write/pq_write_schema.h"
#include "util/alloc.h"

#define DICT_PROBE_VALUES 10000  /* values seen before judging a dictionary */

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- values ---- */

/* The current page's PLAIN values: l->values past its gap (see
 * leaf.gap). */
static size_t vals_len(const leaf *l)
{
    return l->values.len - l->gap;
}

static const uint8_t *vals_ptr(const leaf *l)
{
    return l->values.ptr ? (const uint8_t *)l->values.ptr + l->gap
                         : (const uint8_t *)"";
}

static int64_t pidx(const struct ArrowArray *a, int64_t i)
{
    return a->offset + i;
}

static int is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];

    return a->null_count == 0 || bits == NULL ||
           zb_arrow_bit(bits, pidx(a, i));
}

static int cmp_unsigned(const uint8_t *a, size_t al, const uint8_t *b,
                        size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);

    return c ? c : (al > bl) - (al < bl);
}

/* The first 8 bytes of v as a big-endian number, zeros past len: when
 * two values' keys differ, they order the values as memcmp does. */
static uint64_t key8(const uint8_t *v, size_t len)
{
    uint64_t k = 0;
    size_t i;

    if (len >= 8)
        return (uint64_t)v[0] << 56 | (uint64_t)v[1] << 48 |
               (uint64_t)v[2] << 40 | (uint64_t)v[3] << 32 |
               (uint64_t)v[4] << 24 | (uint64_t)v[5] << 16 |
               (uint64_t)v[6] << 8 | (uint64_t)v[7];
    for (i = 0; i < len; i++)
        k |= (uint64_t)v[i] << (56 - 8 * i);
    return k;
}

/* Takes the value just appended to l->values (its last len bytes) into
 * the page's extremes (see leaf.pext_has). */
static void track_extremes(leaf *l, size_t len)
{
    const uint8_t *base = (const uint8_t *)l->values.ptr;
    size_t off = l->values.len - len;
    uint64_t k = key8(base + off, len);

    if (len > STAT_MAX_BYTES)
        l->pext_long = 1;
    if (!l->pext_has) {
        l->pmin_off = l->pmax_off = off;
        l->pmin_len = l->pmax_len = len;
        l->pmin_key = l->pmax_key = k;
        l->pext_has = 1;
    } else if (k < l->pmin_key ||
               (k == l->pmin_key &&
                cmp_unsigned(base + off, len, base + l->pmin_off,
                             l->pmin_len) < 0)) {
        l->pmin_off = off;
        l->pmin_len = len;
        l->pmin_key = k;
    } else if (k > l->pmax_key ||
               (k == l->pmax_key &&
                cmp_unsigned(base + off, len, base + l->pmax_off,
                             l->pmax_len) > 0)) {
        l->pmax_off = off;
        l->pmax_len = len;
        l->pmax_key = k;
    }
}

/* One value in PLAIN form: through the dictionary or into the page. */
static int emit(leaf *l, zb_ctx *ctx, const uint8_t *v, size_t len)
{
    const pw_node *n = l->node;
    int bytes = n->conv == PW_BYTES;
    int rc;

    l->page_values++;
    l->page_plain_bytes += len + (bytes ? 4 : 0);
    if (n->conv == PW_FLOAT || n->conv == PW_DOUBLE)
        pq_write_metrics__nan(l, v);
    if (l->use_dict) {
        uint32_t idx;
        int added;
        if ((rc = pq_dict_put(&l->dict, v, len, &idx, &added)) < 0 ||
            (rc = zb_buf_append_small(&l->indices, &idx, sizeof idx)) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "column %s: dictionary too large",
                           n->name);
        if (added)
            pq_write_metrics__value(l, v, len);
        return ZB_OK;
    }
    if (bytes) {
        uint8_t lenb[4];
        put_le32(lenb, (uint32_t)len);
        if (zb_buf_append_small(&l->values, lenb, 4) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                           n->name);
    }
    if (zb_buf_append_small(&l->values, v, len) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large", n->name);
    if (n->order == PW_ORDER_BYTES) {
        track_extremes(l, len);
        return ZB_OK;
    }
    if (n->order == PW_ORDER_BOOL)
        return ZB_OK;   /* the page's bounds: bool_bounds at flush */
    pq_write_metrics__value(l, v, len);
    /* Fixed-width values are taken in one typed pass at flush. */
    if (!pq_write_stats_fixed_width(n->order))
        pq_write_stats_update(&l->pst, n->order, v, len);
    return ZB_OK;
}

/* Appends the PLAIN form of value i of a to the page; updates stats. */
static int put_value(leaf *l, zb_ctx *ctx, const struct ArrowArray *a,
                     int64_t i)
{
    const pw_node *n = l->node;
    int64_t p = pidx(a, i);
    uint8_t tmp[16];
    const uint8_t *v = tmp;
    size_t len = 4;

    switch (n->conv) {
    case PW_BOOL:
        tmp[0] = (uint8_t)zb_arrow_bit(a->buffers[1], p);
        len = 1;
        break;
    case PW_I8_TO_I32: {
        int32_t x = ((const int8_t *)a->buffers[1])[p];
        memcpy(tmp, &x, 4);
        break;
    }
    case PW_U8_TO_I32: {
        int32_t x = ((const uint8_t *)a->buffers[1])[p];
        memcpy(tmp, &x, 4);
        break;
    }
    case PW_I16_TO_I32: {
        int32_t x = ((const int16_t *)a->buffers[1])[p];
        memcpy(tmp, &x, 4);
        break;
    }
    case PW_U16_TO_I32: {
        int32_t x = ((const uint16_t *)a->buffers[1])[p];
        memcpy(tmp, &x, 4);
        break;
    }
    case PW_I32:
    case PW_FLOAT:
        v = (const uint8_t *)a->buffers[1] + p * 4;
        break;
    case PW_I64:
    case PW_DOUBLE:
        v = (const uint8_t *)a->buffers[1] + p * 8;
        len = 8;
        break;
    case PW_FIXED:
        len = (size_t)n->type_length;
        v = (const uint8_t *)a->buffers[1] + p * (int64_t)len;
        break;
    case PW_DEC_TO_I32:
        memcpy(tmp, (const uint8_t *)a->buffers[1] + p * 16, 4);
        break;
    case PW_DEC_TO_I64:
        memcpy(tmp, (const uint8_t *)a->buffers[1] + p * 16, 8);
        len = 8;
        break;
    case PW_DEC_TO_FIXED: {
        const uint8_t *le = (const uint8_t *)a->buffers[1] + p * 16;
        size_t k;
        len = (size_t)n->type_length;
        for (k = 0; k < len; k++)
            tmp[k] = le[len - 1 - k];   /* low bytes, big-endian */
        break;
    }
    case PW_BYTES: {
        const int32_t *o = a->buffers[1];
        if (o[p + 1] < o[p])
            return zb_fail(ctx, ZB_EINVAL, "column %s: decreasing offsets",
                           n->name);
        v = (const uint8_t *)a->buffers[2] + o[p];
        len = (size_t)(o[p + 1] - o[p]);
        break;
    }
    }
    return emit(l, ctx, v, len);
}

static int put_levels(leaf *l, zb_ctx *ctx, int16_t def, int16_t rep)
{
    uint16_t d = (uint16_t)def, r = (uint16_t)rep;

    if ((l->node->max_def > 0 && zb_buf_append_small(&l->defs, &d, 2) < 0) ||
        (l->node->max_rep > 0 && zb_buf_append_small(&l->reps, &r, 2) < 0))
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                       l->node->name);
    l->page_levels++;
    if (def < l->node->max_def) {
        l->st.nulls++;
        l->pst.nulls++;
    }
    return ZB_OK;
}

/* Dremel shredding of slot i of array a at path step k. */
static int shred(leaf *l, zb_ctx *ctx, size_t k, const struct ArrowArray *a,
                 int64_t i, int16_t def, int16_t rep)
{
    const pw_node *n = l->path[k];
    int rc;

    if (n->nullable && !is_valid(a, i))
        return put_levels(l, ctx, def, rep);
    if (n->nullable)
        def++;
    switch (n->kind) {
    case PW_PRIM:
        if ((rc = put_levels(l, ctx, def, rep)) < 0)
            return rc;
        return put_value(l, ctx, a, i);
    case PW_STRUCT:
        return shred(l, ctx, k + 1, a->children[l->path_child[k + 1]],
                     pidx(a, i), def, rep);
    case PW_LIST:
    case PW_MAP: {
        const int32_t *o = a->buffers[1];
        int64_t p = pidx(a, i), j;
        const struct ArrowArray *child = a->children[0];
        if (o[p + 1] == o[p])
            return put_levels(l, ctx, def, rep);   /* empty */
        for (j = o[p]; j < o[p + 1]; j++) {
            if (n->kind == PW_MAP)
                /* entries struct (not nullable), then key or value */
                rc = shred(l, ctx, k + 2,
                           child->children[l->path_child[k + 2]],
                           pidx(child, j), (int16_t)(def + 1),
                           j == o[p] ? rep : n->rep_level);
            else
                rc = shred(l, ctx, k + 1, child, j, (int16_t)(def + 1),
                           j == o[p] ? rep : n->rep_level);
            if (rc < 0)
                return rc;
        }
        return ZB_OK;
    }
    }
    return ZB_OK;
}

/* ---- pages and row groups ---- */

#define SPOOL_MAX_BYTES ((size_t)1 << 32)

/* Appends n bytes to s; ZB_OK or ZB_ENOMEM. */
static int spool_append(spool *s, const void *p, size_t n)
{
    spool_block *b = s->cur, *next;

    if (n == 0)
        return ZB_OK;
    if (n > SPOOL_MAX_BYTES - s->len)
        return ZB_ENOMEM;
    if (b == NULL || b->cap - b->len < n) {
        next = b ? b->next : s->head;
        if (next == NULL || next->cap < n) {
            /* Blocks grow with the chunk: few for a large one. */
            size_t cap = s->len / 2;
            if (cap < ((size_t)64 << 10))
                cap = (size_t)64 << 10;
            if (cap > ((size_t)16 << 20))
                cap = (size_t)16 << 20;
            if (cap < n)
                cap = n;
            if ((next = zb_malloc(sizeof *next + cap)) == NULL)
                return ZB_ENOMEM;
            next->cap = cap;
            next->next = b ? b->next : s->head;
            if (b)
                b->next = next;
            else
                s->head = next;
        }
        next->len = 0;
        s->cur = b = next;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    s->len += n;
    return ZB_OK;
}

/* Empties s, keeping its blocks. */
static void spool_clear(spool *s)
{
    spool_block *b;

    for (b = s->head; b; b = b->next)
        b->len = 0;
    s->cur = NULL;
    s->len = 0;
}

static void spool_free(spool *s)
{
    while (s->head) {
        spool_block *b = s->head;
        s->head = b->next;
        zb_free(b);
    }
    s->cur = NULL;
    s->len = 0;
}

static int spool_write(pq_writer *w, zb_ctx *ctx, const spool *s)
{
    const spool_block *b;
    int rc;

    for (b = s->head; b; b = b->next)
        if (b->len && (rc = pq_writer__write_bytes(w, ctx, b->data,
                                                   b->len)) < 0)
            return rc;
    return ZB_OK;
}

static int dictionary_done(const pq_writer *w, const leaf *l);

/* Appends levels RLE-encoded, with the 4-byte length prefix of data page
 * v1 (v2 pages give the lengths in their header instead). */
static int put_level_run(zb_buf *page, const zb_buf *levels, size_t n,
                         int16_t max_level, int prefix)
{
    size_t at = page->len;
    int rc;

    if ((prefix && (rc = zb_buf_append(page, "\0\0\0\0", 4)) < 0) ||
        (rc = pq_rle_encode(page, (const uint16_t *)(const void *)levels->ptr,
                            n, pq_bit_width((uint32_t)max_level))) < 0)
        return rc;
    if (prefix)
        put_le32((uint8_t *)page->ptr + at,
                 (uint32_t)(page->len - at - 4));
    return ZB_OK;
}

static int put_bool_values(zb_buf *page, const uint8_t *values, size_t n)
{
    size_t i, bytes = (n + 7) / 8;
    uint8_t *p;
    int rc;

    if ((rc = zb_buf_reserve(page, bytes)) < 0)
        return rc;
    p = (uint8_t *)page->ptr + page->len;
    memset(p, 0, bytes);
    for (i = 0; i < n; i++)
        if (values[i])
            p[i / 8] |= (uint8_t)(1u << (i % 8));
    page->len += bytes;
    return ZB_OK;
}

/* A page with no values at all is written PLAIN, so that a column of
 * nulls needs no (empty) dictionary page. */
static int page_is_dict(const leaf *l)
{
    return l->use_dict && l->page_values > 0;
}

/* The values part of a data page that flush_page does not compress in
 * place: booleans bit-packed, or dictionary indices. */
static int put_page_values(pq_writer *w, leaf *l)
{
    unsigned width;
    uint8_t wb;
    int rc;

    if (!page_is_dict(l))
        return put_bool_values(&w->page, vals_ptr(l), l->page_values);
    width = pq_bit_width(l->dict.n ? (uint32_t)(l->dict.n - 1) : 0);
    wb = (uint8_t)width;
    if ((rc = zb_buf_append(&w->page, &wb, 1)) < 0)
        return rc;
    return pq_rle_encode32(&w->page,
                           (const uint32_t *)(const void *)l->indices.ptr,
                           l->page_values, width);
}

/* Compresses in[0..in_len) into w->compressed; ZB_OK or an error in
 * ctx. */
static int compress_page(pq_writer *w, zb_ctx *ctx, const char *column,
                         const uint8_t *in, size_t in_len)
{
    size_t bound = zb_codec_compress_bound(w->algorithm, in_len), clen = 0;
    int rc;

    if (in_len > INT32_MAX)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page over 2 GiB", column);
    zb_buf_clear(&w->compressed);
    if ((bound == 0 && in_len > 0) ||
        zb_buf_reserve(&w->compressed, bound ? bound : 1) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: no room to compress a "
                       "%zu-byte page", column, in_len);
    if ((rc = zb_codec_compress(w->codec, ctx, w->algorithm,
                                w->opts.codec_level, in, in_len,
                                (uint8_t *)w->compressed.ptr, bound,
                                &clen)) < 0)
        return zb_err_prefix(ctx, "column %s", column);
    w->compressed.len = clen;
    return ZB_OK;
}

/* Rows that start in the current page (a v2 header counts them). */
static size_t page_rows(const leaf *l)
{
    const uint16_t *reps = (const uint16_t *)(const void *)l->reps.ptr;
    size_t i, rows = 0;

    if (l->node->max_rep == 0)
        return l->page_levels;
    for (i = 0; i < l->page_levels; i++)
        rows += reps[i] == 0;
    return rows;
}

/* A PLAIN boolean page's bounds (values one byte each, 0 or 1). */
static void bool_bounds(leaf *l)
{
    static const uint8_t f = 0, t = 1;
    const uint8_t *v = vals_ptr(l);
    size_t n = vals_len(l);

    if (memchr(v, 0, n))
        pq_write_stats_update(&l->pst, PW_ORDER_BOOL, &f, 1);
    if (memchr(v, 1, n))
        pq_write_stats_update(&l->pst, PW_ORDER_BOOL, &t, 1);
}

/*
 * The statistics of the page being flushed. PLAIN pages gathered them
 * value by value; a dictionary page takes min and max over the distinct
 * dictionary entries its indices use. ps borrows l's bytes.
 */
static int page_statistics(pq_statistics *ps, zb_ctx *ctx, leaf *l)
{
    memset(ps, 0, sizeof *ps);
    if (page_is_dict(l)) {
        const uint32_t *idx = (const uint32_t *)(const void *)l->indices.ptr;
        uint8_t *seen = zb_calloc(l->dict.n / 8 + 1, 1);
        size_t i;
        if (seen == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < l->page_values; i++) {
            const pq_dict_entry *e = &l->dict.entries[idx[i]];
            if (seen[idx[i] / 8] & (1u << (idx[i] % 8)))
                continue;
            seen[idx[i] / 8] |= (uint8_t)(1u << (idx[i] % 8));
            pq_write_stats_update(&l->pst, l->node->order,
                                  (const uint8_t *)l->dict.plain.ptr + e->off,
                                  e->len);
        }
        zb_free(seen);
    } else if (l->pext_has) {
        const uint8_t *base = (const uint8_t *)l->values.ptr;
        pq_write_stats_update(&l->pst, l->node->order, base + l->pmin_off,
                              l->pmin_len);
        pq_write_stats_update(&l->pst, l->node->order, base + l->pmax_off,
                              l->pmax_len);
        if (l->pext_long)
            l->pst.skip_bounds = 1;
        pq_write_metrics__value(l, base + l->pmin_off, l->pmin_len);
        pq_write_metrics__value(l, base + l->pmax_off, l->pmax_len);
    } else if (l->node->order == PW_ORDER_BOOL) {
        bool_bounds(l);
    } else if (pq_write_stats_fixed_width(l->node->order)) {
        assert(vals_len(l) ==
               l->page_values *
                   (size_t)pq_write_stats_fixed_width(l->node->order));
        pq_write_stats_scan(&l->pst, l->node->order, vals_ptr(l),
                            l->page_values);
    }
    ps->has_null_count = 1;
    ps->null_count = l->pst.nulls;
    if (l->pst.has && !l->pst.skip_bounds) {
        ps->has_min_value = ps->has_max_value = 1;
        ps->min_value = l->pst.min;
        ps->max_value = l->pst.max;
        ps->min_value_len = l->pst.min_len;
        ps->max_value_len = l->pst.max_len;
    }
    return ZB_OK;
}

/*
 * The column index's bounds of a byte-ordered page whose statistics have
 * none because a value passes STAT_MAX_BYTES (as parquet-mr, the index
 * truncates where the page header gives up): the least value's prefix is
 * a lower bound; the greatest value's prefix with its last byte below
 * 0xff incremented (and cut there) an upper bound. No bounds when the
 * prefix is all 0xff.
 */
static void long_bounds(page_rec *r, const leaf *l)
{
    const uint8_t *mn = NULL, *mx = NULL;
    size_t mnl = 0, mxl = 0, j;

    if (page_is_dict(l)) {
        const uint32_t *idx = (const uint32_t *)(const void *)l->indices.ptr;
        const uint8_t *plain = (const uint8_t *)l->dict.plain.ptr;
        size_t i;
        for (i = 0; i < l->page_values; i++) {
            const pq_dict_entry *e = &l->dict.entries[idx[i]];
            const uint8_t *v = plain + e->off;
            if (mn == NULL ||
                pq_write_stats__cmp(PW_ORDER_BYTES, v, e->len, mn, mnl) < 0)
                mn = v, mnl = e->len;
            if (mx == NULL ||
                pq_write_stats__cmp(PW_ORDER_BYTES, v, e->len, mx, mxl) > 0)
                mx = v, mxl = e->len;
        }
    } else if (l->pext_has) {
        const uint8_t *base = (const uint8_t *)l->values.ptr;
        mn = base + l->pmin_off, mnl = l->pmin_len;
        mx = base + l->pmax_off, mxl = l->pmax_len;
    }
    if (mn == NULL || mx == NULL)
        return;
    r->min_len = (uint8_t)(mnl < STAT_MAX_BYTES ? mnl : STAT_MAX_BYTES);
    memcpy(r->min, mn, r->min_len);
    if (mxl <= STAT_MAX_BYTES) {
        r->max_len = (uint8_t)mxl;
        memcpy(r->max, mx, mxl);
    } else {
        memcpy(r->max, mx, STAT_MAX_BYTES);
        for (j = STAT_MAX_BYTES; j > 0 && r->max[j - 1] == 0xff; j--)
            ;
        if (j == 0)
            return;
        r->max[j - 1]++;
        r->max_len = (uint8_t)j;
    }
    r->has_bounds = 1;
}

/*
 * Keeps what the page index needs of the page being flushed (size bytes
 * with its header, which go to the chunk next): called after
 * page_statistics, before the page's statistics are cleared.
 */
static int record_page(leaf *l, zb_ctx *ctx, size_t size)
{
    page_rec r;

    memset(&r, 0, sizeof r);
    r.off = l->chunk.len;
    r.size = (uint32_t)size;
    r.first_row = l->chunk_rows;
    r.nulls = l->pst.nulls;
    r.null_page = l->page_values == 0;
    if (l->pst.has && !l->pst.skip_bounds && l->pst.min_len <= 255 &&
        l->pst.max_len <= 255) {
        r.has_bounds = 1;
        r.min_len = (uint8_t)l->pst.min_len;
        r.max_len = (uint8_t)l->pst.max_len;
        memcpy(r.min, l->pst.min, l->pst.min_len);
        memcpy(r.max, l->pst.max, l->pst.max_len);
    }
    if (!r.has_bounds && l->page_values > 0 &&
        l->node->order == PW_ORDER_BYTES)
        long_bounds(&r, l);
    if (zb_buf_append(&l->pages, &r, sizeof r) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page index too large",
                       l->node->name);
    l->chunk_rows += (int64_t)page_rows(l);
    return ZB_OK;
}

static int flush_page(pq_writer *w, zb_ctx *ctx, leaf *l)
{
    const pw_node *n = l->node;
    pq_statistics ps;
    pq_page_header h;
    size_t clen, rep_len, levels_len, body_len, in_len, gap_want = 0;
    const uint8_t *in;
    int rc, v2;

    if (l->page_levels == 0)
        return ZB_OK;
    v2 = w->opts.page_v2;
    zb_buf_clear(&w->page);
    if (n->max_rep > 0 &&
        (rc = put_level_run(&w->page, &l->reps, l->page_levels, n->max_rep,
                            !v2)) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large", n->name);
    rep_len = w->page.len;
    if (n->max_def > 0 &&
        (rc = put_level_run(&w->page, &l->defs, l->page_levels, n->max_def,
                            !v2)) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large", n->name);
    levels_len = w->page.len;
    if (!page_is_dict(l) && n->conv != PW_BOOL) {
        /* PLAIN values are compressed where they are, not copied behind
         * the levels: v1's levels go into the gap in front of them, v2's
         * stay apart, uncompressed. */
        body_len = levels_len + vals_len(l);
        if (v2) {
            in = vals_ptr(l);
            in_len = vals_len(l);
        } else if (l->values.ptr && levels_len <= l->gap) {
            uint8_t *at = (uint8_t *)l->values.ptr + l->gap - levels_len;
            if (levels_len)
                memcpy(at, w->page.ptr, levels_len);
            in = at;
            in_len = body_len;
        } else {
            if (zb_buf_append(&w->page, vals_ptr(l), vals_len(l)) < 0)
                return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                               n->name);
            in = (const uint8_t *)w->page.ptr;
            in_len = body_len;
            gap_want = levels_len + levels_len / 4 + 64;
        }
    } else {
        if ((rc = put_page_values(w, l)) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                           n->name);
        body_len = w->page.len;
        in = (const uint8_t *)w->page.ptr + (v2 ? levels_len : 0);
        in_len = body_len - (v2 ? levels_len : 0);
    }
    if ((rc = compress_page(w, ctx, n->name, in, in_len)) < 0)
        return rc;
    clen = w->compressed.len;
    memset(&h, 0, sizeof h);
    h.uncompressed_page_size = (int32_t)body_len;
    if (!v2) {
        h.type = PQ_DATA_PAGE;
        h.compressed_page_size = (int32_t)clen;
        h.data.num_values = (int32_t)l->page_levels;
        h.data.encoding = page_is_dict(l) ? PQ_ENC_RLE_DICTIONARY
                                          : PQ_ENC_PLAIN;
        h.data.definition_level_encoding = PQ_ENC_RLE;
        h.data.repetition_level_encoding = PQ_ENC_RLE;
    } else {
        h.type = PQ_DATA_PAGE_V2;
        h.compressed_page_size = (int32_t)(levels_len + clen);
        h.v2.num_values = (int32_t)l->page_levels;
        h.v2.num_nulls = (int32_t)(l->page_levels - l->page_values);
        h.v2.num_rows = (int32_t)page_rows(l);
        h.v2.encoding = page_is_dict(l) ? PQ_ENC_RLE_DICTIONARY
                                        : PQ_ENC_PLAIN;
        h.v2.repetition_levels_byte_length = (int32_t)rep_len;
        h.v2.definition_levels_byte_length = (int32_t)(levels_len - rep_len);
        h.v2.is_compressed = 1;
    }
    if ((rc = page_statistics(&ps, ctx, l)) < 0)
        return rc;
    zb_buf_clear(&w->header);
    if ((rc = pq_page_header_write(&w->header, ctx, &h, &ps)) < 0)
        return rc;
    if (w->opts.page_index &&
        (rc = record_page(l, ctx, w->header.len + (v2 ? levels_len : 0) +
                                      clen)) < 0)
        return rc;
    /* A value is compared once, for its page; the chunk takes the
     * page's bounds (its null count is kept as levels arrive). */
    pq_write_stats_merge(&l->st, &l->pst, n->order);
    pq_write_metrics__page(l, &l->pst);
    memset(&l->pst, 0, sizeof l->pst);
    l->pext_has = l->pext_long = 0;
    if (spool_append(&l->chunk, w->header.ptr, w->header.len) < 0 ||
        (v2 && spool_append(&l->chunk, w->page.ptr, levels_len) < 0) ||
        spool_append(&l->chunk, w->compressed.ptr, clen) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: column chunk larger than "
                       "its cap", n->name);
    l->chunk_uncompressed += w->header.len + body_len;
    l->chunk_values += (int64_t)l->page_levels;
    if (page_is_dict(l)) {
        l->dict_pages++;
        /* Give up on the dictionary when dictionary_done says so, or when
         * after the first page it does not beat PLAIN. */
        if (dictionary_done(w, l) ||
            (l->dict_pages == 1 &&
             l->dict.plain.len + body_len >= l->page_plain_bytes))
            l->use_dict = 0;
    }
    zb_buf_clear(&l->defs);
    zb_buf_clear(&l->reps);
    zb_buf_clear(&l->values);
    if (gap_want > l->gap && zb_buf_reserve(&l->values, gap_want) == ZB_OK)
        l->gap = gap_want;
    if (l->gap) {
        l->values.len = l->gap;
        l->values.ptr[l->gap] = '\0';
    }
    zb_buf_clear(&l->indices);
    l->page_levels = 0;
    l->page_values = 0;
    l->page_plain_bytes = 0;
    return ZB_OK;
}

int pq_writer__write_bytes(pq_writer *w, zb_ctx *ctx, const void *p,
                           size_t n)
{
    int rc;

    if ((rc = zb_io_writer_write(w->out, ctx, p, n)) < 0)
        return rc;
    w->file_pos += n;
    return ZB_OK;
}

/* Copies a bound into the arena for the footer. */
static const uint8_t *keep(pq_writer *w, const uint8_t *p, size_t n)
{
    uint8_t *q = zb_arena_alloc(w->arena, n ? n : 1);

    if (q && n)
        memcpy(q, p, n);
    return q;
}

int pq_writer__set_path(pq_writer *w, zb_ctx *ctx, const leaf *l,
                        pq_column_meta *m)
{
    size_t k;

    m->path_len = 0;
    if ((m->path_in_schema = zb_arena_calloc(w->arena, 2 * l->depth + 1,
                                             sizeof(char *))) == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < l->depth; k++) {
        /* Every element of the path, including LIST wrappers. */
        const pw_node *pn = l->path[k];
        m->path_in_schema[m->path_len++] = pn->name;
        if (pn->kind == PW_LIST)
            m->path_in_schema[m->path_len++] = "list";
    }
    return ZB_OK;
}

pq_row_group *pq_writer__new_row_group(pq_writer *w, zb_ctx *ctx)
{
    if (w->n_groups == w->cap_groups) {
        size_t cap = w->cap_groups ? w->cap_groups * 2 : 8;
        pq_row_group *p = zb_arena_calloc(w->arena, cap, sizeof *p);
        if (p == NULL) {
            zb_fail_oom(ctx);
            return NULL;
        }
        if (w->n_groups)
            memcpy(p, w->groups, w->n_groups * sizeof *p);
        w->groups = p;
        w->cap_groups = cap;
    }
    memset(&w->groups[w->n_groups], 0, sizeof w->groups[0]);
    return &w->groups[w->n_groups];
}

/* Writes the chunk's dictionary page at the current file position. */
static int write_dictionary(pq_writer *w, zb_ctx *ctx, leaf *l,
                            pq_column_meta *m)
{
    pq_page_header h;
    int rc;

    if ((rc = compress_page(w, ctx, l->node->name,
                            l->dict.plain.ptr
                                ? (const uint8_t *)l->dict.plain.ptr
                                : (const uint8_t *)"",
                            l->dict.plain.len)) < 0)
        return rc;
    memset(&h, 0, sizeof h);
    h.type = PQ_DICTIONARY_PAGE;
    h.uncompressed_page_size = (int32_t)l->dict.plain.len;
    h.compressed_page_size = (int32_t)w->compressed.len;
    h.dict.num_values = (int32_t)l->dict.n;
    h.dict.encoding = PQ_ENC_PLAIN;
    zb_buf_clear(&w->header);
    if ((rc = pq_page_header_write(&w->header, ctx, &h, NULL)) < 0)
        return rc;
    m->has_dictionary_page_offset = 1;
    m->dictionary_page_offset = (int64_t)w->file_pos;
    m->total_uncompressed_size =
        (int64_t)(w->header.len + l->dict.plain.len);
    m->total_compressed_size = (int64_t)(w->header.len + w->compressed.len);
    if ((rc = pq_writer__write_bytes(w, ctx, w->header.ptr, w->header.len)) < 0)
        return rc;
    return pq_writer__write_bytes(w, ctx, w->compressed.ptr, w->compressed.len);
}

/* How the non-null pages' bounds go: ascending, descending or neither
 * (both when there are fewer than two, or all are equal: ascending). */
static pq_boundary_order boundary_order(const leaf *l, const page_rec *p,
                                        size_t n)
{
    int asc = 1, desc = 1;
    const page_rec *prev = NULL;
    size_t i;

    for (i = 0; i < n; i++) {
        int cmin, cmax;
        if (p[i].null_page)
            continue;
        if (prev) {
            cmin = pq_write_stats__cmp(l->node->order, prev->min,
                                       prev->min_len, p[i].min, p[i].min_len);
            cmax = pq_write_stats__cmp(l->node->order, prev->max,
                                       prev->max_len, p[i].max, p[i].max_len);
            if (cmin > 0 || cmax > 0)
                asc = 0;
            if (cmin < 0 || cmax < 0)
                desc = 0;
        }
        prev = &p[i];
    }
    return asc ? PQ_BOUNDARY_ASCENDING
               : desc ? PQ_BOUNDARY_DESCENDING : PQ_BOUNDARY_UNORDERED;
}

/*
 * Encodes the chunk's page index into w->col_index and w->off_index; cc's
 * offsets are into those buffers until close. data_off: where the
 * chunk's first data page lands in the file.
 */
static int chunk_page_index(pq_writer *w, zb_ctx *ctx, leaf *l,
                            pq_column_chunk *cc, uint64_t data_off)
{
    const page_rec *p = (const page_rec *)(const void *)l->pages.ptr;
    size_t n = l->pages.len / sizeof *p, i, start;
    pq_page_location *locs;
    pq_column_index ci;
    int rc, bounds = 1;

    if (n == 0)
        return ZB_OK;
    if ((locs = zb_calloc(n, sizeof *locs)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        locs[i].offset = (int64_t)(data_off + p[i].off);
        locs[i].compressed_page_size = (int32_t)p[i].size;
        locs[i].first_row_index = p[i].first_row;
        if (!p[i].null_page && !p[i].has_bounds)
            bounds = 0;
    }
    start = w->off_index.len;
    rc = pq_offset_index_write(&w->off_index, ctx, locs, n);
    zb_free(locs);
    if (rc < 0)
        return rc;
    cc->has_offset_index = 1;
    cc->offset_index_offset = (int64_t)start;
    cc->offset_index_length = (int32_t)(w->off_index.len - start);
    if (!bounds)
        return ZB_OK;
    {
        uint8_t *nulls = zb_calloc(n, 1);
        const uint8_t **mins = zb_calloc(n, sizeof *mins);
        const uint8_t **maxs = zb_calloc(n, sizeof *maxs);
        size_t *minl = zb_calloc(n, sizeof *minl);
        size_t *maxl = zb_calloc(n, sizeof *maxl);
        int64_t *nc = zb_calloc(n, sizeof *nc);

        if (!nulls || !mins || !maxs || !minl || !maxl || !nc) {
            rc = zb_fail_oom(ctx);
        } else {
            for (i = 0; i < n; i++) {
                nulls[i] = p[i].null_page;
                if (!p[i].null_page) {
                    mins[i] = p[i].min;
                    maxs[i] = p[i].max;
                    minl[i] = p[i].min_len;
                    maxl[i] = p[i].max_len;
                }
                nc[i] = p[i].nulls;
            }
            memset(&ci, 0, sizeof ci);
            ci.n_pages = n;
            ci.null_pages = nulls;
            ci.min_values = mins;
            ci.min_lens = minl;
            ci.max_values = maxs;
            ci.max_lens = maxl;
            ci.boundary_order = boundary_order(l, p, n);
            ci.null_counts = nc;
            start = w->col_index.len;
            if ((rc = pq_column_index_write(&w->col_index, ctx, &ci)) ==
                ZB_OK) {
                cc->has_column_index = 1;
                cc->column_index_offset = (int64_t)start;
                cc->column_index_length =
                    (int32_t)(w->col_index.len - start);
            }
        }
        zb_free(nulls);
        zb_free(mins);
        zb_free(maxs);
        zb_free(minl);
        zb_free(maxl);
        zb_free(nc);
    }
    return rc;
}

int pq_writer__flush_row_group(pq_writer *w, zb_ctx *ctx)
{
    pq_row_group *g;
    size_t i;
    int rc;

    if (w->rows_in_group == 0)
        return ZB_OK;
    if ((g = pq_writer__new_row_group(w, ctx)) == NULL)
        return ZB_ENOMEM;
    memset(g, 0, sizeof *g);
    g->n_columns = w->schema.n_leaves;
    if ((g->columns = zb_arena_calloc(w->arena, g->n_columns + 1,
                                      sizeof *g->columns)) == NULL)
        return zb_fail_oom(ctx);
    g->num_rows = (int64_t)w->rows_in_group;
    g->has_file_offset = 1;
    g->file_offset = (int64_t)w->file_pos;
    g->has_total_compressed_size = 1;
    g->has_ordinal = 1;
    g->ordinal = (int16_t)w->n_groups;
    for (i = 0; i < w->schema.n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_column_chunk *cc = &g->columns[i];
        pq_column_meta *m = &cc->meta_data;
        const pw_node *n = l->node;

        if ((rc = flush_page(w, ctx, l)) < 0)
            return rc;
        cc->file_offset = (int64_t)w->file_pos;
        cc->has_meta_data = 1;
        m->type = n->type;
        if (l->dict_pages > 0 && (rc = write_dictionary(w, ctx, l, m)) < 0)
            return rc;
        m->n_encodings = l->dict_pages > 0 ? 3 : 2;
        if ((m->encodings = zb_arena_calloc(w->arena, 3, sizeof(int32_t))) ==
                NULL ||
            (rc = pq_writer__set_path(w, ctx, l, m)) < 0)
            return zb_fail_oom(ctx);
        m->encodings[0] = PQ_ENC_PLAIN;
        m->encodings[1] = PQ_ENC_RLE;
        m->encodings[2] = PQ_ENC_RLE_DICTIONARY;
        m->codec = w->opts.codec;
        m->num_values = l->chunk_values;
        m->total_uncompressed_size += (int64_t)l->chunk_uncompressed;
        m->total_compressed_size += (int64_t)l->chunk.len;
        m->data_page_offset = (int64_t)w->file_pos;
        m->has_statistics = 1;
        m->statistics.has_null_count = 1;
        m->statistics.null_count = l->st.nulls;
        if (l->st.has && !l->st.skip_bounds) {
            m->statistics.has_min_value = m->statistics.has_max_value = 1;
            m->statistics.min_value = keep(w, l->st.min, l->st.min_len);
            m->statistics.max_value = keep(w, l->st.max, l->st.max_len);
            m->statistics.min_value_len = l->st.min_len;
            m->statistics.max_value_len = l->st.max_len;
            if (!m->statistics.min_value || !m->statistics.max_value)
                return zb_fail_oom(ctx);
        }
        g->total_byte_size += m->total_uncompressed_size;
        g->total_compressed_size += m->total_compressed_size;
        pq_write_metrics__chunk(&l->fs, m, l->st.nulls);
        if (w->opts.page_index &&
            (rc = chunk_page_index(w, ctx, l, cc, w->file_pos)) < 0)
            return rc;
        if ((rc = spool_write(w, ctx, &l->chunk)) < 0)
            return rc;
        spool_clear(&l->chunk);
        zb_buf_clear(&l->pages);
        l->chunk_rows = 0;
        l->chunk_uncompressed = 0;
        l->chunk_values = 0;
        memset(&l->st, 0, sizeof l->st);
        pq_dict_clear(&l->dict);
        l->dict_pages = 0;
        l->use_dict = w->opts.dictionary && n->conv != PW_BOOL;
    }
    w->n_groups++;
    w->rows_in_group = 0;
    return ZB_OK;
}

/* ---- the writer ---- */

#define MAX_PATH 160

/* Records the path from the root to every leaf below n. */
static int assign_paths(pq_writer *w, zb_ctx *ctx, const pw_node *n,
                        const pw_node **stack, size_t *child, size_t depth)
{
    size_t c;
    int rc;

    if (n->kind == PW_PRIM) {
        leaf *l = &w->leaves[n->leaf_index];
        l->node = n;
        l->depth = depth;
        if ((l->path = zb_arena_calloc(w->arena, depth, sizeof *l->path)) ==
                NULL ||
            (l->path_child = zb_arena_calloc(w->arena, depth,
                                             sizeof *l->path_child)) == NULL)
            return zb_fail_oom(ctx);
        memcpy(l->path, stack, depth * sizeof *stack);
        memcpy(l->path_child, child, depth * sizeof *child);
        zb_buf_init(&l->defs, (size_t)1 << 31);
        zb_buf_init(&l->reps, (size_t)1 << 31);
        zb_buf_init(&l->values, (size_t)1 << 31);
        zb_buf_init(&l->indices, (size_t)1 << 31);
        zb_buf_init(&l->pages, (size_t)1 << 31);
        /* Room past the limit: the switch to PLAIN happens at a row end. */
        pq_dict_init(&l->dict, n->conv == PW_BYTES,
                     (size_t)w->opts.dict_bytes * 4 + (64u << 20));
        l->use_dict = w->opts.dictionary && n->conv != PW_BOOL;
        return ZB_OK;
    }
    if (depth >= MAX_PATH)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "schema nested too deeply");
    for (c = 0; c < n->n_children; c++) {
        stack[depth] = n->children[c];
        child[depth] = c;
        if ((rc = assign_paths(w, ctx, n->children[c], stack, child,
                               depth + 1)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int make_paths(pq_writer *w, zb_ctx *ctx)
{
    const pw_node *stack[MAX_PATH];
    size_t child[MAX_PATH];

    if ((w->leaves = zb_arena_calloc(w->arena, w->schema.n_leaves + 1,
                                     sizeof *w->leaves)) == NULL)
        return zb_fail_oom(ctx);
    return assign_paths(w, ctx, w->schema.root, stack, child, 0);
}

int pq_writer_open(pq_writer **out, zb_io *io, zb_ctx *ctx, const char *uri,
                   const struct ArrowSchema *schema,
                   const pq_writer_opts *opts)
{
    pq_writer_opts defaults = PQ_WRITER_OPTS_INIT;
    pq_writer *w;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri && schema);
    *out = NULL;
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->opts = opts ? *opts : defaults;
    if (w->opts.page_bytes == 0)
        w->opts.page_bytes = defaults.page_bytes;
    if (w->opts.row_group_bytes == 0)
        w->opts.row_group_bytes = defaults.row_group_bytes;
    zb_buf_init(&w->page, (size_t)1 << 31);
    zb_buf_init(&w->compressed, (size_t)1 << 31);
    zb_buf_init(&w->header, 1 << 20);
    zb_buf_init(&w->col_index, (size_t)1 << 31);
    zb_buf_init(&w->off_index, (size_t)1 << 31);
    if ((w->uri = zb_strdup(uri)) == NULL ||
        zb_arena_new(&w->arena, (size_t)1 << 30) < 0 ||
        zb_codec_state_new(&w->codec) < 0) {
        pq_writer_abort(w);
        return zb_fail_oom(ctx);
    }
    w->algorithm = pq_codec_algorithm(w->opts.codec);
    if (w->algorithm < 0 || zb_codec_compress_bound(w->algorithm, 1) == 0) {
        pq_writer_abort(w);
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: codec %s cannot be "
                       "written", uri, pq_codec_name(w->opts.codec));
    }
    if ((rc = pw_schema_build(&w->schema, w->arena, ctx, schema)) < 0 ||
        (rc = make_paths(w, ctx)) < 0 ||
        (rc = zb_io_writer_open(&w->out, io, ctx, uri)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, "PAR1", 4)) < 0) {
        zb_err_prefix(ctx, "%s", uri);
        pq_writer_abort(w);
        return rc;
    }
    *out = w;
    return ZB_OK;
}

/*
 * Whether to stop using the chunk's dictionary: it outgrew its size, or
 * after the first thousands of values nearly every value is new (ids,
 * payloads), where a dictionary only costs time. The switch happens at a
 * row boundary: the page is flushed and flush_page turns it off.
 */
static int dictionary_done(const pq_writer *w, const leaf *l)
{
    uint64_t seen = (uint64_t)l->chunk_values + l->page_values;

    return l->dict.plain.len >= w->opts.dict_bytes ||
           (seen >= DICT_PROBE_VALUES && l->dict.n * 4 > seen * 3);
}

uint64_t pq_writer_bytes(const pq_writer *w)
{
    /* The page index waiting for close counts: it goes to the file. */
    uint64_t n = w->file_pos + w->col_index.len + w->off_index.len;
    size_t i;

    for (i = 0; i < w->schema.n_leaves; i++)
        n += w->leaves[i].chunk.len + vals_len(&w->leaves[i]) +
             w->leaves[i].dict.plain.len + w->leaves[i].indices.len / 4 +
             w->leaves[i].defs.len / 4 + w->leaves[i].reps.len / 4;
    return n;
}

static uint64_t buffered(const pq_writer *w)
{
    return pq_writer_bytes(w) - w->file_pos - w->col_index.len -
           w->off_index.len;
}

#define SLICE_ROWS 4096

/* After a flush within a slice: the page's gap may have grown, so the
 * room reserved for the slice's values is reserved again. */
static int rereserve(zb_ctx *ctx, leaf *l, size_t room)
{
    if (zb_buf_reserve(&l->values, room) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                       l->node->name);
    return ZB_OK;
}

/*
 * shred for a top-level primitive column (nothing above it): rows from..to
 * of a (batch offset included), its levels written in place and 4- and
 * 8-byte values copied without the per-value dispatch of shred. Pages
 * end at the same rows as through shred, so the output is the same.
 */
static int shred_top(pq_writer *w, zb_ctx *ctx, leaf *l,
                     const struct ArrowArray *a, int64_t from, int64_t to)
{
    const pw_node *n = l->node;
    const uint8_t *bits = n->nullable && a->null_count != 0
                              ? a->buffers[0] : NULL;
    const uint8_t *vals = a->buffers[1];
    const int32_t *offs = a->buffers[1];
    size_t width = 0, rows = (size_t)(to - from), room;
    int floating = n->conv == PW_FLOAT || n->conv == PW_DOUBLE;
    int64_t r;
    int rc;

    if (n->conv == PW_I32 || n->conv == PW_FLOAT)
        width = 4;
    else if (n->conv == PW_I64 || n->conv == PW_DOUBLE)
        width = 8;
    else if (n->conv == PW_BOOL)
        width = 1;
    room = rows * width;
    if (n->conv == PW_BYTES) {
        int64_t lo = offs[a->offset + from], hi = offs[a->offset + to];
        if (hi < lo)
            return zb_fail(ctx, ZB_EINVAL, "column %s: decreasing offsets",
                           n->name);
        room = rows * 4 + (size_t)(hi - lo);
    }
    /* Room for every row's level and value: a flush on the way only
     * empties the buffers. */
    if ((n->max_def > 0 && zb_buf_reserve(&l->defs, rows * 2) < 0) ||
        zb_buf_reserve(&l->values, room) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large", n->name);
    /* No nulls, 4- or 8-byte PLAIN values: whole runs up to the next
     * page end at once (a page ends before the row that finds it full). */
    r = from;
    while (bits == NULL && width > 1 && !l->use_dict && r < to) {
        size_t left, k, j;
        if (vals_len(l) >= w->opts.page_bytes) {
            if ((rc = flush_page(w, ctx, l)) < 0 ||
                (rc = rereserve(ctx, l, room)) < 0)
                return rc;
            continue;
        }
        left = (size_t)w->opts.page_bytes - vals_len(l);
        k = (left + width - 1) / width;
        if (k > (size_t)(to - r))
            k = (size_t)(to - r);
        memcpy(l->values.ptr + l->values.len,
               vals + (a->offset + r) * (int64_t)width, k * width);
        if (floating)
            for (j = 0; j < k; j++)
                pq_write_metrics__nan(l, (const uint8_t *)l->values.ptr +
                                             l->values.len + j * width);
        l->values.len += k * width;
        if (n->max_def > 0) {
            uint16_t d = (uint16_t)n->max_def;
            for (j = 0; j < k; j++)
                memcpy(l->defs.ptr + l->defs.len + 2 * j, &d, 2);
            l->defs.len += 2 * k;
        }
        l->page_levels += k;
        l->page_values += k;
        l->page_plain_bytes += k * width;
        r += (int64_t)k;
    }
    for (; r < to; r++) {
        int64_t p = a->offset + r;
        int valid = bits == NULL || zb_arrow_bit(bits, p);

        if ((vals_len(l) + l->indices.len >= w->opts.page_bytes ||
             (l->use_dict && dictionary_done(w, l))) &&
            ((rc = flush_page(w, ctx, l)) < 0 ||
             (rc = rereserve(ctx, l, room)) < 0))
            return rc;
        if (n->max_def > 0) {
            uint16_t d = valid ? (uint16_t)n->max_def : 0;
            memcpy(l->defs.ptr + l->defs.len, &d, 2);
            l->defs.len += 2;
        }
        l->page_levels++;
        if (!valid) {
            l->st.nulls++;
            l->pst.nulls++;
        } else if (l->use_dict) {
            if ((rc = put_value(l, ctx, a, r)) < 0)
                return rc;
        } else if (width > 1) {
            /* Bounds come from the page scan at flush (fixed widths). */
            const uint8_t *v = vals + p * (int64_t)width;
            if (width == 8)
                memcpy(l->values.ptr + l->values.len, v, 8);
            else
                memcpy(l->values.ptr + l->values.len, v, 4);
            l->values.len += width;
            l->page_values++;
            l->page_plain_bytes += width;
            if (floating)
                pq_write_metrics__nan(l, v);
        } else if (n->conv == PW_BOOL) {
            l->values.ptr[l->values.len++] = (char)zb_arrow_bit(vals, p);
            l->page_values++;
            l->page_plain_bytes += 1;
        } else if (n->conv == PW_BYTES) {
            /* Offsets rise (checked over the slice above): within it. */
            size_t len = (size_t)(offs[p + 1] - offs[p]);
            uint8_t *d = (uint8_t *)l->values.ptr + l->values.len;
            if (offs[p + 1] < offs[p])
                return zb_fail(ctx, ZB_EINVAL,
                               "column %s: decreasing offsets", n->name);
            put_le32(d, (uint32_t)len);
            memcpy(d + 4, (const uint8_t *)a->buffers[2] + offs[p], len);
            l->values.len += 4 + len;
            l->page_values++;
            l->page_plain_bytes += len + 4;
            track_extremes(l, len);
        } else if ((rc = put_value(l, ctx, a, r)) < 0) {
            return rc;
        }
    }
    if (l->defs.ptr)
        l->defs.ptr[l->defs.len] = '\0';
    if (l->values.ptr)
        l->values.ptr[l->values.len] = '\0';
    return ZB_OK;
}

int pq_writer_write(pq_writer *w, zb_ctx *ctx, const struct ArrowArray *batch)
{
    size_t i;
    int64_t r, start;
    int rc;

    ZB_ASSERT_ARG(w && ctx && batch);
    if (batch->n_children != (int64_t)w->schema.root->n_children)
        return zb_fail(ctx, ZB_EINVAL, "%s: batch has %lld columns, the "
                       "schema %zu", w->uri, (long long)batch->n_children,
                       w->schema.root->n_children);
    /* Column by column within slices of rows: one column's values stay
     * in cache, and a row group can still end every slice. */
    for (start = 0; start < batch->length; start += SLICE_ROWS) {
        int64_t end = batch->length - start < SLICE_ROWS
                          ? batch->length : start + SLICE_ROWS;
        for (i = 0; i < w->schema.n_leaves; i++) {
            leaf *l = &w->leaves[i];
            const struct ArrowArray *col = batch->children[l->path_child[0]];
            if (l->depth == 1) {
                if ((rc = shred_top(w, ctx, l, col, pidx(batch, start),
                                    pidx(batch, end))) < 0)
                    return zb_err_prefix(ctx, "%s", w->uri);
                continue;
            }
            for (r = start; r < end; r++) {
                if ((vals_len(l) + l->indices.len >= w->opts.page_bytes ||
                     (l->use_dict && dictionary_done(w, l))) &&
                    (rc = flush_page(w, ctx, l)) < 0)
                    return zb_err_prefix(ctx, "%s", w->uri);
                if ((rc = shred(l, ctx, 0, col, pidx(batch, r), 0, 0)) < 0)
                    return zb_err_prefix(ctx, "%s", w->uri);
            }
        }
        w->rows_in_group += (uint64_t)(end - start);
        w->rows_total += (uint64_t)(end - start);
        if (end < batch->length && buffered(w) >= w->opts.row_group_bytes &&
            (rc = pq_writer__flush_row_group(w, ctx)) < 0)
            return zb_err_prefix(ctx, "%s", w->uri);
    }
    if (buffered(w) >= w->opts.row_group_bytes &&
        (rc = pq_writer__flush_row_group(w, ctx)) < 0)
        return zb_err_prefix(ctx, "%s", w->uri);
    return ZB_OK;
}

static void free_buffers(pq_writer *w)
{
    size_t i;

    for (i = 0; w->leaves && i < w->schema.n_leaves; i++) {
        zb_buf_free(&w->leaves[i].defs);
        zb_buf_free(&w->leaves[i].reps);
        zb_buf_free(&w->leaves[i].values);
        zb_buf_free(&w->leaves[i].indices);
        zb_buf_free(&w->leaves[i].pages);
        spool_free(&w->leaves[i].chunk);
        pq_dict_free(&w->leaves[i].dict);
    }
    zb_buf_free(&w->page);
    zb_buf_free(&w->compressed);
    zb_buf_free(&w->header);
    zb_buf_free(&w->col_index);
    zb_buf_free(&w->off_index);
    zb_codec_state_free(w->codec);
    w->codec = NULL;
}

void pq_writer_abort(pq_writer *w)
{
    if (w == NULL)
        return;
    zb_io_writer_abort(w->out);
    free_buffers(w);
    zb_arena_free(w->arena);
    zb_free(w->uri);
    zb_free(w);
}

/* Writes every chunk's column indexes, then offset indexes, and turns
 * the footer's offsets into them into file offsets. */
static int write_page_index(pq_writer *w, zb_ctx *ctx)
{
    uint64_t ci_at = w->file_pos, oi_at = ci_at + w->col_index.len;
    size_t g, c;
    int rc;

    if (w->col_index.len == 0 && w->off_index.len == 0)
        return ZB_OK;
    if ((w->col_index.len &&
         (rc = pq_writer__write_bytes(w, ctx, w->col_index.ptr,
                                      w->col_index.len)) < 0) ||
        (w->off_index.len &&
         (rc = pq_writer__write_bytes(w, ctx, w->off_index.ptr,
                                      w->off_index.len)) < 0))
        return rc;
    for (g = 0; g < w->n_groups; g++)
        for (c = 0; c < w->groups[g].n_columns; c++) {
            pq_column_chunk *cc = &w->groups[g].columns[c];
            if (cc->has_column_index)
                cc->column_index_offset += (int64_t)ci_at;
            if (cc->has_offset_index)
                cc->offset_index_offset += (int64_t)oi_at;
        }
    return ZB_OK;
}

int pq_writer_close(pq_writer *w, zb_ctx *ctx, pq_write_result *result)
{
    pq_file_meta meta;
    zb_buf footer = ZB_BUF_INIT((size_t)1 << 30);
    uint8_t len[4];
    int rc;

    ZB_ASSERT_ARG(w && ctx);
    if (result)
        memset(result, 0, sizeof *result);
    if ((rc = pq_writer__flush_row_group(w, ctx)) < 0 ||
        (rc = write_page_index(w, ctx)) < 0)
        goto fail;
    memset(&meta, 0, sizeof meta);
    meta.version = 1;
    meta.schema = w->schema.elements;
    meta.n_schema = w->schema.n_elements;
    meta.num_rows = (int64_t)w->rows_total;
    meta.row_groups = w->groups;
    meta.n_row_groups = w->n_groups;
    meta.created_by = w->opts.created_by;
    if ((rc = pq_meta_write(&footer, ctx, &meta)) < 0)
        goto fail;
    put_le32(len, (uint32_t)footer.len);
    if ((rc = pq_writer__write_bytes(w, ctx, footer.ptr, footer.len)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, len, 4)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, "PAR1", 4)) < 0)
        goto fail;
    if (result && (rc = pq_write_metrics__result(result, w, ctx)) < 0)
        goto fail;
    rc = zb_io_writer_commit(w->out, ctx);
    if (rc < 0 && result)
        pq_write_result_free(result);
    w->out = NULL;
    zb_buf_free(&footer);
    pq_writer_abort(w);   /* frees the rest; nothing left to discard */
    return rc;
fail:
    zb_err_prefix(ctx, "%s", w->uri);
    zb_buf_free(&footer);
    pq_writer_abort(w);
    return rc;
}

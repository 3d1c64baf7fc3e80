/*
 * format/parquet/write/pq_write_shred.c - a batch's slots as levels and
 * PLAIN values in the current page of each leaf (see pq_writer.c).
 *
 * pq_writer__shred walks a leaf's path from the top-level array down
 * (Dremel), emitting a definition and repetition level per slot and a
 * value where the slot is defined all the way down; pq_writer__shred_top
 * takes top-level primitive columns a slice of rows at a time, with the
 * same result. Values go through the chunk's dictionary or into the page;
 * byte arrays' page bounds come from the page's least and greatest value,
 * tracked as values arrive.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/write/pq_write_schema.h"

static int is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];

    return a->null_count == 0 || bits == NULL ||
           zb_arrow_bit(bits, pq_writer__pidx(a, i));
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
        pq_writer__put_le32(lenb, (uint32_t)len);
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
    int64_t p = pq_writer__pidx(a, i);
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
int pq_writer__shred(leaf *l, zb_ctx *ctx, size_t k,
                     const struct ArrowArray *a, int64_t i, int16_t def,
                     int16_t rep)
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
        return pq_writer__shred(l, ctx, k + 1,
                                a->children[l->path_child[k + 1]],
                                pq_writer__pidx(a, i), def, rep);
    case PW_LIST:
    case PW_MAP: {
        const int32_t *o = a->buffers[1];
        int64_t p = pq_writer__pidx(a, i), j;
        const struct ArrowArray *child = a->children[0];
        if (o[p + 1] == o[p])
            return put_levels(l, ctx, def, rep);   /* empty */
        for (j = o[p]; j < o[p + 1]; j++) {
            if (n->kind == PW_MAP)
                /* entries struct (not nullable), then key or value */
                rc = pq_writer__shred(l, ctx, k + 2,
                                      child->children[l->path_child[k + 2]],
                                      pq_writer__pidx(child, j),
                                      (int16_t)(def + 1),
                                      j == o[p] ? rep : n->rep_level);
            else
                rc = pq_writer__shred(l, ctx, k + 1, child, j,
                                      (int16_t)(def + 1),
                                      j == o[p] ? rep : n->rep_level);
            if (rc < 0)
                return rc;
        }
        return ZB_OK;
    }
    }
    return ZB_OK;
}

/* After a flush within a slice: the room reserved for the slice's
 * values is reserved again. */
static int rereserve(zb_ctx *ctx, leaf *l, size_t room)
{
    if (zb_buf_reserve(&l->values, room) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large",
                       l->node->name);
    return ZB_OK;
}

/*
 * pq_writer__shred for a top-level primitive column (nothing above it):
 * rows from..to of a (batch offset included), its levels written in place
 * and 4- and 8-byte values copied without the per-value dispatch of
 * pq_writer__shred. Pages end at the same rows as through
 * pq_writer__shred, so the output is the same.
 */
/* Long on purpose: the writer's hot loop; the run copy and the per-row
 * loop stay in one function so that a row costs no call. */
int pq_writer__shred_top(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                         leaf *l, const struct ArrowArray *a, int64_t from,
                         int64_t to)
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
        if (pq_writer__vals_len(l) >= w->opts.page_bytes) {
            if ((rc = pq_writer__flush_page(w, s, ctx, l)) < 0 ||
                (rc = rereserve(ctx, l, room)) < 0)
                return rc;
            continue;
        }
        left = (size_t)w->opts.page_bytes - pq_writer__vals_len(l);
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

        if ((pq_writer__vals_len(l) + l->indices.len >= w->opts.page_bytes ||
             (l->use_dict && pq_writer__dictionary_done(w, l))) &&
            ((rc = pq_writer__flush_page(w, s, ctx, l)) < 0 ||
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
            pq_writer__put_le32(d, (uint32_t)len);
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

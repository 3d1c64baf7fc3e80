/*
 * exec/arrow/arrow_take.c - gather rows of several arrays into a new one
 * (zb_arrow_take, declared in exec/arrow/arrow_spill.h).
 *
 * The gather is column by column, recursively: a node gets the list of
 * (source, logical row) pairs it must produce, fills its own buffers, and
 * hands its children their list: the same rows shifted by the source
 * node's offset for a struct (Arrow applies a parent's offset to its
 * children), the element ranges of the offsets for a list, and N
 * consecutive elements per row for a fixed-size list. Each node's source
 * arrays (the same child of every source batch) are gathered into a
 * pointer table per level.
 *
 * Sorted runs and merged output are built with it: xsort gathers the rows
 * of a run in key order from the batches it holds, and the rows of each
 * output batch from the blocks of the runs being merged.
 */
#include <string.h>

#include "exec/arrow/arrow_spill.h"
#include "util/alloc.h"
#include "util/err.h"

typedef zb_arrow_rowref rowref;

static int64_t pos_of(const struct ArrowArray *const *srcs, const rowref *r)
{
    return srcs[r->src]->offset + (int64_t)r->row;
}

static int64_t off_at(const struct ArrowArray *a, int wide, int64_t i)
{
    return wide ? ((const int64_t *)a->buffers[1])[i]
                : ((const int32_t *)a->buffers[1])[i];
}

static void *alloc_buf(size_t n)
{
    return zb_calloc(1, n ? n : 1);
}

static int take_node(struct ArrowArray *out, const struct ArrowSchema *s,
                     const struct ArrowArray *const *srcs, size_t nsrc,
                     const rowref *refs, size_t n);

/* The children of a node: one child of every source, in a new table. */
static int child_srcs(const struct ArrowArray ***out,
                      const struct ArrowArray *const *srcs, size_t nsrc,
                      int64_t c)
{
    const struct ArrowArray **t;
    size_t i;

    if ((t = zb_malloc((nsrc ? nsrc : 1) * sizeof *t)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < nsrc; i++)
        t[i] = srcs[i] ? srcs[i]->children[c] : NULL;
    *out = t;
    return ZB_OK;
}

static int take_validity(struct ArrowArray *out,
                         const struct ArrowArray *const *srcs, size_t nsrc,
                         const rowref *refs, size_t n, int all_null)
{
    uint8_t *bits;
    size_t i;
    int any = 0;
    int64_t nulls = 0;

    if (all_null) {
        out->null_count = (int64_t)n;
        return ZB_OK;
    }
    for (i = 0; i < nsrc && !any; i++)
        any = srcs[i] && srcs[i]->null_count != 0 &&
              srcs[i]->buffers[0] != NULL;
    out->null_count = 0;
    if (!any)
        return ZB_OK;
    if ((bits = alloc_buf((n + 7) / 8)) == NULL)
        return ZB_ENOMEM;
    out->buffers[0] = bits;
    for (i = 0; i < n; i++) {
        const struct ArrowArray *a = srcs[refs[i].src];
        const uint8_t *v = a->buffers[0];
        if (v == NULL || zb_arrow_bit(v, pos_of(srcs, &refs[i])))
            zb_arrow_set_bit(bits, (int64_t)i);
        else
            nulls++;
    }
    out->null_count = nulls;
    return ZB_OK;
}

static int take_fixed(struct ArrowArray *out,
                      const struct ArrowArray *const *srcs,
                      const rowref *refs, size_t n, int64_t w)
{
    uint8_t *d;
    size_t i, bytes;

    if (zb_mul_overflow(&bytes, n, (size_t)w) ||
        (d = zb_malloc(bytes ? bytes : 1)) == NULL)
        return ZB_ENOMEM;
    out->buffers[1] = d;
    switch (w) {
#define CASE(W, T)                                                         \
    case W:                                                                \
        for (i = 0; i < n; i++)                                            \
            ((T *)d)[i] = ((const T *)srcs[refs[i].src]->buffers[1])       \
                [pos_of(srcs, &refs[i])];                                  \
        break;
    CASE(1, uint8_t)
    CASE(2, uint16_t)
    CASE(4, uint32_t)
    CASE(8, uint64_t)
#undef CASE
    default:
        for (i = 0; i < n; i++)
            memcpy(d + i * (size_t)w,
                   (const uint8_t *)srcs[refs[i].src]->buffers[1] +
                       pos_of(srcs, &refs[i]) * w,
                   (size_t)w);
    }
    return ZB_OK;
}

static int take_bool(struct ArrowArray *out,
                     const struct ArrowArray *const *srcs,
                     const rowref *refs, size_t n)
{
    uint8_t *d;
    size_t i;

    if ((d = alloc_buf((n + 7) / 8)) == NULL)
        return ZB_ENOMEM;
    out->buffers[1] = d;
    for (i = 0; i < n; i++)
        if (zb_arrow_bit(srcs[refs[i].src]->buffers[1],
                         pos_of(srcs, &refs[i])))
            zb_arrow_set_bit(d, (int64_t)i);
    return ZB_OK;
}

/* Writes offsets of the gathered rows; *total gets the last one. */
static int take_offsets(struct ArrowArray *out,
                        const struct ArrowArray *const *srcs,
                        const rowref *refs, size_t n, int wide,
                        uint64_t *total)
{
    void *o;
    uint64_t sum = 0;
    size_t i;

    if ((o = zb_malloc((n + 1) * (wide ? 8 : 4))) == NULL)
        return ZB_ENOMEM;
    out->buffers[1] = o;
    for (i = 0; i <= n; i++) {
        if (wide)
            ((int64_t *)o)[i] = (int64_t)sum;
        else
            ((int32_t *)o)[i] = (int32_t)sum;
        if (i < n) {
            const struct ArrowArray *a = srcs[refs[i].src];
            int64_t p = pos_of(srcs, &refs[i]);
            sum += (uint64_t)(off_at(a, wide, p + 1) - off_at(a, wide, p));
            if (!wide && sum > INT32_MAX)
                return ZB_ENOMEM;   /* needs 64-bit offsets */
        }
    }
    *total = sum;
    return ZB_OK;
}

static int take_binary(struct ArrowArray *out,
                       const struct ArrowArray *const *srcs,
                       const rowref *refs, size_t n, int wide)
{
    uint64_t total;
    uint8_t *d;
    size_t i, at = 0;
    int rc;

    if ((rc = take_offsets(out, srcs, refs, n, wide, &total)) < 0)
        return rc;
    if ((d = zb_malloc(total ? (size_t)total : 1)) == NULL)
        return ZB_ENOMEM;
    out->buffers[2] = d;
    for (i = 0; i < n; i++) {
        const struct ArrowArray *a = srcs[refs[i].src];
        int64_t p = pos_of(srcs, &refs[i]);
        int64_t lo = off_at(a, wide, p), len = off_at(a, wide, p + 1) - lo;
        memcpy(d + at, (const uint8_t *)a->buffers[2] + lo, (size_t)len);
        at += (size_t)len;
    }
    return ZB_OK;
}

static int take_struct(struct ArrowArray *out, const struct ArrowSchema *s,
                       const struct ArrowArray *const *srcs, size_t nsrc,
                       const rowref *refs, size_t n)
{
    const struct ArrowArray **cs = NULL;
    rowref *cr;
    size_t i;
    int64_t c;
    int rc = ZB_OK;

    if ((cr = zb_malloc((n ? n : 1) * sizeof *cr)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < n; i++) {
        cr[i].src = refs[i].src;
        cr[i].row = (uint32_t)pos_of(srcs, &refs[i]);
    }
    for (c = 0; c < s->n_children && rc == ZB_OK; c++) {
        if ((rc = child_srcs(&cs, srcs, nsrc, c)) < 0)
            break;
        rc = take_node(out->children[c], s->children[c], cs, nsrc, cr, n);
        zb_free(cs);
    }
    zb_free(cr);
    return rc;
}

static int take_list(struct ArrowArray *out, const struct ArrowSchema *s,
                     const struct ArrowArray *const *srcs, size_t nsrc,
                     const rowref *refs, size_t n, int wide, int64_t fixed)
{
    const struct ArrowArray **cs = NULL;
    rowref *cr = NULL;
    uint64_t total = 0;
    size_t i, at = 0;
    int64_t j, lo, hi;
    int rc;

    if (fixed)
        total = (uint64_t)n * (uint64_t)fixed;
    else if ((rc = take_offsets(out, srcs, refs, n, wide, &total)) < 0)
        return rc;
    if (total > UINT32_MAX ||
        (cr = zb_malloc(total ? (size_t)total * sizeof *cr : 1)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < n; i++) {
        const struct ArrowArray *a = srcs[refs[i].src];
        int64_t p = pos_of(srcs, &refs[i]);
        lo = fixed ? p * fixed : off_at(a, wide, p);
        hi = fixed ? lo + fixed : off_at(a, wide, p + 1);
        for (j = lo; j < hi; j++) {
            cr[at].src = refs[i].src;
            cr[at++].row = (uint32_t)j;
        }
    }
    if ((rc = child_srcs(&cs, srcs, nsrc, 0)) == ZB_OK)
        rc = take_node(out->children[0], s->children[0], cs, nsrc, cr,
                       (size_t)total);
    zb_free(cs);
    zb_free(cr);
    return rc;
}

static int take_node(struct ArrowArray *out, const struct ArrowSchema *s,
                     const struct ArrowArray *const *srcs, size_t nsrc,
                     const rowref *refs, size_t n)
{
    static const int64_t nbuf[] = { 0, 2, 2, 3, 3, 1, 2, 2, 1 };
    zb_arrow_kind k;
    int64_t w;
    int rc;

    if (zb_arrow_kind_of(&k, &w, s->format) < 0)
        return ZB_EUNSUPPORTED;
    if ((rc = zb_arrow_array_init(out, nbuf[k],
                                  k == ZB_ARROW_STRUCT ? s->n_children
                                  : k >= ZB_ARROW_LIST32 ? 1 : 0)) < 0)
        return rc;
    out->length = (int64_t)n;
    if ((rc = take_validity(out, srcs, nsrc, refs, n,
                            k == ZB_ARROW_NULL)) < 0)
        return rc;
    switch (k) {
    case ZB_ARROW_NULL:
        return ZB_OK;
    case ZB_ARROW_BOOL:
        return take_bool(out, srcs, refs, n);
    case ZB_ARROW_FIXED:
        return take_fixed(out, srcs, refs, n, w);
    case ZB_ARROW_BIN32:
    case ZB_ARROW_BIN64:
        return take_binary(out, srcs, refs, n, k == ZB_ARROW_BIN64);
    case ZB_ARROW_STRUCT:
        return take_struct(out, s, srcs, nsrc, refs, n);
    case ZB_ARROW_LIST32:
    case ZB_ARROW_LIST64:
        return take_list(out, s, srcs, nsrc, refs, n, k == ZB_ARROW_LIST64,
                         0);
    case ZB_ARROW_FIXLIST:
        return take_list(out, s, srcs, nsrc, refs, n, 0, w);
    }
    return ZB_OK;
}

int zb_arrow_take(struct ArrowArray *out, const struct ArrowSchema *schema,
                  const struct ArrowArray *const *srcs,
                  const zb_arrow_rowref *refs, size_t n)
{
    size_t nsrc = 0, i;
    int rc;

    for (i = 0; i < n; i++)
        if (refs[i].src >= nsrc)
            nsrc = refs[i].src + 1;
    rc = take_node(out, schema, srcs, nsrc, refs, n);
    if (rc < 0)
        zb_arrow_array_release(out);
    return rc;
}

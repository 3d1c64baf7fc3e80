/*
 * exec/sort/sortkey.c - normalized sort keys and z-order keys (encoding rules
 * in exec/sort/sortkey.h).
 *
 *   zb_sortkey_new     resolve each column's path in the schema to a leaf
 *                      and its encoding
 *   zb_sortkey_build   append one key per row of a batch
 *
 * Keys are built row by row: for each column the chain of arrays from the
 * root to the leaf is looked up once per batch, then per row the position
 * walks down the chain (a struct child's position is its own offset plus
 * its parent's position), the first null level makes the value null, and
 * the leaf's value is encoded into the key buffer, whose capacity is
 * ensured for the row's worst case first (an escaped string takes at most
 * 2 * len + 2 bytes).
 */
#define ZB_MODULE "sortkey"

#include <string.h>

#include "exec/sort/sortkey.h"
#include "exec/arrow/arrow_spill.h"
#include "util/alloc.h"
#include "util/err.h"

#define MAX_COLS 64

typedef enum enc_type {
    ET_NULL, ET_BOOL, ET_SINT, ET_UINT, ET_F16, ET_F32, ET_F64, ET_DEC,
    ET_BIN32, ET_BIN64, ET_FIXBIN, ET_IV_DT, ET_IV_MDN
} enc_type;

typedef struct col {
    zb_sort_col c;
    enc_type et;
    int64_t width;       /* value bytes in the array */
} col;

struct zb_sortkey {
    zb_sortkey_mode mode;
    unsigned bits;
    size_t ncols;
    col cols[MAX_COLS];
};

static int classify(col *c, const char *f)
{
    zb_arrow_kind k;

    if (zb_arrow_kind_of(&k, &c->width, f) < 0)
        return ZB_EINVAL;
    switch (k) {
    case ZB_ARROW_NULL: c->et = ET_NULL; return ZB_OK;
    case ZB_ARROW_BOOL: c->et = ET_BOOL; return ZB_OK;
    case ZB_ARROW_BIN32: c->et = ET_BIN32; return ZB_OK;
    case ZB_ARROW_BIN64: c->et = ET_BIN64; return ZB_OK;
    case ZB_ARROW_FIXED: break;
    default: return ZB_EINVAL;
    }
    if (f[0] == 'w') c->et = ET_FIXBIN;
    else if (f[0] == 'd') c->et = ET_DEC;
    else if (f[0] == 'e') c->et = ET_F16;
    else if (f[0] == 'f') c->et = ET_F32;
    else if (f[0] == 'g') c->et = ET_F64;
    else if (strchr("CSIL", f[0]) && f[1] == '\0') c->et = ET_UINT;
    else if (!strcmp(f, "tiD")) c->et = ET_IV_DT;
    else if (!strcmp(f, "tin")) c->et = ET_IV_MDN;
    else c->et = ET_SINT;
    return ZB_OK;
}

int zb_sortkey_new(zb_sortkey **out, zb_ctx *ctx, const zb_sortkey_spec *spec,
                   const struct ArrowSchema *schema)
{
    zb_sortkey *k;
    size_t i;
    int d;

    *out = NULL;
    if (spec->ncols < 1 || spec->ncols > MAX_COLS)
        return zb_fail(ctx, ZB_EINVAL, "sort keys need 1 to %d columns, "
                       "not %zu", MAX_COLS, spec->ncols);
    if (spec->mode == ZB_SORTKEY_ZORDER &&
        (spec->ncols < 2 || spec->ncols > ZB_ZORDER_MAX_COLS ||
         spec->zorder_bits < 1 || spec->zorder_bits > 32 ||
         spec->ncols * spec->zorder_bits > 62))
        return zb_fail(ctx, ZB_EINVAL,
                       "z-order needs 2 to %d columns and 1 to 32 bits with "
                       "columns * bits <= 62 (got %zu columns, %u bits)",
                       ZB_ZORDER_MAX_COLS, spec->ncols, spec->zorder_bits);
    if (schema == NULL || schema->format == NULL ||
        strcmp(schema->format, "+s") != 0)
        return zb_fail(ctx, ZB_EINVAL, "sort keys need a struct batch");
    if ((k = zb_calloc(1, sizeof *k)) == NULL)
        return zb_fail_oom(ctx);
    k->mode = spec->mode;
    k->bits = spec->zorder_bits;
    k->ncols = spec->ncols;
    for (i = 0; i < spec->ncols; i++) {
        const struct ArrowSchema *s = schema;
        col *c = &k->cols[i];

        c->c = spec->cols[i];
        if (c->c.depth < 1 || c->c.depth > ZB_SORTKEY_MAX_DEPTH)
            goto bad;
        for (d = 0; d < c->c.depth; d++) {
            if (strcmp(s->format, "+s") != 0 || c->c.path[d] < 0 ||
                c->c.path[d] >= s->n_children)
                goto bad;
            s = s->children[c->c.path[d]];
        }
        if (classify(c, s->format) == ZB_OK)
            continue;
        zb_sortkey_free(k);
        return zb_fail(ctx, ZB_EINVAL,
                       "sort column %zu ('%s', Arrow format '%s') cannot be "
                       "a sort key", i, s->name ? s->name : "", s->format);
bad:
        zb_sortkey_free(k);
        return zb_fail(ctx, ZB_EINVAL, "sort column %zu: bad field path", i);
    }
    *out = k;
    return ZB_OK;
}

void zb_sortkey_free(zb_sortkey *k)
{
    zb_free(k);
}

/* ---- value encoding ---------------------------------------------------- */

static void put_be(uint8_t *d, uint64_t v, int bytes)
{
    int i;

    for (i = bytes - 1; i >= 0; i--) {
        d[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint64_t load_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    int i;

    for (i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Total-order bits of an IEEE value of the given width (NaN canonical). */
static uint64_t float_key(uint64_t u, int bits)
{
    uint64_t sign = 1ull << (bits - 1);
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    int mant = bits == 16 ? 10 : bits == 32 ? 23 : 52;
    uint64_t expm = (all >> 1) & ~((1ull << mant) - 1);

    if ((u & expm) == expm && (u & ((1ull << mant) - 1)) != 0)
        u = expm | (1ull << (mant - 1));        /* positive quiet NaN */
    return (u & sign) ? (~u & all) : (u | sign);
}

/* Leaf position of row (in root logical rows), or -1 when null. */
static int64_t leaf_pos(const struct ArrowArray *const *chain, int depth,
                        int64_t row)
{
    int64_t pos = chain[0]->offset + row;
    int d;

    for (d = 0; d <= depth; d++) {
        const struct ArrowArray *a = chain[d];
        if (d > 0)
            pos += a->offset;
        if (a->null_count != 0 && a->n_buffers > 0 && a->buffers[0] &&
            !zb_arrow_bit(a->buffers[0], pos))
            return -1;
        if (a->n_buffers == 0 && d == depth)
            return -1;  /* null type */
    }
    return pos;
}

static size_t bin_escaped(const uint8_t *p, size_t n, uint8_t *d)
{
    const uint8_t *z;
    size_t o = 0, k;

    while (n > 0) {
        z = memchr(p, 0, n);
        k = z ? (size_t)(z - p) + 1 : n;
        memcpy(d + o, p, k);
        o += k;
        if (z)
            d[o++] = 0xFF;
        p += k;
        n -= k;
    }
    d[o++] = 0;
    d[o++] = 0;
    return o;
}

static void bin_range(const struct ArrowArray *a, enc_type et, int64_t pos,
                      const uint8_t **p, size_t *n)
{
    int64_t lo, hi;

    if (et == ET_BIN32) {
        lo = ((const int32_t *)a->buffers[1])[pos];
        hi = ((const int32_t *)a->buffers[1])[pos + 1];
    } else {
        lo = ((const int64_t *)a->buffers[1])[pos];
        hi = ((const int64_t *)a->buffers[1])[pos + 1];
    }
    *p = (const uint8_t *)a->buffers[2] + lo;
    *n = (size_t)(hi - lo);
}

/* Ascending value bytes of a non-null value into d; returns the count. */
static size_t enc_value(const col *c, const struct ArrowArray *a,
                        int64_t pos, uint8_t *d)
{
    const uint8_t *v = NULL;
    int w = (int)c->width;
    uint64_t x;
    const uint8_t *p;
    size_t n;

    if (c->et != ET_BOOL && c->et != ET_BIN32 && c->et != ET_BIN64 &&
        c->et != ET_NULL)
        v = (const uint8_t *)a->buffers[1] + pos * c->width;
    switch (c->et) {
    case ET_NULL:
        return 0;
    case ET_BOOL:
        d[0] = (uint8_t)zb_arrow_bit(a->buffers[1], pos);
        return 1;
    case ET_SINT:
        x = load_le(v, w) ^ (1ull << (8 * w - 1));
        put_be(d, x, w);
        return (size_t)w;
    case ET_UINT:
        put_be(d, load_le(v, w), w);
        return (size_t)w;
    case ET_F16:
        put_be(d, float_key(load_le(v, 2), 16), 2);
        return 2;
    case ET_F32:
        put_be(d, float_key(load_le(v, 4), 32), 4);
        return 4;
    case ET_F64:
        put_be(d, float_key(load_le(v, 8), 64), 8);
        return 8;
    case ET_DEC:
        put_be(d, load_le(v + 8, 8) ^ (1ull << 63), 8);
        put_be(d + 8, load_le(v, 8), 8);
        return 16;
    case ET_FIXBIN:
        memcpy(d, v, (size_t)w);
        return (size_t)w;
    case ET_IV_DT:
        put_be(d, load_le(v, 4) ^ (1u << 31), 4);
        put_be(d + 4, load_le(v + 4, 4) ^ (1u << 31), 4);
        return 8;
    case ET_IV_MDN:
        put_be(d, load_le(v, 4) ^ (1u << 31), 4);
        put_be(d + 4, load_le(v + 4, 4) ^ (1u << 31), 4);
        put_be(d + 8, load_le(v + 8, 8) ^ (1ull << 63), 8);
        return 16;
    case ET_BIN32:
    case ET_BIN64:
        bin_range(a, c->et, pos, &p, &n);
        return bin_escaped(p, n, d);
    }
    return 0;
}

/* Worst-case value bytes of a row's value. */
static size_t value_max(const col *c, const struct ArrowArray *a, int64_t pos)
{
    const uint8_t *p;
    size_t n;

    switch (c->et) {
    case ET_BIN32:
    case ET_BIN64:
        bin_range(a, c->et, pos, &p, &n);
        return 2 * n + 2;
    case ET_BOOL: return 1;
    case ET_NULL: return 0;
    case ET_IV_DT: return 8;
    default: return (size_t)c->width;
    }
}

/* The z-order normalized 64-bit value of a non-null value. */
static uint64_t zvalue(const col *c, const struct ArrowArray *a, int64_t pos)
{
    uint8_t tmp[16];
    const uint8_t *p;
    size_t n, i;
    uint64_t x = 0;

    if (c->et == ET_BIN32 || c->et == ET_BIN64 || c->et == ET_FIXBIN) {
        if (c->et == ET_FIXBIN) {
            p = (const uint8_t *)a->buffers[1] + pos * c->width;
            n = (size_t)c->width;
        } else {
            bin_range(a, c->et, pos, &p, &n);
        }
        for (i = 0; i < 8; i++)
            x = x << 8 | (i < n ? p[i] : 0);
        return x;
    }
    if (c->et == ET_DEC) {
        const uint8_t *v = (const uint8_t *)a->buffers[1] + pos * 16;
        uint64_t lo = load_le(v, 8), hi = load_le(v + 8, 8);
        int64_t s;
        if (hi == 0 && lo <= (uint64_t)INT64_MAX)
            s = (int64_t)lo;
        else if (hi == ~0ull && lo > (uint64_t)INT64_MAX)
            s = (int64_t)(lo - (1ull << 63)) + INT64_MIN;
        else
            s = (hi >> 63) ? INT64_MIN : INT64_MAX;
        return (uint64_t)s ^ (1ull << 63);
    }
    n = enc_value(c, a, pos, tmp);
    for (i = 0; i < 8; i++)
        x = x << 8 | (i < n ? tmp[i] : 0);
    return x;
}

uint64_t zb_zorder_interleave(const uint32_t *vals, unsigned n, unsigned bits)
{
    uint64_t z = 0;
    int b;
    unsigned j;

    for (b = (int)bits - 1; b >= 0; b--)
        for (j = 0; j < n; j++)
            z = z << 1 | ((vals[j] >> b) & 1u);
    return z;
}

int zb_sortkey_cmp(const uint8_t *a, size_t alen, const uint8_t *b,
                   size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);

    if (r != 0)
        return r;
    return alen < blen ? -1 : alen > blen;
}

/* ---- building ---------------------------------------------------------- */

static int reserve(zb_keybuf *kb, size_t extra)
{
    size_t want, cap;
    uint8_t *d;

    if (zb_add_overflow(&want, kb->len, extra))
        return ZB_ENOMEM;
    if (want <= kb->cap)
        return ZB_OK;
    cap = kb->cap ? kb->cap : 4096;
    while (cap < want)
        cap *= 2;
    if ((d = zb_realloc(kb->data, cap)) == NULL)
        return ZB_ENOMEM;
    kb->data = d;
    kb->cap = cap;
    return ZB_OK;
}

int zb_sortkey_build(zb_keybuf *kb, zb_ctx *ctx, const zb_sortkey *k,
                     const struct ArrowArray *batch)
{
    const struct ArrowArray *chain[MAX_COLS][ZB_SORTKEY_MAX_DEPTH + 1];
    size_t i, save_len = kb->len, need;
    int64_t row, n = batch->length, pos;
    uint32_t zv[ZB_ZORDER_MAX_COLS];
    int d;

    for (i = 0; i < k->ncols; i++) {
        chain[i][0] = batch;
        for (d = 0; d < k->cols[i].c.depth; d++)
            chain[i][d + 1] = chain[i][d]->children[k->cols[i].c.path[d]];
    }
    if (kb->nkeys + (size_t)n + 1 > kb->offs_cap) {
        size_t cap = kb->offs_cap ? kb->offs_cap : 1024;
        uint64_t *o;
        while (cap < kb->nkeys + (size_t)n + 1)
            cap *= 2;
        if ((o = zb_realloc(kb->offs, cap * sizeof *o)) == NULL)
            return zb_fail_oom(ctx);
        kb->offs = o;
        kb->offs_cap = cap;
    }
    kb->offs[kb->nkeys] = kb->len;
    for (row = 0; row < n; row++) {
        if (k->mode == ZB_SORTKEY_ZORDER) {
            uint64_t z;
            for (i = 0; i < k->ncols; i++) {
                const col *c = &k->cols[i];
                pos = leaf_pos(chain[i], c->c.depth, row);
                zv[i] = pos < 0 ? 0
                        : (uint32_t)(zvalue(c, chain[i][c->c.depth], pos) >>
                                     (64 - k->bits));
            }
            z = zb_zorder_interleave(zv, (unsigned)k->ncols, k->bits);
            if (reserve(kb, 8) < 0)
                goto oom;
            put_be(kb->data + kb->len, z, 8);
            kb->len += 8;
        } else {
            for (i = 0; i < k->ncols; i++) {
                const col *c = &k->cols[i];
                const struct ArrowArray *leaf = chain[i][c->c.depth];
                uint8_t *dst;
                size_t m, j;

                pos = leaf_pos(chain[i], c->c.depth, row);
                need = 1 + (pos < 0 ? 0 : value_max(c, leaf, pos));
                if (reserve(kb, need) < 0)
                    goto oom;
                dst = kb->data + kb->len;
                if (pos < 0) {
                    dst[0] = c->c.nulls_first ? 0x00 : 0x02;
                    kb->len += 1;
                    continue;
                }
                dst[0] = 0x01;
                m = enc_value(c, leaf, pos, dst + 1);
                if (c->c.descending)
                    for (j = 1; j <= m; j++)
                        dst[j] = (uint8_t)~dst[j];
                kb->len += 1 + m;
            }
        }
        kb->offs[kb->nkeys + (size_t)row + 1] = kb->len;
    }
    kb->nkeys += (size_t)n;
    return ZB_OK;
oom:
    kb->len = save_len;
    return zb_fail_oom(ctx);
}

void zb_keybuf_clear(zb_keybuf *kb)
{
    kb->nkeys = 0;
    kb->len = 0;
}

void zb_keybuf_free(zb_keybuf *kb)
{
    zb_free(kb->data);
    zb_free(kb->offs);
    memset(kb, 0, sizeof *kb);
}

int zb_keybuf_reserve(zb_keybuf *kb, size_t nkeys, size_t key_bytes)
{
    uint8_t *d;
    uint64_t *o;
    size_t want;

    if (zb_add_overflow(&want, kb->len, key_bytes))
        return ZB_ENOMEM;
    if (want > kb->cap) {
        if ((d = zb_realloc(kb->data, want)) == NULL)
            return ZB_ENOMEM;
        kb->data = d;
        kb->cap = want;
    }
    if (zb_add_overflow(&want, kb->nkeys, nkeys) ||
        zb_add_overflow(&want, want, 1))
        return ZB_ENOMEM;
    if (want > kb->offs_cap) {
        if ((o = zb_realloc(kb->offs, want * sizeof *o)) == NULL)
            return ZB_ENOMEM;
        kb->offs = o;
        kb->offs_cap = want;
    }
    return ZB_OK;
}

void zb_keybuf_shrink(zb_keybuf *kb)
{
    uint8_t *d;
    uint64_t *o;

    if (kb->len > 0 && kb->len < kb->cap &&
        (d = zb_realloc(kb->data, kb->len)) != NULL) {
        kb->data = d;
        kb->cap = kb->len;
    }
    if (kb->nkeys > 0 && kb->nkeys + 1 < kb->offs_cap &&
        (o = zb_realloc(kb->offs, (kb->nkeys + 1) * sizeof *o)) != NULL) {
        kb->offs = o;
        kb->offs_cap = kb->nkeys + 1;
    }
}

size_t zb_keybuf_bytes(const zb_keybuf *kb)
{
    return kb->cap + kb->offs_cap * sizeof(uint64_t);
}

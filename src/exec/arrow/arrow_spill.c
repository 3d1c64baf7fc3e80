/*
 * exec/arrow/arrow_spill.c - Arrow arrays to and from spill files (see
 * exec/arrow/arrow_spill.h for the frame layout).
 *
 *   zb_arrow_kind_of    format string -> physical layout
 *   zb_arrow_check      schema/array shape agreement, before any write
 *   zb_arrow_spill_write  frame = header + encode(root, its logical rows)
 *   zb_arrow_spill_read / zb_arrow_decode  frame -> owned array
 *   zb_arrow_array_bytes  the payload size, counted without writing
 *
 * Encoding walks the tree once to count the payload (the frame header
 * holds its size, so a reader allocates once) and once to write it; both
 * walks are the same code with a counting sink, so the sizes agree by
 * construction. A node's range is (pos, n): pos is an index into its
 * buffers, offset included. Struct children see child->offset + pos;
 * list children the range their offsets span. Bitmaps that start at a
 * bit other than 0 are re-aligned through a small stack buffer.
 *
 * Decoding trusts nothing: every count is checked against the bytes left
 * in the frame before anything is allocated, and offsets must start at 0,
 * never decrease and end inside the data.
 */
#define ZB_MODULE "arrow_spill"

#include <string.h>

#include <lz4frame.h>

#include "exec/arrow/arrow_spill.h"
#include "util/alloc.h"
#include "util/err.h"

#define FRAME_MAGIC 0x31414257u   /* "WBA1" read little-endian: ZBA1 */
#define FRAME_HEAD 16
#define FRAME_RAW 0u              /* the header's flags: payload as is */
#define FRAME_LZ4 1u              /* u64 raw size, then an LZ4 frame */
#define PACK_CHUNK (64 * 1024)    /* input fed to LZ4F at a time */
#define MAX_DEPTH 64

int zb_arrow_kind_of(zb_arrow_kind *kind, int64_t *width, const char *f)
{
    long w = 0;

    *width = 0;
    if (f == NULL || f[0] == '\0')
        return ZB_EUNSUPPORTED;
    *kind = ZB_ARROW_FIXED;
    if (f[1] == '\0') {
        switch (f[0]) {
        case 'n': *kind = ZB_ARROW_NULL; return ZB_OK;
        case 'b': *kind = ZB_ARROW_BOOL; return ZB_OK;
        case 'c': case 'C': *width = 1; return ZB_OK;
        case 's': case 'S': case 'e': *width = 2; return ZB_OK;
        case 'i': case 'I': case 'f': *width = 4; return ZB_OK;
        case 'l': case 'L': case 'g': *width = 8; return ZB_OK;
        case 'u': case 'z': *kind = ZB_ARROW_BIN32; return ZB_OK;
        case 'U': case 'Z': *kind = ZB_ARROW_BIN64; return ZB_OK;
        default: return ZB_EUNSUPPORTED;
        }
    }
    if (f[0] == 'd' && f[1] == ':') {
        const char *c1 = strchr(f, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (c1 == NULL || (c2 && strcmp(c2, ",128") != 0))
            return ZB_EUNSUPPORTED;
        *width = 16;
        return ZB_OK;
    }
    if (f[0] == 'w' && f[1] == ':') {
        for (f += 2; *f >= '0' && *f <= '9' && w < (1L << 30); f++)
            w = w * 10 + (*f - '0');
        if (*f != '\0' || w <= 0 || w >= (1L << 30))
            return ZB_EUNSUPPORTED;
        *width = w;
        return ZB_OK;
    }
    if (f[0] == 't') {
        /* dates, times, durations, intervals: exact formats */
        static const struct { const char *f; int w; } tt[] = {
            { "tdD", 4 }, { "tdm", 8 }, { "tts", 4 }, { "ttm", 4 },
            { "ttu", 8 }, { "ttn", 8 }, { "tDs", 8 }, { "tDm", 8 },
            { "tDu", 8 }, { "tDn", 8 }, { "tiM", 4 }, { "tiD", 8 },
            { "tin", 16 },
        };
        size_t i;
        for (i = 0; i < sizeof tt / sizeof tt[0]; i++)
            if (strcmp(f, tt[i].f) == 0) {
                *width = tt[i].w;
                return ZB_OK;
            }
        /* timestamps: ts[smun]:[zone] */
        if (f[1] == 's' && f[2] && strchr("smun", f[2]) && f[3] == ':') {
            *width = 8;
            return ZB_OK;
        }
        return ZB_EUNSUPPORTED;
    }
    if (f[0] == '+') {
        if (!strcmp(f, "+s")) { *kind = ZB_ARROW_STRUCT; return ZB_OK; }
        if (!strcmp(f, "+l") || !strcmp(f, "+m")) {
            *kind = ZB_ARROW_LIST32;
            return ZB_OK;
        }
        if (!strcmp(f, "+L")) { *kind = ZB_ARROW_LIST64; return ZB_OK; }
        if (f[1] == 'w' && f[2] == ':') {
            for (f += 3; *f >= '0' && *f <= '9' && w < (1L << 30); f++)
                w = w * 10 + (*f - '0');
            if (*f != '\0' || w <= 0 || w >= (1L << 30))
                return ZB_EUNSUPPORTED;
            *kind = ZB_ARROW_FIXLIST;
            *width = w;
            return ZB_OK;
        }
    }
    return ZB_EUNSUPPORTED;
}

static int64_t kind_buffers(zb_arrow_kind k)
{
    static const int64_t nb[] = { 0, 2, 2, 3, 3, 1, 2, 2, 1 };
    return nb[k];
}

static int check_node(zb_ctx *ctx, const struct ArrowSchema *s,
                      const struct ArrowArray *a, int depth)
{
    zb_arrow_kind k;
    int64_t w, i, nc;
    int rc;
    const char *name = s->name ? s->name : "";

    if (depth > MAX_DEPTH)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "field '%s' nests too deep",
                       name);
    if (zb_arrow_kind_of(&k, &w, s->format) < 0 || s->dictionary ||
        a->dictionary)
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "field '%s': Arrow format '%s' is not supported", name,
                       s->format ? s->format : "(null)");
    nc = (k == ZB_ARROW_STRUCT) ? s->n_children
         : (k >= ZB_ARROW_LIST32) ? 1 : 0;
    if (s->n_children != nc || a->n_children != nc ||
        a->n_buffers != kind_buffers(k) || a->length < 0 || a->offset < 0)
        return zb_fail(ctx, ZB_EINVAL,
                       "field '%s' (format '%s'): array has %lld buffers and "
                       "%lld children, schema %lld children", name, s->format,
                       (long long)a->n_buffers, (long long)a->n_children,
                       (long long)s->n_children);
    for (i = 0; i < nc; i++)
        if ((rc = check_node(ctx, s->children[i], a->children[i],
                             depth + 1)) < 0)
            return rc;
    return ZB_OK;
}

int zb_arrow_check(zb_ctx *ctx, const struct ArrowSchema *schema,
                   const struct ArrowArray *array)
{
    return check_node(ctx, schema, array, 0);
}

/* ---- encoding ---------------------------------------------------------- */

/*
 * LZ4's frame format (lz4frame.h) rather than zstd: spilled rows are
 * written once and read once, so the codec's speed matters more than
 * its ratio, and LZ4 decompresses several times faster.
 */
struct zb_arrow_pack {
    LZ4F_cctx *c;
    LZ4F_dctx *d;
    uint8_t *out;        /* compressed output of one chunk */
    size_t out_cap;
    uint8_t *raw;        /* a packed frame's payload, decompressed */
    size_t raw_cap;
};

static const LZ4F_preferences_t pack_prefs = {
    { LZ4F_max64KB, LZ4F_blockLinked, LZ4F_noContentChecksum, LZ4F_frame,
      0, 0, LZ4F_noBlockChecksum },
    0, 0, 0, { 0, 0, 0 }
};

int zb_arrow_pack_new(zb_arrow_pack **out, zb_ctx *ctx)
{
    if ((*out = zb_calloc(1, sizeof **out)) == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

void zb_arrow_pack_free(zb_arrow_pack *p)
{
    if (p == NULL)
        return;
    LZ4F_freeCompressionContext(p->c);
    LZ4F_freeDecompressionContext(p->d);
    zb_free(p->out);
    zb_free(p->raw);
    zb_free(p);
}

uint64_t zb_arrow_pack_bytes(const zb_arrow_pack *p)
{
    if (p == NULL)
        return 0;
    /* LZ4F's contexts: a 64 KiB block, the 64 KiB linked window and
       LZ4's 16 KiB table, rounded up */
    return (p->c ? 256 * 1024 : 0) + (p->d ? 160 * 1024 : 0) +
           p->out_cap + p->raw_cap;
}

typedef struct enc {
    zb_spill *s;         /* NULL: count only */
    zb_ctx *ctx;
    uint64_t bytes;
    zb_arrow_pack *pk;   /* non-NULL: through LZ4F into s */
} enc;

static int pack_fail(zb_ctx *ctx, size_t r)
{
    return zb_fail(ctx, ZB_ERROR, "spill: LZ4 frame compression failed: %s",
                   LZ4F_getErrorName(r));
}

static int put(enc *e, const void *p, size_t n)
{
    const uint8_t *q = p;
    size_t k, r;
    int rc;

    e->bytes += n;
    if (e->s == NULL || n == 0)
        return ZB_OK;
    if (e->pk == NULL)
        return zb_spill_write(e->s, e->ctx, p, n);
    for (; n > 0; q += k, n -= k) {
        k = n < PACK_CHUNK ? n : PACK_CHUNK;
        r = LZ4F_compressUpdate(e->pk->c, e->pk->out, e->pk->out_cap, q, k,
                                NULL);
        if (LZ4F_isError(r))
            return pack_fail(e->ctx, r);
        if ((rc = zb_spill_write(e->s, e->ctx, e->pk->out, r)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int put_u64(enc *e, uint64_t v)
{
    return put(e, &v, 8);
}

/* Writes bits [pos, pos + n) of bits as a bitmap starting at bit 0. */
static int put_bits(enc *e, const uint8_t *bits, int64_t pos, int64_t n)
{
    uint8_t tmp[1024];
    int64_t done = 0, sh = pos & 7;
    const uint8_t *p = bits + (pos >> 3);
    int rc;

    if (e->s == NULL || sh == 0)
        return put(e, p, (size_t)((n + 7) / 8));
    while (done < n) {
        int64_t nbytes = (n - done + 7) / 8, i;
        if (nbytes > (int64_t)sizeof tmp)
            nbytes = sizeof tmp;
        for (i = 0; i < nbytes; i++) {
            int64_t b = (done >> 3) + i;
            unsigned v = p[b] >> sh;
            if (done + i * 8 + (8 - sh) < n)
                v |= (unsigned)p[b + 1] << (8 - sh);
            tmp[i] = (uint8_t)v;
        }
        if ((rc = put(e, tmp, (size_t)nbytes)) < 0)
            return rc;
        done += nbytes * 8;
    }
    return ZB_OK;
}

/* Writes offsets [pos, pos + n] rebased to start at 0. */
static int put_offsets(enc *e, const void *offs, int wide, int64_t pos,
                       int64_t n)
{
    int64_t tmp[256], i, done = 0;
    int32_t *t32 = (int32_t *)tmp;
    int rc;

    if (e->s == NULL) {
        e->bytes += (uint64_t)(n + 1) * (wide ? 8 : 4);
        return ZB_OK;
    }
    while (done <= n) {
        int64_t k = n + 1 - done;
        if (k > 256)
            k = 256;
        for (i = 0; i < k; i++) {
            if (wide)
                tmp[i] = ((const int64_t *)offs)[pos + done + i] -
                         ((const int64_t *)offs)[pos];
            else
                t32[i] = ((const int32_t *)offs)[pos + done + i] -
                         ((const int32_t *)offs)[pos];
        }
        if ((rc = put(e, tmp, (size_t)k * (wide ? 8 : 4))) < 0)
            return rc;
        done += k;
    }
    return ZB_OK;
}

static int64_t count_nulls(const struct ArrowArray *a, int64_t pos, int64_t n)
{
    const uint8_t *v = a->buffers[0];
    int64_t i, valid = 0;

    if (a->null_count == 0 || v == NULL)
        return 0;
    if (pos == a->offset && n == a->length && a->null_count > 0)
        return a->null_count;
    for (i = 0; i < n && ((pos + i) & 7); i++)
        valid += zb_arrow_bit(v, pos + i);
    for (; i + 8 <= n; i += 8)
        valid += __builtin_popcount(v[(pos + i) >> 3]);
    for (; i < n; i++)
        valid += zb_arrow_bit(v, pos + i);
    return n - valid;
}

static int64_t list_off(const struct ArrowArray *a, int wide, int64_t i)
{
    return wide ? ((const int64_t *)a->buffers[1])[i]
                : ((const int32_t *)a->buffers[1])[i];
}

static int encode(enc *e, const struct ArrowSchema *s,
                  const struct ArrowArray *a, int64_t pos, int64_t n)
{
    zb_arrow_kind k;
    int64_t w, nulls, i, lo, hi;
    int rc, wide;

    zb_arrow_kind_of(&k, &w, s->format);
    nulls = k == ZB_ARROW_NULL ? n : count_nulls(a, pos, n);
    if ((rc = put_u64(e, (uint64_t)n)) < 0 ||
        (rc = put_u64(e, (uint64_t)nulls)) < 0)
        return rc;
    if (nulls > 0 && k != ZB_ARROW_NULL &&
        (rc = put_bits(e, a->buffers[0], pos, n)) < 0)
        return rc;
    switch (k) {
    case ZB_ARROW_NULL:
        return ZB_OK;
    case ZB_ARROW_BOOL:
        return put_bits(e, a->buffers[1], pos, n);
    case ZB_ARROW_FIXED:
        return put(e, (const uint8_t *)a->buffers[1] + pos * w,
                   (size_t)(n * w));
    case ZB_ARROW_BIN32:
    case ZB_ARROW_BIN64:
        wide = k == ZB_ARROW_BIN64;
        if ((rc = put_offsets(e, a->buffers[1], wide, pos, n)) < 0)
            return rc;
        lo = list_off(a, wide, pos);
        hi = list_off(a, wide, pos + n);
        return put(e, (const uint8_t *)a->buffers[2] + lo, (size_t)(hi - lo));
    case ZB_ARROW_STRUCT:
        for (i = 0; i < s->n_children; i++)
            if ((rc = encode(e, s->children[i], a->children[i],
                             a->children[i]->offset + pos, n)) < 0)
                return rc;
        return ZB_OK;
    case ZB_ARROW_LIST32:
    case ZB_ARROW_LIST64:
        wide = k == ZB_ARROW_LIST64;
        if ((rc = put_offsets(e, a->buffers[1], wide, pos, n)) < 0)
            return rc;
        lo = list_off(a, wide, pos);
        hi = list_off(a, wide, pos + n);
        return encode(e, s->children[0], a->children[0],
                      a->children[0]->offset + lo, hi - lo);
    case ZB_ARROW_FIXLIST:
        return encode(e, s->children[0], a->children[0],
                      a->children[0]->offset + pos * w, n * w);
    }
    return ZB_OK;
}

uint64_t zb_arrow_array_bytes(const struct ArrowSchema *schema,
                              const struct ArrowArray *array)
{
    enc e = { NULL, NULL, 0, NULL };

    encode(&e, schema, array, array->offset, array->length);
    return e.bytes;
}

/* The compressor and its chunk buffer, made on first use. */
static int pack_ready(zb_arrow_pack *pk, zb_ctx *ctx)
{
    size_t r;

    if (pk->c == NULL) {
        r = LZ4F_createCompressionContext(&pk->c, LZ4F_VERSION);
        if (LZ4F_isError(r)) {
            pk->c = NULL;
            return zb_fail_oom(ctx);
        }
    }
    if (pk->out == NULL) {
        /* the largest of: one chunk's update, the frame's header, its end */
        size_t cap = LZ4F_compressBound(PACK_CHUNK, &pack_prefs);
        if (cap < LZ4F_HEADER_SIZE_MAX)
            cap = LZ4F_HEADER_SIZE_MAX;
        if ((pk->out = zb_malloc(cap)) == NULL)
            return zb_fail_oom(ctx);
        pk->out_cap = cap;
    }
    return ZB_OK;
}

/* A packed frame: the header (its length patched at the end), the raw
   size, then the payload through LZ4F. */
static int write_packed(zb_spill *s, zb_ctx *ctx, zb_arrow_pack *pk,
                        const struct ArrowSchema *schema,
                        const struct ArrowArray *array, uint64_t raw,
                        uint64_t *stored)
{
    enc e = { s, ctx, 0, NULL };
    uint32_t head[2] = { FRAME_MAGIC, FRAME_LZ4 };
    uint64_t start = zb_spill_size(s), payload;
    size_t r;
    int rc;

    if ((rc = pack_ready(pk, ctx)) < 0 ||
        (rc = put(&e, head, sizeof head)) < 0 ||
        (rc = put_u64(&e, 0)) < 0 ||
        (rc = put_u64(&e, raw)) < 0)
        return rc;
    r = LZ4F_compressBegin(pk->c, pk->out, pk->out_cap, &pack_prefs);
    if (LZ4F_isError(r))
        return pack_fail(ctx, r);
    if ((rc = zb_spill_write(s, ctx, pk->out, r)) < 0)
        return rc;
    e.pk = pk;
    if ((rc = encode(&e, schema, array, array->offset, array->length)) < 0)
        return rc;
    r = LZ4F_compressEnd(pk->c, pk->out, pk->out_cap, NULL);
    if (LZ4F_isError(r))
        return pack_fail(ctx, r);
    if ((rc = zb_spill_write(s, ctx, pk->out, r)) < 0)
        return rc;
    payload = zb_spill_size(s) - start - FRAME_HEAD;
    if ((rc = zb_spill_patch(s, ctx, start + 8, &payload, 8)) < 0)
        return rc;
    *stored = payload + FRAME_HEAD;
    return ZB_OK;
}

int zb_arrow_spill_write(zb_spill *s, zb_ctx *ctx,
                         const struct ArrowSchema *schema,
                         const struct ArrowArray *array, zb_arrow_pack *pk,
                         zb_arrow_frame *info)
{
    enc count = { NULL, ctx, 0, NULL }, e = { s, ctx, 0, NULL };
    uint32_t head[2] = { FRAME_MAGIC, FRAME_RAW };
    uint64_t stored = 0;
    int rc, packed;

    encode(&count, schema, array, array->offset, array->length);
    packed = pk != NULL && zb_spill_should_pack(count.bytes + FRAME_HEAD);
    if (packed) {
        if ((rc = write_packed(s, ctx, pk, schema, array, count.bytes,
                               &stored)) < 0)
            return rc;
    } else {
        if ((rc = put(&e, head, sizeof head)) < 0 ||
            (rc = put_u64(&e, count.bytes)) < 0 ||
            (rc = encode(&e, schema, array, array->offset,
                         array->length)) < 0)
            return rc;
        stored = e.bytes;
    }
    if (info) {
        info->bytes = stored;
        info->raw = count.bytes + FRAME_HEAD;
        info->packed = packed;
    }
    return ZB_OK;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct dec {
    const uint8_t *p;
    size_t left;
    zb_ctx *ctx;
} dec;

static int corrupt(dec *d, const char *what)
{
    return zb_fail(d->ctx, ZB_ECORRUPT,
                   "spilled batch is corrupt: %s (%zu bytes left in frame)",
                   what, d->left);
}

static int take_u64(dec *d, uint64_t *v)
{
    if (d->left < 8)
        return corrupt(d, "truncated node header");
    memcpy(v, d->p, 8);
    d->p += 8;
    d->left -= 8;
    return ZB_OK;
}

/* Copies n bytes of the frame into a new buffer (at least 1 byte long). */
static int take_buf(dec *d, const void **out, uint64_t n, const char *what)
{
    void *b;

    if (n > d->left)
        return corrupt(d, what);
    if ((b = zb_malloc(n ? (size_t)n : 1)) == NULL)
        return zb_fail_oom(d->ctx);
    if (n)
        memcpy(b, d->p, (size_t)n);
    d->p += n;
    d->left -= (size_t)n;
    *out = b;
    return ZB_OK;
}

/* Reads n + 1 offsets, checks them; *last gets the final one. */
static int take_offsets(dec *d, const void **out, int wide, uint64_t n,
                        uint64_t *last)
{
    uint64_t i;
    int64_t prev = 0, v;
    int rc;

    if ((n + 1) > d->left / (wide ? 8 : 4))
        return corrupt(d, "offsets run past the end");
    if ((rc = take_buf(d, out, (n + 1) * (wide ? 8 : 4), "offsets")) < 0)
        return rc;
    for (i = 0; i <= n; i++) {
        v = wide ? ((const int64_t *)*out)[i] : ((const int32_t *)*out)[i];
        if ((i == 0 && v != 0) || v < prev)
            return corrupt(d, "offsets not increasing from 0");
        prev = v;
    }
    *last = (uint64_t)prev;
    return ZB_OK;
}

static int decode(dec *d, const struct ArrowSchema *s, struct ArrowArray *a,
                  int depth)
{
    zb_arrow_kind k;
    int64_t w, i;
    uint64_t n = 0, nulls = 0, last = 0, bm;
    int rc, wide;

    if (depth > MAX_DEPTH || zb_arrow_kind_of(&k, &w, s->format) < 0)
        return zb_fail(d->ctx, ZB_EUNSUPPORTED,
                       "cannot decode Arrow format '%s'",
                       s->format ? s->format : "(null)");
    if ((rc = take_u64(d, &n)) < 0 || (rc = take_u64(d, &nulls)) < 0)
        return rc;
    if (n > INT64_MAX / 16 || nulls > n)
        return corrupt(d, "bad row or null count");
    if ((rc = zb_arrow_array_init(a, kind_buffers(k),
                                  k == ZB_ARROW_STRUCT ? s->n_children
                                  : k >= ZB_ARROW_LIST32 ? 1 : 0)) < 0)
        return zb_fail_oom(d->ctx);
    a->length = (int64_t)n;
    a->null_count = (int64_t)nulls;
    bm = (n + 7) / 8;
    if (nulls > 0 && k != ZB_ARROW_NULL &&
        (rc = take_buf(d, &a->buffers[0], bm, "validity bitmap")) < 0)
        return rc;
    switch (k) {
    case ZB_ARROW_NULL:
        if (nulls != n)
            return corrupt(d, "null array with valid rows");
        return ZB_OK;
    case ZB_ARROW_BOOL:
        return take_buf(d, &a->buffers[1], bm, "boolean values");
    case ZB_ARROW_FIXED:
        if (n > d->left / (uint64_t)w)
            return corrupt(d, "values run past the end");
        return take_buf(d, &a->buffers[1], n * (uint64_t)w, "values");
    case ZB_ARROW_BIN32:
    case ZB_ARROW_BIN64:
        wide = k == ZB_ARROW_BIN64;
        if ((rc = take_offsets(d, &a->buffers[1], wide, n, &last)) < 0)
            return rc;
        return take_buf(d, &a->buffers[2], last, "string data");
    case ZB_ARROW_STRUCT:
        for (i = 0; i < s->n_children; i++) {
            if ((rc = decode(d, s->children[i], a->children[i],
                             depth + 1)) < 0)
                return rc;
            if ((uint64_t)a->children[i]->length != n)
                return corrupt(d, "struct child length differs");
        }
        return ZB_OK;
    case ZB_ARROW_LIST32:
    case ZB_ARROW_LIST64:
        wide = k == ZB_ARROW_LIST64;
        if ((rc = take_offsets(d, &a->buffers[1], wide, n, &last)) < 0 ||
            (rc = decode(d, s->children[0], a->children[0], depth + 1)) < 0)
            return rc;
        if ((uint64_t)a->children[0]->length != last)
            return corrupt(d, "list child length differs from offsets");
        return ZB_OK;
    case ZB_ARROW_FIXLIST:
        if ((rc = decode(d, s->children[0], a->children[0], depth + 1)) < 0)
            return rc;
        if ((uint64_t)a->children[0]->length != n * (uint64_t)w)
            return corrupt(d, "fixed-size list child length differs");
        return ZB_OK;
    }
    return ZB_OK;
}

/*
 * Decompresses a packed payload (u64 raw size, LZ4 frame) into pk->raw;
 * d then points at it. Nothing in the frame is trusted: the raw size is
 * bounded by what LZ4 can expand to, and the LZ4 frame must fill it
 * exactly and end where the payload ends.
 */
static int unpack(dec *d, zb_arrow_pack *pk)
{
    LZ4F_decompressOptions_t opt = { 1, 0, 0, 0 };  /* stable dst */
    uint64_t raw = 0;
    size_t src, dst, r;
    int rc;

    if ((rc = take_u64(d, &raw)) < 0)
        return rc;
    if (raw > (uint64_t)d->left * 255 + 64 || raw > SIZE_MAX / 2)
        return corrupt(d, "packed size beyond what LZ4 expands to");
    if (pk->d == NULL) {
        r = LZ4F_createDecompressionContext(&pk->d, LZ4F_VERSION);
        if (LZ4F_isError(r)) {
            pk->d = NULL;
            return zb_fail_oom(d->ctx);
        }
    }
    if (raw > pk->raw_cap || pk->raw == NULL) {
        zb_free(pk->raw);
        pk->raw_cap = 0;
        if ((pk->raw = zb_malloc(raw ? (size_t)raw : 1)) == NULL)
            return zb_fail_oom(d->ctx);
        pk->raw_cap = raw ? (size_t)raw : 1;
    }
    LZ4F_resetDecompressionContext(pk->d);
    src = d->left;
    dst = (size_t)raw;
    r = LZ4F_decompress(pk->d, pk->raw, &dst, d->p, &src, &opt);
    if (LZ4F_isError(r))
        return corrupt(d, LZ4F_getErrorName(r));
    if (r != 0 || src != d->left || dst != raw)
        return corrupt(d, "LZ4 frame does not match its sizes");
    d->p = pk->raw;
    d->left = (size_t)raw;
    return ZB_OK;
}

int zb_arrow_decode(struct ArrowArray *out, zb_ctx *ctx,
                    const struct ArrowSchema *schema, const void *frame,
                    size_t frame_bytes, zb_arrow_pack *pk)
{
    dec d = { frame, frame_bytes, ctx };
    zb_arrow_pack *own = NULL;
    uint32_t head[2];
    uint64_t payload;
    int rc;

    memset(out, 0, sizeof *out);
    if (frame_bytes < FRAME_HEAD)
        return corrupt(&d, "frame shorter than its header");
    memcpy(head, d.p, 8);
    memcpy(&payload, d.p + 8, 8);
    if (head[0] != FRAME_MAGIC || (head[1] != FRAME_RAW &&
        head[1] != FRAME_LZ4) || payload != frame_bytes - FRAME_HEAD)
        return corrupt(&d, "bad frame header");
    d.p += FRAME_HEAD;
    d.left -= FRAME_HEAD;
    if (head[1] == FRAME_LZ4) {
        if (pk == NULL && (rc = zb_arrow_pack_new(&own, ctx)) < 0)
            return rc;
        if ((rc = unpack(&d, pk ? pk : own)) < 0) {
            zb_arrow_pack_free(own);
            return rc;
        }
    }
    if ((rc = decode(&d, schema, out, 0)) == ZB_OK && d.left != 0)
        rc = corrupt(&d, "bytes after the batch");
    if (rc < 0)
        zb_arrow_array_release(out);
    zb_arrow_pack_free(own);
    return rc;
}

int zb_arrow_spill_read(struct ArrowArray *out, zb_spill *s, zb_ctx *ctx,
                        const struct ArrowSchema *schema, zb_arrow_pack *pk)
{
    uint8_t head[FRAME_HEAD], *frame = NULL;
    uint64_t payload;
    size_t got;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = zb_spill_read(s, ctx, head, sizeof head, &got)) < 0)
        return rc;
    if (got == 0)
        return ZB_OK;
    if (got < sizeof head &&
        (rc = zb_spill_read_full(s, ctx, head + got, sizeof head - got)) < 0)
        return rc;
    memcpy(&payload, head + 8, 8);
    if (payload > zb_spill_size(s))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "spilled batch is corrupt: frame of %llu bytes in a "
                       "file of %llu", (unsigned long long)payload,
                       (unsigned long long)zb_spill_size(s));
    if ((frame = zb_malloc((size_t)payload + FRAME_HEAD)) == NULL)
        return zb_fail_oom(ctx);
    memcpy(frame, head, FRAME_HEAD);
    if ((rc = zb_spill_read_full(s, ctx, frame + FRAME_HEAD,
                                 (size_t)payload)) == ZB_OK)
        rc = zb_arrow_decode(out, ctx, schema, frame,
                             (size_t)payload + FRAME_HEAD, pk);
    zb_free(frame);
    return rc;
}

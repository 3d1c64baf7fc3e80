/*
 * format/parquet/read/pq_column.c - pages of one column chunk to triplets (see
 * pq_column.h).
 *
 * Page by page: parse the header, check the sizes against the chunk and
 * the page cap, decompress (data page v2 keeps its levels uncompressed in
 * front), decode the repetition and definition levels, count the present
 * values (definition level at its maximum), and decode exactly that many
 * values with the page's encoding, converting each to its Arrow form. A
 * dictionary page is decoded once into the same form and data pages that
 * use it gather from it by index.
 *
 * Every error names the file, the column path and the byte offset of the
 * page in the file.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/pq_compression.h"
#include "format/parquet/read/pq_column.h"
#include "format/parquet/thrift/pq_meta.h"
#include "util/alloc.h"

struct pq_column {
    const pq_node *leaf;
    const pq_column_meta *meta;
    zb_codec_state *codec;     /* borrowed */
    const char *uri;
    char path[256];
    uint8_t *chunk;
    size_t chunk_len;
    uint64_t chunk_offset;
    size_t pos;                /* next page header in chunk */
    uint64_t page_offset;      /* file offset of the current page */
    size_t max_page_bytes;
    int64_t values_left;       /* triplets not yet seen in page headers */
    /* dictionary, in Arrow form */
    int has_dict;
    zb_buf dict_fixed;
    pq_bytes *dict_views;
    size_t dict_n;
    uint8_t *dict_page;        /* the views point into it */
    /* current page */
    uint8_t *page;             /* decompressed page */
    size_t page_cap;
    uint16_t *defs, *reps;
    size_t defs_cap, reps_cap;
    size_t n, i;               /* triplets in page, next triplet */
    zb_buf vals_fixed;         /* present values of the page, Arrow form */
    pq_bytes *vals_views;
    size_t views_cap;
    uint32_t *scratch;         /* levels and dictionary indices */
    size_t scratch_cap;
    int64_t *scratch64;
    size_t scratch64_cap;
    zb_buf store;              /* DELTA_BYTE_ARRAY values */
    size_t n_present, vi;
    /* PLAIN byte arrays are copied straight from the page into the batch
     * (one pass, one copy): the next value's length prefix, and the end. */
    const uint8_t *plain, *plain_end;
    int lazy_plain;
};

void pq_leaf_batch_init(pq_leaf_batch *b, size_t max_bytes)
{
    zb_buf_init(&b->defs, max_bytes);
    zb_buf_init(&b->reps, max_bytes);
    zb_buf_init(&b->fixed, max_bytes);
    zb_buf_init(&b->offsets, max_bytes);
    zb_buf_init(&b->data, max_bytes);
    b->n_levels = 0;
    b->n_values = 0;
}

void pq_leaf_batch_clear(pq_leaf_batch *b)
{
    zb_buf_clear(&b->defs);
    zb_buf_clear(&b->reps);
    zb_buf_clear(&b->fixed);
    zb_buf_clear(&b->offsets);
    zb_buf_clear(&b->data);
    b->n_levels = 0;
    b->n_values = 0;
}

void pq_leaf_batch_free(pq_leaf_batch *b)
{
    zb_buf_free(&b->defs);
    zb_buf_free(&b->reps);
    zb_buf_free(&b->fixed);
    zb_buf_free(&b->offsets);
    zb_buf_free(&b->data);
}

static int corrupt(pq_column *c, zb_ctx *ctx, const char *what)
{
    return zb_fail(ctx, ZB_ECORRUPT, "%s: column %s: page at offset %llu: %s",
                   c->uri, c->path, (unsigned long long)c->page_offset, what);
}

/* Adds file, column and offset in front of a lower layer's message. */
static int context(pq_column *c, zb_ctx *ctx, int rc)
{
    if (rc == ZB_ENOMEM && ctx->err.code != ZB_ENOMEM)
        return zb_fail(ctx, ZB_ENOMEM, "%s: column %s: out of memory "
                       "decoding the page at offset %llu", c->uri, c->path,
                       (unsigned long long)c->page_offset);
    return zb_err_prefix(ctx, "%s: column %s: page at offset %llu", c->uri,
                         c->path, (unsigned long long)c->page_offset);
}

int pq_column_open(pq_column **out, zb_ctx *ctx, const char *uri,
                   const pq_node *leaf, const pq_column_meta *meta,
                   uint8_t *chunk, size_t chunk_len, uint64_t chunk_offset,
                   size_t max_page_bytes, zb_codec_state *codec)
{
    pq_column *c;

    *out = NULL;
    if ((c = zb_calloc(1, sizeof *c)) == NULL) {
        zb_free(chunk);
        return zb_fail_oom(ctx);
    }
    c->leaf = leaf;
    c->meta = meta;
    c->uri = uri;
    pq_schema_leaf_path(c->path, sizeof c->path, leaf);
    c->chunk = chunk;
    c->chunk_len = chunk_len;
    c->chunk_offset = chunk_offset;
    c->page_offset = chunk_offset;
    c->max_page_bytes = max_page_bytes;
    c->codec = codec;
    c->values_left = meta->num_values;
    zb_buf_init(&c->dict_fixed, max_page_bytes * 2);
    zb_buf_init(&c->vals_fixed, max_page_bytes * 2);
    zb_buf_init(&c->store, max_page_bytes * 2);
    *out = c;
    return ZB_OK;
}

void pq_column_free(pq_column *c)
{
    if (c == NULL)
        return;
    zb_free(c->chunk);
    zb_buf_free(&c->dict_fixed);
    zb_free(c->dict_views);
    zb_free(c->dict_page);
    zb_free(c->page);
    zb_free(c->defs);
    zb_free(c->reps);
    zb_buf_free(&c->vals_fixed);
    zb_free(c->vals_views);
    zb_free(c->scratch);
    zb_free(c->scratch64);
    zb_buf_free(&c->store);
    zb_free(c);
}

/* Grows *p to hold n elements of size each. */
static int ensure(void **p, size_t *cap, size_t n, size_t size)
{
    size_t bytes;
    void *q;

    if (n <= *cap)
        return ZB_OK;
    if (zb_mul_overflow(&bytes, n, size))
        return ZB_ENOMEM;
    if ((q = zb_realloc(*p, bytes ? bytes : 1)) == NULL)
        return ZB_ENOMEM;
    *p = q;
    *cap = n;
    return ZB_OK;
}

static unsigned bit_width_of(unsigned v)
{
    unsigned w = 0;

    while (v) {
        w++;
        v >>= 1;
    }
    return w;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* ---- conversion of physical values to their Arrow form ---- */

static size_t physical_width(const pq_node *leaf)
{
    switch (leaf->elem->type) {
    case PQ_INT32: case PQ_FLOAT: return 4;
    case PQ_INT64: case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)leaf->elem->type_length;
    default: return 0;
    }
}

/* Big-endian two's complement bytes to a 16-byte little-endian value. */
static int decimal_from_be(uint8_t *dst, const uint8_t *src, size_t len)
{
    uint8_t fill = len && (src[0] & 0x80) ? 0xFF : 0x00;
    size_t i;

    if (len > 16) {
        /* Leading bytes beyond 16 must be pure sign extension. */
        for (i = 0; i < len - 16; i++)
            if (src[i] != fill)
                return -1;
        src += len - 16;
        len = 16;
    }
    memset(dst, fill, 16);
    for (i = 0; i < len; i++)
        dst[i] = src[len - 1 - i];
    return 0;
}

static void int_to_decimal(uint8_t *dst, int64_t v)
{
    memcpy(dst, &v, 8);
    memset(dst + 8, v < 0 ? 0xFF : 0x00, 8);
}

/* One fixed-size physical value at src to its Arrow form at dst. */
static int convert_fixed(const pq_node *leaf, uint8_t *dst, const uint8_t *src)
{
    switch (leaf->conv) {
    case PQ_CONV_I32:
    case PQ_CONV_FLOAT:
        memcpy(dst, src, 4);
        return 0;
    case PQ_CONV_I32_TO_I8:
        dst[0] = src[0];
        return 0;
    case PQ_CONV_I32_TO_I16:
        memcpy(dst, src, 2);
        return 0;
    case PQ_CONV_I64:
    case PQ_CONV_DOUBLE:
        memcpy(dst, src, 8);
        return 0;
    case PQ_CONV_I96_TO_US: {
        /* 8 bytes nanoseconds of the day, 4 bytes Julian day number. */
        uint64_t nanos;
        int64_t days, us;
        memcpy(&nanos, src, 8);
        days = (int64_t)le32(src + 8) - 2440588;
        if (nanos >= UINT64_C(86400000000000) ||
            days > INT64_MAX / 86400000000LL - 1 ||
            days < INT64_MIN / 86400000000LL + 1)
            return -1;
        us = days * 86400000000LL + (int64_t)(nanos / 1000);
        memcpy(dst, &us, 8);
        return 0;
    }
    case PQ_CONV_FIXED:
        memcpy(dst, src, leaf->value_width);
        return 0;
    case PQ_CONV_DEC_I32: {
        int32_t v;
        memcpy(&v, src, 4);
        int_to_decimal(dst, v);
        return 0;
    }
    case PQ_CONV_DEC_I64: {
        int64_t v;
        memcpy(&v, src, 8);
        int_to_decimal(dst, v);
        return 0;
    }
    case PQ_CONV_DEC_BE:
        return decimal_from_be(dst, src, (size_t)leaf->elem->type_length);
    case PQ_CONV_INTERVAL: {
        int32_t months = (int32_t)le32(src), days = (int32_t)le32(src + 4);
        int64_t nanos = (int64_t)le32(src + 8) * 1000000;
        memcpy(dst, &months, 4);
        memcpy(dst + 4, &days, 4);
        memcpy(dst + 8, &nanos, 8);
        return 0;
    }
    default:
        return -1;
    }
}

/*
 * Decodes n values with encoding enc from buf into the Arrow form: fixed
 * values into *fixed, byte arrays as views into *views. Used for data
 * pages and (with PLAIN) for dictionary pages.
 */
/* Long: a switch over the encodings of Encodings.md for each family of
 * physical types (boolean, byte array, fixed size). */
static int decode_values(pq_column *c, zb_ctx *ctx, int enc,
                         const uint8_t *buf, size_t len, size_t n,
                         zb_buf *fixed, pq_bytes **views, size_t *views_cap)
{
    const pq_node *leaf = c->leaf;
    size_t pw = physical_width(leaf), i;
    int rc = ZB_OK;

    zb_buf_clear(fixed);
    if (leaf->conv == PQ_CONV_BOOL) {
        if (zb_buf_reserve(fixed, n) < 0)
            return zb_fail_oom(ctx);
        if (enc == PQ_ENC_PLAIN) {
            rc = pq_plain_bool_decode((uint8_t *)fixed->ptr, n, buf, len, NULL);
        } else if (enc == PQ_ENC_RLE) {
            if (len < 4 || le32(buf) > len - 4)
                return corrupt(c, ctx, "RLE boolean length prefix");
            if ((rc = ensure((void **)&c->scratch, &c->scratch_cap, n,
                             sizeof *c->scratch)) < 0)
                return context(c, ctx, rc);
            rc = pq_rle_decode(c->scratch, n, buf + 4, le32(buf), 1, NULL);
            for (i = 0; rc == ZB_OK && i < n; i++)
                fixed->ptr[i] = (char)(c->scratch[i] != 0);
        } else {
            return corrupt(c, ctx, "unsupported encoding for BOOLEAN");
        }
        if (rc < 0)
            return corrupt(c, ctx, "boolean values truncated or malformed");
        fixed->len = n;
        return ZB_OK;
    }
    if (leaf->elem->type == PQ_BYTE_ARRAY) {
        if ((rc = ensure((void **)views, views_cap, n, sizeof **views)) < 0)
            return context(c, ctx, rc);
        switch (enc) {
        case PQ_ENC_PLAIN:
            rc = pq_plain_bytes_decode(*views, n, buf, len, NULL);
            break;
        case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
            rc = pq_delta_length_decode(*views, n, buf, len, NULL);
            break;
        case PQ_ENC_DELTA_BYTE_ARRAY:
            zb_buf_clear(&c->store);
            rc = pq_delta_byte_array_decode(*views, n, buf, len, &c->store,
                                            NULL);
            break;
        default:
            return corrupt(c, ctx, "unsupported encoding for BYTE_ARRAY");
        }
        if (rc == ZB_ENOMEM)
            return context(c, ctx, rc);
        if (rc < 0)
            return corrupt(c, ctx, "byte array values truncated or malformed");
        if (leaf->conv == PQ_CONV_DEC_BE) {
            /* Decimals in byte arrays become fixed 16-byte values. */
            if (zb_buf_reserve(fixed, n * 16) < 0)
                return zb_fail_oom(ctx);
            for (i = 0; i < n; i++)
                if (decimal_from_be((uint8_t *)fixed->ptr + i * 16,
                                    (*views)[i].ptr, (*views)[i].len) < 0)
                    return corrupt(c, ctx, "decimal wider than 128 bits");
            fixed->len = n * 16;
        }
        return ZB_OK;
    }
    /* Fixed-size physical types. */
    if (zb_buf_reserve(fixed, n * leaf->value_width) < 0)
        return zb_fail_oom(ctx);
    switch (enc) {
    case PQ_ENC_PLAIN:
        if (n > len / pw)
            return corrupt(c, ctx, "fewer plain values than levels promise");
        if (pw == leaf->value_width &&
            (leaf->conv == PQ_CONV_I32 || leaf->conv == PQ_CONV_I64 ||
             leaf->conv == PQ_CONV_FLOAT || leaf->conv == PQ_CONV_DOUBLE ||
             leaf->conv == PQ_CONV_FIXED)) {
            /* Same bytes in Parquet and Arrow: one copy. */
            memcpy(fixed->ptr, buf, n * pw);
            break;
        }
        for (i = 0; i < n; i++)
            if (convert_fixed(leaf, (uint8_t *)fixed->ptr +
                                        i * leaf->value_width, buf + i * pw) < 0)
                return corrupt(c, ctx, "value does not convert");
        break;
    case PQ_ENC_BYTE_STREAM_SPLIT: {
        uint8_t *tmp;
        if (n > len / pw)
            return corrupt(c, ctx, "byte stream split data too short");
        if ((tmp = zb_malloc(n > 0 ? n * pw : 1)) == NULL)
            return zb_fail_oom(ctx);
        rc = pq_byte_stream_split_decode(tmp, n, pw, buf, len);
        for (i = 0; rc == ZB_OK && i < n; i++)
            if (convert_fixed(leaf, (uint8_t *)fixed->ptr +
                                        i * leaf->value_width, tmp + i * pw) < 0)
                rc = ZB_ECORRUPT;
        zb_free(tmp);
        if (rc < 0)
            return corrupt(c, ctx, "byte stream split data malformed");
        break;
    }
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (leaf->elem->type != PQ_INT32 && leaf->elem->type != PQ_INT64)
            return corrupt(c, ctx, "DELTA_BINARY_PACKED on a non-integer column");
        if ((rc = ensure((void **)&c->scratch64, &c->scratch64_cap, n,
                         sizeof *c->scratch64)) < 0)
            return context(c, ctx, rc);
        if ((rc = pq_delta_binary_decode(c->scratch64, n, buf, len, NULL)) < 0)
            return rc == ZB_ENOMEM ? context(c, ctx, rc)
                                   : corrupt(c, ctx, "delta values malformed");
        for (i = 0; i < n; i++) {
            uint8_t phys[8];
            if (leaf->elem->type == PQ_INT32) {
                int32_t v = (int32_t)(uint32_t)(uint64_t)c->scratch64[i];
                memcpy(phys, &v, 4);
            } else {
                memcpy(phys, &c->scratch64[i], 8);
            }
            convert_fixed(leaf, (uint8_t *)fixed->ptr + i * leaf->value_width,
                          phys);
        }
        break;
    default:
        return corrupt(c, ctx, "unsupported value encoding");
    }
    fixed->len = n * leaf->value_width;
    return ZB_OK;
}

/* Decodes n levels of max value max_level with encoding enc. */
static int decode_levels(pq_column *c, zb_ctx *ctx, uint16_t *out, size_t n,
                         unsigned max_level, int enc, int v1,
                         const uint8_t *buf, size_t len, size_t *used)
{
    unsigned bw = bit_width_of(max_level);
    size_t i, body = len;
    int rc;

    if ((rc = ensure((void **)&c->scratch, &c->scratch_cap, n,
                     sizeof *c->scratch)) < 0)
        return context(c, ctx, rc);
    if (enc == PQ_ENC_BIT_PACKED && v1) {
        rc = pq_bitpacked_legacy_decode(c->scratch, n, buf, len, bw, used);
    } else {
        if (v1) {
            if (len < 4 || le32(buf) > len - 4)
                return corrupt(c, ctx, "level length prefix past the page");
            body = le32(buf);
            buf += 4;
        }
        rc = pq_rle_decode(c->scratch, n, buf, body, bw, NULL);
        *used = body + (v1 ? 4 : 0);
    }
    if (rc < 0)
        return corrupt(c, ctx, "levels truncated or malformed");
    for (i = 0; i < n; i++) {
        if (c->scratch[i] > max_level)
            return corrupt(c, ctx, "level above the column's maximum");
        out[i] = (uint16_t)c->scratch[i];
    }
    return ZB_OK;
}

/* Makes sure c->page can hold n bytes. */
static int page_buffer(pq_column *c, zb_ctx *ctx, size_t n)
{
    if (n > c->max_page_bytes)
        return corrupt(c, ctx, "page larger than the page size cap");
    if (ensure((void **)&c->page, &c->page_cap, n ? n : 1, 1) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* A PLAIN dictionary spends at least a bit (BOOLEAN), four bytes (a
 * BYTE_ARRAY's length) or the type's width a value: a count past that is
 * corrupt, and would size the value arrays from a lie. */
static int dict_overclaims(const pq_column *c, uint64_t n, size_t ulen)
{
    size_t pw = physical_width(c->leaf);

    if (c->leaf->conv == PQ_CONV_BOOL)
        return n / 8 > ulen;
    if (c->leaf->elem->type == PQ_BYTE_ARRAY)
        return n > ulen / 4;
    return pw > 0 && n > ulen / pw;
}

static int load_dictionary(pq_column *c, zb_ctx *ctx, const pq_page_header *h,
                           const uint8_t *body)
{
    size_t ulen = (size_t)h->uncompressed_page_size, cap = 0;
    int rc;

    if (h->dict.num_values < 0)
        return corrupt(c, ctx, "negative dictionary size");
    if (ulen > c->max_page_bytes)
        return corrupt(c, ctx, "dictionary larger than the page size cap");
    if (dict_overclaims(c, (uint64_t)h->dict.num_values, ulen))
        return corrupt(c, ctx, "dictionary claims more values than its "
                       "bytes can hold");
    zb_free(c->dict_page);
    zb_free(c->dict_views);
    c->dict_views = NULL;
    if ((c->dict_page = zb_malloc(ulen ? ulen : 1)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = pq_decompress_page(c->codec, ctx, c->meta->codec, body,
                            (size_t)h->compressed_page_size, c->dict_page,
                            ulen)) < 0)
        return context(c, ctx, rc);
    if ((rc = decode_values(c, ctx, PQ_ENC_PLAIN, c->dict_page, ulen,
                            (size_t)h->dict.num_values, &c->dict_fixed,
                            &c->dict_views, &cap)) < 0)
        return rc;
    c->dict_n = (size_t)h->dict.num_values;
    c->has_dict = 1;
    return ZB_OK;
}

/* Gathers n values by dictionary index from an RLE_DICTIONARY body. */
static int gather_dictionary(pq_column *c, zb_ctx *ctx, const uint8_t *buf,
                             size_t len, size_t n)
{
    const pq_node *leaf = c->leaf;
    size_t i, w = leaf->value_width;
    int rc;

    if (!c->has_dict)
        return corrupt(c, ctx, "dictionary-encoded page without a dictionary");
    if (n == 0)
        return ZB_OK;
    if (len < 1 || buf[0] > 32)
        return corrupt(c, ctx, "bad dictionary index bit width");
    if ((rc = ensure((void **)&c->scratch, &c->scratch_cap, n,
                     sizeof *c->scratch)) < 0)
        return context(c, ctx, rc);
    if (pq_rle_decode(c->scratch, n, buf + 1, len - 1, buf[0], NULL) < 0)
        return corrupt(c, ctx, "dictionary indices truncated or malformed");
    for (i = 0; i < n; i++)
        if (c->scratch[i] >= c->dict_n)
            return corrupt(c, ctx, "dictionary index out of range");
    if (leaf->elem->type == PQ_BYTE_ARRAY && leaf->conv == PQ_CONV_BYTES) {
        if ((rc = ensure((void **)&c->vals_views, &c->views_cap, n,
                         sizeof *c->vals_views)) < 0)
            return context(c, ctx, rc);
        for (i = 0; i < n; i++)
            c->vals_views[i] = c->dict_views[c->scratch[i]];
        return ZB_OK;
    }
    if (leaf->conv == PQ_CONV_BOOL)
        w = 1;
    zb_buf_clear(&c->vals_fixed);
    if (zb_buf_reserve(&c->vals_fixed, n * w) < 0)
        return zb_fail_oom(ctx);
    if (w == 8) {
        uint64_t *dst = (uint64_t *)(void *)c->vals_fixed.ptr;
        const uint64_t *src = (const uint64_t *)(void *)c->dict_fixed.ptr;
        for (i = 0; i < n; i++)
            dst[i] = src[c->scratch[i]];
    } else if (w == 4) {
        uint32_t *dst = (uint32_t *)(void *)c->vals_fixed.ptr;
        const uint32_t *src = (const uint32_t *)(void *)c->dict_fixed.ptr;
        for (i = 0; i < n; i++)
            dst[i] = src[c->scratch[i]];
    } else {
        for (i = 0; i < n; i++)
            memcpy(c->vals_fixed.ptr + i * w,
                   c->dict_fixed.ptr + c->scratch[i] * w, w);
    }
    c->vals_fixed.len = n * w;
    return ZB_OK;
}

/* Reads the next data page into the current-page fields; 0 at the end. */
/* Long: one page's decoding in order (header, dictionary page, body,
 * v1 or v2 levels, values), the steps sharing the page's lengths. */
static int next_page(pq_column *c, zb_ctx *ctx)
{
    for (;;) {
        pq_page_header h;
        size_t hlen, clen, ulen, lv = 0, used;
        const uint8_t *body, *vals;
        size_t vals_len, n, i;
        int v1, enc, rc;

        if (c->pos >= c->chunk_len || c->values_left <= 0)
            return 0;
        c->page_offset = c->chunk_offset + c->pos;
        if ((rc = pq_page_header_parse(&h, &hlen, ctx, c->chunk + c->pos,
                                       c->chunk_len - c->pos)) < 0)
            return context(c, ctx, rc);
        if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
            (size_t)h.compressed_page_size > c->chunk_len - c->pos - hlen)
            return corrupt(c, ctx, "page size runs past the column chunk");
        body = c->chunk + c->pos + hlen;
        clen = (size_t)h.compressed_page_size;
        ulen = (size_t)h.uncompressed_page_size;
        c->pos += hlen + clen;
        if (h.type == PQ_DICTIONARY_PAGE) {
            if ((rc = load_dictionary(c, ctx, &h, body)) < 0)
                return rc;
            continue;
        }
        if (h.type != PQ_DATA_PAGE && h.type != PQ_DATA_PAGE_V2)
            continue;   /* index pages and unknown kinds are skipped */
        v1 = h.type == PQ_DATA_PAGE;
        n = (size_t)(v1 ? h.data.num_values : h.v2.num_values);
        if ((v1 ? h.data.num_values : h.v2.num_values) < 0 ||
            (int64_t)n > c->values_left)
            return corrupt(c, ctx, "more values than the column chunk holds");
        c->values_left -= (int64_t)n;
        enc = v1 ? h.data.encoding : h.v2.encoding;
        if ((rc = page_buffer(c, ctx, ulen)) < 0)
            return rc;
        if (v1) {
            if ((rc = pq_decompress_page(c->codec, ctx, c->meta->codec, body, clen, c->page,
                                    ulen)) < 0)
                return context(c, ctx, rc);
        } else {
            size_t rl = (size_t)h.v2.repetition_levels_byte_length;
            size_t dl = (size_t)h.v2.definition_levels_byte_length;
            if (h.v2.repetition_levels_byte_length < 0 ||
                h.v2.definition_levels_byte_length < 0 || rl + dl > clen ||
                rl + dl > ulen)
                return corrupt(c, ctx, "level sizes run past the page");
            memcpy(c->page, body, rl + dl);
            if (h.v2.is_compressed)
                rc = pq_decompress_page(c->codec, ctx, c->meta->codec, body + rl + dl,
                                   clen - rl - dl, c->page + rl + dl,
                                   ulen - rl - dl);
            else if (clen != ulen)
                return corrupt(c, ctx, "uncompressed v2 page sizes differ");
            else
                memcpy(c->page + rl + dl, body + rl + dl, clen - rl - dl);
            if (rc < 0)
                return context(c, ctx, rc);
        }
        if (ensure((void **)&c->defs, &c->defs_cap, n ? n : 1,
                   sizeof *c->defs) < 0 ||
            ensure((void **)&c->reps, &c->reps_cap, n ? n : 1,
                   sizeof *c->reps) < 0)
            return zb_fail_oom(ctx);
        /* Levels: repetition first, then definition. */
        if (c->leaf->max_rep > 0) {
            size_t avail = v1 ? ulen - lv
                              : (size_t)h.v2.repetition_levels_byte_length;
            if ((rc = decode_levels(c, ctx, c->reps, n,
                                    (unsigned)c->leaf->max_rep,
                                    v1 ? h.data.repetition_level_encoding
                                       : PQ_ENC_RLE,
                                    v1, c->page + lv, avail, &used)) < 0)
                return rc;
            lv += v1 ? used : (size_t)h.v2.repetition_levels_byte_length;
        } else {
            memset(c->reps, 0, n * sizeof *c->reps);
            if (!v1)
                lv += (size_t)h.v2.repetition_levels_byte_length;
        }
        if (c->leaf->max_def > 0) {
            size_t avail = v1 ? ulen - lv
                              : (size_t)h.v2.definition_levels_byte_length;
            if ((rc = decode_levels(c, ctx, c->defs, n,
                                    (unsigned)c->leaf->max_def,
                                    v1 ? h.data.definition_level_encoding
                                       : PQ_ENC_RLE,
                                    v1, c->page + lv, avail, &used)) < 0)
                return rc;
            lv += v1 ? used : (size_t)h.v2.definition_levels_byte_length;
        } else {
            for (i = 0; i < n; i++)
                c->defs[i] = 0;
            if (!v1)
                lv += (size_t)h.v2.definition_levels_byte_length;
        }
        if (lv > ulen)
            return corrupt(c, ctx, "levels run past the page");
        c->n_present = 0;
        for (i = 0; i < n; i++)
            c->n_present += c->defs[i] == (uint16_t)c->leaf->max_def;
        vals = c->page + lv;
        vals_len = ulen - lv;
        c->lazy_plain = enc == PQ_ENC_PLAIN &&
                        c->leaf->elem->type == PQ_BYTE_ARRAY &&
                        c->leaf->conv == PQ_CONV_BYTES;
        c->plain = vals;
        c->plain_end = vals + vals_len;
        if (c->lazy_plain)
            rc = ZB_OK;
        else if (enc == PQ_ENC_PLAIN_DICTIONARY ||
                 enc == PQ_ENC_RLE_DICTIONARY)
            rc = gather_dictionary(c, ctx, vals, vals_len, c->n_present);
        else
            rc = decode_values(c, ctx, enc, vals, vals_len, c->n_present,
                               &c->vals_fixed, &c->vals_views, &c->views_cap);
        if (rc < 0)
            return rc;
        c->n = n;
        c->i = 0;
        c->vi = 0;
        if (n > 0)
            return 1;
    }
}

static int append_values(pq_column *c, zb_ctx *ctx, pq_leaf_batch *out,
                         size_t count)
{
    const pq_node *leaf = c->leaf;
    int bytes = leaf->elem->type == PQ_BYTE_ARRAY &&
                leaf->conv == PQ_CONV_BYTES;
    size_t i;

    if (count == 0)
        return ZB_OK;
    if (bytes && c->lazy_plain) {
        const uint8_t *p = c->plain, *end = c->plain_end;
        size_t pos = out->data.len;
        int64_t *ends;
        /* The values cannot take more than what is left of the page. */
        if (zb_buf_reserve(&out->data, (size_t)(end - p)) < 0 ||
            zb_buf_reserve(&out->offsets, count * sizeof *ends) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "%s: column %s: batch larger "
                           "than its cap", c->uri, c->path);
        ends = (int64_t *)(out->offsets.ptr + out->offsets.len);
        for (i = 0; i < count; i++) {
            uint32_t len;
            if (end - p < 4 || (len = le32(p)) > (size_t)(end - p) - 4)
                return corrupt(c, ctx, "plain byte array runs past the page");
            memcpy(out->data.ptr + pos, p + 4, len);
            p += 4 + (size_t)len;
            pos += len;
            ends[i] = (int64_t)pos;
        }
        c->plain = p;
        out->data.len = pos;
        out->data.ptr[pos] = '\0';
        out->offsets.len += count * sizeof *ends;
    } else if (bytes) {
        /* One reservation for the whole run, then plain copies. */
        const pq_bytes *v = &c->vals_views[c->vi];
        size_t total = 0, pos = out->data.len;
        int64_t *ends;
        for (i = 0; i < count; i++)
            total += v[i].len;
        if (zb_buf_reserve(&out->data, total) < 0 ||
            zb_buf_reserve(&out->offsets, count * sizeof *ends) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "%s: column %s: batch larger "
                           "than its cap", c->uri, c->path);
        ends = (int64_t *)(out->offsets.ptr + out->offsets.len);
        for (i = 0; i < count; i++) {
            memcpy(out->data.ptr + pos, v[i].ptr, v[i].len);
            pos += v[i].len;
            ends[i] = (int64_t)pos;
        }
        out->data.len = pos;
        out->data.ptr[pos] = '\0';
        out->offsets.len += count * sizeof *ends;
    } else {
        size_t w = leaf->conv == PQ_CONV_BOOL ? 1 : leaf->value_width;
        if (zb_buf_append(&out->fixed, c->vals_fixed.ptr + c->vi * w,
                          count * w) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "%s: column %s: batch larger than "
                           "its cap", c->uri, c->path);
    }
    c->vi += count;
    out->n_values += count;
    return ZB_OK;
}

int pq_column_read(pq_column *c, zb_ctx *ctx, pq_leaf_batch *out,
                   size_t rows, size_t *rows_got)
{
    size_t got = 0;
    int rc;

    *rows_got = 0;
    while (got < rows) {
        size_t start, j, present = 0;

        if (c->i == c->n) {
            if ((rc = next_page(c, ctx)) < 0)
                return rc;
            if (rc == 0)
                break;
        }
        start = c->i;
        if (c->leaf->max_rep == 0) {
            j = start + (rows - got < c->n - start ? rows - got : c->n - start);
            got += j - start;
        } else {
            for (j = start; j < c->n; j++) {
                if (c->reps[j] == 0) {
                    if (got == rows)
                        break;
                    got++;
                }
            }
        }
        for (size_t k = start; k < j; k++)
            present += c->defs[k] == (uint16_t)c->leaf->max_def;
        if (present > c->n_present - c->vi)
            return corrupt(c, ctx, "fewer values than levels promise");
        if ((c->leaf->max_def > 0 &&
             zb_buf_append(&out->defs, c->defs + start,
                           (j - start) * sizeof *c->defs) < 0) ||
            (c->leaf->max_rep > 0 &&
             zb_buf_append(&out->reps, c->reps + start,
                           (j - start) * sizeof *c->reps) < 0))
            return zb_fail(ctx, ZB_ENOMEM, "%s: column %s: batch larger than "
                           "its cap", c->uri, c->path);
        out->n_levels += j - start;
        if ((rc = append_values(c, ctx, out, present)) < 0)
            return rc;
        c->i = j;
        if (c->leaf->max_rep > 0 && j < c->n)
            break;  /* stopped at the start of a row beyond the batch */
    }
    /* A row may continue on the next page: take its remaining triplets. */
    while (c->leaf->max_rep > 0 && got > 0) {
        size_t j, present = 0;
        if (c->i == c->n) {
            if ((rc = next_page(c, ctx)) < 0)
                return rc;
            if (rc == 0)
                break;
        }
        for (j = c->i; j < c->n && c->reps[j] != 0; j++)
            present += c->defs[j] == (uint16_t)c->leaf->max_def;
        if (j == c->i)
            break;
        if (present > c->n_present - c->vi)
            return corrupt(c, ctx, "fewer values than levels promise");
        if ((c->leaf->max_def > 0 &&
             zb_buf_append(&out->defs, c->defs + c->i,
                           (j - c->i) * sizeof *c->defs) < 0) ||
            zb_buf_append(&out->reps, c->reps + c->i,
                          (j - c->i) * sizeof *c->reps) < 0)
            return zb_fail_oom(ctx);
        out->n_levels += j - c->i;
        if ((rc = append_values(c, ctx, out, present)) < 0)
            return rc;
        c->i = j;
        if (j < c->n)
            break;
    }
    *rows_got = got;
    return ZB_OK;
}

/*
 * format/codec/codec_snappy.c - the SNAPPY codec through libsnappy's C
 * API (snappy-c.h).
 *
 * A Snappy stream starts with its uncompressed length as a varint; that
 * length is checked against the page's before anything is decoded, and
 * snappy_uncompress then writes at most out_len bytes and fails unless the
 * stream fills them exactly. Snappy has no levels; a level is ignored.
 *
 * Without a declared size (zb_codec__snappy_decompress_buf), the stream's
 * own length is checked against the buffer's cap before it is reserved.
 *
 * libsnappy allocates with C++ new inside its calls, so its scratch memory
 * (tens of KiB) is not counted by zb_malloc.
 */
#define ZB_MODULE "codec"

#include <string.h>

#include <snappy-c.h>

#include "format/codec/codec_int.h"
#include "util/alloc.h"
#include "util/buf.h"

int zb_codec__snappy_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len)
{
    size_t declared = 0, got = out_len;

    if (snappy_uncompressed_length((const char *)in, in_len, &declared) !=
        SNAPPY_OK)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "snappy: compressed %zu bytes have no valid length "
                       "header, page declares %zu", in_len, out_len);
    if (declared != out_len)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "snappy: stream declares %zu bytes, page declares %zu",
                       declared, out_len);
    if (snappy_uncompress((const char *)in, in_len, (char *)out, &got) !=
        SNAPPY_OK)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "snappy: compressed %zu bytes are malformed, page "
                       "declares %zu", in_len, out_len);
    if (got != out_len)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "snappy: decompressed %zu bytes, page declares %zu",
                       got, out_len);
    return ZB_OK;
}

size_t zb_codec__snappy_bound(size_t in_len)
{
    /* Snappy's length header is 32 bits. */
    if (in_len > UINT32_MAX)
        return 0;
    return snappy_max_compressed_length(in_len);
}

int zb_codec__snappy_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len)
{
    size_t bound = zb_codec__snappy_bound(in_len), got;
    uint8_t *tmp = NULL;
    int rc = ZB_OK;

    ZB_UNUSED(level);
    if (bound == 0)
        return zb_fail(ctx, ZB_EINVAL, "snappy: %zu bytes is too large",
                       in_len);
    /*
     * snappy_compress refuses any buffer smaller than the bound, even when
     * the result would fit; then compress aside and copy.
     */
    if (out_cap < bound && (tmp = zb_malloc(bound)) == NULL)
        return zb_fail_oom(ctx);
    got = bound;
    if (snappy_compress((const char *)in, in_len, (char *)(tmp ? tmp : out),
                        &got) != SNAPPY_OK) {
        rc = zb_fail(ctx, ZB_ERROR, "snappy: compressing %zu bytes failed",
                     in_len);
        goto done;
    }
    if (got > out_cap) {
        rc = zb_fail(ctx, ZB_ENOMEM,
                     "snappy: %zu bytes compress to %zu, more than the %zu "
                     "offered", in_len, got, out_cap);
        goto done;
    }
    if (tmp)
        memcpy(out, tmp, got);
    *out_len = got;
done:
    zb_free(tmp);
    return rc;
}

int zb_codec__snappy_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                    size_t in_len, zb_buf *out)
{
    size_t n, got;

    if (snappy_uncompressed_length((const char *)in, in_len, &n) != SNAPPY_OK)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: bad length preamble");
    if (n > out->max_bytes)
        return zb_fail(ctx, ZB_ENOMEM, "snappy: block of %zu bytes passes "
                       "the block cap of %zu", n, out->max_bytes);
    if (zb_buf_reserve(out, n) < 0)
        return zb_fail_oom(ctx);
    got = n;
    if (snappy_uncompress((const char *)in, in_len, out->ptr, &got) !=
            SNAPPY_OK || got != n)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: bad data");
    out->len = n;
    out->ptr[n] = '\0';
    return ZB_OK;
}

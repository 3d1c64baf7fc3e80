/*
 * format/codec/codec_zstd.c - the ZSTD codec through libzstd.
 *
 * Decompression is one ZSTD_decompress call into out with capacity
 * out_len: it decodes every frame of the input in turn (a page may hold
 * several, as zstd's own tools write them, and skippable frames), verifies
 * frame checksums when present, stops with dstSize_tooSmall rather than
 * write past out_len, and fails on trailing bytes that are not a frame.
 * The size it returns must then equal the page's. Frames need not record
 * their content size (streaming writers leave it out).
 *
 * Compression is one frame at ZSTD_minCLevel()..ZSTD_maxCLevel(), 0 being
 * zstd's default (3); no checksum, as Parquet writers commonly do.
 *
 * Without a declared size (zb_codec__zstd_decompress_buf) the frames are
 * streamed with ZSTD_decompressStream into a buffer that grows up to its
 * cap, one frame after another until the input is used up.
 *
 * Only zstd's stable API is used. Its one-shot functions allocate their
 * context with malloc inside the call, not counted by zb_malloc (counting
 * would need ZSTD_customMem, which is experimental API).
 */
#define ZB_MODULE "codec"

#include <zstd.h>
#include <zstd_errors.h>

#include "format/codec/codec_int.h"
#include "util/buf.h"

void *zb_codec__zstd_dctx_new(void)
{
    return ZSTD_createDCtx();
}

void zb_codec__zstd_dctx_free(void *dctx)
{
    ZSTD_freeDCtx(dctx);
}

int zb_codec__zstd_decompress(zb_ctx *ctx, void *dctx, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_len)
{
    size_t got = dctx ? ZSTD_decompressDCtx(dctx, out, out_len, in, in_len)
                      : ZSTD_decompress(out, out_len, in, in_len);

    if (ZSTD_isError(got)) {
        switch (ZSTD_getErrorCode(got)) {
        case ZSTD_error_dstSize_tooSmall:
            return zb_fail(ctx, ZB_ECORRUPT,
                           "zstd: decompresses to more than %zu bytes, page "
                           "declares %zu", out_len, out_len);
        case ZSTD_error_memory_allocation:
            return zb_fail_oom(ctx);
        default:
            return zb_fail(ctx, ZB_ECORRUPT,
                           "zstd: %s (compressed %zu bytes, page declares "
                           "%zu)", ZSTD_getErrorName(got), in_len, out_len);
        }
    }
    if (got != out_len)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "zstd: decompressed %zu bytes, page declares %zu", got,
                       out_len);
    return ZB_OK;
}

size_t zb_codec__zstd_bound(size_t in_len)
{
    size_t bound = ZSTD_compressBound(in_len);

    return ZSTD_isError(bound) ? 0 : bound;
}

void *zb_codec__zstd_cctx_new(void)
{
    return ZSTD_createCCtx();
}

void zb_codec__zstd_cctx_free(void *cctx)
{
    ZSTD_freeCCtx(cctx);
}

int zb_codec__zstd_compress(zb_ctx *ctx, void *cctx, int level,
                            const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len)
{
    size_t got;

    if (level == 0)
        level = ZSTD_CLEVEL_DEFAULT;
    else if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return zb_fail(ctx, ZB_EINVAL,
                       "zstd: level %d is outside %d..%d (0: default)", level,
                       ZSTD_minCLevel(), ZSTD_maxCLevel());
    got = cctx ? ZSTD_compressCCtx(cctx, out, out_cap, in, in_len, level)
               : ZSTD_compress(out, out_cap, in, in_len, level);
    if (ZSTD_isError(got)) {
        switch (ZSTD_getErrorCode(got)) {
        case ZSTD_error_dstSize_tooSmall:
            return zb_fail(ctx, ZB_ENOMEM,
                           "zstd: %zu bytes do not compress into the %zu "
                           "offered", in_len, out_cap);
        case ZSTD_error_memory_allocation:
            return zb_fail_oom(ctx);
        default:
            return zb_fail(ctx, ZB_ERROR, "zstd: compressing %zu bytes: %s",
                           in_len, ZSTD_getErrorName(got));
        }
    }
    *out_len = got;
    return ZB_OK;
}

int zb_codec__zstd_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                  size_t in_len, zb_buf *out)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    ZSTD_inBuffer ib = { in, in_len, 0 };
    size_t zr = 1;
    int rc = ZB_OK;

    if (d == NULL)
        return zb_fail_oom(ctx);
    while (ib.pos < ib.size || zr != 0) {
        ZSTD_outBuffer ob;
        size_t before_in = ib.pos;

        if ((rc = zb_codec__grow(ctx, out, "zstd")) < 0)
            break;
        ob.dst = out->ptr + out->len;
        ob.size = out->cap - out->len - 1;
        ob.pos = 0;
        zr = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(zr)) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "zstd: %s",
                         ZSTD_getErrorName(zr));
            break;
        }
        out->len += ob.pos;
        out->ptr[out->len] = '\0';
        if (ib.pos == ib.size && zr != 0 && ob.pos < ob.size &&
            before_in == ib.pos) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "zstd: data ends early");
            break;
        }
    }
    ZSTD_freeDCtx(d);
    return rc;
}

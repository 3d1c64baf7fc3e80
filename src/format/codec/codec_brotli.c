/*
 * format/codec/codec_brotli.c - the BROTLI codec through libbrotlidec
 * and libbrotlienc.
 *
 * Decompression streams the input through a decoder whose memory comes
 * from zb_malloc (BrotliDecoderCreateInstance takes an allocator). Output
 * goes into out until it is full, then into a small scratch buffer only to
 * learn whether the stream holds more than the page declares. The stream
 * must end exactly at the end of the input: brotli has no concatenation.
 *
 * Compression is the one-shot encoder at quality 1..11; 0 picks 8.
 * Brotli's own default, 11, is its slowest setting, meant for content
 * compressed once and served many times; rewriting table files is the
 * opposite case. The one-shot encoder allocates with malloc inside the
 * call (not counted by zb_malloc).
 */
#define ZB_MODULE "codec"

#include <brotli/decode.h>
#include <brotli/encode.h>

#include "format/codec/codec_int.h"
#include "util/alloc.h"

#define BROTLI_ZB_DEFAULT_QUALITY 8

static void *br_alloc(void *opaque, size_t bytes)
{
    ZB_UNUSED(opaque);
    return zb_malloc(bytes);
}

static void br_free(void *opaque, void *p)
{
    ZB_UNUSED(opaque);
    zb_free(p);
}

int zb_codec__brotli_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len)
{
    uint8_t scratch[64];
    BrotliDecoderState *st;
    BrotliDecoderResult res;
    const uint8_t *next_in = in;
    uint8_t *next_out = out;
    size_t avail_in = in_len, avail_out = out_len;
    int spill = 0; /* out is full; output goes to scratch */
    int rc = ZB_OK;

    if ((st = BrotliDecoderCreateInstance(br_alloc, br_free, NULL)) == NULL)
        return zb_fail_oom(ctx);
    for (;;) {
        if (avail_out == 0 && !spill) {
            spill = 1;
            next_out = scratch;
            avail_out = sizeof scratch;
        }
        res = BrotliDecoderDecompressStream(st, &avail_in, &next_in,
                                            &avail_out, &next_out, NULL);
        if (spill && avail_out != sizeof scratch) {
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "brotli: decompresses to more than %zu bytes, page "
                         "declares %zu", out_len, out_len);
            goto done;
        }
        if (res == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
            continue;
        break;
    }
    if (res == BROTLI_DECODER_RESULT_ERROR) {
        BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(st);

        if (code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
            code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES)
            rc = zb_fail_oom(ctx);
        else
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "brotli: %s at compressed byte %zu of %zu, page "
                         "declares %zu bytes", BrotliDecoderErrorString(code),
                         in_len - avail_in, in_len, out_len);
    } else if (res == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "brotli: truncated: %zu compressed bytes end after %zu "
                     "decompressed, page declares %zu", in_len,
                     spill ? out_len : out_len - avail_out, out_len);
    } else if (avail_in != 0) {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "brotli: %zu bytes follow the end of the stream "
                     "(compressed %zu bytes)", avail_in, in_len);
    } else if (!spill && avail_out != 0) {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "brotli: decompressed %zu bytes, page declares %zu",
                     out_len - avail_out, out_len);
    }
done:
    BrotliDecoderDestroyInstance(st);
    return rc;
}

size_t zb_codec__brotli_bound(size_t in_len)
{
    return BrotliEncoderMaxCompressedSize(in_len);
}

int zb_codec__brotli_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len)
{
    size_t got = out_cap;

    if (level == 0)
        level = BROTLI_ZB_DEFAULT_QUALITY;
    else if (level < 1 || level > BROTLI_MAX_QUALITY)
        return zb_fail(ctx, ZB_EINVAL,
                       "brotli: level %d is outside 1..%d (0: default)",
                       level, BROTLI_MAX_QUALITY);
    if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW,
                               BROTLI_MODE_GENERIC, in_len, in, &got, out))
        /* Its only failures are a small buffer and failed allocation. */
        return zb_fail(ctx, ZB_ENOMEM,
                       "brotli: %zu bytes do not compress into the %zu "
                       "offered (or out of memory)", in_len, out_cap);
    *out_len = got;
    return ZB_OK;
}

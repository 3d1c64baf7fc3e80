/*
 * format/codec/codec_lz4.c - the LZ4_RAW codec and the deprecated LZ4
 * codec through liblz4's block API (lz4.h, lz4hc.h).
 *
 * LZ4_RAW is one LZ4 block, decoded by LZ4_decompress_safe, which never
 * reads past the input nor writes past out_len and fails when the block
 * needs more room; the count it returns must equal the page's size.
 *
 * LZ4 is LZ4 inside Hadoop's BlockCompressorStream framing, which parquet-
 * mr wrote. The input is a sequence of blocks:
 *
 *     [u32 BE: uncompressed size of the block]
 *     then chunks until that many bytes are decoded:
 *         [u32 BE: compressed size of the chunk][an LZ4 block]
 *
 * Most writers put one chunk in a block; Hadoop splits an input larger
 * than its buffer into several chunks under one block header, so both are
 * read. The framing must account for every byte of input and of the page;
 * when it does not (some writers, parquet-cpp among them, wrote LZ4 pages
 * as one plain block), the input is decoded again as a plain block, as
 * other readers do. Writing LZ4 is not supported: use LZ4_RAW.
 *
 * Compression: level 0 is LZ4's fast compressor (LZ4_compress_default),
 * levels 1..12 LZ4HC. Both take their state from zb_malloc (the *_extState
 * functions), so nothing is allocated behind our back.
 */
#define ZB_MODULE "codec"

#include <lz4.h>
#include <lz4hc.h>

#include "format/codec/codec_int.h"
#include "util/alloc.h"

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int zb_codec__lz4_raw_decompress(zb_ctx *ctx, const uint8_t *in,
                                 size_t in_len, uint8_t *out, size_t out_len)
{
    /* Sizes are <= INT32_MAX (codec.c). */
    int got = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len,
                                  (int)out_len);

    if (got < 0)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "lz4_raw: block of %zu bytes is malformed or "
                       "decompresses to more than the %zu the page declares",
                       in_len, out_len);
    if ((size_t)got != out_len)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "lz4_raw: decompressed %d bytes, page declares %zu",
                       got, out_len);
    return ZB_OK;
}

/*
 * Decodes the Hadoop framing; 1 when it accounts exactly for in and out,
 * 0 when it does not (out then holds garbage).
 */
static int hadoop_decode(const uint8_t *in, size_t in_len, uint8_t *out,
                         size_t out_len)
{
    size_t pos = 0, done_out = 0;

    while (pos < in_len) {
        size_t block_len, block_done = 0;

        if (in_len - pos < 4)
            return 0;
        block_len = load_be32(in + pos);
        pos += 4;
        if (block_len > out_len - done_out)
            return 0;
        /* A block of 0 bytes still has its chunk in Hadoop's writer. */
        do {
            size_t chunk_len;
            int got;

            if (in_len - pos < 4)
                return 0;
            chunk_len = load_be32(in + pos);
            pos += 4;
            if (chunk_len > in_len - pos)
                return 0;
            got = LZ4_decompress_safe((const char *)in + pos,
                                      (char *)out + done_out + block_done,
                                      (int)chunk_len,
                                      (int)(block_len - block_done));
            if (got < 0)
                return 0;
            pos += chunk_len;
            block_done += (size_t)got;
        } while (block_done < block_len);
        done_out += block_len;
    }
    return done_out == out_len;
}

int zb_codec__lz4_hadoop_decompress(zb_ctx *ctx, const uint8_t *in,
                                    size_t in_len, uint8_t *out,
                                    size_t out_len)
{
    int got;

    if (hadoop_decode(in, in_len, out, out_len))
        return ZB_OK;
    got = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len,
                              (int)out_len);
    if (got >= 0 && (size_t)got == out_len)
        return ZB_OK;
    return zb_fail(ctx, ZB_ECORRUPT,
                   "lz4: compressed %zu bytes are neither Hadoop-framed nor "
                   "a plain block of the %zu bytes the page declares",
                   in_len, out_len);
}

size_t zb_codec__lz4_raw_bound(size_t in_len)
{
    if (in_len > LZ4_MAX_INPUT_SIZE)
        return 0;
    return (size_t)LZ4_compressBound((int)in_len);
}

int zb_codec__lz4_raw_compress(zb_ctx *ctx, int level, const uint8_t *in,
                               size_t in_len, uint8_t *out, size_t out_cap,
                               size_t *out_len)
{
    void *state = NULL;
    int cap, got;

    if (level < 0 || level > LZ4HC_CLEVEL_MAX)
        return zb_fail(ctx, ZB_EINVAL,
                       "lz4_raw: level %d is outside 0..%d (0: fast, "
                       "1..%d: LZ4HC)", level, LZ4HC_CLEVEL_MAX,
                       LZ4HC_CLEVEL_MAX);
    if (in_len > LZ4_MAX_INPUT_SIZE)
        return zb_fail(ctx, ZB_EINVAL, "lz4_raw: %zu bytes is too large",
                       in_len);
    cap = out_cap > INT32_MAX ? INT32_MAX : (int)out_cap;
    state = zb_malloc((size_t)(level == 0 ? LZ4_sizeofState()
                                          : LZ4_sizeofStateHC()));
    if (state == NULL)
        return zb_fail_oom(ctx);
    if (level == 0)
        got = LZ4_compress_fast_extState(state, (const char *)in,
                                         (char *)out, (int)in_len, cap, 1);
    else
        got = LZ4_compress_HC_extStateHC(state, (const char *)in,
                                         (char *)out, (int)in_len, cap,
                                         level);
    zb_free(state);
    if (got <= 0)
        return zb_fail(ctx, ZB_ENOMEM,
                       "lz4_raw: %zu bytes do not compress into the %zu "
                       "offered", in_len, out_cap);
    *out_len = (size_t)got;
    return ZB_OK;
}

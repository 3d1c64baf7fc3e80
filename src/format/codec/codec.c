/*
 * format/codec/codec.c - the compression algorithms of codec.h: names,
 * and the dispatch of zb_codec_decompress, zb_codec_decompress_buf,
 * zb_codec_compress and zb_codec_compress_bound to one file per library.
 *
 * Call order: a reader of a container that declares the uncompressed
 * size (a Parquet page) calls zb_codec_decompress with an output buffer of
 * exactly that size; one that does not (an Avro block) calls
 * zb_codec_decompress_buf with a capped zb_buf; a writer sizes its buffer
 * with zb_codec_compress_bound and calls zb_codec_compress.
 *
 * What is decided here, for every codec alike:
 *   - Sizes above INT32_MAX are refused (ZB_CODEC__SIZE_MAX): no Parquet
 *     page can be larger, and LZ4's API takes int.
 *   - An empty input decodes to an empty output without calling the
 *     library (there is nothing to decode and nothing is expected); an
 *     empty input for a non-empty declared size is corrupt.
 *   - NULL buffers are allowed only with a length of 0; the libraries are
 *     given a dummy byte instead, since some of them reject NULL.
 *   - zb_codec_compress returns ZB_ENOMEM ("a size cap was hit") when the
 *     result does not fit out_cap, so that a writer may offer a small
 *     buffer and store the data uncompressed if compression does not pay;
 *     zb_codec_compress_bound also returns 0 when in_len is too large for
 *     the codec. Levels outside a codec's range are ZB_EINVAL.
 *
 * No state outlives a call, so all of this is safe to use from any number
 * of threads at once; except that a zb_codec_state keeps zstd contexts,
 * and belongs to one thread at a time (a one-shot ZSTD_decompress
 * allocates and frees its context on every page, which showed up as page
 * faults in the Parquet reader's profile).
 */
#define ZB_MODULE "codec"

#include <string.h>

#include "format/codec/codec.h"

#include "format/codec/codec_int.h"
#include "util/alloc.h"

/* The codec as messages name it: "zstd: decompressed ...". */
const char *zb_codec_name(int codec)
{
    switch (codec) {
    case ZB_CODEC_NONE: return "uncompressed";
    case ZB_CODEC_SNAPPY: return "snappy";
    case ZB_CODEC_GZIP: return "gzip";
    case ZB_CODEC_DEFLATE_RAW: return "deflate";
    case ZB_CODEC_BROTLI: return "brotli";
    case ZB_CODEC_LZ4_RAW: return "lz4_raw";
    case ZB_CODEC_LZ4_HADOOP: return "lz4";
    case ZB_CODEC_ZSTD: return "zstd";
    default: return "unknown";
    }
}

static int unsupported(zb_ctx *ctx, int codec, const char *what)
{
    if (codec == ZB_CODEC_LZ4_HADOOP)
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "lz4: %s of the deprecated Hadoop-framed LZ4 is not "
                       "supported; use LZ4_RAW", what);
    return zb_fail(ctx, ZB_EUNSUPPORTED,
                   "%s of unknown compression codec %d is not supported",
                   what, codec);
}

static int copy_uncompressed(zb_ctx *ctx, const uint8_t *in, size_t in_len,
                             uint8_t *out, size_t out_len)
{
    if (in_len != out_len)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "uncompressed: page holds %zu bytes, declares %zu",
                       in_len, out_len);
    if (in_len > 0)
        memcpy(out, in, in_len);
    return ZB_OK;
}

struct zb_codec_state {
    void *zstd;     /* a ZSTD_DCtx, made on first use */
    void *zstd_c;   /* a ZSTD_CCtx, made on first use */
};

int zb_codec_state_new(zb_codec_state **out)
{
    *out = zb_calloc(1, sizeof **out);
    return *out ? ZB_OK : ZB_ENOMEM;
}

void zb_codec_state_free(zb_codec_state *s)
{
    if (s == NULL)
        return;
    zb_codec__zstd_dctx_free(s->zstd);
    zb_codec__zstd_cctx_free(s->zstd_c);
    zb_free(s);
}

int zb_codec_decompress(zb_codec_state *state, zb_ctx *ctx, int codec,
                        const uint8_t *in, size_t in_len, uint8_t *out,
                        size_t out_len)
{
    static const uint8_t no_input = 0;
    uint8_t no_output;

    ZB_ASSERT_ARG(ctx && (in || in_len == 0) && (out || out_len == 0));
    if (codec < ZB_CODEC_NONE || codec >= ZB_CODEC_COUNT)
        return unsupported(ctx, codec, "decompression");
    if (in_len > ZB_CODEC__SIZE_MAX || out_len > ZB_CODEC__SIZE_MAX)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: page of %zu bytes (%zu compressed) is over "
                       "the 2 GiB limit",
                       zb_codec_name(codec), out_len, in_len);
    if (in_len == 0) {
        if (out_len == 0)
            return ZB_OK;
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: compressed page is empty, page declares %zu "
                       "bytes", zb_codec_name(codec), out_len);
    }
    if (out == NULL)
        out = &no_output;
    if (in == NULL)
        in = &no_input;

    switch (codec) {
    case ZB_CODEC_NONE:
        return copy_uncompressed(ctx, in, in_len, out, out_len);
    case ZB_CODEC_SNAPPY:
        return zb_codec__snappy_decompress(ctx, in, in_len, out, out_len);
    case ZB_CODEC_GZIP:
        return zb_codec__gzip_decompress(ctx, in, in_len, out, out_len);
    case ZB_CODEC_DEFLATE_RAW:
        return zb_codec__deflate_raw_decompress(ctx, in, in_len, out,
                                                out_len);
    case ZB_CODEC_BROTLI:
        return zb_codec__brotli_decompress(ctx, in, in_len, out, out_len);
    case ZB_CODEC_LZ4_HADOOP:
        return zb_codec__lz4_hadoop_decompress(ctx, in, in_len, out,
                                               out_len);
    case ZB_CODEC_ZSTD:
        if (state && state->zstd == NULL &&
            (state->zstd = zb_codec__zstd_dctx_new()) == NULL)
            return zb_fail_oom(ctx);
        return zb_codec__zstd_decompress(ctx, state ? state->zstd : NULL, in,
                                         in_len, out, out_len);
    case ZB_CODEC_LZ4_RAW:
        return zb_codec__lz4_raw_decompress(ctx, in, in_len, out, out_len);
    default:
        return unsupported(ctx, codec, "decompression");
    }
}

int zb_codec__grow(zb_ctx *ctx, zb_buf *out, const char *name)
{
    size_t room = out->cap > out->len + 1 ? out->cap - out->len - 1 : 0;
    size_t want = out->len < 65536 ? 65536 : out->len;

    if (room > 0)
        return ZB_OK;
    if (want > out->max_bytes - out->len)
        want = out->max_bytes - out->len;
    if (want == 0 || zb_buf_reserve(out, want) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "%s: block inflates past %zu bytes "
                       "(the block cap) or out of memory", name,
                       out->max_bytes);
    return ZB_OK;
}

int zb_codec_decompress_buf(zb_ctx *ctx, int codec, const uint8_t *in,
                            size_t in_len, zb_buf *out)
{
    static const uint8_t no_input = 0;

    ZB_ASSERT_ARG(ctx && out && (in || in_len == 0));
    zb_buf_clear(out);
    if (in == NULL)
        in = &no_input;
    switch (codec) {
    case ZB_CODEC_NONE:
        if (in_len > out->max_bytes)
            return zb_fail(ctx, ZB_ENOMEM, "block of %zu bytes passes the "
                           "cap of %zu", in_len, out->max_bytes);
        return zb_buf_append(out, in, in_len) < 0 ? zb_fail_oom(ctx) : ZB_OK;
    case ZB_CODEC_SNAPPY:
        return zb_codec__snappy_decompress_buf(ctx, in, in_len, out);
    case ZB_CODEC_GZIP:
        return zb_codec__gzip_decompress_buf(ctx, in, in_len, out);
    case ZB_CODEC_DEFLATE_RAW:
        return zb_codec__deflate_raw_decompress_buf(ctx, in, in_len, out);
    case ZB_CODEC_ZSTD:
        return zb_codec__zstd_decompress_buf(ctx, in, in_len, out);
    default:
        if (codec < ZB_CODEC_NONE || codec >= ZB_CODEC_COUNT)
            return unsupported(ctx, codec, "decompression");
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: decompression to an "
                       "undeclared size is not supported",
                       zb_codec_name(codec));
    }
}

size_t zb_codec_compress_bound(int codec, size_t in_len)
{
    if (in_len > ZB_CODEC__SIZE_MAX)
        return 0;
    switch (codec) {
    case ZB_CODEC_NONE: return in_len;
    case ZB_CODEC_SNAPPY: return zb_codec__snappy_bound(in_len);
    case ZB_CODEC_GZIP: return zb_codec__gzip_bound(in_len);
    case ZB_CODEC_DEFLATE_RAW: return zb_codec__deflate_raw_bound(in_len);
    case ZB_CODEC_BROTLI: return zb_codec__brotli_bound(in_len);
    case ZB_CODEC_ZSTD: return zb_codec__zstd_bound(in_len);
    case ZB_CODEC_LZ4_RAW: return zb_codec__lz4_raw_bound(in_len);
    default: return 0;
    }
}

uint32_t zb_codec_crc32(const uint8_t *p, size_t len)
{
    static const uint8_t none = 0;

    return zb_codec__crc32(len ? p : &none, len);
}

int zb_codec_compress(zb_codec_state *state, zb_ctx *ctx, int codec,
                      int level, const uint8_t *in, size_t in_len,
                      uint8_t *out, size_t out_cap, size_t *out_len)
{
    static const uint8_t no_input = 0;
    uint8_t no_output;

    ZB_ASSERT_ARG(ctx && out_len && (in || in_len == 0) &&
                  (out || out_cap == 0));
    *out_len = 0;
    if (codec < ZB_CODEC_NONE || codec >= ZB_CODEC_COUNT ||
        codec == ZB_CODEC_LZ4_HADOOP)
        return unsupported(ctx, codec, "compression");
    if (in_len > ZB_CODEC__SIZE_MAX)
        return zb_fail(ctx, ZB_EINVAL,
                       "%s: input of %zu bytes is over the 2 GiB limit",
                       zb_codec_name(codec), in_len);
    if (out == NULL)
        out = &no_output;
    if (in == NULL)
        in = &no_input;

    switch (codec) {
    case ZB_CODEC_NONE:
        /* Levels mean nothing here and are ignored, as by other writers. */
        if (in_len > out_cap)
            return zb_fail(ctx, ZB_ENOMEM,
                           "uncompressed: %zu bytes do not fit in %zu",
                           in_len, out_cap);
        if (in_len > 0)
            memcpy(out, in, in_len);
        *out_len = in_len;
        return ZB_OK;
    case ZB_CODEC_SNAPPY:
        return zb_codec__snappy_compress(ctx, level, in, in_len, out,
                                         out_cap, out_len);
    case ZB_CODEC_GZIP:
        return zb_codec__gzip_compress(ctx, level, in, in_len, out, out_cap,
                                       out_len);
    case ZB_CODEC_DEFLATE_RAW:
        return zb_codec__deflate_raw_compress(ctx, level, in, in_len, out,
                                              out_cap, out_len);
    case ZB_CODEC_BROTLI:
        return zb_codec__brotli_compress(ctx, level, in, in_len, out,
                                         out_cap, out_len);
    case ZB_CODEC_ZSTD:
        if (state && state->zstd_c == NULL &&
            (state->zstd_c = zb_codec__zstd_cctx_new()) == NULL)
            return zb_fail_oom(ctx);
        return zb_codec__zstd_compress(ctx, state ? state->zstd_c : NULL,
                                       level, in, in_len, out, out_cap,
                                       out_len);
    case ZB_CODEC_LZ4_RAW:
        return zb_codec__lz4_raw_compress(ctx, level, in, in_len, out,
                                          out_cap, out_len);
    default:
        return unsupported(ctx, codec, "compression");
    }
}

/*
 * format/codec/codec.c - the page codecs of Parquet (Compression.md of
 * apache/parquet-format): names, and the dispatch of pq_decompress,
 * pq_compress and pq_compress_bound to one file per library.
 *
 * Call order: a reader takes compressed_page_size bytes of a page and
 * calls pq_decompress with an output buffer of exactly the page's
 * uncompressed_page_size; a writer sizes its buffer with
 * pq_compress_bound and calls pq_compress.
 *
 * What is decided here, for every codec alike:
 *   - Sizes above INT32_MAX are refused: PageHeader sizes are i32, so such
 *     a page cannot exist (and LZ4's API takes int).
 *   - An empty input decodes to an empty page without calling the library
 *     (there is nothing to decode and nothing is expected); an empty input
 *     for a non-empty page is corrupt.
 *   - NULL buffers are allowed only with a length of 0; the libraries are
 *     given a dummy byte instead, since some of them reject NULL.
 *   - pq_compress returns ZB_ENOMEM ("a size cap was hit") when the result
 *     does not fit out_cap, so that a writer may offer a small buffer and
 *     store the page uncompressed if compression does not pay;
 *     pq_compress_bound also returns 0 when in_len is too large for the
 *     codec. Levels outside a codec's range are ZB_EINVAL.
 *
 * No state outlives a call, so all of this is safe to use from any number
 * of threads at once; except that pq_decompress_with keeps a zstd context
 * in the caller's pq_codec_state, which belongs to one thread at a time
 * (a one-shot ZSTD_decompress allocates and frees its context on every
 * page, which showed up as page faults in the reader's profile).
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/codec/codec.h"

#include "format/codec/codec_int.h"
#include "util/alloc.h"

const char *pq_codec_name(int codec)
{
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
    case PQ_CODEC_SNAPPY: return "SNAPPY";
    case PQ_CODEC_GZIP: return "GZIP";
    case PQ_CODEC_LZO: return "LZO";
    case PQ_CODEC_BROTLI: return "BROTLI";
    case PQ_CODEC_LZ4: return "LZ4";
    case PQ_CODEC_ZSTD: return "ZSTD";
    case PQ_CODEC_LZ4_RAW: return "LZ4_RAW";
    default: return "UNKNOWN";
    }
}

/* The codec as messages name it: "zstd: decompressed ...". */
static const char *msg_name(int codec)
{
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: return "uncompressed";
    case PQ_CODEC_SNAPPY: return "snappy";
    case PQ_CODEC_GZIP: return "gzip";
    case PQ_CODEC_LZO: return "lzo";
    case PQ_CODEC_BROTLI: return "brotli";
    case PQ_CODEC_LZ4: return "lz4";
    case PQ_CODEC_ZSTD: return "zstd";
    case PQ_CODEC_LZ4_RAW: return "lz4_raw";
    default: return "unknown";
    }
}

static int unsupported(zb_ctx *ctx, int codec, const char *what)
{
    if (codec == PQ_CODEC_LZ4)
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "lz4: %s of the deprecated Hadoop-framed LZ4 is not "
                       "supported; use LZ4_RAW", what);
    if (codec == PQ_CODEC_LZO)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "lzo: %s of LZO is not supported",
                       what);
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

struct pq_codec_state {
    void *zstd;     /* a ZSTD_DCtx, made on first use */
    void *zstd_c;   /* a ZSTD_CCtx, made on first use */
};

int pq_codec_state_new(pq_codec_state **out)
{
    *out = zb_calloc(1, sizeof **out);
    return *out ? ZB_OK : ZB_ENOMEM;
}

void pq_codec_state_free(pq_codec_state *s)
{
    if (s == NULL)
        return;
    pq_codec__zstd_dctx_free(s->zstd);
    pq_codec__zstd_cctx_free(s->zstd_c);
    zb_free(s);
}

int pq_decompress(zb_ctx *ctx, int codec, const uint8_t *in, size_t in_len,
                  uint8_t *out, size_t out_len)
{
    return pq_decompress_with(NULL, ctx, codec, in, in_len, out, out_len);
}

int pq_decompress_with(pq_codec_state *state, zb_ctx *ctx, int codec,
                       const uint8_t *in, size_t in_len, uint8_t *out,
                       size_t out_len)
{
    static const uint8_t no_input = 0;
    uint8_t no_output;

    ZB_ASSERT_ARG(ctx && (in || in_len == 0) && (out || out_len == 0));
    if (codec == PQ_CODEC_LZO || codec < PQ_CODEC_UNCOMPRESSED ||
        codec > PQ_CODEC_LZ4_RAW)
        return unsupported(ctx, codec, "decompression");
    if (in_len > PQ_CODEC__PAGE_MAX || out_len > PQ_CODEC__PAGE_MAX)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: page of %zu bytes (%zu compressed) is over "
                       "Parquet's 2 GiB limit",
                       msg_name(codec), out_len, in_len);
    if (in_len == 0) {
        if (out_len == 0)
            return ZB_OK;
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: compressed page is empty, page declares %zu "
                       "bytes", msg_name(codec), out_len);
    }
    if (out == NULL)
        out = &no_output;
    if (in == NULL)
        in = &no_input;

    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        return copy_uncompressed(ctx, in, in_len, out, out_len);
    case PQ_CODEC_SNAPPY:
        return pq_codec__snappy_decompress(ctx, in, in_len, out, out_len);
    case PQ_CODEC_GZIP:
        return pq_codec__gzip_decompress(ctx, in, in_len, out, out_len);
    case PQ_CODEC_BROTLI:
        return pq_codec__brotli_decompress(ctx, in, in_len, out, out_len);
    case PQ_CODEC_LZ4:
        return pq_codec__lz4_hadoop_decompress(ctx, in, in_len, out,
                                               out_len);
    case PQ_CODEC_ZSTD:
        if (state && state->zstd == NULL &&
            (state->zstd = pq_codec__zstd_dctx_new()) == NULL)
            return zb_fail_oom(ctx);
        return pq_codec__zstd_decompress(ctx, state ? state->zstd : NULL, in,
                                         in_len, out, out_len);
    case PQ_CODEC_LZ4_RAW:
        return pq_codec__lz4_raw_decompress(ctx, in, in_len, out, out_len);
    default:
        return unsupported(ctx, codec, "decompression");
    }
}

size_t pq_compress_bound(int codec, size_t in_len)
{
    if (in_len > PQ_CODEC__PAGE_MAX)
        return 0;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: return in_len;
    case PQ_CODEC_SNAPPY: return pq_codec__snappy_bound(in_len);
    case PQ_CODEC_GZIP: return pq_codec__gzip_bound(in_len);
    case PQ_CODEC_BROTLI: return pq_codec__brotli_bound(in_len);
    case PQ_CODEC_ZSTD: return pq_codec__zstd_bound(in_len);
    case PQ_CODEC_LZ4_RAW: return pq_codec__lz4_raw_bound(in_len);
    default: return 0;
    }
}

int pq_compress(zb_ctx *ctx, int codec, int level, const uint8_t *in,
                size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len)
{
    return pq_compress_with(NULL, ctx, codec, level, in, in_len, out, out_cap,
                            out_len);
}

int pq_compress_with(pq_codec_state *state, zb_ctx *ctx, int codec,
                     int level, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_cap, size_t *out_len)
{
    static const uint8_t no_input = 0;
    uint8_t no_output;

    ZB_ASSERT_ARG(ctx && out_len && (in || in_len == 0) &&
                  (out || out_cap == 0));
    *out_len = 0;
    if (codec < PQ_CODEC_UNCOMPRESSED || codec > PQ_CODEC_LZ4_RAW ||
        codec == PQ_CODEC_LZO || codec == PQ_CODEC_LZ4)
        return unsupported(ctx, codec, "compression");
    if (in_len > PQ_CODEC__PAGE_MAX)
        return zb_fail(ctx, ZB_EINVAL,
                       "%s: page of %zu bytes is over Parquet's 2 GiB limit",
                       msg_name(codec), in_len);
    if (out == NULL)
        out = &no_output;
    if (in == NULL)
        in = &no_input;

    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        /* Levels mean nothing here and are ignored, as by other writers. */
        if (in_len > out_cap)
            return zb_fail(ctx, ZB_ENOMEM,
                           "uncompressed: %zu bytes do not fit in %zu",
                           in_len, out_cap);
        if (in_len > 0)
            memcpy(out, in, in_len);
        *out_len = in_len;
        return ZB_OK;
    case PQ_CODEC_SNAPPY:
        return pq_codec__snappy_compress(ctx, level, in, in_len, out,
                                         out_cap, out_len);
    case PQ_CODEC_GZIP:
        return pq_codec__gzip_compress(ctx, level, in, in_len, out, out_cap,
                                       out_len);
    case PQ_CODEC_BROTLI:
        return pq_codec__brotli_compress(ctx, level, in, in_len, out,
                                         out_cap, out_len);
    case PQ_CODEC_ZSTD:
        if (state && state->zstd_c == NULL &&
            (state->zstd_c = pq_codec__zstd_cctx_new()) == NULL)
            return zb_fail_oom(ctx);
        return pq_codec__zstd_compress(ctx, state ? state->zstd_c : NULL,
                                       level, in, in_len, out, out_cap,
                                       out_len);
    case PQ_CODEC_LZ4_RAW:
        return pq_codec__lz4_raw_compress(ctx, level, in, in_len, out,
                                          out_cap, out_len);
    default:
        return unsupported(ctx, codec, "compression");
    }
}

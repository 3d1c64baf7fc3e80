/*
 * format/parquet/pq_compression.c - Parquet's CompressionCodec ids
 * mapped to format/codec's algorithms (Compression.md of
 * apache/parquet-format says which algorithm and framing each id means):
 * GZIP is gzip-framed deflate, LZ4 the deprecated Hadoop framing, LZ4_RAW
 * a plain block. LZO has no library here.
 */
#define ZB_MODULE "parquet"

#include "format/parquet/pq_compression.h"

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

int pq_codec_algorithm(int codec)
{
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: return ZB_CODEC_NONE;
    case PQ_CODEC_SNAPPY: return ZB_CODEC_SNAPPY;
    case PQ_CODEC_GZIP: return ZB_CODEC_GZIP;
    case PQ_CODEC_BROTLI: return ZB_CODEC_BROTLI;
    case PQ_CODEC_LZ4: return ZB_CODEC_LZ4_HADOOP;
    case PQ_CODEC_ZSTD: return ZB_CODEC_ZSTD;
    case PQ_CODEC_LZ4_RAW: return ZB_CODEC_LZ4_RAW;
    default: return -1;
    }
}

int pq_decompress_page(zb_codec_state *state, zb_ctx *ctx, int codec,
                       const uint8_t *in, size_t in_len, uint8_t *out,
                       size_t out_len)
{
    int algorithm = pq_codec_algorithm(codec);

    if (codec == PQ_CODEC_LZO)
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "lzo: decompression of LZO is not supported");
    if (algorithm < 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "decompression of unknown "
                       "compression codec %d is not supported", codec);
    return zb_codec_decompress(state, ctx, algorithm, in, in_len, out,
                               out_len);
}

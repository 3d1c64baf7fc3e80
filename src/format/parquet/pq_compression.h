/*
 * format/parquet/pq_compression.h - Parquet's CompressionCodec ids
 * (parquet.thrift), their names, and the algorithm of format/codec each
 * id stands for. The id is what the footer stores; the algorithm is what
 * pages are compressed with.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_COMPRESSION_H
#define ZB_FORMAT_PARQUET_PQ_COMPRESSION_H

#include "format/codec/codec.h"

/* CompressionCodec of parquet.thrift. */
typedef enum pq_codec {
    PQ_CODEC_UNCOMPRESSED = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_LZO = 3,
    PQ_CODEC_BROTLI = 4,
    PQ_CODEC_LZ4 = 5,      /* Hadoop-framed LZ4 (deprecated) */
    PQ_CODEC_ZSTD = 6,
    PQ_CODEC_LZ4_RAW = 7
} pq_codec;

/* "UNCOMPRESSED", "SNAPPY", ...; "UNKNOWN" otherwise. */
const char *pq_codec_name(int codec);

/* The zb_codec that Parquet's codec id names; -1 for LZO (no library
 * here reads it) and for ids parquet.thrift does not define. */
int pq_codec_algorithm(int codec);

/*
 * zb_codec_decompress of one page compressed with Parquet's codec id:
 * in[0..in_len) must come out exactly out_len bytes long. Same rc as
 * zb_codec_decompress; LZO and unknown ids are ZB_EUNSUPPORTED.
 */
int pq_decompress_page(zb_codec_state *state, zb_ctx *ctx, int codec,
                       const uint8_t *in, size_t in_len, uint8_t *out,
                       size_t out_len);

#endif

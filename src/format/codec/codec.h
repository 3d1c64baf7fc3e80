/*
 * format/codec/codec.h - page compression codecs, each through its
 * Debian library (codec_*.c, one file per library).
 */
#ifndef ZB_FORMAT_PARQUET_PQ_CODEC_H
#define ZB_FORMAT_PARQUET_PQ_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

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

/*
 * Decompresses in[0..in_len) into out, which must come out exactly
 * out_len bytes long (the page's declared uncompressed size). Returns
 * ZB_OK; ZB_ECORRUPT when the input is malformed or decompresses to any
 * other size (never writing past out_len); ZB_EUNSUPPORTED for LZO or an
 * unknown codec; ZB_ENOMEM. The message in ctx names the codec; callers
 * prefix the file, column and offset. PQ_CODEC_LZ4 accepts the Hadoop
 * framing and, as other readers do, a plain LZ4 block when the framing
 * does not fit.
 */
int pq_decompress(zb_ctx *ctx, int codec, const uint8_t *in, size_t in_len,
                  uint8_t *out, size_t out_len);

/*
 * Reusable codec state (for now zstd's contexts), so that pages do not
 * each allocate one. Belongs to one thread at a time. pq_decompress
 * is pq_decompress_with(NULL, ...).
 */
typedef struct pq_codec_state pq_codec_state;
int pq_codec_state_new(pq_codec_state **out);
void pq_codec_state_free(pq_codec_state *s);
int pq_decompress_with(pq_codec_state *state, zb_ctx *ctx, int codec,
                       const uint8_t *in, size_t in_len, uint8_t *out,
                       size_t out_len);

/* Worst-case compressed size of in_len bytes; 0 for an unsupported codec. */
size_t pq_compress_bound(int codec, size_t in_len);

/*
 * Compresses in into out[0..out_cap), with level (codec-specific; 0 means
 * the codec's default). *out_len receives the compressed size. Supports
 * UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4_RAW; others are
 * ZB_EUNSUPPORTED.
 */
int pq_compress(zb_ctx *ctx, int codec, int level, const uint8_t *in,
                size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len);

/* pq_compress reusing the compression contexts kept in state. */
int pq_compress_with(pq_codec_state *state, zb_ctx *ctx, int codec,
                     int level, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_cap, size_t *out_len);

#endif

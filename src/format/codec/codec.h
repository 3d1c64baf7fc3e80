/*
 * format/codec/codec.h - compression algorithms, each through its Debian
 * library (codec_*.c, one file per library), for any file format.
 *
 * The names here are the algorithms', not a format's: Parquet maps its
 * CompressionCodec ids to them (format/parquet/pq_compression.h), Avro its
 * avro.codec names (format/avro/avro_codec.c), each with its own framing
 * around them (Avro's snappy CRC32, for one).
 *
 * Two ways to decompress: into a buffer of exactly the size the container
 * declares (zb_codec_decompress, Parquet's pages), or into a capped,
 * growing buffer when no size is declared (zb_codec_decompress_buf, Avro's
 * blocks).
 */
#ifndef ZB_FORMAT_CODEC_CODEC_H
#define ZB_FORMAT_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

typedef enum zb_codec {
    ZB_CODEC_NONE = 0,      /* the bytes as they are */
    ZB_CODEC_SNAPPY,        /* one raw Snappy block, no framing */
    ZB_CODEC_GZIP,          /* gzip members (RFC 1952); zlib streams
                               (RFC 1950) are read too */
    ZB_CODEC_DEFLATE_RAW,   /* raw deflate (RFC 1951), no header */
    ZB_CODEC_BROTLI,
    ZB_CODEC_LZ4_RAW,       /* one plain LZ4 block */
    ZB_CODEC_LZ4_HADOOP,    /* LZ4 in Hadoop's block framing; read only */
    ZB_CODEC_ZSTD,          /* one or more zstd frames */
    ZB_CODEC_COUNT
} zb_codec;

/* "uncompressed", "snappy", "gzip", "deflate", "brotli", "lz4_raw",
 * "lz4", "zstd" (how messages name them); "unknown" otherwise. */
const char *zb_codec_name(int codec);

/*
 * Reusable codec state (for now zstd's contexts), so that pages do not
 * each allocate one. Belongs to one thread at a time. Wherever a state
 * is taken, NULL means one-shot contexts.
 */
typedef struct zb_codec_state zb_codec_state;
int zb_codec_state_new(zb_codec_state **out);
void zb_codec_state_free(zb_codec_state *s);

/*
 * Decompresses in[0..in_len) into out, which must come out exactly
 * out_len bytes long (the size the container declares, a Parquet page's
 * uncompressed size). Returns ZB_OK; ZB_ECORRUPT when the input is
 * malformed or decompresses to any other size (never writing past
 * out_len); ZB_EUNSUPPORTED for an unknown codec; ZB_ENOMEM. Sizes are
 * limited to INT32_MAX. The message in ctx names the codec; callers prefix
 * the file and offset. ZB_CODEC_LZ4_HADOOP accepts, as other readers do, a
 * plain LZ4 block when the framing does not fit.
 */
int zb_codec_decompress(zb_codec_state *state, zb_ctx *ctx, int codec,
                        const uint8_t *in, size_t in_len, uint8_t *out,
                        size_t out_len);

/*
 * Decompresses in[0..in_len) into out (cleared first) when no size is
 * declared: out grows as the output arrives and its max_bytes caps it, so
 * that a block that inflates past the cap fails with ZB_ENOMEM instead of
 * taking the memory. For ZB_CODEC_NONE, SNAPPY (whose stated length is
 * checked against the cap first), DEFLATE_RAW, GZIP (gzip framing only;
 * members in turn, then nothing else) and ZSTD (several frames
 * read in turn); others are ZB_EUNSUPPORTED. ZB_ECORRUPT for bad input.
 * Bytes after the end of a deflate stream are ignored.
 */
int zb_codec_decompress_buf(zb_ctx *ctx, int codec, const uint8_t *in,
                            size_t in_len, zb_buf *out);

/* Worst-case compressed size of in_len bytes; 0 for a codec that does not
 * compress, or when in_len is over INT32_MAX or too large for the codec. */
size_t zb_codec_compress_bound(int codec, size_t in_len);

/*
 * Compresses in into out[0..out_cap), with level (codec-specific, 0 being
 * the codec's default: gzip and deflate 1..9, brotli 0..11, lz4_raw 1..12
 * (LZ4HC; 0 the fast compressor), zstd its min..max; snappy and
 * uncompressed ignore it). *out_len receives the compressed size. Returns
 * ZB_EINVAL for a level out of range or in_len over INT32_MAX, ZB_ENOMEM
 * when the result does not fit out_cap (so that a writer may offer a small
 * buffer and keep the input uncompressed when compression does not pay),
 * ZB_EUNSUPPORTED for LZ4_HADOOP and unknown codecs. state may be NULL.
 */
int zb_codec_compress(zb_codec_state *state, zb_ctx *ctx, int codec,
                      int level, const uint8_t *in, size_t in_len,
                      uint8_t *out, size_t out_cap, size_t *out_len);

/* The CRC-32 of ISO 3309 / ITU-T V.42 (zlib's crc32, gzip's), as Avro's
 * snappy blocks carry it; 0 for no bytes. */
uint32_t zb_codec_crc32(const uint8_t *p, size_t len);

#endif

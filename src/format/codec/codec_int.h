/*
 * format/codec/codec_int.h - what codec.c needs of the per-library
 * codec files (codec_snappy.c, codec_gzip.c, codec_zstd.c, codec_lz4.c,
 * codec_brotli.c). Private to the codec part: no third-party type appears
 * here, so each library's header is included by its own file only.
 *
 * codec.c checks the arguments, handles the cases common to all codecs
 * (empty input, the 2 GiB size limit) and then calls one of these:
 *
 *   zb_codec__<lib>_decompress(ctx, in, in_len, out, out_len)
 *       in and out are never NULL (codec.c substitutes a dummy byte), and
 *       in_len, out_len <= ZB_CODEC__SIZE_MAX. Same rc as zb_codec_decompress.
 *   zb_codec__<lib>_compress(ctx, level, in, in_len, out, out_cap, out_len)
 *       level already mapped and range-checked by the codec file itself;
 *       ZB_EINVAL for a level out of range, ZB_ENOMEM when out_cap is too
 *       small for the result (a size cap, see zb_codec_compress in codec.c).
 *   zb_codec__<lib>_bound(in_len)
 *       worst-case compressed size, 0 when in_len is too large.
 *   zb_codec__<lib>_decompress_buf(ctx, in, in_len, out)
 *       the codecs that decompress to an undeclared size, into the capped
 *       zb_buf out (empty on entry); same rc as zb_codec_decompress_buf.
 */
#ifndef ZB_FORMAT_CODEC_CODEC_INT_H
#define ZB_FORMAT_CODEC_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * The largest input or declared output: it keeps every size within the
 * int of LZ4's API and zlib's uInt, and no Parquet page is larger (its
 * sizes are i32 in parquet.thrift's PageHeader).
 */
#define ZB_CODEC__SIZE_MAX ((size_t)INT32_MAX)

int zb_codec__snappy_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len);
int zb_codec__snappy_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len);
size_t zb_codec__snappy_bound(size_t in_len);
int zb_codec__snappy_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                    size_t in_len, zb_buf *out);

int zb_codec__gzip_decompress(zb_ctx *ctx, const uint8_t *in, size_t in_len,
                              uint8_t *out, size_t out_len);
/* gzip members into a capped, growing buffer (codec.h's _buf). */
int zb_codec__gzip_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                  size_t in_len, zb_buf *out);
int zb_codec__gzip_compress(zb_ctx *ctx, int level, const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len);
size_t zb_codec__gzip_bound(size_t in_len);

/* Raw deflate (RFC 1951), also through zlib (codec_gzip.c). */
int zb_codec__deflate_raw_decompress(zb_ctx *ctx, const uint8_t *in,
                                     size_t in_len, uint8_t *out,
                                     size_t out_len);
int zb_codec__deflate_raw_compress(zb_ctx *ctx, int level,
                                   const uint8_t *in, size_t in_len,
                                   uint8_t *out, size_t out_cap,
                                   size_t *out_len);
size_t zb_codec__deflate_raw_bound(size_t in_len);
int zb_codec__deflate_raw_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                         size_t in_len, zb_buf *out);
uint32_t zb_codec__crc32(const uint8_t *p, size_t len);

/* dctx: a context from zb_codec__zstd_dctx_new, or NULL for one-shot. */
int zb_codec__zstd_decompress(zb_ctx *ctx, void *dctx, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_len);
void *zb_codec__zstd_dctx_new(void);
void zb_codec__zstd_dctx_free(void *dctx);
void *zb_codec__zstd_cctx_new(void);
void zb_codec__zstd_cctx_free(void *cctx);
/* cctx: a context from zb_codec__zstd_cctx_new, or NULL for one-shot. */
int zb_codec__zstd_compress(zb_ctx *ctx, void *cctx, int level,
                            const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len);
size_t zb_codec__zstd_bound(size_t in_len);
int zb_codec__zstd_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                  size_t in_len, zb_buf *out);

/* Grows out so that at least 1 more byte fits; ZB_ENOMEM at its cap.
 * name: the codec as messages name it (codec.c). */
int zb_codec__grow(zb_ctx *ctx, zb_buf *out, const char *name);

/* LZ4_RAW: one plain LZ4 block. */
int zb_codec__lz4_raw_decompress(zb_ctx *ctx, const uint8_t *in,
                                 size_t in_len, uint8_t *out, size_t out_len);
/* LZ4 (deprecated): Hadoop framing, else a plain block. */
int zb_codec__lz4_hadoop_decompress(zb_ctx *ctx, const uint8_t *in,
                                    size_t in_len, uint8_t *out,
                                    size_t out_len);
int zb_codec__lz4_raw_compress(zb_ctx *ctx, int level, const uint8_t *in,
                               size_t in_len, uint8_t *out, size_t out_cap,
                               size_t *out_len);
size_t zb_codec__lz4_raw_bound(size_t in_len);

int zb_codec__brotli_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len);
int zb_codec__brotli_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len);
size_t zb_codec__brotli_bound(size_t in_len);

#endif

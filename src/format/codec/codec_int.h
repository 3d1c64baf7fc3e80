/*
 * format/codec/codec_int.h - what codec.c needs of the per-library
 * codec files (codec_snappy.c, codec_gzip.c, codec_zstd.c, codec_lz4.c,
 * codec_brotli.c). Private to the codec part: no third-party type appears
 * here, so each library's header is included by its own file only.
 *
 * codec.c checks the arguments, handles the cases common to all codecs
 * (empty pages, Parquet's 2 GiB page limit) and then calls one of these:
 *
 *   pq_codec__<lib>_decompress(ctx, in, in_len, out, out_len)
 *       in and out are never NULL (codec.c substitutes a dummy byte), and
 *       in_len, out_len <= PQ_CODEC__PAGE_MAX. Same rc as pq_decompress.
 *   pq_codec__<lib>_compress(ctx, level, in, in_len, out, out_cap, out_len)
 *       level already mapped and range-checked by the codec file itself;
 *       ZB_EINVAL for a level out of range, ZB_ENOMEM when out_cap is too
 *       small for the result (a size cap, see pq_compress in codec.c).
 *   pq_codec__<lib>_bound(in_len)
 *       worst-case compressed size, 0 when in_len is too large.
 */
#ifndef ZB_FORMAT_PARQUET_CODEC_INT_H
#define ZB_FORMAT_PARQUET_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Page sizes are i32 in parquet.thrift's PageHeader, so no page holds
 * more than this; it also keeps every size within the int of LZ4's API.
 */
#define PQ_CODEC__PAGE_MAX ((size_t)INT32_MAX)

int pq_codec__snappy_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len);
int pq_codec__snappy_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len);
size_t pq_codec__snappy_bound(size_t in_len);

int pq_codec__gzip_decompress(zb_ctx *ctx, const uint8_t *in, size_t in_len,
                              uint8_t *out, size_t out_len);
int pq_codec__gzip_compress(zb_ctx *ctx, int level, const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len);
size_t pq_codec__gzip_bound(size_t in_len);

/* dctx: a context from pq_codec__zstd_dctx_new, or NULL for one-shot. */
int pq_codec__zstd_decompress(zb_ctx *ctx, void *dctx, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_len);
void *pq_codec__zstd_dctx_new(void);
void pq_codec__zstd_dctx_free(void *dctx);
void *pq_codec__zstd_cctx_new(void);
void pq_codec__zstd_cctx_free(void *cctx);
/* cctx: a context from pq_codec__zstd_cctx_new, or NULL for one-shot. */
int pq_codec__zstd_compress(zb_ctx *ctx, void *cctx, int level,
                            const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len);
size_t pq_codec__zstd_bound(size_t in_len);

/* LZ4_RAW: one plain LZ4 block. */
int pq_codec__lz4_raw_decompress(zb_ctx *ctx, const uint8_t *in,
                                 size_t in_len, uint8_t *out, size_t out_len);
/* LZ4 (deprecated): Hadoop framing, else a plain block. */
int pq_codec__lz4_hadoop_decompress(zb_ctx *ctx, const uint8_t *in,
                                    size_t in_len, uint8_t *out,
                                    size_t out_len);
int pq_codec__lz4_raw_compress(zb_ctx *ctx, int level, const uint8_t *in,
                               size_t in_len, uint8_t *out, size_t out_cap,
                               size_t *out_len);
size_t pq_codec__lz4_raw_bound(size_t in_len);

int pq_codec__brotli_decompress(zb_ctx *ctx, const uint8_t *in,
                                size_t in_len, uint8_t *out, size_t out_len);
int pq_codec__brotli_compress(zb_ctx *ctx, int level, const uint8_t *in,
                              size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len);
size_t pq_codec__brotli_bound(size_t in_len);

#endif

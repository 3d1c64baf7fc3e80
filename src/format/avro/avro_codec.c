/*
 * format/avro/avro_codec.c - the block codecs of Avro object container
 * files: null, deflate, snappy and zstd (Avro 1.11 spec, "Required
 * Codecs" and "Optional Codecs"), through format/codec.
 *
 * deflate is raw RFC 1951 data with no zlib header (ZB_CODEC_DEFLATE_RAW).
 * snappy is one raw snappy block followed by the 4-byte big-endian CRC32
 * of the uncompressed bytes: that framing is Avro's, so it is added and
 * checked here, around ZB_CODEC_SNAPPY. zstd is one or more zstd frames.
 * A block declares no uncompressed size, so decompression writes into a
 * capped zb_buf (zb_codec_decompress_buf), growing it as the output
 * arrives, so that a block that inflates past the reader's cap fails with
 * ZB_ENOMEM instead of taking the memory.
 *
 * format/codec is below both formats, so Avro and Parquet share the
 * compression libraries without depending on each other (STYLE.md
 * section 2).
 */
#define ZB_MODULE "avro"

#include <string.h>

#include "format/avro/avro_int.h"
#include "format/codec/codec.h"
#include "util/err.h"

static const char *const codec_names[] = { "null", "deflate", "snappy",
                                           "zstd" };

/* The algorithm of each zb_avro_codec, in the same order. */
static const zb_codec algorithms[] = { ZB_CODEC_NONE, ZB_CODEC_DEFLATE_RAW,
                                       ZB_CODEC_SNAPPY, ZB_CODEC_ZSTD };

int zb_avro__codec_from_name(const char *name, size_t len)
{
    int i;

    for (i = 0; i < 4; i++)
        if (strlen(codec_names[i]) == len &&
            memcmp(codec_names[i], name, len) == 0)
            return i;
    return -1;
}

const char *zb_avro__codec_name(int codec)
{
    return codec >= 0 && codec < 4 ? codec_names[codec] : "unknown";
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int zb_avro__decompress(zb_ctx *ctx, int codec, const uint8_t *src,
                        size_t len, zb_buf *out)
{
    int rc;

    if (codec < ZB_AVRO_CODEC_NULL || codec > ZB_AVRO_CODEC_ZSTD) {
        zb_buf_clear(out);
        return zb_fail(ctx, ZB_EUNSUPPORTED, "unknown codec %d", codec);
    }
    if (codec != ZB_AVRO_CODEC_SNAPPY)
        return zb_codec_decompress_buf(ctx, algorithms[codec], src, len, out);
    if (len < 4) {
        zb_buf_clear(out);
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: block of %zu bytes has "
                       "no CRC32", len);
    }
    if ((rc = zb_codec_decompress_buf(ctx, ZB_CODEC_SNAPPY, src, len - 4,
                                      out)) < 0)
        return rc;
    if (zb_codec_crc32((const uint8_t *)out->ptr, out->len) !=
        load_be32(src + len - 4))
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: CRC32 mismatch");
    return ZB_OK;
}

int zb_avro__compress(zb_ctx *ctx, int codec, int level, const uint8_t *src,
                      size_t len, zb_buf *out)
{
    size_t bound, trailer, n = 0;
    uint32_t crc;
    int rc;

    zb_buf_clear(out);
    if (codec < ZB_AVRO_CODEC_NULL || codec > ZB_AVRO_CODEC_ZSTD)
        return zb_fail(ctx, ZB_EINVAL, "unknown codec %d", codec);
    if (codec == ZB_AVRO_CODEC_NULL)
        return zb_buf_append(out, src, len) < 0 ? zb_fail_oom(ctx) : ZB_OK;
    trailer = codec == ZB_AVRO_CODEC_SNAPPY ? 4 : 0;
    bound = zb_codec_compress_bound(algorithms[codec], len);
    if (bound == 0)
        return zb_fail(ctx, ZB_EINVAL, "%s: block of %zu bytes is too large",
                       codec_names[codec], len);
    if (zb_buf_reserve(out, bound + trailer) < 0)
        return zb_fail_oom(ctx);
    if ((rc = zb_codec_compress(NULL, ctx, algorithms[codec], level, src, len,
                                (uint8_t *)out->ptr, bound, &n)) < 0)
        return rc;
    if (codec == ZB_AVRO_CODEC_SNAPPY) {
        crc = zb_codec_crc32(src, len);
        out->ptr[n] = (char)(crc >> 24);
        out->ptr[n + 1] = (char)(crc >> 16);
        out->ptr[n + 2] = (char)(crc >> 8);
        out->ptr[n + 3] = (char)crc;
    }
    out->len = n + trailer;
    out->ptr[out->len] = '\0';
    return ZB_OK;
}

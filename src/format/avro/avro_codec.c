/*
 * format/avro/avro_codec.c - the block codecs of Avro object container
 * files: null, deflate, snappy and zstd (Avro 1.11 spec, "Required
 * Codecs" and "Optional Codecs").
 *
 * deflate is raw RFC 1951 data with no zlib header (windowBits -15).
 * snappy is one raw snappy block followed by the 4-byte big-endian CRC32
 * of the uncompressed bytes, which is checked. zstd is one or more zstd
 * frames. Decompression writes into a capped zb_buf, growing it as the
 * output arrives, so that a block that inflates past the reader's cap
 * fails with ZB_ENOMEM instead of taking the memory: deflate and zstd
 * stream, snappy states its length up front and that is checked first.
 *
 * The compression libraries are used directly, not through
 * format/parquet's codecs: the two formats never depend on each other
 * (STYLE.md section 2). zlib's allocations go through zb_malloc so that
 * the fault hook reaches them.
 */
#define ZB_MODULE "avro"

#include <string.h>

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "format/avro/avro_int.h"
#include "util/alloc.h"
#include "util/err.h"

static const char *const codec_names[] = { "null", "deflate", "snappy",
                                           "zstd" };

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

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    size_t n;

    (void)opaque;
    if (zb_mul_overflow(&n, items, size))
        return Z_NULL;
    return zb_malloc(n);
}

static void z_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    zb_free(p);
}

/* Grows out so that at least 1 more byte fits; ZB_ENOMEM at the cap. */
static int grow(zb_ctx *ctx, zb_buf *out, const char *codec)
{
    size_t room = out->cap > out->len + 1 ? out->cap - out->len - 1 : 0;
    size_t want = out->len < 65536 ? 65536 : out->len;

    if (room > 0)
        return ZB_OK;
    if (want > out->max_bytes - out->len)
        want = out->max_bytes - out->len;
    if (want == 0 || zb_buf_reserve(out, want) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "%s: block inflates past %zu bytes "
                       "(the block cap) or out of memory", codec,
                       out->max_bytes);
    return ZB_OK;
}

static int inflate_raw(zb_ctx *ctx, const uint8_t *src, size_t len,
                       zb_buf *out)
{
    z_stream zs;
    int zrc, rc = ZB_OK;

    memset(&zs, 0, sizeof zs);
    zs.zalloc = z_alloc;
    zs.zfree = z_free;
    if (inflateInit2(&zs, -15) != Z_OK)
        return zb_fail_oom(ctx);
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = 0;
    for (;;) {
        size_t room;
        uInt give;
        if (zs.avail_in == 0) {
            size_t left = len - (size_t)((const uint8_t *)zs.next_in - src);
            zs.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
        }
        if ((rc = grow(ctx, out, "deflate")) < 0)
            break;
        room = out->cap - out->len - 1;
        give = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        zs.next_out = (Bytef *)out->ptr + out->len;
        zs.avail_out = give;
        zrc = inflate(&zs, Z_NO_FLUSH);
        out->len += give - zs.avail_out;
        out->ptr[out->len] = '\0';
        if (zrc == Z_STREAM_END)
            break;
        if (zrc == Z_MEM_ERROR) {
            rc = zb_fail_oom(ctx);
            break;
        }
        if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "deflate: %s",
                         zs.msg ? zs.msg : "bad data");
            break;
        }
        if (zrc == Z_BUF_ERROR && zs.avail_out != 0) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "deflate: data ends early");
            break;
        }
    }
    inflateEnd(&zs);
    return rc;
}

static int deflate_raw(zb_ctx *ctx, int level, const uint8_t *src,
                       size_t len, zb_buf *out)
{
    z_stream zs;
    uLong bound;
    int zrc, rc = ZB_OK;

    memset(&zs, 0, sizeof zs);
    zs.zalloc = z_alloc;
    zs.zfree = z_free;
    if (deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return zb_fail_oom(ctx);
    bound = deflateBound(&zs, (uLong)len);
    if (zb_buf_reserve(out, bound) < 0) {
        deflateEnd(&zs);
        return zb_fail_oom(ctx);
    }
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)out->ptr;
    zs.avail_out = (uInt)bound;
    zrc = deflate(&zs, Z_FINISH);
    if (zrc != Z_STREAM_END)
        rc = zrc == Z_MEM_ERROR ? zb_fail_oom(ctx)
                                : zb_fail(ctx, ZB_ERROR, "deflate failed");
    else
        out->len = (size_t)zs.total_out;
    deflateEnd(&zs);
    return rc;
}

static int zstd_decompress(zb_ctx *ctx, const uint8_t *src, size_t len,
                           zb_buf *out)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    ZSTD_inBuffer in = { src, len, 0 };
    size_t zr = 1;
    int rc = ZB_OK;

    if (d == NULL)
        return zb_fail_oom(ctx);
    while (in.pos < in.size || zr != 0) {
        ZSTD_outBuffer ob;
        size_t before_in = in.pos;
        if ((rc = grow(ctx, out, "zstd")) < 0)
            break;
        ob.dst = out->ptr + out->len;
        ob.size = out->cap - out->len - 1;
        ob.pos = 0;
        zr = ZSTD_decompressStream(d, &ob, &in);
        if (ZSTD_isError(zr)) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "zstd: %s",
                         ZSTD_getErrorName(zr));
            break;
        }
        out->len += ob.pos;
        out->ptr[out->len] = '\0';
        if (in.pos == in.size && zr != 0 && ob.pos < ob.size &&
            before_in == in.pos) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "zstd: data ends early");
            break;
        }
    }
    ZSTD_freeDCtx(d);
    return rc;
}

static int snappy_decompress(zb_ctx *ctx, const uint8_t *src, size_t len,
                             zb_buf *out)
{
    size_t n, got;
    uint32_t want_crc;

    if (len < 4)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: block of %zu bytes has "
                       "no CRC32", len);
    len -= 4;
    if (snappy_uncompressed_length((const char *)src, len, &n) != SNAPPY_OK)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: bad length preamble");
    if (n > out->max_bytes)
        return zb_fail(ctx, ZB_ENOMEM, "snappy: block of %zu bytes passes "
                       "the block cap of %zu", n, out->max_bytes);
    if (zb_buf_reserve(out, n) < 0)
        return zb_fail_oom(ctx);
    got = n;
    if (snappy_uncompress((const char *)src, len, out->ptr, &got) !=
            SNAPPY_OK || got != n)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: bad data");
    out->len = n;
    out->ptr[n] = '\0';
    want_crc = (uint32_t)src[len] << 24 | (uint32_t)src[len + 1] << 16 |
               (uint32_t)src[len + 2] << 8 | src[len + 3];
    if ((uint32_t)crc32(0L, (const Bytef *)out->ptr, (uInt)n) != want_crc)
        return zb_fail(ctx, ZB_ECORRUPT, "snappy: CRC32 mismatch");
    return ZB_OK;
}

int zb_avro__decompress(zb_ctx *ctx, int codec, const uint8_t *src,
                        size_t len, zb_buf *out)
{
    zb_buf_clear(out);
    switch (codec) {
    case ZB_AVRO_CODEC_NULL:
        if (len > out->max_bytes)
            return zb_fail(ctx, ZB_ENOMEM, "block of %zu bytes passes the "
                           "cap of %zu", len, out->max_bytes);
        return zb_buf_append(out, src, len) < 0 ? zb_fail_oom(ctx) : ZB_OK;
    case ZB_AVRO_CODEC_DEFLATE:
        return inflate_raw(ctx, src, len, out);
    case ZB_AVRO_CODEC_SNAPPY:
        return snappy_decompress(ctx, src, len, out);
    case ZB_AVRO_CODEC_ZSTD:
        return zstd_decompress(ctx, src, len, out);
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "unknown codec %d", codec);
    }
}

int zb_avro__compress(zb_ctx *ctx, int codec, int level, const uint8_t *src,
                      size_t len, zb_buf *out)
{
    size_t bound, n;
    uint32_t crc;

    zb_buf_clear(out);
    switch (codec) {
    case ZB_AVRO_CODEC_NULL:
        return zb_buf_append(out, src, len) < 0 ? zb_fail_oom(ctx) : ZB_OK;
    case ZB_AVRO_CODEC_DEFLATE:
        return deflate_raw(ctx, level, src, len, out);
    case ZB_AVRO_CODEC_SNAPPY:
        bound = snappy_max_compressed_length(len);
        if (zb_buf_reserve(out, bound + 4) < 0)
            return zb_fail_oom(ctx);
        n = bound;
        if (snappy_compress((const char *)src, len, out->ptr, &n) !=
                SNAPPY_OK)
            return zb_fail(ctx, ZB_ERROR, "snappy: compression failed");
        crc = (uint32_t)crc32(0L, (const Bytef *)src, (uInt)len);
        out->ptr[n] = (char)(crc >> 24);
        out->ptr[n + 1] = (char)(crc >> 16);
        out->ptr[n + 2] = (char)(crc >> 8);
        out->ptr[n + 3] = (char)crc;
        out->len = n + 4;
        return ZB_OK;
    case ZB_AVRO_CODEC_ZSTD:
        bound = ZSTD_compressBound(len);
        if (zb_buf_reserve(out, bound) < 0)
            return zb_fail_oom(ctx);
        n = ZSTD_compress(out->ptr, bound, src, len, level ? level : 3);
        if (ZSTD_isError(n))
            return zb_fail(ctx, ZB_ERROR, "zstd: %s", ZSTD_getErrorName(n));
        out->len = n;
        return ZB_OK;
    default:
        return zb_fail(ctx, ZB_EINVAL, "unknown codec %d", codec);
    }
}

/*
 * format/codec/codec_gzip.c - the GZIP and raw DEFLATE codecs, and
 * CRC-32, through zlib.
 *
 * Decompression of GZIP: inflate with windowBits 32+15, which detects a
 * gzip (RFC 1952) or a zlib (RFC 1950) header by itself; Parquet requires
 * gzip but some old writers wrote zlib streams. When a member ends and
 * input remains, the stream is reset and the next member decoded:
 * Parquet's Compression.md asks readers to accept several members. Bytes
 * after the last member that are not a member are corrupt. Output goes
 * into out until it is full; after that into a small scratch buffer, only
 * to learn whether the stream holds more than the page declares.
 *
 * DEFLATE_RAW (Avro's deflate) is the same with windowBits -15: one raw
 * RFC 1951 stream, no header, no checksum; bytes after its end are corrupt
 * when the size is declared, and ignored by zb_codec__deflate_raw_
 * decompress_buf, which grows a capped buffer as the output arrives (Avro
 * blocks declare no size) and stops at the end of the stream.
 *
 * Compression: one gzip member (windowBits 16+15) or one raw stream
 * (-15), levels 1..9, 0 meaning zlib's default (6).
 *
 * zlib's state is allocated through zb_malloc (zalloc/zfree), so it is
 * counted and fault-injectable.
 */
#define ZB_MODULE "codec"

#include <limits.h>
#include <string.h>

#include <zlib.h>

#include "format/codec/codec_int.h"
#include "util/alloc.h"

/* gzip header (10) and trailer (8) instead of zlib's 2 and 4. */
#define GZIP_WRAPPER_EXTRA (18 - 6)

static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
    size_t bytes;

    ZB_UNUSED(opaque);
    if (zb_mul_overflow(&bytes, items, size))
        return Z_NULL;
    return zb_malloc(bytes);
}

static void gz_free(voidpf opaque, voidpf p)
{
    ZB_UNUSED(opaque);
    zb_free(p);
}

static void gz_init_stream(z_stream *zs)
{
    memset(zs, 0, sizeof *zs);
    zs->zalloc = gz_alloc;
    zs->zfree = gz_free;
    zs->opaque = Z_NULL;
}

static int gz_error(zb_ctx *ctx, const char *name, int zrc,
                    const z_stream *zs, size_t in_len, size_t out_len)
{
    if (zrc == Z_MEM_ERROR)
        return zb_fail_oom(ctx);
    return zb_fail(ctx, ZB_ECORRUPT,
                   "%s: %s at compressed byte %zu of %zu, page declares "
                   "%zu bytes", name, zs->msg ? zs->msg : "malformed stream",
                   in_len - (size_t)zs->avail_in, in_len, out_len);
}

/* gzip (name "gzip", several members) or raw deflate ("deflate", one). */
static int zlib_decompress(zb_ctx *ctx, const char *name, int window_bits,
                           int members, const uint8_t *in, size_t in_len,
                           uint8_t *out, size_t out_len)
{
    uint8_t scratch[64];
    z_stream zs;
    int spill = 0; /* out is full; output goes to scratch */
    int zrc, rc = ZB_OK;

    /* Sizes are <= INT32_MAX (codec.c), so they fit zlib's uInt. */
    gz_init_stream(&zs);
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = out;
    zs.avail_out = (uInt)out_len;
    if ((zrc = inflateInit2(&zs, window_bits)) != Z_OK)
        return zrc == Z_MEM_ERROR ? zb_fail_oom(ctx)
                                  : zb_fail(ctx, ZB_ERROR,
                                            "%s: inflateInit2 failed (%d)",
                                            name, zrc);
    for (;;) {
        if (zs.avail_out == 0 && !spill) {
            spill = 1;
            zs.next_out = scratch;
            zs.avail_out = sizeof scratch;
        }
        zrc = inflate(&zs, Z_NO_FLUSH);
        if (spill && zs.avail_out != sizeof scratch) {
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "%s: decompresses to more than %zu bytes, page "
                         "declares %zu", name, out_len, out_len);
            goto done;
        }
        if (zrc == Z_OK)
            continue;
        if (zrc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            if (!members) {
                rc = zb_fail(ctx, ZB_ECORRUPT,
                             "%s: %zu bytes follow the end of the stream",
                             name, (size_t)zs.avail_in);
                goto done;
            }
            /* Another member follows (or trailing bytes: corrupt). */
            if ((zrc = inflateReset(&zs)) != Z_OK) {
                rc = gz_error(ctx, name, zrc, &zs, in_len, out_len);
                goto done;
            }
            continue;
        }
        if (zrc == Z_BUF_ERROR && zs.avail_in == 0) {
            /* There is always room for output, so input ran out. */
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "%s: truncated: %zu compressed bytes end after "
                         "%zu decompressed, page declares %zu", name, in_len,
                         spill ? out_len : out_len - zs.avail_out, out_len);
            goto done;
        }
        rc = gz_error(ctx, name, zrc, &zs, in_len, out_len);
        goto done;
    }
    if (!spill && zs.avail_out != 0)
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "%s: decompressed %zu bytes, page declares %zu",
                     name, out_len - zs.avail_out, out_len);
done:
    inflateEnd(&zs);
    return rc;
}

int zb_codec__gzip_decompress(zb_ctx *ctx, const uint8_t *in, size_t in_len,
                              uint8_t *out, size_t out_len)
{
    return zlib_decompress(ctx, "gzip", 32 + MAX_WBITS, 1, in, in_len, out,
                           out_len);
}

int zb_codec__deflate_raw_decompress(zb_ctx *ctx, const uint8_t *in,
                                     size_t in_len, uint8_t *out,
                                     size_t out_len)
{
    return zlib_decompress(ctx, "deflate", -MAX_WBITS, 0, in, in_len, out,
                           out_len);
}

size_t zb_codec__gzip_bound(size_t in_len)
{
    size_t bound;

    /* compressBound is for the zlib wrapper at any level. */
    if (in_len > ULONG_MAX ||
        zb_add_overflow(&bound, (size_t)compressBound((uLong)in_len),
                        GZIP_WRAPPER_EXTRA))
        return 0;
    return bound;
}

static int zlib_compress(zb_ctx *ctx, const char *name, int window_bits,
                         int level, const uint8_t *in, size_t in_len,
                         uint8_t *out, size_t out_cap, size_t *out_len)
{
    z_stream zs;
    int zrc, rc = ZB_OK;

    if (level == 0)
        level = Z_DEFAULT_COMPRESSION;
    else if (level < Z_BEST_SPEED || level > Z_BEST_COMPRESSION)
        return zb_fail(ctx, ZB_EINVAL,
                       "%s: level %d is outside 1..9 (0: default)", name,
                       level);
    if (out_cap > UINT_MAX)
        out_cap = UINT_MAX;
    gz_init_stream(&zs);
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = out;
    zs.avail_out = (uInt)out_cap;
    zrc = deflateInit2(&zs, level, Z_DEFLATED, window_bits, 8,
                       Z_DEFAULT_STRATEGY);
    if (zrc != Z_OK)
        return zrc == Z_MEM_ERROR ? zb_fail_oom(ctx)
                                  : zb_fail(ctx, ZB_ERROR,
                                            "%s: deflateInit2 failed (%d)",
                                            name, zrc);
    zrc = deflate(&zs, Z_FINISH);
    if (zrc == Z_STREAM_END)
        *out_len = out_cap - zs.avail_out;
    else if (zrc == Z_OK || zrc == Z_BUF_ERROR)
        rc = zb_fail(ctx, ZB_ENOMEM,
                     "%s: %zu bytes do not compress into the %zu offered",
                     name, in_len, out_cap);
    else if (zrc == Z_MEM_ERROR)
        rc = zb_fail_oom(ctx);
    else
        rc = zb_fail(ctx, ZB_ERROR, "%s: deflate failed (%d)", name, zrc);
    deflateEnd(&zs);
    return rc;
}

int zb_codec__gzip_compress(zb_ctx *ctx, int level, const uint8_t *in,
                            size_t in_len, uint8_t *out, size_t out_cap,
                            size_t *out_len)
{
    return zlib_compress(ctx, "gzip", 16 + MAX_WBITS, level, in, in_len, out,
                         out_cap, out_len);
}

size_t zb_codec__deflate_raw_bound(size_t in_len)
{
    /* compressBound also counts the zlib wrapper a raw stream has not. */
    if (in_len > ULONG_MAX)
        return 0;
    return (size_t)compressBound((uLong)in_len);
}

int zb_codec__deflate_raw_compress(zb_ctx *ctx, int level,
                                   const uint8_t *in, size_t in_len,
                                   uint8_t *out, size_t out_cap,
                                   size_t *out_len)
{
    return zlib_compress(ctx, "deflate", -MAX_WBITS, level, in, in_len, out,
                         out_cap, out_len);
}

/* Raw deflate (one stream, trailing bytes ignored) or gzip (members in
 * turn until the input ends; anything else after a member is corrupt). */
static int inflate_buf(zb_ctx *ctx, const char *name, int window_bits,
                       int members, const uint8_t *in, size_t in_len,
                       zb_buf *out)
{
    z_stream zs;
    int zrc, rc = ZB_OK;

    gz_init_stream(&zs);
    if (inflateInit2(&zs, window_bits) != Z_OK)
        return zb_fail_oom(ctx);
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = 0;
    for (;;) {
        size_t room;
        uInt give;

        if (zs.avail_in == 0) {
            size_t left = in_len - (size_t)((const uint8_t *)zs.next_in - in);
            zs.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
        }
        if ((rc = zb_codec__grow(ctx, out, name)) < 0)
            break;
        room = out->cap - out->len - 1;
        give = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        zs.next_out = (Bytef *)out->ptr + out->len;
        zs.avail_out = give;
        zrc = inflate(&zs, Z_NO_FLUSH);
        out->len += give - zs.avail_out;
        out->ptr[out->len] = '\0';
        if (zrc == Z_STREAM_END) {
            size_t used = (size_t)((const uint8_t *)zs.next_in - in);

            if (!members || (zs.avail_in == 0 && used == in_len))
                break;
            if ((zrc = inflateReset(&zs)) != Z_OK) {
                rc = zb_fail(ctx, ZB_ECORRUPT, "%s: reset failed", name);
                break;
            }
            continue;
        }
        if (zrc == Z_MEM_ERROR) {
            rc = zb_fail_oom(ctx);
            break;
        }
        if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: %s", name,
                         zs.msg ? zs.msg : "bad data");
            break;
        }
        if (zrc == Z_BUF_ERROR && zs.avail_out != 0) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: truncated: the %zu compressed "
                         "bytes end after %zu inflated, before the end of "
                         "the stream", name, in_len, out->len);
            break;
        }
    }
    inflateEnd(&zs);
    return rc;
}

int zb_codec__deflate_raw_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                         size_t in_len, zb_buf *out)
{
    return inflate_buf(ctx, "deflate", -MAX_WBITS, 0, in, in_len, out);
}

int zb_codec__gzip_decompress_buf(zb_ctx *ctx, const uint8_t *in,
                                  size_t in_len, zb_buf *out)
{
    /* 16 + 15: gzip framing only (a zlib stream is not a .gz file). */
    return inflate_buf(ctx, "gzip", 16 + MAX_WBITS, 1, in, in_len, out);
}

uint32_t zb_codec__crc32(const uint8_t *p, size_t len)
{
    uLong crc = crc32(0L, Z_NULL, 0);

    /* crc32 takes a uInt length: longer inputs go in pieces. */
    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;

        crc = crc32(crc, (const Bytef *)p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)crc;
}

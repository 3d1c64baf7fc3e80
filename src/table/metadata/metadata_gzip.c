/*
 * table/metadata/metadata_gzip.c - gzip-compressed metadata files, as
 * Iceberg writes them under write.metadata.compression-codec=gzip:
 * "vN.gz.metadata.json" (Hadoop tables), "NNNNN-<uuid>.gz.metadata.json"
 * (catalogs) and the older "*.metadata.json.gz".
 *
 * Reading goes by the bytes (the gzip magic), so that a document parsed
 * from memory is never mistaken; loading a file also checks that a gzip
 * name holds gzip (Java goes by the name: TableMetadataParser.Codec
 * .fromFileName). Writing compresses when the name the caller chose is a
 * gzip name, so the bytes always match the name the next reader sees.
 */
#define ZB_MODULE "table"

#include <string.h>
#include <strings.h>

#include "format/codec/codec.h"
#include "table/metadata/metadata_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

int ice_metadata_gzip_name(const char *uri)
{
    return uri != NULL && (zb_str_ends_with(uri, ".gz.metadata.json") ||
                           zb_str_ends_with(uri, ".metadata.json.gz"));
}

int ice_metadata_gzip_codec(const ice_metadata *m)
{
    const char *c = ice_metadata_property(m, ICE_PROP_METADATA_CODEC);

    return c != NULL && strcasecmp(c, "gzip") == 0;
}

int ice_metadata__gunzip(zb_buf *out, zb_ctx *ctx, const char *data,
                         size_t len, const char *src)
{
    int rc;

    out->max_bytes = ICE_METADATA_MAX_BYTES;
    rc = zb_codec_decompress_buf(ctx, ZB_CODEC_GZIP, (const uint8_t *)data,
                                 len, out);
    if (rc < 0)
        zb_err_prefix(ctx, "%s: gzip-compressed metadata", src);
    return rc;
}

int ice_metadata_write_file(zb_buf *out, const ice_metadata *m,
                            zb_ctx *ctx, const char *uri)
{
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    size_t bound, n = 0;
    int rc;

    if (!ice_metadata_gzip_name(uri))
        return ice_metadata_write(out, m, ctx);
    if ((rc = ice_metadata_write(&json, m, ctx)) < 0)
        goto done;
    bound = zb_codec_compress_bound(ZB_CODEC_GZIP, json.len);
    if (bound == 0 || zb_buf_reserve(out, bound) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = zb_codec_compress(NULL, ctx, ZB_CODEC_GZIP, 0,
                           (const uint8_t *)json.ptr, json.len,
                           (uint8_t *)out->ptr + out->len,
                           out->cap - out->len, &n);
    if (rc >= 0)
        out->len += n;
done:
    zb_buf_free(&json);
    return rc;
}

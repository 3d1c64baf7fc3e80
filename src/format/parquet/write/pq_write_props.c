/*
 * format/parquet/write/pq_write_props.c - the writer options that Iceberg's
 * table properties ask for (the write.parquet.* keys of the Iceberg
 * configuration), applied over defaults:
 *
 *   write.parquet.compression-codec       zstd, snappy, gzip, brotli, lz4
 *                                         (LZ4_RAW), uncompressed/none
 *   write.parquet.compression-level       the codec's level
 *   write.parquet.row-group-size-bytes    row_group_bytes
 *   write.parquet.page-size-bytes         page_bytes
 *   write.parquet.dict-size-bytes         dict_bytes
 *   write.parquet.page-index-enabled      page_index (true/false; the
 *                                         key PyIceberg reads; Iceberg
 *                                         Java has none, parquet-mr
 *                                         always writes the index)
 *   write.parquet.bloom-filter-enabled.column.<name>
 *                                         not written yet: counted in
 *                                         *unsupported and logged, the
 *                                         file is written without them
 *
 * A codec asked for without a level gets its own default level (as
 * Iceberg leaves an unset level to the codec), not the level o had for
 * its previous codec.
 *
 * A value that does not parse is ZB_EINVAL naming the key and the value;
 * keys outside write.parquet.* are not this function's and are ignored.
 */
#define ZB_MODULE "parquet"

#include <string.h>
#include <strings.h>

#include "format/parquet/parquet_write.h"
#include "util/log.h"
#include "util/str.h"

static int parse_codec(int *out, const char *v)
{
    static const struct { const char *name; int codec; } names[] = {
        { "zstd", PQ_CODEC_ZSTD }, { "snappy", PQ_CODEC_SNAPPY },
        { "gzip", PQ_CODEC_GZIP }, { "brotli", PQ_CODEC_BROTLI },
        { "lz4", PQ_CODEC_LZ4_RAW }, { "lz4_raw", PQ_CODEC_LZ4_RAW },
        { "uncompressed", PQ_CODEC_UNCOMPRESSED },
        { "none", PQ_CODEC_UNCOMPRESSED },
    };
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(v, names[i].name) == 0) {
            *out = names[i].codec;
            return ZB_OK;
        }
    }
    return ZB_EINVAL;
}

static int parse_level(int *out, const char *v)
{
    const char *p = v;
    uint64_t u;

    if (*p == '-')
        p++;
    if (zb_str_to_u64(&u, p) < 0 || u > 1000)
        return ZB_EINVAL;
    *out = v[0] == '-' ? -(int)u : (int)u;
    return ZB_OK;
}

int pq_writer_opts_apply_properties(pq_writer_opts *o, zb_ctx *ctx,
                                    const char *const *kv, int *unsupported)
{
    static const char bloom[] = "write.parquet.bloom-filter-enabled.column.";
    size_t i;
    int rc = ZB_OK, codec_before = o->codec, level_given = 0;

    *unsupported = 0;
    for (i = 0; kv && kv[i] && kv[i + 1]; i += 2) {
        const char *k = kv[i], *v = kv[i + 1];
        uint64_t n = 0;

        if (strcmp(k, "write.parquet.compression-codec") == 0) {
            rc = parse_codec(&o->codec, v);
        } else if (strcmp(k, "write.parquet.compression-level") == 0) {
            rc = parse_level(&o->codec_level, v);
            level_given = 1;
        } else if (strcmp(k, "write.parquet.row-group-size-bytes") == 0) {
            if ((rc = zb_str_to_u64(&n, v)) == ZB_OK && n > 0)
                o->row_group_bytes = n;
            else
                rc = ZB_EINVAL;
        } else if (strcmp(k, "write.parquet.page-size-bytes") == 0) {
            if ((rc = zb_str_to_u64(&n, v)) == ZB_OK && n > 0)
                o->page_bytes = n;
            else
                rc = ZB_EINVAL;
        } else if (strcmp(k, "write.parquet.dict-size-bytes") == 0) {
            if ((rc = zb_str_to_u64(&n, v)) == ZB_OK)
                o->dict_bytes = n;
        } else if (strcmp(k, "write.parquet.page-index-enabled") == 0) {
            if (strcasecmp(v, "true") == 0)
                o->page_index = 1;
            else if (strcasecmp(v, "false") == 0)
                o->page_index = 0;
            else
                rc = ZB_EINVAL;
        } else if (strncmp(k, bloom, sizeof bloom - 1) == 0) {
            if (strcasecmp(v, "true") == 0) {
                (*unsupported)++;
                zb_log_warn(ctx, "%s=true: bloom filters are not written by "
                            "this version; the file is written without one",
                            k);
            }
        }
        if (rc < 0)
            return zb_fail(ctx, ZB_EINVAL, "table property %s: invalid "
                           "value '%s'", k, v);
    }
    if (o->codec != codec_before && !level_given)
        o->codec_level = 0;
    return ZB_OK;
}

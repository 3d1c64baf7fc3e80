/*
 * zb-avro-gen - writes the interop corpus of format/avro: the sample
 * schema of tests/unit/avro/sample.c (every type, nested arrays, maps and
 * unions, Iceberg field-id/element-id/key-id/value-id attributes) once per
 * codec, in several blocks, plus a manifest-list-like file with Iceberg's
 * file metadata. check_written.mjs then decodes them with avsc.
 *
 * Usage: zb-avro-gen DIR   (DIR is created if missing; files replaced)
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "sample.h"

#define RECORDS 500

static int gen(zb_io *io, zb_ctx *ctx, const char *path, zb_avro_codec c)
{
    zb_avro_writer_opts o = ZB_AVRO_WRITER_OPTS_INIT;
    zb_avro_meta meta[4] = {
        { "format-version", "2", 1 },
        { "content", "data", 4 },
        { "schema", "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}", 43 },
        { "partition-spec", "[]", 2 },
    };
    zb_avro_writer *w = NULL;
    zb_arena *a = NULL;
    uint64_t i;
    int rc;

    o.codec = c;
    o.block_bytes = 8192;
    unlink(path);
    if ((rc = zb_arena_new(&a, 1 << 20)) < 0 ||
        (rc = zb_avro_writer_open(&w, io, ctx, path, sample_schema_json, meta,
                                  4, &o)) < 0) {
        zb_arena_free(a);
        return rc;
    }
    for (i = 0; i < RECORDS; i++) {
        zb_avro_value *v;
        zb_arena_reset(a);
        if ((v = sample_record(a, i)) == NULL) {
            rc = ZB_ENOMEM;
            break;
        }
        if ((rc = zb_avro_writer_append(w, ctx, v)) < 0)
            break;
    }
    zb_arena_free(a);
    if (rc < 0) {
        zb_avro_writer_abort(w);
        return rc;
    }
    return zb_avro_writer_commit(w, ctx);
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "null", "deflate", "snappy",
                                         "zstd" };
    zb_io *io = NULL;
    zb_ctx ctx;
    int c;

    if (argc != 2) {
        fprintf(stderr, "usage: zb-avro-gen DIR\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        return 1;
    for (c = 0; c < 4; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/sample-%s.avro", argv[1], names[c]);
        if (gen(io, &ctx, path, (zb_avro_codec)c) < 0) {
            fprintf(stderr, "zb-avro-gen: %s\n", ctx.err.msg);
            zb_io_free(io);
            return 1;
        }
    }
    zb_io_free(io);
    return 0;
}

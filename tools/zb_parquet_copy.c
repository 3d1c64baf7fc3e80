/*
 * zb-parquet-copy - reads a Parquet file with Zamboni's reader and writes
 * its rows again with Zamboni's writer, so that an independent reader can
 * check the writer: what DuckDB reads from the copy must equal what it
 * reads from the original (tests/interop/compare_rewrite.mjs).
 *
 * Usage: zb-parquet-copy [--codec NAME] [--level N] [--page-bytes N]
 *                        [--row-group-bytes N] [--page-v2]
 *                        [--row-group-copy] IN OUT
 * --row-group-copy appends IN's row groups as they are (no decoding); when
 * the writer refuses (schemas that differ), it says "row-group copy
 * refused" and exits 3.
 * NAME: uncompressed, snappy, gzip, brotli, zstd, lz4_raw.
 * Exit: 0, 1 on an error (message on stderr), 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "util/alloc.h"

static int codec_by_name(const char *s)
{
    static const char *const names[] = { "uncompressed", "snappy", "gzip",
                                         "lzo", "brotli", "lz4", "zstd",
                                         "lz4_raw" };
    int i;

    for (i = 0; i < 8; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    const char *in = NULL, *out = NULL;
    struct ArrowSchema schema;
    struct ArrowArray batch;
    pq_write_result res;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    int i, rc, copy_groups = 0;

    zb_alloc_tune_process();
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--codec") == 0 && i + 1 < argc) {
            if ((wo.codec = codec_by_name(argv[++i])) < 0)
                return fprintf(stderr, "unknown codec %s\n", argv[i]), 2;
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            wo.codec_level = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--page-bytes") == 0 && i + 1 < argc) {
            wo.page_bytes = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--row-group-bytes") == 0 && i + 1 < argc) {
            wo.row_group_bytes = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--page-v2") == 0) {
            wo.page_v2 = 1;
        } else if (strcmp(argv[i], "--row-group-copy") == 0) {
            copy_groups = 1;
        } else if (argv[i][0] == '-' || (in && out)) {
            fprintf(stderr, "usage: zb-parquet-copy [--codec NAME] [--level N] "
                            "[--page-bytes N] [--row-group-bytes N] IN OUT\n");
            return 2;
        } else if (in == NULL) {
            in = argv[i];
        } else {
            out = argv[i];
        }
    }
    if (in == NULL || out == NULL)
        return fprintf(stderr, "usage: zb-parquet-copy IN OUT\n"), 2;
    zb_ctx_init(&ctx);
    if ((rc = zb_io_new(&io, &ctx)) < 0 ||
        (rc = pq_reader_open(&r, io, &ctx, in, &ro)) < 0 ||
        (rc = pq_reader_arrow_schema(&schema, r, &ctx)) < 0) {
        fprintf(stderr, "zb-parquet-copy: %s\n", ctx.err.msg);
        pq_reader_free(r);
        zb_io_free(io);
        return 1;
    }
    rc = pq_writer_open(&w, io, &ctx, out, &schema, &wo);
    if (rc == ZB_OK && copy_groups) {
        if ((rc = pq_writer_copy_row_groups(w, &ctx, r)) == ZB_EINVAL) {
            fprintf(stderr, "zb-parquet-copy: row-group copy refused: %s\n",
                    ctx.err.msg);
            pq_writer_abort(w);
            schema.release(&schema);
            pq_reader_free(r);
            zb_io_free(io);
            return 3;
        }
    }
    while (rc == ZB_OK && !copy_groups &&
           (rc = pq_reader_next(r, &ctx, &batch)) == 1) {
        rc = pq_writer_write(w, &ctx, &batch);
        batch.release(&batch);
    }
    if (rc == ZB_OK)
        rc = pq_writer_close(w, &ctx, &res);
    else
        pq_writer_abort(w);
    if (rc < 0)
        fprintf(stderr, "zb-parquet-copy: %s\n", ctx.err.msg);
    schema.release(&schema);
    pq_reader_free(r);
    zb_io_free(io);
    return rc < 0 ? 1 : 0;
}

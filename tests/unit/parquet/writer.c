/*
 * The Parquet writer's own parts. What readers make of its files is
 * checked by DuckDB in tests/interop/compare_rewrite.mjs; these cover the
 * encoders against the reader's independently tested decoders, the
 * dictionary, and the file's life cycle (no overwrite, abort).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/write/pq_encode.h"
#include "format/parquet/encoding/pq_encoding.h"
#include "io/io.h"
#include "util/alloc.h"
#include "util/log.h"
#include "zbtest.h"

#define LINEITEM ZB_FIXTURES_DIR "/duckdb-lineitem/data/" \
    "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"

static void test_parquet_writer__rle_encoding_decodes_back(void)
{
    enum { N = 5000 };
    uint16_t *v = malloc(N * sizeof *v);
    uint32_t *back = malloc(N * sizeof *back);
    unsigned width, seed = 7;
    size_t n, i, used;

    for (width = 0; width <= 16; width++) {
        for (n = 0; n <= N; n = n ? n * 3 + 1 : 1) {
            zb_buf b = ZB_BUF_INIT(1 << 24);
            uint32_t max = width ? (1u << width) - 1 : 0;
            /* Runs of random lengths, and stretches of noise. */
            for (i = 0; i < n;) {
                size_t run = 1 + (size_t)(rand_r(&seed) % 20), k;
                uint16_t x = (uint16_t)(max ? rand_r(&seed) % (max + 1) : 0);
                int noise = rand_r(&seed) % 2;
                for (k = 0; k < run && i < n; k++, i++)
                    v[i] = noise && max ? (uint16_t)(rand_r(&seed) % (max + 1))
                                        : x;
            }
            ZBT_EQ_INT(pq_rle_encode(&b, v, n, width), ZB_OK);
            ZBT_EQ_INT(pq_rle_decode(back, n, (const uint8_t *)b.ptr, b.len,
                                     width, &used), ZB_OK);
            for (i = 0; i < n; i++)
                ZBT_EQ_U64(back[i], v[i]);
            ZBT_CHECK(used <= b.len);
            zb_buf_free(&b);
        }
    }
    free(v);
    free(back);
}

static void test_parquet_writer__dictionary_finds_repeats(void)
{
    pq_dict d;
    uint32_t idx;
    int added, i;
    char key[32];

    pq_dict_init(&d, 1, 1 << 20);
    for (i = 0; i < 10000; i++) {
        snprintf(key, sizeof key, "k%d", i % 700);
        ZBT_EQ_INT(pq_dict_put(&d, (const uint8_t *)key, strlen(key), &idx,
                               &added), ZB_OK);
        ZBT_EQ_INT(idx, i % 700);
        ZBT_EQ_INT(added, i < 700);
    }
    ZBT_EQ_U64(d.n, 700);
    /* The dictionary page holds each value once, PLAIN with lengths. */
    ZBT_EQ_INT(d.plain.ptr[0], 2);
    ZBT_CHECK(memcmp(d.plain.ptr + 4, "k0", 2) == 0);
    pq_dict_clear(&d);
    ZBT_EQ_INT(pq_dict_put(&d, (const uint8_t *)"k5", 2, &idx, &added),
               ZB_OK);
    ZBT_CHECK(idx == 0 && added == 1);
    pq_dict_free(&d);
}

/* Reads LINEITEM and writes it to uri with small pages and row groups. */
static int copy_lineitem(zb_io *io, zb_ctx *ctx, const char *uri,
                         int abort_it)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray b;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    int rc;

    wo.page_bytes = 4096;
    wo.row_group_bytes = 200000;
    ro.batch_rows = 1000;
    if ((rc = pq_reader_open(&r, io, ctx, LINEITEM, &ro)) < 0)
        return rc;
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0) {
        pq_reader_free(r);
        return rc;
    }
    if ((rc = pq_writer_open(&w, io, ctx, uri, &s, &wo)) < 0) {
        s.release(&s);
        pq_reader_free(r);
        return rc;
    }
    while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
        rc = pq_writer_write(w, ctx, &b);
        b.release(&b);
        if (rc < 0)
            break;
    }
    if (rc == 0 && !abort_it)
        rc = pq_writer_close(w, ctx, NULL);
    else
        pq_writer_abort(w);
    s.release(&s);
    pq_reader_free(r);
    return rc;
}

static void test_parquet_writer__file_life_cycle(void)
{
    char path[4096];
    zb_io *io = NULL;
    pq_reader *r = NULL;
    struct ArrowArray b;
    int64_t rows = 0;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/out.parquet", zbt_tmpdir());
    /* Abort: nothing appears. */
    ZBT_OK_CTX(copy_lineitem(io, &ctx, path, 1), &ctx);
    ZBT_CHECK(access(path, F_OK) != 0);
    /* Written: our reader reads every row, in several row groups. */
    ZBT_OK_CTX(copy_lineitem(io, &ctx, path, 0), &ctx);
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, path, NULL), &ctx);
    ZBT_CHECK(pq_reader_meta(r)->n_row_groups > 3);
    while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
        rows += b.length;
        b.release(&b);
    }
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_INT(rows, 51793);
    pq_reader_free(r);
    /* Never over an existing file. */
    ZBT_RC(copy_lineitem(io, &ctx, path, 0), ZB_EEXISTS);
    zb_io_free(io);
}

static void test_parquet_writer__iceberg_write_properties(void)
{
    const char *kv[] = {
        "write.parquet.compression-codec", "snappy",
        "write.parquet.compression-level", "5",
        "write.parquet.row-group-size-bytes", "1048576",
        "write.parquet.page-size-bytes", "65536",
        "write.parquet.dict-size-bytes", "4096",
        "write.parquet.bloom-filter-enabled.column.id", "true",
        "write.target-file-size-bytes", "536870912",   /* not the writer's */
        NULL
    };
    const char *bad[] = { "write.parquet.compression-codec", "lzo", NULL };
    const char *bad2[] = { "write.parquet.page-size-bytes", "1MB", NULL };
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    zb_log *log = NULL;
    zb_ctx ctx;
    int unsupported = -1;
    FILE *devnull = fopen("/dev/null", "w");

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_log_new(&log, devnull, ZB_LOG_INFO, ZB_LOG_HUMAN), ZB_OK);
    ctx.log = log;
    ZBT_OK_CTX(pq_writer_opts_apply_properties(&o, &ctx, kv, &unsupported),
               &ctx);
    ZBT_EQ_INT(o.codec, PQ_CODEC_SNAPPY);
    ZBT_EQ_INT(o.codec_level, 5);
    ZBT_EQ_U64(o.row_group_bytes, 1048576);
    ZBT_EQ_U64(o.page_bytes, 65536);
    ZBT_EQ_U64(o.dict_bytes, 4096);
    ZBT_EQ_INT(unsupported, 1);
    ZBT_RC(pq_writer_opts_apply_properties(&o, &ctx, bad, &unsupported),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "compression-codec");
    ZBT_CONTAINS(ctx.err.msg, "lzo");
    ZBT_RC(pq_writer_opts_apply_properties(&o, &ctx, bad2, &unsupported),
           ZB_EINVAL);
    {
        /* A codec without a level gets its own default (0), not the
         * level the options held for the codec before it. */
        const char *gz[] = { "write.parquet.compression-codec", "gzip",
                             NULL };
        const char *same[] = { "write.parquet.compression-codec", "zstd",
                               NULL };
        pq_writer_opts g = PQ_WRITER_OPTS_INIT, z = PQ_WRITER_OPTS_INIT;
        int level = z.codec_level;

        g.codec = PQ_CODEC_ZSTD;
        g.codec_level = 7;
        ZBT_OK_CTX(pq_writer_opts_apply_properties(&g, &ctx, gz,
                                                   &unsupported), &ctx);
        ZBT_EQ_INT(g.codec, PQ_CODEC_GZIP);
        ZBT_EQ_INT(g.codec_level, 0);
        z.codec = PQ_CODEC_ZSTD;
        ZBT_OK_CTX(pq_writer_opts_apply_properties(&z, &ctx, same,
                                                   &unsupported), &ctx);
        ZBT_EQ_INT(z.codec, PQ_CODEC_ZSTD);
        ZBT_EQ_INT(z.codec_level, level);
    }
    zb_log_free(log);
    fclose(devnull);
}

const zbt_case test_parquet_writer[] = {
    ZBT_CASE(test_parquet_writer__iceberg_write_properties),
    ZBT_CASE(test_parquet_writer__rle_encoding_decodes_back),
    ZBT_CASE(test_parquet_writer__dictionary_finds_repeats),
    ZBT_CASE(test_parquet_writer__file_life_cycle),
    ZBT_END
};

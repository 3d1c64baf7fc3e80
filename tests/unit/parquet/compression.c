/*
 * Parquet's CompressionCodec ids (format/parquet/pq_compression.h): their
 * names, the format/codec algorithm each maps to, and the ids no library
 * here reads or writes (LZO, unknown ids; the deprecated LZ4 is read
 * only), refused by the page reader and by the writer.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "format/parquet/pq_compression.h"
#include "io/io.h"
#include "zbtest.h"

#define LINEITEM ZB_FIXTURES_DIR "/duckdb-lineitem/data/" \
    "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"

static void test_parquet_compression__names(void)
{
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_UNCOMPRESSED), "UNCOMPRESSED");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_SNAPPY), "SNAPPY");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_GZIP), "GZIP");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_LZO), "LZO");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_BROTLI), "BROTLI");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_LZ4), "LZ4");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_ZSTD), "ZSTD");
    ZBT_EQ_STR(pq_codec_name(PQ_CODEC_LZ4_RAW), "LZ4_RAW");
    ZBT_EQ_STR(pq_codec_name(8), "UNKNOWN");
    ZBT_EQ_STR(pq_codec_name(-1), "UNKNOWN");
}

/* GZIP is gzip-framed, never Avro's raw deflate; LZ4 is Hadoop's framing. */
static void test_parquet_compression__ids_map_to_algorithms(void)
{
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_UNCOMPRESSED), ZB_CODEC_NONE);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_SNAPPY), ZB_CODEC_SNAPPY);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_GZIP), ZB_CODEC_GZIP);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_BROTLI), ZB_CODEC_BROTLI);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_LZ4), ZB_CODEC_LZ4_HADOOP);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_ZSTD), ZB_CODEC_ZSTD);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_LZ4_RAW), ZB_CODEC_LZ4_RAW);
    ZBT_EQ_INT(pq_codec_algorithm(PQ_CODEC_LZO), -1);
    ZBT_EQ_INT(pq_codec_algorithm(8), -1);
    ZBT_EQ_INT(pq_codec_algorithm(-1), -1);
}

/* A page of each readable id round-trips through pq_decompress_page. */
static void test_parquet_compression__pages_decompress_by_id(void)
{
    static const uint8_t in[64] = "parquet page parquet page parquet page";
    uint8_t packed[1024], back[sizeof in];
    int id;
    size_t n;
    zb_ctx ctx;

    for (id = PQ_CODEC_UNCOMPRESSED; id <= PQ_CODEC_LZ4_RAW; id++) {
        int algorithm = pq_codec_algorithm(id);

        if (id == PQ_CODEC_LZO)
            continue;
        if (id == PQ_CODEC_LZ4) /* a plain block, read under LZ4 */
            algorithm = ZB_CODEC_LZ4_RAW;
        zb_ctx_init(&ctx);
        ZBT_OK_CTX(zb_codec_compress(NULL, &ctx, algorithm, 0, in, sizeof in,
                                     packed, sizeof packed, &n), &ctx);
        ZBT_OK_CTX(pq_decompress_page(NULL, &ctx, id, packed, n, back,
                                      sizeof back), &ctx);
        ZBT_CHECK(memcmp(back, in, sizeof in) == 0);
    }
}

static void test_parquet_compression__lzo_and_unknown_are_unsupported(void)
{
    uint8_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[64];
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(pq_decompress_page(NULL, &ctx, PQ_CODEC_LZO, in, sizeof in, out,
                              8),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "LZO");
    ZBT_RC(pq_decompress_page(NULL, &ctx, 8, in, sizeof in, out, 8),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "codec 8");
    ZBT_RC(pq_decompress_page(NULL, &ctx, -1, in, sizeof in, out, 8),
           ZB_EUNSUPPORTED);
}

/* The writer refuses, before it creates the file, the ids it cannot
 * compress with: LZO, the deprecated LZ4 and unknown ids. */
static void test_parquet_compression__writer_refuses_unwritable_ids(void)
{
    static const struct { int id; const char *name; } bad[] = {
        { PQ_CODEC_LZO, "LZO" }, { PQ_CODEC_LZ4, "LZ4" },
        { 42, "UNKNOWN" },
    };
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    struct ArrowSchema s;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    zb_io *io = NULL;
    char path[4096];
    size_t i;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, LINEITEM, &ro), &ctx);
    ZBT_OK_CTX(pq_reader_arrow_schema(&s, r, &ctx), &ctx);
    snprintf(path, sizeof path, "%s/unwritable.parquet", zbt_tmpdir());
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pq_writer_opts wo = PQ_WRITER_OPTS_INIT;

        wo.codec = bad[i].id;
        zb_ctx_init(&ctx);
        ZBT_RC(pq_writer_open(&w, io, &ctx, path, &s, &wo), ZB_EUNSUPPORTED);
        ZBT_CONTAINS(ctx.err.msg, "cannot be written");
        ZBT_CONTAINS(ctx.err.msg, bad[i].name);
        ZBT_CHECK(w == NULL);
        ZBT_CHECK(access(path, F_OK) != 0);
    }
    s.release(&s);
    pq_reader_free(r);
    zb_io_free(io);
}

const zbt_case test_parquet_compression[] = {
    ZBT_CASE(test_parquet_compression__names),
    ZBT_CASE(test_parquet_compression__ids_map_to_algorithms),
    ZBT_CASE(test_parquet_compression__pages_decompress_by_id),
    ZBT_CASE(test_parquet_compression__lzo_and_unknown_are_unsupported),
    ZBT_CASE(test_parquet_compression__writer_refuses_unwritable_ids),
    ZBT_END
};

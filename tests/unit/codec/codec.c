/*
 * The compression algorithms of format/codec/codec.h: round trips of
 * every codec that compresses at its default and edge levels; decoding
 * into a page of the wrong declared size, and of truncated and bit-flipped
 * input, always ZB_ECORRUPT and never a write or read out of bounds (every
 * buffer here ends at a guard page, see exact_alloc);
 * the two framings readers must accept (several gzip members, Hadoop LZ4
 * blocks or a plain LZ4 block); samples made by the zstd, gzip, lz4 and
 * brotli command-line tools; allocation failures; raw deflate against
 * zlib's own raw inflate; decompression to an undeclared size into a
 * capped buffer (Avro's blocks); CRC-32. Parquet's codec ids are tested
 * with the Parquet reader (tests/unit/parquet/compression.c).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "format/codec/codec.h"
#include "util/alloc.h"
#include "zbtest.h"

#define MIB (1024 * 1024)

/* Codecs that zb_codec_compress writes. */
static const int writable[] = { ZB_CODEC_NONE,   ZB_CODEC_SNAPPY,
                                ZB_CODEC_GZIP,   ZB_CODEC_DEFLATE_RAW,
                                ZB_CODEC_BROTLI, ZB_CODEC_ZSTD,
                                ZB_CODEC_LZ4_RAW };
#define N_WRITABLE (sizeof writable / sizeof writable[0])

/* The name each codec's messages start with. */
static const char *msg_name(int codec)
{
    switch (codec) {
    case ZB_CODEC_NONE: return "uncompressed";
    case ZB_CODEC_SNAPPY: return "snappy";
    case ZB_CODEC_GZIP: return "gzip";
    case ZB_CODEC_DEFLATE_RAW: return "deflate";
    case ZB_CODEC_BROTLI: return "brotli";
    case ZB_CODEC_LZ4_HADOOP: return "lz4";
    case ZB_CODEC_ZSTD: return "zstd";
    case ZB_CODEC_LZ4_RAW: return "lz4_raw";
    default: return "?";
    }
}

/*
 * Buffers end exactly at an inaccessible page, so that a read or write
 * past their end faults at once, whether it comes from our code or from a
 * compression library that ASan does not instrument. A small table maps
 * each buffer back to its mapping (the tests run on one thread).
 */
static struct guarded {
    uint8_t *user;
    void *base;
    size_t total;
} guarded[64];

static uint8_t *exact_alloc(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (n + page - 1) / page * page, total = span + page, i;
    uint8_t *base;

    if (n == 0)
        return NULL;
    base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ZBT_CHECK(base != MAP_FAILED);
    ZBT_CHECK(mprotect(base + span, page, PROT_NONE) == 0);
    for (i = 0; i < 64 && guarded[i].user != NULL; i++)
        ;
    ZBT_CHECK(i < 64);
    guarded[i].user = base + span - n;
    guarded[i].base = base;
    guarded[i].total = total;
    return guarded[i].user;
}

static void exact_free(uint8_t *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = 0; i < 64 && guarded[i].user != p; i++)
        ;
    ZBT_CHECK(i < 64);
    munmap(guarded[i].base, guarded[i].total);
    guarded[i].user = NULL;
}

/* An exactly sized copy of p (NULL when n is 0). */
static uint8_t *exact_copy(const void *p, size_t n)
{
    uint8_t *c = exact_alloc(n);

    if (n > 0)
        memcpy(c, p, n);
    return c;
}

/* Incompressible bytes from a fixed seed (xorshift64). */
static uint8_t *random_bytes(size_t n, uint64_t seed)
{
    uint8_t *p = exact_alloc(n);
    size_t i;

    for (i = 0; i < n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        p[i] = (uint8_t)(seed >> 32);
    }
    return p;
}

/* Column-like data: counters and repeated words, compresses well. */
static uint8_t *compressible_bytes(size_t n)
{
    static const char *const words[] = { "north", "south", "east", "west" };
    uint8_t *p = exact_alloc(n);
    size_t i = 0;
    unsigned row = 0;
    char line[64];

    while (i < n) {
        int len = snprintf(line, sizeof line, "%08u,%s;", row / 16,
                           words[row % 4]);
        size_t take = (size_t)len < n - i ? (size_t)len : n - i;

        memcpy(p + i, line, take);
        i += take;
        row++;
    }
    return p;
}

/* Compresses into an exactly bound-sized buffer; returns it (caller frees). */
static uint8_t *compress_exact(int codec, int level, const uint8_t *in,
                               size_t n, size_t *clen)
{
    size_t bound = zb_codec_compress_bound(codec, n);
    uint8_t *c;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_CHECK(bound > 0 || (codec == ZB_CODEC_NONE && n == 0));
    c = exact_alloc(bound);
    ZBT_OK_CTX(zb_codec_compress(NULL, &ctx, codec, level, in, n, c, bound, clen), &ctx);
    ZBT_CHECK(*clen <= bound);
    return c;
}

/* Decompresses into an exactly sized buffer and compares with want. */
static void check_decodes(int codec, const uint8_t *c, size_t clen,
                          const uint8_t *want, size_t n)
{
    uint8_t *in = exact_copy(c, clen), *out = exact_alloc(n);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_codec_decompress(NULL, &ctx, codec, in, clen, out, n), &ctx);
    ZBT_CHECK(n == 0 || memcmp(out, want, n) == 0);
    exact_free(in);
    exact_free(out);
}

/* Decoding c as a page of out_len bytes must fail with ZB_ECORRUPT. */
static void check_corrupt(int codec, const uint8_t *c, size_t clen,
                          size_t out_len)
{
    uint8_t *in = exact_copy(c, clen), *out = exact_alloc(out_len);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, codec, in, clen, out, out_len), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, msg_name(codec));
    ZBT_EQ_STR(ctx.err.module, "codec");
    exact_free(in);
    exact_free(out);
}

/* Levels to try per codec: the default and each end of the range. */
static size_t levels_of(int codec, int *levels)
{
    switch (codec) {
    case ZB_CODEC_GZIP:
    case ZB_CODEC_DEFLATE_RAW:
        levels[0] = 0, levels[1] = 1, levels[2] = 9;
        return 3;
    case ZB_CODEC_BROTLI:
        levels[0] = 0, levels[1] = 1, levels[2] = 11;
        return 3;
    case ZB_CODEC_ZSTD:
        levels[0] = 0, levels[1] = ZSTD_minCLevel(), levels[2] = -1;
        levels[3] = 1, levels[4] = ZSTD_maxCLevel();
        return 5;
    case ZB_CODEC_LZ4_RAW:
        levels[0] = 0, levels[1] = 1, levels[2] = 12;
        return 3;
    default: /* levels mean nothing to these; any is ignored */
        levels[0] = 0, levels[1] = 5;
        return 2;
    }
}

/* Parquet's names of its ids moved to tests/unit/parquet/compression.c;
 * these are the names messages start with. */
static void test_codec__names(void)
{
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_NONE), "uncompressed");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_SNAPPY), "snappy");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_GZIP), "gzip");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_DEFLATE_RAW), "deflate");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_BROTLI), "brotli");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_LZ4_HADOOP), "lz4");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_ZSTD), "zstd");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_LZ4_RAW), "lz4_raw");
    ZBT_EQ_STR(zb_codec_name(ZB_CODEC_COUNT), "unknown");
    ZBT_EQ_STR(zb_codec_name(-1), "unknown");
}

static void test_codec__round_trip_every_codec_and_level(void)
{
    const size_t sizes[] = { 0, 1, 64 * 1024, MIB, MIB };
    uint8_t *inputs[5];
    size_t i, k, l;

    inputs[0] = NULL;
    inputs[1] = exact_copy("x", 1);
    inputs[2] = random_bytes(sizes[2], 42);
    inputs[3] = random_bytes(sizes[3], 7);
    inputs[4] = compressible_bytes(sizes[4]);
    for (k = 0; k < N_WRITABLE; k++) {
        int codec = writable[k], levels[8];
        size_t n_levels = levels_of(codec, levels);

        for (l = 0; l < n_levels; l++) {
            for (i = 0; i < 5; i++) {
                size_t clen = 0;
                uint8_t *c = compress_exact(codec, levels[l], inputs[i],
                                            sizes[i], &clen);

                check_decodes(codec, c, clen, inputs[i], sizes[i]);
                /*
                 * The compressible MiB must actually shrink, except at
                 * zstd's lowest level, which all but stores.
                 */
                if (i == 4 && codec != ZB_CODEC_NONE &&
                    levels[l] != ZSTD_minCLevel() && clen > sizes[i] / 4)
                    zbt__fail(__FILE__, __LINE__,
                              "%s level %d: %zu bytes compress to %zu",
                              zb_codec_name(codec), levels[l], sizes[i],
                              clen);
                exact_free(c);
            }
        }
    }
    for (i = 0; i < 5; i++)
        exact_free(inputs[i]);
}

static void test_codec__levels_out_of_range_are_einval(void)
{
    const struct { int codec, level; } bad[] = {
        { ZB_CODEC_GZIP, 10 },    { ZB_CODEC_GZIP, -1 },
        { ZB_CODEC_DEFLATE_RAW, 10 }, { ZB_CODEC_DEFLATE_RAW, -1 },
        { ZB_CODEC_BROTLI, 12 },  { ZB_CODEC_BROTLI, -1 },
        { ZB_CODEC_LZ4_RAW, 13 }, { ZB_CODEC_LZ4_RAW, -1 },
        { ZB_CODEC_ZSTD, ZSTD_maxCLevel() + 1 },
        { ZB_CODEC_ZSTD, ZSTD_minCLevel() - 1 },
    };
    uint8_t in[16] = { 0 }, out[256];
    size_t i, clen = 99;
    zb_ctx ctx;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zb_ctx_init(&ctx);
        ZBT_RC(zb_codec_compress(NULL, &ctx, bad[i].codec, bad[i].level, in, sizeof in,
                           out, sizeof out, &clen),
               ZB_EINVAL);
        ZBT_CONTAINS(ctx.err.msg, msg_name(bad[i].codec));
        ZBT_CONTAINS(ctx.err.msg, "level");
        ZBT_EQ_U64(clen, 0);
    }
}

/* Each codec's stream of a 10000-byte input, made by our writer. */
static uint8_t *sample_stream(int codec, const uint8_t *in, size_t n,
                              size_t *clen)
{
    if (codec == ZB_CODEC_LZ4_HADOOP) /* a plain block through the LZ4 codec */
        return compress_exact(ZB_CODEC_LZ4_RAW, 0, in, n, clen);
    return compress_exact(codec, 0, in, n, clen);
}

static const int readable[] = { ZB_CODEC_NONE,        ZB_CODEC_SNAPPY,
                                ZB_CODEC_GZIP,        ZB_CODEC_DEFLATE_RAW,
                                ZB_CODEC_BROTLI,      ZB_CODEC_LZ4_HADOOP,
                                ZB_CODEC_ZSTD,        ZB_CODEC_LZ4_RAW };
#define N_READABLE (sizeof readable / sizeof readable[0])

static void test_codec__wrong_declared_size_is_corrupt(void)
{
    const size_t n = 10000;
    uint8_t *in = compressible_bytes(n);
    size_t k, w;

    for (k = 0; k < N_READABLE; k++) {
        int codec = readable[k];
        const size_t wrong[] = { 0, 1, n / 2, n - 1, n + 1, 2 * n };
        size_t clen;
        uint8_t *c = sample_stream(codec, in, n, &clen);

        for (w = 0; w < sizeof wrong / sizeof wrong[0]; w++)
            check_corrupt(codec, c, clen, wrong[w]);
        exact_free(c);
    }
    exact_free(in);
}

static void test_codec__messages_name_codec_and_sizes(void)
{
    const size_t n = 100;
    uint8_t *in = compressible_bytes(n), *out = exact_alloc(n + 20);
    uint8_t *c;
    size_t clen;
    zb_ctx ctx;

    /* Short output: every byte decodes, but fewer than declared. */
    zb_ctx_init(&ctx);
    c = compress_exact(ZB_CODEC_ZSTD, 0, in, n, &clen);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_ZSTD, c, clen, out, n + 20),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg, "zstd: decompressed 100 bytes, page declares 120");
    exact_free(c);

    zb_ctx_init(&ctx);
    c = compress_exact(ZB_CODEC_GZIP, 0, in, n, &clen);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_GZIP, c, clen, out, n + 20),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg, "gzip: decompressed 100 bytes, page declares 120");
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_GZIP, c, clen, out, n - 1),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg,
               "gzip: decompresses to more than 99 bytes, page declares 99");
    exact_free(c);

    zb_ctx_init(&ctx);
    c = compress_exact(ZB_CODEC_SNAPPY, 0, in, n, &clen);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_SNAPPY, c, clen, out, n + 20),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg,
               "snappy: stream declares 100 bytes, page declares 120");
    exact_free(c);

    zb_ctx_init(&ctx);
    c = compress_exact(ZB_CODEC_BROTLI, 0, in, n, &clen);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_BROTLI, c, clen, out, n + 20),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg,
               "brotli: decompressed 100 bytes, page declares 120");
    exact_free(c);

    zb_ctx_init(&ctx);
    c = compress_exact(ZB_CODEC_LZ4_RAW, 0, in, n, &clen);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_LZ4_RAW, c, clen, out, n + 20),
           ZB_ECORRUPT);
    ZBT_EQ_STR(ctx.err.msg,
               "lz4_raw: decompressed 100 bytes, page declares 120");
    exact_free(c);
    exact_free(in);
    exact_free(out);
}

static void test_codec__truncated_input_is_corrupt(void)
{
    const size_t n = 3000;
    uint8_t *in = compressible_bytes(n);
    size_t k, cut;

    for (k = 0; k < N_READABLE; k++) {
        int codec = readable[k];
        size_t clen;
        uint8_t *c = sample_stream(codec, in, n, &clen);

        /* Every prefix, the empty one included. */
        for (cut = 0; cut < clen; cut++)
            check_corrupt(codec, c, cut, n);
        exact_free(c);
    }
    exact_free(in);
}

/*
 * Flips every bit of each codec's stream in turn. Without a checksum a
 * flip may go unnoticed (a literal byte changes), so OK is allowed, but
 * never another rc and never an out-of-bounds access. Codecs with a
 * checksum over the data (gzip's CRC-32) must notice nearly all.
 */
static void test_codec__bit_flips_never_crash(void)
{
    const size_t n = 3000;
    uint8_t *in = compressible_bytes(n), *out = exact_alloc(n);
    size_t k, bit;

    for (k = 0; k < N_READABLE; k++) {
        int codec = readable[k];
        size_t clen, missed = 0;
        uint8_t *c = sample_stream(codec, in, n, &clen);
        uint8_t *f = exact_copy(c, clen);
        zb_ctx ctx;

        for (bit = 0; bit < clen * 8; bit++) {
            int rc;

            f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            zb_ctx_init(&ctx);
            rc = zb_codec_decompress(NULL, &ctx, codec, f, clen, out, n);
            f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (rc == ZB_OK) {
                missed++;
                continue;
            }
            ZBT_RC(rc, ZB_ECORRUPT);
            ZBT_CONTAINS(ctx.err.msg, msg_name(codec));
        }
        if (codec == ZB_CODEC_GZIP) {
            /*
             * Unchecked: MTIME (4 bytes), XFL, OS, the FTEXT hint of FLG,
             * and the padding bits after the last deflate block (at most
             * 7).
             */
            ZBT_CHECK(missed <= 6 * 8 + 1 + 7);
        }
        if (codec == ZB_CODEC_SNAPPY || codec == ZB_CODEC_ZSTD ||
            codec == ZB_CODEC_GZIP) {
            /* A magic number or length header is always checked. */
            for (bit = 0; bit < 8; bit++) {
                f[0] ^= (uint8_t)(1u << bit);
                check_corrupt(codec, f, clen, n);
                f[0] ^= (uint8_t)(1u << bit);
            }
        }
        exact_free(f);
        exact_free(c);
    }
    exact_free(in);
    exact_free(out);
}

/* LZO, which is Parquet's only, moved with Parquet's ids to
 * tests/unit/parquet/compression.c. */
static void test_codec__unknown_are_unsupported(void)
{
    uint8_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[64];
    size_t clen = 5;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, 8, in, sizeof in, out, 8),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "codec 8");
    ZBT_RC(zb_codec_decompress(NULL, &ctx, -1, in, sizeof in, out, 8),
           ZB_EUNSUPPORTED);
    ZBT_RC(zb_codec_compress(NULL, &ctx, -1, 0, in, sizeof in, out,
                             sizeof out, &clen),
           ZB_EUNSUPPORTED);
    ZBT_EQ_U64(clen, 0);
    clen = 5;
    ZBT_RC(zb_codec_compress(NULL, &ctx, ZB_CODEC_LZ4_HADOOP, 0, in,
                             sizeof in, out, sizeof out, &clen),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "LZ4");
    ZBT_EQ_U64(clen, 0);
    ZBT_RC(zb_codec_compress(NULL, &ctx, 42, 0, in, sizeof in, out,
                             sizeof out, &clen),
           ZB_EUNSUPPORTED);
    ZBT_EQ_U64(zb_codec_compress_bound(-1, 100), 0);
    ZBT_EQ_U64(zb_codec_compress_bound(ZB_CODEC_LZ4_HADOOP, 100), 0);
    ZBT_EQ_U64(zb_codec_compress_bound(42, 100), 0);
    ZBT_EQ_U64(zb_codec_compress_bound(ZB_CODEC_NONE, 100), 100);
    ZBT_EQ_U64(zb_codec_compress_bound(ZB_CODEC_ZSTD, (size_t)INT32_MAX + 1), 0);
}

static void test_codec__empty_page(void)
{
    uint8_t out[4];
    size_t k;
    zb_ctx ctx;

    for (k = 0; k < N_READABLE; k++) {
        zb_ctx_init(&ctx);
        ZBT_OK_CTX(zb_codec_decompress(NULL, &ctx, readable[k], NULL, 0, NULL, 0), &ctx);
        ZBT_RC(zb_codec_decompress(NULL, &ctx, readable[k], NULL, 0, out, sizeof out),
               ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "empty");
    }
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends [u32 BE compressed size][LZ4 block of in] at f + *pos. */
static void put_chunk(uint8_t *f, size_t *pos, const uint8_t *in, size_t n)
{
    int got = LZ4_compress_default((const char *)in, (char *)f + *pos + 4,
                                   (int)n, LZ4_compressBound((int)n));

    ZBT_CHECK(got > 0);
    put_be32(f + *pos, (uint32_t)got);
    *pos += 4 + (size_t)got;
}

static void test_codec__lz4_hadoop_frames_and_raw_block(void)
{
    const size_t n = 300000;
    uint8_t *in = compressible_bytes(n), *frame, *exact;
    size_t cap = (size_t)LZ4_compressBound((int)n) + 64, pos = 0;

    frame = exact_alloc(cap);
    /* Three blocks of one chunk each, as parquet-mr writes them. */
    put_be32(frame + pos, 100000), pos += 4;
    put_chunk(frame, &pos, in, 100000);
    put_be32(frame + pos, 150000), pos += 4;
    put_chunk(frame, &pos, in + 100000, 150000);
    put_be32(frame + pos, 50000), pos += 4;
    put_chunk(frame, &pos, in + 250000, 50000);
    check_decodes(ZB_CODEC_LZ4_HADOOP, frame, pos, in, n);
    /* The framing with a page size it does not add up to. */
    check_corrupt(ZB_CODEC_LZ4_HADOOP, frame, pos, n - 1);
    check_corrupt(ZB_CODEC_LZ4_HADOOP, frame, pos, n + 1);
    /* Trailing byte: the framing does not parse, nor does a plain block. */
    frame[pos] = 0;
    check_corrupt(ZB_CODEC_LZ4_HADOOP, frame, pos + 1, n);
    /* LZ4_RAW does not read the framing. */
    check_corrupt(ZB_CODEC_LZ4_RAW, frame, pos, n);

    /* One block of two chunks, as Hadoop splits a large write. */
    pos = 0;
    put_be32(frame + pos, (uint32_t)n), pos += 4;
    put_chunk(frame, &pos, in, 120000);
    put_chunk(frame, &pos, in + 120000, n - 120000);
    check_decodes(ZB_CODEC_LZ4_HADOOP, frame, pos, in, n);
    /* A chunk that claims more input than there is. */
    put_be32(frame + 4, 0x7fffffff);
    check_corrupt(ZB_CODEC_LZ4_HADOOP, frame, pos, n);

    /* A plain block, as some writers stored under LZ4. */
    pos = 0;
    put_chunk(frame, &pos, in, n);
    exact = exact_copy(frame + 4, pos - 4);
    check_decodes(ZB_CODEC_LZ4_HADOOP, exact, pos - 4, in, n);
    check_decodes(ZB_CODEC_LZ4_RAW, exact, pos - 4, in, n);
    check_corrupt(ZB_CODEC_LZ4_HADOOP, exact, pos - 4, n + 1);
    exact_free(exact);
    exact_free(frame);
    exact_free(in);
}

static void test_codec__gzip_members_and_zlib_header(void)
{
    const size_t n1 = 5000, n2 = 70000;
    uint8_t *a = compressible_bytes(n1), *b = random_bytes(n2, 9);
    uint8_t *ca, *cb, *both, *want, *z;
    size_t la, lb;
    uLongf lz;

    ca = compress_exact(ZB_CODEC_GZIP, 1, a, n1, &la);
    cb = compress_exact(ZB_CODEC_GZIP, 9, b, n2, &lb);
    both = exact_alloc(la + lb + 1);
    memcpy(both, ca, la);
    memcpy(both + la, cb, lb);
    want = exact_alloc(n1 + n2);
    memcpy(want, a, n1);
    memcpy(want + n1, b, n2);
    check_decodes(ZB_CODEC_GZIP, both, la + lb, want, n1 + n2);
    /* Only the first member's worth: the second is too much. */
    check_corrupt(ZB_CODEC_GZIP, both, la + lb, n1);
    /* A second member cut short. */
    check_corrupt(ZB_CODEC_GZIP, both, la + lb - 3, n1 + n2);
    /* Garbage after the last member. */
    both[la + lb] = 0x1f;
    check_corrupt(ZB_CODEC_GZIP, both, la + lb + 1, n1 + n2);

    /* A zlib (RFC 1950) stream, as some old writers made. */
    lz = compressBound((uLong)n1);
    z = exact_alloc(lz);
    ZBT_EQ_INT(compress2(z, &lz, a, (uLong)n1, 6), Z_OK);
    check_decodes(ZB_CODEC_GZIP, z, lz, a, n1);
    exact_free(z);
    exact_free(want);
    exact_free(both);
    exact_free(ca);
    exact_free(cb);
    exact_free(a);
    exact_free(b);
}

static void test_codec__zstd_concatenated_frames(void)
{
    const size_t n1 = 4000, n2 = 9000;
    uint8_t *a = compressible_bytes(n1), *b = random_bytes(n2, 3);
    uint8_t *ca, *cb, *both, *want;
    size_t la, lb;

    ca = compress_exact(ZB_CODEC_ZSTD, 1, a, n1, &la);
    cb = compress_exact(ZB_CODEC_ZSTD, 19, b, n2, &lb);
    both = exact_alloc(la + lb);
    memcpy(both, ca, la);
    memcpy(both + la, cb, lb);
    want = exact_alloc(n1 + n2);
    memcpy(want, a, n1);
    memcpy(want + n1, b, n2);
    check_decodes(ZB_CODEC_ZSTD, both, la + lb, want, n1 + n2);
    check_corrupt(ZB_CODEC_ZSTD, both, la + lb, n1);
    exact_free(want);
    exact_free(both);
    exact_free(ca);
    exact_free(cb);
    exact_free(a);
    exact_free(b);
}

/* Reads a sample file into an exactly sized buffer. */
static uint8_t *read_sample(const char *name, size_t *len)
{
    char path[1024];
    FILE *fp;
    long size;
    uint8_t *p;

    snprintf(path, sizeof path, "%s/%s", ZB_CODEC_SAMPLES, name);
    fp = fopen(path, "rb");
    ZBT_CHECK(fp != NULL);
    ZBT_CHECK(fseek(fp, 0, SEEK_END) == 0);
    size = ftell(fp);
    ZBT_CHECK(size > 0);
    rewind(fp);
    p = exact_alloc((size_t)size);
    ZBT_CHECK(fread(p, 1, (size_t)size, fp) == (size_t)size);
    fclose(fp);
    *len = (size_t)size;
    return p;
}

static void check_sample(int codec, const char *name, const uint8_t *want,
                         size_t n)
{
    size_t clen;
    uint8_t *c = read_sample(name, &clen);

    check_decodes(codec, c, clen, want, n);
    check_corrupt(codec, c, clen, n + 1);
    check_corrupt(codec, c, clen - 1, n);
    exact_free(c);
}

static void test_codec__samples_from_other_compressors(void)
{
    /*
     * Snappy by hand from its format_description.txt: length 16 (varint
     * 0x10); a literal of 4 (tag (4-1)<<2 = 0x0c) "abcd"; a copy with a
     * 2-byte offset (tag (12-1)<<2 | 2 = 0x2e) of 12 bytes from offset 4
     * (LE 04 00), overlapping its own output.
     */
    static const uint8_t snappy_abcd[] = { 0x10, 0x0c, 'a', 'b', 'c', 'd',
                                           0x2e, 0x04, 0x00 };
    const char *abcd = "abcdabcdabcdabcd";
    uint8_t *text, *raw, *framed;
    size_t n, rawlen;

    check_decodes(ZB_CODEC_SNAPPY, snappy_abcd, sizeof snappy_abcd,
                  (const uint8_t *)abcd, 16);
    check_corrupt(ZB_CODEC_SNAPPY, snappy_abcd, sizeof snappy_abcd - 1, 16);

    text = read_sample("text.txt", &n);
    check_sample(ZB_CODEC_GZIP, "text.txt.gz", text, n);
    check_sample(ZB_CODEC_GZIP, "text.txt.2members.gz", text, n);
    check_sample(ZB_CODEC_ZSTD, "text.txt.zst", text, n);
    check_sample(ZB_CODEC_ZSTD, "text.txt.2frames.zst", text, n);
    check_sample(ZB_CODEC_BROTLI, "text.txt.br", text, n);
    check_sample(ZB_CODEC_LZ4_RAW, "text.txt.lz4raw", text, n);
    check_sample(ZB_CODEC_LZ4_HADOOP, "text.txt.lz4raw", text, n);

    /* The lz4 tool's block in Hadoop's framing. */
    raw = read_sample("text.txt.lz4raw", &rawlen);
    framed = exact_alloc(rawlen + 8);
    put_be32(framed, (uint32_t)n);
    put_be32(framed + 4, (uint32_t)rawlen);
    memcpy(framed + 8, raw, rawlen);
    check_decodes(ZB_CODEC_LZ4_HADOOP, framed, rawlen + 8, text, n);
    exact_free(framed);
    exact_free(raw);
    exact_free(text);
}

static void test_codec__small_output_cap(void)
{
    const size_t n = MIB;
    uint8_t *comp = compressible_bytes(n), *rnd = random_bytes(4096, 5);
    uint8_t small[64], *half = exact_alloc(n / 2);
    size_t k, clen;
    zb_ctx ctx;

    for (k = 0; k < N_WRITABLE; k++) {
        int codec = writable[k];

        zb_ctx_init(&ctx);
        clen = 1;
        ZBT_RC(zb_codec_compress(NULL, &ctx, codec, 0, rnd, 4096, small, sizeof small,
                           &clen),
               ZB_ENOMEM);
        ZBT_CONTAINS(ctx.err.msg, msg_name(codec));
        ZBT_EQ_U64(clen, 0);
        if (codec == ZB_CODEC_NONE)
            continue;
        /* Below the bound, but enough for what it compresses to. */
        ZBT_OK_CTX(zb_codec_compress(NULL, &ctx, codec, 0, comp, n, half, n / 2, &clen),
                   &ctx);
        check_decodes(codec, half, clen, comp, n);
    }
    exact_free(half);
    exact_free(comp);
    exact_free(rnd);
}

/*
 * Fails each zb_malloc of a call in turn: the codecs whose libraries take
 * our allocator (zlib, brotli's decoder, lz4's state, snappy's aside
 * buffer) must return ZB_ENOMEM and leak nothing.
 */
static void test_codec__allocation_failures(void)
{
    const size_t n = 20000;
    uint8_t *in = compressible_bytes(n), *out = exact_alloc(n);
    const int codecs[] = { ZB_CODEC_GZIP, ZB_CODEC_BROTLI,
                           ZB_CODEC_DEFLATE_RAW };
    uint8_t small[4096];
    size_t k, clen;
    uint64_t nth, total, live;
    zb_ctx ctx;

    for (k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        uint8_t *c = compress_exact(codecs[k], 0, in, n, &clen);

        live = zb_alloc_live_bytes();
        zb_ctx_init(&ctx);
        zb_alloc__fail_at(0, 0);
        ZBT_OK_CTX(zb_codec_decompress(NULL, &ctx, codecs[k], c, clen, out, n), &ctx);
        total = zb_alloc__count();
        ZBT_CHECK(total > 0);
        for (nth = 1; nth <= total; nth++) {
            zb_alloc__fail_at(nth, 0);
            ZBT_RC(zb_codec_decompress(NULL, &ctx, codecs[k], c, clen, out, n),
                   ZB_ENOMEM);
            ZBT_EQ_STR(ctx.err.msg, "out of memory");
            zb_alloc__fail_at(0, 0);
            ZBT_EQ_U64(zb_alloc_live_bytes(), live);
        }
        exact_free(c);
    }
    /* Compression: gzip's state, lz4's state, snappy's aside buffer. */
    zb_alloc__fail_at(1, 1);
    ZBT_RC(zb_codec_compress(NULL, &ctx, ZB_CODEC_GZIP, 0, in, n, small, sizeof small,
                       &clen),
           ZB_ENOMEM);
    ZBT_RC(zb_codec_compress(NULL, &ctx, ZB_CODEC_LZ4_RAW, 0, in, n, small, sizeof small,
                       &clen),
           ZB_ENOMEM);
    ZBT_RC(zb_codec_compress(NULL, &ctx, ZB_CODEC_LZ4_RAW, 9, in, n, small, sizeof small,
                       &clen),
           ZB_ENOMEM);
    ZBT_RC(zb_codec_compress(NULL, &ctx, ZB_CODEC_SNAPPY, 0, in, n, small, sizeof small,
                       &clen),
           ZB_ENOMEM);
    ZBT_EQ_STR(ctx.err.msg, "out of memory");
    ZBT_CHECK(zb_alloc__fail_at(0, 0) >= 4);
    exact_free(in);
    exact_free(out);
}

/*
 * DEFLATE_RAW is RFC 1951 with no wrapper, as Avro's deflate: zlib's own
 * raw inflate reads what we write, the gzip codec (which takes gzip and
 * zlib headers) does not, and we read what zlib's raw deflate writes.
 */
static void test_codec__deflate_raw_is_headerless(void)
{
    const size_t n = 50000;
    uint8_t *in = compressible_bytes(n), *c, *back = exact_alloc(n);
    uint8_t *gz, *zc;
    size_t clen, gzlen;
    z_stream zs;
    zb_ctx ctx;

    c = compress_exact(ZB_CODEC_DEFLATE_RAW, 0, in, n, &clen);
    memset(&zs, 0, sizeof zs);
    ZBT_EQ_INT(inflateInit2(&zs, -15), Z_OK);
    zs.next_in = c;
    zs.avail_in = (uInt)clen;
    zs.next_out = back;
    zs.avail_out = (uInt)n;
    ZBT_EQ_INT(inflate(&zs, Z_FINISH), Z_STREAM_END);
    ZBT_EQ_U64(zs.total_out, n);
    ZBT_EQ_U64(zs.avail_in, 0);
    inflateEnd(&zs);
    ZBT_CHECK(memcmp(back, in, n) == 0);
    check_corrupt(ZB_CODEC_GZIP, c, clen, n);

    /* A gzip member is not raw deflate. */
    gz = compress_exact(ZB_CODEC_GZIP, 0, in, n, &gzlen);
    zb_ctx_init(&ctx);
    ZBT_RC(zb_codec_decompress(NULL, &ctx, ZB_CODEC_DEFLATE_RAW, gz, gzlen,
                               back, n),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "deflate");

    /* zlib's raw deflate at level 9, read back; then a trailing byte. */
    zc = exact_alloc(clen + 1024);
    memset(&zs, 0, sizeof zs);
    ZBT_EQ_INT(deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY),
               Z_OK);
    zs.next_in = in;
    zs.avail_in = (uInt)n;
    zs.next_out = zc;
    zs.avail_out = (uInt)(clen + 1024);
    ZBT_EQ_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
    check_decodes(ZB_CODEC_DEFLATE_RAW, zc, zs.total_out, in, n);
    zc[zs.total_out] = 0;
    check_corrupt(ZB_CODEC_DEFLATE_RAW, zc, zs.total_out + 1, n);
    deflateEnd(&zs);
    exact_free(zc);
    exact_free(gz);
    exact_free(c);
    exact_free(back);
    exact_free(in);
}

/* Decodes c with no declared size into a buffer capped at cap. */
static int decode_buf(zb_ctx *ctx, int codec, const uint8_t *c, size_t clen,
                      size_t cap, zb_buf *out)
{
    zb_buf_free(out);
    zb_buf_init(out, cap);
    zb_ctx_init(ctx);
    return zb_codec_decompress_buf(ctx, codec, c, clen, out);
}

static void test_codec__undeclared_size_into_capped_buffer(void)
{
    static const int codecs[] = { ZB_CODEC_NONE, ZB_CODEC_SNAPPY,
                                  ZB_CODEC_DEFLATE_RAW, ZB_CODEC_ZSTD,
                                  ZB_CODEC_GZIP };
    const size_t n = 300000; /* past the 64 KiB the buffer first grows by */
    uint8_t *in = compressible_bytes(n), *both, *c, *c2;
    zb_buf out = ZB_BUF_INIT(1);
    size_t k, clen, clen2;
    zb_ctx ctx;

    for (k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        c = compress_exact(codecs[k], 0, in, n, &clen);
        ZBT_OK_CTX(decode_buf(&ctx, codecs[k], c, clen, n, &out), &ctx);
        ZBT_EQ_U64(out.len, n);
        ZBT_CHECK(memcmp(out.ptr, in, n) == 0);
        ZBT_EQ_INT(out.ptr[n], 0);
        /* One byte short of the cap: ZB_ENOMEM, naming the codec. */
        ZBT_RC(decode_buf(&ctx, codecs[k], c, clen, n - 1, &out), ZB_ENOMEM);
        if (codecs[k] != ZB_CODEC_NONE)
            ZBT_CONTAINS(ctx.err.msg, msg_name(codecs[k]));
        ZBT_CONTAINS(ctx.err.msg, "cap");
        ZBT_CHECK(out.len <= n - 1);
        exact_free(c);
    }

    /* zstd: frames one after another, as in one Avro block. */
    c = compress_exact(ZB_CODEC_ZSTD, 1, in, 1000, &clen);
    c2 = compress_exact(ZB_CODEC_ZSTD, 19, in + 1000, n - 1000, &clen2);
    both = exact_alloc(clen + clen2);
    memcpy(both, c, clen);
    memcpy(both + clen, c2, clen2);
    ZBT_OK_CTX(decode_buf(&ctx, ZB_CODEC_ZSTD, both, clen + clen2, n, &out),
               &ctx);
    ZBT_EQ_U64(out.len, n);
    ZBT_CHECK(memcmp(out.ptr, in, n) == 0);
    exact_free(both);
    exact_free(c2);
    exact_free(c);

    /* deflate: bytes after the end of the stream are not read. */
    c = compress_exact(ZB_CODEC_DEFLATE_RAW, 0, in, n, &clen);
    both = exact_alloc(clen + 3);
    memcpy(both, c, clen);
    memcpy(both + clen, "xyz", 3);
    ZBT_OK_CTX(decode_buf(&ctx, ZB_CODEC_DEFLATE_RAW, both, clen + 3, n,
                          &out), &ctx);
    ZBT_EQ_U64(out.len, n);
    exact_free(both);
    exact_free(c);

    /* gzip: members in turn (metadata files); then nothing else. */
    c = compress_exact(ZB_CODEC_GZIP, 1, in, 1000, &clen);
    c2 = compress_exact(ZB_CODEC_GZIP, 9, in + 1000, n - 1000, &clen2);
    both = exact_alloc(clen + clen2 + 3);
    memcpy(both, c, clen);
    memcpy(both + clen, c2, clen2);
    ZBT_OK_CTX(decode_buf(&ctx, ZB_CODEC_GZIP, both, clen + clen2, n, &out),
               &ctx);
    ZBT_EQ_U64(out.len, n);
    ZBT_CHECK(memcmp(out.ptr, in, n) == 0);
    memcpy(both + clen + clen2, "xyz", 3);
    ZBT_RC(decode_buf(&ctx, ZB_CODEC_GZIP, both, clen + clen2 + 3, 2 * n,
                      &out), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "gzip");
    exact_free(both);
    exact_free(c2);
    exact_free(c);
    zb_buf_free(&out);
    exact_free(in);
}

static void test_codec__undeclared_size_refuses_bad_input(void)
{
    static const int codecs[] = { ZB_CODEC_SNAPPY, ZB_CODEC_DEFLATE_RAW,
                                  ZB_CODEC_ZSTD, ZB_CODEC_GZIP };
    static const int others[] = { ZB_CODEC_BROTLI, ZB_CODEC_LZ4_RAW,
                                  ZB_CODEC_LZ4_HADOOP };
    const size_t n = 3000;
    uint8_t *in = compressible_bytes(n), *c;
    zb_buf out = ZB_BUF_INIT(1);
    size_t k, cut, clen;
    zb_ctx ctx;
    int rc;

    for (k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        c = compress_exact(codecs[k], 0, in, n, &clen);
        /* Every prefix, the empty one included. */
        for (cut = 0; cut < clen; cut++) {
            rc = decode_buf(&ctx, codecs[k], c, cut, 1u << 20, &out);
            ZBT_RC(rc, ZB_ECORRUPT);
            ZBT_CONTAINS(ctx.err.msg, msg_name(codecs[k]));
            ZBT_EQ_STR(ctx.err.module, "codec");
        }
        exact_free(c);
    }
    for (k = 0; k < sizeof others / sizeof others[0]; k++) {
        ZBT_RC(decode_buf(&ctx, others[k], in, n, 1u << 20, &out),
               ZB_EUNSUPPORTED);
        ZBT_CONTAINS(ctx.err.msg, "undeclared size");
    }
    ZBT_RC(decode_buf(&ctx, 42, in, n, 1u << 20, &out), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "codec 42");
    zb_buf_free(&out);
    exact_free(in);
}

static void test_codec__crc32(void)
{
    /* The check value of CRC-32/ISO-HDLC (the catalogue of CRC models). */
    ZBT_EQ_U64(zb_codec_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u);
    ZBT_EQ_U64(zb_codec_crc32(NULL, 0), 0);
    ZBT_EQ_U64(zb_codec_crc32((const uint8_t *)"a", 1), 0xE8B7BE43u);
}

const zbt_case test_codec[] = {
    ZBT_CASE(test_codec__names),
    ZBT_CASE(test_codec__round_trip_every_codec_and_level),
    ZBT_CASE(test_codec__levels_out_of_range_are_einval),
    ZBT_CASE(test_codec__wrong_declared_size_is_corrupt),
    ZBT_CASE(test_codec__messages_name_codec_and_sizes),
    ZBT_CASE(test_codec__truncated_input_is_corrupt),
    ZBT_CASE(test_codec__bit_flips_never_crash),
    ZBT_CASE(test_codec__unknown_are_unsupported),
    ZBT_CASE(test_codec__empty_page),
    ZBT_CASE(test_codec__lz4_hadoop_frames_and_raw_block),
    ZBT_CASE(test_codec__gzip_members_and_zlib_header),
    ZBT_CASE(test_codec__zstd_concatenated_frames),
    ZBT_CASE(test_codec__samples_from_other_compressors),
    ZBT_CASE(test_codec__small_output_cap),
    ZBT_CASE(test_codec__allocation_failures),
    ZBT_CASE(test_codec__deflate_raw_is_headerless),
    ZBT_CASE(test_codec__undeclared_size_into_capped_buffer),
    ZBT_CASE(test_codec__undeclared_size_refuses_bad_input),
    ZBT_CASE(test_codec__crc32),
    ZBT_END
};

/*
 * The decoders of format/parquet/encoding/pq_encoding.h, checked three ways:
 *  - the worked examples of Encodings.md, byte for byte;
 *  - reference encoders written here from the specification (bit by bit,
 *    nothing shared with the decoders), over every bit width, run shape
 *    and block layout, with junk where the specification allows it;
 *  - pages written by real writers (encoding_files.c).
 * And for every decoder: empty input, every truncation of a valid input
 * and random corruption must give ZB_OK or ZB_ECORRUPT and never touch a
 * byte out of range (the inputs are copied into exactly sized heap blocks
 * so that ASan sees an overread).
 */
#include <stdio.h>
#include <stdlib.h>

#include "encoding_test.h"
#include "format/parquet/encoding/pq_encoding.h"
#include "util/alloc.h"
#include "zbtest.h"

/* ---- helpers ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t mask_of(unsigned w)
{
    return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

/* A copy of buf in a heap block of exactly len bytes (ASan bounds). */
static uint8_t *exact(const uint8_t *buf, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);

    ZBT_CHECK(p != NULL);
    if (len)
        memcpy(p, buf, len);
    return p;
}

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
    uint64_t bitacc;
    unsigned nbits;
} wbuf;

static void w_init(wbuf *b)
{
    memset(b, 0, sizeof *b);
    b->cap = 1 << 16;
    b->p = malloc(b->cap);
    ZBT_CHECK(b->p != NULL);
}

static void w_byte(wbuf *b, uint8_t v)
{
    if (b->len == b->cap) {
        b->cap *= 2;
        b->p = realloc(b->p, b->cap);
        ZBT_CHECK(b->p != NULL);
    }
    ZBT_CHECK(b->len < b->cap);
    b->p[b->len++] = v;
}

static void w_bytes(wbuf *b, const void *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w_byte(b, ((const uint8_t *)d)[i]);
}

static void w_uleb(wbuf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;

        v >>= 7;
        w_byte(b, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}

static uint64_t zigzag(uint64_t v)
{
    return (v << 1) ^ (0 - (v >> 63));
}

/* LSB-first bit packing, one bit at a time, as the specification draws it:
 * the first value's least significant bit is bit 0 of the first byte. */
static void w_bits(wbuf *b, uint64_t v, unsigned w)
{
    for (unsigned k = 0; k < w; k++) {
        if (b->nbits == 0)
            w_byte(b, 0);
        b->p[b->len - 1] |= (uint8_t)(((v >> k) & 1) << b->nbits);
        b->nbits = (b->nbits + 1) % 8;
    }
}

static void w_align(wbuf *b)
{
    b->nbits = 0;
}

/* ---- reference encoders ----------------------------------------------- */

enum { HY_PACKED, HY_RLE, HY_MIXED };

/* The RLE / bit-packed hybrid. HY_PACKED: bit-packed runs of random group
 * counts; HY_RLE: one RLE run per stretch of equal values; HY_MIXED: RLE
 * for stretches of 8 or more, otherwise one group bit-packed. The last
 * group is padded with junk values (readers ignore them). */
static void enc_hybrid(wbuf *b, const uint32_t *v, size_t n, unsigned w,
                       int mode)
{
    size_t i = 0;

    while (i < n) {
        size_t same = 1;

        while (i + same < n && v[i + same] == v[i])
            same++;
        if (mode == HY_RLE || (mode == HY_MIXED && same >= 8)) {
            w_uleb(b, (uint64_t)same << 1);
            for (unsigned k = 0; k < (w + 7) / 8; k++)
                w_byte(b, (uint8_t)(v[i] >> (8 * k)));
            i += same;
        } else {
            size_t groups = mode == HY_MIXED ? 1 : 1 + rnd() % 40;

            if (groups * 8 > n - i)
                groups = (n - i + 7) / 8;
            w_uleb(b, (uint64_t)groups << 1 | 1);
            for (size_t k = 0; k < groups * 8; k++, i++)
                w_bits(b, i < n ? v[i] : rnd() & mask_of(w), w);
            w_align(b);
        }
    }
}

/* DELTA_BINARY_PACKED. junk: the widths of unused miniblocks and the
 * padding bits of the last one are random (readers must accept that). */
static void enc_delta(wbuf *b, const uint64_t *v, size_t n,
                      unsigned block_size, unsigned mb_count, int junk)
{
    unsigned mb_values = block_size / mb_count;

    w_uleb(b, block_size);
    w_uleb(b, mb_count);
    w_uleb(b, n);
    w_uleb(b, zigzag(n ? v[0] : 0));
    for (size_t start = 1; start < n; start += block_size) {
        size_t cnt = n - start < block_size ? n - start : block_size;
        uint64_t min = v[start] - v[start - 1];
        unsigned widths[256];

        for (size_t j = 0; j < cnt; j++) {
            uint64_t d = v[start + j] - v[start + j - 1];

            /* signed comparison, done on the biased unsigned values */
            if ((d ^ (1ULL << 63)) < (min ^ (1ULL << 63)))
                min = d;
        }
        w_uleb(b, zigzag(min));
        for (unsigned m = 0; m < mb_count; m++) {
            uint64_t maxrel = 0;
            unsigned wd = 0;

            if (m * mb_values >= cnt) {
                widths[m] = junk ? (unsigned)(rnd() % 256) : 0;
                w_byte(b, (uint8_t)widths[m]);
                continue;
            }
            for (size_t j = m * mb_values; j < (m + 1) * mb_values && j < cnt;
                 j++) {
                uint64_t rel = v[start + j] - v[start + j - 1] - min;

                maxrel |= rel;
            }
            while (wd < 64 && (maxrel >> wd) != 0)
                wd++;
            widths[m] = wd;
            w_byte(b, (uint8_t)wd);
        }
        for (unsigned m = 0; m < mb_count && m * mb_values < cnt; m++) {
            for (size_t j = m * mb_values; j < (m + 1) * mb_values; j++) {
                uint64_t rel = j < cnt
                    ? v[start + j] - v[start + j - 1] - min
                    : (junk ? rnd() & mask_of(widths[m]) : 0);

                w_bits(b, rel, widths[m]);
            }
            w_align(b);
        }
    }
}

static void enc_dlba(wbuf *b, const char *const *s, size_t n)
{
    uint64_t lens[512];

    ZBT_CHECK(n <= 512);
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(s[i]);
    enc_delta(b, lens, n, 128, 4, 1);
    for (size_t i = 0; i < n; i++)
        w_bytes(b, s[i], strlen(s[i]));
}

static void enc_dba(wbuf *b, const char *const *s, size_t n)
{
    uint64_t pre[512];
    const char *sfx[512];

    ZBT_CHECK(n <= 512);
    for (size_t i = 0; i < n; i++) {
        size_t p = 0;

        if (i > 0)
            while (s[i][p] && s[i][p] == s[i - 1][p])
                p++;
        pre[i] = p;
        sfx[i] = s[i] + p;
    }
    enc_delta(b, pre, n, 128, 4, 0);
    enc_dlba(b, sfx, n);
}

/* ---- the robustness sweep shared by every decoder ---------------------- */

/* Every truncation of the valid input and 300 random corruptions. */
static void sweep(decode_fn fn, const uint8_t *good, size_t len, size_t n)
{
    int differs = 0;
    uint8_t *p;

    p = exact(good, len);
    ZBT_RC(fn(p, len, n, &differs), ZB_OK);
    ZBT_CHECK(!differs);
    free(p);
    for (size_t cut = 0; cut < len; cut++) {
        int rc;

        p = exact(good, cut);
        differs = 0;
        rc = fn(p, cut, n, &differs);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ECORRUPT);
        /* a prefix of a valid input can only give the same values */
        ZBT_CHECK(rc != ZB_OK || !differs);
        free(p);
    }
    for (int t = 0; t < 300 && len > 0; t++) {
        int rc;

        p = exact(good, len);
        for (int k = 1 + (int)(rnd() % 4); k > 0; k--)
            p[rnd() % len] = (uint8_t)rnd();
        rc = fn(p, len, n, &differs);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ECORRUPT || rc == ZB_ENOMEM);
        free(p);
    }
}

/* The reference values of the current check (encoding_test.h). */
uint32_t *ref32;
uint64_t *ref64;
const char *const *refstr;
unsigned ref_width;

int dec_rle(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    uint32_t *out = malloc((n + 1) * sizeof *out);
    int rc = pq_rle_decode(out, n, buf, len, ref_width, NULL);

    *differs = rc == ZB_OK && memcmp(out, ref32, n * sizeof *out) != 0;
    free(out);
    return rc;
}

static int dec_legacy(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    uint32_t *out = malloc((n + 1) * sizeof *out);
    int rc = pq_bitpacked_legacy_decode(out, n, buf, len, ref_width, NULL);

    *differs = rc == ZB_OK && memcmp(out, ref32, n * sizeof *out) != 0;
    free(out);
    return rc;
}

int dec_delta(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    int64_t *out = malloc((n + 1) * sizeof *out);
    int rc = pq_delta_binary_decode(out, n, buf, len, NULL);

    *differs = rc == ZB_OK && memcmp(out, ref64, n * sizeof *out) != 0;
    free(out);
    return rc;
}

static int strs_differ(const pq_bytes *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (out[i].len != strlen(refstr[i]) ||
            memcmp(out[i].ptr, refstr[i], out[i].len) != 0)
            return 1;
    return 0;
}

int dec_dlba(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    pq_bytes *out = malloc((n + 1) * sizeof *out);
    int rc = pq_delta_length_decode(out, n, buf, len, NULL);

    *differs = rc == ZB_OK && strs_differ(out, n);
    free(out);
    return rc;
}

int dec_dba(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    pq_bytes *out = malloc((n + 1) * sizeof *out);
    zb_buf store = ZB_BUF_INIT(1 << 20);
    int rc = pq_delta_byte_array_decode(out, n, buf, len, &store, NULL);

    *differs = rc == ZB_OK && strs_differ(out, n);
    zb_buf_free(&store);
    free(out);
    return rc;
}

static int dec_plain_bytes(const uint8_t *buf, size_t len, size_t n,
                           int *differs)
{
    pq_bytes *out = malloc((n + 1) * sizeof *out);
    int rc = pq_plain_bytes_decode(out, n, buf, len, NULL);

    *differs = rc == ZB_OK && strs_differ(out, n);
    free(out);
    return rc;
}

static int dec_bool(const uint8_t *buf, size_t len, size_t n, int *differs)
{
    uint8_t *out = malloc(n + 1);
    int rc = pq_plain_bool_decode(out, n, buf, len, NULL);

    *differs = 0;
    for (size_t i = 0; rc == ZB_OK && i < n; i++)
        *differs |= out[i] != ref32[i];
    free(out);
    return rc;
}

/* ---- the examples of Encodings.md ------------------------------------- */

static void test_parquet_encoding__spec_bitpacking_examples(void)
{
    /* 0..7 at width 3: one bit-packed run of 1 group, header 0x03 */
    static const uint8_t hybrid[] = { 0x03, 0x88, 0xC6, 0xFA };
    static const uint8_t legacy[] = { 0x05, 0x39, 0x77 };
    uint32_t out[8];
    size_t used;

    ZBT_RC(pq_rle_decode(out, 8, hybrid, sizeof hybrid, 3, &used), ZB_OK);
    for (uint32_t i = 0; i < 8; i++)
        ZBT_EQ_INT(out[i], i);
    ZBT_EQ_INT(used, 4);
    ZBT_RC(pq_bitpacked_legacy_decode(out, 8, legacy, sizeof legacy, 3,
                                      &used),
           ZB_OK);
    for (uint32_t i = 0; i < 8; i++)
        ZBT_EQ_INT(out[i], i);
    ZBT_EQ_INT(used, 3);
}

static void test_parquet_encoding__spec_delta_examples(void)
{
    /* Example 1: 1..5, block 8, 1 miniblock, min delta 1, width 0 */
    static const uint8_t ex1[] = { 0x08, 0x01, 0x05, 0x02, 0x02, 0x00 };
    /* Example 2: 7,5,3,1,2,3,4,5; min delta -2 (zigzag 3), width 2,
     * relative deltas 0,0,0,3,3,3,3 (+1 padding value) on 2 bits */
    static const uint8_t ex2[] = { 0x08, 0x01, 0x08, 0x0E,
                                   0x03, 0x02, 0xC0, 0x3F };
    static const int64_t want2[] = { 7, 5, 3, 1, 2, 3, 4, 5 };
    int64_t out[8];
    size_t used;

    ZBT_RC(pq_delta_binary_decode(out, 5, ex1, sizeof ex1, &used), ZB_OK);
    for (int i = 0; i < 5; i++)
        ZBT_EQ_INT(out[i], i + 1);
    ZBT_EQ_INT(used, sizeof ex1);
    ZBT_RC(pq_delta_binary_decode(out, 8, ex2, sizeof ex2, &used), ZB_OK);
    for (int i = 0; i < 8; i++)
        ZBT_EQ_INT(out[i], want2[i]);
    ZBT_EQ_INT(used, sizeof ex2);
    /* 6 values asked of 8: the rest is skipped, used is the whole stream */
    ZBT_RC(pq_delta_binary_decode(out, 6, ex2, sizeof ex2, &used), ZB_OK);
    ZBT_EQ_INT(used, sizeof ex2);
    ZBT_RC(pq_delta_binary_decode(out, 9, ex2, sizeof ex2, &used),
           ZB_ECORRUPT);
}

static void test_parquet_encoding__spec_byte_array_examples(void)
{
    static const char *const words[] = { "Hello", "World", "Foobar",
                                         "ABCDEF" };
    static const char *const axis[] = { "axis", "axle", "babble",
                                        "babyhood" };
    static const uint8_t split[] = { 0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
                                     0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6 };
    static const uint8_t joined[] = { 0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
                                      0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6 };
    pq_bytes out[4];
    uint8_t bss[12];
    zb_buf store = ZB_BUF_INIT(1024);
    size_t used;
    wbuf b;

    w_init(&b);
    enc_dlba(&b, words, 4);
    ZBT_CHECK(memcmp(b.p + b.len - 22, "HelloWorldFoobarABCDEF", 22) == 0);
    ZBT_RC(pq_delta_length_decode(out, 4, b.p, b.len, &used), ZB_OK);
    ZBT_EQ_INT(used, b.len);
    refstr = words;
    ZBT_CHECK(!strs_differ(out, 4));

    b.len = 0;
    enc_dba(&b, axis, 4);
    ZBT_CHECK(memcmp(b.p + b.len - 17, "axislebabbleyhood", 17) == 0);
    ZBT_RC(zb_buf_append(&store, "keep", 4), ZB_OK);
    ZBT_RC(pq_delta_byte_array_decode(out, 4, b.p, b.len, &store, &used),
           ZB_OK);
    ZBT_EQ_INT(used, b.len);
    refstr = axis;
    ZBT_CHECK(!strs_differ(out, 4));
    ZBT_CHECK(memcmp(store.ptr, "keepaxisaxlebabblebabyhood", 26) == 0);
    zb_buf_free(&store);
    free(b.p);

    ZBT_RC(pq_byte_stream_split_decode(bss, 3, 4, split, sizeof split),
           ZB_OK);
    ZBT_CHECK(memcmp(bss, joined, 12) == 0);
    ZBT_RC(pq_byte_stream_split_decode(bss, 3, 4, split, 11), ZB_ECORRUPT);
}

/* ---- the RLE hybrid --------------------------------------------------- */

/* n values of width w with stretches of repeats. */
static void fill_levels(uint32_t *v, size_t n, unsigned w)
{
    size_t i = 0;

    while (i < n) {
        uint32_t x = (uint32_t)(rnd() & mask_of(w));
        size_t rep = rnd() % 3 == 0 ? 1 + rnd() % 40 : 1;

        for (; rep > 0 && i < n; rep--)
            v[i++] = x;
    }
}

static void test_parquet_encoding__rle_every_width_and_run_kind(void)
{
    static const size_t sizes[] = { 1, 7, 8, 9, 63, 100, 1000, 4099 };
    uint32_t *v = malloc(4099 * sizeof *v), *out = malloc(4099 * 4);

    for (unsigned w = 0; w <= 32; w++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (int mode = HY_PACKED; mode <= HY_MIXED; mode++) {
                size_t n = sizes[s], used;
                uint8_t *p;
                wbuf b;

                fill_levels(v, n, w);
                w_init(&b);
                enc_hybrid(&b, v, n, w, mode);
                p = exact(b.p, b.len);
                ZBT_RC(pq_rle_decode(out, n, p, b.len, w, &used), ZB_OK);
                ZBT_CHECK(memcmp(out, v, n * sizeof *v) == 0);
                ZBT_EQ_INT(used, w == 0 ? 0 : b.len);
                free(p);
                free(b.p);
            }
        }
    }
    free(v);
    free(out);
}

static void test_parquet_encoding__rle_edges(void)
{
    uint32_t out[16], v[16];
    size_t used;
    wbuf b;

    /* a final group cut right after the wanted values' bits: 5 x 7 bits */
    for (int i = 0; i < 5; i++)
        v[i] = (uint32_t)(100 + i);
    w_init(&b);
    w_uleb(&b, 1 << 1 | 1);
    for (int i = 0; i < 5; i++)
        w_bits(&b, v[i], 7);
    ZBT_EQ_INT(b.len, 1 + 5);   /* 35 bits, not the group's 7 bytes */
    ZBT_RC(pq_rle_decode(out, 5, b.p, b.len, 7, &used), ZB_OK);
    ZBT_CHECK(memcmp(out, v, 5 * sizeof *v) == 0);
    ZBT_EQ_INT(used, b.len);
    ZBT_RC(pq_rle_decode(out, 6, b.p, b.len, 7, &used), ZB_ECORRUPT);
    /* an RLE run longer than wanted: the rest is ignored */
    b.len = 0;
    w_uleb(&b, 1000 << 1);
    w_byte(&b, 5);
    ZBT_RC(pq_rle_decode(out, 16, b.p, b.len, 3, &used), ZB_OK);
    ZBT_EQ_INT(out[15], 5);
    ZBT_EQ_INT(used, b.len);
    /* a repeated value wider than the bit width */
    ZBT_RC(pq_rle_decode(out, 16, b.p, b.len, 2, &used), ZB_ECORRUPT);
    /* 4-byte value at width 32, and width 33 */
    b.len = 0;
    w_uleb(&b, 3 << 1);
    w_bytes(&b, "\xff\xff\xff\xff", 4);
    ZBT_RC(pq_rle_decode(out, 3, b.p, b.len, 32, &used), ZB_OK);
    ZBT_EQ_U64(out[2], 0xffffffffu);
    ZBT_RC(pq_rle_decode(out, 3, b.p, b.len, 33, &used), ZB_ECORRUPT);
    /* width 0 reads nothing at all */
    ZBT_RC(pq_rle_decode(out, 16, NULL, 0, 0, &used), ZB_OK);
    ZBT_EQ_INT(out[7], 0);
    ZBT_EQ_INT(used, 0);
    /* a header varint that never ends, and one past 64 bits */
    ZBT_RC(pq_rle_decode(out, 1, (const uint8_t *)"\x80\x80", 2, 1, NULL),
           ZB_ECORRUPT);
    ZBT_RC(pq_rle_decode(out, 1,
                         (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff"
                                          "\xff\x7f",
                         10, 1, NULL),
           ZB_ECORRUPT);
    /* a huge bit-packed run: only the wanted values' bytes are needed */
    b.len = 0;
    w_uleb(&b, (uint64_t)1 << 62 | 1);
    w_byte(&b, 0xA5);
    ZBT_RC(pq_rle_decode(out, 8, b.p, b.len, 1, &used), ZB_OK);
    ZBT_EQ_INT(out[0], 1);
    ZBT_EQ_INT(out[1], 0);
    ZBT_EQ_INT(used, b.len);
    ZBT_RC(pq_rle_decode(out, 9, b.p, b.len, 1, &used), ZB_ECORRUPT);
    free(b.p);
}

static void test_parquet_encoding__rle_truncation_and_corruption(void)
{
    static const unsigned widths[] = { 1, 3, 8, 13, 20, 32 };
    uint32_t v[300];

    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        for (int mode = HY_PACKED; mode <= HY_MIXED; mode++) {
            wbuf b;

            ref_width = widths[k];
            fill_levels(v, 300, ref_width);
            ref32 = v;
            w_init(&b);
            enc_hybrid(&b, v, 300, ref_width, mode);
            sweep(dec_rle, b.p, b.len, 300);
            free(b.p);
        }
    }
}

/* ---- legacy BIT_PACKED, PLAIN ----------------------------------------- */

static void test_parquet_encoding__legacy_bitpacked_every_width(void)
{
    uint32_t v[203], out[203];

    for (unsigned w = 0; w <= 32; w++) {
        uint8_t *p;
        size_t used;
        wbuf b;

        w_init(&b);
        for (size_t i = 0; i < 203; i++) {
            v[i] = (uint32_t)(rnd() & mask_of(w));
            /* most significant bit first, bit by bit */
            for (unsigned k = w; k-- > 0;) {
                size_t bit = i * w + (w - 1 - k);

                if (bit % 8 == 0)
                    w_byte(&b, 0);
                b.p[bit / 8] |= (uint8_t)(((v[i] >> k) & 1) << (7 - bit % 8));
            }
        }
        ZBT_EQ_INT(b.len, (203 * w + 7) / 8);
        p = exact(b.p, b.len);
        ZBT_RC(pq_bitpacked_legacy_decode(out, 203, p, b.len, w, &used),
               ZB_OK);
        ZBT_CHECK(memcmp(out, v, sizeof v) == 0);
        ZBT_EQ_INT(used, b.len);
        free(p);
        if (w == 5 || w == 32) {
            ref32 = v;
            ref_width = w;
            sweep(dec_legacy, b.p, b.len, 203);
        }
        free(b.p);
    }
}

static void test_parquet_encoding__plain_bool_and_bytes(void)
{
    static const char *const strs[] = { "", "a", "hello world", "", "xyz" };
    uint32_t v[77];
    uint8_t out[77];
    pq_bytes bo[5];
    size_t used;
    wbuf b;

    w_init(&b);
    for (size_t i = 0; i < 77; i++) {
        v[i] = (uint32_t)(rnd() & 1);
        w_bits(&b, v[i], 1);
    }
    ZBT_EQ_INT(b.len, 10);
    ZBT_RC(pq_plain_bool_decode(out, 77, b.p, b.len, &used), ZB_OK);
    for (size_t i = 0; i < 77; i++)
        ZBT_EQ_INT(out[i], v[i]);
    ZBT_EQ_INT(used, 10);
    ref32 = v;
    sweep(dec_bool, b.p, b.len, 77);

    b.len = 0;
    for (size_t i = 0; i < 5; i++) {
        uint32_t l = (uint32_t)strlen(strs[i]);
        uint8_t le[4] = { (uint8_t)l, (uint8_t)(l >> 8), (uint8_t)(l >> 16),
                          (uint8_t)(l >> 24) };

        w_bytes(&b, le, 4);
        w_bytes(&b, strs[i], l);
    }
    ZBT_RC(pq_plain_bytes_decode(bo, 5, b.p, b.len, &used), ZB_OK);
    ZBT_EQ_INT(used, b.len);
    refstr = strs;
    ZBT_CHECK(!strs_differ(bo, 5));
    sweep(dec_plain_bytes, b.p, b.len, 5);
    /* a length past the end */
    ZBT_RC(pq_plain_bytes_decode(bo, 1, (const uint8_t *)"\xff\xff\xff\x7f"
                                                         "ab",
                                 6, &used),
           ZB_ECORRUPT);
    free(b.p);
}

/* ---- DELTA_BINARY_PACKED ---------------------------------------------- */

/* Values whose relative deltas need exactly width w (a random min delta,
 * one delta at the top of the range). */
static void fill_deltas(uint64_t *v, size_t n, unsigned w)
{
    uint64_t min = rnd();

    v[0] = rnd();
    for (size_t i = 1; i < n; i++)
        v[i] = v[i - 1] + min + (i == n / 2 ? mask_of(w) : rnd() & mask_of(w));
}

static void check_delta(const uint64_t *v, size_t n, unsigned bs,
                        unsigned mbc, int junk)
{
    int64_t *out = malloc((n + 1) * sizeof *out);
    uint8_t *p;
    size_t used;
    wbuf b;

    w_init(&b);
    enc_delta(&b, v, n, bs, mbc, junk);
    p = exact(b.p, b.len);
    ZBT_RC(pq_delta_binary_decode(out, n, p, b.len, &used), ZB_OK);
    ZBT_CHECK(memcmp(out, v, n * sizeof *out) == 0);
    ZBT_EQ_INT(used, n ? b.len : 0);
    free(p);
    free(b.p);
    free(out);
}

static void test_parquet_encoding__delta_every_width(void)
{
    static const size_t sizes[] = { 1, 2, 33, 129, 1000 };
    uint64_t *v = malloc(1000 * sizeof *v);

    for (unsigned w = 0; w <= 64; w++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            fill_deltas(v, sizes[s], w);
            check_delta(v, sizes[s], 128, 4, 0);
            check_delta(v, sizes[s], 256, 8, 1);
            check_delta(v, sizes[s], 128, 1, 1);
            check_delta(v, sizes[s], 8, 1, 1);
        }
    }
    free(v);
}

static void test_parquet_encoding__delta_int64_extremes_wrap(void)
{
    uint64_t v[300];
    const uint64_t lo = (uint64_t)1 << 63, hi = lo - 1;

    for (size_t i = 0; i < 300; i++)
        v[i] = i % 3 == 0 ? hi : i % 3 == 1 ? lo : i * 1000003;
    check_delta(v, 300, 128, 4, 1);
    for (size_t i = 0; i < 300; i++)
        v[i] = i % 2 ? lo : hi;             /* deltas +1 and -1: width 1 */
    check_delta(v, 300, 128, 4, 0);
    for (size_t i = 0; i < 300; i++)
        v[i] = lo + i * (hi / 7);           /* wraps past the top */
    check_delta(v, 300, 128, 4, 0);
    /* INT32 range, as INT32 columns carry it */
    for (size_t i = 0; i < 300; i++)
        v[i] = (uint64_t)(int64_t)(i % 2 ? INT32_MIN : INT32_MAX);
    check_delta(v, 300, 128, 4, 0);
    ref64 = v;
    {
        wbuf b;

        w_init(&b);
        enc_delta(&b, v, 300, 128, 4, 1);
        sweep(dec_delta, b.p, b.len, 300);
        free(b.p);
    }
}

static void test_parquet_encoding__delta_hostile_headers(void)
{
    int64_t out[16];
    wbuf b;

    w_init(&b);
    /* a total count far beyond what 8 bytes of blocks could hold */
    w_uleb(&b, 128);
    w_uleb(&b, 4);
    w_uleb(&b, (uint64_t)1 << 60);
    w_uleb(&b, 0);
    w_bytes(&b, "\0\0\0\0\0\0\0\0", 8);
    ZBT_RC(pq_delta_binary_decode(out, 16, b.p, b.len, NULL), ZB_ECORRUPT);
    /* bad shapes: zero block size, miniblock count 0, values per
     * miniblock not a multiple of 8, block size 2^40 */
    static const uint64_t shapes[][2] = {
        { 0, 1 }, { 128, 0 }, { 128, 5 }, { 12, 1 }, { 1ULL << 40, 1 }
    };
    for (size_t s = 0; s < 5; s++) {
        b.len = 0;
        w_uleb(&b, shapes[s][0]);
        w_uleb(&b, shapes[s][1]);
        w_uleb(&b, 2);
        w_uleb(&b, 0);
        w_bytes(&b, "\0\0\0\0\0\0\0\0", 8);
        ZBT_RC(pq_delta_binary_decode(out, 2, b.p, b.len, NULL), ZB_ECORRUPT);
    }
    /* width 65 */
    b.len = 0;
    w_uleb(&b, 128);
    w_uleb(&b, 4);
    w_uleb(&b, 3);
    w_uleb(&b, 0);
    w_uleb(&b, 0);
    w_bytes(&b, "\x41\0\0\0", 4);
    w_bytes(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    ZBT_RC(pq_delta_binary_decode(out, 3, b.p, b.len, NULL), ZB_ECORRUPT);
    /* a byte-array length that is negative */
    {
        uint64_t lens[2] = { 3, (uint64_t)-1 };
        pq_bytes bo[2];
        zb_buf store = ZB_BUF_INIT(64);

        b.len = 0;
        enc_delta(&b, lens, 2, 128, 4, 0);
        w_bytes(&b, "abcdef", 6);
        ZBT_RC(pq_delta_length_decode(bo, 2, b.p, b.len, NULL), ZB_ECORRUPT);
        ZBT_RC(pq_delta_byte_array_decode(bo, 2, b.p, b.len, &store, NULL),
               ZB_ECORRUPT);
        zb_buf_free(&store);
    }
    free(b.p);
}

/* ---- DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY ------------------------- */

static char str_pool[400][40];
static const char *str_ptrs[400];

/* Sorted-ish strings with shared prefixes, some empty. */
static void make_strings(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rnd() % 10 == 0)
            str_pool[i][0] = '\0';
        else
            snprintf(str_pool[i], sizeof str_pool[i], "key/%03u/%s%u",
                     (unsigned)(i / 7), rnd() % 2 ? "long-suffix-" : "",
                     (unsigned)(rnd() % 1000));
        str_ptrs[i] = str_pool[i];
    }
    refstr = str_ptrs;
}

static void test_parquet_encoding__delta_byte_arrays(void)
{
    pq_bytes out[400];
    zb_buf store = ZB_BUF_INIT(1 << 20), small = ZB_BUF_INIT(100);
    size_t used;
    wbuf b;

    make_strings(400);
    w_init(&b);
    enc_dlba(&b, str_ptrs, 400);
    ZBT_RC(pq_delta_length_decode(out, 400, b.p, b.len, &used), ZB_OK);
    ZBT_CHECK(!strs_differ(out, 400));
    ZBT_EQ_INT(used, b.len);
    ZBT_RC(pq_delta_length_decode(out, 399, b.p, b.len, &used),
           ZB_ECORRUPT);   /* the count must match */
    sweep(dec_dlba, b.p, b.len, 400);

    b.len = 0;
    enc_dba(&b, str_ptrs, 400);
    ZBT_RC(pq_delta_byte_array_decode(out, 400, b.p, b.len, &store, &used),
           ZB_OK);
    ZBT_CHECK(!strs_differ(out, 400));
    ZBT_EQ_INT(used, b.len);
    /* the store's cap bounds the result */
    ZBT_RC(pq_delta_byte_array_decode(out, 400, b.p, b.len, &small, &used),
           ZB_ENOMEM);
    /* and an allocation failure is reported */
    zb_buf_free(&store);
    zb_alloc__fail_at(1, 0);
    ZBT_RC(pq_delta_byte_array_decode(out, 400, b.p, b.len, &store, &used),
           ZB_ENOMEM);
    zb_alloc__fail_at(0, 0);
    sweep(dec_dba, b.p, b.len, 400);
    zb_buf_free(&store);
    zb_buf_free(&small);

    /* a prefix longer than the previous value */
    {
        uint64_t pre[2] = { 0, 4 }, sl[2] = { 3, 1 };

        b.len = 0;
        enc_delta(&b, pre, 2, 128, 4, 0);
        enc_delta(&b, sl, 2, 128, 4, 0);
        w_bytes(&b, "abcd", 4);
        ZBT_RC(pq_delta_byte_array_decode(out, 2, b.p, b.len, &store, NULL),
               ZB_ECORRUPT);
        pre[1] = 3;     /* equal to it is fine: "abc" then "abcd" */
        b.len = 0;
        enc_delta(&b, pre, 2, 128, 4, 0);
        enc_delta(&b, sl, 2, 128, 4, 0);
        w_bytes(&b, "abcd", 4);
        ZBT_RC(pq_delta_byte_array_decode(out, 2, b.p, b.len, &store, NULL),
               ZB_OK);
        ZBT_CHECK(out[1].len == 4 && memcmp(out[1].ptr, "abcd", 4) == 0);
        zb_buf_free(&store);
    }
    free(b.p);
}

/* ---- BYTE_STREAM_SPLIT, empty input ----------------------------------- */

static void test_parquet_encoding__byte_stream_split_any_width(void)
{
    uint8_t vals[97 * 17], enc[97 * 17], out[97 * 17];

    for (size_t w = 1; w <= 17; w++) {
        size_t n = 97;
        uint8_t *p;

        for (size_t i = 0; i < n * w; i++)
            vals[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < w; k++)
                enc[k * n + i] = vals[i * w + k];
        p = exact(enc, n * w);
        ZBT_RC(pq_byte_stream_split_decode(out, n, w, p, n * w), ZB_OK);
        ZBT_CHECK(memcmp(out, vals, n * w) == 0);
        ZBT_RC(pq_byte_stream_split_decode(out, n, w, p, n * w - 1),
               ZB_ECORRUPT);
        free(p);
    }
    ZBT_RC(pq_byte_stream_split_decode(out, SIZE_MAX / 2, 4, enc, 16),
           ZB_ECORRUPT);
}

static void test_parquet_encoding__empty_input(void)
{
    uint32_t u[1];
    uint8_t b8[1];
    int64_t i64[1];
    pq_bytes pb[1];
    zb_buf store = ZB_BUF_INIT(16);
    size_t used = 99;

    ZBT_RC(pq_rle_decode(u, 0, NULL, 0, 5, &used), ZB_OK);
    ZBT_EQ_INT(used, 0);
    ZBT_RC(pq_bitpacked_legacy_decode(u, 0, NULL, 0, 5, &used), ZB_OK);
    ZBT_RC(pq_plain_bool_decode(b8, 0, NULL, 0, &used), ZB_OK);
    ZBT_RC(pq_plain_bytes_decode(pb, 0, NULL, 0, &used), ZB_OK);
    ZBT_RC(pq_delta_binary_decode(i64, 0, NULL, 0, &used), ZB_OK);
    ZBT_RC(pq_delta_length_decode(pb, 0, NULL, 0, &used), ZB_OK);
    ZBT_RC(pq_delta_byte_array_decode(pb, 0, NULL, 0, &store, &used), ZB_OK);
    ZBT_RC(pq_byte_stream_split_decode(b8, 0, 4, NULL, 0), ZB_OK);
    ZBT_EQ_INT(used, 0);

    uint8_t *e = exact(NULL, 0);
    ZBT_RC(pq_rle_decode(u, 1, e, 0, 5, &used), ZB_ECORRUPT);
    ZBT_RC(pq_bitpacked_legacy_decode(u, 1, e, 0, 5, &used), ZB_ECORRUPT);
    ZBT_RC(pq_plain_bool_decode(b8, 1, e, 0, &used), ZB_ECORRUPT);
    ZBT_RC(pq_plain_bytes_decode(pb, 1, e, 0, &used), ZB_ECORRUPT);
    ZBT_RC(pq_delta_binary_decode(i64, 1, e, 0, &used), ZB_ECORRUPT);
    ZBT_RC(pq_delta_length_decode(pb, 1, e, 0, &used), ZB_ECORRUPT);
    ZBT_RC(pq_delta_byte_array_decode(pb, 1, e, 0, &store, &used),
           ZB_ECORRUPT);
    ZBT_RC(pq_byte_stream_split_decode(b8, 1, 1, e, 0), ZB_ECORRUPT);
    free(e);
    zb_buf_free(&store);
}

const zbt_case test_parquet_encoding[] = {
    ZBT_CASE(test_parquet_encoding__spec_bitpacking_examples),
    ZBT_CASE(test_parquet_encoding__spec_delta_examples),
    ZBT_CASE(test_parquet_encoding__spec_byte_array_examples),
    ZBT_CASE(test_parquet_encoding__rle_every_width_and_run_kind),
    ZBT_CASE(test_parquet_encoding__rle_edges),
    ZBT_CASE(test_parquet_encoding__rle_truncation_and_corruption),
    ZBT_CASE(test_parquet_encoding__legacy_bitpacked_every_width),
    ZBT_CASE(test_parquet_encoding__plain_bool_and_bytes),
    ZBT_CASE(test_parquet_encoding__delta_every_width),
    ZBT_CASE(test_parquet_encoding__delta_int64_extremes_wrap),
    ZBT_CASE(test_parquet_encoding__delta_hostile_headers),
    ZBT_CASE(test_parquet_encoding__delta_byte_arrays),
    ZBT_CASE(test_parquet_encoding__byte_stream_split_any_width),
    ZBT_CASE(test_parquet_encoding__empty_input),
    ZBT_END
};

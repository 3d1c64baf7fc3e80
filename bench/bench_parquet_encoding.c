/*
 * bench/bench_parquet_encoding.c - decode speed of the hot Parquet
 * encodings: 10 million values of the RLE / bit-packed hybrid at bit
 * widths 1, 7 and 17 (bit-packed runs of random values, the decoder's
 * slow case), and 10 million DELTA_BINARY_PACKED int64 values (block 128,
 * 4 miniblocks, deltas of 20 bits). Each figure is the median of 5 runs,
 * in values per second of the thread's CPU time (the machine is shared).
 *
 * Two shapes: "stream", one call that decodes all the values into one
 * array (bound by memory bandwidth: 40 or 80 MB written), and "paged",
 * the same number of values decoded as pages of 64 Ki values into one
 * reused batch, as a reader does (the output stays in cache).
 *
 * Usage: bench_parquet_encoding [n_values]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/parquet/encoding/pq_encoding.h"

#define RUNS 5

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct out_buf {
    uint8_t *p;
    size_t len;
    unsigned nbits;
} out_buf;

static void put_byte(out_buf *o, uint8_t b)
{
    o->p[o->len++] = b;
}

static void put_uleb(out_buf *o, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;

        v >>= 7;
        put_byte(o, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}

static void put_bits(out_buf *o, uint64_t v, unsigned w)
{
    for (unsigned k = 0; k < w; k++) {
        if (o->nbits == 0)
            put_byte(o, 0);
        o->p[o->len - 1] |= (uint8_t)(((v >> k) & 1) << o->nbits);
        o->nbits = (o->nbits + 1) % 8;
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *t)
{
    qsort(t, RUNS, sizeof *t, cmp_double);
    return t[RUNS / 2];
}

#define PAGE_VALUES 65536

/* Bit-packed runs of 512 values (a typical writer's run length); n is a
 * multiple of 512. page: decode PAGE_VALUES at a time, n in all. */
static void bench_rle(size_t n, unsigned w, int page)
{
    size_t enc_n = page ? PAGE_VALUES : n;
    out_buf o = { malloc(enc_n * 4 + 1024), 0, 0 };
    uint32_t *out = malloc(enc_n * sizeof *out);
    uint64_t check = 0;
    double t[RUNS];

    for (size_t i = 0; i < enc_n; i += 512) {
        put_uleb(&o, (512 / 8) << 1 | 1);
        for (size_t k = 0; k < 512; k++)
            put_bits(&o, rnd() & ((1ULL << w) - 1), w);
        o.nbits = 0;
    }
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();

        for (size_t done = 0; done < n; done += enc_n) {
            if (pq_rle_decode(out, enc_n, o.p, o.len, w, NULL) != 0) {
                fprintf(stderr, "rle decode failed\n");
                exit(1);
            }
            check += out[enc_n / 3];
        }
        t[r] = now_s() - t0;
    }
    printf("rle_hybrid bit_width=%-2u %-6s %8.1f Mvalues/s  (%zu values, "
           "check %llu)\n",
           w, page ? "paged" : "stream", (double)n / median(t) / 1e6, n,
           (unsigned long long)check);
    free(o.p);
    free(out);
}

static void bench_delta(size_t n, int page)
{
    size_t enc_n = page ? PAGE_VALUES : n;
    out_buf o = { malloc(enc_n * 10 + 1024), 0, 0 };
    int64_t *out = malloc(enc_n * sizeof *out);
    uint64_t *rel = malloc(128 * sizeof *rel);
    uint64_t check = 0;
    double t[RUNS];

    put_uleb(&o, 128);
    put_uleb(&o, 4);
    put_uleb(&o, enc_n);
    put_uleb(&o, 1000);     /* zigzag of 500 */
    for (size_t start = 1; start < enc_n; start += 128) {
        size_t cnt = enc_n - start < 128 ? enc_n - start : 128;

        put_uleb(&o, 2 * 1000);     /* min delta 1000 */
        for (int m = 0; m < 4; m++)
            put_byte(&o, 20);
        for (size_t j = 0; j < 128; j++)
            rel[j] = j < cnt ? rnd() & ((1u << 20) - 1) : 0;
        for (int m = 0; m < 4 && (size_t)m * 32 < cnt; m++) {
            for (size_t j = 0; j < 32; j++)
                put_bits(&o, rel[m * 32 + j], 20);
            o.nbits = 0;
        }
    }
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();

        for (size_t done = 0; done < n; done += enc_n) {
            if (pq_delta_binary_decode(out, enc_n, o.p, o.len, NULL) != 0) {
                fprintf(stderr, "delta decode failed\n");
                exit(1);
            }
            check += (uint64_t)out[enc_n - 1];
        }
        t[r] = now_s() - t0;
    }
    printf("delta_binary_packed int64 %-6s %8.1f Mvalues/s  (%zu values, "
           "check %llu)\n",
           page ? "paged" : "stream", (double)n / median(t) / 1e6, n,
           (unsigned long long)check);
    free(o.p);
    free(out);
    free(rel);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 10000000;

    n = (n + PAGE_VALUES - 1) / PAGE_VALUES * PAGE_VALUES;
    for (int page = 0; page <= 1; page++) {
        bench_rle(n, 1, page);
        bench_rle(n, 7, page);
        bench_rle(n, 17, page);
        bench_delta(n, page);
    }
    return 0;
}

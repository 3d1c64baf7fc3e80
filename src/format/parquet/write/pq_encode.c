/*
 * format/parquet/write/pq_encode.c - hybrid RLE / bit-packed encoding (see
 * pq_encode.h and Encodings.md).
 *
 * One pass: at position i, measure the run of equal values. A run of 8 or
 * more becomes an RLE run (header count << 1, then the value in
 * ceil(bit_width / 8) little-endian bytes). Otherwise values are gathered
 * into a bit-packed run of whole groups of 8 (header groups << 1 | 1),
 * packed least significant bit first; the gathering stops at the next
 * long run, but only at a group boundary, and the final group is padded.
 * The two entry points share one body, defined once per value width.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/write/pq_encode.h"
#include "util/err.h"

#define MIN_RLE_RUN 8
/* Runs of at most 63 groups keep the header in one byte, as common
 * writers do; some readers expect no more. */
#define MAX_GROUPS 63

unsigned pq_bit_width(uint32_t max_value)
{
    unsigned w = 0;

    while (max_value) {
        w++;
        max_value >>= 1;
    }
    return w;
}

int pq_put_uleb(zb_buf *out, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;

    do {
        b[n] = (uint8_t)(v & 0x7F);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    return zb_buf_append(out, b, n);
}

/*
 * The encoder's body, once per value width (T: uint16_t or uint32_t), so
 * that reading a value is a load, not a call.
 */
#define DEFINE_ENCODER(NAME, T)                                          \
static size_t NAME##_run(const T *v, size_t i, size_t n)                \
{                                                                        \
    T x = v[i];                                                          \
    size_t j = i + 1;                                                    \
                                                                         \
    while (j < n && v[j] == x)                                           \
        j++;                                                             \
    return j - i;                                                        \
}                                                                        \
                                                                         \
/* Packs groups * 8 values from position i (zero past n). */            \
static int NAME##_packed(zb_buf *out, const T *v, size_t i, size_t n,   \
                         size_t groups, unsigned bit_width)              \
{                                                                        \
    size_t bytes = groups * bit_width, k, count = groups * 8;            \
    uint64_t acc = 0;                                                    \
    unsigned have = 0;                                                   \
    uint8_t *p;                                                          \
    int rc;                                                              \
                                                                         \
    if ((rc = pq_put_uleb(out, (uint64_t)groups << 1 | 1)) < 0 ||        \
        (rc = zb_buf_reserve(out, bytes)) < 0)                           \
        return rc;                                                       \
    p = (uint8_t *)out->ptr + out->len;                                  \
    for (k = 0; k < count; k++) {                                        \
        uint64_t x = i + k < n ? v[i + k] : 0;                           \
        acc |= x << have;                                                \
        have += bit_width;                                               \
        while (have >= 8) {                                              \
            *p++ = (uint8_t)acc;                                         \
            acc >>= 8;                                                   \
            have -= 8;                                                   \
        }                                                                \
    }                                                                    \
    out->len += bytes;                                                   \
    out->ptr[out->len] = '\0';                                          \
    return ZB_OK;                                                        \
}                                                                        \
                                                                         \
static int NAME(zb_buf *out, const T *v, size_t n, unsigned bit_width)  \
{                                                                        \
    size_t i = 0;                                                        \
    int rc;                                                              \
                                                                         \
    if (bit_width > 32)                                                  \
        return ZB_EINVAL;                                                \
    while (i < n) {                                                      \
        size_t run = NAME##_run(v, i, n), start, groups;                 \
                                                                         \
        if (run >= MIN_RLE_RUN || bit_width == 0) {                      \
            if ((rc = put_rle_run(out, v[i], run, bit_width)) < 0)       \
                return rc;                                               \
            i += run;                                                    \
            continue;                                                    \
        }                                                                \
        /* Literal groups until a long run starts on a group boundary. */\
        start = i;                                                       \
        groups = 0;                                                      \
        do {                                                             \
            i = start + (groups + 1) * 8;                                \
            groups++;                                                    \
        } while (i < n && groups < MAX_GROUPS &&                         \
                 NAME##_run(v, i, n) < MIN_RLE_RUN);                     \
        if ((rc = NAME##_packed(out, v, start, n, groups,                \
                                bit_width)) < 0)                         \
            return rc;                                                   \
        if (i > n)                                                       \
            i = n;                                                       \
    }                                                                    \
    return ZB_OK;                                                        \
}

static int put_rle_run(zb_buf *out, uint32_t value, size_t count,
                       unsigned bit_width)
{
    uint8_t b[4];
    size_t nbytes = (bit_width + 7) / 8, k;
    int rc;

    if ((rc = pq_put_uleb(out, (uint64_t)count << 1)) < 0)
        return rc;
    for (k = 0; k < nbytes; k++)
        b[k] = (uint8_t)(value >> (8 * k));
    return zb_buf_append(out, b, nbytes);
}

DEFINE_ENCODER(encode16, uint16_t)
DEFINE_ENCODER(encode32, uint32_t)

int pq_rle_encode(zb_buf *out, const uint16_t *values, size_t n,
                  unsigned bit_width)
{
    return encode16(out, values, n, bit_width);
}

int pq_rle_encode32(zb_buf *out, const uint32_t *values, size_t n,
                    unsigned bit_width)
{
    return encode32(out, values, n, bit_width);
}

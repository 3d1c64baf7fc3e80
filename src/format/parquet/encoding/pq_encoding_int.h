/*
 * format/parquet/encoding/pq_encoding_int.h - private to the encoding part: the
 * bit-unpacking kernels (pq_bitpack.c) that the RLE hybrid (pq_encoding.c)
 * and DELTA_BINARY_PACKED (pq_delta.c) share, and the ULEB128 reader.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_ENCODING_INT_H
#define ZB_FORMAT_PARQUET_PQ_ENCODING_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Unpacks groups of 8 values of bit width w (0..32), packed least
 * significant bit first, from in[0..avail) into out[0..8 * groups). The
 * caller guarantees groups * w <= avail; no byte at or past in + avail is
 * read.
 */
void pq_enc__unpack32(uint32_t *out, const uint8_t *in, size_t avail,
                      size_t groups, unsigned w);

/*
 * The same for w in 0..64, fused with DELTA_BINARY_PACKED's running sum:
 * out[i] = acc + (i + 1) * min + packed[0] + ... + packed[i], modulo 2^64.
 * Returns the last value (the acc of the next call).
 */
uint64_t pq_enc__delta64(uint64_t *out, const uint8_t *in, size_t avail,
                         size_t groups, unsigned w, uint64_t acc,
                         uint64_t min);

/*
 * Reads a ULEB128 varint of at most 64 bits from buf[*pos..len) and moves
 * *pos past it. ZB_ECORRUPT if it runs off the end or overflows 64 bits.
 */
static inline int pq_enc__uleb(uint64_t *out, const uint8_t *buf, size_t len,
                               size_t *pos)
{
    uint64_t v = 0;
    size_t p = *pos;
    unsigned shift = 0;

    if (p < len && buf[p] < 0x80) {     /* the common one-byte case */
        *out = buf[p];
        *pos = p + 1;
        return ZB_OK;
    }
    for (;;) {
        uint8_t b;

        if (p >= len)
            return ZB_ECORRUPT;
        b = buf[p++];
        if (shift == 63 && b > 1)       /* bits past the 64th */
            return ZB_ECORRUPT;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80)
            break;
        shift += 7;
        if (shift > 63)
            return ZB_ECORRUPT;
    }
    *out = v;
    *pos = p;
    return ZB_OK;
}

/* Zigzag decoding, in the unsigned domain (two's complement result). */
static inline uint64_t pq_enc__unzigzag(uint64_t u)
{
    return (u >> 1) ^ (0 - (u & 1));
}

#endif

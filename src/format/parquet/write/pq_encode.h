/*
 * format/parquet/write/pq_encode.h - the encoders the writer needs: the
 * RLE / bit-packed hybrid (levels, dictionary indices) and PLAIN values.
 * Each appends to a zb_buf and returns ZB_OK or ZB_ENOMEM (the buffer's
 * cap or an allocation).
 */
#ifndef ZB_FORMAT_PARQUET_PQ_ENCODE_H
#define ZB_FORMAT_PARQUET_PQ_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Number of bits needed for values up to max_value (0 for 0). */
unsigned pq_bit_width(uint32_t max_value);

/*
 * RLE / bit-packed hybrid of n values of bit_width bits (no length
 * prefix): runs of 8 or more equal values as RLE runs, the rest in
 * bit-packed groups of 8, the last group padded with zeros.
 */
int pq_rle_encode(zb_buf *out, const uint16_t *values, size_t n,
                  unsigned bit_width);

/* Same, for 32-bit values (dictionary indices). */
int pq_rle_encode32(zb_buf *out, const uint32_t *values, size_t n,
                    unsigned bit_width);

/* ULEB128 varint. */
int pq_put_uleb(zb_buf *out, uint64_t v);

#endif

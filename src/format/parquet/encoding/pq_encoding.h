/*
 * format/parquet/encoding/pq_encoding.h - the value and level encodings of
 * Encodings.md, as pure functions over a byte range.
 *
 * Each decoder reads exactly n values from buf[0..len), never reads
 * outside that range, and returns ZB_OK, ZB_ECORRUPT (the input ends early
 * or is malformed), or ZB_ENOMEM. They take no zb_ctx: the caller knows
 * the file, column and offset and writes the message. *used_out (may be
 * NULL) receives how many bytes of buf the n values took.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_ENCODING_H
#define ZB_FORMAT_PARQUET_PQ_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* A byte-array value: a view into a page or into a decoder's store. */
typedef struct pq_bytes {
    const uint8_t *ptr;
    uint32_t len;
} pq_bytes;

/* RLE / bit-packed hybrid, values of bit_width 0..32 (levels, dictionary
 * indices, v2 booleans). No length prefix: the caller strips it. */
int pq_rle_decode(uint32_t *out, size_t n, const uint8_t *buf, size_t len,
                  unsigned bit_width, size_t *used_out);

/* The deprecated BIT_PACKED level encoding (most significant bit first). */
int pq_bitpacked_legacy_decode(uint32_t *out, size_t n, const uint8_t *buf,
                               size_t len, unsigned bit_width,
                               size_t *used_out);

/* PLAIN BOOLEAN: one bit per value, least significant bit first. */
int pq_plain_bool_decode(uint8_t *out, size_t n, const uint8_t *buf,
                         size_t len, size_t *used_out);

/* PLAIN BYTE_ARRAY: 4-byte little-endian length, then the bytes. */
int pq_plain_bytes_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                          size_t len, size_t *used_out);

/* DELTA_BINARY_PACKED, into 64-bit values (INT32 columns narrow them).
 * Arithmetic wraps as the specification requires. */
int pq_delta_binary_decode(int64_t *out, size_t n, const uint8_t *buf,
                           size_t len, size_t *used_out);

/* DELTA_LENGTH_BYTE_ARRAY: views into buf. */
int pq_delta_length_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                           size_t len, size_t *used_out);

/* DELTA_BYTE_ARRAY (prefix lengths + suffixes). Values are rebuilt into
 * store (appended; its cap bounds the memory) and the views point into
 * store->ptr, valid until store changes again. */
int pq_delta_byte_array_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                               size_t len, zb_buf *store, size_t *used_out);

/* BYTE_STREAM_SPLIT: n values of width bytes each, into out (n * width). */
int pq_byte_stream_split_decode(uint8_t *out, size_t n, size_t width,
                                const uint8_t *buf, size_t len);

#endif

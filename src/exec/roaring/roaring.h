/*
 * exec/roaring/roaring.h - 64-bit Roaring bitmaps of row positions, and the
 * deletion-vector blob that carries one.
 *
 * A zb_roaring is a set of uint64 values kept as Roaring containers: the
 * value's high 48 bits select a container, its low 16 bits are stored in
 * it as a sorted array (up to 4096 values), a 65536-bit bitmap, or sorted
 * runs. It is built by adding values in any order, or by deserializing.
 *
 * Serialized form: the "portable" 64-bit Roaring format, as CRoaring,
 * RoaringBitmap (Java) and Iceberg write it:
 *
 *     u64 LE  count of 32-bit bitmaps
 *     count x { u32 LE key (high 32 bits), 32-bit portable bitmap }
 *
 * with keys strictly ascending. The 32-bit portable bitmap is the one of
 * the RoaringFormatSpec: cookie 12346 (no run containers; a u32 container
 * count follows) or 12347 in the low 16 bits (container count - 1 in the
 * high 16 bits, then a bitset marking run containers); (key, cardinality
 * - 1) u16 pairs; an offset header of u32 per container (always with
 * 12346, with 12347 only from 4 containers); then the containers: arrays
 * of u16, bitmaps of 1024 u64, runs as u16 count + (start, length - 1).
 * All integers little-endian.
 *
 * Deserialization takes untrusted bytes and validates everything before
 * it is used: lengths against the input, keys strictly ascending, array
 * values strictly ascending, bitmap popcounts and run lengths equal to the
 * declared cardinalities, runs sorted, disjoint and inside 0..65535,
 * offsets equal to where each container really starts, an array container
 * never above 4096 values nor a bitmap container at or below. Any failure
 * is ZB_ECORRUPT with a message that names the byte offset and what was
 * wrong. Containers are kept in the kind they were written in (runs are
 * never expanded), so memory is the serialized size plus 32 to 64 bytes
 * of bookkeeping per container: at most about 7 times the input (a
 * 10-byte container of one value), about 1 time for real deletion vectors
 * (zb_roaring_mem_bytes says exactly). A caller may reserve from the
 * budget by blob size before reading.
 *
 * Serialization writes cookie 12347 when any container is best stored as
 * runs (and 12346 otherwise), choosing for each container the smallest of
 * array, bitmap and run (runs on a tie), as CRoaring's run optimisation
 * does: the bytes equal CRoaring's for the same set.
 *
 * Deletion vectors (Puffin blob type "deletion-vector-v1"):
 *
 *     u32 BE  length of magic + bitmap
 *     D1 D3 39 64 (magic)
 *     64-bit portable bitmap (above)
 *     u32 BE  CRC-32 (zlib's polynomial) of magic + bitmap
 *
 * A DV holds row positions, which are non-negative int64: zb_dv_parse
 * refuses any value at or above 2^63.
 *
 * A zb_roaring is not thread-safe for writing; concurrent readers of a
 * finished one are fine (iterators are the callers').
 */
#ifndef ZB_EXEC_ROARING_H
#define ZB_EXEC_ROARING_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"
#include "util/buf.h"

typedef struct zb_roaring zb_roaring;

/* An empty set. Returns ZB_OK or ZB_ENOMEM. */
int zb_roaring_new(zb_roaring **out);

/* NULL is fine. */
void zb_roaring_free(zb_roaring *r);

/*
 * Adds value (present already: no change). Values may come in any order;
 * ascending order is fastest. Returns ZB_OK or ZB_ENOMEM (set unchanged).
 */
int zb_roaring_add(zb_roaring *r, uint64_t value);

/* Adds values [start, end) (end > start). ZB_OK or ZB_ENOMEM. */
int zb_roaring_add_range(zb_roaring *r, uint64_t start, uint64_t end);

/* Non-zero when value is in the set. */
int zb_roaring_contains(const zb_roaring *r, uint64_t value);

/* Number of values. */
uint64_t zb_roaring_cardinality(const zb_roaring *r);

/* Smallest and largest value; 0 when the set is empty. */
uint64_t zb_roaring_min(const zb_roaring *r);
uint64_t zb_roaring_max(const zb_roaring *r);

/* Bytes of heap the set holds (for budget reservations). */
uint64_t zb_roaring_mem_bytes(const zb_roaring *r);

/*
 * Ascending iteration. The iterator lives in the caller's memory and
 * borrows the set, which must not change while it is used:
 *
 *     zb_roaring_iter it;
 *     uint64_t v;
 *     zb_roaring_iter_init(&it, r);
 *     zb_roaring_iter_seek(&it, batch_first_row);      optional
 *     while (zb_roaring_iter_next(&it, &v) && v < batch_end) ...
 *
 * A value read past the wanted range is not lost: zb_roaring_iter_peek
 * shows the next value without consuming it.
 */
typedef struct zb_roaring_iter {
    const zb_roaring *r;
    size_t container;       /* index of the current container */
    uint32_t pos;           /* position inside it (array index, bit, run) */
    uint32_t run_off;       /* offset inside the current run */
} zb_roaring_iter;

void zb_roaring_iter_init(zb_roaring_iter *it, const zb_roaring *r);

/* Stores the next value in *value and returns 1, or returns 0 at the end. */
int zb_roaring_iter_next(zb_roaring_iter *it, uint64_t *value);

/* Like next, without advancing. */
int zb_roaring_iter_peek(const zb_roaring_iter *it, uint64_t *value);

/* Skips forward to the first value >= target (never moves backwards). */
void zb_roaring_iter_seek(zb_roaring_iter *it, uint64_t target);

/*
 * Reads up to max values into out, ascending; returns how many (0 at the
 * end). The fast path for walking a whole set.
 */
size_t zb_roaring_iter_read(zb_roaring_iter *it, uint64_t *out, size_t max);

/*
 * Parses a 64-bit portable bitmap from data[0..len) into a new set. The
 * whole input must be used: trailing bytes are ZB_ECORRUPT. Returns ZB_OK,
 * ZB_ECORRUPT (message in ctx) or ZB_ENOMEM.
 */
int zb_roaring_deserialize(zb_roaring **out, zb_ctx *ctx, const void *data,
                           size_t len);

/* Exact size of the 64-bit portable serialization of r. */
size_t zb_roaring_serialized_size(const zb_roaring *r);

/* Appends the 64-bit portable serialization of r to out. ZB_ENOMEM. */
int zb_roaring_serialize(const zb_roaring *r, zb_buf *out);

/*
 * Deletion-vector blobs. zb_dv_parse checks the length field against len
 * (they must agree exactly), the magic and the CRC, then deserializes the
 * bitmap; errors are ZB_ECORRUPT naming what failed. zb_dv_build appends
 * the blob for r to out (ZB_ENOMEM, or ZB_EINVAL when a value is >= 2^63
 * or the bitmap exceeds the u32 length field).
 */
int zb_dv_parse(zb_roaring **out, zb_ctx *ctx, const void *blob, size_t len);
int zb_dv_build(zb_buf *out, zb_ctx *ctx, const zb_roaring *r);

#define ZB_DV_MAGIC_0 0xD1
#define ZB_DV_MAGIC_1 0xD3
#define ZB_DV_MAGIC_2 0x39
#define ZB_DV_MAGIC_3 0x64

/* CRC-32 (the polynomial of zlib, gzip and PNG), continuing from crc. */
uint32_t zb_crc32(uint32_t crc, const void *data, size_t len);

#endif

/*
 * exec/sort/sortkey.h - normalized sort keys: per row, a byte string whose
 * memcmp order (shorter first when one is a prefix of the other) is the
 * row order asked for. Sorting and merging then compare bytes only.
 *
 * Lexical keys (ZB_SORTKEY_LEXICAL), per sort column in order:
 *
 *   marker  one byte: nulls first: null 0x00, value 0x01;
 *           nulls last: value 0x01, null 0x02. A null row has no value
 *           bytes. A field inside a struct is null when any enclosing
 *           struct is null at that row. Direction never moves nulls.
 *   value   ascending bytes, every byte inverted for a descending column:
 *     b                       0x00 / 0x01
 *     c s i l, tdD tdm, tt*, ts*, tD*  big-endian with the sign bit
 *                             flipped (width of the type)
 *     C S I L                 big-endian
 *     e f g                   IEEE total order: sign bit set -> all bits
 *                             inverted, else sign bit flipped, then
 *                             big-endian. Every NaN is first made the
 *                             positive quiet NaN, so NaN sorts after
 *                             +inf (ascending) as Java's Double.compare,
 *                             and so Iceberg and Spark, order it; -0.0
 *                             sorts before 0.0 (Iceberg's sort spec).
 *     d:P,S (128-bit)         16 bytes big-endian, sign bit flipped (one
 *                             column has one scale, so unscaled order is
 *                             value order)
 *     u z U Z                 the bytes with each 0x00 written 0x00 0xFF,
 *                             then the terminator 0x00 0x00: prefix-free,
 *                             and a string sorts before its extensions
 *     w:N                     the N bytes
 *     tiM tiD tin             each signed component, as integers above
 *     n                       always null
 *   Lists, maps and structs themselves cannot be sort columns.
 *
 * Z-order keys (ZB_SORTKEY_ZORDER): for N columns (2..16) and b
 * precision bits (1..32, N * b <= 62), each value is mapped to an
 * order-preserving b-bit unsigned integer: the top b bits of its
 * normalized 64-bit value v64:
 *     null                 0
 *     u z U Z w:N          the first 8 bytes of the value, big-endian,
 *                          0-padded ("ab" -> 0x6162000000000000)
 *     d:P,S                the unscaled value clamped to the int64 range,
 *                          then as an int64 below
 *     every other type     its ascending key bytes above, left-aligned
 *                          and 0-padded (at most the first 8): int32 x ->
 *                          ((uint32)x ^ 1u << 31) << 32; int64 x ->
 *                          (uint64)x ^ 1 << 63; double -> its total-order
 *                          bits; float -> its 32 total-order bits << 32;
 *                          boolean true -> 1 << 56
 * then Morton-interleaved, most significant first: bit k of the key
 * (counted from bit N*b-1 down to 0) is bit b-1-(j/N) of column j%N,
 * where j = N*b-1-k; that is, the top bit of column 0, the top bit of
 * column 1, ..., the top bit of column N-1, the next bit of column 0...
 * The key is that N*b-bit integer, right-aligned, as 8 big-endian bytes.
 * Direction and nulls order do not apply to z-order.
 */
#ifndef ZB_EXEC_SORTKEY_H
#define ZB_EXEC_SORTKEY_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"
#include "exec/arrow/arrow.h"

#define ZB_SORTKEY_MAX_DEPTH 8
#define ZB_ZORDER_MAX_COLS 16

typedef struct zb_sort_col {
    int path[ZB_SORTKEY_MAX_DEPTH]; /* child indices from the root struct */
    int depth;                      /* path entries used, >= 1 */
    int descending;                 /* 0 ascending */
    int nulls_first;                /* 0 nulls last */
} zb_sort_col;

typedef enum zb_sortkey_mode {
    ZB_SORTKEY_LEXICAL = 0,
    ZB_SORTKEY_ZORDER = 1
} zb_sortkey_mode;

typedef struct zb_sortkey_spec {
    zb_sortkey_mode mode;
    const zb_sort_col *cols;        /* borrowed; copied by zb_sortkey_new */
    size_t ncols;                   /* lexical >= 1; z-order 2..16 */
    unsigned zorder_bits;           /* z-order: 1..32, ncols * bits <= 62 */
} zb_sortkey_spec;

/* A spec resolved against a schema. */
typedef struct zb_sortkey zb_sortkey;

/*
 * Resolves spec against schema (a struct, "+s"). Returns ZB_OK,
 * ZB_EINVAL (a bad path, a column that is a list/map/struct, bad z-order
 * bits; the message names the column) or ZB_ENOMEM.
 */
int zb_sortkey_new(zb_sortkey **out, zb_ctx *ctx, const zb_sortkey_spec *spec,
                   const struct ArrowSchema *schema);
void zb_sortkey_free(zb_sortkey *k);

/* Keys of rows: key i is data[offs[i] .. offs[i + 1]). */
typedef struct zb_keybuf {
    uint8_t *data;
    uint64_t *offs;          /* nkeys + 1 entries once a key is built */
    size_t nkeys;
    size_t len, cap;         /* bytes of data used and allocated */
    size_t offs_cap;
} zb_keybuf;

#define ZB_KEYBUF_INIT { NULL, NULL, 0, 0, 0, 0 }

/*
 * Appends the keys of every row of batch (a struct array of the schema
 * given to zb_sortkey_new; offsets honored) to kb. Returns ZB_OK or
 * ZB_ENOMEM (kb holds what it held before).
 */
int zb_sortkey_build(zb_keybuf *kb, zb_ctx *ctx, const zb_sortkey *k,
                     const struct ArrowArray *batch);

/* Empties kb, keeping its memory; frees it. */
void zb_keybuf_clear(zb_keybuf *kb);
void zb_keybuf_free(zb_keybuf *kb);

/*
 * Makes room for nkeys more keys of key_bytes bytes in all, so that a
 * build of that size does not reallocate. ZB_OK or ZB_ENOMEM.
 */
int zb_keybuf_reserve(zb_keybuf *kb, size_t nkeys, size_t key_bytes);

/* Gives back the unused capacity of kb (keys that are kept a while). */
void zb_keybuf_shrink(zb_keybuf *kb);

/* Bytes kb holds allocated. */
size_t zb_keybuf_bytes(const zb_keybuf *kb);

/*
 * Morton interleave of n values of bits bits each (see above), for tests
 * and callers that build z-values themselves.
 */
uint64_t zb_zorder_interleave(const uint32_t *vals, unsigned n,
                              unsigned bits);

/* Memcmp order of two keys: negative, 0 or positive. */
int zb_sortkey_cmp(const uint8_t *a, size_t alen, const uint8_t *b,
                   size_t blen);

#endif

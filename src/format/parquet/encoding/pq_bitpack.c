/*
 * format/parquet/encoding/pq_bitpack.c - the bit-unpacking kernels behind the
 * RLE hybrid and DELTA_BINARY_PACKED (see pq_encoding_int.h).
 *
 * Both encodings pack values least significant bit first in groups of 8,
 * so a group of width w is exactly w bytes and value i of a group starts
 * at bit i * w. There is one kernel per width, each a loop over groups
 * that calls unpack8_32()/delta8() with w a compile-time constant:
 * every shift and byte offset folds to a constant and the 8 values are
 * unrolled by hand, so the kernel is straight-line loads, shifts and masks
 * with no per-value branch (the function-pointer dispatch happens once per
 * run, not per value). The delta kernels add DELTA_BINARY_PACKED's running
 * sum to the same loop, so the deltas never go through memory.
 *
 * Value i is taken from one unaligned 64-bit little-endian load at byte
 * (i * w) / 8, shifted right by (i * w) % 8. That load may read up to
 * PQ_SLACK bytes past the group, so the fast loop runs only over groups
 * that have that much input after them; the last few groups of a buffer
 * are copied into a zeroed local block first. Widths up to 8 need only
 * one load per group. Widths above 57 can straddle 9 bytes; the ninth
 * byte is or-ed in (only delta's 58..64 take that path).
 */
#include <string.h>

#include "format/parquet/encoding/pq_encoding_int.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

/* Bytes a kernel may read past the start of its last group, minus w. */
#define PQ_SLACK 16

static PQ_ALWAYS_INLINE uint64_t load64le(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static PQ_ALWAYS_INLINE uint64_t width_mask(unsigned w)
{
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* Value i of a group of width w (1..64) starting at in. */
static PQ_ALWAYS_INLINE uint64_t unpack_one(const uint8_t *in, unsigned i,
                                            unsigned w, uint64_t first_word)
{
    unsigned bit = i * w;
    unsigned s = bit & 7;
    const uint8_t *p = in + (bit >> 3);
    uint64_t v;

    if (w <= 8)         /* the whole group is in the first word */
        return (first_word >> bit) & width_mask(w);
    v = load64le(p) >> s;
    if (w + s > 64)     /* w > 57 only; then s >= 1 */
        v |= (uint64_t)p[8] << (64 - s);
    return v & width_mask(w);
}

static PQ_ALWAYS_INLINE void unpack8_32(uint32_t *out, const uint8_t *in,
                                        unsigned w)
{
    uint64_t first = w <= 8 ? load64le(in) : 0;

    out[0] = (uint32_t)unpack_one(in, 0, w, first);
    out[1] = (uint32_t)unpack_one(in, 1, w, first);
    out[2] = (uint32_t)unpack_one(in, 2, w, first);
    out[3] = (uint32_t)unpack_one(in, 3, w, first);
    out[4] = (uint32_t)unpack_one(in, 4, w, first);
    out[5] = (uint32_t)unpack_one(in, 5, w, first);
    out[6] = (uint32_t)unpack_one(in, 6, w, first);
    out[7] = (uint32_t)unpack_one(in, 7, w, first);
}

/* One group of DELTA_BINARY_PACKED: acc += min + packed, each stored.
 * Unrolled by hand: gcc -O2 keeps an 8-trip loop otherwise. */
static PQ_ALWAYS_INLINE uint64_t delta8(uint64_t *out, const uint8_t *in,
                                        unsigned w, uint64_t acc,
                                        uint64_t min)
{
    uint64_t first = w <= 8 ? load64le(in) : 0;

#define PQ_DSTEP(i)                                                         \
    acc += min + unpack_one(in, (i), w, first);                             \
    out[i] = acc
    PQ_DSTEP(0);
    PQ_DSTEP(1);
    PQ_DSTEP(2);
    PQ_DSTEP(3);
    PQ_DSTEP(4);
    PQ_DSTEP(5);
    PQ_DSTEP(6);
    PQ_DSTEP(7);
#undef PQ_DSTEP
    return acc;
}

typedef void (*unpack32_fn)(uint32_t *out, const uint8_t *in, size_t groups);
typedef uint64_t (*delta_fn)(uint64_t *out, const uint8_t *in, size_t groups,
                             uint64_t acc, uint64_t min);

static void unpack32_w0(uint32_t *out, const uint8_t *in, size_t groups)
{
    (void)in;
    if (groups)
        memset(out, 0, groups * 8 * sizeof *out);
}

static uint64_t delta_w0(uint64_t *out, const uint8_t *in, size_t groups,
                         uint64_t acc, uint64_t min)
{
    (void)in;
    for (size_t i = 0; i < groups * 8; i++) {
        acc += min;
        out[i] = acc;
    }
    return acc;
}

#define PQ_KERNELS(W)                                                       \
    static void unpack32_w##W(uint32_t *out, const uint8_t *in,             \
                              size_t groups)                                \
    {                                                                       \
        for (size_t g = 0; g < groups; g++, in += (W), out += 8)            \
            unpack8_32(out, in, (W));                                       \
    }                                                                       \
    PQ_DELTA_KERNEL(W)

#define PQ_DELTA_KERNEL(W)                                                  \
    static uint64_t delta_w##W(uint64_t *out, const uint8_t *in,            \
                               size_t groups, uint64_t acc, uint64_t min)   \
    {                                                                       \
        for (size_t g = 0; g < groups; g++, in += (W), out += 8)            \
            acc = delta8(out, in, (W), acc, min);                           \
        return acc;                                                         \
    }

/* clang-format off */
PQ_KERNELS(1) PQ_KERNELS(2) PQ_KERNELS(3) PQ_KERNELS(4)
PQ_KERNELS(5) PQ_KERNELS(6) PQ_KERNELS(7) PQ_KERNELS(8)
PQ_KERNELS(9) PQ_KERNELS(10) PQ_KERNELS(11) PQ_KERNELS(12)
PQ_KERNELS(13) PQ_KERNELS(14) PQ_KERNELS(15) PQ_KERNELS(16)
PQ_KERNELS(17) PQ_KERNELS(18) PQ_KERNELS(19) PQ_KERNELS(20)
PQ_KERNELS(21) PQ_KERNELS(22) PQ_KERNELS(23) PQ_KERNELS(24)
PQ_KERNELS(25) PQ_KERNELS(26) PQ_KERNELS(27) PQ_KERNELS(28)
PQ_KERNELS(29) PQ_KERNELS(30) PQ_KERNELS(31) PQ_KERNELS(32)
PQ_DELTA_KERNEL(33) PQ_DELTA_KERNEL(34) PQ_DELTA_KERNEL(35)
PQ_DELTA_KERNEL(36) PQ_DELTA_KERNEL(37) PQ_DELTA_KERNEL(38)
PQ_DELTA_KERNEL(39) PQ_DELTA_KERNEL(40) PQ_DELTA_KERNEL(41)
PQ_DELTA_KERNEL(42) PQ_DELTA_KERNEL(43) PQ_DELTA_KERNEL(44)
PQ_DELTA_KERNEL(45) PQ_DELTA_KERNEL(46) PQ_DELTA_KERNEL(47)
PQ_DELTA_KERNEL(48) PQ_DELTA_KERNEL(49) PQ_DELTA_KERNEL(50)
PQ_DELTA_KERNEL(51) PQ_DELTA_KERNEL(52) PQ_DELTA_KERNEL(53)
PQ_DELTA_KERNEL(54) PQ_DELTA_KERNEL(55) PQ_DELTA_KERNEL(56)
PQ_DELTA_KERNEL(57) PQ_DELTA_KERNEL(58) PQ_DELTA_KERNEL(59)
PQ_DELTA_KERNEL(60) PQ_DELTA_KERNEL(61) PQ_DELTA_KERNEL(62)
PQ_DELTA_KERNEL(63) PQ_DELTA_KERNEL(64)

static const unpack32_fn unpack32_tab[33] = {
    unpack32_w0,  unpack32_w1,  unpack32_w2,  unpack32_w3,  unpack32_w4,
    unpack32_w5,  unpack32_w6,  unpack32_w7,  unpack32_w8,  unpack32_w9,
    unpack32_w10, unpack32_w11, unpack32_w12, unpack32_w13, unpack32_w14,
    unpack32_w15, unpack32_w16, unpack32_w17, unpack32_w18, unpack32_w19,
    unpack32_w20, unpack32_w21, unpack32_w22, unpack32_w23, unpack32_w24,
    unpack32_w25, unpack32_w26, unpack32_w27, unpack32_w28, unpack32_w29,
    unpack32_w30, unpack32_w31, unpack32_w32,
};

static const delta_fn delta_tab[65] = {
    delta_w0, delta_w1, delta_w2, delta_w3, delta_w4, delta_w5, delta_w6,
    delta_w7, delta_w8, delta_w9, delta_w10, delta_w11, delta_w12, delta_w13,
    delta_w14, delta_w15, delta_w16, delta_w17, delta_w18, delta_w19,
    delta_w20, delta_w21, delta_w22, delta_w23, delta_w24, delta_w25,
    delta_w26, delta_w27, delta_w28, delta_w29, delta_w30, delta_w31,
    delta_w32, delta_w33, delta_w34, delta_w35, delta_w36, delta_w37,
    delta_w38, delta_w39, delta_w40, delta_w41, delta_w42, delta_w43,
    delta_w44, delta_w45, delta_w46, delta_w47, delta_w48, delta_w49,
    delta_w50, delta_w51, delta_w52, delta_w53, delta_w54, delta_w55,
    delta_w56, delta_w57, delta_w58, delta_w59, delta_w60, delta_w61,
    delta_w62, delta_w63, delta_w64,
};
/* clang-format on */

/* How many of groups can be unpacked in place: those whose start has at
 * least w + PQ_SLACK bytes of input after it. */
static size_t fast_groups(size_t avail, size_t groups, unsigned w)
{
    size_t fast;

    if (w == 0)
        return groups;
    if (avail < w + PQ_SLACK)
        return 0;
    fast = (avail - w - PQ_SLACK) / w + 1;
    return fast < groups ? fast : groups;
}

void pq_enc__unpack32(uint32_t *out, const uint8_t *in, size_t avail,
                      size_t groups, unsigned w)
{
    size_t fast = fast_groups(avail, groups, w);
    uint8_t tail[32 + PQ_SLACK];

    unpack32_tab[w](out, in, fast);
    for (size_t g = fast; g < groups; g++) {
        memset(tail, 0, sizeof tail);
        memcpy(tail, in + g * w, w);
        unpack32_tab[w](out + g * 8, tail, 1);
    }
}

uint64_t pq_enc__delta64(uint64_t *out, const uint8_t *in, size_t avail,
                         size_t groups, unsigned w, uint64_t acc,
                         uint64_t min)
{
    size_t fast = fast_groups(avail, groups, w);
    uint8_t tail[64 + PQ_SLACK];

    acc = delta_tab[w](out, in, fast, acc, min);
    for (size_t g = fast; g < groups; g++) {
        memset(tail, 0, sizeof tail);
        memcpy(tail, in + g * w, w);
        acc = delta_tab[w](out + g * 8, tail, 1, acc, min);
    }
    return acc;
}

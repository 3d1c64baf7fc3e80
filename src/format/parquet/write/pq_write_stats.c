/*
 * format/parquet/write/pq_write_stats.c - the writer's column-chunk statistics:
 * min and max under the type-defined order of each physical and logical
 * type (signed and unsigned integers, floats without NaN and with -0 as
 * the minimum and +0 as the maximum, byte strings unsigned, decimals in
 * big-endian bytes signed), and the null count kept by the caller.
 */
#include <math.h>
#include <string.h>

#include "format/parquet/write/pq_writer_int.h"


static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = memcmp(a, b, n);

    return c ? c : (al > bl) - (al < bl);
}

/* Signed big-endian two's complement of equal lengths. */
static int cmp_signed_be(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n && (a[0] ^ b[0]) & 0x80)
        return (a[0] & 0x80) ? -1 : 1;
    return memcmp(a, b, n);
}

int pq_write_stats__cmp(pw_order order, const uint8_t *a, size_t al,
                        const uint8_t *b, size_t bl)
{
    switch (order) {
    case PW_ORDER_BOOL: return (a[0] > b[0]) - (a[0] < b[0]);
    case PW_ORDER_I32: {
        int32_t x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PW_ORDER_U32: {
        uint32_t x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PW_ORDER_I64: {
        int64_t x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PW_ORDER_U64: {
        uint64_t x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PW_ORDER_FLOAT: {
        float x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PW_ORDER_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PW_ORDER_SIGNED_BE:
        return cmp_signed_be(a, b, al);
    default:
        return cmp_bytes(a, al, b, bl);
    }
}

void pq_write_stats_update(stats *s, pw_order order, const uint8_t *v,
                           size_t len)
{
    uint8_t lo[8], hi[8];
    const uint8_t *vmin = v, *vmax = v;

    if (len > STAT_MAX_BYTES) {
        s->skip_bounds = 1;
        return;
    }
    if (order == PW_ORDER_FLOAT || order == PW_ORDER_DOUBLE) {
        double d;
        if (order == PW_ORDER_FLOAT) {
            float f;
            memcpy(&f, v, 4);
            d = f;
        } else {
            memcpy(&d, v, 8);
        }
        if (isnan(d))
            return;   /* NaN takes no part in bounds */
        if (d == 0) {
            /* The specification: -0 as the minimum, +0 as the maximum. */
            if (order == PW_ORDER_FLOAT) {
                float nz = -0.0f, pz = 0.0f;
                memcpy(lo, &nz, 4), memcpy(hi, &pz, 4);
            } else {
                double nz = -0.0, pz = 0.0;
                memcpy(lo, &nz, 8), memcpy(hi, &pz, 8);
            }
            vmin = lo;
            vmax = hi;
        }
    }
    if (!s->has ||
        pq_write_stats__cmp(order, vmin, len, s->min, s->min_len) < 0) {
        memcpy(s->min, vmin, len);
        s->min_len = len;
    }
    if (!s->has ||
        pq_write_stats__cmp(order, vmax, len, s->max, s->max_len) > 0) {
        memcpy(s->max, vmax, len);
        s->max_len = len;
    }
    s->has = 1;
}

/* One typed pass over n PLAIN values of width W; T is the C type, and
 * FLOATING adds the NaN and signed-zero rules. */
#define SCAN_FIXED(T, FLOATING)                                         \
    do {                                                                \
        T lo = 0, hi = 0, x;                                            \
        int seen = 0;                                                   \
        size_t i;                                                       \
        for (i = 0; i < n; i++) {                                       \
            memcpy(&x, vals + i * sizeof(T), sizeof(T));                \
            if (FLOATING && isnan((double)x))                           \
                continue;                                               \
            if (!seen) {                                                \
                lo = hi = x;                                            \
                seen = 1;                                               \
            } else if (x < lo) {                                        \
                lo = x;                                                 \
            } else if (x > hi) {                                        \
                hi = x;                                                 \
            }                                                           \
        }                                                               \
        if (seen) {                                                     \
            /* Zeros: signbit decides nothing in < and >; the rules of  \
             * pq_write_stats_update apply through its own path. */     \
            pq_write_stats_update(s, order, (const uint8_t *)&lo,       \
                                  sizeof(T));                           \
            pq_write_stats_update(s, order, (const uint8_t *)&hi,       \
                                  sizeof(T));                           \
        }                                                               \
    } while (0)

int pq_write_stats_fixed_width(pw_order order)
{
    switch (order) {
    case PW_ORDER_I32: case PW_ORDER_U32: case PW_ORDER_FLOAT: return 4;
    case PW_ORDER_I64: case PW_ORDER_U64: case PW_ORDER_DOUBLE: return 8;
    default: return 0;
    }
}

void pq_write_stats_scan(stats *s, pw_order order, const uint8_t *vals,
                         size_t n)
{
    switch (order) {
    case PW_ORDER_I32: SCAN_FIXED(int32_t, 0); break;
    case PW_ORDER_U32: SCAN_FIXED(uint32_t, 0); break;
    case PW_ORDER_I64: SCAN_FIXED(int64_t, 0); break;
    case PW_ORDER_U64: SCAN_FIXED(uint64_t, 0); break;
    case PW_ORDER_FLOAT: SCAN_FIXED(float, 1); break;
    case PW_ORDER_DOUBLE: SCAN_FIXED(double, 1); break;
    default: break;
    }
}

void pq_write_stats_merge(stats *into, const stats *from, pw_order order)
{
    if (from->skip_bounds)
        into->skip_bounds = 1;
    if (!from->has)
        return;
    if (!into->has ||
        pq_write_stats__cmp(order, from->min, from->min_len, into->min,
                            into->min_len) < 0) {
        memcpy(into->min, from->min, from->min_len);
        into->min_len = from->min_len;
    }
    if (!into->has ||
        pq_write_stats__cmp(order, from->max, from->max_len, into->max,
                            into->max_len) > 0) {
        memcpy(into->max, from->max, from->max_len);
        into->max_len = from->max_len;
    }
    into->has = 1;
}

/*
 * table/value/ice_value_int.h - private to ice_value*.c and transform.c:
 * unsigned 128-bit magnitudes for decimal arithmetic and checked int64
 * arithmetic. Everything is unsigned or range-checked, so nothing here can
 * overflow a signed type (UBSan runs in CI).
 */
#ifndef ZB_TABLE_ICE_VALUE_INT_H
#define ZB_TABLE_ICE_VALUE_INT_H

#include <stdint.h>

#include "table/value/ice_value.h"

typedef struct ice_u128 {
    uint64_t hi, lo;
} ice_u128;

#define ICE_US_PER_DAY INT64_C(86400000000)
#define ICE_NS_PER_DAY INT64_C(86400000000000)

/* Two's complement bits of u as int64_t, without implementation-defined
 * conversion. */
static inline int64_t ice__u64_to_i64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(~u) - 1;
}

static inline int32_t ice__u32_to_i32(uint32_t u)
{
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return -(int32_t)(~u) - 1;
}

static inline int ice__i128_is_neg(ice_i128 v)
{
    return v.hi < 0;
}

/* |v| as an unsigned 128-bit number (2^127 for the most negative). */
static inline ice_u128 ice__i128_mag(ice_i128 v)
{
    ice_u128 m = { (uint64_t)v.hi, v.lo };

    if (v.hi < 0) {
        m.hi = ~m.hi;
        m.lo = ~m.lo;
        m.lo++;
        if (m.lo == 0)
            m.hi++;
    }
    return m;
}

/* The value with magnitude m and the given sign, wrapping modulo 2^128. */
static inline ice_i128 ice__i128_from_mag(ice_u128 m, int neg)
{
    ice_i128 v;

    if (neg) {
        m.hi = ~m.hi;
        m.lo = ~m.lo;
        m.lo++;
        if (m.lo == 0)
            m.hi++;
    }
    v.hi = ice__u64_to_i64(m.hi);
    v.lo = m.lo;
    return v;
}

static inline int ice__u128_is_zero(ice_u128 m)
{
    return m.hi == 0 && m.lo == 0;
}

static inline int ice__u128_cmp(ice_u128 a, ice_u128 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

/* m = m / d; returns m % d. d > 0. */
static inline uint32_t ice__u128_divmod32(ice_u128 *m, uint32_t d)
{
    uint32_t limb[4] = { (uint32_t)(m->hi >> 32), (uint32_t)m->hi,
                         (uint32_t)(m->lo >> 32), (uint32_t)m->lo };
    uint64_t r = 0;
    int i;

    for (i = 0; i < 4; i++) {
        uint64_t cur = (r << 32) | limb[i];
        limb[i] = (uint32_t)(cur / d);
        r = cur % d;
    }
    m->hi = (uint64_t)limb[0] << 32 | limb[1];
    m->lo = (uint64_t)limb[2] << 32 | limb[3];
    return (uint32_t)r;
}

/* m = m * mul + add; returns non-zero (m unchanged) on overflow of 128 bits. */
static inline int ice__u128_muladd32(ice_u128 *m, uint32_t mul, uint32_t add)
{
    uint32_t limb[4] = { (uint32_t)(m->hi >> 32), (uint32_t)m->hi,
                         (uint32_t)(m->lo >> 32), (uint32_t)m->lo };
    uint64_t carry = add;
    int i;

    for (i = 3; i >= 0; i--) {
        uint64_t cur = (uint64_t)limb[i] * mul + carry;
        limb[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    if (carry)
        return 1;
    m->hi = (uint64_t)limb[0] << 32 | limb[1];
    m->lo = (uint64_t)limb[2] << 32 | limb[3];
    return 0;
}

/* *out = a * b and a + b; non-zero on int64 overflow. */
static inline int ice__mul_ovf(int64_t *out, int64_t a, int64_t b)
{
    if (a != 0 && b != 0) {
        if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                  : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
            return 1;
    }
    *out = a * b;
    return 0;
}

static inline int ice__add_ovf(int64_t *out, int64_t a, int64_t b)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 1;
    *out = a + b;
    return 0;
}

/* The decimal digits of v (no sign) into out, most significant first;
 * returns the count (1..39). */
static inline int ice__u128_digits(char out[40], ice_u128 m)
{
    char rev[40];
    int n = 0, i;

    do {
        rev[n++] = (char)('0' + ice__u128_divmod32(&m, 10));
    } while (!ice__u128_is_zero(m));
    for (i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    out[n] = '\0';
    return n;
}

#endif

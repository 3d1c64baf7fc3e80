/*
 * table/value/ice_value.c - Iceberg single values: constructors, 128-bit
 * decimal helpers, the calendar, the binary single-value serialization,
 * ordering and the Appendix B hash. JSON and human strings are written by
 * ice_value_text.c and parsed by ice_value_parse.c.
 *
 * Binary serialization (format/spec.md Appendix D): fixed-width numbers
 * are little-endian, assembled byte by byte so the host's endianness does
 * not matter; decimals are the minimal two's-complement big-endian bytes
 * of the unscaled value (as Java's BigInteger.toByteArray: at least one
 * byte, and a leading 0x00/0xff byte only where the sign needs it); uuid
 * is its 16 big-endian bytes; strings, binary and fixed are their bytes.
 * Decoding checks each length against the type before reading and, for
 * the promoted types of the spec's "Schema Evolution" table, reads the
 * narrower bound a file written before the promotion carries.
 *
 * Ordering: floats compare by a key made from their IEEE bits (negative
 * numbers have all bits flipped, positive ones the sign bit set), which
 * is the total order of the spec's "Sorting" section. Decimals of
 * different scales are compared by scaling the smaller-scale magnitude up
 * with overflow detection (an overflowing side is the larger one).
 *
 * Calendar: days from 1970-01-01 to and from the proleptic Gregorian
 * year/month/day by 400-year eras (146097 days each), with the year
 * starting in March so that the leap day is the last day of the year; all
 * divisions are floor divisions, so dates before 1970 work alike.
 */
#define ZB_MODULE "table"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "table/value/ice_value.h"
#include "table/value/ice_value_int.h"
#include "table/value/murmur3.h"

/* ---- constructors ---- */

static ice_value mk(ice_type_id t)
{
    ice_value v;

    memset(&v, 0, sizeof v);
    v.type = t;
    return v;
}

ice_value ice_value_null(ice_type_id type)
{
    ice_value v = mk(type);

    v.is_null = 1;
    return v;
}

ice_value ice_value_bool(int b)
{
    ice_value v = mk(ICE_BOOLEAN);

    v.u.b = b != 0;
    return v;
}

ice_value ice_value_int(int32_t x)
{
    ice_value v = mk(ICE_INT);

    v.u.i = x;
    return v;
}

ice_value ice_value_long(int64_t x)
{
    ice_value v = mk(ICE_LONG);

    v.u.l = x;
    return v;
}

ice_value ice_value_float(float x)
{
    ice_value v = mk(ICE_FLOAT);

    v.u.f = x;
    return v;
}

ice_value ice_value_double(double x)
{
    ice_value v = mk(ICE_DOUBLE);

    v.u.d = x;
    return v;
}

ice_value ice_value_date(int32_t days)
{
    ice_value v = mk(ICE_DATE);

    v.u.i = days;
    return v;
}

ice_value ice_value_time(ice_type_id type, int64_t x)
{
    ice_value v = mk(type);

    v.u.l = x;
    return v;
}

ice_value ice_value_decimal(ice_i128 unscaled, int32_t scale)
{
    ice_value v = mk(ICE_DECIMAL);

    v.u.dec.unscaled = unscaled;
    v.u.dec.scale = scale;
    return v;
}

ice_value ice_value_decimal64(int64_t unscaled, int32_t scale)
{
    return ice_value_decimal(ice_i128_from_i64(unscaled), scale);
}

static ice_value mk_bytes(ice_type_id t, const void *p, size_t len)
{
    ice_value v = mk(t);

    v.u.bin.ptr = p;
    v.u.bin.len = len;
    return v;
}

ice_value ice_value_string(const char *s, size_t len)
{
    return mk_bytes(ICE_STRING, s, len);
}

ice_value ice_value_binary(const void *p, size_t len)
{
    return mk_bytes(ICE_BINARY, p, len);
}

ice_value ice_value_fixed(const void *p, size_t len)
{
    return mk_bytes(ICE_FIXED, p, len);
}

ice_value ice_value_uuid(const uint8_t bytes[16])
{
    ice_value v = mk(ICE_UUID);

    memcpy(v.u.uuid, bytes, 16);
    return v;
}

/* ---- 128-bit helpers ---- */

ice_i128 ice_i128_from_i64(int64_t x)
{
    ice_i128 v;

    v.hi = x < 0 ? -1 : 0;
    v.lo = (uint64_t)x;
    return v;
}

int ice_i128_cmp(ice_i128 a, ice_i128 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

uint32_t ice_i128_floor_mod(ice_i128 v, uint32_t w)
{
    ice_u128 m = ice__i128_mag(v);
    uint32_t r = ice__u128_divmod32(&m, w);

    return ice__i128_is_neg(v) && r != 0 ? w - r : r;
}

ice_i128 ice_i128_sub(ice_i128 a, ice_i128 b)
{
    ice_i128 r;
    uint64_t borrow = a.lo < b.lo;

    r.lo = a.lo - b.lo;
    r.hi = ice__u64_to_i64((uint64_t)a.hi - (uint64_t)b.hi - borrow);
    return r;
}

size_t ice_i128_to_min_be(uint8_t out[16], ice_i128 v)
{
    uint8_t full[16];
    size_t start = 0, i;

    for (i = 0; i < 8; i++) {
        full[7 - i] = (uint8_t)((uint64_t)v.hi >> (8 * i));
        full[15 - i] = (uint8_t)(v.lo >> (8 * i));
    }
    /* Drop a leading byte while it only repeats the next byte's sign. */
    while (start < 15 &&
           ((full[start] == 0x00 && !(full[start + 1] & 0x80)) ||
            (full[start] == 0xff && (full[start + 1] & 0x80))))
        start++;
    memcpy(out, full + start, 16 - start);
    return 16 - start;
}

/* Sign-extends 1..16 big-endian bytes. */
static ice_i128 i128_from_be(const uint8_t *p, size_t n)
{
    uint8_t full[16];
    ice_i128 v;
    uint64_t hi = 0, lo = 0;
    size_t i;

    memset(full, (p[0] & 0x80) ? 0xff : 0x00, 16);
    memcpy(full + 16 - n, p, n);
    for (i = 0; i < 8; i++) {
        hi = hi << 8 | full[i];
        lo = lo << 8 | full[8 + i];
    }
    v.hi = ice__u64_to_i64(hi);
    v.lo = lo;
    return v;
}

/* ---- calendar ---- */

int64_t ice_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    if (a % b != 0 && ((a % b < 0) != (b < 0)))
        q--;
    return q;
}

int64_t ice_floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;

    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

int64_t ice_days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    if (m <= 2)
        y--;
    era = ice_floor_div(y, 400);
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void ice_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
    int64_t z = days + 719468;
    int64_t era = ice_floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);

    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = m;
    *year = yoe + era * 400 + (m <= 2);
}

/* ---- binary serialization ---- */

static int put_le(zb_buf *out, uint64_t u, size_t n)
{
    uint8_t b[8];
    size_t i;

    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    return zb_buf_append(out, b, n);
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t u = 0;
    size_t i;

    for (i = n; i > 0; i--)
        u = u << 8 | p[i - 1];
    return u;
}

static uint32_t float_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static uint64_t double_bits(double d)
{
    uint64_t u;

    memcpy(&u, &d, 8);
    return u;
}

const char *ice_type_name(ice_type_id t)
{
    static const char *const names[] = {
        "?", "boolean", "int", "long", "float", "double", "decimal",
        "date", "time", "timestamp", "timestamptz", "timestamp_ns",
        "timestamptz_ns", "string", "uuid", "fixed", "binary", "unknown",
        "variant", "geometry", "geography"
    };

    if ((int)t >= 0 && (size_t)t < sizeof names / sizeof names[0])
        return names[t];
    return "nested";
}

int ice_value_to_bytes(zb_buf *out, zb_ctx *ctx, const ice_value *v)
{
    uint8_t be[16];
    int rc;

    ZB_ASSERT_ARG(out && ctx && v);
    if (v->is_null)
        return zb_fail(ctx, ZB_EINVAL,
                       "a null %s has no binary serialization",
                       ice_type_name(v->type));
    switch (v->type) {
    case ICE_BOOLEAN:
        rc = put_le(out, v->u.b ? 1 : 0, 1);
        break;
    case ICE_INT:
    case ICE_DATE:
        rc = put_le(out, (uint32_t)v->u.i, 4);
        break;
    case ICE_LONG:
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        rc = put_le(out, (uint64_t)v->u.l, 8);
        break;
    case ICE_FLOAT:
        rc = put_le(out, float_bits(v->u.f), 4);
        break;
    case ICE_DOUBLE:
        rc = put_le(out, double_bits(v->u.d), 8);
        break;
    case ICE_DECIMAL:
        rc = zb_buf_append(out, be,
                           ice_i128_to_min_be(be, v->u.dec.unscaled));
        break;
    case ICE_STRING:
    case ICE_BINARY:
    case ICE_FIXED:
        rc = zb_buf_append(out, v->u.bin.ptr, v->u.bin.len);
        break;
    case ICE_UUID:
        rc = zb_buf_append(out, v->u.uuid, 16);
        break;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "no binary single-value serialization for %s",
                       ice_type_name(v->type));
    }
    if (rc < 0)
        return zb_fail(ctx, rc, "value serialization: buffer cap reached");
    return ZB_OK;
}

static int bad_len(zb_ctx *ctx, ice_type_id t, size_t len, const char *want)
{
    return zb_fail(ctx, ZB_ECORRUPT,
                   "%s value of %zu bytes (want %s bytes)", ice_type_name(t),
                   len, want);
}

/* A date read where a timestamp is now: days times the unit per day. */
static int date_to_unit(ice_value *out, zb_ctx *ctx, ice_type_id t,
                        int32_t days, int64_t per_day)
{
    if (ice__mul_ovf(&out->u.l, days, per_day))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "date bound %d out of range for %s", (int)days,
                       ice_type_name(t));
    return ZB_OK;
}

int ice_value_from_bytes(ice_value *out, zb_ctx *ctx, const ice_prim *type,
                         const void *data, size_t len)
{
    const uint8_t *p = data;
    ice_type_id t;
    uint32_t u32;
    uint64_t u64;

    ZB_ASSERT_ARG(out && ctx && type && (data || len == 0));
    t = type->id;
    *out = mk(t);
    switch (t) {
    case ICE_BOOLEAN:
        if (len != 1)
            return bad_len(ctx, t, len, "1");
        out->u.b = p[0] != 0;
        return ZB_OK;
    case ICE_INT:
    case ICE_DATE:
        if (len != 4)
            return bad_len(ctx, t, len, "4");
        out->u.i = ice__u32_to_i32((uint32_t)get_le(p, 4));
        return ZB_OK;
    case ICE_LONG:
        if (len != 4 && len != 8)
            return bad_len(ctx, t, len, "8 (or 4, from an int)");
        if (len == 4)
            out->u.l = ice__u32_to_i32((uint32_t)get_le(p, 4));
        else
            out->u.l = ice__u64_to_i64(get_le(p, 8));
        return ZB_OK;
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMP_NS:
        if (len == 4)
            return date_to_unit(out, ctx, t,
                                ice__u32_to_i32((uint32_t)get_le(p, 4)),
                                t == ICE_TIMESTAMP ? ICE_US_PER_DAY
                                                   : ICE_NS_PER_DAY);
        /* fall through */
    case ICE_TIME:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMPTZ_NS:
        if (len != 8)
            return bad_len(ctx, t, len, "8");
        out->u.l = ice__u64_to_i64(get_le(p, 8));
        return ZB_OK;
    case ICE_FLOAT:
        if (len != 4)
            return bad_len(ctx, t, len, "4");
        u32 = (uint32_t)get_le(p, 4);
        memcpy(&out->u.f, &u32, 4);
        return ZB_OK;
    case ICE_DOUBLE:
        if (len == 4) {
            float f;

            u32 = (uint32_t)get_le(p, 4);
            memcpy(&f, &u32, 4);
            out->u.d = f;
            return ZB_OK;
        }
        if (len != 8)
            return bad_len(ctx, t, len, "8 (or 4, from a float)");
        u64 = get_le(p, 8);
        memcpy(&out->u.d, &u64, 8);
        return ZB_OK;
    case ICE_DECIMAL:
        if (len < 1 || len > 16)
            return bad_len(ctx, t, len, "1 to 16");
        out->u.dec.unscaled = i128_from_be(p, len);
        out->u.dec.scale = type->scale;
        return ZB_OK;
    case ICE_UUID:
        if (len != 16)
            return bad_len(ctx, t, len, "16");
        memcpy(out->u.uuid, p, 16);
        return ZB_OK;
    case ICE_FIXED:
        if (type->length > 0 && len != (size_t)type->length) {
            char want[16];

            snprintf(want, sizeof want, "%d", (int)type->length);
            return bad_len(ctx, t, len, want);
        }
        /* fall through */
    case ICE_STRING:
    case ICE_BINARY:
        out->u.bin.ptr = p;
        out->u.bin.len = len;
        return ZB_OK;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "no binary single-value serialization for %s",
                       ice_type_name(t));
    }
}

/* ---- ordering ---- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

/* The spec's float order as an unsigned key of the double's bits. */
static uint64_t double_key(double d)
{
    uint64_t u = double_bits(d);

    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static int cmp_bytes(const uint8_t *a, size_t na, const uint8_t *b,
                     size_t nb)
{
    size_t n = na < nb ? na : nb;
    int c = n ? memcmp(a, b, n) : 0;

    if (c != 0)
        return c < 0 ? -1 : 1;
    return na < nb ? -1 : na > nb;
}

static int cmp_decimal(const ice_value *a, const ice_value *b)
{
    ice_u128 ma, mb;
    int na, nb, sa, sb, c;

    if (a->u.dec.scale == b->u.dec.scale)
        return ice_i128_cmp(a->u.dec.unscaled, b->u.dec.unscaled);
    na = ice__i128_is_neg(a->u.dec.unscaled);
    nb = ice__i128_is_neg(b->u.dec.unscaled);
    ma = ice__i128_mag(a->u.dec.unscaled);
    mb = ice__i128_mag(b->u.dec.unscaled);
    sa = ice__u128_is_zero(ma) ? 0 : na ? -1 : 1;
    sb = ice__u128_is_zero(mb) ? 0 : nb ? -1 : 1;
    if (sa != sb || sa == 0)
        return sa < sb ? -1 : sa > sb;
    /* Same sign, both non-zero: bring both magnitudes to the larger scale. */
    c = 0;
    if (a->u.dec.scale < b->u.dec.scale) {
        int64_t k = (int64_t)b->u.dec.scale - a->u.dec.scale;

        for (; k > 0 && !c; k--)
            if (ice__u128_muladd32(&ma, 10, 0))
                c = 1;          /* |a| outgrew 128 bits: it is larger */
    } else {
        int64_t k = (int64_t)a->u.dec.scale - b->u.dec.scale;

        for (; k > 0 && !c; k--)
            if (ice__u128_muladd32(&mb, 10, 0))
                c = -1;
    }
    if (!c)
        c = ice__u128_cmp(ma, mb);
    return sa < 0 ? -c : c;
}

static int is_int_like(ice_type_id t)
{
    return t == ICE_INT || t == ICE_DATE || t == ICE_BOOLEAN;
}

/* An integral value as int64, a date converted to per_day units. */
static int64_t as_i64(const ice_value *v, int64_t per_day)
{
    if (v->type == ICE_DATE && per_day > 1) {
        int64_t r;

        if (ice__mul_ovf(&r, v->u.i, per_day))
            return v->u.i < 0 ? INT64_MIN : INT64_MAX;
        return r;
    }
    if (is_int_like(v->type))
        return v->type == ICE_BOOLEAN ? v->u.b : v->u.i;
    return v->u.l;
}

static int64_t unit_per_day(ice_type_id t)
{
    switch (t) {
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
        return ICE_US_PER_DAY;
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        return ICE_NS_PER_DAY;
    default:
        return 1;
    }
}

int ice_value_cmp(const ice_value *a, const ice_value *b)
{
    ice_type_id ta = a->type, tb = b->type;

    if (a->is_null || b->is_null)
        return b->is_null - a->is_null;
    switch (ta) {
    case ICE_FLOAT:
    case ICE_DOUBLE:
        if (tb != ICE_FLOAT && tb != ICE_DOUBLE)
            break;
        return cmp_u64(double_key(ta == ICE_FLOAT ? a->u.f : a->u.d),
                       double_key(tb == ICE_FLOAT ? b->u.f : b->u.d));
    case ICE_DECIMAL:
        if (tb != ICE_DECIMAL)
            break;
        return cmp_decimal(a, b);
    case ICE_STRING:
    case ICE_BINARY:
    case ICE_FIXED:
        if (tb != ICE_STRING && tb != ICE_BINARY && tb != ICE_FIXED)
            break;
        return cmp_bytes(a->u.bin.ptr, a->u.bin.len, b->u.bin.ptr,
                         b->u.bin.len);
    case ICE_UUID:
        if (tb != ICE_UUID)
            break;
        return cmp_bytes(a->u.uuid, 16, b->u.uuid, 16);
    case ICE_BOOLEAN:
    case ICE_INT:
    case ICE_DATE:
    case ICE_LONG:
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS: {
        int64_t pa = unit_per_day(tb), pb = unit_per_day(ta);

        if (tb == ICE_FLOAT || tb == ICE_DOUBLE || tb == ICE_DECIMAL ||
            tb == ICE_STRING || tb == ICE_BINARY || tb == ICE_FIXED ||
            tb == ICE_UUID || (int)tb >= (int)ICE_UNKNOWN)
            break;
        return cmp_i64(as_i64(a, pa), as_i64(b, pb));
    }
    default:
        break;
    }
    /* Values of unrelated types: a fixed, arbitrary order by type. */
    return (int)ta < (int)tb ? -1 : (int)ta > (int)tb;
}

/* ---- hash (Appendix B) ---- */

int ice_value_hash(uint32_t *out, zb_ctx *ctx, const ice_value *v)
{
    uint8_t be[16];
    uint64_t bits;
    double d;

    ZB_ASSERT_ARG(out && ctx && v);
    if (v->is_null)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "a null %s has no hash",
                       ice_type_name(v->type));
    switch (v->type) {
    case ICE_BOOLEAN:
        *out = ice_murmur3_int(v->u.b ? 1 : 0);
        return ZB_OK;
    case ICE_INT:
    case ICE_DATE:
        *out = ice_murmur3_int(v->u.i);
        return ZB_OK;
    case ICE_LONG:
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
        *out = ice_murmur3_long(v->u.l);
        return ZB_OK;
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        /* Note 3: nanoseconds hash as their (floored) microseconds. */
        *out = ice_murmur3_long(ice_floor_div(v->u.l, 1000));
        return ZB_OK;
    case ICE_FLOAT:
    case ICE_DOUBLE:
        /* Note 5: float as double; one NaN; -0.0 as 0.0. */
        d = v->type == ICE_FLOAT ? (double)v->u.f : v->u.d;
        if (isnan(d))
            bits = UINT64_C(0x7ff8000000000000);
        else if (d == 0.0)
            bits = 0;
        else
            bits = double_bits(d);
        *out = ice_murmur3_long(ice__u64_to_i64(bits));
        return ZB_OK;
    case ICE_DECIMAL:
        *out = ice_murmur3_32(be, ice_i128_to_min_be(be, v->u.dec.unscaled),
                              0);
        return ZB_OK;
    case ICE_STRING:
    case ICE_BINARY:
    case ICE_FIXED:
        *out = ice_murmur3_32(v->u.bin.ptr, v->u.bin.len, 0);
        return ZB_OK;
    case ICE_UUID:
        *out = ice_murmur3_32(v->u.uuid, 16, 0);
        return ZB_OK;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "no 32-bit hash for %s",
                       ice_type_name(v->type));
    }
}

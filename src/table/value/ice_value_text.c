/*
 * table/value/ice_value_text.c - Iceberg single values as text: the JSON
 * single-value serialization of format/spec.md Appendix D (both ways),
 * the ISO-8601 and decimal parsers behind it, and the "human strings"
 * that writers put in partition paths.
 *
 * Output: ice_value_to_json() writes the spec's forms exactly (time with
 * 6 fraction digits, timestamp_ns with 9, timestamptz with "+00:00",
 * decimals in plain notation with the scale's digits, or "<digits>E+<n>"
 * for a negative scale, lowercase hex for binary). ice_value_to_human()
 * writes what Iceberg Java's transforms print (the spec does not define
 * it): java.time's toString for dates and times (trailing zero groups
 * dropped, "Z" for UTC), BigDecimal.toString for decimals, Float/
 * Double.toString for floats, base64 for binary.
 *
 * Floats are printed with the fewest significant digits that read back to
 * the same value: "%.*e" with 1, 2, ... digits until strtod (strtof for
 * float) returns the value, then laid out in Java's notation (plain for
 * 1e-3 <= |x| < 1e7, else d.dddEn).
 *
 * Input is parsed in ice_value_parse.c.
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/value/ice_value.h"
#include "table/value/ice_value_int.h"

/* ---- output helpers ---- */

static int put_year(zb_buf *b, int64_t y)
{
    uint64_t a = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;

    return zb_buf_appendf(b, "%s%04llu", y < 0 ? "-" : y > 9999 ? "+" : "",
                          (unsigned long long)a);
}

static int put_date(zb_buf *b, int64_t days)
{
    int64_t y;
    int m, d, rc;

    ice_civil_from_days(days, &y, &m, &d);
    if ((rc = put_year(b, y)) < 0)
        return rc;
    return zb_buf_appendf(b, "-%02d-%02d", m, d);
}

/* HH:MM:SS plus a fraction of `digits` digits (0: none, java: 3/6/9 as
 * java.time.LocalTime.toString prints it, with HH:MM alone at :00). */
static int put_time(zb_buf *b, int64_t nanos_of_day, int digits, int java)
{
    int64_t secs = nanos_of_day / 1000000000;
    int64_t nano = nanos_of_day % 1000000000;
    int h = (int)(secs / 3600), m = (int)(secs / 60 % 60), s = (int)(secs % 60);
    int rc;

    if ((rc = zb_buf_appendf(b, "%02d:%02d", h, m)) < 0)
        return rc;
    if (java) {
        if (s == 0 && nano == 0)
            return ZB_OK;
        if ((rc = zb_buf_appendf(b, ":%02d", s)) < 0 || nano == 0)
            return rc;
        if (nano % 1000000 == 0)
            return zb_buf_appendf(b, ".%03d", (int)(nano / 1000000));
        if (nano % 1000 == 0)
            return zb_buf_appendf(b, ".%06d", (int)(nano / 1000));
        return zb_buf_appendf(b, ".%09d", (int)nano);
    }
    if ((rc = zb_buf_appendf(b, ":%02d", s)) < 0)
        return rc;
    if (digits == 6)
        return zb_buf_appendf(b, ".%06d", (int)(nano / 1000));
    return zb_buf_appendf(b, ".%09d", (int)nano);
}

static int is_ns(ice_type_id t)
{
    return t == ICE_TIMESTAMP_NS || t == ICE_TIMESTAMPTZ_NS;
}

static int is_tz(ice_type_id t)
{
    return t == ICE_TIMESTAMPTZ || t == ICE_TIMESTAMPTZ_NS;
}

static int put_timestamp(zb_buf *b, const ice_value *v, int java)
{
    int64_t per_day = is_ns(v->type) ? ICE_NS_PER_DAY : ICE_US_PER_DAY;
    int64_t days = ice_floor_div(v->u.l, per_day);
    int64_t rem = ice_floor_mod(v->u.l, per_day);
    int rc;

    if (!is_ns(v->type))
        rem *= 1000;
    if ((rc = put_date(b, days)) < 0 || (rc = zb_buf_putc(b, 'T')) < 0 ||
        (rc = put_time(b, rem, is_ns(v->type) ? 9 : 6, java)) < 0)
        return rc;
    if (is_tz(v->type))
        return zb_buf_puts(b, java ? "Z" : "+00:00");
    return ZB_OK;
}

/*
 * A decimal: java selects BigDecimal.toString (scientific when the scale
 * is negative or the adjusted exponent is below -6); otherwise the spec's
 * JSON form (plain for scale >= 0, "<digits>E+<-scale>" below 0).
 */
static int put_decimal(zb_buf *b, ice_i128 unscaled, int32_t scale, int java)
{
    char dg[40];
    int n = ice__u128_digits(dg, ice__i128_mag(unscaled));
    int64_t adjusted = -(int64_t)scale + (n - 1);
    int rc;

    if (ice__i128_is_neg(unscaled) && (rc = zb_buf_putc(b, '-')) < 0)
        return rc;
    if (scale < 0 && !java)
        return zb_buf_appendf(b, "%sE+%lld", dg, -(long long)scale);
    if (java && (scale < 0 || adjusted < -6)) {
        if ((rc = zb_buf_putc(b, dg[0])) < 0)
            return rc;
        if (n > 1 && ((rc = zb_buf_putc(b, '.')) < 0 ||
                      (rc = zb_buf_puts(b, dg + 1)) < 0))
            return rc;
        return zb_buf_appendf(b, "E%s%lld", adjusted >= 0 ? "+" : "",
                              (long long)adjusted);
    }
    if (scale == 0)
        return zb_buf_puts(b, dg);
    if (n > scale) {
        if ((rc = zb_buf_append(b, dg, (size_t)(n - scale))) < 0 ||
            (rc = zb_buf_putc(b, '.')) < 0)
            return rc;
        return zb_buf_puts(b, dg + n - scale);
    }
    if ((rc = zb_buf_puts(b, "0.")) < 0)
        return rc;
    for (; scale > n; scale--)
        if ((rc = zb_buf_putc(b, '0')) < 0)
            return rc;
    return zb_buf_puts(b, dg);
}

/* Float/Double.toString-style text of d (is_float: shortest for float). */
static int put_float(zb_buf *b, double d, int is_float)
{
    char tmp[40], dg[24];
    int p, n = 0, exp10, rc, i;
    const char *e;
    double a = fabs(d);

    if (isnan(d))
        return zb_buf_puts(b, "NaN");
    if (isinf(d))
        return zb_buf_puts(b, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return zb_buf_puts(b, signbit(d) ? "-0.0" : "0.0");
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, d);
        if (is_float ? strtof(tmp, NULL) == (float)d : strtod(tmp, NULL) == d)
            break;
    }
    for (e = tmp; *e && *e != 'e'; e++)
        if (isdigit((unsigned char)*e))
            dg[n++] = *e;
    exp10 = (int)strtol(e + 1, NULL, 10);
    while (n > 1 && dg[n - 1] == '0')
        n--;
    dg[n] = '\0';
    if (d < 0 && (rc = zb_buf_putc(b, '-')) < 0)
        return rc;
    if (a >= 1e-3 && a < 1e7) {
        if (exp10 < 0) {
            if ((rc = zb_buf_puts(b, "0.")) < 0)
                return rc;
            for (i = -1; i > exp10; i--)
                if ((rc = zb_buf_putc(b, '0')) < 0)
                    return rc;
            return zb_buf_puts(b, dg);
        }
        for (i = 0; i <= exp10; i++)
            if ((rc = zb_buf_putc(b, i < n ? dg[i] : '0')) < 0)
                return rc;
        if ((rc = zb_buf_putc(b, '.')) < 0)
            return rc;
        return zb_buf_puts(b, n > exp10 + 1 ? dg + exp10 + 1 : "0");
    }
    return zb_buf_appendf(b, "%c.%sE%d", dg[0], n > 1 ? dg + 1 : "0", exp10);
}

static int put_hex(zb_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    size_t i;
    int rc;

    if ((rc = zb_buf_reserve(b, 2 * n)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        char two[2] = { hx[p[i] >> 4], hx[p[i] & 15] };

        if ((rc = zb_buf_append(b, two, 2)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int put_uuid(zb_buf *b, const uint8_t u[16])
{
    int rc;

    if ((rc = put_hex(b, u, 4)) < 0 || (rc = zb_buf_putc(b, '-')) < 0 ||
        (rc = put_hex(b, u + 4, 2)) < 0 || (rc = zb_buf_putc(b, '-')) < 0 ||
        (rc = put_hex(b, u + 6, 2)) < 0 || (rc = zb_buf_putc(b, '-')) < 0 ||
        (rc = put_hex(b, u + 8, 2)) < 0 || (rc = zb_buf_putc(b, '-')) < 0)
        return rc;
    return put_hex(b, u + 10, 6);
}

static int put_base64(zb_buf *b, const uint8_t *p, size_t n)
{
    static const char al[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;
    int rc;

    for (i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16;
        char q[4];

        if (i + 1 < n)
            w |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            w |= p[i + 2];
        q[0] = al[w >> 18];
        q[1] = al[(w >> 12) & 63];
        q[2] = i + 1 < n ? al[(w >> 6) & 63] : '=';
        q[3] = i + 2 < n ? al[w & 63] : '=';
        if ((rc = zb_buf_append(b, q, 4)) < 0)
            return rc;
    }
    return ZB_OK;
}

/* A JSON string literal of n bytes (UTF-8 passes through). */
static int put_json_str(zb_buf *b, const uint8_t *p, size_t n)
{
    size_t i;
    int rc;

    if ((rc = zb_buf_putc(b, '"')) < 0)
        return rc;
    for (i = 0; i < n && rc == ZB_OK; i++) {
        uint8_t c = p[i];

        if (c == '"' || c == '\\')
            rc = zb_buf_appendf(b, "\\%c", (char)c);
        else if (c == '\n')
            rc = zb_buf_puts(b, "\\n");
        else if (c == '\t')
            rc = zb_buf_puts(b, "\\t");
        else if (c == '\r')
            rc = zb_buf_puts(b, "\\r");
        else if (c < 0x20)
            rc = zb_buf_appendf(b, "\\u%04x", (unsigned)c);
        else
            rc = zb_buf_putc(b, (char)c);
    }
    return rc < 0 ? rc : zb_buf_putc(b, '"');
}

/* The value as text; json selects the Appendix D forms, else human. */
static int put_value(zb_buf *b, const ice_value *v, int json)
{
    int rc;

    if (v->is_null)
        return zb_buf_puts(b, "null");
    switch (v->type) {
    case ICE_BOOLEAN:
        return zb_buf_puts(b, v->u.b ? "true" : "false");
    case ICE_INT:
        return zb_buf_appendf(b, "%d", (int)v->u.i);
    case ICE_LONG:
        return zb_buf_appendf(b, "%lld", (long long)v->u.l);
    case ICE_FLOAT:
        return put_float(b, v->u.f, 1);
    case ICE_DOUBLE:
        return put_float(b, v->u.d, 0);
    case ICE_STRING:
        if (json)
            return put_json_str(b, v->u.bin.ptr, v->u.bin.len);
        return zb_buf_append(b, v->u.bin.ptr, v->u.bin.len);
    default:
        break;
    }
    if (json && (rc = zb_buf_putc(b, '"')) < 0)
        return rc;
    switch (v->type) {
    case ICE_DECIMAL:
        rc = put_decimal(b, v->u.dec.unscaled, v->u.dec.scale, !json);
        break;
    case ICE_DATE:
        rc = put_date(b, v->u.i);
        break;
    case ICE_TIME:
        rc = put_time(b, ice_floor_mod(v->u.l, ICE_US_PER_DAY) * 1000, 6,
                      !json);
        break;
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        rc = put_timestamp(b, v, !json);
        break;
    case ICE_UUID:
        rc = put_uuid(b, v->u.uuid);
        break;
    case ICE_BINARY:
    case ICE_FIXED:
        rc = json ? put_hex(b, v->u.bin.ptr, v->u.bin.len)
                  : put_base64(b, v->u.bin.ptr, v->u.bin.len);
        break;
    default:
        return ZB_EUNSUPPORTED;
    }
    if (json && rc == ZB_OK)
        rc = zb_buf_putc(b, '"');
    return rc;
}

static int put_checked(zb_buf *out, zb_ctx *ctx, const ice_value *v,
                       int json)
{
    size_t len0;
    int rc;

    ZB_ASSERT_ARG(out && ctx && v);
    len0 = out->len;
    if (json && !v->is_null &&
        ((v->type == ICE_FLOAT && !isfinite(v->u.f)) ||
         (v->type == ICE_DOUBLE && !isfinite(v->u.d))))
        return zb_fail(ctx, ZB_EINVAL, "%s %s has no JSON form",
                       ice_type_name(v->type),
                       isnan(v->type == ICE_FLOAT ? v->u.f : v->u.d)
                           ? "NaN" : "infinity");
    rc = put_value(out, v, json);
    if (rc == ZB_EUNSUPPORTED)
        return zb_fail(ctx, rc, "no %s form for a %s value",
                       json ? "JSON" : "text", ice_type_name(v->type));
    if (rc < 0) {
        zb_buf_truncate(out, len0);
        return zb_fail(ctx, rc, "value text: buffer cap reached");
    }
    return ZB_OK;
}

int ice_value_to_json(zb_buf *out, zb_ctx *ctx, const ice_value *v)
{
    return put_checked(out, ctx, v, 1);
}

int ice_value_to_human(zb_buf *out, zb_ctx *ctx, const ice_value *v)
{
    return put_checked(out, ctx, v, 0);
}

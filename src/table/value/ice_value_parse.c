/*
 * table/value/ice_value_parse.c - Iceberg single values from text: the JSON
 * single-value serialization of format/spec.md Appendix D, and the
 * ISO-8601, decimal, uuid and hex spellings inside its strings.
 *
 * ice_value_from_json() scans the JSON token itself for numbers, booleans
 * and null (so that a float is parsed from its text, not from a double),
 * and lets jansson decode JSON strings (escapes, \u pairs); the string's
 * contents then go to ice_value_from_text(), a set of strict parsers over
 * (pointer, length) with a cursor. Every field is range-checked (month,
 * day of month with leap years, hour, minute, second, 1-9 fraction
 * digits, offsets up to 18 hours) and the int64 arithmetic that combines
 * them is overflow-checked, so out-of-range text is ZB_ECORRUPT, never a
 * wrapped value. Instants before 1970 are summed from the next midnight
 * so that the most negative representable instant still parses.
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table/value/ice_value.h"
#include "table/value/ice_value_int.h"
#include "util/str.h"

static int is_ns(ice_type_id t)
{
    return t == ICE_TIMESTAMP_NS || t == ICE_TIMESTAMPTZ_NS;
}

static int is_tz(ice_type_id t)
{
    return t == ICE_TIMESTAMPTZ || t == ICE_TIMESTAMPTZ_NS;
}

/* ---- parsers over (s, n) with a cursor ---- */

typedef struct cur {
    const char *s;
    size_t n, i;
} cur;

static int peek(const cur *c)
{
    return c->i < c->n ? (unsigned char)c->s[c->i] : -1;
}

static int eat(cur *c, int ch)
{
    if (peek(c) != ch)
        return 0;
    c->i++;
    return 1;
}

/* Exactly `width` digits (width > 0), or 1..18 when width is 0. */
static int digits(cur *c, int width, int64_t *out)
{
    int64_t v = 0;
    int k = 0;

    while (isdigit(peek(c)) && (width ? k < width : k < 18)) {
        v = v * 10 + (c->s[c->i++] - '0');
        k++;
    }
    *out = v;
    return width ? k == width : k > 0 && !isdigit(peek(c));
}

static int days_in_month(int64_t y, int m)
{
    static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = ice_floor_mod(y, 4) == 0 &&
               (ice_floor_mod(y, 100) != 0 || ice_floor_mod(y, 400) == 0);

    return m == 2 && leap ? 29 : dm[m - 1];
}

/* [+-]YYYY[Y...]-MM-DD; years of up to 9 digits. */
static int parse_date(cur *c, int64_t *days)
{
    int64_t y, m, d;
    int neg = eat(c, '-');
    size_t start;

    if (!neg)
        eat(c, '+');
    start = c->i;
    if (!digits(c, 0, &y) || c->i - start < 4 || c->i - start > 9)
        return 0;
    if (neg)
        y = -y;
    if (!eat(c, '-') || !digits(c, 2, &m) || !eat(c, '-') ||
        !digits(c, 2, &d) || m < 1 || m > 12 || d < 1 ||
        d > days_in_month(y, (int)m))
        return 0;
    *days = ice_days_from_civil(y, (int)m, (int)d);
    return 1;
}

/* HH:MM[:SS[.f{1,9}]] as nanoseconds of the day. */
static int parse_time(cur *c, int64_t *nanos)
{
    int64_t h, m, s = 0, f = 0, k;

    if (!digits(c, 2, &h) || !eat(c, ':') || !digits(c, 2, &m) || h > 23 ||
        m > 59)
        return 0;
    if (eat(c, ':')) {
        if (!digits(c, 2, &s) || s > 59)
            return 0;
        if (eat(c, '.')) {
            for (k = 0; k < 9 && isdigit(peek(c)); k++)
                f = f * 10 + (c->s[c->i++] - '0');
            if (k == 0 || isdigit(peek(c)))
                return 0;
            for (; k < 9; k++)
                f *= 10;
        }
    }
    *nanos = ((h * 60 + m) * 60 + s) * 1000000000 + f;
    return 1;
}

/* Z or [+-]HH:MM[:SS] as seconds east of UTC. */
static int parse_offset(cur *c, int64_t *secs)
{
    int64_t h, m, s = 0;
    int sign;

    if (eat(c, 'Z'))
        return *secs = 0, 1;
    if (eat(c, '+'))
        sign = 1;
    else if (eat(c, '-'))
        sign = -1;
    else
        return 0;
    if (!digits(c, 2, &h) || !eat(c, ':') || !digits(c, 2, &m) || h > 18 ||
        m > 59)
        return 0;
    if (eat(c, ':') && (!digits(c, 2, &s) || s > 59))
        return 0;
    *secs = sign * ((h * 60 + m) * 60 + s);
    return 1;
}

static int parse_timestamp(cur *c, ice_type_id t, int64_t *out)
{
    int64_t days, nanos, off = 0, unit = is_ns(t) ? 1 : 1000;
    int64_t per_day = is_ns(t) ? ICE_NS_PER_DAY : ICE_US_PER_DAY, v;

    if (!parse_date(c, &days) || !eat(c, 'T') || !parse_time(c, &nanos))
        return 0;
    if (is_tz(t) && !parse_offset(c, &off))
        return 0;
    /* Before 1970 count from the next midnight, so that the most
     * negative instant's day does not overflow on its own. */
    if (days < 0) {
        days++;
        nanos -= ICE_NS_PER_DAY;
    }
    if (ice__mul_ovf(&v, days, per_day) ||
        ice__add_ovf(&v, v, nanos / unit) ||
        ice__add_ovf(&v, v, -off * (1000000000 / unit)))
        return 0;
    *out = v;
    return 1;
}

/* [+-]digits as int64 with range check. */
static int parse_int(cur *c, int64_t *out)
{
    int neg = eat(c, '-');
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

    if (!isdigit(peek(c)))
        return 0;
    while (isdigit(peek(c))) {
        unsigned dgt = (unsigned)(c->s[c->i++] - '0');

        if (v > (lim - dgt) / 10)
            return 0;
        v = v * 10 + dgt;
    }
    *out = neg ? ice__u64_to_i64(0 - v) : (int64_t)v;
    return 1;
}

/* [+-]d*[.d*][(e|E)[+-]d+]: the unscaled value and its scale. */
static int parse_decimal(cur *c, ice_i128 *out, int64_t *scale)
{
    ice_u128 m = { 0, 0 };
    int neg = eat(c, '-'), nd = 0, dot = 0;
    int64_t frac = 0, exp10 = 0;

    if (!neg)
        eat(c, '+');
    for (;;) {
        int ch = peek(c);

        if (isdigit(ch)) {
            if (ice__u128_muladd32(&m, 10, (uint32_t)(ch - '0')))
                return 0;
            nd++;
            frac += dot;
            c->i++;
        } else if (ch == '.' && !dot) {
            dot = 1;
            c->i++;
        } else {
            break;
        }
    }
    if (nd == 0)
        return 0;
    if (eat(c, 'e') || eat(c, 'E')) {
        int eneg = eat(c, '-');

        if (!eneg)
            eat(c, '+');
        if (!digits(c, 0, &exp10) || exp10 > 100000)
            return 0;
        if (eneg)
            exp10 = -exp10;
    }
    /* The magnitude must fit a signed 128-bit value. */
    if (m.hi > (uint64_t)INT64_MAX &&
        !(neg && m.hi == (uint64_t)INT64_MAX + 1 && m.lo == 0))
        return 0;
    *out = ice__i128_from_mag(m, neg);
    *scale = frac - exp10;
    return 1;
}

static int parse_hex(const char *s, size_t n, uint8_t *out)
{
    size_t i;

    if (n % 2)
        return 0;
    for (i = 0; i < n; i += 2) {
        int hi = zb_str_hex_digit((unsigned char)s[i]);
        int lo = zb_str_hex_digit((unsigned char)s[i + 1]);

        if (hi < 0 || lo < 0)
            return 0;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

static int parse_uuid(const char *s, size_t n, uint8_t out[16])
{
    char hex[32];
    size_t i, k = 0;

    if (n != 36)
        return 0;
    for (i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return 0;
        } else {
            hex[k++] = s[i];
        }
    }
    return parse_hex(hex, 32, out);
}

static int parse_floating(const char *s, size_t n, int is_float, double *out)
{
    char tmp[128];
    char *end;
    size_t i;

    if (n == 3 && memcmp(s, "NaN", 3) == 0)
        return *out = NAN, 1;
    if (n == 8 && memcmp(s, "Infinity", 8) == 0)
        return *out = INFINITY, 1;
    if (n == 9 && memcmp(s, "-Infinity", 9) == 0)
        return *out = -INFINITY, 1;
    if (n == 0 || n >= sizeof tmp)
        return 0;
    for (i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]) && !strchr("+-.eE", s[i]))
            return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (is_float)
        *out = strtof(tmp, &end);
    else
        *out = strtod(tmp, &end);
    return end == tmp + n;
}

static int bad_text(zb_ctx *ctx, ice_type_id t, const char *s, size_t n)
{
    return zb_fail(ctx, ZB_ECORRUPT, "invalid %s value \"%.*s\"",
                   ice_type_name(t), n > 64 ? 64 : (int)n, s);
}

static uint8_t *arena_bytes(zb_arena *a, const void *p, size_t n)
{
    uint8_t *d = zb_arena_alloc(a, n + 1);

    if (d) {
        if (p && n)
            memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

int ice_value_from_text(ice_value *out, zb_ctx *ctx, zb_arena *arena,
                        const ice_prim *type, const char *s, size_t n)
{
    cur c = { s, n, 0 };
    ice_type_id t;
    int64_t x = 0, scale;
    double d = 0;
    uint8_t *p;
    int ok;

    ZB_ASSERT_ARG(out && ctx && type && (s || n == 0));
    t = type->id;
    *out = ice_value_null(t);
    out->is_null = 0;
    switch (t) {
    case ICE_BOOLEAN:
        ok = (n == 4 && memcmp(s, "true", 4) == 0) ||
             (n == 5 && memcmp(s, "false", 5) == 0);
        out->u.b = n == 4;
        c.i = n;
        break;
    case ICE_INT:
    case ICE_LONG:
        ok = parse_int(&c, &x) &&
             (t == ICE_LONG || (x >= INT32_MIN && x <= INT32_MAX));
        if (t == ICE_INT)
            out->u.i = (int32_t)(ok ? x : 0);
        else
            out->u.l = x;
        break;
    case ICE_FLOAT:
    case ICE_DOUBLE:
        ok = parse_floating(s, n, t == ICE_FLOAT, &d);
        c.i = n;
        if (t == ICE_FLOAT)
            out->u.f = (float)d;
        else
            out->u.d = d;
        break;
    case ICE_DECIMAL:
        ok = parse_decimal(&c, &out->u.dec.unscaled, &scale);
        if (ok && scale != type->scale)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "decimal \"%.*s\" has scale %lld, not %d",
                           n > 64 ? 64 : (int)n, s, (long long)scale,
                           (int)type->scale);
        out->u.dec.scale = type->scale;
        break;
    case ICE_DATE:
        ok = parse_date(&c, &x) && x >= INT32_MIN && x <= INT32_MAX;
        out->u.i = (int32_t)(ok ? x : 0);
        break;
    case ICE_TIME:
        ok = parse_time(&c, &x);
        out->u.l = x / 1000;
        break;
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        ok = parse_timestamp(&c, t, &out->u.l);
        break;
    case ICE_UUID:
        ok = parse_uuid(s, n, out->u.uuid);
        c.i = n;
        break;
    case ICE_STRING:
    case ICE_BINARY:
    case ICE_FIXED:
        if (!arena)
            return zb_fail(ctx, ZB_EINVAL, "%s value needs an arena",
                           ice_type_name(t));
        p = arena_bytes(arena, t == ICE_STRING ? s : NULL,
                        t == ICE_STRING ? n : n / 2);
        if (!p)
            return zb_fail_oom(ctx);
        out->u.bin.ptr = p;
        out->u.bin.len = t == ICE_STRING ? n : n / 2;
        ok = t == ICE_STRING || parse_hex(s, n, p);
        if (ok && t == ICE_FIXED && type->length > 0 &&
            out->u.bin.len != (size_t)type->length)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "fixed[%d] value of %zu bytes", (int)type->length,
                           out->u.bin.len);
        c.i = n;
        break;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "no text form for %s values",
                       ice_type_name(t));
    }
    if (!ok || c.i != n)
        return bad_text(ctx, t, s, n);
    return ZB_OK;
}

/* ---- JSON ---- */

static int json_kind_ok(ice_type_id t, char first)
{
    switch (t) {
    case ICE_BOOLEAN:
        return first == 't' || first == 'f';
    case ICE_INT:
    case ICE_LONG:
    case ICE_FLOAT:
    case ICE_DOUBLE:
        return first == '-' || isdigit((unsigned char)first);
    default:
        return first == '"';
    }
}

int ice_value_from_json(ice_value *out, zb_ctx *ctx, zb_arena *arena,
                        const ice_prim *type, const char *json, size_t len)
{
    json_t *j;
    json_error_t jerr;
    size_t a = 0, z = len;
    int rc;

    ZB_ASSERT_ARG(out && ctx && type && (json || len == 0));
    while (a < z && isspace((unsigned char)json[a]))
        a++;
    while (z > a && isspace((unsigned char)json[z - 1]))
        z--;
    if (z - a == 4 && memcmp(json + a, "null", 4) == 0) {
        *out = ice_value_null(type->id);
        return ZB_OK;
    }
    if (a == z || !json_kind_ok(type->id, json[a]))
        return zb_fail(ctx, ZB_ECORRUPT, "JSON %.*s is not a %s value",
                       z - a > 64 ? 64 : (int)(z - a), json + a,
                       ice_type_name(type->id));
    if (json[a] != '"')
        return ice_value_from_text(out, ctx, arena, type, json + a, z - a);
    j = json_loadb(json + a, z - a, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!j || !json_is_string(j)) {
        json_decref(j);
        return zb_fail(ctx, ZB_ECORRUPT, "bad JSON string for %s: %s",
                       ice_type_name(type->id), jerr.text);
    }
    rc = ice_value_from_text(out, ctx, arena, type, json_string_value(j),
                             json_string_length(j));
    json_decref(j);
    return rc;
}

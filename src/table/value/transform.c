/*
 * table/value/transform.c - Iceberg partition transforms, from format/spec.md
 * "Partition Transforms", "Bucket Transform Details", "Truncate Transform
 * Details" and Appendix B.
 *
 * Parsing: a transform string is a name, or a name and a decimal
 * parameter in brackets; known names are compared case-insensitively;
 * malformed strings are refused with ZB_EINVAL and the string in the
 * message, while a well-formed unknown name is kept as ICE_TR_UNKNOWN so
 * that readers can ignore such fields as the spec requires.
 *
 * Application, per kind:
 *   bucket[N]   (hash & INT32_MAX) % N, the hash of ice_value_hash()
 *               (Appendix B: ints as longs, nanosecond timestamps as
 *               floored microseconds, decimals as minimal big-endian
 *               bytes of the unscaled value).
 *   truncate[W] ints and longs v - floormod(v, W): -1 -> -10 for W = 10;
 *               the int result wraps to 32 bits as Java's int arithmetic
 *               does (INT32_MIN stays in range only by wrapping);
 *               decimals the same on the unscaled 128-bit value; strings
 *               the first W code points (counting UTF-8 lead bytes),
 *               binary the first W bytes. The result borrows the source.
 *   year/month/day/hour  floor divisions of the epoch offset, then the
 *               civil calendar of ice_value.c, so 1969-12-31T23:59 is
 *               year -1, month -1, day -1, hour -1.
 *
 * Human strings follow what Iceberg Java writes in data file paths (the
 * spec leaves paths to implementations): see transform.h.
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "table/value/ice_value_int.h"
#include "table/value/murmur3.h"
#include "table/value/transform.h"

#define US_PER_HOUR INT64_C(3600000000)
#define NS_PER_HOUR INT64_C(3600000000000)

static const struct {
    const char *name;
    ice_transform_kind kind;
} names[] = {
    { "identity", ICE_TR_IDENTITY }, { "bucket", ICE_TR_BUCKET },
    { "truncate", ICE_TR_TRUNCATE }, { "year", ICE_TR_YEAR },
    { "month", ICE_TR_MONTH },       { "day", ICE_TR_DAY },
    { "hour", ICE_TR_HOUR },         { "void", ICE_TR_VOID },
};

static ice_transform_kind kind_of(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && strncasecmp(s, names[i].name, n) == 0)
            return names[i].kind;
    return ICE_TR_UNKNOWN;
}

static int bad(zb_ctx *ctx, const char *s, const char *why)
{
    return zb_fail(ctx, ZB_EINVAL, "invalid partition transform \"%.64s\": %s",
                   s, why);
}

int ice_transform_parse(ice_transform *out, zb_ctx *ctx, const char *s)
{
    size_t n = 0, i;
    ice_transform_kind k;
    uint64_t param = 0;

    ZB_ASSERT_ARG(out && ctx && s);
    out->kind = ICE_TR_UNKNOWN;
    out->param = 0;
    if (!isalpha((unsigned char)s[0]) && s[0] != '_')
        return bad(ctx, s, "no transform name");
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    k = kind_of(s, n);
    if (s[n] == '\0') {
        if (k == ICE_TR_BUCKET || k == ICE_TR_TRUNCATE)
            return bad(ctx, s, "missing [parameter]");
        out->kind = k;
        return ZB_OK;
    }
    if (s[n] != '[')
        return bad(ctx, s, "unexpected character after the name");
    for (i = n + 1; isdigit((unsigned char)s[i]); i++) {
        param = param * 10 + (uint64_t)(s[i] - '0');
        if (param > INT32_MAX)
            return bad(ctx, s, "parameter above 2147483647");
    }
    if (i == n + 1)
        return bad(ctx, s, "parameter is not a number");
    if (s[i] != ']' || s[i + 1] != '\0')
        return bad(ctx, s, "expected name[number]");
    if (k != ICE_TR_BUCKET && k != ICE_TR_TRUNCATE && k != ICE_TR_UNKNOWN)
        return bad(ctx, s, "this transform takes no parameter");
    if (param == 0 && k != ICE_TR_UNKNOWN)
        return bad(ctx, s, "parameter must be positive");
    out->kind = k;
    out->param = k == ICE_TR_UNKNOWN ? 0 : (int32_t)param;
    return ZB_OK;
}

int ice_transform_format(zb_buf *out, const ice_transform *t)
{
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].kind != t->kind)
            continue;
        if (t->kind == ICE_TR_BUCKET || t->kind == ICE_TR_TRUNCATE)
            return zb_buf_appendf(out, "%s[%d]", names[i].name,
                                  (int)t->param);
        return zb_buf_puts(out, names[i].name);
    }
    return zb_buf_puts(out, "unknown");
}

static int is_timestamp(ice_type_id t)
{
    return t == ICE_TIMESTAMP || t == ICE_TIMESTAMPTZ ||
           t == ICE_TIMESTAMP_NS || t == ICE_TIMESTAMPTZ_NS;
}

static int is_ns(ice_type_id t)
{
    return t == ICE_TIMESTAMP_NS || t == ICE_TIMESTAMPTZ_NS;
}

int ice_transform_accepts(const ice_transform *t, ice_type_id src)
{
    switch (t->kind) {
    case ICE_TR_IDENTITY:
        return (int)src >= (int)ICE_BOOLEAN && (int)src <= (int)ICE_UNKNOWN;
    case ICE_TR_BUCKET:
        return src == ICE_INT || src == ICE_LONG || src == ICE_DECIMAL ||
               src == ICE_DATE || src == ICE_TIME || is_timestamp(src) ||
               src == ICE_STRING || src == ICE_UUID || src == ICE_FIXED ||
               src == ICE_BINARY;
    case ICE_TR_TRUNCATE:
        return src == ICE_INT || src == ICE_LONG || src == ICE_DECIMAL ||
               src == ICE_STRING || src == ICE_BINARY;
    case ICE_TR_YEAR:
    case ICE_TR_MONTH:
    case ICE_TR_DAY:
        return src == ICE_DATE || is_timestamp(src);
    case ICE_TR_HOUR:
        return is_timestamp(src);
    case ICE_TR_VOID:
        return 1;
    default:
        return 0;
    }
}

static ice_type_id result_id(const ice_transform *t, ice_type_id src)
{
    switch (t->kind) {
    case ICE_TR_BUCKET:
    case ICE_TR_YEAR:
    case ICE_TR_MONTH:
    case ICE_TR_HOUR:
        return ICE_INT;
    case ICE_TR_DAY:
        return ICE_DATE;
    default:
        return src;
    }
}

static int not_accepted(zb_ctx *ctx, const ice_transform *t, ice_type_id src)
{
    zb_buf b = ZB_BUF_INIT(64);
    int rc;

    if (t->kind == ICE_TR_UNKNOWN)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "unknown partition transform");
    ice_transform_format(&b, t);
    rc = zb_fail(ctx, ZB_EINVAL, "transform %s does not accept %s values",
                 zb_buf_cstr(&b), ice_type_name(src));
    zb_buf_free(&b);
    return rc;
}

int ice_transform_result_type(ice_prim *out, zb_ctx *ctx,
                              const ice_transform *t, const ice_prim *src)
{
    ZB_ASSERT_ARG(out && ctx && t && src);
    if (!ice_transform_accepts(t, src->id))
        return not_accepted(ctx, t, src->id);
    if (result_id(t, src->id) == src->id) {
        *out = *src;
    } else {
        memset(out, 0, sizeof *out);
        out->id = result_id(t, src->id);
    }
    return ZB_OK;
}

/* Days from 1970-01-01 of a date or timestamp value. */
static int64_t epoch_days(const ice_value *v)
{
    if (v->type == ICE_DATE)
        return v->u.i;
    return ice_floor_div(v->u.l, is_ns(v->type) ? ICE_NS_PER_DAY
                                                : ICE_US_PER_DAY);
}

/* Bytes of the first w code points of a UTF-8 string. */
static size_t utf8_prefix(const uint8_t *p, size_t n, int32_t w)
{
    size_t i;
    int32_t cps = 0;

    for (i = 0; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            if (cps == w)
                return i;
            cps++;
        }
    }
    return n;
}

static int truncate_value(ice_value *out, const ice_transform *t,
                          const ice_value *in)
{
    int64_t w = t->param, r;

    *out = *in;
    switch (in->type) {
    case ICE_INT:
        r = ice_floor_mod(in->u.i, w);
        /* In int64 this cannot overflow; the int result wraps as Java's. */
        out->u.i = ice__u32_to_i32((uint32_t)((uint64_t)in->u.i - (uint64_t)r));
        break;
    case ICE_LONG:
        r = ice_floor_mod(in->u.l, w);
        out->u.l = ice__u64_to_i64((uint64_t)in->u.l - (uint64_t)r);
        break;
    case ICE_DECIMAL:
        out->u.dec.unscaled = ice_i128_sub(
            in->u.dec.unscaled,
            ice_i128_from_i64(ice_i128_floor_mod(in->u.dec.unscaled,
                                                 (uint32_t)t->param)));
        break;
    case ICE_STRING:
        out->u.bin.len = utf8_prefix(in->u.bin.ptr, in->u.bin.len, t->param);
        break;
    default: /* ICE_BINARY */
        if (in->u.bin.len > (size_t)w)
            out->u.bin.len = (size_t)w;
        break;
    }
    return ZB_OK;
}

int ice_transform_apply(ice_value *out, zb_ctx *ctx, const ice_transform *t,
                        const ice_value *in)
{
    uint32_t h;
    int64_t y, x;
    int m, d, rc;

    ZB_ASSERT_ARG(out && ctx && t && in);
    if (!ice_transform_accepts(t, in->type))
        return not_accepted(ctx, t, in->type);
    if ((t->kind == ICE_TR_BUCKET || t->kind == ICE_TR_TRUNCATE) &&
        t->param <= 0)
        return zb_fail(ctx, ZB_EINVAL, "transform parameter %d is not positive",
                       (int)t->param);
    if (in->is_null || t->kind == ICE_TR_VOID) {
        *out = ice_value_null(result_id(t, in->type));
        return ZB_OK;
    }
    switch (t->kind) {
    case ICE_TR_IDENTITY:
        *out = *in;
        return ZB_OK;
    case ICE_TR_BUCKET:
        if ((rc = ice_value_hash(&h, ctx, in)) < 0)
            return rc;
        *out = ice_value_int((int32_t)((h & 0x7fffffffu) % (uint32_t)t->param));
        return ZB_OK;
    case ICE_TR_TRUNCATE:
        return truncate_value(out, t, in);
    case ICE_TR_YEAR:
    case ICE_TR_MONTH:
        ice_civil_from_days(epoch_days(in), &y, &m, &d);
        x = y - 1970;
        if (t->kind == ICE_TR_MONTH)
            x = x * 12 + (m - 1);
        break;
    case ICE_TR_DAY:
        *out = ice_value_date((int32_t)epoch_days(in));
        return ZB_OK;
    default: /* ICE_TR_HOUR */
        x = ice_floor_div(in->u.l, is_ns(in->type) ? NS_PER_HOUR : US_PER_HOUR);
        break;
    }
    if (x < INT32_MIN || x > INT32_MAX)
        return zb_fail(ctx, ZB_EINVAL,
                       "partition value %lld out of int range",
                       (long long)x);
    *out = ice_value_int((int32_t)x);
    return ZB_OK;
}

int ice_transform_preserves_order(const ice_transform *t)
{
    switch (t->kind) {
    case ICE_TR_IDENTITY:
    case ICE_TR_TRUNCATE:
    case ICE_TR_YEAR:
    case ICE_TR_MONTH:
    case ICE_TR_DAY:
    case ICE_TR_HOUR:
        return 1;
    default:
        return 0;
    }
}

static int human(zb_buf *out, zb_ctx *ctx, const ice_transform *t,
                 const ice_value *v)
{
    int64_t y, days;
    int m, d;
    ice_value date;

    if (v->is_null || t->kind == ICE_TR_VOID)
        return zb_buf_puts(out, "null");
    switch (t->kind) {
    case ICE_TR_YEAR:
    case ICE_TR_MONTH:
    case ICE_TR_HOUR:
        if (v->type != ICE_INT)
            break;
        if (t->kind == ICE_TR_YEAR)
            return zb_buf_appendf(out, "%04lld", (long long)v->u.i + 1970);
        if (t->kind == ICE_TR_MONTH)
            return zb_buf_appendf(out, "%04lld-%02d",
                                  (long long)(1970 + ice_floor_div(v->u.i, 12)),
                                  (int)ice_floor_mod(v->u.i, 12) + 1);
        days = ice_floor_div(v->u.i, 24);
        ice_civil_from_days(days, &y, &m, &d);
        return zb_buf_appendf(out, "%04lld-%02d-%02d-%02d", (long long)y, m, d,
                              (int)ice_floor_mod(v->u.i, 24));
    case ICE_TR_DAY:
        if (v->type != ICE_INT && v->type != ICE_DATE)
            break;
        date = ice_value_date(v->u.i);
        return ice_value_to_human(out, ctx, &date);
    case ICE_TR_BUCKET:
        if (v->type != ICE_INT)
            break;
        return zb_buf_appendf(out, "%d", (int)v->u.i);
    case ICE_TR_IDENTITY:
    case ICE_TR_TRUNCATE:
        return ice_value_to_human(out, ctx, v);
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "no human string for an unknown transform");
    }
    return not_accepted(ctx, t, v->type);
}

int ice_transform_to_human(zb_buf *out, zb_ctx *ctx, const ice_transform *t,
                           const ice_value *partition_value)
{
    size_t len0;
    int rc;

    ZB_ASSERT_ARG(out && ctx && t && partition_value);
    len0 = out->len;
    rc = human(out, ctx, t, partition_value);
    if (rc < 0) {
        zb_buf_truncate(out, len0);
        if (rc == ZB_ENOMEM && ctx->err.code != ZB_ENOMEM)
            return zb_fail(ctx, rc, "partition value: buffer cap reached");
    }
    return rc;
}

int ice_url_encode(zb_buf *out, const char *s, size_t n)
{
    static const char hx[] = "0123456789ABCDEF";
    size_t i;
    int rc = ZB_OK;

    for (i = 0; i < n && rc == ZB_OK; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
            (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '*' ||
            c == '_') {
            rc = zb_buf_putc(out, (char)c);
        } else if (c == ' ') {
            rc = zb_buf_putc(out, '+');
        } else {
            char e[3] = { '%', hx[c >> 4], hx[c & 15] };

            rc = zb_buf_append(out, e, 3);
        }
    }
    return rc;
}

int ice_partition_path_field(zb_buf *out, zb_ctx *ctx, const char *name,
                             const ice_transform *t,
                             const ice_value *partition_value)
{
    zb_buf h = ZB_BUF_INIT(4096);
    size_t len0;
    int rc;

    ZB_ASSERT_ARG(out && ctx && name && t && partition_value);
    len0 = out->len;
    h.max_bytes = out->max_bytes;
    if ((rc = ice_transform_to_human(&h, ctx, t, partition_value)) < 0)
        goto done;
    if ((rc = ice_url_encode(out, name, strlen(name))) < 0 ||
        (rc = zb_buf_putc(out, '=')) < 0 ||
        (rc = ice_url_encode(out, h.ptr ? h.ptr : "", h.len)) < 0) {
        zb_buf_truncate(out, len0);
        rc = zb_fail(ctx, rc, "partition path: buffer cap reached");
    }
done:
    zb_buf_free(&h);
    return rc;
}

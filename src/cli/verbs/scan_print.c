/*
 * cli/verbs/scan_print.c - Arrow batches to JSON lines or CSV
 * (cli/verbs/scan_print.h).
 *
 * One recursive function, put_value(), renders the value at one logical
 * index of one array as its Appendix D JSON text: primitives become an
 * ice_value and go through ice_value_to_json() (table/value/ice_value.h), so
 * the numbers, dates, times and decimals are spelt exactly as everywhere
 * else in Zamboni; structs, lists and maps are assembled here. A row is
 * rendered into one buffer and written with one fwrite.
 *
 * Arrow indexing: the value of array a at logical index i lives at
 * physical slot a->offset + i of its buffers; a struct's children are
 * indexed by the struct's physical slot; a list's offsets, read at the
 * list's physical slot, are logical indices into its child.
 */
#define ZB_MODULE "cli"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs/scan_print.h"
#include "table/value/ice_value.h"
#include "util/buf.h"
#include "util/err.h"

/* Most bytes one row may render to. */
#define ROW_MAX_BYTES ((size_t)1 << 30)
/* Deepest nesting followed (the schema allows ICE_MAX_TYPE_DEPTH). */
#define MAX_DEPTH 64

static int bad_shape(zb_ctx *ctx, const struct ArrowSchema *s,
                     const char *what)
{
    return zb_fail(ctx, ZB_ECORRUPT, "column '%s' (Arrow '%s'): %s",
                   s->name ? s->name : "?", s->format, what);
}

static int is_valid(const struct ArrowArray *a, int64_t slot)
{
    const uint8_t *bits;

    if (a->n_buffers < 1 || a->null_count == 0)
        return 1;
    bits = (const uint8_t *)a->buffers[0];
    return bits == NULL || zb_arrow_bit(bits, slot);
}

/* Checks that a has at least n buffers and buffers 1..n-1 are set. */
static int need_buffers(zb_ctx *ctx, const struct ArrowSchema *s,
                        const struct ArrowArray *a, int64_t n)
{
    int64_t k;

    if (a->n_buffers < n)
        return bad_shape(ctx, s, "too few buffers");
    for (k = 1; k < n; k++)
        if (a->length > 0 && a->buffers[k] == NULL)
            return bad_shape(ctx, s, "missing buffer");
    return ZB_OK;
}

static int put_json_value(zb_buf *b, zb_ctx *ctx, const ice_value *v)
{
    double d;

    /* Appendix D has no NaN or infinities; ice_value_to_json writes
     * them bare, which is not JSON. */
    if (!v->is_null && (v->type == ICE_FLOAT || v->type == ICE_DOUBLE)) {
        d = v->type == ICE_FLOAT ? (double)v->u.f : v->u.d;
        if (isnan(d))
            return zb_buf_puts(b, "\"NaN\"") < 0 ? zb_fail_oom(ctx) : ZB_OK;
        if (isinf(d))
            return zb_buf_puts(b, d < 0 ? "\"-Infinity\"" : "\"Infinity\"") < 0
                       ? zb_fail_oom(ctx) : ZB_OK;
    }
    return ice_value_to_json(b, ctx, v);
}

static int64_t i64_at(const void *buf, int64_t slot)
{
    int64_t x;

    memcpy(&x, (const char *)buf + slot * 8, 8);
    return x;
}

static int32_t i32_at(const void *buf, int64_t slot)
{
    int32_t x;

    memcpy(&x, (const char *)buf + slot * 4, 4);
    return x;
}

static int is_uuid_ext(const struct ArrowSchema *s)
{
    char name[32];

    return zb_arrow_metadata_get(name, sizeof name, s->metadata,
                                 "ARROW:extension:name") &&
           strcmp(name, "arrow.uuid") == 0;
}

/* The [start, end) child range of list slot; 32- or 64-bit offsets. */
static int list_range(zb_ctx *ctx, const struct ArrowSchema *s,
                      const struct ArrowArray *a, int64_t slot, int wide,
                      int64_t *start, int64_t *end)
{
    int rc;

    if ((rc = need_buffers(ctx, s, a, 2)) < 0)
        return rc;
    if (a->n_children != 1 || s->n_children != 1)
        return bad_shape(ctx, s, "a list needs one child");
    if (wide) {
        *start = i64_at(a->buffers[1], slot);
        *end = i64_at(a->buffers[1], slot + 1);
    } else {
        *start = i32_at(a->buffers[1], slot);
        *end = i32_at(a->buffers[1], slot + 1);
    }
    if (*start < 0 || *end < *start || *end > a->children[0]->length)
        return bad_shape(ctx, s, "list offsets out of range");
    return ZB_OK;
}

static int put_value(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                     const struct ArrowArray *a, int64_t i, int depth);

static int put_struct(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                      const struct ArrowArray *a, int64_t slot, int depth)
{
    char id[24];
    int64_t k;
    int rc;

    if (a->n_children != s->n_children)
        return bad_shape(ctx, s, "children of schema and array differ");
    if (zb_buf_putc(b, '{') < 0)
        return zb_fail_oom(ctx);
    for (k = 0; k < s->n_children; k++) {
        const struct ArrowSchema *cs = s->children[k];

        if (k > 0 && zb_buf_putc(b, ',') < 0)
            return zb_fail_oom(ctx);
        /* Appendix D keys struct fields by field id. */
        if (!zb_arrow_metadata_get(id, sizeof id, cs->metadata,
                                   "PARQUET:field_id")) {
            ice_value name = ice_value_string(cs->name ? cs->name : "",
                                              cs->name ? strlen(cs->name) : 0);
            if ((rc = ice_value_to_json(b, ctx, &name)) < 0)
                return rc;
        } else if (zb_buf_appendf(b, "\"%s\"", id) < 0) {
            return zb_fail_oom(ctx);
        }
        if (zb_buf_putc(b, ':') < 0)
            return zb_fail_oom(ctx);
        if ((rc = put_value(b, ctx, cs, a->children[k], slot, depth + 1)) < 0)
            return rc;
    }
    return zb_buf_putc(b, '}') < 0 ? zb_fail_oom(ctx) : ZB_OK;
}

static int put_list(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                    const struct ArrowArray *a, int64_t slot, int wide,
                    int depth)
{
    int64_t start, end, k;
    int rc;

    if ((rc = list_range(ctx, s, a, slot, wide, &start, &end)) < 0)
        return rc;
    if (zb_buf_putc(b, '[') < 0)
        return zb_fail_oom(ctx);
    for (k = start; k < end; k++) {
        if (k > start && zb_buf_putc(b, ',') < 0)
            return zb_fail_oom(ctx);
        if ((rc = put_value(b, ctx, s->children[0], a->children[0], k,
                            depth + 1)) < 0)
            return rc;
    }
    return zb_buf_putc(b, ']') < 0 ? zb_fail_oom(ctx) : ZB_OK;
}

static int put_map(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int64_t slot, int depth)
{
    const struct ArrowSchema *es;
    const struct ArrowArray *ea;
    int64_t start, end, k, part;
    int rc;

    if ((rc = list_range(ctx, s, a, slot, 0, &start, &end)) < 0)
        return rc;
    es = s->children[0];
    ea = a->children[0];
    if (es->n_children != 2 || ea->n_children != 2)
        return bad_shape(ctx, s, "map entries need a key and a value");
    for (part = 0; part < 2; part++) {
        if (zb_buf_puts(b, part == 0 ? "{\"keys\":[" : "],\"values\":[") < 0)
            return zb_fail_oom(ctx);
        for (k = start; k < end; k++) {
            if (k > start && zb_buf_putc(b, ',') < 0)
                return zb_fail_oom(ctx);
            /* entries is a struct: its children at its physical slot */
            if ((rc = put_value(b, ctx, es->children[part], ea->children[part],
                                ea->offset + k, depth + 1)) < 0)
                return rc;
        }
    }
    return zb_buf_puts(b, "]}") < 0 ? zb_fail_oom(ctx) : ZB_OK;
}

/* d:P,S or d:P,S,128: the scale; -1 for other widths. */
static int decimal_scale(const char *fmt, int32_t *scale)
{
    const char *p = strchr(fmt, ',');
    char *end;
    long sc;

    if (p == NULL)
        return -1;
    errno = 0;
    sc = strtol(p + 1, &end, 10);
    if (errno || end == p + 1 || (*end != '\0' && strcmp(end, ",128") != 0))
        return -1;
    *scale = (int32_t)sc;
    return 0;
}

/* Long: one switch over the Arrow format strings, a few lines each. */
static int put_primitive(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                         const struct ArrowArray *a, int64_t slot)
{
    const char *f = s->format;
    const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
    ice_value v;
    int rc;

    if (f[0] == 'u' || f[0] == 'U' || f[0] == 'z' || f[0] == 'Z') {
        int wide = f[0] == 'U' || f[0] == 'Z';
        int64_t start, end;
        const char *bytes;

        if ((rc = need_buffers(ctx, s, a, 3)) < 0)
            return rc;
        start = wide ? i64_at(d, slot) : i32_at(d, slot);
        end = wide ? i64_at(d, slot + 1) : i32_at(d, slot + 1);
        if (start < 0 || end < start)
            return bad_shape(ctx, s, "string offsets out of order");
        bytes = (const char *)a->buffers[2] + start;
        v = f[0] == 'u' || f[0] == 'U'
                ? ice_value_string(bytes, (size_t)(end - start))
                : ice_value_binary(bytes, (size_t)(end - start));
        return put_json_value(b, ctx, &v);
    }
    if ((rc = need_buffers(ctx, s, a, 2)) < 0)
        return rc;
    switch (f[0]) {
    case 'b':
        v = ice_value_bool(zb_arrow_bit((const uint8_t *)d, slot));
        break;
    case 'c':
        v = ice_value_int(((const int8_t *)d)[slot]);
        break;
    case 's': {
        int16_t x;
        memcpy(&x, (const char *)d + slot * 2, 2);
        v = ice_value_int(x);
        break;
    }
    case 'i':
        v = ice_value_int(i32_at(d, slot));
        break;
    case 'l':
        v = ice_value_long(i64_at(d, slot));
        break;
    case 'C':
        v = ice_value_int(((const uint8_t *)d)[slot]);
        break;
    case 'S': {
        uint16_t x;
        memcpy(&x, (const char *)d + slot * 2, 2);
        v = ice_value_int(x);
        break;
    }
    case 'I':
        v = ice_value_long((int64_t)(uint32_t)i32_at(d, slot));
        break;
    case 'L':
        return zb_buf_appendf(b, "%llu",
                              (unsigned long long)(uint64_t)i64_at(d, slot)) < 0
                   ? zb_fail_oom(ctx) : ZB_OK;
    case 'f': {
        float x;
        memcpy(&x, (const char *)d + slot * 4, 4);
        v = ice_value_float(x);
        break;
    }
    case 'g': {
        double x;
        memcpy(&x, (const char *)d + slot * 8, 8);
        v = ice_value_double(x);
        break;
    }
    case 'd': {
        ice_i128 u;
        int32_t scale;
        uint64_t lo, hi;

        if (decimal_scale(f, &scale) < 0)
            return zb_fail(ctx, ZB_EUNSUPPORTED,
                           "column '%s': Arrow decimal '%s' is not 128-bit",
                           s->name ? s->name : "?", f);
        memcpy(&lo, (const char *)d + slot * 16, 8);
        memcpy(&hi, (const char *)d + slot * 16 + 8, 8);
        u.lo = lo;
        u.hi = (int64_t)hi;
        v = ice_value_decimal(u, scale);
        break;
    }
    case 'w': {
        long len = strtol(f + 2, NULL, 10);

        if (f[1] != ':' || len <= 0)
            return bad_shape(ctx, s, "bad fixed-size binary format");
        if (len == 16 && is_uuid_ext(s))
            v = ice_value_uuid((const uint8_t *)d + slot * 16);
        else
            v = ice_value_fixed((const char *)d + slot * len, (size_t)len);
        break;
    }
    case 't':
        if (f[1] == 'd' && f[2] == 'D') {
            v = ice_value_date(i32_at(d, slot));
        } else if (f[1] == 'd' && f[2] == 'm') {
            v = ice_value_date((int32_t)ice_floor_div(i64_at(d, slot),
                                                      86400000));
        } else if (f[1] == 't') {
            int64_t us;
            switch (f[2]) {
            case 's': us = (int64_t)i32_at(d, slot) * 1000000; break;
            case 'm': us = (int64_t)i32_at(d, slot) * 1000; break;
            case 'u': us = i64_at(d, slot); break;
            case 'n': us = ice_floor_div(i64_at(d, slot), 1000); break;
            default: goto unsupported;
            }
            v = ice_value_time(ICE_TIME, us);
        } else if (f[1] == 's' && f[3] == ':') {
            int tz = f[4] != '\0';
            int64_t x = i64_at(d, slot);
            switch (f[2]) {
            case 's': x *= 1000000; break;
            case 'm': x *= 1000; break;
            case 'u': break;
            case 'n':
                v = ice_value_time(tz ? ICE_TIMESTAMPTZ_NS : ICE_TIMESTAMP_NS,
                                   x);
                return put_json_value(b, ctx, &v);
            default: goto unsupported;
            }
            v = ice_value_time(tz ? ICE_TIMESTAMPTZ : ICE_TIMESTAMP, x);
        } else {
            goto unsupported;
        }
        break;
    default:
        goto unsupported;
    }
    return put_json_value(b, ctx, &v);
unsupported:
    return zb_fail(ctx, ZB_EUNSUPPORTED,
                   "column '%s': Arrow type '%s' cannot be printed",
                   s->name ? s->name : "?", f);
}

/* The value at logical index i of a. */
static int put_value(zb_buf *b, zb_ctx *ctx, const struct ArrowSchema *s,
                     const struct ArrowArray *a, int64_t i, int depth)
{
    int64_t slot = a->offset + i;
    const char *f = s->format;

    if (depth > MAX_DEPTH)
        return bad_shape(ctx, s, "nested too deeply");
    if (i < 0 || i >= a->length)
        return bad_shape(ctx, s, "index past the array's length");
    if (f[0] == 'n' || !is_valid(a, slot))
        return zb_buf_puts(b, "null") < 0 ? zb_fail_oom(ctx) : ZB_OK;
    if (f[0] == '+') {
        switch (f[1]) {
        case 's': return put_struct(b, ctx, s, a, slot, depth);
        case 'l': return put_list(b, ctx, s, a, slot, 0, depth);
        case 'L': return put_list(b, ctx, s, a, slot, 1, depth);
        case 'm': return put_map(b, ctx, s, a, slot, depth);
        default:
            return zb_fail(ctx, ZB_EUNSUPPORTED,
                           "column '%s': Arrow type '%s' cannot be printed",
                           s->name ? s->name : "?", f);
        }
    }
    return put_primitive(b, ctx, s, a, slot);
}

/* Appends text as one CSV field, quoted when RFC 4180 needs it. */
static int put_csv_field(zb_buf *b, const char *text, size_t len, int quote)
{
    size_t k;

    /* text is not NUL-terminated (it points into an Arrow buffer) */
    for (k = 0; !quote && k < len; k++)
        quote = text[k] == ',' || text[k] == '"' || text[k] == '\r' ||
                text[k] == '\n';
    if (!quote)
        return zb_buf_append(b, text, len);
    if (zb_buf_putc(b, '"') < 0)
        return ZB_ENOMEM;
    for (k = 0; k < len; k++) {
        if (text[k] == '"' && zb_buf_putc(b, '"') < 0)
            return ZB_ENOMEM;
        if (zb_buf_putc(b, text[k]) < 0)
            return ZB_ENOMEM;
    }
    return zb_buf_putc(b, '"');
}

/* One top-level value as a CSV field. */
static int put_csv_value(zb_buf *b, zb_buf *tmp, zb_ctx *ctx,
                         const struct ArrowSchema *s,
                         const struct ArrowArray *a, int64_t i)
{
    const char *f = s->format;
    int64_t slot = a->offset + i;
    int rc;

    if (i < 0 || i >= a->length)
        return bad_shape(ctx, s, "index past the array's length");
    if (f[0] == 'n' || !is_valid(a, slot))
        return ZB_OK;                      /* null: an empty field */
    if (f[0] == 'u' || f[0] == 'U') {
        int wide = f[0] == 'U';
        int64_t start, end;

        if ((rc = need_buffers(ctx, s, a, 3)) < 0)
            return rc;
        start = wide ? i64_at(a->buffers[1], slot) : i32_at(a->buffers[1], slot);
        end = wide ? i64_at(a->buffers[1], slot + 1)
                   : i32_at(a->buffers[1], slot + 1);
        if (start < 0 || end < start)
            return bad_shape(ctx, s, "string offsets out of order");
        /* an empty string is "" so that it differs from null */
        rc = put_csv_field(b, (const char *)a->buffers[2] + start,
                           (size_t)(end - start), end == start);
        return rc < 0 ? zb_fail_oom(ctx) : ZB_OK;
    }
    zb_buf_clear(tmp);
    if ((rc = put_value(tmp, ctx, s, a, i, 0)) < 0)
        return rc;
    /* a primitive's JSON string (date, decimal, hex...) has no escapes:
     * its text is between the quotes */
    if (f[0] != '+' && tmp->len >= 2 && tmp->ptr[0] == '"')
        rc = put_csv_field(b, tmp->ptr + 1, tmp->len - 2, 0);
    else
        rc = put_csv_field(b, tmp->ptr, tmp->len, 0);
    return rc < 0 ? zb_fail_oom(ctx) : ZB_OK;
}

static int check_top(zb_ctx *ctx, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch)
{
    int64_t k;

    if (strcmp(schema->format, "+s") != 0)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "rows must be an Arrow struct, not '%s'",
                       schema->format);
    if (batch && batch->n_children != schema->n_children)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "batch has %lld columns, its schema %lld",
                       (long long)batch->n_children,
                       (long long)schema->n_children);
    for (k = 0; batch && k < batch->n_children; k++)
        if (batch->children[k]->length < batch->offset + batch->length)
            return bad_shape(ctx, schema->children[k],
                             "column shorter than the batch");
    return ZB_OK;
}

static int write_out(FILE *fp, zb_ctx *ctx, const zb_buf *b)
{
    if (b->len && fwrite(b->ptr, 1, b->len, fp) != b->len)
        return zb_fail(ctx, ZB_EIO, "cannot write the rows: %s",
                       strerror(errno));
    return ZB_OK;
}

int zb_scan_print_header(FILE *fp, zb_ctx *ctx, zb_scan_format fmt,
                         const struct ArrowSchema *schema)
{
    zb_buf b = ZB_BUF_INIT(ROW_MAX_BYTES);
    int64_t k;
    int rc;

    if (fmt != ZB_SCAN_FORMAT_CSV)
        return ZB_OK;
    if ((rc = check_top(ctx, schema, NULL)) < 0)
        return rc;
    for (k = 0; k < schema->n_children; k++) {
        const char *name = schema->children[k]->name;

        if ((k > 0 && zb_buf_putc(&b, ',') < 0) ||
            put_csv_field(&b, name ? name : "", name ? strlen(name) : 0,
                          0) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    }
    if (zb_buf_puts(&b, "\r\n") < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = write_out(fp, ctx, &b);
done:
    zb_buf_free(&b);
    return rc;
}

int zb_scan_print_batch(FILE *fp, zb_ctx *ctx, zb_scan_format fmt,
                        const struct ArrowSchema *schema,
                        const struct ArrowArray *batch)
{
    zb_buf b = ZB_BUF_INIT(ROW_MAX_BYTES);
    zb_buf tmp = ZB_BUF_INIT(ROW_MAX_BYTES);
    int64_t i, k;
    int rc;

    if ((rc = check_top(ctx, schema, batch)) < 0)
        return rc;
    for (i = 0; i < batch->length; i++) {
        int64_t slot = batch->offset + i;

        zb_buf_clear(&b);
        if (fmt == ZB_SCAN_FORMAT_JSONL && zb_buf_putc(&b, '{') < 0)
            goto oom;
        for (k = 0; k < schema->n_children; k++) {
            const struct ArrowSchema *cs = schema->children[k];

            if (k > 0 && zb_buf_putc(&b, ',') < 0)
                goto oom;
            if (fmt == ZB_SCAN_FORMAT_CSV) {
                rc = put_csv_value(&b, &tmp, ctx, cs, batch->children[k],
                                   slot);
            } else {
                ice_value name = ice_value_string(cs->name ? cs->name : "",
                                                  cs->name ? strlen(cs->name)
                                                           : 0);
                if ((rc = ice_value_to_json(&b, ctx, &name)) < 0)
                    goto done;
                if (zb_buf_putc(&b, ':') < 0)
                    goto oom;
                rc = put_value(&b, ctx, cs, batch->children[k], slot, 0);
            }
            if (rc < 0) {
                zb_err_prefix(ctx, "row %lld: ", (long long)i);
                goto done;
            }
        }
        if (zb_buf_puts(&b, fmt == ZB_SCAN_FORMAT_CSV ? "\r\n" : "}\n") < 0)
            goto oom;
        if ((rc = write_out(fp, ctx, &b)) < 0)
            goto done;
    }
    rc = ZB_OK;
    goto done;
oom:
    rc = zb_fail_oom(ctx);
done:
    zb_buf_free(&tmp);
    zb_buf_free(&b);
    return rc;
}

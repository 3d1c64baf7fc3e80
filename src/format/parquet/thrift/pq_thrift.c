/*
 * format/parquet/thrift/pq_thrift.c - Thrift compact protocol reader (see
 * pq_thrift.h), written from apache/thrift doc/specs/
 * thrift-compact-protocol.md.
 *
 * Encoding, in brief:
 *   - i16/i32/i64 are ZigZag-mapped then ULEB128 varints; i8 is one byte;
 *     double is 8 bytes little-endian; uuid is 16 raw bytes; binary is a
 *     varint length then the bytes.
 *   - A struct is a run of field headers and values ended by a 0 byte. A
 *     header byte is ddddtttt: a 4-bit id delta from the previous field of
 *     the same struct and the type; delta 0 means the id follows as a
 *     zigzag varint (the long form). A bool field keeps its value in the
 *     type (1 true, 2 false) and has no value bytes.
 *   - A list or set header is sssstttt: size 0..14 and element type, or
 *     size nibble 15 with the size as a varint after it. A map is a varint
 *     size, then (if non-zero) one byte kkkkvvvv of key and value types.
 *
 * Safety: every read checks the bytes left first. Each element of a list
 * takes at least one byte and each map entry two, so counts above that are
 * rejected before a caller can allocate for them; together with the depth
 * bound this makes skipping linear in the input and its stack bounded.
 * Varints longer than 10 bytes, or wider than their type, are errors.
 */
#define ZB_MODULE "parquet"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/parquet/thrift/pq_thrift.h"

static const char *type_name(uint8_t type)
{
    static const char *const names[] = {
        "stop", "bool", "bool", "i8", "i16", "i32", "i64", "double",
        "binary", "list", "set", "map", "struct", "uuid"
    };

    return type < sizeof names / sizeof names[0] ? names[type] : "invalid";
}

void pq_thrift_init(pq_thrift *t, zb_ctx *ctx, const char *doc,
                    const uint8_t *buf, size_t len)
{
    t->buf = buf;
    t->len = buf ? len : 0;
    t->pos = 0;
    t->depth = 0;
    t->ctx = ctx;
    t->doc = doc ? doc : "thrift";
}

int pq_thrift_fail(pq_thrift *t, size_t offset, const char *what,
                   const char *fmt, ...)
{
    char reason[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return zb_fail(t->ctx, ZB_ECORRUPT, "parquet %s: %s at offset %zu: %s",
                   t->doc, what, offset, reason);
}

static size_t left(const pq_thrift *t)
{
    return t->len - t->pos;
}

static int need(pq_thrift *t, size_t n, const char *what)
{
    if (n > left(t))
        return pq_thrift_fail(t, t->pos, what,
                              "truncated: %zu bytes needed, %zu left", n,
                              left(t));
    return ZB_OK;
}

int pq_thrift_varint(pq_thrift *t, uint64_t *out, const char *what)
{
    size_t start = t->pos;
    uint64_t v = 0;
    unsigned shift = 0;

    for (;;) {
        uint8_t b;

        if (t->pos >= t->len)
            return pq_thrift_fail(t, start, what, "truncated varint");
        b = t->buf[t->pos++];
        if (shift == 63 && (b & 0x7e) != 0)
            return pq_thrift_fail(t, start, what, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            break;
        shift += 7;
        if (shift > 63)
            return pq_thrift_fail(t, start, what, "varint longer than 10 bytes");
    }
    *out = v;
    return ZB_OK;
}

/* Reads a zigzag varint that must fit in bits (16, 32 or 64) bits. */
static int zigzag(pq_thrift *t, int64_t *out, unsigned bits, const char *what)
{
    size_t start = t->pos;
    uint64_t u = 0;
    int64_t v = 0;
    int rc;

    if ((rc = pq_thrift_varint(t, &u, what)) < 0)
        return rc;
    if (bits < 64 && (u >> bits) != 0)
        return pq_thrift_fail(t, start, what, "varint does not fit i%u", bits);
    v = (int64_t)(u >> 1);
    *out = (u & 1) ? -v - 1 : v;
    return ZB_OK;
}

int pq_thrift_i8(pq_thrift *t, int8_t *out, const char *what)
{
    int rc;

    if ((rc = need(t, 1, what)) < 0)
        return rc;
    *out = (int8_t)(t->buf[t->pos] > 127 ? (int)t->buf[t->pos] - 256
                                           : (int)t->buf[t->pos]);
    t->pos++;
    return ZB_OK;
}

int pq_thrift_i16(pq_thrift *t, int16_t *out, const char *what)
{
    int64_t v = 0;
    int rc;

    if ((rc = zigzag(t, &v, 16, what)) < 0)
        return rc;
    *out = (int16_t)v;
    return ZB_OK;
}

int pq_thrift_i32(pq_thrift *t, int32_t *out, const char *what)
{
    int64_t v = 0;
    int rc;

    if ((rc = zigzag(t, &v, 32, what)) < 0)
        return rc;
    *out = (int32_t)v;
    return ZB_OK;
}

int pq_thrift_i64(pq_thrift *t, int64_t *out, const char *what)
{
    return zigzag(t, out, 64, what);
}

int pq_thrift_double(pq_thrift *t, double *out, const char *what)
{
    uint64_t bits = 0;
    int i, rc;

    if ((rc = need(t, 8, what)) < 0)
        return rc;
    for (i = 7; i >= 0; i--)
        bits = bits << 8 | t->buf[t->pos + (size_t)i];
    memcpy(out, &bits, sizeof *out);
    t->pos += 8;
    return ZB_OK;
}

int pq_thrift_binary(pq_thrift *t, const uint8_t **data, size_t *len,
                     const char *what)
{
    size_t start = t->pos;
    uint64_t n = 0;
    int rc;

    if ((rc = pq_thrift_varint(t, &n, what)) < 0)
        return rc;
    if (n > left(t))
        return pq_thrift_fail(t, start, what,
                              "length %llu exceeds the %zu bytes left",
                              (unsigned long long)n, left(t));
    *data = t->buf + t->pos;
    *len = (size_t)n;
    t->pos += (size_t)n;
    return ZB_OK;
}

int pq_thrift_bool_elem(pq_thrift *t, int *out, const char *what)
{
    int rc;

    if ((rc = need(t, 1, what)) < 0)
        return rc;
    if (t->buf[t->pos] > 2)
        return pq_thrift_fail(t, t->pos, what, "bool byte %u",
                              (unsigned)t->buf[t->pos]);
    *out = t->buf[t->pos] == 1;
    t->pos++;
    return ZB_OK;
}

static int enter(pq_thrift *t, const char *what)
{
    if (t->depth >= PQ_THRIFT_MAX_DEPTH)
        return pq_thrift_fail(t, t->pos, what, "nested deeper than %d",
                              PQ_THRIFT_MAX_DEPTH);
    t->depth++;
    return ZB_OK;
}

int pq_thrift_struct_begin(pq_thrift *t, int16_t *last_id, const char *what)
{
    *last_id = 0;
    return enter(t, what);
}

void pq_thrift_struct_end(pq_thrift *t)
{
    if (t->depth > 0)
        t->depth--;
}

void pq_thrift_container_end(pq_thrift *t)
{
    if (t->depth > 0)
        t->depth--;
}

int pq_thrift_field_next(pq_thrift *t, pq_thrift_field *f, int16_t *last_id,
                         const char *what)
{
    uint8_t b, delta;
    int rc;

    f->offset = t->pos;
    f->id = 0;
    f->bool_value = 0;
    if ((rc = need(t, 1, what)) < 0)
        return rc;
    b = t->buf[t->pos++];
    f->type = b & 0x0f;
    delta = b >> 4;
    if (f->type == PQ_TT_STOP) {
        if (delta != 0)
            return pq_thrift_fail(t, f->offset, what,
                                  "field header 0x%02x has type 0", b);
        return ZB_OK;
    }
    if (f->type > PQ_TT_UUID)
        return pq_thrift_fail(t, f->offset, what, "field type %u is invalid",
                              (unsigned)f->type);
    if (delta != 0) {
        int32_t id = (int32_t)*last_id + delta;

        if (id > INT16_MAX)
            return pq_thrift_fail(t, f->offset, what,
                                  "field id delta overflows i16");
        f->id = (int16_t)id;
    } else if ((rc = pq_thrift_i16(t, &f->id, what)) < 0) {
        return rc;
    }
    *last_id = f->id;
    if (f->type == PQ_TT_TRUE || f->type == PQ_TT_FALSE)
        f->bool_value = f->type == PQ_TT_TRUE;
    return ZB_OK;
}

int pq_thrift_list_begin(pq_thrift *t, uint8_t *elem_type, size_t *count,
                         const char *what)
{
    size_t start = t->pos;
    uint64_t n;
    uint8_t b;
    int rc;

    if ((rc = need(t, 1, what)) < 0)
        return rc;
    b = t->buf[t->pos++];
    *elem_type = b & 0x0f;
    n = b >> 4;
    if (n == 15) {
        if ((rc = pq_thrift_varint(t, &n, what)) < 0)
            return rc;
        if (n > INT32_MAX)
            return pq_thrift_fail(t, start, what, "list size %llu too large",
                                  (unsigned long long)n);
    }
    /* Writers put any type, even 0, in the header of an empty list. */
    if (n > 0 && (*elem_type == PQ_TT_STOP || *elem_type > PQ_TT_UUID))
        return pq_thrift_fail(t, start, what, "list element type %u",
                              (unsigned)*elem_type);
    if (n > left(t))
        return pq_thrift_fail(t, start, what,
                              "list of %llu elements in %zu bytes",
                              (unsigned long long)n, left(t));
    if ((rc = enter(t, what)) < 0)
        return rc;
    *count = (size_t)n;
    return ZB_OK;
}

int pq_thrift_map_begin(pq_thrift *t, uint8_t *key_type, uint8_t *value_type,
                        size_t *count, const char *what)
{
    size_t start = t->pos;
    uint64_t n = 0;
    int rc;

    if ((rc = pq_thrift_varint(t, &n, what)) < 0)
        return rc;
    *key_type = *value_type = PQ_TT_STOP;
    if (n > 0) {
        uint8_t b;

        if (n > INT32_MAX)
            return pq_thrift_fail(t, start, what, "map size %llu too large",
                                  (unsigned long long)n);
        if ((rc = need(t, 1, what)) < 0)
            return rc;
        b = t->buf[t->pos++];
        *key_type = b >> 4;
        *value_type = b & 0x0f;
        if (*key_type == PQ_TT_STOP || *key_type > PQ_TT_UUID ||
            *value_type == PQ_TT_STOP || *value_type > PQ_TT_UUID)
            return pq_thrift_fail(t, start, what, "map types 0x%02x", b);
        if (n > left(t) / 2)
            return pq_thrift_fail(t, start, what,
                                  "map of %llu entries in %zu bytes",
                                  (unsigned long long)n, left(t));
    }
    if ((rc = enter(t, what)) < 0)
        return rc;
    *count = (size_t)n;
    return ZB_OK;
}

int pq_thrift_skip(pq_thrift *t, uint8_t type, const char *what)
{
    const uint8_t *data;
    size_t i, n;
    int64_t v = 0;
    int8_t b;
    int rc = ZB_OK, flag;

    switch (type) {
    case PQ_TT_TRUE:
    case PQ_TT_FALSE:
        /* Only reached for elements: a bool field has no value bytes. */
        return pq_thrift_bool_elem(t, &flag, what);
    case PQ_TT_I8:
        return pq_thrift_i8(t, &b, what);
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64:
        return zigzag(t, &v, type == PQ_TT_I16 ? 16 : type == PQ_TT_I32 ? 32
                                                                       : 64,
                      what);
    case PQ_TT_DOUBLE:
        if ((rc = need(t, 8, what)) == ZB_OK)
            t->pos += 8;
        return rc;
    case PQ_TT_UUID:
        if ((rc = need(t, 16, what)) == ZB_OK)
            t->pos += 16;
        return rc;
    case PQ_TT_BINARY:
        return pq_thrift_binary(t, &data, &n, what);
    case PQ_TT_LIST:
    case PQ_TT_SET: {
        uint8_t et;

        if ((rc = pq_thrift_list_begin(t, &et, &n, what)) < 0)
            return rc;
        for (i = 0; i < n && rc == ZB_OK; i++)
            rc = pq_thrift_skip(t, et, what);
        pq_thrift_container_end(t);
        return rc;
    }
    case PQ_TT_MAP: {
        uint8_t kt, vt;

        if ((rc = pq_thrift_map_begin(t, &kt, &vt, &n, what)) < 0)
            return rc;
        for (i = 0; i < n && rc == ZB_OK; i++)
            if ((rc = pq_thrift_skip(t, kt, what)) == ZB_OK)
                rc = pq_thrift_skip(t, vt, what);
        pq_thrift_container_end(t);
        return rc;
    }
    case PQ_TT_STRUCT: {
        pq_thrift_field f;
        int16_t last;

        if ((rc = pq_thrift_struct_begin(t, &last, what)) < 0)
            return rc;
        while ((rc = pq_thrift_field_next(t, &f, &last, what)) == ZB_OK &&
               f.type != PQ_TT_STOP) {
            if ((rc = pq_thrift_skip_field(t, &f, what)) < 0)
                break;
        }
        pq_thrift_struct_end(t);
        return rc;
    }
    default:
        return pq_thrift_fail(t, t->pos, what, "cannot skip type %u",
                              (unsigned)type);
    }
}

int pq_thrift_skip_field(pq_thrift *t, const pq_thrift_field *f,
                         const char *what)
{
    if (f->type == PQ_TT_TRUE || f->type == PQ_TT_FALSE)
        return ZB_OK;
    return pq_thrift_skip(t, f->type, what);
}

static int expect(pq_thrift *t, const pq_thrift_field *f, uint8_t type,
                  const char *what)
{
    int is_bool = f->type == PQ_TT_TRUE || f->type == PQ_TT_FALSE;

    if (type == PQ_TT_TRUE ? is_bool : f->type == type)
        return ZB_OK;
    return pq_thrift_fail(t, f->offset, what, "field %d is %s, expected %s",
                          f->id, type_name(f->type), type_name(type));
}

int pq_thrift_field_bool(pq_thrift *t, const pq_thrift_field *f, int *out,
                         const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_TRUE, what)) < 0)
        return rc;
    *out = f->bool_value;
    return ZB_OK;
}

int pq_thrift_field_i8(pq_thrift *t, const pq_thrift_field *f, int8_t *out,
                       const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_I8, what)) < 0)
        return rc;
    return pq_thrift_i8(t, out, what);
}

int pq_thrift_field_i16(pq_thrift *t, const pq_thrift_field *f, int16_t *out,
                        const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_I16, what)) < 0)
        return rc;
    return pq_thrift_i16(t, out, what);
}

int pq_thrift_field_i32(pq_thrift *t, const pq_thrift_field *f, int32_t *out,
                        const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_I32, what)) < 0)
        return rc;
    return pq_thrift_i32(t, out, what);
}

int pq_thrift_field_i64(pq_thrift *t, const pq_thrift_field *f, int64_t *out,
                        const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_I64, what)) < 0)
        return rc;
    return pq_thrift_i64(t, out, what);
}

int pq_thrift_field_binary(pq_thrift *t, const pq_thrift_field *f,
                           const uint8_t **data, size_t *len,
                           const char *what)
{
    int rc;

    if ((rc = expect(t, f, PQ_TT_BINARY, what)) < 0)
        return rc;
    return pq_thrift_binary(t, data, len, what);
}

int pq_thrift_field_struct(pq_thrift *t, const pq_thrift_field *f,
                           const char *what)
{
    return expect(t, f, PQ_TT_STRUCT, what);
}

int pq_thrift_field_list(pq_thrift *t, const pq_thrift_field *f,
                         uint8_t want_elem, size_t *count, const char *what)
{
    size_t start = t->pos;
    uint8_t et;
    int rc;

    if (f->type != PQ_TT_SET && (rc = expect(t, f, PQ_TT_LIST, what)) < 0)
        return rc;
    if ((rc = pq_thrift_list_begin(t, &et, count, what)) < 0)
        return rc;
    if (*count > 0 &&
        (want_elem == PQ_TT_TRUE ? et != PQ_TT_TRUE && et != PQ_TT_FALSE
                                 : et != want_elem)) {
        pq_thrift_container_end(t);
        return pq_thrift_fail(t, start, what, "list of %s, expected %s",
                              type_name(et), type_name(want_elem));
    }
    return ZB_OK;
}

/*
 * format/parquet/thrift/pq_thrift_write.c - Thrift compact protocol writer (see
 * pq_thrift_write.h), written from apache/thrift doc/specs/
 * thrift-compact-protocol.md; pq_thrift.c reads the same encoding.
 *
 * Encoding, in brief:
 *   - i16/i32/i64 are ZigZag-mapped ((n << 1) ^ (n >> 63), computed on
 *     unsigned values so that no shift is undefined) then written as
 *     ULEB128 varints, 7 bits a byte, low group first, high bit set on
 *     every byte but the last; i8 is one byte; double is its IEEE 754 bits
 *     little-endian; binary and string are a varint length and the bytes.
 *   - A field header is one byte ddddtttt when the id is 1..15 above the
 *     previous field id of the same struct (0 at its start), else tttt
 *     alone followed by the id as a zigzag varint. A bool field's value is
 *     its type nibble (1 true, 2 false); no value bytes follow.
 *   - A struct ends with a 0 byte (stop). The previous-id state is a stack
 *     with one slot per open struct, so a nested struct (a field or a list
 *     element) starts at 0 and its end restores the parent's state.
 *   - A list header is sssstttt for 0..14 elements, else 1111tttt and the
 *     count as a varint. A map is a varint count then kkkkvvvv if it is
 *     not empty.
 *
 * Every function appends to one zb_buf and returns the writer's sticky rc:
 * after the first failure nothing more is written. Small values are built
 * in a local array and appended once, so each call costs one append.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/thrift/pq_thrift_write.h"

/* A varint takes at most 10 bytes; a header byte plus one, 11. */
#define VARINT_MAX 10

void pq_thrift_writer_init(pq_thrift_writer *w, zb_buf *out, zb_ctx *ctx)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->ctx = ctx;
    w->rc = ZB_OK;
}

int pq_thrift_put_rc(const pq_thrift_writer *w)
{
    return w->rc;
}

static int put(pq_thrift_writer *w, const void *p, size_t n)
{
    if (w->rc < 0)
        return w->rc;
    if (zb_buf_append(w->out, p, n) < 0)
        w->rc = zb_fail(w->ctx, ZB_ENOMEM,
                        "parquet thrift writer: out of memory or past the "
                        "%zu-byte cap of the output (%zu bytes written)",
                        w->out->max_bytes, w->out->len);
    return w->rc;
}

static int invalid(pq_thrift_writer *w, const char *what)
{
    if (w->rc < 0)
        return w->rc;
    w->rc = zb_fail(w->ctx, ZB_EINVAL, "parquet thrift writer: %s", what);
    return w->rc;
}

/* Encodes v as a varint at p; returns the bytes used (1..10). */
static size_t varint_at(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v & 0x7f) | 0x80;
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(int64_t v)
{
    /* The arithmetic shift of a negative value gives all ones: do it on
     * the unsigned bits, testing the sign, to stay defined. */
    uint64_t u = (uint64_t)v;

    return (u << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

int pq_thrift_put_varint(pq_thrift_writer *w, uint64_t v)
{
    uint8_t b[VARINT_MAX];

    return put(w, b, varint_at(b, v));
}

int pq_thrift_put_i8(pq_thrift_writer *w, int8_t v)
{
    uint8_t b = (uint8_t)v;

    return put(w, &b, 1);
}

int pq_thrift_put_i16(pq_thrift_writer *w, int16_t v)
{
    return pq_thrift_put_varint(w, zigzag(v));
}

int pq_thrift_put_i32(pq_thrift_writer *w, int32_t v)
{
    return pq_thrift_put_varint(w, zigzag(v));
}

int pq_thrift_put_i64(pq_thrift_writer *w, int64_t v)
{
    return pq_thrift_put_varint(w, zigzag(v));
}

int pq_thrift_put_double(pq_thrift_writer *w, double v)
{
    uint8_t b[8];
    uint64_t bits;
    int i;

    memcpy(&bits, &v, sizeof bits);
    for (i = 0; i < 8; i++)
        b[i] = (uint8_t)(bits >> (8 * i));
    return put(w, b, sizeof b);
}

int pq_thrift_put_binary(pq_thrift_writer *w, const void *data, size_t len)
{
    int rc;

    if (len > (size_t)INT32_MAX)
        return invalid(w, "binary longer than 2^31-1 bytes");
    if (len > 0 && data == NULL)
        return invalid(w, "binary of non-zero length has no data");
    if ((rc = pq_thrift_put_varint(w, (uint64_t)len)) < 0 || len == 0)
        return rc;
    return put(w, data, len);
}

int pq_thrift_put_string(pq_thrift_writer *w, const char *s)
{
    if (s == NULL)
        return invalid(w, "string is NULL");
    return pq_thrift_put_binary(w, s, strlen(s));
}

int pq_thrift_put_bool_elem(pq_thrift_writer *w, int v)
{
    uint8_t b = v ? PQ_TT_TRUE : PQ_TT_FALSE;

    return put(w, &b, 1);
}

int pq_thrift_put_struct_begin(pq_thrift_writer *w)
{
    if (w->rc < 0)
        return w->rc;
    if (w->depth >= PQ_THRIFT_MAX_DEPTH)
        return invalid(w, "structs nested too deep");
    w->last[w->depth++] = 0;
    return ZB_OK;
}

int pq_thrift_put_struct_end(pq_thrift_writer *w)
{
    uint8_t stop = PQ_TT_STOP;

    if (w->rc < 0)
        return w->rc;
    if (w->depth == 0)
        return invalid(w, "struct end without a struct begin");
    w->depth--;
    return put(w, &stop, 1);
}

/* The header byte(s) of a field of wire type nibble `type`. */
static int field_header(pq_thrift_writer *w, uint8_t type, int16_t id)
{
    uint8_t b[1 + VARINT_MAX];
    size_t n = 0;
    int32_t delta;

    if (w->rc < 0)
        return w->rc;
    if (w->depth == 0)
        return invalid(w, "field outside a struct");
    delta = (int32_t)id - w->last[w->depth - 1];
    if (delta > 0 && delta <= 15) {
        b[n++] = (uint8_t)(delta << 4 | type);
    } else {
        b[n++] = type;
        n += varint_at(b + n, zigzag(id));
    }
    w->last[w->depth - 1] = id;
    return put(w, b, n);
}

int pq_thrift_put_field_header(pq_thrift_writer *w, uint8_t type, int16_t id)
{
    if (type == PQ_TT_STOP || type == PQ_TT_TRUE || type == PQ_TT_FALSE ||
        type > PQ_TT_UUID)
        return invalid(w, "field header of a stop, bool or unknown type");
    return field_header(w, type, id);
}

int pq_thrift_put_field_bool(pq_thrift_writer *w, int16_t id, int v)
{
    return field_header(w, v ? PQ_TT_TRUE : PQ_TT_FALSE, id);
}

int pq_thrift_put_field_i8(pq_thrift_writer *w, int16_t id, int8_t v)
{
    pq_thrift_put_field_header(w, PQ_TT_I8, id);
    return pq_thrift_put_i8(w, v);
}

int pq_thrift_put_field_i16(pq_thrift_writer *w, int16_t id, int16_t v)
{
    pq_thrift_put_field_header(w, PQ_TT_I16, id);
    return pq_thrift_put_i16(w, v);
}

int pq_thrift_put_field_i32(pq_thrift_writer *w, int16_t id, int32_t v)
{
    pq_thrift_put_field_header(w, PQ_TT_I32, id);
    return pq_thrift_put_i32(w, v);
}

int pq_thrift_put_field_i64(pq_thrift_writer *w, int16_t id, int64_t v)
{
    pq_thrift_put_field_header(w, PQ_TT_I64, id);
    return pq_thrift_put_i64(w, v);
}

int pq_thrift_put_field_double(pq_thrift_writer *w, int16_t id, double v)
{
    pq_thrift_put_field_header(w, PQ_TT_DOUBLE, id);
    return pq_thrift_put_double(w, v);
}

int pq_thrift_put_field_binary(pq_thrift_writer *w, int16_t id,
                               const void *data, size_t len)
{
    pq_thrift_put_field_header(w, PQ_TT_BINARY, id);
    return pq_thrift_put_binary(w, data, len);
}

int pq_thrift_put_field_string(pq_thrift_writer *w, int16_t id,
                               const char *s)
{
    if (s == NULL)
        return invalid(w, "string field is NULL");
    pq_thrift_put_field_header(w, PQ_TT_BINARY, id);
    return pq_thrift_put_string(w, s);
}

int pq_thrift_put_field_struct_begin(pq_thrift_writer *w, int16_t id)
{
    pq_thrift_put_field_header(w, PQ_TT_STRUCT, id);
    return pq_thrift_put_struct_begin(w);
}

int pq_thrift_put_field_empty_struct(pq_thrift_writer *w, int16_t id)
{
    pq_thrift_put_field_struct_begin(w, id);
    return pq_thrift_put_struct_end(w);
}

static int valid_elem(uint8_t type)
{
    return type != PQ_TT_STOP && type <= PQ_TT_UUID;
}

int pq_thrift_put_list_begin(pq_thrift_writer *w, uint8_t elem_type,
                             size_t count)
{
    uint8_t b[1 + VARINT_MAX];
    size_t n = 0;

    if (!valid_elem(elem_type))
        return invalid(w, "list of an unknown element type");
    if (count > (size_t)INT32_MAX)
        return invalid(w, "list of more than 2^31-1 elements");
    if (count < 15) {
        b[n++] = (uint8_t)(count << 4 | elem_type);
    } else {
        b[n++] = (uint8_t)(0xf0 | elem_type);
        n += varint_at(b + n, (uint64_t)count);
    }
    return put(w, b, n);
}

int pq_thrift_put_field_list_begin(pq_thrift_writer *w, int16_t id,
                                   uint8_t elem_type, size_t count)
{
    pq_thrift_put_field_header(w, PQ_TT_LIST, id);
    return pq_thrift_put_list_begin(w, elem_type, count);
}

int pq_thrift_put_map_begin(pq_thrift_writer *w, uint8_t key_type,
                            uint8_t value_type, size_t count)
{
    uint8_t b[VARINT_MAX + 1];
    size_t n;

    if (!valid_elem(key_type) || !valid_elem(value_type))
        return invalid(w, "map of an unknown key or value type");
    if (count > (size_t)INT32_MAX)
        return invalid(w, "map of more than 2^31-1 entries");
    n = varint_at(b, (uint64_t)count);
    if (count > 0)
        b[n++] = (uint8_t)(key_type << 4 | value_type);
    return put(w, b, n);
}

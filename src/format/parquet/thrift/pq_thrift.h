/*
 * format/parquet/thrift/pq_thrift.h - a reader of the Thrift compact protocol
 * over one bounded byte range (private to format/parquet).
 *
 * The reader never allocates and never reads outside buf[0..len). Every
 * function returns ZB_OK or ZB_ECORRUPT; on error the message in ctx names
 * the field (the `what` argument, such as "ColumnMetaData.codec") and the
 * byte offset in the range where the bad bytes start. A count read from the
 * input (list, set, map, binary length) is checked against the bytes left
 * before the caller sees it, so a caller may allocate count elements.
 * Nesting (structs, lists, maps) is bounded by PQ_THRIFT_MAX_DEPTH.
 *
 * Decoding a struct:
 *
 *     int16_t last = 0;
 *     pq_thrift_field f;
 *     if ((rc = pq_thrift_struct_begin(t, &last, "X")) < 0) return rc;
 *     while ((rc = pq_thrift_field_next(t, &f, &last, "X")) == ZB_OK &&
 *            f.type != PQ_TT_STOP) {
 *         switch (f.id) {
 *         case 1: rc = pq_thrift_field_i32(t, &f, &x->a, "X.a"); break;
 *         default: rc = pq_thrift_skip_field(t, &f, "X"); break;
 *         }
 *         if (rc < 0) return rc;
 *     }
 *     if (rc < 0) return rc;
 *     pq_thrift_struct_end(t);
 */
#ifndef ZB_FORMAT_PARQUET_PQ_THRIFT_H
#define ZB_FORMAT_PARQUET_PQ_THRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PQ_THRIFT_MAX_DEPTH 64

/* Wire types of the compact protocol (field types and element types). */
typedef enum pq_tt {
    PQ_TT_STOP = 0,
    PQ_TT_TRUE = 1,     /* in a field header; as an element type: bool */
    PQ_TT_FALSE = 2,    /* in a field header; as an element type: bool */
    PQ_TT_I8 = 3,
    PQ_TT_I16 = 4,
    PQ_TT_I32 = 5,
    PQ_TT_I64 = 6,
    PQ_TT_DOUBLE = 7,
    PQ_TT_BINARY = 8,
    PQ_TT_LIST = 9,
    PQ_TT_SET = 10,
    PQ_TT_MAP = 11,
    PQ_TT_STRUCT = 12,
    PQ_TT_UUID = 13
} pq_tt;

typedef struct pq_thrift {
    const uint8_t *buf;
    size_t len;
    size_t pos;            /* next byte to read */
    unsigned depth;        /* open structs, lists and maps */
    zb_ctx *ctx;
    const char *doc;       /* "footer", "page header": starts messages */
} pq_thrift;

typedef struct pq_thrift_field {
    int16_t id;
    uint8_t type;          /* pq_tt; PQ_TT_STOP ends the struct */
    int bool_value;        /* the value of a bool field (no bytes follow) */
    size_t offset;         /* where the field header starts */
} pq_thrift_field;

void pq_thrift_init(pq_thrift *t, zb_ctx *ctx, const char *doc,
                    const uint8_t *buf, size_t len);

/* Records ZB_ECORRUPT "<doc> <what> at offset <offset>: <reason>". */
int pq_thrift_fail(pq_thrift *t, size_t offset, const char *what,
                   const char *fmt, ...) ZB_PRINTF(4, 5);

/* Plain values. */
int pq_thrift_varint(pq_thrift *t, uint64_t *out, const char *what);
int pq_thrift_i8(pq_thrift *t, int8_t *out, const char *what);
int pq_thrift_i16(pq_thrift *t, int16_t *out, const char *what);
int pq_thrift_i32(pq_thrift *t, int32_t *out, const char *what);
int pq_thrift_i64(pq_thrift *t, int64_t *out, const char *what);
int pq_thrift_double(pq_thrift *t, double *out, const char *what);
/* *data points into the range (borrowed); *len is checked to fit. */
int pq_thrift_binary(pq_thrift *t, const uint8_t **data, size_t *len,
                     const char *what);
/* A bool list element: one byte, 1 is true, 0 or 2 false. */
int pq_thrift_bool_elem(pq_thrift *t, int *out, const char *what);

/*
 * Structs. begin/end count the nesting depth; *last_id is the field id
 * state that short-form headers are deltas of. field_next returns the next
 * field header; f->type is PQ_TT_STOP at the end of the struct.
 */
int pq_thrift_struct_begin(pq_thrift *t, int16_t *last_id, const char *what);
void pq_thrift_struct_end(pq_thrift *t);
int pq_thrift_field_next(pq_thrift *t, pq_thrift_field *f, int16_t *last_id,
                         const char *what);

/*
 * Lists and sets: header with element type and count (count <= bytes
 * left). Maps: key and value types and count (2 * count <= bytes left).
 * Each begin must be paired with pq_thrift_container_end.
 */
int pq_thrift_list_begin(pq_thrift *t, uint8_t *elem_type, size_t *count,
                         const char *what);
int pq_thrift_map_begin(pq_thrift *t, uint8_t *key_type, uint8_t *value_type,
                        size_t *count, const char *what);
void pq_thrift_container_end(pq_thrift *t);

/*
 * Skips one value of the given wire type, whatever it contains. For a
 * bool type this reads a list element's byte: skip a field with
 * pq_thrift_skip_field, which knows that a bool field has no value bytes.
 */
int pq_thrift_skip(pq_thrift *t, uint8_t type, const char *what);
int pq_thrift_skip_field(pq_thrift *t, const pq_thrift_field *f,
                         const char *what);

/*
 * Field readers: check the wire type of field f, then read its value.
 * field_list also checks the element type (want_elem; PQ_TT_TRUE for
 * bool) unless the list is empty.
 */
int pq_thrift_field_bool(pq_thrift *t, const pq_thrift_field *f, int *out,
                         const char *what);
int pq_thrift_field_i8(pq_thrift *t, const pq_thrift_field *f, int8_t *out,
                       const char *what);
int pq_thrift_field_i16(pq_thrift *t, const pq_thrift_field *f, int16_t *out,
                        const char *what);
int pq_thrift_field_i32(pq_thrift *t, const pq_thrift_field *f, int32_t *out,
                        const char *what);
int pq_thrift_field_i64(pq_thrift *t, const pq_thrift_field *f, int64_t *out,
                        const char *what);
int pq_thrift_field_binary(pq_thrift *t, const pq_thrift_field *f,
                           const uint8_t **data, size_t *len,
                           const char *what);
int pq_thrift_field_struct(pq_thrift *t, const pq_thrift_field *f,
                           const char *what);
int pq_thrift_field_list(pq_thrift *t, const pq_thrift_field *f,
                         uint8_t want_elem, size_t *count, const char *what);

#endif

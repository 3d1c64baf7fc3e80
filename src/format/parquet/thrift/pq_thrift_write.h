/*
 * format/parquet/thrift/pq_thrift_write.h - a writer of the Thrift compact
 * protocol into a zb_buf (private to format/parquet); the counterpart of
 * pq_thrift.h, which reads what this writes.
 *
 * Errors are sticky: the first failure is recorded in w->rc (and its
 * message in ctx) and every later call returns it without writing, so a
 * caller may emit a whole struct and check once at the end with
 * pq_thrift_put_rc. Failures: ZB_ENOMEM (allocation failed or the buffer's
 * cap was reached) and ZB_EINVAL (a broken contract: nesting deeper than
 * PQ_THRIFT_MAX_DEPTH, a struct end without a begin, a count or length
 * that the protocol cannot carry). The bytes written before a failure
 * stay in the buffer; the caller truncates it if it wants them gone.
 *
 * Writing a struct:
 *
 *     pq_thrift_writer w;
 *     pq_thrift_writer_init(&w, out, ctx);
 *     pq_thrift_put_struct_begin(&w);
 *     pq_thrift_put_field_i32(&w, 1, x->a);          required
 *     if (x->has_b)
 *         pq_thrift_put_field_string(&w, 2, x->b);   optional
 *     pq_thrift_put_field_list_begin(&w, 3, PQ_TT_I32, x->n_c);
 *     for (i = 0; i < x->n_c; i++)
 *         pq_thrift_put_i32(&w, x->c[i]);
 *     pq_thrift_put_struct_end(&w);                  writes the stop byte
 *     return pq_thrift_put_rc(&w);
 *
 * Field ids within one struct should ascend (the short header form then
 * applies to gaps of 1..15) but any order is valid: a gap above 15, a
 * decrease or a first id above 15 takes the long form. Lists and maps need
 * no end call: their headers carry the element count, and the caller
 * writes exactly that many elements.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_THRIFT_WRITE_H
#define ZB_FORMAT_PARQUET_PQ_THRIFT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/thrift/pq_thrift.h"
#include "util/buf.h"
#include "util/err.h"

typedef struct pq_thrift_writer {
    zb_buf *out;                       /* bytes are appended here */
    zb_ctx *ctx;
    int rc;                            /* ZB_OK or the first failure */
    unsigned depth;                    /* open structs */
    int16_t last[PQ_THRIFT_MAX_DEPTH]; /* last field id per open struct */
} pq_thrift_writer;

void pq_thrift_writer_init(pq_thrift_writer *w, zb_buf *out, zb_ctx *ctx);

/* ZB_OK, or the first failure (its message is in ctx). */
int pq_thrift_put_rc(const pq_thrift_writer *w);

/* Plain values (list elements, or the value after a field header). */
int pq_thrift_put_varint(pq_thrift_writer *w, uint64_t v);
int pq_thrift_put_i8(pq_thrift_writer *w, int8_t v);
int pq_thrift_put_i16(pq_thrift_writer *w, int16_t v);
int pq_thrift_put_i32(pq_thrift_writer *w, int32_t v);
int pq_thrift_put_i64(pq_thrift_writer *w, int64_t v);
int pq_thrift_put_double(pq_thrift_writer *w, double v);
int pq_thrift_put_binary(pq_thrift_writer *w, const void *data, size_t len);
int pq_thrift_put_string(pq_thrift_writer *w, const char *s);
/* A bool list element: one byte, 1 for true and 2 for false. */
int pq_thrift_put_bool_elem(pq_thrift_writer *w, int v);

/*
 * Structs. struct_begin opens a struct (the top-level one, a list
 * element, or after a struct field header) and starts its field id state
 * at 0; struct_end writes the stop byte and returns to the enclosing
 * struct's state.
 */
int pq_thrift_put_struct_begin(pq_thrift_writer *w);
int pq_thrift_put_struct_end(pq_thrift_writer *w);

/*
 * A field header of wire type (PQ_TT_I32, ...; not a bool: use
 * put_field_bool) in the innermost open struct: the delta form when the
 * id is 1..15 above the previous field's, else the long form.
 */
int pq_thrift_put_field_header(pq_thrift_writer *w, uint8_t type,
                               int16_t id);

/* A bool field: its value is the header's type nibble, no bytes follow. */
int pq_thrift_put_field_bool(pq_thrift_writer *w, int16_t id, int v);

/* A field header followed by its value. */
int pq_thrift_put_field_i8(pq_thrift_writer *w, int16_t id, int8_t v);
int pq_thrift_put_field_i16(pq_thrift_writer *w, int16_t id, int16_t v);
int pq_thrift_put_field_i32(pq_thrift_writer *w, int16_t id, int32_t v);
int pq_thrift_put_field_i64(pq_thrift_writer *w, int16_t id, int64_t v);
int pq_thrift_put_field_double(pq_thrift_writer *w, int16_t id, double v);
int pq_thrift_put_field_binary(pq_thrift_writer *w, int16_t id,
                               const void *data, size_t len);
int pq_thrift_put_field_string(pq_thrift_writer *w, int16_t id,
                               const char *s);

/* A struct field's header and struct_begin; close with struct_end. */
int pq_thrift_put_field_struct_begin(pq_thrift_writer *w, int16_t id);

/* A struct field with no members (Thrift's marker structs, unions). */
int pq_thrift_put_field_empty_struct(pq_thrift_writer *w, int16_t id);

/*
 * List (and set) headers: sssstttt for 0..14 elements, else 1111tttt and
 * the count as a varint. elem_type is a wire type; PQ_TT_TRUE for bool.
 * count must fit in an i32.
 */
int pq_thrift_put_list_begin(pq_thrift_writer *w, uint8_t elem_type,
                             size_t count);
int pq_thrift_put_field_list_begin(pq_thrift_writer *w, int16_t id,
                                   uint8_t elem_type, size_t count);

/* Map header: the count as a varint, then kkkkvvvv unless it is empty. */
int pq_thrift_put_map_begin(pq_thrift_writer *w, uint8_t key_type,
                            uint8_t value_type, size_t count);

#endif

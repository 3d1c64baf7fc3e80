/*
 * format/parquet/thrift/pq_meta_int.h - the field readers that the footer
 * (pq_meta.c) and page header (pq_page_header.c) decoders share. Each
 * reads one field of a struct with pq_thrift.c and checks its value once.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_META_INT_H
#define ZB_FORMAT_PARQUET_PQ_META_INT_H

#include <stdint.h>

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_thrift.h"

#define BIT(id) (1u << (id))

/* 1 for a field, 0 at the stop byte, or an rc. */
int pq_meta__next(pq_thrift *t, pq_thrift_field *f, int16_t *last,
                  const char *what);

/* Fails naming the first field of names[] whose bit is in need, not seen. */
int pq_meta__require(pq_thrift *t, size_t start, const char *what,
                     uint32_t seen, uint32_t need_mask,
                     const char *const *names);

/* An i32 enum field in [0, max]. */
int pq_meta__enum_field(pq_thrift *t, const pq_thrift_field *f,
                        int32_t max, int32_t *out, const char *what);

/* An i32 field that is not negative. */
int pq_meta__nonneg_i32(pq_thrift *t, const pq_thrift_field *f,
                        int32_t *out, const char *what);

/* A LogicalType union into *lt (pq_logical_type.c). */
int pq_meta__logical_type(pq_thrift *t, pq_logical *lt);

#endif

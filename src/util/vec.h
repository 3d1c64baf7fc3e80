/*
 * util/vec.h - a growable array of fixed-size elements with a cap.
 *
 *     zb_vec v;
 *     zb_vec_init(&v, sizeof(uint64_t), 1 << 20);
 *     uint64_t *slot;
 *     if ((rc = zb_vec_push(&v, (void **)&slot)) < 0) ...
 *     *slot = 42;
 *     uint64_t *all = v.items;
 */
#ifndef ZB_UTIL_VEC_H
#define ZB_UTIL_VEC_H

#include <stddef.h>

typedef struct zb_vec {
    void *items;
    size_t len;         /* elements in use */
    size_t cap;         /* elements allocated */
    size_t elem_size;
    size_t max_len;     /* len never exceeds this */
} zb_vec;

void zb_vec_init(zb_vec *v, size_t elem_size, size_t max_len);
void zb_vec_free(zb_vec *v);

/* Appends one zeroed element and points *slot at it; ZB_OK or ZB_ENOMEM. */
int zb_vec_push(zb_vec *v, void **slot);

/* Appends a copy of elem; ZB_OK or ZB_ENOMEM. */
int zb_vec_append(zb_vec *v, const void *elem);

/* The element at index i (i < len). */
void *zb_vec_at(const zb_vec *v, size_t i);

#endif

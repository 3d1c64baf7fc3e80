/*
 * util/vec.c - growable arrays (see util/vec.h). Growth doubles, clamped
 * to max_len.
 */
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/vec.h"

void zb_vec_init(zb_vec *v, size_t elem_size, size_t max_len)
{
    v->items = NULL;
    v->len = 0;
    v->cap = 0;
    v->elem_size = elem_size;
    v->max_len = max_len;
}

void zb_vec_free(zb_vec *v)
{
    zb_free(v->items);
    v->items = NULL;
    v->len = 0;
    v->cap = 0;
}

static int grow(zb_vec *v)
{
    size_t want = v->cap ? v->cap * 2 : 8, bytes;
    void *p;

    if (v->len >= v->max_len)
        return ZB_ENOMEM;
    if (want > v->max_len || want < v->cap)
        want = v->max_len;
    if (zb_mul_overflow(&bytes, want, v->elem_size))
        return ZB_ENOMEM;
    if ((p = zb_realloc(v->items, bytes)) == NULL)
        return ZB_ENOMEM;
    v->items = p;
    v->cap = want;
    return ZB_OK;
}

int zb_vec_push(zb_vec *v, void **slot)
{
    int rc;

    if (v->len == v->cap && (rc = grow(v)) < 0)
        return rc;
    *slot = (char *)v->items + v->len * v->elem_size;
    memset(*slot, 0, v->elem_size);
    v->len++;
    return ZB_OK;
}

int zb_vec_append(zb_vec *v, const void *elem)
{
    void *slot;
    int rc;

    if ((rc = zb_vec_push(v, &slot)) < 0)
        return rc;
    memcpy(slot, elem, v->elem_size);
    return ZB_OK;
}

void *zb_vec_at(const zb_vec *v, size_t i)
{
    return (char *)v->items + i * v->elem_size;
}

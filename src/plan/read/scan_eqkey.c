/*
 * plan/read/scan_eqkey.c - the canonical key bytes of equality deletes,
 * taken from projected arrays so that both sides of the comparison have
 * gone through the same promotions, and the path of a key field in the
 * read schema.
 */
#define ZB_MODULE "plan"

#include <string.h>

#include "plan/read/scan_read_int.h"

int zb_scan__key_append(zb_buf *out, const struct ArrowArray *a,
                        const ice_type *t, int64_t i)
{
    uint8_t tmp[20];
    int64_t p = a->offset + i;
    int w;

    if (!zb_scan__src_valid(a, p) || t->id == ICE_UNKNOWN)
        return zb_buf_append_small(out, "\0", 1);
    tmp[0] = 1;
    switch (t->id) {
    case ICE_BOOLEAN:
        tmp[1] = (uint8_t)zb_arrow_bit(a->buffers[1], p);
        return zb_buf_append_small(out, tmp, 2);
    case ICE_INT: case ICE_DATE: {
        int32_t v32;
        int64_t v;
        memcpy(&v32, (const uint8_t *)a->buffers[1] + 4 * p, 4);
        v = v32;
        memcpy(tmp + 1, &v, 8);
        return zb_buf_append_small(out, tmp, 9);
    }
    case ICE_FLOAT: case ICE_DOUBLE: {
        double d;
        if (t->id == ICE_FLOAT) {
            float fl;
            memcpy(&fl, (const uint8_t *)a->buffers[1] + 4 * p, 4);
            d = fl;
        } else {
            memcpy(&d, (const uint8_t *)a->buffers[1] + 8 * p, 8);
        }
        if (d != d) {
            uint64_t nan = 0x7ff8000000000000ULL;
            memcpy(tmp + 1, &nan, 8);
        } else {
            memcpy(tmp + 1, &d, 8);
        }
        return zb_buf_append_small(out, tmp, 9);
    }
    case ICE_STRING: case ICE_BINARY: case ICE_GEOMETRY: case ICE_GEOGRAPHY: {
        const int32_t *o = a->buffers[1];
        uint32_t len = (uint32_t)(o[p + 1] - o[p]);
        int rc;
        memcpy(tmp + 1, &len, 4);
        if ((rc = zb_buf_append_small(out, tmp, 5)) < 0)
            return rc;
        return zb_buf_append(out, (const char *)a->buffers[2] + o[p], len);
    }
    case ICE_FIXED:
        if ((w = t->prim.length) <= 0)
            return ZB_EINVAL;
        if (zb_buf_append_small(out, tmp, 1) < 0)
            return ZB_ENOMEM;
        return zb_buf_append(out, (const uint8_t *)a->buffers[1] +
                                      (size_t)w * (size_t)p, (size_t)w);
    default:
        if ((w = zb_scan__value_width(t->id)) <= 0)
            return ZB_EUNSUPPORTED;
        memcpy(tmp + 1, (const uint8_t *)a->buffers[1] + (size_t)w * (size_t)p,
               (size_t)w);
        return zb_buf_append_small(out, tmp, 1 + (size_t)w);
    }
}

size_t zb_scan__field_path(const ice_field **path, size_t max,
                           const ice_type *root, int32_t id)
{
    size_t i, d;

    if (root == NULL || root->id != ICE_STRUCT || max == 0)
        return 0;
    for (i = 0; i < root->n_fields; i++) {
        const ice_field *f = &root->fields[i];
        if (f->id == id) {
            path[0] = f;
            return 1;
        }
        if (f->type->id == ICE_STRUCT &&
            (d = zb_scan__field_path(path + 1, max - 1, f->type, id)) > 0) {
            path[0] = f;
            return d + 1;
        }
    }
    return 0;
}

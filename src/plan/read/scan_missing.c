/*
 * plan/read/scan_missing.c - the rows of a read field the file does not
 * have: its identity-partition value, its initial default, or null, the
 * same constant in every row, in the Arrow form of the read type (see
 * scan_project.c).
 */
#define ZB_MODULE "plan"

#include <string.h>

#include "plan/read/scan_read_int.h"
#include "util/alloc.h"
#include "util/err.h"


/* The partition value standing in for field f, or NULL. */
static const ice_value *partition_value(const zb_proj_file *pf,
                                        const ice_field *f)
{
    size_t i, j;

    if (f == NULL || pf->spec == NULL || pf->df == NULL)
        return NULL;
    for (i = 0; i < pf->spec->n_fields; i++) {
        const ice_partition_field *p = &pf->spec->fields[i];
        if (p->source_id != f->id || strcmp(p->transform, "identity") != 0)
            continue;
        for (j = 0; j < pf->df->n_partition; j++)
            if (pf->df->partition_field_ids &&
                pf->df->partition_field_ids[j] == p->field_id)
                return &pf->df->partition[j];
        if (i < pf->df->n_partition && pf->df->partition_field_ids == NULL)
            return &pf->df->partition[i];
    }
    return NULL;
}

/* The 64-bit form of an integer-like constant in the unit of target t. */
static int const_i64(const ice_value *v, ice_type_id t, int64_t *out)
{
    int64_t x;

    switch (v->type) {
    case ICE_INT: case ICE_DATE: x = v->u.i; break;
    case ICE_LONG: case ICE_TIME: case ICE_TIMESTAMP: case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS: case ICE_TIMESTAMPTZ_NS: x = v->u.l; break;
    case ICE_BOOLEAN: x = v->u.b; break;
    default: return -1;
    }
    if (v->type == ICE_DATE && (t == ICE_TIMESTAMP || t == ICE_TIMESTAMPTZ))
        x *= 86400000000LL;
    else if (v->type == ICE_DATE && (t == ICE_TIMESTAMP_NS ||
                                     t == ICE_TIMESTAMPTZ_NS))
        x *= 86400000000000LL;
    *out = x;
    return 0;
}

/* Long: one branch per family of read types, as gather_prim, all leaving
 * through the shared badconst and oom exits. */
int zb_scan__fill_const(const zb_proj_file *pf, zb_ctx *ctx,
                        struct ArrowArray *out, const ice_type *t,
                        const ice_field *f, const ice_value *v, size_t n)
{
    size_t i;
    int w = zb_scan__value_width(t->id);
    int rc;

    if (t->id == ICE_UNKNOWN) {
        if ((rc = zb_arrow_array_init(out, 0, 0)) < 0)
            return zb_fail_oom(ctx);
        out->length = (int64_t)n;
        out->null_count = (int64_t)n;
        return ZB_OK;
    }
    if (t->id == ICE_VARIANT) {
        if ((rc = zb_arrow_array_init(out, 1, 2)) < 0 ||
            (rc = zb_scan__alloc_validity(out, n)) < 0)
            goto oom;
        out->length = (int64_t)n;
        out->null_count = (int64_t)n;
        if ((rc = zb_scan__fill_const(pf, ctx, out->children[0],
                                      &zb_scan__variant_part, f, NULL,
                                      n)) < 0 ||
            (rc = zb_scan__fill_const(pf, ctx, out->children[1],
                                      &zb_scan__variant_part, f, NULL,
                                      n)) < 0) {
            zb_arrow_array_release(out);
            return rc;
        }
        return ZB_OK;
    }
    if ((rc = zb_arrow_array_init(out, zb_scan__is_varlen(t->id) ? 3 : 2,
                                  0)) < 0 ||
        (rc = zb_scan__alloc_validity(out, n)) < 0)
        goto oom;
    out->length = (int64_t)n;
    if (v && v->is_null)
        v = NULL;
    if (t->id == ICE_BOOLEAN) {
        uint8_t *bits = zb_scan__alloc_buf((n + 7) / 8);
        if ((out->buffers[1] = bits) == NULL)
            goto oom;
        for (i = 0; i < n; i++) {
            zb_scan__set_valid(out, (int64_t)i, v != NULL);
            if (v && v->u.b)
                zb_arrow_set_bit(bits, (int64_t)i);
        }
        return ZB_OK;
    }
    if (zb_scan__is_varlen(t->id)) {
        size_t len = v ? v->u.bin.len : 0, total;
        int32_t *off;
        char *data;
        if (zb_mul_overflow(&total, len, n) || total > INT32_MAX)
            return zb_fail(ctx, ZB_ENOMEM, "%s: field %s: default value too "
                           "large for a batch", pf->uri, zb_scan__fname(f));
        off = zb_scan__alloc_buf((n + 1) * sizeof *off);
        data = zb_scan__alloc_buf(total);
        out->buffers[1] = off;
        out->buffers[2] = data;
        if (!off || !data)
            goto oom;
        for (i = 0; i < n; i++) {
            zb_scan__set_valid(out, (int64_t)i, v != NULL);
            if (v)
                memcpy(data + i * len, v->u.bin.ptr, len);
            off[i + 1] = (int32_t)((i + 1) * len);
        }
        return ZB_OK;
    }
    if (t->id == ICE_FIXED)
        w = t->prim.length;
    if (w <= 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: type %s",
                       pf->uri, zb_scan__fname(f), ice_type_name(t->id));
    {
        uint8_t *data = zb_scan__alloc_buf(n * (size_t)w);
        uint8_t one[16];
        memset(one, 0, sizeof one);
        if ((out->buffers[1] = data) == NULL)
            goto oom;
        if (v) {
            int64_t x;
            int32_t x32;
            double d;
            float fl;
            switch (t->id) {
            case ICE_INT: case ICE_DATE:
                if (const_i64(v, t->id, &x) < 0)
                    goto badconst;
                x32 = (int32_t)x;
                memcpy(one, &x32, 4);
                break;
            case ICE_LONG: case ICE_TIME: case ICE_TIMESTAMP:
            case ICE_TIMESTAMPTZ: case ICE_TIMESTAMP_NS:
            case ICE_TIMESTAMPTZ_NS:
                if (const_i64(v, t->id, &x) < 0)
                    goto badconst;
                memcpy(one, &x, 8);
                break;
            case ICE_FLOAT:
                if (v->type != ICE_FLOAT)
                    goto badconst;
                fl = v->u.f;
                memcpy(one, &fl, 4);
                break;
            case ICE_DOUBLE:
                if (v->type != ICE_DOUBLE && v->type != ICE_FLOAT)
                    goto badconst;
                d = v->type == ICE_FLOAT ? (double)v->u.f : v->u.d;
                memcpy(one, &d, 8);
                break;
            case ICE_DECIMAL:
                if (v->type != ICE_DECIMAL || v->u.dec.scale != t->prim.scale)
                    goto badconst;
                memcpy(one, &v->u.dec.unscaled.lo, 8);
                memcpy(one + 8, &v->u.dec.unscaled.hi, 8);
                break;
            case ICE_UUID:
                if (v->type != ICE_UUID)
                    goto badconst;
                memcpy(one, v->u.uuid, 16);
                break;
            case ICE_FIXED:
                if (v->u.bin.len != (size_t)w)
                    goto badconst;
                break;
            default:
                goto badconst;
            }
        }
        for (i = 0; i < n; i++) {
            zb_scan__set_valid(out, (int64_t)i, v != NULL);
            if (v)
                memcpy(data + i * (size_t)w,
                       t->id == ICE_FIXED ? v->u.bin.ptr : one, (size_t)w);
        }
    }
    return ZB_OK;
badconst:
    zb_arrow_array_release(out);
    return zb_fail(ctx, ZB_ECORRUPT, "%s: field %s: default or partition "
                   "value of type %s does not fit type %s", pf->uri,
                   zb_scan__fname(f), ice_type_name(v->type),
                   ice_type_name(t->id));
oom:
    zb_arrow_array_release(out);
    return zb_fail_oom(ctx);
}

/* A missing field: rows of the partition value, the default, or null. */
int zb_scan__gather_missing(const zb_proj_file *pf, zb_ctx *ctx,
                            struct ArrowArray *out, const ice_type *t,
                            const ice_field *f, size_t n)
{
    const ice_value *pv = partition_value(pf, f);
    ice_value dv;
    size_t i;
    int rc;

    if (t->id == ICE_STRUCT) {
        int valid = f && f->initial_default != NULL &&
                    strcmp(f->initial_default, "null") != 0;
        if ((rc = zb_arrow_array_init(out, 1, (int64_t)t->n_fields)) < 0 ||
            (rc = zb_scan__alloc_validity(out, n)) < 0) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->length = (int64_t)n;
        for (i = 0; i < n; i++)
            zb_scan__set_valid(out, (int64_t)i, valid);
        for (i = 0; i < t->n_fields; i++)
            if ((rc = zb_scan__gather_missing(pf, ctx, out->children[i],
                                              t->fields[i].type, &t->fields[i],
                                              n)) < 0) {
                zb_arrow_array_release(out);
                return rc;
            }
        return ZB_OK;
    }
    if (t->id == ICE_LIST || t->id == ICE_MAP) {
        int32_t *off;
        if ((rc = zb_arrow_array_init(out, 2, 1)) < 0 ||
            (rc = zb_scan__alloc_validity(out, n)) < 0 ||
            (off = zb_scan__alloc_buf((n + 1) * sizeof *off)) == NULL) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->buffers[1] = off;
        out->length = (int64_t)n;
        out->null_count = (int64_t)n;
        if (t->id == ICE_LIST) {
            rc = zb_scan__gather_missing(pf, ctx, out->children[0], t->element,
                                         NULL, 0);
        } else {
            struct ArrowArray *e = out->children[0];
            rc = zb_arrow_array_init(e, 1, 2);
            if (rc == ZB_OK)
                rc = zb_scan__gather_missing(pf, ctx, e->children[0], t->key,
                                             NULL, 0);
            if (rc == ZB_OK)
                rc = zb_scan__gather_missing(pf, ctx, e->children[1], t->value,
                                             NULL, 0);
            if (rc == ZB_ENOMEM && ctx->err.code != ZB_ENOMEM)
                zb_fail_oom(ctx);
        }
        if (rc < 0)
            zb_arrow_array_release(out);
        return rc;
    }
    if (pv == NULL && f && f->required && f->initial_default == NULL &&
        n > 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: required field %s (id %d) is "
                       "not in the file and has no initial-default", pf->uri,
                       f->name, (int)f->id);
    if (pv == NULL && f && f->initial_default) {
        if ((rc = ice_value_from_json(&dv, ctx, pf->arena, &t->prim,
                                      f->initial_default,
                                      strlen(f->initial_default))) < 0)
            return zb_err_prefix(ctx, "%s: initial-default of field %s",
                                 pf->uri, f->name);
        pv = &dv;
    }
    return zb_scan__fill_const(pf, ctx, out, t, f, pv, n);
}

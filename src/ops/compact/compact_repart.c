/*
 * ops/compact/compact_repart.c - the partition values of rows under another
 * partition spec: what rewriting files of an older spec into the current
 * one (or output_spec_id) needs (ops/compact/compact.h).
 *
 * zb_compact__repart_new resolves each field of the spec: its source
 * column (a top-level field of the batches, found by its
 * PARQUET:field_id), the column's Iceberg type and the transform.
 * zb_compact__repart_row reads one row's source values from the Arrow
 * buffers into ice_values (strings and binaries borrowed from the batch)
 * and applies the transforms (table/value/transform.h). Sources inside structs
 * and multi-argument (v3) transforms are ZB_EUNSUPPORTED for now.
 */
#define ZB_MODULE "compact"

#include <stdlib.h>
#include <string.h>

#include "ops/compact/compact_int.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct rp_field {
    int col;                       /* child index in the batch */
    ice_prim type;                 /* the source's Iceberg type */
    ice_transform tr;
} rp_field;

struct zb_repart {
    const ice_partition_spec *spec;
    size_t n;
    rp_field *f;
};

static int find_col(const struct ArrowSchema *s, int32_t id)
{
    int64_t i;

    for (i = 0; i < s->n_children; i++) {
        char text[24];

        if (zb_arrow_metadata_get(text, sizeof text, s->children[i]->metadata,
                                  "PARQUET:field_id") &&
            strtol(text, NULL, 10) == (long)id)
            return (int)i;
    }
    return -1;
}

int zb_compact__repart_new(zb_repart **out, zb_ctx *ctx,
                           const ice_metadata *m,
                           const ice_partition_spec *spec,
                           const struct ArrowSchema *schema)
{
    const ice_schema *sch = ice_metadata_current_schema(m);
    zb_repart *p;
    size_t i;
    int rc;

    *out = NULL;
    if ((p = zb_calloc(1, sizeof *p)) == NULL ||
        (p->f = zb_calloc(spec->n_fields + 1, sizeof *p->f)) == NULL) {
        zb_free(p);
        return zb_fail_oom(ctx);
    }
    p->spec = spec;
    p->n = spec->n_fields;
    for (i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *pf = &spec->fields[i];
        const ice_type *ty = ice_schema_find_type(sch, pf->source_id);

        if ((rc = ice_transform_parse(&p->f[i].tr, ctx, pf->transform)) < 0)
            goto fail;
        if (pf->n_source_ids > 1 || p->f[i].tr.kind == ICE_TR_UNKNOWN ||
            ty == NULL || ty->id >= ICE_STRUCT ||
            (p->f[i].col = find_col(schema, pf->source_id)) < 0) {
            rc = zb_fail(ctx, ZB_EUNSUPPORTED, "%s: partition field %s "
                         "(%s of %d): rewriting rows into spec %d needs a "
                         "top-level primitive source and a known single-"
                         "argument transform", m->location, pf->name,
                         pf->transform, (int)pf->source_id,
                         (int)spec->spec_id);
            goto fail;
        }
        p->f[i].type = ty->prim;
    }
    *out = p;
    return ZB_OK;
fail:
    zb_compact__repart_free(p);
    return rc;
}

void zb_compact__repart_free(zb_repart *p)
{
    if (p == NULL)
        return;
    zb_free(p->f);
    zb_free(p);
}

size_t zb_compact__repart_fields(const zb_repart *p)
{
    return p->n;
}

/* The value of child a at logical row i (parent offset already added). */
static int cell(ice_value *v, zb_ctx *ctx, const ice_prim *type,
                const struct ArrowArray *a, int64_t i)
{
    const uint8_t *valid = a->buffers[0];
    int64_t k = i + a->offset;

    if (a->null_count != 0 && valid != NULL && !zb_arrow_bit(valid, k)) {
        *v = ice_value_null(type->id);
        return ZB_OK;
    }
    switch (type->id) {
    case ICE_BOOLEAN:
        *v = ice_value_bool(zb_arrow_bit(a->buffers[1], k));
        return ZB_OK;
    case ICE_INT:
        *v = ice_value_int(((const int32_t *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_DATE:
        *v = ice_value_date(((const int32_t *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_LONG:
        *v = ice_value_long(((const int64_t *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_FLOAT:
        *v = ice_value_float(((const float *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_DOUBLE:
        *v = ice_value_double(((const double *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        *v = ice_value_time(type->id, ((const int64_t *)a->buffers[1])[k]);
        return ZB_OK;
    case ICE_DECIMAL: {
        const uint8_t *b = (const uint8_t *)a->buffers[1] + 16 * k;
        ice_i128 u;

        memcpy(&u.lo, b, 8);      /* little-endian halves */
        memcpy(&u.hi, b + 8, 8);
        *v = ice_value_decimal(u, type->scale);
        return ZB_OK;
    }
    case ICE_STRING:
    case ICE_BINARY: {
        const int32_t *off = a->buffers[1];
        const char *data = a->buffers[2];

        *v = type->id == ICE_STRING
                 ? ice_value_string(data + off[k],
                                    (size_t)(off[k + 1] - off[k]))
                 : ice_value_binary(data + off[k],
                                    (size_t)(off[k + 1] - off[k]));
        return ZB_OK;
    }
    case ICE_UUID:
        *v = ice_value_uuid((const uint8_t *)a->buffers[1] + 16 * k);
        return ZB_OK;
    case ICE_FIXED:
        *v = ice_value_fixed((const uint8_t *)a->buffers[1] +
                                 (size_t)type->length * (size_t)k,
                             (size_t)type->length);
        return ZB_OK;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "partition source of type %s",
                       ice_type_name(type->id));
    }
}

int zb_compact__repart_row(ice_value *vals, zb_ctx *ctx, const zb_repart *p,
                           const struct ArrowArray *batch, int64_t row)
{
    size_t i;
    int rc;

    for (i = 0; i < p->n; i++) {
        ice_value src;

        if ((rc = cell(&src, ctx, &p->f[i].type,
                       batch->children[p->f[i].col], row + batch->offset)) <
                0 ||
            (rc = ice_transform_apply(&vals[i], ctx, &p->f[i].tr, &src)) < 0)
            return rc;
    }
    return ZB_OK;
}

int zb_compact__repart_folder(zb_buf *out, zb_ctx *ctx, const zb_repart *p,
                              const ice_value *vals)
{
    size_t i;
    int rc;

    zb_buf_clear(out);
    for (i = 0; i < p->n; i++) {
        if (i > 0 && zb_buf_putc(out, '/') < 0)
            return zb_fail_oom(ctx);
        if ((rc = ice_partition_path_field(out, ctx, p->spec->fields[i].name,
                                           &p->f[i].tr, &vals[i])) < 0)
            return rc;
    }
    return ZB_OK;
}

/*
 * plan/read/scan_project.c - a file's Arrow batches projected to the read
 * schema: fields matched by id (or by name mapping), rows picked by a
 * selection, values promoted to the read type, missing fields filled from
 * identity-partition values, initial defaults or null. Also the canonical
 * key bytes of equality deletes, taken from projected arrays so that both
 * sides of the comparison have gone through the same promotions.
 */
#define ZB_MODULE "plan"

#include <stdio.h>
#include <string.h>

#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* --- source formats ---------------------------------------------------- */

typedef enum src_kind {
    SK_OTHER = 0,
    SK_NULL,
    SK_BOOL,
    SK_I8, SK_U8, SK_I16, SK_U16, SK_I32, SK_U32, SK_I64, SK_U64,
    SK_DATE32,
    SK_TIME_MS, SK_TIME_US, SK_TIME_NS,
    SK_TS_MS, SK_TS_US, SK_TS_NS,
    SK_F32, SK_F64,
    SK_DEC,
    SK_UTF8, SK_BIN,
    SK_FIXED,
    SK_STRUCT, SK_LIST, SK_MAP
} src_kind;

typedef struct src_fmt {
    src_kind kind;
    int tz;          /* timestamps: with a time zone */
    int32_t a, b;    /* decimal precision, scale; fixed length */
} src_fmt;

static int parse_int(const char *s, int32_t *out)
{
    int64_t v = 0;
    int any = 0;

    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            return -1;
        s++;
        any = 1;
    }
    *out = (int32_t)v;
    return any ? 0 : -1;
}

static src_fmt classify(const char *f)
{
    src_fmt r;

    memset(&r, 0, sizeof r);
    if (f == NULL)
        return r;
    if (strcmp(f, "n") == 0) r.kind = SK_NULL;
    else if (strcmp(f, "b") == 0) r.kind = SK_BOOL;
    else if (strcmp(f, "c") == 0) r.kind = SK_I8;
    else if (strcmp(f, "C") == 0) r.kind = SK_U8;
    else if (strcmp(f, "s") == 0) r.kind = SK_I16;
    else if (strcmp(f, "S") == 0) r.kind = SK_U16;
    else if (strcmp(f, "i") == 0) r.kind = SK_I32;
    else if (strcmp(f, "I") == 0) r.kind = SK_U32;
    else if (strcmp(f, "l") == 0) r.kind = SK_I64;
    else if (strcmp(f, "L") == 0) r.kind = SK_U64;
    else if (strcmp(f, "tdD") == 0) r.kind = SK_DATE32;
    else if (strcmp(f, "ttm") == 0) r.kind = SK_TIME_MS;
    else if (strcmp(f, "ttu") == 0) r.kind = SK_TIME_US;
    else if (strcmp(f, "ttn") == 0) r.kind = SK_TIME_NS;
    else if (strncmp(f, "ts", 2) == 0 && f[2] && f[3] == ':') {
        r.kind = f[2] == 'm' ? SK_TS_MS : f[2] == 'u' ? SK_TS_US
                 : f[2] == 'n' ? SK_TS_NS : SK_OTHER;
        r.tz = f[4] != '\0';
    } else if (strcmp(f, "f") == 0) r.kind = SK_F32;
    else if (strcmp(f, "g") == 0) r.kind = SK_F64;
    else if (strncmp(f, "d:", 2) == 0) {
        const char *c = strchr(f, ',');
        if (c && parse_int(f + 2, &r.a) == 0 && parse_int(c + 1, &r.b) == 0
            && strchr(c + 1, ',') == NULL)
            r.kind = SK_DEC;
    } else if (strcmp(f, "u") == 0) r.kind = SK_UTF8;
    else if (strcmp(f, "z") == 0) r.kind = SK_BIN;
    else if (strncmp(f, "w:", 2) == 0) {
        if (parse_int(f + 2, &r.a) == 0)
            r.kind = SK_FIXED;
    } else if (strcmp(f, "+s") == 0) r.kind = SK_STRUCT;
    else if (strcmp(f, "+l") == 0) r.kind = SK_LIST;
    else if (strcmp(f, "+m") == 0) r.kind = SK_MAP;
    return r;
}

/* --- small helpers ------------------------------------------------------- */

int32_t zb_scan__arrow_field_id(const struct ArrowSchema *s)
{
    char buf[24];
    int32_t id;

    if (!zb_arrow_metadata_get(buf, sizeof buf, s->metadata,
                               "PARQUET:field_id"))
        return -1;
    if (buf[0] == '-' || parse_int(buf, &id) < 0)
        return -1;
    return id;
}

static int src_valid(const struct ArrowArray *a, int64_t phys)
{
    const uint8_t *bits;

    if (a->null_count == 0 || a->n_buffers == 0)
        return 1;
    bits = a->buffers[0];
    return bits == NULL || zb_arrow_bit(bits, phys);
}

static void *alloc_buf(size_t bytes)
{
    return zb_calloc(1, bytes ? bytes : 1);
}

/* Allocates the validity bitmap of out (buffer 0), all bits clear. */
static int alloc_validity(struct ArrowArray *out, size_t n)
{
    void *v = alloc_buf((n + 7) / 8);

    if (v == NULL)
        return ZB_ENOMEM;
    out->buffers[0] = v;
    return ZB_OK;
}

static void set_valid(struct ArrowArray *out, int64_t i, int valid)
{
    if (valid)
        zb_arrow_set_bit((uint8_t *)out->buffers[0], i);
    else
        out->null_count++;
}

static const char *fname(const ice_field *f)
{
    return f ? f->name : "(element)";
}

static int value_width(ice_type_id id)
{
    switch (id) {
    case ICE_INT: case ICE_DATE: case ICE_FLOAT:
        return 4;
    case ICE_LONG: case ICE_TIME: case ICE_TIMESTAMP: case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS: case ICE_TIMESTAMPTZ_NS: case ICE_DOUBLE:
        return 8;
    case ICE_DECIMAL: case ICE_UUID:
        return 16;
    default:
        return 0;
    }
}

static int is_varlen(ice_type_id id)
{
    return id == ICE_STRING || id == ICE_BINARY || id == ICE_GEOMETRY ||
           id == ICE_GEOGRAPHY;
}

/* --- the Arrow schema of read fields ------------------------------------- */

/*
 * A variant reads as a struct of its two binary parts, metadata and value
 * (format/spec.md: stored as a Parquet group of two binary fields);
 * shredded variants (a typed_value part) are not read yet.
 */
static const ice_type VARIANT_PART = { .id = ICE_BINARY,
                                       .prim = { .id = ICE_BINARY } };

static int type_format(char *out, size_t size, const ice_type *t)
{
    const char *f = NULL;

    switch (t->id) {
    case ICE_BOOLEAN: f = "b"; break;
    case ICE_INT: f = "i"; break;
    case ICE_LONG: f = "l"; break;
    case ICE_FLOAT: f = "f"; break;
    case ICE_DOUBLE: f = "g"; break;
    case ICE_DECIMAL:
        snprintf(out, size, "d:%d,%d", (int)t->prim.precision,
                 (int)t->prim.scale);
        return ZB_OK;
    case ICE_DATE: f = "tdD"; break;
    case ICE_TIME: f = "ttu"; break;
    case ICE_TIMESTAMP: f = "tsu:"; break;
    case ICE_TIMESTAMPTZ: f = "tsu:UTC"; break;
    case ICE_TIMESTAMP_NS: f = "tsn:"; break;
    case ICE_TIMESTAMPTZ_NS: f = "tsn:UTC"; break;
    case ICE_STRING: f = "u"; break;
    case ICE_UUID: f = "w:16"; break;
    case ICE_FIXED:
        snprintf(out, size, "w:%d", (int)t->prim.length);
        return ZB_OK;
    case ICE_BINARY: case ICE_GEOMETRY: case ICE_GEOGRAPHY: f = "z"; break;
    case ICE_UNKNOWN: f = "n"; break;
    case ICE_VARIANT: f = "+s"; break;
    case ICE_STRUCT: f = "+s"; break;
    case ICE_LIST: f = "+l"; break;
    case ICE_MAP: f = "+m"; break;
    default:
        return ZB_EUNSUPPORTED;
    }
    snprintf(out, size, "%s", f);
    return ZB_OK;
}

static int node_schema(struct ArrowSchema *out, const char *name, int32_t id,
                       int required, const ice_type *t)
{
    char fmt[48], idtxt[16];
    const char *kv[5] = { NULL, NULL, NULL, NULL, NULL };
    char *meta = NULL;
    size_t meta_len = 0, k = 0, i;
    int64_t nch = 0;
    int rc;

    if ((rc = type_format(fmt, sizeof fmt, t)) < 0)
        return rc;
    if (id >= 0) {
        snprintf(idtxt, sizeof idtxt, "%d", (int)id);
        kv[k++] = "PARQUET:field_id";
        kv[k++] = idtxt;
    }
    if (t->id == ICE_UUID || t->id == ICE_VARIANT) {
        kv[k++] = "ARROW:extension:name";
        kv[k++] = t->id == ICE_UUID ? "arrow.uuid" : "arrow.parquet.variant";
    }
    if ((rc = zb_arrow_metadata(&meta, &meta_len, kv)) < 0)
        return rc;
    if (t->id == ICE_STRUCT)
        nch = (int64_t)t->n_fields;
    else if (t->id == ICE_VARIANT)
        nch = 2;
    else if (t->id == ICE_LIST || t->id == ICE_MAP)
        nch = 1;
    rc = zb_arrow_schema_init(out, fmt, name, meta, meta_len,
                              required ? 0 : ARROW_FLAG_NULLABLE, nch);
    zb_free(meta);
    if (rc < 0)
        return rc;
    if (t->id == ICE_STRUCT) {
        for (i = 0; i < t->n_fields && rc == ZB_OK; i++) {
            const ice_field *c = &t->fields[i];
            rc = node_schema(out->children[i], c->name, c->id, c->required,
                             c->type);
        }
    } else if (t->id == ICE_VARIANT) {
        rc = node_schema(out->children[0], "metadata", -1, 1, &VARIANT_PART);
        if (rc == ZB_OK)
            rc = node_schema(out->children[1], "value", -1, 1,
                             &VARIANT_PART);
    } else if (t->id == ICE_LIST) {
        rc = node_schema(out->children[0], "element", t->element_id,
                         t->element_required, t->element);
    } else if (t->id == ICE_MAP) {
        struct ArrowSchema *e = out->children[0];
        rc = zb_arrow_schema_init(e, "+s", "entries", NULL, 0, 0, 2);
        if (rc == ZB_OK)
            rc = node_schema(e->children[0], "key", t->key_id, 1, t->key);
        if (rc == ZB_OK)
            rc = node_schema(e->children[1], "value", t->value_id,
                             t->value_required, t->value);
    }
    if (rc < 0)
        zb_arrow_schema_release(out);
    return rc;
}

int zb_scan__field_schema(struct ArrowSchema *out, const ice_field *f)
{
    return node_schema(out, f->name, f->id, f->required, f->type);
}

/* --- constants: missing fields ------------------------------------------- */

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

static int fill_const(const zb_proj_file *pf, zb_ctx *ctx,
                      struct ArrowArray *out, const ice_type *t,
                      const ice_field *f, const ice_value *v, size_t n)
{
    size_t i;
    int w = value_width(t->id);
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
            (rc = alloc_validity(out, n)) < 0)
            goto oom;
        out->length = (int64_t)n;
        out->null_count = (int64_t)n;
        if ((rc = fill_const(pf, ctx, out->children[0], &VARIANT_PART, f,
                             NULL, n)) < 0 ||
            (rc = fill_const(pf, ctx, out->children[1], &VARIANT_PART, f,
                             NULL, n)) < 0) {
            zb_arrow_array_release(out);
            return rc;
        }
        return ZB_OK;
    }
    if ((rc = zb_arrow_array_init(out, is_varlen(t->id) ? 3 : 2, 0)) < 0 ||
        (rc = alloc_validity(out, n)) < 0)
        goto oom;
    out->length = (int64_t)n;
    if (v && v->is_null)
        v = NULL;
    if (t->id == ICE_BOOLEAN) {
        uint8_t *bits = alloc_buf((n + 7) / 8);
        if ((out->buffers[1] = bits) == NULL)
            goto oom;
        for (i = 0; i < n; i++) {
            set_valid(out, (int64_t)i, v != NULL);
            if (v && v->u.b)
                zb_arrow_set_bit(bits, (int64_t)i);
        }
        return ZB_OK;
    }
    if (is_varlen(t->id)) {
        size_t len = v ? v->u.bin.len : 0, total;
        int32_t *off;
        char *data;
        if (zb_mul_overflow(&total, len, n) || total > INT32_MAX)
            return zb_fail(ctx, ZB_ENOMEM, "%s: field %s: default value too "
                           "large for a batch", pf->uri, fname(f));
        off = alloc_buf((n + 1) * sizeof *off);
        data = alloc_buf(total);
        out->buffers[1] = off;
        out->buffers[2] = data;
        if (!off || !data)
            goto oom;
        for (i = 0; i < n; i++) {
            set_valid(out, (int64_t)i, v != NULL);
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
                       pf->uri, fname(f), ice_type_name(t->id));
    {
        uint8_t *data = alloc_buf(n * (size_t)w);
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
            set_valid(out, (int64_t)i, v != NULL);
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
                   fname(f), ice_type_name(v->type), ice_type_name(t->id));
oom:
    zb_arrow_array_release(out);
    return zb_fail_oom(ctx);
}

/* A missing field: rows of the partition value, the default, or null. */
static int gather_missing(const zb_proj_file *pf, zb_ctx *ctx,
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
            (rc = alloc_validity(out, n)) < 0) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->length = (int64_t)n;
        for (i = 0; i < n; i++)
            set_valid(out, (int64_t)i, valid);
        for (i = 0; i < t->n_fields; i++)
            if ((rc = gather_missing(pf, ctx, out->children[i],
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
            (rc = alloc_validity(out, n)) < 0 ||
            (off = alloc_buf((n + 1) * sizeof *off)) == NULL) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->buffers[1] = off;
        out->length = (int64_t)n;
        out->null_count = (int64_t)n;
        if (t->id == ICE_LIST) {
            rc = gather_missing(pf, ctx, out->children[0], t->element, NULL,
                                0);
        } else {
            struct ArrowArray *e = out->children[0];
            rc = zb_arrow_array_init(e, 1, 2);
            if (rc == ZB_OK)
                rc = gather_missing(pf, ctx, e->children[0], t->key, NULL, 0);
            if (rc == ZB_OK)
                rc = gather_missing(pf, ctx, e->children[1], t->value, NULL,
                                    0);
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
    return fill_const(pf, ctx, out, t, f, pv, n);
}

/* --- name mapping lookups ------------------------------------------------ */

static const zb_nm_field *nm_by_name(const zb_nm_field *nm, const char *name)
{
    size_t i, j;

    for (i = 0; nm && i < nm->n_fields; i++)
        for (j = 0; j < nm->fields[i].n_names; j++)
            if (strcmp(nm->fields[i].names[j], name) == 0)
                return &nm->fields[i];
    return NULL;
}

int zb_scan__src_child(const zb_proj_file *pf, const struct ArrowSchema *ss,
                       const ice_field *f, const zb_nm_field *nm_level,
                       const zb_nm_field **nm_out)
{
    int64_t i;
    size_t j;
    const zb_nm_field *e = NULL;

    *nm_out = NULL;
    if (pf->has_ids) {
        for (i = 0; i < ss->n_children; i++)
            if (zb_scan__arrow_field_id(ss->children[i]) == f->id)
                return (int)i;
        return -1;
    }
    if (pf->nm) {
        e = zb_scan__nm_find(nm_level, f->id);
        *nm_out = e;
        if (e == NULL)
            return -1;
        for (i = 0; i < ss->n_children; i++)
            for (j = 0; j < e->n_names; j++)
                if (ss->children[i]->name &&
                    strcmp(ss->children[i]->name, e->names[j]) == 0)
                    return (int)i;
        return -1;
    }
    /* No ids and no mapping: match by the current name. */
    for (i = 0; i < ss->n_children; i++)
        if (ss->children[i]->name && strcmp(ss->children[i]->name,
                                            f->name) == 0)
            return (int)i;
    return -1;
}

/* --- gathering primitives ------------------------------------------------ */

#define PHYS(k) (sa->offset + base + (int64_t)(sel ? sel[k] : (uint32_t)(k)))

static int incompatible(const zb_proj_file *pf, zb_ctx *ctx,
                        const ice_field *f, const struct ArrowSchema *ss,
                        const ice_type *t)
{
    char fmt[48];

    if (type_format(fmt, sizeof fmt, t) < 0)
        snprintf(fmt, sizeof fmt, "?");
    return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: cannot read Arrow "
                   "type %s as %s (%s)", pf->uri, fname(f), ss->format,
                   t->text ? t->text : ice_type_name(t->id), fmt);
}

/* Reads integer-like source values as int64 in target t's unit. */
static int int_reader(src_fmt sf, ice_type_id t, int64_t *mul, int64_t *div,
                      size_t *width, int *is_unsigned)
{
    *mul = 1;
    *div = 1;
    *is_unsigned = 0;
    switch (sf.kind) {
    case SK_I8: *width = 1; break;
    case SK_U8: *width = 1; *is_unsigned = 1; break;
    case SK_I16: *width = 2; break;
    case SK_U16: *width = 2; *is_unsigned = 1; break;
    case SK_I32: case SK_DATE32: case SK_TIME_MS: *width = 4; break;
    case SK_U32: *width = 4; *is_unsigned = 1; break;
    default: *width = 8; break;
    }
    switch (t) {
    case ICE_INT:
        return sf.kind >= SK_I8 && sf.kind <= SK_I32 ? 0 : -1;
    case ICE_LONG:
        return sf.kind >= SK_I8 && sf.kind <= SK_U64 ? 0 : -1;
    case ICE_DATE:
        return sf.kind == SK_DATE32 || sf.kind == SK_I32 ? 0 : -1;
    case ICE_TIME:
        if (sf.kind == SK_TIME_MS) *mul = 1000;
        else if (sf.kind == SK_TIME_NS) *div = 1000;
        else if (sf.kind != SK_TIME_US && sf.kind != SK_I64) return -1;
        return 0;
    case ICE_TIMESTAMP: case ICE_TIMESTAMPTZ:
        if (sf.kind == SK_TS_MS) *mul = 1000;
        else if (sf.kind == SK_TS_NS) *div = 1000;
        else if (sf.kind == SK_DATE32) *mul = 86400000000LL;
        else if (sf.kind != SK_TS_US && sf.kind != SK_I64) return -1;
        return 0;
    case ICE_TIMESTAMP_NS: case ICE_TIMESTAMPTZ_NS:
        if (sf.kind == SK_TS_MS) *mul = 1000000;
        else if (sf.kind == SK_TS_US) *mul = 1000;
        else if (sf.kind == SK_DATE32) *mul = 86400000000000LL;
        else if (sf.kind != SK_TS_NS && sf.kind != SK_I64) return -1;
        return 0;
    default:
        return -1;
    }
}

static int64_t load_int(const uint8_t *p, size_t width, int is_unsigned)
{
    switch (width) {
    case 1: return is_unsigned ? (int64_t)p[0] : (int64_t)(int8_t)p[0];
    case 2: {
        uint16_t u; memcpy(&u, p, 2);
        return is_unsigned ? (int64_t)u : (int64_t)(int16_t)u;
    }
    case 4: {
        uint32_t u; memcpy(&u, p, 4);
        return is_unsigned ? (int64_t)u : (int64_t)(int32_t)u;
    }
    default: {
        int64_t v; memcpy(&v, p, 8);
        return v;
    }
    }
}

static int gather_prim(const zb_proj_file *pf, zb_ctx *ctx,
                       struct ArrowArray *out, const ice_type *t,
                       const ice_field *f, const struct ArrowSchema *ss,
                       const struct ArrowArray *sa, const uint32_t *sel,
                       size_t n, int64_t base);

static int gather_variant(const zb_proj_file *pf, zb_ctx *ctx,
                          struct ArrowArray *out, const ice_field *f,
                          const struct ArrowSchema *ss,
                          const struct ArrowArray *sa, const uint32_t *sel,
                          size_t n, int64_t base)
{
    int64_t i, im = -1, iv = -1;
    size_t k;
    int rc;

    if (classify(ss->format).kind != SK_STRUCT)
        return incompatible(pf, ctx, f, ss, &VARIANT_PART);
    for (i = 0; i < ss->n_children; i++) {
        const char *name = ss->children[i]->name;
        if (name && strcmp(name, "metadata") == 0)
            im = i;
        else if (name && strcmp(name, "value") == 0)
            iv = i;
        else
            return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: shredded "
                           "variant (part %s) is not read yet", pf->uri,
                           fname(f), name ? name : "?");
    }
    if (im < 0 || iv < 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: field %s: variant without "
                       "its metadata and value parts", pf->uri, fname(f));
    if ((rc = zb_arrow_array_init(out, 1, 2)) < 0 ||
        (rc = alloc_validity(out, n)) < 0) {
        zb_arrow_array_release(out);
        return zb_fail_oom(ctx);
    }
    out->length = (int64_t)n;
    for (k = 0; k < n; k++)
        set_valid(out, (int64_t)k, src_valid(sa, PHYS(k)));
    if ((rc = gather_prim(pf, ctx, out->children[0], &VARIANT_PART, f,
                          ss->children[im], sa->children[im], sel, n,
                          sa->offset + base)) < 0 ||
        (rc = gather_prim(pf, ctx, out->children[1], &VARIANT_PART, f,
                          ss->children[iv], sa->children[iv], sel, n,
                          sa->offset + base)) < 0) {
        zb_arrow_array_release(out);
        return rc;
    }
    return ZB_OK;
}

static int gather_prim(const zb_proj_file *pf, zb_ctx *ctx,
                       struct ArrowArray *out, const ice_type *t,
                       const ice_field *f, const struct ArrowSchema *ss,
                       const struct ArrowArray *sa, const uint32_t *sel,
                       size_t n, int64_t base)
{
    src_fmt sf = classify(ss->format);
    size_t k;
    int rc;

    if (sf.kind == SK_NULL || t->id == ICE_UNKNOWN)   /* present, null */
        return fill_const(pf, ctx, out, t, f, NULL, n);
    if (t->id == ICE_VARIANT)
        return gather_variant(pf, ctx, out, f, ss, sa, sel, n, base);
    if ((rc = zb_arrow_array_init(out, is_varlen(t->id) ? 3 : 2, 0)) < 0 ||
        (rc = alloc_validity(out, n)) < 0)
        goto oom;
    out->length = (int64_t)n;

    if (t->id == ICE_BOOLEAN) {
        uint8_t *bits;
        const uint8_t *src;
        if (sf.kind != SK_BOOL)
            goto bad;
        if ((bits = alloc_buf((n + 7) / 8)) == NULL)
            goto oom;
        out->buffers[1] = bits;
        src = sa->buffers[1];
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            int ok = src_valid(sa, p);
            set_valid(out, (int64_t)k, ok);
            if (ok && zb_arrow_bit(src, p))
                zb_arrow_set_bit(bits, (int64_t)k);
        }
        return ZB_OK;
    }
    if (is_varlen(t->id)) {
        const int32_t *so = sa->buffers[1];
        const char *sd = sa->buffers[2];
        int32_t *off;
        char *data;
        uint64_t total = 0;
        if (sf.kind != SK_UTF8 && sf.kind != SK_BIN)
            goto bad;
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            if (src_valid(sa, p))
                total += (uint64_t)(so[p + 1] - so[p]);
        }
        if (total > INT32_MAX)
            return zb_arrow_array_release(out),
                   zb_fail(ctx, ZB_ENOMEM, "%s: field %s: more than 2 GiB "
                           "in one batch; use smaller batches", pf->uri,
                           fname(f));
        off = alloc_buf((n + 1) * sizeof *off);
        data = alloc_buf((size_t)total);
        out->buffers[1] = off;
        out->buffers[2] = data;
        if (!off || !data)
            goto oom;
        total = 0;
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            int ok = src_valid(sa, p);
            set_valid(out, (int64_t)k, ok);
            if (ok) {
                size_t len = (size_t)(so[p + 1] - so[p]);
                memcpy(data + total, sd + so[p], len);
                total += len;
            }
            off[k + 1] = (int32_t)total;
        }
        return ZB_OK;
    }
    {
        int w = value_width(t->id);
        uint8_t *data;
        const uint8_t *src = sa->buffers[1];
        if (t->id == ICE_FIXED)
            w = t->prim.length;
        if (w <= 0)
            goto bad;
        if ((data = alloc_buf(n * (size_t)w)) == NULL)
            goto oom;
        out->buffers[1] = data;
        switch (t->id) {
        case ICE_FLOAT:
            if (sf.kind != SK_F32)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                int ok = src_valid(sa, p);
                set_valid(out, (int64_t)k, ok);
                memcpy(data + 4 * k, src + 4 * p, 4);
            }
            return ZB_OK;
        case ICE_DOUBLE:
            if (sf.kind != SK_F32 && sf.kind != SK_F64)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                int ok = src_valid(sa, p);
                double d;
                set_valid(out, (int64_t)k, ok);
                if (sf.kind == SK_F32) {
                    float fl;
                    memcpy(&fl, src + 4 * p, 4);
                    d = fl;
                } else {
                    memcpy(&d, src + 8 * p, 8);
                }
                memcpy(data + 8 * k, &d, 8);
            }
            return ZB_OK;
        case ICE_DECIMAL:
            if (sf.kind != SK_DEC || sf.b != t->prim.scale ||
                sf.a > t->prim.precision)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                set_valid(out, (int64_t)k, src_valid(sa, p));
                memcpy(data + 16 * k, src + 16 * p, 16);
            }
            return ZB_OK;
        case ICE_UUID: case ICE_FIXED:
            if (sf.kind != SK_FIXED || sf.a != w)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                set_valid(out, (int64_t)k, src_valid(sa, p));
                memcpy(data + (size_t)w * k, src + (size_t)w * (size_t)p,
                       (size_t)w);
            }
            return ZB_OK;
        default: {
            int64_t mul, div;
            size_t sw;
            int uns;
            if (int_reader(sf, t->id, &mul, &div, &sw, &uns) < 0)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                int ok = src_valid(sa, p);
                int64_t v = ok ? load_int(src + sw * (size_t)p, sw, uns) : 0;
                set_valid(out, (int64_t)k, ok);
                if (div != 1)
                    v = ice_floor_div(v, div);
                v *= mul;
                if (w == 4) {
                    int32_t v32 = (int32_t)v;
                    memcpy(data + 4 * k, &v32, 4);
                } else {
                    memcpy(data + 8 * k, &v, 8);
                }
            }
            return ZB_OK;
        }
        }
    }
bad:
    zb_arrow_array_release(out);
    return incompatible(pf, ctx, f, ss, t);
oom:
    zb_arrow_array_release(out);
    return zb_fail_oom(ctx);
}

/* --- nested -------------------------------------------------------------- */

/* The mapping entry among nm's fields named name (list element, key...). */
static const zb_nm_field *nm_child_named(const zb_nm_field *nm,
                                         const char *name)
{
    return nm ? nm_by_name(nm, name) : NULL;
}

/* Child selection of a list-like array: the ranges of the rows picked. */
static int child_ranges(const zb_proj_file *pf, zb_ctx *ctx,
                        const struct ArrowArray *sa, const uint32_t *sel,
                        size_t n, int64_t base, int32_t *off_out,
                        uint8_t *valid_out, int64_t *nulls,
                        uint32_t **csel_out, size_t *cn_out)
{
    const int32_t *so = sa->buffers[1];
    uint64_t total = 0;
    uint32_t *csel;
    size_t k, c = 0;

    for (k = 0; k < n; k++) {
        int64_t p = PHYS(k);
        if (src_valid(sa, p)) {
            if (so[p + 1] < so[p])
                return zb_fail(ctx, ZB_ECORRUPT, "%s: list offsets go "
                               "backwards", pf->uri);
            total += (uint64_t)(so[p + 1] - so[p]);
        }
    }
    if (total > INT32_MAX)
        return zb_fail(ctx, ZB_ENOMEM, "%s: more than 2^31 list elements in "
                       "one batch", pf->uri);
    if ((csel = zb_malloc((size_t)total * sizeof *csel + 1)) == NULL)
        return zb_fail_oom(ctx);
    off_out[0] = 0;
    for (k = 0; k < n; k++) {
        int64_t p = PHYS(k);
        if (src_valid(sa, p)) {
            int32_t j;
            zb_arrow_set_bit(valid_out, (int64_t)k);
            for (j = so[p]; j < so[p + 1]; j++)
                csel[c++] = (uint32_t)j;
        } else {
            (*nulls)++;
        }
        off_out[k + 1] = (int32_t)c;
    }
    *csel_out = csel;
    *cn_out = c;
    return ZB_OK;
}

int zb_scan__gather(const zb_proj_file *pf, zb_ctx *ctx,
                    struct ArrowArray *out, const ice_type *t,
                    const ice_field *f, const zb_nm_field *nm,
                    const struct ArrowSchema *ss, const struct ArrowArray *sa,
                    const uint32_t *sel, size_t n, int64_t base)
{
    src_fmt sf;
    size_t k, i;
    int rc;

    memset(out, 0, sizeof *out);
    if (sa == NULL)
        return gather_missing(pf, ctx, out, t, f, n);
    sf = classify(ss->format);
    if (t->id < ICE_STRUCT)
        return gather_prim(pf, ctx, out, t, f, ss, sa, sel, n, base);
    if (sf.kind == SK_NULL)     /* present and null: no default applies */
        return gather_missing(pf, ctx, out, t, NULL, n);

    if (t->id == ICE_STRUCT) {
        if (sf.kind != SK_STRUCT)
            return incompatible(pf, ctx, f, ss, t);
        if ((rc = zb_arrow_array_init(out, 1, (int64_t)t->n_fields)) < 0 ||
            (rc = alloc_validity(out, n)) < 0) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->length = (int64_t)n;
        for (k = 0; k < n; k++)
            set_valid(out, (int64_t)k, src_valid(sa, PHYS(k)));
        for (i = 0; i < t->n_fields; i++) {
            const ice_field *c = &t->fields[i];
            const zb_nm_field *cnm = NULL;
            int idx = zb_scan__src_child(pf, ss, c, nm, &cnm);
            rc = zb_scan__gather(pf, ctx, out->children[i], c->type, c, cnm,
                                 idx >= 0 ? ss->children[idx] : NULL,
                                 idx >= 0 ? sa->children[idx] : NULL, sel, n,
                                 sa->offset + base);
            if (rc < 0) {
                zb_arrow_array_release(out);
                return rc;
            }
        }
        return ZB_OK;
    }
    if (t->id == ICE_LIST || t->id == ICE_MAP) {
        int32_t *off;
        uint32_t *csel = NULL;
        size_t cn = 0;
        int64_t nulls = 0;
        const struct ArrowSchema *cs;
        const struct ArrowArray *ca;

        if ((t->id == ICE_LIST && sf.kind != SK_LIST) ||
            (t->id == ICE_MAP && sf.kind != SK_MAP))
            return incompatible(pf, ctx, f, ss, t);
        if (ss->n_children != 1 || sa->n_children != 1)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: field %s: list without "
                           "its child", pf->uri, fname(f));
        if ((rc = zb_arrow_array_init(out, 2, 1)) < 0 ||
            (rc = alloc_validity(out, n)) < 0 ||
            (off = alloc_buf((n + 1) * sizeof *off)) == NULL) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->buffers[1] = off;
        out->length = (int64_t)n;
        if ((rc = child_ranges(pf, ctx, sa, sel, n, base, off,
                               (uint8_t *)out->buffers[0], &nulls, &csel,
                               &cn)) < 0) {
            zb_arrow_array_release(out);
            return rc;
        }
        out->null_count = nulls;
        cs = ss->children[0];
        ca = sa->children[0];
        if (t->id == ICE_LIST) {
            rc = zb_scan__gather(pf, ctx, out->children[0], t->element, NULL,
                                 nm_child_named(nm, "element"), cs, ca, csel,
                                 cn, 0);
        } else {
            struct ArrowArray *e = out->children[0];
            if (cs->n_children != 2 || ca->n_children != 2) {
                rc = zb_fail(ctx, ZB_ECORRUPT, "%s: field %s: map entries "
                             "are not key and value", pf->uri, fname(f));
            } else if ((rc = zb_arrow_array_init(e, 1, 2)) < 0) {
                rc = zb_fail_oom(ctx);
            } else {
                e->length = (int64_t)cn;
                rc = zb_scan__gather(pf, ctx, e->children[0], t->key, NULL,
                                     nm_child_named(nm, "key"),
                                     cs->children[0], ca->children[0], csel,
                                     cn, ca->offset);
                if (rc == ZB_OK)
                    rc = zb_scan__gather(pf, ctx, e->children[1], t->value,
                                         NULL, nm_child_named(nm, "value"),
                                         cs->children[1], ca->children[1],
                                         csel, cn, ca->offset);
            }
        }
        zb_free(csel);
        if (rc < 0)
            zb_arrow_array_release(out);
        return rc;
    }
    return incompatible(pf, ctx, f, ss, t);
}

/*
 * Whether the source array already has the read type's exact Arrow form,
 * nested fields in the read order, so that it can be moved as it is.
 */
static int identical(const zb_proj_file *pf, const ice_type *t,
                     const zb_nm_field *nm, const struct ArrowSchema *ss)
{
    char fmt[48];
    size_t i;

    if (type_format(fmt, sizeof fmt, t) < 0 || strcmp(fmt, ss->format) != 0)
        return 0;
    if (t->id == ICE_STRUCT) {
        if ((size_t)ss->n_children != t->n_fields)
            return 0;
        for (i = 0; i < t->n_fields; i++) {
            const zb_nm_field *cnm = NULL;
            if (zb_scan__src_child(pf, ss, &t->fields[i], nm, &cnm) != (int)i
                || !identical(pf, t->fields[i].type, cnm, ss->children[i]))
                return 0;
        }
        return 1;
    }
    if (t->id == ICE_LIST)
        return ss->n_children == 1 &&
               identical(pf, t->element, NULL, ss->children[0]);
    if (t->id == ICE_MAP)
        return ss->n_children == 1 && ss->children[0]->n_children == 2 &&
               identical(pf, t->key, NULL, ss->children[0]->children[0]) &&
               identical(pf, t->value, NULL, ss->children[0]->children[1]);
    return t->id != ICE_VARIANT;
}

int zb_scan__can_move(const zb_proj_file *pf, const ice_type *t,
                      const zb_nm_field *nm, const struct ArrowSchema *ss)
{
    return identical(pf, t, nm, ss);
}

/* --- equality keys ------------------------------------------------------- */

int zb_scan__key_append(zb_buf *out, const struct ArrowArray *a,
                        const ice_type *t, int64_t i)
{
    uint8_t tmp[20];
    int64_t p = a->offset + i;
    int w;

    if (!src_valid(a, p) || t->id == ICE_UNKNOWN)
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
        if ((w = value_width(t->id)) <= 0)
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

/* --- paths ------------------------------------------------------------- */

int zb_scan__same_path(const char *a, size_t alen, const char *b,
                       size_t blen)
{
    size_t sa, sb;

    if (alen == blen && memcmp(a, b, alen) == 0)
        return 1;
    sa = zb_scan_path_prefix_len(a, alen);
    sb = zb_scan_path_prefix_len(b, blen);
    return alen - sa == blen - sb && memcmp(a + sa, b + sb, alen - sa) == 0;
}

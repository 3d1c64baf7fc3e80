/*
 * plan/read/scan_project.c - a file's Arrow batches projected to the read
 * schema: fields matched by id (or by name mapping), rows picked by a
 * selection, values promoted to the read type. Missing fields are filled
 * from identity-partition values, initial defaults or null
 * (scan_missing.c); the read fields' Arrow form is scan_field_schema.c's.
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

void *zb_scan__alloc_buf(size_t bytes)
{
    return zb_calloc(1, bytes ? bytes : 1);
}

/* Allocates the validity bitmap of out (buffer 0), all bits clear. */
int zb_scan__alloc_validity(struct ArrowArray *out, size_t n)
{
    void *v = zb_scan__alloc_buf((n + 7) / 8);

    if (v == NULL)
        return ZB_ENOMEM;
    out->buffers[0] = v;
    return ZB_OK;
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

    if (zb_scan__type_format(fmt, sizeof fmt, t) < 0)
        snprintf(fmt, sizeof fmt, "?");
    return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: cannot read Arrow "
                   "type %s as %s (%s)", pf->uri, zb_scan__fname(f), ss->format,
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
        return incompatible(pf, ctx, f, ss, &zb_scan__variant_part);
    for (i = 0; i < ss->n_children; i++) {
        const char *name = ss->children[i]->name;
        if (name && strcmp(name, "metadata") == 0)
            im = i;
        else if (name && strcmp(name, "value") == 0)
            iv = i;
        else
            return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: shredded "
                           "variant (part %s) is not read yet", pf->uri,
                           zb_scan__fname(f), name ? name : "?");
    }
    if (im < 0 || iv < 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: field %s: variant without "
                       "its metadata and value parts", pf->uri,
                       zb_scan__fname(f));
    if ((rc = zb_arrow_array_init(out, 1, 2)) < 0 ||
        (rc = zb_scan__alloc_validity(out, n)) < 0) {
        zb_arrow_array_release(out);
        return zb_fail_oom(ctx);
    }
    out->length = (int64_t)n;
    for (k = 0; k < n; k++)
        zb_scan__set_valid(out, (int64_t)k, zb_scan__src_valid(sa, PHYS(k)));
    if ((rc = gather_prim(pf, ctx, out->children[0], &zb_scan__variant_part, f,
                          ss->children[im], sa->children[im], sel, n,
                          sa->offset + base)) < 0 ||
        (rc = gather_prim(pf, ctx, out->children[1], &zb_scan__variant_part, f,
                          ss->children[iv], sa->children[iv], sel, n,
                          sa->offset + base)) < 0) {
        zb_arrow_array_release(out);
        return rc;
    }
    return ZB_OK;
}

/* Long: one branch per family of read types (boolean, string and binary,
 * fixed width with a switch over the types), all leaving through the
 * shared bad and oom exits. */
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
        return zb_scan__fill_const(pf, ctx, out, t, f, NULL, n);
    if (t->id == ICE_VARIANT)
        return gather_variant(pf, ctx, out, f, ss, sa, sel, n, base);
    if ((rc = zb_arrow_array_init(out, zb_scan__is_varlen(t->id) ? 3 : 2,
                                  0)) < 0 ||
        (rc = zb_scan__alloc_validity(out, n)) < 0)
        goto oom;
    out->length = (int64_t)n;

    if (t->id == ICE_BOOLEAN) {
        uint8_t *bits;
        const uint8_t *src;
        if (sf.kind != SK_BOOL)
            goto bad;
        if ((bits = zb_scan__alloc_buf((n + 7) / 8)) == NULL)
            goto oom;
        out->buffers[1] = bits;
        src = sa->buffers[1];
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            int ok = zb_scan__src_valid(sa, p);
            zb_scan__set_valid(out, (int64_t)k, ok);
            if (ok && zb_arrow_bit(src, p))
                zb_arrow_set_bit(bits, (int64_t)k);
        }
        return ZB_OK;
    }
    if (zb_scan__is_varlen(t->id)) {
        const int32_t *so = sa->buffers[1];
        const char *sd = sa->buffers[2];
        int32_t *off;
        char *data;
        uint64_t total = 0;
        if (sf.kind != SK_UTF8 && sf.kind != SK_BIN)
            goto bad;
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            if (zb_scan__src_valid(sa, p))
                total += (uint64_t)(so[p + 1] - so[p]);
        }
        if (total > INT32_MAX)
            return zb_arrow_array_release(out),
                   zb_fail(ctx, ZB_ENOMEM, "%s: field %s: more than 2 GiB "
                           "in one batch; use smaller batches", pf->uri,
                           zb_scan__fname(f));
        off = zb_scan__alloc_buf((n + 1) * sizeof *off);
        data = zb_scan__alloc_buf((size_t)total);
        out->buffers[1] = off;
        out->buffers[2] = data;
        if (!off || !data)
            goto oom;
        total = 0;
        for (k = 0; k < n; k++) {
            int64_t p = PHYS(k);
            int ok = zb_scan__src_valid(sa, p);
            zb_scan__set_valid(out, (int64_t)k, ok);
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
        int w = zb_scan__value_width(t->id);
        uint8_t *data;
        const uint8_t *src = sa->buffers[1];
        if (t->id == ICE_FIXED)
            w = t->prim.length;
        if (w <= 0)
            goto bad;
        if ((data = zb_scan__alloc_buf(n * (size_t)w)) == NULL)
            goto oom;
        out->buffers[1] = data;
        switch (t->id) {
        case ICE_FLOAT:
            if (sf.kind != SK_F32)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                int ok = zb_scan__src_valid(sa, p);
                zb_scan__set_valid(out, (int64_t)k, ok);
                memcpy(data + 4 * k, src + 4 * p, 4);
            }
            return ZB_OK;
        case ICE_DOUBLE:
            if (sf.kind != SK_F32 && sf.kind != SK_F64)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                int ok = zb_scan__src_valid(sa, p);
                double d;
                zb_scan__set_valid(out, (int64_t)k, ok);
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
                zb_scan__set_valid(out, (int64_t)k, zb_scan__src_valid(sa, p));
                memcpy(data + 16 * k, src + 16 * p, 16);
            }
            return ZB_OK;
        case ICE_UUID: case ICE_FIXED:
            if (sf.kind != SK_FIXED || sf.a != w)
                goto bad;
            for (k = 0; k < n; k++) {
                int64_t p = PHYS(k);
                zb_scan__set_valid(out, (int64_t)k, zb_scan__src_valid(sa, p));
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
                int ok = zb_scan__src_valid(sa, p);
                int64_t v = ok ? load_int(src + sw * (size_t)p, sw, uns) : 0;
                zb_scan__set_valid(out, (int64_t)k, ok);
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
        if (zb_scan__src_valid(sa, p)) {
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
        if (zb_scan__src_valid(sa, p)) {
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
        return zb_scan__gather_missing(pf, ctx, out, t, f, n);
    sf = classify(ss->format);
    if (t->id < ICE_STRUCT)
        return gather_prim(pf, ctx, out, t, f, ss, sa, sel, n, base);
    if (sf.kind == SK_NULL)     /* present and null: no default applies */
        return zb_scan__gather_missing(pf, ctx, out, t, NULL, n);

    if (t->id == ICE_STRUCT) {
        if (sf.kind != SK_STRUCT)
            return incompatible(pf, ctx, f, ss, t);
        if ((rc = zb_arrow_array_init(out, 1, (int64_t)t->n_fields)) < 0 ||
            (rc = zb_scan__alloc_validity(out, n)) < 0) {
            zb_arrow_array_release(out);
            return zb_fail_oom(ctx);
        }
        out->length = (int64_t)n;
        for (k = 0; k < n; k++)
            zb_scan__set_valid(out, (int64_t)k,
                               zb_scan__src_valid(sa, PHYS(k)));
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
                           "its child", pf->uri, zb_scan__fname(f));
        if ((rc = zb_arrow_array_init(out, 2, 1)) < 0 ||
            (rc = zb_scan__alloc_validity(out, n)) < 0 ||
            (off = zb_scan__alloc_buf((n + 1) * sizeof *off)) == NULL) {
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
                             "are not key and value", pf->uri,
                             zb_scan__fname(f));
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

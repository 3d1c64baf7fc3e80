/*
 * plan/scan/scan_plan_filter.c - deciding that a manifest or a data file holds
 * no row matching a conjunction of predicates (format/spec.md "Scan
 * Planning": inclusive projection to partition predicates, then column
 * bounds and counts).
 *
 * Each predicate is evaluated against a value range: lower and upper
 * bounds of the non-null values (either may be unknown), whether nulls
 * are known absent, whether all values are known null, whether NaN is
 * known absent. A file is skipped when some predicate cannot match its
 * range; anything unknown, undecodable or incomparable means "may match".
 *
 * Ranges come from
 *   - a manifest's partition summaries (field 507), for the partition
 *     fields whose source is the predicate's field;
 *   - a data file's partition values, the same way;
 *   - a data file's lower/upper bounds and null, NaN and value counts.
 * A predicate on a source column is projected to its partition field:
 * identity keeps it; truncate, year, month, day and hour keep "=" and
 * turn "<" into "<=" and ">" into ">=" of the transformed literal (they
 * preserve order); bucket keeps only "="; void and unknown transforms
 * say nothing. Null tests pass through every transform but void.
 *
 * Floats: a range that may hold NaN never excludes a comparison (bounds
 * leave NaN out); -0 and 0 compare equal.
 */
#define ZB_MODULE "plan"

#include <math.h>
#include <string.h>

#include "plan/scan/scan_plan_int.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct vrange {
    const ice_value *lo;           /* NULL: unknown */
    const ice_value *hi;
    int no_nulls;                  /* known: no null value */
    int all_null;                  /* known: every value null */
    int nan_free;                  /* known: no NaN (or not a float) */
} vrange;

static int family(ice_type_id t)
{
    switch (t) {
    case ICE_INT: case ICE_LONG: case ICE_DATE: return 1;
    case ICE_FLOAT: case ICE_DOUBLE: return 2;
    case ICE_DECIMAL: return 3;
    case ICE_STRING: return 4;
    case ICE_BINARY: case ICE_FIXED: return 5;
    case ICE_TIMESTAMP: case ICE_TIMESTAMPTZ: return 6;
    case ICE_TIMESTAMP_NS: case ICE_TIMESTAMPTZ_NS: return 7;
    case ICE_TIME: return 8;
    case ICE_UUID: return 9;
    case ICE_BOOLEAN: return 10;
    default: return 0;
    }
}

static int64_t as_i64(const ice_value *v)
{
    return v->type == ICE_LONG ? v->u.l : (int64_t)v->u.i;
}

static double as_f64(const ice_value *v)
{
    return v->type == ICE_FLOAT ? (double)v->u.f : v->u.d;
}

/* Compares two non-null values into *c; 0 when they are incomparable. */
static int vcmp(int *c, const ice_value *a, const ice_value *b)
{
    int fa = family(a->type);

    if (a->is_null || b->is_null || fa == 0 || fa != family(b->type))
        return 0;
    switch (fa) {
    case 1: {
        int64_t x = as_i64(a), y = as_i64(b);
        *c = x < y ? -1 : x > y;
        return 1;
    }
    case 2: {
        double x = as_f64(a), y = as_f64(b);
        if (isnan(x) || isnan(y))
            return 0;
        *c = x < y ? -1 : x > y;
        return 1;
    }
    case 4: case 5: {
        size_t n = a->u.bin.len < b->u.bin.len ? a->u.bin.len : b->u.bin.len;
        int m = n ? memcmp(a->u.bin.ptr, b->u.bin.ptr, n) : 0;
        *c = m != 0 ? (m < 0 ? -1 : 1)
            : (a->u.bin.len < b->u.bin.len ? -1 : a->u.bin.len > b->u.bin.len);
        return 1;
    }
    case 6: case 7: case 8:
        *c = a->u.l < b->u.l ? -1 : a->u.l > b->u.l;
        return 1;
    case 9: {
        int m = memcmp(a->u.uuid, b->u.uuid, 16);
        *c = m < 0 ? -1 : m > 0;
        return 1;
    }
    case 10:
        *c = (a->u.b != 0) - (b->u.b != 0);
        return 1;
    default:
        *c = ice_value_cmp(a, b);
        return 1;
    }
}

/* 0 when no value in r can satisfy op lit. */
static int may_match(zb_scan_op op, const ice_value *lit, const vrange *r)
{
    int c;

    if (op == ZB_SCAN_IS_NULL)
        return !r->no_nulls;
    if (op == ZB_SCAN_NOT_NULL)
        return !r->all_null;
    if (r->all_null)
        return 0;
    if (!r->nan_free)
        return 1;
    switch (op) {
    case ZB_SCAN_EQ:
        if (r->lo && vcmp(&c, lit, r->lo) && c < 0)
            return 0;
        if (r->hi && vcmp(&c, lit, r->hi) && c > 0)
            return 0;
        return 1;
    case ZB_SCAN_LT:
        return !(r->lo && vcmp(&c, r->lo, lit) && c >= 0);
    case ZB_SCAN_LE:
        return !(r->lo && vcmp(&c, r->lo, lit) && c > 0);
    case ZB_SCAN_GT:
        return !(r->hi && vcmp(&c, r->hi, lit) && c <= 0);
    case ZB_SCAN_GE:
        return !(r->hi && vcmp(&c, r->hi, lit) && c < 0);
    default:
        return 1;
    }
}

/*
 * Projects pred through transform t: 1 with *op and *lit set, 0 when the
 * projection says nothing (always true).
 */
static int project(zb_scan_op *op, ice_value *lit, const zb_scan_pred *p,
                   const ice_transform *t)
{
    zb_ctx quiet;

    zb_ctx_init(&quiet);
    *op = p->op;
    *lit = p->literal;
    if (t->kind == ICE_TR_VOID || t->kind == ICE_TR_UNKNOWN)
        return 0;
    if (p->op == ZB_SCAN_IS_NULL || p->op == ZB_SCAN_NOT_NULL ||
        t->kind == ICE_TR_IDENTITY)
        return 1;
    if (t->kind == ICE_TR_BUCKET && p->op != ZB_SCAN_EQ)
        return 0;
    if (p->literal.is_null ||
        ice_transform_apply(lit, &quiet, t, &p->literal) < 0 || lit->is_null)
        return 0;
    if (t->kind == ICE_TR_BUCKET)
        return 1;
    if (p->op == ZB_SCAN_LT)
        *op = ZB_SCAN_LE;
    else if (p->op == ZB_SCAN_GT)
        *op = ZB_SCAN_GE;
    return 1;
}

static int is_float(ice_type_id t)
{
    return t == ICE_FLOAT || t == ICE_DOUBLE;
}

/* --- setup -------------------------------------------------------------- */

int zb_scan__filter_init(zb_scan_filter *f, zb_ctx *ctx,
                         const ice_metadata *meta, const zb_scan_pred *preds,
                         size_t n)
{
    size_t i;

    memset(f, 0, sizeof *f);
    f->meta = meta;
    f->schema = ice_metadata_current_schema(meta);
    if (n == 0)
        return ZB_OK;
    if (f->schema == NULL)
        return zb_fail(ctx, ZB_EINVAL, "%s: filter on a table without a"
                       " schema", meta->location);
    f->preds = zb_calloc(n, sizeof *f->preds);
    f->types = zb_calloc(n, sizeof *f->types);
    if (f->preds == NULL || f->types == NULL) {
        zb_scan__filter_free(f);
        return zb_fail_oom(ctx);
    }
    f->n = n;
    for (i = 0; i < n; i++) {
        const zb_scan_pred *p = &preds[i];
        const ice_field *fld = ice_schema_find_field(f->schema, p->field_id);
        int cmp_op = p->op >= ZB_SCAN_EQ && p->op <= ZB_SCAN_GE;

        if (fld == NULL || fld->type->id >= ICE_STRUCT ||
            (p->op < ZB_SCAN_EQ || p->op > ZB_SCAN_NOT_NULL)) {
            zb_scan__filter_free(f);
            return zb_fail(ctx, ZB_EINVAL, "%s: filter %zu: field id %d is"
                           " not a primitive column of the current schema"
                           " (or op %d unknown)", meta->location, i,
                           (int)p->field_id, (int)p->op);
        }
        if (cmp_op && (p->literal.is_null ||
                       family(p->literal.type) == 0 ||
                       family(p->literal.type) != family(fld->type->id))) {
            zb_scan__filter_free(f);
            return zb_fail(ctx, ZB_EINVAL, "%s: filter %zu on %s (%s): the"
                           " literal is %s%s", meta->location, i, fld->name,
                           ice_type_name(fld->type->id),
                           p->literal.is_null ? "null, " : "",
                           ice_type_name(p->literal.type));
        }
        f->preds[i] = *p;
        f->types[i] = fld->type;
    }
    return ZB_OK;
}

void zb_scan__filter_free(zb_scan_filter *f)
{
    zb_free(f->preds);
    zb_free(f->types);
    f->preds = NULL;
    f->types = NULL;
    f->n = 0;
}

/* --- manifests ---------------------------------------------------------- */

int zb_scan__filter_manifest(const zb_scan_filter *f, zb_ctx *ctx,
                             const ice_manifest_file *mf)
{
    const ice_partition_spec *spec;
    zb_ctx quiet;
    size_t i, j;

    ZB_UNUSED(ctx);
    if (f->n == 0 || !mf->has_partitions)
        return 1;
    spec = ice_metadata_spec(f->meta, mf->partition_spec_id);
    if (spec == NULL || spec->n_fields != mf->n_partitions)
        return 1;
    zb_ctx_init(&quiet);
    for (i = 0; i < f->n; i++) {
        const zb_scan_pred *p = &f->preds[i];
        for (j = 0; j < spec->n_fields; j++) {
            const ice_partition_field *pf = &spec->fields[j];
            const ice_field_summary *s = &mf->partitions[j];
            ice_transform t;
            ice_prim rp;
            ice_value lo, hi, lit;
            zb_scan_op op;
            vrange r;

            if (pf->source_id != p->field_id || pf->n_source_ids > 1)
                continue;
            if (ice_transform_parse(&t, &quiet, pf->transform) < 0 ||
                !project(&op, &lit, p, &t) ||
                ice_transform_result_type(&rp, &quiet, &t,
                                          &f->types[i]->prim) < 0)
                continue;
            memset(&r, 0, sizeof r);
            if (s->lower_bound != NULL &&
                ice_value_from_bytes(&lo, &quiet, &rp, s->lower_bound,
                                     s->lower_bound_len) == ZB_OK)
                r.lo = &lo;
            if (s->upper_bound != NULL &&
                ice_value_from_bytes(&hi, &quiet, &rp, s->upper_bound,
                                     s->upper_bound_len) == ZB_OK)
                r.hi = &hi;
            r.no_nulls = !s->contains_null;
            r.all_null = s->contains_null && s->lower_bound == NULL &&
                s->upper_bound == NULL && s->contains_nan != 1;
            r.nan_free = !is_float(rp.id) || s->contains_nan == 0;
            if (!may_match(op, &lit, &r))
                return 0;
        }
    }
    return 1;
}

/* --- data files --------------------------------------------------------- */

static const ice_metric_bytes *find_bound(const ice_bytes_map *m, int32_t id)
{
    size_t i;

    for (i = 0; m->has && i < m->n; i++)
        if (m->items[i].field_id == id)
            return &m->items[i];
    return NULL;
}

static int find_count(int64_t *out, const ice_long_map *m, int32_t id)
{
    size_t i;

    for (i = 0; m->has && i < m->n; i++)
        if (m->items[i].field_id == id) {
            *out = m->items[i].value;
            return 1;
        }
    return 0;
}

/* The partition value of spec field j in df, or NULL. */
static const ice_value *part_value(const ice_data_file *df,
                                   const ice_partition_spec *spec, size_t j)
{
    size_t k;

    if (df->partition_field_ids != NULL) {
        for (k = 0; k < df->n_partition; k++)
            if (df->partition_field_ids[k] == spec->fields[j].field_id)
                return &df->partition[k];
        return NULL;
    }
    return df->n_partition == spec->n_fields ? &df->partition[j] : NULL;
}

static int file_partition_ok(const zb_scan_filter *f, size_t i,
                             const ice_partition_spec *spec,
                             const ice_data_file *df)
{
    const zb_scan_pred *p = &f->preds[i];
    zb_ctx quiet;
    size_t j;

    zb_ctx_init(&quiet);
    for (j = 0; spec != NULL && j < spec->n_fields; j++) {
        const ice_partition_field *pf = &spec->fields[j];
        const ice_value *pv;
        ice_transform t;
        ice_value lit;
        zb_scan_op op;
        vrange r;

        if (pf->source_id != p->field_id || pf->n_source_ids > 1 ||
            (pv = part_value(df, spec, j)) == NULL)
            continue;
        if (ice_transform_parse(&t, &quiet, pf->transform) < 0 ||
            !project(&op, &lit, p, &t))
            continue;
        memset(&r, 0, sizeof r);
        r.no_nulls = !pv->is_null;
        r.all_null = pv->is_null;
        r.nan_free = 1;            /* a NaN value is incomparable */
        if (!pv->is_null)
            r.lo = r.hi = pv;
        if (!may_match(op, &lit, &r))
            return 0;
    }
    return 1;
}

static int file_metrics_ok(const zb_scan_filter *f, size_t i,
                           const ice_data_file *df)
{
    const zb_scan_pred *p = &f->preds[i];
    const ice_prim *prim = &f->types[i]->prim;
    const ice_metric_bytes *lb, *ub;
    ice_value lo, hi;
    int64_t nulls = -1, values = -1, nans = -1;
    zb_ctx quiet;
    vrange r;

    zb_ctx_init(&quiet);
    memset(&r, 0, sizeof r);
    lb = find_bound(&df->lower_bounds, p->field_id);
    ub = find_bound(&df->upper_bounds, p->field_id);
    if (lb && ice_value_from_bytes(&lo, &quiet, prim, lb->ptr, lb->len) == 0)
        r.lo = &lo;
    if (ub && ice_value_from_bytes(&hi, &quiet, prim, ub->ptr, ub->len) == 0)
        r.hi = &hi;
    find_count(&nulls, &df->null_value_counts, p->field_id);
    find_count(&values, &df->value_counts, p->field_id);
    find_count(&nans, &df->nan_value_counts, p->field_id);
    r.no_nulls = nulls == 0;
    r.all_null = nulls >= 0 && values >= 0 && nulls == values &&
        (nans <= 0 || !is_float(prim->id));
    r.nan_free = !is_float(prim->id) || nans == 0;
    return may_match(p->op, &p->literal, &r);
}

int zb_scan__filter_file(const zb_scan_filter *f, zb_ctx *ctx,
                         const ice_partition_spec *spec,
                         const ice_data_file *df)
{
    size_t i;

    ZB_UNUSED(ctx);
    for (i = 0; i < f->n; i++) {
        if (!file_partition_ok(f, i, spec, df) || !file_metrics_ok(f, i, df))
            return 0;
    }
    return 1;
}

/*
 * table/metadata/metadata_schema.c - schemas and their type trees
 * (format/spec.md "Schemas and Data Types", Appendix C), and the model's
 * lookups.
 *
 * ice_schema__parse reads one schema object: schema-id,
 * identifier-field-ids, then the struct itself through parse_type, which
 * recurses over struct fields, list elements and map keys and values,
 * counting depth so that a hostile file cannot exhaust the stack
 * (ICE_MAX_TYPE_DEPTH, then ZB_ECORRUPT). Primitive type strings are
 * matched case-insensitively as Iceberg Java does, with optional spaces
 * around parameters: decimal(P, S), fixed[L], geometry(C),
 * geography(C, A). Default values are kept as compact JSON text.
 *
 * The lookups at the end are linear scans over short lists, except the
 * snapshot lookup, which binary-searches the index built at parse time.
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/metadata/metadata_int.h"
#include "util/err.h"

static const struct {
    const char *name;
    ice_type_id id;
} prim_names[] = {
    { "boolean", ICE_BOOLEAN },       { "int", ICE_INT },
    { "long", ICE_LONG },             { "float", ICE_FLOAT },
    { "double", ICE_DOUBLE },         { "date", ICE_DATE },
    { "time", ICE_TIME },             { "timestamp", ICE_TIMESTAMP },
    { "timestamptz", ICE_TIMESTAMPTZ },
    { "timestamp_ns", ICE_TIMESTAMP_NS },
    { "timestamptz_ns", ICE_TIMESTAMPTZ_NS },
    { "string", ICE_STRING },         { "uuid", ICE_UUID },
    { "binary", ICE_BINARY },         { "unknown", ICE_UNKNOWN },
    { "variant", ICE_VARIANT },       { "geometry", ICE_GEOMETRY },
    { "geography", ICE_GEOGRAPHY },
};

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A non-negative decimal int32 at *s; advances *s. */
static int read_uint(int32_t *out, const char **s)
{
    const char *c = skip_ws(*s);
    int64_t v = 0;

    if (!isdigit((unsigned char)*c))
        return -1;
    while (isdigit((unsigned char)*c)) {
        v = v * 10 + (*c++ - '0');
        if (v > INT32_MAX)
            return -1;
    }
    *out = (int32_t)v;
    *s = skip_ws(c);
    return 0;
}

/* Case-insensitive prefix match; returns the rest or NULL. */
static const char *after(const char *s, const char *prefix)
{
    size_t n = strlen(prefix), i;

    for (i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != prefix[i])
            return NULL;
    return s + i;
}

/* The text between "(" and ")" at s, split at the first comma. */
static int geo_params(ice_type *t, ice_parse *p, const char *s, int two)
{
    const char *open = skip_ws(s), *close, *comma, *a, *b;

    if (*open == '\0')
        return 0;                  /* no parameters: the defaults */
    if (*open != '(' || (close = strrchr(open, ')')) == NULL ||
        *skip_ws(close + 1) != '\0')
        return -1;
    a = skip_ws(open + 1);
    comma = memchr(a, ',', (size_t)(close - a));
    if (comma != NULL && !two)
        return -1;
    b = comma ? comma : close;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    if (b == a)
        return -1;
    if ((t->crs = zb_arena_strndup(p->arena, a, (size_t)(b - a))) == NULL)
        return ZB_ENOMEM;
    if (comma != NULL) {
        a = skip_ws(comma + 1);
        b = close;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b == a || memchr(a, ',', (size_t)(b - a)) != NULL)
            return -1;
        if ((t->edges = zb_arena_strndup(p->arena, a,
                                         (size_t)(b - a))) == NULL)
            return ZB_ENOMEM;
    }
    return 0;
}

static int parse_primitive(ice_type *t, ice_parse *p, const json_t *v,
                           const char *where)
{
    const char *s = json_string_value(v), *r;
    size_t i;
    int rc;

    if ((t->text = zb_arena_strdup(p->arena, s)) == NULL)
        return ice_j__oom(p);
    for (i = 0; i < sizeof prim_names / sizeof prim_names[0]; i++) {
        const char *name = prim_names[i].name;

        if ((r = after(s, name)) == NULL)
            continue;
        if (*r == '\0') {
            t->id = t->prim.id = prim_names[i].id;
            return ZB_OK;
        }
        if (prim_names[i].id == ICE_GEOMETRY ||
            prim_names[i].id == ICE_GEOGRAPHY) {
            /* "geography(...)" also starts with no other name. */
            rc = geo_params(t, p, r, prim_names[i].id == ICE_GEOGRAPHY);
            if (rc == ZB_ENOMEM)
                return ice_j__oom(p);
            if (rc < 0)
                return ice_j__fail(p, where, "bad type \"%.60s\"", s);
            t->id = t->prim.id = prim_names[i].id;
            return ZB_OK;
        }
    }
    if ((r = after(s, "decimal")) != NULL) {
        r = skip_ws(r);
        if (*r++ != '(' || read_uint(&t->prim.precision, &r) < 0 ||
            *r++ != ',' || read_uint(&t->prim.scale, &r) < 0 ||
            *r++ != ')' || *skip_ws(r) != '\0' || t->prim.precision < 1 ||
            t->prim.precision > 38 || t->prim.scale > t->prim.precision)
            return ice_j__fail(p, where, "bad type \"%.60s\"", s);
        t->id = t->prim.id = ICE_DECIMAL;
        return ZB_OK;
    }
    if ((r = after(s, "fixed")) != NULL) {
        r = skip_ws(r);
        if (*r++ != '[' || read_uint(&t->prim.length, &r) < 0 ||
            *r++ != ']' || *skip_ws(r) != '\0' || t->prim.length < 1)
            return ice_j__fail(p, where, "bad type \"%.60s\"", s);
        t->id = t->prim.id = ICE_FIXED;
        return ZB_OK;
    }
    return zb_fail(p->ctx, ZB_EUNSUPPORTED, "%s: %s: unknown type \"%.60s\"",
                   p->src, where, s);
}

static int parse_type(const ice_type **out, ice_parse *p, const json_t *v,
                      int depth, const char *where);

/* Stores v (any JSON) as compact text, or leaves *out NULL when absent. */
static int default_text(const char **out, ice_parse *p, const json_t *f,
                        const char *key)
{
    const json_t *v = json_object_get(f, key);
    zb_buf b = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    int rc = ZB_OK;

    if (v == NULL)
        return ZB_OK;
    if (ice_json__dump(&b, v, JSON_COMPACT) < 0 ||
        (*out = zb_arena_strndup(p->arena, zb_buf_cstr(&b), b.len)) == NULL)
        rc = ice_j__oom(p);
    zb_buf_free(&b);
    return rc;
}

static int parse_struct(ice_type *t, ice_parse *p, const json_t *v,
                        int depth, const char *where)
{
    const json_t *fields = NULL, *f, *ft = NULL;
    ice_field *fs;
    char w[96];
    size_t i;
    int rc;

    if ((rc = ice_j__get(&fields, p, v, "fields", where, 1)) < 0)
        return rc;
    if (!json_is_array(fields))
        return ice_j__fail(p, where, "\"fields\" must be a list");
    t->n_fields = json_array_size(fields);
    fs = zb_arena_calloc(p->arena, t->n_fields ? t->n_fields : 1, sizeof *fs);
    if (fs == NULL)
        return ice_j__oom(p);
    json_array_foreach(fields, i, f) {
        ice_field *fd = &fs[i];

        snprintf(w, sizeof w, "%.60s field %zu", where, i);
        if (!json_is_object(f))
            return ice_j__fail(p, w, "must be an object");
        if ((rc = ice_j__i32(&fd->id, p, f, "id", w, 1)) < 0)
            return rc;
        snprintf(w, sizeof w, "%.60s field id %d", where, (int)fd->id);
        if ((rc = ice_j__str(&fd->name, p, f, "name", w, 1)) < 0 ||
            (rc = ice_j__bool(&fd->required, p, f, "required", w, 1)) < 0 ||
            (rc = ice_j__str(&fd->doc, p, f, "doc", w, 0)) < 0 ||
            (rc = ice_j__get(&ft, p, f, "type", w, 1)) < 0 ||
            (rc = parse_type(&fd->type, p, ft, depth + 1, w)) < 0 ||
            (rc = default_text(&fd->initial_default, p, f,
                               "initial-default")) < 0 ||
            (rc = default_text(&fd->write_default, p, f, "write-default")) < 0)
            return rc;
    }
    t->fields = fs;
    return ZB_OK;
}

static int parse_type(const ice_type **out, ice_parse *p, const json_t *v,
                      int depth, const char *where)
{
    const json_t *sub = NULL;
    const char *kind = NULL;
    ice_type *t;
    int rc;

    if (depth > ICE_MAX_TYPE_DEPTH)
        return ice_j__fail(p, where, "types nest deeper than %d",
                           ICE_MAX_TYPE_DEPTH);
    if ((t = zb_arena_calloc(p->arena, 1, sizeof *t)) == NULL)
        return ice_j__oom(p);
    *out = t;
    if (json_is_string(v))
        return parse_primitive(t, p, v, where);
    if (!json_is_object(v))
        return ice_j__fail(p, where, "a type must be a string or an object");
    if ((rc = ice_j__str(&kind, p, v, "type", where, 1)) < 0)
        return rc;
    if (strcmp(kind, "struct") == 0) {
        t->id = ICE_STRUCT;
        return parse_struct(t, p, v, depth, where);
    }
    if (strcmp(kind, "list") == 0) {
        t->id = ICE_LIST;
        if ((rc = ice_j__i32(&t->element_id, p, v, "element-id", where,
                             1)) < 0 ||
            (rc = ice_j__bool(&t->element_required, p, v, "element-required",
                              where, 1)) < 0 ||
            (rc = ice_j__get(&sub, p, v, "element", where, 1)) < 0)
            return rc;
        return parse_type(&t->element, p, sub, depth + 1, where);
    }
    if (strcmp(kind, "map") == 0) {
        t->id = ICE_MAP;
        if ((rc = ice_j__i32(&t->key_id, p, v, "key-id", where, 1)) < 0 ||
            (rc = ice_j__get(&sub, p, v, "key", where, 1)) < 0 ||
            (rc = parse_type(&t->key, p, sub, depth + 1, where)) < 0 ||
            (rc = ice_j__i32(&t->value_id, p, v, "value-id", where, 1)) < 0 ||
            (rc = ice_j__bool(&t->value_required, p, v, "value-required",
                              where, 1)) < 0 ||
            (rc = ice_j__get(&sub, p, v, "value", where, 1)) < 0)
            return rc;
        return parse_type(&t->value, p, sub, depth + 1, where);
    }
    return zb_fail(p->ctx, ZB_EUNSUPPORTED, "%s: %s: unknown type \"%.40s\"",
                   p->src, where, kind);
}

int ice_schema__parse(ice_schema *out, ice_parse *p, const json_t *obj,
                      int32_t default_id, const char *where)
{
    const char *kind = NULL;
    int rc;

    if (!json_is_object(obj))
        return ice_j__fail(p, where, "must be an object");
    out->schema_id = default_id;
    if ((rc = ice_j__i32(&out->schema_id, p, obj, "schema-id", where,
                         p->version >= 2)) < 0 ||
        (rc = ice_j__i32_list(&out->identifier_field_ids,
                              &out->n_identifier_field_ids, p, obj,
                              "identifier-field-ids", where, 0)) < 0 ||
        (rc = ice_j__str(&kind, p, obj, "type", where, 1)) < 0)
        return rc;
    if (strcmp(kind, "struct") != 0)
        return ice_j__fail(p, where, "\"type\" must be \"struct\"");
    return parse_type(&out->root, p, obj, 1, where);
}

/* ---- lookups ---------------------------------------------------------- */

const ice_schema *ice_metadata_schema(const ice_metadata *m, int32_t schema_id)
{
    size_t i;

    for (i = 0; i < m->n_schemas; i++)
        if (m->schemas[i].schema_id == schema_id)
            return &m->schemas[i];
    return NULL;
}

const ice_schema *ice_metadata_current_schema(const ice_metadata *m)
{
    return ice_metadata_schema(m, m->current_schema_id);
}

/* Depth-first search for id; *field is set when it is a struct field. */
static const ice_type *find_in(const ice_type *t, int32_t id,
                               const ice_field **field)
{
    const ice_type *r;
    size_t i;

    switch (t->id) {
    case ICE_STRUCT:
        for (i = 0; i < t->n_fields; i++) {
            if (t->fields[i].id == id) {
                *field = &t->fields[i];
                return t->fields[i].type;
            }
            if ((r = find_in(t->fields[i].type, id, field)) != NULL)
                return r;
        }
        return NULL;
    case ICE_LIST:
        if (t->element_id == id)
            return t->element;
        return find_in(t->element, id, field);
    case ICE_MAP:
        if (t->key_id == id)
            return t->key;
        if (t->value_id == id)
            return t->value;
        if ((r = find_in(t->key, id, field)) != NULL)
            return r;
        return find_in(t->value, id, field);
    default:
        return NULL;
    }
}

const ice_field *ice_schema_find_field(const ice_schema *s, int32_t field_id)
{
    const ice_field *f = NULL;

    if (s == NULL || find_in(s->root, field_id, &f) == NULL)
        return NULL;
    return f;
}

const ice_type *ice_schema_find_type(const ice_schema *s, int32_t field_id)
{
    const ice_field *f = NULL;

    return s ? find_in(s->root, field_id, &f) : NULL;
}

const ice_partition_spec *ice_metadata_spec(const ice_metadata *m,
                                            int32_t spec_id)
{
    size_t i;

    for (i = 0; i < m->n_specs; i++)
        if (m->specs[i].spec_id == spec_id)
            return &m->specs[i];
    return NULL;
}

const ice_partition_spec *ice_metadata_default_spec(const ice_metadata *m)
{
    return ice_metadata_spec(m, m->default_spec_id);
}

const ice_sort_order *ice_metadata_sort_order(const ice_metadata *m,
                                              int32_t order_id)
{
    size_t i;

    for (i = 0; i < m->n_sort_orders; i++)
        if (m->sort_orders[i].order_id == order_id)
            return &m->sort_orders[i];
    return NULL;
}

const ice_snapshot *ice_metadata_snapshot(const ice_metadata *m,
                                          int64_t snapshot_id)
{
    const ice_snap_index *ix = m->internal ? m->internal->snap_index : NULL;
    size_t lo = 0, hi = m->n_snapshots;

    if (ix == NULL)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ix[mid].id == snapshot_id)
            return &m->snapshots[ix[mid].pos];
        if (ix[mid].id < snapshot_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const ice_snapshot *ice_metadata_current_snapshot(const ice_metadata *m)
{
    if (m->current_snapshot_id == ICE_NO_SNAPSHOT)
        return NULL;
    return ice_metadata_snapshot(m, m->current_snapshot_id);
}

const ice_ref *ice_metadata_ref(const ice_metadata *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->n_refs; i++)
        if (strcmp(m->refs[i].name, name) == 0)
            return &m->refs[i];
    return NULL;
}

const char *ice_metadata_property(const ice_metadata *m, const char *key)
{
    size_t i;

    for (i = 0; i < m->n_properties; i++)
        if (strcmp(m->properties[i].key, key) == 0)
            return m->properties[i].value;
    return NULL;
}

size_t ice_metadata_ancestors(const ice_snapshot **out, size_t max,
                              const ice_metadata *m, int64_t snapshot_id)
{
    const ice_snapshot *s = ice_metadata_snapshot(m, snapshot_id);
    size_t n = 0;

    while (s != NULL && n < m->n_snapshots) {
        if (n < max)
            out[n] = s;
        n++;
        if (s->parent_snapshot_id == ICE_NO_SNAPSHOT)
            break;
        s = ice_metadata_snapshot(m, s->parent_snapshot_id);
    }
    return n;
}

/*
 * ops/add_files/add_files_schema.c - a Parquet file's columns against a table's
 * schema for add-files: field ids (the file's own, or by name through the
 * table's name mapping, format/spec.md "Column Projection" and "Name
 * Mapping Serialization"), whether each column's type can be read as its
 * field's, and, for --create, the Iceberg schema of a Parquet schema (the
 * mapping Iceberg's Parquet readers apply: INT96 is timestamptz, unsigned
 * 32-bit integers are longs, ...).
 */
#define ZB_MODULE "add-files"

#include <string.h>

#include "ops/add_files/add_files_int.h"
#include "table/value/ice_value.h"
#include "util/err.h"

/* The logical annotation of e (pq_schema_element_logical), with the
 * legacy INTERVAL marked UNKNOWN: Iceberg has no type for it, so it must
 * fit no field and make no column. */
static pq_logical logical_of(const pq_schema_element *e)
{
    pq_logical l = pq_schema_element_logical(e);

    if (l.kind == PQ_LT_NONE && e->has_converted_type &&
        e->converted_type == PQ_CT_INTERVAL)
        l.kind = PQ_LT_UNKNOWN;
    return l;
}

static const char *pq_type_name(const pq_schema_element *e)
{
    static const char *names[] = { "BOOLEAN", "INT32", "INT64", "INT96",
                                   "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                   "FIXED_LEN_BYTE_ARRAY" };

    return e->has_type && (unsigned)e->type < 8 ? names[e->type] : "group";
}

static const char *ice_name(const ice_type *t)
{
    return t->text ? t->text : ice_type_name(t->id);
}

static int is_ts(ice_type_id id)
{
    return id == ICE_TIMESTAMP || id == ICE_TIMESTAMPTZ ||
           id == ICE_TIMESTAMP_NS || id == ICE_TIMESTAMPTZ_NS;
}

/* Whether a leaf e can be read as the primitive t. */
static int leaf_fits(const pq_schema_element *e, const ice_type *t)
{
    pq_logical l = logical_of(e);
    ice_type_id id = t->id;

    if (l.kind == PQ_LT_DECIMAL)
        return id == ICE_DECIMAL && l.scale == t->prim.scale;
    switch (e->type) {
    case PQ_BOOLEAN:
        return id == ICE_BOOLEAN;
    case PQ_INT32:
        if (l.kind == PQ_LT_DATE)
            return id == ICE_DATE;
        if (l.kind == PQ_LT_TIME)
            return id == ICE_TIME;
        if (l.kind == PQ_LT_INTEGER && !l.is_signed && l.bit_width == 32)
            return id == ICE_LONG;
        return l.kind == PQ_LT_NONE || l.kind == PQ_LT_INTEGER
                   ? id == ICE_INT || id == ICE_LONG : 0;
    case PQ_INT64:
        if (l.kind == PQ_LT_TIMESTAMP)
            return is_ts(id);
        if (l.kind == PQ_LT_TIME)
            return id == ICE_TIME;
        if (l.kind == PQ_LT_INTEGER && !l.is_signed)
            return 0;
        return (l.kind == PQ_LT_NONE || l.kind == PQ_LT_INTEGER) &&
               id == ICE_LONG;
    case PQ_INT96:
        return id == ICE_TIMESTAMP || id == ICE_TIMESTAMPTZ;
    case PQ_FLOAT:
        return id == ICE_FLOAT || id == ICE_DOUBLE;
    case PQ_DOUBLE:
        return id == ICE_DOUBLE;
    case PQ_BYTE_ARRAY:
        return id == ICE_STRING || id == ICE_BINARY;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (l.kind == PQ_LT_FLOAT16)
            return 0;
        if (id == ICE_UUID)
            return e->type_length == 16;
        if (id == ICE_FIXED)
            return e->type_length == t->prim.length;
        return id == ICE_BINARY;
    default:
        return 0;
    }
}

/* ---- name mapping ---- */

/* The entry of a mapping list whose names hold name, or NULL. */
static const json_t *nm_find(const json_t *list, const char *name)
{
    size_t i, j;

    for (i = 0; json_is_array(list) && i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        const json_t *names = json_object_get(e, "names");

        for (j = 0; json_is_array(names) && j < json_array_size(names); j++) {
            const char *s = json_string_value(json_array_get(names, j));
            if (s && strcmp(s, name) == 0)
                return e;
        }
    }
    return NULL;
}

static int32_t nm_id(const json_t *e)
{
    const json_t *id = json_object_get(e, "field-id");

    return json_is_integer(id) && json_integer_value(id) >= 0 &&
                   json_integer_value(id) <= INT32_MAX
               ? (int32_t)json_integer_value(id) : -1;
}

/* ---- mapping a file's columns ---- */

typedef struct mapper {
    zb_ctx *ctx;
    const char *uri;
    const ice_schema *s;
    int has_ids;
    af_columns *out;
    size_t n_unmapped;             /* columns that map to no field */
    char unmapped[160];            /* the first of them, dotted */
} mapper;

static void put_clamped(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);

    if (used + 1 < size)
        snprintf(buf + used, size - used, "%s", text);
}

/* Notes column n as unmapped: the first three by their dotted paths. */
static void note_unmapped(mapper *mp, const pq_node *n)
{
    const pq_node *chain[64];
    size_t depth = 0;
    const pq_node *q;

    if (++mp->n_unmapped > 3)
        return;
    for (q = n; q != NULL && q->parent != NULL && depth < 64; q = q->parent)
        chain[depth++] = q;
    if (mp->unmapped[0] != '\0')
        put_clamped(mp->unmapped, sizeof mp->unmapped, ", ");
    while (depth > 0) {
        put_clamped(mp->unmapped, sizeof mp->unmapped, chain[--depth]->name);
        if (depth > 0)
            put_clamped(mp->unmapped, sizeof mp->unmapped, ".");
    }
}

static void leaves_unmapped(mapper *mp, const pq_node *n)
{
    size_t i;

    if (n->kind == PQ_NODE_PRIMITIVE) {
        mp->out->leaf_ids[n->leaf_index] = -1;
        return;
    }
    for (i = 0; i < n->n_children; i++)
        leaves_unmapped(mp, n->children[i]);
}

static int map_node(mapper *mp, const pq_node *n, const json_t *nm,
                    int32_t id);

/* The field id of child c: its own, or its mapping entry's. */
static int map_child(mapper *mp, const pq_node *c, const json_t *fields,
                     const char *nm_name)
{
    const json_t *e = NULL;
    int32_t id = -1;

    if (mp->has_ids) {
        id = c->elem && c->elem->has_field_id ? c->elem->field_id : -1;
    } else {
        e = nm_find(fields, nm_name ? nm_name : c->name);
        if (e == NULL && nm_name != NULL && json_array_size(fields) == 1)
            e = json_array_get(fields, 0);
        id = e ? nm_id(e) : -1;
    }
    return map_node(mp, c, e, id);
}

static int kind_fits(const pq_node *n, const ice_type *t)
{
    switch (n->kind) {
    case PQ_NODE_STRUCT: return t->id == ICE_STRUCT;
    case PQ_NODE_LIST: return t->id == ICE_LIST;
    case PQ_NODE_MAP: return t->id == ICE_MAP;
    default: return t->id < ICE_STRUCT && leaf_fits(n->elem, t);
    }
}

static int map_node(mapper *mp, const pq_node *n, const json_t *nm,
                    int32_t id)
{
    const ice_type *t = id >= 0 ? ice_schema_find_type(mp->s, id) : NULL;
    const json_t *fields = nm ? json_object_get(nm, "fields") : NULL;
    size_t i;
    int rc;

    if (t == NULL) {
        if (id >= 0 && mp->has_ids)
            return zb_fail(mp->ctx, ZB_EREFUSED, "%s: column %s has field id "
                           "%d, which is not in the table's schema (files "
                           "with field ids must use the table's)", mp->uri,
                           n->name, (int)id);
        leaves_unmapped(mp, n);
        note_unmapped(mp, n);
        return ZB_OK;
    }
    if (!kind_fits(n, t))
        return zb_fail(mp->ctx, ZB_EREFUSED, "%s: column %s (%s) cannot be "
                       "read as field %d of type %s", mp->uri, n->name,
                       n->kind == PQ_NODE_PRIMITIVE ? pq_type_name(n->elem)
                       : n->kind == PQ_NODE_STRUCT ? "struct"
                       : n->kind == PQ_NODE_LIST ? "list" : "map",
                       (int)id, ice_name(t));
    switch (n->kind) {
    case PQ_NODE_PRIMITIVE:
        mp->out->leaf_ids[n->leaf_index] = id;
        return ZB_OK;
    case PQ_NODE_STRUCT:
        for (i = 0; i < n->n_children; i++)
            if ((rc = map_child(mp, n->children[i], fields, NULL)) < 0)
                return rc;
        return ZB_OK;
    case PQ_NODE_LIST:
        return map_child(mp, n->children[0], fields, "element");
    case PQ_NODE_MAP: {
        const pq_node *kv = n->children[0];
        if ((rc = map_child(mp, kv->children[0], fields, "key")) < 0)
            return rc;
        return map_child(mp, kv->children[1], fields, "value");
    }
    }
    return ZB_OK;
}

int zb_af__map_columns(af_columns *out, zb_arena *arena, zb_ctx *ctx,
                       const char *uri, const pq_schema *ps,
                       const ice_schema *s, const json_t *mapping)
{
    const pq_node *root = ps->root;
    mapper mp;
    size_t i;
    int rc;

    memset(out, 0, sizeof *out);
    out->n_leaves = ps->n_leaves;
    out->leaf_ids = zb_arena_calloc(arena, ps->n_leaves + 1,
                                    sizeof *out->leaf_ids);
    out->top_ids = zb_arena_calloc(arena, root->n_children + 1,
                                   sizeof *out->top_ids);
    if (out->leaf_ids == NULL || out->top_ids == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < root->n_children; i++)
        if (root->children[i]->elem && root->children[i]->elem->has_field_id)
            out->has_ids = 1;
    mp.ctx = ctx;
    mp.uri = uri;
    mp.s = s;
    mp.has_ids = out->has_ids;
    mp.out = out;
    mp.n_unmapped = 0;
    mp.unmapped[0] = '\0';
    for (i = 0; i < root->n_children; i++) {
        const pq_node *c = root->children[i];
        const json_t *e = NULL;
        int32_t id;

        if (out->has_ids) {
            id = c->elem && c->elem->has_field_id ? c->elem->field_id : -1;
        } else {
            e = nm_find(mapping, c->name);
            id = e ? nm_id(e) : -1;
        }
        if ((rc = map_node(&mp, c, e, id)) < 0)
            return rc;
        if (id >= 0 && ice_schema_find_field(s, id) != NULL)
            out->top_ids[out->n_top++] = id;
    }
    /* A column no field takes would be silently dropped: refused. */
    if (mp.n_unmapped > 0)
        return zb_fail(ctx, ZB_EREFUSED, "%s: %zu column(s) map to no field "
                       "of the table's schema by %s (%s%s): their data "
                       "would be lost; add the columns to the table first",
                       uri, mp.n_unmapped, out->has_ids ? "field id"
                       : "name through the name mapping", mp.unmapped,
                       mp.n_unmapped > 3 ? ", ..." : "");
    return ZB_OK;
}

/* ---- the name mapping of a schema ---- */

static json_t *nm_entry(int32_t id, const char *name, const ice_type *t);

static json_t *nm_fields(const ice_type *t)
{
    json_t *list = json_array();
    size_t i;

    if (list == NULL)
        return NULL;
    switch (t->id) {
    case ICE_STRUCT:
        for (i = 0; i < t->n_fields; i++)
            if (json_array_append_new(list, nm_entry(t->fields[i].id,
                                                     t->fields[i].name,
                                                     t->fields[i].type)) < 0)
                goto fail;
        break;
    case ICE_LIST:
        if (json_array_append_new(list, nm_entry(t->element_id, "element",
                                                 t->element)) < 0)
            goto fail;
        break;
    case ICE_MAP:
        if (json_array_append_new(list, nm_entry(t->key_id, "key",
                                                 t->key)) < 0 ||
            json_array_append_new(list, nm_entry(t->value_id, "value",
                                                 t->value)) < 0)
            goto fail;
        break;
    default:
        break;
    }
    return list;
fail:
    json_decref(list);
    return NULL;
}

static json_t *nm_entry(int32_t id, const char *name, const ice_type *t)
{
    json_t *e = json_pack("{s:I, s:[s]}", "field-id", (json_int_t)id,
                          "names", name);

    if (e != NULL && t != NULL && t->id >= ICE_STRUCT &&
        json_object_set_new(e, "fields", nm_fields(t)) < 0) {
        json_decref(e);
        return NULL;
    }
    return e;
}

json_t *zb_af__name_mapping(const ice_schema *s)
{
    return nm_fields(s->root);
}

/* ---- a schema from a Parquet file (create) ---- */

typedef struct builder {
    zb_ctx *ctx;
    const char *uri;
    int format_version;
    json_int_t next_id;
} builder;

static int type_of(json_t **out, builder *b, const pq_node *n);

/* The primitive type string of leaf e, or NULL (with the error set). */
static const char *prim_of(builder *b, const pq_node *n, char *buf,
                           size_t size)
{
    const pq_schema_element *e = n->elem;
    pq_logical l = logical_of(e);

    if (l.kind == PQ_LT_DECIMAL) {
        snprintf(buf, size, "decimal(%d, %d)", (int)l.precision,
                 (int)l.scale);
        return buf;
    }
    switch (e->type) {
    case PQ_BOOLEAN:
        return "boolean";
    case PQ_INT32:
        if (l.kind == PQ_LT_DATE)
            return "date";
        if (l.kind == PQ_LT_TIME)
            return "time";
        if (l.kind == PQ_LT_INTEGER && !l.is_signed && l.bit_width == 32)
            return "long";
        if (l.kind == PQ_LT_NONE || l.kind == PQ_LT_INTEGER)
            return "int";
        break;
    case PQ_INT64:
        if (l.kind == PQ_LT_TIMESTAMP) {
            if (l.unit != PQ_UNIT_NANOS)
                return l.is_adjusted_to_utc ? "timestamptz" : "timestamp";
            if (b->format_version >= 3)
                return l.is_adjusted_to_utc ? "timestamptz_ns"
                                            : "timestamp_ns";
            break;
        }
        if (l.kind == PQ_LT_TIME && l.unit != PQ_UNIT_NANOS)
            return "time";
        if (l.kind == PQ_LT_NONE ||
            (l.kind == PQ_LT_INTEGER && l.is_signed))
            return "long";
        break;
    case PQ_INT96:
        return "timestamptz";
    case PQ_FLOAT:
        return "float";
    case PQ_DOUBLE:
        return "double";
    case PQ_BYTE_ARRAY:
        return l.kind == PQ_LT_STRING || l.kind == PQ_LT_ENUM ||
                       l.kind == PQ_LT_JSON
                   ? "string" : "binary";
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (l.kind == PQ_LT_UUID)
            return "uuid";
        if (l.kind == PQ_LT_NONE) {
            snprintf(buf, size, "fixed[%d]", (int)e->type_length);
            return buf;
        }
        break;
    default:
        break;
    }
    zb_fail(b->ctx, ZB_EUNSUPPORTED, "%s: column %s (%s, annotation %d) has "
            "no Iceberg type in format version %d", b->uri, n->name,
            pq_type_name(e), (int)l.kind, b->format_version);
    return NULL;
}

static json_t *field_json(json_int_t id, const char *name, int required,
                          json_t *type)
{
    json_t *f = json_pack("{s:I, s:s, s:b}", "id", id, "name", name,
                          "required", required);

    if (f == NULL || json_object_set_new(f, "type", type) < 0) {
        json_decref(f);
        return NULL;
    }
    return f;
}

static int struct_of(json_t **out, builder *b, const pq_node *n)
{
    json_t *fields = json_array(), *st = NULL;
    size_t i;
    int rc = ZB_OK;

    *out = NULL;
    if (fields == NULL)
        return zb_fail_oom(b->ctx);
    /* Top-level ids first (Iceberg's AssignFreshIds order): this level's
     * fields take the next ids, then their children theirs. */
    {
        json_int_t base = b->next_id;
        b->next_id += (json_int_t)n->n_children;
        for (i = 0; i < n->n_children; i++) {
            const pq_node *c = n->children[i];
            json_t *t = NULL, *f;

            if ((rc = type_of(&t, b, c)) < 0)
                goto done;
            f = field_json(base + (json_int_t)i, c->name, !c->nullable, t);
            if (f == NULL || json_array_append_new(fields, f) < 0) {
                rc = zb_fail_oom(b->ctx);
                goto done;
            }
        }
    }
    st = json_pack("{s:s, s:O}", "type", "struct", "fields", fields);
    if (st == NULL)
        rc = zb_fail_oom(b->ctx);
done:
    json_decref(fields);
    *out = st;
    return rc;
}

static int type_of(json_t **out, builder *b, const pq_node *n)
{
    char buf[64];
    json_t *inner = NULL, *v = NULL;
    const char *p;
    json_int_t id, id2;
    int rc;

    *out = NULL;
    switch (n->kind) {
    case PQ_NODE_PRIMITIVE:
        if ((p = prim_of(b, n, buf, sizeof buf)) == NULL)
            return ZB_EUNSUPPORTED;
        if ((*out = json_string(p)) == NULL)
            return zb_fail_oom(b->ctx);
        return ZB_OK;
    case PQ_NODE_STRUCT:
        return struct_of(out, b, n);
    case PQ_NODE_LIST:
        id = b->next_id++;
        if ((rc = type_of(&inner, b, n->children[0])) < 0)
            return rc;
        *out = json_pack("{s:s, s:I, s:o, s:b}", "type", "list",
                         "element-id", id, "element", inner,
                         "element-required", !n->children[0]->nullable);
        return *out ? ZB_OK : zb_fail_oom(b->ctx);
    case PQ_NODE_MAP: {
        const pq_node *kv = n->children[0];
        id = b->next_id++;
        id2 = b->next_id++;
        if ((rc = type_of(&inner, b, kv->children[0])) < 0)
            return rc;
        if ((rc = type_of(&v, b, kv->children[1])) < 0) {
            json_decref(inner);
            return rc;
        }
        *out = json_pack("{s:s, s:I, s:o, s:I, s:o, s:b}", "type", "map",
                         "key-id", id, "key", inner, "value-id", id2,
                         "value", v, "value-required",
                         !kv->children[1]->nullable);
        return *out ? ZB_OK : zb_fail_oom(b->ctx);
    }
    }
    return ZB_EINVAL;
}

int zb_af__schema_from_parquet(json_t **out, zb_ctx *ctx, const char *uri,
                               const pq_schema *ps, int format_version)
{
    builder b;
    int rc;

    b.ctx = ctx;
    b.uri = uri;
    b.format_version = format_version;
    b.next_id = 1;
    if ((rc = struct_of(out, &b, ps->root)) < 0)
        return rc;
    if (json_object_set_new(*out, "schema-id", json_integer(0)) < 0) {
        json_decref(*out);
        *out = NULL;
        return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

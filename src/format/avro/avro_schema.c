/*
 * format/avro/avro_schema.c - Avro schema JSON to the node graph of
 * avro.h (Avro 1.11 spec, "Schema Declaration", "Names").
 *
 * zb_avro_schema_parse loads the text with jansson, then walks it
 * depth-first: a JSON string is a primitive or a reference to a named type
 * defined earlier (or being defined: recursion), an array is a union, an
 * object is a primitive with attributes or a record, enum, array, map or
 * fixed. Named types are registered in a list under their full name
 * (namespace rules: a dotted name is full; otherwise the enclosing
 * namespace is put in front) before their fields are parsed, so that a
 * record can refer to itself. Every node keeps its JSON object less the
 * nested schemas (attrs_json), and the Iceberg ids (field-id, element-id,
 * key-id, value-id) are read into integers. min_bytes, the least encoded
 * size of a datum, is computed bottom-up for the reader's sanity checks on
 * counts read from files.
 *
 * Why format/avro links jansson (STYLE.md gives it to table and
 * catalog_rest): the schema of every Avro file is JSON in its header, and
 * Iceberg's attributes on it must be kept; a second JSON parser in the
 * tree would be worse than one more user of the project's JSON library.
 * jansson stays inside this file: no jansson type reaches a header.
 */
#define ZB_MODULE "avro"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "format/avro/avro_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define MAX_SCHEMA_DEPTH 64

typedef struct named {
    const char *full_name;
    zb_avro_node *node;
    struct named *next;
} named;

typedef struct parser {
    zb_ctx *ctx;
    zb_arena *arena;
    named *names;
} parser;

static const char *const type_names[] = {
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
    "record", "enum", "array", "map", "union", "fixed"
};

const char *zb_avro_type_name(zb_avro_type t)
{
    return (unsigned)t < sizeof type_names / sizeof *type_names
               ? type_names[t] : "?";
}

static int primitive_type(const char *s)
{
    int i;

    for (i = ZB_AVRO_NULL; i <= ZB_AVRO_STRING; i++)
        if (strcmp(s, type_names[i]) == 0)
            return i;
    return -1;
}

static int oom(parser *p)
{
    return zb_fail_oom(p->ctx);
}

/* Dumps j less the keys named in drop (NULL-ended) into the arena. */
static const char *dump_attrs(parser *p, json_t *j, const char *const *drop)
{
    const size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY;
    json_t *copy = json_is_object(j) ? json_copy(j) : json_incref(j);
    char *out = NULL;
    size_t n;

    if (copy == NULL)
        return NULL;
    for (; drop && *drop; drop++)
        json_object_del(copy, *drop);
    /* Measure, then encode into the arena: no jansson-owned string. */
    n = json_dumpb(copy, NULL, 0, flags);
    if (n > 0 && (out = zb_arena_alloc(p->arena, n + 1)) != NULL) {
        json_dumpb(copy, out, n, flags);
        out[n] = '\0';
    }
    json_decref(copy);
    return out;
}

/* An optional integer attribute; ZB_ECORRUPT if present but not one. */
static int int_attr(parser *p, json_t *obj, const char *key, int64_t *out,
                    const char *where)
{
    json_t *v = json_object_get(obj, key);

    *out = ZB_AVRO_NO_ID;
    if (v == NULL)
        return ZB_OK;
    if (!json_is_integer(v))
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: \"%s\" is not an "
                       "integer", where, key);
    *out = (int64_t)json_integer_value(v);
    return ZB_OK;
}

static const char *full_name(parser *p, const char *name, const char *ns)
{
    if (strchr(name, '.') != NULL || ns == NULL || ns[0] == '\0')
        return zb_arena_strdup(p->arena, name);
    return zb_arena_sprintf(p->arena, "%s.%s", ns, name);
}

static zb_avro_node *lookup(parser *p, const char *name, const char *ns)
{
    named *n;
    const char *full = NULL;
    char tmp[512];

    if (strchr(name, '.') == NULL && ns != NULL && ns[0] != '\0') {
        snprintf(tmp, sizeof tmp, "%s.%s", ns, name);
        full = tmp;
    }
    for (n = p->names; n; n = n->next)
        if (full != NULL && strcmp(n->full_name, full) == 0)
            return n->node;
    for (n = p->names; n; n = n->next)
        if (strcmp(n->full_name, name) == 0)
            return n->node;
    return NULL;
}

static int define(parser *p, zb_avro_node *node, json_t *j, const char *ns,
                  const char **ns_out, const char *where)
{
    json_t *jn = json_object_get(j, "name"), *jns;
    named *n;

    if (!json_is_string(jn) || json_string_value(jn)[0] == '\0')
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: %s without a name",
                       where, zb_avro_type_name(node->type));
    jns = json_object_get(j, "namespace");
    if (json_is_string(jns))
        ns = json_string_value(jns);
    if ((node->name = full_name(p, json_string_value(jn), ns)) == NULL)
        return oom(p);
    for (n = p->names; n; n = n->next)
        if (strcmp(n->full_name, node->name) == 0)
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: type %s "
                           "defined twice", where, node->name);
    if ((n = zb_arena_alloc(p->arena, sizeof *n)) == NULL)
        return oom(p);
    n->full_name = node->name;
    n->node = node;
    n->next = p->names;
    p->names = n;
    /* Names inside take the namespace of the full name. */
    {
        const char *dot = strrchr(node->name, '.');
        *ns_out = dot ? zb_arena_strndup(p->arena, node->name,
                                         (size_t)(dot - node->name))
                      : "";
        if (*ns_out == NULL)
            return oom(p);
    }
    return ZB_OK;
}

static int parse_node(parser *p, zb_avro_node **out, json_t *j,
                      const char *ns, const char *where, int depth);

static int parse_record(parser *p, zb_avro_node *node, json_t *j,
                        const char *ns, int depth)
{
    static const char *const drop_field[] = { "type", NULL };
    static const char *const drop_rec[] = { "fields", NULL };
    json_t *fields = json_object_get(j, "fields"), *f;
    const char *inner_ns;
    size_t i;
    int rc;

    if ((rc = define(p, node, j, ns, &inner_ns, "record")) < 0)
        return rc;
    if (!json_is_array(fields))
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema record %s: no fields "
                       "array", node->name);
    node->n = json_array_size(fields);
    node->fields = zb_arena_calloc(p->arena, node->n ? node->n : 1,
                                   sizeof *node->fields);
    if (node->fields == NULL || (node->attrs_json = dump_attrs(p, j,
                                 drop_rec)) == NULL)
        return oom(p);
    json_array_foreach(fields, i, f) {
        zb_avro_field *fd = &node->fields[i];
        json_t *fn = json_object_get(f, "name");
        char where[300];
        if (!json_is_object(f) || !json_is_string(fn))
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema record %s: field "
                           "%zu has no name", node->name, i);
        if ((fd->name = zb_arena_strdup(p->arena, json_string_value(fn))) ==
                NULL ||
            (fd->attrs_json = dump_attrs(p, f, drop_field)) == NULL)
            return oom(p);
        snprintf(where, sizeof where, "record %s field %s", node->name,
                 fd->name);
        if ((rc = int_attr(p, f, "field-id", &fd->field_id, where)) < 0 ||
            (rc = parse_node(p, &fd->type, json_object_get(f, "type"),
                             inner_ns, where, depth + 1)) < 0)
            return rc;
        node->min_bytes += fd->type->min_bytes;
    }
    return ZB_OK;
}

static int parse_enum(parser *p, zb_avro_node *node, json_t *j,
                      const char *ns)
{
    json_t *syms = json_object_get(j, "symbols"), *s;
    const char *inner_ns;
    size_t i;
    int rc;

    if ((rc = define(p, node, j, ns, &inner_ns, "enum")) < 0)
        return rc;
    if (!json_is_array(syms) || json_array_size(syms) == 0)
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema enum %s: no symbols",
                       node->name);
    node->n = json_array_size(syms);
    if ((node->symbols = zb_arena_calloc(p->arena, node->n,
                                         sizeof *node->symbols)) == NULL ||
        (node->attrs_json = dump_attrs(p, j, NULL)) == NULL)
        return oom(p);
    json_array_foreach(syms, i, s) {
        if (!json_is_string(s))
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema enum %s: symbol %zu "
                           "is not a string", node->name, i);
        if ((node->symbols[i] = zb_arena_strdup(p->arena,
                                                json_string_value(s))) == NULL)
            return oom(p);
    }
    node->min_bytes = 1;
    return ZB_OK;
}

static int parse_object(parser *p, zb_avro_node *node, json_t *j,
                        const char *ns, const char *where, int depth)
{
    static const char *const drop_items[] = { "items", NULL };
    static const char *const drop_values[] = { "values", NULL };
    json_t *jt = json_object_get(j, "type"), *lt;
    const char *t, *inner_ns;
    int prim, rc;

    if (!json_is_string(jt))
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: object without a "
                       "type name", where);
    t = json_string_value(jt);
    lt = json_object_get(j, "logicalType");
    if (json_is_string(lt) &&
        (node->logical_type = zb_arena_strdup(p->arena,
                                              json_string_value(lt))) == NULL)
        return oom(p);
    node->element_id = node->key_id = node->value_id = ZB_AVRO_NO_ID;
    if ((prim = primitive_type(t)) >= 0) {
        node->type = (zb_avro_type)prim;
        node->min_bytes = prim == ZB_AVRO_NULL ? 0
                        : prim == ZB_AVRO_FLOAT ? 4
                        : prim == ZB_AVRO_DOUBLE ? 8 : 1;
        return (node->attrs_json = dump_attrs(p, j, NULL)) ? ZB_OK : oom(p);
    }
    if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
        node->type = ZB_AVRO_RECORD;
        return parse_record(p, node, j, ns, depth);
    }
    if (strcmp(t, "enum") == 0) {
        node->type = ZB_AVRO_ENUM;
        return parse_enum(p, node, j, ns);
    }
    if (strcmp(t, "array") == 0) {
        node->type = ZB_AVRO_ARRAY;
        node->min_bytes = 1;
        if ((node->attrs_json = dump_attrs(p, j, drop_items)) == NULL)
            return oom(p);
        if ((rc = int_attr(p, j, "element-id", &node->element_id, where)) < 0)
            return rc;
        return parse_node(p, &node->items, json_object_get(j, "items"), ns,
                          where, depth + 1);
    }
    if (strcmp(t, "map") == 0) {
        node->type = ZB_AVRO_MAP;
        node->min_bytes = 1;
        if ((node->attrs_json = dump_attrs(p, j, drop_values)) == NULL)
            return oom(p);
        if ((rc = int_attr(p, j, "key-id", &node->key_id, where)) < 0 ||
            (rc = int_attr(p, j, "value-id", &node->value_id, where)) < 0)
            return rc;
        return parse_node(p, &node->items, json_object_get(j, "values"), ns,
                          where, depth + 1);
    }
    if (strcmp(t, "fixed") == 0) {
        json_t *sz = json_object_get(j, "size");
        node->type = ZB_AVRO_FIXED;
        if ((rc = define(p, node, j, ns, &inner_ns, "fixed")) < 0)
            return rc;
        if (!json_is_integer(sz) || json_integer_value(sz) < 0 ||
            json_integer_value(sz) > (1 << 30))
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema fixed %s: bad size",
                           node->name);
        node->fixed_bytes = (size_t)json_integer_value(sz);
        node->min_bytes = node->fixed_bytes;
        return (node->attrs_json = dump_attrs(p, j, NULL)) ? ZB_OK : oom(p);
    }
    /* {"type": "SomeNamedType", ...}: a reference with attributes. */
    {
        zb_avro_node *ref = lookup(p, t, ns);
        if (ref == NULL)
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: unknown type "
                           "\"%s\"", where, t);
        *node = *ref;
        return ZB_OK;
    }
}

static int parse_node(parser *p, zb_avro_node **out, json_t *j,
                      const char *ns, const char *where, int depth)
{
    zb_avro_node *node;
    size_t i;
    int rc;

    if (depth > MAX_SCHEMA_DEPTH)
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: nested deeper than "
                       "%d", where, MAX_SCHEMA_DEPTH);
    if (j == NULL)
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: no type", where);
    if (json_is_string(j)) {
        int prim = primitive_type(json_string_value(j));
        if (prim < 0) {
            if ((*out = lookup(p, json_string_value(j), ns)) == NULL)
                return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: unknown "
                               "type \"%s\"", where, json_string_value(j));
            return ZB_OK;
        }
    }
    if ((node = zb_arena_calloc(p->arena, 1, sizeof *node)) == NULL)
        return oom(p);
    node->element_id = node->key_id = node->value_id = ZB_AVRO_NO_ID;
    *out = node;
    if (json_is_string(j)) {
        node->type = (zb_avro_type)primitive_type(json_string_value(j));
        node->min_bytes = node->type == ZB_AVRO_NULL ? 0
                        : node->type == ZB_AVRO_FLOAT ? 4
                        : node->type == ZB_AVRO_DOUBLE ? 8 : 1;
        return (node->attrs_json = dump_attrs(p, j, NULL)) ? ZB_OK : oom(p);
    }
    if (json_is_object(j))
        return parse_object(p, node, j, ns, where, depth);
    if (!json_is_array(j) || json_array_size(j) == 0)
        return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: not a type", where);
    node->type = ZB_AVRO_UNION;
    node->n = json_array_size(j);
    node->min_bytes = 1;
    if ((node->branches = zb_arena_calloc(p->arena, node->n,
                                          sizeof *node->branches)) == NULL ||
        (node->attrs_json = dump_attrs(p, j, NULL)) == NULL)
        return oom(p);
    for (i = 0; i < node->n; i++) {
        if ((rc = parse_node(p, &node->branches[i], json_array_get(j, i), ns,
                             where, depth + 1)) < 0)
            return rc;
        if (node->branches[i]->type == ZB_AVRO_UNION)
            return zb_fail(p->ctx, ZB_ECORRUPT, "schema %s: union inside a "
                           "union", where);
    }
    return ZB_OK;
}

int zb_avro_schema_parse(zb_avro_schema **out, zb_ctx *ctx, const char *json,
                         size_t len)
{
    zb_avro_schema *s = NULL;
    zb_arena *arena = NULL;
    json_t *root = NULL;
    json_error_t jerr;
    parser p;
    int rc;

    ZB_ASSERT_ARG(out && ctx && (json || len == 0));
    *out = NULL;
    if ((rc = zb_arena_new(&arena, (size_t)1 << 30)) < 0)
        return zb_fail_oom(ctx);
    if ((s = zb_arena_calloc(arena, 1, sizeof *s)) == NULL ||
        (s->json = zb_arena_strndup(arena, json, len)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    s->arena = arena;
    s->json_len = len;
    atomic_init(&s->refs, 1);
    root = json_loadb(json, len, JSON_DECODE_ANY,
                      &jerr);
    if (root == NULL) {
        rc = json_error_code(&jerr) == json_error_out_of_memory
                 ? zb_fail_oom(ctx)
                 : zb_fail(ctx, ZB_ECORRUPT, "schema JSON: line %d column "
                           "%d: %s", jerr.line, jerr.column, jerr.text);
        goto done;
    }
    p.ctx = ctx;
    p.arena = arena;
    p.names = NULL;
    if ((rc = parse_node(&p, &s->root, root, "", "top", 0)) < 0)
        goto done;
    *out = s;
    arena = NULL;
done:
    json_decref(root);
    zb_arena_free(arena);
    return rc;
}

void zb_avro_schema_free(zb_avro_schema *s)
{
    if (s != NULL &&
        atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        zb_arena_free(s->arena);
}

const zb_avro_node *zb_avro_schema_root(const zb_avro_schema *s)
{
    return s->root;
}

const char *zb_avro_schema_json(const zb_avro_schema *s)
{
    return s->json;
}

int zb_avro_field_index(const zb_avro_node *record, const char *name)
{
    size_t i;

    if (record == NULL || record->type != ZB_AVRO_RECORD)
        return -1;
    for (i = 0; i < record->n; i++)
        if (strcmp(record->fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

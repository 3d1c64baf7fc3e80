/*
 * format/parquet/write/pq_write_schema.c - Arrow types to Parquet schema
 * elements (see pq_write_schema.h).
 *
 * Walks the Arrow schema depth first, emitting one schema element per
 * node in the order parquet.thrift wants them, and the writer's own tree
 * with the levels of every node. Lists are written in the standard
 * three-level form (group (LIST) { repeated group list { element } }) and
 * maps as group (MAP) { repeated group key_value { key; value } }.
 * Decimals go in INT32 up to precision 9, INT64 up to 18, and otherwise in
 * the fewest bytes of FIXED_LEN_BYTE_ARRAY that hold the precision.
 */
#define ZB_MODULE "parquet"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/write/pq_write_schema.h"

#define MAX_DEPTH 64

typedef struct builder {
    zb_arena *arena;
    zb_ctx *ctx;
    pq_schema_element *el;
    size_t n_el, cap_el;
    pw_node **leaves;
    size_t n_leaves, cap_leaves;
} builder;

static int grow(builder *b, void **arr, size_t *cap, size_t n, size_t size)
{
    void *p;

    if (n < *cap)
        return ZB_OK;
    if ((p = zb_arena_alloc(b->arena, (*cap ? *cap * 2 : 32) * size)) == NULL)
        return zb_fail_oom(b->ctx);
    if (n)
        memcpy(p, *arr, n * size);
    *arr = p;
    *cap = *cap ? *cap * 2 : 32;
    return ZB_OK;
}

static pq_schema_element *new_element(builder *b, const char *name, int rep,
                                      int children)
{
    pq_schema_element *e;

    if (grow(b, (void **)&b->el, &b->cap_el, b->n_el, sizeof *b->el) < 0)
        return NULL;
    e = &b->el[b->n_el++];
    memset(e, 0, sizeof *e);
    e->name = zb_arena_strdup(b->arena, name ? name : "");
    e->has_repetition = 1;
    e->repetition = (pq_repetition)rep;
    e->num_children = children;
    return e->name ? e : NULL;
}

static void set_field_id(pq_schema_element *e, const struct ArrowSchema *s)
{
    char v[32];

    if (zb_arrow_metadata_get(v, sizeof v, s->metadata, "PARQUET:field_id")) {
        e->has_field_id = 1;
        e->field_id = (int32_t)strtol(v, NULL, 10);
    }
}

/* Bytes of two's complement that hold every value of a precision. */
static int32_t decimal_bytes(int precision)
{
    int32_t n = 1;
    double max = 1;
    int i;

    for (i = 0; i < precision; i++)
        max *= 10;
    while ((double)((unsigned __int128)1 << (8 * n - 1)) < max && n < 16)
        n++;
    return n;
}

/* The legacy annotation matching a logical type, for older readers. */
static void set_converted_type(pq_schema_element *e)
{
    const pq_logical *lt = &e->logical;
    int ct = -1;

    switch (lt->kind) {
    case PQ_LT_STRING: ct = PQ_CT_UTF8; break;
    case PQ_LT_DATE: ct = PQ_CT_DATE; break;
    case PQ_LT_DECIMAL:
        ct = PQ_CT_DECIMAL;
        e->has_scale = e->has_precision = 1;
        e->scale = lt->scale;
        e->precision = lt->precision;
        break;
    case PQ_LT_TIME:
        ct = lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIME_MILLIS
             : lt->unit == PQ_UNIT_MICROS ? PQ_CT_TIME_MICROS : -1;
        break;
    case PQ_LT_TIMESTAMP:
        /* The legacy annotations mean UTC-adjusted instants. */
        if (lt->is_adjusted_to_utc)
            ct = lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIMESTAMP_MILLIS
                 : lt->unit == PQ_UNIT_MICROS ? PQ_CT_TIMESTAMP_MICROS : -1;
        break;
    case PQ_LT_INTEGER:
        switch (lt->bit_width) {
        case 8: ct = lt->is_signed ? PQ_CT_INT_8 : PQ_CT_UINT_8; break;
        case 16: ct = lt->is_signed ? PQ_CT_INT_16 : PQ_CT_UINT_16; break;
        case 32: ct = lt->is_signed ? PQ_CT_INT_32 : PQ_CT_UINT_32; break;
        default: ct = lt->is_signed ? PQ_CT_INT_64 : PQ_CT_UINT_64; break;
        }
        break;
    default:
        break;
    }
    if (ct >= 0) {
        e->has_converted_type = 1;
        e->converted_type = (pq_converted)ct;
    }
}

/* Long: one switch over the Arrow format strings, each mapped to its
 * Parquet type, annotation, conversion and order. */
static int primitive(builder *b, pw_node *n, pq_schema_element *e,
                     const struct ArrowSchema *s)
{
    const char *f = s->format;
    char ext[32];

    e->has_type = 1;
    n->kind = PW_PRIM;
    switch (f[0]) {
    case 'b': e->type = PQ_BOOLEAN; n->conv = PW_BOOL; n->order = PW_ORDER_BOOL; break;
    case 'c': case 'C': case 's': case 'S':
        e->type = PQ_INT32;
        n->conv = f[0] == 'c' ? PW_I8_TO_I32 : f[0] == 'C' ? PW_U8_TO_I32
                  : f[0] == 's' ? PW_I16_TO_I32 : PW_U16_TO_I32;
        e->logical.kind = PQ_LT_INTEGER;
        e->logical.bit_width = f[0] == 'c' || f[0] == 'C' ? 8 : 16;
        e->logical.is_signed = f[0] == 'c' || f[0] == 's';
        n->order = e->logical.is_signed ? PW_ORDER_I32 : PW_ORDER_U32;
        break;
    case 'i': case 'I':
        e->type = PQ_INT32;
        n->conv = PW_I32;
        n->order = f[0] == 'i' ? PW_ORDER_I32 : PW_ORDER_U32;
        if (f[0] == 'I') {
            e->logical.kind = PQ_LT_INTEGER;
            e->logical.bit_width = 32;
            e->logical.is_signed = 0;
        }
        break;
    case 'l': case 'L':
        e->type = PQ_INT64;
        n->conv = PW_I64;
        n->order = f[0] == 'l' ? PW_ORDER_I64 : PW_ORDER_U64;
        if (f[0] == 'L') {
            e->logical.kind = PQ_LT_INTEGER;
            e->logical.bit_width = 64;
            e->logical.is_signed = 0;
        }
        break;
    case 'f': e->type = PQ_FLOAT; n->conv = PW_FLOAT; n->order = PW_ORDER_FLOAT; break;
    case 'g': e->type = PQ_DOUBLE; n->conv = PW_DOUBLE; n->order = PW_ORDER_DOUBLE; break;
    case 'u': case 'z':
        e->type = PQ_BYTE_ARRAY;
        n->conv = PW_BYTES;
        n->order = PW_ORDER_BYTES;
        if (f[0] == 'u')
            e->logical.kind = PQ_LT_STRING;
        break;
    case 'w':
        e->type = PQ_FIXED_LEN_BYTE_ARRAY;
        e->type_length = (int32_t)strtol(f + 2, NULL, 10);
        n->conv = PW_FIXED;
        n->order = PW_ORDER_BYTES;
        if (e->type_length == 16 &&
            zb_arrow_metadata_get(ext, sizeof ext, s->metadata,
                           "ARROW:extension:name") &&
            strcmp(ext, "arrow.uuid") == 0)
            e->logical.kind = PQ_LT_UUID;
        if (e->type_length <= 0)
            goto unsupported;
        break;
    case 'd': {
        int p = 0, sc = 0, bits = 128;
        if (sscanf(f, "d:%d,%d,%d", &p, &sc, &bits) < 2 || bits != 128 ||
            p < 1 || p > 38 || sc < 0 || sc > p)
            goto unsupported;
        e->logical.kind = PQ_LT_DECIMAL;
        e->logical.precision = p;
        e->logical.scale = sc;
        n->order = PW_ORDER_I64;
        if (p <= 9) {
            e->type = PQ_INT32;
            n->conv = PW_DEC_TO_I32;
            n->order = PW_ORDER_I32;
        } else if (p <= 18) {
            e->type = PQ_INT64;
            n->conv = PW_DEC_TO_I64;
        } else {
            e->type = PQ_FIXED_LEN_BYTE_ARRAY;
            e->type_length = decimal_bytes(p);
            n->conv = PW_DEC_TO_FIXED;
            n->order = PW_ORDER_SIGNED_BE;
        }
        break;
    }
    case 't':
        if (f[1] == 'd' && f[2] == 'D') {
            e->type = PQ_INT32;
            n->conv = PW_I32;
            n->order = PW_ORDER_I32;
            e->logical.kind = PQ_LT_DATE;
        } else if (f[1] == 't' && (f[2] == 'm' || f[2] == 'u' || f[2] == 'n')) {
            e->type = f[2] == 'm' ? PQ_INT32 : PQ_INT64;
            n->conv = f[2] == 'm' ? PW_I32 : PW_I64;
            n->order = f[2] == 'm' ? PW_ORDER_I32 : PW_ORDER_I64;
            e->logical.kind = PQ_LT_TIME;
            e->logical.unit = f[2] == 'm' ? PQ_UNIT_MILLIS
                              : f[2] == 'u' ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
        } else if (f[1] == 's' && (f[2] == 'm' || f[2] == 'u' ||
                                   f[2] == 'n') && f[3] == ':') {
            e->type = PQ_INT64;
            n->conv = PW_I64;
            n->order = PW_ORDER_I64;
            e->logical.kind = PQ_LT_TIMESTAMP;
            e->logical.unit = f[2] == 'm' ? PQ_UNIT_MILLIS
                              : f[2] == 'u' ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
            e->logical.is_adjusted_to_utc = f[4] != '\0';
        } else {
            goto unsupported;
        }
        break;
    default:
        goto unsupported;
    }
    n->type = e->type;
    n->type_length = e->type_length;
    set_converted_type(e);
    return ZB_OK;
unsupported:
    return zb_fail(b->ctx, ZB_EUNSUPPORTED,
                   "column %s: Arrow type '%s' is not written to Parquet "
                   "by this writer", s->name ? s->name : "", f);
}

static int build_node(pw_node **out, builder *b, const struct ArrowSchema *s,
                      int depth, int16_t def, int16_t rep, int force_rep,
                      const char *name);

static int add_leaf(builder *b, pw_node *n)
{
    if (grow(b, (void **)&b->leaves, &b->cap_leaves, b->n_leaves,
             sizeof *b->leaves) < 0)
        return ZB_ENOMEM;
    n->leaf_index = (int)b->n_leaves;
    b->leaves[b->n_leaves++] = n;
    return ZB_OK;
}

static int children(builder *b, pw_node *n, const struct ArrowSchema *s,
                    int depth, int16_t def, int16_t rep)
{
    int64_t i;
    int rc;

    n->n_children = (size_t)s->n_children;
    n->children = zb_arena_calloc(b->arena, n->n_children + 1,
                                  sizeof *n->children);
    if (n->children == NULL)
        return zb_fail_oom(b->ctx);
    for (i = 0; i < s->n_children; i++)
        if ((rc = build_node(&n->children[i], b, s->children[i], depth + 1,
                             def, rep, PQ_OPTIONAL, NULL)) < 0)
            return rc;
    return ZB_OK;
}

static int build_node(pw_node **out, builder *b, const struct ArrowSchema *s,
                      int depth, int16_t def, int16_t rep, int force_rep,
                      const char *name)
{
    int nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
    int repetition = force_rep == PQ_REQUIRED || !nullable ? PQ_REQUIRED
                                                           : PQ_OPTIONAL;
    pq_schema_element *e;
    pw_node *n;
    int rc;

    if (depth > MAX_DEPTH)
        return zb_fail(b->ctx, ZB_EUNSUPPORTED,
                       "schema nested deeper than %d levels", MAX_DEPTH);
    if ((n = zb_arena_calloc(b->arena, 1, sizeof *n)) == NULL)
        return zb_fail_oom(b->ctx);
    n->name = name ? name : s->name ? s->name : "";
    n->nullable = repetition == PQ_OPTIONAL;
    n->leaf_index = -1;
    def = (int16_t)(def + n->nullable);
    *out = n;
    if (s->format[0] == '+' && s->format[1] == 's') {
        if ((e = new_element(b, n->name, repetition,
                             (int)s->n_children)) == NULL)
            return zb_fail_oom(b->ctx);
        set_field_id(e, s);
        n->kind = PW_STRUCT;
        if (s->n_children < 1)
            return zb_fail(b->ctx, ZB_EUNSUPPORTED, "column %s: a struct "
                           "without fields cannot be written", n->name);
        return children(b, n, s, depth, def, rep);
    }
    if (s->format[0] == '+' && (s->format[1] == 'l' || s->format[1] == 'm') &&
        s->format[2] == '\0') {
        int is_map = s->format[1] == 'm';
        pq_schema_element *r;
        if ((e = new_element(b, n->name, repetition, 1)) == NULL)
            return zb_fail_oom(b->ctx);
        set_field_id(e, s);
        e->has_converted_type = 1;
        e->converted_type = is_map ? PQ_CT_MAP : PQ_CT_LIST;
        e->logical.kind = is_map ? PQ_LT_MAP : PQ_LT_LIST;
        n->kind = is_map ? PW_MAP : PW_LIST;
        n->rep_level = (int16_t)(rep + 1);
        n->n_children = 1;
        n->children = zb_arena_calloc(b->arena, 1, sizeof *n->children);
        if (n->children == NULL || s->n_children != 1)
            return n->children ? zb_fail(b->ctx, ZB_EINVAL, "column %s: "
                                         "malformed list", n->name)
                               : zb_fail_oom(b->ctx);
        if (is_map) {
            const struct ArrowSchema *kv = s->children[0];
            pw_node *entries;
            if (kv->n_children != 2)
                return zb_fail(b->ctx, ZB_EINVAL, "column %s: malformed map",
                               n->name);
            if ((r = new_element(b, "key_value", PQ_REPEATED, 2)) == NULL ||
                (entries = zb_arena_calloc(b->arena, 1, sizeof *entries)) ==
                    NULL ||
                (entries->children = zb_arena_calloc(b->arena, 2,
                                                     sizeof(pw_node *))) ==
                    NULL)
                return zb_fail_oom(b->ctx);
            entries->kind = PW_STRUCT;
            entries->name = "key_value";
            entries->n_children = 2;
            entries->leaf_index = -1;
            n->children[0] = entries;
            if ((rc = build_node(&entries->children[0], b, kv->children[0],
                                 depth + 2, (int16_t)(def + 1), n->rep_level,
                                 PQ_REQUIRED, "key")) < 0)
                return rc;
            return build_node(&entries->children[1], b, kv->children[1],
                              depth + 2, (int16_t)(def + 1), n->rep_level,
                              PQ_OPTIONAL, "value");
        }
        if ((r = new_element(b, "list", PQ_REPEATED, 1)) == NULL)
            return zb_fail_oom(b->ctx);
        return build_node(&n->children[0], b, s->children[0], depth + 1,
                          (int16_t)(def + 1), n->rep_level, PQ_OPTIONAL,
                          "element");
    }
    if ((e = new_element(b, n->name, repetition, 0)) == NULL)
        return zb_fail_oom(b->ctx);
    set_field_id(e, s);
    if ((rc = primitive(b, n, e, s)) < 0)
        return rc;
    n->max_def = def;
    n->max_rep = rep;
    return add_leaf(b, n);
}

int pw_schema_build(pw_schema *out, zb_arena *arena, zb_ctx *ctx,
                    const struct ArrowSchema *schema)
{
    builder b;
    pq_schema_element *root;
    pw_node *n;
    int64_t i;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    b.arena = arena;
    b.ctx = ctx;
    if (strcmp(schema->format, "+s") != 0)
        return zb_fail(ctx, ZB_EINVAL, "a Parquet file's schema must be a "
                       "struct, not '%s'", schema->format);
    if ((root = new_element(&b, "schema", PQ_REQUIRED,
                            (int)schema->n_children)) == NULL ||
        (n = zb_arena_calloc(arena, 1, sizeof *n)) == NULL)
        return zb_fail_oom(ctx);
    root->has_repetition = 0;
    n->kind = PW_STRUCT;
    n->name = "";
    n->leaf_index = -1;
    n->n_children = (size_t)schema->n_children;
    if ((n->children = zb_arena_calloc(arena, n->n_children + 1,
                                       sizeof *n->children)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < schema->n_children; i++)
        if ((rc = build_node(&n->children[i], &b, schema->children[i], 1, 0,
                             0, PQ_OPTIONAL, NULL)) < 0)
            return rc;
    out->root = n;
    out->leaves = b.leaves;
    out->n_leaves = b.n_leaves;
    out->elements = b.el;
    out->n_elements = b.n_el;
    return ZB_OK;
}

/*
 * format/parquet/read/pq_schema.c - the Arrow-shaped schema tree of a Parquet
 * file (see pq_schema.h).
 *
 * The flattened schema (depth first, num_children per group) is walked
 * once. Each element adds to the definition level when OPTIONAL or
 * REPEATED and to the repetition level when REPEATED. The shapes follow
 * LogicalTypes.md, including its backward-compatibility rules:
 *   - a group annotated LIST holds one repeated field; that field is the
 *     element itself when it is primitive, has several children, or is
 *     named "array" or "<list>_tuple" (legacy two-level lists); otherwise
 *     its single child is the element (the standard three-level list);
 *   - a group annotated MAP (or MAP_KEY_VALUE) holds one repeated group of
 *     a key and an optional value;
 *   - a repeated field outside those is a required list of itself.
 */
#define ZB_MODULE "parquet"

#include <stdio.h>
#include <string.h>

#include "format/parquet/read/pq_schema.h"
#include "util/alloc.h"

#define MAX_DEPTH 64

typedef struct builder {
    zb_arena *arena;
    zb_ctx *ctx;
    const pq_file_meta *meta;
    size_t next;             /* next element index */
    pq_node **leaves;
    size_t n_leaves, cap_leaves;
} builder;

pq_logical pq_schema_element_logical(const pq_schema_element *e)
{
    static const int widths[] = { 8, 16, 32, 64 };
    pq_logical l;

    if (e->logical.kind != PQ_LT_NONE || !e->has_converted_type)
        return e->logical;
    memset(&l, 0, sizeof l);
    switch (e->converted_type) {
    case PQ_CT_UTF8: l.kind = PQ_LT_STRING; break;
    case PQ_CT_ENUM: l.kind = PQ_LT_ENUM; break;
    case PQ_CT_JSON: l.kind = PQ_LT_JSON; break;
    case PQ_CT_BSON: l.kind = PQ_LT_BSON; break;
    case PQ_CT_DATE: l.kind = PQ_LT_DATE; break;
    case PQ_CT_DECIMAL:
        l.kind = PQ_LT_DECIMAL;
        l.scale = e->has_scale ? e->scale : 0;
        l.precision = e->has_precision ? e->precision : 0;
        break;
    case PQ_CT_TIME_MILLIS:
    case PQ_CT_TIME_MICROS:
        l.kind = PQ_LT_TIME;
        l.unit = e->converted_type == PQ_CT_TIME_MILLIS ? PQ_UNIT_MILLIS
                                                        : PQ_UNIT_MICROS;
        l.is_adjusted_to_utc = 1;
        break;
    case PQ_CT_TIMESTAMP_MILLIS:
    case PQ_CT_TIMESTAMP_MICROS:
        l.kind = PQ_LT_TIMESTAMP;
        l.unit = e->converted_type == PQ_CT_TIMESTAMP_MILLIS
                     ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
        l.is_adjusted_to_utc = 1;
        break;
    case PQ_CT_UINT_8: case PQ_CT_UINT_16: case PQ_CT_UINT_32:
    case PQ_CT_UINT_64:
        l.kind = PQ_LT_INTEGER;
        l.bit_width = widths[e->converted_type - PQ_CT_UINT_8];
        l.is_signed = 0;
        break;
    case PQ_CT_INT_8: case PQ_CT_INT_16: case PQ_CT_INT_32:
    case PQ_CT_INT_64:
        l.kind = PQ_LT_INTEGER;
        l.bit_width = widths[e->converted_type - PQ_CT_INT_8];
        l.is_signed = 1;
        break;
    default:
        break;
    }
    return l;
}

static pq_node *new_node(builder *b, pq_node_kind kind, const char *name,
                         const pq_schema_element *e, pq_node *parent)
{
    pq_node *n = zb_arena_calloc(b->arena, 1, sizeof *n);

    if (n == NULL)
        return NULL;
    n->kind = kind;
    n->name = name;
    n->elem = e;
    n->parent = parent;
    n->leaf_index = -1;
    return n;
}

static int is_list(const pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_LIST ||
           (e->has_converted_type && e->converted_type == PQ_CT_LIST);
}

static int is_map(const pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_MAP ||
           (e->has_converted_type && (e->converted_type == PQ_CT_MAP ||
                                      e->converted_type == PQ_CT_MAP_KEY_VALUE));
}

static int repetition(const pq_schema_element *e)
{
    return e->has_repetition ? (int)e->repetition : PQ_REQUIRED;
}

/* Sets conv, value_width and format of a leaf from its annotations. */
/* Long: one switch over the physical types, each case choosing among the
 * logical and converted annotations that LogicalTypes.md allows on it. */
static int choose_conversion(builder *b, pq_node *n)
{
    const pq_schema_element *e = n->elem;
    const pq_logical *lt = &e->logical;
    int ct = e->has_converted_type ? (int)e->converted_type : -1;
    int is_decimal = lt->kind == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL;
    int32_t precision = lt->kind == PQ_LT_DECIMAL ? lt->precision : e->precision;
    int32_t scale = lt->kind == PQ_LT_DECIMAL ? lt->scale : e->scale;
    const char *f = NULL;

    switch (e->type) {
    case PQ_BOOLEAN:
        n->conv = PQ_CONV_BOOL;
        f = "b";
        break;
    case PQ_INT32:
        n->conv = PQ_CONV_I32;
        n->value_width = 4;
        f = "i";
        if (is_decimal) {
            n->conv = PQ_CONV_DEC_I32;
        } else if (lt->kind == PQ_LT_DATE || ct == PQ_CT_DATE) {
            f = "tdD";
        } else if ((lt->kind == PQ_LT_TIME && lt->unit == PQ_UNIT_MILLIS) ||
                   ct == PQ_CT_TIME_MILLIS) {
            f = "ttm";
        } else if (lt->kind == PQ_LT_INTEGER || (ct >= PQ_CT_UINT_8 &&
                                                 ct <= PQ_CT_INT_32)) {
            int bits = lt->kind == PQ_LT_INTEGER ? lt->bit_width
                       : ct == PQ_CT_UINT_8 || ct == PQ_CT_INT_8 ? 8
                       : ct == PQ_CT_UINT_16 || ct == PQ_CT_INT_16 ? 16 : 32;
            int is_signed = lt->kind == PQ_LT_INTEGER
                                ? lt->is_signed : ct >= PQ_CT_INT_8;
            if (bits == 8) {
                n->conv = PQ_CONV_I32_TO_I8, n->value_width = 1;
                f = is_signed ? "c" : "C";
            } else if (bits == 16) {
                n->conv = PQ_CONV_I32_TO_I16, n->value_width = 2;
                f = is_signed ? "s" : "S";
            } else {
                f = is_signed ? "i" : "I";
            }
        }
        break;
    case PQ_INT64:
        n->conv = PQ_CONV_I64;
        n->value_width = 8;
        f = "l";
        if (is_decimal) {
            n->conv = PQ_CONV_DEC_I64;
        } else if (lt->kind == PQ_LT_TIMESTAMP || ct == PQ_CT_TIMESTAMP_MILLIS ||
                   ct == PQ_CT_TIMESTAMP_MICROS) {
            pq_time_unit u = lt->kind == PQ_LT_TIMESTAMP ? lt->unit
                             : ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_UNIT_MILLIS
                                                            : PQ_UNIT_MICROS;
            int utc = lt->kind == PQ_LT_TIMESTAMP ? lt->is_adjusted_to_utc : 1;
            f = NULL;
            snprintf(n->format, sizeof n->format, "ts%c:%s",
                     u == PQ_UNIT_MILLIS ? 'm' : u == PQ_UNIT_NANOS ? 'n' : 'u',
                     utc ? "UTC" : "");
        } else if (lt->kind == PQ_LT_TIME || ct == PQ_CT_TIME_MICROS) {
            f = lt->kind == PQ_LT_TIME && lt->unit == PQ_UNIT_NANOS ? "ttn"
                                                                   : "ttu";
        } else if ((lt->kind == PQ_LT_INTEGER && !lt->is_signed) ||
                   ct == PQ_CT_UINT_64) {
            f = "L";
        }
        break;
    case PQ_INT96:
        n->conv = PQ_CONV_I96_TO_US;
        n->value_width = 8;
        f = "tsu:";
        break;
    case PQ_FLOAT:
        n->conv = PQ_CONV_FLOAT;
        n->value_width = 4;
        f = "f";
        break;
    case PQ_DOUBLE:
        n->conv = PQ_CONV_DOUBLE;
        n->value_width = 8;
        f = "g";
        break;
    case PQ_BYTE_ARRAY:
        n->conv = is_decimal ? PQ_CONV_DEC_BE : PQ_CONV_BYTES;
        f = lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM ||
                    lt->kind == PQ_LT_JSON || ct == PQ_CT_UTF8 ||
                    ct == PQ_CT_ENUM || ct == PQ_CT_JSON
                ? "u" : "z";
        break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (e->type_length <= 0)
            return zb_fail(b->ctx, ZB_ECORRUPT,
                           "column %s: fixed_len_byte_array of length %d",
                           n->name, (int)e->type_length);
        if (is_decimal) {
            n->conv = PQ_CONV_DEC_BE;
        } else if (ct == PQ_CT_INTERVAL && e->type_length == 12) {
            /* months, days, milliseconds: Arrow's month_day_nano. */
            n->conv = PQ_CONV_INTERVAL;
            n->value_width = 16;
            f = "tin";
        } else {
            n->conv = PQ_CONV_FIXED;
            n->value_width = (size_t)e->type_length;
            n->is_uuid = lt->kind == PQ_LT_UUID && e->type_length == 16;
            snprintf(n->format, sizeof n->format, "w:%d", (int)e->type_length);
        }
        break;
    default:
        return zb_fail(b->ctx, ZB_ECORRUPT, "column %s: unknown type %d",
                       n->name, (int)e->type);
    }
    if (is_decimal) {
        if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
            return zb_fail(b->ctx, ZB_EUNSUPPORTED,
                           "column %s: decimal(%d,%d) is outside what this "
                           "reader converts (precision 1..38)", n->name,
                           (int)precision, (int)scale);
        n->value_width = 16;
        snprintf(n->format, sizeof n->format, "d:%d,%d", (int)precision,
                 (int)scale);
    } else if (f) {
        snprintf(n->format, sizeof n->format, "%s", f);
    }
    return ZB_OK;
}

static int add_leaf(builder *b, pq_node *n)
{
    if (b->n_leaves == b->cap_leaves) {
        size_t cap = b->cap_leaves ? b->cap_leaves * 2 : 16;
        pq_node **p = zb_arena_alloc(b->arena, cap * sizeof *p);
        if (p == NULL)
            return zb_fail_oom(b->ctx);
        if (b->n_leaves)
            memcpy(p, b->leaves, b->n_leaves * sizeof *p);
        b->leaves = p;
        b->cap_leaves = cap;
    }
    n->leaf_index = (int)b->n_leaves;
    b->leaves[b->n_leaves++] = n;
    return ZB_OK;
}

static int build_node(pq_node **out, builder *b, pq_node *parent, int depth,
                      int16_t pdef, int16_t prep, int16_t reach,
                      int16_t srep, int rep_consumed);

/* Builds the children of group element e into n (a struct). */
static int build_children(builder *b, pq_node *n, const pq_schema_element *e,
                          int depth, int16_t def, int16_t rep, int16_t reach,
                          int16_t srep)
{
    int32_t i;
    int rc;

    if (e->num_children <= 0 ||
        (size_t)e->num_children > b->meta->n_schema - b->next)
        return zb_fail(b->ctx, ZB_ECORRUPT,
                       "schema element %s claims %d children", e->name,
                       (int)e->num_children);
    n->children = zb_arena_calloc(b->arena, (size_t)e->num_children,
                                  sizeof *n->children);
    if (n->children == NULL)
        return zb_fail_oom(b->ctx);
    n->n_children = (size_t)e->num_children;
    n->first_leaf = (int)b->n_leaves;
    for (i = 0; i < e->num_children; i++)
        if ((rc = build_node(&n->children[i], b, n, depth + 1, def, rep,
                             reach, srep, 0)) < 0)
            return rc;
    return ZB_OK;
}

/* A LIST or MAP group e (already consumed) with its repeated child. */
static int build_list(pq_node *n, builder *b, const pq_schema_element *e,
                      int depth, int16_t def, int16_t rep)
{
    const pq_schema_element *r;
    pq_node *elem = NULL;
    int two_level, rc;
    char tuple[512];

    if (e->num_children != 1 || b->next >= b->meta->n_schema ||
        repetition(&b->meta->schema[b->next]) != PQ_REPEATED)
        return zb_fail(b->ctx, ZB_ECORRUPT,
                       "%s group %s must hold exactly one repeated field",
                       n->kind == PQ_NODE_MAP ? "MAP" : "LIST", e->name);
    r = &b->meta->schema[b->next];
    n->def_elem = (int16_t)(def + 1);
    n->rep_elem = (int16_t)(rep + 1);
    n->first_leaf = (int)b->n_leaves;
    snprintf(tuple, sizeof tuple, "%s_tuple", e->name);
    two_level = n->kind == PQ_NODE_MAP || r->has_type ||
                r->num_children > 1 || strcmp(r->name, "array") == 0 ||
                strcmp(r->name, tuple) == 0;
    if (two_level) {
        /* The repeated field is the element (or the map's entries). */
        rc = build_node(&elem, b, n, depth + 1, n->def_elem, n->rep_elem,
                        n->def_elem, n->rep_elem, 1);
    } else {
        b->next++;   /* the repeated group is only the list's wrapper */
        if (r->num_children != 1)
            return zb_fail(b->ctx, ZB_ECORRUPT, "list %s: malformed", e->name);
        rc = build_node(&elem, b, n, depth + 1, n->def_elem, n->rep_elem,
                        n->def_elem, n->rep_elem, 0);
    }
    if (rc < 0)
        return rc;
    if (n->kind == PQ_NODE_MAP &&
        (elem->kind != PQ_NODE_STRUCT || elem->n_children != 2 ||
         elem->children[0]->nullable))
        n->kind = PQ_NODE_LIST;   /* not a well-formed map: a list of entries */
    n->children = zb_arena_calloc(b->arena, 1, sizeof *n->children);
    if (n->children == NULL)
        return zb_fail_oom(b->ctx);
    n->children[0] = elem;
    n->n_children = 1;
    return ZB_OK;
}

static int build_node(pq_node **out, builder *b, pq_node *parent, int depth,
                      int16_t pdef, int16_t prep, int16_t reach,
                      int16_t srep, int rep_consumed)
{
    const pq_schema_element *e;
    int rep;
    int16_t def;
    pq_node *n;
    int rc;

    if (depth > MAX_DEPTH)
        return zb_fail(b->ctx, ZB_ECORRUPT,
                       "schema nested deeper than %d levels", MAX_DEPTH);
    if (b->next >= b->meta->n_schema)
        return zb_fail(b->ctx, ZB_ECORRUPT, "schema ends inside a group");
    e = &b->meta->schema[b->next++];
    rep = rep_consumed ? PQ_REQUIRED : repetition(e);
    if (e->name == NULL)
        return zb_fail(b->ctx, ZB_ECORRUPT, "schema element without a name");

    if (rep == PQ_REPEATED) {
        /* A bare repeated field: a required list of required elements. */
        pq_node *list = new_node(b, PQ_NODE_LIST, e->name, e, parent);
        pq_node *elem = NULL;
        if (list == NULL)
            return zb_fail_oom(b->ctx);
        list->reach_def = reach, list->slot_rep = srep;
        list->def_present = pdef;
        list->def_elem = (int16_t)(pdef + 1);
        list->rep_elem = (int16_t)(prep + 1);
        list->first_leaf = (int)b->n_leaves;
        b->next--;
        if ((rc = build_node(&elem, b, list, depth + 1, list->def_elem,
                             list->rep_elem, list->def_elem, list->rep_elem,
                             1)) < 0)
            return rc;
        list->children = zb_arena_calloc(b->arena, 1, sizeof *list->children);
        if (list->children == NULL)
            return zb_fail_oom(b->ctx);
        list->children[0] = elem;
        list->n_children = 1;
        *out = list;
        return ZB_OK;
    }
    def = (int16_t)(pdef + (rep == PQ_OPTIONAL ? 1 : 0));
    if (!e->has_type && e->num_children > 0) {
        pq_node_kind kind = is_map(e) ? PQ_NODE_MAP
                            : is_list(e) ? PQ_NODE_LIST : PQ_NODE_STRUCT;
        if ((n = new_node(b, kind, e->name, e, parent)) == NULL)
            return zb_fail_oom(b->ctx);
        n->nullable = rep == PQ_OPTIONAL;
        n->reach_def = reach, n->slot_rep = srep, n->def_present = def;
        rc = kind == PQ_NODE_STRUCT
                 ? build_children(b, n, e, depth, def, prep, reach, srep)
                 : build_list(n, b, e, depth, def, prep);
        if (rc < 0)
            return rc;
        *out = n;
        return ZB_OK;
    }
    if (!e->has_type)
        return zb_fail(b->ctx, ZB_ECORRUPT,
                       "schema element %s has neither a type nor children",
                       e->name);
    if ((n = new_node(b, PQ_NODE_PRIMITIVE, e->name, e, parent)) == NULL)
        return zb_fail_oom(b->ctx);
    n->nullable = rep == PQ_OPTIONAL;
    n->reach_def = reach, n->slot_rep = srep, n->def_present = def;
    n->max_def = def;
    n->max_rep = prep;
    if ((rc = choose_conversion(b, n)) < 0 || (rc = add_leaf(b, n)) < 0)
        return rc;
    n->first_leaf = n->leaf_index;
    *out = n;
    return ZB_OK;
}

int pq_schema_build(pq_schema *out, zb_arena *arena, zb_ctx *ctx,
                    const pq_file_meta *meta)
{
    builder b;
    pq_node *root;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    b.arena = arena, b.ctx = ctx, b.meta = meta;
    if (meta->n_schema < 1)
        return zb_fail(ctx, ZB_ECORRUPT, "empty schema");
    if ((root = new_node(&b, PQ_NODE_STRUCT, "", NULL, NULL)) == NULL)
        return zb_fail_oom(ctx);
    b.next = 1;
    if (meta->schema[0].num_children < 0)
        return zb_fail(ctx, ZB_ECORRUPT, "schema root has negative children");
    if (meta->schema[0].num_children > 0 &&
        (rc = build_children(&b, root, &meta->schema[0], 0, 0, 0, 0, 0)) < 0)
        return rc;
    if (b.next != meta->n_schema)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "schema has %zu elements but its groups hold %zu",
                       meta->n_schema, b.next);
    out->root = root;
    out->leaves = b.leaves;
    out->n_leaves = b.n_leaves;
    return ZB_OK;
}

void pq_schema_leaf_path(char *out, size_t size, const pq_node *leaf)
{
    const pq_node *chain[MAX_DEPTH + 2];
    size_t n = 0, len = 0;

    out[0] = '\0';
    for (; leaf && leaf->parent && n < MAX_DEPTH + 2; leaf = leaf->parent)
        chain[n++] = leaf;
    while (n-- > 0 && len + 1 < size) {
        int w = snprintf(out + len, size - len, "%s%s", len ? "." : "",
                         chain[n]->name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int export_node(struct ArrowSchema *out, const pq_node *n,
                       const char *name_override)
{
    const char *format = n->format;
    const char *name = name_override ? name_override : n->name;
    int64_t flags = n->nullable ? ARROW_FLAG_NULLABLE : 0;
    char *meta = NULL;
    size_t meta_len = 0, i;
    int rc;

    switch (n->kind) {
    case PQ_NODE_STRUCT: format = "+s"; break;
    case PQ_NODE_LIST: format = "+l"; break;
    case PQ_NODE_MAP: format = "+m"; break;
    default: break;
    }
    {
        /* The field id travels as Arrow does it, for writers downstream. */
        const char *kv[5] = { NULL, NULL, NULL, NULL, NULL };
        char id[16];
        size_t k = 0;
        if (n->elem && n->elem->has_field_id) {
            snprintf(id, sizeof id, "%d", (int)n->elem->field_id);
            kv[k++] = "PARQUET:field_id";
            kv[k++] = id;
        }
        if (n->kind == PQ_NODE_PRIMITIVE && n->is_uuid) {
            kv[k++] = "ARROW:extension:name";
            kv[k++] = "arrow.uuid";
        }
        if ((rc = zb_arrow_metadata(&meta, &meta_len, kv)) < 0)
            return rc;
    }
    rc = zb_arrow_schema_init(out, format, name, meta, meta_len, flags,
                              (int64_t)n->n_children);
    zb_free(meta);
    if (rc < 0)
        return rc;
    for (i = 0; i < n->n_children; i++) {
        const char *child_name = NULL;
        if (n->kind == PQ_NODE_MAP)
            child_name = "entries";
        if ((rc = export_node(out->children[i], n->children[i],
                              child_name)) < 0) {
            zb_arrow_schema_release(out);
            return rc;
        }
    }
    return ZB_OK;
}

int pq_schema_export(struct ArrowSchema *out, const pq_node *node)
{
    return export_node(out, node, NULL);
}

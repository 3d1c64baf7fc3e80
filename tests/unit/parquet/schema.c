/*
 * The schema tree: list and map shapes of LogicalTypes.md (standard and
 * the backward-compatible ones), the levels computed for each node, the
 * Arrow formats chosen, and malformed schemas.
 */
#include <stdio.h>

#include "format/parquet/read/pq_schema.h"
#include "zbtest.h"

#define MAX_ELEMS 128

typedef struct sb {
    pq_schema_element e[MAX_ELEMS];
    size_t n;
} sb;

static pq_schema_element *add(sb *s, const char *name, int rep, int children)
{
    pq_schema_element *e = &s->e[s->n++];

    memset(e, 0, sizeof *e);
    e->name = name;
    e->has_repetition = rep >= 0;
    e->repetition = rep >= 0 ? (pq_repetition)rep : PQ_REQUIRED;
    e->num_children = children;
    return e;
}

static pq_schema_element *leaf(sb *s, const char *name, int rep, pq_type t)
{
    pq_schema_element *e = add(s, name, rep, 0);

    e->has_type = 1;
    e->type = t;
    return e;
}

static int build(pq_schema *out, zb_arena **arena, zb_ctx *ctx, sb *s)
{
    pq_file_meta meta;

    memset(&meta, 0, sizeof meta);
    meta.schema = s->e;
    meta.n_schema = s->n;
    zb_ctx_init(ctx);
    ZBT_EQ_INT(zb_arena_new(arena, 1 << 20), ZB_OK);
    return pq_schema_build(out, *arena, ctx, &meta);
}

static void test_parquet_schema__standard_three_level_list(void)
{
    sb s = { .n = 0 };
    pq_schema sc;
    zb_arena *a = NULL;
    zb_ctx ctx;
    const pq_node *l, *el;

    add(&s, "schema", -1, 1);
    add(&s, "tags", PQ_OPTIONAL, 1)->converted_type = PQ_CT_LIST;
    s.e[1].has_converted_type = 1;
    add(&s, "list", PQ_REPEATED, 1);
    leaf(&s, "element", PQ_OPTIONAL, PQ_BYTE_ARRAY)->logical.kind =
        PQ_LT_STRING;
    ZBT_OK_CTX(build(&sc, &a, &ctx, &s), &ctx);
    l = sc.root->children[0];
    ZBT_EQ_INT(l->kind, PQ_NODE_LIST);
    ZBT_EQ_INT(l->nullable, 1);
    ZBT_EQ_INT(l->def_present, 1);
    ZBT_EQ_INT(l->def_elem, 2);
    ZBT_EQ_INT(l->rep_elem, 1);
    el = l->children[0];
    ZBT_EQ_STR(el->name, "element");
    ZBT_EQ_INT(el->max_def, 3);
    ZBT_EQ_INT(el->max_rep, 1);
    ZBT_EQ_INT(el->reach_def, 2);
    ZBT_EQ_STR(el->format, "u");
    zb_arena_free(a);
}

static void test_parquet_schema__legacy_two_level_lists(void)
{
    sb s = { .n = 0 };
    pq_schema sc;
    zb_arena *a = NULL;
    zb_ctx ctx;
    const pq_node *n;

    add(&s, "schema", -1, 3);
    /* optional group a (LIST) { repeated int32 array; } */
    add(&s, "a", PQ_OPTIONAL, 1)->has_converted_type = 1;
    s.e[1].converted_type = PQ_CT_LIST;
    leaf(&s, "array", PQ_REPEATED, PQ_INT32);
    /* optional group b (LIST) { repeated group array { x; y } } */
    add(&s, "b", PQ_OPTIONAL, 1)->has_converted_type = 1;
    s.e[3].converted_type = PQ_CT_LIST;
    add(&s, "array", PQ_REPEATED, 2);
    leaf(&s, "x", PQ_REQUIRED, PQ_INT64);
    leaf(&s, "y", PQ_OPTIONAL, PQ_DOUBLE);
    /* repeated int32 c: a required list of required values */
    leaf(&s, "c", PQ_REPEATED, PQ_INT32);
    ZBT_OK_CTX(build(&sc, &a, &ctx, &s), &ctx);
    ZBT_EQ_U64(sc.n_leaves, 4);
    n = sc.root->children[0];
    ZBT_EQ_INT(n->kind, PQ_NODE_LIST);
    ZBT_EQ_INT(n->children[0]->kind, PQ_NODE_PRIMITIVE);
    ZBT_EQ_INT(n->children[0]->nullable, 0);
    ZBT_EQ_INT(n->children[0]->max_def, 2);
    ZBT_EQ_INT(n->children[0]->max_rep, 1);
    n = sc.root->children[1];
    ZBT_EQ_INT(n->kind, PQ_NODE_LIST);
    ZBT_EQ_INT(n->children[0]->kind, PQ_NODE_STRUCT);
    ZBT_EQ_U64(n->children[0]->n_children, 2);
    ZBT_EQ_INT(n->children[0]->children[1]->max_def, 3);
    n = sc.root->children[2];
    ZBT_EQ_INT(n->kind, PQ_NODE_LIST);
    ZBT_EQ_INT(n->nullable, 0);
    ZBT_EQ_INT(n->children[0]->max_def, 1);
    ZBT_EQ_INT(n->children[0]->max_rep, 1);
    zb_arena_free(a);
}

static void test_parquet_schema__map_and_types(void)
{
    sb s = { .n = 0 };
    pq_schema sc;
    zb_arena *a = NULL;
    zb_ctx ctx;
    pq_schema_element *e;
    const pq_node *m;

    add(&s, "schema", -1, 4);
    add(&s, "m", PQ_OPTIONAL, 1)->has_converted_type = 1;
    s.e[1].converted_type = PQ_CT_MAP;
    add(&s, "key_value", PQ_REPEATED, 2);
    leaf(&s, "key", PQ_REQUIRED, PQ_BYTE_ARRAY)->logical.kind = PQ_LT_STRING;
    leaf(&s, "value", PQ_OPTIONAL, PQ_INT32);
    e = leaf(&s, "ts", PQ_OPTIONAL, PQ_INT64);
    e->logical.kind = PQ_LT_TIMESTAMP;
    e->logical.unit = PQ_UNIT_MICROS;
    e->logical.is_adjusted_to_utc = 1;
    e = leaf(&s, "dec", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
    e->type_length = 9;
    e->logical.kind = PQ_LT_DECIMAL;
    e->logical.precision = 20;
    e->logical.scale = 4;
    e = leaf(&s, "u8", PQ_OPTIONAL, PQ_INT32);
    e->logical.kind = PQ_LT_INTEGER;
    e->logical.bit_width = 8;
    ZBT_OK_CTX(build(&sc, &a, &ctx, &s), &ctx);
    m = sc.root->children[0];
    ZBT_EQ_INT(m->kind, PQ_NODE_MAP);
    ZBT_EQ_INT(m->children[0]->kind, PQ_NODE_STRUCT);
    ZBT_EQ_INT(m->children[0]->children[0]->nullable, 0);
    ZBT_EQ_STR(sc.root->children[1]->format, "tsu:UTC");
    ZBT_EQ_STR(sc.root->children[2]->format, "d:20,4");
    ZBT_EQ_INT(sc.root->children[2]->conv, PQ_CONV_DEC_BE);
    ZBT_EQ_STR(sc.root->children[3]->format, "C");
    zb_arena_free(a);
}

static void test_parquet_schema__malformed_schemas_are_refused(void)
{
    sb s = { .n = 0 };
    pq_schema sc;
    zb_arena *a = NULL;
    zb_ctx ctx;
    int i;

    /* 100 nested groups. */
    add(&s, "schema", -1, 1);
    for (i = 0; i < 100; i++)
        add(&s, "g", PQ_OPTIONAL, 1);
    leaf(&s, "x", PQ_OPTIONAL, PQ_INT32);
    ZBT_RC(build(&sc, &a, &ctx, &s), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "deeper than");
    zb_arena_free(a);

    /* A group claiming more children than follow. */
    s.n = 0;
    add(&s, "schema", -1, 1);
    add(&s, "g", PQ_OPTIONAL, 5);
    leaf(&s, "x", PQ_OPTIONAL, PQ_INT32);
    ZBT_RC(build(&sc, &a, &ctx, &s), ZB_ECORRUPT);
    zb_arena_free(a);

    /* A LIST group without its repeated field. */
    s.n = 0;
    add(&s, "schema", -1, 1);
    add(&s, "l", PQ_OPTIONAL, 1)->has_converted_type = 1;
    s.e[1].converted_type = PQ_CT_LIST;
    leaf(&s, "x", PQ_OPTIONAL, PQ_INT32);
    ZBT_RC(build(&sc, &a, &ctx, &s), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "repeated");
    zb_arena_free(a);

    /* A decimal too wide for 128 bits is refused, not misread. */
    s.n = 0;
    add(&s, "schema", -1, 1);
    leaf(&s, "d", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY)->type_length = 32;
    s.e[1].logical.kind = PQ_LT_DECIMAL;
    s.e[1].logical.precision = 60;
    ZBT_RC(build(&sc, &a, &ctx, &s), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "decimal(60");
    zb_arena_free(a);
}

static pq_logical converted(pq_converted ct)
{
    pq_schema_element e;

    memset(&e, 0, sizeof e);
    e.has_type = 1;
    e.type = PQ_INT32;
    e.has_converted_type = 1;
    e.converted_type = ct;
    e.has_scale = e.has_precision = 1;
    e.scale = 2;
    e.precision = 9;
    return pq_schema_element_logical(&e);
}

/* Legacy ConvertedTypes read as the LogicalTypes they stand for; a
 * LogicalType, when set, wins. */
static void test_parquet_schema__converted_type_logical(void)
{
    static const struct {
        pq_converted ct;
        int bits, is_signed;
    } ints[] = {
        { PQ_CT_INT_8, 8, 1 }, { PQ_CT_INT_16, 16, 1 },
        { PQ_CT_INT_32, 32, 1 }, { PQ_CT_INT_64, 64, 1 },
        { PQ_CT_UINT_8, 8, 0 }, { PQ_CT_UINT_16, 16, 0 },
        { PQ_CT_UINT_32, 32, 0 }, { PQ_CT_UINT_64, 64, 0 }
    };
    pq_schema_element e;
    pq_logical l;
    size_t i;

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        l = converted(ints[i].ct);
        ZBT_EQ_INT(l.kind, PQ_LT_INTEGER);
        ZBT_EQ_INT(l.bit_width, ints[i].bits);
        ZBT_EQ_INT(l.is_signed, ints[i].is_signed);
    }
    ZBT_EQ_INT(converted(PQ_CT_UTF8).kind, PQ_LT_STRING);
    ZBT_EQ_INT(converted(PQ_CT_ENUM).kind, PQ_LT_ENUM);
    ZBT_EQ_INT(converted(PQ_CT_JSON).kind, PQ_LT_JSON);
    ZBT_EQ_INT(converted(PQ_CT_BSON).kind, PQ_LT_BSON);
    ZBT_EQ_INT(converted(PQ_CT_DATE).kind, PQ_LT_DATE);
    ZBT_EQ_INT(converted(PQ_CT_INTERVAL).kind, PQ_LT_NONE);
    l = converted(PQ_CT_DECIMAL);
    ZBT_EQ_INT(l.kind, PQ_LT_DECIMAL);
    ZBT_EQ_INT(l.scale, 2);
    ZBT_EQ_INT(l.precision, 9);
    l = converted(PQ_CT_TIME_MILLIS);
    ZBT_EQ_INT(l.kind, PQ_LT_TIME);
    ZBT_EQ_INT(l.unit, PQ_UNIT_MILLIS);
    ZBT_EQ_INT(l.is_adjusted_to_utc, 1);
    l = converted(PQ_CT_TIME_MICROS);
    ZBT_EQ_INT(l.unit, PQ_UNIT_MICROS);
    l = converted(PQ_CT_TIMESTAMP_MILLIS);
    ZBT_EQ_INT(l.kind, PQ_LT_TIMESTAMP);
    ZBT_EQ_INT(l.unit, PQ_UNIT_MILLIS);
    ZBT_EQ_INT(l.is_adjusted_to_utc, 1);
    l = converted(PQ_CT_TIMESTAMP_MICROS);
    ZBT_EQ_INT(l.unit, PQ_UNIT_MICROS);
    ZBT_EQ_INT(l.is_adjusted_to_utc, 1);

    memset(&e, 0, sizeof e);
    e.has_converted_type = 1;
    e.converted_type = PQ_CT_TIMESTAMP_MILLIS;
    e.logical.kind = PQ_LT_TIMESTAMP;
    e.logical.unit = PQ_UNIT_NANOS;
    l = pq_schema_element_logical(&e);
    ZBT_EQ_INT(l.unit, PQ_UNIT_NANOS);
    ZBT_EQ_INT(l.is_adjusted_to_utc, 0);
    e.has_converted_type = 0;
    e.logical.kind = PQ_LT_NONE;
    ZBT_EQ_INT(pq_schema_element_logical(&e).kind, PQ_LT_NONE);
}

const zbt_case test_parquet_schema[] = {
    ZBT_CASE(test_parquet_schema__standard_three_level_list),
    ZBT_CASE(test_parquet_schema__legacy_two_level_lists),
    ZBT_CASE(test_parquet_schema__map_and_types),
    ZBT_CASE(test_parquet_schema__malformed_schemas_are_refused),
    ZBT_CASE(test_parquet_schema__converted_type_logical),
    ZBT_END
};

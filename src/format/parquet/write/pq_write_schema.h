/*
 * format/parquet/write/pq_write_schema.h - an Arrow schema as the Parquet
 * schema a writer declares, with the levels and value conversion of each
 * leaf column.
 */
#ifndef ZB_FORMAT_PARQUET_PQ_WRITE_SCHEMA_H
#define ZB_FORMAT_PARQUET_PQ_WRITE_SCHEMA_H

#include "exec/arrow/arrow.h"
#include "format/parquet/thrift/pq_meta.h"
#include "util/arena.h"

typedef enum pw_kind { PW_PRIM, PW_STRUCT, PW_LIST, PW_MAP } pw_kind;

/* How an Arrow value becomes a Parquet physical value. */
typedef enum pw_conv {
    PW_BOOL,
    PW_I8_TO_I32, PW_U8_TO_I32, PW_I16_TO_I32, PW_U16_TO_I32,
    PW_I32, PW_I64, PW_FLOAT, PW_DOUBLE,
    PW_BYTES,                    /* utf8 / binary with int32 offsets */
    PW_FIXED,                    /* w:N */
    PW_DEC_TO_I32, PW_DEC_TO_I64, PW_DEC_TO_FIXED
} pw_conv;

/* How statistics order the values (the type-defined order). */
typedef enum pw_order {
    PW_ORDER_BOOL, PW_ORDER_I32, PW_ORDER_U32, PW_ORDER_I64, PW_ORDER_U64,
    PW_ORDER_FLOAT, PW_ORDER_DOUBLE, PW_ORDER_BYTES, PW_ORDER_SIGNED_BE
} pw_order;

typedef struct pw_node {
    pw_kind kind;
    const char *name;
    int nullable;
    struct pw_node **children;
    size_t n_children;
    /* PW_PRIM */
    int leaf_index;
    int16_t max_def, max_rep;
    int16_t rep_level;           /* PW_LIST / PW_MAP: its repeated level */
    pq_type type;
    int32_t type_length;
    pw_conv conv;
    pw_order order;
} pw_node;

typedef struct pw_schema {
    pw_node *root;               /* struct of the top-level columns */
    pw_node **leaves;
    size_t n_leaves;
    pq_schema_element *elements; /* flattened, depth first */
    size_t n_elements;
} pw_schema;

/*
 * Builds the writer's schema from an Arrow struct schema, in arena.
 * Returns ZB_OK, ZB_EUNSUPPORTED naming a type Parquet or this writer
 * does not take (an interval, a large list), ZB_EINVAL for a schema that
 * is not a struct, or ZB_ENOMEM.
 */
int pw_schema_build(pw_schema *out, zb_arena *arena, zb_ctx *ctx,
                    const struct ArrowSchema *schema);

#endif

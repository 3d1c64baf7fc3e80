/*
 * format/parquet/read/pq_schema.h - a Parquet schema as the tree of Arrow
 * types it reads into, with the definition and repetition levels that
 * drive record assembly.
 *
 * Levels, for a triplet (d, r) of a leaf column (Dremel):
 *   reach_def  the node has a slot in this triplet only if d >= reach_def
 *   slot_rep   a slot is new if r <= slot_rep, else the triplet continues
 *              the current slot (a deeper list goes on)
 *   def_present  the node's value is non-null if d >= def_present
 *   def_elem, rep_elem (lists and maps): the list has a first element if
 *              d >= def_elem; a triplet with r == rep_elem adds an element
 */
#ifndef ZB_FORMAT_PARQUET_PQ_SCHEMA_H
#define ZB_FORMAT_PARQUET_PQ_SCHEMA_H

#include "exec/arrow/arrow.h"
#include "format/parquet/thrift/pq_meta.h"

typedef enum pq_node_kind {
    PQ_NODE_PRIMITIVE,
    PQ_NODE_STRUCT,
    PQ_NODE_LIST,
    PQ_NODE_MAP
} pq_node_kind;

/* How a leaf's physical values become Arrow values. */
typedef enum pq_conv {
    PQ_CONV_BOOL,        /* "b" bitmap */
    PQ_CONV_I32,         /* 4 bytes as they are (int32, uint32, date, time ms) */
    PQ_CONV_I32_TO_I8,   /* int8 / uint8 */
    PQ_CONV_I32_TO_I16,  /* int16 / uint16 */
    PQ_CONV_I64,         /* 8 bytes as they are */
    PQ_CONV_I96_TO_US,   /* legacy INT96 timestamp to int64 microseconds,
                            as Iceberg reads it (nanoseconds would not
                            reach past 1677..2262) */
    PQ_CONV_FLOAT,
    PQ_CONV_DOUBLE,
    PQ_CONV_BYTES,       /* variable: offsets + data ("u" or "z") */
    PQ_CONV_FIXED,       /* type_length bytes ("w:N") */
    PQ_CONV_DEC_I32,     /* decimal in int32 to 128-bit */
    PQ_CONV_DEC_I64,     /* decimal in int64 to 128-bit */
    PQ_CONV_DEC_BE,      /* decimal in big-endian bytes to 128-bit */
    PQ_CONV_INTERVAL     /* legacy INTERVAL (12 bytes) to month_day_nano */
} pq_conv;

typedef struct pq_node {
    pq_node_kind kind;
    const char *name;
    const pq_schema_element *elem;   /* NULL for the root */
    int nullable;
    int16_t reach_def, slot_rep, def_present;
    int16_t def_elem, rep_elem;      /* lists and maps */
    struct pq_node *parent;
    struct pq_node **children;
    size_t n_children;
    int first_leaf;                  /* leaf index of the first leaf below */
    /* PRIMITIVE */
    int leaf_index;
    int16_t max_def, max_rep;
    pq_conv conv;
    size_t value_width;              /* bytes per Arrow value; 0 for bytes/bool */
    char format[32];                 /* Arrow format string */
    int is_uuid;
} pq_node;

typedef struct pq_schema {
    pq_node *root;                   /* a non-nullable struct of the columns */
    pq_node **leaves;                /* in column-chunk order */
    size_t n_leaves;
} pq_schema;

/*
 * The logical annotation of e: its LogicalType, or else the one its
 * legacy ConvertedType stands for (LogicalTypes.md "Backward
 * compatibility": UTF8 is String, INT_8 is Int(8, signed), TIME_MILLIS
 * and TIMESTAMP_* are adjusted to UTC, ...). INTERVAL and the group
 * annotations (LIST, MAP) have none: kind PQ_LT_NONE.
 */
pq_logical pq_schema_element_logical(const pq_schema_element *e);

/*
 * Builds the tree from meta's flattened schema, in arena. Returns ZB_OK,
 * ZB_ECORRUPT (child counts that do not add up, a LIST or MAP group of
 * the wrong shape, a leaf without a type, nesting deeper than 64), or
 * ZB_EUNSUPPORTED (a type this reader does not convert), with a message
 * naming the column.
 */
int pq_schema_build(pq_schema *out, zb_arena *arena, zb_ctx *ctx,
                    const pq_file_meta *meta);

/* Exports node (normally a top-level column) as an Arrow schema. */
int pq_schema_export(struct ArrowSchema *out, const pq_node *node);

/* The dotted path of a leaf, for messages ("a.list.element"). */
void pq_schema_leaf_path(char *out, size_t size, const pq_node *leaf);

#endif

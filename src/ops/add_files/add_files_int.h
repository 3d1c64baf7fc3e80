/*
 * ops/add_files/add_files_int.h - private to add_files*.c: the Parquet schema of a
 * file seen through a table's schema (field ids by id or by name mapping,
 * type checks), the table schema made from a file (create), and Iceberg
 * metrics from a footer.
 */
#ifndef ZB_OPS_ADD_FILES_INT_H
#define ZB_OPS_ADD_FILES_INT_H

#include <jansson.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "table/metadata/metadata.h"
#include "util/arena.h"

/* A file's columns as the table sees them. */
typedef struct af_columns {
    int32_t *leaf_ids;             /* per Parquet leaf; -1: not mapped */
    size_t n_leaves;
    int32_t *top_ids;              /* field ids of the mapped top-level columns */
    size_t n_top;
    int has_ids;                   /* the file carries field ids */
} af_columns;

/*
 * Maps the columns of ps to schema s: by the file's field ids when its
 * top-level columns have them (an id not in s is ZB_EREFUSED), else by
 * name through mapping (a name mapping JSON list; NULL: no column maps).
 * Every mapped column's type must fit its field's (ZB_EREFUSED naming
 * uri, the column and both types), and every column must map (at any
 * depth; ZB_EREFUSED naming the first three that do not). Arrays in arena.
 */
int zb_af__map_columns(af_columns *out, zb_arena *arena, zb_ctx *ctx,
                       const char *uri, const pq_schema *ps,
                       const ice_schema *s, const json_t *mapping);

/* The name mapping (JSON list) of every field of s. New reference. */
json_t *zb_af__name_mapping(const ice_schema *s);

/*
 * The Iceberg schema JSON ("type": "struct", fields with ids 1..) of a
 * Parquet schema. ZB_EUNSUPPORTED names a column Iceberg cannot hold in
 * format_version (unsigned 64-bit, float16, nanoseconds before v3, ...).
 */
int zb_af__schema_from_parquet(json_t **out, zb_ctx *ctx, const char *uri,
                               const pq_schema *ps, int format_version);

/*
 * What the Parquet writer's result would say of the file (a pq_write_result
 * filled from the footer's column-chunk statistics, merged over row
 * groups), each leaf with its field id from leaf_ids. Arrays in arena;
 * out->arena stays NULL (do not pq_write_result_free it).
 */
int zb_af__footer_result(pq_write_result *out, zb_arena *arena, zb_ctx *ctx,
                         const char *uri, const pq_file_meta *m,
                         const pq_schema *ps, const int32_t *leaf_ids,
                         uint64_t file_bytes);

#endif

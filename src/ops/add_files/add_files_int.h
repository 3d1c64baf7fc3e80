/*
 * ops/add_files/add_files_int.h - private to add_files*.c: the Parquet schema
 * of a file seen through a table's schema (field ids by id or by name mapping,
 * type checks), the table schema made from a file (create), and Iceberg metrics
 * from a footer; the run's state and the steps of add_files.c that live in
 * add_files_list.c, add_files_create.c and add_files_describe.c.
 */
#ifndef ZB_OPS_ADD_FILES_INT_H
#define ZB_OPS_ADD_FILES_INT_H

#include <jansson.h>

#include "ops/add_files/add_files.h"
#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "table/metadata/metadata.h"
#include "table/metrics/file_metrics.h"
#include "table/value/transform.h"
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

/* ---- the run (add_files.c) and its steps ---- */

#define AF_MAX_FILES 10000000u
#define AF_MAX_KEYS 32
#define NAME_MAPPING "schema.name-mapping.default"
#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

typedef struct af_src {
    const char *uri;               /* absolute */
    const char *rel;               /* below the source ("k=v/f.parquet") */
    uint64_t size;
} af_src;

/* A file's path in the form paths are compared in (zb_reach_normalize),
 * with the file it came from. */
typedef struct af_norm {
    const char *norm;
    const af_src *src;
} af_norm;

/* A key=value directory level. */
typedef struct af_kv {
    const char *key, *value;       /* URL-decoded; value NULL: hive null */
} af_kv;

typedef struct af_run {
    const zb_op_target *t;
    zb_ctx *ctx;
    const zb_add_files_opts *o;
    zb_arena *arena;
    af_src *src;
    size_t n_src, cap_src;
    af_norm *norms;                /* n_src, sorted by norm */
    ice_data_file *files;
    size_t n_files;
    uint64_t skipped;
    const char *root;              /* the source, absolute */
} af_run;

/* What every file is checked and described against. */
typedef struct af_plan {
    const ice_metadata *meta;
    const ice_schema *schema;
    const ice_partition_spec *spec;
    ice_transform tr[64];
    json_t *mapping;               /* owned */
    ice_metrics_config cfg;        /* the table's metrics modes */
    ice_metrics_config cfg_full;   /* whole bounds, for partition values */
    ice_kv full_kv[1];
} af_plan;

/* Lists the Parquet files of run->o's source into run->src, sorted
 * (add_files_list.c). */
int zb_af__list_source(af_run *run);

/* The key=value directory levels of rel, outermost first, at most
 * AF_MAX_KEYS (add_files_list.c). */
int zb_af__hive_keys(af_kv *out, size_t *n_out, zb_arena *a, zb_ctx *ctx,
                     const char *rel);

/* The value of key among kv (*found says whether it is there; a hive
 * null is NULL) (add_files_list.c). */
const char *zb_af__hive_find(const af_kv *kv, size_t n, const char *key,
                             int *found);

/* Compact JSON text of j, in arena; NULL when out of memory
 * (add_files_create.c). */
const char *zb_af__dump_json(zb_arena *a, const json_t *j);

/* create: the table's first metadata from the first file's schema ps
 * (add_files_create.c). */
int zb_af__build_create(ice_metadata **out, af_run *run, const pq_schema *ps);

/* Source file s as data file df, checked against p
 * (add_files_describe.c). */
int zb_af__describe_file(ice_data_file *df, af_run *run, const af_plan *p,
                         const af_src *s);

#endif

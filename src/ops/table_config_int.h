/*
 * ops/table_config_int.h - the parsed table-config.json, shared by the
 * parser (table_config.c) and the merge and summary (table_config_merge.c).
 */
#ifndef ZB_OPS_TABLE_CONFIG_INT_H
#define ZB_OPS_TABLE_CONFIG_INT_H

#include "ops/table_config.h"
#include "util/arena.h"

typedef struct zb_tc_table {
    const char *ident;         /* "ns.table" */
    zb_tc_block block;         /* sections not given hold built-in values */
} zb_tc_table;

struct zb_table_config {
    zb_arena *arena;
    const char *name;
    const char *warehouse;
    int has_defaults;          /* the file has a "defaults" key */
    zb_tc_block defaults;
    size_t n_tables;
    zb_tc_table *tables;       /* sorted by ident */
};

#define ZB_TC_DEFAULT_TARGET_FILE_SIZE_BYTES 134217728
#define ZB_TC_DEFAULT_MIN_INPUT_FILES 2
#define ZB_TC_DEFAULT_PRECISION_BITS 16
#define ZB_TC_DEFAULT_ORPHAN_DAYS 3
#define ZB_TC_DEFAULT_MIN_INPUT_MANIFESTS 2

/*
 * The built-in block: what a section not given anywhere holds. Its
 * evolution rule is day -> month after 90 days when the file has no
 * "defaults" key, and none otherwise.
 */
void zb_table_config__builtin(zb_tc_block *out, int has_defaults);
void zb_table_config__builtin_retention(zb_tc_retention *out);

#endif

/*
 * ops/config/table_config_int.h - the parsed table-config.json, shared by the
 * parser (table_config.c) and the merge and summary (table_config_merge.c).
 */
#ifndef ZB_OPS_TABLE_CONFIG_INT_H
#define ZB_OPS_TABLE_CONFIG_INT_H

#include <jansson.h>

#include "ops/config/table_config.h"
#include "ops/table_settings.h"
#include "util/arena.h"
#include "util/err.h"

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

/* The settings' defaults are ops/table_settings.h's. */
#define ZB_TC_DEFAULT_TARGET_FILE_SIZE_BYTES \
    ((long long)ZB_TSET_DEFAULT_TARGET_FILE_BYTES)
#define ZB_TC_DEFAULT_MIN_INPUT_FILES ZB_TSET_DEFAULT_MIN_INPUT_FILES
#define ZB_TC_DEFAULT_PRECISION_BITS 16
#define ZB_TC_DEFAULT_ORPHAN_DAYS ZB_TSET_DEFAULT_ORPHAN_AGE_DAYS
#define ZB_TC_DEFAULT_MIN_INPUT_MANIFESTS ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS

/*
 * The built-in block: what a section not given anywhere holds. Its
 * evolution rule is day -> month after 90 days when the file has no
 * "defaults" key, and none otherwise.
 */
void zb_table_config__builtin(zb_tc_block *out, int has_defaults);
void zb_table_config__builtin_retention(zb_tc_retention *out);

/* ---- the parser's helpers (table_config.c), used by the block parser */

#define TC_PATH 320            /* longest key path kept, with its NUL */
#define TC_MAX_ITEMS 100000    /* longest list, most tables */

typedef struct zb_tc_parser {
    zb_ctx *ctx;
    zb_table_config *tc;
} zb_tc_parser;

/* ZB_EUSAGE with "NAME: PATH: what". */
int zb_tc__bad(zb_tc_parser *p, const char *path, const char *fmt, ...)
    ZB_PRINTF(3, 4);
/* dst (TC_PATH bytes) = parent.key, or parent[i]. */
void zb_tc__sub(char *dst, const char *parent, const char *key);
void zb_tc__sub_index(char *dst, const char *parent, size_t i);
/* "an object", "a list", ... for messages. */
const char *zb_tc__type_name(const json_t *v);
/* obj[key], with null counted as absent. */
json_t *zb_tc__opt(const json_t *obj, const char *key);
/* Each checks one value at path and reports what is wrong with it. */
int zb_tc__want_object(zb_tc_parser *p, const json_t *v, const char *path);
int zb_tc__want_list(zb_tc_parser *p, const json_t *v, const char *path);
int zb_tc__check_keys(zb_tc_parser *p, const json_t *obj, const char *path,
                      const char *const *allowed);
/* A whole number in lo..hi; null gives -1 when allow_null. */
int zb_tc__want_int(zb_tc_parser *p, const json_t *v, const char *path,
                    int64_t lo, int64_t hi, int allow_null, int64_t *out);
int zb_tc__want_bool(zb_tc_parser *p, const json_t *v, const char *path,
                     int *out);
/* A non-empty string, copied into the arena. */
int zb_tc__want_string(zb_tc_parser *p, const json_t *v, const char *path,
                       const char **out);
int zb_tc__want_enum(zb_tc_parser *p, const json_t *v, const char *path,
                     const char *const *names, size_t n, size_t *out);

/* The rewrite_data_files keys of a block (table_config_rewrite.c). */
int zb_tc__parse_rewrite(zb_tc_parser *p, const json_t *obj,
                         const char *path, zb_tc_rw_values *out);

/* One table block (table_config_block.c); b gets the built-ins first. */
int zb_tc__parse_block(zb_tc_parser *p, const json_t *obj, const char *path,
                       zb_tc_block *b);

#endif

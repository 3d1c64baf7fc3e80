/*
 * table/metadata/metadata_int.h - private to the metadata_*.c files: the
 * document behind an ice_metadata, and the checked JSON getters that the
 * parsing files share. jansson's types stay in this header (STYLE.md section
 * 2).
 */
#ifndef ZB_TABLE_METADATA_INT_H
#define ZB_TABLE_METADATA_INT_H

#include <jansson.h>

#include "table/metadata/metadata.h"
#include "table/metadata/metadata_edit.h"
#include "util/arena.h"

/* The model's arena grows with the document; this only stops runaways. */
#define ICE_ARENA_MAX_BYTES ((size_t)1 << 30)

typedef struct ice_snap_index {
    int64_t id;
    size_t pos;                    /* index into ice_metadata.snapshots */
} ice_snap_index;

struct ice_metadata_int {
    json_t *doc;                   /* the source of truth; owned */
    zb_arena *arena;               /* the model */
    ice_snap_index *snap_index;    /* snapshots sorted by id (arena) */
};

/* Where parsing is: the context, the model's arena, the file name. */
typedef struct ice_parse {
    zb_ctx *ctx;
    zb_arena *arena;
    const char *src;
    int version;
} ice_parse;

/*
 * Getters of obj[key]. required: a missing key (or null) is ZB_ECORRUPT
 * naming key and where; otherwise it returns 0 and leaves *out alone.
 * Present and well typed: returns 1. A wrong JSON type is ZB_ECORRUPT.
 * Strings are copied into the arena.
 */
int ice_j__get(const json_t **out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required);
int ice_j__i64(int64_t *out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required);
int ice_j__i32(int32_t *out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required);
int ice_j__bool(int *out, ice_parse *p, const json_t *obj, const char *key,
                const char *where, int required);
int ice_j__str(const char **out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required);
/* A list of ints (each in int32 range). */
int ice_j__i32_list(const int32_t **out, size_t *n_out, ice_parse *p,
                    const json_t *obj, const char *key, const char *where,
                    int required);
/* A list at obj[key] ("table metadata" level): *out and *n_out, or
 * NULL and 0 when absent. */
int ice_j__list(const json_t **out, size_t *n_out, ice_parse *p,
                const json_t *obj, const char *key, int required);
/* A JSON object of strings (properties, a snapshot summary). */
int ice_j__string_map(const ice_kv **out, size_t *n_out, ice_parse *p,
                      const json_t *v, const char *where);
/* ZB_ECORRUPT with "<src>: <where>: <message>". */
int ice_j__fail(ice_parse *p, const char *where, const char *fmt, ...)
    ZB_PRINTF(3, 4);
int ice_j__oom(ice_parse *p);

/* Appends compact JSON of any value to out (no jansson allocation
 * escapes). ZB_OK or ZB_ENOMEM. */
int ice_json__dump(zb_buf *out, const json_t *v, size_t flags);

/* Parses one schema object; default_id is used when it has no schema-id
 * (a v1 "schema"). */
int ice_schema__parse(ice_schema *out, ice_parse *p, const json_t *obj,
                      int32_t default_id, const char *where);

/*
 * Builds the whole model from doc into *m (a fresh internal part with its
 * own arena). On success m->internal->doc is doc (the reference moves in);
 * on failure nothing is kept and the caller still owns doc.
 */
int ice_metadata__build(ice_metadata *m, zb_ctx *ctx, json_t *doc,
                        const char *source_uri);

/* Frees an internal part: the document and the arena. */
void ice_metadata__free_int(struct ice_metadata_int *in);

/* ice_metadata__edit and the other functions the table layer shares:
 * metadata_edit.h. */

/* Inflates a gzip metadata file of len bytes into out (metadata_gzip.c);
 * src names it in errors. */
int ice_metadata__gunzip(zb_buf *out, zb_ctx *ctx, const char *data,
                         size_t len, const char *src);

#endif

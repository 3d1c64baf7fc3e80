/*
 * table/commit/commit_apply_int.h - private to commit_apply.c and
 * commit_evolve.c: the state of one list of updates being applied and
 * the JSON helpers both use.
 */
#ifndef ZB_TABLE_COMMIT_APPLY_INT_H
#define ZB_TABLE_COMMIT_APPLY_INT_H

#include "table/commit/commit_int.h"
#include "util/err.h"

typedef struct apply_state {
    zb_ctx *ctx;
    size_t i;                      /* the update being applied */
    const char *action;
    int has_schema, has_spec, has_order;
    int64_t last_schema, last_spec, last_order;  /* added last */
    json_t *added_snaps;           /* ids of snapshots added here */
    int added, removed;
    int64_t last_snap_ts;
    int64_t now_ms;
} apply_state;

/* ZB_EINVAL or code: "update <i> (<action>): <message>". */
int ice_ap__bad(apply_state *a, int code, const char *fmt, ...)
    ZB_PRINTF(3, 4);
int ice_ap__version_of(const json_t *doc);
/* doc[key] as an array or object, created when absent (NULL: oom). */
json_t *ice_ap__child(apply_state *a, json_t *doc, const char *key,
                      int array);
/* The index of the object in arr whose key equals id, or -1. */
long ice_ap__find_id(const json_t *arr, const char *key, int64_t id);
/* The highest key among arr's objects, or dflt. */
int64_t ice_ap__max_id(const json_t *arr, const char *key, int64_t dflt);
/* Required fields of an update, ZB_EINVAL naming them. */
int ice_ap__need_int(int64_t *out, apply_state *a, const json_t *u,
                     const char *key);
int ice_ap__need_str(const char **out, apply_state *a, const json_t *u,
                     const char *key);
int ice_ap__need_obj(const json_t **out, apply_state *a, const json_t *u,
                     const char *key);
/* *eq: a and b equal apart from key. */
int ice_ap__equal_except(zb_ctx *ctx, const json_t *a, const json_t *b,
                         const char *key, int *eq);

/* commit_evolve.c: format version, schemas, specs, sort orders. */
int ice_ap__norm_v1(apply_state *a, json_t *doc);
int ice_ap__upgrade(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__add_schema(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__set_schema(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__add_spec(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__set_spec(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__add_order(apply_state *a, json_t *doc, const json_t *u);
int ice_ap__set_order(apply_state *a, json_t *doc, const json_t *u);

#endif

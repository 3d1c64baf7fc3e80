/*
 * table/commit_int.h - private to the commit_*.c files: the metadata
 * transaction they share (ice_metadata__edit of metadata_int.h, in
 * metadata_write.c) and small JSON helpers.
 */
#ifndef ZB_TABLE_COMMIT_INT_H
#define ZB_TABLE_COMMIT_INT_H

#include <jansson.h>

#include "table/commit.h"
#include "table/metadata_int.h"

/* m's document (borrowed, read-only). */
const json_t *ice_metadata__doc(const ice_metadata *m);

/* A new ice_metadata built from doc; the reference to doc moves in on
 * success only. */
int ice_metadata__from_doc(ice_metadata **out, zb_ctx *ctx, json_t *doc,
                           const char *source_uri);

/* obj[key] = v taking v; NULL v or failure: ZB_ENOMEM. */
int ice_cj__set(zb_ctx *ctx, json_t *obj, const char *key, json_t *v);
/* arr += v taking v. */
int ice_cj__push(zb_ctx *ctx, json_t *arr, json_t *v);
/* The integer obj[key] into *out: 1 present, 0 absent, ZB_EINVAL when
 * it is not an integer (what names the object in the message). */
int ice_cj__int(int64_t *out, zb_ctx *ctx, const json_t *obj,
                const char *key, const char *what);

/* 64 random bits (getrandom, else a mixed clock and counter). */
uint64_t ice_commit__random64(void);

/* Milliseconds since the epoch. */
int64_t ice_commit__now_ms(void);

#endif

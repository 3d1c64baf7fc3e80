/*
 * table/metadata/metadata_edit.h - what the metadata module shares with
 * the other modules of the table layer (the commit module): the document
 * behind a model, a model built from a new document, the one metadata
 * transaction, and small JSON helpers for building update documents.
 * Outside the table layer, metadata changes go through metadata.h's
 * setters or table/commit/commit.h.
 */
#ifndef ZB_TABLE_METADATA_EDIT_H
#define ZB_TABLE_METADATA_EDIT_H

#include <jansson.h>
#include <stdint.h>

#include "table/metadata/metadata.h"

/* m's document (borrowed, read-only). */
const json_t *ice_metadata__doc(const ice_metadata *m);

/* A new ice_metadata built from doc; the reference to doc moves in on
 * success only. */
int ice_metadata__from_doc(ice_metadata **out, zb_ctx *ctx, json_t *doc,
                           const char *source_uri);

/*
 * The one metadata transaction, for the setters (metadata_write.c) and
 * the commit module's updates: runs edit on a deep copy of m's document,
 * rebuilds the model from the copy (every check a load makes), and swaps
 * both in. On any failure m is unchanged. edit returns ZB_OK or an rc
 * with the message set.
 */
typedef int (*ice_edit_fn)(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                           const void *arg);
int ice_metadata__edit(ice_metadata *m, zb_ctx *ctx, ice_edit_fn edit,
                       const void *arg);
/* The same transaction leaving base as it is: the result is a new
 * model in *out (a commit starts from the table's loaded metadata
 * without parsing its file again). */
int ice_metadata__edit_from(ice_metadata **out, const ice_metadata *base,
                            zb_ctx *ctx, ice_edit_fn edit, const void *arg);

/* Inside an edit: appends {timestamp-ms, metadata-file} to doc's
 * metadata-log, dropping the oldest entries past max_entries (0: keep
 * all). */
int ice_metadata__log_metadata(json_t *doc, zb_ctx *ctx, const char *file,
                               int64_t timestamp_ms, size_t max_entries);

/* obj[key] = v taking v; NULL v or failure: ZB_ENOMEM. */
int ice_cj__set(zb_ctx *ctx, json_t *obj, const char *key, json_t *v);
/* arr += v taking v. */
int ice_cj__push(zb_ctx *ctx, json_t *arr, json_t *v);
/* The integer obj[key] into *out: 1 present, 0 absent, ZB_EINVAL when
 * it is not an integer (what names the object in the message). */
int ice_cj__int(int64_t *out, zb_ctx *ctx, const json_t *obj,
                const char *key, const char *what);

#endif

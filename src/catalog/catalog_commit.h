/*
 * catalog/catalog_commit.h - private to src/catalog: the steps of a
 * commit that the SQL and folder catalogs share (catalog_commit.c).
 *
 *     zb_catalog__apply(&m, ...)         load current, check, apply, log
 *     ... write m as the next metadata file, swap the pointer ...
 *     zb_catalog__prune(io, ctx, t, &old_log, m)
 */
#ifndef ZB_CATALOG_CATALOG_COMMIT_H
#define ZB_CATALOG_CATALOG_COMMIT_H

#include "catalog/catalog_int.h"

/* How far ahead of the catalog's clock a new snapshot may be. */
#define ZB_CATALOG_CLOCK_SKEW_MS ((int64_t)60000)

/* The metadata-log of the metadata a commit started from. */
typedef struct zb_catalog_old_log {
    size_t n;
    char **files;
} zb_catalog_old_log;

/*
 * Loads the current metadata file cur_uri, checks the requirements
 * against it (ZB_ECONFLICT), refuses snapshots more than
 * ZB_CATALOG_CLOCK_SKEW_MS ahead of clock_ms (ZB_EREFUSED; clock_ms < 0:
 * no clock rule), applies the updates, and appends cur_uri to the
 * metadata-log (trimmed to write.metadata.previous-versions-max). *out is
 * the new metadata; *old_log the log the current file had (for
 * zb_catalog__prune; free with zb_catalog__old_log_free).
 *
 * When cur_uri is the file base was loaded from, base's parsed metadata
 * is the start instead of the file (metadata files never change once
 * written): a commit that did not race parses nothing, which keeps the
 * time between its load and its swap short on a busy table.
 */
int zb_catalog__apply(ice_metadata **out, zb_catalog_old_log *old_log,
                      zb_ctx *ctx, zb_io *io, const zb_table *base,
                      const char *cur_uri, const zb_json *requirements,
                      const zb_json *updates, int64_t clock_ms);

void zb_catalog__old_log_free(zb_catalog_old_log *l);

/*
 * After a commit: when committed has
 * write.metadata.delete-after-commit.enabled=true, deletes the files of
 * old that committed's metadata-log no longer lists, each resolved
 * through t->paths (t may be NULL: as written). Best effort: failures are
 * logged, never returned; returns how many files were deleted.
 */
size_t zb_catalog__prune(zb_io *io, zb_ctx *ctx, const zb_table *t,
                         const zb_catalog_old_log *old,
                         const ice_metadata *committed);

/* The version number of a metadata file name (v<N> or <N>-...), or -1. */
int64_t zb_catalog__metadata_version(const char *uri);

#endif

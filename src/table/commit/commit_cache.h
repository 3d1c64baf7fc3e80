/*
 * table/commit/commit_cache.h - what one commit's attempts share, so that
 * a retry after a lost race costs only what changed (issue 21: a replace
 * next to a writer that commits every few tens of ms).
 *
 * Manifests are immutable, so what an attempt learned from one, keyed by
 * its path, holds for every later attempt:
 *   - matches: the live entries of a manifest whose file path is in a
 *     set (the universe: the files a replace removes, the Puffin files it
 *     may drop). A later attempt's set must be a subset of the universe
 *     (a replace only ever drops groups); another set starts over.
 *   - the producer's (commit_snap.c) snapshot id and the manifests it
 *     wrote: those rewritten for the removed files (an attempt whose
 *     manifests holding removed files, removed set, schema and snapshot
 *     id are the same lists them again instead of writing them), and
 *     those of the added files (the same when the added files of that
 *     content are: files are known by path, so an attempt must not add
 *     another file under a path an earlier one added).
 *
 * Memory: the entries are charged to a reservation taken from the budget
 * with zb_budget_try_grow (never waits) and capped at max_bytes; a
 * manifest that does not fit is not cached (it is read again next time).
 *
 * Ownership: the rewritten manifests belong to the cache until
 * ice_commit_cache_finish says whether the commit that lists them won.
 */
#ifndef ZB_TABLE_COMMIT_CACHE_H
#define ZB_TABLE_COMMIT_CACHE_H

#include <jansson.h>

#include "table/manifest/manifest.h"
#include "zamboni/budget.h"

typedef struct ice_commit_cache ice_commit_cache;

#define ICE_COMMIT_CACHE_MAX_DEFAULT ((uint64_t)64 << 20)

/* budget may be NULL (only max_bytes bounds it); max_bytes 0: default. */
int ice_commit_cache_new(ice_commit_cache **out, zb_ctx *ctx,
                         zb_budget *budget, uint64_t max_bytes);
/* Releases the reservation; files it owns are left (see _finish). */
void ice_commit_cache_free(ice_commit_cache *c);

/*
 * Starts an attempt against set (path -> anything): keeps the matches
 * when set is a subset of the universe, else forgets them and adopts a
 * copy of set as the universe.
 */
int ice_commit_cache_begin(ice_commit_cache *c, zb_ctx *ctx,
                           const json_t *set);

/* Called for each live entry of a manifest whose path is in the
 * universe: its path, referenced data file (NULL if none), content. */
typedef int (*ice_commit_cache_fn)(void *payload, zb_ctx *ctx,
                                   const char *path, const char *ref,
                                   ice_file_content content);

/* Calls fn for mf's matches: from the cache, or by reading mf (v: the
 * table's format version) and caching what it found when it fits.
 * *read (may be NULL) is set to 1 when mf was read. */
int ice_commit_cache_matches(ice_commit_cache *c, zb_ctx *ctx, zb_io *io,
                             const ice_manifest_file *mf, int v,
                             const ice_manifest_opts *paths,
                             ice_commit_cache_fn fn, void *payload,
                             int *read);

/* Bytes held, and manifests read / answered from the cache so far. */
uint64_t ice_commit_cache_bytes(const ice_commit_cache *c);
void ice_commit_cache_counts(const ice_commit_cache *c, uint64_t *read,
                             uint64_t *hits);

/*
 * The end of the commit: committed != 0 keeps the rewritten manifests
 * the winning attempt listed (the table owns them now); else they are
 * deleted, best effort, keeping ctx->err. For an unknown outcome call
 * nothing: the files may belong to the table.
 */
void ice_commit_cache_finish(ice_commit_cache *c, zb_io *io, zb_ctx *ctx,
                             int committed);

/* ---- the producer's side (commit_snap.c) ---- */

/* At the start of a build: nothing of the record is listed yet. */
void ice_commit_cache__attempt(ice_commit_cache *c);
/* The snapshot id an earlier attempt used (0: none). */
int64_t ice_commit_cache__snapshot_id(const ice_commit_cache *c);
void ice_commit_cache__set_snapshot_id(ice_commit_cache *c, int64_t id);

/*
 * Record slot's manifests for key (a text naming all they depend on):
 * 1 with *mfs, *n (owned by the cache) and the counts blob copied into
 * counts (counts_len bytes) and *parts (array of partition keys,
 * borrowed; may be NULL) when the record is key's; else 0. A 1 marks the record
 * listed by this attempt.
 */
/* Records: the rewritten manifests, the manifests of the added data
 * files, of the added delete files. */
#define ICE_COMMIT_CACHE_REWRITE 0
#define ICE_COMMIT_CACHE_ADDED_DATA 1
#define ICE_COMMIT_CACHE_ADDED_DELETES 2
#define ICE_COMMIT_CACHE_SLOTS 3

int ice_commit_cache__reuse(ice_commit_cache *c, int slot, const char *key,
                            const ice_manifest_file **mfs, size_t *n,
                            void *counts, size_t counts_len,
                            const json_t **parts);

/*
 * Makes mfs[0..n) (copied) the record of key, listed by this attempt;
 * takes files[0..n_files) (zb_malloc'd paths, the manifests written) and
 * frees the array. The record it replaces has its files deleted.
 */
int ice_commit_cache__keep(ice_commit_cache *c, int slot, zb_ctx *ctx,
                           zb_io *io, const char *key,
                           const ice_manifest_file *mfs,
                           size_t n, const void *counts, size_t counts_len,
                           const json_t *parts, char **files,
                           size_t n_files);

#endif

/*
 * table/commit/commit_snap_build.h - private to commit_snap*.c: the
 * producer's op and one build of it, shared by commit_snap.c (the steps)
 * and commit_snap_reuse.c (what a build takes over from an earlier
 * attempt through the commit cache, table/commit/commit_cache.h).
 */
#ifndef ZB_TABLE_COMMIT_SNAP_BUILD_H
#define ZB_TABLE_COMMIT_SNAP_BUILD_H

#include <jansson.h>

#include "table/commit/commit.h"
#include "table/commit/commit_cache.h"
#include "table/commit/commit_snap_int.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/vec.h"

typedef struct added_file {
    int32_t spec_id;
    ice_data_file f;
} added_file;

struct ice_commit_op {
    ice_commit_op_opts o;
    ice_manifest_opts paths;
    zb_arena *arena;               /* the copied files and strings */
    zb_vec added;                  /* added_file */
    json_t *removes;               /* path -> true */
    json_t *extra;                 /* summary entries */
    int attempt;
    int64_t data_seq;              /* > 0: added files' data sequence
                                      number (commit_seq.c) */
};

typedef struct bst {
    ice_commit_op *op;
    zb_ctx *ctx;
    const ice_metadata *base;
    ice_commit_result *out;
    int v;
    const ice_schema *schema;
    int64_t id, seq, ts;
    const ice_ref *head;
    const ice_snapshot *parent;
    char *dir;
    char uuid[37];
    int n_mf;
    int64_t target;
    zb_arena *arena;               /* manifest-list entries we wrote */
    ice_manifest_list_writer *lw;
    int64_t first_row_id;
    json_t *hits;                  /* manifests holding removed files */
    json_t *found;                 /* removed files found live */
    json_t *parts;                 /* changed partitions */
    zb_buf key;
    ice_snap_counts add, rem;
    zb_buf reuse_key;              /* the rewrite's (commit_cache.h) */
    zb_vec *capture;               /* manifests closed go here too */
} bst;

/* commit_snap.c */
int ice_snap__note_partition(bst *b, int32_t spec_id,
                             const ice_data_file *f);
int ice_snap__close_manifest(bst *b, ice_manifest_writer *w);
/* Step 3 without the cache: the added files of one content. */
int ice_snap__write_added_files(bst *b, int deletes);

/* commit_snap_reuse.c */
/* Step 3, through the cache when the op has one. */
int ice_snap__write_added(bst *b, int deletes);
/* Step 4: the key of the rewritten manifests (into b->reuse_key). */
int ice_snap__reuse_key(bst *b);
/* 1 when the cache's rewritten manifests of that key were listed. */
int ice_snap__list_reused(bst *b);
/* After a step 4 that rewrote: its manifests go to the cache. */
int ice_snap__keep_rewritten(bst *b, size_t from,
                             const json_t *parts_before);

#endif

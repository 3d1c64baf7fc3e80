/*
 * ops/rewrite_manifests/rewrite_manifests_int.h - rewrite-manifests' state, shared by its
 * files: rewrite_manifests.c (the operation and its attempts),
 * rewrite_manifests_group.c (pass 1: groups and packing) and
 * rewrite_manifests_write.c (pass 2: manifests, list and commit).
 */
#ifndef ZB_OPS_REWRITE_MANIFESTS_INT_H
#define ZB_OPS_REWRITE_MANIFESTS_INT_H

#include <jansson.h>

#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/vec.h"
#include "zamboni/budget.h"

typedef struct group {
    int content;                   /* ICE_MANIFEST_DATA or _DELETES */
    int32_t spec_id;
    const char *key;               /* the JSON index key (arena) */
    uint64_t count, bytes;
    size_t first_out;              /* its first output manifest */
    uint64_t n_first;              /* entries in that one */
    uint64_t per_full;             /* entries per further manifest */
    uint64_t seen;                 /* entries met in this pass */
    size_t last_mf;                /* 1 + the input manifest last seen in */
} group;

typedef struct out_mf {
    int content;
    int32_t spec_id;
    uint64_t entries;
} out_mf;

typedef struct window {
    size_t from, to;               /* output manifests [from, to) */
    ice_manifest_writer **wr;
} window;

typedef struct rw {
    zb_ctx *ctx;
    const zb_op_target *t;
    const zb_table *tbl;
    const ice_metadata *m;
    const ice_snapshot *snap;
    zb_rewrite_manifests_result *r;
    int v;
    int64_t target;
    int max_open;
    int rewrite[2];                /* by manifest content */
    zb_arena *arena;
    zb_vec groups;                 /* group */
    json_t *gix;                   /* key -> index in groups */
    zb_vec outs;                   /* out_mf */
    zb_buf key, tmp;
    /* the write */
    int64_t id, seq, ts;
    char uuid[37];
    char *dir;
    ice_manifest_file *mfs;        /* per output manifest, once written */
    zb_vec written;                /* char * */
    window *win;                   /* the writing pass's window */
    /* memory (rewrite_manifests_mem.c) */
    zb_reservation res;            /* from ctx->budget; released by rw_free */
    uint64_t group_bytes;          /* the groups, as counted */
} rw;

/*
 * Calls fn for every live entry of every manifest to rewrite, with the
 * manifest's index among them (1-based).
 */
typedef int (*entry_fn)(rw *w, size_t mf_no, const ice_manifest_file *mf,
                        const ice_manifest_entry *e);

/* ---- pass 1 (rewrite_manifests_group.c) ---- */

/* Opens the manifest list of the snapshot being rewritten. */
int zb_rewrite_manifests__open_list(rw *w, ice_manifest_list_reader **lr);

/* Counts the data and delete manifests of the snapshot into w->r. */
int zb_rewrite_manifests__count_manifests(rw *w);

/* The group of a data file's (content, spec, partition); a new one when
 * create, else ZB_ECONFLICT when there is none. */
int zb_rewrite_manifests__find_group(rw *w, group **out, int content,
                                     int32_t spec_id, const ice_data_file *f,
                                     int create);

/* Calls fn for every live entry of every manifest to rewrite (entry_fn). */
int zb_rewrite_manifests__walk(rw *w, entry_fn fn);

/* Pass 1's entry_fn: counts an entry into its group. */
int zb_rewrite_manifests__count_entry(rw *w, size_t mf_no,
                                      const ice_manifest_file *mf,
                                      const ice_manifest_entry *e);

/* Sorts the groups and packs them into w->outs. */
int zb_rewrite_manifests__pack(rw *w);

/* ---- memory (rewrite_manifests_mem.c) ---- */

/* Counts a new group whose key is key_len bytes, growing w->res (waiting)
 * when it passes what is held. ZB_OK, ZB_ECANCELED or ZB_ENOMEM. */
int zb_rewrite_manifests__count_group(rw *w, size_t key_len);

/* Reserves the groups, the output manifests' entries and *n_writers open
 * writers, halving *n_writers while that does not fit at once; one writer
 * is waited for. ZB_OK, ZB_ECANCELED or ZB_ENOMEM. */
int zb_rewrite_manifests__reserve_writers(rw *w, size_t *n_writers);

/* ---- pass 2 and commit (rewrite_manifests_write.c) ---- */

/* Writes the manifests and the list, and commits. */
int zb_rewrite_manifests__write_and_commit(rw *w);

#endif

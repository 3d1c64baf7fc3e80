/*
 * plan/scan/scan_plan_int.h - private to scan_plan*.c: the delete index
 * (scan_plan_index.c) and the filter (scan_plan_filter.c).
 */
#ifndef ZB_PLAN_SCAN_PLAN_INT_H
#define ZB_PLAN_SCAN_PLAN_INT_H

#include "plan/scan/scan_plan.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/vec.h"

/* --- delete index ------------------------------------------------------ */

/* One live delete file (or DV), deep-copied into the index arena. */
typedef struct zb_del_entry {
    zb_scan_file f;                /* f.file points at file */
    ice_data_file file;
    const char *ref;               /* stripped referenced path, or NULL */
    const uint8_t *key;            /* partition tuple key */
    size_t key_len;
    int unpartitioned;             /* spec without (non-void) fields */
    int used;                      /* applied to some task */
} zb_del_entry;

typedef struct zb_del_index {
    zb_arena *arena;
    zb_vec refd;                   /* zb_del_entry *: with a ref path */
    zb_vec part;                   /* pos and eq deletes by spec + key */
    zb_vec global;                 /* eq deletes of unpartitioned specs */
    size_t n_entries;
    zb_buf tmp;
} zb_del_index;

int zb_scan__index_init(zb_del_index *x, zb_ctx *ctx, size_t max_bytes);
void zb_scan__index_free(zb_del_index *x);

/*
 * Adds a delete file entry read from a delete manifest of spec (NULL when
 * the metadata lacks it), its URI already resolved.
 */
int zb_scan__index_add(zb_del_index *x, zb_ctx *ctx,
                       const ice_manifest_entry *e,
                       const ice_partition_spec *spec, int32_t spec_id,
                       const char *uri);

/* Sorts the lists once every delete manifest has been read. */
void zb_scan__index_seal(zb_del_index *x);

/*
 * Appends to out (a vec of zb_scan_file) the deletes that apply to a data
 * file of spec_id with partition key key and data sequence number seq, in
 * the order of scan_task.h. ZB_ECORRUPT for two DVs.
 */
int zb_scan__index_match(zb_vec *out, zb_del_index *x, zb_ctx *ctx,
                         const char *path, int32_t spec_id,
                         const uint8_t *key, size_t key_len, int64_t seq);

/* Delete entries never applied to a task so far. */
uint64_t zb_scan__index_unused(const zb_del_index *x);

/* The partition tuple key of a file (appended to out after clearing). */
int zb_scan__partition_key(zb_buf *out, zb_ctx *ctx, const ice_data_file *f);

/* Whether a spec counts as unpartitioned (no fields, or only void). */
int zb_scan__spec_unpartitioned(const ice_partition_spec *spec,
                                const ice_data_file *f);

/* Deep-copies a data file into a (every pointer). ZB_OK or ZB_ENOMEM. */
int zb_scan__data_file_copy(ice_data_file *dst, zb_arena *a,
                            const ice_data_file *src);

/* --- manifests read ahead (scan_prefetch.c) ----------------------------- */

/* One manifest read by a pool thread: its live (not DELETED) entries,
 * deep copies in arena, in file order. */
typedef struct zb_mf_job {
    struct zb_mf_prefetch *pf;
    ice_manifest_file mf;          /* the list entry, without summaries
                                      (v1: partition_spec_id from the
                                      manifest's metadata) */
    int v1;                        /* from a v1 "manifests" array */
    const char *uri;               /* as opened, for messages; NULL when
                                      the open failed */
    zb_vec entries;                /* ice_manifest_entry */
    zb_arena *arena;
    zb_ctx ctx;                    /* the job's: its error */
    int rc;                        /* ZB_OK, or the failure after entries */
    int done;
} zb_mf_job;

typedef struct zb_mf_prefetch zb_mf_prefetch;

/* threads pool threads reading manifests through io with mopts (borrowed;
 * a resolve callback in it must be thread-safe). */
int zb_scan__prefetch_new(zb_mf_prefetch **out, zb_ctx *ctx, zb_io *io,
                          int format_version, const ice_manifest_opts *mopts,
                          unsigned threads);

/* Queues mf (copied) to be read. */
int zb_scan__prefetch_push(zb_mf_prefetch *pf, zb_ctx *ctx,
                           const ice_manifest_file *mf, int v1);

/* Manifests queued and not popped yet. */
size_t zb_scan__prefetch_queued(const zb_mf_prefetch *pf);

/* The oldest queued manifest once read: 1 with *job (valid until the
 * next pop or free), 0 when none is queued, ZB_ECANCELED when stopped.
 * Check (*job)->rc after using its entries. */
int zb_scan__prefetch_pop(zb_mf_prefetch *pf, zb_ctx *ctx, zb_mf_job **job);

/* Moves the job's error into ctx and returns its rc. */
int zb_scan__prefetch_error(zb_ctx *ctx, const zb_mf_job *j);

void zb_scan__prefetch_free(zb_mf_prefetch *pf);

/* --- filter ------------------------------------------------------------ */

typedef struct zb_scan_filter {
    const ice_metadata *meta;
    const ice_schema *schema;
    size_t n;
    zb_scan_pred *preds;           /* copies */
    const ice_type **types;        /* the field type of each */
} zb_scan_filter;

/* Checks and copies the predicates (ZB_EINVAL naming a bad one). */
int zb_scan__filter_init(zb_scan_filter *f, zb_ctx *ctx,
                         const ice_metadata *meta, const zb_scan_pred *preds,
                         size_t n);
void zb_scan__filter_free(zb_scan_filter *f);

/* 0 when the manifest's partition summaries show nothing can match. */
int zb_scan__filter_manifest(const zb_scan_filter *f, zb_ctx *ctx,
                             const ice_manifest_file *mf);

/* 0 when the file's partition values or column metrics exclude a match. */
int zb_scan__filter_file(const zb_scan_filter *f, zb_ctx *ctx,
                         const ice_partition_spec *spec,
                         const ice_data_file *df);

#endif

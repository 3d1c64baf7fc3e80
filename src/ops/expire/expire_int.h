/*
 * ops/expire/expire_int.h - the steps of zb_expire, for its tests: retention,
 * the plan (what to expire and delete, computed before any change), and
 * the commit with its check and the deletion.
 */
#ifndef ZB_OPS_EXPIRE_INT_H
#define ZB_OPS_EXPIRE_INT_H

#include "ops/expire/expire.h"
#include "ops/reachable/reachable_files.h"

/* The retention rules in effect (opts over properties over defaults). */
typedef struct zb_expire_rules {
    int64_t max_snapshot_age_ms;
    int32_t min_snapshots_to_keep;
    int64_t max_ref_age_ms;          /* INT64_MAX: never */
} zb_expire_rules;

int zb_expire__rules(zb_expire_rules *out, zb_ctx *ctx,
                     const ice_metadata *m, const zb_expire_opts *o);

/*
 * Marks keep[i] (1/0) for each of m's snapshots and drop[j] for each of
 * m->refs past its max age, at now_ms. keep and drop are the caller's
 * (n_snapshots and n_refs long). ZB_OK or ZB_ENOMEM.
 */
int zb_expire__retain(unsigned char *keep, unsigned char *drop, zb_ctx *ctx,
                      const ice_metadata *m, const zb_expire_rules *rules,
                      int64_t now_ms);

typedef struct zb_expire_plan {
    const zb_table *table;           /* borrowed: the base */
    int64_t *expired;                /* snapshot ids */
    size_t n_expired;
    size_t n_retained;
    const char **drop_refs;          /* names, borrowed from the base */
    size_t n_drop_refs;
    int gc;                          /* files are to be deleted */
    zb_pathfile *doomed;             /* sorted; NULL when none planned */
    zb_pathfile *retained_manifests; /* sorted, distinct */
    uint64_t doomed_bytes;
    uint64_t by_tag[8];              /* doomed files per tag bit */
} zb_expire_plan;

/* Plans against t (loaded) at now_ms. *out: zb_expire__plan_free. */
int zb_expire__plan(zb_expire_plan **out, const zb_table *t, zb_io *io,
                    zb_ctx *ctx, const zb_expire_opts *o, int64_t now_ms);
void zb_expire__plan_free(zb_expire_plan *p);

/*
 * Commits the plan through cat (requirements, updates as expire.h says),
 * then checks and deletes. *committed_out (may be NULL) gets the table
 * as committed. Fills r's commit and deletion fields.
 */
int zb_expire__apply(zb_table **committed_out, const zb_expire_plan *p,
                     zb_catalog *cat, zb_io *io, zb_ctx *ctx,
                     const zb_expire_opts *o, zb_expire_result *r);

/* ---- old metadata files (expire_meta.c) ---- */

/* write.metadata.previous-versions-max of m (default 100, at least 1). */
size_t zb_expire__previous_versions_max(const ice_metadata *m);

typedef struct zb_expire_meta {
    zb_pathfile *files;              /* URIs and sizes; NULL when none */
    uint64_t bytes;
    uint64_t skipped;                /* another table's, or unreadable */
    int64_t floor_version;           /* files below it go; -1: none */
    size_t previous_versions_max;
} zb_expire_meta;

/*
 * The metadata files of t older than the oldest entry of the
 * metadata-log kept (expire.h "Metadata files"): t's log, or with
 * predict the log a commit on t would leave. base (may be NULL) is the
 * metadata t's commit replaced: without a listing of the folder, its
 * entries that the kept log no longer holds are the candidates. ZB_OK,
 * ZB_ENOMEM, ZB_ECANCELED, ZB_EIO (the record file). Free *out with
 * zb_expire__meta_free.
 */
int zb_expire__meta_plan(zb_expire_meta *out, const zb_table *t,
                         const ice_metadata *base, int predict, zb_io *io,
                         zb_ctx *ctx);
void zb_expire__meta_free(zb_expire_meta *mp);

/*
 * Plans (zb_expire__meta_plan) and deletes, or with dry_run counts, the
 * old metadata files of t into r's metadata fields; nothing when
 * r->gc_disabled or t has write.metadata.delete-after-commit.enabled
 * set to false.
 */
int zb_expire__meta_run(zb_expire_result *r, const zb_table *t,
                        const ice_metadata *base, int predict, int dry_run,
                        zb_io *io, zb_ctx *ctx, unsigned threads);

#endif

/*
 * ops/orphans/remove_orphans.h - remove-orphans: delete the files under a
 * table's location that no metadata references.
 *
 *     zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
 *     zb_remove_orphans_result r;
 *     rc = zb_remove_orphans(&target, ctx, &o, &r);
 *     zb_remove_orphans_report(&out, target.ident, &r, target.dry_run);
 *
 * Roots: the table's root (its location, or the folder of a PATH table) and
 * write.data.path and write.metadata.path when set, each resolved like any path
 * of the table. Everything under them is listed through FileIO first; then the
 * reachable set is computed: every snapshot's manifest list, its manifests and
 * their live data, delete and deletion-vector files, statistics and partition
 * statistics files, the current metadata file, every metadata-log entry and
 * version-hint.text. Paths are compared normalized
 * (ops/reachable/reachable_files.h: file:/x is /x; s3a and s3n are s3;
 * hdfs://host:port/x is /x). A listed file that is not reachable and older than
 * the age guard (older_than_ms, default 3 days; mtime before now minus the
 * guard) is deleted; younger ones are counted and left. Listing and reachable
 * set are sorted path streams that spill to disk: bounded memory for millions
 * of files.
 *
 * Safety checks, each ZB_EUNSAFE with nothing deleted:
 *   - a referenced file (metadata-log entries and version-hint.text
 *     aside) under a root is missing from the listing: the listing or
 *     the path mapping cannot be trusted;
 *   - another table of the catalog (when the catalog can list its
 *     namespaces and tables) lies inside one of the roots, or cannot be
 *     loaded to tell, or the listing fails;
 *   - the table has snapshots but no manifest list, manifest or data
 *     file of them lies under a root, or the current metadata file is
 *     not under a root;
 *   - a root cannot be listed.
 * A guard below 24 hours is ZB_EREFUSED unless opts.force: files being
 * written by a running job are not referenced yet.
 */
#ifndef ZB_OPS_ORPHANS_H
#define ZB_OPS_ORPHANS_H

#include <stdint.h>

#include "ops/ops.h"
#include "ops/table_settings.h"
#include "util/buf.h"

#define ZB_ORPHANS_MIN_AGE_MS ((int64_t)24 * 3600 * 1000)

/* Each field's default is its value in ZB_REMOVE_ORPHANS_OPTS_INIT. */
typedef struct zb_remove_orphans_opts {
    unsigned version;               /* ZB_REMOVE_ORPHANS_OPTS_VERSION */
    /* The age guard in ms; default ZB_UNSET: 3 days
     * (ZB_TSET_DEFAULT_ORPHAN_AGE_MS, ops/table_settings.h). */
    int64_t older_than_ms;
    int force;                      /* default 0; 1: allow a guard below
                                       24 hours */
    uint64_t max_memory_bytes;      /* bytes of the path streams in all;
                                       default 0: 128 MiB */
    unsigned delete_threads;        /* default 0: 4 */
    unsigned read_threads;          /* threads reading the manifests of the
                                       reachable set; default 1 (0 too):
                                       the caller's; the same result */
} zb_remove_orphans_opts;

#define ZB_REMOVE_ORPHANS_OPTS_VERSION 1
#define ZB_REMOVE_ORPHANS_OPTS_INIT                                        \
    {                                                                      \
        .version = ZB_REMOVE_ORPHANS_OPTS_VERSION,                         \
        .older_than_ms = ZB_UNSET, .force = 0, .max_memory_bytes = 0,      \
        .delete_threads = 0, .read_threads = 1,                            \
    }

typedef struct zb_remove_orphans_result {
    uint64_t files_scanned;         /* listed */
    uint64_t files_referenced;
    uint64_t files_unreferenced;
    uint64_t files_deleted;         /* or would be (dry run) */
    uint64_t bytes_deleted;
    uint64_t files_left;            /* unreferenced, younger than the guard */
    uint64_t bytes_left;
    uint64_t files_not_deleted;     /* deletions that failed */
    uint64_t refs_missing;          /* referenced, not listed */
    int64_t older_than_ms;          /* the guard applied */
    char first_error[256];          /* first deletion failure, or "" */
} zb_remove_orphans_result;

int zb_remove_orphans(const zb_op_target *t, zb_ctx *ctx,
                      const zb_remove_orphans_opts *o,
                      zb_remove_orphans_result *r);

/*
 * Appends the output lines of ZAMBONI-INTERFACE.md section 5: "T: scanned
 * N file(s), R referenced, U unreferenced", "  deleted|would delete D
 * file(s) (7.0KiB)", "  Y file(s) (7.0KiB) left in place: younger than
 * the 3-day age guard", "  F file(s) could not be deleted".
 */
int zb_remove_orphans_report(zb_buf *out, const char *table,
                             const zb_remove_orphans_result *r, int dry_run);

#endif

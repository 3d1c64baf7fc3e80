/*
 * ops/expire/expire.h - expire snapshots and delete the files only they
 * reached.
 *
 *     zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
 *     zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
 *     rc = zb_expire(&target, ctx, &o, &r);
 *     zb_expire_report(&out, target.ident, &r, target.dry_run);
 *     zb_expire_result_free(&r);
 *
 * Retention (format/spec.md "Snapshot Retention Policy", as Iceberg Java
 * applies it): a ref other than main whose snapshot is older than its
 * max-ref-age-ms (the ref's own field, else opts, else the table property
 * history.expire.max-ref-age-ms, else never) is dropped. Each remaining
 * branch keeps its ancestors, head first, while fewer than
 * min-snapshots-to-keep are kept or the ancestor is younger than
 * max-snapshot-age-ms (each: the ref's field, else opts, else
 * history.expire.min-snapshots-to-keep / max-snapshot-age-ms, else 1 /
 * 5 days); each remaining tag keeps its snapshot; a snapshot no ref
 * reaches is kept while younger than the table-level max age. The
 * current snapshot is always kept. The rest expire, in one commit whose
 * requirements are the table uuid and main's snapshot id (updates:
 * remove-snapshot-ref per dropped ref, remove-snapshots); a lost race is
 * planned again, up to 3 attempts.
 *
 * Files. Before the commit the whole deletion is planned: every file the
 * expired snapshots reach (manifest lists, manifests no retained snapshot lists
 * and every file those manifests name, statistics files) minus every file a
 * retained snapshot reaches (its list, its manifests, their live entries, its
 * statistics), as sorted path streams that spill to disk
 * (ops/reachable/reachable_files.h): bounded memory for millions of files.
 * After the commit succeeds, the committed metadata is checked: when any file
 * about to be deleted is still referenced by it (a snapshot committed meanwhile
 * on another branch, say), nothing is deleted and the result is ZB_EUNSAFE.
 * Then the files are deleted in batches on a few threads; failures are counted,
 * never fatal. A commit whose outcome is unknown (ZB_ETIMEOUT) deletes nothing;
 * gc.enabled=false expires snapshots and deletes nothing. Dry run: real counts,
 * nothing changed.
 *
 * Metadata files (expire_meta.c). Every commit keeps the metadata-log
 * to write.metadata.previous-versions-max entries (default 100); the
 * files that fall out of it stay on storage unless
 * write.metadata.delete-after-commit.enabled was true at that commit.
 * After its own commit (or, with nothing to expire, on the table as
 * loaded) expire deletes them: every metadata file in the folder of the
 * current metadata file, named in the current file's scheme ("v<N>" or
 * "<N>-<uuid>", [.gz].metadata.json: versions of two schemes do not
 * compare), whose version number is below the lowest of the current
 * file and the entries the log keeps, and whose table-uuid is the
 * table's (read from the file: another table's file, or one that does
 * not read, stays). A concurrent commit only writes
 * higher versions, and a catalog only points at the current file, so
 * neither is touched. A store that cannot list falls back to the
 * entries the commit just dropped from the log; while the log still
 * reaches the table's first version nothing is listed. Nothing with
 * gc.enabled or write.metadata.delete-after-commit.enabled set to
 * anything but "true" (Java's reading; the owner keeps them on purpose),
 * nothing after
 * ZB_EUNSAFE or an unknown commit outcome; a dry run counts what would
 * go after the commit it would make. Unlike the rest of expire this
 * lists one folder (not recursively). Not supported: two catalog entries
 * sharing one metadata folder and table-uuid (a table registered twice):
 * expire on one may delete the other's older current file.
 *
 * Progress (ops/ops.h): ZB_PROGRESS_EXPIRE_FILES and
 * ZB_PROGRESS_EXPIRE_METADATA, files handled of those to delete.
 *
 * Codes: ZB_EUNSAFE (the check above; the snapshots are expired, no file
 * deleted), ZB_ECONFLICT (still losing races after 3 attempts),
 * ZB_ETIMEOUT, the catalog's and FileIO's codes, ZB_ENOTFOUND or
 * ZB_ECORRUPT (a retained snapshot's manifest list or manifest is missing
 * or does not read: nothing changed; an expired snapshot's is logged and
 * passed over), ZB_EINVAL (a history.expire.* property that is not a
 * number).
 */
#ifndef ZB_OPS_EXPIRE_H
#define ZB_OPS_EXPIRE_H

#include <stdint.h>

#include "ops/ops.h"
#include "ops/table_settings.h"
#include "util/buf.h"

/*
 * Each field's default is its value in ZB_EXPIRE_OPTS_INIT. The rules
 * override the table properties (table-config
 * retention.expire_snapshots: days x 86400000); ZB_UNSET
 * (ops/table_settings.h) leaves them to the property, else the built-in
 * value (ZB_TSET_DEFAULT_*).
 */
typedef struct zb_expire_opts {
    unsigned version;               /* ZB_EXPIRE_OPTS_VERSION */
    int64_t max_snapshot_age_ms;    /* ms; default ZB_UNSET: property,
                                       else 5 days */
    int32_t min_snapshots_to_keep;  /* default ZB_UNSET: property, else 1;
                                       at least 1 */
    int64_t max_ref_age_ms;         /* ms; default ZB_UNSET: property,
                                       else never */
    uint64_t max_memory_bytes;      /* bytes of the path streams in all;
                                       default 0: 128 MiB */
    unsigned delete_threads;        /* default 0: 4 */
    unsigned read_threads;          /* threads reading the manifests of the
                                       reachable sets; default 1 (0 too):
                                       the caller's; the same plan */
} zb_expire_opts;

#define ZB_EXPIRE_OPTS_VERSION 1
#define ZB_EXPIRE_OPTS_INIT                                                \
    {                                                                      \
        .version = ZB_EXPIRE_OPTS_VERSION,                                 \
        .max_snapshot_age_ms = ZB_UNSET,                                   \
        .min_snapshots_to_keep = ZB_UNSET, .max_ref_age_ms = ZB_UNSET,     \
        .max_memory_bytes = 0, .delete_threads = 0, .read_threads = 1,     \
    }

typedef struct zb_expire_result {
    uint64_t snapshots_expired;     /* or would be */
    uint64_t snapshots_retained;
    uint64_t refs_dropped;
    char **dropped_refs;            /* their names; owned */
    uint64_t files_deleted;         /* deleted, or would be (dry run) */
    uint64_t bytes_deleted;         /* as recorded in metadata */
    uint64_t files_not_deleted;     /* deletions that failed */
    uint64_t files_missing;         /* to delete but already gone */
    /* The planned deletion by kind. */
    uint64_t planned_lists, planned_manifests, planned_data,
        planned_deletes, planned_stats;
    /* Old metadata files (see above): deleted, or would be. */
    uint64_t metadata_deleted;
    uint64_t metadata_bytes_deleted;  /* as listed */
    uint64_t metadata_not_deleted;    /* deletions that failed */
    uint64_t metadata_skipped;        /* below the log, not this table's */
    uint64_t previous_versions_max;   /* in effect */
    int committed;                  /* a commit happened */
    int gc_disabled;                /* gc.enabled=false: nothing deleted */
    char first_error[256];          /* first deletion failure, or "" */
} zb_expire_result;

/* Every count 0, no names, nothing committed. */
#define ZB_EXPIRE_RESULT_INIT { .snapshots_expired = 0 }

/* See above. r is filled as far as the work went. */
int zb_expire(const zb_op_target *t, zb_ctx *ctx, const zb_expire_opts *o,
              zb_expire_result *r);

void zb_expire_result_free(zb_expire_result *r);

/*
 * Appends the output lines of ZAMBONI-INTERFACE.md section 5 for table:
 * "T: expired N snapshot(s), retained M, deleted|would delete K file(s)",
 * "  F file(s) could not be deleted", "  deleted|would delete J old
 * metadata file(s) (SZ) beyond write.metadata.previous-versions-max=P"
 * (when J > 0), "  G metadata file(s) could not be deleted",
 * "  dropped|would drop N ref(s) past max-ref-age-ms: a, b". ZB_OK or
 * ZB_ENOMEM.
 */
int zb_expire_report(zb_buf *out, const char *table,
                     const zb_expire_result *r, int dry_run);

#endif

/*
 * plan/scan/scan_plan.h - scan planning for one snapshot (format/spec.md "Scan
 * Planning", "Deletion Vectors"): the live data files, one at a time,
 * each with the delete files that apply to it.
 *
 *     zb_scan_plan_opts o = ZB_SCAN_PLAN_OPTS_INIT;
 *     o.manifest = &mopts;               (remaps, resolve callback)
 *     zb_scan_plan *p = NULL;
 *     const zb_scan_task *t;
 *     if ((rc = zb_scan_plan_open(&p, io, ctx, meta, snap, &o)) < 0) ...
 *     while ((rc = zb_scan_plan_next(p, ctx, &t)) > 0)
 *         read(t->data.uri, t->n_deletes, t->deletes);
 *     zb_scan_plan_stats(&st, p);
 *     zb_scan_plan_free(p);
 *
 * How. open reads every delete manifest of the snapshot into an index
 * (delete files only: grouped by spec id and partition tuple and sorted
 * by data sequence number, a list of global equality deletes, a map from
 * referenced data file to its deletion vectors and targeted position
 * deletes). next then streams the data manifests, one open at a time,
 * and yields one task per live data file. Memory is the index plus one
 * manifest block: bounded by the number of delete files, not data files
 * (with threads > 1, plus the decoded entries of 2 x threads manifests).
 *
 * Rules applied (spec "Scan Planning"):
 *   - a deletion vector applies to the data file it references when the
 *     data sequence number <= the DV's, same spec and partition; at most
 *     one (ZB_ECORRUPT for two);
 *   - a position delete file applies when data seq <= delete seq, same
 *     spec id and partition tuple, and its referenced_data_file (or its
 *     file_path bounds, field 2147483546, when lower == upper) names the
 *     data file; never when a DV applies;
 *   - an equality delete file applies when data seq < delete seq and the
 *     same spec and partition, or always when its spec is unpartitioned.
 * Paths are the same file when equal, or equal once scheme and
 * authority are stripped ("hdfs://nn:8020/a/b" is "/a/b"): Impala names
 * data files both ways.
 *
 * Filter: a conjunction of simple predicates on field ids. Manifests
 * whose partition summaries, and data files whose partition values or
 * column bounds and counts, show that no row can match are skipped.
 * Conservative: a file that might hold a matching row is always kept.
 * Delete files are never filtered.
 *
 * Codes: ZB_ECORRUPT (a manifest list or manifest that is malformed, a
 * delete manifest holding data files or a data manifest holding delete
 * files, two DVs for one data file, a DV without referenced_data_file),
 * ZB_EINVAL (a filter on an unknown field or with a literal of another
 * type), ZB_ENOMEM, ZB_ECANCELED (stop flag), the FileIO codes.
 */
#ifndef ZB_PLAN_SCAN_PLAN_H
#define ZB_PLAN_SCAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "plan/scan/scan_task.h"
#include "table/value/ice_value.h"
#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "util/arena.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

typedef enum zb_scan_op {
    ZB_SCAN_EQ = 1,     /* field = literal */
    ZB_SCAN_LT,         /* field < literal */
    ZB_SCAN_LE,
    ZB_SCAN_GT,
    ZB_SCAN_GE,
    ZB_SCAN_IS_NULL,    /* literal unused */
    ZB_SCAN_NOT_NULL
} zb_scan_op;

/*
 * One predicate. The literal is of the field's type (an int literal for a
 * long field and a float for a double are accepted); it borrows its
 * bytes, which must outlive the plan. Comparisons never match null rows.
 */
typedef struct zb_scan_pred {
    int32_t field_id;
    zb_scan_op op;
    ice_value literal;
} zb_scan_pred;

typedef struct zb_scan_plan_opts {
    unsigned version;
    /* Path remaps and resolution for manifests, data and delete files;
     * NULL: paths are opened as written. Copied; its strings must
     * outlive the plan. */
    const ice_manifest_opts *manifest;
    /* AND of n_preds predicates; 0: every live data file. Copied. */
    size_t n_preds;
    const zb_scan_pred *preds;
    /* Cap of the delete index (bytes of copied delete file entries);
     * 0: 1 GiB. Past it, open fails with ZB_ENOMEM naming the table. */
    size_t max_index_bytes;
    /* Threads reading and decoding manifests (0 or 1: the caller's thread
     * alone, one manifest at a time). With more, up to 2 x threads
     * manifests are read ahead on a pool and used in manifest-list order:
     * the tasks, their order and the stats are those of one thread. The
     * resolve callback of manifest is then called on those threads. */
    unsigned threads;
} zb_scan_plan_opts;

#define ZB_SCAN_PLAN_OPTS_VERSION 1
#define ZB_SCAN_PLAN_OPTS_INIT                                             \
    { ZB_SCAN_PLAN_OPTS_VERSION, NULL, 0, NULL, 0, 1 }

typedef struct zb_scan_stats {
    uint64_t data_files;          /* tasks yielded */
    uint64_t data_files_skipped;  /* live data files the filter excluded
                                     (in the data manifests it read) */
    uint64_t records;             /* record_count of the yielded files */
    uint64_t data_bytes;          /* file_size_in_bytes of those */
    uint64_t pos_delete_files;    /* live delete files in the index */
    uint64_t eq_delete_files;
    uint64_t dv_files;            /* deletion vectors (entries) */
    uint64_t delete_bytes;        /* their file_size_in_bytes (DVs: blob) */
    uint64_t delete_refs;         /* sum of n_deletes over the tasks */
    /* Delete files that applied to no yielded task so far: at the end of
     * an unfiltered plan, the dangling ones. */
    uint64_t unused_delete_files;
    uint64_t manifests_read;      /* data and delete manifests opened */
    uint64_t manifests_skipped;   /* data manifests the filter excluded */
    uint64_t index_bytes;         /* memory held by the delete index */
} zb_scan_stats;

typedef struct zb_scan_plan zb_scan_plan;

/*
 * Plans snap (a snapshot of meta) and reads its delete manifests. meta
 * and snap must outlive the plan; opts may be NULL. The filter is
 * checked against the current schema (ZB_EINVAL).
 */
int zb_scan_plan_open(zb_scan_plan **out, zb_io *io, zb_ctx *ctx,
                      const ice_metadata *meta, const ice_snapshot *snap,
                      const zb_scan_plan_opts *opts);

/*
 * 1 with *task (and everything it points at) valid until the next call
 * or zb_scan_plan_free, 0 at the end, or an rc (the message names the
 * manifest). After an error the plan only accepts free. The data file
 * is the manifest reader's entry (not a copy: copy what you keep); the
 * delete files are copies held by the plan until it is freed.
 */
int zb_scan_plan_next(zb_scan_plan *p, zb_ctx *ctx, const zb_scan_task **task);

/* Counts so far. */
void zb_scan_plan_stats(zb_scan_stats *out, const zb_scan_plan *p);

void zb_scan_plan_free(zb_scan_plan *p);

/*
 * Deep-copies task into arena (data file, deletes, URIs), for callers that
 * hold several tasks at once (a compaction group). ZB_ENOMEM when the
 * arena is full; out is then partial and must not be used.
 */
int zb_scan_task_copy(zb_scan_task *out, zb_ctx *ctx, zb_arena *arena,
                      const zb_scan_task *task);

/* Whether two paths name the same file (see above). Exposed for tests
 * and for readers matching position delete rows to data files. */
int zb_scan_path_same(const char *a, const char *b);

/* The path without "scheme://authority" (a pointer into path). */
const char *zb_scan_path_strip(const char *path);

/*
 * How many leading bytes of p[0..len) (not NUL-terminated: Arrow string
 * values) are "scheme://authority", or "scheme:" without "//"; 0 when
 * there is no scheme (RFC 3986: a letter, then letters, digits, + - .).
 */
size_t zb_scan_path_prefix_len(const char *p, size_t len);

#endif

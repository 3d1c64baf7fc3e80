/*
 * ops/remove_dangling_deletes.h - remove-dangling-deletes: drop the delete
 * files of the current snapshot that can apply to no live data file.
 *
 *     zb_dangling_opts o = ZB_DANGLING_OPTS_INIT;
 *     zb_dangling_result r = ZB_DANGLING_RESULT_INIT;
 *     rc = zb_remove_dangling_deletes(&target, ctx, &o, &r);
 *     zb_dangling_report(&out, target.ident, &r, target.dry_run);
 *
 * Which files dangle is what the scan planner (plan/scan/scan_plan.h) says
 * applies, so the rule is the one every read uses (format/spec.md "Scan
 * Planning"): a position delete file applies to a live data file of the
 * same spec and partition whose data sequence number is <= its own, and
 * only to its referenced_data_file (or the file its file_path bounds pin)
 * when it names one, and never to a file that has a deletion vector; an
 * equality delete file applies to live data files with a lower data
 * sequence number in its spec and partition, or in any partition when
 * its spec is unpartitioned; a deletion vector applies to its
 * referenced data file. The planner is run over every live data file of
 * the current snapshot; a live delete file that applied to none of them
 * dangles.
 *
 * Removal is per file, in one "replace" snapshot, as Java commits it
 * (table/commit/commit.h ICE_OP_REPLACE with no files added: the rows stay the
 * same; the manifests holding removed files are rewritten with
 * those entries DELETED; manifests left with nothing live are dropped).
 * Its build validates that every removed file is still live; the commit
 * requires the table uuid and main unchanged. A lost race or a failed
 * validation reloads the table, plans again and retries (4 attempts).
 * Deletion vectors are removed by Puffin file: a dangling DV whose file
 * also holds a live DV is counted in kept_shared and stays. After the
 * commit the new snapshot is read back: a removed file still live there
 * is ZB_EUNSAFE. Delete files themselves are not deleted from storage
 * (expire does that once no snapshot reaches them).
 *
 * Codes: ZB_EUNSAFE (above), ZB_ECONFLICT (still losing after the
 * attempts), ZB_ETIMEOUT (unknown outcome; nothing of ours deleted), the
 * planner's, catalog's and FileIO codes.
 */
#ifndef ZB_OPS_DANGLING_H
#define ZB_OPS_DANGLING_H

#include <stdint.h>

#include "ops/ops.h"
#include "util/buf.h"

/* Each field's default is its value in ZB_DANGLING_OPTS_INIT. */
typedef struct zb_dangling_opts {
    unsigned version;              /* ZB_DANGLING_OPTS_VERSION */
    int max_attempts;              /* commits tried; default 0 (<= 0): 4 */
    size_t max_index_bytes;        /* bytes of the planner's delete index;
                                      default 0: 1 GiB */
} zb_dangling_opts;

#define ZB_DANGLING_OPTS_VERSION 1
#define ZB_DANGLING_OPTS_INIT                                              \
    {                                                                      \
        .version = ZB_DANGLING_OPTS_VERSION, .max_attempts = 0,            \
        .max_index_bytes = 0,                                              \
    }

typedef struct zb_dangling_result {
    uint64_t delete_files;         /* live delete files (a DV counts one) */
    uint64_t pos_files, eq_files, dvs;
    uint64_t dangling;             /* applying to no live data file */
    uint64_t removable;            /* dangling and removable */
    uint64_t removable_bytes;      /* file sizes (DVs: their blob) */
    uint64_t whole_manifests;      /* delete manifests left with nothing */
    uint64_t kept_shared;          /* dangling DVs in a shared Puffin file */
    uint64_t removed;              /* removed, or would be (dry run) */
    uint64_t removed_bytes;
    uint64_t data_files;           /* live data files planned */
    int64_t snapshot_id;           /* the snapshot committed, or -1 */
    int committed;
    int attempts;                  /* builds tried */
} zb_dangling_result;

/* Every count 0, no snapshot. */
#define ZB_DANGLING_RESULT_INIT { .snapshot_id = -1 }

int zb_remove_dangling_deletes(const zb_op_target *t, zb_ctx *ctx,
                               const zb_dangling_opts *o,
                               zb_dangling_result *r);

/*
 * "T: no delete files" | "T: N delete file(s), D dangling", then when D
 * > 0 "  R removable (SZ) in M whole manifest(s)" and "  removed|would
 * remove N delete file(s) (SZ)", and "  K deletion vector(s) kept: their
 * Puffin file holds live ones" when K > 0. ZB_OK or ZB_ENOMEM.
 */
int zb_dangling_report(zb_buf *out, const char *table,
                       const zb_dangling_result *r, int dry_run);

#endif

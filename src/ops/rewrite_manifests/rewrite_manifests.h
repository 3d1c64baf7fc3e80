/*
 * ops/rewrite_manifests/rewrite_manifests.h - rewrite-manifests: regroup the current
 * snapshot's manifests by partition (ZAMBONI-INTERFACE.md sections 4, 5).
 *
 *     zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
 *     zb_rewrite_manifests_result r;
 *     rc = zb_rewrite_manifests(&target, ctx, &o, &r);
 *     zb_rewrite_manifests_report(&out, target.ident, &r, target.dry_run);
 *
 * Plan. The live entries of the current snapshot's data manifests (and,
 * separately, of its delete manifests when there are at least
 * min_input_manifests of them; otherwise they are kept as they are) are
 * grouped by (partition spec, partition tuple), the groups sorted by spec
 * and partition bytes, and packed in that order into new manifests of
 * about the target size (entry sizes estimated from paths, metrics and
 * bounds): a group that does not fit the rest of a manifest starts the
 * next one, and a group larger than a whole manifest is split over as
 * many as it needs. Skipped, with the reason in the result, when the
 * snapshot has fewer than min_input_manifests data manifests, or when
 * the new layout has neither fewer manifests nor a lower partition
 * spread (the number of (manifest, partition) pairs: a partition held by
 * three manifests counts three).
 *
 * Target size: opts, else the table property
 * commit.manifest.target-size-bytes (Iceberg's), else
 * write.manifest.target-size-bytes (the name ZAMBONI-INTERFACE.md uses),
 * else 8 MiB. A property that is not a positive byte count aborts with
 * ZB_EUNSAFE (the interface's exit 4) and changes nothing.
 *
 * Write. Every live entry is written EXISTING with its original snapshot
 * id, data and file sequence numbers written out, first_row_id written
 * out when it has one (v3), metrics and partition values as read; DELETED
 * entries are dropped. New manifests are written in passes over the
 * input, at most max_open_writers open at a time (memory: the groups,
 * one input manifest block, the open writers' blocks). The groups and
 * the writers are reserved from ctx->budget (rewrite_manifests_mem.c):
 * the groups waiting as they grow, the writers in a window halved until
 * it fits (more passes, the same manifests). The manifest list
 * holds the new data manifests, the new delete manifests, then the kept
 * ones. One commit: a snapshot with operation "replace" (summary
 * manifests-created, manifests-kept, manifests-replaced,
 * entries-processed, the parent's total-* carried), set-snapshot-ref
 * main; requirements: table uuid, main unchanged. A lost race deletes
 * the attempt's files, reloads and plans again (3 attempts); an unknown
 * outcome (ZB_ETIMEOUT) deletes nothing. Dry run: the plan's counts,
 * nothing written.
 *
 * Codes: ZB_EUNSAFE (bad target property), ZB_ECONFLICT, ZB_ETIMEOUT,
 * ZB_ECORRUPT (a manifest that does not read), ZB_EUNSUPPORTED (a v1
 * snapshot without a manifest list), the catalog's and FileIO codes.
 */
#ifndef ZB_OPS_REWRITE_MANIFESTS_H
#define ZB_OPS_REWRITE_MANIFESTS_H

#include <stdint.h>

#include "ops/ops.h"
#include "ops/table_settings.h"
#include "util/buf.h"

#define ZB_PROP_WRITE_MANIFEST_TARGET "write.manifest.target-size-bytes"

/* Each field's default is its value in ZB_REWRITE_MANIFESTS_OPTS_INIT. */
typedef struct zb_rewrite_manifests_opts {
    unsigned version;              /* ZB_REWRITE_MANIFESTS_OPTS_VERSION */
    /* Data manifests needed to rewrite; default ZB_UNSET: 2
     * (ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS); at least 1. */
    int min_input_manifests;
    int64_t target_bytes;          /* bytes per manifest; default 0 (<= 0):
                                      the properties, else 8 MiB */
    int max_open_writers;          /* default 0 (<= 0): 64 */
    int max_attempts;              /* commits tried; default 0 (<= 0): 3 */
} zb_rewrite_manifests_opts;

#define ZB_REWRITE_MANIFESTS_OPTS_VERSION 1
#define ZB_REWRITE_MANIFESTS_OPTS_INIT                                     \
    {                                                                      \
        .version = ZB_REWRITE_MANIFESTS_OPTS_VERSION,                      \
        .min_input_manifests = ZB_UNSET, .target_bytes = 0,                \
        .max_open_writers = 0, .max_attempts = 0,                          \
    }

typedef struct zb_rewrite_manifests_result {
    int skipped;                   /* nothing to do: see reason */
    char reason[200];
    int64_t target_bytes;
    uint64_t data_manifests;       /* in the current snapshot */
    uint64_t delete_manifests;
    uint64_t entries;              /* live entries rewritten */
    uint64_t data_entries;         /* of them in data manifests */
    uint64_t partitions;           /* (spec, partition) groups rewritten */
    uint64_t new_data_manifests;   /* after (or would be) */
    uint64_t new_delete_manifests;
    uint64_t spread_before;        /* over the rewritten manifests */
    uint64_t spread_after;
    uint64_t manifests_created;    /* Java's RewriteManifests summary */
    uint64_t manifests_kept;
    uint64_t manifests_replaced;
    uint64_t passes;               /* passes over the input to write */
    int64_t snapshot_id;           /* committed, or -1 */
    int committed;
    int attempts;
} zb_rewrite_manifests_result;

int zb_rewrite_manifests(const zb_op_target *t, zb_ctx *ctx,
                         const zb_rewrite_manifests_opts *o,
                         zb_rewrite_manifests_result *r);

/*
 * "T: skipped -- REASON" | "T: N data manifest(s) holding E entries ->
 * M", "  partition spread A -> B", "  manifests A -> B", and with
 * dry_run "  would commit the rewrite". ZB_OK or ZB_ENOMEM.
 */
int zb_rewrite_manifests_report(zb_buf *out, const char *table,
                                const zb_rewrite_manifests_result *r,
                                int dry_run);

#endif

/*
 * ops/compact/compact_options.h - Iceberg's rewrite_data_files options
 * as compaction takes them: each from a flag, else the table config's key,
 * else its default, with where the value came from (the names, kinds and
 * ranges are ops/config/table_config.h's zb_tc_rw_opts).
 *
 *     zb_compact_options r;
 *     zb_compact_options_resolve(&r, &flags, cfg);   (cfg may be NULL)
 *     zb_compact_options_apply(&co, &r);
 *     zb_compact_options_report(&out, &r, &plan);    `zamboni plan`
 *
 *   option (flag; key)               default: meaning
 *   min-file-size-bytes              75% of the target: a smaller file is
 *                                    a candidate
 *   max-file-size-bytes              180% of the target: a larger file is
 *                                    a candidate, even alone, and is split
 *                                    into files of the target
 *   rewrite-all                      false: every live file is a candidate
 *                                    and every group runs, single-file
 *                                    ones included
 *   delete-file-threshold            1 (ours; Iceberg's: no limit): a file
 *                                    with that many delete files is a
 *                                    candidate, even alone
 *   delete-ratio-threshold           0.3: a file whose rows its position
 *                                    deletes and DVs name reach that share
 *                                    is a candidate, even alone
 *   max-file-group-size-bytes        100 GiB: a partition's candidates are
 *                                    cut into groups of at most this
 *   partial-progress.enabled         false (--partial-progress): commit
 *                                    groups as they finish
 *   partial-progress.max-commits     10: the groups go in that many commits
 *   max-files-to-rewrite             no limit: files the run rewrites
 *   rewrite-job-order                none: the order groups run in
 *                                    (bytes-asc, bytes-desc, files-asc,
 *                                    files-desc)
 *   output-spec-id                   the table's default spec
 *   use-starting-sequence-number     true: the new files keep the planned
 *                                    snapshot's sequence number
 * min-input-files (2; Iceberg's: 5) and the target are
 * ops/table_settings.h's settings (they also read table properties).
 */
#ifndef ZB_OPS_COMPACT_OPTIONS_H
#define ZB_OPS_COMPACT_OPTIONS_H

#include "ops/compact/compact.h"
#include "ops/config/table_config.h"
#include "ops/table_settings.h"
#include "util/buf.h"

typedef struct zb_compact_optval {
    double value;                  /* not given: the default's figure
                                      (the size range: -1, from the
                                      target; max files, output spec: -1) */
    zb_tset_origin origin;         /* FLAG, TABLE_CONFIG or DEFAULT */
    int table_entry;               /* TABLE_CONFIG: the table's own block */
} zb_compact_optval;

typedef struct zb_compact_options {
    zb_compact_optval v[ZB_TC_RW_COUNT];
} zb_compact_options;

/* flags (NULL: none), then cfg's block (NULL: no table config). */
void zb_compact_options_resolve(zb_compact_options *out,
                                const zb_tc_rw_values *flags,
                                const zb_tc_effective *cfg);

/* Sets co's fields from the options given (the others keep co's). */
void zb_compact_options_apply(zb_compact_opts *co,
                              const zb_compact_options *r);

/* What the default of id is, in words ("75% of the target"). */
const char *zb_compact_option_default(zb_tc_rw id);

/*
 * The plan's option lines, "  options       : min-file-size-bytes
 * 100663296 (default: 75% of the target)", one an option, the size range
 * as p applied it (p may be NULL). ZB_OK or ZB_ENOMEM.
 */
int zb_compact_options_report(zb_buf *out, const zb_compact_options *r,
                              const zb_compact_plan *p);

#endif

/*
 * ops/compact/compact_evolve.h - partition evolution by compaction (issue 8;
 * ZAMBONI-INTERFACE.md section 3 "partition_evolution", section 4
 * "Evolution (config only) runs first, adds a coarse non-default spec").
 *
 *     zb_compact_evolve_opts eo = ZB_COMPACT_EVOLVE_OPTS_INIT;
 *     eo.rules = block->rules; eo.n_rules = block->n_rules;
 *     eo.compact = base_compact_opts;          // target, branch, ...
 *     zb_compact_evolve_result er;
 *     rc = zb_compact_evolve(&target, ctx, &eo, &er);
 *     // the regular pass must leave evolved files alone:
 *     co.file_filter = zb_compact_evolve_regular_filter;
 *     co.file_filter_payload = &er;
 *     rc = zb_compact(&target, ctx, &co, &r);
 *     zb_compact_evolve_report(&out, ident, &er, target.dry_run);
 *     zb_compact_evolve_result_free(&er);
 *
 * Which fields. The fields of the table's default spec whose transform
 * is hour, day or month (year has nowhere coarser to go) and for which a
 * rule has that transform as "from". Each of them is replaced by the
 * rule's "to" (same source column) in the coarse spec; the other fields
 * are kept as they are (same field ids). A covered field is renamed:
 * a name ending in "_<from>" gets "_<to>" instead, another name gets
 * "_<to>" appended (ts_day -> ts_month). That name must be free (as
 * Java's spec builder requires; compared case-insensitively): no column
 * of the current schema has it (full dotted names, list elements and
 * map keys and values included), nor a field the coarse spec keeps, nor
 * another covered field's new name; when taken, "_1", "_2", ... "_99" is
 * appended (ts_month_1), the first free one; none free: the evolution is
 * skipped as below ("Equality deletes"), r->refused saying so. No
 * covered field: nothing to do.
 *
 * Which partitions are old. A time partition value v of transform T
 * stands for a period of time: hour v = [v h, v+1 h) after the Unix epoch,
 * day v = [v d, v+1 d), month v = the calendar month v months after
 * 1970-01 (UTC), year v = the year 1970 + v. The partition is older than
 * N days when the period has ended N days before now, i.e. when its end
 * (exclusive) <= now - N * 86400 s: every row it can hold is at least N
 * days old. now is t->now_ms (0: the clock). With several covered
 * fields every one must be old; a null value is never old. Only files of
 * the default spec are considered: files already in the coarse spec (or
 * in any other spec) are not evolved again.
 *
 * What is done. The old partitions' files are planned for compaction
 * with output_spec_id = the coarse spec and a file filter that keeps only
 * them (ops/compact/compact.h "Partition evolution": each such file is a
 * candidate, a single one too). When there are some and the coarse spec
 * is not yet in the metadata, an add-spec commit adds it first (not made
 * default: new writes keep the fine spec), with requirements
 * assert-table-uuid and assert-last-assigned-partition-id (a conflict
 * reloads and retries, up to 4 times); a spec equal to it (same source
 * ids and transforms) is reused. Then zb_compact runs those partitions
 * into the coarse spec: rows are carried over unchanged, one "replace"
 * snapshot (or per group with partial_progress). Nothing old: no spec,
 * no commit.
 *
 * Equality deletes. An equality delete applies only to data files of its
 * own spec and partition, or to all when its spec is unpartitioned
 * (format/spec.md "Scan Planning"): rows moved into the coarse spec are
 * out of reach of the equality deletes writers add later in the fine
 * (default) spec, so on a table updated by equality deletes (upserts,
 * CDC) a deleted or replaced row would come back. The evolution is
 * therefore skipped, with r->refused saying why (a warning in the log,
 * "skipped: ..." on the report line; not an error: the rest of the run
 * goes on, the old partitions stay in the fine spec and the regular
 * pass compacts them there), when the current schema has identifier
 * fields (identifier-field-ids) or the branch head has a live equality
 * delete file. The check is made when the run starts: a writer that
 * starts writing equality deletes during the run is not seen.
 *
 * Merge pass. Each run moves each old fine partition on its own, so a
 * coarse partition gets one file per fine partition (and per run). When
 * the coarse spec is in the table, a second zb_compact then runs on the
 * coarse spec's files only (output spec the coarse one, the usual
 * candidate rules: below the target, min_input_files), merging them
 * within their coarse partitions: its own replace snapshot. Hence a
 * second run right after the first finds nothing to do.
 *
 * Dry run (t->dry_run): the coarse spec is added to a copy of the
 * metadata in memory only, the plan is made against it, and nothing is
 * written or committed (not even the spec): the counts are those the run
 * would evolve. The merge pass is planned on the table as it is (the
 * files earlier runs put in the coarse spec, not the ones this run would
 * add).
 *
 * The regular pass that follows must use zb_compact_evolve_regular_filter:
 * it leaves out files of the coarse spec (the regular pass would
 * otherwise rewrite them back into the default spec; the merge pass
 * compacts them) and the old partitions' files of the default spec (so
 * that a preview does not count them twice). A skipped evolution (see
 * "Equality deletes") runs no merge pass, and its regular filter keeps
 * the old partitions' files in and leaves the coarse spec's files (of
 * earlier runs) alone.
 *
 * Not done: chained rules (hour -> day then day -> month) apply one step
 * per field, from the default spec's transform; files of specs other
 * than the default and the coarse one are left to the regular pass.
 *
 * Codes: those of zb_compact, ZB_EINVAL (a rule or spec that does not
 * make sense), ZB_ECONFLICT (the add-spec commit lost every retry).
 */
#ifndef ZB_OPS_COMPACT_EVOLVE_H
#define ZB_OPS_COMPACT_EVOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "ops/compact/compact.h"
#include "ops/config/table_config.h"
#include "util/buf.h"

#define ZB_EVOLVE_MAX_FIELDS 8

/* Each field's default is its value in ZB_COMPACT_EVOLVE_OPTS_INIT. */
typedef struct zb_compact_evolve_opts {
    unsigned version;              /* ZB_COMPACT_EVOLVE_OPTS_VERSION */
    const zb_tc_evolution_rule *rules;  /* borrowed; default NULL: none */
    size_t n_rules;                /* default 0 */
    /* The run's compaction options (target size, branch, partial
     * progress, memory ...); output_spec_id and the file filter are set
     * by the evolution. Default ZB_COMPACT_OPTS_INIT. */
    zb_compact_opts compact;
} zb_compact_evolve_opts;

#define ZB_COMPACT_EVOLVE_OPTS_VERSION 1
#define ZB_COMPACT_EVOLVE_OPTS_INIT                                        \
    {                                                                      \
        .version = ZB_COMPACT_EVOLVE_OPTS_VERSION, .rules = NULL,          \
        .n_rules = 0, .compact = ZB_COMPACT_OPTS_INIT,                     \
    }

/* One covered field of the default spec. */
typedef struct zb_evolve_field {
    size_t index;                  /* in the default spec */
    zb_tc_transform from, to;
    int64_t older_than_days;
    int64_t cutoff_ms;             /* old when the period ends <= this */
    char name[128];                /* its name in the default spec */
    char coarse_name[128];
} zb_evolve_field;

typedef struct zb_compact_evolve_result {
    int applicable;                /* the default spec has covered fields */
    int32_t fine_spec_id;          /* the default spec */
    int32_t coarse_spec_id;        /* -1: not in the table (dry run, or
                                      nothing old) */
    int spec_added;                /* committed an add-spec (or would) */
    size_t n_fields;
    zb_evolve_field fields[ZB_EVOLVE_MAX_FIELDS];
    int ran;                       /* compact ran (not dry) */
    /* What is (dry run: would be) evolved. */
    uint64_t partitions, files, bytes, rows;
    /* What the run did (0 in a dry run). */
    uint64_t files_added, bytes_added, groups_committed;
    zb_compact_result compact;     /* the evolution pass's plan and run */
    zb_compact_result merge;       /* the merge pass's (see above) */
    /* Non-empty: evolution skipped, and why ("Equality deletes"). */
    char refused[384];             /* the longest message, names and all */
    void *priv;                    /* the table copy a dry run planned on */
} zb_compact_evolve_result;

/*
 * Runs the evolution of t's table by the rules (see above). r is filled
 * in every case (free with zb_compact_evolve_result_free). No rule, no
 * covered field or nothing old: ZB_OK with nothing done.
 */
int zb_compact_evolve(const zb_op_target *t, zb_ctx *ctx,
                      const zb_compact_evolve_opts *o,
                      zb_compact_evolve_result *r);

void zb_compact_evolve_result_free(zb_compact_evolve_result *r);

/*
 * 1 when a file of spec_id with f's partition values is old under r's
 * covered fields (an input of the evolution), else 0. payload: r.
 */
int zb_compact_evolve_filter(int32_t spec_id, const ice_data_file *f,
                             void *payload);

/*
 * The filter of the regular pass (payload: r after zb_compact_evolve):
 * 0 for files of the coarse spec and old files of the default spec.
 * Every file passes when r is not applicable.
 */
int zb_compact_evolve_regular_filter(int32_t spec_id, const ice_data_file *f,
                                     void *payload);

/*
 * The end (exclusive, ms from the epoch) of the period partition value v
 * of time transform tr stands for; 0 for a transform that is not hour,
 * day, month or year.
 */
int64_t zb_compact_evolve_period_end_ms(zb_tc_transform tr, int64_t v);

/*
 * The line of section 5, "  evolution LABEL": nothing when r is not
 * applicable; otherwise
 *   "  evolution ts_day -> ts_month (older than 30 days): evolved 12
 *    file(s) in 10 partition(s) into 10 file(s) of spec 1 (spec added)"
 * or "would evolve ..." (dry run) or "no partition old enough" or
 * "skipped: <why>" (see "Equality deletes"), then
 * "; merged N file(s) of spec 1 into M" (or "; would merge N small
 * file(s) already in spec 1") when the merge pass has any.
 */
int zb_compact_evolve_report(zb_buf *out, const zb_compact_evolve_result *r,
                             int dry_run);

#endif

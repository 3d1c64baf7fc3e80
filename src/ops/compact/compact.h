/*
 * ops/compact/compact.h - compaction (issue 8; ZAMBONI-INTERFACE.md sections 1,
 * 3, 4, 5): small and delete-laden data files of a table rewritten into
 * files of the target size, committed as one "replace" snapshot.
 *
 *     zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
 *     o.target_file_bytes = 64 << 20;          (ZB_UNSET: the table's)
 *     zb_compact_result r;
 *     rc = zb_compact(&target, ctx, &o, &r);
 *     zb_compact_report(&out, target.ident, &r, target.dry_run);
 *     zb_compact_result_free(&r);
 *
 * Plan (zb_compact_plan; compact_plan.c). The live data files of the
 * branch head, each with the delete files that apply (plan/scan/scan_plan.h),
 * grouped by (spec id, partition tuple) through the file grouping of
 * plan/group/file_group.h. The rules are Iceberg's rewrite_data_files
 * ones (ops/compact/compact_options.h names each option). A file is a
 * candidate (every file with rewrite_all) when it is below
 * min_file_bytes or above max_file_bytes (it is then split into files of
 * the target), when at least delete_file_threshold delete files apply to
 * it, when the rows its position deletes and deletion vectors name reach
 * delete_ratio of its record count, or when its spec is not the output
 * spec. A partition's candidates are taken largest first and cut into
 * groups of at most max_group_bytes, so that neither the memory nor the
 * work of one group scales with the partition. A group runs when it has
 * min_input_files files, or more than one file and more than a target of
 * bytes, or a file made a candidate by its size above the maximum, its
 * deletes (ours: any delete file applying, even below the thresholds) or
 * its spec, or with rewrite_all; otherwise it is skipped with the
 * reason. The groups that run are ordered by job_order and, with
 * max_files_to_rewrite, taken while their files fit it (the group that
 * crosses it is cut to the files left, largest first). Each group
 * gets a memory estimate: zb_scan_estimate_bytes (the row stream) plus
 * the writer's buffered row group (and the sort's memory), and its slices
 * (see "Slices") with the largest one's estimate.
 *
 * Rewrite (compact_rewrite.c). The group's live rows (deletes applied)
 * are streamed into Parquet files under the table's data location
 * (write.data.path, else <root>/data, then the partition's folder),
 * with the table's write.parquet.* options, rolled when a file reaches
 * the target; the metrics come from the writer. When the group has no
 * deletes, a file whose row groups average at least copy_min_rows rows
 * and whose Parquet schema equals the output schema is copied row group
 * by row group (pq_writer_copy_row_groups) instead of decoded.
 * Verification: rows written must equal the rows the stream read minus
 * the rows deletes removed, and the rows read must equal the record
 * counts the manifests give; a mismatch aborts the group with ZB_EUNSAFE
 * (the message names the table, the partition and both counts) and its
 * files are deleted: nothing of it reaches the table.
 *
 * Threads. A run has one pool of `threads` threads (max_concurrent when
 * that is more; no pool for one) for its work units, with at most
 * max_concurrent groups in flight: a group enters when its first unit
 * starts and leaves when its last one ends.
 *
 * Slices: a group's work units (compact_slice.c). A binpack group whose
 * output spec is its own and whose inputs average at least 64 KiB (below
 * that a file's bytes are mostly footer and headers, no measure of its
 * rows) is cut into runs of consecutive inputs in the plan's order: a slice ends with the input that brings its bytes
 * (file_size_in_bytes) to the target or past it, and the inputs left at
 * the end join the slice before when their bytes are below half the
 * target (a group below 1.5 targets is one slice). The cut depends on the
 * plan alone, so the files written are the same for any number of
 * threads. Each slice has its own reservation (estimated as a group's,
 * over its inputs), row stream and writer. Its files are measured by the
 * input they take (rows at the slice's input bytes per row, row-group
 * copies included): a file rolls at a target of input unless the slice's
 * rows left would make less than half a target, which it then takes too;
 * so a slice makes one file of about its input. The group's outputs are
 * its slices' in slice order, the row counts are verified over all of
 * them, and a failed slice fails its group (every slice's files deleted;
 * its slices not started do not start). Sort and z-order groups are one unit (their files cover
 * disjoint key ranges only as one sorted stream), and so are groups that
 * repartition (each slice would end every output partition it meets in a
 * small file of its own). A group of one unit has its writer encode a row
 * group's column chunks on `threads` threads (pq_writer_opts.threads: the
 * same bytes).
 *
 * Memory. Each unit reserves its estimate from ctx->budget before it
 * reads (one that does not fit waits; one larger than the whole budget
 * runs once it is the only holder) and releases it when its files are
 * written, before the commit (the commit holds no row data; holding the
 * reservations of finished groups until a single final commit would
 * deadlock a run whose groups do not fit at once). Before anything is
 * written, every unit's estimate is checked against
 * max_group_memory_bytes (0: no cap): one above it fails the run with
 * ZB_ENOMEM naming the memory it needs. A sort that must grow while every
 * holder of the budget waits gets ZB_ENOMEM from the budget; its unit is
 * then run again (at most 4 times) with half the input batch and half the
 * sort memory, down to 16 MiB, and the same output: the budget alone does
 * not fail a run.
 *
 * Commit (compact_commit.c). One ICE_OP_REPLACE snapshot for the run,
 * or with partial_progress one per group as groups finish (at most
 * max_commits: groups are batched into that many commits), through
 * zb_catalog_commit_retry. With use_starting_sequence_number (default)
 * the new files carry the data sequence number of the snapshot the plan
 * read, so equality deletes committed since then still apply to the
 * rewritten rows. Each attempt first validates against every snapshot
 * committed since the plan's: a position delete file or deletion vector
 * added against a file being replaced (or, without a referenced data
 * file, in its partition), an equality delete added in its partition when
 * the starting sequence number is not used, or a delete file that
 * applied to it removed: that group is dropped (its files deleted) and
 * the others commit. A data file removed concurrently is the producer's
 * validation conflict: the groups of that commit are dropped. Files are
 * deleted only when the failure is certain; after ZB_ETIMEOUT (unknown
 * outcome) nothing is deleted. Summary: zamboni.operation=compaction,
 * zamboni.removed-data-files, zamboni.added-data-files.
 *
 * Stop: with ctx's stop flag raised no new group starts; groups already
 * written are committed when drain_timeout_ms > 0 (and the commit ends
 * within it), otherwise their files are deleted. Not a failure: ZB_OK
 * with result.stopped set.
 *
 * Sort and z-order (strategy): each group's live rows go through the
 * external merge sort (exec/sort/xsort.h) within sort_memory_bytes of the
 * group's reservation, spilling sorted runs to TMPDIR, and the sorted
 * stream is cut into files at the target: every output file is sorted,
 * and the files of a group cover disjoint key ranges. The table's sort
 * order takes identity fields only (other transforms: ZB_EUNSUPPORTED).
 *
 * Partition evolution: the output spec is output_spec_id, else the
 * table's default spec. Files of another spec are always candidates (a
 * single one runs too); their rows get their partition values under the
 * output spec from the source columns and transforms (compact_repart.c)
 * and go to one output per partition met, each rolled at the target.
 *
 * Row lineage (v3; format/spec.md "Row Lineage"): each output row keeps
 * its _row_id and _last_updated_sequence_number, written as the columns
 * of field ids 2147483540 and 2147483539 after the schema's fields: the
 * input file's value when it has a non-null one, else the value the row
 * inherited there (the file's first_row_id + its position; the file's
 * data sequence number), as the row stream's lineage option reads them
 * (plan/read/scan_read.h, ZB_LINEAGE_REWRITE); a file without a first_row_id
 * (from before an upgrade to v3, no snapshot since) has no _row_id, so
 * its rows get ids of the new file, but keeps its data sequence number
 * as their _last_updated_sequence_number (what they inherit after any
 * later commit; the spec's readers give null while it lacks one). Rows
 * deleted are not written: their ids are gone. The sort strategies carry
 * both columns through the sort. A file is copied row group by row group
 * only when it has both columns with no null in any row group (by the
 * footer's null counts), the output schema checked as for any copy. The
 * new files are added with a null first_row_id, so the replace snapshot
 * assigns the new manifests first_row_ids from next-row-id and advances
 * it as any commit does (table/commit/commit.h); the rows' ids are the written
 * ones. reset_row_lineage skips all this (no lineage columns: the rows
 * get new ids, and _last_updated_sequence_number that of the new files).
 *
 * The partition_evolution rules of the table config are
 * ops/compact/compact_evolve.h: it adds the coarser spec and runs this with
 * output_spec_id and a file_filter that keeps only the old partitions.
 *
 * Codes: ZB_EUNSAFE (a row-count mismatch), ZB_ENOMEM (a unit above
 * max_group_memory_bytes), ZB_EUNSUPPORTED (a sort order), ZB_ECONFLICT (every
 * group dropped by conflicts), ZB_ETIMEOUT (unknown commit outcome), the
 * catalog's, planner's, reader's and FileIO codes.
 */
#ifndef ZB_OPS_COMPACT_H
#define ZB_OPS_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "ops/ops.h"
#include "plan/scan/scan_task.h"
#include "table/value/ice_value.h"
#include "util/arena.h"
#include "util/buf.h"

#include "ops/table_settings.h"

#define ZB_COMPACT_MAX_GROUP_DEFAULT ((uint64_t)100 << 30)

typedef enum zb_compact_strategy {
    ZB_COMPACT_BINPACK = 0,        /* rows in stream order */
    ZB_COMPACT_SORT,               /* by columns or the table's order */
    ZB_COMPACT_ZORDER              /* by the Morton order of columns */
} zb_compact_strategy;

/* One sort column: a field id of the table's current schema (a
 * primitive, top-level or inside structs). */
typedef struct zb_compact_sort_field {
    int32_t field_id;
    int descending;
    int nulls_first;               /* 0: nulls last */
} zb_compact_sort_field;

/*
 * Each field's default is its value in ZB_COMPACT_OPTS_INIT. "Unset"
 * (ZB_UNSET, ops/table_settings.h) leaves a setting to the table's
 * properties and the built-in default. Test-only hooks are in
 * ops/compact/compact_hooks.h, not here.
 */
typedef struct zb_compact_opts {
    unsigned version;              /* ZB_COMPACT_OPTS_VERSION */
    /* Bytes; default ZB_UNSET: write.parquet.target-file-size-bytes,
     * write.target-file-size-bytes, else 128 MiB (ZB_TSET_TARGET_FILE_
     * SIZE); a value below 100 is raised to 100. */
    int64_t target_file_bytes;
    /* Files a group needs to run; default ZB_UNSET: 2; at least 1. */
    int min_input_files;
    int rewrite_all;               /* default 0; 1: every live file is a
                                      candidate, and every group runs */
    /* Bytes; a file below is a candidate; default ZB_UNSET: 75% of the
     * target. */
    int64_t min_file_bytes;
    /* Bytes; a file above is a candidate, split at the target; default
     * ZB_UNSET: 180% of the target. */
    int64_t max_file_bytes;
    /* Delete files applying to a file that make it a candidate; default
     * 1 (ours: any delete file; Iceberg's: no limit); <= 0: off. */
    int delete_file_threshold;
    /* Fraction of a file's rows its position deletes and DVs remove
     * that makes it a candidate when reached; default 0.3; <= 0: off. */
    double delete_ratio;
    /* Files the run rewrites at most; default 0: no limit. */
    int64_t max_files_to_rewrite;
    /* Order of the groups (zb_tc_job_order of ops/config/table_config.h);
     * default 0: none, the plan's order. */
    int job_order;
    uint64_t max_group_bytes;      /* bytes; default 0: 100 GiB */
    int32_t output_spec_id;        /* default -1: the table's default spec */
    int partial_progress;          /* default 0; 1: commit groups as they
                                      finish */
    int max_commits;               /* partial progress; default 10; <= 0:
                                      10 */
    int max_concurrent;            /* groups at once; default 1; <= 0: 1 */
    /* Threads the run may keep busy (groups, a group's slices, a
     * writer's column chunks); default 1; <= 0: 1; max_concurrent when
     * that is more. The CLI passes the cores rule of exec/pool.h or
     * --threads. */
    int threads;
    int use_starting_seq;          /* default 1; 0: the new sequence number */
    uint64_t max_group_memory_bytes; /* bytes a work unit may need;
                                        default 0: no cap */
    long drain_timeout_ms;         /* ms after a stop; default 0: abandon
                                      at once */
    const char *branch;            /* default NULL: "main" */
    uint64_t copy_min_rows;        /* rows per row group for a row-group
                                      copy; default 0: 100000 */
    int reset_row_lineage;         /* v3; default 0; 1: do not keep row
                                      lineage (the rows get new row ids) */
    size_t batch_rows;             /* rows; default 0: from the target,
                                      <= 65536 */
    zb_compact_strategy strategy;  /* default binpack; sort, zorder */
    /* SORT: the columns (default NULL: the table's default sort order,
     * whose order id then stamps the new files); ZORDER: 2..16 columns. */
    const zb_compact_sort_field *sort_fields;
    size_t n_sort_fields;          /* default 0 */
    unsigned zorder_bits;          /* bits; default 0: 16; columns * bits
                                      <= 62 */
    /* Bytes for a group's sort; default 0: 128 MiB, less where the group
     * would not fit max_group_memory_bytes (or the budget's limit), down
     * to 16 MiB. */
    uint64_t sort_memory_bytes;
    /* Bytes of a group's equality-delete key sets before they spill to
     * TMPDIR (plan/read/scan_read.h eq_memory_bytes); default 0: 64 MiB. */
    uint64_t eq_memory_bytes;
    /* Which live data files may be planned at all (default NULL: every
     * one): a file for which this returns 0 is neither a candidate nor
     * counted against min_input_files; it stays as it is. spec_id: the
     * spec of f's partition values. Partition evolution
     * (ops/compact/compact_evolve.h) restricts a run to old partitions with it. */
    int (*file_filter)(int32_t spec_id, const ice_data_file *f,
                       void *payload);
    void *file_filter_payload;     /* default NULL */
} zb_compact_opts;

#define ZB_COMPACT_OPTS_VERSION 1
#define ZB_COMPACT_OPTS_INIT                                               \
    {                                                                      \
        .version = ZB_COMPACT_OPTS_VERSION,                                \
        .target_file_bytes = ZB_UNSET,                                     \
        .min_input_files = ZB_UNSET,                                       \
        .rewrite_all = 0,                                                  \
        .min_file_bytes = ZB_UNSET,                                        \
        .max_file_bytes = ZB_UNSET,                                        \
        .delete_file_threshold = 1,                                        \
        .delete_ratio = 0.3,                                               \
        .max_files_to_rewrite = 0,                                         \
        .job_order = 0,                                                    \
        .max_group_bytes = 0,                                              \
        .output_spec_id = -1,                                              \
        .partial_progress = 0,                                             \
        .max_commits = 10,                                                 \
        .max_concurrent = 1,                                               \
        .threads = 1,                                                      \
        .use_starting_seq = 1,                                             \
        .max_group_memory_bytes = 0,                                       \
        .drain_timeout_ms = 0,                                             \
        .branch = NULL,                                                    \
        .copy_min_rows = 0,                                                \
        .reset_row_lineage = 0,                                            \
        .batch_rows = 0,                                                   \
        .strategy = ZB_COMPACT_BINPACK,                                    \
        .sort_fields = NULL,                                               \
        .n_sort_fields = 0,                                                \
        .zorder_bits = 0,                                                  \
        .sort_memory_bytes = 0,                                            \
        .eq_memory_bytes = 0,                                              \
        .file_filter = NULL,                                               \
        .file_filter_payload = NULL,                                       \
    }

/* Why a file is a candidate (a file may have several). */
enum {
    ZB_COMPACT_WHY_SMALL,          /* below min_file_bytes */
    ZB_COMPACT_WHY_LARGE,          /* above max_file_bytes: split */
    ZB_COMPACT_WHY_DELETE_FILES,   /* delete_file_threshold reached */
    ZB_COMPACT_WHY_DELETE_RATIO,   /* delete_ratio reached */
    ZB_COMPACT_WHY_SPEC,           /* not the output spec */
    ZB_COMPACT_WHY_ALL,            /* rewrite_all, none of the above */
    ZB_COMPACT_WHY_COUNT
};

/* Group states after a run. */
typedef enum zb_compact_state {
    ZB_GROUP_PLANNED = 0,
    ZB_GROUP_WRITTEN,              /* files written, not committed */
    ZB_GROUP_COMMITTED,
    ZB_GROUP_DROPPED,              /* conflict or stop: files deleted */
    ZB_GROUP_FAILED
} zb_compact_state;

typedef struct zb_compact_group {
    int32_t spec_id;
    int32_t out_spec_id;           /* the outputs' (the rows repartitioned
                                      when it differs) */
    const char *partition;         /* "(20671)", "()" when unpartitioned */
    size_t n_tasks;
    zb_scan_task *tasks;           /* copies, in the plan's arena */
    uint64_t bytes;                /* file_size_in_bytes of the inputs */
    uint64_t rows;                 /* their record counts */
    uint64_t delete_files;         /* delete files applying (with repeats) */
    uint64_t est_memory_bytes;
    uint64_t est_out_files;        /* ceil(bytes / target) */
    size_t n_slices;               /* work units (see "Slices") */
    uint64_t est_slice_memory_bytes; /* the largest unit's estimate */
    /* After a run. */
    zb_compact_state state;
    uint64_t out_files, out_bytes, out_rows;
    uint64_t rows_read, rows_deleted;
    uint64_t copied_files;         /* inputs taken by row-group copy */
    unsigned read_workers;         /* most threads that decoded a slice's
                                      inputs ahead of its writer (1: the
                                      writer's own thread) */
    uint64_t sort_runs, sort_spilled_bytes; /* the sort's (exec/sort/xsort.h) */
    uint64_t eq_spilled;           /* equality key sets that spilled */
    ice_data_file *outputs;        /* n = out_files, in the run's arena */
    /* Issue 21, carried deletes (ops/compact/compact_carry.h): the
     * group's position map (its slices' runs in the run's arena) or why
     * it has none; after the commit, what was carried and, when the group
     * was dropped, why. */
    struct zb_carry_run *carry_runs;
    size_t n_carry_runs;
    const char *carry_lost;
    /* Sort and z-order: the spilled map instead of runs
     * (ops/compact/compact_carry_sorted.h), closed after its wave's
     * commit. */
    struct zb_carry_sorted *carry_sorted;
    uint64_t carried_deletes;      /* concurrent delete files carried */
    uint64_t carried_rows;         /* rows the carried deletes hide */
    char dropped_why[192];
    /* Why its files were chosen: counts by ZB_COMPACT_WHY_* bit. */
    uint32_t why[ZB_COMPACT_WHY_COUNT];
    unsigned *task_why;            /* per task: its 1u << ZB_COMPACT_WHY_*
                                      bits (in the plan's arena) */
    const char *note;              /* NULL, or "partition cut by ..." */
} zb_compact_group;

typedef struct zb_compact_skip {
    int32_t spec_id;
    const char *partition;
    size_t candidates;
    const char *reason;            /* "< min_input_files=2", "single..." */
} zb_compact_skip;

typedef struct zb_compact_plan {
    const char *ident;
    int64_t snapshot_id;           /* planned from; -1: empty table */
    int64_t sequence_number;       /* of that snapshot */
    int format_version;
    int64_t target_file_bytes;
    size_t n_groups;
    zb_compact_group *groups;
    size_t n_skipped;
    zb_compact_skip *skipped;
    uint64_t live_files;           /* live data files seen */
    int64_t min_file_bytes, max_file_bytes; /* as applied */
    /* Live files that are no candidate: size within [min, max], no
     * deletes over the thresholds (kept_deletes: with delete files
     * below them), and those the file filter left out. */
    uint64_t kept_in_range, kept_deletes, kept_filtered;
    uint64_t capped_files;         /* left out by max_files_to_rewrite */
    uint64_t files, bytes, rows;   /* of the groups */
    uint64_t est_out_files;
    uint64_t est_peak_memory_bytes;/* largest group estimate */
    /* The most one work unit needs that cannot spill: its estimate
     * without the sort's memory (a sort spills to TMPDIR down to
     * ZB_COMPACT_SORT_MIN_BYTES; equality-delete key sets past their cap).
     * A worker class smaller than this cannot run the plan (issue 17). */
    uint64_t est_unspillable_bytes;
    zb_arena *arena;               /* owns everything above */
} zb_compact_plan;

typedef struct zb_compact_result {
    zb_compact_plan plan;
    uint64_t groups_committed, groups_dropped, groups_failed;
    uint64_t files_removed, bytes_removed;
    uint64_t files_added, bytes_added;
    uint64_t rows_written;
    uint64_t commits;
    int64_t snapshot_id;           /* last committed, or -1 */
    int stopped;                   /* a stop request ended the run early */
    uint64_t dangling_deletes;     /* delete files that applied only to
                                      removed files (not removed here) */
    /* Issue 21: groups committed with concurrent deletes carried onto
     * their new files, those delete files, and the rows they hide. */
    uint64_t groups_carried, carried_deletes, carried_rows;
} zb_compact_result;

/*
 * Plans t's table: fills *plan (free with zb_compact_plan_free). The
 * table is loaded from t->catalog; *table_out (may be NULL) gets it.
 */
int zb_compact_plan_table(zb_compact_plan *plan, zb_table **table_out,
                          const zb_op_target *t, zb_ctx *ctx,
                          const zb_compact_opts *o);

/* The same on a loaded table (borrowed; must outlive the plan). */
int zb_compact_plan_build(zb_compact_plan *plan, zb_io *io, zb_ctx *ctx,
                          const zb_table *table, const zb_compact_opts *o);

void zb_compact_plan_free(zb_compact_plan *plan);

/* The target size o and the table's properties give (see opts), as
 * zb_tset_resolve(ZB_TSET_TARGET_FILE_SIZE) gives it. */
int64_t zb_compact_target_bytes(const zb_compact_opts *o,
                                const ice_metadata *m);

/*
 * Plans, and (without t->dry_run) rewrites and commits. r is filled in
 * every case (free with zb_compact_result_free).
 */
int zb_compact(const zb_op_target *t, zb_ctx *ctx, const zb_compact_opts *o,
               zb_compact_result *r);

void zb_compact_result_free(zb_compact_result *r);

/*
 * The plan lines (section 5 "plan"): "T: G group(s), F file(s), target B
 * bytes, snapshot S", "  group i: spec=0 partition=(20671) files=4
 * bytes=3768 rows=2000 est-files=1 est-memory=..." and the skipped ones.
 */
int zb_compact_plan_report(zb_buf *out, const char *table,
                           const zb_compact_plan *p);

/* One line per file of each group, "  group 1 file PATH bytes=N
 * deletes=D: below min-file-size-bytes, ..." (`zamboni plan --verbose`). */
int zb_compact_plan_files_report(zb_buf *out, const zb_compact_plan *p);

/*
 * The compact lines (section 5 "compact"): "T: rewrote N file(s) (B
 * bytes) into M (B bytes) across K compaction group(s)" or "T: no
 * groups", then skipped and warnings; with dry_run the plan lines and
 * the trailer-free "  would rewrite ..." line.
 */
int zb_compact_report(zb_buf *out, const char *table,
                      const zb_compact_result *r, int dry_run);

#endif

/*
 * plan/read/scan_read.h - the row stream: the live rows of a group of scan
 * tasks (plan/scan/scan_task.h), each data file projected to one read schema
 * and every delete that applies to it removed, in Arrow batches; and the
 * memory estimate for reading such a group.
 *
 *     zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
 *     o.meta = meta;                      table metadata (borrowed)
 *     o.schema = ice_metadata_current_schema(meta);   or the snapshot's
 *     zb_rowstream *rs = NULL;
 *     if ((rc = zb_rowstream_open(&rs, io, ctx, &o, tasks, n_tasks)) < 0) ...
 *     struct ArrowSchema sch;             the batches' schema (optional)
 *     zb_rowstream_schema(&sch, rs, ctx);
 *     struct ArrowArray batch;
 *     while ((rc = zb_rowstream_next(rs, ctx, &batch, NULL)) == 1) {
 *         use(batch);                     a struct array, one live row a slot
 *         batch.release(&batch);
 *     }
 *     const zb_read_counts *c = zb_rowstream_counts(rs);
 *     zb_rowstream_free(rs);
 *
 * Rows. Tasks are read in the order given, each data file's rows in file
 * order; a batch never spans two data files and holds at most batch_rows
 * rows (a batch may hold fewer, never zero). Each batch is a struct array
 * ("+s") of the read schema's top-level fields (or the projected ones, in
 * the order of opts.field_ids), named as in the read schema and carrying
 * "PARQUET:field_id" metadata, with the Arrow types:
 *     boolean b, int i, long l, float f, double g, decimal(P,S) d:P,S
 *     (128-bit), date tdD, time ttu, timestamp tsu:, timestamptz tsu:UTC,
 *     timestamp_ns tsn:, timestamptz_ns tsn:UTC, string u, binary z,
 *     fixed(L) w:L, uuid w:16 (with ARROW:extension:name arrow.uuid),
 *     unknown n, geometry and geography z (WKB), variant +s of two
 *     binary children metadata and value (ARROW:extension:name
 *     arrow.parquet.variant; shredded variants are not read yet),
 *     struct +s, list +l, map +m (entries struct of key, value).
 * Fields are found in each data file by field id at every depth. A file
 * without field ids is matched through the table property
 * schema.name-mapping.default (without one: by the current names). A
 * field the file lacks reads as its
 * initial-default (v3, JSON text in ice_field.initial_default) or null;
 * an identity-partition source field the file lacks (Hive-migrated files)
 * reads as the file's partition value. Values written under an older type
 * are promoted as format/spec.md "Schema Evolution" allows: int to long,
 * float to double, decimal(P,S) to decimal(P',S) with P' > P, date to
 * timestamp / timestamp_ns (midnight UTC); also the narrower physical
 * forms readers meet (int8/int16 to int, timestamp millis to micros,
 * time millis to micros, INT96 timestamps). A required primitive field
 * the file lacks, with no partition value or initial-default, is
 * ZB_ECORRUPT; a type change the spec does not allow ZB_EUNSUPPORTED;
 * both name the file and the field.
 *
 * Deletes, as format/spec.md "Row-level deletes" and scan planning define
 * them. The stream trusts the planner's choice of delete files per task
 * (sequence numbers, partitions) and does not filter them again.
 *   - Position delete files (file_path 2147483546, pos 2147483545): the
 *     rows whose file_path names this data file, compared as written or,
 *     failing that, with scheme and authority stripped from both sides
 *     ("hdfs://nn:8020/a/b" equals "/a/b"). Rows with a null file_path or
 *     pos match nothing and are counted in null_position_deletes. Each
 *     delete file is read once per stream, however many tasks name it.
 *   - Deletion vectors (v3): the Puffin blob at content_offset /
 *     content_size_in_bytes of the delete file, a Roaring 64 bitmap in the
 *     portable format (format/puffin-spec.md deletion-vector-v1).
 *   - Equality delete files: one key set of the delete rows' key bytes
 *     (each key value promoted to the read schema's type and encoded
 *     canonically with a null marker, so int 5 in an old file equals long
 *     5, null equals null, and floats compare by bits with NaNs folded to
 *     one), each key prefixed by its scope: the files of one set of
 *     equality_ids that apply to the same tasks, or, when they apply
 *     across the group exactly to the tasks of lower sequence number
 *     (upserts), all of them, with the largest sequence number per key
 *     (one lookup per row however many commits wrote deletes). The key
 *     set's memory is reserved from ctx->budget, at most eq_memory_bytes;
 *     when it does not fit, it spills into hash partitions (exec/spill.h:
 *     $TMPDIR); the data files' key columns are then read once, each
 *     row's key written to the spill file of its partition, and each
 *     partition of the set is loaded in turn to look those keys up and
 *     mark deleted positions (a bit per row of each data file) before the
 *     final read.
 * A row deleted both by position and by equality is counted once, as a
 * position delete.
 *
 * Row lineage (v3; format/spec.md "Row Lineage"). With opts.lineage the
 * batches end with two optional long fields, "_row_id" (field id
 * 2147483540) and "_last_updated_sequence_number" (2147483539). Each
 * row's value is the data file's column of that field id when the file
 * has it and the row's value there is not null (int columns widen);
 * otherwise it is inherited: _row_id = the file's first_row_id (after
 * manifest inheritance) + the row's position in the file, and
 * _last_updated_sequence_number = the file's data sequence number. A
 * file whose first_row_id is null (a snapshot from before an upgrade to
 * v3, not yet committed over) inherits null for both: the reader rule
 * of the spec's version 3 changes (row lineage: a null first_row_id
 * gives null in both columns; Java's readers do the same). With
 * opts.lineage = ZB_LINEAGE_REWRITE, for a writer that moves the rows to
 * new files, such a file's rows inherit the data sequence number as
 * _last_updated_sequence_number all the same (_row_id stays null, so
 * the rows get ids of the new file): the rewrite does not modify the
 * rows, and that is the value they inherit anyway once any snapshot
 * after the upgrade assigns the file a first_row_id ("Row Lineage for
 * Upgraded Tables": existing rows inherit it from their data file).
 * Deleted rows are dropped as usual; the positions are those of the
 * file, deleted rows included. A lineage column of another type is
 * ZB_ECORRUPT naming the file.
 *
 * Counts (zb_rowstream_counts): rows_read = rows_out + deleted_by_position
 * + deleted_by_equality holds after every batch (asserted).
 *
 * Memory: batches of batch_rows rows; position deletes hold 8 bytes per
 * matching delete row; equality deletes the key set (above) and, when it
 * spilled, a bit per row of the data files they apply to. The key set
 * takes its memory from ctx->budget without waiting (zb_budget_try_grow)
 * and so do the equality marks (refused, they go unreserved: waiting
 * could deadlock on memory the same task holds). The position lists and
 * DV bitmaps (8 bytes a deleted position, plus the largest DV blob twice)
 * are reserved at open, before anything else is held, waiting when they
 * do not fit (they cannot be built in pieces) unless the group has
 * equality deletes, whose key set also reserves: then a refused
 * reservation leaves them unreserved, logged. The Parquet
 * readers reserve their row groups from ctx->budget, waiting, but only
 * while the stream holds nothing there itself; otherwise they read
 * unreserved. A caller that reserves for the whole group up front
 * (zb_scan_estimate_bytes) should give the stream a ctx without a budget.
 *
 * Stop: ctx's stop flag is checked before each batch and while reading
 * delete files; a raised flag makes the call return ZB_ECANCELED.
 *
 * Codes: ZB_ECORRUPT (malformed data or delete files: the message names
 * the file), ZB_EUNSUPPORTED (a file format other than Parquet, a type
 * change the spec does not allow, shredded variants), ZB_ENOMEM, ZB_EIO,
 * ZB_ENOTFOUND, ZB_ECANCELED, ZB_EINVAL (broken options).
 */
#ifndef ZB_PLAN_SCAN_READ_H
#define ZB_PLAN_SCAN_READ_H

#include <stddef.h>
#include <stdint.h>

#include "exec/arrow/arrow.h"
#include "plan/scan/scan_task.h"
#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

typedef struct zb_rowstream zb_rowstream;

typedef struct zb_rowstream_opts {
    unsigned version;
    /* The table: format version, partition specs, properties (name
     * mapping). Borrowed; must outlive the stream. Required. */
    const ice_metadata *meta;
    /* The read schema: the snapshot's or the current one. NULL: the
     * table's current schema. Borrowed. */
    const ice_schema *schema;
    /* Top-level field ids to return, in this order; NULL: every
     * top-level field of the read schema. Copied. */
    const int32_t *field_ids;
    size_t n_field_ids;
    /* Resolves paths of scan files whose uri is NULL (remaps, resolve
     * callback); NULL: file_path is opened as written. Copied shallowly:
     * its strings must outlive the stream. */
    const ice_manifest_opts *paths;
    size_t batch_rows;             /* rows per batch, at most; 0: 65536 */
    /* Most memory an equality-delete key set may hold before it spills;
     * 0: no limit of its own (the budget's reservation still applies). */
    uint64_t eq_memory_bytes;
    /* ZB_LINEAGE_READ or ZB_LINEAGE_REWRITE: two more fields after the
     * others, the row lineage columns (see "Row lineage" above); 0:
     * none. */
    int lineage;
} zb_rowstream_opts;

#define ZB_LINEAGE_READ 1
#define ZB_LINEAGE_REWRITE 2

#define ZB_ROWSTREAM_OPTS_VERSION 1
#define ZB_ROWSTREAM_OPTS_INIT \
    { ZB_ROWSTREAM_OPTS_VERSION, NULL, NULL, NULL, 0, NULL, 65536, 0, 0 }

/* Reserved field ids of the row lineage columns (format/spec.md
 * "Reserved Field IDs"). */
#define ZB_ROW_ID_FIELD_ID 2147483540
#define ZB_LAST_UPDATED_SEQ_FIELD_ID 2147483539

typedef struct zb_read_counts {
    uint64_t rows_read;            /* rows of the data files read so far */
    uint64_t deleted_by_position;  /* position delete files and DVs */
    uint64_t deleted_by_equality;
    uint64_t rows_out;             /* rows returned in batches */
    uint64_t null_position_deletes;/* delete rows with a null file_path/pos */
    uint64_t data_files;           /* data files finished */
    uint64_t eq_spilled;           /* 1 if an equality key set spilled */
    uint64_t eq_partition_passes;  /* partitions of a spilled set looked up */
} zb_read_counts;

/*
 * Opens a stream over tasks[0..n_tasks) (borrowed: tasks, their files and
 * strings must outlive the stream). Reads the position delete files and
 * DVs of the group, builds the equality key sets (spilling and marking
 * as needed), and opens nothing else until the first zb_rowstream_next.
 * n_tasks may be 0 (the stream is empty).
 */
int zb_rowstream_open(zb_rowstream **out, zb_io *io, zb_ctx *ctx,
                      const zb_rowstream_opts *opts,
                      const zb_scan_task *tasks, size_t n_tasks);

/*
 * The Arrow schema of the batches (see above); the caller releases it.
 * Fails only with ZB_ENOMEM.
 */
int zb_rowstream_schema(struct ArrowSchema *out, zb_rowstream *rs,
                        zb_ctx *ctx);

/*
 * The next batch of live rows: 1 with *out set (the caller releases it),
 * 0 at the end, or a negative rc (the message names the data or delete
 * file). schema, when not NULL, receives the batch's Arrow schema on 1
 * (the same for every batch; the caller releases it). After an error the
 * stream can only be freed.
 */
int zb_rowstream_next(zb_rowstream *rs, zb_ctx *ctx, struct ArrowArray *out,
                      struct ArrowSchema *schema);

/* The counts so far (borrowed, valid until zb_rowstream_free). */
const zb_read_counts *zb_rowstream_counts(const zb_rowstream *rs);

/* Index into tasks of the data file the last batch came from. */
size_t zb_rowstream_task_index(const zb_rowstream *rs);

/*
 * The rows of the last batch as positions of its data file (a rewrite's
 * position map, ops/compact/compact_carry_map.h): batch row i is at
 * position *pos0 + (*sel ? (*sel)[i] : i), for i < *nsel. Valid until
 * the next zb_rowstream_next.
 */
void zb_rowstream_last_rows(const zb_rowstream *rs, uint64_t *pos0,
                            const uint32_t **sel, size_t *nsel);

void zb_rowstream_free(zb_rowstream *rs);

/*
 * The memory estimate for reading tasks[0..n) with their deletes, from
 * the manifests' record counts and file sizes alone (no file is opened):
 *
 *   read     = max over data files of min(file_size, row-group bound) * 2
 *              (compressed chunks of one row group + decoded pages), the
 *              row-group bound being 128 MiB, plus batch_rows * row_width
 *              * 8 (the batch being decoded, the one built and the one
 *              returned, with decoding overhead), row_width being the
 *              file's compressed bytes per record (at least 8; 64 when the
 *              count is 0);
 *   position = 16 bytes per record of every distinct position delete file
 *              and DV (the sorted position lists and their growth);
 *   equality = per distinct equality delete file, record_count *
 *              (48 + 16 * n_equality_ids) bytes: the hash slot, the entry
 *              header and key bytes at 16 per key column, the table kept
 *              at most half full;
 *   total    = read + position + equality.
 * With eq_memory_bytes non-zero the equality part is capped at it (the rest
 * spills) plus what spilling holds: 2 MiB of spill-file buffers and a bit per
 * row of the data files. Returns the total; *parts (may be NULL) gets the three
 * parts. Deliberately generous: compaction reserves this much and the worker
 * size classes are chosen from it.
 */
typedef struct zb_scan_estimate {
    uint64_t read_bytes;
    uint64_t position_bytes;
    uint64_t equality_bytes;
    uint64_t total_bytes;
} zb_scan_estimate;

uint64_t zb_scan_estimate_bytes(const zb_scan_task *tasks, size_t n,
                                size_t batch_rows, uint64_t eq_memory_bytes,
                                zb_scan_estimate *parts);

#endif

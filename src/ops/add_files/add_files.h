/*
 * ops/add_files/add_files.h - registering existing Parquet files as data files
 * of a table, without rewriting them (what Spark's add_files procedure and
 * PyIceberg's Table.add_files do): `zamboni add-files TABLE --source DIR`.
 *
 *     zb_op_target t = { cat, io, "db.events", 0, 0 };
 *     zb_add_files_opts o = ZB_ADD_FILES_OPTS_INIT;
 *     zb_add_files_result r;
 *     o.source = "/data/events";
 *     rc = zb_add_files(&t, ctx, &o, &r);
 *     zb_add_files_report(&out, t.ident, &r, t.dry_run);
 *
 * Source: a directory or prefix, listed recursively, or one file. Names
 * starting with '.' or '_' (_SUCCESS, .crc files) are skipped, and so is
 * every file inside a hidden or temporary directory below the source (a
 * name starting with '.', or with '_' and holding no '=': .spark-staging,
 * _temporary; as Spark's and Hive's listings do); a name ending in
 * ".parquet" is Parquet; any other file is Parquet when it starts and
 * ends with "PAR1", else it is skipped. Skipped files are counted. Local
 * paths (file: URIs too) become plain absolute paths ("/x/a.parquet"),
 * the one form the table names them in; other URIs are kept as listed.
 *
 * Field ids. A file whose top-level columns carry field ids is read by
 * them: every id must be a field of the table's current schema, else the
 * file is refused. A file without ids is mapped by column name through
 * the table's schema.name-mapping.default; a table without one gets a
 * mapping of its current schema's names, set in the same commit. Columns
 * that map to no field (at any depth) are refused, naming the file and
 * the columns: their data would be lost. Every mapped leaf's Parquet type must
 * be readable as its Iceberg type (an int64 column for an int field is
 * refused, naming the file and column), and a required top-level field
 * must be present (unless an identity partition path gives its value).
 *
 * Metrics (counts, bounds, column sizes, split offsets) come from each
 * footer's column-chunk statistics, merged over row groups, mapped to the
 * field ids and kept as the table's write.metadata.metrics.* say (as
 * Iceberg Java's footer metrics). NaN counts are not in a footer: absent.
 *
 * Partition values, for the table's default spec, per field:
 *   - identity: a `name=value` directory between the source and the file
 *     (name: the partition field's or the source column's), URL-decoded,
 *     __HIVE_DEFAULT_PARTITION__ for null; when the file holds the
 *     column too, its bounds must equal that value (else refused);
 *   - otherwise (and identity without such a directory): the transform of
 *     the source column's lower and upper bounds (full, not truncated),
 *     which must agree; a column of only nulls gives null. A transform
 *     that does not keep order (bucket: all but identity, truncate, year,
 *     month, day, hour) needs lower == upper. A file whose values span
 *     several partitions, or without statistics for a source column, is
 *     refused, naming the file and the field;
 *   - void: null.
 * A `name=value` directory naming a top-level column that no identity
 * partition field takes is refused unless the file holds that column
 * with every value equal to the directory's (or lacks it and the value
 * is __HIVE_DEFAULT_PARTITION__): its value would be lost.
 *
 * Duplicates: a file whose path is already a live data file of the table, or
 * that is listed twice, is refused (ZB_EREFUSED naming it) unless
 * allow_duplicates; the check is made again against the table as it is at
 * commit time. Paths are compared normalized (ops/reachable/reachable_files.h
 * zb_reach_normalize), the table's after its remaps (zb_table_resolve).
 *
 * create: the table must not exist. Its schema is the first file's Parquet
 * schema (fresh field ids, top-level first), plus one column per `name=value`
 * directory level that names no column of the file (long when every value is an
 * integer, date when every value is YYYY-MM-DD, else string),
 * identity-partitioned on the directories' columns, then on
 * opts->partition_by's fields (ZB_EUSAGE for a column or transform that does
 * not fit); schema.name-mapping.default is set. Every file must then fit that
 * schema: a later file with a column the first lacks is refused. Without
 * create, a missing table is ZB_ENOTFOUND.
 *
 * Everything is read and checked before anything is written: a corrupt
 * footer (ZB_ECORRUPT) or a refused file fails the whole call, naming the
 * file, and nothing is committed. Then one append snapshot adds every
 * file (with create: the table is created first, then the append).
 * dry_run: every check, real counts, nothing created or committed.
 *
 * Codes: ZB_EREFUSED (duplicates, a file that does not fit, create on an
 * existing table: exit 3), ZB_ENOTFOUND (no table without create, no
 * source), ZB_ECORRUPT, ZB_EUNSUPPORTED (a column type
 * Iceberg cannot hold, with create), ZB_ECONFLICT, the catalog's and
 * FileIO's codes.
 */
#ifndef ZB_OPS_ADD_FILES_H
#define ZB_OPS_ADD_FILES_H

#include <stdint.h>

#include "ops/ops.h"
#include "util/buf.h"

/* Each field's default is its value in ZB_ADD_FILES_OPTS_INIT. */
typedef struct zb_add_files_opts {
    unsigned version;              /* ZB_ADD_FILES_OPTS_VERSION */
    const char *source;            /* directory, prefix or one file;
                                      default NULL (required) */
    int create;                    /* default 0; 1: create the table from
                                      the files */
    int allow_duplicates;          /* default 0; 1: add files the table
                                      already has */
    int format_version;            /* create; default 0: 2 */
    /* create: more partition fields, after those of the directories:
     * "COL, day(COL), bucket(16, COL), truncate(4, COL), ..." (top-level
     * columns; identity, year, month, day, hour, bucket, truncate). Their
     * values come from the statistics. Default NULL: none. */
    const char *partition_by;
} zb_add_files_opts;

#define ZB_ADD_FILES_OPTS_VERSION 1
#define ZB_ADD_FILES_OPTS_INIT                                             \
    {                                                                      \
        .version = ZB_ADD_FILES_OPTS_VERSION, .source = NULL, .create = 0, \
        .allow_duplicates = 0, .format_version = 0, .partition_by = NULL,  \
    }

typedef struct zb_add_files_result {
    uint64_t files_added;          /* (dry run: that would be) */
    uint64_t rows_added;
    uint64_t bytes_added;
    uint64_t files_skipped;        /* not Parquet, or hidden */
    uint64_t partitions;           /* distinct partition tuples */
    int created;                   /* the table was (would be) created */
    int mapping_set;               /* schema.name-mapping.default set */
    int64_t snapshot_id;           /* the append; 0 in a dry run */
} zb_add_files_result;

int zb_add_files(const zb_op_target *t, zb_ctx *ctx,
                 const zb_add_files_opts *o, zb_add_files_result *r);

/* The report lines ("T: added N file(s) ..."). */
int zb_add_files_report(zb_buf *out, const char *table,
                        const zb_add_files_result *r, int dry_run);

#endif

/*
 * tests/unit/plan/read_util.h - helpers of the row-stream tests: Arrow
 * columns from C arrays, Parquet files from them, hand-made scan tasks,
 * and the rows of a stream as text lines to compare with expectations
 * written out by hand.
 */
#ifndef READ_UTIL_H
#define READ_UTIL_H

#include <stdint.h>

#include "exec/arrow/arrow.h"
#include "plan/read/scan_read.h"
#include "table/metadata/metadata.h"
#include "zamboni/io.h"

/* A column to write: name, field id (-1: none), format ("i", "l", "u",
 * "f", "g"), values and a null mask (NULL: none null; 1 = null). */
typedef struct rt_col {
    const char *name;
    int32_t field_id;
    const char *format;
    const void *values;            /* int32_t, int64_t, float, double, or
                                      const char *const * */
    const uint8_t *nulls;
} rt_col;

/* Writes a Parquet file of n rows at path; returns its size. */
int64_t rt_write_parquet(zb_io *io, zb_ctx *ctx, const char *path,
                         const rt_col *cols, size_t n_cols, size_t n);

/* Writes a position delete file (file_path NULL = a null path). */
int64_t rt_write_posdel(zb_io *io, zb_ctx *ctx, const char *path,
                        const char *const *paths, const int64_t *pos,
                        size_t n);

/* Parses metadata JSON (fails the test on error). */
ice_metadata *rt_metadata(zb_ctx *ctx, const char *json);

/* A data or delete file entry (strings borrowed). */
ice_data_file rt_file(ice_file_content content, const char *path,
                      int64_t records, int64_t size);

/*
 * Reads the whole stream and returns its rows as lines joined by '\n'
 * (each row: values comma-separated, null as "null", structs in {}),
 * in a static buffer. Fails the test on error.
 */
const char *rt_read_all(zb_io *io, zb_ctx *ctx, const zb_rowstream_opts *o,
                        const zb_scan_task *tasks, size_t n,
                        zb_read_counts *counts);

/* The same, returning the rc instead of failing (rows are dropped). */
int rt_read_rc(zb_io *io, zb_ctx *ctx, const zb_rowstream_opts *o,
               const zb_scan_task *tasks, size_t n);

#endif

/*
 * table/metrics/file_metrics.h - Iceberg data-file metrics (format/spec.md
 * "Manifests", data_file fields 108-111, 137, 125, 128, 132) from what the
 * Parquet writer wrote (pq_write_result of format/parquet/parquet_write.h).
 *
 *     ice_metrics_config cfg;
 *     ice_metrics_config_init(&cfg, schema, sort_order, props, n_props);
 *     ice_data_file_metrics dm;
 *     rc = ice_metrics_from_parquet(&dm, ctx, arena, &cfg, &result);
 *
 * Metrics modes, as Iceberg Java's MetricsConfig reads the table
 * properties:
 *   write.metadata.metrics.default        none | counts | truncate(N) | full
 *                                         (default truncate(16))
 *   write.metadata.metrics.column.<name>  the same, for one column named by
 *                                         its full dotted name ("a.b",
 *                                         "l.element", "m.key", "m.value");
 *                                         it applies to that field only
 *   write.metadata.metrics.max-inferred-column-defaults  (default 100)
 * When no default is set and the schema has more top-level columns than
 * max-inferred-column-defaults, the fields of the first that many
 * top-level columns (and everything nested in them) get truncate(16) and
 * all others none. Columns of the sort order whose transform preserves
 * order (identity, truncate, year, month, day, hour) are raised to
 * truncate(16) when the default is none or counts. A column property
 * overrides all of that. Invalid mode strings fall back to the default
 * (Java logs and ignores them; here they are logged too).
 *
 * What each mode keeps (Iceberg Java ParquetUtil.footerMetrics):
 *   none       nothing for the column (not even its size)
 *   counts     column_sizes, value_counts, null_value_counts,
 *              nan_value_counts (float and double only)
 *   truncate   counts and bounds; strings cut to N Unicode code points,
 *              binary to N bytes; the upper bound is the cut value with
 *              its last code point (byte) incremented, carrying into the
 *              one before when it cannot be (U+10FFFF, 0xFF; U+D7FF goes
 *              to U+E000), and dropped when no position can be. Other
 *              types (fixed included: its bound must keep the type's
 *              length) are kept whole.
 *   full       counts and whole bounds
 * Bounds are never kept for fields inside a list or a map (Java's
 * ParquetUtil.shouldStoreBounds allows struct nesting only); their counts
 * are. Floats: NaN is counted, never a bound; -0.0 orders below 0.0.
 * The writer keeps byte-array bounds as prefixes of at most
 * PQ_METRICS_BOUND_BYTES: a longer value's lower bound is its (code-point
 * aligned) prefix and its upper bound the incremented prefix, even in
 * mode full.
 *
 * Conversions from the Parquet physical value to the Iceberg type of the
 * field (found by field id in the table schema): ints, longs (from INT32
 * too), dates, times (millis, micros, nanos to micros), timestamps and
 * timestamp_ns in any stored unit (a lower bound rounds down, an upper
 * bound up when a unit is lost), decimals from INT32, INT64, FIXED and
 * BYTE_ARRAY with the type's scale, strings, binary, fixed, uuid,
 * booleans, floats and doubles (float to double for a promoted column).
 * A leaf whose field id is missing or not in the schema, or whose type
 * does not convert, gets no bounds (counts stay).
 */
#ifndef ZB_TABLE_METRICS_H
#define ZB_TABLE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_write.h"
#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "util/arena.h"

typedef enum ice_metrics_mode_kind {
    ICE_METRICS_NONE = 0,
    ICE_METRICS_COUNTS,
    ICE_METRICS_TRUNCATE,
    ICE_METRICS_FULL
} ice_metrics_mode_kind;

typedef struct ice_metrics_mode {
    ice_metrics_mode_kind kind;
    int32_t length;                /* TRUNCATE: N > 0 */
} ice_metrics_mode;

#define ICE_METRICS_DEFAULT_TRUNCATE 16
#define ICE_METRICS_MAX_INFERRED_DEFAULT 100

/* Parses "none", "counts", "full", "truncate(N)" (case-insensitive, as
 * Java's MetricsModes.fromString); ZB_EINVAL otherwise. */
int ice_metrics_mode_parse(ice_metrics_mode *out, zb_ctx *ctx,
                           const char *s);

/* Everything the mode of a field depends on. Borrowed pointers. */
typedef struct ice_metrics_config {
    const ice_schema *schema;
    const ice_sort_order *sort_order;  /* may be NULL */
    const ice_kv *props;
    size_t n_props;
} ice_metrics_config;

void ice_metrics_config_init(ice_metrics_config *cfg,
                             const ice_schema *schema,
                             const ice_sort_order *sort_order,
                             const ice_kv *props, size_t n_props);

/* The mode of field_id under cfg (a field not in the schema: none). */
ice_metrics_mode ice_metrics_mode_of(const ice_metrics_config *cfg,
                                     zb_ctx *ctx, int32_t field_id);

/* One field's metrics; has_* says what the mode and the writer gave. */
typedef struct ice_column_metrics {
    int32_t field_id;
    int has_column_size, has_value_count, has_null_count, has_nan_count;
    int64_t column_size, value_count, null_count, nan_count;
    /* Binary single-value serialization; NULL when absent. */
    const uint8_t *lower, *upper;
    size_t lower_len, upper_len;
} ice_column_metrics;

typedef struct ice_data_file_metrics {
    int64_t record_count;
    int64_t file_size_bytes;
    size_t n_columns;
    const ice_column_metrics *columns; /* ascending field id */
    size_t n_split_offsets;
    const int64_t *split_offsets;
} ice_data_file_metrics;

/*
 * Makes the metrics of a written file; every array (split offsets too)
 * is copied into arena. ZB_OK or ZB_ENOMEM.
 */
int ice_metrics_from_parquet(ice_data_file_metrics *out, zb_ctx *ctx,
                             zb_arena *arena, const ice_metrics_config *cfg,
                             const pq_write_result *r);

/*
 * A manifest data_file for the written file at path: its content kind,
 * format PARQUET, record count, size, the metric maps (present, holding
 * the columns that have each metric) and split offsets, taken from dm
 * (whose arrays must live as long as f); no partition, no equality ids,
 * the v3 fields null. Strings and maps in arena. ZB_OK or ZB_ENOMEM.
 */
int ice_data_file_from_metrics(ice_data_file *f, zb_ctx *ctx,
                               zb_arena *arena,
                               const ice_data_file_metrics *dm,
                               ice_file_content content, const char *path);

/* ---- truncation (exposed for tests and for other writers) ---- */

/*
 * The first n code points of UTF-8 s (or bytes, when s is not valid
 * UTF-8): *out_len bytes of s. A lower bound.
 */
void ice_metrics_truncate_string_min(size_t *out_len, const uint8_t *s,
                                     size_t len, size_t n);

/*
 * An upper bound of every string that starts with s[0..len) when
 * longer_known is set, or of s itself otherwise, kept to n code points:
 * writes it to out (room for len + 4 bytes) and returns its length, or
 * -1 when there is none. s itself is returned unchanged when it has at
 * most n code points and longer_known is 0.
 */
long ice_metrics_truncate_string_max(uint8_t *out, const uint8_t *s,
                                     size_t len, size_t n, int longer_known);

/* The same for binary: bytes, 0xFF carrying into the byte before. */
long ice_metrics_truncate_binary_max(uint8_t *out, const uint8_t *s,
                                     size_t len, size_t n, int longer_known);

#endif

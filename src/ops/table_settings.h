/*
 * ops/table_settings.h - the per-table settings that have several
 * sources, each resolved in one place, with where its value came from.
 *
 *     zb_tset_value v;
 *     rc = zb_tset_resolve(&v, ctx, ZB_TSET_TARGET_FILE_SIZE,
 *                          flag_bytes, &eff, table->meta);
 *     v.value, v.origin, v.source: 134217728, ZB_TSET_FROM_DEFAULT, "default"
 *
 * Sources, highest first (a setting lacks some; see the table):
 *   flag            the command-line flag, or the operation option that
 *                   carries it (zb_compact_opts.target_file_bytes, ...)
 *   table config    the table's effective block of table-config.json
 *                   (ops/config/table_config.h; a null key gives nothing)
 *   table property  the table's Iceberg properties, in the order listed
 *   default         the ZB_TSET_DEFAULT_* constant below
 *
 *   setting (unit)               flag / config key / properties
 *   TARGET_FILE_SIZE (bytes)     --target-file-size-bytes;
 *                                target_file_size_bytes;
 *                                write.parquet.target-file-size-bytes,
 *                                write.target-file-size-bytes; >= 100
 *   MIN_INPUT_FILES (files)      --min-input-files; min_input_files; >= 1
 *   MAX_SNAPSHOT_AGE (ms)        --max-snapshot-age-days; retention.
 *                                expire_snapshots.max_snapshot_age_days;
 *                                history.expire.max-snapshot-age-ms
 *   MIN_SNAPSHOTS_TO_KEEP        --min-snapshots-to-keep; ...
 *                                min_snapshots_to_keep; history.expire.
 *                                min-snapshots-to-keep; 1..INT32_MAX
 *   MAX_REF_AGE (ms)             (zb_maint_opts only); ...max_ref_age_days;
 *                                history.expire.max-ref-age-ms
 *   ORPHAN_AGE (ms)              --older-than-days; retention.
 *                                remove_orphan_files.older_than_days
 *   MIN_INPUT_MANIFESTS          --min-input-manifests; retention.
 *                                rewrite_manifests.min_input_manifests; >= 1
 * Flags and config keys count days where the unit is ms: the caller turns
 * a flag's days into ms (zb_tset_days_ms), the config's are turned here.
 *
 * Unset. ZB_UNSET (-1) is the one encoding of "not given", for every
 * setting, in every option struct that carries one (zb_maint_opts,
 * zb_compact_opts, zb_expire_opts, zb_remove_orphans_opts,
 * zb_rewrite_manifests_opts) and in the table config block (a null key).
 * Any other value is given: below the setting's minimum it is raised to
 * it, above its maximum lowered to it.
 *
 * A property that is set but not usable (not a non-negative decimal
 * integer, "128MB"; for the target size also below 100) is named in the
 * result (ignored_key, ignored_text) and then
 *   - TARGET_FILE_SIZE: passed over, as compaction always did: the next
 *     property, else the default;
 *   - the history.expire.* rules: ZB_EINVAL naming the key and the text
 *     (expire does not guess a retention). A number outside the range is
 *     brought into it (min-snapshots-to-keep=0 keeps 1).
 *
 * Who calls it: compaction (zb_compact_target_bytes, the plan's
 * min_input_files), expire (zb_expire__rules), remove-orphans and
 * rewrite-manifests for their option, maintenance for the flag and config
 * layers of every operation and for its --verbose lines
 * (zb_maint_settings), `zamboni describe` and `zamboni plan`.
 */
#ifndef ZB_OPS_TABLE_SETTINGS_H
#define ZB_OPS_TABLE_SETTINGS_H

#include <stdint.h>

#include "ops/config/table_config.h"
#include "table/metadata/metadata.h"
#include "util/buf.h"

/* "Not given" in every setting field (see above). */
#define ZB_UNSET (-1)

#define ZB_TSET_DAY_MS ((int64_t)24 * 3600 * 1000)

/* The built-in defaults, each written once. */
#define ZB_TSET_DEFAULT_TARGET_FILE_BYTES ((int64_t)128 << 20)
#define ZB_TSET_DEFAULT_MIN_INPUT_FILES 2
#define ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS (5 * ZB_TSET_DAY_MS)
#define ZB_TSET_DEFAULT_MIN_SNAPSHOTS_TO_KEEP 1
#define ZB_TSET_DEFAULT_MAX_REF_AGE_MS INT64_MAX   /* never */
#define ZB_TSET_DEFAULT_ORPHAN_AGE_DAYS 3
#define ZB_TSET_DEFAULT_ORPHAN_AGE_MS \
    (ZB_TSET_DEFAULT_ORPHAN_AGE_DAYS * ZB_TSET_DAY_MS)
#define ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS 2

/* The smallest target size honoured (smaller ones are raised to it). */
#define ZB_TSET_MIN_TARGET_FILE_BYTES 100

typedef enum zb_tset {
    ZB_TSET_TARGET_FILE_SIZE,
    ZB_TSET_MIN_INPUT_FILES,
    ZB_TSET_MAX_SNAPSHOT_AGE,
    ZB_TSET_MIN_SNAPSHOTS_TO_KEEP,
    ZB_TSET_MAX_REF_AGE,
    ZB_TSET_ORPHAN_AGE,
    ZB_TSET_MIN_INPUT_MANIFESTS,
    ZB_TSET_COUNT
} zb_tset;

typedef enum zb_tset_origin {
    ZB_TSET_FROM_DEFAULT,
    ZB_TSET_FROM_PROPERTY,
    ZB_TSET_FROM_TABLE_CONFIG,
    ZB_TSET_FROM_FLAG
} zb_tset_origin;

typedef struct zb_tset_value {
    int64_t value;              /* in the setting's unit */
    zb_tset_origin origin;
    /* The flag, the config key path ("retention.remove_orphan_files.
     * older_than_days"), the property key, or "default"; static or
     * borrowed from the metadata. */
    const char *source;
    /* FROM_TABLE_CONFIG: the table's own entry (1) or "defaults" (0). */
    int config_table_entry;
    /* A property set but not usable, passed over; NULL: none. The text
     * is borrowed from the metadata. */
    const char *ignored_key;
    const char *ignored_text;
} zb_tset_value;

/* Every setting of one table, indexed by zb_tset. */
typedef struct zb_table_settings {
    zb_tset_value v[ZB_TSET_COUNT];
} zb_table_settings;

/*
 * Resolves setting id: flag (in the setting's unit; ZB_UNSET: none), the
 * table config block cfg (NULL: no table config), the properties of m
 * (NULL: not read), the default. Returns ZB_OK, or ZB_EINVAL for an
 * unusable history.expire.* property (ctx's message names it; ctx may be
 * NULL: no message; *out then holds what the other sources give).
 */
int zb_tset_resolve(zb_tset_value *out, zb_ctx *ctx, zb_tset id,
                    int64_t flag, const zb_tc_effective *cfg,
                    const ice_metadata *m);

/*
 * The flag and table config layers only: 1 with *out filled when one of
 * them gives the value, else 0 (*out: ZB_UNSET, FROM_DEFAULT). For a run
 * that hands the value to an operation, which reads the property when it
 * loads the table (a step before it may have changed it).
 */
int zb_tset_explicit(zb_tset_value *out, zb_tset id, int64_t flag,
                     const zb_tc_effective *cfg);

/* Days (a flag's unit) in ms, saturating; ZB_UNSET stays ZB_UNSET. */
int64_t zb_tset_days_ms(int64_t days);

/* "target_file_size_bytes", "max_snapshot_age_ms", ... */
const char *zb_tset_name(zb_tset id);
/* "flag", "table config", "table property", "default". */
const char *zb_tset_origin_name(zb_tset_origin origin);

/*
 * Appends "NAME VALUE (ORIGIN SOURCE)", e.g. "target_file_size_bytes
 * 134217728 (default; table property write.target-file-size-bytes=
 * \"128MB\" ignored: not an integer >= 100)"; an age of INT64_MAX is
 * "never". No newline. ZB_OK or ZB_ENOMEM.
 */
int zb_tset_format(zb_buf *out, zb_tset id, const zb_tset_value *v);

#endif

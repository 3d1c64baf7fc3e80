/*
 * ops/apply_properties.h - apply-properties: bring a table to what its entry
 * in table-config.json declares (ZAMBONI-INTERFACE.md sections 3-5):
 * properties set and removed, the default sort order, a format-version
 * upgrade.
 *
 *     zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
 *     o.set = kv; o.n_set = 2; o.sort = cols; o.n_sort = 1;
 *     zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
 *     rc = zb_apply_properties(&target, ctx, &o, &r);
 *     zb_apply_properties_report(&out, target.ident, &r, target.dry_run);
 *     zb_apply_props_result_free(&r);
 *
 * The table is loaded and compared with the declaration: a property
 * whose value differs (or is absent) is set, a declared removal of a
 * present key is removed, a sort order whose fields differ from the
 * default order's becomes the new default, a format version above the
 * table's is an upgrade (below it: ZB_EREFUSED, Iceberg never
 * downgrades). Anything to do is one commit: requirements
 * assert-table-uuid and assert-ref-snapshot-id main (the table did not
 * change underneath), plus assert-default-sort-order-id when the order
 * changes; updates set-properties, remove-properties, add-sort-order +
 * set-default-sort-order, upgrade-format-version. A lost race reloads,
 * compares again and retries (3 attempts). Nothing to do: no commit.
 * Dry run: the changes are listed, nothing committed.
 *
 * Codes: ZB_EINVAL (a sort column not in the schema, a reserved property
 * key such as format-version in the set list), ZB_EREFUSED (a
 * downgrade), ZB_ECONFLICT (still losing races), the catalog's codes.
 */
#ifndef ZB_OPS_APPLY_PROPS_H
#define ZB_OPS_APPLY_PROPS_H

#include <stddef.h>
#include <stdint.h>

#include "ops/ops.h"
#include "util/buf.h"
#include "util/json.h"

/* One sort column as table-config "ordering.sort" declares it. */
typedef struct zb_sort_column {
    const char *column;            /* a field name; dotted for nested */
    int descending;                /* direction desc */
    int nulls_first;               /* nulls first (table-config: last) */
    const char *transform;         /* NULL: "identity" */
} zb_sort_column;

/* Each field's default is its value in ZB_APPLY_PROPS_OPTS_INIT. */
typedef struct zb_apply_props_opts {
    unsigned version;              /* ZB_APPLY_PROPS_OPTS_VERSION */
    size_t n_set;                  /* properties to have; default 0 */
    const ice_kv *set;             /* default NULL */
    size_t n_remove;               /* keys to not have; default 0 */
    const char *const *remove;     /* default NULL */
    /* The sort order: a SortOrder JSON object (fields with source-id),
     * or n_sort columns by name, or sort_unsorted for none; all unset
     * (the default: NULL, 0, NULL, 0): the order is left alone. */
    const zb_json *sort_order;
    size_t n_sort;
    const zb_sort_column *sort;
    int sort_unsorted;
    int format_version;            /* default 0: leave as is */
} zb_apply_props_opts;

#define ZB_APPLY_PROPS_OPTS_VERSION 1
#define ZB_APPLY_PROPS_OPTS_INIT                                           \
    {                                                                      \
        .version = ZB_APPLY_PROPS_OPTS_VERSION, .n_set = 0, .set = NULL,   \
        .n_remove = 0, .remove = NULL, .sort_order = NULL, .n_sort = 0,    \
        .sort = NULL, .sort_unsorted = 0, .format_version = 0,             \
    }

/* One change: key (a property, "sort-order" or "format-version"), the
 * old and new values (NULL: unset). */
typedef struct zb_apply_props_change {
    char *key;
    char *old_value;
    char *new_value;
} zb_apply_props_change;

typedef struct zb_apply_props_result {
    size_t n_changes;              /* made, or would be (dry run) */
    zb_apply_props_change *changes;
    int committed;
    int attempts;                  /* commits tried */
} zb_apply_props_result;

#define ZB_APPLY_PROPS_RESULT_INIT                                         \
    { .n_changes = 0, .changes = NULL, .committed = 0, .attempts = 0 }

int zb_apply_properties(const zb_op_target *t, zb_ctx *ctx,
                        const zb_apply_props_opts *o,
                        zb_apply_props_result *r);

void zb_apply_props_result_free(zb_apply_props_result *r);

/*
 * "T: set|would set N propert(ies)" and "  key: old -> new" per change,
 * "(unset)" for a missing value; "T: properties already match" when
 * there is nothing to do. ZB_OK or ZB_ENOMEM.
 */
int zb_apply_properties_report(zb_buf *out, const char *table,
                               const zb_apply_props_result *r, int dry_run);

/*
 * The table-config keys that are table properties (section 3), already
 * parsed by the config reader; a field < 0 is not declared.
 */
typedef struct zb_config_props {
    int64_t target_file_size_bytes;       /* write.target-file-size-bytes */
    int64_t previous_versions_max;        /* write.metadata.previous-versions-max */
    int delete_after_commit;              /* -1, 0, 1 */
    int64_t max_snapshot_age_days;        /* history.expire.max-snapshot-age-ms */
    int64_t min_snapshots_to_keep;        /* history.expire.min-snapshots-to-keep */
    int64_t max_ref_age_days;             /* history.expire.max-ref-age-ms */
} zb_config_props;

#define ZB_CONFIG_PROPS_INIT                                               \
    {                                                                      \
        .target_file_size_bytes = -1, .previous_versions_max = -1,         \
        .delete_after_commit = -1, .max_snapshot_age_days = -1,            \
        .min_snapshots_to_keep = -1, .max_ref_age_days = -1,               \
    }
#define ZB_CONFIG_PROPS_MAX 6

/* A property made from a config key; value in its own storage. */
typedef struct zb_config_prop {
    const char *key;
    char value[24];
} zb_config_prop;

/*
 * Fills out[] (room for ZB_CONFIG_PROPS_MAX) with the properties c
 * declares, days as milliseconds; returns how many.
 */
size_t zb_config_props_to_properties(zb_config_prop *out,
                                     const zb_config_props *c);

#endif

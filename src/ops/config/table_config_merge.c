/*
 * ops/config/table_config_merge.c - what a table-config.json means for one
 * table: the built-in values, the merge of the defaults block and a table's own
 * block section by section, the list of tables, the warehouse assertion and the
 * `table-config summary` text.
 *
 * zb_table_config_effective starts from the built-in block, lays the
 * defaults' given sections over it and then the table's (see
 * table_config.h for the three exceptions). Each section remembers where
 * its value came from, which the summary prints.
 */
#define ZB_MODULE "tableconfig"

#include "ops/config/table_config_int.h"

#include <stdlib.h>
#include <string.h>

#include "ops/apply_properties.h"
#include "util/err.h"

/* The default rule of a file without a "defaults" key. */
static const zb_tc_evolution_rule builtin_rule = { ZB_TC_DAY, ZB_TC_MONTH,
                                                   90 };

void zb_table_config__builtin_retention(zb_tc_retention *r)
{
    memset(r, 0, sizeof(*r));
    r->expire_enabled = 1;
    r->max_snapshot_age_days = ZB_UNSET;
    r->min_snapshots_to_keep = ZB_UNSET;
    r->max_ref_age_days = ZB_UNSET;
    r->orphans_enabled = 1;
    r->orphans_older_than_days = ZB_TC_DEFAULT_ORPHAN_DAYS;
    r->dangling_enabled = 1;
    r->manifests_enabled = 1;
    r->min_input_manifests = ZB_TC_DEFAULT_MIN_INPUT_MANIFESTS;
    r->previous_versions_max = ZB_UNSET;
    r->delete_after_commit = ZB_UNSET;
}

void zb_table_config__builtin(zb_tc_block *b, int has_defaults)
{
    memset(b, 0, sizeof(*b));
    b->evolution_enabled = 1;
    if (!has_defaults) {
        b->n_rules = 1;
        b->rules = &builtin_rule;
    }
    b->order_mode = ZB_TC_ORDER_NONE;
    b->precision_bits = ZB_TC_DEFAULT_PRECISION_BITS;
    b->target_file_size_bytes = ZB_UNSET;
    b->min_input_files = ZB_TC_DEFAULT_MIN_INPUT_FILES;
    b->max_concurrent_rewrites = ZB_UNSET;
    zb_table_config__builtin_retention(&b->retention);
    for (size_t i = 0; i < ZB_TC_SCHEDULE_OPS; i++)
        b->min_interval_minutes[i] = ZB_UNSET;
}

static int has(const zb_tc_block *b, zb_tc_section s)
{
    return (b->present & (1u << s)) != 0;
}

/* Lays the sections src gives over out->block. */
static void overlay(zb_tc_effective *out, const zb_tc_block *src,
                    zb_tc_origin origin, int inherit_min_files)
{
    zb_tc_block *b = &out->block;

    if (has(src, ZB_TC_SEC_DESCRIPTION)) {
        b->description = src->description;
        out->origin[ZB_TC_SEC_DESCRIPTION] = origin;
    }
    if (has(src, ZB_TC_SEC_PARTITION)) {
        b->n_partition = src->n_partition;
        b->partition = src->partition;
        out->origin[ZB_TC_SEC_PARTITION] = origin;
    }
    if (has(src, ZB_TC_SEC_EVOLUTION)) {
        b->evolution_enabled = src->evolution_enabled;
        b->n_rules = src->n_rules;
        b->rules = src->rules;
        out->origin[ZB_TC_SEC_EVOLUTION] = origin;
    }
    /* "none" does not undo an ordering the defaults declare */
    if (has(src, ZB_TC_SEC_ORDERING) &&
        !(src->order_mode == ZB_TC_ORDER_NONE &&
          b->order_mode != ZB_TC_ORDER_NONE)) {
        b->order_mode = src->order_mode;
        b->n_sort = src->n_sort;
        b->sort = src->sort;
        b->n_zorder = src->n_zorder;
        b->zorder_columns = src->zorder_columns;
        b->precision_bits = src->precision_bits;
        out->origin[ZB_TC_SEC_ORDERING] = origin;
    }
    if (has(src, ZB_TC_SEC_TARGET_FILE_SIZE)) {
        b->target_file_size_bytes = src->target_file_size_bytes;
        out->origin[ZB_TC_SEC_TARGET_FILE_SIZE] = origin;
    }
    if (has(src, ZB_TC_SEC_MIN_INPUT_FILES) && inherit_min_files) {
        b->min_input_files = src->min_input_files;
        out->origin[ZB_TC_SEC_MIN_INPUT_FILES] = origin;
    }
    if (has(src, ZB_TC_SEC_MAX_CONCURRENT_REWRITES)) {
        b->max_concurrent_rewrites = src->max_concurrent_rewrites;
        out->origin[ZB_TC_SEC_MAX_CONCURRENT_REWRITES] = origin;
    }
    if (has(src, ZB_TC_SEC_RETENTION)) {
        b->retention = src->retention;   /* whole */
        out->origin[ZB_TC_SEC_RETENTION] = origin;
    }
    for (int k = 0; k < ZB_TC_RW_COUNT; k++)   /* per key */
        if (src->rw.given & (1u << k)) {
            b->rw.given |= 1u << k;
            b->rw.v[k] = src->rw.v[k];
            if (origin == ZB_TC_FROM_TABLE)
                out->rw_from_table |= 1u << k;
        }
    if (has(src, ZB_TC_SEC_SCHEDULE)) {  /* per operation */
        for (size_t i = 0; i < ZB_TC_SCHEDULE_OPS; i++)
            if (src->min_interval_minutes[i] != ZB_UNSET)
                b->min_interval_minutes[i] = src->min_interval_minutes[i];
        out->origin[ZB_TC_SEC_SCHEDULE] = origin;
    }
}

static int cmp_ident(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const zb_tc_table *)elem)->ident);
}

static const zb_tc_table *find_table(const zb_table_config *tc,
                                     const char *ident)
{
    if (tc->n_tables == 0 || ident == NULL)
        return NULL;
    return bsearch(ident, tc->tables, tc->n_tables, sizeof(zb_tc_table),
                   cmp_ident);
}

void zb_table_config_effective(zb_tc_effective *out,
                               const zb_table_config *tc, const char *ident)
{
    const zb_tc_table *t = tc ? find_table(tc, ident) : NULL;

    memset(out, 0, sizeof(*out));
    zb_table_config__builtin(&out->block, tc ? tc->has_defaults : 0);
    for (int i = 0; i < ZB_TC_SEC_COUNT; i++)
        out->origin[i] = ZB_TC_FROM_BUILTIN;
    if (tc == NULL)
        return;
    /* a listed table does not inherit min_input_files */
    overlay(out, &tc->defaults, ZB_TC_FROM_DEFAULTS, t == NULL);
    if (t != NULL) {
        overlay(out, &t->block, ZB_TC_FROM_TABLE, 1);
        out->listed = 1;
    }
    out->block.present = t ? t->block.present : tc->defaults.present;
}

void zb_table_config_props(zb_config_props *out, const zb_tc_block *b)
{
    zb_config_props init = ZB_CONFIG_PROPS_INIT;
    *out = init;
    out->target_file_size_bytes = b->target_file_size_bytes;
    out->previous_versions_max = b->retention.previous_versions_max;
    out->delete_after_commit = b->retention.delete_after_commit;
    out->max_snapshot_age_days = b->retention.max_snapshot_age_days;
    out->min_snapshots_to_keep = b->retention.min_snapshots_to_keep;
    out->max_ref_age_days = b->retention.max_ref_age_days;
}

const char *zb_table_config_name(const zb_table_config *tc)
{
    return tc ? tc->name : NULL;
}

const char *zb_table_config_warehouse(const zb_table_config *tc)
{
    return tc ? tc->warehouse : NULL;
}

int zb_table_config_check_warehouse(zb_ctx *ctx, const zb_table_config *tc,
                                    const char *warehouse)
{
    ZB_ASSERT_ARG(ctx && tc && warehouse);
    if (strcmp(tc->warehouse, warehouse) == 0)
        return ZB_OK;
    return zb_fail(ctx, ZB_EREFUSED, "%s configures warehouse '%.60s', not "
                   "'%.60s': nothing was touched (fix the file's "
                   "\"warehouse\" or the --warehouse given)", tc->name,
                   tc->warehouse, warehouse);
}

size_t zb_table_config_table_count(const zb_table_config *tc)
{
    return tc ? tc->n_tables : 0;
}

const char *zb_table_config_table(const zb_table_config *tc, size_t i)
{
    return (tc && i < tc->n_tables) ? tc->tables[i].ident : NULL;
}

const char *zb_tc_order_mode_name(zb_tc_order_mode m)
{
    static const char *const names[] = { "none", "sort", "zorder" };
    return (unsigned)m < 3 ? names[m] : "?";
}

const char *zb_tc_section_name(zb_tc_section s)
{
    static const char *const names[] = {
        "description", "partition", "partition_evolution", "ordering",
        "target_file_size_bytes", "min_input_files", "retention",
        "max_concurrent_file_group_rewrites", "schedule"
    };
    return (unsigned)s < ZB_TC_SEC_COUNT ? names[s] : "?";
}

/* ---- summary ---- */

static const char *mark(zb_tc_origin o)
{
    switch (o) {
    case ZB_TC_FROM_BUILTIN: return "  (default)";
    case ZB_TC_FROM_DEFAULTS: return "  (from defaults)";
    default: return "";
    }
}

/* fallback: the setting's default (ops/table_settings.h); INT64_MAX is
 * "never". */
static int put_days(zb_buf *b, const char *key, int64_t v, int64_t fallback)
{
    if (v < 0 && fallback == INT64_MAX)
        return zb_buf_appendf(b, ", %s=null (table property, else never)",
                              key);
    if (v < 0)
        return zb_buf_appendf(b, ", %s=null (table property, else %lld)", key,
                              (long long)fallback);
    return zb_buf_appendf(b, ", %s=%lld", key, (long long)v);
}

static int put_partition(zb_buf *b, const zb_tc_block *k)
{
    int rc = ZB_OK;

    if (k->n_partition == 0)
        return zb_buf_puts(b, "(not declared: the table's own spec)");
    for (size_t i = 0; i < k->n_partition && rc == ZB_OK; i++) {
        const zb_tc_partition_field *f = &k->partition[i];
        const char *sep = i ? ", " : "";
        const char *t = zb_tc_transform_name(f->transform);
        if (f->transform == ZB_TC_BUCKET)
            rc = zb_buf_appendf(b, "%sbucket[%d](%s)", sep,
                                (int)f->num_buckets, f->column);
        else if (f->transform == ZB_TC_TRUNCATE)
            rc = zb_buf_appendf(b, "%struncate[%d](%s)", sep, (int)f->width,
                                f->column);
        else
            rc = zb_buf_appendf(b, "%s%s(%s)", sep, t, f->column);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(b, " as %s", f->name);
    }
    return rc;
}

static int put_evolution(zb_buf *b, const zb_tc_block *k)
{
    int rc;

    if (!k->evolution_enabled)
        return zb_buf_puts(b, "disabled");
    if (k->n_rules == 0)
        return zb_buf_puts(b, "enabled, no rules");
    rc = zb_buf_puts(b, "enabled");
    for (size_t i = 0; i < k->n_rules && rc == ZB_OK; i++)
        rc = zb_buf_appendf(b, ", %s -> %s after %lld days",
                            zb_tc_transform_name(k->rules[i].from),
                            zb_tc_transform_name(k->rules[i].to),
                            (long long)k->rules[i].older_than_days);
    return rc;
}

static int put_ordering(zb_buf *b, const zb_tc_block *k)
{
    int rc = zb_buf_puts(b, zb_tc_order_mode_name(k->order_mode));

    if (k->order_mode == ZB_TC_ORDER_SORT) {
        for (size_t i = 0; i < k->n_sort && rc == ZB_OK; i++)
            rc = zb_buf_appendf(b, "%s%s %s nulls %s", i ? ", " : ": ",
                                k->sort[i].column,
                                k->sort[i].descending ? "desc" : "asc",
                                k->sort[i].nulls_first ? "first" : "last");
    } else if (k->order_mode == ZB_TC_ORDER_ZORDER) {
        for (size_t i = 0; i < k->n_zorder && rc == ZB_OK; i++)
            rc = zb_buf_appendf(b, "%s%s", i ? ", " : ": ",
                                k->zorder_columns[i]);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(b, " (precision_bits %d)", k->precision_bits);
    }
    return rc;
}

static int put_retention(zb_buf *b, const zb_tc_retention *r,
                         const char *m)
{
    int rc;

    rc = zb_buf_appendf(b, "  %-24s %s", "expire_snapshots",
                        r->expire_enabled ? "enabled" : "disabled");
    if (rc == ZB_OK)
        rc = put_days(b, "max_snapshot_age_days", r->max_snapshot_age_days,
                      ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS / ZB_TSET_DAY_MS);
    if (rc == ZB_OK)
        rc = put_days(b, "min_snapshots_to_keep", r->min_snapshots_to_keep,
                      ZB_TSET_DEFAULT_MIN_SNAPSHOTS_TO_KEEP);
    if (rc == ZB_OK)
        rc = put_days(b, "max_ref_age_days", r->max_ref_age_days,
                      ZB_TSET_DEFAULT_MAX_REF_AGE_MS);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "%s\n  %-24s %s, older_than_days=%lld%s\n",
                            m, "remove_orphan_files",
                            r->orphans_enabled ? "enabled" : "disabled",
                            (long long)r->orphans_older_than_days, m);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "  %-24s %s%s  -- not available on: trino\n",
                            "remove_dangling_deletes",
                            r->dangling_enabled ? "enabled" : "disabled", m);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "  %-24s %s, min_input_manifests=%lld%s\n",
                            "rewrite_manifests",
                            r->manifests_enabled ? "enabled" : "disabled",
                            (long long)r->min_input_manifests, m);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "  %-24s previous_versions_max=", "metadata");
    if (rc == ZB_OK)
        rc = r->previous_versions_max < 0
                 ? zb_buf_puts(b, "null (table property)")
                 : zb_buf_appendf(b, "%lld",
                                  (long long)r->previous_versions_max);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, ", delete_after_commit=%s%s\n",
                            r->delete_after_commit < 0
                                ? "null (table property)"
                                : r->delete_after_commit ? "true" : "false",
                            m);
    return rc;
}

static int put_block(zb_buf *b, const zb_tc_effective *e)
{
    const zb_tc_block *k = &e->block;
    int rc = ZB_OK;

    if (k->description != NULL)
        rc = zb_buf_appendf(b, "  %-24s %s%s\n", "description",
                            k->description,
                            mark(e->origin[ZB_TC_SEC_DESCRIPTION]));
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "  %-24s ", "partition");
    if (rc == ZB_OK)
        rc = put_partition(b, k);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "%s\n  %-24s ",
                            mark(e->origin[ZB_TC_SEC_PARTITION]),
                            "partition_evolution");
    if (rc == ZB_OK)
        rc = put_evolution(b, k);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "%s\n  %-24s ",
                            mark(e->origin[ZB_TC_SEC_EVOLUTION]),
                            "ordering");
    if (rc == ZB_OK)
        rc = put_ordering(b, k);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "%s\n  %-24s ",
                            mark(e->origin[ZB_TC_SEC_ORDERING]),
                            "target_file_size_bytes");
    if (rc == ZB_OK)
        rc = k->target_file_size_bytes < 0
                 ? zb_buf_appendf(b, "null (table property, else %lld)",
                                  ZB_TC_DEFAULT_TARGET_FILE_SIZE_BYTES)
                 : zb_buf_appendf(b, "%lld",
                                  (long long)k->target_file_size_bytes);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "%s\n  %-24s %lld%s\n",
                            mark(e->origin[ZB_TC_SEC_TARGET_FILE_SIZE]),
                            "min_input_files",
                            (long long)k->min_input_files,
                            mark(e->origin[ZB_TC_SEC_MIN_INPUT_FILES]));
    if (rc == ZB_OK)
        rc = k->max_concurrent_rewrites < 0
                 ? zb_buf_appendf(b, "  %-24s null (the threads)%s\n",
                                  "max_concurrent_file_group_rewrites",
                                  mark(e->origin
                                           [ZB_TC_SEC_MAX_CONCURRENT_REWRITES]))
                 : zb_buf_appendf(b, "  %-24s %lld%s\n",
                                  "max_concurrent_file_group_rewrites",
                                  (long long)k->max_concurrent_rewrites,
                                  mark(e->origin
                                           [ZB_TC_SEC_MAX_CONCURRENT_REWRITES]));
    if (rc == ZB_OK)
        rc = put_retention(b, &k->retention,
                           mark(e->origin[ZB_TC_SEC_RETENTION]));
    /* the rewrite_data_files keys given (their defaults are compaction's,
     * ops/compact/compact_options.h) */
    for (int i = 0; i < ZB_TC_RW_COUNT && rc == ZB_OK; i++) {
        const zb_tc_rw_desc *d = &zb_tc_rw_opts[i];
        const char *m = mark((e->rw_from_table & (1u << i)) || !e->listed
                                 ? ZB_TC_FROM_TABLE : ZB_TC_FROM_DEFAULTS);
        double v = k->rw.v[i];

        if (!(k->rw.given & (1u << i)))
            continue;
        if (d->kind == ZB_TC_RW_BOOL)
            rc = zb_buf_appendf(b, "  %-24s %s%s\n", d->key,
                                v != 0 ? "true" : "false", m);
        else if (d->kind == ZB_TC_RW_ORDER)
            rc = zb_buf_appendf(b, "  %-24s %s%s\n", d->key,
                                zb_tc_job_order_name((int)v), m);
        else if (d->kind == ZB_TC_RW_RATIO)
            rc = zb_buf_appendf(b, "  %-24s %g%s\n", d->key, v, m);
        else
            rc = zb_buf_appendf(b, "  %-24s %lld%s\n", d->key,
                                (long long)v, m);
    }
    /* only the operations given: the planner's defaults are serve's */
    for (size_t i = 0; i < ZB_TC_SCHEDULE_OPS && rc == ZB_OK; i++)
        if (k->min_interval_minutes[i] >= 0)
            rc = zb_buf_appendf(b, "  schedule.%s.min_interval_minutes "
                                "%lld%s\n", zb_tc_schedule_ops[i],
                                (long long)k->min_interval_minutes[i],
                                mark(e->origin[ZB_TC_SEC_SCHEDULE]));
    return rc;
}

int zb_table_config_summary(zb_buf *out, zb_ctx *ctx,
                            const zb_table_config *tc, const char *table)
{
    zb_tc_effective e;
    int rc;

    ZB_ASSERT_ARG(out && ctx && tc);
    rc = zb_buf_appendf(out, "%s: warehouse %s, version 2, %zu table(s)\n",
                        tc->name, tc->warehouse, tc->n_tables);
    if (table != NULL) {
        zb_table_config_effective(&e, tc, table);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(out, "\ntable %s%s\n", table,
                                e.listed ? "" : " (not listed: defaults)");
        if (rc == ZB_OK)
            rc = put_block(out, &e);
        return rc < 0 ? zb_fail_oom(ctx) : ZB_OK;
    }
    /* the defaults as an unlisted table sees them */
    zb_table_config_effective(&e, tc, NULL);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(out, "\ndefaults%s\n",
                            tc->has_defaults ? "" : " (no \"defaults\" key)");
    if (rc == ZB_OK)
        rc = put_block(out, &e);
    for (size_t i = 0; i < tc->n_tables && rc == ZB_OK; i++) {
        zb_table_config_effective(&e, tc, tc->tables[i].ident);
        rc = zb_buf_appendf(out, "\ntable %s\n", tc->tables[i].ident);
        if (rc == ZB_OK)
            rc = put_block(out, &e);
    }
    return rc < 0 ? zb_fail_oom(ctx) : ZB_OK;
}

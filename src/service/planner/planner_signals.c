/*
 * service/planner/planner_signals.c - a table's health signals, cheap:
 * the current metadata and its current snapshot's manifest list (no
 * manifest is opened), resolved the way the operations resolve their
 * settings (ops/table_settings.h).
 */
#define ZB_MODULE "planner"

#include <stdlib.h>
#include <string.h>

#include "ops/apply_properties.h"
#include "ops/table_settings.h"
#include "service/planner/planner.h"
#include "table/manifest/manifest.h"
#include "table/metadata/metadata.h"
#include "util/err.h"

/* A snapshot summary's number, or -1 when absent or not a number. */
static int64_t summary_num(const ice_snapshot *s, const char *key)
{
    char *end;
    long long v;

    for (size_t i = 0; i < s->n_summary; i++) {
        if (strcmp(s->summary[i].key, key) != 0 || s->summary[i].value == NULL)
            continue;
        v = strtoll(s->summary[i].value, &end, 10);
        return end != s->summary[i].value && *end == '\0' && v >= 0 ? v : -1;
    }
    return -1;
}

static int64_t count_or_zero(int64_t v)
{
    return v > 0 ? v : 0;
}

/* The manifest list: manifests by content and, for the fallback, the
 * live files they count. */
static int read_list(zb_planner_signals *out, zb_ctx *ctx, zb_catalog *cat,
                     const zb_table *t, const ice_snapshot *cur,
                     int64_t *list_data_files, int64_t *list_delete_files)
{
    ice_manifest_list_reader *r = NULL;
    const ice_manifest_file *mf;
    int rc;

    *list_data_files = *list_delete_files = 0;
    if (cur->manifest_list == NULL) {  /* v1 "manifests": count them */
        out->manifests = (int64_t)cur->n_manifests;
        return ZB_OK;
    }
    rc = ice_manifest_list_open(&r, zb_catalog_io(cat), ctx,
                                cur->manifest_list, t->meta->format_version,
                                &t->paths);
    if (rc < 0)
        return rc;
    while ((rc = ice_manifest_list_next(r, ctx, &mf)) > 0) {
        int64_t live = count_or_zero(mf->added_files_count) +
                       count_or_zero(mf->existing_files_count);

        out->manifests++;
        if (mf->content == ICE_MANIFEST_DELETES) {
            out->delete_manifests++;
            *list_delete_files += live;
        } else {
            *list_data_files += live;
        }
    }
    ice_manifest_list_free(r);
    return rc < 0 ? rc : ZB_OK;
}

/* Declared properties the table lacks or holds another value of. */
static int64_t props_missing(const zb_tc_effective *cfg,
                             const ice_metadata *m)
{
    zb_config_props cp;
    zb_config_prop props[ZB_CONFIG_PROPS_MAX];
    size_t n;
    int64_t missing = 0;

    if (cfg == NULL)
        return 0;
    zb_table_config_props(&cp, &cfg->block);
    n = zb_config_props_to_properties(props, &cp);
    for (size_t i = 0; i < n; i++) {
        const char *have = ice_metadata_property(m, props[i].key);

        if (have == NULL || strcmp(have, props[i].value) != 0)
            missing++;
    }
    return missing;
}

static int64_t setting(zb_tset id, const zb_tc_effective *cfg,
                       const ice_metadata *m)
{
    zb_tset_value v;

    /* an unusable history.expire.* property: expire refuses the table
     * itself; the planner plans with what the other sources give */
    (void)zb_tset_resolve(&v, NULL, id, ZB_UNSET, cfg, m);
    return v.value;
}

/* Snapshots older than the max age, not the current one, beyond the
 * ones kept: what expire could remove (refs may keep some). */
static void snapshot_ages(zb_planner_signals *out, const ice_metadata *m,
                          const ice_snapshot *cur)
{
    int64_t old = 0, cutoff;

    out->snapshots = (int64_t)m->n_snapshots;
    cutoff = out->max_snapshot_age_ms == INT64_MAX
                 ? INT64_MIN : out->now_ms - out->max_snapshot_age_ms;
    for (size_t i = 0; i < m->n_snapshots; i++) {
        const ice_snapshot *s = &m->snapshots[i];

        if (out->oldest_snapshot_ms == 0 ||
            s->timestamp_ms < out->oldest_snapshot_ms)
            out->oldest_snapshot_ms = s->timestamp_ms;
        if (s->timestamp_ms < cutoff &&
            (cur == NULL || s->snapshot_id != cur->snapshot_id))
            old++;
    }
    if (old > out->snapshots - out->min_snapshots_to_keep)
        old = out->snapshots - out->min_snapshots_to_keep;
    out->expirable_snapshots = old > 0 ? old : 0;
}

int zb_planner_read_signals(zb_planner_signals *out, zb_ctx *ctx,
                            zb_catalog *cat, const zb_table *t,
                            const zb_tc_effective *cfg, int64_t now_ms)
{
    const ice_metadata *m;
    const ice_snapshot *cur;
    int64_t list_data = 0, list_deletes = 0, v;
    int rc;

    ZB_ASSERT_ARG(out != NULL && cat != NULL && t != NULL && t->meta != NULL);
    memset(out, 0, sizeof(*out));
    m = t->meta;
    out->now_ms = now_ms;
    out->data_bytes = -1;
    out->target_bytes = setting(ZB_TSET_TARGET_FILE_SIZE, cfg, m);
    out->min_input_files = setting(ZB_TSET_MIN_INPUT_FILES, cfg, m);
    out->min_input_manifests = setting(ZB_TSET_MIN_INPUT_MANIFESTS, cfg, m);
    out->max_snapshot_age_ms = setting(ZB_TSET_MAX_SNAPSHOT_AGE, cfg, m);
    out->min_snapshots_to_keep = setting(ZB_TSET_MIN_SNAPSHOTS_TO_KEEP, cfg,
                                         m);
    out->props_missing = props_missing(cfg, m);
    cur = ice_metadata_current_snapshot(m);
    snapshot_ages(out, m, cur);
    if (cur == NULL)
        return ZB_OK;
    out->has_snapshot = 1;
    if ((rc = read_list(out, ctx, cat, t, cur, &list_data, &list_deletes)) <
        0) {
        zb_err_prefix(ctx, "%s: reading the manifest list", t->ident);
        return rc;
    }
    v = summary_num(cur, "total-data-files");
    out->data_files = v >= 0 ? v : list_data;
    out->data_bytes = summary_num(cur, "total-files-size");
    v = summary_num(cur, "total-delete-files");
    out->delete_files = v >= 0 ? v : list_deletes;
    out->position_deletes = count_or_zero(
        summary_num(cur, "total-position-deletes"));
    out->equality_deletes = count_or_zero(
        summary_num(cur, "total-equality-deletes"));
    return ZB_OK;
}

/*
 * ops/maintenance_run.c - the six operations on one table, in order (see
 * ops/maintenance_run.h).
 *
 * zb_maintenance_table walks zb_maint_op_names in order; for each
 * operation it decides the status (not selected, disabled by the
 * table's effective config block, stopped by an earlier abort), builds
 * the operation's options from the block and the overrides (the flag and
 * config layers of ops/table_settings.h: what neither gives is left
 * ZB_UNSET, for the operation to read from the table's properties when it
 * loads the table), runs it, renders its report lines into a buffer and
 * hands the step to the caller's callback. The worst code wins by
 * zb_maint_rc_rank.
 */
#define ZB_MODULE "maintenance"

#include <string.h>
#include <time.h>

#include "ops/apply_properties.h"
#include "ops/compact/compact.h"
#include "ops/compact/compact_evolve.h"
#include "ops/compact/compact_options.h"
#include "ops/expire/expire.h"
#include "ops/maintenance_run.h"
#include "ops/orphans/remove_orphans.h"
#include "ops/remove_dangling_deletes.h"
#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "util/buf.h"
#include "util/err.h"

#define REPORT_MAX ((size_t)1 << 20)

const char *const zb_maint_op_names[ZB_MAINT_OP_COUNT] = {
    "compact",           "apply-properties", "remove-dangling-deletes",
    "rewrite-manifests", "expire",           "remove-orphans"
};

int zb_maint_op_from_name(const char *name)
{
    int i;

    for (i = 0; i < ZB_MAINT_OP_COUNT; i++)
        if (strcmp(zb_maint_op_names[i], name) == 0)
            return i;
    return -1;
}

int zb_maint_rc_rank(int rc)
{
    switch (rc) {
    case ZB_OK:
        return 0;
    case ZB_EUSAGE:
        return 2;
    case ZB_EREFUSED:
    case ZB_EUNSUPPORTED:
        return 3;
    case ZB_EUNSAFE:
        return 4;
    default:
        return rc > 0 ? 0 : 1;
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The retention values without a config: the built-in ones. */
static void builtin_block(zb_tc_block *b)
{
    memset(b, 0, sizeof *b);
    b->target_file_size_bytes = ZB_UNSET;
    b->min_input_files = ZB_TSET_DEFAULT_MIN_INPUT_FILES;
    b->max_concurrent_rewrites = ZB_UNSET;
    b->retention.expire_enabled = 1;
    b->retention.max_snapshot_age_days = ZB_UNSET;
    b->retention.min_snapshots_to_keep = ZB_UNSET;
    b->retention.max_ref_age_days = ZB_UNSET;
    b->retention.orphans_enabled = 1;
    b->retention.orphans_older_than_days = ZB_TSET_DEFAULT_ORPHAN_AGE_DAYS;
    b->retention.dangling_enabled = 1;
    b->retention.manifests_enabled = 1;
    b->retention.min_input_manifests = ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS;
    b->retention.previous_versions_max = ZB_UNSET;
    b->retention.delete_after_commit = ZB_UNSET;
}

/* o's field for setting id (a flag), in the setting's unit. */
static int64_t flag_of(const zb_maint_opts *o, zb_tset id)
{
    switch (id) {
    case ZB_TSET_TARGET_FILE_SIZE:
        return o->target_file_size_bytes;
    case ZB_TSET_MIN_INPUT_FILES:
        return o->min_input_files;
    case ZB_TSET_MAX_SNAPSHOT_AGE:
        return zb_tset_days_ms(o->max_snapshot_age_days);
    case ZB_TSET_MIN_SNAPSHOTS_TO_KEEP:
        return o->min_snapshots_to_keep;
    case ZB_TSET_MAX_REF_AGE:
        return zb_tset_days_ms(o->max_ref_age_days);
    case ZB_TSET_ORPHAN_AGE:
        return zb_tset_days_ms(o->older_than_days);
    case ZB_TSET_MIN_INPUT_MANIFESTS:
        return o->min_input_manifests;
    default:
        return ZB_UNSET;
    }
}

/*
 * What the flag or the table config gives setting id, for an operation's
 * option; ZB_UNSET when neither does: the operation then reads the
 * property when it loads the table (apply-properties may have set it).
 */
static int64_t given(const zb_maint_opts *o, const zb_tc_effective *cfg,
                     zb_tset id)
{
    zb_tset_value v;

    (void)zb_tset_explicit(&v, id, flag_of(o, id), cfg);
    return v.value;
}

int zb_maint_settings(zb_table_settings *out, zb_ctx *ctx,
                      const zb_maint_opts *o, const char *ident,
                      const ice_metadata *m)
{
    zb_tc_effective eff;
    int i, rc = ZB_OK;

    ZB_ASSERT_ARG(out && o);
    if (o->config != NULL)
        zb_table_config_effective(&eff, o->config, ident);
    for (i = 0; i < ZB_TSET_COUNT; i++) {
        /* the first failure keeps its message */
        int r = zb_tset_resolve(&out->v[i], rc == ZB_OK ? ctx : NULL,
                                (zb_tset)i, flag_of(o, (zb_tset)i),
                                o->config != NULL ? &eff : NULL, m);

        if (r < 0 && rc == ZB_OK)
            rc = r;
    }
    return rc;
}

/* The config key that disables op, or NULL when it is enabled. */
static const char *disabled_by(const zb_tc_block *b, zb_maint_op op)
{
    const zb_tc_retention *r = &b->retention;

    switch (op) {
    case ZB_MAINT_REMOVE_DANGLING:
        return r->dangling_enabled ? NULL
                                   : "retention.remove_dangling_deletes.enabled";
    case ZB_MAINT_REWRITE_MANIFESTS:
        return r->manifests_enabled ? NULL
                                    : "retention.rewrite_manifests.enabled";
    case ZB_MAINT_EXPIRE:
        return r->expire_enabled ? NULL : "retention.expire_snapshots.enabled";
    case ZB_MAINT_REMOVE_ORPHANS:
        return r->orphans_enabled ? NULL
                                  : "retention.remove_orphan_files.enabled";
    default:
        return NULL;
    }
}

#define MAX_SORT 16

/* The field id of a top-level column of the table's current schema. */
static int column_id(int32_t *id, zb_ctx *ctx, const zb_table *tbl,
                     const char *ident, const char *column)
{
    const ice_schema *sc = ice_metadata_current_schema(tbl->meta);
    size_t k;

    for (k = 0; sc != NULL && k < sc->root->n_fields; k++)
        if (strcmp(sc->root->fields[k].name, column) == 0) {
            *id = sc->root->fields[k].id;
            return ZB_OK;
        }
    return zb_fail(ctx, ZB_EUSAGE, "%s: no top-level column '%s' to sort "
                   "by", ident, column);
}

/*
 * The ordering of the rewrite: the flags', else the config's (sort
 * columns or z-order), else binpack. Names become field ids of the
 * table's current schema.
 */
static int compact_order(zb_compact_opts *co, zb_compact_sort_field *f,
                         const zb_op_target *t, zb_ctx *ctx,
                         const zb_maint_opts *o, const zb_tc_block *b)
{
    const zb_tc_sort_key *keys = NULL;
    const char *const *zcols = NULL;
    zb_table *tbl = NULL;
    size_t n = 0, k;
    int rc = ZB_OK;

    if (o->sort_by_table_order) {
        co->strategy = ZB_COMPACT_SORT;
        return ZB_OK;
    }
    if (o->n_sort_by > 0) {
        keys = o->sort_by;
        n = o->n_sort_by;
    } else if (b->order_mode == ZB_TC_ORDER_SORT && b->n_sort > 0) {
        keys = b->sort;
        n = b->n_sort;
    } else if (b->order_mode == ZB_TC_ORDER_ZORDER && b->n_zorder > 0) {
        zcols = b->zorder_columns;
        n = b->n_zorder;
    } else {
        return ZB_OK;
    }
    if (n > MAX_SORT)
        return zb_fail(ctx, ZB_EUSAGE, "%s: more than %d ordering columns",
                       t->ident, MAX_SORT);
    if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tbl)) < 0)
        return rc;
    for (k = 0; k < n && rc == ZB_OK; k++) {
        memset(&f[k], 0, sizeof f[k]);
        rc = column_id(&f[k].field_id, ctx, tbl, t->ident,
                       keys ? keys[k].column : zcols[k]);
        if (keys) {
            f[k].descending = keys[k].descending;
            f[k].nulls_first = keys[k].nulls_first;
        }
    }
    zb_table_free(tbl);
    if (rc < 0)
        return rc;
    co->strategy = keys ? ZB_COMPACT_SORT : ZB_COMPACT_ZORDER;
    co->sort_fields = f;
    co->n_sort_fields = n;
    if (zcols && b->precision_bits > 0)
        co->zorder_bits = (unsigned)b->precision_bits;
    return ZB_OK;
}

static int run_compact(const zb_op_target *t, zb_ctx *ctx,
                       const zb_maint_opts *o, const zb_tc_effective *cfg,
                       const zb_tc_block *b, zb_buf *out)
{
    zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field fields[MAX_SORT];
    zb_compact_result r;
    zb_compact_evolve_result er;
    int rc, rrc;

    memset(&r, 0, sizeof r);
    memset(&er, 0, sizeof er);
    if ((rc = compact_order(&co, fields, t, ctx, o, b)) < 0)
        return rc;
    co.target_file_bytes = given(o, cfg, ZB_TSET_TARGET_FILE_SIZE);
    co.min_input_files = (int)given(o, cfg, ZB_TSET_MIN_INPUT_FILES);
    {
        zb_compact_options opts;

        zb_compact_options_resolve(&opts, &o->rw, cfg);
        zb_compact_options_apply(&co, &opts);
    }
    co.rewrite_all |= o->rewrite_all;
    co.partial_progress |= o->partial_progress;
    co.max_group_memory_bytes = o->max_group_memory_bytes;
    co.branch = o->branch;
    co.drain_timeout_ms = o->drain_timeout_ms;
    co.threads = o->threads > 0 ? o->threads : 1;
    co.max_concurrent = o->max_concurrent > 0 ? o->max_concurrent
                        : b->max_concurrent_rewrites > 0
                            ? (int)b->max_concurrent_rewrites
                            : co.threads;
    /* partition_evolution of the table config runs first; the regular
     * pass then leaves its partitions alone (ops/compact/compact_evolve.h) */
    if (o->config != NULL && b->evolution_enabled && b->n_rules > 0) {
        zb_compact_evolve_opts eo = ZB_COMPACT_EVOLVE_OPTS_INIT;

        eo.rules = b->rules;
        eo.n_rules = b->n_rules;
        eo.compact = co;
        if ((rc = zb_compact_evolve(t, ctx, &eo, &er)) < 0) {
            zb_compact_evolve_result_free(&er);
            return rc;
        }
        co.file_filter = zb_compact_evolve_regular_filter;
        co.file_filter_payload = &er;
    }
    rc = zb_compact(t, ctx, &co, &r);
    rrc = zb_compact_report(out, t->ident, &r, t->dry_run);
    if (rrc == ZB_OK)
        rrc = zb_compact_evolve_report(out, &er, t->dry_run);
    zb_compact_result_free(&r);
    zb_compact_evolve_result_free(&er);
    return rc < 0 ? rc : rrc;
}

static int run_apply(const zb_op_target *t, zb_ctx *ctx,
                     const zb_tc_block *b, zb_buf *out)
{
    zb_apply_props_opts ao = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    zb_config_props cp = ZB_CONFIG_PROPS_INIT;
    zb_config_prop props[ZB_CONFIG_PROPS_MAX];
    ice_kv kv[ZB_CONFIG_PROPS_MAX];
    zb_sort_column sort[64];
    size_t n, k;
    int rc, rrc;

    cp.target_file_size_bytes = b->target_file_size_bytes;
    cp.previous_versions_max = b->retention.previous_versions_max;
    cp.delete_after_commit = b->retention.delete_after_commit;
    cp.max_snapshot_age_days = b->retention.max_snapshot_age_days;
    cp.min_snapshots_to_keep = b->retention.min_snapshots_to_keep;
    cp.max_ref_age_days = b->retention.max_ref_age_days;
    n = zb_config_props_to_properties(props, &cp);
    for (k = 0; k < n; k++) {
        kv[k].key = props[k].key;
        kv[k].value = props[k].value;
    }
    ao.set = kv;
    ao.n_set = n;
    if (b->order_mode == ZB_TC_ORDER_SORT && b->n_sort > 0) {
        if (b->n_sort > sizeof sort / sizeof sort[0])
            return zb_fail(ctx, ZB_EUSAGE, "%s: ordering.sort has more than "
                           "64 columns", t->ident);
        for (k = 0; k < b->n_sort; k++) {
            sort[k].column = b->sort[k].column;
            sort[k].descending = b->sort[k].descending;
            sort[k].nulls_first = b->sort[k].nulls_first;
            sort[k].transform = NULL;
        }
        ao.sort = sort;
        ao.n_sort = b->n_sort;
    }
    rc = zb_apply_properties(t, ctx, &ao, &r);
    rrc = zb_apply_properties_report(out, t->ident, &r, t->dry_run);
    zb_apply_props_result_free(&r);
    return rc < 0 ? rc : rrc;
}

static int run_dangling(const zb_op_target *t, zb_ctx *ctx, zb_buf *out)
{
    zb_dangling_opts dop = ZB_DANGLING_OPTS_INIT;
    zb_dangling_result r = ZB_DANGLING_RESULT_INIT;
    int rc, rrc;

    rc = zb_remove_dangling_deletes(t, ctx, &dop, &r);
    rrc = zb_dangling_report(out, t->ident, &r, t->dry_run);
    return rc < 0 ? rc : rrc;
}

static int run_manifests(const zb_op_target *t, zb_ctx *ctx,
                         const zb_maint_opts *o, const zb_tc_effective *cfg,
                         zb_buf *out)
{
    zb_rewrite_manifests_opts mo = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    int rc, rrc;

    memset(&r, 0, sizeof r);
    mo.min_input_manifests = (int)given(o, cfg, ZB_TSET_MIN_INPUT_MANIFESTS);
    rc = zb_rewrite_manifests(t, ctx, &mo, &r);
    rrc = zb_rewrite_manifests_report(out, t->ident, &r, t->dry_run);
    return rc < 0 ? rc : rrc;
}

static int run_expire(const zb_op_target *t, zb_ctx *ctx,
                      const zb_maint_opts *o, const zb_tc_effective *cfg,
                      zb_buf *out)
{
    zb_expire_opts eo = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    int rc, rrc;

    eo.read_threads = o->threads > 0 ? o->threads : 1;
    eo.max_snapshot_age_ms = given(o, cfg, ZB_TSET_MAX_SNAPSHOT_AGE);
    eo.min_snapshots_to_keep =
        (int32_t)given(o, cfg, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP);
    eo.max_ref_age_ms = given(o, cfg, ZB_TSET_MAX_REF_AGE);
    rc = zb_expire(t, ctx, &eo, &r);
    rrc = zb_expire_report(out, t->ident, &r, t->dry_run);
    zb_expire_result_free(&r);
    return rc < 0 ? rc : rrc;
}

static int run_orphans(const zb_op_target *t, zb_ctx *ctx,
                       const zb_maint_opts *o, const zb_tc_effective *cfg,
                       zb_buf *out)
{
    zb_remove_orphans_opts oo = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    int rc, rrc;

    memset(&r, 0, sizeof r);
    oo.read_threads = o->threads > 0 ? o->threads : 1;
    oo.older_than_ms = given(o, cfg, ZB_TSET_ORPHAN_AGE);
    oo.force = o->orphans_force;
    rc = zb_remove_orphans(t, ctx, &oo, &r);
    rrc = zb_remove_orphans_report(out, t->ident, &r, t->dry_run);
    return rc < 0 ? rc : rrc;
}

/* cfg: the table's effective config block, NULL without a config (b then
 * holds the built-in values). */
static int run_op(const zb_op_target *t, zb_ctx *ctx, const zb_maint_opts *o,
                  const zb_tc_effective *cfg, const zb_tc_block *b,
                  zb_maint_op op, zb_buf *out)
{
    switch (op) {
    case ZB_MAINT_COMPACT:
        return run_compact(t, ctx, o, cfg, b, out);
    case ZB_MAINT_APPLY_PROPERTIES:
        return run_apply(t, ctx, b, out);
    case ZB_MAINT_REMOVE_DANGLING:
        return run_dangling(t, ctx, out);
    case ZB_MAINT_REWRITE_MANIFESTS:
        return run_manifests(t, ctx, o, cfg, out);
    case ZB_MAINT_EXPIRE:
        return run_expire(t, ctx, o, cfg, out);
    case ZB_MAINT_REMOVE_ORPHANS:
        return run_orphans(t, ctx, o, cfg, out);
    default:
        return zb_fail(ctx, ZB_EINVAL, "no operation %d", (int)op);
    }
}

int zb_maintenance_table(const zb_op_target *t, zb_ctx *ctx,
                         const zb_maint_opts *o, zb_maint_step_fn on_step,
                         void *payload)
{
    zb_tc_effective eff;
    const zb_tc_block *b;
    zb_buf lines;
    int worst = ZB_OK, i, stopped = -1;

    ZB_ASSERT_ARG(t && ctx && o && t->ident);
    /* a table that does not load fails once, not once per operation */
    {
        zb_table *probe = NULL;
        int rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &probe);

        zb_table_free(probe);
        if (rc < 0)
            return rc;
    }
    if (o->config != NULL) {
        zb_table_config_effective(&eff, o->config, t->ident);
    } else {
        memset(&eff, 0, sizeof eff);
        builtin_block(&eff.block);
    }
    b = &eff.block;
    zb_buf_init(&lines, REPORT_MAX);
    for (i = 0; i < ZB_MAINT_OP_COUNT; i++) {
        zb_maint_step st;
        const char *why;
        int64_t t0;

        memset(&st, 0, sizeof st);
        st.table = t->ident;
        st.op = (zb_maint_op)i;
        if (!o->run[i])
            continue;
        if (stopped >= 0) {
            st.status = ZB_MAINT_STOPPED;
            st.detail = zb_maint_op_names[stopped];
        } else if ((why = disabled_by(b, st.op)) != NULL) {
            st.status = ZB_MAINT_DISABLED;
            st.detail = why;
        } else {
            st.status = ZB_MAINT_RAN;
            zb_buf_clear(&lines);
            zb_err_clear(&ctx->err);
            t0 = now_ms();
            st.rc = run_op(t, ctx, o, o->config != NULL ? &eff : NULL, b,
                           st.op, &lines);
            /* a refusal comes before any work: its zero counts say
             * nothing */
            if (st.rc == ZB_EREFUSED || st.rc == ZB_EUSAGE ||
                st.rc == ZB_EINVAL || st.rc == ZB_EUNSUPPORTED)
                zb_buf_clear(&lines);
            st.elapsed_ms = now_ms() - t0;
            st.detail = zb_buf_cstr(&lines);
            if (st.rc < 0)
                st.error = ctx->err.msg[0] ? ctx->err.msg
                                           : zb_rc_name(st.rc);
            if (zb_maint_rc_rank(st.rc) > zb_maint_rc_rank(worst))
                worst = st.rc;
            if (st.rc == ZB_EUNSAFE)
                stopped = i;
        }
        if (on_step)
            on_step(&st, payload);
    }
    zb_buf_free(&lines);
    return worst;
}

/*
 * ops/api/api_ops.c - include/zamboni/ops.h: the six operations behind the
 * public API.
 *
 * Each zb_ops_OP checks the options' version, builds the zb_op_target of
 * ops/ops.h (the catalog, its FileIO, the table's name, dry_run), maps the
 * public options onto the operation's own (every other field at its
 * INIT value: the table's properties, then the defaults, as the command
 * line without a table config), runs it, and copies the counts into the
 * public result, freeing the operation's own. Compaction's sort columns
 * are named: they become field ids of the table's current schema here,
 * as the maintenance run does for --sort-by.
 */
#define ZB_MODULE "api"

#include <stdio.h>
#include <string.h>

#include "ops/apply_properties.h"
#include "ops/compact/compact.h"
#include "ops/expire/expire.h"
#include "ops/orphans/remove_orphans.h"
#include "ops/remove_dangling_deletes.h"
#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "util/alloc.h"
#include "util/err.h"
#include "zamboni/ops.h"

#define MAX_SORT_COLUMNS 16

static int check_version(zb_ctx *ctx, const char *what, unsigned got,
                         unsigned want)
{
    if (got == want)
        return ZB_OK;
    return zb_fail(ctx, ZB_EINVAL, "%s version %u, this library has %u",
                   what, got, want);
}

static void target_of(zb_op_target *t, zb_catalog *cat, const char *table,
                      int dry_run)
{
    memset(t, 0, sizeof *t);
    t->catalog = cat;
    t->io = zb_catalog_io(cat);
    t->ident = table;
    t->dry_run = dry_run != 0;
}

/* ---- compact ---- */

/* The field id of a top-level column of the schema, or -1. */
static int32_t column_id(const ice_schema *sc, const char *name)
{
    size_t k;

    for (k = 0; name != NULL && sc != NULL && k < sc->root->n_fields; k++)
        if (strcmp(sc->root->fields[k].name, name) == 0)
            return sc->root->fields[k].id;
    return -1;
}

/* Named columns -> field ids of the table's current schema. */
static int sort_fields(zb_compact_sort_field *f, zb_catalog *cat,
                       zb_ctx *ctx, const char *table,
                       const zb_ops_compact_opts *o)
{
    zb_table *tbl = NULL;
    const ice_schema *sc;
    size_t i;
    int rc;

    if (o->n_sort_columns > MAX_SORT_COLUMNS)
        return zb_fail(ctx, ZB_EUSAGE, "%s: more than %d ordering columns",
                       table, MAX_SORT_COLUMNS);
    if ((rc = zb_catalog_load_table(cat, ctx, table, &tbl)) < 0)
        return rc;
    sc = ice_metadata_current_schema(tbl->meta);
    for (i = 0; i < o->n_sort_columns; i++) {
        const zb_ops_sort_column *c = &o->sort_columns[i];

        memset(&f[i], 0, sizeof f[i]);
        f[i].field_id = column_id(sc, c->name);
        f[i].descending = c->descending != 0;
        f[i].nulls_first = c->nulls_first != 0;
        if (f[i].field_id < 0) {
            rc = zb_fail(ctx, ZB_EUSAGE, "%s: no top-level column '%.200s' "
                         "to sort by", table, c->name ? c->name : "(null)");
            break;
        }
    }
    zb_table_free(tbl);
    return rc;
}

static void compact_out(zb_ops_compact_result *out, const zb_compact_result *r,
                        int dry_run)
{
    const zb_compact_plan *p = &r->plan;

    /* a plan that failed is freed, zeros and all */
    out->planned_snapshot_id = p->arena != NULL ? p->snapshot_id : -1;
    out->groups = p->n_groups;
    out->groups_committed = r->groups_committed;
    out->groups_failed = r->groups_dropped + r->groups_failed;
    out->files_rewritten = dry_run ? p->files : r->files_removed;
    out->bytes_rewritten = dry_run ? p->bytes : r->bytes_removed;
    out->files_written = dry_run ? p->est_out_files : r->files_added;
    out->bytes_written = dry_run ? 0 : r->bytes_added;
    out->rows = dry_run ? p->rows : r->rows_written;
    out->commits = r->commits;
    out->snapshot_id = r->snapshot_id;
    out->stopped = r->stopped;
}

int zb_ops_compact(zb_ops_compact_result *out, zb_catalog *cat, zb_ctx *ctx,
                   const char *table, const zb_ops_compact_opts *opts)
{
    zb_ops_compact_opts dflt = ZB_OPS_COMPACT_OPTS_INIT;
    zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
    zb_compact_sort_field fields[MAX_SORT_COLUMNS];
    zb_compact_result r;
    zb_op_target t;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    memset(&r, 0, sizeof r);
    out->planned_snapshot_id = -1;
    out->snapshot_id = -1;
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_compact_opts", opts->version,
                            ZB_OPS_COMPACT_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    /* the public "take the table's" (0 or less) is the engine's unset */
    co.target_file_bytes = opts->target_file_bytes > 0
                               ? opts->target_file_bytes : ZB_UNSET;
    switch (opts->strategy) {
    case ZB_OPS_COMPACT_BINPACK:
        co.strategy = ZB_COMPACT_BINPACK;
        break;
    case ZB_OPS_COMPACT_SORT:
        co.strategy = ZB_COMPACT_SORT;
        break;
    case ZB_OPS_COMPACT_ZORDER:
        co.strategy = ZB_COMPACT_ZORDER;
        break;
    default:
        return zb_fail(ctx, ZB_EUSAGE, "%s: no compaction strategy %d",
                       table, (int)opts->strategy);
    }
    if (opts->n_sort_columns > 0 && co.strategy == ZB_COMPACT_BINPACK)
        return zb_fail(ctx, ZB_EUSAGE, "%s: sort columns given to a binpack "
                       "compaction: choose ZB_OPS_COMPACT_SORT or _ZORDER",
                       table);
    if (opts->n_sort_columns > 0) {
        if ((rc = sort_fields(fields, cat, ctx, table, opts)) < 0)
            return rc;
        co.sort_fields = fields;
        co.n_sort_fields = opts->n_sort_columns;
    }
    rc = zb_compact(&t, ctx, &co, &r);
    compact_out(out, &r, t.dry_run);
    zb_compact_result_free(&r);
    return rc;
}

/* ---- apply-properties ---- */

int zb_ops_apply_properties(zb_ops_apply_properties_result *out,
                            zb_catalog *cat, zb_ctx *ctx, const char *table,
                            const zb_ops_apply_properties_opts *opts)
{
    zb_ops_apply_properties_opts dflt = ZB_OPS_APPLY_PROPERTIES_OPTS_INIT;
    zb_apply_props_opts ao = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    ice_kv *kv = NULL;
    zb_op_target t;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_apply_properties_opts",
                            opts->version,
                            ZB_OPS_APPLY_PROPERTIES_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    if (opts->n_set > 0) {
        if ((kv = zb_calloc(opts->n_set, sizeof *kv)) == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < opts->n_set; i++) {
            kv[i].key = opts->set[i].key;
            kv[i].value = opts->set[i].value;
        }
    }
    ao.set = kv;
    ao.n_set = opts->n_set;
    ao.remove = opts->remove;
    ao.n_remove = opts->n_remove;
    ao.format_version = opts->format_version;
    rc = zb_apply_properties(&t, ctx, &ao, &r);
    out->changes = r.n_changes;
    out->committed = r.committed;
    zb_apply_props_result_free(&r);
    zb_free(kv);
    return rc;
}

/* ---- remove-dangling-deletes ---- */

int zb_ops_remove_dangling_deletes(
    zb_ops_remove_dangling_deletes_result *out, zb_catalog *cat, zb_ctx *ctx,
    const char *table, const zb_ops_remove_dangling_deletes_opts *opts)
{
    zb_ops_remove_dangling_deletes_opts dflt =
        ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_INIT;
    zb_dangling_opts dop = ZB_DANGLING_OPTS_INIT;
    zb_dangling_result r = ZB_DANGLING_RESULT_INIT;
    zb_op_target t;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    out->snapshot_id = -1;
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_remove_dangling_deletes_opts",
                            opts->version,
                            ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    rc = zb_remove_dangling_deletes(&t, ctx, &dop, &r);
    out->delete_files = r.delete_files;
    out->dangling = r.dangling;
    out->removed = r.removed;
    out->removed_bytes = r.removed_bytes;
    out->kept_shared = r.kept_shared;
    out->snapshot_id = r.snapshot_id;
    out->committed = r.committed;
    return rc;
}

/* ---- rewrite-manifests ---- */

int zb_ops_rewrite_manifests(zb_ops_rewrite_manifests_result *out,
                             zb_catalog *cat, zb_ctx *ctx, const char *table,
                             const zb_ops_rewrite_manifests_opts *opts)
{
    zb_ops_rewrite_manifests_opts dflt = ZB_OPS_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_opts mo = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    zb_op_target t;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    memset(&r, 0, sizeof r);
    out->snapshot_id = -1;
    r.snapshot_id = -1;
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_rewrite_manifests_opts",
                            opts->version,
                            ZB_OPS_REWRITE_MANIFESTS_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    rc = zb_rewrite_manifests(&t, ctx, &mo, &r);
    out->skipped = r.skipped;
    snprintf(out->reason, sizeof out->reason, "%s", r.skipped ? r.reason : "");
    out->data_manifests = r.data_manifests;
    out->new_data_manifests = r.new_data_manifests;
    out->delete_manifests = r.delete_manifests;
    out->new_delete_manifests = r.new_delete_manifests;
    out->entries = r.entries;
    out->snapshot_id = r.snapshot_id;
    out->committed = r.committed;
    return rc;
}

/* ---- expire ---- */

int zb_ops_expire(zb_ops_expire_result *out, zb_catalog *cat, zb_ctx *ctx,
                  const char *table, const zb_ops_expire_opts *opts)
{
    zb_ops_expire_opts dflt = ZB_OPS_EXPIRE_OPTS_INIT;
    zb_expire_opts eo = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    zb_op_target t;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_expire_opts", opts->version,
                            ZB_OPS_EXPIRE_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    eo.max_snapshot_age_ms = opts->max_snapshot_age_ms >= 0
                                 ? opts->max_snapshot_age_ms : ZB_UNSET;
    eo.min_snapshots_to_keep = opts->min_snapshots_to_keep >= 1
                                   ? opts->min_snapshots_to_keep : ZB_UNSET;
    eo.max_ref_age_ms = opts->max_ref_age_ms >= 0 ? opts->max_ref_age_ms
                                                  : ZB_UNSET;
    rc = zb_expire(&t, ctx, &eo, &r);
    out->snapshots_expired = r.snapshots_expired;
    out->snapshots_retained = r.snapshots_retained;
    out->refs_dropped = r.refs_dropped;
    out->files_deleted = r.files_deleted;
    out->bytes_deleted = r.bytes_deleted;
    out->files_not_deleted = r.files_not_deleted;
    out->metadata_files_deleted = r.metadata_deleted;
    out->committed = r.committed;
    out->gc_disabled = r.gc_disabled;
    zb_expire_result_free(&r);
    return rc;
}

/* ---- remove-orphans ---- */

int zb_ops_remove_orphans(zb_ops_remove_orphans_result *out, zb_catalog *cat,
                          zb_ctx *ctx, const char *table,
                          const zb_ops_remove_orphans_opts *opts)
{
    zb_ops_remove_orphans_opts dflt = ZB_OPS_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_opts oo = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    zb_op_target t;
    int rc;

    ZB_ASSERT_ARG(out && cat && ctx && table);
    memset(out, 0, sizeof *out);
    memset(&r, 0, sizeof r);
    if (opts == NULL)
        opts = &dflt;
    if ((rc = check_version(ctx, "zb_ops_remove_orphans_opts", opts->version,
                            ZB_OPS_REMOVE_ORPHANS_OPTS_VERSION)) < 0)
        return rc;
    target_of(&t, cat, table, opts->dry_run);
    oo.older_than_ms = opts->older_than_ms >= 0 ? opts->older_than_ms
                                                : ZB_UNSET;
    oo.force = opts->force != 0;
    rc = zb_remove_orphans(&t, ctx, &oo, &r);
    out->files_scanned = r.files_scanned;
    out->files_referenced = r.files_referenced;
    out->files_unreferenced = r.files_unreferenced;
    out->files_deleted = r.files_deleted;
    out->bytes_deleted = r.bytes_deleted;
    out->files_left = r.files_left;
    out->files_not_deleted = r.files_not_deleted;
    out->older_than_ms = r.older_than_ms;
    return rc;
}

/*
 * cli/verbs/maintenance_status.c - `maintenance --status`: the warehouse before
 * and after the run, in the shape of seed 003 section 4:
 *
 *     demo, before:
 *       3 tables, 1,284 data files, 4.1GiB data, 812MiB metadata,
 *       310 delete files, 402 snapshots
 *     ...
 *     demo, after:
 *       3 tables, 47 data files, 4.0GiB data, 61MiB metadata,
 *       0 delete files, 3 snapshots
 *       reclaimed 219MiB
 *
 * then one line per table (files and bytes on disk, before -> after),
 * and on stderr "    ROW COUNT CHANGED: a -> b" when a table's live rows
 * (every delete applied, counted by the row stream) differ.
 *
 * Counts per table (zb_status_collect): the live data and delete files of
 * the current snapshot, their bytes and the data files' record counts,
 * from the manifests; the snapshots in the metadata; and a listing of the
 * table's root through FileIO: every file's bytes (what the run can
 * reclaim: superseded data, old manifests and metadata files) and those
 * under <root>/metadata/. "reclaimed" is the drop in bytes on disk.
 */
#define ZB_MODULE "cli"

#include <string.h>

#include "cli/verbs/verbs.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"

/* 1284 -> "1,284". */
static void commas(char *out, size_t size, uint64_t v)
{
    char tmp[32];
    size_t n, i, j = 0;

    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    n = strlen(tmp);
    for (i = 0; i < n && j + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[j++] = ',';
        out[j++] = tmp[i];
    }
    out[j] = '\0';
}

static int count_live(zb_status_row *row, zb_io *io, zb_ctx *ctx,
                      const zb_table *t)
{
    ice_live_counts c;
    int rc = ice_snapshot_live_counts(&c, io, ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths, 0);

    if (rc < 0)
        return rc;
    row->data_files = c.data_files;
    row->data_bytes = c.data_bytes;
    row->data_rows = c.data_rows;
    row->delete_files = c.delete_files;
    row->delete_bytes = c.delete_bytes;
    return ZB_OK;
}

/*
 * The live rows of the current snapshot (every delete applied), one task
 * at a time, reading one column (the first that is not a variant) and
 * the equality keys the deletes need.
 */
static int count_rows(zb_status_row *row, zb_io *io, zb_ctx *ctx,
                      const zb_table *t)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(t->meta);
    const ice_schema *schema = ice_metadata_current_schema(t->meta);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *plan = NULL;
    const zb_scan_task *task;
    int32_t one_id = 0;
    size_t k;
    int rc, have_id = 0;

    if (snap == NULL)
        return ZB_OK;
    if (schema == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s has no current schema",
                       t->metadata_location);
    for (k = 0; k < schema->root->n_fields && !have_id; k++)
        if (schema->root->fields[k].type->id != ICE_VARIANT) {
            one_id = schema->root->fields[k].id;
            have_id = 1;
        }
    po.manifest = &t->paths;
    if ((rc = zb_scan_plan_open(&plan, io, ctx, t->meta, snap, &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(plan, ctx, &task)) > 0) {
        zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
        zb_rowstream *rs = NULL;
        struct ArrowArray batch;

        memset(&batch, 0, sizeof batch);
        o.meta = t->meta;
        o.schema = schema;
        o.paths = &t->paths;
        if (have_id) {
            o.field_ids = &one_id;
            o.n_field_ids = 1;
        }
        if ((rc = zb_rowstream_open(&rs, io, ctx, &o, task, 1)) < 0)
            break;
        while ((rc = zb_rowstream_next(rs, ctx, &batch, NULL)) == 1) {
            row->live_rows += (uint64_t)batch.length;
            zb_arrow_array_release(&batch);
        }
        zb_arrow_array_release(&batch);
        zb_rowstream_free(rs);
        if (rc < 0)
            break;
    }
    zb_scan_plan_free(plan);
    return rc < 0 ? rc : ZB_OK;
}

static int count_disk(zb_status_row *row, zb_io *io, zb_ctx *ctx,
                      const char *root)
{
    zb_io_lister *l = NULL;
    zb_io_entry e;
    size_t rl = strlen(root);
    int rc;

    if ((rc = zb_io_list(&l, io, ctx, root)) < 0)
        return rc;
    while ((rc = zb_io_lister_next(l, ctx, &e)) > 0) {
        const char *rest = e.uri;

        row->disk_files++;
        row->disk_bytes += e.size_bytes;
        if (strncmp(rest, root, rl) == 0)
            rest += rl;
        while (*rest == '/')
            rest++;
        if (strncmp(rest, "metadata/", 9) == 0)
            row->metadata_bytes += e.size_bytes;
    }
    zb_io_lister_free(l);
    return rc < 0 ? rc : ZB_OK;
}

int zb_status_collect(zb_status_row *row, zb_verb_env *env, zb_ctx *ctx,
                      const char *table)
{
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    int owned = 0, rc;

    memset(row, 0, sizeof *row);
    row->table = table;
    if ((rc = zb_verb_catalog(&cat, &owned, env, ctx, table)) < 0)
        goto done;
    if ((rc = zb_catalog_load_table(cat, ctx, table, &t)) < 0)
        goto done;
    row->snapshots = t->meta->n_snapshots;
    if ((rc = count_live(row, env->io, ctx, t)) < 0)
        goto done;
    row->ok = 1;
    /* a store that cannot be listed still gets its live counts */
    if (count_disk(row, env->io, ctx, t->root) == ZB_OK) {
        row->disk_ok = 1;
    } else {
        row->disk_files = row->disk_bytes = row->metadata_bytes = 0;
        zb_err_clear(&ctx->err);
    }
    /* the live rows are a check, not a count the report needs */
    if (count_rows(row, env->io, ctx, t) == ZB_OK)
        row->rows_ok = 1;
    else
        zb_err_clear(&ctx->err);
done:
    zb_table_free(t);
    if (owned)
        zb_catalog_free(cat);
    return rc;
}

void zb_status_print_totals(FILE *out, const char *warehouse,
                            const char *when, const zb_status_row *rows,
                            size_t n)
{
    uint64_t files = 0, bytes = 0, meta = 0, dels = 0, snaps = 0;
    size_t k, ok = 0;
    char a[32], b[32], c[32], d[32], e[32];

    for (k = 0; k < n; k++) {
        if (!rows[k].ok)
            continue;
        ok++;
        files += rows[k].data_files;
        bytes += rows[k].data_bytes;
        meta += rows[k].metadata_bytes;
        dels += rows[k].delete_files;
        snaps += rows[k].snapshots;
    }
    commas(a, sizeof a, files);
    zb_str_format_bytes(b, sizeof b, bytes);
    zb_str_format_bytes(c, sizeof c, meta);
    commas(d, sizeof d, dels);
    commas(e, sizeof e, snaps);
    fprintf(out, "%s, %s:\n  %zu table%s, %s data files, %s data, %s "
                 "metadata, %s delete files, %s snapshots\n",
            warehouse, when, ok, ok == 1 ? "" : "s", a, b, c, d, e);
    if (ok < n)
        fprintf(out, "  %zu table(s) could not be read\n", n - ok);
}

void zb_status_print_change(FILE *out, const zb_status_row *before,
                            const zb_status_row *after, size_t n)
{
    uint64_t b = 0, a = 0;
    size_t k;
    char s1[32], s2[32];

    for (k = 0; k < n; k++) {
        if (!before[k].disk_ok || !after[k].disk_ok)
            continue;
        b += before[k].disk_bytes;
        a += after[k].disk_bytes;
    }
    zb_str_format_bytes(s1, sizeof s1, b > a ? b - a : 0);
    fprintf(out, "  reclaimed %s\n", s1);
    fprintf(out, "\nstatus\n  %s\n  %-34s %6s    %-6s %8s\n",
            "--------------------------------------------------------------------",
            "table", "files", "", "bytes");
    for (k = 0; k < n; k++) {
        if (!before[k].ok || !after[k].ok) {
            fprintf(out, "  %-34s (not read)\n", before[k].table);
            continue;
        }
        if (!before[k].disk_ok || !after[k].disk_ok) {
            fprintf(out, "  %-34s (its location cannot be listed)\n",
                    before[k].table);
            continue;
        }
        zb_str_format_bytes(s1, sizeof s1, before[k].disk_bytes);
        zb_str_format_bytes(s2, sizeof s2, after[k].disk_bytes);
        fprintf(out, "  %-34s %6llu -> %-6llu %8s -> %s\n", before[k].table,
                (unsigned long long)before[k].disk_files,
                (unsigned long long)after[k].disk_files, s1, s2);
        if (before[k].rows_ok && after[k].rows_ok &&
            before[k].live_rows != after[k].live_rows) {
            fflush(out);
            fprintf(stderr, "    ROW COUNT CHANGED: %llu -> %llu\n",
                    (unsigned long long)before[k].live_rows,
                    (unsigned long long)after[k].live_rows);
        }
    }
}

/*
 * ops/remove_dangling_deletes.c - remove-dangling-deletes (see
 * ops/remove_dangling_deletes.h): list the live delete files of the current
 * snapshot from its delete manifests, run the scan planner over every live data
 * file to learn which of them apply, and remove the rest in one "delete"
 * snapshot.
 */
#define ZB_MODULE "dangling"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ops/remove_dangling_deletes.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

#define DEFAULT_ATTEMPTS 4

typedef struct dfile {
    const char *path;              /* as the manifest writes it */
    int64_t bytes;
    int content;
    int dv;
    size_t manifest;               /* index among the delete manifests */
    int used;
} dfile;

typedef struct dscan {
    zb_ctx *ctx;
    zb_arena *arena;
    zb_vec files;                  /* dfile */
    zb_vec live;                   /* uint64_t per delete manifest */
    json_t *by_key;                /* key -> index in files */
    json_t *remove;                /* path -> true: the removal */
    zb_buf key;
} dscan;

static void dscan_free(dscan *s)
{
    zb_arena_free(s->arena);
    zb_vec_free(&s->files);
    zb_vec_free(&s->live);
    json_decref(s->by_key);
    json_decref(s->remove);
    zb_buf_free(&s->key);
    memset(s, 0, sizeof *s);
}

/* A delete file's identity: its path, and for a DV its blob offset. */
static int file_key(dscan *s, const ice_data_file *f)
{
    zb_buf_clear(&s->key);
    if (zb_buf_puts(&s->key, f->file_path) < 0 ||
        (ice_data_file_is_dv(f) && zb_buf_appendf(&s->key, "\x01%lld",
                                    (long long)f->content_offset) < 0))
        return zb_fail_oom(s->ctx);
    return ZB_OK;
}

/* Reads only delete manifests, each with its count of live entries. */
static int keep_deletes(const ice_manifest_file *mf, zb_ctx *ctx,
                        void *payload)
{
    dscan *s = payload;
    uint64_t *n_live;

    if (mf->content != ICE_MANIFEST_DELETES)
        return 0;
    if (zb_vec_push(&s->live, (void **)&n_live) < 0)
        return zb_fail_oom(ctx);
    *n_live = 0;
    return 1;
}

/* The live delete files of snap's delete manifests. */
static int list_deletes(dscan *s, zb_io *io, const zb_table *tbl,
                        const ice_snapshot *snap)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int rc;

    if ((rc = ice_snapshot_iter_open(&it, io, s->ctx, tbl->meta, snap,
                                     &tbl->paths)) < 0)
        return rc;
    ice_snapshot_iter_filter(it, keep_deletes, s);
    while ((rc = ice_snapshot_iter_next(it, s->ctx, &e, &mf)) > 0) {
        const ice_data_file *f = &e->data_file;
        dfile *d;

        if (f->content == ICE_CONTENT_DATA) {
            rc = zb_fail(s->ctx, ZB_ECORRUPT, "%s: delete manifest %s "
                         "lists data file %s", tbl->ident,
                         mf->manifest_path, f->file_path);
            break;
        }
        if ((rc = file_key(s, f)) < 0)
            break;
        if (zb_vec_push(&s->files, (void **)&d) < 0) {
            rc = zb_fail_oom(s->ctx);
            break;
        }
        memset(d, 0, sizeof *d);
        d->path = zb_arena_strdup(s->arena, f->file_path);
        d->dv = ice_data_file_is_dv(f);
        d->content = (int)f->content;
        d->bytes = ice_data_file_stored_bytes(f);
        d->manifest = s->live.len - 1;
        (*(uint64_t *)zb_vec_at(&s->live, d->manifest))++;
        if (d->path == NULL ||
            json_object_set_new(s->by_key, zb_buf_cstr(&s->key),
                                json_integer((json_int_t)(s->files.len -
                                                          1))) < 0) {
            rc = zb_fail_oom(s->ctx);
            break;
        }
    }
    ice_snapshot_iter_free(it);
    return rc;
}

/* Marks every delete file the planner applies to some live data file. */
static int mark_used(dscan *s, zb_io *io, const zb_table *tbl,
                     const ice_snapshot *snap, const zb_dangling_opts *o,
                     zb_dangling_result *r)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    int rc;

    po.manifest = &tbl->paths;
    po.max_index_bytes = o->max_index_bytes;
    if ((rc = zb_scan_plan_open(&p, io, s->ctx, tbl->meta, snap, &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(p, s->ctx, &task)) > 0) {
        size_t i;

        r->data_files++;
        for (i = 0; i < task->n_deletes; i++) {
            json_t *ix;

            if ((rc = file_key(s, task->deletes[i].file)) < 0)
                break;
            ix = json_object_get(s->by_key, zb_buf_cstr(&s->key));
            if (ix != NULL)
                ((dfile *)zb_vec_at(&s->files,
                                    (size_t)json_integer_value(ix)))->used = 1;
        }
        if (rc < 0)
            break;
        if (zb_ctx_stopped(s->ctx)) {
            rc = zb_fail(s->ctx, ZB_ECANCELED, "%s: stopped", tbl->ident);
            break;
        }
    }
    zb_scan_plan_free(p);
    return rc;
}

/* One plan against tbl: counts into r, the removal into s->remove. */
static int plan_once(dscan *s, zb_io *io, const zb_table *tbl,
                     const zb_dangling_opts *o, zb_dangling_result *r)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(tbl->meta);
    json_t *shared;                /* DV files with a used DV */
    uint64_t *removed_in;
    size_t i;
    int rc;

    if (snap == NULL || snap->manifest_list == NULL)
        return ZB_OK;              /* no snapshot, or v1: no deletes */
    if ((rc = list_deletes(s, io, tbl, snap)) < 0)
        return rc;
    for (i = 0; i < s->files.len; i++) {
        const dfile *d = zb_vec_at(&s->files, i);

        r->delete_files++;
        if (d->dv)
            r->dvs++;
        else if (d->content == ICE_CONTENT_POSITION_DELETES)
            r->pos_files++;
        else
            r->eq_files++;
    }
    if (s->files.len == 0)
        return ZB_OK;
    if ((rc = mark_used(s, io, tbl, snap, o, r)) < 0)
        return rc;
    if ((shared = json_object()) == NULL ||
        (removed_in = zb_calloc(s->live.len + 1, sizeof *removed_in)) == NULL) {
        json_decref(shared);
        return zb_fail_oom(s->ctx);
    }
    for (i = 0; i < s->files.len && rc == ZB_OK; i++) {
        const dfile *d = zb_vec_at(&s->files, i);

        if (d->dv && d->used &&
            json_object_set_new(shared, d->path, json_true()) < 0)
            rc = zb_fail_oom(s->ctx);
    }
    for (i = 0; i < s->files.len && rc == ZB_OK; i++) {
        const dfile *d = zb_vec_at(&s->files, i);

        if (d->used)
            continue;
        r->dangling++;
        if (d->dv && json_object_get(shared, d->path) != NULL) {
            r->kept_shared++;
            continue;
        }
        r->removable++;
        r->removable_bytes += (uint64_t)(d->bytes > 0 ? d->bytes : 0);
        removed_in[d->manifest]++;
        if (json_object_set_new(s->remove, d->path, json_true()) < 0)
            rc = zb_fail_oom(s->ctx);
    }
    for (i = 0; i < s->live.len && rc == ZB_OK; i++)
        if (removed_in[i] > 0 &&
            removed_in[i] == *(uint64_t *)zb_vec_at(&s->live, i))
            r->whole_manifests++;
    zb_free(removed_in);
    json_decref(shared);
    return rc;
}

/* After the commit: no removed file may still be live. */
static int check_committed(dscan *s, zb_io *io, const zb_table *tbl,
                           const zb_dangling_result *r)
{
    const ice_snapshot *snap = ice_metadata_snapshot(tbl->meta,
                                                     r->snapshot_id);
    ice_manifest_list_reader *lr = NULL;
    ice_manifest_reader *mr = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int v = tbl->meta->format_version, rc;

    if (snap == NULL || snap->manifest_list == NULL)
        return zb_fail(s->ctx, ZB_EUNSAFE, "%s: the committed snapshot %lld "
                       "is not in the table", tbl->ident,
                       (long long)r->snapshot_id);
    if ((rc = ice_manifest_list_open(&lr, io, s->ctx, snap->manifest_list, v,
                                     &tbl->paths)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, s->ctx, &mf)) > 0) {
        if (mf->content != ICE_MANIFEST_DELETES)
            continue;
        if ((rc = ice_manifest_open(&mr, io, s->ctx, mf, NULL, v,
                                    &tbl->paths)) < 0)
            break;
        while ((rc = ice_manifest_next(mr, s->ctx, &e)) > 0)
            if (e->status != ICE_STATUS_DELETED &&
                json_object_get(s->remove, e->data_file.file_path)) {
                rc = zb_fail(s->ctx, ZB_EUNSAFE, "%s: removed delete file "
                             "%s is still live in snapshot %lld", tbl->ident,
                             e->data_file.file_path,
                             (long long)r->snapshot_id);
                break;
            }
        ice_manifest_free(mr);
        mr = NULL;
        if (rc < 0)
            break;
    }
    ice_manifest_list_free(lr);
    return rc;
}

static int dscan_init(dscan *s, zb_ctx *ctx)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    zb_vec_init(&s->files, sizeof(dfile), SIZE_MAX / 2);
    zb_vec_init(&s->live, sizeof(uint64_t), SIZE_MAX / 2);
    zb_buf_init(&s->key, 1 << 20);
    if (zb_arena_new(&s->arena, (size_t)1 << 34) < 0 ||
        (s->by_key = json_object()) == NULL ||
        (s->remove = json_object()) == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* One removal attempt: build and commit; *done gets the committed table. */
static int commit_removal(dscan *s, const zb_op_target *t, const zb_table *tbl,
                          zb_dangling_result *r, zb_table **done)
{
    ice_commit_op_opts oo = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_result cr = ICE_COMMIT_RESULT_INIT;
    ice_commit_op *op = NULL;
    const char *path;
    json_t *v;
    int rc;

    /* The table's rows do not change: a "replace", as Java's dangling
     * delete removal commits it (incremental readers skip replaces; a
     * "delete" would stop a streaming reader that does not expect one). */
    oo.kind = ICE_OP_REPLACE;
    oo.io = t->io;
    oo.root = tbl->root;
    oo.paths = &tbl->paths;
    oo.timestamp_ms = t->now_ms;
    if ((rc = ice_commit_op_new(&op, s->ctx, &oo)) < 0)
        return rc;
    json_object_foreach(s->remove, path, v)
        if ((rc = ice_commit_op_remove_file(op, s->ctx, path)) < 0)
            goto out;
    if ((rc = ice_commit_op_set_summary(op, s->ctx, "zamboni.operation",
                                        "remove-dangling-deletes")) < 0)
        goto out;
    r->attempts++;
    rc = ice_commit_op_build(op, s->ctx, tbl->meta, &cr);
    if (rc == ZB_OK)
        rc = zb_catalog_commit(t->catalog, s->ctx, tbl, cr.requirements,
                               cr.updates, done);
    if (rc == ZB_OK)
        r->snapshot_id = cr.snapshot_id;
    else if (rc != ZB_ETIMEOUT)
        ice_commit_result_delete_files(&cr, t->io, s->ctx);
out:
    ice_commit_result_free(&cr);
    ice_commit_op_free(op);
    return rc;
}

int zb_remove_dangling_deletes(const zb_op_target *t, zb_ctx *ctx,
                               const zb_dangling_opts *o,
                               zb_dangling_result *r)
{
    zb_dangling_opts dflt = ZB_DANGLING_OPTS_INIT;
    zb_dangling_result init = ZB_DANGLING_RESULT_INIT;
    int max = DEFAULT_ATTEMPTS, attempt, rc = ZB_OK;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && r);
    if (o == NULL)
        o = &dflt;
    if (o->max_attempts > 0)
        max = o->max_attempts;
    *r = init;
    for (attempt = 1; attempt <= max; attempt++) {
        zb_table *tbl = NULL, *done = NULL;
        dscan s;
        int tries = r->attempts;

        *r = init;
        r->attempts = tries;
        if ((rc = dscan_init(&s, ctx)) < 0 ||
            (rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tbl)) < 0 ||
            (rc = plan_once(&s, t->io, tbl, o, r)) < 0 ||
            r->removable == 0 || t->dry_run) {
            if (rc == ZB_OK && t->dry_run) {
                r->removed = r->removable;     /* would remove */
                r->removed_bytes = r->removable_bytes;
            }
            dscan_free(&s);
            zb_table_free(tbl);
            return rc;
        }
        rc = commit_removal(&s, t, tbl, r, &done);
        if (rc == ZB_OK) {
            r->committed = 1;
            r->removed = r->removable;
            r->removed_bytes = r->removable_bytes;
            rc = check_committed(&s, t->io, done, r);
        }
        dscan_free(&s);
        zb_table_free(tbl);
        zb_table_free(done);
        if (rc != ZB_ECONFLICT || attempt == max)
            break;
        zb_err_clear(&ctx->err);   /* plan again against a fresh load */
    }
    return rc;
}

int zb_dangling_report(zb_buf *out, const char *table,
                       const zb_dangling_result *r, int dry_run)
{
    char sz[32];
    int rc;

    if (r->delete_files == 0)
        return zb_buf_appendf(out, "%s: no delete files\n", table);
    if ((rc = zb_buf_appendf(out, "%s: %llu delete file(s), %llu dangling\n",
                             table, (unsigned long long)r->delete_files,
                             (unsigned long long)r->dangling)) < 0 ||
        r->dangling == 0)
        return rc;
    zb_str_format_bytes(sz, sizeof sz, r->removable_bytes);
    if ((rc = zb_buf_appendf(out, "  %llu removable (%s) in %llu whole "
                             "manifest(s)\n",
                             (unsigned long long)r->removable, sz,
                             (unsigned long long)r->whole_manifests)) < 0)
        return rc;
    zb_str_format_bytes(sz, sizeof sz, r->removed_bytes);
    if ((rc = zb_buf_appendf(out, "  %s %llu delete file(s) (%s)\n",
                             dry_run ? "would remove" : "removed",
                             (unsigned long long)r->removed, sz)) < 0)
        return rc;
    if (r->kept_shared > 0)
        rc = zb_buf_appendf(out, "  %llu deletion vector(s) kept: their "
                            "Puffin file holds live ones\n",
                            (unsigned long long)r->kept_shared);
    return rc;
}

/*
 * ops/rewrite_manifests/rewrite_manifests_write.c - rewrite-manifests' pass 2 and commit
 * (see rewrite_manifests.c): the output manifests are written in windows
 * of at most max_open_writers (each window one more walk over the
 * input), then the manifest list (new manifests, then the kept ones),
 * and the snapshot is committed; on failure the files written are
 * deleted.
 */
#define ZB_MODULE "rewrite-manifests"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ops/rewrite_manifests/rewrite_manifests_int.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

static int note_written(rw *w, const char *uri)
{
    char *s = zb_strdup(uri);

    if (s == NULL || zb_vec_append(&w->written, &s) < 0) {
        zb_free(s);
        return zb_fail_oom(w->ctx);
    }
    return ZB_OK;
}

static void delete_written(rw *w)
{
    zb_err saved;
    size_t i;

    zb_err_copy(&saved, &w->ctx->err);
    for (i = 0; i < w->written.len; i++)
        (void)zb_io_delete(w->t->io, w->ctx,
                           *(const char **)zb_vec_at(&w->written, i));
    zb_err_copy(&w->ctx->err, &saved);
}

/* ---- pass 2: the new manifests --------------------------------------------- */

static int open_writer(rw *w, ice_manifest_writer **out, size_t o_ix)
{
    const out_mf *o = zb_vec_at(&w->outs, o_ix);
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    char uri[4096];
    const char *codec = ice_metadata_property(w->m,
                                              "write.avro.compression-codec");
    int rc;

    if ((size_t)snprintf(uri, sizeof uri, "%s/%s-m%zu.avro", w->dir, w->uuid,
                         o_ix) >= sizeof uri)
        return zb_fail(w->ctx, ZB_EINVAL, "%s: metadata path too long",
                       w->dir);
    wo.format_version = w->v;
    wo.content = (ice_manifest_content)o->content;
    wo.schema = ice_metadata_current_schema(w->m);
    wo.spec = ice_metadata_spec(w->m, o->spec_id);
    wo.snapshot_id = w->id;
    wo.sequence_number = w->seq;
    if (codec && strcmp(codec, "gzip") == 0)
        wo.codec = ZB_AVRO_CODEC_DEFLATE;
    else if (codec && strcmp(codec, "zstd") == 0)
        wo.codec = ZB_AVRO_CODEC_ZSTD;
    else if (codec && strcmp(codec, "snappy") == 0)
        wo.codec = ZB_AVRO_CODEC_SNAPPY;
    if (wo.spec == NULL || wo.schema == NULL)
        return zb_fail(w->ctx, ZB_ECORRUPT, "%s: partition spec %d or the "
                       "current schema is missing", w->tbl->ident,
                       (int)o->spec_id);
    if ((rc = note_written(w, uri)) < 0)
        return rc;
    return ice_manifest_writer_open(out, w->t->io, w->ctx, uri, &wo);
}

static int write_entry(rw *w, size_t mf_no, const ice_manifest_file *mf,
                       const ice_manifest_entry *e)
{
    window *win = w->win;
    ice_manifest_entry c;
    uint64_t k;
    size_t o;
    group *g = NULL;
    int rc;

    (void)mf_no;
    if ((rc = zb_rewrite_manifests__find_group(w, &g, (int)mf->content,
                                               mf->partition_spec_id,
                                               &e->data_file, 0)) < 0)
        return rc;
    k = g->seen++;
    o = k < g->n_first ? g->first_out
                       : g->first_out + 1 + (size_t)((k - g->n_first) /
                                                     g->per_full);
    if (o < win->from || o >= win->to)
        return ZB_OK;
    if (win->wr[o - win->from] == NULL &&
        (rc = open_writer(w, &win->wr[o - win->from], o)) < 0)
        return rc;
    c = *e;
    c.status = ICE_STATUS_EXISTING;
    c.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
    if (w->v >= 2)
        c.explicit_mask |= ICE_ENTRY_SEQ_EXPLICIT | ICE_ENTRY_FILE_SEQ_EXPLICIT;
    if (c.data_file.first_row_id != ICE_NULL_LONG)
        c.explicit_mask |= ICE_ENTRY_FIRST_ROW_ID_EXPLICIT;
    return ice_manifest_writer_add(win->wr[o - win->from], w->ctx, &c);
}

static int write_manifests(rw *w, zb_arena *list_arena)
{
    size_t n = w->outs.len, from, i, per = (size_t)w->max_open;
    int rc = ZB_OK;

    if (n == 0)
        return ZB_OK;
    if (per > n)
        per = n;
    if ((rc = zb_rewrite_manifests__reserve_writers(w, &per)) < 0)
        return rc;
    if ((w->mfs = zb_calloc(n, sizeof *w->mfs)) == NULL)
        return zb_fail_oom(w->ctx);
    for (from = 0; from < n && rc == ZB_OK; from += per) {
        window win;

        win.from = from;
        win.to = from + per < n ? from + per : n;
        if ((win.wr = zb_calloc(win.to - win.from, sizeof *win.wr)) == NULL)
            return zb_fail_oom(w->ctx);
        for (i = 0; i < w->groups.len; i++)
            ((group *)zb_vec_at(&w->groups, i))->seen = 0;
        w->win = &win;
        rc = zb_rewrite_manifests__walk(w, write_entry);
        w->win = NULL;
        w->r->passes++;
        for (i = 0; i < win.to - win.from; i++) {
            if (rc == ZB_OK && win.wr[i] == NULL)
                rc = zb_fail(w->ctx, ZB_ECONFLICT, "%s: a manifest changed "
                             "between two reads", w->tbl->ident);
            if (rc == ZB_OK)
                rc = ice_manifest_writer_commit(win.wr[i], w->ctx,
                                                &w->mfs[win.from + i],
                                                list_arena);
            else
                ice_manifest_writer_abort(win.wr[i]);
            win.wr[i] = NULL;
        }
        zb_free(win.wr);
    }
    return rc;
}

/* ---- the snapshot -------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t random_id(void)
{
    char u[37];
    uint64_t v = 0;
    int i, n = 0;

    ice_commit_uuid(u);
    for (i = 0; u[i] && n < 16; i++) {
        char c = u[i];

        if (c == '-')
            continue;
        v = (v << 4) | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        n++;
    }
    return (int64_t)(v & (uint64_t)INT64_MAX);
}

static int put_num(json_t *s, const char *key, uint64_t v)
{
    char num[24];

    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return json_object_set_new(s, key, json_string(num));
}

static json_t *summary(rw *w)
{
    json_t *s = json_pack("{ss}", "operation", "replace");
    size_t i;
    int bad = 0;

    if (s == NULL)
        return NULL;
    bad |= json_object_set_new(s, "zamboni.operation",
                               json_string("rewrite-manifests"));
    bad |= put_num(s, "manifests-created", w->r->manifests_created);
    bad |= put_num(s, "manifests-kept", w->r->manifests_kept);
    bad |= put_num(s, "manifests-replaced", w->r->manifests_replaced);
    bad |= put_num(s, "entries-processed", w->r->entries);
    for (i = 0; i < w->snap->n_summary; i++)
        if (zb_str_starts_with(w->snap->summary[i].key, "total-"))
            bad |= json_object_set_new(s, w->snap->summary[i].key,
                                       json_string(w->snap->summary[i].value));
    if (bad) {
        json_decref(s);
        return NULL;
    }
    return s;
}

static int build_json(rw *w, const char *list_uri, int64_t first_row_id,
                      int64_t added_rows, json_t **reqs, json_t **updates)
{
    const ice_schema *schema = ice_metadata_current_schema(w->m);
    const ice_ref *main_ref = ice_metadata_ref(w->m, "main");
    json_t *snap, *sum = summary(w);
    ice_ref ref;
    int rc;

    if (sum == NULL)
        return zb_fail_oom(w->ctx);
    snap = json_pack("{sIsIsIsosssi}", "snapshot-id", (json_int_t)w->id,
                     "parent-snapshot-id", (json_int_t)w->snap->snapshot_id,
                     "timestamp-ms", (json_int_t)w->ts, "summary", sum,
                     "manifest-list", list_uri, "schema-id",
                     schema ? (int)schema->schema_id : 0);
    if (snap == NULL)
        return zb_fail_oom(w->ctx);
    if ((w->v >= 2 &&
         json_object_set_new(snap, "sequence-number", json_integer(w->seq)) < 0) ||
        (w->v >= 3 &&
         (json_object_set_new(snap, "first-row-id",
                              json_integer(first_row_id)) < 0 ||
          json_object_set_new(snap, "added-rows", json_integer(added_rows)) < 0))) {
        json_decref(snap);
        return zb_fail_oom(w->ctx);
    }
    if ((*updates = json_array()) == NULL ||
        (*reqs = json_array()) == NULL) {
        json_decref(snap);
        return zb_fail_oom(w->ctx);
    }
    if ((rc = ice_commit_append((zb_json *)*updates, w->ctx,
                                (zb_json *)json_pack("{ssso}", "action",
                                                     "add-snapshot",
                                                     "snapshot", snap))) < 0)
        return rc;
    if (main_ref != NULL) {
        ref = *main_ref;
    } else {
        memset(&ref, 0, sizeof ref);
        ref.min_snapshots_to_keep = -1;
        ref.max_snapshot_age_ms = ref.max_ref_age_ms = -1;
    }
    ref.name = "main";
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = w->id;
    if ((rc = ice_commit_append((zb_json *)*updates, w->ctx,
                                ice_update_set_ref(&ref))) < 0)
        return rc;
    if (w->m->table_uuid != NULL &&
        (rc = ice_commit_append((zb_json *)*reqs, w->ctx,
                                ice_requirement_table_uuid(
                                    w->m->table_uuid))) < 0)
        return rc;
    return ice_commit_append((zb_json *)*reqs, w->ctx,
                             ice_requirement_ref_snapshot_id(
                                 "main", w->snap->snapshot_id));
}

/* Writes the manifests and the list, and commits. */
int zb_rewrite_manifests__write_and_commit(rw *w)
{
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_list_writer *lw = NULL;
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    zb_arena *la = NULL;
    json_t *reqs = NULL, *updates = NULL;
    zb_table *done = NULL;
    char uri[4096];
    int64_t first_row_id = w->m->has_next_row_id ? w->m->next_row_id : 0;
    int64_t added_rows = 0;
    size_t i;
    int rc;

    w->id = random_id();
    while (w->id <= 0 || ice_metadata_snapshot(w->m, w->id) != NULL)
        w->id = random_id();
    w->seq = w->v >= 2 ? w->m->last_sequence_number + 1 : 0;
    w->ts = w->t->now_ms > 0 ? w->t->now_ms : now_ms();
    ice_commit_uuid(w->uuid);
    if ((rc = ice_commit_metadata_dir_paths(&w->dir, w->ctx, w->m,
                                            w->tbl->root,
                                            &w->tbl->paths)) < 0)
        return rc;
    if (zb_arena_new(&la, (size_t)1 << 32) < 0)
        return zb_fail_oom(w->ctx);
    if ((rc = write_manifests(w, la)) < 0)
        goto out;
    if ((size_t)snprintf(uri, sizeof uri, "%s/snap-%lld-%d-%s.avro", w->dir,
                         (long long)w->id, w->r->attempts, w->uuid) >=
        sizeof uri) {
        rc = zb_fail(w->ctx, ZB_EINVAL, "%s: metadata path too long", w->dir);
        goto out;
    }
    lo.format_version = w->v;
    lo.snapshot_id = w->id;
    lo.parent_snapshot_id = w->snap->snapshot_id;
    lo.sequence_number = w->seq;
    lo.first_row_id = first_row_id;
    if ((rc = note_written(w, uri)) < 0 ||
        (rc = ice_manifest_list_writer_open(&lw, w->t->io, w->ctx, uri,
                                            &lo)) < 0)
        goto out;
    for (i = 0; i < w->outs.len && rc == ZB_OK; i++)
        rc = ice_manifest_list_writer_add(lw, w->ctx, &w->mfs[i]);
    if (rc < 0 || (rc = zb_rewrite_manifests__open_list(w, &lr)) < 0)
        goto out;
    while ((rc = ice_manifest_list_next(lr, w->ctx, &mf)) > 0)
        if (!w->rewrite[mf->content == ICE_MANIFEST_DELETES] &&
            (rc = ice_manifest_list_writer_add(lw, w->ctx, mf)) < 0)
            break;
    ice_manifest_list_free(lr);
    if (rc < 0)
        goto out;
    if (w->v >= 3)
        added_rows = ice_manifest_list_writer_next_row_id(lw) - first_row_id;
    rc = ice_manifest_list_writer_commit(lw, w->ctx);
    lw = NULL;
    if (rc < 0 ||
        (rc = build_json(w, uri, first_row_id, added_rows, &reqs,
                         &updates)) < 0)
        goto out;
    rc = zb_catalog_commit(w->t->catalog, w->ctx, w->tbl,
                           (const zb_json *)reqs, (const zb_json *)updates,
                           &done);
    if (rc == ZB_OK) {
        w->r->committed = 1;
        w->r->snapshot_id = w->id;
    }
out:
    ice_manifest_list_writer_abort(lw);
    if (rc < 0 && rc != ZB_ETIMEOUT)
        delete_written(w);
    json_decref(reqs);
    json_decref(updates);
    zb_table_free(done);
    zb_arena_free(la);
    return rc;
}

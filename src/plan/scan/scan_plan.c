/*
 * plan/scan/scan_plan.c - a snapshot's scan plan: the delete manifests read
 * into the delete index at open, then the data manifests streamed one
 * task at a time (see plan/scan/scan_plan.h for the rules).
 *
 * open: filter_init; index_init; walk the manifest list, opening only the
 * delete manifests (content 1) and adding their live entries to the index;
 * index_seal. next: walk the manifest list again; skip delete manifests,
 * manifests with no live files (added and existing counts 0) and those
 * the filter excludes by partition summaries; open each remaining one
 * and for each live entry check the filter, resolve the URI, compute the
 * partition key and match the index. The yielded task points at the
 * manifest reader's entry (valid until the reader's next call, which only
 * the plan's next call makes) and at index entries.
 *
 * A v1 snapshot without a manifest list ("manifests") has no delete files; its
 * manifests are read as table/manifest/manifest_iter.c does, with the spec id
 * from each manifest's partition-spec-id metadata.
 */
#define ZB_MODULE "plan"

#include <stdlib.h>
#include <string.h>

#include "plan/scan/scan_plan_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define DEFAULT_INDEX_BYTES ((size_t)1 << 30)
#define PATH_MAX_BYTES ((size_t)64 << 10)

struct zb_scan_plan {
    zb_io *io;
    const ice_metadata *meta;
    const ice_snapshot *snap;
    ice_manifest_opts mopts;
    zb_scan_filter filter;
    zb_del_index index;
    /* streaming state */
    ice_manifest_list_reader *list;
    size_t v1_next;
    ice_manifest_file v1_mf;
    const ice_manifest_file *cur;  /* list entry of the open manifest */
    const ice_partition_spec *cur_spec;
    int32_t cur_spec_id;           /* of the manifest being read */
    const char *cur_uri;           /* its URI, for messages */
    ice_manifest_reader *m;
    /* threads > 1: manifests read ahead (scan_prefetch.c) */
    zb_mf_prefetch *pf;
    size_t window;                 /* manifests queued at most */
    zb_mf_job *job;                /* the one being read */
    size_t job_pos;
    int list_done;                 /* the list has been read ahead to its end */
    int list_rc;                   /* its failure, reported in turn */
    zb_err list_err;
    zb_buf uri;
    zb_buf key;
    zb_vec dels;                   /* zb_scan_file */
    zb_scan_task task;
    zb_scan_stats st;
    int failed;
    int done;
};

static const char *table_name(const zb_scan_plan *p)
{
    return p->meta->location ? p->meta->location : "table";
}

static int open_list(zb_scan_plan *p, zb_ctx *ctx)
{
    ice_manifest_list_free(p->list);
    p->list = NULL;
    p->v1_next = 0;
    p->list_done = 0;
    p->list_rc = ZB_OK;
    if (p->snap->manifest_list != NULL)
        return ice_manifest_list_open(&p->list, p->io, ctx,
                                      p->snap->manifest_list,
                                      p->meta->format_version, &p->mopts);
    if (p->meta->format_version >= 2)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: snapshot %lld has no"
                       " manifest-list", table_name(p),
                       (long long)p->snap->snapshot_id);
    return ZB_OK;
}

/* The next manifest-list entry: 1, 0 at the end, or an rc. */
static int next_manifest(zb_scan_plan *p, zb_ctx *ctx,
                         const ice_manifest_file **mf)
{
    ice_manifest_file *v;

    if (p->list != NULL)
        return ice_manifest_list_next(p->list, ctx, mf);
    if (p->v1_next >= p->snap->n_manifests)
        return 0;
    v = &p->v1_mf;
    memset(v, 0, sizeof *v);
    v->manifest_path = p->snap->manifests[p->v1_next++];
    v->manifest_length = -1;
    v->added_snapshot_id = ICE_NULL_LONG;
    v->added_files_count = v->existing_files_count = -1;
    v->deleted_files_count = -1;
    v->added_rows_count = v->existing_rows_count = -1;
    v->deleted_rows_count = -1;
    v->first_row_id = ICE_NULL_LONG;
    v->partition_spec_id = -1;     /* from the manifest's metadata */
    *mf = v;
    return 1;
}

/* No live file in it, by its counts (both known and zero). */
static int manifest_empty(const ice_manifest_file *mf)
{
    return mf->added_files_count == 0 && mf->existing_files_count == 0;
}

static int open_manifest(zb_scan_plan *p, zb_ctx *ctx,
                         const ice_manifest_file *mf)
{
    int rc;

    if ((rc = ice_manifest_open(&p->m, p->io, ctx, mf, NULL,
                                p->meta->format_version, &p->mopts)) < 0)
        return rc;
    p->st.manifests_read++;
    if (mf == &p->v1_mf) {
        const char *id = ice_manifest_reader_meta(p->m, "partition-spec-id");
        p->v1_mf.partition_spec_id = id ? (int32_t)strtol(id, NULL, 10) : 0;
    }
    p->cur = mf;
    p->cur_spec = ice_metadata_spec(p->meta, mf->partition_spec_id);
    p->cur_spec_id = mf->partition_spec_id;
    p->cur_uri = ice_manifest_reader_uri(p->m);
    return ZB_OK;
}

/* Makes the popped job the manifest being read. */
static void use_job(zb_scan_plan *p, zb_mf_job *j)
{
    p->job = j;
    p->job_pos = 0;
    if (j->uri != NULL)
        p->st.manifests_read++;
    p->cur_spec = ice_metadata_spec(p->meta, j->mf.partition_spec_id);
    p->cur_spec_id = j->mf.partition_spec_id;
    p->cur_uri = j->uri;
}

/*
 * Queues manifests of content (ICE_MANIFEST_DATA or _DELETES) ahead until
 * the window is full or the list ends. Data manifests the filter or their
 * counts exclude are skipped here, as the one-thread walk skips them. A
 * failure to read the list is kept and reported once the manifests queued
 * before it are read, where the one-thread walk meets it.
 */
static int fill_window(zb_scan_plan *p, zb_ctx *ctx, int content)
{
    const ice_manifest_file *mf;
    int rc;

    while (!p->list_done && zb_scan__prefetch_queued(p->pf) < p->window) {
        if ((rc = next_manifest(p, ctx, &mf)) <= 0) {
            p->list_done = 1;
            if (rc < 0) {
                p->list_rc = rc;
                p->list_err = ctx->err;
                zb_err_clear(&ctx->err);
            }
            break;
        }
        if (mf->content != (ice_manifest_content)content)
            continue;
        if (manifest_empty(mf) ||
            (content == ICE_MANIFEST_DATA && p->filter.n > 0 &&
             !zb_scan__filter_manifest(&p->filter, ctx, mf))) {
            if (content == ICE_MANIFEST_DATA)
                p->st.manifests_skipped++;
            continue;
        }
        if ((rc = zb_scan__prefetch_push(p->pf, ctx, mf, mf == &p->v1_mf)) <
            0)
            return rc;
    }
    return ZB_OK;
}

/* The next manifest read ahead: 1 (p->job set), 0 at the end, or an rc. */
static int next_job(zb_scan_plan *p, zb_ctx *ctx, int content)
{
    zb_mf_job *j;
    int rc;

    p->job = NULL;
    if ((rc = fill_window(p, ctx, content)) < 0 ||
        (rc = zb_scan__prefetch_pop(p->pf, ctx, &j)) < 0)
        return rc;
    if (rc == 0) {
        if (p->list_rc < 0) {
            ctx->err = p->list_err;
            return p->list_rc;
        }
        return 0;
    }
    use_job(p, j);
    return 1;
}

static void close_manifest(zb_scan_plan *p)
{
    ice_manifest_free(p->m);
    p->m = NULL;
    p->cur = NULL;
    p->cur_spec = NULL;
}

/* Adds a live entry of the delete manifest being read to the index. */
static int add_delete(zb_scan_plan *p, zb_ctx *ctx,
                      const ice_manifest_entry *e)
{
    const ice_data_file *f = &e->data_file;
    int rc;

    if (f->content != ICE_CONTENT_POSITION_DELETES &&
        f->content != ICE_CONTENT_EQUALITY_DELETES)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: delete manifest %s"
                       " lists %s with content %d (not a delete"
                       " file)", table_name(p), p->cur_uri, f->file_path,
                       (int)f->content);
    if ((rc = ice_manifest_resolve_path(&p->uri, ctx, &p->mopts,
                                        f->file_path)) < 0 ||
        (rc = zb_scan__index_add(&p->index, ctx, e, p->cur_spec,
                                 p->cur_spec_id,
                                 zb_buf_cstr(&p->uri))) < 0)
        return zb_err_prefix(ctx, "%s: %s", table_name(p), p->cur_uri);
    if (f->content == ICE_CONTENT_EQUALITY_DELETES)
        p->st.eq_delete_files++;
    else if (ice_data_file_is_dv(f))
        p->st.dv_files++;
    else
        p->st.pos_delete_files++;
    p->st.delete_bytes += (uint64_t)ice_data_file_stored_bytes(f);
    return ZB_OK;
}

/* The delete pass with manifests read ahead on the pool. */
static int read_deletes_ahead(zb_scan_plan *p, zb_ctx *ctx)
{
    int rc;

    while ((rc = next_job(p, ctx, ICE_MANIFEST_DELETES)) > 0) {
        size_t i;
        for (i = 0; i < p->job->entries.len; i++)
            if ((rc = add_delete(p, ctx,
                                 zb_vec_at(&p->job->entries, i))) < 0)
                return rc;
        if (p->job->rc < 0)
            return zb_scan__prefetch_error(ctx, p->job);
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "%s: planning stopped",
                           table_name(p));
    }
    p->job = NULL;
    return rc;
}

static int read_deletes(zb_scan_plan *p, zb_ctx *ctx)
{
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int rc;

    if ((rc = open_list(p, ctx)) < 0)
        return rc;
    if (p->list == NULL)
        return ZB_OK;              /* v1 "manifests": no deletes */
    if (p->pf != NULL) {
        if ((rc = read_deletes_ahead(p, ctx)) < 0)
            return rc;
        goto sealed;
    }
    while ((rc = next_manifest(p, ctx, &mf)) > 0) {
        if (mf->content != ICE_MANIFEST_DELETES)
            continue;
        if (manifest_empty(mf))
            continue;
        if ((rc = open_manifest(p, ctx, mf)) < 0)
            return rc;
        while ((rc = ice_manifest_next(p->m, ctx, &e)) > 0) {
            if (e->status == ICE_STATUS_DELETED)
                continue;
            if ((rc = add_delete(p, ctx, e)) < 0)
                return rc;
        }
        close_manifest(p);
        if (rc < 0)
            return rc;
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "%s: planning stopped",
                           table_name(p));
    }
    if (rc < 0)
        return rc;
sealed:
    zb_scan__index_seal(&p->index);
    p->st.index_bytes = zb_arena_held_bytes(p->index.arena);
    return open_list(p, ctx);      /* rewound for the data pass */
}

int zb_scan_plan_open(zb_scan_plan **out, zb_io *io, zb_ctx *ctx,
                      const ice_metadata *meta, const ice_snapshot *snap,
                      const zb_scan_plan_opts *opts)
{
    zb_scan_plan *p;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && meta && snap);
    *out = NULL;
    if ((p = zb_calloc(1, sizeof *p)) == NULL)
        return zb_fail_oom(ctx);
    p->io = io;
    p->meta = meta;
    p->snap = snap;
    if (opts != NULL && opts->manifest != NULL) {
        p->mopts = *opts->manifest;
    } else {
        ice_manifest_opts d = ICE_MANIFEST_OPTS_INIT;
        p->mopts = d;
    }
    zb_buf_init(&p->uri, PATH_MAX_BYTES);
    zb_buf_init(&p->key, PATH_MAX_BYTES);
    zb_vec_init(&p->dels, sizeof(zb_scan_file), (size_t)1 << 24);
    if (opts != NULL && opts->threads > 1) {
        p->window = 2 * (size_t)opts->threads;
        if ((rc = zb_scan__prefetch_new(&p->pf, ctx, io,
                                        meta->format_version, &p->mopts,
                                        opts->threads)) < 0) {
            zb_scan_plan_free(p);
            return rc;
        }
    }
    if ((rc = zb_scan__index_init(&p->index, ctx,
                                  opts && opts->max_index_bytes ?
                                  opts->max_index_bytes :
                                  DEFAULT_INDEX_BYTES)) < 0 ||
        (rc = zb_scan__filter_init(&p->filter, ctx, meta,
                                   opts ? opts->preds : NULL,
                                   opts ? opts->n_preds : 0)) < 0 ||
        (rc = read_deletes(p, ctx)) < 0) {
        zb_scan_plan_free(p);
        return rc;
    }
    *out = p;
    return ZB_OK;
}

/* Builds the task of entry e of the open manifest: 1 yielded, 0 skipped. */
static int make_task(zb_scan_plan *p, zb_ctx *ctx, const ice_manifest_entry *e)
{
    const ice_data_file *f = &e->data_file;
    int rc;

    if (f->content != ICE_CONTENT_DATA)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: data manifest %s lists %s"
                       " with content %d (a delete file)", table_name(p),
                       p->cur_uri, f->file_path, (int)f->content);
    if (p->filter.n > 0 &&
        !zb_scan__filter_file(&p->filter, ctx, p->cur_spec, f)) {
        p->st.data_files_skipped++;
        return 0;
    }
    if ((rc = ice_manifest_resolve_path(&p->uri, ctx, &p->mopts,
                                        f->file_path)) < 0 ||
        (rc = zb_scan__partition_key(&p->key, ctx, f)) < 0 ||
        (rc = zb_scan__index_match(&p->dels, &p->index, ctx, f->file_path,
                                   p->cur_spec_id,
                                   (const uint8_t *)p->key.ptr, p->key.len,
                                   e->sequence_number)) < 0)
        return zb_err_prefix(ctx, "%s: %s", table_name(p), p->cur_uri);
    memset(&p->task, 0, sizeof p->task);
    p->task.data.file = f;
    p->task.data.data_sequence_number = e->sequence_number;
    p->task.data.spec_id = p->cur_spec_id;
    p->task.data.uri = zb_buf_cstr(&p->uri);
    p->task.n_deletes = p->dels.len;
    p->task.deletes = p->dels.items;
    p->st.data_files++;
    p->st.records += (uint64_t)(f->record_count > 0 ? f->record_count : 0);
    p->st.data_bytes += (uint64_t)(f->file_size_in_bytes > 0 ?
                                   f->file_size_in_bytes : 0);
    p->st.delete_refs += p->dels.len;
    return 1;
}

/* zb_scan_plan_next with the data manifests read ahead on the pool. */
static int next_ahead(zb_scan_plan *p, zb_ctx *ctx, const zb_scan_task **task)
{
    int rc;

    for (;;) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "%s: planning stopped",
                         table_name(p));
            goto fail;
        }
        if (p->job == NULL) {
            if ((rc = next_job(p, ctx, ICE_MANIFEST_DATA)) < 0)
                goto fail;
            if (rc == 0) {
                p->done = 1;
                return 0;
            }
        }
        if (p->job_pos < p->job->entries.len) {
            const ice_manifest_entry *e =
                zb_vec_at(&p->job->entries, p->job_pos++);
            if ((rc = make_task(p, ctx, e)) < 0)
                goto fail;
            if (rc > 0) {
                *task = &p->task;
                return 1;
            }
            continue;
        }
        if (p->job->rc < 0) {
            rc = zb_scan__prefetch_error(ctx, p->job);
            goto fail;
        }
        p->job = NULL;
    }
fail:
    p->failed = 1;
    return rc;
}

int zb_scan_plan_next(zb_scan_plan *p, zb_ctx *ctx, const zb_scan_task **task)
{
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    int rc;

    ZB_ASSERT_ARG(p && ctx && task);
    *task = NULL;
    if (p->failed)
        return zb_fail(ctx, ZB_EINVAL, "%s: scan plan used after an error",
                       table_name(p));
    if (p->done)
        return 0;
    if (p->pf != NULL)
        return next_ahead(p, ctx, task);
    for (;;) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "%s: planning stopped",
                         table_name(p));
            goto fail;
        }
        if (p->m == NULL) {
            if ((rc = next_manifest(p, ctx, &mf)) < 0)
                goto fail;
            if (rc == 0) {
                p->done = 1;
                return 0;
            }
            if (mf->content != ICE_MANIFEST_DATA)
                continue;
            if (manifest_empty(mf) ||
                (p->filter.n > 0 &&
                 !zb_scan__filter_manifest(&p->filter, ctx, mf))) {
                p->st.manifests_skipped++;
                continue;
            }
            if ((rc = open_manifest(p, ctx, mf)) < 0)
                goto fail;
        }
        if ((rc = ice_manifest_next(p->m, ctx, &e)) < 0)
            goto fail;
        if (rc == 0) {
            close_manifest(p);
            continue;
        }
        if (e->status == ICE_STATUS_DELETED)
            continue;
        if ((rc = make_task(p, ctx, e)) < 0)
            goto fail;
        if (rc > 0) {
            *task = &p->task;
            return 1;
        }
    }
fail:
    p->failed = 1;
    return rc;
}

void zb_scan_plan_stats(zb_scan_stats *out, const zb_scan_plan *p)
{
    *out = p->st;
    out->unused_delete_files = zb_scan__index_unused(&p->index);
}

void zb_scan_plan_free(zb_scan_plan *p)
{
    if (p == NULL)
        return;
    close_manifest(p);
    zb_scan__prefetch_free(p->pf);
    ice_manifest_list_free(p->list);
    zb_scan__index_free(&p->index);
    zb_scan__filter_free(&p->filter);
    zb_buf_free(&p->uri);
    zb_buf_free(&p->key);
    zb_vec_free(&p->dels);
    zb_free(p);
}

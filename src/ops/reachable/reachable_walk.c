/*
 * ops/reachable/reachable_walk.c - a table's files into sorted path streams,
 * and batched parallel deletion (see reachable_files.h).
 *
 * Walkers: zb_reach_snapshot reads one manifest list (its entries name
 * the manifests), zb_reach_manifest one manifest (its entries name data
 * files, delete files and deletion-vector Puffin files), zb_reach_stats
 * the statistics entries of the metadata. Every path is resolved through
 * the table's remaps (zb_table_resolve) and then normalized, so the
 * streams hold paths in the form listings are compared in. A manifest is
 * opened at its normalized path without a manifest-list context: only
 * the paths are read, and nothing is inherited.
 *
 * Deletion: zb_reach_delete reads the paths of a record file into jobs
 * of DELETE_BATCH paths and runs them on a thread pool (exec/pool.h),
 * at most 2 jobs per thread in flight. Each job has its own zb_ctx; a
 * path already gone counts as missing, another failure as failed, with
 * the first message kept.
 */
#define ZB_MODULE "reach"

#include <stdio.h>
#include <string.h>

#include "exec/pool.h"
#include "ops/ops.h"
#include "ops/reachable/reachable_files.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "zamboni/io_s3.h"

int zb_reach_add(zb_pathsort *s, zb_ctx *ctx, const zb_table *t,
                 zb_buf *scratch, const char *path, uint32_t tag,
                 uint64_t size_bytes)
{
    int rc;

    if ((rc = zb_table_resolve(scratch, ctx, t, path)) < 0)
        return rc;
    return zb_pathsort_add_uri(s, ctx, zb_buf_cstr(scratch), tag,
                               size_bytes, 0);
}

int zb_reach_snapshot(zb_pathsort *lists, zb_pathsort *manifests,
                      zb_io *io, zb_ctx *ctx, const zb_table *t,
                      const ice_snapshot *snap)
{
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    zb_buf scratch = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    size_t i;
    int rc = ZB_OK;

    if (snap->manifest_list == NULL) {
        for (i = 0; i < snap->n_manifests && manifests && rc == ZB_OK; i++)
            rc = zb_reach_add(manifests, ctx, t, &scratch, snap->manifests[i],
                              ZB_REACH_MANIFEST, 0);
        goto done;
    }
    if (lists != NULL &&
        (rc = zb_reach_add(lists, ctx, t, &scratch, snap->manifest_list,
                           ZB_REACH_LIST, 0)) < 0)
        goto done;
    if (manifests == NULL)
        goto done;
    if ((rc = ice_manifest_list_open(&lr, io, ctx, snap->manifest_list,
                                     t->meta->format_version, &t->paths)) < 0)
        goto done;
    while ((rc = ice_manifest_list_next(lr, ctx, &mf)) > 0) {
        uint64_t len = mf->manifest_length > 0 ? (uint64_t)mf->manifest_length
                                               : 0;
        if ((rc = zb_reach_add(manifests, ctx, t, &scratch, mf->manifest_path,
                               ZB_REACH_MANIFEST, len)) < 0)
            goto done;
    }
done:
    ice_manifest_list_free(lr);
    zb_buf_free(&scratch);
    return rc < 0 ? rc : ZB_OK;
}

int zb_reach_manifest(zb_pathsort *out, zb_io *io, zb_ctx *ctx,
                      const zb_table *t, const char *uri, int live_only)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    zb_buf scratch = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc;

    if ((rc = ice_manifest_open(&r, io, ctx, NULL, uri,
                                t->meta->format_version, NULL)) < 0)
        goto done;
    while ((rc = ice_manifest_next(r, ctx, &e)) > 0) {
        const ice_data_file *f = &e->data_file;
        uint32_t tag = f->content == ICE_CONTENT_DATA ? ZB_REACH_DATA
                                                      : ZB_REACH_DELETE;
        if (live_only && e->status == ICE_STATUS_DELETED)
            continue;
        if (f->file_path == NULL)
            continue;
        if ((rc = zb_reach_add(out, ctx, t, &scratch, f->file_path, tag,
                               f->file_size_in_bytes > 0
                                   ? (uint64_t)f->file_size_in_bytes
                                   : 0)) < 0)
            goto done;
    }
done:
    ice_manifest_free(r);
    zb_buf_free(&scratch);
    return rc < 0 ? rc : ZB_OK;
}

static int add_stats(zb_pathsort *s, zb_ctx *ctx, const zb_table *t,
                     zb_buf *scratch, const ice_statistics_file *st, size_t n,
                     int64_t snapshot_id)
{
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        if (snapshot_id != ICE_NO_SNAPSHOT && st[i].snapshot_id != snapshot_id)
            continue;
        if (st[i].statistics_path == NULL)
            continue;
        if ((rc = zb_reach_add(s, ctx, t, scratch, st[i].statistics_path,
                               ZB_REACH_STATS,
                               st[i].file_size_in_bytes > 0
                                   ? (uint64_t)st[i].file_size_in_bytes
                                   : 0)) < 0)
            return rc;
    }
    return ZB_OK;
}

int zb_reach_stats(zb_pathsort *s, zb_ctx *ctx, const zb_table *t,
                   zb_buf *scratch, int64_t snapshot_id)
{
    int rc;

    if ((rc = add_stats(s, ctx, t, scratch, t->meta->statistics,
                        t->meta->n_statistics, snapshot_id)) < 0)
        return rc;
    return add_stats(s, ctx, t, scratch, t->meta->partition_statistics,
                     t->meta->n_partition_statistics, snapshot_id);
}

/* ---- Hadoop checksum files --------------------------------------------- */

static size_t base_at(const char *path, size_t len)
{
    size_t b = len;

    while (b > 0 && path[b - 1] != '/')
        b--;
    return b;
}

int zb_reach_crc_owner(zb_buf *out, zb_ctx *ctx, const char *path,
                       size_t len)
{
    size_t b = base_at(path, len);

    /* ".X.crc" with X not empty */
    if (len - b < 6 || path[b] != '.' || memcmp(path + len - 4, ".crc", 4))
        return 0;
    zb_buf_clear(out);
    if (zb_buf_append(out, path, b) < 0 ||
        zb_buf_append(out, path + b + 1, len - b - 5) < 0)
        return zb_fail_oom(ctx);
    return 1;
}

int zb_reach_crc_path(zb_buf *out, zb_ctx *ctx, const char *path,
                      size_t len)
{
    size_t b = base_at(path, len);

    zb_buf_clear(out);
    if (zb_buf_append(out, path, b) < 0 || zb_buf_putc(out, '.') < 0 ||
        zb_buf_append(out, path + b, len - b) < 0 ||
        zb_buf_puts(out, ".crc") < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* ---- deleting ---------------------------------------------------------- */

#define DELETE_BATCH 256
#define DELETE_BATCH_BYTES ((size_t)1 << 20)

typedef struct del_job {
    zb_io *io;
    zb_buf paths;                 /* NUL-separated */
    size_t n;
    size_t off[DELETE_BATCH];
    uint64_t size[DELETE_BATCH];
    zb_reach_deleted res;
} del_job;

/* One batch in one zb_io_delete_batch call: a store with a batch delete
 * (S3's DeleteObjects) sends one request for it, and reports each key. */
static int del_run(void *arg)
{
    del_job *j = arg;
    const char *uris[DELETE_BATCH];
    int rcs[DELETE_BATCH];
    size_t i, failed = 0;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    for (i = 0; i < j->n; i++)
        uris[i] = j->paths.ptr + j->off[i];
    if ((rc = zb_io_delete_batch(j->io, &ctx, uris, j->n, rcs, &failed)) < 0)
        for (i = 0; i < j->n; i++)
            rcs[i] = rc;         /* nothing attempted: nothing deleted */
    for (i = 0; i < j->n; i++) {
        if (rcs[i] == ZB_OK) {
            j->res.files++;
            j->res.bytes += j->size[i];
        } else if (rcs[i] == ZB_ENOTFOUND) {
            j->res.missing++;
        } else {
            j->res.failed++;
            /* the backend's message names the file it failed on */
            if (j->res.first_error[0] == '\0' && ctx.err.msg[0] != '\0')
                snprintf(j->res.first_error, sizeof j->res.first_error, "%s",
                         ctx.err.msg);
            else if (j->res.first_error[0] == '\0')
                snprintf(j->res.first_error, sizeof j->res.first_error,
                         "%s: %s", uris[i], zb_rc_name(rcs[i]));
        }
    }
    zb_err_clear(&ctx.err);
    /* Checksum files go with their files; a failure leaves a stray
     * checksum file that remove-orphans deletes later. */
    for (i = 0; i < j->n; i++) {
        zb_buf crc = ZB_BUF_INIT(ZB_REACH_MAX_PATH + 8);
        zb_buf own = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
        size_t n = strlen(uris[i]);

        if ((rcs[i] == ZB_OK || rcs[i] == ZB_ENOTFOUND) &&
            !zb_io_is_object_store(uris[i]) &&
            zb_reach_crc_owner(&own, &ctx, uris[i], n) == 0 &&
            zb_reach_crc_path(&crc, &ctx, uris[i], n) == ZB_OK)
            (void)zb_io_delete(j->io, &ctx, crc.ptr);
        zb_err_clear(&ctx.err);
        zb_buf_free(&crc);
        zb_buf_free(&own);
    }
    return ZB_OK;
}

static void del_collect(zb_reach_deleted *out, del_job *j)
{
    out->files += j->res.files;
    out->bytes += j->res.bytes;
    out->failed += j->res.failed;
    out->missing += j->res.missing;
    if (out->first_error[0] == '\0' && j->res.first_error[0] != '\0')
        memcpy(out->first_error, j->res.first_error, sizeof out->first_error);
    memset(&j->res, 0, sizeof j->res);
    j->n = 0;
    zb_buf_clear(&j->paths);
}

int zb_reach_delete(zb_reach_deleted *out, zb_pathfile *f, zb_io *io,
                    zb_ctx *ctx, unsigned threads)
{
    return zb_reach_delete_stage(out, f, io, ctx, threads, NULL);
}

/* Files handled so far (deleted, failed or missing) to ctx->progress. */
static void del_progress(zb_ctx *ctx, const char *stage,
                         const zb_reach_deleted *d, uint64_t total)
{
    if (stage != NULL)
        zb_op__progress(ctx, stage, d->files + d->failed + d->missing,
                        total);
}

int zb_reach_delete_stage(zb_reach_deleted *out, zb_pathfile *f, zb_io *io,
                          zb_ctx *ctx, unsigned threads, const char *stage)
{
    zb_pool *pool = NULL;
    del_job *jobs = NULL;
    const zb_pathrec *r;
    size_t n_jobs, cur = 0, k;
    int rc, wrc;

    memset(out, 0, sizeof *out);
    if (threads == 0)
        threads = 4;
    n_jobs = (size_t)threads * 2;
    if ((rc = zb_pathfile_rewind(f, ctx)) < 0)
        return rc;
    if ((jobs = zb_calloc(n_jobs, sizeof *jobs)) == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < n_jobs; k++) {
        jobs[k].io = io;
        zb_buf_init(&jobs[k].paths, DELETE_BATCH_BYTES + ZB_REACH_MAX_PATH + 1);
    }
    if ((rc = zb_pool_new(&pool, ctx, threads, ctx->stop)) < 0)
        goto done;
    del_progress(ctx, stage, out, zb_pathfile_count(f));
    for (;;) {
        del_job *j = &jobs[cur];
        int more = (rc = zb_pathfile_next(f, ctx, &r));
        if (rc < 0)
            break;
        if (more) {
            j->off[j->n] = j->paths.len;
            j->size[j->n] = r->size_bytes;
            if (zb_buf_append(&j->paths, r->path, r->len + 1) < 0) {
                rc = zb_fail_oom(ctx);
                break;
            }
            j->n++;
        }
        if (j->n > 0 && (!more || j->n == DELETE_BATCH ||
                         j->paths.len >= DELETE_BATCH_BYTES)) {
            if ((rc = zb_pool_submit(pool, del_run, j)) < 0) {
                zb_fail(ctx, rc, "deleting files: stopped");
                break;
            }
            if (++cur == n_jobs || !more) {
                wrc = zb_pool_wait(pool);
                for (k = 0; k < cur; k++)
                    del_collect(out, &jobs[k]);
                cur = 0;
                del_progress(ctx, stage, out, zb_pathfile_count(f));
                if (wrc < 0) {
                    rc = zb_fail(ctx, wrc, "deleting files: stopped");
                    break;
                }
            }
        }
        if (!more) {
            rc = ZB_OK;
            break;
        }
    }
done:
    if (pool != NULL) {
        zb_pool_wait(pool);
        for (k = 0; k < cur; k++)
            del_collect(out, &jobs[k]);
        zb_pool_free(pool);
    }
    for (k = 0; k < n_jobs; k++)
        zb_buf_free(&jobs[k].paths);
    zb_free(jobs);
    if (out->failed > 0)
        zb_log_warn(ctx, "%llu file(s) could not be deleted; first: %s",
                    (unsigned long long)out->failed, out->first_error);
    return rc;
}

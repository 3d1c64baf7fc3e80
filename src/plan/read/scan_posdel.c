/*
 * plan/read/scan_posdel.c - position deletes and deletion vectors of a group:
 * each position delete file read once, its rows routed to the tasks whose
 * data file they name; each DV blob read and parsed (exec/roaring/roaring.h).
 * Every task ends with a sorted, distinct list of deleted positions that
 * the read merges with its rows.
 */
#define ZB_MODULE "plan"

#include <stdlib.h>
#include <string.h>

#include "exec/roaring/roaring.h"
#include "plan/read/scan_read_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/vec.h"

/* Largest DV blob read (a DV of 2^31 positions is far smaller). */
#define DV_MAX_BYTES ((int64_t)1 << 30)
#define POS_MAX ((size_t)1 << 34)

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int push_pos(zb_vec *v, zb_ctx *ctx, uint64_t pos)
{
    if (zb_vec_append(v, &pos) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static int read_posdel_file(zb_rowstream *rs, zb_ctx *ctx,
                            const zb_delfile *dfl, zb_vec *vecs)
{
    static const int32_t ids[2] = { ZB_POSDEL_FILE_PATH_ID,
                                    ZB_POSDEL_POS_ID };
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowSchema s;
    struct ArrowArray b;
    const zb_scan_file *f = dfl->f;
    zb_buf uri = ZB_BUF_INIT(64 << 10);
    zb_pathmap pm;
    int ipath = -1, ipos = -1, rc;
    int64_t i;
    /* The last path seen and the task it matched (SIZE_MAX: none). */
    const char *last = NULL;
    size_t last_len = 0, last_task = SIZE_MAX;

    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    if (f->file->file_format &&
        strcmp(f->file->file_format, "PARQUET") != 0 &&
        strcmp(f->file->file_format, "parquet") != 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "position delete file %s: "
                       "file format %s is not read (only Parquet)",
                       f->file->file_path, f->file->file_format);
    if (zb_scan__pathmap_build(&pm, rs->tasks, dfl->tasks, dfl->n_tasks) < 0)
        return zb_fail_oom(ctx);
    if ((rc = zb_scan__file_uri(rs, ctx, f, &uri)) < 0)
        goto done;
    o.batch_rows = 65536;
    o.field_ids = ids;
    o.n_field_ids = 2;
    if (f->file->file_size_in_bytes > 0)
        o.file_size = (uint64_t)f->file->file_size_in_bytes;
    if ((rc = pq_reader_open(&r, rs->io, ctx, uri.ptr, &o)) < 0)
        goto done;
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0)
        goto done;
    for (i = 0; i < s.n_children; i++) {
        int32_t id = zb_scan__arrow_field_id(s.children[i]);
        if (id == ZB_POSDEL_FILE_PATH_ID)
            ipath = (int)i;
        else if (id == ZB_POSDEL_POS_ID)
            ipos = (int)i;
    }
    if (ipath < 0 || ipos < 0 ||
        (strcmp(s.children[ipath]->format, "u") != 0 &&
         strcmp(s.children[ipath]->format, "z") != 0) ||
        strcmp(s.children[ipos]->format, "l") != 0) {
        rc = zb_fail(ctx, ZB_ECORRUPT, "position delete file %s: no "
                     "file_path (string, id %d) and pos (long, id %d) "
                     "columns", uri.ptr, ZB_POSDEL_FILE_PATH_ID,
                     ZB_POSDEL_POS_ID);
        goto done;
    }
    while ((rc = zb_scan__reader_next(rs, ctx, r, &b)) == 1) {
        const struct ArrowArray *pa = b.children[ipath];
        const struct ArrowArray *qa = b.children[ipos];
        const int32_t *po = pa->buffers[1];
        const char *pd = pa->buffers[2];
        const int64_t *qv = qa->buffers[1];
        const uint8_t *pn = pa->null_count ? pa->buffers[0] : NULL;
        const uint8_t *qn = qa->null_count ? qa->buffers[0] : NULL;

        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto done;
        }
        for (i = 0; i < b.length; i++) {
            int64_t ip = pa->offset + b.offset + i;
            int64_t iq = qa->offset + b.offset + i;
            const char *p;
            size_t len;

            if ((pn && !zb_arrow_bit(pn, ip)) ||
                (qn && !zb_arrow_bit(qn, iq))) {
                rs->counts.null_position_deletes++;
                continue;
            }
            p = pd + po[ip];
            len = (size_t)(po[ip + 1] - po[ip]);
            if (qv[iq] < 0) {
                rc = zb_fail(ctx, ZB_ECORRUPT, "position delete file %s: "
                             "negative position %lld", uri.ptr,
                             (long long)qv[iq]);
                goto done;
            }
            if (last == NULL || len != last_len || memcmp(p, last, len) != 0) {
                last_task = zb_scan__pathmap_find(&pm, p, len);
                last = p;
                last_len = len;
            }
            if (last_task != SIZE_MAX &&
                (rc = push_pos(&vecs[last_task], ctx, (uint64_t)qv[iq])) < 0)
                goto done;
        }
        /* last points into the batch: forget it. */
        last = NULL;
        b.release(&b);
    }
done:
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    pq_reader_free(r);
    zb_scan__pathmap_free(&pm);
    if (rc < 0 && uri.ptr && ctx->err.code == rc &&
        strstr(ctx->err.msg, uri.ptr) == NULL)
        zb_err_prefix(ctx, "position delete file %s", uri.ptr);
    zb_buf_free(&uri);
    return rc;
}

static int read_dv(zb_rowstream *rs, zb_ctx *ctx, const zb_scan_file *f,
                   zb_vec *v)
{
    const ice_data_file *df = f->file;
    zb_buf uri = ZB_BUF_INIT(64 << 10);
    zb_roaring *bm = NULL;
    zb_roaring_iter it;
    uint8_t *blob = NULL;
    uint64_t tmp[1024];
    size_t got;
    int rc;

    if (df->content_offset == ICE_NULL_LONG || df->content_offset < 0 ||
        df->content_size_in_bytes == ICE_NULL_LONG ||
        df->content_size_in_bytes < 12 ||
        df->content_size_in_bytes > DV_MAX_BYTES)
        return zb_fail(ctx, ZB_ECORRUPT, "deletion vector in %s: "
                       "content_offset %lld / content_size_in_bytes %lld are "
                       "not a blob", df->file_path,
                       (long long)df->content_offset,
                       (long long)df->content_size_in_bytes);
    if ((rc = zb_scan__file_uri(rs, ctx, f, &uri)) < 0)
        goto done;
    if ((blob = zb_malloc((size_t)df->content_size_in_bytes)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_io_read_range(rs->io, ctx, uri.ptr,
                               (uint64_t)df->content_offset, blob,
                               (size_t)df->content_size_in_bytes)) < 0)
        goto done;
    if ((rc = zb_dv_parse(&bm, ctx, blob,
                          (size_t)df->content_size_in_bytes)) < 0)
        goto done;
    zb_roaring_iter_init(&it, bm);
    while ((got = zb_roaring_iter_read(&it, tmp, 1024)) > 0) {
        size_t k;
        for (k = 0; k < got; k++)
            if ((rc = push_pos(v, ctx, tmp[k])) < 0)
                goto done;
    }
done:
    if (rc < 0 && uri.ptr && strstr(ctx->err.msg, uri.ptr) == NULL)
        zb_err_prefix(ctx, "deletion vector in %s at offset %lld", uri.ptr,
                      (long long)df->content_offset);
    zb_roaring_free(bm);
    zb_free(blob);
    zb_buf_free(&uri);
    return rc;
}

int zb_scan__posdel_load(zb_rowstream *rs, zb_ctx *ctx)
{
    zb_vec *vecs = NULL;
    size_t t, d, i;
    int rc = ZB_OK;

    if ((vecs = zb_calloc(rs->n_tasks + 1, sizeof *vecs)) == NULL)
        return zb_fail_oom(ctx);
    for (t = 0; t < rs->n_tasks; t++)
        zb_vec_init(&vecs[t], sizeof(uint64_t), POS_MAX);
    /* DVs: each the one of its task. */
    for (t = 0; t < rs->n_tasks; t++)
        for (d = 0; d < rs->tasks[t].n_deletes; d++) {
            const zb_scan_file *f = &rs->tasks[t].deletes[d];
            if (!ice_data_file_is_dv(f->file))
                continue;
            if (zb_ctx_stopped(ctx)) {
                rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
                goto done;
            }
            if ((rc = read_dv(rs, ctx, f, &vecs[t])) < 0)
                goto done;
        }
    /* Position delete files: each read once for all its tasks. */
    for (i = 0; i < rs->dx.n; i++) {
        const zb_delfile *df = &rs->dx.files[i];
        if (df->f->file->content != ICE_CONTENT_POSITION_DELETES ||
            ice_data_file_is_dv(df->f->file))
            continue;
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto done;
        }
        if ((rc = read_posdel_file(rs, ctx, df, vecs)) < 0)
            goto done;
    }
    for (t = 0; t < rs->n_tasks; t++) {
        uint64_t *p = vecs[t].items;
        size_t n = vecs[t].len, k = 0;
        if (n == 0)
            continue;
        qsort(p, n, sizeof *p, cmp_u64);
        for (i = 0; i < n; i++)
            if (k == 0 || p[k - 1] != p[i])
                p[k++] = p[i];
        rs->ts[t].pos = p;
        rs->ts[t].n_pos = k;
        vecs[t].items = NULL;
        vecs[t].len = vecs[t].cap = 0;
    }
done:
    for (t = 0; vecs && t < rs->n_tasks; t++)
        zb_vec_free(&vecs[t]);
    zb_free(vecs);
    return rc;
}

/*
 * io/s3/io_s3_read.c - reading S3 objects: open, pread and pread_vec.
 *
 * open sends one speculative suffix GET (the last 64 KiB): its
 * Content-Range gives the size, and the bytes are kept, since a Parquet
 * or Avro reader's next read is the footer; an object of at most 64 KiB is
 * then held whole and never fetched again. Other reads are ranged GETs
 * written straight into the caller's buffer. A vectored read sorts its
 * ranges, merges near ones (gap under 256 KiB, merged span at most
 * 32 MiB) and sends the merged requests at once (zb_s3_http_do_many),
 * scattering each reply into the ranges it covers.
 */
#define ZB_MODULE "io"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3/io_s3_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define TAIL_BYTES 65536
#define MERGE_GAP_BYTES (256 * 1024)
#define MERGE_MAX_BYTES (32ull * 1024 * 1024)

typedef struct s3_file {
    zb_s3_target *t;
    zb_s3_uri u;
    uint64_t size;
    unsigned char *tail;             /* the object's last tail_len bytes */
    size_t tail_len;
    uint64_t tail_off;
} s3_file;
/* (the "tail" is the bytes the first GET brought, wherever they lie) */

static void file_free(s3_file *f)
{
    if (f == NULL)
        return;
    zb_s3_uri_free(&f->u);
    zb_free(f->tail);
    zb_free(f);
}

/* An object the suffix GET could not size (416: it is empty): HEAD it. */
static int head_size(s3_file *f, zb_ctx *ctx)
{
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 16);
    req.method = "HEAD";
    req.bucket = f->u.bucket;
    req.key = f->u.key;
    req.idempotent = 1;
    rc = zb_s3_http_do(f->t->http, ctx, &req, &resp);
    zb_buf_free(&resp.body);
    if (rc == ZB_OK)
        f->size = resp.content_length;
    return rc;
}

int zb_s3__open(void **file, uint64_t *size_out, void *state, zb_ctx *ctx,
                const char *uri)
{
    s3_file *f;
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    *file = NULL;
    if ((f = zb_calloc(1, sizeof *f)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_s3__resolve(&f->t, &f->u, state, ctx, uri)) < 0) {
        zb_free(f);
        return rc;
    }
    if (f->u.key[0] == '\0') {
        file_free(f);
        return zb_fail(ctx, ZB_EUSAGE, "S3 URI names a bucket, not an "
                       "object: %s", uri);
    }
    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, TAIL_BYTES);
    req.method = "GET";
    req.bucket = f->u.bucket;
    req.key = f->u.key;
    req.suffix_range = 1;
    req.range_len = TAIL_BYTES;
    req.idempotent = 1;
    rc = zb_s3_http_do(f->t->http, ctx, &req, &resp);
    if (rc < 0 && resp.status == 416) {
        /* S3 answers a suffix range on an empty object with 416. */
        zb_err_clear(&ctx->err);
        rc = head_size(f, ctx);
        zb_buf_clear(&resp.body);
    } else if (rc == ZB_OK) {
        f->size = resp.object_size;
        /* The body's place comes from Content-Range: a store may answer
         * a suffix range with another range (s3rver sends the head). */
        if (resp.body_offset > f->size ||
            resp.body.len > f->size - resp.body_offset) {
            rc = zb_fail(ctx, ZB_EIO, "S3 GET %s (store %s): %zu bytes for "
                         "a %llu-byte object", uri,
                         zb_s3_http_endpoint(f->t->http), resp.body.len,
                         (unsigned long long)f->size);
        } else {
            f->tail_len = resp.body.len;
            f->tail_off = resp.body_offset;
            f->tail = (unsigned char *)zb_buf_detach(&resp.body);
        }
    }
    zb_buf_free(&resp.body);
    if (rc < 0) {
        file_free(f);
        return rc;
    }
    *size_out = f->size;
    *file = f;
    return ZB_OK;
}

/* A reply body written into dst, refusing more than was asked. */
typedef struct sink {
    unsigned char *dst;
    size_t cap, got;
} sink;

static int to_dst(void *user, const void *data, size_t len)
{
    sink *s = user;

    if (len > s->cap - s->got)
        return ZB_EIO;
    memcpy(s->dst + s->got, data, len);
    s->got += len;
    return 0;
}

static int in_tail(const s3_file *f, uint64_t offset, size_t len)
{
    return f->tail != NULL && offset >= f->tail_off &&
           offset - f->tail_off + len <= f->tail_len;
}

int zb_s3__pread(void *file, zb_ctx *ctx, uint64_t offset, void *dst,
                 size_t len)
{
    s3_file *f = file;
    zb_s3_req req;
    zb_s3_resp resp;
    sink s = { dst, len, 0 };
    int rc;

    if (in_tail(f, offset, len)) {
        memcpy(dst, f->tail + (offset - f->tail_off), len);
        return ZB_OK;
    }
    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 0);
    req.method = "GET";
    req.bucket = f->u.bucket;
    req.key = f->u.key;
    req.has_range = 1;
    req.range_start = offset;
    req.range_len = len;
    req.idempotent = 1;
    req.on_data = to_dst;
    req.user = &s;
    rc = zb_s3_http_do(f->t->http, ctx, &req, &resp);
    zb_buf_free(&resp.body);
    if (rc == ZB_OK && s.got != len)
        rc = zb_fail(ctx, ZB_EIO, "S3 GET %s://%s/%s (store %s): %zu bytes "
                     "of the %zu asked for at offset %llu", f->u.scheme,
                     f->u.bucket, f->u.key, zb_s3_http_endpoint(f->t->http),
                     s.got, len, (unsigned long long)offset);
    return rc;
}

/* ---- vectored reads ------------------------------------------------------ */

/* A merged request and the ranges (sorted by offset) it serves. */
typedef struct group {
    uint64_t start, end;             /* [start, end) */
    uint64_t pos;                    /* bytes received so far + start */
    const zb_io_range **members;
    size_t n, first;
} group;

static int scatter(void *user, const void *data, size_t len)
{
    group *g = user;
    uint64_t lo = g->pos, hi = g->pos + len;
    size_t i;

    if (len > g->end - g->pos)
        return ZB_EIO;
    for (i = g->first; i < g->n && g->members[i]->offset < hi; i++) {
        const zb_io_range *r = g->members[i];
        uint64_t a = r->offset > lo ? r->offset : lo;
        uint64_t b = r->offset + r->len < hi ? r->offset + r->len : hi;
        if (a < b)
            memcpy((unsigned char *)r->dst + (a - r->offset),
                   (const unsigned char *)data + (a - lo), (size_t)(b - a));
    }
    while (g->first < g->n &&
           g->members[g->first]->offset + g->members[g->first]->len <= hi)
        g->first++;
    g->pos = hi;
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const zb_io_range *x = *(const zb_io_range *const *)a;
    const zb_io_range *y = *(const zb_io_range *const *)b;

    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int zb_s3__pread_vec(void *file, zb_ctx *ctx, const zb_io_range *ranges,
                     size_t n)
{
    s3_file *f = file;
    const zb_io_range **sorted = NULL;
    group *groups = NULL;
    zb_s3_req *reqs = NULL;
    zb_s3_resp *resps = NULL;
    int *rcs = NULL;
    size_t i, m = 0, k = 0;
    int rc = ZB_OK;

    if ((sorted = zb_calloc(n ? n : 1, sizeof *sorted)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        if (ranges[i].len == 0)
            continue;
        if (in_tail(f, ranges[i].offset, ranges[i].len))
            memcpy(ranges[i].dst, f->tail + (ranges[i].offset - f->tail_off),
                   ranges[i].len);
        else
            sorted[m++] = &ranges[i];
    }
    if (m == 0)
        goto done;
    qsort(sorted, m, sizeof *sorted, by_offset);
    if ((groups = zb_calloc(m, sizeof *groups)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < m; i++) {
        uint64_t s = sorted[i]->offset, e = s + sorted[i]->len;
        group *g = k > 0 ? &groups[k - 1] : NULL;
        if (g && s <= g->end + MERGE_GAP_BYTES &&
            (e > g->end ? e : g->end) - g->start <= MERGE_MAX_BYTES) {
            if (e > g->end)
                g->end = e;
            g->n++;
        } else {
            g = &groups[k++];
            g->start = g->pos = s;
            g->end = e;
            g->members = &sorted[i];
            g->n = 1;
        }
    }
    if ((reqs = zb_calloc(k, sizeof *reqs)) == NULL ||
        (resps = zb_calloc(k, sizeof *resps)) == NULL ||
        (rcs = zb_calloc(k, sizeof *rcs)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < k; i++) {
        reqs[i].method = "GET";
        reqs[i].bucket = f->u.bucket;
        reqs[i].key = f->u.key;
        reqs[i].has_range = 1;
        reqs[i].range_start = groups[i].start;
        reqs[i].range_len = groups[i].end - groups[i].start;
        reqs[i].idempotent = 1;
        reqs[i].on_data = scatter;
        reqs[i].user = &groups[i];
        zb_buf_init(&resps[i].body, 0);
    }
    rc = zb_s3_http_do_many(f->t->http, ctx, reqs, resps, rcs, k);
    for (i = 0; rc == ZB_OK && i < k; i++)
        if (groups[i].pos != groups[i].end)
            rc = zb_fail(ctx, ZB_EIO, "S3 GET %s://%s/%s (store %s): range "
                         "%llu-%llu came back short", f->u.scheme,
                         f->u.bucket, f->u.key,
                         zb_s3_http_endpoint(f->t->http),
                         (unsigned long long)groups[i].start,
                         (unsigned long long)groups[i].end);
done:
    for (i = 0; resps && i < k; i++)
        zb_buf_free(&resps[i].body);
    zb_free(sorted);
    zb_free(groups);
    zb_free(reqs);
    zb_free(resps);
    zb_free(rcs);
    return rc;
}

void zb_s3__close(void *file)
{
    file_free(file);
}

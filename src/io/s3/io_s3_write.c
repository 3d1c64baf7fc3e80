/*
 * io/s3/io_s3_write.c - writing new S3 objects.
 *
 * Bytes are buffered until commit; a file of at most multipart_threshold
 * bytes is one PUT with If-None-Match: *. A larger one becomes a
 * multipart upload: parts of part_size are sent four at a time, in
 * parallel, each one's bytes reserved (cfg->reserve) while in flight, and
 * CompleteMultipartUpload (with If-None-Match: *) makes the object appear
 * at commit. Nothing is visible before; any failure, and an abort, sends
 * AbortMultipartUpload so that no parts are left behind.
 *
 * A HEAD just before the PUT or the completion refuses a name that is
 * taken (ZB_EEXISTS) on stores that ignore If-None-Match; a 412 from one
 * that honours it is ZB_EEXISTS too. A completion sent again after its
 * reply was lost meets NoSuchUpload (or that 412): it is done when the
 * object there has our size and the multipart ETag of our parts.
 */
#define ZB_MODULE "io"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/s3/io_s3_int.h"
#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

#define PARTS_IN_FLIGHT 4
#define MAX_PARTS 10000

typedef struct s3_writer {
    zb_s3_target *t;
    zb_s3_uri u;
    zb_buf buf;                      /* bytes not yet sent */
    int multipart;
    char upload_id[1024];
    char (*etags)[160];              /* per part number - 1 */
    size_t n_parts, cap_parts;
    uint64_t sent_bytes;             /* in the parts sent */
} s3_writer;

static void init_req(zb_s3_req *req, const s3_writer *w, const char *method)
{
    memset(req, 0, sizeof *req);
    req->method = method;
    req->bucket = w->u.bucket;
    req->key = w->u.key;
    req->idempotent = 1;
}

static void writer_free(s3_writer *w)
{
    if (w == NULL)
        return;
    zb_buf_free(&w->buf);
    zb_s3_uri_free(&w->u);
    zb_free(w->etags);
    zb_free(w);
}

int zb_s3__writer_open(void **writer, void *state, zb_ctx *ctx,
                       const char *uri)
{
    s3_writer *w;
    int rc;

    *writer = NULL;
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_s3__resolve(&w->t, &w->u, state, ctx, uri)) < 0) {
        zb_free(w);
        return rc;
    }
    if (w->u.key[0] == '\0' || w->u.key[strlen(w->u.key) - 1] == '/') {
        writer_free(w);
        return zb_fail(ctx, ZB_EUSAGE, "S3 URI does not name an object: %s",
                       uri);
    }
    zb_buf_init(&w->buf, (size_t)-1 / 2);
    *writer = w;
    return ZB_OK;
}

/* ZB_EEXISTS when the key is taken; ZB_OK when it is free. */
static int check_free(s3_writer *w, zb_ctx *ctx)
{
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    init_req(&req, w, "HEAD");
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 0);
    rc = zb_s3_http_do(w->t->http, ctx, &req, &resp);
    zb_buf_free(&resp.body);
    if (rc == ZB_ENOTFOUND) {
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    if (rc == ZB_OK)
        return zb_fail(ctx, ZB_EEXISTS, "S3 %s://%s/%s (store %s) already "
                       "exists; a new file never replaces one", w->u.scheme,
                       w->u.bucket, w->u.key,
                       zb_s3_http_endpoint(w->t->http));
    return rc;
}

static int begin_multipart(s3_writer *w, zb_ctx *ctx)
{
    zb_s3_req req;
    zb_s3_resp resp;
    char err[ZB_S3_XML_ERR_SIZE];
    int rc;

    init_req(&req, w, "POST");
    req.query = "uploads=";
    /* A lost reply may leave an upload that no abort can reach: sent
     * again only after an error reply, when nothing was made. */
    req.idempotent = 0;
    req.retry_status_only = 1;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 16);
    if ((rc = zb_s3_http_do(w->t->http, ctx, &req, &resp)) == ZB_OK &&
        (rc = zb_s3_xml_parse_upload_id(w->upload_id, sizeof w->upload_id,
                                        resp.body.ptr, resp.body.len, err))
            < 0)
        rc = zb_fail(ctx, rc == ZB_ENOMEM ? ZB_ENOMEM : ZB_EIO,
                     "S3 CreateMultipartUpload %s://%s/%s (store %s): %s",
                     w->u.scheme, w->u.bucket, w->u.key,
                     zb_s3_http_endpoint(w->t->http), err);
    zb_buf_free(&resp.body);
    if (rc == ZB_OK)
        w->multipart = 1;
    return rc;
}

static void abort_multipart(s3_writer *w)
{
    zb_ctx ctx;
    zb_s3_req req;
    zb_s3_resp resp;
    zb_buf q = ZB_BUF_INIT(4096);

    if (!w->multipart)
        return;
    zb_ctx_init(&ctx);
    if (zb_buf_puts(&q, "uploadId=") == ZB_OK &&
        zb_s3_escape(&q, w->upload_id, 0) == ZB_OK) {
        init_req(&req, w, "DELETE");
        req.query = q.ptr;
        memset(&resp, 0, sizeof resp);
        zb_buf_init(&resp.body, 0);
        zb_s3_http_do(w->t->http, &ctx, &req, &resp);
        zb_buf_free(&resp.body);
    }
    zb_buf_free(&q);
    w->multipart = 0;
}

/* Sends the first n_send parts of part_size (the last may be short) of
 * buf, at once, and drops their bytes from buf. */
static int send_parts(s3_writer *w, zb_ctx *ctx, size_t n_send, int last)
{
    const zb_s3_config *cfg = &w->t->cfg;
    zb_s3_req reqs[PARTS_IN_FLIGHT];
    zb_s3_resp resps[PARTS_IN_FLIGHT];
    int rcs[PARTS_IN_FLIGHT];
    zb_buf q[PARTS_IN_FLIGHT];
    uint64_t ps = w->t->part_size, reserved = 0;
    size_t i, off = 0;
    int rc = ZB_OK;

    if (w->n_parts + n_send > MAX_PARTS)
        return zb_fail(ctx, ZB_EIO, "S3 %s://%s/%s: more than %d parts of "
                       "%llu bytes; raise the part size", w->u.scheme,
                       w->u.bucket, w->u.key, MAX_PARTS,
                       (unsigned long long)ps);
    if (w->n_parts + n_send > w->cap_parts) {
        size_t cap = w->cap_parts ? w->cap_parts * 2 : 16;
        void *p;
        while (cap < w->n_parts + n_send)
            cap *= 2;
        if ((p = zb_realloc(w->etags, cap * sizeof *w->etags)) == NULL)
            return zb_fail_oom(ctx);
        w->etags = p;
        w->cap_parts = cap;
    }
    for (i = 0; i < n_send; i++) {
        size_t len = (size_t)(w->buf.len - off < ps ? w->buf.len - off : ps);
        if (!last && len < ps)
            break;
        zb_buf_init(&q[i], 4096);
        init_req(&reqs[i], w, "PUT");
        if (zb_buf_appendf(&q[i], "partNumber=%zu&uploadId=",
                           w->n_parts + i + 1) < 0 ||
            zb_s3_escape(&q[i], w->upload_id, 0) < 0) {
            zb_buf_free(&q[i]);
            rc = zb_fail_oom(ctx);
            break;
        }
        reqs[i].query = q[i].ptr;
        reqs[i].body = w->buf.ptr + off;
        reqs[i].body_len = len;
        memset(&resps[i], 0, sizeof resps[i]);
        zb_buf_init(&resps[i].body, 1 << 16);
        off += len;
    }
    n_send = i;
    if (rc == ZB_OK && cfg->reserve && off > 0) {
        if ((rc = cfg->reserve(cfg->hook_user, ctx, off)) == ZB_OK)
            reserved = off;
    }
    if (rc == ZB_OK)
        rc = zb_s3_http_do_many(w->t->http, ctx, reqs, resps, rcs, n_send);
    if (reserved && cfg->release)
        cfg->release(cfg->hook_user, ctx, reserved);
    for (i = 0; i < n_send; i++) {
        if (rc == ZB_OK && resps[i].etag[0] == '\0')
            rc = zb_fail(ctx, ZB_EIO, "S3 UploadPart %zu of %s://%s/%s "
                         "(store %s): reply without an ETag",
                         w->n_parts + i + 1, w->u.scheme, w->u.bucket,
                         w->u.key, zb_s3_http_endpoint(w->t->http));
        snprintf(w->etags[w->n_parts + i], sizeof w->etags[0], "%s",
                 resps[i].etag);
        zb_buf_free(&resps[i].body);
        zb_buf_free(&q[i]);
    }
    if (rc < 0)
        return rc;
    w->n_parts += n_send;
    w->sent_bytes += off;
    memmove(w->buf.ptr, w->buf.ptr + off, w->buf.len - off);
    zb_buf_truncate(&w->buf, w->buf.len - off);
    return ZB_OK;
}

int zb_s3__writer_write(void *writer, zb_ctx *ctx, const void *data,
                        size_t len)
{
    s3_writer *w = writer;
    uint64_t ps = w->t->part_size;
    int rc;

    if (zb_buf_append(&w->buf, data, len) < 0)
        return zb_fail_oom(ctx);
    if (!w->multipart && w->buf.len <= w->t->multipart_threshold)
        return ZB_OK;
    if (!w->multipart && (rc = begin_multipart(w, ctx)) < 0)
        return rc;
    while (w->buf.len >= ps * PARTS_IN_FLIGHT)
        if ((rc = send_parts(w, ctx, PARTS_IN_FLIGHT, 0)) < 0) {
            abort_multipart(w);
            return rc;
        }
    return ZB_OK;
}

static int xml_escape(zb_buf *out, const char *s)
{
    for (; *s; s++) {
        int rc = *s == '&' ? zb_buf_puts(out, "&amp;")
               : *s == '<' ? zb_buf_puts(out, "&lt;")
               : *s == '>' ? zb_buf_puts(out, "&gt;")
               : *s == '"' ? zb_buf_puts(out, "&quot;")
               : zb_buf_putc(out, *s);
        if (rc < 0)
            return rc;
    }
    return ZB_OK;
}

/*
 * Whether the object at the key is our completed upload: its length is
 * the bytes of our parts and its ETag S3's for a multipart object, the
 * MD5 of the parts' MD5s then "-" and their count.
 */
static int multipart_is_ours(s3_writer *w)
{
    unsigned char *md5s, md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0, i;
    char want[2 * EVP_MAX_MD_SIZE + 32];
    size_t p;
    zb_ctx ctx;
    zb_s3_req req;
    zb_s3_resp resp;
    int ok = 0, rc;

    if (w->n_parts == 0 || (md5s = zb_malloc(w->n_parts * 16)) == NULL)
        return 0;
    for (p = 0; p < w->n_parts; p++) {
        const char *e = w->etags[p];
        size_t n = strlen(e);
        if (n == 34 && e[0] == '"' && e[33] == '"')
            e++, n -= 2;
        for (i = 0; n == 32 && i < 16; i++) {
            int hi = zb_str_hex_digit(e[2 * i]);
            int lo = zb_str_hex_digit(e[2 * i + 1]);
            if (hi < 0 || lo < 0)
                break;
            md5s[p * 16 + i] = (unsigned char)(hi << 4 | lo);
        }
        if (n != 32 || i != 16)
            break;                   /* not an MD5: nothing to compare */
    }
    if (p == w->n_parts &&
        EVP_Digest(md5s, w->n_parts * 16, md, &md_len, EVP_md5(), NULL) == 1) {
        want[0] = '"';
        for (i = 0; i < md_len; i++)
            snprintf(want + 1 + 2 * i, 3, "%02x", md[i]);
        snprintf(want + 1 + 2 * md_len, sizeof want - 1 - 2 * md_len,
                 "-%zu\"", w->n_parts);
        zb_ctx_init(&ctx);
        init_req(&req, w, "HEAD");
        memset(&resp, 0, sizeof resp);
        zb_buf_init(&resp.body, 0);
        rc = zb_s3_http_do(w->t->http, &ctx, &req, &resp);
        zb_buf_free(&resp.body);
        ok = rc == ZB_OK && resp.has_length &&
             resp.content_length == w->sent_bytes &&
             strcasecmp(resp.etag, want) == 0;
    }
    zb_free(md5s);
    return ok;
}

static int complete_multipart(s3_writer *w, zb_ctx *ctx)
{
    static const char *const hdrs[] = { "If-None-Match: *",
                                        "Content-Type: application/xml",
                                        NULL };
    zb_buf body = ZB_BUF_INIT((size_t)-1 / 2), q = ZB_BUF_INIT(4096);
    zb_s3_req req;
    zb_s3_resp resp;
    char code[64], msg[256], err[ZB_S3_XML_ERR_SIZE];
    size_t i;
    int rc = ZB_OK, ok = 0;

    if (zb_buf_puts(&body, "<CompleteMultipartUpload>") < 0)
        rc = ZB_ENOMEM;
    for (i = 0; rc == ZB_OK && i < w->n_parts; i++)
        if (zb_buf_appendf(&body, "<Part><PartNumber>%zu</PartNumber><ETag>",
                           i + 1) < 0 || xml_escape(&body, w->etags[i]) < 0 ||
            zb_buf_puts(&body, "</ETag></Part>") < 0)
            rc = ZB_ENOMEM;
    if (rc == ZB_OK && (zb_buf_puts(&body, "</CompleteMultipartUpload>") < 0
                        || zb_buf_puts(&q, "uploadId=") < 0 ||
                        zb_s3_escape(&q, w->upload_id, 0) < 0))
        rc = ZB_ENOMEM;
    if (rc < 0) {
        zb_buf_free(&body);
        zb_buf_free(&q);
        return zb_fail_oom(ctx);
    }
    init_req(&req, w, "POST");
    req.query = q.ptr;
    req.headers = hdrs;
    req.body = body.ptr;
    req.body_len = body.len;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 20);
    rc = zb_s3_http_do(w->t->http, ctx, &req, &resp);
    if (((rc == ZB_ENOTFOUND && strcmp(resp.error_code, "NoSuchUpload") == 0)
         || rc == ZB_EEXISTS) && multipart_is_ours(w)) {
        zb_err_clear(&ctx->err);     /* our first completion landed */
        rc = ZB_OK;
    } else if (rc == ZB_OK) {
        /* S3 may answer 200 and put an error in the body. */
        rc = zb_s3_xml_parse_complete(&ok, code, sizeof code, msg,
                                      sizeof msg, resp.body.ptr,
                                      resp.body.len, err);
        if (rc < 0)
            rc = zb_fail(ctx, rc == ZB_ENOMEM ? ZB_ENOMEM : ZB_EIO,
                         "S3 CompleteMultipartUpload %s://%s/%s (store %s): "
                         "%s", w->u.scheme, w->u.bucket, w->u.key,
                         zb_s3_http_endpoint(w->t->http), err);
        else if (!ok)
            rc = zb_fail(ctx, ZB_EIO, "S3 CompleteMultipartUpload "
                         "%s://%s/%s (store %s): %s: %s", w->u.scheme,
                         w->u.bucket, w->u.key,
                         zb_s3_http_endpoint(w->t->http), code, msg);
    }
    zb_buf_free(&resp.body);
    zb_buf_free(&body);
    zb_buf_free(&q);
    if (rc == ZB_OK)
        w->multipart = 0;            /* done: nothing to abort */
    return rc;
}

/*
 * After a 412 on our PUT: true when the object there is our own bytes,
 * which a retried PUT whose first reply was lost meets (the ETag of a
 * single PUT is the MD5 of its body).
 */
static int is_ours(s3_writer *w)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0, i;
    char want[2 * EVP_MAX_MD_SIZE + 3];
    zb_ctx ctx;
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    if (EVP_Digest(w->buf.ptr ? w->buf.ptr : "", w->buf.len, md, &md_len,
                   EVP_md5(), NULL) != 1)
        return 0;
    want[0] = '"';
    for (i = 0; i < md_len; i++)
        snprintf(want + 1 + 2 * i, 3, "%02x", md[i]);
    snprintf(want + 1 + 2 * md_len, 2, "\"");
    zb_ctx_init(&ctx);
    init_req(&req, w, "HEAD");
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 0);
    rc = zb_s3_http_do(w->t->http, &ctx, &req, &resp);
    zb_buf_free(&resp.body);
    return rc == ZB_OK && resp.content_length == w->buf.len &&
           strcmp(resp.etag, want) == 0;
}

static int put_whole(s3_writer *w, zb_ctx *ctx)
{
    static const char *const hdrs[] = { "If-None-Match: *", NULL };
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    init_req(&req, w, "PUT");
    req.headers = hdrs;
    req.body = w->buf.ptr ? w->buf.ptr : "";
    req.body_len = w->buf.len;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 16);
    rc = zb_s3_http_do(w->t->http, ctx, &req, &resp);
    zb_buf_free(&resp.body);
    if (rc == ZB_EEXISTS && is_ours(w))
        rc = ZB_OK, zb_err_clear(&ctx->err);
    return rc;
}

int zb_s3__writer_commit(void *writer, zb_ctx *ctx)
{
    s3_writer *w = writer;
    int rc = ZB_OK;

    if (!w->multipart) {
        if ((rc = check_free(w, ctx)) == ZB_OK)
            rc = put_whole(w, ctx);
        writer_free(w);
        return rc;
    }
    while (w->buf.len > 0 && (rc = send_parts(w, ctx, PARTS_IN_FLIGHT, 1))
           == ZB_OK)
        ;
    if (w->buf.len == 0 && (rc = check_free(w, ctx)) == ZB_OK)
        rc = complete_multipart(w, ctx);
    if (rc < 0)
        abort_multipart(w);
    writer_free(w);
    return rc;
}

void zb_s3__writer_abort(void *writer)
{
    s3_writer *w = writer;

    abort_multipart(w);
    writer_free(w);
}

/*
 * io/s3/io_s3_delete.c - deleting S3 objects: DELETE for one, and
 * DeleteObjects for many (up to 1,000 keys a request, Quiet off so that
 * the reply names each key's fate).
 *
 * S3 answers 204 for a key that was not there, and DeleteObjects lists it
 * as Deleted: on S3 a missing file is not told apart, and both calls
 * report ZB_OK for it (the file is gone either way). A key the reply
 * lists as an Error fails with ZB_EIO (ZB_ENOTFOUND for NoSuchKey), and a
 * key the reply does not mention at all fails with ZB_EIO: a file is never
 * reported deleted unless the store said so.
 */
#define ZB_MODULE "io"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3/io_s3_int.h"
#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "util/err.h"

#define BATCH_KEYS 1000

int zb_s3__remove(void *state, zb_ctx *ctx, const char *uri)
{
    zb_s3_target *t;
    zb_s3_uri u;
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    if ((rc = zb_s3__resolve(&t, &u, state, ctx, uri)) < 0)
        return rc;
    if (u.key[0] == '\0') {
        zb_s3_uri_free(&u);
        return zb_fail(ctx, ZB_EUSAGE, "S3 URI names a bucket, not an "
                       "object: %s", uri);
    }
    memset(&req, 0, sizeof req);
    req.method = "DELETE";
    req.bucket = u.bucket;
    req.key = u.key;
    req.idempotent = 1;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 16);
    rc = zb_s3_http_do(t->http, ctx, &req, &resp);
    zb_buf_free(&resp.body);
    zb_s3_uri_free(&u);
    return rc;
}

/* One key of a batch, to find it again by name in the reply. */
typedef struct batch_key {
    const char *key;
    size_t index;
} batch_key;

typedef struct batch {
    batch_key *keys;                 /* sorted by key */
    size_t n;
    int *rcs;                        /* of the whole run */
    const char *scheme, *bucket, *endpoint;
    size_t failed;
    zb_ctx *ctx;
} batch;

static int by_key(const void *a, const void *b)
{
    return strcmp(((const batch_key *)a)->key, ((const batch_key *)b)->key);
}

static int on_result(void *user, const char *key, const char *code,
                     const char *message)
{
    batch *b = user;
    batch_key probe = { key, 0 };
    batch_key *k = bsearch(&probe, b->keys, b->n, sizeof *b->keys, by_key);
    batch_key *lo, *hi;

    if (k == NULL)
        return 0;                    /* a key we did not ask about */
    for (lo = k; lo > b->keys && strcmp(lo[-1].key, key) == 0; lo--)
        ;
    for (hi = k; hi + 1 < b->keys + b->n && strcmp(hi[1].key, key) == 0;
         hi++)
        ;
    for (; lo <= hi; lo++) {
        if (code == NULL) {
            b->rcs[lo->index] = ZB_OK;
            continue;
        }
        b->rcs[lo->index] = strcmp(code, "NoSuchKey") == 0 ? ZB_ENOTFOUND
                                                          : ZB_EIO;
        if (b->failed++ == 0)
            zb_fail(b->ctx, b->rcs[lo->index], "S3 DeleteObjects %s://%s/%s "
                    "(store %s): %s: %s", b->scheme, b->bucket, key,
                    b->endpoint, code, message);
    }
    return 0;
}

static int xml_escape(zb_buf *out, const char *s)
{
    for (; *s; s++) {
        int rc = *s == '&' ? zb_buf_puts(out, "&amp;")
               : *s == '<' ? zb_buf_puts(out, "&lt;")
               : *s == '>' ? zb_buf_puts(out, "&gt;")
               : zb_buf_putc(out, *s);
        if (rc < 0)
            return rc;
    }
    return ZB_OK;
}

/* Content-MD5, which DeleteObjects requires: base64 of the body's MD5. */
static int content_md5(char *out, size_t size, const void *data, size_t len)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    char b64[32];

    if (EVP_Digest(data, len, md, &md_len, EVP_md5(), NULL) != 1)
        return ZB_EIO;
    EVP_EncodeBlock((unsigned char *)b64, md, (int)md_len);
    snprintf(out, size, "Content-MD5: %s", b64);
    return ZB_OK;
}

/* Deletes keys[0..n) of one bucket (n <= BATCH_KEYS) in one request. */
static int delete_chunk(zb_s3_target *t, zb_ctx *ctx, batch *b,
                        const char *bucket)
{
    zb_buf body = ZB_BUF_INIT((size_t)-1 / 2);
    char md5[96];
    const char *hdrs[] = { md5, "Content-Type: application/xml", NULL };
    zb_s3_req req;
    zb_s3_resp resp;
    char err[ZB_S3_XML_ERR_SIZE];
    size_t i;
    int rc = ZB_OK;

    if (zb_buf_puts(&body, "<Delete><Quiet>false</Quiet>") < 0)
        rc = ZB_ENOMEM;
    for (i = 0; rc == ZB_OK && i < b->n; i++)
        if (zb_buf_puts(&body, "<Object><Key>") < 0 ||
            xml_escape(&body, b->keys[i].key) < 0 ||
            zb_buf_puts(&body, "</Key></Object>") < 0)
            rc = ZB_ENOMEM;
    if (rc == ZB_OK && zb_buf_puts(&body, "</Delete>") < 0)
        rc = ZB_ENOMEM;
    if (rc < 0) {
        zb_buf_free(&body);
        return zb_fail_oom(ctx);
    }
    if (content_md5(md5, sizeof md5, body.ptr, body.len) < 0) {
        zb_buf_free(&body);
        return zb_fail(ctx, ZB_EIO, "OpenSSL: MD5 failed");
    }
    memset(&req, 0, sizeof req);
    req.method = "POST";
    req.bucket = bucket;
    req.key = "";
    req.query = "delete=";
    req.headers = hdrs;
    req.body = body.ptr;
    req.body_len = body.len;
    req.idempotent = 1;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 64u * 1024 * 1024);
    if ((rc = zb_s3_http_do(t->http, ctx, &req, &resp)) == ZB_OK &&
        (rc = zb_s3_xml_parse_delete(resp.body.ptr, resp.body.len, on_result,
                                     b, err)) < 0)
        rc = zb_fail(ctx, rc == ZB_ENOMEM ? ZB_ENOMEM : ZB_EIO,
                     "S3 DeleteObjects in %s (store %s): %s", bucket,
                     zb_s3_http_endpoint(t->http), err);
    zb_buf_free(&resp.body);
    zb_buf_free(&body);
    return rc;
}

int zb_s3__remove_batch(void *state, zb_ctx *ctx, const char *const *uris,
                        size_t n, int *rcs)
{
    zb_s3_target **ts = NULL;
    zb_s3_uri *us = NULL;
    batch_key *keys = NULL;
    size_t i = 0, failed = 0;
    int rc = ZB_OK;
    zb_err first;

    zb_err_clear(&first);
    if ((ts = zb_calloc(n ? n : 1, sizeof *ts)) == NULL ||
        (us = zb_calloc(n ? n : 1, sizeof *us)) == NULL ||
        (keys = zb_calloc(n ? n : 1, sizeof *keys)) == NULL) {
        zb_free(ts);
        zb_free(us);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < n; i++) {
        rcs[i] = zb_s3__resolve(&ts[i], &us[i], state, ctx, uris[i]);
        if (rcs[i] == ZB_OK && us[i].key[0] == '\0')
            rcs[i] = zb_fail(ctx, ZB_EUSAGE, "S3 URI names a bucket, not "
                             "an object: %s", uris[i]);
        if (rcs[i] < 0 && first.code == ZB_OK)
            zb_err_copy(&first, &ctx->err);
    }
    /* Runs of keys with the same settings and bucket, in chunks. */
    i = 0;
    while (i < n) {
        batch b;
        size_t j, k = 0;

        if (rcs[i] < 0) {
            i++;
            continue;
        }
        for (j = i; j < n && k < BATCH_KEYS; j++) {
            if (rcs[j] < 0)
                continue;
            if (ts[j] != ts[i] || strcmp(us[j].bucket, us[i].bucket) != 0)
                break;
            keys[k].key = us[j].key;
            keys[k].index = j;
            rcs[j] = ZB_EIO;         /* until the reply says otherwise */
            k++;
        }
        qsort(keys, k, sizeof *keys, by_key);
        memset(&b, 0, sizeof b);
        b.keys = keys, b.n = k, b.rcs = rcs, b.ctx = ctx;
        b.scheme = us[i].scheme, b.bucket = us[i].bucket;
        b.endpoint = zb_s3_http_endpoint(ts[i]->http);
        zb_err_clear(&ctx->err);
        if ((rc = delete_chunk(ts[i], ctx, &b, us[i].bucket)) < 0) {
            size_t m;
            for (m = 0; m < k; m++)
                rcs[keys[m].index] = rc;
        }
        if ((rc < 0 || b.failed) && first.code == ZB_OK)
            zb_err_copy(&first, &ctx->err);
        i = j;
        if (rc == ZB_ECANCELED) {
            for (; j < n; j++)       /* not attempted: never "deleted" */
                if (rcs[j] == ZB_OK)
                    rcs[j] = ZB_ECANCELED;
            break;
        }
    }
    for (i = 0; i < n; i++) {
        if (rcs[i] < 0)
            failed++;
        zb_s3_uri_free(&us[i]);
    }
    if (first.code != ZB_OK)
        zb_err_copy(&ctx->err, &first);
    else if (failed)
        zb_fail(ctx, ZB_EIO, "S3 DeleteObjects: %zu of %zu keys were not "
                "reported deleted by the store", failed, n);
    else
        zb_err_clear(&ctx->err);
    zb_free(ts);
    zb_free(us);
    zb_free(keys);
    return rc == ZB_ECANCELED ? rc : ZB_OK;
}

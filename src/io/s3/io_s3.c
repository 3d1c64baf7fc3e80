/*
 * io/s3/io_s3.c - the S3 backend of FileIO (zamboni/io_s3.h): its vtable,
 * settings (for every bucket, and by prefix), stat and the public helpers.
 * Reads, writes, listings and deletes live in io_s3_read.c, io_s3_write.c,
 * io_s3_list.c and io_s3_delete.c.
 *
 * The backend keeps io.h's contract: a new file appears whole or not at
 * all and never replaces one (If-None-Match: * where the store honours it,
 * and a HEAD just before, which catches what a store that ignores the
 * header would overwrite, except in a race); errors name the store, the
 * bucket and the key.
 */
#define ZB_MODULE "io"

#include "io/s3/io_s3_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/s3/s3_creds.h"
#include "util/alloc.h"
#include "util/err.h"

#define MIB (1024ull * 1024)

static char *dup_or_null(const char *s, int *oom)
{
    char *d;

    if (s == NULL)
        return NULL;
    if ((d = zb_strdup(s)) == NULL)
        *oom = 1;
    return d;
}

static void target_free(zb_s3_target *t)
{
    if (t == NULL)
        return;
    zb_s3_http_free(t->http);
    zb_free(t->prefix);
    zb_free((char *)t->cfg.endpoint);
    zb_free((char *)t->cfg.region);
    zb_free((char *)t->cfg.access_key_id);
    if (t->cfg.secret_access_key) {
        volatile char *v = (volatile char *)t->cfg.secret_access_key;
        while (*v)
            *v++ = 0;
    }
    zb_free((char *)t->cfg.secret_access_key);
    zb_free((char *)t->cfg.session_token);
    zb_free((char *)t->cfg.credentials_source);
    zb_free(t);
}

/* A target with over's fields, and base's where over leaves them 0. */
static int target_new(zb_s3_target **out, zb_ctx *ctx, const char *prefix,
                      const zb_s3_config *over, const zb_s3_config *base)
{
    zb_s3_target *t;
    zb_s3_config c = *over;
    int oom = 0, rc;

    *out = NULL;
    if (base) {
        if (c.endpoint == NULL)
            c.endpoint = base->endpoint;
        if (c.region == NULL)
            c.region = base->region;
        if (c.path_style == 0)
            c.path_style = base->path_style;
        if (c.access_key_id == NULL) {
            /* a refresh serves only the keys it came with (its user is
             * still released with the target) */
            c.refresh_credentials = NULL;
            c.session_token_expires_ms = base->session_token_expires_ms;
            c.access_key_id = base->access_key_id;
            c.secret_access_key = base->secret_access_key;
            c.session_token = base->session_token;
            c.credentials_source = base->credentials_source;
        }
#define TAKE(f) if (c.f == 0) c.f = base->f
        TAKE(max_attempts);
        TAKE(max_retry_seconds);
        TAKE(timeout_seconds);
        TAKE(max_connections);
        TAKE(multipart_threshold);
        TAKE(part_size);
#undef TAKE
        if (c.reserve == NULL) {
            c.reserve = base->reserve;
            c.release = base->release;
            c.hook_user = base->hook_user;
        }
    }
    if (c.part_size != 0 && c.part_size < 5 * MIB)
        return zb_fail(ctx, ZB_EUSAGE, "S3 part size must be at least 5 MiB "
                       "(S3's smallest multipart part), not %llu bytes",
                       (unsigned long long)c.part_size);
    if ((t = zb_calloc(1, sizeof *t)) == NULL)
        return zb_fail_oom(ctx);
    t->cfg = c;
    t->prefix = dup_or_null(prefix, &oom);
    t->cfg.endpoint = dup_or_null(c.endpoint, &oom);
    t->cfg.region = dup_or_null(c.region, &oom);
    t->cfg.access_key_id = dup_or_null(c.access_key_id, &oom);
    t->cfg.secret_access_key = dup_or_null(c.secret_access_key, &oom);
    t->cfg.session_token = dup_or_null(c.session_token, &oom);
    t->cfg.credentials_source = dup_or_null(c.credentials_source, &oom);
    if (oom) {
        target_free(t);
        return zb_fail_oom(ctx);
    }
    t->multipart_threshold = c.multipart_threshold ? c.multipart_threshold
                                                   : 16 * MIB;
    t->part_size = c.part_size ? c.part_size : 8 * MIB;
    if ((rc = zb_s3_http_new(&t->http, ctx, &t->cfg)) < 0) {
        target_free(t);
        return rc;
    }
    *out = t;
    return ZB_OK;
}

static int state_new(void **state, zb_ctx *ctx)
{
    zb_s3_state *s;

    if ((s = zb_calloc(1, sizeof *s)) == NULL)
        return zb_fail_oom(ctx);
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        zb_free(s);
        return zb_fail(ctx, ZB_ERROR, "cannot create a mutex");
    }
    *state = s;
    return ZB_OK;
}

static void state_free(void *state)
{
    zb_s3_state *s = state;

    if (s == NULL)
        return;
    while (s->prefixes) {
        zb_s3_target *t = s->prefixes;
        s->prefixes = t->next;
        target_free(t);
    }
    while (s->base) {
        zb_s3_target *t = s->base;
        s->base = t->next;
        target_free(t);
    }
    pthread_mutex_destroy(&s->lock);
    zb_free(s);
}

/* uri without its scheme: "bucket/key". */
static const char *after_scheme(const char *uri)
{
    const char *p = strstr(uri, "://");

    return p ? p + 3 : uri;
}

int zb_s3__resolve(zb_s3_target **out, zb_s3_uri *u, zb_s3_state *s,
                   zb_ctx *ctx, const char *uri)
{
    const char *rest = after_scheme(uri);
    zb_s3_target *t, *best = NULL;
    size_t best_len = 0;
    int rc;

    *out = NULL;
    if ((rc = zb_s3_uri_parse(u, ctx, uri)) < 0)
        return rc;
    pthread_mutex_lock(&s->lock);
    for (t = s->prefixes; t; t = t->next) {
        size_t n = strlen(t->prefix);
        if (n > best_len && strncmp(rest, t->prefix, n) == 0)
            best = t, best_len = n;
    }
    if (best == NULL)
        best = s->base;
    pthread_mutex_unlock(&s->lock);
    if (best == NULL) {
        zb_s3_uri_free(u);
        return zb_fail(ctx, ZB_EINVAL, "the S3 backend has no settings "
                       "(zb_io_add_s3 was not called): %s", uri);
    }
    *out = best;
    return ZB_OK;
}

static int accepts(const char *uri)
{
    return zb_s3_uri_accepts(uri);
}

static int s3_stat(zb_io_stat *out, void *state, zb_ctx *ctx,
                   const char *uri)
{
    zb_s3_target *t;
    zb_s3_uri u;
    zb_s3_req req;
    zb_s3_resp resp;
    int rc;

    if ((rc = zb_s3__resolve(&t, &u, state, ctx, uri)) < 0)
        return rc;
    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, 1 << 16);
    req.method = "HEAD";
    req.bucket = u.bucket;
    req.key = u.key;
    req.idempotent = 1;
    if (u.key[0] == '\0')
        rc = zb_fail(ctx, ZB_EUSAGE, "S3 URI names a bucket, not an "
                     "object: %s", uri);
    else if ((rc = zb_s3_http_do(t->http, ctx, &req, &resp)) == ZB_OK) {
        if (!resp.has_length)
            rc = zb_fail(ctx, ZB_EIO, "S3 HEAD %s (store %s): reply without "
                         "a Content-Length", uri,
                         zb_s3_http_endpoint(t->http));
        out->size_bytes = resp.content_length;
        out->mtime_ms = resp.last_modified_ms;
    }
    zb_buf_free(&resp.body);
    zb_s3_uri_free(&u);
    return rc;
}

const zb_io_backend zb_io_s3 = {
    ZB_IO_BACKEND_VERSION,
    "s3",
    state_new,
    state_free,
    accepts,
    s3_stat,
    zb_s3__open,
    zb_s3__pread,
    zb_s3__close,
    zb_s3__writer_open,
    zb_s3__writer_write,
    zb_s3__writer_commit,
    zb_s3__writer_abort,
    zb_s3__remove,
    zb_s3__list_open,
    zb_s3__list_next,
    zb_s3__list_close,
    zb_s3__pread_vec,
    zb_s3__remove_batch,
    zb_s3__open_sized,
    NULL,       /* write_replace: delete, then put (the path catalog,
                   the only caller, is read-only on object stores) */
};

int zb_io_add_s3(zb_io *io, zb_ctx *ctx, const zb_s3_config *cfg)
{
    zb_s3_state *s;
    zb_s3_target *t;
    int rc;

    ZB_ASSERT_ARG(io && ctx && cfg);
    if ((s = zb_io__backend_state(io, &zb_io_s3)) == NULL) {
        if ((rc = zb_io_add_backend(io, ctx, &zb_io_s3)) < 0)
            return rc;
        s = zb_io__backend_state(io, &zb_io_s3);
    }
    if ((rc = target_new(&t, ctx, NULL, cfg, NULL)) < 0)
        return rc;
    /* Older settings stay allocated (a reader may still hold them). */
    pthread_mutex_lock(&s->lock);
    t->next = s->base;
    s->base = t;
    pthread_mutex_unlock(&s->lock);
    return ZB_OK;
}

int zb_io_s3_add_prefix(zb_io *io, zb_ctx *ctx, const char *prefix,
                        const zb_s3_config *cfg)
{
    zb_s3_state *s;
    zb_s3_target *t, *base;
    int rc;

    ZB_ASSERT_ARG(io && ctx && prefix && cfg);
    if ((s = zb_io__backend_state(io, &zb_io_s3)) == NULL ||
        s->base == NULL)
        return zb_fail(ctx, ZB_EINVAL, "settings for %s: this FileIO has no "
                       "S3 backend", prefix);
    if (!zb_s3_uri_accepts(prefix))
        return zb_fail(ctx, ZB_EUSAGE, "settings for %s: not an S3 prefix "
                       "(s3://, s3a://, s3n://)", prefix);
    pthread_mutex_lock(&s->lock);
    base = s->base;
    pthread_mutex_unlock(&s->lock);
    if ((rc = target_new(&t, ctx, after_scheme(prefix), cfg, &base->cfg))
        < 0)
        return rc;
    pthread_mutex_lock(&s->lock);
    t->next = s->prefixes;
    s->prefixes = t;
    pthread_mutex_unlock(&s->lock);
    return ZB_OK;
}

int zb_io_s3_describe_credentials(char *out, size_t size, zb_io *io,
                                  zb_ctx *ctx, const char *uri)
{
    zb_s3_state *s;
    zb_s3_target *t;
    zb_s3_uri u;
    zb_s3_creds c;
    int rc;

    ZB_ASSERT_ARG(out && size > 0 && io && ctx && uri);
    out[0] = '\0';
    if ((s = zb_io__backend_state(io, &zb_io_s3)) == NULL)
        return zb_fail(ctx, ZB_EINVAL, "this FileIO has no S3 backend");
    if ((rc = zb_s3__resolve(&t, &u, s, ctx, uri)) < 0)
        return rc;
    zb_s3_uri_free(&u);
    if ((rc = zb_s3_creds_current(&c, zb_s3_http_creds(t->http), ctx)) < 0)
        return rc;
    snprintf(out, size, "%s", c.source);
    memset(&c, 0, sizeof c);
    return ZB_OK;
}

int zb_io_is_object_store(const char *uri)
{
    static const char *const schemes[] = {
        "s3", "s3a", "s3n", "gs", "gcs", "abfs", "abfss", "wasb", "wasbs",
        "adl", "oss", "cos", "cosn", "obs", "r2", "b2", NULL
    };
    size_t n, i;

    if (uri == NULL)
        return 0;
    n = strcspn(uri, ":/");
    if (uri[n] != ':' || strncmp(uri + n, "://", 3) != 0)
        return 0;
    for (i = 0; schemes[i]; i++)
        if (strlen(schemes[i]) == n && strncasecmp(uri, schemes[i], n) == 0)
            return 1;
    return 0;
}

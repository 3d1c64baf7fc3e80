/*
 * catalog/rest/catalog_rest_creds.c - vended S3 keys fetched again through
 * the catalog (open-api/rest-catalog-open-api.yaml, loadCredentials:
 * GET <uri>/v1/<prefix>namespaces/<ns>/tables/<t>/credentials), as the
 * refresh callback the S3 backend calls (zamboni/io_s3.h) before the keys
 * expire (s3.session-token-expires-at-ms) and after the store refused
 * them (ExpiredToken). io/ never sees the catalog: it gets a function and
 * a refresher.
 *
 * A refresher names one table, the location whose credential it refreshes
 * (the reply's storage credential with the longest prefix of it wins, as
 * at load) and the URL: the table config's (or catalog's)
 * client.refresh-credentials-endpoint when it is relative or on the
 * catalog's own origin (the catalog's token is sent with it, so never to
 * another host), else the loadCredentials path. It is held twice, by the
 * catalog's list and by the S3 settings it was given to, and freed by the
 * last; a catalog closed before the FileIO detaches its refreshers, whose
 * fetches then fail with a message instead of touching a freed client.
 * client.refresh-credentials-enabled=false turns refreshes off.
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <stdio.h>
#include <string.h>

#include "catalog/catalog_int.h"
#include "util/alloc.h"
#include "util/err.h"

struct zb_rest_refresher {
    pthread_mutex_t lock;            /* one fetch at a time; guards rest */
    int refs;                        /* under refreshers_lock */
    zb_rest *rest;                   /* NULL once the catalog is closed */
    char *url;
    char *location;
    char *ident;
    zb_rest_refresher *next;         /* in rest->refreshers */
};

/* Guards every catalog's list and the counts of references. */
static pthread_mutex_t refreshers_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *kv_get(const zb_catalog_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (kv[i].key && kv[i].value && strcmp(kv[i].key, key) == 0)
            return kv[i].value;
    return NULL;
}

static const char *setting(const zb_rest *r, const zb_catalog_kv *kv,
                           size_t n, const char *key)
{
    const char *v = kv_get(kv, n, key);

    return v ? v : json_string_value(json_object_get(r->props, key));
}

int zb_rest__refresh_enabled(const zb_rest *r, const zb_catalog_kv *kv,
                             size_t n)
{
    const char *v = setting(r, kv, n, "client.refresh-credentials-enabled");

    return !(v && (strcmp(v, "false") == 0 || strcmp(v, "FALSE") == 0 ||
                   strcmp(v, "False") == 0));
}

/* The length of "scheme://authority" at the start of uri; 0: none. */
static size_t origin_len(const char *uri)
{
    const char *p = strstr(uri, "://");

    if (p == NULL)
        return 0;
    p += 3;
    return (size_t)(p - uri) + strcspn(p, "/?#");
}

/* The credentials URL of ident into b: the advertised endpoint, or the
 * loadCredentials path. */
static int credentials_url(zb_buf *b, zb_ctx *ctx, const zb_rest *r,
                           const char *ident, const zb_catalog_kv *kv,
                           size_t n)
{
    const char *ep = setting(r, kv, n, "client.refresh-credentials-endpoint");
    char *ns = NULL, *name = NULL;
    size_t o = origin_len(r->uri);
    int rc;

    zb_buf_clear(b);
    if (ep && ep[0] && origin_len(ep) == 0) {
        if (zb_buf_appendf(b, "%s%s%s", r->uri, ep[0] == '/' ? "" : "/",
                           ep) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "URL longer than %zu bytes",
                           ZB_REST_URL_MAX_BYTES);
        return ZB_OK;
    }
    if (ep && ep[0] && o > 0 && origin_len(ep) == o &&
        strncmp(ep, r->uri, o) == 0) {
        if (zb_buf_puts(b, ep) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "URL longer than %zu bytes",
                           ZB_REST_URL_MAX_BYTES);
        return ZB_OK;
    }
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) == ZB_OK &&
        (rc = zb_rest__url_table(b, ctx, r, ns, name)) == ZB_OK &&
        zb_buf_puts(b, "/credentials") < 0)
        rc = zb_fail(ctx, ZB_ENOMEM, "URL longer than %zu bytes",
                     ZB_REST_URL_MAX_BYTES);
    zb_free(ns);
    zb_free(name);
    return rc;
}

static void refresher_free(zb_rest_refresher *f)
{
    pthread_mutex_destroy(&f->lock);
    zb_free(f->url);
    zb_free(f->location);
    zb_free(f->ident);
    zb_free(f);
}

/* Drops one reference (refreshers_lock not held). */
static void unref(zb_rest_refresher *f)
{
    int last;

    pthread_mutex_lock(&refreshers_lock);
    last = --f->refs == 0;
    pthread_mutex_unlock(&refreshers_lock);
    if (last)
        refresher_free(f);
}

int zb_rest__refresher_new(zb_rest_refresher **out, zb_rest *r, zb_ctx *ctx,
                           const char *ident, const char *location,
                           const zb_catalog_kv *kv, size_t n)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    zb_rest_refresher *f;
    int rc;

    *out = NULL;
    if ((rc = credentials_url(&url, ctx, r, ident, kv, n)) < 0) {
        zb_buf_free(&url);
        return rc;
    }
    if ((f = zb_calloc(1, sizeof *f)) == NULL) {
        zb_buf_free(&url);
        return zb_fail_oom(ctx);
    }
    f->url = zb_buf_detach(&url);
    f->location = zb_strdup(location);
    f->ident = zb_strdup(ident);
    if (f->url == NULL || f->location == NULL || f->ident == NULL ||
        pthread_mutex_init(&f->lock, NULL) != 0) {
        zb_free(f->url);
        zb_free(f->location);
        zb_free(f->ident);
        zb_free(f);
        return zb_fail_oom(ctx);
    }
    f->rest = r;
    f->refs = 2;                     /* the list's and the caller's */
    pthread_mutex_lock(&refreshers_lock);
    f->next = r->refreshers;
    r->refreshers = f;
    pthread_mutex_unlock(&refreshers_lock);
    *out = f;
    return ZB_OK;
}

void zb_rest__refresher_release(void *user)
{
    if (user != NULL)
        unref(user);
}

void zb_rest__detach_refreshers(zb_rest *r)
{
    zb_rest_refresher *f, *next;

    pthread_mutex_lock(&refreshers_lock);
    f = r->refreshers;
    r->refreshers = NULL;
    pthread_mutex_unlock(&refreshers_lock);
    for (; f != NULL; f = next) {
        next = f->next;
        pthread_mutex_lock(&f->lock);    /* waits for a fetch under way */
        f->rest = NULL;
        pthread_mutex_unlock(&f->lock);
        unref(f);
    }
}

int zb_rest__refresh_credentials(void *user, zb_ctx *ctx,
                                 zb_s3_credentials *out)
{
    zb_rest_refresher *f = user;
    json_t *doc = NULL;
    char what[400], label[720];
    int rc;

    snprintf(what, sizeof what, "refresh the vended credentials of table "
             "%.200s", f->ident);
    pthread_mutex_lock(&f->lock);
    if (f->rest == NULL) {
        pthread_mutex_unlock(&f->lock);
        return zb_fail(ctx, ZB_EINVAL, "%s: the catalog was closed", what);
    }
    rc = zb_rest__call(&doc, f->rest, ctx, "GET", f->url, NULL, ZB_REST_READ,
                       what);
    if (rc == ZB_OK) {
        pthread_mutex_lock(&refreshers_lock);
        f->rest->n_credential_fetches++;
        pthread_mutex_unlock(&refreshers_lock);
    }
    pthread_mutex_unlock(&f->lock);
    if (rc == ZB_OK) {
        snprintf(label, sizeof label, "%s (GET %.300s)", what, f->url);
        rc = zb_rest__parse_credentials(out, ctx, label, doc, f->location);
    }
    json_decref(doc);
    return rc;
}

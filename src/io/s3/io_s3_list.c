/*
 * io/s3/io_s3_list.c - listing a prefix with ListObjectsV2.
 *
 * The prefix is the URI's key plus '/' (unless it ends with one), so that
 * s3://b/t lists what lies under the "directory" t and not t2/. One page
 * (at most 1,000 entries) is held at a time; the next is fetched with its
 * continuation token when the last entry has been handed out. A prefix
 * that holds nothing is ZB_ENOTFOUND, as a missing directory is for the
 * local backend. Entries come back in the scheme the caller used.
 */
#define ZB_MODULE "io"

#include <stdio.h>
#include <string.h>

#include "io/s3/io_s3_int.h"
#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "util/err.h"

#define PAGE_BYTES_MAX (16u * 1024 * 1024)

typedef struct page_entry {
    char *key;
    uint64_t size;
    int64_t mtime_ms;
} page_entry;

typedef struct s3_lister {
    zb_s3_target *t;
    zb_s3_uri u;
    char *prefix;
    char *token;                     /* next page's; NULL: no more */
    int started;
    page_entry *entries;
    size_t n, cap, next;
    zb_buf uri;                      /* the entry handed out */
    uint64_t listed;
} s3_lister;

static void page_clear(s3_lister *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        zb_free(l->entries[i].key);
    l->n = l->next = 0;
}

static int add_entry(void *user, const char *key, uint64_t size,
                     int64_t mtime_ms)
{
    s3_lister *l = user;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        void *p = zb_realloc(l->entries, cap * sizeof *l->entries);
        if (p == NULL)
            return ZB_ENOMEM;
        l->entries = p;
        l->cap = cap;
    }
    if ((l->entries[l->n].key = zb_strdup(key)) == NULL)
        return ZB_ENOMEM;
    l->entries[l->n].size = size;
    l->entries[l->n].mtime_ms = mtime_ms;
    l->n++;
    return 0;
}

static int fetch_page(s3_lister *l, zb_ctx *ctx)
{
    zb_buf q = ZB_BUF_INIT(1 << 16);
    zb_s3_req req;
    zb_s3_resp resp;
    zb_s3_xml_page page;
    char err[ZB_S3_XML_ERR_SIZE];
    int rc;

    page_clear(l);
    if ((l->token && (zb_buf_puts(&q, "continuation-token=") < 0 ||
                      zb_s3_escape(&q, l->token, 0) < 0 ||
                      zb_buf_putc(&q, '&') < 0)) ||
        zb_buf_puts(&q, "list-type=2&prefix=") < 0 ||
        zb_s3_escape(&q, l->prefix, 0) < 0) {
        zb_buf_free(&q);
        return zb_fail_oom(ctx);
    }
    memset(&req, 0, sizeof req);
    req.method = "GET";
    req.bucket = l->u.bucket;
    req.key = "";
    req.query = q.ptr;
    req.idempotent = 1;
    memset(&resp, 0, sizeof resp);
    zb_buf_init(&resp.body, PAGE_BYTES_MAX);
    rc = zb_s3_http_do(l->t->http, ctx, &req, &resp);
    zb_buf_free(&q);
    zb_free(l->token);
    l->token = NULL;
    if (rc < 0) {
        zb_err_prefix(ctx, "listing %s://%s/%s", l->u.scheme, l->u.bucket,
                      l->prefix);
    } else if ((rc = zb_s3_xml_parse_list(&page, resp.body.ptr,
                                          resp.body.len, add_entry, l, err))
               < 0) {
        rc = rc == ZB_ENOMEM
                 ? zb_fail_oom(ctx)
                 : zb_fail(ctx, ZB_EIO, "listing %s://%s/%s (store %s): %s",
                           l->u.scheme, l->u.bucket, l->prefix,
                           zb_s3_http_endpoint(l->t->http), err);
    } else if (page.is_truncated) {
        l->token = page.next_token;
    } else {
        zb_free(page.next_token);
    }
    zb_buf_free(&resp.body);
    l->started = 1;
    return rc;
}

int zb_s3__list_open(void **lister, void *state, zb_ctx *ctx,
                     const char *uri)
{
    s3_lister *l;
    size_t n;
    int rc;

    *lister = NULL;
    if ((l = zb_calloc(1, sizeof *l)) == NULL)
        return zb_fail_oom(ctx);
    zb_buf_init(&l->uri, 1 << 16);
    if ((rc = zb_s3__resolve(&l->t, &l->u, state, ctx, uri)) < 0) {
        zb_free(l);
        return rc;
    }
    n = strlen(l->u.key);
    if ((l->prefix = zb_malloc(n + 2)) == NULL) {
        zb_s3__list_close(l);
        return zb_fail_oom(ctx);
    }
    memcpy(l->prefix, l->u.key, n);
    if (n > 0 && l->u.key[n - 1] != '/')
        l->prefix[n++] = '/';
    l->prefix[n] = '\0';
    if ((rc = fetch_page(l, ctx)) == ZB_OK && l->n == 0 && l->token == NULL)
        rc = zb_fail(ctx, ZB_ENOTFOUND, "nothing under %s://%s/%s (store "
                     "%s)", l->u.scheme, l->u.bucket, l->prefix,
                     zb_s3_http_endpoint(l->t->http));
    if (rc < 0) {
        zb_s3__list_close(l);
        return rc;
    }
    *lister = l;
    return ZB_OK;
}

int zb_s3__list_next(void *lister, zb_ctx *ctx, zb_io_entry *entry)
{
    s3_lister *l = lister;
    page_entry *e;
    int rc;

    while (l->next == l->n) {
        if (l->token == NULL)
            return 0;
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "listing %s://%s/%s: stopped",
                           l->u.scheme, l->u.bucket, l->prefix);
        if ((rc = fetch_page(l, ctx)) < 0)
            return rc;
    }
    e = &l->entries[l->next++];
    zb_buf_clear(&l->uri);
    if (zb_buf_appendf(&l->uri, "%s://%s/%s", l->u.scheme, l->u.bucket,
                       e->key) < 0)
        return zb_fail_oom(ctx);
    entry->uri = l->uri.ptr;
    entry->size_bytes = e->size;
    entry->mtime_ms = e->mtime_ms;
    l->listed++;
    return 1;
}

void zb_s3__list_close(void *lister)
{
    s3_lister *l = lister;

    if (l == NULL)
        return;
    page_clear(l);
    zb_free(l->entries);
    zb_free(l->prefix);
    zb_free(l->token);
    zb_buf_free(&l->uri);
    zb_s3_uri_free(&l->u);
    zb_free(l);
}

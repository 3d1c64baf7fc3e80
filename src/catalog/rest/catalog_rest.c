/*
 * catalog/rest/catalog_rest.c - the Iceberg REST catalog backend
 * (apache/iceberg open-api/rest-catalog-open-api.yaml), over the HTTP
 * layer of catalog_rest_http.c and the reply parsers of
 * catalog_rest_parse.c.
 *
 * Open: GET <uri>/v1/config?warehouse=W; the reply's defaults, then the
 * client's settings (uri, warehouse), then its overrides make the
 * catalog's properties. Of them "uri" moves the base URI, "prefix" goes
 * into every path (<uri>/v1/<prefix>/namespaces/...) and
 * "namespace-separator" (URL-encoded, default %1F) joins namespace
 * levels in paths and in the parent parameter. Then Lakekeeper's
 * management API is asked for its warehouses (GET
 * <base>/management/v1/warehouse, where <base> is the URI without a
 * trailing /catalog); ZB_CATALOG_CAP_WAREHOUSES is set only when it
 * answers with a warehouse list.
 *
 * Names: "a.b.tbl" is namespace ["a", "b"] and table "tbl"; each level
 * is percent-encoded. Listings follow pageToken / next-page-token until
 * the token is null or missing (the first request sends an empty
 * pageToken to ask for pages).
 *
 * Tables: catalog_rest_table.c.
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <stdio.h>
#include <string.h>

#include "catalog/catalog_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* ---- URLs ---- */

/* Appends ns ("a.b") as encoded levels joined by the separator. */
static int put_namespace(zb_buf *b, const zb_rest *r, const char *ns)
{
    const char *p = ns;

    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char level[1024];
        if (n >= sizeof(level))
            return ZB_ENOMEM;
        memcpy(level, p, n);
        level[n] = '\0';
        if (zb_rest__url_escape(b, level) < 0)
            return ZB_ENOMEM;
        if (!dot)
            return ZB_OK;
        if (zb_buf_puts(b, r->sep) < 0)
            return ZB_ENOMEM;
        p = dot + 1;
    }
}

/* <uri>/v1/<prefix>namespaces[/<ns>] */
int zb_rest__url_namespaces(zb_buf *b, zb_ctx *ctx, const zb_rest *r,
                            const char *ns)
{
    zb_buf_clear(b);
    if (zb_buf_appendf(b, "%s/v1/%snamespaces", r->uri, r->prefix) < 0
        || (ns && (zb_buf_putc(b, '/') < 0 || put_namespace(b, r, ns) < 0)))
        return zb_fail(ctx, ZB_ENOMEM, "URL longer than %zu bytes",
                       ZB_REST_URL_MAX_BYTES);
    return ZB_OK;
}

/* <uri>/v1/<prefix>namespaces/<ns>/tables[/<name>] */
int zb_rest__url_table(zb_buf *b, zb_ctx *ctx, const zb_rest *r,
                       const char *ns, const char *name)
{
    int rc;

    if ((rc = zb_rest__url_namespaces(b, ctx, r, ns)) < 0)
        return rc;
    if (zb_buf_puts(b, "/tables") < 0
        || (name && (zb_buf_putc(b, '/') < 0
                     || zb_rest__url_escape(b, name) < 0)))
        return zb_fail(ctx, ZB_ENOMEM, "URL longer than %zu bytes",
                       ZB_REST_URL_MAX_BYTES);
    return ZB_OK;
}

/* ["a", "b"] from "a.b". */
json_t *zb_rest__namespace_array(const char *ns)
{
    json_t *arr = json_array();
    const char *p = ns;

    while (arr) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (json_array_append_new(arr, json_stringn(p, n)) < 0) {
            json_decref(arr);
            return NULL;
        }
        if (!dot)
            break;
        p = dot + 1;
    }
    return arr;
}

/* ---- requests ---- */

/* Sends a request and parses its JSON object reply (doc_out may be NULL
 * for replies without a body). */
int zb_rest__call(json_t **doc_out, zb_rest *r, zb_ctx *ctx,
                  const char *method, const char *url, const json_t *body,
                  zb_rest_kind kind, const char *what)
{
    zb_rest_req req;
    zb_rest_resp resp;
    char *text = NULL;
    char label[300];
    int rc;

    if (doc_out)
        *doc_out = NULL;
    memset(&req, 0, sizeof(req));
    if (body) {
        size_t n = json_dumpb(body, NULL, 0, JSON_COMPACT);
        if (n == 0 || !(text = zb_malloc(n + 1)))
            return zb_fail_oom(ctx);
        json_dumpb(body, text, n, JSON_COMPACT);
        text[n] = '\0';
        req.body = text;
        req.body_len = n;
    }
    req.method = method;
    req.url = url;
    req.kind = kind;
    req.what = what;
    rc = zb_rest__request(r, ctx, &req, &resp);
    if (rc == ZB_OK && doc_out) {
        snprintf(label, sizeof(label), "%s (%s %s)", what, method, url);
        rc = zb_rest__parse_object(doc_out, ctx, label, resp.body.ptr,
                                   resp.body.len);
        if (rc < 0 && kind == ZB_REST_COMMIT) {
            char msg[ZB_ERR_MSG_SIZE];
            snprintf(msg, sizeof(msg), "%s", ctx->err.msg);
            rc = zb_fail(ctx, ZB_ETIMEOUT, "%s (commit outcome unknown)",
                         msg);
        }
    }
    zb_buf_free(&resp.body);
    zb_free(text);
    return rc;
}

/* ---- open ---- */

static void rest_free_state(zb_rest *r)
{
    size_t i;

    if (!r)
        return;
    zb_rest__detach_refreshers(r);
    zb_rest__fini(r);
    for (i = 0; i < r->n_headers; i++) {
        zb_free((char *)r->headers[i].key);
        zb_free((char *)r->headers[i].value);
    }
    zb_free(r->headers);
    zb_free(r->name);
    zb_free(r->uri);
    zb_free(r->mgmt_uri);
    zb_free(r->warehouse);
    zb_free(r->prefix);
    zb_free(r->sep);
    zb_free(r->credential);
    zb_free(r->oauth_uri);
    zb_free(r->scope);
    zb_free(r->token);
    json_decref(r->props);
    zb_free(r);
}

static void rest_destroy(zb_catalog *c)
{
    rest_free_state(c->backend);
    c->backend = NULL;
}

/* s without trailing '/' (copied). */
static char *trim_slash(const char *s)
{
    size_t n = strlen(s);

    while (n > 0 && s[n - 1] == '/')
        n--;
    return zb_strndup(s, n);
}

static int set_base(zb_rest *r, zb_ctx *ctx, const char *uri)
{
    size_t n;
    char *u = trim_slash(uri), *m;

    if (!u)
        return zb_fail_oom(ctx);
    /* Lakekeeper serves the catalog at <base>/catalog and its
     * management API at <base>/management. */
    n = strlen(u);
    m = (n >= 8 && strcmp(u + n - 8, "/catalog") == 0) ? zb_strndup(u, n - 8)
                                                      : zb_strdup(u);
    if (!m) {
        zb_free(u);
        return zb_fail_oom(ctx);
    }
    zb_free(r->uri);
    zb_free(r->mgmt_uri);
    r->uri = u;
    r->mgmt_uri = m;
    return ZB_OK;
}

static int copy_str(char **dst, zb_ctx *ctx, const char *src)
{
    *dst = NULL;
    if (src && !(*dst = zb_strdup(src)))
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static int load_config(zb_rest *r, zb_ctx *ctx)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    json_t *doc = NULL, *client = json_object();
    const char *v;
    char label[300];
    int rc;

    if (!client || zb_buf_appendf(&url, "%s/v1/config", r->uri) < 0
        || (r->warehouse && (zb_buf_puts(&url, "?warehouse=") < 0
                             || zb_rest__url_escape(&url, r->warehouse) < 0))
        || json_object_set_new(client, "uri", json_string(r->uri)) < 0
        || (r->warehouse
            && json_object_set_new(client, "warehouse",
                                   json_string(r->warehouse)) < 0)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_rest__call(&doc, r, ctx, "GET", url.ptr, NULL, ZB_REST_READ,
                            "get config")) < 0)
        goto done;
    snprintf(label, sizeof(label), "get config (GET %s)", url.ptr);
    if ((rc = zb_rest__parse_config(&r->props, ctx, label, doc, client)) < 0)
        goto done;
    if ((v = json_string_value(json_object_get(r->props, "uri")))
        && strcmp(v, r->uri) != 0 && (rc = set_base(r, ctx, v)) < 0)
        goto done;
    v = json_string_value(json_object_get(r->props, "prefix"));
    zb_free(r->prefix);
    if (v && v[0]) {
        zb_buf p = ZB_BUF_INIT(4096);
        char *t = trim_slash(v[0] == '/' ? v + 1 : v);
        if (!t || zb_buf_appendf(&p, "%s/", t) < 0) {
            zb_free(t);
            zb_buf_free(&p);
            rc = zb_fail_oom(ctx);
            goto done;
        }
        zb_free(t);
        r->prefix = zb_buf_detach(&p);
    } else
        r->prefix = zb_strdup("");
    v = json_string_value(json_object_get(r->props, "namespace-separator"));
    zb_free(r->sep);
    r->sep = zb_strdup(v && v[0] ? v : "%1F");
    if (!r->prefix || !r->sep)
        rc = zb_fail_oom(ctx);
done:
    json_decref(doc);
    json_decref(client);
    zb_buf_free(&url);
    return rc;
}

static int list_count_cb(const char *item, void *payload)
{
    (void)item;
    ++*(size_t *)payload;
    return 0;
}

static int list_pages(zb_rest *r, zb_ctx *ctx, const char *base_url,
                      const char *extra, zb_rest_list list, const char *what,
                      zb_rest_item_cb fn, void *payload);

int zb_catalog__rest_open(zb_catalog *c, zb_ctx *ctx,
                          const zb_catalog_config *cfg);

static const zb_catalog_ops rest_ops;

int zb_catalog__rest_open(zb_catalog *c, zb_ctx *ctx,
                          const zb_catalog_config *cfg)
{
    zb_rest *r = NULL;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    size_t i, n = 0;
    int rc, saved;

    if (!cfg->uri || !cfg->uri[0])
        return zb_fail(ctx, ZB_EUSAGE, "no uri configured");
    if (strncmp(cfg->uri, "http://", 7) != 0
        && strncmp(cfg->uri, "https://", 8) != 0)
        return zb_fail(ctx, ZB_EUSAGE,
                       "bad URL \"%s\": http:// or https:// expected",
                       cfg->uri);
    if (!(r = zb_calloc(1, sizeof(*r))))
        return zb_fail_oom(ctx);
    r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 30000;
    r->max_retries = cfg->max_retries >= 0 ? cfg->max_retries : 3;
    r->token_refresh_ms = INT64_MAX;
    if ((rc = copy_str(&r->name, ctx, c->name)) < 0
        || (rc = set_base(r, ctx, cfg->uri)) < 0
        || (rc = copy_str(&r->warehouse, ctx, cfg->warehouse)) < 0
        || (rc = copy_str(&r->credential, ctx, cfg->credential)) < 0
        || (rc = copy_str(&r->token, ctx, cfg->token)) < 0
        || (rc = copy_str(&r->scope, ctx, cfg->scope ? cfg->scope
                                                      : "catalog")) < 0
        || (rc = copy_str(&r->prefix, ctx, "")) < 0
        || (rc = copy_str(&r->sep, ctx, "%1F")) < 0)
        goto fail;
    if (cfg->oauth2_server_uri)
        rc = copy_str(&r->oauth_uri, ctx, cfg->oauth2_server_uri);
    else if (zb_buf_appendf(&url, "%s/v1/oauth/tokens", r->uri) < 0
             || !(r->oauth_uri = zb_buf_detach(&url)))
        rc = zb_fail_oom(ctx);
    if (rc < 0)
        goto fail;
    if (cfg->n_headers > 0) {
        if (!(r->headers = zb_calloc(cfg->n_headers, sizeof(*r->headers)))) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        for (i = 0; i < cfg->n_headers; i++) {
            r->n_headers++;
            r->headers[i].key = zb_strdup(cfg->headers[i].key);
            r->headers[i].value = zb_strdup(cfg->headers[i].value
                                                ? cfg->headers[i].value : "");
            if (!r->headers[i].key || !r->headers[i].value) {
                rc = zb_fail_oom(ctx);
                goto fail;
            }
        }
    }
    if ((rc = zb_rest__init(r, ctx)) < 0)
        goto fail;
    if ((rc = load_config(r, ctx)) < 0)
        goto fail;
    c->backend = r;
    c->ops = &rest_ops;
    c->caps = ZB_CATALOG_CAP_NAMESPACES | ZB_CATALOG_CAP_CREATE
              | ZB_CATALOG_CAP_CREDENTIALS;
    /* Lakekeeper? Asked once, without retries; any failure means no. */
    zb_buf_clear(&url);
    if (zb_buf_appendf(&url, "%s/management/v1/warehouse", r->mgmt_uri) < 0) {
        rc = zb_fail_oom(ctx);
        goto fail;
    }
    saved = r->max_retries;
    r->max_retries = 0;
    rc = list_pages(r, ctx, url.ptr, NULL, ZB_REST_LIST_WAREHOUSES,
                    "list warehouses", list_count_cb, &n);
    r->max_retries = saved;
    if (rc == ZB_OK)
        c->caps |= ZB_CATALOG_CAP_WAREHOUSES;
    else if (rc == ZB_ENOMEM || rc == ZB_ECANCELED)
        goto fail;
    zb_err_clear(&ctx->err);
    zb_buf_free(&url);
    return ZB_OK;
fail:
    c->backend = NULL;
    c->ops = NULL;
    zb_buf_free(&url);
    rest_free_state(r);
    return rc;
}

/* ---- listings ---- */

static int list_pages(zb_rest *r, zb_ctx *ctx, const char *base_url,
                      const char *extra, zb_rest_list list, const char *what,
                      zb_rest_item_cb fn, void *payload)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *token = NULL, *next = NULL;
    json_t *doc = NULL;
    char label[300];
    size_t pages = 0;
    int rc;

    for (;;) {
        zb_buf_clear(&url);
        if (zb_buf_appendf(&url, "%s?pageToken=", base_url) < 0
            || (token && zb_rest__url_escape(&url, token) < 0)
            || (extra && zb_buf_appendf(&url, "&%s", extra) < 0)) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        if ((rc = zb_rest__call(&doc, r, ctx, "GET", url.ptr, NULL,
                                ZB_REST_READ, what)) < 0)
            goto done;
        snprintf(label, sizeof(label), "%s (GET %s)", what, url.ptr);
        if ((rc = zb_rest__parse_page(&next, ctx, label, doc, list, fn,
                                      payload)) != 0)
            goto done;
        json_decref(doc);
        doc = NULL;
        if (!next)
            break;
        if ((token && strcmp(token, next) == 0) || ++pages > 1000000) {
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "%s (GET %s): the server repeats page token "
                         "\"%.40s\"", what, url.ptr, next);
            goto done;
        }
        zb_free(token);
        token = next;
        next = NULL;
    }
done:
    json_decref(doc);
    zb_free(token);
    zb_free(next);
    zb_buf_free(&url);
    return rc;
}

static int rest_list_warehouses(zb_catalog *c, zb_ctx *ctx,
                                zb_catalog_list_cb fn, void *payload)
{
    zb_rest *r = c->backend;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    int rc;

    if (!(c->caps & ZB_CATALOG_CAP_WAREHOUSES))
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "%s has no Lakekeeper management API to list "
                       "warehouses", r->uri);
    if (zb_buf_appendf(&url, "%s/management/v1/warehouse", r->mgmt_uri) < 0)
        rc = zb_fail_oom(ctx);
    else
        rc = list_pages(r, ctx, url.ptr, NULL, ZB_REST_LIST_WAREHOUSES,
                        "list warehouses", fn, payload);
    zb_buf_free(&url);
    return rc;
}

static int rest_list_namespaces(zb_catalog *c, zb_ctx *ctx, const char *parent,
                                zb_catalog_list_cb fn, void *payload)
{
    zb_rest *r = c->backend;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    zb_buf extra = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "list namespaces%s%s",
             parent ? " under " : "", parent ? parent : "");
    if ((rc = zb_rest__url_namespaces(&url, ctx, r, NULL)) < 0)
        goto done;
    if (parent && parent[0]
        && (zb_buf_puts(&extra, "parent=") < 0
            || put_namespace(&extra, r, parent) < 0)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = list_pages(r, ctx, url.ptr, extra.len ? extra.ptr : NULL,
                    ZB_REST_LIST_NAMESPACES, what, fn, payload);
done:
    zb_buf_free(&url);
    zb_buf_free(&extra);
    return rc;
}

static int rest_list_tables(zb_catalog *c, zb_ctx *ctx, const char *ns,
                            zb_catalog_list_cb fn, void *payload)
{
    zb_rest *r = c->backend;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "list tables of %s", ns);
    if ((rc = zb_rest__url_table(&url, ctx, r, ns, NULL)) == ZB_OK)
        rc = list_pages(r, ctx, url.ptr, NULL, ZB_REST_LIST_TABLES, what, fn,
                        payload);
    zb_buf_free(&url);
    return rc;
}

static int rest_create_namespace(zb_catalog *c, zb_ctx *ctx, const char *ns)
{
    zb_rest *r = c->backend;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    json_t *body = json_object(), *doc = NULL;
    json_t *arr = zb_rest__namespace_array(ns);
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "create namespace %s", ns);
    if (!body || !arr || json_object_set(body, "namespace", arr) < 0
        || json_object_set_new(body, "properties", json_object()) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_rest__url_namespaces(&url, ctx, r, NULL)) == ZB_OK)
        rc = zb_rest__call(&doc, r, ctx, "POST", url.ptr, body,
                           ZB_REST_WRITE, what);
done:
    json_decref(doc);
    json_decref(arr);
    json_decref(body);
    zb_buf_free(&url);
    return rc;
}

static const zb_catalog_ops rest_ops = {
    .version = ZB_CATALOG_OPS_VERSION,
    .list_warehouses = rest_list_warehouses,
    .list_namespaces = rest_list_namespaces,
    .list_tables = rest_list_tables,
    .create_namespace = rest_create_namespace,
    .load_table = zb_rest__load_table,
    .create_table = zb_rest__create_table,
    .register_table = zb_rest__register_table,
    .commit = zb_rest__commit,
    .drop_table = zb_rest__drop_table,
    .destroy = rest_destroy,
};

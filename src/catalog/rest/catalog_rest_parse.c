/*
 * catalog/rest/catalog_rest_parse.c - the REST catalog's replies, from bytes
 * to checked values (open-api/rest-catalog-open-api.yaml).
 *
 *   zb_rest__parse_object   body -> one JSON object, telling "not JSON"
 *                           (an HTML error page), "truncated JSON" and
 *                           malformed JSON apart
 *   zb_rest__error_text     ErrorModel / OAuthError -> one line
 *   zb_rest__parse_config   CatalogConfig -> merged properties
 *   zb_rest__parse_page     ListNamespacesResponse, ListTablesResponse,
 *                           Lakekeeper's ListWarehousesResponse
 *   zb_rest__parse_loaded   LoadTableResult, CommitTableResponse
 *   zb_rest__parse_token    OAuthTokenResponse
 *   zb_rest__parse_credentials  LoadCredentialsResponse -> S3 keys
 *
 * Nothing here touches the network; every function checks each shape
 * before use, so that tests/fuzz/fuzz_rest_response.c can feed it any
 * bytes. Messages start with `what` (the request, as "GET <url>").
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

/* The first bytes of a body as printable text, quotes escaped. */
static void show_bytes(char *out, size_t out_size, const char *body,
                       size_t len)
{
    size_t i, o = 0, n = len < 48 ? len : 48;

    for (i = 0; i < n && o + 2 < out_size; i++) {
        unsigned char c = (unsigned char)body[i];
        out[o++] = (c >= 0x20 && c < 0x7f && c != '"') ? (char)c : '.';
    }
    if (n < len && o + 4 < out_size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

int zb_rest__parse_object(json_t **out, zb_ctx *ctx, const char *what,
                          const char *body, size_t len)
{
    json_error_t jerr;
    json_t *doc;
    size_t i = 0;
    char shown[64];

    *out = NULL;
    while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r'
                       || body[i] == '\t'))
        i++;
    if (i == len)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: empty reply, JSON expected",
                       what);
    show_bytes(shown, sizeof(shown), body + i, len - i);
    if (body[i] != '{' && body[i] != '[')
        return zb_fail(ctx, ZB_ECORRUPT, "%s: reply is not JSON: \"%s\"",
                       what, shown);
    doc = json_loadb(body, len, 0, &jerr);
    if (!doc) {
        if (jerr.position >= 0 && (size_t)jerr.position >= len)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: truncated JSON reply (%zu bytes): %s", what,
                           len, jerr.text);
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: malformed JSON reply at line %d column %d: %s",
                       what, jerr.line, jerr.column, jerr.text);
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: reply is JSON but not an object: \"%s\"", what,
                       shown);
    }
    *out = doc;
    return ZB_OK;
}

void zb_rest__error_text(char *out, size_t out_size, const char *body,
                         size_t len)
{
    json_t *doc = NULL, *e;
    char shown[64];

    if (out_size == 0)
        return;
    out[0] = '\0';
    if (len == 0) {
        snprintf(out, out_size, "empty body");
        return;
    }
    doc = json_loadb(body, len, 0, NULL);
    e = json_is_object(doc) ? json_object_get(doc, "error") : NULL;
    if (json_is_object(e)) {
        const char *msg = json_string_value(json_object_get(e, "message"));
        const char *type = json_string_value(json_object_get(e, "type"));
        snprintf(out, out_size, "%s%s%s", type ? type : "",
                 type ? ": " : "", msg ? msg : "(no message)");
    } else if (json_is_string(e)) {
        const char *d = json_string_value(
            json_object_get(doc, "error_description"));
        snprintf(out, out_size, "%s%s%s", json_string_value(e),
                 d ? ": " : "", d ? d : "");
    } else {
        show_bytes(shown, sizeof(shown), body, len);
        snprintf(out, out_size, "%s body: \"%s\"",
                 doc ? "unexpected JSON" : "not JSON", shown);
    }
    json_decref(doc);
    /* One line: messages never hold a newline. */
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* Copies the string members of src into dst; other values are an error. */
static int merge_props(json_t *dst, zb_ctx *ctx, const char *what,
                       const char *field, const json_t *src)
{
    const char *k;
    json_t *v;

    if (!src || json_is_null(src))
        return ZB_OK;
    if (!json_is_object(src))
        return zb_fail(ctx, ZB_ECORRUPT, "%s: \"%s\" is not an object",
                       what, field);
    json_object_foreach((json_t *)src, k, v) {
        json_t *copy;
        if (json_is_string(v))
            copy = json_string(json_string_value(v));
        else if (json_is_null(v))
            continue;
        else if (json_is_number(v) || json_is_boolean(v)) {
            char num[40];
            if (json_is_integer(v))
                snprintf(num, sizeof(num), "%lld",
                         (long long)json_integer_value(v));
            else if (json_is_real(v))
                snprintf(num, sizeof(num), "%.17g", json_real_value(v));
            else
                snprintf(num, sizeof(num), "%s",
                         json_is_true(v) ? "true" : "false");
            copy = json_string(num);
        } else
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: \"%s\".\"%s\" is not a string", what, field,
                           k);
        if (!copy || json_object_set_new(dst, k, copy) < 0)
            return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

int zb_rest__parse_config(json_t **props_out, zb_ctx *ctx, const char *what,
                          const json_t *doc, const json_t *client)
{
    json_t *props = json_object();
    int rc;

    *props_out = NULL;
    if (!props)
        return zb_fail_oom(ctx);
    if ((rc = merge_props(props, ctx, what, "defaults",
                          json_object_get(doc, "defaults"))) < 0
        || (rc = merge_props(props, ctx, what, "client", client)) < 0
        || (rc = merge_props(props, ctx, what, "overrides",
                             json_object_get(doc, "overrides"))) < 0) {
        json_decref(props);
        return rc;
    }
    *props_out = props;
    return ZB_OK;
}

/* Joins a namespace array ["a", "b"] as "a.b" into out (cleared). */
static int join_namespace(zb_buf *out, zb_ctx *ctx, const char *what,
                          const json_t *ns)
{
    size_t i;
    json_t *level;

    zb_buf_clear(out);
    if (!json_is_array(ns) || json_array_size(ns) == 0)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: a namespace is not a non-empty array of strings",
                       what);
    json_array_foreach(ns, i, level) {
        if (!json_is_string(level) || json_string_length(level) == 0)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: namespace level %zu is not a non-empty "
                           "string", what, i);
        if ((i > 0 && zb_buf_putc(out, '.') < 0)
            || zb_buf_append(out, json_string_value(level),
                             json_string_length(level)) < 0)
            return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

static int page_item(zb_buf *b, zb_ctx *ctx, const char *what,
                     zb_rest_list list, const json_t *item)
{
    const json_t *name;
    int rc;

    switch (list) {
    case ZB_REST_LIST_NAMESPACES:
        return join_namespace(b, ctx, what, item);
    case ZB_REST_LIST_TABLES:
        if (!json_is_object(item))
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: a table identifier is not an object", what);
        if ((rc = join_namespace(b, ctx, what,
                                 json_object_get(item, "namespace"))) < 0)
            return rc;
        name = json_object_get(item, "name");
        if (!json_is_string(name) || json_string_length(name) == 0)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: a table identifier has no \"name\"", what);
        if (zb_buf_putc(b, '.') < 0
            || zb_buf_append(b, json_string_value(name),
                             json_string_length(name)) < 0)
            return zb_fail_oom(ctx);
        return ZB_OK;
    case ZB_REST_LIST_WAREHOUSES:
        name = json_is_object(item) ? json_object_get(item, "name") : NULL;
        if (!json_is_string(name))
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: a warehouse has no \"name\" string", what);
        zb_buf_clear(b);
        if (zb_buf_append(b, json_string_value(name),
                          json_string_length(name)) < 0)
            return zb_fail_oom(ctx);
        return ZB_OK;
    }
    return zb_fail(ctx, ZB_EINVAL, "%s: unknown list kind", what);
}

int zb_rest__parse_page(char **next_out, zb_ctx *ctx, const char *what,
                        const json_t *doc, zb_rest_list list,
                        zb_rest_item_cb fn, void *payload)
{
    static const char *const keys[] = { "namespaces", "identifiers",
                                        "warehouses" };
    const char *key = keys[list];
    const json_t *items, *next, *item;
    zb_buf b = ZB_BUF_INIT(1 << 20);
    size_t i;
    int rc = ZB_OK;

    *next_out = NULL;
    items = json_object_get(doc, key);
    if (!json_is_array(items)) {
        return zb_fail(ctx, ZB_ECORRUPT, "%s: reply has no \"%s\" array",
                       what, key);
    }
    next = json_object_get(doc, "next-page-token");
    if (next && !json_is_null(next) && !json_is_string(next))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: \"next-page-token\" is not a string", what);
    /* Check the whole page before the first callback. */
    json_array_foreach(items, i, item) {
        if ((rc = page_item(&b, ctx, what, list, item)) < 0)
            goto done;
    }
    json_array_foreach(items, i, item) {
        if ((rc = page_item(&b, ctx, what, list, item)) < 0)
            goto done;
        if ((rc = fn(zb_buf_cstr(&b), payload)) != 0)
            goto done;
    }
    if (json_is_string(next) && json_string_length(next) > 0) {
        if (!(*next_out = zb_strdup(json_string_value(next))))
            rc = zb_fail_oom(ctx);
    }
done:
    zb_buf_free(&b);
    return rc;
}

/* A storage-credentials array: each a "prefix" string and a "config"
 * object of strings. */
static int check_credentials(zb_ctx *ctx, const char *what,
                             const json_t *arr)
{
    const json_t *cred, *v;
    const char *k;
    size_t i;

    if (!json_is_array(arr))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: \"storage-credentials\" is not an array", what);
    json_array_foreach(arr, i, cred) {
        const json_t *cfg = json_object_get(cred, "config");
        if (!json_is_string(json_object_get(cred, "prefix"))
            || !json_is_object(cfg))
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: storage credential %zu lacks a \"prefix\" "
                           "string or a \"config\" object", what, i);
        json_object_foreach((json_t *)cfg, k, v)
            if (!json_is_string(v))
                return zb_fail(ctx, ZB_ECORRUPT,
                               "%s: storage credential %zu: \"%s\" is not "
                               "a string", what, i, k);
    }
    return ZB_OK;
}

int zb_rest__parse_loaded(zb_rest_loaded *out, zb_ctx *ctx, const char *what,
                          const json_t *doc)
{
    const json_t *loc, *v;
    const char *k;

    memset(out, 0, sizeof(*out));
    loc = json_object_get(doc, "metadata-location");
    if (loc && !json_is_null(loc) && !json_is_string(loc))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: \"metadata-location\" is not a string", what);
    out->metadata_location = json_string_value(loc);
    out->metadata = json_object_get(doc, "metadata");
    if (!json_is_object(out->metadata))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: reply has no \"metadata\" object", what);
    out->config = json_object_get(doc, "config");
    if (out->config && json_is_null(out->config))
        out->config = NULL;
    if (out->config) {
        if (!json_is_object(out->config))
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: \"config\" is not an object", what);
        json_object_foreach((json_t *)out->config, k, v)
            if (!json_is_string(v))
                return zb_fail(ctx, ZB_ECORRUPT,
                               "%s: config \"%s\" is not a string", what, k);
    }
    out->credentials = json_object_get(doc, "storage-credentials");
    if (out->credentials && json_is_null(out->credentials))
        out->credentials = NULL;
    if (!out->credentials)
        return ZB_OK;
    return check_credentials(ctx, what, out->credentials);
}

/* Copies the string value of cfg[key] into dst; 1 when copied, 0 when
 * absent, -1 when too long. */
static int take_value(char *dst, size_t size, const json_t *cfg,
                      const char *key)
{
    const json_t *v = json_object_get(cfg, key);
    size_t n;

    if (!json_is_string(v))
        return 0;
    n = json_string_length(v);
    if (n >= size || memchr(json_string_value(v), '\0', n) != NULL)
        return -1;
    memcpy(dst, json_string_value(v), n + 1);
    return 1;
}

int zb_rest__parse_credentials(zb_s3_credentials *out, zb_ctx *ctx,
                               const char *what, const json_t *doc,
                               const char *location)
{
    const json_t *arr = json_object_get(doc, "storage-credentials");
    const json_t *cred, *cfg, *exp;
    uint64_t ms = 0;
    int a, b, t;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!json_is_array(arr))
        return zb_fail(ctx, ZB_ECORRUPT, "%s: reply has no "
                       "\"storage-credentials\" array", what);
    if ((rc = check_credentials(ctx, what, arr)) < 0)
        return rc;
    if (!(cred = zb_rest__pick_credential(arr, location)))
        return zb_fail(ctx, ZB_ECORRUPT, "%s: no storage credential for "
                       "%.300s among %zu", what, location,
                       json_array_size(arr));
    cfg = json_object_get(cred, "config");
    a = take_value(out->access_key_id, sizeof(out->access_key_id), cfg,
                   "s3.access-key-id");
    b = take_value(out->secret_access_key, sizeof(out->secret_access_key),
                   cfg, "s3.secret-access-key");
    t = take_value(out->session_token, sizeof(out->session_token), cfg,
                   "s3.session-token");
    exp = json_object_get(cfg, "s3.session-token-expires-at-ms");
    if (a < 0 || b < 0 || t < 0)
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the credential for %.300s has "
                     "a key, secret or token too long", what, location);
    else if (a == 0 || b == 0 || !out->access_key_id[0] ||
             !out->secret_access_key[0])
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the credential for %.300s lacks "
                     "s3.access-key-id or s3.secret-access-key", what,
                     location);
    else if (exp && (zb_str_to_u64(&ms, json_string_value(exp)) < 0 ||
                     ms > (uint64_t)INT64_MAX))
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the credential for %.300s has an "
                     "s3.session-token-expires-at-ms that is not a count of "
                     "milliseconds", what, location);
    if (rc < 0) {
        volatile char *v = (volatile char *)out;
        for (size_t i = 0; i < sizeof(*out); i++)
            v[i] = 0;
        return rc;
    }
    out->expires_ms = (int64_t)ms;
    return ZB_OK;
}

const json_t *zb_rest__pick_credential(const json_t *credentials,
                                       const char *location)
{
    const json_t *best = NULL, *cred;
    size_t i, best_len = 0;

    if (!credentials || !location)
        return NULL;
    json_array_foreach(credentials, i, cred) {
        const char *p = json_string_value(json_object_get(cred, "prefix"));
        size_t n = p ? strlen(p) : 0;
        if (p && strncmp(location, p, n) == 0 && (!best || n > best_len)) {
            best = cred;
            best_len = n;
        }
    }
    return best;
}

int zb_rest__parse_token(char **token_out, long *expires_in_out,
                         zb_ctx *ctx, const char *what, const json_t *doc)
{
    const json_t *tok = json_object_get(doc, "access_token");
    const json_t *type = json_object_get(doc, "token_type");
    const json_t *exp = json_object_get(doc, "expires_in");

    *token_out = NULL;
    *expires_in_out = -1;
    if (!json_is_string(tok) || json_string_length(tok) == 0)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: reply has no \"access_token\" string", what);
    if (type && !json_is_string(type))
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: \"token_type\" is not a string", what);
    if (type && strcmp(json_string_value(type), "bearer") != 0
        && strcmp(json_string_value(type), "Bearer") != 0
        && strcmp(json_string_value(type), "N_A") != 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "%s: token type \"%s\" is not supported (bearer "
                       "only)", what, json_string_value(type));
    if (exp && !json_is_null(exp)) {
        if (!json_is_integer(exp) || json_integer_value(exp) < 0)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: \"expires_in\" is not a count of seconds",
                           what);
        *expires_in_out = json_integer_value(exp) > 100000000
                              ? 100000000
                              : (long)json_integer_value(exp);
    }
    if (!(*token_out = zb_strdup(json_string_value(tok))))
        return zb_fail_oom(ctx);
    return ZB_OK;
}

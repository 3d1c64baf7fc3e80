/*
 * tests/unit/catalog/rest_server.c - the REST catalog test server (see
 * rest_server.h). libmicrohttpd runs one thread per connection; the
 * catalog state sits behind one mutex, released only while a delay
 * fault sleeps. Each request is answered by serve(): faults first, then
 * auth, then the route. Table metadata lives in ice_metadata objects
 * and in the metadata files written for every version.
 */
#include "rest_server.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "table/commit/commit.h"
#include "table/metadata/metadata.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "zamboni/io.h"

#define RS_MAX_FAULTS 16
#define RS_MAX_TOKENS 256

typedef struct rs_table {
    char *ns;                /* "a.b" */
    char *name;
    char *loc;               /* current metadata file */
    ice_metadata *meta;
} rs_table;

typedef struct rs_fault {
    rest_fault fault;
    int count;
    long arg;
    char method[16];
    char match[256];
} rs_fault;

struct rest_server {
    struct MHD_Daemon *d;
    char uri[128];
    char root[1024];
    rest_server_opts o;
    pthread_mutex_t mu;
    zb_io *io;
    char **ns;
    size_t n_ns;
    rs_table *tables;
    size_t n_tables;
    struct {
        char tok[32];
        int64_t exp_ms;
    } tokens[RS_MAX_TOKENS];
    size_t n_tokens;
    uint64_t token_seq;
    uint64_t cred_seq;
    rs_fault faults[RS_MAX_FAULTS];
    size_t n_faults;
    rest_server_stats st;
};

typedef struct reply {
    int status;
    char *body;              /* malloc'd */
    size_t len;
    const char *ctype;
    long retry_after_s;      /* < 0: none */
    int drop;
} reply;

typedef struct conn_ctx {
    char *body;
    size_t len;
} conn_ctx;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- replies ---- */

static void set_json(reply *r, int status, json_t *doc)
{
    free(r->body);
    r->status = status;
    r->body = json_dumps(doc, JSON_COMPACT);
    r->len = r->body ? strlen(r->body) : 0;
    r->ctype = "application/json";
    json_decref(doc);
}

static void set_error(reply *r, int status, const char *type,
                      const char *msg)
{
    set_json(r, status, json_pack("{s:{s:s,s:s,s:i}}", "error", "message",
                                  msg, "type", type, "code", status));
}

static void set_text(reply *r, int status, const char *ctype,
                     const char *text)
{
    free(r->body);
    r->status = status;
    r->body = strdup(text);
    r->len = strlen(text);
    r->ctype = ctype;
}

/* ---- state ---- */

static int find_ns(const rest_server *s, const char *ns)
{
    for (size_t i = 0; i < s->n_ns; i++)
        if (strcmp(s->ns[i], ns) == 0)
            return (int)i;
    return -1;
}

static rs_table *find_table(rest_server *s, const char *ns, const char *name)
{
    for (size_t i = 0; i < s->n_tables; i++)
        if (strcmp(s->tables[i].ns, ns) == 0
            && strcmp(s->tables[i].name, name) == 0)
            return &s->tables[i];
    return NULL;
}

/* The metadata as a JSON document (new reference) or NULL. */
static json_t *meta_json(const ice_metadata *m)
{
    zb_ctx ctx;
    zb_buf b = ZB_BUF_INIT((size_t)1 << 30);
    json_t *doc = NULL;

    zb_ctx_init(&ctx);
    if (ice_metadata_write(&b, m, &ctx) == ZB_OK)
        doc = json_loadb(b.ptr, b.len, 0, NULL);
    zb_buf_free(&b);
    return doc;
}

static int write_meta(rest_server *s, zb_ctx *ctx, const ice_metadata *m,
                      const char *uri)
{
    zb_buf b = ZB_BUF_INIT((size_t)1 << 30);
    int rc = ice_metadata_write(&b, m, ctx);

    if (rc == ZB_OK)
        rc = zb_io_write_new(s->io, ctx, uri, b.ptr, b.len);
    zb_buf_free(&b);
    return rc;
}

/* One temporary credential for t's location (lock held). */
static json_t *temp_credential(rest_server *s, const rs_table *t)
{
    uint64_t n = ++s->cred_seq;
    long long exp = (long long)(now_ms() + s->o.vend_ttl_ms);
    char id[96], secret[64], token[64], ms[32];

    snprintf(id, sizeof(id), "TMPKEY%lluEXP%lld", (unsigned long long)n,
             exp + s->o.vend_grace_ms);
    snprintf(secret, sizeof(secret), "tmp-secret-%llu", (unsigned long long)n);
    snprintf(token, sizeof(token), "tmp-token-%llu", (unsigned long long)n);
    snprintf(ms, sizeof(ms), "%lld", exp);
    s->st.vended++;
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s}}", "prefix", t->meta->location,
                     "config", "s3.access-key-id", id, "s3.secret-access-key",
                     secret, "s3.session-token", token,
                     "s3.session-token-expires-at-ms", ms);
}

static void set_load_result(reply *r, rest_server *s, const rs_table *t,
                            int with_config)
{
    json_t *doc = json_object();

    json_object_set_new(doc, "metadata-location", json_string(t->loc));
    json_object_set_new(doc, "metadata", meta_json(t->meta));
    if (with_config && s->o.vend_temporary) {
        json_t *cfg = json_object();
        if (s->o.refresh_endpoint)
            json_object_set_new(cfg, "client.refresh-credentials-endpoint",
                                json_string(s->o.refresh_endpoint));
        if (s->o.refresh_disabled)
            json_object_set_new(cfg, "client.refresh-credentials-enabled",
                                json_string("false"));
        if (s->o.vend_endpoint) {
            json_object_set_new(cfg, "s3.endpoint",
                                json_string(s->o.vend_endpoint));
            json_object_set_new(cfg, "s3.path-style-access",
                                json_string("true"));
        }
        json_object_set_new(doc, "config", cfg);
        json_object_set_new(doc, "storage-credentials",
                            json_pack("[o]", temp_credential(s, t)));
    } else if (with_config) {
        json_object_set_new(doc, "config",
            json_pack("{s:s,s:s,s:s}", "test.table-config", "yes",
                      "s3.access-key-id", "config-key", "s3.endpoint",
                      "http://127.0.0.1:1"));
        json_object_set_new(doc, "storage-credentials",
            json_pack("[{s:s,s:{s:s}},{s:s,s:{s:s,s:s}}]",
                      "prefix", "s3://elsewhere/", "config",
                      "s3.access-key-id", "other-key",
                      "prefix", t->meta->location, "config",
                      "s3.access-key-id", "vended-key",
                      "s3.secret-access-key", "vended-secret"));
    }
    set_json(r, 200, doc);
}

/* ---- routes ---- */

/* "a\x1fb" -> "a.b" (copied), or with the configured separator. */
static char *ns_from_path(const rest_server *s, const char *p, size_t n)
{
    char sep = s->o.ns_separator ? s->o.ns_separator : 0x1f;
    char *out = strndup(p, n);
    for (char *c = out; c && *c; c++)
        if (*c == sep)
            *c = '.';
    return out;
}

static const char *page_param(struct MHD_Connection *c, int *paging)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                "pageToken");
    *paging = v != NULL;
    return v;
}

/* Pages items[0..n) into doc[key] with next-page-token. */
static void paginate(rest_server *s, json_t *doc, const char *key,
                     json_t *all, int paging, const char *token)
{
    size_t off = 0, n = json_array_size(all), size, i;
    json_t *page = json_array();
    char next[32];

    size = s->o.page_size > 0 ? (size_t)s->o.page_size : 2;
    if (!paging)
        size = n;
    if (token && token[0] == 'o')
        off = (size_t)strtoull(token + 1, NULL, 10);
    for (i = off; i < n && i < off + size; i++)
        json_array_append(page, json_array_get(all, i));
    json_object_set_new(doc, key, page);
    if (off + size < n) {
        snprintf(next, sizeof(next), "o%zu", off + size);
        json_object_set_new(doc, "next-page-token", json_string(next));
    } else if (paging)
        json_object_set_new(doc, "next-page-token", json_null());
    s->st.list_pages++;
    json_decref(all);
}

static json_t *ns_array(const char *ns)
{
    json_t *arr = json_array();
    const char *p = ns;

    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        json_array_append_new(arr, json_stringn(p, n));
        if (!dot)
            return arr;
        p = dot + 1;
    }
}

static void route_namespaces(rest_server *s, struct MHD_Connection *c,
                             const char *method, json_t *body, reply *r)
{
    int paging;
    const char *tok = page_param(c, &paging);
    const char *parent = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                     "parent");

    if (strcmp(method, "GET") == 0) {
        char *par = parent ? ns_from_path(s, parent, strlen(parent)) : NULL;
        json_t *all = json_array(), *doc = json_object();
        size_t pl = par ? strlen(par) : 0;
        if (par && find_ns(s, par) < 0) {
            set_error(r, 404, "NoSuchNamespaceException",
                      "parent namespace does not exist");
            free(par);
            json_decref(all);
            json_decref(doc);
            return;
        }
        for (size_t i = 0; i < s->n_ns; i++) {
            const char *n = s->ns[i];
            const char *rest = n;
            if (par) {
                if (strncmp(n, par, pl) != 0 || n[pl] != '.')
                    continue;
                rest = n + pl + 1;
            }
            if (strchr(rest, '.'))
                continue;
            json_array_append_new(all, ns_array(n));
        }
        paginate(s, doc, "namespaces", all, paging, tok);
        set_json(r, 200, doc);
        free(par);
        return;
    }
    if (strcmp(method, "POST") == 0) {
        json_t *arr = json_object_get(body, "namespace"), *lv;
        char buf[1024] = "";
        size_t i;
        if (!json_is_array(arr) || json_array_size(arr) == 0) {
            set_error(r, 400, "BadRequestException", "namespace missing");
            return;
        }
        json_array_foreach(arr, i, lv) {
            if (i)
                strncat(buf, ".", sizeof(buf) - strlen(buf) - 1);
            strncat(buf, json_string_value(lv) ? json_string_value(lv) : "",
                    sizeof(buf) - strlen(buf) - 1);
        }
        if (find_ns(s, buf) >= 0) {
            set_error(r, 409, "AlreadyExistsException",
                      "Namespace already exists");
            return;
        }
        s->ns = realloc(s->ns, (s->n_ns + 1) * sizeof(*s->ns));
        s->ns[s->n_ns++] = strdup(buf);
        set_json(r, 200, json_pack("{s:O,s:{}}", "namespace", arr,
                                   "properties"));
        return;
    }
    set_error(r, 405, "BadRequestException", "method not allowed");
}

static void route_tables(rest_server *s, struct MHD_Connection *c,
                         const char *method, const char *ns, json_t *body,
                         reply *r)
{
    int paging;
    const char *tok = page_param(c, &paging);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    if (find_ns(s, ns) < 0) {
        set_error(r, 404, "NoSuchNamespaceException",
                  "Namespace does not exist");
        return;
    }
    if (strcmp(method, "GET") == 0) {
        json_t *all = json_array(), *doc = json_object();
        for (size_t i = 0; i < s->n_tables; i++)
            if (strcmp(s->tables[i].ns, ns) == 0)
                json_array_append_new(all, json_pack("{s:o,s:s}",
                    "namespace", ns_array(ns), "name", s->tables[i].name));
        paginate(s, doc, "identifiers", all, paging, tok);
        set_json(r, 200, doc);
        return;
    }
    if (strcmp(method, "POST") == 0) {
        const char *name = json_string_value(json_object_get(body, "name"));
        const char *loc = json_string_value(json_object_get(body,
                                                            "location"));
        json_t *props = json_object_get(body, "properties"), *v;
        ice_kv kv[64];
        size_t n = 0;
        const char *k;
        char dir[2048];
        char *uri = NULL;
        ice_metadata *m = NULL;
        rs_table t;
        if (!name || !json_is_object(json_object_get(body, "schema"))) {
            set_error(r, 400, "BadRequestException",
                      "name and schema are required");
            return;
        }
        if (find_table(s, ns, name)) {
            set_error(r, 409, "AlreadyExistsException",
                      "Table already exists");
            return;
        }
        json_object_foreach(props, k, v)
            if (n < 64 && json_is_string(v)) {
                kv[n].key = k;
                kv[n++].value = json_string_value(v);
            }
        snprintf(dir, sizeof(dir), "%s/%s/%s", s->root, ns, name);
        if (ice_metadata_create(
                &m, &ctx, (const zb_json *)json_object_get(body, "schema"),
                (const zb_json *)json_object_get(body, "partition-spec"),
                (const zb_json *)json_object_get(body, "write-order"),
                loc ? loc : dir, kv, n, 0) < 0
            || ice_commit_next_metadata_uri(&uri, &ctx, m, NULL, NULL,
                                            ICE_NAMING_SEQUENTIAL) < 0
            || write_meta(s, &ctx, m, uri) < 0) {
            set_error(r, 400, "BadRequestException", ctx.err.msg);
            ice_metadata_free(m);
            zb_free(uri);
            return;
        }
        t.ns = strdup(ns);
        t.name = strdup(name);
        t.loc = strdup(uri);
        t.meta = m;
        zb_free(uri);
        s->tables = realloc(s->tables, (s->n_tables + 1) * sizeof(t));
        s->tables[s->n_tables++] = t;
        set_load_result(r, s, &s->tables[s->n_tables - 1], 1);
        return;
    }
    set_error(r, 405, "BadRequestException", "method not allowed");
}

static void route_register(rest_server *s, const char *ns, json_t *body,
                           reply *r)
{
    const char *name = json_string_value(json_object_get(body, "name"));
    const char *loc = json_string_value(json_object_get(body,
                                                        "metadata-location"));
    ice_metadata *m = NULL;
    zb_ctx ctx;
    rs_table t;

    zb_ctx_init(&ctx);
    if (find_ns(s, ns) < 0) {
        set_error(r, 404, "NoSuchNamespaceException",
                  "Namespace does not exist");
        return;
    }
    if (!name || !loc) {
        set_error(r, 400, "BadRequestException",
                  "name and metadata-location are required");
        return;
    }
    if (find_table(s, ns, name)) {
        set_error(r, 409, "AlreadyExistsException", "Table already exists");
        return;
    }
    if (ice_metadata_load(&m, s->io, &ctx, loc) < 0) {
        if (ctx.err.code == ZB_ENOTFOUND)
            set_error(r, 404, "NotFoundException", ctx.err.msg);
        else
            set_error(r, 400, "BadRequestException", ctx.err.msg);
        return;
    }
    t.ns = strdup(ns);
    t.name = strdup(name);
    t.loc = strdup(loc);
    t.meta = m;
    s->tables = realloc(s->tables, (s->n_tables + 1) * sizeof(t));
    s->tables[s->n_tables++] = t;
    set_load_result(r, s, &s->tables[s->n_tables - 1], 0);
}

/* write.metadata.previous-versions-max, as ice_metadata_append_metadata_log
 * takes it. */
static size_t keep_versions(const ice_metadata *m)
{
    const char *v = ice_metadata_property(m, ICE_PROP_PREVIOUS_VERSIONS_MAX);
    long n = v ? strtol(v, NULL, 10) : ICE_PREVIOUS_VERSIONS_MAX_DEFAULT;

    return n > 0 ? (size_t)n : 1;
}

static void commit(rest_server *s, rs_table *t, json_t *body, reply *r)
{
    json_t *reqs = json_object_get(body, "requirements");
    json_t *upds = json_object_get(body, "updates");
    zb_buf b = ZB_BUF_INIT((size_t)1 << 30);
    ice_metadata *m = NULL;
    char *uri = NULL;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    if (!json_is_array(reqs) || !json_is_array(upds)) {
        set_error(r, 400, "BadRequestException",
                  "requirements and updates must be arrays");
        return;
    }
    rc = ice_commit_check_requirements(t->meta, &ctx, (const zb_json *)reqs);
    if (rc == ZB_ECONFLICT) {
        set_error(r, 409, "CommitFailedException", ctx.err.msg);
        return;
    }
    if (rc < 0) {
        set_error(r, 400, "BadRequestException", ctx.err.msg);
        return;
    }
    if ((rc = ice_metadata_write(&b, t->meta, &ctx)) < 0
        || (rc = ice_metadata_parse(&m, &ctx, b.ptr, b.len, t->loc)) < 0
        || (rc = ice_commit_apply_updates(m, &ctx, (const zb_json *)upds)) < 0
        || (rc = ice_metadata_append_metadata_log(m, &ctx, t->loc,
                     t->meta->last_updated_ms, keep_versions(m))) < 0
        || (rc = ice_commit_next_metadata_uri(&uri, &ctx, m, NULL, t->loc,
                                              ICE_NAMING_SEQUENTIAL)) < 0
        || (rc = write_meta(s, &ctx, m, uri)) < 0) {
        set_error(r, 400, "BadRequestException", ctx.err.msg);
        ice_metadata_free(m);
        zb_free(uri);
        zb_buf_free(&b);
        return;
    }
    zb_buf_free(&b);
    /* Old metadata files, as write.metadata.delete-after-commit says. */
    {
        char **old = NULL;
        size_t n_old = 0;
        if (ice_commit_metadata_to_prune(&old, &n_old, &ctx, t->meta, m)
            == ZB_OK) {
            for (size_t i = 0; i < n_old; i++) {
                zb_io_delete(s->io, &ctx, old[i]);
                zb_free(old[i]);
            }
        }
        zb_free(old);
    }
    ice_metadata_free(t->meta);
    t->meta = m;
    free(t->loc);
    t->loc = strdup(uri);
    zb_free(uri);
    s->st.commits++;
    set_json(r, 200, json_pack("{s:s,s:o}", "metadata-location", t->loc,
                               "metadata", meta_json(t->meta)));
}

static void route_table(rest_server *s, const char *method, const char *ns,
                        const char *name, json_t *body, reply *r)
{
    rs_table *t = find_table(s, ns, name);

    if (!t) {
        set_error(r, 404, "NoSuchTableException", "Table does not exist");
        return;
    }
    if (strcmp(method, "GET") == 0) {
        set_load_result(r, s, t, 1);
    } else if (strcmp(method, "POST") == 0) {
        commit(s, t, body, r);
    } else if (strcmp(method, "DELETE") == 0) {
        size_t i = (size_t)(t - s->tables);
        free(t->ns);
        free(t->name);
        free(t->loc);
        ice_metadata_free(t->meta);
        memmove(t, t + 1, (s->n_tables - i - 1) * sizeof(*t));
        s->n_tables--;
        set_text(r, 204, "application/json", "");
    } else
        set_error(r, 405, "BadRequestException", "method not allowed");
}

/* loadCredentials: LoadCredentialsResponse with fresh keys. */
static void route_credentials(rest_server *s, const char *method,
                              const char *ns, const char *name, reply *r)
{
    rs_table *t = find_table(s, ns, name);

    if (strcmp(method, "GET") != 0) {
        set_error(r, 405, "BadRequestException", "method not allowed");
        return;
    }
    if (!t) {
        set_error(r, 404, "NoSuchTableException", "Table does not exist");
        return;
    }
    if (!s->o.vend_temporary) {
        set_json(r, 200, json_pack("{s:[]}", "storage-credentials"));
        return;
    }
    s->st.credentials++;
    set_json(r, 200, json_pack("{s:[o]}", "storage-credentials",
                               temp_credential(s, t)));
}

/* %XX and '+' decoding of a form value, in place. */
static void form_unescape(char *v)
{
    char *o = v;

    for (; *v; v++) {
        if (*v == '+')
            *o++ = ' ';
        else if (*v == '%' && v[1] && v[2]) {
            char h[3] = { v[1], v[2], 0 };
            *o++ = (char)strtol(h, NULL, 16);
            v += 2;
        } else
            *o++ = *v;
    }
    *o = '\0';
}

static void route_token(rest_server *s, const char *form, reply *r)
{
    char *copy = strdup(form ? form : ""), *save = NULL, *kv;
    const char *id = NULL, *secret = NULL, *grant = NULL;

    s->st.token_requests++;
    for (kv = strtok_r(copy, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        form_unescape(eq + 1);
        if (strcmp(kv, "client_id") == 0)
            id = eq + 1;
        else if (strcmp(kv, "client_secret") == 0)
            secret = eq + 1;
        else if (strcmp(kv, "grant_type") == 0)
            grant = eq + 1;
    }
    if (!grant || strcmp(grant, "client_credentials") != 0) {
        set_json(r, 400, json_pack("{s:s,s:s}", "error",
                                   "unsupported_grant_type",
                                   "error_description",
                                   "client_credentials only"));
    } else if (!s->o.client_id || !id || !secret
               || strcmp(id, s->o.client_id) != 0
               || strcmp(secret, s->o.client_secret) != 0) {
        set_json(r, 401, json_pack("{s:s,s:s}", "error", "invalid_client",
                                   "error_description",
                                   "Credentials given were invalid"));
    } else {
        long ttl = s->o.token_ttl_s > 0 ? s->o.token_ttl_s : 3600;
        size_t i = s->n_tokens < RS_MAX_TOKENS ? s->n_tokens++
                                               : RS_MAX_TOKENS - 1;
        snprintf(s->tokens[i].tok, sizeof(s->tokens[i].tok), "tok-%llu",
                 (unsigned long long)++s->token_seq);
        s->tokens[i].exp_ms = now_ms() + ttl * 1000;
        set_json(r, 200, json_pack("{s:s,s:s,s:i,s:s}", "access_token",
                                   s->tokens[i].tok, "token_type", "bearer",
                                   "expires_in", (int)ttl,
                                   "issued_token_type",
                                   "urn:ietf:params:oauth:token-type:"
                                   "access_token"));
    }
    free(copy);
}

static int authorized(rest_server *s, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                "Authorization");
    int64_t now = now_ms();

    if (!s->o.client_id && !s->o.static_token)
        return 1;
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return 0;
    h += 7;
    if (s->o.static_token && strcmp(h, s->o.static_token) == 0)
        return 1;
    for (size_t i = 0; i < s->n_tokens; i++)
        if (strcmp(s->tokens[i].tok, h) == 0 && s->tokens[i].exp_ms > now)
            return 1;
    return 0;
}

static void route(rest_server *s, struct MHD_Connection *c, const char *url,
                  const char *method, const conn_ctx *cc, reply *r)
{
    json_t *body = NULL;
    char pfx[300];
    const char *p;

    if (strcmp(url, "/__stats") == 0) {
        set_json(r, 200, json_pack("{s:I,s:I,s:I,s:I,s:I}", "requests",
                                   (json_int_t)s->st.requests, "commits",
                                   (json_int_t)s->st.commits, "credentials",
                                   (json_int_t)s->st.credentials,
                                   "advertised", (json_int_t)s->st.advertised,
                                   "vended", (json_int_t)s->st.vended));
        return;
    }
    if (strcmp(url, "/catalog/v1/oauth/tokens") == 0
        && strcmp(method, "POST") == 0) {
        route_token(s, cc->body, r);
        return;
    }
    if (s->o.required_header) {
        char name[128];
        const char *colon = strchr(s->o.required_header, ':');
        const char *v;
        snprintf(name, sizeof(name), "%.*s",
                 (int)(colon - s->o.required_header), s->o.required_header);
        v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
        if (!v || strcmp(v, colon + 2) != 0) {
            set_error(r, 403, "ForbiddenException", "required header missing");
            return;
        }
    }
    if (!authorized(s, c)) {
        s->st.unauthorized++;
        set_error(r, 401, "NotAuthorizedException",
                  "Not authorized to make this request");
        return;
    }
    if (strcmp(url, "/management/v1/warehouse") == 0 && s->o.lakekeeper
        && s->o.warehouse) {
        set_json(r, 200, json_pack("{s:[{s:s,s:s,s:s,s:s}]}", "warehouses",
            "id", "0199c9a1-0000-7000-8000-000000000003",
            "name", s->o.warehouse,
            "project-id", "00000000-0000-0000-0000-000000000000",
            "status", "active"));
        return;
    }
    if (strcmp(url, "/management/v1/warehouse") == 0 && s->o.lakekeeper) {
        set_json(r, 200, json_pack(
            "{s:[{s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s}]}", "warehouses",
            "id", "0199c9a1-0000-7000-8000-000000000001", "name", "wh-a",
            "project-id", "00000000-0000-0000-0000-000000000000",
            "status", "active",
            "id", "0199c9a1-0000-7000-8000-000000000002", "name", "wh-b",
            "project-id", "00000000-0000-0000-0000-000000000000",
            "status", "active"));
        return;
    }
    if (strcmp(url, "/catalog/v1/config") == 0) {
        const char *wh = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                     "warehouse");
        json_t *ov;
        if (s->o.warehouse && (!wh || strcmp(wh, s->o.warehouse) != 0)) {
            set_error(r, 404, "NoSuchWarehouseException",
                      "Warehouse does not exist");
            return;
        }
        ov = json_pack("{s:s}", "test.override", "o");
        if (s->o.prefix)
            json_object_set_new(ov, "prefix", json_string(s->o.prefix));
        if (s->o.ns_separator) {
            char enc[4];
            snprintf(enc, sizeof(enc), "%%%02X",
                     (unsigned)(unsigned char)s->o.ns_separator);
            json_object_set_new(ov, "namespace-separator", json_string(enc));
        }
        set_json(r, 200, json_pack("{s:{s:s,s:s},s:o}", "defaults",
                                   "test.default", "d", "test.override",
                                   "from-defaults", "overrides", ov));
        return;
    }
    if (strncmp(url, "/catalog/v1/vended/", 19) == 0) {
        const char *ns0 = url + 19, *slash = strchr(ns0, '/');
        if (slash && slash[1] && !strchr(slash + 1, '/')) {
            char *ns = ns_from_path(s, ns0, (size_t)(slash - ns0));
            s->st.advertised++;
            route_credentials(s, method, ns, slash + 1, r);
            free(ns);
        } else
            set_error(r, 404, "NoSuchEndpointException", "no such route");
        return;
    }
    snprintf(pfx, sizeof(pfx), "/catalog/v1/%s%snamespaces",
             s->o.prefix ? s->o.prefix : "", s->o.prefix ? "/" : "");
    if (strncmp(url, pfx, strlen(pfx)) != 0) {
        set_error(r, 404, "NoSuchEndpointException", "no such route");
        return;
    }
    if (cc->len > 0) {
        body = json_loadb(cc->body, cc->len, 0, NULL);
        if (!json_is_object(body)) {
            json_decref(body);
            set_error(r, 400, "BadRequestException", "body is not JSON");
            return;
        }
    }
    p = url + strlen(pfx);
    if (*p == '\0') {
        route_namespaces(s, c, method, body, r);
    } else if (*p == '/') {
        const char *ns0 = p + 1, *slash = strchr(ns0, '/');
        char *ns = ns_from_path(s, ns0, slash ? (size_t)(slash - ns0)
                                           : strlen(ns0));
        if (!slash)
            set_error(r, 405, "BadRequestException",
                      "namespace metadata is not served");
        else if (strcmp(slash, "/tables") == 0)
            route_tables(s, c, method, ns, body, r);
        else if (strcmp(slash, "/register") == 0
                 && strcmp(method, "POST") == 0)
            route_register(s, ns, body, r);
        else if (strncmp(slash, "/tables/", 8) == 0 && slash[8]
                 && !strchr(slash + 8, '/'))
            route_table(s, method, ns, slash + 8, body, r);
        else if (strncmp(slash, "/tables/", 8) == 0 && slash[8]
                 && strchr(slash + 8, '/')
                 && strcmp(strchr(slash + 8, '/'), "/credentials") == 0) {
            char *name = strndup(slash + 8, (size_t)(strchr(slash + 8, '/')
                                                     - (slash + 8)));
            route_credentials(s, method, ns, name, r);
            free(name);
        }
        else
            set_error(r, 404, "NoSuchEndpointException", "no such route");
        free(ns);
    } else
        set_error(r, 404, "NoSuchEndpointException", "no such route");
    json_decref(body);
}

/* The fault for this request, if any (lock held). */
static int take_fault(rest_server *s, const char *url, const char *method,
                      rs_fault *out)
{
    for (size_t i = 0; i < s->n_faults; i++) {
        rs_fault *f = &s->faults[i];
        if (f->count <= 0 || (f->method[0] && strcmp(f->method, method) != 0)
            || (f->match[0] && !strstr(url, f->match)))
            continue;
        *out = *f;
        if (--f->count == 0) {
            memmove(f, f + 1, (s->n_faults - i - 1) * sizeof(*f));
            s->n_faults--;
        }
        s->st.faults++;
        return 1;
    }
    return 0;
}

static void serve(rest_server *s, struct MHD_Connection *c, const char *url,
                  const char *method, const conn_ctx *cc, reply *r)
{
    rs_fault f;
    int faulty;

    pthread_mutex_lock(&s->mu);
    s->st.requests++;
    faulty = take_fault(s, url, method, &f);
    if (faulty && f.fault == RS_FAULT_DELAY) {
        struct timespec ts = { f.arg / 1000, (f.arg % 1000) * 1000000L };
        pthread_mutex_unlock(&s->mu);
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&s->mu);
        faulty = 0;
    }
    if (!faulty || f.fault == RS_FAULT_TRUNCATED
        || f.fault == RS_FAULT_504_AFTER)
        route(s, c, url, method, cc, r);
    pthread_mutex_unlock(&s->mu);
    if (!faulty)
        return;
    switch (f.fault) {
    case RS_FAULT_HTML_500:
        set_text(r, 500, "text/html",
                 "<html><head><title>500 Internal Server Error</title></head>"
                 "<body><h1>Internal Server Error</h1></body></html>");
        break;
    case RS_FAULT_TRUNCATED:
        r->len /= 2;
        break;
    case RS_FAULT_429:
        set_error(r, 429, "TooManyRequestsException", "Slow down");
        r->retry_after_s = f.arg;
        break;
    case RS_FAULT_503:
        set_error(r, 503, "SlowDownException", "Slow down");
        r->retry_after_s = f.arg;
        break;
    case RS_FAULT_409:
        set_error(r, 409, "CommitFailedException",
                  "Requirement failed: injected conflict");
        break;
    case RS_FAULT_500_JSON:
        set_error(r, 500, "CommitStateUnknownException",
                  "Internal Server Error");
        break;
    case RS_FAULT_502:
        set_error(r, 502, "CommitStateUnknownException",
                  "Invalid response from the upstream server");
        break;
    case RS_FAULT_504_AFTER:
        set_error(r, 504, "CommitStateUnknownException",
                  "Gateway timed out during commit");
        break;
    case RS_FAULT_DROP:
        r->drop = 1;
        break;
    case RS_FAULT_NOT_JSON_200:
        set_text(r, 200, "text/plain", "OK: all good, nothing to see here");
        break;
    case RS_FAULT_WRONG_SHAPE:
        set_text(r, 200, "application/json", "{\"unexpected\": 1}");
        break;
    case RS_FAULT_DELAY:
        break;
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    rest_server *s = cls;
    conn_ctx *cc = *con_cls;
    reply r = { 0, NULL, 0, "application/json", -1, 0 };
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char ra[32];

    (void)version;
    if (!cc) {
        *con_cls = calloc(1, sizeof(conn_ctx));
        return *con_cls ? MHD_YES : MHD_NO;
    }
    if (*upload_size) {
        cc->body = realloc(cc->body, cc->len + *upload_size + 1);
        memcpy(cc->body + cc->len, upload, *upload_size);
        cc->len += *upload_size;
        cc->body[cc->len] = '\0';
        *upload_size = 0;
        return MHD_YES;
    }
    serve(s, c, url, method, cc, &r);
    if (r.drop) {
        free(r.body);
        return MHD_NO;
    }
    resp = MHD_create_response_from_buffer(r.len, r.body ? r.body : (void *)"",
                                           MHD_RESPMEM_MUST_COPY);
    free(r.body);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", r.ctype);
    if (r.retry_after_s >= 0) {
        snprintf(ra, sizeof(ra), "%ld", r.retry_after_s);
        MHD_add_response_header(resp, "Retry-After", ra);
    }
    ret = MHD_queue_response(c, (unsigned)r.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode code)
{
    conn_ctx *cc = *con_cls;

    (void)cls;
    (void)c;
    (void)code;
    if (cc) {
        free(cc->body);
        free(cc);
        *con_cls = NULL;
    }
}

int rest_server_start(rest_server **out, const char *root_dir,
                      const rest_server_opts *opts)
{
    rest_server *s = calloc(1, sizeof(*s));
    struct sockaddr_in sa;
    const union MHD_DaemonInfo *info;
    zb_ctx ctx;

    *out = NULL;
    if (!s)
        return -1;
    zb_ctx_init(&ctx);
    if (opts)
        s->o = *opts;
    snprintf(s->root, sizeof(s->root), "%s", root_dir);
    pthread_mutex_init(&s->mu, NULL);
    if (zb_io_new(&s->io, &ctx) < 0) {
        free(s);
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD
                                | MHD_USE_THREAD_PER_CONNECTION,
                            0, NULL, NULL, on_request, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
                            MHD_OPTION_END);
    if (!s->d) {
        zb_io_free(s->io);
        free(s);
        return -1;
    }
    info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(s->uri, sizeof(s->uri), "http://127.0.0.1:%u/catalog",
             info ? (unsigned)info->port : 0u);
    *out = s;
    return 0;
}

void rest_server_stop(rest_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    for (size_t i = 0; i < s->n_ns; i++)
        free(s->ns[i]);
    free(s->ns);
    for (size_t i = 0; i < s->n_tables; i++) {
        free(s->tables[i].ns);
        free(s->tables[i].name);
        free(s->tables[i].loc);
        ice_metadata_free(s->tables[i].meta);
    }
    free(s->tables);
    zb_io_free(s->io);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

const char *rest_server_uri(const rest_server *s)
{
    return s->uri;
}

void rest_server_fault(rest_server *s, rest_fault fault, int count, long arg,
                       const char *method, const char *match)
{
    rs_fault *f;

    pthread_mutex_lock(&s->mu);
    if (s->n_faults < RS_MAX_FAULTS) {
        f = &s->faults[s->n_faults++];
        memset(f, 0, sizeof(*f));
        f->fault = fault;
        f->count = count;
        f->arg = arg;
        snprintf(f->method, sizeof(f->method), "%s", method ? method : "");
        snprintf(f->match, sizeof(f->match), "%s", match ? match : "");
    }
    pthread_mutex_unlock(&s->mu);
}

void rest_server_clear_faults(rest_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->n_faults = 0;
    pthread_mutex_unlock(&s->mu);
}

void rest_server_revoke_tokens(rest_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->n_tokens = 0;
    pthread_mutex_unlock(&s->mu);
}

zb_io *rest_server_io(rest_server *s)
{
    return s->io;
}

void rest_server_set_vend_ttl(rest_server *s, long ttl_ms)
{
    pthread_mutex_lock(&s->mu);
    s->o.vend_ttl_ms = ttl_ms;
    pthread_mutex_unlock(&s->mu);
}

rest_server_stats rest_server_get_stats(rest_server *s)
{
    rest_server_stats st;

    pthread_mutex_lock(&s->mu);
    st = s->st;
    pthread_mutex_unlock(&s->mu);
    return st;
}

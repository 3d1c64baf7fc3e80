/*
 * catalog/rest/catalog_rest_int.h - private to the REST catalog client
 * (catalog_rest*.c): the client state, the HTTP layer and the parsers of
 * the server's replies.
 *
 * Four files share it:
 *   catalog_rest_http.c   libcurl: one request with auth headers, retries
 *                         with backoff, the OAuth2 token and its refresh,
 *                         status -> rc mapping (the only file that sees
 *                         libcurl);
 *   catalog_rest_parse.c  the replies as JSON (ErrorModel, CatalogConfig,
 *                         list pages, LoadTableResult, OAuth tokens,
 *                         Lakekeeper warehouses): pure functions over
 *                         bytes, fuzzed by tests/fuzz/fuzz_rest_response.c;
 *   catalog_rest.c        the catalog backend: zb_catalog__rest_open
 *                         (config, Lakekeeper probe), URLs, listings,
 *                         namespaces;
 *   catalog_rest_table.c  load, create, register, commit and drop;
 *   catalog_rest_s3.c     the vended S3 settings given to the FileIO;
 *   catalog_rest_creds.c  their keys fetched again (loadCredentials).
 *
 * Requests follow apache/iceberg open-api/rest-catalog-open-api.yaml.
 */
#ifndef ZB_CATALOG_CATALOG_REST_INT_H
#define ZB_CATALOG_CATALOG_REST_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "util/buf.h"
#include "zamboni/io_s3.h"

typedef struct zb_rest_refresher zb_rest_refresher;

/* Largest reply body read (a LoadTableResult carries whole metadata). */
#define ZB_REST_MAX_BODY_BYTES ((size_t)256 << 20)

/* First backoff step and its cap, in ms (full jitter below the step). */
#define ZB_REST_BACKOFF_BASE_MS 50
#define ZB_REST_BACKOFF_MAX_MS 5000
/* Longest Retry-After honoured, in ms. */
#define ZB_REST_RETRY_AFTER_MAX_MS 60000

typedef struct zb_rest {
    char *name;                /* catalog name, for messages */
    char *uri;                 /* base URI without a trailing '/' */
    char *mgmt_uri;            /* Lakekeeper management base */
    char *warehouse;           /* NULL: none sent */
    char *prefix;              /* "" or "<prefix>/" from /v1/config */
    char *sep;                 /* namespace separator, URL-encoded */
    char *credential;          /* "id:secret", NULL: none */
    char *oauth_uri;           /* token endpoint */
    char *scope;
    char *token;               /* current bearer token, NULL: none */
    int64_t token_refresh_ms;  /* refresh the token after this time */
    size_t n_headers;
    zb_catalog_kv *headers;    /* strings owned */
    long timeout_ms;
    int max_retries;
    json_t *props;             /* defaults + client + overrides */
    void *curl;                /* CURL easy handle, reused */
    pthread_mutex_t lock;      /* one request at a time per handle */
    uint64_t rng;              /* jitter */
    /* Counters for tests and logs. */
    uint64_t n_requests;
    uint64_t n_retries;
    uint64_t n_token_fetches;
    uint64_t n_credential_fetches;   /* catalog_rest_creds.c's lock */
    /* Given to the FileIO with vended keys (catalog_rest_creds.c). */
    zb_rest_refresher *refreshers;
} zb_rest;

/* What kind of request: decides retries and the rc of failures. */
typedef enum zb_rest_kind {
    ZB_REST_READ,      /* idempotent: retried on 5xx and network errors */
    ZB_REST_WRITE,     /* create/register/drop: retried only when the
                        * request was surely not processed */
    ZB_REST_COMMIT     /* as WRITE, and an unknown outcome is ZB_ETIMEOUT */
} zb_rest_kind;

typedef struct zb_rest_req {
    const char *method;        /* "GET", "POST", "DELETE" */
    const char *url;
    const char *body;          /* NULL: none */
    size_t body_len;
    const char *content_type;  /* NULL: application/json */
    zb_rest_kind kind;
    const char *what;          /* "load table db.t", for messages */
    int no_auth;               /* the token request itself */
} zb_rest_req;

typedef struct zb_rest_resp {
    long status;
    zb_buf body;
    long retry_after_ms;       /* -1: no Retry-After */
} zb_rest_resp;

/* catalog_rest_http.c */
int zb_rest__init(zb_rest *r, zb_ctx *ctx);     /* curl handle, lock */
void zb_rest__fini(zb_rest *r);
/*
 * Sends req with the auth and extra headers, retrying per its kind. On
 * ZB_OK resp holds a 2xx reply. Any other status becomes an rc with a
 * message naming the catalog, the request and the server's error:
 * 400 ZB_EINVAL, 401/403/419 ZB_EREFUSED, 404 ZB_ENOTFOUND, 409
 * ZB_ECONFLICT (commit) or ZB_EEXISTS, 5xx ZB_EIO, or ZB_ETIMEOUT for a
 * commit whose outcome is unknown. resp is initialised here; the caller
 * frees resp->body.
 */
int zb_rest__request(zb_rest *r, zb_ctx *ctx, const zb_rest_req *req,
                     zb_rest_resp *resp);
/* Fetches a token with the client credentials (lock held by caller). */
int zb_rest__fetch_token(zb_rest *r, zb_ctx *ctx);
/* Appends s URL-encoded (RFC 3986 unreserved kept) to out. */
int zb_rest__url_escape(zb_buf *out, const char *s);

/* catalog_rest_parse.c: all return ZB_ECORRUPT with a message that names
 * what (the request) and what is wrong with the reply. */

/*
 * Parses a reply body as one JSON object. Bodies that are not JSON are
 * "not JSON" with their first bytes shown; JSON that ends early is
 * "truncated JSON".
 */
int zb_rest__parse_object(json_t **out, zb_ctx *ctx, const char *what,
                          const char *body, size_t len);
/*
 * The message of an error reply: ErrorModel {"error": {"message", "type",
 * "code"}}, or OAuth's {"error": "...", "error_description": "..."}, or
 * the first bytes of a body that is neither. Writes one line to out.
 */
void zb_rest__error_text(char *out, size_t out_size, const char *body,
                         size_t len);
/* CatalogConfig: defaults, then client, then overrides into *props_out. */
int zb_rest__parse_config(json_t **props_out, zb_ctx *ctx, const char *what,
                          const json_t *doc, const json_t *client);

/* One item of a list page, called with "a.b" or "a.b.table". */
typedef int (*zb_rest_item_cb)(const char *item, void *payload);
typedef enum zb_rest_list {
    ZB_REST_LIST_NAMESPACES,   /* {"namespaces": [[...]], ...} */
    ZB_REST_LIST_TABLES,       /* {"identifiers": [{namespace, name}]} */
    ZB_REST_LIST_WAREHOUSES    /* Lakekeeper {"warehouses": [{name}]} */
} zb_rest_list;
/*
 * Calls fn for each item of a page; *next_out gets next-page-token
 * (zb_free; NULL at the end). A non-zero fn result stops and is returned.
 */
int zb_rest__parse_page(char **next_out, zb_ctx *ctx, const char *what,
                        const json_t *doc, zb_rest_list list,
                        zb_rest_item_cb fn, void *payload);

/* LoadTableResult / CommitTableResponse, checked. */
typedef struct zb_rest_loaded {
    const char *metadata_location;   /* borrowed from the doc; may be NULL */
    const json_t *metadata;          /* borrowed */
    const json_t *config;            /* object or NULL */
    const json_t *credentials;       /* array or NULL */
} zb_rest_loaded;
int zb_rest__parse_loaded(zb_rest_loaded *out, zb_ctx *ctx, const char *what,
                          const json_t *doc);
/*
 * The storage credential whose prefix is the longest prefix of location
 * (NULL: none) from a checked storage-credentials array.
 */
const json_t *zb_rest__pick_credential(const json_t *credentials,
                                       const char *location);

/*
 * catalog_rest_s3.c: the vended S3 settings of t (its config) and of each
 * storage credential, given to c->io for their prefixes (the table's
 * location, the credential's prefix) under what the user pinned.
 */
int zb_rest__apply_s3(zb_catalog *c, zb_ctx *ctx, const zb_table *t,
                      const zb_rest_loaded *ld);

/*
 * LoadCredentialsResponse: the S3 keys of the storage credential whose
 * prefix is the longest prefix of location: s3.access-key-id and
 * s3.secret-access-key (both needed), s3.session-token and
 * s3.session-token-expires-at-ms (digits) if given. ZB_ECORRUPT for any
 * other shape, no credential for location, or a value too long; the
 * messages never quote a value.
 */
int zb_rest__parse_credentials(zb_s3_credentials *out, zb_ctx *ctx,
                               const char *what, const json_t *doc,
                               const char *location);

/*
 * catalog_rest_creds.c: a refresher of the vended keys of table ident
 * for location (its URL from kv, the table's config, and the catalog's
 * properties), held by r until zb_rest__detach_refreshers and by the
 * caller, who gives it as refresh_user with zb_rest__refresh_credentials
 * and zb_rest__refresher_release to the S3 backend, or releases it.
 */
int zb_rest__refresher_new(zb_rest_refresher **out, zb_rest *r, zb_ctx *ctx,
                           const char *ident, const char *location,
                           const zb_catalog_kv *kv, size_t n);
int zb_rest__refresh_credentials(void *user, zb_ctx *ctx,
                                 zb_s3_credentials *out);
void zb_rest__refresher_release(void *user);
/* The catalog closes: its refreshers' fetches fail from now on. */
void zb_rest__detach_refreshers(zb_rest *r);
/* 0 when kv or the catalog say client.refresh-credentials-enabled=false. */
int zb_rest__refresh_enabled(const zb_rest *r, const zb_catalog_kv *kv,
                             size_t n);

/* OAuthTokenResponse: token (zb_free) and expires_in (-1 when absent). */
int zb_rest__parse_token(char **token_out, long *expires_in_out,
                         zb_ctx *ctx, const char *what, const json_t *doc);

/* catalog_rest.c: URLs and requests shared with catalog_rest_table.c. */
#define ZB_REST_URL_MAX_BYTES ((size_t)64 << 10)
/* <uri>/v1/<prefix>namespaces[/<ns>] into b (cleared). */
int zb_rest__url_namespaces(zb_buf *b, zb_ctx *ctx, const zb_rest *r,
                            const char *ns);
/* <uri>/v1/<prefix>namespaces/<ns>/tables[/<name>] into b (cleared). */
int zb_rest__url_table(zb_buf *b, zb_ctx *ctx, const zb_rest *r,
                       const char *ns, const char *name);
/* ["a", "b"] from "a.b"; NULL: out of memory. */
json_t *zb_rest__namespace_array(const char *ns);
/*
 * Sends body (may be NULL) as JSON and parses the reply as an object
 * into *doc_out (doc_out NULL: the reply is not read). For a commit, a
 * 2xx reply that does not parse is ZB_ETIMEOUT (outcome unknown).
 */
int zb_rest__call(json_t **doc_out, zb_rest *r, zb_ctx *ctx,
                  const char *method, const char *url, const json_t *body,
                  zb_rest_kind kind, const char *what);

/* catalog_rest_table.c: the table ops of the backend. */
int zb_rest__load_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                        zb_table **out);
int zb_rest__create_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                          const char *location, const ice_metadata *first,
                          zb_table **out);
int zb_rest__register_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            const char *metadata_location, zb_table **out);
int zb_rest__commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                    const zb_json *requirements, const zb_json *updates,
                    zb_table **out);
int zb_rest__drop_table(zb_catalog *c, zb_ctx *ctx, const char *ident);

#endif

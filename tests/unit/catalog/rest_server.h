/*
 * tests/unit/catalog/rest_server.h - an Iceberg REST catalog server for
 * the tests (apache/iceberg open-api/rest-catalog-open-api.yaml), in the
 * test's process on a free loopback port, over libmicrohttpd.
 *
 * It keeps an in-memory catalog of namespaces and tables whose metadata
 * files it writes under a directory (table/commit/commit.h checks requirements
 * and applies updates; each commit writes the next metadata file). It
 * serves, under <uri> = http://127.0.0.1:<port>/catalog:
 *   GET  /v1/config                  defaults, overrides (prefix)
 *   POST /v1/oauth/tokens            client credentials -> short tokens
 *   GET|POST /v1/<prefix>/namespaces              (paginated)
 *   GET|POST /v1/<prefix>/namespaces/<ns>/tables  (paginated; create)
 *   POST /v1/<prefix>/namespaces/<ns>/register
 *   GET|POST|DELETE /v1/<prefix>/namespaces/<ns>/tables/<t>
 *   GET  /v1/<prefix>/namespaces/<ns>/tables/<t>/credentials
 *   GET  /v1/vended/<ns>/<t>         the same, where it is advertised
 * and Lakekeeper's GET /management/v1/warehouse when asked to, and GET
 * /__stats (the counters below, as JSON, no auth). Errors
 * are ErrorModel objects. Faults make the next matching requests fail
 * in a chosen way.
 */
#ifndef ZB_TEST_REST_SERVER_H
#define ZB_TEST_REST_SERVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct rest_server rest_server;

typedef struct rest_server_opts {
    const char *prefix;          /* config override "prefix"; NULL: none */
    int page_size;               /* items per page when asked; <= 0: 2 */
    /* Namespace separator announced in /v1/config (0: none, 0x1F). */
    char ns_separator;
    const char *warehouse;       /* non-NULL: /v1/config requires it */
    /* Auth: none when both are NULL. */
    const char *client_id;       /* with client_secret: OAuth2 tokens */
    const char *client_secret;
    const char *static_token;    /* a bearer token always accepted */
    long token_ttl_s;            /* expires_in of issued tokens; <= 0: 3600 */
    const char *required_header; /* "Name: value" every request must send */
    /* Serve /management/v1/warehouse: the warehouse above, or wh-a and
     * wh-b when there is none. */
    int lakekeeper;
    /* Vend temporary S3 keys for each table's location (loadTable and
     * loadCredentials): access key "TMPKEY<n>EXP<expiry ms>", secret
     * "tmp-secret-<n>", token "tmp-token-<n>", expiring vend_ttl_ms from
     * the reply (s3.session-token-expires-at-ms; may be negative). The
     * server's own keys for its S3 objects go in zb_io_s3 of its FileIO
     * (rest_server_io). */
    int vend_temporary;
    long vend_ttl_ms;
    /* The expiry in the key id is vend_grace_ms after (< 0: before) the
     * one announced: how long a store (tests/s3/fault_proxy.mjs) still
     * takes them, a clock skew's margin. */
    long vend_grace_ms;
    /* With vend_temporary: config client.refresh-credentials-endpoint
     * (NULL: none) and client.refresh-credentials-enabled=false. */
    const char *refresh_endpoint;
    int refresh_disabled;
    /* With vend_temporary: loadTable's config also has s3.endpoint and
     * s3.path-style-access=true (NULL: neither). */
    const char *vend_endpoint;
} rest_server_opts;

typedef enum rest_fault {
    RS_FAULT_HTML_500,       /* 500 with an HTML page; nothing done */
    RS_FAULT_TRUNCATED,      /* done, then 200 with half the JSON body */
    RS_FAULT_429,            /* 429, Retry-After: arg seconds (arg < 0:
                                none); nothing done */
    RS_FAULT_503,            /* 503, Retry-After as for 429; nothing done */
    RS_FAULT_409,            /* 409 CommitFailedException; nothing done */
    RS_FAULT_500_JSON,       /* 500 CommitStateUnknownException; nothing
                                done */
    RS_FAULT_502,            /* 502 ErrorModel; nothing done */
    RS_FAULT_504_AFTER,      /* done, then 504 (outcome really unknown) */
    RS_FAULT_DELAY,          /* sleep arg ms, then done normally */
    RS_FAULT_DROP,           /* the connection closed without reply;
                                nothing done */
    RS_FAULT_NOT_JSON_200,   /* 200 with a text body; nothing done */
    RS_FAULT_WRONG_SHAPE     /* 200 with {"unexpected": 1}; nothing done */
} rest_fault;

/* Starts the server over root_dir (tables go to root_dir/<ns>/<t>). */
int rest_server_start(rest_server **out, const char *root_dir,
                      const rest_server_opts *opts);
void rest_server_stop(rest_server *s);
/* "http://127.0.0.1:<port>/catalog" */
const char *rest_server_uri(const rest_server *s);
/*
 * The next count requests whose URL contains match (NULL: any) and
 * whose method is method (NULL: any) get the fault.
 */
void rest_server_fault(rest_server *s, rest_fault fault, int count, long arg,
                       const char *method, const char *match);
/* Drops the faults not yet used. */
void rest_server_clear_faults(rest_server *s);
/* Invalidates every token issued so far (the next use gets 401). */
void rest_server_revoke_tokens(rest_server *s);
/* The server's FileIO (metadata files it reads and writes), for adding
 * an S3 backend. */
struct zb_io *rest_server_io(rest_server *s);
/* Changes the lifetime of the temporary keys vended from now on. */
void rest_server_set_vend_ttl(rest_server *s, long ttl_ms);

typedef struct rest_server_stats {
    uint64_t requests;       /* every request answered or dropped */
    uint64_t token_requests; /* POST /v1/oauth/tokens */
    uint64_t unauthorized;   /* 401 replies */
    uint64_t commits;        /* commits applied */
    uint64_t faults;         /* faults injected */
    uint64_t list_pages;     /* list replies */
    uint64_t credentials;    /* loadCredentials replies */
    uint64_t advertised;     /* of them, on /v1/vended/ */
    uint64_t vended;         /* temporary keys handed out */
} rest_server_stats;

rest_server_stats rest_server_get_stats(rest_server *s);

#endif

/* ---- helpers of the REST catalog tests (rest_fixture.c) ---- */

#include "catalog/catalog.h"

typedef struct rest_fixture {
    rest_server *srv;
    zb_io *io;
    zb_catalog *cat;
    zb_ctx ctx;
    char dir[1024];
} rest_fixture;

/*
 * Starts a server (opts may be NULL) over a fresh temp dir and opens a
 * catalog "rt" on it with cfg (NULL: defaults; uri filled in when NULL).
 * Fails the test case when either does not start.
 */
void rest_fixture_start(rest_fixture *f, const rest_server_opts *opts,
                        const zb_catalog_config *cfg);
/* Opens the catalog again with cfg (uri filled in); returns the rc. */
int rest_fixture_open(rest_fixture *f, const zb_catalog_config *cfg);
void rest_fixture_stop(rest_fixture *f);

/* A writer process of concurrent_writers (rest_writers.c): spec is
 * "N URI"; returns the process's exit status. */
int rest_writer_main(const char *spec);

/* First-version metadata of a two-column table (id long, data string). */
ice_metadata *rest_first_metadata(const char *location);
/* Counts items of a listing into a buffer "a,b,c". */
typedef struct rest_items {
    char text[4096];
    int n;
} rest_items;
int rest_items_cb(const char *item, void *payload);
/* Sleeps ms milliseconds. */
void rest_sleep_ms(long ms);
/* Milliseconds on a monotonic clock. */
int64_t rest_now_ms(void);

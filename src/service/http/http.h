/*
 * service/http/http.h - `zamboni serve`'s HTTP side (issue 18; seeds 000,
 * 001): a libmicrohttpd server, one thread per connection, so that a slow
 * /metrics never delays a probe. Endpoints (GET or HEAD):
 *
 *   /livez    200 "ok\n" while the process runs (liveness: a database
 *             outage must not restart every serve).
 *   /health   readiness: 200 when the queue database answers "SELECT 1"
 *             within health_timeout_ms (default 2000), else 503; text:
 *               ok\nqueue_database: ok\n
 *               unavailable\nqueue_database: failed: MESSAGE\n
 *               unavailable\nqueue_database: no answer within N ms\n
 *   /metrics  Prometheus text 0.0.4 (service/http/prom.h), families in
 *             http_metrics.c's header; 503 "unavailable\nmetrics: MESSAGE\n"
 *             when the queue database fails.
 *   /demand?class=NAME
 *             200 {"class": "NAME", "demand": N} (zb_queue_demand), for
 *             KEDA's metrics-api scaler (valueLocation: demand);
 *             400 {"error": "..."} without class, 404 {"error": "...",
 *             "classes": [...]} for a class not configured, 503
 *             {"error": "..."} when the database fails.
 *   /api/v1/...  the dashboard's read-only JSON (http_api.c; every
 *             endpoint in docs/api/dashboard-openapi.yaml)
 *   /, /warehouses/W, /tables/W/T, /tasks/ID
 *             the dashboard's page (assets built into the binary,
 *             /assets/NAME); with a token and no session cookie, the
 *             login form
 *   /login    POST token=TOKEN (form): 303 to / with the cookie
 *             zamboni_session (HttpOnly, SameSite=Strict), or the form
 *             again with 401; /logout (POST) clears it
 *   other     404 {"error": "no such endpoint"}; a method other than GET
 *             or HEAD: 405 {"error": "..."}.
 *
 * With a token every endpoint but /health and /livez needs
 * "Authorization: Bearer TOKEN" or the session cookie (both compared in
 * constant time), else 401
 * {"error": "unauthorized"} with WWW-Authenticate: Bearer.
 *
 * Log lines (log_line), stable for tests:
 *   serve http listening=ADDR:PORT token=set|unset
 *   serve health status=503 check=queue_database message=TEXT
 *   serve health status=200 check=queue_database        (after a 503)
 */
#ifndef ZB_SERVICE_HTTP_H
#define ZB_SERVICE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "service/http/http_route.h"
#include "service/planner/planner.h"
#include "service/queue/queue.h"
#include "service/size_class.h"
#include "zamboni/zamboni.h"

typedef struct zb_http zb_http;

typedef struct zb_http_opts {
    unsigned version;              /* ZB_HTTP_OPTS_VERSION */
    const char *listen;            /* "ADDR:PORT", "[V6]:PORT"; port 0:
                                      any (zb_http_port) */
    zb_queue *queue;               /* borrowed; outlives the server */
    const zb_size_classes *classes;/* copied; NULL: the default */
    const char *token;             /* NULL or "": none; copied */
    int64_t health_timeout_ms;     /* <= 0: 2000 */
    /* This replica's planner counters (thread-safe), or NULL: the planner
     * families are left out. */
    void (*planner_counters)(void *payload, zb_planner_counters *out);
    void (*log_line)(const char *line, void *payload);   /* NULL: none */
    void *payload;
    /* The warehouses serve plans (the dashboard lists them even before
     * any attempt); copied. */
    const char *const *warehouses;
    size_t n_warehouses;
    /* A table's compaction plan as `zamboni plan` prints it, appended to
     * out (/api/v1/warehouses/W/tables/T/plan), or NULL: not served.
     * ZB_ENOTFOUND for a table or warehouse serve does not know. Called
     * on HTTP threads, with payload. */
    int (*table_plan)(void *payload, zb_ctx *ctx, const char *warehouse,
                      const char *table, zb_buf *out);
} zb_http_opts;

#define ZB_HTTP_OPTS_VERSION 2
#define ZB_HTTP_OPTS_INIT                                                 \
    { .version = ZB_HTTP_OPTS_VERSION, .listen = ZB_HTTP_DEFAULT_LISTEN,  \
      .health_timeout_ms = 2000 }
#define ZB_HTTP_DEFAULT_LISTEN "127.0.0.1:8650"

/*
 * Splits "ADDR:PORT" ("[ADDR]:PORT" for IPv6) into host and port (0 to
 * 65535). ZB_EUSAGE with a message when malformed.
 */
int zb_http_parse_listen(const char *text, char *host, size_t host_size,
                         int *port, zb_ctx *ctx);

/* Starts listening and answering. ZB_EUSAGE for a bad listen address,
 * ZB_EIO when it cannot be bound (the message says why). */
int zb_http_start(zb_http **out, zb_ctx *ctx, const zb_http_opts *o);

/* The port bound (the one given, or the one chosen for 0). */
int zb_http_port(const zb_http *h);

/* Stops answering (connections in progress end first) and frees h. */
void zb_http_stop(zb_http *h);

/* ---- the parts, exposed for their tests ---- */

/* 1 when the Authorization header value is "Bearer TOKEN" for token
 * (scheme case-insensitive, compare in constant time), else 0. */
int zb_http_bearer_ok(const char *authorization, const char *token);
/* 1 when guess equals token (non-empty), compared in constant time. */
int zb_http_token_eq(const char *guess, const char *token);

/*
 * The readiness check: 1 when db answers "SELECT 1" within timeout_ms;
 * else 0 with the reason in msg. The query runs on its own thread, so a
 * database that hangs costs at most the timeout; at most a few run at
 * once (later checks fail at once while they hang).
 */
int zb_http_health_check(zb_sqldb *db, int64_t timeout_ms, char *msg,
                         size_t msg_size);

/* The /metrics text into out (appended). */
int zb_http_metrics_text(zb_buf *out, zb_ctx *ctx, zb_queue *q,
                         const zb_size_classes *classes,
                         const zb_planner_counters *planner);

/* The /demand answer: *status the HTTP status, body (appended) JSON. */
int zb_http_demand_json(zb_buf *out, int *status, zb_ctx *ctx, zb_queue *q,
                        const zb_size_classes *classes, const char *cls);

/* What the API reads. */
typedef struct zb_http_api_src {
    zb_queue *queue;
    const zb_planner_counters *planner;   /* NULL: not planning here */
    const char *const *warehouses;
    size_t n_warehouses;
    int (*table_plan)(void *payload, zb_ctx *ctx, const char *warehouse,
                      const char *table, zb_buf *out);   /* NULL: none */
    void *payload;
} zb_http_api_src;

/* The query parameters the API reads (NULL: absent). */
typedef struct zb_http_api_query {
    const char *state;             /* /tasks */
    const char *warehouse, *table, *task, *limit;   /* /runs */
} zb_http_api_query;

/*
 * The answer of an /api/v1 route r: *status the HTTP status (200, 400,
 * 404, 503 when the database fails), the JSON appended to out. ZB_ENOMEM
 * only when out of memory.
 */
int zb_http_api_json(zb_buf *out, int *status, zb_ctx *ctx,
                     const zb_http_api_src *src, const zb_http_route *r,
                     const zb_http_api_query *q);

/* An asset built into the binary (http_assets.c, generated). */
typedef struct zb_http_asset {
    const char *name;              /* "app.js" */
    const char *type;              /* its Content-Type */
    const unsigned char *data;
    size_t len;
} zb_http_asset;

/* The asset called name, or NULL. */
const zb_http_asset *zb_http_asset_find(const char *name);

#endif

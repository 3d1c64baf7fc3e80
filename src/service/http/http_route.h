/*
 * service/http/http_route.h - the request input serve's dashboard parses
 * itself (http_route.c): the path of a request into a route, and one field
 * of an application/x-www-form-urlencoded body (the login form). Both take
 * untrusted bytes and are fuzzed (tests/fuzz/fuzz_http_paths.c).
 */
#ifndef ZB_SERVICE_HTTP_ROUTE_H
#define ZB_SERVICE_HTTP_ROUTE_H

#include <stddef.h>
#include <stdint.h>

typedef enum zb_http_route_kind {
    ZB_ROUTE_NONE = 0,             /* no such endpoint: 404 */
    ZB_ROUTE_PAGE,                 /* /, /warehouses/W, /tables/W/T,
                                      /tasks/ID: the dashboard's page */
    ZB_ROUTE_ASSET,                /* /assets/NAME */
    ZB_ROUTE_LOGIN,                /* /login (GET: the form, POST) */
    ZB_ROUTE_LOGOUT,               /* /logout (POST) */
    ZB_ROUTE_API_FLEET,            /* /api/v1/fleet */
    ZB_ROUTE_API_WAREHOUSES,       /* /api/v1/warehouses */
    ZB_ROUTE_API_WAREHOUSE,        /* /api/v1/warehouses/W */
    ZB_ROUTE_API_TABLE,            /* /api/v1/warehouses/W/tables/T */
    ZB_ROUTE_API_TABLE_PLAN,       /* /api/v1/warehouses/W/tables/T/plan */
    ZB_ROUTE_API_TASKS,            /* /api/v1/tasks */
    ZB_ROUTE_API_TASK,             /* /api/v1/tasks/ID */
    ZB_ROUTE_API_WORKERS,          /* /api/v1/workers */
    ZB_ROUTE_API_RUNS              /* /api/v1/runs */
} zb_http_route_kind;

typedef struct zb_http_route {
    zb_http_route_kind kind;
    char warehouse[256];           /* API_WAREHOUSE, API_TABLE, PAGE */
    char table[1024];              /* API_TABLE, API_TABLE_PLAN */
    char asset[64];                /* ASSET: the file name */
    int64_t task_id;               /* API_TASK (> 0) */
} zb_http_route;

/*
 * Parses path (already percent-decoded by libmicrohttpd; the query string
 * is not part of it) into out. A segment that is empty, too long, ".",
 * "..", or holds a control byte gives ZB_ROUTE_NONE. Never fails
 * otherwise; out is always set.
 */
void zb_http_route_parse(zb_http_route *out, const char *path);

/*
 * The value of field key in the form body (len bytes, not terminated),
 * '+' and %XX decoded, into out (terminated). 1 when found and it fits
 * (no NUL byte in it), else 0.
 */
int zb_http_form_value(const char *body, size_t len, const char *key,
                       char *out, size_t out_size);

#endif

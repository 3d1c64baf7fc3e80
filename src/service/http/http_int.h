/*
 * service/http/http_int.h - what http_server.c shares with the
 * dashboard's answers (http_pages.c): the server's state and the answer
 * helper.
 */
#ifndef ZB_SERVICE_HTTP_INT_H
#define ZB_SERVICE_HTTP_INT_H

#include <stdatomic.h>

#include <microhttpd.h>

#include "service/http/http.h"

#define ZB_HTTP_COOKIE "zamboni_session"
#define ZB_HTTP_FORM_MAX 4096      /* the login form's body */

struct zb_http {
    struct MHD_Daemon *d;
    zb_queue *queue;
    zb_size_classes classes;
    char *token;                   /* NULL: none */
    char *cookie;                  /* the token in hex: the cookie's value */
    int64_t health_timeout_ms;
    void (*planner_counters)(void *payload, zb_planner_counters *out);
    void (*log_line)(const char *line, void *payload);
    void *payload;
    int port;
    atomic_int health;             /* last answer: 1 ok, 0 not, -1 none */
    char **warehouses;
    size_t n_warehouses;
    int (*table_plan)(void *payload, zb_ctx *ctx, const char *warehouse,
                      const char *table, zb_buf *out);
};

/* A request's body as it arrives (POST /login, /logout only). */
typedef struct zb_http_upload {
    char body[ZB_HTTP_FORM_MAX];
    size_t len;
    int too_big;
} zb_http_upload;

enum MHD_Result zb_http__answer(struct MHD_Connection *c, unsigned status,
                                const char *type, const char *body,
                                size_t len, int auth_challenge);

/* 1 when the request carries the bearer token or the session cookie. */
int zb_http__authed(const zb_http *h, struct MHD_Connection *c);

/* The dashboard's routes (r->kind not ZB_ROUTE_NONE): pages, assets,
 * login and logout, the API. up: the body of a POST, else NULL. */
enum MHD_Result zb_http__dashboard(zb_http *h, struct MHD_Connection *c,
                                   const char *url, const zb_http_route *r,
                                   const char *method,
                                   const zb_http_upload *up);

#endif

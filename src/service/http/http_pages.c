/*
 * service/http/http_pages.c - the dashboard's answers: its one page (the
 * script draws fleet, warehouse, table and task views from the path),
 * the assets built into the binary, the login form and session cookie,
 * and the /api/v1 JSON (http_api.c).
 *
 * With a token: a page without the cookie or the bearer header is a 303
 * to /login?next=PATH; POST /login with the right token sets the cookie
 * (HttpOnly, SameSite=Strict, the token in hex) and answers 303 to next
 * (a local path only); a wrong one answers the form again with 401. The
 * API without either answers 401 JSON. Assets are open: they hold no
 * data. Every page answer forbids other origins (Content-Security-
 * Policy), so the page cannot load anything from the network.
 */
#define ZB_MODULE "http"

#include <stdio.h>
#include <string.h>

#include "service/http/http_int.h"
#include "util/buf.h"
#include "util/err.h"

#define CSP "default-src 'none'; script-src 'self'; style-src 'self'; " \
            "img-src 'self'; connect-src 'self'; form-action 'self'; "   \
            "base-uri 'none'; frame-ancestors 'none'"

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
                            const char *type, const void *body, size_t len,
                            const char *location, const char *cookie,
                            int page)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    r = MHD_create_response_from_buffer(len, (void *)body,
                                        MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    if (type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    if (page) {
        MHD_add_response_header(r, "Content-Security-Policy", CSP);
        MHD_add_response_header(r, "X-Frame-Options", "DENY");
    }
    if (location != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, location);
    if (cookie != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A JSON answer from a literal (its length counted, never written). */
static enum MHD_Result json_answer(struct MHD_Connection *c, unsigned status,
                                   const char *json, int challenge)
{
    return zb_http__answer(c, status, "application/json", json, strlen(json),
                           challenge);
}

static enum MHD_Result asset(struct MHD_Connection *c, const char *name,
                             unsigned status)
{
    const zb_http_asset *a = zb_http_asset_find(name);

    if (a == NULL)
        return json_answer(c, MHD_HTTP_NOT_FOUND,
                           "{\"error\": \"no such asset\"}\n", 0);
    return reply(c, status, a->type, a->data, a->len, NULL, NULL, 1);
}

/* A next= that stays on this server: "/..." but not "//..." nor "/\". */
static const char *local_path(const char *next)
{
    size_t i;

    if (next == NULL || next[0] != '/' || next[1] == '/' || next[1] == '\\')
        return "/";
    for (i = 0; next[i] != '\0'; i++)
        if ((unsigned char)next[i] < 0x21 || next[i] == 0x7f || i > 1000)
            return "/";
    return next;
}

static enum MHD_Result see_other(struct MHD_Connection *c, const char *to,
                                 const char *cookie)
{
    return reply(c, MHD_HTTP_SEE_OTHER, "text/plain; charset=utf-8", "", 0,
                to, cookie, 0);
}

/* The login form, with next carried in its hidden field (escaped). */
static enum MHD_Result login_form(struct MHD_Connection *c, unsigned status,
                                  const char *next, const char *message)
{
    const zb_http_asset *a = zb_http_asset_find("login.html");
    zb_buf b = ZB_BUF_INIT(1u << 20);
    const char *t, *at_next, *at_msg;
    enum MHD_Result ret;
    size_t i;

    if (a == NULL)
        return MHD_NO;
    t = (const char *)a->data;
    at_next = strstr(t, "@NEXT@");
    at_msg = strstr(t, "@MESSAGE@");
    if (at_next == NULL || at_msg == NULL || at_msg < at_next)
        return MHD_NO;
    zb_buf_append(&b, t, (size_t)(at_next - t));
    next = local_path(next);
    for (i = 0; next[i] != '\0'; i++) {
        switch (next[i]) {
        case '&': zb_buf_puts(&b, "&amp;"); break;
        case '"': zb_buf_puts(&b, "&quot;"); break;
        case '<': zb_buf_puts(&b, "&lt;"); break;
        case '>': zb_buf_puts(&b, "&gt;"); break;
        default: zb_buf_putc(&b, next[i]);
        }
    }
    zb_buf_append(&b, at_next + 6, (size_t)(at_msg - at_next - 6));
    zb_buf_puts(&b, message);      /* ours, never the request's */
    zb_buf_puts(&b, at_msg + 9);
    ret = reply(c, status, a->type, zb_buf_cstr(&b), b.len, NULL, NULL, 1);
    zb_buf_free(&b);
    return ret;
}

static enum MHD_Result login(zb_http *h, struct MHD_Connection *c,
                             const char *method, const zb_http_upload *up)
{
    char guess[1024], next[1024], cookie[2200];
    const char *qnext = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                    "next");

    if (h->token == NULL)
        return see_other(c, "/", NULL);
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        return login_form(c, MHD_HTTP_OK, qnext, "");
    if (up == NULL || up->too_big ||
        !zb_http_form_value(up->body, up->len, "next", next, sizeof next))
        snprintf(next, sizeof next, "/");
    if (up == NULL || up->too_big ||
        !zb_http_form_value(up->body, up->len, "token", guess,
                            sizeof guess) ||
        !zb_http_token_eq(guess, h->token)) {
        memset(guess, 0, sizeof guess);
        return login_form(c, MHD_HTTP_UNAUTHORIZED, next,
                          "<p class=\"error\" role=\"alert\">That token is "
                          "not the one serve was started with.</p>");
    }
    memset(guess, 0, sizeof guess);
    snprintf(cookie, sizeof cookie, ZB_HTTP_COOKIE "=%s; Path=/; HttpOnly; "
             "SameSite=Strict", h->cookie);
    return see_other(c, local_path(next), cookie);
}

static enum MHD_Result api(zb_http *h, struct MHD_Connection *c,
                           const zb_http_route *r)
{
    zb_http_api_src src;
    zb_http_api_query q;
    zb_planner_counters pc;
    zb_buf b = ZB_BUF_INIT(64u << 20);
    enum MHD_Result ret;
    int status = 500, rc;
    zb_ctx ctx;

    memset(&src, 0, sizeof src);
    src.queue = h->queue;
    src.warehouses = (const char *const *)h->warehouses;
    src.n_warehouses = h->n_warehouses;
    src.table_plan = h->table_plan;
    src.payload = h->payload;
    if (h->planner_counters != NULL) {
        memset(&pc, 0, sizeof pc);
        h->planner_counters(h->payload, &pc);
        src.planner = &pc;
    }
    q.state = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "state");
    q.warehouse = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                              "warehouse");
    q.table = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "table");
    q.task = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "task");
    q.limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    zb_ctx_init(&ctx);
    rc = zb_http_api_json(&b, &status, &ctx, &src, r, &q);
    ret = rc < 0 ? json_answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                               "{\"error\": \"out of memory\"}\n", 0)
                 : zb_http__answer(c, (unsigned)status, "application/json",
                                   zb_buf_cstr(&b), b.len, 0);
    zb_buf_free(&b);
    return ret;
}

/* "/login?next=URL", URL percent-encoded but for its plain bytes. */
static void login_target(char *to, size_t size, const char *url)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    snprintf(to, size, "/login?next=");
    o = strlen(to);
    for (; *url != '\0' && o + 4 < size; url++) {
        unsigned char ch = (unsigned char)*url;

        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
            (ch >= '0' && ch <= '9') || strchr("/._-~", ch) != NULL) {
            to[o++] = (char)ch;
        } else {
            to[o++] = '%';
            to[o++] = hex[ch >> 4];
            to[o++] = hex[ch & 15];
        }
    }
    to[o] = '\0';
}

enum MHD_Result zb_http__dashboard(zb_http *h, struct MHD_Connection *c,
                                   const char *url, const zb_http_route *r,
                                   const char *method,
                                   const zb_http_upload *up)
{
    int post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    char to[1200];

    if (post && r->kind != ZB_ROUTE_LOGIN && r->kind != ZB_ROUTE_LOGOUT)
        return json_answer(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                           "{\"error\": \"only GET and HEAD are "
                           "answered\"}\n", 0);
    switch (r->kind) {
    case ZB_ROUTE_ASSET:
        return asset(c, r->asset, MHD_HTTP_OK);
    case ZB_ROUTE_LOGIN:
        return login(h, c, method, up);
    case ZB_ROUTE_LOGOUT:
        if (!post)
            return json_answer(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                               "{\"error\": \"POST /logout\"}\n", 0);
        return see_other(c, h->token ? "/login" : "/", ZB_HTTP_COOKIE
                         "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    case ZB_ROUTE_PAGE:
        if (!zb_http__authed(h, c)) {
            login_target(to, sizeof to, url);
            return see_other(c, to, NULL);
        }
        return asset(c, "index.html", MHD_HTTP_OK);
    default:
        if (!zb_http__authed(h, c))
            return json_answer(c, MHD_HTTP_UNAUTHORIZED,
                               "{\"error\": \"unauthorized\"}\n", 1);
        return api(h, c, r);
    }
}

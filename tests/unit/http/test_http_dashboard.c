/*
 * tests/unit/http/test_http_dashboard.c - the dashboard's parts of serve
 * (issue 19): its paths and login form body (http_route.h), the /api/v1
 * JSON against queue_json.h's (what the CLI prints) on a queue with tasks
 * and attempts, and a real server on loopback read with libcurl: the
 * login redirect, the form, the cookie's attributes, the cookie and the
 * bearer on the API, the assets and the security headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "queue_env.h"
#include "service/http/http.h"
#include "service/queue/queue_json.h"
#include "util/buf.h"

static void test_http_dashboard_routes(void)
{
    zb_http_route r;

    zb_http_route_parse(&r, "/");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_PAGE);
    zb_http_route_parse(&r, "/api/v1/fleet");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_FLEET);
    zb_http_route_parse(&r, "/api/v1/warehouses/");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_WAREHOUSES);
    zb_http_route_parse(&r, "/api/v1/warehouses/w1/tables/ns.t");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_TABLE);
    ZBT_EQ_STR(r.warehouse, "w1");
    ZBT_EQ_STR(r.table, "ns.t");
    zb_http_route_parse(&r, "/api/v1/warehouses/w1/tables/ns.t/plan");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_TABLE_PLAN);
    ZBT_EQ_STR(r.table, "ns.t");
    zb_http_route_parse(&r, "/api/v1/warehouses/w1/tables/ns.t/other");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/api/v1/tasks/17");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_TASK);
    ZBT_EQ_INT((int)r.task_id, 17);
    zb_http_route_parse(&r, "/tables/w1/ns.t");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_PAGE);
    zb_http_route_parse(&r, "/assets/app.js");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_ASSET);
    ZBT_EQ_STR(r.asset, "app.js");
    /* what is not a route */
    zb_http_route_parse(&r, "/api/v1/tasks/0");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/api/v1/tasks/12x");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/warehouses/..");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "//api/v1/fleet");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/api/v2/fleet");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/metrics");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/warehouses/a\x01");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    ZBT_EQ_STR(r.warehouse, "");
    /* MHD hands %FF on decoded: no UTF-8, so no name (404, not a 500) */
    zb_http_route_parse(&r, "/api/v1/warehouses/\xff");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
    zb_http_route_parse(&r, "/api/v1/warehouses/caf\xc3\xa9");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_API_WAREHOUSE);
    zb_http_route_parse(&r, "relative");
    ZBT_EQ_INT(r.kind, ZB_ROUTE_NONE);
}

static void test_http_dashboard_form(void)
{
    const char *b = "next=%2Fwarehouses%2Fw+1&token=a%2Bb+c";
    char out[64], tiny[3];

    ZBT_CHECK(zb_http_form_value(b, strlen(b), "token", out, sizeof out));
    ZBT_EQ_STR(out, "a+b c");
    ZBT_CHECK(zb_http_form_value(b, strlen(b), "next", out, sizeof out));
    ZBT_EQ_STR(out, "/warehouses/w 1");
    ZBT_CHECK(!zb_http_form_value(b, strlen(b), "tok", out, sizeof out));
    ZBT_CHECK(!zb_http_form_value(b, strlen(b), "token", tiny, sizeof tiny));
    ZBT_CHECK(!zb_http_form_value("token=%2", 8, "token", out, sizeof out));
    ZBT_CHECK(!zb_http_form_value("token=%00", 9, "token", out, sizeof out));
    /* the length given, not the terminator, bounds it */
    ZBT_CHECK(zb_http_form_value("token=abcdef", 8, "token", out,
                                 sizeof out));
    ZBT_EQ_STR(out, "ab");
}

/* ---- the API on a queue ---- */

static json_t *api(q_env *e, const char *path, const char *query_limit,
                   int *status)
{
    zb_http_api_src src;
    zb_http_api_query q;
    zb_http_route r;
    zb_buf b = ZB_BUF_INIT(1 << 24);
    json_t *j;

    memset(&src, 0, sizeof src);
    memset(&q, 0, sizeof q);
    src.queue = e->q;
    q.limit = query_limit;
    zb_http_route_parse(&r, path);
    ZBT_OK_CTX(zb_http_api_json(&b, status, &e->ctx, &src, &r, &q), &e->ctx);
    j = json_loads(zb_buf_cstr(&b), 0, NULL);
    ZBT_CHECK(j != NULL);
    zb_buf_free(&b);
    return j;
}

typedef struct gather {
    json_t *arr;
} gather;

static int gather_task(void *payload, const zb_task *t)
{
    return json_array_append_new(((gather *)payload)->arr,
                                 zb_queue_task_json(t));
}

static int gather_attempt(void *payload, const zb_attempt *a)
{
    return json_array_append_new(((gather *)payload)->arr,
                                 zb_queue_attempt_json(a));
}

static void finish(q_env *e, const char *outcome, int64_t before_bytes,
                   int64_t after_bytes)
{
    zb_take_opts to = { "w-1", "standard", 60000 };
    zb_attempt_result res;
    zb_task t;
    int got = 0;

    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &to, &t, &got), &e->ctx);
    ZBT_EQ_INT(got, 1);
    memset(&res, 0, sizeof res);
    res.outcome = outcome;
    res.message = strcmp(outcome, "failed") == 0 ? "it broke" : NULL;
    res.started_ms = 1000;
    res.finished_ms = 2000;
    res.report = "ns.a: rewrote 4 file(s) (400 bytes)\n";
    res.before.known = res.after.known = 1;
    res.before.data_files = 10;
    res.after.data_files = 1;
    res.before.data_bytes = before_bytes;
    res.after.data_bytes = after_bytes;
    res.before.snapshots = res.after.snapshots = 3;
    ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &res), &e->ctx);
}

static void test_http_dashboard_api(void)
{
    gather g;
    json_t *j, *t0, *want;
    q_env e;
    int status;
    int64_t id;

    if (!q_env_open(&e, 0))
        return;
    q_env_add(&e, "ns.a", "compact", 5, "standard");
    finish(&e, "success", 5000, 3000);
    id = q_env_add(&e, "ns.b", "compact", 1, "standard");
    finish(&e, "failed", 100, 100);
    q_env_add(&e, "ns.c", "expire", 0, "standard");

    /* tasks and runs: what the CLI's --json prints */
    g.arr = json_array();
    ZBT_OK_CTX(zb_queue_list(e.q, &e.ctx, NULL, gather_task, &g), &e.ctx);
    j = api(&e, "/api/v1/tasks", NULL, &status);
    ZBT_EQ_INT(status, 200);
    ZBT_CHECK(json_equal(j, g.arr));
    ZBT_EQ_INT((int)json_array_size(j), 2);   /* ns.b in backoff, ns.c */
    json_decref(j);
    json_decref(g.arr);
    g.arr = json_array();
    ZBT_OK_CTX(zb_queue_attempts_where(e.q, &e.ctx, NULL, NULL, 0, 100,
                                       gather_attempt, &g), &e.ctx);
    j = api(&e, "/api/v1/runs", NULL, &status);
    ZBT_CHECK(json_equal(j, g.arr));
    ZBT_EQ_INT((int)json_array_size(j), 2);
    json_decref(j);
    json_decref(g.arr);
    j = api(&e, "/api/v1/runs", "1", &status);
    ZBT_EQ_INT((int)json_array_size(j), 1);
    json_decref(j);
    j = api(&e, "/api/v1/runs", "x", &status);
    ZBT_EQ_INT(status, 400);
    json_decref(j);

    /* one warehouse's tables by need, reclaimed bytes folded */
    j = api(&e, "/api/v1/warehouses/wh", NULL, &status);
    ZBT_EQ_INT(status, 200);
    ZBT_EQ_INT((int)json_array_size(json_object_get(j, "tables")), 3);
    t0 = json_array_get(json_object_get(j, "tables"), 0);
    ZBT_CHECK(t0 != NULL);
    ZBT_EQ_INT((int)json_integer_value(json_object_get(
                   json_array_get(json_object_get(j, "reclaimed"), 0),
                   "bytes")), 2000);
    json_decref(j);
    j = api(&e, "/api/v1/warehouses/nowhere", NULL, &status);
    ZBT_EQ_INT(status, 404);
    json_decref(j);
    /* no planner here: the plan is named as not served */
    j = api(&e, "/api/v1/warehouses/wh/tables/ns.a/plan", NULL, &status);
    ZBT_EQ_INT(status, 501);
    ZBT_CONTAINS(json_string_value(json_object_get(j, "error")),
                 "zamboni plan");
    json_decref(j);

    /* one task: live with its failed attempt */
    {
        char path[64];

        snprintf(path, sizeof path, "/api/v1/tasks/%lld", (long long)id);
        j = api(&e, path, NULL, &status);
    }
    ZBT_EQ_INT(status, 200);
    ZBT_EQ_STR(json_string_value(json_object_get(json_object_get(j, "task"),
                                                 "table")), "ns.b");
    want = json_array_get(json_object_get(j, "attempts"), 0);
    ZBT_EQ_STR(json_string_value(json_object_get(want, "outcome")), "failed");
    ZBT_EQ_STR(json_string_value(json_object_get(want, "message")),
               "it broke");
    json_decref(j);
    /* a worker and the live task it runs (looked up after the list: a
     * lookup from inside it deadlocked on SQLite's one connection) */
    {
        zb_worker_row w = { "w-1", "host", "standard", 1 << 30, 2, 0 };
        zb_worker_figures f;

        memset(&f, 0, sizeof f);
        f.task_id = id;
        ZBT_OK_CTX(zb_queue_worker_register(e.q, &e.ctx, &w), &e.ctx);
        ZBT_OK_CTX(zb_queue_worker_heartbeat(e.q, &e.ctx, "w-1", &f),
                   &e.ctx);
        j = api(&e, "/api/v1/workers", NULL, &status);
        ZBT_EQ_INT(status, 200);
        t0 = json_array_get(j, 0);
        ZBT_EQ_INT((int)json_integer_value(json_object_get(t0, "cores")), 2);
        ZBT_EQ_STR(json_string_value(json_object_get(json_object_get(
                       t0, "task"), "table")), "ns.b");
        json_decref(j);
    }
    j = api(&e, "/api/v1/tasks/999", NULL, &status);
    ZBT_EQ_INT(status, 404);
    json_decref(j);

    /* the fleet: the failure of the last day is there (the database's
     * clock is now; the attempt finished at 2000 ms: not in the day) */
    j = api(&e, "/api/v1/fleet", NULL, &status);
    ZBT_EQ_INT(status, 200);
    ZBT_EQ_INT((int)json_array_size(json_object_get(j, "failures_24h")), 0);
    ZBT_CHECK(json_is_null(json_object_get(j, "planner")));
    ZBT_EQ_INT((int)json_integer_value(json_object_get(
                   json_object_get(j, "outcomes"), "failed")), 1);
    json_decref(j);
    q_env_close(&e);
}

/* ---- a real server ---- */

typedef struct reply {
    long status;
    zb_buf body;
    char headers[8192];
    size_t hlen;
} reply;

static size_t on_body(char *p, size_t sz, size_t n, void *payload)
{
    reply *r = payload;

    zb_buf_append(&r->body, p, sz * n);
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *payload)
{
    reply *r = payload;
    size_t k = sz * n;

    if (r->hlen + k < sizeof r->headers) {
        memcpy(r->headers + r->hlen, p, k);
        r->hlen += k;
        r->headers[r->hlen] = '\0';
    }
    return k;
}

static void req(reply *r, int port, const char *path, const char *header,
                const char *post)
{
    struct curl_slist *hdrs = NULL;
    char url[256];
    CURL *c = curl_easy_init();

    ZBT_CHECK(c != NULL);
    memset(r, 0, sizeof *r);
    zb_buf_init(&r->body, 1 << 20);
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    if (post != NULL)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, post);
    if (header != NULL) {
        hdrs = curl_slist_append(hdrs, header);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    }
    ZBT_EQ_INT(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
}

static void test_http_dashboard_server(void)
{
    zb_http_opts o = ZB_HTTP_OPTS_INIT;
    const char *whs[] = { "w", "other" };
    zb_http *h = NULL;
    q_env e;
    reply r;
    int port;

    if (!q_env_open(&e, 0))
        return;
    o.listen = "127.0.0.1:0";
    o.queue = e.q;
    o.token = "t&k;1";             /* not cookie-safe: hex in the cookie */
    o.warehouses = whs;
    o.n_warehouses = 2;
    ZBT_OK_CTX(zb_http_start(&h, &e.ctx, &o), &e.ctx);
    port = zb_http_port(h);

    /* a page without the session: to the login form, next kept */
    req(&r, port, "/warehouses/w", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 303);
    ZBT_CONTAINS(r.headers, "Location: /login?next=/warehouses/w");
    zb_buf_free(&r.body);
    req(&r, port, "/login?next=/warehouses/w", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "value=\"/warehouses/w\"");
    ZBT_CONTAINS(r.headers, "Content-Security-Policy: default-src 'none'");
    zb_buf_free(&r.body);
    /* a next elsewhere is not followed; a wrong token is 401 */
    req(&r, port, "/login?next=//evil.example/x\"><b>", NULL, NULL);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "name=\"next\" value=\"/\"");
    zb_buf_free(&r.body);
    req(&r, port, "/login", NULL, "token=nope&next=%2F");
    ZBT_EQ_INT((int)r.status, 401);
    ZBT_CHECK(strstr(r.headers, "Set-Cookie") == NULL);
    zb_buf_free(&r.body);
    req(&r, port, "/login", NULL, "token=t%26k%3B1&next=%2Fwarehouses%2Fw");
    ZBT_EQ_INT((int)r.status, 303);
    ZBT_CONTAINS(r.headers, "Location: /warehouses/w");
    ZBT_CONTAINS(r.headers, "Set-Cookie: zamboni_session=74266b3b31; "
                            "Path=/; HttpOnly; SameSite=Strict");
    zb_buf_free(&r.body);

    /* the API: 401 bare, 200 with the cookie or the bearer */
    req(&r, port, "/api/v1/warehouses", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 401);
    zb_buf_free(&r.body);
    req(&r, port, "/api/v1/warehouses", "Cookie: zamboni_session=74266b3b30",
        NULL);
    ZBT_EQ_INT((int)r.status, 401);
    zb_buf_free(&r.body);
    req(&r, port, "/api/v1/warehouses", "Cookie: a=b; zamboni_session="
        "74266b3b31", NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "\"name\":\"other\"");
    zb_buf_free(&r.body);
    req(&r, port, "/api/v1/fleet", "Authorization: Bearer t&k;1", NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "\"queue\":[]");
    zb_buf_free(&r.body);
    req(&r, port, "/", "Authorization: Bearer t&k;1", NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "/assets/app.js");
    zb_buf_free(&r.body);
    /* assets are open (the login form needs its style), others 404 */
    req(&r, port, "/assets/app.css", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_CONTAINS(r.headers, "Content-Type: text/css");
    zb_buf_free(&r.body);
    req(&r, port, "/assets/nope.js", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 404);
    zb_buf_free(&r.body);
    /* POST only where a form goes; a body too big is no login */
    req(&r, port, "/api/v1/fleet", "Authorization: Bearer t&k;1", "x=1");
    ZBT_EQ_INT((int)r.status, 405);
    zb_buf_free(&r.body);
    {
        char *big = malloc(20000);

        ZBT_CHECK(big != NULL);
        memcpy(big, "token=t%26k%3B1&pad=", 20);
        memset(big + 20, 'x', 19979);
        big[19999] = '\0';
        req(&r, port, "/login", NULL, big);
        ZBT_EQ_INT((int)r.status, 401);
        zb_buf_free(&r.body);
        free(big);
    }
    req(&r, port, "/logout", NULL, "");
    ZBT_EQ_INT((int)r.status, 303);
    ZBT_CONTAINS(r.headers, "Max-Age=0");
    zb_buf_free(&r.body);
    zb_http_stop(h);
    q_env_close(&e);
}

const zbt_case test_http_dashboard_cases[] = {
    ZBT_CASE(test_http_dashboard_routes),
    ZBT_CASE(test_http_dashboard_form),
    ZBT_CASE(test_http_dashboard_api),
    ZBT_CASE(test_http_dashboard_server),
    ZBT_END
};

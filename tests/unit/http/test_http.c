/*
 * tests/unit/http/test_http.c - serve's HTTP side (service/http/http.h):
 * the Prometheus text (HELP and TYPE lines, label and help escaping,
 * values), the bearer check, /demand's JSON and count (due, backoff,
 * runbook order, running), the /metrics figures from a queue with tasks,
 * attempts and a worker, and a real server on loopback read with libcurl
 * (probes, token, routes, methods), on SQLite and on PostgreSQL when
 * $ZB_TEST_PG_URL names a server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "queue_env.h"
#include "service/http/http.h"
#include "service/http/prom.h"
#include "util/buf.h"

typedef void (*q_body)(q_env *e);

static void run_on(q_body body, int pg)
{
    q_env e;

    if (!q_env_open(&e, pg))
        return;
    body(&e);
    q_env_close(&e);
}

#define BOTH(name)                                                          \
    static void test_http_##name##__sqlite(void) { run_on(name, 0); }       \
    static void test_http_##name##__pg(void) { run_on(name, 1); }

/* ---- the Prometheus text ---- */

static void test_http_prom_escaping(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_prom p;
    const char *labels[] = { "worker", "a\\b\"c\nd", "class", "std", NULL };

    zb_prom_init(&p, &b);
    zb_prom_family(&p, "zamboni_x", "gauge", "Help with \\ and\nnewline "
                   "and \"quotes\".");
    zb_prom_sample(&p, "zamboni_x", labels, 3);
    zb_prom_sample(&p, "zamboni_x", NULL, 0.5);
    ZBT_EQ_INT(p.rc, ZB_OK);
    ZBT_EQ_STR(zb_buf_cstr(&b),
               "# HELP zamboni_x Help with \\\\ and\\nnewline and "
               "\"quotes\".\n"
               "# TYPE zamboni_x gauge\n"
               "zamboni_x{worker=\"a\\\\b\\\"c\\nd\",class=\"std\"} 3\n"
               "zamboni_x 0.5\n");
    zb_buf_free(&b);
}

static void test_http_prom_values(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_prom p;

    zb_prom_init(&p, &b);
    zb_prom_sample(&p, "a", NULL, 1.0 / 0.0);
    zb_prom_sample(&p, "b", NULL, -1.0 / 0.0);
    zb_prom_sample(&p, "c", NULL, 0.0 / 0.0);
    zb_prom_sample(&p, "d", NULL, 12345678901.0);
    zb_prom_sample(&p, "e", NULL, -2);
    ZBT_EQ_STR(zb_buf_cstr(&b), "a +Inf\nb -Inf\nc NaN\nd 12345678901\n"
               "e -2\n");
    zb_buf_free(&b);
    /* a full buffer is an error, not a cut line */
    zb_buf_init(&b, 8);
    zb_prom_init(&p, &b);
    zb_prom_family(&p, "zamboni_long_name", "counter", "help");
    ZBT_EQ_INT(p.rc, ZB_ENOMEM);
    zb_buf_free(&b);
}

/* ---- the bearer check ---- */

static void test_http_bearer(void)
{
    ZBT_CHECK(zb_http_bearer_ok("Bearer s3cret", "s3cret"));
    ZBT_CHECK(zb_http_bearer_ok("bearer s3cret", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer s3cre", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer s3cret2", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer S3CRET", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Basic s3cret", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("s3cret", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer ", "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok(NULL, "s3cret"));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer ", ""));
    ZBT_CHECK(!zb_http_bearer_ok("Bearer x", NULL));
}

static void test_http_parse_listen(void)
{
    char host[64];
    int port = -1;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_http_parse_listen("0.0.0.0:8650", host, sizeof host, &port,
                                    &ctx), &ctx);
    ZBT_EQ_STR(host, "0.0.0.0");
    ZBT_EQ_INT(port, 8650);
    ZBT_OK_CTX(zb_http_parse_listen("[::1]:0", host, sizeof host, &port,
                                    &ctx), &ctx);
    ZBT_EQ_STR(host, "::1");
    ZBT_EQ_INT(port, 0);
    ZBT_RC(zb_http_parse_listen("127.0.0.1", host, sizeof host, &port, &ctx),
           ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "ADDR:PORT");
    ZBT_RC(zb_http_parse_listen("127.0.0.1:65536", host, sizeof host, &port,
                                &ctx), ZB_EUSAGE);
    ZBT_RC(zb_http_parse_listen("::1:80", host, sizeof host, &port, &ctx),
           ZB_EUSAGE);
    ZBT_RC(zb_http_parse_listen(":80", host, sizeof host, &port, &ctx),
           ZB_EUSAGE);
    ZBT_RC(zb_http_parse_listen("h:8x", host, sizeof host, &port, &ctx),
           ZB_EUSAGE);
}

/* ---- /demand ---- */

static int64_t demand_of(q_env *e, const char *cls, int *status)
{
    zb_size_classes cs;
    zb_buf b = ZB_BUF_INIT(1 << 16);
    json_error_t jerr;
    json_t *j;
    int64_t n = -1;

    ZBT_OK_CTX(zb_size_classes_parse_json(&cs, &e->ctx,
                                          "[{\"name\":\"small\",\"cores\":1,"
                                          "\"memory\":\"1Gi\",\"max_jobs\":1},"
                                          "{\"name\":\"big\",\"cores\":2,"
                                          "\"memory\":\"8Gi\",\"max_jobs\":1}]",
                                          "test"),
               &e->ctx);
    ZBT_OK_CTX(zb_http_demand_json(&b, status, &e->ctx, e->q, &cs, cls),
               &e->ctx);
    j = json_loads(zb_buf_cstr(&b), 0, &jerr);
    ZBT_CHECK(j != NULL);
    if (*status == 200) {
        ZBT_EQ_STR(json_string_value(json_object_get(j, "class")), cls);
        ZBT_CHECK(json_is_integer(json_object_get(j, "demand")));
        n = json_integer_value(json_object_get(j, "demand"));
        ZBT_EQ_INT((int)json_object_size(j), 2);
    } else {
        ZBT_CHECK(json_is_string(json_object_get(j, "error")));
    }
    json_decref(j);
    zb_buf_free(&b);
    return n;
}

static void demand_counts(q_env *e)
{
    zb_take_opts o = { "w1", "small", 60000 };
    zb_task_new t;
    zb_task got;
    int status = 0, ok = 0, ins = 0;
    int64_t id = 0;

    ZBT_EQ_INT((int)demand_of(e, "small", &status), 0);
    ZBT_EQ_INT(status, 200);
    /* two operations of one table: only the first can be taken */
    q_env_add(e, "ns.a", "compact", 0, "small");
    q_env_add(e, "ns.a", "expire", 0, "small");
    q_env_add(e, "ns.b", "expire", 0, "small");
    q_env_add(e, "ns.c", "compact", 0, "big");
    /* in backoff: not due */
    memset(&t, 0, sizeof t);
    t.warehouse = "wh";
    t.table = "ns.d";
    t.operation = "compact";
    t.size_class = "small";
    t.delay_ms = 3600000;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &t, 0, &ins, &id), &e->ctx);
    ZBT_EQ_INT(ins, 1);
    ZBT_EQ_INT((int)demand_of(e, "small", &status), 2);
    ZBT_EQ_INT((int)demand_of(e, "big", &status), 1);
    /* a running one still counts; the table's next op waits for it */
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &got, &ok), &e->ctx);
    ZBT_EQ_INT(ok, 1);
    ZBT_EQ_INT((int)demand_of(e, "small", &status), 2);
    /* finished: gone, and the table's expire is due now */
    {
        zb_attempt_result r;
        memset(&r, 0, sizeof r);
        r.outcome = ZB_OUTCOME_SUCCESS;
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &got, &r), &e->ctx);
    }
    ZBT_EQ_INT((int)demand_of(e, "small", &status), 2);
    /* errors */
    demand_of(e, "huge", &status);
    ZBT_EQ_INT(status, 404);
    demand_of(e, NULL, &status);
    ZBT_EQ_INT(status, 400);
    demand_of(e, "", &status);
    ZBT_EQ_INT(status, 400);
}
BOTH(demand_counts)

/* ---- /metrics ---- */

static void metrics_figures(q_env *e)
{
    zb_take_opts o = { "w1", "standard", 60000 };
    zb_worker_row w = { "w1", "host1", "standard", 1u << 30, 2, 0 };
    zb_worker_figures f = { 0, 123456, 1.5, 1000, 4096 };
    zb_planner_counters pc;
    zb_attempt_result r;
    zb_buf b = ZB_BUF_INIT(1 << 20);
    zb_task got;
    int ok = 0;
    const char *txt;

    q_env_add(e, "ns.a", "compact", 5, "standard");
    q_env_add(e, "ns.b", "compact", 1, "standard");
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &got, &ok), &e->ctx);
    ZBT_EQ_INT(ok, 1);
    memset(&r, 0, sizeof r);
    r.outcome = ZB_OUTCOME_SUCCESS;
    r.started_ms = 1000;
    r.finished_ms = 2000;
    r.before.known = r.after.known = 1;
    r.before.data_bytes = 10000;
    r.after.data_bytes = 7000;
    r.before.metadata_bytes = 500;
    r.after.metadata_bytes = 600;
    ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &got, &r), &e->ctx);
    ZBT_OK_CTX(zb_queue_worker_register(e->q, &e->ctx, &w), &e->ctx);
    ZBT_OK_CTX(zb_queue_worker_heartbeat(e->q, &e->ctx, "w1", &f), &e->ctx);
    memset(&pc, 0, sizeof pc);
    pc.cycles = 3;
    pc.added = 7;
    pc.refused = 1;
    pc.leader = 1;
    pc.last_cycle_seconds = 0.25;
    ZBT_OK_CTX(zb_http_metrics_text(&b, &e->ctx, e->q, NULL, &pc), &e->ctx);
    txt = zb_buf_cstr(&b);
    ZBT_CONTAINS(txt, "# TYPE zamboni_tasks gauge\n");
    ZBT_CONTAINS(txt, "zamboni_tasks{class=\"standard\",state=\"scheduled\"} "
                      "1\n");
    ZBT_CONTAINS(txt, "zamboni_tasks{class=\"standard\",state=\"running\"} "
                      "0\n");
    ZBT_CONTAINS(txt, "zamboni_demand{class=\"standard\"} 1\n");
    ZBT_CONTAINS(txt, "# TYPE zamboni_attempts_total counter\n");
    ZBT_CONTAINS(txt, "zamboni_attempts_total{outcome=\"success\"} 1\n");
    ZBT_CONTAINS(txt, "zamboni_attempts_total{outcome=\"lost\"} 0\n");
    ZBT_CONTAINS(txt, "zamboni_tasks_assigned_total 1\n");
    ZBT_CONTAINS(txt, "zamboni_planner_tasks_added_total 7\n");
    ZBT_CONTAINS(txt, "zamboni_planner_tasks_refused_total 1\n");
    ZBT_CONTAINS(txt, "zamboni_planner_leader 1\n");
    ZBT_CONTAINS(txt, "zamboni_planner_cycle_duration_seconds 0.25\n");
    ZBT_CONTAINS(txt, "zamboni_warehouse_last_success_timestamp_seconds"
                      "{warehouse=\"wh\"} ");
    ZBT_CONTAINS(txt, "zamboni_reclaimed_bytes_total{operation=\"compact\","
                      "kind=\"data\"} 3000\n");
    ZBT_CONTAINS(txt, "zamboni_reclaimed_bytes_total{operation=\"compact\","
                      "kind=\"metadata\"} 0\n");
    ZBT_CONTAINS(txt, "zamboni_worker_budget_reserved_bytes{worker=\"w1\","
                      "class=\"standard\"} 123456\n");
    ZBT_CONTAINS(txt, "zamboni_worker_budget_wait_seconds{worker=\"w1\","
                      "class=\"standard\"} 1.5\n");
    ZBT_CONTAINS(txt, "zamboni_worker_rows_done{worker=\"w1\","
                      "class=\"standard\"} 1000\n");
    ZBT_CONTAINS(txt, "zamboni_worker_bytes_done{worker=\"w1\","
                      "class=\"standard\"} 4096\n");
    /* one HELP and one TYPE per family */
    {
        const char *at = txt;
        int n = 0;
        while ((at = strstr(at, "# TYPE zamboni_tasks gauge")) != NULL) {
            n++;
            at++;
        }
        ZBT_EQ_INT(n, 1);
    }
    zb_buf_free(&b);
    /* without a planner, no planner family */
    zb_buf_init(&b, 1 << 20);
    ZBT_OK_CTX(zb_http_metrics_text(&b, &e->ctx, e->q, NULL, NULL), &e->ctx);
    ZBT_CHECK(strstr(zb_buf_cstr(&b), "zamboni_planner") == NULL);
    zb_buf_free(&b);
}
BOTH(metrics_figures)

/* ---- a real server on loopback ---- */

typedef struct reply {
    long status;
    char type[128];
    zb_buf body;
} reply;

static size_t on_body(char *p, size_t sz, size_t n, void *payload)
{
    reply *r = payload;

    zb_buf_append(&r->body, p, sz * n);
    return sz * n;
}

static void get(reply *r, int port, const char *path, const char *token,
                const char *method)
{
    struct curl_slist *hdrs = NULL;
    char url[256], auth[256];
    char *ct = NULL;
    CURL *c = curl_easy_init();

    ZBT_CHECK(c != NULL);
    memset(r, 0, sizeof *r);
    zb_buf_init(&r->body, 1 << 20);
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    if (method != NULL)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (token != NULL) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        hdrs = curl_slist_append(hdrs, auth);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    }
    ZBT_EQ_INT(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
    snprintf(r->type, sizeof r->type, "%s", ct ? ct : "");
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
}

static void fake_counters(void *payload, zb_planner_counters *out)
{
    (void)payload;
    memset(out, 0, sizeof *out);
    out->cycles = 2;
    out->added = 4;
}

static void server_loopback(q_env *e)
{
    zb_http_opts o = ZB_HTTP_OPTS_INIT;
    zb_http *h = NULL;
    reply r;
    int port;

    o.listen = "127.0.0.1:0";
    o.queue = e->q;
    o.token = "tok-123";
    o.planner_counters = fake_counters;
    ZBT_OK_CTX(zb_http_start(&h, &e->ctx, &o), &e->ctx);
    port = zb_http_port(h);
    ZBT_CHECK(port > 0);
    q_env_add(e, "ns.a", "compact", 0, "standard");

    get(&r, port, "/livez", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_EQ_STR(zb_buf_cstr(&r.body), "ok\n");
    zb_buf_free(&r.body);
    get(&r, port, "/health", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_EQ_STR(zb_buf_cstr(&r.body), "ok\nqueue_database: ok\n");
    zb_buf_free(&r.body);
    /* the token guards the rest */
    get(&r, port, "/metrics", NULL, NULL);
    ZBT_EQ_INT((int)r.status, 401);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "unauthorized");
    zb_buf_free(&r.body);
    get(&r, port, "/demand?class=standard", "wrong", NULL);
    ZBT_EQ_INT((int)r.status, 401);
    zb_buf_free(&r.body);
    get(&r, port, "/metrics", "tok-123", NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_EQ_STR(r.type, ZB_PROM_CONTENT_TYPE);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "zamboni_tasks{class=\"standard\","
                                       "state=\"scheduled\"} 1\n");
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "zamboni_planner_tasks_added_total "
                                       "4\n");
    zb_buf_free(&r.body);
    get(&r, port, "/demand?class=standard", "tok-123", NULL);
    ZBT_EQ_INT((int)r.status, 200);
    ZBT_EQ_STR(r.type, "application/json");
    ZBT_EQ_STR(zb_buf_cstr(&r.body),
               "{\"class\": \"standard\", \"demand\": 1}\n");
    zb_buf_free(&r.body);
    get(&r, port, "/demand?class=nope", "tok-123", NULL);
    ZBT_EQ_INT((int)r.status, 404);
    ZBT_CONTAINS(zb_buf_cstr(&r.body), "unknown size class 'nope'");
    zb_buf_free(&r.body);
    get(&r, port, "/demand", "tok-123", NULL);
    ZBT_EQ_INT((int)r.status, 400);
    zb_buf_free(&r.body);
    get(&r, port, "/elsewhere", "tok-123", NULL);
    ZBT_EQ_INT((int)r.status, 404);
    zb_buf_free(&r.body);
    get(&r, port, "/livez", NULL, "POST");
    ZBT_EQ_INT((int)r.status, 405);
    zb_buf_free(&r.body);
    zb_http_stop(h);
}
BOTH(server_loopback)

/* A port in use is named with its reason. */
static void test_http_port_taken(void)
{
    q_env e;
    zb_http_opts o = ZB_HTTP_OPTS_INIT;
    zb_http *h = NULL, *h2 = NULL;
    char listen[64];

    if (!q_env_open(&e, 0))
        return;
    o.listen = "127.0.0.1:0";
    o.queue = e.q;
    ZBT_OK_CTX(zb_http_start(&h, &e.ctx, &o), &e.ctx);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", zb_http_port(h));
    o.listen = listen;
    ZBT_RC(zb_http_start(&h2, &e.ctx, &o), ZB_EIO);
    ZBT_CONTAINS(e.ctx.err.msg, "cannot listen on");
    ZBT_CHECK(h2 == NULL);
    o.listen = "nowhere";
    ZBT_RC(zb_http_start(&h2, &e.ctx, &o), ZB_EUSAGE);
    zb_http_stop(h);
    q_env_close(&e);
}

/* The health check of a database that answers. */
static void health_ok(q_env *e)
{
    char msg[256];

    ZBT_EQ_INT(zb_http_health_check(zb_queue_db(e->q), 2000, msg,
                                    sizeof msg), 1);
    ZBT_EQ_STR(msg, "ok");
    ZBT_EQ_INT(zb_http_health_check(NULL, 2000, msg, sizeof msg), 0);
    ZBT_CONTAINS(msg, "failed");
}
BOTH(health_ok)

const zbt_case test_http_cases[] = {
    ZBT_CASE(test_http_prom_escaping),
    ZBT_CASE(test_http_prom_values),
    ZBT_CASE(test_http_bearer),
    ZBT_CASE(test_http_parse_listen),
    ZBT_CASE(test_http_demand_counts__sqlite),
    ZBT_CASE(test_http_demand_counts__pg),
    ZBT_CASE(test_http_metrics_figures__sqlite),
    ZBT_CASE(test_http_metrics_figures__pg),
    ZBT_CASE(test_http_server_loopback__sqlite),
    ZBT_CASE(test_http_server_loopback__pg),
    ZBT_CASE(test_http_port_taken),
    ZBT_CASE(test_http_health_ok__sqlite),
    ZBT_CASE(test_http_health_ok__pg),
    ZBT_END
};

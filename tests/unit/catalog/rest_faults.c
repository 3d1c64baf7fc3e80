/*
 * tests/unit/catalog/rest_faults.c - the REST catalog client when things
 * go wrong: each fault of the test server on reads (retried) and on
 * commits (never sent twice once received: unknown outcome), 429 and 503
 * with Retry-After, timeouts, dropped connections, HTML error pages,
 * truncated and misshapen JSON, an unreachable server and bad URLs; and
 * auth: bearer tokens, OAuth2 client credentials with refresh before
 * expiry and after a 401, extra headers.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog_int.h"
#include "catalog/rest/catalog_rest_int.h"
#include "rest_server.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "zbtest.h"

static zb_table *setup_table(rest_fixture *f)
{
    ice_metadata *first = rest_first_metadata("file:///nowhere");
    zb_table *t = NULL;

    ZBT_OK_CTX(zb_catalog_create_namespace(f->cat, &f->ctx, "db"), &f->ctx);
    ZBT_OK_CTX(zb_catalog_create_table(f->cat, &f->ctx, "db.t", NULL, first,
                                       &t), &f->ctx);
    ice_metadata_free(first);
    return t;
}

static int commit_prop(rest_fixture *f, const zb_table *base,
                       const char *value, zb_table **out)
{
    ice_kv kv = { "k", value };
    json_t *reqs = json_array(), *upds = json_array();
    int rc;

    ZBT_CHECK(ice_commit_append((zb_json *)reqs, &f->ctx,
                                ice_requirement_table_uuid(
                                    base->meta->table_uuid)) == ZB_OK);
    ZBT_CHECK(ice_commit_append((zb_json *)upds, &f->ctx,
                                ice_update_set_properties(&kv, 1)) == ZB_OK);
    rc = zb_catalog_commit(f->cat, &f->ctx, base, (const zb_json *)reqs,
                           (const zb_json *)upds, out);
    json_decref(reqs);
    json_decref(upds);
    return rc;
}

static const char *current_k(rest_fixture *f)
{
    static char v[64];
    zb_table *t = NULL;
    const char *p;

    ZBT_OK_CTX(zb_catalog_load_table(f->cat, &f->ctx, "db.t", &t), &f->ctx);
    p = ice_metadata_property(t->meta, "k");
    snprintf(v, sizeof(v), "%s", p ? p : "(none)");
    zb_table_free(t);
    return v;
}

static uint64_t requests(rest_fixture *f)
{
    return rest_server_get_stats(f->srv).requests;
}

/* Reads: 5xx, drops, 503 are retried; a reply that is not the expected
 * JSON is a clear ECORRUPT. */
static void test_catalog_rest__read_faults(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL;
    rest_items it = { "", 0 };
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    uint64_t n;
    int64_t t0;

    cfg.max_retries = 3;
    rest_fixture_start(&f, NULL, &cfg);
    t = setup_table(&f);
    zb_table_free(t);

    static const rest_fault retried[] = { RS_FAULT_HTML_500, RS_FAULT_502,
                                          RS_FAULT_503, RS_FAULT_DROP,
                                          RS_FAULT_500_JSON };
    for (size_t i = 0; i < sizeof(retried) / sizeof(retried[0]); i++) {
        n = requests(&f);
        rest_server_fault(f.srv, retried[i], 2, -1, "GET", "/tables/t");
        ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), &f.ctx);
        zb_table_free(t2);
        t2 = NULL;
        ZBT_EQ_U64(requests(&f) - n, 3);
    }
    /* Retries run out: the HTML page is named as not JSON. */
    rest_server_fault(f.srv, RS_FAULT_HTML_500, 10, -1, "GET", "/tables/t");
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), ZB_EIO);
    ZBT_CONTAINS(f.ctx.err.msg, "catalog rt (rest)");
    ZBT_CONTAINS(f.ctx.err.msg, "load table db.t");
    ZBT_CONTAINS(f.ctx.err.msg, "HTTP 500");
    ZBT_CONTAINS(f.ctx.err.msg, "not JSON");
    ZBT_CONTAINS(f.ctx.err.msg, "<html>");
    rest_server_clear_faults(f.srv);
    /* Truncated JSON in a 200. */
    rest_server_fault(f.srv, RS_FAULT_TRUNCATED, 1, -1, "GET", "/tables/t");
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "truncated JSON");
    ZBT_CONTAINS(f.ctx.err.msg, "load table db.t");
    /* A 200 that is not JSON. */
    rest_server_fault(f.srv, RS_FAULT_NOT_JSON_200, 1, -1, "GET", NULL);
    ZBT_RC(zb_catalog_list_tables(f.cat, &f.ctx, "db", rest_items_cb, &it),
           ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "not JSON");
    ZBT_CONTAINS(f.ctx.err.msg, "OK: all good");
    /* JSON of the wrong shape. */
    rest_server_fault(f.srv, RS_FAULT_WRONG_SHAPE, 1, -1, "GET", NULL);
    ZBT_RC(zb_catalog_list_namespaces(f.cat, &f.ctx, NULL, rest_items_cb,
                                      &it), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "no \"namespaces\" array");
    rest_server_fault(f.srv, RS_FAULT_WRONG_SHAPE, 1, -1, "GET", NULL);
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "no \"metadata\" object");
    /* 429 with Retry-After: 1 is honoured. */
    n = requests(&f);
    t0 = rest_now_ms();
    rest_server_fault(f.srv, RS_FAULT_429, 1, 1, "GET", NULL);
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), &f.ctx);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_CHECK(rest_now_ms() - t0 >= 950);
    ZBT_EQ_U64(requests(&f) - n, 2);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__read_timeout(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    uint64_t n;

    cfg.timeout_ms = 300;
    cfg.max_retries = 1;
    rest_fixture_start(&f, NULL, &cfg);
    t = setup_table(&f);
    zb_table_free(t);
    /* One slow answer: retried. */
    n = requests(&f);
    rest_server_fault(f.srv, RS_FAULT_DELAY, 1, 800, "GET", NULL);
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), &f.ctx);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_EQ_U64(requests(&f) - n, 2);
    /* Always slow: ETIMEOUT. */
    rest_server_fault(f.srv, RS_FAULT_DELAY, 2, 800, "GET", NULL);
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), ZB_ETIMEOUT);
    ZBT_CONTAINS(f.ctx.err.msg, "load table db.t");
    ZBT_CONTAINS(f.ctx.err.msg, "timed out");
    rest_fixture_stop(&f);
}

/* Commits: never sent twice once the server may have it. */
static void test_catalog_rest__commit_faults(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    uint64_t n, commits;

    cfg.timeout_ms = 400;
    cfg.max_retries = 3;
    rest_fixture_start(&f, NULL, &cfg);
    t = setup_table(&f);

    /* Not applied by the server, outcome unknown to the client. */
    static const rest_fault unknown[] = { RS_FAULT_500_JSON, RS_FAULT_502,
                                          RS_FAULT_HTML_500, RS_FAULT_DROP,
                                          RS_FAULT_503 };
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        n = requests(&f);
        commits = rest_server_get_stats(f.srv).commits;
        rest_server_fault(f.srv, unknown[i], 1, -1, "POST", "/tables/t");
        if (commit_prop(&f, t, "x", &t2) != ZB_ETIMEOUT)
            zbt__fail(__FILE__, __LINE__, "fault %zu: %s", i, f.ctx.err.msg);
        ZBT_CONTAINS(f.ctx.err.msg, "commit to table db.t");
        ZBT_CONTAINS(f.ctx.err.msg, "unknown");
        ZBT_EQ_U64(requests(&f) - n, 1);
        ZBT_EQ_U64(rest_server_get_stats(f.srv).commits, commits);
        ZBT_CHECK(t2 == NULL);
    }
    ZBT_EQ_STR(current_k(&f), "(none)");
    /* Applied by the server, then 504: unknown, and in fact committed. */
    rest_server_fault(f.srv, RS_FAULT_504_AFTER, 1, -1, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "a", &t2), ZB_ETIMEOUT);
    ZBT_CONTAINS(f.ctx.err.msg, "504");
    ZBT_EQ_STR(current_k(&f), "a");
    /* Applied, then too slow: the client times out, does not resend. */
    n = requests(&f);
    rest_server_fault(f.srv, RS_FAULT_DELAY, 1, 1000, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "b", &t2), ZB_ETIMEOUT);
    ZBT_CONTAINS(f.ctx.err.msg, "outcome unknown");
    ZBT_EQ_U64(requests(&f) - n, 1);
    rest_sleep_ms(800);   /* the server finishes the slow commit */
    ZBT_EQ_STR(current_k(&f), "b");
    /* Applied, then a truncated 200: unknown. */
    rest_server_fault(f.srv, RS_FAULT_TRUNCATED, 1, -1, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "c", &t2), ZB_ETIMEOUT);
    ZBT_CONTAINS(f.ctx.err.msg, "truncated JSON");
    ZBT_EQ_STR(current_k(&f), "c");
    /* Refused before processing: 429, and 503 with Retry-After, are
     * retried; then the commit goes through once. */
    n = requests(&f);
    commits = rest_server_get_stats(f.srv).commits;
    rest_server_fault(f.srv, RS_FAULT_429, 1, 0, "POST", "/tables/t");
    rest_server_fault(f.srv, RS_FAULT_503, 1, 0, "POST", "/tables/t");
    ZBT_OK_CTX(commit_prop(&f, t, "d", &t2), &f.ctx);
    ZBT_EQ_U64(requests(&f) - n, 3);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).commits, commits + 1);
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "k"), "d");
    zb_table_free(t2);
    t2 = NULL;
    /* An injected 409: a conflict. */
    rest_server_fault(f.srv, RS_FAULT_409, 1, -1, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "e", &t2), ZB_ECONFLICT);
    ZBT_CONTAINS(f.ctx.err.msg, "injected conflict");
    /* A 409 to a commit sent again after a 503: the first attempt may
     * have landed, so the outcome is unknown, not a conflict (whose
     * clean-up would delete what that commit references). */
    rest_server_fault(f.srv, RS_FAULT_503, 1, 0, "POST", "/tables/t");
    rest_server_fault(f.srv, RS_FAULT_409, 1, -1, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "e", &t2), ZB_ETIMEOUT);
    ZBT_CONTAINS(f.ctx.err.msg, "outcome unknown");
    /* A 429 that never ends: nothing committed, not an unknown outcome. */
    rest_server_fault(f.srv, RS_FAULT_429, 10, 0, "POST", "/tables/t");
    ZBT_RC(commit_prop(&f, t, "f", &t2), ZB_EIO);
    ZBT_CONTAINS(f.ctx.err.msg, "429");
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__unreachable(void)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *cat = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    char uri[128];
    int fd;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    /* A port that was free a moment ago: connection refused. */
    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ZBT_EQ_INT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ZBT_EQ_INT(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    close(fd);
    snprintf(uri, sizeof(uri), "http://127.0.0.1:%u/catalog",
             (unsigned)ntohs(sa.sin_port));
    cfg.kind = ZB_CATALOG_REST;
    cfg.name = "down";
    cfg.uri = uri;
    cfg.max_retries = 1;
    ZBT_RC(zb_catalog_open(&cat, &ctx, io, &cfg), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "catalog down (rest)");
    ZBT_CONTAINS(ctx.err.msg, uri);
    ZBT_CONTAINS(ctx.err.msg, "cannot reach the server after 2 attempts");
    ZBT_CHECK(strstr(ctx.err.msg, "onnect") != NULL);
    /* Bad URLs. */
    cfg.uri = "ftp://example/catalog";
    ZBT_RC(zb_catalog_open(&cat, &ctx, io, &cfg), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "bad URL");
    cfg.uri = "http://exa mple:99999/";
    ZBT_RC(zb_catalog_open(&cat, &ctx, io, &cfg), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "bad URL");
    cfg.uri = NULL;
    ZBT_RC(zb_catalog_open(&cat, &ctx, io, &cfg), ZB_EUSAGE);
    ZBT_CHECK(cat == NULL);
    zb_io_free(io);
}

static void test_catalog_rest__bearer_headers(void)
{
    rest_server_opts o = { 0 };
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog_kv hdr = { "X-Test-Header", "yes" };
    rest_fixture f;
    zb_table *t;

    o.static_token = "secret-token";
    o.required_header = "X-Test-Header: yes";
    cfg.token = "secret-token";
    cfg.headers = &hdr;
    cfg.n_headers = 1;
    rest_fixture_start(&f, &o, &cfg);
    t = setup_table(&f);
    zb_table_free(t);
    /* A wrong token: 401, refused, named. */
    cfg.token = "wrong";
    ZBT_RC(rest_fixture_open(&f, &cfg), ZB_EREFUSED);
    ZBT_CONTAINS(f.ctx.err.msg, "401");
    ZBT_CONTAINS(f.ctx.err.msg, "NotAuthorizedException");
    /* No header: 403. */
    cfg.token = "secret-token";
    cfg.n_headers = 0;
    ZBT_RC(rest_fixture_open(&f, &cfg), ZB_EREFUSED);
    ZBT_CONTAINS(f.ctx.err.msg, "403");
    rest_fixture_stop(&f);
}

static void test_catalog_rest__oauth_refresh(void)
{
    rest_server_opts o = { 0 };
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    rest_fixture f;
    zb_table *t, *t2 = NULL;
    rest_server_stats st;

    o.client_id = "zamboni";
    o.client_secret = "s3cr&t=1";
    o.token_ttl_s = 1;
    cfg.credential = "zamboni:s3cr&t=1";
    rest_fixture_start(&f, &o, &cfg);
    st = rest_server_get_stats(f.srv);
    ZBT_EQ_U64(st.token_requests, 1);
    t = setup_table(&f);
    /* Before expiry (four fifths of 1 s), a new token is fetched. */
    rest_sleep_ms(900);
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), &f.ctx);
    zb_table_free(t2);
    t2 = NULL;
    st = rest_server_get_stats(f.srv);
    ZBT_EQ_U64(st.token_requests, 2);
    ZBT_EQ_U64(st.unauthorized, 0);
    /* Revoked: one 401, a new token, the request again. */
    rest_server_revoke_tokens(f.srv);
    ZBT_OK_CTX(commit_prop(&f, t, "after-401", &t2), &f.ctx);
    st = rest_server_get_stats(f.srv);
    ZBT_EQ_U64(st.token_requests, 3);
    ZBT_EQ_U64(st.unauthorized, 1);
    zb_table_free(t2);
    zb_table_free(t);
    /* Wrong secret: refused, with OAuth's error. */
    cfg.credential = "zamboni:wrong";
    ZBT_RC(rest_fixture_open(&f, &cfg), ZB_EREFUSED);
    ZBT_CONTAINS(f.ctx.err.msg, "OAuth2 token request");
    ZBT_CONTAINS(f.ctx.err.msg, "invalid_client");
    /* An explicit token endpoint. */
    {
        char ep[256];
        snprintf(ep, sizeof(ep), "%s/v1/oauth/tokens",
                 rest_server_uri(f.srv));
        cfg.credential = "zamboni:s3cr&t=1";
        cfg.oauth2_server_uri = ep;
        cfg.scope = "PRINCIPAL_ROLE:ALL";
        ZBT_OK_CTX(rest_fixture_open(&f, &cfg), &f.ctx);
    }
    rest_fixture_stop(&f);
}

/* The stop flag ends a wait between retries. */
static void test_catalog_rest__stop_flag(void)
{
    rest_fixture f;
    zb_table *t2 = NULL;
    atomic_int stop = 1;

    rest_fixture_start(&f, NULL, NULL);
    f.ctx.stop = &stop;
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2), ZB_ECANCELED);
    f.ctx.stop = NULL;
    rest_fixture_stop(&f);
}

/* The load table's metadata location and its "k" property. */
static void table_state(rest_fixture *f, char *loc, size_t size)
{
    zb_table *t = NULL;

    ZBT_OK_CTX(zb_catalog_load_table(f->cat, &f->ctx, "db.t", &t), &f->ctx);
    snprintf(loc, size, "%s", t->metadata_location);
    zb_table_free(t);
}

/*
 * Each allocation of open, load and commit fails in turn: ZB_ENOMEM
 * (for a commit, only when the table did not change) or, for a commit
 * whose reply could not be read, ZB_ETIMEOUT; never a leak. The server
 * runs in a child process here, since the allocation fault hook is
 * process-wide.
 */
static void test_catalog_rest__alloc_failures(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL;
    uint64_t n, failed;
    int rc, n_oom = 0, n_unknown = 0, pfd[2];
    char uri[128] = "", before[1024], after[1024];
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    pid_t pid;

    memset(&f, 0, sizeof(f));
    zb_ctx_init(&f.ctx);
    ZBT_OK_CTX(zb_io_new(&f.io, &f.ctx), &f.ctx);
    ZBT_EQ_INT(pipe(pfd), 0);
    fflush(NULL);
    pid = fork();
    ZBT_CHECK(pid >= 0);
    if (pid == 0) {
        rest_server *srv = NULL;
        alarm(120);   /* never outlives a failed test for long */
        close(pfd[0]);
        if (rest_server_start(&srv, zbt_tmpdir(), NULL) != 0)
            _exit(1);
        if (write(pfd[1], rest_server_uri(srv), strlen(rest_server_uri(srv)))
            <= 0)
            _exit(1);
        close(pfd[1]);
        for (;;)
            pause();
    }
    close(pfd[1]);
    ZBT_CHECK(read(pfd[0], uri, sizeof(uri) - 1) > 0);
    close(pfd[0]);
    cfg.uri = uri;
    ZBT_OK_CTX(rest_fixture_open(&f, &cfg), &f.ctx);
    t = setup_table(&f);

    for (n = 1;; n++) {
        zb_alloc__fail_at(n, 0);
        rc = rest_fixture_open(&f, &cfg);
        failed = zb_alloc__fail_at(0, 0);
        if (rc != ZB_OK && rc != ZB_ENOMEM)
            zbt__fail(__FILE__, __LINE__, "open, allocation %llu: %s",
                      (unsigned long long)n, f.ctx.err.msg);
        if (failed == 0)
            break;
        ZBT_CHECK(n < 20000);
    }
    ZBT_OK_CTX(rc, &f.ctx);
    for (n = 1;; n++) {
        zb_alloc__fail_at(n, 0);
        rc = zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t2);
        failed = zb_alloc__fail_at(0, 0);
        zb_table_free(t2);
        t2 = NULL;
        if (rc != ZB_OK && rc != ZB_ENOMEM)
            zbt__fail(__FILE__, __LINE__, "load, allocation %llu: %s",
                      (unsigned long long)n, f.ctx.err.msg);
        if (failed == 0)
            break;
        ZBT_CHECK(n < 20000);
    }
    for (n = 1;; n++) {
        table_state(&f, before, sizeof(before));
        zb_alloc__fail_at(n, 0);
        rc = commit_prop(&f, t, "torture", &t2);
        failed = zb_alloc__fail_at(0, 0);
        zb_table_free(t2);
        t2 = NULL;
        if (rc == ZB_ENOMEM) {
            n_oom++;
            table_state(&f, after, sizeof(after));
            ZBT_EQ_STR(after, before);
        } else if (rc == ZB_ETIMEOUT) {
            n_unknown++;
            ZBT_CONTAINS(f.ctx.err.msg, "unknown");
        } else if (rc != ZB_OK)
            zbt__fail(__FILE__, __LINE__, "commit, allocation %llu: %s",
                      (unsigned long long)n, f.ctx.err.msg);
        if (failed == 0)
            break;
        ZBT_CHECK(n < 20000);
    }
    fprintf(stderr, "  commit: %llu allocations: %d ENOMEM, %d unknown\n",
            (unsigned long long)n - 1, n_oom, n_unknown);
    ZBT_CHECK(n_oom > 0 && n_unknown > 0);
    zb_table_free(t);
    zb_catalog_free(f.cat);
    zb_io_free(f.io);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

const zbt_case test_catalog_rest_faults[] = {
    ZBT_CASE(test_catalog_rest__alloc_failures),
    ZBT_CASE(test_catalog_rest__read_faults),
    ZBT_CASE(test_catalog_rest__read_timeout),
    ZBT_CASE(test_catalog_rest__commit_faults),
    ZBT_CASE(test_catalog_rest__unreachable),
    ZBT_CASE(test_catalog_rest__bearer_headers),
    ZBT_CASE(test_catalog_rest__oauth_refresh),
    ZBT_CASE(test_catalog_rest__stop_flag),
    ZBT_END
};

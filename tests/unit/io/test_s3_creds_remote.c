/*
 * tests/unit/io/test_s3_creds_remote.c - web identity, container and IMDS
 * credentials against tests/s3/cred_endpoints.mjs on loopback (ZB_NODE and
 * ZB_CRED_ENDPOINTS name node and the script; ctest sets them): each
 * source found and named, the web identity token file read again at each
 * fetch, refresh before expiry counted at the server's /__stats, one
 * refresh for many threads, a failed refresh keeping still-valid keys, and
 * no token or key in any message.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zbtest.h"
#include "test_s3_creds_util.h"
#include "util/buf.h"
#include "util/err.h"

#define AUTH_TOKEN "container-auth-secret-42"
#define WEB_TOKEN "eyJ.web-identity-secret.1"

typedef struct server {
    pid_t pid;
    int port;
    char base[64];
    char token_file[4096];
} server;

static server srv;

static void server_stop(void)
{
    if (srv.pid > 0) {
        kill(srv.pid, SIGTERM);
        waitpid(srv.pid, NULL, 0);
    }
    srv.pid = 0;
}

/* Starts the script and reads "listening PORT" from it. */
static void server_start(const char *dir)
{
    const char *node = getenv("ZB_NODE");
    const char *script = getenv("ZB_CRED_ENDPOINTS");
    char line[128] = "";
    int fds[2];
    FILE *f;

    if (node == NULL || script == NULL)
        zbt__fail(__FILE__, __LINE__, "ZB_NODE and ZB_CRED_ENDPOINTS must "
                  "name node and tests/s3/cred_endpoints.mjs (ctest sets "
                  "them)");
    snprintf(srv.token_file, sizeof srv.token_file, "%s/web-token", dir);
    zbt_write_file(srv.token_file, WEB_TOKEN "\n", strlen(WEB_TOKEN) + 1);
    ZBT_CHECK(pipe(fds) == 0);
    srv.pid = fork();
    ZBT_CHECK(srv.pid >= 0);
    if (srv.pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(node, node, script, "--token-file", srv.token_file,
              "--container-token", AUTH_TOKEN, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    f = fdopen(fds[0], "r");
    ZBT_CHECK(f != NULL);
    if (fgets(line, sizeof line, f) == NULL ||
        sscanf(line, "listening %d", &srv.port) != 1) {
        fclose(f);
        server_stop();
        zbt__fail(__FILE__, __LINE__, "%s did not say \"listening PORT\"",
                  script);
    }
    fclose(f);
    snprintf(srv.base, sizeof srv.base, "http://127.0.0.1:%d", srv.port);
}

static size_t collect(char *d, size_t s, size_t n, void *u)
{
    zb_buf *b = u;

    return zb_buf_append(b, d, s * n) == ZB_OK ? s * n : 0;
}

/* GETs path from the test server into b. */
static void server_get(zb_buf *b, const char *path)
{
    char url[256];
    CURL *h = curl_easy_init();
    long status = 0;

    ZBT_CHECK(h != NULL);
    snprintf(url, sizeof url, "%s%s", srv.base, path);
    zb_buf_clear(b);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    ZBT_EQ_INT(curl_easy_perform(h), CURLE_OK);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    ZBT_EQ_INT(status, 200);
}

/* How many credentials the server handed out for kind. */
static long long server_count(const char *kind)
{
    zb_buf b = ZB_BUF_INIT(4096);
    json_t *root;
    long long n;

    server_get(&b, "/__stats");
    root = json_loadb(b.ptr, b.len, 0, NULL);
    zb_buf_free(&b);
    ZBT_CHECK(root != NULL);
    n = json_integer_value(json_object_get(root, kind));
    json_decref(root);
    return n;
}

static void server_config(const char *query)
{
    zb_buf b = ZB_BUF_INIT(4096);
    char path[256];

    snprintf(path, sizeof path, "/__config?%s", query);
    server_get(&b, path);
    zb_buf_free(&b);
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static void setup(void)
{
    static int registered;
    const char *dir;

    /* A failed check ends a case at once: its server goes here. */
    server_stop();
    if (!registered++)
        atexit(server_stop);
    dir = creds_env_reset();
    server_start(dir);
}

static void use_web_identity(void)
{
    char url[128];

    snprintf(url, sizeof url, "%s/sts", srv.base);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", srv.token_file, 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/eks-pod", 1);
    setenv("AWS_ROLE_SESSION_NAME", "test-session", 1);
    setenv("AWS_ENDPOINT_URL_STS", url, 1);
}

static void use_container(void)
{
    char url[128];

    snprintf(url, sizeof url, "%s/container/v2/credentials", srv.base);
    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", AUTH_TOKEN, 1);
}

static void use_imds(void)
{
    char url[128];

    snprintf(url, sizeof url, "%s/imds/", srv.base);
    unsetenv("AWS_EC2_METADATA_DISABLED");
    setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", url, 1);
}

static void check_temporary(const zb_s3_creds *c, const char *id,
                            const char *secret, const char *token)
{
    int64_t now = (int64_t)time(NULL) * 1000;

    ZBT_EQ_STR(c->access_key_id, id);
    ZBT_EQ_STR(c->secret_access_key, secret);
    ZBT_EQ_STR(c->session_token, token);
    ZBT_CHECK(c->expires_ms > now + 3000 * 1000);
}

static void test_s3_creds_remote__web_identity(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_web_identity();
    /* Later sources are configured too: web identity comes first. */
    use_container();
    use_imds();
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    check_temporary(&c, "ASIASTS1", "sts-secret-1", "sts-token-1");
    ZBT_EQ_STR(c.source, "web identity arn:aws:iam::123456789012:role/"
                         "eks-pod");
    ZBT_EQ_INT(server_count("sts"), 1);
    ZBT_EQ_INT(server_count("container"), 0);
    ZBT_EQ_INT(server_count("imds_token"), 0);
    server_stop();
}

static void test_s3_creds_remote__web_identity_wrong_token(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    char path[4096];

    setup();
    use_web_identity();
    /* The server expects its file's token; the client sends another. */
    snprintf(path, sizeof path, "%s/other-token", zbt_tmpdir());
    zbt_write_file(path, "eyJ.stale-secret.0", 18);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", path, 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "STS at http://127.0.0.1:");
    ZBT_CONTAINS(ctx.err.msg, "InvalidIdentityToken");
    ZBT_CONTAINS(ctx.err.msg, "HTTP 400");
    CREDS_NOT_IN(ctx.err.msg, "stale-secret");
    server_stop();
}

static void test_s3_creds_remote__web_identity_token_reread(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_web_identity();
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIASTS1");
    /* EKS rotates the file; the server checks against its new contents,
     * so a fetch that reused the old token would be refused. */
    zbt_write_file(srv.token_file, "eyJ.rotated.2\n", 14);
    zb_s3_creds_invalidate(p);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIASTS2");
    ZBT_EQ_INT(server_count("sts"), 2);
    zb_s3_creds_provider_free(p);
    server_stop();
}

static void test_s3_creds_remote__container(void)
{
    zb_s3_creds c;
    char want[160];
    zb_ctx ctx;

    setup();
    use_container();
    use_imds();
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    check_temporary(&c, "ASIACONTAINER1", "container-secret-1",
                    "container-token-1");
    snprintf(want, sizeof want, "container credentials (%s/container/v2/"
             "credentials)", srv.base);
    ZBT_EQ_STR(c.source, want);
    ZBT_EQ_INT(server_count("imds_token"), 0);
    server_stop();
}

static void test_s3_creds_remote__container_token_file(void)
{
    char path[4096];
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_container();
    /* The file wins over the variable (EKS Pod Identity rotates it). */
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong-auth-secret", 1);
    snprintf(path, sizeof path, "%s/auth", zbt_tmpdir());
    zbt_write_file(path, AUTH_TOKEN "\n", strlen(AUTH_TOKEN) + 1);
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", path, 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIACONTAINER1");
    server_stop();
}

static void test_s3_creds_remote__container_wrong_auth(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_container();
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong-auth-secret", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "container credentials at http://127.0.0.1:");
    ZBT_CONTAINS(ctx.err.msg, "HTTP 401");
    CREDS_NOT_IN(ctx.err.msg, "wrong-auth-secret");
    server_stop();
}

static void test_s3_creds_remote__imds(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_imds();
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    check_temporary(&c, "ASIAIMDS1", "imds-secret-1", "imds-token-1");
    ZBT_EQ_STR(c.source, "EC2 instance metadata (role test-role)");
    ZBT_EQ_INT(server_count("imds_token"), 1);
    ZBT_EQ_INT(server_count("imds"), 1);
    server_stop();
}

static void test_s3_creds_remote__imds_failing(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_imds();
    server_config("fail=imds");
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "EC2 instance metadata at http://127.0.0.1:");
    ZBT_CONTAINS(ctx.err.msg, "HTTP 500");
    server_stop();
}

/* Fetches with a lifetime of 5 min + 2 s, then asks again: cached at
 * first, fetched again once under 5 minutes remain. */
static void refresh_case(void (*use)(void), const char *kind,
                         const char *id1, const char *id2)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use();
    server_config("lifetime_s=302");
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, id1);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, id1);
    ZBT_EQ_INT(server_count(kind), 1);
    nap_ms(2300);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, id2);
    ZBT_EQ_INT(server_count(kind), 2);
    zb_s3_creds_provider_free(p);
    server_stop();
}

static void test_s3_creds_remote__refresh_web_identity(void)
{
    refresh_case(use_web_identity, "sts", "ASIASTS1", "ASIASTS2");
}

static void test_s3_creds_remote__refresh_container(void)
{
    refresh_case(use_container, "container", "ASIACONTAINER1",
                 "ASIACONTAINER2");
}

static void test_s3_creds_remote__refresh_imds(void)
{
    refresh_case(use_imds, "imds", "ASIAIMDS1", "ASIAIMDS2");
}

typedef struct racer {
    zb_s3_creds_provider *p;
    int rc;
    char id[64];
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    zb_s3_creds c;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    r->rc = zb_s3_creds_current(&c, r->p, &ctx);
    snprintf(r->id, sizeof r->id, "%s", c.access_key_id);
    return NULL;
}

static void test_s3_creds_remote__one_refresh_for_many_threads(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    pthread_t t[8];
    racer r[8];
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_container();
    server_config("lifetime_s=302");
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    nap_ms(2300);
    for (int i = 0; i < 8; i++) {
        r[i].p = p;
        ZBT_EQ_INT(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        ZBT_EQ_INT(r[i].rc, ZB_OK);
        /* The old keys (still valid) or the new ones, nothing else. */
        ZBT_CHECK(strcmp(r[i].id, "ASIACONTAINER1") == 0 ||
                  strcmp(r[i].id, "ASIACONTAINER2") == 0);
    }
    ZBT_EQ_INT(server_count("container"), 2);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIACONTAINER2");
    zb_s3_creds_provider_free(p);
    server_stop();
}

static void test_s3_creds_remote__failed_refresh_keeps_valid_keys(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_s3_creds c;
    zb_ctx ctx;

    setup();
    use_web_identity();
    server_config("lifetime_s=302");
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIASTS1");
    server_config("fail=sts");
    nap_ms(2300);
    /* The refresh fails; the old keys have 5 minutes left: kept. */
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIASTS1");
    ZBT_EQ_STR(ctx.err.msg, "");
    /* Once the store refused them, nothing is kept: the error comes. */
    zb_s3_creds_invalidate(p);
    ZBT_RC(zb_s3_creds_current(&c, p, &ctx), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "STS at ");
    ZBT_CONTAINS(ctx.err.msg, "HTTP 500");
    CREDS_NOT_IN(ctx.err.msg, "web-identity-secret");
    CREDS_NOT_IN(ctx.err.msg, "sts-secret");
    /* The endpoint is back: the next call fetches. */
    server_config("fail=");
    zb_err_clear(&ctx.err);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIASTS2");
    zb_s3_creds_provider_free(p);
    server_stop();
}

static void test_s3_creds_remote__endpoint_gone(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    char url[128];

    setup();
    snprintf(url, sizeof url, "%s/container/x", srv.base);
    server_stop();
    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", AUTH_TOKEN, 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "container credentials at http://127.0.0.1:");
    CREDS_NOT_IN(ctx.err.msg, AUTH_TOKEN);
}

const zbt_case test_s3_creds_remote[] = {
    ZBT_CASE(test_s3_creds_remote__web_identity),
    ZBT_CASE(test_s3_creds_remote__web_identity_wrong_token),
    ZBT_CASE(test_s3_creds_remote__web_identity_token_reread),
    ZBT_CASE(test_s3_creds_remote__container),
    ZBT_CASE(test_s3_creds_remote__container_token_file),
    ZBT_CASE(test_s3_creds_remote__container_wrong_auth),
    ZBT_CASE(test_s3_creds_remote__imds),
    ZBT_CASE(test_s3_creds_remote__imds_failing),
    ZBT_CASE(test_s3_creds_remote__refresh_web_identity),
    ZBT_CASE(test_s3_creds_remote__refresh_container),
    ZBT_CASE(test_s3_creds_remote__refresh_imds),
    ZBT_CASE(test_s3_creds_remote__one_refresh_for_many_threads),
    ZBT_CASE(test_s3_creds_remote__failed_refresh_keeps_valid_keys),
    ZBT_CASE(test_s3_creds_remote__endpoint_gone),
    ZBT_END
};

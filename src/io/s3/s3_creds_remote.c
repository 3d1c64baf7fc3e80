/*
 * io/s3/s3_creds_remote.c - the sources of s3_creds.h that ask an
 * endpoint: STS web identity (4), container credentials (5) and EC2
 * instance metadata, IMDSv2 (6).
 *
 * These are a handful of small unsigned requests, made when credentials
 * are first needed and again before they expire, so each is one libcurl
 * easy handle with its own timeouts rather than a request of the S3
 * connection pool (s3_http.h), which signs everything it sends. IMDS gets
 * a one-second connect timeout, so that a machine without it fails fast.
 * Proxies from the environment are not used for loopback and link-local
 * hosts (the container and metadata addresses): a proxy could not reach
 * them and must not see their tokens. Redirects are not followed.
 *
 * Messages name the endpoint (its URL without the query) and the HTTP
 * status; never a token, a key or a reply body, which may echo them.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_creds_int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/err.h"
#include "util/file.h"

#define TOKEN_FILE_MAX (64u * 1024u)
#define IMDS_DEFAULT "http://169.254.169.254"
#define CONTAINER_HOST "http://169.254.170.2"

typedef struct http_req {
    const char *method;              /* "GET", "PUT", "POST" */
    const char *url;
    const char *what;                /* names the endpoint in messages */
    struct curl_slist *headers;
    const char *body;                /* NULL: none */
    size_t body_len;
    long connect_timeout_ms;
    long timeout_ms;
} http_req;

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
    zb_buf *b = user;

    if (zb_buf_append(b, data, size * n) != ZB_OK)
        return 0;                    /* past the cap: CURLE_WRITE_ERROR */
    return size * n;
}

/* The host of url as curl parses it; "" when it cannot. */
static void url_host(char *out, size_t size, const char *url)
{
    CURLU *u = curl_url();
    char *host = NULL;

    out[0] = '\0';
    if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
        snprintf(out, size, "%s", host);
    curl_free(host);
    curl_url_cleanup(u);
}

static int host_is_loopback(const char *h)
{
    return strcmp(h, "localhost") == 0 || strncmp(h, "127.", 4) == 0 ||
           strcmp(h, "[::1]") == 0 || strcmp(h, "::1") == 0;
}

/* The addresses ECS and EKS Pod Identity serve container credentials on. */
static int host_is_container_agent(const char *h)
{
    return strcmp(h, "169.254.170.2") == 0 ||
           strcmp(h, "169.254.170.23") == 0 ||
           strcmp(h, "[fd00:ec2::23]") == 0;
}

static int is_http(const char *url)
{
    return strncmp(url, "http://", 7) == 0;
}

static int is_https(const char *url)
{
    return strncmp(url, "https://", 8) == 0;
}

/* "what at URL" without the query, for messages. */
static void endpoint_name(char *out, size_t size, const char *what,
                          const char *url)
{
    size_t n = strcspn(url, "?#");

    snprintf(out, size, "%s at %.*s", what, (int)(n > 300 ? 300 : n), url);
}

/*
 * Sends one request. *status is the HTTP status, or 0 with *no_answer set
 * when the endpoint could not be reached (refused, timed out, no route).
 * ZB_OK once a status came back, whatever it is; ZB_EIO otherwise.
 */
static int http_do(zb_buf *reply, long *status, int *no_answer, zb_ctx *ctx,
                   const http_req *r)
{
    char errbuf[CURL_ERROR_SIZE] = "", host[256];
    CURL *h;
    CURLcode cc;
    int rc = ZB_OK;

    *status = 0;
    *no_answer = 0;
    zb_buf_clear(reply);
    if ((h = curl_easy_init()) == NULL)
        return zb_fail(ctx, ZB_ENOMEM, "%s: cannot start libcurl", r->what);
    url_host(host, sizeof host, r->url);
    curl_easy_setopt(h, CURLOPT_URL, r->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, r->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, reply);
    if (r->headers != NULL)
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, r->headers);
    if (host_is_loopback(host) || host_is_container_agent(host) ||
        strncmp(host, "169.254.", 8) == 0)
        curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    if (strcmp(r->method, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body ? r->body : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)r->body_len);
    } else if (strcmp(r->method, "PUT") == 0) {
        /* A PUT without a body: a POST of nothing, renamed. */
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    }
    cc = curl_easy_perform(h);
    if (cc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    } else {
        *no_answer = cc == CURLE_COULDNT_CONNECT ||
                     cc == CURLE_OPERATION_TIMEDOUT ||
                     cc == CURLE_COULDNT_RESOLVE_HOST;
        rc = zb_fail(ctx, cc == CURLE_OPERATION_TIMEDOUT ? ZB_ETIMEOUT
                                                         : ZB_EIO,
                     "%s: %s", r->what,
                     errbuf[0] ? errbuf : curl_easy_strerror(cc));
    }
    curl_easy_cleanup(h);
    return rc;
}

/* A token file's contents without the trailing newline; a file is how
 * EKS hands tokens out and rotates them, so it is read at every fetch. */
static int read_token_file(zb_buf *out, zb_ctx *ctx, const char *var,
                           const char *path)
{
    int rc = zb_file_read_capped(out, NULL, ctx, path, TOKEN_FILE_MAX, 0);

    if (rc < 0)
        return zb_err_prefix(ctx, "%s", var);
    while (out->len > 0 && strchr(" \t\r\n", out->ptr[out->len - 1]))
        zb_buf_truncate(out, out->len - 1);
    if (out->len == 0)
        return zb_fail(ctx, ZB_EUSAGE, "%s: %s is empty", var, path);
    if (strlen(out->ptr) != out->len || strpbrk(out->ptr, "\r\n") != NULL)
        return zb_fail(ctx, ZB_EUSAGE,
                       "%s: %s holds more than one line of text", var, path);
    return ZB_OK;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *env_nonempty(const char *name)
{
    const char *v = getenv(name);

    return v != NULL && v[0] != '\0' ? v : NULL;
}

/* Appends k=escaped(v) to a form body. */
static int form_add(zb_buf *body, CURL *esc, const char *k, const char *v)
{
    char *e = curl_easy_escape(esc, v, 0);
    int rc;

    if (e == NULL)
        return ZB_ENOMEM;
    rc = zb_buf_appendf(body, "%s%s=%s", body->len ? "&" : "", k, e);
    zb_s3_creds__wipe(e, strlen(e));
    curl_free(e);
    return rc;
}

/* --- 4. web identity ------------------------------------------------- */

static int sts_body(zb_buf *body, zb_ctx *ctx, const char *role,
                    const char *session, const char *token)
{
    CURL *esc = curl_easy_init();
    int rc;

    if (esc == NULL)
        return zb_fail_oom(ctx);
    rc = form_add(body, esc, "Action", "AssumeRoleWithWebIdentity");
    if (rc == ZB_OK)
        rc = form_add(body, esc, "Version", "2011-06-15");
    if (rc == ZB_OK)
        rc = form_add(body, esc, "RoleArn", role);
    if (rc == ZB_OK)
        rc = form_add(body, esc, "RoleSessionName", session);
    if (rc == ZB_OK)
        rc = form_add(body, esc, "WebIdentityToken", token);
    curl_easy_cleanup(esc);
    return rc == ZB_OK ? ZB_OK : zb_fail_oom(ctx);
}

int zb_s3_creds__from_web_identity(zb_s3_creds *out, zb_ctx *ctx,
                                   zb_buf *tried)
{
    const char *token_file = env_nonempty("AWS_WEB_IDENTITY_TOKEN_FILE");
    const char *role = env_nonempty("AWS_ROLE_ARN");
    const char *session = env_nonempty("AWS_ROLE_SESSION_NAME");
    const char *endpoint = env_nonempty("AWS_ENDPOINT_URL_STS");
    const char *region = env_nonempty("AWS_REGION");
    zb_buf token = ZB_BUF_INIT(TOKEN_FILE_MAX);
    zb_buf body = ZB_BUF_INIT(4 * TOKEN_FILE_MAX);
    zb_buf reply = ZB_BUF_INIT(ZB_S3_CREDS_MAX_REPLY);
    char url[1024], what[400], session_buf[64], host[256];
    http_req req = { 0 };
    long status;
    int rc, no_answer;

    if (token_file == NULL) {
        zb_buf_puts(tried, ", web identity (no AWS_WEB_IDENTITY_TOKEN_FILE)");
        return 0;
    }
    if (role == NULL)
        return zb_fail(ctx, ZB_EUSAGE,
                       "S3 credentials: AWS_WEB_IDENTITY_TOKEN_FILE is set "
                       "but AWS_ROLE_ARN is not");
    if (region == NULL)
        region = env_nonempty("AWS_DEFAULT_REGION");
    if (endpoint != NULL)
        snprintf(url, sizeof url, "%s", endpoint);
    else if (region != NULL)
        snprintf(url, sizeof url, "https://sts.%s.amazonaws.com/", region);
    else
        snprintf(url, sizeof url, "https://sts.amazonaws.com/");
    endpoint_name(what, sizeof what, "STS", url);
    url_host(host, sizeof host, url);
    if (!is_https(url) && !(is_http(url) && host_is_loopback(host)))
        return zb_fail(ctx, ZB_EUSAGE,
                       "%s: the web identity token goes only over https "
                       "(plain http only to a loopback address)", what);
    if (session == NULL) {
        snprintf(session_buf, sizeof session_buf, "zamboni-%lld",
                 (long long)now_ms());
        session = session_buf;
    }
    if ((rc = read_token_file(&token, ctx, "AWS_WEB_IDENTITY_TOKEN_FILE",
                              token_file)) < 0)
        goto done;
    if ((rc = sts_body(&body, ctx, role, session, token.ptr)) < 0)
        goto done;
    req.method = "POST";
    req.url = url;
    req.what = what;
    req.body = body.ptr;
    req.body_len = body.len;
    req.connect_timeout_ms = 5000;
    req.timeout_ms = 30000;
    req.headers = curl_slist_append(NULL, "Content-Type: "
                                    "application/x-www-form-urlencoded");
    if (req.headers == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = http_do(&reply, &status, &no_answer, ctx, &req);
    curl_slist_free_all(req.headers);
    if (rc < 0)
        goto done;
    if (status != 200) {
        zb_ctx scratch;

        /* The Code of STS's ErrorResponse says why; nothing else of the
         * reply goes into the message. */
        zb_ctx_init(&scratch);
        scratch.log = ctx->log;
        if (zb_s3_creds__parse_sts(out, &scratch, what,
                                   reply.ptr ? reply.ptr : "", reply.len) ==
            ZB_EUSAGE)
            rc = zb_fail(ctx, ZB_EUSAGE, "%s (HTTP %ld)", scratch.err.msg,
                         status);
        else
            rc = zb_fail(ctx, ZB_EIO, "%s: HTTP %ld", what, status);
        zb_s3_creds__wipe(out, sizeof *out);
        goto done;
    }
    if ((rc = zb_s3_creds__parse_sts(out, ctx, what,
                                     reply.ptr ? reply.ptr : "",
                                     reply.len)) < 0)
        goto done;
    snprintf(out->source, sizeof out->source, "web identity %s", role);
    rc = 1;
done:
    zb_s3_creds__buf_wipe_free(&token);
    zb_s3_creds__buf_wipe_free(&body);
    zb_s3_creds__buf_wipe_free(&reply);
    return rc;
}

/* --- 5. container credentials ---------------------------------------- */

/* The Authorization header: the token file first (EKS Pod Identity
 * rotates it), else the variable. "" in out when neither is set. */
static int container_auth(zb_buf *out, zb_ctx *ctx)
{
    const char *file = env_nonempty("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    const char *tok = env_nonempty("AWS_CONTAINER_AUTHORIZATION_TOKEN");
    zb_buf text = ZB_BUF_INIT(TOKEN_FILE_MAX);
    int rc = ZB_OK;

    if (file != NULL) {
        rc = read_token_file(&text, ctx,
                             "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", file);
        tok = text.ptr;
    }
    if (rc == ZB_OK && tok != NULL) {
        if (strpbrk(tok, "\r\n") != NULL)
            rc = zb_fail(ctx, ZB_EUSAGE, "AWS_CONTAINER_AUTHORIZATION_TOKEN "
                         "holds a line break");
        else if (zb_buf_appendf(out, "Authorization: %s", tok) != ZB_OK)
            rc = zb_fail_oom(ctx);
    }
    zb_s3_creds__buf_wipe_free(&text);
    return rc;
}

int zb_s3_creds__from_container(zb_s3_creds *out, zb_ctx *ctx,
                                zb_buf *tried)
{
    const char *rel = env_nonempty("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    const char *full = env_nonempty("AWS_CONTAINER_CREDENTIALS_FULL_URI");
    zb_buf auth = ZB_BUF_INIT(TOKEN_FILE_MAX + 64);
    zb_buf reply = ZB_BUF_INIT(ZB_S3_CREDS_MAX_REPLY);
    char url[2048], what[400], host[256];
    http_req req = { 0 };
    long status;
    int rc, no_answer;

    if (rel == NULL && full == NULL) {
        zb_buf_puts(tried, ", container (no AWS_CONTAINER_CREDENTIALS_"
                           "FULL_URI or _RELATIVE_URI)");
        return 0;
    }
    if (rel != NULL)
        snprintf(url, sizeof url, "%s%s%s", CONTAINER_HOST,
                 rel[0] == '/' ? "" : "/", rel);
    else
        snprintf(url, sizeof url, "%s", full);
    endpoint_name(what, sizeof what, "container credentials", url);
    url_host(host, sizeof host, url);
    if (!is_https(url) &&
        !(is_http(url) && (host_is_loopback(host) ||
                           host_is_container_agent(host))))
        return zb_fail(ctx, ZB_EUSAGE,
                       "%s: AWS_CONTAINER_CREDENTIALS_FULL_URI must be https, "
                       "or http to a loopback or container agent address",
                       what);
    if ((rc = container_auth(&auth, ctx)) < 0)
        goto done;
    req.method = "GET";
    req.url = url;
    req.what = what;
    req.connect_timeout_ms = 2000;
    req.timeout_ms = 10000;
    if (auth.len > 0 &&
        (req.headers = curl_slist_append(NULL, auth.ptr)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = http_do(&reply, &status, &no_answer, ctx, &req);
    if (req.headers != NULL) {
        zb_s3_creds__wipe(req.headers->data, strlen(req.headers->data));
        curl_slist_free_all(req.headers);
    }
    if (rc < 0)
        goto done;
    if (status != 200) {
        rc = zb_fail(ctx, status == 401 || status == 403 ? ZB_EUSAGE : ZB_EIO,
                     "%s: HTTP %ld%s", what, status,
                     status == 401 || status == 403
                         ? " (check AWS_CONTAINER_AUTHORIZATION_TOKEN"
                           "(_FILE))"
                         : "");
        goto done;
    }
    if ((rc = zb_s3_creds__parse_json(out, ctx, what,
                                      reply.ptr ? reply.ptr : "", reply.len,
                                      0)) < 0)
        goto done;
    snprintf(out->source, sizeof out->source, "container credentials (%.130s)",
             what + strlen("container credentials at "));
    rc = 1;
done:
    zb_s3_creds__buf_wipe_free(&auth);
    zb_s3_creds__buf_wipe_free(&reply);
    return rc;
}

/* --- 6. EC2 instance metadata, IMDSv2 --------------------------------- */

static int imds_disabled(void)
{
    const char *v = getenv("AWS_EC2_METADATA_DISABLED");

    return v != NULL && (strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0 ||
                         strcmp(v, "True") == 0 || strcmp(v, "1") == 0);
}

/* A role name as IAM allows it: no path separators, no control bytes. */
static int role_name_ok(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > 128)
        return 0;
    for (; *s != '\0'; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f ||
            *s == '/' || *s == '?' || *s == '#' || *s == '%')
            return 0;
    return 1;
}

/* One GET of the metadata service with the session token. */
static int imds_get(zb_buf *reply, long *status, zb_ctx *ctx,
                    const char *url, const char *what, const char *token)
{
    http_req req = { 0 };
    zb_buf hdr = ZB_BUF_INIT(4096);
    int rc, no_answer;

    if (zb_buf_appendf(&hdr, "X-aws-ec2-metadata-token: %s", token) !=
            ZB_OK ||
        (req.headers = curl_slist_append(NULL, hdr.ptr)) == NULL) {
        zb_s3_creds__buf_wipe_free(&hdr);
        return zb_fail_oom(ctx);
    }
    req.method = "GET";
    req.url = url;
    req.what = what;
    req.connect_timeout_ms = 1000;
    req.timeout_ms = 5000;
    rc = http_do(reply, status, &no_answer, ctx, &req);
    zb_s3_creds__wipe(req.headers->data, strlen(req.headers->data));
    curl_slist_free_all(req.headers);
    zb_s3_creds__buf_wipe_free(&hdr);
    return rc;
}

int zb_s3_creds__from_imds(zb_s3_creds *out, zb_ctx *ctx, zb_buf *tried)
{
    const char *base_env = env_nonempty("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    zb_buf token = ZB_BUF_INIT(4096);
    zb_buf reply = ZB_BUF_INIT(ZB_S3_CREDS_MAX_REPLY);
    char base[512], url[1024], what[700], role[160];
    http_req req = { 0 };
    long status;
    size_t n;
    int rc, no_answer;

    if (imds_disabled()) {
        zb_buf_puts(tried, ", EC2 instance metadata (AWS_EC2_METADATA_"
                           "DISABLED)");
        return 0;
    }
    snprintf(base, sizeof base, "%s", base_env ? base_env : IMDS_DEFAULT);
    n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        base[--n] = '\0';
    snprintf(url, sizeof url, "%s/latest/api/token", base);
    endpoint_name(what, sizeof what, "EC2 instance metadata", url);
    req.method = "PUT";
    req.url = url;
    req.what = what;
    req.connect_timeout_ms = 1000;
    req.timeout_ms = 2000;
    req.headers = curl_slist_append(NULL, "X-aws-ec2-metadata-token-ttl-"
                                          "seconds: 21600");
    if (req.headers == NULL)
        return zb_fail_oom(ctx);
    rc = http_do(&token, &status, &no_answer, ctx, &req);
    curl_slist_free_all(req.headers);
    if (rc < 0 && no_answer) {
        /* Not on EC2 (or IMDS turned off): the chain found nothing. */
        zb_err_clear(&ctx->err);
        zb_buf_appendf(tried, ", EC2 instance metadata (no answer at %s)",
                       base);
        rc = 0;
        goto done;
    }
    if (rc < 0)
        goto done;
    if (status == 403 || status == 404 || status == 405) {
        zb_buf_appendf(tried, ", EC2 instance metadata (HTTP %ld at %s)",
                       status, base);
        rc = 0;
        goto done;
    }
    if (status != 200 || token.len == 0 || token.len > 1024 ||
        strlen(token.ptr) != token.len || strpbrk(token.ptr, "\r\n")) {
        rc = zb_fail(ctx, ZB_EIO, "%s: HTTP %ld%s", what, status,
                     status == 200 ? ", not a token" : "");
        goto done;
    }
    snprintf(url, sizeof url, "%s/latest/meta-data/iam/security-credentials/",
             base);
    endpoint_name(what, sizeof what, "EC2 instance metadata", url);
    if ((rc = imds_get(&reply, &status, ctx, url, what, token.ptr)) < 0)
        goto done;
    if (status == 404) {
        zb_buf_puts(tried, ", EC2 instance metadata (no IAM role)");
        rc = 0;
        goto done;
    }
    n = reply.ptr ? strcspn(reply.ptr, "\r\n") : 0;
    if (status != 200 || n == 0 || n >= sizeof role ||
        (memcpy(role, reply.ptr, n), role[n] = '\0', !role_name_ok(role))) {
        rc = zb_fail(ctx, ZB_EIO, "%s: HTTP %ld%s", what, status,
                     status == 200 ? ", not a role name" : "");
        goto done;
    }
    snprintf(url, sizeof url,
             "%s/latest/meta-data/iam/security-credentials/%s", base, role);
    endpoint_name(what, sizeof what, "EC2 instance metadata", url);
    if ((rc = imds_get(&reply, &status, ctx, url, what, token.ptr)) < 0)
        goto done;
    if (status != 200) {
        rc = zb_fail(ctx, ZB_EIO, "%s: HTTP %ld", what, status);
        goto done;
    }
    if ((rc = zb_s3_creds__parse_json(out, ctx, what,
                                      reply.ptr ? reply.ptr : "", reply.len,
                                      1)) < 0)
        goto done;
    snprintf(out->source, sizeof out->source,
             "EC2 instance metadata (role %s)", role);
    rc = 1;
done:
    zb_s3_creds__buf_wipe_free(&token);
    zb_s3_creds__buf_wipe_free(&reply);
    return rc;
}

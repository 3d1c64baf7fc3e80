/*
 * catalog/rest/catalog_rest_http.c - the REST catalog's HTTP layer on libcurl:
 * one request at a time per catalog handle, with auth, retries and the
 * mapping of failures to return codes. The only file that sees libcurl.
 *
 *   zb_rest__init / zb_rest__fini   the easy handle (reused, so that
 *                                   connections are kept alive) and lock
 *   zb_rest__request                send, retry, map the result
 *   zb_rest__fetch_token            OAuth2 client credentials
 *   zb_rest__url_escape             RFC 3986 percent-encoding
 *
 * Retries (open-api/rest-catalog-open-api.yaml, ServiceUnavailable and
 * CommitStateUnknown responses):
 *   - a network error before the request went out (connection refused,
 *     name not resolved, connect timeout): every kind of request;
 *   - 429: every kind (the server refused before doing anything);
 *   - 503: reads; writes and commits only when Retry-After is present;
 *   - other 5xx and network errors after sending: reads only.
 * A commit whose request may have been received is never sent again: a
 * 5xx or a broken or timed-out exchange after sending is ZB_ETIMEOUT
 * (outcome unknown); writes and commits go out on a fresh connection,
 * since libcurl itself resends a request when a reused connection dies
 * before the reply. Waits grow as 50 ms << attempt up to 5 s, half fixed
 * and half random (jitter), and are at least the server's Retry-After
 * (seconds or an HTTP date, capped at 60 s). The stop flag ends a wait.
 *
 * Auth: a static bearer token (cfg->token), or OAuth2 client credentials
 * posted as a form to the token endpoint; the token is fetched again when
 * four fifths of its expires_in have passed, and once after a 401 or 419.
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog/catalog_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int zb_rest__init(zb_rest *r, zb_ctx *ctx)
{
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK)
        return zb_fail(ctx, ZB_EIO, "libcurl failed to initialise: %s",
                       curl_easy_strerror(curl_init_rc));
    if (!(r->curl = curl_easy_init()))
        return zb_fail(ctx, ZB_ENOMEM, "libcurl: no easy handle");
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        curl_easy_cleanup(r->curl);
        r->curl = NULL;
        return zb_fail(ctx, ZB_ERROR, "cannot create a mutex");
    }
    r->rng = (uint64_t)zb_catalog__now_ms() * 0x9E3779B97F4A7C15ull
             ^ (uint64_t)(uintptr_t)r;
    return ZB_OK;
}

void zb_rest__fini(zb_rest *r)
{
    if (r->curl) {
        curl_easy_cleanup(r->curl);
        pthread_mutex_destroy(&r->lock);
        r->curl = NULL;
    }
}

int zb_rest__url_escape(zb_buf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
            || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'
            || c == '~') {
            if (zb_buf_putc(out, (char)c) < 0)
                return ZB_ENOMEM;
        } else {
            char e[3] = { '%', hex[c >> 4], hex[c & 15] };
            if (zb_buf_append(out, e, 3) < 0)
                return ZB_ENOMEM;
        }
    }
    return ZB_OK;
}

/* State of one exchange, filled by the callbacks. */
typedef struct exchange {
    zb_rest_resp *resp;
    int too_big;
} exchange;

static size_t on_body(char *data, size_t size, size_t n, void *p)
{
    exchange *x = p;

    if (zb_buf_append(&x->resp->body, data, size * n) < 0) {
        /* 1: over the cap; 2: the allocation failed */
        x->too_big = size * n > x->resp->body.max_bytes - x->resp->body.len
                         ? 1 : 2;
        return 0;    /* CURLE_WRITE_ERROR */
    }
    return size * n;
}

static size_t on_header(char *data, size_t size, size_t n, void *p)
{
    exchange *x = p;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    char value[64];
    size_t i, vlen;

    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
        x->resp->retry_after_ms = -1;   /* a new status line */
        return len;
    }
    if (len <= sizeof(name) - 1)
        return len;
    for (i = 0; i < sizeof(name) - 1; i++) {
        char c = data[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != name[i])
            return len;
    }
    while (i < len && (data[i] == ' ' || data[i] == '\t'))
        i++;
    vlen = len - i;
    while (vlen > 0 && (data[i + vlen - 1] == '\r'
                        || data[i + vlen - 1] == '\n'
                        || data[i + vlen - 1] == ' '))
        vlen--;
    if (vlen == 0 || vlen >= sizeof(value))
        return len;
    memcpy(value, data + i, vlen);
    value[vlen] = '\0';
    if (value[0] >= '0' && value[0] <= '9') {
        long long secs = 0;
        for (i = 0; value[i] >= '0' && value[i] <= '9' && secs < 1000000; i++)
            secs = secs * 10 + (value[i] - '0');
        x->resp->retry_after_ms = (long)(secs * 1000);
    } else {
        time_t when = curl_getdate(value, NULL);
        if (when != (time_t)-1) {
            long long ms = ((long long)when * 1000) - zb_catalog__now_ms();
            x->resp->retry_after_ms = ms < 0 ? 0 : (long)(ms > 86400000LL
                                                        ? 86400000LL : ms);
        }
    }
    return len;
}

typedef enum outcome {
    OUT_REPLY,          /* an HTTP status arrived */
    OUT_BAD_URL,
    OUT_TOO_BIG,
    OUT_NOT_SENT,       /* failed before the request went out */
    OUT_SENT_FAILED,    /* failed after it may have been received */
    OUT_OOM,            /* before sending */
    OUT_OOM_READING     /* while reading the reply */
} outcome;

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *n = curl_slist_append(*list, line);

    if (!n)
        return ZB_ENOMEM;
    *list = n;
    return ZB_OK;
}

/* One exchange. Sets *timed_out when curl reports a timeout. */
static outcome perform_once(zb_rest *r, const zb_rest_req *req,
                            zb_rest_resp *resp, char *errbuf, int *timed_out)
{
    CURL *h = r->curl;
    struct curl_slist *hdrs = NULL;
    exchange x = { resp, 0 };
    zb_buf line = ZB_BUF_INIT(16384);
    outcome out = OUT_OOM;
    CURLcode cc;
    curl_off_t pre = 0;
    size_t i;

    *timed_out = 0;
    errbuf[0] = '\0';
    zb_buf_clear(&resp->body);
    resp->status = 0;
    resp->retry_after_ms = -1;
    curl_easy_reset(h);

    if (add_header(&hdrs, "Accept: application/json") < 0
        || add_header(&hdrs, "Expect:") < 0
        || add_header(&hdrs, "User-Agent: zamboni/" ZB_VERSION_STRING) < 0
        || add_header(&hdrs, "X-Iceberg-Access-Delegation: "
                             "vended-credentials") < 0)
        goto done;
    if (req->body) {
        zb_buf_clear(&line);
        if (zb_buf_appendf(&line, "Content-Type: %s",
                           req->content_type ? req->content_type
                                             : "application/json") < 0
            || add_header(&hdrs, zb_buf_cstr(&line)) < 0)
            goto done;
    }
    if (!req->no_auth && r->token) {
        zb_buf_clear(&line);
        if (zb_buf_appendf(&line, "Authorization: Bearer %s", r->token) < 0
            || add_header(&hdrs, zb_buf_cstr(&line)) < 0)
            goto done;
    }
    for (i = 0; i < r->n_headers; i++) {
        zb_buf_clear(&line);
        if (zb_buf_appendf(&line, "%s: %s", r->headers[i].key,
                           r->headers[i].value) < 0
            || add_header(&hdrs, zb_buf_cstr(&line)) < 0)
            goto done;
    }

    curl_easy_setopt(h, CURLOPT_URL, req->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     r->timeout_ms < 10000 ? r->timeout_ms : 10000L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    if (req->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)req->body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
    }
    /* libcurl sends a request again by itself when a reused connection
     * dies before any reply byte; the server may have received it, so
     * writes and commits take a new connection each. */
    if (req->kind != ZB_REST_READ)
        curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
    if (strcmp(req->method, "GET") == 0)
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    else if (strcmp(req->method, "POST") != 0 || !req->body)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);

    cc = curl_easy_perform(h);
    r->n_requests++;
    if (cc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
        out = OUT_REPLY;
        goto done;
    }
    if (!errbuf[0])
        snprintf(errbuf, CURL_ERROR_SIZE, "%s", curl_easy_strerror(cc));
    {
        long os_errno = 0;
        size_t n = strlen(errbuf);
        curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno != 0 && n + 4 < CURL_ERROR_SIZE) {
            char reason[96];
            if (strerror_r((int)os_errno, reason, sizeof(reason)) == 0)
                snprintf(errbuf + n, CURL_ERROR_SIZE - n, " (%s)", reason);
        }
    }
    *timed_out = cc == CURLE_OPERATION_TIMEDOUT;
    if (x.too_big)
        out = x.too_big == 1 ? OUT_TOO_BIG : OUT_OOM_READING;
    else if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL)
        out = OUT_BAD_URL;
    else if (cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_CONNECT
             || cc == CURLE_COULDNT_RESOLVE_PROXY)
        out = OUT_NOT_SENT;
    else {
        /* Timeouts and errors before the transfer began leave the
         * request unsent; from then on the server may have it. */
        curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre);
        out = pre > 0 ? OUT_SENT_FAILED : OUT_NOT_SENT;
    }
done:
    curl_slist_free_all(hdrs);
    zb_buf_free(&line);
    return out;
}

static uint64_t next_random(zb_rest *r)
{
    /* xorshift64*: jitter only, not security. */
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return r->rng * 0x2545F4914F6CDD1Dull;
}

/* Waits before retry number attempt (0-based); ZB_ECANCELED on stop. */
static int backoff(zb_rest *r, zb_ctx *ctx, int attempt, long retry_after_ms)
{
    long step = ZB_REST_BACKOFF_BASE_MS, wait_ms;
    int i;

    for (i = 0; i < attempt && step < ZB_REST_BACKOFF_MAX_MS; i++)
        step *= 2;
    if (step > ZB_REST_BACKOFF_MAX_MS)
        step = ZB_REST_BACKOFF_MAX_MS;
    wait_ms = step / 2 + (long)(next_random(r) % (uint64_t)(step / 2 + 1));
    if (retry_after_ms > wait_ms)
        wait_ms = retry_after_ms > ZB_REST_RETRY_AFTER_MAX_MS
                      ? ZB_REST_RETRY_AFTER_MAX_MS
                      : retry_after_ms;
    while (wait_ms > 0) {
        long slice = wait_ms < 50 ? wait_ms : 50;
        struct timespec ts = { 0, slice * 1000000L };
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "stopped while waiting to "
                                              "retry");
        nanosleep(&ts, NULL);
        wait_ms -= slice;
    }
    return ZB_OK;
}

static const char *status_reason(long status)
{
    switch (status) {
    case 400: return "bad request";
    case 401: return "not authorized";
    case 403: return "forbidden";
    case 404: return "not found";
    case 406: return "not acceptable (unsupported operation)";
    case 409: return "conflict";
    case 419: return "credentials timed out";
    case 429: return "too many requests";
    case 500: return "internal server error";
    case 501: return "not implemented";
    case 502: return "bad gateway";
    case 503: return "service unavailable";
    case 504: return "gateway timeout";
    default: return status >= 500 ? "server error" : "client error";
    }
}

/* The rc and message of a non-2xx reply that is not retried. */
static int fail_status(zb_ctx *ctx, const zb_rest_req *req,
                       const zb_rest_resp *resp)
{
    char text[160];
    long s = resp->status;
    int code;
    const char *note = "";

    zb_rest__error_text(text, sizeof(text), resp->body.ptr, resp->body.len);
    if (s == 400)
        code = ZB_EINVAL;
    else if (s == 401 || s == 403 || s == 419)
        code = ZB_EREFUSED;
    else if (s == 404)
        code = ZB_ENOTFOUND;
    else if (s == 406 || s == 501)
        code = ZB_EUNSUPPORTED;
    else if (s == 409)
        code = req->kind == ZB_REST_COMMIT ? ZB_ECONFLICT : ZB_EEXISTS;
    else if (s == 429)
        code = ZB_EIO;
    else if (s >= 500 && req->kind == ZB_REST_COMMIT) {
        code = ZB_ETIMEOUT;
        note = " (commit outcome unknown)";
    } else if (s >= 500)
        code = ZB_EIO;
    else
        code = ZB_ERROR;
    return zb_fail(ctx, code, "%s (%s %s): HTTP %ld %s%s: %s", req->what,
                   req->method, req->url, s, status_reason(s), note, text);
}

static int retryable_status(const zb_rest_req *req, const zb_rest_resp *resp)
{
    long s = resp->status;

    if (s == 429)
        return 1;
    if (s == 503)
        return req->kind == ZB_REST_READ || resp->retry_after_ms >= 0;
    return s >= 500 && s < 600 && req->kind == ZB_REST_READ;
}

static int request_locked(zb_rest *r, zb_ctx *ctx, const zb_rest_req *req,
                          zb_rest_resp *resp);

int zb_rest__fetch_token(zb_rest *r, zb_ctx *ctx)
{
    zb_buf form = ZB_BUF_INIT(65536);
    zb_rest_resp resp = { 0, ZB_BUF_INIT(1 << 20), -1 };
    zb_rest_req req;
    json_t *doc = NULL;
    const char *colon = r->credential ? strchr(r->credential, ':') : NULL;
    char *id = NULL, *tok = NULL;
    long expires_in = -1;
    char what[64];
    int rc;

    if (!r->credential)
        return zb_fail(ctx, ZB_EREFUSED, "no OAuth2 credential configured");
    id = colon ? zb_strndup(r->credential, (size_t)(colon - r->credential))
               : zb_strdup(r->credential);
    if (!id) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (zb_buf_puts(&form, "grant_type=client_credentials&client_id=") < 0
        || zb_rest__url_escape(&form, id) < 0
        || (colon && (zb_buf_puts(&form, "&client_secret=") < 0
                      || zb_rest__url_escape(&form, colon + 1) < 0))
        || zb_buf_puts(&form, "&scope=") < 0
        || zb_rest__url_escape(&form, r->scope) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    snprintf(what, sizeof(what), "OAuth2 token request");
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.url = r->oauth_uri;
    req.body = form.ptr;
    req.body_len = form.len;
    req.content_type = "application/x-www-form-urlencoded";
    req.kind = ZB_REST_READ;   /* asking again is harmless */
    req.what = what;
    req.no_auth = 1;
    r->n_token_fetches++;
    if ((rc = request_locked(r, ctx, &req, &resp)) < 0)
        goto done;
    if ((rc = zb_rest__parse_object(&doc, ctx, r->oauth_uri, resp.body.ptr,
                                    resp.body.len)) < 0
        || (rc = zb_rest__parse_token(&tok, &expires_in, ctx, r->oauth_uri,
                                      doc)) < 0)
        goto done;
    zb_free(r->token);
    r->token = tok;
    tok = NULL;
    r->token_refresh_ms = expires_in < 0
                              ? INT64_MAX
                              : zb_catalog__now_ms()
                                    + (int64_t)expires_in * 800;
done:
    json_decref(doc);
    zb_free(tok);
    zb_free(id);
    zb_buf_free(&form);
    zb_buf_free(&resp.body);
    return rc;
}

static int request_locked(zb_rest *r, zb_ctx *ctx, const zb_rest_req *req,
                          zb_rest_resp *resp)
{
    char errbuf[CURL_ERROR_SIZE];
    int attempt = 0, reauthed = 0, timed_out = 0, rc;
    /* A commit sent again after a 5xx reply: the first may have been
     * partly processed (the REST spec warns of it), so a conflict now
     * may be with our own commit. */
    int resent_after_5xx = 0;
    outcome out;

    for (;;) {
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "%s: stopped", req->what);
        if (!req->no_auth && r->credential
            && (!r->token || zb_catalog__now_ms() >= r->token_refresh_ms)) {
            if ((rc = zb_rest__fetch_token(r, ctx)) < 0)
                return rc;
        }
        out = perform_once(r, req, resp, errbuf, &timed_out);
        switch (out) {
        case OUT_OOM:
            return zb_fail_oom(ctx);
        case OUT_OOM_READING:
        case OUT_TOO_BIG:
            if (req->kind != ZB_REST_READ)
                return zb_fail(ctx, ZB_ETIMEOUT,
                               "%s (%s %s): the reply could not be read (%s); "
                               "outcome unknown", req->what, req->method,
                               req->url, out == OUT_TOO_BIG
                                             ? "too large" : "out of memory");
            if (out == OUT_OOM_READING)
                return zb_fail_oom(ctx);
            return zb_fail(ctx, ZB_ENOMEM,
                           "%s (%s %s): reply larger than %zu bytes",
                           req->what, req->method, req->url,
                           resp->body.max_bytes);
        case OUT_BAD_URL:
            return zb_fail(ctx, ZB_EUSAGE, "%s: bad URL \"%s\": %s",
                           req->what, req->url, errbuf);
        case OUT_NOT_SENT:
            if (attempt < r->max_retries)
                break;
            return zb_fail(ctx, timed_out ? ZB_ETIMEOUT : ZB_EIO,
                           "%s (%s %s): cannot reach the server after %d "
                           "attempts: %s", req->what, req->method, req->url,
                           attempt + 1, errbuf);
        case OUT_SENT_FAILED:
            if (req->kind == ZB_REST_READ && attempt < r->max_retries)
                break;
            if (req->kind != ZB_REST_READ)
                return zb_fail(ctx, ZB_ETIMEOUT,
                               "%s (%s %s): %s after the request was sent; "
                               "outcome unknown", req->what, req->method,
                               req->url, errbuf);
            return zb_fail(ctx, timed_out ? ZB_ETIMEOUT : ZB_EIO,
                           "%s (%s %s): %s", req->what, req->method,
                           req->url, errbuf);
        case OUT_REPLY:
            if (resp->status >= 200 && resp->status < 300)
                return ZB_OK;
            if ((resp->status == 401 || resp->status == 419)
                && !req->no_auth && r->credential && !reauthed) {
                reauthed = 1;       /* a new token, once */
                zb_free(r->token);
                r->token = NULL;
                continue;
            }
            if (retryable_status(req, resp) && attempt < r->max_retries) {
                if (req->kind == ZB_REST_COMMIT && resp->status >= 500)
                    resent_after_5xx = 1;
                break;
            }
            if (resent_after_5xx && resp->status == 409)
                return zb_fail(ctx, ZB_ETIMEOUT, "%s (%s %s): HTTP 409 "
                               "after the commit was sent again following "
                               "a server error: it may be our own first "
                               "attempt that landed; outcome unknown",
                               req->what, req->method, req->url);
            return fail_status(ctx, req, resp);
        }
        r->n_retries++;
        zb_log_debug(ctx, "%s: retry %d after %s", req->what, attempt + 1,
                     out == OUT_REPLY ? status_reason(resp->status) : errbuf);
        if ((rc = backoff(r, ctx, attempt,
                          out == OUT_REPLY ? resp->retry_after_ms : -1)) < 0)
            return rc;
        attempt++;
    }
}

int zb_rest__request(zb_rest *r, zb_ctx *ctx, const zb_rest_req *req,
                     zb_rest_resp *resp)
{
    int rc;

    zb_buf_init(&resp->body, ZB_REST_MAX_BODY_BYTES);
    resp->status = 0;
    resp->retry_after_ms = -1;
    pthread_mutex_lock(&r->lock);
    rc = request_locked(r, ctx, req, resp);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

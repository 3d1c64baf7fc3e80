/*
 * io/s3/s3_http.c - S3 requests over libcurl (s3_http.h).
 *
 * Why libcurl's own SigV4 (CURLOPT_AWS_SIGV4) and not libs3 or an AWS
 * SDK: libcurl is a Debian package the REST catalog already uses, so the
 * process has one HTTP stack (TLS with the system store, proxies, HTTP/2)
 * and one set of its bugs; libs3 is unmaintained and the AWS SDKs are C++
 * (a C++ runtime in a C11 tool) or bring their own HTTP clients and event
 * loops. What S3 needs beyond HTTP is small: sign, address, retry, parse
 * a few XML replies (s3_xml.c).
 *
 * Every request, one or many, runs on a "channel": a curl multi handle
 * with up to max_connections easy handles. Channels are pooled, and a
 * multi keeps its connections alive, so connections are reused across
 * calls. Each transfer is a small state machine (xfer): waiting until its
 * next attempt, running, or done; a finished attempt decides between
 * success, a retry after a backoff, or a failure with a message.
 *
 * Signing: curl 7.88 signs "x-amz-content-sha256" with the value given in
 * our header (UNSIGNED-PAYLOAD), which S3 accepts over TLS and s3rver
 * requires; it takes the query string as written, so callers give it in
 * canonical form (sorted, each as name=value). Secrets go to curl through
 * CURLOPT_USERNAME/PASSWORD only and never into a message.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/s3/s3_uri.h"
#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/prometheus.h"

#define BACKOFF_BASE_MS 100
#define BACKOFF_CAP_MS 20000
#define ERROR_BODY_MAX (64 * 1024)
#define MAX_IDLE_CHANNELS 32

typedef struct channel {
    CURLM *multi;
    CURL **easy;
    unsigned char *busy;
    size_t n_easy;
    struct channel *next;
} channel;

struct zb_s3_http {
    zb_s3_endpoint ep;
    char endpoint[320];              /* for messages */
    char region[64];
    char sigv4[96];
    int path_style;
    unsigned max_attempts;
    int64_t max_retry_ms;
    long timeout_s;
    unsigned max_conn;
    zb_s3_creds_provider *creds;
    pthread_mutex_t lock;
    channel *idle;
    size_t n_idle;
    uint64_t rng;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- settings ---------------------------------------------------------- */

int zb_s3_http_new(zb_s3_http **out, zb_ctx *ctx, const zb_s3_config *cfg)
{
    zb_s3_http *h;
    const char *region;
    int rc;

    ZB_ASSERT_ARG(out && ctx && cfg);
    *out = NULL;
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK)
        return zb_fail(ctx, ZB_EIO, "libcurl failed to initialise: %s",
                       curl_easy_strerror(curl_init_rc));
    if ((h = zb_calloc(1, sizeof *h)) == NULL)
        return zb_fail_oom(ctx);
    region = cfg->region && cfg->region[0] ? cfg->region : getenv("AWS_REGION");
    if (region == NULL || region[0] == '\0')
        region = getenv("AWS_DEFAULT_REGION");
    if (region == NULL || region[0] == '\0')
        region = "us-east-1";
    if (strlen(region) >= sizeof h->region || strpbrk(region, ":/ ")) {
        zb_free(h);
        return zb_fail(ctx, ZB_EUSAGE, "S3 region is not valid: %.80s",
                       region);
    }
    snprintf(h->region, sizeof h->region, "%s", region);
    if ((rc = zb_s3_endpoint_parse(&h->ep, ctx, cfg->endpoint, h->region))
        < 0) {
        zb_free(h);
        return rc;
    }
    snprintf(h->endpoint, sizeof h->endpoint, "%s://%s%s%s",
             h->ep.https ? "https" : "http", h->ep.host,
             h->ep.port[0] ? ":" : "", h->ep.port);
    snprintf(h->sigv4, sizeof h->sigv4, "aws:amz:%s:s3", h->region);
    h->path_style = cfg->path_style < 0 ? h->ep.ip_or_localhost
                                        : cfg->path_style != 0;
    h->max_attempts = cfg->max_attempts ? cfg->max_attempts : 8;
    h->max_retry_ms = (int64_t)(cfg->max_retry_seconds
                                    ? cfg->max_retry_seconds : 60) * 1000;
    h->timeout_s = (long)(cfg->timeout_seconds ? cfg->timeout_seconds : 30);
    h->max_conn = cfg->max_connections ? cfg->max_connections : 16;
    if (h->max_conn > 256)
        h->max_conn = 256;
    h->rng = (uint64_t)now_ms() * 0x9E3779B97F4A7C15ull ^
             (uint64_t)(uintptr_t)h;
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        zb_free(h);
        return zb_fail(ctx, ZB_ERROR, "cannot create a mutex");
    }
    if ((rc = zb_s3_creds_provider_new(&h->creds, ctx, cfg)) < 0) {
        pthread_mutex_destroy(&h->lock);
        zb_free(h);
        return rc;
    }
    *out = h;
    return ZB_OK;
}

static void channel_free(channel *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < c->n_easy; i++)
        if (c->easy[i])
            curl_easy_cleanup(c->easy[i]);
    if (c->multi)
        curl_multi_cleanup(c->multi);
    zb_free(c->easy);
    zb_free(c->busy);
    zb_free(c);
}

void zb_s3_http_free(zb_s3_http *h)
{
    if (h == NULL)
        return;
    while (h->idle) {
        channel *c = h->idle;
        h->idle = c->next;
        channel_free(c);
    }
    zb_s3_creds_provider_free(h->creds);
    pthread_mutex_destroy(&h->lock);
    zb_free(h);
}

const char *zb_s3_http_endpoint(const zb_s3_http *h)
{
    return h->endpoint;
}

const char *zb_s3_http_region(const zb_s3_http *h)
{
    return h->region;
}

zb_s3_creds_provider *zb_s3_http_creds(zb_s3_http *h)
{
    return h->creds;
}

static channel *channel_get(zb_s3_http *h)
{
    channel *c;

    pthread_mutex_lock(&h->lock);
    if ((c = h->idle) != NULL) {
        h->idle = c->next;
        h->n_idle--;
    }
    pthread_mutex_unlock(&h->lock);
    if (c != NULL)
        return c;
    if ((c = zb_calloc(1, sizeof *c)) == NULL ||
        (c->easy = zb_calloc(h->max_conn, sizeof *c->easy)) == NULL ||
        (c->busy = zb_calloc(h->max_conn, 1)) == NULL ||
        (c->multi = curl_multi_init()) == NULL) {
        channel_free(c);
        return NULL;
    }
    c->n_easy = h->max_conn;
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)h->max_conn);
    return c;
}

static void channel_put(zb_s3_http *h, channel *c)
{
    pthread_mutex_lock(&h->lock);
    if (h->n_idle < MAX_IDLE_CHANNELS) {
        c->next = h->idle;
        h->idle = c;
        h->n_idle++;
        c = NULL;
    }
    pthread_mutex_unlock(&h->lock);
    channel_free(c);
}

static uint64_t next_random(zb_s3_http *h)
{
    uint64_t r;

    /* xorshift64*: jitter only, not security. */
    pthread_mutex_lock(&h->lock);
    h->rng ^= h->rng >> 12;
    h->rng ^= h->rng << 25;
    h->rng ^= h->rng >> 27;
    r = h->rng * 0x2545F4914F6CDD1Dull;
    pthread_mutex_unlock(&h->lock);
    return r;
}

/* ---- one transfer --------------------------------------------------------- */

enum { X_WAIT, X_RUN, X_DONE };

typedef struct xfer {
    zb_s3_http *h;
    const zb_s3_req *req;
    zb_s3_resp *resp;
    zb_ctx xctx;                     /* this transfer's error */
    int state, rc;
    int64_t start_ms, next_at_ms;
    unsigned attempts;
    size_t slot;
    zb_buf url;
    struct curl_slist *hdrs;
    char errbuf[CURL_ERROR_SIZE];
    /* The range still to fetch; a resumed GET moves it on. */
    int has_range, suffix;
    uint64_t range_start, range_len;
    int resuming;
    char resume_etag[160];
    int creds_retried;
    int temporary;                   /* signed with a session token */
    int got_headers;                 /* resp's fields come from a 2xx */
    /* this attempt */
    long status;
    int att_has_len;
    uint64_t att_len, att_got;
    int att_has_crange;
    uint64_t cr_start, cr_end, cr_total;
    long retry_after_ms;
    int sink_rc, too_big, bad_body;
    zb_buf errbody;
} xfer;

static int lower_prefix(const char *data, size_t len, const char *name)
{
    size_t n = strlen(name);

    return len > n && strncasecmp(data, name, n) == 0;
}

/* The value of a header line after its name, trimmed, into out. */
static void header_value(char *out, size_t size, const char *data,
                         size_t len, size_t name_len)
{
    size_t i = name_len, n;

    while (i < len && (data[i] == ' ' || data[i] == '\t'))
        i++;
    n = len - i;
    while (n > 0 && (data[i + n - 1] == '\r' || data[i + n - 1] == '\n' ||
                     data[i + n - 1] == ' '))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(out, data + i, n);
    out[n] = '\0';
}

static int parse_u64_prefix(uint64_t *out, const char **s)
{
    uint64_t v = 0;
    const char *p = *s;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    *s = p;
    return 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *p)
{
    xfer *x = p;
    size_t len = size * n;
    char v[200];

    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
        const char *sp = memchr(data, ' ', len);
        x->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        x->att_has_len = x->att_has_crange = 0;
        x->retry_after_ms = -1;
        return len;
    }
    if (lower_prefix(data, len, "content-length:")) {
        const char *s = v;
        header_value(v, sizeof v, data, len, 15);
        if (parse_u64_prefix(&x->att_len, &s) == 0 && *s == '\0')
            x->att_has_len = 1;
    } else if (lower_prefix(data, len, "content-range:")) {
        const char *s = v;
        header_value(v, sizeof v, data, len, 14);
        if (strncasecmp(s, "bytes ", 6) == 0) {
            s += 6;
            if (*s == '*') {
                s++;
                x->cr_start = x->cr_end = 0;
            } else if (parse_u64_prefix(&x->cr_start, &s) < 0 || *s++ != '-'
                       || parse_u64_prefix(&x->cr_end, &s) < 0) {
                return len;
            }
            if (*s++ == '/' && parse_u64_prefix(&x->cr_total, &s) == 0)
                x->att_has_crange = 1;
        }
    } else if (x->status >= 200 && x->status < 300 && !x->resuming &&
               lower_prefix(data, len, "etag:")) {
        header_value(x->resp->etag, sizeof x->resp->etag, data, len, 5);
    } else if (x->status >= 200 && x->status < 300 && !x->resuming &&
               lower_prefix(data, len, "last-modified:")) {
        time_t t;
        header_value(v, sizeof v, data, len, 14);
        if ((t = curl_getdate(v, NULL)) != (time_t)-1)
            x->resp->last_modified_ms = (int64_t)t * 1000;
    } else if (lower_prefix(data, len, "retry-after:")) {
        header_value(v, sizeof v, data, len, 12);
        if (v[0] >= '0' && v[0] <= '9') {
            long secs = strtol(v, NULL, 10);
            x->retry_after_ms = (secs > 3600 ? 3600 : secs) * 1000;
        } else {
            time_t t = curl_getdate(v, NULL);
            if (t != (time_t)-1) {
                long long ms = ((long long)t - (long long)time(NULL)) * 1000;
                x->retry_after_ms = ms < 0 ? 0 : ms > 3600000 ? 3600000
                                                              : (long)ms;
            }
        }
    }
    return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *p)
{
    xfer *x = p;
    size_t len = size * n;

    if (x->status < 200 || x->status >= 300) {
        size_t room = ERROR_BODY_MAX - x->errbody.len;
        if (zb_buf_append(&x->errbody, data, len < room ? len : room) < 0)
            return 0;
        return len;
    }
    if (x->resuming && x->status != 206) {
        x->bad_body = 1;             /* the store ignored our Range */
        return 0;
    }
    if (x->has_range && !x->suffix && x->att_got + len > x->range_len) {
        x->bad_body = 1;             /* more than asked */
        return 0;
    }
    if (x->req->on_data) {
        int rc = x->req->on_data(x->req->user, data, len);
        if (rc < 0) {
            x->sink_rc = rc;
            return 0;
        }
    } else if (zb_buf_append(&x->resp->body, data, len) < 0) {
        x->too_big = 1;
        return 0;
    }
    x->att_got += len;
    return len;
}

static int add_header(xfer *x, const char *line)
{
    struct curl_slist *s = curl_slist_append(x->hdrs, line);

    if (s == NULL)
        return ZB_ENOMEM;
    x->hdrs = s;
    return ZB_OK;
}

static int has_header(const zb_s3_req *req, const char *name)
{
    size_t n = strlen(name), i;

    for (i = 0; req->headers && req->headers[i]; i++)
        if (strncasecmp(req->headers[i], name, n) == 0 &&
            req->headers[i][n] == ':')
            return 1;
    return 0;
}

/* Where a request goes, for messages: "GET s3://b/k (store E)". */
static void describe(char *out, size_t size, const xfer *x)
{
    const zb_s3_req *r = x->req;

    snprintf(out, size, "S3 %s s3://%s/%s (store %s)", r->method, r->bucket,
             r->key ? r->key : "", x->h->endpoint);
}

/* Prepares attempt number x->attempts on easy; fails x on error. */
static int setup(xfer *x, CURL *e)
{
    zb_s3_http *h = x->h;
    const zb_s3_req *r = x->req;
    zb_s3_creds creds;
    char line[8300];
    size_t i;
    int rc;

    curl_slist_free_all(x->hdrs);
    x->hdrs = NULL;
    x->status = 0;
    x->att_has_len = x->att_has_crange = 0;
    x->att_got = 0;
    x->retry_after_ms = -1;
    x->sink_rc = x->too_big = x->bad_body = 0;
    x->errbuf[0] = '\0';
    zb_buf_clear(&x->errbody);
    if (!x->resuming)
        zb_buf_clear(&x->resp->body);
    if (x->url.len == 0 &&
        zb_s3_build_url(&x->url, &h->ep, h->path_style, r->bucket, r->key,
                        r->query) < 0)
        return zb_fail_oom(&x->xctx);
    if ((rc = zb_s3_creds_current(&creds, h->creds, &x->xctx)) < 0)
        return rc;
    curl_easy_reset(e);
    if (add_header(x, "x-amz-content-sha256: UNSIGNED-PAYLOAD") < 0 ||
        add_header(x, "User-Agent: zamboni/" ZB_VERSION_STRING) < 0)
        goto oom;
    x->temporary = creds.session_token[0] != '\0';
    if (creds.session_token[0]) {
        snprintf(line, sizeof line, "x-amz-security-token: %s",
                 creds.session_token);
        if (add_header(x, line) < 0)
            goto oom;
    }
    if (x->has_range) {
        if (x->suffix)
            snprintf(line, sizeof line, "Range: bytes=-%llu",
                     (unsigned long long)x->range_len);
        else
            snprintf(line, sizeof line, "Range: bytes=%llu-%llu",
                     (unsigned long long)x->range_start,
                     (unsigned long long)(x->range_start + x->range_len - 1));
        if (add_header(x, line) < 0)
            goto oom;
    }
    if (x->resuming && x->resume_etag[0]) {
        snprintf(line, sizeof line, "If-Match: %s", x->resume_etag);
        if (add_header(x, line) < 0)
            goto oom;
    }
    for (i = 0; r->headers && r->headers[i]; i++)
        if (add_header(x, r->headers[i]) < 0)
            goto oom;
    if ((r->body || strcmp(r->method, "PUT") == 0 ||
         strcmp(r->method, "POST") == 0) && !has_header(r, "Content-Type") &&
        add_header(x, "Content-Type: application/octet-stream") < 0)
        goto oom;

    curl_easy_setopt(e, CURLOPT_URL, x->url.ptr);
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)x);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs);
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, h->sigv4);
    curl_easy_setopt(e, CURLOPT_USERNAME, creds.access_key_id);
    curl_easy_setopt(e, CURLOPT_PASSWORD, creds.secret_access_key);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, h->timeout_s);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, h->timeout_s);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, (void *)x);
    if (strcmp(r->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (strcmp(r->method, "GET") == 0) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        if (strcmp(r->method, "PUT") == 0 || strcmp(r->method, "POST") == 0
            || r->body) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                             (curl_off_t)r->body_len);
            curl_easy_setopt(e, CURLOPT_POSTFIELDS,
                             r->body ? r->body : (const void *)"");
        }
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    }
    memset(&creds, 0, sizeof creds);
    return ZB_OK;
oom:
    memset(&creds, 0, sizeof creds);
    return zb_fail_oom(&x->xctx);
}

static void count(zb_ctx *ctx, const char *name, const char *help,
                  const char *const *labels, double v)
{
    zb_metric *m;

    if (ctx->metrics && zb_metrics_counter(&m, ctx->metrics, name, help,
                                           labels) == ZB_OK)
        zb_metric_add(m, v);
}

static int retryable_code(const char *code)
{
    static const char *const codes[] = {
        "SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable",
        "Throttling", "ThrottlingException", "RequestTimeTooSkewed", NULL
    };
    size_t i;

    for (i = 0; codes[i]; i++)
        if (strcmp(code, codes[i]) == 0)
            return 1;
    return 0;
}

static int expired_code(const char *code)
{
    return strcmp(code, "ExpiredToken") == 0 ||
           strcmp(code, "InvalidToken") == 0 ||
           strcmp(code, "ExpiredTokenException") == 0;
}

/* Schedules another attempt if attempts and time allow; 0 if not. */
static int schedule_retry(xfer *x, long min_wait_ms)
{
    zb_s3_http *h = x->h;
    int64_t now = now_ms(), cap = BACKOFF_BASE_MS, wait;
    unsigned i;

    if (x->attempts >= h->max_attempts)
        return 0;
    for (i = 1; i < x->attempts && cap < BACKOFF_CAP_MS; i++)
        cap *= 2;
    if (cap > BACKOFF_CAP_MS)
        cap = BACKOFF_CAP_MS;
    wait = (int64_t)(next_random(h) % (uint64_t)(cap + 1));   /* full jitter */
    if (min_wait_ms > wait)
        wait = min_wait_ms;
    if (now + wait - x->start_ms > h->max_retry_ms)
        return 0;
    x->next_at_ms = now + wait;
    x->state = X_WAIT;
    count(&x->xctx, "zamboni_s3_retries_total",
          "S3 requests sent again after a retryable failure.", NULL, 1);
    return 1;
}

/* A short printable snippet of a body that is not S3 XML. */
static void snippet(char *out, size_t size, const char *b, size_t len)
{
    size_t i, j = 0;

    for (i = 0; i < len && j + 1 < size && j < 60; i++)
        out[j++] = (b[i] >= ' ' && b[i] < 127) ? b[i] : ' ';
    out[j] = '\0';
}

static int fail_reply(xfer *x, const char *code, const char *msg, int xml)
{
    char where[600], snip[64];
    long s = x->status;
    int rc = s == 404 ? ZB_ENOTFOUND : s == 412 ? ZB_EEXISTS : ZB_EIO;
    const char *tail = x->attempts > 1 ? " (after retries)" : "";

    describe(where, sizeof where, x);
    if (xml)
        return zb_fail(&x->xctx, rc, "%s: HTTP %ld %s: %s%s", where, s, code,
                       msg, tail);
    if (x->errbody.len == 0)
        return zb_fail(&x->xctx, rc, "%s: HTTP %ld%s%s", where, s,
                       s == 404 ? " (not found)" : s == 403 ? " (forbidden)"
                       : s == 412 ? " (precondition failed)" : "", tail);
    snippet(snip, sizeof snip, x->errbody.ptr, x->errbody.len);
    return zb_fail(&x->xctx, rc, "%s: HTTP %ld, reply is not S3 XML (is "
                   "this an S3 endpoint?): \"%s\"%s", where, s, snip, tail);
}

/* Moves the range on past the bytes this attempt delivered. */
static int prepare_resume(xfer *x)
{
    if (x->att_got == 0 || strcmp(x->req->method, "GET") != 0)
        return 0;
    if (x->req->query != NULL || x->req->key == NULL ||
        x->req->key[0] == '\0') {
        /* A listing (or another reply that is no object's bytes) has no
         * byte ranges: it is whole or nothing, so ask for it again from
         * the start; bytes already handed to a sink cannot be taken back. */
        if (x->req->on_data != NULL)
            return -1;
        zb_buf_clear(&x->resp->body);
        return 0;
    }
    if (x->suffix || !x->has_range) {
        if (x->att_has_crange) {
            x->range_start = x->cr_start;
            x->range_len = x->cr_end - x->cr_start + 1;
        } else if (x->att_has_len) {
            x->range_start = 0;
            x->range_len = x->att_len;
        } else {
            return -1;
        }
        x->has_range = 1;
        x->suffix = 0;
    }
    if (x->att_got >= x->range_len)
        return -1;
    x->range_start += x->att_got;
    x->range_len -= x->att_got;
    if (!x->resuming)
        snprintf(x->resume_etag, sizeof x->resume_etag, "%s", x->resp->etag);
    x->resuming = 1;
    return 0;
}

/* Fills resp's sizes from the first 2xx reply's headers. */
static void take_headers(xfer *x)
{
    zb_s3_resp *resp = x->resp;

    if (x->got_headers)
        return;
    x->got_headers = 1;
    resp->status = x->status;
    resp->has_length = x->att_has_len;
    resp->content_length = x->att_len;
    resp->object_size = x->att_has_crange ? x->cr_total : x->att_len;
    resp->body_offset = x->att_has_crange ? x->cr_start : 0;
}

/* An attempt ended with curl's result cc: done, or scheduled again. */
static void finish(xfer *x, CURL *e, CURLcode cc)
{
    const zb_s3_req *r = x->req;
    char where[600];
    const char *m[] = { "method", r->method, NULL };

    x->attempts++;
    count(&x->xctx, "zamboni_s3_requests_total", "S3 requests sent.", m, 1);
    if (strcmp(r->method, "GET") == 0)
        count(&x->xctx, "zamboni_s3_read_bytes_total",
              "Bytes of S3 object bodies received.", NULL,
              (double)x->att_got);
    if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &x->status);
    if (cc == CURLE_OK && x->status >= 200 && x->status < 300) {
        int partial = x->att_has_len && strcmp(r->method, "HEAD") != 0 &&
                      x->att_got != x->att_len;
        if (strcmp(r->method, "PUT") == 0 || strcmp(r->method, "POST") == 0)
            count(&x->xctx, "zamboni_s3_written_bytes_total",
                  "Bytes of request bodies sent to S3.", NULL,
                  (double)r->body_len);
        if (!x->resuming)
            take_headers(x);
        if (!partial) {
            x->resp->status = x->status;
            x->rc = ZB_OK;
            x->state = X_DONE;
            return;
        }
        cc = CURLE_PARTIAL_FILE;     /* as curl would say */
    }
    if (cc == CURLE_OK) {
        char code[64], msg[256], err[ZB_S3_XML_ERR_SIZE];
        int xml = zb_s3_xml_parse_error(code, sizeof code, msg, sizeof msg,
                                        x->errbody.ptr, x->errbody.len,
                                        err) == ZB_OK;
        x->resp->status = x->status;
        snprintf(x->resp->error_code, sizeof x->resp->error_code, "%s",
                 xml ? code : "");
        if (!xml)
            code[0] = '\0';
        /* A HEAD reply has no body to name ExpiredToken: a bare 400 to
         * temporary keys is taken for one. */
        if ((((x->status == 400 || x->status == 403) && expired_code(code))
             || (x->status == 400 && x->temporary && x->errbody.len == 0 &&
                 strcmp(r->method, "HEAD") == 0)) &&
            !x->creds_retried) {
            zb_s3_creds_invalidate(x->h->creds);
            x->creds_retried = 1;
            x->resuming = 0;
            x->state = X_WAIT;
            x->next_at_ms = 0;
            return;
        }
        if (x->resuming && x->status == 412) {
            describe(where, sizeof where, x);
            x->rc = zb_fail(&x->xctx, ZB_EIO, "%s: the object changed while "
                            "it was read", where);
            x->state = X_DONE;
            return;
        }
        if ((r->idempotent || r->retry_status_only) &&
            (x->status == 500 || x->status == 502 || x->status == 503 ||
             x->status == 504 || x->status == 429 || retryable_code(code)) &&
            schedule_retry(x, x->retry_after_ms))
            return;
        x->rc = fail_reply(x, code, msg, xml);
        x->state = X_DONE;
        return;
    }
    describe(where, sizeof where, x);
    if (x->sink_rc < 0) {
        x->rc = zb_fail(&x->xctx, x->sink_rc, "%s: the reply's body was "
                        "refused by its reader", where);
        x->state = X_DONE;
        return;
    }
    if (x->too_big) {
        x->rc = zb_fail(&x->xctx, ZB_ENOMEM, "%s: reply larger than the %zu "
                        "bytes allowed", where, x->resp->body.max_bytes);
        x->state = X_DONE;
        return;
    }
    if (x->bad_body) {
        x->rc = zb_fail(&x->xctx, ZB_EIO, "%s: the store did not answer the "
                        "byte range asked for (HTTP %ld)", where, x->status);
        x->state = X_DONE;
        return;
    }
    if (x->errbuf[0] == '\0')
        snprintf(x->errbuf, sizeof x->errbuf, "%s", curl_easy_strerror(cc));
    if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL ||
        cc == CURLE_OUT_OF_MEMORY || cc == CURLE_PEER_FAILED_VERIFICATION ||
        cc == CURLE_SSL_CACERT_BADFILE) {
        x->rc = zb_fail(&x->xctx, cc == CURLE_OUT_OF_MEMORY ? ZB_ENOMEM
                                                            : ZB_EIO,
                        "%s: %s", where, x->errbuf);
        x->state = X_DONE;
        return;
    }
    /* A connection that broke or stalled: resume a GET from the byte it
     * reached; send anything safe to repeat again from the start. */
    if (x->status >= 200 && x->status < 300 && x->att_got > 0) {
        if (!x->resuming)
            take_headers(x);
        if (prepare_resume(x) < 0) {
            x->rc = zb_fail(&x->xctx, ZB_EIO, "%s: reply cut short and "
                            "cannot be resumed: %s", where, x->errbuf);
            x->state = X_DONE;
            return;
        }
    }
    if ((r->idempotent || cc == CURLE_COULDNT_CONNECT ||
         cc == CURLE_COULDNT_RESOLVE_HOST) && schedule_retry(x, 0))
        return;
    x->rc = zb_fail(&x->xctx, cc == CURLE_OPERATION_TIMEDOUT ? ZB_ETIMEOUT
                                                             : ZB_EIO,
                    "%s: %s%s%s", where,
                    cc == CURLE_PARTIAL_FILE ? "reply shorter than its "
                                               "Content-Length: " : "",
                    x->errbuf,
                    x->attempts > 1 ? " (after retries)" : "");
    x->state = X_DONE;
}

/* ---- the loop ------------------------------------------------------------ */

static void sleep_ms(int64_t ms)
{
    struct timespec ts;

    if (ms <= 0)
        return;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static int start(xfer *x, channel *c)
{
    size_t i;

    for (i = 0; i < c->n_easy && c->busy[i]; i++)
        ;
    if (i == c->n_easy)
        return 1;                        /* no free handle: later */
    if (c->easy[i] == NULL && (c->easy[i] = curl_easy_init()) == NULL) {
        x->rc = zb_fail(&x->xctx, ZB_ENOMEM, "libcurl: no easy handle");
        x->state = X_DONE;
        return 0;
    }
    if ((x->rc = setup(x, c->easy[i])) < 0 ||
        curl_multi_add_handle(c->multi, c->easy[i]) != CURLM_OK) {
        if (x->rc == ZB_OK)
            x->rc = zb_fail(&x->xctx, ZB_EIO, "libcurl: cannot add a "
                            "transfer");
        x->state = X_DONE;
        return 0;
    }
    c->busy[i] = 1;
    x->slot = i;
    x->state = X_RUN;
    return 0;
}

static int run(zb_s3_http *h, zb_ctx *ctx, xfer *xs, size_t n)
{
    channel *c = channel_get(h);
    size_t done = 0, running = 0, i;
    int stopped = 0;

    if (c == NULL)
        return zb_fail_oom(ctx);
    while (done < n) {
        int64_t now = now_ms(), wake = -1;
        int still = 0, left;
        CURLMsg *msg;

        if (!stopped && zb_ctx_stopped(ctx))
            stopped = 1;
        for (i = 0; i < n; i++) {
            xfer *x = &xs[i];
            if (x->state != X_WAIT)
                continue;
            if (stopped) {
                x->rc = zb_fail(&x->xctx, ZB_ECANCELED, "S3 %s s3://%s/%s: "
                                "stopped", x->req->method, x->req->bucket,
                                x->req->key ? x->req->key : "");
                x->state = X_DONE;
                done++;
            } else if (x->next_at_ms <= now && running < c->n_easy) {
                if (start(x, c) == 0) {
                    if (x->state == X_DONE)
                        done++;
                    else
                        running++;
                }
            } else if (wake < 0 || x->next_at_ms < wake) {
                wake = x->next_at_ms;
            }
        }
        if (stopped && running > 0) {
            for (i = 0; i < n; i++) {
                xfer *x = &xs[i];
                if (x->state != X_RUN)
                    continue;
                curl_multi_remove_handle(c->multi, c->easy[x->slot]);
                c->busy[x->slot] = 0;
                x->rc = zb_fail(&x->xctx, ZB_ECANCELED, "S3 %s s3://%s/%s: "
                                "stopped", x->req->method, x->req->bucket,
                                x->req->key ? x->req->key : "");
                x->state = X_DONE;
                done++;
            }
            running = 0;
        }
        if (done == n)
            break;
        if (running == 0) {
            int64_t w = wake - now_ms();
            sleep_ms(w < 50 ? w : 50);   /* short, to see the stop flag */
            continue;
        }
        curl_multi_perform(c->multi, &still);
        while ((msg = curl_multi_info_read(c->multi, &left)) != NULL) {
            xfer *x = NULL;
            if (msg->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
                              (char **)&x);
            curl_multi_remove_handle(c->multi, msg->easy_handle);
            c->busy[x->slot] = 0;
            running--;
            finish(x, msg->easy_handle, msg->data.result);
            if (x->state == X_DONE)
                done++;
        }
        if (running > 0) {
            int timeout = 100;
            if (wake >= 0 && wake - now_ms() < timeout)
                timeout = (int)(wake - now_ms() > 0 ? wake - now_ms() : 0);
            curl_multi_poll(c->multi, NULL, 0, timeout, NULL);
        }
    }
    channel_put(h, c);
    return ZB_OK;
}

int zb_s3_http_do_many(zb_s3_http *h, zb_ctx *ctx, const zb_s3_req *reqs,
                       zb_s3_resp *resps, int *rcs, size_t n)
{
    xfer *xs;
    size_t i;
    int rc, first = ZB_OK;

    ZB_ASSERT_ARG(h && ctx && (reqs || n == 0) && (resps || n == 0));
    if (n == 0)
        return ZB_OK;
    if ((xs = zb_calloc(n, sizeof *xs)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        xfer *x = &xs[i];
        x->h = h;
        x->req = &reqs[i];
        x->resp = &resps[i];
        x->xctx = *ctx;
        zb_err_clear(&x->xctx.err);
        x->start_ms = now_ms();
        x->has_range = reqs[i].has_range || reqs[i].suffix_range;
        x->suffix = reqs[i].suffix_range;
        x->range_start = reqs[i].range_start;
        x->range_len = reqs[i].range_len;
        zb_buf_init(&x->url, 1 << 16);
        zb_buf_init(&x->errbody, ERROR_BODY_MAX + 1);
        resps[i].status = 0;
        resps[i].etag[0] = '\0';
        resps[i].has_length = 0;
        resps[i].content_length = resps[i].object_size = 0;
        resps[i].body_offset = 0;
        resps[i].last_modified_ms = 0;
        resps[i].error_code[0] = '\0';
        if (x->has_range && x->range_len == 0) {
            x->rc = zb_fail(&x->xctx, ZB_EINVAL, "S3 %s: empty byte range",
                            reqs[i].method);
            x->state = X_DONE;
        }
    }
    rc = run(h, ctx, xs, n);
    for (i = 0; i < n; i++) {
        if (rcs)
            rcs[i] = xs[i].state == X_DONE ? xs[i].rc : rc;
        if (first == ZB_OK && xs[i].state == X_DONE && xs[i].rc < 0) {
            first = xs[i].rc;
            zb_err_copy(&ctx->err, &xs[i].xctx.err);
        }
        curl_slist_free_all(xs[i].hdrs);
        zb_buf_free(&xs[i].url);
        zb_buf_free(&xs[i].errbody);
    }
    zb_free(xs);
    return rc < 0 ? rc : first;
}

int zb_s3_http_do(zb_s3_http *h, zb_ctx *ctx, const zb_s3_req *req,
                  zb_s3_resp *resp)
{
    int rc1 = ZB_OK;

    return zb_s3_http_do_many(h, ctx, req, resp, &rc1, 1);
}

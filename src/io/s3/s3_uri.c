/*
 * io/s3/s3_uri.c - S3 URIs, endpoints and request URLs (s3_uri.h).
 */
#define ZB_MODULE "io"

#include "io/s3/s3_uri.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/err.h"

static size_t scheme_len(const char *uri)
{
    static const char *const schemes[] = { "s3://", "s3a://", "s3n://" };
    size_t i;

    for (i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
        size_t n = strlen(schemes[i]);
        if (strncasecmp(uri, schemes[i], n) == 0)
            return n;
    }
    return 0;
}

int zb_s3_uri_accepts(const char *uri)
{
    return uri != NULL && scheme_len(uri) > 0;
}

int zb_s3_uri_parse(zb_s3_uri *out, zb_ctx *ctx, const char *uri)
{
    size_t n, blen, i;
    const char *b, *slash;

    ZB_ASSERT_ARG(out && ctx && uri);
    memset(out, 0, sizeof *out);
    if ((n = scheme_len(uri)) == 0)
        return zb_fail(ctx, ZB_EUSAGE, "not an S3 URI (s3://, s3a://, "
                       "s3n://): %s", uri);
    for (i = 0; i + 3 < n; i++)
        out->scheme[i] = (char)(uri[i] | 0x20);
    out->scheme[i] = '\0';
    b = uri + n;
    slash = strchr(b, '/');
    blen = slash ? (size_t)(slash - b) : strlen(b);
    if (blen == 0 || blen > 255)
        return zb_fail(ctx, ZB_EUSAGE, "S3 URI without a valid bucket "
                       "name: %s", uri);
    for (i = 0; i < blen; i++)
        if (b[i] == '?' || b[i] == '#' || b[i] == '@' || b[i] == ':' ||
            (unsigned char)b[i] <= ' ')
            return zb_fail(ctx, ZB_EUSAGE, "S3 URI with a bad character "
                           "in its bucket name: %s", uri);
    if ((out->bucket = zb_strndup(b, blen)) == NULL ||
        (out->key = zb_strdup(slash ? slash + 1 : "")) == NULL) {
        zb_s3_uri_free(out);
        return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

void zb_s3_uri_free(zb_s3_uri *u)
{
    if (u == NULL)
        return;
    zb_free(u->bucket);
    zb_free(u->key);
    u->bucket = u->key = NULL;
}

int zb_s3_escape(zb_buf *out, const char *s, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
            c == '~' || (keep_slash && c == '/')) {
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

int zb_s3_host_is_loopback(const char *host)
{
    char h[256];
    size_t n = strlen(host);
    struct in_addr a4;
    struct in6_addr a6;

    if (strcasecmp(host, "localhost") == 0)
        return 1;
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof h) {
        memcpy(h, host + 1, n - 2);
        h[n - 2] = '\0';
        return inet_pton(AF_INET6, h, &a6) == 1 &&
               memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
    }
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return 0;
}

static int host_is_ip(const char *host)
{
    struct in_addr a4;

    return host[0] == '[' || inet_pton(AF_INET, host, &a4) == 1;
}

int zb_s3_endpoint_parse(zb_s3_endpoint *out, zb_ctx *ctx,
                         const char *endpoint, const char *region)
{
    const char *p, *end, *colon;
    size_t hlen;

    ZB_ASSERT_ARG(out && ctx);
    memset(out, 0, sizeof *out);
    if (endpoint == NULL || endpoint[0] == '\0') {
        out->https = 1;
        if (snprintf(out->host, sizeof out->host, "s3.%s.amazonaws.com",
                     region && region[0] ? region : "us-east-1")
            >= (int)sizeof out->host)
            return zb_fail(ctx, ZB_EUSAGE, "S3 region too long: %s", region);
        return ZB_OK;
    }
    if (strncasecmp(endpoint, "https://", 8) == 0) {
        out->https = 1;
        p = endpoint + 8;
    } else if (strncasecmp(endpoint, "http://", 7) == 0) {
        p = endpoint + 7;
    } else {
        return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint must start with "
                       "https:// (or http:// for a loopback address): %s",
                       endpoint);
    }
    end = p + strcspn(p, "/?#");
    if (*end == '?' || *end == '#' || (*end == '/' && end[1] != '\0'))
        return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint must be scheme://host"
                       "[:port] without a path: %s", endpoint);
    if (p[0] == '[') {
        const char *rb = memchr(p, ']', (size_t)(end - p));
        if (rb == NULL)
            return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint with a bad IPv6 "
                           "address: %s", endpoint);
        colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
        hlen = (size_t)(rb + 1 - p);
    } else {
        colon = memchr(p, ':', (size_t)(end - p));
        hlen = (size_t)((colon ? colon : end) - p);
    }
    if (hlen == 0 || hlen >= sizeof out->host || memchr(p, '@', hlen))
        return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint without a valid host: "
                       "%s", endpoint);
    memcpy(out->host, p, hlen);
    out->host[hlen] = '\0';
    if (colon) {
        size_t plen = (size_t)(end - colon - 1), i;
        if (plen == 0 || plen >= sizeof out->port)
            return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint with a bad port: %s",
                           endpoint);
        for (i = 0; i < plen; i++)
            if (colon[1 + i] < '0' || colon[1 + i] > '9')
                return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint with a bad "
                               "port: %s", endpoint);
        memcpy(out->port, colon + 1, plen);
        out->port[plen] = '\0';
    }
    out->ip_or_localhost = host_is_ip(out->host) ||
                           strcasecmp(out->host, "localhost") == 0;
    if (!out->https && !zb_s3_host_is_loopback(out->host))
        return zb_fail(ctx, ZB_EUSAGE, "S3 endpoint %s: plain http is only "
                       "allowed for a loopback address (127.0.0.1, ::1, "
                       "localhost); use https://", endpoint);
    return ZB_OK;
}

int zb_s3_build_url(zb_buf *out, const zb_s3_endpoint *ep, int path_style,
                    const char *bucket, const char *key, const char *query)
{
    const char *scheme = ep->https ? "https://" : "http://";
    const char *colon = ep->port[0] ? ":" : "";

    if (path_style < 0)
        path_style = ep->ip_or_localhost;
    if (path_style) {
        if (zb_buf_appendf(out, "%s%s%s%s/", scheme, ep->host, colon,
                           ep->port) < 0 ||
            zb_s3_escape(out, bucket, 0) < 0)
            return ZB_ENOMEM;
        if (key && key[0] && zb_buf_putc(out, '/') < 0)
            return ZB_ENOMEM;
    } else {
        if (zb_buf_appendf(out, "%s", scheme) < 0 ||
            zb_s3_escape(out, bucket, 0) < 0 ||
            zb_buf_appendf(out, ".%s%s%s/", ep->host, colon, ep->port) < 0)
            return ZB_ENOMEM;
    }
    if (key && key[0] && zb_s3_escape(out, key, 1) < 0)
        return ZB_ENOMEM;
    if (query && (zb_buf_putc(out, '?') < 0 || zb_buf_puts(out, query) < 0))
        return ZB_ENOMEM;
    return ZB_OK;
}

/*
 * io/s3/s3_uri.h - s3://, s3a:// and s3n:// URIs, endpoints and request
 * URLs. Keys are used as written (no percent-decoding: Iceberg writers
 * store names with escapes such as %20 literally) and escaped for the
 * request path by the SigV4 rules.
 */
#ifndef ZB_IO_S3_URI_H
#define ZB_IO_S3_URI_H

#include "util/buf.h"

typedef struct zb_s3_uri {
    char scheme[8];          /* "s3", "s3a" or "s3n", lower case */
    char *bucket;            /* owned */
    char *key;               /* owned; "" for the bucket itself */
} zb_s3_uri;

/* Non-zero when uri starts with s3://, s3a:// or s3n:// (any case). */
int zb_s3_uri_accepts(const char *uri);

/* Splits uri into bucket and key; ZB_EUSAGE with a message when it is not
 * an S3 URI or names no bucket. Free with zb_s3_uri_free. */
int zb_s3_uri_parse(zb_s3_uri *out, zb_ctx *ctx, const char *uri);
void zb_s3_uri_free(zb_s3_uri *u);

/* Appends s with every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~)
 * as %XX; keep_slash leaves '/' as it is (keys in the request path). */
int zb_s3_escape(zb_buf *out, const char *s, int keep_slash);

typedef struct zb_s3_endpoint {
    int https;
    char host[256];          /* "s3.us-east-1.amazonaws.com", "[::1]" */
    char port[8];            /* "" for the scheme's default */
    int ip_or_localhost;     /* auto path style */
} zb_s3_endpoint;

/*
 * Parses endpoint ("https://host[:port][/]"; NULL: AWS's endpoint of
 * region). Plain http is refused (ZB_EUSAGE) unless the host is loopback.
 */
int zb_s3_endpoint_parse(zb_s3_endpoint *out, zb_ctx *ctx,
                         const char *endpoint, const char *region);

/* Non-zero for 127.0.0.0/8, ::1 and localhost. */
int zb_s3_host_is_loopback(const char *host);

/*
 * Appends the URL of a request: endpoint/bucket/key (path style) or
 * bucket.host/key (virtual-hosted), then ?query when query is not NULL.
 * key NULL or "": the bucket itself.
 */
int zb_s3_build_url(zb_buf *out, const zb_s3_endpoint *ep, int path_style,
                    const char *bucket, const char *key, const char *query);

#endif

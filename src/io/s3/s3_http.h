/*
 * io/s3/s3_http.h - S3 requests over libcurl: addressing, SigV4 signing,
 * connection reuse, retries. The only files that see libcurl in io/.
 *
 * A zb_s3_http holds one settings set (endpoint, region, addressing,
 * limits) and its credentials provider; handles are pooled so that
 * connections are kept alive; it is safe to use from many threads.
 *
 * Retries: 500, 502, 503, 504, 429, the SlowDown and RequestTimeout
 * codes, connection resets and timeouts, for requests marked idempotent;
 * exponential backoff with full jitter, at least Retry-After; bounded in
 * attempts and in total time (zb_s3_config). A ranged GET whose body dies
 * midway resumes from the byte it reached. A body shorter than its
 * Content-Length is an error, never data. A reply that refuses the keys
 * as expired (400 or 403 ExpiredToken, InvalidToken; a HEAD's bare 400
 * to temporary keys, its reply having no body to say so) invalidates the
 * credentials and sends the request once more with fresh ones: the store
 * did nothing, so this holds for every request.
 */
#ifndef ZB_IO_S3_HTTP_H
#define ZB_IO_S3_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "io/s3/s3_creds.h"
#include "util/buf.h"

typedef struct zb_s3_http zb_s3_http;

typedef struct zb_s3_req {
    const char *method;              /* GET HEAD PUT POST DELETE */
    const char *bucket;
    const char *key;                 /* NULL or "": the bucket itself */
    /* Already escaped, no '?', or NULL; in SigV4's canonical form (names
     * sorted, each one as name=value), since curl signs it as written. */
    const char *query;
    const char *const *headers;      /* "Name: value", NULL-ended; or NULL */
    const void *body;
    size_t body_len;
    int has_range;                   /* Range: bytes=start-(start+len-1) */
    uint64_t range_start;
    uint64_t range_len;
    int suffix_range;                /* Range: bytes=-range_len instead */
    int idempotent;                  /* safe to send again */
    /* Not idempotent, but an error reply (5xx, 429, SlowDown) means it
     * was not done: those are retried, broken connections are not. */
    int retry_status_only;
    /* Body sink; NULL: collected into resp->body (up to its max_bytes).
     * Returns 0 to go on, negative to fail the request. */
    int (*on_data)(void *user, const void *data, size_t len);
    void *user;
} zb_s3_req;

typedef struct zb_s3_resp {
    long status;
    zb_buf body;                     /* init by the caller */
    char etag[160];
    int has_length;
    uint64_t content_length;
    uint64_t object_size;            /* from Content-Range, else length */
    uint64_t body_offset;            /* the body's first byte in the
                                      * object (Content-Range), else 0 */
    int64_t last_modified_ms;
    char error_code[64];             /* <Code> of an error reply */
} zb_s3_resp;

int zb_s3_http_new(zb_s3_http **out, zb_ctx *ctx, const zb_s3_config *cfg);
void zb_s3_http_free(zb_s3_http *h);

/*
 * Sends req (retrying as above) and fills resp. ZB_OK for a 2xx reply;
 * else a code with a message that names the store, bucket and key and,
 * for an error reply, S3's code and message: ZB_ENOTFOUND (404),
 * ZB_EEXISTS (412 on If-None-Match), ZB_EIO (others), ZB_ETIMEOUT (no
 * reply in time), ZB_ECANCELED (the stop flag).
 */
int zb_s3_http_do(zb_s3_http *h, zb_ctx *ctx, const zb_s3_req *req,
                  zb_s3_resp *resp);

/*
 * Sends n requests at once on up to the configured connections, each as
 * zb_s3_http_do would; rcs[i] gets each one's code. Returns the first
 * failure's code (its message in ctx), else ZB_OK.
 */
int zb_s3_http_do_many(zb_s3_http *h, zb_ctx *ctx, const zb_s3_req *reqs,
                       zb_s3_resp *resps, int *rcs, size_t n);

/* The settings h was made with (endpoint, region as resolved). */
const char *zb_s3_http_endpoint(const zb_s3_http *h);
const char *zb_s3_http_region(const zb_s3_http *h);
zb_s3_creds_provider *zb_s3_http_creds(zb_s3_http *h);

#endif

/*
 * zamboni/io_s3.h - the S3 backend of FileIO: s3://, s3a:// and s3n://
 * URIs on Amazon S3 or an S3-compatible store (MinIO, Ceph RGW, R2, GCS's
 * XML API with HMAC keys), over libcurl with its built-in SigV4.
 *
 * zb_io_add_s3 adds the backend with the process's settings; a table whose
 * catalog vends its own (the REST catalog's loadTable config) adds them for
 * its location with zb_io_s3_add_prefix, and the longest matching prefix
 * wins. Every string is copied; the caller may free it after the call.
 */
#ifndef ZAMBONI_IO_S3_H
#define ZAMBONI_IO_S3_H

#include <stdint.h>

#include "zamboni/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Keys handed back by a refresh callback (zb_s3_config below). */
typedef struct zb_s3_credentials {
    char access_key_id[256];
    char secret_access_key[256];
    char session_token[8192];        /* "" when none */
    int64_t expires_ms;              /* ms since the epoch; 0: not known */
} zb_s3_credentials;

typedef struct zb_s3_config {
    /* "https://host[:port]" or "http://127.0.0.1:4568"; NULL: AWS's
     * https://s3.<region>.amazonaws.com. Plain http is refused except
     * for loopback endpoints. */
    const char *endpoint;
    const char *region;              /* NULL: AWS_REGION, else us-east-1 */
    int path_style;                  /* 1 endpoint/bucket/key, 0 virtual-
                                      * hosted, -1 auto: path style for an
                                      * IP or localhost endpoint */
    /* Static credentials (catalog-vended, or ZAMBONI_S3_ACCESS_KEY_ID
     * with its secret); NULL access key: the chain (AWS environment, profile, web identity, container,
     * instance metadata). The source is a name for doctor, never a secret. */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
    const char *credentials_source;
    /* When the static keys expire, in ms since the epoch (a catalog's
     * s3.session-token-expires-at-ms); 0: not known. */
    int64_t session_token_expires_ms;
    /* Fetches new static keys (a catalog's credentials endpoint): called
     * before session_token_expires_ms (five minutes ahead) and after the
     * store answered ExpiredToken, by one thread at a time; fills out and
     * returns ZB_OK, or a negative rc with its message in ctx. NULL: the
     * keys are used as given. Only with access_key_id, and never taken
     * over from the settings of every bucket by a prefix. When
     * zb_io_add_s3 or zb_io_s3_add_prefix returns ZB_OK, the backend
     * owns refresh_user and calls refresh_release(refresh_user) (if not
     * NULL) when it drops these settings; otherwise the caller keeps it. */
    int (*refresh_credentials)(void *user, zb_ctx *ctx,
                               zb_s3_credentials *out);
    void (*refresh_release)(void *user);
    void *refresh_user;
    unsigned max_attempts;           /* per request; 0: 8 */
    unsigned max_retry_seconds;      /* retrying one request; 0: 60 */
    unsigned timeout_seconds;        /* no progress for this long; 0: 30 */
    unsigned max_connections;        /* parallel requests; 0: 16 */
    uint64_t multipart_threshold;    /* larger files go in parts; bytes;
                                      * 0: 16 MiB */
    uint64_t part_size;              /* bytes, >= 5 MiB; 0: 8 MiB */
    /* The bytes of each in-flight part are reserved through these (the
     * process's memory budget, set up by the layer that owns it); NULL:
     * not reserved. reserve blocks until the bytes fit, or fails. */
    int (*reserve)(void *user, zb_ctx *ctx, uint64_t bytes);
    void (*release)(void *user, zb_ctx *ctx, uint64_t bytes);
    void *hook_user;
} zb_s3_config;

/* Adds the S3 backend with cfg as the settings for every bucket. */
int zb_io_add_s3(zb_io *io, zb_ctx *ctx, const zb_s3_config *cfg);

/*
 * Settings for URIs under prefix ("s3://bucket/warehouse/table/"), over
 * those given to zb_io_add_s3; fields left 0 or NULL take those. The
 * scheme (s3, s3a, s3n) does not matter. ZB_EINVAL when io has no S3
 * backend.
 */
int zb_io_s3_add_prefix(zb_io *io, zb_ctx *ctx, const char *prefix,
                        const zb_s3_config *cfg);

/*
 * Where the credentials for uri come from ("AWS_ACCESS_KEY_ID",
 * "profile dev (/home/u/.aws/credentials)", ...), resolving them if need
 * be; for doctor and --verbose. Never the secret.
 */
int zb_io_s3_describe_credentials(char *out, size_t size, zb_io *io,
                                  zb_ctx *ctx, const char *uri);

/* Non-zero when uri names an object store (s3, s3a, s3n, gs, abfs...). */
int zb_io_is_object_store(const char *uri);

#ifdef __cplusplus
}
#endif
#endif

/*
 * io/s3/s3_creds.h - where the S3 backend's credentials come from.
 *
 * The first source that has credentials wins, in this order:
 *   1. static keys given in zb_s3_config (catalog-vended, or
 *      ZAMBONI_S3_ACCESS_KEY_ID with its secret);
 *   2. AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN;
 *   3. AWS_PROFILE (else "default") in AWS_SHARED_CREDENTIALS_FILE (else
 *      ~/.aws/credentials) and AWS_CONFIG_FILE (else ~/.aws/config);
 *   4. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN through
 *      STS AssumeRoleWithWebIdentity (AWS_ENDPOINT_URL_STS to point
 *      elsewhere), as EKS gives pods;
 *   5. container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI or
 *      _RELATIVE_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE);
 *   6. EC2 instance metadata, IMDSv2 (AWS_EC2_METADATA_SERVICE_ENDPOINT;
 *      AWS_EC2_METADATA_DISABLED=true skips it).
 * Temporary credentials are fetched again before they expire (five
 * minutes ahead), by one thread while the others keep the old ones;
 * static keys given with a refresh callback (zb_s3_config) are fetched
 * again the same way, through it.
 */
#ifndef ZB_IO_S3_CREDS_H
#define ZB_IO_S3_CREDS_H

#include <stdint.h>

#include "zamboni/io_s3.h"

typedef struct zb_s3_creds {
    char access_key_id[256];
    char secret_access_key[256];
    char session_token[8192];        /* "" when none */
    int64_t expires_ms;              /* ms since the epoch; 0: never */
    char source[160];                /* for doctor; never a secret */
} zb_s3_creds;

typedef struct zb_s3_creds_provider zb_s3_creds_provider;

int zb_s3_creds_provider_new(zb_s3_creds_provider **out, zb_ctx *ctx,
                             const zb_s3_config *cfg);
void zb_s3_creds_provider_free(zb_s3_creds_provider *p);

/*
 * Copies the current credentials into out, resolving or refreshing them
 * when need be. Safe from many threads. ZB_ENOTFOUND with a message that
 * lists the sources tried when none has credentials.
 */
int zb_s3_creds_current(zb_s3_creds *out, zb_s3_creds_provider *p,
                        zb_ctx *ctx);

/* The store refused them as expired: the next call fetches anew. */
void zb_s3_creds_invalidate(zb_s3_creds_provider *p);

#endif

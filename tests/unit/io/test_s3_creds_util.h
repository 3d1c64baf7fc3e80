/*
 * tests/unit/io/test_s3_creds_util.h - what the credentials tests share:
 * a clean environment for each case, and checks on messages.
 */
#ifndef TEST_S3_CREDS_UTIL_H
#define TEST_S3_CREDS_UTIL_H

#include "io/s3/s3_creds.h"

/*
 * Unsets every variable the chain reads, points HOME at a fresh temporary
 * directory (returned) and turns IMDS off, so that no case reaches past
 * loopback or into the user's own ~/.aws.
 */
const char *creds_env_reset(void);

/* Writes text into dir/name and returns the path (static storage,
 * overwritten by the next call). */
const char *creds_write(const char *dir, const char *name, const char *text);

/* Resolves once with a fresh provider for an empty zb_s3_config. */
int creds_resolve(zb_s3_creds *out, zb_ctx *ctx);

/* Fails the case when msg contains needle. */
#define CREDS_NOT_IN(msg, needle)                                         \
    do {                                                                  \
        if (strstr((msg), (needle)) != NULL)                              \
            zbt__fail(__FILE__, __LINE__, "\"%s\" contains a secret: %s", \
                      (msg), (needle));                                   \
    } while (0)

#endif

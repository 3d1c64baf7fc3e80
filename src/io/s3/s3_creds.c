/*
 * io/s3/s3_creds.c - the credentials chain of s3_creds.h.
 *
 * This first version knows the static keys of zb_s3_config and the AWS
 * environment variables; the other sources of s3_creds.h come next.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_creds.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"

struct zb_s3_creds_provider {
    pthread_mutex_t lock;
    zb_s3_creds fixed;               /* static keys, when given */
    int have_fixed;
};

/* Copies src into a fixed field; non-zero when it does not fit. */
static int copy_field(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);

    if (n >= size)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

int zb_s3_creds_provider_new(zb_s3_creds_provider **out, zb_ctx *ctx,
                             const zb_s3_config *cfg)
{
    zb_s3_creds_provider *p;

    ZB_ASSERT_ARG(out && ctx && cfg);
    *out = NULL;
    if ((p = zb_calloc(1, sizeof *p)) == NULL)
        return zb_fail_oom(ctx);
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        zb_free(p);
        return zb_fail(ctx, ZB_ERROR, "cannot create a mutex");
    }
    if (cfg->access_key_id != NULL && cfg->access_key_id[0] != '\0') {
        if (cfg->secret_access_key == NULL ||
            copy_field(p->fixed.access_key_id, sizeof p->fixed.access_key_id,
                       cfg->access_key_id) ||
            copy_field(p->fixed.secret_access_key,
                       sizeof p->fixed.secret_access_key,
                       cfg->secret_access_key) ||
            copy_field(p->fixed.session_token, sizeof p->fixed.session_token,
                       cfg->session_token ? cfg->session_token : "") ||
            copy_field(p->fixed.source, sizeof p->fixed.source,
                       cfg->credentials_source ? cfg->credentials_source
                                               : "the configured keys")) {
            zb_s3_creds_provider_free(p);
            return zb_fail(ctx, ZB_EUSAGE,
                           "S3 credentials: an access key id needs its "
                           "secret, and each must be shorter than 256 "
                           "bytes");
        }
        p->have_fixed = 1;
    }
    *out = p;
    return ZB_OK;
}

/* Clears secrets through a volatile pointer, so the stores are kept. */
static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n--)
        *v++ = 0;
}

void zb_s3_creds_provider_free(zb_s3_creds_provider *p)
{
    if (p == NULL)
        return;
    pthread_mutex_destroy(&p->lock);
    wipe(&p->fixed, sizeof p->fixed);
    zb_free(p);
}

static int from_environment(zb_s3_creds *out)
{
    const char *id = getenv("AWS_ACCESS_KEY_ID");
    const char *secret = getenv("AWS_SECRET_ACCESS_KEY");
    const char *token = getenv("AWS_SESSION_TOKEN");

    if (id == NULL || id[0] == '\0' || secret == NULL || secret[0] == '\0')
        return 0;
    memset(out, 0, sizeof *out);
    if (copy_field(out->access_key_id, sizeof out->access_key_id, id) ||
        copy_field(out->secret_access_key, sizeof out->secret_access_key,
                   secret) ||
        copy_field(out->session_token, sizeof out->session_token,
                   token ? token : ""))
        return -1;
    snprintf(out->source, sizeof out->source, "AWS_ACCESS_KEY_ID");
    return 1;
}

int zb_s3_creds_current(zb_s3_creds *out, zb_s3_creds_provider *p,
                        zb_ctx *ctx)
{
    int found;

    ZB_ASSERT_ARG(out && p && ctx);
    if (p->have_fixed) {
        *out = p->fixed;
        return ZB_OK;
    }
    if ((found = from_environment(out)) < 0)
        return zb_fail(ctx, ZB_EUSAGE,
                       "S3 credentials in AWS_ACCESS_KEY_ID / "
                       "AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN are too "
                       "long");
    if (found)
        return ZB_OK;
    return zb_fail(ctx, ZB_ENOTFOUND,
                   "no S3 credentials: tried the configured keys "
                   "(ZAMBONI_S3_ACCESS_KEY_ID) and AWS_ACCESS_KEY_ID");
}

void zb_s3_creds_invalidate(zb_s3_creds_provider *p)
{
    (void)p;    /* static and environment keys cannot be fetched anew */
}

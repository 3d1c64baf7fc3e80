/*
 * io/s3/s3_creds.c - the credentials provider of s3_creds.h: which source
 * is asked in which order, and when credentials are fetched again.
 *
 * zb_s3_creds_current walks the chain (resolve) the first time and keeps
 * what it found. Keys without an expiry (static, environment, profile)
 * are kept until zb_s3_creds_invalidate. Temporary ones are fetched again
 * when less than REFRESH_AHEAD_MS remain: the first thread that sees this
 * fetches, outside the lock, while the others go on with the old ones as
 * long as those are still valid (they wait only when the old ones have
 * run out or were invalidated). A failed refresh while the old ones are
 * still valid logs a warning and keeps them, and is not tried again for
 * RETRY_AFTER_FAILURE_MS, so a dead endpoint is not asked at every
 * request. Secrets are wiped from every copy the provider held.
 *
 * Static keys that come with a refresh callback (a catalog's vended,
 * temporary keys) are held as the chain's would be: the callback takes
 * the chain's place in a fetch, before their expiry or after the store
 * refused them, and the chain is never walked for them.
 *
 * The sources themselves are in s3_creds_profile.c (the AWS files) and
 * s3_creds_remote.c (STS, container, IMDS); their replies are parsed in
 * s3_creds_parse.c.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_creds_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define REFRESH_AHEAD_MS (5 * 60 * 1000)
#define RETRY_AFTER_FAILURE_MS (10 * 1000)
/* Fetched ones that are themselves due soon are not fetched again more
 * often than this (an endpoint handing out short-lived keys). */
#define MIN_REFETCH_MS 1000

struct zb_s3_creds_provider {
    pthread_mutex_t lock;
    pthread_cond_t done;             /* a fetch finished */
    zb_s3_creds fixed;               /* static keys, when given */
    int have_fixed;
    zb_s3_creds cached;              /* what the chain found last */
    int have_cached;
    int invalid;                     /* the store refused cached */
    int fetching;                    /* a thread is walking the chain */
    int64_t fetched_ms;              /* when cached was fetched */
    int64_t failed_ms;               /* last failed refresh; 0: none */
    /* zb_s3_config's refresh callback; fetches use it, not the chain */
    int (*refresh)(void *user, zb_ctx *ctx, zb_s3_credentials *out);
    void (*release)(void *user);
    void *user;
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        zb_free(p);
        return zb_fail(ctx, ZB_ERROR, "cannot create a condition variable");
    }
    if (cfg->access_key_id != NULL && cfg->access_key_id[0] != '\0') {
        if (cfg->secret_access_key == NULL ||
            zb_s3_creds__copy(p->fixed.access_key_id,
                              sizeof p->fixed.access_key_id,
                              cfg->access_key_id) ||
            zb_s3_creds__copy(p->fixed.secret_access_key,
                              sizeof p->fixed.secret_access_key,
                              cfg->secret_access_key) ||
            zb_s3_creds__copy(p->fixed.session_token,
                              sizeof p->fixed.session_token,
                              cfg->session_token ? cfg->session_token : "")) {
            zb_s3_creds_provider_free(p);
            return zb_fail(ctx, ZB_EUSAGE,
                           "S3 credentials: an access key id needs its "
                           "secret, and each must be shorter than 256 "
                           "bytes");
        }
        snprintf(p->fixed.source, sizeof p->fixed.source, "%s",
                 cfg->credentials_source ? cfg->credentials_source
                                         : "the configured keys");
        p->have_fixed = 1;
        if (cfg->refresh_credentials != NULL) {
            /* temporary: kept as the chain's, fetched by the callback */
            p->fixed.expires_ms = cfg->session_token_expires_ms > 0
                                      ? cfg->session_token_expires_ms : 0;
            p->cached = p->fixed;
            p->have_cached = 1;
            p->fetched_ms = now_ms();
            zb_s3_creds__wipe(&p->fixed, sizeof p->fixed);
            p->have_fixed = 0;
            p->refresh = cfg->refresh_credentials;
        }
    }
    /* owned from here on (zamboni/io_s3.h), used or not */
    p->release = cfg->refresh_release;
    p->user = cfg->refresh_user;
    *out = p;
    return ZB_OK;
}

void zb_s3_creds_provider_free(zb_s3_creds_provider *p)
{
    if (p == NULL)
        return;
    if (p->release != NULL)
        p->release(p->user);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    zb_s3_creds__wipe(p, sizeof *p);
    zb_free(p);
}

/* Source 2. */
static int from_environment(zb_s3_creds *out, zb_ctx *ctx)
{
    const char *id = getenv("AWS_ACCESS_KEY_ID");
    const char *secret = getenv("AWS_SECRET_ACCESS_KEY");
    const char *token = getenv("AWS_SESSION_TOKEN");

    if (id == NULL || id[0] == '\0')
        return 0;
    if (secret == NULL || secret[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "S3 credentials: AWS_ACCESS_KEY_ID "
                       "is set but AWS_SECRET_ACCESS_KEY is not");
    memset(out, 0, sizeof *out);
    if (zb_s3_creds__copy(out->access_key_id, sizeof out->access_key_id,
                          id) ||
        zb_s3_creds__copy(out->secret_access_key,
                          sizeof out->secret_access_key, secret) ||
        zb_s3_creds__copy(out->session_token, sizeof out->session_token,
                          token ? token : "")) {
        zb_s3_creds__wipe(out, sizeof *out);
        return zb_fail(ctx, ZB_EUSAGE,
                       "S3 credentials in AWS_ACCESS_KEY_ID / "
                       "AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN are too "
                       "long");
    }
    snprintf(out->source, sizeof out->source, "AWS_ACCESS_KEY_ID");
    return 1;
}

/* Walks sources 2 to 6 (1 never gets here). ZB_OK with out filled, or
 * the first configured source's error, or ZB_ENOTFOUND. */
static int resolve(zb_s3_creds *out, zb_ctx *ctx)
{
    zb_buf tried = ZB_BUF_INIT(2048);
    int rc;

    zb_buf_puts(&tried, "ZAMBONI_S3_ACCESS_KEY_ID, AWS_ACCESS_KEY_ID");
    if ((rc = from_environment(out, ctx)) == 0 &&
        (rc = zb_s3_creds__from_profile(out, ctx, &tried)) == 0 &&
        (rc = zb_s3_creds__from_web_identity(out, ctx, &tried)) == 0 &&
        (rc = zb_s3_creds__from_container(out, ctx, &tried)) == 0 &&
        (rc = zb_s3_creds__from_imds(out, ctx, &tried)) == 0)
        rc = zb_fail(ctx, ZB_ENOTFOUND,
                     "no S3 credentials: tried %s; set AWS_ACCESS_KEY_ID "
                     "and AWS_SECRET_ACCESS_KEY (or ZAMBONI_S3_ACCESS_KEY_ID "
                     "and ZAMBONI_S3_SECRET_ACCESS_KEY), or AWS_PROFILE "
                     "with ~/.aws/credentials",
                     tried.ptr ? tried.ptr : "");
    zb_buf_free(&tried);
    if (rc < 0)
        return rc;
    zb_log_debug(ctx, "S3 credentials from %s", out->source);
    return ZB_OK;
}

/* A fetch through the refresh callback; the source stays the keys'. */
static int refetch(zb_s3_creds *out, const zb_s3_creds_provider *p,
                   zb_ctx *ctx, const char *source)
{
    zb_s3_credentials *k;
    int rc;

    if ((k = zb_calloc(1, sizeof *k)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = p->refresh(p->user, ctx, k)) == ZB_OK) {
        k->access_key_id[sizeof k->access_key_id - 1] = '\0';
        k->secret_access_key[sizeof k->secret_access_key - 1] = '\0';
        k->session_token[sizeof k->session_token - 1] = '\0';
        if (k->access_key_id[0] == '\0' || k->secret_access_key[0] == '\0')
            rc = zb_fail(ctx, ZB_ECORRUPT, "S3 credentials from %s: the "
                         "refreshed keys lack an access key id or its "
                         "secret", source);
    }
    if (rc == ZB_OK) {
        memset(out, 0, sizeof *out);
        memcpy(out->access_key_id, k->access_key_id,
               sizeof out->access_key_id);
        memcpy(out->secret_access_key, k->secret_access_key,
               sizeof out->secret_access_key);
        memcpy(out->session_token, k->session_token,
               sizeof out->session_token);
        out->expires_ms = k->expires_ms > 0 ? k->expires_ms : 0;
        snprintf(out->source, sizeof out->source, "%s", source);
        zb_log_debug(ctx, "S3 credentials from %s refreshed", out->source);
    }
    zb_s3_creds__wipe(k, sizeof *k);
    zb_free(k);
    return rc;
}

/* Whether cached is due for a fetch at now. */
static int due(const zb_s3_creds_provider *p, int64_t now)
{
    if (!p->have_cached || p->invalid)
        return 1;
    if (p->cached.expires_ms == 0 ||
        p->cached.expires_ms - now > REFRESH_AHEAD_MS)
        return 0;
    if (p->failed_ms != 0 && now - p->failed_ms < RETRY_AFTER_FAILURE_MS &&
        p->cached.expires_ms > now)
        return 0;
    return now - p->fetched_ms >= MIN_REFETCH_MS ||
           p->cached.expires_ms <= now;
}

/* Whether cached may still be handed out at now. */
static int usable(const zb_s3_creds_provider *p, int64_t now)
{
    return p->have_cached && !p->invalid &&
           (p->cached.expires_ms == 0 || p->cached.expires_ms > now);
}

int zb_s3_creds_current(zb_s3_creds *out, zb_s3_creds_provider *p,
                        zb_ctx *ctx)
{
    zb_s3_creds *fresh = NULL;
    char source[sizeof fresh->source];
    int64_t now;
    int rc;

    ZB_ASSERT_ARG(out && p && ctx);
    if (p->have_fixed) {
        *out = p->fixed;
        return ZB_OK;
    }
    pthread_mutex_lock(&p->lock);
    for (;;) {
        now = now_ms();
        if (!due(p, now) || (p->fetching && usable(p, now))) {
            *out = p->cached;
            pthread_mutex_unlock(&p->lock);
            return ZB_OK;
        }
        if (!p->fetching)
            break;
        pthread_cond_wait(&p->done, &p->lock);
    }
    p->fetching = 1;
    snprintf(source, sizeof source, "%s", p->cached.source);
    pthread_mutex_unlock(&p->lock);

    if ((fresh = zb_calloc(1, sizeof *fresh)) == NULL)
        rc = zb_fail_oom(ctx);
    else if (p->refresh != NULL)
        rc = refetch(fresh, p, ctx, source);
    else
        rc = resolve(fresh, ctx);

    pthread_mutex_lock(&p->lock);
    p->fetching = 0;
    now = now_ms();
    if (rc == ZB_OK) {
        p->cached = *fresh;
        p->have_cached = 1;
        p->invalid = 0;
        p->fetched_ms = now;
        p->failed_ms = 0;
        *out = p->cached;
    } else if (usable(p, now)) {
        zb_log_warn(ctx, "S3 credentials from %s could not be refreshed, "
                    "kept until they expire in %llds: %s", p->cached.source,
                    (long long)((p->cached.expires_ms - now) / 1000),
                    ctx->err.msg);
        zb_err_clear(&ctx->err);
        p->failed_ms = now;
        *out = p->cached;
        rc = ZB_OK;
    }
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
    if (fresh != NULL) {
        zb_s3_creds__wipe(fresh, sizeof *fresh);
        zb_free(fresh);
    }
    return rc;
}

void zb_s3_creds_invalidate(zb_s3_creds_provider *p)
{
    if (p == NULL || p->have_fixed)
        return;    /* static keys cannot be fetched anew */
    pthread_mutex_lock(&p->lock);
    p->invalid = 1;
    p->failed_ms = 0;
    pthread_mutex_unlock(&p->lock);
}

/*
 * tests/unit/io/test_s3_creds_refresh.c - static keys that come with a
 * refresh callback (zb_s3_config.refresh_credentials: a catalog's vended,
 * temporary keys): used as given until five minutes before their expiry,
 * then fetched through the callback, once for many threads; fetched
 * after the store refused them (zb_s3_creds_invalidate); a failed
 * refresh keeps keys that are still valid; the chain is never walked
 * for them; the callback's user is released once, with the provider.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zbtest.h"
#include "test_s3_creds_util.h"
#include "util/err.h"

typedef struct fake_catalog {
    pthread_mutex_t lock;
    int calls, releases, fail, empty_secret;
    int64_t lifetime_ms;             /* of the keys handed out */
} fake_catalog;

static fake_catalog fake = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0 };

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static int refresh(void *user, zb_ctx *ctx, zb_s3_credentials *out)
{
    fake_catalog *f = user;
    int n;

    pthread_mutex_lock(&f->lock);
    n = ++f->calls;
    pthread_mutex_unlock(&f->lock);
    nap_ms(50);                      /* long enough for threads to meet */
    if (f->fail)
        return zb_fail(ctx, ZB_EIO, "catalog credentials endpoint: HTTP "
                       "503");
    snprintf(out->access_key_id, sizeof out->access_key_id, "ASIAFRESH%d", n);
    snprintf(out->secret_access_key, sizeof out->secret_access_key, "%s",
             f->empty_secret ? "" : "fresh-secret");
    snprintf(out->session_token, sizeof out->session_token, "fresh-token-%d",
             n);
    out->expires_ms = f->lifetime_ms ? wall_ms() + f->lifetime_ms : 0;
    return ZB_OK;
}

static void release(void *user)
{
    ((fake_catalog *)user)->releases++;
}

/* A provider for vended keys expiring expires_in_ms from now (0: the
 * expiry is not known). */
static zb_s3_creds_provider *vended(zb_ctx *ctx, int64_t expires_in_ms)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;

    creds_env_reset();
    /* the chain has keys too: a refresh must never take them */
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    fake.calls = fake.releases = fake.fail = fake.empty_secret = 0;
    fake.lifetime_ms = 3600 * 1000;
    zb_ctx_init(ctx);
    cfg.access_key_id = "ASIAVENDED";
    cfg.secret_access_key = "vended-secret";
    cfg.session_token = "vended-token";
    cfg.credentials_source = "the catalog's vended credentials";
    cfg.session_token_expires_ms = expires_in_ms ? wall_ms() + expires_in_ms
                                                 : 0;
    cfg.refresh_credentials = refresh;
    cfg.refresh_release = release;
    cfg.refresh_user = &fake;
    if (zb_s3_creds_provider_new(&p, ctx, &cfg) != ZB_OK)
        zbt__fail(__FILE__, __LINE__, "provider: %s", ctx->err.msg);
    return p;
}

static void test_s3_creds_refresh__used_until_refused(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, 0);

    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAVENDED");
    ZBT_EQ_STR(c.secret_access_key, "vended-secret");
    ZBT_EQ_STR(c.session_token, "vended-token");
    ZBT_EQ_STR(c.source, "the catalog's vended credentials");
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_INT(fake.calls, 0);
    /* the store answered ExpiredToken: the callback, not the chain */
    zb_s3_creds_invalidate(p);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH1");
    ZBT_EQ_STR(c.secret_access_key, "fresh-secret");
    ZBT_EQ_STR(c.session_token, "fresh-token-1");
    ZBT_EQ_STR(c.source, "the catalog's vended credentials");
    ZBT_CHECK(c.expires_ms > wall_ms() + 3500 * 1000);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH1");
    ZBT_EQ_INT(fake.calls, 1);
    ZBT_EQ_INT(fake.releases, 0);
    zb_s3_creds_provider_free(p);
    ZBT_EQ_INT(fake.releases, 1);
}

/* Keys with 5 min + 2 s left are used; 2.3 s later they are due. */
static void test_s3_creds_refresh__before_expiry(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, 302 * 1000);

    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAVENDED");
    ZBT_EQ_INT(fake.calls, 0);
    nap_ms(2300);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH1");
    ZBT_EQ_INT(fake.calls, 1);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH1");
    ZBT_EQ_INT(fake.calls, 1);
    zb_s3_creds_provider_free(p);
    ZBT_EQ_INT(fake.releases, 1);
}

static void test_s3_creds_refresh__expired_on_arrival(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, -1000);

    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH1");
    ZBT_EQ_INT(fake.calls, 1);
    zb_s3_creds_provider_free(p);
}

typedef struct racer {
    zb_s3_creds_provider *p;
    int rc;
    char id[64];
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    zb_s3_creds c;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    r->rc = zb_s3_creds_current(&c, r->p, &ctx);
    snprintf(r->id, sizeof r->id, "%s", c.access_key_id);
    return NULL;
}

static void test_s3_creds_refresh__one_fetch_for_many_threads(void)
{
    pthread_t t[8];
    racer r[8];
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, 0);

    zb_s3_creds_invalidate(p);
    for (int i = 0; i < 8; i++) {
        r[i].p = p;
        ZBT_EQ_INT(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        ZBT_EQ_INT(r[i].rc, ZB_OK);
        /* refused keys are never handed out again */
        ZBT_EQ_STR(r[i].id, "ASIAFRESH1");
    }
    ZBT_EQ_INT(fake.calls, 1);
    zb_s3_creds_provider_free(p);
}

static void test_s3_creds_refresh__failure_keeps_valid_keys(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, 302 * 1000);

    fake.fail = 1;
    nap_ms(2300);
    /* due, the refresh fails, the keys have 5 minutes left: kept */
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAVENDED");
    ZBT_EQ_STR(ctx.err.msg, "");
    ZBT_EQ_INT(fake.calls, 1);
    /* not asked again at every request */
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_INT(fake.calls, 1);
    /* refused by the store: the refresh's error comes, no secret in it */
    zb_s3_creds_invalidate(p);
    ZBT_RC(zb_s3_creds_current(&c, p, &ctx), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "catalog credentials endpoint");
    CREDS_NOT_IN(ctx.err.msg, "vended-secret");
    /* the endpoint is back */
    fake.fail = 0;
    zb_err_clear(&ctx.err);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAFRESH3");
    ZBT_EQ_INT(fake.calls, 3);
    zb_s3_creds_provider_free(p);
    ZBT_EQ_INT(fake.releases, 1);
}

static void test_s3_creds_refresh__keys_without_secret_refused(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    zb_s3_creds_provider *p = vended(&ctx, 0);

    fake.empty_secret = 1;
    zb_s3_creds_invalidate(p);
    ZBT_RC(zb_s3_creds_current(&c, p, &ctx), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "the catalog's vended credentials");
    ZBT_CONTAINS(ctx.err.msg, "secret");
    zb_s3_creds_provider_free(p);
}

/* A callback with no keys to serve is still released: the backend owns
 * its user once the provider exists. */
static void test_s3_creds_refresh__released_without_keys(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_ctx ctx;

    creds_env_reset();
    fake.releases = 0;
    zb_ctx_init(&ctx);
    cfg.refresh_credentials = refresh;
    cfg.refresh_release = release;
    cfg.refresh_user = &fake;
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    zb_s3_creds_provider_free(p);
    ZBT_EQ_INT(fake.releases, 1);
}

const zbt_case test_s3_creds_refresh[] = {
    ZBT_CASE(test_s3_creds_refresh__used_until_refused),
    ZBT_CASE(test_s3_creds_refresh__before_expiry),
    ZBT_CASE(test_s3_creds_refresh__expired_on_arrival),
    ZBT_CASE(test_s3_creds_refresh__one_fetch_for_many_threads),
    ZBT_CASE(test_s3_creds_refresh__failure_keeps_valid_keys),
    ZBT_CASE(test_s3_creds_refresh__keys_without_secret_refused),
    ZBT_CASE(test_s3_creds_refresh__released_without_keys),
    ZBT_END
};

/*
 * The store refusing keys as expired (fault_endpoint.mjs: 400
 * ExpiredToken to keys named EXPIRED*, with an XML body on GET and none
 * on HEAD): the credentials are invalidated and the request sent once
 * more, with the keys a refresh callback hands out (a catalog's vended
 * ones) or the same static keys; never a second time. The endpoint counts
 * the requests of each key (count/<key>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "util/buf.h"
#include "zamboni/io_s3.h"
#include "zbtest.h"

static int refreshes;
static const char *next_key;

static int refresh(void *user, zb_ctx *ctx, zb_s3_credentials *out)
{
    (void)user;
    (void)ctx;
    refreshes++;
    snprintf(out->access_key_id, sizeof out->access_key_id, "%s", next_key);
    snprintf(out->secret_access_key, sizeof out->secret_access_key, "s");
    snprintf(out->session_token, sizeof out->session_token, "fresh-token");
    return ZB_OK;
}

/* The fault endpoint with keys id (a session token: temporary) and,
 * when refreshed, the refresh callback above. */
static void expired_setup(zb_io **io, zb_ctx *ctx, const char *id,
                          int refreshed)
{
    zb_s3_config c;
    const char *e = getenv("ZB_TEST_FAULT_ENDPOINT");

    ZBT_CHECK(e != NULL);
    memset(&c, 0, sizeof c);
    c.endpoint = e;
    c.region = "us-east-1";
    c.path_style = 1;
    c.access_key_id = id;
    c.secret_access_key = "s";
    c.session_token = "vended-token";
    c.max_attempts = 3;
    c.max_retry_seconds = 5;
    c.timeout_seconds = 5;
    if (refreshed)
        c.refresh_credentials = refresh;
    refreshes = 0;
    zb_ctx_init(ctx);
    ZBT_OK_CTX(zb_io_new(io, ctx), ctx);
    ZBT_OK_CTX(zb_io_add_s3(*io, ctx, &c), ctx);
}

/* Requests the endpoint saw for key (in bucket b). */
static int seen(zb_io *io, const char *key)
{
    zb_buf b = ZB_BUF_INIT(64);
    char uri[256];
    zb_ctx ctx;
    int n;

    zb_ctx_init(&ctx);
    snprintf(uri, sizeof uri, "s3://b/count/%s", key);
    ZBT_OK_CTX(zb_io__read_all(&b, io, &ctx, uri), &ctx);
    n = atoi(zb_buf_cstr(&b));
    zb_buf_free(&b);
    return n;
}

/* How many requests a ranged read makes with keys that are not refused. */
static int read_requests(zb_io *counter)
{
    zb_ctx ctx;
    char buf[16];

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_read_range(counter, &ctx, "s3://b/expired/base", 7, buf,
                                16), &ctx);
    return seen(counter, "expired/base");
}

static void test_io_s3__expired_token_refreshed(void)
{
    zb_io *io = NULL, *counter = NULL;
    zb_io_stat st;
    zb_ctx ctx;
    char buf[16];
    int base;

    expired_setup(&counter, &ctx, "COUNTER", 0);
    base = read_requests(counter);
    ZBT_CHECK(base >= 1);
    next_key = "FRESHKEY";
    /* a GET: the reply's XML names ExpiredToken; its first request is
     * refused once, the refreshed keys serve the rest */
    expired_setup(&io, &ctx, "EXPIREDKEY", 1);
    ZBT_OK_CTX(zb_io_read_range(io, &ctx, "s3://b/expired/get", 7, buf, 16),
               &ctx);
    ZBT_EQ_INT((unsigned char)buf[0], (7 * 7) % 251);
    ZBT_EQ_INT(refreshes, 1);
    ZBT_EQ_INT(seen(counter, "expired/get"), base + 1);
    /* the fresh keys stay: no refusal, no refresh */
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, "s3://b/expired/get"), &ctx);
    ZBT_EQ_INT(refreshes, 1);
    ZBT_EQ_INT(seen(counter, "expired/get"), base + 2);
    zb_io_free(io);
    /* a HEAD: a bare 400 to temporary keys */
    expired_setup(&io, &ctx, "EXPIREDKEY", 1);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, "s3://b/expired/head"), &ctx);
    ZBT_EQ_U64(st.size_bytes, 200000);
    ZBT_EQ_INT(refreshes, 1);
    ZBT_EQ_INT(seen(counter, "expired/head"), 2);
    zb_io_free(io);
    zb_io_free(counter);
}

static void test_io_s3__expired_token_retried_once(void)
{
    zb_io *io = NULL, *counter = NULL;
    zb_io_stat st;
    zb_ctx ctx;
    char buf[16];

    expired_setup(&counter, &ctx, "COUNTER", 0);
    /* the refresh hands out keys that are refused too: each request the
     * read makes is sent once more after a refresh, then fails */
    next_key = "EXPIREDAGAIN";
    expired_setup(&io, &ctx, "EXPIREDKEY", 1);
    ZBT_RC(zb_io_read_range(io, &ctx, "s3://b/expired/twice", 0, buf, 16),
           ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 400");
    ZBT_CONTAINS(ctx.err.msg, "expired/twice");
    ZBT_CHECK(refreshes >= 1);
    ZBT_EQ_INT(seen(counter, "expired/twice"), 2 * refreshes);
    zb_io_free(io);
    /* a HEAD alike */
    expired_setup(&io, &ctx, "EXPIREDKEY", 1);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://b/expired/head2"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 400");
    ZBT_EQ_INT(refreshes, 1);
    ZBT_EQ_INT(seen(counter, "expired/head2"), 2);
    zb_io_free(io);
    /* static keys cannot be fetched anew: sent once more, then refused */
    expired_setup(&io, &ctx, "EXPIREDSTATIC", 0);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://b/expired/static"), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "HTTP 400");
    ZBT_EQ_INT(seen(counter, "expired/static"), 2);
    zb_io_free(io);
    zb_io_free(counter);
}

const zbt_case test_io_s3_expired[] = {
    ZBT_CASE(test_io_s3__expired_token_refreshed),
    ZBT_CASE(test_io_s3__expired_token_retried_once),
    ZBT_END
};

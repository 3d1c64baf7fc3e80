/*
 * tests/unit/io/test_s3_creds_chain.c - the local sources of the chain
 * (static keys, AWS environment, profile files): each found and named, in
 * order, and the errors of a source that is configured but broken. No
 * network: IMDS is off (creds_env_reset) except where a closed loopback
 * port stands in for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "zbtest.h"
#include "test_s3_creds_util.h"

static void test_s3_creds_chain__static_keys_first(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_s3_creds c;
    zb_ctx ctx;

    creds_env_reset();
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    zb_ctx_init(&ctx);
    cfg.access_key_id = "AKIAFIXED";
    cfg.secret_access_key = "fixed-secret";
    cfg.session_token = "fixed-token";
    cfg.credentials_source = "ZAMBONI_S3_ACCESS_KEY_ID";
    ZBT_OK_CTX(zb_s3_creds_provider_new(&p, &ctx, &cfg), &ctx);
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAFIXED");
    ZBT_EQ_STR(c.secret_access_key, "fixed-secret");
    ZBT_EQ_STR(c.session_token, "fixed-token");
    ZBT_EQ_STR(c.source, "ZAMBONI_S3_ACCESS_KEY_ID");
    ZBT_EQ_INT(c.expires_ms, 0);
    zb_s3_creds_invalidate(p);           /* static keys stay */
    ZBT_OK_CTX(zb_s3_creds_current(&c, p, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAFIXED");
    zb_s3_creds_provider_free(p);
}

static void test_s3_creds_chain__static_key_without_secret(void)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    zb_ctx ctx;

    creds_env_reset();
    zb_ctx_init(&ctx);
    cfg.access_key_id = "AKIAFIXED";
    ZBT_RC(zb_s3_creds_provider_new(&p, &ctx, &cfg), ZB_EUSAGE);
    ZBT_CHECK(p == NULL);
    ZBT_CONTAINS(ctx.err.msg, "secret");
}

static void test_s3_creds_chain__environment(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    creds_env_reset();
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    setenv("AWS_SESSION_TOKEN", "env-token", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAENV");
    ZBT_EQ_STR(c.secret_access_key, "env-secret");
    ZBT_EQ_STR(c.session_token, "env-token");
    ZBT_EQ_STR(c.source, "AWS_ACCESS_KEY_ID");
}

static void test_s3_creds_chain__environment_without_secret(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    creds_env_reset();
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "AWS_SECRET_ACCESS_KEY");
}

static const char credentials_text[] =
    "# a comment\n"
    "[default]\n"
    "aws_access_key_id = AKIADEFAULT\n"
    "aws_secret_access_key = default-secret\n"
    "\n"
    "; another comment\n"
    "[dev]\r\n"
    "  aws_access_key_id=AKIADEV  \r\n"
    "aws_access_key_id=AKIADEV\r\n"
    "aws_secret_access_key\t=\tdev-secret\r\n"
    "aws_session_token = dev-token\r\n"
    "s3 =\n"
    "    max_concurrent_requests = 4\n"
    "[prod]\n"
    "region = eu-west-1\n";

static void test_s3_creds_chain__profile_default_in_home(void)
{
    const char *home = creds_env_reset();
    char want[4200];
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials", credentials_text);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIADEFAULT");
    ZBT_EQ_STR(c.secret_access_key, "default-secret");
    ZBT_EQ_STR(c.session_token, "");
    snprintf(want, sizeof want, "profile default (%s/.aws/credentials)",
             home);
    ZBT_EQ_STR(c.source, want);
}

static void test_s3_creds_chain__profile_named(void)
{
    const char *home = creds_env_reset();
    char path[4096], want[4200];
    zb_s3_creds c;
    zb_ctx ctx;

    snprintf(path, sizeof path, "%s",
             creds_write(home, "elsewhere/creds.ini", credentials_text));
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    setenv("AWS_PROFILE", "dev", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIADEV");
    ZBT_EQ_STR(c.secret_access_key, "dev-secret");
    ZBT_EQ_STR(c.session_token, "dev-token");
    snprintf(want, sizeof want, "profile dev (%s)", path);
    ZBT_EQ_STR(c.source, want);
}

static void test_s3_creds_chain__profile_in_config_file(void)
{
    const char *home = creds_env_reset();
    char want[4200];
    zb_s3_creds c;
    zb_ctx ctx;

    /* In the config file a profile's section is "[profile NAME]"; a
     * "[NAME]" there is another thing and must not match. */
    creds_write(home, ".aws/config",
                "[default]\nregion = us-east-1\n"
                "[ops]\naws_access_key_id = WRONG\n"
                "aws_secret_access_key = wrong\n"
                "[profile   ops]\n"
                "aws_access_key_id = AKIAOPS\n"
                "aws_secret_access_key = ops-secret\n");
    setenv("AWS_PROFILE", "ops", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAOPS");
    ZBT_EQ_STR(c.secret_access_key, "ops-secret");
    snprintf(want, sizeof want, "profile ops (%s/.aws/config)", home);
    ZBT_EQ_STR(c.source, want);
}

static void test_s3_creds_chain__credentials_file_beats_config(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials",
                "[dev]\naws_access_key_id = AKIAFROMCREDS\n"
                "aws_secret_access_key = s1\n");
    creds_write(home, ".aws/config",
                "[profile dev]\naws_access_key_id = AKIAFROMCONFIG\n"
                "aws_secret_access_key = s2\n");
    setenv("AWS_PROFILE", "dev", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAFROMCREDS");
    ZBT_CONTAINS(c.source, "/.aws/credentials)");
}

static void test_s3_creds_chain__environment_beats_profile(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials", credentials_text);
    setenv("AWS_PROFILE", "dev", 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIAENV");
    ZBT_EQ_STR(c.source, "AWS_ACCESS_KEY_ID");
}

static void test_s3_creds_chain__profile_beats_web_identity(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials", credentials_text);
    /* Would fail if asked: the STS endpoint is a closed loopback port. */
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE",
           creds_write(home, "token", "jwt"), 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
    setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1/", 1);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(creds_resolve(&c, &ctx), &ctx);
    ZBT_EQ_STR(c.access_key_id, "AKIADEFAULT");
    ZBT_CONTAINS(c.source, "profile default");
}

static void test_s3_creds_chain__missing_named_profile_is_an_error(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials", credentials_text);
    setenv("AWS_PROFILE", "staging", 1);
    /* A later source that would answer must not be reached. */
    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:1/c", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "AWS_PROFILE=staging");
    ZBT_CONTAINS(ctx.err.msg, "/.aws/credentials");
    ZBT_CONTAINS(ctx.err.msg, "/.aws/config");
    ZBT_CONTAINS(ctx.err.msg, "not a profile");
}

static void test_s3_creds_chain__named_profile_without_keys(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials", credentials_text);
    setenv("AWS_PROFILE", "prod", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "AWS_PROFILE=prod has no aws_access_key_id");
}

static void test_s3_creds_chain__broken_profile_file(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    creds_write(home, ".aws/credentials",
                "[default]\naws_access_key_id = AKIAX\n"
                "aws_secret_access_key = very-secret\n"
                "this line is nonsense\n");
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/.aws/credentials:4:");
    CREDS_NOT_IN(ctx.err.msg, "very-secret");
}

static void test_s3_creds_chain__nothing_found_lists_sources(void)
{
    zb_s3_creds c;
    zb_ctx ctx;
    struct timespec t0, t1;
    double s;

    creds_env_reset();
    /* IMDS on, at a loopback port where nothing listens: it must fail
     * fast and count as "not found", not as an error. */
    unsetenv("AWS_EC2_METADATA_DISABLED");
    setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1", 1);
    zb_ctx_init(&ctx);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_ENOTFOUND);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ZBT_CHECK(s < 3.0);
    ZBT_CONTAINS(ctx.err.msg, "no S3 credentials: tried");
    ZBT_CONTAINS(ctx.err.msg, "AWS_ACCESS_KEY_ID");
    ZBT_CONTAINS(ctx.err.msg, "profile default");
    ZBT_CONTAINS(ctx.err.msg, "web identity");
    ZBT_CONTAINS(ctx.err.msg, "container");
    ZBT_CONTAINS(ctx.err.msg, "EC2 instance metadata (no answer at "
                              "http://127.0.0.1:1)");
    ZBT_CONTAINS(ctx.err.msg, "set AWS_ACCESS_KEY_ID");
}

static void test_s3_creds_chain__imds_disabled_named(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    creds_env_reset();
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "AWS_EC2_METADATA_DISABLED");
}

static void test_s3_creds_chain__web_identity_needs_role(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    setenv("AWS_WEB_IDENTITY_TOKEN_FILE",
           creds_write(home, "token", "jwt"), 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "AWS_ROLE_ARN");
}

static void test_s3_creds_chain__web_identity_refuses_plain_http(void)
{
    const char *home = creds_env_reset();
    zb_s3_creds c;
    zb_ctx ctx;

    setenv("AWS_WEB_IDENTITY_TOKEN_FILE",
           creds_write(home, "token", "jwt-secret"), 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
    setenv("AWS_ENDPOINT_URL_STS", "http://sts.example.invalid/", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "https");
    CREDS_NOT_IN(ctx.err.msg, "jwt-secret");
}

static void test_s3_creds_chain__container_refuses_plain_http(void)
{
    zb_s3_creds c;
    zb_ctx ctx;

    creds_env_reset();
    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI",
           "http://creds.example.invalid/x", 1);
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "auth-secret", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "FULL_URI must be https");
    CREDS_NOT_IN(ctx.err.msg, "auth-secret");
}

static void test_s3_creds_chain__missing_token_file(void)
{
    const char *home = creds_env_reset();
    char path[4096];
    zb_s3_creds c;
    zb_ctx ctx;

    snprintf(path, sizeof path, "%s/no-such-token", home);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", path, 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
    setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1/", 1);
    zb_ctx_init(&ctx);
    ZBT_RC(creds_resolve(&c, &ctx), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "AWS_WEB_IDENTITY_TOKEN_FILE");
    ZBT_CONTAINS(ctx.err.msg, "no-such-token");
}

const zbt_case test_s3_creds_chain[] = {
    ZBT_CASE(test_s3_creds_chain__static_keys_first),
    ZBT_CASE(test_s3_creds_chain__static_key_without_secret),
    ZBT_CASE(test_s3_creds_chain__environment),
    ZBT_CASE(test_s3_creds_chain__environment_without_secret),
    ZBT_CASE(test_s3_creds_chain__profile_default_in_home),
    ZBT_CASE(test_s3_creds_chain__profile_named),
    ZBT_CASE(test_s3_creds_chain__profile_in_config_file),
    ZBT_CASE(test_s3_creds_chain__credentials_file_beats_config),
    ZBT_CASE(test_s3_creds_chain__environment_beats_profile),
    ZBT_CASE(test_s3_creds_chain__profile_beats_web_identity),
    ZBT_CASE(test_s3_creds_chain__missing_named_profile_is_an_error),
    ZBT_CASE(test_s3_creds_chain__named_profile_without_keys),
    ZBT_CASE(test_s3_creds_chain__broken_profile_file),
    ZBT_CASE(test_s3_creds_chain__nothing_found_lists_sources),
    ZBT_CASE(test_s3_creds_chain__imds_disabled_named),
    ZBT_CASE(test_s3_creds_chain__web_identity_needs_role),
    ZBT_CASE(test_s3_creds_chain__web_identity_refuses_plain_http),
    ZBT_CASE(test_s3_creds_chain__container_refuses_plain_http),
    ZBT_CASE(test_s3_creds_chain__missing_token_file),
    ZBT_END
};

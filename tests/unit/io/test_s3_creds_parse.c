/*
 * tests/unit/io/test_s3_creds_parse.c - the parsers of
 * src/io/s3/s3_creds_parse.c and the INI reader of s3_creds_profile.c on
 * good, truncated and corrupt input: a clear error, never a crash, never a
 * value quoted in the message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "zbtest.h"
#include "io/s3/s3_creds_int.h"

static const char sts_ok[] =
    "<AssumeRoleWithWebIdentityResponse "
    "xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
    "  <AssumeRoleWithWebIdentityResult>\n"
    "    <Credentials>\n"
    "      <AccessKeyId>ASIAXML</AccessKeyId>\n"
    "      <SecretAccessKey>\n   xml-secret\n   </SecretAccessKey>\n"
    "      <SessionToken>xml-token&amp;more</SessionToken>\n"
    "      <Expiration>2030-01-02T03:04:05Z</Expiration>\n"
    "    </Credentials>\n"
    "  </AssumeRoleWithWebIdentityResult>\n"
    "</AssumeRoleWithWebIdentityResponse>\n";

static void test_s3_creds_parse__iso8601(void)
{
    int64_t ms;

    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "1970-01-01T00:00:00Z"),
               ZB_OK);
    ZBT_EQ_INT(ms, 0);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-01-02T03:04:05Z"),
               ZB_OK);
    ZBT_EQ_INT(ms, 1893553445000LL);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-01-02T03:04:05.250Z"),
               ZB_OK);
    ZBT_EQ_INT(ms, 1893553445250LL);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms,
                                          "2030-01-02T05:04:05+02:00"),
               ZB_OK);
    ZBT_EQ_INT(ms, 1893553445000LL);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2024-02-29T00:00:00Z"),
               ZB_OK);
    ZBT_EQ_INT(ms, 1709164800000LL);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-01-02T03:04:05"),
               ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-13-02T03:04:05Z"),
               ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-01-02T03:04:05Zjunk"),
               ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "2030-01-02"), ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, "tomorrow"), ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_creds__parse_iso8601(&ms, ""), ZB_ECORRUPT);
}

static void test_s3_creds_parse__sts_reply(void)
{
    zb_s3_creds c = { 0 };
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds__parse_sts(&c, &ctx, "STS", sts_ok,
                                      strlen(sts_ok)), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAXML");
    ZBT_EQ_STR(c.secret_access_key, "xml-secret");
    ZBT_EQ_STR(c.session_token, "xml-token&more");
    ZBT_EQ_INT(c.expires_ms, 1893553445000LL);
}

static void test_s3_creds_parse__sts_truncated(void)
{
    size_t n = strlen(sts_ok);
    zb_s3_creds c;
    zb_ctx ctx;

    /* Every cut of the reply is an error, and none echoes a value. */
    for (size_t cut = 0; cut < n - 1; cut++) {
        zb_ctx_init(&ctx);
        memset(&c, 0, sizeof c);
        ZBT_EQ_INT(zb_s3_creds__parse_sts(&c, &ctx, "STS at x", sts_ok,
                                          cut), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "STS at x");
        ZBT_CHECK(strstr(ctx.err.msg, "xml-secret") == NULL);
        ZBT_EQ_STR(c.secret_access_key, "");
    }
}

static void test_s3_creds_parse__sts_corrupt(void)
{
    static const char *const bad[] = {
        "<html><body>Gateway Timeout</body></html>",
        "not xml at all",
        "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
        "<Credentials><AccessKeyId>A</AccessKeyId>"
        "<SecretAccessKey>s</SecretAccessKey>"
        "<SessionToken>t</SessionToken>"
        "<Expiration>never</Expiration></Credentials>"
        "</AssumeRoleWithWebIdentityResult>"
        "</AssumeRoleWithWebIdentityResponse>",
        "<r><Credentials><AccessKeyId></AccessKeyId>"
        "<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken>"
        "<Expiration>2030-01-02T03:04:05Z</Expiration></Credentials></r>",
        "<!DOCTYPE r [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
        "<r><Credentials><AccessKeyId>&e;</AccessKeyId></Credentials></r>",
        NULL
    };
    zb_s3_creds c;
    zb_ctx ctx;

    for (size_t i = 0; bad[i] != NULL; i++) {
        zb_ctx_init(&ctx);
        ZBT_EQ_INT(zb_s3_creds__parse_sts(&c, &ctx, "STS", bad[i],
                                          strlen(bad[i])), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "STS");
    }
}

static void test_s3_creds_parse__sts_deep_and_long(void)
{
    zb_buf b = ZB_BUF_INIT(1u << 20);
    zb_s3_creds c;
    zb_ctx ctx;

    for (int i = 0; i < 200; i++)
        ZBT_EQ_INT(zb_buf_puts(&b, "<a>"), ZB_OK);
    for (int i = 0; i < 200; i++)
        ZBT_EQ_INT(zb_buf_puts(&b, "</a>"), ZB_OK);
    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_creds__parse_sts(&c, &ctx, "STS", b.ptr, b.len),
               ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "nested too deeply");

    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_buf_puts(&b, "<r><Credentials><AccessKeyId>"), ZB_OK);
    for (int i = 0; i < 300; i++)
        ZBT_EQ_INT(zb_buf_putc(&b, 'K'), ZB_OK);
    ZBT_EQ_INT(zb_buf_puts(&b, "</AccessKeyId></Credentials></r>"), ZB_OK);
    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_creds__parse_sts(&c, &ctx, "STS", b.ptr, b.len),
               ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "longer than it may be");
    zb_buf_free(&b);
}

static void test_s3_creds_parse__sts_error_reply(void)
{
    static const char err[] =
        "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
        "<Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>"
        "<Message>token jwt-secret is bad</Message></Error>"
        "</ErrorResponse>";
    zb_s3_creds c;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_creds__parse_sts(&c, &ctx, "STS", err, strlen(err)),
               ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "InvalidIdentityToken");
    ZBT_CHECK(strstr(ctx.err.msg, "jwt-secret") == NULL);
}

static const char json_ok[] =
    "{\"Code\": \"Success\", \"Type\": \"AWS-HMAC\","
    " \"AccessKeyId\": \"ASIAJSON\", \"SecretAccessKey\": \"json-secret\","
    " \"Token\": \"json-token\", \"Expiration\": \"2030-01-02T03:04:05Z\"}";

static void test_s3_creds_parse__json_reply(void)
{
    static const char no_exp[] =
        "{\"AccessKeyId\": \"A\", \"SecretAccessKey\": \"s\"}";
    zb_s3_creds c = { 0 };
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds__parse_json(&c, &ctx, "IMDS", json_ok,
                                       strlen(json_ok), 1), &ctx);
    ZBT_EQ_STR(c.access_key_id, "ASIAJSON");
    ZBT_EQ_STR(c.secret_access_key, "json-secret");
    ZBT_EQ_STR(c.session_token, "json-token");
    ZBT_EQ_INT(c.expires_ms, 1893553445000LL);
    /* The container endpoint may leave Expiration and Token out. */
    ZBT_OK_CTX(zb_s3_creds__parse_json(&c, &ctx, "container", no_exp,
                                       strlen(no_exp), 0), &ctx);
    ZBT_EQ_INT(c.expires_ms, 0);
    ZBT_EQ_STR(c.session_token, "");
    /* IMDS needs its Code. */
    ZBT_EQ_INT(zb_s3_creds__parse_json(&c, &ctx, "IMDS", no_exp,
                                       strlen(no_exp), 1), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "Code is missing");
}

static void test_s3_creds_parse__json_truncated_and_corrupt(void)
{
    static const char *const bad[] = {
        "[]", "\"x\"", "null", "<html>nope</html>",
        "{\"Code\": \"Failure\", \"AccessKeyId\": \"A\","
        " \"SecretAccessKey\": \"json-secret\"}",
        "{\"Code\": \"Success\", \"AccessKeyId\": 1,"
        " \"SecretAccessKey\": \"json-secret\"}",
        "{\"Code\": \"Success\", \"AccessKeyId\": \"A\","
        " \"SecretAccessKey\": \"json-secret\", \"Expiration\": 5}",
        "{\"Code\": \"Success\", \"AccessKeyId\": \"A\","
        " \"SecretAccessKey\": \"json-secret\", \"Expiration\": \"soon\"}",
        "{\"Code\": \"Success\", \"AccessKeyId\": \"A\\u0000B\","
        " \"SecretAccessKey\": \"json-secret\"}",
        "{\"Code\": \"Success\", \"AccessKeyId\": \"A\","
        " \"AccessKeyId\": \"B\", \"SecretAccessKey\": \"json-secret\"}",
        NULL
    };
    size_t n = strlen(json_ok);
    zb_s3_creds c;
    zb_ctx ctx;

    for (size_t cut = 0; cut < n; cut++) {
        zb_ctx_init(&ctx);
        ZBT_EQ_INT(zb_s3_creds__parse_json(&c, &ctx, "IMDS at x", json_ok,
                                           cut, 1), ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "IMDS at x");
        ZBT_CHECK(strstr(ctx.err.msg, "json-secret") == NULL);
    }
    for (size_t i = 0; bad[i] != NULL; i++) {
        zb_ctx_init(&ctx);
        ZBT_EQ_INT(zb_s3_creds__parse_json(&c, &ctx, "IMDS", bad[i],
                                           strlen(bad[i]), 1), ZB_ECORRUPT);
        ZBT_CHECK(strstr(ctx.err.msg, "json-secret") == NULL);
    }
}

static void test_s3_creds_parse__profile_sections(void)
{
    static const char text[] =
        "[default]\naws_access_key_id=D\naws_secret_access_key=d\n"
        "[ dev ]\naws_access_key_id = DEV\n"
        "nested =\n  aws_secret_access_key = not-this\n"
        "aws_secret_access_key = dev-secret\n"
        "[devx]\naws_access_key_id = X\n";
    zb_s3_profile_keys k;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_creds__profile_parse(&k, &ctx, "f", text,
                                          strlen(text), "dev"), &ctx);
    ZBT_EQ_INT(k.section_found, 1);
    ZBT_EQ_STR(k.access_key_id, "DEV");
    ZBT_EQ_STR(k.secret_access_key, "dev-secret");
    ZBT_OK_CTX(zb_s3_creds__profile_parse(&k, &ctx, "f", text,
                                          strlen(text), "de"), &ctx);
    ZBT_EQ_INT(k.section_found, 0);
    ZBT_EQ_STR(k.access_key_id, "");
    /* No final newline, a cut in the middle of a key. */
    ZBT_OK_CTX(zb_s3_creds__profile_parse(&k, &ctx, "f", text, 30,
                                          "default"), &ctx);
    ZBT_EQ_STR(k.access_key_id, "D");
}

static void test_s3_creds_parse__profile_corrupt(void)
{
    static const char *const bad[] = {
        "[default\naws_access_key_id = A\n",
        "[default]\njust words\n",
        "[default]\n= value\n",
        NULL
    };
    char longline[400];
    zb_s3_profile_keys k;
    zb_ctx ctx;

    for (size_t i = 0; bad[i] != NULL; i++) {
        zb_ctx_init(&ctx);
        ZBT_EQ_INT(zb_s3_creds__profile_parse(&k, &ctx, "/x/creds", bad[i],
                                              strlen(bad[i]), "default"),
                   ZB_EUSAGE);
        ZBT_CONTAINS(ctx.err.msg, "/x/creds:");
    }
    snprintf(longline, sizeof longline, "[default]\naws_secret_access_key"
             " = %0300d\n", 7);
    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_creds__profile_parse(&k, &ctx, "/x/creds", longline,
                                          strlen(longline), "default"),
               ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/x/creds:2: the value is too long");
    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_creds__profile_parse(&k, &ctx, "/x/creds",
                                          "[default]\0[x]", 13, "default"),
               ZB_OK);
}

const zbt_case test_s3_creds_parse[] = {
    ZBT_CASE(test_s3_creds_parse__iso8601),
    ZBT_CASE(test_s3_creds_parse__sts_reply),
    ZBT_CASE(test_s3_creds_parse__sts_truncated),
    ZBT_CASE(test_s3_creds_parse__sts_corrupt),
    ZBT_CASE(test_s3_creds_parse__sts_deep_and_long),
    ZBT_CASE(test_s3_creds_parse__sts_error_reply),
    ZBT_CASE(test_s3_creds_parse__json_reply),
    ZBT_CASE(test_s3_creds_parse__json_truncated_and_corrupt),
    ZBT_CASE(test_s3_creds_parse__profile_sections),
    ZBT_CASE(test_s3_creds_parse__profile_corrupt),
    ZBT_END
};

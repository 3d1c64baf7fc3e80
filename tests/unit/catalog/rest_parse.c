/*
 * tests/unit/catalog/rest_parse.c - the reply parsers of the REST client
 * (catalog_rest_parse.c) on hand-made bodies: error shapes, truncated and
 * non-JSON bodies, config merging, list pages, LoadTableResult checks,
 * credential choice, OAuth tokens, LoadCredentialsResponse, URL
 * escaping; allocation failures.
 */
#include <string.h>

#include <jansson.h>

#include "catalog/rest/catalog_rest_int.h"
#include "util/alloc.h"
#include "zbtest.h"

static json_t *obj(const char *text)
{
    json_t *d = json_loads(text, 0, NULL);
    ZBT_CHECK(d != NULL);
    return d;
}

static void test_catalog_rest__parse_object(void)
{
    zb_ctx ctx;
    json_t *doc = NULL;
    const char *html = "<!DOCTYPE html><html><body>Bad Gateway</body></html>";
    const char *cut = "{\"metadata\": {\"format-version\": 2, \"loc";

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_object(&doc, &ctx, "w", " {\"a\":1}\n", 9),
               &ctx);
    json_decref(doc);
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "GET x", html, strlen(html)),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "GET x: reply is not JSON: \"<!DOCTYPE html>");
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "w", cut, strlen(cut)),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "truncated JSON");
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "w", "{\"a\" 1}", 7),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "malformed JSON reply at line 1");
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "w", "[1]", 3), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "not an object");
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "w", "  ", 2), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "empty reply");
    ZBT_RC(zb_rest__parse_object(&doc, &ctx, "w", "\x01\xff", 2),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "\"..\"");
    ZBT_CHECK(doc == NULL);
}

static void test_catalog_rest__error_text(void)
{
    char t[128];
    const char *em = "{\"error\":{\"message\":\"Table does not exist: db.t"
                     "\",\"type\":\"NoSuchTableException\",\"code\":404}}";
    const char *oa = "{\"error\":\"invalid_client\",\"error_description\":"
                     "\"bad\\nsecret\"}";

    zb_rest__error_text(t, sizeof(t), em, strlen(em));
    ZBT_EQ_STR(t, "NoSuchTableException: Table does not exist: db.t");
    zb_rest__error_text(t, sizeof(t), oa, strlen(oa));
    ZBT_EQ_STR(t, "invalid_client: bad secret");
    zb_rest__error_text(t, sizeof(t), "<h1>oops</h1>", 13);
    ZBT_EQ_STR(t, "not JSON body: \"<h1>oops</h1>\"");
    zb_rest__error_text(t, sizeof(t), "{\"x\":1}", 7);
    ZBT_CONTAINS(t, "unexpected JSON");
    zb_rest__error_text(t, sizeof(t), "", 0);
    ZBT_EQ_STR(t, "empty body");
    zb_rest__error_text(t, 8, em, strlen(em));
    ZBT_EQ_INT(strlen(t), 7);
}

static void test_catalog_rest__config(void)
{
    zb_ctx ctx;
    json_t *props = NULL;
    json_t *doc = obj("{\"defaults\":{\"a\":\"1\",\"b\":\"1\",\"n\":5,"
                      "\"f\":true},\"overrides\":{\"b\":\"3\",\"c\":null}}");
    json_t *client = obj("{\"a\":\"2\",\"b\":\"2\"}");
    json_t *bad = obj("{\"defaults\":{\"a\":[1]}}");
    json_t *bad2 = obj("{\"overrides\":\"x\"}");

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_config(&props, &ctx, "w", doc, client), &ctx);
    ZBT_EQ_STR(json_string_value(json_object_get(props, "a")), "2");
    ZBT_EQ_STR(json_string_value(json_object_get(props, "b")), "3");
    ZBT_EQ_STR(json_string_value(json_object_get(props, "n")), "5");
    ZBT_EQ_STR(json_string_value(json_object_get(props, "f")), "true");
    ZBT_CHECK(json_object_get(props, "c") == NULL);
    json_decref(props);
    ZBT_RC(zb_rest__parse_config(&props, &ctx, "w", bad, NULL), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "\"defaults\".\"a\" is not a string");
    ZBT_RC(zb_rest__parse_config(&props, &ctx, "w", bad2, NULL),
           ZB_ECORRUPT);
    ZBT_CHECK(props == NULL);
    json_decref(doc);
    json_decref(client);
    json_decref(bad);
    json_decref(bad2);
}

static int collect(const char *item, void *payload)
{
    char *out = payload;
    strcat(out, item);
    strcat(out, ";");
    return 0;
}

static void test_catalog_rest__pages(void)
{
    zb_ctx ctx;
    char got[256] = "";
    char *next = NULL;
    json_t *ns = obj("{\"namespaces\":[[\"a\"],[\"a\",\"b\"]],"
                     "\"next-page-token\":\"p2\"}");
    json_t *tb = obj("{\"identifiers\":[{\"namespace\":[\"a\",\"b\"],"
                     "\"name\":\"t\"}],\"next-page-token\":null}");
    static const char *const bad[] = {
        "{\"namespaces\":{}}", "{\"namespaces\":[[]]}",
        "{\"namespaces\":[[1]]}", "{\"namespaces\":[\"a\"]}",
        "{\"namespaces\":[[\"a\"]],\"next-page-token\":5}",
        "{\"identifiers\":[{\"namespace\":[\"a\"]}]}",
        "{\"identifiers\":[[\"a\"]]}",
    };

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_page(&next, &ctx, "w", ns,
                                   ZB_REST_LIST_NAMESPACES, collect, got),
               &ctx);
    ZBT_EQ_STR(got, "a;a.b;");
    ZBT_EQ_STR(next, "p2");
    zb_free(next);
    got[0] = '\0';
    ZBT_OK_CTX(zb_rest__parse_page(&next, &ctx, "w", tb, ZB_REST_LIST_TABLES,
                                   collect, got), &ctx);
    ZBT_EQ_STR(got, "a.b.t;");
    ZBT_CHECK(next == NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *d = obj(bad[i]);
        zb_rest_list l = strstr(bad[i], "identifiers")
                             ? ZB_REST_LIST_TABLES
                             : ZB_REST_LIST_NAMESPACES;
        got[0] = '\0';
        ZBT_RC(zb_rest__parse_page(&next, &ctx, "w", d, l, collect, got),
               ZB_ECORRUPT);
        /* A page is checked whole before the first item is handed out. */
        ZBT_EQ_STR(got, "");
        json_decref(d);
    }
    /* Allocation failures: ENOMEM, nothing leaked. */
    for (uint64_t n = 1; n < 20; n++) {
        int rc;
        got[0] = '\0';
        zb_alloc__fail_at(n, 0);
        rc = zb_rest__parse_page(&next, &ctx, "w", ns,
                                 ZB_REST_LIST_NAMESPACES, collect, got);
        zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        zb_free(next);
        next = NULL;
        if (rc == ZB_OK)
            break;
    }
    json_decref(ns);
    json_decref(tb);
}

static void test_catalog_rest__loaded(void)
{
    zb_ctx ctx;
    zb_rest_loaded ld;
    const json_t *c;
    json_t *ok = obj(
        "{\"metadata-location\":\"s3://b/t/metadata/1.json\","
        "\"metadata\":{},\"config\":{\"k\":\"v\"},\"storage-credentials\":["
        "{\"prefix\":\"s3://b/\",\"config\":{\"id\":\"short\"}},"
        "{\"prefix\":\"s3://b/t\",\"config\":{\"id\":\"long\"}},"
        "{\"prefix\":\"s3://c/\",\"config\":{\"id\":\"other\"}}]}");
    static const char *const bad[] = {
        "{\"metadata-location\":\"x\"}",
        "{\"metadata\":[]}",
        "{\"metadata\":{},\"metadata-location\":5}",
        "{\"metadata\":{},\"config\":{\"k\":1}}",
        "{\"metadata\":{},\"config\":[]}",
        "{\"metadata\":{},\"storage-credentials\":{}}",
        "{\"metadata\":{},\"storage-credentials\":[{\"prefix\":\"p\"}]}",
        ("{\"metadata\":{},\"storage-credentials\":[{\"prefix\":\"p\","
         "\"config\":{\"a\":false}}]}"),
    };

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_loaded(&ld, &ctx, "w", ok), &ctx);
    ZBT_EQ_STR(ld.metadata_location, "s3://b/t/metadata/1.json");
    c = zb_rest__pick_credential(ld.credentials, "s3://b/t");
    ZBT_EQ_STR(json_string_value(json_object_get(json_object_get(c, "config"),
                                                 "id")), "long");
    c = zb_rest__pick_credential(ld.credentials, "s3://b/u");
    ZBT_EQ_STR(json_string_value(json_object_get(json_object_get(c, "config"),
                                                 "id")), "short");
    ZBT_CHECK(zb_rest__pick_credential(ld.credentials, "gs://x") == NULL);
    ZBT_CHECK(zb_rest__pick_credential(NULL, "gs://x") == NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *d = obj(bad[i]);
        ZBT_RC(zb_rest__parse_loaded(&ld, &ctx, "w", d), ZB_ECORRUPT);
        json_decref(d);
    }
    json_decref(ok);
}

static void test_catalog_rest__token(void)
{
    zb_ctx ctx;
    char *tok = NULL;
    long exp;
    json_t *ok = obj("{\"access_token\":\"abc\",\"token_type\":\"bearer\","
                     "\"expires_in\":60}");
    json_t *noexp = obj("{\"access_token\":\"abc\",\"token_type\":\"N_A\"}");
    json_t *mac = obj("{\"access_token\":\"abc\",\"token_type\":\"mac\"}");
    json_t *none = obj("{\"token_type\":\"bearer\"}");
    json_t *neg = obj("{\"access_token\":\"a\",\"expires_in\":-5}");

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_token(&tok, &exp, &ctx, "w", ok), &ctx);
    ZBT_EQ_STR(tok, "abc");
    ZBT_EQ_INT(exp, 60);
    zb_free(tok);
    ZBT_OK_CTX(zb_rest__parse_token(&tok, &exp, &ctx, "w", noexp), &ctx);
    ZBT_EQ_INT(exp, -1);
    zb_free(tok);
    ZBT_RC(zb_rest__parse_token(&tok, &exp, &ctx, "w", mac),
           ZB_EUNSUPPORTED);
    ZBT_RC(zb_rest__parse_token(&tok, &exp, &ctx, "w", none), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "access_token");
    ZBT_RC(zb_rest__parse_token(&tok, &exp, &ctx, "w", neg), ZB_ECORRUPT);
    ZBT_CHECK(tok == NULL);
    json_decref(ok);
    json_decref(noexp);
    json_decref(mac);
    json_decref(none);
    json_decref(neg);
}

static void test_catalog_rest__credentials(void)
{
    zb_ctx ctx;
    zb_s3_credentials k;
    char big[9000], text[9400];
    json_t *d;
    json_t *ok = obj(
        "{\"storage-credentials\":["
        "{\"prefix\":\"s3://b/\",\"config\":{\"s3.access-key-id\":\"short\","
        "\"s3.secret-access-key\":\"s1\"}},"
        "{\"prefix\":\"s3://b/t\",\"config\":{\"s3.access-key-id\":\"long\","
        "\"s3.secret-access-key\":\"s2\",\"s3.session-token\":\"tk\","
        "\"s3.session-token-expires-at-ms\":\"1767225600000\"}}]}");
    /* each with its message's piece; none may show "sekret" */
    static const char *const bad[][2] = {
        { "{}", "no \"storage-credentials\" array" },
        { "{\"storage-credentials\":{}}", "no \"storage-credentials\"" },
        { "{\"storage-credentials\":[]}", "no storage credential for" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\"}]}",
          "lacks a \"prefix\"" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\",\"config\":"
          "{\"s3.access-key-id\":1}}]}", "is not a string" },
        { "{\"storage-credentials\":[{\"prefix\":\"gs://b/\",\"config\":"
          "{\"s3.access-key-id\":\"k\",\"s3.secret-access-key\":\"sekret\"}}"
          "]}", "no storage credential for s3://b/t among 1" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\",\"config\":"
          "{\"s3.access-key-id\":\"k\"}}]}", "lacks s3.access-key-id or" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\",\"config\":"
          "{\"s3.access-key-id\":\"k\",\"s3.secret-access-key\":\"\"}}]}",
          "lacks s3.access-key-id or" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\",\"config\":"
          "{\"s3.access-key-id\":\"k\",\"s3.secret-access-key\":\"sekret\","
          "\"s3.session-token-expires-at-ms\":\"-5\"}}]}", "not a count" },
        { "{\"storage-credentials\":[{\"prefix\":\"s3://b/t\",\"config\":"
          "{\"s3.access-key-id\":\"k\",\"s3.secret-access-key\":\"sekret\","
          "\"s3.session-token-expires-at-ms\":\"9223372036854775808\"}}]}",
          "not a count" },
    };

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_rest__parse_credentials(&k, &ctx, "w", ok, "s3://b/t/x"),
               &ctx);
    ZBT_EQ_STR(k.access_key_id, "long");
    ZBT_EQ_STR(k.secret_access_key, "s2");
    ZBT_EQ_STR(k.session_token, "tk");
    ZBT_CHECK(k.expires_ms == 1767225600000LL);
    ZBT_OK_CTX(zb_rest__parse_credentials(&k, &ctx, "w", ok, "s3://b/u"),
               &ctx);
    ZBT_EQ_STR(k.access_key_id, "short");
    ZBT_EQ_STR(k.session_token, "");
    ZBT_CHECK(k.expires_ms == 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = obj(bad[i][0]);
        zb_err_clear(&ctx.err);
        ZBT_RC(zb_rest__parse_credentials(&k, &ctx, "GET c", d, "s3://b/t"),
               ZB_ECORRUPT);
        ZBT_CONTAINS(ctx.err.msg, "GET c: ");
        ZBT_CONTAINS(ctx.err.msg, bad[i][1]);
        ZBT_CHECK(strstr(ctx.err.msg, "sekret") == NULL);
        /* nothing of a refused reply is left behind */
        ZBT_EQ_STR(k.access_key_id, "");
        json_decref(d);
    }
    /* a token that does not fit */
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    snprintf(text, sizeof(text), "{\"storage-credentials\":[{\"prefix\":"
             "\"s3://b/t\",\"config\":{\"s3.access-key-id\":\"k\","
             "\"s3.secret-access-key\":\"s\",\"s3.session-token\":\"%s\"}}]}",
             big);
    d = obj(text);
    ZBT_RC(zb_rest__parse_credentials(&k, &ctx, "w", d, "s3://b/t"),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "too long");
    ZBT_CHECK(strstr(ctx.err.msg, "xxxx") == NULL);
    json_decref(d);
    json_decref(ok);
}

static void test_catalog_rest__url_escape(void)
{
    zb_buf b = ZB_BUF_INIT(64);

    ZBT_EQ_INT(zb_rest__url_escape(&b, "a b/c%\x1f~-._\xc3\xa9"), ZB_OK);
    ZBT_EQ_STR(zb_buf_cstr(&b), "a%20b%2Fc%25%1F~-._%C3%A9");
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_rest__url_escape(&b, "\x01\x01\x01\x01\x01\x01\x01\x01"
                                       "\x01\x01\x01\x01\x01\x01\x01\x01"
                                       "\x01\x01\x01\x01\x01\x01\x01\x01"),
               ZB_ENOMEM);
    zb_buf_free(&b);
}

const zbt_case test_catalog_rest_parse[] = {
    ZBT_CASE(test_catalog_rest__parse_object),
    ZBT_CASE(test_catalog_rest__error_text),
    ZBT_CASE(test_catalog_rest__config),
    ZBT_CASE(test_catalog_rest__pages),
    ZBT_CASE(test_catalog_rest__loaded),
    ZBT_CASE(test_catalog_rest__token),
    ZBT_CASE(test_catalog_rest__credentials),
    ZBT_CASE(test_catalog_rest__url_escape),
    ZBT_END
};

/*
 * libFuzzer target: the REST catalog client's reply parsers
 * (src/catalog/rest/catalog_rest_parse.c) on arbitrary bytes.
 *
 * The bytes are one reply body. Every parser runs on it: the body as a
 * JSON object (not JSON, truncated, malformed must give ZB_ECORRUPT with
 * a message), the error text of an error reply, and on an object the
 * CatalogConfig merge, the three list pages, LoadTableResult with its
 * storage credentials, LoadCredentialsResponse (the S3 keys for two
 * locations) and the OAuth token reply. Each must return ZB_OK or a
 * negative code with a message, never crash; every item a page hands out
 * is a NUL-terminated string of the expected form, and keys handed out
 * have an access key id and a secret.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "catalog/rest/catalog_rest_int.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static int item_cb(const char *item, void *payload)
{
    (void)payload;
    if (item == NULL)
        abort();
    sink += strlen(item);
    return 0;
}

static void check_rc(const zb_ctx *ctx, int rc)
{
    if (rc > 0 || (rc < 0 && ctx->err.msg[0] == '\0'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_ctx ctx;
    json_t *doc = NULL, *props = NULL;
    zb_rest_loaded ld;
    char text[200], *next = NULL, *tok = NULL;
    long exp;
    int rc;
    static const zb_rest_list lists[] = { ZB_REST_LIST_NAMESPACES,
                                          ZB_REST_LIST_TABLES,
                                          ZB_REST_LIST_WAREHOUSES };

    zb_ctx_init(&ctx);
    zb_rest__error_text(text, sizeof(text), (const char *)data, size);
    if (strlen(text) >= sizeof(text) || strchr(text, '\n'))
        abort();
    rc = zb_rest__parse_object(&doc, &ctx, "fuzz", (const char *)data, size);
    check_rc(&ctx, rc);
    if (rc < 0)
        return 0;
    rc = zb_rest__parse_config(&props, &ctx, "fuzz", doc, NULL);
    check_rc(&ctx, rc);
    json_decref(props);
    for (size_t i = 0; i < 3; i++) {
        zb_ctx_init(&ctx);
        rc = zb_rest__parse_page(&next, &ctx, "fuzz", doc, lists[i], item_cb,
                                 NULL);
        check_rc(&ctx, rc);
        if (next)
            sink += strlen(next);
        zb_free(next);
        next = NULL;
    }
    zb_ctx_init(&ctx);
    rc = zb_rest__parse_loaded(&ld, &ctx, "fuzz", doc);
    check_rc(&ctx, rc);
    if (rc == ZB_OK) {
        const json_t *c = zb_rest__pick_credential(
            ld.credentials, ld.metadata_location ? ld.metadata_location : "");
        if (c && !json_is_object(json_object_get(c, "config")))
            abort();
    }
    for (size_t i = 0; i < 2; i++) {
        static const char *const locations[] = { "s3://b/t", "" };
        zb_s3_credentials k;
        zb_ctx_init(&ctx);
        rc = zb_rest__parse_credentials(&k, &ctx, "fuzz", doc, locations[i]);
        check_rc(&ctx, rc);
        if (rc == ZB_OK && (k.access_key_id[0] == '\0' ||
                            k.secret_access_key[0] == '\0' ||
                            k.expires_ms < 0 ||
                            memchr(k.session_token, '\0',
                                   sizeof(k.session_token)) == NULL))
            abort();
    }
    zb_ctx_init(&ctx);
    rc = zb_rest__parse_token(&tok, &exp, &ctx, "fuzz", doc);
    check_rc(&ctx, rc);
    if (rc == ZB_OK && (tok == NULL || tok[0] == '\0' || exp < -1))
        abort();
    zb_free(tok);
    json_decref(doc);
    return 0;
}

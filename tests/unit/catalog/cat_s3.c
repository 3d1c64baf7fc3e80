/*
 * tests/unit/catalog/cat_s3.c - the catalog's S3 rules (issue 16), with no
 * server: a table folder on an object store is read-only (check, commit
 * and create refused with ZB_EREFUSED before any request reaches the
 * store: a backend that counts calls sees none), a local folder is not;
 * and the S3 keys of a REST table config, with what the user pinned left
 * out (catalog/catalog_s3.h).
 */
#include <stdio.h>
#include <string.h>

#include "cat_test.h"
#include "catalog/catalog_s3.h"
#include "util/alloc.h"
#include "zamboni/sys/io_backend.h"

static int store_calls;

static int fake_accepts(const char *uri)
{
    return strncmp(uri, "s3://", 5) == 0 || strncmp(uri, "s3a://", 6) == 0 ||
           strncmp(uri, "s3n://", 6) == 0;
}

static int fake_stat(zb_io_stat *out, void *state, zb_ctx *ctx,
                     const char *uri)
{
    (void)out; (void)state; (void)uri;
    store_calls++;
    return zb_fail(ctx, ZB_EIO, "the store was asked");
}

static int fake_open(void **file, uint64_t *size, void *state, zb_ctx *ctx,
                     const char *uri)
{
    (void)file; (void)size; (void)state; (void)uri;
    store_calls++;
    return zb_fail(ctx, ZB_EIO, "the store was asked");
}

static int fake_writer_open(void **w, void *state, zb_ctx *ctx,
                            const char *uri)
{
    (void)w; (void)state; (void)uri;
    store_calls++;
    return zb_fail(ctx, ZB_EIO, "the store was asked");
}

static int fake_remove(void *state, zb_ctx *ctx, const char *uri)
{
    (void)state; (void)uri;
    store_calls++;
    return zb_fail(ctx, ZB_EIO, "the store was asked");
}

static int fake_list_open(void **l, void *state, zb_ctx *ctx,
                          const char *uri)
{
    (void)l; (void)state; (void)uri;
    store_calls++;
    return zb_fail(ctx, ZB_EIO, "the store was asked");
}

static const zb_io_backend counting_store = {
    .version = ZB_IO_BACKEND_VERSION,
    .name = "counting-s3",
    .accepts = fake_accepts,
    .stat = fake_stat,
    .open = fake_open,
    .writer_open = fake_writer_open,
    .remove = fake_remove,
    .list_open = fake_list_open,
};

static void open_path(cat_env *e)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    memset(e, 0, sizeof(*e));
    zb_ctx_init(&e->ctx);
    snprintf(e->dir, sizeof(e->dir), "%s", zbt_tmpdir());
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    ZBT_OK_CTX(zb_io_add_backend(e->io, &e->ctx, &counting_store), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
}

static void refused(zb_ctx *ctx, int rc, const char *folder)
{
    ZBT_RC(rc, ZB_EREFUSED);
    ZBT_CONTAINS(ctx->err.msg, folder);
    ZBT_CONTAINS(ctx->err.msg, "is on an object store and has no catalog: "
                 "it is read-only");
    ZBT_CONTAINS(ctx->err.msg, "a concurrent writer's commit could be lost");
    ZBT_CONTAINS(ctx->err.msg, "Register the table in a SQL or REST catalog");
    zb_err_clear(&ctx->err);
}

static void test_catalog_s3__object_store_folder_read_only(void)
{
    static const char *const on_store[] = { "s3://bucket/wh/t",
                                            "s3a://bucket/wh/t/",
                                            "s3n://bucket//wh/t" };
    cat_env e;
    zb_table *t = NULL;
    ice_metadata *first;
    json_t *reqs = NULL, *u = NULL;
    char folder[1024];

    open_path(&e);
    store_calls = 0;
    for (size_t i = 0; i < 3; i++)
        refused(&e.ctx, zb_catalog_check_writable(e.cat, &e.ctx,
                                                  on_store[i]), on_store[i]);
    /* create: refused before the folder is probed */
    first = cat_first_metadata(&e, "s3://bucket/wh/new");
    refused(&e.ctx, zb_catalog_create_table(e.cat, &e.ctx,
                                            "s3://bucket/wh/new", NULL, first,
                                            NULL), "s3://bucket/wh/new");
    ice_metadata_free(first);
    /* commit: a table made locally, then pointed at the store */
    snprintf(folder, sizeof(folder), "%s/local_t", e.dir);
    first = cat_first_metadata(&e, folder);
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first,
                                       &t), &e.ctx);
    ice_metadata_free(first);
    ZBT_OK_CTX(zb_catalog_check_writable(e.cat, &e.ctx, folder), &e.ctx);
    zb_free(t->root);
    t->root = zb_strdup("s3://bucket/wh/t");
    ZBT_CHECK(t->root != NULL);
    cat_fake_append(&reqs, &u, t, 77, cat_now_ms());
    refused(&e.ctx, zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                      (const zb_json *)u, NULL),
            "s3://bucket/wh/t");
    ZBT_EQ_INT(store_calls, 0);
    json_decref(reqs);
    json_decref(u);
    zb_table_free(t);
    cat_env_close(&e);
}

static void test_catalog_s3__vended_keys(void)
{
    static const zb_catalog_kv kv[] = {
        { "s3.access-key-id", "AKIDVENDED" },
        { "s3.secret-access-key", "vended-secret" },
        { "s3.session-token", "vended-token" },
        { "s3.endpoint", "http://127.0.0.1:9000" },
        { "s3.path-style-access", "true" },
        { "client.region", "eu-west-1" },
        { "other.key", "ignored" },
    };
    zb_s3_config c;

    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, kv, 7, 0), 1);
    ZBT_EQ_STR(c.access_key_id, "AKIDVENDED");
    ZBT_EQ_STR(c.secret_access_key, "vended-secret");
    ZBT_EQ_STR(c.session_token, "vended-token");
    ZBT_EQ_STR(c.endpoint, "http://127.0.0.1:9000");
    ZBT_EQ_STR(c.region, "eu-west-1");
    ZBT_EQ_INT(c.path_style, 1);
    ZBT_CHECK(c.credentials_source != NULL &&
              strstr(c.credentials_source, "vended") != NULL);
    /* what the user gave wins: those fields stay for the opener's */
    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, kv, 7, ZB_S3_PIN_CREDENTIALS |
                                     ZB_S3_PIN_ENDPOINT), 1);
    ZBT_CHECK(c.access_key_id == NULL && c.secret_access_key == NULL &&
              c.session_token == NULL && c.endpoint == NULL);
    ZBT_EQ_STR(c.region, "eu-west-1");
    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, kv, 7, ZB_S3_PIN_REGION |
                                     ZB_S3_PIN_PATH_STYLE), 1);
    ZBT_CHECK(c.region == NULL);
    ZBT_EQ_INT(c.path_style, 0);
    /* a key id without its secret is no credential */
    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, kv, 1, 0), 1);
    ZBT_CHECK(c.access_key_id == NULL && c.credentials_source == NULL);
    /* their expiry; anything but digits is "not known" */
    {
        zb_catalog_kv ex[] = {
            { "s3.access-key-id", "ASIAT" },
            { "s3.secret-access-key", "t-secret" },
            { "s3.session-token-expires-at-ms", "1767225600000" },
        };
        ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, ex, 3, 0), 1);
        ZBT_CHECK(c.session_token_expires_ms == 1767225600000LL);
        ex[2].value = "in an hour";
        ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, ex, 3, 0), 1);
        ZBT_CHECK(c.session_token_expires_ms == 0);
        ex[2].value = "99999999999999999999";
        ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, ex, 3, 0), 1);
        ZBT_CHECK(c.session_token_expires_ms == 0);
        ex[2].value = "1767225600000";
        ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, ex + 1, 2, 0), 1);
        ZBT_CHECK(c.access_key_id == NULL && c.session_token_expires_ms == 0);
    }
    /* nothing of S3 */
    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, kv + 6, 1, 0), 0);
    ZBT_EQ_INT(zb_catalog_s3_from_kv(&c, NULL, 0, 0), 0);
}

const zbt_case test_catalog_s3[] = {
    ZBT_CASE(test_catalog_s3__object_store_folder_read_only),
    ZBT_CASE(test_catalog_s3__vended_keys),
    ZBT_END
};

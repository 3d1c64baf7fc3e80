/*
 * tests/unit/catalog/rest_vended.c - temporary S3 keys vended with a
 * table (loadTable storage-credentials with s3.session-token-expires-at-ms)
 * fetched again through the catalog's loadCredentials endpoint by the S3
 * backend (catalog_rest_creds.c): not before five minutes ahead of their
 * expiry, then once; at once when they arrive expired; on the endpoint the
 * catalog advertises (client.refresh-credentials-endpoint) when it is on
 * its own origin, never on another; not at all with
 * client.refresh-credentials-enabled=false; a failing or malformed reply
 * named, no secret in it; a catalog closed before the FileIO fails the
 * refresh cleanly. The backend resolves keys without any S3 request
 * (zb_io_s3_describe_credentials), so no store is needed.
 */
#include <stdio.h>
#include <string.h>

#include "rest_server.h"
#include "table/metadata/metadata.h"
#include "util/buf.h"
#include "zamboni/io_s3.h"
#include "zbtest.h"

#define LOCATION "s3://zb-vend/wh/db/t"
#define FILE_URI LOCATION "/data/00000-0-a.parquet"

/* A server vending keys of ttl_ms, the catalog on it, the S3 backend in
 * its FileIO and table db.t at LOCATION loaded. */
static zb_table *vend_start(rest_fixture *f, rest_server_opts *o, long ttl_ms)
{
    zb_s3_config s3 = { 0 };
    zb_buf b = ZB_BUF_INIT((size_t)1 << 20);
    ice_metadata *m = rest_first_metadata(LOCATION);
    zb_table *t = NULL, *t2 = NULL;
    char path[1200];

    o->vend_temporary = 1;
    o->vend_ttl_ms = ttl_ms;
    rest_fixture_start(f, o, NULL);
    s3.endpoint = "http://127.0.0.1:1";
    ZBT_OK_CTX(zb_io_add_s3(f->io, &f->ctx, &s3), &f->ctx);
    ZBT_OK_CTX(ice_metadata_write(&b, m, &f->ctx), &f->ctx);
    snprintf(path, sizeof(path), "%s/v1.metadata.json", f->dir);
    zbt_write_file(path, b.ptr, b.len);
    zb_buf_free(&b);
    ice_metadata_free(m);
    ZBT_OK_CTX(zb_catalog_create_namespace(f->cat, &f->ctx, "db"), &f->ctx);
    ZBT_OK_CTX(zb_catalog_register_table(f->cat, &f->ctx, "db.t", path, &t2),
               &f->ctx);
    zb_table_free(t2);
    ZBT_OK_CTX(zb_catalog_load_table(f->cat, &f->ctx, "db.t", &t), &f->ctx);
    ZBT_EQ_U64(rest_server_get_stats(f->srv).vended, 1);
    return t;
}

static int describe(rest_fixture *f, char *src, size_t size)
{
    return zb_io_s3_describe_credentials(src, size, f->io, &f->ctx,
                                         FILE_URI);
}

static void test_catalog_rest__vended_refreshed_before_expiry(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t = vend_start(&f, &o, 302 * 1000);
    char src[256];

    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_STR(src, "the catalog's vended credentials");
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 0);
    rest_sleep_ms(2300);
    /* under five minutes left: fetched again, once */
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 1);
    ZBT_EQ_STR(src, "the catalog's vended credentials");
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 1);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).advertised, 0);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__vended_expired_on_arrival(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t;
    char src[256];

    o.refresh_endpoint = "/v1/vended/db/t";
    t = vend_start(&f, &o, -1000);
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 1);
    /* the advertised endpoint, relative to the catalog's URI */
    ZBT_EQ_U64(rest_server_get_stats(f.srv).advertised, 1);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

/* An endpoint on another host would get the catalog's token: the
 * standard path is asked instead. */
static void test_catalog_rest__vended_foreign_endpoint_ignored(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t;
    char src[256];

    o.refresh_endpoint = "http://127.0.0.2:9/catalog/v1/vended/db/t";
    t = vend_start(&f, &o, -1000);
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 1);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).advertised, 0);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__vended_refresh_disabled(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t;
    char src[256];

    o.refresh_disabled = 1;
    t = vend_start(&f, &o, -1000);
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_STR(src, "the catalog's vended credentials");
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 0);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__vended_refresh_fails_named(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t = vend_start(&f, &o, -1000);
    char src[256];

    rest_server_fault(f.srv, RS_FAULT_HTML_500, 100, 0, "GET",
                      "/credentials");
    ZBT_RC(describe(&f, src, sizeof(src)), ZB_EIO);
    ZBT_CONTAINS(f.ctx.err.msg, "refresh the vended credentials of table "
                                "db.t");
    ZBT_CONTAINS(f.ctx.err.msg, "/tables/t/credentials");
    ZBT_CHECK(strstr(f.ctx.err.msg, "tmp-secret") == NULL);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 0);
    rest_server_clear_faults(f.srv);
    /* a reply of the wrong shape */
    rest_server_fault(f.srv, RS_FAULT_WRONG_SHAPE, 100, 0, "GET",
                      "/credentials");
    zb_err_clear(&f.ctx.err);
    ZBT_RC(describe(&f, src, sizeof(src)), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "storage-credentials");
    rest_server_clear_faults(f.srv);
    /* the endpoint is back */
    zb_err_clear(&f.ctx.err);
    ZBT_OK_CTX(describe(&f, src, sizeof(src)), &f.ctx);
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 1);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

/* The FileIO outlives the catalog: its refresher is detached, not left
 * pointing at a freed client (ASan would see it). */
static void test_catalog_rest__vended_catalog_closed_first(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    zb_table *t = vend_start(&f, &o, -1000);
    char src[256];

    zb_table_free(t);
    zb_catalog_free(f.cat);
    f.cat = NULL;
    ZBT_RC(describe(&f, src, sizeof(src)), ZB_EINVAL);
    ZBT_CONTAINS(f.ctx.err.msg, "the catalog was closed");
    ZBT_EQ_U64(rest_server_get_stats(f.srv).credentials, 0);
    rest_fixture_stop(&f);
}

const zbt_case test_catalog_rest_vended[] = {
    ZBT_CASE(test_catalog_rest__vended_refreshed_before_expiry),
    ZBT_CASE(test_catalog_rest__vended_expired_on_arrival),
    ZBT_CASE(test_catalog_rest__vended_foreign_endpoint_ignored),
    ZBT_CASE(test_catalog_rest__vended_refresh_disabled),
    ZBT_CASE(test_catalog_rest__vended_refresh_fails_named),
    ZBT_CASE(test_catalog_rest__vended_catalog_closed_first),
    ZBT_END
};

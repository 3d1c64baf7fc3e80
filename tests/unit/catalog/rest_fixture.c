/*
 * tests/unit/catalog/rest_fixture.c - setup shared by the REST catalog
 * tests: a test server over a temp dir and a catalog opened on it.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "rest_server.h"
#include "table/commit/commit.h"
#include "zbtest.h"

int rest_fixture_open(rest_fixture *f, const zb_catalog_config *cfg)
{
    zb_catalog_config c = ZB_CATALOG_CONFIG_INIT;

    if (cfg)
        c = *cfg;
    c.kind = ZB_CATALOG_REST;
    if (!c.name)
        c.name = "rt";
    if (!c.uri)
        c.uri = rest_server_uri(f->srv);
    if (c.timeout_ms == 0)
        c.timeout_ms = 5000;
    zb_catalog_free(f->cat);
    f->cat = NULL;
    return zb_catalog_open(&f->cat, &f->ctx, f->io, &c);
}

void rest_fixture_start(rest_fixture *f, const rest_server_opts *opts,
                        const zb_catalog_config *cfg)
{
    memset(f, 0, sizeof(*f));
    zb_ctx_init(&f->ctx);
    snprintf(f->dir, sizeof(f->dir), "%s", zbt_tmpdir());
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    ZBT_EQ_INT(rest_server_start(&f->srv, f->dir, opts), 0);
    ZBT_OK_CTX(rest_fixture_open(f, cfg), &f->ctx);
}

void rest_fixture_stop(rest_fixture *f)
{
    zb_catalog_free(f->cat);
    rest_server_stop(f->srv);
    zb_io_free(f->io);
    memset(f, 0, sizeof(*f));
}

ice_metadata *rest_first_metadata(const char *location)
{
    zb_ctx ctx;
    ice_metadata *m = NULL;
    json_t *schema = json_loads(
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"}"
        "]}", 0, NULL);
    ice_kv props[] = { { "owner", "rest-test" } };

    zb_ctx_init(&ctx);
    ZBT_CHECK(schema != NULL);
    ZBT_OK_CTX(ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL,
                                   NULL, location,
                                   props, 1, 2), &ctx);
    json_decref(schema);
    return m;
}

int rest_items_cb(const char *item, void *payload)
{
    rest_items *it = payload;
    size_t n = strlen(it->text);

    snprintf(it->text + n, sizeof(it->text) - n, "%s%s", it->n ? "," : "",
             item);
    it->n++;
    return 0;
}

int64_t rest_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rest_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

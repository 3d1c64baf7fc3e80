/*
 * tests/unit/catalog/rest_calls.c - the REST catalog client against the
 * test server: config (prefix, defaults, overrides), namespaces and
 * tables with pagination, create / load / register / drop, commits and
 * their conflicts, storage credentials, Lakekeeper warehouses, escaping.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog_int.h"
#include "catalog/rest/catalog_rest_int.h"
#include "rest_server.h"
#include "table/commit/commit.h"
#include "zbtest.h"

static const char *config_value(const zb_table *t, const char *key)
{
    for (size_t i = 0; i < t->n_config; i++)
        if (strcmp(t->config[i].key, key) == 0)
            return t->config[i].value;
    return NULL;
}

static int config_count(const zb_table *t, const char *key)
{
    int n = 0;
    for (size_t i = 0; i < t->n_config; i++)
        n += strcmp(t->config[i].key, key) == 0;
    return n;
}

/* Creates ns and a table ns.name; returns it loaded. */
static zb_table *make_table(rest_fixture *f, const char *ns, const char *name)
{
    ice_metadata *first = rest_first_metadata("file:///nowhere/t");
    zb_table *t = NULL;
    char ident[256];
    int rc = zb_catalog_create_namespace(f->cat, &f->ctx, ns);

    ZBT_CHECK(rc == ZB_OK || rc == ZB_EEXISTS);
    snprintf(ident, sizeof(ident), "%s.%s", ns, name);
    rc = zb_catalog_create_table(f->cat, &f->ctx, ident, NULL, first, &t);
    ice_metadata_free(first);
    ZBT_OK_CTX(rc, &f->ctx);
    return t;
}

static void test_catalog_rest__config_prefix(void)
{
    rest_server_opts o = { 0 };
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    rest_fixture f;
    zb_rest *r;
    rest_items it = { "", 0 };

    o.prefix = "ws/main";
    o.ns_separator = '|';
    o.warehouse = "wh-a";
    cfg.warehouse = "wh-a";
    rest_fixture_start(&f, &o, &cfg);
    ZBT_EQ_INT(zb_catalog_get_kind(f.cat), ZB_CATALOG_REST);
    ZBT_EQ_STR(zb_catalog_name(f.cat), "rt");
    r = f.cat->backend;
    ZBT_EQ_STR(r->prefix, "ws/main/");
    ZBT_EQ_STR(r->sep, "%7C");
    /* defaults < client < overrides */
    ZBT_EQ_STR(json_string_value(json_object_get(r->props, "test.default")),
               "d");
    ZBT_EQ_STR(json_string_value(json_object_get(r->props, "test.override")),
               "o");
    ZBT_EQ_STR(json_string_value(json_object_get(r->props, "warehouse")),
               "wh-a");
    /* The server answers only under the prefix. */
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "db"), &f.ctx);
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "db.sub"), &f.ctx);
    ZBT_OK_CTX(zb_catalog_list_namespaces(f.cat, &f.ctx, NULL, rest_items_cb,
                                          &it), &f.ctx);
    ZBT_EQ_STR(it.text, "db");
    /* Nested namespaces travel with the announced separator. */
    it.text[0] = '\0';
    it.n = 0;
    ZBT_OK_CTX(zb_catalog_list_namespaces(f.cat, &f.ctx, "db", rest_items_cb,
                                          &it), &f.ctx);
    ZBT_EQ_STR(it.text, "db.sub");
    {
        ice_metadata *first = rest_first_metadata("file:///x");
        zb_table *t = NULL;
        ZBT_OK_CTX(zb_catalog_create_table(f.cat, &f.ctx, "db.sub.t", NULL,
                                           first, NULL), &f.ctx);
        ice_metadata_free(first);
        ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.sub.t", &t),
                   &f.ctx);
        zb_table_free(t);
    }
    /* A warehouse the server does not know. */
    cfg.warehouse = "nope";
    ZBT_RC(rest_fixture_open(&f, &cfg), ZB_ENOTFOUND);
    ZBT_CONTAINS(f.ctx.err.msg, "catalog rt (rest)");
    ZBT_CONTAINS(f.ctx.err.msg, "/v1/config?warehouse=nope");
    ZBT_CONTAINS(f.ctx.err.msg, "NoSuchWarehouseException");
    rest_fixture_stop(&f);
}

static void test_catalog_rest__namespaces_pages(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    rest_items it = { "", 0 };
    static const char *const names[] = { "n1", "n2", "n3", "n4", "n5",
                                         "a", "a.b", "a.c", "a.b.x" };
    rest_server_stats before;

    o.page_size = 2;
    rest_fixture_start(&f, &o, NULL);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, names[i]),
                   &f.ctx);
    ZBT_RC(zb_catalog_create_namespace(f.cat, &f.ctx, "n3"), ZB_EEXISTS);
    ZBT_CONTAINS(f.ctx.err.msg, "AlreadyExistsException");
    before = rest_server_get_stats(f.srv);
    ZBT_OK_CTX(zb_catalog_list_namespaces(f.cat, &f.ctx, NULL, rest_items_cb,
                                          &it), &f.ctx);
    ZBT_EQ_STR(it.text, "n1,n2,n3,n4,n5,a");
    /* 6 items, 2 a page: 3 pages. */
    ZBT_EQ_U64(rest_server_get_stats(f.srv).list_pages - before.list_pages,
               3);
    it.text[0] = '\0';
    it.n = 0;
    ZBT_OK_CTX(zb_catalog_list_namespaces(f.cat, &f.ctx, "a", rest_items_cb,
                                          &it), &f.ctx);
    ZBT_EQ_STR(it.text, "a.b,a.c");
    it.text[0] = '\0';
    it.n = 0;
    ZBT_OK_CTX(zb_catalog_list_namespaces(f.cat, &f.ctx, "a.b",
                                          rest_items_cb, &it), &f.ctx);
    ZBT_EQ_STR(it.text, "a.b.x");
    ZBT_RC(zb_catalog_list_namespaces(f.cat, &f.ctx, "zz", rest_items_cb,
                                      &it), ZB_ENOTFOUND);
    ZBT_CONTAINS(f.ctx.err.msg, "parent=zz");
    rest_fixture_stop(&f);
}

static int stop_at_two(const char *item, void *payload)
{
    (void)item;
    return ++*(int *)payload == 2 ? 42 : 0;
}

static void test_catalog_rest__tables_pages(void)
{
    rest_server_opts o = { 0 };
    rest_fixture f;
    rest_items it = { "", 0 };
    int seen = 0;

    o.page_size = 2;
    rest_fixture_start(&f, &o, NULL);
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof(name), "t%d", i);
        zb_table_free(make_table(&f, "db", name));
    }
    zb_table_free(make_table(&f, "other", "x"));
    ZBT_OK_CTX(zb_catalog_list_tables(f.cat, &f.ctx, "db", rest_items_cb,
                                      &it), &f.ctx);
    ZBT_EQ_STR(it.text, "db.t0,db.t1,db.t2,db.t3,db.t4");
    /* The callback's value stops the listing. */
    ZBT_EQ_INT(zb_catalog_list_tables(f.cat, &f.ctx, "db", stop_at_two,
                                      &seen), 42);
    ZBT_EQ_INT(seen, 2);
    ZBT_RC(zb_catalog_list_tables(f.cat, &f.ctx, "missing", rest_items_cb,
                                  &it), ZB_ENOTFOUND);
    ZBT_CONTAINS(f.ctx.err.msg, "NoSuchNamespaceException");
    rest_fixture_stop(&f);
}

static void test_catalog_rest__create_load(void)
{
    rest_fixture f;
    zb_table *t = NULL, *t2 = NULL;
    ice_metadata *first = rest_first_metadata("file:///ignored");
    zb_io_stat st;
    const ice_schema *s;

    rest_fixture_start(&f, NULL, NULL);
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "db"), &f.ctx);
    ZBT_OK_CTX(zb_catalog_create_table(f.cat, &f.ctx, "db.events", NULL,
                                       first, &t), &f.ctx);
    ZBT_RC(zb_catalog_create_table(f.cat, &f.ctx, "db.events", NULL, first,
                                   &t2), ZB_EEXISTS);
    ZBT_CONTAINS(f.ctx.err.msg, "create table db.events");
    ice_metadata_free(first);
    ZBT_EQ_STR(t->ident, "db.events");
    ZBT_CHECK(t->metadata_location != NULL);
    /* The server wrote the file it names. */
    ZBT_OK_CTX(zb_io_stat_uri(&st, f.io, &f.ctx, t->metadata_location),
               &f.ctx);
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.events", &t2),
               &f.ctx);
    ZBT_EQ_STR(t2->metadata_location, t->metadata_location);
    ZBT_EQ_STR(t2->meta->table_uuid, t->meta->table_uuid);
    ZBT_EQ_INT(t2->meta->format_version, 2);
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "owner"), "rest-test");
    s = ice_metadata_current_schema(t2->meta);
    ZBT_CHECK(s && s->root->n_fields == 2);
    ZBT_EQ_STR(s->root->fields[1].name, "data");
    /* Vended credentials first, then config entries not given there; the
     * credential for another prefix is not used. */
    ZBT_EQ_STR(config_value(t2, "s3.access-key-id"), "vended-key");
    ZBT_EQ_INT(config_count(t2, "s3.access-key-id"), 1);
    ZBT_EQ_STR(config_value(t2, "s3.secret-access-key"), "vended-secret");
    ZBT_EQ_STR(config_value(t2, "test.table-config"), "yes");
    ZBT_EQ_STR(config_value(t2, "s3.endpoint"), "http://127.0.0.1:1");
    zb_table_free(t2);
    t2 = NULL;
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.nope", &t2),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(f.ctx.err.msg, "catalog rt (rest)");
    ZBT_CONTAINS(f.ctx.err.msg, "load table db.nope");
    ZBT_CONTAINS(f.ctx.err.msg, "NoSuchTableException");
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "nodot", &t2), ZB_EUSAGE);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__register_drop(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL;

    rest_fixture_start(&f, NULL, NULL);
    t = make_table(&f, "db", "orig");
    ZBT_OK_CTX(zb_catalog_register_table(f.cat, &f.ctx, "db.copy",
                                         t->metadata_location, &t2), &f.ctx);
    ZBT_EQ_STR(t2->ident, "db.copy");
    ZBT_EQ_STR(t2->meta->table_uuid, t->meta->table_uuid);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_RC(zb_catalog_register_table(f.cat, &f.ctx, "db.copy",
                                     t->metadata_location, &t2), ZB_EEXISTS);
    {
        char missing[1200];
        snprintf(missing, sizeof(missing), "%s/none.metadata.json", f.dir);
        ZBT_RC(zb_catalog_register_table(f.cat, &f.ctx, "db.gone", missing,
                                         &t2), ZB_ENOTFOUND);
        ZBT_CONTAINS(f.ctx.err.msg, "register table db.gone");
    }
    ZBT_OK_CTX(zb_catalog_drop_table(f.cat, &f.ctx, "db.copy"), &f.ctx);
    ZBT_RC(zb_catalog_load_table(f.cat, &f.ctx, "db.copy", &t2),
           ZB_ENOTFOUND);
    ZBT_RC(zb_catalog_drop_table(f.cat, &f.ctx, "db.copy"), ZB_ENOTFOUND);
    ZBT_CONTAINS(f.ctx.err.msg, "drop table db.copy");
    /* The original is untouched. */
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.orig", &t2), &f.ctx);
    zb_table_free(t2);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

/* A commit setting one property, asserting the table's uuid. */
static int commit_prop(rest_fixture *f, const zb_table *base,
                       const char *uuid, const char *key, const char *value,
                       zb_table **out)
{
    ice_kv kv = { key, value };
    json_t *reqs = json_array(), *upds = json_array();
    int rc;

    ZBT_CHECK(ice_commit_append((zb_json *)reqs, &f->ctx,
                                ice_requirement_table_uuid(uuid)) == ZB_OK);
    ZBT_CHECK(ice_commit_append((zb_json *)upds, &f->ctx,
                                ice_update_set_properties(&kv, 1)) == ZB_OK);
    rc = zb_catalog_commit(f->cat, &f->ctx, base, (const zb_json *)reqs,
                           (const zb_json *)upds, out);
    json_decref(reqs);
    json_decref(upds);
    return rc;
}

static void test_catalog_rest__commit(void)
{
    rest_fixture f;
    zb_table *t, *t2 = NULL, *t3 = NULL;
    rest_server_stats st;

    rest_fixture_start(&f, NULL, NULL);
    t = make_table(&f, "db", "c");
    ZBT_OK_CTX(commit_prop(&f, t, t->meta->table_uuid, "k", "v1", &t2),
               &f.ctx);
    ZBT_CHECK(strcmp(t2->metadata_location, t->metadata_location) != 0);
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "k"), "v1");
    ZBT_EQ_INT(t2->meta->n_metadata_log, 1);
    /* The base's config goes with the committed table. */
    ZBT_EQ_STR(config_value(t2, "s3.access-key-id"), "vended-key");
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.c", &t3), &f.ctx);
    ZBT_EQ_STR(t3->metadata_location, t2->metadata_location);
    ZBT_EQ_STR(ice_metadata_property(t3->meta, "k"), "v1");
    zb_table_free(t3);
    t3 = NULL;
    /* A requirement that fails: a conflict, nothing changed. */
    st = rest_server_get_stats(f.srv);
    ZBT_RC(commit_prop(&f, t2, "00000000-0000-0000-0000-000000000000", "k",
                       "v2", &t3), ZB_ECONFLICT);
    ZBT_CONTAINS(f.ctx.err.msg, "commit to table db.c");
    ZBT_CONTAINS(f.ctx.err.msg, "409");
    ZBT_CONTAINS(f.ctx.err.msg, "CommitFailedException");
    ZBT_EQ_U64(rest_server_get_stats(f.srv).commits, st.commits);
    ZBT_CHECK(t3 == NULL);
    /* out may be NULL. */
    ZBT_OK_CTX(commit_prop(&f, t2, t->meta->table_uuid, "k", "v3", NULL),
               &f.ctx);
    /* A malformed update: 400, the request's fault, not retried. */
    {
        json_t *reqs = json_array();
        json_t *upds = json_pack("[{s:s}]", "action", "no-such-action");
        ZBT_RC(zb_catalog_commit(f.cat, &f.ctx, t2, (const zb_json *)reqs,
                                 (const zb_json *)upds, NULL),
               ZB_EINVAL);
        ZBT_CONTAINS(f.ctx.err.msg, "400");
        json_decref(reqs);
        json_decref(upds);
    }
    /* The server prunes old metadata files when the table says so. */
    {
        ice_kv kv[2] = { { ICE_PROP_DELETE_AFTER_COMMIT, "true" },
                         { ICE_PROP_PREVIOUS_VERSIONS_MAX, "1" } };
        json_t *reqs = json_array(), *upds = json_array();
        zbt_files files = { 0 };
        char dir[1200];
        json_array_append_new(upds, (json_t *)ice_update_set_properties(kv, 2));
        ZBT_OK_CTX(zb_catalog_commit(f.cat, &f.ctx, t2, (const zb_json *)reqs,
                                     (const zb_json *)upds, NULL),
                   &f.ctx);
        for (int i = 0; i < 3; i++)
            ZBT_OK_CTX(commit_prop(&f, t2, t->meta->table_uuid, "k", "again",
                                   NULL), &f.ctx);
        snprintf(dir, sizeof(dir), "%s/metadata", t->meta->location);
        /* The current file and the one its log keeps. */
        ZBT_EQ_INT(zbt_find_files(&files, dir, ".metadata.json"), 2);
        zbt_files_free(&files);
        json_decref(reqs);
        json_decref(upds);
    }
    zb_table_free(t);
    zb_table_free(t2);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__escaping(void)
{
    rest_fixture f;
    rest_items it = { "", 0 };
    zb_table *t;

    rest_fixture_start(&f, NULL, NULL);
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "sp ace"), &f.ctx);
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "sp ace.k\xc3\xb6ln"),
               &f.ctx);
    t = make_table(&f, "sp ace.k\xc3\xb6ln", "t&1?x=%");
    ZBT_EQ_STR(t->ident, "sp ace.k\xc3\xb6ln.t&1?x=%");
    zb_table_free(t);
    ZBT_OK_CTX(zb_catalog_list_tables(f.cat, &f.ctx, "sp ace.k\xc3\xb6ln",
                                      rest_items_cb, &it), &f.ctx);
    ZBT_EQ_STR(it.text, "sp ace.k\xc3\xb6ln.t&1?x=%");
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx,
                                     "sp ace.k\xc3\xb6ln.t&1?x=%", &t),
               &f.ctx);
    zb_table_free(t);
    rest_fixture_stop(&f);
}

static void test_catalog_rest__warehouses(void)
{
    rest_server_opts o = { 0 };
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    rest_fixture f;
    rest_items it = { "", 0 };

    o.lakekeeper = 1;
    rest_fixture_start(&f, &o, NULL);
    ZBT_CHECK(zb_catalog_caps(f.cat) & ZB_CATALOG_CAP_WAREHOUSES);
    ZBT_CHECK(zb_catalog_caps(f.cat) & ZB_CATALOG_CAP_NAMESPACES);
    ZBT_OK_CTX(zb_catalog_list_warehouses(f.cat, &f.ctx, rest_items_cb, &it),
               &f.ctx);
    ZBT_EQ_STR(it.text, "wh-a,wh-b");
    rest_fixture_stop(&f);

    /* A Lakekeeper that serves the catalog at <base>/catalog: the
     * management API is found at <base>/management. */
    o.warehouse = "wh-x";
    cfg.warehouse = "wh-x";
    rest_fixture_start(&f, &o, &cfg);
    it.text[0] = '\0';
    it.n = 0;
    ZBT_OK_CTX(zb_catalog_list_warehouses(f.cat, &f.ctx, rest_items_cb, &it),
               &f.ctx);
    ZBT_EQ_STR(it.text, "wh-x");
    rest_fixture_stop(&f);

    rest_fixture_start(&f, NULL, NULL);
    ZBT_CHECK(!(zb_catalog_caps(f.cat) & ZB_CATALOG_CAP_WAREHOUSES));
    ZBT_RC(zb_catalog_list_warehouses(f.cat, &f.ctx, rest_items_cb, &it),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(f.ctx.err.msg, "catalog rt (rest)");
    rest_fixture_stop(&f);
}

const zbt_case test_catalog_rest_calls[] = {
    ZBT_CASE(test_catalog_rest__config_prefix),
    ZBT_CASE(test_catalog_rest__namespaces_pages),
    ZBT_CASE(test_catalog_rest__tables_pages),
    ZBT_CASE(test_catalog_rest__create_load),
    ZBT_CASE(test_catalog_rest__register_drop),
    ZBT_CASE(test_catalog_rest__commit),
    ZBT_CASE(test_catalog_rest__escaping),
    ZBT_CASE(test_catalog_rest__warehouses),
    ZBT_END
};

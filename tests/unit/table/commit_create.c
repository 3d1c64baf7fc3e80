/*
 * New table metadata (fresh ids as Iceberg Java assigns them, the spec
 * and sort order moved along, v1 and v3 shapes), metadata file names
 * (versions parsed, sequential and Hadoop naming, write.metadata.path),
 * the metadata files to prune, and the update builders applied.
 */
#include <stdio.h>
#include <string.h>

#include "commit_test.h"
#include "util/alloc.h"

/* Nested: ids 1..3 for the top level, then the struct's fields, then
 * the list's element, then the map's key and value, as AssignFreshIds. */
static const char nested_schema[] =
    "{\"type\":\"struct\",\"identifier-field-ids\":[7],\"fields\":["
    "{\"id\":7,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":8,\"name\":\"loc\",\"required\":false,\"type\":{\"type\":"
    "\"struct\",\"fields\":[{\"id\":20,\"name\":\"lat\",\"required\":false,"
    "\"type\":\"double\"},{\"id\":21,\"name\":\"tags\",\"required\":false,"
    "\"type\":{\"type\":\"list\",\"element-id\":30,\"element\":\"string\","
    "\"element-required\":false}}]}},"
    "{\"id\":9,\"name\":\"attrs\",\"required\":false,\"type\":{\"type\":"
    "\"map\",\"key-id\":40,\"key\":\"string\",\"value-id\":41,\"value\":"
    "\"int\",\"value-required\":false}}]}";

static void test_table_commit_create__fresh_ids(void)
{
    zb_ctx ctx;
    ice_metadata *m = NULL;
    json_t *schema = ct_json(nested_schema);
    json_t *spec = ct_json("{\"spec-id\":5,\"fields\":[{\"name\":\"lat_b\","
                           "\"transform\":\"bucket[4]\",\"source-id\":20,"
                           "\"field-id\":1500},{\"name\":\"id_t\","
                           "\"transform\":\"truncate[10]\",\"source-id\":7}]}");
    json_t *order = ct_json("{\"order-id\":9,\"fields\":[{\"transform\":"
                            "\"identity\",\"source-id\":9,\"direction\":"
                            "\"asc\",\"null-order\":\"nulls-first\"}]}");
    const ice_kv props[] = { { "format-version", "3" }, { "owner", "x" },
                             { "current-snapshot-id", "7" } };
    const ice_schema *s;
    const ice_type *loc, *tags, *attrs;
    json_t *w;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_create(&m, &ctx, (const zb_json *)schema,
                                   (const zb_json *)spec,
                                   (const zb_json *)order,
                                   "s3://b/db/t/", props, 3, 0), &ctx);
    ZBT_EQ_INT(m->format_version, 3);
    ZBT_EQ_STR(m->location, "s3://b/db/t");
    ZBT_CHECK(m->table_uuid != NULL && strlen(m->table_uuid) == 36);
    ZBT_EQ_INT(m->table_uuid[14], '4');
    ZBT_EQ_INT(m->last_column_id, 8);
    s = ice_metadata_current_schema(m);
    ZBT_EQ_INT(s->schema_id, 0);
    ZBT_EQ_INT(s->root->fields[0].id, 1);
    ZBT_EQ_INT(s->root->fields[1].id, 2);
    ZBT_EQ_INT(s->root->fields[2].id, 3);
    loc = s->root->fields[1].type;
    ZBT_EQ_INT(loc->fields[0].id, 4);       /* lat */
    ZBT_EQ_INT(loc->fields[1].id, 5);       /* tags */
    tags = loc->fields[1].type;
    ZBT_EQ_INT(tags->element_id, 6);
    attrs = s->root->fields[2].type;
    ZBT_EQ_INT(attrs->key_id, 7);
    ZBT_EQ_INT(attrs->value_id, 8);
    ZBT_EQ_INT(s->n_identifier_field_ids, 1);
    ZBT_EQ_INT(s->identifier_field_ids[0], 1);
    ZBT_EQ_INT(m->default_spec_id, 0);
    ZBT_EQ_INT(m->specs[0].fields[0].source_id, 4);
    ZBT_EQ_INT(m->specs[0].fields[0].field_id, 1000);
    ZBT_EQ_INT(m->specs[0].fields[1].source_id, 1);
    ZBT_EQ_INT(m->specs[0].fields[1].field_id, 1001);
    ZBT_EQ_INT(m->last_partition_id, 1001);
    ZBT_EQ_INT(m->default_sort_order_id, 1);
    ZBT_EQ_INT(ice_metadata_sort_order(m, 1)->fields[0].source_id, 3);
    ZBT_EQ_STR(ice_metadata_property(m, "owner"), "x");
    ZBT_CHECK(ice_metadata_property(m, "format-version") == NULL);
    ZBT_CHECK(ice_metadata_property(m, "current-snapshot-id") == NULL);
    ZBT_EQ_STR(ice_metadata_property(m, "write.parquet.compression-codec"),
               "zstd");
    ZBT_CHECK(m->has_next_row_id && m->next_row_id == 0);
    ZBT_EQ_INT(m->current_snapshot_id, ICE_NO_SNAPSHOT);
    w = ct_written(m);
    ZBT_EQ_INT(json_integer_value(json_object_get(w, "last-sequence-number")),
               0);
    ZBT_CHECK(json_object_get(w, "schema") == NULL);
    json_decref(w);
    ice_metadata_free(m);

    /* v1: the deprecated fields too; unsorted, unpartitioned */
    ZBT_OK_CTX(ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL,
                                   NULL, "/tmp/x",
                                   NULL, 0, 1), &ctx);
    w = ct_written(m);
    ZBT_CHECK(json_is_object(json_object_get(w, "schema")));
    ZBT_EQ_INT(json_array_size(json_object_get(w, "partition-spec")), 0);
    ZBT_EQ_INT(json_integer_value(json_object_get(w, "last-partition-id")),
               999);
    ZBT_EQ_INT(json_integer_value(json_object_get(w,
                                                  "default-sort-order-id")), 0);
    ZBT_CHECK(json_object_get(w, "last-sequence-number") == NULL);
    json_decref(w);
    ice_metadata_free(m);
    m = NULL;

    /* refusals: a source id not in the schema, duplicate ids, v4 */
    json_decref(spec);
    spec = ct_json("{\"fields\":[{\"name\":\"x\",\"transform\":\"identity\","
                   "\"source-id\":99}]}");
    ZBT_RC(ice_metadata_create(&m, &ctx, (const zb_json *)schema,
                               (const zb_json *)spec, NULL, "/t", NULL, 0, 2),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "99");
    ZBT_RC(ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL, NULL,
                               "/t", NULL, 0, 4),
           ZB_EUNSUPPORTED);
    json_decref(schema);
    schema = ct_json("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":"
                     "\"a\",\"required\":true,\"type\":\"int\"},{\"id\":1,"
                     "\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}");
    ZBT_RC(ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL, NULL,
                               "/t", NULL, 0, 2),
           ZB_EINVAL);
    ZBT_CHECK(m == NULL);
    json_decref(schema);
    json_decref(spec);
    json_decref(order);
}

static void test_table_commit_create__names(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    char *u = NULL, *d = NULL;

    ZBT_EQ_INT(ice_commit_metadata_version("s3://b/t/metadata/00012-"
                                           "9c12d441.metadata.json"), 12);
    ZBT_EQ_INT(ice_commit_metadata_version("/t/metadata/v7.metadata.json"), 7);
    ZBT_EQ_INT(ice_commit_metadata_version("v3.gz.metadata.json"), 3);
    ZBT_EQ_INT(ice_commit_metadata_version("/t/metadata/x.metadata.json"), -1);
    ZBT_EQ_INT(ice_commit_metadata_version("/t/metadata/vx.metadata.json"),
               -1);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&u, &ctx, m, NULL,
                                            "s3://bucket/t/metadata/00012-a-b"
                                            ".metadata.json",
                                            ICE_NAMING_SEQUENTIAL), &ctx);
    ZBT_CHECK(strncmp(u, "s3://bucket/t/metadata/00013-", 29) == 0);
    ZBT_EQ_INT(strlen(u), strlen("s3://bucket/t/metadata/00013-") + 36 +
                              strlen(".metadata.json"));
    zb_free(u);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&u, &ctx, m, NULL, NULL,
                                            ICE_NAMING_SEQUENTIAL), &ctx);
    ZBT_CONTAINS(u, "/metadata/00000-");
    zb_free(u);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&u, &ctx, m, "/local/copy/",
                                            "/local/copy/metadata/v4.metadata"
                                            ".json", ICE_NAMING_HADOOP), &ctx);
    ZBT_EQ_STR(u, "/local/copy/metadata/v5.metadata.json");
    zb_free(u);
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx, ICE_PROP_METADATA_PATH,
                                         "s3://meta/here/"), &ctx);
    ZBT_OK_CTX(ice_commit_metadata_dir(&d, &ctx, m, "/ignored"), &ctx);
    ZBT_EQ_STR(d, "s3://meta/here");
    zb_free(d);
    ZBT_OK_CTX(ice_commit_next_metadata_uri(&u, &ctx, m, NULL, NULL,
                                            ICE_NAMING_HADOOP), &ctx);
    ZBT_EQ_STR(u, "s3://meta/here/v1.metadata.json");
    zb_free(u);
    ice_metadata_free(m);
}

static void test_table_commit_create__prune(void)
{
    zb_ctx ctx;
    ice_metadata *base = ct_parse(ct_v2, &ctx), *next = ct_parse(ct_v2, &ctx);
    char **old = NULL;
    size_t n = 99, i;

    for (i = 0; i < 3; i++) {
        char f[64];

        snprintf(f, sizeof f, "/t/metadata/v%zu.metadata.json", i + 1);
        ZBT_OK_CTX(ice_metadata_append_metadata_log(base, &ctx, f,
                                                    (int64_t)i, 0), &ctx);
        ZBT_OK_CTX(ice_metadata_append_metadata_log(next, &ctx, f,
                                                    (int64_t)i, 0), &ctx);
    }
    /* the commit adds v4 and keeps 2 entries: v1 and v2 fall out */
    ZBT_OK_CTX(ice_metadata_append_metadata_log(next, &ctx,
                                                "/t/metadata/v4.metadata.json",
                                                4, 2), &ctx);
    ZBT_OK_CTX(ice_commit_metadata_to_prune(&old, &n, &ctx, base, next), &ctx);
    ZBT_EQ_INT(n, 0);                  /* the property is off */
    ZBT_OK_CTX(ice_metadata_set_property(next, &ctx,
                                         ICE_PROP_DELETE_AFTER_COMMIT, "true"),
               &ctx);
    ZBT_OK_CTX(ice_commit_metadata_to_prune(&old, &n, &ctx, base, next), &ctx);
    ZBT_EQ_INT(n, 2);
    ZBT_EQ_STR(old[0], "/t/metadata/v1.metadata.json");
    ZBT_EQ_STR(old[1], "/t/metadata/v2.metadata.json");
    for (i = 0; i < n; i++)
        zb_free(old[i]);
    zb_free(old);
    ice_metadata_free(base);
    ice_metadata_free(next);
}

static void test_table_commit_create__builders(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    json_t *u = json_array(), *order;
    const ice_kv kv[] = { { "k", "v" } };
    const char *rm[] = { "owner" };
    const int64_t ids[] = { 1 };
    ice_ref tag = { "nightly", ICE_REF_TAG, 2, -1, -1, 86400000, 0 };

    order = ct_json("{\"fields\":[{\"transform\":\"identity\",\"source-id\":"
                    "3,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}");
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_update_set_properties(kv, 1)),
               &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_update_remove_properties(rm, 1)), &ctx);
    ZBT_OK_CTX(ice_update_set_sort_order((zb_json *)u, &ctx,
                                         (const zb_json *)order), &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx, ice_update_set_ref(&tag)),
               &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_update_remove_ref("t1")), &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_update_remove_snapshots(ids, 1)),
               &ctx);
    ZBT_OK_CTX(ice_commit_apply_updates(m, &ctx, (const zb_json *)u), &ctx);
    ZBT_EQ_STR(ice_metadata_property(m, "k"), "v");
    ZBT_CHECK(ice_metadata_property(m, "owner") == NULL);
    ZBT_EQ_INT(m->default_sort_order_id, 2);
    ZBT_CHECK(ice_metadata_ref(m, "nightly") != NULL &&
              ice_metadata_ref(m, "nightly")->type == ICE_REF_TAG &&
              ice_metadata_ref(m, "nightly")->max_ref_age_ms == 86400000);
    ZBT_CHECK(ice_metadata_ref(m, "t1") == NULL);
    ZBT_EQ_INT(m->n_snapshots, 1);
    json_decref(u);
    /* requirements built here hold against the table */
    u = json_array();
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_requirement_table_uuid(m->table_uuid)),
               &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_requirement_ref_snapshot_id("main", 2)),
               &ctx);
    ZBT_OK_CTX(ice_commit_append((zb_json *)u, &ctx,
                                 ice_requirement_ref_snapshot_id(
                                              "x", ICE_NO_SNAPSHOT)), &ctx);
    ZBT_OK_CTX(ice_commit_check_requirements(m, &ctx, (const zb_json *)u),
               &ctx);
    ZBT_RC(ice_commit_append((zb_json *)u, &ctx, NULL), ZB_ENOMEM);
    json_decref(u);
    json_decref(order);
    ice_metadata_free(m);
}

const zbt_case test_table_commit_create[] = {
    ZBT_CASE(test_table_commit_create__fresh_ids),
    ZBT_CASE(test_table_commit_create__names),
    ZBT_CASE(test_table_commit_create__prune),
    ZBT_CASE(test_table_commit_create__builders),
    ZBT_END
};

/*
 * Requirements and updates: each TableRequirement type passing and
 * failing, each TableUpdate action applied and the written metadata
 * parsed again and compared field by field, refused updates, all or
 * nothing on a list whose last update fails, and allocation-failure
 * torture of a whole list (zb_malloc and jansson's allocator).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit_test.h"
#include "util/alloc.h"
#include "util/buf.h"

const char ct_v2[] =
    "{\"format-version\":2,"
    "\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"s3://bucket/t\",\"last-sequence-number\":2,"
    "\"last-updated-ms\":1700000002000,\"last-column-id\":3,"
    "\"current-schema-id\":1,\"schemas\":["
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"}]}],"
    "\"default-spec-id\":1,\"partition-specs\":["
    "{\"spec-id\":0,\"fields\":[]},"
    "{\"spec-id\":1,\"fields\":[{\"name\":\"name\",\"transform\":"
    "\"identity\",\"source-id\":2,\"field-id\":1000}]}],"
    "\"last-partition-id\":1000,\"default-sort-order-id\":1,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]},{\"order-id\":1,"
    "\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":"
    "\"asc\",\"null-order\":\"nulls-first\"}]}],"
    "\"properties\":{\"owner\":\"me\",\"write.format.default\":\"parquet\"},"
    "\"current-snapshot-id\":2,"
    "\"refs\":{\"main\":{\"snapshot-id\":2,\"type\":\"branch\"},"
    "\"t1\":{\"snapshot-id\":1,\"type\":\"tag\",\"max-ref-age-ms\":1000}},"
    "\"snapshots\":["
    "{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1700000001000,"
    "\"summary\":{\"operation\":\"append\"},\"manifest-list\":"
    "\"s3://bucket/t/metadata/snap-1.avro\",\"schema-id\":0},"
    "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"sequence-number\":2,"
    "\"timestamp-ms\":1700000002000,\"summary\":{\"operation\":\"append\"},"
    "\"manifest-list\":\"s3://bucket/t/metadata/snap-2.avro\","
    "\"schema-id\":1}],"
    "\"statistics\":[{\"snapshot-id\":1,\"statistics-path\":"
    "\"s3://bucket/t/metadata/1.stats\",\"file-size-in-bytes\":100,"
    "\"file-footer-size-in-bytes\":20,\"blob-metadata\":[]}],"
    "\"snapshot-log\":[{\"timestamp-ms\":1700000001000,\"snapshot-id\":1},"
    "{\"timestamp-ms\":1700000002000,\"snapshot-id\":2}],"
    "\"metadata-log\":[]}";

const char ct_v1[] =
    "{\"format-version\":1,"
    "\"table-uuid\":\"6b0e3a4f-1f0c-4f1e-9a44-111111111111\","
    "\"location\":\"/tmp/t1\",\"last-updated-ms\":1600000000000,"
    "\"last-column-id\":2,\"schema\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]},"
    "\"partition-spec\":[{\"name\":\"name\",\"transform\":\"identity\","
    "\"source-id\":2}],\"properties\":{}}";

ice_metadata *ct_parse(const char *json, zb_ctx *ctx)
{
    ice_metadata *m = NULL;

    zb_ctx_init(ctx);
    ZBT_OK_CTX(ice_metadata_parse(&m, ctx, json, strlen(json), "t.json"), ctx);
    return m;
}

json_t *ct_json(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);

    if (j == NULL)
        zbt__fail(__FILE__, __LINE__, "bad test JSON: %s: %s", e.text, text);
    return j;
}

json_t *ct_written(const ice_metadata *m)
{
    zb_buf b = ZB_BUF_INIT(1 << 24);
    zb_ctx ctx;
    json_t *j;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_write(&b, m, &ctx), &ctx);
    j = ct_json(zb_buf_cstr(&b));
    zb_buf_free(&b);
    return j;
}

/* Applies updates (JSON text) and returns the rc. */
static int apply(ice_metadata *m, zb_ctx *ctx, const char *updates)
{
    json_t *u = ct_json(updates);
    int rc = ice_commit_apply_updates(m, ctx, (const zb_json *)u);

    json_decref(u);
    return rc;
}

static int check(const ice_metadata *m, zb_ctx *ctx, const char *reqs)
{
    json_t *r = ct_json(reqs);
    int rc = ice_commit_check_requirements(m, ctx, (const zb_json *)r);

    json_decref(r);
    return rc;
}

/* ---- requirements ------------------------------------------------------ */

static void test_table_commit_apply__requirements(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);

    ZBT_OK_CTX(check(m, &ctx, "[{\"type\":\"assert-table-uuid\",\"uuid\":"
                     "\"9C12D441-03FE-4693-9A96-A0705DDF69C1\"},"
                     "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\","
                     "\"snapshot-id\":2},"
                     "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"dev\","
                     "\"snapshot-id\":null},"
                     "{\"type\":\"assert-last-assigned-field-id\","
                     "\"last-assigned-field-id\":3},"
                     "{\"type\":\"assert-current-schema-id\","
                     "\"current-schema-id\":1},"
                     "{\"type\":\"assert-last-assigned-partition-id\","
                     "\"last-assigned-partition-id\":1000},"
                     "{\"type\":\"assert-default-spec-id\","
                     "\"default-spec-id\":1},"
                     "{\"type\":\"assert-default-sort-order-id\","
                     "\"default-sort-order-id\":1}]"), &ctx);
    ZBT_OK_CTX(check(m, &ctx, "[]"), &ctx);
    ZBT_OK_CTX(check(NULL, &ctx, "[{\"type\":\"assert-create\"}]"), &ctx);

    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-create\"}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "already exists");
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-table-uuid\",\"uuid\":"
                 "\"00000000-0000-0000-0000-000000000000\"}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "assert-table-uuid");
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":"
                 "\"main\",\"snapshot-id\":1}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "expected snapshot 1, table has 2");
    ZBT_CHECK(ice_commit_conflict_retryable(&ctx));
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":"
                 "\"t1\",\"snapshot-id\":null}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "t1 was created");
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":"
                 "\"gone\",\"snapshot-id\":5}]"), ZB_ECONFLICT);
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-last-assigned-field-id\","
                 "\"last-assigned-field-id\":4}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "expected 4, table has 3");
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-current-schema-id\","
                 "\"current-schema-id\":0}]"), ZB_ECONFLICT);
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-last-assigned-partition-id\","
                 "\"last-assigned-partition-id\":999}]"), ZB_ECONFLICT);
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-default-spec-id\","
                 "\"default-spec-id\":0}]"), ZB_ECONFLICT);
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-default-sort-order-id\","
                 "\"default-sort-order-id\":0}]"), ZB_ECONFLICT);
    /* the table is missing: everything but assert-create fails */
    ZBT_RC(check(NULL, &ctx, "[{\"type\":\"assert-default-spec-id\","
                 "\"default-spec-id\":0}]"), ZB_ECONFLICT);
    /* the first failure is the one named */
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-default-spec-id\","
                 "\"default-spec-id\":1},{\"type\":\"assert-default-spec-id\","
                 "\"default-spec-id\":7}]"), ZB_ECONFLICT);
    ZBT_CONTAINS(ctx.err.msg, "requirement 1");
    /* malformed and unknown */
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"x\"}]"),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "assert-view-uuid");
    ZBT_RC(check(m, &ctx, "[{\"type\":\"assert-default-spec-id\"}]"),
           ZB_EINVAL);
    ZBT_RC(check(m, &ctx, "[{}]"), ZB_EINVAL);
    ZBT_RC(check(m, &ctx, "{}"), ZB_EINVAL);
    ice_metadata_free(m);
}

/* ---- updates ------------------------------------------------------------ */

static void test_table_commit_apply__properties_location_uuid(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    json_t *w, *props = json_pack("{ssss}", "owner", "you", "a", "1");

    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"set-properties\",\"updates\":"
                     "{\"a\":\"1\",\"owner\":\"you\"}},"
                     "{\"action\":\"remove-properties\",\"removals\":"
                     "[\"write.format.default\",\"absent\"]},"
                     "{\"action\":\"set-location\",\"location\":"
                     "\"s3://other/t\"},"
                     "{\"action\":\"assign-uuid\",\"uuid\":"
                     "\"11111111-2222-4333-8444-555555555555\"}]"), &ctx);
    w = ct_written(m);
    ZBT_CHECK(json_equal(json_object_get(w, "properties"), props));
    json_decref(props);
    ZBT_EQ_STR(json_string_value(json_object_get(w, "location")),
               "s3://other/t");
    ZBT_EQ_STR(m->table_uuid, "11111111-2222-4333-8444-555555555555");
    ZBT_CHECK(m->last_updated_ms > 1700000002000LL);
    json_decref(w);
    ice_metadata_free(m);
}

static void test_table_commit_apply__schema(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    const ice_schema *s;

    /* a new schema: id 2, last-column-id raised, -1 picks it */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-schema\",\"schema\":"
                     "{\"type\":\"struct\",\"schema-id\":77,\"fields\":["
                     "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":"
                     "\"long\"},{\"id\":4,\"name\":\"tags\",\"required\":"
                     "false,\"type\":{\"type\":\"list\",\"element-id\":5,"
                     "\"element\":\"string\",\"element-required\":false}}]}},"
                     "{\"action\":\"set-current-schema\",\"schema-id\":-1}]"),
               &ctx);
    ZBT_EQ_INT(m->n_schemas, 3);
    ZBT_EQ_INT(m->current_schema_id, 2);
    ZBT_EQ_INT(m->last_column_id, 5);
    s = ice_metadata_current_schema(m);
    ZBT_EQ_INT(s->root->n_fields, 2);
    /* an equal schema reuses its id */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-schema\",\"schema\":"
                     "{\"type\":\"struct\",\"fields\":["
                     "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":"
                     "\"long\"},{\"id\":2,\"name\":\"name\",\"required\":"
                     "false,\"type\":\"string\"}]}},"
                     "{\"action\":\"set-current-schema\",\"schema-id\":-1}]"),
               &ctx);
    ZBT_EQ_INT(m->n_schemas, 3);
    ZBT_EQ_INT(m->current_schema_id, 0);
    /* remove-schemas: not the current one */
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"remove-schemas\",\"schema-ids\":"
                 "[0]}]"), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "current-schema-id");
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-schemas\",\"schema-ids\":"
                     "[1, 2]}]"), &ctx);
    ZBT_EQ_INT(m->n_schemas, 1);
    /* -1 with nothing added, an unknown id */
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-current-schema\","
                 "\"schema-id\":-1}]"), ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-current-schema\","
                 "\"schema-id\":9}]"), ZB_EINVAL);
    ice_metadata_free(m);
}

static void test_table_commit_apply__spec_and_order(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    const ice_partition_spec *sp;
    const ice_sort_order *so;

    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-spec\",\"spec\":{"
                     "\"fields\":[{\"name\":\"name\",\"transform\":"
                     "\"identity\",\"source-id\":2},{\"name\":\"id_b\","
                     "\"transform\":\"bucket[8]\",\"source-id\":1}]}},"
                     "{\"action\":\"set-default-spec\",\"spec-id\":-1},"
                     "{\"action\":\"add-sort-order\",\"sort-order\":{"
                     "\"order-id\":5,\"fields\":[{\"transform\":\"identity\","
                     "\"source-id\":2,\"direction\":\"desc\",\"null-order\":"
                     "\"nulls-last\"}]}},"
                     "{\"action\":\"set-default-sort-order\","
                     "\"sort-order-id\":-1}]"), &ctx);
    ZBT_EQ_INT(m->default_spec_id, 2);
    sp = ice_metadata_default_spec(m);
    ZBT_EQ_INT(sp->n_fields, 2);
    /* the identity(name) field keeps its old id; the new one is next */
    ZBT_EQ_INT(sp->fields[0].field_id, 1000);
    ZBT_EQ_INT(sp->fields[1].field_id, 1001);
    ZBT_EQ_INT(m->last_partition_id, 1001);
    ZBT_EQ_INT(m->default_sort_order_id, 2);
    so = ice_metadata_sort_order(m, 2);
    ZBT_CHECK(so != NULL && so->n_fields == 1 &&
              so->fields[0].direction == ICE_SORT_DESC);
    /* an equal spec and the unsorted order are reused */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-spec\",\"spec\":{"
                     "\"fields\":[]}},{\"action\":\"set-default-spec\","
                     "\"spec-id\":-1},{\"action\":\"add-sort-order\","
                     "\"sort-order\":{\"fields\":[]}},"
                     "{\"action\":\"set-default-sort-order\","
                     "\"sort-order-id\":-1}]"), &ctx);
    ZBT_EQ_INT(m->n_specs, 3);
    ZBT_EQ_INT(m->default_spec_id, 0);
    ZBT_EQ_INT(m->default_sort_order_id, 0);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"remove-partition-specs\","
                 "\"spec-ids\":[0]}]"), ZB_EINVAL);
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-partition-specs\","
                     "\"spec-ids\":[1,2]}]"), &ctx);
    ZBT_EQ_INT(m->n_specs, 1);
    ice_metadata_free(m);
}

static void test_table_commit_apply__snapshots_and_refs(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    const ice_ref *r;
    json_t *w;

    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                     "\"snapshot-id\":3,\"parent-snapshot-id\":2,"
                     "\"sequence-number\":3,\"timestamp-ms\":1700000003000,"
                     "\"summary\":{\"operation\":\"append\"},"
                     "\"manifest-list\":\"s3://bucket/t/metadata/snap-3.avro\","
                     "\"schema-id\":1}},"
                     "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\","
                     "\"type\":\"branch\",\"snapshot-id\":3},"
                     "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"dev\","
                     "\"type\":\"branch\",\"snapshot-id\":2,"
                     "\"min-snapshots-to-keep\":2}]"), &ctx);
    ZBT_EQ_INT(m->current_snapshot_id, 3);
    ZBT_EQ_INT(m->last_sequence_number, 3);
    ZBT_EQ_INT(m->last_updated_ms, 1700000003000LL);
    ZBT_EQ_INT(m->n_snapshot_log, 3);
    ZBT_EQ_INT(m->snapshot_log[2].snapshot_id, 3);
    ZBT_EQ_INT(m->snapshot_log[2].timestamp_ms, 1700000003000LL);
    r = ice_metadata_ref(m, "dev");
    ZBT_CHECK(r && r->snapshot_id == 2 && r->min_snapshots_to_keep == 2);
    /* refusals: a taken id, an old sequence number, a missing snapshot,
     * main as a tag */
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                 "\"snapshot-id\":3,\"parent-snapshot-id\":2,"
                 "\"sequence-number\":4,\"timestamp-ms\":1,\"summary\":"
                 "{\"operation\":\"append\"},\"manifest-list\":\"x\"}}]"),
           ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                 "\"snapshot-id\":4,\"parent-snapshot-id\":3,"
                 "\"sequence-number\":3,\"timestamp-ms\":1,\"summary\":"
                 "{\"operation\":\"append\"},\"manifest-list\":\"x\"}}]"),
           ZB_ECONFLICT);          /* the table moved on: build again */
    ZBT_CONTAINS(ctx.err.msg, "sequence number");
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-snapshot-ref\",\"ref-name\":"
                 "\"x\",\"type\":\"tag\",\"snapshot-id\":99}]"), ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-snapshot-ref\",\"ref-name\":"
                 "\"main\",\"type\":\"tag\",\"snapshot-id\":2}]"), ZB_EINVAL);
    /* remove a ref; remove snapshots: refs, statistics and log follow */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-snapshot-ref\","
                     "\"ref-name\":\"dev\"}]"), &ctx);
    ZBT_CHECK(ice_metadata_ref(m, "dev") == NULL);
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-snapshots\","
                     "\"snapshot-ids\":[1,2]}]"), &ctx);
    ZBT_EQ_INT(m->n_snapshots, 1);
    ZBT_CHECK(ice_metadata_ref(m, "t1") == NULL);
    ZBT_EQ_INT(m->n_statistics, 0);
    ZBT_EQ_INT(m->n_snapshot_log, 1);
    ZBT_EQ_INT(m->snapshot_log[0].snapshot_id, 3);
    /* removing main leaves no current snapshot */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-snapshot-ref\","
                     "\"ref-name\":\"main\"}]"), &ctx);
    ZBT_EQ_INT(m->current_snapshot_id, ICE_NO_SNAPSHOT);
    w = ct_written(m);
    ZBT_EQ_INT(json_integer_value(json_object_get(w, "current-snapshot-id")),
               -1);
    ZBT_EQ_INT(json_object_size(json_object_get(w, "refs")), 0);
    json_decref(w);
    ice_metadata_free(m);
}

static void test_table_commit_apply__statistics_and_keys(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    json_t *w;

    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"set-statistics\","
                     "\"statistics\":{\"snapshot-id\":1,\"statistics-path\":"
                     "\"s3://bucket/t/metadata/1b.stats\","
                     "\"file-size-in-bytes\":200,"
                     "\"file-footer-size-in-bytes\":30,\"blob-metadata\":[]}},"
                     "{\"action\":\"set-statistics\",\"statistics\":{"
                     "\"snapshot-id\":2,\"statistics-path\":\"s3://b/2.stats\","
                     "\"file-size-in-bytes\":1,\"file-footer-size-in-bytes\":1,"
                     "\"blob-metadata\":[]}},"
                     "{\"action\":\"set-partition-statistics\","
                     "\"partition-statistics\":{\"snapshot-id\":2,"
                     "\"statistics-path\":\"s3://b/p2.parquet\","
                     "\"file-size-in-bytes\":9}},"
                     "{\"action\":\"add-encryption-key\",\"encryption-key\":{"
                     "\"key-id\":\"k1\",\"encrypted-key-metadata\":\"AAA=\"}}]"),
               &ctx);
    ZBT_EQ_INT(m->n_statistics, 2);
    ZBT_EQ_STR(m->statistics[0].statistics_path,
               "s3://bucket/t/metadata/1b.stats");
    ZBT_EQ_INT(m->n_partition_statistics, 1);
    w = ct_written(m);
    ZBT_EQ_INT(json_array_size(json_object_get(w, "encryption-keys")), 1);
    json_decref(w);
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"remove-statistics\","
                     "\"snapshot-id\":1},{\"action\":"
                     "\"remove-partition-statistics\",\"snapshot-id\":2},"
                     "{\"action\":\"remove-encryption-key\",\"key-id\":"
                     "\"k1\"}]"), &ctx);
    ZBT_EQ_INT(m->n_statistics, 1);
    ZBT_EQ_INT(m->statistics[0].snapshot_id, 2);
    ZBT_EQ_INT(m->n_partition_statistics, 0);
    w = ct_written(m);
    ZBT_EQ_INT(json_array_size(json_object_get(w, "encryption-keys")), 0);
    json_decref(w);
    ice_metadata_free(m);
}

static void test_table_commit_apply__upgrade(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v1, &ctx);
    json_t *w;

    /* v1 with only the deprecated fields: add-spec makes the lists and
     * keeps "partition-spec" equal to the default spec */
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-spec\",\"spec\":{"
                     "\"fields\":[]}},{\"action\":\"set-default-spec\","
                     "\"spec-id\":-1}]"), &ctx);
    w = ct_written(m);
    ZBT_EQ_INT(json_array_size(json_object_get(w, "partition-spec")), 0);
    ZBT_EQ_INT(json_array_size(json_object_get(w, "partition-specs")), 2);
    ZBT_EQ_INT(json_integer_value(json_object_get(w, "last-partition-id")),
               1000);
    json_decref(w);
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"upgrade-format-version\","
                     "\"format-version\":2}]"), &ctx);
    ZBT_EQ_INT(m->format_version, 2);
    ZBT_EQ_INT(m->last_sequence_number, 0);
    w = ct_written(m);
    ZBT_CHECK(json_object_get(w, "schema") == NULL);
    ZBT_CHECK(json_object_get(w, "partition-spec") == NULL);
    json_decref(w);
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"upgrade-format-version\","
                     "\"format-version\":3}]"), &ctx);
    ZBT_EQ_INT(m->format_version, 3);
    ZBT_CHECK(m->has_next_row_id && m->next_row_id == 0);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"upgrade-format-version\","
                 "\"format-version\":2}]"), ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"upgrade-format-version\","
                 "\"format-version\":4}]"), ZB_EUNSUPPORTED);
    ice_metadata_free(m);
}

static void test_table_commit_apply__v3_row_ids(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);

    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"upgrade-format-version\","
                     "\"format-version\":3}]"), &ctx);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                 "\"snapshot-id\":3,\"parent-snapshot-id\":2,"
                 "\"sequence-number\":3,\"timestamp-ms\":1700000003000,"
                 "\"summary\":{\"operation\":\"append\"},"
                 "\"manifest-list\":\"x\"}}]"), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "first-row-id");
    ZBT_OK_CTX(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                     "\"snapshot-id\":3,\"parent-snapshot-id\":2,"
                     "\"sequence-number\":3,\"timestamp-ms\":1700000003000,"
                     "\"summary\":{\"operation\":\"append\"},"
                     "\"manifest-list\":\"x\",\"first-row-id\":0,"
                     "\"added-rows\":25}}]"), &ctx);
    ZBT_EQ_INT(m->next_row_id, 25);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                 "\"snapshot-id\":4,\"parent-snapshot-id\":3,"
                 "\"sequence-number\":4,\"timestamp-ms\":1700000004000,"
                 "\"summary\":{\"operation\":\"append\"},"
                 "\"manifest-list\":\"x\",\"first-row-id\":10,"
                 "\"added-rows\":5}}]"), ZB_ECONFLICT);
    ice_metadata_free(m);
}

static void test_table_commit_apply__refused(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);

    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-view-version\","
                 "\"view-version\":{}}]"), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "add-view-version");
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"frobnicate\"}]"), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "frobnicate");
    ZBT_RC(apply(m, &ctx, "[{\"no\":1}]"), ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-properties\",\"updates\":"
                 "{\"a\":1}}]"), ZB_EINVAL);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-schema\"}]"), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "update 0 (add-schema)");
    ZBT_RC(apply(m, &ctx, "{}"), ZB_EINVAL);
    /* refused by the rebuild (a v2 snapshot needs a summary) */
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"add-snapshot\",\"snapshot\":{"
                 "\"snapshot-id\":3,\"parent-snapshot-id\":2,"
                 "\"sequence-number\":3,\"timestamp-ms\":1,"
                 "\"manifest-list\":\"x\"}}]"), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "invalid metadata");
    ZBT_CONTAINS(ctx.err.msg, "summary");
    ice_metadata_free(m);
}

/* A failing last update leaves document and model as they were. */
static void test_table_commit_apply__all_or_nothing(void)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    json_t *before = ct_written(m), *after;

    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-properties\",\"updates\":"
                 "{\"x\":\"y\"}},{\"action\":\"remove-snapshots\","
                 "\"snapshot-ids\":[1]},{\"action\":\"add-schema\",\"schema\":"
                 "{\"type\":\"struct\",\"fields\":[]}},"
                 "{\"action\":\"set-default-spec\",\"spec-id\":42}]"),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "update 3");
    after = ct_written(m);
    ZBT_CHECK(json_equal(before, after));
    ZBT_EQ_INT(m->n_snapshots, 2);
    ZBT_CHECK(ice_metadata_property(m, "x") == NULL);
    /* a list whose sixth update is refused: a partition field on a
     * column the current schema lacks */
    json_decref(after);
    ZBT_RC(apply(m, &ctx, "[{\"action\":\"set-properties\",\"updates\":"
                 "{\"x\":\"y\"}},{\"action\":\"set-current-schema\","
                 "\"schema-id\":0},{\"action\":\"remove-schemas\","
                 "\"schema-ids\":[1]},{\"action\":\"set-snapshot-ref\","
                 "\"ref-name\":\"main\",\"type\":\"branch\","
                 "\"snapshot-id\":2},{\"action\":\"add-snapshot\","
                 "\"snapshot\":{\"snapshot-id\":9,\"timestamp-ms\":1,"
                 "\"summary\":{\"operation\":\"append\"},"
                 "\"manifest-list\":\"x\",\"schema-id\":1,"
                 "\"sequence-number\":3}},{\"action\":\"add-spec\",\"spec\":"
                 "{\"fields\":[{\"name\":\"bad\",\"transform\":\"identity\","
                 "\"source-id\":99}]}},{\"action\":\"set-default-spec\","
                 "\"spec-id\":-1}]"), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "source id 99");
    after = ct_written(m);
    ZBT_CHECK(json_equal(before, after));
    json_decref(before);
    json_decref(after);
    ice_metadata_free(m);
}

/* ---- allocation failure --------------------------------------------- */

static uint64_t jfail_at, jcount;

static void *jmalloc(size_t n)
{
    if (jfail_at && ++jcount >= jfail_at)
        return NULL;
    return malloc(n);
}

static void jfree(void *p)
{
    free(p);
}

static const char torture_updates[] =
    "[{\"action\":\"set-properties\",\"updates\":{\"a\":\"1\"}},"
    "{\"action\":\"remove-properties\",\"removals\":[\"owner\"]},"
    "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":4,\"name\":\"n\",\"required\":false,\"type\":\"int\"}]}},"
    "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
    "{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"n\","
    "\"transform\":\"identity\",\"source-id\":4}]}},"
    "{\"action\":\"set-default-spec\",\"spec-id\":-1},"
    "{\"action\":\"add-sort-order\",\"sort-order\":{\"fields\":["
    "{\"transform\":\"identity\",\"source-id\":4,\"direction\":\"asc\","
    "\"null-order\":\"nulls-first\"}]}},"
    "{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1},"
    "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":3,"
    "\"parent-snapshot-id\":2,\"sequence-number\":3,\"timestamp-ms\":5,"
    "\"summary\":{\"operation\":\"append\"},\"manifest-list\":\"x\"}},"
    "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":"
    "\"branch\",\"snapshot-id\":3},"
    "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[1]},"
    "{\"action\":\"set-statistics\",\"statistics\":{\"snapshot-id\":3,"
    "\"statistics-path\":\"p\",\"file-size-in-bytes\":1,"
    "\"file-footer-size-in-bytes\":1,\"blob-metadata\":[]}}]";

static void torture(int use_json)
{
    zb_ctx ctx;
    ice_metadata *m = ct_parse(ct_v2, &ctx);
    json_t *updates = ct_json(torture_updates);
    json_t *before = ct_written(m), *after;
    uint64_t n;
    int rc = ZB_ENOMEM, ok_seen = 0;

    for (n = 1; n < 100000 && !ok_seen; n++) {
        zb_ctx_init(&ctx);
        if (use_json) {
            jfail_at = n;
            jcount = 0;
            json_set_alloc_funcs(jmalloc, jfree);
        } else {
            zb_alloc__fail_at(n, 1);
        }
        rc = ice_commit_apply_updates(m, &ctx, (const zb_json *)updates);
        if (use_json) {
            jfail_at = 0;
            json_set_alloc_funcs(malloc, free);
        } else {
            zb_alloc__fail_at(0, 0);
        }
        if (rc == ZB_OK) {
            ok_seen = 1;
            break;
        }
        if (rc != ZB_ENOMEM)
            zbt__fail(__FILE__, __LINE__, "fault %llu: %s (%s)",
                      (unsigned long long)n, zb_rc_name(rc), ctx.err.msg);
        after = ct_written(m);
        ZBT_CHECK(json_equal(before, after));
        json_decref(after);
    }
    ZBT_CHECK(ok_seen);
    ZBT_CHECK(n > 3);
    ZBT_EQ_INT(m->current_snapshot_id, 3);
    ZBT_EQ_INT(m->default_sort_order_id, 2);
    json_decref(before);
    json_decref(updates);
    ice_metadata_free(m);
}

static void test_table_commit_apply__torture_zb_alloc(void)
{
    torture(0);
}

static void test_table_commit_apply__torture_json_alloc(void)
{
    torture(1);
}

const zbt_case test_table_commit_apply[] = {
    ZBT_CASE(test_table_commit_apply__requirements),
    ZBT_CASE(test_table_commit_apply__properties_location_uuid),
    ZBT_CASE(test_table_commit_apply__schema),
    ZBT_CASE(test_table_commit_apply__spec_and_order),
    ZBT_CASE(test_table_commit_apply__snapshots_and_refs),
    ZBT_CASE(test_table_commit_apply__statistics_and_keys),
    ZBT_CASE(test_table_commit_apply__upgrade),
    ZBT_CASE(test_table_commit_apply__v3_row_ids),
    ZBT_CASE(test_table_commit_apply__refused),
    ZBT_CASE(test_table_commit_apply__all_or_nothing),
    ZBT_CASE(test_table_commit_apply__torture_zb_alloc),
    ZBT_CASE(test_table_commit_apply__torture_json_alloc),
    ZBT_END
};

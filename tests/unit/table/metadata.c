/*
 * Table metadata on synthetic documents: every type form of Appendix C,
 * v1 defaults, v3 fields, lookups, lossless writing of fields Zamboni
 * does not model, and bad input of every kind (each an error with a
 * message naming the problem, never a crash). The setters are in
 * metadata_update.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/metadata/metadata.h"
#include "util/alloc.h"
#include "zbtest.h"

#include "metadata_test.h"

/* A v2 table with every nested form, a sort order, a tag and stats. */
const char mt_v2[] =
    "{\"format-version\":2,"
    "\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"s3://bucket/wh/t\",\"last-sequence-number\":2,"
    "\"last-updated-ms\":1700000000002,\"last-column-id\":12,"
    "\"current-schema-id\":1,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"identifier-field-ids\":[1],"
    "\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\","
    "\"doc\":\"the key\"},"
    "{\"id\":2,\"name\":\"price\",\"required\":false,"
    "\"type\":\"decimal( 9 ,2 )\"},"
    "{\"id\":3,\"name\":\"hash\",\"required\":false,\"type\":\"fixed[16]\"},"
    "{\"id\":4,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":"
    "\"list\",\"element-id\":5,\"element-required\":true,\"element\":"
    "\"string\"}},"
    "{\"id\":6,\"name\":\"attrs\",\"required\":false,\"type\":{\"type\":"
    "\"map\",\"key-id\":7,\"key\":\"string\",\"value-id\":8,"
    "\"value-required\":false,\"value\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":9,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":10,\"name\":\"deep\",\"required\":false,\"type\":{\"type\":"
    "\"list\",\"element-id\":11,\"element-required\":false,\"element\":"
    "{\"type\":\"struct\",\"fields\":[{\"id\":12,\"name\":\"x\","
    "\"required\":false,\"type\":\"double\"}]}}}]}}}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\",\"source-id\":1,"
    "\"field-id\":1000}]}],\"last-partition-id\":1000,"
    "\"default-sort-order-id\":1,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]},{\"order-id\":1,\"fields\":[{\"transform\":\"identity\","
    "\"source-id\":2,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}],"
    "\"properties\":{\"owner\":\"zamboni\",\"write.format.default\":"
    "\"parquet\"},"
    "\"current-snapshot-id\":9223372036854775807,"
    "\"refs\":{\"main\":{\"snapshot-id\":9223372036854775807,\"type\":"
    "\"branch\",\"max-snapshot-age-ms\":86400000},\"v1\":{\"snapshot-id\":"
    "1111111111111111111,\"type\":\"tag\",\"max-ref-age-ms\":5}},"
    "\"snapshots\":[{\"sequence-number\":1,\"snapshot-id\":"
    "1111111111111111111,\"timestamp-ms\":1700000000001,\"summary\":"
    "{\"operation\":\"append\",\"added-records\":\"10\"},\"manifest-list\":"
    "\"s3://bucket/wh/t/metadata/snap-1.avro\",\"schema-id\":0},"
    "{\"sequence-number\":2,\"snapshot-id\":9223372036854775807,"
    "\"parent-snapshot-id\":1111111111111111111,\"timestamp-ms\":"
    "1700000000002,\"summary\":{\"operation\":\"overwrite\"},"
    "\"manifest-list\":\"s3://bucket/wh/t/metadata/snap-2.avro\","
    "\"schema-id\":1}],"
    "\"statistics\":[{\"snapshot-id\":9223372036854775807,"
    "\"statistics-path\":\"s3://bucket/wh/t/metadata/s.stats\","
    "\"file-size-in-bytes\":100,\"file-footer-size-in-bytes\":40,"
    "\"blob-metadata\":[{\"type\":\"apache-datasketches-theta-v1\","
    "\"snapshot-id\":9223372036854775807,\"sequence-number\":2,"
    "\"fields\":[1,2],\"properties\":{\"ndv\":\"3\"}}]}],"
    "\"partition-statistics\":[{\"snapshot-id\":1111111111111111111,"
    "\"statistics-path\":\"s3://bucket/wh/t/metadata/p.parquet\","
    "\"file-size-in-bytes\":7}],"
    "\"snapshot-log\":[{\"timestamp-ms\":1700000000001,\"snapshot-id\":"
    "1111111111111111111},{\"timestamp-ms\":1700000000002,\"snapshot-id\":"
    "9223372036854775807}],"
    "\"metadata-log\":[{\"timestamp-ms\":1700000000000,\"metadata-file\":"
    "\"s3://bucket/wh/t/metadata/00000-a.metadata.json\"}],"
    "\"encryption-keys\":[{\"key-id\":\"k\",\"key-metadata\":\"AA==\"}],"
    "\"x-future-field\":{\"kept\":[1,2.5,null,true]}}";

/* A v1 table in the old form: "schema", "partition-spec", "manifests". */
const char mt_v1[] =
    "{\"format-version\":1,\"location\":\"/w/t\",\"last-updated-ms\":5,"
    "\"last-column-id\":2,\"schema\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"date\"}]},"
    "\"partition-spec\":[{\"name\":\"b_day\",\"transform\":\"day\","
    "\"source-id\":2},{\"name\":\"a\",\"transform\":\"identity\","
    "\"source-id\":1}],"
    "\"current-snapshot-id\":-1,\"snapshots\":[{\"snapshot-id\":3,"
    "\"timestamp-ms\":4,\"manifests\":[\"/w/t/metadata/m1.avro\","
    "\"/w/t/metadata/m2.avro\"]}]}";

/* A v3 table: new types, multi-argument transforms, no snapshot yet. */
const char mt_v3[] =
    "{\"format-version\":3,\"table-uuid\":\"u\",\"location\":\"/w/t3\","
    "\"last-sequence-number\":0,\"last-updated-ms\":1,\"last-column-id\":8,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\","
    "\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"timestamp_ns\"},"
    "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"TimestampTZ_ns\"},"
    "{\"id\":3,\"name\":\"c\",\"required\":false,\"type\":\"unknown\","
    "\"initial-default\":null},"
    "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"variant\"},"
    "{\"id\":5,\"name\":\"e\",\"required\":false,\"type\":\"geometry\"},"
    "{\"id\":6,\"name\":\"f\",\"required\":false,"
    "\"type\":\"geometry(srid:4326)\"},"
    "{\"id\":7,\"name\":\"g\",\"required\":false,"
    "\"type\":\"geography( srid:4269 , karney )\"},"
    "{\"id\":8,\"name\":\"h\",\"required\":true,\"type\":\"uuid\","
    "\"initial-default\":\"0db3e2a8-9d1d-42b9-aa7b-74ebe558dceb\","
    "\"write-default\":{\"odd\":[1]}}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":"
    "[{\"name\":\"ab\",\"transform\":\"zorder\",\"source-ids\":[1,2],"
    "\"field-id\":1000}]}],\"last-partition-id\":1000,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":null,"
    "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[],"
    "\"next-row-id\":100}";

ice_metadata *mt_parse(const char *json, zb_ctx *ctx)
{
    ice_metadata *m = NULL;

    zb_ctx_init(ctx);
    ZBT_OK_CTX(ice_metadata_parse(&m, ctx, json, strlen(json), "t.json"),
               ctx);
    return m;
}

static int parse_rc(const char *json, zb_ctx *ctx)
{
    ice_metadata *m = NULL;
    int rc;

    zb_ctx_init(ctx);
    rc = ice_metadata_parse(&m, ctx, json, strlen(json), "bad.json");
    if (rc == ZB_OK)
        ice_metadata_free(m);
    else
        ZBT_CHECK(m == NULL && ctx->err.msg[0] != '\0');
    return rc;
}

/* The document m writes, parsed by jansson. */
json_t *mt_written(const ice_metadata *m)
{
    zb_buf out = ZB_BUF_INIT((size_t)1 << 28);
    json_error_t jerr;
    json_t *j;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_write(&out, m, &ctx), &ctx);
    j = json_loadb(out.ptr, out.len, 0, &jerr);
    ZBT_CHECK(j != NULL);
    zb_buf_free(&out);
    return j;
}

json_t *mt_loads(const char *s)
{
    json_error_t jerr;
    json_t *j = json_loads(s, 0, &jerr);

    ZBT_CHECK(j != NULL);
    return j;
}

void mt_check_equal(json_t *a, json_t *b)
{
    if (!json_equal(a, b)) {
        char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);

        printf("  want %s\n  got  %s\n", x, y);
        test_json_free(x);
        test_json_free(y);
    }
    ZBT_CHECK(json_equal(a, b));
    json_decref(a);
    json_decref(b);
}

/* ---- parsing --------------------------------------------------------- */

static void test_table_metadata__v2_model(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v2, &ctx);
    const ice_schema *s = ice_metadata_current_schema(m);
    const ice_type *t, *attrs;
    const ice_snapshot *cur;
    const ice_ref *r;

    ZBT_EQ_INT(m->format_version, 2);
    ZBT_EQ_STR(m->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
    ZBT_EQ_STR(m->location, "s3://bucket/wh/t");
    ZBT_EQ_INT(m->last_sequence_number, 2);
    ZBT_EQ_INT(m->last_updated_ms, 1700000000002LL);
    ZBT_EQ_INT(m->last_column_id, 12);
    ZBT_EQ_STR(m->source_uri, "t.json");
    ZBT_EQ_INT(s->schema_id, 1);
    ZBT_EQ_INT(s->n_identifier_field_ids, 1);
    ZBT_EQ_INT(s->root->n_fields, 5);
    ZBT_EQ_STR(s->root->fields[0].doc, "the key");
    ZBT_EQ_INT(s->root->fields[0].required, 1);
    t = ice_schema_find_type(s, 2);
    ZBT_EQ_INT(t->id, ICE_DECIMAL);
    ZBT_EQ_INT(t->prim.precision, 9);
    ZBT_EQ_INT(t->prim.scale, 2);
    ZBT_EQ_INT(ice_schema_find_type(s, 3)->prim.length, 16);
    t = ice_schema_find_type(s, 4);
    ZBT_EQ_INT(t->id, ICE_LIST);
    ZBT_EQ_INT(t->element_id, 5);
    ZBT_EQ_INT(t->element_required, 1);
    ZBT_EQ_INT(t->element->id, ICE_STRING);
    ZBT_CHECK(ice_schema_find_type(s, 5) == t->element);
    ZBT_CHECK(ice_schema_find_field(s, 5) == NULL);
    attrs = ice_schema_find_type(s, 6);
    ZBT_EQ_INT(attrs->id, ICE_MAP);
    ZBT_EQ_INT(attrs->key_id, 7);
    ZBT_EQ_INT(attrs->value_id, 8);
    ZBT_EQ_INT(attrs->value_required, 0);
    ZBT_EQ_INT(attrs->value->id, ICE_STRUCT);
    ZBT_EQ_STR(ice_schema_find_field(s, 9)->name, "ts");
    ZBT_EQ_INT(ice_schema_find_type(s, 9)->id, ICE_TIMESTAMPTZ);
    ZBT_EQ_STR(ice_schema_find_field(s, 12)->name, "x");
    ZBT_EQ_INT(ice_schema_find_type(s, 12)->id, ICE_DOUBLE);
    ZBT_CHECK(ice_schema_find_type(s, 13) == NULL);
    ZBT_EQ_INT(ice_metadata_schema(m, 0)->root->n_fields, 1);
    ZBT_CHECK(ice_metadata_schema(m, 7) == NULL);

    ZBT_EQ_STR(ice_metadata_default_spec(m)->fields[0].transform,
               "bucket[16]");
    ZBT_EQ_INT(ice_metadata_default_spec(m)->fields[0].n_source_ids, 1);
    ZBT_EQ_INT(m->last_partition_id, 1000);
    ZBT_EQ_INT(ice_metadata_sort_order(m, 1)->fields[0].direction,
               ICE_SORT_DESC);
    ZBT_EQ_INT(ice_metadata_sort_order(m, 1)->fields[0].null_order,
               ICE_NULLS_LAST);
    ZBT_EQ_STR(ice_metadata_property(m, "owner"), "zamboni");
    ZBT_CHECK(ice_metadata_property(m, "nope") == NULL);

    cur = ice_metadata_current_snapshot(m);
    ZBT_EQ_INT(cur->snapshot_id, INT64_MAX);
    ZBT_EQ_INT(cur->parent_snapshot_id, 1111111111111111111LL);
    ZBT_EQ_STR(cur->operation, "overwrite");
    ZBT_EQ_INT(cur->schema_id, 1);
    ZBT_EQ_INT(ice_metadata_snapshot(m, 1111111111111111111LL)->n_summary, 2);
    ZBT_EQ_INT(ice_metadata_ancestors(NULL, 0, m, INT64_MAX), 2);
    r = ice_metadata_ref(m, "main");
    ZBT_CHECK(r && !r->implicit && r->max_snapshot_age_ms == 86400000);
    ZBT_EQ_INT(r->min_snapshots_to_keep, -1);
    r = ice_metadata_ref(m, "v1");
    ZBT_CHECK(r && r->type == ICE_REF_TAG && r->max_ref_age_ms == 5);
    ZBT_EQ_INT(m->n_statistics, 1);
    ZBT_EQ_INT(m->statistics[0].blobs[0].n_fields, 2);
    ZBT_EQ_INT(m->n_partition_statistics, 1);
    ZBT_EQ_INT(m->partition_statistics[0].file_size_in_bytes, 7);
    ZBT_EQ_INT(m->n_snapshot_log, 2);
    ZBT_EQ_STR(m->metadata_log[0].metadata_file,
               "s3://bucket/wh/t/metadata/00000-a.metadata.json");
    ZBT_CHECK(!m->has_next_row_id);
    /* Unknown fields (encryption-keys, x-future-field) survive a write. */
    mt_check_equal(mt_loads(mt_v2), mt_written(m));
    ice_metadata_free(m);
}

static void test_table_metadata__v1_defaults(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v1, &ctx);
    const ice_partition_spec *spec = ice_metadata_default_spec(m);

    ZBT_EQ_INT(m->format_version, 1);
    ZBT_CHECK(m->table_uuid == NULL);
    ZBT_EQ_INT(m->n_schemas, 1);
    ZBT_EQ_INT(m->current_schema_id, 0);
    ZBT_EQ_INT(spec->spec_id, 0);
    ZBT_EQ_INT(spec->fields[0].field_id, 1000);
    ZBT_EQ_INT(spec->fields[1].field_id, 1001);
    ZBT_EQ_INT(m->last_partition_id, 1001);
    ZBT_EQ_INT(m->default_sort_order_id, 0);
    ZBT_EQ_INT(m->current_snapshot_id, ICE_NO_SNAPSHOT);
    ZBT_EQ_INT(m->n_refs, 0);
    ZBT_CHECK(m->snapshots[0].manifest_list == NULL);
    ZBT_EQ_INT(m->snapshots[0].n_manifests, 2);
    ZBT_EQ_STR(m->snapshots[0].manifests[1], "/w/t/metadata/m2.avro");
    ZBT_CHECK(m->snapshots[0].operation == NULL);
    mt_check_equal(mt_loads(mt_v1), mt_written(m));
    ice_metadata_free(m);
}

static void test_table_metadata__v3_types(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v3, &ctx);
    const ice_schema *s = ice_metadata_current_schema(m);
    const ice_partition_field *pf = &m->specs[0].fields[0];
    const ice_type *t;

    ZBT_EQ_INT(ice_schema_find_type(s, 1)->id, ICE_TIMESTAMP_NS);
    ZBT_EQ_INT(ice_schema_find_type(s, 2)->id, ICE_TIMESTAMPTZ_NS);
    ZBT_EQ_STR(ice_schema_find_type(s, 2)->text, "TimestampTZ_ns");
    ZBT_EQ_INT(ice_schema_find_type(s, 3)->id, ICE_UNKNOWN);
    ZBT_EQ_STR(ice_schema_find_field(s, 3)->initial_default, "null");
    ZBT_EQ_INT(ice_schema_find_type(s, 4)->id, ICE_VARIANT);
    t = ice_schema_find_type(s, 5);
    ZBT_CHECK(t->id == ICE_GEOMETRY && t->crs == NULL);
    t = ice_schema_find_type(s, 6);
    ZBT_CHECK(t->id == ICE_GEOMETRY);
    ZBT_EQ_STR(t->crs, "srid:4326");
    t = ice_schema_find_type(s, 7);
    ZBT_CHECK(t->id == ICE_GEOGRAPHY);
    ZBT_EQ_STR(t->crs, "srid:4269");
    ZBT_EQ_STR(t->edges, "karney");
    ZBT_EQ_STR(ice_schema_find_field(s, 8)->write_default, "{\"odd\":[1]}");
    ZBT_EQ_INT(pf->n_source_ids, 2);
    ZBT_EQ_INT(pf->source_ids[1], 2);
    ZBT_EQ_INT(pf->source_id, 1);
    ZBT_EQ_INT(m->current_snapshot_id, ICE_NO_SNAPSHOT);
    ZBT_CHECK(ice_metadata_current_snapshot(m) == NULL);
    ZBT_CHECK(m->has_next_row_id && m->next_row_id == 100);
    mt_check_equal(mt_loads(mt_v3), mt_written(m));
    ice_metadata_free(m);
}

/* ---- bad input -------------------------------------------------------- */

/* doc with the first occurrence of from replaced by to. */
static char *edit(const char *doc, const char *from, const char *to)
{
    const char *at = strstr(doc, from);
    size_t n;
    char *out;

    ZBT_CHECK(at != NULL);
    n = strlen(doc) - strlen(from) + strlen(to) + 1;
    out = malloc(n);
    ZBT_CHECK(out != NULL);
    snprintf(out, n, "%.*s%s%s", (int)(at - doc), doc, to, at + strlen(from));
    return out;
}

static void expect_bad(const char *doc, const char *from, const char *to,
                       int want_rc, const char *want_msg)
{
    char *bad = edit(doc, from, to);
    zb_ctx ctx;

    ZBT_RC(parse_rc(bad, &ctx), want_rc);
    ZBT_CONTAINS(ctx.err.msg, want_msg);
    ZBT_EQ_STR(ctx.err.module, "table");
    free(bad);
}

/* A v1 snapshot carried into a v2 table by a format upgrade has no
 * sequence-number: Iceberg Java writes none for 0 and reads its absence as
 * 0, so such tables load. */
static void test_table_metadata__upgraded_snapshot_without_sequence(void)
{
    char *doc = edit(mt_v2, "\"sequence-number\":1,", "");
    ice_metadata *m = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(ice_metadata_parse(&m, &ctx, doc, strlen(doc), "up.json"), ZB_OK);
    if (m != NULL) {
        ZBT_EQ_U64((uint64_t)m->snapshots[0].sequence_number, 0);
        ZBT_EQ_U64((uint64_t)m->snapshots[1].sequence_number, 2);
    }
    ice_metadata_free(m);
    free(doc);
}

static void test_table_metadata__malformed_json_names_place(void)
{
    zb_ctx ctx;

    ZBT_RC(parse_rc("{\"format-version\": 2,\n  \"location\" \"x\"}", &ctx),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "bad.json:2:");
    ZBT_CONTAINS(ctx.err.msg, "malformed JSON");
    ZBT_RC(parse_rc("", &ctx), ZB_ECORRUPT);
    ZBT_RC(parse_rc("[1,2]", &ctx), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "must be a JSON object");
    ZBT_RC(parse_rc("{\"a\":1,\"a\":2}", &ctx), ZB_ECORRUPT);
    ZBT_RC(parse_rc("{\"format-version\":2} trailing", &ctx), ZB_ECORRUPT);
    /* gzip magic: inflated first; a truncated stream is corrupt. */
    ZBT_RC(parse_rc("\x1f\x8b\x08\x00", &ctx), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "gzip");
    ZBT_CONTAINS(ctx.err.msg, "truncated");
    ZBT_RC(parse_rc("{\"format-version\":99999999999999999999999}", &ctx),
           ZB_ECORRUPT);
}

static void test_table_metadata__format_versions(void)
{
    expect_bad(mt_v2, "\"format-version\":2", "\"format-version\":4",
               ZB_EUNSUPPORTED, "format-version 4 is not supported");
    expect_bad(mt_v2, "\"format-version\":2", "\"format-version\":0",
               ZB_EUNSUPPORTED, "format-version 0");
    expect_bad(mt_v2, "\"format-version\":2", "\"format-version\":\"2\"",
               ZB_ECORRUPT, "\"format-version\" must be an integer");
    expect_bad(mt_v2, "\"format-version\":2,", "", ZB_ECORRUPT,
               "\"format-version\" is missing");
}

static void test_table_metadata__missing_required_fields(void)
{
    expect_bad(mt_v2, "\"location\":\"s3://bucket/wh/t\",", "", ZB_ECORRUPT,
               "\"location\" is missing");
    expect_bad(mt_v2, "\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",",
               "", ZB_ECORRUPT, "\"table-uuid\" is missing");
    expect_bad(mt_v2, "\"last-sequence-number\":2,", "", ZB_ECORRUPT,
               "\"last-sequence-number\" is missing");
    expect_bad(mt_v2, "\"current-schema-id\":1,", "", ZB_ECORRUPT,
               "\"current-schema-id\" is missing");
    expect_bad(mt_v2, "\"last-partition-id\":1000,", "", ZB_ECORRUPT,
               "\"last-partition-id\" is missing");
    expect_bad(mt_v2, "\"default-sort-order-id\":1,", "", ZB_ECORRUPT,
               "\"default-sort-order-id\" is missing");
    expect_bad(mt_v2, "\"manifest-list\":\"s3://bucket/wh/t/metadata/snap-2.avro\",",
               "", ZB_ECORRUPT, "snapshot 1: \"manifest-list\" is missing");
    expect_bad(mt_v2, "\"summary\":{\"operation\":\"overwrite\"},",
               "", ZB_ECORRUPT, "\"summary\" is missing");
    expect_bad(mt_v2, "{\"operation\":\"overwrite\"}", "{}", ZB_ECORRUPT,
               "\"operation\" is missing");
    expect_bad(mt_v2, "\"element-id\":5,", "", ZB_ECORRUPT,
               "\"element-id\" is missing");
    expect_bad(mt_v2, "\"value-required\":false,", "", ZB_ECORRUPT,
               "\"value-required\" is missing");
    expect_bad(mt_v2, "\"name\":\"price\",", "", ZB_ECORRUPT,
               "field id 2: \"name\" is missing");
    expect_bad(mt_v2, "\"source-id\":1,", "", ZB_ECORRUPT,
               "\"source-id\" is missing");
    expect_bad(mt_v2, "\"file-footer-size-in-bytes\":40,", "", ZB_ECORRUPT,
               "\"file-footer-size-in-bytes\" is missing");
    expect_bad(mt_v3, ",\"next-row-id\":100", "", ZB_ECORRUPT,
               "\"next-row-id\" is missing");
    expect_bad(mt_v1, "\"partition-spec\"", "\"partition-specx\"", ZB_ECORRUPT,
               "\"partition-spec\" is missing");
    expect_bad(mt_v1, "\"manifests\"", "\"manifestx\"", ZB_ECORRUPT,
               "\"manifest-list\" is missing");
}

static void test_table_metadata__wrong_types_and_ids(void)
{
    expect_bad(mt_v2, "\"snapshot-id\":1111111111111111111,\"timestamp-ms\"",
               "\"snapshot-id\":\"x\",\"timestamp-ms\"", ZB_ECORRUPT,
               "snapshot 0: \"snapshot-id\" must be an integer");
    expect_bad(mt_v2, "\"required\":true,\"type\":\"long\",\"doc\"",
               "\"required\":1,\"type\":\"long\",\"doc\"", ZB_ECORRUPT,
               "\"required\" must be true or false");
    expect_bad(mt_v2, "\"owner\":\"zamboni\"", "\"owner\":7", ZB_ECORRUPT,
               "value of \"owner\" must be a string");
    expect_bad(mt_v2, "\"schemas\":[", "\"schemas\":{\"a\":[", ZB_ECORRUPT,
               "malformed JSON");
    expect_bad(mt_v2, "\"id\":12,", "\"id\":12.5,", ZB_ECORRUPT,
               "\"id\" must be an integer");
    expect_bad(mt_v2, "\"id\":12,", "\"id\":4294967296,", ZB_ECORRUPT,
               "out of the int range");
    expect_bad(mt_v2, "\"type\":\"double\"", "\"type\":\"double2\"",
               ZB_EUNSUPPORTED, "unknown type \"double2\"");
    expect_bad(mt_v2, "decimal( 9 ,2 )", "decimal(39,2)", ZB_ECORRUPT,
               "bad type");
    expect_bad(mt_v2, "fixed[16]", "fixed[]", ZB_ECORRUPT, "bad type");
    expect_bad(mt_v2, "\"type\":\"list\"", "\"type\":\"set\"", ZB_EUNSUPPORTED,
               "unknown type \"set\"");
    expect_bad(mt_v2, "\"direction\":\"desc\"", "\"direction\":\"down\"",
               ZB_ECORRUPT, "unknown direction");
    expect_bad(mt_v2, "\"type\":\"tag\"", "\"type\":\"label\"", ZB_ECORRUPT,
               "unknown type \"label\"");
    expect_bad(mt_v2, "\"current-schema-id\":1", "\"current-schema-id\":5",
               ZB_ECORRUPT, "current-schema-id 5 names no schema");
    expect_bad(mt_v2, "\"default-spec-id\":0", "\"default-spec-id\":3",
               ZB_ECORRUPT, "default-spec-id 3 names no partition spec");
    expect_bad(mt_v2, "\"current-snapshot-id\":9223372036854775807",
               "\"current-snapshot-id\":5", ZB_ECORRUPT,
               "current-snapshot-id 5 names no snapshot");
    expect_bad(mt_v2, "\"snapshot-id\":1111111111111111111,\"type\":\"tag\"",
               "\"snapshot-id\":17,\"type\":\"tag\"", ZB_ECORRUPT,
               "points at unknown snapshot 17");
    expect_bad(mt_v2, "\"schema-id\":0,\"fields\"", "\"schema-id\":1,\"fields\"",
               ZB_ECORRUPT, "schema-id 1 appears twice");
    expect_bad(mt_v2, "\"snapshot-id\":1111111111111111111,\"timestamp-ms\"",
               "\"snapshot-id\":9223372036854775807,\"timestamp-ms\"",
               ZB_ECORRUPT, "appears twice");
    expect_bad(mt_v2, "\"max-ref-age-ms\":5", "\"max-ref-age-ms\":[5]",
               ZB_ECORRUPT, "\"max-ref-age-ms\" must be an integer");
    expect_bad(mt_v2, "\"fields\":[1,2]", "\"fields\":[1,\"2\"]", ZB_ECORRUPT,
               "\"fields\"[1] must be an int");
}

/* A schema whose one field is a list nested depth times. */
static char *nested_doc(int depth)
{
    zb_buf b = ZB_BUF_INIT((size_t)1 << 24);
    int i;

    ZBT_CHECK(zb_buf_puts(&b, "{\"format-version\":2,\"table-uuid\":\"u\","
                          "\"location\":\"l\",\"last-sequence-number\":0,"
                          "\"last-updated-ms\":0,\"last-column-id\":1,"
                          "\"current-schema-id\":0,\"schemas\":[{\"type\":"
                          "\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,"
                          "\"name\":\"a\",\"required\":false,\"type\":") == 0);
    for (i = 0; i < depth; i++)
        ZBT_CHECK(zb_buf_appendf(&b, "{\"type\":\"list\",\"element-id\":%d,"
                                 "\"element-required\":false,\"element\":",
                                 i + 2) == 0);
    ZBT_CHECK(zb_buf_puts(&b, "\"int\"") == 0);
    for (i = 0; i < depth; i++)
        ZBT_CHECK(zb_buf_putc(&b, '}') == 0);
    ZBT_CHECK(zb_buf_puts(&b, "}]}],\"default-spec-id\":0,\"partition-specs\":"
                          "[{\"spec-id\":0,\"fields\":[]}],"
                          "\"last-partition-id\":999,"
                          "\"default-sort-order-id\":0,\"sort-orders\":"
                          "[{\"order-id\":0,\"fields\":[]}]}") == 0);
    return zb_buf_detach(&b);
}

static void test_table_metadata__deep_nesting_and_huge_arrays(void)
{
    zb_buf b = ZB_BUF_INIT((size_t)1 << 26);
    ice_metadata *m = NULL;
    char *doc;
    zb_ctx ctx;
    int i;

    doc = nested_doc(ICE_MAX_TYPE_DEPTH - 2);
    ZBT_OK_CTX(parse_rc(doc, &ctx), &ctx);
    zb_free(doc);
    doc = nested_doc(ICE_MAX_TYPE_DEPTH + 1);
    ZBT_RC(parse_rc(doc, &ctx), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "nest deeper than 64");
    zb_free(doc);
    doc = nested_doc(3000);        /* past jansson's own depth limit */
    ZBT_RC(parse_rc(doc, &ctx), ZB_ECORRUPT);
    zb_free(doc);

    /* 200000 snapshots of the wrong shape: an error, quickly. */
    doc = edit(mt_v2, "\"snapshots\":[", "\"snapshots\":[@");
    ZBT_CHECK(zb_buf_append(&b, doc, (size_t)(strchr(doc, '@') - doc)) == 0);
    for (i = 0; i < 200000; i++)
        ZBT_CHECK(zb_buf_puts(&b, "7,") == 0);
    ZBT_CHECK(zb_buf_puts(&b, strchr(doc, '@') + 1) == 0);
    ZBT_RC(parse_rc(b.ptr, &ctx), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "snapshot 0: must be an object");
    free(doc);

    /* 200000 identifier ids and properties: accepted. */
    zb_buf_clear(&b);
    doc = edit(mt_v2, "\"identifier-field-ids\":[1]", "@");
    ZBT_CHECK(zb_buf_append(&b, doc, (size_t)(strchr(doc, '@') - doc)) == 0);
    ZBT_CHECK(zb_buf_puts(&b, "\"identifier-field-ids\":[1") == 0);
    for (i = 0; i < 200000; i++)
        ZBT_CHECK(zb_buf_puts(&b, ",1") == 0);
    ZBT_CHECK(zb_buf_puts(&b, "]") == 0);
    ZBT_CHECK(zb_buf_puts(&b, strchr(doc, '@') + 1) == 0);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_parse(&m, &ctx, b.ptr, b.len, "big"), &ctx);
    ZBT_EQ_INT(ice_metadata_current_schema(m)->n_identifier_field_ids,
               200001);
    ice_metadata_free(m);
    free(doc);
    zb_buf_free(&b);
}

const zbt_case test_table_metadata[] = {
    ZBT_CASE(test_table_metadata__v2_model),
    ZBT_CASE(test_table_metadata__v1_defaults),
    ZBT_CASE(test_table_metadata__v3_types),
    ZBT_CASE(test_table_metadata__malformed_json_names_place),
    ZBT_CASE(test_table_metadata__format_versions),
    ZBT_CASE(test_table_metadata__missing_required_fields),
    ZBT_CASE(test_table_metadata__upgraded_snapshot_without_sequence),
    ZBT_CASE(test_table_metadata__wrong_types_and_ids),
    ZBT_CASE(test_table_metadata__deep_nesting_and_huge_arrays),
    ZBT_END
};

/*
 * Tests of ops/table_settings.c and table/metadata/table_props.c: every origin of
 * a setting (flag, table config from the table's entry and from the
 * defaults, each table property in order, default), a malformed
 * property ("128MB") reported with its key and text and passed over as
 * compaction passes it over, the expire properties' refusal, the range
 * rules, the config's days and its keys that hold a built-in value, and
 * the report text.
 */
#include <stdio.h>
#include <string.h>

#include "ops/compact/compact.h"
#include "ops/config/table_config.h"
#include "ops/table_settings.h"
#include "table/metadata/table_props.h"
#include "zbtest.h"

/* A small v2 table whose properties object is props (JSON members). */
static ice_metadata *meta_with(zb_ctx *ctx, const char *props)
{
    char json[2048];
    ice_metadata *m = NULL;

    snprintf(json, sizeof json,
             "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-"
             "9a96-a0705ddf69c1\",\"location\":\"/t\","
             "\"last-sequence-number\":0,\"last-updated-ms\":1,"
             "\"last-column-id\":1,\"current-schema-id\":0,"
             "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
             "[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":"
             "\"long\"}]}],\"default-spec-id\":0,\"partition-specs\":"
             "[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
             "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
             "\"fields\":[]}],\"properties\":{%s},\"current-snapshot-id\":-1,"
             "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[]}",
             props);
    ZBT_OK_CTX(ice_metadata_parse(&m, ctx, json, strlen(json), "test"), ctx);
    return m;
}

static zb_table_config *config(zb_ctx *ctx, const char *text)
{
    zb_table_config *tc = NULL;

    ZBT_OK_CTX(zb_table_config_parse(&tc, ctx, "tc.json", text,
                                     strlen(text)), ctx);
    return tc;
}

/* The report line of v, in static storage. */
static const char *line_of(zb_tset id, const zb_tset_value *v)
{
    static char text[1024];
    zb_buf b;

    zb_buf_init(&b, sizeof text);
    ZBT_EQ_INT(zb_tset_format(&b, id, v), ZB_OK);
    snprintf(text, sizeof text, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
    return text;
}

static const char *tc_text =
    "{\"version\":2,\"warehouse\":\"w\","
    "\"defaults\":{\"target_file_size_bytes\":1000,\"min_input_files\":3},"
    "\"namespaces\":{\"db\":{\"tables\":{"
    "\"own\":{\"target_file_size_bytes\":2000},"
    "\"ret\":{\"retention\":{\"expire_snapshots\":"
    "{\"max_snapshot_age_days\":7}}},"
    "\"orph\":{\"retention\":{\"remove_orphan_files\":"
    "{\"older_than_days\":5},\"rewrite_manifests\":"
    "{\"min_input_manifests\":4}}}}}}}";

/* The target size from each of its sources, highest first. */
static void test_ops_tidy_settings__target_every_origin(void)
{
    zb_ctx ctx;
    zb_table_config *tc;
    zb_tc_effective own, dflt;
    ice_metadata *both, *second, *none;
    zb_tset_value v;

    zb_ctx_init(&ctx);
    tc = config(&ctx, tc_text);
    zb_table_config_effective(&own, tc, "db.own");
    zb_table_config_effective(&dflt, tc, "db.unlisted");
    both = meta_with(&ctx, "\"write.parquet.target-file-size-bytes\":\"3000\","
                           "\"write.target-file-size-bytes\":\"4000\"");
    second = meta_with(&ctx, "\"write.target-file-size-bytes\":\"4000\"");
    none = meta_with(&ctx, "");

    /* flag */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, 500,
                               &own, both), &ctx);
    ZBT_EQ_INT(v.value, 500);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_FLAG);
    ZBT_EQ_STR(v.source, "--target-file-size-bytes");
    ZBT_EQ_STR(line_of(ZB_TSET_TARGET_FILE_SIZE, &v),
               "target_file_size_bytes 500 (flag --target-file-size-bytes)");
    /* table config: the table's entry, then the defaults block */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               &own, both), &ctx);
    ZBT_EQ_INT(v.value, 2000);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_EQ_INT(v.config_table_entry, 1);
    ZBT_EQ_STR(line_of(ZB_TSET_TARGET_FILE_SIZE, &v),
               "target_file_size_bytes 2000 (table config "
               "target_file_size_bytes, the table's entry)");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               &dflt, both), &ctx);
    ZBT_EQ_INT(v.value, 1000);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_EQ_INT(v.config_table_entry, 0);
    ZBT_CONTAINS(line_of(ZB_TSET_TARGET_FILE_SIZE, &v), ", defaults)");
    /* table property: the parquet key first, then the generic one */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, both), &ctx);
    ZBT_EQ_INT(v.value, 3000);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_PROPERTY);
    ZBT_EQ_STR(v.source, "write.parquet.target-file-size-bytes");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, second), &ctx);
    ZBT_EQ_INT(v.value, 4000);
    ZBT_EQ_STR(v.source, "write.target-file-size-bytes");
    ZBT_EQ_STR(line_of(ZB_TSET_TARGET_FILE_SIZE, &v),
               "target_file_size_bytes 4000 (table property "
               "write.target-file-size-bytes)");
    /* default: no config, no property (and no metadata at all) */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, none), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_TARGET_FILE_BYTES);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);
    ZBT_CHECK(v.ignored_key == NULL);
    ZBT_EQ_STR(line_of(ZB_TSET_TARGET_FILE_SIZE, &v),
               "target_file_size_bytes 134217728 (default)");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, NULL), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_TARGET_FILE_BYTES);
    /* compaction's own resolution agrees */
    ZBT_EQ_INT(zb_compact_target_bytes(NULL, both), 3000);
    ZBT_EQ_INT(zb_compact_target_bytes(NULL, none),
               ZB_TSET_DEFAULT_TARGET_FILE_BYTES);
    ice_metadata_free(both);
    ice_metadata_free(second);
    ice_metadata_free(none);
    zb_table_config_free(tc);
}

/*
 * "128MB" is not a byte count: reported with its key and text, and
 * passed over to the next key, else the default, the way compaction
 * reads it (describe used to read it as 128 bytes).
 */
static void test_ops_tidy_settings__malformed_target_property(void)
{
    zb_ctx ctx;
    ice_metadata *bad, *bad_then_good, *small;
    zb_tset_value v;
    int64_t n = 0;
    const char *text = NULL;

    zb_ctx_init(&ctx);
    bad = meta_with(&ctx, "\"write.target-file-size-bytes\":\"128MB\"");
    bad_then_good = meta_with(&ctx,
                              "\"write.parquet.target-file-size-bytes\":"
                              "\"128MB\",\"write.target-file-size-bytes\":"
                              "\"5000\"");
    small = meta_with(&ctx, "\"write.target-file-size-bytes\":\"99\"");

    ZBT_EQ_INT(ice_table_prop_i64(&n, &text, bad,
                                  "write.target-file-size-bytes"),
               ICE_PROP_MALFORMED);
    ZBT_EQ_STR(text, "128MB");
    ZBT_EQ_INT(ice_table_prop_i64(&n, &text, bad, "absent"), ICE_PROP_ABSENT);
    ZBT_CHECK(text == NULL);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, bad), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_TARGET_FILE_BYTES);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);
    ZBT_EQ_STR(v.ignored_key, "write.target-file-size-bytes");
    ZBT_EQ_STR(v.ignored_text, "128MB");
    ZBT_EQ_STR(line_of(ZB_TSET_TARGET_FILE_SIZE, &v),
               "target_file_size_bytes 134217728 (default; table property "
               "write.target-file-size-bytes=\"128MB\" ignored: not an "
               "integer >= 100)");
    ZBT_EQ_INT(zb_compact_target_bytes(NULL, bad),
               ZB_TSET_DEFAULT_TARGET_FILE_BYTES);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, bad_then_good), &ctx);
    ZBT_EQ_INT(v.value, 5000);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_PROPERTY);
    ZBT_EQ_STR(v.source, "write.target-file-size-bytes");
    ZBT_EQ_STR(v.ignored_key, "write.parquet.target-file-size-bytes");
    ZBT_EQ_STR(v.ignored_text, "128MB");
    ZBT_EQ_INT(zb_compact_target_bytes(NULL, bad_then_good), 5000);

    /* below the 100-byte floor: passed over too */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET,
                               NULL, small), &ctx);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);
    ZBT_EQ_STR(v.ignored_text, "99");
    /* a flag below it is raised to it */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_TARGET_FILE_SIZE, 50, NULL,
                               small), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_MIN_TARGET_FILE_BYTES);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_FLAG);
    ice_metadata_free(bad);
    ice_metadata_free(bad_then_good);
    ice_metadata_free(small);
}

/* The expire properties: a malformed one is ZB_EINVAL naming it; a number
 * out of range is brought into it; the default of the ref age is never. */
static void test_ops_tidy_settings__expire_properties(void)
{
    zb_ctx ctx;
    ice_metadata *bad, *zero, *set;
    zb_tset_value v;

    zb_ctx_init(&ctx);
    bad = meta_with(&ctx, "\"history.expire.min-snapshots-to-keep\":\"abc\"");
    zero = meta_with(&ctx, "\"history.expire.min-snapshots-to-keep\":\"0\"");
    set = meta_with(&ctx, "\"history.expire.max-snapshot-age-ms\":\"1000\","
                          "\"history.expire.max-ref-age-ms\":\"2000\"");

    ZBT_RC(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP, ZB_UNSET,
                           NULL, bad), ZB_EINVAL);
    ZBT_EQ_STR(ctx.err.msg, "table property history.expire.min-snapshots-"
                            "to-keep=\"abc\" is not a non-negative integer");
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_MIN_SNAPSHOTS_TO_KEEP);
    ZBT_EQ_STR(v.ignored_text, "abc");
    ZBT_CONTAINS(line_of(ZB_TSET_MIN_SNAPSHOTS_TO_KEEP, &v),
                 "min-snapshots-to-keep=\"abc\" is not a non-negative "
                 "integer)");
    /* without a ctx: the same code, no message */
    ZBT_RC(zb_tset_resolve(&v, NULL, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP, ZB_UNSET,
                           NULL, bad), ZB_EINVAL);
    /* a flag hides the bad property: it is never read */
    zb_err_clear(&ctx.err);
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP, 2,
                               NULL, bad), &ctx);
    ZBT_EQ_INT(v.value, 2);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP,
                               ZB_UNSET, NULL, zero), &ctx);
    ZBT_EQ_INT(v.value, 1);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_PROPERTY);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MAX_SNAPSHOT_AGE, ZB_UNSET,
                               NULL, set), &ctx);
    ZBT_EQ_INT(v.value, 1000);
    ZBT_EQ_STR(v.source, "history.expire.max-snapshot-age-ms");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MAX_REF_AGE, ZB_UNSET, NULL,
                               set), &ctx);
    ZBT_EQ_INT(v.value, 2000);
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MAX_REF_AGE, ZB_UNSET, NULL,
                               zero), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_MAX_REF_AGE_MS);
    ZBT_EQ_STR(line_of(ZB_TSET_MAX_REF_AGE, &v),
               "max_ref_age_ms never (default)");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MAX_SNAPSHOT_AGE, ZB_UNSET,
                               NULL, zero), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS);
    ice_metadata_free(bad);
    ice_metadata_free(zero);
    ice_metadata_free(set);
}

/*
 * The config counts days (ms here); a retention section given for other
 * keys leaves the orphan guard and min_input_manifests at their default,
 * not "table config"; min_input_files of the defaults is not inherited by
 * a listed table.
 */
static void test_ops_tidy_settings__config_days_and_given_keys(void)
{
    zb_ctx ctx;
    zb_table_config *tc;
    zb_tc_effective ret, orph, own, unlisted;
    zb_tset_value v;

    zb_ctx_init(&ctx);
    tc = config(&ctx, tc_text);
    zb_table_config_effective(&ret, tc, "db.ret");
    zb_table_config_effective(&orph, tc, "db.orph");
    zb_table_config_effective(&own, tc, "db.own");
    zb_table_config_effective(&unlisted, tc, "db.unlisted");

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MAX_SNAPSHOT_AGE, ZB_UNSET,
                               &ret, NULL), &ctx);
    ZBT_EQ_INT(v.value, 7 * ZB_TSET_DAY_MS);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_EQ_STR(v.source, "retention.expire_snapshots.max_snapshot_age_days");
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_ORPHAN_AGE, ZB_UNSET, &ret,
                               NULL), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_ORPHAN_AGE_MS);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_INPUT_MANIFESTS,
                               ZB_UNSET, &ret, NULL), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_ORPHAN_AGE, ZB_UNSET, &orph,
                               NULL), &ctx);
    ZBT_EQ_INT(v.value, 5 * ZB_TSET_DAY_MS);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_INPUT_MANIFESTS,
                               ZB_UNSET, &orph, NULL), &ctx);
    ZBT_EQ_INT(v.value, 4);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    /* a flag's days, turned by the caller */
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_ORPHAN_AGE,
                               zb_tset_days_ms(1), &orph, NULL), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DAY_MS);
    ZBT_EQ_STR(v.source, "--older-than-days");
    ZBT_EQ_INT(zb_tset_days_ms(ZB_UNSET), ZB_UNSET);
    ZBT_EQ_INT(zb_tset_days_ms(INT64_MAX / 2), INT64_MAX);

    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_INPUT_FILES, ZB_UNSET,
                               &unlisted, NULL), &ctx);
    ZBT_EQ_INT(v.value, 3);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_OK_CTX(zb_tset_resolve(&v, &ctx, ZB_TSET_MIN_INPUT_FILES, ZB_UNSET,
                               &own, NULL), &ctx);
    ZBT_EQ_INT(v.value, ZB_TSET_DEFAULT_MIN_INPUT_FILES);
    ZBT_EQ_INT(v.origin, ZB_TSET_FROM_DEFAULT);
    zb_table_config_free(tc);
}

/* The flag and config layers alone: what an operation is handed. */
static void test_ops_tidy_settings__explicit_layers(void)
{
    zb_ctx ctx;
    zb_table_config *tc;
    zb_tc_effective own;
    zb_tset_value v;

    zb_ctx_init(&ctx);
    tc = config(&ctx, tc_text);
    zb_table_config_effective(&own, tc, "db.own");
    ZBT_EQ_INT(zb_tset_explicit(&v, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET, NULL),
               0);
    ZBT_EQ_INT(v.value, ZB_UNSET);
    ZBT_EQ_INT(zb_tset_explicit(&v, ZB_TSET_MAX_SNAPSHOT_AGE, ZB_UNSET,
                                &own), 0);
    ZBT_EQ_INT(v.value, ZB_UNSET);
    ZBT_EQ_INT(zb_tset_explicit(&v, ZB_TSET_TARGET_FILE_SIZE, ZB_UNSET, &own),
               1);
    ZBT_EQ_INT(v.value, 2000);
    ZBT_EQ_INT(zb_tset_explicit(&v, ZB_TSET_MAX_REF_AGE, 5, &own), 1);
    ZBT_EQ_STR(v.source, "option");   /* no command-line flag */
    ZBT_EQ_STR(zb_tset_name(ZB_TSET_ORPHAN_AGE), "orphan_older_than_ms");
    ZBT_EQ_STR(zb_tset_origin_name(ZB_TSET_FROM_PROPERTY), "table property");
    zb_table_config_free(tc);
}

const zbt_case test_ops_tidy_settings[] = {
    ZBT_CASE(test_ops_tidy_settings__target_every_origin),
    ZBT_CASE(test_ops_tidy_settings__malformed_target_property),
    ZBT_CASE(test_ops_tidy_settings__expire_properties),
    ZBT_CASE(test_ops_tidy_settings__config_days_and_given_keys),
    ZBT_CASE(test_ops_tidy_settings__explicit_layers),
    ZBT_END
};

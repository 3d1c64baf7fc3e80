/*
 * Tests of ops/table_config*.c: every key of table-config.json v2 with
 * its rule (one case per rule, valid and invalid, with the exact
 * message), the merge of defaults and tables, the table list, the
 * warehouse assertion, the summary, and truncated, corrupted and
 * allocation-starved parses.
 */
#include <stdio.h>
#include <string.h>

#include "cfg_test.h"
#include "ops/apply_properties.h"
#include "ops/config/table_config.h"
#include "zbtest.h"

static zb_table_config *parse_ok(const char *text)
{
    zb_table_config *tc = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_parse(&tc, &ctx, "tc.json", text,
                                     strlen(text)), &ctx);
    return tc;
}

/* {"version":2,"warehouse":"w","defaults":BLOCK} */
static char *with_defaults(char *buf, size_t size, const char *block)
{
    snprintf(buf, size, "{\"version\":2,\"warehouse\":\"w\",\"defaults\":%s}",
             block);
    return buf;
}

typedef struct bad_case {
    const char *block;     /* a defaults block, or a whole file if '!' */
    const char *want;      /* the message after "tc.json: " */
} bad_case;

static const bad_case bad_cases[] = {
    /* root */
    { "![]", "must hold one JSON object (got a list)" },
    { "!{\"tables\":{}}", "tables: a top-level \"tables\" is the version 1 "
      "layout; version 2 lists each table under namespaces.<namespace>."
      "tables.<table> with \"version\": 2" },
    { "!{\"version\":1,\"warehouse\":\"w\",\"tables\":{\"db.t\":{}}}",
      "tables: a top-level \"tables\" is the version 1 layout; version 2 "
      "lists each table under namespaces.<namespace>.tables.<table> with "
      "\"version\": 2" },
    { "!{\"warehouse\":\"w\"}", "version: required (2)" },
    { "!{\"version\":1,\"warehouse\":\"w\"}", "version: must be 2 (got 1); a "
      "version 1 file moves each table under namespaces.<namespace>.tables."
      "<table>" },
    { "!{\"version\":3,\"warehouse\":\"w\"}", "version: must be 2 (got 3)" },
    { "!{\"version\":\"2\",\"warehouse\":\"w\"}",
      "version: must be 2 (got a string)" },
    { "!{\"version\":2}",
      "warehouse: required (the warehouse this file configures)" },
    { "!{\"version\":2,\"warehouse\":null}",
      "warehouse: required (the warehouse this file configures)" },
    { "!{\"version\":2,\"warehouse\":\"\"}", "warehouse: must not be empty" },
    { "!{\"version\":2,\"warehouse\":7}",
      "warehouse: must be a string (got an integer)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"colour\":1}",
      "colour: unknown key (allowed: version, warehouse, defaults, "
      "namespaces)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"defaults\":[]}",
      "defaults: must be an object (got a list)" },
    /* namespaces */
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":[]}",
      "namespaces: must be an object (got a list)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"a..b\":{}}}",
      "namespaces.a..b: not a namespace name (levels are joined by single "
      "dots and cannot be empty)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\".a\":{}}}",
      "namespaces..a: not a namespace name (levels are joined by single "
      "dots and cannot be empty)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"\":{}}}",
      "namespaces.: not a namespace name (levels are joined by single dots "
      "and cannot be empty)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"defaults\":{}}}}",
      "namespaces.db.defaults: unknown key (allowed: tables)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"tables\":[]}}}",
      "namespaces.db.tables: must be an object (got a list)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"tables\":{\"a.b\":{}}}}}",
      "namespaces.db.tables.a.b: a table name holds no dot (write namespace "
      "levels in the namespace key, \"db.a.b\")" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"tables\":{\"\":{}}}}}",
      "namespaces.db.tables.: a table name cannot be empty" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"tables\":{\"t\":3}}}}",
      "namespaces.db.tables.t: must be an object (got an integer)" },
    { "!{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
      "{\"tables\":{\"t\":{\"min_input_files\":0}}}}}",
      "namespaces.db.tables.t.min_input_files: must be >= 1 (got 0)" },
    /* block keys */
    { "{\"colour\":1}", "defaults.colour: unknown key (allowed: "
      "description, partition, partition_evolution, ordering, "
      "target_file_size_bytes, min_input_files, retention, "
      "max_concurrent_file_group_rewrites, schedule, min_file_size_bytes, "
      "max_file_size_bytes, rewrite_all, delete_file_threshold, "
      "delete_ratio_threshold, max_file_group_size_bytes, "
      "partial_progress_enabled, partial_progress_max_commits, "
      "max_files_to_rewrite, rewrite_job_order, output_spec_id, "
      "use_starting_sequence_number)" },
    { "{\"description\":5}",
      "defaults.description: must be a string (got an integer)" },
    /* issue 21: the rewrite_data_files keys */
    { "{\"delete_ratio_threshold\":0}",
      "defaults.delete_ratio_threshold: must be a number above 0, at most 1 "
      "(got 0)" },
    { "{\"delete_ratio_threshold\":\"x\"}",
      "defaults.delete_ratio_threshold: must be a number above 0, at most 1 "
      "(got a string)" },
    { "{\"rewrite_job_order\":\"random\"}",
      "defaults.rewrite_job_order: 'random' is not one of none, bytes-asc, "
      "bytes-desc, files-asc, files-desc" },
    { "{\"max_files_to_rewrite\":0}",
      "defaults.max_files_to_rewrite: must be >= 1 (got 0)" },
    { "{\"partial_progress_max_commits\":1.5}",
      "defaults.partial_progress_max_commits: must be a whole number (got a "
      "fraction)" },
    { "{\"rewrite_all\":1}",
      "defaults.rewrite_all: must be true or false (got an integer)" },
    { "{\"min_file_size_bytes\":-1}",
      "defaults.min_file_size_bytes: must be >= 0 (got -1)" },
    { "{\"target_file_size_bytes\":99}",
      "defaults.target_file_size_bytes: must be >= 100 (got 99)" },
    { "{\"target_file_size_bytes\":\"128MB\"}",
      "defaults.target_file_size_bytes: must be a whole number or null (got "
      "a string)" },
    { "{\"target_file_size_bytes\":1e9}",
      "defaults.target_file_size_bytes: must be a whole number or null (got "
      "a fraction)" },
    { "{\"min_input_files\":0}",
      "defaults.min_input_files: must be >= 1 (got 0)" },
    { "{\"min_input_files\":1.5}",
      "defaults.min_input_files: must be a whole number (got a fraction)" },
    { "{\"min_input_files\":true}",
      "defaults.min_input_files: must be a whole number (got true)" },
    { "{\"max_concurrent_file_group_rewrites\":0}",
      "defaults.max_concurrent_file_group_rewrites: must be from 1 to 256 "
      "(got 0)" },
    { "{\"max_concurrent_file_group_rewrites\":257}",
      "defaults.max_concurrent_file_group_rewrites: must be from 1 to 256 "
      "(got 257)" },
    { "{\"max_concurrent_file_group_rewrites\":\"4\"}",
      "defaults.max_concurrent_file_group_rewrites: must be a whole number or "
      "null (got a string)" },
    /* partition */
    { "{\"partition\":{}}",
      "defaults.partition: must be a list (got an object)" },
    { "{\"partition\":[1]}",
      "defaults.partition[0]: must be an object (got an integer)" },
    { "{\"partition\":[{}]}", "defaults.partition[0].column: required" },
    { "{\"partition\":[{\"column\":\"\"}]}",
      "defaults.partition[0].column: must not be empty" },
    { "{\"partition\":[{\"column\":\"a\",\"field\":1}]}",
      "defaults.partition[0].field: unknown key (allowed: column, transform, "
      "num_buckets, width, name)" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"week\"}]}",
      "defaults.partition[0].transform: 'week' is not one of identity, "
      "year, month, day, hour, bucket, truncate, void" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"bucket\"}]}",
      "defaults.partition[0].num_buckets: required with transform bucket" },
    { "{\"partition\":[{\"column\":\"a\",\"num_buckets\":4}]}",
      "defaults.partition[0].num_buckets: only allowed with transform "
      "bucket" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"bucket\","
      "\"num_buckets\":0}]}",
      "defaults.partition[0].num_buckets: must be >= 1 (got "
      "0)" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"truncate\"}]}",
      "defaults.partition[0].width: required with transform truncate" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"day\","
      "\"width\":3}]}",
      "defaults.partition[0].width: only allowed with transform truncate" },
    { "{\"partition\":[{\"column\":\"a\",\"transform\":\"truncate\","
      "\"width\":-2}]}",
      "defaults.partition[0].width: must be >= 1 (got -2)" },
    { "{\"partition\":[{\"column\":\"a\"},{\"column\":\"b\",\"name\":"
      "\"a\"}]}",
      "defaults.partition[1].name: 'a' is also the name of partition[0]; "
      "partition field names must be unique" },
    { "{\"partition\":[{\"column\":\"ts\",\"transform\":\"day\"},"
      "{\"column\":\"ts\",\"transform\":\"day\"}]}",
      "defaults.partition[1].name: 'ts_day' is also the name of "
      "partition[0]; partition field names must be unique" },
    /* partition_evolution */
    { "{\"partition_evolution\":true}",
      "defaults.partition_evolution: must be an object (got true)" },
    { "{\"partition_evolution\":{\"enabled\":\"yes\"}}",
      "defaults.partition_evolution.enabled: must be true or false (got a "
      "string)" },
    { "{\"partition_evolution\":{\"rule\":[]}}",
      "defaults.partition_evolution.rule: unknown key (allowed: enabled, "
      "rules)" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"month\",\"to\":"
      "\"day\",\"older_than_days\":1}]}}",
      "defaults.partition_evolution.rules[0].to: 'day' is not coarser than "
      "from 'month' (hour < day < month < year; evolution only coarsens)" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"day\",\"to\":"
      "\"day\",\"older_than_days\":1}]}}",
      "defaults.partition_evolution.rules[0].to: 'day' is not coarser than "
      "from 'day' (hour < day < month < year; evolution only coarsens)" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"week\",\"to\":"
      "\"year\",\"older_than_days\":1}]}}",
      "defaults.partition_evolution.rules[0].from: 'week' is not one of "
      "hour, day, month, year" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"identity\"}]}}",
      "defaults.partition_evolution.rules[0].from: 'identity' is not one of "
      "hour, day, month, year" },
    { "{\"partition_evolution\":{\"rules\":[{\"to\":\"year\"}]}}",
      "defaults.partition_evolution.rules[0].from: required" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"day\"}]}}",
      "defaults.partition_evolution.rules[0].to: required" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"day\",\"to\":"
      "\"month\"}]}}",
      "defaults.partition_evolution.rules[0].older_than_days: required" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"day\",\"to\":"
      "\"month\",\"older_than_days\":-1}]}}",
      "defaults.partition_evolution.rules[0].older_than_days: must be "
      ">= 0 (got -1)" },
    { "{\"partition_evolution\":{\"rules\":[{\"from\":\"day\",\"to\":"
      "\"month\",\"older_than_days\":9},{\"from\":\"day\",\"to\":\"year\","
      "\"older_than_days\":99}]}}",
      "defaults.partition_evolution.rules[1].from: 'day' already has a rule "
      "(rules[0])" },
    /* ordering */
    { "{\"ordering\":{\"mode\":\"cluster\"}}",
      "defaults.ordering.mode: 'cluster' is not one of none, sort, zorder" },
    { "{\"ordering\":{\"mode\":\"sort\"}}",
      "defaults.ordering.sort: required when mode is 'sort'" },
    { "{\"ordering\":{\"mode\":\"zorder\"}}",
      "defaults.ordering.zorder: required when mode is 'zorder'" },
    { "{\"ordering\":{\"mode\":\"none\",\"sort\":[{\"column\":\"a\"}]}}",
      "defaults.ordering.sort: not allowed when mode is 'none'" },
    { "{\"ordering\":{\"zorder\":{\"columns\":[\"a\",\"b\"]}}}",
      "defaults.ordering.zorder: not allowed when mode is 'none'" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"column\":\"a\"}],"
      "\"zorder\":{\"columns\":[\"a\",\"b\"]}}}",
      "defaults.ordering.zorder: not allowed when mode is 'sort'" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"sort\":[{\"column\":\"a\"}]}}",
      "defaults.ordering.sort: not allowed when mode is 'zorder'" },
    { "{\"ordering\":{\"by\":1}}",
      "defaults.ordering.by: unknown key (allowed: mode, sort, zorder)" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[]}}",
      "defaults.ordering.sort: must list at least one column" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"direction\":"
      "\"asc\"}]}}",
      "defaults.ordering.sort[0].column: required" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"column\":\"a\","
      "\"direction\":\"up\"}]}}",
      "defaults.ordering.sort[0].direction: 'up' is not one of asc, desc" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"column\":\"a\","
      "\"nulls\":\"middle\"}]}}",
      "defaults.ordering.sort[0].nulls: 'middle' is not one of first, last" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"column\":\"a\"},"
      "{\"column\":\"a\",\"direction\":\"desc\"}]}}",
      "defaults.ordering.sort[1].column: 'a' is already sorted on at [0]" },
    { "{\"ordering\":{\"mode\":\"sort\",\"sort\":[{\"column\":\"a\","
      "\"order\":1}]}}",
      "defaults.ordering.sort[0].order: unknown key (allowed: column, "
      "direction, nulls)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{}}}",
      "defaults.ordering.zorder.columns: required" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\"]}}}",
      "defaults.ordering.zorder.columns: needs at least 2 columns (got 1); "
      "sort on one column with mode 'sort'" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\",\"a\"]}}}",
      "defaults.ordering.zorder.columns[2]: 'a' is listed twice; z-order "
      "columns must be unique" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",3]}}}",
      "defaults.ordering.zorder.columns[1]: must be a string (got an "
      "integer)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\"],\"precision_bits\":0}}}",
      "defaults.ordering.zorder.precision_bits: must be from 1 to 32 (got "
      "0)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\"],\"precision_bits\":33}}}",
      "defaults.ordering.zorder.precision_bits: must be from 1 to 32 (got "
      "33)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\",\"c\",\"d\"]}}}",
      "defaults.ordering.zorder: precision_bits * columns must be <= 62 "
      "(got 16 * 4 = 64)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\"],\"precision_bits\":32}}}",
      "defaults.ordering.zorder: precision_bits * columns must be <= 62 "
      "(got 32 * 2 = 64)" },
    { "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":"
      "[\"a\",\"b\"],\"bits\":3}}}",
      "defaults.ordering.zorder.bits: unknown key (allowed: columns, "
      "precision_bits)" },
    /* retention */
    { "{\"retention\":{\"expire\":{}}}",
      "defaults.retention.expire: unknown key (allowed: expire_snapshots, "
      "remove_orphan_files, remove_dangling_deletes, rewrite_manifests, "
      "metadata)" },
    { "{\"retention\":{\"expire_snapshots\":[]}}",
      "defaults.retention.expire_snapshots: must be an object (got a list)" },
    { "{\"retention\":{\"expire_snapshots\":{\"keep\":1}}}",
      "defaults.retention.expire_snapshots.keep: unknown key (allowed: "
      "enabled, max_snapshot_age_days, min_snapshots_to_keep, "
      "max_ref_age_days)" },
    { "{\"retention\":{\"expire_snapshots\":{\"max_snapshot_age_days\":"
      "-1}}}",
      "defaults.retention.expire_snapshots.max_snapshot_age_days: must be "
      ">= 0 (got -1)" },
    { "{\"retention\":{\"expire_snapshots\":{\"min_snapshots_to_keep\":"
      "0}}}",
      "defaults.retention.expire_snapshots.min_snapshots_to_keep: must be "
      ">= 1 (got 0)" },
    { "{\"retention\":{\"expire_snapshots\":{\"max_ref_age_days\":\"7\"}}}",
      "defaults.retention.expire_snapshots.max_ref_age_days: must be a "
      "whole number or null (got a string)" },
    { "{\"retention\":{\"expire_snapshots\":{\"enabled\":1}}}",
      "defaults.retention.expire_snapshots.enabled: must be true or false "
      "(got an integer)" },
    { "{\"retention\":{\"expire_snapshots\":{\"enabled\":false}}}",
      "defaults.retention.remove_orphan_files: enabled while "
      "expire_snapshots is disabled; orphan removal needs expiry (disable "
      "remove_orphan_files or enable expire_snapshots)" },
    { "{\"retention\":{\"remove_orphan_files\":{\"older_than_days\":-3}}}",
      "defaults.retention.remove_orphan_files.older_than_days: must be "
      ">= 0 (got -3)" },
    { "{\"retention\":{\"remove_orphan_files\":{\"dry_run\":true}}}",
      "defaults.retention.remove_orphan_files.dry_run: unknown key "
      "(allowed: enabled, older_than_days)" },
    { "{\"retention\":{\"remove_dangling_deletes\":{\"enabled\":\"no\"}}}",
      "defaults.retention.remove_dangling_deletes.enabled: must be true or "
      "false (got a string)" },
    { "{\"retention\":{\"remove_dangling_deletes\":{\"policy\":1}}}",
      "defaults.retention.remove_dangling_deletes.policy: unknown key "
      "(allowed: enabled)" },
    { "{\"retention\":{\"rewrite_manifests\":{\"min_input_manifests\":1}}}",
      "defaults.retention.rewrite_manifests.min_input_manifests: must be "
      ">= 2 (got 1)" },
    { "{\"retention\":{\"metadata\":{\"previous_versions_max\":0}}}",
      "defaults.retention.metadata.previous_versions_max: must be >= 1 (got "
      "0)" },
    { "{\"min_input_files\":3000000000}",
      "defaults.min_input_files: must be <= 2147483647 (got 3000000000)" },
    { "{\"retention\":{\"metadata\":{\"delete_after_commit\":\"yes\"}}}",
      "defaults.retention.metadata.delete_after_commit: must be true or "
      "false (got a string)" },
    { "{\"retention\":{\"metadata\":{\"keep\":1}}}",
      "defaults.retention.metadata.keep: unknown key (allowed: "
      "previous_versions_max, delete_after_commit)" },
};

static void test_config_table__every_rule_rejected(void)
{
    char text[1024], want[600];
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const bad_case *c = &bad_cases[i];
        zb_table_config *tc = NULL;
        zb_ctx ctx;
        const char *t = c->block[0] == '!'
                            ? c->block + 1
                            : with_defaults(text, sizeof(text), c->block);
        zb_ctx_init(&ctx);
        int rc = zb_table_config_parse(&tc, &ctx, "tc.json", t, strlen(t));
        snprintf(want, sizeof(want), "tc.json: %s", c->want);
        if (rc != ZB_EUSAGE || strcmp(ctx.err.msg, want) != 0)
            zbt__fail(__FILE__, __LINE__, "case %zu %s:\n  got  %s: %s\n  "
                      "want ZB_EUSAGE: %s", i, t, zb_rc_name(rc),
                      ctx.err.msg, want);
        ZBT_CHECK(tc == NULL);
    }
}

/* Boundary values that are allowed. */
static void test_config_table__every_rule_accepted(void)
{
    static const char *const good[] = {
        "{}",
        "{\"description\":\"\"}",
        "{\"target_file_size_bytes\":100}",
        "{\"target_file_size_bytes\":null}",
        "{\"min_input_files\":1}",
        "{\"min_input_files\":null}",
        "{\"partition\":[]}",
        "{\"partition\":[{\"column\":\"a\",\"transform\":\"bucket\","
        "\"num_buckets\":1},{\"column\":\"b\",\"transform\":\"truncate\","
        "\"width\":1},{\"column\":\"c\",\"transform\":\"void\"},"
        "{\"column\":\"a\",\"transform\":\"identity\",\"name\":\"a2\"}]}",
        "{\"partition_evolution\":{}}",
        "{\"partition_evolution\":{\"enabled\":false,\"rules\":[]}}",
        "{\"partition_evolution\":{\"rules\":[{\"from\":\"hour\",\"to\":"
        "\"year\",\"older_than_days\":0},{\"from\":\"day\",\"to\":\"month\","
        "\"older_than_days\":90}]}}",
        "{\"ordering\":{}}",
        "{\"ordering\":{\"mode\":\"none\"}}",
        "{\"ordering\":{\"mode\":\"none\",\"sort\":null}}",
        "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":[\"a\","
        "\"b\"],\"precision_bits\":31}}}",
        "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":[\"a\","
        "\"b\",\"c\"],\"precision_bits\":20}}}",
        "{\"ordering\":{\"mode\":\"zorder\",\"zorder\":{\"columns\":[\"a\","
        "\"b\"],\"precision_bits\":1}}}",
        "{\"retention\":{}}",
        "{\"retention\":{\"expire_snapshots\":{\"enabled\":false},"
        "\"remove_orphan_files\":{\"enabled\":false}}}",
        "{\"retention\":{\"expire_snapshots\":{\"max_snapshot_age_days\":0,"
        "\"min_snapshots_to_keep\":1,\"max_ref_age_days\":0}}}",
        "{\"retention\":{\"expire_snapshots\":{\"max_snapshot_age_days\":null,"
        "\"min_snapshots_to_keep\":null,\"max_ref_age_days\":null}}}",
        "{\"retention\":{\"remove_orphan_files\":{\"older_than_days\":0}}}",
        "{\"retention\":{\"rewrite_manifests\":{\"min_input_manifests\":2}}}",
        "{\"retention\":{\"metadata\":{\"previous_versions_max\":1,"
        "\"delete_after_commit\":null}}}",
    };
    char text[1024];
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        zb_table_config *tc = NULL;
        zb_ctx ctx;
        zb_ctx_init(&ctx);
        with_defaults(text, sizeof(text), good[i]);
        int rc = zb_table_config_parse(&tc, &ctx, "tc.json", text,
                                       strlen(text));
        if (rc != ZB_OK)
            zbt__fail(__FILE__, __LINE__, "case %zu %s: %s: %s", i, text,
                      zb_rc_name(rc), ctx.err.msg);
        zb_table_config_free(tc);
    }
}

static const char full[] =
    "{\n"
    "  \"version\": 2,\n"
    "  \"warehouse\": \"acme\",\n"
    "  \"defaults\": {\n"
    "    \"description\": \"fleet defaults\",\n"
    "    \"ordering\": {\"mode\": \"sort\", \"sort\": [{\"column\": \"ts\"}]},\n"
    "    \"target_file_size_bytes\": 1000000,\n"
    "    \"min_input_files\": 5,\n"
    "    \"retention\": {\"expire_snapshots\": {\"max_snapshot_age_days\": 7}}\n"
    "  },\n"
    "  \"namespaces\": {\n"
    "    \"db\": {\"tables\": {\n"
    "      \"events\": {\n"
    "        \"partition\": [\n"
    "          {\"column\": \"ts\", \"transform\": \"day\"},\n"
    "          {\"column\": \"id\", \"transform\": \"bucket\", \"num_buckets\": 16},\n"
    "          {\"column\": \"name\", \"transform\": \"truncate\", \"width\": 4,\n"
    "           \"name\": \"n4\"}\n"
    "        ],\n"
    "        \"partition_evolution\": {\"rules\": [\n"
    "          {\"from\": \"day\", \"to\": \"month\", \"older_than_days\": 30}]},\n"
    "        \"ordering\": {\"mode\": \"zorder\",\n"
    "          \"zorder\": {\"columns\": [\"a\", \"b\", \"c\"], \"precision_bits\": 20}},\n"
    "        \"target_file_size_bytes\": null,\n"
    "        \"min_input_files\": 3,\n"
    "        \"retention\": {\n"
    "          \"expire_snapshots\": {\"enabled\": true, \"min_snapshots_to_keep\": 4,\n"
    "                               \"max_ref_age_days\": 30},\n"
    "          \"remove_orphan_files\": {\"older_than_days\": 7},\n"
    "          \"remove_dangling_deletes\": {\"enabled\": false},\n"
    "          \"rewrite_manifests\": {\"enabled\": true, \"min_input_manifests\": 10},\n"
    "          \"metadata\": {\"previous_versions_max\": 50,\n"
    "                         \"delete_after_commit\": true}\n"
    "        }\n"
    "      },\n"
    "      \"plain\": {},\n"
    "      \"unsorted\": {\"ordering\": {\"mode\": \"none\"}},\n"
    "      \"desc\": {\"ordering\": {\"mode\": \"sort\", \"sort\": [\n"
    "        {\"column\": \"x\", \"direction\": \"desc\", \"nulls\": \"first\"},\n"
    "        {\"column\": \"y\"}]}}\n"
    "    }},\n"
    "    \"db.raw\": {\"tables\": {\"clicks\": {\"description\": \"raw\"}}},\n"
    "    \"empty\": {}\n"
    "  }\n"
    "}\n";

static void test_config_table__every_key_parsed(void)
{
    zb_table_config *tc = parse_ok(full);
    zb_tc_effective e;

    ZBT_EQ_STR(zb_table_config_name(tc), "tc.json");
    ZBT_EQ_STR(zb_table_config_warehouse(tc), "acme");
    ZBT_EQ_INT(zb_table_config_table_count(tc), 5);
    ZBT_EQ_STR(zb_table_config_table(tc, 0), "db.desc");
    ZBT_EQ_STR(zb_table_config_table(tc, 1), "db.events");
    ZBT_EQ_STR(zb_table_config_table(tc, 2), "db.plain");
    ZBT_EQ_STR(zb_table_config_table(tc, 3), "db.raw.clicks");
    ZBT_EQ_STR(zb_table_config_table(tc, 4), "db.unsorted");
    ZBT_CHECK(zb_table_config_table(tc, 5) == NULL);

    zb_table_config_effective(&e, tc, "db.events");
    const zb_tc_block *b = &e.block;
    ZBT_CHECK(e.listed);
    /* description is inherited (a section the table does not give) */
    ZBT_EQ_STR(b->description, "fleet defaults");
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_DESCRIPTION], ZB_TC_FROM_DEFAULTS);
    ZBT_EQ_INT(b->n_partition, 3);
    ZBT_EQ_STR(b->partition[0].column, "ts");
    ZBT_EQ_INT(b->partition[0].transform, ZB_TC_DAY);
    ZBT_EQ_STR(b->partition[0].name, "ts_day");
    ZBT_CHECK(!b->partition[0].name_given);
    ZBT_EQ_INT(b->partition[1].transform, ZB_TC_BUCKET);
    ZBT_EQ_INT(b->partition[1].num_buckets, 16);
    ZBT_EQ_STR(b->partition[1].name, "id_bucket");
    ZBT_EQ_INT(b->partition[2].transform, ZB_TC_TRUNCATE);
    ZBT_EQ_INT(b->partition[2].width, 4);
    ZBT_EQ_STR(b->partition[2].name, "n4");
    ZBT_CHECK(b->partition[2].name_given);
    ZBT_CHECK(b->evolution_enabled);
    ZBT_EQ_INT(b->n_rules, 1);
    ZBT_EQ_INT(b->rules[0].from, ZB_TC_DAY);
    ZBT_EQ_INT(b->rules[0].to, ZB_TC_MONTH);
    ZBT_EQ_INT(b->rules[0].older_than_days, 30);
    ZBT_EQ_INT(b->order_mode, ZB_TC_ORDER_ZORDER);
    ZBT_EQ_INT(b->n_zorder, 3);
    ZBT_EQ_STR(b->zorder_columns[2], "c");
    ZBT_EQ_INT(b->precision_bits, 20);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_ORDERING], ZB_TC_FROM_TABLE);
    /* an explicit null replaces the defaults' size */
    ZBT_EQ_INT(b->target_file_size_bytes, -1);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_TARGET_FILE_SIZE], ZB_TC_FROM_TABLE);
    ZBT_EQ_INT(b->min_input_files, 3);
    const zb_tc_retention *r = &b->retention;
    ZBT_CHECK(r->expire_enabled);
    /* retention replaced whole: the defaults' 7 days do not come along */
    ZBT_EQ_INT(r->max_snapshot_age_days, -1);
    ZBT_EQ_INT(r->min_snapshots_to_keep, 4);
    ZBT_EQ_INT(r->max_ref_age_days, 30);
    ZBT_CHECK(r->orphans_enabled);
    ZBT_EQ_INT(r->orphans_older_than_days, 7);
    ZBT_CHECK(!r->dangling_enabled);
    ZBT_CHECK(r->manifests_enabled);
    ZBT_EQ_INT(r->min_input_manifests, 10);
    ZBT_EQ_INT(r->previous_versions_max, 50);
    ZBT_EQ_INT(r->delete_after_commit, 1);

    zb_config_props cp;
    zb_table_config_props(&cp, b);
    ZBT_EQ_INT(cp.target_file_size_bytes, -1);
    ZBT_EQ_INT(cp.previous_versions_max, 50);
    ZBT_EQ_INT(cp.delete_after_commit, 1);
    ZBT_EQ_INT(cp.max_snapshot_age_days, -1);
    ZBT_EQ_INT(cp.min_snapshots_to_keep, 4);
    ZBT_EQ_INT(cp.max_ref_age_days, 30);

    zb_table_config_effective(&e, tc, "db.desc");
    ZBT_EQ_INT(e.block.order_mode, ZB_TC_ORDER_SORT);
    ZBT_EQ_INT(e.block.n_sort, 2);
    ZBT_EQ_STR(e.block.sort[0].column, "x");
    ZBT_CHECK(e.block.sort[0].descending && e.block.sort[0].nulls_first);
    ZBT_CHECK(!e.block.sort[1].descending && !e.block.sort[1].nulls_first);
    zb_table_config_free(tc);
}

static void test_config_table__merge(void)
{
    zb_table_config *tc = parse_ok(full);
    zb_tc_effective e;

    /* a listed table with an empty block: every section from defaults,
     * except min_input_files, which is not inherited */
    zb_table_config_effective(&e, tc, "db.plain");
    ZBT_CHECK(e.listed);
    ZBT_EQ_INT(e.block.order_mode, ZB_TC_ORDER_SORT);
    ZBT_EQ_STR(e.block.sort[0].column, "ts");
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_ORDERING], ZB_TC_FROM_DEFAULTS);
    ZBT_EQ_INT(e.block.target_file_size_bytes, 1000000);
    ZBT_EQ_INT(e.block.min_input_files, 2);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_MIN_INPUT_FILES], ZB_TC_FROM_BUILTIN);
    ZBT_EQ_INT(e.block.retention.max_snapshot_age_days, 7);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_RETENTION], ZB_TC_FROM_DEFAULTS);
    /* the file has "defaults": no built-in evolution rule */
    ZBT_EQ_INT(e.block.n_rules, 0);
    ZBT_EQ_INT(e.block.n_partition, 0);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_PARTITION], ZB_TC_FROM_BUILTIN);
    /* an unlisted table gets the defaults, min_input_files included */
    zb_table_config_effective(&e, tc, "db.other");
    ZBT_CHECK(!e.listed);
    ZBT_EQ_INT(e.block.min_input_files, 5);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_MIN_INPUT_FILES], ZB_TC_FROM_DEFAULTS);
    ZBT_EQ_INT(e.block.order_mode, ZB_TC_ORDER_SORT);
    /* lookups are exact: "db.raw.clicks" is in namespace "db.raw" */
    zb_table_config_effective(&e, tc, "db.raw.clicks");
    ZBT_CHECK(e.listed);
    ZBT_EQ_STR(e.block.description, "raw");
    ZBT_EQ_INT(e.block.min_input_files, 2);
    zb_table_config_effective(&e, tc, "raw.clicks");
    ZBT_CHECK(!e.listed);
    /* mode none does not override the defaults' ordering */
    zb_table_config_effective(&e, tc, "db.unsorted");
    ZBT_EQ_INT(e.block.order_mode, ZB_TC_ORDER_SORT);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_ORDERING], ZB_TC_FROM_DEFAULTS);
    zb_table_config_free(tc);

    /* without a "defaults" key: day -> month after 90 days, built in */
    tc = parse_ok("{\"version\":2,\"warehouse\":\"w\",\"namespaces\":{\"db\":"
                  "{\"tables\":{\"t\":{\"ordering\":{\"mode\":\"none\"}},"
                  "\"off\":{\"partition_evolution\":{\"enabled\":false}}}}}}");
    zb_table_config_effective(&e, tc, "db.t");
    ZBT_CHECK(e.block.evolution_enabled);
    ZBT_EQ_INT(e.block.n_rules, 1);
    ZBT_EQ_INT(e.block.rules[0].from, ZB_TC_DAY);
    ZBT_EQ_INT(e.block.rules[0].to, ZB_TC_MONTH);
    ZBT_EQ_INT(e.block.rules[0].older_than_days, 90);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_EVOLUTION], ZB_TC_FROM_BUILTIN);
    ZBT_EQ_INT(e.block.order_mode, ZB_TC_ORDER_NONE);
    ZBT_EQ_INT(e.block.target_file_size_bytes, -1);
    ZBT_EQ_INT(e.block.min_input_files, 2);
    ZBT_EQ_INT(e.block.retention.orphans_older_than_days, 3);
    ZBT_EQ_INT(e.block.retention.min_input_manifests, 2);
    ZBT_EQ_INT(e.block.retention.delete_after_commit, -1);
    zb_table_config_effective(&e, tc, "db.unlisted");
    ZBT_EQ_INT(e.block.n_rules, 1);
    zb_table_config_effective(&e, tc, "db.off");
    ZBT_CHECK(!e.block.evolution_enabled);
    ZBT_EQ_INT(e.block.n_rules, 0);
    zb_table_config_free(tc);
    /* an empty "defaults" turns the built-in rule off */
    tc = parse_ok("{\"version\":2,\"warehouse\":\"w\",\"defaults\":{}}");
    zb_table_config_effective(&e, tc, "a.b");
    ZBT_EQ_INT(e.block.n_rules, 0);
    ZBT_EQ_INT(zb_table_config_table_count(tc), 0);
    zb_table_config_free(tc);
}

static void test_config_table__warehouse_check(void)
{
    zb_table_config *tc = parse_ok(full);
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_check_warehouse(&ctx, tc, "acme"), &ctx);
    ZBT_RC(zb_table_config_check_warehouse(&ctx, tc, "globex"), ZB_EREFUSED);
    ZBT_EQ_STR(ctx.err.msg, "tc.json configures warehouse 'acme', not "
               "'globex': nothing was touched (fix the file's \"warehouse\" "
               "or the --warehouse given)");
    zb_table_config_free(tc);
}

static void test_config_table__summary(void)
{
    zb_table_config *tc = parse_ok(full);
    zb_buf b = ZB_BUF_INIT(1 << 20);
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_summary(&b, &ctx, tc, NULL), &ctx);
    ZBT_CONTAINS(b.ptr, "tc.json: warehouse acme, version 2, 5 table(s)\n");
    ZBT_CONTAINS(b.ptr, "\ndefaults\n");
    ZBT_CONTAINS(b.ptr, "\ntable db.events\n  description              "
                 "fleet defaults  (from defaults)\n  partition                "
                 "day(ts) as ts_day, bucket[16](id) as id_bucket, "
                 "truncate[4](name) as n4\n  partition_evolution      "
                 "enabled, day -> month after 30 days\n  ordering             "
                 "    zorder: a, b, c (precision_bits 20)\n  "
                 "target_file_size_bytes   null (table property, else "
                 "134217728)\n  min_input_files          3\n");
    ZBT_CONTAINS(b.ptr, "  remove_dangling_deletes  disabled  -- not "
                 "available on: trino\n");
    ZBT_CONTAINS(b.ptr, "  metadata                 previous_versions_max=50, "
                 "delete_after_commit=true\n");
    ZBT_CONTAINS(b.ptr, "\ntable db.plain\n");
    ZBT_CONTAINS(b.ptr, "  min_input_files          2  (default)\n");
    ZBT_CONTAINS(b.ptr, "  ordering                 sort: ts asc nulls last"
                 "  (from defaults)\n");
    zb_buf_clear(&b);
    ZBT_OK_CTX(zb_table_config_summary(&b, &ctx, tc, "db.nope"), &ctx);
    ZBT_CONTAINS(b.ptr, "\ntable db.nope (not listed: defaults)\n");
    ZBT_CONTAINS(b.ptr, "  min_input_files          5  (from defaults)\n");
    ZBT_CONTAINS(b.ptr, "  expire_snapshots         enabled, "
                 "max_snapshot_age_days=7, min_snapshots_to_keep=null (table "
                 "property, else 1), max_ref_age_days=null (table property, "
                 "else never)  (from defaults)\n");
    zb_buf_free(&b);
    zb_table_config_free(tc);
}

static void test_config_table__json_errors(void)
{
    zb_table_config *tc = NULL;
    zb_ctx ctx;
    static const char *const bad[] = {
        "",
        "{\n  \"version\": 2,\n  \"warehouse\": \"w\",\n  \"defaults\": {\n",
        "{\"version\": 2, \"version\": 2, \"warehouse\": \"w\"}",
        "{\n\n  \"version\": 2,,\n}",
        "{\"version\": 2} trailing",
    };
    static const char *const want[] = {
        "tc.json:1:0: not valid JSON: ",
        "tc.json:5:0: not valid JSON: ",
        "tc.json:1:24: not valid JSON: duplicate object key",
        "tc.json:3:16: not valid JSON: ",
        "tc.json:1:",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        zb_ctx_init(&ctx);
        ZBT_RC(zb_table_config_parse(&tc, &ctx, "tc.json", bad[i],
                                     strlen(bad[i])), ZB_EUSAGE);
        ZBT_CHECK(tc == NULL);
        if (strncmp(ctx.err.msg, want[i], strlen(want[i])) != 0)
            zbt__fail(__FILE__, __LINE__, "case %zu: \"%s\" does not start "
                      "with \"%s\"", i, ctx.err.msg, want[i]);
    }
}

static int parse_fn(zb_ctx *ctx, const char *name, const char *text,
                    size_t len)
{
    zb_table_config *tc = NULL;
    int rc = zb_table_config_parse(&tc, ctx, name, text, len);
    if (rc == ZB_OK) {
        zb_buf b = ZB_BUF_INIT(1 << 20);
        zb_tc_effective e;
        for (size_t i = 0; i < zb_table_config_table_count(tc); i++)
            zb_table_config_effective(&e, tc, zb_table_config_table(tc, i));
        rc = zb_table_config_summary(&b, ctx, tc, NULL);
        zb_buf_free(&b);
    }
    zb_table_config_free(tc);
    return rc;
}

static void test_config_table__truncated_and_corrupt(void)
{
    ZBT_EQ_U64(cfg_torture_text(parse_fn, "tc.json", full, ZB_EUSAGE), 0);
}

static int alloc_fn(zb_ctx *ctx)
{
    return parse_fn(ctx, "tc.json", full, strlen(full));
}

static void test_config_table__alloc_failure(void)
{
    ZBT_CHECK(cfg_torture_alloc(alloc_fn) >= 10);
}

static void test_config_table__load(void)
{
    char path[512];
    zb_table_config *tc = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    snprintf(path, sizeof(path), "%s/configs/acme/table-config.json",
             zbt_tmpdir());
    ZBT_RC(zb_table_config_load(&tc, &ctx, path), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "table-config.json: no such file");
    cfg_write(path, full, 0644);
    ZBT_OK_CTX(zb_table_config_load(&tc, &ctx, path), &ctx);
    ZBT_EQ_STR(zb_table_config_name(tc), path);
    zb_table_config_free(tc);
    cfg_write(path, "{\"version\":2,\"warehouse\":\"acme\",\"defaults\":"
              "{\"min_input_files\":0}}", 0644);
    ZBT_RC(zb_table_config_load(&tc, &ctx, path), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/configs/acme/table-config.json: "
                 "defaults.min_input_files: must be >= 1 (got 0)");
}

/* max_concurrent_file_group_rewrites: given, inherited, null, absent, and
 * in the summary. */
static void test_config_table__max_concurrent(void)
{
    zb_table_config *tc = parse_ok(
        "{\"version\": 2, \"warehouse\": \"w\",\n"
        " \"defaults\": {\"max_concurrent_file_group_rewrites\": 4},\n"
        " \"namespaces\": {\"db\": {\"tables\": {\n"
        "   \"eight\": {\"max_concurrent_file_group_rewrites\": 8},\n"
        "   \"null\": {\"max_concurrent_file_group_rewrites\": null},\n"
        "   \"plain\": {}}}}}\n");
    zb_tc_effective e;
    zb_buf b;
    zb_ctx ctx;

    zb_table_config_effective(&e, tc, "db.eight");
    ZBT_EQ_INT(e.block.max_concurrent_rewrites, 8);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_MAX_CONCURRENT_REWRITES], ZB_TC_FROM_TABLE);
    zb_table_config_effective(&e, tc, "db.null");
    ZBT_EQ_INT(e.block.max_concurrent_rewrites, -1);
    zb_table_config_effective(&e, tc, "db.plain");
    ZBT_EQ_INT(e.block.max_concurrent_rewrites, 4);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_MAX_CONCURRENT_REWRITES],
               ZB_TC_FROM_DEFAULTS);
    zb_table_config_effective(&e, tc, "db.unlisted");
    ZBT_EQ_INT(e.block.max_concurrent_rewrites, 4);
    zb_ctx_init(&ctx);
    zb_buf_init(&b, 1 << 20);
    ZBT_OK_CTX(zb_table_config_summary(&b, &ctx, tc, "db.eight"), &ctx);
    ZBT_CONTAINS(zb_buf_cstr(&b), "max_concurrent_file_group_rewrites 8\n");
    zb_buf_free(&b);
    zb_table_config_free(tc);
    tc = parse_ok("{\"version\": 2, \"warehouse\": \"w\"}");
    zb_table_config_effective(&e, tc, "db.any");
    ZBT_EQ_INT(e.block.max_concurrent_rewrites, -1);
    ZBT_EQ_INT(e.origin[ZB_TC_SEC_MAX_CONCURRENT_REWRITES],
               ZB_TC_FROM_BUILTIN);
    zb_buf_init(&b, 1 << 20);
    ZBT_OK_CTX(zb_table_config_summary(&b, &ctx, tc, NULL), &ctx);
    ZBT_CONTAINS(zb_buf_cstr(&b), "max_concurrent_file_group_rewrites null "
                                  "(the threads)  (default)\n");
    zb_buf_free(&b);
    zb_table_config_free(tc);
}

const zbt_case test_config_table[] = {
    ZBT_CASE(test_config_table__every_rule_rejected),
    ZBT_CASE(test_config_table__every_rule_accepted),
    ZBT_CASE(test_config_table__every_key_parsed),
    ZBT_CASE(test_config_table__merge),
    ZBT_CASE(test_config_table__max_concurrent),
    ZBT_CASE(test_config_table__warehouse_check),
    ZBT_CASE(test_config_table__summary),
    ZBT_CASE(test_config_table__json_errors),
    ZBT_CASE(test_config_table__truncated_and_corrupt),
    ZBT_CASE(test_config_table__alloc_failure),
    ZBT_CASE(test_config_table__load),
    ZBT_END
};

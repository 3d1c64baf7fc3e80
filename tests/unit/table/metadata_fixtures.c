/*
 * Table metadata against the fixture tables of ../shared/fixtures (v1,
 * v2, v3 files written by Iceberg Java through Spark, Hive, Impala,
 * Trino, PyIceberg and Athena): every metadata file parses and writes back
 * json-equal; for each table the newest file is found and its current
 * snapshot, schema, specs and counts match values read independently with
 * Python's json module (exact 64-bit integers); and details of v1, v3 and
 * default values are checked. Skipped with a note when the fixtures are
 * missing.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "table/metadata/metadata.h"
#include "util/alloc.h"
#include "zbtest.h"

typedef struct expect {
    const char *dir;
    const char *latest;
    int version;
    long long current;
    size_t n_snapshots;
    int schema_id;
    size_t n_fields;
    const char *first_field;
    const char *last_field;
    size_t n_specs;
    int spec_id;
    size_t n_spec_fields;
    const char *first_transform;
    const char *operation;
    const char *manifest_list;
    size_t n_refs;
    size_t n_snapshot_log;
} expect;

static const expect tables[] = {
    { "duckdb-eq-deletes", "v7.metadata.json", 2, 1916084761853986166LL, 6, 0, 3, "id", "bir", 1, 0, 0, NULL, "delete", "data/persistent/equality_deletes/warehouse/mydb/mytable/metadata/snap-1916084761853986166-1-61648895-78fc-44d6-bf55-298a7614c4f8.avro", 1, 8 },
    { "duckdb-eq-deletes-partitioned", "v6.metadata.json", 2, 3138177759849079112LL, 5, 0, 3, "id", "bir", 1, 0, 1, "identity", "delete", "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned/metadata/snap-3138177759849079112-1-ff275eec-b23b-435f-a6a5-1ab7ce1c8749.avro", 1, 5 },
    { "duckdb-hive-part-evolution", "v4.metadata.json", 2, 5128628767169163501LL, 2, 0, 3, "event_date", "event_type", 2, 1, 2, "identity", "append", "data/persistent/hive_partitioned_table/metadata/snap-5128628767169163501-1-fee93099-6425-4d83-bd7c-0aa646533090.avro", 1, 2 },
    { "duckdb-lineitem", "v2.metadata.json", 2, 2354745328521181395LL, 2, 0, 16, "l_orderkey", "l_comment", 1, 0, 0, NULL, "overwrite", "lineitem_iceberg/metadata/snap-2354745328521181395-1-179b4fb1-0366-4f7d-ad35-99ee8da0abf5.avro", 1, 2 },
    { "duckdb-name-mapping", "v7.metadata.json", 1, 2651609110244230974LL, 2, 2, 2, "a", "b", 1, 0, 0, NULL, "replace", "data/persistent/name_mapping/warehouse_1/mydb/t1/metadata/snap-2651609110244230974-1-0acbcf27-b372-4bd0-929f-a5865a59f3dd.avro", 1, 2 },
    { "duckdb-pyiceberg-defaults", "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json", 2, 1915606074736806848LL, 2, 1, 15, "col1", "col_binary", 1, 0, 0, NULL, "append", "data/persistent/add_columns_with_defaults/default.db/add_columns_with_defaults/metadata/snap-1915606074736806848-0-f1823874-113e-405c-b412-f75145620823.avro", 1, 2 },
    { "icebird-athena-example", "00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json", 2, 6838723292707092922LL, 1, 0, 2, "id", "name", 1, 0, 0, NULL, "append", "s3://hyperparam-iceberg/athena/example/metadata/snap-6838723292707092922-1-3d82674b-df1e-49b5-a7a9-05b61567065a.avro", 1, 1 },
    { "icebird-java-bunnies", "v5.metadata.json", 2, 9158179788527662767LL, 3, 1, 9, "Breed Name", "__happy__", 1, 0, 0, NULL, "overwrite", "s3a://hyperparam-iceberg/java/bunnies/metadata/snap-9158179788527662767-1-a01399a1-e864-4562-b921-c8cb56e6e4a9.avro", 1, 3 },
    { "icebird-spark-bunnies", "v5.metadata.json", 2, 2701171901096418979LL, 3, 1, 9, "Breed Name", "breed_name_length", 1, 0, 0, NULL, "overwrite", "s3a://hyperparam-iceberg/spark/bunnies/metadata/snap-2701171901096418979-1-91d5eea0-314d-4056-8818-59b825cbd38a.avro", 1, 3 },
    { "icebird-spark-rename-column", "v3.metadata.json", 2, 5276958600260276572LL, 1, 1, 5, "id", "active", 1, 0, 2, "bucket[4]", "append", "s3a://hyperparam-iceberg/spark/rename_column/metadata/snap-5276958600260276572-1-abf62b15-903b-40b6-9e6b-26bcdceac9b3.avro", 1, 1 },
    { "impala-lineitem-multiblock", "v3.metadata.json", 2, 4821756033809199889LL, 2, 0, 16, "l_orderkey", "l_comment", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_lineitem_multiblock/metadata/snap-4821756033809199889-1-e6680781-452a-41d3-a149-0136fa868069.avro", 1, 2 },
    { "impala-multi-location/iceberg_multiple_storage_locations", "v6.metadata.json", 1, 7684033746298894981LL, 3, 0, 7, "col_int", "col_date", 1, 0, 1, "identity", "append", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_multiple_storage_locations/metadata/snap-7684033746298894981-1-42056022-e2d2-4548-9376-8993109c2ace.avro", 1, 3 },
    { "impala-spark-compaction-dangling", "v5.metadata.json", 2, 5278394901353853232LL, 4, 0, 2, "id", "j", 1, 0, 0, NULL, "replace", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_spark_compaction_with_dangling_delete/metadata/snap-5278394901353853232-1-aa501eb1-924a-4460-a2a0-ad577de8aef5.avro", 1, 4 },
    { "impala-v1-alltypes-part", "v2.metadata.json", 1, 6167994413873848621LL, 1, 0, 9, "i", "p_string", 1, 0, 8, "identity", "append", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_alltypes_part/metadata/snap-6167994413873848621-1-283c54cb-5a45-4a2c-bca8-4bfa0e61cdbd.avro", 1, 1 },
    { "impala-v1-non-partitioned", "v2.metadata.json", 1, 93996984692289973LL, 1, 0, 4, "id", "event_time", 1, 0, 0, NULL, "append", "/test-warehouse/iceberg_test/iceberg_non_partitioned/metadata/snap-93996984692289973-1-9b8c72ab-43b9-42fb-a5e9-1dcfa1801a21.avro", 1, 1 },
    { "impala-v1-partitioned", "v2.metadata.json", 1, 8270633197658268308LL, 1, 0, 4, "id", "event_time", 1, 0, 2, "hour", "append", "/test-warehouse/iceberg_test/iceberg_partitioned/metadata/snap-8270633197658268308-1-af797bab-2f2c-44df-a77b-d91c7198fe53.avro", 1, 1 },
    { "impala-v2-eq-and-pos", "v4.metadata.json", 2, 911559291487642581LL, 3, 0, 3, "i", "d", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_both_eq_and_pos/metadata/snap-911559291487642581-1-bb4b8c07-84e1-421a-bb6c-594f297d118e.avro", 1, 3 },
    { "impala-v2-eq-delete", "v4.metadata.json", 2, 5763349507283783091LL, 3, 0, 2, "id", "data", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_equality/metadata/snap-5763349507283783091-3-490632c7-54bf-4362-97e7-b75ab18da9ac.avro", 1, 3 },
    { "impala-v2-eq-multi-ids", "v5.metadata.json", 2, 4077234998626563290LL, 4, 0, 2, "i", "s", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_equality_multi_eq_ids/metadata/snap-4077234998626563290-1-58a6295d-0076-4e3e-ac77-84ce48c406cf.avro", 1, 4 },
    { "impala-v2-eq-nulls", "v4.metadata.json", 2, 4301391241829251636LL, 3, 0, 2, "i", "s", 1, 0, 0, NULL, "append", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_equality_nulls/metadata/snap-4301391241829251636-1-25ce5480-23b6-4c70-a724-63931f8d84c6.avro", 1, 3 },
    { "impala-v2-eq-part-evolution", "v4.metadata.json", 2, 586812101365618837LL, 2, 0, 3, "i", "d", 2, 1, 2, "identity", "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_equality_partition_evolution/metadata/snap-586812101365618837-1-807d7d2a-0557-4bbe-9f07-9467de72598a.avro", 1, 2 },
    { "impala-v2-eq-partitioned", "v5.metadata.json", 2, 4821964189199835313LL, 4, 0, 3, "i", "d", 1, 0, 1, "identity", "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_equality_partitioned/metadata/snap-4821964189199835313-1-e3dac70e-a8aa-4d15-9d35-20c4f25f36d5.avro", 1, 4 },
    { "impala-v2-eq-schema-evolution", "v6.metadata.json", 2, 5816823095034839884LL, 3, 2, 4, "i", "j", 1, 0, 1, "identity", "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_equality_delete_schema_evolution/metadata/snap-5816823095034839884-1-fb7a4022-ee0a-4540-87d8-b8fa8e4c8596.avro", 1, 3 },
    { "impala-v2-null-delete-record", "v1.metadata.json", 2, 5852039568708655222LL, 1, 0, 2, "i", "j", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_null_delete_record/metadata/snap-5852039568708655222-1-3a813d5e-fc0b-485f-bbba-010972a9f20a.avro", 1, 2 },
    { "impala-v2-pos-and-multi-eq", "v5.metadata.json", 2, 152862018760071153LL, 4, 0, 3, "i", "d", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_pos_and_multi_eq_ids/metadata/snap-152862018760071153-1-c0500e2e-00c0-48fb-9c29-31bbafc91d57.avro", 1, 4 },
    { "impala-v2-pos-delete", "v2.metadata.json", 2, 5725822353600261755LL, 2, 0, 2, "id", "data", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_positional/metadata/snap-5725822353600261755-1-0eadf173-0c84-4378-a9d0-5d7f47183978.avro", 1, 2 },
    { "impala-v2-pos-delete-all", "v3.metadata.json", 2, 444149380144800647LL, 2, 0, 2, "i", "s", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_positional_delete_all_rows/metadata/snap-444149380144800647-1-816400dd-012d-40c5-ab65-bc16ff18d2d7.avro", 1, 2 },
    { "impala-v2-pos-partitioned", "v3.metadata.json", 2, 8885697082976537578LL, 2, 0, 4, "id", "event_time", 1, 0, 1, "identity", "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_partitioned_position_deletes/metadata/snap-8885697082976537578-1-464c179e-c9ba-40f5-a35f-144106a1f16c.avro", 1, 2 },
    { "impala-v2-pos-some-files", "v7.metadata.json", 2, 1497619269847778439LL, 6, 0, 2, "i", "s", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_positional_not_all_data_files_have_delete_files/metadata/snap-1497619269847778439-1-ea749da1-7b98-4dca-a4eb-f7d5d62f9dde.avro", 1, 6 },
    { "impala-v2-pos-update-all", "v4.metadata.json", 2, 3877007445826010687LL, 3, 0, 2, "i", "s", 1, 0, 0, NULL, "overwrite", "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_positional_update_all_rows/metadata/snap-3877007445826010687-2-da27d446-94df-4850-85dd-c8edcda7685e.avro", 1, 3 },
    { "impala-v3-all-types", "v4.metadata.json", 3, 4685659321801244000LL, 2, 1, 13, "id", "col_timestamp_iso", 1, 0, 0, NULL, "append", "hdfs://localhost:20500/test-warehouse/iceberg_v3_all_types/metadata/snap-4685659321801244137-1-ee2a974f-f16a-4796-8f47-adfdca33dd35.avro", 1, 2 },
    { "impala-v3-default-part", "v6.metadata.json", 3, 5788798547140820000LL, 3, 1, 2, "i", "j", 2, 1, 1, "identity", "append", "hdfs://localhost:20500/test-warehouse/test_default_part/metadata/snap-5788798547140819570-1-72aaa146-43b8-4166-afa1-03669e13753a.avro", 1, 3 },
    { "impala-v3-deletion-vectors", "v3.metadata.json", 3, 3685752423136077685LL, 2, 0, 1, "i", "i", 1, 0, 0, NULL, "delete", "hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors/metadata/snap-3685752423136077685-1-e9787b6c-e745-4040-b78f-e4012aa178ab.avro", 1, 2 },
    { "impala-v3-row-lineage", "v5.metadata.json", 3, 5398841822738664432LL, 4, 0, 1, "i", "i", 1, 0, 0, NULL, "replace", "hdfs://localhost:20500/test-warehouse/iceberg_v3_row_lineage/metadata/snap-5398841822738664432-1-7411e291-ddc0-4c54-9e25-75ef7878df0d.avro", 1, 4 },
    { "impala-v3-trino-variant", "v2.metadata.json", 3, 6097489456815673000LL, 2, 0, 3, "id", "v", 1, 0, 0, NULL, "append", "/test-warehouse/trino_variant/metadata/snap-6097489456815673056-1-a874fc23-2c2c-42b5-9fc0-f72919a7449d.avro", 1, 2 },
};

#define N_TABLES (sizeof tables / sizeof tables[0])
#define N_METADATA_FILES 145

static int have_fixtures(void)
{
    struct stat st;

    if (stat(ZB_FIXTURES_DIR "/README.md", &st) != 0) {
        printf("  (skipped: no fixtures at %s)\n", ZB_FIXTURES_DIR);
        return 0;
    }
    return 1;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data;
    long n;

    ZBT_CHECK(f != NULL);
    ZBT_CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0);
    rewind(f);
    data = malloc((size_t)n + 1);
    ZBT_CHECK(data != NULL && fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    data[n] = '\0';
    *len = (size_t)n;
    return data;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);

    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Parse, write, compare the written JSON with the file's; returns 1. */
static int round_trip(const char *path)
{
    ice_metadata *m = NULL, *again = NULL;
    zb_buf out = ZB_BUF_INIT((size_t)1 << 30);
    json_t *orig, *written;
    json_error_t jerr;
    zb_ctx ctx;
    size_t len;
    char *text = read_file(path, &len);

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_parse(&m, &ctx, text, len, path), &ctx);
    ZBT_OK_CTX(ice_metadata_write(&out, m, &ctx), &ctx);
    orig = json_loadb(text, len, 0, &jerr);
    written = json_loadb(out.ptr, out.len, 0, &jerr);
    ZBT_CHECK(orig != NULL && written != NULL);
    if (!json_equal(orig, written))
        printf("  not equal after write: %s\n", path);
    ZBT_CHECK(json_equal(orig, written));
    ZBT_OK_CTX(ice_metadata_parse(&again, &ctx, out.ptr, out.len, path),
               &ctx);
    ZBT_EQ_INT(again->n_snapshots, m->n_snapshots);
    ZBT_EQ_INT(again->current_snapshot_id, m->current_snapshot_id);
    json_decref(orig);
    json_decref(written);
    ice_metadata_free(m);
    ice_metadata_free(again);
    zb_buf_free(&out);
    free(text);
    return 1;
}

/* Every *.metadata.json under dir/metadata, at depth one or two. */
static size_t walk(const char *dir, int depth)
{
    char path[4096];
    struct dirent *de;
    DIR *d = opendir(dir);
    size_t n = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        struct stat st;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (strcmp(de->d_name, "metadata") == 0)
                n += walk(path, 99);
            else if (depth < 2)
                n += walk(path, depth + 1);
        } else if (depth == 99 && ends_with(de->d_name, ".metadata.json")) {
            n += (size_t)round_trip(path);
        }
    }
    closedir(d);
    return n;
}

static void test_table_metadata_fixtures__every_file_parses_and_round_trips(void)
{
    size_t n;

    if (!have_fixtures())
        return;
    n = walk(ZB_FIXTURES_DIR, 0);
    printf("  %zu metadata files parsed, written and compared\n", n);
    ZBT_EQ_INT(n, N_METADATA_FILES);
}

static void check_table(const expect *e)
{
    char dir[1024];
    const char *base;
    char *uri = NULL;
    ice_metadata *m = NULL;
    const ice_snapshot *cur;
    const ice_schema *s;
    const ice_partition_spec *spec;
    const ice_ref *main_ref;
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    snprintf(dir, sizeof dir, "%s/%s", ZB_FIXTURES_DIR, e->dir);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(ice_metadata_find_latest(&uri, io, &ctx, dir), &ctx);
    base = strrchr(uri, '/') + 1;
    ZBT_EQ_STR(base, e->latest);
    ZBT_OK_CTX(ice_metadata_load(&m, io, &ctx, uri), &ctx);
    ZBT_EQ_INT(m->format_version, e->version);
    ZBT_EQ_INT(m->current_snapshot_id, e->current);
    ZBT_EQ_INT(m->n_snapshots, e->n_snapshots);
    ZBT_EQ_INT(m->n_snapshot_log, e->n_snapshot_log);
    ZBT_EQ_INT(m->current_schema_id, e->schema_id);
    s = ice_metadata_current_schema(m);
    ZBT_CHECK(s != NULL && s->root->id == ICE_STRUCT);
    ZBT_EQ_INT(s->root->n_fields, e->n_fields);
    ZBT_EQ_STR(s->root->fields[0].name, e->first_field);
    ZBT_EQ_STR(s->root->fields[e->n_fields - 1].name, e->last_field);
    ZBT_CHECK(ice_schema_find_field(s, s->root->fields[0].id) ==
              &s->root->fields[0]);
    ZBT_EQ_INT(m->n_specs, e->n_specs);
    ZBT_EQ_INT(m->default_spec_id, e->spec_id);
    spec = ice_metadata_default_spec(m);
    ZBT_CHECK(spec != NULL);
    ZBT_EQ_INT(spec->n_fields, e->n_spec_fields);
    if (e->first_transform)
        ZBT_EQ_STR(spec->fields[0].transform, e->first_transform);
    ZBT_EQ_INT(m->n_refs, e->n_refs);
    cur = ice_metadata_current_snapshot(m);
    if (e->current == -1) {
        ZBT_CHECK(cur == NULL);
    } else {
        ZBT_CHECK(cur != NULL);
        ZBT_EQ_INT(cur->snapshot_id, e->current);
        ZBT_EQ_STR(cur->operation, e->operation);
        ZBT_EQ_STR(cur->manifest_list, e->manifest_list);
        main_ref = ice_metadata_ref(m, "main");
        ZBT_CHECK(main_ref != NULL && main_ref->type == ICE_REF_BRANCH);
        ZBT_EQ_INT(main_ref->snapshot_id, e->current);
        ZBT_CHECK(ice_metadata_ancestors(NULL, 0, m, e->current) >= 1);
    }
    ice_metadata_free(m);
    zb_free(uri);
    zb_io_free(io);
}

static void test_table_metadata_fixtures__latest_of_each_table(void)
{
    size_t i;

    if (!have_fixtures())
        return;
    ZBT_EQ_INT(N_TABLES, 35);
    for (i = 0; i < N_TABLES; i++)
        check_table(&tables[i]);
}

static ice_metadata *load(const char *rel)
{
    char path[1024];
    ice_metadata *m = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    snprintf(path, sizeof path, "%s/%s", ZB_FIXTURES_DIR, rel);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(ice_metadata_load(&m, io, &ctx, path), &ctx);
    zb_io_free(io);
    return m;
}

static void test_table_metadata_fixtures__v3_row_lineage(void)
{
    const ice_snapshot *chain[8];
    ice_metadata *m;

    if (!have_fixtures())
        return;
    m = load("impala-v3-row-lineage/metadata/v5.metadata.json");
    ZBT_EQ_INT(m->format_version, 3);
    ZBT_CHECK(m->has_next_row_id);
    ZBT_EQ_INT(m->next_row_id, 6);
    ZBT_EQ_INT(m->last_sequence_number, 4);
    ZBT_EQ_INT(ice_metadata_ancestors(chain, 8, m, 5398841822738664432LL), 4);
    ZBT_EQ_INT(chain[0]->first_row_id, 3);
    ZBT_EQ_INT(chain[0]->added_rows, 3);
    ZBT_EQ_INT(chain[0]->sequence_number, 4);
    ZBT_EQ_INT(chain[1]->snapshot_id, 2872597867664652808LL);
    ZBT_EQ_INT(chain[3]->snapshot_id, 8059325670730066324LL);
    ZBT_EQ_INT(chain[3]->parent_snapshot_id, ICE_NO_SNAPSHOT);
    ZBT_CHECK(chain[3]->has_first_row_id && chain[3]->first_row_id == 0);
    ZBT_EQ_INT(m->n_statistics, 0);
    ice_metadata_free(m);

    /* v1 of the same table: no snapshot yet, "current-snapshot-id": null. */
    m = load("impala-v3-row-lineage/metadata/v1.metadata.json");
    ZBT_EQ_INT(m->current_snapshot_id, ICE_NO_SNAPSHOT);
    ZBT_CHECK(ice_metadata_current_snapshot(m) == NULL);
    ZBT_CHECK(ice_metadata_ref(m, "main") == NULL);
    ice_metadata_free(m);
}

static void test_table_metadata_fixtures__v3_types_and_statistics(void)
{
    const ice_schema *s;
    const ice_type *t;
    ice_metadata *m;

    if (!have_fixtures())
        return;
    m = load("impala-v3-all-types/metadata/v4.metadata.json");
    ZBT_EQ_INT(m->n_schemas, 2);
    s = ice_metadata_current_schema(m);
    ZBT_EQ_INT(s->schema_id, 1);
    t = ice_schema_find_type(s, 7);
    ZBT_CHECK(t != NULL && t->id == ICE_DECIMAL);
    ZBT_EQ_INT(t->prim.precision, 10);
    ZBT_EQ_INT(t->prim.scale, 2);
    ZBT_EQ_STR(t->text, "decimal(10, 2)");
    ZBT_EQ_INT(ice_schema_find_type(s, 4)->id, ICE_LONG);
    ZBT_EQ_INT(ice_schema_find_type(s, 11)->id, ICE_BINARY);
    ZBT_EQ_STR(ice_schema_find_field(s, 13)->name, "col_timestamp_iso");
    ZBT_CHECK(ice_schema_find_field(s, 14) == NULL);
    /* The upstream file stores rounded ids; they are read as written. */
    ZBT_EQ_INT(m->current_snapshot_id, 4685659321801244000LL);
    ice_metadata_free(m);

    m = load("impala-v3-trino-variant/metadata/v2.metadata.json");
    ZBT_EQ_INT(m->n_statistics, 1);
    ZBT_EQ_INT(m->statistics[0].file_size_in_bytes, 1389);
    ZBT_EQ_INT(m->statistics[0].file_footer_size_in_bytes, 445);
    ZBT_EQ_INT(m->statistics[0].n_blobs, 2);
    ZBT_EQ_STR(m->statistics[0].blobs[1].type, "apache-datasketches-theta-v1");
    ZBT_EQ_INT(m->statistics[0].blobs[1].fields[0], 2);
    ZBT_EQ_INT(ice_schema_find_type(ice_metadata_current_schema(m), 3)->id,
               ICE_VARIANT);
    ice_metadata_free(m);
}

static void test_table_metadata_fixtures__default_values(void)
{
    const ice_schema *s;
    ice_metadata *m;

    if (!have_fixtures())
        return;
    m = load("duckdb-pyiceberg-defaults/metadata/"
             "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json");
    s = ice_metadata_current_schema(m);
    ZBT_CHECK(ice_schema_find_field(s, 1)->initial_default == NULL);
    ZBT_EQ_STR(ice_schema_find_field(s, 2)->initial_default, "true");
    ZBT_EQ_STR(ice_schema_find_field(s, 4)->write_default,
               "-9223372036854775808");
    ZBT_EQ_STR(ice_schema_find_field(s, 7)->initial_default, "\"12345.00\"");
    ZBT_EQ_INT(ice_schema_find_type(s, 14)->id, ICE_FIXED);
    ZBT_EQ_INT(ice_schema_find_type(s, 14)->prim.length, 5);
    ZBT_EQ_INT(ice_schema_find_type(s, 7)->prim.precision, 16);
    ice_metadata_free(m);

    m = load("impala-v3-default-part/metadata/v6.metadata.json");
    s = ice_metadata_current_schema(m);
    ZBT_EQ_STR(ice_schema_find_field(s, 2)->initial_default, "-1");
    ZBT_EQ_STR(ice_schema_find_field(s, 2)->write_default, "-999");
    ZBT_EQ_INT(ice_metadata_spec(m, 0)->n_fields, 0);
    ZBT_EQ_INT(ice_metadata_default_spec(m)->fields[0].field_id, 1000);
    ice_metadata_free(m);
}

static void test_table_metadata_fixtures__v1_and_identifiers(void)
{
    const ice_partition_spec *spec;
    const ice_snapshot *chain[8];
    ice_metadata *m;

    if (!have_fixtures())
        return;
    m = load("impala-v1-partitioned/metadata/v2.metadata.json");
    ZBT_EQ_INT(m->format_version, 1);
    ZBT_EQ_INT(m->n_schemas, 1);
    ZBT_EQ_INT(m->last_sequence_number, 0);
    ZBT_EQ_INT(m->snapshots[0].sequence_number, 0);
    ZBT_EQ_INT(m->n_sort_orders, 1);          /* unsorted, implied */
    ZBT_EQ_INT(m->sort_orders[0].n_fields, 0);
    ZBT_EQ_INT(m->last_partition_id, 1001);   /* from the field ids */
    spec = ice_metadata_default_spec(m);
    ZBT_EQ_STR(spec->fields[0].name, "event_time_hour");
    ZBT_EQ_INT(spec->fields[1].source_id, 3);
    ZBT_EQ_INT(spec->fields[1].field_id, 1001);
    ZBT_CHECK(ice_metadata_ref(m, "main")->implicit);
    ice_metadata_free(m);

    m = load("impala-v2-pos-some-files/metadata/v7.metadata.json");
    ZBT_EQ_INT(ice_metadata_ancestors(chain, 8, m, 1497619269847778439LL), 6);
    ZBT_EQ_INT(chain[5]->snapshot_id, 4363979609026842966LL);
    ZBT_EQ_INT(ice_metadata_ancestors(NULL, 0, m, 7508485421322116327LL), 3);
    ZBT_EQ_INT(ice_metadata_ancestors(NULL, 0, m, 42), 0);
    ice_metadata_free(m);

    m = load("impala-v2-pos-and-multi-eq/metadata/v5.metadata.json");
    ZBT_EQ_INT(ice_metadata_current_schema(m)->n_identifier_field_ids, 2);
    ZBT_EQ_INT(ice_metadata_current_schema(m)->identifier_field_ids[0], 3);
    ice_metadata_free(m);
}

const zbt_case test_table_metadata_fixtures[] = {
    ZBT_CASE(test_table_metadata_fixtures__every_file_parses_and_round_trips),
    ZBT_CASE(test_table_metadata_fixtures__latest_of_each_table),
    ZBT_CASE(test_table_metadata_fixtures__v3_row_lineage),
    ZBT_CASE(test_table_metadata_fixtures__v3_types_and_statistics),
    ZBT_CASE(test_table_metadata_fixtures__default_values),
    ZBT_CASE(test_table_metadata_fixtures__v1_and_identifiers),
    ZBT_END
};

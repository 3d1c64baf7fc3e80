/*
 * Table metadata changes: the setters (each changes exactly the keys it
 * should, checked by making the same edit to the original document with
 * jansson and comparing), refused changes that leave the metadata as it
 * was, allocation-failure torture of parse + setters + write, and
 * finding the newest metadata file of a folder.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>

#include "metadata_test.h"
#include "util/alloc.h"
#include "zbtest.h"

/* ---- setters ---------------------------------------------------------- */

static void test_table_metadata_update__properties(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v2, &ctx);
    json_t *want = mt_loads(mt_v2), *props = json_object_get(want, "properties");

    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx, "owner", "ops"), &ctx);
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx, "write.target-file-size-"
                                         "bytes", "536870912"), &ctx);
    ZBT_OK_CTX(ice_metadata_remove_property(m, &ctx, "write.format.default"),
               &ctx);
    ZBT_OK_CTX(ice_metadata_remove_property(m, &ctx, "absent"), &ctx);
    ZBT_EQ_STR(ice_metadata_property(m, "owner"), "ops");
    ZBT_EQ_STR(ice_metadata_property(m, "write.target-file-size-bytes"),
               "536870912");
    ZBT_CHECK(ice_metadata_property(m, "write.format.default") == NULL);
    ZBT_EQ_INT(m->n_properties, 2);
    json_object_set_new(props, "owner", json_string("ops"));
    json_object_set_new(props, "write.target-file-size-bytes",
                        json_string("536870912"));
    json_object_del(props, "write.format.default");
    mt_check_equal(want, mt_written(m));
    ZBT_RC(ice_metadata_set_property(m, &ctx, "k", "\xff\xfe"), ZB_EINVAL);
    ice_metadata_free(m);

    /* v1 without "properties": the object is created. */
    m = mt_parse(mt_v1, &ctx);
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx, "a", "b"), &ctx);
    want = mt_loads(mt_v1);
    json_object_set_new(want, "properties", json_pack("{ss}", "a", "b"));
    mt_check_equal(want, mt_written(m));
    ice_metadata_free(m);
}

static void test_table_metadata_update__add_snapshot_v2(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v2, &ctx);
    const ice_kv extra[] = { { "added-data-files", "3" },
                             { "operation", "ignored" } };
    ice_snapshot_new s = { 0 };
    json_t *want = mt_loads(mt_v2);
    const ice_snapshot *cur;

    s.snapshot_id = 4242424242424242424LL;
    s.parent_snapshot_id = INT64_MAX;
    s.sequence_number = 3;
    s.timestamp_ms = 1700000000100LL;
    s.manifest_list = "s3://bucket/wh/t/metadata/snap-3.avro";
    s.operation = "replace";
    s.summary = extra;
    s.n_summary = 2;
    s.schema_id = -1;
    ZBT_OK_CTX(ice_metadata_add_snapshot(m, &ctx, &s), &ctx);
    cur = ice_metadata_current_snapshot(m);
    ZBT_EQ_INT(cur->snapshot_id, s.snapshot_id);
    ZBT_EQ_STR(cur->operation, "replace");
    ZBT_EQ_INT(cur->n_summary, 2);
    ZBT_EQ_INT(cur->schema_id, 1);
    ZBT_EQ_INT(m->last_sequence_number, 3);
    ZBT_EQ_INT(m->last_updated_ms, 1700000000100LL);
    ZBT_EQ_INT(m->n_snapshots, 3);
    ZBT_EQ_INT(m->n_snapshot_log, 3);
    ZBT_EQ_INT(m->snapshot_log[2].snapshot_id, s.snapshot_id);
    ZBT_EQ_INT(ice_metadata_ref(m, "main")->snapshot_id, s.snapshot_id);
    ZBT_EQ_INT(ice_metadata_ref(m, "main")->max_snapshot_age_ms, 86400000);
    ZBT_EQ_INT(ice_metadata_ancestors(NULL, 0, m, s.snapshot_id), 3);

    json_array_append_new(json_object_get(want, "snapshots"), json_pack(
        "{sI sI sI sI s{ssss} ss si}", "sequence-number", (json_int_t)3,
        "snapshot-id", (json_int_t)s.snapshot_id, "parent-snapshot-id",
        (json_int_t)INT64_MAX, "timestamp-ms", (json_int_t)s.timestamp_ms,
        "summary", "operation", "replace", "added-data-files", "3",
        "manifest-list", s.manifest_list, "schema-id", 1));
    json_object_set_new(want, "last-sequence-number", json_integer(3));
    json_object_set_new(want, "last-updated-ms",
                        json_integer(s.timestamp_ms));
    json_object_set_new(want, "current-snapshot-id",
                        json_integer(s.snapshot_id));
    json_object_set_new(json_object_get(json_object_get(want, "refs"),
                                        "main"),
                        "snapshot-id", json_integer(s.snapshot_id));
    json_array_append_new(json_object_get(want, "snapshot-log"), json_pack(
        "{sIsI}", "timestamp-ms", (json_int_t)s.timestamp_ms, "snapshot-id",
        (json_int_t)s.snapshot_id));
    mt_check_equal(want, mt_written(m));

    /* Refused: a taken id, a sequence number not above the last. */
    want = mt_written(m);
    ZBT_RC(ice_metadata_add_snapshot(m, &ctx, &s), ZB_EINVAL);
    s.snapshot_id = 5;
    ZBT_RC(ice_metadata_add_snapshot(m, &ctx, &s), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "not above last-sequence-number 3");
    s.sequence_number = 4;
    s.schema_id = 9;
    ZBT_RC(ice_metadata_add_snapshot(m, &ctx, &s), ZB_EINVAL);
    mt_check_equal(want, mt_written(m));

    /* Another branch: refs only, the current snapshot stays. */
    s.schema_id = 0;
    s.branch = "audit";
    ZBT_OK_CTX(ice_metadata_add_snapshot(m, &ctx, &s), &ctx);
    ZBT_EQ_INT(m->current_snapshot_id, 4242424242424242424LL);
    ZBT_EQ_INT(ice_metadata_ref(m, "audit")->snapshot_id, 5);
    ZBT_EQ_INT(ice_metadata_ref(m, "audit")->type, ICE_REF_BRANCH);
    ZBT_EQ_INT(m->n_snapshot_log, 3);
    /* A tag cannot take a commit. */
    s.snapshot_id = 6;
    s.sequence_number = 5;
    s.branch = "v1";
    ZBT_RC(ice_metadata_add_snapshot(m, &ctx, &s), ZB_EINVAL);
    ice_metadata_free(m);
}

static void test_table_metadata_update__add_snapshot_v1_and_v3(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v1, &ctx);
    ice_snapshot_new s = { 0 };
    json_t *doc;

    s.snapshot_id = 10;
    s.parent_snapshot_id = ICE_NO_SNAPSHOT;
    s.timestamp_ms = 50;
    s.manifest_list = "/w/t/metadata/snap-10.avro";
    s.operation = "append";
    s.schema_id = -1;
    ZBT_OK_CTX(ice_metadata_add_snapshot(m, &ctx, &s), &ctx);
    ZBT_EQ_INT(m->current_snapshot_id, 10);
    ZBT_EQ_INT(m->last_sequence_number, 0);
    doc = mt_written(m);
    /* v1 writes no sequence numbers. */
    ZBT_CHECK(json_object_get(doc, "last-sequence-number") == NULL);
    ZBT_CHECK(json_object_get(json_array_get(json_object_get(doc,
                                                             "snapshots"), 1),
                              "sequence-number") == NULL);
    json_decref(doc);
    ice_metadata_free(m);

    m = mt_parse(mt_v3, &ctx);
    s.sequence_number = 1;
    s.first_row_id = -1;
    s.added_rows = 25;
    ZBT_OK_CTX(ice_metadata_add_snapshot(m, &ctx, &s), &ctx);
    ZBT_EQ_INT(m->snapshots[0].first_row_id, 100);
    ZBT_EQ_INT(m->snapshots[0].added_rows, 25);
    ZBT_EQ_INT(m->next_row_id, 125);
    ZBT_EQ_INT(m->last_sequence_number, 1);
    s.snapshot_id = 11;
    s.sequence_number = 2;
    s.first_row_id = 124;
    ZBT_RC(ice_metadata_add_snapshot(m, &ctx, &s), ZB_EINVAL);
    ZBT_EQ_INT(m->next_row_id, 125);
    ice_metadata_free(m);
}

static void test_table_metadata_update__refs_and_logs(void)
{
    zb_ctx ctx;
    ice_metadata *m = mt_parse(mt_v2, &ctx);
    ice_ref r = { "keep", ICE_REF_TAG, 1111111111111111111LL, -1, -1, 9, 0 };
    json_t *want = mt_loads(mt_v2), *log;
    size_t i;

    ZBT_OK_CTX(ice_metadata_set_ref(m, &ctx, &r), &ctx);
    ZBT_EQ_INT(ice_metadata_ref(m, "keep")->max_ref_age_ms, 9);
    json_object_set_new(json_object_get(want, "refs"), "keep", json_pack(
        "{sIsssI}", "snapshot-id", (json_int_t)r.snapshot_id, "type", "tag",
        "max-ref-age-ms", (json_int_t)9));
    ZBT_OK_CTX(ice_metadata_remove_ref(m, &ctx, "v1"), &ctx);
    ZBT_CHECK(ice_metadata_ref(m, "v1") == NULL);
    json_object_del(json_object_get(want, "refs"), "v1");
    ZBT_RC(ice_metadata_remove_ref(m, &ctx, "main"), ZB_EINVAL);
    r.snapshot_id = 77;
    ZBT_RC(ice_metadata_set_ref(m, &ctx, &r), ZB_EINVAL);
    mt_check_equal(want, mt_written(m));

    /* Rolling main back moves the current snapshot and logs it. */
    r.name = "main";
    r.type = ICE_REF_BRANCH;
    r.snapshot_id = 1111111111111111111LL;
    r.max_ref_age_ms = -1;
    ZBT_OK_CTX(ice_metadata_set_ref(m, &ctx, &r), &ctx);
    ZBT_EQ_INT(m->current_snapshot_id, 1111111111111111111LL);
    ZBT_EQ_INT(m->n_snapshot_log, 3);
    ZBT_EQ_INT(m->snapshot_log[2].timestamp_ms, m->last_updated_ms);
    ZBT_EQ_INT(ice_metadata_ref(m, "main")->max_snapshot_age_ms, -1);

    for (i = 0; i < 5; i++) {
        char name[32];

        snprintf(name, sizeof name, "/m/%zu.metadata.json", i);
        ZBT_OK_CTX(ice_metadata_append_metadata_log(m, &ctx, name,
                                                    (int64_t)i, 3), &ctx);
    }
    ZBT_EQ_INT(m->n_metadata_log, 3);
    ZBT_EQ_STR(m->metadata_log[0].metadata_file, "/m/2.metadata.json");
    ZBT_EQ_STR(m->metadata_log[2].metadata_file, "/m/4.metadata.json");
    want = mt_written(m);
    log = json_object_get(want, "metadata-log");
    ZBT_EQ_INT(json_array_size(log), 3);
    ZBT_EQ_INT(json_integer_value(json_object_get(json_array_get(log, 2),
                                                  "timestamp-ms")), 4);
    json_decref(want);
    ZBT_OK_CTX(ice_metadata_set_last_updated_ms(m, &ctx, 123), &ctx);
    ZBT_EQ_INT(m->last_updated_ms, 123);
    ice_metadata_free(m);
}

/* ---- allocation failures --------------------------------------------- */

/*
 * jansson's allocations go through these (metadata_main.c installs them).
 * They have their own fault counter: jansson 2.14 crashes on some
 * allocation failures inside json_loadb, so the torture fails jansson's
 * allocations only after parsing, in the setters and the writer, where
 * the calling code is ours.
 */
static long json_live;
static uint64_t json_count, json_fail_at;

void *test_json_malloc(size_t n)
{
    size_t *p;

    if (json_fail_at && ++json_count >= json_fail_at)
        return NULL;
    if ((p = malloc(n + sizeof(size_t) * 2)) == NULL)
        return NULL;
    json_live++;
    return p + 2;
}

void test_json_free(void *p)
{
    if (p == NULL)
        return;
    json_live--;
    free((size_t *)p - 2);
}

/* Parses mt_v2, then two setters and a write, with the nth zb allocation
 * (json_mode 0) or the nth jansson allocation after parsing (1) failing. */
static int run_with_failure(uint64_t nth, int json_mode)
{
    ice_snapshot_new s = { 0 };
    ice_metadata *m = NULL;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    s.snapshot_id = 3;
    s.parent_snapshot_id = ICE_NO_SNAPSHOT;
    s.sequence_number = 3;
    s.manifest_list = "m";
    s.operation = "append";
    s.schema_id = -1;
    if (!json_mode)
        zb_alloc__fail_at(nth, 0);
    rc = ice_metadata_parse(&m, &ctx, mt_v2, strlen(mt_v2), "t.json");
    json_count = 0;
    json_fail_at = json_mode ? nth : 0;
    if (rc == ZB_OK)
        rc = ice_metadata_set_property(m, &ctx, "k", "v");
    if (rc == ZB_OK)
        rc = ice_metadata_add_snapshot(m, &ctx, &s);
    if (rc == ZB_OK)
        rc = ice_metadata_write(&out, m, &ctx);
    zb_alloc__fail_at(0, 0);
    json_fail_at = 0;
    if (rc != ZB_OK) {
        if (rc != ZB_ENOMEM)
            printf("  nth %llu: %s\n", (unsigned long long)nth, ctx.err.msg);
        ZBT_RC(rc, ZB_ENOMEM);
        ZBT_CHECK(ctx.err.msg[0] != '\0');
        /* A failed setter leaves the table as it was, usable. */
        if (m != NULL) {
            ZBT_EQ_INT(m->n_snapshots,
                       2 + (ice_metadata_snapshot(m, 3) != NULL));
            ZBT_EQ_INT(m->n_properties,
                       2 + (ice_metadata_property(m, "k") != NULL));
        }
    }
    ice_metadata_free(m);
    zb_buf_free(&out);
    return rc;
}

static void test_table_metadata_update__allocation_failures(void)
{
    uint64_t live = zb_alloc_live_bytes(), nth, sites = 0;
    long jlive = json_live;
    int mode, rc;

    for (mode = 0; mode < 2; mode++) {
        rc = ZB_ENOMEM;
        for (nth = 1; nth < 100000 && rc != ZB_OK; nth++, sites++) {
            rc = run_with_failure(nth, mode);
            ZBT_EQ_U64(zb_alloc_live_bytes(), live);
            ZBT_EQ_INT(json_live, jlive);
        }
        ZBT_EQ_INT(rc, ZB_OK);
    }
    printf("  %llu allocations failed in turn\n", (unsigned long long)sites);
}

/* ---- finding the newest metadata file ---------------------------------- */

static char *latest(const char *dir, int *rc_out, zb_ctx *ctx)
{
    zb_io *io = NULL;
    char *uri = NULL;

    zb_ctx_init(ctx);
    ZBT_OK_CTX(zb_io_new(&io, ctx), ctx);
    *rc_out = ice_metadata_find_latest(&uri, io, ctx, dir);
    zb_io_free(io);
    return uri;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/metadata/%s", dir, name);
    zbt_write_file(path, text, strlen(text));
}

static void set_mtime(const char *dir, const char *name, time_t t)
{
    char path[1024];
    struct utimbuf ut = { t, t };

    snprintf(path, sizeof path, "%s/metadata/%s", dir, name);
    ZBT_CHECK(utime(path, &ut) == 0);
}

static void test_table_metadata_update__find_latest(void)
{
    const char *dir = zbt_tmpdir();
    char want[1024], slash[1024];
    zb_ctx ctx;
    char *uri;
    int rc;

    uri = latest(dir, &rc, &ctx);
    ZBT_RC(rc, ZB_ENOTFOUND);
    put(dir, "v1.metadata.json", "{}");
    put(dir, "v2.metadata.json", "{}");
    put(dir, "v10.metadata.json", "{}");
    put(dir, ".v11.metadata.json.crc", "x");
    put(dir, "v12.1.metadata.json", "{}");
    put(dir, "snap-1.avro", "x");
    put(dir, "sub/v99.metadata.json", "{}");
    uri = latest(dir, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    snprintf(want, sizeof want, "%s/metadata/v10.metadata.json", dir);
    ZBT_EQ_STR(uri, want);
    zb_free(uri);

    /* A hint wins; trailing slashes on the folder do not matter. */
    put(dir, "version-hint.text", "2\n");
    snprintf(slash, sizeof slash, "%s//", dir);
    uri = latest(slash, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    snprintf(want, sizeof want, "%s/metadata/v2.metadata.json", dir);
    ZBT_EQ_STR(uri, want);
    zb_free(uri);
    /* A stale or empty hint falls back to listing. */
    put(dir, "version-hint.text", "7");
    uri = latest(dir, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/v10.metadata.json");
    zb_free(uri);
    put(dir, "version-hint.text", "");
    uri = latest(dir, &rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/v10.metadata.json");
    zb_free(uri);
    /* A hint naming a file. */
    put(dir, "version-hint.text", "v1.metadata.json");
    uri = latest(dir, &rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/v1.metadata.json");
    zb_free(uri);
    put(dir, "version-hint.text", "");

    /* Catalog-style names; equal versions: the newer file. */
    put(dir, "00011-aaa.metadata.json", "{}");
    put(dir, "00011-bbb.metadata.json", "{}");
    set_mtime(dir, "00011-aaa.metadata.json", 2000000000);
    set_mtime(dir, "00011-bbb.metadata.json", 1000000000);
    uri = latest(dir, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/00011-aaa.metadata.json");
    zb_free(uri);
    /* Gzipped metadata is found as the same versions. */
    put(dir, "00012-ccc.gz.metadata.json", "x");
    uri = latest(dir, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/00012-ccc.gz.metadata.json");
    zb_free(uri);
    /* A hint's version N is vN.gz.metadata.json when that is the file. */
    put(dir, "v20.gz.metadata.json", "x");
    put(dir, "version-hint.text", "20");
    uri = latest(dir, &rc, &ctx);
    ZBT_OK_CTX(rc, &ctx);
    ZBT_CONTAINS(uri, "/metadata/v20.gz.metadata.json");
    zb_free(uri);
    put(dir, "version-hint.text", "");
}

/* Gzip metadata files: written under a gzip name, read back by the
 * bytes; a gzip name holding plain JSON, a truncated stream, trailing
 * bytes: each ZB_ECORRUPT naming the file, no model. */
static void test_table_metadata_update__gzip_files(void)
{
    const char *dir = zbt_tmpdir();
    ice_metadata *m = NULL, *back = NULL;
    zb_buf plain = ZB_BUF_INIT((size_t)1 << 20);
    zb_buf gz = ZB_BUF_INIT((size_t)1 << 20);
    char path[1024];
    zb_io *io = NULL;
    zb_ctx ctx;
    size_t cut;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_OK_CTX(ice_metadata_parse(&m, &ctx, mt_v2, strlen(mt_v2), "t"),
               &ctx);
    ZBT_CHECK(!ice_metadata_gzip_codec(m));
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx, ICE_PROP_METADATA_CODEC,
                                         "GZIP"), &ctx);
    ZBT_CHECK(ice_metadata_gzip_codec(m));
    ZBT_CHECK(ice_metadata_gzip_name("a/v3.gz.metadata.json"));
    ZBT_CHECK(ice_metadata_gzip_name("a/00003-x.metadata.json.gz"));
    ZBT_CHECK(!ice_metadata_gzip_name("a/v3.metadata.json"));

    /* a plain name: plain JSON; a gzip name: gzip that loads again */
    ZBT_OK_CTX(ice_metadata_write_file(&plain, m, &ctx, "v3.metadata.json"),
               &ctx);
    ZBT_CHECK(plain.ptr[0] == '{');
    ZBT_OK_CTX(ice_metadata_write_file(&gz, m, &ctx, "v3.gz.metadata.json"),
               &ctx);
    ZBT_CHECK((unsigned char)gz.ptr[0] == 0x1f && gz.len < plain.len);
    snprintf(path, sizeof path, "%s/metadata/v3.gz.metadata.json", dir);
    zbt_write_file(path, gz.ptr, gz.len);
    ZBT_OK_CTX(ice_metadata_load(&back, io, &ctx, path), &ctx);
    ZBT_EQ_U64(back->n_snapshots, m->n_snapshots);
    ZBT_EQ_STR(ice_metadata_property(back, ICE_PROP_METADATA_CODEC), "GZIP");
    ZBT_EQ_STR(back->source_uri, path);
    ice_metadata_free(back);
    back = NULL;

    /* a gzip name holding plain JSON */
    zbt_write_file(path, plain.ptr, plain.len);
    ZBT_RC(ice_metadata_load(&back, io, &ctx, path), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "v3.gz.metadata.json");
    ZBT_CONTAINS(ctx.err.msg, "not gzip");
    ZBT_CHECK(back == NULL);
    /* every truncation of the stream */
    for (cut = 0; cut < gz.len; cut += 7) {
        zb_ctx_init(&ctx);
        ZBT_CHECK(ice_metadata_parse(&back, &ctx, gz.ptr, cut, path) ==
                  ZB_ECORRUPT);
        ZBT_CHECK(back == NULL && ctx.err.msg[0] != '\0');
    }
    ZBT_RC(ice_metadata_parse(&back, &ctx, gz.ptr, gz.len - 1, path),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "truncated");
    /* bytes after the member */
    ZBT_CHECK(zb_buf_append(&gz, "xyz", 3) == 0);
    ZBT_RC(ice_metadata_parse(&back, &ctx, gz.ptr, gz.len, path),
           ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "gzip");
    ice_metadata_free(m);
    zb_buf_free(&plain);
    zb_buf_free(&gz);
    zb_io_free(io);
}

const zbt_case test_table_metadata_update[] = {
    ZBT_CASE(test_table_metadata_update__properties),
    ZBT_CASE(test_table_metadata_update__add_snapshot_v2),
    ZBT_CASE(test_table_metadata_update__add_snapshot_v1_and_v3),
    ZBT_CASE(test_table_metadata_update__refs_and_logs),
    ZBT_CASE(test_table_metadata_update__allocation_failures),
    ZBT_CASE(test_table_metadata_update__find_latest),
    ZBT_CASE(test_table_metadata_update__gzip_files),
    ZBT_END
};

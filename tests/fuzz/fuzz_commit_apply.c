/*
 * libFuzzer target: TableRequirement checks and TableUpdate lists
 * (table/commit/commit.h) on arbitrary JSON, against a fixed v2 table (or a v1
 * table when the first byte is '1', which is then skipped).
 *
 * The input is an array of updates, or an object with "requirements"
 * and "updates". Both functions must return ZB_OK or an rc with a
 * message, never crash. A failed apply must leave the metadata as it
 * was (written before and after: equal bytes); a successful one must
 * write metadata that parses again.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "table/commit/commit.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char v2[] =
    "{\"format-version\":2,\"table-uuid\":"
    "\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",\"location\":\"s3://b/t\","
    "\"last-sequence-number\":2,\"last-updated-ms\":1700000002000,"
    "\"last-column-id\":3,\"current-schema-id\":1,\"schemas\":["
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":"
    "\"id\",\"required\":true,\"type\":\"long\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"fields\":[{\"id\":1,\"name\":"
    "\"id\",\"required\":true,\"type\":\"long\"},{\"id\":2,\"name\":\"n\","
    "\"required\":false,\"type\":\"string\"},{\"id\":3,\"name\":\"m\","
    "\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":4,\"key\":"
    "\"string\",\"value-id\":5,\"value\":\"int\",\"value-required\":false}}"
    "]}],\"default-spec-id\":1,\"partition-specs\":[{\"spec-id\":0,"
    "\"fields\":[]},{\"spec-id\":1,\"fields\":[{\"name\":\"n\",\"transform\":"
    "\"identity\",\"source-id\":2,\"field-id\":1000}]}],"
    "\"last-partition-id\":1000,\"default-sort-order-id\":0,\"sort-orders\":"
    "[{\"order-id\":0,\"fields\":[]}],\"properties\":{\"a\":\"b\"},"
    "\"current-snapshot-id\":2,\"refs\":{\"main\":{\"snapshot-id\":2,"
    "\"type\":\"branch\"},\"t\":{\"snapshot-id\":1,\"type\":\"tag\"}},"
    "\"snapshots\":[{\"snapshot-id\":1,\"sequence-number\":1,"
    "\"timestamp-ms\":1,\"summary\":{\"operation\":\"append\"},"
    "\"manifest-list\":\"s3://b/t/1.avro\"},{\"snapshot-id\":2,"
    "\"parent-snapshot-id\":1,\"sequence-number\":2,\"timestamp-ms\":2,"
    "\"summary\":{\"operation\":\"append\"},\"manifest-list\":"
    "\"s3://b/t/2.avro\"}],\"statistics\":[],\"snapshot-log\":["
    "{\"timestamp-ms\":1,\"snapshot-id\":1},{\"timestamp-ms\":2,"
    "\"snapshot-id\":2}],\"metadata-log\":[]}";

static const char v1[] =
    "{\"format-version\":1,\"location\":\"/t\",\"last-updated-ms\":1,"
    "\"last-column-id\":2,\"schema\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"n\",\"required\":false,\"type\":\"string\"}]},"
    "\"partition-spec\":[{\"name\":\"n\",\"transform\":\"identity\","
    "\"source-id\":2}],\"properties\":{}}";

static void written(zb_buf *b, const ice_metadata *m, zb_ctx *ctx)
{
    zb_buf_clear(b);
    if (ice_metadata_write(b, m, ctx) < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_ctx ctx;
    ice_metadata *m = NULL, *again = NULL;
    zb_buf before = ZB_BUF_INIT(1 << 24), after = ZB_BUF_INIT(1 << 24);
    const char *base = v2;
    json_t *in, *updates, *reqs = NULL;
    int rc;

    if (size > 0 && data[0] == '1') {
        base = v1;
        data++;
        size--;
    }
    zb_ctx_init(&ctx);
    if ((in = json_loadb((const char *)data, size, 0, NULL)) == NULL)
        return 0;
    if (ice_metadata_parse(&m, &ctx, base, strlen(base), "base") < 0)
        abort();
    updates = in;
    if (json_is_object(in)) {
        reqs = json_object_get(in, "requirements");
        updates = json_object_get(in, "updates");
    }
    rc = ice_commit_check_requirements(m, &ctx, (const zb_json *)reqs);
    if (rc < 0 && ctx.err.msg[0] == '\0')
        abort();
    rc = ice_commit_check_requirements(NULL, &ctx, (const zb_json *)reqs);
    written(&before, m, &ctx);
    rc = ice_commit_apply_updates(m, &ctx, (const zb_json *)updates);
    written(&after, m, &ctx);
    if (rc < 0) {
        if (ctx.err.msg[0] == '\0' || before.len != after.len ||
            memcmp(before.ptr, after.ptr, before.len) != 0)
            abort();
    } else if (ice_metadata_parse(&again, &ctx, after.ptr, after.len,
                                  "again") < 0) {
        abort();
    }
    ice_metadata_free(again);
    ice_metadata_free(m);
    json_decref(in);
    zb_buf_free(&before);
    zb_buf_free(&after);
    return 0;
}

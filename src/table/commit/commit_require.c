/*
 * table/commit/commit_require.c - TableRequirement checks and the small
 * builders of requirement and update objects (see table/commit/commit.h).
 *
 * ice_commit_check_requirements walks the array once; each requirement
 * is compared with the model of the metadata (never the document), and
 * the first one that fails is reported as ZB_ECONFLICT with the value
 * expected and the value found, which is what a writer needs in its log
 * when a retry budget runs out.
 */
#define ZB_MODULE "commit"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "table/commit/commit_int.h"
#include "util/err.h"

/* The int field key of requirement r, required. */
static int req_int(int64_t *out, zb_ctx *ctx, const json_t *r, size_t i,
                   const char *type, const char *key)
{
    const json_t *v = json_object_get(r, key);

    if (!json_is_integer(v))
        return zb_fail(ctx, ZB_EINVAL, "requirement %zu (%s): \"%s\" must be "
                       "an integer", i, type, key);
    *out = (int64_t)json_integer_value(v);
    return ZB_OK;
}

/* The requirements that compare one integer of the metadata. */
static const struct {
    const char *type;
    const char *key;
    int which;
} int_reqs[] = {
    { "assert-last-assigned-field-id", "last-assigned-field-id", 0 },
    { "assert-current-schema-id", "current-schema-id", 1 },
    { "assert-last-assigned-partition-id", "last-assigned-partition-id", 2 },
    { "assert-default-spec-id", "default-spec-id", 3 },
    { "assert-default-sort-order-id", "default-sort-order-id", 4 },
};

static int check_one(const ice_metadata *m, zb_ctx *ctx, const json_t *r,
                     size_t i)
{
    const char *type = json_string_value(json_object_get(r, "type"));
    int64_t want = 0, have;
    size_t k;
    int rc;

    if (type == NULL)
        return zb_fail(ctx, ZB_EINVAL, "requirement %zu has no \"type\"", i);
    if (strcmp(type, "assert-create") == 0) {
        if (m != NULL)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "the table already exists", i, type);
        return ZB_OK;
    }
    if (strcmp(type, "assert-table-uuid") == 0) {
        const char *u = json_string_value(json_object_get(r, "uuid"));

        if (u == NULL)
            return zb_fail(ctx, ZB_EINVAL, "requirement %zu (%s): \"uuid\" "
                           "must be a string", i, type);
        if (m == NULL)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "the table does not exist", i, type);
        if (m->table_uuid == NULL || strcasecmp(u, m->table_uuid) != 0)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "expected %.40s, table has %.40s", i, type, u,
                           m->table_uuid ? m->table_uuid : "none");
        return ZB_OK;
    }
    if (strcmp(type, "assert-ref-snapshot-id") == 0) {
        const char *ref = json_string_value(json_object_get(r, "ref"));
        const json_t *sid = json_object_get(r, "snapshot-id");
        const ice_ref *cur;

        if (ref == NULL || (sid != NULL && !json_is_null(sid) &&
                            !json_is_integer(sid)))
            return zb_fail(ctx, ZB_EINVAL, "requirement %zu (%s): needs "
                           "\"ref\" and an integer or null \"snapshot-id\"",
                           i, type);
        if (m == NULL)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "the table does not exist", i, type);
        cur = ice_metadata_ref(m, ref);
        if (sid == NULL || json_is_null(sid)) {
            if (cur != NULL)
                return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) "
                               "failed: ref %.60s was created (snapshot "
                               "%lld)", i, type, ref,
                               (long long)cur->snapshot_id);
            return ZB_OK;
        }
        want = (int64_t)json_integer_value(sid);
        if (cur == NULL)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "ref %.60s is gone (expected snapshot %lld)", i,
                           type, ref, (long long)want);
        if (cur->snapshot_id != want)
            return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                           "ref %.60s expected snapshot %lld, table has "
                           "%lld", i, type, ref, (long long)want,
                           (long long)cur->snapshot_id);
        return ZB_OK;
    }
    for (k = 0; k < sizeof int_reqs / sizeof int_reqs[0]; k++)
        if (strcmp(type, int_reqs[k].type) == 0)
            break;
    if (k == sizeof int_reqs / sizeof int_reqs[0])
        return zb_fail(ctx, ZB_EUNSUPPORTED, "requirement %zu: unknown type "
                       "\"%.60s\"", i, type);
    if ((rc = req_int(&want, ctx, r, i, type, int_reqs[k].key)) < 0)
        return rc;
    if (m == NULL)
        return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: the "
                       "table does not exist", i, type);
    switch (int_reqs[k].which) {
    case 0: have = m->last_column_id; break;
    case 1: have = m->current_schema_id; break;
    case 2: have = m->last_partition_id; break;
    case 3: have = m->default_spec_id; break;
    default: have = m->default_sort_order_id; break;
    }
    if (have != want)
        return zb_fail(ctx, ZB_ECONFLICT, "requirement %zu (%s) failed: "
                       "expected %lld, table has %lld", i, type,
                       (long long)want, (long long)have);
    return ZB_OK;
}

int ice_commit_check_requirements(const ice_metadata *m, zb_ctx *ctx,
                                  const zb_json *requirements_json)
{
    const json_t *requirements = (const json_t *)requirements_json;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(ctx);
    if (requirements == NULL)
        return ZB_OK;
    if (!json_is_array(requirements))
        return zb_fail(ctx, ZB_EINVAL, "requirements must be a JSON array");
    for (i = 0; i < json_array_size(requirements); i++) {
        const json_t *r = json_array_get(requirements, i);

        if (!json_is_object(r))
            return zb_fail(ctx, ZB_EINVAL, "requirement %zu is not an "
                           "object", i);
        if ((rc = check_one(m, ctx, r, i)) < 0)
            return rc;
    }
    return ZB_OK;
}

int ice_commit_conflict_retryable(const zb_ctx *ctx)
{
    return !(ctx->err.code == ZB_ECONFLICT &&
             strcmp(ctx->err.module, ICE_COMMIT_VALIDATE_MODULE) == 0);
}

/* ---- builders ----------------------------------------------------------- */

int ice_commit_append(zb_json *arr_json, zb_ctx *ctx, zb_json *v_json)
{
    json_t *arr = (json_t *)arr_json;
    json_t *v = (json_t *)v_json;
    ZB_ASSERT_ARG(arr && ctx);
    return ice_cj__push(ctx, arr, v);
}

zb_json *ice_update_set_properties(const ice_kv *kv, size_t n)
{
    json_t *u = json_pack("{ss}", "action", "set-properties");
    json_t *up = json_object();
    size_t i;

    if (u == NULL || up == NULL || json_object_set_new(u, "updates", up) < 0)
        goto fail;
    for (i = 0; i < n; i++)
        if (json_object_set_new(up, kv[i].key, json_string(kv[i].value)) < 0)
            goto fail_u;
    return (zb_json *)u;
fail:
    json_decref(up);
fail_u:
    json_decref(u);
    return NULL;
}

zb_json *ice_update_remove_properties(const char *const *keys, size_t n)
{
    json_t *u = json_pack("{ss}", "action", "remove-properties");
    json_t *arr = json_array();
    size_t i;

    if (u == NULL || arr == NULL || json_object_set_new(u, "removals", arr) < 0)
        goto fail;
    for (i = 0; i < n; i++)
        if (json_array_append_new(arr, json_string(keys[i])) < 0)
            goto fail_u;
    return (zb_json *)u;
fail:
    json_decref(arr);
fail_u:
    json_decref(u);
    return NULL;
}

int ice_update_set_sort_order(zb_json *updates_json, zb_ctx *ctx,
                              const zb_json *order_json)
{
    json_t *updates = (json_t *)updates_json;
    const json_t *order = (const json_t *)order_json;
    json_t *copy;
    int rc;

    ZB_ASSERT_ARG(updates && ctx && order);
    if ((copy = json_deep_copy(order)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = ice_cj__push(ctx, updates,
                           json_pack("{ssso}", "action", "add-sort-order",
                                     "sort-order", copy))) < 0)
        return rc;
    return ice_cj__push(ctx, updates,
                        json_pack("{sssi}", "action", "set-default-sort-order",
                                  "sort-order-id", -1));
}

zb_json *ice_update_set_ref(const ice_ref *ref)
{
    json_t *u = json_pack("{sssssssI}", "action", "set-snapshot-ref",
                          "ref-name", ref->name, "type",
                          ref->type == ICE_REF_TAG ? "tag" : "branch",
                          "snapshot-id", (json_int_t)ref->snapshot_id);

    if (u == NULL)
        return NULL;
    if ((ref->max_ref_age_ms >= 0 &&
         json_object_set_new(u, "max-ref-age-ms",
                             json_integer(ref->max_ref_age_ms)) < 0) ||
        (ref->max_snapshot_age_ms >= 0 &&
         json_object_set_new(u, "max-snapshot-age-ms",
                             json_integer(ref->max_snapshot_age_ms)) < 0) ||
        (ref->min_snapshots_to_keep >= 0 &&
         json_object_set_new(u, "min-snapshots-to-keep",
                             json_integer(ref->min_snapshots_to_keep)) < 0)) {
        json_decref(u);
        return NULL;
    }
    return (zb_json *)u;
}

zb_json *ice_update_remove_ref(const char *name)
{
    return (zb_json *)json_pack("{ssss}", "action", "remove-snapshot-ref",
                                "ref-name",
                     name);
}

zb_json *ice_update_remove_snapshots(const int64_t *ids, size_t n)
{
    json_t *arr = json_array();
    size_t i;

    if (arr == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        if (json_array_append_new(arr, json_integer(ids[i])) < 0) {
            json_decref(arr);
            return NULL;
        }
    return (zb_json *)json_pack("{ssso}", "action", "remove-snapshots",
                                "snapshot-ids",
                     arr);
}

zb_json *ice_requirement_table_uuid(const char *uuid)
{
    return (zb_json *)json_pack("{ssss}", "type", "assert-table-uuid", "uuid",
                                uuid);
}

zb_json *ice_requirement_ref_snapshot_id(const char *ref, int64_t snapshot_id)
{
    return (zb_json *)json_pack("{sssss" "o}", "type", "assert-ref-snapshot-id",
                                "ref",
                     ref, "snapshot-id",
                     snapshot_id == ICE_NO_SNAPSHOT
                         ? json_null()
                         : json_integer((json_int_t)snapshot_id));
}

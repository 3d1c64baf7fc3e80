/*
 * table/commit/commit_evolve.c - the TableUpdate actions that change the
 * table's format version, schemas, partition specs and sort orders, applied to
 * the metadata document by commit_apply.c (see there for the transaction). Ids
 * follow Iceberg Java's TableMetadata.Builder: an equal schema, spec or order
 * reuses its id, a new one gets the highest id + 1 (a sorted order at least 1;
 * the unsorted order is 0); a new spec's fields without field-id reuse the id
 * of the same source and transform in an older spec, or get last-partition-id +
 * 1; spec and sort sources must be columns of the current schema. v1 documents
 * keep their deprecated "schema" and "partition-spec" equal to the current
 * ones, and get the list forms first when they have only those.
 */
#define ZB_MODULE "commit"

#include <string.h>

#include "table/commit/commit_apply_int.h"

/* ---- v1 documents -------------------------------------------------------- */

/* Deprecated v1 "schema" / "partition-spec" = the current ones. */
static int sync_v1(apply_state *a, json_t *doc)
{
    const json_t *schemas = json_object_get(doc, "schemas");
    const json_t *specs = json_object_get(doc, "partition-specs");
    int64_t cur = json_integer_value(json_object_get(doc, "current-schema-id"));
    int64_t spec = json_integer_value(json_object_get(doc, "default-spec-id"));
    long k;
    int rc;

    if (ice_ap__version_of(doc) != 1)
        return ZB_OK;
    if (json_object_get(doc, "schema") != NULL &&
        (k = ice_ap__find_id(schemas, "schema-id", cur)) >= 0 &&
        (rc = ice_cj__set(a->ctx, doc, "schema",
                          json_deep_copy(json_array_get(schemas, (size_t)k)))) < 0)
        return rc;
    if (json_object_get(doc, "partition-spec") != NULL &&
        (k = ice_ap__find_id(specs, "spec-id", spec)) >= 0 &&
        (rc = ice_cj__set(a->ctx, doc, "partition-spec",
                          json_deep_copy(json_object_get(
                              json_array_get(specs, (size_t)k), "fields")))) < 0)
        return rc;
    return ZB_OK;
}

/* Gives a v1 document the list forms of schemas, specs and orders. */
int ice_ap__norm_v1(apply_state *a, json_t *doc)
{
    zb_ctx *ctx = a->ctx;
    json_t *v;
    int rc;

    if (json_object_get(doc, "schemas") == NULL) {
        const json_t *s = json_object_get(doc, "schema");
        int64_t id = 0;

        if (!json_is_object(s))
            return ice_ap__bad(a, ZB_EINVAL, "v1 metadata without a schema");
        ice_cj__int(&id, ctx, doc, "current-schema-id", "metadata");
        if ((v = json_deep_copy(s)) == NULL ||
            (rc = ice_cj__set(ctx, v, "schema-id", json_integer(id))) < 0 ||
            (rc = ice_cj__set(ctx, doc, "current-schema-id",
                              json_integer(id))) < 0 ||
            (rc = ice_cj__set(ctx, doc, "schemas", json_pack("[o]", v))) < 0) {
            if (v == NULL)
                return zb_fail_oom(ctx);
            return rc;
        }
    }
    if (json_object_get(doc, "partition-specs") == NULL) {
        const json_t *f = json_object_get(doc, "partition-spec");
        json_t *fields = f ? json_deep_copy(f) : json_array();
        int64_t last = 999;
        size_t i;

        if (fields == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < json_array_size(fields); i++) {
            json_t *pf = json_array_get(fields, i);
            int64_t fid = 1000 + (int64_t)i;

            if (json_object_get(pf, "field-id") == NULL &&
                json_object_set_new(pf, "field-id", json_integer(fid)) < 0) {
                json_decref(fields);
                return zb_fail_oom(ctx);
            }
            ice_cj__int(&fid, ctx, pf, "field-id", "partition field");
            if (fid > last)
                last = fid;
        }
        if ((rc = ice_cj__set(ctx, doc, "partition-specs",
                              json_pack("[{sIso}]", "spec-id", (json_int_t)0,
                                        "fields", fields))) < 0 ||
            (rc = ice_cj__set(ctx, doc, "default-spec-id",
                              json_integer(0))) < 0)
            return rc;
        if (json_object_get(doc, "last-partition-id") == NULL &&
            (rc = ice_cj__set(ctx, doc, "last-partition-id",
                              json_integer(last))) < 0)
            return rc;
    }
    if (json_object_get(doc, "sort-orders") == NULL &&
        ((rc = ice_cj__set(ctx, doc, "sort-orders",
                           json_pack("[{sIs[]}]", "order-id", (json_int_t)0,
                                     "fields"))) < 0 ||
         (rc = ice_cj__set(ctx, doc, "default-sort-order-id",
                           json_integer(0))) < 0))
        return rc;
    return ZB_OK;
}

/* ---- actions ---------------------------------------------------------- */

int ice_ap__upgrade(apply_state *a, json_t *doc, const json_t *u)
{
    int64_t to = 0;
    int from = ice_ap__version_of(doc), rc;

    if ((rc = ice_ap__need_int(&to, a, u, "format-version")) < 0)
        return rc;
    if (to > 3)
        return ice_ap__bad(a, ZB_EUNSUPPORTED, "format-version %lld is not "
                   "supported (1 to 3 are)", (long long)to);
    if (to < from)
        return ice_ap__bad(a, ZB_EINVAL, "cannot downgrade from v%d to v%lld", from,
                   (long long)to);
    if (to == from)
        return ZB_OK;
    if (from == 1) {
        if ((rc = ice_ap__norm_v1(a, doc)) < 0)
            return rc;
        json_object_del(doc, "schema");
        json_object_del(doc, "partition-spec");
        if (json_object_get(doc, "last-sequence-number") == NULL &&
            (rc = ice_cj__set(a->ctx, doc, "last-sequence-number",
                              json_integer(0))) < 0)
            return rc;
        if (!json_is_string(json_object_get(doc, "table-uuid"))) {
            char uuid[37];

            ice_commit_uuid(uuid);
            if ((rc = ice_cj__set(a->ctx, doc, "table-uuid",
                                  json_string(uuid))) < 0)
                return rc;
        }
    }
    if (to >= 3 && json_object_get(doc, "next-row-id") == NULL &&
        (rc = ice_cj__set(a->ctx, doc, "next-row-id", json_integer(0))) < 0)
        return rc;
    return ice_cj__set(a->ctx, doc, "format-version", json_integer(to));
}

/* The highest field id anywhere in a type (struct, list, map). */
static int64_t type_max_id(const json_t *t, int depth)
{
    int64_t best = 0, v;
    const char *keys[] = { "element-id", "key-id", "value-id" };
    const char *subs[] = { "element", "key", "value" };
    size_t i;

    if (!json_is_object(t) || depth > ICE_MAX_TYPE_DEPTH)
        return 0;
    for (i = 0; i < 3; i++) {
        v = json_integer_value(json_object_get(t, keys[i]));
        if (v > best)
            best = v;
        if ((v = type_max_id(json_object_get(t, subs[i]), depth + 1)) > best)
            best = v;
    }
    for (i = 0; i < json_array_size(json_object_get(t, "fields")); i++) {
        const json_t *f = json_array_get(json_object_get(t, "fields"), i);

        if ((v = json_integer_value(json_object_get(f, "id"))) > best)
            best = v;
        if ((v = type_max_id(json_object_get(f, "type"), depth + 1)) > best)
            best = v;
    }
    return best;
}

/* Whether a type holds field id (a struct field, element, key, value). */
static int type_has_id(const json_t *t, int64_t id, int depth)
{
    const char *keys[] = { "element-id", "key-id", "value-id" };
    const char *subs[] = { "element", "key", "value" };
    const json_t *fields;
    size_t i;

    if (!json_is_object(t) || depth > ICE_MAX_TYPE_DEPTH)
        return 0;
    for (i = 0; i < 3; i++)
        if (json_integer_value(json_object_get(t, keys[i])) == id ||
            type_has_id(json_object_get(t, subs[i]), id, depth + 1))
            return 1;
    fields = json_object_get(t, "fields");
    for (i = 0; i < json_array_size(fields); i++) {
        const json_t *f = json_array_get(fields, i);

        if (json_integer_value(json_object_get(f, "id")) == id ||
            type_has_id(json_object_get(f, "type"), id, depth + 1))
            return 1;
    }
    return 0;
}

/* Source ids of spec or sort fields must be in the current schema, as
 * Java binds a new spec or order to it. */
static int check_sources(apply_state *a, const json_t *doc,
                         const json_t *fields, const char *what)
{
    const json_t *schemas = json_object_get(doc, "schemas");
    long k = ice_ap__find_id(schemas, "schema-id",
                     json_integer_value(json_object_get(doc,
                                                        "current-schema-id")));
    const json_t *cur = k >= 0 ? json_array_get(schemas, (size_t)k) : NULL;
    size_t i, j;

    for (i = 0; i < json_array_size(fields); i++) {
        const json_t *f = json_array_get(fields, i);
        const json_t *ids = json_object_get(f, "source-ids");
        const json_t *one = json_object_get(f, "source-id");

        for (j = 0; j < (ids ? json_array_size(ids) : 1); j++) {
            const json_t *id = ids ? json_array_get(ids, j) : one;

            if (!json_is_integer(id))
                return ice_ap__bad(a, ZB_EINVAL, "%s field %zu has no source id",
                           what, i);
            if (!type_has_id(cur, json_integer_value(id), 0))
                return ice_ap__bad(a, ZB_EINVAL, "%s field %zu: source id %lld is "
                           "not in the current schema", what, i,
                           (long long)json_integer_value(id));
        }
    }
    return ZB_OK;
}

int ice_ap__add_schema(apply_state *a, json_t *doc, const json_t *u)
{
    const json_t *s;
    json_t *schemas, *copy;
    int64_t last = 0, given = 0, id, mx;
    size_t i;
    int rc, eq;

    if ((rc = ice_ap__need_obj(&s, a, u, "schema")) < 0 || (rc = ice_ap__norm_v1(a, doc)) < 0)
        return rc;
    if (!json_is_array(json_object_get(s, "fields")))
        return ice_ap__bad(a, ZB_EINVAL, "the schema has no \"fields\"");
    if ((schemas = ice_ap__child(a, doc, "schemas", 1)) == NULL)
        return ZB_ENOMEM;
    ice_cj__int(&last, a->ctx, doc, "last-column-id", "metadata");
    if ((rc = ice_cj__int(&given, a->ctx, u, "last-column-id", "update")) < 0)
        return rc;
    mx = type_max_id(s, 0);
    if (mx > last)
        last = mx;
    if (given > last)
        last = given;
    if ((rc = ice_cj__set(a->ctx, doc, "last-column-id",
                          json_integer(last))) < 0)
        return rc;
    for (i = 0; i < json_array_size(schemas); i++) {
        const json_t *old = json_array_get(schemas, i);

        if ((rc = ice_ap__equal_except(a->ctx, old, s, "schema-id", &eq)) < 0)
            return rc;
        if (eq) {
            a->has_schema = 1;
            a->last_schema = json_integer_value(json_object_get(old,
                                                                "schema-id"));
            return ZB_OK;
        }
    }
    id = ice_ap__max_id(schemas, "schema-id", -1) + 1;
    if ((copy = json_deep_copy(s)) == NULL)
        return zb_fail_oom(a->ctx);
    if ((rc = ice_cj__set(a->ctx, copy, "schema-id", json_integer(id))) < 0) {
        json_decref(copy);
        return rc;
    }
    if ((rc = ice_cj__push(a->ctx, schemas, copy)) < 0)
        return rc;
    a->has_schema = 1;
    a->last_schema = id;
    return ZB_OK;
}

/* Resolves -1 to the id added last; checks the id is in arr. */
static int pick_id(int64_t *id, apply_state *a, const json_t *u,
                   const char *key, int has_last, int64_t last,
                   const json_t *arr, const char *arr_key)
{
    int rc;

    if ((rc = ice_ap__need_int(id, a, u, key)) < 0)
        return rc;
    if (*id == -1) {
        if (!has_last)
            return ice_ap__bad(a, ZB_EINVAL, "%s -1 but nothing was added before it",
                       key);
        *id = last;
    }
    if (ice_ap__find_id(arr, arr_key, *id) < 0)
        return ice_ap__bad(a, ZB_EINVAL, "%s %lld does not exist", key,
                   (long long)*id);
    return ZB_OK;
}

int ice_ap__set_schema(apply_state *a, json_t *doc, const json_t *u)
{
    int64_t id = 0;
    int rc;

    if ((rc = ice_ap__norm_v1(a, doc)) < 0 ||
        (rc = pick_id(&id, a, u, "schema-id", a->has_schema, a->last_schema,
                      json_object_get(doc, "schemas"), "schema-id")) < 0 ||
        (rc = ice_cj__set(a->ctx, doc, "current-schema-id",
                          json_integer(id))) < 0)
        return rc;
    return sync_v1(a, doc);
}

/* Partition field ids of a new spec: kept, reused, or assigned. */
static int spec_field_ids(apply_state *a, json_t *doc, json_t *fields)
{
    const json_t *specs = json_object_get(doc, "partition-specs");
    int64_t last = 999, fid;
    size_t i, j, k;
    int rc;

    ice_cj__int(&last, a->ctx, doc, "last-partition-id", "metadata");
    for (i = 0; i < json_array_size(fields); i++) {
        json_t *f = json_array_get(fields, i);

        if (!json_is_object(f))
            return ice_ap__bad(a, ZB_EINVAL, "partition field %zu is not an object", i);
        if ((rc = ice_cj__int(&fid, a->ctx, f, "field-id", "field")) < 0)
            return rc;
        if (rc == 0) {
            /* The same source and transform in an older spec: its id. */
            fid = -1;
            for (j = 0; fid < 0 && j < json_array_size(specs); j++) {
                const json_t *of = json_object_get(json_array_get(specs, j),
                                                   "fields");

                for (k = 0; fid < 0 && k < json_array_size(of); k++) {
                    const json_t *o = json_array_get(of, k);

                    if (json_equal(json_object_get(o, "source-id"),
                                   json_object_get(f, "source-id")) &&
                        json_equal(json_object_get(o, "transform"),
                                   json_object_get(f, "transform")) &&
                        json_is_integer(json_object_get(o, "field-id")))
                        fid = json_integer_value(json_object_get(o,
                                                                 "field-id"));
                }
            }
            if (fid < 0)
                fid = ++last;
            if ((rc = ice_cj__set(a->ctx, f, "field-id",
                                  json_integer(fid))) < 0)
                return rc;
        }
        if (fid > last)
            last = fid;
    }
    return ice_cj__set(a->ctx, doc, "last-partition-id", json_integer(last));
}

int ice_ap__add_spec(apply_state *a, json_t *doc, const json_t *u)
{
    const json_t *s;
    json_t *specs, *copy = NULL, *fields;
    int64_t id;
    size_t i;
    int rc;

    if ((rc = ice_ap__need_obj(&s, a, u, "spec")) < 0 || (rc = ice_ap__norm_v1(a, doc)) < 0)
        return rc;
    if (!json_is_array(json_object_get(s, "fields")))
        return ice_ap__bad(a, ZB_EINVAL, "the spec has no \"fields\"");
    if ((rc = check_sources(a, doc, json_object_get(s, "fields"),
                            "partition")) < 0)
        return rc;
    if ((specs = ice_ap__child(a, doc, "partition-specs", 1)) == NULL)
        return ZB_ENOMEM;
    if ((fields = json_deep_copy(json_object_get(s, "fields"))) == NULL)
        return zb_fail_oom(a->ctx);
    if ((rc = spec_field_ids(a, doc, fields)) < 0)
        goto done;
    for (i = 0; i < json_array_size(specs); i++) {
        const json_t *old = json_array_get(specs, i);

        if (json_equal(json_object_get(old, "fields"), fields)) {
            a->has_spec = 1;
            a->last_spec = json_integer_value(json_object_get(old, "spec-id"));
            goto done;
        }
    }
    id = ice_ap__max_id(specs, "spec-id", -1) + 1;
    copy = json_pack("{sIsO}", "spec-id", (json_int_t)id, "fields", fields);
    if ((rc = ice_cj__push(a->ctx, specs, copy)) < 0)
        goto done;
    a->has_spec = 1;
    a->last_spec = id;
done:
    json_decref(fields);
    return rc;
}

int ice_ap__set_spec(apply_state *a, json_t *doc, const json_t *u)
{
    int64_t id = 0;
    int rc;

    if ((rc = ice_ap__norm_v1(a, doc)) < 0 ||
        (rc = pick_id(&id, a, u, "spec-id", a->has_spec, a->last_spec,
                      json_object_get(doc, "partition-specs"), "spec-id")) < 0 ||
        (rc = ice_cj__set(a->ctx, doc, "default-spec-id",
                          json_integer(id))) < 0)
        return rc;
    return sync_v1(a, doc);
}

int ice_ap__add_order(apply_state *a, json_t *doc, const json_t *u)
{
    const json_t *o, *fields;
    json_t *orders;
    int64_t id;
    size_t i;
    int rc;

    if ((rc = ice_ap__need_obj(&o, a, u, "sort-order")) < 0 ||
        (rc = ice_ap__norm_v1(a, doc)) < 0)
        return rc;
    if (!json_is_array(fields = json_object_get(o, "fields")))
        return ice_ap__bad(a, ZB_EINVAL, "the sort order has no \"fields\"");
    if ((rc = check_sources(a, doc, fields, "sort")) < 0)
        return rc;
    if ((orders = ice_ap__child(a, doc, "sort-orders", 1)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < json_array_size(orders); i++) {
        const json_t *old = json_array_get(orders, i);

        if (json_equal(json_object_get(old, "fields"), fields)) {
            a->has_order = 1;
            a->last_order = json_integer_value(json_object_get(old,
                                                               "order-id"));
            return ZB_OK;
        }
    }
    id = json_array_size(fields) == 0 ? 0
       : ice_ap__max_id(orders, "order-id", 0) + 1;
    if ((rc = ice_cj__push(a->ctx, orders,
                           json_pack("{sIsO}", "order-id", (json_int_t)id,
                                     "fields", fields))) < 0)
        return rc;
    a->has_order = 1;
    a->last_order = id;
    return ZB_OK;
}

int ice_ap__set_order(apply_state *a, json_t *doc, const json_t *u)
{
    int64_t id = 0;
    int rc;

    if ((rc = ice_ap__norm_v1(a, doc)) < 0 ||
        (rc = pick_id(&id, a, u, "sort-order-id", a->has_order, a->last_order,
                      json_object_get(doc, "sort-orders"), "order-id")) < 0)
        return rc;
    return ice_cj__set(a->ctx, doc, "default-sort-order-id", json_integer(id));
}


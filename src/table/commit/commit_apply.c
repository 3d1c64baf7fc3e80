/*
 * table/commit/commit_apply.c - ice_commit_apply_updates: the REST catalog's
 * TableUpdate actions applied to table metadata (see table/commit/commit.h).
 *
 * All updates of a list are applied to one copy of the metadata document
 * inside ice_metadata__edit (table/metadata/metadata_write.c); the model is rebuilt once
 * at the end with every check a load makes, and only then swapped in, so
 * a list is all or nothing. Each action edits the JSON document the way
 * Iceberg Java's TableMetadata.Builder changes its model, including the
 * ids it reuses or assigns, so that what a REST catalog would store and
 * what our SQL and folder catalogs store agree:
 *   - schemas, specs and sort orders equal to an existing one reuse its
 *     id; new ones get the highest id + 1; "-1" in set-current-schema,
 *     set-default-spec and set-default-sort-order means the one added
 *     last in this list;
 *   - v1 documents also carry the deprecated "schema" and
 *     "partition-spec", kept equal to the current schema and default
 *     spec; a v1 document that has only those gets the list forms first
 *     (these actions live in commit_evolve.c);
 *   - snapshots and refs: add-snapshot checks ids, sequence numbers and
 *     (v3) row ids; set-snapshot-ref of "main" moves current-snapshot-id
 *     and logs it; remove-snapshots drops refs and statistics that point
 *     at removed snapshots, and the snapshot log up to the last entry of
 *     a removed snapshot (the log stays one linear history).
 */
#define ZB_MODULE "commit"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "table/commit/commit_apply_int.h"
#include "util/err.h"

int ice_ap__bad(apply_state *a, int code, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return zb_fail(a->ctx, code, "update %zu (%s): %s", a->i, a->action, msg);
}

int ice_ap__version_of(const json_t *doc)
{
    return (int)json_integer_value(json_object_get(doc, "format-version"));
}

/* doc[key] as an array or object, created when absent. */
json_t *ice_ap__child(apply_state *a, json_t *doc, const char *key, int array)
{
    json_t *c = json_object_get(doc, key);

    if (c != NULL && (array ? json_is_array(c) : json_is_object(c)))
        return c;
    if (ice_cj__set(a->ctx, doc, key, array ? json_array() : json_object()) < 0)
        return NULL;
    return json_object_get(doc, key);
}

/* The index of the object in arr whose key equals id, or -1. */
long ice_ap__find_id(const json_t *arr, const char *key, int64_t id)
{
    size_t i;

    for (i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_object_get(json_array_get(arr, i), key);

        if (json_is_integer(v) && json_integer_value(v) == id)
            return (long)i;
    }
    return -1;
}

/* The highest key among arr's objects, or dflt when there is none. */
int64_t ice_ap__max_id(const json_t *arr, const char *key, int64_t dflt)
{
    size_t i;

    for (i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_object_get(json_array_get(arr, i), key);

        if (json_is_integer(v) && json_integer_value(v) > dflt)
            dflt = json_integer_value(v);
    }
    return dflt;
}

/* The integer a->update[key], required. */
int ice_ap__need_int(int64_t *out, apply_state *a, const json_t *u,
                    const char *key)
{
    const json_t *v = json_object_get(u, key);

    if (!json_is_integer(v))
        return ice_ap__bad(a, ZB_EINVAL, "\"%s\" must be an integer", key);
    *out = json_integer_value(v);
    return ZB_OK;
}

int ice_ap__need_str(const char **out, apply_state *a, const json_t *u,
                    const char *key)
{
    if ((*out = json_string_value(json_object_get(u, key))) == NULL)
        return ice_ap__bad(a, ZB_EINVAL, "\"%s\" must be a string", key);
    return ZB_OK;
}

int ice_ap__need_obj(const json_t **out, apply_state *a, const json_t *u,
                    const char *key)
{
    if (!json_is_object(*out = json_object_get(u, key)))
        return ice_ap__bad(a, ZB_EINVAL, "\"%s\" must be an object", key);
    return ZB_OK;
}

/* a and b equal apart from key (either may lack it). */
int ice_ap__equal_except(zb_ctx *ctx, const json_t *a, const json_t *b,
                        const char *key, int *eq)
{
    json_t *ca = json_copy((json_t *)a), *cb = json_copy((json_t *)b);

    if (ca == NULL || cb == NULL) {
        json_decref(ca);
        json_decref(cb);
        return zb_fail_oom(ctx);
    }
    json_object_del(ca, key);
    json_object_del(cb, key);
    *eq = json_equal(ca, cb);
    json_decref(ca);
    json_decref(cb);
    return ZB_OK;
}

static int do_add_snapshot(apply_state *a, json_t *doc, const json_t *u)
{
    const json_t *s;
    json_t *snaps;
    int64_t id = 0, seq = 0, last_seq = 0, ts = 0, parent = -1;
    int v = ice_ap__version_of(doc), rc;

    if ((rc = ice_ap__need_obj(&s, a, u, "snapshot")) < 0 ||
        (rc = ice_ap__need_int(&id, a, s, "snapshot-id")) < 0 ||
        (rc = ice_ap__need_int(&ts, a, s, "timestamp-ms")) < 0 ||
        (rc = ice_cj__int(&seq, a->ctx, s, "sequence-number", "snapshot")) < 0 ||
        (rc = ice_cj__int(&parent, a->ctx, s, "parent-snapshot-id",
                          "snapshot")) < 0)
        return rc;
    if ((snaps = ice_ap__child(a, doc, "snapshots", 1)) == NULL)
        return ZB_ENOMEM;
    if (ice_ap__find_id(snaps, "snapshot-id", id) >= 0)
        return ice_ap__bad(a, ZB_EINVAL, "snapshot %lld already exists",
                   (long long)id);
    ice_cj__int(&last_seq, a->ctx, doc, "last-sequence-number", "metadata");
    /* Both below: a commit on another branch (which the requirements of
     * this one do not guard) moved the table on; built again on the
     * table as it is now, the snapshot fits. */
    if (v >= 2 && seq <= last_seq && parent >= 0)
        return ice_ap__bad(a, ZB_ECONFLICT, "snapshot %lld has sequence number %lld, "
                   "not above the table's last %lld", (long long)id,
                   (long long)seq, (long long)last_seq);
    if (v >= 3) {
        int64_t first = 0, added = 0, next = 0;

        if ((rc = ice_ap__need_int(&first, a, s, "first-row-id")) < 0 ||
            (rc = ice_ap__need_int(&added, a, s, "added-rows")) < 0)
            return rc;
        ice_cj__int(&next, a->ctx, doc, "next-row-id", "metadata");
        if (added < 0)
            return ice_ap__bad(a, ZB_EINVAL, "snapshot %lld: added-rows %lld",
                               (long long)id, (long long)added);
        if (first < next)
            return ice_ap__bad(a, ZB_ECONFLICT, "snapshot %lld: first-row-id %lld is "
                       "below next-row-id %lld", (long long)id,
                       (long long)first, (long long)next);
        if ((rc = ice_cj__set(a->ctx, doc, "next-row-id",
                              json_integer(first + added))) < 0)
            return rc;
    }
    if (v >= 2 && seq > last_seq &&
        (rc = ice_cj__set(a->ctx, doc, "last-sequence-number",
                          json_integer(seq))) < 0)
        return rc;
    if ((rc = ice_cj__push(a->ctx, snaps, json_deep_copy(s))) < 0 ||
        (rc = ice_cj__push(a->ctx, a->added_snaps, json_integer(id))) < 0)
        return rc;
    a->added = 1;
    a->last_snap_ts = ts;
    return ZB_OK;
}

static int do_set_ref(apply_state *a, json_t *doc, const json_t *u)
{
    static const char *const retention[] = {
        "max-ref-age-ms", "max-snapshot-age-ms", "min-snapshots-to-keep" };
    const char *name, *type;
    json_t *refs, *ref, *log;
    const json_t *snaps = json_object_get(doc, "snapshots");
    int64_t id = 0, ts;
    long k;
    size_t i;
    int rc;

    if ((rc = ice_ap__need_str(&name, a, u, "ref-name")) < 0 ||
        (rc = ice_ap__need_str(&type, a, u, "type")) < 0 ||
        (rc = ice_ap__need_int(&id, a, u, "snapshot-id")) < 0)
        return rc;
    if (strcmp(type, "branch") != 0 && strcmp(type, "tag") != 0)
        return ice_ap__bad(a, ZB_EINVAL, "unknown ref type \"%.40s\"", type);
    if (strcmp(name, "main") == 0 && strcmp(type, "branch") != 0)
        return ice_ap__bad(a, ZB_EINVAL, "main must be a branch");
    if ((k = ice_ap__find_id(snaps, "snapshot-id", id)) < 0)
        return ice_ap__bad(a, ZB_EINVAL, "ref %.60s: snapshot %lld does not exist",
                   name, (long long)id);
    if ((refs = ice_ap__child(a, doc, "refs", 0)) == NULL)
        return ZB_ENOMEM;
    if ((ref = json_pack("{sIss}", "snapshot-id", (json_int_t)id, "type",
                         type)) == NULL)
        return zb_fail_oom(a->ctx);
    for (i = 0; i < 3; i++) {
        const json_t *v = json_object_get(u, retention[i]);

        if (v != NULL && !json_is_null(v) &&
            (rc = ice_cj__set(a->ctx, ref, retention[i],
                              json_deep_copy(v))) < 0) {
            json_decref(ref);
            return rc;
        }
    }
    if (json_equal(json_object_get(refs, name), ref)) {
        json_decref(ref);
        return ZB_OK;
    }
    if ((rc = ice_cj__set(a->ctx, refs, name, ref)) < 0)
        return rc;
    if (strcmp(name, "main") != 0)
        return ZB_OK;
    ts = a->now_ms;
    for (i = 0; i < json_array_size(a->added_snaps); i++)
        if (json_integer_value(json_array_get(a->added_snaps, i)) == id)
            ts = json_integer_value(json_object_get(
                json_array_get(snaps, (size_t)k), "timestamp-ms"));
    if ((rc = ice_cj__set(a->ctx, doc, "current-snapshot-id",
                          json_integer(id))) < 0 ||
        (log = ice_ap__child(a, doc, "snapshot-log", 1)) == NULL)
        return rc < 0 ? rc : ZB_ENOMEM;
    return ice_cj__push(a->ctx, log,
                        json_pack("{sIsI}", "timestamp-ms", (json_int_t)ts,
                                  "snapshot-id", (json_int_t)id));
}

static int do_remove_ref(apply_state *a, json_t *doc, const json_t *u)
{
    json_t *refs = json_object_get(doc, "refs");
    const char *name;
    int rc;

    if ((rc = ice_ap__need_str(&name, a, u, "ref-name")) < 0)
        return rc;
    if (json_is_object(refs))
        json_object_del(refs, name);
    if (strcmp(name, "main") == 0)
        return ice_cj__set(a->ctx, doc, "current-snapshot-id",
                           json_integer(-1));
    return ZB_OK;
}

/* Drops the objects of doc[key] whose id_key is in ids. */
static void drop_matching(json_t *doc, const char *key, const char *id_key,
                          const json_t *ids)
{
    json_t *arr = json_object_get(doc, key);
    size_t i = 0, j;

    while (i < json_array_size(arr)) {
        const json_t *v = json_object_get(json_array_get(arr, i), id_key);
        int hit = 0;

        for (j = 0; !hit && j < json_array_size(ids); j++)
            hit = v != NULL && json_equal(v, json_array_get(ids, j));
        if (hit)
            json_array_remove(arr, i);
        else
            i++;
    }
}

static int do_remove_snapshots(apply_state *a, json_t *doc, const json_t *u)
{
    const json_t *ids = json_object_get(u, "snapshot-ids");
    json_t *refs = json_object_get(doc, "refs");
    const char *name;
    json_t *r;
    void *tmp;
    size_t j;

    if (!json_is_array(ids))
        return ice_ap__bad(a, ZB_EINVAL, "\"snapshot-ids\" must be an array");
    for (j = 0; j < json_array_size(ids); j++)
        if (!json_is_integer(json_array_get(ids, j)))
            return ice_ap__bad(a, ZB_EINVAL, "snapshot id %zu is not an integer", j);
    drop_matching(doc, "snapshots", "snapshot-id", ids);
    drop_matching(doc, "statistics", "snapshot-id", ids);
    drop_matching(doc, "partition-statistics", "snapshot-id", ids);
    json_object_foreach_safe(refs, tmp, name, r) {
        const json_t *sid = json_object_get(r, "snapshot-id");

        for (j = 0; j < json_array_size(ids); j++)
            if (json_equal(sid, json_array_get(ids, j))) {
                json_object_del(refs, name);
                break;
            }
    }
    for (j = 0; j < json_array_size(ids); j++)
        if (json_equal(json_object_get(doc, "current-snapshot-id"),
                       json_array_get(ids, j)) &&
            ice_cj__set(a->ctx, doc, "current-snapshot-id",
                        json_integer(-1)) < 0)
            return ZB_ENOMEM;
    a->removed = 1;
    return ZB_OK;
}

/* After removals: the snapshot log after its last removed snapshot. */
static void trim_snapshot_log(json_t *doc)
{
    json_t *log = json_object_get(doc, "snapshot-log");
    const json_t *snaps = json_object_get(doc, "snapshots");
    size_t i, cut = 0;

    for (i = 0; i < json_array_size(log); i++) {
        const json_t *id = json_object_get(json_array_get(log, i),
                                           "snapshot-id");

        if (!json_is_integer(id) ||
            ice_ap__find_id(snaps, "snapshot-id", json_integer_value(id)) < 0)
            cut = i + 1;
    }
    while (cut-- > 0)
        json_array_remove(log, 0);
}

static int do_properties(apply_state *a, json_t *doc, const json_t *u,
                         int set)
{
    json_t *props = ice_ap__child(a, doc, "properties", 0);
    const json_t *v;
    const char *k;
    size_t i;
    int rc;

    if (props == NULL)
        return ZB_ENOMEM;
    if (set) {
        const json_t *up = json_object_get(u, "updates");

        if (!json_is_object(up))
            return ice_ap__bad(a, ZB_EINVAL, "\"updates\" must be an object");
        json_object_foreach((json_t *)up, k, v) {
            if (!json_is_string(v))
                return ice_ap__bad(a, ZB_EINVAL, "property %.60s is not a string", k);
            if ((rc = ice_cj__set(a->ctx, props, k, json_deep_copy(v))) < 0)
                return rc;
        }
        return ZB_OK;
    }
    v = json_object_get(u, "removals");
    if (!json_is_array(v))
        return ice_ap__bad(a, ZB_EINVAL, "\"removals\" must be an array");
    for (i = 0; i < json_array_size(v); i++) {
        if (!json_is_string(json_array_get(v, i)))
            return ice_ap__bad(a, ZB_EINVAL, "removal %zu is not a string", i);
        json_object_del(props, json_string_value(json_array_get(v, i)));
    }
    return ZB_OK;
}

/* set-statistics, set-partition-statistics, add-encryption-key. */
static int do_put(apply_state *a, json_t *doc, const json_t *u,
                  const char *field, const char *list, const char *id_key)
{
    const json_t *obj, *id;
    json_t *arr;
    size_t i;
    int rc;

    if ((rc = ice_ap__need_obj(&obj, a, u, field)) < 0)
        return rc;
    id = json_object_get(obj, id_key);
    if (id == NULL || json_is_null(id))
        return ice_ap__bad(a, ZB_EINVAL, "%s has no \"%s\"", field, id_key);
    if ((arr = ice_ap__child(a, doc, list, 1)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < json_array_size(arr); i++)
        if (json_equal(json_object_get(json_array_get(arr, i), id_key), id)) {
            if (json_array_set_new(arr, i, json_deep_copy(obj)) < 0)
                return zb_fail_oom(a->ctx);
            return ZB_OK;
        }
    return ice_cj__push(a->ctx, arr, json_deep_copy(obj));
}

/* remove-statistics, remove-partition-statistics, remove-encryption-key. */
static int do_drop(apply_state *a, json_t *doc, const json_t *u,
                   const char *key, const char *list)
{
    json_t *ids;
    const json_t *id = json_object_get(u, key);

    if (id == NULL || json_is_null(id))
        return ice_ap__bad(a, ZB_EINVAL, "\"%s\" is missing", key);
    if ((ids = json_pack("[O]", id)) == NULL)
        return zb_fail_oom(a->ctx);
    drop_matching(doc, list, key, ids);
    json_decref(ids);
    return ZB_OK;
}

/* remove-partition-specs, remove-schemas. */
static int do_remove_ids(apply_state *a, json_t *doc, const json_t *u,
                         const char *key, const char *list,
                         const char *id_key, const char *current)
{
    const json_t *ids = json_object_get(u, key);
    const json_t *cur = json_object_get(doc, current);
    size_t j;
    int rc;

    if ((rc = ice_ap__norm_v1(a, doc)) < 0)
        return rc;
    if (!json_is_array(ids))
        return ice_ap__bad(a, ZB_EINVAL, "\"%s\" must be an array", key);
    for (j = 0; j < json_array_size(ids); j++) {
        if (!json_is_integer(json_array_get(ids, j)))
            return ice_ap__bad(a, ZB_EINVAL, "%s entry %zu is not an integer", key, j);
        if (json_equal(json_array_get(ids, j), cur))
            return ice_ap__bad(a, ZB_EINVAL, "cannot remove the %s %lld", current,
                       (long long)json_integer_value(cur));
    }
    drop_matching(doc, list, id_key, ids);
    return ZB_OK;
}

static int apply_one(apply_state *a, json_t *doc, const json_t *u)
{
    const char *act = a->action;
    int rc;

    if (strcmp(act, "assign-uuid") == 0) {
        const char *uuid;

        if ((rc = ice_ap__need_str(&uuid, a, u, "uuid")) < 0)
            return rc;
        return ice_cj__set(a->ctx, doc, "table-uuid", json_string(uuid));
    }
    if (strcmp(act, "upgrade-format-version") == 0)
        return ice_ap__upgrade(a, doc, u);
    if (strcmp(act, "add-schema") == 0)
        return ice_ap__add_schema(a, doc, u);
    if (strcmp(act, "set-current-schema") == 0)
        return ice_ap__set_schema(a, doc, u);
    if (strcmp(act, "add-spec") == 0)
        return ice_ap__add_spec(a, doc, u);
    if (strcmp(act, "set-default-spec") == 0)
        return ice_ap__set_spec(a, doc, u);
    if (strcmp(act, "add-sort-order") == 0)
        return ice_ap__add_order(a, doc, u);
    if (strcmp(act, "set-default-sort-order") == 0)
        return ice_ap__set_order(a, doc, u);
    if (strcmp(act, "add-snapshot") == 0)
        return do_add_snapshot(a, doc, u);
    if (strcmp(act, "set-snapshot-ref") == 0)
        return do_set_ref(a, doc, u);
    if (strcmp(act, "remove-snapshots") == 0)
        return do_remove_snapshots(a, doc, u);
    if (strcmp(act, "remove-snapshot-ref") == 0)
        return do_remove_ref(a, doc, u);
    if (strcmp(act, "set-location") == 0) {
        const char *loc;

        if ((rc = ice_ap__need_str(&loc, a, u, "location")) < 0)
            return rc;
        return ice_cj__set(a->ctx, doc, "location", json_string(loc));
    }
    if (strcmp(act, "set-properties") == 0)
        return do_properties(a, doc, u, 1);
    if (strcmp(act, "remove-properties") == 0)
        return do_properties(a, doc, u, 0);
    if (strcmp(act, "set-statistics") == 0)
        return do_put(a, doc, u, "statistics", "statistics", "snapshot-id");
    if (strcmp(act, "remove-statistics") == 0)
        return do_drop(a, doc, u, "snapshot-id", "statistics");
    if (strcmp(act, "set-partition-statistics") == 0)
        return do_put(a, doc, u, "partition-statistics",
                      "partition-statistics", "snapshot-id");
    if (strcmp(act, "remove-partition-statistics") == 0)
        return do_drop(a, doc, u, "snapshot-id", "partition-statistics");
    if (strcmp(act, "remove-partition-specs") == 0)
        return do_remove_ids(a, doc, u, "spec-ids", "partition-specs",
                             "spec-id", "default-spec-id");
    if (strcmp(act, "remove-schemas") == 0)
        return do_remove_ids(a, doc, u, "schema-ids", "schemas", "schema-id",
                             "current-schema-id");
    if (strcmp(act, "add-encryption-key") == 0)
        return do_put(a, doc, u, "encryption-key", "encryption-keys",
                      "key-id");
    if (strcmp(act, "remove-encryption-key") == 0)
        return do_drop(a, doc, u, "key-id", "encryption-keys");
    return zb_fail(a->ctx, ZB_EUNSUPPORTED, "update %zu: action \"%.60s\" is "
                   "not supported on tables", a->i, act);
}

static int edit_all(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                    const void *arg)
{
    const json_t *updates = arg;
    apply_state a;
    int rc = ZB_OK;

    ZB_UNUSED(m);
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.now_ms = ice_commit__now_ms();
    if ((a.added_snaps = json_array()) == NULL)
        return zb_fail_oom(ctx);
    for (a.i = 0; a.i < json_array_size(updates); a.i++) {
        const json_t *u = json_array_get(updates, a.i);

        a.action = json_string_value(json_object_get(u, "action"));
        if (!json_is_object(u) || a.action == NULL) {
            rc = zb_fail(ctx, ZB_EINVAL, "update %zu has no \"action\"", a.i);
            goto done;
        }
        if ((rc = apply_one(&a, doc, u)) < 0)
            goto done;
    }
    if (a.removed)
        trim_snapshot_log(doc);
    rc = ice_cj__set(ctx, doc, "last-updated-ms",
                     json_integer(a.added ? a.last_snap_ts : a.now_ms));
done:
    json_decref(a.added_snaps);
    return rc;
}

/* A rebuild that refused the result (ZB_ECORRUPT): the updates are at
 * fault, so the caller gets ZB_EINVAL. */
static int updates_at_fault(zb_ctx *ctx, int rc)
{
    if (rc == ZB_ECORRUPT) {
        zb_err_prefix(ctx, "the updates would make invalid metadata");
        ctx->err.code = rc = ZB_EINVAL;
    }
    return rc;
}

int ice_commit_apply_updates(ice_metadata *m, zb_ctx *ctx,
                             const zb_json *updates_json)
{
    const json_t *updates = (const json_t *)updates_json;

    ZB_ASSERT_ARG(m && ctx);
    if (updates == NULL || (json_is_array(updates) &&
                            json_array_size(updates) == 0))
        return ZB_OK;
    if (!json_is_array(updates))
        return zb_fail(ctx, ZB_EINVAL, "updates must be a JSON array");
    return updates_at_fault(ctx, ice_metadata__edit(m, ctx, edit_all,
                                                    updates));
}

typedef struct next_arg {
    const json_t *updates;
    const char *prev_file;
    int64_t prev_ms;
    size_t max_log;
} next_arg;

static int edit_next(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                     const void *arg)
{
    const next_arg *a = arg;
    int rc;

    if (a->updates != NULL && json_array_size(a->updates) > 0 &&
        (rc = edit_all(doc, m, ctx, a->updates)) < 0)
        return rc;
    return ice_metadata__log_metadata(doc, ctx, a->prev_file, a->prev_ms,
                                      a->max_log);
}

int ice_commit_apply_next(ice_metadata **out, const ice_metadata *base,
                          zb_ctx *ctx, const zb_json *updates_json,
                          const char *prev_file, int64_t prev_ms,
                          size_t max_log)
{
    next_arg a;

    ZB_ASSERT_ARG(out && base && ctx && prev_file);
    *out = NULL;
    a.updates = (const json_t *)updates_json;
    a.prev_file = prev_file;
    a.prev_ms = prev_ms;
    a.max_log = max_log;
    if (a.updates != NULL && !json_is_array(a.updates))
        return zb_fail(ctx, ZB_EINVAL, "updates must be a JSON array");
    return updates_at_fault(ctx, ice_metadata__edit_from(out, base, ctx,
                                                         edit_next, &a));
}

/*
 * table/metadata/metadata_write.c - writing metadata JSON and changing it
 * through setters (see table/metadata/metadata.h).
 *
 * Writing serialises the kept jansson document, keys in their insertion
 * order (jansson 2.8+ keeps objects ordered; replacing a key's value with
 * json_object_set_new keeps its place, new keys go last), integers as
 * 64-bit json_int_t, reals with 17 significant digits, so that what was
 * read is what is written apart from whitespace.
 *
 * Every setter runs the same transaction, ice_metadata__edit() (the
 * commit module's updates run in it too):
 *   1. deep-copy the document,
 *   2. edit the copy (an edit function below, which validates against the
 *      current model first),
 *   3. build a new model from the copy (the full parse checks, so a setter
 *      can never produce metadata that would not load again),
 *   4. swap document and model in, free the old ones.
 * Any failure frees the copy and leaves the metadata untouched.
 */
#define ZB_MODULE "table"

#include <string.h>

#include "table/metadata/metadata_int.h"
#include "util/alloc.h"
#include "util/err.h"

int ice_metadata_write(zb_buf *out, const ice_metadata *m, zb_ctx *ctx)
{
    size_t old_len;

    ZB_ASSERT_ARG(out && m && m->internal && ctx);
    old_len = out->len;
    if (ice_json__dump(out, m->internal->doc, JSON_INDENT(2)) < 0) {
        zb_buf_truncate(out, old_len);
        return zb_fail(ctx, ZB_ENOMEM, "%s: metadata does not fit the "
                       "output buffer or memory", m->source_uri);
    }
    return ZB_OK;
}

/* ---- the setter transaction ------------------------------------------- */

int ice_metadata__edit_from(ice_metadata **out, const ice_metadata *base,
                            zb_ctx *ctx, ice_edit_fn edit, const void *arg)
{
    ice_metadata *next;
    json_t *copy;
    int rc;

    ZB_ASSERT_ARG(out && base && base->internal && ctx && edit);
    *out = NULL;
    if ((next = zb_calloc(1, sizeof *next)) == NULL)
        return zb_fail_oom(ctx);
    if ((copy = json_deep_copy(base->internal->doc)) == NULL) {
        zb_free(next);
        return zb_fail_oom(ctx);
    }
    if ((rc = edit(copy, base, ctx, arg)) < 0 ||
        (rc = ice_metadata__build(next, ctx, copy, base->source_uri)) < 0) {
        json_decref(copy);
        zb_free(next);
        return rc;
    }
    *out = next;
    return ZB_OK;
}

int ice_metadata__edit(ice_metadata *m, zb_ctx *ctx, ice_edit_fn edit,
                       const void *arg)
{
    struct ice_metadata_int *old;
    ice_metadata *next;
    int rc;

    ZB_ASSERT_ARG(m && m->internal && ctx && edit);
    if ((rc = ice_metadata__edit_from(&next, m, ctx, edit, arg)) < 0)
        return rc;
    old = m->internal;
    *m = *next;
    zb_free(next);
    ice_metadata__free_int(old);
    return ZB_OK;
}

/* Structure check only; jansson rejects what it does not take. */
static int valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;

    while (*u) {
        int n = *u < 0x80 ? 0 : (*u & 0xE0) == 0xC0 ? 1
              : (*u & 0xF0) == 0xE0 ? 2 : (*u & 0xF8) == 0xF0 ? 3 : -1;

        if (n < 0)
            return 0;
        for (u++; n > 0; n--, u++)
            if ((*u & 0xC0) != 0x80)
                return 0;
    }
    return 1;
}

static int set_str(zb_ctx *ctx, json_t *obj, const char *key, const char *s)
{
    if (!valid_utf8(s) || !valid_utf8(key))
        return zb_fail(ctx, ZB_EINVAL, "\"%.60s\" is not valid UTF-8", key);
    return ice_cj__set(ctx, obj, key, json_string(s));
}

static int set_int(zb_ctx *ctx, json_t *obj, const char *key, int64_t v)
{
    return ice_cj__set(ctx, obj, key, json_integer((json_int_t)v));
}

/* doc[key] as an object or array, created (last in order) when absent. */
static json_t *child(zb_ctx *ctx, json_t *doc, const char *key, int array)
{
    json_t *c = json_object_get(doc, key);

    if (c != NULL && (array ? json_is_array(c) : json_is_object(c)))
        return c;
    c = array ? json_array() : json_object();
    if (ice_cj__set(ctx, doc, key, c) < 0)
        return NULL;
    return c;
}

/* ---- properties and timestamps --------------------------------------- */

typedef struct kv_arg {
    const char *key;
    const char *value;
} kv_arg;

static int edit_set_property(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                             const void *arg)
{
    const kv_arg *a = arg;
    json_t *props = child(ctx, doc, "properties", 0);

    ZB_UNUSED(m);
    if (props == NULL)
        return ZB_ENOMEM;
    return set_str(ctx, props, a->key, a->value);
}

int ice_metadata_set_property(ice_metadata *m, zb_ctx *ctx, const char *key,
                              const char *value)
{
    kv_arg a = { key, value };

    ZB_ASSERT_ARG(m && ctx && key && value);
    return ice_metadata__edit(m, ctx, edit_set_property, &a);
}

static int edit_remove_property(json_t *doc, const ice_metadata *m,
                                zb_ctx *ctx, const void *arg)
{
    json_t *props = json_object_get(doc, "properties");

    ZB_UNUSED(m);
    ZB_UNUSED(ctx);
    if (json_is_object(props))
        json_object_del(props, arg);
    return ZB_OK;
}

int ice_metadata_remove_property(ice_metadata *m, zb_ctx *ctx,
                                 const char *key)
{
    ZB_ASSERT_ARG(m && ctx && key);
    if (ice_metadata_property(m, key) == NULL)
        return ZB_OK;
    return ice_metadata__edit(m, ctx, edit_remove_property, key);
}

static int edit_last_updated(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                             const void *arg)
{
    ZB_UNUSED(m);
    return set_int(ctx, doc, "last-updated-ms", *(const int64_t *)arg);
}

int ice_metadata_set_last_updated_ms(ice_metadata *m, zb_ctx *ctx,
                                     int64_t timestamp_ms)
{
    ZB_ASSERT_ARG(m && ctx);
    return ice_metadata__edit(m, ctx, edit_last_updated, &timestamp_ms);
}

/* ---- refs -------------------------------------------------------------- */

static int set_or_drop(zb_ctx *ctx, json_t *obj, const char *key, int64_t v)
{
    if (v < 0) {
        json_object_del(obj, key);
        return ZB_OK;
    }
    return set_int(ctx, obj, key, v);
}

/*
 * Points ref->name at ref->snapshot_id in doc; for "main" also moves
 * current-snapshot-id and logs the change at log_ts_ms. An existing ref
 * object keeps any fields Zamboni does not know.
 */
static int put_ref(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                   const ice_ref *ref, int64_t log_ts_ms)
{
    json_t *refs, *r, *log, *entry;
    int is_main = strcmp(ref->name, "main") == 0;
    int rc;

    if (is_main && ref->type != ICE_REF_BRANCH)
        return zb_fail(ctx, ZB_EINVAL, "ref \"main\" must be a branch");
    if ((refs = child(ctx, doc, "refs", 0)) == NULL)
        return ZB_ENOMEM;
    r = json_object_get(refs, ref->name);
    if (!json_is_object(r)) {
        if (!valid_utf8(ref->name))
            return zb_fail(ctx, ZB_EINVAL, "ref name is not valid UTF-8");
        if ((rc = ice_cj__set(ctx, refs, ref->name, json_object())) < 0)
            return rc;
        r = json_object_get(refs, ref->name);
    }
    if ((rc = set_int(ctx, r, "snapshot-id", ref->snapshot_id)) < 0 ||
        (rc = set_str(ctx, r, "type", ref->type == ICE_REF_TAG ? "tag"
                                                                : "branch")) < 0 ||
        (rc = set_or_drop(ctx, r, "min-snapshots-to-keep",
                          ref->min_snapshots_to_keep)) < 0 ||
        (rc = set_or_drop(ctx, r, "max-snapshot-age-ms",
                          ref->max_snapshot_age_ms)) < 0 ||
        (rc = set_or_drop(ctx, r, "max-ref-age-ms", ref->max_ref_age_ms)) < 0)
        return rc;
    if (!is_main || m->current_snapshot_id == ref->snapshot_id)
        return ZB_OK;
    if ((rc = set_int(ctx, doc, "current-snapshot-id", ref->snapshot_id)) < 0)
        return rc;
    if ((log = child(ctx, doc, "snapshot-log", 1)) == NULL)
        return ZB_ENOMEM;
    if ((entry = json_object()) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = ice_cj__push(ctx, log, entry)) < 0 ||
        (rc = set_int(ctx, entry, "timestamp-ms", log_ts_ms)) < 0 ||
        (rc = set_int(ctx, entry, "snapshot-id", ref->snapshot_id)) < 0)
        return rc;
    return ZB_OK;
}

static int edit_set_ref(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                        const void *arg)
{
    const ice_ref *ref = arg;

    if (ice_metadata_snapshot(m, ref->snapshot_id) == NULL)
        return zb_fail(ctx, ZB_EINVAL, "ref \"%.60s\": snapshot %lld is not "
                       "in the table", ref->name,
                       (long long)ref->snapshot_id);
    return put_ref(doc, m, ctx, ref, m->last_updated_ms);
}

int ice_metadata_set_ref(ice_metadata *m, zb_ctx *ctx, const ice_ref *ref)
{
    ZB_ASSERT_ARG(m && ctx && ref && ref->name);
    return ice_metadata__edit(m, ctx, edit_set_ref, ref);
}

static int edit_remove_ref(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                           const void *arg)
{
    json_t *refs = json_object_get(doc, "refs");

    ZB_UNUSED(m);
    ZB_UNUSED(ctx);
    if (json_is_object(refs))
        json_object_del(refs, arg);
    return ZB_OK;
}

int ice_metadata_remove_ref(ice_metadata *m, zb_ctx *ctx, const char *name)
{
    const ice_ref *r;

    ZB_ASSERT_ARG(m && ctx && name);
    if (strcmp(name, "main") == 0)
        return zb_fail(ctx, ZB_EINVAL, "the main branch cannot be removed");
    if ((r = ice_metadata_ref(m, name)) == NULL || r->implicit)
        return ZB_OK;
    return ice_metadata__edit(m, ctx, edit_remove_ref, name);
}

/* ---- metadata log ------------------------------------------------------ */

int ice_metadata__log_metadata(json_t *doc, zb_ctx *ctx, const char *file,
                               int64_t timestamp_ms, size_t max_entries)
{
    json_t *log, *entry;
    int rc;

    if ((log = child(ctx, doc, "metadata-log", 1)) == NULL)
        return ZB_ENOMEM;
    if ((entry = json_object()) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = ice_cj__push(ctx, log, entry)) < 0 ||
        (rc = set_int(ctx, entry, "timestamp-ms", timestamp_ms)) < 0 ||
        (rc = set_str(ctx, entry, "metadata-file", file)) < 0)
        return rc;
    while (max_entries > 0 && json_array_size(log) > max_entries)
        json_array_remove(log, 0);
    return ZB_OK;
}

typedef struct mlog_arg {
    const char *file;
    int64_t timestamp_ms;
    size_t max_entries;
} mlog_arg;

static int edit_mlog(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                     const void *arg)
{
    const mlog_arg *a = arg;

    ZB_UNUSED(m);
    return ice_metadata__log_metadata(doc, ctx, a->file, a->timestamp_ms,
                                      a->max_entries);
}

int ice_metadata_append_metadata_log(ice_metadata *m, zb_ctx *ctx,
                                     const char *metadata_file,
                                     int64_t timestamp_ms, size_t max_entries)
{
    mlog_arg a = { metadata_file, timestamp_ms, max_entries };

    ZB_ASSERT_ARG(m && ctx && metadata_file);
    return ice_metadata__edit(m, ctx, edit_mlog, &a);
}

/* ---- snapshots --------------------------------------------------------- */

static int check_new_snapshot(const ice_metadata *m, zb_ctx *ctx,
                              const ice_snapshot_new *s, int64_t first_row_id)
{
    if (s->snapshot_id < 0 || ice_metadata_snapshot(m, s->snapshot_id))
        return zb_fail(ctx, ZB_EINVAL, "snapshot id %lld is taken or "
                       "negative", (long long)s->snapshot_id);
    if (m->format_version >= 2 &&
        s->sequence_number <= m->last_sequence_number)
        return zb_fail(ctx, ZB_EINVAL, "sequence number %lld is not above "
                       "last-sequence-number %lld",
                       (long long)s->sequence_number,
                       (long long)m->last_sequence_number);
    if (s->schema_id >= 0 && ice_metadata_schema(m, s->schema_id) == NULL)
        return zb_fail(ctx, ZB_EINVAL, "schema %d is not in the table",
                       (int)s->schema_id);
    if (m->format_version >= 3 &&
        (first_row_id < m->next_row_id || s->added_rows < 0 ||
         first_row_id > INT64_MAX - s->added_rows))
        return zb_fail(ctx, ZB_EINVAL, "first-row-id %lld is below "
                       "next-row-id %lld or added-rows is invalid",
                       (long long)first_row_id, (long long)m->next_row_id);
    if (s->manifest_list == NULL || s->operation == NULL)
        return zb_fail(ctx, ZB_EINVAL, "a snapshot needs a manifest list and "
                       "an operation");
    return ZB_OK;
}

/* The snapshot object, keys in Iceberg Java's order. */
static int snapshot_json(json_t **out, const ice_metadata *m, zb_ctx *ctx,
                         const ice_snapshot_new *s, int64_t first_row_id)
{
    json_t *o = json_object(), *sum = NULL;
    size_t i;
    int rc = ZB_OK;

    *out = o;
    if (o == NULL)
        return zb_fail_oom(ctx);
    if (m->format_version >= 2)
        rc = set_int(ctx, o, "sequence-number", s->sequence_number);
    if (rc < 0 || (rc = set_int(ctx, o, "snapshot-id", s->snapshot_id)) < 0)
        return rc;
    if (s->parent_snapshot_id != ICE_NO_SNAPSHOT &&
        (rc = set_int(ctx, o, "parent-snapshot-id",
                      s->parent_snapshot_id)) < 0)
        return rc;
    if ((rc = set_int(ctx, o, "timestamp-ms", s->timestamp_ms)) < 0 ||
        (rc = ice_cj__set(ctx, o, "summary", json_object())) < 0)
        return rc;
    sum = json_object_get(o, "summary");
    if ((rc = set_str(ctx, sum, "operation", s->operation)) < 0)
        return rc;
    for (i = 0; i < s->n_summary; i++) {
        if (strcmp(s->summary[i].key, "operation") == 0)
            continue;
        if ((rc = set_str(ctx, sum, s->summary[i].key,
                          s->summary[i].value)) < 0)
            return rc;
    }
    if ((rc = set_str(ctx, o, "manifest-list", s->manifest_list)) < 0 ||
        (rc = set_int(ctx, o, "schema-id", s->schema_id >= 0
                                               ? s->schema_id
                                               : m->current_schema_id)) < 0)
        return rc;
    if (m->format_version >= 3 &&
        ((rc = set_int(ctx, o, "first-row-id", first_row_id)) < 0 ||
         (rc = set_int(ctx, o, "added-rows", s->added_rows)) < 0))
        return rc;
    return ZB_OK;
}

static int edit_add_snapshot(json_t *doc, const ice_metadata *m, zb_ctx *ctx,
                             const void *arg)
{
    const ice_snapshot_new *s = arg;
    int64_t first = s->first_row_id < 0 ? m->next_row_id : s->first_row_id;
    const ice_ref *old;
    ice_ref ref;
    json_t *snaps, *o = NULL;
    int rc;

    if ((rc = check_new_snapshot(m, ctx, s, first)) < 0)
        return rc;
    if ((snaps = child(ctx, doc, "snapshots", 1)) == NULL)
        return ZB_ENOMEM;
    if ((rc = snapshot_json(&o, m, ctx, s, first)) < 0) {
        json_decref(o);
        return rc;
    }
    if ((rc = ice_cj__push(ctx, snaps, o)) < 0)
        return rc;
    if (m->format_version >= 2 &&
        (rc = set_int(ctx, doc, "last-sequence-number",
                      s->sequence_number)) < 0)
        return rc;
    if ((rc = set_int(ctx, doc, "last-updated-ms", s->timestamp_ms)) < 0)
        return rc;
    if (m->format_version >= 3 &&
        (rc = set_int(ctx, doc, "next-row-id", first + s->added_rows)) < 0)
        return rc;
    memset(&ref, 0, sizeof ref);
    ref.name = s->branch ? s->branch : "main";
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = s->snapshot_id;
    ref.min_snapshots_to_keep = -1;
    ref.max_snapshot_age_ms = -1;
    ref.max_ref_age_ms = -1;
    if ((old = ice_metadata_ref(m, ref.name)) != NULL && !old->implicit) {
        if (old->type != ICE_REF_BRANCH)
            return zb_fail(ctx, ZB_EINVAL, "\"%.60s\" is a tag, not a "
                           "branch", ref.name);
        /* Keep the branch's retention settings. */
        ref.min_snapshots_to_keep = old->min_snapshots_to_keep;
        ref.max_snapshot_age_ms = old->max_snapshot_age_ms;
        ref.max_ref_age_ms = old->max_ref_age_ms;
    }
    return put_ref(doc, m, ctx, &ref, s->timestamp_ms);
}

int ice_metadata_add_snapshot(ice_metadata *m, zb_ctx *ctx,
                              const ice_snapshot_new *s)
{
    ZB_ASSERT_ARG(m && ctx && s);
    return ice_metadata__edit(m, ctx, edit_add_snapshot, s);
}

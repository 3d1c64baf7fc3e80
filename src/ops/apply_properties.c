/*
 * ops/apply_properties.c - apply-properties (see ops/apply_properties.h):
 * compare the declaration with the loaded table, build one commit of the
 * differences, retry a lost race from a fresh load.
 */
#define ZB_MODULE "apply-properties"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ops/apply_properties.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"

#define MAX_ATTEMPTS 3

/* Keys Iceberg derives from the metadata and never stores. */
static int reserved_key(const char *k)
{
    static const char *const r[] = { "format-version", "uuid",
        "snapshot-count", "current-snapshot-id", "current-snapshot-summary",
        "current-snapshot-timestamp-ms", "current-schema",
        "default-partition-spec", "default-sort-order" };
    size_t i;

    for (i = 0; i < sizeof r / sizeof r[0]; i++)
        if (strcmp(k, r[i]) == 0)
            return 1;
    return 0;
}

void zb_apply_props_result_free(zb_apply_props_result *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; i < r->n_changes; i++) {
        zb_free(r->changes[i].key);
        zb_free(r->changes[i].old_value);
        zb_free(r->changes[i].new_value);
    }
    zb_free(r->changes);
    r->changes = NULL;
    r->n_changes = 0;
}

static int add_change(zb_apply_props_result *r, zb_ctx *ctx, const char *key,
                      const char *old_value, const char *new_value)
{
    zb_apply_props_change *c;

    c = zb_realloc(r->changes, (r->n_changes + 1) * sizeof *c);
    if (c == NULL)
        return zb_fail_oom(ctx);
    r->changes = c;
    c += r->n_changes;
    memset(c, 0, sizeof *c);
    r->n_changes++;
    if ((c->key = zb_strdup(key)) == NULL ||
        (old_value && (c->old_value = zb_strdup(old_value)) == NULL) ||
        (new_value && (c->new_value = zb_strdup(new_value)) == NULL))
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* ---- sort orders ------------------------------------------------------- */

/* The field id of a column name (dotted: nested struct fields). */
static int32_t column_id(const ice_schema *s, const char *name)
{
    const ice_type *st = s->root;
    const char *p = name;

    while (st != NULL && st->id == ICE_STRUCT) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p), i;
        const ice_field *hit = NULL;

        for (i = 0; i < st->n_fields && hit == NULL; i++)
            if (strlen(st->fields[i].name) == len &&
                memcmp(st->fields[i].name, p, len) == 0)
                hit = &st->fields[i];
        if (hit == NULL)
            return -1;
        if (dot == NULL)
            return hit->id;
        st = hit->type;
        p = dot + 1;
    }
    return -1;
}

/* The declared order as a SortOrder JSON object (*out), or NULL when
 * the order is not declared. */
static int desired_order(json_t **out, zb_ctx *ctx, const ice_metadata *m,
                         const zb_apply_props_opts *o, const char *table)
{
    const ice_schema *s = ice_metadata_current_schema(m);
    json_t *fields;
    size_t i;

    *out = NULL;
    if (o->sort_order != NULL) {
        if (!json_is_array(json_object_get((const json_t *)o->sort_order,
                                           "fields")))
            return zb_fail(ctx, ZB_EINVAL, "%s: the declared sort order has "
                           "no \"fields\" array", table);
        if ((*out = json_deep_copy((const json_t *)o->sort_order)) == NULL)
            return zb_fail_oom(ctx);
        return ZB_OK;
    }
    if (o->n_sort == 0 && !o->sort_unsorted)
        return ZB_OK;
    if ((fields = json_array()) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < o->n_sort; i++) {
        const zb_sort_column *c = &o->sort[i];
        int32_t id = s ? column_id(s, c->column) : -1;

        if (id < 0) {
            json_decref(fields);
            return zb_fail(ctx, ZB_EINVAL, "%s: sort column %s is not in the "
                           "table schema", table, c->column);
        }
        if (json_array_append_new(fields, json_pack(
                "{sssiss ss}", "transform",
                c->transform ? c->transform : "identity", "source-id",
                (int)id, "direction", c->descending ? "desc" : "asc",
                "null-order", c->nulls_first ? "nulls-first"
                                             : "nulls-last")) < 0) {
            json_decref(fields);
            return zb_fail_oom(ctx);
        }
    }
    if ((*out = json_pack("{sisO}", "order-id", 0, "fields", fields)) == NULL) {
        json_decref(fields);
        return zb_fail_oom(ctx);
    }
    json_decref(fields);
    return ZB_OK;
}

/* Whether the JSON fields equal the order's (missing keys: defaults). */
static int order_equal(const ice_sort_order *cur, const json_t *fields)
{
    size_t i;

    if (cur == NULL)
        return json_array_size(fields) == 0;
    if (json_array_size(fields) != cur->n_fields)
        return 0;
    for (i = 0; i < cur->n_fields; i++) {
        const json_t *f = json_array_get(fields, i);
        const ice_sort_field *c = &cur->fields[i];
        const char *tr = json_string_value(json_object_get(f, "transform"));
        const char *dir = json_string_value(json_object_get(f, "direction"));
        const char *no = json_string_value(json_object_get(f, "null-order"));
        json_int_t src = json_integer_value(json_object_get(f, "source-id"));

        if (src != c->source_id || strcmp(tr ? tr : "identity", c->transform))
            return 0;
        if ((dir && strcmp(dir, "desc") == 0) != (c->direction == ICE_SORT_DESC))
            return 0;
        if (no == NULL)        /* Iceberg's default: first for asc */
            no = (dir && strcmp(dir, "desc") == 0) ? "nulls-last"
                                                     : "nulls-first";
        if ((strcmp(no, "nulls-first") == 0) != (c->null_order == ICE_NULLS_FIRST))
            return 0;
    }
    return 1;
}

/* "id asc nulls-last, bucket[4](k) desc nulls-first" or "unsorted". */
static int order_text(zb_buf *out, const ice_schema *s, const json_t *fields,
                      const ice_sort_order *cur)
{
    size_t i, n = cur ? cur->n_fields : json_array_size(fields);
    int rc = ZB_OK;

    zb_buf_clear(out);
    if (n == 0)
        return zb_buf_puts(out, "unsorted");
    for (i = 0; i < n && rc == ZB_OK; i++) {
        int32_t src;
        const char *tr, *dir, *no;
        const ice_field *f;

        if (cur) {
            src = cur->fields[i].source_id;
            tr = cur->fields[i].transform;
            dir = cur->fields[i].direction == ICE_SORT_DESC ? "desc" : "asc";
            no = cur->fields[i].null_order == ICE_NULLS_FIRST ? "nulls-first"
                                                               : "nulls-last";
        } else {
            const json_t *j = json_array_get(fields, i);

            src = (int32_t)json_integer_value(json_object_get(j, "source-id"));
            tr = json_string_value(json_object_get(j, "transform"));
            dir = json_string_value(json_object_get(j, "direction"));
            no = json_string_value(json_object_get(j, "null-order"));
            if (tr == NULL)
                tr = "identity";
            if (dir == NULL)
                dir = "asc";
            if (no == NULL)
                no = strcmp(dir, "desc") == 0 ? "nulls-last" : "nulls-first";
        }
        f = s ? ice_schema_find_field(s, src) : NULL;
        if (i > 0)
            rc = zb_buf_puts(out, ", ");
        if (rc == ZB_OK && strcmp(tr, "identity") == 0)
            rc = zb_buf_appendf(out, "%s", f ? f->name : "?");
        else if (rc == ZB_OK)
            rc = zb_buf_appendf(out, "%s(%s)", tr, f ? f->name : "?");
        if (rc == ZB_OK)
            rc = zb_buf_appendf(out, " %s %s", dir, no);
    }
    return rc;
}

/* ---- one attempt --------------------------------------------------------- */

typedef struct plan {
    json_t *reqs, *updates;
    json_t *set;                   /* key -> value */
    json_t *remove;                /* [key] */
} plan;

static void plan_free(plan *p)
{
    json_decref(p->reqs);
    json_decref(p->updates);
    json_decref(p->set);
    json_decref(p->remove);
    memset(p, 0, sizeof *p);
}

/* Long: one pass from the options to the commit's requirements and
 * updates, a step each (format version, properties set and removed, sort
 * order, the table's identity), each with its refusal, sharing the
 * cleanup at done. */
static int compare(plan *p, zb_ctx *ctx, const ice_metadata *m,
                   const zb_apply_props_opts *o, const char *table,
                   zb_apply_props_result *r)
{
    json_t *order = NULL;
    zb_buf a, b;
    size_t i;
    int rc = ZB_OK;

    zb_apply_props_result_free(r);
    zb_buf_init(&a, 1 << 20);
    zb_buf_init(&b, 1 << 20);
    if ((p->reqs = json_array()) == NULL ||
        (p->updates = json_array()) == NULL ||
        (p->set = json_object()) == NULL ||
        (p->remove = json_array()) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (o->format_version != 0) {
        if (o->format_version < m->format_version) {
            rc = zb_fail(ctx, ZB_EREFUSED, "%s: format version %d is below "
                         "the table's %d: Iceberg tables are never "
                         "downgraded", table, o->format_version,
                         m->format_version);
            goto done;
        }
        if (o->format_version > 3) {
            rc = zb_fail(ctx, ZB_EUNSUPPORTED, "%s: format version %d is not "
                         "supported (at most 3)", table, o->format_version);
            goto done;
        }
        if (o->format_version > m->format_version) {
            char was[16], now[16];

            snprintf(was, sizeof was, "%d", m->format_version);
            snprintf(now, sizeof now, "%d", o->format_version);
            if ((rc = add_change(r, ctx, "format-version", was, now)) < 0 ||
                (rc = ice_commit_append((zb_json *)p->updates, ctx,
                                        (zb_json *)json_pack(
                     "{sssi}", "action", "upgrade-format-version",
                     "format-version", o->format_version))) < 0)
                goto done;
        }
    }
    for (i = 0; i < o->n_set; i++) {
        const char *k = o->set[i].key, *v = o->set[i].value;
        const char *have;
        size_t j;

        if (k == NULL || v == NULL || reserved_key(k)) {
            rc = zb_fail(ctx, ZB_EINVAL, "%s: property %s cannot be set "
                         "(reserved, or no value)", table, k ? k : "(null)");
            goto done;
        }
        for (j = i + 1; j < o->n_set; j++)
            if (strcmp(o->set[j].key, k) == 0)
                break;
        if (j < o->n_set)
            continue;              /* the last declaration wins */
        have = ice_metadata_property(m, k);
        if (have != NULL && strcmp(have, v) == 0)
            continue;
        if ((rc = add_change(r, ctx, k, have, v)) < 0)
            goto done;
        if (json_object_set_new(p->set, k, json_string(v)) < 0) {
            rc = zb_fail(ctx, ZB_EINVAL, "%s: property %s: the value is not "
                         "UTF-8", table, k);
            goto done;
        }
    }
    for (i = 0; i < o->n_remove; i++) {
        const char *k = o->remove[i];
        const char *have = ice_metadata_property(m, k);
        size_t j, dup = 0;

        if (have == NULL || json_object_get(p->set, k) != NULL)
            continue;
        for (j = 0; j < json_array_size(p->remove); j++)
            dup |= strcmp(json_string_value(json_array_get(p->remove, j)),
                          k) == 0;
        if (dup)
            continue;
        if ((rc = add_change(r, ctx, k, have, NULL)) < 0 ||
            (rc = ice_commit_append((zb_json *)p->remove, ctx,
                                    (zb_json *)json_string(k))) < 0)
            goto done;
    }
    if (json_object_size(p->set) > 0) {
        ice_kv *kv = zb_calloc(json_object_size(p->set), sizeof *kv);
        const char *k;
        json_t *v;
        size_t n = 0;

        if (kv == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        json_object_foreach(p->set, k, v) {
            kv[n].key = k;
            kv[n++].value = json_string_value(v);
        }
        rc = ice_commit_append((zb_json *)p->updates, ctx,
                               ice_update_set_properties(kv, n));
        zb_free(kv);
        if (rc < 0)
            goto done;
    }
    if (json_array_size(p->remove) > 0) {
        const char **keys = zb_calloc(json_array_size(p->remove), sizeof *keys);

        if (keys == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        for (i = 0; i < json_array_size(p->remove); i++)
            keys[i] = json_string_value(json_array_get(p->remove, i));
        rc = ice_commit_append((zb_json *)p->updates, ctx,
                               ice_update_remove_properties(
                                   keys, json_array_size(p->remove)));
        zb_free(keys);
        if (rc < 0)
            goto done;
    }
    if ((rc = desired_order(&order, ctx, m, o, table)) < 0)
        goto done;
    if (order != NULL) {
        const ice_sort_order *cur =
            ice_metadata_sort_order(m, m->default_sort_order_id);
        const json_t *fields = json_object_get(order, "fields");

        if (!order_equal(cur, fields)) {
            const ice_schema *s = ice_metadata_current_schema(m);

            if ((rc = order_text(&a, s, NULL, cur)) < 0 ||
                (rc = order_text(&b, s, fields, NULL)) < 0 ||
                (rc = add_change(r, ctx, "sort-order", zb_buf_cstr(&a),
                                 zb_buf_cstr(&b))) < 0 ||
                (rc = ice_update_set_sort_order((zb_json *)p->updates, ctx,
                                                (const zb_json *)order)) < 0 ||
                (rc = ice_commit_append((zb_json *)p->reqs, ctx,
                                        (zb_json *)json_pack(
                     "{sssi}", "type", "assert-default-sort-order-id",
                     "default-sort-order-id",
                     (int)m->default_sort_order_id))) < 0)
                goto done;
        }
    }
    if (m->table_uuid != NULL &&
        (rc = ice_commit_append((zb_json *)p->reqs, ctx,
                                ice_requirement_table_uuid(m->table_uuid))) < 0)
        goto done;
    rc = ice_commit_append((zb_json *)p->reqs, ctx,
                           ice_requirement_ref_snapshot_id(
                               "main", m->current_snapshot_id));
done:
    json_decref(order);
    zb_buf_free(&a);
    zb_buf_free(&b);
    return rc;
}

int zb_apply_properties(const zb_op_target *t, zb_ctx *ctx,
                        const zb_apply_props_opts *o,
                        zb_apply_props_result *r)
{
    zb_table *tbl = NULL, *done = NULL;
    int rc = ZB_OK, attempt;

    ZB_ASSERT_ARG(t && t->catalog && t->ident && ctx && o && r);
    memset(r, 0, sizeof *r);
    for (attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        plan p;

        memset(&p, 0, sizeof p);
        if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tbl)) < 0)
            break;
        rc = compare(&p, ctx, tbl->meta, o, t->ident, r);
        if (rc == ZB_OK && r->n_changes > 0 && !t->dry_run) {
            r->attempts++;
            rc = zb_catalog_commit(t->catalog, ctx, tbl,
                                   (const zb_json *)p.reqs,
                                   (const zb_json *)p.updates,
                                   &done);
            if (rc == ZB_OK)
                r->committed = 1;
        }
        plan_free(&p);
        zb_table_free(tbl);
        zb_table_free(done);
        tbl = done = NULL;
        if (rc != ZB_ECONFLICT || attempt == MAX_ATTEMPTS)
            break;
        zb_err_clear(&ctx->err);
    }
    return rc;
}

/* ---- report and config keys -------------------------------------------- */

int zb_apply_properties_report(zb_buf *out, const char *table,
                               const zb_apply_props_result *r, int dry_run)
{
    size_t i;
    int rc;

    if (r->n_changes == 0)
        return zb_buf_appendf(out, "%s: properties already match\n", table);
    if ((rc = zb_buf_appendf(out, "%s: %s %zu propert%s\n", table,
                             dry_run ? "would set" : "set", r->n_changes,
                             r->n_changes == 1 ? "y" : "ies")) < 0)
        return rc;
    for (i = 0; i < r->n_changes; i++) {
        const zb_apply_props_change *c = &r->changes[i];

        if ((rc = zb_buf_appendf(out, "  %s: %s -> %s\n", c->key,
                                 c->old_value ? c->old_value : "(unset)",
                                 c->new_value ? c->new_value : "(unset)")) < 0)
            return rc;
    }
    return ZB_OK;
}

size_t zb_config_props_to_properties(zb_config_prop *out,
                                     const zb_config_props *c)
{
    const int64_t day_ms = (int64_t)24 * 3600 * 1000;
    size_t n = 0;

#define PUT(k, fmt, v) do { out[n].key = (k); \
        snprintf(out[n].value, sizeof out[n].value, fmt, (v)); n++; } while (0)
    if (c->target_file_size_bytes >= 0)
        PUT("write.target-file-size-bytes", "%lld",
            (long long)c->target_file_size_bytes);
    if (c->previous_versions_max >= 0)
        PUT("write.metadata.previous-versions-max", "%lld",
            (long long)c->previous_versions_max);
    if (c->delete_after_commit >= 0)
        PUT("write.metadata.delete-after-commit.enabled", "%s",
            c->delete_after_commit ? "true" : "false");
    if (c->max_snapshot_age_days >= 0)
        PUT("history.expire.max-snapshot-age-ms", "%lld",
            (long long)(c->max_snapshot_age_days * day_ms));
    if (c->min_snapshots_to_keep >= 0)
        PUT("history.expire.min-snapshots-to-keep", "%lld",
            (long long)c->min_snapshots_to_keep);
    if (c->max_ref_age_days >= 0)
        PUT("history.expire.max-ref-age-ms", "%lld",
            (long long)(c->max_ref_age_days * day_ms));
#undef PUT
    return n;
}

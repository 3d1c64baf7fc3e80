/*
 * table/metadata/metadata_parse.c - from metadata JSON text to the typed model
 * (see table/metadata/metadata.h).
 *
 * ice_metadata_parse hands the text to jansson (duplicate keys rejected,
 * integers kept as 64-bit json_int_t, so snapshot ids round-trip exactly)
 * and calls ice_metadata__build, which walks the document once, top-level
 * field by field in spec order:
 *   format-version (1..3, else ZB_EUNSUPPORTED), identity and counters,
 *   schemas (metadata_schema.c) or v1 "schema", partition specs or v1
 *   "partition-spec", sort orders, properties, snapshots, the two logs,
 *   refs (plus the implicit "main"), statistics, next-row-id;
 * then checks that the ids the table points at resolve (current schema,
 * default spec and sort order, current snapshot, refs) and that snapshot
 * ids are unique, building the sorted snapshot index used by lookups.
 *
 * Every required field is checked per format version with the checked
 * getters of metadata_json.c, which name the field and where it is in
 * the message.
 * The model lives in one arena; the document is kept beside it untouched.
 */
#define ZB_MODULE "table"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "table/metadata/metadata_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

static void *arena_array(ice_parse *p, size_t n, size_t size)
{
    return zb_arena_calloc(p->arena, n ? n : 1, size);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return x < y ? -1 : x > y;
}

/* Sorts ids (scratch) and fails if one appears twice. */
static int check_unique(int32_t *ids, size_t n, ice_parse *p, const char *what)
{
    size_t i;

    qsort(ids, n, sizeof *ids, cmp_i32);
    for (i = 1; i < n; i++)
        if (ids[i] == ids[i - 1])
            return ice_j__fail(p, "table metadata", "%s %d appears twice",
                               what, (int)ids[i]);
    return ZB_OK;
}

/* ---- partition specs and sort orders --------------------------------- */

/* source-id, or v3 source-ids; one of them is required. */
static int parse_source_ids(int32_t *first, const int32_t **ids, size_t *n,
                            ice_parse *p, const json_t *f, const char *where)
{
    int32_t *one;
    int rc;

    if ((rc = ice_j__i32_list(ids, n, p, f, "source-ids", where, 0)) < 0)
        return rc;
    if (rc == 1) {
        if (*n == 0)
            return ice_j__fail(p, where, "\"source-ids\" is empty");
        *first = (*ids)[0];
        return ZB_OK;
    }
    if ((rc = ice_j__i32(first, p, f, "source-id", where, 1)) < 0)
        return rc;
    if ((one = zb_arena_alloc(p->arena, sizeof *one)) == NULL)
        return ice_j__oom(p);
    *one = *first;
    *ids = one;
    *n = 1;
    return ZB_OK;
}

static int parse_spec_fields(ice_partition_spec *spec, ice_parse *p,
                             const json_t *list, const char *where)
{
    ice_partition_field *fs;
    const json_t *f;
    char w[96];
    size_t i;
    int rc;

    if (!json_is_array(list))
        return ice_j__fail(p, where, "\"fields\" must be a list");
    spec->n_fields = json_array_size(list);
    if ((fs = arena_array(p, spec->n_fields, sizeof *fs)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, f) {
        ice_partition_field *pf = &fs[i];

        snprintf(w, sizeof w, "%s field %zu", where, i);
        if (!json_is_object(f))
            return ice_j__fail(p, w, "must be an object");
        if ((rc = parse_source_ids(&pf->source_id, &pf->source_ids,
                                   &pf->n_source_ids, p, f, w)) < 0 ||
            (rc = ice_j__str(&pf->name, p, f, "name", w, 1)) < 0 ||
            (rc = ice_j__str(&pf->transform, p, f, "transform", w, 1)) < 0)
            return rc;
        /* v1 writers may leave field-id out: ids run from 1000. */
        pf->field_id = 1000 + (int32_t)(i > 100000 ? 100000 : i);
        if ((rc = ice_j__i32(&pf->field_id, p, f, "field-id", w,
                             p->version >= 2)) < 0)
            return rc;
    }
    spec->fields = fs;
    return ZB_OK;
}

static int parse_specs(ice_metadata *m, ice_parse *p, const json_t *doc)
{
    const json_t *list, *s, *fields = NULL;
    ice_partition_spec *specs;
    int32_t *ids;
    char w[64];
    size_t i, j;
    int rc;

    if ((rc = ice_j__list(&list, &m->n_specs, p, doc, "partition-specs",
                       p->version >= 2)) < 0)
        return rc;
    if (rc == 0) {
        /* v1: the deprecated field list is spec 0, the default. */
        if ((rc = ice_j__get(&fields, p, doc, "partition-spec",
                             "table metadata", 1)) < 0)
            return rc;
        if ((specs = arena_array(p, 1, sizeof *specs)) == NULL)
            return ice_j__oom(p);
        m->n_specs = 1;
        if ((rc = parse_spec_fields(&specs[0], p, fields,
                                    "partition-spec")) < 0)
            return rc;
        m->default_spec_id = 0;
    } else {
        if ((specs = arena_array(p, m->n_specs, sizeof *specs)) == NULL)
            return ice_j__oom(p);
        json_array_foreach(list, i, s) {
            snprintf(w, sizeof w, "partition spec %zu", i);
            if (!json_is_object(s))
                return ice_j__fail(p, w, "must be an object");
            if ((rc = ice_j__i32(&specs[i].spec_id, p, s, "spec-id", w,
                                 1)) < 0 ||
                (rc = ice_j__get(&fields, p, s, "fields", w, 1)) < 0 ||
                (rc = parse_spec_fields(&specs[i], p, fields, w)) < 0)
                return rc;
        }
        if ((rc = ice_j__i32(&m->default_spec_id, p, doc, "default-spec-id",
                             "table metadata", 1)) < 0)
            return rc;
        if ((ids = arena_array(p, m->n_specs, sizeof *ids)) == NULL)
            return ice_j__oom(p);
        for (i = 0; i < m->n_specs; i++)
            ids[i] = specs[i].spec_id;
        if ((rc = check_unique(ids, m->n_specs, p, "spec-id")) < 0)
            return rc;
    }
    m->specs = specs;
    /* v1 may omit last-partition-id: the highest field id (999: none). */
    m->last_partition_id = 999;
    for (i = 0; i < m->n_specs; i++)
        for (j = 0; j < specs[i].n_fields; j++)
            if (specs[i].fields[j].field_id > m->last_partition_id)
                m->last_partition_id = specs[i].fields[j].field_id;
    return ice_j__i32(&m->last_partition_id, p, doc, "last-partition-id",
                      "table metadata", p->version >= 2);
}

static int parse_sort_field(ice_sort_field *sf, ice_parse *p, const json_t *f,
                            const char *w)
{
    const char *dir = NULL, *nulls = NULL;
    int rc;

    if (!json_is_object(f))
        return ice_j__fail(p, w, "must be an object");
    if ((rc = parse_source_ids(&sf->source_id, &sf->source_ids,
                               &sf->n_source_ids, p, f, w)) < 0 ||
        (rc = ice_j__str(&sf->transform, p, f, "transform", w, 1)) < 0 ||
        (rc = ice_j__str(&dir, p, f, "direction", w, 1)) < 0 ||
        (rc = ice_j__str(&nulls, p, f, "null-order", w, 1)) < 0)
        return rc;
    if (strcmp(dir, "asc") == 0)
        sf->direction = ICE_SORT_ASC;
    else if (strcmp(dir, "desc") == 0)
        sf->direction = ICE_SORT_DESC;
    else
        return ice_j__fail(p, w, "unknown direction \"%.40s\"", dir);
    if (strcmp(nulls, "nulls-first") == 0)
        sf->null_order = ICE_NULLS_FIRST;
    else if (strcmp(nulls, "nulls-last") == 0)
        sf->null_order = ICE_NULLS_LAST;
    else
        return ice_j__fail(p, w, "unknown null-order \"%.40s\"", nulls);
    return ZB_OK;
}

static int parse_sort_orders(ice_metadata *m, ice_parse *p, const json_t *doc)
{
    const json_t *list, *o, *fields = NULL, *f;
    ice_sort_order *orders;
    ice_sort_field *fs;
    char w[64];
    size_t i, j;
    int rc;

    if ((rc = ice_j__list(&list, &m->n_sort_orders, p, doc, "sort-orders",
                       p->version >= 2)) < 0)
        return rc;
    if (rc == 0) {
        /* v1 without sort orders: unsorted (order 0). */
        if ((orders = arena_array(p, 1, sizeof *orders)) == NULL)
            return ice_j__oom(p);
        m->n_sort_orders = 1;
        m->sort_orders = orders;
        m->default_sort_order_id = 0;
        return ZB_OK;
    }
    if ((orders = arena_array(p, m->n_sort_orders, sizeof *orders)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, o) {
        snprintf(w, sizeof w, "sort order %zu", i);
        if (!json_is_object(o))
            return ice_j__fail(p, w, "must be an object");
        if ((rc = ice_j__i32(&orders[i].order_id, p, o, "order-id", w,
                             1)) < 0 ||
            (rc = ice_j__get(&fields, p, o, "fields", w, 1)) < 0)
            return rc;
        if (!json_is_array(fields))
            return ice_j__fail(p, w, "\"fields\" must be a list");
        orders[i].n_fields = json_array_size(fields);
        if ((fs = arena_array(p, orders[i].n_fields, sizeof *fs)) == NULL)
            return ice_j__oom(p);
        json_array_foreach(fields, j, f) {
            snprintf(w, sizeof w, "sort order %zu field %zu", i, j);
            if ((rc = parse_sort_field(&fs[j], p, f, w)) < 0)
                return rc;
        }
        orders[i].fields = fs;
    }
    m->sort_orders = orders;
    return ice_j__i32(&m->default_sort_order_id, p, doc,
                      "default-sort-order-id", "table metadata", 1);
}

/* ---- snapshots ------------------------------------------------------- */

static int parse_snapshot(ice_snapshot *s, ice_parse *p, const json_t *o,
                          const char *w)
{
    const json_t *summary = NULL, *mans = NULL, *e;
    const char **list;
    size_t i;
    int rc;

    if (!json_is_object(o))
        return ice_j__fail(p, w, "must be an object");
    s->parent_snapshot_id = ICE_NO_SNAPSHOT;
    s->sequence_number = 0;
    if ((rc = ice_j__i64(&s->snapshot_id, p, o, "snapshot-id", w, 1)) < 0 ||
        (rc = ice_j__i64(&s->parent_snapshot_id, p, o, "parent-snapshot-id",
                         w, 0)) < 0 ||
        /* Optional even in v2: snapshots of an upgraded v1 table have
         * none, and Iceberg Java reads that as 0. */
        (rc = ice_j__i64(&s->sequence_number, p, o, "sequence-number", w,
                         0)) < 0 ||
        (rc = ice_j__i64(&s->timestamp_ms, p, o, "timestamp-ms", w, 1)) < 0)
        return rc;
    if ((rc = s->has_schema_id = ice_j__i32(&s->schema_id, p, o, "schema-id",
                                            w, 0)) < 0 ||
        (rc = s->has_first_row_id = ice_j__i64(&s->first_row_id, p, o,
                                               "first-row-id", w, 0)) < 0 ||
        (rc = s->has_added_rows = ice_j__i64(&s->added_rows, p, o,
                                             "added-rows", w, 0)) < 0)
        return rc;
    if ((rc = ice_j__str(&s->manifest_list, p, o, "manifest-list", w,
                         0)) < 0)
        return rc;
    if (rc == 0) {
        if (p->version >= 2)
            return ice_j__fail(p, w, "\"manifest-list\" is missing");
        if ((rc = ice_j__get(&mans, p, o, "manifests", w, 0)) < 0)
            return rc;
        if (rc == 0)
            return ice_j__fail(p, w, "\"manifest-list\" is missing");
        if (!json_is_array(mans))
            return ice_j__fail(p, w, "\"manifests\" must be a list");
        s->n_manifests = json_array_size(mans);
        if ((list = arena_array(p, s->n_manifests, sizeof *list)) == NULL)
            return ice_j__oom(p);
        json_array_foreach(mans, i, e) {
            if (!json_is_string(e))
                return ice_j__fail(p, w, "\"manifests\"[%zu] must be a "
                                   "string", i);
            if ((list[i] = zb_arena_strdup(p->arena,
                                           json_string_value(e))) == NULL)
                return ice_j__oom(p);
        }
        s->manifests = list;
    }
    if ((rc = ice_j__get(&summary, p, o, "summary", w, p->version >= 2)) < 0)
        return rc;
    if (rc == 1) {
        char sw[96];

        snprintf(sw, sizeof sw, "%s summary", w);
        if ((rc = ice_j__string_map(&s->summary, &s->n_summary, p, summary,
                                   sw)) < 0 ||
            (rc = ice_j__str(&s->operation, p, summary, "operation", sw,
                             1)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int by_id(const void *a, const void *b)
{
    const ice_snap_index *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

static int parse_snapshots(ice_metadata *m, ice_parse *p, const json_t *doc,
                           ice_snap_index **index_out)
{
    const json_t *list, *o;
    ice_snapshot *snaps;
    ice_snap_index *index;
    char w[64];
    size_t i;
    int rc;

    if ((rc = ice_j__list(&list, &m->n_snapshots, p, doc, "snapshots", 0)) < 0)
        return rc;
    snaps = arena_array(p, m->n_snapshots, sizeof *snaps);
    index = arena_array(p, m->n_snapshots, sizeof *index);
    if (snaps == NULL || index == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, o) {
        snprintf(w, sizeof w, "snapshot %zu", i);
        if ((rc = parse_snapshot(&snaps[i], p, o, w)) < 0)
            return rc;
        index[i].id = snaps[i].snapshot_id;
        index[i].pos = i;
    }
    qsort(index, m->n_snapshots, sizeof *index, by_id);
    for (i = 1; i < m->n_snapshots; i++)
        if (index[i].id == index[i - 1].id)
            return ice_j__fail(p, "snapshots", "snapshot id %lld appears "
                               "twice", (long long)index[i].id);
    m->snapshots = snaps;
    *index_out = index;
    return ZB_OK;
}

/* ---- logs, refs, statistics ------------------------------------------ */

static int parse_logs(ice_metadata *m, ice_parse *p, const json_t *doc)
{
    const json_t *list, *o;
    ice_snapshot_log_entry *sl;
    ice_metadata_log_entry *ml;
    char w[64];
    size_t i;
    int rc;

    if ((rc = ice_j__list(&list, &m->n_snapshot_log, p, doc, "snapshot-log",
                       0)) < 0)
        return rc;
    if ((sl = arena_array(p, m->n_snapshot_log, sizeof *sl)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, o) {
        snprintf(w, sizeof w, "snapshot-log entry %zu", i);
        if (!json_is_object(o))
            return ice_j__fail(p, w, "must be an object");
        if ((rc = ice_j__i64(&sl[i].timestamp_ms, p, o, "timestamp-ms", w,
                             1)) < 0 ||
            (rc = ice_j__i64(&sl[i].snapshot_id, p, o, "snapshot-id", w,
                             1)) < 0)
            return rc;
    }
    m->snapshot_log = sl;
    if ((rc = ice_j__list(&list, &m->n_metadata_log, p, doc, "metadata-log",
                       0)) < 0)
        return rc;
    if ((ml = arena_array(p, m->n_metadata_log, sizeof *ml)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, o) {
        snprintf(w, sizeof w, "metadata-log entry %zu", i);
        if (!json_is_object(o))
            return ice_j__fail(p, w, "must be an object");
        if ((rc = ice_j__i64(&ml[i].timestamp_ms, p, o, "timestamp-ms", w,
                             1)) < 0 ||
            (rc = ice_j__str(&ml[i].metadata_file, p, o, "metadata-file", w,
                             1)) < 0)
            return rc;
    }
    m->metadata_log = ml;
    return ZB_OK;
}

static int parse_ref(ice_ref *r, ice_parse *p, const char *name,
                     const json_t *o)
{
    const char *type = NULL;
    char w[96];
    int rc;

    snprintf(w, sizeof w, "ref \"%.60s\"", name);
    if (!json_is_object(o))
        return ice_j__fail(p, w, "must be an object");
    if ((r->name = zb_arena_strdup(p->arena, name)) == NULL)
        return ice_j__oom(p);
    r->min_snapshots_to_keep = -1;
    r->max_snapshot_age_ms = -1;
    r->max_ref_age_ms = -1;
    if ((rc = ice_j__i64(&r->snapshot_id, p, o, "snapshot-id", w, 1)) < 0 ||
        (rc = ice_j__str(&type, p, o, "type", w, 1)) < 0 ||
        (rc = ice_j__i32(&r->min_snapshots_to_keep, p, o,
                         "min-snapshots-to-keep", w, 0)) < 0 ||
        (rc = ice_j__i64(&r->max_snapshot_age_ms, p, o,
                         "max-snapshot-age-ms", w, 0)) < 0 ||
        (rc = ice_j__i64(&r->max_ref_age_ms, p, o, "max-ref-age-ms", w,
                         0)) < 0)
        return rc;
    if (strcmp(type, "branch") == 0)
        r->type = ICE_REF_BRANCH;
    else if (strcmp(type, "tag") == 0)
        r->type = ICE_REF_TAG;
    else
        return ice_j__fail(p, w, "unknown type \"%.40s\"", type);
    return ZB_OK;
}

static int parse_refs(ice_metadata *m, ice_parse *p, const json_t *doc)
{
    const json_t *refs = NULL, *o;
    const char *name;
    ice_ref *rs;
    size_t n = 0, i = 0;
    int rc, have_main = 0;

    if ((rc = ice_j__get(&refs, p, doc, "refs", "table metadata", 0)) < 0)
        return rc;
    if (rc == 1) {
        if (!json_is_object(refs))
            return ice_j__fail(p, "table metadata", "\"refs\" must be an "
                               "object");
        n = json_object_size(refs);
    }
    if ((rs = arena_array(p, n + 1, sizeof *rs)) == NULL)
        return ice_j__oom(p);
    if (refs != NULL) {
        json_object_foreach((json_t *)refs, name, o) {
            if ((rc = parse_ref(&rs[i], p, name, o)) < 0)
                return rc;
            if (strcmp(name, "main") == 0) {
                have_main = 1;
                if (rs[i].type != ICE_REF_BRANCH)
                    return ice_j__fail(p, "ref \"main\"", "must be a "
                                       "branch");
                if (rs[i].snapshot_id != m->current_snapshot_id)
                    return ice_j__fail(p, "ref \"main\"", "points at "
                                       "snapshot %lld, current-snapshot-id "
                                       "is %lld",
                                       (long long)rs[i].snapshot_id,
                                       (long long)m->current_snapshot_id);
            }
            if (ice_metadata_snapshot(m, rs[i].snapshot_id) == NULL)
                return ice_j__fail(p, "refs", "\"%.60s\" points at unknown "
                                   "snapshot %lld", name,
                                   (long long)rs[i].snapshot_id);
            i++;
        }
    }
    if (!have_main && m->current_snapshot_id != ICE_NO_SNAPSHOT) {
        rs[i].name = "main";
        rs[i].type = ICE_REF_BRANCH;
        rs[i].snapshot_id = m->current_snapshot_id;
        rs[i].min_snapshots_to_keep = -1;
        rs[i].max_snapshot_age_ms = -1;
        rs[i].max_ref_age_ms = -1;
        rs[i].implicit = 1;
        i++;
    }
    m->refs = rs;
    m->n_refs = i;
    return ZB_OK;
}

static int parse_stats(const ice_statistics_file **out, size_t *n_out,
                       ice_parse *p, const json_t *doc, const char *key,
                       int partition)
{
    const json_t *list, *o, *blobs = NULL, *b;
    ice_statistics_file *fs;
    ice_blob_metadata *bs;
    char w[96];
    size_t i, j;
    int rc;

    if ((rc = ice_j__list(&list, n_out, p, doc, key, 0)) < 0)
        return rc;
    if ((fs = arena_array(p, *n_out, sizeof *fs)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, o) {
        ice_statistics_file *f = &fs[i];

        snprintf(w, sizeof w, "%s entry %zu", key, i);
        if (!json_is_object(o))
            return ice_j__fail(p, w, "must be an object");
        f->file_footer_size_in_bytes = -1;
        if ((rc = ice_j__i64(&f->snapshot_id, p, o, "snapshot-id", w,
                             1)) < 0 ||
            (rc = ice_j__str(&f->statistics_path, p, o, "statistics-path", w,
                             1)) < 0 ||
            (rc = ice_j__i64(&f->file_size_in_bytes, p, o,
                             "file-size-in-bytes", w, 1)) < 0)
            return rc;
        if (partition)
            continue;
        if ((rc = ice_j__i64(&f->file_footer_size_in_bytes, p, o,
                             "file-footer-size-in-bytes", w, 1)) < 0 ||
            (rc = ice_j__get(&blobs, p, o, "blob-metadata", w, 1)) < 0)
            return rc;
        if (!json_is_array(blobs))
            return ice_j__fail(p, w, "\"blob-metadata\" must be a list");
        f->n_blobs = json_array_size(blobs);
        if ((bs = arena_array(p, f->n_blobs, sizeof *bs)) == NULL)
            return ice_j__oom(p);
        json_array_foreach(blobs, j, b) {
            snprintf(w, sizeof w, "%s entry %zu blob %zu", key, i, j);
            if (!json_is_object(b))
                return ice_j__fail(p, w, "must be an object");
            if ((rc = ice_j__str(&bs[j].type, p, b, "type", w, 1)) < 0 ||
                (rc = ice_j__i64(&bs[j].snapshot_id, p, b, "snapshot-id", w,
                                 1)) < 0 ||
                (rc = ice_j__i64(&bs[j].sequence_number, p, b,
                                 "sequence-number", w, 1)) < 0 ||
                (rc = ice_j__i32_list(&bs[j].fields, &bs[j].n_fields, p, b,
                                      "fields", w, 1)) < 0)
                return rc;
        }
        f->blobs = bs;
    }
    *out = fs;
    return ZB_OK;
}

/* ---- the whole document ---------------------------------------------- */

static int parse_schemas(ice_metadata *m, ice_parse *p, const json_t *doc)
{
    const json_t *list, *s = NULL;
    ice_schema *schemas;
    int32_t *ids;
    char w[64];
    size_t i;
    int rc;

    if ((rc = ice_j__list(&list, &m->n_schemas, p, doc, "schemas",
                       p->version >= 2)) < 0)
        return rc;
    if (rc == 0) {
        /* v1: the deprecated single schema is the current one. */
        if ((rc = ice_j__get(&s, p, doc, "schema", "table metadata", 1)) < 0)
            return rc;
        if ((schemas = arena_array(p, 1, sizeof *schemas)) == NULL)
            return ice_j__oom(p);
        m->n_schemas = 1;
        if ((rc = ice_schema__parse(&schemas[0], p, s, 0, "schema")) < 0)
            return rc;
        m->schemas = schemas;
        m->current_schema_id = schemas[0].schema_id;
        return ZB_OK;
    }
    schemas = arena_array(p, m->n_schemas, sizeof *schemas);
    ids = arena_array(p, m->n_schemas, sizeof *ids);
    if (schemas == NULL || ids == NULL)
        return ice_j__oom(p);
    json_array_foreach(list, i, s) {
        snprintf(w, sizeof w, "schema %zu", i);
        if ((rc = ice_schema__parse(&schemas[i], p, s, 0, w)) < 0)
            return rc;
    }
    m->schemas = schemas;
    for (i = 0; i < m->n_schemas; i++)
        ids[i] = schemas[i].schema_id;
    if ((rc = check_unique(ids, m->n_schemas, p, "schema-id")) < 0)
        return rc;
    return ice_j__i32(&m->current_schema_id, p, doc, "current-schema-id",
                      "table metadata", 1);
}

static int parse_top(ice_metadata *m, ice_parse *p, const json_t *doc,
                     ice_snap_index **index)
{
    const json_t *props = NULL;
    const char *tm = "table metadata";
    int rc;

    if ((rc = ice_j__str(&m->table_uuid, p, doc, "table-uuid", tm,
                         p->version >= 2)) < 0 ||
        (rc = ice_j__str(&m->location, p, doc, "location", tm, 1)) < 0 ||
        (rc = ice_j__i64(&m->last_sequence_number, p, doc,
                         "last-sequence-number", tm, p->version >= 2)) < 0 ||
        (rc = ice_j__i64(&m->last_updated_ms, p, doc, "last-updated-ms", tm,
                         1)) < 0 ||
        (rc = ice_j__i32(&m->last_column_id, p, doc, "last-column-id", tm,
                         1)) < 0)
        return rc;
    if ((rc = parse_schemas(m, p, doc)) < 0 ||
        (rc = parse_specs(m, p, doc)) < 0 ||
        (rc = parse_sort_orders(m, p, doc)) < 0)
        return rc;
    if ((rc = ice_j__get(&props, p, doc, "properties", tm, 0)) < 0 ||
        (rc == 1 && (rc = ice_j__string_map(&m->properties, &m->n_properties,
                                           p, props, "properties")) < 0))
        return rc;
    m->current_snapshot_id = ICE_NO_SNAPSHOT;
    if ((rc = ice_j__i64(&m->current_snapshot_id, p, doc,
                         "current-snapshot-id", tm, 0)) < 0)
        return rc;
    if ((rc = parse_snapshots(m, p, doc, index)) < 0)
        return rc;
    m->internal->snap_index = *index;
    if ((rc = parse_logs(m, p, doc)) < 0 ||
        (rc = parse_stats(&m->statistics, &m->n_statistics, p, doc,
                          "statistics", 0)) < 0 ||
        (rc = parse_stats(&m->partition_statistics,
                          &m->n_partition_statistics, p, doc,
                          "partition-statistics", 1)) < 0)
        return rc;
    if ((rc = m->has_next_row_id = ice_j__i64(&m->next_row_id, p, doc,
                                              "next-row-id", tm,
                                              p->version >= 3)) < 0)
        return rc;
    return ZB_OK;
}

/* The ids the table points at must resolve. */
static int check_ids(ice_metadata *m, ice_parse *p)
{
    const char *tm = "table metadata";

    if (ice_metadata_current_schema(m) == NULL)
        return ice_j__fail(p, tm, "current-schema-id %d names no schema",
                           (int)m->current_schema_id);
    if (ice_metadata_default_spec(m) == NULL)
        return ice_j__fail(p, tm, "default-spec-id %d names no partition "
                           "spec", (int)m->default_spec_id);
    if (ice_metadata_sort_order(m, m->default_sort_order_id) == NULL)
        return ice_j__fail(p, tm, "default-sort-order-id %d names no sort "
                           "order", (int)m->default_sort_order_id);
    if (m->current_snapshot_id < 0)
        m->current_snapshot_id = ICE_NO_SNAPSHOT;
    else if (ice_metadata_current_snapshot(m) == NULL)
        return ice_j__fail(p, tm, "current-snapshot-id %lld names no "
                           "snapshot", (long long)m->current_snapshot_id);
    return ZB_OK;
}

void ice_metadata__free_int(struct ice_metadata_int *in)
{
    if (in == NULL)
        return;
    json_decref(in->doc);
    zb_arena_free(in->arena);
    zb_free(in);
}

int ice_metadata__build(ice_metadata *m, zb_ctx *ctx, json_t *doc,
                        const char *source_uri)
{
    struct ice_metadata_int *in = NULL;
    ice_snap_index *index = NULL;
    ice_parse p;
    int64_t version = 0;
    int rc;

    memset(m, 0, sizeof *m);
    if ((in = zb_calloc(1, sizeof *in)) == NULL ||
        zb_arena_new(&in->arena, ICE_ARENA_MAX_BYTES) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    m->internal = in;
    p.ctx = ctx;
    p.arena = in->arena;
    p.src = source_uri ? source_uri : "";
    p.version = 0;
    if ((m->source_uri = zb_arena_strdup(in->arena, p.src)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    p.src = m->source_uri;
    if (!json_is_object(doc)) {
        rc = ice_j__fail(&p, "table metadata", "must be a JSON object");
        goto done;
    }
    if ((rc = ice_j__i64(&version, &p, doc, "format-version",
                         "table metadata", 1)) < 0)
        goto done;
    if (version < 1 || version > 3) {
        rc = zb_fail(ctx, ZB_EUNSUPPORTED, "%s: format-version %lld is not "
                     "supported (1 to 3 are)", p.src, (long long)version);
        goto done;
    }
    m->format_version = p.version = (int)version;
    if ((rc = parse_top(m, &p, doc, &index)) < 0 ||
        (rc = check_ids(m, &p)) < 0 ||
        (rc = parse_refs(m, &p, doc)) < 0)
        goto done;
    in->doc = doc;
    in = NULL;
done:
    if (in != NULL) {
        ice_metadata__free_int(in);
        memset(m, 0, sizeof *m);
    }
    return rc;
}

static int parse_plain(ice_metadata **out, zb_ctx *ctx, const char *json,
                       size_t len, const char *source_uri)
{
    ice_metadata *m = NULL;
    json_t *doc = NULL;
    json_error_t jerr;
    const char *src = source_uri ? source_uri : "metadata";
    int rc;

    *out = NULL;
    if (len > ICE_METADATA_MAX_BYTES)
        return zb_fail(ctx, ZB_ENOMEM, "%s: %zu bytes of metadata, more "
                       "than the %zu allowed", src, len,
                       ICE_METADATA_MAX_BYTES);
    doc = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL) {
        /* jansson reports some allocation failures with no text. */
        if (json_error_code(&jerr) == json_error_out_of_memory ||
            jerr.text[0] == '\0')
            return zb_fail_oom(ctx);
        return zb_fail(ctx, ZB_ECORRUPT, "%s:%d:%d: malformed JSON: %s", src,
                       jerr.line, jerr.column, jerr.text);
    }
    if ((m = zb_calloc(1, sizeof *m)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = ice_metadata__build(m, ctx, doc, source_uri)) < 0)
        goto done;
    doc = NULL;                    /* owned by m now */
    *out = m;
    m = NULL;
done:
    json_decref(doc);
    zb_free(m);
    return rc;
}

int ice_metadata_parse(ice_metadata **out, zb_ctx *ctx, const char *json,
                       size_t len, const char *source_uri)
{
    zb_buf plain = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    int rc;

    ZB_ASSERT_ARG(out && ctx && (json || len == 0));
    *out = NULL;
    if (json == NULL)
        json = "";
    if (!(len >= 2 && (unsigned char)json[0] == 0x1f &&
          (unsigned char)json[1] == 0x8b))
        return parse_plain(out, ctx, json, len, source_uri);
    rc = ice_metadata__gunzip(&plain, ctx, json, len,
                              source_uri ? source_uri : "metadata");
    if (rc >= 0)
        rc = parse_plain(out, ctx, plain.ptr ? plain.ptr : "", plain.len,
                         source_uri);
    zb_buf_free(&plain);
    return rc;
}

int ice_metadata_load(ice_metadata **out, zb_io *io, zb_ctx *ctx,
                      const char *uri)
{
    zb_buf b = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri);
    *out = NULL;
    if ((rc = zb_io__read_all(&b, io, ctx, uri)) == ZB_OK) {
        /* A gzip name must hold gzip, as Java reads it by the name. */
        if (ice_metadata_gzip_name(uri) &&
            !(b.len >= 2 && (unsigned char)b.ptr[0] == 0x1f &&
              (unsigned char)b.ptr[1] == 0x8b))
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: named as gzip-compressed "
                         "metadata but is not gzip (%s)", uri,
                         b.len == 0 ? "empty" : "no gzip magic 1f 8b");
        else
            rc = ice_metadata_parse(out, ctx, b.ptr, b.len, uri);
    }
    zb_buf_free(&b);
    return rc;
}

void ice_metadata_free(ice_metadata *m)
{
    if (m == NULL)
        return;
    ice_metadata__free_int(m->internal);
    zb_free(m);
}

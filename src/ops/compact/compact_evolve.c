/*
 * ops/compact/compact_evolve.c - partition evolution by compaction (the rules
 * and their meaning are in ops/compact/compact_evolve.h).
 *
 * zb_compact_evolve: load the table; find the default spec's fields a
 * rule covers and their cutoffs; find the coarse spec (same source ids,
 * covered transforms replaced) among the table's specs; plan the old
 * partitions with the file filter against the table, or against an
 * in-memory copy of its metadata with the coarse spec added when it is
 * missing; a dry run stops there. Otherwise: commit add-spec when the
 * spec is missing, then zb_compact with output_spec_id and the filter.
 */
#define ZB_MODULE "compact-evolve"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "ops/compact/compact_evolve.h"
#include "ops/compact/compact_int.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define SPEC_ATTEMPTS 4
#define DAY_MS ((int64_t)86400000)
#define NAME_TRIES 100             /* "_1" .. "_99" after a clashing name */

/* The table a dry run planned on (the plan borrows it). */
typedef struct evolve_priv {
    zb_table *table;               /* as loaded */
    ice_metadata *copy;            /* with the coarse spec; may be NULL */
    zb_table view;                 /* table with meta = copy */
} evolve_priv;

static int64_t clock_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Days from 1970-01-01 to y-m-01 (proleptic Gregorian; m 1..12). */
static int64_t days_from_civil(int64_t y, int64_t m)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t zb_compact_evolve_period_end_ms(zb_tc_transform tr, int64_t v)
{
    /* keep the arithmetic far from overflow: partition values are
     * int32 in the format */
    if (v < INT32_MIN || v > INT32_MAX)
        v = v < 0 ? INT32_MIN : INT32_MAX;
    switch (tr) {
    case ZB_TC_HOUR:
        return (v + 1) * 3600000;
    case ZB_TC_DAY:
        return (v + 1) * DAY_MS;
    case ZB_TC_MONTH: {
        int64_t n = v + 1;

        return days_from_civil(1970 + floor_div(n, 12),
                               n - floor_div(n, 12) * 12 + 1) * DAY_MS;
    }
    case ZB_TC_YEAR:
        return days_from_civil(1970 + v + 1, 1) * DAY_MS;
    default:
        return 0;
    }
}

/* The transform of a spec field, as a time transform; -1 otherwise. */
static int time_transform(const char *s)
{
    if (s == NULL)
        return -1;
    if (strcmp(s, "hour") == 0)
        return ZB_TC_HOUR;
    if (strcmp(s, "day") == 0)
        return ZB_TC_DAY;
    if (strcmp(s, "month") == 0)
        return ZB_TC_MONTH;
    if (strcmp(s, "year") == 0)
        return ZB_TC_YEAR;
    return -1;
}

/* hour 0 < day 1 < month 2 < year 3; -1 for the others. */
static int coarseness(zb_tc_transform t)
{
    switch (t) {
    case ZB_TC_HOUR: return 0;
    case ZB_TC_DAY: return 1;
    case ZB_TC_MONTH: return 2;
    case ZB_TC_YEAR: return 3;
    default: return -1;
    }
}

static const zb_evolve_field *covered(const zb_compact_evolve_result *r,
                                      size_t index)
{
    size_t k;

    for (k = 0; k < r->n_fields; k++)
        if (r->fields[k].index == index)
            return &r->fields[k];
    return NULL;
}

/*
 * Whether name is the name of a field of type t under prefix, a dotted
 * path (format/spec.md "Partition Specs": a partition field's name must
 * not be a schema field's name, unless that field is its identity
 * source; Java's builder checks the schema's full names, list elements
 * and map keys and values included, and their names without the
 * "element" or "value" step). Case-insensitive, to be safe with engines
 * that resolve names so. full and brief: the two forms of the prefix.
 */
static int schema_has_name(const ice_type *t, const char *full,
                           const char *brief, const char *name, int depth)
{
    char f[512], b[512];
    size_t i;

    if (t == NULL || depth > 32)
        return 0;
    switch (t->id) {
    case ICE_STRUCT:
        for (i = 0; i < t->n_fields; i++) {
            const char *n = t->fields[i].name ? t->fields[i].name : "";

            snprintf(f, sizeof f, "%s%s%s", full, full[0] ? "." : "", n);
            snprintf(b, sizeof b, "%s%s%s", brief, brief[0] ? "." : "", n);
            if (strcasecmp(f, name) == 0 || strcasecmp(b, name) == 0 ||
                schema_has_name(t->fields[i].type, f, b, name, depth + 1))
                return 1;
        }
        return 0;
    case ICE_LIST:
        snprintf(f, sizeof f, "%s.element", full);
        return strcasecmp(f, name) == 0 ||
               schema_has_name(t->element, f, brief, name, depth + 1);
    case ICE_MAP:
        snprintf(f, sizeof f, "%s.key", full);
        snprintf(b, sizeof b, "%s.key", brief);
        if (strcasecmp(f, name) == 0 || strcasecmp(b, name) == 0 ||
            schema_has_name(t->key, f, b, name, depth + 1))
            return 1;
        snprintf(f, sizeof f, "%s.value", full);
        return strcasecmp(f, name) == 0 ||
               schema_has_name(t->value, f, brief, name, depth + 1);
    default:
        return 0;
    }
}

/* Whether the coarse name of covered field k would clash: with a schema
 * column, a field of the fine spec the coarse spec keeps, or another
 * covered field's coarse name. */
static int name_taken(const zb_compact_evolve_result *r, size_t k,
                      const ice_schema *schema,
                      const ice_partition_spec *spec, const char *name)
{
    size_t i;

    if (schema != NULL && schema_has_name(schema->root, "", "", name, 0))
        return 1;
    for (i = 0; i < spec->n_fields; i++)
        if (covered(r, i) == NULL && spec->fields[i].name != NULL &&
            strcasecmp(spec->fields[i].name, name) == 0)
            return 1;
    for (i = 0; i < r->n_fields; i++)
        if (i != k && strcasecmp(r->fields[i].coarse_name, name) == 0)
            return 1;
    return 0;
}

/* Gives each covered field a coarse name no other name of the coarse
 * spec or of the schema has: the name, else the name with "_1", "_2",
 * ... "_99" appended; none free: the evolution is refused (r->refused). */
static void unique_names(zb_compact_evolve_result *r, zb_ctx *ctx,
                         const ice_metadata *m,
                         const ice_partition_spec *spec, const char *ident)
{
    const ice_schema *schema = ice_metadata_current_schema(m);
    size_t k;
    int n;

    for (k = 0; k < r->n_fields; k++) {
        zb_evolve_field *e = &r->fields[k];
        char base[sizeof e->coarse_name];

        if (!name_taken(r, k, schema, spec, e->coarse_name))
            continue;
        memcpy(base, e->coarse_name, sizeof base);
        for (n = 1; n < NAME_TRIES; n++) {
            /* Room kept for "_99": base (121 bytes at most) is never cut. */
            snprintf(e->coarse_name, sizeof e->coarse_name, "%.*s_%d",
                     (int)sizeof e->coarse_name - 4, base, n);
            if (!name_taken(r, k, schema, spec, e->coarse_name))
                break;
        }
        if (n == NAME_TRIES) {
            memcpy(e->coarse_name, base, sizeof base);
            snprintf(r->refused, sizeof r->refused, "no free name for the "
                     "coarse partition field of %s (%.100s and _1 .. _%d "
                     "after it are columns or partition fields)", e->name,
                     base, NAME_TRIES - 1);
            return;
        }
        zb_log_info(ctx, "%s: partition field name %s is taken (a column "
                    "or partition field); the coarse field of %s is %s",
                    ident, base, e->name, e->coarse_name);
    }
}

/* The default spec's covered fields into r (applicable when any). */
static int find_fields(zb_compact_evolve_result *r, zb_ctx *ctx,
                       const ice_metadata *m, const zb_compact_evolve_opts *o,
                       int64_t now_ms, const char *ident)
{
    const ice_partition_spec *spec = ice_metadata_default_spec(m);
    size_t i, k;

    r->fine_spec_id = m->default_spec_id;
    if (spec == NULL)
        return ZB_OK;
    for (i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *f = &spec->fields[i];
        int tr = time_transform(f->transform);
        const zb_tc_evolution_rule *rule = NULL;
        zb_evolve_field *e;
        const char *name = f->name ? f->name : "";
        size_t len = strlen(name), sl;

        for (k = 0; tr >= 0 && k < o->n_rules; k++)
            if ((int)o->rules[k].from == tr)
                rule = &o->rules[k];
        if (rule == NULL)
            continue;
        if (f->n_source_ids > 1) {
            zb_log_info(ctx, "%s: partition field %s has "
                        "several sources; not evolved", ident, name);
            continue;
        }
        if (coarseness(rule->to) <= coarseness(rule->from) ||
            rule->older_than_days < 0)
            return zb_fail(ctx, ZB_EINVAL, "%s: partition evolution rule "
                           "%s -> %s (older than %lld days) does not "
                           "coarsen", ident, zb_tc_transform_name(rule->from),
                           zb_tc_transform_name(rule->to),
                           (long long)rule->older_than_days);
        if (r->n_fields == ZB_EVOLVE_MAX_FIELDS)
            return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: more than %d time "
                           "partition fields to evolve", ident,
                           ZB_EVOLVE_MAX_FIELDS);
        if (len + 12 >= sizeof e->name)
            return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: partition field name "
                           "too long: %.60s...", ident, name);
        e = &r->fields[r->n_fields++];
        e->index = i;
        e->from = rule->from;
        e->to = rule->to;
        e->older_than_days = rule->older_than_days;
        e->cutoff_ms = rule->older_than_days > (INT64_MAX / 2) / DAY_MS
                           ? INT64_MIN
                           : now_ms - rule->older_than_days * DAY_MS;
        memcpy(e->name, name, len + 1);
        sl = strlen(zb_tc_transform_name(rule->from)) + 1;
        if (len > sl && name[len - sl] == '_' &&
            strcmp(name + len - sl + 1, zb_tc_transform_name(rule->from)) == 0)
            len -= sl;
        snprintf(e->coarse_name, sizeof e->coarse_name, "%.*s_%s", (int)len,
                 name, zb_tc_transform_name(rule->to));
    }
    r->applicable = r->n_fields > 0;
    unique_names(r, ctx, m, spec, ident);
    return ZB_OK;
}

/* The id of a spec of m equal to the coarse spec (sources and
 * transforms), or -1. */
static int32_t find_coarse(const ice_metadata *m,
                           const zb_compact_evolve_result *r)
{
    const ice_partition_spec *fine = ice_metadata_spec(m, r->fine_spec_id);
    size_t s, i;

    if (fine == NULL)
        return -1;
    for (s = 0; s < m->n_specs; s++) {
        const ice_partition_spec *c = &m->specs[s];
        int same = c->spec_id != fine->spec_id &&
                   c->n_fields == fine->n_fields;

        for (i = 0; same && i < c->n_fields; i++) {
            const zb_evolve_field *e = covered(r, i);
            const char *want = e ? zb_tc_transform_name(e->to)
                                 : fine->fields[i].transform;

            same = c->fields[i].source_id == fine->fields[i].source_id &&
                   c->fields[i].transform != NULL && want != NULL &&
                   strcmp(c->fields[i].transform, want) == 0;
        }
        if (same)
            return c->spec_id;
    }
    return -1;
}

/* [{"action":"add-spec","spec":{"fields":[...]}}] for the coarse spec. */
static int spec_updates(json_t **out, zb_ctx *ctx, const ice_metadata *m,
                        const zb_compact_evolve_result *r)
{
    const ice_partition_spec *fine = ice_metadata_spec(m, r->fine_spec_id);
    json_t *fields = json_array(), *u;
    size_t i;

    *out = NULL;
    if (fields == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; fine != NULL && i < fine->n_fields; i++) {
        const ice_partition_field *f = &fine->fields[i];
        const zb_evolve_field *e = covered(r, i);
        json_t *j = e ? json_pack("{sissss}", "source-id", (int)f->source_id,
                                  "name", e->coarse_name, "transform",
                                  zb_tc_transform_name(e->to))
                      : json_pack("{sisissss}", "source-id",
                                  (int)f->source_id, "field-id",
                                  (int)f->field_id, "name",
                                  f->name ? f->name : "", "transform",
                                  f->transform ? f->transform : "identity");

        if (j == NULL || json_array_append_new(fields, j) < 0) {
            json_decref(fields);
            return zb_fail_oom(ctx);
        }
    }
    u = json_pack("[{sss{so}}]", "action", "add-spec", "spec", "fields",
                  fields);
    if (u == NULL)
        return zb_fail_oom(ctx);
    *out = u;
    return ZB_OK;
}

/* A copy of m with the coarse spec added (in memory). */
static int copy_with_spec(ice_metadata **out, zb_ctx *ctx,
                          const ice_metadata *m,
                          const zb_compact_evolve_result *r)
{
    zb_buf w = ZB_BUF_INIT(SIZE_MAX / 2);
    json_t *updates = NULL;
    ice_metadata *copy = NULL;
    int rc;

    *out = NULL;
    if ((rc = ice_metadata_write(&w, m, ctx)) < 0 ||
        (rc = ice_metadata_parse(&copy, ctx, zb_buf_cstr(&w), w.len,
                                 m->source_uri)) < 0 ||
        (rc = spec_updates(&updates, ctx, m, r)) < 0 ||
        (rc = ice_commit_apply_updates(copy, ctx,
                                       (const zb_json *)updates)) < 0) {
        ice_metadata_free(copy);
        copy = NULL;
    }
    json_decref(updates);
    zb_buf_free(&w);
    *out = copy;
    return rc;
}

/* Commits the coarse spec (unless some writer added it); its id. */
static int commit_spec(int32_t *id, const zb_op_target *t, zb_ctx *ctx,
                       zb_compact_evolve_result *r)
{
    int attempt, rc = ZB_OK;

    *id = -1;
    for (attempt = 1; attempt <= SPEC_ATTEMPTS; attempt++) {
        zb_table *tbl = NULL, *done = NULL;
        json_t *reqs = NULL, *updates = NULL;
        const ice_metadata *m;

        if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tbl)) < 0)
            return rc;
        m = tbl->meta;
        if (m->default_spec_id != r->fine_spec_id) {
            zb_table_free(tbl);
            return zb_fail(ctx, ZB_ECONFLICT, "%s: the default partition "
                           "spec changed from %d to %d while evolving",
                           t->ident, (int)r->fine_spec_id,
                           (int)m->default_spec_id);
        }
        if ((*id = find_coarse(m, r)) >= 0) {
            zb_table_free(tbl);
            return ZB_OK;
        }
        if ((reqs = json_array()) == NULL)
            rc = zb_fail_oom(ctx);
        if (rc == ZB_OK && m->table_uuid != NULL)
            rc = ice_commit_append((zb_json *)reqs, ctx,
                                   ice_requirement_table_uuid(m->table_uuid));
        if (rc == ZB_OK)
            rc = ice_commit_append((zb_json *)reqs, ctx, (zb_json *)json_pack(
                "{sssi}", "type", "assert-last-assigned-partition-id",
                "last-assigned-partition-id", (int)m->last_partition_id));
        if (rc == ZB_OK)
            rc = ice_commit_append((zb_json *)reqs, ctx, (zb_json *)json_pack(
                "{sssi}", "type", "assert-default-spec-id",
                "default-spec-id", (int)m->default_spec_id));
        if (rc == ZB_OK)
            rc = spec_updates(&updates, ctx, m, r);
        if (rc == ZB_OK)
            rc = zb_catalog_commit(t->catalog, ctx, tbl, (const zb_json *)reqs,
                                   (const zb_json *)updates,
                                   &done);
        if (rc == ZB_OK && (*id = find_coarse(done->meta, r)) < 0)
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the partition spec added "
                         "is not in the committed metadata", t->ident);
        json_decref(reqs);
        json_decref(updates);
        zb_table_free(tbl);
        zb_table_free(done);
        if (rc == ZB_OK) {
            r->spec_added = 1;
            zb_log_info(ctx, "%s: added partition spec %d",
                        t->ident, (int)*id);
            return ZB_OK;
        }
        if (rc != ZB_ECONFLICT || attempt == SPEC_ATTEMPTS)
            break;
        zb_err_clear(&ctx->err);
    }
    zb_err_prefix(ctx, "%s: adding the coarse partition spec", t->ident);
    return rc;
}

int zb_compact_evolve_filter(int32_t spec_id, const ice_data_file *f,
                             void *payload)
{
    const zb_compact_evolve_result *r = payload;
    size_t k;

    if (r == NULL || !r->applicable || spec_id != r->fine_spec_id ||
        f == NULL)
        return 0;
    for (k = 0; k < r->n_fields; k++) {
        const zb_evolve_field *e = &r->fields[k];
        const ice_value *v;
        int64_t x;

        if (e->index >= f->n_partition)
            return 0;
        v = &f->partition[e->index];
        if (v->is_null)
            return 0;
        x = v->type == ICE_LONG ? v->u.l : (int64_t)v->u.i;
        if (zb_compact_evolve_period_end_ms(e->from, x) > e->cutoff_ms)
            return 0;
    }
    return 1;
}

int zb_compact_evolve_regular_filter(int32_t spec_id, const ice_data_file *f,
                                     void *payload)
{
    const zb_compact_evolve_result *r = payload;

    if (r == NULL || !r->applicable)
        return 1;
    if (r->coarse_spec_id >= 0 && spec_id == r->coarse_spec_id)
        return 0;
    if (r->refused[0] != '\0')
        return 1;
    return !zb_compact_evolve_filter(spec_id, f, payload);
}

/*
 * Why evolving t's table would lose deletes, into r->refused (empty:
 * it would not). An equality delete applies only to data files of its
 * own spec and partition (or from an unpartitioned spec): rows moved to
 * the coarse spec escape those that writers add later in the fine one,
 * and a row deleted or upserted comes back. Hence no evolution when the
 * schema has identifier fields (the table is keyed: upserts, CDC) or
 * when the branch head has a live equality delete file.
 */
static int check_deletes(zb_compact_evolve_result *r, zb_ctx *ctx,
                         const zb_op_target *t, const zb_table *table,
                         const zb_compact_opts *o)
{
    const ice_metadata *m = table->meta;
    const ice_schema *schema = ice_metadata_current_schema(m);
    zb_scan_plan_opts so = ZB_SCAN_PLAN_OPTS_INIT;
    const ice_snapshot *snap = NULL;
    zb_scan_plan *sp = NULL;
    zb_scan_stats st;
    int rc;

    if (schema != NULL && schema->n_identifier_field_ids > 0) {
        snprintf(r->refused, sizeof r->refused, "schema %d has identifier "
                 "fields (equality deletes written later in spec %d would "
                 "not apply to rows moved to a coarser spec)",
                 (int)schema->schema_id, (int)r->fine_spec_id);
        return ZB_OK;
    }
    if ((rc = zb_compact__head(&snap, ctx, m, o->branch)) < 0 ||
        snap == NULL)
        return rc;
    so.manifest = &table->paths;
    if ((rc = zb_scan_plan_open(&sp, t->io, ctx, m, snap, &so)) < 0)
        return rc;
    zb_scan_plan_stats(&st, sp);
    zb_scan_plan_free(sp);
    if (st.eq_delete_files > 0)
        snprintf(r->refused, sizeof r->refused, "snapshot %lld has %llu "
                 "equality delete file(s) (those written later in spec %d "
                 "would not apply to rows moved to a coarser spec)",
                 (long long)snap->snapshot_id,
                 (unsigned long long)st.eq_delete_files,
                 (int)r->fine_spec_id);
    return ZB_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Counts the groups of the fine spec (committed ones only after a run). */
static int count(zb_compact_evolve_result *r, zb_ctx *ctx, int after_run)
{
    const zb_compact_plan *p = &r->compact.plan;
    const char **parts;
    size_t i, n = 0;

    r->partitions = r->files = r->bytes = r->rows = 0;
    r->files_added = r->bytes_added = r->groups_committed = 0;
    if (p->n_groups == 0)
        return ZB_OK;
    if ((parts = zb_calloc(p->n_groups, sizeof *parts)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < p->n_groups; i++) {
        const zb_compact_group *g = &p->groups[i];

        if (g->spec_id != r->fine_spec_id ||
            (after_run && g->state != ZB_GROUP_COMMITTED))
            continue;
        parts[n++] = g->partition ? g->partition : "";
        r->files += g->n_tasks;
        r->bytes += g->bytes;
        r->rows += g->rows;
        if (after_run) {
            r->groups_committed++;
            r->files_added += g->out_files;
            r->bytes_added += g->out_bytes;
        }
    }
    qsort(parts, n, sizeof *parts, cmp_str);
    for (i = 0; i < n; i++)
        if (i == 0 || strcmp(parts[i], parts[i - 1]) != 0)
            r->partitions++;
    zb_free(parts);
    return ZB_OK;
}

static int coarse_only(int32_t spec_id, const ice_data_file *f,
                       void *payload)
{
    const zb_compact_evolve_result *r = payload;

    (void)f;
    return r->coarse_spec_id >= 0 && spec_id == r->coarse_spec_id;
}

/* The merge pass: the coarse spec's small files compacted within it
 * (after the evolution pass, so that its outputs are merged with the
 * files earlier runs put there). Nothing when the spec is not in the
 * table. */
static int merge(const zb_op_target *t, zb_ctx *ctx,
                 const zb_compact_evolve_opts *o,
                 zb_compact_evolve_result *r)
{
    zb_compact_opts co = o->compact;

    if (r->coarse_spec_id < 0)
        return ZB_OK;
    co.output_spec_id = r->coarse_spec_id;
    co.file_filter = coarse_only;
    co.file_filter_payload = r;
    return zb_compact(t, ctx, &co, &r->merge);
}

static void priv_free(evolve_priv *pv)
{
    if (pv == NULL)
        return;
    ice_metadata_free(pv->copy);
    zb_table_free(pv->table);
    zb_free(pv);
}

int zb_compact_evolve(const zb_op_target *t, zb_ctx *ctx,
                      const zb_compact_evolve_opts *o,
                      zb_compact_evolve_result *r)
{
    zb_compact_opts co;
    evolve_priv *pv = NULL;
    const zb_table *plan_on;
    int32_t coarse;
    int rc;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && o && r);
    memset(r, 0, sizeof *r);
    r->fine_spec_id = -1;
    r->coarse_spec_id = -1;
    r->compact.snapshot_id = -1;
    r->merge.snapshot_id = -1;
    if (o->n_rules == 0 || o->rules == NULL)
        return ZB_OK;
    if ((pv = zb_calloc(1, sizeof *pv)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident,
                                    &pv->table)) < 0)
        goto done;
    if ((rc = find_fields(r, ctx, pv->table->meta, o,
                          t->now_ms > 0 ? t->now_ms : clock_ms(),
                          t->ident)) < 0 || !r->applicable)
        goto done;
    coarse = find_coarse(pv->table->meta, r);
    r->coarse_spec_id = coarse;
    if (r->refused[0] == '\0' &&
        (rc = check_deletes(r, ctx, t, pv->table, &o->compact)) < 0)
        goto done;
    if (r->refused[0] != '\0') {
        zb_log_warn(ctx, "%s: partition evolution skipped: %s", t->ident,
                    r->refused);
        goto done;
    }
    plan_on = pv->table;
    if (coarse < 0) {
        if ((rc = copy_with_spec(&pv->copy, ctx, pv->table->meta, r)) < 0)
            goto done;
        pv->view = *pv->table;
        pv->view.meta = pv->copy;
        plan_on = &pv->view;
        if ((coarse = find_coarse(pv->copy, r)) < 0) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the coarse partition spec "
                         "did not apply to the metadata", t->ident);
            goto done;
        }
    }
    co = o->compact;
    co.output_spec_id = coarse;
    co.file_filter = zb_compact_evolve_filter;
    co.file_filter_payload = r;
    if ((rc = zb_compact_plan_build(&r->compact.plan, t->io, ctx, plan_on,
                                    &co)) < 0 ||
        (rc = count(r, ctx, 0)) < 0)
        goto done;
    if (t->dry_run || r->files == 0) {
        r->spec_added = r->coarse_spec_id < 0 && r->files > 0;
        /* the plan borrows the table: keep it until the result is freed */
        r->priv = pv;
        pv = NULL;
        rc = merge(t, ctx, o, r);
        goto done;
    }
    zb_compact_plan_free(&r->compact.plan);
    if (r->coarse_spec_id < 0 &&
        (rc = commit_spec(&r->coarse_spec_id, t, ctx, r)) < 0)
        goto done;
    co.output_spec_id = r->coarse_spec_id;
    r->ran = 1;
    rc = zb_compact(t, ctx, &co, &r->compact);
    {
        int crc = count(r, ctx, 1);

        if (rc == ZB_OK)
            rc = crc;
    }
    if (rc == ZB_OK)
        rc = merge(t, ctx, o, r);
done:
    priv_free(pv);
    if (rc < 0)
        zb_err_prefix(ctx, "partition evolution");
    return rc;
}

void zb_compact_evolve_result_free(zb_compact_evolve_result *r)
{
    if (r == NULL)
        return;
    zb_compact_result_free(&r->compact);
    zb_compact_result_free(&r->merge);
    priv_free(r->priv);
    memset(r, 0, sizeof *r);
    r->fine_spec_id = -1;
    r->coarse_spec_id = -1;
}

int zb_compact_evolve_report(zb_buf *out, const zb_compact_evolve_result *r,
                             int dry_run)
{
    size_t k;
    int bad = 0;

    if (r == NULL || !r->applicable)
        return ZB_OK;
    bad |= zb_buf_puts(out, "  evolution ") < 0;
    for (k = 0; k < r->n_fields; k++)
        bad |= zb_buf_appendf(out, "%s%s -> %s (older than %lld day%s)",
                              k ? ", " : "", r->fields[k].name,
                              r->fields[k].coarse_name,
                              (long long)r->fields[k].older_than_days,
                              r->fields[k].older_than_days == 1 ? ""
                                                                : "s") < 0;
    if (r->refused[0] != '\0')
        bad |= zb_buf_appendf(out, ": skipped: %s", r->refused) < 0;
    else if (r->files == 0 && r->ran)
        bad |= zb_buf_puts(out, ": nothing committed") < 0;
    else if (r->files == 0)
        bad |= zb_buf_puts(out, ": no partition old enough") < 0;
    else if (dry_run && r->coarse_spec_id < 0)
        bad |= zb_buf_appendf(out, ": would evolve %llu file(s) (%llu "
                              "bytes) in %llu partition(s) of spec %d into "
                              "a new spec", (unsigned long long)r->files,
                              (unsigned long long)r->bytes,
                              (unsigned long long)r->partitions,
                              (int)r->fine_spec_id) < 0;
    else if (dry_run)
        bad |= zb_buf_appendf(out, ": would evolve %llu file(s) (%llu "
                              "bytes) in %llu partition(s) of spec %d into "
                              "spec %d", (unsigned long long)r->files,
                              (unsigned long long)r->bytes,
                              (unsigned long long)r->partitions,
                              (int)r->fine_spec_id,
                              (int)r->coarse_spec_id) < 0;
    else
        bad |= zb_buf_appendf(out, ": evolved %llu file(s) (%llu bytes) in "
                              "%llu partition(s) of spec %d into %llu "
                              "file(s) (%llu bytes) of spec %d%s",
                              (unsigned long long)r->files,
                              (unsigned long long)r->bytes,
                              (unsigned long long)r->partitions,
                              (int)r->fine_spec_id,
                              (unsigned long long)r->files_added,
                              (unsigned long long)r->bytes_added,
                              (int)r->coarse_spec_id,
                              r->spec_added ? " (spec added)" : "") < 0;
    if (dry_run && r->merge.plan.files > 0)
        bad |= zb_buf_appendf(out, "; would merge %llu small file(s) "
                              "already in spec %d",
                              (unsigned long long)r->merge.plan.files,
                              (int)r->coarse_spec_id) < 0;
    else if (!dry_run && r->merge.files_removed > 0)
        bad |= zb_buf_appendf(out, "; merged %llu file(s) of spec %d into "
                              "%llu", (unsigned long long)
                                  r->merge.files_removed,
                              (int)r->coarse_spec_id,
                              (unsigned long long)r->merge.files_added) < 0;
    bad |= zb_buf_putc(out, '\n') < 0;
    return bad ? ZB_ENOMEM : ZB_OK;
}

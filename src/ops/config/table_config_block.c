/*
 * ops/config/table_config_block.c - one table block of table-config.json: its
 * sections (partition, partition_evolution, ordering, retention and the
 * scalar keys) checked against the rules of table_config.h and copied
 * into the config's arena. Sections not given keep the built-in values
 * zb_table_config__builtin put there; the present bits say which were
 * given, for the merge.
 */
#define ZB_MODULE "tableconfig"

#include "ops/config/table_config_int.h"

#include <string.h>

#include <jansson.h>

#include "util/err.h"

static const char *const transform_names[] = {
    "identity", "year", "month", "day", "hour", "bucket", "truncate", "void"
};
/* Evolution steps only: index in transform_names and rank. */
static const char *const time_names[] = { "hour", "day", "month", "year" };
static const zb_tc_transform time_transforms[] = { ZB_TC_HOUR, ZB_TC_DAY,
                                                   ZB_TC_MONTH, ZB_TC_YEAR };

static const char *default_field_name(zb_arena *a, const char *column,
                                      zb_tc_transform t)
{
    static const char *const suffix[] = { "", "_year", "_month", "_day",
                                          "_hour", "_bucket", "_trunc",
                                          "_null" };
    return zb_arena_sprintf(a, "%s%s", column, suffix[t]);
}

static int parse_partition(zb_tc_parser *p, const json_t *arr, const char *path,
                           zb_tc_block *b)
{
    static const char *const keys[] = { "column", "transform", "num_buckets",
                                        "width", "name", NULL };
    char ip[TC_PATH], kp[TC_PATH];
    zb_tc_partition_field *fields;
    size_t n, i, j;
    int rc;

    if ((rc = zb_tc__want_list(p, arr, path)) < 0)
        return rc;
    n = json_array_size(arr);
    fields = zb_arena_calloc(p->tc->arena, n ? n : 1, sizeof(*fields));
    if (fields == NULL)
        return zb_fail_oom(p->ctx);
    for (i = 0; i < n; i++) {
        const json_t *f = json_array_get(arr, i);
        const json_t *v;
        zb_tc_partition_field *pf = &fields[i];
        size_t t = ZB_TC_IDENTITY;
        int64_t num;

        zb_tc__sub_index(ip, path, i);
        if ((rc = zb_tc__want_object(p, f, ip)) < 0 ||
            (rc = zb_tc__check_keys(p, f, ip, keys)) < 0)
            return rc;
        zb_tc__sub(kp, ip, "column");
        if ((v = zb_tc__opt(f, "column")) == NULL)
            return zb_tc__bad(p, kp, "required");
        if ((rc = zb_tc__want_string(p, v, kp, &pf->column)) < 0)
            return rc;
        zb_tc__sub(kp, ip, "transform");
        if ((v = zb_tc__opt(f, "transform")) != NULL &&
            (rc = zb_tc__want_enum(p, v, kp, transform_names, 8, &t)) < 0)
            return rc;
        pf->transform = (zb_tc_transform)t;
        zb_tc__sub(kp, ip, "num_buckets");
        v = zb_tc__opt(f, "num_buckets");
        if (v != NULL && t != ZB_TC_BUCKET)
            return zb_tc__bad(p, kp, "only allowed with transform bucket");
        if (v == NULL && t == ZB_TC_BUCKET)
            return zb_tc__bad(p, kp, "required with transform bucket");
        if (v != NULL) {
            if ((rc = zb_tc__want_int(p, v, kp, 1, INT32_MAX, 0, &num)) < 0)
                return rc;
            pf->num_buckets = (int32_t)num;
        }
        zb_tc__sub(kp, ip, "width");
        v = zb_tc__opt(f, "width");
        if (v != NULL && t != ZB_TC_TRUNCATE)
            return zb_tc__bad(p, kp, "only allowed with transform truncate");
        if (v == NULL && t == ZB_TC_TRUNCATE)
            return zb_tc__bad(p, kp, "required with transform truncate");
        if (v != NULL) {
            if ((rc = zb_tc__want_int(p, v, kp, 1, INT32_MAX, 0, &num)) < 0)
                return rc;
            pf->width = (int32_t)num;
        }
        zb_tc__sub(kp, ip, "name");
        if ((v = zb_tc__opt(f, "name")) != NULL) {
            if ((rc = zb_tc__want_string(p, v, kp, &pf->name)) < 0)
                return rc;
            pf->name_given = 1;
        } else if ((pf->name = default_field_name(p->tc->arena, pf->column,
                                                  pf->transform)) == NULL) {
            return zb_fail_oom(p->ctx);
        }
        for (j = 0; j < i; j++)
            if (strcmp(fields[j].name, pf->name) == 0)
                return zb_tc__bad(p, kp,
                                  "'%.60s' is also the name of %s[%zu]; "
                                  "partition field names must be unique",
                                  pf->name, "partition", j);
    }
    b->n_partition = n;
    b->partition = fields;
    return ZB_OK;
}

static int parse_evolution(zb_tc_parser *p, const json_t *obj, const char *path,
                           zb_tc_block *b)
{
    static const char *const keys[] = { "enabled", "rules", NULL };
    static const char *const rule_keys[] = { "from", "to", "older_than_days",
                                             NULL };
    char kp[TC_PATH], ip[TC_PATH];
    zb_tc_evolution_rule *rules = NULL;
    const json_t *v, *arr;
    size_t n = 0;
    int rc;

    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, keys)) < 0)
        return rc;
    b->evolution_enabled = 1;
    zb_tc__sub(kp, path, "enabled");
    if ((v = zb_tc__opt(obj, "enabled")) != NULL &&
        (rc = zb_tc__want_bool(p, v, kp, &b->evolution_enabled)) < 0)
        return rc;
    zb_tc__sub(kp, path, "rules");
    if ((arr = zb_tc__opt(obj, "rules")) != NULL) {
        if ((rc = zb_tc__want_list(p, arr, kp)) < 0)
            return rc;
        n = json_array_size(arr);
        rules = zb_arena_calloc(p->tc->arena, n ? n : 1, sizeof(*rules));
        if (rules == NULL)
            return zb_fail_oom(p->ctx);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(arr, i);
        size_t from, to;
        char rp[TC_PATH];

        zb_tc__sub_index(ip, kp, i);
        if ((rc = zb_tc__want_object(p, r, ip)) < 0 ||
            (rc = zb_tc__check_keys(p, r, ip, rule_keys)) < 0)
            return rc;
        zb_tc__sub(rp, ip, "from");
        if ((v = zb_tc__opt(r, "from")) == NULL)
            return zb_tc__bad(p, rp, "required");
        if ((rc = zb_tc__want_enum(p, v, rp, time_names, 4, &from)) < 0)
            return rc;
        zb_tc__sub(rp, ip, "to");
        if ((v = zb_tc__opt(r, "to")) == NULL)
            return zb_tc__bad(p, rp, "required");
        if ((rc = zb_tc__want_enum(p, v, rp, time_names, 4, &to)) < 0)
            return rc;
        if (to <= from)
            return zb_tc__bad(p, rp,
                              "'%s' is not coarser than from '%s' (hour < "
                              "day < month < year; evolution only coarsens)",
                              time_names[to], time_names[from]);
        zb_tc__sub(rp, ip, "older_than_days");
        if ((v = zb_tc__opt(r, "older_than_days")) == NULL)
            return zb_tc__bad(p, rp, "required");
        if ((rc = zb_tc__want_int(p, v, rp, 0, INT32_MAX, 0,
                                  &rules[i].older_than_days)) < 0)
            return rc;
        rules[i].from = time_transforms[from];
        rules[i].to = time_transforms[to];
        for (size_t j = 0; j < i; j++) {
            if (rules[j].from == rules[i].from) {
                zb_tc__sub(rp, ip, "from");
                return zb_tc__bad(p, rp, "'%s' already has a rule (rules[%zu])",
                                  time_names[from], j);
            }
        }
    }
    b->n_rules = n;
    b->rules = rules;
    return ZB_OK;
}

static int parse_sort(zb_tc_parser *p, const json_t *arr, const char *path,
                      zb_tc_block *b)
{
    static const char *const keys[] = { "column", "direction", "nulls",
                                        NULL };
    static const char *const dirs[] = { "asc", "desc" };
    static const char *const nulls[] = { "first", "last" };
    char ip[TC_PATH], kp[TC_PATH];
    zb_tc_sort_key *sk;
    size_t n;
    int rc;

    if ((rc = zb_tc__want_list(p, arr, path)) < 0)
        return rc;
    if ((n = json_array_size(arr)) == 0)
        return zb_tc__bad(p, path, "must list at least one column");
    if ((sk = zb_arena_calloc(p->tc->arena, n, sizeof(*sk))) == NULL)
        return zb_fail_oom(p->ctx);
    for (size_t i = 0; i < n; i++) {
        const json_t *k = json_array_get(arr, i), *v;
        size_t e;

        zb_tc__sub_index(ip, path, i);
        if ((rc = zb_tc__want_object(p, k, ip)) < 0 ||
            (rc = zb_tc__check_keys(p, k, ip, keys)) < 0)
            return rc;
        zb_tc__sub(kp, ip, "column");
        if ((v = zb_tc__opt(k, "column")) == NULL)
            return zb_tc__bad(p, kp, "required");
        if ((rc = zb_tc__want_string(p, v, kp, &sk[i].column)) < 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(sk[j].column, sk[i].column) == 0)
                return zb_tc__bad(p, kp,
                                  "'%.60s' is already sorted on at [%zu]",
                                  sk[i].column, j);
        zb_tc__sub(kp, ip, "direction");
        if ((v = zb_tc__opt(k, "direction")) != NULL) {
            if ((rc = zb_tc__want_enum(p, v, kp, dirs, 2, &e)) < 0)
                return rc;
            sk[i].descending = e == 1;
        }
        zb_tc__sub(kp, ip, "nulls");
        if ((v = zb_tc__opt(k, "nulls")) != NULL) {
            if ((rc = zb_tc__want_enum(p, v, kp, nulls, 2, &e)) < 0)
                return rc;
            sk[i].nulls_first = e == 0;
        }
    }
    b->n_sort = n;
    b->sort = sk;
    return ZB_OK;
}

static int parse_zorder(zb_tc_parser *p, const json_t *obj, const char *path,
                        zb_tc_block *b)
{
    static const char *const keys[] = { "columns", "precision_bits", NULL };
    char kp[TC_PATH], ip[TC_PATH];
    const json_t *cols, *v;
    const char **names;
    int64_t bits = ZB_TC_DEFAULT_PRECISION_BITS;
    size_t n;
    int rc;

    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, keys)) < 0)
        return rc;
    zb_tc__sub(kp, path, "columns");
    if ((cols = zb_tc__opt(obj, "columns")) == NULL)
        return zb_tc__bad(p, kp, "required");
    if ((rc = zb_tc__want_list(p, cols, kp)) < 0)
        return rc;
    if ((n = json_array_size(cols)) < 2)
        return zb_tc__bad(p, kp,
                          "needs at least 2 columns (got %zu); sort on one "
                          "column with mode 'sort'",
                          n);
    if ((names = zb_arena_calloc(p->tc->arena, n, sizeof(*names))) == NULL)
        return zb_fail_oom(p->ctx);
    for (size_t i = 0; i < n; i++) {
        zb_tc__sub_index(ip, kp, i);
        if ((rc = zb_tc__want_string(p, json_array_get(cols, i), ip,
                                     &names[i])) < 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0)
                return zb_tc__bad(p, ip,
                                  "'%.60s' is listed twice; z-order columns "
                                  "must be unique",
                                  names[i]);
    }
    zb_tc__sub(kp, path, "precision_bits");
    if ((v = zb_tc__opt(obj, "precision_bits")) != NULL &&
        (rc = zb_tc__want_int(p, v, kp, 1, 32, 0, &bits)) < 0)
        return rc;
    if ((uint64_t)bits * n > 62)
        return zb_tc__bad(p, path,
                          "precision_bits * columns must be <= 62 (got "
                          "%lld * %zu = %llu)",
                          (long long)bits, n,
                          (unsigned long long)((uint64_t)bits * n));
    b->n_zorder = n;
    b->zorder_columns = names;
    b->precision_bits = (int)bits;
    return ZB_OK;
}

static int parse_ordering(zb_tc_parser *p, const json_t *obj, const char *path,
                          zb_tc_block *b)
{
    static const char *const keys[] = { "mode", "sort", "zorder", NULL };
    static const char *const modes[] = { "none", "sort", "zorder" };
    char kp[TC_PATH];
    const json_t *v, *sort, *zorder;
    size_t mode = ZB_TC_ORDER_NONE;
    int rc;

    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, keys)) < 0)
        return rc;
    zb_tc__sub(kp, path, "mode");
    if ((v = zb_tc__opt(obj, "mode")) != NULL &&
        (rc = zb_tc__want_enum(p, v, kp, modes, 3, &mode)) < 0)
        return rc;
    b->order_mode = (zb_tc_order_mode)mode;
    sort = zb_tc__opt(obj, "sort");
    zorder = zb_tc__opt(obj, "zorder");
    if (sort != NULL && mode != ZB_TC_ORDER_SORT) {
        zb_tc__sub(kp, path, "sort");
        return zb_tc__bad(p, kp, "not allowed when mode is '%s'", modes[mode]);
    }
    if (zorder != NULL && mode != ZB_TC_ORDER_ZORDER) {
        zb_tc__sub(kp, path, "zorder");
        return zb_tc__bad(p, kp, "not allowed when mode is '%s'", modes[mode]);
    }
    if (mode == ZB_TC_ORDER_SORT) {
        zb_tc__sub(kp, path, "sort");
        if (sort == NULL)
            return zb_tc__bad(p, kp, "required when mode is 'sort'");
        return parse_sort(p, sort, kp, b);
    }
    if (mode == ZB_TC_ORDER_ZORDER) {
        zb_tc__sub(kp, path, "zorder");
        if (zorder == NULL)
            return zb_tc__bad(p, kp, "required when mode is 'zorder'");
        return parse_zorder(p, zorder, kp, b);
    }
    return ZB_OK;
}

/* One retention part: an object of allowed keys, or absent. */
static int retention_part(zb_tc_parser *p, const json_t *ret, const char *path,
                          const char *name, const char *const *keys,
                          const json_t **out, char *kp)
{
    int rc;

    zb_tc__sub(kp, path, name);
    *out = zb_tc__opt(ret, name);
    if (*out == NULL)
        return ZB_OK;
    if ((rc = zb_tc__want_object(p, *out, kp)) < 0 ||
        (rc = zb_tc__check_keys(p, *out, kp, keys)) < 0)
        return rc;
    return ZB_OK;
}

/* part[key] into *out through fn, when present. */
#define RET_INT(part, key, lo, nullable, field)                                \
    do {                                                                       \
        const json_t *rv_ = (part) ? json_object_get((part), (key)) : NULL;    \
        if (rv_ != NULL && (!json_is_null(rv_) || (nullable))) {               \
            zb_tc__sub(vp, kp, (key));                                         \
            if ((rc = zb_tc__want_int(p, rv_, vp, (lo), INT32_MAX, (nullable), \
                                      &(field))) < 0)                          \
                return rc;                                                     \
        }                                                                      \
    } while (0)

#define RET_BOOL(part, key, field)                                             \
    do {                                                                       \
        const json_t *rv_ = (part) ? zb_tc__opt((part), (key)) : NULL;         \
        if (rv_ != NULL) {                                                     \
            zb_tc__sub(vp, kp, (key));                                         \
            if ((rc = zb_tc__want_bool(p, rv_, vp, &(field))) < 0)             \
                return rc;                                                     \
        }                                                                      \
    } while (0)

/* Whether part gives key a value (a null one leaves the built-in). */
static int given(const json_t *part, const char *key)
{
    const json_t *v = part ? json_object_get(part, key) : NULL;

    return v != NULL && !json_is_null(v);
}

static int parse_retention(zb_tc_parser *p, const json_t *obj, const char *path,
                           zb_tc_retention *r)
{
    static const char *const keys[] = { "expire_snapshots",
                                        "remove_orphan_files",
                                        "remove_dangling_deletes",
                                        "rewrite_manifests", "metadata",
                                        NULL };
    static const char *const k_exp[] = { "enabled", "max_snapshot_age_days",
                                         "min_snapshots_to_keep",
                                         "max_ref_age_days", NULL };
    static const char *const k_orph[] = { "enabled", "older_than_days",
                                          NULL };
    static const char *const k_dang[] = { "enabled", NULL };
    static const char *const k_man[] = { "enabled", "min_input_manifests",
                                         NULL };
    static const char *const k_meta[] = { "previous_versions_max",
                                          "delete_after_commit", NULL };
    char kp[TC_PATH], vp[TC_PATH];
    const json_t *part, *v;
    int rc;

    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, keys)) < 0)
        return rc;
    zb_table_config__builtin_retention(r);
    if ((rc = retention_part(p, obj, path, "expire_snapshots", k_exp, &part,
                             kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->expire_enabled);
    RET_INT(part, "max_snapshot_age_days", 0, 1, r->max_snapshot_age_days);
    RET_INT(part, "min_snapshots_to_keep", 1, 1, r->min_snapshots_to_keep);
    RET_INT(part, "max_ref_age_days", 0, 1, r->max_ref_age_days);
    if ((rc = retention_part(p, obj, path, "remove_orphan_files", k_orph,
                             &part, kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->orphans_enabled);
    RET_INT(part, "older_than_days", 0, 0, r->orphans_older_than_days);
    if (given(part, "older_than_days"))
        r->given |= ZB_TC_GIVEN_ORPHAN_DAYS;
    if ((rc = retention_part(p, obj, path, "remove_dangling_deletes", k_dang,
                             &part, kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->dangling_enabled);
    if ((rc = retention_part(p, obj, path, "rewrite_manifests", k_man, &part,
                             kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->manifests_enabled);
    RET_INT(part, "min_input_manifests", 2, 0, r->min_input_manifests);
    if (given(part, "min_input_manifests"))
        r->given |= ZB_TC_GIVEN_MIN_MANIFESTS;
    if ((rc = retention_part(p, obj, path, "metadata", k_meta, &part,
                             kp)) < 0)
        return rc;
    RET_INT(part, "previous_versions_max", 1, 1, r->previous_versions_max);
    if (part != NULL && (v = json_object_get(part, "delete_after_commit"))) {
        zb_tc__sub(vp, kp, "delete_after_commit");
        if (json_is_null(v))
            r->delete_after_commit = ZB_UNSET;
        else if ((rc = zb_tc__want_bool(p, v, vp, &r->delete_after_commit)) < 0)
            return rc;
    }
    if (r->orphans_enabled && !r->expire_enabled) {
        zb_tc__sub(kp, path, "remove_orphan_files");
        return zb_tc__bad(p, kp,
                          "enabled while expire_snapshots is disabled; "
                          "orphan removal needs expiry (disable "
                          "remove_orphan_files or enable expire_snapshots)");
    }
    return ZB_OK;
}

const char *const zb_tc_schedule_ops[ZB_TC_SCHEDULE_OPS] = {
    "compact",           "apply-properties", "remove-dangling-deletes",
    "rewrite-manifests", "expire",           "remove-orphans"
};
/* The same, NULL-terminated, for zb_tc__check_keys. */
static const char *const schedule_keys[] = {
    "compact",           "apply-properties", "remove-dangling-deletes",
    "rewrite-manifests", "expire",           "remove-orphans", NULL
};

/* schedule: {OPERATION: {min_interval_minutes}}; null counts as absent. */
static int parse_schedule(zb_tc_parser *p, const json_t *obj,
                          const char *path, zb_tc_block *b)
{
    static const char *const op_keys[] = { "min_interval_minutes", NULL };
    char kp[TC_PATH], vp[TC_PATH];
    const json_t *part, *v;
    int rc;

    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, schedule_keys)) < 0)
        return rc;
    for (size_t i = 0; i < ZB_TC_SCHEDULE_OPS; i++) {
        zb_tc__sub(kp, path, zb_tc_schedule_ops[i]);
        if ((part = zb_tc__opt(obj, zb_tc_schedule_ops[i])) == NULL)
            continue;
        if ((rc = zb_tc__want_object(p, part, kp)) < 0 ||
            (rc = zb_tc__check_keys(p, part, kp, op_keys)) < 0)
            return rc;
        zb_tc__sub(vp, kp, "min_interval_minutes");
        if ((v = json_object_get(part, "min_interval_minutes")) != NULL &&
            (rc = zb_tc__want_int(p, v, vp, 0, INT32_MAX, 1,
                                  &b->min_interval_minutes[i])) < 0)
            return rc;
    }
    return ZB_OK;
}

int zb_tc__parse_block(zb_tc_parser *p, const json_t *obj, const char *path,
                       zb_tc_block *b)
{
    static const char *const keys[] = { "description", "partition",
                                        "partition_evolution", "ordering",
                                        "target_file_size_bytes",
                                        "min_input_files", "retention",
                                        "max_concurrent_file_group_rewrites",
                                        "schedule", "min_file_size_bytes",
                                        "max_file_size_bytes", "rewrite_all",
                                        "delete_file_threshold",
                                        "delete_ratio_threshold",
                                        "max_file_group_size_bytes",
                                        "partial_progress_enabled",
                                        "partial_progress_max_commits",
                                        "max_files_to_rewrite",
                                        "rewrite_job_order", "output_spec_id",
                                        "use_starting_sequence_number",
                                        NULL };
    char kp[TC_PATH];
    const json_t *v;
    int rc;

    zb_table_config__builtin(b, p->tc->has_defaults);
    if ((rc = zb_tc__want_object(p, obj, path)) < 0 ||
        (rc = zb_tc__check_keys(p, obj, path, keys)) < 0)
        return rc;
    zb_tc__sub(kp, path, "description");
    if ((v = zb_tc__opt(obj, "description")) != NULL) {
        if (!json_is_string(v))
            return zb_tc__bad(p, kp, "must be a string (got %s)",
                              zb_tc__type_name(v));
        b->description = zb_arena_strdup(p->tc->arena, json_string_value(v));
        if (b->description == NULL)
            return zb_fail_oom(p->ctx);
        b->present |= 1u << ZB_TC_SEC_DESCRIPTION;
    }
    zb_tc__sub(kp, path, "partition");
    if ((v = zb_tc__opt(obj, "partition")) != NULL) {
        if ((rc = parse_partition(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_PARTITION;
    }
    zb_tc__sub(kp, path, "partition_evolution");
    if ((v = zb_tc__opt(obj, "partition_evolution")) != NULL) {
        b->n_rules = 0;
        b->rules = NULL;
        if ((rc = parse_evolution(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_EVOLUTION;
    }
    zb_tc__sub(kp, path, "ordering");
    if ((v = zb_tc__opt(obj, "ordering")) != NULL) {
        if ((rc = parse_ordering(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_ORDERING;
    }
    zb_tc__sub(kp, path, "target_file_size_bytes");
    if ((v = json_object_get(obj, "target_file_size_bytes")) != NULL) {
        if ((rc = zb_tc__want_int(p, v, kp, 100, INT64_MAX, 1,
                                  &b->target_file_size_bytes)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_TARGET_FILE_SIZE;
    }
    zb_tc__sub(kp, path, "min_input_files");
    if ((v = zb_tc__opt(obj, "min_input_files")) != NULL) {
        if ((rc = zb_tc__want_int(p, v, kp, 1, INT32_MAX, 0,
                                  &b->min_input_files)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_MIN_INPUT_FILES;
    }
    zb_tc__sub(kp, path, "max_concurrent_file_group_rewrites");
    if ((v = json_object_get(obj, "max_concurrent_file_group_rewrites")) !=
        NULL) {
        if ((rc = zb_tc__want_int(p, v, kp, 1, 256, 1,
                                  &b->max_concurrent_rewrites)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_MAX_CONCURRENT_REWRITES;
    }
    zb_tc__sub(kp, path, "retention");
    if ((v = zb_tc__opt(obj, "retention")) != NULL) {
        if ((rc = parse_retention(p, v, kp, &b->retention)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_RETENTION;
    }
    zb_tc__sub(kp, path, "schedule");
    if ((v = zb_tc__opt(obj, "schedule")) != NULL) {
        if ((rc = parse_schedule(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_SCHEDULE;
    }
    return zb_tc__parse_rewrite(p, obj, path, &b->rw);
}

/* "db" or "db.raw": levels non-empty. */
const char *zb_tc_transform_name(zb_tc_transform t)
{
    return (unsigned)t < 8 ? transform_names[t] : "?";
}

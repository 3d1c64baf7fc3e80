/*
 * ops/table_config.c - parsing and validating table-config.json version 2
 * (the keys and rules are in table_config.h).
 *
 * jansson decodes the text (duplicate keys rejected), then one pass over
 * the tree checks and copies it: parse_root -> parse_block (the defaults
 * and each table) -> parse_partition, parse_evolution, parse_ordering,
 * parse_retention. Every object's keys are checked against its allowed
 * set before its values are read, so an unknown key is reported before
 * anything that depends on it. Each check names the key path
 * (namespaces.db.tables.events.ordering.zorder.precision_bits) and the
 * rule; parsing stops at the first problem. Strings and arrays go into
 * the config's arena; the jansson tree is freed before returning.
 */
#define ZB_MODULE "tableconfig"

#include "ops/table_config_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "util/alloc.h"
#include "util/err.h"

#define TC_PATH 320
#define TC_MAX_ITEMS 100000

typedef struct tcp {
    zb_ctx *ctx;
    zb_table_config *tc;
} tcp;

static const char *const transform_names[] = {
    "identity", "year", "month", "day", "hour", "bucket", "truncate", "void"
};
/* Evolution steps only: index in transform_names and rank. */
static const char *const time_names[] = { "hour", "day", "month", "year" };
static const zb_tc_transform time_transforms[] = { ZB_TC_HOUR, ZB_TC_DAY,
                                                   ZB_TC_MONTH, ZB_TC_YEAR };

static int bad(tcp *p, const char *path, const char *fmt, ...)
    ZB_PRINTF(3, 4);

static int bad(tcp *p, const char *path, const char *fmt, ...)
{
    char what[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return zb_fail(p->ctx, ZB_EUSAGE, "%s: %s: %s", p->tc->name, path, what);
}

/* Key paths: appended piece by piece, cut at TC_PATH - 1 bytes. */
static void put(char *dst, size_t *n, const char *s)
{
    size_t l = strlen(s);
    if (l > TC_PATH - 1 - *n)
        l = TC_PATH - 1 - *n;
    memcpy(dst + *n, s, l);
    *n += l;
    dst[*n] = '\0';
}

static void sub(char *dst, const char *parent, const char *key)
{
    size_t n = 0;
    dst[0] = '\0';
    put(dst, &n, parent);
    if (parent[0] != '\0')
        put(dst, &n, ".");
    put(dst, &n, key);
}

static void sub_index(char *dst, const char *parent, size_t i)
{
    char idx[32];
    size_t n = 0;
    snprintf(idx, sizeof(idx), "[%zu]", i);
    dst[0] = '\0';
    put(dst, &n, parent);
    put(dst, &n, idx);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a fraction";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

static int want_object(tcp *p, const json_t *v, const char *path)
{
    if (!json_is_object(v))
        return bad(p, path, "must be an object (got %s)", type_name(v));
    return ZB_OK;
}

/* Rejects keys of obj not in allowed (NULL-terminated). */
static int check_keys(tcp *p, const json_t *obj, const char *path,
                      const char *const *allowed)
{
    const char *key;
    json_t *v;
    char kp[TC_PATH], list[160];

    json_object_foreach((json_t *)obj, key, v) {
        size_t i;
        for (i = 0; allowed[i] != NULL; i++)
            if (strcmp(key, allowed[i]) == 0)
                break;
        if (allowed[i] != NULL)
            continue;
        list[0] = '\0';
        for (i = 0; allowed[i] != NULL; i++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
                     allowed[i]);
        }
        sub(kp, path, key);
        return bad(p, kp, "unknown key (allowed: %s)", list);
    }
    return ZB_OK;
}

/* A whole number in lo..hi; null gives -1 when allow_null. */
static int want_int(tcp *p, const json_t *v, const char *path, int64_t lo,
                    int64_t hi, int allow_null, int64_t *out)
{
    if (json_is_null(v) && allow_null) {
        *out = -1;
        return ZB_OK;
    }
    if (!json_is_integer(v))
        return bad(p, path, "must be a whole number%s (got %s)",
                   allow_null ? " or null" : "", type_name(v));
    json_int_t n = json_integer_value(v);
    if (n < lo || n > hi) {
        /* a bound of INT32_MAX or more only guards arithmetic: the rule
         * users read is the lower one */
        if (hi >= INT32_MAX && n < lo)
            return bad(p, path, "must be >= %lld (got %lld)", (long long)lo,
                       (long long)n);
        if (hi >= INT32_MAX)
            return bad(p, path, "must be <= %lld (got %lld)", (long long)hi,
                       (long long)n);
        return bad(p, path, "must be from %lld to %lld (got %lld)",
                   (long long)lo, (long long)hi, (long long)n);
    }
    *out = (int64_t)n;
    return ZB_OK;
}

static int want_bool(tcp *p, const json_t *v, const char *path, int *out)
{
    if (!json_is_boolean(v))
        return bad(p, path, "must be true or false (got %s)", type_name(v));
    *out = json_is_true(v);
    return ZB_OK;
}

static int want_string(tcp *p, const json_t *v, const char *path,
                       const char **out)
{
    if (!json_is_string(v))
        return bad(p, path, "must be a string (got %s)", type_name(v));
    if (json_string_length(v) == 0)
        return bad(p, path, "must not be empty");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return bad(p, path, "holds a NUL character");
    if ((*out = zb_arena_strdup(p->tc->arena, json_string_value(v))) == NULL)
        return zb_fail_oom(p->ctx);
    return ZB_OK;
}

static int want_enum(tcp *p, const json_t *v, const char *path,
                     const char *const *names, size_t n, size_t *out)
{
    char list[120];

    if (!json_is_string(v))
        return bad(p, path, "must be a string (got %s)", type_name(v));
    for (size_t i = 0; i < n; i++) {
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = i;
            return ZB_OK;
        }
    }
    list[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", names[i]);
    }
    return bad(p, path, "'%.40s' is not one of %s", json_string_value(v),
               list);
}

/* obj[key], with null counted as absent. */
static json_t *opt(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_null(v) ? NULL : v;
}

static int want_list(tcp *p, const json_t *v, const char *path)
{
    if (!json_is_array(v))
        return bad(p, path, "must be a list (got %s)", type_name(v));
    if (json_array_size(v) > TC_MAX_ITEMS)
        return bad(p, path, "has more than %d items", TC_MAX_ITEMS);
    return ZB_OK;
}

/* Iceberg's default partition field names. */
static const char *default_field_name(zb_arena *a, const char *column,
                                      zb_tc_transform t)
{
    static const char *const suffix[] = { "", "_year", "_month", "_day",
                                          "_hour", "_bucket", "_trunc",
                                          "_null" };
    return zb_arena_sprintf(a, "%s%s", column, suffix[t]);
}

static int parse_partition(tcp *p, const json_t *arr, const char *path,
                           zb_tc_block *b)
{
    static const char *const keys[] = { "column", "transform", "num_buckets",
                                        "width", "name", NULL };
    char ip[TC_PATH], kp[TC_PATH];
    zb_tc_partition_field *fields;
    size_t n, i, j;
    int rc;

    if ((rc = want_list(p, arr, path)) < 0)
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

        sub_index(ip, path, i);
        if ((rc = want_object(p, f, ip)) < 0 ||
            (rc = check_keys(p, f, ip, keys)) < 0)
            return rc;
        sub(kp, ip, "column");
        if ((v = opt(f, "column")) == NULL)
            return bad(p, kp, "required");
        if ((rc = want_string(p, v, kp, &pf->column)) < 0)
            return rc;
        sub(kp, ip, "transform");
        if ((v = opt(f, "transform")) != NULL &&
            (rc = want_enum(p, v, kp, transform_names, 8, &t)) < 0)
            return rc;
        pf->transform = (zb_tc_transform)t;
        sub(kp, ip, "num_buckets");
        v = opt(f, "num_buckets");
        if (v != NULL && t != ZB_TC_BUCKET)
            return bad(p, kp, "only allowed with transform bucket");
        if (v == NULL && t == ZB_TC_BUCKET)
            return bad(p, kp, "required with transform bucket");
        if (v != NULL) {
            if ((rc = want_int(p, v, kp, 1, INT32_MAX, 0, &num)) < 0)
                return rc;
            pf->num_buckets = (int32_t)num;
        }
        sub(kp, ip, "width");
        v = opt(f, "width");
        if (v != NULL && t != ZB_TC_TRUNCATE)
            return bad(p, kp, "only allowed with transform truncate");
        if (v == NULL && t == ZB_TC_TRUNCATE)
            return bad(p, kp, "required with transform truncate");
        if (v != NULL) {
            if ((rc = want_int(p, v, kp, 1, INT32_MAX, 0, &num)) < 0)
                return rc;
            pf->width = (int32_t)num;
        }
        sub(kp, ip, "name");
        if ((v = opt(f, "name")) != NULL) {
            if ((rc = want_string(p, v, kp, &pf->name)) < 0)
                return rc;
            pf->name_given = 1;
        } else if ((pf->name = default_field_name(p->tc->arena, pf->column,
                                                  pf->transform)) == NULL) {
            return zb_fail_oom(p->ctx);
        }
        for (j = 0; j < i; j++)
            if (strcmp(fields[j].name, pf->name) == 0)
                return bad(p, kp, "'%.60s' is also the name of %s[%zu]; "
                           "partition field names must be unique", pf->name,
                           "partition", j);
    }
    b->n_partition = n;
    b->partition = fields;
    return ZB_OK;
}

static int parse_evolution(tcp *p, const json_t *obj, const char *path,
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

    if ((rc = want_object(p, obj, path)) < 0 ||
        (rc = check_keys(p, obj, path, keys)) < 0)
        return rc;
    b->evolution_enabled = 1;
    sub(kp, path, "enabled");
    if ((v = opt(obj, "enabled")) != NULL &&
        (rc = want_bool(p, v, kp, &b->evolution_enabled)) < 0)
        return rc;
    sub(kp, path, "rules");
    if ((arr = opt(obj, "rules")) != NULL) {
        if ((rc = want_list(p, arr, kp)) < 0)
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

        sub_index(ip, kp, i);
        if ((rc = want_object(p, r, ip)) < 0 ||
            (rc = check_keys(p, r, ip, rule_keys)) < 0)
            return rc;
        sub(rp, ip, "from");
        if ((v = opt(r, "from")) == NULL)
            return bad(p, rp, "required");
        if ((rc = want_enum(p, v, rp, time_names, 4, &from)) < 0)
            return rc;
        sub(rp, ip, "to");
        if ((v = opt(r, "to")) == NULL)
            return bad(p, rp, "required");
        if ((rc = want_enum(p, v, rp, time_names, 4, &to)) < 0)
            return rc;
        if (to <= from)
            return bad(p, rp, "'%s' is not coarser than from '%s' (hour < "
                       "day < month < year; evolution only coarsens)",
                       time_names[to], time_names[from]);
        sub(rp, ip, "older_than_days");
        if ((v = opt(r, "older_than_days")) == NULL)
            return bad(p, rp, "required");
        if ((rc = want_int(p, v, rp, 0, INT32_MAX, 0,
                           &rules[i].older_than_days)) < 0)
            return rc;
        rules[i].from = time_transforms[from];
        rules[i].to = time_transforms[to];
        for (size_t j = 0; j < i; j++) {
            if (rules[j].from == rules[i].from) {
                sub(rp, ip, "from");
                return bad(p, rp, "'%s' already has a rule (rules[%zu])",
                           time_names[from], j);
            }
        }
    }
    b->n_rules = n;
    b->rules = rules;
    return ZB_OK;
}

static int parse_sort(tcp *p, const json_t *arr, const char *path,
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

    if ((rc = want_list(p, arr, path)) < 0)
        return rc;
    if ((n = json_array_size(arr)) == 0)
        return bad(p, path, "must list at least one column");
    if ((sk = zb_arena_calloc(p->tc->arena, n, sizeof(*sk))) == NULL)
        return zb_fail_oom(p->ctx);
    for (size_t i = 0; i < n; i++) {
        const json_t *k = json_array_get(arr, i), *v;
        size_t e;

        sub_index(ip, path, i);
        if ((rc = want_object(p, k, ip)) < 0 ||
            (rc = check_keys(p, k, ip, keys)) < 0)
            return rc;
        sub(kp, ip, "column");
        if ((v = opt(k, "column")) == NULL)
            return bad(p, kp, "required");
        if ((rc = want_string(p, v, kp, &sk[i].column)) < 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(sk[j].column, sk[i].column) == 0)
                return bad(p, kp, "'%.60s' is already sorted on at [%zu]",
                           sk[i].column, j);
        sub(kp, ip, "direction");
        if ((v = opt(k, "direction")) != NULL) {
            if ((rc = want_enum(p, v, kp, dirs, 2, &e)) < 0)
                return rc;
            sk[i].descending = e == 1;
        }
        sub(kp, ip, "nulls");
        if ((v = opt(k, "nulls")) != NULL) {
            if ((rc = want_enum(p, v, kp, nulls, 2, &e)) < 0)
                return rc;
            sk[i].nulls_first = e == 0;
        }
    }
    b->n_sort = n;
    b->sort = sk;
    return ZB_OK;
}

static int parse_zorder(tcp *p, const json_t *obj, const char *path,
                        zb_tc_block *b)
{
    static const char *const keys[] = { "columns", "precision_bits", NULL };
    char kp[TC_PATH], ip[TC_PATH];
    const json_t *cols, *v;
    const char **names;
    int64_t bits = ZB_TC_DEFAULT_PRECISION_BITS;
    size_t n;
    int rc;

    if ((rc = want_object(p, obj, path)) < 0 ||
        (rc = check_keys(p, obj, path, keys)) < 0)
        return rc;
    sub(kp, path, "columns");
    if ((cols = opt(obj, "columns")) == NULL)
        return bad(p, kp, "required");
    if ((rc = want_list(p, cols, kp)) < 0)
        return rc;
    if ((n = json_array_size(cols)) < 2)
        return bad(p, kp, "needs at least 2 columns (got %zu); sort on one "
                   "column with mode 'sort'", n);
    if ((names = zb_arena_calloc(p->tc->arena, n, sizeof(*names))) == NULL)
        return zb_fail_oom(p->ctx);
    for (size_t i = 0; i < n; i++) {
        sub_index(ip, kp, i);
        if ((rc = want_string(p, json_array_get(cols, i), ip, &names[i])) < 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0)
                return bad(p, ip, "'%.60s' is listed twice; z-order columns "
                           "must be unique", names[i]);
    }
    sub(kp, path, "precision_bits");
    if ((v = opt(obj, "precision_bits")) != NULL &&
        (rc = want_int(p, v, kp, 1, 32, 0, &bits)) < 0)
        return rc;
    if ((uint64_t)bits * n > 62)
        return bad(p, path, "precision_bits * columns must be <= 62 (got "
                   "%lld * %zu = %llu)", (long long)bits, n,
                   (unsigned long long)((uint64_t)bits * n));
    b->n_zorder = n;
    b->zorder_columns = names;
    b->precision_bits = (int)bits;
    return ZB_OK;
}

static int parse_ordering(tcp *p, const json_t *obj, const char *path,
                          zb_tc_block *b)
{
    static const char *const keys[] = { "mode", "sort", "zorder", NULL };
    static const char *const modes[] = { "none", "sort", "zorder" };
    char kp[TC_PATH];
    const json_t *v, *sort, *zorder;
    size_t mode = ZB_TC_ORDER_NONE;
    int rc;

    if ((rc = want_object(p, obj, path)) < 0 ||
        (rc = check_keys(p, obj, path, keys)) < 0)
        return rc;
    sub(kp, path, "mode");
    if ((v = opt(obj, "mode")) != NULL &&
        (rc = want_enum(p, v, kp, modes, 3, &mode)) < 0)
        return rc;
    b->order_mode = (zb_tc_order_mode)mode;
    sort = opt(obj, "sort");
    zorder = opt(obj, "zorder");
    if (sort != NULL && mode != ZB_TC_ORDER_SORT) {
        sub(kp, path, "sort");
        return bad(p, kp, "not allowed when mode is '%s'", modes[mode]);
    }
    if (zorder != NULL && mode != ZB_TC_ORDER_ZORDER) {
        sub(kp, path, "zorder");
        return bad(p, kp, "not allowed when mode is '%s'", modes[mode]);
    }
    if (mode == ZB_TC_ORDER_SORT) {
        sub(kp, path, "sort");
        if (sort == NULL)
            return bad(p, kp, "required when mode is 'sort'");
        return parse_sort(p, sort, kp, b);
    }
    if (mode == ZB_TC_ORDER_ZORDER) {
        sub(kp, path, "zorder");
        if (zorder == NULL)
            return bad(p, kp, "required when mode is 'zorder'");
        return parse_zorder(p, zorder, kp, b);
    }
    return ZB_OK;
}

/* One retention part: an object of allowed keys, or absent. */
static int retention_part(tcp *p, const json_t *ret, const char *path,
                          const char *name, const char *const *keys,
                          const json_t **out, char *kp)
{
    int rc;

    sub(kp, path, name);
    *out = opt(ret, name);
    if (*out == NULL)
        return ZB_OK;
    if ((rc = want_object(p, *out, kp)) < 0 ||
        (rc = check_keys(p, *out, kp, keys)) < 0)
        return rc;
    return ZB_OK;
}

/* part[key] into *out through fn, when present. */
#define RET_INT(part, key, lo, nullable, field)                             \
    do {                                                                    \
        const json_t *rv_ = (part) ? json_object_get((part), (key)) : NULL; \
        if (rv_ != NULL && (!json_is_null(rv_) || (nullable))) {            \
            sub(vp, kp, (key));                                             \
            if ((rc = want_int(p, rv_, vp, (lo), INT32_MAX, (nullable),     \
                               &(field))) < 0)                              \
                return rc;                                                  \
        }                                                                   \
    } while (0)

#define RET_BOOL(part, key, field)                                          \
    do {                                                                    \
        const json_t *rv_ = (part) ? opt((part), (key)) : NULL;             \
        if (rv_ != NULL) {                                                  \
            sub(vp, kp, (key));                                             \
            if ((rc = want_bool(p, rv_, vp, &(field))) < 0)                 \
                return rc;                                                  \
        }                                                                   \
    } while (0)

static int parse_retention(tcp *p, const json_t *obj, const char *path,
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

    if ((rc = want_object(p, obj, path)) < 0 ||
        (rc = check_keys(p, obj, path, keys)) < 0)
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
    if ((rc = retention_part(p, obj, path, "remove_dangling_deletes", k_dang,
                             &part, kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->dangling_enabled);
    if ((rc = retention_part(p, obj, path, "rewrite_manifests", k_man, &part,
                             kp)) < 0)
        return rc;
    RET_BOOL(part, "enabled", r->manifests_enabled);
    RET_INT(part, "min_input_manifests", 2, 0, r->min_input_manifests);
    if ((rc = retention_part(p, obj, path, "metadata", k_meta, &part,
                             kp)) < 0)
        return rc;
    RET_INT(part, "previous_versions_max", 1, 1, r->previous_versions_max);
    if (part != NULL && (v = json_object_get(part, "delete_after_commit"))) {
        sub(vp, kp, "delete_after_commit");
        if (json_is_null(v))
            r->delete_after_commit = -1;
        else if ((rc = want_bool(p, v, vp, &r->delete_after_commit)) < 0)
            return rc;
    }
    if (r->orphans_enabled && !r->expire_enabled) {
        sub(kp, path, "remove_orphan_files");
        return bad(p, kp, "enabled while expire_snapshots is disabled; "
                   "orphan removal needs expiry (disable "
                   "remove_orphan_files or enable expire_snapshots)");
    }
    return ZB_OK;
}

static int parse_block(tcp *p, const json_t *obj, const char *path,
                       zb_tc_block *b)
{
    static const char *const keys[] = { "description", "partition",
                                        "partition_evolution", "ordering",
                                        "target_file_size_bytes",
                                        "min_input_files", "retention",
                                        NULL };
    char kp[TC_PATH];
    const json_t *v;
    int rc;

    zb_table_config__builtin(b, p->tc->has_defaults);
    if ((rc = want_object(p, obj, path)) < 0 ||
        (rc = check_keys(p, obj, path, keys)) < 0)
        return rc;
    sub(kp, path, "description");
    if ((v = opt(obj, "description")) != NULL) {
        if (!json_is_string(v))
            return bad(p, kp, "must be a string (got %s)", type_name(v));
        b->description = zb_arena_strdup(p->tc->arena, json_string_value(v));
        if (b->description == NULL)
            return zb_fail_oom(p->ctx);
        b->present |= 1u << ZB_TC_SEC_DESCRIPTION;
    }
    sub(kp, path, "partition");
    if ((v = opt(obj, "partition")) != NULL) {
        if ((rc = parse_partition(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_PARTITION;
    }
    sub(kp, path, "partition_evolution");
    if ((v = opt(obj, "partition_evolution")) != NULL) {
        b->n_rules = 0;
        b->rules = NULL;
        if ((rc = parse_evolution(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_EVOLUTION;
    }
    sub(kp, path, "ordering");
    if ((v = opt(obj, "ordering")) != NULL) {
        if ((rc = parse_ordering(p, v, kp, b)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_ORDERING;
    }
    sub(kp, path, "target_file_size_bytes");
    if ((v = json_object_get(obj, "target_file_size_bytes")) != NULL) {
        if ((rc = want_int(p, v, kp, 100, INT64_MAX, 1,
                           &b->target_file_size_bytes)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_TARGET_FILE_SIZE;
    }
    sub(kp, path, "min_input_files");
    if ((v = opt(obj, "min_input_files")) != NULL) {
        if ((rc = want_int(p, v, kp, 1, INT32_MAX, 0,
                           &b->min_input_files)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_MIN_INPUT_FILES;
    }
    sub(kp, path, "retention");
    if ((v = opt(obj, "retention")) != NULL) {
        if ((rc = parse_retention(p, v, kp, &b->retention)) < 0)
            return rc;
        b->present |= 1u << ZB_TC_SEC_RETENTION;
    }
    return ZB_OK;
}

/* "db" or "db.raw": levels non-empty. */
static int namespace_ok(const char *ns)
{
    size_t n = strlen(ns);
    return n > 0 && ns[0] != '.' && ns[n - 1] != '.' &&
           strstr(ns, "..") == NULL;
}

static int cmp_table(const void *a, const void *b)
{
    return strcmp(((const zb_tc_table *)a)->ident,
                  ((const zb_tc_table *)b)->ident);
}

static int parse_namespaces(tcp *p, const json_t *nss)
{
    static const char *const ns_keys[] = { "tables", NULL };
    char np[TC_PATH], tp[TC_PATH], bp[TC_PATH];
    const char *ns, *name;
    json_t *nsv, *tv;
    size_t total = 0, k = 0;
    int rc;

    if ((rc = want_object(p, nss, "namespaces")) < 0)
        return rc;
    json_object_foreach((json_t *)nss, ns, nsv) {
        sub(np, "namespaces", ns);
        if (!namespace_ok(ns))
            return bad(p, np, "not a namespace name (levels are joined by "
                       "single dots and cannot be empty)");
        if ((rc = want_object(p, nsv, np)) < 0 ||
            (rc = check_keys(p, nsv, np, ns_keys)) < 0)
            return rc;
        sub(tp, np, "tables");
        const json_t *tables = opt(nsv, "tables");
        if (tables == NULL)
            continue;
        if ((rc = want_object(p, tables, tp)) < 0)
            return rc;
        total += json_object_size(tables);
        if (total > TC_MAX_ITEMS)
            return bad(p, "namespaces", "more than %d tables", TC_MAX_ITEMS);
    }
    p->tc->tables = zb_arena_calloc(p->tc->arena, total ? total : 1,
                                    sizeof(zb_tc_table));
    if (p->tc->tables == NULL)
        return zb_fail_oom(p->ctx);
    json_object_foreach((json_t *)nss, ns, nsv) {
        const json_t *tables = opt(nsv, "tables");
        sub(np, "namespaces", ns);
        sub(tp, np, "tables");
        if (tables == NULL)
            continue;
        json_object_foreach((json_t *)tables, name, tv) {
            zb_tc_table *t = &p->tc->tables[k];
            sub(bp, tp, name);
            if (name[0] == '\0')
                return bad(p, bp, "a table name cannot be empty");
            if (strchr(name, '.') != NULL)
                return bad(p, bp, "a table name holds no dot (write "
                           "namespace levels in the namespace key, "
                           "\"%.40s.%.40s\")", ns, name);
            if ((t->ident = zb_arena_sprintf(p->tc->arena, "%s.%s", ns,
                                             name)) == NULL)
                return zb_fail_oom(p->ctx);
            if ((rc = parse_block(p, tv, bp, &t->block)) < 0)
                return rc;
            k++;
        }
    }
    p->tc->n_tables = k;
    qsort(p->tc->tables, k, sizeof(zb_tc_table), cmp_table);
    return ZB_OK;
}

static int parse_root(tcp *p, const json_t *root)
{
    static const char *const keys[] = { "version", "warehouse", "defaults",
                                        "namespaces", NULL };
    const json_t *v;
    int64_t version;
    int rc;

    if (!json_is_object(root))
        return zb_fail(p->ctx, ZB_EUSAGE, "%s: must hold one JSON object "
                       "(got %s)", p->tc->name, type_name(root));
    if (json_object_get(root, "tables") != NULL)
        return bad(p, "tables", "a top-level \"tables\" is the version 1 "
                   "layout; version 2 lists each table under "
                   "namespaces.<namespace>.tables.<table> with "
                   "\"version\": 2");
    if ((v = json_object_get(root, "version")) == NULL)
        return bad(p, "version", "required (2)");
    if (!json_is_integer(v))
        return bad(p, "version", "must be 2 (got %s)", type_name(v));
    if ((version = (int64_t)json_integer_value(v)) != 2)
        return bad(p, "version", "must be 2 (got %lld)%s", (long long)version,
                   version == 1 ? "; a version 1 file moves each table "
                                  "under namespaces.<namespace>.tables."
                                  "<table>" : "");
    if ((rc = check_keys(p, root, "", keys)) < 0)
        return rc;
    if ((v = opt(root, "warehouse")) == NULL)
        return bad(p, "warehouse", "required (the warehouse this file "
                   "configures)");
    if ((rc = want_string(p, v, "warehouse", &p->tc->warehouse)) < 0)
        return rc;
    p->tc->has_defaults = json_object_get(root, "defaults") != NULL;
    zb_table_config__builtin(&p->tc->defaults, p->tc->has_defaults);
    if ((v = opt(root, "defaults")) != NULL &&
        (rc = parse_block(p, v, "defaults", &p->tc->defaults)) < 0)
        return rc;
    if ((v = opt(root, "namespaces")) != NULL &&
        (rc = parse_namespaces(p, v)) < 0)
        return rc;
    return ZB_OK;
}

void zb_table_config_free(zb_table_config *tc)
{
    if (tc == NULL)
        return;
    zb_arena_free(tc->arena);
    zb_free(tc);
}

int zb_table_config_parse(zb_table_config **out, zb_ctx *ctx,
                          const char *name, const char *text, size_t len)
{
    zb_table_config *tc = NULL;
    json_t *root = NULL;
    json_error_t jerr;
    tcp p;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && name && (text || len == 0));
    *out = NULL;
    if (len > ZB_TABLE_CONFIG_MAX_BYTES)
        return zb_fail(ctx, ZB_EUSAGE, "%s: larger than %u bytes", name,
                       ZB_TABLE_CONFIG_MAX_BYTES);
    if ((tc = zb_calloc(1, sizeof(*tc))) == NULL)
        return zb_fail_oom(ctx);
    if (zb_arena_new(&tc->arena, 8 * (size_t)ZB_TABLE_CONFIG_MAX_BYTES) < 0 ||
        (tc->name = zb_arena_strdup(tc->arena, name)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        rc = zb_fail(ctx, ZB_EUSAGE, "%s:%d:%d: not valid JSON: %s", name,
                     jerr.line, jerr.column, jerr.text);
        goto done;
    }
    p.ctx = ctx;
    p.tc = tc;
    if ((rc = parse_root(&p, root)) < 0)
        goto done;
    *out = tc;
    tc = NULL;
done:
    json_decref(root);
    zb_table_config_free(tc);
    return rc;
}

int zb_table_config_load(zb_table_config **out, zb_ctx *ctx,
                         const char *path)
{
    zb_buf text = ZB_BUF_INIT(ZB_TABLE_CONFIG_MAX_BYTES);
    char chunk[16384];
    int fd, rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && path);
    *out = NULL;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return zb_fail(ctx, ZB_ENOTFOUND, "%s: no such file", path);
        return zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
    }
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (text.len + (size_t)n > ZB_TABLE_CONFIG_MAX_BYTES) {
            rc = zb_fail(ctx, ZB_EUSAGE, "%s: larger than %u bytes", path,
                         ZB_TABLE_CONFIG_MAX_BYTES);
            break;
        }
        if (zb_buf_append(&text, chunk, (size_t)n) < 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
    }
    close(fd);
    if (rc == ZB_OK)
        rc = zb_table_config_parse(out, ctx, path, text.ptr, text.len);
    zb_buf_free(&text);
    return rc;
}

const char *zb_tc_transform_name(zb_tc_transform t)
{
    return (unsigned)t < 8 ? transform_names[t] : "?";
}

/*
 * ops/add_files/add_files_create.c - add-files with create (see
 * add_files.c): a table's first metadata, in memory, from the first
 * file's schema, the partition spec asked for (or the Hive keys every
 * file shares) and the name mapping of its columns.
 */
#define ZB_MODULE "add-files"

#include <string.h>

#include "ops/add_files/add_files_int.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"

/* ---- create: the first metadata in memory ---- */

/* Compact JSON text of j, in arena; NULL when out of memory. */
const char *zb_af__dump_json(zb_arena *a, const json_t *j)
{
    size_t n = json_dumpb(j, NULL, 0, JSON_COMPACT);
    char *text;

    if (n == 0 || (text = zb_arena_alloc(a, n + 1)) == NULL)
        return NULL;
    json_dumpb(j, text, n, JSON_COMPACT);
    text[n] = '\0';
    return text;
}

static int all_match(const char *const *vals, size_t n,
                     int (*pred)(const char *))
{
    size_t i, seen = 0;

    for (i = 0; i < n; i++) {
        if (vals[i] == NULL)
            continue;
        if (!pred(vals[i]))
            return 0;
        seen++;
    }
    return seen > 0;
}

static int is_integer(const char *s)
{
    size_t i = s[0] == '-' ? 1 : 0, n = strlen(s);

    if (n == i || n - i > 18)
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int is_date(const char *s)
{
    static const char shape[] = "dddd-dd-dd";
    size_t i;

    if (strlen(s) != 10)
        return 0;
    for (i = 0; i < 10; i++)
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != '-')
            return 0;
    return 1;
}

/* A top-level column's id in a schema JSON, or -1. */
static json_int_t column_id(const json_t *fields, const char *name, size_t n)
{
    size_t j;

    for (j = 0; j < json_array_size(fields); j++) {
        const json_t *f = json_array_get(fields, j);
        const char *fn = json_string_value(json_object_get(f, "name"));
        if (fn && strlen(fn) == n && strncmp(fn, name, n) == 0)
            return json_integer_value(json_object_get(f, "id"));
    }
    return -1;
}

static const char *trim(const char *s, const char *e, size_t *n)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *n = (size_t)(e - s);
    return s;
}

/*
 * Appends the fields of a --partition-by text to spec: comma-separated
 * COL (identity), year(COL), month(COL), day(COL), hour(COL),
 * bucket(N, COL), truncate(W, COL) over top-level columns of fields.
 */
static int partition_by(json_t *spec, zb_ctx *ctx, const json_t *fields,
                        const char *text, json_int_t next_field_id)
{
    const char *p = text;

    while (*p) {
        const char *end = p, *open, *close, *col, *arg = NULL;
        size_t n, cn, an = 0, tn;
        const char *tname;
        char transform[64], name[256];
        json_int_t id;
        int depth = 0;

        while (*end && (depth > 0 || *end != ',')) {
            depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
            end++;
        }
        p = trim(p, end, &n);
        open = memchr(p, '(', n);
        if (open == NULL) {
            col = p, cn = n;
            snprintf(transform, sizeof transform, "identity");
        } else {
            const char *comma;
            close = p + n - 1;
            if (*close != ')' || close <= open)
                return zb_fail(ctx, ZB_EUSAGE, "--partition-by: '%.*s' is "
                               "not COL or TRANSFORM(COL)", (int)n, p);
            tname = trim(p, open, &tn);
            comma = memchr(open + 1, ',', (size_t)(close - open - 1));
            if (comma != NULL) {
                arg = trim(open + 1, comma, &an);
                col = trim(comma + 1, close, &cn);
            } else {
                col = trim(open + 1, close, &cn);
            }
            if (arg != NULL)
                snprintf(transform, sizeof transform, "%.*s[%.*s]", (int)tn,
                         tname, (int)an, arg);
            else
                snprintf(transform, sizeof transform, "%.*s", (int)tn, tname);
        }
        if ((id = column_id(fields, col, cn)) < 0)
            return zb_fail(ctx, ZB_EUSAGE, "--partition-by: no top-level "
                           "column '%.*s' in the files", (int)cn, col);
        if (strcmp(transform, "identity") == 0)
            snprintf(name, sizeof name, "%.*s", (int)cn, col);
        else
            snprintf(name, sizeof name, "%.*s_%.*s", (int)cn, col,
                     (int)strcspn(transform, "["),
                     strncmp(transform, "truncate", 8) == 0 ? "trunc"
                                                            : transform);
        if (json_array_append_new(json_object_get(spec, "fields"),
                                  json_pack("{s:I, s:I, s:s, s:s}",
                                            "source-id", id, "field-id",
                                            next_field_id++, "name", name,
                                            "transform", transform)) < 0)
            return zb_fail_oom(ctx);
        p = *end ? end + 1 : end;
    }
    return ZB_OK;
}

/* Long on purpose: create's first metadata in its order (schema from the
 * footer, partition spec from --partition-by, properties, the metadata),
 * every step leaving through the one cleanup at done. */
int zb_af__build_create(ice_metadata **out, af_run *run, const pq_schema *ps)
{
    zb_ctx *ctx = run->ctx;
    const char *uri = run->src[0].uri;
    json_t *schema = NULL, *spec = NULL, *fields, *mapping = NULL;
    af_kv kv0[AF_MAX_KEYS];
    size_t n_kv0 = 0, i, k;
    const char **vals = NULL;
    const char *text = NULL;
    ice_metadata *m = NULL;
    int fv = run->o->format_version ? run->o->format_version : 2;
    int rc;

    *out = NULL;
    if ((rc = zb_af__schema_from_parquet(&schema, ctx, uri, ps, fv)) < 0)
        return rc;
    fields = json_object_get(schema, "fields");
    if ((rc = zb_af__hive_keys(kv0, &n_kv0, run->arena, ctx, run->src[0].rel)) < 0)
        goto done;
    spec = json_pack("{s:i, s:[]}", "spec-id", 0, "fields");
    vals = zb_calloc(run->n_src + 1, sizeof *vals);
    if (spec == NULL || vals == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (k = 0; k < n_kv0; k++) {
        json_int_t id = 100000 + (json_int_t)k;
        json_int_t have = column_id(fields, kv0[k].key, strlen(kv0[k].key));
        const char *type;

        /* Every file must have the same keys, in the same order. */
        for (i = 0; i < run->n_src; i++) {
            af_kv kv[AF_MAX_KEYS];
            size_t nkv;
            if ((rc = zb_af__hive_keys(kv, &nkv, run->arena, ctx,
                                run->src[i].rel)) < 0)
                goto done;
            if (nkv != n_kv0 || strcmp(kv[k].key, kv0[k].key) != 0) {
                rc = zb_fail(ctx, ZB_EREFUSED, "%s: its key=value "
                             "directories differ from %s's; every file "
                             "must sit at the same partition depth",
                             run->src[i].uri, uri);
                goto done;
            }
            vals[i] = kv[k].value;
        }
        type = all_match(vals, run->n_src, is_integer) ? "long"
             : all_match(vals, run->n_src, is_date) ? "date" : "string";
        /* A directory naming a column the files hold partitions on that
         * column (each file's values are checked against the directory's);
         * otherwise the directory's values become a column of their own. */
        if (have >= 0)
            id = have;
        if ((have < 0 &&
             json_array_append_new(fields,
                                   json_pack("{s:I, s:s, s:b, s:s}", "id",
                                             id, "name", kv0[k].key,
                                             "required", 0, "type",
                                             type)) < 0) ||
            json_array_append_new(json_object_get(spec, "fields"),
                                  json_pack("{s:I, s:I, s:s, s:s}",
                                            "source-id", id, "field-id",
                                            (json_int_t)(1000 + k), "name",
                                            kv0[k].key, "transform",
                                            "identity")) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    }
    if (run->o->partition_by != NULL &&
        (rc = partition_by(spec, ctx, fields, run->o->partition_by,
                           (json_int_t)(1000 + n_kv0))) < 0)
        goto done;
    rc = ice_metadata_create(&m, ctx, (const zb_json *)schema,
                             (const zb_json *)spec, NULL,
                             zb_catalog_get_kind(run->t->catalog) ==
                                     ZB_CATALOG_PATH
                                 ? run->t->ident : "",
                             NULL, 0, fv);
    if (rc < 0)
        goto done;
    {
        const ice_partition_spec *sp = ice_metadata_default_spec(m);
        const ice_schema *sc = ice_metadata_current_schema(m);
        for (k = 0; k < sp->n_fields; k++) {
            const ice_type *st = ice_schema_find_type(sc,
                                                      sp->fields[k].source_id);
            ice_transform tr;
            ice_prim rp;
            if ((rc = ice_transform_parse(&tr, ctx,
                                          sp->fields[k].transform)) < 0 ||
                st == NULL || st->id >= ICE_STRUCT ||
                (rc = ice_transform_result_type(&rp, ctx, &tr,
                                                &st->prim)) < 0) {
                rc = zb_fail(ctx, ZB_EUSAGE, "--partition-by: %s cannot "
                             "take column %s", sp->fields[k].transform,
                             sp->fields[k].name);
                goto done;
            }
        }
    }
    /* The mapping of the schema as created (its ids are fresh). */
    mapping = zb_af__name_mapping(ice_metadata_current_schema(m));
    if (mapping == NULL ||
        (text = zb_af__dump_json(run->arena, mapping)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = ice_metadata_set_property(m, ctx, NAME_MAPPING, text)) < 0)
        goto done;
    *out = m;
    m = NULL;
done:
    if (rc < 0)
        zb_err_prefix(ctx, "creating %s from %s", run->t->ident, uri);
    json_decref(mapping);
    json_decref(schema);
    json_decref(spec);
    zb_free(vals);
    ice_metadata_free(m);
    return rc;
}

/*
 * ops/add_files/add_files.c - `zamboni add-files`: existing Parquet files become
 * data files of a table in one append (ops/add_files/add_files.h says what is
 * checked and refused). Order: list the source; load the table (or, with
 * create, build its first metadata in memory from the first file); read
 * every footer, map its columns, make its metrics and partition values;
 * refuse duplicates; then, unless dry run, create the table and commit.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#define ZB_MODULE "add-files"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/add_files/add_files.h"
#include "ops/add_files/add_files_int.h"
#include "ops/reachable/reachable_files.h"
#include "ops/ingest/table_write.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "table/metrics/file_metrics.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

#define AF_ARENA_MAX ((size_t)1 << 30)
#define AF_MAX_FILES 10000000u
#define AF_MAX_KEYS 32
#define NAME_MAPPING "schema.name-mapping.default"
#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

typedef struct af_src {
    const char *uri;               /* absolute */
    const char *rel;               /* below the source ("k=v/f.parquet") */
    uint64_t size;
} af_src;

/* A file's path in the form paths are compared in (zb_reach_normalize),
 * with the file it came from. */
typedef struct af_norm {
    const char *norm;
    const af_src *src;
} af_norm;

/* A key=value directory level. */
typedef struct af_kv {
    const char *key, *value;       /* URL-decoded; value NULL: hive null */
} af_kv;

typedef struct af_run {
    const zb_op_target *t;
    zb_ctx *ctx;
    const zb_add_files_opts *o;
    zb_arena *arena;
    af_src *src;
    size_t n_src, cap_src;
    af_norm *norms;                /* n_src, sorted by norm */
    ice_data_file *files;
    size_t n_files;
    uint64_t skipped;
    const char *root;              /* the source, absolute */
} af_run;

/* ---- listing ---- */

static int push_src(af_run *run, const char *uri, uint64_t size)
{
    size_t rl = strlen(run->root);
    af_src *s;

    if (run->n_src == run->cap_src) {
        size_t cap = run->cap_src ? run->cap_src * 2 : 64;
        af_src *v;
        if (cap > AF_MAX_FILES)
            return zb_fail(run->ctx, ZB_EREFUSED, "%s: more than %u files",
                           run->root, AF_MAX_FILES);
        if ((v = zb_realloc(run->src, cap * sizeof *v)) == NULL)
            return zb_fail_oom(run->ctx);
        run->src = v;
        run->cap_src = cap;
    }
    s = &run->src[run->n_src];
    if ((s->uri = zb_arena_strdup(run->arena, uri)) == NULL)
        return zb_fail_oom(run->ctx);
    s->rel = strncmp(s->uri, run->root, rl) == 0 ? s->uri + rl : "";
    while (*s->rel == '/')
        s->rel++;
    s->size = size;
    run->n_src++;
    return ZB_OK;
}

static const char *base_name(const char *uri)
{
    const char *b = strrchr(uri, '/');

    return b ? b + 1 : uri;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* 1 when the file looks like Parquet ("PAR1" at both ends), 0 when not,
 * or the read's rc: a file that cannot be read is not skipped. */
static int looks_parquet(af_run *run, const char *uri, uint64_t size)
{
    char head[4], tail[4];
    int rc;

    if (size < 12)
        return 0;
    if ((rc = zb_io_read_range(run->t->io, run->ctx, uri, 0, head, 4)) < 0 ||
        (rc = zb_io_read_range(run->t->io, run->ctx, uri, size - 4, tail,
                               4)) < 0)
        return rc;
    return memcmp(head, "PAR1", 4) == 0 && memcmp(tail, "PAR1", 4) == 0;
}

/* 1 when a directory of uri below the source root is hidden or
 * temporary (Spark's and Hive's listings leave these out): a name that
 * starts with '.' (.spark-staging, .hive-staging), or with '_' and has
 * no '=' (_temporary; "_k=v" is a partition directory). */
static int in_hidden_dir(const af_run *run, const char *uri)
{
    size_t rl = strlen(run->root);
    const char *p = strncmp(uri, run->root, rl) == 0 ? uri + rl : uri;
    const char *slash;

    if (p == uri)
        return 0;                  /* not below the root: nothing to judge */
    while (*p == '/')
        p++;
    while ((slash = strchr(p, '/')) != NULL) {
        size_t n = (size_t)(slash - p);
        if (n > 0 && (p[0] == '.' ||
                      (p[0] == '_' && memchr(p, '=', n) == NULL)))
            return 1;
        p = slash + 1;
    }
    return 0;
}

static int consider(af_run *run, const char *uri, uint64_t size)
{
    const char *b = base_name(uri);
    int rc;

    if (b[0] == '.' || b[0] == '_' || in_hidden_dir(run, uri)) {
        run->skipped++;
        return ZB_OK;
    }
    if (!ends_with(b, ".parquet")) {
        if ((rc = looks_parquet(run, uri, size)) < 0)
            return rc;
        if (rc == 0) {
            run->skipped++;
            return ZB_OK;
        }
    }
    return push_src(run, uri, size);
}

static int cmp_src(const void *a, const void *b)
{
    return strcmp(((const af_src *)a)->uri, ((const af_src *)b)->uri);
}

static int list_source(af_run *run)
{
    zb_ctx *ctx = run->ctx;
    const char *src = run->o->source;
    zb_io_lister *l = NULL;
    zb_io_entry e;
    zb_io_stat st;
    char abs[PATH_MAX];
    int rc;

    /* A local path, file: URIs among them, is made a plain absolute path:
     * the one form the table names local files in. */
    if (strncasecmp(src, "file:", 5) == 0) {
        zb_buf local = ZB_BUF_INIT(PATH_MAX);
        if ((rc = zb_reach_normalize(&local, ctx, src)) < 0)
            return rc;
        if (realpath(zb_buf_cstr(&local), abs) == NULL) {
            zb_buf_free(&local);
            return zb_fail(ctx, ZB_ENOTFOUND, "source %s does not exist",
                           src);
        }
        zb_buf_free(&local);
        src = abs;
    } else if (strstr(src, "://") == NULL) {
        if (realpath(src, abs) == NULL)
            return zb_fail(ctx, ZB_ENOTFOUND, "source %s does not exist",
                           src);
        src = abs;
    }
    if ((run->root = zb_arena_strdup(run->arena, src)) == NULL)
        return zb_fail_oom(ctx);
    if (zb_io_stat_uri(&st, run->t->io, ctx, src) == ZB_OK) {
        /* one file: its own directory is the source */
        const char *slash = strrchr(run->root, '/');
        if (slash != NULL)
            run->root = zb_arena_strndup(run->arena, run->root,
                                         (size_t)(slash - run->root));
        if (run->root == NULL)
            return zb_fail_oom(ctx);
        return consider(run, src, st.size_bytes);
    }
    zb_err_clear(&ctx->err);
    if ((rc = zb_io_list(&l, run->t->io, ctx, src)) < 0)
        return zb_err_prefix(ctx, "listing the source");
    while ((rc = zb_io_lister_next(l, ctx, &e)) > 0)
        if ((rc = consider(run, e.uri, e.size_bytes)) < 0)
            break;
    zb_io_lister_free(l);
    if (rc < 0)
        return rc;
    if (run->n_src == 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "no Parquet files under %s (%llu "
                       "other file(s) skipped)", src,
                       (unsigned long long)run->skipped);
    qsort(run->src, run->n_src, sizeof *run->src, cmp_src);
    return ZB_OK;
}

/* ---- hive directories ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static char *url_decode(zb_arena *a, const char *s, size_t n)
{
    char *out = zb_arena_alloc(a, n + 1);
    size_t i, k = 0;

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
            hexval(s[i + 2]) >= 0) {
            out[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return out;
}

/* The key=value directory levels of rel, outermost first. */
static int hive_keys(af_kv *out, size_t *n_out, zb_arena *a, zb_ctx *ctx,
                     const char *rel)
{
    const char *p = rel, *slash;

    *n_out = 0;
    while ((slash = strchr(p, '/')) != NULL) {
        const char *eq = memchr(p, '=', (size_t)(slash - p));

        if (eq != NULL && eq > p && *n_out < AF_MAX_KEYS) {
            af_kv *kv = &out[(*n_out)++];
            kv->key = url_decode(a, p, (size_t)(eq - p));
            kv->value = url_decode(a, eq + 1, (size_t)(slash - eq - 1));
            if (kv->key == NULL || kv->value == NULL)
                return zb_fail_oom(ctx);
            if (strcmp(kv->value, HIVE_NULL) == 0)
                kv->value = NULL;
        }
        p = slash + 1;
    }
    return ZB_OK;
}

static const char *hive_find(const af_kv *kv, size_t n, const char *key,
                             int *found)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0) {
            *found = 1;
            return kv[i].value;
        }
    *found = 0;
    return NULL;
}

/* ---- create: the first metadata in memory ---- */

/* Compact JSON text of j, in arena; NULL when out of memory. */
static const char *dump_json(zb_arena *a, const json_t *j)
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

static int build_create(ice_metadata **out, af_run *run, const pq_schema *ps)
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
    if ((rc = hive_keys(kv0, &n_kv0, run->arena, ctx, run->src[0].rel)) < 0)
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
            if ((rc = hive_keys(kv, &nkv, run->arena, ctx,
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
        (text = dump_json(run->arena, mapping)) == NULL) {
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

/* ---- each file ---- */

/* What every file is checked and described against. */
typedef struct af_plan {
    const ice_metadata *meta;
    const ice_schema *schema;
    const ice_partition_spec *spec;
    ice_transform tr[64];
    json_t *mapping;               /* owned */
    ice_metrics_config cfg;        /* the table's metrics modes */
    ice_metrics_config cfg_full;   /* whole bounds, for partition values */
    ice_kv full_kv[1];
} af_plan;

static const ice_column_metrics *column_of(const ice_data_file_metrics *dm,
                                           int32_t id)
{
    size_t i;

    for (i = 0; i < dm->n_columns; i++)
        if (dm->columns[i].field_id == id)
            return &dm->columns[i];
    return NULL;
}

/* Whether a transform keeps order (a <= b gives t(a) <= t(b)), so that
 * equal transforms of the bounds mean one partition for the whole file. */
static int keeps_order(ice_transform_kind k)
{
    return k == ICE_TR_IDENTITY || k == ICE_TR_TRUNCATE ||
           k == ICE_TR_YEAR || k == ICE_TR_MONTH || k == ICE_TR_DAY ||
           k == ICE_TR_HOUR;
}

/* One partition value from the source column's whole bounds. */
static int value_from_stats(ice_value *out, af_run *run, const af_plan *p,
                            const af_src *s, size_t i,
                            const ice_data_file_metrics *dm)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_field *pf = &p->spec->fields[i];
    const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
    const ice_column_metrics *c = column_of(dm, pf->source_id);
    ice_value lo, hi, tlo, thi;
    ice_prim rp;
    int rc;

    if ((rc = ice_transform_result_type(&rp, ctx, &p->tr[i], &st->prim)) < 0)
        return rc;
    if (c == NULL || !c->has_value_count)
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: the file "
                       "has no column for field %d and no %s=VALUE "
                       "directory", s->uri, pf->name, (int)pf->source_id,
                       pf->name);
    if (c->lower == NULL || c->upper == NULL) {
        if (c->has_null_count && c->null_count == c->value_count) {
            *out = ice_value_null(rp.id);
            return ZB_OK;
        }
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: no "
                       "statistics for its source column to take the "
                       "value from", s->uri, pf->name);
    }
    if ((rc = ice_value_from_bytes(&lo, ctx, &st->prim, c->lower,
                                   c->lower_len)) < 0 ||
        (rc = ice_value_from_bytes(&hi, ctx, &st->prim, c->upper,
                                   c->upper_len)) < 0)
        return zb_err_prefix(ctx, "%s: partition field %s", s->uri,
                             pf->name);
    /* The bounds' transforms tell the partition of every value between
     * them only when the transform keeps order; bucket (and any other)
     * does not: then the column must hold one value. */
    if (!keeps_order(p->tr[i].kind) && ice_value_cmp(&lo, &hi) != 0)
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: its "
                       "column holds several values and transform %s does "
                       "not keep order, so the file's partition cannot be "
                       "told from its bounds; a data file must hold one "
                       "partition", s->uri, pf->name, pf->transform);
    if ((rc = ice_transform_apply(&tlo, ctx, &p->tr[i], &lo)) < 0 ||
        (rc = ice_transform_apply(&thi, ctx, &p->tr[i], &hi)) < 0)
        return zb_err_prefix(ctx, "%s: partition field %s", s->uri,
                             pf->name);
    if (ice_value_cmp(&tlo, &thi) != 0 ||
        (c->has_null_count && c->null_count > 0)) {
        zb_buf a = ZB_BUF_INIT(256), b = ZB_BUF_INIT(256);
        ice_transform_to_human(&a, ctx, &p->tr[i], &tlo);
        ice_transform_to_human(&b, ctx, &p->tr[i], &thi);
        rc = zb_fail(ctx, ZB_EREFUSED, "%s: its rows span several "
                     "partitions of field %s (%s to %s%s); a data file "
                     "must hold one partition", s->uri, pf->name,
                     zb_buf_cstr(&a), zb_buf_cstr(&b),
                     c->has_null_count && c->null_count > 0
                         ? ", and nulls" : "");
        zb_buf_free(&a);
        zb_buf_free(&b);
        return rc;
    }
    *out = tlo;
    return ZB_OK;
}

/* A directory's value against the column's bounds, when the file holds
 * the column: both bounds must equal it (or the column be all null for a
 * null directory). */
static int check_path_value(af_run *run, const af_plan *p, const af_src *s,
                            size_t i, const ice_data_file_metrics *dm,
                            const ice_value *v, const char *text)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_field *pf = &p->spec->fields[i];
    const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
    const ice_column_metrics *c = column_of(dm, pf->source_id);
    ice_value lo, hi;
    int rc;

    if (c == NULL || !c->has_value_count)
        return ZB_OK;              /* the usual case: not in the file */
    if (c->lower == NULL || c->upper == NULL) {
        int all_null = c->has_null_count && c->null_count == c->value_count;
        if (v->is_null || !all_null)
            return ZB_OK;          /* nothing to compare with */
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s, but its "
                       "column holds only nulls", s->uri, pf->name, text);
    }
    if ((rc = ice_value_from_bytes(&lo, ctx, &st->prim, c->lower,
                                   c->lower_len)) < 0 ||
        (rc = ice_value_from_bytes(&hi, ctx, &st->prim, c->upper,
                                   c->upper_len)) < 0)
        return zb_err_prefix(ctx, "%s: column of %s", s->uri, pf->name);
    if (v->is_null || ice_value_cmp(&lo, v) != 0 || ice_value_cmp(&hi, v) != 0)
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s does not "
                       "match the values of its column in the file",
                       s->uri, pf->name, text ? text : HIVE_NULL);
    return ZB_OK;
}

static int partition_of(ice_data_file *df, af_run *run, const af_plan *p,
                        const af_src *s, const pq_write_result *res)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_spec *spec = p->spec;
    ice_data_file_metrics dm;
    int have_dm = 0;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, i;
    ice_value *vals;
    const char **names;
    int32_t *ids;
    int rc;

    df->n_partition = spec->n_fields;
    if (spec->n_fields == 0)
        return ZB_OK;
    if ((rc = hive_keys(kv, &n_kv, run->arena, ctx, s->rel)) < 0)
        return rc;
    vals = zb_arena_calloc(run->arena, spec->n_fields, sizeof *vals);
    names = zb_arena_calloc(run->arena, spec->n_fields, sizeof *names);
    ids = zb_arena_calloc(run->arena, spec->n_fields, sizeof *ids);
    if (vals == NULL || names == NULL || ids == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *pf = &spec->fields[i];
        const ice_field *sf = ice_schema_find_field(p->schema, pf->source_id);
        const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
        const char *v;
        int found = 0;

        names[i] = pf->name;
        ids[i] = pf->field_id;
        if (st == NULL || st->id >= ICE_STRUCT)
            return zb_fail(ctx, ZB_EREFUSED, "partition field %s: source "
                           "field %d is not a primitive of the schema",
                           pf->name, (int)pf->source_id);
        if (p->tr[i].kind == ICE_TR_VOID) {
            ice_prim rp;
            if ((rc = ice_transform_result_type(&rp, ctx, &p->tr[i],
                                                &st->prim)) < 0)
                return rc;
            vals[i] = ice_value_null(rp.id);
            continue;
        }
        if (p->tr[i].kind == ICE_TR_UNKNOWN)
            return zb_fail(ctx, ZB_EUNSUPPORTED, "partition field %s: "
                           "transform %s is not known to this build",
                           pf->name, pf->transform);
        if (p->tr[i].kind == ICE_TR_IDENTITY) {
            v = hive_find(kv, n_kv, pf->name, &found);
            if (!found && sf != NULL)
                v = hive_find(kv, n_kv, sf->name, &found);
            if (found) {
                if (v == NULL) {
                    vals[i] = ice_value_null(st->id);
                } else if ((rc = ice_value_from_text(&vals[i], ctx,
                                                     run->arena, &st->prim,
                                                     v, strlen(v))) < 0) {
                    if (rc == ZB_ENOMEM)
                        return rc;
                    zb_err_clear(&ctx->err);
                    return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s "
                                   "is not a value of type %s", s->uri,
                                   pf->name, v, ice_type_name(st->id));
                }
                /* The column, when the file has it too, must agree. */
                if (!have_dm) {
                    if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                                       &p->cfg_full,
                                                       res)) < 0)
                        return rc;
                    have_dm = 1;
                }
                if ((rc = check_path_value(run, p, s, i, &dm, &vals[i],
                                           v)) < 0)
                    return rc;
                continue;
            }
        }
        if (!have_dm) {
            if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                               &p->cfg_full, res)) < 0)
                return rc;
            have_dm = 1;
        }
        if ((rc = value_from_stats(&vals[i], run, p, s, i, &dm)) < 0)
            return rc;
    }
    df->partition = vals;
    df->partition_names = names;
    df->partition_field_ids = ids;
    return ZB_OK;
}

/* Required top-level fields the file lacks (and no directory gives). */
static int check_required(af_run *run, const af_plan *p, const af_src *s,
                          const af_columns *cols)
{
    const ice_type *root = p->schema->root;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, i, j;
    int rc, found;

    if ((rc = hive_keys(kv, &n_kv, run->arena, run->ctx, s->rel)) < 0)
        return rc;
    for (i = 0; i < root->n_fields; i++) {
        const ice_field *f = &root->fields[i];
        int present = 0;

        if (!f->required)
            continue;
        for (j = 0; j < cols->n_top; j++)
            present |= cols->top_ids[j] == f->id;
        if (!present && (hive_find(kv, n_kv, f->name, &found), !found))
            return zb_fail(run->ctx, ZB_EREFUSED, "%s: the table's required "
                           "column %s (field %d) is not in the file",
                           s->uri, f->name, (int)f->id);
    }
    return ZB_OK;
}

/* Whether a key=value directory gives an identity partition field's
 * value (partition_of takes it: the field's name or its column's). */
static int key_is_identity(const af_plan *p, const char *key)
{
    size_t i;

    for (i = 0; i < p->spec->n_fields; i++) {
        const ice_partition_field *pf = &p->spec->fields[i];
        const ice_field *sf;

        if (p->tr[i].kind != ICE_TR_IDENTITY)
            continue;
        sf = ice_schema_find_field(p->schema, pf->source_id);
        if (strcmp(pf->name, key) == 0 ||
            (sf != NULL && strcmp(sf->name, key) == 0))
            return 1;
    }
    return 0;
}

/*
 * key=value directories naming a top-level column that no identity
 * partition field takes: the directory's value would be lost (the column
 * reads what the file holds, null when it lacks it). Such a file is
 * refused unless it holds the column with every value equal to the
 * directory's (or lacks it and the directory says null).
 */
static int check_other_keys(af_run *run, const af_plan *p, const af_src *s,
                            const af_columns *cols, const pq_write_result *res)
{
    zb_ctx *ctx = run->ctx;
    const ice_type *root = p->schema->root;
    ice_data_file_metrics dm;
    int have_dm = 0;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, k, i, j;
    int rc;

    if ((rc = hive_keys(kv, &n_kv, run->arena, ctx, s->rel)) < 0)
        return rc;
    for (k = 0; k < n_kv; k++) {
        const char *text = kv[k].value ? kv[k].value : HIVE_NULL;
        const ice_field *f = NULL;
        const ice_column_metrics *c;
        ice_value v, lo, hi;
        const char *why = "";
        int in_file = 0, all_null;

        for (i = 0; i < root->n_fields && f == NULL; i++)
            if (strcmp(root->fields[i].name, kv[k].key) == 0)
                f = &root->fields[i];
        if (f == NULL || key_is_identity(p, kv[k].key))
            continue;
        for (j = 0; j < cols->n_top; j++)
            in_file |= cols->top_ids[j] == f->id;
        if (!in_file) {
            if (kv[k].value == NULL)
                continue;          /* the column reads null, as said */
            return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names "
                           "column %s, which is not identity-partitioned "
                           "and not in the file: its value would be lost "
                           "(the column would read null)", s->uri,
                           kv[k].key, text, f->name);
        }
        if (f->type->id >= ICE_STRUCT)
            return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names "
                           "column %s of type %s, which no directory value "
                           "can match", s->uri, kv[k].key, text, f->name,
                           ice_type_name(f->type->id));
        if (!have_dm) {
            if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                               &p->cfg_full, res)) < 0)
                return rc;
            have_dm = 1;
        }
        c = column_of(&dm, f->id);
        all_null = c != NULL && c->has_value_count && c->has_null_count &&
                   c->null_count == c->value_count;
        if (all_null && kv[k].value == NULL)
            continue;              /* all null, as the directory says */
        if (c == NULL || (!all_null && (c->lower == NULL ||
                                        c->upper == NULL)))
            why = " (the file has no statistics of it to check)";
        else if (kv[k].value != NULL && !all_null &&
                 (!c->has_null_count || c->null_count == 0)) {
            if ((rc = ice_value_from_text(&v, ctx, run->arena,
                                          &f->type->prim, kv[k].value,
                                          strlen(kv[k].value))) < 0) {
                if (rc == ZB_ENOMEM)
                    return rc;
                zb_err_clear(&ctx->err);
                return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s is "
                               "not a value of column %s's type %s",
                               s->uri, kv[k].key, text, f->name,
                               ice_type_name(f->type->id));
            }
            if ((rc = ice_value_from_bytes(&lo, ctx, &f->type->prim,
                                           c->lower, c->lower_len)) < 0 ||
                (rc = ice_value_from_bytes(&hi, ctx, &f->type->prim,
                                           c->upper, c->upper_len)) < 0)
                return zb_err_prefix(ctx, "%s: column %s", s->uri,
                                     f->name);
            if (ice_value_cmp(&lo, &v) == 0 && ice_value_cmp(&hi, &v) == 0)
                continue;
        }
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names column "
                       "%s, which is not identity-partitioned, and the "
                       "file's values of it are not all %s%s", s->uri,
                       kv[k].key, text, f->name, text, why);
    }
    return ZB_OK;
}

static int describe_file(ice_data_file *df, af_run *run, const af_plan *p,
                         const af_src *s)
{
    zb_ctx *ctx = run->ctx;
    pq_reader *r = NULL;
    af_columns cols;
    pq_write_result res;
    ice_data_file_metrics dm;
    int rc;

    if ((rc = pq_reader_open(&r, run->t->io, ctx, s->uri, NULL)) < 0) {
        if (strstr(ctx->err.msg, s->uri) == NULL)
            zb_err_prefix(ctx, "%s", s->uri);
        return rc;
    }
    if ((rc = zb_af__map_columns(&cols, run->arena, ctx, s->uri,
                                 pq_reader_schema(r), p->schema,
                                 p->mapping)) < 0 ||
        (rc = check_required(run, p, s, &cols)) < 0 ||
        (rc = zb_af__footer_result(&res, run->arena, ctx, s->uri,
                                   pq_reader_meta(r), pq_reader_schema(r),
                                   cols.leaf_ids, s->size)) < 0 ||
        (rc = check_other_keys(run, p, s, &cols, &res)) < 0 ||
        (rc = ice_metrics_from_parquet(&dm, ctx, run->arena, &p->cfg,
                                       &res)) < 0 ||
        (rc = ice_data_file_from_metrics(df, ctx, run->arena, &dm,
                                         ICE_CONTENT_DATA, s->uri)) < 0 ||
        (rc = partition_of(df, run, p, s, &res)) < 0)
        goto done;
done:
    pq_reader_free(r);
    return rc;
}

/* ---- duplicates ---- */

static int cmp_norm(const void *a, const void *b)
{
    return strcmp(((const af_norm *)a)->norm, ((const af_norm *)b)->norm);
}

static int cmp_norm_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const af_norm *)elem)->norm);
}

/* The normalized paths of the files, sorted: run->norms. */
static int make_norms(af_run *run)
{
    zb_buf b = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    size_t i;
    int rc = ZB_OK;

    if ((run->norms = zb_calloc(run->n_src + 1, sizeof *run->norms)) == NULL)
        return zb_fail_oom(run->ctx);
    for (i = 0; i < run->n_src && rc == ZB_OK; i++) {
        if ((rc = zb_reach_normalize(&b, run->ctx, run->src[i].uri)) < 0)
            break;
        run->norms[i].src = &run->src[i];
        if ((run->norms[i].norm = zb_arena_strdup(run->arena,
                                                  zb_buf_cstr(&b))) == NULL)
            rc = zb_fail_oom(run->ctx);
    }
    zb_buf_free(&b);
    if (rc == ZB_OK)
        qsort(run->norms, run->n_src, sizeof *run->norms, cmp_norm);
    return rc;
}

/* Files of run that name the same file twice among themselves. */
static int refuse_repeats(af_run *run)
{
    size_t i;

    if (run->o->allow_duplicates)
        return ZB_OK;
    for (i = 1; i < run->n_src; i++)
        if (strcmp(run->norms[i].norm, run->norms[i - 1].norm) == 0)
            return zb_fail(run->ctx, ZB_EREFUSED, "%s and %s are the same "
                           "file; --allow-duplicates adds it twice",
                           run->norms[i - 1].src->uri,
                           run->norms[i].src->uri);
    return ZB_OK;
}

/* Files of run already live in t: *n_dup and the first one's path. The
 * table's paths are resolved (its remaps) and both sides normalized, so
 * that /x/a.parquet, file:/x/a.parquet and file:///x/a.parquet meet. */
static int find_duplicates(af_run *run, const zb_table *t, size_t *n_dup,
                           const char **first)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(t->meta);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    zb_buf resolved = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    zb_buf norm = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc;

    *n_dup = 0;
    *first = NULL;
    if (snap == NULL)
        return ZB_OK;
    if ((rc = ice_snapshot_iter_open(&it, run->t->io, run->ctx, t->meta,
                                     snap, &t->paths)) < 0)
        return rc;
    while ((rc = ice_snapshot_iter_next(it, run->ctx, &e, &mf)) > 0) {
        const af_norm *hit;

        if (e->data_file.content != ICE_CONTENT_DATA)
            continue;
        if ((rc = zb_table_resolve(&resolved, run->ctx, t,
                                   e->data_file.file_path)) < 0 ||
            (rc = zb_reach_normalize(&norm, run->ctx,
                                     zb_buf_cstr(&resolved))) < 0)
            break;
        hit = bsearch(zb_buf_cstr(&norm), run->norms, run->n_src,
                      sizeof *run->norms, cmp_norm_key);
        if (hit != NULL) {
            if (*first == NULL)
                *first = hit->src->uri;
            (*n_dup)++;
        }
    }
    ice_snapshot_iter_free(it);
    zb_buf_free(&resolved);
    zb_buf_free(&norm);
    return rc < 0 ? rc : ZB_OK;
}

static int refuse_duplicates(af_run *run, const zb_table *t)
{
    const char *first;
    size_t n;
    int rc;

    if (run->o->allow_duplicates)
        return ZB_OK;
    if ((rc = find_duplicates(run, t, &n, &first)) < 0)
        return rc;
    if (n > 0)
        return zb_fail(run->ctx, ZB_EREFUSED, "%zu of the files are data "
                       "files of %s already (%s%s); --allow-duplicates adds "
                       "them again", n, t->ident, first,
                       n > 1 ? ", ..." : "");
    return ZB_OK;
}

/* ---- the commit ---- */

typedef struct af_commit {
    af_run *run;
    ice_commit_op *op;
    ice_commit_result r;
    const char *planned;           /* metadata the files were checked on */
    int32_t schema_id, spec_id;
    const char *mapping_text;      /* to set when the table has none */
} af_commit;

static int build_attempt(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                         const zb_table *t, void *payload)
{
    af_commit *c = payload;
    json_t *q = NULL, *u = NULL;
    int rc;

    ice_commit_result_free(&c->r);
    c->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    if (t->meta->current_schema_id != c->schema_id ||
        t->meta->default_spec_id != c->spec_id)
        return zb_fail(ctx, ZB_EREFUSED, "%s: its schema or partition spec "
                       "changed while the files were checked; run add-files "
                       "again", t->ident);
    if (strcmp(t->metadata_location, c->planned) != 0 &&
        (rc = refuse_duplicates(c->run, t)) < 0)
        return rc;
    if ((rc = ice_commit_op_build(c->op, ctx, t->meta, &c->r)) < 0)
        return rc;
    q = c->r.requirements ? json_copy((json_t *)c->r.requirements)
                          : json_array();
    u = c->r.updates ? json_copy((json_t *)c->r.updates) : json_array();
    if (q == NULL || u == NULL ||
        json_array_append_new(q, json_pack("{s:s, s:i}", "type",
                                           "assert-current-schema-id",
                                           "current-schema-id",
                                           (int)c->schema_id)) < 0 ||
        json_array_append_new(q, json_pack("{s:s, s:i}", "type",
                                           "assert-default-spec-id",
                                           "default-spec-id",
                                           (int)c->spec_id)) < 0 ||
        (c->mapping_text != NULL &&
         ice_metadata_property(t->meta, NAME_MAPPING) == NULL &&
         json_array_append_new(u, json_pack("{s:s, s:{s:s}}", "action",
                                            "set-properties", "updates",
                                            NAME_MAPPING,
                                            c->mapping_text)) < 0)) {
        json_decref(q);
        json_decref(u);
        return zb_fail_oom(ctx);
    }
    *reqs = (zb_json *)q;
    *updates = (zb_json *)u;
    return ZB_OK;
}

static void drop_attempt(zb_ctx *ctx, const zb_table *t, void *payload)
{
    af_commit *c = payload;

    (void)t;
    ice_commit_result_delete_files(&c->r, c->run->t->io, ctx);
    ice_commit_result_free(&c->r);
    c->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
}

static int commit(af_run *run, const zb_table *t, const char *mapping_text,
                  zb_add_files_result *res)
{
    zb_ctx *ctx = run->ctx;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    zb_catalog_retry_opts ro = ZB_CATALOG_RETRY_OPTS_INIT;
    zb_table *next = NULL;
    af_commit c;
    char count[32];
    size_t i;
    int rc;

    memset(&c, 0, sizeof c);
    c.run = run;
    c.r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    c.planned = t->metadata_location;
    c.schema_id = t->meta->current_schema_id;
    c.spec_id = t->meta->default_spec_id;
    c.mapping_text = mapping_text;
    o.kind = ICE_OP_APPEND;
    o.io = run->t->io;
    o.root = t->root;
    o.paths = &t->paths;
    if ((rc = ice_commit_op_new(&c.op, ctx, &o)) < 0)
        return rc;
    snprintf(count, sizeof count, "%zu", run->n_files);
    for (i = 0; i < run->n_files && rc == ZB_OK; i++)
        rc = ice_commit_op_add_file(c.op, ctx, c.spec_id, &run->files[i]);
    if (rc == ZB_OK)
        rc = ice_commit_op_set_summary(c.op, ctx, "zamboni.add-files",
                                       count);
    if (rc == ZB_OK) {
        ro.cleanup = drop_attempt;
        rc = zb_catalog_commit_retry(run->t->catalog, ctx, t->ident,
                                     build_attempt, &c, &ro, &next);
    }
    if (rc == ZB_OK)
        res->snapshot_id = c.r.snapshot_id;
    zb_table_free(next);
    ice_commit_result_free(&c.r);
    ice_commit_op_free(c.op);
    return rc;
}

/* ---- the run ---- */

static int plan_init(af_plan *p, af_run *run, const ice_metadata *m)
{
    zb_ctx *ctx = run->ctx;
    const char *nm = ice_metadata_property(m, NAME_MAPPING);
    json_error_t jerr;
    size_t i;
    int rc;

    memset(p, 0, sizeof *p);
    p->meta = m;
    p->schema = ice_metadata_current_schema(m);
    p->spec = ice_metadata_default_spec(m);
    if (p->schema == NULL || p->spec == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: no current schema or default "
                       "partition spec", run->t->ident);
    if (p->spec->n_fields > sizeof p->tr / sizeof p->tr[0])
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: more than %zu partition "
                       "fields", run->t->ident,
                       sizeof p->tr / sizeof p->tr[0]);
    for (i = 0; i < p->spec->n_fields; i++)
        if ((rc = ice_transform_parse(&p->tr[i], ctx,
                                      p->spec->fields[i].transform)) < 0)
            return rc;
    if (nm != NULL) {
        if ((p->mapping = json_loads(nm, 0, &jerr)) == NULL ||
            !json_is_array(p->mapping))
            return zb_fail(ctx, ZB_ECORRUPT, "%s: table property %s is not "
                           "a JSON list (%s)", run->t->ident, NAME_MAPPING,
                           p->mapping ? "not a list" : jerr.text);
    } else if ((p->mapping = zb_af__name_mapping(p->schema)) == NULL) {
        return zb_fail_oom(ctx);
    }
    ice_metrics_config_init(&p->cfg, p->schema,
                            ice_metadata_sort_order(m,
                                                    m->default_sort_order_id),
                            m->properties, m->n_properties);
    p->full_kv[0].key = "write.metadata.metrics.default";
    p->full_kv[0].value = "full";
    ice_metrics_config_init(&p->cfg_full, p->schema, NULL, p->full_kv, 1);
    return ZB_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct partition tuples among the files. */
static int count_partitions(af_run *run, uint64_t *out)
{
    const char **keys;
    size_t i, j;

    *out = 0;
    if (run->n_files == 0)
        return ZB_OK;
    if ((keys = zb_calloc(run->n_files, sizeof *keys)) == NULL)
        return zb_fail_oom(run->ctx);
    for (i = 0; i < run->n_files; i++) {
        const ice_data_file *f = &run->files[i];
        zb_buf b = ZB_BUF_INIT(1 << 16);

        int bad = 0;

        for (j = 0; j < f->n_partition && !bad; j++)
            bad = zb_buf_putc(&b, '/') < 0 ||
                  ice_value_to_human(&b, run->ctx, &f->partition[j]) < 0;
        keys[i] = bad ? NULL : zb_arena_strdup(run->arena, zb_buf_cstr(&b));
        zb_buf_free(&b);
        if (keys[i] == NULL) {
            zb_free(keys);
            return zb_fail_oom(run->ctx);
        }
    }
    qsort(keys, run->n_files, sizeof *keys, cmp_str);
    for (i = 0; i < run->n_files; i++)
        *out += i == 0 || strcmp(keys[i], keys[i - 1]) != 0;
    zb_free(keys);
    return ZB_OK;
}

int zb_add_files(const zb_op_target *t, zb_ctx *ctx,
                 const zb_add_files_opts *o, zb_add_files_result *res)
{
    af_run run;
    af_plan plan;
    zb_table *table = NULL;
    ice_metadata *created = NULL;
    const char *mapping_text = NULL;
    pq_reader *first = NULL;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && o && res);
    memset(res, 0, sizeof *res);
    memset(&run, 0, sizeof run);
    memset(&plan, 0, sizeof plan);
    run.t = t;
    run.ctx = ctx;
    run.o = o;
    if (o->source == NULL || o->source[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "add-files needs a source");
    if (o->partition_by != NULL && !o->create)
        return zb_fail(ctx, ZB_EUSAGE, "--partition-by is for --create (an "
                       "existing table keeps its partition spec)");
    if (zb_arena_new(&run.arena, AF_ARENA_MAX) < 0)
        return zb_fail_oom(ctx);
    if ((rc = list_source(&run)) < 0)
        goto done;
    res->files_skipped = run.skipped;

    rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &table);
    if (o->create) {
        if (rc == ZB_OK) {
            rc = zb_fail(ctx, ZB_EREFUSED, "%s exists already: add-files "
                         "--create makes a new table (leave --create out "
                         "to add to it)", t->ident);
            goto done;
        }
        if (rc != ZB_ENOTFOUND)
            goto done;
        zb_err_clear(&ctx->err);
        if ((rc = pq_reader_open(&first, t->io, ctx, run.src[0].uri,
                                 NULL)) < 0 ||
            (rc = build_create(&created, &run, pq_reader_schema(first))) < 0)
            goto done;
        res->created = 1;
        res->mapping_set = 1;
    } else if (rc < 0) {
        if (rc == ZB_ENOTFOUND)
            zb_err_prefix(ctx, "add-files --create makes a new table");
        goto done;
    }
    if ((rc = plan_init(&plan, &run, created ? created : table->meta)) < 0)
        goto done;
    if (!created && ice_metadata_property(table->meta, NAME_MAPPING) == NULL) {
        if ((mapping_text = dump_json(run.arena, plan.mapping)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        res->mapping_set = 1;
    }

    /* Every footer is read and every file checked before any commit. */
    if ((run.files = zb_calloc(run.n_src, sizeof *run.files)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < run.n_src; i++) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "add-files: stopped");
            goto done;
        }
        if ((rc = describe_file(&run.files[i], &run, &plan,
                                &run.src[i])) < 0)
            goto done;
        run.n_files++;
        res->rows_added += (uint64_t)run.files[i].record_count;
        res->bytes_added += (uint64_t)run.files[i].file_size_in_bytes;
    }
    if ((rc = count_partitions(&run, &res->partitions)) < 0 ||
        (rc = make_norms(&run)) < 0 || (rc = refuse_repeats(&run)) < 0)
        goto done;
    if (table != NULL && (rc = refuse_duplicates(&run, table)) < 0)
        goto done;
    res->files_added = run.n_files;
    if (t->dry_run)
        goto done;

    if (created != NULL) {
        const char *loc = zb_catalog_get_kind(t->catalog) == ZB_CATALOG_PATH
                              ? t->ident : NULL;
        if ((rc = zb_catalog_create_table(t->catalog, ctx, t->ident, loc,
                                          created, &table)) < 0) {
            zb_err_prefix(ctx, "creating %s", t->ident);
            goto done;
        }
    }
    rc = commit(&run, table, mapping_text, res);
    if (rc < 0)
        zb_err_prefix(ctx, "%s: committing %zu file(s)%s", t->ident,
                      run.n_files, created ? " (the table was created "
                                             "empty)" : "");
done:
    if (rc < 0)
        res->files_added = 0;
    json_decref(plan.mapping);
    pq_reader_free(first);
    ice_metadata_free(created);
    zb_table_free(table);
    zb_free(run.files);
    zb_free(run.norms);
    zb_free(run.src);
    zb_arena_free(run.arena);
    return rc;
}

int zb_add_files_report(zb_buf *out, const char *table,
                        const zb_add_files_result *r, int dry_run)
{
    int rc;

    if (r->created &&
        (rc = zb_buf_appendf(out, "%s: %s the table from the files' "
                             "schema\n", table,
                             dry_run ? "would create" : "created")) < 0)
        return rc;
    if ((rc = zb_buf_appendf(out, "%s: %s %llu file(s), %llu rows, %llu "
                             "bytes in %llu partition(s)\n", table,
                             dry_run ? "would add" : "added",
                             (unsigned long long)r->files_added,
                             (unsigned long long)r->rows_added,
                             (unsigned long long)r->bytes_added,
                             (unsigned long long)r->partitions)) < 0)
        return rc;
    if (r->files_skipped > 0 &&
        (rc = zb_buf_appendf(out, "  skipped %llu file(s) that are not "
                             "Parquet or are hidden\n",
                             (unsigned long long)r->files_skipped)) < 0)
        return rc;
    if (r->mapping_set && !r->created &&
        (rc = zb_buf_appendf(out, "  %s schema.name-mapping.default from "
                             "the current schema\n",
                             dry_run ? "would set" : "set")) < 0)
        return rc;
    if (!dry_run && r->snapshot_id != 0)
        rc = zb_buf_appendf(out, "  snapshot %lld\n",
                            (long long)r->snapshot_id);
    return rc < 0 ? rc : ZB_OK;
}

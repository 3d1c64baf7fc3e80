/*
 * cli/verbs/verb_table_config_generate.c - `zamboni table-config generate
 * --warehouse W [-o table-config.json] [--namespace NS] [--force]`: a
 * table-config.json (version 2) for the tables the catalog holds, to start a
 * warehouse's configuration from (ZAMBONI-INTERFACE.md section 1).
 *
 * Steps: list the namespaces (nested ones too) and their tables, or
 * NS's alone; load each table; a format version 1 table is skipped with
 * a note (maintenance wants v2 or later); each other table gets a block
 * with its current partition spec written as table-config partition
 * fields. The defaults block spells out the built-in values, so the file
 * shows what maintenance will do and is the place to change it. The text
 * is parsed back with the table-config reader before it is written; an
 * existing output file is kept unless --force (exit 2).
 *
 * `table-config from-catalog CAT --warehouse W [-o FILE] [--namespace NS]
 * [--no-evolution]` is the same run on the catalog CAT (as --uri would
 * name it) in place of the configured one; its defaults also spell out
 * the partition evolution rule a file without defaults would get (day ->
 * month after 90 days), or disable evolution with --no-evolution.
 */
#define ZB_MODULE "cli"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"

#define MAX_NAMES 100000

typedef struct names {
    size_t n, cap;
    char **v;
    int oom;
} names;

static int add_name(const char *item, void *payload)
{
    names *l = payload;
    char **nv;

    if (l->n >= MAX_NAMES)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;

        if ((nv = zb_realloc(l->v, cap * sizeof *nv)) == NULL) {
            l->oom = 1;
            return 1;
        }
        l->v = nv;
        l->cap = cap;
    }
    if ((l->v[l->n] = zb_strdup(item)) == NULL) {
        l->oom = 1;
        return 1;
    }
    l->n++;
    return 0;
}

static void free_names(names *l)
{
    size_t k;

    for (k = 0; k < l->n; k++)
        zb_free(l->v[k]);
    zb_free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Namespaces under parent, depth first, into out. */
static int walk_namespaces(zb_catalog *cat, zb_ctx *ctx, const char *parent,
                           names *out, int depth)
{
    names level;
    size_t k;
    int rc;

    memset(&level, 0, sizeof level);
    rc = zb_catalog_list_namespaces(cat, ctx, parent, add_name, &level);
    if (level.oom)
        rc = zb_fail_oom(ctx);
    for (k = 0; rc >= 0 && k < level.n; k++) {
        if (add_name(level.v[k], out) != 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
        if (depth < 16)
            rc = walk_namespaces(cat, ctx, level.v[k], out, depth + 1);
    }
    free_names(&level);
    return rc < 0 ? rc : ZB_OK;
}

int zb_verb_catalog_tables(char ***out, size_t *n, zb_verb_env *env,
                           zb_ctx *ctx)
{
    zb_catalog *cat = NULL;
    names nsl, tables;
    size_t k;
    int rc;

    *out = NULL;
    *n = 0;
    memset(&nsl, 0, sizeof nsl);
    memset(&tables, 0, sizeof tables);
    if ((rc = zb_verb_configured_catalog(&cat, env, ctx)) < 0)
        return rc;
    rc = walk_namespaces(cat, ctx, NULL, &nsl, 0);
    for (k = 0; rc >= 0 && k < nsl.n; k++) {
        rc = zb_catalog_list_tables(cat, ctx, nsl.v[k], add_name, &tables);
        if (tables.oom)
            rc = zb_fail_oom(ctx);
    }
    free_names(&nsl);
    if (rc < 0) {
        free_names(&tables);
        return rc;
    }
    qsort(tables.v, tables.n, sizeof *tables.v, cmp_str);
    *out = tables.v;
    *n = tables.n;
    return ZB_OK;
}

void zb_verb_catalog_tables_free(char **v, size_t n)
{
    size_t k;

    for (k = 0; k < n; k++)
        zb_free(v[k]);
    zb_free(v);
}

/* "bucket[16]" -> transform "bucket", *arg 16. */
static const char *split_transform(const char *t, long *arg)
{
    static const char *const known[] = { "identity", "year", "month", "day",
                                         "hour", "bucket", "truncate",
                                         "void" };
    size_t k, n = strcspn(t, "[");

    *arg = 0;
    if (t[n] == '[')
        *arg = strtol(t + n + 1, NULL, 10);
    for (k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strlen(known[k]) == n && strncmp(known[k], t, n) == 0)
            return known[k];
    return NULL;
}

/* The table's block: its default spec as partition fields. */
static json_t *table_block(const zb_table *t, const char *ident)
{
    const ice_metadata *m = t->meta;
    const ice_partition_spec *spec = ice_metadata_default_spec(m);
    const ice_schema *sc = ice_metadata_current_schema(m);
    json_t *b = json_object(), *parts = json_array();
    size_t k;

    if (b == NULL || parts == NULL) {
        json_decref(b);
        json_decref(parts);
        return NULL;
    }
    json_object_set_new(b, "description", json_string(ident));
    for (k = 0; spec != NULL && sc != NULL && k < spec->n_fields; k++) {
        const ice_partition_field *pf = &spec->fields[k];
        const ice_field *src = ice_schema_find_field(sc, pf->source_id);
        const char *tr;
        json_t *f;
        long arg;

        if (src == NULL || (tr = split_transform(pf->transform, &arg)) ==
                               NULL)
            continue;
        if (strcmp(tr, "void") == 0)
            continue;
        f = json_pack("{ssss}", "column", src->name, "transform", tr);
        if (f == NULL)
            continue;
        if (strcmp(tr, "bucket") == 0)
            json_object_set_new(f, "num_buckets", json_integer(arg));
        if (strcmp(tr, "truncate") == 0)
            json_object_set_new(f, "width", json_integer(arg));
        json_object_set_new(f, "name", json_string(pf->name));
        json_array_append_new(parts, f);
    }
    if (json_array_size(parts) > 0)
        json_object_set_new(b, "partition", parts);
    else
        json_decref(parts);
    return b;
}

/* The built-in values spelled out (ops/table_settings.h's defaults). */
static json_t *builtin_defaults(void)
{
    return json_pack(
        "{sis{s{sbsisi}s{sbsi}s{sb}s{sbsi}}}", "min_input_files",
        (int)ZB_TSET_DEFAULT_MIN_INPUT_FILES,
        "retention", "expire_snapshots", "enabled", 1,
        "max_snapshot_age_days",
        (int)(ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS / ZB_TSET_DAY_MS),
        "min_snapshots_to_keep", (int)ZB_TSET_DEFAULT_MIN_SNAPSHOTS_TO_KEEP,
        "remove_orphan_files", "enabled", 1, "older_than_days",
        (int)ZB_TSET_DEFAULT_ORPHAN_AGE_DAYS,
        "remove_dangling_deletes", "enabled", 1, "rewrite_manifests",
        "enabled", 1, "min_input_manifests",
        (int)ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS);
}

/* from-catalog also spells out (or disables) partition evolution. */
static json_t *defaults_block(const zb_verb_args *a)
{
    json_t *b = builtin_defaults(), *ev;

    if (b == NULL || !a->from_catalog)
        return b;
    ev = a->no_evolution
             ? json_pack("{sb}", "enabled", 0)
             : json_pack("{sbs[{sssssi}]}", "enabled", 1, "rules", "from",
                         "day", "to", "month", "older_than_days", 90);
    if (ev == NULL || json_object_set_new(b, "partition_evolution", ev) < 0) {
        json_decref(b);
        return NULL;
    }
    return b;
}

/* Adds ident's block under namespaces.NS.tables.NAME. */
static int put_table(json_t *nss, const char *ident, json_t *block)
{
    const char *dot = strrchr(ident, '.');
    char ns[1024];
    json_t *o, *tables;

    if (dot == NULL || (size_t)(dot - ident) >= sizeof ns) {
        json_decref(block);
        return -1;
    }
    memcpy(ns, ident, (size_t)(dot - ident));
    ns[dot - ident] = '\0';
    if ((o = json_object_get(nss, ns)) == NULL) {
        o = json_pack("{s{}}", "tables");
        if (o == NULL || json_object_set_new(nss, ns, o) < 0) {
            json_decref(block);
            return -1;
        }
    }
    tables = json_object_get(o, "tables");
    return json_object_set_new(tables, dot + 1, block);
}

int zb_verb_generate(zb_verb_env *env, zb_ctx *ctx, const zb_verb_args *a)
{
    const char *wh = zb_settings_get(env->settings, ZB_SET_WAREHOUSE);
    const char *path = a->output ? a->output : "table-config.json";
    names nsl, tables;
    zb_catalog *cat = NULL;
    zb_table_config *check = NULL;
    json_t *doc = NULL, *nss = NULL;
    struct stat st;
    size_t k, n, used = 0, skipped = 0;
    char *text = NULL;
    FILE *f = NULL;
    int rc;

    memset(&nsl, 0, sizeof nsl);
    memset(&tables, 0, sizeof tables);
    if (wh == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "generate needs --warehouse (or "
                       "ZAMBONI_WAREHOUSE, or warehouse: in zamboni.yml)");
    if (stat(path, &st) == 0 && !a->overwrite)
        return zb_fail(ctx, ZB_EUSAGE, "%s exists; give --force to replace "
                       "it, or -o another file", path);
    if ((rc = zb_verb_configured_catalog(&cat, env, ctx)) < 0)
        return rc;
    if (a->namespace_filter)
        rc = add_name(a->namespace_filter, &nsl) ? zb_fail_oom(ctx) : ZB_OK;
    else
        rc = walk_namespaces(cat, ctx, NULL, &nsl, 0);
    for (k = 0; rc >= 0 && k < nsl.n; k++) {
        rc = zb_catalog_list_tables(cat, ctx, nsl.v[k], add_name, &tables);
        if (tables.oom)
            rc = zb_fail_oom(ctx);
    }
    if (rc < 0)
        goto done;
    qsort(tables.v, tables.n, sizeof *tables.v, cmp_str);
    doc = json_pack("{sisssoso}", "version", 2, "warehouse", wh, "defaults",
                    defaults_block(a), "namespaces", json_object());
    if (doc == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    nss = json_object_get(doc, "namespaces");
    for (k = 0; k < tables.n; k++) {
        zb_table *t = NULL;
        json_t *b;

        if ((rc = zb_catalog_load_table(cat, ctx, tables.v[k], &t)) < 0)
            goto done;
        if (t->meta->format_version < 2) {
            fprintf(stderr, "zamboni table-config: skipped %s: format "
                            "version 1 (maintenance needs version 2 or "
                            "later)\n",
                    tables.v[k]);
            skipped++;
        } else if ((b = table_block(t, tables.v[k])) == NULL ||
                   put_table(nss, tables.v[k], b) < 0) {
            zb_table_free(t);
            rc = zb_fail_oom(ctx);
            goto done;
        } else {
            used++;
        }
        zb_table_free(t);
    }
    n = json_dumpb(doc, NULL, 0, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (n == 0 || (text = zb_malloc(n + 1)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    json_dumpb(doc, text, n, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    text[n] = '\0';
    /* what we write must read back */
    if ((rc = zb_table_config_parse(&check, ctx, path, text,
                                    strlen(text))) < 0)
        goto done;
    if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 ||
        fputc('\n', f) < 0) {
        rc = zb_fail(ctx, ZB_EIO, "cannot write %s", path);
        goto done;
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = zb_fail(ctx, ZB_EIO, "cannot write %s", path);
        goto done;
    }
    f = NULL;
    printf("%s: %zu table(s) of warehouse %s%s", path, used, wh,
           skipped ? "" : "\n");
    if (skipped)
        printf(", %zu skipped (format version 1)\n", skipped);
    rc = ZB_OK;
done:
    if (f != NULL)
        fclose(f);
    zb_free(text);
    zb_table_config_free(check);
    json_decref(doc);
    free_names(&nsl);
    free_names(&tables);
    return rc;
}

int zb_verb_from_catalog_args(zb_verb_args *a, char *uri, size_t size)
{
    const char *cat = a->n_pos > 1 ? a->pos[1] : NULL;
    const char *flag = a->setting_flags[ZB_SET_URI];
    struct stat st;

    if (cat == NULL || cat[0] == '\0')
        return zb_verb_usage(a->verb, "from-catalog needs CAT (a catalog "
                             "URI: http(s)://, sqlite:PATH, postgresql://, "
                             "or a SQLite database file)");
    if (strstr(cat, "://") == NULL && strncmp(cat, "sqlite:", 7) != 0) {
        if (stat(cat, &st) != 0 || !S_ISREG(st.st_mode))
            return zb_verb_usage(a->verb, "from-catalog: %s is neither a "
                                 "catalog URI nor a SQLite database file",
                                 cat);
        if ((size_t)snprintf(uri, size, "sqlite:%s", cat) >= size)
            return zb_verb_usage(a->verb, "from-catalog: path too long");
        cat = uri;
    }
    if (flag != NULL && strcmp(flag, cat) != 0)
        return zb_verb_usage(a->verb, "from-catalog: CAT %s and --uri %s "
                             "disagree (give one)", cat, flag);
    a->setting_flags[ZB_SET_URI] = cat;
    a->from_catalog = 1;
    return 0;
}

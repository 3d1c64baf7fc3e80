/*
 * ops/config/table_config.c - parsing and validating table-config.json version
 * 2 (the keys and rules are in table_config.h): the file, its root and
 * namespaces here, the table blocks in table_config_block.c.
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

#include "ops/config/table_config_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/file.h"

int zb_tc__bad(zb_tc_parser *p, const char *path, const char *fmt, ...)
{
    char what[720];             /* a block's allowed keys fit */
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

void zb_tc__sub(char *dst, const char *parent, const char *key)
{
    size_t n = 0;
    dst[0] = '\0';
    put(dst, &n, parent);
    if (parent[0] != '\0')
        put(dst, &n, ".");
    put(dst, &n, key);
}

void zb_tc__sub_index(char *dst, const char *parent, size_t i)
{
    char idx[32];
    size_t n = 0;
    snprintf(idx, sizeof(idx), "[%zu]", i);
    dst[0] = '\0';
    put(dst, &n, parent);
    put(dst, &n, idx);
}

const char *zb_tc__type_name(const json_t *v)
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

int zb_tc__want_object(zb_tc_parser *p, const json_t *v, const char *path)
{
    if (!json_is_object(v))
        return zb_tc__bad(p, path, "must be an object (got %s)",
                          zb_tc__type_name(v));
    return ZB_OK;
}

/* Rejects keys of obj not in allowed (NULL-terminated). */
int zb_tc__check_keys(zb_tc_parser *p, const json_t *obj, const char *path,
                      const char *const *allowed)
{
    const char *key;
    json_t *v;
    char kp[TC_PATH], list[640];

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
        zb_tc__sub(kp, path, key);
        return zb_tc__bad(p, kp, "unknown key (allowed: %s)", list);
    }
    return ZB_OK;
}

/* A whole number in lo..hi; null gives ZB_UNSET (-1) when allow_null. */
int zb_tc__want_int(zb_tc_parser *p, const json_t *v, const char *path,
                    int64_t lo, int64_t hi, int allow_null, int64_t *out)
{
    if (json_is_null(v) && allow_null) {
        *out = ZB_UNSET;
        return ZB_OK;
    }
    if (!json_is_integer(v))
        return zb_tc__bad(p, path, "must be a whole number%s (got %s)",
                          allow_null ? " or null" : "", zb_tc__type_name(v));
    json_int_t n = json_integer_value(v);
    if (n < lo || n > hi) {
        /* a bound of INT32_MAX or more only guards arithmetic: the rule
         * users read is the lower one */
        if (hi >= INT32_MAX && n < lo)
            return zb_tc__bad(p, path, "must be >= %lld (got %lld)",
                              (long long)lo, (long long)n);
        if (hi >= INT32_MAX)
            return zb_tc__bad(p, path, "must be <= %lld (got %lld)",
                              (long long)hi, (long long)n);
        return zb_tc__bad(p, path, "must be from %lld to %lld (got %lld)",
                          (long long)lo, (long long)hi, (long long)n);
    }
    *out = (int64_t)n;
    return ZB_OK;
}

int zb_tc__want_bool(zb_tc_parser *p, const json_t *v, const char *path,
                     int *out)
{
    if (!json_is_boolean(v))
        return zb_tc__bad(p, path, "must be true or false (got %s)",
                          zb_tc__type_name(v));
    *out = json_is_true(v);
    return ZB_OK;
}

int zb_tc__want_string(zb_tc_parser *p, const json_t *v, const char *path,
                       const char **out)
{
    if (!json_is_string(v))
        return zb_tc__bad(p, path, "must be a string (got %s)",
                          zb_tc__type_name(v));
    if (json_string_length(v) == 0)
        return zb_tc__bad(p, path, "must not be empty");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return zb_tc__bad(p, path, "holds a NUL character");
    if ((*out = zb_arena_strdup(p->tc->arena, json_string_value(v))) == NULL)
        return zb_fail_oom(p->ctx);
    return ZB_OK;
}

int zb_tc__want_enum(zb_tc_parser *p, const json_t *v, const char *path,
                     const char *const *names, size_t n, size_t *out)
{
    char list[120];

    if (!json_is_string(v))
        return zb_tc__bad(p, path, "must be a string (got %s)",
                          zb_tc__type_name(v));
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
    return zb_tc__bad(p, path, "'%.40s' is not one of %s", json_string_value(v),
                      list);
}

/* obj[key], with null counted as absent. */
json_t *zb_tc__opt(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_null(v) ? NULL : v;
}

int zb_tc__want_list(zb_tc_parser *p, const json_t *v, const char *path)
{
    if (!json_is_array(v))
        return zb_tc__bad(p, path, "must be a list (got %s)",
                          zb_tc__type_name(v));
    if (json_array_size(v) > TC_MAX_ITEMS)
        return zb_tc__bad(p, path, "has more than %d items", TC_MAX_ITEMS);
    return ZB_OK;
}

/* Iceberg's default partition field names. */
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

static int parse_namespaces(zb_tc_parser *p, const json_t *nss)
{
    static const char *const ns_keys[] = { "tables", NULL };
    char np[TC_PATH], tp[TC_PATH], bp[TC_PATH];
    const char *ns, *name;
    json_t *nsv, *tv;
    size_t total = 0, k = 0;
    int rc;

    if ((rc = zb_tc__want_object(p, nss, "namespaces")) < 0)
        return rc;
    json_object_foreach((json_t *)nss, ns, nsv) {
        zb_tc__sub(np, "namespaces", ns);
        if (!namespace_ok(ns))
            return zb_tc__bad(p, np,
                              "not a namespace name (levels are joined by "
                              "single dots and cannot be empty)");
        if ((rc = zb_tc__want_object(p, nsv, np)) < 0 ||
            (rc = zb_tc__check_keys(p, nsv, np, ns_keys)) < 0)
            return rc;
        zb_tc__sub(tp, np, "tables");
        const json_t *tables = zb_tc__opt(nsv, "tables");
        if (tables == NULL)
            continue;
        if ((rc = zb_tc__want_object(p, tables, tp)) < 0)
            return rc;
        total += json_object_size(tables);
        if (total > TC_MAX_ITEMS)
            return zb_tc__bad(p, "namespaces", "more than %d tables",
                              TC_MAX_ITEMS);
    }
    p->tc->tables = zb_arena_calloc(p->tc->arena, total ? total : 1,
                                    sizeof(zb_tc_table));
    if (p->tc->tables == NULL)
        return zb_fail_oom(p->ctx);
    json_object_foreach((json_t *)nss, ns, nsv) {
        const json_t *tables = zb_tc__opt(nsv, "tables");
        zb_tc__sub(np, "namespaces", ns);
        zb_tc__sub(tp, np, "tables");
        if (tables == NULL)
            continue;
        json_object_foreach((json_t *)tables, name, tv) {
            zb_tc_table *t = &p->tc->tables[k];
            zb_tc__sub(bp, tp, name);
            if (name[0] == '\0')
                return zb_tc__bad(p, bp, "a table name cannot be empty");
            if (strchr(name, '.') != NULL)
                return zb_tc__bad(p, bp,
                                  "a table name holds no dot (write "
                                  "namespace levels in the namespace key, "
                                  "\"%.40s.%.40s\")",
                                  ns, name);
            if ((t->ident = zb_arena_sprintf(p->tc->arena, "%s.%s", ns,
                                             name)) == NULL)
                return zb_fail_oom(p->ctx);
            if ((rc = zb_tc__parse_block(p, tv, bp, &t->block)) < 0)
                return rc;
            k++;
        }
    }
    p->tc->n_tables = k;
    qsort(p->tc->tables, k, sizeof(zb_tc_table), cmp_table);
    return ZB_OK;
}

static int parse_root(zb_tc_parser *p, const json_t *root)
{
    static const char *const keys[] = { "version", "warehouse", "defaults",
                                        "namespaces", NULL };
    const json_t *v;
    int64_t version;
    int rc;

    if (!json_is_object(root))
        return zb_fail(p->ctx, ZB_EUSAGE,
                       "%s: must hold one JSON object "
                       "(got %s)",
                       p->tc->name, zb_tc__type_name(root));
    if (json_object_get(root, "tables") != NULL)
        return zb_tc__bad(p, "tables",
                          "a top-level \"tables\" is the version 1 "
                          "layout; version 2 lists each table under "
                          "namespaces.<namespace>.tables.<table> with "
                          "\"version\": 2");
    if ((v = json_object_get(root, "version")) == NULL)
        return zb_tc__bad(p, "version", "required (2)");
    if (!json_is_integer(v))
        return zb_tc__bad(p, "version", "must be 2 (got %s)",
                          zb_tc__type_name(v));
    if ((version = (int64_t)json_integer_value(v)) != 2)
        return zb_tc__bad(p, "version", "must be 2 (got %lld)%s",
                          (long long)version,
                          version == 1 ? "; a version 1 file moves each table "
                                         "under namespaces.<namespace>.tables."
                                         "<table>"
                                       : "");
    if ((rc = zb_tc__check_keys(p, root, "", keys)) < 0)
        return rc;
    if ((v = zb_tc__opt(root, "warehouse")) == NULL)
        return zb_tc__bad(p, "warehouse",
                          "required (the warehouse this file "
                          "configures)");
    if ((rc = zb_tc__want_string(p, v, "warehouse", &p->tc->warehouse)) < 0)
        return rc;
    p->tc->has_defaults = json_object_get(root, "defaults") != NULL;
    zb_table_config__builtin(&p->tc->defaults, p->tc->has_defaults);
    if ((v = zb_tc__opt(root, "defaults")) != NULL &&
        (rc = zb_tc__parse_block(p, v, "defaults", &p->tc->defaults)) < 0)
        return rc;
    if ((v = zb_tc__opt(root, "namespaces")) != NULL &&
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
    zb_tc_parser p;
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
    int rc;

    ZB_ASSERT_ARG(out && ctx && path);
    *out = NULL;
    /* any file kind, as before: a pipe (--config <(...)) is read too */
    rc = zb_file_read_capped(&text, NULL, ctx, path,
                             ZB_TABLE_CONFIG_MAX_BYTES, 0);
    if (rc == ZB_OK)
        rc = zb_table_config_parse(out, ctx, path, text.ptr, text.len);
    zb_buf_free(&text);
    return rc;
}


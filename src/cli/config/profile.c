/*
 * cli/config/profile.c - parsing zamboni.yml (see profile.h for the keys).
 *
 * libyaml loads the text as one document (yaml_parser_load); its node
 * tree is walked once: the root must be a mapping (or empty), each key is
 * looked up in a fixed table, values are checked for their shape (scalar,
 * list of scalars, or the trino/spark mapping) and copied into the
 * profile's arena with their line. The walk never goes deeper than two
 * mappings, so aliases (which libyaml resolves to shared nodes) cannot
 * make it loop. libyaml allocates through its own allocator; everything
 * the profile keeps comes from its arena.
 */
#define ZB_MODULE "profile"

#include "cli/config/profile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#include "cli/config/dotenv.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

const char *const zb_profile_operation_names[6] = {
    "compact", "apply-properties", "remove-dangling-deletes",
    "rewrite-manifests", "expire", "remove-orphans"
};

/* Scalar keys, dotted for nested ones; the index is the slot. */
static const char *const scalar_keys[] = {
    "uri", "warehouse", "engine", "root", "memory_budget_bytes", "threads",
    "trino.host", "trino.port", "trino.user", "trino.catalog",
    "trino.version", "spark.remote", "spark.master", "spark.catalog",
    "s3_endpoint", "s3_region", "s3_path_style_access", "s3_max_attempts",
    "s3_max_retry_seconds", "s3_timeout_seconds",
    "s3_multipart_threshold_bytes",
    /* the worker (service/): */
    "queue_max_tasks", "max_attempts", "size_class", "workers",
    "drain_timeout", "max_lifetime", "idle_exit_after", "lease_seconds",
    "heartbeat_seconds", "spill_disk_limit_bytes", "spill_compression",
    /* the size_classes: list, kept as the JSON text of the same list
     * (set_size_classes), so that it and ZAMBONI_SIZE_CLASSES are parsed
     * alike (zb_size_classes_parse_json) */
    "size_classes"
};
#define N_SCALARS (sizeof(scalar_keys) / sizeof(scalar_keys[0]))
#define MAX_LIST 100000

typedef struct profile_list {
    int present;
    unsigned line;
    size_t n;
    const char **items;
} profile_list;

struct zb_profile {
    zb_arena *arena;
    const char *path;
    const char *values[N_SCALARS];
    unsigned lines[N_SCALARS];
    profile_list operations;
    profile_list tables;
};

typedef struct walk {
    zb_profile *p;
    yaml_document_t *doc;
    zb_ctx *ctx;
} walk;

void zb_profile_free(zb_profile *p)
{
    if (p == NULL)
        return;
    zb_arena_free(p->arena);
    zb_free(p);
}

static unsigned node_line(const yaml_node_t *n)
{
    return (unsigned)n->start_mark.line + 1;
}

static int fail_at(walk *w, const yaml_node_t *n, const char *fmt, ...)
    ZB_PRINTF(3, 4);

static int fail_at(walk *w, const yaml_node_t *n, const char *fmt, ...)
{
    char what[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return zb_fail(w->ctx, ZB_EUSAGE, "%s:%u: %s", w->p->path, node_line(n),
                   what);
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static int is_null(const yaml_node_t *n)
{
    if (n == NULL)
        return 1;
    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = scalar(n);
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* A key that names a secret, at any level. */
static int is_secret_key(const char *k)
{
    static const char *const words[] = { "secret", "token", "password",
                                         "credential", "passwd" };
    char low[64];
    size_t i;

    for (i = 0; k[i] != '\0' && i + 1 < sizeof(low); i++)
        low[i] = (char)tolower((unsigned char)k[i]);
    low[i] = '\0';
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strstr(low, words[i]) != NULL)
            return 1;
    return 0;
}

static int refuse_secret(walk *w, const yaml_node_t *key, const char *prefix)
{
    const char *k = scalar(key);
    const char *var = NULL;

    if (prefix == NULL && strcmp(k, "token") == 0)
        var = "ZAMBONI_TOKEN";
    else if (prefix == NULL && strcmp(k, "credential") == 0)
        var = "ZAMBONI_CREDENTIAL";
    else if (prefix == NULL && (strcmp(k, "s3_secret_access_key") == 0 ||
                                strcmp(k, "s3-secret-access-key") == 0))
        var = "ZAMBONI_S3_SECRET_ACCESS_KEY";
    else if (prefix == NULL && (strcmp(k, "s3_session_token") == 0 ||
                                strcmp(k, "s3-session-token") == 0))
        var = "ZAMBONI_S3_SESSION_TOKEN";
    return zb_fail(w->ctx, ZB_EUSAGE,
                   "%s:%u: '%s%s%s' is a secret, and secrets are not allowed "
                   "in zamboni.yml: set %s in the environment or in .env "
                   "(chmod 600)", w->p->path, node_line(key),
                   prefix ? prefix : "", prefix ? "." : "", k,
                   var ? var : "it");
}

static int set_scalar(walk *w, const char *dotted, const yaml_node_t *key,
                      const yaml_node_t *val)
{
    size_t slot;

    for (slot = 0; slot < N_SCALARS; slot++)
        if (strcmp(scalar_keys[slot], dotted) == 0)
            break;
    if (slot == N_SCALARS)
        return zb_fail(w->ctx, ZB_EINVAL, "no slot for %s", dotted);
    if (w->p->lines[slot] != 0)
        return fail_at(w, key, "'%s' is given twice", dotted);
    w->p->lines[slot] = node_line(key);
    if (is_null(val))
        return ZB_OK;
    if (val->type != YAML_SCALAR_NODE)
        return fail_at(w, val, "'%s' must be a single value, not a %s",
                       dotted, val->type == YAML_SEQUENCE_NODE ? "list"
                                                               : "mapping");
    const char *s = scalar(val);
    if (strlen(s) != val->data.scalar.length)
        return fail_at(w, val, "'%s' holds a NUL byte", dotted);
    if (strcmp(dotted, "engine") == 0 && strcmp(s, "local") != 0 &&
        strcmp(s, "spark") != 0 && strcmp(s, "trino") != 0)
        return fail_at(w, val, "engine '%s' is not one of local, spark, "
                       "trino", s);
    if (strcmp(dotted, "trino.port") == 0) {
        uint64_t port;
        if (zb_str_to_u64(&port, s) < 0 || port < 1 || port > 65535)
            return fail_at(w, val, "trino.port '%s' is not a port number "
                           "(1..65535)", s);
    }
    if ((w->p->values[slot] = zb_arena_strdup(w->p->arena, s)) == NULL)
        return zb_fail_oom(w->ctx);
    return ZB_OK;
}

static int set_list(walk *w, profile_list *l, const char *name,
                    const yaml_node_t *key, const yaml_node_t *val)
{
    yaml_node_item_t *it;
    size_t n, i, j;

    if (l->present)
        return fail_at(w, key, "'%s' is given twice", name);
    l->present = 1;
    l->line = node_line(key);
    if (is_null(val)) {
        l->present = 0;
        return ZB_OK;
    }
    if (val->type != YAML_SEQUENCE_NODE)
        return fail_at(w, val, "'%s' must be a list", name);
    n = (size_t)(val->data.sequence.items.top - val->data.sequence.items.start);
    if (n == 0 && l == &w->p->operations)
        return fail_at(w, val, "'operations' is an empty list (omit the key "
                       "to run all six)");
    if (n > MAX_LIST)
        return fail_at(w, val, "'%s' has too many items", name);
    l->items = zb_arena_calloc(w->p->arena, n ? n : 1, sizeof(char *));
    if (l->items == NULL)
        return zb_fail_oom(w->ctx);
    for (it = val->data.sequence.items.start, i = 0;
         it < val->data.sequence.items.top; it++, i++) {
        yaml_node_t *item = yaml_document_get_node(w->doc, *it);
        if (item == NULL || item->type != YAML_SCALAR_NODE || is_null(item))
            return fail_at(w, item ? item : val,
                           "each item of '%s' must be a non-empty name",
                           name);
        const char *s = scalar(item);
        if (strlen(s) != item->data.scalar.length)
            return fail_at(w, item, "an item of '%s' holds a NUL byte",
                           name);
        if (l == &w->p->operations) {
            for (j = 0; j < 6; j++)
                if (strcmp(s, zb_profile_operation_names[j]) == 0)
                    break;
            if (j == 6)
                return fail_at(w, item, "unknown operation '%s' (one of: "
                               "compact, apply-properties, "
                               "remove-dangling-deletes, rewrite-manifests, "
                               "expire, remove-orphans)", s);
        }
        for (j = 0; j < i; j++)
            if (strcmp(l->items[j], s) == 0)
                return fail_at(w, item, "'%s' is listed twice in '%s'", s,
                               name);
        if ((l->items[i] = zb_arena_strdup(w->p->arena, s)) == NULL)
            return zb_fail_oom(w->ctx);
    }
    l->n = n;
    return ZB_OK;
}

/*
 * size_classes: - a list of mappings {name, cores, memory, max_jobs}
 * turned into the JSON text of the same list. Only the shape is checked
 * here (scalars under known keys); the values are checked by
 * zb_size_classes_parse_json, which reads ZAMBONI_SIZE_CLASSES too.
 * cores and max_jobs become JSON integers when they are whole numbers,
 * memory stays text ("8Gi") unless it is a plain number.
 */
static int set_size_classes(walk *w, const yaml_node_t *key,
                            const yaml_node_t *val)
{
    static const char *const fields[] = { "name", "cores", "memory",
                                          "max_jobs" };
    const size_t slot = N_SCALARS - 1;
    json_t *list = NULL;
    yaml_node_item_t *it;
    char *text = NULL;
    int rc = ZB_OK;

    if (w->p->lines[slot] != 0)
        return fail_at(w, key, "'size_classes' is given twice");
    w->p->lines[slot] = node_line(key);
    if (is_null(val))
        return ZB_OK;
    if (val->type != YAML_SEQUENCE_NODE)
        return fail_at(w, val, "'size_classes' must be a list of mappings "
                       "(name, cores, memory, max_jobs)");
    if ((list = json_array()) == NULL)
        return zb_fail_oom(w->ctx);
    for (it = val->data.sequence.items.start;
         it < val->data.sequence.items.top && rc == ZB_OK; it++) {
        yaml_node_t *item = yaml_document_get_node(w->doc, *it);
        yaml_node_pair_t *pair;
        json_t *obj;

        if (item == NULL || item->type != YAML_MAPPING_NODE) {
            rc = fail_at(w, item ? item : val, "each item of 'size_classes' "
                         "must be a mapping (name, cores, memory, "
                         "max_jobs)");
            break;
        }
        if ((obj = json_object()) == NULL ||
            json_array_append_new(list, obj) < 0) {
            rc = zb_fail_oom(w->ctx);
            break;
        }
        for (pair = item->data.mapping.pairs.start;
             pair < item->data.mapping.pairs.top; pair++) {
            yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
            yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
            const char *s;
            json_t *jv;
            uint64_t n;
            size_t f;

            if (k == NULL || k->type != YAML_SCALAR_NODE) {
                rc = fail_at(w, k ? k : item, "a key of a size class is not "
                             "a name");
                break;
            }
            for (f = 0; f < sizeof fields / sizeof fields[0]; f++)
                if (strcmp(scalar(k), fields[f]) == 0)
                    break;
            if (f == sizeof fields / sizeof fields[0]) {
                rc = fail_at(w, k, "unknown key '%.60s' in a size class "
                             "(known: name, cores, memory, max_jobs)",
                             scalar(k));
                break;
            }
            if (json_object_get(obj, fields[f]) != NULL) {
                rc = fail_at(w, k, "'%s' is given twice in a size class",
                             fields[f]);
                break;
            }
            if (v == NULL || v->type != YAML_SCALAR_NODE || is_null(v)) {
                rc = fail_at(w, v ? v : k, "'%s' of a size class must be "
                             "a single value", fields[f]);
                break;
            }
            s = scalar(v);
            if (strlen(s) != v->data.scalar.length) {
                rc = fail_at(w, v, "'%s' of a size class holds a NUL byte",
                             fields[f]);
                break;
            }
            if (f != 0 && zb_str_to_u64(&n, s) == 0 &&
                n <= (uint64_t)INT64_MAX)
                jv = json_integer((json_int_t)n);
            else
                jv = json_string(s);
            if (jv == NULL || json_object_set_new(obj, fields[f], jv) < 0) {
                rc = zb_fail_oom(w->ctx);
                break;
            }
        }
    }
    if (rc == ZB_OK) {
        size_t n = json_dumpb(list, NULL, 0, JSON_COMPACT);
        if (n == 0 || (text = zb_arena_alloc(w->p->arena, n + 1)) == NULL) {
            rc = zb_fail_oom(w->ctx);
        } else {
            json_dumpb(list, text, n, JSON_COMPACT);
            text[n] = '\0';
            w->p->values[slot] = text;
        }
    }
    json_decref(list);
    return rc;
}

/* trino: or spark: - a mapping of scalars from a fixed set. */
static int walk_section(walk *w, const char *section, const yaml_node_t *key,
                        const yaml_node_t *val)
{
    char dotted[64];
    yaml_node_pair_t *pair;
    int rc;

    if (is_null(val))
        return ZB_OK;
    if (val->type != YAML_MAPPING_NODE)
        return fail_at(w, key, "'%s' must be a mapping of keys",
                       section);
    for (pair = val->data.mapping.pairs.start;
         pair < val->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
        size_t i;
        if (k == NULL || k->type != YAML_SCALAR_NODE)
            return fail_at(w, k ? k : val, "a key of '%s' is not a name",
                           section);
        if (is_secret_key(scalar(k)))
            return refuse_secret(w, k, section);
        snprintf(dotted, sizeof(dotted), "%s.%.40s", section, scalar(k));
        for (i = 0; i < N_SCALARS; i++)
            if (strcmp(scalar_keys[i], dotted) == 0)
                break;
        if (i == N_SCALARS || strlen(scalar(k)) > 40)
            return fail_at(w, k, "unknown key '%s' (known in %s: %s)",
                           dotted, section, strcmp(section, "trino") == 0
                               ? "host, port, user, catalog, version"
                               : "remote, master, catalog");
        if ((rc = set_scalar(w, dotted, k, v)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int walk_root(walk *w, const yaml_node_t *root)
{
    static const char *const top[] = { "uri", "warehouse", "engine", "root",
                                       "memory_budget_bytes", "threads",
                                       "s3_endpoint", "s3_region",
                                       "s3_path_style_access",
                                       "s3_max_attempts",
                                       "s3_max_retry_seconds",
                                       "s3_timeout_seconds",
                                       "s3_multipart_threshold_bytes",
                                       "queue_max_tasks", "max_attempts",
                                       "size_class", "workers",
                                       "drain_timeout", "max_lifetime",
                                       "idle_exit_after", "lease_seconds",
                                       "heartbeat_seconds",
                                       "spill_disk_limit_bytes",
                                       "spill_compression" };
    const size_t n_top = sizeof top / sizeof top[0];
    yaml_node_pair_t *pair;
    int seen_trino = 0, seen_spark = 0, rc;

    if (root == NULL || is_null(root))
        return ZB_OK;
    if (root->type != YAML_MAPPING_NODE)
        return fail_at(w, root, "the profile must be a mapping of keys "
                       "(uri: ..., warehouse: ...)");
    for (pair = root->data.mapping.pairs.start;
         pair < root->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
        const char *name;
        size_t i;

        if (k == NULL || k->type != YAML_SCALAR_NODE)
            return fail_at(w, k ? k : root, "a key is not a name");
        name = scalar(k);
        for (i = 0; i < n_top; i++)
            if (strcmp(name, top[i]) == 0)
                break;
        if (i < n_top)
            rc = set_scalar(w, name, k, v);
        else if (strcmp(name, "operations") == 0)
            rc = set_list(w, &w->p->operations, name, k, v);
        else if (strcmp(name, "tables") == 0)
            rc = set_list(w, &w->p->tables, name, k, v);
        else if (strcmp(name, "size_classes") == 0)
            rc = set_size_classes(w, k, v);
        else if (strcmp(name, "trino") == 0 || strcmp(name, "spark") == 0) {
            int *seen = name[0] == 't' ? &seen_trino : &seen_spark;
            if (*seen)
                return fail_at(w, k, "'%s' is given twice", name);
            *seen = 1;
            rc = walk_section(w, name, k, v);
        } else if (is_secret_key(name))
            rc = refuse_secret(w, k, NULL);
        else
            rc = fail_at(w, k, "unknown key '%.60s' (known: uri, warehouse, "
                         "engine, root, memory_budget_bytes, threads, "
                         "operations, tables, trino, spark, s3_endpoint, "
                         "s3_region, s3_path_style_access, s3_max_*)",
                         name);
        if (rc < 0)
            return rc;
    }
    return ZB_OK;
}

static int yaml_error(zb_ctx *ctx, const char *name, yaml_parser_t *parser)
{
    if (parser->error == YAML_MEMORY_ERROR)
        return zb_fail_oom(ctx);
    return zb_fail(ctx, ZB_EUSAGE, "%s:%u: not valid YAML: %s%s%s", name,
                   (unsigned)parser->problem_mark.line + 1,
                   parser->problem ? parser->problem : "syntax error",
                   parser->context ? " " : "",
                   parser->context ? parser->context : "");
}

int zb_profile_parse(zb_profile **out, zb_ctx *ctx, const char *name,
                     const char *text, size_t len)
{
    zb_profile *p = NULL;
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    int have_parser = 0, have_doc = 0, rc = ZB_OK;
    walk w;

    ZB_ASSERT_ARG(out && ctx && name && (text || len == 0));
    *out = NULL;
    if (len > ZB_PROFILE_MAX_BYTES)
        return zb_fail(ctx, ZB_EUSAGE, "%s: larger than %u bytes", name,
                       ZB_PROFILE_MAX_BYTES);
    if (len > 0 && memchr(text, '\0', len) != NULL)
        return zb_fail(ctx, ZB_EUSAGE, "%s: holds a NUL byte (not a text "
                       "file)", name);
    if ((p = zb_calloc(1, sizeof(*p))) == NULL)
        return zb_fail_oom(ctx);
    if (zb_arena_new(&p->arena, 8 * (size_t)ZB_PROFILE_MAX_BYTES) < 0 ||
        (p->path = zb_arena_strdup(p->arena, name)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (!yaml_parser_initialize(&parser)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    have_parser = 1;
    yaml_parser_set_input_string(
        &parser, (const unsigned char *)(text ? text : ""), len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = yaml_error(ctx, name, &parser);
        goto done;
    }
    have_doc = 1;
    w.p = p;
    w.doc = &doc;
    w.ctx = ctx;
    if ((rc = walk_root(&w, yaml_document_get_root_node(&doc))) < 0)
        goto done;
    /* a second document would be ignored silently: refuse it */
    if (yaml_document_get_root_node(&doc) != NULL) {
        if (!yaml_parser_load(&parser, &extra)) {
            rc = yaml_error(ctx, name, &parser);
            goto done;
        }
        yaml_node_t *r2 = yaml_document_get_root_node(&extra);
        unsigned line = r2 ? node_line(r2) : 0;
        yaml_document_delete(&extra);
        if (r2 != NULL) {
            rc = zb_fail(ctx, ZB_EUSAGE, "%s:%u: a second YAML document "
                         "('---'); the profile is one document", name, line);
            goto done;
        }
    }
    *out = p;
    p = NULL;
done:
    if (have_doc)
        yaml_document_delete(&doc);
    if (have_parser)
        yaml_parser_delete(&parser);
    zb_profile_free(p);
    return rc;
}

int zb_profile_load(zb_profile **out, zb_ctx *ctx, const char *path)
{
    zb_buf text = ZB_BUF_INIT(ZB_PROFILE_MAX_BYTES);
    int rc;

    ZB_ASSERT_ARG(out && ctx && path);
    *out = NULL;
    rc = zb_file_read_capped(&text, NULL, ctx, path, ZB_PROFILE_MAX_BYTES,
                             ZB_FILE_REGULAR);
    if (rc == ZB_OK)
        rc = zb_profile_parse(out, ctx, path, text.ptr, text.len);
    zb_buf_free(&text);
    return rc;
}

const char *zb_profile_path(const zb_profile *p)
{
    return p ? p->path : NULL;
}

const char *zb_profile_get(const zb_profile *p, const char *key,
                           unsigned *line)
{
    if (line)
        *line = 0;
    if (p == NULL || key == NULL)
        return NULL;
    for (size_t i = 0; i < N_SCALARS; i++) {
        if (strcmp(scalar_keys[i], key) == 0) {
            if (line && p->values[i])
                *line = p->lines[i];
            return p->values[i];
        }
    }
    return NULL;
}

static const char *const *get_list(const profile_list *l, size_t *n_out,
                                   unsigned *line)
{
    if (n_out)
        *n_out = l->present ? l->n : 0;
    if (line)
        *line = l->present ? l->line : 0;
    return l->present ? (const char *const *)l->items : NULL;
}

const char *const *zb_profile_operations(const zb_profile *p, size_t *n_out,
                                         unsigned *line)
{
    static const profile_list none = { 0, 0, 0, NULL };
    return get_list(p ? &p->operations : &none, n_out, line);
}

const char *const *zb_profile_tables(const zb_profile *p, size_t *n_out,
                                     unsigned *line)
{
    static const profile_list none = { 0, 0, 0, NULL };
    return get_list(p ? &p->tables : &none, n_out, line);
}

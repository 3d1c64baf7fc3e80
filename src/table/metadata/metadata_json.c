/*
 * table/metadata/metadata_json.c - the checked JSON getters that the metadata
 * parser uses (declared in table/metadata/metadata_int.h), and the writer's
 * dump.
 *
 * Each getter looks up obj[key], treats null as absent, checks the JSON
 * type (and the int32 range where the spec says int), copies strings into
 * the model's arena, and on a problem records ZB_ECORRUPT with the file,
 * where in the document it is ("snapshot 3", "schema 1 field id 7") and
 * the key. They return 1 when the value is present, 0 when an optional
 * one is absent, or the negative rc.
 */
#define ZB_MODULE "table"

#include <stdarg.h>
#include <stdio.h>

#include "table/metadata/metadata_int.h"
#include "util/buf.h"
#include "util/err.h"

int ice_j__fail(ice_parse *p, const char *where, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return zb_fail(p->ctx, ZB_ECORRUPT, "%s: %s: %s", p->src, where, msg);
}

int ice_j__oom(ice_parse *p)
{
    return zb_fail_oom(p->ctx);
}

int ice_j__get(const json_t **out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required)
{
    const json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v)) {
        if (required)
            return ice_j__fail(p, where, "\"%s\" is missing", key);
        return 0;
    }
    *out = v;
    return 1;
}

int ice_j__i64(int64_t *out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required)
{
    const json_t *v = NULL;
    int rc = ice_j__get(&v, p, obj, key, where, required);

    if (rc <= 0)
        return rc;
    if (!json_is_integer(v))
        return ice_j__fail(p, where, "\"%s\" must be an integer", key);
    *out = (int64_t)json_integer_value(v);
    return 1;
}

int ice_j__i32(int32_t *out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required)
{
    int64_t v = 0;
    int rc = ice_j__i64(&v, p, obj, key, where, required);

    if (rc <= 0)
        return rc;
    if (v < INT32_MIN || v > INT32_MAX)
        return ice_j__fail(p, where, "\"%s\" is out of the int range", key);
    *out = (int32_t)v;
    return 1;
}

int ice_j__bool(int *out, ice_parse *p, const json_t *obj, const char *key,
                const char *where, int required)
{
    const json_t *v = NULL;
    int rc = ice_j__get(&v, p, obj, key, where, required);

    if (rc <= 0)
        return rc;
    if (!json_is_boolean(v))
        return ice_j__fail(p, where, "\"%s\" must be true or false", key);
    *out = json_is_true(v);
    return 1;
}

int ice_j__str(const char **out, ice_parse *p, const json_t *obj,
               const char *key, const char *where, int required)
{
    const json_t *v = NULL;
    int rc = ice_j__get(&v, p, obj, key, where, required);
    char *s;

    if (rc <= 0)
        return rc;
    if (!json_is_string(v))
        return ice_j__fail(p, where, "\"%s\" must be a string", key);
    s = zb_arena_strndup(p->arena, json_string_value(v),
                         json_string_length(v));
    if (s == NULL)
        return ice_j__oom(p);
    *out = s;
    return 1;
}

int ice_j__i32_list(const int32_t **out, size_t *n_out, ice_parse *p,
                    const json_t *obj, const char *key, const char *where,
                    int required)
{
    const json_t *v = NULL, *e;
    int32_t *ids;
    size_t i, n;
    int rc = ice_j__get(&v, p, obj, key, where, required);

    if (rc <= 0)
        return rc;
    if (!json_is_array(v))
        return ice_j__fail(p, where, "\"%s\" must be a list", key);
    n = json_array_size(v);
    if ((ids = zb_arena_calloc(p->arena, n ? n : 1, sizeof *ids)) == NULL)
        return ice_j__oom(p);
    json_array_foreach(v, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < INT32_MIN ||
            json_integer_value(e) > INT32_MAX)
            return ice_j__fail(p, where, "\"%s\"[%zu] must be an int", key,
                               i);
        ids[i] = (int32_t)json_integer_value(e);
    }
    *out = ids;
    *n_out = n;
    return 1;
}

/* A list (or absent: *n_out = 0) of objects at obj[key]. */
int ice_j__list(const json_t **out, size_t *n_out, ice_parse *p,
                    const json_t *obj, const char *key, int required)
{
    const json_t *v = NULL;
    int rc = ice_j__get(&v, p, obj, key, "table metadata", required);

    *n_out = 0;
    *out = NULL;
    if (rc <= 0)
        return rc;
    if (!json_is_array(v))
        return ice_j__fail(p, "table metadata", "\"%s\" must be a list",
                           key);
    *out = v;
    *n_out = json_array_size(v);
    return 1;
}

/* A string map (properties, snapshot summary). */
int ice_j__string_map(const ice_kv **out, size_t *n_out, ice_parse *p,
                            const json_t *v, const char *where)
{
    const char *k;
    const json_t *e;
    ice_kv *kv;
    size_t i = 0;

    if (!json_is_object(v))
        return ice_j__fail(p, where, "must be an object");
    if ((kv = zb_arena_calloc(p->arena, json_object_size(v) + 1, sizeof *kv)) == NULL)
        return ice_j__oom(p);
    json_object_foreach((json_t *)v, k, e) {
        if (!json_is_string(e))
            return ice_j__fail(p, where, "value of \"%s\" must be a string",
                               k);
        kv[i].key = zb_arena_strdup(p->arena, k);
        kv[i].value = zb_arena_strndup(p->arena, json_string_value(e),
                                       json_string_length(e));
        if (kv[i].key == NULL || kv[i].value == NULL)
            return ice_j__oom(p);
        i++;
    }
    *out = kv;
    *n_out = i;
    return ZB_OK;
}

typedef struct dump_sink {
    zb_buf *out;
    int failed;
} dump_sink;

/* A failed append is remembered here as well as returned: a document
 * missing a piece must never be reported as written whole, whatever
 * path inside jansson the failure takes. */
static int dump_cb(const char *buffer, size_t size, void *data)
{
    dump_sink *s = data;

    if (s->failed || zb_buf_append(s->out, buffer, size) < 0) {
        s->failed = 1;
        return -1;
    }
    return 0;
}

int ice_json__dump(zb_buf *out, const json_t *v, size_t flags)
{
    dump_sink s = { out, 0 };

    if (json_dump_callback(v, dump_cb, &s, flags | JSON_ENCODE_ANY) < 0 ||
        s.failed)
        return ZB_ENOMEM;
    return ZB_OK;
}


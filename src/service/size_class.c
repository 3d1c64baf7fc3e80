/*
 * service/size_class.c - worker size classes (size_class.h): the JSON
 * list of ZAMBONI_SIZE_CLASSES (jansson), byte sizes with binary units,
 * and the choice of a class for an estimate.
 */
#define ZB_MODULE "queue"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "service/size_class.h"
#include "util/err.h"
#include "util/str.h"

#define GIB ((uint64_t)1 << 30)

void zb_size_classes_default(zb_size_classes *out)
{
    memset(out, 0, sizeof(*out));
    out->n = 1;
    snprintf(out->c[0].name, sizeof(out->c[0].name), "standard");
    out->c[0].cores = 2;
    out->c[0].memory_bytes = 8 * GIB;
    out->c[0].max_jobs = 2;
}

int zb_size_parse_bytes(uint64_t *out, const char *text)
{
    char buf[64];
    size_t n;

    if (text == NULL || (n = strlen(text)) == 0 || n + 2 > sizeof(buf))
        return ZB_EUSAGE;
    /* "8Gi" is util's "8GiB"; K/M/G/T and KiB/KB are its own. */
    memcpy(buf, text, n + 1);
    if (buf[n - 1] == 'i' || buf[n - 1] == 'I') {
        buf[n] = 'B';
        buf[n + 1] = '\0';
    }
    return zb_str_to_bytes(out, buf) == ZB_OK ? ZB_OK : ZB_EUSAGE;
}

/* A positive int field: number, 1..1000000. */
static int int_field(int *out, zb_ctx *ctx, const json_t *e,
                     const char *field, const char *origin, size_t i)
{
    const json_t *v = json_object_get(e, field);
    json_int_t n;

    if (v == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: missing '%s'",
                       origin, i + 1, field);
    if (!json_is_integer(v) || (n = json_integer_value(v)) < 1 ||
        n > 1000000)
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: '%s' must be an "
                       "integer from 1 to 1000000", origin, i + 1, field);
    *out = (int)n;
    return ZB_OK;
}

static int memory_field(uint64_t *out, zb_ctx *ctx, const json_t *e,
                        const char *origin, size_t i)
{
    const json_t *v = json_object_get(e, "memory");
    uint64_t b = 0;

    if (v == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: missing "
                       "'memory'", origin, i + 1);
    if (json_is_integer(v) && json_integer_value(v) > 0)
        b = (uint64_t)json_integer_value(v);
    else if (json_is_string(v) &&
             zb_size_parse_bytes(&b, json_string_value(v)) != ZB_OK)
        b = 0;
    if (b == 0)
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: 'memory' must be "
                       "bytes above 0, a number or a size such as \"8Gi\", "
                       "\"512Mi\"", origin, i + 1);
    *out = b;
    return ZB_OK;
}

static int by_memory(const void *a, const void *b)
{
    const zb_size_class *x = a, *y = b;

    if (x->memory_bytes != y->memory_bytes)
        return x->memory_bytes < y->memory_bytes ? -1 : 1;
    return x->cores - y->cores;
}

static int parse_entry(zb_size_classes *out, zb_ctx *ctx, const json_t *e,
                       const char *origin, size_t i)
{
    zb_size_class *c = &out->c[out->n];
    const json_t *name = json_object_get(e, "name");
    const char *s;
    int k, rc;

    if (!json_is_object(e))
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu is not an object "
                       "with name, cores, memory, max_jobs", origin, i + 1);
    if (!json_is_string(name) || (s = json_string_value(name))[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: 'name' must be "
                       "a non-empty string", origin, i + 1);
    if (strlen(s) >= sizeof(c->name))
        return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: 'name' longer "
                       "than %zu characters", origin, i + 1,
                       sizeof(c->name) - 1);
    for (k = 0; k < out->n; k++)
        if (strcmp(out->c[k].name, s) == 0)
            return zb_fail(ctx, ZB_EUSAGE, "%s: size class %zu: its name "
                           "is size class %d's too", origin, i + 1, k + 1);
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", s);
    if ((rc = int_field(&c->cores, ctx, e, "cores", origin, i)) < 0 ||
        (rc = memory_field(&c->memory_bytes, ctx, e, origin, i)) < 0 ||
        (rc = int_field(&c->max_jobs, ctx, e, "max_jobs", origin, i)) < 0)
        return rc;
    out->n++;
    return ZB_OK;
}

int zb_size_classes_parse_json(zb_size_classes *out, zb_ctx *ctx,
                               const char *json, const char *origin)
{
    json_error_t jerr;
    json_t *root;
    size_t i;
    int rc = ZB_OK;

    memset(out, 0, sizeof(*out));
    if (origin == NULL)
        origin = "size classes";
    if (json == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "%s: empty", origin);
    root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "%s: not JSON (line %d column %d: "
                       "%s)", origin, jerr.line, jerr.column, jerr.text);
    if (!json_is_array(root) || json_array_size(root) == 0)
        rc = zb_fail(ctx, ZB_EUSAGE, "%s: must be a non-empty JSON list of "
                     "{\"name\", \"cores\", \"memory\", \"max_jobs\"}",
                     origin);
    else if (json_array_size(root) > ZB_SIZE_CLASSES_MAX)
        rc = zb_fail(ctx, ZB_EUSAGE, "%s: %zu size classes, at most %d",
                     origin, json_array_size(root), ZB_SIZE_CLASSES_MAX);
    for (i = 0; rc == ZB_OK && i < json_array_size(root); i++)
        rc = parse_entry(out, ctx, json_array_get(root, i), origin, i);
    json_decref(root);
    if (rc < 0) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    qsort(out->c, (size_t)out->n, sizeof(out->c[0]), by_memory);
    return ZB_OK;
}

const zb_size_class *zb_size_class_find(const zb_size_classes *cs,
                                        const char *name)
{
    int i;

    for (i = 0; cs != NULL && name != NULL && i < cs->n; i++)
        if (strcmp(cs->c[i].name, name) == 0)
            return &cs->c[i];
    return NULL;
}

const zb_size_class *zb_size_class_for(const zb_size_classes *cs,
                                       uint64_t need_bytes)
{
    int i;

    if (cs == NULL || cs->n == 0)
        return NULL;
    for (i = 0; i < cs->n; i++)
        if (cs->c[i].memory_bytes >= need_bytes)
            return &cs->c[i];
    return &cs->c[cs->n - 1];
}

const zb_size_class *zb_size_class_up(const zb_size_classes *cs,
                                      const char *name)
{
    int i;

    if (cs == NULL || cs->n == 0)
        return NULL;
    for (i = 0; i < cs->n; i++)
        if (strcmp(cs->c[i].name, name) == 0)
            return i + 1 < cs->n ? &cs->c[i + 1] : &cs->c[i];
    return zb_size_class_find(cs, name);
}

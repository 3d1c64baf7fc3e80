/*
 * plan/read/scan_namemap.c - the table property schema.name-mapping.default
 * (format/spec.md "Column Projection", "Name Mapping Serialization"):
 * a JSON list of {"field-id": id, "names": [...], "fields": [...]},
 * which tells readers the field ids of files written without them.
 */
#define ZB_MODULE "plan"

#include <jansson.h>
#include <string.h>

#include "plan/read/scan_read_int.h"
#include "util/err.h"

static int parse_list(zb_nm_field *parent, zb_arena *arena, zb_ctx *ctx,
                      const json_t *list, int depth)
{
    size_t i, j;

    if (depth > ICE_MAX_TYPE_DEPTH)
        return zb_fail(ctx, ZB_ECORRUPT, "name mapping nests deeper than %d",
                       ICE_MAX_TYPE_DEPTH);
    if (!json_is_array(list))
        return zb_fail(ctx, ZB_ECORRUPT, "name mapping: expected a list of "
                       "fields");
    parent->n_fields = json_array_size(list);
    parent->fields = zb_arena_calloc(arena, parent->n_fields + 1,
                                     sizeof *parent->fields);
    if (parent->fields == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < parent->n_fields; i++) {
        const json_t *e = json_array_get(list, i);
        const json_t *id = json_object_get(e, "field-id");
        const json_t *names = json_object_get(e, "names");
        const json_t *fields = json_object_get(e, "fields");
        zb_nm_field *f = &parent->fields[i];
        int rc;

        if (!json_is_object(e))
            return zb_fail(ctx, ZB_ECORRUPT, "name mapping: entry %zu is not "
                           "an object", i);
        f->id = -1;
        if (id && !json_is_null(id)) {
            if (!json_is_integer(id) || json_integer_value(id) < 0 ||
                json_integer_value(id) > INT32_MAX)
                return zb_fail(ctx, ZB_ECORRUPT, "name mapping: entry %zu: "
                               "bad field-id", i);
            f->id = (int32_t)json_integer_value(id);
        }
        if (!json_is_array(names))
            return zb_fail(ctx, ZB_ECORRUPT, "name mapping: entry %zu: "
                           "names is not a list", i);
        f->n_names = json_array_size(names);
        f->names = zb_arena_calloc(arena, f->n_names + 1, sizeof *f->names);
        if (f->names == NULL)
            return zb_fail_oom(ctx);
        for (j = 0; j < f->n_names; j++) {
            const json_t *s = json_array_get(names, j);
            if (!json_is_string(s))
                return zb_fail(ctx, ZB_ECORRUPT, "name mapping: entry %zu: "
                               "a name is not a string", i);
            if ((f->names[j] = zb_arena_strdup(arena, json_string_value(s)))
                == NULL)
                return zb_fail_oom(ctx);
        }
        if (fields && !json_is_null(fields) &&
            (rc = parse_list(f, arena, ctx, fields, depth + 1)) < 0)
            return rc;
    }
    return ZB_OK;
}

const zb_nm_field *zb_scan__nm_find(const zb_nm_field *nm, int32_t id)
{
    size_t i;

    for (i = 0; nm && i < nm->n_fields; i++)
        if (nm->fields[i].id == id)
            return &nm->fields[i];
    return NULL;
}

int zb_scan__name_mapping_parse(zb_nm_field *root, zb_arena *arena,
                                zb_ctx *ctx, const char *json)
{
    json_error_t jerr;
    json_t *doc;
    int rc;

    memset(root, 0, sizeof *root);
    root->id = -1;
    doc = json_loads(json, 0, &jerr);
    if (doc == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "name mapping: %s at line %d "
                       "column %d", jerr.text, jerr.line, jerr.column);
    rc = parse_list(root, arena, ctx, doc, 0);
    json_decref(doc);
    return rc;
}

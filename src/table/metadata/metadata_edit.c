/*
 * table/metadata/metadata_edit.c - what the metadata module shares with the
 * commit module (see metadata_edit.h): the document, a model built from a
 * new document, and small JSON helpers. The commit module's updates run in
 * the one metadata transaction, ice_metadata__edit (metadata_write.c): a
 * list of updates is applied in one transaction, so it is all or nothing
 * and costs one rebuild.
 */
#define ZB_MODULE "metadata"

#include <string.h>

#include "table/metadata/metadata_int.h"
#include "util/alloc.h"
#include "util/err.h"

const json_t *ice_metadata__doc(const ice_metadata *m)
{
    return m->internal->doc;
}

int ice_metadata__from_doc(ice_metadata **out, zb_ctx *ctx, json_t *doc,
                           const char *source_uri)
{
    ice_metadata *m;
    int rc;

    *out = NULL;
    if ((m = zb_calloc(1, sizeof *m)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = ice_metadata__build(m, ctx, doc, source_uri)) < 0) {
        zb_free(m);
        return rc;
    }
    *out = m;
    return ZB_OK;
}

int ice_cj__set(zb_ctx *ctx, json_t *obj, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(obj, key, v) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int ice_cj__push(zb_ctx *ctx, json_t *arr, json_t *v)
{
    if (v == NULL || json_array_append_new(arr, v) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int ice_cj__int(int64_t *out, zb_ctx *ctx, const json_t *obj,
                const char *key, const char *what)
{
    const json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return zb_fail(ctx, ZB_EINVAL, "%s: \"%s\" must be an integer", what,
                       key);
    *out = (int64_t)json_integer_value(v);
    return 1;
}

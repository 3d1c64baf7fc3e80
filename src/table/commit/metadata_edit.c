/*
 * table/commit/metadata_edit.c - the metadata transaction the commit module
 * applies its updates in (see table/commit/commit_int.h), next to the setters'
 * own in metadata_write.c: copy the document, edit the copy, rebuild the
 * model with every load check, swap. A list of updates is applied in
 * one such transaction, so it is all or nothing and costs one rebuild.
 */
#define ZB_MODULE "commit"

#include <string.h>
#include <time.h>

#include "table/commit/commit_int.h"
#include "table/metadata/metadata_int.h"
#include "util/alloc.h"
#include "util/err.h"

int ice_metadata__edit(ice_metadata *m, zb_ctx *ctx, ice_edit_fn edit,
                       void *arg)
{
    struct ice_metadata_int *old;
    ice_metadata next;
    json_t *copy;
    int rc;

    ZB_ASSERT_ARG(m && m->internal && ctx && edit);
    if ((copy = json_deep_copy(m->internal->doc)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = edit(copy, m, ctx, arg)) < 0 ||
        (rc = ice_metadata__build(&next, ctx, copy, m->source_uri)) < 0) {
        json_decref(copy);
        return rc;
    }
    old = m->internal;
    *m = next;
    ice_metadata__free_int(old);
    return ZB_OK;
}

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

int64_t ice_commit__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

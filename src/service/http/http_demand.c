/*
 * service/http/http_demand.c - /demand's answer for KEDA's metrics-api
 * scaler: {"class": "NAME", "demand": N} (http.h).
 */
#define ZB_MODULE "http"

#include <string.h>

#include <jansson.h>

#include "service/http/http.h"
#include "util/alloc.h"
#include "util/err.h"

/* json_dump_callback's sink: straight into the answer's buffer. */
static int dump_to_buf(const char *text, size_t n, void *payload)
{
    return zb_buf_append(payload, text, n) == ZB_OK ? 0 : -1;
}

static int put_json(zb_buf *out, zb_ctx *ctx, json_t *j)
{
    int rc;

    if (j == NULL)
        return zb_fail_oom(ctx);
    rc = json_dump_callback(j, dump_to_buf, out, JSON_PRESERVE_ORDER);
    json_decref(j);
    if (rc < 0 || zb_buf_putc(out, '\n') < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int zb_http_demand_json(zb_buf *out, int *status, zb_ctx *ctx, zb_queue *q,
                        const zb_size_classes *classes, const char *cls)
{
    zb_size_classes def;
    json_t *j, *names;
    int64_t n = 0;
    int i, rc;

    ZB_ASSERT_ARG(out != NULL && status != NULL && q != NULL);
    if (classes == NULL || classes->n == 0) {
        zb_size_classes_default(&def);
        classes = &def;
    }
    if (cls == NULL || cls[0] == '\0') {
        *status = 400;
        return put_json(out, ctx, json_pack("{s:s}", "error", "the query "
                                            "parameter class is missing: "
                                            "/demand?class=NAME"));
    }
    if (zb_size_class_find(classes, cls) == NULL) {
        *status = 404;
        if ((names = json_array()) == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < classes->n; i++)
            json_array_append_new(names, json_string(classes->c[i].name));
        j = json_object();
        if (j != NULL) {
            /* NULL when the class (from the URL) is not UTF-8 */
            json_t *e = json_sprintf("unknown size class '%.100s'", cls);
            json_object_set_new(j, "error",
                                e ? e : json_string("unknown size class"));
            json_object_set_new(j, "classes", names);
        } else {
            json_decref(names);
        }
        return put_json(out, ctx, j);
    }
    if ((rc = zb_queue_demand(q, ctx, cls, &n)) < 0) {
        *status = 503;
        return put_json(out, ctx, json_pack("{s:s}", "error", ctx->err.msg));
    }
    *status = 200;
    return put_json(out, ctx, json_pack("{s:s, s:I}", "class", cls, "demand",
                                        (json_int_t)n));
}

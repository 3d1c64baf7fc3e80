/*
 * format/puffin/puffin_write.c - a Puffin file in memory: blobs, then the
 * JSON footer (jansson writes it, keys in the specification's order).
 */
#define ZB_MODULE "puffin"

#include <string.h>

#include <jansson.h>

#include "format/puffin/puffin.h"
#include "util/err.h"

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static json_t *blob_meta(const zb_puffin_blob *b)
{
    json_t *o = json_object(), *fields = json_array(), *props = NULL;
    size_t i;
    int bad = o == NULL || fields == NULL;

    for (i = 0; !bad && i < b->n_fields; i++)
        bad = json_array_append_new(fields, json_integer(b->fields[i])) < 0;
    if (!bad && b->props != NULL) {
        props = json_object();
        bad = props == NULL;
        for (i = 0; !bad && b->props[i] != NULL && b->props[i + 1] != NULL;
             i += 2)
            bad = json_object_set_new(props, b->props[i],
                                      json_string(b->props[i + 1])) < 0;
    }
    if (!bad)
        bad = json_object_set_new(o, "type", json_string(b->type)) < 0 ||
              json_object_set(o, "fields", fields) < 0 ||
              json_object_set_new(o, "snapshot-id",
                                  json_integer(b->snapshot_id)) < 0 ||
              json_object_set_new(o, "sequence-number",
                                  json_integer(b->sequence_number)) < 0 ||
              json_object_set_new(o, "offset",
                                  json_integer((json_int_t)b->offset)) < 0 ||
              json_object_set_new(o, "length",
                                  json_integer((json_int_t)b->len)) < 0 ||
              (props != NULL && json_object_set(o, "properties", props) < 0);
    json_decref(fields);
    json_decref(props);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The FileMetadata JSON of the footer. */
static json_t *footer_json(zb_puffin_blob *blobs, size_t n,
                           const char *created_by)
{
    json_t *root = json_object(), *arr = json_array(), *props = json_object();
    size_t i;
    int bad = root == NULL || arr == NULL || props == NULL;

    for (i = 0; !bad && i < n; i++)
        bad = json_array_append_new(arr, blob_meta(&blobs[i])) < 0;
    if (!bad && created_by != NULL)
        bad = json_object_set_new(props, "created-by",
                                  json_string(created_by)) < 0;
    if (!bad)
        bad = json_object_set(root, "blobs", arr) < 0 ||
              json_object_set(root, "properties", props) < 0;
    json_decref(arr);
    json_decref(props);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int zb_puffin_build(zb_buf *out, zb_ctx *ctx, zb_puffin_blob *blobs,
                    size_t n, const char *created_by)
{
    const size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER;
    uint8_t tail[8];
    json_t *footer;
    size_t i, flen;
    int rc;

    zb_buf_clear(out);
    if (zb_buf_append(out, ZB_PUFFIN_MAGIC, 4) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        blobs[i].offset = out->len;
        if (zb_buf_append(out, blobs[i].data, blobs[i].len) < 0)
            return zb_fail_oom(ctx);
    }
    if (zb_buf_append(out, ZB_PUFFIN_MAGIC, 4) < 0 ||
        (footer = footer_json(blobs, n, created_by)) == NULL)
        return zb_fail_oom(ctx);
    flen = json_dumpb(footer, NULL, 0, flags);
    rc = flen == 0 || flen > INT32_MAX ? ZB_ENOMEM
                                       : zb_buf_reserve(out, flen);
    if (rc == ZB_OK) {
        json_dumpb(footer, out->ptr + out->len, flen, flags);
        out->len += flen;
        out->ptr[out->len] = '\0';
        put_le32(tail, (uint32_t)flen);
        memset(tail + 4, 0, 4);    /* flags: the footer is not compressed */
        if (zb_buf_append(out, tail, sizeof tail) < 0 ||
            zb_buf_append(out, ZB_PUFFIN_MAGIC, 4) < 0)
            rc = ZB_ENOMEM;
    }
    json_decref(footer);
    return rc == ZB_OK ? ZB_OK : zb_fail_oom(ctx);
}

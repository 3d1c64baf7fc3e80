/*
 * exec/arrow/arrow.c - owned Arrow C Data Interface arrays and schemas (see
 * exec/arrow/arrow.h).
 *
 * One allocation holds a node's bookkeeping: the buffer pointer table, the
 * child pointer table and the child structs themselves, so a node is
 * either fully built or not at all. Release walks children first, then
 * frees the buffers and the block, and marks the node released.
 */
#include <stdio.h>
#include <string.h>

#include "exec/arrow/arrow.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct array_block {
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *child_structs;
} array_block;

static void release_array(struct ArrowArray *a)
{
    array_block *b;
    int64_t i;

    if (a == NULL || a->release == NULL)
        return;
    b = a->private_data;
    for (i = 0; i < a->n_children; i++)
        zb_arrow_array_release(a->children[i]);
    if (a->dictionary) {
        zb_arrow_array_release(a->dictionary);
        zb_free(a->dictionary);
    }
    for (i = 0; i < a->n_buffers; i++)
        zb_free((void *)a->buffers[i]);
    zb_free(b);
    a->release = NULL;
}

int zb_arrow_array_init(struct ArrowArray *out, int64_t n_buffers,
                        int64_t n_children)
{
    size_t head = (sizeof(array_block) + 15) & ~(size_t)15;
    size_t nb = (size_t)n_buffers, nc = (size_t)n_children, total;
    unsigned char *mem;
    array_block *b;
    int64_t i;

    memset(out, 0, sizeof *out);
    if (n_buffers < 0 || n_children < 0 || n_buffers > 8 || nc > 1u << 20)
        return ZB_EINVAL;
    total = head + nb * sizeof(void *) + nc * sizeof(struct ArrowArray *) +
            nc * sizeof(struct ArrowArray);
    if ((mem = zb_calloc(1, total)) == NULL)
        return ZB_ENOMEM;
    b = (array_block *)mem;
    b->buffers = (const void **)(mem + head);
    b->children = (struct ArrowArray **)(mem + head + nb * sizeof(void *));
    b->child_structs = (struct ArrowArray *)(mem + head + nb * sizeof(void *) +
                                             nc * sizeof(struct ArrowArray *));
    for (i = 0; i < n_children; i++)
        b->children[i] = &b->child_structs[i];
    out->n_buffers = n_buffers;
    out->n_children = n_children;
    out->buffers = b->buffers;
    out->children = nc ? b->children : NULL;
    out->release = release_array;
    out->private_data = b;
    return ZB_OK;
}

void zb_arrow_array_release(struct ArrowArray *a)
{
    if (a && a->release)
        a->release(a);
}

typedef struct schema_block {
    char *format;
    char *name;
    char *metadata;
    struct ArrowSchema **children;
    struct ArrowSchema *child_structs;
} schema_block;

static void release_schema(struct ArrowSchema *s)
{
    schema_block *b;
    int64_t i;

    if (s == NULL || s->release == NULL)
        return;
    b = s->private_data;
    for (i = 0; i < s->n_children; i++)
        zb_arrow_schema_release(s->children[i]);
    zb_free(b->format);
    zb_free(b->name);
    zb_free(b->metadata);
    zb_free(b->children);
    zb_free(b->child_structs);
    zb_free(b);
    s->release = NULL;
}

int zb_arrow_schema_init(struct ArrowSchema *out, const char *format,
                         const char *name, const char *metadata,
                         size_t metadata_len, int64_t flags,
                         int64_t n_children)
{
    schema_block *b;
    int64_t i;

    memset(out, 0, sizeof *out);
    if (n_children < 0 || n_children > (1 << 20))
        return ZB_EINVAL;
    if ((b = zb_calloc(1, sizeof *b)) == NULL)
        return ZB_ENOMEM;
    if ((b->format = zb_strdup(format)) == NULL ||
        (name && (b->name = zb_strdup(name)) == NULL) ||
        (metadata && (b->metadata = zb_malloc(metadata_len)) == NULL) ||
        (n_children &&
         ((b->children = zb_calloc((size_t)n_children,
                                   sizeof *b->children)) == NULL ||
          (b->child_structs = zb_calloc((size_t)n_children,
                                        sizeof *b->child_structs)) == NULL))) {
        zb_free(b->format);
        zb_free(b->name);
        zb_free(b->metadata);
        zb_free(b->children);
        zb_free(b->child_structs);
        zb_free(b);
        return ZB_ENOMEM;
    }
    if (metadata)
        memcpy(b->metadata, metadata, metadata_len);
    for (i = 0; i < n_children; i++)
        b->children[i] = &b->child_structs[i];
    out->format = b->format;
    out->name = b->name;
    out->metadata = b->metadata;
    out->flags = flags;
    out->n_children = n_children;
    out->children = b->children;
    out->release = release_schema;
    out->private_data = b;
    return ZB_OK;
}

void zb_arrow_schema_release(struct ArrowSchema *s)
{
    if (s && s->release)
        s->release(s);
}

static void put_i32(unsigned char *p, int32_t v)
{
    memcpy(p, &v, 4);   /* the C data interface uses native byte order */
}

int zb_arrow_metadata(char **out, size_t *out_len, const char *const *kv)
{
    size_t n = 4, pairs = 0, i;
    unsigned char *p, *q;

    *out = NULL;
    *out_len = 0;
    for (i = 0; kv[i] && kv[i + 1]; i += 2, pairs++)
        n += 8 + strlen(kv[i]) + strlen(kv[i + 1]);
    if (pairs == 0)
        return ZB_OK;
    if ((p = zb_malloc(n)) == NULL)
        return ZB_ENOMEM;
    put_i32(p, (int32_t)pairs);
    q = p + 4;
    for (i = 0; i < 2 * pairs; i++) {
        size_t l = strlen(kv[i]);
        put_i32(q, (int32_t)l);
        memcpy(q + 4, kv[i], l);
        q += 4 + l;
    }
    *out = (char *)p;
    *out_len = n;
    return ZB_OK;
}

int zb_arrow_metadata_get(char *out, size_t size, const char *metadata,
                          const char *key)
{
    const char *p = metadata;
    size_t klen = strlen(key);
    int32_t n, i, len;

    if (metadata == NULL)
        return 0;
    memcpy(&n, p, 4);
    p += 4;
    for (i = 0; i < n; i++) {
        int match;
        memcpy(&len, p, 4);
        match = (size_t)len == klen && memcmp(p + 4, key, klen) == 0;
        p += 4 + len;
        memcpy(&len, p, 4);
        if (match) {
            size_t v = (size_t)len < size ? (size_t)len : size - 1;
            memcpy(out, p + 4, v);
            out[v] = '\0';
            return 1;
        }
        p += 4 + len;
    }
    return 0;
}

int zb_arrow_schema_field(struct ArrowSchema *out, const char *format,
                          const char *name, int32_t field_id, int nullable,
                          int64_t n_children)
{
    char idtext[16], *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", idtext, NULL };
    int rc;

    snprintf(idtext, sizeof idtext, "%d", (int)field_id);
    if ((rc = zb_arrow_metadata(&md, &md_len, kv)) < 0)
        return rc;
    rc = zb_arrow_schema_init(out, format, name, md, md_len,
                              nullable ? ARROW_FLAG_NULLABLE : 0, n_children);
    zb_free(md);
    return rc;
}

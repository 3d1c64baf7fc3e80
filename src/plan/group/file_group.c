/*
 * plan/group/file_group.c - file grouping (see file_group.h).
 *
 * A bin is found through a JSON object keyed by the spec id and the
 * partition values' binary serialization (hex, so that the key is UTF-8
 * without NULs); its display text is the values in JSON single-value form.
 * A cut sorts the bin by file size, largest first, and takes files while
 * the run stays within max_bytes.
 */
#define ZB_MODULE "plan"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plan/group/file_group.h"
#include "table/value/ice_value.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/vec.h"

#define KEY_MAX ((size_t)1 << 20)

typedef struct bin {
    int32_t spec_id;
    const char *partition;         /* display text, in the arena */
    zb_vec cands;                  /* zb_file_cand */
} bin;

struct zb_file_bins {
    zb_arena *arena;
    json_t *index;                 /* key -> bin index */
    zb_vec bins;                   /* bin, in the order first seen */
    zb_buf key;
    size_t count;
};

int zb_file_bins_new(zb_file_bins **out, zb_ctx *ctx, zb_arena *arena)
{
    zb_file_bins *b;

    *out = NULL;
    if ((b = zb_calloc(1, sizeof *b)) == NULL)
        return zb_fail_oom(ctx);
    b->arena = arena;
    zb_vec_init(&b->bins, sizeof(bin), SIZE_MAX / 2);
    zb_buf_init(&b->key, KEY_MAX);
    if ((b->index = json_object()) == NULL) {
        zb_file_bins_free(b);
        return zb_fail_oom(ctx);
    }
    *out = b;
    return ZB_OK;
}

void zb_file_bins_free(zb_file_bins *b)
{
    size_t i;

    if (b == NULL)
        return;
    for (i = 0; i < b->bins.len; i++)
        zb_vec_free(&((bin *)zb_vec_at(&b->bins, i))->cands);
    zb_vec_free(&b->bins);
    zb_buf_free(&b->key);
    json_decref(b->index);
    zb_free(b);
}

size_t zb_file_bins_count(const zb_file_bins *b)
{
    return b->count;
}

/* "(v1,v2)" in JSON single-value form, and the bin key. */
static int partition_text(char **text, zb_buf *key, zb_ctx *ctx,
                          zb_arena *arena, int32_t spec_id,
                          const ice_data_file *f)
{
    zb_buf t = ZB_BUF_INIT(KEY_MAX);
    size_t i;
    int rc = ZB_OK;

    zb_buf_clear(key);
    if (zb_buf_appendf(key, "%d|", (int)spec_id) < 0 ||
        zb_buf_putc(&t, '(') < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < f->n_partition; i++) {
        const ice_value *v = &f->partition[i];

        if ((i > 0 && zb_buf_putc(&t, ',') < 0) ||
            zb_buf_putc(key, v->is_null ? 'N' : 'V') < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        if (!v->is_null) {
            /* Hex of the binary form (a JSON key must be UTF-8 without
             * NULs), ended by ';' so that keys cannot run together. */
            zb_buf raw = ZB_BUF_INIT(KEY_MAX);
            size_t k;

            if ((rc = ice_value_to_bytes(&raw, ctx, v)) < 0) {
                zb_buf_free(&raw);
                goto done;
            }
            for (k = 0; k < raw.len && rc == ZB_OK; k++)
                if (zb_buf_appendf(key, "%02x",
                                   ((const uint8_t *)raw.ptr)[k]) < 0)
                    rc = zb_fail_oom(ctx);
            zb_buf_free(&raw);
            if (rc < 0 || zb_buf_putc(key, ';') < 0) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
        }
        if (ice_value_to_json(&t, ctx, v) < 0) {
            zb_err_clear(&ctx->err);
            if ((rc = ice_value_to_human(&t, ctx, v)) < 0)
                goto done;
        }
    }
    if (zb_buf_putc(&t, ')') < 0 ||
        (*text = zb_arena_strdup(arena, zb_buf_cstr(&t))) == NULL)
        rc = zb_fail_oom(ctx);
done:
    zb_buf_free(&t);
    return rc;
}

int zb_file_bins_add(zb_file_bins *b, zb_ctx *ctx, const zb_scan_task *t,
                     int mark)
{
    char *text = NULL;
    json_t *hit;
    zb_file_cand *c;
    bin *bn;
    int rc;

    if ((rc = partition_text(&text, &b->key, ctx, b->arena, t->data.spec_id,
                             t->data.file)) < 0)
        return rc;
    hit = json_object_get(b->index, zb_buf_cstr(&b->key));
    if (hit != NULL) {
        bn = zb_vec_at(&b->bins, (size_t)json_integer_value(hit));
    } else {
        if (json_object_set_new(b->index, zb_buf_cstr(&b->key),
                                json_integer((json_int_t)b->bins.len)) < 0 ||
            zb_vec_push(&b->bins, (void **)&bn) < 0)
            return zb_fail_oom(ctx);
        bn->spec_id = t->data.spec_id;
        bn->partition = text;
        zb_vec_init(&bn->cands, sizeof(zb_file_cand), SIZE_MAX / 2);
    }
    if (zb_vec_push(&bn->cands, (void **)&c) < 0)
        return zb_fail_oom(ctx);
    c->mark = mark;
    if ((rc = zb_scan_task_copy(&c->task, ctx, b->arena, t)) < 0) {
        bn->cands.len--;
        return rc;
    }
    b->count++;
    return ZB_OK;
}

static int cmp_size_desc(const void *pa, const void *pb)
{
    const zb_file_cand *a = pa, *b = pb;
    int64_t x = a->task.data.file->file_size_in_bytes;
    int64_t y = b->task.data.file->file_size_in_bytes;

    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->task.data.file->file_path, b->task.data.file->file_path);
}

int zb_file_bins_cut(zb_file_bins *b, zb_ctx *ctx, uint64_t max_bytes,
                     zb_file_run_fn fn, void *payload)
{
    size_t k;
    int rc;

    for (k = 0; k < b->bins.len; k++) {
        bin *bn = zb_vec_at(&b->bins, k);
        zb_file_cand *c = bn->cands.items;
        size_t n = bn->cands.len, i = 0;

        qsort(c, n, sizeof *c, cmp_size_desc);
        while (i < n) {
            zb_file_run run;
            size_t j = i;

            memset(&run, 0, sizeof run);
            while (j < n && (j == i ||
                             run.bytes + (uint64_t)c[j].task.data.file
                                             ->file_size_in_bytes <=
                                 max_bytes)) {
                run.bytes += (uint64_t)c[j].task.data.file->file_size_in_bytes;
                j++;
            }
            run.spec_id = bn->spec_id;
            run.partition = bn->partition;
            run.cands = c + i;
            run.n = j - i;
            if ((rc = fn(&run, ctx, payload)) < 0)
                return rc;
            i = j;
        }
    }
    return ZB_OK;
}

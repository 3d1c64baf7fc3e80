/*
 * format/parquet/read/pq_assemble.c - definition and repetition levels to
 * Arrow arrays (see pq_assemble.h and the level fields of pq_schema.h).
 *
 * Every node reads the triplets of its first leaf: all leaves below a node
 * agree on the node's slots, so any one of them gives its validity and,
 * for a list, its offsets. One pass per node over those triplets:
 *   d < reach_def            the node has no slot here (an ancestor list
 *                            is null or empty)
 *   r <= slot_rep            a new slot; valid when d >= def_present; a
 *                            list starts a new run of elements
 *   d >= def_elem and
 *   r <= rep_elem            (lists) one more element
 * A leaf takes the next present value when d is its maximum. Children are
 * built the same way and must come out as long as their parent says.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/read/pq_assemble.h"
#include "util/alloc.h"

typedef struct levels {
    const uint16_t *defs, *reps;   /* NULL: all zero */
    size_t n;
} levels;

static levels levels_of(const pq_schema *schema, const pq_node *node,
                        pq_leaf_batch *const *batches)
{
    const pq_node *leaf = schema->leaves[node->first_leaf];
    const pq_leaf_batch *b = batches[node->first_leaf];
    levels lv;

    lv.defs = leaf->max_def > 0 ? (const uint16_t *)b->defs.ptr : NULL;
    lv.reps = leaf->max_rep > 0 ? (const uint16_t *)b->reps.ptr : NULL;
    lv.n = b->n_levels;
    return lv;
}

/* Validity bitmap of n bits, all clear; NULL on allocation failure. */
static uint8_t *new_bitmap(size_t n)
{
    return zb_calloc(n / 8 + 1, 1);
}

/* Drops an all-valid bitmap, as Arrow allows. */
static void finish_validity(struct ArrowArray *a, uint8_t *validity)
{
    if (a->null_count == 0) {
        zb_free(validity);
        a->buffers[0] = NULL;
    } else {
        a->buffers[0] = validity;
    }
}

/* Takes a buffer's memory for an Arrow buffer (no copy). */
static uint8_t *take(zb_buf *buf)
{
    uint8_t *p = (uint8_t *)buf->ptr;

    buf->ptr = NULL;
    buf->len = 0;
    buf->cap = 0;
    return p;
}

static int assemble_leaf(struct ArrowArray *out, zb_ctx *ctx,
                         const pq_node *leaf, pq_leaf_batch *b)
{
    const uint16_t *defs = leaf->max_def ? (const uint16_t *)b->defs.ptr : 0;
    int is_bytes = leaf->elem->type == PQ_BYTE_ARRAY &&
                   leaf->conv == PQ_CONV_BYTES;
    size_t len = 0, vi = 0, i, w = leaf->value_width;
    uint8_t *validity = NULL, *data = NULL;
    int32_t *offsets = NULL;
    const int64_t *ends = (const int64_t *)b->offsets.ptr;
    int rc;

    if (leaf->reach_def == 0 || defs == NULL)
        len = b->n_levels;      /* every triplet is a slot */
    else
        for (i = 0; i < b->n_levels; i++)
            len += defs[i] >= leaf->reach_def;
    if ((rc = zb_arrow_array_init(out, is_bytes ? 3 : 2, 0)) < 0)
        return zb_fail_oom(ctx);
    out->length = (int64_t)len;
    if ((validity = new_bitmap(len)) == NULL)
        goto oom;
    if (is_bytes) {
        if (b->data.len > INT32_MAX) {
            zb_free(validity);
            zb_arrow_array_release(out);
            return zb_fail(ctx, ZB_ENOMEM, "column %s: a batch holds more "
                           "than 2 GiB of bytes; use smaller batches",
                           leaf->name);
        }
        /* The values' bytes are already laid out as Arrow wants them. */
        if ((offsets = zb_calloc(len + 1, sizeof *offsets)) == NULL ||
            (b->data.ptr == NULL && zb_buf_reserve(&b->data, 1) < 0))
            goto oom;
        data = take(&b->data);
        out->buffers[1] = offsets;
        out->buffers[2] = data;
    } else if (leaf->conv == PQ_CONV_BOOL) {
        if ((data = new_bitmap(len)) == NULL)
            goto oom;
        out->buffers[1] = data;
    } else if (b->n_values == len && len > 0) {
        /* No nulls: the dense values are the Arrow buffer as they are. */
        out->buffers[1] = take(&b->fixed);
        finish_validity(out, validity);   /* all valid: dropped */
        return ZB_OK;
    } else {
        if ((data = zb_calloc(len ? len : 1, w)) == NULL)
            goto oom;
        out->buffers[1] = data;
    }
    if (b->n_values == len && is_bytes) {
        /* No nulls: the offsets are the values' ends. */
        for (i = 0; i < len; i++)
            offsets[i + 1] = (int32_t)ends[i];
        finish_validity(out, validity);
        return ZB_OK;
    }
    len = 0;
    for (i = 0; i < b->n_levels; i++) {
        unsigned d = defs ? defs[i] : 0;
        if (d < (unsigned)leaf->reach_def)
            continue;
        if (d == (unsigned)leaf->max_def) {
            if (vi >= b->n_values)
                goto corrupt;
            zb_arrow_set_bit(validity, (int64_t)len);
            if (is_bytes)
                offsets[len + 1] = (int32_t)ends[vi];
            else if (leaf->conv == PQ_CONV_BOOL) {
                if (b->fixed.ptr[vi])
                    zb_arrow_set_bit(data, (int64_t)len);
            } else
                memcpy(data + len * w, b->fixed.ptr + vi * w, w);
            vi++;
        } else {
            out->null_count++;
            if (is_bytes)
                offsets[len + 1] = offsets[len];
        }
        len++;
    }
    if (vi != b->n_values)
        goto corrupt;
    finish_validity(out, validity);
    return ZB_OK;
oom:
    zb_free(validity);
    zb_arrow_array_release(out);
    return zb_fail_oom(ctx);
corrupt:
    zb_free(validity);
    zb_arrow_array_release(out);
    return zb_fail(ctx, ZB_ECORRUPT, "column %s: levels and values disagree",
                   leaf->name);
}

static int assemble_node(struct ArrowArray *out, zb_ctx *ctx,
                         const pq_schema *schema, const pq_node *node,
                         pq_leaf_batch *const *batches);

static int assemble_group(struct ArrowArray *out, zb_ctx *ctx,
                          const pq_schema *schema, const pq_node *node,
                          pq_leaf_batch *const *batches)
{
    levels lv = levels_of(schema, node, batches);
    int is_list = node->kind != PQ_NODE_STRUCT;
    size_t len = 0, elems = 0, i;
    uint8_t *validity = NULL;
    int32_t *offsets = NULL;
    int rc;

    for (i = 0; i < lv.n; i++) {
        unsigned d = lv.defs ? lv.defs[i] : 0, r = lv.reps ? lv.reps[i] : 0;
        if (d >= (unsigned)node->reach_def && r <= (unsigned)node->slot_rep)
            len++;
    }
    if ((rc = zb_arrow_array_init(out, is_list ? 2 : 1,
                                  (int64_t)node->n_children)) < 0)
        return zb_fail_oom(ctx);
    out->length = (int64_t)len;
    if ((validity = new_bitmap(len)) == NULL ||
        (is_list && (offsets = zb_calloc(len + 1, sizeof *offsets)) == NULL)) {
        zb_free(validity);
        zb_arrow_array_release(out);
        return zb_fail_oom(ctx);
    }
    if (is_list)
        out->buffers[1] = offsets;
    len = 0;
    for (i = 0; i < lv.n; i++) {
        unsigned d = lv.defs ? lv.defs[i] : 0, r = lv.reps ? lv.reps[i] : 0;
        if (d < (unsigned)node->reach_def)
            continue;
        if (r <= (unsigned)node->slot_rep) {
            if (d >= (unsigned)node->def_present)
                zb_arrow_set_bit(validity, (int64_t)len);
            else
                out->null_count++;
            if (is_list)
                offsets[len] = (int32_t)elems;
            len++;
        }
        if (is_list && d >= (unsigned)node->def_elem &&
            r <= (unsigned)node->rep_elem) {
            if (elems == INT32_MAX) {
                zb_free(validity);
                zb_arrow_array_release(out);
                return zb_fail(ctx, ZB_ENOMEM, "column %s: too many list "
                               "elements in one batch", node->name);
            }
            elems++;
        }
    }
    if (is_list)
        offsets[len] = (int32_t)elems;
    finish_validity(out, validity);
    for (i = 0; i < node->n_children; i++) {
        int64_t want = is_list ? (int64_t)elems : out->length;
        if ((rc = assemble_node(out->children[i], ctx, schema,
                                node->children[i], batches)) < 0) {
            zb_arrow_array_release(out);
            return rc;
        }
        if (out->children[i]->length != want) {
            zb_arrow_array_release(out);
            return zb_fail(ctx, ZB_ECORRUPT, "column %s: its columns disagree "
                           "on the shape of the rows (%lld vs %lld)",
                           node->name,
                           (long long)out->children[i]->length,
                           (long long)want);
        }
    }
    return ZB_OK;
}

static int assemble_node(struct ArrowArray *out, zb_ctx *ctx,
                         const pq_schema *schema, const pq_node *node,
                         pq_leaf_batch *const *batches)
{
    if (node->kind == PQ_NODE_PRIMITIVE)
        return assemble_leaf(out, ctx, node, batches[node->leaf_index]);
    return assemble_group(out, ctx, schema, node, batches);
}

int pq_assemble(struct ArrowArray *out, zb_ctx *ctx, const pq_schema *schema,
                const pq_node *node, pq_leaf_batch *const *batches)
{
    /* Leaf buffers may be handed over to the arrays: callers clear the
     * batches before reading into them again. */
    return assemble_node(out, ctx, schema, node, batches);
}

/*
 * ops/compact/compact_carry_sorted.c - the spilled position map of a sort
 * or z-order rewrite (ops/compact/compact_carry_sorted.h).
 */
#define ZB_MODULE "compact"

#include <string.h>

#include "exec/spill.h"
#include "ops/compact/compact_carry_sorted.h"
#include "util/alloc.h"
#include "util/err.h"

#define BUF_BYTES ((size_t)64 << 10)
#define READ_ENTRIES 8192
#define POS_BITS 40

struct zb_carry_sorted {
    struct ArrowSchema ext;        /* the schema and the source column */
    struct ArrowSchema field;      /* the source column */
    struct ArrowSchema **kids;
    int have_field;
    size_t n_tasks;
    zb_spill *spill;               /* NULL once lost */
    uint64_t entries;              /* written to the spill */
    const char *lost;
    size_t seq_i;                  /* tag_seq's place */
    uint64_t seq_pos;
    uint64_t cut;                  /* taken from the sort's memory */
};

static void no_release(struct ArrowSchema *s)
{
    (void)s;
}

void zb_carry_sorted_lose(zb_carry_sorted *m, const char *why)
{
    if (m->lost == NULL)
        m->lost = why;
    zb_spill_close(m->spill);
    m->spill = NULL;
}

int zb_carry_sorted_new(zb_carry_sorted **out, zb_ctx *ctx,
                        const struct ArrowSchema *schema, size_t n_tasks,
                        zb_reservation *res)
{
    zb_carry_sorted *m = zb_calloc(1, sizeof *m);
    size_t n = schema->n_children > 0 ? (size_t)schema->n_children : 0, i;

    *out = NULL;
    if (m == NULL ||
        (m->kids = zb_calloc(n + 1, sizeof *m->kids)) == NULL ||
        zb_arrow_schema_init(&m->field, "l", "_zb_carry_source", NULL, 0, 0,
                             0) < 0) {
        zb_carry_sorted_free(m);
        return zb_fail_oom(ctx);
    }
    m->have_field = 1;
    for (i = 0; i < n; i++)
        m->kids[i] = schema->children[i];
    m->kids[n] = &m->field;
    m->ext = *schema;
    m->ext.n_children = (int64_t)n + 1;
    m->ext.children = m->kids;
    m->ext.dictionary = NULL;
    m->ext.release = no_release;
    m->ext.private_data = NULL;
    m->n_tasks = n_tasks;
    if ((uint64_t)n_tasks > ZB_CARRY_SORTED_MAX_TASKS)
        m->lost = "it has too many inputs for a sorted position map";
    else {
        /* No room at once: the sort gives the buffer up instead. */
        if (res != NULL && res->budget != NULL &&
            zb_budget_try_grow(res, NULL, res->bytes + BUF_BYTES) != ZB_OK)
            m->cut = BUF_BYTES;
        if (zb_spill_open(&m->spill, ctx, "position map", BUF_BYTES) < 0) {
            zb_err_clear(&ctx->err);
            m->spill = NULL;
            m->lost = "its position map could not be spilled";
        }
    }
    *out = m;
    return ZB_OK;
}

void zb_carry_sorted_free(zb_carry_sorted *m)
{
    if (m == NULL)
        return;
    zb_spill_close(m->spill);
    if (m->have_field)
        zb_arrow_schema_release(&m->field);
    zb_free(m->kids);
    zb_free(m);
}

const struct ArrowSchema *zb_carry_sorted_schema(const zb_carry_sorted *m)
{
    return &m->ext;
}

uint64_t zb_carry_sorted_sort_cut(const zb_carry_sorted *m)
{
    return m != NULL ? m->cut : 0;
}

const char *zb_carry_sorted_lost(const zb_carry_sorted *m)
{
    return m->lost;
}

/* ---- the source column riding through the sort ---- */

/* A batch with one more child: owns the original and the column. */
typedef struct wrapped {
    struct ArrowArray orig;
    struct ArrowArray src;
    struct ArrowArray **kids;
    const void *bufs[1];
} wrapped;

static void release_wrapped(struct ArrowArray *a)
{
    wrapped *w;

    if (a == NULL || a->release == NULL)
        return;
    w = a->private_data;
    zb_arrow_array_release(&w->src);
    zb_arrow_array_release(&w->orig);
    zb_free(w->kids);
    zb_free(w);
    a->release = NULL;
}

static uint64_t pack(zb_carry_sorted *m, uint32_t task, uint64_t pos)
{
    if (m->lost != NULL)
        return 0;
    if (pos >= ZB_CARRY_SORTED_MAX_POS) {
        zb_carry_sorted_lose(m, "a position of its inputs is too large for "
                                "a sorted position map");
        return 0;
    }
    return ((uint64_t)task << POS_BITS) | pos;
}

/* *batch becomes the wrapper of itself; *vals the column's values
 * (batch->offset + length of them; those from offset on are the rows). */
static int wrap(struct ArrowArray *batch, zb_ctx *ctx, int64_t **vals)
{
    wrapped *w = zb_calloc(1, sizeof *w);
    size_t n = batch->n_children > 0 ? (size_t)batch->n_children : 0, i;
    size_t total = (size_t)(batch->offset + batch->length);
    int64_t *v;

    if (w == NULL || (w->kids = zb_calloc(n + 1, sizeof *w->kids)) == NULL ||
        zb_arrow_array_init(&w->src, 2, 0) < 0 ||
        (v = zb_calloc(total ? total : 1, sizeof *v)) == NULL) {
        if (w != NULL) {
            zb_arrow_array_release(&w->src);
            zb_free(w->kids);
        }
        zb_free(w);
        zb_arrow_array_release(batch);
        return zb_fail_oom(ctx);
    }
    w->src.buffers[1] = v;
    w->src.length = (int64_t)total;
    w->orig = *batch;
    for (i = 0; i < n; i++)
        w->kids[i] = batch->children[i];
    w->kids[n] = &w->src;
    w->bufs[0] = batch->n_buffers > 0 ? batch->buffers[0] : NULL;
    batch->n_buffers = 1;
    batch->buffers = w->bufs;
    batch->n_children = (int64_t)n + 1;
    batch->children = w->kids;
    batch->dictionary = NULL;
    batch->release = release_wrapped;
    batch->private_data = w;
    *vals = v + batch->offset;
    return ZB_OK;
}

int zb_carry_sorted_tag(zb_carry_sorted *m, zb_ctx *ctx,
                        struct ArrowArray *batch, uint32_t task,
                        uint64_t pos0, const uint32_t *sel, size_t nsel)
{
    int64_t *v, i;
    int rc;

    if ((rc = wrap(batch, ctx, &v)) < 0)
        return rc;
    if ((int64_t)nsel != batch->length)
        zb_carry_sorted_lose(m, "its row stream did not say where a "
                                "batch's rows came from");
    for (i = 0; i < batch->length; i++)
        v[i] = (int64_t)pack(m, task, pos0 + (sel ? sel[i] : (uint64_t)i));
    return ZB_OK;
}

int zb_carry_sorted_tag_seq(zb_carry_sorted *m, zb_ctx *ctx,
                            struct ArrowArray *batch, const uint32_t *task,
                            const int64_t *rows, size_t n)
{
    int64_t *v, i;
    int rc;

    if ((rc = wrap(batch, ctx, &v)) < 0)
        return rc;
    for (i = 0; i < batch->length; i++) {
        while (m->seq_i < n && (rows[m->seq_i] <= 0 ||
                                m->seq_pos >= (uint64_t)rows[m->seq_i])) {
            m->seq_i++;
            m->seq_pos = 0;
        }
        if (m->seq_i >= n) {
            zb_carry_sorted_lose(m, "its inputs held more rows than their "
                                    "record counts");
            v[i] = 0;
            continue;
        }
        v[i] = (int64_t)pack(m, task[m->seq_i], m->seq_pos++);
    }
    return ZB_OK;
}

int zb_carry_sorted_untag(zb_carry_sorted *m, zb_ctx *ctx,
                          struct ArrowArray *batch)
{
    struct ArrowArray *c;
    const int64_t *v;
    zb_err saved;
    int rc;

    if (batch->n_children != m->ext.n_children || batch->length < 0)
        return zb_fail(ctx, ZB_EINVAL, "position map: a sorted batch has "
                       "%lld columns, not %lld",
                       (long long)batch->n_children,
                       (long long)m->ext.n_children);
    c = batch->children[batch->n_children - 1];
    if (m->spill != NULL && batch->length > 0) {
        v = (const int64_t *)c->buffers[1] + batch->offset + c->offset;
        zb_err_copy(&saved, &ctx->err);
        if ((rc = zb_spill_write(m->spill, ctx, v,
                                 (size_t)batch->length * sizeof *v)) < 0) {
            zb_carry_sorted_lose(m, rc == ZB_ENOMEM && zb_spill_limit() > 0
                                        ? "its position map passed the "
                                          "spill disk limit"
                                        : "its position map could not be "
                                          "spilled");
            zb_err_copy(&ctx->err, &saved);
        } else {
            m->entries += (uint64_t)batch->length;
        }
    }
    zb_arrow_array_release(c);
    batch->n_children--;
    return ZB_OK;
}

void zb_carry_sorted_finish(zb_carry_sorted *m, zb_ctx *ctx,
                            uint64_t rows_written)
{
    zb_err saved;
    int rc;

    if (m->lost != NULL)
        return;
    if (m->entries != rows_written) {
        zb_carry_sorted_lose(m, "its position map does not cover the rows "
                                "written");
        return;
    }
    zb_err_copy(&saved, &ctx->err);
    if ((rc = zb_spill_drop_buffer(m->spill, ctx)) < 0) {
        zb_carry_sorted_lose(m, rc == ZB_ENOMEM && zb_spill_limit() > 0
                                    ? "its position map passed the spill "
                                      "disk limit"
                                    : "its position map could not be "
                                      "spilled");
        zb_err_copy(&ctx->err, &saved);
    }
}

/* ---- reading it at carry time ---- */

int zb_carry_sorted_map(zb_carry_sorted *m, zb_ctx *ctx,
                        zb_roaring *const *pos, size_t n_tasks,
                        const int64_t *out_rows, size_t n_out,
                        zb_roaring **per_out, uint64_t *rows)
{
    uint64_t *buf, total = 0, k = 0, end;
    size_t f = 0, i, got;
    int rc;

    *rows = 0;
    if (m->lost != NULL || m->spill == NULL)
        return zb_fail(ctx, ZB_EINVAL, "position map: lost (%s)",
                       m->lost ? m->lost : "no spill");
    for (i = 0; i < n_out; i++) {
        if (out_rows[i] < 0)
            return zb_fail(ctx, ZB_EINVAL, "position map: output %zu has "
                           "no record count", i);
        total += (uint64_t)out_rows[i];
    }
    if (total != m->entries)
        return zb_fail(ctx, ZB_EINVAL, "position map: %llu entries, the "
                       "outputs hold %llu rows",
                       (unsigned long long)m->entries,
                       (unsigned long long)total);
    if ((buf = zb_malloc(READ_ENTRIES * sizeof *buf)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_spill_rewind(m->spill, ctx)) < 0)
        goto done;
    end = n_out > 0 ? (uint64_t)out_rows[0] : 0;
    while (k < total) {
        size_t want = total - k < READ_ENTRIES ? (size_t)(total - k)
                                               : READ_ENTRIES;

        if ((rc = zb_spill_read_full(m->spill, ctx, buf,
                                     want * sizeof *buf)) < 0)
            goto done;
        got = want;
        for (i = 0; i < got; i++, k++) {
            uint64_t task = buf[i] >> POS_BITS;
            uint64_t p = buf[i] & (ZB_CARRY_SORTED_MAX_POS - 1);

            while (k >= end && f + 1 < n_out)
                end += (uint64_t)out_rows[++f];
            if (task >= n_tasks || pos[task] == NULL ||
                !zb_roaring_contains(pos[task], p))
                continue;
            if (per_out[f] == NULL && zb_roaring_new(&per_out[f]) < 0) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            if (zb_roaring_add(per_out[f], k - (end - (uint64_t)
                                                   out_rows[f])) < 0) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            (*rows)++;
        }
    }
    rc = ZB_OK;
done:
    zb_free(buf);
    return rc;
}

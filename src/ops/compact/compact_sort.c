/*
 * ops/compact/compact_sort.c - the sort and z-order strategies of compaction
 * (ops/compact/compact.h): the sort columns (given, or the table's default sort
 * order with identity transforms), resolved by field id against the
 * output's Arrow schema into exec/sort/sortkey.h paths, and the external
 * sort (exec/sort/xsort.h) a group's rows go through.
 *
 * zb_compact__sort_fields checks the options against the table before
 * anything runs; zb_compact__xsort_new makes one group's sort, lending
 * it the group's reservation: the sort part of the estimate
 * (zb_compact__sort_memory) is already held, and the sort grows the
 * reservation past it only when the budget has room at once.
 */
#define ZB_MODULE "compact"

#include <stdlib.h>
#include <string.h>

#include "ops/compact/compact_int.h"
#include "util/alloc.h"
#include "util/err.h"

int zb_compact__sort_fields(zb_compact_sort_field **out, size_t *n,
                            int32_t *order_id, zb_ctx *ctx,
                            const ice_metadata *m, const zb_compact_opts *o)
{
    const ice_sort_order *so;
    zb_compact_sort_field *f;
    size_t i;

    *out = NULL;
    *n = 0;
    *order_id = -1;
    if (o->strategy == ZB_COMPACT_BINPACK)
        return ZB_OK;
    if (o->strategy == ZB_COMPACT_ZORDER &&
        (o->n_sort_fields < 2 || o->n_sort_fields > 16))
        return zb_fail(ctx, ZB_EINVAL, "%s: z-order takes 2 to 16 columns, "
                       "not %zu", m->location, o->n_sort_fields);
    if (o->n_sort_fields > 0) {
        if ((f = zb_calloc(o->n_sort_fields, sizeof *f)) == NULL)
            return zb_fail_oom(ctx);
        memcpy(f, o->sort_fields, o->n_sort_fields * sizeof *f);
        *out = f;
        *n = o->n_sort_fields;
        return ZB_OK;
    }
    so = ice_metadata_sort_order(m, m->default_sort_order_id);
    if (so == NULL || so->n_fields == 0)
        return zb_fail(ctx, ZB_EINVAL, "%s: sort compaction without columns "
                       "needs a table sort order; the table is unsorted",
                       m->location);
    if ((f = zb_calloc(so->n_fields, sizeof *f)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < so->n_fields; i++) {
        if (strcmp(so->fields[i].transform, "identity") != 0) {
            zb_free(f);
            return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: sort order %d sorts "
                           "by %s(%d): only identity sort fields are "
                           "supported yet", m->location, (int)so->order_id,
                           so->fields[i].transform,
                           (int)so->fields[i].source_id);
        }
        f[i].field_id = so->fields[i].source_id;
        f[i].descending = so->fields[i].direction == ICE_SORT_DESC;
        f[i].nulls_first = so->fields[i].null_order == ICE_NULLS_FIRST;
    }
    *out = f;
    *n = so->n_fields;
    *order_id = so->order_id;
    return ZB_OK;
}

/* The child path of field id in a struct schema; depth 0: not found. */
static int find_path(zb_sort_col *c, const struct ArrowSchema *s,
                     int32_t id, int depth)
{
    int64_t i;

    if (depth >= ZB_SORTKEY_MAX_DEPTH || strcmp(s->format, "+s") != 0)
        return 0;
    for (i = 0; i < s->n_children; i++) {
        const struct ArrowSchema *ch = s->children[i];
        char text[24];

        c->path[depth] = (int)i;
        if (zb_arrow_metadata_get(text, sizeof text, ch->metadata,
                                  "PARQUET:field_id") &&
            strtol(text, NULL, 10) == (long)id) {
            c->depth = depth + 1;
            return 1;
        }
        if (find_path(c, ch, id, depth + 1))
            return 1;
    }
    return 0;
}

int zb_compact__xsort_new(zb_xsort **out, zb_ctx *ctx,
                          const struct ArrowSchema *schema,
                          const zb_compact_opts *o,
                          const zb_compact_sort_field *fields, size_t n,
                          uint64_t sort_bytes, size_t out_batch_rows,
                          zb_reservation *res, const char *table)
{
    zb_xsort_opts xo = ZB_XSORT_OPTS_INIT;
    zb_sort_col *cols;
    size_t i;
    int rc;

    *out = NULL;
    if ((cols = zb_calloc(n + 1, sizeof *cols)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        if (!find_path(&cols[i], schema, fields[i].field_id, 0)) {
            zb_free(cols);
            return zb_fail(ctx, ZB_EINVAL, "%s: sort column %d is not a "
                           "field of the current schema", table,
                           (int)fields[i].field_id);
        }
        cols[i].descending = fields[i].descending;
        cols[i].nulls_first = fields[i].nulls_first;
    }
    xo.key.mode = o->strategy == ZB_COMPACT_ZORDER ? ZB_SORTKEY_ZORDER
                                                   : ZB_SORTKEY_LEXICAL;
    xo.key.cols = cols;
    xo.key.ncols = n;
    xo.key.zorder_bits = o->zorder_bits ? o->zorder_bits : 16;
    xo.max_memory_bytes = sort_bytes;
    /* Output batches no larger than the stream's: files roll between
     * batches. */
    xo.out_batch_rows = out_batch_rows;
    /* A run's rows gathered on a second thread while it is written,
     * the final merge ahead of the writer: the same files. */
    xo.threads = o->threads > 1 ? 2 : 1;
    if (res != NULL && res->budget != NULL) {
        xo.reservation = res;
        xo.reservation_keep_bytes = res->bytes > xo.max_memory_bytes
                                        ? res->bytes - xo.max_memory_bytes
                                        : 0;
    }
    rc = zb_xsort_new(out, ctx, schema, &xo);
    zb_free(cols);
    if (rc < 0)
        zb_err_prefix(ctx, "%s: sorting", table);
    return rc;
}

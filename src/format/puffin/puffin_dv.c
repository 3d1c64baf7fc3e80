/*
 * format/puffin/puffin_dv.c - a deletion-vector blob (format/puffin/
 * puffin.h): the one place that knows which properties the spec asks of
 * one, so that compaction's carried deletes and the test writers fill it
 * the same way.
 */
#include <stdio.h>

#include "exec/roaring/roaring.h"
#include "format/puffin/puffin.h"
#include "util/err.h"

static const int32_t dv_field = ZB_PUFFIN_DV_FIELD;

int zb_puffin_dv_blob(zb_puffin_blob *b, zb_buf *dv, zb_ctx *ctx,
                      zb_arena *arena, const struct zb_roaring *r,
                      const char *referenced)
{
    const char **props;
    char card[24];
    int rc;

    props = zb_arena_calloc(arena, 5, sizeof *props);
    snprintf(card, sizeof card, "%llu",
             (unsigned long long)zb_roaring_cardinality(r));
    if (props == NULL || (props[3] = zb_arena_strdup(arena, card)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_dv_build(dv, ctx, r)) < 0)
        return rc;
    props[0] = "referenced-data-file";
    props[1] = referenced;
    props[2] = "cardinality";
    b->type = ZB_PUFFIN_DV_TYPE;
    b->fields = &dv_field;
    b->n_fields = 1;
    b->snapshot_id = -1;
    b->sequence_number = -1;
    b->data = dv->ptr;
    b->len = dv->len;
    b->props = props;
    return ZB_OK;
}

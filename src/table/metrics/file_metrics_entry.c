/*
 * table/metrics/file_metrics_entry.c - a manifest's data_file record from the
 * metrics of a file just written: what compaction and the table-writing API put
 * in the manifests they add.
 */
#define ZB_MODULE "metrics"

#include <string.h>

#include "table/metrics/file_metrics.h"
#include "util/err.h"

/* Counts of one kind over the columns that have it, into arena. */
static int long_map(ice_long_map *out, zb_arena *arena,
                    const ice_data_file_metrics *dm, int which)
{
    ice_metric_long *items;
    size_t i, n = 0;

    items = zb_arena_calloc(arena, dm->n_columns ? dm->n_columns : 1,
                            sizeof *items);
    if (items == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < dm->n_columns; i++) {
        const ice_column_metrics *c = &dm->columns[i];
        int has = which == 0 ? c->has_column_size
                : which == 1 ? c->has_value_count
                : which == 2 ? c->has_null_count : c->has_nan_count;
        int64_t v = which == 0 ? c->column_size
                  : which == 1 ? c->value_count
                  : which == 2 ? c->null_count : c->nan_count;
        if (!has)
            continue;
        items[n].field_id = c->field_id;
        items[n].value = v;
        n++;
    }
    out->has = 1;
    out->n = n;
    out->items = items;
    return ZB_OK;
}

static int bytes_map(ice_bytes_map *out, zb_arena *arena,
                     const ice_data_file_metrics *dm, int upper)
{
    ice_metric_bytes *items;
    size_t i, n = 0;

    items = zb_arena_calloc(arena, dm->n_columns ? dm->n_columns : 1,
                            sizeof *items);
    if (items == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < dm->n_columns; i++) {
        const ice_column_metrics *c = &dm->columns[i];
        const uint8_t *p = upper ? c->upper : c->lower;
        if (p == NULL)
            continue;
        items[n].field_id = c->field_id;
        items[n].ptr = p;
        items[n].len = upper ? c->upper_len : c->lower_len;
        n++;
    }
    out->has = 1;
    out->n = n;
    out->items = items;
    return ZB_OK;
}

int ice_data_file_from_metrics(ice_data_file *f, zb_ctx *ctx,
                               zb_arena *arena,
                               const ice_data_file_metrics *dm,
                               ice_file_content content, const char *path)
{
    memset(f, 0, sizeof *f);
    f->content = content;
    f->file_path = zb_arena_strdup(arena, path);
    f->file_format = "PARQUET";
    f->record_count = dm->record_count;
    f->file_size_in_bytes = dm->file_size_bytes;
    f->block_size_in_bytes = ICE_NULL_LONG;
    f->first_row_id = ICE_NULL_LONG;
    f->content_offset = ICE_NULL_LONG;
    f->content_size_in_bytes = ICE_NULL_LONG;
    if (f->file_path == NULL ||
        long_map(&f->column_sizes, arena, dm, 0) < 0 ||
        long_map(&f->value_counts, arena, dm, 1) < 0 ||
        long_map(&f->null_value_counts, arena, dm, 2) < 0 ||
        long_map(&f->nan_value_counts, arena, dm, 3) < 0 ||
        bytes_map(&f->lower_bounds, arena, dm, 0) < 0 ||
        bytes_map(&f->upper_bounds, arena, dm, 1) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "no memory for the metrics of %s",
                       path);
    f->has_split_offsets = dm->n_split_offsets > 0;
    f->n_split_offsets = dm->n_split_offsets;
    f->split_offsets = dm->split_offsets;
    return ZB_OK;
}

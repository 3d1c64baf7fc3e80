/*
 * table/commit/commit_snap_file.c - what the snapshot producer (commit_snap.c)
 * needs to know about one file: a deep copy of an ice_data_file into an
 * arena, an estimate of its size in a manifest (to roll manifests at the
 * target size), the key of its partition (to count changed partitions),
 * and the summary counters Iceberg Java's SnapshotSummary.UpdateMetrics
 * keeps per added or removed file.
 */
#define ZB_MODULE "commit"

#include <string.h>

#include "table/commit/commit_snap_int.h"
#include "util/err.h"

static void *dup_bytes(zb_arena *a, const void *p, size_t n)
{
    void *d;

    if (p == NULL)
        return NULL;
    if ((d = zb_arena_alloc(a, n ? n : 1)) != NULL && n)
        memcpy(d, p, n);
    return d;
}

static int dup_long_map(zb_arena *a, ice_long_map *m)
{
    if (m->n == 0)
        return 0;
    m->items = dup_bytes(a, m->items, m->n * sizeof *m->items);
    return m->items == NULL;
}

static int dup_bytes_map(zb_arena *a, ice_bytes_map *m)
{
    ice_metric_bytes *it;
    size_t i;

    if (m->n == 0)
        return 0;
    if ((it = dup_bytes(a, m->items, m->n * sizeof *it)) == NULL)
        return 1;
    for (i = 0; i < m->n; i++)
        if (it[i].ptr != NULL &&
            (it[i].ptr = dup_bytes(a, it[i].ptr, it[i].len)) == NULL)
            return 1;
    m->items = it;
    return 0;
}

int ice_snap__copy_file(ice_data_file *dst, zb_ctx *ctx, zb_arena *a,
                        const ice_data_file *src)
{
    ice_value *pv = NULL;
    size_t i;
    int bad = 0;

    *dst = *src;
    if (src->n_partition > 0) {
        if ((pv = dup_bytes(a, src->partition,
                            src->n_partition * sizeof *pv)) == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < src->n_partition; i++)
            if (!pv[i].is_null && (pv[i].type == ICE_STRING ||
                                   pv[i].type == ICE_BINARY ||
                                   pv[i].type == ICE_FIXED) &&
                pv[i].u.bin.ptr != NULL &&
                (pv[i].u.bin.ptr = dup_bytes(a, pv[i].u.bin.ptr,
                                             pv[i].u.bin.len)) == NULL)
                bad = 1;
        dst->partition = pv;
        /* Names and ids belong to a reader; the writer takes its own. */
        dst->partition_names = NULL;
        dst->partition_field_ids = NULL;
    }
    bad |= (dst->file_path = zb_arena_strdup(a, src->file_path)) == NULL;
    bad |= (dst->file_format = zb_arena_strdup(
                a, src->file_format ? src->file_format : "PARQUET")) == NULL;
    bad |= dup_long_map(a, &dst->column_sizes);
    bad |= dup_long_map(a, &dst->value_counts);
    bad |= dup_long_map(a, &dst->null_value_counts);
    bad |= dup_long_map(a, &dst->nan_value_counts);
    bad |= dup_bytes_map(a, &dst->lower_bounds);
    bad |= dup_bytes_map(a, &dst->upper_bounds);
    if (src->key_metadata != NULL)
        bad |= (dst->key_metadata = dup_bytes(a, src->key_metadata,
                                              src->key_metadata_len)) == NULL;
    if (src->n_split_offsets > 0)
        bad |= (dst->split_offsets = dup_bytes(
                    a, src->split_offsets,
                    src->n_split_offsets * sizeof(int64_t))) == NULL;
    if (src->n_equality_ids > 0)
        bad |= (dst->equality_ids = dup_bytes(
                    a, src->equality_ids,
                    src->n_equality_ids * sizeof(int32_t))) == NULL;
    if (src->referenced_data_file != NULL)
        bad |= (dst->referenced_data_file =
                    zb_arena_strdup(a, src->referenced_data_file)) == NULL;
    return bad ? zb_fail_oom(ctx) : ZB_OK;
}

size_t ice_snap__entry_bytes(const ice_data_file *f)
{
    /* Avro varints and the record's fixed fields: about 40 bytes; a
     * metrics map entry an id and a value varint, about 4; a bound its
     * bytes and two length/id varints. Measured against the files
     * written: 20,000 entries with 5-column metrics and 120-byte paths
     * take 318 bytes each, estimated 328. */
    size_t n = 40 + strlen(f->file_path) + 8 * f->n_partition;
    size_t i;

    n += 4 * (f->column_sizes.n + f->value_counts.n +
              f->null_value_counts.n + f->nan_value_counts.n);
    for (i = 0; i < f->lower_bounds.n; i++)
        n += 2 + f->lower_bounds.items[i].len;
    for (i = 0; i < f->upper_bounds.n; i++)
        n += 2 + f->upper_bounds.items[i].len;
    n += 6 * f->n_split_offsets + 3 * f->n_equality_ids;
    if (f->referenced_data_file != NULL)
        n += strlen(f->referenced_data_file);
    return n + f->key_metadata_len;
}

int ice_snap__partition_key(zb_buf *out, zb_ctx *ctx, int32_t spec_id,
                            const ice_data_file *f)
{
    static const char hex[] = "0123456789abcdef";
    zb_buf v = ZB_BUF_INIT(1 << 20);
    size_t i, j;
    int rc = ZB_OK;

    zb_buf_clear(out);
    if (zb_buf_appendf(out, "%d", (int)spec_id) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < f->n_partition && rc == ZB_OK; i++) {
        zb_buf_clear(&v);
        if (f->partition[i].is_null) {
            rc = zb_buf_puts(out, "/n") < 0 ? zb_fail_oom(ctx) : ZB_OK;
            continue;
        }
        if ((rc = ice_value_to_bytes(&v, ctx, &f->partition[i])) < 0)
            break;
        if (zb_buf_puts(out, "/v") < 0)
            rc = zb_fail_oom(ctx);
        for (j = 0; j < v.len && rc == ZB_OK; j++)
            if (zb_buf_putc(out, hex[(uint8_t)v.ptr[j] >> 4]) < 0 ||
                zb_buf_putc(out, hex[(uint8_t)v.ptr[j] & 15]) < 0)
                rc = zb_fail_oom(ctx);
    }
    zb_buf_free(&v);
    return rc;
}

void ice_snap__count(ice_snap_counts *c, const ice_data_file *f)
{
    int dv = ice_data_file_is_dv(f);

    c->size += f->file_size_in_bytes;
    switch (f->content) {
    case ICE_CONTENT_DATA:
        c->data_files++;
        c->records += f->record_count;
        break;
    case ICE_CONTENT_POSITION_DELETES:
        c->delete_files++;
        if (dv)
            c->dvs++;
        else
            c->pos_files++;
        c->pos_deletes += f->record_count;
        break;
    case ICE_CONTENT_EQUALITY_DELETES:
        c->delete_files++;
        c->eq_files++;
        c->eq_deletes += f->record_count;
        break;
    }
}

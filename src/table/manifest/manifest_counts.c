/*
 * table/manifest/manifest_counts.c - a snapshot's live data and delete
 * files counted in one walk (see ice_snapshot_live_counts in manifest.h).
 */
#define ZB_MODULE "manifest"

#include <string.h>

#include "table/manifest/manifest.h"
#include "util/err.h"

#define MiB ((uint64_t)1 << 20)

static size_t size_bin(uint64_t bytes)
{
    return bytes < MiB ? 0 : bytes < 16 * MiB ? 1 : bytes < 64 * MiB ? 2
           : bytes < 128 * MiB ? 3 : 4;
}

int ice_snapshot_live_counts(ice_live_counts *out, zb_io *io, zb_ctx *ctx,
                             const ice_metadata *meta,
                             const ice_snapshot *snap,
                             const ice_manifest_opts *opts,
                             int64_t small_below_bytes)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    int rc;

    memset(out, 0, sizeof *out);
    if (snap == NULL)
        return ZB_OK;
    if ((rc = ice_snapshot_iter_open(&it, io, ctx, meta, snap, opts)) < 0)
        return rc;
    while ((rc = ice_snapshot_iter_next(it, ctx, &e, &mf)) > 0) {
        const ice_data_file *f = &e->data_file;
        uint64_t sz = (uint64_t)ice_data_file_stored_bytes(f);

        if (f->content == ICE_CONTENT_DATA) {
            out->data_files++;
            out->data_bytes += sz;
            out->data_rows += f->record_count > 0
                                  ? (uint64_t)f->record_count : 0;
            if ((int64_t)sz < small_below_bytes)
                out->small_data_files++;
            out->size_bins[size_bin(sz)]++;
            continue;
        }
        out->delete_files++;
        out->delete_bytes += sz;
        if (f->content == ICE_CONTENT_EQUALITY_DELETES)
            out->equality_deletes++;
        else if (ice_data_file_is_dv(f))
            out->deletion_vectors++;
        else
            out->position_deletes++;
    }
    ice_snapshot_iter_free(it);
    return rc < 0 ? rc : ZB_OK;
}

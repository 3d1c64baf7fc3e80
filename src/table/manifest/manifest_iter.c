/*
 * table/manifest/manifest_iter.c - the live entries of a snapshot: its manifest
 * list, then each manifest in list order, skipping DELETED entries
 * (format/spec.md "Scan Planning": deleted entries are not used in a
 * scan).
 *
 * State machine: at most one manifest reader is open. ice_snapshot_iter_next
 * drains it; at its end the reader is freed and the next manifest-list
 * entry is read and opened. The manifest-list entry stays valid while its
 * manifest is read because the list reader only resets its arena on its
 * own next call, which comes after the manifest is done. So memory holds
 * one list block, one manifest block and one entry, whatever the size of
 * the snapshot.
 *
 * A keep callback (ice_snapshot_iter_filter) passes over manifests the
 * caller does not want before they are opened (a v1 "manifests" path is
 * opened first: its spec id is in the file).
 *
 * A v1 snapshot may carry "manifests" (a plain list of paths) instead of
 * a manifest list: those are read with a synthesized manifest-list entry
 * (spec id from the manifest's partition-spec-id metadata, sequence
 * number 0), whose entries carry their own snapshot ids as v1 requires.
 */
#define ZB_MODULE "table"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "table/manifest/manifest_int.h"
#include "util/alloc.h"
#include "util/err.h"

#define ITER_MAX_UNKNOWN 32

struct ice_snapshot_iter {
    zb_io *io;
    const ice_metadata *meta;
    const ice_snapshot *snap;
    ice_manifest_opts opts;
    ice_manifest_list_reader *list;
    size_t v1_next;                /* next of snap->manifests */
    ice_manifest_file v1_mf;
    const ice_manifest_file *cur;  /* the open manifest's list entry */
    ice_manifest_reader *m;
    ice_manifest_keep_cb keep;
    void *keep_payload;
    size_t n_unknown;
    char unknown[ITER_MAX_UNKNOWN][64];
};

int ice_snapshot_iter_open(ice_snapshot_iter **out, zb_io *io, zb_ctx *ctx,
                           const ice_metadata *meta, const ice_snapshot *snap,
                           const ice_manifest_opts *opts)
{
    ice_snapshot_iter *it;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(out && io && ctx && meta && snap);
    *out = NULL;
    if ((it = zb_calloc(1, sizeof *it)) == NULL)
        return zb_fail_oom(ctx);
    it->io = io;
    it->meta = meta;
    it->snap = snap;
    if (opts)
        it->opts = *opts;
    else {
        ice_manifest_opts d = ICE_MANIFEST_OPTS_INIT;
        it->opts = d;
    }
    if (snap->manifest_list != NULL) {
        rc = ice_manifest_list_open(&it->list, io, ctx, snap->manifest_list,
                                    meta->format_version, &it->opts);
    } else if (meta->format_version >= 2) {
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: snapshot %lld has no"
                     " manifest-list (required in v%d)",
                     meta->source_uri ? meta->source_uri : "metadata",
                     (long long)snap->snapshot_id, meta->format_version);
    }
    if (rc < 0) {
        ice_snapshot_iter_free(it);
        return rc;
    }
    *out = it;
    return ZB_OK;
}

static void collect_unknown(ice_snapshot_iter *it)
{
    size_t i, j, n = ice_manifest_reader_unknown(it->m);

    for (i = 0; i < n; i++) {
        const char *name = ice_manifest_reader_unknown_name(it->m, i);
        for (j = 0; j < it->n_unknown; j++)
            if (strcmp(it->unknown[j], name) == 0)
                break;
        if (j == it->n_unknown && it->n_unknown < ITER_MAX_UNKNOWN)
            snprintf(it->unknown[it->n_unknown++], sizeof it->unknown[0],
                     "%s", name);
    }
}

void ice_snapshot_iter_filter(ice_snapshot_iter *it,
                              ice_manifest_keep_cb keep, void *payload)
{
    it->keep = keep;
    it->keep_payload = payload;
}

/* Opens the next manifest: 1, 2 when the keep callback passed over
 * one, 0 when there is none, or an rc. */
static int open_any(ice_snapshot_iter *it, zb_ctx *ctx)
{
    const ice_manifest_file *mf = NULL;
    int rc;

    if (it->list != NULL) {
        if ((rc = ice_manifest_list_next(it->list, ctx, &mf)) <= 0)
            return rc;
    } else {
        const char *spec_id;
        if (it->v1_next >= it->snap->n_manifests)
            return 0;
        memset(&it->v1_mf, 0, sizeof it->v1_mf);
        it->v1_mf.manifest_path = it->snap->manifests[it->v1_next++];
        it->v1_mf.manifest_length = -1;
        it->v1_mf.added_snapshot_id = ICE_NULL_LONG;
        it->v1_mf.added_files_count = -1;
        it->v1_mf.existing_files_count = -1;
        it->v1_mf.deleted_files_count = -1;
        it->v1_mf.added_rows_count = -1;
        it->v1_mf.existing_rows_count = -1;
        it->v1_mf.deleted_rows_count = -1;
        it->v1_mf.first_row_id = ICE_NULL_LONG;
        mf = &it->v1_mf;
        if ((rc = ice_manifest_open(&it->m, it->io, ctx, mf, NULL,
                                    it->meta->format_version, &it->opts)) < 0)
            return rc;
        spec_id = ice_manifest_reader_meta(it->m, "partition-spec-id");
        if (spec_id != NULL)
            it->v1_mf.partition_spec_id = (int32_t)strtol(spec_id, NULL, 10);
        if (it->keep != NULL &&
            (rc = it->keep(mf, ctx, it->keep_payload)) <= 0) {
            ice_manifest_free(it->m);
            it->m = NULL;
            return rc < 0 ? rc : 2;
        }
        it->cur = mf;
        return 1;
    }
    if (it->keep != NULL &&
        (rc = it->keep(mf, ctx, it->keep_payload)) <= 0)
        return rc < 0 ? rc : 2;
    if ((rc = ice_manifest_open(&it->m, it->io, ctx, mf, NULL,
                                it->meta->format_version, &it->opts)) < 0)
        return rc;
    it->cur = mf;
    return 1;
}

/* Opens the next manifest the caller keeps: 1, 0 at the end, or an rc. */
static int open_next(ice_snapshot_iter *it, zb_ctx *ctx)
{
    int rc;

    while ((rc = open_any(it, ctx)) == 2)
        ;
    return rc;
}

int ice_snapshot_iter_next(ice_snapshot_iter *it, zb_ctx *ctx,
                           const ice_manifest_entry **entry,
                           const ice_manifest_file **manifest)
{
    const ice_manifest_entry *e;
    int rc;

    *entry = NULL;
    if (manifest)
        *manifest = NULL;
    for (;;) {
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "snapshot %lld: stopped",
                           (long long)it->snap->snapshot_id);
        if (it->m == NULL) {
            if ((rc = open_next(it, ctx)) <= 0)
                return rc;
        }
        if ((rc = ice_manifest_next(it->m, ctx, &e)) < 0)
            return rc;
        if (rc == 0) {
            collect_unknown(it);
            ice_manifest_free(it->m);
            it->m = NULL;
            it->cur = NULL;
            continue;
        }
        if (e->status == ICE_STATUS_DELETED)
            continue;
        *entry = e;
        if (manifest)
            *manifest = it->cur;
        return 1;
    }
}

size_t ice_snapshot_iter_unknown(const ice_snapshot_iter *it)
{
    size_t n = it->n_unknown, i, j;

    /* an open manifest's unknown fields count too */
    if (it->m != NULL) {
        for (i = 0; i < ice_manifest_reader_unknown(it->m); i++) {
            const char *name = ice_manifest_reader_unknown_name(it->m, i);
            for (j = 0; j < it->n_unknown; j++)
                if (strcmp(it->unknown[j], name) == 0)
                    break;
            if (j == it->n_unknown)
                n++;
        }
    }
    return n;
}

const char *ice_snapshot_iter_unknown_name(const ice_snapshot_iter *it,
                                           size_t i)
{
    size_t k, j;

    if (i < it->n_unknown)
        return it->unknown[i];
    if (it->m == NULL)
        return NULL;
    i -= it->n_unknown;
    for (k = 0; k < ice_manifest_reader_unknown(it->m); k++) {
        const char *name = ice_manifest_reader_unknown_name(it->m, k);
        for (j = 0; j < it->n_unknown; j++)
            if (strcmp(it->unknown[j], name) == 0)
                break;
        if (j < it->n_unknown)
            continue;
        if (i-- == 0)
            return name;
    }
    return NULL;
}

void ice_snapshot_iter_free(ice_snapshot_iter *it)
{
    if (it == NULL)
        return;
    ice_manifest_free(it->m);
    ice_manifest_list_free(it->list);
    zb_free(it);
}

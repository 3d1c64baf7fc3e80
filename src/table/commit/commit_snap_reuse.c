/*
 * table/commit/commit_snap_reuse.c - what a build of the snapshot
 * producer (commit_snap.c) takes over from an earlier attempt of the same
 * commit through its cache (table/commit/commit_cache.h): the manifests
 * of the added files of one content (step 3) and the manifests rewritten
 * for the removed files (step 4), when everything they are made of is
 * the same; they are listed again with this attempt's sequence number.
 * A build that writes them hands them to the cache instead of to the
 * attempt's cleanup.
 */
#define ZB_MODULE "commit"

#include <string.h>

#include "table/commit/commit_snap_build.h"
#include "util/alloc.h"
#include "util/err.h"

/*
 * The text the rewritten manifests depend on (commit_cache.h): snapshot
 * id, format, schema, target and codec, the manifests holding removed
 * files in list order, and the removed files.
 */
int ice_snap__reuse_key(bst *b)
{
    const char *k;
    json_t *v;
    int bad;

    zb_buf_clear(&b->reuse_key);
    bad = zb_buf_appendf(&b->reuse_key, "%lld|%d|%d|%lld|%d",
                         (long long)b->id, b->v, (int)b->schema->schema_id,
                         (long long)b->target, (int)b->op->o.codec) < 0;
    json_object_foreach(b->hits, k, v)
        bad |= zb_buf_putc(&b->reuse_key, '|') < 0 ||
               zb_buf_puts(&b->reuse_key, k) < 0;
    bad |= zb_buf_puts(&b->reuse_key, "||") < 0;
    json_object_foreach(b->op->removes, k, v)
        bad |= zb_buf_putc(&b->reuse_key, '|') < 0 ||
               zb_buf_puts(&b->reuse_key, k) < 0;
    return bad ? zb_fail_oom(b->ctx) : ZB_OK;
}

static int list_again(bst *b, const ice_manifest_file *mfs, size_t n);

/* An earlier attempt's rewritten manifests, listed again (1), or 0. */
int ice_snap__list_reused(bst *b)
{
    const ice_manifest_file *mfs;
    const json_t *parts;
    size_t n, i;
    int rc;

    if (!ice_commit_cache__reuse(b->op->o.cache, ICE_COMMIT_CACHE_REWRITE,
                                 zb_buf_cstr(&b->reuse_key),
                                 &mfs, &n, &b->rem, sizeof b->rem, &parts))
        return 0;
    if ((rc = list_again(b, mfs, n)) < 0)
        return rc;
    for (i = 0; i < json_array_size(parts); i++)
        if (json_object_set_new_nocheck(
                b->parts, json_string_value(json_array_get(parts, i)),
                json_true()) < 0)
            return zb_fail_oom(b->ctx);
    return 1;
}

/* This attempt's manifests (b->capture) become the cache's record of
 * slot: the written files [from, n_written) move out of what cleanup
 * deletes. */
static int keep_written(bst *b, int slot, size_t from, const void *counts,
                        size_t counts_len, const json_t *parts)
{
    ice_commit_result *r = b->out;
    char **files;
    size_t n = r->n_written - from, i;

    if ((files = zb_calloc(n + 1, sizeof *files)) == NULL)
        return zb_fail_oom(b->ctx);
    for (i = 0; i < n; i++)
        files[i] = r->written[from + i];
    r->n_written = from;
    return ice_commit_cache__keep(b->op->o.cache, slot, b->ctx, b->op->o.io,
                                  zb_buf_cstr(&b->reuse_key),
                                  b->capture->len ? zb_vec_at(b->capture, 0)
                                                  : NULL,
                                  b->capture->len, counts, counts_len,
                                  parts, files, n);
}

int ice_snap__keep_rewritten(bst *b, size_t from,
                             const json_t *parts_before)
{
    json_t *parts = json_array();
    const char *k;
    json_t *v;
    int rc;

    if (parts == NULL)
        return zb_fail_oom(b->ctx);
    json_object_foreach(b->parts, k, v)
        if (json_object_get(parts_before, k) == NULL &&
            json_array_append_new(parts, json_string(k)) < 0) {
            json_decref(parts);
            return zb_fail_oom(b->ctx);
        }
    rc = keep_written(b, ICE_COMMIT_CACHE_REWRITE, from, &b->rem,
                      sizeof b->rem, parts);
    json_decref(parts);
    return rc;
}

/* Lists an earlier attempt's manifests: only the list's numbers move
 * (their entries' sequence numbers are explicit, or inherited). */
static int list_again(bst *b, const ice_manifest_file *mfs, size_t n)
{
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        ice_manifest_file mf = mfs[i];

        if (mf.min_sequence_number == mf.sequence_number)
            mf.min_sequence_number = b->seq;
        mf.sequence_number = b->seq;
        if ((rc = ice_manifest_list_writer_add(b->lw, b->ctx, &mf)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int spec_of(const bst *b, const added_file *a)
{
    return a->spec_id < 0 ? b->base->default_spec_id : a->spec_id;
}

/* Step 3 with a cache: an earlier attempt's manifests of the same added
 * files (same snapshot id) are listed again. */
int ice_snap__write_added(bst *b, int deletes)
{
    int slot = deletes ? ICE_COMMIT_CACHE_ADDED_DELETES
                       : ICE_COMMIT_CACHE_ADDED_DATA;
    const ice_manifest_file *mfs;
    const json_t *parts;
    zb_vec *v = &b->op->added, capture;
    size_t i, n, from = b->out->n_written;
    int bad, rc, any = 0;

    if (b->op->o.cache == NULL)
        return ice_snap__write_added_files(b, deletes);
    zb_buf_clear(&b->reuse_key);
    bad = zb_buf_appendf(&b->reuse_key, "%lld|%d|%d|%lld|%d|%lld",
                         (long long)b->id, b->v, (int)b->schema->schema_id,
                         (long long)b->target, (int)b->op->o.codec,
                         (long long)b->op->data_seq) < 0;
    for (i = 0; i < v->len; i++) {
        const added_file *a = zb_vec_at(v, i);

        if ((a->f.content != ICE_CONTENT_DATA) != deletes)
            continue;
        any = 1;
        bad |= zb_buf_appendf(&b->reuse_key, "|%d|%s", spec_of(b, a),
                              a->f.file_path) < 0;
    }
    if (bad)
        return zb_fail_oom(b->ctx);
    if (!any)
        return ZB_OK;
    if (ice_commit_cache__reuse(b->op->o.cache, slot,
                                zb_buf_cstr(&b->reuse_key), &mfs, &n, NULL,
                                0, &parts)) {
        for (i = 0; i < v->len; i++) {
            const added_file *a = zb_vec_at(v, i);

            if ((a->f.content != ICE_CONTENT_DATA) != deletes)
                continue;
            if ((rc = ice_snap__note_partition(b, spec_of(b, a), &a->f)) < 0)
                return rc;
            ice_snap__count(&b->add, &a->f);
        }
        return list_again(b, mfs, n);
    }
    zb_vec_init(&capture, sizeof(ice_manifest_file), SIZE_MAX / 2);
    b->capture = &capture;
    rc = ice_snap__write_added_files(b, deletes);
    if (rc >= 0)
        rc = keep_written(b, slot, from, NULL, 0, NULL);
    b->capture = NULL;
    zb_vec_free(&capture);
    return rc;
}


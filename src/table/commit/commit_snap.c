/*
 * table/commit/commit_snap.c - the snapshot producer (see
 * table/commit/commit.h): a list of files to add and to remove becomes the
 * manifests, the manifest list and the add-snapshot / set-snapshot-ref updates
 * of one commit.
 *
 * ice_commit_op_new, then add_file / remove_file / set_summary, then
 * ice_commit_op_build for each attempt (a new base after a conflict),
 * then ice_commit_op_free. A build runs in this order, as Iceberg Java's
 * MergingSnapshotProducer does:
 *   1. pick the snapshot id (random, not in the base), the sequence
 *      number (last + 1 in v2+) and the parent (the branch head);
 *   2. with files to remove, read every manifest of the parent once and
 *      note which manifests hold a live entry of a removed file; a file
 *      not found live is a validation conflict (not retryable) and
 *      nothing is written;
 *   3. open the manifest list, write the added files into new manifests
 *      (data, then deletes; one group per partition spec; rolled at the
 *      target size, estimated from the entries), and add them first;
 *   4. walk the parent's list again: a manifest that holds a removed file
 *      is rewritten (removed entries DELETED with this snapshot's id,
 *      other live entries EXISTING with their sequence numbers, snapshot
 *      ids and first row ids written out, old DELETED entries dropped);
 *      a manifest with no added or existing files is dropped; every other
 *      one is carried over as it is;
 *   5. close the list (v3: it assigns first row ids; the difference is
 *      the snapshot's added-rows) and build the JSON: the summary with
 *      Java's keys and totals carried from the parent's summary, the
 *      snapshot, and the requirements.
 * With a commit cache (opts.cache, table/commit/commit_cache.h) the
 * attempts of one commit share what does not change between them: the
 * snapshot id, step 2's reading of each manifest (by path), and the
 * manifests of steps 3 and 4 when what they are made of is the same
 * (listed again with this attempt's sequence number).
 */
#define ZB_MODULE "commit"

#include <stdio.h>
#include <string.h>

#include "table/commit/commit_snap_build.h"
#include "table/commit/commit_snap_int.h"
#include "table/metadata/table_props.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

#define OP_ARENA_MAX ((size_t)1 << 31)



int64_t *ice_snap__data_seq(ice_commit_op *op)
{
    return &op->data_seq;
}

int ice_commit_op_new(ice_commit_op **out, zb_ctx *ctx,
                      const ice_commit_op_opts *opts)
{
    ice_commit_op *op;
    ice_manifest_opts dflt = ICE_MANIFEST_OPTS_INIT;

    ZB_ASSERT_ARG(out && ctx && opts && opts->io);
    *out = NULL;
    if ((op = zb_calloc(1, sizeof *op)) == NULL)
        return zb_fail_oom(ctx);
    op->o = *opts;
    op->paths = opts->paths ? *opts->paths : dflt;
    zb_vec_init(&op->added, sizeof(added_file), SIZE_MAX / 2);
    if (zb_arena_new(&op->arena, OP_ARENA_MAX) < 0 ||
        (op->removes = json_object()) == NULL ||
        (op->extra = json_object()) == NULL ||
        (opts->root != NULL &&
         (op->o.root = zb_arena_strdup(op->arena, opts->root)) == NULL) ||
        (op->o.branch = zb_arena_strdup(op->arena, opts->branch ?
                                        opts->branch : "main")) == NULL) {
        ice_commit_op_free(op);
        return zb_fail_oom(ctx);
    }
    *out = op;
    return ZB_OK;
}

void ice_commit_op_free(ice_commit_op *op)
{
    if (op == NULL)
        return;
    zb_vec_free(&op->added);
    zb_arena_free(op->arena);
    json_decref(op->removes);
    json_decref(op->extra);
    zb_free(op);
}

int ice_commit_op_add_file(ice_commit_op *op, zb_ctx *ctx, int32_t spec_id,
                           const ice_data_file *f)
{
    added_file *a;
    int rc;

    ZB_ASSERT_ARG(op && ctx && f && f->file_path);
    if (op->o.kind == ICE_OP_DELETE)
        return zb_fail(ctx, ZB_EINVAL, "a delete operation adds no files "
                       "(%s)", f->file_path);
    if ((rc = zb_vec_push(&op->added, (void **)&a)) < 0)
        return zb_fail_oom(ctx);
    a->spec_id = spec_id;
    if ((rc = ice_snap__copy_file(&a->f, ctx, op->arena, f)) < 0) {
        op->added.len--;
        return rc;
    }
    return ZB_OK;
}

int ice_commit_op_remove_file(ice_commit_op *op, zb_ctx *ctx,
                              const char *path)
{
    ZB_ASSERT_ARG(op && ctx && path);
    if (op->o.kind == ICE_OP_APPEND)
        return zb_fail(ctx, ZB_EINVAL, "an append removes no files (%s)",
                       path);
    if (json_object_set_new_nocheck(op->removes, path, json_true()) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int ice_commit_op_set_summary(ice_commit_op *op, zb_ctx *ctx,
                              const char *key, const char *value)
{
    ZB_ASSERT_ARG(op && ctx && key && value);
    if (json_object_set_new_nocheck(op->extra, key, json_string(value)) < 0)
        return zb_fail(ctx, ZB_EINVAL, "summary entry %.60s: not valid "
                       "UTF-8, or out of memory", key);
    return ZB_OK;
}

/* ---- a build -------------------------------------------------------------- */


static int note_written(bst *b, const char *uri)
{
    ice_commit_result *r = b->out;
    char **w;
    char *s;

    if ((s = zb_strdup(uri)) == NULL)
        return zb_fail_oom(b->ctx);
    if ((w = zb_realloc(r->written, (r->n_written + 1) * sizeof *w)) == NULL) {
        zb_free(s);
        return zb_fail_oom(b->ctx);
    }
    w[r->n_written++] = s;
    r->written = w;
    return ZB_OK;
}

int ice_snap__note_partition(bst *b, int32_t spec_id,
                             const ice_data_file *f)
{
    int rc;

    if ((rc = ice_snap__partition_key(&b->key, b->ctx, spec_id, f)) < 0)
        return rc;
    if (json_object_set_new_nocheck(b->parts, zb_buf_cstr(&b->key),
                                    json_true()) < 0)
        return zb_fail_oom(b->ctx);
    return ZB_OK;
}

static int open_manifest(bst *b, ice_manifest_writer **w,
                         ice_manifest_content content, int32_t spec_id)
{
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    const ice_partition_spec *spec = ice_metadata_spec(b->base, spec_id);
    char uri[4096];
    int rc;

    if (spec == NULL)
        return zb_fail(b->ctx, ZB_EINVAL, "%s: partition spec %d does not "
                       "exist", b->base->location, (int)spec_id);
    if ((size_t)snprintf(uri, sizeof uri, "%s/%s-m%d.avro", b->dir, b->uuid,
                         b->n_mf++) >= sizeof uri)
        return zb_fail(b->ctx, ZB_EINVAL, "%s: metadata path too long",
                       b->dir);
    wo.format_version = b->v;
    wo.content = content;
    wo.schema = b->schema;
    wo.spec = spec;
    wo.snapshot_id = b->id;
    wo.sequence_number = b->seq;
    wo.codec = b->op->o.codec;
    if ((rc = note_written(b, uri)) < 0)
        return rc;
    return ice_manifest_writer_open(w, b->op->o.io, b->ctx, uri, &wo);
}

int ice_snap__close_manifest(bst *b, ice_manifest_writer *w)
{
    ice_manifest_file mf;
    int rc;

    if ((rc = ice_manifest_writer_commit(w, b->ctx, &mf, b->arena)) < 0)
        return rc;
    if (b->capture != NULL) {
        ice_manifest_file *c;

        if (zb_vec_push(b->capture, (void **)&c) < 0)
            return zb_fail_oom(b->ctx);
        *c = mf;                   /* its strings are in b->arena */
    }
    return ice_manifest_list_writer_add(b->lw, b->ctx, &mf);
}

/* Step 3: the added files of one content, grouped by spec, rolled. */
int ice_snap__write_added_files(bst *b, int deletes)
{
    zb_vec *v = &b->op->added;
    size_t i, j;
    int rc = ZB_OK;

    for (i = 0; i < v->len; i++) {
        added_file *first = zb_vec_at(v, i);
        int32_t spec = first->spec_id < 0 ? b->base->default_spec_id
                                          : first->spec_id;
        ice_manifest_writer *w = NULL;
        size_t est = 0;
        int seen = 0;

        if ((first->f.content != ICE_CONTENT_DATA) != deletes)
            continue;
        /* Only the first file of each spec starts a group. */
        for (j = 0; j < i && !seen; j++) {
            added_file *o = zb_vec_at(v, j);

            seen = (o->f.content != ICE_CONTENT_DATA) == deletes &&
                   (o->spec_id < 0 ? b->base->default_spec_id
                                   : o->spec_id) == spec;
        }
        if (seen)
            continue;
        for (j = i; j < v->len && rc == ZB_OK; j++) {
            added_file *a = zb_vec_at(v, j);
            ice_manifest_entry e;

            if ((a->f.content != ICE_CONTENT_DATA) != deletes ||
                (a->spec_id < 0 ? b->base->default_spec_id : a->spec_id) !=
                    spec)
                continue;
            if (w == NULL &&
                (rc = open_manifest(b, &w, deletes ? ICE_MANIFEST_DELETES
                                                   : ICE_MANIFEST_DATA,
                                    spec)) < 0)
                break;
            memset(&e, 0, sizeof e);
            e.status = ICE_STATUS_ADDED;
            e.snapshot_id = b->id;
            e.sequence_number = ICE_NULL_LONG;
            e.file_sequence_number = ICE_NULL_LONG;
            e.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
            if (b->op->data_seq > 0 && b->v >= 2) {
                e.sequence_number = b->op->data_seq;
                e.explicit_mask |= ICE_ENTRY_SEQ_EXPLICIT;
            }
            e.data_file = a->f;
            if ((rc = ice_manifest_writer_add(w, b->ctx, &e)) < 0 ||
                (rc = ice_snap__note_partition(b, spec, &a->f)) < 0)
                break;
            ice_snap__count(&b->add, &a->f);
            est += ice_snap__entry_bytes(&a->f);
            if ((int64_t)est >= b->target) {
                rc = ice_snap__close_manifest(b, w);
                w = NULL;
                est = 0;
            }
        }
        if (rc < 0) {
            ice_manifest_writer_abort(w);
            return rc;
        }
        if (w != NULL && (rc = ice_snap__close_manifest(b, w)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int open_list(bst *b, ice_manifest_list_reader **lr)
{
    if (b->parent->manifest_list == NULL)
        return zb_fail(b->ctx, ZB_EUNSUPPORTED, "%s: snapshot %lld has no "
                       "manifest list (a v1 \"manifests\" snapshot)",
                       b->base->location, (long long)b->parent->snapshot_id);
    return ice_manifest_list_open(lr, b->op->o.io, b->ctx,
                                  b->parent->manifest_list, b->v,
                                  &b->op->paths);
}

typedef struct found_st {
    bst *b;
    int hit;
} found_st;

/* A live entry of a manifest that the cache says is in its universe. */
static int note_found(void *payload, zb_ctx *ctx, const char *path,
                      const char *ref, ice_file_content content)
{
    found_st *fs = payload;

    (void)ref;
    (void)content;
    if (json_object_get(fs->b->op->removes, path) == NULL)
        return ZB_OK;
    fs->hit = 1;
    if (json_object_set_new_nocheck(fs->b->found, path, json_true()) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* Step 2: where the removed files are, and are they all live. */
static int scan_removed(bst *b)
{
    ice_manifest_list_reader *lr = NULL;
    ice_manifest_reader *r = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    const char *path;
    json_t *v;
    int rc;

    if (json_object_size(b->op->removes) == 0)
        return ZB_OK;
    if (b->op->o.cache != NULL &&
        (rc = ice_commit_cache_begin(b->op->o.cache, b->ctx,
                                     b->op->removes)) < 0)
        return rc;
    if (b->parent != NULL) {
        if ((rc = open_list(b, &lr)) < 0)
            return rc;
        while ((rc = ice_manifest_list_next(lr, b->ctx, &mf)) > 0) {
            int hit = 0;

            if (b->op->o.cache != NULL) {
                found_st fs = { b, 0 };

                if ((rc = ice_commit_cache_matches(
                         b->op->o.cache, b->ctx, b->op->o.io, mf, b->v,
                         &b->op->paths, note_found, &fs, NULL)) < 0)
                    break;
                if (fs.hit && json_object_set_new_nocheck(
                                  b->hits, mf->manifest_path,
                                  json_true()) < 0) {
                    rc = zb_fail_oom(b->ctx);
                    break;
                }
                continue;
            }

            if ((rc = ice_manifest_open(&r, b->op->o.io, b->ctx, mf, NULL,
                                        b->v, &b->op->paths)) < 0)
                break;
            while ((rc = ice_manifest_next(r, b->ctx, &e)) > 0) {
                if (e->status == ICE_STATUS_DELETED ||
                    json_object_get(b->op->removes,
                                    e->data_file.file_path) == NULL)
                    continue;
                hit = 1;
                if (json_object_set_new_nocheck(b->found,
                                                e->data_file.file_path,
                                                json_true()) < 0) {
                    rc = zb_fail_oom(b->ctx);
                    break;
                }
            }
            ice_manifest_free(r);
            r = NULL;
            if (rc < 0)
                break;
            if (hit && json_object_set_new_nocheck(b->hits, mf->manifest_path,
                                                   json_true()) < 0) {
                rc = zb_fail_oom(b->ctx);
                break;
            }
        }
        ice_manifest_list_free(lr);
        if (rc < 0)
            return rc;
    }
    json_object_foreach(b->op->removes, path, v) {
        if (json_object_get(b->found, path) == NULL)
            return zb_err__set(&b->ctx->err, ZB_ECONFLICT,
                               ICE_COMMIT_VALIDATE_MODULE,
                               "%s: cannot remove %s: it is not a live file "
                               "of %s snapshot %lld", b->base->location, path,
                               b->op->o.branch,
                               (long long)(b->parent ? b->parent->snapshot_id
                                                     : -1));
    }
    return ZB_OK;
}

/*
 * Step 4: the manifests with removed files, rewritten: their entries go
 * into one new manifest per content and spec (rolled at the target), as
 * Java's merging producer does for a rewrite. One new manifest per old
 * one would make a replace of many small appends' files write (and sync)
 * hundreds of manifests, far longer than a busy writer's commits leave
 * between them (issue 21).
 */
typedef struct merged {
    ice_manifest_content content;
    int32_t spec_id;
    ice_manifest_writer *w;
    size_t est;
} merged;

#define MERGED_MAX 16

static int rewrite(bst *b, const ice_manifest_file *mf, merged *m,
                   size_t *n_m)
{
    ice_manifest_reader *r = NULL;
    ice_manifest_writer *w = NULL;
    const ice_manifest_entry *e;
    merged *slot = NULL;
    size_t i;
    int rc;

    for (i = 0; i < *n_m && slot == NULL; i++)
        if (m[i].content == mf->content &&
            m[i].spec_id == mf->partition_spec_id)
            slot = &m[i];
    if (slot == NULL && *n_m < MERGED_MAX) {
        slot = &m[(*n_m)++];
        memset(slot, 0, sizeof *slot);
        slot->content = mf->content;
        slot->spec_id = mf->partition_spec_id;
    }
    if ((rc = ice_manifest_open(&r, b->op->o.io, b->ctx, mf, NULL, b->v,
                                &b->op->paths)) < 0)
        goto done;
    if (slot != NULL && slot->w != NULL) {
        w = slot->w;
        slot->w = NULL;
    } else if ((rc = open_manifest(b, &w, mf->content,
                                   mf->partition_spec_id)) < 0) {
        goto done;
    }
    while ((rc = ice_manifest_next(r, b->ctx, &e)) > 0) {
        ice_manifest_entry c;

        if (e->status == ICE_STATUS_DELETED)
            continue;
        c = *e;
        c.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT |
                          ICE_ENTRY_SEQ_EXPLICIT | ICE_ENTRY_FILE_SEQ_EXPLICIT;
        if (c.data_file.first_row_id != ICE_NULL_LONG)
            c.explicit_mask |= ICE_ENTRY_FIRST_ROW_ID_EXPLICIT;
        if (json_object_get(b->op->removes, e->data_file.file_path) != NULL) {
            c.status = ICE_STATUS_DELETED;
            c.snapshot_id = b->id;
            ice_snap__count(&b->rem, &e->data_file);
            if ((rc = ice_snap__note_partition(b, mf->partition_spec_id,
                                     &e->data_file)) < 0)
                break;
        } else {
            c.status = ICE_STATUS_EXISTING;
        }
        if ((rc = ice_manifest_writer_add(w, b->ctx, &c)) < 0)
            break;
        if (slot != NULL)
            slot->est += ice_snap__entry_bytes(&e->data_file);
    }
    if (rc < 0)
        goto done;
    if (slot != NULL && (int64_t)slot->est < b->target) {
        slot->w = w;               /* the next manifest's entries join */
        w = NULL;
        goto done;
    }
    if (slot != NULL)
        slot->est = 0;
    rc = ice_snap__close_manifest(b, w);
    w = NULL;
done:
    ice_manifest_writer_abort(w);
    ice_manifest_free(r);
    return rc;
}

/*
 * A manifest listed without its counts (optional in v1 lists) gets them
 * from its entries: a v2 list requires them, and a count written as 0
 * would make the next commit drop the manifest as empty.
 */
static int count_entries(bst *b, const ice_manifest_file *mf,
                         ice_manifest_file *out)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    int rc;

    *out = *mf;
    if (mf->added_files_count >= 0 && mf->existing_files_count >= 0 &&
        mf->deleted_files_count >= 0 && mf->added_rows_count >= 0 &&
        mf->existing_rows_count >= 0 && mf->deleted_rows_count >= 0)
        return ZB_OK;
    out->added_files_count = out->existing_files_count = 0;
    out->deleted_files_count = out->added_rows_count = 0;
    out->existing_rows_count = out->deleted_rows_count = 0;
    if ((rc = ice_manifest_open(&r, b->op->o.io, b->ctx, mf, NULL, b->v,
                                &b->op->paths)) < 0)
        return rc;
    while ((rc = ice_manifest_next(r, b->ctx, &e)) > 0) {
        int64_t rows = e->data_file.record_count;

        if (e->status == ICE_STATUS_ADDED) {
            out->added_files_count++;
            out->added_rows_count += rows;
        } else if (e->status == ICE_STATUS_EXISTING) {
            out->existing_files_count++;
            out->existing_rows_count += rows;
        } else {
            out->deleted_files_count++;
            out->deleted_rows_count += rows;
        }
    }
    ice_manifest_free(r);
    return rc < 0 ? rc : ZB_OK;
}

static int carry_over(bst *b)
{
    ice_manifest_file counted;
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    merged m[MERGED_MAX];
    zb_vec capture;
    json_t *parts_before = NULL;
    size_t n_m = 0, i, from = b->out->n_written;
    int rc, reused = 0;

    if (b->parent == NULL)
        return ZB_OK;
    zb_vec_init(&capture, sizeof(ice_manifest_file), SIZE_MAX / 2);
    if (b->op->o.cache != NULL && json_object_size(b->hits) > 0) {
        if ((rc = ice_snap__reuse_key(b)) < 0 ||
            (rc = ice_snap__list_reused(b)) < 0)
            return rc;
        reused = rc;
        if (!reused) {
            if ((parts_before = json_deep_copy(b->parts)) == NULL)
                return zb_fail_oom(b->ctx);
            b->capture = &capture;
        }
    }
    if ((rc = open_list(b, &lr)) < 0)
        goto done;
    while ((rc = ice_manifest_list_next(lr, b->ctx, &mf)) > 0) {
        if (json_object_get(b->hits, mf->manifest_path) != NULL)
            rc = reused ? ZB_OK : rewrite(b, mf, m, &n_m);
        else if ((rc = count_entries(b, mf, &counted)) < 0)
            break;
        else if (counted.added_files_count == 0 &&
                 counted.existing_files_count == 0)
            continue;              /* nothing live: Java drops it too */
        else
            rc = ice_manifest_list_writer_add(b->lw, b->ctx, &counted);
        if (rc < 0)
            break;
    }
    ice_manifest_list_free(lr);
    for (i = 0; i < n_m; i++) {
        if (rc >= 0 && m[i].w != NULL)
            rc = ice_snap__close_manifest(b, m[i].w);
        else
            ice_manifest_writer_abort(m[i].w);
        m[i].w = NULL;
    }
    if (rc >= 0 && b->capture != NULL)
        rc = ice_snap__keep_rewritten(b, from, parts_before);
done:
    b->capture = NULL;
    zb_vec_free(&capture);
    json_decref(parts_before);
    return rc;
}

/* ---- step 5: the JSON -------------------------------------------------- */

static int put_count(json_t *s, const char *key, int64_t v)
{
    char num[24];

    if (v <= 0)
        return 0;
    snprintf(num, sizeof num, "%lld", (long long)v);
    return json_object_set_new_nocheck(s, key, json_string(num));
}

/* total = parent's total + added - removed, as Java's updateTotal. */
static int put_total(bst *b, json_t *s, const char *total, const char *added,
                     const char *removed)
{
    const char *prev = NULL;
    uint64_t t, x;
    char num[24];
    size_t i;

    if (b->parent == NULL)
        prev = "0";
    for (i = 0; b->parent != NULL && i < b->parent->n_summary; i++)
        if (strcmp(b->parent->summary[i].key, total) == 0)
            prev = b->parent->summary[i].value;
    if (prev == NULL || zb_str_to_u64(&t, prev) < 0 || t > INT64_MAX)
        return 0;
    if (json_string_value(json_object_get(s, added)) != NULL &&
        zb_str_to_u64(&x, json_string_value(json_object_get(s, added))) == 0)
        t += x;
    if (json_string_value(json_object_get(s, removed)) != NULL &&
        zb_str_to_u64(&x, json_string_value(json_object_get(s, removed))) == 0) {
        if (x > t)
            return 0;
        t -= x;
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)t);
    return json_object_set_new_nocheck(s, total, json_string(num));
}

static const char *operation(const bst *b)
{
    switch (b->op->o.kind) {
    case ICE_OP_REPLACE: return "replace";
    case ICE_OP_DELETE: return "delete";
    case ICE_OP_OVERWRITE: return "overwrite";
    default:
        /* Row-level deletes are "delete" alone, "overwrite" with data. */
        if (b->add.delete_files > 0)
            return b->add.data_files > 0 ? "overwrite" : "delete";
        return "append";
    }
}

static json_t *summary(bst *b)
{
    json_t *s = json_pack("{ss}", "operation", operation(b));
    const char *k;
    json_t *v;
    int bad = 0;

    if (s == NULL)
        return NULL;
    json_object_foreach(b->op->extra, k, v)
        if (json_object_get(s, k) == NULL)
            bad |= json_object_set_nocheck(s, k, v);
    bad |= put_count(s, "added-data-files", b->add.data_files);
    bad |= put_count(s, "deleted-data-files", b->rem.data_files);
    bad |= put_count(s, "added-equality-delete-files", b->add.eq_files);
    bad |= put_count(s, "removed-equality-delete-files", b->rem.eq_files);
    bad |= put_count(s, "added-position-delete-files", b->add.pos_files);
    bad |= put_count(s, "removed-position-delete-files", b->rem.pos_files);
    bad |= put_count(s, "added-delete-files", b->add.delete_files);
    bad |= put_count(s, "removed-delete-files", b->rem.delete_files);
    bad |= put_count(s, "added-dvs", b->add.dvs);
    bad |= put_count(s, "removed-dvs", b->rem.dvs);
    bad |= put_count(s, "added-records", b->add.records);
    bad |= put_count(s, "deleted-records", b->rem.records);
    bad |= put_count(s, "added-files-size", b->add.size);
    bad |= put_count(s, "removed-files-size", b->rem.size);
    bad |= put_count(s, "added-position-deletes", b->add.pos_deletes);
    bad |= put_count(s, "removed-position-deletes", b->rem.pos_deletes);
    bad |= put_count(s, "added-equality-deletes", b->add.eq_deletes);
    bad |= put_count(s, "removed-equality-deletes", b->rem.eq_deletes);
    {
        char num[24];

        snprintf(num, sizeof num, "%zu", json_object_size(b->parts));
        bad |= json_object_set_new_nocheck(s, "changed-partition-count",
                                           json_string(num));
    }
    bad |= put_total(b, s, "total-records", "added-records", "deleted-records");
    bad |= put_total(b, s, "total-files-size", "added-files-size",
                     "removed-files-size");
    bad |= put_total(b, s, "total-data-files", "added-data-files",
                     "deleted-data-files");
    bad |= put_total(b, s, "total-delete-files", "added-delete-files",
                     "removed-delete-files");
    bad |= put_total(b, s, "total-position-deletes", "added-position-deletes",
                     "removed-position-deletes");
    bad |= put_total(b, s, "total-equality-deletes", "added-equality-deletes",
                     "removed-equality-deletes");
    if (bad) {
        json_decref(s);
        return NULL;
    }
    return s;
}

static int make_json(bst *b, int64_t added_rows)
{
    zb_ctx *ctx = b->ctx;
    ice_commit_result *r = b->out;
    json_t *snap, *sum;
    ice_ref ref;
    int rc;

    if ((sum = summary(b)) == NULL)
        return zb_fail_oom(ctx);
    if ((snap = json_pack("{sI}", "snapshot-id", (json_int_t)b->id)) == NULL) {
        json_decref(sum);
        return zb_fail_oom(ctx);
    }
    if ((b->parent != NULL &&
         (rc = ice_cj__set(ctx, snap, "parent-snapshot-id",
                           json_integer(b->parent->snapshot_id))) < 0) ||
        (b->v >= 2 && (rc = ice_cj__set(ctx, snap, "sequence-number",
                                        json_integer(b->seq))) < 0) ||
        (rc = ice_cj__set(ctx, snap, "timestamp-ms", json_integer(b->ts))) < 0 ||
        (rc = ice_cj__set(ctx, snap, "summary", sum)) < 0 ||
        (rc = ice_cj__set(ctx, snap, "manifest-list",
                          json_string(r->manifest_list))) < 0 ||
        (rc = ice_cj__set(ctx, snap, "schema-id",
                          json_integer(b->schema->schema_id))) < 0 ||
        (b->v >= 3 &&
         ((rc = ice_cj__set(ctx, snap, "first-row-id",
                            json_integer(b->first_row_id))) < 0 ||
          (rc = ice_cj__set(ctx, snap, "added-rows",
                            json_integer(added_rows))) < 0))) {
        json_decref(snap);
        return rc;
    }
    if ((r->updates = (zb_json *)json_array()) == NULL ||
        (r->requirements = (zb_json *)json_array()) == NULL) {
        json_decref(snap);
        return zb_fail_oom(ctx);
    }
    if ((rc = ice_cj__push(ctx, (json_t *)r->updates,
                           json_pack("{ssso}", "action", "add-snapshot",
                                     "snapshot", snap))) < 0)
        return rc;
    if (b->head != NULL)
        ref = *b->head;
    else {
        memset(&ref, 0, sizeof ref);
        ref.max_ref_age_ms = ref.max_snapshot_age_ms = -1;
        ref.min_snapshots_to_keep = -1;
    }
    ref.name = b->op->o.branch;
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = b->id;
    if ((rc = ice_cj__push(ctx, (json_t *)r->updates,
                           (json_t *)ice_update_set_ref(&ref))) < 0)
        return rc;
    if (b->base->table_uuid != NULL &&
        (rc = ice_cj__push(ctx, (json_t *)r->requirements,
                           (json_t *)ice_requirement_table_uuid(
                               b->base->table_uuid))) < 0)
        return rc;
    return ice_cj__push(ctx, (json_t *)r->requirements,
                        (json_t *)ice_requirement_ref_snapshot_id(
                            b->op->o.branch, b->head ? b->head->snapshot_id
                                                     : ICE_NO_SNAPSHOT));
}

/* ---- the build ------------------------------------------------------------ */

static int setup(bst *b)
{
    const ice_metadata *m = b->base;
    ice_commit_op *op = b->op;
    size_t i;
    int rc;

    b->v = m->format_version;
    if ((b->schema = ice_metadata_current_schema(m)) == NULL)
        return zb_fail(b->ctx, ZB_ECORRUPT, "%s: no current schema",
                       m->location);
    for (i = 0; i < op->added.len; i++) {
        const added_file *a = zb_vec_at(&op->added, i);

        if (a->f.content != ICE_CONTENT_DATA && b->v < 2)
            return zb_fail(b->ctx, ZB_EINVAL, "%s: delete file %s needs "
                           "format version 2 or later (the table is v1)",
                           m->location, a->f.file_path);
    }
    b->head = ice_metadata_ref(m, op->o.branch);
    if (b->head != NULL && b->head->type != ICE_REF_BRANCH)
        return zb_fail(b->ctx, ZB_EINVAL, "%s: %s is a tag, not a branch",
                       m->location, op->o.branch);
    /* A new branch starts from the current snapshot, as Java's
     * SnapshotUtil.latestSnapshot has it. */
    b->parent = b->head ? ice_metadata_snapshot(m, b->head->snapshot_id)
                        : ice_metadata_current_snapshot(m);
    if (b->head != NULL && b->parent == NULL)
        return zb_fail(b->ctx, ZB_ECORRUPT, "%s: branch %s points at a "
                       "missing snapshot", m->location, op->o.branch);
    b->id = op->o.snapshot_id;
    /* A retry keeps its snapshot id (commit_cache.h), unless taken. */
    if (b->id <= 0 && op->o.cache != NULL &&
        ice_metadata_snapshot(m, ice_commit_cache__snapshot_id(
                                     op->o.cache)) == NULL)
        b->id = ice_commit_cache__snapshot_id(op->o.cache);
    while (b->id <= 0 || ice_metadata_snapshot(m, b->id) != NULL) {
        if (op->o.snapshot_id > 0)
            return zb_fail(b->ctx, ZB_EINVAL, "%s: snapshot id %lld is "
                           "taken", m->location, (long long)b->id);
        b->id = (int64_t)(ice_commit__random64() & (uint64_t)INT64_MAX);
    }
    if (op->o.cache != NULL)
        ice_commit_cache__set_snapshot_id(op->o.cache, b->id);
    b->seq = b->v >= 2 ? m->last_sequence_number + 1 : 0;
    b->ts = op->o.timestamp_ms > 0 ? op->o.timestamp_ms : ice_commit__now_ms();
    b->first_row_id = m->has_next_row_id ? m->next_row_id : 0;
    b->target = op->o.manifest_target_bytes;
    if (b->target <= 0) {
        int64_t v = 0;

        /* an unusable value is passed over, as Java's writers do */
        b->target = ICE_MANIFEST_TARGET_DEFAULT;
        if (ice_table_prop_i64(&v, NULL, m, ICE_PROP_MANIFEST_TARGET) ==
                ICE_PROP_OK && v > 0)
            b->target = v;
    }
    ice_commit_uuid(b->uuid);
    if ((rc = ice_commit_metadata_dir_paths(&b->dir, b->ctx, m, op->o.root,
                                             &op->paths)) < 0)
        return rc;
    if (zb_arena_new(&b->arena, OP_ARENA_MAX) < 0 ||
        (b->hits = json_object()) == NULL ||
        (b->found = json_object()) == NULL ||
        (b->parts = json_object()) == NULL)
        return zb_fail_oom(b->ctx);
    return ZB_OK;
}

int ice_commit_op_build(ice_commit_op *op, zb_ctx *ctx,
                        const ice_metadata *base, ice_commit_result *out)
{
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    bst b;
    char uri[4096];
    int rc;

    ZB_ASSERT_ARG(op && ctx && base && out);
    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    b.op = op;
    b.ctx = ctx;
    b.base = base;
    b.out = out;
    zb_buf_init(&b.key, 1 << 20);
    zb_buf_init(&b.reuse_key, (size_t)1 << 30);
    op->attempt++;
    if (op->o.cache != NULL)
        ice_commit_cache__attempt(op->o.cache);
    if ((rc = setup(&b)) < 0 || (rc = scan_removed(&b)) < 0)
        goto done;
    if ((size_t)snprintf(uri, sizeof uri, "%s/snap-%lld-%d-%s.avro", b.dir,
                         (long long)b.id, op->attempt, b.uuid) >= sizeof uri) {
        rc = zb_fail(ctx, ZB_EINVAL, "%s: metadata path too long", b.dir);
        goto done;
    }
    if ((rc = note_written(&b, uri)) < 0)
        goto done;
    if ((out->manifest_list = zb_strdup(uri)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    lo.format_version = b.v;
    lo.snapshot_id = b.id;
    lo.parent_snapshot_id = b.parent ? b.parent->snapshot_id : ICE_NO_SNAPSHOT;
    lo.sequence_number = b.seq;
    lo.first_row_id = b.first_row_id;
    lo.codec = op->o.codec;
    if ((rc = ice_manifest_list_writer_open(&b.lw, op->o.io, ctx, uri,
                                            &lo)) < 0 ||
        (rc = ice_snap__write_added(&b, 0)) < 0 ||
        (rc = ice_snap__write_added(&b, 1)) < 0 ||
        (rc = carry_over(&b)) < 0)
        goto done;
    {
        int64_t added_rows = b.v >= 3
            ? ice_manifest_list_writer_next_row_id(b.lw) - b.first_row_id
            : 0;

        rc = ice_manifest_list_writer_commit(b.lw, ctx);
        b.lw = NULL;
        if (rc < 0 || (rc = make_json(&b, added_rows)) < 0)
            goto done;
    }
    out->snapshot_id = b.id;
    out->sequence_number = b.seq;
done:
    if (rc < 0) {
        json_decref((json_t *)out->requirements);
        json_decref((json_t *)out->updates);
        out->requirements = out->updates = NULL;
    }
    ice_manifest_list_writer_abort(b.lw);
    zb_arena_free(b.arena);
    json_decref(b.hits);
    json_decref(b.found);
    json_decref(b.parts);
    zb_buf_free(&b.key);
    zb_buf_free(&b.reuse_key);
    zb_free(b.dir);
    return rc;
}

int ice_commit_result_delete_files(const ice_commit_result *r, zb_io *io,
                                   zb_ctx *ctx)
{
    int first = ZB_OK, rc;
    zb_err saved;
    size_t i;

    ZB_ASSERT_ARG(r && io && ctx);
    /* A cleanup after a failure: that failure's error stays in ctx, so
     * that ice_commit_conflict_retryable still reads it. */
    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < r->n_written; i++) {
        rc = zb_io_delete(io, ctx, r->written[i]);
        if (rc < 0 && rc != ZB_ENOTFOUND && first == ZB_OK)
            first = rc;
    }
    zb_err_copy(&ctx->err, &saved);
    return first;
}

void ice_commit_result_free(ice_commit_result *r)
{
    size_t i;

    if (r == NULL)
        return;
    json_decref((json_t *)r->requirements);
    json_decref((json_t *)r->updates);
    for (i = 0; i < r->n_written; i++)
        zb_free(r->written[i]);
    zb_free(r->written);
    zb_free(r->manifest_list);
    memset(r, 0, sizeof *r);
}

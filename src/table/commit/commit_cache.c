/*
 * table/commit/commit_cache.c - what one commit's attempts share
 * (table/commit/commit_cache.h).
 *
 * matches: manifest path -> [[path, ref|null, content], ...], charged
 * to a budget reservation at an estimate of jansson's cost. The record:
 * one key, the manifest-list entries of the manifests written for it (in
 * an arena of their own), a counts blob, the partition keys, the files.
 */
#define ZB_MODULE "commit"

#include <string.h>

#include "table/commit/commit_cache.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"

/* Rough jansson costs: an object slot, an array, a string. */
#define COST_MANIFEST 128
#define COST_MATCH 192
#define RECORD_ARENA_MAX ((size_t)16 << 20)
#define COUNTS_MAX 256

typedef struct record {
    char *key;
    zb_arena *arena;
    ice_manifest_file *mfs;
    size_t n_mfs;
    unsigned char counts[COUNTS_MAX];
    json_t *parts;
    char **files;
    size_t n_files;
    int listed;                    /* by the current attempt */
} record;

struct ice_commit_cache {
    zb_budget *budget;
    zb_reservation res;
    uint64_t max_bytes, bytes;
    uint64_t n_read, n_hits;
    json_t *universe;              /* path -> true; NULL: none yet */
    json_t *matches;               /* manifest path -> array */
    int64_t snapshot_id;
    record rec[ICE_COMMIT_CACHE_SLOTS];
};

int ice_commit_cache_new(ice_commit_cache **out, zb_ctx *ctx,
                         zb_budget *budget, uint64_t max_bytes)
{
    ice_commit_cache *c;

    *out = NULL;
    if ((c = zb_calloc(1, sizeof *c)) == NULL)
        return zb_fail_oom(ctx);
    c->budget = budget;
    c->max_bytes = max_bytes ? max_bytes : ICE_COMMIT_CACHE_MAX_DEFAULT;
    if ((c->matches = json_object()) == NULL) {
        zb_free(c);
        return zb_fail_oom(ctx);
    }
    *out = c;
    return ZB_OK;
}

static void drop_record(record *c, zb_io *io, zb_ctx *ctx)
{
    zb_err saved;
    size_t i;

    if (io != NULL)
        zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < c->n_files; i++) {
        if (io != NULL)
            (void)zb_io_delete(io, ctx, c->files[i]);
        zb_free(c->files[i]);
    }
    if (io != NULL)
        zb_err_copy(&ctx->err, &saved);
    zb_free(c->files);
    zb_free(c->key);
    zb_arena_free(c->arena);
    json_decref(c->parts);
    memset(c, 0, sizeof *c);
}

void ice_commit_cache_free(ice_commit_cache *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < ICE_COMMIT_CACHE_SLOTS; i++)
        drop_record(&c->rec[i], NULL, NULL);
    json_decref(c->universe);
    json_decref(c->matches);
    zb_budget_release(&c->res);
    zb_free(c);
}

int ice_commit_cache_begin(ice_commit_cache *c, zb_ctx *ctx,
                           const json_t *set)
{
    const char *k;
    json_t *v;
    int sub = c->universe != NULL;

    json_object_foreach((json_t *)set, k, v) {
        if (!sub)
            break;
        sub = json_object_get(c->universe, k) != NULL;
    }
    if (sub)
        return ZB_OK;
    json_decref(c->universe);
    json_object_clear(c->matches);
    c->bytes = 0;
    if ((c->universe = json_deep_copy(set)) == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* Room for bytes more, from the cap and the budget (never waits). */
static int fits(ice_commit_cache *c, uint64_t bytes)
{
    if (c->bytes + bytes > c->max_bytes)
        return 0;
    if (c->budget != NULL &&
        zb_budget_try_grow(&c->res, c->budget, c->bytes + bytes) < 0)
        return 0;
    c->bytes += bytes;
    return 1;
}

static int call_cached(const json_t *arr, zb_ctx *ctx,
                       ice_commit_cache_fn fn, void *payload)
{
    size_t i;
    int rc;

    for (i = 0; i < json_array_size(arr); i++) {
        const json_t *m = json_array_get(arr, i);

        if ((rc = fn(payload, ctx, json_string_value(json_array_get(m, 0)),
                     json_string_value(json_array_get(m, 1)),
                     (ice_file_content)json_integer_value(
                         json_array_get(m, 2)))) < 0)
            return rc;
    }
    return ZB_OK;
}

int ice_commit_cache_matches(ice_commit_cache *c, zb_ctx *ctx, zb_io *io,
                             const ice_manifest_file *mf, int v,
                             const ice_manifest_opts *paths,
                             ice_commit_cache_fn fn, void *payload,
                             int *read)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    json_t *arr, *got;
    uint64_t cost = COST_MANIFEST + strlen(mf->manifest_path);
    int rc;

    ZB_ASSERT_ARG(c && ctx && io && mf && fn && c->universe);
    if (read != NULL)
        *read = 0;
    if ((got = json_object_get(c->matches, mf->manifest_path)) != NULL) {
        c->n_hits++;
        return call_cached(got, ctx, fn, payload);
    }
    if (read != NULL)
        *read = 1;
    c->n_read++;
    if ((arr = json_array()) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = ice_manifest_open(&r, io, ctx, mf, NULL, v, paths)) < 0)
        goto done;
    while ((rc = ice_manifest_next(r, ctx, &e)) > 0) {
        const ice_data_file *f = &e->data_file;
        const char *ref = f->referenced_data_file;
        json_t *m;

        if (e->status == ICE_STATUS_DELETED ||
            json_object_get(c->universe, f->file_path) == NULL)
            continue;
        if ((rc = fn(payload, ctx, f->file_path, ref, f->content)) < 0)
            break;
        cost += COST_MATCH + strlen(f->file_path) + (ref ? strlen(ref) : 0);
        m = json_pack("[ss*i]", f->file_path, ref, (int)f->content);
        if (m == NULL || json_array_append_new(arr, m) < 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
    }
    /* Not cached (no room): read again next time. */
    if (rc == 0 && fits(c, cost) &&
        json_object_set(c->matches, mf->manifest_path, arr) < 0)
        c->bytes -= cost;
    if (rc > 0)
        rc = ZB_OK;
done:
    ice_manifest_free(r);
    json_decref(arr);
    return rc;
}

uint64_t ice_commit_cache_bytes(const ice_commit_cache *c)
{
    return c->bytes;
}

void ice_commit_cache_counts(const ice_commit_cache *c, uint64_t *read,
                             uint64_t *hits)
{
    *read = c->n_read;
    *hits = c->n_hits;
}

void ice_commit_cache_finish(ice_commit_cache *c, zb_io *io, zb_ctx *ctx,
                             int committed)
{
    size_t i, k;

    if (c == NULL)
        return;
    for (k = 0; k < ICE_COMMIT_CACHE_SLOTS; k++) {
        record *r = &c->rec[k];

        if (committed && r->listed) {
            for (i = 0; i < r->n_files; i++)
                zb_free(r->files[i]);
            r->n_files = 0;        /* the table's now */
        }
        drop_record(r, io, ctx);
    }
}

void ice_commit_cache__attempt(ice_commit_cache *c)
{
    size_t k;

    for (k = 0; k < ICE_COMMIT_CACHE_SLOTS; k++)
        c->rec[k].listed = 0;
}

int64_t ice_commit_cache__snapshot_id(const ice_commit_cache *c)
{
    return c->snapshot_id;
}

void ice_commit_cache__set_snapshot_id(ice_commit_cache *c, int64_t id)
{
    c->snapshot_id = id;
}

int ice_commit_cache__reuse(ice_commit_cache *cc, int slot, const char *key,
                            const ice_manifest_file **mfs, size_t *n,
                            void *counts, size_t counts_len,
                            const json_t **parts)
{
    record *c = &cc->rec[slot];

    if (c->key == NULL || strcmp(c->key, key) != 0 ||
        counts_len > COUNTS_MAX)
        return 0;
    *mfs = c->mfs;
    *n = c->n_mfs;
    if (counts_len > 0)
        memcpy(counts, c->counts, counts_len);
    *parts = c->parts;
    c->listed = 1;
    return 1;
}

static int copy_mf(ice_manifest_file *d, zb_arena *a,
                   const ice_manifest_file *s)
{
    ice_field_summary *fs = NULL;
    size_t i;

    *d = *s;
    if ((d->manifest_path = zb_arena_strdup(a, s->manifest_path)) == NULL)
        return -1;
    if (s->n_partitions > 0 &&
        (fs = zb_arena_calloc(a, s->n_partitions, sizeof *fs)) == NULL)
        return -1;
    for (i = 0; i < s->n_partitions; i++) {
        const ice_field_summary *p = &s->partitions[i];
        uint8_t *lo = NULL, *hi = NULL;

        fs[i] = *p;
        if (p->lower_bound != NULL &&
            (lo = zb_arena_alloc(a, p->lower_bound_len + 1)) == NULL)
            return -1;
        if (p->upper_bound != NULL &&
            (hi = zb_arena_alloc(a, p->upper_bound_len + 1)) == NULL)
            return -1;
        if (lo != NULL)
            memcpy(lo, p->lower_bound, p->lower_bound_len);
        if (hi != NULL)
            memcpy(hi, p->upper_bound, p->upper_bound_len);
        fs[i].lower_bound = lo;
        fs[i].upper_bound = hi;
    }
    d->partitions = fs;
    if (s->key_metadata != NULL) {
        uint8_t *k = zb_arena_alloc(a, s->key_metadata_len + 1);

        if (k == NULL)
            return -1;
        memcpy(k, s->key_metadata, s->key_metadata_len);
        d->key_metadata = k;
    }
    return 0;
}

int ice_commit_cache__keep(ice_commit_cache *cc, int slot, zb_ctx *ctx,
                           zb_io *io, const char *key,
                           const ice_manifest_file *mfs, size_t n,
                           const void *counts, size_t counts_len,
                           const json_t *parts, char **files,
                           size_t n_files)
{
    record *c = &cc->rec[slot];
    size_t i;

    drop_record(c, io, ctx);
    c->files = files;
    c->n_files = n_files;
    if (counts_len > COUNTS_MAX)
        return zb_fail(ctx, ZB_EINVAL, "commit cache: counts of %zu bytes",
                       counts_len);
    /* The key last: a record half made is never reused. */
    if (zb_arena_new(&c->arena, RECORD_ARENA_MAX) < 0 ||
        (c->mfs = zb_arena_calloc(c->arena, n + 1, sizeof *c->mfs)) == NULL ||
        (parts != NULL && (c->parts = json_deep_copy(parts)) == NULL))
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++)
        if (copy_mf(&c->mfs[i], c->arena, &mfs[i]) < 0)
            return zb_fail_oom(ctx);
    c->n_mfs = n;
    if (counts_len > 0)
        memcpy(c->counts, counts, counts_len);
    if ((c->key = zb_strdup(key)) == NULL)
        return zb_fail_oom(ctx);
    c->listed = 1;
    return ZB_OK;
}

/*
 * ops/rewrite_manifests/rewrite_manifests_group.c - rewrite-manifests' pass 1 (see
 * rewrite_manifests.c): the manifests to rewrite are read, their live
 * entries grouped by (content, spec, partition) under a key that sorts
 * partition values in value order, with entry counts and estimated
 * bytes; the groups are then sorted and packed into output manifests of
 * about the target size. Also the walk over the input that both passes
 * make.
 */
#define ZB_MODULE "rewrite-manifests"

#include <stdlib.h>
#include <string.h>

#include "ops/rewrite_manifests/rewrite_manifests_int.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

/* ---- keys and sizes ------------------------------------------------------ */

static int put_hex(zb_buf *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (zb_buf_reserve(b, 2 * n + 1) < 0)
        return ZB_ENOMEM;
    for (i = 0; i < n; i++) {
        char c[2] = { hex[p[i] >> 4], hex[p[i] & 15] };

        if (zb_buf_append_small(b, c, 2) < 0)
            return ZB_ENOMEM;
    }
    return ZB_OK;
}

/* Big-endian with the sign flipped: byte order is numeric order. */
static int put_ordered(zb_buf *b, int64_t v)
{
    uint64_t u = (uint64_t)v ^ ((uint64_t)1 << 63);
    uint8_t be[8];
    int i;

    for (i = 7; i >= 0; i--) {
        be[i] = (uint8_t)u;
        u >>= 8;
    }
    return put_hex(b, be, 8);
}

/*
 * "content/spec/" and per partition value "-" (null) or its bytes in
 * hex, each closed by a space: equal tuples give equal keys, and keys of
 * integer, date and time values sort in value order.
 */
static int group_key(rw *w, int content, int32_t spec_id,
                     const ice_data_file *f)
{
    zb_buf *k = &w->key;
    size_t i;
    int rc;

    zb_buf_clear(k);
    if ((rc = zb_buf_appendf(k, "%d/%d/", content, (int)spec_id)) < 0)
        return zb_fail_oom(w->ctx);
    for (i = 0; i < f->n_partition; i++) {
        const ice_value *v = &f->partition[i];

        if (v->is_null)
            rc = zb_buf_putc(k, '-');
        else if (v->type == ICE_INT || v->type == ICE_DATE)
            rc = put_ordered(k, v->u.i);
        else if (v->type == ICE_LONG || v->type == ICE_TIME ||
                 v->type == ICE_TIMESTAMP || v->type == ICE_TIMESTAMPTZ ||
                 v->type == ICE_TIMESTAMP_NS || v->type == ICE_TIMESTAMPTZ_NS)
            rc = put_ordered(k, v->u.l);
        else if (v->type == ICE_STRING || v->type == ICE_BINARY ||
                 v->type == ICE_FIXED)
            rc = put_hex(k, v->u.bin.ptr, v->u.bin.len);
        else {
            zb_buf_clear(&w->tmp);
            if ((rc = ice_value_to_bytes(&w->tmp, w->ctx, v)) < 0) {
                zb_err_clear(&w->ctx->err);
                zb_buf_clear(&w->tmp);
                if ((rc = ice_value_to_json(&w->tmp, w->ctx, v)) < 0)
                    return rc;
            }
            rc = put_hex(k, (const uint8_t *)w->tmp.ptr, w->tmp.len);
        }
        if (rc == ZB_OK)
            rc = zb_buf_putc(k, ' ');
        if (rc < 0)
            return zb_fail_oom(w->ctx);
    }
    return ZB_OK;
}

static uint64_t bytes_map_size(const ice_bytes_map *m)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < m->n; i++)
        n += 3 + m->items[i].len;
    return n;
}

/*
 * About what an entry takes in an uncompressed manifest: Avro varints
 * make a field id and a count or size some 3 bytes, a bound its length
 * plus 3; the fixed fields some 36 (fitted to written manifests: within
 * a few percent for paths of 60 to 120 bytes and 3 to 10 columns).
 */
static uint64_t entry_bytes(const ice_data_file *f)
{
    uint64_t n = 36 + strlen(f->file_path) + 5 * f->n_partition;

    if (f->file_format)
        n += strlen(f->file_format);
    n += 3 * (f->column_sizes.n + f->value_counts.n +
              f->null_value_counts.n + f->nan_value_counts.n);
    n += bytes_map_size(&f->lower_bounds) + bytes_map_size(&f->upper_bounds);
    n += 5 * f->n_split_offsets + 2 * f->n_equality_ids + f->key_metadata_len;
    if (f->referenced_data_file)
        n += strlen(f->referenced_data_file);
    return n;
}

/* ---- pass 1: the groups ---------------------------------------------------- */

int zb_rewrite_manifests__open_list(rw *w, ice_manifest_list_reader **lr)
{
    return ice_manifest_list_open(lr, w->t->io, w->ctx,
                                  w->snap->manifest_list, w->v,
                                  &w->tbl->paths);
}

int zb_rewrite_manifests__count_manifests(rw *w)
{
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    int rc;

    if ((rc = zb_rewrite_manifests__open_list(w, &lr)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, w->ctx, &mf)) > 0) {
        if (mf->content == ICE_MANIFEST_DELETES)
            w->r->delete_manifests++;
        else
            w->r->data_manifests++;
    }
    ice_manifest_list_free(lr);
    return rc;
}

int zb_rewrite_manifests__find_group(rw *w, group **out, int content,
                                     int32_t spec_id, const ice_data_file *f,
                                     int create)
{
    json_t *ix;
    group *g = NULL;
    int rc;

    if ((rc = group_key(w, content, spec_id, f)) < 0)
        return rc;
    if ((ix = json_object_get(w->gix, zb_buf_cstr(&w->key))) != NULL) {
        *out = zb_vec_at(&w->groups, (size_t)json_integer_value(ix));
        return ZB_OK;
    }
    if (!create)
        return zb_fail(w->ctx, ZB_ECONFLICT, "%s: a manifest changed between "
                       "two reads (partition of %s)", w->tbl->ident,
                       f->file_path);
    if (zb_vec_push(&w->groups, (void **)&g) < 0)
        return zb_fail_oom(w->ctx);
    memset(g, 0, sizeof *g);
    g->content = content;
    g->spec_id = spec_id;
    if ((g->key = zb_arena_strdup(w->arena, zb_buf_cstr(&w->key))) == NULL ||
        json_object_set_new(w->gix, g->key,
                            json_integer((json_int_t)(w->groups.len - 1))) < 0)
        return zb_fail_oom(w->ctx);
    if ((rc = zb_rewrite_manifests__count_group(w, w->key.len)) < 0)
        return rc;
    *out = g;
    return ZB_OK;
}

typedef struct walk_state {
    rw *w;
    size_t mf_no;                  /* manifests kept so far */
} walk_state;

/* Reads the manifests of the content being rewritten, numbering them. */
static int keep_rewritten(const ice_manifest_file *mf, zb_ctx *ctx,
                          void *payload)
{
    walk_state *ws = payload;

    (void)ctx;
    if (!ws->w->rewrite[mf->content == ICE_MANIFEST_DELETES])
        return 0;
    ws->mf_no++;
    return 1;
}

int zb_rewrite_manifests__walk(rw *w, entry_fn fn)
{
    walk_state ws = { w, 0 };
    ice_snapshot_iter *it = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int rc;

    if ((rc = ice_snapshot_iter_open(&it, w->t->io, w->ctx, w->tbl->meta,
                                     w->snap, &w->tbl->paths)) < 0)
        return rc;
    ice_snapshot_iter_filter(it, keep_rewritten, &ws);
    while ((rc = ice_snapshot_iter_next(it, w->ctx, &e, &mf)) > 0) {
        if ((e->data_file.content != ICE_CONTENT_DATA) !=
            (mf->content == ICE_MANIFEST_DELETES)) {
            rc = zb_fail(w->ctx, ZB_ECORRUPT, "%s: manifest %s lists %s "
                         "of the other content", w->tbl->ident,
                         mf->manifest_path, e->data_file.file_path);
            break;
        }
        if ((rc = fn(w, ws.mf_no, mf, e)) < 0)
            break;
    }
    ice_snapshot_iter_free(it);
    if (rc == ZB_ECANCELED)
        zb_err_prefix(w->ctx, "%s", w->tbl->ident);
    return rc;
}

int zb_rewrite_manifests__count_entry(rw *w, size_t mf_no,
                                      const ice_manifest_file *mf,
                                      const ice_manifest_entry *e)
{
    group *g = NULL;
    int rc;

    if ((rc = zb_rewrite_manifests__find_group(w, &g, (int)mf->content,
                                               mf->partition_spec_id,
                                               &e->data_file, 1)) < 0)
        return rc;
    g->count++;
    g->bytes += entry_bytes(&e->data_file);
    if (g->last_mf != mf_no) {
        g->last_mf = mf_no;
        w->r->spread_before++;
    }
    w->r->entries++;
    if (mf->content != ICE_MANIFEST_DELETES)
        w->r->data_entries++;
    return ZB_OK;
}

static int cmp_group(const void *pa, const void *pb)
{
    const group *a = pa, *b = pb;

    if (a->content != b->content)
        return a->content < b->content ? -1 : 1;
    if (a->spec_id != b->spec_id)
        return a->spec_id < b->spec_id ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int new_out(rw *w, size_t *cur, const group *g)
{
    out_mf *o;

    if (zb_vec_push(&w->outs, (void **)&o) < 0)
        return zb_fail_oom(w->ctx);
    o->content = g->content;
    o->spec_id = g->spec_id;
    o->entries = 0;
    *cur = w->outs.len - 1;
    return ZB_OK;
}

/* Sorts the groups and packs them into output manifests. */
int zb_rewrite_manifests__pack(rw *w)
{
    size_t i, cur = SIZE_MAX;
    uint64_t fill = 0, target = (uint64_t)w->target;
    int rc;

    if (w->groups.len > 1)
        qsort(w->groups.items, w->groups.len, sizeof(group), cmp_group);
    for (i = 0; i < w->groups.len; i++) {
        group *g = zb_vec_at(&w->groups, i);
        uint64_t avg = g->bytes / (g->count ? g->count : 1), room, rem;
        out_mf *o;

        if (avg == 0)
            avg = 1;
        g->per_full = target / avg > 0 ? target / avg : 1;
        if (json_object_set_new(w->gix, g->key, json_integer((json_int_t)i)) < 0)
            return zb_fail_oom(w->ctx);
        room = fill >= target ? 0 : (target - fill) / avg;
        if (cur == SIZE_MAX || g->content != ((out_mf *)zb_vec_at(&w->outs,
                                                                  cur))->content ||
            g->spec_id != ((out_mf *)zb_vec_at(&w->outs, cur))->spec_id ||
            room == 0 || (g->count <= g->per_full && g->count > room)) {
            if ((rc = new_out(w, &cur, g)) < 0)
                return rc;
            fill = 0;
            room = g->per_full;
        }
        g->first_out = cur;
        g->n_first = g->count < room ? g->count : room;
        o = zb_vec_at(&w->outs, cur);
        o->entries += g->n_first;
        fill += g->n_first * avg;
        w->r->spread_after++;
        for (rem = g->count - g->n_first; rem > 0;) {
            uint64_t take = rem < g->per_full ? rem : g->per_full;

            if ((rc = new_out(w, &cur, g)) < 0)
                return rc;
            ((out_mf *)zb_vec_at(&w->outs, cur))->entries = take;
            fill = take * avg;
            rem -= take;
            w->r->spread_after++;
        }
    }
    for (i = 0; i < w->outs.len; i++) {
        if (((out_mf *)zb_vec_at(&w->outs, i))->content == ICE_MANIFEST_DELETES)
            w->r->new_delete_manifests++;
        else
            w->r->new_data_manifests++;
    }
    return ZB_OK;
}

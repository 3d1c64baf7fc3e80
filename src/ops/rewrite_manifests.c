/*
 * ops/rewrite_manifests.c - rewrite-manifests (see ops/rewrite_manifests.h).
 *
 * An attempt runs: count the manifests of the current snapshot; pass 1
 * reads the manifests to rewrite and builds the (content, spec,
 * partition) groups with their entry counts and estimated bytes; the
 * groups are sorted and packed into output manifests; then, unless the
 * layout would not improve or this is a dry run, the output manifests
 * are written in windows of at most max_open_writers (each window one
 * more pass over the input), the manifest list is written, and the
 * snapshot is committed.
 */
#define ZB_MODULE "rewrite-manifests"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "ops/rewrite_manifests.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

#define DEFAULT_ATTEMPTS 3
#define DEFAULT_OPEN_WRITERS 64

typedef struct group {
    int content;                   /* ICE_MANIFEST_DATA or _DELETES */
    int32_t spec_id;
    const char *key;               /* the JSON index key (arena) */
    uint64_t count, bytes;
    size_t first_out;              /* its first output manifest */
    uint64_t n_first;              /* entries in that one */
    uint64_t per_full;             /* entries per further manifest */
    uint64_t seen;                 /* entries met in this pass */
    size_t last_mf;                /* 1 + the input manifest last seen in */
} group;

typedef struct out_mf {
    int content;
    int32_t spec_id;
    uint64_t entries;
} out_mf;

typedef struct window {
    size_t from, to;               /* output manifests [from, to) */
    ice_manifest_writer **wr;
} window;

typedef struct rw {
    zb_ctx *ctx;
    const zb_op_target *t;
    const zb_table *tbl;
    const ice_metadata *m;
    const ice_snapshot *snap;
    zb_rewrite_manifests_result *r;
    int v;
    int64_t target;
    int max_open;
    int rewrite[2];                /* by manifest content */
    zb_arena *arena;
    zb_vec groups;                 /* group */
    json_t *gix;                   /* key -> index in groups */
    zb_vec outs;                   /* out_mf */
    zb_buf key, tmp;
    /* the write */
    int64_t id, seq, ts;
    char uuid[37];
    char *dir;
    ice_manifest_file *mfs;        /* per output manifest, once written */
    zb_vec written;                /* char * */
    window *win;                   /* the writing pass's window */
} rw;

static void rw_free(rw *w)
{
    size_t i;

    for (i = 0; i < w->written.len; i++)
        zb_free(*(char **)zb_vec_at(&w->written, i));
    zb_vec_free(&w->written);
    zb_vec_free(&w->groups);
    zb_vec_free(&w->outs);
    json_decref(w->gix);
    zb_buf_free(&w->key);
    zb_buf_free(&w->tmp);
    zb_arena_free(w->arena);
    zb_free(w->mfs);
    zb_free(w->dir);
}

static int note_written(rw *w, const char *uri)
{
    char *s = zb_strdup(uri);

    if (s == NULL || zb_vec_append(&w->written, &s) < 0) {
        zb_free(s);
        return zb_fail_oom(w->ctx);
    }
    return ZB_OK;
}

static void delete_written(rw *w)
{
    zb_err saved;
    size_t i;

    zb_err_copy(&saved, &w->ctx->err);
    for (i = 0; i < w->written.len; i++)
        (void)zb_io_delete(w->t->io, w->ctx,
                           *(const char **)zb_vec_at(&w->written, i));
    zb_err_copy(&w->ctx->err, &saved);
}

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

static int open_list(rw *w, ice_manifest_list_reader **lr)
{
    return ice_manifest_list_open(lr, w->t->io, w->ctx,
                                  w->snap->manifest_list, w->v,
                                  &w->tbl->paths);
}

static int count_manifests(rw *w)
{
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    int rc;

    if ((rc = open_list(w, &lr)) < 0)
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

static int find_group(rw *w, group **out, int content, int32_t spec_id,
                      const ice_data_file *f, int create)
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
    *out = g;
    return ZB_OK;
}

/*
 * Calls fn for every live entry of every manifest to rewrite, with the
 * manifest's index among them (1-based).
 */
typedef int (*entry_fn)(rw *w, size_t mf_no, const ice_manifest_file *mf,
                        const ice_manifest_entry *e);

static int walk(rw *w, entry_fn fn)
{
    ice_manifest_list_reader *lr = NULL;
    ice_manifest_reader *mr = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    size_t mf_no = 0;
    int rc;

    if ((rc = open_list(w, &lr)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, w->ctx, &mf)) > 0) {
        if (!w->rewrite[mf->content == ICE_MANIFEST_DELETES])
            continue;
        mf_no++;
        if ((rc = ice_manifest_open(&mr, w->t->io, w->ctx, mf, NULL, w->v,
                                    &w->tbl->paths)) < 0)
            break;
        while ((rc = ice_manifest_next(mr, w->ctx, &e)) > 0) {
            if (e->status == ICE_STATUS_DELETED)
                continue;
            if ((e->data_file.content != ICE_CONTENT_DATA) !=
                (mf->content == ICE_MANIFEST_DELETES)) {
                rc = zb_fail(w->ctx, ZB_ECORRUPT, "%s: manifest %s lists %s "
                             "of the other content", w->tbl->ident,
                             mf->manifest_path, e->data_file.file_path);
                break;
            }
            if ((rc = fn(w, mf_no, mf, e)) < 0)
                break;
        }
        ice_manifest_free(mr);
        mr = NULL;
        if (rc < 0)
            break;
        if (zb_ctx_stopped(w->ctx)) {
            rc = zb_fail(w->ctx, ZB_ECANCELED, "%s: stopped", w->tbl->ident);
            break;
        }
    }
    ice_manifest_list_free(lr);
    return rc;
}

static int count_entry(rw *w, size_t mf_no, const ice_manifest_file *mf,
                       const ice_manifest_entry *e)
{
    group *g = NULL;
    int rc;

    if ((rc = find_group(w, &g, (int)mf->content, mf->partition_spec_id,
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
static int pack(rw *w)
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

/* ---- pass 2: the new manifests --------------------------------------------- */

static int open_writer(rw *w, ice_manifest_writer **out, size_t o_ix)
{
    const out_mf *o = zb_vec_at(&w->outs, o_ix);
    ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
    char uri[4096];
    const char *codec = ice_metadata_property(w->m,
                                              "write.avro.compression-codec");
    int rc;

    if ((size_t)snprintf(uri, sizeof uri, "%s/%s-m%zu.avro", w->dir, w->uuid,
                         o_ix) >= sizeof uri)
        return zb_fail(w->ctx, ZB_EINVAL, "%s: metadata path too long",
                       w->dir);
    wo.format_version = w->v;
    wo.content = (ice_manifest_content)o->content;
    wo.schema = ice_metadata_current_schema(w->m);
    wo.spec = ice_metadata_spec(w->m, o->spec_id);
    wo.snapshot_id = w->id;
    wo.sequence_number = w->seq;
    if (codec && strcmp(codec, "gzip") == 0)
        wo.codec = ZB_AVRO_CODEC_DEFLATE;
    else if (codec && strcmp(codec, "zstd") == 0)
        wo.codec = ZB_AVRO_CODEC_ZSTD;
    else if (codec && strcmp(codec, "snappy") == 0)
        wo.codec = ZB_AVRO_CODEC_SNAPPY;
    if (wo.spec == NULL || wo.schema == NULL)
        return zb_fail(w->ctx, ZB_ECORRUPT, "%s: partition spec %d or the "
                       "current schema is missing", w->tbl->ident,
                       (int)o->spec_id);
    if ((rc = note_written(w, uri)) < 0)
        return rc;
    return ice_manifest_writer_open(out, w->t->io, w->ctx, uri, &wo);
}

static int write_entry(rw *w, size_t mf_no, const ice_manifest_file *mf,
                       const ice_manifest_entry *e)
{
    window *win = w->win;
    ice_manifest_entry c;
    uint64_t k;
    size_t o;
    group *g = NULL;
    int rc;

    (void)mf_no;
    if ((rc = find_group(w, &g, (int)mf->content, mf->partition_spec_id,
                         &e->data_file, 0)) < 0)
        return rc;
    k = g->seen++;
    o = k < g->n_first ? g->first_out
                       : g->first_out + 1 + (size_t)((k - g->n_first) /
                                                     g->per_full);
    if (o < win->from || o >= win->to)
        return ZB_OK;
    if (win->wr[o - win->from] == NULL &&
        (rc = open_writer(w, &win->wr[o - win->from], o)) < 0)
        return rc;
    c = *e;
    c.status = ICE_STATUS_EXISTING;
    c.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
    if (w->v >= 2)
        c.explicit_mask |= ICE_ENTRY_SEQ_EXPLICIT | ICE_ENTRY_FILE_SEQ_EXPLICIT;
    if (c.data_file.first_row_id != ICE_NULL_LONG)
        c.explicit_mask |= ICE_ENTRY_FIRST_ROW_ID_EXPLICIT;
    return ice_manifest_writer_add(win->wr[o - win->from], w->ctx, &c);
}

static int write_manifests(rw *w, zb_arena *list_arena)
{
    size_t n = w->outs.len, from, i;
    int rc = ZB_OK;

    if (n == 0)
        return ZB_OK;
    if ((w->mfs = zb_calloc(n, sizeof *w->mfs)) == NULL)
        return zb_fail_oom(w->ctx);
    for (from = 0; from < n && rc == ZB_OK; from += (size_t)w->max_open) {
        window win;

        win.from = from;
        win.to = from + (size_t)w->max_open < n ? from + (size_t)w->max_open
                                                : n;
        if ((win.wr = zb_calloc(win.to - win.from, sizeof *win.wr)) == NULL)
            return zb_fail_oom(w->ctx);
        for (i = 0; i < w->groups.len; i++)
            ((group *)zb_vec_at(&w->groups, i))->seen = 0;
        w->win = &win;
        rc = walk(w, write_entry);
        w->win = NULL;
        w->r->passes++;
        for (i = 0; i < win.to - win.from; i++) {
            if (rc == ZB_OK && win.wr[i] == NULL)
                rc = zb_fail(w->ctx, ZB_ECONFLICT, "%s: a manifest changed "
                             "between two reads", w->tbl->ident);
            if (rc == ZB_OK)
                rc = ice_manifest_writer_commit(win.wr[i], w->ctx,
                                                &w->mfs[win.from + i],
                                                list_arena);
            else
                ice_manifest_writer_abort(win.wr[i]);
            win.wr[i] = NULL;
        }
        zb_free(win.wr);
    }
    return rc;
}

/* ---- the snapshot -------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t random_id(void)
{
    char u[37];
    uint64_t v = 0;
    int i, n = 0;

    ice_commit_uuid(u);
    for (i = 0; u[i] && n < 16; i++) {
        char c = u[i];

        if (c == '-')
            continue;
        v = (v << 4) | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        n++;
    }
    return (int64_t)(v & (uint64_t)INT64_MAX);
}

static int put_num(json_t *s, const char *key, uint64_t v)
{
    char num[24];

    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return json_object_set_new(s, key, json_string(num));
}

static json_t *summary(rw *w)
{
    json_t *s = json_pack("{ss}", "operation", "replace");
    size_t i;
    int bad = 0;

    if (s == NULL)
        return NULL;
    bad |= json_object_set_new(s, "zamboni.operation",
                               json_string("rewrite-manifests"));
    bad |= put_num(s, "manifests-created", w->r->manifests_created);
    bad |= put_num(s, "manifests-kept", w->r->manifests_kept);
    bad |= put_num(s, "manifests-replaced", w->r->manifests_replaced);
    bad |= put_num(s, "entries-processed", w->r->entries);
    for (i = 0; i < w->snap->n_summary; i++)
        if (zb_str_starts_with(w->snap->summary[i].key, "total-"))
            bad |= json_object_set_new(s, w->snap->summary[i].key,
                                       json_string(w->snap->summary[i].value));
    if (bad) {
        json_decref(s);
        return NULL;
    }
    return s;
}

static int build_json(rw *w, const char *list_uri, int64_t first_row_id,
                      int64_t added_rows, json_t **reqs, json_t **updates)
{
    const ice_schema *schema = ice_metadata_current_schema(w->m);
    const ice_ref *main_ref = ice_metadata_ref(w->m, "main");
    json_t *snap, *sum = summary(w);
    ice_ref ref;
    int rc;

    if (sum == NULL)
        return zb_fail_oom(w->ctx);
    snap = json_pack("{sIsIsIsosssi}", "snapshot-id", (json_int_t)w->id,
                     "parent-snapshot-id", (json_int_t)w->snap->snapshot_id,
                     "timestamp-ms", (json_int_t)w->ts, "summary", sum,
                     "manifest-list", list_uri, "schema-id",
                     schema ? (int)schema->schema_id : 0);
    if (snap == NULL)
        return zb_fail_oom(w->ctx);
    if ((w->v >= 2 &&
         json_object_set_new(snap, "sequence-number", json_integer(w->seq)) < 0) ||
        (w->v >= 3 &&
         (json_object_set_new(snap, "first-row-id",
                              json_integer(first_row_id)) < 0 ||
          json_object_set_new(snap, "added-rows", json_integer(added_rows)) < 0))) {
        json_decref(snap);
        return zb_fail_oom(w->ctx);
    }
    if ((*updates = json_array()) == NULL ||
        (*reqs = json_array()) == NULL) {
        json_decref(snap);
        return zb_fail_oom(w->ctx);
    }
    if ((rc = ice_commit_append((zb_json *)*updates, w->ctx,
                                (zb_json *)json_pack("{ssso}", "action",
                                                     "add-snapshot",
                                          "snapshot", snap))) < 0)
        return rc;
    if (main_ref != NULL) {
        ref = *main_ref;
    } else {
        memset(&ref, 0, sizeof ref);
        ref.min_snapshots_to_keep = -1;
        ref.max_snapshot_age_ms = ref.max_ref_age_ms = -1;
    }
    ref.name = "main";
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = w->id;
    if ((rc = ice_commit_append((zb_json *)*updates, w->ctx,
                                ice_update_set_ref(&ref))) < 0)
        return rc;
    if (w->m->table_uuid != NULL &&
        (rc = ice_commit_append((zb_json *)*reqs, w->ctx,
                                ice_requirement_table_uuid(
                                    w->m->table_uuid))) < 0)
        return rc;
    return ice_commit_append((zb_json *)*reqs, w->ctx,
                             ice_requirement_ref_snapshot_id(
                                 "main", w->snap->snapshot_id));
}

/* Writes the manifests and the list, and commits. */
static int write_and_commit(rw *w)
{
    ice_manifest_list_writer_opts lo = ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
    ice_manifest_list_writer *lw = NULL;
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    zb_arena *la = NULL;
    json_t *reqs = NULL, *updates = NULL;
    zb_table *done = NULL;
    char uri[4096];
    int64_t first_row_id = w->m->has_next_row_id ? w->m->next_row_id : 0;
    int64_t added_rows = 0;
    size_t i;
    int rc;

    w->id = random_id();
    while (w->id <= 0 || ice_metadata_snapshot(w->m, w->id) != NULL)
        w->id = random_id();
    w->seq = w->v >= 2 ? w->m->last_sequence_number + 1 : 0;
    w->ts = w->t->now_ms > 0 ? w->t->now_ms : now_ms();
    ice_commit_uuid(w->uuid);
    if ((rc = ice_commit_metadata_dir(&w->dir, w->ctx, w->m,
                                      w->tbl->root)) < 0)
        return rc;
    if (zb_arena_new(&la, (size_t)1 << 32) < 0)
        return zb_fail_oom(w->ctx);
    if ((rc = write_manifests(w, la)) < 0)
        goto out;
    if ((size_t)snprintf(uri, sizeof uri, "%s/snap-%lld-%d-%s.avro", w->dir,
                         (long long)w->id, w->r->attempts, w->uuid) >=
        sizeof uri) {
        rc = zb_fail(w->ctx, ZB_EINVAL, "%s: metadata path too long", w->dir);
        goto out;
    }
    lo.format_version = w->v;
    lo.snapshot_id = w->id;
    lo.parent_snapshot_id = w->snap->snapshot_id;
    lo.sequence_number = w->seq;
    lo.first_row_id = first_row_id;
    if ((rc = note_written(w, uri)) < 0 ||
        (rc = ice_manifest_list_writer_open(&lw, w->t->io, w->ctx, uri,
                                            &lo)) < 0)
        goto out;
    for (i = 0; i < w->outs.len && rc == ZB_OK; i++)
        rc = ice_manifest_list_writer_add(lw, w->ctx, &w->mfs[i]);
    if (rc < 0 || (rc = open_list(w, &lr)) < 0)
        goto out;
    while ((rc = ice_manifest_list_next(lr, w->ctx, &mf)) > 0)
        if (!w->rewrite[mf->content == ICE_MANIFEST_DELETES] &&
            (rc = ice_manifest_list_writer_add(lw, w->ctx, mf)) < 0)
            break;
    ice_manifest_list_free(lr);
    if (rc < 0)
        goto out;
    if (w->v >= 3)
        added_rows = ice_manifest_list_writer_next_row_id(lw) - first_row_id;
    rc = ice_manifest_list_writer_commit(lw, w->ctx);
    lw = NULL;
    if (rc < 0 ||
        (rc = build_json(w, uri, first_row_id, added_rows, &reqs,
                         &updates)) < 0)
        goto out;
    rc = zb_catalog_commit(w->t->catalog, w->ctx, w->tbl, (const zb_json *)reqs,
                           (const zb_json *)updates,
                           &done);
    if (rc == ZB_OK) {
        w->r->committed = 1;
        w->r->snapshot_id = w->id;
    }
out:
    ice_manifest_list_writer_abort(lw);
    if (rc < 0 && rc != ZB_ETIMEOUT)
        delete_written(w);
    json_decref(reqs);
    json_decref(updates);
    zb_table_free(done);
    zb_arena_free(la);
    return rc;
}

/* ---- the operation ------------------------------------------------------- */

static int target_bytes(int64_t *out, zb_ctx *ctx, const ice_metadata *m,
                        const zb_rewrite_manifests_opts *o, const char *table)
{
    static const char *const keys[] = { ICE_PROP_MANIFEST_TARGET,
                                         ZB_PROP_WRITE_MANIFEST_TARGET };
    size_t i;

    *out = ICE_MANIFEST_TARGET_DEFAULT;
    if (o->target_bytes > 0) {
        *out = o->target_bytes;
        return ZB_OK;
    }
    for (i = 0; i < 2; i++) {
        const char *v = ice_metadata_property(m, keys[i]);
        uint64_t u;

        if (v == NULL)
            continue;
        if (zb_str_to_u64(&u, v) < 0 || u == 0 || u > INT64_MAX)
            return zb_fail(ctx, ZB_EUNSAFE, "%s: table property %s=%s is not "
                           "a positive byte count; nothing rewritten", table,
                           keys[i], v);
        *out = (int64_t)u;
        return ZB_OK;
    }
    return ZB_OK;
}

static void skip(zb_rewrite_manifests_result *r, const char *fmt, ...)
    ZB_PRINTF(2, 3);

static void skip(zb_rewrite_manifests_result *r, const char *fmt, ...)
{
    va_list ap;

    r->skipped = 1;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

static int attempt(rw *w, const zb_rewrite_manifests_opts *o, int min_input)
{
    zb_rewrite_manifests_result *r = w->r;
    uint64_t before, after;
    int rc;

    if ((rc = target_bytes(&w->target, w->ctx, w->m, o, w->tbl->ident)) < 0)
        return rc;
    r->target_bytes = w->target;
    if (w->snap == NULL) {
        skip(r, "the table has no snapshot");
        return ZB_OK;
    }
    if (w->snap->manifest_list == NULL) {
        skip(r, "snapshot %lld has no manifest list (v1 \"manifests\")",
             (long long)w->snap->snapshot_id);
        return ZB_OK;
    }
    if ((rc = count_manifests(w)) < 0)
        return rc;
    if (r->data_manifests < (uint64_t)min_input) {
        skip(r, "%llu data manifest(s), fewer than min_input_manifests=%d",
             (unsigned long long)r->data_manifests, min_input);
        return ZB_OK;
    }
    w->rewrite[0] = 1;
    w->rewrite[1] = r->delete_manifests >= (uint64_t)min_input;
    if ((rc = walk(w, count_entry)) < 0 || (rc = pack(w)) < 0)
        return rc;
    before = r->data_manifests + (w->rewrite[1] ? r->delete_manifests : 0);
    after = w->outs.len;
    r->manifests_replaced = before;
    r->manifests_kept = r->data_manifests + r->delete_manifests - before;
    r->manifests_created = after;
    r->partitions = w->groups.len;
    if (after >= before && r->spread_after >= r->spread_before) {
        skip(r, "the layout is already good: %llu manifest(s), partition "
             "spread %llu (a rewrite gives %llu, %llu)",
             (unsigned long long)before,
             (unsigned long long)r->spread_before,
             (unsigned long long)after,
             (unsigned long long)r->spread_after);
        return ZB_OK;
    }
    if (w->t->dry_run)
        return ZB_OK;
    r->attempts++;
    return write_and_commit(w);
}

int zb_rewrite_manifests(const zb_op_target *t, zb_ctx *ctx,
                         const zb_rewrite_manifests_opts *o,
                         zb_rewrite_manifests_result *r)
{
    zb_rewrite_manifests_opts dflt = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    int max, min_input, i, rc = ZB_OK, tries = 0;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && r);
    if (o == NULL)
        o = &dflt;
    max = o->max_attempts > 0 ? o->max_attempts : DEFAULT_ATTEMPTS;
    min_input = o->min_input_manifests > 0 ? o->min_input_manifests : 2;
    for (i = 1; i <= max; i++) {
        zb_table *tbl = NULL;
        rw w;

        memset(r, 0, sizeof *r);
        r->snapshot_id = -1;
        r->attempts = tries;
        memset(&w, 0, sizeof w);
        w.ctx = ctx;
        w.t = t;
        w.r = r;
        w.max_open = o->max_open_writers > 0 ? o->max_open_writers
                                             : DEFAULT_OPEN_WRITERS;
        zb_vec_init(&w.groups, sizeof(group), SIZE_MAX / 2);
        zb_vec_init(&w.outs, sizeof(out_mf), SIZE_MAX / 2);
        zb_vec_init(&w.written, sizeof(char *), SIZE_MAX / 2);
        zb_buf_init(&w.key, 1 << 20);
        zb_buf_init(&w.tmp, 1 << 20);
        if (zb_arena_new(&w.arena, (size_t)1 << 34) < 0 ||
            (w.gix = json_object()) == NULL)
            rc = zb_fail_oom(ctx);
        else if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident,
                                             &tbl)) == ZB_OK) {
            w.tbl = tbl;
            w.m = tbl->meta;
            w.v = tbl->meta->format_version;
            w.snap = ice_metadata_current_snapshot(tbl->meta);
            rc = attempt(&w, o, min_input);
        }
        tries = r->attempts;
        rw_free(&w);
        zb_table_free(tbl);
        if (rc != ZB_ECONFLICT || i == max)
            break;
        zb_err_clear(&ctx->err);
    }
    return rc;
}

int zb_rewrite_manifests_report(zb_buf *out, const char *table,
                                const zb_rewrite_manifests_result *r,
                                int dry_run)
{
    int rc;

    if (r->skipped)
        return zb_buf_appendf(out, "%s: skipped -- %s\n", table, r->reason);
    if ((rc = zb_buf_appendf(out, "%s: %llu data manifest(s) holding %llu "
                             "entries -> %llu\n", table,
                             (unsigned long long)r->data_manifests,
                             (unsigned long long)r->data_entries,
                             (unsigned long long)r->new_data_manifests)) < 0 ||
        (rc = zb_buf_appendf(out, "  partition spread %llu -> %llu\n",
                             (unsigned long long)r->spread_before,
                             (unsigned long long)r->spread_after)) < 0 ||
        (rc = zb_buf_appendf(out, "  manifests %llu -> %llu\n",
                             (unsigned long long)(r->data_manifests +
                                                  r->delete_manifests),
                             (unsigned long long)(r->manifests_created +
                                                  r->manifests_kept))) < 0)
        return rc;
    if (dry_run)
        rc = zb_buf_appendf(out, "  would commit the rewrite\n");
    return rc;
}

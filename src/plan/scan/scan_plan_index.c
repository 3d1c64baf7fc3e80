/*
 * plan/scan/scan_plan_index.c - the delete index of a scan plan: every live
 * delete file of the snapshot, deep-copied into one arena, in three
 * sorted lists so that finding the deletes of one data file is a few
 * binary searches (format/spec.md "Scan Planning").
 *
 *   refd    deletion vectors, and position delete files that name their
 *           one data file (referenced_data_file, or file_path bounds,
 *           field 2147483546, with lower == upper): sorted by the
 *           referenced path without scheme and authority, then content
 *           (DVs first), then data sequence number;
 *   part    the other position deletes and the equality deletes of
 *           partitioned specs: sorted by spec id, partition key, content,
 *           sequence number;
 *   global  equality deletes of unpartitioned specs, by sequence number.
 *
 * Call order: index_init, index_add for each delete entry, index_seal
 * (sorts), then index_match per data file, index_free.
 *
 * The partition key is a byte string: per value a tag (0 null, 1 set),
 * then for a set value its length (4 bytes) and its Appendix D binary
 * form, floats with NaN normalised (the spec compares partition floats
 * by their normalised bits). Two tuples of one spec are equal when their
 * keys are.
 */
#define ZB_MODULE "plan"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/scan/scan_plan_int.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

#define FILE_PATH_FIELD_ID 2147483546
#define INDEX_MAX_ENTRIES ((size_t)1 << 28)

/* --- paths -------------------------------------------------------------- */

size_t zb_scan_path_prefix_len(const char *p, size_t len)
{
    size_t i = 0, j;

    if (len == 0 || !((p[0] >= 'a' && p[0] <= 'z') ||
                      (p[0] >= 'A' && p[0] <= 'Z')))
        return 0;
    while (i < len && ((p[i] >= 'a' && p[i] <= 'z') ||
                       (p[i] >= 'A' && p[i] <= 'Z') ||
                       (p[i] >= '0' && p[i] <= '9') || p[i] == '+' ||
                       p[i] == '.' || p[i] == '-'))
        i++;
    if (i >= len || p[i] != ':')
        return 0;
    i++;
    if (i + 1 >= len || p[i] != '/' || p[i + 1] != '/')
        return i;
    for (j = i + 2; j < len && p[j] != '/'; j++)
        ;
    return j;
}

const char *zb_scan_path_strip(const char *path)
{
    if (path == NULL)
        return NULL;
    return path + zb_scan_path_prefix_len(path, strlen(path));
}

int zb_scan_path_same(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return 0;
    if (strcmp(a, b) == 0)
        return 1;
    return strcmp(zb_scan_path_strip(a), zb_scan_path_strip(b)) == 0;
}

/* --- partition keys ----------------------------------------------------- */

int zb_scan__partition_key(zb_buf *out, zb_ctx *ctx, const ice_data_file *f)
{
    size_t i;
    int rc;

    zb_buf_clear(out);
    for (i = 0; i < f->n_partition; i++) {
        const ice_value *v = &f->partition[i];
        ice_value nv = *v;
        size_t at;
        uint32_t n;

        if (v->is_null || v->type == ICE_UNKNOWN) {
            if ((rc = zb_buf_putc(out, 0)) < 0)
                return zb_fail_oom(ctx);
            continue;
        }
        if (v->type == ICE_FLOAT && isnan(v->u.f))
            nv.u.f = NAN;
        else if (v->type == ICE_DOUBLE && isnan(v->u.d))
            nv.u.d = NAN;
        if ((rc = zb_buf_append(out, "\1\0\0\0\0", 5)) < 0)
            return zb_fail_oom(ctx);
        at = out->len;
        if ((rc = ice_value_to_bytes(out, ctx, &nv)) < 0)
            return zb_err_prefix(ctx, "partition field %s",
                                 f->partition_names ?
                                 f->partition_names[i] : "?");
        n = (uint32_t)(out->len - at);
        memcpy(out->ptr + at - 4, &n, 4);
    }
    return ZB_OK;
}

int zb_scan__spec_unpartitioned(const ice_partition_spec *spec,
                                const ice_data_file *f)
{
    size_t i;

    if (spec == NULL)
        return f->n_partition == 0;
    for (i = 0; i < spec->n_fields; i++) {
        ice_transform t;
        zb_ctx quiet;
        zb_ctx_init(&quiet);
        if (ice_transform_parse(&t, &quiet, spec->fields[i].transform) < 0 ||
            t.kind != ICE_TR_VOID)
            return 0;
    }
    return 1;
}

/* --- deep copy of a delete file ----------------------------------------- */

static void *dup_mem(zb_arena *a, const void *p, size_t n, int *oom)
{
    void *q;

    if (p == NULL || n == 0)
        return NULL;
    if ((q = zb_arena_alloc(a, n)) == NULL) {
        *oom = 1;
        return NULL;
    }
    memcpy(q, p, n);
    return q;
}

static const char *dup_str(zb_arena *a, const char *s, int *oom)
{
    char *q;

    if (s == NULL)
        return NULL;
    if ((q = zb_arena_strdup(a, s)) == NULL)
        *oom = 1;
    return q;
}

static void dup_lmap(zb_arena *a, ice_long_map *m, int *oom)
{
    size_t bytes;

    if (zb_mul_overflow(&bytes, m->n, sizeof *m->items)) {
        *oom = 1;
        return;
    }
    m->items = dup_mem(a, m->items, bytes, oom);
}

static void dup_bmap(zb_arena *a, ice_bytes_map *m, int *oom)
{
    ice_metric_bytes *items;
    size_t i;

    if (m->n == 0) {
        m->items = NULL;
        return;
    }
    if ((items = zb_arena_calloc(a, m->n, sizeof *items)) == NULL) {
        *oom = 1;
        return;
    }
    for (i = 0; i < m->n; i++) {
        items[i] = m->items[i];
        items[i].ptr = dup_mem(a, m->items[i].ptr, m->items[i].len, oom);
    }
    m->items = items;
}

/* Copies src into dst, every pointer into a. ZB_OK or ZB_ENOMEM. */
static int copy_data_file(ice_data_file *dst, zb_arena *a,
                          const ice_data_file *src)
{
    ice_value *pv = NULL;
    const char **names = NULL;
    size_t i;
    int oom = 0;

    *dst = *src;
    dst->file_path = dup_str(a, src->file_path, &oom);
    dst->file_format = dup_str(a, src->file_format, &oom);
    dst->referenced_data_file = dup_str(a, src->referenced_data_file, &oom);
    if (src->n_partition > 0) {
        pv = zb_arena_calloc(a, src->n_partition, sizeof *pv);
        names = zb_arena_calloc(a, src->n_partition, sizeof *names);
        if (pv == NULL || names == NULL)
            return ZB_ENOMEM;
        for (i = 0; i < src->n_partition; i++) {
            pv[i] = src->partition[i];
            if (!pv[i].is_null && (pv[i].type == ICE_STRING ||
                                   pv[i].type == ICE_BINARY ||
                                   pv[i].type == ICE_FIXED))
                pv[i].u.bin.ptr = dup_mem(a, pv[i].u.bin.ptr,
                                          pv[i].u.bin.len, &oom);
            names[i] = src->partition_names ?
                dup_str(a, src->partition_names[i], &oom) : NULL;
        }
        dst->partition_field_ids = src->partition_field_ids ?
            dup_mem(a, src->partition_field_ids,
                    src->n_partition * sizeof(int32_t), &oom) : NULL;
    }
    dst->partition = pv;
    dst->partition_names = src->partition_names ? names : NULL;
    dup_lmap(a, &dst->column_sizes, &oom);
    dup_lmap(a, &dst->value_counts, &oom);
    dup_lmap(a, &dst->null_value_counts, &oom);
    dup_lmap(a, &dst->nan_value_counts, &oom);
    dup_bmap(a, &dst->lower_bounds, &oom);
    dup_bmap(a, &dst->upper_bounds, &oom);
    dst->key_metadata = dup_mem(a, src->key_metadata, src->key_metadata_len,
                                &oom);
    dst->split_offsets = dup_mem(a, src->split_offsets,
                                 src->n_split_offsets * sizeof(int64_t), &oom);
    dst->equality_ids = dup_mem(a, src->equality_ids,
                                src->n_equality_ids * sizeof(int32_t), &oom);
    return oom ? ZB_ENOMEM : ZB_OK;
}

int zb_scan__data_file_copy(ice_data_file *dst, zb_arena *a,
                            const ice_data_file *src)
{
    return copy_data_file(dst, a, src);
}

/* --- building ----------------------------------------------------------- */

int zb_scan__index_init(zb_del_index *x, zb_ctx *ctx, size_t max_bytes)
{
    memset(x, 0, sizeof *x);
    if (zb_arena_new(&x->arena, max_bytes) < 0)
        return zb_fail_oom(ctx);
    zb_vec_init(&x->refd, sizeof(zb_del_entry *), INDEX_MAX_ENTRIES);
    zb_vec_init(&x->part, sizeof(zb_del_entry *), INDEX_MAX_ENTRIES);
    zb_vec_init(&x->global, sizeof(zb_del_entry *), INDEX_MAX_ENTRIES);
    zb_buf_init(&x->tmp, (size_t)1 << 20);
    return ZB_OK;
}

void zb_scan__index_free(zb_del_index *x)
{
    zb_arena_free(x->arena);
    zb_vec_free(&x->refd);
    zb_vec_free(&x->part);
    zb_vec_free(&x->global);
    zb_buf_free(&x->tmp);
    memset(x, 0, sizeof *x);
}

/* The path a position delete file's bounds of file_path pin, or NULL. */
static const char *bounds_path(zb_arena *a, const ice_data_file *f, int *oom)
{
    const ice_metric_bytes *lo = NULL, *hi = NULL;
    size_t i;

    for (i = 0; i < f->lower_bounds.n; i++)
        if (f->lower_bounds.items[i].field_id == FILE_PATH_FIELD_ID)
            lo = &f->lower_bounds.items[i];
    for (i = 0; i < f->upper_bounds.n; i++)
        if (f->upper_bounds.items[i].field_id == FILE_PATH_FIELD_ID)
            hi = &f->upper_bounds.items[i];
    if (lo == NULL || hi == NULL || lo->len != hi->len || lo->len == 0 ||
        memcmp(lo->ptr, hi->ptr, lo->len) != 0 ||
        memchr(lo->ptr, 0, lo->len) != NULL)
        return NULL;
    {
        char *s = zb_arena_strndup(a, (const char *)lo->ptr, lo->len);
        if (s == NULL)
            *oom = 1;
        return s;
    }
}

static int index_oom(zb_ctx *ctx, const ice_data_file *f)
{
    return zb_fail(ctx, ZB_ENOMEM, "delete index: out of memory (or past"
                   " its cap) adding %s", f->file_path ? f->file_path : "?");
}

int zb_scan__index_add(zb_del_index *x, zb_ctx *ctx,
                       const ice_manifest_entry *e,
                       const ice_partition_spec *spec, int32_t spec_id,
                       const char *uri)
{
    const ice_data_file *src = &e->data_file;
    zb_del_entry *d;
    zb_vec *list;
    int oom = 0, rc;

    if ((rc = zb_scan__partition_key(&x->tmp, ctx, src)) < 0)
        return rc;
    if ((d = zb_arena_calloc(x->arena, 1, sizeof *d)) == NULL)
        return index_oom(ctx, src);
    if (copy_data_file(&d->file, x->arena, src) < 0)
        return index_oom(ctx, src);
    d->f.file = &d->file;
    d->f.data_sequence_number = e->sequence_number;
    d->f.spec_id = spec_id;
    d->f.uri = dup_str(x->arena, uri, &oom);
    d->key_len = x->tmp.len;
    d->key = dup_mem(x->arena, x->tmp.ptr, x->tmp.len, &oom);
    d->unpartitioned = zb_scan__spec_unpartitioned(spec, src);
    if (ice_data_file_is_dv(src) && src->referenced_data_file == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "deletion vector %s has no"
                       " referenced_data_file", src->file_path);
    if (src->content == ICE_CONTENT_POSITION_DELETES) {
        const char *ref = d->file.referenced_data_file;
        if (ref == NULL)
            ref = bounds_path(x->arena, src, &oom);
        d->ref = ref ? zb_scan_path_strip(ref) : NULL;
        list = d->ref ? &x->refd : &x->part;
    } else if (src->content == ICE_CONTENT_EQUALITY_DELETES) {
        list = d->unpartitioned ? &x->global : &x->part;
    } else {
        return zb_fail(ctx, ZB_ECORRUPT, "delete manifest lists %s with"
                       " content %d", src->file_path, (int)src->content);
    }
    if (oom)
        return index_oom(ctx, src);
    if (zb_vec_append(list, &d) < 0)
        return index_oom(ctx, src);
    x->n_entries++;
    return ZB_OK;
}

/* Rank within a group: DVs, position deletes, equality deletes. */
static int rank(const zb_del_entry *d)
{
    if (d->file.content == ICE_CONTENT_EQUALITY_DELETES)
        return 2;
    return ice_data_file_is_dv(&d->file) ? 0 : 1;
}

static int cmp_seq(const zb_del_entry *a, const zb_del_entry *b)
{
    if (a->f.data_sequence_number != b->f.data_sequence_number)
        return a->f.data_sequence_number < b->f.data_sequence_number ? -1 : 1;
    return 0;
}

static int cmp_key(int32_t sa, const uint8_t *ka, size_t la, int32_t sb,
                   const uint8_t *kb, size_t lb)
{
    int c;

    if (sa != sb)
        return sa < sb ? -1 : 1;
    c = la && lb ? memcmp(ka, kb, la < lb ? la : lb) : 0;
    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb;
}

static int cmp_refd(const void *pa, const void *pb)
{
    const zb_del_entry *a = *(zb_del_entry *const *)pa;
    const zb_del_entry *b = *(zb_del_entry *const *)pb;
    int c = strcmp(a->ref, b->ref);

    if (c != 0)
        return c;
    if (rank(a) != rank(b))
        return rank(a) - rank(b);
    return cmp_seq(a, b);
}

static int cmp_part(const void *pa, const void *pb)
{
    const zb_del_entry *a = *(zb_del_entry *const *)pa;
    const zb_del_entry *b = *(zb_del_entry *const *)pb;
    int c = cmp_key(a->f.spec_id, a->key, a->key_len, b->f.spec_id, b->key,
                    b->key_len);

    if (c != 0)
        return c;
    if (rank(a) != rank(b))
        return rank(a) - rank(b);
    return cmp_seq(a, b);
}

static int cmp_global(const void *pa, const void *pb)
{
    return cmp_seq(*(zb_del_entry *const *)pa, *(zb_del_entry *const *)pb);
}

void zb_scan__index_seal(zb_del_index *x)
{
    if (x->refd.len > 1)
        qsort(x->refd.items, x->refd.len, sizeof(zb_del_entry *), cmp_refd);
    if (x->part.len > 1)
        qsort(x->part.items, x->part.len, sizeof(zb_del_entry *), cmp_part);
    if (x->global.len > 1)
        qsort(x->global.items, x->global.len, sizeof(zb_del_entry *),
              cmp_global);
}

/* --- matching ----------------------------------------------------------- */

static int push(zb_vec *out, zb_ctx *ctx, zb_del_entry *d)
{
    if (zb_vec_append(out, &d->f) < 0)
        return zb_fail_oom(ctx);
    d->used = 1;
    return ZB_OK;
}

/* Sorts out's files from index from on by sequence number (few:
 * insertion sort). */
static void sort_by_seq(zb_vec *out, size_t from)
{
    zb_scan_file *at;
    size_t i, j, n;

    if (out->len <= from + 1)
        return;
    at = (zb_scan_file *)out->items + from;
    n = out->len - from;
    for (i = 1; i < n; i++) {
        zb_scan_file t = at[i];
        for (j = i; j > 0 && at[j - 1].data_sequence_number >
             t.data_sequence_number; j--)
            at[j] = at[j - 1];
        at[j] = t;
    }
}

int zb_scan__index_match(zb_vec *out, zb_del_index *x, zb_ctx *ctx,
                         const char *path, int32_t spec_id,
                         const uint8_t *key, size_t key_len, int64_t seq)
{
    zb_del_entry **refd = x->refd.items, **part = x->part.items;
    zb_del_entry **glob = x->global.items;
    zb_del_entry *dv = NULL;
    const char *stripped = zb_scan_path_strip(path);
    size_t lo, hi, i, n_pos_start, n_eq_start;
    int rc;

    out->len = 0;
    /* 1. entries naming this file: DVs and targeted position deletes */
    lo = 0;
    hi = x->refd.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(refd[mid]->ref, stripped) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i < x->refd.len && strcmp(refd[i]->ref, stripped) == 0;
         i++) {
        zb_del_entry *d = refd[i];
        if (seq > d->f.data_sequence_number)
            continue;
        /* Named by path but filed under another partition: the metadata
         * is corrupt (Java's scan refuses it too). Skipping it would let
         * a rewrite bring its rows back for good. */
        if (cmp_key(d->f.spec_id, d->key, d->key_len, spec_id, key,
                    key_len) != 0)
            return zb_fail(ctx, ZB_ECORRUPT, "delete file %s names data "
                           "file %s but is filed under partition spec %d "
                           "and another partition than the data file's "
                           "(spec %d): the table's metadata is corrupt",
                           d->file.file_path, path, (int)d->f.spec_id,
                           (int)spec_id);
        if (ice_data_file_is_dv(&d->file)) {
            if (dv != NULL)
                return zb_fail(ctx, ZB_ECORRUPT, "data file %s has two"
                               " deletion vectors (%s at %lld and %s at"
                               " %lld)", path, dv->file.file_path,
                               (long long)dv->file.content_offset,
                               d->file.file_path,
                               (long long)d->file.content_offset);
            dv = d;
        }
    }
    if (dv != NULL && (rc = push(out, ctx, dv)) < 0)
        return rc;
    n_pos_start = out->len;
    if (dv == NULL) {
        for (i = lo; i < x->refd.len &&
             strcmp(refd[i]->ref, stripped) == 0; i++) {
            zb_del_entry *d = refd[i];
            if (ice_data_file_is_dv(&d->file) ||
                cmp_key(d->f.spec_id, d->key, d->key_len, spec_id, key,
                        key_len) != 0 ||
                seq > d->f.data_sequence_number)
                continue;
            if ((rc = push(out, ctx, d)) < 0)
                return rc;
        }
    }
    /* 2. the spec + partition group: position then equality deletes */
    lo = 0;
    hi = x->part.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(part[mid]->f.spec_id, part[mid]->key, part[mid]->key_len,
                    spec_id, key, key_len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i < x->part.len &&
         cmp_key(part[i]->f.spec_id, part[i]->key, part[i]->key_len,
                 spec_id, key, key_len) == 0 &&
         rank(part[i]) < 2; i++) {
        if (dv == NULL && seq <= part[i]->f.data_sequence_number &&
            (rc = push(out, ctx, part[i])) < 0)
            return rc;
    }
    sort_by_seq(out, n_pos_start);
    n_eq_start = out->len;
    for (; i < x->part.len &&
         cmp_key(part[i]->f.spec_id, part[i]->key, part[i]->key_len,
                 spec_id, key, key_len) == 0; i++) {
        if (seq < part[i]->f.data_sequence_number &&
            (rc = push(out, ctx, part[i])) < 0)
            return rc;
    }
    /* 3. global equality deletes: those above seq */
    lo = 0;
    hi = x->global.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (glob[mid]->f.data_sequence_number <= seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i < x->global.len; i++)
        if ((rc = push(out, ctx, glob[i])) < 0)
            return rc;
    sort_by_seq(out, n_eq_start);
    return ZB_OK;
}

uint64_t zb_scan__index_unused(const zb_del_index *x)
{
    const zb_vec *lists[3] = { &x->refd, &x->part, &x->global };
    uint64_t n = 0;
    size_t l, i;

    for (l = 0; l < 3; l++)
        for (i = 0; i < lists[l]->len; i++)
            n += !((zb_del_entry **)lists[l]->items)[i]->used;
    return n;
}

/* --- copying a task ------------------------------------------------------- */

static int copy_scan_file(zb_scan_file *dst, zb_arena *a,
                          const zb_scan_file *src)
{
    ice_data_file *f;
    int oom = 0;

    *dst = *src;
    if ((f = zb_arena_alloc(a, sizeof *f)) == NULL ||
        copy_data_file(f, a, src->file) < 0)
        return ZB_ENOMEM;
    dst->file = f;
    dst->uri = dup_str(a, src->uri, &oom);
    return oom ? ZB_ENOMEM : ZB_OK;
}

int zb_scan_task_copy(zb_scan_task *out, zb_ctx *ctx, zb_arena *arena,
                      const zb_scan_task *task)
{
    zb_scan_file *dels = NULL;
    size_t i;

    ZB_ASSERT_ARG(out && ctx && arena && task);
    memset(out, 0, sizeof *out);
    if (task->n_deletes > 0 &&
        (dels = zb_arena_calloc(arena, task->n_deletes,
                                sizeof *dels)) == NULL)
        return zb_fail_oom(ctx);
    if (copy_scan_file(&out->data, arena, &task->data) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < task->n_deletes; i++)
        if (copy_scan_file(&dels[i], arena, &task->deletes[i]) < 0)
            return zb_fail_oom(ctx);
    out->n_deletes = task->n_deletes;
    out->deletes = dels;
    return ZB_OK;
}

/*
 * plan/read/scan_delindex.c - the distinct delete files of a group of scan
 * tasks, each with the tasks that list it, found through a hash of their
 * paths (deletion vectors: path and blob offset, since one Puffin file
 * holds the DVs of many data files). Also a path table for matching the
 * file_path column of position deletes to data files.
 */
#include <string.h>

#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read_int.h"
#include "util/alloc.h"

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t file_hash(const ice_data_file *df)
{
    uint64_t h = fnv(df->file_path, strlen(df->file_path),
                     0xcbf29ce484222325ULL);

    if (ice_data_file_is_dv(df))
        h = fnv(&df->content_offset, sizeof df->content_offset, h);
    return h;
}

static int same_file(const ice_data_file *a, const ice_data_file *b)
{
    if (strcmp(a->file_path, b->file_path) != 0)
        return 0;
    if (ice_data_file_is_dv(a) || ice_data_file_is_dv(b))
        return a->content_offset == b->content_offset;
    return 1;
}

static size_t pow2_above(size_t n)
{
    size_t p = 16;

    while (p < 2 * n)
        p *= 2;
    return p;
}

int zb_scan__delindex_build(zb_delindex *out, const zb_scan_task *tasks,
                            size_t n)
{
    size_t refs = 0, t, d, cap, i, *slots = NULL, *counts = NULL;
    size_t *ref_file = NULL, r;
    int rc = ZB_ENOMEM;

    memset(out, 0, sizeof *out);
    for (t = 0; t < n; t++)
        refs += tasks[t].n_deletes;
    if (refs == 0)
        return ZB_OK;
    cap = pow2_above(refs);
    slots = zb_malloc(cap * sizeof *slots);
    ref_file = zb_malloc(refs * sizeof *ref_file);
    out->files = zb_calloc(refs, sizeof *out->files);
    out->task_buf = zb_malloc(refs * sizeof *out->task_buf);
    counts = zb_calloc(refs + 1, sizeof *counts);
    if (!slots || !ref_file || !out->files || !out->task_buf || !counts)
        goto done;
    for (i = 0; i < cap; i++)
        slots[i] = SIZE_MAX;
    /* Distinct files in order of first appearance. */
    r = 0;
    for (t = 0; t < n; t++)
        for (d = 0; d < tasks[t].n_deletes; d++, r++) {
            const zb_scan_file *f = &tasks[t].deletes[d];
            size_t s = (size_t)file_hash(f->file) & (cap - 1);
            while (slots[s] != SIZE_MAX &&
                   !same_file(out->files[slots[s]].f->file, f->file))
                s = (s + 1) & (cap - 1);
            if (slots[s] == SIZE_MAX) {
                slots[s] = out->n;
                out->files[out->n++].f = f;
            }
            ref_file[r] = slots[s];
            counts[slots[s]]++;
        }
    /* Task lists, back to back (a task listing a file twice counts once
     * more: harmless, the lists are only walked). */
    for (i = 0, r = 0; i < out->n; i++) {
        out->files[i].tasks = out->task_buf + r;
        r += counts[i];
    }
    r = 0;
    for (t = 0; t < n; t++)
        for (d = 0; d < tasks[t].n_deletes; d++, r++) {
            zb_delfile *df = &out->files[ref_file[r]];
            if (df->n_tasks == 0 || df->tasks[df->n_tasks - 1] != t)
                df->tasks[df->n_tasks++] = t;
        }
    rc = ZB_OK;
done:
    zb_free(slots);
    zb_free(ref_file);
    zb_free(counts);
    if (rc < 0)
        zb_scan__delindex_free(out);
    return rc;
}

void zb_scan__delindex_free(zb_delindex *x)
{
    zb_free(x->files);
    zb_free(x->task_buf);
    memset(x, 0, sizeof *x);
}

/* --- data paths ---------------------------------------------------------- */

/* The path without "scheme://authority" (or "scheme:"). */
static const char *strip(const char *p, size_t len, size_t *out_len)
{
    size_t i = zb_scan_path_prefix_len(p, len);

    *out_len = len - i;
    return p + i;
}

int zb_scan__pathmap_build(zb_pathmap *m, const zb_scan_task *tasks,
                           const size_t *cand, size_t n)
{
    size_t i;

    memset(m, 0, sizeof *m);
    m->tasks = tasks;
    m->cap = pow2_above(n);
    if ((m->slots = zb_malloc(m->cap * sizeof *m->slots)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < m->cap; i++)
        m->slots[i] = SIZE_MAX;
    for (i = 0; i < n; i++) {
        const char *p = tasks[cand[i]].data.file->file_path, *sp;
        size_t sl, s;
        sp = strip(p, strlen(p), &sl);
        s = (size_t)fnv(sp, sl, 0xcbf29ce484222325ULL) & (m->cap - 1);
        while (m->slots[s] != SIZE_MAX)
            s = (s + 1) & (m->cap - 1);
        m->slots[s] = cand[i];
    }
    return ZB_OK;
}

size_t zb_scan__pathmap_find(const zb_pathmap *m, const char *p, size_t len)
{
    size_t sl, s, found = SIZE_MAX;
    const char *sp = strip(p, len, &sl);

    if (m->cap == 0)
        return SIZE_MAX;
    s = (size_t)fnv(sp, sl, 0xcbf29ce484222325ULL) & (m->cap - 1);
    for (; m->slots[s] != SIZE_MAX; s = (s + 1) & (m->cap - 1)) {
        const char *dp = m->tasks[m->slots[s]].data.file->file_path;
        size_t dl = strlen(dp);
        if (dl == len && memcmp(dp, p, len) == 0)
            return m->slots[s];              /* as written: the best */
        if (found == SIZE_MAX && zb_scan__same_path(p, len, dp, dl))
            found = m->slots[s];
    }
    return found;
}

void zb_scan__pathmap_free(zb_pathmap *m)
{
    zb_free(m->slots);
    memset(m, 0, sizeof *m);
}

/* --- paths ------------------------------------------------------------- */

int zb_scan__same_path(const char *a, size_t alen, const char *b,
                       size_t blen)
{
    size_t sa, sb;

    if (alen == blen && memcmp(a, b, alen) == 0)
        return 1;
    sa = zb_scan_path_prefix_len(a, alen);
    sb = zb_scan_path_prefix_len(b, blen);
    return alen - sa == blen - sb && memcmp(a + sa, b + sb, alen - sa) == 0;
}

/*
 * ops/reachable/reachable_files.c - normalized paths, record files, sorted path
 * streams and the merge join (see reachable_files.h).
 *
 * A record is a fixed header (length, tag, size, mtime) and the path's
 * bytes. zb_pathfile writes records to a spill file in order and reads
 * them back. zb_pathsort keeps added records in chunks (an eighth of
 * its cap, 4 KiB to 1 MiB) with an
 * array of pointers to them; when the next chunk or a larger pointer
 * array would pass the cap (or the budget refuses it), the pointers are
 * sorted, the records written to a zb_pathfile as one run (adjacent
 * duplicates merged), and the chunks freed. zb_pathsort_next merges the
 * runs and the records still in memory with a binary heap of sources
 * keyed by each source's current path, and merges equal paths into one
 * record. Runs are merged in one pass: each holds a 64 KiB spill buffer,
 * so a cap of 64 MiB and a few hundred MiB of paths cost a few runs; when
 * MAX_RUNS runs exist (a tiny cap), they are first merged into one.
 */
#define ZB_MODULE "reach"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/spill.h"
#include "ops/reachable/reachable_files.h"
#include "util/alloc.h"
#include "util/err.h"
#include "zamboni/budget.h"

/* ---- normalization ----------------------------------------------------- */

static int lower_eq(const char *s, size_t n, const char *lit)
{
    size_t i;

    if (strlen(lit) != n)
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lit[i])
            return 0;
    }
    return 1;
}

static size_t scheme_len(const char *s)
{
    size_t i = 0;

    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
           (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' ||
           s[i] == '.')
        i++;
    /* One letter before ':' is a drive, not a scheme. */
    return s[i] == ':' && i > 1 ? i : 0;
}

/* Appends a path part with '/' runs collapsed and no trailing '/'. */
static int put_path(zb_buf *out, const char *p)
{
    size_t start = out->len;

    for (; *p; p++) {
        if (*p == '/' && out->len > start && out->ptr[out->len - 1] == '/')
            continue;
        if (zb_buf_putc(out, *p) < 0)
            return -1;
    }
    if (out->len > start + 1 && out->ptr[out->len - 1] == '/')
        zb_buf_truncate(out, out->len - 1);
    return 0;
}

int zb_reach_normalize(zb_buf *out, zb_ctx *ctx, const char *uri)
{
    size_t n = scheme_len(uri), i;
    const char *rest;
    int r = 0;

    zb_buf_clear(out);
    if (n == 0)
        r = put_path(out, uri);
    else {
        rest = uri + n + 1;
        if (lower_eq(uri, n, "file") || lower_eq(uri, n, "hdfs") ||
            lower_eq(uri, n, "viewfs")) {
            /* Scheme and authority go: the path is what stays. */
            if (rest[0] == '/' && rest[1] == '/') {
                rest += 2;
                while (*rest && *rest != '/')
                    rest++;
            }
            r = put_path(out, rest);
        } else {
            if (lower_eq(uri, n, "s3a") || lower_eq(uri, n, "s3n"))
                r = zb_buf_puts(out, "s3:");
            else
                for (i = 0; i <= n && r == 0; i++) {
                    char c = uri[i];
                    if (c >= 'A' && c <= 'Z')
                        c = (char)(c - 'A' + 'a');
                    r = zb_buf_putc(out, c);
                }
            if (r == 0 && rest[0] == '/' && rest[1] == '/') {
                const char *a = rest + 2;
                while (*a && *a != '/')
                    a++;
                r = zb_buf_append(out, rest, (size_t)(a - rest));
                rest = a;
            }
            if (r == 0)
                r = put_path(out, rest);
        }
    }
    if (r < 0 || zb_buf_reserve(out, 0) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int zb_reach_under(const char *path, const char *root)
{
    size_t n = strlen(root);

    if (n > 0 && root[n - 1] == '/')
        n--;
    return strncmp(path, root, n) == 0 &&
           (path[n] == '\0' || path[n] == '/');
}

/* ---- record files ------------------------------------------------------ */

typedef struct rec_hdr {
    uint32_t len;
    uint32_t tag;
    uint64_t size;
    int64_t mtime;
} rec_hdr;

struct zb_pathfile {
    zb_spill *sp;
    uint64_t count;
    zb_buf path;
    zb_pathrec rec;
};

int zb_pathfile_open(zb_pathfile **out, zb_ctx *ctx, const char *purpose)
{
    zb_pathfile *f;
    int rc;

    *out = NULL;
    if ((f = zb_calloc(1, sizeof *f)) == NULL)
        return zb_fail_oom(ctx);
    zb_buf_init(&f->path, ZB_REACH_MAX_PATH + 1);
    if ((rc = zb_spill_open(&f->sp, ctx, purpose, 0)) < 0) {
        zb_free(f);
        return rc;
    }
    *out = f;
    return ZB_OK;
}

int zb_pathfile_write(zb_pathfile *f, zb_ctx *ctx, const zb_pathrec *r)
{
    rec_hdr h;
    int rc;

    if (r->len > ZB_REACH_MAX_PATH)
        return zb_fail(ctx, ZB_EINVAL, "path longer than %d bytes: %.64s...",
                       ZB_REACH_MAX_PATH, r->path);
    h.len = (uint32_t)r->len;
    h.tag = r->tag;
    h.size = r->size_bytes;
    h.mtime = r->mtime_ms;
    if ((rc = zb_spill_write(f->sp, ctx, &h, sizeof h)) < 0 ||
        (rc = zb_spill_write(f->sp, ctx, r->path, r->len)) < 0)
        return rc;
    f->count++;
    return ZB_OK;
}

int zb_pathfile_rewind(zb_pathfile *f, zb_ctx *ctx)
{
    return zb_spill_rewind(f->sp, ctx);
}

int zb_pathfile_next(zb_pathfile *f, zb_ctx *ctx, const zb_pathrec **out)
{
    rec_hdr h;
    size_t got = 0;
    int rc;

    if ((rc = zb_spill_read(f->sp, ctx, &h, sizeof h, &got)) < 0)
        return rc;
    if (got == 0)
        return 0;
    if (got < sizeof h &&
        (rc = zb_spill_read_full(f->sp, ctx, (char *)&h + got,
                                 sizeof h - got)) < 0)
        return rc;
    if (h.len > ZB_REACH_MAX_PATH)
        return zb_fail(ctx, ZB_ECORRUPT, "path record of %u bytes in a "
                       "spill file", (unsigned)h.len);
    zb_buf_clear(&f->path);
    if (zb_buf_reserve(&f->path, h.len) < 0)
        return zb_fail_oom(ctx);
    if ((rc = zb_spill_read_full(f->sp, ctx, f->path.ptr, h.len)) < 0)
        return rc;
    f->path.len = h.len;
    f->path.ptr[h.len] = '\0';
    f->rec.path = f->path.ptr;
    f->rec.len = h.len;
    f->rec.tag = h.tag;
    f->rec.size_bytes = h.size;
    f->rec.mtime_ms = h.mtime;
    *out = &f->rec;
    return 1;
}

uint64_t zb_pathfile_count(const zb_pathfile *f)
{
    return f ? f->count : 0;
}

void zb_pathfile_free(zb_pathfile *f)
{
    if (f == NULL)
        return;
    zb_spill_close(f->sp);
    zb_buf_free(&f->path);
    zb_free(f);
}

int zb_pathfile_next_cb(void *f, zb_ctx *ctx, const zb_pathrec **out)
{
    return zb_pathfile_next(f, ctx, out);
}

/* ---- sorted streams ---------------------------------------------------- */

#define CHUNK_BYTES ((size_t)1 << 20)
#define MAX_RUNS 64                /* then the runs are merged into one */
#define REC_ALIGN 8

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    /* records follow, each aligned to REC_ALIGN */
} chunk;

#define CHUNK_HDR ((sizeof(chunk) + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1))

/* A source of the merge: a run, or (index n_runs) the memory records. */
typedef struct source {
    const zb_pathrec *cur;
} source;

struct zb_pathsort {
    char purpose[24];
    uint64_t max_mem;
    size_t chunk_bytes;          /* max_mem / 8 within [4 KiB, 1 MiB] */
    zb_budget *budget;
    zb_pathmem own;              /* the account when none is shared */
    zb_pathmem *mem;             /* own, or the caller's shared one */
    uint64_t mem_used;           /* chunks + pointer array */
    chunk *chunks;               /* newest first */
    rec_hdr **recs;
    size_t n, cap;
    zb_pathfile **runs;
    size_t n_runs;
    uint64_t added;
    int finished;
    /* merging */
    source *src;                 /* n_runs + 1 */
    size_t *heap, n_heap;
    size_t mem_pos;
    zb_pathrec mem_rec;
    zb_buf out_path;
    zb_pathrec out;
    zb_buf norm;                 /* zb_reach_add's normalized path */
};

static const char *rec_path(const rec_hdr *h)
{
    return (const char *)(h + 1);
}

static int cmp_bytes(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);

    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

static int cmp_recs(const void *pa, const void *pb)
{
    const rec_hdr *a = *(const rec_hdr *const *)pa;
    const rec_hdr *b = *(const rec_hdr *const *)pb;

    return cmp_bytes(rec_path(a), a->len, rec_path(b), b->len);
}

int zb_pathsort_new(zb_pathsort **out, zb_ctx *ctx, const char *purpose,
                    uint64_t max_memory_bytes)
{
    return zb_pathsort_new_in(out, ctx, purpose, max_memory_bytes, NULL);
}

int zb_pathsort_new_in(zb_pathsort **out, zb_ctx *ctx, const char *purpose,
                       uint64_t max_memory_bytes, zb_pathmem *mem)
{
    zb_pathsort *s;

    *out = NULL;
    if ((s = zb_calloc(1, sizeof *s)) == NULL)
        return zb_fail_oom(ctx);
    snprintf(s->purpose, sizeof s->purpose, "%s", purpose ? purpose : "paths");
    s->max_mem = max_memory_bytes ? max_memory_bytes : ZB_REACH_DEFAULT_MEMORY;
    s->chunk_bytes = s->max_mem / 8 > CHUNK_BYTES ? CHUNK_BYTES
                     : s->max_mem / 8 < 4096      ? 4096
                                                  : (size_t)(s->max_mem / 8);
    s->budget = ctx->budget;
    s->mem = mem ? mem : &s->own;
    zb_buf_init(&s->out_path, ZB_REACH_MAX_PATH + 1);
    zb_buf_init(&s->norm, ZB_REACH_MAX_PATH + 1);
    *out = s;
    return ZB_OK;
}

/* Sets the stream's memory in use, and its account's. */
static void set_used(zb_pathsort *s, uint64_t v)
{
    s->mem->used = s->mem->used - s->mem_used + v;
    s->mem_used = v;
}

void zb_pathmem_release(zb_pathmem *m)
{
    zb_budget_release(&m->res);
    m->res.budget = NULL;
    m->res.bytes = 0;
    m->used = 0;
}

static void free_chunks(zb_pathsort *s)
{
    while (s->chunks) {
        chunk *c = s->chunks;
        s->chunks = c->next;
        zb_free(c);
    }
    zb_free(s->recs);
    s->recs = NULL;
    s->n = s->cap = 0;
    set_used(s, 0);
}

void zb_pathsort_free(zb_pathsort *s)
{
    size_t i;

    if (s == NULL)
        return;
    free_chunks(s);
    for (i = 0; i < s->n_runs; i++)
        zb_pathfile_free(s->runs[i]);
    zb_free(s->runs);
    zb_free(s->src);
    zb_free(s->heap);
    zb_buf_free(&s->out_path);
    zb_buf_free(&s->norm);
    zb_pathmem_release(&s->own);
    zb_free(s);
}

static int compact_runs(zb_pathsort *s, zb_ctx *ctx);

/* Sorts the memory records and writes them as one run. */
static int spill_run(zb_pathsort *s, zb_ctx *ctx)
{
    zb_pathfile *f = NULL, **runs;
    zb_pathrec r;
    size_t i;
    int rc;

    qsort(s->recs, s->n, sizeof *s->recs, cmp_recs);
    runs = zb_realloc(s->runs, (s->n_runs + 1) * sizeof *runs);
    if (runs == NULL)
        return zb_fail_oom(ctx);
    s->runs = runs;
    if ((rc = zb_pathfile_open(&f, ctx, s->purpose)) < 0)
        return rc;
    s->runs[s->n_runs++] = f;
    for (i = 0; i < s->n;) {
        const rec_hdr *h = s->recs[i];
        r.path = rec_path(h);
        r.len = h->len;
        r.tag = h->tag;
        r.size_bytes = h->size;
        r.mtime_ms = h->mtime;
        for (i++; i < s->n && cmp_recs(&s->recs[i], &h) == 0; i++) {
            r.tag |= s->recs[i]->tag;
            if (s->recs[i]->size > r.size_bytes)
                r.size_bytes = s->recs[i]->size;
            if (s->recs[i]->mtime > r.mtime_ms)
                r.mtime_ms = s->recs[i]->mtime;
        }
        if ((rc = zb_pathfile_write(f, ctx, &r)) < 0)
            return rc;
    }
    if ((rc = zb_spill_drop_buffer(f->sp, ctx)) < 0)
        return rc;
    free_chunks(s);
    if (s->n_runs >= MAX_RUNS)
        return compact_runs(s, ctx);
    return ZB_OK;
}

/*
 * Makes room for extra more bytes of memory: within the cap and the
 * budget, else by spilling. *spilled tells the caller its pointers went.
 * The budget sees the account (every stream sharing it) as one holder.
 */
static int room(zb_pathsort *s, zb_ctx *ctx, uint64_t extra)
{
    uint64_t want = s->mem_used + extra;
    uint64_t total = s->mem->used + extra;
    zb_reservation *r = &s->mem->res;
    int rc;

    if (total <= r->bytes && (want <= s->max_mem || s->n == 0))
        return ZB_OK;
    if (want <= s->max_mem) {
        if (s->budget == NULL) {
            if (total > r->bytes)
                r->bytes = total;     /* counted, not reserved */
            return ZB_OK;
        }
        if (zb_budget_try_grow(r, s->budget, total) == ZB_OK)
            return ZB_OK;
    }
    if (s->n > 0)
        return (rc = spill_run(s, ctx)) < 0 ? rc : 1;
    /* Nothing to spill: one chunk's worth is taken, waiting if needed. */
    if (s->budget == NULL) {
        if (total > r->bytes)
            r->bytes = total;
        return ZB_OK;
    }
    if (r->budget == NULL)
        rc = zb_budget_reserve(r, s->budget, total, ctx->stop);
    else
        rc = zb_budget_grow(r, total, ctx->stop);
    if (rc < 0)
        return zb_fail(ctx, rc, "%s: no memory budget for a path buffer of "
                       "%llu bytes", s->purpose, (unsigned long long)total);
    return ZB_OK;
}

int zb_pathsort_add(zb_pathsort *s, zb_ctx *ctx, const char *path,
                    size_t len, uint32_t tag, uint64_t size_bytes,
                    int64_t mtime_ms)
{
    size_t need = (sizeof(rec_hdr) + len + 1 + REC_ALIGN - 1) &
                  ~(size_t)(REC_ALIGN - 1);
    rec_hdr *h;
    int rc;

    ZB_ASSERT_ARG(!s->finished);
    if (len > ZB_REACH_MAX_PATH)
        return zb_fail(ctx, ZB_EINVAL, "path longer than %d bytes: %.64s...",
                       ZB_REACH_MAX_PATH, path);
    if (zb_ctx_stopped(ctx))
        return zb_fail(ctx, ZB_ECANCELED, "%s: stopped", s->purpose);
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 256;
        rec_hdr **nr;
        if ((rc = room(s, ctx, (ncap - s->cap) * sizeof *nr)) < 0)
            return rc;
        if (rc == 1)   /* spilled: the array is gone */
            return zb_pathsort_add(s, ctx, path, len, tag, size_bytes,
                                   mtime_ms);
        if ((nr = zb_realloc(s->recs, ncap * sizeof *nr)) == NULL)
            return zb_fail_oom(ctx);
        set_used(s, s->mem_used + (ncap - s->cap) * sizeof *nr);
        s->recs = nr;
        s->cap = ncap;
    }
    if (s->chunks == NULL || s->chunks->cap - s->chunks->used < need) {
        size_t cap = need > s->chunk_bytes - CHUNK_HDR
                         ? need
                         : s->chunk_bytes - CHUNK_HDR;
        chunk *c;
        if ((rc = room(s, ctx, cap + CHUNK_HDR)) < 0)
            return rc;
        if (rc == 1)
            return zb_pathsort_add(s, ctx, path, len, tag, size_bytes,
                                   mtime_ms);
        if ((c = zb_malloc(CHUNK_HDR + cap)) == NULL)
            return zb_fail_oom(ctx);
        c->used = 0;
        c->cap = cap;
        c->next = s->chunks;
        s->chunks = c;
        set_used(s, s->mem_used + CHUNK_HDR + cap);
    }
    h = (rec_hdr *)((char *)s->chunks + CHUNK_HDR + s->chunks->used);
    s->chunks->used += need;
    h->len = (uint32_t)len;
    h->tag = tag;
    h->size = size_bytes;
    h->mtime = mtime_ms;
    memcpy(h + 1, path, len);
    ((char *)(h + 1))[len] = '\0';
    s->recs[s->n++] = h;
    s->added++;
    return ZB_OK;
}

static int src_cmp(const zb_pathsort *s, size_t a, size_t b)
{
    const zb_pathrec *x = s->src[a].cur, *y = s->src[b].cur;

    return cmp_bytes(x->path, x->len, y->path, y->len);
}

static void sift_down(zb_pathsort *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i, t;
        if (l < s->n_heap && src_cmp(s, s->heap[l], s->heap[m]) < 0)
            m = l;
        if (r < s->n_heap && src_cmp(s, s->heap[r], s->heap[m]) < 0)
            m = r;
        if (m == i)
            return;
        t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Moves source k to its next record: 1, 0 (ended) or an rc. */
static int src_advance(zb_pathsort *s, zb_ctx *ctx, size_t k)
{
    if (k < s->n_runs)
        return zb_pathfile_next(s->runs[k], ctx, &s->src[k].cur);
    if (s->mem_pos >= s->n)
        return 0;
    {
        const rec_hdr *h = s->recs[s->mem_pos++];
        s->mem_rec.path = rec_path(h);
        s->mem_rec.len = h->len;
        s->mem_rec.tag = h->tag;
        s->mem_rec.size_bytes = h->size;
        s->mem_rec.mtime_ms = h->mtime;
        s->src[k].cur = &s->mem_rec;
    }
    return 1;
}

/* Sets up the merge of the runs and the (sorted) memory records. */
static int merge_start(zb_pathsort *s, zb_ctx *ctx)
{
    size_t k, n_src = s->n_runs + 1;
    int rc;

    s->src = zb_calloc(n_src, sizeof *s->src);
    s->heap = zb_calloc(n_src, sizeof *s->heap);
    s->n_heap = 0;
    s->mem_pos = 0;
    if (s->src == NULL || s->heap == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < n_src; k++) {
        if (k < s->n_runs &&
            (rc = zb_pathfile_rewind(s->runs[k], ctx)) < 0)
            return rc;
        if ((rc = src_advance(s, ctx, k)) < 0)
            return rc;
        if (rc == 1)
            s->heap[s->n_heap++] = k;
    }
    for (k = s->n_heap / 2; k-- > 0;)
        sift_down(s, k);
    return ZB_OK;
}

int zb_pathsort_finish(zb_pathsort *s, zb_ctx *ctx)
{
    ZB_ASSERT_ARG(!s->finished);
    s->finished = 1;
    if (s->n > 0)
        qsort(s->recs, s->n, sizeof *s->recs, cmp_recs);
    return merge_start(s, ctx);
}

/* Advances the top source and restores the heap. */
static int pop_advance(zb_pathsort *s, zb_ctx *ctx)
{
    int rc = src_advance(s, ctx, s->heap[0]);

    if (rc < 0)
        return rc;
    if (rc == 0)
        s->heap[0] = s->heap[--s->n_heap];
    if (s->n_heap > 0)
        sift_down(s, 0);
    return ZB_OK;
}

static int merge_next(zb_pathsort *s, zb_ctx *ctx, const zb_pathrec **out)
{
    const zb_pathrec *top;
    int rc;

    if (s->n_heap == 0)
        return 0;
    top = s->src[s->heap[0]].cur;
    zb_buf_clear(&s->out_path);
    if (zb_buf_append(&s->out_path, top->path, top->len) < 0 ||
        zb_buf_reserve(&s->out_path, 0) < 0)
        return zb_fail_oom(ctx);
    s->out = *top;
    s->out.path = s->out_path.ptr;
    if ((rc = pop_advance(s, ctx)) < 0)
        return rc;
    while (s->n_heap > 0) {
        top = s->src[s->heap[0]].cur;
        if (cmp_bytes(top->path, top->len, s->out.path, s->out.len) != 0)
            break;
        s->out.tag |= top->tag;
        if (top->size_bytes > s->out.size_bytes)
            s->out.size_bytes = top->size_bytes;
        if (top->mtime_ms > s->out.mtime_ms)
            s->out.mtime_ms = top->mtime_ms;
        if ((rc = pop_advance(s, ctx)) < 0)
            return rc;
    }
    *out = &s->out;
    return 1;
}

int zb_pathsort_next(zb_pathsort *s, zb_ctx *ctx, const zb_pathrec **out)
{
    ZB_ASSERT_ARG(s->finished);
    return merge_next(s, ctx, out);
}

/*
 * Merges every run into one, so that the number of open spill files (and
 * of their buffers while merging) stays below MAX_RUNS however small the
 * cap. Called with no record in memory.
 */
static int compact_runs(zb_pathsort *s, zb_ctx *ctx)
{
    zb_pathfile *f = NULL;
    const zb_pathrec *r = NULL;
    size_t k;
    int rc;

    if ((rc = zb_pathfile_open(&f, ctx, s->purpose)) < 0)
        return rc;
    if ((rc = merge_start(s, ctx)) < 0)
        goto done;
    while ((rc = merge_next(s, ctx, &r)) > 0)
        if ((rc = zb_pathfile_write(f, ctx, r)) < 0)
            goto done;
    if (rc < 0 || (rc = zb_spill_drop_buffer(f->sp, ctx)) < 0)
        goto done;
    for (k = 0; k < s->n_runs; k++)
        zb_pathfile_free(s->runs[k]);
    s->runs[0] = f;
    s->n_runs = 1;
    f = NULL;
done:
    zb_free(s->src);
    zb_free(s->heap);
    s->src = NULL;
    s->heap = NULL;
    s->n_heap = 0;
    zb_pathfile_free(f);
    return rc;
}

int zb_pathsort_next_cb(void *s, zb_ctx *ctx, const zb_pathrec **out)
{
    return zb_pathsort_next(s, ctx, out);
}

uint64_t zb_pathsort_added(const zb_pathsort *s)
{
    return s ? s->added : 0;
}

unsigned zb_pathsort_runs(const zb_pathsort *s)
{
    return s ? (unsigned)s->n_runs : 0;
}

int zb_pathsort_add_uri(zb_pathsort *s, zb_ctx *ctx, const char *uri,
                         uint32_t tag, uint64_t size_bytes, int64_t mtime_ms)
{
    int rc;

    if ((rc = zb_reach_normalize(&s->norm, ctx, uri)) < 0)
        return rc;
    return zb_pathsort_add(s, ctx, s->norm.ptr, s->norm.len, tag, size_bytes,
                           mtime_ms);
}

/* ---- the join ------------------------------------------------------------ */

int zb_reach_join(zb_ctx *ctx, zb_path_next_fn next_a, void *a,
                  zb_path_next_fn next_b, void *b, zb_join_fn fn,
                  void *payload)
{
    const zb_pathrec *ra = NULL, *rb = NULL;
    int ha, hb, rc;

    if ((ha = next_a(a, ctx, &ra)) < 0)
        return ha;
    if ((hb = next_b(b, ctx, &rb)) < 0)
        return hb;
    while (ha > 0 || hb > 0) {
        int c = ha <= 0 ? 1 : hb <= 0 ? -1
                : cmp_bytes(ra->path, ra->len, rb->path, rb->len);
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "stopped");
        if ((rc = fn(c <= 0 ? ra : NULL, c >= 0 ? rb : NULL, payload)) != 0)
            return rc;
        if (c <= 0 && (ha = next_a(a, ctx, &ra)) < 0)
            return ha;
        if (c >= 0 && (hb = next_b(b, ctx, &rb)) < 0)
            return hb;
    }
    return ZB_OK;
}

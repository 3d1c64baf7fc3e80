/*
 * ops/compact/compact_carry.c - concurrent deletes carried onto the
 * rewritten files (ops/compact/compact_carry.h).
 */
#define ZB_MODULE "compact"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "exec/arrow/arrow.h"
#include "exec/roaring/roaring.h"
#include "format/parquet/parquet.h"
#include "format/puffin/puffin.h"
#include "ops/compact/compact_carry.h"
#include "ops/compact/compact_carry_sorted.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"

/* Iceberg's reserved field ids of position delete files. */
#define POS_FILE_PATH_ID 2147483546
#define POS_POS_ID 2147483545
#define ARENA_MAX ((size_t)256 << 20)
#define URI_MAX ((size_t)16 << 10)
/* Largest DV blob read (as the row stream's). */
#define DV_MAX_BYTES ((int64_t)1 << 30)

typedef struct note {
    size_t gi;
    const char *path;              /* as the manifest names it */
    const char *ref;               /* a DV's data file */
    int dv;
    int64_t offset, size;          /* the DV blob */
    struct note *next;
} note;

typedef struct written {
    ice_data_file *files;
    size_t n;
} written;

/* What a group's earlier attempts read (issue 21: a retry reads only
 * the delete files noted since, and writes only when there are any). */
typedef struct gathered {
    zb_roaring **pos;              /* per task: positions named */
    const note *read_to;           /* the notes from here on are read */
    int done;                      /* out[] is what they give */
    uint64_t rows;
} gathered;

struct zb_carry {
    size_t n_groups;
    zb_arena *arena;               /* notes and records of this attempt */
    note **notes;                  /* per group */
    written *out;                  /* per group */
    gathered *gs;                  /* per group */
    size_t *n_pos;                 /* per group: length of gs[].pos */
    json_t *pending;               /* files written, not yet committed */
};

int zb_carry_new(zb_carry **out, zb_ctx *ctx, size_t n_groups)
{
    zb_carry *c = zb_calloc(1, sizeof *c);

    *out = NULL;
    if (c == NULL ||
        (c->notes = zb_calloc(n_groups + 1, sizeof *c->notes)) == NULL ||
        (c->out = zb_calloc(n_groups + 1, sizeof *c->out)) == NULL ||
        (c->gs = zb_calloc(n_groups + 1, sizeof *c->gs)) == NULL ||
        (c->n_pos = zb_calloc(n_groups + 1, sizeof *c->n_pos)) == NULL ||
        (c->pending = json_array()) == NULL ||
        zb_arena_new(&c->arena, ARENA_MAX) < 0) {
        zb_carry_free(c);
        return zb_fail_oom(ctx);
    }
    c->n_groups = n_groups;
    *out = c;
    return ZB_OK;
}

static void forget_gathered(zb_carry *c, size_t gi)
{
    gathered *gs = &c->gs[gi];
    size_t i;

    for (i = 0; gs->pos != NULL && i < c->n_pos[gi]; i++)
        zb_roaring_free(gs->pos[i]);
    zb_free(gs->pos);
    memset(gs, 0, sizeof *gs);
    c->n_pos[gi] = 0;
}

/* Deletes the files written for gi (not committed: pending). */
static void forget_files(zb_carry *c, zb_io *io, zb_ctx *ctx, size_t gi)
{
    zb_err saved;
    size_t i, k;

    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < c->out[gi].n; i++) {
        const char *p = c->out[gi].files[i].file_path;

        for (k = 0; k < json_array_size(c->pending); k++)
            if (strcmp(json_string_value(json_array_get(c->pending, k)),
                       p) == 0) {
                (void)zb_io_delete(io, ctx, p);
                json_array_remove(c->pending, k);
                break;
            }
    }
    zb_err_copy(&ctx->err, &saved);
    c->out[gi].files = NULL;
    c->out[gi].n = 0;
    c->gs[gi].done = 0;
}

void zb_carry_forget_group(zb_carry *c, zb_io *io, zb_ctx *ctx, size_t gi)
{
    if (gi >= c->n_groups)
        return;
    forget_files(c, io, ctx, gi);
    forget_gathered(c, gi);
}

void zb_carry_free(zb_carry *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; c->gs != NULL && i < c->n_groups; i++)
        forget_gathered(c, i);
    zb_free(c->notes);
    zb_free(c->out);
    zb_free(c->gs);
    zb_free(c->n_pos);
    json_decref(c->pending);
    zb_arena_free(c->arena);
    zb_free(c);
}

int zb_carry_reset(zb_carry *c, zb_io *io, zb_ctx *ctx)
{
    size_t i;

    /* Nothing written so far is committed: this attempt writes anew. */
    zb_carry_delete_pending(c, io, ctx);
    for (i = 0; i < c->n_groups; i++)
        forget_gathered(c, i);
    zb_arena_free(c->arena);
    c->arena = NULL;
    memset(c->notes, 0, c->n_groups * sizeof *c->notes);
    memset(c->out, 0, c->n_groups * sizeof *c->out);
    if (zb_arena_new(&c->arena, ARENA_MAX) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

const char *zb_carry_cannot(const zb_compact_group *g)
{
    if (g->carry_lost != NULL)
        return g->carry_lost;
    if (g->n_carry_runs == 0 && g->carry_sorted == NULL && g->out_rows > 0)
        return "it has no position map";
    return NULL;
}

int zb_carry_note(zb_carry *c, zb_ctx *ctx, size_t gi,
                  const ice_data_file *f)
{
    note *n = zb_arena_calloc(c->arena, 1, sizeof *n);

    if (n == NULL ||
        (n->path = zb_arena_strdup(c->arena, f->file_path)) == NULL)
        return zb_fail_oom(ctx);
    n->gi = gi;
    n->dv = ice_data_file_is_dv(f);
    if (n->dv && (f->referenced_data_file == NULL ||
                  (n->ref = zb_arena_strdup(c->arena,
                                            f->referenced_data_file)) ==
                      NULL))
        return f->referenced_data_file == NULL
                   ? zb_fail(ctx, ZB_ECORRUPT, "deletion vector %s names "
                             "no data file", f->file_path)
                   : zb_fail_oom(ctx);
    n->offset = f->content_offset;
    n->size = f->content_size_in_bytes;
    n->next = c->notes[gi];
    c->notes[gi] = n;
    return ZB_OK;
}

int zb_carry_has(const zb_carry *c, size_t gi)
{
    return gi < c->n_groups && c->notes[gi] != NULL;
}

uint64_t zb_carry_notes(const zb_carry *c, size_t gi)
{
    const note *n;
    uint64_t k = 0;

    for (n = gi < c->n_groups ? c->notes[gi] : NULL; n != NULL; n = n->next)
        k++;
    return k;
}

/* ---- reading the positions the noted files name ---- */

typedef struct gather {
    zb_ctx *ctx;
    const zb_compact_group *g;
    json_t *task_of;               /* input path (and stripped) -> task */
    zb_roaring **pos;              /* per task: positions named */
} gather;

static int task_index(const gather *ga, const char *path)
{
    json_t *v = json_object_get(ga->task_of, path);

    if (v == NULL)
        v = json_object_get(ga->task_of, zb_scan_path_strip(path));
    return v == NULL ? -1 : (int)json_integer_value(v);
}

static int add_pos(gather *ga, int task, uint64_t pos)
{
    if (ga->pos[task] == NULL && zb_roaring_new(&ga->pos[task]) < 0)
        return zb_fail_oom(ga->ctx);
    if (zb_roaring_add(ga->pos[task], pos) < 0)
        return zb_fail_oom(ga->ctx);
    return ZB_OK;
}

static int read_dv(gather *ga, zb_io *io, const zb_table *t, const note *n,
                   int task)
{
    zb_buf uri = ZB_BUF_INIT(URI_MAX);
    zb_roaring *bm = NULL;
    zb_roaring_iter it;
    uint8_t *blob = NULL;
    uint64_t tmp[1024];
    size_t got, k;
    int rc;

    if (n->offset < 0 || n->size < 12 || n->size > DV_MAX_BYTES)
        return zb_fail(ga->ctx, ZB_ECORRUPT, "deletion vector in %s: "
                       "offset %lld / size %lld are not a blob", n->path,
                       (long long)n->offset, (long long)n->size);
    if ((rc = zb_table_resolve(&uri, ga->ctx, t, n->path)) < 0)
        goto done;
    if ((blob = zb_malloc((size_t)n->size)) == NULL) {
        rc = zb_fail_oom(ga->ctx);
        goto done;
    }
    if ((rc = zb_io_read_range(io, ga->ctx, zb_buf_cstr(&uri),
                               (uint64_t)n->offset, blob,
                               (size_t)n->size)) < 0 ||
        (rc = zb_dv_parse(&bm, ga->ctx, blob, (size_t)n->size)) < 0)
        goto done;
    zb_roaring_iter_init(&it, bm);
    while (rc == ZB_OK && (got = zb_roaring_iter_read(&it, tmp, 1024)) > 0)
        for (k = 0; k < got && rc == ZB_OK; k++)
            rc = add_pos(ga, task, tmp[k]);
done:
    zb_roaring_free(bm);
    zb_free(blob);
    zb_buf_free(&uri);
    return rc;
}

/* The rows of a position delete file that name the group's inputs. */
static int read_pos_file(gather *ga, zb_io *io, const zb_table *t,
                         const note *n)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowArray b;
    zb_buf uri = ZB_BUF_INIT(URI_MAX);
    int32_t fids[2] = { POS_FILE_PATH_ID, POS_POS_ID };
    char path[4096];
    int rc;

    ro.field_ids = fids;
    ro.n_field_ids = 2;
    if ((rc = zb_table_resolve(&uri, ga->ctx, t, n->path)) < 0 ||
        (rc = pq_reader_open(&r, io, ga->ctx, zb_buf_cstr(&uri), &ro)) < 0)
        goto done;
    while ((rc = pq_reader_next(r, ga->ctx, &b)) == 1) {
        const struct ArrowArray *cp, *cq;
        int64_t i;

        if (b.n_children != 2) {
            b.release(&b);
            rc = zb_fail(ga->ctx, ZB_ECORRUPT, "%s: not a position delete "
                         "file (no file_path and pos)", n->path);
            break;
        }
        cp = b.children[0];
        cq = b.children[1];
        for (i = 0; i < b.length && rc >= 0; i++) {
            const int32_t *off = cp->buffers[1];
            const char *data = cp->buffers[2];
            const int64_t *pv = cq->buffers[1];
            int64_t k = i + b.offset + cp->offset;
            int64_t kq = i + b.offset + cq->offset;
            size_t len;
            int task;

            if ((cp->null_count != 0 && cp->buffers[0] != NULL &&
                 !zb_arrow_bit(cp->buffers[0], k)) ||
                (cq->null_count != 0 && cq->buffers[0] != NULL &&
                 !zb_arrow_bit(cq->buffers[0], kq)) || pv[kq] < 0)
                continue;
            len = (size_t)(off[k + 1] - off[k]);
            if (len >= sizeof path)
                continue;          /* no input has so long a path */
            memcpy(path, data + off[k], len);
            path[len] = '\0';
            if ((task = task_index(ga, path)) >= 0)
                rc = add_pos(ga, task, (uint64_t)pv[kq]);
        }
        b.release(&b);
        if (rc < 0)
            break;
        rc = 0;
    }
    if (rc > 0)
        rc = ZB_OK;
done:
    pq_reader_free(r);
    zb_buf_free(&uri);
    return rc;
}

/* ---- writing them against the outputs ---- */

static void copy_partition(ice_data_file *f, const ice_data_file *out)
{
    f->n_partition = out->n_partition;
    f->partition = out->partition;
    f->partition_names = out->partition_names;
    f->partition_field_ids = out->partition_field_ids;
}

/* v3: one DV per output with deleted rows, in one Puffin file. */
static int write_dvs(zb_carry *c, zb_ctx *ctx, size_t gi,
                     const zb_compact_group *g, const zb_table *t,
                     zb_io *io, zb_roaring **per_out)
{
    zb_puffin_blob *blobs;
    zb_buf *dvs, file = ZB_BUF_INIT(ARENA_MAX), uri = ZB_BUF_INIT(URI_MAX);
    ice_data_file *fs;
    size_t i, k = 0, n = 0;
    int rc = ZB_OK;

    for (i = 0; i < g->out_files; i++)
        n += per_out[i] != NULL;
    blobs = zb_arena_calloc(c->arena, n + 1, sizeof *blobs);
    dvs = zb_calloc(n + 1, sizeof *dvs);
    fs = zb_arena_calloc(c->arena, n + 1, sizeof *fs);
    if (blobs == NULL || dvs == NULL || fs == NULL) {
        zb_free(dvs);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < g->out_files && rc == ZB_OK; i++) {
        if (per_out[i] == NULL)
            continue;
        zb_buf_init(&dvs[k], ARENA_MAX);
        if ((rc = zb_puffin_dv_blob(&blobs[k], &dvs[k], ctx, c->arena,
                                    per_out[i], g->outputs[i].file_path)) <
            0)
            break;
        fs[k].record_count = (int64_t)zb_roaring_cardinality(per_out[i]);
        fs[k].referenced_data_file = g->outputs[i].file_path;
        copy_partition(&fs[k], &g->outputs[i]);
        k++;
    }
    if (rc == ZB_OK)
        rc = zb_puffin_build(&file, ctx, blobs, k,
                             "zamboni version " ZB_VERSION_STRING);
    if (rc == ZB_OK)
        rc = zb_ingest_new_file_uri(&uri, ctx, t, NULL, "puffin");
    if (rc == ZB_OK)
        rc = zb_io_write_new(io, ctx, zb_buf_cstr(&uri), file.ptr,
                             file.len);
    if (rc == ZB_OK &&
        json_array_append_new(c->pending, json_string(zb_buf_cstr(&uri))) <
            0)
        rc = zb_fail_oom(ctx);
    for (i = 0; rc == ZB_OK && i < k; i++) {
        ice_data_file *f = &fs[i];

        f->content = ICE_CONTENT_POSITION_DELETES;
        f->file_path = zb_arena_strdup(c->arena, zb_buf_cstr(&uri));
        f->file_format = "PUFFIN";
        f->file_size_in_bytes = (int64_t)file.len;
        f->block_size_in_bytes = ICE_NULL_LONG;
        f->first_row_id = ICE_NULL_LONG;
        f->content_offset = (int64_t)blobs[i].offset;
        f->content_size_in_bytes = (int64_t)blobs[i].len;
        if (f->file_path == NULL)
            rc = zb_fail_oom(ctx);
    }
    for (i = 0; i < n; i++)
        zb_buf_free(&dvs[i]);
    zb_free(dvs);
    zb_buf_free(&file);
    zb_buf_free(&uri);
    if (rc == ZB_OK) {
        c->out[gi].files = fs;
        c->out[gi].n = k;
    }
    return rc;
}

/* v2: one position delete file of the group, sorted by path then pos
 * (the outputs' paths need not sort as they were written). */
static int cmp_out(const void *a, const void *b, void *payload)
{
    const zb_compact_group *g = payload;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return strcmp(g->outputs[x].file_path, g->outputs[y].file_path);
}

static void sort_outs(size_t *order, size_t n, const zb_compact_group *g)
{
    size_t i, j;

    /* Insertion sort: a group has few outputs. */
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && cmp_out(&order[j - 1], &order[j],
                                     (void *)g) > 0; j--) {
            size_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
}

/* Whether outputs a and b are of one partition (a group written into
   another spec has outputs in several). */
static int same_partition(const ice_data_file *a, const ice_data_file *b)
{
    size_t i;

    if (a->n_partition != b->n_partition)
        return 0;
    if (a->partition == b->partition)
        return 1;
    for (i = 0; i < a->n_partition; i++)
        if (ice_value_cmp(&a->partition[i], &b->partition[i]) != 0 ||
            a->partition[i].is_null != b->partition[i].is_null)
            return 0;
    return 1;
}

/* One position delete file of the outputs order[0..n) (one partition,
   each with deleted rows), sorted by path then pos, into *f. */
static int write_pos_part(zb_carry *c, zb_ctx *ctx,
                          const zb_compact_group *g, const zb_table *t,
                          zb_io *io, zb_roaring **per_out, size_t *order,
                          size_t n, ice_data_file *f)
{
    struct ArrowSchema sch;
    struct ArrowArray arr, *paths, *poss;
    zb_write_partition part;
    size_t i, total = 0, at = 0;
    uint64_t rows = 0;
    int32_t *offsets;
    char *chars;
    int64_t *pos;
    int rc = ZB_OK;

    memset(&sch, 0, sizeof sch);
    memset(&arr, 0, sizeof arr);
    for (i = 0; i < n; i++) {
        uint64_t k = zb_roaring_cardinality(per_out[order[i]]);

        rows += k;
        total += strlen(g->outputs[order[i]].file_path) * (size_t)k;
    }
    sort_outs(order, n, g);
    if (total > INT32_MAX)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: %llu carried deletes are "
                       "too many for one position delete file",
                       g->partition, (unsigned long long)rows);
    if (zb_arrow_schema_init(&sch, "+s", "", NULL, 0, 0, 2) < 0 ||
        zb_arrow_schema_field(sch.children[0], "u", "file_path",
                              POS_FILE_PATH_ID, 0, 0) < 0 ||
        zb_arrow_schema_field(sch.children[1], "l", "pos", POS_POS_ID, 0,
                              0) < 0 ||
        zb_arrow_array_init(&arr, 1, 2) < 0 ||
        zb_arrow_array_init(arr.children[0], 3, 0) < 0 ||
        zb_arrow_array_init(arr.children[1], 2, 0) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    paths = arr.children[0];
    poss = arr.children[1];
    offsets = zb_malloc((rows + 1) * sizeof *offsets);
    chars = zb_malloc(total ? total : 1);
    pos = zb_malloc((rows ? rows : 1) * sizeof *pos);
    paths->buffers[1] = offsets;
    paths->buffers[2] = chars;
    poss->buffers[1] = pos;
    if (offsets == NULL || chars == NULL || pos == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    offsets[0] = 0;
    for (i = 0; i < n; i++) {
        size_t o = order[i], len = strlen(g->outputs[o].file_path);
        zb_roaring_iter it;
        uint64_t v;

        zb_roaring_iter_init(&it, per_out[o]);
        while (zb_roaring_iter_next(&it, &v) && at < rows) {
            memcpy(chars + offsets[at], g->outputs[o].file_path, len);
            offsets[at + 1] = offsets[at] + (int32_t)len;
            pos[at++] = (int64_t)v;
        }
    }
    arr.length = paths->length = poss->length = (int64_t)at;
    memset(&part, 0, sizeof part);
    part.spec_id = g->out_spec_id;
    part.n_values = g->outputs[order[0]].n_partition;
    part.values = g->outputs[order[0]].partition;
    if ((rc = zb_ingest_write_parquet(f, c->arena, io, ctx, t,
                                      ICE_CONTENT_POSITION_DELETES, &sch,
                                      &arr, 1, &part)) < 0)
        goto done;
    if (json_array_append_new(c->pending, json_string(f->file_path)) < 0) {
        (void)zb_io_delete(io, ctx, f->file_path);
        rc = zb_fail_oom(ctx);
        goto done;
    }
    copy_partition(f, &g->outputs[order[0]]);
done:
    zb_arrow_array_release(&arr);
    zb_arrow_schema_release(&sch);
    return rc;
}

/* v2: one position delete file for each partition of the outputs with
   deleted rows (one, unless the group was written into another spec). */
static int write_pos_file(zb_carry *c, zb_ctx *ctx, size_t gi,
                          const zb_compact_group *g, const zb_table *t,
                          zb_io *io, zb_roaring **per_out)
{
    ice_data_file *fs;
    size_t *order, *done, i, j, n, k = 0;
    int rc = ZB_OK;

    order = zb_calloc(g->out_files + 1, sizeof *order);
    done = zb_calloc(g->out_files + 1, sizeof *done);
    fs = zb_arena_calloc(c->arena, g->out_files + 1, sizeof *fs);
    if (order == NULL || done == NULL || fs == NULL) {
        zb_free(order);
        zb_free(done);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < g->out_files && rc == ZB_OK; i++) {
        if (per_out[i] == NULL || done[i])
            continue;
        for (j = i, n = 0; j < g->out_files; j++)
            if (per_out[j] != NULL && !done[j] &&
                same_partition(&g->outputs[i], &g->outputs[j])) {
                done[j] = 1;
                order[n++] = j;
            }
        rc = write_pos_part(c, ctx, g, t, io, per_out, order, n, &fs[k]);
        if (rc == ZB_OK)
            k++;
    }
    /* on a failure the files written so far are pending: deleted with
       the rest of what was not committed */
    if (rc == ZB_OK) {
        c->out[gi].files = fs;
        c->out[gi].n = k;
    }
    zb_free(order);
    zb_free(done);
    return rc;
}

int zb_carry_write(zb_carry *c, zb_ctx *ctx, size_t gi,
                   const zb_compact_group *g, const zb_table *t, zb_io *io,
                   uint64_t *rows)
{
    gather ga;
    zb_carry_index *ix = NULL;
    zb_roaring **per_out = NULL;
    int64_t *counts = NULL;
    const note *n;
    size_t i;
    int rc = ZB_OK;

    gathered *gs = &c->gs[gi];

    *rows = 0;
    if (gs->done && gs->read_to == c->notes[gi]) {
        *rows = gs->rows;          /* nothing noted since: files stand */
        return ZB_OK;
    }
    forget_files(c, io, ctx, gi);  /* an earlier attempt's: superseded */
    memset(&ga, 0, sizeof ga);
    ga.ctx = ctx;
    ga.g = g;
    if (gs->pos == NULL) {
        if ((gs->pos = zb_calloc(g->n_tasks + 1, sizeof *gs->pos)) == NULL)
            return zb_fail_oom(ctx);
        c->n_pos[gi] = g->n_tasks;
    }
    ga.pos = gs->pos;
    if ((ga.task_of = json_object()) == NULL ||
        (per_out = zb_calloc(g->out_files + 1, sizeof *per_out)) == NULL ||
        (counts = zb_calloc(g->out_files + 1, sizeof *counts)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < g->n_tasks && rc == ZB_OK; i++) {
        const char *p = g->tasks[i].data.file->file_path;

        if (json_object_set_new(ga.task_of, p, json_integer((json_int_t)i))
                < 0 ||
            json_object_set_new(ga.task_of, zb_scan_path_strip(p),
                                json_integer((json_int_t)i)) < 0)
            rc = zb_fail_oom(ctx);
    }
    /* Notes are prepended: those since the last write come first. */
    for (n = c->notes[gi]; n != gs->read_to && rc == ZB_OK; n = n->next) {
        int task = n->dv ? task_index(&ga, n->ref) : -1;

        if (n->dv)
            rc = task < 0 ? ZB_OK : read_dv(&ga, io, t, n, task);
        else
            rc = read_pos_file(&ga, io, t, n);
    }
    if (rc < 0)
        goto done;
    gs->read_to = c->notes[gi];
    for (i = 0; i < g->out_files; i++)
        counts[i] = g->outputs[i].record_count;
    if (g->carry_sorted != NULL) { /* sort, z-order: the spilled map */
        rc = zb_carry_sorted_map(g->carry_sorted, ctx, ga.pos, g->n_tasks,
                                 counts, g->out_files, per_out, rows);
        goto write;
    }
    if ((rc = zb_carry_index_new(&ix, ctx, g->carry_runs, g->n_carry_runs,
                                 counts, g->out_files)) < 0)
        goto done;
    for (i = 0; i < g->n_tasks && rc == ZB_OK; i++) {
        zb_roaring_iter it;
        uint64_t v, op;
        size_t file;

        if (ga.pos[i] == NULL)
            continue;
        zb_roaring_iter_init(&it, ga.pos[i]);
        while (rc == ZB_OK && zb_roaring_iter_next(&it, &v)) {
            if (!zb_carry_index_find(ix, (uint32_t)i, v, &file, &op))
                continue;          /* deleted while rewriting */
            if (per_out[file] == NULL &&
                zb_roaring_new(&per_out[file]) < 0) {
                rc = zb_fail_oom(ctx);
                break;
            }
            if (!zb_roaring_contains(per_out[file], op))
                (*rows)++;
            if (zb_roaring_add(per_out[file], op) < 0)
                rc = zb_fail_oom(ctx);
        }
    }
write:
    if (rc == ZB_OK && *rows > 0)
        rc = t->meta->format_version >= 3
                 ? write_dvs(c, ctx, gi, g, t, io, per_out)
                 : write_pos_file(c, ctx, gi, g, t, io, per_out);
done:
    if (rc < 0)
        forget_gathered(c, gi);    /* read in part: start over */
    else {
        gs->done = 1;
        gs->rows = *rows;
    }
    for (i = 0; per_out != NULL && i < g->out_files; i++)
        zb_roaring_free(per_out[i]);
    zb_free(per_out);
    zb_free(counts);
    zb_carry_index_free(ix);
    json_decref(ga.task_of);
    return rc;
}

int zb_carry_add(zb_carry *c, zb_ctx *ctx, ice_commit_op *op, size_t gi,
                 int32_t spec_id)
{
    size_t i;
    int rc;

    for (i = 0; i < c->out[gi].n; i++)
        if ((rc = ice_commit_op_add_file(op, ctx, spec_id,
                                         &c->out[gi].files[i])) < 0)
            return rc;
    return ZB_OK;
}

void zb_carry_delete_pending(zb_carry *c, zb_io *io, zb_ctx *ctx)
{
    zb_err saved;
    size_t i;

    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < json_array_size(c->pending); i++)
        (void)zb_io_delete(io, ctx,
                           json_string_value(json_array_get(c->pending, i)));
    zb_err_copy(&ctx->err, &saved);
    json_array_clear(c->pending);
}

void zb_carry_keep_pending(zb_carry *c)
{
    json_array_clear(c->pending);
}

void zb_compact__carry_gather(zb_compact_group *g,
                              const zb_compact_slice *slices, size_t n,
                              zb_arena *arena)
{
    size_t i, runs = 0, at = 0;

    g->carry_runs = NULL;
    g->n_carry_runs = 0;
    g->carry_lost = NULL;
    for (i = 0; i < n; i++) {
        if (slices[i].carry_lost != NULL && g->carry_lost == NULL)
            g->carry_lost = slices[i].carry_lost;
        runs += slices[i].n_carry_runs;
    }
    if (g->carry_lost != NULL || runs == 0)
        return;
    if ((g->carry_runs = zb_arena_calloc(arena, runs,
                                         sizeof *g->carry_runs)) == NULL) {
        g->carry_lost = "no room for its position map";
        return;
    }
    for (i = 0; i < n; i++) {
        if (slices[i].n_carry_runs > 0)
            memcpy(g->carry_runs + at, slices[i].carry_runs,
                   slices[i].n_carry_runs * sizeof *g->carry_runs);
        at += slices[i].n_carry_runs;
    }
    g->n_carry_runs = runs;
}

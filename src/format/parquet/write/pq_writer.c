/*
 * format/parquet/write/pq_writer.c - Arrow batches to a Parquet file (see
 * parquet_write.h): open, write, close.
 *
 * Each leaf column keeps the current page (levels and PLAIN values) and
 * the finished, compressed pages of the current row group. A batch is
 * shredded column by column, in slices of rows (pq_write_shred.c). A page
 * ends, at a row boundary, when its values pass the page size
 * (pq_write_page.c). A row group ends when the buffered bytes pass the
 * row-group size, and its column chunks are then written one after the
 * other (pq_write_chunk.c). Closing writes the page index and the footer.
 * With opts.threads > 1, pages compress on a pool's threads while the
 * writer goes on, and are put into their chunks at steps fixed by the
 * rows alone (pq_write_jobs.c); a row group's dictionaries are shared out
 * among the threads (pq_write_par.c): the file does not change.
 * The file is written through a FileIO writer that publishes it only on
 * close, and never over an existing file.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/parquet_write.h"
#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/write/pq_write_schema.h"
#include "util/alloc.h"

int pq_writer__write_bytes(pq_writer *w, zb_ctx *ctx, const void *p,
                           size_t n)
{
    int rc;

    if ((rc = zb_io_writer_write(w->out, ctx, p, n)) < 0)
        return rc;
    w->file_pos += n;
    return ZB_OK;
}

/* ---- the writer ---- */

#define MAX_PATH 160

/* Records the path from the root to every leaf below n. */
static int assign_paths(pq_writer *w, zb_ctx *ctx, const pw_node *n,
                        const pw_node **stack, size_t *child, size_t depth)
{
    size_t c;
    int rc;

    if (n->kind == PW_PRIM) {
        leaf *l = &w->leaves[n->leaf_index];
        l->node = n;
        l->depth = depth;
        if ((l->path = zb_arena_calloc(w->arena, depth, sizeof *l->path)) ==
                NULL ||
            (l->path_child = zb_arena_calloc(w->arena, depth,
                                             sizeof *l->path_child)) == NULL)
            return zb_fail_oom(ctx);
        memcpy(l->path, stack, depth * sizeof *stack);
        memcpy(l->path_child, child, depth * sizeof *child);
        zb_buf_init(&l->defs, (size_t)1 << 31);
        zb_buf_init(&l->reps, (size_t)1 << 31);
        zb_buf_init(&l->values, (size_t)1 << 31);
        zb_buf_init(&l->indices, (size_t)1 << 31);
        zb_buf_init(&l->pages, (size_t)1 << 31);
        zb_buf_init(&l->dict_header, 1 << 20);
        zb_buf_init(&l->dict_page, (size_t)1 << 31);
        /* Room past the limit: the switch to PLAIN happens at a row end. */
        pq_dict_init(&l->dict, n->conv == PW_BYTES,
                     (size_t)w->opts.dict_bytes * 4 + (64u << 20));
        l->use_dict = w->opts.dictionary && n->conv != PW_BOOL;
        return ZB_OK;
    }
    if (depth >= MAX_PATH)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "schema nested too deeply");
    for (c = 0; c < n->n_children; c++) {
        stack[depth] = n->children[c];
        child[depth] = c;
        if ((rc = assign_paths(w, ctx, n->children[c], stack, child,
                               depth + 1)) < 0)
            return rc;
    }
    return ZB_OK;
}

static int make_paths(pq_writer *w, zb_ctx *ctx)
{
    const pw_node *stack[MAX_PATH];
    size_t child[MAX_PATH];

    if ((w->leaves = zb_arena_calloc(w->arena, w->schema.n_leaves + 1,
                                     sizeof *w->leaves)) == NULL)
        return zb_fail_oom(ctx);
    return assign_paths(w, ctx, w->schema.root, stack, child, 0);
}

/* One pq_scratch per thread (opts.threads, at least 1, at most 256:
 * the pool's cap). */
static int new_scratch(pq_writer *w)
{
    unsigned i, n = w->opts.threads > 1 ? w->opts.threads : 1;

    if (n > 256)
        n = 256;
    if ((w->scratch = zb_calloc(n, sizeof *w->scratch)) == NULL)
        return ZB_ENOMEM;
    w->n_threads = n;
    for (i = 0; i < n; i++) {
        pq_scratch *s = &w->scratch[i];
        zb_buf_init(&s->header, 1 << 20);
        if (zb_codec_state_new(&s->codec) < 0)
            return ZB_ENOMEM;
    }
    return ZB_OK;
}

int pq_writer_open(pq_writer **out, zb_io *io, zb_ctx *ctx, const char *uri,
                   const struct ArrowSchema *schema,
                   const pq_writer_opts *opts)
{
    pq_writer_opts defaults = PQ_WRITER_OPTS_INIT;
    pq_writer *w;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri && schema);
    *out = NULL;
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->opts = opts ? *opts : defaults;
    if (w->opts.page_bytes == 0)
        w->opts.page_bytes = defaults.page_bytes;
    if (w->opts.row_group_bytes == 0)
        w->opts.row_group_bytes = defaults.row_group_bytes;
    zb_buf_init(&w->col_index, (size_t)1 << 31);
    zb_buf_init(&w->off_index, (size_t)1 << 31);
    if ((w->uri = zb_strdup(uri)) == NULL ||
        zb_arena_new(&w->arena, (size_t)1 << 30) < 0 ||
        new_scratch(w) < 0) {
        pq_writer_abort(w);
        return zb_fail_oom(ctx);
    }
    w->algorithm = pq_codec_algorithm(w->opts.codec);
    if (w->algorithm < 0 || zb_codec_compress_bound(w->algorithm, 1) == 0) {
        int codec = w->opts.codec;     /* w is freed by the abort */

        pq_writer_abort(w);
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: codec %s cannot be "
                       "written", uri, pq_codec_name(codec));
    }
    if ((rc = pw_schema_build(&w->schema, w->arena, ctx, schema)) < 0 ||
        (rc = make_paths(w, ctx)) < 0 ||
        (rc = pq_writer__par_open(w, ctx)) < 0 ||
        (rc = pq_writer__jobs_open(w, ctx)) < 0 ||
        (rc = zb_io_writer_open(&w->out, io, ctx, uri)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, "PAR1", 4)) < 0) {
        zb_err_prefix(ctx, "%s", uri);
        pq_writer_abort(w);
        return rc;
    }
    *out = w;
    return ZB_OK;
}

uint64_t pq_writer_bytes(const pq_writer *w)
{
    /* The page index waiting for close counts: it goes to the file.
     * Pending pages count uncompressed (see PQ_PAGE_LAG). */
    uint64_t n = w->file_pos + w->col_index.len + w->off_index.len;
    size_t i;

    for (i = 0; i < w->schema.n_leaves; i++)
        n += w->leaves[i].chunk.len + pq_writer__vals_len(&w->leaves[i]) +
             w->leaves[i].dict.plain.len + w->leaves[i].indices.len / 4 +
             w->leaves[i].defs.len / 4 + w->leaves[i].reps.len / 4 +
             w->leaves[i].pend_bytes;
    return n;
}

static uint64_t buffered(const pq_writer *w)
{
    return pq_writer_bytes(w) - w->file_pos - w->col_index.len -
           w->off_index.len;
}

#define SLICE_ROWS 4096

/* A slice of a batch's rows, for shred_slice. */
typedef struct slice {
    const struct ArrowArray *batch;
    int64_t start, end;
} slice;

/* Rows start..end of the batch into leaf l's pages: the leaf's part of a
 * slice, on any thread (it touches only l and s). */
static int shred_slice(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                       leaf *l, void *arg)
{
    const slice *sl = arg;
    const struct ArrowArray *batch = sl->batch;
    const struct ArrowArray *col = batch->children[l->path_child[0]];
    int64_t r;
    int rc;

    if (l->depth == 1)
        return pq_writer__shred_top(w, s, ctx, l, col,
                                    pq_writer__pidx(batch, sl->start),
                                    pq_writer__pidx(batch, sl->end));
    for (r = sl->start; r < sl->end; r++) {
        if ((pq_writer__vals_len(l) + l->indices.len >= w->opts.page_bytes ||
             (l->use_dict && pq_writer__dictionary_done(w, l))) &&
            (rc = pq_writer__flush_page(w, s, ctx, l)) < 0)
            return rc;
        if ((rc = pq_writer__shred(l, ctx, 0, col, pq_writer__pidx(batch, r),
                                   0, 0)) < 0)
            return rc;
    }
    return ZB_OK;
}

int pq_writer_write(pq_writer *w, zb_ctx *ctx, const struct ArrowArray *batch)
{
    slice sl;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(w && ctx && batch);
    if (batch->n_children != (int64_t)w->schema.root->n_children)
        return zb_fail(ctx, ZB_EINVAL, "%s: batch has %lld columns, the "
                       "schema %zu", w->uri, (long long)batch->n_children,
                       w->schema.root->n_children);
    sl.batch = batch;
    /* Column by column within slices of rows: one column's values stay
     * in cache, and a row group can still end every slice. Pages flushed
     * in a slice compress on the pool's threads meanwhile, and are
     * settled a fixed number of slices later (pq_writer__slice_done),
     * so the buffered bytes looked at are the same with any threads. */
    for (sl.start = 0; sl.start < batch->length; sl.start += SLICE_ROWS) {
        sl.end = batch->length - sl.start < SLICE_ROWS
                     ? batch->length : sl.start + SLICE_ROWS;
        for (i = 0; i < w->schema.n_leaves; i++)
            if ((rc = shred_slice(w, &w->scratch[0], ctx, &w->leaves[i],
                                  &sl)) < 0)
                return zb_err_prefix(ctx, "%s", w->uri);
        if ((rc = pq_writer__slice_done(w, ctx)) < 0)
            return zb_err_prefix(ctx, "%s", w->uri);
        w->rows_in_group += (uint64_t)(sl.end - sl.start);
        w->rows_total += (uint64_t)(sl.end - sl.start);
        if (sl.end < batch->length &&
            buffered(w) >= w->opts.row_group_bytes &&
            (rc = pq_writer__flush_row_group(w, ctx)) < 0)
            return zb_err_prefix(ctx, "%s", w->uri);
    }
    if (buffered(w) >= w->opts.row_group_bytes &&
        (rc = pq_writer__flush_row_group(w, ctx)) < 0)
        return zb_err_prefix(ctx, "%s", w->uri);
    return ZB_OK;
}

static void free_buffers(pq_writer *w)
{
    size_t i;

    for (i = 0; w->leaves && i < w->schema.n_leaves; i++) {
        zb_buf_free(&w->leaves[i].defs);
        zb_buf_free(&w->leaves[i].reps);
        zb_buf_free(&w->leaves[i].values);
        zb_buf_free(&w->leaves[i].indices);
        zb_buf_free(&w->leaves[i].pages);
        zb_buf_free(&w->leaves[i].dict_header);
        zb_buf_free(&w->leaves[i].dict_page);
        pq_writer__spool_free(&w->leaves[i].chunk);
        pq_dict_free(&w->leaves[i].dict);
    }
    for (i = 0; w->scratch && i < w->n_threads; i++) {
        zb_buf_free(&w->scratch[i].header);
        zb_codec_state_free(w->scratch[i].codec);
    }
    zb_free(w->scratch);
    w->scratch = NULL;
    zb_buf_free(&w->col_index);
    zb_buf_free(&w->off_index);
}

void pq_writer_abort(pq_writer *w)
{
    if (w == NULL)
        return;
    pq_writer__jobs_cancel(w);   /* queued pages are not compressed */
    pq_writer__par_free(w);      /* no job runs past this */
    pq_writer__jobs_free(w);
    zb_io_writer_abort(w->out);
    free_buffers(w);
    zb_arena_free(w->arena);
    zb_free(w->uri);
    zb_free(w);
}

/* Writes every chunk's column indexes, then offset indexes, and turns
 * the footer's offsets into them into file offsets. */
static int write_page_index(pq_writer *w, zb_ctx *ctx)
{
    uint64_t ci_at = w->file_pos, oi_at = ci_at + w->col_index.len;
    size_t g, c;
    int rc;

    if (w->col_index.len == 0 && w->off_index.len == 0)
        return ZB_OK;
    if ((w->col_index.len &&
         (rc = pq_writer__write_bytes(w, ctx, w->col_index.ptr,
                                      w->col_index.len)) < 0) ||
        (w->off_index.len &&
         (rc = pq_writer__write_bytes(w, ctx, w->off_index.ptr,
                                      w->off_index.len)) < 0))
        return rc;
    for (g = 0; g < w->n_groups; g++)
        for (c = 0; c < w->groups[g].n_columns; c++) {
            pq_column_chunk *cc = &w->groups[g].columns[c];
            if (cc->has_column_index)
                cc->column_index_offset += (int64_t)ci_at;
            if (cc->has_offset_index)
                cc->offset_index_offset += (int64_t)oi_at;
        }
    return ZB_OK;
}

int pq_writer_close(pq_writer *w, zb_ctx *ctx, pq_write_result *result)
{
    pq_file_meta meta;
    zb_buf footer = ZB_BUF_INIT((size_t)1 << 30);
    uint8_t len[4];
    int rc;

    ZB_ASSERT_ARG(w && ctx);
    if (result)
        memset(result, 0, sizeof *result);
    if ((rc = pq_writer__flush_row_group(w, ctx)) < 0 ||
        (rc = write_page_index(w, ctx)) < 0)
        goto fail;
    memset(&meta, 0, sizeof meta);
    meta.version = 1;
    meta.schema = w->schema.elements;
    meta.n_schema = w->schema.n_elements;
    meta.num_rows = (int64_t)w->rows_total;
    meta.row_groups = w->groups;
    meta.n_row_groups = w->n_groups;
    meta.created_by = w->opts.created_by;
    if ((rc = pq_meta_write(&footer, ctx, &meta)) < 0)
        goto fail;
    pq_writer__put_le32(len, (uint32_t)footer.len);
    if ((rc = pq_writer__write_bytes(w, ctx, footer.ptr, footer.len)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, len, 4)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, "PAR1", 4)) < 0)
        goto fail;
    if (result && (rc = pq_write_metrics__result(result, w, ctx)) < 0)
        goto fail;
    rc = zb_io_writer_commit(w->out, ctx);
    if (rc < 0 && result)
        pq_write_result_free(result);
    w->out = NULL;
    zb_buf_free(&footer);
    pq_writer_abort(w);   /* frees the rest; nothing left to discard */
    return rc;
fail:
    zb_err_prefix(ctx, "%s", w->uri);
    zb_buf_free(&footer);
    pq_writer_abort(w);
    return rc;
}

/*
 * format/parquet/write/pq_write_chunk.c - a row group's column chunks to
 * the file (see pq_writer.c).
 *
 * A leaf's finished pages wait in its spool, blocks that never move,
 * until the row group ends; pq_writer__flush_row_group then flushes each
 * leaf's last page, settles the pending ones (pq_write_jobs.c) and writes, leaf after leaf, the dictionary page, the
 * spooled data pages and the chunk's footer entry (statistics kept in the
 * arena), encoding the chunk's column and offset index for close.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "util/alloc.h"

#define SPOOL_MAX_BYTES ((size_t)1 << 32)

/* Appends n bytes to s; ZB_OK or ZB_ENOMEM. */
int pq_writer__spool_append(spool *s, const void *p, size_t n)
{
    spool_block *b = s->cur, *next;

    if (n == 0)
        return ZB_OK;
    if (n > SPOOL_MAX_BYTES - s->len)
        return ZB_ENOMEM;
    if (b == NULL || b->cap - b->len < n) {
        next = b ? b->next : s->head;
        if (next == NULL || next->cap < n) {
            /* Blocks grow with the chunk: few for a large one. */
            size_t cap = s->len / 2;
            if (cap < ((size_t)64 << 10))
                cap = (size_t)64 << 10;
            if (cap > ((size_t)16 << 20))
                cap = (size_t)16 << 20;
            if (cap < n)
                cap = n;
            if ((next = zb_malloc(sizeof *next + cap)) == NULL)
                return ZB_ENOMEM;
            next->cap = cap;
            next->next = b ? b->next : s->head;
            if (b)
                b->next = next;
            else
                s->head = next;
        }
        next->len = 0;
        s->cur = b = next;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    s->len += n;
    return ZB_OK;
}

/* Empties s, keeping its blocks. */
static void spool_clear(spool *s)
{
    spool_block *b;

    for (b = s->head; b; b = b->next)
        b->len = 0;
    s->cur = NULL;
    s->len = 0;
}

void pq_writer__spool_free(spool *s)
{
    while (s->head) {
        spool_block *b = s->head;
        s->head = b->next;
        zb_free(b);
    }
    s->cur = NULL;
    s->len = 0;
}

static int spool_write(pq_writer *w, zb_ctx *ctx, const spool *s)
{
    const spool_block *b;
    int rc;

    for (b = s->head; b; b = b->next)
        if (b->len && (rc = pq_writer__write_bytes(w, ctx, b->data,
                                                   b->len)) < 0)
            return rc;
    return ZB_OK;
}

/* Copies a bound into the arena for the footer. */
static const uint8_t *keep(pq_writer *w, const uint8_t *p, size_t n)
{
    uint8_t *q = zb_arena_alloc(w->arena, n ? n : 1);

    if (q && n)
        memcpy(q, p, n);
    return q;
}

int pq_writer__set_path(pq_writer *w, zb_ctx *ctx, const leaf *l,
                        pq_column_meta *m)
{
    size_t k;

    m->path_len = 0;
    if ((m->path_in_schema = zb_arena_calloc(w->arena, 2 * l->depth + 1,
                                             sizeof(char *))) == NULL)
        return zb_fail_oom(ctx);
    for (k = 0; k < l->depth; k++) {
        /* Every element of the path, including LIST wrappers. */
        const pw_node *pn = l->path[k];
        m->path_in_schema[m->path_len++] = pn->name;
        if (pn->kind == PW_LIST)
            m->path_in_schema[m->path_len++] = "list";
    }
    return ZB_OK;
}

pq_row_group *pq_writer__new_row_group(pq_writer *w, zb_ctx *ctx)
{
    if (w->n_groups == w->cap_groups) {
        size_t cap = w->cap_groups ? w->cap_groups * 2 : 8;
        pq_row_group *p = zb_arena_calloc(w->arena, cap, sizeof *p);
        if (p == NULL) {
            zb_fail_oom(ctx);
            return NULL;
        }
        if (w->n_groups)
            memcpy(p, w->groups, w->n_groups * sizeof *p);
        w->groups = p;
        w->cap_groups = cap;
    }
    memset(&w->groups[w->n_groups], 0, sizeof w->groups[0]);
    return &w->groups[w->n_groups];
}

/* The leaf's part of a row group's end, on any thread, after its last
 * page was flushed and settled: its dictionary page compressed into
 * l->dict_header and l->dict_page for write_dictionary. */
int pq_writer__finish_chunk(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                            leaf *l)
{
    pq_page_header h;
    int rc;

    if (l->dict_pages == 0)
        return ZB_OK;
    if ((rc = pq_writer__compress_page(w, s->codec, ctx, l->node->name,
                                       l->dict.plain.ptr
                                           ? (const uint8_t *)l->dict.plain.ptr
                                           : (const uint8_t *)"",
                                       l->dict.plain.len, &l->dict_page)) < 0)
        return rc;
    memset(&h, 0, sizeof h);
    h.type = PQ_DICTIONARY_PAGE;
    h.uncompressed_page_size = (int32_t)l->dict.plain.len;
    h.compressed_page_size = (int32_t)l->dict_page.len;
    h.dict.num_values = (int32_t)l->dict.n;
    h.dict.encoding = PQ_ENC_PLAIN;
    zb_buf_clear(&l->dict_header);
    return pq_page_header_write(&l->dict_header, ctx, &h, NULL);
}

static int finish_chunk_step(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                             leaf *l, void *arg)
{
    ZB_UNUSED(arg);
    return pq_writer__finish_chunk(w, s, ctx, l);
}

/* Writes the chunk's dictionary page (made by pq_writer__finish_chunk)
 * at the current file position, and frees it. */
static int write_dictionary(pq_writer *w, zb_ctx *ctx, leaf *l,
                            pq_column_meta *m)
{
    int rc;

    m->has_dictionary_page_offset = 1;
    m->dictionary_page_offset = (int64_t)w->file_pos;
    m->total_uncompressed_size =
        (int64_t)(l->dict_header.len + l->dict.plain.len);
    m->total_compressed_size =
        (int64_t)(l->dict_header.len + l->dict_page.len);
    if ((rc = pq_writer__write_bytes(w, ctx, l->dict_header.ptr,
                                     l->dict_header.len)) < 0 ||
        (rc = pq_writer__write_bytes(w, ctx, l->dict_page.ptr,
                                     l->dict_page.len)) < 0)
        return rc;
    zb_buf_free(&l->dict_header);
    zb_buf_free(&l->dict_page);
    return ZB_OK;
}

/* How the non-null pages' bounds go: ascending, descending or neither
 * (both when there are fewer than two, or all are equal: ascending). */
static pq_boundary_order boundary_order(const leaf *l, const page_rec *p,
                                        size_t n)
{
    int asc = 1, desc = 1;
    const page_rec *prev = NULL;
    size_t i;

    for (i = 0; i < n; i++) {
        int cmin, cmax;
        if (p[i].null_page)
            continue;
        if (prev) {
            cmin = pq_write_stats__cmp(l->node->order, prev->min,
                                       prev->min_len, p[i].min, p[i].min_len);
            cmax = pq_write_stats__cmp(l->node->order, prev->max,
                                       prev->max_len, p[i].max, p[i].max_len);
            if (cmin > 0 || cmax > 0)
                asc = 0;
            if (cmin < 0 || cmax < 0)
                desc = 0;
        }
        prev = &p[i];
    }
    return asc ? PQ_BOUNDARY_ASCENDING
               : desc ? PQ_BOUNDARY_DESCENDING : PQ_BOUNDARY_UNORDERED;
}

/*
 * Encodes the chunk's page index into w->col_index and w->off_index; cc's
 * offsets are into those buffers until close. data_off: where the
 * chunk's first data page lands in the file.
 */
static int chunk_page_index(pq_writer *w, zb_ctx *ctx, leaf *l,
                            pq_column_chunk *cc, uint64_t data_off)
{
    const page_rec *p = (const page_rec *)(const void *)l->pages.ptr;
    size_t n = l->pages.len / sizeof *p, i, start;
    pq_page_location *locs;
    pq_column_index ci;
    int rc, bounds = 1;

    if (n == 0)
        return ZB_OK;
    if ((locs = zb_calloc(n, sizeof *locs)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        locs[i].offset = (int64_t)(data_off + p[i].off);
        locs[i].compressed_page_size = (int32_t)p[i].size;
        locs[i].first_row_index = p[i].first_row;
        if (!p[i].null_page && !p[i].has_bounds)
            bounds = 0;
    }
    start = w->off_index.len;
    rc = pq_offset_index_write(&w->off_index, ctx, locs, n);
    zb_free(locs);
    if (rc < 0)
        return rc;
    cc->has_offset_index = 1;
    cc->offset_index_offset = (int64_t)start;
    cc->offset_index_length = (int32_t)(w->off_index.len - start);
    if (!bounds)
        return ZB_OK;
    {
        uint8_t *nulls = zb_calloc(n, 1);
        const uint8_t **mins = zb_calloc(n, sizeof *mins);
        const uint8_t **maxs = zb_calloc(n, sizeof *maxs);
        size_t *minl = zb_calloc(n, sizeof *minl);
        size_t *maxl = zb_calloc(n, sizeof *maxl);
        int64_t *nc = zb_calloc(n, sizeof *nc);

        if (!nulls || !mins || !maxs || !minl || !maxl || !nc) {
            rc = zb_fail_oom(ctx);
        } else {
            for (i = 0; i < n; i++) {
                nulls[i] = p[i].null_page;
                if (!p[i].null_page) {
                    mins[i] = p[i].min;
                    maxs[i] = p[i].max;
                    minl[i] = p[i].min_len;
                    maxl[i] = p[i].max_len;
                }
                nc[i] = p[i].nulls;
            }
            memset(&ci, 0, sizeof ci);
            ci.n_pages = n;
            ci.null_pages = nulls;
            ci.min_values = mins;
            ci.min_lens = minl;
            ci.max_values = maxs;
            ci.max_lens = maxl;
            ci.boundary_order = boundary_order(l, p, n);
            ci.null_counts = nc;
            start = w->col_index.len;
            if ((rc = pq_column_index_write(&w->col_index, ctx, &ci)) ==
                ZB_OK) {
                cc->has_column_index = 1;
                cc->column_index_offset = (int64_t)start;
                cc->column_index_length =
                    (int32_t)(w->col_index.len - start);
            }
        }
        zb_free(nulls);
        zb_free(mins);
        zb_free(maxs);
        zb_free(minl);
        zb_free(maxl);
        zb_free(nc);
    }
    return rc;
}

int pq_writer__flush_row_group(pq_writer *w, zb_ctx *ctx)
{
    pq_row_group *g;
    size_t i;
    int rc;

    if (w->rows_in_group == 0)
        return ZB_OK;
    if ((g = pq_writer__new_row_group(w, ctx)) == NULL)
        return ZB_ENOMEM;
    memset(g, 0, sizeof *g);
    g->n_columns = w->schema.n_leaves;
    if ((g->columns = zb_arena_calloc(w->arena, g->n_columns + 1,
                                      sizeof *g->columns)) == NULL)
        return zb_fail_oom(ctx);
    g->num_rows = (int64_t)w->rows_in_group;
    g->has_file_offset = 1;
    g->file_offset = (int64_t)w->file_pos;
    g->has_total_compressed_size = 1;
    g->has_ordinal = 1;
    g->ordinal = (int16_t)w->n_groups;
    /* Every leaf's last page, then every pending page settled (the
     * pages compress at once on the pool's threads). Threads then
     * compress every leaf's dictionary at once; one thread each just
     * before writing it. The chunks are written in leaf order either
     * way. */
    for (i = 0; i < w->schema.n_leaves; i++)
        if ((rc = pq_writer__flush_page(w, &w->scratch[0], ctx,
                                        &w->leaves[i])) < 0)
            return rc;
    if ((rc = pq_writer__settle_all(w, ctx)) < 0)
        return rc;
    if (w->n_threads > 1 &&
        (rc = pq_writer__par_leaves(w, ctx, finish_chunk_step, NULL)) < 0)
        return rc;
    for (i = 0; i < w->schema.n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_column_chunk *cc = &g->columns[i];
        pq_column_meta *m = &cc->meta_data;
        const pw_node *n = l->node;

        if (w->n_threads <= 1 &&
            (rc = pq_writer__finish_chunk(w, &w->scratch[0], ctx, l)) < 0)
            return rc;
        cc->file_offset = (int64_t)w->file_pos;
        cc->has_meta_data = 1;
        m->type = n->type;
        if (l->dict_pages > 0 && (rc = write_dictionary(w, ctx, l, m)) < 0)
            return rc;
        m->n_encodings = l->dict_pages > 0 ? 3 : 2;
        if ((m->encodings = zb_arena_calloc(w->arena, 3, sizeof(int32_t))) ==
                NULL ||
            (rc = pq_writer__set_path(w, ctx, l, m)) < 0)
            return zb_fail_oom(ctx);
        m->encodings[0] = PQ_ENC_PLAIN;
        m->encodings[1] = PQ_ENC_RLE;
        m->encodings[2] = PQ_ENC_RLE_DICTIONARY;
        m->codec = w->opts.codec;
        m->num_values = l->chunk_values;
        m->total_uncompressed_size += (int64_t)l->chunk_uncompressed;
        m->total_compressed_size += (int64_t)l->chunk.len;
        m->data_page_offset = (int64_t)w->file_pos;
        m->has_statistics = 1;
        m->statistics.has_null_count = 1;
        m->statistics.null_count = l->st.nulls;
        if (l->st.has && !l->st.skip_bounds) {
            m->statistics.has_min_value = m->statistics.has_max_value = 1;
            m->statistics.min_value = keep(w, l->st.min, l->st.min_len);
            m->statistics.max_value = keep(w, l->st.max, l->st.max_len);
            m->statistics.min_value_len = l->st.min_len;
            m->statistics.max_value_len = l->st.max_len;
            if (!m->statistics.min_value || !m->statistics.max_value)
                return zb_fail_oom(ctx);
        }
        g->total_byte_size += m->total_uncompressed_size;
        g->total_compressed_size += m->total_compressed_size;
        pq_write_metrics__chunk(&l->fs, m, l->st.nulls);
        if (w->opts.page_index &&
            (rc = chunk_page_index(w, ctx, l, cc, w->file_pos)) < 0)
            return rc;
        if ((rc = spool_write(w, ctx, &l->chunk)) < 0)
            return rc;
        spool_clear(&l->chunk);
        zb_buf_clear(&l->pages);
        l->chunk_rows = 0;
        l->chunk_uncompressed = 0;
        l->chunk_values = 0;
        memset(&l->st, 0, sizeof l->st);
        pq_dict_clear(&l->dict);
        l->dict_pages = 0;
        l->use_dict = w->opts.dictionary && n->conv != PW_BOOL;
    }
    w->n_groups++;
    w->rows_in_group = 0;
    return ZB_OK;
}

/*
 * format/parquet/write/pq_write_page.c - a leaf's current page to a
 * finished, compressed data page in its column chunk (see pq_writer.c).
 *
 * pq_writer__flush_page encodes the page's levels (RLE) into a page job
 * of its own, puts PLAIN values behind them (copied: the leaf's buffer
 * is reused) or bit-packed booleans or dictionary indices, takes the
 * page's statistics and what the page index needs, and hands the job
 * over (pq_write_jobs.c: compression, then header and spool at a fixed
 * later step). After the first dictionary page it judges whether the
 * dictionary pays, on uncompressed sizes.
 */
#define ZB_MODULE "parquet"

#include <assert.h>
#include <string.h>

#include "format/parquet/write/pq_writer_int.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/write/pq_encode.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "util/alloc.h"

/* Appends levels RLE-encoded, with the 4-byte length prefix of data page
 * v1 (v2 pages give the lengths in their header instead). */
static int put_level_run(zb_buf *page, const zb_buf *levels, size_t n,
                         int16_t max_level, int prefix)
{
    size_t at = page->len;
    int rc;

    if ((prefix && (rc = zb_buf_append(page, "\0\0\0\0", 4)) < 0) ||
        (rc = pq_rle_encode(page, (const uint16_t *)(const void *)levels->ptr,
                            n, pq_bit_width((uint32_t)max_level))) < 0)
        return rc;
    if (prefix)
        pq_writer__put_le32((uint8_t *)page->ptr + at,
                 (uint32_t)(page->len - at - 4));
    return ZB_OK;
}

static int put_bool_values(zb_buf *page, const uint8_t *values, size_t n)
{
    size_t i, bytes = (n + 7) / 8;
    uint8_t *p;
    int rc;

    if ((rc = zb_buf_reserve(page, bytes)) < 0)
        return rc;
    p = (uint8_t *)page->ptr + page->len;
    memset(p, 0, bytes);
    for (i = 0; i < n; i++)
        if (values[i])
            p[i / 8] |= (uint8_t)(1u << (i % 8));
    page->len += bytes;
    return ZB_OK;
}

/* A page with no values at all is written PLAIN, so that a column of
 * nulls needs no (empty) dictionary page. */
static int page_is_dict(const leaf *l)
{
    return l->use_dict && l->page_values > 0;
}

/* The values part of a data page that pq_writer__flush_page does not
 * compress in place: booleans bit-packed, or dictionary indices. */
static int put_page_values(zb_buf *page, leaf *l)
{
    unsigned width;
    uint8_t wb;
    int rc;

    if (!page_is_dict(l))
        return put_bool_values(page, pq_writer__vals_ptr(l),
                               l->page_values);
    width = pq_bit_width(l->dict.n ? (uint32_t)(l->dict.n - 1) : 0);
    wb = (uint8_t)width;
    if ((rc = zb_buf_append(page, &wb, 1)) < 0)
        return rc;
    return pq_rle_encode32(page,
                           (const uint32_t *)(const void *)l->indices.ptr,
                           l->page_values, width);
}

/* Compresses in[0..in_len) into out with codec's contexts; ZB_OK or an
 * error in ctx. */
int pq_writer__compress_page(const pq_writer *w, zb_codec_state *codec,
                             zb_ctx *ctx, const char *column,
                             const uint8_t *in, size_t in_len, zb_buf *out)
{
    size_t bound = zb_codec_compress_bound(w->algorithm, in_len), clen = 0;
    int rc;

    if (in_len > INT32_MAX)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page over 2 GiB", column);
    zb_buf_clear(out);
    if ((bound == 0 && in_len > 0) ||
        zb_buf_reserve(out, bound ? bound : 1) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "column %s: no room to compress a "
                       "%zu-byte page", column, in_len);
    if ((rc = zb_codec_compress(codec, ctx, w->algorithm,
                                w->opts.codec_level, in, in_len,
                                (uint8_t *)out->ptr, bound, &clen)) < 0)
        return zb_err_prefix(ctx, "column %s", column);
    out->len = clen;
    return ZB_OK;
}

/* Rows that start in the current page (a v2 header counts them). */
static size_t page_rows(const leaf *l)
{
    const uint16_t *reps = (const uint16_t *)(const void *)l->reps.ptr;
    size_t i, rows = 0;

    if (l->node->max_rep == 0)
        return l->page_levels;
    for (i = 0; i < l->page_levels; i++)
        rows += reps[i] == 0;
    return rows;
}

/* A PLAIN boolean page's bounds (values one byte each, 0 or 1). */
static void bool_bounds(leaf *l)
{
    static const uint8_t f = 0, t = 1;
    const uint8_t *v = pq_writer__vals_ptr(l);
    size_t n = pq_writer__vals_len(l);

    if (memchr(v, 0, n))
        pq_write_stats_update(&l->pst, PW_ORDER_BOOL, &f, 1);
    if (memchr(v, 1, n))
        pq_write_stats_update(&l->pst, PW_ORDER_BOOL, &t, 1);
}

/*
 * The statistics of the page being flushed, into l->pst. PLAIN pages
 * gathered them value by value; a dictionary page takes min and max over
 * the distinct dictionary entries its indices use.
 */
static int page_statistics(zb_ctx *ctx, leaf *l)
{
    if (page_is_dict(l)) {
        const uint32_t *idx = (const uint32_t *)(const void *)l->indices.ptr;
        uint8_t *seen = zb_calloc(l->dict.n / 8 + 1, 1);
        size_t i;
        if (seen == NULL)
            return zb_fail_oom(ctx);
        for (i = 0; i < l->page_values; i++) {
            const pq_dict_entry *e = &l->dict.entries[idx[i]];
            if (seen[idx[i] / 8] & (1u << (idx[i] % 8)))
                continue;
            seen[idx[i] / 8] |= (uint8_t)(1u << (idx[i] % 8));
            pq_write_stats_update(&l->pst, l->node->order,
                                  (const uint8_t *)l->dict.plain.ptr + e->off,
                                  e->len);
        }
        zb_free(seen);
    } else if (l->pext_has) {
        const uint8_t *base = (const uint8_t *)l->values.ptr;
        pq_write_stats_update(&l->pst, l->node->order, base + l->pmin_off,
                              l->pmin_len);
        pq_write_stats_update(&l->pst, l->node->order, base + l->pmax_off,
                              l->pmax_len);
        if (l->pext_long)
            l->pst.skip_bounds = 1;
        pq_write_metrics__value(l, base + l->pmin_off, l->pmin_len);
        pq_write_metrics__value(l, base + l->pmax_off, l->pmax_len);
    } else if (l->node->order == PW_ORDER_BOOL) {
        bool_bounds(l);
    } else if (pq_write_stats_fixed_width(l->node->order)) {
        assert(pq_writer__vals_len(l) ==
               l->page_values *
                   (size_t)pq_write_stats_fixed_width(l->node->order));
        pq_write_stats_scan(&l->pst, l->node->order, pq_writer__vals_ptr(l),
                            l->page_values);
    }
    return ZB_OK;
}

/*
 * The column index's bounds of a byte-ordered page whose statistics have
 * none because a value passes STAT_MAX_BYTES (as parquet-mr, the index
 * truncates where the page header gives up): the least value's prefix is
 * a lower bound; the greatest value's prefix with its last byte below
 * 0xff incremented (and cut there) an upper bound. No bounds when the
 * prefix is all 0xff.
 */
static void long_bounds(page_rec *r, const leaf *l)
{
    const uint8_t *mn = NULL, *mx = NULL;
    size_t mnl = 0, mxl = 0, j;

    if (page_is_dict(l)) {
        const uint32_t *idx = (const uint32_t *)(const void *)l->indices.ptr;
        const uint8_t *plain = (const uint8_t *)l->dict.plain.ptr;
        size_t i;
        for (i = 0; i < l->page_values; i++) {
            const pq_dict_entry *e = &l->dict.entries[idx[i]];
            const uint8_t *v = plain + e->off;
            if (mn == NULL ||
                pq_write_stats__cmp(PW_ORDER_BYTES, v, e->len, mn, mnl) < 0)
                mn = v, mnl = e->len;
            if (mx == NULL ||
                pq_write_stats__cmp(PW_ORDER_BYTES, v, e->len, mx, mxl) > 0)
                mx = v, mxl = e->len;
        }
    } else if (l->pext_has) {
        const uint8_t *base = (const uint8_t *)l->values.ptr;
        mn = base + l->pmin_off, mnl = l->pmin_len;
        mx = base + l->pmax_off, mxl = l->pmax_len;
    }
    if (mn == NULL || mx == NULL)
        return;
    r->min_len = (uint8_t)(mnl < STAT_MAX_BYTES ? mnl : STAT_MAX_BYTES);
    memcpy(r->min, mn, r->min_len);
    if (mxl <= STAT_MAX_BYTES) {
        r->max_len = (uint8_t)mxl;
        memcpy(r->max, mx, mxl);
    } else {
        memcpy(r->max, mx, STAT_MAX_BYTES);
        for (j = STAT_MAX_BYTES; j > 0 && r->max[j - 1] == 0xff; j--)
            ;
        if (j == 0)
            return;
        r->max[j - 1]++;
        r->max_len = (uint8_t)j;
    }
    r->has_bounds = 1;
}

/*
 * What the page index needs of the page being flushed, but where it
 * lands and its size (known when it is settled): called after
 * page_statistics, before the page's statistics are cleared.
 */
static void make_page_rec(page_rec *r, leaf *l)
{
    memset(r, 0, sizeof *r);
    r->first_row = l->chunk_rows;
    r->nulls = l->pst.nulls;
    r->null_page = l->page_values == 0;
    if (l->pst.has && !l->pst.skip_bounds && l->pst.min_len <= 255 &&
        l->pst.max_len <= 255) {
        r->has_bounds = 1;
        r->min_len = (uint8_t)l->pst.min_len;
        r->max_len = (uint8_t)l->pst.max_len;
        memcpy(r->min, l->pst.min, l->pst.min_len);
        memcpy(r->max, l->pst.max, l->pst.max_len);
    }
    if (!r->has_bounds && l->page_values > 0 &&
        l->node->order == PW_ORDER_BYTES)
        long_bounds(r, l);
}

/* The page's body (levels, then values) into j->body; where its
 * compressed part starts in j->in_off, the repetition levels' bytes in
 * *rep_len. */
static int build_body(const pq_writer *w, leaf *l, pq_page_job *j,
                      size_t *rep_len)
{
    const pw_node *n = l->node;
    int v2 = w->opts.page_v2;

    if (n->max_rep > 0 &&
        put_level_run(&j->body, &l->reps, l->page_levels, n->max_rep,
                      !v2) < 0)
        return ZB_ENOMEM;
    *rep_len = j->body.len;
    if (n->max_def > 0 &&
        put_level_run(&j->body, &l->defs, l->page_levels, n->max_def,
                      !v2) < 0)
        return ZB_ENOMEM;
    j->in_off = v2 ? j->body.len : 0;
    if (!page_is_dict(l) && n->conv != PW_BOOL)
        return zb_buf_append(&j->body, pq_writer__vals_ptr(l),
                             pq_writer__vals_len(l));
    return put_page_values(&j->body, l);
}

/* The page's header but its compressed size (rep_len: the repetition
 * levels' bytes, v2). */
static void page_header(const pq_writer *w, const leaf *l, pq_page_job *j,
                        size_t rep_len)
{
    pq_page_header *h = &j->h;

    memset(h, 0, sizeof *h);
    h->uncompressed_page_size = (int32_t)j->body.len;
    if (!w->opts.page_v2) {
        h->type = PQ_DATA_PAGE;
        h->data.num_values = (int32_t)l->page_levels;
        h->data.encoding = page_is_dict(l) ? PQ_ENC_RLE_DICTIONARY
                                           : PQ_ENC_PLAIN;
        h->data.definition_level_encoding = PQ_ENC_RLE;
        h->data.repetition_level_encoding = PQ_ENC_RLE;
    } else {
        h->type = PQ_DATA_PAGE_V2;
        h->v2.num_values = (int32_t)l->page_levels;
        h->v2.num_nulls = (int32_t)(l->page_levels - l->page_values);
        h->v2.num_rows = (int32_t)page_rows(l);
        h->v2.encoding = page_is_dict(l) ? PQ_ENC_RLE_DICTIONARY
                                         : PQ_ENC_PLAIN;
        h->v2.repetition_levels_byte_length = (int32_t)rep_len;
        h->v2.definition_levels_byte_length =
            (int32_t)(j->in_off - rep_len);
        h->v2.is_compressed = 1;
    }
}

/* One page's steps in order (body, header, statistics, page index, the
 * dictionary decision), then its compression handed to a job and its
 * leaf's buffers emptied; the job is settled later (pq_write_jobs.c). */
int pq_writer__flush_page(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                          leaf *l)
{
    const pw_node *n = l->node;
    pq_page_job *j;
    size_t rep_len = 0;
    int rc;

    if (l->page_levels == 0)
        return ZB_OK;
    if ((j = pq_writer__job_get(w)) == NULL)
        return zb_fail_oom(ctx);
    if (build_body(w, l, j, &rep_len) < 0) {
        pq_writer__job_put(w, j);
        return zb_fail(ctx, ZB_ENOMEM, "column %s: page too large", n->name);
    }
    page_header(w, l, j, rep_len);
    if ((rc = page_statistics(ctx, l)) < 0) {
        pq_writer__job_put(w, j);
        return rc;
    }
    j->pst = l->pst;
    if (w->opts.page_index) {
        make_page_rec(&j->rec, l);
        l->chunk_rows += (int64_t)page_rows(l);
    }
    /* A value is compared once, for its page; the chunk takes the
     * page's bounds (its null count is kept as levels arrive). */
    pq_write_stats_merge(&l->st, &l->pst, n->order);
    pq_write_metrics__page(l, &l->pst);
    memset(&l->pst, 0, sizeof l->pst);
    l->pext_has = l->pext_long = 0;
    l->chunk_values += (int64_t)l->page_levels;
    if (page_is_dict(l)) {
        l->dict_pages++;
        /* Give up on the dictionary when pq_writer__dictionary_done says
         * so, or when after the first page it does not beat PLAIN. */
        if (pq_writer__dictionary_done(w, l) ||
            (l->dict_pages == 1 &&
             l->dict.plain.len + j->body.len >= l->page_plain_bytes))
            l->use_dict = 0;
    }
    pq_writer__job_submit(w, s, l, j);
    zb_buf_clear(&l->defs);
    zb_buf_clear(&l->reps);
    zb_buf_clear(&l->values);
    zb_buf_clear(&l->indices);
    l->page_levels = 0;
    l->page_values = 0;
    l->page_plain_bytes = 0;
    return ZB_OK;
}

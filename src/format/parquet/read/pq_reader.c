/*
 * format/parquet/read/pq_reader.c - a Parquet file as Arrow batches (see
 * parquet.h).
 *
 * Open: check the magic at both ends, read and decode the footer, build
 * the schema tree, choose the projected top-level columns and so the leaf
 * columns to read. Next: when no row group is loaded, move to the next one
 * the filter accepts, reserve its memory from the budget, read each
 * projected column chunk whole and open a pq_column on it. Then every leaf
 * column yields the same number of rows into its leaf batch and record
 * assembly turns them into one struct array. A batch never spans two row
 * groups.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/parquet.h"
#include "format/parquet/read/pq_assemble.h"
#include "format/parquet/read/pq_column.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

#define FOOTER_MAX_BYTES (256u << 20)

struct pq_reader {
    zb_arena *arena;
    zb_io_file *file;
    char *uri;
    uint64_t file_size;
    pq_file_meta meta;
    pq_schema schema;
    pq_reader_opts opts;
    const pq_node **top;            /* projected top-level columns */
    size_t n_top;
    unsigned char *leaf_used;       /* by leaf index */
    pq_column **cols;               /* by leaf index, for the loaded group */
    pq_leaf_batch *batches;         /* by leaf index */
    pq_leaf_batch **batch_ptrs;
    size_t rg;                      /* next row group to load */
    int loaded;
    int64_t rg_rows_left;
    zb_reservation reservation;
    zb_codec_state *codec;          /* decompression contexts, reused */
    uint64_t rows_read;
    size_t skipped;
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int read_footer(pq_reader *r, zb_ctx *ctx)
{
    uint8_t tail[8], head[4];
    uint8_t *footer = NULL;
    uint32_t len;
    int rc;

    if (r->file_size < 12)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: %llu bytes is too short for a "
                       "Parquet file", r->uri,
                       (unsigned long long)r->file_size);
    if ((rc = zb_io_file_read(r->file, ctx, r->file_size - 8, tail, 8)) < 0 ||
        (rc = zb_io_file_read(r->file, ctx, 0, head, 4)) < 0)
        return zb_err_prefix(ctx, "%s", r->uri);
    if (memcmp(tail + 4, "PARE", 4) == 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: encrypted Parquet footers "
                       "are not supported", r->uri);
    if (memcmp(tail + 4, "PAR1", 4) != 0 || memcmp(head, "PAR1", 4) != 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: not a Parquet file (no PAR1 "
                       "magic at offset %llu)", r->uri,
                       memcmp(head, "PAR1", 4) != 0
                           ? 0ULL
                           : (unsigned long long)(r->file_size - 4));
    len = le32(tail);
    if ((uint64_t)len > r->file_size - 12 || len > FOOTER_MAX_BYTES)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: footer length %u at offset "
                       "%llu does not fit the %llu-byte file", r->uri, len,
                       (unsigned long long)(r->file_size - 8),
                       (unsigned long long)r->file_size);
    if ((footer = zb_malloc(len ? len : 1)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_io_file_read(r->file, ctx, r->file_size - 8 - len, footer,
                              len)) < 0) {
        zb_free(footer);
        return zb_err_prefix(ctx, "%s", r->uri);
    }
    rc = pq_meta_parse(&r->meta, r->arena, ctx, footer, len);
    zb_free(footer);
    if (rc < 0)
        return zb_err_prefix(ctx, "%s: footer at offset %llu", r->uri,
                             (unsigned long long)(r->file_size - 8 - len));
    return ZB_OK;
}

static int wanted(const pq_reader_opts *o, const pq_node *n)
{
    size_t i;

    if (o->field_ids == NULL && o->columns == NULL)
        return 1;
    for (i = 0; o->field_ids && i < o->n_field_ids; i++)
        if (n->elem && n->elem->has_field_id &&
            n->elem->field_id == o->field_ids[i])
            return 1;
    for (i = 0; o->columns && i < o->n_columns; i++)
        if (strcmp(n->name, o->columns[i]) == 0)
            return 1;
    return 0;
}

static void mark_leaves(pq_reader *r, const pq_node *n)
{
    size_t i;

    if (n->kind == PQ_NODE_PRIMITIVE) {
        r->leaf_used[n->leaf_index] = 1;
        return;
    }
    for (i = 0; i < n->n_children; i++)
        mark_leaves(r, n->children[i]);
}

static int project(pq_reader *r, zb_ctx *ctx)
{
    const pq_node *root = r->schema.root;
    size_t i, n = r->schema.n_leaves;

    r->top = zb_arena_calloc(r->arena, root->n_children + 1, sizeof *r->top);
    r->leaf_used = zb_arena_calloc(r->arena, n + 1, 1);
    r->cols = zb_arena_calloc(r->arena, n + 1, sizeof *r->cols);
    r->batches = zb_arena_calloc(r->arena, n + 1, sizeof *r->batches);
    r->batch_ptrs = zb_arena_calloc(r->arena, n + 1, sizeof *r->batch_ptrs);
    if (!r->top || !r->leaf_used || !r->cols || !r->batches || !r->batch_ptrs)
        return zb_fail_oom(ctx);
    for (i = 0; i < root->n_children; i++) {
        if (wanted(&r->opts, root->children[i])) {
            r->top[r->n_top++] = root->children[i];
            mark_leaves(r, root->children[i]);
        }
    }
    for (i = 0; i < n; i++) {
        pq_leaf_batch_init(&r->batches[i], (size_t)1 << 31);
        r->batch_ptrs[i] = &r->batches[i];
    }
    for (i = 0; i < r->meta.n_row_groups; i++)
        if (r->meta.row_groups[i].n_columns != n)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: row group %zu has %zu "
                           "columns, the schema %zu", r->uri, i,
                           r->meta.row_groups[i].n_columns, n);
    return ZB_OK;
}

int pq_reader_open(pq_reader **out, zb_io *io, zb_ctx *ctx, const char *uri,
                   const pq_reader_opts *opts)
{
    pq_reader *r;
    pq_reader_opts defaults = PQ_READER_OPTS_INIT;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri);
    *out = NULL;
    if ((r = zb_calloc(1, sizeof *r)) == NULL)
        return zb_fail_oom(ctx);
    r->opts = opts ? *opts : defaults;
    if (r->opts.batch_rows == 0)
        r->opts.batch_rows = defaults.batch_rows;
    if (r->opts.max_page_bytes == 0)
        r->opts.max_page_bytes = defaults.max_page_bytes;
    if ((r->uri = zb_strdup(uri)) == NULL ||
        zb_arena_new(&r->arena, (size_t)1 << 32) < 0 ||
        zb_codec_state_new(&r->codec) < 0) {
        pq_reader_free(r);
        return zb_fail_oom(ctx);
    }
    if ((rc = zb_io_open(&r->file, io, ctx, uri)) < 0 ||
        ((r->file_size = zb_io_file_size(r->file)), 0) ||
        (rc = read_footer(r, ctx)) < 0 ||
        (rc = pq_schema_build(&r->schema, r->arena, ctx, &r->meta)) < 0 ||
        (rc = project(r, ctx)) < 0) {
        if (rc == ZB_ECORRUPT || rc == ZB_EUNSUPPORTED)
            if (strstr(ctx->err.msg, uri) == NULL)
                zb_err_prefix(ctx, "%s", uri);
        pq_reader_free(r);
        return rc;
    }
    *out = r;
    return ZB_OK;
}

static void unload(pq_reader *r)
{
    size_t i;

    for (i = 0; i < r->schema.n_leaves; i++) {
        pq_column_free(r->cols[i]);
        r->cols[i] = NULL;
    }
    zb_budget_release(&r->reservation);
    r->loaded = 0;
}

void pq_reader_free(pq_reader *r)
{
    size_t i;

    if (r == NULL)
        return;
    if (r->cols)
        unload(r);
    for (i = 0; r->batches && i < r->schema.n_leaves; i++)
        pq_leaf_batch_free(&r->batches[i]);
    zb_io_file_close(r->file);
    zb_codec_state_free(r->codec);
    zb_arena_free(r->arena);
    zb_free(r->uri);
    zb_free(r);
}

const pq_file_meta *pq_reader_meta(const pq_reader *r)
{
    return &r->meta;
}

const pq_schema *pq_reader_schema(const pq_reader *r)
{
    return &r->schema;
}

uint64_t pq_reader_rows_read(const pq_reader *r)
{
    return r->rows_read;
}

size_t pq_reader_row_groups_skipped(const pq_reader *r)
{
    return r->skipped;
}

int pq_reader_arrow_schema(struct ArrowSchema *out, pq_reader *r, zb_ctx *ctx)
{
    size_t i;
    int rc;

    if ((rc = zb_arrow_schema_init(out, "+s", "", NULL, 0, 0,
                                   (int64_t)r->n_top)) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < r->n_top; i++) {
        if ((rc = pq_schema_export(out->children[i], r->top[i])) < 0) {
            zb_arrow_schema_release(out);
            return zb_fail_oom(ctx);
        }
    }
    return ZB_OK;
}

/* Where a column chunk's bytes are: its first page and its length. */
static int chunk_range(pq_reader *r, zb_ctx *ctx, const pq_column_chunk *cc,
                       const char *path, uint64_t *start, uint64_t *len)
{
    const pq_column_meta *m = &cc->meta_data;
    int64_t s = m->data_page_offset;

    if (!cc->has_meta_data)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: column %s has no metadata",
                       r->uri, path);
    if (cc->file_path)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: column %s lives in another "
                       "file (%s)", r->uri, path, cc->file_path);
    /* Some writers set dictionary_page_offset to 0 when there is none. */
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < s)
        s = m->dictionary_page_offset;
    if (s < 4 || m->total_compressed_size < 0 ||
        (uint64_t)s > r->file_size ||
        (uint64_t)m->total_compressed_size > r->file_size - (uint64_t)s)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: column %s: chunk at offset "
                       "%lld of %lld bytes lies outside the %llu-byte file",
                       r->uri, path, (long long)s,
                       (long long)m->total_compressed_size,
                       (unsigned long long)r->file_size);
    *start = (uint64_t)s;
    *len = (uint64_t)m->total_compressed_size;
    return ZB_OK;
}

int pq_reader_read_chunk(pq_reader *r, zb_ctx *ctx, size_t rg, size_t col,
                         uint8_t **bytes, uint64_t *start, uint64_t *len)
{
    char path[256];
    int rc;

    *bytes = NULL;
    if (rg >= r->meta.n_row_groups || col >= r->schema.n_leaves)
        return zb_fail(ctx, ZB_EINVAL, "%s: no column chunk %zu of row "
                       "group %zu", r->uri, col, rg);
    pq_schema_leaf_path(path, sizeof path, r->schema.leaves[col]);
    if ((rc = chunk_range(r, ctx, &r->meta.row_groups[rg].columns[col], path,
                          start, len)) < 0)
        return rc;
    if ((*bytes = zb_malloc(*len ? (size_t)*len : 1)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_io_file_read(r->file, ctx, *start, *bytes,
                              (size_t)*len)) < 0) {
        zb_free(*bytes);
        *bytes = NULL;
        return zb_err_prefix(ctx, "%s: column %s", r->uri, path);
    }
    return ZB_OK;
}

static int load_row_group(pq_reader *r, zb_ctx *ctx)
{
    const pq_row_group *g = &r->meta.row_groups[r->rg];
    uint64_t need = 0;
    size_t i;
    int rc;

    for (i = 0; i < r->schema.n_leaves; i++) {
        const pq_column_meta *m = &g->columns[i].meta_data;
        if (r->leaf_used[i] && g->columns[i].has_meta_data)
            need += (uint64_t)(m->total_compressed_size > 0
                                   ? m->total_compressed_size : 0) +
                    (uint64_t)(m->total_uncompressed_size > 0
                                   ? m->total_uncompressed_size : 0);
    }
    if (ctx->budget &&
        (rc = zb_budget_reserve(&r->reservation, ctx->budget, need,
                                ctx->stop)) < 0)
        return zb_fail(ctx, rc, "%s: stopped while waiting for %llu bytes of "
                       "memory", r->uri, (unsigned long long)need);
    for (i = 0; i < r->schema.n_leaves; i++) {
        const pq_column_chunk *cc = &g->columns[i];
        uint64_t start = 0, len = 0;
        uint8_t *chunk;
        char path[256];

        if (!r->leaf_used[i])
            continue;
        pq_schema_leaf_path(path, sizeof path, r->schema.leaves[i]);
        if ((rc = chunk_range(r, ctx, cc, path, &start, &len)) < 0)
            goto fail;
        if (cc->meta_data.type != r->schema.leaves[i]->elem->type) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: column %s: chunk type %d "
                         "differs from the schema's %d", r->uri, path,
                         (int)cc->meta_data.type,
                         (int)r->schema.leaves[i]->elem->type);
            goto fail;
        }
        if ((chunk = zb_malloc(len ? (size_t)len : 1)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        if ((rc = zb_io_file_read(r->file, ctx, start, chunk,
                                  (size_t)len)) < 0) {
            zb_free(chunk);
            zb_err_prefix(ctx, "%s: column %s", r->uri, path);
            goto fail;
        }
        if ((rc = pq_column_open(&r->cols[i], ctx, r->uri,
                                 r->schema.leaves[i], &cc->meta_data, chunk,
                                 (size_t)len, start,
                                 r->opts.max_page_bytes, r->codec)) < 0)
            goto fail;
    }
    r->loaded = 1;
    r->rg_rows_left = g->num_rows;
    return ZB_OK;
fail:
    unload(r);
    return rc;
}

static int read_batch(pq_reader *r, zb_ctx *ctx, struct ArrowArray *out,
                      size_t rows)
{
    size_t i, got;
    int rc;

    for (i = 0; i < r->schema.n_leaves; i++) {
        if (!r->leaf_used[i])
            continue;
        pq_leaf_batch_clear(&r->batches[i]);
        if ((rc = pq_column_read(r->cols[i], ctx, &r->batches[i], rows,
                                 &got)) < 0)
            return rc;
        if (got != rows) {
            char path[256];
            pq_schema_leaf_path(path, sizeof path, r->schema.leaves[i]);
            return zb_fail(ctx, ZB_ECORRUPT, "%s: column %s: row group %zu "
                           "ends after %zu of its rows", r->uri, path,
                           r->rg, (size_t)(r->meta.row_groups[r->rg].num_rows -
                                           r->rg_rows_left + (int64_t)got));
        }
    }
    if ((rc = zb_arrow_array_init(out, 1, (int64_t)r->n_top)) < 0)
        return zb_fail_oom(ctx);
    out->length = (int64_t)rows;
    for (i = 0; i < r->n_top; i++) {
        if ((rc = pq_assemble(out->children[i], ctx, &r->schema, r->top[i],
                              r->batch_ptrs)) < 0) {
            zb_arrow_array_release(out);
            return zb_err_prefix(ctx, "%s: row group %zu", r->uri, r->rg);
        }
        if (out->children[i]->length != (int64_t)rows) {
            zb_arrow_array_release(out);
            return zb_fail(ctx, ZB_ECORRUPT, "%s: column %s has %lld rows "
                           "in a batch of %zu", r->uri, r->top[i]->name,
                           (long long)out->children[i]->length, rows);
        }
    }
    return ZB_OK;
}

int pq_reader_next(pq_reader *r, zb_ctx *ctx, struct ArrowArray *out)
{
    size_t rows;
    int rc;

    ZB_ASSERT_ARG(r && ctx && out);
    memset(out, 0, sizeof *out);
    while (!r->loaded || r->rg_rows_left == 0) {
        if (r->loaded) {
            unload(r);
            r->rg++;
        }
        if (r->rg >= r->meta.n_row_groups)
            return 0;
        if (r->meta.row_groups[r->rg].num_rows < 0)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: row group %zu has a "
                           "negative row count", r->uri, r->rg);
        if (r->opts.filter && !r->opts.filter(r, r->rg,
                                               r->opts.filter_payload)) {
            r->skipped++;
            r->rg++;
            continue;
        }
        if ((rc = load_row_group(r, ctx)) < 0)
            return rc;
    }
    rows = r->rg_rows_left < (int64_t)r->opts.batch_rows
               ? (size_t)r->rg_rows_left : r->opts.batch_rows;
    if ((rc = read_batch(r, ctx, out, rows)) < 0)
        return rc;
    r->rg_rows_left -= (int64_t)rows;
    r->rows_read += rows;
    return 1;
}

static int stat_value(int64_t *out, const uint8_t *p, size_t len, pq_type t)
{
    if (t == PQ_INT32 && len == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        *out = v;
        return 1;
    }
    if (t == PQ_INT64 && len == 8) {
        memcpy(out, p, 8);
        return 1;
    }
    return 0;
}

int pq_row_group_int_range(const pq_reader *r, size_t rg, int32_t field_id,
                           int64_t *min, int64_t *max)
{
    const pq_statistics *s;
    const pq_node *leaf = NULL;
    size_t i;

    if (rg >= r->meta.n_row_groups)
        return 0;
    for (i = 0; i < r->schema.n_leaves; i++) {
        const pq_node *l = r->schema.leaves[i];
        if (l->elem->has_field_id && l->elem->field_id == field_id)
            leaf = l;
    }
    if (leaf == NULL || (leaf->elem->type != PQ_INT32 &&
                         leaf->elem->type != PQ_INT64) ||
        leaf->format[0] == 'I' || leaf->format[0] == 'L' ||
        leaf->format[0] == 'C' || leaf->format[0] == 'S' ||
        !r->meta.row_groups[rg].columns[leaf->leaf_index].has_meta_data)
        return 0;
    if (!r->meta.row_groups[rg].columns[leaf->leaf_index]
             .meta_data.has_statistics)
        return 0;
    s = &r->meta.row_groups[rg].columns[leaf->leaf_index].meta_data.statistics;
    /* min_value/max_value first; the deprecated min/max are signed for
     * these types, which is what a signed integer needs. */
    if (s->has_min_value && s->has_max_value)
        return stat_value(min, s->min_value, s->min_value_len,
                          leaf->elem->type) &&
               stat_value(max, s->max_value, s->max_value_len,
                          leaf->elem->type);
    if (s->has_min && s->has_max)
        return stat_value(min, s->min, s->min_len, leaf->elem->type) &&
               stat_value(max, s->max, s->max_len, leaf->elem->type);
    return 0;
}

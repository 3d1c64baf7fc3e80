/*
 * format/parquet/read/pq_reader.c - a Parquet file as Arrow batches (see
 * parquet.h).
 *
 * Open: read the file's tail (one read, see read_footer), check the
 * magic, decode the footer, build the schema tree, choose the projected
 * top-level columns and so the leaf columns to read. Next: when no row
 * group is loaded, move to the next one the filter accepts, reserve its
 * memory from the budget, read every projected column chunk whole in one
 * vectored read and open a pq_column on each. Then every leaf column
 * yields the same number of rows into its leaf batch and record assembly
 * turns them into one struct array. A batch never spans two row groups.
 */
#define ZB_MODULE "parquet"

#include <string.h>

#include "format/parquet/parquet.h"
#include "format/parquet/read/pq_assemble.h"
#include "format/parquet/read/pq_column.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

#define FOOTER_MAX_BYTES (256u << 20)
/* One speculative read at the end of the file: the footer and its length. */
#define TAIL_READ_BYTES ((size_t)64 << 10)

struct pq_reader {
    zb_arena *arena;
    zb_io_file *file;
    char *uri;
    uint64_t file_size;
    int head_unchecked;             /* "PAR1" at offset 0 not yet seen */
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

/*
 * The footer costs one read: the last TAIL_READ_BYTES of the file (all of
 * a small file) hold the length, the magic and, nearly always, the whole
 * footer; a longer footer costs one more read for the part before the
 * tail. On an object store each read is a round trip, and the S3
 * backend's open() already fetched this tail, so this read is free there.
 */
static int read_footer(pq_reader *r, zb_ctx *ctx)
{
    uint8_t *tail, *footer, *end;
    uint64_t tail_off;
    size_t tail_len, have;
    uint32_t len;
    int rc;

    if (r->file_size < 12)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: %llu bytes is too short for a "
                       "Parquet file", r->uri,
                       (unsigned long long)r->file_size);
    tail_len = r->file_size < TAIL_READ_BYTES ? (size_t)r->file_size
                                              : TAIL_READ_BYTES;
    tail_off = r->file_size - tail_len;
    if ((tail = zb_malloc(tail_len)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_io_file_read(r->file, ctx, tail_off, tail, tail_len)) < 0) {
        zb_free(tail);
        return zb_err_prefix(ctx, "%s", r->uri);
    }
    end = tail + tail_len - 8;           /* footer length, then magic */
    /*
     * The head magic is in the tail buffer when the file is that small.
     * For a larger file, checking it here would cost a round trip of its
     * own on an object store; it is checked instead with the first row
     * group's read (check_head), where its 4 bytes sit just before the
     * first chunk and are coalesced into the same request. The footer's
     * magic and a footer that decodes are the stronger checks anyway.
     */
    r->head_unchecked = tail_off != 0;
    if (memcmp(end + 4, "PARE", 4) == 0) {
        zb_free(tail);
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: encrypted Parquet footers "
                       "are not supported", r->uri);
    }
    if (memcmp(end + 4, "PAR1", 4) != 0 ||
        (tail_off == 0 && memcmp(tail, "PAR1", 4) != 0)) {
        int bad_head = tail_off == 0 && memcmp(tail, "PAR1", 4) != 0;
        zb_free(tail);
        return zb_fail(ctx, ZB_ECORRUPT, "%s: not a Parquet file (no PAR1 "
                       "magic at offset %llu)", r->uri,
                       bad_head ? 0ULL
                                : (unsigned long long)(r->file_size - 4));
    }
    len = le32(end);
    if ((uint64_t)len > r->file_size - 12 || len > FOOTER_MAX_BYTES) {
        zb_free(tail);
        return zb_fail(ctx, ZB_ECORRUPT, "%s: footer length %u at offset "
                       "%llu does not fit the %llu-byte file", r->uri, len,
                       (unsigned long long)(r->file_size - 8),
                       (unsigned long long)r->file_size);
    }
    have = tail_len - 8;
    if (len <= have) {
        footer = end - len;
    } else {
        /* The footer starts before the tail: read only what is missing. */
        if ((footer = zb_malloc(len)) == NULL) {
            zb_free(tail);
            return zb_fail_oom(ctx);
        }
        memcpy(footer + (len - have), tail, have);
        rc = zb_io_file_read(r->file, ctx, r->file_size - 8 - len, footer,
                             len - have);
        zb_free(tail);
        tail = footer;
        if (rc < 0) {
            zb_free(tail);
            return zb_err_prefix(ctx, "%s", r->uri);
        }
    }
    rc = pq_meta_parse(&r->meta, r->arena, ctx, footer, len);
    zb_free(tail);
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
    if ((rc = zb_io_open_sized(&r->file, io, ctx, uri,
                               r->opts.file_size)) < 0 ||
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

int pq_reader_reproject(pq_reader *r, zb_ctx *ctx, const int32_t *field_ids,
                        size_t n_field_ids, const char *const *columns,
                        size_t n_columns)
{
    size_t i;
    int rc;

    ZB_ASSERT_ARG(r && ctx);
    if (r->rg != 0 || r->loaded)
        return zb_fail(ctx, ZB_EINVAL, "%s: projection changed after rows "
                       "were read", r->uri);
    for (i = 0; i < r->schema.n_leaves; i++)
        pq_leaf_batch_free(&r->batches[i]);
    r->opts.field_ids = field_ids;
    r->opts.n_field_ids = n_field_ids;
    r->opts.columns = columns;
    r->opts.n_columns = n_columns;
    r->n_top = 0;
    rc = project(r, ctx);     /* the old arrays stay in the arena */
    /* only project reads them: nothing borrowed outlives the call */
    r->opts.field_ids = NULL;
    r->opts.columns = NULL;
    return rc;
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

/* The head magic a large file's footer read left unchecked (read_footer). */
static int check_head(pq_reader *r, zb_ctx *ctx, const uint8_t head[4])
{
    if (memcmp(head, "PAR1", 4) != 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: not a Parquet file (no PAR1 "
                       "magic at offset 0)", r->uri);
    r->head_unchecked = 0;
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
    zb_io_range ranges[2];
    uint8_t head[4];
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
    ranges[0].offset = *start;
    ranges[0].len = (size_t)*len;
    ranges[0].dst = *bytes;
    ranges[1].offset = 0;
    ranges[1].len = sizeof head;
    ranges[1].dst = head;
    if ((rc = zb_io_file_read_vec(r->file, ctx, ranges + (*len == 0),
                                  (*len > 0) + (r->head_unchecked != 0))) <
        0) {
        zb_err_prefix(ctx, "%s: column %s", r->uri, path);
    } else if (r->head_unchecked) {
        rc = check_head(r, ctx, head);
    }
    if (rc < 0) {
        zb_free(*bytes);
        *bytes = NULL;
    }
    return rc;
}

/*
 * Reads every selected column chunk of row group r->rg with one vectored
 * read (so one round trip on an object store, near chunks coalesced) and
 * opens a pq_column on each. The chunks are held whole while the row
 * group is loaded, as they were when read one by one, so the budget
 * reservation covers the same bytes.
 */
static int load_row_group(pq_reader *r, zb_ctx *ctx)
{
    const pq_row_group *g = &r->meta.row_groups[r->rg];
    zb_io_range *ranges = NULL;
    size_t *leaf_of = NULL;
    uint8_t head[4];
    uint64_t need = 0;
    size_t i, k, m, n = 0;
    int rc;

    for (i = 0; i < r->schema.n_leaves; i++) {
        const pq_column_meta *cm = &g->columns[i].meta_data;
        if (r->leaf_used[i] && g->columns[i].has_meta_data)
            need += (uint64_t)(cm->total_compressed_size > 0
                                   ? cm->total_compressed_size : 0) +
                    (uint64_t)(cm->total_uncompressed_size > 0
                                   ? cm->total_uncompressed_size : 0);
    }
    if (ctx->budget &&
        (rc = zb_budget_reserve(&r->reservation, ctx->budget, need,
                                ctx->stop)) < 0)
        return zb_fail(ctx, rc, "%s: stopped while waiting for %llu bytes of "
                       "memory", r->uri, (unsigned long long)need);
    if ((ranges = zb_calloc(2 * r->schema.n_leaves + 2, sizeof *ranges)) ==
            NULL ||
        (leaf_of = zb_calloc(r->schema.n_leaves + 1, sizeof *leaf_of)) ==
            NULL) {
        rc = zb_fail_oom(ctx);
        goto fail;
    }
    for (i = 0; i < r->schema.n_leaves; i++) {
        const pq_column_chunk *cc = &g->columns[i];
        uint64_t start = 0, len = 0;
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
        if ((ranges[n].dst = zb_malloc(len ? (size_t)len : 1)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        ranges[n].offset = start;
        ranges[n].len = (size_t)len;
        leaf_of[n++] = i;
    }
    /* Empty chunks need no bytes: ranges[n..] lists only what is read. */
    for (k = 0, m = n; k < n; k++)
        if (ranges[k].len > 0)
            ranges[m++] = ranges[k];
    if (r->head_unchecked && n > 0) {
        ranges[m].offset = 0;
        ranges[m].len = sizeof head;
        ranges[m++].dst = head;
    }
    if ((rc = zb_io_file_read_vec(r->file, ctx, ranges + n, m - n)) < 0) {
        char path[256];
        if (n == 1) {
            pq_schema_leaf_path(path, sizeof path,
                                r->schema.leaves[leaf_of[0]]);
            zb_err_prefix(ctx, "%s: column %s", r->uri, path);
        } else {
            zb_err_prefix(ctx, "%s: row group %zu", r->uri, r->rg);
        }
        goto fail;
    }
    if (r->head_unchecked && n > 0 && (rc = check_head(r, ctx, head)) < 0)
        goto fail;
    for (k = 0; k < n; k++) {
        i = leaf_of[k];
        rc = pq_column_open(&r->cols[i], ctx, r->uri, r->schema.leaves[i],
                            &g->columns[i].meta_data, ranges[k].dst,
                            ranges[k].len, ranges[k].offset,
                            r->opts.max_page_bytes, r->codec);
        ranges[k].dst = NULL;           /* the column owns it now */
        if (rc < 0)
            goto fail;
    }
    zb_free(ranges);
    zb_free(leaf_of);
    r->loaded = 1;
    r->rg_rows_left = g->num_rows;
    return ZB_OK;
fail:
    for (k = 0; ranges && k < n; k++)
        zb_free(ranges[k].dst);
    zb_free(ranges);
    zb_free(leaf_of);
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

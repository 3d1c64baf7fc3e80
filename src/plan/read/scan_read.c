/*
 * plan/read/scan_read.c - the row stream (plan/read/scan_read.h): opens each
 * data file in turn, marks the rows that position deletes, deletion vectors and
 * equality deletes remove, and projects the live ones to the read schema
 * (scan_project.c). Delete files are loaded at open (scan_posdel.c,
 * scan_eqdel.c).
 */
#define ZB_MODULE "plan"

#include <string.h>

#include "plan/read/scan_read_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define URI_MAX ((size_t)64 << 10)
#define ARENA_MAX ((size_t)256 << 20)

/* The row lineage fields (format/spec.md "Row Lineage"): optional longs. */
static const ice_type LINEAGE_LONG = {
    .id = ICE_LONG, .prim = { .id = ICE_LONG }, .text = "long"
};
static const ice_field LINEAGE_FIELDS[2] = {
    { ZB_ROW_ID_FIELD_ID, "_row_id", 0, &LINEAGE_LONG, NULL, NULL, NULL },
    { ZB_LAST_UPDATED_SEQ_FIELD_ID, "_last_updated_sequence_number", 0,
      &LINEAGE_LONG, NULL, NULL, NULL }
};

int zb_scan__file_uri(zb_rowstream *rs, zb_ctx *ctx, const zb_scan_file *f,
                      zb_buf *out)
{
    zb_buf_clear(out);
    if (f->uri)
        return zb_buf_puts(out, f->uri) < 0 ? zb_fail_oom(ctx) : ZB_OK;
    return ice_manifest_resolve_path(out, ctx, rs->has_paths ? &rs->paths
                                                             : NULL,
                                     f->file->file_path);
}

int zb_scan__reader_next(zb_rowstream *rs, zb_ctx *ctx, pq_reader *r,
                         struct ArrowArray *out)
{
    zb_budget *saved = ctx->budget;
    int rc;

    if (rs->res.bytes > 0 || (rs->ks && zb_keyset_reserved_bytes(rs->ks) > 0))
        ctx->budget = NULL;
    rc = pq_reader_next(r, ctx, out);
    ctx->budget = saved;
    return rc;
}

static int file_has_ids(const pq_reader *r)
{
    const pq_schema *s = pq_reader_schema(r);
    size_t i;

    for (i = 0; i < s->root->n_children; i++)
        if (s->root->children[i]->elem &&
            s->root->children[i]->elem->has_field_id)
            return 1;
    return 0;
}

int zb_scan__proj_init(zb_rowstream *rs, zb_ctx *ctx, zb_proj_file *pf,
                       const zb_scan_file *f, const char *uri, pq_reader *r)
{
    ZB_UNUSED(ctx);
    memset(pf, 0, sizeof *pf);
    pf->uri = uri;
    pf->has_ids = file_has_ids(r);
    pf->nm = rs->has_nm ? &rs->nm : NULL;
    pf->spec = ice_metadata_spec(rs->opts.meta, f->spec_id);
    pf->df = f->file;
    pf->arena = rs->batch_arena;
    return ZB_OK;
}

/* Adds a name to a list if absent. */
static int add_name(const char **names, size_t *n, size_t cap,
                    const char *name)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp(names[i], name) == 0)
            return 0;
    if (*n == cap)
        return -1;
    names[(*n)++] = name;
    return 0;
}

int zb_scan__open_file(zb_rowstream *rs, zb_ctx *ctx, pq_reader **out,
                       const zb_scan_file *f, const char *uri,
                       const int32_t *ids, size_t n)
{
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    const pq_schema *s;
    const char **names = NULL;
    size_t n_names = 0, cap, i, j, matched = 0;
    int rc;

    *out = NULL;
    if (f->file->file_format && strcmp(f->file->file_format, "PARQUET") != 0
        && strcmp(f->file->file_format, "parquet") != 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: file format %s is not "
                       "read (only Parquet)", uri, f->file->file_format);
    o.batch_rows = rs->opts.batch_rows;
    o.field_ids = ids;
    o.n_field_ids = n;
    if (f->file->file_size_in_bytes > 0)
        o.file_size = (uint64_t)f->file->file_size_in_bytes;
    if ((rc = pq_reader_open(&r, rs->io, ctx, uri, &o)) < 0)
        return rc;
    s = pq_reader_schema(r);
    if (file_has_ids(r)) {
        for (i = 0; i < s->root->n_children; i++)
            for (j = 0; j < n; j++)
                if (s->root->children[i]->elem->has_field_id &&
                    s->root->children[i]->elem->field_id == ids[j])
                    matched++;
        if (matched > 0) {
            *out = r;
            return ZB_OK;
        }
    }
    /* By name: the mapping's names (or the fields' names), at least one
     * column so that batches still count the rows. */
    cap = s->root->n_children + 1;
    if ((names = zb_calloc(cap, sizeof *names)) == NULL) {
        pq_reader_free(r);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < s->root->n_children; i++) {
        const char *cn = s->root->children[i]->name;
        for (j = 0; j < n; j++) {
            const ice_field *fld = ice_schema_find_field(rs->schema, ids[j]);
            const zb_nm_field *e = rs->has_nm ? zb_scan__nm_find(&rs->nm,
                                                                 ids[j])
                                              : NULL;
            size_t k;
            int hit = 0;
            if (file_has_ids(r))
                break;
            if (e) {
                for (k = 0; k < e->n_names; k++)
                    hit |= strcmp(e->names[k], cn) == 0;
            } else if (!rs->has_nm && fld) {
                hit = strcmp(fld->name, cn) == 0;
            }
            if (hit)
                (void)add_name(names, &n_names, cap, cn);
        }
    }
    if (n_names == 0 && s->root->n_children > 0)
        names[n_names++] = s->root->children[0]->name;
    /* The same reader, by name: no second open (a request on object
     * stores); the names live in its schema. */
    rc = pq_reader_reproject(r, ctx, NULL, 0, names, n_names);
    zb_free(names);
    if (rc < 0) {
        pq_reader_free(r);
        return rc;
    }
    *out = r;
    return ZB_OK;
}

/*
 * Reserves from ctx->budget what the position lists will hold: 8 bytes
 * per record of each distinct position delete file and DV (a DV's
 * record_count is its cardinality), plus, while DVs are read one at a
 * time, the largest DV blob twice (the blob read and its parsed bitmap;
 * a bitmap is never much larger than its serialized form). Taken at once
 * when it fits. Otherwise, when the group has no equality deletes, it is
 * waited for: the lists cannot be built in pieces (each must be whole
 * before rows are read), and the stream holds nothing in the budget yet
 * (this runs first at open), so the wait cannot be on the stream's own
 * memory; a request larger than the whole budget is admitted once it is
 * the only holder. With equality deletes the key set reserves on its own
 * and waits to load a spilled partition: a second holder of the same
 * stream waiting there could never be served, so the lists go unreserved
 * (logged with their size) rather than deadlock. Callers that reserve for
 * the stream themselves give it a ctx without a budget (scan_read.h).
 */
static int reserve_positions(zb_rowstream *rs, zb_ctx *ctx)
{
    uint64_t bytes = 0, dv_max = 0;
    int has_eq = 0;
    size_t i;
    int rc;

    if (ctx->budget == NULL)
        return ZB_OK;
    for (i = 0; i < rs->dx.n; i++) {
        const ice_data_file *df = rs->dx.files[i].f->file;
        if (df->content == ICE_CONTENT_EQUALITY_DELETES)
            has_eq = 1;
        if (df->content != ICE_CONTENT_POSITION_DELETES)
            continue;
        if (df->record_count > 0)
            bytes += 8 * (uint64_t)df->record_count;
        if (ice_data_file_is_dv(df) && df->content_size_in_bytes > 0 &&
            (uint64_t)df->content_size_in_bytes > dv_max)
            dv_max = (uint64_t)df->content_size_in_bytes;
    }
    bytes += 2 * dv_max;
    if (bytes == 0)
        return ZB_OK;
    if (zb_budget_try_grow(&rs->res, ctx->budget, bytes) == ZB_OK)
        return ZB_OK;
    if (has_eq) {
        zb_log_info(ctx, "row stream: %llu bytes of position deletes for "
                    "%zu task(s) read outside the memory budget (no room "
                    "now, and the group's equality deletes reserve too)",
                    (unsigned long long)bytes, rs->n_tasks);
        return ZB_OK;
    }
    if (rs->res.budget != NULL)
        rc = zb_budget_grow(&rs->res, bytes, ctx->stop);
    else
        rc = zb_budget_reserve(&rs->res, ctx->budget, bytes, ctx->stop);
    if (rc < 0)
        return zb_fail(ctx, rc, "row stream: no memory budget for the "
                       "position deletes of %zu task(s): %llu bytes needed "
                       "(8 a deleted position)", rs->n_tasks,
                       (unsigned long long)bytes);
    return ZB_OK;
}

int zb_rowstream_open(zb_rowstream **out, zb_io *io, zb_ctx *ctx,
                      const zb_rowstream_opts *opts,
                      const zb_scan_task *tasks, size_t n_tasks)
{
    zb_rowstream *rs = NULL;
    const char *nmj;
    size_t i, j;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && opts && opts->meta);
    ZB_ASSERT_ARG(tasks || n_tasks == 0);
    *out = NULL;
    if ((rs = zb_calloc(1, sizeof *rs)) == NULL)
        return zb_fail_oom(ctx);
    rs->io = io;
    rs->opts = *opts;
    if (rs->opts.batch_rows == 0)
        rs->opts.batch_rows = 65536;
    if (rs->opts.batch_rows > ((size_t)1 << 30))
        rs->opts.batch_rows = (size_t)1 << 30;
    rs->opts.field_ids = NULL;
    if (opts->paths) {
        rs->paths = *opts->paths;
        rs->has_paths = 1;
    }
    rs->tasks = tasks;
    rs->n_tasks = n_tasks;
    rs->schema = opts->schema ? opts->schema
                              : ice_metadata_current_schema(opts->meta);
    zb_buf_init(&rs->uri, URI_MAX);
    zb_buf_init(&rs->key, (size_t)64 << 20);
    if (rs->schema == NULL || rs->schema->root == NULL) {
        rc = zb_fail(ctx, ZB_EINVAL, "row stream: the table has no schema");
        goto done;
    }
    if ((rc = zb_arena_new(&rs->arena, ARENA_MAX)) < 0 ||
        (rc = zb_arena_new(&rs->batch_arena, ARENA_MAX)) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    /* The output fields. */
    {
        const ice_type *root = rs->schema->root;
        size_t n = opts->field_ids ? opts->n_field_ids : root->n_fields;
        rs->out_fields = zb_arena_calloc(rs->arena, n + 3,
                                         sizeof *rs->out_fields);
        if (rs->out_fields == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        for (i = 0; i < n; i++) {
            const ice_field *f = NULL;
            if (opts->field_ids == NULL) {
                f = &root->fields[i];
            } else {
                for (j = 0; j < root->n_fields; j++)
                    if (root->fields[j].id == opts->field_ids[i])
                        f = &root->fields[j];
                if (f == NULL) {
                    rc = zb_fail(ctx, ZB_EINVAL, "row stream: field id %d "
                                 "is not a top-level field of schema %d",
                                 (int)opts->field_ids[i],
                                 (int)rs->schema->schema_id);
                    goto done;
                }
            }
            rs->out_fields[rs->n_out++] = f;
        }
        rs->lineage_at = SIZE_MAX;
        if (opts->lineage) {
            rs->lineage_at = rs->n_out;
            rs->lineage_rewrite = opts->lineage == ZB_LINEAGE_REWRITE;
            rs->out_fields[rs->n_out++] = &LINEAGE_FIELDS[0];
            rs->out_fields[rs->n_out++] = &LINEAGE_FIELDS[1];
        }
    }
    if ((rs->movable = zb_arena_calloc(rs->arena, rs->n_out + 1, 1)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    nmj = ice_metadata_property(opts->meta, "schema.name-mapping.default");
    if (nmj) {
        if ((rc = zb_scan__name_mapping_parse(&rs->nm, rs->arena, ctx,
                                              nmj)) < 0) {
            zb_err_prefix(ctx, "table property schema.name-mapping.default");
            goto done;
        }
        rs->has_nm = 1;
    }
    if ((rs->ts = zb_calloc(n_tasks + 1, sizeof *rs->ts)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if (zb_scan__delindex_build(&rs->dx, tasks, n_tasks) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = reserve_positions(rs, ctx)) < 0 ||
        (rc = zb_scan__posdel_load(rs, ctx)) < 0)
        goto done;
    if ((rc = zb_scan__eqdel_load(rs, ctx)) < 0)
        goto done;
    *out = rs;
    rs = NULL;
done:
    zb_rowstream_free(rs);
    return rc;
}

int zb_rowstream_schema(struct ArrowSchema *out, zb_rowstream *rs,
                        zb_ctx *ctx)
{
    size_t i;
    int rc;

    ZB_ASSERT_ARG(out && rs && ctx);
    if (zb_arrow_schema_init(out, "+s", "", NULL, 0, 0,
                             (int64_t)rs->n_out) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < rs->n_out; i++)
        if ((rc = zb_scan__field_schema(out->children[i],
                                        rs->out_fields[i])) < 0) {
            zb_arrow_schema_release(out);
            if (rc == ZB_EUNSUPPORTED)
                return zb_fail(ctx, rc, "field %s: type %s has no Arrow "
                               "form here", rs->out_fields[i]->name,
                               ice_type_name(rs->out_fields[i]->type->id));
            return zb_fail_oom(ctx);
        }
    return ZB_OK;
}

/* The top-level ids the reader of task ti must read. */
static int task_ids(zb_rowstream *rs, zb_ctx *ctx, size_t ti, int32_t **ids,
                    size_t *n)
{
    const zb_task_state *t = &rs->ts[ti];
    size_t cap = rs->n_out + 1, i, j, k;
    int32_t *v;

    for (i = 0; !rs->marked && i < t->n_scopes; i++)
        cap += rs->eqsets[rs->scopes[t->scopes[i]].eqset].n_ids;
    if ((v = zb_malloc(cap * sizeof *v)) == NULL)
        return zb_fail_oom(ctx);
    *n = 0;
    for (i = 0; i < rs->n_out; i++)
        v[(*n)++] = rs->out_fields[i]->id;
    for (i = 0; !rs->marked && i < t->n_scopes; i++) {
        const zb_eqset *es = &rs->eqsets[rs->scopes[t->scopes[i]].eqset];
        for (j = 0; j < es->n_ids; j++) {
            int32_t top = es->keys[j].path[0]->id;
            for (k = 0; k < *n && v[k] != top; k++)
                ;
            if (k == *n)
                v[(*n)++] = top;
        }
    }
    *ids = v;
    return ZB_OK;
}

static void close_file(zb_rowstream *rs)
{
    pq_reader_free(rs->r);
    rs->r = NULL;
    zb_arrow_schema_release(&rs->rschema);
    memset(&rs->rschema, 0, sizeof rs->rschema);
}

static int open_task(zb_rowstream *rs, zb_ctx *ctx)
{
    const zb_scan_task *t = &rs->tasks[rs->ti];
    int32_t *ids = NULL;
    size_t n = 0;
    int rc;

    if (t->data.file == NULL || t->data.file->content != ICE_CONTENT_DATA)
        return zb_fail(ctx, ZB_EINVAL, "row stream: task %zu is not a data "
                       "file", rs->ti);
    if ((rc = zb_scan__file_uri(rs, ctx, &t->data, &rs->uri)) < 0)
        return rc;
    if ((rc = task_ids(rs, ctx, rs->ti, &ids, &n)) < 0)
        return rc;
    rc = zb_scan__open_file(rs, ctx, &rs->r, &t->data, rs->uri.ptr, ids, n);
    zb_free(ids);
    if (rc < 0)
        return rc;
    if ((rc = pq_reader_arrow_schema(&rs->rschema, rs->r, ctx)) < 0) {
        close_file(rs);
        return rc;
    }
    zb_scan__proj_init(rs, ctx, &rs->pf, &t->data, rs->uri.ptr, rs->r);
    memset(rs->movable, -1, rs->n_out + 1);
    rs->row_base = 0;
    rs->pos_cur = 0;
    return ZB_OK;
}

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    void *q;

    if (n <= *cap)
        return ZB_OK;
    if ((q = zb_realloc(*p, n * elem)) == NULL)
        return ZB_ENOMEM;
    *p = q;
    *cap = n;
    return ZB_OK;
}

/*
 * Lineage column f (_row_id or _last_updated_sequence_number) of rows
 * sel[0..nsel) of b, whose row 0 is at position pos0 of the current data
 * file: the file's value where it has one, else the inherited one.
 */
static int lineage_column(zb_rowstream *rs, zb_ctx *ctx,
                          struct ArrowArray *out, const ice_field *f,
                          const struct ArrowArray *b, const uint32_t *sel,
                          size_t nsel, uint64_t pos0)
{
    const zb_scan_file *sf = &rs->tasks[rs->ti].data;
    const struct ArrowArray *sa = NULL;
    const uint8_t *svalid = NULL;
    int64_t first = sf->file->first_row_id, *vals;
    int is_row_id = f->id == ZB_ROW_ID_FIELD_ID, wide = 1, inherit;
    uint8_t *valid;
    size_t k;

    if (rs->pf.has_ids) {
        int64_t c;

        for (c = 0; c < rs->rschema.n_children && c < b->n_children; c++)
            if (zb_scan__arrow_field_id(rs->rschema.children[c]) == f->id) {
                const char *fmt = rs->rschema.children[c]->format;

                if (strcmp(fmt, "l") != 0 && strcmp(fmt, "i") != 0)
                    return zb_fail(ctx, ZB_ECORRUPT, "%s: row lineage "
                                   "column %s (field id %d) has Arrow type "
                                   "%s, not a long", rs->uri.ptr, f->name,
                                   (int)f->id, fmt);
                sa = b->children[c];
                wide = fmt[0] == 'l';
                if (sa->null_count != 0 && sa->n_buffers > 0)
                    svalid = sa->buffers[0];
                break;
            }
    }
    /* A file without a first_row_id (spec "Row Lineage for Upgraded
     * Tables") inherits null for both columns on read; a rewrite keeps
     * its data sequence number, which its rows inherit as soon as a
     * snapshot assigns the file a first_row_id. */
    inherit = first != ICE_NULL_LONG || (!is_row_id && rs->lineage_rewrite);
    if (first != ICE_NULL_LONG && first < 0)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: first_row_id %lld is "
                       "negative", rs->uri.ptr, (long long)first);
    if (zb_arrow_array_init(out, 2, 0) < 0 ||
        (valid = zb_calloc(1, (nsel + 7) / 8 + 1)) == NULL) {
        zb_arrow_array_release(out);
        return zb_fail_oom(ctx);
    }
    out->buffers[0] = valid;
    if ((vals = zb_calloc(nsel + 1, sizeof *vals)) == NULL) {
        zb_arrow_array_release(out);
        return zb_fail_oom(ctx);
    }
    out->buffers[1] = vals;
    out->length = (int64_t)nsel;
    for (k = 0; k < nsel; k++) {
        uint64_t row = sel ? sel[k] : (uint64_t)k;

        if (sa != NULL) {
            int64_t phys = sa->offset + b->offset + (int64_t)row;

            if (svalid == NULL || zb_arrow_bit(svalid, phys)) {
                vals[k] = wide ? ((const int64_t *)sa->buffers[1])[phys]
                               : ((const int32_t *)sa->buffers[1])[phys];
                zb_arrow_set_bit(valid, (int64_t)k);
                continue;
            }
        }
        if (!inherit) {
            out->null_count++;
            continue;
        }
        if (is_row_id && pos0 + row > (uint64_t)(INT64_MAX - first)) {
            zb_arrow_array_release(out);
            return zb_fail(ctx, ZB_ECORRUPT, "%s: row %llu: _row_id "
                           "overflows (first_row_id %lld)", rs->uri.ptr,
                           (unsigned long long)(pos0 + row),
                           (long long)first);
        }
        vals[k] = is_row_id ? first + (int64_t)(pos0 + row)
                            : sf->data_sequence_number;
        zb_arrow_set_bit(valid, (int64_t)k);
    }
    return ZB_OK;
}

/*
 * The batch of rows sel[0..nsel) of b (sel NULL: all of them), b's row 0
 * being at position pos0 of the data file. A column already in the read
 * form is moved out of b when every row is kept (b is released right
 * after, as the C data interface requires).
 */
static int build_batch(zb_rowstream *rs, zb_ctx *ctx, struct ArrowArray *out,
                       struct ArrowArray *b, const uint32_t *sel,
                       size_t nsel, uint64_t pos0)
{
    size_t i;
    int rc;

    if (zb_arrow_array_init(out, 1, (int64_t)rs->n_out) < 0)
        return zb_fail_oom(ctx);
    out->length = (int64_t)nsel;
    for (i = 0; i < rs->n_out; i++) {
        const ice_field *f = rs->out_fields[i];
        const zb_nm_field *nm = NULL;
        int idx;

        if (i >= rs->lineage_at) {
            zb_arrow_array_release(out->children[i]);
            if ((rc = lineage_column(rs, ctx, out->children[i], f, b, sel,
                                     nsel, pos0)) < 0) {
                zb_arrow_array_release(out);
                return rc;
            }
            continue;
        }
        idx = zb_scan__src_child(&rs->pf, &rs->rschema, f,
                                 rs->has_nm ? &rs->nm : NULL, &nm);
        if (idx >= b->n_children)
            idx = -1;
        if (idx >= 0 && sel == NULL && b->offset == 0 &&
            b->children[idx]->release != NULL) {
            if (rs->movable[i] < 0)
                rs->movable[i] = (int8_t)zb_scan__can_move(
                    &rs->pf, f->type, nm, rs->rschema.children[idx]);
            if (rs->movable[i] && b->children[idx]->length == b->length) {
                /* Moved: out's child slot takes b's child as it is. */
                zb_arrow_array_release(out->children[i]);
                *out->children[i] = *b->children[idx];
                b->children[idx]->release = NULL;
                continue;
            }
        }
        rc = zb_scan__gather(&rs->pf, ctx, out->children[i], f->type, f, nm,
                             idx >= 0 ? rs->rschema.children[idx] : NULL,
                             idx >= 0 ? b->children[idx] : NULL, sel, nsel,
                             b->offset);
        if (rc < 0) {
            zb_arrow_array_release(out);
            return rc;
        }
    }
    return ZB_OK;
}

int zb_rowstream_next(zb_rowstream *rs, zb_ctx *ctx, struct ArrowArray *out,
                      struct ArrowSchema *schema)
{
    struct ArrowArray b;
    int rc;

    ZB_ASSERT_ARG(rs && ctx && out);
    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    if (rs->failed)
        return zb_fail(ctx, ZB_EINVAL, "row stream: used after an error");
    for (;;) {
        zb_task_state *t;
        size_t n, i, nsel = 0;
        uint64_t npos = 0, neq = 0;

        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto fail;
        }
        if (rs->r == NULL) {
            if (rs->ti >= rs->n_tasks)
                return 0;
            if ((rc = open_task(rs, ctx)) < 0)
                goto fail;
        }
        t = &rs->ts[rs->ti];
        if ((rc = zb_scan__reader_next(rs, ctx, rs->r, &b)) < 0)
            goto fail;
        if (rc == 0) {
            close_file(rs);
            rs->counts.data_files++;
            rs->ti++;
            continue;
        }
        n = (size_t)b.length;
        zb_arena_reset(rs->batch_arena);
        if (grow((void **)&rs->sel, &rs->sel_cap, n + 1, sizeof *rs->sel) < 0
            || grow((void **)&rs->del, &rs->del_cap, n + 1, 1) < 0) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        memset(rs->del, 0, n);
        while (rs->pos_cur < t->n_pos &&
               t->pos[rs->pos_cur] < rs->row_base + n) {
            if (t->pos[rs->pos_cur] >= rs->row_base)
                rs->del[t->pos[rs->pos_cur] - rs->row_base] = 1;
            rs->pos_cur++;
        }
        if (rs->marked && t->eq_marks) {
            for (i = 0; i < n; i++) {
                uint64_t p = rs->row_base + i;
                if (rs->del[i] == 0 && p / 8 < t->eq_marks_bytes &&
                    zb_arrow_bit(t->eq_marks, (int64_t)p))
                    rs->del[i] = 2;
            }
        } else if (!rs->marked && t->n_scopes > 0) {
            if ((rc = zb_scan__eqdel_probe(rs, ctx, rs->ti, &rs->pf,
                                           &rs->rschema, &b, rs->del,
                                           n)) < 0)
                goto fail;
        }
        for (i = 0; i < n; i++) {
            if (rs->del[i] == 0)
                rs->sel[nsel++] = (uint32_t)i;
            else if (rs->del[i] == 1)
                npos++;
            else
                neq++;
        }
        rs->counts.rows_read += n;
        rs->counts.deleted_by_position += npos;
        rs->counts.deleted_by_equality += neq;
        rs->row_base += n;
        if (nsel > 0 &&
            (rc = build_batch(rs, ctx, out, &b,
                              nsel == n ? NULL : rs->sel, nsel,
                              rs->row_base - n)) < 0)
            goto fail;
        b.release(&b);
        rs->counts.rows_out += nsel;
        assert(rs->counts.rows_read == rs->counts.rows_out +
               rs->counts.deleted_by_position +
               rs->counts.deleted_by_equality);
        if (nsel == 0)
            continue;
        rs->last_task = rs->ti;
        rs->last_pos0 = rs->row_base - n;
        rs->last_nsel = nsel;
        rs->last_sel = nsel != n;
        if (schema && (rc = zb_rowstream_schema(schema, rs, ctx)) < 0) {
            zb_arrow_array_release(out);
            goto fail;
        }
        return 1;
    }
fail:
    zb_arrow_array_release(&b);
    rs->failed = 1;
    return rc;
}

const zb_read_counts *zb_rowstream_counts(const zb_rowstream *rs)
{
    return &rs->counts;
}

size_t zb_rowstream_task_index(const zb_rowstream *rs)
{
    return rs->last_task;
}

void zb_rowstream_last_rows(const zb_rowstream *rs, uint64_t *pos0,
                            const uint32_t **sel, size_t *nsel)
{
    *pos0 = rs->last_pos0;
    *sel = rs->last_sel ? rs->sel : NULL;
    *nsel = rs->last_nsel;
}

void zb_rowstream_free(zb_rowstream *rs)
{
    size_t i;

    if (rs == NULL)
        return;
    close_file(rs);
    for (i = 0; rs->ts && i < rs->n_tasks; i++) {
        zb_free(rs->ts[i].pos);
        zb_free(rs->ts[i].eq_marks);
    }
    zb_free(rs->ts);
    zb_scan__delindex_free(&rs->dx);
    zb_keyset_free(rs->ks);
    zb_free(rs->sel);
    zb_free(rs->del);
    zb_buf_free(&rs->uri);
    zb_buf_free(&rs->key);
    zb_arena_free(rs->arena);
    zb_arena_free(rs->batch_arena);
    zb_budget_release(&rs->res);
    zb_free(rs);
}

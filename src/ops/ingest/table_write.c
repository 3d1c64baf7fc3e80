/*
 * ops/ingest/table_write.c - create a table, write Parquet data and delete
 * files into it, and commit them as appends (ops/ingest/table_write.h).
 */
#define ZB_MODULE "write"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "exec/roaring/roaring.h"
#include "format/parquet/parquet_write.h"
#include "format/puffin/puffin.h"
#include "ops/ingest/table_write.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "table/metrics/file_metrics.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

/* Iceberg's reserved field ids of position delete files. */
#define POS_FILE_PATH_ID 2147483546
#define POS_POS_ID 2147483545

/* Longest file URI this module makes. */
#define ZB_WRITE_URI_MAX ((size_t)16 << 10)
/* Largest deletion-vector file this module writes in one piece. */
#define ZB_WRITE_FILE_MAX ((size_t)1 << 30)
/* Most memory the metrics of one written file may take. */
#define ZB_WRITE_ARENA_MAX ((size_t)256 << 20)

int zb_ingest_create(zb_table **out, zb_catalog *cat, zb_ctx *ctx,
                     const char *ident, const char *location,
                     const zb_json *schema_json, const zb_json *spec_json,
                     const ice_kv *props, size_t n_props, int format_version)
{
    const json_t *schema = (const json_t *)schema_json;
    const json_t *spec = (const json_t *)spec_json;
    ice_metadata *m = NULL;
    int rc;

    *out = NULL;
    /* A table folder is its own location; other catalogs choose one
     * when none is given and record it in the metadata they write. */
    if (location == NULL && zb_catalog_get_kind(cat) == ZB_CATALOG_PATH)
        location = ident;
    rc = ice_metadata_create(&m, ctx, (const zb_json *)schema,
                             (const zb_json *)spec, NULL,
                             location ? location : "", props, n_props,
                             format_version);
    if (rc < 0)
        return zb_err_prefix(ctx, "creating %s", ident);
    rc = zb_catalog_create_table(cat, ctx, ident, location, m, out);
    ice_metadata_free(m);
    return rc;
}

/* ---- file names and writer options ---- */

int zb_ingest_new_file_uri(zb_buf *out, zb_ctx *ctx, const zb_table *t,
                           const char *folder, const char *ext)
{
    const char *base = ice_metadata_property(t->meta, ICE_PROP_DATA_PATH);
    char uuid[37];
    int rc;

    ice_commit_uuid(uuid);
    zb_buf_clear(out);
    /* write.data.path is a path as metadata writes it: resolve it as the
     * table's other paths. */
    if (base != NULL) {
        if ((rc = zb_table_resolve(out, ctx, t, base)) < 0)
            return rc;
    } else if (zb_buf_appendf(out, "%s/data", t->root) < 0) {
        return zb_fail_oom(ctx);
    }
    if ((folder != NULL && folder[0] != '\0' &&
         zb_buf_appendf(out, "/%s", folder) < 0) ||
        zb_buf_appendf(out, "/%s.%s", uuid, ext) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static int data_uri(zb_buf *out, zb_ctx *ctx, const zb_table *t,
                    const zb_write_partition *part, const char *ext)
{
    return zb_ingest_new_file_uri(out, ctx, t, part ? part->folder : NULL,
                                  ext);
}

int zb_ingest_writer_opts(pq_writer_opts *o, zb_ctx *ctx,
                          const ice_metadata *m)
{
    const char **kv;
    size_t i;
    int unsupported = 0, rc;

    *o = (pq_writer_opts)PQ_WRITER_OPTS_INIT;
    kv = zb_calloc(2 * m->n_properties + 1, sizeof *kv);
    if (kv == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < m->n_properties; i++) {
        kv[2 * i] = m->properties[i].key;
        kv[2 * i + 1] = m->properties[i].value;
    }
    rc = pq_writer_opts_apply_properties(o, ctx, kv, &unsupported);
    zb_free(kv);
    return rc;
}

/* Partition values of part into f (copied into arena). */
static int set_partition(ice_data_file *f, zb_ctx *ctx, zb_arena *arena,
                         const ice_metadata *m, const zb_write_partition *part)
{
    const ice_partition_spec *spec;
    ice_value *vals;
    const char **names;
    int32_t *ids;
    size_t i;

    spec = part != NULL && part->spec_id >= 0
               ? ice_metadata_spec(m, part->spec_id)
               : ice_metadata_default_spec(m);
    if (spec == NULL)
        return zb_fail(ctx, ZB_EINVAL, "no partition spec %d",
                       part ? (int)part->spec_id : -1);
    if ((part == NULL ? 0 : part->n_values) != spec->n_fields)
        return zb_fail(ctx, ZB_EINVAL,
                       "partition spec %d has %zu fields, %zu values given",
                       (int)spec->spec_id, spec->n_fields,
                       part == NULL ? (size_t)0 : part->n_values);
    f->n_partition = spec->n_fields;
    if (spec->n_fields == 0)
        return ZB_OK;
    vals = zb_arena_calloc(arena, spec->n_fields, sizeof *vals);
    names = zb_arena_calloc(arena, spec->n_fields, sizeof *names);
    ids = zb_arena_calloc(arena, spec->n_fields, sizeof *ids);
    if (vals == NULL || names == NULL || ids == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < spec->n_fields; i++) {
        vals[i] = part->values[i];
        names[i] = spec->fields[i].name;
        ids[i] = spec->fields[i].field_id;
    }
    f->partition = vals;
    f->partition_names = names;
    f->partition_field_ids = ids;
    return ZB_OK;
}

int zb_ingest_write_parquet(ice_data_file *out, zb_arena *arena, zb_io *io,
                            zb_ctx *ctx, const zb_table *t,
                            ice_file_content content,
                            const struct ArrowSchema *schema,
                            const struct ArrowArray *batches, size_t n_batches,
                            const zb_write_partition *part)
{
    const ice_metadata *m = t->meta;
    pq_writer_opts o;
    pq_writer *w = NULL;
    pq_write_result res;
    ice_metrics_config cfg;
    ice_data_file_metrics dm;
    zb_buf uri = ZB_BUF_INIT(ZB_WRITE_URI_MAX);
    size_t i;
    int rc;

    memset(&res, 0, sizeof res);
    if ((rc = zb_ingest_writer_opts(&o, ctx, m)) < 0 ||
        (rc = data_uri(&uri, ctx, t, part, "parquet")) < 0)
        goto out;
    if ((rc = pq_writer_open(&w, io, ctx, uri.ptr, schema, &o)) < 0)
        goto out;
    for (i = 0; i < n_batches; i++)
        if ((rc = pq_writer_write(w, ctx, &batches[i])) < 0) {
            pq_writer_abort(w);
            goto out;
        }
    if ((rc = pq_writer_close(w, ctx, &res)) < 0)
        goto out;
    ice_metrics_config_init(&cfg, ice_metadata_current_schema(m),
                            ice_metadata_sort_order(m,
                                                    m->default_sort_order_id),
                            m->properties, m->n_properties);
    if ((rc = ice_metrics_from_parquet(&dm, ctx, arena, &cfg, &res)) < 0 ||
        (rc = ice_data_file_from_metrics(out, ctx, arena, &dm, content,
                                         uri.ptr)) < 0 ||
        (rc = set_partition(out, ctx, arena, m, part)) < 0)
        goto out;
out:
    pq_write_result_free(&res);
    if (rc < 0)
        zb_err_prefix(ctx, "writing a file of %s", t->ident);
    zb_buf_free(&uri);
    return rc;
}

/* ---- commits ---- */

/* A position delete: a data file as the manifests name it, a row. */
typedef struct pos_row {
    const char *path;
    int64_t pos;
} pos_row;

static int check_no_dv(const zb_table *t, zb_io *io, zb_ctx *ctx,
                       const pos_row *rows, size_t n);

/* One commit attempt's state for zb_catalog_commit_retry. */
typedef struct commit_attempt {
    ice_commit_op *op;
    zb_io *io;
    ice_commit_result r;           /* the latest attempt's files and JSON */
    /* Deletion vectors being added: no data file may have one already,
     * checked again on every base an attempt builds on. */
    const pos_row *dv_rows;
    size_t n_dv_rows;
    const char *dv_checked;        /* metadata already checked for them */
} commit_attempt;

static int build_attempt(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                         const zb_table *t, void *payload)
{
    commit_attempt *a = payload;
    int rc;

    ice_commit_result_free(&a->r);
    a->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    if (a->n_dv_rows > 0 &&
        (a->dv_checked == NULL ||
         strcmp(a->dv_checked, t->metadata_location) != 0) &&
        (rc = check_no_dv(t, a->io, ctx, a->dv_rows, a->n_dv_rows)) < 0)
        return rc;
    if ((rc = ice_commit_op_build(a->op, ctx, t->meta, &a->r)) < 0)
        return rc;
    *reqs = (zb_json *)json_incref((json_t *)a->r.requirements);
    *updates = (zb_json *)json_incref((json_t *)a->r.updates);
    return ZB_OK;
}

/* An attempt known to have failed: what it wrote can go. */
static void drop_attempt(zb_ctx *ctx, const zb_table *t, void *payload)
{
    commit_attempt *a = payload;

    (void)t;
    ice_commit_result_delete_files(&a->r, a->io, ctx);
    ice_commit_result_free(&a->r);
    a->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
}

static int commit_files(zb_table **t, zb_catalog *cat, zb_io *io,
                        zb_ctx *ctx, const ice_data_file *files,
                        const int32_t *spec_ids, size_t n,
                        const pos_row *dv_rows, size_t n_dv_rows);

int zb_ingest_commit_files(zb_table **t, zb_catalog *cat, zb_io *io,
                           zb_ctx *ctx, const ice_data_file *files,
                           const int32_t *spec_ids, size_t n)
{
    return commit_files(t, cat, io, ctx, files, spec_ids, n, NULL, 0);
}

static int commit_op(zb_table **t, zb_catalog *cat, zb_io *io,
                     zb_ctx *ctx, const ice_data_file *files,
                     const int32_t *spec_ids, size_t n,
                     const pos_row *dv_rows, size_t n_dv_rows,
                     const char *remove);

static int commit_files(zb_table **t, zb_catalog *cat, zb_io *io,
                        zb_ctx *ctx, const ice_data_file *files,
                        const int32_t *spec_ids, size_t n,
                        const pos_row *dv_rows, size_t n_dv_rows)
{
    return commit_op(t, cat, io, ctx, files, spec_ids, n, dv_rows,
                     n_dv_rows, NULL);
}

/* remove: a file the commit removes (an overwrite; NULL: an append). */
static int commit_op(zb_table **t, zb_catalog *cat, zb_io *io,
                     zb_ctx *ctx, const ice_data_file *files,
                     const int32_t *spec_ids, size_t n,
                     const pos_row *dv_rows, size_t n_dv_rows,
                     const char *remove)
{
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    zb_catalog_retry_opts ro = ZB_CATALOG_RETRY_OPTS_INIT;
    commit_attempt a;
    zb_table *next = NULL;
    size_t i;
    int rc;

    memset(&a, 0, sizeof a);
    a.io = io;
    a.dv_rows = dv_rows;
    a.n_dv_rows = n_dv_rows;
    /* The caller checked *t before writing the vectors: a first attempt
     * on the same metadata need not read it again. */
    a.dv_checked = n_dv_rows > 0 ? (*t)->metadata_location : NULL;
    a.r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    o.kind = remove == NULL ? ICE_OP_APPEND
                            : n > 0 ? ICE_OP_OVERWRITE : ICE_OP_DELETE;
    o.io = io;
    o.root = (*t)->root;
    o.paths = &(*t)->paths;
    if ((rc = ice_commit_op_new(&a.op, ctx, &o)) < 0)
        return rc;
    if (remove != NULL &&
        (rc = ice_commit_op_remove_file(a.op, ctx, remove)) < 0)
        goto out;
    for (i = 0; i < n; i++)
        if ((rc = ice_commit_op_add_file(a.op, ctx,
                                         spec_ids ? spec_ids[i] : -1,
                                         &files[i])) < 0)
            goto out;
    /* The retry policy (commit.retry.* of the table) reloads the table
     * after a lost race and builds the snapshot again on the new base. */
    ro.cleanup = drop_attempt;
    rc = zb_catalog_commit_retry(cat, ctx, (*t)->ident, build_attempt, &a,
                                 &ro, &next);
    if (rc == ZB_OK) {
        zb_table_free(*t);
        *t = next;
    }
out:
    /* Committed, or outcome unknown: the files stay. */
    ice_commit_result_free(&a.r);
    ice_commit_op_free(a.op);
    return rc;
}

int zb_ingest_append(zb_table **t, zb_catalog *cat, zb_io *io, zb_ctx *ctx,
                     const struct ArrowSchema *schema,
                     const struct ArrowArray *batches, size_t n_batches,
                     const zb_write_partition *part)
{
    zb_arena *arena = NULL;
    ice_data_file f;
    int32_t spec = part ? part->spec_id : -1;
    int rc;

    if (zb_arena_new(&arena, ZB_WRITE_ARENA_MAX) < 0)
        return zb_fail_oom(ctx);
    rc = zb_ingest_write_parquet(&f, arena, io, ctx, *t, ICE_CONTENT_DATA,
                                 schema, batches, n_batches, part);
    if (rc == ZB_OK)
        rc = zb_ingest_commit_files(t, cat, io, ctx, &f, &spec, 1);
    zb_arena_free(arena);
    return rc;
}

/* ---- delete files ---- */

static int cmp_pos_row(const void *a, const void *b)
{
    const pos_row *x = a, *y = b;
    int c = strcmp(x->path, y->path);

    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The file_path, pos batch of the sorted rows, and its schema. */
static int pos_batch(struct ArrowSchema *sch, struct ArrowArray *arr,
                     const pos_row *rows, size_t n)
{
    int32_t *offsets;
    char *chars;
    int64_t *pos;
    size_t i, total = 0;
    struct ArrowArray *paths, *poss;

    if (zb_arrow_schema_init(sch, "+s", "", NULL, 0, 0, 2) < 0 ||
        zb_arrow_schema_field(sch->children[0], "u", "file_path",
                              POS_FILE_PATH_ID, 0, 0) < 0 ||
        zb_arrow_schema_field(sch->children[1], "l", "pos", POS_POS_ID, 0,
                              0) < 0 ||
        zb_arrow_array_init(arr, 1, 2) < 0)
        return ZB_ENOMEM;
    for (i = 0; i < n; i++)
        total += strlen(rows[i].path);
    if (total > INT32_MAX)
        return ZB_EINVAL;
    paths = arr->children[0];
    poss = arr->children[1];
    if (zb_arrow_array_init(paths, 3, 0) < 0 ||
        zb_arrow_array_init(poss, 2, 0) < 0)
        return ZB_ENOMEM;
    offsets = zb_malloc((n + 1) * sizeof *offsets);
    chars = zb_malloc(total ? total : 1);
    pos = zb_malloc((n ? n : 1) * sizeof *pos);
    paths->buffers[1] = offsets;
    paths->buffers[2] = chars;
    poss->buffers[1] = pos;
    if (offsets == NULL || chars == NULL || pos == NULL)
        return ZB_ENOMEM;
    offsets[0] = 0;
    for (i = 0; i < n; i++) {
        size_t len = strlen(rows[i].path);
        memcpy(chars + offsets[i], rows[i].path, len);
        offsets[i + 1] = offsets[i] + (int32_t)len;
        pos[i] = rows[i].pos;
    }
    arr->length = paths->length = poss->length = (int64_t)n;
    return ZB_OK;
}

static int need_v2(const zb_table *t, zb_ctx *ctx)
{
    if (t->meta->format_version < 2)
        return zb_fail(ctx, ZB_EINVAL, "%s is a format version 1 table: "
                       "it cannot hold delete files", t->ident);
    return ZB_OK;
}

/* ---- deletion vectors (v3) ---- */

/* ZB_EUNSUPPORTED when a live deletion vector already covers path: a
 * data file has at most one, and merging them is not written yet. */
static int check_no_dv(const zb_table *t, zb_io *io, zb_ctx *ctx,
                       const pos_row *rows, size_t n)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(t->meta);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    size_t i;
    int rc;

    if (snap == NULL)
        return ZB_OK;
    if ((rc = ice_snapshot_iter_open(&it, io, ctx, t->meta, snap,
                                     &t->paths)) < 0)
        return rc;
    while ((rc = ice_snapshot_iter_next(it, ctx, &e, &mf)) > 0) {
        const char *ref = e->data_file.referenced_data_file;
        if (!ice_data_file_is_dv(&e->data_file) || ref == NULL)
            continue;
        for (i = 0; i < n; i++)
            if (strcmp(rows[i].path, ref) == 0) {
                ice_snapshot_iter_free(it);
                return zb_fail(ctx, ZB_EUNSUPPORTED,
                               "%s already has a deletion vector; merging "
                               "deletion vectors is not supported yet",
                               ref);
            }
    }
    ice_snapshot_iter_free(it);
    return rc;
}

/*
 * One Puffin file with a deletion vector per data file of the sorted
 * rows, and a delete-file record per vector (*files, *n_files in arena).
 */
static int write_dvs(ice_data_file **files, size_t *n_files, zb_arena *arena,
                     zb_io *io, zb_ctx *ctx, const zb_table *t,
                     const pos_row *rows, size_t n,
                     const zb_write_partition *part)
{
    zb_puffin_blob *blobs;
    zb_buf *dvs, file = ZB_BUF_INIT(ZB_WRITE_FILE_MAX);
    zb_buf uri = ZB_BUF_INIT(ZB_WRITE_URI_MAX);
    zb_roaring *r = NULL;
    ice_data_file *out;
    size_t i, j, k = 0, groups = 0;
    int rc = ZB_OK;

    for (i = 0; i < n; i++)
        groups += i == 0 || strcmp(rows[i].path, rows[i - 1].path) != 0;
    blobs = zb_arena_calloc(arena, groups ? groups : 1, sizeof *blobs);
    dvs = zb_arena_calloc(arena, groups ? groups : 1, sizeof *dvs);
    out = zb_arena_calloc(arena, groups ? groups : 1, sizeof *out);
    if (blobs == NULL || dvs == NULL || out == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n && rc == ZB_OK; i = j, k++) {
        if (zb_roaring_new(&r) < 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
        for (j = i; j < n && strcmp(rows[j].path, rows[i].path) == 0; j++)
            if (rows[j].pos < 0 ||
                zb_roaring_add(r, (uint64_t)rows[j].pos) < 0)
                rc = rows[j].pos < 0
                         ? zb_fail(ctx, ZB_EINVAL, "negative position %lld",
                                   (long long)rows[j].pos)
                         : zb_fail_oom(ctx);
        zb_buf_init(&dvs[k], ZB_WRITE_FILE_MAX);
        if (rc == ZB_OK)
            rc = zb_puffin_dv_blob(&blobs[k], &dvs[k], ctx, arena, r,
                                   rows[i].path);
        out[k].record_count = (int64_t)zb_roaring_cardinality(r);
        zb_roaring_free(r);
        r = NULL;
    }
    if (rc == ZB_OK)
        rc = zb_puffin_build(&file, ctx, blobs, groups,
                             "zamboni version " ZB_VERSION_STRING);
    if (rc == ZB_OK)
        rc = data_uri(&uri, ctx, t, part, "puffin");
    if (rc == ZB_OK)
        rc = zb_io_write_new(io, ctx, uri.ptr, file.ptr, file.len);
    for (i = 0, j = 0; rc == ZB_OK && i < groups; i++) {
        ice_data_file *f = &out[i];
        f->content = ICE_CONTENT_POSITION_DELETES;
        f->file_path = zb_arena_strdup(arena, uri.ptr);
        f->file_format = "PUFFIN";
        f->file_size_in_bytes = (int64_t)file.len;
        f->block_size_in_bytes = ICE_NULL_LONG;
        f->first_row_id = ICE_NULL_LONG;
        f->referenced_data_file = blobs[i].props[1];
        f->content_offset = (int64_t)blobs[i].offset;
        f->content_size_in_bytes = (int64_t)blobs[i].len;
        if (f->file_path == NULL)
            rc = zb_fail_oom(ctx);
        else
            rc = set_partition(f, ctx, arena, t->meta, part);
    }
    for (i = 0; i < groups; i++)
        zb_buf_free(&dvs[i]);
    zb_buf_free(&file);
    zb_buf_free(&uri);
    *files = out;
    *n_files = groups;
    return rc;
}

int zb_ingest_delete_positions(zb_table **t, zb_catalog *cat, zb_io *io,
                               zb_ctx *ctx, const char *const *paths,
                               const int64_t *positions, size_t n,
                               const zb_write_partition *part)
{
    struct ArrowSchema sch;
    struct ArrowArray arr;
    zb_arena *arena = NULL;
    pos_row *rows;
    ice_data_file f;
    int32_t spec = part ? part->spec_id : -1;
    size_t i;
    int rc;

    if ((rc = need_v2(*t, ctx)) < 0)
        return rc;
    memset(&sch, 0, sizeof sch);
    memset(&arr, 0, sizeof arr);
    rows = zb_malloc((n ? n : 1) * sizeof *rows);
    if (rows == NULL || zb_arena_new(&arena, ZB_WRITE_ARENA_MAX) < 0) {
        zb_free(rows);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < n; i++) {
        rows[i].path = paths[i];
        rows[i].pos = positions[i];
    }
    /* The spec asks for rows sorted by file_path, then pos. */
    qsort(rows, n, sizeof *rows, cmp_pos_row);
    if ((*t)->meta->format_version >= 3) {
        /* v3 keeps position deletes as deletion vectors. */
        ice_data_file *dvs = NULL;
        size_t n_dvs = 0;
        int32_t *specs;
        rc = check_no_dv(*t, io, ctx, rows, n);
        if (rc == ZB_OK)
            rc = write_dvs(&dvs, &n_dvs, arena, io, ctx, *t, rows, n, part);
        specs = zb_arena_calloc(arena, n_dvs ? n_dvs : 1, sizeof *specs);
        for (i = 0; specs != NULL && i < n_dvs; i++)
            specs[i] = spec;
        if (rc == ZB_OK)
            rc = specs == NULL ? zb_fail_oom(ctx)
                               : commit_files(t, cat, io, ctx, dvs, specs,
                                              n_dvs, rows, n);
        goto done;
    }
    rc = pos_batch(&sch, &arr, rows, n);
    if (rc < 0)
        rc = zb_fail(ctx, rc, "no room for %zu position deletes", n);
    else
        rc = zb_ingest_write_parquet(&f, arena, io, ctx, *t,
                                     ICE_CONTENT_POSITION_DELETES, &sch, &arr,
                                     1, part);
    if (rc == ZB_OK)
        rc = zb_ingest_commit_files(t, cat, io, ctx, &f, &spec, 1);
done:
    zb_arrow_array_release(&arr);
    zb_arrow_schema_release(&sch);
    zb_arena_free(arena);
    zb_free(rows);
    return rc;
}

int zb_ingest_delete_equal(zb_table **t, zb_catalog *cat, zb_io *io,
                           zb_ctx *ctx, const int32_t *eq_ids, size_t n_ids,
                           const struct ArrowSchema *schema,
                           const struct ArrowArray *batch,
                           const zb_write_partition *part)
{
    zb_arena *arena = NULL;
    ice_data_file f;
    int32_t spec = part ? part->spec_id : -1;
    int32_t *ids;
    int rc;

    if ((rc = need_v2(*t, ctx)) < 0)
        return rc;
    if (n_ids == 0)
        return zb_fail(ctx, ZB_EINVAL, "equality deletes need equality ids");
    if (zb_arena_new(&arena, ZB_WRITE_ARENA_MAX) < 0)
        return zb_fail_oom(ctx);
    rc = zb_ingest_write_parquet(&f, arena, io, ctx, *t,
                                 ICE_CONTENT_EQUALITY_DELETES, schema, batch,
                                 1, part);
    if (rc == ZB_OK) {
        ids = zb_arena_calloc(arena, n_ids, sizeof *ids);
        if (ids == NULL) {
            rc = zb_fail_oom(ctx);
        } else {
            memcpy(ids, eq_ids, n_ids * sizeof *ids);
            f.has_equality_ids = 1;
            f.n_equality_ids = n_ids;
            f.equality_ids = ids;
            rc = zb_ingest_commit_files(t, cat, io, ctx, &f, &spec, 1);
        }
    }
    zb_arena_free(arena);
    return rc;
}

int zb_ingest_replace_dv(zb_table **t, zb_catalog *cat, zb_io *io,
                         zb_ctx *ctx, const char *old_dv, const char *path,
                         const int64_t *positions, size_t n,
                         const zb_write_partition *part, char **new_dv)
{
    zb_arena *arena = NULL;
    pos_row *rows;
    ice_data_file *dvs = NULL;
    size_t i, n_dvs = 0;
    int32_t spec = part ? part->spec_id : -1;
    int rc = ZB_OK;

    if (new_dv != NULL)
        *new_dv = NULL;
    if ((*t)->meta->format_version < 3)
        return zb_fail(ctx, ZB_EINVAL, "%s: deletion vectors need format "
                       "version 3", (*t)->ident);
    if (n == 0 && old_dv == NULL)
        return ZB_OK;
    rows = zb_malloc((n ? n : 1) * sizeof *rows);
    if (rows == NULL || zb_arena_new(&arena, ZB_WRITE_ARENA_MAX) < 0) {
        zb_free(rows);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < n; i++) {
        rows[i].path = path;
        rows[i].pos = positions[i];
    }
    if (n > 0)
        rc = write_dvs(&dvs, &n_dvs, arena, io, ctx, *t, rows, n, part);
    if (rc == ZB_OK)
        rc = commit_op(t, cat, io, ctx, dvs, &spec, n_dvs, NULL, 0, old_dv);
    if (rc < 0 && rc != ZB_ETIMEOUT && n_dvs > 0 && dvs != NULL &&
        dvs[0].file_path != NULL) {
        zb_err saved;              /* not committed: the file can go */

        zb_err_copy(&saved, &ctx->err);
        (void)zb_io_delete(io, ctx, dvs[0].file_path);
        zb_err_copy(&ctx->err, &saved);
    }
    if (rc == ZB_OK && new_dv != NULL && n_dvs > 0 &&
        (*new_dv = zb_strdup(dvs[0].file_path)) == NULL)
        rc = zb_fail_oom(ctx);
    zb_arena_free(arena);
    zb_free(rows);
    return rc;
}

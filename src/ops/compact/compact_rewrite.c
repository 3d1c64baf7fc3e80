/*
 * ops/compact/compact_rewrite.c - the binpack rewrite of one compaction group
 * (ops/compact/compact.h "Rewrite").
 *
 * zb_compact__rewrite writes one slice of a group (compact_slice.c: the
 * whole group, or a run of its inputs): the output schema is the row
 * stream's (the
 * table's current schema, field ids in the Arrow metadata), taken from a
 * stream over no task. Then, when the group has no deletes, each input
 * whose row groups are worth copying and whose Parquet schema equals the
 * output's is appended row group by row group (the writer checks the
 * schema before it writes; a mismatch returns ZB_EINVAL and that file
 * joins the streamed ones; v3 inputs qualify only with both row lineage
 * columns free of nulls, lineage_copyable). The rest are read through one
 * row stream (deletes applied; in v3 with the lineage columns unless
 * reset_row_lineage) and written batch by batch (through the external
 * sort first for the sort strategies). A file rolls when the writer's
 * size (scaled by the compressed/estimated ratio of the last file) passes
 * the target; each closed file becomes a data_file (metrics from the
 * writer, the group's partition). When the output spec differs from the
 * group's, each batch is split by its rows' partition values
 * (compact_repart.c, exec zb_arrow_take) and each partition has an open
 * output of its own (the one in use is swapped into rw). The writer encodes
 * with the slice's writer_threads. The slice's counts are checked with the
 * group's (zb_compact__finish_group). Any failure deletes every file the
 * slice wrote. Sorted rows carry their source (input, position) through
 * the sort as a hidden column, stripped before the writer and spilled as
 * the group's position map (compact_carry_sorted.h, issue 21).
 */
#define ZB_MODULE "compact"

#include <string.h>

#include <jansson.h>

#include "exec/arrow/arrow_spill.h"
#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "ops/compact/compact_carry_map.h"
#include "ops/compact/compact_carry_sorted.h"
#include "ops/compact/compact_int.h"
#include "ops/ingest/table_write.h"
#include "plan/read/scan_read.h"
#include "table/commit/commit.h"
#include "table/metrics/file_metrics.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/vec.h"
#include "zamboni/io_s3.h"

#define URI_MAX ((size_t)16 << 10)
#define COPY_MIN_ROWS_DEFAULT 100000
#define OBJECT_STORE_READERS 8    /* read-ahead workers on S3 and alike */

typedef struct rw {
    zb_compact_slice *sl;
    zb_compact_group *g;           /* sl's */
    zb_arena *arena;
    zb_io *io;
    zb_ctx *ctx;
    const zb_table *table;
    const zb_compact_opts *o;
    int64_t target;
    pq_writer_opts wo;
    struct ArrowSchema schema;     /* the output schema */
    int have_schema;
    pq_writer *w;                  /* the open output, or NULL */
    char *w_uri;
    zb_buf folder;                 /* "a=1/b=x" or empty */
    zb_vec outs;                   /* ice_data_file */
    ice_metrics_config mcfg;
    uint64_t rows_copied;
    /* A slice of several (join_tail): its rows by the manifests, the
     * rows given to writers so far and to the open one. */
    int join_tail;
    uint64_t slice_rows, rows_done, rows_in_file;
    double ratio;                  /* file size / writer's estimate */
    int lineage;                   /* v3: rows keep _row_id and
                                      _last_updated_sequence_number */
    unsigned read_workers;         /* > 1: inputs decoded ahead on threads */
    zb_xsort *xs;                  /* sort strategies */
    int32_t stamp;                 /* sort_order_id of outputs, or -1 */
    /* Rows going into another spec: one open output per partition met;
     * the one in use is loaded into w, w_uri, folder and ratio above. */
    zb_repart *rp;
    zb_vec parts;                  /* part */
    json_t *index;                 /* partition key -> part index */
    size_t cur;                    /* the loaded part; SIZE_MAX: none */
    const char **out_names;        /* the output spec's field names */
    int32_t *out_ids;              /* and ids */
    zb_buf key;
    /* Issue 21: where each surviving input row went (binpack). */
    zb_carry_map map;
    const uint32_t *rest_task;     /* rest[i]'s index into g->tasks */
    zb_carry_sorted *smap;         /* sort and z-order: the spilled map */
    /* Binpack into another spec: each part keeps the map of its own rows
     * (part.map), spliced in output order at the end (splice_parts); a
     * batch's rows come from src_* (a row stream's batch) or, read
     * ahead, in sequence through whole inputs (seq_*). */
    int part_maps;
    uint64_t part_runs;            /* runs of all parts: one cap for all */
    const char *parts_lost;        /* why every part's map is gone */
    zb_vec out_part;               /* size_t: the part of each output */
    int src_set;
    uint32_t src_task;
    uint64_t src_pos0;
    const uint32_t *src_sel;
    const int64_t *seq_rows;       /* record counts; NULL: no sequence */
    size_t seq_n, seq_at;
    uint64_t seq_pos;
} rw;

typedef struct part {
    pq_writer *w;
    char *w_uri;
    char *folder;
    double ratio;
    ice_value *values;             /* in the group's arena */
    zb_carry_map map;              /* its rows' sources, in its order */
    size_t run_at;                 /* splice_parts' cursor in map.runs */
    uint64_t run_off;
} part;

/* "name=value/..." of the group's partition, as Java names folders. */
static int make_folder(rw *s)
{
    const ice_partition_spec *spec = ice_metadata_spec(s->table->meta,
                                                       s->g->spec_id);
    const ice_data_file *f = s->g->tasks[0].data.file;
    size_t i;
    int rc;

    if (spec == NULL || spec->n_fields != f->n_partition)
        return ZB_OK;              /* files straight under data/ */
    for (i = 0; i < spec->n_fields; i++) {
        ice_transform tr;

        if (ice_transform_parse(&tr, s->ctx, spec->fields[i].transform) < 0) {
            zb_err_clear(&s->ctx->err);
            zb_buf_clear(&s->folder);
            return ZB_OK;
        }
        if ((i > 0 && zb_buf_putc(&s->folder, '/') < 0))
            return zb_fail_oom(s->ctx);
        if ((rc = ice_partition_path_field(&s->folder, s->ctx,
                                           spec->fields[i].name, &tr,
                                           &f->partition[i])) < 0)
            return rc;
    }
    return ZB_OK;
}

static int open_output(rw *s)
{
    zb_buf uri = ZB_BUF_INIT(URI_MAX);
    int rc;

    rc = zb_ingest_new_file_uri(&uri, s->ctx, s->table,
                                zb_buf_cstr(&s->folder), "parquet");
    if (rc == ZB_OK &&
        (s->w_uri = zb_arena_strdup(s->arena, zb_buf_cstr(&uri))) == NULL)
        rc = zb_fail_oom(s->ctx);
    zb_buf_free(&uri);
    if (rc < 0)
        return rc;
    return pq_writer_open(&s->w, s->io, s->ctx, s->w_uri, &s->schema, &s->wo);
}

/* Closes the open output into a data_file of the group. */
static int close_output(rw *s)
{
    const ice_data_file *src = s->g->tasks[0].data.file;
    pq_write_result res;
    ice_data_file_metrics dm;
    ice_data_file *f;
    int rc;

    uint64_t est = pq_writer_bytes(s->w);

    memset(&res, 0, sizeof res);
    rc = pq_writer_close(s->w, s->ctx, &res);
    s->w = NULL;
    s->rows_in_file = 0;
    if (rc < 0)
        return rc;
    /* Pending pages count uncompressed: learn how far off that was. */
    if (est > 0 && res.file_bytes > 0) {
        s->ratio = (double)res.file_bytes / (double)est;
        if (s->ratio > 1.0)
            s->ratio = 1.0;
        if (s->ratio < 0.05)
            s->ratio = 0.05;
    }
    /* The file exists now: record it first, so a failure deletes it. */
    if (zb_vec_push(&s->outs, (void **)&f) < 0) {
        pq_write_result_free(&res);
        (void)zb_io_delete(s->io, s->ctx, s->w_uri);
        return zb_fail_oom(s->ctx);
    }
    f->file_path = s->w_uri;
    if ((rc = ice_metrics_from_parquet(&dm, s->ctx, s->arena, &s->mcfg,
                                       &res)) < 0 ||
        (rc = ice_data_file_from_metrics(f, s->ctx, s->arena, &dm,
                                         ICE_CONTENT_DATA, s->w_uri)) < 0) {
        f->file_path = s->w_uri;
        pq_write_result_free(&res);
        return rc;
    }
    pq_write_result_free(&res);
    if (s->rp != NULL) {
        const part *pt = zb_vec_at(&s->parts, s->cur);
        size_t *op;

        if (zb_vec_push(&s->out_part, (void **)&op) < 0)
            return zb_fail_oom(s->ctx);
        *op = s->cur;
        f->n_partition = zb_compact__repart_fields(s->rp);
        f->partition = pt->values;
        f->partition_names = s->out_names;
        f->partition_field_ids = s->out_ids;
    } else {
        f->n_partition = src->n_partition;
        f->partition = src->partition;
        f->partition_names = src->partition_names;
        f->partition_field_ids = src->partition_field_ids;
    }
    if (s->stamp >= 0) {
        f->has_sort_order_id = 1;
        f->sort_order_id = s->stamp;
    }
    s->sl->rows_written += (uint64_t)f->record_count;
    return ZB_OK;
}

/*
 * A file rolls when it reaches the target. A slice of several measures
 * its files by the input they take instead (rows at the slice's input
 * bytes per row, as the slices were cut; the writer's own estimate of a
 * new file is off until a file of it has closed, and a ratio learned from
 * another slice would make the files depend on the order slices run):
 * its file rolls at a target of input unless the slice's rows left would
 * make less than half a target, which the file then takes too. A slice
 * of about a target of input so makes one file.
 */
static int roll_if_full(rw *s)
{
    if (s->w == NULL)
        return ZB_OK;
    if (s->join_tail) {
        double per_row = s->slice_rows > 0 ? (double)s->sl->bytes /
                                                 (double)s->slice_rows
                                           : 0.0;
        uint64_t left = s->slice_rows > s->rows_done
                            ? s->slice_rows - s->rows_done : 0;

        if ((double)s->rows_in_file * per_row < (double)s->target ||
            (double)left * per_row < (double)s->target / 2)
            return ZB_OK;
        return close_output(s);
    }
    if ((double)pq_writer_bytes(s->w) * s->ratio >= (double)s->target)
        return close_output(s);
    return ZB_OK;
}

/*
 * Whether the copied row groups of r would keep the rows' lineage: a
 * copy writes the file's own lineage columns, so they must be there and
 * hold no null (a null would be inherited from the new file's
 * first_row_id and sequence number instead of the old file's), as every
 * row group's null count says.
 */
static int lineage_copyable(const pq_reader *r)
{
    static const int32_t ids[2] = { ZB_ROW_ID_FIELD_ID,
                                    ZB_LAST_UPDATED_SEQ_FIELD_ID };
    const pq_schema *sc = pq_reader_schema(r);
    const pq_file_meta *fm = pq_reader_meta(r);
    size_t i, j, g;

    for (j = 0; j < 2; j++) {
        const pq_node *leaf = NULL;

        for (i = 0; i < sc->root->n_children; i++) {
            const pq_node *c = sc->root->children[i];

            if (c->elem != NULL && c->elem->has_field_id &&
                c->elem->field_id == ids[j] && c->n_children == 0)
                leaf = c;
        }
        if (leaf == NULL || leaf->leaf_index < 0)
            return 0;
        for (g = 0; g < fm->n_row_groups; g++) {
            const pq_row_group *rg = &fm->row_groups[g];
            const pq_column_meta *cm;

            if ((size_t)leaf->leaf_index >= rg->n_columns ||
                !rg->columns[leaf->leaf_index].has_meta_data)
                return 0;
            cm = &rg->columns[leaf->leaf_index].meta_data;
            if (leaf->nullable &&
                (!cm->has_statistics || !cm->statistics.has_null_count ||
                 cm->statistics.null_count != 0))
                return 0;
        }
    }
    return 1;
}

/* Row-group copy of one input; 1 done, 0 not possible, or an rc. */
static int try_copy(rw *s, const zb_scan_task *t, uint64_t min_rows)
{
    pq_reader_opts o = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    int rc;

    /* A file of fewer rows than a copied row group needs cannot have such
     * a row group: no need to open it (a request each, on object stores,
     * made one at a time here). */
    if (t->data.file->record_count >= 0 &&
        (uint64_t)t->data.file->record_count < min_rows)
        return 0;
    if (t->data.file->file_size_in_bytes > 0)
        o.file_size = (uint64_t)t->data.file->file_size_in_bytes;
    if ((rc = pq_reader_open(&r, s->io, s->ctx, t->data.uri, &o)) < 0)
        return rc;
    if (!pq_writer_copy_worthwhile(r, min_rows) ||
        (s->lineage && !lineage_copyable(r)) ||
        pq_reader_meta(r)->num_rows != t->data.file->record_count) {
        pq_reader_free(r);
        return 0;
    }
    /* A slice of several rolls after the copy (roll_if_full). */
    if (!s->join_tail && s->w != NULL && pq_writer_bytes(s->w) > 0 &&
        pq_writer_bytes(s->w) + (uint64_t)t->data.file->file_size_in_bytes >
            (uint64_t)s->target &&
        (rc = close_output(s)) < 0)
        goto done;
    if (s->w == NULL && (rc = open_output(s)) < 0)
        goto done;
    rc = pq_writer_copy_row_groups(s->w, s->ctx, r);
    if (rc == ZB_EINVAL) {         /* schemas differ: nothing written */
        zb_err_clear(&s->ctx->err);
        rc = 0;
        goto done;
    }
    if (rc < 0)
        goto done;
    if ((rc = zb_carry_map_add(&s->map, (uint32_t)(t - s->g->tasks), 0,
                               (uint64_t)pq_reader_meta(r)->num_rows)) < 0) {
        rc = zb_fail_oom(s->ctx);
        goto done;
    }
    s->rows_copied += (uint64_t)pq_reader_meta(r)->num_rows;
    s->rows_done += (uint64_t)pq_reader_meta(r)->num_rows;
    s->rows_in_file += (uint64_t)pq_reader_meta(r)->num_rows;
    s->sl->copied_files++;
    if ((rc = roll_if_full(s)) == ZB_OK)
        rc = 1;
done:
    pq_reader_free(r);
    return rc;
}

/* Makes part i the one in use (saving the one that was). */
static void load_part(rw *s, size_t i)
{
    part *pt;

    if (s->cur == i)
        return;
    if (s->cur != SIZE_MAX) {
        pt = zb_vec_at(&s->parts, s->cur);
        pt->w = s->w;
        pt->w_uri = s->w_uri;
        pt->ratio = s->ratio;
    }
    pt = zb_vec_at(&s->parts, i);
    s->w = pt->w;
    s->w_uri = pt->w_uri;
    s->ratio = pt->ratio;
    zb_buf_clear(&s->folder);
    (void)zb_buf_puts(&s->folder, pt->folder);   /* fits: made by it */
    s->cur = i;
}

/* The part of partition values vals (found or added). */
static int part_of(size_t *idx, rw *s, const ice_value *vals)
{
    size_t n = zb_compact__repart_fields(s->rp), i;
    json_t *hit;
    part *pt;
    int rc;

    zb_buf_clear(&s->key);
    for (i = 0; i < n; i++) {
        size_t at = s->key.len, k;

        if (vals[i].is_null) {
            if (zb_buf_puts(&s->key, "N;") < 0)
                return zb_fail_oom(s->ctx);
            continue;
        }
        if ((rc = ice_value_to_bytes(&s->key, s->ctx, &vals[i])) < 0)
            return rc;
        /* Hex in place of the bytes (JSON keys are NUL-free UTF-8). */
        {
            size_t len = s->key.len - at;
            uint8_t raw[64];
            const uint8_t *src = (const uint8_t *)s->key.ptr + at;
            uint8_t *heap = NULL;

            if (len > sizeof raw && (heap = zb_malloc(len)) == NULL)
                return zb_fail_oom(s->ctx);
            memcpy(heap ? heap : raw, src, len);
            zb_buf_truncate(&s->key, at);
            for (k = 0; k < len; k++)
                if (zb_buf_appendf(&s->key, "%02x",
                                   (heap ? heap : raw)[k]) < 0) {
                    zb_free(heap);
                    return zb_fail_oom(s->ctx);
                }
            zb_free(heap);
            if (zb_buf_putc(&s->key, ';') < 0)
                return zb_fail_oom(s->ctx);
        }
    }
    if ((hit = json_object_get(s->index, zb_buf_cstr(&s->key))) != NULL) {
        *idx = (size_t)json_integer_value(hit);
        return ZB_OK;
    }
    if (zb_vec_push(&s->parts, (void **)&pt) < 0)
        return zb_fail_oom(s->ctx);
    memset(pt, 0, sizeof *pt);
    zb_carry_map_init(&pt->map, 0);
    if (!s->part_maps || s->parts_lost != NULL)
        zb_carry_map_lose(&pt->map, s->parts_lost ? s->parts_lost
                                                  : "no position map");
    if ((pt->values = zb_arena_calloc(s->arena, n + 1,
                                      sizeof *pt->values)) == NULL)
        return zb_fail_oom(s->ctx);
    pt->ratio = 1.0;
    for (i = 0; i < n; i++) {
        pt->values[i] = vals[i];
        if (!vals[i].is_null && (vals[i].type == ICE_STRING ||
                                 vals[i].type == ICE_BINARY ||
                                 vals[i].type == ICE_FIXED)) {
            uint8_t *b = zb_arena_alloc(s->arena, vals[i].u.bin.len + 1);

            if (b == NULL)
                return zb_fail_oom(s->ctx);
            memcpy(b, vals[i].u.bin.ptr, vals[i].u.bin.len);
            pt->values[i].u.bin.ptr = b;
        }
    }
    {
        zb_buf f = ZB_BUF_INIT(URI_MAX);

        rc = zb_compact__repart_folder(&f, s->ctx, s->rp, pt->values);
        if (rc == ZB_OK &&
            (pt->folder = zb_arena_strdup(s->arena, zb_buf_cstr(&f))) == NULL)
            rc = zb_fail_oom(s->ctx);
        zb_buf_free(&f);
        if (rc < 0)
            return rc;
    }
    if (json_object_set_new(s->index, zb_buf_cstr(&s->key),
                            json_integer((json_int_t)(s->parts.len - 1))) < 0)
        return zb_fail_oom(s->ctx);
    *idx = s->parts.len - 1;
    return ZB_OK;
}

/*
 * Where rows 0..len of the batch being written came from (task index in
 * the group, position in its file), into t[] and p[]: from the row
 * stream's batch (src_*), or in sequence through whole inputs (seq_*),
 * which then advances past them. ZB_OK, or 1 when no source is known.
 */
static int batch_sources(rw *s, size_t len, uint32_t *t, uint64_t *p)
{
    size_t i;

    if (s->src_set) {
        for (i = 0; i < len; i++) {
            t[i] = s->src_task;
            p[i] = s->src_pos0 + (s->src_sel ? s->src_sel[i] : i);
        }
        s->src_set = 0;
        return ZB_OK;
    }
    if (s->seq_rows == NULL)
        return 1;
    for (i = 0; i < len; i++) {
        while (s->seq_at < s->seq_n &&
               s->seq_pos >= (uint64_t)(s->seq_rows[s->seq_at] > 0
                                            ? s->seq_rows[s->seq_at] : 0)) {
            s->seq_at++;
            s->seq_pos = 0;
        }
        if (s->seq_at == s->seq_n)
            return 1;              /* more rows than the inputs hold */
        t[i] = s->rest_task ? s->rest_task[s->seq_at] : (uint32_t)s->seq_at;
        p[i] = s->seq_pos++;
    }
    return ZB_OK;
}

/* Gives up every part's map (and its memory): why, a static string. */
static void lose_part_maps(rw *s, const char *why)
{
    size_t i;

    s->parts_lost = why;
    for (i = 0; i < s->parts.len; i++)
        zb_carry_map_lose(&((part *)zb_vec_at(&s->parts, i))->map, why);
}

/* Writes a batch (taken over) into the outputs of its rows' partitions. */
static int write_batch(rw *s, struct ArrowArray *batch)
{
    size_t n, i, j, m;
    size_t *idx = NULL, first;
    zb_arrow_rowref *refs = NULL;
    ice_value *vals = NULL;
    uint32_t *src_t = NULL;
    uint64_t *src_p = NULL;
    int have_src = 0;
    int rc = ZB_OK;

    if (s->rp == NULL) {
        if (s->w == NULL && (rc = open_output(s)) < 0) {
            batch->release(batch);
            return rc;
        }
        rc = pq_writer_write(s->w, s->ctx, batch);
        s->rows_done += (uint64_t)batch->length;
        s->rows_in_file += (uint64_t)batch->length;
        batch->release(batch);
        return rc < 0 ? rc : roll_if_full(s);
    }
    n = zb_compact__repart_fields(s->rp);
    if ((idx = zb_calloc((size_t)batch->length + 1, sizeof *idx)) == NULL ||
        (refs = zb_calloc((size_t)batch->length + 1, sizeof *refs)) == NULL ||
        (vals = zb_calloc(n + 1, sizeof *vals)) == NULL) {
        rc = zb_fail_oom(s->ctx);
        goto done;
    }
    if (s->part_maps) {
        if ((src_t = zb_calloc((size_t)batch->length + 1,
                               sizeof *src_t)) == NULL ||
            (src_p = zb_calloc((size_t)batch->length + 1,
                               sizeof *src_p)) == NULL) {
            rc = zb_fail_oom(s->ctx);
            goto done;
        }
        have_src = batch_sources(s, (size_t)batch->length, src_t,
                                 src_p) == ZB_OK;
    }
    for (i = 0; i < (size_t)batch->length && rc == ZB_OK; i++)
        if ((rc = zb_compact__repart_row(vals, s->ctx, s->rp, batch,
                                         (int64_t)i)) == ZB_OK)
            rc = part_of(&idx[i], s, vals);
    /* Each partition met, in order of first row: its rows taken out. */
    for (first = 0; first < (size_t)batch->length && rc == ZB_OK; first++) {
        const struct ArrowArray *src[1] = { batch };
        struct ArrowArray sub;
        size_t p = idx[first];

        if (p == SIZE_MAX)
            continue;
        for (j = first, m = 0; j < (size_t)batch->length; j++)
            if (idx[j] == p) {
                refs[m].src = 0;
                refs[m++].row = (uint32_t)j;
                idx[j] = SIZE_MAX;
            }
        if ((rc = zb_arrow_take(&sub, &s->schema, src, refs, m)) < 0) {
            rc = zb_fail_oom(s->ctx);
            break;
        }
        load_part(s, p);
        if (s->part_maps && s->parts_lost == NULL) {
            part *pt = zb_vec_at(&s->parts, p);
            size_t before = pt->map.runs.len;

            if (!have_src)
                zb_carry_map_lose(&pt->map, "a batch of unknown source");
            for (j = 0; j < m && have_src; j++)
                if (zb_carry_map_add(&pt->map, src_t[refs[j].row],
                                     src_p[refs[j].row], 1) < 0) {
                    rc = zb_fail_oom(s->ctx);
                    break;
                }
            if (rc < 0) {
                sub.release(&sub);
                break;
            }
            /* rows that alternate between partitions make a run each:
               the parts share the one cap of a map */
            if (pt->map.runs.len >= before)   /* a lost map holds none */
                s->part_runs += pt->map.runs.len - before;
            if (s->part_runs > ZB_CARRY_MAX_RUNS_DEFAULT)
                lose_part_maps(s, "its position map passed its cap of "
                                  "runs");
        }
        if (s->w == NULL && (rc = open_output(s)) < 0) {
            sub.release(&sub);
            break;
        }
        rc = pq_writer_write(s->w, s->ctx, &sub);
        sub.release(&sub);
        if (rc == ZB_OK)
            rc = roll_if_full(s);
    }
done:
    batch->release(batch);
    zb_free(idx);
    zb_free(refs);
    zb_free(vals);
    zb_free(src_t);
    zb_free(src_p);
    return rc;
}

/* Closes (ok) or drops every part's open output. */
static int finish_parts(rw *s, int ok)
{
    size_t i;
    int rc = ZB_OK;

    if (s->rp == NULL) {
        if (ok && s->w != NULL)
            return close_output(s);
        return ZB_OK;
    }
    for (i = 0; i < s->parts.len; i++) {
        load_part(s, i);
        if (s->w == NULL)
            continue;
        if (ok && rc == ZB_OK) {
            rc = close_output(s);
        } else {
            pq_writer_abort(s->w);
            s->w = NULL;
        }
    }
    return rc;
}

/* Hands one batch (taken over) to the sort or the writer; rows[0..n)
 * the record counts of the read-ahead's inputs (for a sorted map). */
static int take_batch(rw *s, struct ArrowArray *batch, const int64_t *rows,
                      size_t n)
{
    int rc;

    if (s->xs != NULL) {
        if (s->smap != NULL &&
            (rc = zb_carry_sorted_tag_seq(s->smap, s->ctx, batch,
                                          s->rest_task, rows, n)) < 0)
            return rc;
        return zb_xsort_add(s->xs, s->ctx, batch);
    }
    return write_batch(s, batch);
}

/* stream_rows with the files decoded on read_workers threads. */
static int read_ahead(rw *s, const zb_rowstream_opts *ro,
                      const zb_scan_task *tasks, size_t n)
{
    zb_readahead *ra = NULL;
    zb_read_counts c;
    struct ArrowArray batch;
    int64_t *rows;
    size_t k;
    int rc;

    if ((rows = zb_calloc(n + 1, sizeof *rows)) == NULL)
        return zb_fail_oom(s->ctx);
    for (k = 0; k < n; k++)
        rows[k] = tasks[k].data.file->record_count;
    if ((rc = zb_compact__readahead_open(&ra, s->io, s->ctx, ro, tasks, n,
                                         s->read_workers)) < 0) {
        zb_free(rows);
        return rc;
    }
    /* into another spec: write_batch maps the rows in sequence */
    s->seq_rows = rows;
    s->seq_n = n;
    s->seq_at = 0;
    s->seq_pos = 0;
    while ((rc = zb_compact__readahead_next(ra, s->ctx, &batch)) == 1)
        if ((rc = take_batch(s, &batch, rows, n)) < 0)
            break;
    s->seq_rows = NULL;
    zb_free(rows);
    if (rc == 0 && s->rp == NULL) {
        size_t i;

        /* Read-ahead takes inputs without deletes only: each one whole,
         * in order. */
        for (i = 0; i < n && rc == 0; i++)
            if (tasks[i].data.file->record_count > 0 &&
                zb_carry_map_add(&s->map, s->rest_task ? s->rest_task[i] : 0,
                                 0, (uint64_t)tasks[i].data.file
                                        ->record_count) < 0)
                rc = zb_fail_oom(s->ctx);
    }
    if (rc == 0) {
        zb_compact__readahead_counts(ra, &c);
        s->sl->rows_read += c.rows_read;
        s->sl->rows_deleted += c.deleted_by_position +
                               c.deleted_by_equality;
        s->sl->eq_spilled += c.eq_spilled;
    }
    zb_compact__readahead_free(ra);
    return rc < 0 ? rc : ZB_OK;
}

static int stream_rows(rw *s, const zb_scan_task *tasks, size_t n,
                       size_t batch_rows)
{
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowArray batch;
    const zb_read_counts *c;
    int rc;

    ro.meta = s->table->meta;
    ro.paths = &s->table->paths;
    ro.batch_rows = batch_rows;
    ro.eq_memory_bytes = zb_compact__eq_memory(s->o);
    ro.lineage = s->lineage ? ZB_LINEAGE_REWRITE : 0;
    if (s->have_schema && s->read_workers > 1)
        return read_ahead(s, &ro, tasks, n);
    if ((rc = zb_rowstream_open(&rs, s->io, s->ctx, &ro, tasks, n)) < 0)
        return rc;
    if (!s->have_schema) {
        if ((rc = zb_rowstream_schema(&s->schema, rs, s->ctx)) < 0)
            goto done;
        s->have_schema = 1;
    }
    while ((rc = zb_rowstream_next(rs, s->ctx, &batch, NULL)) == 1) {
        if (s->xs != NULL) {       /* takes the batch over */
            if (s->smap != NULL) {
                uint64_t pos0;
                const uint32_t *sel;
                size_t nsel;

                zb_rowstream_last_rows(rs, &pos0, &sel, &nsel);
                if ((rc = zb_carry_sorted_tag(
                         s->smap, s->ctx, &batch,
                         s->rest_task[zb_rowstream_task_index(rs)], pos0,
                         sel, nsel)) < 0)
                    break;
            }
            if ((rc = zb_xsort_add(s->xs, s->ctx, &batch)) < 0)
                break;
            continue;
        }
        if (n > 0 && s->rest_task != NULL && s->rp != NULL) {
            /* into another spec: write_batch maps each part's rows */
            size_t nsel;

            zb_rowstream_last_rows(rs, &s->src_pos0, &s->src_sel, &nsel);
            s->src_task = s->rest_task[zb_rowstream_task_index(rs)];
            s->src_set = nsel == (size_t)batch.length;
        } else if (n > 0 && s->rest_task != NULL) {
            uint64_t pos0;
            const uint32_t *sel;
            size_t nsel;

            zb_rowstream_last_rows(rs, &pos0, &sel, &nsel);
            if (zb_carry_map_add_sel(
                    &s->map, s->rest_task[zb_rowstream_task_index(rs)],
                    pos0, sel, nsel) < 0) {
                batch.release(&batch);
                rc = zb_fail_oom(s->ctx);
                break;
            }
        }
        if ((rc = write_batch(s, &batch)) < 0)
            break;
    }
    if (rc < 0)
        goto done;
    c = zb_rowstream_counts(rs);
    s->sl->rows_read += c->rows_read;
    s->sl->rows_deleted += c->deleted_by_position + c->deleted_by_equality;
    s->sl->eq_spilled += c->eq_spilled;
    rc = ZB_OK;
done:
    zb_rowstream_free(rs);
    return rc;
}

/* The sorted rows, cut into files at the target. */
static int write_sorted(rw *s)
{
    struct ArrowArray batch;
    int rc;

    if ((rc = zb_xsort_finish(s->xs, s->ctx)) < 0)
        return rc;
    for (;;) {
        if ((rc = zb_xsort_next(&batch, s->xs, s->ctx)) < 0)
            return rc;
        if (batch.release == NULL)
            return ZB_OK;
        if (s->smap != NULL &&
            (rc = zb_carry_sorted_untag(s->smap, s->ctx, &batch)) < 0) {
            zb_arrow_array_release(&batch);
            return rc;
        }
        if ((rc = write_batch(s, &batch)) < 0)
            return rc;
    }
}

void zb_compact__drop_outputs(zb_compact_group *g, zb_io *io, zb_ctx *ctx)
{
    zb_err saved;
    uint64_t i;

    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < g->out_files; i++)
        (void)zb_io_delete(io, ctx, g->outputs[i].file_path);
    zb_err_copy(&ctx->err, &saved);
}

/*
 * Threads that decode the inputs ahead of the writer: o->threads when the
 * inputs can take read-ahead and the budget has room at once for what the
 * extra readers hold (each an open reader and its queued batches: the
 * stream estimate's read part, QUEUE + 1 times); else 1.
 */
static unsigned read_workers(rw *s, zb_reservation *res,
                             const zb_scan_task *tasks, size_t n,
                             size_t batch_rows)
{
    zb_scan_estimate est;
    unsigned w = s->o->threads > 1 ? (unsigned)s->o->threads : 1;

    /* On an object store a reader mostly waits for its replies (tens of
     * ms each): more readers than cores keep the writer fed. */
    if (n > 0 && zb_io_is_object_store(tasks[0].data.uri) &&
        w < OBJECT_STORE_READERS)
        w = OBJECT_STORE_READERS;
    if (w < 2 || !zb_compact__readahead_fits(tasks, n))
        return 1;
    if ((size_t)w > n)
        w = (unsigned)n;
    if (res == NULL || res->budget == NULL)
        return w;
    (void)zb_scan_estimate_bytes(tasks, n, batch_rows, 0, &est);
    for (; w > 1; w--)
        if (zb_budget_try_grow(res, NULL, res->bytes + (uint64_t)w * 3 *
                                              est.read_bytes) == ZB_OK)
            return w;
    return 1;
}

/* Rows go into spec g->out_spec_id: the partitioner and its names. */
static int open_repart(rw *s)
{
    const ice_partition_spec *spec =
        ice_metadata_spec(s->table->meta, s->g->out_spec_id);
    size_t i;
    int rc;

    if (spec == NULL)
        return zb_fail(s->ctx, ZB_EINVAL, "%s: no partition spec %d",
                       s->table->ident, (int)s->g->out_spec_id);
    if ((rc = zb_compact__repart_new(&s->rp, s->ctx, s->table->meta, spec,
                                     &s->schema)) < 0)
        return rc;
    if ((s->index = json_object()) == NULL ||
        (s->out_names = zb_arena_calloc(s->arena, spec->n_fields + 1,
                                        sizeof *s->out_names)) == NULL ||
        (s->out_ids = zb_arena_calloc(s->arena, spec->n_fields + 1,
                                      sizeof *s->out_ids)) == NULL)
        return zb_fail_oom(s->ctx);
    for (i = 0; i < spec->n_fields; i++) {
        s->out_names[i] = spec->fields[i].name;
        s->out_ids[i] = spec->fields[i].field_id;
    }
    return ZB_OK;
}

/*
 * Into another spec: the parts' maps as one map in output order. Output
 * k of part p holds the next record_count rows of p's map, so s->map
 * takes those runs (split where a file cut one) output by output. A part
 * whose map was lost, or whose runs do not end exactly with its files,
 * loses the whole map.
 */
static void splice_parts(rw *s)
{
    size_t k, p;

    for (p = 0; p < s->parts.len; p++) {
        part *pt = zb_vec_at(&s->parts, p);

        if (pt->map.lost != NULL) {
            zb_carry_map_lose(&s->map, pt->map.lost);
            return;
        }
        pt->run_at = 0;
        pt->run_off = 0;
    }
    if (s->out_part.len != s->outs.len) {
        zb_carry_map_lose(&s->map, "an output without its partition");
        return;
    }
    for (k = 0; k < s->outs.len && s->map.lost == NULL; k++) {
        const ice_data_file *f = zb_vec_at(&s->outs, k);
        part *pt = zb_vec_at(&s->parts, *(size_t *)zb_vec_at(&s->out_part,
                                                             k));
        uint64_t need = f->record_count > 0 ? (uint64_t)f->record_count : 0;

        while (need > 0 && s->map.lost == NULL) {
            const zb_carry_run *r;
            uint64_t take;

            if (pt->run_at == pt->map.runs.len) {
                zb_carry_map_lose(&s->map, "its position map does not "
                                           "cover the rows written");
                return;
            }
            r = zb_vec_at(&pt->map.runs, pt->run_at);
            take = r->len - pt->run_off;
            if (take > need)
                take = need;
            if (zb_carry_map_add(&s->map, r->task, r->in_pos + pt->run_off,
                                 take) < 0) {
                zb_carry_map_lose(&s->map, "no room for its position map");
                return;
            }
            need -= take;
            pt->run_off += take;
            if (pt->run_off == r->len) {
                pt->run_at++;
                pt->run_off = 0;
            }
        }
    }
    for (p = 0; p < s->parts.len && s->map.lost == NULL; p++)
        if (((part *)zb_vec_at(&s->parts, p))->run_at !=
            ((part *)zb_vec_at(&s->parts, p))->map.runs.len)
            zb_carry_map_lose(&s->map, "its position map does not cover "
                                       "the rows written");
}

/* The slice's position map into the unit's arena, checked against the
 * rows written (a mismatch loses it: carried deletes need it exact). */
static void keep_map(rw *s, int rc)
{
    zb_compact_slice *sl = s->sl;

    if (s->part_maps && rc >= 0)
        splice_parts(s);

    sl->carry_runs = NULL;
    sl->n_carry_runs = 0;
    sl->carry_lost = s->map.lost;
    if (s->smap != NULL) {         /* sorted: the spilled map instead */
        zb_carry_sorted_finish(s->smap, s->ctx, sl->rows_written);
        sl->carry_lost = zb_carry_sorted_lost(s->smap);
        if (rc >= 0 && sl->carry_lost == NULL) {
            sl->carry_sorted = s->smap;
            s->smap = NULL;
        }
        return;
    }
    if (rc < 0 || sl->carry_lost != NULL)
        return;
    if (s->map.rows != sl->rows_written) {
        sl->carry_lost = "its position map does not cover the rows written";
        return;
    }
    if (s->map.runs.len == 0)
        return;
    sl->carry_runs = zb_arena_calloc(s->arena, s->map.runs.len,
                                     sizeof *sl->carry_runs);
    if (sl->carry_runs == NULL) {
        sl->carry_lost = "no room for its position map";
        return;
    }
    memcpy(sl->carry_runs, s->map.runs.items,
           s->map.runs.len * sizeof *sl->carry_runs);
    sl->n_carry_runs = s->map.runs.len;
}

/* The sort's memory: the slice's or the group's share, less the sorted
 * map's buffer when the reservation could not grow by it. */
static uint64_t sort_bytes(const rw *s, const zb_reservation *res)
{
    uint64_t b = s->sl->sort_memory_bytes > 0
                     ? s->sl->sort_memory_bytes
                     : zb_compact__sort_memory(
                           s->o, s->g, s->target,
                           zb_compact__max_group_memory(
                               s->o, res != NULL ? res->budget : NULL));
    uint64_t cut = zb_carry_sorted_sort_cut(s->smap);

    return b > 2 * cut ? b - cut : b;
}

/* Long: the rewrite's steps in order (writer options, output schema,
 * repartition, sort, each task copied or streamed, finish) and the one
 * cleanup of everything they made. */
int zb_compact__rewrite(zb_compact_slice *sl, zb_arena *arena, zb_io *io,
                        zb_ctx *ctx, const zb_table *table,
                        const zb_compact_opts *o, int64_t target,
                        zb_reservation *res)
{
    zb_compact_group *g = sl->g;
    const zb_scan_task *tasks = g->tasks + sl->first;
    zb_compact_sort_field *sf = NULL;
    size_t n_sf = 0;
    const ice_metadata *m = table->meta;
    zb_scan_task *rest = NULL;
    uint32_t *rest_task = NULL;
    size_t n_rest = 0, i;
    size_t batch_rows = zb_compact__batch_rows(o, target, g);
    uint64_t min_rows = o->copy_min_rows ? o->copy_min_rows
                                         : COPY_MIN_ROWS_DEFAULT;
    int repart = g->out_spec_id != g->spec_id;
    int no_deletes = g->delete_files == 0 && !repart &&
                     o->strategy == ZB_COMPACT_BINPACK, rc;
    rw s;

    memset(&s, 0, sizeof s);
    s.sl = sl;
    s.g = g;
    s.arena = arena;
    s.io = io;
    s.ctx = ctx;
    s.table = table;
    s.o = o;
    s.target = target;
    s.ratio = 1.0;
    s.stamp = -1;
    s.cur = SIZE_MAX;
    s.lineage = m->format_version >= 3 && !o->reset_row_lineage;
    s.join_tail = sl->of_several;
    zb_carry_map_init(&s.map, 0);
    zb_carry_sorted_free(sl->carry_sorted);   /* an earlier attempt's */
    sl->carry_sorted = NULL;
    zb_vec_init(&s.out_part, sizeof(size_t), SIZE_MAX / 2);
    /* Binpack into another spec keeps a map per output partition; a sort
     * into one keeps none yet. */
    s.part_maps = repart && o->strategy == ZB_COMPACT_BINPACK;
    if (repart && !s.part_maps)
        zb_carry_map_lose(&s.map, "its sorted rows moved to another "
                                  "partition spec (no position map)");
    for (i = 0; i < sl->n; i++)
        if (tasks[i].data.file->record_count > 0)
            s.slice_rows += (uint64_t)tasks[i].data.file->record_count;
    zb_buf_init(&s.folder, URI_MAX);
    zb_buf_init(&s.key, URI_MAX);
    zb_vec_init(&s.parts, sizeof(part), SIZE_MAX / 2);
    zb_vec_init(&s.outs, sizeof(ice_data_file), SIZE_MAX / 2);
    sl->rows_read = sl->rows_deleted = sl->rows_written = 0;
    sl->copied_files = sl->eq_spilled = 0;
    sl->outputs = NULL;
    sl->n_outputs = 0;
    ice_metrics_config_init(&s.mcfg, ice_metadata_current_schema(m),
                            ice_metadata_sort_order(m,
                                                    m->default_sort_order_id),
                            m->properties, m->n_properties);
    if ((rc = zb_ingest_writer_opts(&s.wo, ctx, m)) < 0 ||
        (!repart && (rc = make_folder(&s)) < 0))
        goto done;
    /* Column chunks encoded on several threads: the same bytes. */
    s.wo.threads = sl->writer_threads > 1 ? sl->writer_threads : 1;
    /* Small targets: pages small enough to be compressed (and counted
     * as such) long before the file is full. */
    if (s.wo.page_bytes > (uint64_t)target / 16)
        s.wo.page_bytes = (uint64_t)target / 16 < 256
                              ? 256 : (uint64_t)target / 16;
    /* The output schema: a stream over no task opens no file. */
    if ((rc = stream_rows(&s, NULL, 0, 1)) < 0)
        goto done;
    if (repart && (rc = open_repart(&s)) < 0)
        goto done;
    /* Sorted rows carry their source through the sort (issue 21); its
     * buffer is reserved before the sort takes the reservation. */
    if (o->strategy != ZB_COMPACT_BINPACK && !repart &&
        (rc = zb_carry_sorted_new(&s.smap, ctx, &s.schema, g->n_tasks,
                                  res)) < 0)
        goto done;
    if (o->strategy != ZB_COMPACT_BINPACK &&
        ((rc = zb_compact__sort_fields(&sf, &n_sf, &s.stamp, ctx, m,
                                       o)) < 0 ||
         (rc = zb_compact__xsort_new(
              &s.xs, ctx,
              s.smap != NULL ? zb_carry_sorted_schema(s.smap) : &s.schema,
              o, sf, n_sf, sort_bytes(&s, res), batch_rows, res,
              table->ident)) < 0))
        goto done;
    if ((rest = zb_calloc(sl->n + 1, sizeof *rest)) == NULL ||
        (rest_task = zb_calloc(sl->n + 1, sizeof *rest_task)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < sl->n; i++) {
        rc = 0;
        if (no_deletes && (rc = try_copy(&s, &tasks[i], min_rows)) < 0)
            goto done;
        if (rc == 0) {
            rest_task[n_rest] = (uint32_t)(sl->first + i);
            rest[n_rest++] = tasks[i];
        }
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "%s: stopped", table->ident);
            goto done;
        }
    }
    s.read_workers = read_workers(&s, res, rest, n_rest,
                                  sl->in_batch_rows > 0 ? sl->in_batch_rows
                                                        : batch_rows);
    sl->read_workers = s.read_workers;
    s.rest_task = rest_task;
    if ((rc = stream_rows(&s, rest, n_rest,
                          sl->in_batch_rows > 0 ? sl->in_batch_rows
                                                : batch_rows)) < 0 ||
        (s.xs != NULL && (rc = write_sorted(&s)) < 0))
        goto done;
    if ((rc = finish_parts(&s, 1)) < 0)
        goto done;
    /* Rows copied count as read (verified with the group's). */
    sl->rows_read += s.rows_copied;
done:
    (void)finish_parts(&s, 0);
    pq_writer_abort(s.w);
    if (s.xs != NULL) {
        zb_xsort_stats st;

        zb_xsort_stats_get(&st, s.xs);
        sl->sort_runs = st.runs;
        sl->sort_spilled_bytes = st.bytes_spilled;
        zb_log_debug(ctx, "%s partition %s: sorted %llu rows in %llu "
                     "spilled run(s), %llu merge pass(es), %llu bytes "
                     "spilled (%llu raw bytes of them LZ4-compressed)",
                     table->ident, g->partition,
                     (unsigned long long)st.rows,
                     (unsigned long long)st.runs,
                     (unsigned long long)st.merge_passes,
                     (unsigned long long)st.bytes_spilled,
                     (unsigned long long)st.bytes_packed);
        if (rc == ZB_OK && st.rows != sl->rows_read - sl->rows_deleted)
            rc = zb_fail(ctx, ZB_EUNSAFE, "%s partition %s: sorted %llu "
                         "rows, read %llu live: nothing committed",
                         table->ident, g->partition,
                         (unsigned long long)st.rows,
                         (unsigned long long)(sl->rows_read -
                                              sl->rows_deleted));
    }
    zb_xsort_free(s.xs);
    zb_free(sf);
    if (s.outs.len > 0) {
        sl->outputs = zb_arena_calloc(arena, s.outs.len,
                                      sizeof *sl->outputs);
        if (sl->outputs != NULL) {
            memcpy(sl->outputs, s.outs.items,
                   s.outs.len * sizeof *sl->outputs);
            sl->n_outputs = s.outs.len;
        } else {
            /* No room to list them: delete them here. */
            for (i = 0; i < s.outs.len; i++)
                (void)zb_io_delete(io, ctx, ((ice_data_file *)zb_vec_at(
                                                 &s.outs, i))->file_path);
            if (rc == ZB_OK)
                rc = zb_fail_oom(ctx);
        }
    }
    keep_map(&s, rc);
    if (rc < 0)
        zb_compact__drop_slices(sl, 1, io, ctx);
    if (s.have_schema)
        s.schema.release(&s.schema);
    zb_free(rest);
    zb_free(rest_task);
    zb_carry_map_free(&s.map);
    zb_carry_sorted_free(s.smap);
    zb_vec_free(&s.outs);
    for (i = 0; i < s.parts.len; i++)
        zb_carry_map_free(&((part *)zb_vec_at(&s.parts, i))->map);
    zb_vec_free(&s.parts);
    zb_vec_free(&s.out_part);
    zb_buf_free(&s.folder);
    zb_buf_free(&s.key);
    json_decref(s.index);
    zb_compact__repart_free(s.rp);
    return rc;
}

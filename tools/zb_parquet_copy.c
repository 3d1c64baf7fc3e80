/*
 * zb-parquet-copy - reads a Parquet file with Zamboni's reader and writes
 * its rows again with Zamboni's writer, so that an independent reader can
 * check the writer: what DuckDB reads from the copy must equal what it
 * reads from the original (tests/interop/compare_rewrite.mjs).
 *
 * Usage: zb-parquet-copy [--codec NAME] [--level N] [--page-bytes N]
 *                        [--row-group-bytes N] [--page-v2]
 *                        [--row-group-copy] IN OUT
 * --row-group-copy appends IN's row groups as they are (no decoding); when
 * the writer refuses (schemas that differ), it says "row-group copy
 * refused" and exits 3.
 * --iceberg-metrics MODE prints, after the copy, the Iceberg data-file
 * metrics of what was written as one JSON object on stdout (field id ->
 * counts and bounds in hex; tests/interop/compare_stats.mjs checks them),
 * with MODE as write.metadata.metrics.default (none, counts,
 * truncate(N), full). The Iceberg schema is inferred from the file: every
 * leaf with a field id becomes a top-level field of the type its physical
 * type and annotation map to (bounds of leaves inside lists and maps are
 * left out all the same, from the writer's in_repeated).
 * NAME: uncompressed, snappy, gzip, brotli, zstd, lz4_raw.
 * Exit: 0, 1 on an error (message on stderr), 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "table/value/ice_value.h"
#include "table/metrics/file_metrics.h"
#include "util/alloc.h"

/* The Iceberg type a leaf's physical type and annotation stand for;
 * 0 when there is none (INT96, unsigned 64-bit). */
static int infer_type(ice_type *t, const pq_leaf_metrics *m)
{
    const pq_logical *lt = &m->logical;
    ice_type_id id = 0;

    memset(t, 0, sizeof *t);
    if (lt->kind == PQ_LT_DECIMAL) {
        id = ICE_DECIMAL;
        t->prim.precision = lt->precision;
        t->prim.scale = lt->scale;
    } else {
        switch (m->type) {
        case PQ_BOOLEAN: id = ICE_BOOLEAN; break;
        case PQ_INT32:
            id = lt->kind == PQ_LT_DATE ? ICE_DATE
                 : lt->kind == PQ_LT_TIME ? ICE_TIME
                 : lt->kind == PQ_LT_INTEGER && !lt->is_signed &&
                           lt->bit_width == 32 ? ICE_LONG : ICE_INT;
            break;
        case PQ_INT64:
            if (lt->kind == PQ_LT_TIMESTAMP)
                id = lt->unit == PQ_UNIT_NANOS
                         ? (lt->is_adjusted_to_utc ? ICE_TIMESTAMPTZ_NS
                                                   : ICE_TIMESTAMP_NS)
                         : (lt->is_adjusted_to_utc ? ICE_TIMESTAMPTZ
                                                   : ICE_TIMESTAMP);
            else if (lt->kind == PQ_LT_TIME)
                id = ICE_TIME;
            else if (!(lt->kind == PQ_LT_INTEGER && !lt->is_signed))
                id = ICE_LONG;
            break;
        case PQ_FLOAT: id = ICE_FLOAT; break;
        case PQ_DOUBLE: id = ICE_DOUBLE; break;
        case PQ_BYTE_ARRAY:
            id = lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_JSON ||
                         lt->kind == PQ_LT_ENUM ? ICE_STRING : ICE_BINARY;
            break;
        case PQ_FIXED_LEN_BYTE_ARRAY:
            id = lt->kind == PQ_LT_UUID ? ICE_UUID : ICE_FIXED;
            t->prim.length = m->type_length;
            break;
        default: break;
        }
    }
    t->id = t->prim.id = id;
    return id != 0;
}

static void put_hex(const uint8_t *p, size_t n)
{
    size_t i;

    putchar('"');
    for (i = 0; i < n; i++)
        printf("%02x", p[i]);
    putchar('"');
}

/* Prints the Iceberg metrics of r under default mode `mode` as JSON. A
 * leaf without a field id gets 1000000 + its index, so that files written
 * without ids are checked too. */
static int print_metrics(pq_write_result *r, const char *mode)
{
    ice_kv props[1] = { { "write.metadata.metrics.default", mode } };
    ice_type *types = zb_calloc(r->n_leaves + 1, sizeof *types);
    ice_field *fields = zb_calloc(r->n_leaves + 1, sizeof *fields);
    char **names = zb_calloc(r->n_leaves + 1, sizeof *names);
    ice_type root;
    ice_schema schema;
    ice_metrics_config cfg;
    ice_data_file_metrics dm;
    zb_arena *arena = NULL;
    zb_ctx ctx;
    size_t i, k, n = 0;
    int rc = ZB_ENOMEM;

    zb_ctx_init(&ctx);
    if (!types || !fields || !names || zb_arena_new(&arena, 1u << 30) < 0)
        goto done;
    for (i = 0; i < r->n_leaves; i++) {
        pq_leaf_metrics *m = &r->leaves[i];
        zb_buf nb = ZB_BUF_INIT(1 << 16);
        if (m->field_id < 0)
            m->field_id = (int32_t)(1000000 + i);
        if (!infer_type(&types[n], m))
            continue;
        for (k = 0; k < m->path_len; k++)
            zb_buf_appendf(&nb, "%s%s", k ? "." : "", m->path[k]);
        names[n] = zb_buf_detach(&nb);
        fields[n].id = m->field_id;
        fields[n].name = names[n] ? names[n] : "";
        fields[n].type = &types[n];
        n++;
    }
    memset(&root, 0, sizeof root);
    root.id = ICE_STRUCT;
    root.n_fields = n;
    root.fields = fields;
    memset(&schema, 0, sizeof schema);
    schema.root = &root;
    ice_metrics_config_init(&cfg, &schema, NULL, props, 1);
    if ((rc = ice_metrics_from_parquet(&dm, &ctx, arena, &cfg, r)) < 0) {
        fprintf(stderr, "zb-parquet-copy: metrics: %s\n", ctx.err.msg);
        goto done;
    }
    printf("{\"record_count\":%lld,\"file_size\":%lld,\"split_offsets\":[",
           (long long)dm.record_count, (long long)dm.file_size_bytes);
    for (i = 0; i < dm.n_split_offsets; i++)
        printf("%s%lld", i ? "," : "", (long long)dm.split_offsets[i]);
    printf("],\"columns\":{");
    for (i = 0; i < dm.n_columns; i++) {
        const ice_column_metrics *c = &dm.columns[i];
        const char *type = "", *name = "";
        for (k = 0; k < n; k++)
            if (fields[k].id == c->field_id) {
                type = ice_type_name(types[k].id);
                name = fields[k].name;
            }
        printf("%s\"%d\":{\"name\":\"%s\",\"type\":\"%s\"", i ? "," : "",
               (int)c->field_id, name, type);
        if (c->has_column_size)
            printf(",\"column_size\":%lld", (long long)c->column_size);
        if (c->has_value_count)
            printf(",\"value_count\":%lld", (long long)c->value_count);
        if (c->has_null_count)
            printf(",\"null_value_count\":%lld", (long long)c->null_count);
        if (c->has_nan_count)
            printf(",\"nan_value_count\":%lld", (long long)c->nan_count);
        if (c->lower) {
            printf(",\"lower_bound\":");
            put_hex(c->lower, c->lower_len);
        }
        if (c->upper) {
            printf(",\"upper_bound\":");
            put_hex(c->upper, c->upper_len);
        }
        printf("}");
    }
    printf("}}\n");
    rc = ZB_OK;
done:
    for (i = 0; names && i < n; i++)
        zb_free(names[i]);
    zb_free(names);
    zb_free(fields);
    zb_free(types);
    zb_arena_free(arena);
    return rc;
}

static int codec_by_name(const char *s)
{
    static const char *const names[] = { "uncompressed", "snappy", "gzip",
                                         "lzo", "brotli", "lz4", "zstd",
                                         "lz4_raw" };
    int i;

    for (i = 0; i < 8; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    const char *in = NULL, *out = NULL, *metrics_mode = NULL;
    struct ArrowSchema schema;
    struct ArrowArray batch;
    pq_write_result res;
    pq_reader *r = NULL;
    pq_writer *w = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    int i, rc, copy_groups = 0;

    zb_alloc_tune_process();
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--codec") == 0 && i + 1 < argc) {
            if ((wo.codec = codec_by_name(argv[++i])) < 0)
                return fprintf(stderr, "unknown codec %s\n", argv[i]), 2;
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            wo.codec_level = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--page-bytes") == 0 && i + 1 < argc) {
            wo.page_bytes = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--row-group-bytes") == 0 && i + 1 < argc) {
            wo.row_group_bytes = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--page-v2") == 0) {
            wo.page_v2 = 1;
        } else if (strcmp(argv[i], "--iceberg-metrics") == 0 && i + 1 < argc) {
            metrics_mode = argv[++i];
        } else if (strcmp(argv[i], "--row-group-copy") == 0) {
            copy_groups = 1;
        } else if (argv[i][0] == '-' || (in && out)) {
            fprintf(stderr, "usage: zb-parquet-copy [--codec NAME] [--level N] "
                            "[--page-bytes N] [--row-group-bytes N] IN OUT\n");
            return 2;
        } else if (in == NULL) {
            in = argv[i];
        } else {
            out = argv[i];
        }
    }
    if (in == NULL || out == NULL)
        return fprintf(stderr, "usage: zb-parquet-copy IN OUT\n"), 2;
    zb_ctx_init(&ctx);
    if ((rc = zb_io_new(&io, &ctx)) < 0 ||
        (rc = pq_reader_open(&r, io, &ctx, in, &ro)) < 0 ||
        (rc = pq_reader_arrow_schema(&schema, r, &ctx)) < 0) {
        fprintf(stderr, "zb-parquet-copy: %s\n", ctx.err.msg);
        pq_reader_free(r);
        zb_io_free(io);
        return 1;
    }
    rc = pq_writer_open(&w, io, &ctx, out, &schema, &wo);
    if (rc == ZB_OK && copy_groups) {
        if ((rc = pq_writer_copy_row_groups(w, &ctx, r)) == ZB_EINVAL) {
            fprintf(stderr, "zb-parquet-copy: row-group copy refused: %s\n",
                    ctx.err.msg);
            pq_writer_abort(w);
            schema.release(&schema);
            pq_reader_free(r);
            zb_io_free(io);
            return 3;
        }
    }
    while (rc == ZB_OK && !copy_groups &&
           (rc = pq_reader_next(r, &ctx, &batch)) == 1) {
        rc = pq_writer_write(w, &ctx, &batch);
        batch.release(&batch);
    }
    if (rc == ZB_OK)
        rc = pq_writer_close(w, &ctx, &res);
    else
        pq_writer_abort(w);
    if (rc < 0)
        fprintf(stderr, "zb-parquet-copy: %s\n", ctx.err.msg);
    else if (metrics_mode && print_metrics(&res, metrics_mode) < 0)
        rc = ZB_ERROR;
    if (rc == ZB_OK)
        pq_write_result_free(&res);
    schema.release(&schema);
    pq_reader_free(r);
    zb_io_free(io);
    return rc < 0 ? 1 : 0;
}

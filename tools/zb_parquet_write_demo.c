/*
 * zb-parquet-write-demo - writes a tiny Parquet file whose every byte
 * comes from Zamboni's writers, so that independent readers can check
 * them (tests/interop/check_written_footer.mjs reads it with DuckDB and
 * hyparquet).
 *
 * The file: "PAR1", one column chunk (a PLAIN, uncompressed data page v1
 * whose header comes from pq_page_header_write, then 5 INT64 values), the
 * footer from pq_meta_write, its length, "PAR1". The schema is one
 * REQUIRED INT64 column "x" with field_id 1; one row group; chunk
 * statistics with min_value/max_value and null_count 0; one key/value
 * pair. The values are those of DEMO_VALUES below, which the checking
 * script repeats.
 *
 * Usage: zb-parquet-write-demo OUT.parquet
 * Exit: 0, 1 on an error (message on stderr), 2 on usage.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/thrift/pq_meta_write.h"
#include "util/buf.h"

/* Keep in step with tests/interop/check_written_footer.mjs. */
#define DEMO_VALUES { 1, -2, 300, 4000000000LL, -5 }
#define DEMO_ROWS 5

static void le64(uint8_t *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    int i;

    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(u >> (8 * i));
}

static int build(zb_buf *file, zb_ctx *ctx)
{
    static const int64_t values[DEMO_ROWS] = DEMO_VALUES;
    uint8_t data[8 * DEMO_ROWS], min[8], max[8], len[4];
    int32_t encodings[] = { PQ_ENC_PLAIN, PQ_ENC_RLE };
    const char *path[] = { "x" };
    pq_schema_element schema[2];
    pq_key_value kv = { "zamboni.demo", "tiny file" };
    pq_column_chunk cc;
    pq_row_group rg;
    pq_file_meta m;
    pq_page_header h;
    int64_t lo = values[0], hi = values[0];
    size_t i, chunk_len, footer_start, footer_len;
    int rc;

    for (i = 0; i < DEMO_ROWS; i++) {
        le64(data + 8 * i, values[i]);
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
    }
    le64(min, lo);
    le64(max, hi);

    memset(&h, 0, sizeof h);
    h.type = PQ_DATA_PAGE;
    h.uncompressed_page_size = h.compressed_page_size = (int32_t)sizeof data;
    h.data.num_values = DEMO_ROWS;
    h.data.encoding = PQ_ENC_PLAIN;
    h.data.definition_level_encoding = PQ_ENC_RLE;
    h.data.repetition_level_encoding = PQ_ENC_RLE;
    if ((rc = zb_buf_append(file, "PAR1", 4)) < 0 ||
        (rc = pq_page_header_write(file, ctx, &h, NULL)) < 0 ||
        (rc = zb_buf_append(file, data, sizeof data)) < 0)
        return rc;
    chunk_len = file->len - 4;

    memset(schema, 0, sizeof schema);
    schema[0].name = "schema";
    schema[0].num_children = 1;
    schema[1].name = "x";
    schema[1].has_type = 1;
    schema[1].type = PQ_INT64;
    schema[1].has_repetition = 1;
    schema[1].repetition = PQ_REQUIRED;
    schema[1].has_field_id = 1;
    schema[1].field_id = 1;

    memset(&cc, 0, sizeof cc);
    cc.file_offset = 4;
    cc.has_meta_data = 1;
    cc.meta_data.type = PQ_INT64;
    cc.meta_data.encodings = encodings;
    cc.meta_data.n_encodings = 2;
    cc.meta_data.path_in_schema = path;
    cc.meta_data.path_len = 1;
    cc.meta_data.codec = 0;                   /* UNCOMPRESSED */
    cc.meta_data.num_values = DEMO_ROWS;
    cc.meta_data.total_uncompressed_size = (int64_t)chunk_len;
    cc.meta_data.total_compressed_size = (int64_t)chunk_len;
    cc.meta_data.data_page_offset = 4;
    cc.meta_data.has_statistics = 1;
    cc.meta_data.statistics.has_min_value = 1;
    cc.meta_data.statistics.min_value = min;
    cc.meta_data.statistics.min_value_len = 8;
    cc.meta_data.statistics.has_max_value = 1;
    cc.meta_data.statistics.max_value = max;
    cc.meta_data.statistics.max_value_len = 8;
    cc.meta_data.statistics.has_null_count = 1;

    memset(&rg, 0, sizeof rg);
    rg.columns = &cc;
    rg.n_columns = 1;
    rg.total_byte_size = (int64_t)chunk_len;
    rg.num_rows = DEMO_ROWS;
    rg.has_file_offset = 1;
    rg.file_offset = 4;
    rg.has_total_compressed_size = 1;
    rg.total_compressed_size = (int64_t)chunk_len;
    rg.has_ordinal = 1;

    memset(&m, 0, sizeof m);
    m.version = 1;
    m.schema = schema;
    m.n_schema = 2;
    m.num_rows = DEMO_ROWS;
    m.row_groups = &rg;
    m.n_row_groups = 1;
    m.key_value = &kv;
    m.n_key_value = 1;
    m.created_by = "zamboni version 0.1.0 (zb-parquet-write-demo)";

    footer_start = file->len;
    if ((rc = pq_meta_write(file, ctx, &m)) < 0)
        return rc;
    footer_len = file->len - footer_start;
    for (i = 0; i < 4; i++)
        len[i] = (uint8_t)(footer_len >> (8 * i));
    if ((rc = zb_buf_append(file, len, 4)) < 0 ||
        (rc = zb_buf_append(file, "PAR1", 4)) < 0)
        return rc;
    return ZB_OK;
}

int main(int argc, char **argv)
{
    zb_buf file;
    zb_ctx ctx;
    FILE *f;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: zb-parquet-write-demo OUT.parquet\n");
        return 2;
    }
    zb_ctx_init(&ctx);
    zb_buf_init(&file, 1 << 20);
    if ((rc = build(&file, &ctx)) < 0) {
        fprintf(stderr, "zb-parquet-write-demo: %s\n",
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
        zb_buf_free(&file);
        return 1;
    }
    rc = 1;
    if ((f = fopen(argv[1], "wb")) != NULL) {
        rc = fwrite(file.ptr, 1, file.len, f) != file.len;
        rc |= fclose(f) != 0;
    }
    if (rc)
        fprintf(stderr, "zb-parquet-write-demo: cannot write %s\n", argv[1]);
    zb_buf_free(&file);
    return rc;
}

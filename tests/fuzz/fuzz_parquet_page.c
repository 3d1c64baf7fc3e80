/*
 * libFuzzer target: decoding a column chunk's pages and assembling them
 * into Arrow arrays, on arbitrary bytes.
 *
 * Input: 4 bytes that choose the column, then the chunk's bytes.
 *   byte 0  physical type (mod 8)
 *   byte 1  shape: 0 required, 1 optional, 2 optional list of optional
 *           elements (three-level LIST)
 *   byte 2  compression codec (mod 8)
 *   byte 3  annotation: 0 none, 1 string, 2 decimal, 3 timestamp micros
 * Everything the chunk's page headers, levels and values say is hostile:
 * the reader must answer ZB_OK or an error with a message, never crash or
 * read outside the chunk. Seeds are real column chunks (make_seeds.mjs).
 */
#include <stdlib.h>
#include <string.h>

#include "format/parquet/read/pq_assemble.h"
#include "format/parquet/read/pq_column.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void annotate(pq_schema_element *e, int hint)
{
    if (hint == 1 && e->type == PQ_BYTE_ARRAY) {
        e->logical.kind = PQ_LT_STRING;
    } else if (hint == 2 && (e->type == PQ_INT32 || e->type == PQ_INT64 ||
                             e->type == PQ_FIXED_LEN_BYTE_ARRAY ||
                             e->type == PQ_BYTE_ARRAY)) {
        e->logical.kind = PQ_LT_DECIMAL;
        e->logical.precision = e->type == PQ_INT32 ? 9
                               : e->type == PQ_INT64 ? 18 : 38;
        e->logical.scale = 2;
    } else if (hint == 3 && e->type == PQ_INT64) {
        e->logical.kind = PQ_LT_TIMESTAMP;
        e->logical.unit = PQ_UNIT_MICROS;
        e->logical.is_adjusted_to_utc = 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_schema_element els[4];
    pq_file_meta meta;
    pq_column_meta cm;
    pq_schema schema;
    pq_leaf_batch batch, *batches[1];
    zb_codec_state *codec = NULL;
    pq_column *col = NULL;
    zb_arena *arena = NULL;
    uint8_t *chunk;
    size_t n_el, got;
    zb_ctx ctx;
    int shape, rc;

    if (size < 4)
        return 0;
    zb_ctx_init(&ctx);
    memset(els, 0, sizeof els);
    memset(&meta, 0, sizeof meta);
    memset(&cm, 0, sizeof cm);
    shape = data[1] % 3;
    els[0].name = "schema";
    els[0].num_children = 1;
    if (shape == 2) {
        els[1].name = "c";
        els[1].has_repetition = 1;
        els[1].repetition = PQ_OPTIONAL;
        els[1].num_children = 1;
        els[1].has_converted_type = 1;
        els[1].converted_type = PQ_CT_LIST;
        els[2].name = "list";
        els[2].has_repetition = 1;
        els[2].repetition = PQ_REPEATED;
        els[2].num_children = 1;
        n_el = 4;
    } else {
        n_el = 2;
    }
    els[n_el - 1].name = shape == 2 ? "element" : "c";
    els[n_el - 1].has_type = 1;
    els[n_el - 1].type = (pq_type)(data[0] % 8);
    els[n_el - 1].type_length = 16;
    els[n_el - 1].has_repetition = 1;
    els[n_el - 1].repetition = shape == 0 ? PQ_REQUIRED : PQ_OPTIONAL;
    annotate(&els[n_el - 1], data[3] % 4);
    meta.schema = els;
    meta.n_schema = n_el;
    if (zb_arena_new(&arena, 1 << 20) < 0)
        return 0;
    if (pq_schema_build(&schema, arena, &ctx, &meta) < 0 ||
        schema.n_leaves != 1) {
        zb_arena_free(arena);
        return 0;
    }
    cm.type = els[n_el - 1].type;
    cm.codec = data[2] % 8;
    cm.num_values = INT32_MAX;
    cm.total_compressed_size = (int64_t)(size - 4);
    if ((chunk = zb_malloc(size - 4 + 1)) == NULL ||
        zb_codec_state_new(&codec) < 0) {
        zb_free(chunk);
        zb_arena_free(arena);
        return 0;
    }
    memcpy(chunk, data + 4, size - 4);
    pq_leaf_batch_init(&batch, 64u << 20);
    batches[0] = &batch;
    if (pq_column_open(&col, &ctx, "fuzz", schema.leaves[0], &cm, chunk,
                       size - 4, 4, 16u << 20, codec) == ZB_OK) {
        do {
            struct ArrowArray a;
            pq_leaf_batch_clear(&batch);
            rc = pq_column_read(col, &ctx, &batch, 1000, &got);
            if (rc == ZB_OK && got > 0 &&
                pq_assemble(&a, &ctx, &schema, schema.root->children[0],
                            batches) == ZB_OK) {
                if (a.length != (int64_t)got)
                    abort();
                a.release(&a);
            }
        } while (rc == ZB_OK && got > 0);
        if (rc < 0 && ctx.err.msg[0] == '\0')
            abort();
    }
    pq_column_free(col);
    pq_leaf_batch_free(&batch);
    zb_codec_state_free(codec);
    zb_arena_free(arena);
    return 0;
}

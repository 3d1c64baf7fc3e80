/*
 * libFuzzer target: pq_meta_parse on arbitrary bytes (the footer between
 * a Parquet file's body and its length + "PAR1").
 *
 * The parser must return ZB_OK, ZB_ECORRUPT or ZB_ENOMEM (the arena cap),
 * never read outside the input, and on ZB_OK hand back a result whose
 * invariants hold: the schema is one tree, each row group has one column
 * chunk per leaf, and every string and array it points to is readable
 * (walking them lets ASan check the arena copies).
 */
#include <stdlib.h>
#include <string.h>

#include "format/parquet/thrift/pq_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i, sum = 0;

    for (i = 0; i < n; i++)
        sum += b[i];
    sink += sum;
}

static void walk(const pq_file_meta *m)
{
    size_t i, g, c, leaves = 0;

    if (m->n_schema == 0)
        abort();
    for (i = 0; i < m->n_schema; i++) {
        const pq_schema_element *se = &m->schema[i];

        if (se->name == NULL || se->num_children < 0)
            abort();
        touch(se->name, strlen(se->name) + 1);
        if (i > 0 && se->num_children == 0)
            leaves++;
    }
    for (g = 0; g < m->n_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];

        if (rg->n_columns != leaves || rg->num_rows < 0)
            abort();
        for (c = 0; c < rg->n_columns; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            const pq_column_meta *cm = &cc->meta_data;
            const pq_statistics *st = &cm->statistics;

            if (cc->file_path)
                touch(cc->file_path, strlen(cc->file_path) + 1);
            if (!cc->has_meta_data)
                continue;
            touch(cm->encodings, cm->n_encodings * sizeof(int32_t));
            for (i = 0; i < cm->path_len; i++)
                touch(cm->path_in_schema[i],
                      strlen(cm->path_in_schema[i]) + 1);
            if (st->has_max)
                touch(st->max, st->max_len);
            if (st->has_min)
                touch(st->min, st->min_len);
            if (st->has_max_value)
                touch(st->max_value, st->max_value_len);
            if (st->has_min_value)
                touch(st->min_value, st->min_value_len);
        }
    }
    for (i = 0; i < m->n_key_value; i++) {
        touch(m->key_value[i].key, strlen(m->key_value[i].key) + 1);
        if (m->key_value[i].value)
            touch(m->key_value[i].value, strlen(m->key_value[i].value));
    }
    if (m->created_by)
        touch(m->created_by, strlen(m->created_by));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_file_meta m;
    zb_arena *arena = NULL;
    zb_ctx ctx;
    int rc;

    if (zb_arena_new(&arena, (size_t)256 << 20) != ZB_OK)
        return 0;
    zb_ctx_init(&ctx);
    rc = pq_meta_parse(&m, arena, &ctx, data, size);
    if (rc == ZB_OK)
        walk(&m);
    else if ((rc != ZB_ECORRUPT && rc != ZB_ENOMEM) || ctx.err.msg[0] == 0)
        abort();
    zb_arena_free(arena);
    return 0;
}

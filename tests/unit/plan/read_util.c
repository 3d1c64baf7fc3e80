/* tests/unit/plan/read_util.c - see read_util.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/parquet_write.h"
#include "read_util.h"
#include "util/alloc.h"
#include "zbtest.h"

static void col_schema(struct ArrowSchema *s, const rt_col *c)
{
    const char *kv[3] = { NULL, NULL, NULL };
    char id[16], *meta = NULL;
    size_t len = 0;

    if (c->field_id >= 0) {
        snprintf(id, sizeof id, "%d", (int)c->field_id);
        kv[0] = "PARQUET:field_id";
        kv[1] = id;
    }
    ZBT_CHECK(zb_arrow_metadata(&meta, &len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s, c->format, c->name, meta, len,
                                   ARROW_FLAG_NULLABLE, 0) == 0);
    zb_free(meta);
}

static void col_array(struct ArrowArray *a, const rt_col *c, size_t n)
{
    uint8_t *valid;
    size_t i;
    int is_str = strcmp(c->format, "u") == 0;

    ZBT_CHECK(zb_arrow_array_init(a, is_str ? 3 : 2, 0) == 0);
    a->length = (int64_t)n;
    valid = zb_calloc(n / 8 + 1, 1);
    ZBT_CHECK(valid != NULL);
    for (i = 0; i < n; i++) {
        if (c->nulls && c->nulls[i])
            a->null_count++;
        else
            zb_arrow_set_bit(valid, (int64_t)i);
    }
    a->buffers[0] = valid;
    if (is_str) {
        const char *const *v = c->values;
        int32_t *off = zb_calloc(n + 1, sizeof *off);
        size_t total = 0;
        char *data;
        for (i = 0; i < n; i++)
            total += v[i] ? strlen(v[i]) : 0;
        data = zb_malloc(total + 1);
        ZBT_CHECK(off && data);
        total = 0;
        for (i = 0; i < n; i++) {
            size_t l = v[i] ? strlen(v[i]) : 0;
            if (l)
                memcpy(data + total, v[i], l);
            total += l;
            off[i + 1] = (int32_t)total;
        }
        a->buffers[1] = off;
        a->buffers[2] = data;
    } else {
        size_t w = strcmp(c->format, "i") == 0 || strcmp(c->format, "f") == 0
                   || strcmp(c->format, "tdD") == 0 ? 4 : 8;
        void *d = zb_malloc(w * n + 1);
        ZBT_CHECK(d != NULL);
        memcpy(d, c->values, w * n);
        a->buffers[1] = d;
    }
}

int64_t rt_write_parquet(zb_io *io, zb_ctx *ctx, const char *path,
                         const rt_col *cols, size_t n_cols, size_t n)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    pq_writer *w = NULL;
    pq_write_result res;
    size_t i;
    int64_t size;

    memset(&res, 0, sizeof res);
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0,
                                   (int64_t)n_cols) == 0);
    ZBT_CHECK(zb_arrow_array_init(&a, 1, (int64_t)n_cols) == 0);
    a.length = (int64_t)n;
    for (i = 0; i < n_cols; i++) {
        col_schema(s.children[i], &cols[i]);
        col_array(a.children[i], &cols[i], n);
    }
    wo.row_group_bytes = 1u << 20;
    ZBT_OK_CTX(pq_writer_open(&w, io, ctx, path, &s, &wo), ctx);
    ZBT_OK_CTX(pq_writer_write(w, ctx, &a), ctx);
    ZBT_OK_CTX(pq_writer_close(w, ctx, &res), ctx);
    size = (int64_t)res.file_bytes;
    pq_write_result_free(&res);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
    return size;
}

int64_t rt_write_posdel(zb_io *io, zb_ctx *ctx, const char *path,
                        const char *const *paths, const int64_t *pos,
                        size_t n)
{
    uint8_t *nulls = calloc(n + 1, 1);
    rt_col cols[2];
    size_t i;
    int64_t size;

    for (i = 0; i < n; i++)
        nulls[i] = paths[i] == NULL;
    cols[0] = (rt_col){ "file_path", 2147483546, "u", paths, nulls };
    cols[1] = (rt_col){ "pos", 2147483545, "l", pos, NULL };
    size = rt_write_parquet(io, ctx, path, cols, 2, n);
    free(nulls);
    return size;
}

ice_metadata *rt_metadata(zb_ctx *ctx, const char *json)
{
    ice_metadata *m = NULL;

    ZBT_OK_CTX(ice_metadata_parse(&m, ctx, json, strlen(json), "test"), ctx);
    return m;
}

ice_data_file rt_file(ice_file_content content, const char *path,
                      int64_t records, int64_t size)
{
    ice_data_file f;

    memset(&f, 0, sizeof f);
    f.content = content;
    f.file_path = path;
    f.file_format = "PARQUET";
    f.record_count = records;
    f.file_size_in_bytes = size;
    f.block_size_in_bytes = ICE_NULL_LONG;
    f.first_row_id = ICE_NULL_LONG;
    f.content_offset = ICE_NULL_LONG;
    f.content_size_in_bytes = ICE_NULL_LONG;
    return f;
}

/* Grows as needed; kept for the life of the test process. */
static char *out_text;
static size_t out_len, out_cap;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    va_list ap;
    int w;

    for (;;) {
        va_start(ap, fmt);
        w = vsnprintf(out_text + out_len, out_cap - out_len, fmt, ap);
        va_end(ap);
        ZBT_CHECK(w >= 0);
        if (out_len + (size_t)w < out_cap)
            break;
        out_cap = 2 * (out_cap + (size_t)w);
        out_text = realloc(out_text, out_cap);
        ZBT_CHECK(out_text != NULL);
    }
    out_len += (size_t)w;
}

static void print_value(const struct ArrowSchema *s,
                        const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers ? a->buffers[0] : NULL;
    int64_t p = a->offset + i;
    const char *f = s->format;
    int64_t k;

    if (a->n_buffers == 0 || (v && !zb_arrow_bit(v, p))) {
        put("null");
        return;
    }
    if (strcmp(f, "i") == 0 || strcmp(f, "tdD") == 0) {
        put("%d", ((const int32_t *)a->buffers[1])[p]);
    } else if (strcmp(f, "l") == 0 || f[0] == 't') {
        put("%" PRId64, ((const int64_t *)a->buffers[1])[p]);
    } else if (strcmp(f, "f") == 0) {
        put("%g", (double)((const float *)a->buffers[1])[p]);
    } else if (strcmp(f, "g") == 0) {
        put("%g", ((const double *)a->buffers[1])[p]);
    } else if (strcmp(f, "b") == 0) {
        put("%s", zb_arrow_bit(a->buffers[1], p) ? "true" : "false");
    } else if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0) {
        const int32_t *o = a->buffers[1];
        put("%.*s", (int)(o[p + 1] - o[p]),
            (const char *)a->buffers[2] + o[p]);
    } else if (strncmp(f, "d:", 2) == 0) {
        int64_t lo;
        memcpy(&lo, (const uint8_t *)a->buffers[1] + 16 * p, 8);
        put("%" PRId64 "e-%s", lo, strchr(f, ',') + 1);
    } else if (strcmp(f, "+s") == 0) {
        put("{");
        for (k = 0; k < a->n_children; k++) {
            if (k)
                put(",");
            print_value(s->children[k], a->children[k], p);
        }
        put("}");
    } else if (strcmp(f, "+l") == 0) {
        const int32_t *o = a->buffers[1];
        put("[");
        for (k = o[p]; k < o[p + 1]; k++) {
            if (k > o[p])
                put(",");
            print_value(s->children[0], a->children[0], k);
        }
        put("]");
    } else {
        put("?%s", f);
    }
}

static int read_stream(zb_io *io, zb_ctx *ctx, const zb_rowstream_opts *o,
                       const zb_scan_task *tasks, size_t n,
                       zb_read_counts *counts)
{
    zb_rowstream *rs = NULL;
    struct ArrowArray b;
    struct ArrowSchema s;
    int64_t i, k;
    int rc;

    if (out_text == NULL) {
        out_cap = 1 << 16;
        out_text = malloc(out_cap);
        ZBT_CHECK(out_text != NULL);
    }
    out_len = 0;
    out_text[0] = '\0';
    memset(&s, 0, sizeof s);
    if ((rc = zb_rowstream_open(&rs, io, ctx, o, tasks, n)) < 0)
        return rc;
    while ((rc = zb_rowstream_next(rs, ctx, &b, &s)) == 1) {
        ZBT_CHECK(b.length > 0);
        ZBT_EQ_INT(b.n_children, s.n_children);
        for (i = 0; i < b.length; i++) {
            for (k = 0; k < b.n_children; k++) {
                if (k)
                    put(",");
                print_value(s.children[k], b.children[k], i);
            }
            put("\n");
        }
        zb_arrow_schema_release(&s);
        b.release(&b);
    }
    if (counts)
        *counts = *zb_rowstream_counts(rs);
    zb_rowstream_free(rs);
    return rc;
}

const char *rt_read_all(zb_io *io, zb_ctx *ctx, const zb_rowstream_opts *o,
                        const zb_scan_task *tasks, size_t n,
                        zb_read_counts *counts)
{
    zb_read_counts c;

    ZBT_OK_CTX(read_stream(io, ctx, o, tasks, n, &c), ctx);
    ZBT_EQ_U64(c.rows_read, c.rows_out + c.deleted_by_position +
                                c.deleted_by_equality);
    if (counts)
        *counts = c;
    return out_text;
}

int rt_read_rc(zb_io *io, zb_ctx *ctx, const zb_rowstream_opts *o,
               const zb_scan_task *tasks, size_t n)
{
    return read_stream(io, ctx, o, tasks, n, NULL);
}

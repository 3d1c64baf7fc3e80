/*
 * The page index our writer writes with pq_writer_opts.page_index
 * (parquet-format PageIndex.md): fixture files are copied through the
 * reader and the writer with small pages, and each file's ColumnIndex and
 * OffsetIndex structs are decoded back here (a decoder of their own over
 * pq_thrift.h) and checked against the pages themselves: every location
 * points at a data page header whose size plus header is the location's
 * size, the pages tile the chunk, first_row_index sums the pages' rows to
 * the row group's, null counts add up to the chunk's, null pages carry
 * empty bounds, integer bounds and the boundary order agree. The default
 * writes no index; copied row groups get none; the table property
 * write.parquet.page-index-enabled sets the option.
 *
 * With PQ_PAGE_INDEX_OUT set, the files are left in that directory (each
 * also written without an index, as <name>-plain.parquet) for
 * tests/interop/page_index.mjs, which checks them with hyparquet and
 * DuckDB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "format/parquet/thrift/pq_meta_write.h"
#include "format/parquet/thrift/pq_thrift.h"
#include "io/io.h"
#include "zbtest.h"

#define FIX ZB_FIXTURES_DIR "/"

static const char *const sources[] = {
    FIX "duckdb-lineitem/data/"
        "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet",
    FIX "impala-v3-all-types/data/"
        "00000-6-fb62b831-267c-4614-b85c-829318a8ff67-0-00001.parquet",
    FIX "duckdb-name-mapping/data/"
        "data-6c6593a3-9e37-4bc5-bc45-4d2b43d4b3dc.parquet",
    FIX "icebird-spark-bunnies/data/"
        "00000-1-6cd7611f-0ceb-4cf3-8b8e-8c856356df3e-00001.parquet",
};

/* Copies src to dst with opts; copy_groups: row-group copy after the
 * first batch instead of rewriting the rest. */
static int copy_file(zb_io *io, zb_ctx *ctx, const char *src,
                     const char *dst, const pq_writer_opts *wo,
                     int copy_groups)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    struct ArrowSchema s;
    struct ArrowArray b;
    pq_reader *r = NULL, *r2 = NULL;
    pq_writer *w = NULL;
    int rc;

    ro.batch_rows = 700;
    if ((rc = pq_reader_open(&r, io, ctx, src, &ro)) < 0)
        return rc;
    if ((rc = pq_reader_arrow_schema(&s, r, ctx)) < 0) {
        pq_reader_free(r);
        return rc;
    }
    if ((rc = pq_writer_open(&w, io, ctx, dst, &s, wo)) < 0) {
        s.release(&s);
        pq_reader_free(r);
        return rc;
    }
    while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
        rc = pq_writer_write(w, ctx, &b);
        b.release(&b);
        if (rc < 0 || copy_groups)
            break;
    }
    if (rc >= 0 && copy_groups) {
        if ((rc = pq_reader_open(&r2, io, ctx, src, NULL)) == ZB_OK)
            rc = pq_writer_copy_row_groups(w, ctx, r2);
        pq_reader_free(r2);
    }
    if (rc >= 0)
        rc = pq_writer_close(w, ctx, NULL);
    else
        pq_writer_abort(w);
    s.release(&s);
    pq_reader_free(r);
    return rc;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    long n;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n)) != NULL &&
        fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        *len = (size_t)n;
    fclose(f);
    return p;
}

/* ---- a decoder of ColumnIndex and OffsetIndex ---- */

#define MAXP 4096

typedef struct loc {
    int64_t offset, first_row;
    int32_t size;
} loc;

typedef struct cindex {
    size_t n;
    int null_page[MAXP];
    const uint8_t *min[MAXP], *max[MAXP];
    size_t min_len[MAXP], max_len[MAXP];
    int32_t order;
    int has_order, has_nulls;
    size_t n_nulls;
    int64_t nulls[MAXP];
} cindex;

static int read_offset_index(pq_thrift *t, loc *out, size_t *n)
{
    int16_t last = 0, l2;
    pq_thrift_field f, g;
    size_t count = 0, i;
    uint8_t et;
    int rc, seen = 0;

    if ((rc = pq_thrift_struct_begin(t, &last, "OffsetIndex")) < 0)
        return rc;
    while ((rc = pq_thrift_field_next(t, &f, &last, "OffsetIndex")) == 0 &&
           f.type != PQ_TT_STOP) {
        if (f.id != 1) {
            rc = pq_thrift_skip_field(t, &f, "OffsetIndex");
        } else {
            seen = 1;
            if ((rc = pq_thrift_list_begin(t, &et, &count, "locs")) < 0)
                return rc;
            if (et != PQ_TT_STRUCT || count > MAXP)
                return -1;
            for (i = 0; i < count && rc == 0; i++) {
                int got = 0;
                l2 = 0;
                if ((rc = pq_thrift_struct_begin(t, &l2, "PageLocation")) < 0)
                    return rc;
                while ((rc = pq_thrift_field_next(t, &g, &l2, "PL")) == 0 &&
                       g.type != PQ_TT_STOP) {
                    if (g.id == 1)
                        rc = pq_thrift_field_i64(t, &g, &out[i].offset, "o"),
                        got |= 1;
                    else if (g.id == 2)
                        rc = pq_thrift_field_i32(t, &g, &out[i].size, "s"),
                        got |= 2;
                    else if (g.id == 3)
                        rc = pq_thrift_field_i64(t, &g, &out[i].first_row,
                                                 "r"),
                        got |= 4;
                    else
                        rc = pq_thrift_skip_field(t, &g, "PL");
                    if (rc < 0)
                        return rc;
                }
                pq_thrift_struct_end(t);
                if (got != 7)
                    return -1;
            }
            pq_thrift_container_end(t);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    *n = count;
    return seen ? 0 : -1;
}

static int read_column_index(pq_thrift *t, cindex *ci)
{
    int16_t last = 0;
    pq_thrift_field f;
    size_t count, i;
    uint8_t et;
    int rc, seen = 0;

    memset(ci, 0, sizeof *ci);
    if ((rc = pq_thrift_struct_begin(t, &last, "ColumnIndex")) < 0)
        return rc;
    while ((rc = pq_thrift_field_next(t, &f, &last, "ColumnIndex")) == 0 &&
           f.type != PQ_TT_STOP) {
        if (f.id >= 1 && f.id <= 3) {
            if ((rc = pq_thrift_list_begin(t, &et, &count, "list")) < 0)
                return rc;
            if (count > MAXP || (ci->n && count != ci->n))
                return -1;
            ci->n = count;
            seen |= 1 << f.id;
            for (i = 0; i < count && rc == 0; i++) {
                if (f.id == 1)
                    rc = pq_thrift_bool_elem(t, &ci->null_page[i], "np");
                else if (f.id == 2)
                    rc = pq_thrift_binary(t, &ci->min[i], &ci->min_len[i],
                                          "min");
                else
                    rc = pq_thrift_binary(t, &ci->max[i], &ci->max_len[i],
                                          "max");
            }
            pq_thrift_container_end(t);
        } else if (f.id == 4) {
            rc = pq_thrift_field_i32(t, &f, &ci->order, "order");
            ci->has_order = 1;
        } else if (f.id == 5) {
            if ((rc = pq_thrift_list_begin(t, &et, &count, "nulls")) < 0)
                return rc;
            if (et != PQ_TT_I64 || count > MAXP)
                return -1;
            ci->has_nulls = 1;
            ci->n_nulls = count;
            for (i = 0; i < count && rc == 0; i++)
                rc = pq_thrift_i64(t, &ci->nulls[i], "nc");
            pq_thrift_container_end(t);
        } else {
            rc = pq_thrift_skip_field(t, &f, "ColumnIndex");
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return seen == 14 && ci->has_order ? 0 : -1;
}

static int64_t le_int(const uint8_t *p, size_t len)
{
    if (len == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    } else {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
}

typedef struct tally {
    size_t chunks, with_ci, pages, null_pages, long_bounds;
    size_t orders[3];
} tally;

static loc locs[MAXP];
static cindex ci;

/* Checks every written chunk of the file at path; want: whether an index
 * is expected (chunk by chunk: copied row groups have none). */
static void check_file(zb_io *io, zb_ctx *ctx, const char *path,
                       size_t first_copied, tally *ty)
{
    pq_reader *r = NULL;
    const pq_file_meta *m;
    size_t flen = 0, g, c, i, n;
    uint8_t *file = slurp(path, &flen);
    struct ArrowArray b;
    uint64_t rows = 0, footer_at;
    uint64_t index_lo = UINT64_MAX, index_hi = 0, chunks_end = 0;
    int rc;

    ZBT_CHECK(file != NULL && flen > 12);
    if (file == NULL)
        return;
    footer_at = flen - 8;
    {
        uint32_t fl;
        memcpy(&fl, file + flen - 8, 4);
        footer_at -= fl;
    }
    ZBT_OK_CTX(pq_reader_open(&r, io, ctx, path, NULL), ctx);
    m = pq_reader_meta(r);
    for (g = 0; g < m->n_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        for (c = 0; c < rg->n_columns; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            const pq_column_meta *cm = &cc->meta_data;
            int64_t start = cm->has_dictionary_page_offset
                                ? cm->dictionary_page_offset
                                : cm->data_page_offset;
            int64_t end = start + cm->total_compressed_size, rows_sum = 0;
            int64_t null_sum = 0, v2_nulls[MAXP];
            int flat = cm->path_len == 1, rows_known = 1;
            int64_t page_rows[MAXP], page_values[MAXP];
            pq_thrift t;

            if ((uint64_t)end > chunks_end)
                chunks_end = (uint64_t)end;
            ty->chunks++;
            if (g >= first_copied) {
                ZBT_CHECK(!cc->has_offset_index && !cc->has_column_index);
                continue;
            }
            ZBT_CHECK(cc->has_offset_index);
            if (!cc->has_offset_index)
                continue;
            ZBT_CHECK(cc->offset_index_offset >= 0 &&
                      (uint64_t)cc->offset_index_offset +
                              (uint64_t)cc->offset_index_length <=
                          footer_at);
            if ((uint64_t)cc->offset_index_offset < index_lo)
                index_lo = (uint64_t)cc->offset_index_offset;
            if ((uint64_t)(cc->offset_index_offset +
                           cc->offset_index_length) > index_hi)
                index_hi = (uint64_t)(cc->offset_index_offset +
                                      cc->offset_index_length);
            pq_thrift_init(&t, ctx, "offset index",
                           file + cc->offset_index_offset,
                           (size_t)cc->offset_index_length);
            ZBT_OK_CTX(read_offset_index(&t, locs, &n), ctx);
            ZBT_EQ_U64(t.pos, (uint64_t)cc->offset_index_length);
            ZBT_CHECK(n > 0);
            ty->pages += n;
            ZBT_EQ_INT(locs[0].offset, cm->data_page_offset);
            ZBT_EQ_INT(locs[0].first_row, 0);
            for (i = 0; i < n; i++) {
                pq_page_header h;
                size_t hl = 0;
                ZBT_CHECK(locs[i].offset >= start &&
                          locs[i].offset + locs[i].size <= end);
                if (i + 1 < n) {
                    ZBT_EQ_INT(locs[i].offset + locs[i].size,
                               locs[i + 1].offset);
                    ZBT_CHECK(locs[i + 1].first_row > locs[i].first_row);
                } else {
                    ZBT_EQ_INT(locs[i].offset + locs[i].size, end);
                }
                ZBT_OK_CTX(pq_page_header_parse(&h, &hl, ctx,
                                                file + locs[i].offset,
                                                (size_t)locs[i].size), ctx);
                ZBT_CHECK(h.type == PQ_DATA_PAGE ||
                          h.type == PQ_DATA_PAGE_V2);
                ZBT_EQ_INT((int64_t)hl + h.compressed_page_size,
                           locs[i].size);
                v2_nulls[i] = -1;
                if (h.type == PQ_DATA_PAGE_V2) {
                    page_rows[i] = h.v2.num_rows;
                    page_values[i] = h.v2.num_values;
                    v2_nulls[i] = h.v2.num_nulls;
                } else {
                    page_values[i] = h.data.num_values;
                    page_rows[i] = flat ? h.data.num_values : -1;
                }
                if (page_rows[i] < 0)
                    rows_known = 0;
                else
                    rows_sum += page_rows[i];
                if (rows_known && i + 1 < n)
                    ZBT_EQ_INT(locs[i + 1].first_row - locs[i].first_row,
                               page_rows[i]);
            }
            ZBT_CHECK(locs[n - 1].first_row < rg->num_rows);
            if (rows_known)
                ZBT_EQ_INT(rows_sum, rg->num_rows);

            if (!cc->has_column_index)
                continue;
            ty->with_ci++;
            ZBT_CHECK((uint64_t)cc->column_index_offset +
                          (uint64_t)cc->column_index_length <= footer_at);
            if ((uint64_t)cc->column_index_offset < index_lo)
                index_lo = (uint64_t)cc->column_index_offset;
            pq_thrift_init(&t, ctx, "column index",
                           file + cc->column_index_offset,
                           (size_t)cc->column_index_length);
            ZBT_OK_CTX(read_column_index(&t, &ci), ctx);
            ZBT_EQ_U64(t.pos, (uint64_t)cc->column_index_length);
            ZBT_EQ_U64(ci.n, n);
            ZBT_CHECK(ci.has_nulls && ci.n_nulls == n);
            ZBT_CHECK(ci.order >= 0 && ci.order <= 2);
            if (ci.order >= 0 && ci.order <= 2)
                ty->orders[ci.order]++;
            for (i = 0; i < n && i < ci.n; i++) {
                null_sum += ci.nulls[i];
                ZBT_CHECK(ci.nulls[i] >= 0 && ci.nulls[i] <= page_values[i]);
                if (ci.null_page[i]) {
                    ty->null_pages++;
                    ZBT_CHECK(ci.min_len[i] == 0 && ci.max_len[i] == 0);
                    if (flat)
                        ZBT_EQ_INT(ci.nulls[i], page_values[i]);
                } else if (flat) {
                    ZBT_CHECK(ci.nulls[i] < page_values[i]);
                }
                if (v2_nulls[i] >= 0 && flat)
                    ZBT_EQ_INT(ci.nulls[i], v2_nulls[i]);
            }
            if (cm->has_statistics && cm->statistics.has_null_count)
                ZBT_EQ_INT(null_sum, cm->statistics.null_count);
            if (cm->type == PQ_BYTE_ARRAY)
                for (i = 0; i < n; i++) {
                    size_t k2 = ci.min_len[i] < ci.max_len[i]
                                    ? ci.min_len[i] : ci.max_len[i];
                    int c2 = k2 ? memcmp(ci.min[i], ci.max[i], k2) : 0;
                    ZBT_CHECK(ci.min_len[i] <= 64 && ci.max_len[i] <= 64);
                    ZBT_CHECK(c2 < 0 ||
                              (c2 == 0 && ci.min_len[i] <= ci.max_len[i]));
                    if (ci.min_len[i] == 64 || ci.max_len[i] < 64)
                        ty->long_bounds += ci.min_len[i] == 64;
                }
            /* Integers without a logical type: bounds and the order. */
            if ((cm->type == PQ_INT32 || cm->type == PQ_INT64) && flat) {
                size_t w = cm->type == PQ_INT32 ? 4 : 8, prev = SIZE_MAX;
                int asc = 1, desc = 1;
                const pq_statistics *st = &cm->statistics;
                for (i = 0; i < n; i++) {
                    int64_t lo, hi;
                    if (ci.null_page[i])
                        continue;
                    ZBT_CHECK(ci.min_len[i] == w && ci.max_len[i] == w);
                    if (ci.min_len[i] != w || ci.max_len[i] != w)
                        break;
                    lo = le_int(ci.min[i], w);
                    hi = le_int(ci.max[i], w);
                    ZBT_CHECK(lo <= hi);
                    if (st->has_min_value && st->min_value_len == w &&
                        st->has_max_value && st->max_value_len == w) {
                        ZBT_CHECK(le_int(st->min_value, w) <= lo);
                        ZBT_CHECK(le_int(st->max_value, w) >= hi);
                    }
                    if (prev != SIZE_MAX) {
                        int64_t plo = le_int(ci.min[prev], w);
                        int64_t phi = le_int(ci.max[prev], w);
                        if (plo > lo || phi > hi)
                            asc = 0;
                        if (plo < lo || phi < hi)
                            desc = 0;
                    }
                    prev = i;
                }
                if (cc->meta_data.type == PQ_INT32 ||
                    cc->meta_data.type == PQ_INT64)
                    ZBT_EQ_INT(ci.order, asc ? 1 : desc ? 2 : 0);
            }
        }
    }
    /* The indexes lie between the last chunk and the footer. */
    if (index_hi)
        ZBT_CHECK(index_lo >= chunks_end && index_hi <= footer_at);
    /* Our reader still reads every row. */
    while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
        rows += (uint64_t)b.length;
        b.release(&b);
    }
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_INT((int64_t)rows, m->num_rows);
    pq_reader_free(r);
    free(file);
}

/* ---- a synthetic file: runs of nulls, ascending, descending, unordered */

#define SN 6000

static void noop_schema(struct ArrowSchema *x) { x->release = NULL; }
static void noop_array(struct ArrowArray *x) { x->release = NULL; }

static int64_t s_a[SN];
static int32_t s_b[SN], s_off[SN + 1];
static double s_d[SN];
static char s_chars[SN * 8];
static uint8_t s_va[SN / 8 + 1], s_vc[SN / 8 + 1], s_none[SN / 8 + 1],
    s_vf[SN / 8 + 1];
static int32_t s_loff[SN + 1], s_e[SN * 3], s_goff[SN + 1];
static char s_g[SN * 72];

/* Writes SN rows in two batches: a int64 (null in rows 1500..3499, else
 * the row number), b int32 (descending), c string (null every third row,
 * ascending), d double (unordered), e int32 (all null), f list<int32>
 * (0..3 elements, null every seventh row), g strings of 70 bytes
 * (ascending; past STAT_MAX_BYTES: truncated bounds in the index). */
static int write_synthetic(zb_io *io, zb_ctx *ctx, const char *path,
                           const pq_writer_opts *wo)
{
    static const char *const fmts[7] = { "l", "i", "u", "g", "i", "+l",
                                         "u" };
    static const char *const names[7] = { "a", "b", "c", "d", "e", "f",
                                          "g" };
    struct ArrowSchema cs[7], *csp[7], root, elem, *elemp = &elem;
    struct ArrowArray ca[7], *cap[7], ra, ea, *eap = &ea;
    const void *bufs[7][3], *ebufs[2], *rbufs[1] = { NULL };
    pq_writer *w = NULL;
    size_t i, k, pos = 0;
    int rc;

    memset(s_va, 0, sizeof s_va);
    memset(s_vc, 0, sizeof s_vc);
    for (i = 0; i < SN; i++) {
        s_a[i] = (int64_t)i;
        if (i < 1500 || i >= 3500)
            s_va[i / 8] |= (uint8_t)(1u << (i % 8));
        s_b[i] = (int32_t)(SN - i);
        s_d[i] = (double)((i * 7919) % 1000) / 10.0;
        s_off[i] = (int32_t)pos;
        if (i % 3) {
            s_vc[i / 8] |= (uint8_t)(1u << (i % 8));
            pos += (size_t)snprintf(s_chars + pos, 8, "v%06zu", i);
        }
    }
    s_off[SN] = (int32_t)pos;
    memset(s_vf, 0, sizeof s_vf);
    for (i = 0, pos = 0; i < SN; i++) {
        s_loff[i] = (int32_t)pos;
        if (i % 7) {
            s_vf[i / 8] |= (uint8_t)(1u << (i % 8));
            pos += i % 4;
        }
    }
    s_loff[SN] = (int32_t)pos;
    for (i = 0; i < pos; i++)
        s_e[i] = (int32_t)(i % 500);
    for (i = 0; i <= SN; i++) {
        s_goff[i] = (int32_t)(i * 70);
        if (i < SN) {
            char tmp[80];
            snprintf(tmp, sizeof tmp, "%06zu%063d%c", i, 0,
                     i % 2 ? '~' : 'a');
            memcpy(s_g + i * 70, tmp, 70);
        }
    }
    memset(&root, 0, sizeof root);
    root.format = "+s";
    root.name = "";
    root.n_children = 7;
    root.children = csp;
    root.release = noop_schema;
    for (k = 0; k < 7; k++) {
        memset(&cs[k], 0, sizeof cs[k]);
        cs[k].format = fmts[k];
        cs[k].name = names[k];
        cs[k].flags = 2;   /* ARROW_FLAG_NULLABLE */
        cs[k].release = noop_schema;
        csp[k] = &cs[k];
    }
    bufs[0][0] = s_va; bufs[0][1] = s_a;
    bufs[1][0] = NULL; bufs[1][1] = s_b;
    bufs[2][0] = s_vc; bufs[2][1] = s_off; bufs[2][2] = s_chars;
    bufs[3][0] = NULL; bufs[3][1] = s_d;
    bufs[4][0] = s_none; bufs[4][1] = s_b;
    bufs[5][0] = s_vf; bufs[5][1] = s_loff;
    bufs[6][0] = NULL; bufs[6][1] = s_goff; bufs[6][2] = s_g;
    ebufs[0] = NULL; ebufs[1] = s_e;
    memset(&elem, 0, sizeof elem);
    elem.format = "i";
    elem.name = "element";
    elem.flags = 2;
    elem.release = noop_schema;
    cs[5].n_children = 1;
    cs[5].children = &elemp;
    if ((rc = pq_writer_open(&w, io, ctx, path, &root, wo)) < 0)
        return rc;
    for (i = 0; i < SN; i += SN / 2) {
        memset(&ra, 0, sizeof ra);
        ra.length = SN / 2;
        ra.offset = (int64_t)i;
        ra.n_buffers = 1;
        ra.buffers = rbufs;
        ra.n_children = 7;
        ra.children = cap;
        ra.release = noop_array;
        for (k = 0; k < 7; k++) {
            memset(&ca[k], 0, sizeof ca[k]);
            ca[k].length = SN;
            ca[k].null_count = k == 0 ? 2000 : k == 2 ? SN / 3 : k == 4 ? SN : k == 5 ? -1 : 0;
            ca[k].n_buffers = k == 2 || k == 6 ? 3 : 2;
            ca[k].buffers = bufs[k];
            ca[k].release = noop_array;
            cap[k] = &ca[k];
        }
        memset(&ea, 0, sizeof ea);
        ea.length = s_loff[SN];
        ea.n_buffers = 2;
        ea.buffers = ebufs;
        ea.release = noop_array;
        ca[5].n_children = 1;
        ca[5].children = &eap;
        if ((rc = pq_writer_write(w, ctx, &ra)) < 0) {
            pq_writer_abort(w);
            return rc;
        }
    }
    return pq_writer_close(w, ctx, NULL);
}

/* A fixture table directory names its first data file. */
static int source_path(char *out, size_t cap, const char *src)
{
    struct stat sb;
    zbt_files fl = { 0 };
    char dir[4096];

    if (stat(src, &sb) == 0 && S_ISREG(sb.st_mode)) {
        snprintf(out, cap, "%s", src);
        return 0;
    }
    snprintf(dir, sizeof dir, "%s/data", src);
    zbt_find_files(&fl, dir, ".parquet");
    for (size_t i = 0; i < fl.n; i++)
        if (strstr(fl.paths[i], "delete") == NULL) {
            snprintf(out, cap, "%s", fl.paths[i]);
            zbt_files_free(&fl);
            return 0;
        }
    zbt_files_free(&fl);
    return -1;
}

static void test_page_index__written_and_decoded_back(void)
{
    const char *keep = getenv("PQ_PAGE_INDEX_OUT");
    char dir[4096], src[4096], path[4200];
    zb_io *io = NULL;
    zb_ctx ctx;
    tally ty;
    size_t s;
    int v2, dict;

    memset(&ty, 0, sizeof ty);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(dir, sizeof dir, "%s", keep && *keep ? keep : zbt_tmpdir());
    if (keep && *keep) {
        zbt_rmtree(dir);
        mkdir(dir, 0777);
    }
    for (v2 = 0; v2 <= 1; v2++) {
        pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
        wo.page_index = 1;
        wo.page_v2 = v2;
        wo.page_bytes = 700;
        wo.row_group_bytes = 50000;
        snprintf(path, sizeof path, "%s/syn-v%d.parquet", dir, v2 + 1);
        ZBT_OK_CTX(write_synthetic(io, &ctx, path, &wo), &ctx);
        check_file(io, &ctx, path, SIZE_MAX, &ty);
        wo.page_index = 0;
        snprintf(path, sizeof path, "%s/syn-v%d-plain.parquet", dir, v2 + 1);
        ZBT_OK_CTX(write_synthetic(io, &ctx, path, &wo), &ctx);
    }
    ZBT_CHECK(ty.null_pages > 0 && ty.orders[2] > 0 && ty.long_bounds > 0);
    ZBT_CHECK(ty.with_ci == ty.chunks);
    for (s = 0; s < sizeof sources / sizeof *sources; s++) {
        ZBT_CHECK(source_path(src, sizeof src, sources[s]) == 0);
        for (v2 = 0; v2 <= 1; v2++)
            for (dict = 0; dict <= 1; dict++) {
                pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
                wo.page_index = 1;
                wo.page_v2 = v2;
                wo.dictionary = dict;
                wo.page_bytes = 700;
                wo.row_group_bytes = 60000;
                wo.codec = v2 ? PQ_CODEC_SNAPPY : PQ_CODEC_UNCOMPRESSED;
                snprintf(path, sizeof path, "%s/f%zu-v%d-d%d.parquet", dir, s,
                         v2 + 1, dict);
                ZBT_OK_CTX(copy_file(io, &ctx, src, path, &wo, 0), &ctx);
                check_file(io, &ctx, path, SIZE_MAX, &ty);
                wo.page_index = 0;
                snprintf(path, sizeof path, "%s/f%zu-v%d-d%d-plain.parquet",
                         dir, s, v2 + 1, dict);
                ZBT_OK_CTX(copy_file(io, &ctx, src, path, &wo, 0), &ctx);
            }
    }
    /* Enough happened to mean something. */
    ZBT_CHECK(ty.pages > 500);
    ZBT_CHECK(ty.with_ci > ty.chunks / 2);
    ZBT_CHECK(ty.null_pages > 0);
    ZBT_CHECK(ty.orders[1] > 0 && ty.orders[0] > 0);
    zb_io_free(io);
}

static void test_page_index__off_by_default_and_not_for_copies(void)
{
    char path[4096], src[4096];
    pq_writer_opts wo = PQ_WRITER_OPTS_INIT;
    zb_io *io = NULL;
    pq_reader *r = NULL;
    const pq_file_meta *m;
    size_t g, c;
    zb_ctx ctx;
    tally ty;

    memset(&ty, 0, sizeof ty);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_CHECK(source_path(src, sizeof src, sources[0]) == 0);
    ZBT_EQ_INT(wo.page_index, 0);
    wo.page_bytes = 4096;
    snprintf(path, sizeof path, "%s/default.parquet", zbt_tmpdir());
    ZBT_OK_CTX(copy_file(io, &ctx, src, path, &wo, 0), &ctx);
    ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, path, NULL), &ctx);
    m = pq_reader_meta(r);
    for (g = 0; g < m->n_row_groups; g++)
        for (c = 0; c < m->row_groups[g].n_columns; c++)
            ZBT_CHECK(!m->row_groups[g].columns[c].has_offset_index &&
                      !m->row_groups[g].columns[c].has_column_index);
    pq_reader_free(r);
    /* pq_writer_bytes counts the index waiting for close: the file's
     * size is the count before close plus the footer. */
    {
        pq_reader_opts ro = PQ_READER_OPTS_INIT;
        struct ArrowSchema sc;
        struct ArrowArray b;
        pq_writer *w = NULL;
        pq_write_result res;
        uint64_t before;
        int rc;
        pq_writer_opts io_opts = wo;

        io_opts.page_index = 1;
        io_opts.row_group_bytes = 100000;
        snprintf(path, sizeof path, "%s/sized.parquet", zbt_tmpdir());
        ZBT_OK_CTX(pq_reader_open(&r, io, &ctx, src, &ro), &ctx);
        ZBT_OK_CTX(pq_reader_arrow_schema(&sc, r, &ctx), &ctx);
        ZBT_OK_CTX(pq_writer_open(&w, io, &ctx, path, &sc, &io_opts), &ctx);
        while ((rc = pq_reader_next(r, &ctx, &b)) == 1) {
            ZBT_OK_CTX(pq_writer_write(w, &ctx, &b), &ctx);
            b.release(&b);
        }
        ZBT_EQ_INT(rc, 0);
        before = pq_writer_bytes(w);
        ZBT_OK_CTX(pq_writer_close(w, &ctx, &res), &ctx);
        ZBT_CHECK(res.file_bytes > before &&
                  res.file_bytes - before < 64 * 1024);
        pq_write_result_free(&res);
        sc.release(&sc);
        pq_reader_free(r);
    }
    /* One written row group, then the source's copied: those have none. */
    wo.page_index = 1;
    wo.row_group_bytes = 1u << 30;
    snprintf(path, sizeof path, "%s/copied.parquet", zbt_tmpdir());
    ZBT_OK_CTX(copy_file(io, &ctx, src, path, &wo, 1), &ctx);
    check_file(io, &ctx, path, 1, &ty);
    ZBT_CHECK(ty.chunks > ty.with_ci && ty.with_ci > 0);
    zb_io_free(io);
}

static void test_page_index__encoders_fail_cleanly(void)
{
    static const uint8_t np[2] = { 1, 0 }, v[4] = { 1, 2, 3, 4 };
    const uint8_t *mins[2] = { NULL, v }, *maxs[2] = { NULL, v };
    size_t lens[2] = { 0, 4 };
    int64_t nulls[2] = { 5, 0 };
    pq_page_location pl[2] = { { 4, 100, 0 }, { 104, 90, 7 } };
    pq_column_index c = { 2, np, mins, lens, maxs, lens,
                          PQ_BOUNDARY_ASCENDING, nulls };
    zb_buf small = ZB_BUF_INIT(8), big = ZB_BUF_INIT(1 << 16);
    pq_thrift t;
    size_t n;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_CHECK(zb_buf_append(&small, "ab", 2) == 0);
    ZBT_RC(pq_column_index_write(&small, &ctx, &c), ZB_ENOMEM);
    ZBT_EQ_U64(small.len, 2);
    ZBT_RC(pq_offset_index_write(&small, &ctx, pl, 2), ZB_ENOMEM);
    ZBT_EQ_U64(small.len, 2);
    c.boundary_order = (pq_boundary_order)3;
    ZBT_RC(pq_column_index_write(&big, &ctx, &c), ZB_EINVAL);
    ZBT_EQ_U64(big.len, 0);
    c.boundary_order = PQ_BOUNDARY_DESCENDING;
    ZBT_OK_CTX(pq_column_index_write(&big, &ctx, &c), &ctx);
    pq_thrift_init(&t, &ctx, "ci", (const uint8_t *)big.ptr, big.len);
    ZBT_OK_CTX(read_column_index(&t, &ci), &ctx);
    ZBT_EQ_U64(ci.n, 2);
    ZBT_CHECK(ci.null_page[0] && !ci.null_page[1]);
    ZBT_CHECK(ci.min_len[0] == 0 && ci.max_len[1] == 4 &&
              memcmp(ci.max[1], v, 4) == 0);
    ZBT_EQ_INT(ci.order, 2);
    ZBT_EQ_INT(ci.nulls[0], 5);
    /* Every truncation of it is an error, not a crash. */
    for (n = 0; n < big.len; n++) {
        pq_thrift_init(&t, &ctx, "ci", (const uint8_t *)big.ptr, n);
        ZBT_CHECK(read_column_index(&t, &ci) != 0);
    }
    zb_buf_clear(&big);
    ZBT_OK_CTX(pq_offset_index_write(&big, &ctx, pl, 2), &ctx);
    pq_thrift_init(&t, &ctx, "oi", (const uint8_t *)big.ptr, big.len);
    ZBT_OK_CTX(read_offset_index(&t, locs, &n), &ctx);
    ZBT_EQ_U64(n, 2);
    ZBT_CHECK(locs[1].offset == 104 && locs[1].size == 90 &&
              locs[1].first_row == 7);
    zb_buf_free(&small);
    zb_buf_free(&big);
}

static void test_page_index__table_property(void)
{
    const char *on[] = { "write.parquet.page-index-enabled", "TRUE", NULL };
    const char *off[] = { "write.parquet.page-index-enabled", "false", NULL };
    const char *bad[] = { "write.parquet.page-index-enabled", "yes", NULL };
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    int unsupported = -1;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(o.page_index, 0);
    ZBT_OK_CTX(pq_writer_opts_apply_properties(&o, &ctx, on, &unsupported),
               &ctx);
    ZBT_EQ_INT(o.page_index, 1);
    ZBT_EQ_INT(unsupported, 0);
    ZBT_OK_CTX(pq_writer_opts_apply_properties(&o, &ctx, off, &unsupported),
               &ctx);
    ZBT_EQ_INT(o.page_index, 0);
    ZBT_RC(pq_writer_opts_apply_properties(&o, &ctx, bad, &unsupported),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "page-index-enabled");
}

const zbt_case test_parquet_page_index[] = {
    ZBT_CASE(test_page_index__table_property),
    ZBT_CASE(test_page_index__encoders_fail_cleanly),
    ZBT_CASE(test_page_index__off_by_default_and_not_for_copies),
    ZBT_CASE(test_page_index__written_and_decoded_back),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_page_index, NULL };
    return zbt_main(argc, argv, suites);
}

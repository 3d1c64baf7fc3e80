/*
 * The Parquet writer's threads (pq_writer_opts.threads): the same batches
 * written with 1, 2, 3 and 4 threads give the same file byte for byte,
 * over flat columns of every physical type (nulls, NaN, long strings),
 * lists, structs and maps, dictionaries kept and given up, pages v1 and
 * v2, the page index, several row groups, every codec this build writes,
 * an empty file, a one-row batch and row-group copy, and one dominant
 * string column in large pages (pages compressed on the pool's threads,
 * pending pages past their cap). A bad value met on
 * a thread is reported once, the first in leaf order as with one thread,
 * and the file does not appear.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/codec/codec.h"
#include "format/parquet/parquet.h"
#include "format/parquet/parquet_write.h"
#include "io/io.h"
#include "util/err.h"
#include "zbtest.h"

#define N 30000              /* rows of the data set */
#define NCOLS 16
#define LONG_EVERY 97        /* a string past the 64-byte bounds */

static void noop_schema(struct ArrowSchema *x) { x->release = NULL; }
static void noop_array(struct ArrowArray *x) { x->release = NULL; }

/* The columns' data, made once (make_data). */
static int8_t d_i8[N];
static int16_t d_i16[N];
static int32_t d_i32[N], d_lst[N * 3], d_lst_off[N + 1], d_map_off[N + 1],
    d_map_v[N * 2], d_lo_off[N + 1], d_hi_off[N + 1], d_sy_off[N + 1],
    d_mk_off[N * 2 + 1];
static int64_t d_i64[N], d_ts[N], d_sx[N];
static float d_f32[N];
static double d_f64[N];
static uint8_t d_bool[N / 8 + 1], d_fixed[N * 16], d_dec[N * 16];
static char d_lo[N * 4], d_hi[N * 112], d_sy[N * 8], d_mk[N * 2 * 4];
static uint8_t v_i8[N / 8 + 1], v_i64[N / 8 + 1], v_bool[N / 8 + 1],
    v_hi[N / 8 + 1], v_lst[N / 8 + 1], v_st[N / 8 + 1], v_m[N / 8 + 1];

static void set_bit(uint8_t *bits, size_t i)
{
    bits[i / 8] |= (uint8_t)(1u << (i % 8));
}

static void make_data(void)
{
    static int made;
    size_t i, k, lo = 0, hi = 0, lst = 0, sy = 0, mp = 0, mk = 0;
    unsigned seed = 11;

    if (made)
        return;
    made = 1;
    for (i = 0; i < N; i++) {
        d_i8[i] = (int8_t)(i % 251);
        if (i % 5)
            set_bit(v_i8, i);
        d_i16[i] = (int16_t)(i * 7);
        d_i32[i] = (int32_t)(i * 3);
        d_i64[i] = (int64_t)rand_r(&seed) << 20 | (int64_t)i;
        if ((i / 900) % 3)
            set_bit(v_i64, i);
        d_f32[i] = i % 100 == 0 ? 0.0f / 0.0f : (float)i / 7.0f;
        d_f64[i] = (double)((i * 7919) % 1000) / 10.0;
        if (rand_r(&seed) % 2)
            set_bit(d_bool, i);
        if (i % 7)
            set_bit(v_bool, i);
        d_lo_off[i] = (int32_t)lo;
        lo += (size_t)snprintf(d_lo + lo, 4, "k%02zu", i % 50);
        d_hi_off[i] = (int32_t)hi;
        if (i % 11) {
            set_bit(v_hi, i);
            if (i % LONG_EVERY == 0) {
                memset(d_hi + hi, 'a' + (int)(i % 26), 100);
                hi += 100;
            } else {
                hi += (size_t)snprintf(d_hi + hi, 12, "v%08u",
                                       (unsigned)rand_r(&seed) % 100000000u);
            }
        }
        for (k = 0; k < 16; k++) {
            d_fixed[i * 16 + k] = (uint8_t)(i * 31 + k);
            d_dec[i * 16 + k] = k < 8 ? (uint8_t)(i >> (8 * (k % 4))) : 0;
        }
        d_ts[i] = 1700000000000000 + (int64_t)i * 1000;
        d_lst_off[i] = (int32_t)lst;
        if (i % 13) {
            set_bit(v_lst, i);
            for (k = 0; k < i % 4; k++, lst++)
                d_lst[lst] = (int32_t)(lst % 500);
        }
        if (i % 17)
            set_bit(v_st, i);
        d_sx[i] = (int64_t)i * 100;
        d_sy_off[i] = (int32_t)sy;
        sy += (size_t)snprintf(d_sy + sy, 8, "y%zu", i % 997);
        d_map_off[i] = (int32_t)mp;
        if (i % 19) {
            set_bit(v_m, i);
            for (k = 0; k < i % 3; k++, mp++) {
                d_mk_off[mp] = (int32_t)mk;
                mk += (size_t)snprintf(d_mk + mk, 4, "m%zu", k);
                d_map_v[mp] = (int32_t)(i + k);
            }
        }
    }
    d_lo_off[N] = (int32_t)lo;
    d_hi_off[N] = (int32_t)hi;
    d_lst_off[N] = (int32_t)lst;
    d_sy_off[N] = (int32_t)sy;
    d_map_off[N] = (int32_t)mp;
    d_mk_off[mp] = (int32_t)mk;
}

/* The schema and the arrays over the data (pointers into statics). */
typedef struct dataset {
    struct ArrowSchema root, cs[NCOLS], *csp[NCOLS];
    struct ArrowSchema elem, *elemp, sx, sy, *stp[2], ent, *entp, mk, mv,
        *mkv[2];
    struct ArrowArray ca[NCOLS], *cap[NCOLS];
    struct ArrowArray ea, *eap, ax, ay, *atp[2], aent, *aentp, amk, amv,
        *amkv[2];
    const void *bufs[NCOLS][3], *ebufs[2], *xbufs[2], *ybufs[3], *entbufs[1],
        *mkbufs[3], *mvbufs[2];
    int32_t bad_off[N + 1];      /* d_hi_off with one decrease */
} dataset;

static void schema_field(struct ArrowSchema *s, const char *fmt,
                         const char *name, int64_t flags)
{
    memset(s, 0, sizeof *s);
    s->format = fmt;
    s->name = name;
    s->flags = flags;
    s->release = noop_schema;
}

static void array_of(struct ArrowArray *a, int64_t length, int64_t nulls,
                     int64_t n_buffers, const void **bufs)
{
    memset(a, 0, sizeof *a);
    a->length = length;
    a->null_count = nulls;
    a->n_buffers = n_buffers;
    a->buffers = bufs;
    a->release = noop_array;
}

static void make_dataset(dataset *d)
{
    static const char *const fmts[NCOLS] = {
        "c", "s", "i", "l", "f", "g", "b", "u", "u", "w:16", "d:12,2",
        "d:30,3", "tsu:UTC", "+l", "+s", "+m" };
    static const char *const names[NCOLS] = {
        "i8", "i16", "i32", "i64", "f32", "f64", "flag", "lo", "hi", "fx",
        "dec", "wide", "ts", "lst", "st", "m" };
    size_t k;

    make_data();
    memset(d, 0, sizeof *d);
    schema_field(&d->root, "+s", "", 0);
    d->root.n_children = NCOLS;
    d->root.children = d->csp;
    for (k = 0; k < NCOLS; k++) {
        schema_field(&d->cs[k], fmts[k], names[k], 2);
        d->csp[k] = &d->cs[k];
    }
    d->bufs[0][0] = v_i8; d->bufs[0][1] = d_i8;
    d->bufs[1][1] = d_i16;
    d->bufs[2][1] = d_i32;
    d->bufs[3][0] = v_i64; d->bufs[3][1] = d_i64;
    d->bufs[4][1] = d_f32;
    d->bufs[5][1] = d_f64;
    d->bufs[6][0] = v_bool; d->bufs[6][1] = d_bool;
    d->bufs[7][1] = d_lo_off; d->bufs[7][2] = d_lo;
    d->bufs[8][0] = v_hi; d->bufs[8][1] = d_hi_off; d->bufs[8][2] = d_hi;
    d->bufs[9][1] = d_fixed;
    d->bufs[10][1] = d_dec;
    d->bufs[11][1] = d_dec;
    d->bufs[12][1] = d_ts;
    d->bufs[13][0] = v_lst; d->bufs[13][1] = d_lst_off;
    d->bufs[14][0] = v_st;
    d->bufs[15][0] = v_m; d->bufs[15][1] = d_map_off;
    for (k = 0; k < NCOLS; k++) {
        int64_t nb = fmts[k][0] == 'u' ? 3 : fmts[k][1] == 's' ? 1 : 2;
        array_of(&d->ca[k], N, -1, nb, d->bufs[k]);
        d->cap[k] = &d->ca[k];
    }
    d->ca[2].null_count = 0;
    /* lst: list<int32> */
    schema_field(&d->elem, "i", "element", 2);
    d->elemp = &d->elem;
    d->cs[13].n_children = 1;
    d->cs[13].children = &d->elemp;
    d->ebufs[1] = d_lst;
    array_of(&d->ea, d_lst_off[N], 0, 2, d->ebufs);
    d->eap = &d->ea;
    d->ca[13].n_children = 1;
    d->ca[13].children = &d->eap;
    /* st: struct<x int64, y string> */
    schema_field(&d->sx, "l", "x", 2);
    schema_field(&d->sy, "u", "y", 0);
    d->stp[0] = &d->sx;
    d->stp[1] = &d->sy;
    d->cs[14].n_children = 2;
    d->cs[14].children = d->stp;
    d->xbufs[1] = d_sx;
    d->ybufs[1] = d_sy_off;
    d->ybufs[2] = d_sy;
    array_of(&d->ax, N, 0, 2, d->xbufs);
    array_of(&d->ay, N, 0, 3, d->ybufs);
    d->atp[0] = &d->ax;
    d->atp[1] = &d->ay;
    d->ca[14].n_children = 2;
    d->ca[14].children = d->atp;
    /* m: map<string, int32> */
    schema_field(&d->ent, "+s", "entries", 0);
    schema_field(&d->mk, "u", "key", 0);
    schema_field(&d->mv, "i", "value", 2);
    d->mkv[0] = &d->mk;
    d->mkv[1] = &d->mv;
    d->ent.n_children = 2;
    d->ent.children = d->mkv;
    d->entp = &d->ent;
    d->cs[15].n_children = 1;
    d->cs[15].children = &d->entp;
    d->mkbufs[1] = d_mk_off;
    d->mkbufs[2] = d_mk;
    d->mvbufs[1] = d_map_v;
    array_of(&d->amk, d_map_off[N], 0, 3, d->mkbufs);
    array_of(&d->amv, d_map_off[N], 0, 2, d->mvbufs);
    d->amkv[0] = &d->amk;
    d->amkv[1] = &d->amv;
    array_of(&d->aent, d_map_off[N], 0, 1, d->entbufs);
    d->aent.n_children = 2;
    d->aent.children = d->amkv;
    d->aentp = &d->aent;
    d->ca[15].n_children = 1;
    d->ca[15].children = &d->aentp;
}

/* Rows from..from+len of the data set as a batch (the root's offset). */
static void batch_of(struct ArrowArray *b, dataset *d, int64_t from,
                     int64_t len)
{
    static const void *rbufs[1] = { NULL };

    array_of(b, len, 0, 1, rbufs);
    b->offset = from;
    b->n_children = NCOLS;
    b->children = d->cap;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    long n;

    *len = 0;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n + 1)) != NULL &&
        fread(p, 1, (size_t)n, f) == (size_t)n)
        *len = (size_t)n;
    fclose(f);
    return p;
}

/* Batch lengths: a one-row batch, slices cut at odd places, the rest. */
static const int64_t cuts[] = { 1, 4095, 4097, 7001, 2, 0, 9000 };

/* Writes rows 0..rows of the data set in the cuts' batches (then the
 * rest) with threads threads; copy_from: row-group copy of that file
 * after the first batches. */
static int write_set(zb_io *io, zb_ctx *ctx, const char *path,
                     const pq_writer_opts *base, unsigned threads,
                     int64_t rows, const char *copy_from,
                     pq_write_result *res)
{
    pq_writer_opts o = *base;
    dataset d;
    struct ArrowArray b;
    pq_writer *w = NULL;
    int64_t at = 0;
    size_t c = 0;
    int rc;

    make_dataset(&d);
    o.threads = threads;
    if ((rc = pq_writer_open(&w, io, ctx, path, &d.root, &o)) < 0)
        return rc;
    while (at < rows) {
        int64_t len = c < sizeof cuts / sizeof *cuts ? cuts[c++] : rows - at;
        if (len > rows - at)
            len = rows - at;
        batch_of(&b, &d, at, len);
        if ((rc = pq_writer_write(w, ctx, &b)) < 0) {
            pq_writer_abort(w);
            return rc;
        }
        at += len;
        if (copy_from && c == 3) {
            pq_reader *r = NULL;
            if ((rc = pq_reader_open(&r, io, ctx, copy_from, NULL)) < 0 ||
                (rc = pq_writer_copy_row_groups(w, ctx, r)) < 0) {
                pq_reader_free(r);
                pq_writer_abort(w);
                return rc;
            }
            pq_reader_free(r);
        }
    }
    return pq_writer_close(w, ctx, res);
}

/* Reads the file back: its rows. */
static uint64_t rows_in(zb_io *io, zb_ctx *ctx, const char *path)
{
    pq_reader *r = NULL;
    struct ArrowArray b;
    uint64_t rows = 0;
    int rc;

    ZBT_OK_CTX(pq_reader_open(&r, io, ctx, path, NULL), ctx);
    while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
        rows += (uint64_t)b.length;
        b.release(&b);
    }
    ZBT_OK_CTX(rc, ctx);
    pq_reader_free(r);
    return rows;
}

/*
 * Writes the set with 1..4 threads and checks the files and results are
 * the same; returns the one-thread file's row groups.
 */
static size_t same_for_all_threads(zb_io *io, zb_ctx *ctx, const char *tag,
                                   const pq_writer_opts *o, int64_t rows,
                                   const char *copy_from)
{
    char path[4200];
    uint8_t *first = NULL;
    size_t first_len = 0, groups = 0;
    uint64_t file_bytes = 0;
    unsigned t;

    for (t = 1; t <= 4; t++) {
        pq_write_result res;
        uint8_t *p;
        size_t len;
        snprintf(path, sizeof path, "%s/%s-t%u.parquet", zbt_tmpdir(), tag,
                 t);
        ZBT_OK_CTX(write_set(io, ctx, path, o, t, rows, copy_from, &res), ctx);
        p = slurp(path, &len);
        ZBT_CHECK(p != NULL && len == res.file_bytes);
        if (t == 1) {
            first = p;
            first_len = len;
            groups = res.row_groups;
            file_bytes = res.file_bytes;
            ZBT_EQ_U64(rows_in(io, ctx, path),
                       (uint64_t)rows + (copy_from ? (uint64_t)N : 0));
        } else {
            if (len != first_len || memcmp(p, first, len) != 0)
                zbt__fail(__FILE__, __LINE__, "%s: %u threads wrote other "
                          "bytes than one (%zu, %zu bytes)", tag, t, len,
                          first_len);
            ZBT_EQ_U64(res.row_groups, groups);
            ZBT_EQ_U64(res.file_bytes, file_bytes);
            free(p);
        }
        pq_write_result_free(&res);
    }
    free(first);
    return groups;
}

static void test_parquet_writer_threads__same_bytes(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    {   /* small pages and row groups: many of both */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.page_bytes = 3000;
        o.row_group_bytes = 120000;
        ZBT_CHECK(same_for_all_threads(io, &ctx, "small", &o, N, NULL) > 3);
    }
    {   /* v2 pages, the page index, a dictionary given up early */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.page_v2 = 1;
        o.page_index = 1;
        o.page_bytes = 5000;
        o.dict_bytes = 700;
        o.row_group_bytes = 300000;
        ZBT_CHECK(same_for_all_threads(io, &ctx, "v2", &o, N, NULL) > 1);
    }
    {   /* no dictionary, default sizes: one row group */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.dictionary = 0;
        ZBT_EQ_U64(same_for_all_threads(io, &ctx, "plain", &o, N, NULL), 1);
    }
    {   /* an empty file; a single one-row batch */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        ZBT_EQ_U64(same_for_all_threads(io, &ctx, "empty", &o, 0, NULL), 0);
        ZBT_EQ_U64(same_for_all_threads(io, &ctx, "one", &o, 1, NULL), 1);
    }
    zb_io_free(io);
}

static void test_parquet_writer_threads__every_codec(void)
{
    static const int codecs[] = { PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY,
                                  PQ_CODEC_GZIP, PQ_CODEC_BROTLI,
                                  PQ_CODEC_LZ4, PQ_CODEC_ZSTD,
                                  PQ_CODEC_LZ4_RAW, PQ_CODEC_LZO };
    zb_io *io = NULL;
    zb_ctx ctx;
    size_t c, tried = 0;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        char tag[32];
        int alg = pq_codec_algorithm(codecs[c]);
        if (alg < 0 || zb_codec_compress_bound(alg, 1) == 0)
            continue;   /* not written by this build (LZO) */
        o.codec = codecs[c];
        o.codec_level = 1;   /* brotli's default is slow */
        o.page_bytes = 2000;
        o.row_group_bytes = 60000;
        snprintf(tag, sizeof tag, "codec%d", codecs[c]);
        /* a part of the set: seven codecs times four runs */
        ZBT_CHECK(same_for_all_threads(io, &ctx, tag, &o, N / 4, NULL) > 1);
        tried++;
    }
    ZBT_CHECK(tried >= 6);
    zb_io_free(io);
}

/* Row groups copied into a writer with threads, between written ones. */
static void test_parquet_writer_threads__row_group_copy(void)
{
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;
    char src[4200];
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    o.page_bytes = 4000;
    o.row_group_bytes = 150000;
    snprintf(src, sizeof src, "%s/copy-src.parquet", zbt_tmpdir());
    ZBT_OK_CTX(write_set(io, &ctx, src, &o, 1, N, NULL, NULL), &ctx);
    ZBT_CHECK(same_for_all_threads(io, &ctx, "copied", &o, N, src) > 2);
    zb_io_free(io);
}

/* ---- one dominant string column (a payload of 100-300 bytes) ---- */

/* id int64, payload string (nullable, most of the bytes), cat string (a
 * few values): rows of the given payload lengths lo..hi. */
typedef struct payload_set {
    int64_t rows;
    int64_t *id;
    int32_t *off, *cat_off;
    char *data, *cat;
    uint8_t *valid;
    struct ArrowSchema root, cs[3], *csp[3];
    struct ArrowArray ca[3], *cap[3];
    const void *bufs[3][3];
} payload_set;

static void payload_make(payload_set *p, int64_t rows, size_t lo, size_t hi)
{
    static const char *const fmts[3] = { "l", "u", "u" };
    static const char *const names[3] = { "id", "payload", "cat" };
    static const char *const words[8] = { "alpha ", "bravo ", "charlie ",
                                          "delta ", "echo ", "foxtrot ",
                                          "golf ", "hotel " };
    unsigned seed = 5;
    size_t at = 0, cat = 0;
    int64_t i;
    int k;

    memset(p, 0, sizeof *p);
    p->rows = rows;
    p->id = malloc((size_t)rows * 8);
    p->off = malloc(((size_t)rows + 1) * 4);
    p->cat_off = malloc(((size_t)rows + 1) * 4);
    p->data = malloc((size_t)rows * hi + 16);
    p->cat = malloc((size_t)rows * 4);
    p->valid = calloc((size_t)rows / 8 + 1, 1);
    ZBT_CHECK(p->id && p->off && p->cat_off && p->data && p->cat &&
              p->valid);
    for (i = 0; i < rows; i++) {
        size_t len = lo + (size_t)rand_r(&seed) % (hi - lo + 1), n = 0;
        p->id[i] = i * 3 + rand_r(&seed) % 3;
        p->off[i] = (int32_t)at;
        if (i % 23) {
            set_bit(p->valid, (size_t)i);
            while (n < len) {   /* words, then digits: compressible */
                const char *wd = words[rand_r(&seed) % 8];
                size_t wl = strlen(wd) < len - n ? strlen(wd) : len - n;
                memcpy(p->data + at + n, wd, wl);
                n += wl;
                if (n < len)
                    p->data[at + n++] = (char)('0' + rand_r(&seed) % 10);
            }
            at += len;
        }
        p->cat_off[i] = (int32_t)cat;
        cat += (size_t)snprintf(p->cat + cat, 4, "c%d", (int)(i % 7));
    }
    p->off[rows] = (int32_t)at;
    p->cat_off[rows] = (int32_t)cat;
    schema_field(&p->root, "+s", "", 0);
    p->root.n_children = 3;
    p->root.children = p->csp;
    p->bufs[0][1] = p->id;
    p->bufs[1][0] = p->valid;
    p->bufs[1][1] = p->off;
    p->bufs[1][2] = p->data;
    p->bufs[2][1] = p->cat_off;
    p->bufs[2][2] = p->cat;
    for (k = 0; k < 3; k++) {
        schema_field(&p->cs[k], fmts[k], names[k], k == 1 ? 2 : 0);
        p->csp[k] = &p->cs[k];
        array_of(&p->ca[k], rows, k == 1 ? -1 : 0, k == 0 ? 2 : 3,
                 p->bufs[k]);
        p->cap[k] = &p->ca[k];
    }
}

static void payload_free(payload_set *p)
{
    free(p->id);
    free(p->off);
    free(p->cat_off);
    free(p->data);
    free(p->cat);
    free(p->valid);
}

/* Writes the set in batches of 1, 5000, 20000 rows, then the rest;
 * *bytes_after: pq_writer_bytes after each batch (the caller's file-roll
 * figure), which must not depend on the threads either. */
static int payload_write(zb_io *io, zb_ctx *ctx, const char *path,
                         payload_set *p, const pq_writer_opts *base,
                         unsigned threads, uint64_t bytes_after[4],
                         pq_write_result *res)
{
    static const int64_t lens[3] = { 1, 5000, 20000 };
    static const void *rbufs[1] = { NULL };
    pq_writer_opts o = *base;
    struct ArrowArray b;
    pq_writer *w = NULL;
    int64_t at = 0;
    size_t c = 0;
    int rc;

    o.threads = threads;
    if ((rc = pq_writer_open(&w, io, ctx, path, &p->root, &o)) < 0)
        return rc;
    while (at < p->rows) {
        int64_t len = c < 3 ? lens[c] : p->rows - at;
        if (len > p->rows - at)
            len = p->rows - at;
        array_of(&b, len, 0, 1, rbufs);
        b.offset = at;
        b.n_children = 3;
        b.children = p->cap;
        if ((rc = pq_writer_write(w, ctx, &b)) < 0) {
            pq_writer_abort(w);
            return rc;
        }
        bytes_after[c < 3 ? c : 3] = pq_writer_bytes(w);
        at += len;
        c++;
    }
    return pq_writer_close(w, ctx, res);
}

/* The payload set with 1..4 threads: the same bytes, row groups and
 * pq_writer_bytes after each batch; returns the row groups. */
static size_t payload_same(zb_io *io, zb_ctx *ctx, const char *tag,
                           payload_set *p, const pq_writer_opts *o)
{
    char path[4200];
    uint8_t *first = NULL;
    size_t first_len = 0, groups = 0;
    uint64_t first_bytes[4] = { 0 };
    unsigned t;

    for (t = 1; t <= 4; t++) {
        uint64_t bytes[4] = { 0 };
        pq_write_result res;
        uint8_t *f;
        size_t len;
        snprintf(path, sizeof path, "%s/%s-t%u.parquet", zbt_tmpdir(), tag,
                 t);
        ZBT_OK_CTX(payload_write(io, ctx, path, p, o, t, bytes, &res), ctx);
        f = slurp(path, &len);
        ZBT_CHECK(f != NULL && len == res.file_bytes);
        if (t == 1) {
            first = f;
            first_len = len;
            groups = res.row_groups;
            memcpy(first_bytes, bytes, sizeof bytes);
            ZBT_EQ_U64(rows_in(io, ctx, path), (uint64_t)p->rows);
        } else {
            if (len != first_len || memcmp(f, first, len) != 0)
                zbt__fail(__FILE__, __LINE__, "%s: %u threads wrote other "
                          "bytes than one (%zu, %zu bytes)", tag, t, len,
                          first_len);
            ZBT_EQ_U64(res.row_groups, groups);
            ZBT_CHECK(memcmp(bytes, first_bytes, sizeof bytes) == 0);
            free(f);
        }
        pq_write_result_free(&res);
    }
    free(first);
    return groups;
}

/* Large pages of one dominant string column: a leaf's consecutive pages
 * compress at once on the pool's threads, and the file is the same. */
static void test_parquet_writer_threads__dominant_string(void)
{
    payload_set p;
    zb_io *io = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    payload_make(&p, 60000, 100, 300);
    {   /* default pages (1 MiB), the page index, several row groups */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.page_index = 1;
        o.row_group_bytes = 3u << 20;
        ZBT_CHECK(payload_same(io, &ctx, "payload", &p, &o) > 2);
    }
    {   /* v2 pages of 128 KiB, no dictionary, gzip */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.page_v2 = 1;
        o.page_bytes = 128u << 10;
        o.dictionary = 0;
        o.codec = PQ_CODEC_GZIP;
        o.codec_level = 1;
        o.row_group_bytes = 5u << 20;
        ZBT_CHECK(payload_same(io, &ctx, "payload-v2", &p, &o) > 1);
    }
    {   /* one row group: every page pending at once until close */
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        o.page_bytes = 64u << 10;
        ZBT_EQ_U64(payload_same(io, &ctx, "payload-one", &p, &o), 1);
    }
    payload_free(&p);
    zb_io_free(io);
}

/* Values of about 2.5 KB: the pages pending after a slice pass
 * PQ_PENDING_CAP_BYTES (64 MiB) within the lag, and the oldest are
 * settled early, by the same rule with any threads. */
static void test_parquet_writer_threads__pending_cap(void)
{
    payload_set p;
    zb_io *io = NULL;
    zb_ctx ctx;
    pq_writer_opts o = PQ_WRITER_OPTS_INIT;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    /* 9 slices of 4096 rows, about 10 MB each */
    payload_make(&p, 9 * 4096, 2300, 2700);
    o.codec_level = 1;
    o.row_group_bytes = 256u << 20;
    ZBT_EQ_U64(payload_same(io, &ctx, "payload-cap", &p, &o), 1);
    payload_free(&p);
    zb_io_free(io);
}

/* A bad value on a thread: one error, the first leaf's as with one
 * thread; the writer is freed whole and no file appears. */
static void test_parquet_writer_threads__error_reported_once(void)
{
    char path[4200], first[ZB_ERR_MSG_SIZE];
    zb_io *io = NULL;
    zb_ctx ctx;
    unsigned t;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    first[0] = '\0';
    for (t = 1; t <= 4; t++) {
        pq_writer_opts o = PQ_WRITER_OPTS_INIT;
        dataset d;
        struct ArrowArray b;
        pq_writer *w = NULL;
        int rc = ZB_OK;
        int64_t at;

        make_dataset(&d);
        /* "hi" (leaf 8) and the struct's "y" both decrease at row 10000. */
        memcpy(d.bad_off, d_hi_off, sizeof d.bad_off);
        d.bad_off[10000] = d.bad_off[10001] + 1;
        d.bufs[8][1] = d.bad_off;
        d.ybufs[1] = d.bad_off;
        d.ybufs[2] = d_hi;
        o.threads = t;
        o.page_bytes = 3000;
        snprintf(path, sizeof path, "%s/bad-t%u.parquet", zbt_tmpdir(), t);
        ZBT_OK_CTX(pq_writer_open(&w, io, &ctx, path, &d.root, &o), &ctx);
        for (at = 0; at < N && rc == ZB_OK; at += 6000) {
            batch_of(&b, &d, at, 6000);
            rc = pq_writer_write(w, &ctx, &b);
        }
        ZBT_EQ_INT(rc, ZB_EINVAL);
        /* "<path>: column hi: decreasing offsets", prefixed once */
        ZBT_CONTAINS(ctx.err.msg, "column hi: decreasing offsets");
        ZBT_CHECK(strstr(ctx.err.msg, "column y") == NULL);
        ZBT_CHECK(strstr(ctx.err.msg, path) == ctx.err.msg);
        ZBT_CHECK(strstr(ctx.err.msg + strlen(path), path) == NULL);
        if (t == 1)
            snprintf(first, sizeof first, "%s", ctx.err.msg + strlen(path));
        else
            ZBT_EQ_STR(ctx.err.msg + strlen(path), first);
        pq_writer_abort(w);
        ZBT_CHECK(access(path, F_OK) != 0);
        zb_err_clear(&ctx.err);
    }
    zb_io_free(io);
}

static const zbt_case test_parquet_writer_threads[] = {
    ZBT_CASE(test_parquet_writer_threads__same_bytes),
    ZBT_CASE(test_parquet_writer_threads__every_codec),
    ZBT_CASE(test_parquet_writer_threads__row_group_copy),
    ZBT_CASE(test_parquet_writer_threads__dominant_string),
    ZBT_CASE(test_parquet_writer_threads__pending_cap),
    ZBT_CASE(test_parquet_writer_threads__error_reported_once),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_writer_threads, NULL };
    return zbt_main(argc, argv, suites);
}

/*
 * tests/unit/exec/sort_spill.c - Arrow batches through spill files and
 * the row gather: a batch with a column of every supported type (nulls
 * everywhere, nested structs, lists, maps, fixed-size lists), written
 * whole, sliced (batch offset, and children with offsets of their own)
 * and read back must equal the original row by row (sort_util's
 * independent comparison); truncated and corrupted frames give
 * ZB_ECORRUPT, never a crash; allocation failures return ZB_ENOMEM and
 * leak nothing.
 */
#include <string.h>

#include "zbtest.h"
#include "sort_util.h"
#include "exec/arrow/arrow_spill.h"
#include "exec/spill.h"
#include "util/alloc.h"

#define ROWS 257

static const char *const fixed_formats[] = {
    "c", "C", "s", "S", "i", "I", "l", "L", "e", "f", "g", "d:38,10",
    "d:9,2,128", "tdD", "tdm", "tts", "ttm", "ttu", "ttn", "tss:", "tsm:",
    "tsu:UTC", "tsn:Europe/Paris", "tDs", "tDu", "tiM", "tiD", "tin", "w:5",
};

static int width_of(const char *f)
{
    int64_t w;
    zb_arrow_kind k;

    zb_arrow_kind_of(&k, &w, f);
    return (int)w;
}

static void rand_valid(uint8_t *v, int64_t n, uint64_t *rs)
{
    int64_t i;

    for (i = 0; i < n; i++)
        v[i] = (uint8_t)(su_rand(rs) % 4 != 0);
}

static void rand_strings(struct ArrowArray *a, int64_t n, uint64_t *rs,
                         int wide, int with_nulls)
{
    static char pool[64];
    const char *p[4 * ROWS];
    size_t l[4 * ROWS];
    uint8_t v[4 * ROWS];
    int64_t i;

    for (i = 0; i < 64; i++)
        pool[i] = (char)(i * 7);
    for (i = 0; i < n; i++) {
        uint64_t r = su_rand(rs);
        p[i] = pool + r % 32;
        l[i] = (size_t)(r >> 8) % 30;
    }
    rand_valid(v, n, rs);
    su_binary(a, n, p, l, with_nulls ? v : NULL, wide);
}

/*
 * The test batch. Layout of children (by index):
 *   0..28  fixed formats above
 *   29 b, 30 u, 31 z, 32 U, 33 Z, 34 n
 *   35 +s{i, u}          36 +l{i}          37 +L{u}
 *   38 +w:3{s}           39 +m{+s{u, i}}   40 +s{+s{l}} (sliced kids)
 */
#define NCOLS 41

static void make_schema(struct ArrowSchema *s)
{
    size_t i;

    su_schema(s, "+s", NULL, NCOLS);
    for (i = 0; i < 29; i++)
        su_schema(s->children[i], fixed_formats[i], fixed_formats[i], 0);
    su_schema(s->children[29], "b", "b", 0);
    su_schema(s->children[30], "u", "u", 0);
    su_schema(s->children[31], "z", "z", 0);
    su_schema(s->children[32], "U", "U", 0);
    su_schema(s->children[33], "Z", "Z", 0);
    su_schema(s->children[34], "n", "n", 0);
    su_schema(s->children[35], "+s", "st", 2);
    su_schema(s->children[35]->children[0], "i", "a", 0);
    su_schema(s->children[35]->children[1], "u", "b", 0);
    su_schema(s->children[36], "+l", "list", 1);
    su_schema(s->children[36]->children[0], "i", "item", 0);
    su_schema(s->children[37], "+L", "biglist", 1);
    su_schema(s->children[37]->children[0], "u", "item", 0);
    su_schema(s->children[38], "+w:3", "fixlist", 1);
    su_schema(s->children[38]->children[0], "s", "item", 0);
    su_schema(s->children[39], "+m", "map", 1);
    su_schema(s->children[39]->children[0], "+s", "entries", 2);
    su_schema(s->children[39]->children[0]->children[0], "u", "key", 0);
    su_schema(s->children[39]->children[0]->children[1], "i", "value", 0);
    su_schema(s->children[40], "+s", "deep", 1);
    su_schema(s->children[40]->children[0], "+s", "mid", 1);
    su_schema(s->children[40]->children[0]->children[0], "l", "x", 0);
}

static void make_list(struct ArrowArray *out, int64_t n, uint64_t *rs,
                      struct ArrowArray *child_made_of_total, int wide,
                      int64_t *total_out, uint8_t *valid)
{
    int64_t offs[4 * ROWS + 1], i;

    offs[0] = 0;
    for (i = 0; i < n; i++)
        offs[i + 1] = offs[i] + (int64_t)(su_rand(rs) % 4);
    *total_out = offs[n];
    if (child_made_of_total == NULL)
        return;
    su_list(out, n, offs, child_made_of_total, valid, wide);
}

static void make_batch(struct ArrowArray *a, int64_t n, uint64_t seed)
{
    struct ArrowArray cols[NCOLS], kids[2], item;
    uint8_t valid[4 * ROWS], raw[4 * ROWS * 64];
    uint64_t rs = seed, rs_list;
    int64_t i, total;
    size_t c;

    for (c = 0; c < 29; c++) {
        int w = width_of(fixed_formats[c]);
        for (i = 0; i < n * w; i++)
            raw[i] = (uint8_t)su_rand(&rs);
        rand_valid(valid, n, &rs);
        su_fixed(&cols[c], n, w, raw, c % 3 == 2 ? NULL : valid);
    }
    for (i = 0; i < n; i++)
        raw[i] = (uint8_t)(su_rand(&rs) & 1);
    rand_valid(valid, n, &rs);
    su_bool(&cols[29], n, raw, valid);
    rand_strings(&cols[30], n, &rs, 0, 1);
    rand_strings(&cols[31], n, &rs, 0, 0);
    rand_strings(&cols[32], n, &rs, 1, 1);
    rand_strings(&cols[33], n, &rs, 1, 1);
    su_null(&cols[34], n);
    /* struct */
    for (i = 0; i < n * 4; i++)
        raw[i] = (uint8_t)su_rand(&rs);
    rand_valid(valid, n, &rs);
    su_fixed(&kids[0], n, 4, raw, valid);
    rand_strings(&kids[1], n, &rs, 0, 1);
    rand_valid(valid, n, &rs);
    su_struct(&cols[35], n, 2, kids, valid);
    /* list<int> */
    rs_list = rs;
    make_list(NULL, n, &rs, NULL, 0, &total, NULL);
    for (i = 0; i < total * 4; i++)
        raw[i] = (uint8_t)su_rand(&rs);
    rand_valid(valid, total, &rs);
    su_fixed(&item, total, 4, raw, valid);
    rand_valid(valid, n, &rs);
    make_list(&cols[36], n, &rs_list, &item, 0, &total, valid);
    /* large list<string> */
    rs_list = rs;
    make_list(NULL, n, &rs, NULL, 1, &total, NULL);
    rand_strings(&item, total, &rs, 0, 1);
    rand_valid(valid, n, &rs);
    make_list(&cols[37], n, &rs_list, &item, 1, &total, valid);
    /* fixed-size list<short> of 3 */
    for (i = 0; i < n * 3 * 2; i++)
        raw[i] = (uint8_t)su_rand(&rs);
    rand_valid(valid, n * 3, &rs);
    su_fixed(&item, n * 3, 2, raw, valid);
    rand_valid(valid, n, &rs);
    su_fixlist(&cols[38], n, &item, valid);
    /* map<string, int> */
    rs_list = rs;
    make_list(NULL, n, &rs, NULL, 0, &total, NULL);
    rand_strings(&kids[0], total, &rs, 0, 0);
    for (i = 0; i < total * 4; i++)
        raw[i] = (uint8_t)su_rand(&rs);
    rand_valid(valid, total, &rs);
    su_fixed(&kids[1], total, 4, raw, valid);
    su_struct(&item, total, 2, kids, NULL);
    rand_valid(valid, n, &rs);
    make_list(&cols[39], n, &rs_list, &item, 0, &total, valid);
    /* struct<struct<long>> whose children start further in */
    for (i = 0; i < (n + 5) * 8; i++)
        raw[i] = (uint8_t)su_rand(&rs);
    rand_valid(valid, n + 5, &rs);
    su_fixed(&item, n + 5, 8, raw, valid);
    item.offset = 3;
    item.length = n + 2;
    rand_valid(valid, n + 2, &rs);
    su_struct(&kids[0], n + 2, 1, &item, valid);
    kids[0].offset = 2;
    kids[0].length = n;
    rand_valid(valid, n, &rs);
    su_struct(&cols[40], n, 1, kids, valid);
    su_struct(a, n, NCOLS, cols, NULL);
}

/*
 * Two frames of a (packed: LZ4-compressed, through one zb_arrow_pack)
 * read back equal to a; the second read shares a pack when packed.
 */
static void roundtrip_as(const struct ArrowSchema *s,
                         const struct ArrowArray *a, int packed)
{
    zb_spill *sp = NULL;
    zb_arrow_pack *pk = NULL, *rpk = NULL;
    struct ArrowArray back;
    zb_arrow_frame fr, fr2;
    zb_ctx ctx;
    int64_t d, c;

    zb_ctx_init(&ctx);
    zb_spill_set_pack(packed ? ZB_SPILL_PACK_ALWAYS : ZB_SPILL_PACK_NEVER);
    ZBT_OK_CTX(zb_arrow_check(&ctx, s, a), &ctx);
    ZBT_OK_CTX(zb_spill_open(&sp, &ctx, "test", 0), &ctx);
    ZBT_OK_CTX(zb_arrow_pack_new(&pk, &ctx), &ctx);
    ZBT_OK_CTX(zb_arrow_pack_new(&rpk, &ctx), &ctx);
    ZBT_OK_CTX(zb_arrow_spill_write(sp, &ctx, s, a, pk, &fr), &ctx);
    ZBT_OK_CTX(zb_arrow_spill_write(sp, &ctx, s, a, pk, &fr2), &ctx);
    ZBT_EQ_INT(fr.packed, packed);
    ZBT_EQ_U64(fr2.bytes, fr.bytes);          /* same input, same frame */
    ZBT_EQ_U64(zb_spill_size(sp), 2 * fr.bytes);
    ZBT_EQ_U64(fr.raw, 16 + zb_arrow_array_bytes(s, a));
    if (!packed)
        ZBT_EQ_U64(fr.bytes, fr.raw);
    ZBT_OK_CTX(zb_spill_rewind(sp, &ctx), &ctx);
    for (c = 0; c < 2; c++) {
        ZBT_OK_CTX(zb_arrow_spill_read(&back, sp, &ctx, s,
                                       c ? rpk : NULL), &ctx);
        ZBT_CHECK(back.release != NULL);
        ZBT_EQ_INT(back.offset, 0);
        d = su_first_diff(s, a, &back);
        if (d >= 0) {
            int64_t k;
            for (k = 0; k < s->n_children; k++)
                if (!su_row_equal(s->children[k], a->children[k],
                                  a->offset + d, back.children[k], d))
                    zbt__fail(__FILE__, __LINE__, "row %lld differs in "
                              "column %s", (long long)d,
                              s->children[k]->name);
        }
        zb_arrow_array_release(&back);
    }
    ZBT_OK_CTX(zb_arrow_spill_read(&back, sp, &ctx, s, NULL), &ctx);
    ZBT_CHECK(back.release == NULL);          /* end of the file */
    zb_spill_close(sp);
    zb_arrow_pack_free(pk);
    zb_arrow_pack_free(rpk);
    zb_spill_set_pack(ZB_SPILL_PACK_AUTO);
}

static void roundtrip(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    roundtrip_as(s, a, 0);
    roundtrip_as(s, a, 1);
}

static void test_exec_sort_spill__every_type(void)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    uint64_t live = zb_alloc_live_bytes();

    make_schema(&s);
    make_batch(&a, ROWS, 1);
    roundtrip(&s, &a);
    /* slices: every start bit within a byte, and an empty one */
    a.offset = 5;
    a.length = ROWS - 13;
    roundtrip(&s, &a);
    a.offset = 10;
    a.length = 1;
    roundtrip(&s, &a);
    a.offset = 3;
    a.length = 0;
    roundtrip(&s, &a);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
}

/* Rows gathered from three batches equal the rows they came from. */
static void test_exec_sort_spill__take(void)
{
    struct ArrowSchema s;
    struct ArrowArray b[3], out;
    const struct ArrowArray *srcs[4];
    zb_arrow_rowref refs[500];
    uint64_t rs = 77;
    size_t i;

    make_schema(&s);
    for (i = 0; i < 3; i++)
        make_batch(&b[i], ROWS, 10 + i);
    b[1].offset = 7;
    b[1].length = ROWS - 7;
    srcs[0] = &b[0];
    srcs[1] = &b[1];
    srcs[2] = NULL;          /* a source no row names */
    srcs[3] = &b[2];
    for (i = 0; i < 500; i++) {
        uint32_t src = (uint32_t)(su_rand(&rs) % 3);
        refs[i].src = src == 2 ? 3 : src;
        refs[i].row = (uint32_t)(su_rand(&rs) %
                                 (uint64_t)srcs[refs[i].src]->length);
    }
    ZBT_EQ_INT(zb_arrow_take(&out, &s, srcs, refs, 500), ZB_OK);
    ZBT_EQ_INT(out.length, 500);
    for (i = 0; i < 500; i++)
        ZBT_CHECK(su_row_equal(&s, srcs[refs[i].src], refs[i].row, &out,
                               (int64_t)i));
    roundtrip(&s, &out);
    zb_arrow_array_release(&out);
    for (i = 0; i < 3; i++)
        zb_arrow_array_release(&b[i]);
    zb_arrow_schema_release(&s);
}

static void frame_of(uint8_t **out, size_t *len, const struct ArrowSchema *s,
                     const struct ArrowArray *a, int packed)
{
    zb_spill *sp = NULL;
    zb_arrow_pack *pk = NULL;
    zb_arrow_frame fr;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    zb_spill_set_pack(packed ? ZB_SPILL_PACK_ALWAYS : ZB_SPILL_PACK_NEVER);
    ZBT_OK_CTX(zb_spill_open(&sp, &ctx, "test", 0), &ctx);
    ZBT_OK_CTX(zb_arrow_pack_new(&pk, &ctx), &ctx);
    ZBT_OK_CTX(zb_arrow_spill_write(sp, &ctx, s, a, pk, &fr), &ctx);
    ZBT_EQ_INT(fr.packed, packed);
    ZBT_OK_CTX(zb_spill_flush(sp, &ctx), &ctx);
    *out = zb_malloc((size_t)fr.bytes);
    ZBT_OK_CTX(zb_spill_pread(sp, &ctx, *out, (size_t)fr.bytes, 0), &ctx);
    *len = (size_t)fr.bytes;
    zb_spill_close(sp);
    zb_arrow_pack_free(pk);
    zb_spill_set_pack(ZB_SPILL_PACK_AUTO);
}

/*
 * Truncations (with the header's length fixed up, so the node decoder
 * meets the cut) and byte flips: ZB_ECORRUPT or a valid array, no crash
 * (ASan watches), nothing leaked.
 */
static void corrupt_frames(int packed)
{
    struct ArrowSchema s;
    struct ArrowArray a, back;
    uint8_t *frame, *bad;
    size_t len, cut, i;
    uint64_t live, rs = 5;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    make_schema(&s);
    make_batch(&a, 40, 3);
    frame_of(&frame, &len, &s, &a, packed);
    bad = zb_malloc(len);
    live = zb_alloc_live_bytes();
    for (cut = 0; cut < len; cut += (cut < 400 ? 1 : 37)) {
        uint64_t payload = cut >= 16 ? cut - 16 : 0;
        memcpy(bad, frame, cut);
        if (cut >= 16)
            memcpy(bad + 8, &payload, 8);
        ZBT_RC(zb_arrow_decode(&back, &ctx, &s, bad, cut, NULL), ZB_ECORRUPT);
        ZBT_CHECK(back.release == NULL);
    }
    for (i = 0; i < 3000; i++) {
        size_t at = (size_t)(su_rand(&rs) % len);
        memcpy(bad, frame, len);
        bad[at] ^= (uint8_t)(1u << (su_rand(&rs) % 8));
        rc = zb_arrow_decode(&back, &ctx, &s, bad, len, NULL);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ECORRUPT);
        zb_arrow_array_release(&back);
    }
    ZBT_EQ_U64(zb_alloc_live_bytes(), live);
    ZBT_OK_CTX(zb_arrow_decode(&back, &ctx, &s, frame, len, NULL), &ctx);
    ZBT_EQ_INT(su_first_diff(&s, &a, &back), -1);
    zb_arrow_array_release(&back);
    zb_free(bad);
    zb_free(frame);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static void test_exec_sort_spill__corrupt(void)
{
    corrupt_frames(0);
}

/* The same for LZ4-compressed frames: the raw size, the LZ4 frame. */
static void test_exec_sort_spill__corrupt_packed(void)
{
    corrupt_frames(1);
}

/* Each allocation of decode and take failing in turn: ZB_ENOMEM, clean. */
static void test_exec_sort_spill__alloc_failures(void)
{
    struct ArrowSchema s;
    struct ArrowArray a, back;
    const struct ArrowArray *srcs[1];
    zb_arrow_rowref refs[30];
    uint8_t *frame;
    size_t len, i;
    uint64_t live, nth, calls;
    zb_ctx ctx;
    int rc, ok = 0;

    zb_ctx_init(&ctx);
    make_schema(&s);
    make_batch(&a, 30, 4);
    srcs[0] = &a;
    for (i = 0; i < 30; i++) {
        refs[i].src = 0;
        refs[i].row = (uint32_t)(29 - i);
    }
    frame_of(&frame, &len, &s, &a, 0);
    live = zb_alloc_live_bytes();
    for (nth = 1; !ok; nth++) {
        zb_alloc__fail_at(nth, 0);
        rc = zb_arrow_decode(&back, &ctx, &s, frame, len, NULL);
        calls = zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        ok = rc == ZB_OK && calls == 0;
        zb_arrow_array_release(&back);
        ZBT_EQ_U64(zb_alloc_live_bytes(), live);
    }
    ZBT_CHECK(nth > 20);
    for (ok = 0, nth = 1; !ok; nth++) {
        zb_alloc__fail_at(nth, 0);
        rc = zb_arrow_take(&back, &s, srcs, refs, 30);
        calls = zb_alloc__fail_at(0, 0);
        ZBT_CHECK(rc == ZB_OK || rc == ZB_ENOMEM);
        ok = rc == ZB_OK && calls == 0;
        if (rc == ZB_OK)
            ZBT_CHECK(su_row_equal(&s, &a, 29, &back, 0));
        zb_arrow_array_release(&back);
        ZBT_EQ_U64(zb_alloc_live_bytes(), live);
    }
    zb_free(frame);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static void test_exec_sort_spill__refusals(void)
{
    struct ArrowSchema s;
    struct ArrowArray a, col;
    int32_t v[2] = { 1, 2 };
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    su_schema(&s, "+s", NULL, 1);
    su_schema(s.children[0], "+ud:0,1", "union", 0);
    su_fixed(&col, 2, 4, v, NULL);
    su_struct(&a, 2, 1, &col, NULL);
    ZBT_RC(zb_arrow_check(&ctx, &s, &a), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "union");
    zb_arrow_schema_release(&s);
    su_schema(&s, "+s", NULL, 1);
    su_schema(s.children[0], "u", "str", 0);     /* 3 buffers, not 2 */
    ZBT_RC(zb_arrow_check(&ctx, &s, &a), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "str");
    zb_arrow_schema_release(&s);
    zb_arrow_array_release(&a);
}

const zbt_case test_exec_sort_spill[] = {
    ZBT_CASE(test_exec_sort_spill__every_type),
    ZBT_CASE(test_exec_sort_spill__take),
    ZBT_CASE(test_exec_sort_spill__corrupt),
    ZBT_CASE(test_exec_sort_spill__corrupt_packed),
    ZBT_CASE(test_exec_sort_spill__alloc_failures),
    ZBT_CASE(test_exec_sort_spill__refusals),
    ZBT_END
};

/*
 * tests/unit/exec/sort_key.c - normalized sort keys and z-order keys
 * against reference comparators written here the plain way: for random
 * values of every type (NaN of both signs and several payloads, -0.0,
 * infinities, nulls, empty strings, strings that are prefixes of others
 * and hold 0x00 and 0xFF bytes), every pair of rows must compare by
 * memcmp of their keys as the reference compares the values, in all four
 * direction x nulls combinations, also through nested and sliced structs
 * and over several columns.
 */
#include <math.h>
#include <string.h>

#include "zbtest.h"
#include "sort_util.h"
#include "exec/sort/sortkey.h"
#include "util/alloc.h"

#define N 300

typedef struct tv {
    int valid;
    int64_t i;
    uint64_t u;
    double d;
    float f;
    __int128 dec;
    char s[8];
    size_t len;
} tv;

typedef enum vk { V_BOOL, V_SINT, V_UINT, V_F16, V_F32, V_F64, V_DEC,
                  V_STR, V_FIX } vk;

typedef struct tcase {
    const char *format;
    vk kind;
    int width;
} tcase;

static const tcase cases[] = {
    { "b", V_BOOL, 1 }, { "c", V_SINT, 1 }, { "s", V_SINT, 2 },
    { "i", V_SINT, 4 }, { "l", V_SINT, 8 }, { "C", V_UINT, 1 },
    { "S", V_UINT, 2 }, { "I", V_UINT, 4 }, { "L", V_UINT, 8 },
    { "e", V_F16, 2 }, { "f", V_F32, 4 }, { "g", V_F64, 8 },
    { "d:38,2", V_DEC, 16 },
    { "tdD", V_SINT, 4 }, { "tsu:UTC", V_SINT, 8 }, { "tsn:", V_SINT, 8 },
    { "ttu", V_SINT, 8 }, { "u", V_STR, 0 }, { "z", V_STR, 0 },
    { "U", V_STR, 0 }, { "w:3", V_FIX, 3 },
};

static double special_double(uint64_t r)
{
    static const uint64_t bits[] = {
        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
        0xfff4000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
        0x8000000000000001ull,
    };
    double d;

    memcpy(&d, &bits[r % 10], 8);
    return d;
}

static void gen(tv *v, const tcase *c, uint64_t *rs)
{
    uint64_t r = su_rand(rs), r2 = su_rand(rs);
    int bits = c->width * 8;

    memset(v, 0, sizeof *v);
    v->valid = (r % 7) != 0;
    switch (c->kind) {
    case V_BOOL:
        v->i = (int64_t)(r2 & 1);
        break;
    case V_SINT:
        v->u = r2 % 4 == 0 ? (r2 >> 8) % 5 : r2 >> 2;   /* many small */
        if (bits < 64)
            v->u &= (1ull << bits) - 1;
        v->i = (bits < 64 && (v->u >> (bits - 1)))
               ? (int64_t)(v->u | ~((1ull << bits) - 1)) : (int64_t)v->u;
        if (r2 % 11 == 0)
            v->i = bits == 64 ? INT64_MIN : -(1ll << (bits - 1));
        break;
    case V_UINT:
        v->u = r2 % 4 == 0 ? (r2 >> 8) % 5 : r2;
        if (bits < 64)
            v->u &= (1ull << bits) - 1;
        break;
    case V_F16:                          /* any bit pattern */
        v->u = (r2 >> 8) & 0xffff;
        if (r2 % 4 == 0)
            v->u = r2 % 8 < 4 ? 0x0000 : 0x8000;      /* +-0 */
        break;
    case V_F32:
        v->f = r2 % 3 == 0 ? (float)special_double(r2 >> 8)
                           : (float)((double)(int64_t)(r2 >> 20) / 1e6 -
                                     (double)(1ll << 40) / 1e6);
        if (r2 % 9 == 0) {               /* a float NaN with a payload */
            uint32_t nb = 0xffc00001u;
            memcpy(&v->f, &nb, 4);
        }
        break;
    case V_F64:
        v->d = r2 % 3 == 0 ? special_double(r2 >> 8)
                           : (double)(int64_t)r2 / 1e9;
        break;
    case V_DEC:
        v->dec = (__int128)(int64_t)r2 *
                 (__int128)(int64_t)(su_rand(rs) >> (r % 60));
        if (r % 5 == 0)
            v->dec = (__int128)(int64_t)(r2 % 7) - 3;
        break;
    case V_STR: {
        static const char alpha[] = { 0, 'a', 'b', (char)0xFF };
        size_t i;
        v->len = (r2 >> 4) % 5;
        for (i = 0; i < v->len; i++)
            v->s[i] = alpha[(r2 >> (8 + 2 * i)) & 3];
        break;
    }
    case V_FIX: {
        static const char alpha[] = { 0, 1, (char)0xFF };
        int i;
        for (i = 0; i < 3; i++)
            v->s[i] = alpha[(r2 >> (8 + 4 * i)) % 3];
        v->len = 3;
        break;
    }
    }
}

static int sgn(int x)
{
    return (x > 0) - (x < 0);
}

static int cmp_float(double a, double b)
{
    int an = isnan(a) != 0, bn = isnan(b) != 0;

    if (an || bn)
        return an - bn;                     /* NaN after everything */
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    return (signbit(b) != 0) - (signbit(a) != 0);   /* -0.0 < 0.0 */
}

/* IEEE half precision to double, from the format's definition. */
static double half_value(uint64_t h)
{
    int sign = (int)(h >> 15) & 1, e = (int)(h >> 10) & 31;
    int m = (int)(h & 1023);
    double v;

    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);
    else
        v = ldexp((double)(1024 + m), e - 25);
    return sign ? -v : v;
}

static int ref_value(const tcase *c, const tv *a, const tv *b)
{
    int r;

    switch (c->kind) {
    case V_BOOL:
    case V_SINT:
        return (a->i > b->i) - (a->i < b->i);
    case V_UINT:
        return (a->u > b->u) - (a->u < b->u);
    case V_F16:
        return cmp_float(half_value(a->u), half_value(b->u));
    case V_F32:
        return cmp_float(a->f, b->f);
    case V_F64:
        return cmp_float(a->d, b->d);
    case V_DEC:
        return (a->dec > b->dec) - (a->dec < b->dec);
    case V_STR:
    case V_FIX:
        r = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        if (r)
            return sgn(r);
        return (a->len > b->len) - (a->len < b->len);
    }
    return 0;
}

static int ref_cmp(const tcase *c, const tv *a, const tv *b, int desc,
                   int nulls_first)
{
    int r;

    if (!a->valid || !b->valid) {
        if (!a->valid && !b->valid)
            return 0;
        return (!a->valid) == (nulls_first != 0) ? -1 : 1;
    }
    r = ref_value(c, a, b);
    return desc ? -r : r;
}

/* Builds an array of the values of column c. */
static void build(struct ArrowArray *a, const tcase *c, const tv *v,
                  int64_t n)
{
    uint8_t valid[N * 2], b[N * 2];
    uint8_t raw[N * 2 * 16];
    const char *strs[N * 2];
    size_t lens[N * 2];
    int64_t i;

    for (i = 0; i < n; i++) {
        valid[i] = (uint8_t)v[i].valid;
        switch (c->kind) {
        case V_BOOL: b[i] = (uint8_t)v[i].i; break;
        case V_SINT:
            memcpy(raw + i * c->width, &v[i].i, (size_t)c->width);
            break;
        case V_UINT:
        case V_F16:
            memcpy(raw + i * c->width, &v[i].u, (size_t)c->width);
            break;
        case V_F32: memcpy(raw + i * 4, &v[i].f, 4); break;
        case V_F64: memcpy(raw + i * 8, &v[i].d, 8); break;
        case V_DEC: memcpy(raw + i * 16, &v[i].dec, 16); break;
        case V_FIX: memcpy(raw + i * 3, v[i].s, 3); break;
        case V_STR: strs[i] = v[i].s; lens[i] = v[i].len; break;
        }
    }
    if (c->kind == V_BOOL)
        su_bool(a, n, b, valid);
    else if (c->kind == V_STR)
        su_binary(a, n, strs, lens, valid, c->format[0] == 'U');
    else
        su_fixed(a, n, c->width, raw, valid);
}

static void check_pairs(const zb_keybuf *kb, size_t base, const tcase *c,
                        const tv *v, int64_t n, int desc, int nf)
{
    int64_t i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            int want = ref_cmp(c, &v[i], &v[j], desc, nf);
            int got = sgn(zb_sortkey_cmp(
                kb->data + kb->offs[base + i],
                kb->offs[base + i + 1] - kb->offs[base + i],
                kb->data + kb->offs[base + j],
                kb->offs[base + j + 1] - kb->offs[base + j]));
            if (want != got)
                zbt__fail(__FILE__, __LINE__,
                          "format %s desc %d nulls_first %d: rows %lld, "
                          "%lld: key order %d, reference %d", c->format,
                          desc, nf, (long long)i, (long long)j, got, want);
        }
}

static void test_exec_sort_key__every_type(void)
{
    uint64_t rs = 42;
    zb_ctx ctx;
    size_t t;
    tv v[N];

    zb_ctx_init(&ctx);
    for (t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        struct ArrowSchema s;
        struct ArrowArray a, col;
        int64_t i;
        int combo;

        for (i = 0; i < N; i++)
            gen(&v[i], &cases[t], &rs);
        su_schema(&s, "+s", NULL, 1);
        su_schema(s.children[0], cases[t].format, "x", 0);
        build(&col, &cases[t], v, N);
        su_struct(&a, N, 1, &col, NULL);
        for (combo = 0; combo < 4; combo++) {
            zb_sort_col sc = { { 0 }, 1, combo & 1, combo >> 1 };
            zb_sortkey_spec spec = { ZB_SORTKEY_LEXICAL, &sc, 1, 0 };
            zb_sortkey *k = NULL;
            zb_keybuf kb = ZB_KEYBUF_INIT;

            ZBT_OK_CTX(zb_sortkey_new(&k, &ctx, &spec, &s), &ctx);
            /* two builds: keys append after what the buffer holds */
            ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &a), &ctx);
            ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &a), &ctx);
            ZBT_EQ_U64(kb.nkeys, 2 * N);
            check_pairs(&kb, N, &cases[t], v, N, combo & 1, combo >> 1);
            zb_keybuf_free(&kb);
            zb_sortkey_free(k);
        }
        zb_arrow_array_release(&a);
        zb_arrow_schema_release(&s);
    }
}

/*
 * A field two structs deep, with nulls at both struct levels and offsets
 * on the batch and on both children: a row is null when any level is.
 */
static void test_exec_sort_key__nested_sliced(void)
{
    static const tcase ci = { "i", V_SINT, 4 };
    uint64_t rs = 7;
    tv v[N + 9], eff[N];
    uint8_t outer_valid[N + 9], inner_valid[N + 9];
    struct ArrowSchema s;
    struct ArrowArray leaf, inner, outer, root;
    zb_ctx ctx;
    int64_t i, n = N;
    int combo;

    zb_ctx_init(&ctx);
    for (i = 0; i < N + 9; i++) {
        gen(&v[i], &ci, &rs);
        outer_valid[i] = (uint8_t)(su_rand(&rs) % 5 != 0);
        inner_valid[i] = (uint8_t)(su_rand(&rs) % 5 != 0);
    }
    su_schema(&s, "+s", NULL, 2);
    su_schema(s.children[0], "l", "pad", 0);
    su_schema(s.children[1], "+s", "outer", 1);
    su_schema(s.children[1]->children[0], "+s", "inner", 1);
    su_schema(s.children[1]->children[0]->children[0], "i", "x", 0);
    /* leaf rows start 2 later than inner's, inner 3 later than outer's,
       outer 4 later than root's; root itself starts at offset 1 */
    build(&leaf, &ci, v, N + 9);
    leaf.offset = 2;
    leaf.length = N + 7;
    su_struct(&inner, N + 7, 1, &leaf, inner_valid);
    inner.offset = 3;
    inner.length = N + 4;
    su_struct(&outer, N + 4, 1, &inner, outer_valid);
    outer.offset = 4;
    outer.length = N;
    {
        struct ArrowArray kids[2];
        int64_t pad[N + 1];
        memset(pad, 0, sizeof pad);
        su_fixed(&kids[0], N + 1, 8, pad, NULL);
        kids[1] = outer;
        su_struct(&root, N + 1, 2, kids, NULL);
    }
    root.offset = 1;
    root.length = N - 4;
    n = N - 4;
    for (i = 0; i < n; i++) {
        int64_t po = 1 + i + 4, pi = po + 3, pl = pi + 2;
        /* outer's validity bit is indexed by its own position po */
        eff[i] = v[pl];
        eff[i].valid = outer_valid[po] && inner_valid[pi] && v[pl].valid;
    }
    for (combo = 0; combo < 4; combo++) {
        zb_sort_col sc = { { 1, 0, 0 }, 3, combo & 1, combo >> 1 };
        zb_sortkey_spec spec = { ZB_SORTKEY_LEXICAL, &sc, 1, 0 };
        zb_sortkey *k = NULL;
        zb_keybuf kb = ZB_KEYBUF_INIT;

        ZBT_OK_CTX(zb_sortkey_new(&k, &ctx, &spec, &s), &ctx);
        ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &root), &ctx);
        check_pairs(&kb, 0, &ci, eff, n, combo & 1, combo >> 1);
        zb_keybuf_free(&kb);
        zb_sortkey_free(k);
    }
    zb_arrow_array_release(&root);
    zb_arrow_schema_release(&s);
}

/* Three columns, few distinct values each, so later columns decide. */
static void test_exec_sort_key__several_columns(void)
{
    static const tcase tc[3] = { { "u", V_STR, 0 }, { "i", V_SINT, 4 },
                                 { "g", V_F64, 8 } };
    zb_sort_col sc[3] = { { { 0 }, 1, 0, 0 }, { { 1 }, 1, 1, 1 },
                          { { 2 }, 1, 0, 1 } };
    zb_sortkey_spec spec = { ZB_SORTKEY_LEXICAL, sc, 3, 0 };
    tv v[3][N];
    struct ArrowSchema s;
    struct ArrowArray cols[3], a;
    zb_sortkey *k = NULL;
    zb_keybuf kb = ZB_KEYBUF_INIT;
    zb_ctx ctx;
    uint64_t rs = 99;
    int64_t i, j;
    int c;

    zb_ctx_init(&ctx);
    su_schema(&s, "+s", NULL, 3);
    for (c = 0; c < 3; c++) {
        su_schema(s.children[c], tc[c].format, "c", 0);
        for (i = 0; i < N; i++) {
            gen(&v[c][i], &tc[c], &rs);
            if (c == 1)
                v[c][i].i %= 3;
            if (c == 0)
                v[c][i].len %= 2;
        }
        build(&cols[c], &tc[c], v[c], N);
    }
    su_struct(&a, N, 3, cols, NULL);
    ZBT_OK_CTX(zb_sortkey_new(&k, &ctx, &spec, &s), &ctx);
    ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &a), &ctx);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            int want = 0, got;
            for (c = 0; c < 3 && want == 0; c++)
                want = ref_cmp(&tc[c], &v[c][i], &v[c][j], sc[c].descending,
                               sc[c].nulls_first);
            got = sgn(zb_sortkey_cmp(kb.data + kb.offs[i],
                                     kb.offs[i + 1] - kb.offs[i],
                                     kb.data + kb.offs[j],
                                     kb.offs[j + 1] - kb.offs[j]));
            ZBT_EQ_INT(got, want);
        }
    zb_keybuf_free(&kb);
    zb_sortkey_free(k);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static void test_exec_sort_key__refusals(void)
{
    struct ArrowSchema s;
    zb_sort_col sc[2] = { { { 0 }, 1, 0, 0 }, { { 5 }, 1, 0, 0 } };
    zb_sortkey_spec spec = { ZB_SORTKEY_LEXICAL, sc, 1, 0 };
    zb_sortkey *k = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    su_schema(&s, "+s", NULL, 1);
    su_schema(s.children[0], "+l", "list", 1);
    su_schema(s.children[0]->children[0], "i", "item", 0);
    ZBT_RC(zb_sortkey_new(&k, &ctx, &spec, &s), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "list");
    spec.cols = &sc[1];
    ZBT_RC(zb_sortkey_new(&k, &ctx, &spec, &s), ZB_EINVAL);
    spec.mode = ZB_SORTKEY_ZORDER;
    spec.cols = sc;
    spec.ncols = 2;
    spec.zorder_bits = 32;           /* 2 * 32 > 62 */
    ZBT_RC(zb_sortkey_new(&k, &ctx, &spec, &s), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "z-order");
    ZBT_CHECK(k == NULL);
    zb_arrow_schema_release(&s);
}

/* ---- z-order ----------------------------------------------------------- */

/* Bit k of the key, set straight from the definition's formula. */
static uint64_t ref_interleave(const uint32_t *u, unsigned n, unsigned b)
{
    uint64_t z = 0;
    unsigned j;

    for (j = 0; j < n * b; j++) {
        unsigned col = j % n, bit = b - 1 - j / n;
        if ((u[col] >> bit) & 1)
            z |= 1ull << (n * b - 1 - j);
    }
    return z;
}

static void test_exec_sort_key__zorder_interleave(void)
{
    uint64_t rs = 5;
    uint32_t u[16];
    unsigned n, b, i, t;

    for (n = 2; n <= 16; n++)
        for (b = 1; b <= 32 && n * b <= 62; b++)
            for (t = 0; t < 20; t++) {
                for (i = 0; i < n; i++)
                    u[i] = (uint32_t)(su_rand(&rs) &
                                      (b == 32 ? 0xffffffffu
                                               : (1u << b) - 1));
                ZBT_EQ_U64(zb_zorder_interleave(u, n, b),
                           ref_interleave(u, n, b));
            }
}

/*
 * Keys of (int32, string, int64) rows against values mapped the plain
 * way: the int32 by arithmetic offset from INT32_MIN, the string's first
 * 8 bytes, the int64 by offset from INT64_MIN; nulls 0.
 */
static void test_exec_sort_key__zorder_keys(void)
{
    static const unsigned bits_list[] = { 1, 5, 16, 20 };
    uint64_t rs = 11;
    int32_t iv[N];
    int64_t lv[N];
    char sv[N][12];
    const char *sp[N];
    size_t sl[N];
    uint8_t valid[N];
    struct ArrowSchema s;
    struct ArrowArray cols[3], a;
    zb_ctx ctx;
    size_t bi;
    int64_t r;

    zb_ctx_init(&ctx);
    for (r = 0; r < N; r++) {
        uint64_t x = su_rand(&rs);
        size_t j;
        iv[r] = (int32_t)(uint32_t)x;
        lv[r] = (int64_t)su_rand(&rs);
        sl[r] = (size_t)(x >> 40) % 12;
        for (j = 0; j < sl[r]; j++)
            sv[r][j] = (char)('a' + (su_rand(&rs) % 26));
        sp[r] = sv[r];
        valid[r] = (uint8_t)(x % 6 != 0);
    }
    su_schema(&s, "+s", NULL, 3);
    su_schema(s.children[0], "i", "a", 0);
    su_schema(s.children[1], "u", "b", 0);
    su_schema(s.children[2], "l", "c", 0);
    su_fixed(&cols[0], N, 4, iv, valid);
    su_binary(&cols[1], N, sp, sl, NULL, 0);
    su_fixed(&cols[2], N, 8, lv, NULL);
    su_struct(&a, N, 3, cols, NULL);
    for (bi = 0; bi < sizeof bits_list / sizeof bits_list[0]; bi++) {
        unsigned b = bits_list[bi];
        zb_sort_col sc[3] = { { { 0 }, 1, 0, 0 }, { { 1 }, 1, 0, 0 },
                              { { 2 }, 1, 0, 0 } };
        zb_sortkey_spec spec = { ZB_SORTKEY_ZORDER, sc, 3, b };
        zb_sortkey *k = NULL;
        zb_keybuf kb = ZB_KEYBUF_INIT;

        ZBT_OK_CTX(zb_sortkey_new(&k, &ctx, &spec, &s), &ctx);
        ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &a), &ctx);
        ZBT_EQ_U64(kb.len, 8 * N);
        for (r = 0; r < N; r++) {
            uint32_t u[3];
            uint64_t v64[3], got = 0;
            size_t j;
            int i;
            v64[0] = valid[r] ? (uint64_t)((int64_t)iv[r] - INT32_MIN) << 32
                              : 0;
            v64[1] = 0;
            for (j = 0; j < 8; j++)
                v64[1] |= (uint64_t)(j < sl[r] ? (uint8_t)sv[r][j] : 0)
                          << (56 - 8 * j);
            v64[2] = lv[r] >= 0 ? (uint64_t)lv[r] + (1ull << 63)
                                : (uint64_t)(lv[r] - INT64_MIN);
            for (i = 0; i < 3; i++)
                u[i] = (uint32_t)(v64[i] >> (64 - b));
            for (i = 0; i < 8; i++)
                got = got << 8 | kb.data[kb.offs[r] + (size_t)i];
            ZBT_EQ_U64(got, ref_interleave(u, 3, b));
        }
        zb_keybuf_free(&kb);
        zb_sortkey_free(k);
    }
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

/* Z-values of doubles never decrease as the values grow. */
static void test_exec_sort_key__zorder_float_monotone(void)
{
    static const tcase cg = { "g", V_F64, 8 };
    uint64_t rs = 3;
    tv v[N];
    double d[N];
    int64_t zero[N];
    struct ArrowSchema s;
    struct ArrowArray cols[2], a;
    zb_sort_col sc[2] = { { { 0 }, 1, 0, 0 }, { { 1 }, 1, 0, 0 } };
    zb_sortkey_spec spec = { ZB_SORTKEY_ZORDER, sc, 2, 31 };
    zb_sortkey *k = NULL;
    zb_keybuf kb = ZB_KEYBUF_INIT;
    zb_ctx ctx;
    int64_t i, j;

    zb_ctx_init(&ctx);
    for (i = 0; i < N; i++) {
        gen(&v[i], &cg, &rs);
        d[i] = v[i].d;
        zero[i] = 0;
    }
    su_schema(&s, "+s", NULL, 2);
    su_schema(s.children[0], "g", "d", 0);
    su_schema(s.children[1], "l", "z", 0);
    su_fixed(&cols[0], N, 8, d, NULL);
    su_fixed(&cols[1], N, 8, zero, NULL);
    su_struct(&a, N, 2, cols, NULL);
    ZBT_OK_CTX(zb_sortkey_new(&k, &ctx, &spec, &s), &ctx);
    ZBT_OK_CTX(zb_sortkey_build(&kb, &ctx, k, &a), &ctx);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            if (cmp_float(d[i], d[j]) < 0)
                ZBT_CHECK(memcmp(kb.data + 8 * i, kb.data + 8 * j, 8) <= 0);
    zb_keybuf_free(&kb);
    zb_sortkey_free(k);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

const zbt_case test_exec_sort_key[] = {
    ZBT_CASE(test_exec_sort_key__every_type),
    ZBT_CASE(test_exec_sort_key__nested_sliced),
    ZBT_CASE(test_exec_sort_key__several_columns),
    ZBT_CASE(test_exec_sort_key__refusals),
    ZBT_CASE(test_exec_sort_key__zorder_interleave),
    ZBT_CASE(test_exec_sort_key__zorder_keys),
    ZBT_CASE(test_exec_sort_key__zorder_float_monotone),
    ZBT_END
};

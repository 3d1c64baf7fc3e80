/*
 * exec/roaring/roaring_io.c - the portable serialization of 64-bit Roaring
 * bitmaps (see roaring.h); deletion-vector blobs are in roaring_dv.c.
 *
 * Reading trusts nothing: every length is checked against what is left of
 * the input before it is used, and every container is checked against
 * its declared cardinality before it joins the set.
 */
#define ZB_MODULE "roaring"

#include <string.h>

#include "exec/roaring/roaring_int.h"
#include "util/alloc.h"

#define COOKIE_NO_RUNS 12346u
#define COOKIE_RUNS 12347u
#define NO_OFFSET_THRESHOLD 4u   /* 12347 writes offsets from 4 containers */

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint8_t *wr16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

/* ---- writing ---- */

/* The values of c as a 65536-bit bitmap. */
static void to_words(const rb_container *c, uint64_t *words)
{
    uint32_t i, v;

    if (c->type == RB_BITMAP) {
        memcpy(words, c->words, RB_WORDS * sizeof *words);
        return;
    }
    memset(words, 0, RB_WORDS * sizeof *words);
    if (c->type == RB_ARRAY) {
        for (i = 0; i < c->n; i++)
            words[c->u16[i] >> 6] |= 1ULL << (c->u16[i] & 63);
        return;
    }
    for (i = 0; i < c->n; i++)
        for (v = c->u16[2 * i]; v <= (uint32_t)c->u16[2 * i] +
                                  c->u16[2 * i + 1]; v++)
            words[v >> 6] |= 1ULL << (v & 63);
}

/* Number of maximal runs of set bits. */
static uint32_t count_runs(const uint64_t *words)
{
    uint32_t runs = 0, w;
    uint64_t carry = 0;

    for (w = 0; w < RB_WORDS; w++) {
        runs += (uint32_t)__builtin_popcountll(words[w] &
                                               ~(words[w] << 1 | carry));
        carry = words[w] >> 63;
    }
    return runs;
}

/* How a container is written: its type and its byte size. */
static uint8_t choose(const rb_container *c, uint64_t *words, size_t *bytes)
{
    size_t std = c->card <= RB_ARRAY_MAX ? (size_t)c->card * 2
                                         : RB_WORDS * 8;
    size_t run;

    to_words(c, words);
    run = 2 + 4 * (size_t)count_runs(words);
    /* Runs on a tie, as CRoaring's run optimisation chooses. */
    if (run <= std) {
        *bytes = run;
        return RB_RUN;
    }
    *bytes = std;
    return c->card <= RB_ARRAY_MAX ? RB_ARRAY : RB_BITMAP;
}

/* Containers r->c[from..*to) share the high 32 bits of their key. */
static size_t group_end(const zb_roaring *r, size_t from)
{
    size_t to = from + 1;

    while (to < r->n && r->c[to].key >> 16 == r->c[from].key >> 16)
        to++;
    return to;
}

static size_t header_bytes(size_t n, int has_runs)
{
    if (has_runs)
        return 4 + (n + 7) / 8 + 4 * n +
               (n >= NO_OFFSET_THRESHOLD ? 4 * n : 0);
    return 8 + 8 * n;
}

/* Size of one group, and whether it has runs, without writing it. */
static size_t group_bytes(const zb_roaring *r, size_t from, size_t to,
                          uint64_t *words, int *has_runs)
{
    size_t i, body = 0, bytes;

    *has_runs = 0;
    for (i = from; i < to; i++) {
        if (choose(&r->c[i], words, &bytes) == RB_RUN)
            *has_runs = 1;
        body += bytes;
    }
    return 4 + header_bytes(to - from, *has_runs) + body;
}

size_t zb_roaring_serialized_size(const zb_roaring *r)
{
    uint64_t words[RB_WORDS];
    size_t total = 8, from, to;
    int has_runs;

    for (from = 0; from < r->n; from = to) {
        to = group_end(r, from);
        total += group_bytes(r, from, to, words, &has_runs);
    }
    return total;
}

static uint8_t *write_container(uint8_t *p, uint8_t type,
                                const uint64_t *words)
{
    uint32_t w, v, start;
    uint8_t *count;

    switch (type) {
    case RB_BITMAP:
        for (w = 0; w < RB_WORDS; w++) {
            p = wr32(p, (uint32_t)words[w]);
            p = wr32(p, (uint32_t)(words[w] >> 32));
        }
        return p;
    case RB_ARRAY:
        for (w = 0; w < RB_WORDS; w++) {
            uint64_t bits = words[w];
            while (bits) {
                p = wr16(p, w * 64 + (uint32_t)__builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
        return p;
    default:
        count = p;
        p += 2;
        w = 0;
        for (v = 0; v < 65536;) {
            if (!((words[v >> 6] >> (v & 63)) & 1)) {
                v++;
                continue;
            }
            start = v;
            while (v < 65536 && ((words[v >> 6] >> (v & 63)) & 1))
                v++;
            p = wr16(p, start);
            p = wr16(p, v - start - 1);
            w++;
        }
        wr16(count, w);
        return p;
    }
}

static uint8_t *write_group(uint8_t *p, const zb_roaring *r, size_t from,
                            size_t to, uint64_t *words)
{
    size_t n = to - from, i, bytes;
    int has_runs;
    uint8_t *start, *offsets = NULL;
    uint32_t body;

    group_bytes(r, from, to, words, &has_runs);
    p = wr32(p, (uint32_t)(r->c[from].key >> 16));
    start = p;
    if (has_runs) {
        p = wr32(p, COOKIE_RUNS | (uint32_t)(n - 1) << 16);
        memset(p, 0, (n + 7) / 8);
        for (i = from; i < to; i++)
            if (choose(&r->c[i], words, &bytes) == RB_RUN)
                p[(i - from) / 8] |= (uint8_t)(1u << ((i - from) % 8));
        p += (n + 7) / 8;
    } else {
        p = wr32(p, COOKIE_NO_RUNS);
        p = wr32(p, (uint32_t)n);
    }
    for (i = from; i < to; i++) {
        p = wr16(p, (uint32_t)(r->c[i].key & 0xFFFF));
        p = wr16(p, r->c[i].card - 1);
    }
    if (!has_runs || n >= NO_OFFSET_THRESHOLD) {
        offsets = p;
        p += 4 * n;
    }
    for (i = from; i < to; i++) {
        uint8_t type = choose(&r->c[i], words, &bytes);
        body = (uint32_t)(p - start);
        if (offsets)
            wr32(offsets + 4 * (i - from), body);
        p = write_container(p, type, words);
    }
    return p;
}

int zb_roaring_serialize(const zb_roaring *r, zb_buf *out)
{
    uint64_t words[RB_WORDS];
    size_t size = zb_roaring_serialized_size(r), from, to, groups = 0;
    uint8_t *p;
    int rc;

    if ((rc = zb_buf_reserve(out, size)) < 0)
        return rc;
    for (from = 0; from < r->n; from = group_end(r, from))
        groups++;
    p = (uint8_t *)out->ptr + out->len;
    p = wr32(p, (uint32_t)groups);
    p = wr32(p, (uint32_t)((uint64_t)groups >> 32));
    for (from = 0; from < r->n; from = to) {
        to = group_end(r, from);
        p = write_group(p, r, from, to, words);
    }
    assert((size_t)(p - ((uint8_t *)out->ptr + out->len)) == size);
    out->len += size;
    out->ptr[out->len] = '\0';
    return ZB_OK;
}

/* ---- reading ---- */

typedef struct reader {
    zb_ctx *ctx;
    const uint8_t *data;
    size_t len, pos;
    const char *what;           /* "roaring bitmap" or "deletion vector" */
} reader;

static int bad(reader *rd, size_t at, const char *why)
{
    return zb_fail(rd->ctx, ZB_ECORRUPT, "%s: byte %zu: %s", rd->what, at,
                   why);
}

/* Checks that n more bytes are there. */
static int need(reader *rd, size_t n, const char *what)
{
    if (n > rd->len - rd->pos)
        return zb_fail(rd->ctx, ZB_ECORRUPT,
                       "%s: byte %zu: truncated: %s needs %zu bytes, %zu left",
                       rd->what, rd->pos, what, n, rd->len - rd->pos);
    return ZB_OK;
}

static int append_container(zb_roaring *r, rb_container *c)
{
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 4;
        rb_container *nc = zb_realloc(r->c, ncap * sizeof *nc);
        if (nc == NULL)
            return ZB_ENOMEM;
        r->c = nc;
        r->cap = ncap;
    }
    r->c[r->n++] = *c;
    r->card += c->card;
    r->mem += (uint64_t)c->cap * 2;
    return ZB_OK;
}

/* Reads one container's body at rd->pos into c (type, n, data). */
static int read_container(reader *rd, rb_container *c, int is_run)
{
    const uint8_t *p;
    uint32_t i, prev_end = 0, sum = 0;
    size_t start = rd->pos;
    int rc;

    if (is_run) {
        if ((rc = need(rd, 2, "run count")) < 0)
            return rc;
        c->n = rd16(rd->data + rd->pos);
        rd->pos += 2;
        if ((rc = need(rd, (size_t)c->n * 4, "runs")) < 0)
            return rc;
        if (c->n == 0)
            return bad(rd, start, "run container without runs");
        p = rd->data + rd->pos;
        for (i = 0; i < c->n; i++) {
            uint32_t s = rd16(p + 4 * i), l = rd16(p + 4 * i + 2);
            if (i > 0 && s <= prev_end)
                return bad(rd, rd->pos + 4 * i,
                           "runs overlap or are not ascending");
            if (s + l > 0xFFFF)
                return bad(rd, rd->pos + 4 * i, "run passes 65535");
            prev_end = s + l;
            sum += l + 1;
        }
        if (sum != c->card)
            return bad(rd, start, "run lengths differ from the cardinality");
        c->type = RB_RUN;
        c->cap = 2 * c->n;
        if ((c->u16 = zb_malloc((size_t)c->cap * 2)) == NULL)
            return ZB_ENOMEM;
        for (i = 0; i < 2 * c->n; i++)
            c->u16[i] = rd16(p + 2 * i);
        rd->pos += (size_t)c->n * 4;
        return ZB_OK;
    }
    if (c->card <= RB_ARRAY_MAX) {
        if ((rc = need(rd, (size_t)c->card * 2, "array container")) < 0)
            return rc;
        p = rd->data + rd->pos;
        for (i = 1; i < c->card; i++)
            if (rd16(p + 2 * i) <= rd16(p + 2 * i - 2))
                return bad(rd, rd->pos + 2 * i,
                           "array values not strictly ascending");
        c->type = RB_ARRAY;
        c->n = c->card;
        c->cap = c->card;
        if ((c->u16 = zb_malloc((size_t)c->cap * 2)) == NULL)
            return ZB_ENOMEM;
        for (i = 0; i < c->n; i++)
            c->u16[i] = rd16(p + 2 * i);
        rd->pos += (size_t)c->card * 2;
        return ZB_OK;
    }
    if ((rc = need(rd, RB_WORDS * 8, "bitmap container")) < 0)
        return rc;
    p = rd->data + rd->pos;
    for (i = 0; i < RB_WORDS; i++)
        sum += (uint32_t)__builtin_popcountll(rd64(p + 8 * i));
    if (sum != c->card)
        return bad(rd, start,
                   "bitmap population differs from the cardinality");
    c->type = RB_BITMAP;
    c->n = RB_WORDS;
    c->cap = RB_WORDS * 4;
    if ((c->words = zb_malloc(RB_WORDS * 8)) == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < RB_WORDS; i++)
        c->words[i] = rd64(p + 8 * i);
    rd->pos += RB_WORDS * 8;
    return ZB_OK;
}

/* Reads one 32-bit portable bitmap whose values get high bits key32. */
static int read_bitmap32(reader *rd, zb_roaring *r, uint32_t key32)
{
    size_t base = rd->pos, n, i, desc, offsets = 0, runbits = 0;
    uint32_t cookie;
    int has_runs, rc;

    if ((rc = need(rd, 4, "cookie")) < 0)
        return rc;
    cookie = rd32(rd->data + rd->pos);
    rd->pos += 4;
    if ((cookie & 0xFFFF) == COOKIE_RUNS) {
        has_runs = 1;
        n = (cookie >> 16) + 1;
        runbits = rd->pos;
        if ((rc = need(rd, (n + 7) / 8, "run flags")) < 0)
            return rc;
        rd->pos += (n + 7) / 8;
    } else if (cookie == COOKIE_NO_RUNS) {
        has_runs = 0;
        if ((rc = need(rd, 4, "container count")) < 0)
            return rc;
        n = rd32(rd->data + rd->pos);
        if (n > 65536)
            return bad(rd, rd->pos, "more than 65536 containers");
        rd->pos += 4;
    } else {
        return bad(rd, base, "unknown cookie (not 12346 or 12347)");
    }
    desc = rd->pos;
    if ((rc = need(rd, 4 * n, "container headers")) < 0)
        return rc;
    rd->pos += 4 * n;
    for (i = 1; i < n; i++)
        if (rd16(rd->data + desc + 4 * i) <= rd16(rd->data + desc + 4 * i - 4))
            return bad(rd, desc + 4 * i,
                       "container keys not strictly ascending");
    if (!has_runs || n >= NO_OFFSET_THRESHOLD) {
        offsets = rd->pos;
        if ((rc = need(rd, 4 * n, "container offsets")) < 0)
            return rc;
        rd->pos += 4 * n;
    }
    for (i = 0; i < n; i++) {
        rb_container c;
        int is_run = has_runs &&
                     (rd->data[runbits + i / 8] >> (i % 8) & 1);

        memset(&c, 0, sizeof c);
        c.key = (uint64_t)key32 << 16 | rd16(rd->data + desc + 4 * i);
        c.card = (uint32_t)rd16(rd->data + desc + 4 * i + 2) + 1;
        if (offsets && rd32(rd->data + offsets + 4 * i) != rd->pos - base)
            return bad(rd, offsets + 4 * i,
                       "container offset differs from where it starts");
        if ((rc = read_container(rd, &c, is_run)) < 0)
            return rc;
        if ((rc = append_container(r, &c)) < 0) {
            zb_free(c.u16);
            return rc;
        }
    }
    return ZB_OK;
}

static int read_bitmap64(reader *rd, zb_roaring *r)
{
    uint64_t count, i;
    uint32_t key = 0;
    int rc;

    if ((rc = need(rd, 8, "bitmap count")) < 0)
        return rc;
    count = rd64(rd->data + rd->pos);
    /* Each bitmap takes at least a key and an empty 12346 header. */
    if (count > (rd->len - rd->pos - 8) / 12)
        return bad(rd, rd->pos, "bitmap count larger than the input");
    rd->pos += 8;
    for (i = 0; i < count; i++) {
        uint32_t k;
        if ((rc = need(rd, 4, "bitmap key")) < 0)
            return rc;
        k = rd32(rd->data + rd->pos);
        if (i > 0 && k <= key)
            return bad(rd, rd->pos, "bitmap keys not strictly ascending");
        key = k;
        rd->pos += 4;
        if ((rc = read_bitmap32(rd, r, key)) < 0)
            return rc;
    }
    if (rd->pos != rd->len)
        return bad(rd, rd->pos, "trailing bytes after the bitmap");
    return ZB_OK;
}

static int deserialize(zb_roaring **out, reader *rd)
{
    zb_roaring *r = NULL;
    int rc;

    *out = NULL;
    if ((rc = zb_roaring_new(&r)) < 0)
        return zb_fail_oom(rd->ctx);
    if ((rc = read_bitmap64(rd, r)) < 0) {
        zb_roaring_free(r);
        if (rc == ZB_ENOMEM)
            zb_fail_oom(rd->ctx);
        return rc;
    }
    *out = r;
    return ZB_OK;
}

int zb_roaring__deserialize(zb_roaring **out, zb_ctx *ctx, const void *data,
                            size_t len, const char *what)
{
    reader rd = { ctx, data, len, 0, what };

    return deserialize(out, &rd);
}

int zb_roaring_deserialize(zb_roaring **out, zb_ctx *ctx, const void *data,
                           size_t len)
{
    ZB_ASSERT_ARG(out && ctx && (data || len == 0));
    return zb_roaring__deserialize(out, ctx, data, len, "roaring bitmap");
}

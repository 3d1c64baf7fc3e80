/*
 * exec/roaring/roaring.c - 64-bit Roaring bitmaps: building and lookups (see
 * roaring.h). Iteration is in roaring_iter.c, serialization in
 * roaring_io.c, deletion-vector blobs in roaring_dv.c.
 *
 * The set is one sorted array of containers keyed by the high 48 bits of
 * their values. A container is an array of up to 4096 sorted u16, a bitmap
 * of 1024 u64 words, or sorted runs (u16 start, u16 length - 1), which
 * only deserialization makes; adding to a run container first turns it
 * into an array or a bitmap.
 */
#define ZB_MODULE "roaring"

#include <string.h>

#include "exec/roaring/roaring_int.h"
#include "util/alloc.h"

int zb_roaring_new(zb_roaring **out)
{
    *out = zb_calloc(1, sizeof **out);
    return *out ? ZB_OK : ZB_ENOMEM;
}

void zb_roaring_free(zb_roaring *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; i < r->n; i++)
        zb_free(r->c[i].u16);
    zb_free(r->c);
    zb_free(r);
}

uint64_t zb_roaring_cardinality(const zb_roaring *r)
{
    return r->card;
}

uint64_t zb_roaring_mem_bytes(const zb_roaring *r)
{
    return sizeof *r + r->mem + (uint64_t)r->cap * sizeof(rb_container);
}

/* Index of the container with key, or -(insertion point) - 1. */
static ptrdiff_t find_container(const zb_roaring *r, uint64_t key)
{
    size_t lo = 0, hi = r->n;

    if (r->n && r->c[r->n - 1].key == key)
        return (ptrdiff_t)r->n - 1;
    if (r->n && r->c[r->n - 1].key < key)
        return -(ptrdiff_t)r->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->c[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->n && r->c[lo].key == key)
        return (ptrdiff_t)lo;
    return -(ptrdiff_t)lo - 1;
}

static int container_contains(const rb_container *c, uint32_t low)
{
    uint32_t i;

    switch (c->type) {
    case RB_ARRAY:
        i = rb_lower_bound16(c->u16, c->n, low);
        return i < c->n && c->u16[i] == low;
    case RB_BITMAP:
        return (int)((c->words[low >> 6] >> (low & 63)) & 1);
    default:
        i = rb_run_lower_bound(c->u16, c->n, low);
        return i < c->n && c->u16[2 * i] <= low;
    }
}

int zb_roaring_contains(const zb_roaring *r, uint64_t value)
{
    ptrdiff_t i = find_container(r, value >> 16);

    return i >= 0 && container_contains(&r->c[i], (uint32_t)(value & 0xFFFF));
}

uint64_t zb_roaring_min(const zb_roaring *r)
{
    zb_roaring_iter it;
    uint64_t v = 0;

    zb_roaring_iter_init(&it, r);
    zb_roaring_iter_peek(&it, &v);
    return v;
}

static uint32_t container_max(const rb_container *c)
{
    int w;

    switch (c->type) {
    case RB_ARRAY:
        return c->u16[c->n - 1];
    case RB_BITMAP:
        for (w = RB_WORDS - 1; w > 0 && c->words[w] == 0; w--)
            ;
        return (uint32_t)w * 64 + 63 - (uint32_t)__builtin_clzll(c->words[w]);
    default:
        return (uint32_t)c->u16[2 * c->n - 2] + c->u16[2 * c->n - 1];
    }
}

uint64_t zb_roaring_max(const zb_roaring *r)
{
    if (r->n == 0)
        return 0;
    return r->c[r->n - 1].key << 16 | container_max(&r->c[r->n - 1]);
}

/* Makes room for one more container at index at. */
static int insert_container(zb_roaring *r, size_t at, uint64_t key,
                            uint16_t *data, uint32_t cap)
{
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 4;
        rb_container *nc = zb_realloc(r->c, ncap * sizeof *nc);
        if (nc == NULL)
            return ZB_ENOMEM;
        r->c = nc;
        r->cap = ncap;
    }
    memmove(&r->c[at + 1], &r->c[at], (r->n - at) * sizeof *r->c);
    memset(&r->c[at], 0, sizeof r->c[at]);
    r->c[at].key = key;
    r->c[at].type = RB_ARRAY;
    r->c[at].u16 = data;
    r->c[at].cap = cap;
    r->n++;
    r->mem += (uint64_t)cap * 2;
    return ZB_OK;
}

/* The container for key, created empty (an array) if missing. */
static int get_container(zb_roaring *r, uint64_t key, rb_container **out)
{
    ptrdiff_t i = find_container(r, key);
    uint16_t *data;

    if (i >= 0) {
        *out = &r->c[i];
        return ZB_OK;
    }
    if ((data = zb_malloc(4 * sizeof *data)) == NULL)
        return ZB_ENOMEM;
    if (insert_container(r, (size_t)(-i - 1), key, data, 4) < 0) {
        zb_free(data);
        return ZB_ENOMEM;
    }
    *out = &r->c[-i - 1];
    return ZB_OK;
}

/* Drops an empty container again (after a failed first add). */
static void drop_if_empty(zb_roaring *r, rb_container *c)
{
    size_t at = (size_t)(c - r->c);

    if (c->card != 0)
        return;
    r->mem -= (uint64_t)c->cap * 2;
    zb_free(c->u16);
    memmove(&r->c[at], &r->c[at + 1], (r->n - at - 1) * sizeof *r->c);
    r->n--;
}

/* Sets the bits of c (a bitmap) for [lo, hi]; returns how many were new. */
static uint32_t bitmap_set_range(uint64_t *words, uint32_t lo, uint32_t hi)
{
    uint32_t added = 0, w;

    for (w = lo >> 6; w <= hi >> 6; w++) {
        uint32_t from = w == lo >> 6 ? lo & 63 : 0;
        uint32_t to = w == hi >> 6 ? hi & 63 : 63;
        uint64_t mask = (to - from == 63) ? ~0ULL
                      : (((1ULL << (to - from + 1)) - 1) << from);
        added += (uint32_t)__builtin_popcountll(mask & ~words[w]);
        words[w] |= mask;
    }
    return added;
}

/* Turns c (array or run) into a bitmap. */
static int to_bitmap(zb_roaring *r, rb_container *c)
{
    uint64_t *words = zb_calloc(RB_WORDS, sizeof *words);
    uint32_t i;

    if (words == NULL)
        return ZB_ENOMEM;
    if (c->type == RB_ARRAY) {
        for (i = 0; i < c->n; i++)
            words[c->u16[i] >> 6] |= 1ULL << (c->u16[i] & 63);
    } else {
        for (i = 0; i < c->n; i++)
            bitmap_set_range(words, c->u16[2 * i],
                             (uint32_t)c->u16[2 * i] + c->u16[2 * i + 1]);
    }
    r->mem -= (uint64_t)c->cap * 2;
    zb_free(c->u16);
    c->words = words;
    c->type = RB_BITMAP;
    c->n = RB_WORDS;
    c->cap = RB_WORDS * 4;
    r->mem += (uint64_t)c->cap * 2;
    return ZB_OK;
}

/* Turns a run container of at most 4096 values into an array. */
static int run_to_array(zb_roaring *r, rb_container *c)
{
    uint32_t cap = c->card < 4 ? 4 : c->card, i, k = 0, v;
    uint16_t *a = zb_malloc((size_t)cap * 2);

    if (a == NULL)
        return ZB_ENOMEM;
    for (i = 0; i < c->n; i++)
        for (v = c->u16[2 * i]; v <= (uint32_t)c->u16[2 * i] +
                                  c->u16[2 * i + 1]; v++)
            a[k++] = (uint16_t)v;
    r->mem -= (uint64_t)c->cap * 2;
    zb_free(c->u16);
    c->u16 = a;
    c->type = RB_ARRAY;
    c->n = k;
    c->cap = cap;
    r->mem += (uint64_t)cap * 2;
    return ZB_OK;
}

static int container_add(zb_roaring *r, rb_container *c, uint32_t low)
{
    uint32_t i;
    int rc;

    if (c->type == RB_RUN) {
        if (container_contains(c, low))
            return ZB_OK;
        rc = c->card < RB_ARRAY_MAX ? run_to_array(r, c) : to_bitmap(r, c);
        if (rc < 0)
            return rc;
    }
    if (c->type == RB_BITMAP) {
        uint64_t bit = 1ULL << (low & 63);
        if (!(c->words[low >> 6] & bit)) {
            c->words[low >> 6] |= bit;
            c->card++;
            r->card++;
        }
        return ZB_OK;
    }
    i = (c->n && c->u16[c->n - 1] < low) ? c->n
                                         : rb_lower_bound16(c->u16, c->n, low);
    if (i < c->n && c->u16[i] == low)
        return ZB_OK;
    if (c->n == RB_ARRAY_MAX) {
        if ((rc = to_bitmap(r, c)) < 0)
            return rc;
        return container_add(r, c, low);
    }
    if (c->n == c->cap) {
        uint32_t ncap = c->cap * 2 > RB_ARRAY_MAX ? RB_ARRAY_MAX : c->cap * 2;
        uint16_t *na = zb_realloc(c->u16, (size_t)ncap * 2);
        if (na == NULL)
            return ZB_ENOMEM;
        r->mem += (uint64_t)(ncap - c->cap) * 2;
        c->u16 = na;
        c->cap = ncap;
    }
    memmove(&c->u16[i + 1], &c->u16[i], (c->n - i) * sizeof *c->u16);
    c->u16[i] = (uint16_t)low;
    c->n++;
    c->card++;
    r->card++;
    return ZB_OK;
}

int zb_roaring_add(zb_roaring *r, uint64_t value)
{
    rb_container *c;
    int rc;

    if ((rc = get_container(r, value >> 16, &c)) < 0)
        return rc;
    if ((rc = container_add(r, c, (uint32_t)(value & 0xFFFF))) < 0)
        drop_if_empty(r, c);
    return rc;
}

/* Adds [lo, hi] of one container. */
static int container_add_range(zb_roaring *r, rb_container *c, uint32_t lo,
                               uint32_t hi)
{
    uint32_t v, added;
    int rc;

    if (c->type != RB_BITMAP &&
        (uint64_t)c->card + (hi - lo + 1) > RB_ARRAY_MAX) {
        if ((rc = to_bitmap(r, c)) < 0)
            return rc;
    }
    if (c->type == RB_BITMAP) {
        added = bitmap_set_range(c->words, lo, hi);
        c->card += added;
        r->card += added;
        return ZB_OK;
    }
    for (v = lo; v <= hi; v++)
        if ((rc = container_add(r, c, v)) < 0)
            return rc;
    return ZB_OK;
}

int zb_roaring_add_range(zb_roaring *r, uint64_t start, uint64_t end)
{
    uint64_t key;

    ZB_ASSERT_ARG(end > start);
    for (key = start >> 16; key <= (end - 1) >> 16; key++) {
        uint32_t lo = key == start >> 16 ? (uint32_t)(start & 0xFFFF) : 0;
        uint32_t hi = key == (end - 1) >> 16 ? (uint32_t)((end - 1) & 0xFFFF)
                                            : 0xFFFF;
        rb_container *c;
        int rc;

        if ((rc = get_container(r, key, &c)) < 0)
            return rc;
        if ((rc = container_add_range(r, c, lo, hi)) < 0) {
            drop_if_empty(r, c);
            return rc;
        }
    }
    return ZB_OK;
}

/*
 * exec/roaring/roaring_iter.c - ascending iteration over a zb_roaring: next,
 * peek, seek and batched reads (see roaring.h).
 */
#include "exec/roaring/roaring_int.h"

void zb_roaring_iter_init(zb_roaring_iter *it, const zb_roaring *r)
{
    it->r = r;
    it->container = 0;
    it->pos = 0;
    it->run_off = 0;
}

/*
 * Moves it to the next value at or after its position; returns 0 at the
 * end. For a bitmap, pos is the next bit to look at.
 */
static int settle(zb_roaring_iter *it)
{
    const zb_roaring *r = it->r;

    while (it->container < r->n) {
        const rb_container *c = &r->c[it->container];

        switch (c->type) {
        case RB_ARRAY:
            if (it->pos < c->n)
                return 1;
            break;
        case RB_RUN:
            if (it->pos < c->n)
                return 1;
            break;
        default:
            while (it->pos < 65536) {
                uint32_t w = it->pos >> 6;
                uint64_t bits = c->words[w] >> (it->pos & 63);
                if (bits) {
                    it->pos += (uint32_t)__builtin_ctzll(bits);
                    return 1;
                }
                it->pos = (w + 1) << 6;
            }
            break;
        }
        it->container++;
        it->pos = 0;
        it->run_off = 0;
    }
    return 0;
}

static uint64_t current(const zb_roaring_iter *it)
{
    const rb_container *c = &it->r->c[it->container];
    uint32_t low;

    switch (c->type) {
    case RB_ARRAY:
        low = c->u16[it->pos];
        break;
    case RB_RUN:
        low = (uint32_t)c->u16[2 * it->pos] + it->run_off;
        break;
    default:
        low = it->pos;
        break;
    }
    return c->key << 16 | low;
}

static void advance(zb_roaring_iter *it)
{
    const rb_container *c = &it->r->c[it->container];

    if (c->type == RB_RUN) {
        if (it->run_off < c->u16[2 * it->pos + 1]) {
            it->run_off++;
            return;
        }
        it->run_off = 0;
    }
    it->pos++;
}

int zb_roaring_iter_next(zb_roaring_iter *it, uint64_t *value)
{
    if (!settle(it))
        return 0;
    *value = current(it);
    advance(it);
    return 1;
}

int zb_roaring_iter_peek(const zb_roaring_iter *it, uint64_t *value)
{
    zb_roaring_iter tmp = *it;

    if (!settle(&tmp))
        return 0;
    *value = current(&tmp);
    return 1;
}

void zb_roaring_iter_seek(zb_roaring_iter *it, uint64_t target)
{
    const zb_roaring *r = it->r;
    uint64_t key = target >> 16, v;
    uint32_t low = (uint32_t)(target & 0xFFFF);
    const rb_container *c;
    size_t lo, hi;

    if (!zb_roaring_iter_peek(it, &v) || v >= target)
        return;
    /* Containers before it->container are behind us; search the rest. */
    lo = it->container;
    hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->c[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo != it->container) {
        it->container = lo;
        it->pos = 0;
        it->run_off = 0;
    }
    if (lo >= r->n || r->c[lo].key != key)
        return;
    c = &r->c[lo];
    switch (c->type) {
    case RB_ARRAY: {
        uint32_t i = rb_lower_bound16(c->u16, c->n, low);
        if (i > it->pos)
            it->pos = i;
        break;
    }
    case RB_RUN: {
        /* The current value is below target, so i is never behind. */
        uint32_t i = rb_run_lower_bound(c->u16, c->n, low);
        if (i != it->pos) {
            it->pos = i;
            it->run_off = 0;
        }
        if (i < c->n && c->u16[2 * i] < low)
            it->run_off = low - c->u16[2 * i];
        break;
    }
    default:
        if (low > it->pos)
            it->pos = low;
        break;
    }
}

size_t zb_roaring_iter_read(zb_roaring_iter *it, uint64_t *out, size_t max)
{
    size_t k = 0;

    while (k < max && settle(it)) {
        const rb_container *c = &it->r->c[it->container];
        uint64_t base = c->key << 16;

        if (c->type == RB_ARRAY) {
            while (k < max && it->pos < c->n)
                out[k++] = base | c->u16[it->pos++];
        } else if (c->type == RB_BITMAP) {
            while (k < max && it->pos < 65536) {
                uint32_t w = it->pos >> 6;
                uint64_t bits = c->words[w] >> (it->pos & 63);
                if (bits == 0) {
                    it->pos = (w + 1) << 6;
                    continue;
                }
                it->pos += (uint32_t)__builtin_ctzll(bits);
                out[k++] = base | it->pos;
                it->pos++;
            }
        } else {
            out[k++] = current(it);
            advance(it);
        }
    }
    return k;
}

/*
 * exec/roaring/roaring_int.h - the inside of a zb_roaring, shared by roaring.c
 * (building, lookups, iteration) and roaring_io.c (serialization).
 */
#ifndef ZB_EXEC_ROARING_INT_H
#define ZB_EXEC_ROARING_INT_H

#include "exec/roaring/roaring.h"
#include "util/err.h"

#define RB_ARRAY 1
#define RB_BITMAP 2
#define RB_RUN 3

#define RB_ARRAY_MAX 4096       /* most values an array container holds */
#define RB_WORDS 1024           /* u64 words of a bitmap container */

typedef struct rb_container {
    uint64_t key;               /* high 48 bits of the values */
    uint32_t card;              /* values held, 1..65536 */
    uint32_t n;                 /* array: values; run: runs; bitmap: 1024 */
    uint32_t cap;               /* allocated size in u16 units */
    uint8_t type;               /* RB_ARRAY, RB_BITMAP, RB_RUN */
    union {
        uint16_t *u16;          /* array values; runs as (start, len - 1) */
        uint64_t *words;        /* bitmap */
    };
} rb_container;

struct zb_roaring {
    rb_container *c;            /* sorted by key */
    size_t n, cap;
    uint64_t card;              /* values in all containers */
    uint64_t mem;               /* bytes of container data */
};

/*
 * zb_roaring_deserialize with what naming the input in messages ("roaring
 * bitmap", "deletion vector bitmap").
 */
int zb_roaring__deserialize(zb_roaring **out, zb_ctx *ctx, const void *data,
                            size_t len, const char *what);

/* First index i in a[0..n) with a[i] >= v. */
static inline uint32_t rb_lower_bound16(const uint16_t *a, uint32_t n,
                                        uint32_t v)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First run index whose end (start + len) is >= v; n_runs if none. */
static inline uint32_t rb_run_lower_bound(const uint16_t *runs, uint32_t n,
                                          uint32_t v)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)runs[2 * mid] + runs[2 * mid + 1] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif

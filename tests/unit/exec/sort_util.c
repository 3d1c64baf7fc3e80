/*
 * tests/unit/exec/sort_util.c - test array builders and the logical row
 * comparison (see sort_util.h). The comparison reads the formats itself
 * instead of using exec/arrow/arrow_spill.h's layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_util.h"
#include "util/alloc.h"

uint64_t su_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void die(const char *what)
{
    fprintf(stderr, "sort_util: %s failed\n", what);
    abort();
}

void su_schema(struct ArrowSchema *s, const char *format, const char *name,
               int64_t n_children)
{
    if (zb_arrow_schema_init(s, format, name, NULL, 0, ARROW_FLAG_NULLABLE,
                             n_children) != 0)
        die("schema");
}

static void *copy(const void *p, size_t n)
{
    void *d = zb_malloc(n ? n : 1);

    if (d == NULL)
        die("malloc");
    if (n)
        memcpy(d, p, n);
    return d;
}

static void set_validity(struct ArrowArray *a, int64_t n,
                         const uint8_t *valid)
{
    uint8_t *bits;
    int64_t i, nulls = 0;

    a->length = n;
    a->null_count = 0;
    if (valid == NULL)
        return;
    if ((bits = zb_calloc(1, (size_t)(n + 7) / 8 + 1)) == NULL)
        die("malloc");
    for (i = 0; i < n; i++) {
        if (valid[i])
            bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        else
            nulls++;
    }
    a->buffers[0] = bits;
    a->null_count = nulls;
}

void su_fixed(struct ArrowArray *a, int64_t n, int width, const void *vals,
              const uint8_t *valid)
{
    if (zb_arrow_array_init(a, 2, 0) != 0)
        die("array");
    set_validity(a, n, valid);
    a->buffers[1] = copy(vals, (size_t)(n * width));
}

void su_bool(struct ArrowArray *a, int64_t n, const uint8_t *vals,
             const uint8_t *valid)
{
    uint8_t *bits;
    int64_t i;

    if (zb_arrow_array_init(a, 2, 0) != 0)
        die("array");
    set_validity(a, n, valid);
    if ((bits = zb_calloc(1, (size_t)(n + 7) / 8 + 1)) == NULL)
        die("malloc");
    for (i = 0; i < n; i++)
        if (vals[i])
            bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    a->buffers[1] = bits;
}

void su_binary(struct ArrowArray *a, int64_t n, const char *const *vals,
               const size_t *lens, const uint8_t *valid, int wide)
{
    size_t total = 0, at = 0;
    int64_t i;
    uint8_t *data;
    void *offs;

    if (zb_arrow_array_init(a, 3, 0) != 0)
        die("array");
    set_validity(a, n, valid);
    for (i = 0; i < n; i++)
        total += lens[i];
    if ((data = zb_malloc(total + 1)) == NULL ||
        (offs = zb_malloc((size_t)(n + 1) * (wide ? 8 : 4))) == NULL)
        die("malloc");
    for (i = 0; i <= n; i++) {
        if (wide)
            ((int64_t *)offs)[i] = (int64_t)at;
        else
            ((int32_t *)offs)[i] = (int32_t)at;
        if (i < n) {
            memcpy(data + at, vals[i], lens[i]);
            at += lens[i];
        }
    }
    a->buffers[1] = offs;
    a->buffers[2] = data;
}

void su_null(struct ArrowArray *a, int64_t n)
{
    if (zb_arrow_array_init(a, 0, 0) != 0)
        die("array");
    a->length = n;
    a->null_count = n;
}

void su_struct(struct ArrowArray *a, int64_t n, int64_t nc,
               struct ArrowArray *children, const uint8_t *valid)
{
    int64_t i;

    if (zb_arrow_array_init(a, 1, nc) != 0)
        die("array");
    set_validity(a, n, valid);
    for (i = 0; i < nc; i++) {
        *a->children[i] = children[i];
        children[i].release = NULL;
    }
}

void su_list(struct ArrowArray *a, int64_t n, const int64_t *offsets,
             struct ArrowArray *child, const uint8_t *valid, int wide)
{
    void *o;
    int64_t i;

    if (zb_arrow_array_init(a, 2, 1) != 0)
        die("array");
    set_validity(a, n, valid);
    if ((o = zb_malloc((size_t)(n + 1) * (wide ? 8 : 4))) == NULL)
        die("malloc");
    for (i = 0; i <= n; i++) {
        if (wide)
            ((int64_t *)o)[i] = offsets[i];
        else
            ((int32_t *)o)[i] = (int32_t)offsets[i];
    }
    a->buffers[1] = o;
    *a->children[0] = *child;
    child->release = NULL;
}

void su_fixlist(struct ArrowArray *a, int64_t n, struct ArrowArray *child,
                const uint8_t *valid)
{
    if (zb_arrow_array_init(a, 1, 1) != 0)
        die("array");
    set_validity(a, n, valid);
    *a->children[0] = *child;
    child->release = NULL;
}

/* ---- comparison -------------------------------------------------------- */

static int is_valid(const struct ArrowArray *a, int64_t pos)
{
    const uint8_t *v;

    if (a->n_buffers == 0)
        return 0;                       /* null type */
    v = a->buffers[0];
    if (v == NULL || a->null_count == 0)
        return 1;
    return (v[pos >> 3] >> (pos & 7)) & 1;
}

static int fixed_width(const char *f)
{
    if (f[1] == '\0') {
        switch (f[0]) {
        case 'c': case 'C': return 1;
        case 's': case 'S': case 'e': return 2;
        case 'i': case 'I': case 'f': return 4;
        case 'l': case 'L': case 'g': return 8;
        }
        return 0;
    }
    if (f[0] == 'd')
        return 16;
    if (f[0] == 'w')
        return atoi(f + 2);
    if (!strcmp(f, "tdD") || !strcmp(f, "tts") || !strcmp(f, "ttm") ||
        !strcmp(f, "tiM"))
        return 4;
    if (!strcmp(f, "tin"))
        return 16;
    if (f[0] == 't')
        return 8;
    return 0;
}

static int64_t offset_at(const struct ArrowArray *a, int wide, int64_t i)
{
    return wide ? ((const int64_t *)a->buffers[1])[i]
                : ((const int32_t *)a->buffers[1])[i];
}

int su_row_equal(const struct ArrowSchema *s, const struct ArrowArray *a,
                 int64_t ra, const struct ArrowArray *b, int64_t rb)
{
    const char *f = s->format;
    int64_t pa = a->offset + ra, pb = b->offset + rb, i, w;
    int va = is_valid(a, pa), vb = is_valid(b, pb);

    if (va != vb)
        return 0;
    if (!va)
        return 1;
    if (!strcmp(f, "b"))
        return ((((const uint8_t *)a->buffers[1])[pa >> 3] >> (pa & 7)) & 1) ==
               ((((const uint8_t *)b->buffers[1])[pb >> 3] >> (pb & 7)) & 1);
    if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "U") ||
        !strcmp(f, "Z")) {
        int wide = f[0] == 'U' || f[0] == 'Z';
        int64_t la = offset_at(a, wide, pa + 1) - offset_at(a, wide, pa);
        int64_t lb = offset_at(b, wide, pb + 1) - offset_at(b, wide, pb);
        return la == lb &&
               memcmp((const char *)a->buffers[2] + offset_at(a, wide, pa),
                      (const char *)b->buffers[2] + offset_at(b, wide, pb),
                      (size_t)la) == 0;
    }
    if (!strcmp(f, "+s")) {
        for (i = 0; i < s->n_children; i++)
            if (!su_row_equal(s->children[i], a->children[i], pa,
                              b->children[i], pb))
                return 0;
        return 1;
    }
    if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+m")) {
        int wide = f[1] == 'L';
        int64_t la0 = offset_at(a, wide, pa), la = offset_at(a, wide, pa + 1);
        int64_t lb0 = offset_at(b, wide, pb), lb = offset_at(b, wide, pb + 1);
        if (la - la0 != lb - lb0)
            return 0;
        for (i = 0; i < la - la0; i++)
            if (!su_row_equal(s->children[0], a->children[0], la0 + i,
                              b->children[0], lb0 + i))
                return 0;
        return 1;
    }
    if (!strncmp(f, "+w:", 3)) {
        w = atoi(f + 3);
        for (i = 0; i < w; i++)
            if (!su_row_equal(s->children[0], a->children[0], pa * w + i,
                              b->children[0], pb * w + i))
                return 0;
        return 1;
    }
    w = fixed_width(f);
    if (w == 0)
        abort();
    return memcmp((const uint8_t *)a->buffers[1] + pa * w,
                  (const uint8_t *)b->buffers[1] + pb * w, (size_t)w) == 0;
}

int64_t su_first_diff(const struct ArrowSchema *s, const struct ArrowArray *a,
                      const struct ArrowArray *b)
{
    int64_t i;

    if (a->length != b->length)
        return 0;
    for (i = 0; i < a->length; i++)
        if (!su_row_equal(s, a, i, b, i))
            return i;
    return -1;
}

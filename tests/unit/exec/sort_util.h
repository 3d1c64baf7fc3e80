/*
 * tests/unit/exec/sort_util.h - builders of Arrow arrays and schemas for
 * the sort tests, and a row-by-row logical comparison of arrays that
 * knows nothing of the code under test (only the Arrow C Data Interface
 * layout).
 */
#ifndef SORT_UTIL_H
#define SORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "exec/arrow/arrow.h"

/* Deterministic random numbers (splitmix64). */
uint64_t su_rand(uint64_t *state);

/* Schema node with n children, filled by the caller (aborts on failure). */
void su_schema(struct ArrowSchema *s, const char *format, const char *name,
               int64_t n_children);

/*
 * Arrays; valid may be NULL (no nulls), otherwise one byte per row
 * (non-zero: valid). Buffers are copied. Abort on failure.
 */
void su_fixed(struct ArrowArray *a, int64_t n, int width, const void *vals,
              const uint8_t *valid);
void su_bool(struct ArrowArray *a, int64_t n, const uint8_t *vals,
             const uint8_t *valid);
void su_binary(struct ArrowArray *a, int64_t n, const char *const *vals,
               const size_t *lens, const uint8_t *valid, int wide);
void su_null(struct ArrowArray *a, int64_t n);
/* Struct of n rows over children already built (moved in). */
void su_struct(struct ArrowArray *a, int64_t n, int64_t nc,
               struct ArrowArray *children, const uint8_t *valid);
/* List over a built child (moved in); offsets has n + 1 entries. */
void su_list(struct ArrowArray *a, int64_t n, const int64_t *offsets,
             struct ArrowArray *child, const uint8_t *valid, int wide);
void su_fixlist(struct ArrowArray *a, int64_t n, struct ArrowArray *child,
                const uint8_t *valid);

/*
 * Non-zero when row ra of a equals row rb of b (logical rows, before the
 * offsets), nulls and nested values included.
 */
int su_row_equal(const struct ArrowSchema *s, const struct ArrowArray *a,
                 int64_t ra, const struct ArrowArray *b, int64_t rb);

/* Index of the first differing row of two equally long arrays, or -1. */
int64_t su_first_diff(const struct ArrowSchema *s, const struct ArrowArray *a,
                      const struct ArrowArray *b);

#endif

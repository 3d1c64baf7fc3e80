/*
 * Helpers shared by the tests of exec's delete primitives (roaring,
 * spill, keyset).
 */
#ifndef DELETES_TEST_H
#define DELETES_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "zamboni/zamboni.h"
#include "zbtest.h"

#define ZBT_OK(rc_expr) ZBT_RC((rc_expr), ZB_OK)

/* splitmix64: a deterministic stream of well-mixed values. */
static inline uint64_t zbt_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Decodes hex digits into out (at most cap bytes); returns the length. */
static inline size_t zbt_unhex(uint8_t *out, size_t cap, const char *hex)
{
    size_t n = 0;

    while (hex[0] && hex[1] && n < cap) {
        unsigned v = 0;
        int i;
        for (i = 0; i < 2; i++) {
            char c = hex[i];
            v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
        }
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

/*
 * Points TMPDIR, where spill files go, at a fresh folder that is removed
 * when the case ends (an earlier case's folder is gone by then).
 */
static inline const char *zbt_spill_tmpdir(void)
{
    const char *dir;

    unsetenv("TMPDIR");
    dir = zbt_tmpdir();
    setenv("TMPDIR", dir, 1);
    return dir;
}

#endif

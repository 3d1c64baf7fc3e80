/*
 * exec/keyset/keyset_hash.c - zb_keyset_hash: a seeded 64-bit hash of bytes for
 * the key set (see keyset.h). 16 bytes a round enter through a folded
 * 128-bit product while the state moves by an invertible step; a final
 * avalanche makes the top bits (partitions) as good as the low ones
 * (slots). Little-endian reads, so values are the same on every machine.
 */
#include <string.h>

#include "exec/keyset/keyset.h"

#define K0 0x9E3779B97F4A7C15ULL
#define K1 0xBF58476D1CE4E5B9ULL
#define K2 0x94D049BB133111EBULL
#define K3 0xD6E8FEB86659FD93ULL

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static uint64_t mum(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;

    return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

static uint64_t rotl(uint64_t x, int r)
{
    return x << r | x >> (64 - r);
}

uint64_t zb_keyset_hash(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data;
    uint64_t h = seed ^ ((uint64_t)len * K0), a, b;
    size_t n = len;

    /* 16 bytes a round: the state is kept by an invertible step and the
     * input enters through a folded 128-bit product. */
    while (n >= 16) {
        h = rotl(h, 29) * K3 ^ mum(rd64(p) ^ K1, rd64(p + 8) ^ K2);
        p += 16;
        n -= 16;
    }
    a = b = 0;
    if (n >= 8) {
        a = rd64(p);
        memcpy(&b, p + 8, n - 8);
    } else {
        memcpy(&a, p, n);
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if (n < 8)
        a = __builtin_bswap64(a);
    else
        b = __builtin_bswap64(b);
#endif
    h = rotl(h, 29) * K3 ^ mum(a ^ K1, b ^ K2 ^ n);
    /* A full avalanche so that the top bits (partitions) are as good as
     * the low ones (slots). */
    h ^= h >> 30;
    h *= K1;
    h ^= h >> 27;
    h *= K2;
    return h ^ (h >> 31);
}


/*
 * table/value/murmur3.c - MurmurHash3, x86 32-bit variant (Austin Appleby's
 * public-domain algorithm), as Iceberg's bucket transform requires
 * (format/spec.md Appendix B: "32-bit Murmur3 hash, x86 variant, seeded
 * with 0").
 *
 * Algorithm: the input is read as little-endian 32-bit blocks; each block
 * is scrambled (multiply by c1, rotate 15, multiply by c2) and mixed into
 * the state (xor, rotate 13, h*5 + 0xe6546b64). The 1-3 trailing bytes
 * are scrambled the same way without the state rotation. The length is
 * xored in and a final avalanche (fmix32) spreads every input bit over the
 * result. All arithmetic is on uint32_t, so wrap-around is defined.
 *
 * Blocks are assembled byte by byte, which is independent of host
 * endianness and alignment.
 */
#include "table/value/murmur3.h"

#define C1 0xcc9e2d51u
#define C2 0x1b873593u

static uint32_t rotl32(uint32_t x, unsigned r)
{
    return (x << r) | (x >> (32u - r));
}

static uint32_t scramble(uint32_t k)
{
    k *= C1;
    k = rotl32(k, 15);
    k *= C2;
    return k;
}

static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t ice_murmur3_32(const void *data, size_t len, uint32_t seed)
{
    const uint8_t *p = data;
    size_t nblocks = len / 4, i;
    uint32_t h = seed, k;

    for (i = 0; i < nblocks; i++, p += 4) {
        k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
            (uint32_t)p[3] << 24;
        h ^= scramble(k);
        h = rotl32(h, 13);
        h = h * 5u + 0xe6546b64u;
    }
    k = 0;
    switch (len & 3u) {
    case 3:
        k ^= (uint32_t)p[2] << 16;
        /* fall through */
    case 2:
        k ^= (uint32_t)p[1] << 8;
        /* fall through */
    case 1:
        k ^= (uint32_t)p[0];
        h ^= scramble(k);
        break;
    default:
        break;
    }
    /* Java's hash takes the length as an int: only its low 32 bits. */
    h ^= (uint32_t)len;
    return fmix32(h);
}

uint32_t ice_murmur3_long(int64_t v)
{
    uint64_t u = (uint64_t)v;
    uint8_t b[8];
    int i;

    for (i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    return ice_murmur3_32(b, sizeof b, 0);
}

uint32_t ice_murmur3_int(int32_t v)
{
    return ice_murmur3_long((int64_t)v);
}

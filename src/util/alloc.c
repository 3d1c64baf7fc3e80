/*
 * util/alloc.c - counted allocation with a fault hook (see util/alloc.h).
 *
 * Each block carries a 16-byte header that records its size, so that
 * zb_free and zb_realloc keep the live-byte count exact without asking the
 * system allocator. 16 bytes keeps the payload aligned for any scalar type.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

#include "util/alloc.h"

#define HEADER_BYTES 16

static atomic_uint_fast64_t live_bytes;
static atomic_uint_fast64_t alloc_count;
static atomic_uint_fast64_t fail_at;       /* 0: off */
static atomic_int fail_persistent;
static atomic_uint_fast64_t failed_count;

static int should_fail(void)
{
    uint64_t n = atomic_fetch_add(&alloc_count, 1) + 1;
    uint64_t at = atomic_load(&fail_at);

    if (at == 0 || n < at)
        return 0;
    if (n > at && !atomic_load(&fail_persistent))
        return 0;
    atomic_fetch_add(&failed_count, 1);
    return 1;
}

static void *header_to_user(unsigned char *h, size_t bytes)
{
    memcpy(h, &bytes, sizeof bytes);
    atomic_fetch_add(&live_bytes, bytes);
    return h + HEADER_BYTES;
}

static unsigned char *user_to_header(void *p, size_t *bytes)
{
    unsigned char *h = (unsigned char *)p - HEADER_BYTES;

    memcpy(bytes, h, sizeof *bytes);
    return h;
}

void *zb_malloc(size_t bytes)
{
    unsigned char *h;
    size_t total;

    if (zb_add_overflow(&total, bytes, HEADER_BYTES) || should_fail())
        return NULL;
    if ((h = malloc(total)) == NULL)
        return NULL;
    return header_to_user(h, bytes);
}

void *zb_calloc(size_t count, size_t size)
{
    size_t bytes;
    void *p;

    if (zb_mul_overflow(&bytes, count, size))
        return NULL;
    if ((p = zb_malloc(bytes)) != NULL)
        memset(p, 0, bytes);
    return p;
}

void *zb_realloc(void *ptr, size_t bytes)
{
    unsigned char *h, *nh;
    size_t old, total;

    if (ptr == NULL)
        return zb_malloc(bytes);
    if (zb_add_overflow(&total, bytes, HEADER_BYTES) || should_fail())
        return NULL;
    h = user_to_header(ptr, &old);
    if ((nh = realloc(h, total)) == NULL)
        return NULL;
    atomic_fetch_sub(&live_bytes, old);
    return header_to_user(nh, bytes);
}

void zb_free(void *ptr)
{
    size_t bytes;
    unsigned char *h;

    if (ptr == NULL)
        return;
    h = user_to_header(ptr, &bytes);
    atomic_fetch_sub(&live_bytes, bytes);
    free(h);
}

char *zb_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p;

    if (len == SIZE_MAX || (p = zb_malloc(len + 1)) == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *zb_strdup(const char *s)
{
    return zb_strndup(s, strlen(s));
}

uint64_t zb_alloc_live_bytes(void)
{
    return atomic_load(&live_bytes);
}

uint64_t zb_alloc__fail_at(uint64_t nth, int persistent)
{
    atomic_store(&alloc_count, 0);
    atomic_store(&fail_persistent, persistent);
    atomic_store(&fail_at, nth);
    return atomic_exchange(&failed_count, 0);
}

uint64_t zb_alloc__count(void)
{
    return atomic_load(&alloc_count);
}

void zb_alloc_tune_process(void)
{
#if defined(__GLIBC__)
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    /* glibc gives threads up to 8 arenas per core, and each keeps the
     * blocks its threads freed: with the thresholds above that resident
     * slack is not in the budget. Measured (bench/memory_budget.sh b,
     * maintenance --parallel 4 at a 256 MiB budget, 2 cores): 518 MiB
     * peak RSS with glibc's default, 364 MiB with one arena per core. */
    mallopt(M_ARENA_MAX, cores < 2 ? 2 : (int)(cores > 64 ? 64 : cores));
#endif
}

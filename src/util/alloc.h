/*
 * util/alloc.h - the only allocator that src/ calls.
 *
 * Wrapping malloc gives two things the system allocator does not: a count
 * of the bytes the library holds (an atomic, as Redis counts used_memory),
 * and a fault hook that makes the Nth allocation fail, so that tests can
 * prove every ENOMEM path returns cleanly and leaks nothing (SQLite's
 * faultsim). tools/checksrc rejects direct malloc/free/strdup in src/.
 *
 * The size helpers check arithmetic on sizes read from files before any
 * allocation is made from them.
 */
#ifndef ZB_UTIL_ALLOC_H
#define ZB_UTIL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *zb_malloc(size_t bytes);
void *zb_calloc(size_t count, size_t size);
void *zb_realloc(void *ptr, size_t bytes);
void zb_free(void *ptr);
char *zb_strdup(const char *s);
char *zb_strndup(const char *s, size_t n);

/*
 * Process-wide allocator settings for a program that moves large batches:
 * called once by executables (the CLI, benchmarks), never by the library.
 * With glibc it keeps freed blocks of up to 256 MiB in the heap instead of
 * returning each to the kernel (its default for blocks over 128 KiB),
 * which otherwise costs a page fault per 4 KiB every time a batch buffer
 * is allocated again; measured: 1.2M to 3.4M rows/s in bench_parquet_read.
 * The memory budget, not the allocator, bounds what is held; so that the
 * allocator's own slack stays small, threads share one arena per core
 * (glibc's default is up to 8 per core).
 */
void zb_alloc_tune_process(void);

/* Bytes currently held through zb_malloc and friends. */
uint64_t zb_alloc_live_bytes(void);

/*
 * Test hook: the nth allocation from now (1 = the next one) fails, and so
 * does every later one when persistent is non-zero. 0 turns faults off.
 * Returns how many allocations failed since the last call.
 */
uint64_t zb_alloc__fail_at(uint64_t nth, int persistent);

/* Number of allocations made so far (to size a torture loop). */
uint64_t zb_alloc__count(void);

/* a + b and a * b into *out; non-zero on overflow (out untouched). */
static inline int zb_add_overflow(size_t *out, size_t a, size_t b)
{
    if (a > SIZE_MAX - b)
        return 1;
    *out = a + b;
    return 0;
}

static inline int zb_mul_overflow(size_t *out, size_t a, size_t b)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 1;
    *out = a * b;
    return 0;
}

#endif

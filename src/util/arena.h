/*
 * util/arena.h - per-task bump allocation, freed all at once.
 *
 * A task's many small objects (manifest entries, paths, metadata nodes)
 * come from its arena and are released together when the task ends, so
 * there are no per-object free paths to get wrong (libgit2's git_pool).
 * The arena has a cap: an allocation that would take it past max_bytes
 * returns NULL, as an allocation failure does; callers report ZB_ENOMEM.
 * Not thread-safe: one arena belongs to one task.
 */
#ifndef ZB_UTIL_ARENA_H
#define ZB_UTIL_ARENA_H

#include <stdarg.h>
#include <stddef.h>

#include "util/err.h"

typedef struct zb_arena zb_arena;

/* max_bytes bounds the memory the arena takes from the allocator. */
int zb_arena_new(zb_arena **out, size_t max_bytes);
void zb_arena_free(zb_arena *a);

/* Releases everything allocated, keeping one chunk for reuse. */
void zb_arena_reset(zb_arena *a);

/* Returns memory aligned for any scalar type, or NULL. */
void *zb_arena_alloc(zb_arena *a, size_t bytes);
void *zb_arena_calloc(zb_arena *a, size_t count, size_t size);
char *zb_arena_strdup(zb_arena *a, const char *s);
char *zb_arena_strndup(zb_arena *a, const char *s, size_t n);
char *zb_arena_sprintf(zb_arena *a, const char *fmt, ...) ZB_PRINTF(2, 3);

/* Bytes the arena holds from the allocator, chunk headers included. */
size_t zb_arena_held_bytes(const zb_arena *a);

#endif

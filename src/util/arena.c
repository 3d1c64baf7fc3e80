/*
 * util/arena.c - bump allocation in a list of chunks (see util/arena.h).
 *
 * Allocations are carved from the newest chunk. When it is full a new chunk
 * of at least CHUNK_BYTES is added; a request larger than a quarter of that
 * gets a chunk of its own sized to fit, so one big string does not waste a
 * chunk's tail. Reset keeps the first chunk, whose size is the common case.
 */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"

#define CHUNK_BYTES (64 * 1024)
#define ALIGN 16

struct chunk {
    struct chunk *next;   /* older chunk */
    size_t size;          /* usable bytes after the header */
    size_t used;
    /* data follows, aligned by the header size below */
};

#define CHUNK_HEADER ((sizeof(struct chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1))

struct zb_arena {
    struct chunk *head;   /* newest chunk */
    size_t held_bytes;
    size_t max_bytes;
};

int zb_arena_new(zb_arena **out, size_t max_bytes)
{
    zb_arena *a;

    *out = NULL;
    if ((a = zb_calloc(1, sizeof *a)) == NULL)
        return ZB_ENOMEM;
    a->max_bytes = max_bytes;
    *out = a;
    return ZB_OK;
}

static void free_chunks(struct chunk *c, const struct chunk *keep)
{
    while (c && c != keep) {
        struct chunk *next = c->next;
        zb_free(c);
        c = next;
    }
}

void zb_arena_free(zb_arena *a)
{
    if (a == NULL)
        return;
    free_chunks(a->head, NULL);
    zb_free(a);
}

void zb_arena_reset(zb_arena *a)
{
    struct chunk *first = a->head;

    if (first == NULL)
        return;
    while (first->next)
        first = first->next;
    free_chunks(a->head, first);
    first->used = 0;
    a->head = first;
    a->held_bytes = CHUNK_HEADER + first->size;
}

static struct chunk *add_chunk(zb_arena *a, size_t need)
{
    size_t size = need > CHUNK_BYTES / 4 ? need : CHUNK_BYTES;
    size_t total;
    struct chunk *c;

    /* held_bytes never exceeds max_bytes, so the subtraction is safe. */
    if (zb_add_overflow(&total, size, CHUNK_HEADER) ||
        total > a->max_bytes - a->held_bytes)
        return NULL;
    if ((c = zb_malloc(total)) == NULL)
        return NULL;
    c->size = size;
    c->used = 0;
    if (need > CHUNK_BYTES / 4 && a->head) {
        /* A private chunk goes behind the current one, which keeps its
         * free tail for the small allocations that follow. */
        c->next = a->head->next;
        a->head->next = c;
    } else {
        c->next = a->head;
        a->head = c;
    }
    a->held_bytes += total;
    return c;
}

void *zb_arena_alloc(zb_arena *a, size_t bytes)
{
    struct chunk *c = a->head;
    size_t need;
    void *p;

    if (zb_add_overflow(&need, bytes ? bytes : 1, ALIGN - 1))
        return NULL;
    need &= ~(size_t)(ALIGN - 1);
    if (c == NULL || c->size - c->used < need) {
        if ((c = add_chunk(a, need)) == NULL)
            return NULL;
    }
    p = (unsigned char *)c + CHUNK_HEADER + c->used;
    c->used += need;
    return p;
}

void *zb_arena_calloc(zb_arena *a, size_t count, size_t size)
{
    size_t bytes;
    void *p;

    if (zb_mul_overflow(&bytes, count, size))
        return NULL;
    if ((p = zb_arena_alloc(a, bytes)) != NULL)
        memset(p, 0, bytes);
    return p;
}

char *zb_arena_strndup(zb_arena *a, const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p;

    if (len == SIZE_MAX || (p = zb_arena_alloc(a, len + 1)) == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *zb_arena_strdup(zb_arena *a, const char *s)
{
    return zb_arena_strndup(a, s, strlen(s));
}

char *zb_arena_sprintf(zb_arena *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (p = zb_arena_alloc(a, (size_t)n + 1)) == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

size_t zb_arena_held_bytes(const zb_arena *a)
{
    return a->held_bytes;
}

/*
 * util/buf.c - capped growable buffers (see util/buf.h).
 *
 * Growth doubles the allocation, clamped to max_bytes + 1 (the NUL), so
 * appends are amortised O(1) and a buffer near its cap does not allocate
 * twice what it may ever hold.
 */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

void zb_buf_init(zb_buf *b, size_t max_bytes)
{
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
    b->max_bytes = max_bytes;
}

void zb_buf_free(zb_buf *b)
{
    zb_free(b->ptr);
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
}

void zb_buf_clear(zb_buf *b)
{
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

int zb_buf_reserve(zb_buf *b, size_t extra)
{
    size_t need, want;
    char *p;

    if (zb_add_overflow(&need, b->len, extra) || need > b->max_bytes ||
        need == SIZE_MAX)
        return ZB_ENOMEM;
    need += 1; /* the NUL */
    if (need <= b->cap)
        return ZB_OK;
    want = b->cap ? b->cap : 64;
    while (want < need)
        want = want > SIZE_MAX / 2 ? need : want * 2;
    /* want - 1 > max_bytes, not want > max_bytes + 1: that wraps at
     * max_bytes == SIZE_MAX. */
    if (want - 1 > b->max_bytes)
        want = b->max_bytes + 1;
    if ((p = zb_realloc(b->ptr, want)) == NULL)
        return ZB_ENOMEM;
    if (b->ptr == NULL)
        p[0] = '\0';
    b->ptr = p;
    b->cap = want;
    return ZB_OK;
}

int zb_buf_append(zb_buf *b, const void *data, size_t n)
{
    int rc;

    if ((rc = zb_buf_reserve(b, n)) < 0)
        return rc;
    if (n)
        memcpy(b->ptr + b->len, data, n);
    b->len += n;
    b->ptr[b->len] = '\0';
    return ZB_OK;
}

int zb_buf_puts(zb_buf *b, const char *s)
{
    return zb_buf_append(b, s, strlen(s));
}

int zb_buf_putc(zb_buf *b, char c)
{
    return zb_buf_append(b, &c, 1);
}

int zb_buf_vappendf(zb_buf *b, const char *fmt, va_list ap)
{
    va_list copy;
    int n, rc;

    va_copy(copy, ap);
    n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return ZB_ERROR;
    if ((rc = zb_buf_reserve(b, (size_t)n)) < 0)
        return rc;
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return ZB_OK;
}

int zb_buf_appendf(zb_buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = zb_buf_vappendf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void zb_buf_truncate(zb_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->ptr[len] = '\0';
    }
}

char *zb_buf_detach(zb_buf *b)
{
    char *p = b->ptr;

    if (p == NULL)
        p = zb_strdup("");
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
    return p;
}

const char *zb_buf_cstr(const zb_buf *b)
{
    return b->ptr ? b->ptr : "";
}

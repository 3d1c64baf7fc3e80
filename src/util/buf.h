/*
 * util/buf.h - growable byte buffers with a cap, also used as strings.
 *
 * Every buffer that grows has a maximum (curl's dynbuf "toobig"): input
 * that would push it past the cap fails with ZB_ENOMEM instead of eating
 * the machine. The bytes are always followed by a NUL that is not counted
 * in len, so a buffer of text is a C string as it is.
 *
 *     zb_buf b;
 *     zb_buf_init(&b, 1 << 20);
 *     if ((rc = zb_buf_appendf(&b, "%s/%s", dir, name)) < 0) ...
 *     use(b.ptr, b.len);
 *     zb_buf_free(&b);
 *
 * The functions return ZB_OK or ZB_ENOMEM and leave the buffer as it was on
 * failure. They do not touch a zb_ctx; callers report the error.
 */
#ifndef ZB_UTIL_BUF_H
#define ZB_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "util/err.h"

typedef struct zb_buf {
    char *ptr;          /* NULL until the first append */
    size_t len;         /* bytes used, not counting the NUL */
    size_t cap;         /* bytes allocated */
    size_t max_bytes;   /* len never exceeds this */
} zb_buf;

#define ZB_BUF_INIT(max) { NULL, 0, 0, (max) }

void zb_buf_init(zb_buf *b, size_t max_bytes);
void zb_buf_free(zb_buf *b);

/* Empties the buffer and keeps its memory. */
void zb_buf_clear(zb_buf *b);

/* Makes room for extra more bytes (plus the NUL) without changing len. */
int zb_buf_reserve(zb_buf *b, size_t extra);

int zb_buf_append(zb_buf *b, const void *data, size_t n);
int zb_buf_puts(zb_buf *b, const char *s);
int zb_buf_putc(zb_buf *b, char c);
int zb_buf_appendf(zb_buf *b, const char *fmt, ...) ZB_PRINTF(2, 3);
int zb_buf_vappendf(zb_buf *b, const char *fmt, va_list ap) ZB_PRINTF(2, 0);

/*
 * zb_buf_append for the hot path: a few bytes into a buffer that usually
 * has room, inline; falls back to zb_buf_append when it has not.
 */
static inline int zb_buf_append_small(zb_buf *b, const void *data, size_t n)
{
    if (n < b->cap - b->len) {   /* room for the bytes and the NUL */
        memcpy(b->ptr + b->len, data, n);
        b->len += n;
        b->ptr[b->len] = '\0';
        return ZB_OK;
    }
    return zb_buf_append(b, data, n);
}

/* Shortens the buffer to len bytes (len <= b->len). */
void zb_buf_truncate(zb_buf *b, size_t len);

/*
 * Hands the bytes to the caller (free with zb_free) and empties the
 * buffer. Returns an empty string for a buffer that never grew, or NULL
 * when that allocation fails.
 */
char *zb_buf_detach(zb_buf *b);

/* The contents as a C string; "" for an empty buffer. */
const char *zb_buf_cstr(const zb_buf *b);

#endif

/*
 * exec/spill.c - unlinked temporary files with a process-wide disk limit
 * (see spill.h).
 *
 * The limit is charged when bytes go to the file, not when they enter the
 * buffer, with a compare-and-swap loop on one atomic counter, so that
 * concurrent spills never pass it together. A file's charge is given back
 * when it is closed, and a discarded range's when the hole is punched.
 */
#define _GNU_SOURCE          /* fallocate's FALLOC_FL_PUNCH_HOLE */
#define ZB_MODULE "spill"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exec/spill.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

struct zb_spill {
    int fd;
    char *buf;
    size_t buf_bytes;
    size_t buf_len;            /* bytes in buf (writing: to flush) */
    size_t buf_pos;            /* reading: next byte of buf to hand out */
    uint64_t file_bytes;       /* bytes in the file, charged to the limit */
    uint64_t read_off;         /* file offset that follows buf */
    uint64_t discarded;        /* bytes punched out, uncharged already */
    int reading;               /* rewound at least once */
    char purpose[24];
};

static atomic_uint_fast64_t spill_used;
static atomic_uint_fast64_t spill_limit;
static atomic_int pack_mode = ZB_SPILL_PACK_AUTO;

void zb_spill_set_limit(uint64_t limit_bytes)
{
    atomic_store(&spill_limit, limit_bytes);
}

uint64_t zb_spill_limit(void)
{
    return atomic_load(&spill_limit);
}

uint64_t zb_spill_used_bytes(void)
{
    return atomic_load(&spill_used);
}

const char *zb_spill_dir(void)
{
    const char *dir = getenv("TMPDIR");

    return dir && *dir ? dir : "/tmp";
}

/* Takes n bytes of the limit; non-zero if that would pass it. */
static int charge(uint64_t n)
{
    uint_fast64_t used = atomic_load(&spill_used);
    uint64_t limit;

    do {
        limit = atomic_load(&spill_limit);
        if (limit && (n > limit || used > limit - n))
            return -1;
    } while (!atomic_compare_exchange_weak(&spill_used, &used, used + n));
    return 0;
}

static void uncharge(uint64_t n)
{
    atomic_fetch_sub(&spill_used, n);
}

int zb_spill_open(zb_spill **out, zb_ctx *ctx, const char *purpose,
                  size_t buf_bytes)
{
    zb_spill *s = NULL;
    zb_buf path = ZB_BUF_INIT(8192);
    const char *dir = zb_spill_dir();
    int rc;

    ZB_ASSERT_ARG(out && ctx);
    *out = NULL;
    if (buf_bytes == 0)
        buf_bytes = ZB_SPILL_DEFAULT_BUF_BYTES;
    if (buf_bytes < 512)
        buf_bytes = 512;
    if ((s = zb_calloc(1, sizeof *s)) == NULL ||
        (s->buf = zb_malloc(buf_bytes)) == NULL ||
        zb_buf_appendf(&path, "%s/zamboni-spill-XXXXXX", dir) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    s->fd = -1;
    s->buf_bytes = buf_bytes;
    snprintf(s->purpose, sizeof s->purpose, "%s", purpose ? purpose : "spill");
    if ((s->fd = mkstemp(path.ptr)) < 0) {
        rc = zb_fail(ctx, ZB_EIO, "%s: cannot create a spill file in %s: %s",
                     s->purpose, dir, strerror(errno));
        goto done;
    }
    /* Unnamed from now on: the system frees it when the fd closes. */
    if (unlink(path.ptr) != 0) {
        rc = zb_fail(ctx, ZB_EIO, "%s: cannot unlink spill file %s: %s",
                     s->purpose, path.ptr, strerror(errno));
        goto done;
    }
    *out = s;
    s = NULL;
    rc = ZB_OK;
done:
    zb_spill_close(s);
    zb_buf_free(&path);
    return rc;
}

void zb_spill_close(zb_spill *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    uncharge(s->file_bytes - s->discarded);
    zb_free(s->buf);
    zb_free(s);
}

/* Writes n bytes at the end of the file, charging the limit. */
static int write_out(zb_spill *s, zb_ctx *ctx, const char *p, size_t n)
{
    if (n == 0)
        return ZB_OK;
    if (charge(n) != 0)
        return zb_fail(ctx, ZB_ENOMEM,
                       "%s: spill-disk limit of %llu bytes reached (spill "
                       "files hold %llu bytes, %zu more wanted)",
                       s->purpose, (unsigned long long)zb_spill_limit(),
                       (unsigned long long)zb_spill_used_bytes(), n);
    s->file_bytes += n;
    while (n) {
        ssize_t w = pwrite(s->fd, p, n, (off_t)(s->file_bytes - n));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            s->file_bytes -= n;
            uncharge(n);
            return zb_fail(ctx, ZB_EIO, "%s: writing a spill file in %s: %s",
                           s->purpose, zb_spill_dir(), strerror(e));
        }
        p += w;
        n -= (size_t)w;
    }
    return ZB_OK;
}

int zb_spill_flush(zb_spill *s, zb_ctx *ctx)
{
    int rc;

    if (s->reading)
        return ZB_OK;
    rc = write_out(s, ctx, s->buf, s->buf_len);
    if (rc == ZB_OK)
        s->buf_len = 0;
    return rc;
}

/* Allocates the buffer again after zb_spill_drop_buffer. */
static int have_buffer(zb_spill *s, zb_ctx *ctx)
{
    if (s->buf == NULL && (s->buf = zb_malloc(s->buf_bytes)) == NULL)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

int zb_spill_drop_buffer(zb_spill *s, zb_ctx *ctx)
{
    int rc;

    if ((rc = zb_spill_flush(s, ctx)) < 0)
        return rc;
    zb_free(s->buf);
    s->buf = NULL;
    /* Whatever was read ahead is read again. */
    if (s->reading) {
        s->read_off -= s->buf_len - s->buf_pos;
        s->buf_len = s->buf_pos = 0;
    }
    return ZB_OK;
}

int zb_spill_write(zb_spill *s, zb_ctx *ctx, const void *data, size_t n)
{
    const char *p = data;
    int rc;

    ZB_ASSERT_ARG(s && !s->reading);
    if ((rc = have_buffer(s, ctx)) < 0)
        return rc;
    if (n <= s->buf_bytes - s->buf_len) {
        memcpy(s->buf + s->buf_len, p, n);
        s->buf_len += n;
        return ZB_OK;
    }
    if ((rc = zb_spill_flush(s, ctx)) < 0)
        return rc;
    if (n >= s->buf_bytes)
        return write_out(s, ctx, p, n);
    memcpy(s->buf, p, n);
    s->buf_len = n;
    return ZB_OK;
}

int zb_spill_rewind(zb_spill *s, zb_ctx *ctx)
{
    int rc;

    ZB_ASSERT_ARG(s);
    if ((rc = zb_spill_flush(s, ctx)) < 0)
        return rc;
    s->reading = 1;
    s->buf_len = 0;
    s->buf_pos = 0;
    s->read_off = 0;
    return ZB_OK;
}

/* Reads up to n bytes at off; *got 0 at the end. */
static int pread_some(zb_spill *s, zb_ctx *ctx, void *dst, size_t n,
                      uint64_t off, size_t *got)
{
    ssize_t r;

    do
        r = pread(s->fd, dst, n, (off_t)off);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return zb_fail(ctx, ZB_EIO, "%s: reading a spill file in %s: %s",
                       s->purpose, zb_spill_dir(), strerror(errno));
    *got = (size_t)r;
    return ZB_OK;
}

int zb_spill_read(zb_spill *s, zb_ctx *ctx, void *dst, size_t n,
                  size_t *got)
{
    char *d = dst;
    size_t done = 0, k = 0;
    int rc;

    ZB_ASSERT_ARG(s && s->reading && got);
    if ((rc = have_buffer(s, ctx)) < 0)
        return rc;
    while (done < n) {
        if (s->buf_pos == s->buf_len) {
            if (s->read_off >= s->file_bytes)
                break;
            if (n - done >= s->buf_bytes) {
                /* Large reads go straight to the caller. */
                if ((rc = pread_some(s, ctx, d + done, n - done,
                                     s->read_off, &k)) < 0)
                    return rc;
                if (k == 0)
                    break;
                s->read_off += k;
                done += k;
                continue;
            }
            if ((rc = pread_some(s, ctx, s->buf, s->buf_bytes, s->read_off,
                                 &k)) < 0)
                return rc;
            if (k == 0)
                break;
            s->read_off += k;
            s->buf_len = k;
            s->buf_pos = 0;
        }
        k = s->buf_len - s->buf_pos;
        if (k > n - done)
            k = n - done;
        memcpy(d + done, s->buf + s->buf_pos, k);
        s->buf_pos += k;
        done += k;
    }
    *got = done;
    return ZB_OK;
}

int zb_spill_read_full(zb_spill *s, zb_ctx *ctx, void *dst, size_t n)
{
    size_t got;
    int rc;

    if ((rc = zb_spill_read(s, ctx, dst, n, &got)) < 0)
        return rc;
    if (got != n)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: spill file ends %zu bytes short of a %zu-byte "
                       "read", s->purpose, n - got, n);
    return ZB_OK;
}

int zb_spill_pread(zb_spill *s, zb_ctx *ctx, void *dst, size_t n,
                   uint64_t offset)
{
    size_t done = 0, k = 0;
    int rc;

    ZB_ASSERT_ARG(s && (s->reading || s->buf_len == 0));
    if (offset > s->file_bytes || n > s->file_bytes - offset)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: read of %zu bytes at %llu passes the spill "
                       "file's end (%llu bytes)", s->purpose, n,
                       (unsigned long long)offset,
                       (unsigned long long)s->file_bytes);
    while (done < n) {
        if ((rc = pread_some(s, ctx, (char *)dst + done, n - done,
                             offset + done, &k)) < 0)
            return rc;
        if (k == 0)
            return zb_fail(ctx, ZB_EIO, "%s: spill file shorter than written",
                           s->purpose);
        done += k;
    }
    return ZB_OK;
}

uint64_t zb_spill_size(const zb_spill *s)
{
    return s->file_bytes + (s->reading ? 0 : s->buf_len);
}

int zb_spill_patch(zb_spill *s, zb_ctx *ctx, uint64_t off, const void *data,
                   size_t n)
{
    const char *p = data;
    size_t in_file = 0;

    ZB_ASSERT_ARG(s && !s->reading);
    if (off > zb_spill_size(s) || n > zb_spill_size(s) - off)
        return zb_fail(ctx, ZB_EINVAL, "%s: patch of %zu bytes at %llu "
                       "passes the spill file's end", s->purpose, n,
                       (unsigned long long)off);
    if (off < s->file_bytes) {
        in_file = s->file_bytes - off < n ? (size_t)(s->file_bytes - off) : n;
        while (in_file) {
            ssize_t w = pwrite(s->fd, p, in_file, (off_t)off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return zb_fail(ctx, ZB_EIO, "%s: writing a spill file in "
                               "%s: %s", s->purpose, zb_spill_dir(),
                               strerror(w < 0 ? errno : ENOSPC));
            p += w;
            off += (uint64_t)w;
            n -= (size_t)w;
            in_file -= (size_t)w;
        }
    }
    if (n)
        memcpy(s->buf + (off - s->file_bytes), p, n);
    return ZB_OK;
}

void zb_spill_discard(zb_spill *s, uint64_t off, uint64_t n)
{
    if (s == NULL || n == 0 || off > s->file_bytes ||
        n > s->file_bytes - off)
        return;
    /* best effort: a file system without holes keeps the bytes until
       the file closes, which is what happened before */
    if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)off, (off_t)n) == 0) {
        s->discarded += n;
        uncharge(n);
    }
}

void zb_spill_set_pack(zb_spill_pack mode)
{
    atomic_store(&pack_mode, (int)mode);
}

zb_spill_pack zb_spill_pack_mode(void)
{
    return (zb_spill_pack)atomic_load(&pack_mode);
}

int zb_spill_should_pack(uint64_t more)
{
    struct statvfs v;
    uint64_t free_bytes;

    switch (zb_spill_pack_mode()) {
    case ZB_SPILL_PACK_ALWAYS: return 1;
    case ZB_SPILL_PACK_NEVER: return 0;
    default: break;
    }
    if (statvfs(zb_spill_dir(), &v) != 0)
        return 0;
    free_bytes = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
    /* pack once the spill files would hold as much as is left free:
       the spill then never takes more than about half the free disk
       uncompressed, and the table's own output keeps room */
    return free_bytes < more + zb_spill_used_bytes() + ZB_SPILL_PACK_SLACK;
}

/*
 * util/file.c - a capped whole-file read (see util/file.h): open, fstat
 * (mode, and the regular-file check when asked), then read in chunks
 * until end of file, failing as soon as the total passes the cap so that
 * a huge or endless file never fills memory.
 */
#define ZB_MODULE "file"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

int zb_file_read_capped(zb_buf *out, unsigned *mode_out, zb_ctx *ctx,
                        const char *path, size_t max_bytes, unsigned flags)
{
    char chunk[16384];
    struct stat st;
    int fd, rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && path);
    zb_buf_clear(out);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return zb_fail(ctx, ZB_ENOTFOUND, "%s: no such file", path);
        return zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        rc = zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
        close(fd);
        return rc;
    }
    if ((flags & ZB_FILE_REGULAR) && !S_ISREG(st.st_mode)) {
        close(fd);
        return zb_fail(ctx, ZB_EUSAGE, "%s is not a regular file", path);
    }
    if (mode_out != NULL)
        *mode_out = (unsigned)st.st_mode;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (out->len + (size_t)n > max_bytes) {
            rc = zb_fail(ctx, ZB_EUSAGE, "%s: larger than %zu bytes", path,
                         max_bytes);
            break;
        }
        if (zb_buf_append(out, chunk, (size_t)n) < 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
    }
    close(fd);
    return rc;
}

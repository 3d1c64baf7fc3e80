/*
 * util/file.h - a small local file read whole into memory, refusing past
 * a cap: the configuration files (.env, zamboni.yml, table-config.json)
 * that are read by path with POSIX calls, not through a zb_io.
 *
 *     zb_buf text = ZB_BUF_INIT(max);
 *     if ((rc = zb_file_read_capped(&text, NULL, ctx, path, max,
 *                                   ZB_FILE_REGULAR)) < 0) ...
 *     parse(text.ptr, text.len);
 *     zb_buf_free(&text);
 */
#ifndef ZB_UTIL_FILE_H
#define ZB_UTIL_FILE_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Refuse anything but a regular file, before reading (a FIFO would
 * block, a directory says nothing useful). */
#define ZB_FILE_REGULAR 0x1u

/*
 * Reads the whole file at path into out (cleared first), at most
 * max_bytes, and its mode into *mode_out (may be NULL), taken from the
 * descriptor read rather than from whatever the path names later.
 * ZB_ENOTFOUND when missing; ZB_EUSAGE when larger than max_bytes or,
 * with ZB_FILE_REGULAR, not a regular file (the file is the user's);
 * ZB_EIO; ZB_ENOMEM. The message names the path.
 */
int zb_file_read_capped(zb_buf *out, unsigned *mode_out, zb_ctx *ctx,
                        const char *path, size_t max_bytes, unsigned flags);

#endif

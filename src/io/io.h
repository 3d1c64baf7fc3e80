/*
 * io/io.h - what the io module shows the layers above it, beyond the
 * public zamboni/io.h.
 */
#ifndef ZB_IO_IO_H
#define ZB_IO_IO_H

#include "zamboni/io.h"
#include "zamboni/sys/io_backend.h"
#include "util/buf.h"

/*
 * Reads a whole file, appending it to out. A file larger than what the
 * buffer may still take (its max_bytes) is ZB_ENOMEM before anything is
 * read, with a message naming the file and both sizes.
 */
int zb_io__read_all(zb_buf *out, zb_io *io, zb_ctx *ctx, const char *uri);

#endif

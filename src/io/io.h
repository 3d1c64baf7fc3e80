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

/*
 * The state of backend in io (what its state_new made), or NULL when io
 * does not have it; for a backend's own setters (zb_io_s3_add_prefix).
 */
void *zb_io__backend_state(zb_io *io, const zb_io_backend *backend);

#endif

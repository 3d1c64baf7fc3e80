/*
 * zamboni/sys/io_backend.h - for authors of storage backends.
 *
 * A backend is a const vtable, version first, so that a new store is one
 * file that fills it in (SQLite's sqlite3_vfs, libgit2's odb backends).
 * zb_io routes a URI to the first backend whose accepts() says yes and
 * calls it with that backend's state. Each call reports its errors in ctx
 * as the public functions of zamboni/io.h document. Objects a backend
 * returns through void ** are its own; it frees them in close, commit,
 * abort and list_close.
 */
#ifndef ZAMBONI_SYS_IO_BACKEND_H
#define ZAMBONI_SYS_IO_BACKEND_H

#include "zamboni/io.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZB_IO_BACKEND_VERSION 3

typedef struct zb_io_backend {
    unsigned version;          /* ZB_IO_BACKEND_VERSION */
    const char *name;          /* "local", "s3" */

    int (*state_new)(void **state, zb_ctx *ctx);
    void (*state_free)(void *state);
    int (*accepts)(const char *uri);

    int (*stat)(zb_io_stat *out, void *state, zb_ctx *ctx, const char *uri);

    int (*open)(void **file, uint64_t *size_out, void *state, zb_ctx *ctx,
                const char *uri);
    int (*pread)(void *file, zb_ctx *ctx, uint64_t offset, void *dst,
                 size_t len);
    void (*close)(void *file);

    int (*writer_open)(void **writer, void *state, zb_ctx *ctx,
                       const char *uri);
    int (*writer_write)(void *writer, zb_ctx *ctx, const void *data,
                        size_t len);
    int (*writer_commit)(void *writer, zb_ctx *ctx);
    void (*writer_abort)(void *writer);

    int (*remove)(void *state, zb_ctx *ctx, const char *uri);

    int (*list_open)(void **lister, void *state, zb_ctx *ctx,
                     const char *uri);
    int (*list_next)(void *lister, zb_ctx *ctx, zb_io_entry *entry);
    void (*list_close)(void *lister);

    /* Optional (NULL: zb_io loops over pread). Reads every range; a store
     * with latency fetches them at once and coalesces near ones. */
    int (*pread_vec)(void *file, zb_ctx *ctx, const zb_io_range *ranges,
                     size_t n);
    /* Optional (NULL: zb_io loops over remove). Deletes n files, each
     * one's result in rcs[i] (ZB_OK, ZB_ENOTFOUND or a failure); returns
     * ZB_OK when each was attempted. */
    int (*remove_batch)(void *state, zb_ctx *ctx, const char *const *uris,
                        size_t n, int *rcs);
    /* Optional (NULL: open). open with the object's size known from
     * metadata, so that a store need not ask for it: Iceberg manifests
     * carry every file's size. *size_out is the size the store reports
     * when it says one, else size. */
    int (*open_sized)(void **file, uint64_t *size_out, void *state,
                      zb_ctx *ctx, const char *uri, uint64_t size);
    /* Optional (NULL: remove, then a new file; readers may find no file
     * in between). Writes a whole file that replaces any file of that
     * name in one step: readers see the old or the new content. */
    int (*write_replace)(void *state, zb_ctx *ctx, const char *uri,
                         const void *data, size_t len);
} zb_io_backend;

/* The local filesystem backend. */
extern const zb_io_backend zb_io_local;

/*
 * Adds a backend to io, consulted before those already there. Returns
 * ZB_OK, ZB_ENOMEM, or what the backend's state_new returned.
 */
int zb_io_add_backend(zb_io *io, zb_ctx *ctx, const zb_io_backend *backend);

#ifdef __cplusplus
}
#endif
#endif

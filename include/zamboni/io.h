/*
 * zamboni/io.h - FileIO: the one way the library touches storage.
 *
 * A zb_io routes each URI to the backend for its scheme: plain paths and
 * file: URIs (file:///abs/path, and the file:/abs/path form that Hadoop
 * writers leave in Iceberg metadata) go to the local filesystem. A URI
 * whose scheme has no backend in this build fails with ZB_EUNSUPPORTED and
 * a message naming the scheme. Paths are used as written: no percent
 * decoding, since Iceberg writers store file names with escapes such as
 * %20 literally.
 *
 * Every call takes the caller's zb_ctx and leaves an error message there.
 * Codes: ZB_ENOTFOUND (no such file or prefix), ZB_EEXISTS (a new file's
 * name is taken), ZB_EIO (storage failure), ZB_ENOMEM (a cap was hit),
 * ZB_EUNSUPPORTED (scheme without a backend).
 */
#ifndef ZAMBONI_IO_H
#define ZAMBONI_IO_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_io zb_io;
typedef struct zb_io_file zb_io_file;
typedef struct zb_io_writer zb_io_writer;
typedef struct zb_io_lister zb_io_lister;

typedef struct zb_io_stat {
    uint64_t size_bytes;
    int64_t mtime_ms;        /* last modification, ms since the epoch */
} zb_io_stat;

typedef struct zb_io_entry {
    const char *uri;         /* borrowed until the next call on the lister */
    uint64_t size_bytes;
    int64_t mtime_ms;
} zb_io_entry;

/* A FileIO with the local filesystem backend. */
int zb_io_new(zb_io **out, zb_ctx *ctx);
void zb_io_free(zb_io *io);

/* Size and modification time of one file. */
int zb_io_stat_uri(zb_io_stat *out, zb_io *io, zb_ctx *ctx, const char *uri);

/* Opens a file for ranged reads; close it with zb_io_file_close. */
int zb_io_open(zb_io_file **out, zb_io *io, zb_ctx *ctx, const char *uri);
/*
 * zb_io_open with the file's size as metadata records it (a manifest's
 * file_size_in_bytes), which spares object stores a request; 0 when not
 * known. The size the store reports, when it reports one, wins.
 */
int zb_io_open_sized(zb_io_file **out, zb_io *io, zb_ctx *ctx,
                     const char *uri, uint64_t size);
/* The file's size when it was opened. */
uint64_t zb_io_file_size(const zb_io_file *f);
/* Reads exactly len bytes at offset; a range past the end is ZB_EIO. */
int zb_io_file_read(zb_io_file *f, zb_ctx *ctx, uint64_t offset, void *dst,
                    size_t len);
void zb_io_file_close(zb_io_file *f);

/* One range of a vectored read: len bytes at offset into dst. */
typedef struct zb_io_range {
    uint64_t offset;
    size_t len;
    void *dst;
} zb_io_range;

/*
 * Reads every range (in any order, possibly at once; ranges may be
 * unsorted but must not overlap in dst). Same errors as zb_io_file_read.
 * On object stores near ranges are coalesced into one request.
 */
int zb_io_file_read_vec(zb_io_file *f, zb_ctx *ctx,
                        const zb_io_range *ranges, size_t n);

/* One ranged read without keeping the file open. */
int zb_io_read_range(zb_io *io, zb_ctx *ctx, const char *uri,
                     uint64_t offset, void *dst, size_t len);

/*
 * Writes a new file in one call. The file appears whole or not at all, and
 * never replaces an existing one: ZB_EEXISTS if the name is taken.
 */
int zb_io_write_new(zb_io *io, zb_ctx *ctx, const char *uri,
                    const void *data, size_t len);

/*
 * Writes a whole file, replacing any file of that name (a pointer such as
 * Iceberg's version-hint.text). On the local filesystem the new content
 * is renamed over the old, so a reader finds one or the other and never
 * no file; a backend that cannot replace in one step deletes the old file
 * first. Returns ZB_OK, ZB_EIO or ZB_EUNSUPPORTED.
 */
int zb_io_write_replace(zb_io *io, zb_ctx *ctx, const char *uri,
                        const void *data, size_t len);

/*
 * Streams a new file: open, write any number of times, then commit (the
 * file appears, or ZB_EEXISTS if the name was taken meanwhile) or abort
 * (nothing appears). Both commit and abort free the writer.
 */
int zb_io_writer_open(zb_io_writer **out, zb_io *io, zb_ctx *ctx,
                      const char *uri);
int zb_io_writer_write(zb_io_writer *w, zb_ctx *ctx, const void *data,
                       size_t len);
uint64_t zb_io_writer_bytes(const zb_io_writer *w);
int zb_io_writer_commit(zb_io_writer *w, zb_ctx *ctx);
void zb_io_writer_abort(zb_io_writer *w);

/* Deletes one file; ZB_ENOTFOUND if it is not there. */
int zb_io_delete(zb_io *io, zb_ctx *ctx, const char *uri);

/*
 * Deletes many files. rcs (may be NULL) receives each file's result;
 * *failed_out how many did not succeed. Returns ZB_OK when every deletion
 * was attempted, even if some failed: failures are for the caller to
 * count and report, never fatal to the batch.
 */
int zb_io_delete_batch(zb_io *io, zb_ctx *ctx, const char *const *uris,
                       size_t n, int *rcs, size_t *failed_out);

/*
 * Lists every file under a prefix (a directory, for the local backend),
 * recursively, in no particular order. The listing streams: its memory
 * depends on the depth of the tree, not on the number of files.
 * ZB_ENOTFOUND if the prefix does not exist.
 */
int zb_io_list(zb_io_lister **out, zb_io *io, zb_ctx *ctx, const char *uri);
/* 1 with *entry filled, 0 at the end, or a negative rc. */
int zb_io_lister_next(zb_io_lister *l, zb_ctx *ctx, zb_io_entry *entry);
void zb_io_lister_free(zb_io_lister *l);

#ifdef __cplusplus
}
#endif
#endif

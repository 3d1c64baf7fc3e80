/*
 * io/s3/io_s3_int.h - what the files of the S3 backend share: its state
 * (the settings for every bucket and those for prefixes) and the lookup
 * of a URI's settings.
 */
#ifndef ZB_IO_S3_INT_H
#define ZB_IO_S3_INT_H

#include <pthread.h>

#include "io/io.h"
#include "io/s3/s3_http.h"
#include "io/s3/s3_uri.h"
#include "zamboni/io_s3.h"

/* One settings set with its HTTP client; never freed before the state. */
typedef struct zb_s3_target {
    char *prefix;                    /* "bucket/path/" without the scheme;
                                      * NULL for the settings of all */
    zb_s3_config cfg;                /* resolved, strings owned */
    uint64_t multipart_threshold, part_size;
    zb_s3_http *http;
    struct zb_s3_target *next;
} zb_s3_target;

typedef struct zb_s3_state {
    pthread_mutex_t lock;
    zb_s3_target *base;              /* from zb_io_add_s3 */
    zb_s3_target *prefixes;          /* newest first */
} zb_s3_state;

extern const zb_io_backend zb_io_s3;

/* The settings for uri (longest prefix wins) and its bucket and key. */
int zb_s3__resolve(zb_s3_target **t, zb_s3_uri *u, zb_s3_state *s,
                   zb_ctx *ctx, const char *uri);

/* The backend's calls, by file. */
int zb_s3__open(void **file, uint64_t *size_out, void *state, zb_ctx *ctx,
                const char *uri);
int zb_s3__pread(void *file, zb_ctx *ctx, uint64_t offset, void *dst,
                 size_t len);
int zb_s3__pread_vec(void *file, zb_ctx *ctx, const zb_io_range *ranges,
                     size_t n);
void zb_s3__close(void *file);

int zb_s3__writer_open(void **writer, void *state, zb_ctx *ctx,
                       const char *uri);
int zb_s3__writer_write(void *writer, zb_ctx *ctx, const void *data,
                        size_t len);
int zb_s3__writer_commit(void *writer, zb_ctx *ctx);
void zb_s3__writer_abort(void *writer);

int zb_s3__list_open(void **lister, void *state, zb_ctx *ctx,
                     const char *uri);
int zb_s3__list_next(void *lister, zb_ctx *ctx, zb_io_entry *entry);
void zb_s3__list_close(void *lister);

int zb_s3__remove(void *state, zb_ctx *ctx, const char *uri);
int zb_s3__remove_batch(void *state, zb_ctx *ctx, const char *const *uris,
                        size_t n, int *rcs);

#endif

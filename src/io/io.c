/*
 * io/io.c - FileIO routing (see zamboni/io.h).
 *
 * A zb_io is a short list of backends with their states. Each call finds
 * the backend that accepts the URI and forwards to it; the file, writer and
 * lister handles wrap the backend's own object together with the vtable
 * that frees it. Functions built from the primitives (read_range, read_all,
 * write_new, delete_batch) live here, once, for every backend.
 */
#define ZB_MODULE "io"

#include <string.h>

#include "io/io.h"
#include "util/alloc.h"
#include "util/err.h"

#define MAX_BACKENDS 8

typedef struct slot {
    const zb_io_backend *backend;
    void *state;
} slot;

struct zb_io {
    slot slots[MAX_BACKENDS];   /* slots[0] is consulted first */
    size_t n;
};

struct zb_io_file {
    const zb_io_backend *backend;
    void *impl;
    uint64_t size;
};

struct zb_io_writer {
    const zb_io_backend *backend;
    void *impl;
    uint64_t bytes;
};

struct zb_io_lister {
    const zb_io_backend *backend;
    void *impl;
};

int zb_io_add_backend(zb_io *io, zb_ctx *ctx, const zb_io_backend *backend)
{
    void *state = NULL;
    int rc;

    ZB_ASSERT_ARG(io && ctx && backend);
    if (backend->version != ZB_IO_BACKEND_VERSION)
        return zb_fail(ctx, ZB_EINVAL, "backend %s has version %u, want %u",
                       backend->name, backend->version, ZB_IO_BACKEND_VERSION);
    if (io->n == MAX_BACKENDS)
        return zb_fail(ctx, ZB_ENOMEM, "too many FileIO backends");
    if (backend->state_new && (rc = backend->state_new(&state, ctx)) < 0)
        return rc;
    memmove(&io->slots[1], &io->slots[0], io->n * sizeof io->slots[0]);
    io->slots[0].backend = backend;
    io->slots[0].state = state;
    io->n++;
    return ZB_OK;
}

void *zb_io__backend_state(zb_io *io, const zb_io_backend *backend)
{
    size_t i;

    for (i = 0; io && i < io->n; i++)
        if (io->slots[i].backend == backend)
            return io->slots[i].state;
    return NULL;
}

int zb_io_new(zb_io **out, zb_ctx *ctx)
{
    zb_io *io;
    int rc;

    ZB_ASSERT_ARG(out && ctx);
    *out = NULL;
    if ((io = zb_calloc(1, sizeof *io)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = zb_io_add_backend(io, ctx, &zb_io_local)) < 0) {
        zb_io_free(io);
        return rc;
    }
    *out = io;
    return ZB_OK;
}

void zb_io_free(zb_io *io)
{
    size_t i;

    if (io == NULL)
        return;
    for (i = 0; i < io->n; i++)
        if (io->slots[i].backend->state_free)
            io->slots[i].backend->state_free(io->slots[i].state);
    zb_free(io);
}

/* The scheme of uri ("s3" of "s3://b/k") for messages; "" for a path. */
static void scheme_of(char *out, size_t size, const char *uri)
{
    size_t n = strcspn(uri, ":/");

    if (uri[n] == ':' && n > 0 && n < size)
        memcpy(out, uri, n), out[n] = '\0';
    else
        out[0] = '\0';
}

static int route(const slot **out, zb_io *io, zb_ctx *ctx, const char *uri)
{
    char scheme[32];
    size_t i;

    ZB_ASSERT_ARG(io && ctx && uri);
    *out = NULL;
    for (i = 0; i < io->n; i++) {
        if (io->slots[i].backend->accepts(uri)) {
            *out = &io->slots[i];
            return ZB_OK;
        }
    }
    scheme_of(scheme, sizeof scheme, uri);
    return zb_fail(ctx, ZB_EUNSUPPORTED,
                   "no FileIO backend for scheme '%s' in this build: %s",
                   scheme, uri);
}

int zb_io_stat_uri(zb_io_stat *out, zb_io *io, zb_ctx *ctx, const char *uri)
{
    const slot *s;
    int rc;

    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    return s->backend->stat(out, s->state, ctx, uri);
}

int zb_io_open(zb_io_file **out, zb_io *io, zb_ctx *ctx, const char *uri)
{
    return zb_io_open_sized(out, io, ctx, uri, 0);
}

int zb_io_open_sized(zb_io_file **out, zb_io *io, zb_ctx *ctx,
                     const char *uri, uint64_t size)
{
    zb_io_file *f;
    const slot *s;
    int rc;

    ZB_ASSERT_ARG(out);
    *out = NULL;
    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    if ((f = zb_calloc(1, sizeof *f)) == NULL)
        return zb_fail_oom(ctx);
    f->backend = s->backend;
    if (size > 0 && s->backend->open_sized != NULL)
        rc = s->backend->open_sized(&f->impl, &f->size, s->state, ctx, uri,
                                    size);
    else
        rc = s->backend->open(&f->impl, &f->size, s->state, ctx, uri);
    if (rc < 0) {
        zb_free(f);
        return rc;
    }
    *out = f;
    return ZB_OK;
}

uint64_t zb_io_file_size(const zb_io_file *f)
{
    return f->size;
}

int zb_io_file_read(zb_io_file *f, zb_ctx *ctx, uint64_t offset, void *dst,
                    size_t len)
{
    ZB_ASSERT_ARG(f && ctx && (dst || len == 0));
    if (offset > f->size || len > f->size - offset)
        return zb_fail(ctx, ZB_EIO,
                       "read of %zu bytes at offset %llu passes the end of a "
                       "%llu-byte file", len, (unsigned long long)offset,
                       (unsigned long long)f->size);
    if (len == 0)
        return ZB_OK;
    return f->backend->pread(f->impl, ctx, offset, dst, len);
}

int zb_io_file_read_vec(zb_io_file *f, zb_ctx *ctx,
                        const zb_io_range *ranges, size_t n)
{
    size_t i;
    int rc;

    ZB_ASSERT_ARG(f && ctx && (ranges || n == 0));
    for (i = 0; i < n; i++)
        if (ranges[i].offset > f->size ||
            ranges[i].len > f->size - ranges[i].offset)
            return zb_fail(ctx, ZB_EIO,
                           "read of %zu bytes at offset %llu passes the end "
                           "of a %llu-byte file", ranges[i].len,
                           (unsigned long long)ranges[i].offset,
                           (unsigned long long)f->size);
    if (f->backend->pread_vec != NULL)
        return f->backend->pread_vec(f->impl, ctx, ranges, n);
    for (i = 0; i < n; i++)
        if (ranges[i].len > 0 &&
            (rc = f->backend->pread(f->impl, ctx, ranges[i].offset,
                                    ranges[i].dst, ranges[i].len)) < 0)
            return rc;
    return ZB_OK;
}

void zb_io_file_close(zb_io_file *f)
{
    if (f == NULL)
        return;
    f->backend->close(f->impl);
    zb_free(f);
}

int zb_io_read_range(zb_io *io, zb_ctx *ctx, const char *uri,
                     uint64_t offset, void *dst, size_t len)
{
    zb_io_file *f = NULL;
    int rc;

    if ((rc = zb_io_open(&f, io, ctx, uri)) == ZB_OK &&
        (rc = zb_io_file_read(f, ctx, offset, dst, len)) < 0)
        zb_err_prefix(ctx, "%s", uri);
    zb_io_file_close(f);
    return rc;
}

int zb_io__read_all(zb_buf *out, zb_io *io, zb_ctx *ctx, const char *uri)
{
    zb_io_file *f = NULL;
    uint64_t size;
    int rc;

    ZB_ASSERT_ARG(out);
    if ((rc = zb_io_open(&f, io, ctx, uri)) < 0)
        return rc;
    size = zb_io_file_size(f);
    if (size > out->max_bytes - out->len) {
        rc = zb_fail(ctx, ZB_ENOMEM,
                     "%s is %llu bytes, more than the %zu allowed here", uri,
                     (unsigned long long)size, out->max_bytes - out->len);
        goto done;
    }
    if (zb_buf_reserve(out, (size_t)size) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_io_file_read(f, ctx, 0, out->ptr + out->len,
                              (size_t)size)) < 0) {
        zb_err_prefix(ctx, "%s", uri);
        goto done;
    }
    out->len += (size_t)size;
    out->ptr[out->len] = '\0';
done:
    zb_io_file_close(f);
    return rc;
}

int zb_io_writer_open(zb_io_writer **out, zb_io *io, zb_ctx *ctx,
                      const char *uri)
{
    zb_io_writer *w;
    const slot *s;
    int rc;

    ZB_ASSERT_ARG(out);
    *out = NULL;
    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->backend = s->backend;
    if ((rc = s->backend->writer_open(&w->impl, s->state, ctx, uri)) < 0) {
        zb_free(w);
        return rc;
    }
    *out = w;
    return ZB_OK;
}

int zb_io_writer_write(zb_io_writer *w, zb_ctx *ctx, const void *data,
                       size_t len)
{
    int rc;

    ZB_ASSERT_ARG(w && ctx && (data || len == 0));
    if (len == 0)
        return ZB_OK;
    if ((rc = w->backend->writer_write(w->impl, ctx, data, len)) < 0)
        return rc;
    w->bytes += len;
    return ZB_OK;
}

uint64_t zb_io_writer_bytes(const zb_io_writer *w)
{
    return w->bytes;
}

int zb_io_writer_commit(zb_io_writer *w, zb_ctx *ctx)
{
    int rc;

    ZB_ASSERT_ARG(w && ctx);
    rc = w->backend->writer_commit(w->impl, ctx);
    zb_free(w);
    return rc;
}

void zb_io_writer_abort(zb_io_writer *w)
{
    if (w == NULL)
        return;
    w->backend->writer_abort(w->impl);
    zb_free(w);
}

int zb_io_write_new(zb_io *io, zb_ctx *ctx, const char *uri,
                    const void *data, size_t len)
{
    zb_io_writer *w = NULL;
    int rc;

    if ((rc = zb_io_writer_open(&w, io, ctx, uri)) < 0)
        return rc;
    if ((rc = zb_io_writer_write(w, ctx, data, len)) < 0) {
        zb_io_writer_abort(w);
        return rc;
    }
    return zb_io_writer_commit(w, ctx);
}

int zb_io_write_replace(zb_io *io, zb_ctx *ctx, const char *uri,
                        const void *data, size_t len)
{
    const slot *s;
    int attempt, rc;

    ZB_ASSERT_ARG(io && ctx && uri && (data || len == 0));
    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    if (s->backend->write_replace != NULL)
        return s->backend->write_replace(s->state, ctx, uri, data, len);
    /* another writer may put the name back between the two steps */
    for (attempt = 0; attempt < 3; attempt++) {
        rc = zb_io_delete(io, ctx, uri);
        if (rc < 0 && rc != ZB_ENOTFOUND)
            return rc;
        zb_err_clear(&ctx->err);
        rc = zb_io_write_new(io, ctx, uri, data, len);
        if (rc != ZB_EEXISTS)
            return rc;
    }
    return rc;
}

int zb_io_delete(zb_io *io, zb_ctx *ctx, const char *uri)
{
    const slot *s;
    int rc;

    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    return s->backend->remove(s->state, ctx, uri);
}

/* Deletes uris[0..n), which all route to s, each result into rcs. */
static void delete_run(const slot *s, zb_ctx *ctx, const char *const *uris,
                       size_t n, int *rcs)
{
    size_t i;

    if (s->backend->remove_batch != NULL) {
        if (s->backend->remove_batch(s->state, ctx, uris, n, rcs) < 0)
            for (i = 0; i < n; i++)
                if (rcs[i] == ZB_OK)
                    rcs[i] = ZB_EIO;     /* never reported deleted */
        return;
    }
    for (i = 0; i < n; i++)
        rcs[i] = s->backend->remove(s->state, ctx, uris[i]);
}

int zb_io_delete_batch(zb_io *io, zb_ctx *ctx, const char *const *uris,
                       size_t n, int *rcs, size_t *failed_out)
{
    int *own = NULL;
    size_t i = 0, failed = 0;

    ZB_ASSERT_ARG(io && ctx && (uris || n == 0) && failed_out);
    if (rcs == NULL && n > 0 && (rcs = own = zb_calloc(n, sizeof *rcs)) == NULL)
        return zb_fail_oom(ctx);
    /* Runs of URIs that go to one backend are handed over together, so
     * that a store with a batch delete sends one request per run. */
    while (i < n) {
        const slot *s;
        size_t j = i + 1;

        if ((rcs[i] = route(&s, io, ctx, uris[i])) < 0) {
            i++;
            continue;
        }
        while (j < n && s->backend->accepts(uris[j]))
            j++;
        delete_run(s, ctx, uris + i, j - i, rcs + i);
        i = j;
    }
    for (i = 0; i < n; i++)
        if (rcs[i] < 0)
            failed++;
    zb_free(own);
    *failed_out = failed;
    return ZB_OK;
}

int zb_io_list(zb_io_lister **out, zb_io *io, zb_ctx *ctx, const char *uri)
{
    zb_io_lister *l;
    const slot *s;
    int rc;

    ZB_ASSERT_ARG(out);
    *out = NULL;
    if ((rc = route(&s, io, ctx, uri)) < 0)
        return rc;
    if ((l = zb_calloc(1, sizeof *l)) == NULL)
        return zb_fail_oom(ctx);
    l->backend = s->backend;
    if ((rc = s->backend->list_open(&l->impl, s->state, ctx, uri)) < 0) {
        zb_free(l);
        return rc;
    }
    *out = l;
    return ZB_OK;
}

int zb_io_lister_next(zb_io_lister *l, zb_ctx *ctx, zb_io_entry *entry)
{
    ZB_ASSERT_ARG(l && ctx && entry);
    return l->backend->list_next(l->impl, ctx, entry);
}

void zb_io_lister_free(zb_io_lister *l)
{
    if (l == NULL)
        return;
    l->backend->list_close(l->impl);
    zb_free(l);
}

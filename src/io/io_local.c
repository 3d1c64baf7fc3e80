/*
 * io/io_local.c - the local filesystem backend of FileIO.
 *
 * URIs: a plain path, file:///abs/path, file://localhost/abs/path, and the
 * file:/abs/path form of Hadoop writers. Other hosts and schemes are not
 * accepted, so that zb_io can say which backend is missing.
 *
 * New files never overwrite. A writer streams into a hidden temporary file
 * beside the target (".<name>.<pid>-<n>.zbtmp"), fsyncs it and then moves it
 * into place with renameat2(RENAME_NOREPLACE), or with link() + unlink() on
 * filesystems without that flag; both fail if the name exists, atomically.
 * Readers never see a partial file, and a crash leaves only a temporary
 * file, which remove-orphans collects once it is older than its guard.
 * zb_io_write_replace alone replaces: the same temporary file, renamed
 * over the old one with rename(), which POSIX makes atomic.
 *
 * Listing walks the tree depth first with one open directory per level,
 * descending with openat() relative to the parent, so memory and file
 * descriptors depend on the depth of the tree (capped at MAX_DEPTH), not on
 * the number of files, and paths longer than PATH_MAX still work.
 * Symbolic links and special files are skipped: a link is not a file the
 * table owns, and following directory links could loop.
 */
#define _GNU_SOURCE
#define ZB_MODULE "io"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

#define MAX_DEPTH 256
#define MAX_PATH_BYTES (64 * 1024)

static atomic_uint temp_counter;

/* The filesystem path inside uri, or NULL when uri is not local. */
static const char *local_path(const char *uri)
{
    size_t n;

    if (strncmp(uri, "file://", 7) == 0) {
        const char *rest = uri + 7;
        if (strncmp(rest, "localhost/", 10) == 0)
            rest += 9;
        return rest[0] == '/' ? rest : NULL;
    }
    if (strncmp(uri, "file:", 5) == 0)
        return uri[5] == '/' ? uri + 5 : NULL;
    /* A scheme is letters, digits, + - . before the first ':'. */
    n = strspn(uri, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789+-.");
    if (n > 0 && uri[n] == ':')
        return NULL;
    return uri[0] ? uri : NULL;
}

static int accepts(const char *uri)
{
    return local_path(uri) != NULL;
}

static int rc_of_errno(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        return ZB_ENOTFOUND;
    case EEXIST:
        return ZB_EEXISTS;
    case ENOMEM:
        return ZB_ENOMEM;
    default:
        return ZB_EIO;
    }
}

static int fail_errno(zb_ctx *ctx, const char *what, const char *uri)
{
    int e = errno;

    return zb_fail(ctx, rc_of_errno(e), "%s %s: %s", what, uri, strerror(e));
}

static int64_t mtime_ms_of(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

static int local_stat(zb_io_stat *out, void *state, zb_ctx *ctx,
                      const char *uri)
{
    struct stat st;

    ZB_UNUSED(state);
    if (stat(local_path(uri), &st) != 0)
        return fail_errno(ctx, "stat", uri);
    if (!S_ISREG(st.st_mode))
        return zb_fail(ctx, ZB_ENOTFOUND, "stat %s: not a regular file", uri);
    out->size_bytes = (uint64_t)st.st_size;
    out->mtime_ms = mtime_ms_of(&st);
    return ZB_OK;
}

/* ---- ranged reads ---- */

typedef struct local_file {
    int fd;
    char *uri;      /* for messages */
} local_file;

static void local_close(void *p)
{
    local_file *f = p;

    if (f == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    zb_free(f->uri);
    zb_free(f);
}

static int local_open(void **out, uint64_t *size_out, void *state,
                      zb_ctx *ctx, const char *uri)
{
    local_file *f;
    struct stat st;

    ZB_UNUSED(state);
    if ((f = zb_calloc(1, sizeof *f)) == NULL)
        return zb_fail_oom(ctx);
    if ((f->uri = zb_strdup(uri)) == NULL) {
        zb_free(f);
        return zb_fail_oom(ctx);
    }
    if ((f->fd = open(local_path(uri), O_RDONLY | O_CLOEXEC)) < 0 ||
        fstat(f->fd, &st) != 0) {
        int rc = fail_errno(ctx, "open", uri);
        local_close(f);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        local_close(f);
        return zb_fail(ctx, ZB_ENOTFOUND, "open %s: not a regular file", uri);
    }
    *size_out = (uint64_t)st.st_size;
    *out = f;
    return ZB_OK;
}

static int local_pread(void *p, zb_ctx *ctx, uint64_t offset, void *dst,
                       size_t len)
{
    local_file *f = p;
    unsigned char *d = dst;

    while (len > 0) {
        ssize_t n = pread(f->fd, d, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno(ctx, "read", f->uri);
        if (n == 0)
            return zb_fail(ctx, ZB_EIO, "read %s: file shrank while reading",
                           f->uri);
        d += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return ZB_OK;
}

/* ---- new files ---- */

typedef struct local_writer {
    int fd;
    char *tmp_path;
    char *final_path;
    char *uri;      /* for messages */
} local_writer;

/* Creates every missing directory above path (mkdir -p of its parent). */
static int make_parents(zb_ctx *ctx, const char *path, const char *uri)
{
    char *copy, *p;
    int rc = ZB_OK;

    if ((copy = zb_strdup(path)) == NULL)
        return zb_fail_oom(ctx);
    for (p = copy + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            rc = fail_errno(ctx, "create directory for", uri);
            break;
        }
        *p = '/';
    }
    zb_free(copy);
    return rc;
}

static void writer_free(local_writer *w)
{
    if (w == NULL)
        return;
    if (w->fd >= 0)
        close(w->fd);
    zb_free(w->tmp_path);
    zb_free(w->final_path);
    zb_free(w->uri);
    zb_free(w);
}

static int temp_path_for(char **out, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    zb_buf b = ZB_BUF_INIT(MAX_PATH_BYTES);
    int rc;

    rc = zb_buf_append(&b, path, dir_len);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(&b, ".%s.%ld-%u.zbtmp", path + dir_len,
                            (long)getpid(), atomic_fetch_add(&temp_counter, 1));
    if (rc == ZB_OK && (*out = zb_buf_detach(&b)) == NULL)
        rc = ZB_ENOMEM;
    zb_buf_free(&b);
    return rc;
}

/* A writer into a new temporary file beside uri's path; replace 0 fails
   early when the name is taken (commit checks again, atomically). */
static int writer_start(local_writer **out, zb_ctx *ctx, const char *uri,
                        int replace)
{
    local_writer *w;
    const char *path = local_path(uri);
    int rc;

    if (path[strlen(path) - 1] == '/')
        return zb_fail(ctx, ZB_EINVAL, "write %s: names a directory", uri);
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->fd = -1;
    if ((w->final_path = zb_strdup(path)) == NULL ||
        (w->uri = zb_strdup(uri)) == NULL ||
        temp_path_for(&w->tmp_path, path) < 0) {
        writer_free(w);
        return zb_fail_oom(ctx);
    }
    if (!replace && access(path, F_OK) == 0) {
        writer_free(w);
        return zb_fail(ctx, ZB_EEXISTS, "write %s: file exists", uri);
    }
    if ((rc = make_parents(ctx, path, uri)) < 0) {
        writer_free(w);
        return rc;
    }
    w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        rc = fail_errno(ctx, "create temporary file for", uri);
        writer_free(w);
        return rc;
    }
    *out = w;
    return ZB_OK;
}

static int local_writer_open(void **out, void *state, zb_ctx *ctx,
                             const char *uri)
{
    ZB_UNUSED(state);
    return writer_start((local_writer **)out, ctx, uri, 0);
}

static int local_writer_write(void *p, zb_ctx *ctx, const void *data,
                              size_t len)
{
    local_writer *w = p;
    const unsigned char *d = data;

    while (len > 0) {
        ssize_t n = write(w->fd, d, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno(ctx, "write", w->uri);
        d += n;
        len -= (size_t)n;
    }
    return ZB_OK;
}

/* Moves tmp to final unless final exists; 0 or -1 with errno. */
static int move_no_replace(const char *tmp, const char *final)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
    if (link(tmp, final) != 0)
        return -1;
    unlink(tmp);
    return 0;
}

static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd;

    if (slash == NULL)
        dir = zb_strdup(".");
    else
        dir = zb_strndup(path, slash == path ? 1 : (size_t)(slash - path));
    if (dir == NULL)
        return;
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
    zb_free(dir);
}

/* Syncs and publishes the temporary file: beside an existing name
   (replace 0: ZB_EEXISTS if taken) or renamed over it (replace 1). */
static int writer_finish(local_writer *w, zb_ctx *ctx, int replace)
{
    int rc = ZB_OK;

    if (fsync(w->fd) != 0) {
        rc = fail_errno(ctx, "sync", w->uri);
    } else if (close(w->fd) != 0) {
        w->fd = -1;
        rc = fail_errno(ctx, "close", w->uri);
    } else {
        w->fd = -1;
        if ((replace ? rename(w->tmp_path, w->final_path)
                     : move_no_replace(w->tmp_path, w->final_path)) != 0)
            rc = errno == EEXIST
                     ? zb_fail(ctx, ZB_EEXISTS, "write %s: file exists", w->uri)
                     : fail_errno(ctx, "publish", w->uri);
        else
            sync_parent_dir(w->final_path);
    }
    if (rc < 0)
        unlink(w->tmp_path);
    writer_free(w);
    return rc;
}

static int local_writer_commit(void *p, zb_ctx *ctx)
{
    return writer_finish(p, ctx, 0);
}

static void local_writer_abort(void *p)
{
    local_writer *w = p;

    if (w == NULL)
        return;
    unlink(w->tmp_path);
    writer_free(w);
}

/* A whole file renamed over the old one: rename() replaces atomically. */
static int local_write_replace(void *state, zb_ctx *ctx, const char *uri,
                               const void *data, size_t len)
{
    local_writer *w = NULL;
    int rc;

    ZB_UNUSED(state);
    if ((rc = writer_start(&w, ctx, uri, 1)) < 0)
        return rc;
    if ((rc = local_writer_write(w, ctx, data, len)) < 0) {
        local_writer_abort(w);
        return rc;
    }
    return writer_finish(w, ctx, 1);
}

static int local_remove(void *state, zb_ctx *ctx, const char *uri)
{
    ZB_UNUSED(state);
    if (unlink(local_path(uri)) != 0)
        return fail_errno(ctx, "delete", uri);
    return ZB_OK;
}

/* ---- listing ---- */

typedef struct frame {
    DIR *dir;
    size_t path_len;        /* length of this directory's path in path */
} frame;

typedef struct local_lister {
    frame stack[MAX_DEPTH];
    size_t depth;
    zb_buf path;            /* the URI being built, in the caller's form */
} local_lister;

static void local_list_close(void *p)
{
    local_lister *l = p;

    if (l == NULL)
        return;
    while (l->depth > 0)
        closedir(l->stack[--l->depth].dir);
    zb_buf_free(&l->path);
    zb_free(l);
}

static int push_dir(local_lister *l, zb_ctx *ctx, int fd)
{
    DIR *d;

    if (l->depth == MAX_DEPTH) {
        close(fd);
        return zb_fail(ctx, ZB_EUNSUPPORTED,
                       "list %s: directory tree deeper than %d levels",
                       zb_buf_cstr(&l->path), MAX_DEPTH);
    }
    if ((d = fdopendir(fd)) == NULL) {
        int rc = fail_errno(ctx, "list", zb_buf_cstr(&l->path));
        close(fd);
        return rc;
    }
    l->stack[l->depth].dir = d;
    l->stack[l->depth].path_len = l->path.len;
    l->depth++;
    return ZB_OK;
}

static int local_list_open(void **out, void *state, zb_ctx *ctx,
                           const char *uri)
{
    local_lister *l;
    size_t len = strlen(uri);
    int fd, rc;

    ZB_UNUSED(state);
    if ((l = zb_calloc(1, sizeof *l)) == NULL)
        return zb_fail_oom(ctx);
    zb_buf_init(&l->path, MAX_PATH_BYTES);
    while (len > 1 && uri[len - 1] == '/')
        len--;
    if (zb_buf_append(&l->path, uri, len) < 0) {
        local_list_close(l);
        return zb_fail_oom(ctx);
    }
    fd = open(local_path(zb_buf_cstr(&l->path)),
              O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        rc = fail_errno(ctx, "list", uri);
        local_list_close(l);
        return rc;
    }
    if ((rc = push_dir(l, ctx, fd)) < 0) {
        local_list_close(l);
        return rc;
    }
    *out = l;
    return ZB_OK;
}

static int is_dot(const char *name)
{
    return name[0] == '.' &&
           (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

static int local_list_next(void *p, zb_ctx *ctx, zb_io_entry *entry)
{
    local_lister *l = p;
    int rc;

    while (l->depth > 0) {
        frame *top = &l->stack[l->depth - 1];
        struct dirent *de;
        struct stat st;

        errno = 0;
        if ((de = readdir(top->dir)) == NULL) {
            if (errno != 0)
                return fail_errno(ctx, "list", zb_buf_cstr(&l->path));
            closedir(top->dir);
            l->depth--;
            continue;
        }
        if (is_dot(de->d_name))
            continue;
        zb_buf_truncate(&l->path, top->path_len);
        if ((l->path.len == 0 || l->path.ptr[l->path.len - 1] != '/') &&
            zb_buf_putc(&l->path, '/') < 0)
            return zb_fail(ctx, ZB_ENOMEM, "list: path too long");
        if (zb_buf_puts(&l->path, de->d_name) < 0)
            return zb_fail(ctx, ZB_ENOMEM, "list: path too long");
        if (fstatat(dirfd(top->dir), de->d_name, &st,
                    AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                continue;   /* deleted since readdir saw it */
            return fail_errno(ctx, "stat", zb_buf_cstr(&l->path));
        }
        if (S_ISDIR(st.st_mode)) {
            int fd = openat(dirfd(top->dir), de->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                if (errno == ENOENT)
                    continue;
                return fail_errno(ctx, "list", zb_buf_cstr(&l->path));
            }
            if ((rc = push_dir(l, ctx, fd)) < 0)
                return rc;
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        entry->uri = zb_buf_cstr(&l->path);
        entry->size_bytes = (uint64_t)st.st_size;
        entry->mtime_ms = mtime_ms_of(&st);
        return 1;
    }
    return 0;
}

const zb_io_backend zb_io_local = {
    ZB_IO_BACKEND_VERSION,
    "local",
    NULL,
    NULL,
    accepts,
    local_stat,
    local_open,
    local_pread,
    local_close,
    local_writer_open,
    local_writer_write,
    local_writer_commit,
    local_writer_abort,
    local_remove,
    local_list_open,
    local_list_next,
    local_list_close,
    NULL,
    NULL,
    NULL,
    local_write_replace,
};

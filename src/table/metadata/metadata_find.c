/*
 * table/metadata/metadata_find.c - finding the newest metadata file of a table
 * folder (a Hadoop-style table, or any folder a catalog does not track).
 *
 * ice_metadata_find_latest(uri_out, io, ctx, table_dir):
 *   1. metadata/version-hint.text, when it exists, holds a version N
 *      (meaning metadata/vN.metadata.json, as Iceberg's Hadoop tables
 *      write it) or a file name; if that file exists it is the answer.
 *      An empty, unreadable or stale hint falls through to listing, as
 *      Iceberg Java's HadoopTableOperations does.
 *   2. Otherwise metadata/ is listed and each file name directly inside it
 *      is matched against vN.metadata.json and NNNNN-<id>.metadata.json
 *      (each also with .gz.metadata.json or .metadata.json.gz); the
 *      highest version wins, ties go to the newest modification time,
 *      then to the greater name, so the answer is deterministic. Hidden
 *      files (Hadoop's .crc) and other names (v3.1.metadata.json,
 *      version-hint.txt) are ignored.
 * A hint's version N is vN.metadata.json, else vN.gz.metadata.json, else
 * vN.metadata.json.gz, whichever exists first (Java's getMetadataFile).
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "io/io.h"
#include "table/metadata/metadata.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"

#define HINT_MAX_BYTES 4096
#define URI_MAX_BYTES 8192

/* The version in a metadata file name, or -1; *gz for compressed names. */
static int64_t name_version(const char *name, int *gz)
{
    static const char *const suffixes[] = { ".gz.metadata.json",
                                            ".metadata.json.gz",
                                            ".metadata.json" };
    const char *p = name, *end = NULL;
    int64_t v = 0;
    size_t i, n = strlen(name);

    *gz = 0;
    for (i = 0; i < 3; i++) {
        size_t k = strlen(suffixes[i]);

        if (n > k && strcmp(name + n - k, suffixes[i]) == 0) {
            end = name + n - k;
            *gz = i < 2;
            break;
        }
    }
    if (end == NULL)
        return -1;
    if (*p == 'v')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (p < end && isdigit((unsigned char)*p)) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p++ - '0');
    }
    if (name[0] == 'v')
        return p == end ? v : -1;            /* vN.metadata.json */
    return *p == '-' && p + 1 < end ? v : -1; /* NNNNN-<id>.metadata.json */
}

static int join(zb_buf *b, zb_ctx *ctx, const char *dir, const char *name)
{
    zb_buf_clear(b);
    if (zb_buf_puts(b, dir) < 0 || zb_buf_putc(b, '/') < 0 ||
        zb_buf_puts(b, name) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* 1 and the file's URI in uri when the hint names an existing file. */
static int from_hint(zb_buf *uri, zb_io *io, zb_ctx *ctx, const char *mdir)
{
    zb_buf hint = ZB_BUF_INIT(HINT_MAX_BYTES);
    zb_io_stat st;
    char name[64];
    const char *h;
    size_t n;
    int rc;

    if ((rc = join(uri, ctx, mdir, "version-hint.text")) < 0)
        return rc;
    rc = zb_io__read_all(&hint, io, ctx, zb_buf_cstr(uri));
    if (rc == ZB_ENOMEM && hint.ptr == NULL)
        rc = ZB_ENOTFOUND;         /* too large to be a hint */
    if (rc < 0) {
        zb_buf_free(&hint);
        if (rc != ZB_ENOTFOUND && rc != ZB_EIO)
            return rc;
        zb_err_clear(&ctx->err);
        return 0;
    }
    h = zb_buf_cstr(&hint);
    while (*h == ' ' || *h == '\t' || *h == '\r' || *h == '\n')
        h++;
    n = strcspn(h, " \t\r\n");
    rc = 0;
    if (n > 0 && n < 40 && strspn(h, "0123456789") == n) {
        static const char *const forms[] = { ".metadata.json",
                                             ".gz.metadata.json",
                                             ".metadata.json.gz" };
        size_t i;

        for (i = 0; i < 3; i++) {
            snprintf(name, sizeof name, "v%.*s%s", (int)n, h, forms[i]);
            if ((rc = join(uri, ctx, mdir, name)) < 0)
                break;
            rc = zb_io_stat_uri(&st, io, ctx, zb_buf_cstr(uri));
            if (rc >= 0 || rc != ZB_ENOTFOUND)
                break;
            zb_err_clear(&ctx->err);
        }
        zb_buf_free(&hint);
        if (rc == ZB_ENOTFOUND)
            return 0;
        return rc < 0 ? rc : 1;
    } else if (n > 0 && memchr(h, '/', n) == NULL && h[0] != '.') {
        zb_buf_clear(uri);
        if (zb_buf_puts(uri, mdir) < 0 || zb_buf_putc(uri, '/') < 0 ||
            zb_buf_append(uri, h, n) < 0)
            rc = zb_fail_oom(ctx);
    } else {
        zb_buf_free(&hint);
        return 0;                  /* empty or odd: list instead */
    }
    zb_buf_free(&hint);
    if (rc < 0)
        return rc;
    if ((rc = zb_io_stat_uri(&st, io, ctx, zb_buf_cstr(uri))) < 0) {
        if (rc != ZB_ENOTFOUND)
            return rc;
        zb_err_clear(&ctx->err);
        return 0;
    }
    return 1;
}

static int from_listing(zb_buf *best, zb_io *io, zb_ctx *ctx,
                        const char *mdir)
{
    zb_io_lister *l = NULL;
    zb_io_entry e;
    int64_t best_v = -1, best_mtime = 0;
    size_t prefix = strlen(mdir);
    int rc, gz;

    if ((rc = zb_io_list(&l, io, ctx, mdir)) < 0)
        return rc;
    while ((rc = zb_io_lister_next(l, ctx, &e)) == 1) {
        const char *name = e.uri;
        int64_t v;

        if (strncmp(name, mdir, prefix) != 0 || name[prefix] != '/')
            continue;
        name += prefix + 1;
        if (strchr(name, '/') != NULL || name[0] == '.')
            continue;
        if ((v = name_version(name, &gz)) < 0)
            continue;
        if (v < best_v ||
            (v == best_v && (e.mtime_ms < best_mtime ||
                             (e.mtime_ms == best_mtime &&
                              strcmp(e.uri, zb_buf_cstr(best)) <= 0))))
            continue;
        zb_buf_clear(best);
        if (zb_buf_puts(best, e.uri) < 0) {
            rc = zb_fail_oom(ctx);
            break;
        }
        best_v = v;
        best_mtime = e.mtime_ms;
    }
    zb_io_lister_free(l);
    if (rc < 0)
        return rc;
    if (best_v < 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "no metadata file in %s", mdir);
    return ZB_OK;
}

int ice_metadata_find_latest(char **uri_out, zb_io *io, zb_ctx *ctx,
                             const char *table_dir)
{
    zb_buf mdir = ZB_BUF_INIT(URI_MAX_BYTES);
    zb_buf uri = ZB_BUF_INIT(URI_MAX_BYTES);
    size_t len;
    int rc;

    ZB_ASSERT_ARG(uri_out && io && ctx && table_dir);
    *uri_out = NULL;
    len = strlen(table_dir);
    while (len > 1 && table_dir[len - 1] == '/')
        len--;
    if (zb_buf_append(&mdir, table_dir, len) < 0 ||
        zb_buf_puts(&mdir, "/metadata") < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = from_hint(&uri, io, ctx, zb_buf_cstr(&mdir))) < 0)
        goto done;
    if (rc == 0 && (rc = from_listing(&uri, io, ctx,
                                      zb_buf_cstr(&mdir))) < 0)
        goto done;
    if ((*uri_out = zb_buf_detach(&uri)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = ZB_OK;
done:
    zb_buf_free(&mdir);
    zb_buf_free(&uri);
    return rc;
}

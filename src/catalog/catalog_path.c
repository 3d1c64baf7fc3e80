/*
 * catalog/catalog_path.c - the PATH catalog: a table addressed by its
 * folder alone, as Iceberg's Hadoop tables and the fixtures are.
 *
 * Load: the newest metadata file (ice_metadata_find_latest, then probing
 * v<N+1>, v<N+2>, ... in case version-hint.text lags behind a writer that
 * stopped between the two), loaded through FileIO. The table's root is the
 * folder; its paths resolve with the catalog's remaps first, then the recorded
 * location (as written, without scheme and authority, and without a leading
 * "./") -> the folder, then scheme+authority stripping of paths that a remap
 * catches once stripped (catalog.c), so a copied or moved table is read and
 * maintained in place.
 *
 * Commit: reload the newest version N, check the requirements and apply
 * the updates (catalog_commit.c), write metadata/v<N+1>.metadata.json with
 * zb_io_write_new (which never overwrites: a name already taken means
 * another writer won, ZB_ECONFLICT), then replace version-hint.text
 * (delete + write; a reader that finds no hint lists the folder) and
 * prune old metadata files per the table's properties.
 *
 * Create: metadata/v1.metadata.json and version-hint.text in a folder that
 * has no metadata yet.
 *
 * Gzip: with write.metadata.compression-codec=gzip the next file is
 * v<N+1>.gz.metadata.json, gzip-compressed (Java's HadoopTableOperations
 * names); the newest is found whichever codec each version has.
 *
 * A metadata file named directly (an ident ending in .json or .json.gz,
 * any name): it is the table's metadata as it is. Its table folder is the
 * folder above it when it lies in a "metadata" folder, else its recorded
 * location (else the folder it lies in). A commit from it must start from
 * the folder's newest metadata: any other file is refused (ZB_EREFUSED,
 * saying which file is the newest), as the commit would fork the table.
 *
 * A folder on an object store is read-only: both the version's file that
 * must not exist yet and the hint rely on the store for atomicity, which
 * S3 and its kin do not give (no rename; If-None-Match is not honoured
 * everywhere), so commit and create refuse it before any request.
 */
#define ZB_MODULE "catalog"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog_int.h"
#include "catalog/catalog_commit.h"
#include "zamboni/io_s3.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

#define PATH_MAX_BYTES 8192

/* The folder without trailing slashes ("/" stays "/"). */
static char *folder_dup(const char *ident)
{
    size_t n = strlen(ident);

    while (n > 1 && ident[n - 1] == '/')
        n--;
    return zb_strndup(ident, n);
}

/* metadata/v<v>.metadata.json, or v<v>.gz.metadata.json when gz. */
static int version_uri(zb_buf *b, zb_ctx *ctx, const char *folder, int64_t v,
                       int gz)
{
    zb_buf_clear(b);
    if (zb_buf_appendf(b, "%s/metadata/v%lld%s.metadata.json", folder,
                       (long long)v, gz ? ".gz" : "") < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/* ZB_ECONFLICT when version v of folder exists under the codec gz's
 * name (the other codec's writer took it), else ZB_OK. */
static int version_taken(zb_io *io, zb_ctx *ctx, const char *folder,
                         int64_t v, int gz)
{
    zb_buf uri = ZB_BUF_INIT(PATH_MAX_BYTES);
    zb_io_stat st;
    int rc;

    if ((rc = version_uri(&uri, ctx, folder, v, gz)) == ZB_OK) {
        rc = zb_io_stat_uri(&st, io, ctx, uri.ptr);
        if (rc == ZB_OK)
            rc = zb_fail(ctx, ZB_ECONFLICT, "another writer created %s "
                         "first", uri.ptr);
        else if (rc == ZB_ENOTFOUND) {
            zb_err_clear(&ctx->err);
            rc = ZB_OK;
        }
    }
    zb_buf_free(&uri);
    return rc;
}

/* 1 when ident names a metadata file rather than a table folder. */
static int names_file(const char *ident)
{
    return zb_str_ends_with(ident, ".json") ||
           zb_str_ends_with(ident, ".json.gz");
}

/* The length of uri's folder (up to its last '/'), 0 when none. */
static size_t dir_len(const char *uri, size_t n)
{
    while (n > 0 && uri[n - 1] != '/')
        n--;
    while (n > 1 && uri[n - 1] == '/')
        n--;
    return n;
}

/*
 * The newest metadata file of folder and its version: find_latest, then
 * every following vN that exists. *version_out is -1 when the name has no
 * version (a commit then cannot name its successor).
 */
static int find_newest(char **uri_out, int64_t *version_out, zb_io *io,
                       zb_ctx *ctx, const char *folder)
{
    char *uri = NULL;
    zb_buf next = ZB_BUF_INIT(PATH_MAX_BYTES);
    zb_io_stat st;
    int64_t v;
    int rc;

    *uri_out = NULL;
    if ((rc = ice_metadata_find_latest(&uri, io, ctx, folder)) < 0)
        return rc;
    v = zb_catalog__metadata_version(uri);
    while (v >= 0) {
        int gz;

        for (gz = 0; gz < 2; gz++) {
            if ((rc = version_uri(&next, ctx, folder, v + 1, gz)) < 0)
                goto done;
            rc = zb_io_stat_uri(&st, io, ctx, next.ptr);
            if (rc != ZB_ENOTFOUND)
                break;
            zb_err_clear(&ctx->err);
        }
        if (rc == ZB_ENOTFOUND) {
            rc = ZB_OK;
            break;
        }
        if (rc < 0)
            goto done;
        zb_free(uri);
        if ((uri = zb_strdup(next.ptr)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        v++;
    }
    *uri_out = uri;
    *version_out = v;
    uri = NULL;
done:
    zb_free(uri);
    zb_buf_free(&next);
    return rc;
}

/* A table for folder with its metadata (taken over) and path remaps. */
static int path_table(zb_table **out, zb_ctx *ctx, const zb_catalog *c,
                      const char *ident, const char *folder, const char *uri,
                      ice_metadata *m)
{
    zb_table *t = NULL;
    const char *loc = m->location;
    size_t n;
    int rc;

    if ((rc = zb_table__new(&t, ctx, c, ident, uri, m, folder)) < 0)
        return rc;
    t->internal->strip_scheme = 1;
    if (loc != NULL && loc[0] != '\0' && strcmp(loc, folder) != 0) {
        char *trimmed = folder_dup(loc);
        if (trimmed == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        rc = zb_table__add_remap(t, ctx, trimmed, folder);
        n = zb_catalog__scheme_len(trimmed);
        if (rc >= 0 && n > 0 && trimmed[n] == '/')
            rc = zb_table__add_remap(t, ctx, trimmed + n, folder);
        /* "./t" (DuckDB) names its files "t/..." */
        if (rc >= 0 && trimmed[0] == '.' && trimmed[1] == '/' && trimmed[2])
            rc = zb_table__add_remap(t, ctx, trimmed + 2, folder);
        zb_free(trimmed);
        if (rc < 0)
            goto done;
    }
    *out = t;
    t = NULL;
done:
    zb_table_free(t);
    return rc;
}

/* The table folder of metadata file uri (names_file above). */
static char *file_folder(const char *uri, const ice_metadata *m)
{
    size_t d = dir_len(uri, strlen(uri));
    size_t p = dir_len(uri, d);
    /* where the folder's last part starts ("metadata/x": at 0) */
    size_t b = p == 0 && uri[0] != '/' ? 0 : p + 1;

    if (d >= 8 && d - b == 8 && strncmp(uri + b, "metadata", 8) == 0)
        return b == 0 ? zb_strdup(".") : zb_strndup(uri, p > 0 ? p : 1);
    if (m->location != NULL && m->location[0] != '\0') {
        const char *loc = m->location;
        int local = zb_catalog__scheme_len(loc) == 0 ||
                    zb_str_starts_with(loc, "file:");

        /* a location this io reads the same way as the file itself */
        if (zb_io_is_object_store(uri) ? zb_io_is_object_store(loc) : local)
            return folder_dup(loc);
    }
    return d > 0 ? zb_strndup(uri, d) : zb_strdup(".");
}

static int load_file(zb_catalog *c, zb_ctx *ctx, const char *ident,
                     zb_table **out)
{
    char *folder = NULL;
    ice_metadata *m = NULL;
    int rc;

    if ((rc = ice_metadata_load(&m, c->io, ctx, ident)) < 0) {
        zb_err_prefix(ctx, "metadata file %s", ident);
        return rc;
    }
    if ((folder = file_folder(ident, m)) == NULL) {
        ice_metadata_free(m);
        return zb_fail_oom(ctx);
    }
    rc = path_table(out, ctx, c, ident, folder, ident, m);
    zb_free(folder);
    return rc;
}

static int path_load(zb_catalog *c, zb_ctx *ctx, const char *ident,
                     zb_table **out)
{
    char *folder = NULL, *uri = NULL;
    ice_metadata *m = NULL;
    int64_t v;
    int rc;

    if (names_file(ident))
        return load_file(c, ctx, ident, out);
    if ((folder = folder_dup(ident)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = find_newest(&uri, &v, c->io, ctx, folder)) < 0) {
        zb_err_prefix(ctx, "table folder %s", folder);
        goto done;
    }
    if ((rc = ice_metadata_load(&m, c->io, ctx, uri)) < 0) {
        zb_err_prefix(ctx, "table folder %s", folder);
        goto done;
    }
    rc = path_table(out, ctx, c, folder, folder, uri, m);
done:
    zb_free(folder);
    zb_free(uri);
    return rc;
}

/*
 * Replaces metadata/version-hint.text with version v, in one step on the
 * local filesystem (zb_io_write_replace), so a reader never finds it
 * missing and lists the folder instead. Advisory: readers that find it
 * missing or stale list the folder, so failures are dropped (the
 * caller's context cleared), not returned.
 */
static void write_hint(zb_catalog *c, zb_ctx *ctx, const char *folder,
                       int64_t v)
{
    zb_buf uri = ZB_BUF_INIT(PATH_MAX_BYTES);
    char text[32];
    int n;

    n = snprintf(text, sizeof(text), "%lld", (long long)v);
    if (zb_buf_appendf(&uri, "%s/metadata/version-hint.text", folder) == 0)
        (void)zb_io_write_replace(c->io, ctx, uri.ptr, text, (size_t)n);
    zb_err_clear(&ctx->err);
    zb_buf_free(&uri);
}

int zb_catalog__path_writable(zb_ctx *ctx, const char *folder)
{
    if (folder == NULL || !zb_io_is_object_store(folder))
        return ZB_OK;
    return zb_fail(ctx, ZB_EREFUSED, "table folder %.1000s is on an object "
                   "store and has no catalog: it is read-only (scan, "
                   "describe, plan and dry runs work). A commit without a "
                   "catalog relies on an atomic rename or put-if-absent "
                   "that object stores do not give, so a concurrent "
                   "writer's commit could be lost. Register the table in a "
                   "SQL or REST catalog (its newest metadata file) and name "
                   "it as namespace.table", folder);
}

/* A local path without file: and its authority, leading "./" and
 * doubled slashes, so that two spellings of one file compare equal. */
static const char *plain_path(char *out, size_t cap, const char *uri)
{
    size_t n = 0;

    if (zb_str_starts_with(uri, "file://")) {
        uri += 7;
        while (*uri && *uri != '/')
            uri++;
    } else if (zb_str_starts_with(uri, "file:")) {
        uri += 5;
    }
    while (uri[0] == '.' && uri[1] == '/')
        uri += 2;
    for (; *uri && n + 1 < cap; uri++)
        if (!(*uri == '/' && n > 0 && out[n - 1] == '/'))
            out[n++] = *uri;
    out[n] = '\0';
    return out;
}

static int not_newest(zb_ctx *ctx, const char *named, const char *newest)
{
    char a[PATH_MAX_BYTES], b[PATH_MAX_BYTES];

    if (strcmp(plain_path(a, sizeof a, named),
               plain_path(b, sizeof b, newest)) == 0)
        return ZB_OK;
    return zb_fail(ctx, ZB_EREFUSED, "%s is not the table's newest metadata "
                   "file (%s is): a change must start from the newest, or it "
                   "would fork the table or delete newer files; name the "
                   "table folder or the newest file", named, newest);
}

int zb_catalog__path_check_named(zb_catalog *c, zb_ctx *ctx,
                                 const char *ident)
{
    zb_table *t = NULL;
    char *newest = NULL;
    int64_t v;
    int rc;

    if (!names_file(ident))
        return ZB_OK;
    if ((rc = load_file(c, ctx, ident, &t)) < 0)
        return rc;
    rc = find_newest(&newest, &v, c->io, ctx, t->root);
    if (rc == ZB_ENOTFOUND)
        rc = zb_fail(ctx, ZB_EREFUSED, "%s: its table folder %s has no "
                     "metadata folder of versioned files, so a change "
                     "cannot follow it (read-only verbs work)", ident,
                     t->root);
    else if (rc >= 0)
        rc = not_newest(ctx, t->metadata_location, newest);
    zb_free(newest);
    zb_table_free(t);
    return rc;
}

static int path_commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                       const zb_json *requirements_json,
                       const zb_json *updates_json,
                       zb_table **out)
{
    const json_t *requirements = (const json_t *)requirements_json;
    const json_t *updates = (const json_t *)updates_json;
    const char *folder = base->root;
    char *cur_uri = NULL;
    ice_metadata *next = NULL;
    zb_table *nt = NULL;
    zb_catalog_old_log old_log = { 0, NULL };
    zb_buf next_uri = ZB_BUF_INIT(PATH_MAX_BYTES);
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    int64_t v = -1;
    int rc;

    if ((rc = zb_catalog__path_writable(ctx, folder)) < 0)
        return rc;
    if ((rc = find_newest(&cur_uri, &v, c->io, ctx, folder)) < 0)
        goto fail;
    if (names_file(base->ident) &&
        (rc = not_newest(ctx, base->metadata_location, cur_uri)) < 0)
        goto fail;
    if (v < 0) {
        rc = zb_fail(ctx, ZB_EUNSUPPORTED, "the newest metadata file %s has "
                     "no version number to follow", cur_uri);
        goto fail;
    }
    if ((rc = zb_catalog__apply(&next, &old_log, ctx, c->io, base, cur_uri,
                                (const zb_json *)requirements,
                                (const zb_json *)updates, -1)) < 0)
        goto fail;
    if ((rc = version_uri(&next_uri, ctx, folder, v + 1,
                          ice_metadata_gzip_codec(next))) < 0 ||
        (rc = ice_metadata_write_file(&json, next, ctx, next_uri.ptr)) < 0)
        goto fail;
    /* Everything that may fail is done before the file appears: after
     * that, the commit has happened and must be reported so. The new
     * state is the folder's, whatever file the base was named by. */
    rc = path_table(&nt, ctx, c, folder, folder, next_uri.ptr, next);
    next = NULL;
    if (rc < 0)
        goto fail;
    if ((rc = version_taken(c->io, ctx, folder, v + 1,
                            !ice_metadata_gzip_codec(nt->meta))) < 0)
        goto fail;
    rc = zb_io_write_new(c->io, ctx, next_uri.ptr, json.ptr, json.len);
    if (rc == ZB_EEXISTS) {
        rc = zb_fail(ctx, ZB_ECONFLICT, "another writer created %s first",
                     next_uri.ptr);
        goto fail;
    }
    if (rc < 0)
        goto fail;
    /* create-exclusive guards one name only: a writer of the other
     * codec may have made version N+1 meanwhile; both then give way */
    if ((rc = version_taken(c->io, ctx, folder, v + 1,
                            !ice_metadata_gzip_codec(nt->meta))) < 0) {
        zb_err saved;

        zb_err_copy(&saved, &ctx->err);
        if (zb_io_delete(c->io, ctx, next_uri.ptr) < 0)
            zb_log_warn(ctx, "could not delete %s: %s", next_uri.ptr,
                        ctx->err.msg);
        zb_err_copy(&ctx->err, &saved);
        goto fail;
    }
    write_hint(c, ctx, folder, v + 1);
    zb_catalog__prune(c->io, ctx, base, &old_log, nt->meta);
    *out = nt;
    nt = NULL;
    goto done;
fail:
    zb_err_prefix(ctx, "table folder %s: commit", folder);
done:
    zb_free(cur_uri);
    zb_table_free(nt);
    zb_catalog__old_log_free(&old_log);
    ice_metadata_free(next);
    zb_buf_free(&next_uri);
    zb_buf_free(&json);
    return rc;
}

static int path_create(zb_catalog *c, zb_ctx *ctx, const char *ident,
                       const char *location, const ice_metadata *first,
                       zb_table **out)
{
    char *folder = NULL, *uri = NULL;
    ice_metadata *m = NULL;
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    zb_buf path = ZB_BUF_INIT(PATH_MAX_BYTES);
    int64_t v;
    int rc;

    ZB_UNUSED(location);
    if ((rc = zb_catalog__path_writable(ctx, ident)) < 0)
        return rc;
    if ((folder = folder_dup(ident)) == NULL)
        return zb_fail_oom(ctx);
    rc = find_newest(&uri, &v, c->io, ctx, folder);
    if (rc >= 0) {
        rc = zb_fail(ctx, ZB_EEXISTS, "table folder %s already has metadata "
                     "(%s)", folder, uri);
        goto done;
    }
    if (rc != ZB_ENOTFOUND)
        goto done;
    zb_err_clear(&ctx->err);
    if ((rc = version_uri(&path, ctx, folder, 1,
                          ice_metadata_gzip_codec(first))) < 0 ||
        (rc = ice_metadata_write_file(&json, first, ctx, path.ptr)) < 0)
        goto done;
    if ((rc = zb_io_write_new(c->io, ctx, path.ptr, json.ptr, json.len)) < 0)
        goto done;
    write_hint(c, ctx, folder, 1);
    if ((rc = ice_metadata_parse(&m, ctx, json.ptr, json.len, path.ptr)) < 0)
        goto done;
    rc = path_table(out, ctx, c, folder, folder, path.ptr, m);
done:
    if (rc < 0 && rc != ZB_EEXISTS)
        zb_err_prefix(ctx, "table folder %s: create", folder);
    zb_free(folder);
    zb_free(uri);
    zb_buf_free(&json);
    zb_buf_free(&path);
    return rc;
}

static const zb_catalog_ops path_ops = {
    ZB_CATALOG_OPS_VERSION,
    NULL,            /* list_warehouses */
    NULL,            /* list_namespaces */
    NULL,            /* list_tables */
    NULL,            /* create_namespace */
    path_load,
    path_create,
    NULL,            /* register_table */
    path_commit,
    NULL,            /* drop_table */
    NULL             /* destroy */
};

int zb_catalog__path_open(zb_catalog *c, zb_ctx *ctx,
                          const zb_catalog_config *cfg)
{
    ZB_UNUSED(ctx);
    ZB_UNUSED(cfg);
    c->ops = &path_ops;
    c->caps = ZB_CATALOG_CAP_CREATE;
    return ZB_OK;
}

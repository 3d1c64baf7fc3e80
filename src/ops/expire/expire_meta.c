/*
 * ops/expire/expire_meta.c - the old metadata files expire deletes: those older
 * than the oldest entry of the metadata-log (expire.h "Metadata files").
 *
 * Every commit appends the metadata file it replaced to the
 * metadata-log and drops the oldest entries beyond
 * write.metadata.previous-versions-max (catalog/catalog_commit.c; Iceberg
 * does the same). The files dropped stay on storage unless
 * write.metadata.delete-after-commit.enabled was true at that commit, and
 * nothing references them any more. zb_expire__meta_plan finds them:
 *
 *   1. the log to keep: the table's own, or (predict, for a dry run that
 *      would commit) the log that commit would leave, the current file
 *      appended and the oldest entries dropped beyond the maximum;
 *   2. the floor: the lowest version number (ice_commit_metadata_version)
 *      among the kept entries and the current file. A commit always
 *      writes a higher version than the one it replaced, so no file at or
 *      above the floor is touched: not the current one, none in the log,
 *      none a concurrent commit is writing now, none a catalog may point
 *      to. An entry without a version number leaves no floor: then only
 *      step 4 runs;
 *   3. unless the floor is the table's first version (00000, or v1 for
 *      Hadoop names: the log was never trimmed, nothing fell out), the
 *      directory of the current metadata file is listed (only its own
 *      files count, not subfolders') and each "*.metadata.json" file
 *      below the floor is a candidate;
 *   4. without a listing (the store cannot list), the candidates are the
 *      entries of base's log that the kept log no longer holds;
 *   5. a candidate is kept unless it is this table's: its table-uuid (read
 *      from the head of the file, else from the whole file) equals the
 *      table's. Another table's file in the folder (a table dropped and
 *      created again at the same location) or an unreadable one stays,
 *      and is counted as skipped.
 * The result is a record file of URIs and sizes for zb_reach_delete.
 */
#define ZB_MODULE "expire"

#include <string.h>
#include <strings.h>

#include "ops/expire/expire_int.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

#define HEAD_BYTES 16384
#define SUFFIX ".metadata.json"

void zb_expire__meta_free(zb_expire_meta *mp)
{
    if (mp == NULL)
        return;
    zb_pathfile_free(mp->files);
    memset(mp, 0, sizeof *mp);
}

size_t zb_expire__previous_versions_max(const ice_metadata *m)
{
    const char *v = ice_metadata_property(m, ICE_PROP_PREVIOUS_VERSIONS_MAX);
    uint64_t n;

    if (v == NULL || zb_str_to_u64(&n, v) < 0)
        return ICE_PREVIOUS_VERSIONS_MAX_DEFAULT;
    return n < 1 ? 1 : (size_t)n;
}

typedef struct meta_run {
    const zb_table *t;
    zb_io *io;
    zb_ctx *ctx;
    zb_expire_meta *mp;
    char **kept;                   /* normalized kept log + current */
    size_t n_kept;
    char *dir;                     /* normalized folder of the current */
    zb_buf norm;
    char *head;
} meta_run;

static void run_free(meta_run *mr)
{
    size_t i;

    for (i = 0; i < mr->n_kept; i++)
        zb_free(mr->kept[i]);
    zb_free(mr->kept);
    zb_free(mr->dir);
    zb_free(mr->head);
    zb_buf_free(&mr->norm);
}

/* uri normalized (through t's paths when resolve) into a new string. */
static int normalized(char **out, meta_run *mr, const char *uri, int resolve)
{
    zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc = ZB_OK;

    *out = NULL;
    if (resolve)
        rc = zb_table_resolve(&res, mr->ctx, mr->t, uri);
    if (rc == ZB_OK)
        rc = zb_reach_normalize(&mr->norm, mr->ctx,
                                resolve ? zb_buf_cstr(&res) : uri);
    zb_buf_free(&res);
    if (rc < 0)
        return rc;
    if ((*out = zb_strdup(zb_buf_cstr(&mr->norm))) == NULL)
        return zb_fail_oom(mr->ctx);
    return ZB_OK;
}

static int is_kept(const meta_run *mr, const char *norm)
{
    size_t i;

    for (i = 0; i < mr->n_kept; i++)
        if (strcmp(mr->kept[i], norm) == 0)
            return 1;
    return 0;
}

/* A v<N>.metadata.json name (Hadoop tables start at v1, others at 0). */
static int name_is_hadoop(const char *uri)
{
    const char *s = strrchr(uri, '/');

    s = s ? s + 1 : uri;
    return s[0] == 'v' && s[1] >= '0' && s[1] <= '9';
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Steps 1 and 2: the kept log (normalized) and the floor (-1: none). */
static int kept_log(meta_run *mr, const ice_metadata *m, int predict)
{
    size_t max = zb_expire__previous_versions_max(m);
    size_t n = m->n_metadata_log + (predict ? 1 : 0), first = 0, i;
    int64_t floor, v;
    int rc;

    if (predict && n > max)
        first = n - max;
    if ((mr->kept = zb_calloc(n + 2, sizeof *mr->kept)) == NULL)
        return zb_fail_oom(mr->ctx);
    if ((rc = normalized(&mr->kept[mr->n_kept], mr, mr->t->metadata_location,
                         0)) < 0)
        return rc;
    mr->n_kept++;
    floor = ice_commit_metadata_version(mr->t->metadata_location);
    for (i = first; i < n; i++) {
        const char *f = i < m->n_metadata_log ? m->metadata_log[i].metadata_file
                                              : mr->t->metadata_location;
        if ((rc = normalized(&mr->kept[mr->n_kept], mr, f,
                             i < m->n_metadata_log)) < 0)
            return rc;
        mr->n_kept++;
        v = ice_commit_metadata_version(f);
        if (v < 0 || floor < 0)
            floor = -1;
        else if (v < floor)
            floor = v;
    }
    mr->mp->floor_version = floor;
    mr->mp->previous_versions_max = max;
    return ZB_OK;
}

/* The table-uuid string in a metadata document's head; 0 when absent. */
static int head_uuid(char *out, size_t out_size, const char *head, size_t n)
{
    static const char key[] = "\"table-uuid\"";
    const char *p = NULL, *end = head + n, *q;
    size_t i, k = sizeof key - 1;

    for (i = 0; i + k <= n; i++)
        if (memcmp(head + i, key, k) == 0) {
            p = head + i + k;
            break;
        }
    if (p == NULL)
        return 0;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    if (p >= end || *p++ != ':')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    if (p >= end || *p++ != '"')
        return 0;
    for (q = p; q < end && *q != '"' && *q != '\\'; q++)
        ;
    if (q >= end || *q != '"' || (size_t)(q - p) >= out_size)
        return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return 1;
}

/*
 * Step 5: *ours = 1 when uri (size bytes) is a metadata file of table m.
 * A file that does not read is not ours (logged). ZB_OK or ZB_ENOMEM.
 */
static int is_ours(int *ours, meta_run *mr, const char *uri, uint64_t size)
{
    const ice_metadata *m = mr->t->meta;
    ice_metadata *other = NULL;
    char uuid[80];
    size_t n = size < HEAD_BYTES ? (size_t)size : HEAD_BYTES;
    int rc;

    *ours = 0;
    if (m->table_uuid != NULL && n > 0) {
        rc = zb_io_read_range(mr->io, mr->ctx, uri, 0, mr->head, n);
        if (rc == ZB_ENOMEM)
            return rc;
        if (rc == ZB_OK && head_uuid(uuid, sizeof uuid, mr->head, n)) {
            *ours = strcasecmp(uuid, m->table_uuid) == 0;
            goto verdict;
        }
        zb_err_clear(&mr->ctx->err);
    }
    rc = ice_metadata_load(&other, mr->io, mr->ctx, uri);
    if (rc == ZB_ENOMEM)
        return rc;
    if (rc == ZB_OK) {
        if (m->table_uuid != NULL)
            *ours = other->table_uuid != NULL &&
                    strcasecmp(other->table_uuid, m->table_uuid) == 0;
        else
            *ours = other->table_uuid == NULL && other->location &&
                    m->location && strcmp(other->location, m->location) == 0;
        ice_metadata_free(other);
    } else {
        zb_log_warn(mr->ctx, "%s: old metadata file %s kept: it does not "
                    "read (%s)", mr->t->ident, uri, mr->ctx->err.msg);
        zb_err_clear(&mr->ctx->err);
        mr->mp->skipped++;
        return ZB_OK;
    }
verdict:
    if (!*ours) {
        zb_log_warn(mr->ctx, "%s: old metadata file %s kept: it belongs to "
                    "another table (table-uuid is not %s)", mr->t->ident, uri,
                    m->table_uuid ? m->table_uuid : "(none)");
        mr->mp->skipped++;
    }
    return ZB_OK;
}

static int take(meta_run *mr, const char *uri, uint64_t size, int64_t mtime)
{
    zb_pathrec r;
    int ours, rc;

    if ((rc = is_ours(&ours, mr, uri, size)) < 0 || !ours)
        return rc;
    memset(&r, 0, sizeof r);
    r.path = uri;
    r.len = strlen(uri);
    r.tag = ZB_REACH_METALOG;
    r.size_bytes = size;
    r.mtime_ms = mtime;
    mr->mp->bytes += size;
    return zb_pathfile_write(mr->mp->files, mr->ctx, &r);
}

/*
 * The naming scheme of a metadata file name, strictly: 1 for Hadoop's
 * "v<N>[.gz].metadata.json", 2 for "<N>-<uuid>[.gz].metadata.json",
 * 0 for anything else (a writer's temporary "<uuid>.metadata.json", a
 * user's "5-copy.metadata.json"). Version numbers are only comparable
 * within one scheme: a writer that does not read Hadoop names starts
 * again at 00000 in the same folder, below any floor of v<N> files.
 */
static int name_scheme(const char *name)
{
    const char *p = name;
    size_t i;

    if (*p == 'v') {
        for (p++, i = 0; *p >= '0' && *p <= '9'; p++, i++)
            ;
        if (i == 0)
            return 0;
        return strcmp(p, SUFFIX) == 0 || strcmp(p, ".gz" SUFFIX) == 0;
    }
    for (i = 0; *p >= '0' && *p <= '9'; p++, i++)
        ;
    if (i == 0 || *p++ != '-')
        return 0;
    for (i = 0; i < 36; i++, p++) {
        int hyphen = i == 8 || i == 13 || i == 18 || i == 23;
        int hex = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
                  (*p >= 'A' && *p <= 'F');

        if (hyphen ? *p != '-' : !hex)
            return 0;
    }
    return strcmp(p, SUFFIX) == 0 || strcmp(p, ".gz" SUFFIX) == 0 ? 2 : 0;
}

static const char *base_name(const char *uri)
{
    const char *s = strrchr(uri, '/');

    return s ? s + 1 : uri;
}

/* Step 3. ZB_EUNSUPPORTED (or another listing failure) leaves the
 * caller to step 4; candidates found before a failure are dropped.
 * Only files named in the current file's scheme are candidates. */
static int from_listing(meta_run *mr, const char *dir_uri)
{
    zb_io_lister *l = NULL;
    zb_io_entry e;
    size_t dl = strlen(mr->dir);
    int scheme = name_scheme(base_name(mr->t->metadata_location)), rc;

    if (scheme == 0)
        return ZB_OK;              /* no version order to go by */
    if ((rc = zb_io_list(&l, mr->io, mr->ctx, dir_uri)) < 0)
        return rc;
    while ((rc = zb_io_lister_next(l, mr->ctx, &e)) > 0) {
        const char *p, *name;
        int64_t v;

        if ((rc = zb_reach_normalize(&mr->norm, mr->ctx, e.uri)) < 0)
            break;
        p = zb_buf_cstr(&mr->norm);
        if (strncmp(p, mr->dir, dl) != 0 || p[dl] != '/' ||
            strchr(p + dl + 1, '/') != NULL)
            continue;                  /* a subfolder's file */
        name = p + dl + 1;
        v = ice_commit_metadata_version(name);
        if (!ends_with(name, SUFFIX) || name_scheme(name) != scheme ||
            v < 0 || v >= mr->mp->floor_version || is_kept(mr, p))
            continue;
        if ((rc = take(mr, e.uri, e.size_bytes, e.mtime_ms)) < 0)
            break;
    }
    zb_io_lister_free(l);
    return rc < 0 ? rc : ZB_OK;
}

/* Step 4: base's entries that the kept log no longer holds. */
static int from_base_log(meta_run *mr, const ice_metadata *base)
{
    zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    size_t i;
    int rc = ZB_OK;

    for (i = 0; base != NULL && i < base->n_metadata_log && rc == ZB_OK;
         i++) {
        const char *f = base->metadata_log[i].metadata_file;
        int64_t v = ice_commit_metadata_version(f);
        zb_io_stat st;

        if ((rc = zb_table_resolve(&res, mr->ctx, mr->t, f)) < 0 ||
            (rc = zb_reach_normalize(&mr->norm, mr->ctx,
                                     zb_buf_cstr(&res))) < 0)
            break;
        if (is_kept(mr, zb_buf_cstr(&mr->norm)) ||
            (mr->mp->floor_version >= 0 && v >= mr->mp->floor_version))
            continue;
        rc = zb_io_stat_uri(&st, mr->io, mr->ctx, zb_buf_cstr(&res));
        if (rc == ZB_ENOTFOUND) {       /* pruned at its commit already */
            zb_err_clear(&mr->ctx->err);
            rc = ZB_OK;
            continue;
        }
        if (rc < 0)
            break;
        rc = take(mr, zb_buf_cstr(&res), st.size_bytes, st.mtime_ms);
    }
    zb_buf_free(&res);
    return rc;
}

int zb_expire__meta_plan(zb_expire_meta *out, const zb_table *t,
                         const ice_metadata *base, int predict, zb_io *io,
                         zb_ctx *ctx)
{
    meta_run mr;
    const char *cur = t->metadata_location, *slash;
    char *dir_uri = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&mr, 0, sizeof mr);
    mr.t = t;
    mr.io = io;
    mr.ctx = ctx;
    mr.mp = out;
    zb_buf_init(&mr.norm, ZB_REACH_MAX_PATH);
    out->floor_version = -1;
    if (cur == NULL || (slash = strrchr(cur, '/')) == NULL)
        return ZB_OK;                  /* no folder to look in */
    if ((rc = zb_pathfile_open(&out->files, ctx, "expire-metadata")) < 0 ||
        (rc = kept_log(&mr, t->meta, predict)) < 0)
        goto done;
    if ((mr.head = zb_malloc(HEAD_BYTES)) == NULL ||
        (dir_uri = zb_strndup(cur, (size_t)(slash - cur))) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = normalized(&mr.dir, &mr, dir_uri, 0)) < 0)
        goto done;
    if (out->floor_version == 0 ||
        (out->floor_version == 1 && name_is_hadoop(cur))) {
        /* The log still reaches the table's first file (00000 or v1):
         * no file has fallen out of it; no listing needed. */
        rc = ZB_OK;
        goto done;
    }
    rc = ZB_EUNSUPPORTED;
    if (out->floor_version > 0 &&
        (rc = from_listing(&mr, dir_uri)) < 0 && rc != ZB_ENOMEM &&
        rc != ZB_ECANCELED)
        zb_log_info(ctx, "%s: old metadata files: cannot list %s (%s); "
                    "only those the metadata-log drops now", t->ident,
                    dir_uri, ctx->err.msg);
    if (rc < 0 && rc != ZB_ENOMEM && rc != ZB_ECANCELED) {
        zb_err_clear(&ctx->err);
        zb_pathfile_free(out->files);
        out->files = NULL;
        out->bytes = 0;
        out->skipped = 0;
        if ((rc = zb_pathfile_open(&out->files, ctx, "expire-metadata")) < 0)
            goto done;
        rc = from_base_log(&mr, predict ? t->meta : base);
    }
    if (rc == ZB_OK)
        rc = zb_pathfile_rewind(out->files, ctx);
done:
    if (rc == ZB_OK && out->files != NULL && zb_pathfile_count(out->files) == 0) {
        zb_pathfile_free(out->files);  /* nothing to delete */
        out->files = NULL;
    }
    zb_free(dir_uri);
    run_free(&mr);
    if (rc < 0)
        zb_expire__meta_free(out);
    return rc;
}

/* Set to anything but "true" (Java's Boolean.parseBoolean): the owner
 * keeps old metadata files on purpose. */
static int keep_by_property(const ice_metadata *m)
{
    const char *v = ice_metadata_property(m, ICE_PROP_DELETE_AFTER_COMMIT);

    return v != NULL && strcasecmp(v, "true") != 0;
}

int zb_expire__meta_run(zb_expire_result *r, const zb_table *t,
                        const ice_metadata *base, int predict, int dry_run,
                        zb_io *io, zb_ctx *ctx, unsigned threads)
{
    zb_expire_meta mp;
    zb_reach_deleted del;
    int rc;

    r->previous_versions_max = zb_expire__previous_versions_max(t->meta);
    if (r->gc_disabled || keep_by_property(t->meta))
        return ZB_OK;
    if ((rc = zb_expire__meta_plan(&mp, t, base, predict, io, ctx)) < 0)
        return rc;
    r->metadata_skipped = mp.skipped;
    if (mp.files == NULL) {
        zb_expire__meta_free(&mp);
        return ZB_OK;
    }
    if (dry_run) {
        r->metadata_deleted = zb_pathfile_count(mp.files);
        r->metadata_bytes_deleted = mp.bytes;
    } else {
        rc = zb_reach_delete_stage(&del, mp.files, io, ctx, threads,
                                   ZB_PROGRESS_EXPIRE_METADATA);
        r->metadata_deleted = del.files;
        r->metadata_bytes_deleted = del.bytes;
        r->metadata_not_deleted = del.failed;
        if (r->first_error[0] == '\0')
            memcpy(r->first_error, del.first_error, sizeof r->first_error);
    }
    zb_expire__meta_free(&mp);
    return rc;
}

/*
 * catalog/catalog_commit.c - the commit steps the SQL and folder catalogs
 * share: from the current metadata file to the next metadata (requirements
 * checked, the clock rule, updates applied, metadata-log extended), and
 * pruning of old metadata files once the pointer has moved.
 *
 * The clock rule (seeds/001, Lakekeeper's production checklist): a writer
 * whose clock runs more than a minute ahead of the catalog's would stamp
 * snapshots "in the future", and snapshot ordering by time (time travel,
 * expiry by age) would then break for every later writer; the catalog
 * refuses such a snapshot with an error that names both clocks.
 */
#define ZB_MODULE "catalog"

#include <string.h>

#include <jansson.h>

#include "catalog/catalog_commit.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"
#include "zamboni/io_s3.h"

int64_t zb_catalog__metadata_version(const char *uri)
{
    return ice_commit_metadata_version(uri);
}

void zb_catalog__old_log_free(zb_catalog_old_log *l)
{
    size_t i;

    if (l == NULL)
        return;
    for (i = 0; i < l->n; i++)
        zb_free(l->files[i]);
    zb_free(l->files);
    l->files = NULL;
    l->n = 0;
}

static int capture_log(zb_catalog_old_log *l, zb_ctx *ctx,
                       const ice_metadata *m)
{
    size_t i;

    l->n = 0;
    l->files = NULL;
    if (m->n_metadata_log == 0)
        return ZB_OK;
    if ((l->files = zb_calloc(m->n_metadata_log, sizeof(char *))) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < m->n_metadata_log; i++) {
        if ((l->files[i] = zb_strdup(m->metadata_log[i].metadata_file)) == NULL) {
            zb_catalog__old_log_free(l);
            return zb_fail_oom(ctx);
        }
        l->n++;
    }
    return ZB_OK;
}

/* ZB_EREFUSED for an add-snapshot more than the skew ahead of clock_ms. */
static int check_clock(zb_ctx *ctx, const json_t *updates, int64_t clock_ms)
{
    size_t i;
    const json_t *u;

    if (updates == NULL || clock_ms < 0)
        return ZB_OK;
    json_array_foreach(updates, i, u) {
        const char *action = json_string_value(json_object_get(u, "action"));
        const json_t *snap = json_object_get(u, "snapshot");
        const json_t *ts = json_object_get(snap, "timestamp-ms");
        int64_t t;

        if (action == NULL || strcmp(action, "add-snapshot") != 0 ||
            !json_is_integer(ts))
            continue;
        t = (int64_t)json_integer_value(ts);
        if (t > clock_ms + ZB_CATALOG_CLOCK_SKEW_MS)
            return zb_fail(ctx, ZB_EREFUSED,
                           "snapshot %lld has timestamp-ms %lld, %lld ms ahead "
                           "of the catalog's clock (%lld); more than %lld ms "
                           "ahead is refused: check the writer's clock",
                           (long long)json_integer_value(
                               json_object_get(snap, "snapshot-id")),
                           (long long)t, (long long)(t - clock_ms),
                           (long long)clock_ms,
                           (long long)ZB_CATALOG_CLOCK_SKEW_MS);
    }
    return ZB_OK;
}

static size_t previous_versions_max(const ice_metadata *m)
{
    const char *v = ice_metadata_property(m, ICE_PROP_PREVIOUS_VERSIONS_MAX);
    uint64_t n;

    if (v == NULL || zb_str_to_u64(&n, v) < 0)
        return ICE_PREVIOUS_VERSIONS_MAX_DEFAULT;
    /* Iceberg keeps at least one entry: 0 would mean "keep all" here. */
    return n < 1 ? 1 : (size_t)n;
}

int zb_catalog__apply(ice_metadata **out, zb_catalog_old_log *old_log,
                      zb_ctx *ctx, zb_io *io, const zb_table *base,
                      const char *cur_uri,
                      const zb_json *requirements_json,
                      const zb_json *updates_json,
                      int64_t clock_ms)
{
    const json_t *requirements = (const json_t *)requirements_json;
    const json_t *updates = (const json_t *)updates_json;
    ice_metadata *loaded = NULL;
    const ice_metadata *m;
    int rc;

    *out = NULL;
    old_log->n = 0;
    old_log->files = NULL;
    if (base != NULL && base->meta != NULL && base->metadata_location &&
        strcmp(base->metadata_location, cur_uri) == 0) {
        m = base->meta;
    } else {
        if ((rc = ice_metadata_load(&loaded, io, ctx, cur_uri)) < 0)
            return rc;
        m = loaded;
    }
    if (requirements != NULL &&
        (rc = ice_commit_check_requirements(m, ctx,
                                            (const zb_json *)requirements)) < 0)
        goto done;
    if ((rc = check_clock(ctx, updates, clock_ms)) < 0)
        goto done;
    if ((rc = capture_log(old_log, ctx, m)) < 0)
        goto done;
    rc = ice_commit_apply_next(out, m, ctx, (const zb_json *)updates, cur_uri,
                               m->last_updated_ms, previous_versions_max(m));
done:
    if (rc < 0)
        zb_catalog__old_log_free(old_log);
    ice_metadata_free(loaded);
    return rc;
}

/* Hadoop's checksum file .NAME.crc of a local file goes with it. */
static void delete_checksum(zb_io *io, zb_ctx *ctx, const char *uri)
{
    const char *slash = strrchr(uri, '/');
    zb_buf crc = ZB_BUF_INIT(8192 + 8);
    size_t dir = slash ? (size_t)(slash - uri) + 1 : 0;

    if (zb_io_is_object_store(uri))
        return;
    if (zb_buf_append(&crc, uri, dir) == 0 &&
        zb_buf_appendf(&crc, ".%s.crc", uri + dir) == 0)
        (void)zb_io_delete(io, ctx, crc.ptr);
    zb_err_clear(&ctx->err);
    zb_buf_free(&crc);
}

static int in_log(const ice_metadata *m, const char *file)
{
    size_t i;

    for (i = 0; i < m->n_metadata_log; i++)
        if (strcmp(m->metadata_log[i].metadata_file, file) == 0)
            return 1;
    return 0;
}

size_t zb_catalog__prune(zb_io *io, zb_ctx *ctx, const zb_table *t,
                         const zb_catalog_old_log *old,
                         const ice_metadata *committed)
{
    const char *on = ice_metadata_property(committed, ICE_PROP_DELETE_AFTER_COMMIT);
    zb_buf uri = ZB_BUF_INIT(8192);
    zb_err saved;
    size_t i, deleted = 0;
    int rc;

    if (on == NULL || strcmp(on, "true") != 0 || old == NULL)
        return 0;
    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < old->n; i++) {
        const char *f = old->files[i];
        if (in_log(committed, f) ||
            (committed->source_uri && strcmp(committed->source_uri, f) == 0))
            continue;
        if (t != NULL)
            rc = zb_table_resolve(&uri, ctx, t, f);
        else {
            zb_buf_clear(&uri);
            rc = zb_buf_puts(&uri, f) < 0 ? zb_fail_oom(ctx) : ZB_OK;
        }
        if (rc >= 0)
            rc = zb_io_delete(io, ctx, uri.ptr);
        if (rc >= 0) {
            deleted++;
            delete_checksum(io, ctx, uri.ptr);
        }
        else if (rc != ZB_ENOTFOUND)
            zb_log_warn(ctx, "pruning old metadata file %s: %s", f,
                        ctx->err.msg);
    }
    zb_err_copy(&ctx->err, &saved);
    zb_buf_free(&uri);
    return deleted;
}

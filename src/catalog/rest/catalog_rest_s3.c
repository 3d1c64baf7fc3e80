/*
 * catalog/rest/catalog_rest_s3.c - the S3 settings a REST catalog vends
 * with a table (loadTable "config" and "storage-credentials"), given to
 * the catalog's FileIO for the locations they cover.
 *
 * The table's location gets the config merged as t->config has it (the
 * storage credential whose prefix is the longest prefix of the location,
 * then the "config" entries it lacks); each storage credential also gets
 * its own prefix, its config over the table's "config", so files under a
 * narrower prefix use their own keys. zb_io_s3_add_prefix keeps the
 * longest matching prefix. What the user pinned (flag, ZAMBONI_*,
 * profile: zb_catalog_config.s3_pinned) is left out, so the user's wins
 * (catalog/catalog_s3.h). Vended keys come with a refresher
 * (catalog_rest_creds.c), so that the backend fetches them again through
 * the catalog before they expire. A FileIO without the S3 backend (a
 * program that reads only local tables) is left as it is. Values are
 * never logged: they hold secrets.
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <string.h>

#include "catalog/catalog_int.h"
#include "catalog/catalog_s3.h"
#include "util/alloc.h"
#include "util/err.h"

/* Settings for prefix from kv; vended keys get a refresher for the
 * credential of match (the location their credential was picked for). */
static int add_prefix(zb_catalog *c, zb_ctx *ctx, const zb_table *t,
                      const char *prefix, const char *match,
                      const zb_catalog_kv *kv, size_t n)
{
    zb_rest_refresher *f = NULL;
    zb_s3_config cfg;
    int rc;

    if (prefix == NULL || prefix[0] == '\0' || !zb_io_is_object_store(prefix))
        return ZB_OK;
    if (!zb_catalog_s3_from_kv(&cfg, kv, n, c->s3_pinned))
        return ZB_OK;
    if (cfg.access_key_id != NULL &&
        zb_rest__refresh_enabled(c->backend, kv, n)) {
        if ((rc = zb_rest__refresher_new(&f, c->backend, ctx, t->ident,
                                         match, kv, n)) < 0)
            return rc;
        cfg.refresh_credentials = zb_rest__refresh_credentials;
        cfg.refresh_release = zb_rest__refresher_release;
        cfg.refresh_user = f;
    }
    rc = zb_io_s3_add_prefix(c->io, ctx, prefix, &cfg);
    if (rc < 0)
        zb_rest__refresher_release(f);   /* not taken */
    if (rc == ZB_EINVAL) {
        /* no S3 backend in this FileIO: nothing to configure */
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    return rc;
}

/* One credential's config over the table's "config", as pairs. */
static int credential_kv(zb_catalog_kv **out, size_t *n_out, zb_ctx *ctx,
                         const json_t *cred_cfg, const json_t *table_cfg)
{
    size_t cap = json_object_size(cred_cfg) +
                 (table_cfg ? json_object_size(table_cfg) : 0);
    zb_catalog_kv *kv = zb_calloc(cap ? cap : 1, sizeof *kv);
    const char *k;
    const json_t *v;
    size_t n = 0;

    if (kv == NULL)
        return zb_fail_oom(ctx);
    json_object_foreach((json_t *)cred_cfg, k, v) {
        kv[n].key = k;
        kv[n++].value = json_string_value(v);
    }
    if (table_cfg) {
        json_object_foreach((json_t *)table_cfg, k, v) {
            if (json_object_get(cred_cfg, k) != NULL)
                continue;
            kv[n].key = k;
            kv[n++].value = json_string_value(v);
        }
    }
    *out = kv;
    *n_out = n;
    return ZB_OK;
}

int zb_rest__apply_s3(zb_catalog *c, zb_ctx *ctx, const zb_table *t,
                      const zb_rest_loaded *ld)
{
    const json_t *cred;
    size_t i;
    int rc;

    if (t->meta->location != NULL &&
        (rc = add_prefix(c, ctx, t, t->meta->location, t->meta->location,
                         t->config, t->n_config)) < 0)
        return rc;
    if (t->root != NULL && t->meta->location != NULL &&
        strcmp(t->root, t->meta->location) != 0 &&
        (rc = add_prefix(c, ctx, t, t->root, t->meta->location, t->config,
                         t->n_config)) < 0)
        return rc;
    if (ld->credentials == NULL)
        return ZB_OK;
    json_array_foreach(ld->credentials, i, cred) {
        const char *p = json_string_value(json_object_get(cred, "prefix"));
        zb_catalog_kv *kv = NULL;
        size_t n = 0;

        if ((rc = credential_kv(&kv, &n, ctx, json_object_get(cred, "config"),
                                ld->config)) < 0)
            return rc;
        rc = add_prefix(c, ctx, t, p, p, kv, n);
        zb_free(kv);
        if (rc < 0)
            return rc;
    }
    return ZB_OK;
}

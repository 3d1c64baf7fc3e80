/*
 * ops/api/api_catalog.c - include/zamboni/catalog.h: a catalog opened from
 * a URI, for programs that embed Zamboni.
 *
 * zb_catalog_new reads the URI the way the command line reads --uri
 * (cli/config/settings.c zb_settings_catalog_config: the same schemes, the
 * same SQL catalog name, postgres:// rewritten for libpq, a SQLite file
 * that must exist), but takes nothing from the environment. It makes a
 * FileIO, opens the catalog of catalog/catalog.h with owns_io set, so the
 * public handle is the library's own zb_catalog and zb_catalog_free
 * closes both.
 *
 * The FileIO has the S3 backend with its defaults only (no ZAMBONI_*):
 * endpoint AWS, region AWS_REGION else us-east-1, addressing auto,
 * credentials from the REST catalog's vended config for its tables, else
 * the AWS chain (AWS_* environment, AWS_PROFILE, web identity, container,
 * instance metadata); each in-flight upload part is reserved from
 * ctx->budget when the caller set one.
 */
#define ZB_MODULE "api"

#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "catalog/catalog_s3.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"
#include "zamboni/catalog.h"

#define URI_MAX_BYTES 8192

/* "postgresql://", and "postgresql+psycopg2://" counts as postgresql:// */
static int scheme_is(const char *uri, const char *scheme)
{
    size_t n = strlen(scheme);
    const char *sep;

    if (strncmp(uri, scheme, n) != 0)
        return 0;
    if (uri[n] == '+') {
        sep = strstr(uri + n, "://");
        return sep != NULL &&
               strcspn(uri + n, "/:") == (size_t)(sep - uri - n);
    }
    return strncmp(uri + n, "://", 3) == 0;
}

/* sqlite:PATH and sqlite:///PATH -> PATH, which must name a file. */
static int sqlite_path(const char **out, zb_ctx *ctx, const char *uri)
{
    const char *rest = uri + strlen("sqlite:");
    struct stat st;

    if (strncmp(rest, "///", 3) == 0 && rest[3] != '\0')
        rest += 3;
    else if (strncmp(rest, "//", 2) == 0)
        return zb_fail(ctx, ZB_EUSAGE, "uri '%.200s': write sqlite:PATH (or "
                       "sqlite:///PATH) for a database file", uri);
    if (rest[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "uri '%.200s' names no database "
                       "file: write sqlite:PATH", uri);
    /* the SQL catalog would create a missing file: a mistyped path must
     * not become an empty catalog */
    if (stat(rest, &st) != 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "no catalog database at %.900s",
                       rest);
    *out = rest;
    return ZB_OK;
}

/* The catalog configuration of opts; pg holds a rewritten URL. */
static int config_of(zb_catalog_config *cfg, zb_buf *pg, zb_ctx *ctx,
                     const zb_catalog_opts *o)
{
    const char *uri = o->uri;
    int rc;

    cfg->warehouse = o->warehouse;
    cfg->name = o->warehouse ? o->warehouse : "zamboni";
    if (uri == NULL) {
        cfg->kind = ZB_CATALOG_PATH;
        cfg->name = "folder";
    } else if (zb_str_starts_with(uri, "sqlite:")) {
        cfg->kind = ZB_CATALOG_SQLITE;
        if ((rc = sqlite_path(&cfg->sqlite_path, ctx, uri)) < 0)
            return rc;
    } else if (scheme_is(uri, "postgresql") || scheme_is(uri, "postgres")) {
        cfg->kind = ZB_CATALOG_POSTGRES;
        /* postgres:// and postgresql+driver:// -> postgresql:// */
        if (zb_buf_appendf(pg, "postgresql%s", strstr(uri, "://")) < 0)
            return zb_fail_oom(ctx);
        cfg->pg_write_url = zb_buf_cstr(pg);
        cfg->pg_read_url = o->pg_read_url;
    } else if (scheme_is(uri, "http") || scheme_is(uri, "https")) {
        cfg->kind = ZB_CATALOG_REST;
        cfg->uri = uri;
        cfg->credential = o->credential;
        cfg->token = o->token;
        cfg->oauth2_server_uri = o->oauth2_server_uri;
        cfg->scope = o->scope;
    } else {
        return zb_fail(ctx, ZB_EUSAGE, "uri '%.200s' names no catalog "
                       "Zamboni speaks: use http(s):// (REST), sqlite:PATH "
                       "or postgresql://, or no uri for table folders", uri);
    }
    return ZB_OK;
}

int zb_catalog_new(zb_catalog **out, zb_ctx *ctx, const zb_catalog_opts *opts)
{
    zb_catalog_opts dflt = ZB_CATALOG_OPTS_INIT;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_buf pg = ZB_BUF_INIT(URI_MAX_BYTES);
    zb_io *io = NULL;
    zb_s3_config s3;
    int rc;

    ZB_ASSERT_ARG(out && ctx);
    *out = NULL;
    if (opts == NULL)
        opts = &dflt;
    if (opts->version != ZB_CATALOG_OPTS_VERSION) {
        rc = zb_fail(ctx, ZB_EINVAL, "zb_catalog_opts version %u, this "
                     "library has %u", opts->version, ZB_CATALOG_OPTS_VERSION);
        goto done;
    }
    if ((rc = config_of(&cfg, &pg, ctx, opts)) < 0)
        goto done;
    if ((rc = zb_io_new(&io, ctx)) < 0)
        goto done;
    memset(&s3, 0, sizeof s3);
    s3.path_style = -1;
    zb_catalog_s3_budget_hooks(&s3);
    if ((rc = zb_io_add_s3(io, ctx, &s3)) < 0)
        goto done;
    cfg.owns_io = 1;
    if ((rc = zb_catalog_open(out, ctx, io, &cfg)) < 0)
        goto done;
    io = NULL;                      /* the catalog's now */
done:
    zb_io_free(io);
    zb_buf_free(&pg);
    return rc;
}

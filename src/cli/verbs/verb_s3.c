/*
 * cli/verbs/verb_s3.c - the S3 backend of a verb's FileIO, from the
 * settings (cli/config/settings.h): endpoint, region, addressing, the
 * retry bounds, the multipart threshold, the static keys (ZAMBONI_S3_ACCESS_KEY_ID and its
 * secret), and the budget hooks that count each in-flight multipart
 * part against the process's memory budget (catalog/catalog_s3.h). Credentials are resolved by the backend on the
 * first request, so adding it costs nothing to a verb on local tables.
 * Also the one line of S3 facts doctor and --verbose print: endpoint,
 * region, addressing, the credentials' source, never a secret.
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_s3.h"
#include "cli/verbs/verbs.h"
#include "util/err.h"
#include "zamboni/io_s3.h"

unsigned zb_verb_s3_config(zb_s3_config *out, const zb_settings *s)
{
    const char *v;
    unsigned pinned = 0;

    memset(out, 0, sizeof *out);
    out->endpoint = zb_settings_get(s, ZB_SET_S3_ENDPOINT);
    out->region = zb_settings_get(s, ZB_SET_S3_REGION);
    out->path_style = zb_settings_s3_path_style(s);
    out->access_key_id = zb_settings_get(s, ZB_SET_S3_ACCESS_KEY_ID);
    out->secret_access_key = zb_settings_get(s, ZB_SET_S3_SECRET_ACCESS_KEY);
    out->session_token = zb_settings_get(s, ZB_SET_S3_SESSION_TOKEN);
    if (out->access_key_id != NULL)
        out->credentials_source = zb_settings_origin(s,
                                                     ZB_SET_S3_ACCESS_KEY_ID);
    if ((v = zb_settings_get(s, ZB_SET_S3_MAX_ATTEMPTS)) != NULL)
        out->max_attempts = (unsigned)strtoul(v, NULL, 10);
    if ((v = zb_settings_get(s, ZB_SET_S3_MAX_RETRY_SECONDS)) != NULL)
        out->max_retry_seconds = (unsigned)strtoul(v, NULL, 10);
    if ((v = zb_settings_get(s, ZB_SET_S3_TIMEOUT_SECONDS)) != NULL)
        out->timeout_seconds = (unsigned)strtoul(v, NULL, 10);
    if ((v = zb_settings_get(s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES)) != NULL)
        out->multipart_threshold = strtoull(v, NULL, 10);
    zb_catalog_s3_budget_hooks(out);
    if (zb_settings_given(s, ZB_SET_S3_ENDPOINT))
        pinned |= ZB_S3_PIN_ENDPOINT;
    if (zb_settings_given(s, ZB_SET_S3_REGION))
        pinned |= ZB_S3_PIN_REGION;
    if (zb_settings_given(s, ZB_SET_S3_PATH_STYLE_ACCESS))
        pinned |= ZB_S3_PIN_PATH_STYLE;
    /* Credentials are never pinned: a table's own, vended by its REST
     * catalog for its location, come first (issue 16's order); the keys
     * given here serve every other table. */
    return pinned;
}

int zb_verb_add_s3(zb_io *io, zb_ctx *ctx, const zb_settings *s,
                   unsigned *pinned)
{
    zb_s3_config cfg;
    unsigned p = zb_verb_s3_config(&cfg, s);

    if (pinned != NULL)
        *pinned = p;
    return zb_io_add_s3(io, ctx, &cfg);
}

int zb_verb_s3_describe(char *out, size_t size, zb_verb_env *env,
                        zb_ctx *ctx, const char *uri)
{
    const zb_settings *s = env->settings;
    const char *ep = zb_settings_get(s, ZB_SET_S3_ENDPOINT);
    const char *region = zb_settings_get(s, ZB_SET_S3_REGION);
    int ps = zb_settings_s3_path_style(s);
    char creds[512];
    int rc;

    if (uri == NULL || !zb_io_is_object_store(uri))
        return ZB_ENOTFOUND;
    rc = zb_io_s3_describe_credentials(creds, sizeof creds, env->io, ctx,
                                       uri);
    if (rc < 0)
        snprintf(creds, sizeof creds, "none found (%.400s)",
                 ctx->err.msg[0] ? ctx->err.msg : zb_rc_name(rc));
    snprintf(out, size, "endpoint %s (%s), region %s (%s), %s addressing "
             "(%s), credentials from %.500s",
             ep ? ep : "AWS", ep ? zb_settings_origin(s, ZB_SET_S3_ENDPOINT)
                                 : "default",
             region ? region : "us-east-1",
             zb_settings_origin(s, ZB_SET_S3_REGION),
             ps == 1 ? "path-style" : ps == 0 ? "virtual-hosted" : "auto",
             ps < 0 ? "default: path style for an IP or localhost endpoint"
                    : zb_settings_origin(s, ZB_SET_S3_PATH_STYLE_ACCESS),
             creds);
    return rc < 0 ? rc : ZB_OK;
}

void zb_verb_print_s3(FILE *out, zb_verb_env *env, zb_ctx *ctx,
                      const char *uri, const char *prefix)
{
    char line[2048];
    int rc = zb_verb_s3_describe(line, sizeof line, env, ctx, uri);

    if (rc != ZB_ENOTFOUND)
        fprintf(out, "%sstorage %.200s: %s\n", prefix, uri, line);
    zb_err_clear(&ctx->err);
}

/*
 * tests/unit/io/test_s3_creds_main.c - the credentials chain of
 * src/io/s3/s3_creds*.c: the sources in order (chain), the reply and
 * profile parsers (parse), the endpoints against
 * tests/s3/cred_endpoints.mjs (remote), and static keys with a refresh
 * callback (refresh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "zbtest.h"
#include "test_s3_creds_util.h"

extern const zbt_case test_s3_creds_chain[];
extern const zbt_case test_s3_creds_parse[];
extern const zbt_case test_s3_creds_remote[];
extern const zbt_case test_s3_creds_refresh[];

static const char *const chain_vars[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
    "AWS_ENDPOINT_URL_STS", "AWS_REGION", "AWS_DEFAULT_REGION",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_EC2_METADATA_DISABLED",
    NULL
};

const char *creds_env_reset(void)
{
    const char *dir = zbt_tmpdir();

    for (size_t i = 0; chain_vars[i] != NULL; i++)
        unsetenv(chain_vars[i]);
    setenv("HOME", dir, 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    return dir;
}

const char *creds_write(const char *dir, const char *name, const char *text)
{
    static char path[4096];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    zbt_write_file(path, text, strlen(text));
    return path;
}

int creds_resolve(zb_s3_creds *out, zb_ctx *ctx)
{
    zb_s3_config cfg = { 0 };
    zb_s3_creds_provider *p = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = zb_s3_creds_provider_new(&p, ctx, &cfg)) != 0)
        return rc;
    rc = zb_s3_creds_current(out, p, ctx);
    zb_s3_creds_provider_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = {
        test_s3_creds_chain, test_s3_creds_parse, test_s3_creds_remote,
        test_s3_creds_refresh, NULL
    };
    return zbt_main(argc, argv, suites);
}

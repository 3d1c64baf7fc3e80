/*
 * libFuzzer target: zb_profile_parse (cli/config/profile.c, libyaml) on arbitrary
 * bytes. The parser must return ZB_OK, or ZB_EUSAGE / ZB_ENOMEM with a
 * one-line message that names the file, never crash or leak. On ZB_OK
 * every key is read back, so ASan checks the arena copies, and the
 * operations are checked against the six names.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/config/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static const char *const keys[] = {
    "uri", "warehouse", "engine", "root", "trino.host", "trino.port",
    "trino.user", "trino.catalog", "trino.version", "spark.remote",
    "spark.master", "spark.catalog"
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_profile *p = NULL;
    zb_ctx ctx;
    size_t n, i, j;
    int rc;

    zb_ctx_init(&ctx);
    rc = zb_profile_parse(&p, &ctx, "fuzz.yml", (const char *)data, size);
    if (rc != ZB_OK) {
        if (p != NULL || (rc != ZB_EUSAGE && rc != ZB_ENOMEM) ||
            strncmp(ctx.err.msg, "fuzz.yml", 8) != 0 ||
            strchr(ctx.err.msg, '\n') != NULL)
            abort();
        return 0;
    }
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *v = zb_profile_get(p, keys[i], NULL);
        if (v != NULL)
            sink += strlen(v);
    }
    const char *const *ops = zb_profile_operations(p, &n, NULL);
    for (i = 0; ops != NULL && i < n; i++) {
        for (j = 0; j < 6; j++)
            if (strcmp(ops[i], zb_profile_operation_names[j]) == 0)
                break;
        if (j == 6)
            abort();
    }
    const char *const *tables = zb_profile_tables(p, &n, NULL);
    for (i = 0; tables != NULL && i < n; i++)
        sink += strlen(tables[i]);
    zb_profile_free(p);
    return 0;
}

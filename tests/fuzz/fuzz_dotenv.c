/*
 * libFuzzer target: zb_dotenv_parse (cli/config/dotenv.c) on arbitrary bytes.
 * It must return ZB_OK, or ZB_EUSAGE / ZB_ENOMEM with a one-line message
 * naming the file, never crash. On ZB_OK every loaded key starts with
 * ZAMBONI_, is a valid name, and zb_dotenv_get finds a value for it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/config/dotenv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_dotenv *d = NULL;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = zb_dotenv_parse(&d, &ctx, "fuzz.env", (const char *)data, size);
    if (rc != ZB_OK) {
        if (d != NULL || (rc != ZB_EUSAGE && rc != ZB_ENOMEM) ||
            strncmp(ctx.err.msg, "fuzz.env", 8) != 0 ||
            strchr(ctx.err.msg, '\n') != NULL)
            abort();
        return 0;
    }
    for (size_t i = 0; i < zb_dotenv_count(d); i++) {
        const char *k = zb_dotenv_key(d, i);
        if (strncmp(k, "ZAMBONI_", 8) != 0 || strlen(k) <= 8 ||
            strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789_") != strlen(k) ||
            zb_dotenv_get(d, k) == NULL || zb_dotenv_line(d, k) == 0)
            abort();
        sink += strlen(zb_dotenv_value(d, i));
    }
    zb_dotenv_free(d);
    return 0;
}

/*
 * libFuzzer target: the credential endpoints' replies
 * (src/io/s3/s3_creds_parse.c) on arbitrary bytes: STS's XML, and the
 * container / IMDS JSON with and without the Code IMDS needs. Each returns
 * ZB_OK with both keys set, or ZB_ECORRUPT /
 * ZB_EUSAGE (an STS error Code) with a one-line message naming the
 * endpoint and the output wiped; never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "io/s3/s3_creds_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int rc, const zb_ctx *ctx, const zb_s3_creds *c)
{
    if (rc == ZB_OK) {
        if (c->access_key_id[0] == '\0' || c->secret_access_key[0] == '\0')
            abort();
        return;
    }
    if (rc == ZB_ENOMEM)
        return;
    if ((rc != ZB_ECORRUPT && rc != ZB_EUSAGE) ||
        strncmp(ctx->err.msg, "ep", 2) != 0 ||
        strchr(ctx->err.msg, '\n') != NULL || c->access_key_id[0] != '\0' ||
        c->secret_access_key[0] != '\0' || c->session_token[0] != '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_s3_creds c;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    check(zb_s3_creds__parse_sts(&c, &ctx, "ep", (const char *)data, size),
          &ctx, &c);
    zb_ctx_init(&ctx);
    check(zb_s3_creds__parse_json(&c, &ctx, "ep", (const char *)data, size,
                                  0), &ctx, &c);
    zb_ctx_init(&ctx);
    check(zb_s3_creds__parse_json(&c, &ctx, "ep", (const char *)data, size,
                                  1), &ctx, &c);
    return 0;
}

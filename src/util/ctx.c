/*
 * util/ctx.c - initialising a zb_ctx and reading its stop flag.
 */
#include <string.h>

#include "zamboni/zamboni.h"

void zb_ctx_init(zb_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->version = ZB_CTX_VERSION;
}

int zb_ctx_stopped(const zb_ctx *ctx)
{
    return ctx && ctx->stop && atomic_load(ctx->stop) != 0;
}

const char *zb_version(void)
{
    return ZB_VERSION_STRING;
}

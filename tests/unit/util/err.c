#define ZB_MODULE "testmod"
#include <string.h>

#include "util/err.h"
#include "zbtest.h"

static int failing_leaf(zb_ctx *ctx)
{
    return zb_fail(ctx, ZB_ENOTFOUND, "no file %s\nsecond line", "/x/y");
}

static void test_util_err__set_records_code_module_message(void)
{
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(failing_leaf(&ctx), ZB_ENOTFOUND);
    ZBT_EQ_INT(ctx.err.code, ZB_ENOTFOUND);
    ZBT_EQ_STR(ctx.err.module, "testmod");
    /* One line: the newline is folded. */
    ZBT_EQ_STR(ctx.err.msg, "no file /x/y second line");
}

static void test_util_err__prefix_adds_context_keeps_lower_message(void)
{
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    failing_leaf(&ctx);
    ZBT_EQ_INT(zb_err_prefix(&ctx, "table %s", "db.t"), ZB_ENOTFOUND);
    ZBT_EQ_STR(ctx.err.msg, "table db.t: no file /x/y second line");
    ZBT_EQ_STR(ctx.err.module, "testmod");
}

static void test_util_err__long_message_is_truncated_not_overflowed(void)
{
    char big[ZB_ERR_MSG_SIZE * 2];
    zb_ctx ctx;

    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    zb_ctx_init(&ctx);
    zb_fail(&ctx, ZB_EIO, "%s", big);
    ZBT_EQ_U64(strlen(ctx.err.msg), ZB_ERR_MSG_SIZE - 1);
    zb_err_prefix(&ctx, "%s", big);
    ZBT_EQ_U64(strlen(ctx.err.msg), ZB_ERR_MSG_SIZE - 1);
}

/* A long context (paths) is cut short so that the reason stays whole. */
static void test_util_err__long_prefix_keeps_the_reason(void)
{
    char path[ZB_ERR_MSG_SIZE];
    zb_ctx ctx;
    size_t len;

    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    zb_ctx_init(&ctx);
    zb_fail(&ctx, ZB_ENOTFOUND, "open %.300s: No such file or directory",
            path);
    zb_err_prefix(&ctx, "%.900s", path);
    len = strlen(ctx.err.msg);
    ZBT_EQ_U64(len, ZB_ERR_MSG_SIZE - 1);
    ZBT_CONTAINS(ctx.err.msg, "...: open ppp");
    ZBT_CHECK(len > 25 && strcmp(ctx.err.msg + len - 25,
                                "No such file or directory") == 0);
}

static void test_util_err__oom_and_clear(void)
{
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_fail_oom(&ctx), ZB_ENOMEM);
    ZBT_EQ_STR(ctx.err.msg, "out of memory");
    zb_err_clear(&ctx.err);
    ZBT_EQ_INT(ctx.err.code, ZB_OK);
    ZBT_EQ_STR(ctx.err.msg, "");
}

static void test_util_err__rc_names(void)
{
    ZBT_EQ_STR(zb_rc_name(ZB_OK), "ZB_OK");
    ZBT_EQ_STR(zb_rc_name(ZB_EUNSAFE), "ZB_EUNSAFE");
    ZBT_EQ_STR(zb_rc_name(ZB_EUNSUPPORTED), "ZB_EUNSUPPORTED");
    ZBT_EQ_STR(zb_rc_name(-999), "ZB_UNKNOWN");
}

static void test_util_err__ctx_stop_flag(void)
{
    atomic_int stop = 0;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_ctx_stopped(&ctx), 0);
    ctx.stop = &stop;
    ZBT_EQ_INT(zb_ctx_stopped(&ctx), 0);
    atomic_store(&stop, 1);
    ZBT_EQ_INT(zb_ctx_stopped(&ctx), 1);
}

const zbt_case test_util_err[] = {
    ZBT_CASE(test_util_err__set_records_code_module_message),
    ZBT_CASE(test_util_err__prefix_adds_context_keeps_lower_message),
    ZBT_CASE(test_util_err__long_message_is_truncated_not_overflowed),
    ZBT_CASE(test_util_err__long_prefix_keeps_the_reason),
    ZBT_CASE(test_util_err__oom_and_clear),
    ZBT_CASE(test_util_err__rc_names),
    ZBT_CASE(test_util_err__ctx_stop_flag),
    ZBT_END
};

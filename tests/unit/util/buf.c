#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/vec.h"
#include "zbtest.h"

static void test_util_buf__append_and_format(void)
{
    zb_buf b = ZB_BUF_INIT(1024);
    char *s;

    ZBT_EQ_STR(zb_buf_cstr(&b), "");
    ZBT_EQ_INT(zb_buf_puts(&b, "abc"), ZB_OK);
    ZBT_EQ_INT(zb_buf_putc(&b, '/'), ZB_OK);
    ZBT_EQ_INT(zb_buf_appendf(&b, "%d-%s", 42, "x"), ZB_OK);
    ZBT_EQ_STR(zb_buf_cstr(&b), "abc/42-x");
    ZBT_EQ_U64(b.len, 8);
    zb_buf_truncate(&b, 3);
    ZBT_EQ_STR(zb_buf_cstr(&b), "abc");
    s = zb_buf_detach(&b);
    ZBT_EQ_STR(s, "abc");
    ZBT_CHECK(b.ptr == NULL && b.len == 0);
    zb_free(s);
}

static void test_util_buf__cap_is_enforced_and_buffer_kept(void)
{
    zb_buf b = ZB_BUF_INIT(10);

    ZBT_EQ_INT(zb_buf_puts(&b, "0123456789"), ZB_OK);
    ZBT_EQ_INT(zb_buf_putc(&b, 'x'), ZB_ENOMEM);
    ZBT_EQ_INT(zb_buf_appendf(&b, "%s", "y"), ZB_ENOMEM);
    ZBT_EQ_STR(zb_buf_cstr(&b), "0123456789");
    ZBT_CHECK(b.cap <= 11);
    zb_buf_free(&b);
}

static void test_util_buf__grows_through_many_appends(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 20);
    size_t i;

    for (i = 0; i < 100000; i++)
        ZBT_EQ_INT(zb_buf_putc(&b, (char)('a' + i % 26)), ZB_OK);
    ZBT_EQ_U64(b.len, 100000);
    ZBT_EQ_INT(b.ptr[99999], 'a' + 99999 % 26);
    ZBT_EQ_INT(b.ptr[100000], '\0');
    zb_buf_free(&b);
}

static void test_util_buf__failed_allocation_leaves_buffer_intact(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 20);
    char big[200];

    memset(big, 'z', sizeof big);
    ZBT_EQ_INT(zb_buf_puts(&b, "keep"), ZB_OK);
    zb_alloc__fail_at(1, 0);
    ZBT_EQ_INT(zb_buf_append(&b, big, sizeof big), ZB_ENOMEM);
    zb_alloc__fail_at(0, 0);
    ZBT_EQ_STR(zb_buf_cstr(&b), "keep");
    zb_buf_free(&b);
}

/* A cap of SIZE_MAX means "no cap": growth must not wrap to 0 bytes. */
static void test_util_buf__unbounded_cap_grows(void)
{
    zb_buf b = ZB_BUF_INIT(SIZE_MAX);
    int i;

    for (i = 0; i < 1000; i++)
        ZBT_EQ_INT(zb_buf_appendf(&b, "%04d", i), ZB_OK);
    ZBT_EQ_INT((int)b.len, 4000);
    ZBT_CHECK(b.cap > b.len);
    ZBT_CHECK(memcmp(b.ptr + 3996, "0999", 4) == 0);
    ZBT_EQ_INT(zb_buf_reserve(&b, SIZE_MAX - b.len), ZB_ENOMEM);
    zb_buf_free(&b);
}

static void test_util_buf__vec_push_and_cap(void)
{
    zb_vec v;
    size_t i;

    zb_vec_init(&v, sizeof(uint64_t), 100);
    for (i = 0; i < 100; i++) {
        uint64_t x = i * 3;
        ZBT_EQ_INT(zb_vec_append(&v, &x), ZB_OK);
    }
    {
        uint64_t x = 1;
        ZBT_EQ_INT(zb_vec_append(&v, &x), ZB_ENOMEM);
    }
    ZBT_EQ_U64(v.len, 100);
    ZBT_EQ_U64(*(uint64_t *)zb_vec_at(&v, 99), 297);
    zb_vec_free(&v);
}

/* A whole file into a buffer, its mode from the descriptor read; past
 * the cap, missing, or (when asked) not a regular file: refused. */
static void test_util_buf__read_file_capped(void)
{
    zb_buf b = ZB_BUF_INIT(1 << 20);
    char path[1024];
    unsigned mode = 0;
    zb_ctx ctx;
    FILE *f;

    zb_ctx_init(&ctx);
    snprintf(path, sizeof path, "%s/capped.txt", zbt_tmpdir());
    ZBT_CHECK((f = fopen(path, "w")) != NULL);
    fputs("KEY=value\n", f);
    fclose(f);
    ZBT_EQ_INT(chmod(path, 0640), 0);
    ZBT_OK_CTX(zb_file_read_capped(&b, &mode, &ctx, path, 10,
                                   ZB_FILE_REGULAR), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), "KEY=value\n");
    ZBT_EQ_INT(mode & 0777, 0640);
    ZBT_CHECK(S_ISREG(mode));
    ZBT_RC(zb_file_read_capped(&b, NULL, &ctx, path, 9, 0), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "larger than 9 bytes");
    ZBT_CONTAINS(ctx.err.msg, "capped.txt");
    zb_err_clear(&ctx.err);
    ZBT_RC(zb_file_read_capped(&b, NULL, &ctx, zbt_tmpdir(), 100,
                               ZB_FILE_REGULAR), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "is not a regular file");
    zb_err_clear(&ctx.err);
    snprintf(path, sizeof path, "%s/no-such-file", zbt_tmpdir());
    ZBT_RC(zb_file_read_capped(&b, NULL, &ctx, path, 100, 0), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "no such file");
    zb_buf_free(&b);
}

const zbt_case test_util_buf[] = {
    ZBT_CASE(test_util_buf__append_and_format),
    ZBT_CASE(test_util_buf__cap_is_enforced_and_buffer_kept),
    ZBT_CASE(test_util_buf__grows_through_many_appends),
    ZBT_CASE(test_util_buf__failed_allocation_leaves_buffer_intact),
    ZBT_CASE(test_util_buf__unbounded_cap_grows),
    ZBT_CASE(test_util_buf__vec_push_and_cap),
    ZBT_CASE(test_util_buf__read_file_capped),
    ZBT_END
};

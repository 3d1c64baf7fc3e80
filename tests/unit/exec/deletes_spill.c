/*
 * Spill files (src/exec/spill.c): written and read back in pieces of
 * every size around the buffer, read twice, read at offsets; no name left
 * in TMPDIR; the process-wide disk limit refused with its number and
 * given back on close; a missing TMPDIR named; allocation failures.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "deletes_test.h"
#include "exec/spill.h"
#include "util/alloc.h"

/* Entries in dir other than . and .. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ZBT_CHECK(d != NULL);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_exec_spill__write_read(void)
{
    const char *dir = zbt_spill_tmpdir();
    static const size_t sizes[] = { 1, 7, 511, 512, 513, 1000, 5000, 100000 };
    uint8_t *data, *back;
    size_t total = 0, i, got, k;
    zb_spill *s = NULL;
    zb_ctx ctx;
    uint64_t seed = 3, used0 = zb_spill_used_bytes();
    int pass;

    zb_ctx_init(&ctx);
    ZBT_EQ_STR(zb_spill_dir(), dir);
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        total += sizes[i] * 3;
    data = malloc(total);
    back = malloc(total);
    ZBT_CHECK(data && back);
    for (i = 0; i < total; i++)
        data[i] = (uint8_t)zbt_rand(&seed);
    ZBT_OK_CTX(zb_spill_open(&s, &ctx, "test", 512), &ctx);
    /* Unlinked at once: the folder stays empty. */
    ZBT_EQ_INT(dir_entries(dir), 0);
    for (k = 0, pass = 0; pass < 3; pass++)
        for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            ZBT_OK_CTX(zb_spill_write(s, &ctx, data + k, sizes[i]), &ctx);
            k += sizes[i];
        }
    ZBT_EQ_U64(zb_spill_size(s), total);
    /* Read it twice, in pieces of other sizes, then at offsets. */
    for (pass = 0; pass < 2; pass++) {
        ZBT_OK_CTX(zb_spill_rewind(s, &ctx), &ctx);
        ZBT_EQ_U64(zb_spill_used_bytes() - used0, total);
        for (k = 0, i = 0; k < total; k += got, i++) {
            size_t want = sizes[(i + 3 + (size_t)pass) %
                                (sizeof sizes / sizeof sizes[0])];
            ZBT_OK_CTX(zb_spill_read(s, &ctx, back + k, want, &got), &ctx);
            ZBT_CHECK(got > 0);
            ZBT_CHECK(got == want || k + got == total);
        }
        ZBT_CHECK(memcmp(back, data, total) == 0);
        ZBT_OK_CTX(zb_spill_read(s, &ctx, back, 10, &got), &ctx);
        ZBT_EQ_U64(got, 0);
    }
    ZBT_RC(zb_spill_read_full(s, &ctx, back, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "test: spill file ends 1 bytes short");
    ZBT_OK_CTX(zb_spill_pread(s, &ctx, back, 100, 12345), &ctx);
    ZBT_CHECK(memcmp(back, data + 12345, 100) == 0);
    ZBT_RC(zb_spill_pread(s, &ctx, back, 100, total - 99), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "passes the spill file's end");
    zb_spill_close(s);
    ZBT_EQ_U64(zb_spill_used_bytes(), used0);
    ZBT_EQ_INT(dir_entries(dir), 0);
    free(data);
    free(back);
}

/* Dropping the buffer while writing and while reading loses nothing. */
static void test_exec_spill__drop_buffer(void)
{
    uint8_t data[3000], back[3000];
    zb_spill *s = NULL;
    zb_ctx ctx;
    size_t i;

    zbt_spill_tmpdir();
    zb_ctx_init(&ctx);
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7);
    ZBT_OK_CTX(zb_spill_open(&s, &ctx, "t", 1024), &ctx);
    ZBT_OK_CTX(zb_spill_write(s, &ctx, data, 100), &ctx);
    ZBT_OK_CTX(zb_spill_drop_buffer(s, &ctx), &ctx);
    ZBT_EQ_U64(zb_spill_used_bytes(), 100);
    ZBT_OK_CTX(zb_spill_write(s, &ctx, data + 100, 2900), &ctx);
    ZBT_OK_CTX(zb_spill_rewind(s, &ctx), &ctx);
    ZBT_OK_CTX(zb_spill_read_full(s, &ctx, back, 10), &ctx);
    /* The rest of the read-ahead is read again after the drop. */
    ZBT_OK_CTX(zb_spill_drop_buffer(s, &ctx), &ctx);
    ZBT_OK_CTX(zb_spill_read_full(s, &ctx, back + 10, 2990), &ctx);
    ZBT_CHECK(memcmp(back, data, sizeof data) == 0);
    /* A failed re-allocation is ZB_ENOMEM, and the next read works. */
    ZBT_OK_CTX(zb_spill_rewind(s, &ctx), &ctx);
    ZBT_OK_CTX(zb_spill_drop_buffer(s, &ctx), &ctx);
    zb_alloc__fail_at(1, 0);
    ZBT_RC(zb_spill_read_full(s, &ctx, back, 10), ZB_ENOMEM);
    zb_alloc__fail_at(0, 0);
    ZBT_OK_CTX(zb_spill_read_full(s, &ctx, back, 3000), &ctx);
    ZBT_CHECK(memcmp(back, data, sizeof data) == 0);
    zb_spill_close(s);
    ZBT_EQ_U64(zb_spill_used_bytes(), 0);
}

static void test_exec_spill__limit(void)
{
    zb_spill *a = NULL, *b = NULL;
    uint8_t block[4096];
    zb_ctx ctx;
    int i, rc = ZB_OK;

    zbt_spill_tmpdir();
    zb_ctx_init(&ctx);
    memset(block, 0xAB, sizeof block);
    ZBT_EQ_U64(zb_spill_used_bytes(), 0);
    zb_spill_set_limit(10000);
    ZBT_EQ_U64(zb_spill_limit(), 10000);
    ZBT_OK_CTX(zb_spill_open(&a, &ctx, "sort", 1024), &ctx);
    ZBT_OK_CTX(zb_spill_open(&b, &ctx, "key set", 1024), &ctx);
    /* The limit counts both files. */
    ZBT_OK_CTX(zb_spill_write(a, &ctx, block, 4096), &ctx);
    ZBT_OK_CTX(zb_spill_write(b, &ctx, block, 4096), &ctx);
    ZBT_EQ_U64(zb_spill_used_bytes(), 8192);
    /* Buffered writes count when flushed: the second flush of 1000. */
    for (i = 0; i < 30 && (rc = zb_spill_write(a, &ctx, block, 100)) == ZB_OK;
         i++)
        ;
    ZBT_RC(rc, ZB_ENOMEM);
    ZBT_EQ_INT(i, 20);
    ZBT_CONTAINS(ctx.err.msg, "sort: spill-disk limit of 10000 bytes reached");
    ZBT_CHECK(zb_spill_used_bytes() <= 10000);
    /* Closing gives the bytes back; b may write again. */
    zb_spill_close(a);
    ZBT_EQ_U64(zb_spill_used_bytes(), 4096);
    ZBT_OK_CTX(zb_spill_write(b, &ctx, block, 4096), &ctx);
    ZBT_OK_CTX(zb_spill_rewind(b, &ctx), &ctx);
    ZBT_EQ_U64(zb_spill_used_bytes(), 8192);
    zb_spill_close(b);
    ZBT_EQ_U64(zb_spill_used_bytes(), 0);
    zb_spill_set_limit(0);
}

/*
 * A length patched in after the data it counts, in the file and in the
 * buffer; a range read for the last time punched out: its bytes leave
 * the process's count, read back as zeros, and the rest stays.
 */
static void test_exec_spill__patch_discard(void)
{
    static uint8_t block[3][4096], back[4096 * 3 + 100], tail[100];
    uint8_t mark[8];
    uint64_t used0 = zb_spill_used_bytes();
    zb_spill *s = NULL;
    zb_ctx ctx;
    size_t i;

    zbt_spill_tmpdir();
    zb_ctx_init(&ctx);
    for (i = 0; i < 3; i++)
        memset(block[i], 0x11 * (int)(i + 1), sizeof block[i]);
    memset(tail, 0x44, sizeof tail);
    memset(mark, 0xEE, sizeof mark);
    ZBT_OK_CTX(zb_spill_open(&s, &ctx, "sort", 1024), &ctx);
    for (i = 0; i < 3; i++)
        ZBT_OK_CTX(zb_spill_write(s, &ctx, block[i], 4096), &ctx);
    ZBT_OK_CTX(zb_spill_write(s, &ctx, tail, sizeof tail), &ctx);
    ZBT_EQ_U64(zb_spill_used_bytes(), used0 + 3 * 4096);   /* tail buffered */
    ZBT_OK_CTX(zb_spill_patch(s, &ctx, 10, mark, 8), &ctx);        /* file */
    ZBT_OK_CTX(zb_spill_patch(s, &ctx, 3 * 4096 - 4, mark, 8), &ctx); /* both */
    ZBT_OK_CTX(zb_spill_patch(s, &ctx, 3 * 4096 + 92, mark, 8), &ctx); /* buf */
    ZBT_RC(zb_spill_patch(s, &ctx, 3 * 4096 + 93, mark, 8), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "passes the spill file's end");
    ZBT_OK_CTX(zb_spill_rewind(s, &ctx), &ctx);
    ZBT_OK_CTX(zb_spill_read_full(s, &ctx, back, sizeof back), &ctx);
    for (i = 0; i < sizeof back; i++) {
        int patched = (i >= 10 && i < 18) ||
                      (i >= 3 * 4096 - 4 && i < 3 * 4096 + 4) ||
                      i >= 3 * 4096 + 92;
        uint8_t want = patched ? 0xEE
                       : i < 3 * 4096 ? (uint8_t)(0x11 * (i / 4096 + 1))
                       : 0x44;
        if (back[i] != want)
            zbt__fail(__FILE__, __LINE__, "byte %zu is %#x, want %#x", i,
                      back[i], want);
    }
    zb_spill_discard(s, 4096, 4096);
    ZBT_EQ_U64(zb_spill_used_bytes(), used0 + 2 * 4096 + 100);
    ZBT_EQ_U64(zb_spill_size(s), 3 * 4096 + 100);
    ZBT_OK_CTX(zb_spill_pread(s, &ctx, back, 4096 * 3, 0), &ctx);
    for (i = 0; i < 4096; i++)
        ZBT_CHECK(back[4096 + i] == 0 &&
                  (i >= 4092 || back[2 * 4096 + i] == 0x33));
    ZBT_CHECK(back[0] == 0x11 && back[4095] == 0x11);
    zb_spill_discard(s, 3 * 4096, 200);     /* past the end: ignored */
    ZBT_EQ_U64(zb_spill_used_bytes(), used0 + 2 * 4096 + 100);
    zb_spill_close(s);
    ZBT_EQ_U64(zb_spill_used_bytes(), used0);
}

/*
 * Forced on and off; on its own, compression waits until the disk is
 * short: a few bytes with gigabytes free are not packed, more bytes than
 * any disk holds are.
 */
static void test_exec_spill__pack_rule(void)
{
    zbt_spill_tmpdir();
    zb_spill_set_pack(ZB_SPILL_PACK_ALWAYS);
    ZBT_EQ_INT(zb_spill_should_pack(1), 1);
    zb_spill_set_pack(ZB_SPILL_PACK_NEVER);
    ZBT_EQ_INT(zb_spill_should_pack(UINT64_MAX / 4), 0);
    zb_spill_set_pack(ZB_SPILL_PACK_AUTO);
    ZBT_EQ_INT(zb_spill_pack_mode(), ZB_SPILL_PACK_AUTO);
    ZBT_EQ_INT(zb_spill_should_pack(4096), 0);
    ZBT_EQ_INT(zb_spill_should_pack(UINT64_MAX / 4), 1);
}

static void test_exec_spill__bad_tmpdir(void)
{
    zb_spill *s = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    setenv("TMPDIR", "/nonexistent/zamboni-spill-test", 1);
    ZBT_RC(zb_spill_open(&s, &ctx, "key set", 0), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg,
                 "key set: cannot create a spill file in "
                 "/nonexistent/zamboni-spill-test");
    ZBT_CHECK(s == NULL);
    unsetenv("TMPDIR");
    ZBT_EQ_STR(zb_spill_dir(), "/tmp");
    setenv("TMPDIR", "", 1);
    ZBT_EQ_STR(zb_spill_dir(), "/tmp");
    unsetenv("TMPDIR");
}

static void test_exec_spill__alloc_failures(void)
{
    uint64_t n, base = zb_alloc_live_bytes();
    int done = 0;

    zbt_spill_tmpdir();
    for (n = 1; !done && n < 100; n++) {
        zb_spill *s = NULL;
        zb_ctx ctx;
        int rc;
        zb_ctx_init(&ctx);
        zb_alloc__fail_at(n, 1);
        rc = zb_spill_open(&s, &ctx, "t", 0);
        done = zb_alloc__fail_at(0, 0) == 0;
        if (!done) {
            ZBT_RC(rc, ZB_ENOMEM);
            ZBT_CHECK(s == NULL);
        } else {
            ZBT_OK(rc);
        }
        zb_spill_close(s);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
}

const zbt_case test_exec_deletes_spill[] = {
    ZBT_CASE(test_exec_spill__write_read),
    ZBT_CASE(test_exec_spill__drop_buffer),
    ZBT_CASE(test_exec_spill__limit),
    ZBT_CASE(test_exec_spill__patch_discard),
    ZBT_CASE(test_exec_spill__pack_rule),
    ZBT_CASE(test_exec_spill__bad_tmpdir),
    ZBT_CASE(test_exec_spill__alloc_failures),
    ZBT_END
};

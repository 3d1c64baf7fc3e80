#include <string.h>

#include "util/alloc.h"
#include "zbtest.h"

static void test_util_alloc__counts_live_bytes(void)
{
    uint64_t base = zb_alloc_live_bytes();
    char *a = zb_malloc(100), *b;

    ZBT_CHECK(a != NULL);
    ZBT_EQ_U64(zb_alloc_live_bytes(), base + 100);
    b = zb_realloc(a, 1000);
    ZBT_CHECK(b != NULL);
    ZBT_EQ_U64(zb_alloc_live_bytes(), base + 1000);
    zb_free(b);
    zb_free(NULL);
    ZBT_EQ_U64(zb_alloc_live_bytes(), base);
}

static void test_util_alloc__fault_hook_fails_nth_once(void)
{
    void *p1, *p2, *p3;

    zb_alloc__fail_at(2, 0);
    p1 = zb_malloc(8);
    p2 = zb_malloc(8);
    p3 = zb_malloc(8);
    ZBT_EQ_U64(zb_alloc__fail_at(0, 0), 1);
    ZBT_CHECK(p1 != NULL);
    ZBT_CHECK(p2 == NULL);
    ZBT_CHECK(p3 != NULL);
    zb_free(p1);
    zb_free(p3);
}

static void test_util_alloc__fault_hook_persistent(void)
{
    void *p1, *p2;

    zb_alloc__fail_at(1, 1);
    p1 = zb_malloc(8);
    p2 = zb_strdup("x");
    ZBT_EQ_U64(zb_alloc__fail_at(0, 0), 2);
    ZBT_CHECK(p1 == NULL && p2 == NULL);
}

static void test_util_alloc__overflow_checked(void)
{
    size_t out = 7;

    ZBT_CHECK(zb_calloc(SIZE_MAX / 2, 4) == NULL);
    ZBT_CHECK(zb_malloc(SIZE_MAX - 4) == NULL);
    ZBT_EQ_INT(zb_mul_overflow(&out, SIZE_MAX, 2), 1);
    ZBT_EQ_U64(out, 7);
    ZBT_EQ_INT(zb_add_overflow(&out, SIZE_MAX, 1), 1);
    ZBT_EQ_INT(zb_add_overflow(&out, 3, 4), 0);
    ZBT_EQ_U64(out, 7);
}

static void test_util_alloc__strndup(void)
{
    char *s = zb_strndup("abcdef", 3);

    ZBT_EQ_STR(s, "abc");
    zb_free(s);
}

const zbt_case test_util_alloc[] = {
    ZBT_CASE(test_util_alloc__counts_live_bytes),
    ZBT_CASE(test_util_alloc__fault_hook_fails_nth_once),
    ZBT_CASE(test_util_alloc__fault_hook_persistent),
    ZBT_CASE(test_util_alloc__overflow_checked),
    ZBT_CASE(test_util_alloc__strndup),
    ZBT_END
};

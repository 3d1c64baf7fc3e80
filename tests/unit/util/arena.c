#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "zbtest.h"

static void test_util_arena__allocations_are_aligned_and_distinct(void)
{
    zb_arena *a = NULL;
    char *prev = NULL;
    int i;

    ZBT_EQ_INT(zb_arena_new(&a, 1 << 24), ZB_OK);
    for (i = 0; i < 10000; i++) {
        char *p = zb_arena_alloc(a, (size_t)(i % 37) + 1);
        ZBT_CHECK(p != NULL);
        ZBT_EQ_U64((uintptr_t)p % 16, 0);
        ZBT_CHECK(p != prev);
        memset(p, 0xAB, (size_t)(i % 37) + 1);
        prev = p;
    }
    zb_arena_free(a);
}

static void test_util_arena__strings(void)
{
    zb_arena *a = NULL;

    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    ZBT_EQ_STR(zb_arena_strdup(a, "hello"), "hello");
    ZBT_EQ_STR(zb_arena_strndup(a, "hello", 2), "he");
    ZBT_EQ_STR(zb_arena_sprintf(a, "%s-%d", "v", 3), "v-3");
    zb_arena_free(a);
}

static void test_util_arena__large_allocation_gets_own_chunk(void)
{
    zb_arena *a = NULL;
    char *small1, *big, *small2;

    ZBT_EQ_INT(zb_arena_new(&a, 1 << 24), ZB_OK);
    small1 = zb_arena_alloc(a, 16);
    big = zb_arena_alloc(a, 1 << 20);
    small2 = zb_arena_alloc(a, 16);
    ZBT_CHECK(small1 && big && small2);
    /* The small ones share the first chunk. */
    ZBT_EQ_U64((size_t)(small2 - small1), 16);
    memset(big, 1, 1 << 20);
    zb_arena_free(a);
}

static void test_util_arena__cap_returns_null(void)
{
    zb_arena *a = NULL;

    ZBT_EQ_INT(zb_arena_new(&a, 100 * 1024), ZB_OK);
    ZBT_CHECK(zb_arena_alloc(a, 200 * 1024) == NULL);
    ZBT_CHECK(zb_arena_alloc(a, 1000) != NULL);
    ZBT_CHECK(zb_arena_held_bytes(a) <= 100 * 1024);
    zb_arena_free(a);
}

static void test_util_arena__reset_keeps_one_chunk(void)
{
    zb_arena *a = NULL;
    size_t first;
    int i;

    ZBT_EQ_INT(zb_arena_new(&a, 1 << 26), ZB_OK);
    ZBT_CHECK(zb_arena_alloc(a, 100) != NULL);
    first = zb_arena_held_bytes(a);
    for (i = 0; i < 100; i++)
        ZBT_CHECK(zb_arena_alloc(a, 10000) != NULL);
    ZBT_CHECK(zb_arena_held_bytes(a) > first);
    zb_arena_reset(a);
    ZBT_EQ_U64(zb_arena_held_bytes(a), first);
    ZBT_CHECK(zb_arena_alloc(a, 100) != NULL);
    zb_arena_free(a);
}

static void test_util_arena__frees_everything(void)
{
    uint64_t base = zb_alloc_live_bytes();
    zb_arena *a = NULL;
    int i;

    ZBT_EQ_INT(zb_arena_new(&a, 1 << 26), ZB_OK);
    for (i = 0; i < 1000; i++)
        ZBT_CHECK(zb_arena_alloc(a, (size_t)i * 7 + 1) != NULL);
    zb_arena_free(a);
    ZBT_EQ_U64(zb_alloc_live_bytes(), base);
}

const zbt_case test_util_arena[] = {
    ZBT_CASE(test_util_arena__allocations_are_aligned_and_distinct),
    ZBT_CASE(test_util_arena__strings),
    ZBT_CASE(test_util_arena__large_allocation_gets_own_chunk),
    ZBT_CASE(test_util_arena__cap_returns_null),
    ZBT_CASE(test_util_arena__reset_keeps_one_chunk),
    ZBT_CASE(test_util_arena__frees_everything),
    ZBT_END
};

#include <string.h>

#include "util/str.h"
#include "zbtest.h"

static void test_util_str__prefix_suffix(void)
{
    ZBT_CHECK(zb_str_starts_with("s3://b/k", "s3://"));
    ZBT_CHECK(!zb_str_starts_with("s3", "s3://"));
    ZBT_CHECK(zb_str_ends_with("a.parquet", ".parquet"));
    ZBT_CHECK(!zb_str_ends_with("parquet", "a.parquet"));
}

static void test_util_str__to_u64_is_strict(void)
{
    uint64_t v = 0;

    ZBT_EQ_INT(zb_str_to_u64(&v, "18446744073709551615"), ZB_OK);
    ZBT_EQ_U64(v, UINT64_MAX);
    ZBT_EQ_INT(zb_str_to_u64(&v, "18446744073709551616"), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_u64(&v, ""), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_u64(&v, "-1"), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_u64(&v, "12x"), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_u64(&v, " 1"), ZB_EINVAL);
}

static void test_util_str__to_bytes_units(void)
{
    uint64_t v = 0;

    ZBT_EQ_INT(zb_str_to_bytes(&v, "268435456"), ZB_OK);
    ZBT_EQ_U64(v, 268435456);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "3GiB"), ZB_OK);
    ZBT_EQ_U64(v, 3ULL << 30);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "512k"), ZB_OK);
    ZBT_EQ_U64(v, 512ULL << 10);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "128MB"), ZB_OK);
    ZBT_EQ_U64(v, 128ULL << 20);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "7B"), ZB_OK);
    ZBT_EQ_U64(v, 7);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "3 GiB"), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "GiB"), ZB_EINVAL);
    ZBT_EQ_INT(zb_str_to_bytes(&v, "99999999999T"), ZB_EINVAL);
}

static void test_util_str__format_bytes_like_the_python_tool(void)
{
    char s[32];

    zb_str_format_bytes(s, sizeof s, 512);
    ZBT_EQ_STR(s, "512B");
    zb_str_format_bytes(s, sizeof s, 7 * 1024);
    ZBT_EQ_STR(s, "7.0KiB");
    zb_str_format_bytes(s, sizeof s, 4402341478ULL);
    ZBT_EQ_STR(s, "4.1GiB");
    zb_str_format_bytes(s, sizeof s, 1023);
    ZBT_EQ_STR(s, "1023B");
}

static void test_util_str__json_escaping(void)
{
    zb_buf b = ZB_BUF_INIT(1024);

    ZBT_EQ_INT(zb_str_append_json(&b, "a\"b\\c\nd\x01"), ZB_OK);
    ZBT_EQ_STR(zb_buf_cstr(&b), "\"a\\\"b\\\\c\\nd\\u0001\"");
    zb_buf_free(&b);
}

static void test_util_str__utf8_and_hex(void)
{
    static const struct { const char *s; int ok; } c[] = {
        { "plain", 1 },       { "caf\xc3\xa9", 1 },
        { "\xe2\x82\xac", 1 }, { "\xf0\x9f\x98\x80", 1 },
        { "\xf4\x8f\xbf\xbf", 1 },            /* U+10FFFF */
        { "\xff", 0 },        { "\xc3", 0 },           /* cut short */
        { "\xc0\x80", 0 },    { "\xe0\x80\xaf", 0 },  /* overlong */
        { "\xed\xa0\x80", 0 },                     /* surrogate */
        { "\xf4\x90\x80\x80", 0 },                 /* past U+10FFFF */
        { "\xe2\x82", 0 },    { "\xe2\x28\xa1", 0 },
    };
    size_t i;

    for (i = 0; i < sizeof c / sizeof c[0]; i++)
        ZBT_EQ_INT(zb_str_utf8_valid(c[i].s, strlen(c[i].s)), c[i].ok);
    ZBT_EQ_INT(zb_str_hex_digit('0'), 0);
    ZBT_EQ_INT(zb_str_hex_digit('f'), 15);
    ZBT_EQ_INT(zb_str_hex_digit('A'), 10);
    ZBT_EQ_INT(zb_str_hex_digit('g'), -1);
    ZBT_EQ_INT(zb_str_hex_digit(0xff), -1);
}

const zbt_case test_util_str[] = {
    ZBT_CASE(test_util_str__prefix_suffix),
    ZBT_CASE(test_util_str__to_u64_is_strict),
    ZBT_CASE(test_util_str__to_bytes_units),
    ZBT_CASE(test_util_str__format_bytes_like_the_python_tool),
    ZBT_CASE(test_util_str__json_escaping),
    ZBT_CASE(test_util_str__utf8_and_hex),
    ZBT_END
};

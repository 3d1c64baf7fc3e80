/*
 * Iceberg values as text: the JSON single-value serialization of
 * format/spec.md Appendix D (every example of its table, both ways),
 * pre-epoch and extreme dates, malformed input, and the human strings
 * written in partition paths.
 */
#include <math.h>

#include "values_test.h"

static const char *json_of(const ice_value *v)
{
    static char out[512];
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_to_json(&b, &ctx, v), &ctx);
    snprintf(out, sizeof out, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
    return out;
}

static const char *human_of(const ice_value *v)
{
    static char out[512];
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_to_human(&b, &ctx, v), &ctx);
    snprintf(out, sizeof out, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
    return out;
}

/* Parses json as type, checks it equals want and writes back as `back`. */
static void json_both_ways(ice_prim type, const char *json,
                           const ice_value *want, const char *back)
{
    zb_arena *a = NULL;
    zb_ctx ctx;
    ice_value v;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    ZBT_OK_CTX(ice_value_from_json(&v, &ctx, a, &type, json, strlen(json)),
               &ctx);
    ZBT_EQ_INT(v.type, type.id);
    if (ice_value_cmp(&v, want) != 0)
        zbt__fail(__FILE__, __LINE__, "%s parsed to %s", json, json_of(&v));
    ZBT_EQ_STR(json_of(&v), back ? back : json);
    zb_arena_free(a);
}

static void test_table_values_json__spec_examples(void)
{
    static const uint8_t uuid[16] = { 0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c,
                                      0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34,
                                      0x9c, 0xb7, 0x85, 0xe7 };
    ice_prim fixed4 = { ICE_FIXED, 0, 0, 4 };
    ice_value v;

    v = ice_value_bool(1);
    json_both_ways(vt_prim(ICE_BOOLEAN), "true", &v, NULL);
    v = ice_value_int(34);
    json_both_ways(vt_prim(ICE_INT), "34", &v, NULL);
    v = ice_value_long(34);
    json_both_ways(vt_prim(ICE_LONG), "34", &v, NULL);
    v = ice_value_float(1.0f);
    json_both_ways(vt_prim(ICE_FLOAT), "1.0", &v, NULL);
    v = ice_value_double(1.0);
    json_both_ways(vt_prim(ICE_DOUBLE), "1.0", &v, NULL);
    v = ice_value_decimal64(1420, 2);
    json_both_ways(vt_dec(4, 2), "\"14.20\"", &v, NULL);
    v = ice_value_decimal64(2, -20);
    json_both_ways(vt_dec(1, -20), "\"2E+20\"", &v, NULL);
    v = ice_value_date(17486);
    json_both_ways(vt_prim(ICE_DATE), "\"2017-11-16\"", &v, NULL);
    v = ice_value_time(ICE_TIME, 81068123456LL);
    json_both_ways(vt_prim(ICE_TIME), "\"22:31:08.123456\"", &v, NULL);
    v = ice_value_time(ICE_TIMESTAMP, 1510871468123456LL);
    json_both_ways(vt_prim(ICE_TIMESTAMP), "\"2017-11-16T22:31:08.123456\"",
                   &v, NULL);
    v = ice_value_time(ICE_TIMESTAMPTZ, 1510871468123456LL);
    json_both_ways(vt_prim(ICE_TIMESTAMPTZ),
                   "\"2017-11-16T22:31:08.123456+00:00\"", &v, NULL);
    v = ice_value_time(ICE_TIMESTAMP_NS, 1510871468123456789LL);
    json_both_ways(vt_prim(ICE_TIMESTAMP_NS),
                   "\"2017-11-16T22:31:08.123456789\"", &v, NULL);
    v = ice_value_time(ICE_TIMESTAMPTZ_NS, 1510871468123456789LL);
    json_both_ways(vt_prim(ICE_TIMESTAMPTZ_NS),
                   "\"2017-11-16T22:31:08.123456789+00:00\"", &v, NULL);
    v = ice_value_string("iceberg", 7);
    json_both_ways(vt_prim(ICE_STRING), "\"iceberg\"", &v, NULL);
    v = ice_value_uuid(uuid);
    json_both_ways(vt_prim(ICE_UUID),
                   "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"", &v, NULL);
    v = ice_value_fixed("\x00\x01\x02\xff", 4);
    json_both_ways(fixed4, "\"000102ff\"", &v, NULL);
    v = ice_value_binary("\x00\x01\x02\xff", 4);
    json_both_ways(vt_prim(ICE_BINARY), "\"000102ff\"", &v, NULL);
    v = ice_value_null(ICE_DATE);
    json_both_ways(vt_prim(ICE_DATE), "null", &v, NULL);
}

static void test_table_values_json__accepted_spellings(void)
{
    static const uint8_t uuid[16] = { 0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c,
                                      0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34,
                                      0x9c, 0xb7, 0x85, 0xe7 };
    ice_value v;

    /* Offsets are converted to UTC (Appendix B's timestamptz vector). */
    v = ice_value_time(ICE_TIMESTAMPTZ, 1510871468000000LL);
    json_both_ways(vt_prim(ICE_TIMESTAMPTZ), "\"2017-11-16T14:31:08-08:00\"",
                   &v, "\"2017-11-16T22:31:08.000000+00:00\"");
    json_both_ways(vt_prim(ICE_TIMESTAMPTZ), "\"2017-11-16T22:31:08Z\"", &v,
                   "\"2017-11-16T22:31:08.000000+00:00\"");
    /* Short times, uppercase hex, whitespace, escapes, E notation. */
    v = ice_value_time(ICE_TIME, 81060000000LL);
    json_both_ways(vt_prim(ICE_TIME), "\"22:31\"", &v, "\"22:31:00.000000\"");
    v = ice_value_uuid(uuid);
    json_both_ways(vt_prim(ICE_UUID),
                   " \"F79C3E09-677C-4BBD-A479-3F349CB785E7\"\n", &v,
                   "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
    v = ice_value_string("a\"b\xc3\xa9\n", 6);
    json_both_ways(vt_prim(ICE_STRING), "\"a\\\"b\\u00e9\\n\"", &v,
                   "\"a\\\"b\xc3\xa9\\n\"");
    v = ice_value_decimal64(1420, 2);
    json_both_ways(vt_dec(4, 2), "\"1420E-2\"", &v, "\"14.20\"");
    v = ice_value_decimal64(-5, 3);
    json_both_ways(vt_dec(4, 3), "\"-.005\"", &v, "\"-0.005\"");
    v = ice_value_double(-2.5e-7);
    json_both_ways(vt_prim(ICE_DOUBLE), "-2.5e-7", &v, "-2.5E-7");
    v = ice_value_float(0.1f);
    json_both_ways(vt_prim(ICE_FLOAT), "0.1", &v, NULL);
    v = ice_value_long(INT64_MIN);
    json_both_ways(vt_prim(ICE_LONG), "-9223372036854775808", &v, NULL);
    /* Nanoseconds beyond a microsecond type's precision are dropped. */
    v = ice_value_time(ICE_TIMESTAMP, 1000001LL);
    json_both_ways(vt_prim(ICE_TIMESTAMP), "\"1970-01-01T00:00:01.000001999\"",
                   &v, "\"1970-01-01T00:00:01.000001\"");
}

static void test_table_values_json__pre_epoch_and_extremes(void)
{
    ice_value v;

    v = ice_value_time(ICE_TIMESTAMP, -1);
    json_both_ways(vt_prim(ICE_TIMESTAMP), "\"1969-12-31T23:59:59.999999\"",
                   &v, NULL);
    v = ice_value_time(ICE_TIMESTAMP_NS, -1);
    json_both_ways(vt_prim(ICE_TIMESTAMP_NS),
                   "\"1969-12-31T23:59:59.999999999\"", &v, NULL);
    v = ice_value_date(-719528);
    json_both_ways(vt_prim(ICE_DATE), "\"0000-01-01\"", &v, NULL);
    v = ice_value_date(-719529);
    json_both_ways(vt_prim(ICE_DATE), "\"-0001-12-31\"", &v, NULL);
    v = ice_value_date(2932897);
    json_both_ways(vt_prim(ICE_DATE), "\"+10000-01-01\"", &v, NULL);
    v = ice_value_date(-25508);
    json_both_ways(vt_prim(ICE_DATE), "\"1900-03-01\"", &v, NULL);
    v = ice_value_time(ICE_TIMESTAMP, INT64_MIN);
    json_both_ways(vt_prim(ICE_TIMESTAMP), "\"-290308-12-21T19:59:05.224192\"",
                   &v, NULL);
    v = ice_value_time(ICE_TIMESTAMP_NS, INT64_MAX);
    json_both_ways(vt_prim(ICE_TIMESTAMP_NS),
                   "\"2262-04-11T23:47:16.854775807\"", &v, NULL);
    v = ice_value_int(INT32_MIN);
    json_both_ways(vt_prim(ICE_INT), "-2147483648", &v, NULL);
}

static void expect_bad_json(ice_prim type, const char *json, int want_rc)
{
    zb_arena *a = NULL;
    zb_ctx ctx;
    ice_value v;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    ZBT_RC(ice_value_from_json(&v, &ctx, a, &type, json, strlen(json)),
           want_rc);
    ZBT_CHECK(ctx.err.msg[0] != '\0');
    zb_arena_free(a);
}

static void test_table_values_json__malformed(void)
{
    ice_prim fixed4 = { ICE_FIXED, 0, 0, 4 };

    expect_bad_json(vt_prim(ICE_INT), "2147483648", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_INT), "\"34\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_INT), "3.5", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_LONG), "9223372036854775808", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_BOOLEAN), "1", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_BOOLEAN), "tru", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DOUBLE), "1.0x", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DOUBLE), "", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DATE), "\"2017-02-29\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DATE), "\"2017-11-16T00:00\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DATE), "\"17-11-16\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_DATE), "17486", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_TIME), "\"24:00:00\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_TIME), "\"22:31:08.\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_TIME), "\"22:31:08.1234567890\"", ZB_ECORRUPT);
    /* A timestamp without zone must not carry one, and tz must. */
    expect_bad_json(vt_prim(ICE_TIMESTAMP), "\"2017-11-16T22:31:08+00:00\"",
                    ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_TIMESTAMPTZ), "\"2017-11-16T22:31:08\"",
                    ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_TIMESTAMP_NS), "\"3000-01-01T00:00:00\"",
                    ZB_ECORRUPT); /* beyond int64 nanoseconds */
    expect_bad_json(vt_dec(4, 2), "\"14.2\"", ZB_ECORRUPT);   /* scale 1 */
    expect_bad_json(vt_dec(4, 2), "14.20", ZB_ECORRUPT);      /* not string */
    expect_bad_json(vt_dec(38, 0),
                    "\"999999999999999999999999999999999999999999\"",
                    ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_UUID), "\"f79c3e09677c4bbda4793f349cb785e7\"",
                    ZB_ECORRUPT);
    expect_bad_json(fixed4, "\"000102\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_BINARY), "\"0g\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_BINARY), "\"012\"", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_STRING), "\"unterminated", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_STRING), "34", ZB_ECORRUPT);
    expect_bad_json(vt_prim(ICE_VARIANT), "\"x\"", ZB_EUNSUPPORTED);
}

static void test_table_values_json__non_finite_floats(void)
{
    zb_buf b = ZB_BUF_INIT(64);
    zb_ctx ctx;
    ice_value v = ice_value_double(NAN);

    zb_ctx_init(&ctx);
    ZBT_RC(ice_value_to_json(&b, &ctx, &v), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "NaN");
    v = ice_value_float(-INFINITY);
    ZBT_RC(ice_value_to_json(&b, &ctx, &v), ZB_EINVAL);
    ZBT_EQ_U64(b.len, 0);
    zb_buf_free(&b);
}

static void test_table_values_json__human_strings(void)
{
    ice_value v;

    v = ice_value_time(ICE_TIME, 81068000000LL);
    ZBT_EQ_STR(human_of(&v), "22:31:08");
    v = ice_value_time(ICE_TIME, 81060000000LL);
    ZBT_EQ_STR(human_of(&v), "22:31");
    v = ice_value_time(ICE_TIME, 81068123000LL);
    ZBT_EQ_STR(human_of(&v), "22:31:08.123");
    v = ice_value_time(ICE_TIME, 81068000001LL);
    ZBT_EQ_STR(human_of(&v), "22:31:08.000001");
    v = ice_value_time(ICE_TIMESTAMP, 1510871468000001LL);
    ZBT_EQ_STR(human_of(&v), "2017-11-16T22:31:08.000001");
    v = ice_value_time(ICE_TIMESTAMPTZ, 1510871468000000LL);
    ZBT_EQ_STR(human_of(&v), "2017-11-16T22:31:08Z");
    v = ice_value_time(ICE_TIMESTAMPTZ_NS, -1);
    ZBT_EQ_STR(human_of(&v), "1969-12-31T23:59:59.999999999Z");
    v = ice_value_date(-1);
    ZBT_EQ_STR(human_of(&v), "1969-12-31");
    v = ice_value_decimal64(1420, 2);
    ZBT_EQ_STR(human_of(&v), "14.20");
    v = ice_value_decimal64(-1, 8); /* BigDecimal.toString: 1E-8 */
    ZBT_EQ_STR(human_of(&v), "-1E-8");
    ZBT_EQ_STR(json_of(&v), "\"-0.00000001\"");
    v = ice_value_decimal64(123, -2);
    ZBT_EQ_STR(human_of(&v), "1.23E+4");
    ZBT_EQ_STR(json_of(&v), "\"123E+2\"");
    v = ice_value_float(1.0f);
    ZBT_EQ_STR(human_of(&v), "1.0");
    v = ice_value_float(0.1f);
    ZBT_EQ_STR(human_of(&v), "0.1");
    v = ice_value_float(1e10f);
    ZBT_EQ_STR(human_of(&v), "1.0E10");
    v = ice_value_double(1e7);
    ZBT_EQ_STR(human_of(&v), "1.0E7");
    v = ice_value_double(9999999.5);
    ZBT_EQ_STR(human_of(&v), "9999999.5");
    v = ice_value_double(0.001);
    ZBT_EQ_STR(human_of(&v), "0.001");
    v = ice_value_double(0.00099);
    ZBT_EQ_STR(human_of(&v), "9.9E-4");
    v = ice_value_double(123456.789);
    ZBT_EQ_STR(human_of(&v), "123456.789");
    v = ice_value_double(-0.0);
    ZBT_EQ_STR(human_of(&v), "-0.0");
    v = ice_value_double(NAN);
    ZBT_EQ_STR(human_of(&v), "NaN");
    v = ice_value_float(-INFINITY);
    ZBT_EQ_STR(human_of(&v), "-Infinity");
    v = ice_value_double(0.1 + 0.2);
    ZBT_EQ_STR(human_of(&v), "0.30000000000000004");
    v = ice_value_binary("\x00\x01\x02\x03", 4);
    ZBT_EQ_STR(human_of(&v), "AAECAw==");
    v = ice_value_fixed("ab", 2);
    ZBT_EQ_STR(human_of(&v), "YWI=");
    v = ice_value_string("a b", 3);
    ZBT_EQ_STR(human_of(&v), "a b");
    v = ice_value_bool(0);
    ZBT_EQ_STR(human_of(&v), "false");
    v = ice_value_null(ICE_LONG);
    ZBT_EQ_STR(human_of(&v), "null");
}

const zbt_case test_table_values_json[] = {
    ZBT_CASE(test_table_values_json__spec_examples),
    ZBT_CASE(test_table_values_json__accepted_spellings),
    ZBT_CASE(test_table_values_json__pre_epoch_and_extremes),
    ZBT_CASE(test_table_values_json__malformed),
    ZBT_CASE(test_table_values_json__non_finite_floats),
    ZBT_CASE(test_table_values_json__human_strings),
    ZBT_END
};

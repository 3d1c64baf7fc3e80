/*
 * Iceberg values: the binary single-value serialization of format/spec.md
 * Appendix D both ways, its length checks (ZB_ECORRUPT), the promoted
 * bound lengths of "Schema Evolution", ordering for column bounds, the
 * 128-bit decimal helpers and the calendar.
 */
#include <math.h>

#include "values_test.h"

static const char *ser(const ice_value *v)
{
    static char hex[512];
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_to_bytes(&b, &ctx, v), &ctx);
    snprintf(hex, sizeof hex, "%s", vt_hex(b.ptr, b.len));
    zb_buf_free(&b);
    return hex;
}

/* Serializes, decodes as type and checks the value compares equal. */
static void round_trip(const ice_value *v, ice_prim type)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;
    ice_value back;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_to_bytes(&b, &ctx, v), &ctx);
    ZBT_OK_CTX(ice_value_from_bytes(&back, &ctx, &type, b.ptr, b.len), &ctx);
    ZBT_EQ_INT(back.type, v->type);
    ZBT_EQ_INT(ice_value_cmp(&back, v), 0);
    zb_buf_free(&b);
}

static void test_table_values__binary_forms(void)
{
    static const uint8_t uuid[16] = { 0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c,
                                      0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34,
                                      0x9c, 0xb7, 0x85, 0xe7 };
    ice_value v;

    v = ice_value_bool(1);
    ZBT_EQ_STR(ser(&v), "01");
    v = ice_value_bool(0);
    ZBT_EQ_STR(ser(&v), "00");
    v = ice_value_int(34);
    ZBT_EQ_STR(ser(&v), "22000000");
    v = ice_value_int(INT32_MIN);
    ZBT_EQ_STR(ser(&v), "00000080");
    v = ice_value_long(34);
    ZBT_EQ_STR(ser(&v), "2200000000000000");
    v = ice_value_long(-2);
    ZBT_EQ_STR(ser(&v), "feffffffffffffff");
    v = ice_value_float(1.0f);
    ZBT_EQ_STR(ser(&v), "0000803f");
    v = ice_value_double(1.0);
    ZBT_EQ_STR(ser(&v), "000000000000f03f");
    v = ice_value_date(17486); /* 2017-11-16 */
    ZBT_EQ_STR(ser(&v), "4e440000");
    v = ice_value_time(ICE_TIMESTAMP_NS, 1);
    ZBT_EQ_STR(ser(&v), "0100000000000000");
    v = ice_value_string("iceberg", 7);
    ZBT_EQ_STR(ser(&v), "69636562657267");
    v = ice_value_uuid(uuid);
    ZBT_EQ_STR(ser(&v), "f79c3e09677c4bbda4793f349cb785e7");
    v = ice_value_fixed("\x00\x01\x02\x03", 4);
    ZBT_EQ_STR(ser(&v), "00010203");
    v = ice_value_binary("", 0);
    ZBT_EQ_STR(ser(&v), "");
    /* Decimals: minimal two's-complement big-endian of the unscaled value. */
    v = ice_value_decimal64(1420, 2); /* 14.20 */
    ZBT_EQ_STR(ser(&v), "058c");
    v = ice_value_decimal64(0, 2);
    ZBT_EQ_STR(ser(&v), "00");
    v = ice_value_decimal64(-1, 0);
    ZBT_EQ_STR(ser(&v), "ff");
    v = ice_value_decimal64(127, 0);
    ZBT_EQ_STR(ser(&v), "7f");
    v = ice_value_decimal64(128, 0);
    ZBT_EQ_STR(ser(&v), "0080");
    v = ice_value_decimal64(-128, 0);
    ZBT_EQ_STR(ser(&v), "80");
    v = ice_value_decimal64(-129, 0);
    ZBT_EQ_STR(ser(&v), "ff7f");
    v = ice_value_decimal64(INT64_MIN, 0);
    ZBT_EQ_STR(ser(&v), "8000000000000000");
    {
        ice_i128 max = { INT64_MAX, UINT64_MAX }, min = { INT64_MIN, 0 };

        v = ice_value_decimal(max, 0);
        ZBT_EQ_STR(ser(&v), "7fffffffffffffffffffffffffffffff");
        v = ice_value_decimal(min, 0);
        ZBT_EQ_STR(ser(&v), "80000000000000000000000000000000");
    }
}

static void test_table_values__binary_round_trips(void)
{
    static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8,
                                      9, 10, 11, 12, 13, 14, 15, 16 };
    ice_prim fixed3 = { ICE_FIXED, 0, 0, 3 };
    ice_value v;
    int64_t longs[] = { 0, 1, -1, INT64_MIN, INT64_MAX, -86400000001LL };
    int32_t ints[] = { 0, 1, -1, INT32_MIN, INT32_MAX };
    size_t i;

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        v = ice_value_int(ints[i]);
        round_trip(&v, vt_prim(ICE_INT));
        v = ice_value_date(ints[i]);
        round_trip(&v, vt_prim(ICE_DATE));
    }
    for (i = 0; i < sizeof longs / sizeof longs[0]; i++) {
        v = ice_value_long(longs[i]);
        round_trip(&v, vt_prim(ICE_LONG));
        v = ice_value_time(ICE_TIMESTAMPTZ, longs[i]);
        round_trip(&v, vt_prim(ICE_TIMESTAMPTZ));
        v = ice_value_time(ICE_TIMESTAMP_NS, longs[i]);
        round_trip(&v, vt_prim(ICE_TIMESTAMP_NS));
        v = ice_value_decimal64(longs[i], 3);
        round_trip(&v, vt_dec(38, 3));
    }
    v = ice_value_time(ICE_TIME, 81068000000LL);
    round_trip(&v, vt_prim(ICE_TIME));
    v = ice_value_float(-0.0f);
    round_trip(&v, vt_prim(ICE_FLOAT));
    v = ice_value_double(NAN);
    round_trip(&v, vt_prim(ICE_DOUBLE));
    v = ice_value_double(-INFINITY);
    round_trip(&v, vt_prim(ICE_DOUBLE));
    v = ice_value_uuid(uuid);
    round_trip(&v, vt_prim(ICE_UUID));
    v = ice_value_fixed("abc", 3);
    round_trip(&v, fixed3);
    v = ice_value_string("\xc3\xa9t\xc3\xa9", 5);
    round_trip(&v, vt_prim(ICE_STRING));
    v = ice_value_bool(1);
    round_trip(&v, vt_prim(ICE_BOOLEAN));
}

static void expect_corrupt(ice_prim type, const char *bytes, size_t n)
{
    zb_ctx ctx;
    ice_value v;

    zb_ctx_init(&ctx);
    ZBT_RC(ice_value_from_bytes(&v, &ctx, &type, bytes, n), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, ice_type_name(type.id));
    ZBT_CONTAINS(ctx.err.msg, "bytes");
}

static void test_table_values__wrong_lengths_are_corrupt(void)
{
    const char z[32] = { 0 };
    ice_prim fixed4 = { ICE_FIXED, 0, 0, 4 };

    expect_corrupt(vt_prim(ICE_BOOLEAN), z, 0);
    expect_corrupt(vt_prim(ICE_BOOLEAN), z, 2);
    expect_corrupt(vt_prim(ICE_INT), z, 3);
    expect_corrupt(vt_prim(ICE_INT), z, 8);
    expect_corrupt(vt_prim(ICE_DATE), z, 8);
    expect_corrupt(vt_prim(ICE_LONG), z, 5);
    expect_corrupt(vt_prim(ICE_LONG), z, 0);
    expect_corrupt(vt_prim(ICE_TIME), z, 4);
    expect_corrupt(vt_prim(ICE_TIMESTAMP), z, 7);
    expect_corrupt(vt_prim(ICE_TIMESTAMPTZ), z, 4);   /* no date promotion */
    expect_corrupt(vt_prim(ICE_TIMESTAMPTZ_NS), z, 4);
    expect_corrupt(vt_prim(ICE_FLOAT), z, 8);
    expect_corrupt(vt_prim(ICE_DOUBLE), z, 7);
    expect_corrupt(vt_prim(ICE_UUID), z, 15);
    expect_corrupt(vt_prim(ICE_UUID), z, 17);
    expect_corrupt(fixed4, z, 3);
    expect_corrupt(fixed4, z, 5);
    expect_corrupt(vt_dec(10, 2), z, 0);
    expect_corrupt(vt_dec(38, 2), z, 17);
}

static void test_table_values__promoted_bounds(void)
{
    zb_ctx ctx;
    ice_value v;
    ice_prim t;
    const uint8_t minus2[4] = { 0xfe, 0xff, 0xff, 0xff };
    const uint8_t one_f[4] = { 0x00, 0x00, 0x80, 0x3f };
    const uint8_t day[4] = { 0x4e, 0x44, 0x00, 0x00 }; /* 17486 */
    const uint8_t big_day[4] = { 0xff, 0xff, 0xff, 0x7f };

    zb_ctx_init(&ctx);
    t = vt_prim(ICE_LONG);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, minus2, 4), &ctx);
    ZBT_EQ_INT(v.u.l, -2);
    t = vt_prim(ICE_DOUBLE);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, one_f, 4), &ctx);
    ZBT_CHECK(v.u.d == 1.0);
    t = vt_prim(ICE_TIMESTAMP);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, day, 4), &ctx);
    ZBT_EQ_INT(v.u.l, 17486LL * 86400000000LL);
    t = vt_prim(ICE_TIMESTAMP_NS);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, day, 4), &ctx);
    ZBT_EQ_INT(v.u.l, 17486LL * 86400000000000LL);
    /* A date beyond the nanosecond range fails instead of wrapping. */
    ZBT_RC(ice_value_from_bytes(&v, &ctx, &t, big_day, 4), ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "out of range");
    /* A decimal bound keeps the column's scale. */
    t = vt_dec(9, 2);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, "\x05\x8c", 2), &ctx);
    ZBT_EQ_INT(v.u.dec.scale, 2);
    ZBT_EQ_INT(v.u.dec.unscaled.lo, 1420);
    ZBT_EQ_INT(v.u.dec.unscaled.hi, 0);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &t, "\xff\x7f", 2), &ctx);
    ZBT_EQ_INT(v.u.dec.unscaled.hi, -1);
    ZBT_EQ_INT((int64_t)v.u.dec.unscaled.lo, -129);
}

static void test_table_values__unsupported_types(void)
{
    zb_buf b = ZB_BUF_INIT(64);
    zb_ctx ctx;
    ice_value v = ice_value_null(ICE_VARIANT);
    ice_prim t = vt_prim(ICE_GEOMETRY);

    zb_ctx_init(&ctx);
    ZBT_RC(ice_value_to_bytes(&b, &ctx, &v), ZB_EINVAL); /* null */
    v.is_null = 0;
    ZBT_RC(ice_value_to_bytes(&b, &ctx, &v), ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "variant");
    ZBT_RC(ice_value_from_bytes(&v, &ctx, &t, "", 0), ZB_EUNSUPPORTED);
    ZBT_EQ_U64(b.len, 0);
    zb_buf_free(&b);
}

/* Each value must sort strictly before the next. */
static void check_ascending(const ice_value *v, size_t n)
{
    size_t i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            int c = ice_value_cmp(&v[i], &v[j]);

            if ((i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0))
                zbt__fail(__FILE__, __LINE__, "order of %zu vs %zu: %d", i,
                          j, c);
        }
}

static void test_table_values__ordering(void)
{
    ice_value ints[] = { ice_value_null(ICE_INT), ice_value_int(INT32_MIN),
                         ice_value_long(-1), ice_value_int(0),
                         ice_value_long(1), ice_value_int(INT32_MAX),
                         ice_value_long(INT64_MAX) };
    ice_value floats[] = { ice_value_double(-NAN), ice_value_float(-INFINITY),
                           ice_value_double(-1e300), ice_value_float(-1.0f),
                           ice_value_double(-0.0), ice_value_float(0.0f),
                           ice_value_double(1e-300), ice_value_float(1.0f),
                           ice_value_double(INFINITY), ice_value_float(NAN) };
    ice_i128 huge = { INT64_MAX / 2, 0 };
    ice_i128 neg_huge = ice_i128_sub(ice_i128_from_i64(0), huge);
    ice_value decs[] = { ice_value_decimal(neg_huge, 0),
                         ice_value_decimal64(-150, 2),
                         ice_value_decimal64(-149, 2),
                         ice_value_decimal64(0, 5),
                         ice_value_decimal64(1, 30),
                         ice_value_decimal64(149, 2),
                         ice_value_decimal64(15, 1),
                         ice_value_decimal64(1, -30),
                         ice_value_decimal(huge, 0) };
    ice_value strs[] = { ice_value_string("", 0), ice_value_string("a", 1),
                         ice_value_string("ab", 2), ice_value_string("b", 1),
                         ice_value_string("\x7f", 1),
                         ice_value_string("\xc3\xa9", 2), /* U+00E9 */
                         ice_value_string("\xf0\x9f\x98\x80", 4) };
    ice_value bins[] = { ice_value_binary("\x00", 1),
                         ice_value_binary("\x00\x00", 2),
                         ice_value_binary("\x7f", 1),
                         ice_value_binary("\x80", 1),
                         ice_value_binary("\xff", 1) };
    ice_value times[] = { ice_value_date(-1),
                          ice_value_time(ICE_TIMESTAMP, -1),
                          ice_value_date(0),
                          ice_value_time(ICE_TIMESTAMP, 1),
                          ice_value_date(1) };
    uint8_t u1[16] = { 0x7f }, u2[16] = { 0x80 };
    ice_value uuids[] = { ice_value_uuid(u1), ice_value_uuid(u2) };
    ice_value bools[] = { ice_value_bool(0), ice_value_bool(1) };
    ice_value a, b;

    check_ascending(ints, sizeof ints / sizeof ints[0]);
    check_ascending(floats, sizeof floats / sizeof floats[0]);
    check_ascending(decs, sizeof decs / sizeof decs[0]);
    check_ascending(strs, sizeof strs / sizeof strs[0]);
    check_ascending(bins, sizeof bins / sizeof bins[0]);
    check_ascending(times, sizeof times / sizeof times[0]);
    check_ascending(uuids, 2);
    check_ascending(bools, 2);
    /* Equal across scales and promotions. */
    a = ice_value_decimal64(15, 1);
    b = ice_value_decimal64(150, 2);
    ZBT_EQ_INT(ice_value_cmp(&a, &b), 0);
    a = ice_value_int(-7);
    b = ice_value_long(-7);
    ZBT_EQ_INT(ice_value_cmp(&a, &b), 0);
    a = ice_value_float(0.5f);
    b = ice_value_double(0.5);
    ZBT_EQ_INT(ice_value_cmp(&a, &b), 0);
    a = ice_value_date(1);
    b = ice_value_time(ICE_TIMESTAMP_NS, 86400000000000LL);
    ZBT_EQ_INT(ice_value_cmp(&a, &b), 0);
    a = ice_value_null(ICE_STRING);
    b = ice_value_null(ICE_STRING);
    ZBT_EQ_INT(ice_value_cmp(&a, &b), 0);
}

static void test_table_values__i128_helpers(void)
{
    ice_i128 v;
    uint8_t be[16];

    ZBT_EQ_INT(ice_i128_floor_mod(ice_i128_from_i64(1065), 50), 15);
    ZBT_EQ_INT(ice_i128_floor_mod(ice_i128_from_i64(-1), 10), 9);
    ZBT_EQ_INT(ice_i128_floor_mod(ice_i128_from_i64(-10), 10), 0);
    ZBT_EQ_INT(ice_i128_floor_mod(ice_i128_from_i64(INT64_MIN), 10), 2);
    v.hi = INT64_MIN;
    v.lo = 0; /* -2^127 = -170141183460469231731687303715884105728 */
    ZBT_EQ_INT(ice_i128_floor_mod(v, 10), 2);
    ZBT_EQ_INT(ice_i128_floor_mod(v, 7), 5); /* 2^127 % 7 == 2 */
    v = ice_i128_sub(ice_i128_from_i64(0), ice_i128_from_i64(1));
    ZBT_EQ_INT(v.hi, -1);
    ZBT_EQ_U64(v.lo, UINT64_MAX);
    v = ice_i128_sub(ice_i128_from_i64(INT64_MIN), ice_i128_from_i64(1));
    ZBT_EQ_INT(v.hi, -1);
    ZBT_EQ_U64(v.lo, (uint64_t)INT64_MAX);
    ZBT_EQ_INT(ice_i128_to_min_be(be, ice_i128_from_i64(255)), 2);
    ZBT_EQ_STR(vt_hex(be, 2), "00ff");
    ZBT_EQ_INT(ice_i128_to_min_be(be, ice_i128_from_i64(-256)), 2);
    ZBT_EQ_STR(vt_hex(be, 2), "ff00");
}

static void test_table_values__calendar(void)
{
    int64_t d, y;
    int m, day;

    ZBT_EQ_INT(ice_days_from_civil(1970, 1, 1), 0);
    ZBT_EQ_INT(ice_days_from_civil(2017, 11, 16), 17486);
    ZBT_EQ_INT(ice_days_from_civil(1969, 12, 31), -1);
    ZBT_EQ_INT(ice_days_from_civil(2000, 2, 29), 11016);
    ZBT_EQ_INT(ice_days_from_civil(1900, 3, 1), -25508);
    ZBT_EQ_INT(ice_days_from_civil(0, 1, 1), -719528);
    ZBT_EQ_INT(ice_days_from_civil(-1, 12, 31), -719529);
    /* Every day of +-2200 years around the epoch round-trips in order. */
    for (d = -1520000; d <= 1520000; d++) {
        ice_civil_from_days(d, &y, &m, &day);
        if (ice_days_from_civil(y, m, day) != d || m < 1 || m > 12 ||
            day < 1 || day > 31)
            zbt__fail(__FILE__, __LINE__, "day %lld -> %lld-%d-%d",
                      (long long)d, (long long)y, m, day);
    }
    ice_civil_from_days(INT32_MIN, &y, &m, &day);
    ZBT_EQ_INT(ice_days_from_civil(y, m, day), INT32_MIN);
    ice_civil_from_days(INT32_MAX, &y, &m, &day);
    ZBT_EQ_INT(ice_days_from_civil(y, m, day), INT32_MAX);
    ZBT_EQ_INT(ice_floor_div(-1, 10), -1);
    ZBT_EQ_INT(ice_floor_div(INT64_MIN, 86400000000LL), -106751992);
    ZBT_EQ_INT(ice_floor_mod(-1, 86400000000LL), 86399999999LL);
    ZBT_EQ_INT(ice_floor_mod(INT64_MIN, 10), 2);
}

const zbt_case test_table_values[] = {
    ZBT_CASE(test_table_values__binary_forms),
    ZBT_CASE(test_table_values__binary_round_trips),
    ZBT_CASE(test_table_values__wrong_lengths_are_corrupt),
    ZBT_CASE(test_table_values__promoted_bounds),
    ZBT_CASE(test_table_values__unsupported_types),
    ZBT_CASE(test_table_values__ordering),
    ZBT_CASE(test_table_values__i128_helpers),
    ZBT_CASE(test_table_values__calendar),
    ZBT_END
};

/*
 * Partition transforms and the Murmur3 hash: every test value of
 * format/spec.md Appendix B, the truncate examples, year/month/day/hour
 * before and after 1970, boundary values, transform strings (valid and
 * malformed), accepted types, result types and partition path segments.
 */
#include <math.h>

#include "table/value/murmur3.h"
#include "values_test.h"

static int32_t hash_of(const ice_value *v)
{
    zb_ctx ctx;
    uint32_t h = 0;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_hash(&h, &ctx, v), &ctx);
    return (int32_t)h;
}

/* Hash of a value parsed from its text form. */
static int32_t hash_text(ice_prim type, const char *text)
{
    zb_arena *a = NULL;
    zb_ctx ctx;
    ice_value v;
    int32_t h;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    VT_PARSE(&v, &ctx, a, &type, text);
    h = hash_of(&v);
    zb_arena_free(a);
    return h;
}

static void test_table_transform__murmur3_reference(void)
{
    /* Published MurmurHash3_x86_32 values (SMHasher's algorithm). */
    ZBT_EQ_U64(ice_murmur3_32("", 0, 0), 0);
    ZBT_EQ_U64(ice_murmur3_32("", 0, 1), 0x514e28b7u);
    ZBT_EQ_U64(ice_murmur3_32("", 0, 0xffffffffu), 0x81f16f39u);
    ZBT_EQ_U64(ice_murmur3_32("hello", 5, 0), 0x248bfa47u);
    ZBT_EQ_U64(ice_murmur3_32("The quick brown fox jumps over the lazy dog",
                              43, 0), 0x2e4ff723u);
    ZBT_EQ_U64(ice_murmur3_32("\0\0\0\0", 4, 0), 0x2362f9deu);
    ZBT_EQ_U64(ice_murmur3_32("\0\0\0", 3, 0), 0x85f0b427u);
    ZBT_EQ_U64(ice_murmur3_32("\xff\xff\xff\xff", 4, 0), 0x76293b50u);
    ZBT_EQ_U64(ice_murmur3_32("\x21\x43\x65\x87", 4, 0), 0xf55b516bu);
    ZBT_EQ_U64(ice_murmur3_32("\x21\x43\x65", 3, 0), 0x7e4a8634u);
    ZBT_EQ_U64(ice_murmur3_32("\x21\x43", 2, 0), 0xa0f7b07au);
    ZBT_EQ_U64(ice_murmur3_32("\x21", 1, 0), 0x72661cf4u);
    ZBT_EQ_U64(ice_murmur3_32("Hello, world!", 13, 0x9747b28cu), 0x24884cbau);
    ZBT_EQ_U64(ice_murmur3_32("\x21\x43\x65\x87", 4, 0x5082edeeu),
               0x2362f9deu);
}

static void test_table_transform__spec_hash_vectors(void)
{
    ice_value v;
    static const uint8_t uuid[16] = { 0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c,
                                      0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34,
                                      0x9c, 0xb7, 0x85, 0xe7 };
    ice_prim fixed4 = { ICE_FIXED, 0, 0, 4 };

    v = ice_value_int(34);
    ZBT_EQ_INT(hash_of(&v), 2017239379);
    v = ice_value_long(34);
    ZBT_EQ_INT(hash_of(&v), 2017239379);
    ZBT_EQ_INT(hash_text(vt_dec(4, 2), "14.20"), -500754589);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_DATE), "2017-11-16"), -653330422);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIME), "22:31:08"), -662762989);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMP), "2017-11-16T22:31:08"),
               -2047944441);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMP), "2017-11-16T22:31:08.000001"),
               -1207196810);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMPTZ), "2017-11-16T14:31:08-08:00"),
               -2047944441);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMPTZ),
                         "2017-11-16T14:31:08.000001-08:00"), -1207196810);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMP_NS), "2017-11-16T22:31:08"),
               -2047944441);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMP_NS),
                         "2017-11-16T22:31:08.000001001"), -1207196810);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMPTZ_NS),
                         "2017-11-16T14:31:08-08:00"), -2047944441);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_TIMESTAMPTZ_NS),
                         "2017-11-16T14:31:08.000001001-08:00"), -1207196810);
    v = ice_value_string("iceberg", 7);
    ZBT_EQ_INT(hash_of(&v), 1210000089);
    v = ice_value_string("34", 2); /* "Schema Evolution": 34 vs "34" */
    ZBT_EQ_INT(hash_of(&v), -427558391);
    v = ice_value_uuid(uuid);
    ZBT_EQ_INT(hash_of(&v), 1488055340);
    ZBT_EQ_INT(hash_text(vt_prim(ICE_UUID),
                         "f79c3e09-677c-4bbd-a479-3f349cb785e7"), 1488055340);
    v = ice_value_fixed("\x00\x01\x02\x03", 4);
    ZBT_EQ_INT(hash_of(&v), -188683207);
    ZBT_EQ_INT(hash_text(fixed4, "00010203"), -188683207);
    v = ice_value_binary("\x00\x01\x02\x03", 4);
    ZBT_EQ_INT(hash_of(&v), -188683207);
    /* The second table: types that cannot be bucketed but have a hash. */
    v = ice_value_bool(1);
    ZBT_EQ_INT(hash_of(&v), 1392991556);
    v = ice_value_float(1.0f);
    ZBT_EQ_INT(hash_of(&v), -142385009);
    v = ice_value_float(0.0f);
    ZBT_EQ_INT(hash_of(&v), 1669671676);
    v = ice_value_float(-0.0f);
    ZBT_EQ_INT(hash_of(&v), 1669671676);
    v = ice_value_double(1.0);
    ZBT_EQ_INT(hash_of(&v), -142385009);
    v = ice_value_double(0.0);
    ZBT_EQ_INT(hash_of(&v), 1669671676);
    v = ice_value_double(-0.0);
    ZBT_EQ_INT(hash_of(&v), 1669671676);
    /* Every NaN hashes as the canonical one. */
    {
        ice_value a = ice_value_double(NAN), b = ice_value_double(-NAN);
        ice_value c = ice_value_float(NAN);

        ZBT_EQ_INT(hash_of(&a), hash_of(&b));
        ZBT_EQ_INT(hash_of(&a), hash_of(&c));
        ZBT_EQ_INT(hash_of(&a),
                   (int32_t)ice_murmur3_long(0x7ff8000000000000LL));
    }
    /* Nanoseconds floor to microseconds before 1970 too. */
    {
        ice_value ns = ice_value_time(ICE_TIMESTAMP_NS, -1);
        ice_value us = ice_value_time(ICE_TIMESTAMP, -1);

        ZBT_EQ_INT(hash_of(&ns), hash_of(&us));
    }
}

static ice_value apply(const char *transform, const ice_value *in)
{
    zb_ctx ctx;
    ice_transform t;
    ice_value out;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, transform), &ctx);
    ZBT_OK_CTX(ice_transform_apply(&out, &ctx, &t, in), &ctx);
    return out;
}

static const char *human(const char *transform, const ice_value *pv)
{
    static char s[256];
    zb_buf b = ZB_BUF_INIT(4096);
    zb_ctx ctx;
    ice_transform t;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, transform), &ctx);
    ZBT_OK_CTX(ice_transform_to_human(&b, &ctx, &t, pv), &ctx);
    snprintf(s, sizeof s, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
    return s;
}

static int32_t apply_int(const char *transform, const ice_value *in)
{
    ice_value out = apply(transform, in);

    ZBT_CHECK(!out.is_null);
    return out.u.i;
}

static void test_table_transform__bucket(void)
{
    ice_value v = ice_value_int(34), out;

    /* 2017239379 & INT_MAX = 2017239379; mod 16 = 3, mod 100 = 79. */
    ZBT_EQ_INT(apply_int("bucket[16]", &v), 3);
    ZBT_EQ_INT(apply_int("bucket[100]", &v), 79);
    ZBT_EQ_INT(apply_int("bucket[1]", &v), 0);
    v = ice_value_long(34);
    ZBT_EQ_INT(apply_int("bucket[16]", &v), 3);
    /* Negative hashes lose their sign bit first: -188683207 & INT_MAX =
     * 1958800441; mod 16 = 9. */
    v = ice_value_binary("\x00\x01\x02\x03", 4);
    ZBT_EQ_INT(apply_int("bucket[16]", &v), 9);
    ZBT_EQ_INT(apply_int("bucket[2147483647]", &v), 1958800441);
    out = apply("bucket[16]", &v);
    ZBT_EQ_INT(out.type, ICE_INT);
    ZBT_EQ_STR(human("bucket[16]", &out), "9");
    v = ice_value_null(ICE_STRING);
    out = apply("bucket[16]", &v);
    ZBT_CHECK(out.is_null);
    ZBT_EQ_INT(out.type, ICE_INT);
    ZBT_EQ_STR(human("bucket[16]", &out), "null");
}

static void test_table_transform__truncate(void)
{
    ice_value v, out;
    static const int32_t ints[][2] = {
        { 1, 0 }, { -1, -10 }, { 0, 0 }, { 9, 0 }, { 10, 10 }, { -10, -10 },
        { -11, -20 }, { INT32_MAX, 2147483640 },
        /* INT_MIN - 2 wraps to INT_MAX - 1, as Java's int arithmetic. */
        { INT32_MIN, 2147483646 },
    };
    size_t i;

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        v = ice_value_int(ints[i][0]);
        ZBT_EQ_INT(apply_int("truncate[10]", &v), ints[i][1]);
    }
    v = ice_value_long(-1);
    out = apply("truncate[10]", &v);
    ZBT_EQ_INT(out.u.l, -10);
    v = ice_value_long(1);
    ZBT_EQ_INT(apply("truncate[10]", &v).u.l, 0);
    v = ice_value_long(INT64_MIN);
    ZBT_EQ_INT(apply("truncate[10]", &v).u.l, INT64_MAX - 1);
    v = ice_value_long(INT64_MAX);
    ZBT_EQ_INT(apply("truncate[2147483647]", &v).u.l,
               INT64_MAX - INT64_MAX % 2147483647);
    /* Decimal W=50, s=2: 10.65 -> 10.50; and below zero. */
    v = ice_value_decimal64(1065, 2);
    out = apply("truncate[50]", &v);
    ZBT_EQ_INT(out.u.dec.scale, 2);
    ZBT_EQ_STR(human("truncate[50]", &out), "10.50");
    v = ice_value_decimal64(-5, 2);
    out = apply("truncate[50]", &v);
    ZBT_EQ_STR(human("truncate[50]", &out), "-0.50");
    /* Strings by code points: L=3 iceberg -> ice. */
    v = ice_value_string("iceberg", 7);
    out = apply("truncate[3]", &v);
    ZBT_EQ_U64(out.u.bin.len, 3);
    ZBT_CHECK(memcmp(out.u.bin.ptr, "ice", 3) == 0);
    v = ice_value_string("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 9);
    ZBT_EQ_U64(apply("truncate[2]", &v).u.bin.len, 6);
    v = ice_value_string("\xf0\x9f\x98\x80" "a\xe2\x82\xac" "b", 9);
    ZBT_EQ_U64(apply("truncate[1]", &v).u.bin.len, 4);
    ZBT_EQ_U64(apply("truncate[3]", &v).u.bin.len, 8);
    ZBT_EQ_U64(apply("truncate[4]", &v).u.bin.len, 9);
    ZBT_EQ_U64(apply("truncate[100]", &v).u.bin.len, 9);
    /* Binary by bytes: L=3 01 02 03 04 05 -> 01 02 03. */
    v = ice_value_binary("\x01\x02\x03\x04\x05", 5);
    out = apply("truncate[3]", &v);
    ZBT_EQ_STR(vt_hex(out.u.bin.ptr, out.u.bin.len), "010203");
    v = ice_value_binary("\x01", 1);
    ZBT_EQ_U64(apply("truncate[3]", &v).u.bin.len, 1);
}

static void test_table_transform__dates_and_times(void)
{
    zb_arena *a = NULL;
    zb_ctx ctx;
    ice_prim ts = vt_prim(ICE_TIMESTAMP);
    ice_value v, out;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    VT_PARSE(&v, &ctx, a, &ts, "2017-11-16T22:31:08");
    ZBT_EQ_INT(apply_int("year", &v), 47);
    ZBT_EQ_INT(apply_int("month", &v), 47 * 12 + 10);
    out = apply("day", &v);
    ZBT_EQ_INT(out.type, ICE_DATE);
    ZBT_EQ_INT(out.u.i, 17486);
    ZBT_EQ_INT(apply_int("hour", &v), 17486 * 24 + 22);
    ZBT_EQ_STR(human("year", &(ice_value){ .type = ICE_INT, .u.i = 47 }),
               "2017");
    out = apply("month", &v);
    ZBT_EQ_STR(human("month", &out), "2017-11");
    out = apply("day", &v);
    ZBT_EQ_STR(human("day", &out), "2017-11-16");
    out = apply("hour", &v);
    ZBT_EQ_STR(human("hour", &out), "2017-11-16-22");
    /* Day values read back as ints are dates (spec note [1]). */
    ZBT_EQ_STR(human("day", &(ice_value){ .type = ICE_INT, .u.i = 17486 }),
               "2017-11-16");

    /* One microsecond before the epoch is in 1969 by every measure. */
    v = ice_value_time(ICE_TIMESTAMPTZ, -1);
    ZBT_EQ_INT(apply_int("year", &v), -1);
    ZBT_EQ_INT(apply_int("month", &v), -1);
    ZBT_EQ_INT(apply("day", &v).u.i, -1);
    ZBT_EQ_INT(apply_int("hour", &v), -1);
    ZBT_EQ_STR(human("year", &(ice_value){ .type = ICE_INT, .u.i = -1 }),
               "1969");
    out = apply("month", &v);
    ZBT_EQ_STR(human("month", &out), "1969-12");
    out = apply("hour", &v);
    ZBT_EQ_STR(human("hour", &out), "1969-12-31-23");
    v = ice_value_time(ICE_TIMESTAMP_NS, -1);
    ZBT_EQ_INT(apply("day", &v).u.i, -1);
    ZBT_EQ_INT(apply_int("hour", &v), -1);
    v = ice_value_time(ICE_TIMESTAMP_NS, 3600000000000LL);
    ZBT_EQ_INT(apply_int("hour", &v), 1);
    /* Dates: 1969-12-31, 1900-03-01, 1600-02-29 (leap century). */
    v = ice_value_date(-1);
    ZBT_EQ_INT(apply_int("year", &v), -1);
    ZBT_EQ_INT(apply_int("month", &v), -1);
    ZBT_EQ_INT(apply("day", &v).u.i, -1);
    v = ice_value_date(-25508);
    ZBT_EQ_INT(apply_int("year", &v), -70);
    ZBT_EQ_INT(apply_int("month", &v), -70 * 12 + 2);
    out = apply("month", &v);
    ZBT_EQ_STR(human("month", &out), "1900-03");
    {
        ice_prim date = vt_prim(ICE_DATE);

        VT_PARSE(&v, &ctx, a, &date, "1600-02-29");
    }
    ZBT_EQ_INT(apply_int("month", &v), -370 * 12 + 1);
    /* Extremes stay in range; hour of INT64_MIN micros does not fit. */
    v = ice_value_date(INT32_MIN);
    ZBT_EQ_INT(apply_int("year", &v), -5877641 - 1970); /* -5877641-06-23 */
    v = ice_value_time(ICE_TIMESTAMP, INT64_MIN);
    ZBT_EQ_INT(apply("day", &v).u.i, -106751992);
    {
        ice_transform t;

        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "hour"), &ctx);
        ZBT_RC(ice_transform_apply(&out, &ctx, &t, &v), ZB_EINVAL);
        ZBT_CONTAINS(ctx.err.msg, "out of int range");
    }
    zb_arena_free(a);
}

static void test_table_transform__parse_and_format(void)
{
    static const struct {
        const char *in, *canon;
        ice_transform_kind kind;
        int32_t param;
    } ok[] = {
        { "identity", "identity", ICE_TR_IDENTITY, 0 },
        { "bucket[16]", "bucket[16]", ICE_TR_BUCKET, 16 },
        { "bucket[2147483647]", "bucket[2147483647]", ICE_TR_BUCKET,
          INT32_MAX },
        { "truncate[10]", "truncate[10]", ICE_TR_TRUNCATE, 10 },
        { "Truncate[007]", "truncate[7]", ICE_TR_TRUNCATE, 7 },
        { "year", "year", ICE_TR_YEAR, 0 },
        { "MONTH", "month", ICE_TR_MONTH, 0 },
        { "day", "day", ICE_TR_DAY, 0 },
        { "hour", "hour", ICE_TR_HOUR, 0 },
        { "void", "void", ICE_TR_VOID, 0 },
        { "zorder", "unknown", ICE_TR_UNKNOWN, 0 },
        { "geo_hash[5]", "unknown", ICE_TR_UNKNOWN, 0 },
    };
    static const char *const bad[] = {
        "bucket[0]", "bucket[-1]", "truncate[x]", "bucket[", "bucket",
        "truncate", "bucket[16", "bucket[16]x", "bucket[]", "",
        "identity[3]", "day[1]", "bucket[2147483648]",
        "bucket[99999999999999999999]", " day", "day ", "bucket [4]",
        "[4]", "truncate[0]", "bucket[+4]",
    };
    zb_ctx ctx;
    ice_transform t;
    size_t i;

    zb_ctx_init(&ctx);
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        zb_buf b = ZB_BUF_INIT(64);

        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, ok[i].in), &ctx);
        ZBT_EQ_INT(t.kind, ok[i].kind);
        ZBT_EQ_INT(t.param, ok[i].param);
        ZBT_EQ_INT(ice_transform_format(&b, &t), ZB_OK);
        ZBT_EQ_STR(zb_buf_cstr(&b), ok[i].canon);
        zb_buf_free(&b);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char quoted[64];

        zb_ctx_init(&ctx);
        if (ice_transform_parse(&t, &ctx, bad[i]) != ZB_EINVAL)
            zbt__fail(__FILE__, __LINE__, "\"%s\" was accepted", bad[i]);
        snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
        ZBT_CONTAINS(ctx.err.msg, quoted);
    }
}

static void test_table_transform__types(void)
{
    static const char *const all[] = { "identity", "bucket[4]", "truncate[4]",
                                       "year", "month", "day", "hour",
                                       "void" };
    /* Accepted source types per transform, from the spec's table. */
    static const char *const accepts[] = {
        "boolean int long float double decimal date time timestamp "
        "timestamptz timestamp_ns timestamptz_ns string uuid fixed binary "
        "unknown",
        "int long decimal date time timestamp timestamptz timestamp_ns "
        "timestamptz_ns string uuid fixed binary",
        "int long decimal string binary",
        "date timestamp timestamptz timestamp_ns timestamptz_ns",
        "date timestamp timestamptz timestamp_ns timestamptz_ns",
        "date timestamp timestamptz timestamp_ns timestamptz_ns",
        "timestamp timestamptz timestamp_ns timestamptz_ns",
        NULL,
    };
    static const int preserves[] = { 1, 0, 1, 1, 1, 1, 1, 0 };
    zb_ctx ctx;
    ice_transform t;
    ice_prim src, res;
    size_t i;
    int id;

    zb_ctx_init(&ctx);
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, all[i]), &ctx);
        ZBT_EQ_INT(ice_transform_preserves_order(&t), preserves[i]);
        for (id = ICE_BOOLEAN; id <= ICE_GEOGRAPHY; id++) {
            char word[32];
            int want;

            snprintf(word, sizeof word, " %s ", ice_type_name((ice_type_id)id));
            if (accepts[i]) {
                char list[256];

                snprintf(list, sizeof list, " %s ", accepts[i]);
                want = strstr(list, word) != NULL;
            } else {
                want = 1;
            }
            if (ice_transform_accepts(&t, (ice_type_id)id) != want)
                zbt__fail(__FILE__, __LINE__, "%s accepts%s: want %d", all[i],
                          word, want);
            src = (ice_prim){ (ice_type_id)id, 10, 2, 16 };
            ZBT_RC(ice_transform_result_type(&res, &ctx, &t, &src),
                   want ? ZB_OK : ZB_EINVAL);
            if (!want)
                continue;
            if (i == 1 || i == 3 || i == 4 || i == 6)
                ZBT_EQ_INT(res.id, ICE_INT);
            else if (i == 5)
                ZBT_EQ_INT(res.id, ICE_DATE);
            else
                ZBT_CHECK(memcmp(&res, &src, sizeof res) == 0);
        }
    }
    /* Applying to a type the transform refuses. */
    {
        ice_value v = ice_value_double(1.0), out;

        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "bucket[4]"), &ctx);
        ZBT_RC(ice_transform_apply(&out, &ctx, &t, &v), ZB_EINVAL);
        ZBT_CONTAINS(ctx.err.msg, "bucket[4] does not accept double");
        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "zorder"), &ctx);
        ZBT_RC(ice_transform_apply(&out, &ctx, &t, &v), ZB_EUNSUPPORTED);
        t.kind = ICE_TR_BUCKET; /* built by hand, not parsed */
        t.param = 0;
        v = ice_value_int(1);
        ZBT_RC(ice_transform_apply(&out, &ctx, &t, &v), ZB_EINVAL);
        v = ice_value_double(1.0);
        ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "void"), &ctx);
        ZBT_OK_CTX(ice_transform_apply(&out, &ctx, &t, &v), &ctx);
        ZBT_CHECK(out.is_null);
        ZBT_EQ_INT(out.type, ICE_DOUBLE);
    }
}

static void test_table_transform__partition_paths(void)
{
    zb_buf b = ZB_BUF_INIT(4096);
    zb_ctx ctx;
    ice_transform t;
    ice_value v;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "identity"), &ctx);
    v = ice_value_string("a b/c=\xc3\xa9~*", 10);
    ZBT_OK_CTX(ice_partition_path_field(&b, &ctx, "my col", &t, &v), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), "my+col=a+b%2Fc%3D%C3%A9%7E*");
    zb_buf_clear(&b);
    v = ice_value_null(ICE_DATE);
    ZBT_OK_CTX(ice_partition_path_field(&b, &ctx, "date", &t, &v), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), "date=null");
    zb_buf_clear(&b);
    v = ice_value_time(ICE_TIMESTAMPTZ, 1510871468000000LL);
    ZBT_OK_CTX(ice_partition_path_field(&b, &ctx, "ts", &t, &v), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), "ts=2017-11-16T22%3A31%3A08Z");
    zb_buf_clear(&b);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "day"), &ctx);
    v = ice_value_date(18262);
    ZBT_OK_CTX(ice_partition_path_field(&b, &ctx, "ts_day", &t, &v), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), "ts_day=2020-01-01");
    /* A buffer cap is reported and leaves the buffer as it was. */
    {
        zb_buf small = ZB_BUF_INIT(8);

        ZBT_RC(ice_partition_path_field(&small, &ctx, "ts_day", &t, &v),
               ZB_ENOMEM);
        ZBT_EQ_U64(small.len, 0);
        zb_buf_free(&small);
    }
    zb_buf_free(&b);
}

const zbt_case test_table_transform[] = {
    ZBT_CASE(test_table_transform__murmur3_reference),
    ZBT_CASE(test_table_transform__spec_hash_vectors),
    ZBT_CASE(test_table_transform__bucket),
    ZBT_CASE(test_table_transform__truncate),
    ZBT_CASE(test_table_transform__dates_and_times),
    ZBT_CASE(test_table_transform__parse_and_format),
    ZBT_CASE(test_table_transform__types),
    ZBT_CASE(test_table_transform__partition_paths),
    ZBT_END
};

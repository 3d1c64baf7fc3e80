/*
 * Partition values and bounds cross-checked against tables written by
 * other implementations (/work/shared/fixtures, see its README.md). The
 * expectations below were extracted once, by hand: partition tuples and
 * lower/upper bounds from the manifests (read with avsc 5.7.9), source
 * values from the data files (read with DuckDB), directory names from
 * the data file paths. No fixture file is read at test time.
 */
#include "values_test.h"

/* Applies a transform to a value and checks the partition value and its
 * path segment (name=human string). */
static void check_partition(const char *transform, const ice_value *src,
                            const char *name, int32_t want_value,
                            const char *want_segment)
{
    zb_buf b = ZB_BUF_INIT(4096);
    zb_ctx ctx;
    ice_transform t;
    ice_value pv;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, transform), &ctx);
    ZBT_OK_CTX(ice_transform_apply(&pv, &ctx, &t, src), &ctx);
    if (!pv.is_null && (pv.type == ICE_INT || pv.type == ICE_DATE))
        ZBT_EQ_INT(pv.u.i, want_value);
    ZBT_OK_CTX(ice_partition_path_field(&b, &ctx, name, &t, &pv), &ctx);
    ZBT_EQ_STR(zb_buf_cstr(&b), want_segment);
    zb_buf_free(&b);
}

/* Decodes a manifest bound given in hex. */
static ice_value bound(ice_prim type, const char *hex, uint8_t *store)
{
    zb_ctx ctx;
    ice_value v;
    size_t n = strlen(hex) / 2, i;

    for (i = 0; i < n; i++) {
        unsigned x;

        ZBT_CHECK(sscanf(hex + 2 * i, "%2x", &x) == 1);
        store[i] = (uint8_t)x;
    }
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_from_bytes(&v, &ctx, &type, store, n), &ctx);
    return v;
}

static const char *human(const ice_value *v)
{
    static char s[256];
    zb_buf b = ZB_BUF_INIT(4096);
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_value_to_human(&b, &ctx, v), &ctx);
    snprintf(s, sizeof s, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
    return s;
}

/*
 * icebird-spark-rename-column (Spark, Iceberg Java): spec bucket[4] of
 * int `id` and identity of date `date`. Rows (id, date) -> directory:
 * (1, 2022-01-01) and (2, 2022-01-01) -> id_bucket=0/date=2022-01-01;
 * (4, 2022-01-02) -> id_bucket=2/date=2022-01-02; (3, null) ->
 * id_bucket=3/date=null. The manifest holds the same tuples
 * ({0, 18993}, {2, 18994}, {3, null}).
 */
static void test_table_partfix__spark_bucket_and_date(void)
{
    ice_value id, d;

    id = ice_value_int(1);
    check_partition("bucket[4]", &id, "id_bucket", 0, "id_bucket=0");
    id = ice_value_int(2);
    check_partition("bucket[4]", &id, "id_bucket", 0, "id_bucket=0");
    id = ice_value_int(3);
    check_partition("bucket[4]", &id, "id_bucket", 3, "id_bucket=3");
    id = ice_value_int(4);
    check_partition("bucket[4]", &id, "id_bucket", 2, "id_bucket=2");
    /* After the rename the column may be read as long: same buckets. */
    id = ice_value_long(4);
    check_partition("bucket[4]", &id, "id_bucket", 2, "id_bucket=2");
    d = ice_value_date(18993);
    check_partition("identity", &d, "date", 18993, "date=2022-01-01");
    d = ice_value_date(18994);
    check_partition("identity", &d, "date", 18994, "date=2022-01-02");
    d = ice_value_null(ICE_DATE);
    check_partition("identity", &d, "date", 0, "date=null");
}

/* The same table's manifest bounds: decimal(10, 2) price, UTF-8 names
 * with non-ASCII code points, the date column. */
static void test_table_partfix__spark_bounds(void)
{
    uint8_t s1[32], s2[32];
    ice_value lo, hi;

    lo = bound(vt_dec(10, 2), "02540be3ff", s1);
    ZBT_EQ_STR(human(&lo), "99999999.99");
    lo = bound(vt_dec(10, 2), "fe0c", s1);
    hi = bound(vt_dec(10, 2), "03e7", s2);
    ZBT_EQ_STR(human(&lo), "-5.00");
    ZBT_EQ_STR(human(&hi), "9.99");
    ZBT_CHECK(ice_value_cmp(&lo, &hi) < 0);
    lo = bound(vt_dec(10, 2), "00", s1);
    ZBT_EQ_STR(human(&lo), "0.00");
    lo = bound(vt_prim(ICE_STRING), "466c6f70737920f09f9087", s1);
    hi = bound(vt_prim(ICE_STRING), "4d6f707379e280934e61c3af7665", s2);
    ZBT_EQ_STR(human(&lo), "Flopsy \xf0\x9f\x90\x87");
    ZBT_EQ_STR(human(&hi), "Mopsy\xe2\x80\x93Na\xc3\xafve");
    ZBT_CHECK(ice_value_cmp(&lo, &hi) < 0);
    lo = bound(vt_prim(ICE_DATE), "314a0000", s1);
    ZBT_EQ_STR(human(&lo), "2022-01-01");
    lo = bound(vt_prim(ICE_INT), "01000000", s1);
    hi = bound(vt_prim(ICE_INT), "02000000", s2);
    ZBT_CHECK(ice_value_cmp(&lo, &hi) < 0);
    lo = bound(vt_prim(ICE_BOOLEAN), "01", s1);
    ZBT_EQ_STR(human(&lo), "true");
}

/*
 * impala-v1-partitioned (Impala with Iceberg Java): spec hour(event_time)
 * of a timestamptz and identity(action). Data rows and manifests:
 * 1577865600000000 us (bound 006097760f9b0500) -> 438296,
 * event_time_hour=2020-01-01-08; 1577869200000000 -> 438297, -09;
 * 1577872800000000 -> 438298, -10; action "view" -> action=view.
 */
static void test_table_partfix__impala_hour(void)
{
    uint8_t s[16];
    ice_value ts, a;

    ts = bound(vt_prim(ICE_TIMESTAMPTZ), "006097760f9b0500", s);
    ZBT_EQ_INT(ts.u.l, 1577865600000000LL);
    check_partition("hour", &ts, "event_time_hour", 438296,
                    "event_time_hour=2020-01-01-08");
    ts = ice_value_time(ICE_TIMESTAMPTZ, 1577869200000000LL);
    check_partition("hour", &ts, "event_time_hour", 438297,
                    "event_time_hour=2020-01-01-09");
    ts = bound(vt_prim(ICE_TIMESTAMPTZ), "00a8be23119b0500", s);
    check_partition("hour", &ts, "event_time_hour", 438298,
                    "event_time_hour=2020-01-01-10");
    /* One microsecond earlier is the previous hour. */
    ts.u.l--;
    check_partition("hour", &ts, "event_time_hour", 438297,
                    "event_time_hour=2020-01-01-09");
    a = ice_value_string("view", 4);
    check_partition("identity", &a, "action", 0, "action=view");
}

/*
 * impala-v1-alltypes-part (Hive, v1): eight identity partitions whose
 * manifest tuple is {true, 1, 11L, 1.1f, 2.222, decimal(6,3) bytes
 * 01e1b9, date 19045, "impala"} in the directory
 * p_bool=true/p_int=1/p_bigint=11/p_float=1.1/p_double=2.222/
 * p_decimal=123.321/p_date=2022-02-22/p_string=impala.
 */
static void test_table_partfix__hive_identity_all_types(void)
{
    uint8_t s[16];
    ice_value vals[8];
    static const char *const names[8] = { "p_bool", "p_int", "p_bigint",
                                          "p_float", "p_double", "p_decimal",
                                          "p_date", "p_string" };
    zb_buf path = ZB_BUF_INIT(4096);
    zb_ctx ctx;
    ice_transform t;
    int i;

    vals[0] = ice_value_bool(1);
    vals[1] = ice_value_int(1);
    vals[2] = ice_value_long(11);
    vals[3] = ice_value_float(1.1f);
    vals[4] = ice_value_double(2.222);
    vals[5] = bound(vt_dec(6, 3), "01e1b9", s);
    vals[6] = ice_value_date(19045);
    vals[7] = ice_value_string("impala", 6);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_transform_parse(&t, &ctx, "identity"), &ctx);
    for (i = 0; i < 8; i++) {
        if (i > 0)
            ZBT_EQ_INT(zb_buf_putc(&path, '/'), ZB_OK);
        ZBT_OK_CTX(ice_partition_path_field(&path, &ctx, names[i], &t,
                                            &vals[i]), &ctx);
    }
    ZBT_EQ_STR(zb_buf_cstr(&path),
               "p_bool=true/p_int=1/p_bigint=11/p_float=1.1/p_double=2.222/"
               "p_decimal=123.321/p_date=2022-02-22/p_string=impala");
    zb_buf_free(&path);
}

const zbt_case test_table_partfix[] = {
    ZBT_CASE(test_table_partfix__spark_bucket_and_date),
    ZBT_CASE(test_table_partfix__spark_bounds),
    ZBT_CASE(test_table_partfix__impala_hour),
    ZBT_CASE(test_table_partfix__hive_identity_all_types),
    ZBT_END
};

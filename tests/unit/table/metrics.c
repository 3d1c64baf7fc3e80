/*
 * Iceberg data-file metrics from the Parquet writer's per-leaf metrics
 * (src/table/metrics/file_metrics.c): metrics modes and their table properties,
 * truncation of strings by code points and binary by bytes, the upper
 * bound's increment with its carry and the case where there is none,
 * NaN and -0.0, decimals, nanosecond timestamps, fields inside lists.
 * The writer's side of the same numbers is checked by DuckDB in
 * tests/interop/compare_stats.mjs.
 */
#include <string.h>

#include "table/metrics/file_metrics.h"
#include "util/arena.h"
#include "zbtest.h"

/* ---- a hand-made schema and writer result ---- */

enum { N_LEAVES = 9 };

typedef struct fixture {
    ice_type t_int, t_str, t_dbl, t_dec, t_tsns, t_long, t_list, t_bin,
        t_flt, t_struct, t_x;
    ice_field top[9], inner[1];
    ice_type root;
    ice_schema schema;
    pq_leaf_metrics leaves[N_LEAVES];
    int64_t splits[2];
    pq_write_result r;
    uint8_t b_int_min[4], b_int_max[4], b_dbl_min[8], b_dbl_max[8];
    uint8_t b_dec_min[4], b_dec_max[4], b_ts_min[8], b_ts_max[8];
    uint8_t b_l_min[8], b_l_max[8], b_x_min[8], b_x_max[8];
} fixture;

/* 20 code points: a é € 😀 then 16 ASCII letters. */
static const char STR_MIN[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                              "bcdefghijklmnopq";
/* "zz€😀" + "rstuvwxyzabcdefg" */
static const char STR_MAX[] = "zz\xe2\x82\xac\xf0\x9f\x98\x80"
                              "rstuvwxyzabcdefg";
static const uint8_t BIN_MIN[] = { 0x00, 0x10 };
static const uint8_t BIN_MAX[] = { 0xFF, 0xFF, 0x01, 0x02 };

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void le64(uint8_t *p, uint64_t v)
{
    le32(p, (uint32_t)v);
    le32(p + 4, (uint32_t)(v >> 32));
}

static void prim(ice_type *t, ice_type_id id)
{
    memset(t, 0, sizeof *t);
    t->id = t->prim.id = id;
}

static void field(ice_field *f, int32_t id, const char *name,
                  const ice_type *t)
{
    memset(f, 0, sizeof *f);
    f->id = id;
    f->name = name;
    f->type = t;
}

static pq_leaf_metrics *leaf(fixture *fx, size_t i, int32_t id, pq_type type,
                             int64_t values, int64_t nulls)
{
    pq_leaf_metrics *m = &fx->leaves[i];

    memset(m, 0, sizeof *m);
    m->field_id = id;
    m->type = type;
    m->value_count = values;
    m->null_count = nulls;
    m->nan_count = -1;
    m->column_bytes = 100 + (uint64_t)i;
    return m;
}

static void bounds(pq_leaf_metrics *m, const void *lo, size_t lo_len,
                   const void *hi, size_t hi_len)
{
    m->has_bounds = 1;
    m->min = lo;
    m->min_len = lo_len;
    m->max = hi;
    m->max_len = hi_len;
}

static void setup(fixture *fx)
{
    pq_leaf_metrics *m;
    double nz = -0.0, pz = 0.0;
    uint64_t u;

    memset(fx, 0, sizeof *fx);
    prim(&fx->t_int, ICE_INT);
    prim(&fx->t_str, ICE_STRING);
    prim(&fx->t_dbl, ICE_DOUBLE);
    prim(&fx->t_dec, ICE_DECIMAL);
    fx->t_dec.prim.precision = 9;
    fx->t_dec.prim.scale = 2;
    prim(&fx->t_tsns, ICE_TIMESTAMP_NS);
    prim(&fx->t_long, ICE_LONG);
    memset(&fx->t_list, 0, sizeof fx->t_list);
    fx->t_list.id = ICE_LIST;
    fx->t_list.element_id = 7;
    fx->t_list.element = &fx->t_long;
    prim(&fx->t_bin, ICE_BINARY);
    prim(&fx->t_flt, ICE_FLOAT);
    prim(&fx->t_x, ICE_LONG);
    field(&fx->inner[0], 11, "x", &fx->t_x);
    memset(&fx->t_struct, 0, sizeof fx->t_struct);
    fx->t_struct.id = ICE_STRUCT;
    fx->t_struct.n_fields = 1;
    fx->t_struct.fields = fx->inner;
    field(&fx->top[0], 1, "i", &fx->t_int);
    field(&fx->top[1], 2, "s", &fx->t_str);
    field(&fx->top[2], 3, "d", &fx->t_dbl);
    field(&fx->top[3], 4, "dec", &fx->t_dec);
    field(&fx->top[4], 5, "ts", &fx->t_tsns);
    field(&fx->top[5], 6, "l", &fx->t_list);
    field(&fx->top[6], 8, "b", &fx->t_bin);
    field(&fx->top[7], 9, "f", &fx->t_flt);
    field(&fx->top[8], 10, "st", &fx->t_struct);
    fx->root.id = ICE_STRUCT;
    fx->root.n_fields = 9;
    fx->root.fields = fx->top;
    fx->schema.root = &fx->root;

    m = leaf(fx, 0, 1, PQ_INT32, 10, 1);
    le32(fx->b_int_min, (uint32_t)-5);
    le32(fx->b_int_max, 7);
    bounds(m, fx->b_int_min, 4, fx->b_int_max, 4);

    m = leaf(fx, 1, 2, PQ_BYTE_ARRAY, 10, 0);
    m->logical.kind = PQ_LT_STRING;
    bounds(m, STR_MIN, sizeof STR_MIN - 1, STR_MAX, sizeof STR_MAX - 1);

    m = leaf(fx, 2, 3, PQ_DOUBLE, 10, 0);
    m->nan_count = 2;
    memcpy(&u, &nz, 8);
    le64(fx->b_dbl_min, u);
    memcpy(&u, &pz, 8);
    le64(fx->b_dbl_max, u);
    bounds(m, fx->b_dbl_min, 8, fx->b_dbl_max, 8);

    m = leaf(fx, 3, 4, PQ_INT32, 10, 0);
    m->logical.kind = PQ_LT_DECIMAL;
    m->logical.precision = 9;
    m->logical.scale = 2;
    le32(fx->b_dec_min, (uint32_t)-150);
    le32(fx->b_dec_max, 12345);
    bounds(m, fx->b_dec_min, 4, fx->b_dec_max, 4);

    m = leaf(fx, 4, 5, PQ_INT64, 10, 0);
    m->logical.kind = PQ_LT_TIMESTAMP;
    m->logical.unit = PQ_UNIT_NANOS;
    le64(fx->b_ts_min, 1500);
    le64(fx->b_ts_max, 2500);
    bounds(m, fx->b_ts_min, 8, fx->b_ts_max, 8);

    m = leaf(fx, 5, 7, PQ_INT64, 25, 3);
    m->in_repeated = 1;
    le64(fx->b_l_min, 1);
    le64(fx->b_l_max, 9);
    bounds(m, fx->b_l_min, 8, fx->b_l_max, 8);

    m = leaf(fx, 6, 8, PQ_BYTE_ARRAY, 10, 0);
    bounds(m, BIN_MIN, sizeof BIN_MIN, BIN_MAX, sizeof BIN_MAX);

    m = leaf(fx, 7, 9, PQ_FLOAT, 10, 7);
    m->nan_count = 3;          /* only NaN and nulls: no bounds */

    m = leaf(fx, 8, 11, PQ_INT64, 10, 0);
    le64(fx->b_x_min, (uint64_t)-3);
    le64(fx->b_x_max, 3);
    bounds(m, fx->b_x_min, 8, fx->b_x_max, 8);

    fx->splits[0] = 4;
    fx->splits[1] = 5000;
    fx->r.file_bytes = 9000;
    fx->r.rows = 10;
    fx->r.row_groups = 2;
    fx->r.leaves = fx->leaves;
    fx->r.n_leaves = N_LEAVES;
    fx->r.split_offsets = fx->splits;
    fx->r.n_split_offsets = 2;
}

static const ice_column_metrics *col(const ice_data_file_metrics *dm,
                                     int32_t id)
{
    size_t i;

    for (i = 0; i < dm->n_columns; i++)
        if (dm->columns[i].field_id == id)
            return &dm->columns[i];
    return NULL;
}

static int bytes_eq(const uint8_t *p, size_t n, const void *want,
                    size_t want_len)
{
    return p && n == want_len && memcmp(p, want, n) == 0;
}

/* Runs the conversion with properties kv (NULL-terminated pairs). */
static void run(ice_data_file_metrics *dm, zb_arena *a, fixture *fx,
                const char *const *kv, const ice_sort_order *order)
{
    ice_kv props[8];
    size_t n = 0;
    ice_metrics_config cfg;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    while (kv && kv[2 * n]) {
        props[n].key = kv[2 * n];
        props[n].value = kv[2 * n + 1];
        n++;
    }
    ice_metrics_config_init(&cfg, &fx->schema, order, props, n);
    ZBT_OK_CTX(ice_metrics_from_parquet(dm, &ctx, a, &cfg, &fx->r), &ctx);
}

/* ---- cases ---- */

static void test_table_metrics__mode_parse(void)
{
    ice_metrics_mode m;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metrics_mode_parse(&m, &ctx, "none"), &ctx);
    ZBT_EQ_INT(m.kind, ICE_METRICS_NONE);
    ZBT_OK_CTX(ice_metrics_mode_parse(&m, &ctx, "Counts"), &ctx);
    ZBT_EQ_INT(m.kind, ICE_METRICS_COUNTS);
    ZBT_OK_CTX(ice_metrics_mode_parse(&m, &ctx, "FULL"), &ctx);
    ZBT_EQ_INT(m.kind, ICE_METRICS_FULL);
    ZBT_OK_CTX(ice_metrics_mode_parse(&m, &ctx, "truncate(3)"), &ctx);
    ZBT_EQ_INT(m.kind, ICE_METRICS_TRUNCATE);
    ZBT_EQ_INT(m.length, 3);
    ZBT_RC(ice_metrics_mode_parse(&m, &ctx, "truncate(0)"), ZB_EINVAL);
    ZBT_RC(ice_metrics_mode_parse(&m, &ctx, "truncate()"), ZB_EINVAL);
    ZBT_RC(ice_metrics_mode_parse(&m, &ctx, "truncate(-1)"), ZB_EINVAL);
    ZBT_RC(ice_metrics_mode_parse(&m, &ctx, "truncate(4"), ZB_EINVAL);
    ZBT_RC(ice_metrics_mode_parse(&m, &ctx, "all"), ZB_EINVAL);
}

static void test_table_metrics__truncate_string_by_code_points(void)
{
    const uint8_t *s = (const uint8_t *)STR_MIN;
    uint8_t out[64];
    size_t n;
    long k;

    /* a, é (2 bytes), € (3), 😀 (4): cuts fall between characters. */
    ice_metrics_truncate_string_min(&n, s, sizeof STR_MIN - 1, 1);
    ZBT_EQ_U64(n, 1);
    ice_metrics_truncate_string_min(&n, s, sizeof STR_MIN - 1, 2);
    ZBT_EQ_U64(n, 3);
    ice_metrics_truncate_string_min(&n, s, sizeof STR_MIN - 1, 3);
    ZBT_EQ_U64(n, 6);
    ice_metrics_truncate_string_min(&n, s, sizeof STR_MIN - 1, 4);
    ZBT_EQ_U64(n, 10);
    ice_metrics_truncate_string_min(&n, s, sizeof STR_MIN - 1, 100);
    ZBT_EQ_U64(n, sizeof STR_MIN - 1);
    /* Upper: "a\u00e9\u20ac" -> "a\u00e9\u20ad". */
    k = ice_metrics_truncate_string_max(out, s, sizeof STR_MIN - 1, 3, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "a\xc3\xa9\xe2\x82\xad", 6));
    /* "a\u00e9\U0001F600" -> last code point + 1 = U+1F601. */
    k = ice_metrics_truncate_string_max(out, s, 10, 3, 1);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "a\xc3\xa9\xe2\x82\xad", 6));
    k = ice_metrics_truncate_string_max(out, s, sizeof STR_MIN - 1, 4, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x81",
                       10));
    /* Short enough: unchanged, no increment. */
    k = ice_metrics_truncate_string_max(out, (const uint8_t *)"ab", 2, 16, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "ab", 2));
    /* Short but known to be a prefix: incremented. */
    k = ice_metrics_truncate_string_max(out, (const uint8_t *)"ab", 2, 16, 1);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "ac", 2));
    /* A prefix cut inside "€" drops the partial character first. */
    k = ice_metrics_truncate_string_max(out, s, 5, 16, 1);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "a\xc3\xaa", 3));
    /* U+D7FF increments past the surrogates to U+E000. */
    k = ice_metrics_truncate_string_max(out, (const uint8_t *)"\xed\x9f\xbfz",
                                        4, 1, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "\xee\x80\x80", 3));
}

static void test_table_metrics__upper_bound_carry_and_drop(void)
{
    uint8_t out[64];
    long k;
    /* "b" U+10FFFF "x": the max code point carries into "b". */
    static const char carry[] = "ab\xf4\x8f\xbf\xbfx";
    static const char none[] = "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbfz";
    static const uint8_t bin[] = { 0x01, 0xFF, 0xFF, 0x05 };
    static const uint8_t ff[] = { 0xFF, 0xFF, 0x00 };

    k = ice_metrics_truncate_string_max(out, (const uint8_t *)carry,
                                        sizeof carry - 1, 3, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "ac", 2));
    k = ice_metrics_truncate_string_max(out, (const uint8_t *)none,
                                        sizeof none - 1, 2, 0);
    ZBT_EQ_INT(k, -1);
    k = ice_metrics_truncate_binary_max(out, bin, sizeof bin, 3, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, "\x02", 1));
    k = ice_metrics_truncate_binary_max(out, ff, sizeof ff, 2, 0);
    ZBT_EQ_INT(k, -1);
    k = ice_metrics_truncate_binary_max(out, ff, sizeof ff, 3, 0);
    ZBT_CHECK(bytes_eq(out, (size_t)k, ff, 3));
}

static void test_table_metrics__default_truncate_16(void)
{
    static const uint8_t dec_min[] = { 0xFF, 0x6A }, dec_max[] = { 0x30,
                                                                    0x39 };
    ice_data_file_metrics dm;
    const ice_column_metrics *c;
    zb_arena *a = NULL;
    fixture fx;
    uint8_t w[8];
    double nz = -0.0, pz = 0.0;
    uint64_t u;

    setup(&fx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    run(&dm, a, &fx, NULL, NULL);
    ZBT_EQ_INT(dm.record_count, 10);
    ZBT_EQ_INT(dm.file_size_bytes, 9000);
    ZBT_EQ_U64(dm.n_split_offsets, 2);
    ZBT_EQ_INT(dm.split_offsets[1], 5000);
    ZBT_EQ_U64(dm.n_columns, N_LEAVES);
    for (u = 1; u < dm.n_columns; u++)
        ZBT_CHECK(dm.columns[u - 1].field_id < dm.columns[u].field_id);
    /* int */
    ZBT_CHECK((c = col(&dm, 1)) != NULL);
    ZBT_CHECK(c->has_column_size && c->column_size == 100);
    ZBT_CHECK(c->has_value_count && c->value_count == 10);
    ZBT_CHECK(c->has_null_count && c->null_count == 1);
    ZBT_CHECK(!c->has_nan_count);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, fx.b_int_min, 4));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, fx.b_int_max, 4));
    /* string: 16 code points, the upper one incremented */
    c = col(&dm, 2);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, STR_MIN, 22));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len,
                       "zz\xe2\x82\xac\xf0\x9f\x98\x80rstuvwxyzabd", 21));
    /* double: -0.0 and 0.0 as they are; NaN only counted */
    c = col(&dm, 3);
    ZBT_CHECK(c->has_nan_count && c->nan_count == 2);
    memcpy(&u, &nz, 8);
    le64(w, u);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, w, 8));
    memcpy(&u, &pz, 8);
    le64(w, u);
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, w, 8));
    /* decimal(9,2) from INT32: minimal big-endian two's complement */
    c = col(&dm, 4);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, dec_min, 2));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, dec_max, 2));
    /* timestamp_ns from nanoseconds: kept */
    c = col(&dm, 5);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, fx.b_ts_min, 8));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, fx.b_ts_max, 8));
    /* list element: counts, no bounds */
    c = col(&dm, 7);
    ZBT_CHECK(c && c->value_count == 25 && c->null_count == 3);
    ZBT_CHECK(c->lower == NULL && c->upper == NULL);
    /* binary shorter than 16 bytes: whole */
    c = col(&dm, 8);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, BIN_MIN, 2));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, BIN_MAX, 4));
    /* float of only NaN: a NaN count, no bounds */
    c = col(&dm, 9);
    ZBT_CHECK(c->has_nan_count && c->nan_count == 3 && c->lower == NULL);
    /* a field in a struct keeps bounds */
    c = col(&dm, 11);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, fx.b_x_min, 8));
    zb_arena_free(a);
}

static void test_table_metrics__modes_from_properties(void)
{
    static const char *const counts[] = {
        "write.metadata.metrics.default", "counts",
        "write.metadata.metrics.column.b", "truncate(1)",
        "write.metadata.metrics.column.s", "truncate(2)",
        "write.metadata.metrics.column.st.x", "none",
        "write.metadata.metrics.column.l.element", "full", NULL
    };
    static const char *const full[] = {
        "write.metadata.metrics.default", "full",
        "write.metadata.metrics.column.i", "bogus", NULL
    };
    ice_data_file_metrics dm;
    const ice_column_metrics *c;
    zb_arena *a = NULL;
    fixture fx;

    setup(&fx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    run(&dm, a, &fx, counts, NULL);
    c = col(&dm, 1);
    ZBT_CHECK(c && c->has_value_count && c->lower == NULL);
    ZBT_CHECK(col(&dm, 11) == NULL);           /* none: not even sizes */
    c = col(&dm, 3);
    ZBT_CHECK(c->has_nan_count && c->lower == NULL);
    /* string truncate(2): "a\u00e9" and "z{" */
    c = col(&dm, 2);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, "a\xc3\xa9", 3));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, "z{", 2));
    /* binary truncate(1): 0xFF cannot be incremented: no upper bound */
    c = col(&dm, 8);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, "\x00", 1));
    ZBT_CHECK(c->upper == NULL);
    /* full on a list element still has no bounds */
    c = col(&dm, 7);
    ZBT_CHECK(c && c->has_value_count && c->lower == NULL);

    run(&dm, a, &fx, full, NULL);
    c = col(&dm, 2);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, STR_MIN, sizeof STR_MIN - 1));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, STR_MAX, sizeof STR_MAX - 1));
    /* an invalid column mode falls back to the default (full) */
    c = col(&dm, 1);
    ZBT_CHECK(c && c->lower != NULL);
    zb_arena_free(a);
}

static void test_table_metrics__max_inferred_columns(void)
{
    static const char *const two[] = {
        "write.metadata.metrics.max-inferred-column-defaults", "2", NULL
    };
    static const char *const two_default[] = {
        "write.metadata.metrics.max-inferred-column-defaults", "2",
        "write.metadata.metrics.default", "truncate(16)", NULL
    };
    ice_data_file_metrics dm;
    zb_arena *a = NULL;
    ice_sort_field sf;
    ice_sort_order order;
    fixture fx;

    setup(&fx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    /* 9 top-level columns > 2: only i and s (the first two) get metrics */
    run(&dm, a, &fx, two, NULL);
    ZBT_EQ_U64(dm.n_columns, 2);
    ZBT_CHECK(col(&dm, 1) && col(&dm, 2) && col(&dm, 2)->lower);
    /* an explicit default lifts the limit */
    run(&dm, a, &fx, two_default, NULL);
    ZBT_EQ_U64(dm.n_columns, N_LEAVES);
    /* a sorted column (identity) is raised to truncate(16) */
    memset(&sf, 0, sizeof sf);
    sf.source_id = 11;
    sf.transform = "identity";
    memset(&order, 0, sizeof order);
    order.order_id = 1;
    order.n_fields = 1;
    order.fields = &sf;
    run(&dm, a, &fx, two, &order);
    ZBT_EQ_U64(dm.n_columns, 3);
    ZBT_CHECK(col(&dm, 11) && col(&dm, 11)->lower);
    zb_arena_free(a);
}

static void test_table_metrics__timestamps_and_prefix_bounds(void)
{
    ice_data_file_metrics dm;
    const ice_column_metrics *c;
    zb_arena *a = NULL;
    fixture fx;
    uint8_t w[8];
    static const char *const full[] = {
        "write.metadata.metrics.default", "full", NULL
    };

    setup(&fx);
    ZBT_EQ_INT(zb_arena_new(&a, 1 << 20), ZB_OK);
    /* nanoseconds into a microsecond timestamp: floor, then ceiling */
    prim(&fx.t_tsns, ICE_TIMESTAMPTZ);
    /* the writer kept only a prefix of the string bounds */
    fx.leaves[1].min_truncated = fx.leaves[1].max_truncated = 1;
    fx.leaves[1].min_len = 5;        /* "a\u00e9" + half of "€" */
    fx.leaves[1].max_len = 2;        /* "zz" */
    run(&dm, a, &fx, full, NULL);
    c = col(&dm, 5);
    le64(w, 1);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, w, 8));
    le64(w, 3);
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, w, 8));
    c = col(&dm, 2);
    ZBT_CHECK(bytes_eq(c->lower, c->lower_len, "a\xc3\xa9", 3));
    ZBT_CHECK(bytes_eq(c->upper, c->upper_len, "z{", 2));
    zb_arena_free(a);
}

const zbt_case test_table_metrics[] = {
    ZBT_CASE(test_table_metrics__mode_parse),
    ZBT_CASE(test_table_metrics__truncate_string_by_code_points),
    ZBT_CASE(test_table_metrics__upper_bound_carry_and_drop),
    ZBT_CASE(test_table_metrics__default_truncate_16),
    ZBT_CASE(test_table_metrics__modes_from_properties),
    ZBT_CASE(test_table_metrics__max_inferred_columns),
    ZBT_CASE(test_table_metrics__timestamps_and_prefix_bounds),
    ZBT_END
};

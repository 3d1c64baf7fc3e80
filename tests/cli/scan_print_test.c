/*
 * tests/cli/scan_print_test.c - the Arrow batch printer of `zamboni scan`
 * (src/cli/verbs/scan_print.c) on hand-built batches: every primitive the row
 * stream produces, in Appendix D form (spec examples: "14.20", "2017-11-16",
 * hex binary, lowercase uuid), nulls, NaN, nested structs keyed by field
 * id, lists, maps as {"keys", "values"}, array offsets, RFC 4180 CSV
 * quoting, and batches whose shape disagrees with their schema. The
 * fixtures have no nested columns, so this is where nesting is checked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs/scan_print.h"
#include "util/alloc.h"
#include "zbtest.h"

/* ---- building arrays ---- */

static void *buf_of(const void *src, size_t n)
{
    void *p = zb_malloc(n ? n : 1);

    ZBT_CHECK(p != NULL);
    if (n)
        memcpy(p, src, n);
    return p;
}

/* A child of parent at index k: format, name, optional field id. */
static struct ArrowSchema *schema_child(struct ArrowSchema *parent, int64_t k,
                                        const char *format, const char *name,
                                        const char *field_id, int64_t n_children)
{
    const char *kv[] = { "PARQUET:field_id", field_id, NULL };
    char *md = NULL;
    size_t md_len = 0;

    if (field_id)
        ZBT_EQ_INT(zb_arrow_metadata(&md, &md_len, kv), 0);
    ZBT_EQ_INT(zb_arrow_schema_init(parent->children[k], format, name, md,
                                    md_len, ARROW_FLAG_NULLABLE, n_children), 0);
    zb_free(md);
    return parent->children[k];
}

/* An array of length n with validity (NULL: all valid) and one data buffer. */
static void fixed_array(struct ArrowArray *a, int64_t n, const uint8_t *valid,
                        const void *data, size_t data_bytes)
{
    int64_t nulls = 0, i;

    ZBT_EQ_INT(zb_arrow_array_init(a, 2, 0), 0);
    a->length = n;
    if (valid) {
        a->buffers[0] = buf_of(valid, (size_t)(n + 7) / 8);
        for (i = 0; i < n; i++)
            nulls += !zb_arrow_bit(valid, i);
    }
    a->null_count = nulls;
    a->buffers[1] = buf_of(data, data_bytes);
}

static void string_array(struct ArrowArray *a, int64_t n, const uint8_t *valid,
                         const int32_t *offsets, const char *chars)
{
    int64_t nulls = 0, i;

    ZBT_EQ_INT(zb_arrow_array_init(a, 3, 0), 0);
    a->length = n;
    if (valid) {
        a->buffers[0] = buf_of(valid, (size_t)(n + 7) / 8);
        for (i = 0; i < n; i++)
            nulls += !zb_arrow_bit(valid, i);
    }
    a->null_count = nulls;
    a->buffers[1] = buf_of(offsets, (size_t)(n + 1) * 4);
    a->buffers[2] = buf_of(chars, (size_t)offsets[n]);
}

static void top(struct ArrowSchema *s, struct ArrowArray *a, int64_t n_cols,
                int64_t rows)
{
    ZBT_EQ_INT(zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, n_cols), 0);
    ZBT_EQ_INT(zb_arrow_array_init(a, 1, n_cols), 0);
    a->length = rows;
}

/* Prints batch in fmt (with the CSV header) into a string (free()). */
static char *print(zb_scan_format fmt, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int *rc_out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    zb_ctx ctx;
    int rc;

    ZBT_CHECK(fp != NULL);
    zb_ctx_init(&ctx);
    rc = zb_scan_print_header(fp, &ctx, fmt, s);
    if (rc == 0)
        rc = zb_scan_print_batch(fp, &ctx, fmt, s, a);
    fclose(fp);
    *rc_out = rc;
    if (rc < 0) {
        free(text);
        return strdup(ctx.err.msg);
    }
    return text;
}

/* ---- cases ---- */

static void test_cli_scan_print__primitives(void)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    const uint8_t v101 = 0x5;   /* rows 0 and 2 valid */
    const int32_t ints[] = { 1, 0, -3 };
    const int64_t longs[] = { INT64_MIN, 0, 9007199254740993LL };
    const float floats[] = { 1.5f, NAN, -0.0f };
    const double doubles[] = { 0.1, INFINITY, 1e300 };
    const int64_t dec[] = { 1420, 0, -5, -1, 0, 0 };   /* 128-bit LE */
    const int32_t dates[] = { 17486, 0, -1 };
    const int64_t times[] = { 81068123456LL, 0, 1 };
    const int64_t ts[] = { 1510871468123456LL, 0, -1 };
    const int64_t tsn[] = { 1510871468123456789LL, 0, 1 };
    const int32_t soff[] = { 0, 5, 5, 6 };
    const int32_t boff[] = { 0, 4, 4, 4 };
    uint8_t uuid[48] = { 0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                         0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7 };
    const uint8_t bools = 0x1;
    const char *const uuid_md[] = { "ARROW:extension:name", "arrow.uuid", NULL };
    char *md = NULL, *out;
    size_t md_len = 0;
    int rc;

    top(&s, &a, 13, 3);
    schema_child(&s, 0, "i", "i", "1", 0);
    fixed_array(a.children[0], 3, &v101, ints, sizeof ints);
    schema_child(&s, 1, "l", "l", "2", 0);
    fixed_array(a.children[1], 3, NULL, longs, sizeof longs);
    schema_child(&s, 2, "f", "f", "3", 0);
    fixed_array(a.children[2], 3, NULL, floats, sizeof floats);
    schema_child(&s, 3, "g", "g", "4", 0);
    fixed_array(a.children[3], 3, NULL, doubles, sizeof doubles);
    schema_child(&s, 4, "d:9,2", "dec", "5", 0);
    fixed_array(a.children[4], 3, NULL, dec, sizeof dec);
    schema_child(&s, 5, "tdD", "date", "6", 0);
    fixed_array(a.children[5], 3, NULL, dates, sizeof dates);
    schema_child(&s, 6, "ttu", "time", "7", 0);
    fixed_array(a.children[6], 3, NULL, times, sizeof times);
    schema_child(&s, 7, "tsu:UTC", "tstz", "8", 0);
    fixed_array(a.children[7], 3, NULL, ts, sizeof ts);
    schema_child(&s, 8, "tsn:", "tsns", "9", 0);
    fixed_array(a.children[8], 3, NULL, tsn, sizeof tsn);
    schema_child(&s, 9, "u", "s", "10", 0);
    string_array(a.children[9], 3, &v101, soff, "a\"b\xc3\xa9\n");
    schema_child(&s, 10, "z", "bin", "11", 0);
    string_array(a.children[10], 3, NULL, boff, "\x00\x01\x02\xff");
    ZBT_EQ_INT(zb_arrow_metadata(&md, &md_len, uuid_md), 0);
    ZBT_EQ_INT(zb_arrow_schema_init(s.children[11], "w:16", "id", md, md_len,
                                    ARROW_FLAG_NULLABLE, 0), 0);
    zb_free(md);
    fixed_array(a.children[11], 3, NULL, uuid, sizeof uuid);
    schema_child(&s, 12, "b", "ok", "13", 0);
    fixed_array(a.children[12], 3, NULL, &bools, 1);

    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    if (getenv("ZBT_SHOW"))
        fprintf(stderr, "%s\n", out);
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_STR(out,
        "{\"i\":1,\"l\":-9223372036854775808,\"f\":1.5,\"g\":0.1,"
        "\"dec\":\"14.20\",\"date\":\"2017-11-16\",\"time\":\"22:31:08.123456\","
        "\"tstz\":\"2017-11-16T22:31:08.123456+00:00\","
        "\"tsns\":\"2017-11-16T22:31:08.123456789\",\"s\":\"a\\\"b\xc3\xa9\","
        "\"bin\":\"000102ff\",\"id\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\","
        "\"ok\":true}\n"
        "{\"i\":null,\"l\":0,\"f\":\"NaN\",\"g\":\"Infinity\",\"dec\":\"-0.05\","
        "\"date\":\"1970-01-01\",\"time\":\"00:00:00.000000\","
        "\"tstz\":\"1970-01-01T00:00:00.000000+00:00\","
        "\"tsns\":\"1970-01-01T00:00:00.000000000\",\"s\":null,\"bin\":\"\","
        "\"id\":\"00000000-0000-0000-0000-000000000000\",\"ok\":false}\n"
        "{\"i\":-3,\"l\":9007199254740993,\"f\":-0.0,\"g\":1.0E300,"
        "\"dec\":\"0.00\",\"date\":\"1969-12-31\",\"time\":\"00:00:00.000001\","
        "\"tstz\":\"1969-12-31T23:59:59.999999+00:00\","
        "\"tsns\":\"1970-01-01T00:00:00.000000001\",\"s\":\"\\n\",\"bin\":\"\","
        "\"id\":\"00000000-0000-0000-0000-000000000000\",\"ok\":false}\n");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

/* One row: a struct {5: x int, 6: y string}, a list of ints, a map. */
static void nested_batch(struct ArrowSchema *s, struct ArrowArray *a)
{
    struct ArrowSchema *st, *ls, *ms, *es;
    struct ArrowArray *sa, *la, *ma, *ea;
    const int32_t x[] = { 7, 8 }, elems[] = { 1, 2, 3 };
    const int32_t loff[] = { 0, 0, 3 }, moff[] = { 0, 0, 2 };
    const int32_t yoff[] = { 0, 1, 4 }, koff[] = { 0, 1, 3 };
    const int32_t vals[] = { 10, 20 };
    const uint8_t v10 = 0x2;   /* row 1 valid only */

    top(s, a, 3, 2);
    st = schema_child(s, 0, "+s", "st", "1", 2);
    schema_child(st, 0, "i", "x", "5", 0);
    schema_child(st, 1, "u", "y", "6", 0);
    sa = a->children[0];
    ZBT_EQ_INT(zb_arrow_array_init(sa, 1, 2), 0);
    sa->length = 2;
    fixed_array(sa->children[0], 2, NULL, x, sizeof x);
    string_array(sa->children[1], 2, NULL, yoff, "a,\"b");

    ls = schema_child(s, 1, "+l", "li", "2", 1);
    schema_child(ls, 0, "i", "element", "7", 0);
    la = a->children[1];
    ZBT_EQ_INT(zb_arrow_array_init(la, 2, 1), 0);
    la->length = 2;
    la->null_count = 1;
    la->buffers[0] = buf_of(&v10, 1);
    la->buffers[1] = buf_of(loff, sizeof loff);
    fixed_array(la->children[0], 3, NULL, elems, sizeof elems);

    ms = schema_child(s, 2, "+m", "m", "3", 1);
    es = schema_child(ms, 0, "+s", "entries", NULL, 2);
    schema_child(es, 0, "u", "key", "8", 0);
    schema_child(es, 1, "i", "value", "9", 0);
    ma = a->children[2];
    ZBT_EQ_INT(zb_arrow_array_init(ma, 2, 1), 0);
    ma->length = 2;
    ma->buffers[1] = buf_of(moff, sizeof moff);
    ea = ma->children[0];
    ZBT_EQ_INT(zb_arrow_array_init(ea, 1, 2), 0);
    ea->length = 2;
    string_array(ea->children[0], 2, NULL, koff, "abc");
    fixed_array(ea->children[1], 2, NULL, vals, sizeof vals);
}

static void test_cli_scan_print__nested(void)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    char *out;
    int rc;

    nested_batch(&s, &a);
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_STR(out,
        "{\"st\":{\"5\":7,\"6\":\"a\"},\"li\":null,"
        "\"m\":{\"keys\":[],\"values\":[]}}\n"
        "{\"st\":{\"5\":8,\"6\":\",\\\"b\"},\"li\":[1,2,3],"
        "\"m\":{\"keys\":[\"a\",\"bc\"],\"values\":[10,20]}}\n");
    free(out);

    /* offsets: the batch starts at row 1 */
    a.offset = 1;
    a.length = 1;
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_STR(out,
        "{\"st\":{\"5\":8,\"6\":\",\\\"b\"},\"li\":[1,2,3],"
        "\"m\":{\"keys\":[\"a\",\"bc\"],\"values\":[10,20]}}\n");
    free(out);

    /* CSV: nested values as their JSON text, quoted (they hold commas) */
    a.offset = 0;
    a.length = 2;
    out = print(ZB_SCAN_FORMAT_CSV, &s, &a, &rc);
    ZBT_EQ_INT(rc, 0);
    ZBT_EQ_STR(out,
        "st,li,m\r\n"
        "\"{\"\"5\"\":7,\"\"6\"\":\"\"a\"\"}\",,"
        "\"{\"\"keys\"\":[],\"\"values\"\":[]}\"\r\n"
        "\"{\"\"5\"\":8,\"\"6\"\":\"\",\\\"\"b\"\"}\",\"[1,2,3]\","
        "\"{\"\"keys\"\":[\"\"a\"\",\"\"bc\"\"],\"\"values\"\":[10,20]}\"\r\n");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static void test_cli_scan_print__csv(void)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    const int32_t soff[] = { 0, 0, 0, 5, 9 };
    const uint8_t valid = 0xd;   /* row 1 null */
    const int64_t dec[] = { -1420, -1, 5, 0, 0, 0, 1, 0 };
    char *out;
    int rc;

    top(&s, &a, 2, 4);
    schema_child(&s, 0, "u", "na,me", "1", 0);
    string_array(a.children[0], 4, &valid, soff, "a\"b,cx\r\ny");
    schema_child(&s, 1, "d:38,2", "amount", "2", 0);
    fixed_array(a.children[1], 4, NULL, dec, sizeof dec);
    out = print(ZB_SCAN_FORMAT_CSV, &s, &a, &rc);
    ZBT_EQ_INT(rc, 0);
    /* empty string "" vs null (empty field); quotes doubled */
    ZBT_EQ_STR(out,
        "\"na,me\",amount\r\n"
        "\"\",-14.20\r\n"
        ",0.05\r\n"
        "\"a\"\"b,c\",0.00\r\n"
        "\"x\r\ny\",0.01\r\n");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static void test_cli_scan_print__bad_shapes(void)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    const int32_t ints[] = { 1 };
    const int32_t bad_off[] = { 0, 5 };
    char *out;
    int rc;

    /* a type the printer does not know */
    top(&s, &a, 1, 1);
    schema_child(&s, 0, "tiM", "interval", "1", 0);
    fixed_array(a.children[0], 1, NULL, ints, sizeof ints);
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, ZB_EUNSUPPORTED);
    ZBT_CONTAINS(out, "interval");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);

    /* a column shorter than the batch */
    top(&s, &a, 1, 2);
    schema_child(&s, 0, "i", "x", "1", 0);
    fixed_array(a.children[0], 1, NULL, ints, sizeof ints);
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, ZB_ECORRUPT);
    ZBT_CONTAINS(out, "shorter");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);

    /* list offsets past the child */
    top(&s, &a, 1, 1);
    schema_child(schema_child(&s, 0, "+l", "li", "1", 1), 0, "i", "e", "2", 0);
    ZBT_EQ_INT(zb_arrow_array_init(a.children[0], 2, 1), 0);
    a.children[0]->length = 1;
    a.children[0]->buffers[1] = buf_of(bad_off, sizeof bad_off);
    fixed_array(a.children[0]->children[0], 1, NULL, ints, sizeof ints);
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, ZB_ECORRUPT);
    ZBT_CONTAINS(out, "offsets");
    free(out);
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);

    /* schema and batch disagree on the number of columns */
    top(&s, &a, 1, 0);
    schema_child(&s, 0, "i", "x", "1", 0);
    fixed_array(a.children[0], 0, NULL, ints, 0);
    a.n_children = 0;
    out = print(ZB_SCAN_FORMAT_JSONL, &s, &a, &rc);
    ZBT_EQ_INT(rc, ZB_ECORRUPT);
    free(out);
    a.n_children = 1;
    zb_arrow_array_release(&a);
    zb_arrow_schema_release(&s);
}

static const zbt_case test_cli_scan_print[] = {
    ZBT_CASE(test_cli_scan_print__primitives),
    ZBT_CASE(test_cli_scan_print__nested),
    ZBT_CASE(test_cli_scan_print__csv),
    ZBT_CASE(test_cli_scan_print__bad_shapes),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_cli_scan_print, NULL };

    return zbt_main(argc, argv, suites);
}

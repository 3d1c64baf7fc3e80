/*
 * tests/unit/service/test_size_class.c - size classes (service/
 * size_class.h): the default, the JSON list with its errors naming the
 * entry and field, byte sizes with units, and the choice of a class.
 */
#include <stdio.h>
#include <string.h>

#include "service/size_class.h"
#include "zbtest.h"

#define GIB ((uint64_t)1 << 30)

static void test_service_size_class__default(void)
{
    zb_size_classes cs;

    zb_size_classes_default(&cs);
    ZBT_EQ_INT(cs.n, 1);
    ZBT_EQ_STR(cs.c[0].name, "standard");
    ZBT_EQ_INT(cs.c[0].cores, 2);
    ZBT_EQ_U64(cs.c[0].memory_bytes, 8 * GIB);
    ZBT_EQ_INT(cs.c[0].max_jobs, 2);
    ZBT_CHECK(zb_size_class_for(&cs, 100 * GIB) == &cs.c[0]);
    ZBT_CHECK(zb_size_class_up(&cs, "standard") == &cs.c[0]);
}

static void test_service_size_class__bytes(void)
{
    uint64_t b = 0;

    ZBT_RC(zb_size_parse_bytes(&b, "8Gi"), ZB_OK);
    ZBT_EQ_U64(b, 8 * GIB);
    ZBT_RC(zb_size_parse_bytes(&b, "512Mi"), ZB_OK);
    ZBT_EQ_U64(b, 512ull << 20);
    ZBT_RC(zb_size_parse_bytes(&b, "2G"), ZB_OK);
    ZBT_EQ_U64(b, 2 * GIB);
    ZBT_RC(zb_size_parse_bytes(&b, "1Ti"), ZB_OK);
    ZBT_EQ_U64(b, 1024 * GIB);
    ZBT_RC(zb_size_parse_bytes(&b, "3KiB"), ZB_OK);
    ZBT_EQ_U64(b, 3072);
    ZBT_RC(zb_size_parse_bytes(&b, "1073741824"), ZB_OK);
    ZBT_EQ_U64(b, GIB);
    ZBT_RC(zb_size_parse_bytes(&b, ""), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "Gi"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "8 Gi"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "-1"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "8Xi"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "99999999999999999999"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, "99999999999Ti"), ZB_EUSAGE);
    ZBT_RC(zb_size_parse_bytes(&b, NULL), ZB_EUSAGE);
}

static void test_service_size_class__parse(void)
{
    zb_size_classes cs;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_size_classes_parse_json(&cs, &ctx,
        "[{\"name\":\"xl\",\"cores\":16,\"memory\":\"64Gi\",\"max_jobs\":1},"
        " {\"name\":\"s\",\"cores\":1,\"memory\":4294967296,\"max_jobs\":4},"
        " {\"name\":\"m\",\"cores\":4,\"memory\":\"16G\",\"max_jobs\":2}]",
        "ZAMBONI_SIZE_CLASSES"), &ctx);
    ZBT_EQ_INT(cs.n, 3);
    ZBT_EQ_STR(cs.c[0].name, "s");    /* sorted by memory */
    ZBT_EQ_STR(cs.c[1].name, "m");
    ZBT_EQ_STR(cs.c[2].name, "xl");
    ZBT_EQ_U64(cs.c[0].memory_bytes, 4 * GIB);
    ZBT_EQ_INT(cs.c[0].max_jobs, 4);
    ZBT_EQ_INT(cs.c[2].cores, 16);
    ZBT_CHECK(zb_size_class_find(&cs, "m") == &cs.c[1]);
    ZBT_CHECK(zb_size_class_find(&cs, "nope") == NULL);
    ZBT_CHECK(zb_size_class_for(&cs, 0) == &cs.c[0]);
    ZBT_CHECK(zb_size_class_for(&cs, 4 * GIB) == &cs.c[0]);
    ZBT_CHECK(zb_size_class_for(&cs, 4 * GIB + 1) == &cs.c[1]);
    ZBT_CHECK(zb_size_class_for(&cs, 1000 * GIB) == &cs.c[2]);
    ZBT_CHECK(zb_size_class_up(&cs, "s") == &cs.c[1]);
    ZBT_CHECK(zb_size_class_up(&cs, "m") == &cs.c[2]);
    ZBT_CHECK(zb_size_class_up(&cs, "xl") == &cs.c[2]);
    ZBT_CHECK(zb_size_class_up(&cs, "unknown") == NULL);
}

static void bad(const char *json, const char *want)
{
    zb_size_classes cs;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_RC(zb_size_classes_parse_json(&cs, &ctx, json, "ZAMBONI_SIZE_CLASSES"),
           ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "ZAMBONI_SIZE_CLASSES");
    ZBT_CONTAINS(ctx.err.msg, want);
    ZBT_EQ_INT(cs.n, 0);
}

static void test_service_size_class__errors(void)
{
    char many[4096];
    size_t len;
    int i;

    bad("", "not JSON");
    bad("[{\"name\":", "not JSON");
    bad("{\"name\":\"s\"}", "non-empty JSON list");
    bad("[]", "non-empty JSON list");
    bad("[3]", "size class 1 is not an object");
    bad("[{\"cores\":1,\"memory\":1,\"max_jobs\":1}]", "'name'");
    bad("[{\"name\":\"\",\"cores\":1,\"memory\":1,\"max_jobs\":1}]", "'name'");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":1,\"max_jobs\":1},"
        "{\"name\":\"a\",\"cores\":2,\"memory\":2,\"max_jobs\":1}]",
        "size class 2: its name is size class 1's too");
    bad("[{\"name\":\"a\",\"memory\":1,\"max_jobs\":1}]", "missing 'cores'");
    bad("[{\"name\":\"a\",\"cores\":0,\"memory\":1,\"max_jobs\":1}]",
        "'cores' must be an integer");
    bad("[{\"name\":\"a\",\"cores\":\"2\",\"memory\":1,\"max_jobs\":1}]",
        "'cores' must be an integer");
    bad("[{\"name\":\"a\",\"cores\":1,\"max_jobs\":1}]", "missing 'memory'");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":0,\"max_jobs\":1}]",
        "'memory' must be bytes");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":\"lots\",\"max_jobs\":1}]",
        "'memory' must be bytes");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":-5,\"max_jobs\":1}]",
        "'memory' must be bytes");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":1}]", "missing 'max_jobs'");
    bad("[{\"name\":\"a\",\"cores\":1,\"memory\":1,\"max_jobs\":-1}]",
        "'max_jobs' must be an integer");
    bad("[{\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaa\",\"cores\":1,\"memory\":1,\"max_jobs\":1}]", "longer");
    len = (size_t)snprintf(many, sizeof(many), "[");
    for (i = 0; i < ZB_SIZE_CLASSES_MAX + 1; i++)
        len += (size_t)snprintf(many + len, sizeof(many) - len,
                                "%s{\"name\":\"c%d\",\"cores\":1,\"memory\":%d,"
                                "\"max_jobs\":1}", i ? "," : "", i, i + 1);
    snprintf(many + len, sizeof(many) - len, "]");
    bad(many, "at most 16");
}

const zbt_case test_service_size_class[] = {
    ZBT_CASE(test_service_size_class__default),
    ZBT_CASE(test_service_size_class__bytes),
    ZBT_CASE(test_service_size_class__parse),
    ZBT_CASE(test_service_size_class__errors),
    ZBT_END
};

/*
 * tests/unit/avro/sample.c - the sample schema and its records (see
 * sample.h). Record i is a pure function of i, so a reader can check
 * every value; every sixth record takes the other branch of each union
 * and special floats (NaN, infinities, -0) turn up in a cycle.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sample.h"

const char sample_schema_json[] =
    "{\"type\":\"record\",\"name\":\"sample\",\"namespace\":\"zb.test\","
    "\"doc\":\"every type\",\"fields\":["
    "{\"name\":\"n\",\"type\":\"null\",\"field-id\":1},"
    "{\"name\":\"b\",\"type\":\"boolean\",\"field-id\":2},"
    "{\"name\":\"i\",\"type\":\"int\",\"field-id\":3},"
    "{\"name\":\"l\",\"type\":\"long\",\"field-id\":4},"
    "{\"name\":\"f\",\"type\":\"float\",\"field-id\":5},"
    "{\"name\":\"d\",\"type\":\"double\",\"field-id\":6},"
    "{\"name\":\"by\",\"type\":\"bytes\",\"field-id\":7},"
    "{\"name\":\"s\",\"type\":\"string\",\"field-id\":8,\"doc\":\"text\"},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"color\","
    "\"symbols\":[\"RED\",\"GREEN\",\"BLUE\"]},\"field-id\":9},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"f16\","
    "\"size\":16,\"logicalType\":\"uuid\"},\"field-id\":10},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":"
    "\"timestamp-micros\",\"adjust-to-utc\":true},\"field-id\":11},"
    "{\"name\":\"dec\",\"type\":{\"type\":\"fixed\",\"name\":\"dec9\","
    "\"size\":5,\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2},"
    "\"field-id\":12},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"long\"],\"default\":null,"
    "\"field-id\":13},"
    "{\"name\":\"part\",\"type\":{\"type\":\"record\",\"name\":\"r102\","
    "\"fields\":[{\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\","
    "\"logicalType\":\"date\"}],\"default\":null,\"field-id\":1000},"
    "{\"name\":\"cat\",\"type\":[\"null\",\"string\"],\"default\":null,"
    "\"field-id\":1001}]},\"field-id\":102},"
    "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\","
    "\"element-id\":14},\"field-id\":15},"
    "{\"name\":\"nested\",\"type\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"array\",\"items\":[\"null\",\"int\"],\"element-id\":16},"
    "\"element-id\":17},\"field-id\":18},"
    "{\"name\":\"counts\",\"type\":{\"type\":\"map\",\"values\":\"long\","
    "\"key-id\":19,\"value-id\":20},\"field-id\":21},"
    "{\"name\":\"bounds\",\"type\":[\"null\",{\"type\":\"array\",\"items\":"
    "{\"type\":\"record\",\"name\":\"k22_v23\",\"fields\":[{\"name\":\"key\","
    "\"type\":\"int\",\"field-id\":22},{\"name\":\"value\",\"type\":"
    "\"bytes\",\"field-id\":23}]},\"logicalType\":\"map\"}],\"default\":null,"
    "\"field-id\":24},"
    "{\"name\":\"mm\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"map\","
    "\"values\":[\"null\",\"double\",\"string\"],\"key-id\":25,"
    "\"value-id\":26},\"key-id\":27,\"value-id\":28},\"field-id\":29},"
    "{\"name\":\"u3\",\"type\":[\"null\",\"int\",\"string\",\"color\"],"
    "\"field-id\":30}]}";

#define NFIELDS 20

static zb_avro_value *vals(zb_arena *a, size_t n)
{
    return zb_arena_calloc(a, n ? n : 1, sizeof(zb_avro_value));
}

static void set_str(zb_avro_value *v, const char *s)
{
    v->type = ZB_AVRO_STRING;
    v->v.str.ptr = s;
    v->v.str.len = strlen(s);
}

static zb_avro_value *wrap(zb_arena *a, zb_avro_value *u, int32_t branch,
                           zb_avro_type t)
{
    u->type = ZB_AVRO_UNION;
    u->v.u.branch = branch;
    if ((u->v.u.value = vals(a, 1)) != NULL)
        u->v.u.value->type = t;
    return u->v.u.value;
}

zb_avro_value *sample_record(zb_arena *a, uint64_t i)
{
    static const float fspecial[] = { 1.5f, -0.0f, 3.25e-20f };
    zb_avro_value *r = vals(a, 1), *f = vals(a, NFIELDS), *x, *y;
    uint8_t *bytes;
    char *s;
    size_t k, n;
    int odd = i % 6 == 5;

    if (r == NULL || f == NULL)
        return NULL;
    r->type = ZB_AVRO_RECORD;
    r->v.list.items = f;
    r->v.list.n = NFIELDS;
    f[0].type = ZB_AVRO_NULL;
    f[1].type = ZB_AVRO_BOOLEAN;
    f[1].v.boolean = (int)(i & 1);
    f[2].type = ZB_AVRO_INT;
    f[2].v.i32 = (int32_t)(i * 2654435761u);
    f[3].type = ZB_AVRO_LONG;
    f[3].v.i64 = (int64_t)(i * 0x9e3779b97f4a7c15ULL);
    f[4].type = ZB_AVRO_FLOAT;
    f[4].v.f32 = i % 7 == 3 ? (float)NAN
               : i % 7 == 4 ? (float)-INFINITY
               : fspecial[i % 3] * (float)i;
    f[5].type = ZB_AVRO_DOUBLE;
    f[5].v.f64 = i % 11 == 7 ? INFINITY : (double)i / 3.0 - 1e300 * (i % 2);
    n = i % 9;
    if ((bytes = zb_arena_alloc(a, n + 16 + 5)) == NULL)
        return NULL;
    for (k = 0; k < n + 21; k++)
        bytes[k] = (uint8_t)(i * 31 + k * 7);
    f[6].type = ZB_AVRO_BYTES;
    f[6].v.bytes.ptr = bytes;
    f[6].v.bytes.len = n;
    set_str(&f[7], (s = zb_arena_sprintf(a, "s%llu-\xc3\xa9-\"q\"\\",
                                         (unsigned long long)i)));
    if (s == NULL)
        return NULL;
    f[8].type = ZB_AVRO_ENUM;
    f[8].v.i32 = (int32_t)(i % 3);
    f[9].type = ZB_AVRO_FIXED;
    f[9].v.bytes.ptr = bytes + n;
    f[9].v.bytes.len = 16;
    f[10].type = ZB_AVRO_LONG;
    f[10].v.i64 = (int64_t)i * 1000000 - INT64_C(1) * (int64_t)(i % 2) * INT64_MAX;
    f[11].type = ZB_AVRO_FIXED;
    f[11].v.bytes.ptr = bytes + n + 16;
    f[11].v.bytes.len = 5;
    /* opt */
    if (odd)
        wrap(a, &f[12], 0, ZB_AVRO_NULL);
    else if ((x = wrap(a, &f[12], 1, ZB_AVRO_LONG)) != NULL)
        x->v.i64 = -(int64_t)i;
    /* part */
    f[13].type = ZB_AVRO_RECORD;
    if ((x = f[13].v.list.items = vals(a, 2)) == NULL)
        return NULL;
    f[13].v.list.n = 2;
    if (odd) {
        wrap(a, &x[0], 0, ZB_AVRO_NULL);
        wrap(a, &x[1], 0, ZB_AVRO_NULL);
    } else {
        if ((y = wrap(a, &x[0], 1, ZB_AVRO_INT)) == NULL)
            return NULL;
        y->v.i32 = 19000 + (int32_t)i;
        if ((y = wrap(a, &x[1], 1, ZB_AVRO_STRING)) == NULL)
            return NULL;
        set_str(y, i % 2 ? "odd" : "");
    }
    /* tags: i % 4 strings */
    f[14].type = ZB_AVRO_ARRAY;
    f[14].v.list.n = i % 4;
    if ((x = f[14].v.list.items = vals(a, i % 4)) == NULL)
        return NULL;
    for (k = 0; k < i % 4; k++)
        set_str(&x[k], k % 2 ? "tag-b" : "tag-a");
    /* nested: [[], [null, k], ...] */
    f[15].type = ZB_AVRO_ARRAY;
    f[15].v.list.n = i % 3;
    if ((x = f[15].v.list.items = vals(a, i % 3)) == NULL)
        return NULL;
    for (k = 0; k < i % 3; k++) {
        size_t m;
        x[k].type = ZB_AVRO_ARRAY;
        x[k].v.list.n = k;
        if ((y = x[k].v.list.items = vals(a, k)) == NULL)
            return NULL;
        for (m = 0; m < k; m++) {
            zb_avro_value *z = wrap(a, &y[m], m % 2 ? 1 : 0,
                                    m % 2 ? ZB_AVRO_INT : ZB_AVRO_NULL);
            if (z == NULL)
                return NULL;
            z->v.i32 = (int32_t)(m * 100 + k);
        }
    }
    /* counts: map of i % 3 longs */
    f[16].type = ZB_AVRO_MAP;
    f[16].v.map.n = i % 3;
    if ((f[16].v.map.entries = zb_arena_calloc(a, 3, sizeof(zb_avro_map_entry)))
        == NULL)
        return NULL;
    for (k = 0; k < i % 3; k++) {
        zb_avro_map_entry *me = &f[16].v.map.entries[k];
        me->key = k == 0 ? "a" : k == 1 ? "7" : "\xe2\x82\xac";
        me->key_len = strlen(me->key);
        if ((me->value = vals(a, 1)) == NULL)
            return NULL;
        me->value->type = ZB_AVRO_LONG;
        me->value->v.i64 = (int64_t)(k + 1) * (int64_t)i - 3;
    }
    /* bounds: null or an array of (key, value) records */
    if (odd) {
        wrap(a, &f[17], 0, ZB_AVRO_NULL);
    } else {
        if ((x = wrap(a, &f[17], 1, ZB_AVRO_ARRAY)) == NULL)
            return NULL;
        x->v.list.n = 2;
        if ((y = x->v.list.items = vals(a, 2)) == NULL)
            return NULL;
        for (k = 0; k < 2; k++) {
            zb_avro_value *kv = vals(a, 2);
            if (kv == NULL)
                return NULL;
            y[k].type = ZB_AVRO_RECORD;
            y[k].v.list.items = kv;
            y[k].v.list.n = 2;
            kv[0].type = ZB_AVRO_INT;
            kv[0].v.i32 = (int32_t)k + 1;
            kv[1].type = ZB_AVRO_BYTES;
            kv[1].v.bytes.ptr = bytes;
            kv[1].v.bytes.len = k + 1;
        }
    }
    /* mm: {"outer": {"x": null, "y": double, "z": string}} */
    f[18].type = ZB_AVRO_MAP;
    f[18].v.map.n = i % 2;
    if ((f[18].v.map.entries = zb_arena_calloc(a, 1, sizeof(zb_avro_map_entry)))
        == NULL)
        return NULL;
    if (i % 2) {
        zb_avro_map_entry *me = f[18].v.map.entries, *in;
        me->key = "outer";
        me->key_len = 5;
        if ((me->value = vals(a, 1)) == NULL ||
            (in = zb_arena_calloc(a, 3, sizeof *in)) == NULL)
            return NULL;
        me->value->type = ZB_AVRO_MAP;
        me->value->v.map.entries = in;
        me->value->v.map.n = 3;
        for (k = 0; k < 3; k++) {
            in[k].key = k == 0 ? "x" : k == 1 ? "y" : "z";
            in[k].key_len = 1;
            if ((in[k].value = vals(a, 1)) == NULL ||
                (y = wrap(a, in[k].value, (int32_t)k,
                          k == 0 ? ZB_AVRO_NULL
                          : k == 1 ? ZB_AVRO_DOUBLE : ZB_AVRO_STRING)) == NULL)
                return NULL;
            if (k == 1)
                y->v.f64 = 0.1 * (double)i;
            if (k == 2)
                set_str(y, "deep");
        }
    }
    /* u3: cycles through its four branches */
    switch (i % 4) {
    case 0:
        wrap(a, &f[19], 0, ZB_AVRO_NULL);
        break;
    case 1:
        if ((x = wrap(a, &f[19], 1, ZB_AVRO_INT)) == NULL)
            return NULL;
        x->v.i32 = INT32_MIN + (int32_t)i;
        break;
    case 2:
        if ((x = wrap(a, &f[19], 2, ZB_AVRO_STRING)) == NULL)
            return NULL;
        set_str(x, "u");
        break;
    default:
        if ((x = wrap(a, &f[19], 3, ZB_AVRO_ENUM)) == NULL)
            return NULL;
        x->v.i32 = 2;
        break;
    }
    return r;
}

int sample_equal(const zb_avro_node *node, const zb_avro_value *a,
                 const zb_avro_value *b)
{
    size_t i;

    if (a->type != node->type || b->type != node->type)
        return 0;
    switch (node->type) {
    case ZB_AVRO_NULL:
        return 1;
    case ZB_AVRO_BOOLEAN:
        return !a->v.boolean == !b->v.boolean;
    case ZB_AVRO_INT:
    case ZB_AVRO_ENUM:
        return a->v.i32 == b->v.i32;
    case ZB_AVRO_LONG:
        return a->v.i64 == b->v.i64;
    case ZB_AVRO_FLOAT:
        return memcmp(&a->v.f32, &b->v.f32, 4) == 0;
    case ZB_AVRO_DOUBLE:
        return memcmp(&a->v.f64, &b->v.f64, 8) == 0;
    case ZB_AVRO_BYTES:
    case ZB_AVRO_FIXED:
        return a->v.bytes.len == b->v.bytes.len &&
               (a->v.bytes.len == 0 ||
                memcmp(a->v.bytes.ptr, b->v.bytes.ptr, a->v.bytes.len) == 0);
    case ZB_AVRO_STRING:
        return a->v.str.len == b->v.str.len &&
               memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len) == 0;
    case ZB_AVRO_RECORD:
        for (i = 0; i < node->n; i++)
            if (!sample_equal(node->fields[i].type, &a->v.list.items[i],
                              &b->v.list.items[i]))
                return 0;
        return 1;
    case ZB_AVRO_ARRAY:
        if (a->v.list.n != b->v.list.n)
            return 0;
        for (i = 0; i < a->v.list.n; i++)
            if (!sample_equal(node->items, &a->v.list.items[i],
                              &b->v.list.items[i]))
                return 0;
        return 1;
    case ZB_AVRO_MAP:
        if (a->v.map.n != b->v.map.n)
            return 0;
        for (i = 0; i < a->v.map.n; i++)
            if (strcmp(a->v.map.entries[i].key, b->v.map.entries[i].key) ||
                !sample_equal(node->items, a->v.map.entries[i].value,
                              b->v.map.entries[i].value))
                return 0;
        return 1;
    case ZB_AVRO_UNION:
        return a->v.u.branch == b->v.u.branch &&
               sample_equal(node->branches[a->v.u.branch], a->v.u.value,
                            b->v.u.value);
    }
    return 0;
}

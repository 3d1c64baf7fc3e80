/*
 * libFuzzer target: Roaring bitmaps and deletion-vector blobs from
 * untrusted bytes (src/exec/roaring/roaring_io.c).
 *
 * The first byte chooses the parser: even, zb_roaring_deserialize on the
 * rest; odd, zb_dv_parse. A parser must return ZB_OK, or ZB_ECORRUPT /
 * ZB_ENOMEM with a message, never crash or read out of bounds. On ZB_OK
 * the set is walked: values strictly ascending, each one contained, their
 * count the cardinality, seek landing on each; then it is written and
 * read back, and the copy must hold the same values.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/roaring/roaring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_same(const zb_roaring *a, const zb_roaring *b)
{
    zb_roaring_iter ia, ib;
    uint64_t va, vb;

    if (zb_roaring_cardinality(a) != zb_roaring_cardinality(b))
        abort();
    zb_roaring_iter_init(&ia, a);
    zb_roaring_iter_init(&ib, b);
    while (zb_roaring_iter_next(&ia, &va)) {
        if (!zb_roaring_iter_next(&ib, &vb) || va != vb)
            abort();
    }
    if (zb_roaring_iter_next(&ib, &vb))
        abort();
}

static void walk(const zb_roaring *r)
{
    zb_roaring_iter it, seek;
    uint64_t v, prev = 0, count = 0, got;

    zb_roaring_iter_init(&it, r);
    zb_roaring_iter_init(&seek, r);
    while (zb_roaring_iter_next(&it, &v)) {
        if ((count > 0 && v <= prev) || !zb_roaring_contains(r, v))
            abort();
        zb_roaring_iter_seek(&seek, v);
        if (!zb_roaring_iter_next(&seek, &got) || got != v)
            abort();
        if (v > 0 && (count == 0 || prev != v - 1) &&
            zb_roaring_contains(r, v - 1))
            abort();
        prev = v;
        count++;
    }
    if (count != zb_roaring_cardinality(r))
        abort();
    if (count && (zb_roaring_min(r) > zb_roaring_max(r) ||
                  zb_roaring_max(r) != prev))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_roaring *r = NULL, *again = NULL;
    zb_buf b = ZB_BUF_INIT((size_t)1 << 30);
    zb_ctx ctx;
    int rc;

    if (size == 0)
        return 0;
    zb_ctx_init(&ctx);
    if (data[0] % 2 == 0)
        rc = zb_roaring_deserialize(&r, &ctx, data + 1, size - 1);
    else
        rc = zb_dv_parse(&r, &ctx, data + 1, size - 1);
    if (rc != ZB_OK) {
        if ((rc != ZB_ECORRUPT && rc != ZB_ENOMEM) || r != NULL ||
            ctx.err.msg[0] == '\0')
            abort();
        return 0;
    }
    walk(r);
    if (data[0] % 2 == 0) {
        if (zb_roaring_serialize(r, &b) != ZB_OK ||
            b.len != zb_roaring_serialized_size(r) ||
            zb_roaring_deserialize(&again, &ctx, b.ptr, b.len) != ZB_OK)
            abort();
    } else {
        if (zb_dv_build(&b, &ctx, r) != ZB_OK ||
            zb_dv_parse(&again, &ctx, b.ptr, b.len) != ZB_OK)
            abort();
    }
    check_same(r, again);
    zb_roaring_free(again);
    zb_roaring_free(r);
    zb_buf_free(&b);
    return 0;
}

/*
 * zb-roaring-tool: our Roaring code at the command line, for the
 * comparison with an independent implementation (deletes_roaring_wasm.mjs,
 * CRoaring compiled to WebAssembly).
 *
 *   zb-roaring-tool encode VALUES OUT   u64 LE values (any order) ->
 *                                       64-bit portable bitmap
 *   zb-roaring-tool decode IN VALUES    64-bit portable bitmap -> u64 LE
 *                                       values, ascending
 *
 * Exit 0, or 1 with the error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/roaring/roaring.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
        return NULL;
    rewind(f);
    p = malloc((size_t)n + 1);
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static int spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;

    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    unsigned char *in;
    size_t len, i;
    zb_roaring *r = NULL;
    zb_ctx ctx;
    int rc = 1;

    if (argc != 4 || (strcmp(argv[1], "encode") && strcmp(argv[1], "decode"))) {
        fprintf(stderr, "usage: zb-roaring-tool encode|decode IN OUT\n");
        return 2;
    }
    if ((in = slurp(argv[2], &len)) == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    zb_ctx_init(&ctx);
    if (strcmp(argv[1], "encode") == 0) {
        zb_buf b = ZB_BUF_INIT((size_t)1 << 34);
        if (zb_roaring_new(&r) != ZB_OK)
            goto done;
        for (i = 0; i + 8 <= len; i += 8) {
            uint64_t v;
            memcpy(&v, in + i, 8);
            if (zb_roaring_add(r, v) != ZB_OK)
                goto done;
        }
        if (zb_roaring_serialize(r, &b) == ZB_OK)
            rc = spit(argv[3], b.ptr, b.len);
        zb_buf_free(&b);
    } else {
        zb_roaring_iter it;
        uint64_t *out;
        size_t n = 0;
        if (zb_roaring_deserialize(&r, &ctx, in, len) != ZB_OK) {
            fprintf(stderr, "%s\n", ctx.err.msg);
            goto done;
        }
        out = malloc(zb_roaring_cardinality(r) * 8 + 8);
        if (out == NULL)
            goto done;
        zb_roaring_iter_init(&it, r);
        n = zb_roaring_iter_read(&it, out, zb_roaring_cardinality(r));
        rc = spit(argv[3], out, n * 8);
        free(out);
    }
done:
    zb_roaring_free(r);
    free(in);
    return rc;
}

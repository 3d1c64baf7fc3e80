/*
 * Reading object container files: every fixture manifest and manifest
 * list (Spark, Impala, Trino, PyIceberg, Iceberg Java) reads to the end,
 * through FileIO and from memory alike; truncated and corrupted copies
 * give errors that name the file, never crashes; counts and sizes read
 * from the file are checked before allocating; every allocation failure
 * while reading returns ZB_ENOMEM and leaks nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "util/alloc.h"
#include "zbtest.h"


static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long n;

    ZBT_CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc(n ? (size_t)n : 1);
    ZBT_CHECK(fread(p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Records in a file in memory, or -1 with ctx->err set. */
static long read_mem(zb_ctx *ctx, const void *data, size_t len)
{
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    long n = 0;
    int rc;

    if (zb_avro_reader_open_mem(&r, ctx, "mem.avro", data, len, NULL) < 0)
        return -1;
    while ((rc = zb_avro_reader_next(r, ctx, &v)) == 1)
        n++;
    zb_avro_reader_free(r);
    return rc < 0 ? -1 : n;
}

static long read_io(zb_io *io, zb_ctx *ctx, const char *path)
{
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    long n = 0;
    int rc;

    if (zb_avro_reader_open(&r, io, ctx, path, NULL) < 0)
        return -1;
    while ((rc = zb_avro_reader_next(r, ctx, &v)) == 1)
        n++;
    zb_avro_reader_free(r);
    return rc < 0 ? -1 : n;
}

static void test_avro_read__every_fixture_file_reads_fully(void)
{
    zbt_files l = { 0 };
    zb_io *io = NULL;
    zb_ctx ctx;
    size_t i, ok = 0;
    long records = 0;

    zbt_find_files(&l, ZB_FIXTURES_DIR, ".avro");
    ZBT_CHECK(l.n > 0);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (i = 0; i < l.n; i++) {
        size_t len;
        unsigned char *data = slurp(l.paths[i], &len);
        long n = read_io(io, &ctx, l.paths[i]);
        if (n < 0)
            printf("     %s: %s\n", l.paths[i], ctx.err.msg);
        else if (read_mem(&ctx, data, len) == n)
            ok++, records += n;
        free(data);
    }
    printf("     %zu of %zu fixture files, %ld records\n", ok, l.n, records);
    ZBT_EQ_U64(ok, l.n);
    zbt_files_free(&l);
    zb_io_free(io);
}

static void test_avro_read__manifest_metadata_and_schema_ids(void)
{
    zbt_files l = { 0 };
    zb_ctx ctx;
    size_t i, manifests = 0, with_spec = 0;

    zbt_find_files(&l, ZB_FIXTURES_DIR, ".avro");
    zb_ctx_init(&ctx);
    for (i = 0; i < l.n; i++) {
        zb_avro_reader *r = NULL;
        const zb_avro_node *root;
        size_t len;
        unsigned char *data = slurp(l.paths[i], &len);
        ZBT_OK_CTX(zb_avro_reader_open_mem(&r, &ctx, l.paths[i], data, len,
                                           NULL), &ctx);
        root = zb_avro_schema_root(zb_avro_reader_schema(r));
        ZBT_EQ_INT(root->type, ZB_AVRO_RECORD);
        ZBT_CHECK(zb_avro_reader_meta_get(r, "avro.schema", NULL) != NULL);
        if (strcmp(root->name, "manifest_entry") == 0) {
            /* Iceberg manifests: status is field 0, data_file field 2. */
            int df = zb_avro_field_index(root, "data_file");
            ZBT_CHECK(df >= 0);
            ZBT_EQ_INT(root->fields[zb_avro_field_index(root, "status")]
                           .field_id, 0);
            ZBT_EQ_INT(root->fields[df].field_id, 2);
            /* Iceberg Java, Spark, Trino, PyIceberg write the spec into
             * the metadata; Impala's manifests carry none. */
            if (zb_avro_reader_meta_get(r, "partition-spec", NULL) != NULL)
                with_spec++;
            manifests++;
        } else {
            ZBT_EQ_STR(root->name, "manifest_file");
            ZBT_EQ_INT(root->fields[zb_avro_field_index(root,
                                                        "manifest_path")]
                           .field_id, 500);
        }
        zb_avro_reader_free(r);
        free(data);
    }
    printf("     %zu manifests (%zu with partition-spec metadata), %zu "
           "manifest lists\n", manifests, with_spec, l.n - manifests);
    ZBT_CHECK(with_spec > 0);
    zbt_files_free(&l);
}

/* The smallest few fixtures, by size. */
static size_t small_fixtures(char **out, size_t max)
{
    zbt_files l = { 0 };
    size_t i, j, n = 0;
    off_t sizes[16];

    zbt_find_files(&l, ZB_FIXTURES_DIR, ".avro");
    for (i = 0; i < l.n; i++) {
        struct stat st;
        stat(l.paths[i], &st);
        for (j = 0; j < n && sizes[j] <= st.st_size; j++)
            ;
        if (j >= max)
            continue;
        if (n == max)
            free(out[--n]);
        memmove(out + j + 1, out + j, (n - j) * sizeof *out);
        memmove(sizes + j + 1, sizes + j, (n - j) * sizeof *sizes);
        out[j] = strdup(l.paths[i]);
        sizes[j] = st.st_size;
        n++;
    }
    zbt_files_free(&l);
    return n;
}

static void test_avro_read__truncated_copies_fail_cleanly(void)
{
    char *paths[4];
    size_t n = small_fixtures(paths, 4), i, cut, errors = 0, runs = 0;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    for (i = 0; i < n; i++) {
        size_t len;
        unsigned char *data = slurp(paths[i], &len);
        long full = read_mem(&ctx, data, len);
        ZBT_CHECK(full > 0);
        for (cut = 0; cut < len; cut++) {
            /* An exact-size copy, so that ASan sees any overread. */
            unsigned char *copy = malloc(cut ? cut : 1);
            long got;
            memcpy(copy, data, cut);
            got = read_mem(&ctx, copy, cut);
            if (got < 0) {
                ZBT_CONTAINS(ctx.err.msg, "mem.avro");
                errors++;
            } else {
                ZBT_CHECK(got < full); /* cut at a block boundary */
            }
            runs++;
            free(copy);
        }
        free(data);
        free(paths[i]);
    }
    printf("     %zu truncations, %zu errors\n", runs, errors);
    ZBT_CHECK(errors > runs * 9 / 10);
}

static void test_avro_read__corrupted_copies_fail_cleanly(void)
{
    char *paths[4];
    size_t n = small_fixtures(paths, 4), i, k, errors = 0, runs = 0;
    uint32_t seed = 12345;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    for (i = 0; i < n; i++) {
        size_t len;
        unsigned char *data = slurp(paths[i], &len);
        for (k = 0; k < 3000; k++) {
            unsigned char *copy = malloc(len);
            size_t j, flips = 1 + k % 4;
            memcpy(copy, data, len);
            for (j = 0; j < flips; j++) {
                seed = seed * 1103515245u + 12345u;
                copy[(seed >> 8) % len] ^= (unsigned char)(1u << (seed % 8));
            }
            if (read_mem(&ctx, copy, len) < 0)
                errors++;
            runs++;
            free(copy);
        }
        free(data);
        free(paths[i]);
    }
    printf("     %zu corrupted copies, %zu errors\n", runs, errors);
    ZBT_CHECK(errors > 0);
}

/* Header of a file with schema "long" and the null codec, then blk. */
static size_t craft(unsigned char *out, const unsigned char *blk, size_t n)
{
    static const char schema[] = "\"long\"";
    size_t len = 0;

    memcpy(out, "Obj\x01", 4);
    len = 4;
    out[len++] = 2;                          /* one metadata entry */
    out[len++] = 22;                         /* "avro.schema" */
    memcpy(out + len, "avro.schema", 11);
    len += 11;
    out[len++] = (unsigned char)(2 * (sizeof schema - 1));
    memcpy(out + len, schema, sizeof schema - 1);
    len += sizeof schema - 1;
    out[len++] = 0;
    memset(out + len, 0xab, 16);             /* sync */
    len += 16;
    memcpy(out + len, blk, n);
    return len + n;
}

static void test_avro_read__block_count_and_size_are_checked(void)
{
    /* count 2^62, size 1 */
    static const unsigned char huge_count[] = {
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 2, 0 };
    /* count 1, size 2^40: past the end of the file */
    static const unsigned char huge_size[] = {
        2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40 };
    /* count 1, size 1, good data, wrong sync */
    unsigned char bad_sync[19] = { 2, 2, 4 };
    unsigned char good[19] = { 2, 2, 4 };
    unsigned char file[128];
    zb_ctx ctx;
    size_t n;

    zb_ctx_init(&ctx);
    memset(good + 3, 0xab, 16);
    memset(bad_sync + 3, 0xac, 16);
    n = craft(file, good, sizeof good);
    ZBT_EQ_INT(read_mem(&ctx, file, n), 1);
    n = craft(file, huge_count, sizeof huge_count);
    ZBT_EQ_INT(read_mem(&ctx, file, n), -1);
    ZBT_EQ_INT(ctx.err.code, ZB_ECORRUPT);
    n = craft(file, huge_size, sizeof huge_size);
    ZBT_EQ_INT(read_mem(&ctx, file, n), -1);
    ZBT_EQ_INT(ctx.err.code, ZB_ECORRUPT);
    ZBT_CONTAINS(ctx.err.msg, "past the end of the file");
    n = craft(file, bad_sync, sizeof bad_sync);
    ZBT_EQ_INT(read_mem(&ctx, file, n), -1);
    ZBT_CONTAINS(ctx.err.msg, "sync marker");
}

static void test_avro_read__allocation_failures_return_enomem(void)
{
    char *paths[1];
    size_t len, n = small_fixtures(paths, 1);
    unsigned char *data;
    uint64_t nth, base;
    zb_io *io = NULL;
    zb_ctx ctx;
    long full;
    int mode;

    ZBT_CHECK(n == 1);
    data = slurp(paths[0], &len);
    zb_ctx_init(&ctx);
    full = read_mem(&ctx, data, len);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    for (mode = 0; mode < 2; mode++) {
        base = zb_alloc_live_bytes();
        for (nth = 1;; nth++) {
            long got;
            zb_alloc__fail_at(nth, 0);
            got = mode == 0 ? read_mem(&ctx, data, len)
                            : read_io(io, &ctx, paths[0]);
            if (zb_alloc__fail_at(0, 0) == 0) {
                ZBT_EQ_INT(got, full);
                break;
            }
            ZBT_EQ_INT(got, -1);
            ZBT_RC(ctx.err.code, ZB_ENOMEM);
            ZBT_EQ_U64(zb_alloc_live_bytes(), base);
        }
        printf("     %s: %llu allocation points\n", mode ? "FileIO" : "memory",
               (unsigned long long)nth - 1);
    }
    zb_io_free(io);
    free(data);
    free(paths[0]);
}

const zbt_case test_avro_read[] = {
    ZBT_CASE(test_avro_read__every_fixture_file_reads_fully),
    ZBT_CASE(test_avro_read__manifest_metadata_and_schema_ids),
    ZBT_CASE(test_avro_read__truncated_copies_fail_cleanly),
    ZBT_CASE(test_avro_read__corrupted_copies_fail_cleanly),
    ZBT_CASE(test_avro_read__block_count_and_size_are_checked),
    ZBT_CASE(test_avro_read__allocation_failures_return_enomem),
    ZBT_END
};

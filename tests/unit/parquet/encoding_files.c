/*
 * Pages written by real writers, decoded and compared with the values the
 * writer was given. tests/resources/encoding/README.md tells how the files
 * were made: duckdb_v2.parquet by DuckDB (PARQUET_VERSION v2, no
 * compression: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * BYTE_STREAM_SPLIT, v2 definition levels, dictionary indices) and
 * hyparquet_dba.parquet by hyparquet-writer (DELTA_BYTE_ARRAY, which DuckDB
 * does not write; DuckDB reads it back to the same strings). The test has
 * no Parquet metadata reader: it tries every offset of the file and wants
 * the expected values to decode from at least one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "encoding_test.h"
#include "format/parquet/encoding/pq_encoding.h"
#include "zbtest.h"

static uint8_t *read_resource(const char *name, size_t *len)
{
    char path[1024];
    FILE *f;
    uint8_t *p;
    long sz;

    snprintf(path, sizeof path, "%s/%s", ZB_ENCODING_RESOURCES, name);
    f = fopen(path, "rb");
    ZBT_CHECK(f != NULL);
    ZBT_CHECK(fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0);
    rewind(f);
    p = malloc((size_t)sz);
    ZBT_CHECK(p && fread(p, 1, (size_t)sz, f) == (size_t)sz);
    fclose(f);
    *len = (size_t)sz;
    return p;
}

#define ROWS 150

/* How many offsets of the file decode to the reference (>= 1 wanted). */
static int find_in_file(decode_fn fn, const uint8_t *file, size_t len,
                        size_t n)
{
    int found = 0;

    for (size_t o = 0; o < len; o++) {
        int differs = 0;

        if (fn(file + o, len - o, n, &differs) == ZB_OK && !differs)
            found++;
    }
    return found;
}

static void test_parquet_encoding__duckdb_pages(void)
{
    static char sbuf[ROWS][32];
    static const char *sptr[ROWS];
    uint64_t v[ROWS], e[ROWS], z[ROWS];
    uint32_t levels[ROWS], idx[ROWS];
    double d[ROWS];
    float f[ROWS];
    uint8_t out[ROWS * 8];
    size_t len, nz = 0;
    uint8_t *file = read_resource("duckdb_v2.parquet", &len);
    int found;

    /* The query of tests/resources/encoding/README.md, row by row. */
    for (int64_t i = 0; i < ROWS; i++) {
        v[i] = (uint64_t)((i * 7919 % 1009) * 1000 - 500000 + i * i);
        e[i] = i % 3 == 0 ? (uint64_t)INT64_MAX
             : i % 3 == 1 ? (uint64_t)INT64_MIN
                          : (uint64_t)(i * 1000003);
        snprintf(sbuf[i], sizeof sbuf[i], "row-%d%.*s",
                 (int)(i * 7919 % 10007), (int)(i % 5), "xxxx");
        sptr[i] = sbuf[i];
        d[i] = (double)i * 0.25 - 7.5;
        f[i] = (float)i * 0.5f - 3.0f;
        levels[i] = i % 3 != 0;
        if (levels[i])
            z[nz++] = (uint64_t)i;
        idx[i] = (uint32_t)(i % 5);
    }
    ref64 = v;
    ZBT_CHECK(find_in_file(dec_delta, file, len, ROWS) >= 1);
    ref64 = e;      /* width-64 miniblocks, wrapping deltas */
    ZBT_CHECK(find_in_file(dec_delta, file, len, ROWS) >= 1);
    ref64 = z;      /* the non-null values of a nullable column */
    ZBT_CHECK(find_in_file(dec_delta, file, len, nz) >= 1);
    refstr = sptr;
    ZBT_CHECK(find_in_file(dec_dlba, file, len, ROWS) >= 1);
    ref32 = levels; /* its v2 definition levels */
    ref_width = 1;
    ZBT_CHECK(find_in_file(dec_rle, file, len, ROWS) >= 1);
    /* dictionary indices: a width byte, then the hybrid */
    found = 0;
    ref32 = idx;
    ref_width = 3;
    for (size_t o = 0; o + 1 < len; o++) {
        int differs = 0;

        if (file[o] == 3 && dec_rle(file + o + 1, len - o - 1, ROWS,
                                    &differs) == ZB_OK && !differs)
            found++;
    }
    ZBT_CHECK(found >= 1);
    /* BYTE_STREAM_SPLIT doubles and floats */
    found = 0;
    for (size_t o = 0; o + ROWS * 8 <= len; o++) {
        ZBT_RC(pq_byte_stream_split_decode(out, ROWS, 8, file + o, len - o),
               ZB_OK);
        found += memcmp(out, d, sizeof d) == 0;
    }
    ZBT_CHECK(found == 1);
    found = 0;
    for (size_t o = 0; o + ROWS * 4 <= len; o++) {
        ZBT_RC(pq_byte_stream_split_decode(out, ROWS, 4, file + o, len - o),
               ZB_OK);
        found += memcmp(out, f, sizeof f) == 0;
    }
    ZBT_CHECK(found == 1);
    free(file);
}

static void test_parquet_encoding__hyparquet_delta_byte_array(void)
{
    static char sbuf[ROWS][40];
    static const char *sptr[ROWS];
    size_t len;
    uint8_t *file = read_resource("hyparquet_dba.parquet", &len);

    for (int i = 0; i < ROWS; i++) {
        char tail[16] = "";

        if (i % 7 != 0)
            snprintf(tail, sizeof tail, "/tail%d", i % 4);
        snprintf(sbuf[i], sizeof sbuf[i], "common/prefix/%06d%s",
                 (i * 13) % 1000, tail);
        sptr[i] = sbuf[i];
    }
    refstr = sptr;
    ZBT_CHECK(find_in_file(dec_dba, file, len, ROWS) >= 1);
    free(file);
}

const zbt_case test_parquet_encoding_files[] = {
    ZBT_CASE(test_parquet_encoding__duckdb_pages),
    ZBT_CASE(test_parquet_encoding__hyparquet_delta_byte_array),
    ZBT_END
};

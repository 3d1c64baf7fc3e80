/*
 * bench_avro_read - writes a synthetic Iceberg manifest of 100,000
 * entries (status, snapshot ids, a data_file record of ~15 fields with a
 * nested partition record and column metrics as Iceberg's k/v arrays and
 * an Avro map) with format/avro, then reads it back; prints records/s of
 * each, the median of 5 runs, for the null and deflate codecs.
 *
 * Usage: bench_avro_read [RECORDS]   (files go to $TMPDIR or /tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/avro/avro.h"
#include "io/io.h"
#include "util/arena.h"

#define RUNS 5
#define NCOLS 8

static const char schema[] =
    "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
    "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"field-id\":1},"
    "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"field-id\":3},"
    "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\","
    "\"fields\":["
    "{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
    "{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
    "{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
    "{\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\","
    "\"fields\":[{\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\","
    "\"logicalType\":\"date\"}],\"field-id\":1000},{\"name\":\"bucket\","
    "\"type\":[\"null\",\"int\"],\"field-id\":1001}]},\"field-id\":102},"
    "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
    "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
    "{\"name\":\"column_sizes\",\"type\":[\"null\",{\"type\":\"array\","
    "\"items\":{\"type\":\"record\",\"name\":\"k117_v118\",\"fields\":["
    "{\"name\":\"key\",\"type\":\"int\",\"field-id\":117},{\"name\":\"value\","
    "\"type\":\"long\",\"field-id\":118}]},\"logicalType\":\"map\"}],"
    "\"field-id\":108},"
    "{\"name\":\"value_counts\",\"type\":{\"type\":\"map\",\"values\":"
    "\"long\",\"key-id\":119,\"value-id\":120},\"field-id\":109},"
    "{\"name\":\"lower_bounds\",\"type\":[\"null\",{\"type\":\"array\","
    "\"items\":{\"type\":\"record\",\"name\":\"k126_v127\",\"fields\":["
    "{\"name\":\"key\",\"type\":\"int\",\"field-id\":126},{\"name\":\"value\","
    "\"type\":\"bytes\",\"field-id\":127}]},\"logicalType\":\"map\"}],"
    "\"field-id\":125},"
    "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"field-id\":131},"
    "{\"name\":\"split_offsets\",\"type\":[\"null\",{\"type\":\"array\","
    "\"items\":\"long\",\"element-id\":133}],\"field-id\":132},"
    "{\"name\":\"sort_order_id\",\"type\":[\"null\",\"int\"],\"field-id\":140}"
    "]},\"field-id\":2}]}";

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static zb_avro_value *vals(zb_arena *a, size_t n)
{
    return zb_arena_calloc(a, n, sizeof(zb_avro_value));
}

static zb_avro_value *opt(zb_arena *a, zb_avro_value *u, zb_avro_type t)
{
    u->type = ZB_AVRO_UNION;
    u->v.u.branch = t == ZB_AVRO_NULL ? 0 : 1;
    u->v.u.value = vals(a, 1);
    u->v.u.value->type = t;
    return u->v.u.value;
}

static zb_avro_value *entry(zb_arena *a, uint64_t i)
{
    static const uint8_t bound[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    zb_avro_value *r = vals(a, 1), *f = vals(a, 4), *d = vals(a, 12), *x;
    zb_avro_map_entry *me = zb_arena_calloc(a, NCOLS, sizeof *me);
    static const char *const keys[NCOLS] = { "1", "2", "3", "4", "5", "6",
                                             "7", "8" };
    size_t k;

    r->type = ZB_AVRO_RECORD;
    r->v.list.items = f;
    r->v.list.n = 4;
    f[0].type = ZB_AVRO_INT;
    f[0].v.i32 = 1;
    opt(a, &f[1], ZB_AVRO_LONG)->v.i64 = 4783910239384757121;
    opt(a, &f[2], ZB_AVRO_LONG)->v.i64 = (int64_t)i / 1000;
    f[3].type = ZB_AVRO_RECORD;
    f[3].v.list.items = d;
    f[3].v.list.n = 12;
    d[0].type = ZB_AVRO_INT;
    d[1].type = ZB_AVRO_STRING;
    d[1].v.str.ptr = zb_arena_sprintf(a, "s3://warehouse/db/events/data/"
                                      "day=2024-01-%02d/%020llu-0-data.parquet",
                                      (int)(i % 28) + 1,
                                      (unsigned long long)i);
    d[1].v.str.len = strlen(d[1].v.str.ptr);
    d[2].type = ZB_AVRO_STRING;
    d[2].v.str.ptr = "PARQUET";
    d[2].v.str.len = 7;
    d[3].type = ZB_AVRO_RECORD;
    d[3].v.list.items = x = vals(a, 2);
    d[3].v.list.n = 2;
    opt(a, &x[0], ZB_AVRO_INT)->v.i32 = 19723 + (int32_t)(i % 28);
    opt(a, &x[1], ZB_AVRO_INT)->v.i32 = (int32_t)(i % 16);
    d[4].type = ZB_AVRO_LONG;
    d[4].v.i64 = 100000 + (int64_t)i;
    d[5].type = ZB_AVRO_LONG;
    d[5].v.i64 = 134217728 + (int64_t)i * 13;
    for (k = 6; k <= 8; k += 2) {
        zb_avro_value *arr = opt(a, &d[k], ZB_AVRO_ARRAY), *kv;
        size_t c;
        arr->v.list.items = kv = vals(a, NCOLS);
        arr->v.list.n = NCOLS;
        for (c = 0; c < NCOLS; c++) {
            zb_avro_value *p = vals(a, 2);
            kv[c].type = ZB_AVRO_RECORD;
            kv[c].v.list.items = p;
            kv[c].v.list.n = 2;
            p[0].type = ZB_AVRO_INT;
            p[0].v.i32 = (int32_t)c + 1;
            if (k == 6) {
                p[1].type = ZB_AVRO_LONG;
                p[1].v.i64 = (int64_t)(i * 7 + c);
            } else {
                p[1].type = ZB_AVRO_BYTES;
                p[1].v.bytes.ptr = bound;
                p[1].v.bytes.len = 4 + c % 5;
            }
        }
    }
    d[7].type = ZB_AVRO_MAP;
    d[7].v.map.entries = me;
    d[7].v.map.n = NCOLS;
    for (k = 0; k < NCOLS; k++) {
        me[k].key = keys[k];
        me[k].key_len = 1;
        me[k].value = vals(a, 1);
        me[k].value->type = ZB_AVRO_LONG;
        me[k].value->v.i64 = 100000 + (int64_t)i;
    }
    opt(a, &d[9], ZB_AVRO_NULL);
    x = opt(a, &d[10], ZB_AVRO_ARRAY);
    x->v.list.items = vals(a, 1);
    x->v.list.n = 1;
    x->v.list.items[0].type = ZB_AVRO_LONG;
    x->v.list.items[0].v.i64 = 4;
    opt(a, &d[11], ZB_AVRO_INT)->v.i32 = 0;
    return r;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    zb_io *io = NULL;
    zb_arena *a = NULL;
    zb_ctx ctx;
    int c;

    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0 || zb_arena_new(&a, 1 << 20) < 0)
        return 1;
    for (c = 0; c < 2; c++) {
        double wr[RUNS], rd[RUNS];
        char path[4096];
        long size = 0;
        int run;
        snprintf(path, sizeof path, "%s/bench_avro_%d_%ld.avro", tmp, c,
                 (long)getpid());
        for (run = 0; run < RUNS; run++) {
            zb_avro_writer_opts o = ZB_AVRO_WRITER_OPTS_INIT;
            zb_avro_writer *w = NULL;
            zb_avro_reader *r = NULL;
            const zb_avro_value *v;
            uint64_t i, got = 0;
            double t0;
            FILE *f;
            o.codec = c ? ZB_AVRO_CODEC_DEFLATE : ZB_AVRO_CODEC_NULL;
            unlink(path);
            t0 = now_s();
            if (zb_avro_writer_open(&w, io, &ctx, path, schema, NULL, 0,
                                    &o) < 0)
                goto fail;
            for (i = 0; i < n; i++) {
                zb_arena_reset(a);
                if (zb_avro_writer_append(w, &ctx, entry(a, i)) < 0) {
                    zb_avro_writer_abort(w);
                    goto fail;
                }
            }
            if (zb_avro_writer_commit(w, &ctx) < 0)
                goto fail;
            wr[run] = now_s() - t0;
            t0 = now_s();
            if (zb_avro_reader_open(&r, io, &ctx, path, NULL) < 0)
                goto fail;
            while (zb_avro_reader_next(r, &ctx, &v) == 1)
                got++;
            zb_avro_reader_free(r);
            rd[run] = now_s() - t0;
            if (got != n) {
                fprintf(stderr, "read %llu of %llu: %s\n",
                        (unsigned long long)got, (unsigned long long)n,
                        ctx.err.msg);
                return 1;
            }
            if ((f = fopen(path, "rb")) != NULL) {
                fseek(f, 0, SEEK_END);
                size = ftell(f);
                fclose(f);
            }
        }
        unlink(path);
        qsort(wr, RUNS, sizeof *wr, cmp_d);
        qsort(rd, RUNS, sizeof *rd, cmp_d);
        printf("bench_avro_read: codec %s, %llu records, %.1f MB: write "
               "%.0f records/s, read %.0f records/s (median of %d)\n",
               c ? "deflate" : "null", (unsigned long long)n,
               (double)size / 1e6, (double)n / wr[RUNS / 2],
               (double)n / rd[RUNS / 2], RUNS);
    }
    zb_arena_free(a);
    zb_io_free(io);
    return 0;
fail:
    fprintf(stderr, "bench_avro_read: %s\n", ctx.err.msg);
    return 1;
}

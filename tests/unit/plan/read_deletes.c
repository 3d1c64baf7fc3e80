/*
 * tests/unit/plan/read_deletes.c - the row stream over hand-made tables:
 * position deletes (paths with and without scheme, null paths), a
 * deletion vector, equality deletes on one and on two columns with nulls
 * in the key, written before a type promotion, applying to several tasks
 * or to one; spilling; corrupt delete files; the stop flag. Every
 * expectation is worked out by hand from the rows each case writes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/roaring/roaring.h"
#include "zamboni/budget.h"
#include "read_util.h"
#include "table/value/ice_value.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "zbtest.h"

#ifndef BUDGET_BYTES
#define BUDGET_BYTES ((uint64_t)128 << 10)
#endif

static const char *META =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-"
    "a0705ddf69c1\",\"location\":\"/t\",\"last-sequence-number\":9,"
    "\"last-updated-ms\":1,\"last-column-id\":3,\"current-schema-id\":1,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":2,\"name\":\"k\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"x\",\"required\":false,\"type\":\"float\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"k\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"x\",\"required\":false,\"type\":\"double\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":"
    "[]}],\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
    "\"current-snapshot-id\":-1,\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[]}";

typedef struct fx {
    zb_ctx ctx;
    zb_io *io;
    ice_metadata *meta;
    char dir[512];
} fx;

static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    zb_ctx_init(&f->ctx);
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    f->meta = rt_metadata(&f->ctx, META);
    snprintf(f->dir, sizeof f->dir, "%s", zbt_tmpdir());
}

static void fx_free(fx *f)
{
    ice_metadata_free(f->meta);
    zb_io_free(f->io);
}

/* File A: written under schema 0 (id int, x float). */
static int64_t write_a(fx *f, const char *path)
{
    static const int32_t id[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    static const char *const k[8] = { "a", "b", NULL, "d", "a", "b", NULL,
                                       "h" };
    static const uint8_t kn[8] = { 0, 0, 1, 0, 0, 0, 1, 0 };
    static const float x[8] = { 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4 };
    rt_col c[3] = { { "id", 1, "i", id, NULL }, { "k", 2, "u", k, kn },
                    { "x", 3, "f", x, NULL } };

    return rt_write_parquet(f->io, &f->ctx, path, c, 3, 8);
}

/* File B: written under schema 1 (id long, x double). */
static int64_t write_b(fx *f, const char *path)
{
    static const int64_t id[6] = { 11, 12, 13, 14, 15, 16 };
    static const char *const k[6] = { "a", "b", "c", NULL, "e", "f" };
    static const uint8_t kn[6] = { 0, 0, 0, 1, 0, 0 };
    static const double x[6] = { 1.1, 1.2, 1.3, 1.4, 1.5, 1.6 };
    rt_col c[3] = { { "id", 1, "l", id, NULL }, { "k", 2, "u", k, kn },
                    { "x", 3, "g", x, NULL } };

    return rt_write_parquet(f->io, &f->ctx, path, c, 3, 6);
}

/* A Puffin-like file holding one DV blob at offset 4. */
static int64_t write_dv(fx *f, const char *path, const uint64_t *pos,
                        size_t n, int64_t *blob_len, int corrupt)
{
    zb_roaring *r = NULL;
    zb_buf b = ZB_BUF_INIT(1 << 20);
    size_t i;
    int64_t size;

    ZBT_OK_CTX(zb_roaring_new(&r), &f->ctx);
    for (i = 0; i < n; i++)
        ZBT_OK_CTX(zb_roaring_add(r, pos[i]), &f->ctx);
    ZBT_CHECK(zb_buf_append(&b, "PFA1", 4) == 0);
    ZBT_OK_CTX(zb_dv_build(&b, &f->ctx, r), &f->ctx);
    *blob_len = (int64_t)b.len - 4;
    if (corrupt)
        b.ptr[b.len - 1] ^= 0x5a;      /* the CRC */
    ZBT_CHECK(zb_buf_append(&b, "PFA1", 4) == 0);
    zbt_write_file(path, b.ptr, b.len);
    size = (int64_t)b.len;
    zb_buf_free(&b);
    zb_roaring_free(r);
    return size;
}

/* Writes an equality delete file with int ids and string keys. */
static int64_t write_eq(fx *f, const char *path, const int32_t *id,
                        const uint8_t *idn, const char *const *k,
                        const uint8_t *kn, size_t n, int with_id, int with_k)
{
    rt_col c[2];
    size_t nc = 0;

    if (with_id)
        c[nc++] = (rt_col){ "id", 1, "i", id, idn };
    if (with_k)
        c[nc++] = (rt_col){ "k", 2, "u", k, kn };
    return rt_write_parquet(f->io, &f->ctx, path, c, nc, n);
}

/* The files and tasks of the main scenario (see all_delete_kinds). */
typedef struct scen {
    char pa[600], pb[600], pp[600], pdv[600], pe1[600], pe2[600], pe3[600];
    char hdfs_a[700];
    ice_data_file da, db, dp, ddv, de1, de2, de3;
    zb_scan_file del_a[3], del_b[5];
    zb_scan_task tasks[2];
    int32_t e1_ids[1], e2_ids[2], e3_ids[1];
} scen;

static void scen_build(fx *fxp, scen *sc)
{
    int64_t blob;
    sc->e1_ids[0] = 2;
    sc->e2_ids[0] = 1;
    sc->e2_ids[1] = 2;
    sc->e3_ids[0] = 1;
    snprintf(sc->pa, sizeof sc->pa, "%s/a.parquet", fxp->dir);
    snprintf(sc->pb, sizeof sc->pb, "%s/b.parquet", fxp->dir);
    snprintf(sc->pp, sizeof sc->pp, "%s/pos.parquet", fxp->dir);
    snprintf(sc->pdv, sizeof sc->pdv, "%s/dv.puffin", fxp->dir);
    snprintf(sc->pe1, sizeof sc->pe1, "%s/eq1.parquet", fxp->dir);
    snprintf(sc->pe2, sizeof sc->pe2, "%s/eq2.parquet", fxp->dir);
    snprintf(sc->pe3, sizeof sc->pe3, "%s/eq3.parquet", fxp->dir);
    snprintf(sc->hdfs_a, sizeof sc->hdfs_a, "hdfs://nn:8020%s", sc->pa);

    sc->da = rt_file(ICE_CONTENT_DATA, sc->pa, 8, write_a(fxp, sc->pa));
    sc->db = rt_file(ICE_CONTENT_DATA, sc->pb, 6, write_b(fxp, sc->pb));
    {
        /* A rows 0 (as written) and 3 (with scheme and authority); B row
         * 5; a null path; another file; a position past A's end. */
        const char *paths[6] = { sc->pa, sc->hdfs_a, sc->pb, NULL,
                                 "/elsewhere.parquet", sc->pa };
        int64_t pos[6] = { 0, 3, 5, 1, 2, 100 };
        sc->dp = rt_file(ICE_CONTENT_POSITION_DELETES, sc->pp, 6,
                         rt_write_posdel(fxp->io, &fxp->ctx, sc->pp, paths,
                                         pos, 6));
    }
    {
        uint64_t pos[2] = { 1, 5 };
        sc->ddv = rt_file(ICE_CONTENT_POSITION_DELETES, sc->pdv, 2,
                      write_dv(fxp, sc->pdv, pos, 2, &blob, 0));
        sc->ddv.file_format = "puffin";
        sc->ddv.content_offset = 4;
        sc->ddv.content_size_in_bytes = blob;
        sc->ddv.referenced_data_file = sc->pb;
    }
    {
        /* E1 on k: "a" and null. */
        const char *k[2] = { "a", NULL };
        uint8_t kn[2] = { 0, 1 };
        sc->de1 = rt_file(ICE_CONTENT_EQUALITY_DELETES, sc->pe1, 2,
                      write_eq(fxp, sc->pe1, NULL, NULL, k, kn, 2, 0, 1));
        sc->de1.has_equality_ids = 1;
        sc->de1.n_equality_ids = 1;
        sc->de1.equality_ids = sc->e1_ids;
    }
    {
        /* E2 on (id, k), id written as int: (4, d), (12, b), (2, zz). */
        const int32_t id[3] = { 4, 12, 2 };
        const char *k[3] = { "d", "b", "zz" };
        sc->de2 = rt_file(ICE_CONTENT_EQUALITY_DELETES, sc->pe2, 3,
                      write_eq(fxp, sc->pe2, id, NULL, k, NULL, 3, 1, 1));
        sc->de2.has_equality_ids = 1;
        sc->de2.n_equality_ids = 2;
        sc->de2.equality_ids = sc->e2_ids;
    }
    {
        /* E3 on id, for B only: 13 and 2 (2 is in A, which E3 spares). */
        const int32_t id[2] = { 13, 2 };
        sc->de3 = rt_file(ICE_CONTENT_EQUALITY_DELETES, sc->pe3, 2,
                      write_eq(fxp, sc->pe3, id, NULL, NULL, NULL, 2, 1, 0));
        sc->de3.has_equality_ids = 1;
        sc->de3.n_equality_ids = 1;
        sc->de3.equality_ids = sc->e3_ids;
    }
    memset(sc->del_a, 0, sizeof sc->del_a);
    memset(sc->del_b, 0, sizeof sc->del_b);
    sc->del_a[0].file = &sc->dp;
    sc->del_a[1].file = &sc->de1;
    sc->del_a[2].file = &sc->de2;
    sc->del_b[0].file = &sc->ddv;
    sc->del_b[1].file = &sc->dp;
    sc->del_b[2].file = &sc->de1;
    sc->del_b[3].file = &sc->de2;
    sc->del_b[4].file = &sc->de3;
    memset(sc->tasks, 0, sizeof sc->tasks);
    sc->tasks[0].data.file = &sc->da;
    sc->tasks[0].n_deletes = 3;
    sc->tasks[0].deletes = sc->del_a;
    sc->tasks[1].data.file = &sc->db;
    sc->tasks[1].n_deletes = 5;
    sc->tasks[1].deletes = sc->del_b;
}

static void test_plan_read__all_delete_kinds(void)
{
    fx f;
    scen sc;
    zb_scan_task *tasks = sc.tasks;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_read_counts c;
    const char *rows;

    fx_init(&f);
    scen_build(&f, &sc);
    o.meta = f.meta;

    /*
     * A: positions 0 and 3 by the position file; k a or null: rows 2, 4, 6
     * by E1; E2 (4, d) is row 3, gone already. Live: rows 1, 5, 7.
     * B: DV {1, 5} and the position file's 5; E1: rows 0 (a) and 3 (null);
     * E3: id 13, row 2. Live: row 4.
     */
    rows = rt_read_all(f.io, &f.ctx, &o, tasks, 2, &c);
    ZBT_EQ_STR(rows, "2,b,1\n6,b,3\n8,h,4\n15,e,1.5\n");
    ZBT_EQ_U64(c.rows_read, 14);
    ZBT_EQ_U64(c.deleted_by_position, 4);
    ZBT_EQ_U64(c.deleted_by_equality, 6);
    ZBT_EQ_U64(c.rows_out, 4);
    ZBT_EQ_U64(c.null_position_deletes, 1);
    ZBT_EQ_U64(c.data_files, 2);
    ZBT_EQ_U64(c.eq_spilled, 0);

    /* The same with a key-set budget far below the set: it spills. */
    o.eq_memory_bytes = 1;
    rows = rt_read_all(f.io, &f.ctx, &o, tasks, 2, &c);
    ZBT_EQ_STR(rows, "2,b,1\n6,b,3\n8,h,4\n15,e,1.5\n");
    ZBT_EQ_U64(c.deleted_by_equality, 6);
    ZBT_EQ_U64(c.eq_spilled, 1);

    /* Projection: k, then id. */
    {
        int32_t ids[2] = { 2, 1 };
        o.eq_memory_bytes = 0;
        o.field_ids = ids;
        o.n_field_ids = 2;
        rows = rt_read_all(f.io, &f.ctx, &o, tasks, 2, &c);
        ZBT_EQ_STR(rows, "b,2\nb,6\nh,8\ne,15\n");
        o.field_ids = NULL;
        o.n_field_ids = 0;
    }
    /* One row per batch: same rows. */
    o.batch_rows = 1;
    rows = rt_read_all(f.io, &f.ctx, &o, tasks, 2, &c);
    ZBT_EQ_STR(rows, "2,b,1\n6,b,3\n8,h,4\n15,e,1.5\n");

    /* The estimate counts each delete file once. */
    {
        zb_scan_estimate e;
        uint64_t total = zb_scan_estimate_bytes(tasks, 2, 1024, 0, &e);
        ZBT_EQ_U64(e.position_bytes, (6 + 2) * 16);
        ZBT_EQ_U64(e.equality_bytes, 2 * (48 + 16) + 3 * (48 + 32) +
                                         2 * (48 + 16));
        ZBT_EQ_U64(total, e.read_bytes + e.position_bytes + e.equality_bytes);
        ZBT_CHECK(e.read_bytes > 0);
        zb_scan_estimate_bytes(tasks, 2, 1024, 100, &e);
        ZBT_EQ_U64(e.equality_bytes, 100 + (2u << 20) + (8 + 6) / 8 + 1);
    }
    fx_free(&f);
}

static void test_plan_read__spills_with_same_rows(void)
{
    enum { N = 20000 };
    fx f;
    char pd[600], pe[600];
    int64_t *id = malloc(N * sizeof *id);
    int32_t *del = malloc(N / 2 * sizeof *del);
    const char **k = malloc(N * sizeof *k);
    const char **dk = malloc(N / 2 * sizeof *dk);
    char (*names)[8] = malloc(N * sizeof *names);
    uint8_t *kn = calloc(N, 1), *dkn = calloc(N / 2, 1);
    ice_data_file dd, de;
    zb_scan_file dels[1];
    zb_scan_task task;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_read_counts c1, c2;
    int32_t eq_ids[2] = { 1, 2 };
    char *expect, *first;
    size_t i, el = 0;

    fx_init(&f);
    ZBT_CHECK(id && del && k && dk && names);
    snprintf(pd, sizeof pd, "%s/d.parquet", f.dir);
    snprintf(pe, sizeof pe, "%s/e.parquet", f.dir);
    for (i = 0; i < N; i++) {
        id[i] = (int64_t)i;
        snprintf(names[i], sizeof names[i], "k%zu", i % 7);
        k[i] = i % 7 == 0 ? NULL : names[i];    /* null k every 7th row */
        kn[i] = i % 7 == 0;
    }
    /* Deletes: (id, k) of every even id, null k where the row's is null
     * (null equals null); a quarter of them with the wrong k. */
    for (i = 0; i < N / 2; i++) {
        del[i] = (int32_t)(2 * i);
        dk[i] = (i % 4 == 3) ? "nope" : k[2 * i];
        dkn[i] = dk[i] == NULL;
    }
    {
        rt_col c[2] = { { "id", 1, "l", id, NULL }, { "k", 2, "u", k, kn } };
        dd = rt_file(ICE_CONTENT_DATA, pd, N,
                     rt_write_parquet(f.io, &f.ctx, pd, c, 2, N));
    }
    de = rt_file(ICE_CONTENT_EQUALITY_DELETES, pe, N / 2,
                 write_eq(&f, pe, del, NULL, dk, dkn, N / 2, 1, 1));
    de.has_equality_ids = 1;
    de.n_equality_ids = 2;
    de.equality_ids = eq_ids;
    memset(dels, 0, sizeof dels);
    dels[0].file = &de;
    memset(&task, 0, sizeof task);
    task.data.file = &dd;
    task.n_deletes = 1;
    task.deletes = dels;
    o.meta = f.meta;
    o.batch_rows = 4096;
    {
        int32_t ids[1] = { 1 };
        o.field_ids = ids;
        o.n_field_ids = 1;
        /* Expected: odd ids, and even ids whose delete had the wrong k. */
        expect = malloc((size_t)N * 8);
        for (i = 0; i < N; i++)
            if (i % 2 == 1 || (i / 2) % 4 == 3)
                el += (size_t)sprintf(expect + el, "%zu\n", i);
        first = strdup(rt_read_all(f.io, &f.ctx, &o, &task, 1, &c1));
        ZBT_EQ_STR(first, expect);
        ZBT_EQ_U64(c1.eq_spilled, 0);
        ZBT_EQ_U64(c1.deleted_by_equality, N / 2 - N / 8);
        o.eq_memory_bytes = 16 << 10;
        ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, &task, 1, &c2), expect);
        ZBT_EQ_U64(c2.eq_spilled, 1);
        ZBT_CHECK(c2.eq_partition_passes > 1);
        ZBT_EQ_U64(c2.deleted_by_equality, c1.deleted_by_equality);
        ZBT_EQ_U64(c2.rows_out, c1.rows_out);
        /* With a byte budget instead (the Parquet readers take from it
         * too): same rows, and everything given back. */
        {
            zb_budget *bud = NULL;
            ZBT_OK_CTX(zb_budget_new(&bud, BUDGET_BYTES, NULL), &f.ctx);
            f.ctx.budget = bud;
            o.eq_memory_bytes = 0;
            ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, &task, 1, &c2), expect);
            ZBT_EQ_U64(c2.deleted_by_equality, c1.deleted_by_equality);
            ZBT_EQ_U64(c2.eq_spilled, 1);
            ZBT_EQ_U64(zb_budget_held_bytes(bud), 0);
            f.ctx.budget = NULL;
            zb_budget_free(bud);
        }
        free(first);
        free(expect);
    }
    free(id);
    free(del);
    free(k);
    free(dk);
    free(names);
    free(kn);
    free(dkn);
    fx_free(&f);
}

/*
 * Upserts as Flink writes them: each commit adds a data file and an
 * equality delete file of the same sequence number; a delete applies to
 * the data files of lower sequence numbers (the planner's choice, given
 * here by hand). D1 (seq 1) ids 1 2 3; D2 (seq 2) ids 1 2 4; D3 (seq 3)
 * ids 2 5; E2 (seq 2, for D1) keys 1 2; E3 (seq 3, for D1 and D2) keys
 * 2 4. D1 keeps 3; D2 keeps 1 (E2 does not apply to it); D3 keeps all.
 */
static void test_plan_read__upserts_by_sequence(void)
{
    static const int64_t i1[3] = { 1, 2, 3 }, i2[3] = { 1, 2, 4 },
                         i3[2] = { 2, 5 };
    static const int32_t k2[2] = { 1, 2 }, k3[2] = { 2, 4 };
    fx f;
    char p[5][600];
    ice_data_file d[3], e2, e3;
    zb_scan_file dels1[2], dels2[1];
    zb_scan_task tasks[3];
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_read_counts c;
    int32_t eq_ids[1] = { 1 };
    size_t i;

    fx_init(&f);
    for (i = 0; i < 5; i++)
        snprintf(p[i], sizeof p[i], "%s/f%zu.parquet", f.dir, i);
    {
        rt_col c1[1] = { { "id", 1, "l", i1, NULL } };
        rt_col c2[1] = { { "id", 1, "l", i2, NULL } };
        rt_col c3[1] = { { "id", 1, "l", i3, NULL } };
        d[0] = rt_file(ICE_CONTENT_DATA, p[0], 3,
                       rt_write_parquet(f.io, &f.ctx, p[0], c1, 1, 3));
        d[1] = rt_file(ICE_CONTENT_DATA, p[1], 3,
                       rt_write_parquet(f.io, &f.ctx, p[1], c2, 1, 3));
        d[2] = rt_file(ICE_CONTENT_DATA, p[2], 2,
                       rt_write_parquet(f.io, &f.ctx, p[2], c3, 1, 2));
    }
    e2 = rt_file(ICE_CONTENT_EQUALITY_DELETES, p[3], 2,
                 write_eq(&f, p[3], k2, NULL, NULL, NULL, 2, 1, 0));
    e3 = rt_file(ICE_CONTENT_EQUALITY_DELETES, p[4], 2,
                 write_eq(&f, p[4], k3, NULL, NULL, NULL, 2, 1, 0));
    e2.has_equality_ids = e3.has_equality_ids = 1;
    e2.n_equality_ids = e3.n_equality_ids = 1;
    e2.equality_ids = e3.equality_ids = eq_ids;
    memset(dels1, 0, sizeof dels1);
    memset(dels2, 0, sizeof dels2);
    dels1[0].file = &e2;
    dels1[0].data_sequence_number = 2;
    dels1[1].file = &e3;
    dels1[1].data_sequence_number = 3;
    dels2[0] = dels1[1];
    memset(tasks, 0, sizeof tasks);
    for (i = 0; i < 3; i++) {
        tasks[i].data.file = &d[i];
        tasks[i].data.data_sequence_number = (int64_t)i + 1;
    }
    tasks[0].n_deletes = 2;
    tasks[0].deletes = dels1;
    tasks[1].n_deletes = 1;
    tasks[1].deletes = dels2;
    o.meta = f.meta;
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, tasks, 3, &c),
               "3,null,null\n1,null,null\n2,null,null\n5,null,null\n");
    ZBT_EQ_U64(c.deleted_by_equality, 4);
    o.eq_memory_bytes = 1;
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, tasks, 3, &c),
               "3,null,null\n1,null,null\n2,null,null\n5,null,null\n");
    ZBT_EQ_U64(c.eq_spilled, 1);
    /* The same files, E3 listed for D1 only: no longer ordered by
     * sequence, each set of tasks its own scope; D2 keeps 1, 2 and 4. */
    tasks[1].n_deletes = 0;
    o.eq_memory_bytes = 0;
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, tasks, 3, &c),
               "3,null,null\n1,null,null\n2,null,null\n4,null,null\n"
               "2,null,null\n5,null,null\n");
    fx_free(&f);
}

static void test_plan_read__corrupt_delete_files(void)
{
    fx f;
    char pa[600], pbad[600], pnocol[600], pdv[600];
    ice_data_file da, dbad, dnocol, ddv;
    zb_scan_file dels[1];
    zb_scan_task task;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    int64_t blob;

    fx_init(&f);
    snprintf(pa, sizeof pa, "%s/a.parquet", f.dir);
    snprintf(pbad, sizeof pbad, "%s/bad.parquet", f.dir);
    snprintf(pnocol, sizeof pnocol, "%s/nocol.parquet", f.dir);
    snprintf(pdv, sizeof pdv, "%s/dv.puffin", f.dir);
    da = rt_file(ICE_CONTENT_DATA, pa, 8, write_a(&f, pa));
    zbt_write_file(pbad, "PAR1 this is not parquet PAR1", 29);
    dbad = rt_file(ICE_CONTENT_POSITION_DELETES, pbad, 1, 29);
    /* A "position delete" file of data columns. */
    dnocol = rt_file(ICE_CONTENT_POSITION_DELETES, pnocol, 8,
                     write_a(&f, pnocol));
    {
        uint64_t pos[1] = { 2 };
        ddv = rt_file(ICE_CONTENT_POSITION_DELETES, pdv, 1,
                      write_dv(&f, pdv, pos, 1, &blob, 1));
        ddv.file_format = "puffin";
        ddv.content_offset = 4;
        ddv.content_size_in_bytes = blob;
    }
    memset(dels, 0, sizeof dels);
    memset(&task, 0, sizeof task);
    task.data.file = &da;
    task.n_deletes = 1;
    task.deletes = dels;
    o.meta = f.meta;

    dels[0].file = &dbad;
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &o, &task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "bad.parquet");
    dels[0].file = &dnocol;
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &o, &task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "nocol.parquet");
    ZBT_CONTAINS(f.ctx.err.msg, "file_path");
    dels[0].file = &ddv;
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &o, &task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "dv.puffin");
    /* A blob range past the end of the file. */
    ddv.content_size_in_bytes = 1000;
    ZBT_CHECK(rt_read_rc(f.io, &f.ctx, &o, &task, 1) < 0);
    ZBT_CONTAINS(f.ctx.err.msg, "dv.puffin");
    /* An equality delete without equality ids. */
    dnocol.content = ICE_CONTENT_EQUALITY_DELETES;
    dels[0].file = &dnocol;
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &o, &task, 1), ZB_ECORRUPT);
    ZBT_CONTAINS(f.ctx.err.msg, "equality_ids");
    /* A missing data file. */
    task.n_deletes = 0;
    da.file_path = "/nonexistent/zamboni/a.parquet";
    ZBT_CHECK(rt_read_rc(f.io, &f.ctx, &o, &task, 1) < 0);
    ZBT_CONTAINS(f.ctx.err.msg, "/nonexistent/zamboni/a.parquet");
    fx_free(&f);
}

static void test_plan_read__stop_flag(void)
{
    fx f;
    char pa[600];
    ice_data_file da;
    zb_scan_task task;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    atomic_int stop = 1;

    fx_init(&f);
    snprintf(pa, sizeof pa, "%s/a.parquet", f.dir);
    da = rt_file(ICE_CONTENT_DATA, pa, 8, write_a(&f, pa));
    memset(&task, 0, sizeof task);
    task.data.file = &da;
    o.meta = f.meta;
    f.ctx.stop = &stop;
    ZBT_RC(rt_read_rc(f.io, &f.ctx, &o, &task, 1), ZB_ECANCELED);
    f.ctx.stop = NULL;
    fx_free(&f);
}

/*
 * Each allocation of a read fails in turn (in memory and spilled): every
 * run ends with an error or with the right rows, never a crash or a leak
 * (the sanitizer build checks the leaks).
 */
static void test_plan_read__allocation_failures(void)
{
    fx f;
    scen sc;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    int spill;

    fx_init(&f);
    scen_build(&f, &sc);
    o.meta = f.meta;
    for (spill = 0; spill < 2; spill++) {
        uint64_t nth, failed_runs = 0;
        o.eq_memory_bytes = spill ? 1 : 0;
        for (nth = 1; nth < 100000; nth++) {
            int rc;
            zb_alloc__fail_at(nth, 0);
            rc = rt_read_rc(f.io, &f.ctx, &o, sc.tasks, 2);
            if (zb_alloc__fail_at(0, 0) == 0) {
                ZBT_OK_CTX(rc, &f.ctx);
                break;
            }
            ZBT_CHECK(rc < 0);
            failed_runs++;
        }
        ZBT_CHECK(failed_runs > 50);
        ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, sc.tasks, 2, NULL),
                   "2,b,1\n6,b,3\n8,h,4\n15,e,1.5\n");
    }
    fx_free(&f);
}

static void test_plan_read__empty_group(void)
{
    fx f;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_read_counts c;

    fx_init(&f);
    o.meta = f.meta;
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, NULL, 0, &c), "");
    ZBT_EQ_U64(c.rows_read, 0);
    fx_free(&f);
}

/* The position lists and the DV bitmap the main scenario reserves:
 * 8 bytes a deleted position (6 rows of the position file, 2 of the
 * DV) and the DV blob twice. */
static uint64_t scen_position_bytes(const scen *sc)
{
    return (6 + 2) * 8 + 2 * (uint64_t)sc->ddv.content_size_in_bytes;
}

typedef struct budget_reader {
    fx *f;
    const zb_rowstream_opts *o;
    zb_scan_task *tasks;
    atomic_int rc;
} budget_reader;

static void *budget_read_thread(void *arg)
{
    budget_reader *br = arg;

    atomic_store(&br->rc, rt_read_rc(br->f->io, &br->f->ctx, br->o,
                                     br->tasks, 2));
    return NULL;
}

/*
 * The position lists and DV bitmaps are reserved from the budget at open
 * and held until the stream is freed; a budget far below them still reads
 * every row (a sole holder is admitted past the limit), and a stream
 * whose reservation does not fit waits for another holder, then reads.
 * With equality deletes too (the main scenario) a tiny budget reads the
 * same rows without a deadlock between the lists and the key set.
 */
static void test_plan_read__positions_reserved(void)
{
    fx f;
    scen sc;
    zb_scan_task tasks[2];
    zb_scan_file del_a[1], del_b[2];
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    zb_budget *bud = NULL;
    zb_budget_stats st;
    struct ArrowArray b;
    uint64_t rows = 0;
    char *want;
    int rc;

    fx_init(&f);
    scen_build(&f, &sc);
    o.meta = f.meta;
    /* The scenario's position deletes alone: A loses rows 0 and 3, B
     * rows 1 and 5. */
    memset(del_a, 0, sizeof del_a);
    memset(del_b, 0, sizeof del_b);
    del_a[0].file = &sc.dp;
    del_b[0].file = &sc.ddv;
    del_b[1].file = &sc.dp;
    memcpy(tasks, sc.tasks, sizeof tasks);
    tasks[0].n_deletes = 1;
    tasks[0].deletes = del_a;
    tasks[1].n_deletes = 2;
    tasks[1].deletes = del_b;
    want = strdup(rt_read_all(f.io, &f.ctx, &o, tasks, 2, NULL));
    ZBT_EQ_STR(want, "2,b,1\n3,null,1.5\n5,a,2.5\n6,b,3\n7,null,3.5\n"
                     "8,h,4\n11,a,1.1\n13,c,1.3\n14,null,1.4\n15,e,1.5\n");

    ZBT_OK_CTX(zb_budget_new(&bud, 16, NULL), &f.ctx);
    f.ctx.budget = bud;
    ZBT_OK_CTX(zb_rowstream_open(&rs, f.io, &f.ctx, &o, tasks, 2), &f.ctx);
    zb_budget_stats_get(&st, bud);
    ZBT_CHECK(st.held_bytes >= scen_position_bytes(&sc));
    ZBT_EQ_U64(st.holders, 1);
    while ((rc = zb_rowstream_next(rs, &f.ctx, &b, NULL)) == 1) {
        rows += (uint64_t)b.length;
        b.release(&b);
    }
    ZBT_OK_CTX(rc, &f.ctx);
    ZBT_EQ_U64(rows, 10);
    ZBT_EQ_U64(zb_rowstream_counts(rs)->deleted_by_position, 4);
    zb_rowstream_free(rs);
    zb_budget_stats_get(&st, bud);
    ZBT_EQ_U64(st.held_bytes, 0);
    ZBT_EQ_U64(st.holders, 0);
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, tasks, 2, NULL), want);
    ZBT_EQ_U64(zb_budget_held_bytes(bud), 0);
    /* Every kind of delete at the same tiny budget: the same rows as
     * all_delete_kinds, nothing held after. */
    ZBT_EQ_STR(rt_read_all(f.io, &f.ctx, &o, sc.tasks, 2, NULL),
               "2,b,1\n6,b,3\n8,h,4\n15,e,1.5\n");
    ZBT_EQ_U64(zb_budget_held_bytes(bud), 0);
    ZBT_EQ_U64(zb_budget_holders(bud), 0);
    f.ctx.budget = NULL;
    zb_budget_free(bud);

    /* Another holder has the whole budget: the open waits, then reads. */
    {
        zb_reservation other = ZB_RESERVATION_INIT;
        budget_reader br = { &f, &o, tasks, 1 };   /* 1: running */
        pthread_t th;
        int i;

        ZBT_OK_CTX(zb_budget_new(&bud, 1 << 20, NULL), &f.ctx);
        ZBT_EQ_INT(zb_budget_reserve(&other, bud, 1 << 20, NULL), ZB_OK);
        f.ctx.budget = bud;
        ZBT_EQ_INT(pthread_create(&th, NULL, budget_read_thread, &br), 0);
        for (i = 0; i < 20000 && zb_budget_waiters(bud) == 0; i++)
            nanosleep(&(struct timespec){ 0, 500000 }, NULL);
        ZBT_EQ_U64(zb_budget_waiters(bud), 1);
        ZBT_EQ_INT(atomic_load(&br.rc), 1);          /* still waiting */
        zb_budget_release(&other);
        ZBT_EQ_INT(pthread_join(th, NULL), 0);
        ZBT_OK_CTX(atomic_load(&br.rc), &f.ctx);
        ZBT_EQ_U64(zb_budget_held_bytes(bud), 0);
        ZBT_EQ_U64(zb_budget_holders(bud), 0);
        f.ctx.budget = NULL;
        zb_budget_free(bud);
    }
    free(want);
    fx_free(&f);
}

const zbt_case test_plan_read_deletes[] = {
    ZBT_CASE(test_plan_read__all_delete_kinds),
    ZBT_CASE(test_plan_read__spills_with_same_rows),
    ZBT_CASE(test_plan_read__upserts_by_sequence),
    ZBT_CASE(test_plan_read__corrupt_delete_files),
    ZBT_CASE(test_plan_read__stop_flag),
    ZBT_CASE(test_plan_read__empty_group),
    ZBT_CASE(test_plan_read__allocation_failures),
    ZBT_CASE(test_plan_read__positions_reserved),
    ZBT_END
};

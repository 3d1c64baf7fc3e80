/*
 * tests/unit/plan/read_fixtures.c - fixture tables read through the
 * planner, all tasks of the current snapshot in ONE stream (so that delete
 * files shared by several data files are read once and scoped right), and
 * once more with the equality key set forced to spill. Expected counts:
 * the fixtures README (impala-v2-pos-delete-all: no live row;
 * impala-lineitem-multiblock: 20000 rows, 2114 position deletes;
 * duckdb-name-mapping: 10000 rows) and, for the others, what the
 * independent reader tests/interop/scan_reference.mjs (avsc + hyparquet,
 * written from the spec) returns for the current snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/scan/scan_plan.h"
#include "read_util.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "zbtest.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

/* Deep copies of planner tasks (which live until the next task). */
typedef struct group {
    zb_arena *arena;
    zb_scan_task *tasks;
    size_t n, cap;
} group;

static const char *dup_s(zb_arena *a, const char *s)
{
    char *d = s ? zb_arena_strdup(a, s) : NULL;

    ZBT_CHECK(s == NULL || d != NULL);
    return d;
}

static const void *dup_b(zb_arena *a, const void *p, size_t n)
{
    void *d;

    if (p == NULL)
        return NULL;
    d = zb_arena_alloc(a, n ? n : 1);
    ZBT_CHECK(d != NULL);
    memcpy(d, p, n);
    return d;
}

static const ice_data_file *dup_file(zb_arena *a, const ice_data_file *s)
{
    ice_data_file *d = zb_arena_alloc(a, sizeof *d);
    ice_value *pv;
    size_t i;

    ZBT_CHECK(d != NULL);
    *d = *s;
    d->file_path = dup_s(a, s->file_path);
    d->file_format = dup_s(a, s->file_format);
    d->referenced_data_file = dup_s(a, s->referenced_data_file);
    d->equality_ids = dup_b(a, s->equality_ids,
                            s->n_equality_ids * sizeof *s->equality_ids);
    d->partition_field_ids = dup_b(a, s->partition_field_ids,
                                   s->n_partition * sizeof(int32_t));
    d->partition_names = NULL;
    pv = zb_arena_calloc(a, s->n_partition + 1, sizeof *pv);
    ZBT_CHECK(pv != NULL);
    for (i = 0; i < s->n_partition; i++) {
        pv[i] = s->partition[i];
        if (!pv[i].is_null && (pv[i].type == ICE_STRING ||
                               pv[i].type == ICE_BINARY ||
                               pv[i].type == ICE_FIXED))
            pv[i].u.bin.ptr = dup_b(a, pv[i].u.bin.ptr, pv[i].u.bin.len);
    }
    d->partition = pv;
    /* Metrics maps are not needed by the stream. */
    memset(&d->column_sizes, 0, sizeof d->column_sizes);
    memset(&d->value_counts, 0, sizeof d->value_counts);
    memset(&d->null_value_counts, 0, sizeof d->null_value_counts);
    memset(&d->nan_value_counts, 0, sizeof d->nan_value_counts);
    memset(&d->lower_bounds, 0, sizeof d->lower_bounds);
    memset(&d->upper_bounds, 0, sizeof d->upper_bounds);
    d->split_offsets = NULL;
    d->n_split_offsets = 0;
    d->key_metadata = NULL;
    return d;
}

static void dup_scan_file(zb_arena *a, zb_scan_file *d, const zb_scan_file *s)
{
    *d = *s;
    d->file = dup_file(a, s->file);
    d->uri = dup_s(a, s->uri);
}

static void group_add(group *g, const zb_scan_task *t)
{
    zb_scan_task *d;
    zb_scan_file *dels;
    size_t i;

    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->tasks = realloc(g->tasks, g->cap * sizeof *g->tasks);
        ZBT_CHECK(g->tasks != NULL);
    }
    d = &g->tasks[g->n++];
    dup_scan_file(g->arena, &d->data, &t->data);
    dels = zb_arena_calloc(g->arena, t->n_deletes + 1, sizeof *dels);
    ZBT_CHECK(dels != NULL);
    for (i = 0; i < t->n_deletes; i++)
        dup_scan_file(g->arena, &dels[i], &t->deletes[i]);
    d->n_deletes = t->n_deletes;
    d->deletes = dels;
}

typedef struct expect {
    const char *table;
    uint64_t read, pos, eq, out, null_pos;
} expect;

static void check_table(const expect *e)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    ice_metadata *m = NULL;
    char dir[512], hdfs[512], *uri = NULL;
    ice_path_remap remaps[2];
    ice_manifest_opts mo = ICE_MANIFEST_OPTS_INIT;
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *t;
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_read_counts c;
    group g;
    int rc;
    const char *first;
    char *copy;

    memset(&g, 0, sizeof g);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    snprintf(dir, sizeof dir, "%s/%s", ZB_FIXTURES_DIR, e->table);
    ZBT_OK_CTX(ice_metadata_find_latest(&uri, io, &ctx, dir), &ctx);
    ZBT_OK_CTX(ice_metadata_load(&m, io, &ctx, uri), &ctx);
    snprintf(hdfs, sizeof hdfs, "hdfs://localhost:20500%s", m->location);
    remaps[0].from = m->location;
    remaps[0].to = dir;
    remaps[1].from = hdfs;
    remaps[1].to = dir;
    mo.remaps = remaps;
    mo.n_remaps = 2;
    po.manifest = &mo;
    ZBT_CHECK(zb_arena_new(&g.arena, (size_t)64 << 20) == 0);
    ZBT_OK_CTX(zb_scan_plan_open(&p, io, &ctx, m,
                                 ice_metadata_current_snapshot(m), &po),
               &ctx);
    while ((rc = zb_scan_plan_next(p, &ctx, &t)) == 1)
        group_add(&g, t);
    ZBT_OK_CTX(rc, &ctx);
    zb_scan_plan_free(p);

    o.meta = m;
    o.paths = &mo;
    first = rt_read_all(io, &ctx, &o, g.tasks, g.n, &c);
    copy = strdup(first);
    ZBT_EQ_U64(c.rows_read, e->read);
    ZBT_EQ_U64(c.deleted_by_position, e->pos);
    ZBT_EQ_U64(c.deleted_by_equality, e->eq);
    ZBT_EQ_U64(c.rows_out, e->out);
    ZBT_EQ_U64(c.null_position_deletes, e->null_pos);
    ZBT_EQ_U64(c.data_files, g.n);
    /* Forced to spill: the same rows, in the same order. */
    o.eq_memory_bytes = 1;
    ZBT_EQ_STR(rt_read_all(io, &ctx, &o, g.tasks, g.n, &c), copy);
    ZBT_EQ_U64(c.deleted_by_equality, e->eq);
    ZBT_EQ_U64(c.eq_spilled, e->eq > 0);
    free(copy);
    free(g.tasks);
    zb_arena_free(g.arena);
    ice_metadata_free(m);
    zb_free(uri);
    zb_io_free(io);
}

static void test_plan_read__fixture_groups(void)
{
    static const expect tables[] = {
        { "impala-v2-pos-delete-all", 3, 3, 0, 0, 0 },
        { "impala-lineitem-multiblock", 20000, 2114, 0, 17886, 0 },
        { "duckdb-name-mapping", 10000, 0, 0, 10000, 0 },
        /* 8 null file_path rows in its 5 delete files (hyparquet). */
        { "impala-v2-null-delete-record", 8, 2, 0, 6, 8 },
        { "impala-v2-eq-multi-ids", 10, 0, 5, 5, 0 },
        { "impala-v2-pos-and-multi-eq", 7, 1, 2, 4, 0 },
        { "impala-v2-eq-nulls", 5, 0, 2, 3, 0 },
        { "impala-v2-eq-partitioned", 8, 0, 2, 6, 0 },
        { "impala-v2-eq-part-evolution", 3, 0, 1, 2, 0 },
        { "impala-v2-eq-schema-evolution", 6, 0, 3, 3, 0 },
        { "impala-v2-pos-partitioned", 20, 10, 0, 10, 0 },
        { "impala-v3-deletion-vectors", 5, 2, 0, 3, 0 },
        { "impala-v1-alltypes-part", 2, 0, 0, 2, 0 },
        { "impala-v3-default-part", 5, 0, 0, 5, 0 },
        { "impala-v3-trino-variant", 55, 0, 0, 55, 0 },
        /* Rewritten by Spark; its old position delete file dangles. */
        { "impala-spark-compaction-dangling", 4, 0, 0, 4, 0 },
        { "impala-v2-pos-some-files", 10, 4, 0, 6, 0 },
        { "impala-v2-eq-and-pos", 4, 1, 1, 2, 0 },
    };
    size_t i;
    char probe[600];
    zbt_files fl;

    memset(&fl, 0, sizeof fl);
    snprintf(probe, sizeof probe, "%s/impala-v2-eq-nulls", ZB_FIXTURES_DIR);
    if (zbt_find_files(&fl, probe, ".json") == 0) {
        printf("     skipped: no fixtures at %s\n", ZB_FIXTURES_DIR);
        return;
    }
    zbt_files_free(&fl);
    for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        printf("     %s\n", tables[i].table);
        check_table(&tables[i]);
    }
}

const zbt_case test_plan_read_fixtures[] = {
    ZBT_CASE(test_plan_read__fixture_groups),
    ZBT_END
};

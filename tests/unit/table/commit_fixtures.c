/*
 * The snapshot producer on tables other writers made (../shared/fixtures,
 * copied to a temporary folder): a replace of one live data file by a
 * new one, and the removal of every delete file, against manifests
 * written by Iceberg Java, Spark, Impala and Trino (v1 to v3, partition
 * evolution, bucket and null partitions, deletion vectors, row lineage).
 * Afterwards the snapshot iterator must see the same live files but the
 * ones changed, with their sequence numbers, snapshot ids and first row
 * ids as before. Skipped with a note when the fixtures are missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commit_test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "zamboni/io.h"

typedef struct fx {
    zb_ctx ctx;
    zb_io *io;
    ice_metadata *m;
    char dir[1024];
    char loc[1024];                /* the model's string moves on commit */
    char hdfs[1200];
    ice_path_remap remaps[2];
    ice_manifest_opts paths;
} fx;

typedef struct item {
    char *path;
    int content;
    int32_t spec_id;
    int64_t seq, fseq, snap, first_row_id, records;
} item;

static int fx_open(fx *f, const char *name)
{
    char src[1024], cmd[2300], *uri = NULL;
    struct stat st;
    ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;

    memset(f, 0, sizeof *f);
    zb_ctx_init(&f->ctx);
    snprintf(src, sizeof src, "%s/%s", ZB_FIXTURES_DIR, name);
    if (stat(src, &st) != 0) {
        printf("  (skipped: no fixture %s)\n", src);
        return 0;
    }
    snprintf(f->dir, sizeof f->dir, "%s/%s", zbt_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s'", src, f->dir);
    ZBT_EQ_INT(system(cmd), 0);
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    ZBT_OK_CTX(ice_metadata_find_latest(&uri, f->io, &f->ctx, f->dir),
               &f->ctx);
    ZBT_OK_CTX(ice_metadata_load(&f->m, f->io, &f->ctx, uri), &f->ctx);
    zb_free(uri);
    snprintf(f->hdfs, sizeof f->hdfs, "hdfs://localhost:20500%s",
             f->m->location);
    snprintf(f->loc, sizeof f->loc, "%s", f->m->location);
    f->remaps[0].from = f->loc;
    f->remaps[0].to = f->dir;
    f->remaps[1].from = f->hdfs;
    f->remaps[1].to = f->dir;
    f->paths = o;
    f->paths.remaps = f->remaps;
    f->paths.n_remaps = 2;
    return 1;
}

static void fx_close(fx *f)
{
    ice_metadata_free(f->m);
    zb_io_free(f->io);
}

static size_t fx_live(fx *f, item *out, size_t max)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    size_t n = 0;
    int rc;

    ZBT_OK_CTX(ice_snapshot_iter_open(&it, f->io, &f->ctx, f->m,
                                      ice_metadata_current_snapshot(f->m),
                                      &f->paths), &f->ctx);
    while ((rc = ice_snapshot_iter_next(it, &f->ctx, &e, &mf)) > 0) {
        ZBT_CHECK(n < max);
        out[n].path = zb_strdup(e->data_file.file_path);
        out[n].content = (int)e->data_file.content;
        out[n].spec_id = mf->partition_spec_id;
        out[n].seq = e->sequence_number;
        out[n].fseq = e->file_sequence_number;
        out[n].snap = e->snapshot_id;
        out[n].first_row_id = e->data_file.first_row_id;
        out[n].records = e->data_file.record_count;
        n++;
    }
    ZBT_OK_CTX(rc, &f->ctx);
    ice_snapshot_iter_free(it);
    return n;
}

static void items_free(item *it, size_t n)
{
    while (n-- > 0)
        zb_free(it[n].path);
}

static const item *find(const item *it, size_t n, const char *path)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(it[i].path, path) == 0)
            return &it[i];
    return NULL;
}

/* The first live data file, its entry copied into an op as replacement. */
static int add_replacement(fx *f, ice_commit_op *op, const char *victim,
                           const char *new_path)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    int rc, done = 0;

    ZBT_OK_CTX(ice_snapshot_iter_open(&it, f->io, &f->ctx, f->m,
                                      ice_metadata_current_snapshot(f->m),
                                      &f->paths), &f->ctx);
    while (!done && (rc = ice_snapshot_iter_next(it, &f->ctx, &e, &mf)) > 0)
        if (strcmp(e->data_file.file_path, victim) == 0) {
            ice_data_file d = e->data_file;

            d.file_path = new_path;
            d.first_row_id = ICE_NULL_LONG;
            ZBT_OK_CTX(ice_commit_op_add_file(op, &f->ctx,
                                              mf->partition_spec_id, &d),
                       &f->ctx);
            done = 1;
        }
    ice_snapshot_iter_free(it);
    return done;
}

static void commit(fx *f, ice_commit_op *op)
{
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;

    ZBT_OK_CTX(ice_commit_op_build(op, &f->ctx, f->m, &r), &f->ctx);
    ZBT_OK_CTX(ice_commit_check_requirements(f->m, &f->ctx, r.requirements),
               &f->ctx);
    ZBT_OK_CTX(ice_commit_apply_updates(f->m, &f->ctx, r.updates), &f->ctx);
    ZBT_EQ_INT(f->m->current_snapshot_id, r.snapshot_id);
    ice_commit_result_free(&r);
}

static void replace_one(const char *name)
{
    fx f;
    item before[256], after[256];
    size_t nb, na, i;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_op *op = NULL;
    char victim[1200], repl[1200];
    int64_t seq, next_row = 0;
    const item *v = NULL;

    if (!fx_open(&f, name))
        return;
    nb = fx_live(&f, before, 256);
    for (i = 0; i < nb && v == NULL; i++)
        if (before[i].content == 0)
            v = &before[i];
    ZBT_CHECK(v != NULL);
    snprintf(victim, sizeof victim, "%s", v->path);
    snprintf(repl, sizeof repl, "%s/data/zb-replacement.parquet", f.dir);
    next_row = f.m->has_next_row_id ? f.m->next_row_id : 0;
    o.kind = ICE_OP_REPLACE;
    o.io = f.io;
    o.root = f.dir;
    o.paths = &f.paths;
    ZBT_OK_CTX(ice_commit_op_new(&op, &f.ctx, &o), &f.ctx);
    ZBT_OK_CTX(ice_commit_op_remove_file(op, &f.ctx, victim), &f.ctx);
    ZBT_CHECK(add_replacement(&f, op, victim, repl));
    commit(&f, op);
    ice_commit_op_free(op);
    seq = f.m->format_version >= 2 ? f.m->last_sequence_number : 0;

    na = fx_live(&f, after, 256);
    ZBT_EQ_INT(na, nb);
    ZBT_CHECK(find(after, na, victim) == NULL);
    ZBT_CHECK((v = find(after, na, repl)) != NULL);
    ZBT_EQ_INT(v->seq, seq);
    ZBT_EQ_INT(v->snap, f.m->current_snapshot_id);
    if (f.m->format_version >= 3)
        ZBT_CHECK(v->first_row_id >= next_row);
    for (i = 0; i < nb; i++) {
        const item *a = find(after, na, before[i].path);

        if (strcmp(before[i].path, victim) == 0)
            continue;
        if (a == NULL)
            zbt__fail(__FILE__, __LINE__, "%s: %s is gone", name,
                      before[i].path);
        ZBT_EQ_INT(a->seq, before[i].seq);
        ZBT_EQ_INT(a->fseq, before[i].fseq);
        ZBT_EQ_INT(a->snap, before[i].snap);
        ZBT_EQ_INT(a->spec_id, before[i].spec_id);
        ZBT_EQ_INT(a->first_row_id, before[i].first_row_id);
    }
    {
        const ice_snapshot *s = ice_metadata_current_snapshot(f.m);
        const char *op_name = s->operation;

        ZBT_EQ_STR(op_name, "replace");
    }
    items_free(before, nb);
    items_free(after, na);
    fx_close(&f);
}

/* Every live delete file removed (dangling ones among them). */
static void drop_deletes(const char *name)
{
    fx f;
    item before[256], after[256];
    size_t nb, na, i, n_data = 0, n_del = 0;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_op *op = NULL;

    if (!fx_open(&f, name))
        return;
    nb = fx_live(&f, before, 256);
    o.kind = ICE_OP_DELETE;
    o.io = f.io;
    o.root = f.dir;
    o.paths = &f.paths;
    ZBT_OK_CTX(ice_commit_op_new(&op, &f.ctx, &o), &f.ctx);
    for (i = 0; i < nb; i++) {
        if (before[i].content == 0) {
            n_data++;
            continue;
        }
        n_del++;
        ZBT_OK_CTX(ice_commit_op_remove_file(op, &f.ctx, before[i].path),
                   &f.ctx);
    }
    ZBT_CHECK(n_del > 0);
    commit(&f, op);
    ice_commit_op_free(op);
    na = fx_live(&f, after, 256);
    ZBT_EQ_INT(na, n_data);
    for (i = 0; i < na; i++)
        ZBT_EQ_INT(after[i].content, 0);
    ZBT_EQ_STR(ice_metadata_current_snapshot(f.m)->operation, "delete");
    items_free(before, nb);
    items_free(after, na);
    fx_close(&f);
}

static void test_table_commit_fixtures__replace(void)
{
    static const char *const tables[] = {
        "impala-v1-partitioned", "impala-v1-alltypes-part",
        "impala-v2-pos-partitioned", "impala-v2-eq-part-evolution",
        "icebird-spark-rename-column", "icebird-java-bunnies",
        "duckdb-hive-part-evolution", "impala-v3-deletion-vectors",
        "impala-v3-row-lineage", "impala-v3-default-part",
    };
    size_t i;

    for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
        replace_one(tables[i]);
}

static void test_table_commit_fixtures__drop_deletes(void)
{
    static const char *const tables[] = {
        "impala-spark-compaction-dangling", "impala-v2-eq-and-pos",
        "icebird-spark-bunnies", "impala-v3-deletion-vectors",
    };
    size_t i;

    for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
        drop_deletes(tables[i]);
}

const zbt_case test_table_commit_fixtures[] = {
    ZBT_CASE(test_table_commit_fixtures__replace),
    ZBT_CASE(test_table_commit_fixtures__drop_deletes),
    ZBT_END
};

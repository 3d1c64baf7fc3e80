/*
 * remove-dangling-deletes: on copies of the two fixture tables whose
 * README says a position delete file dangles (Spark compaction left it
 * behind), and on generated tables where a position delete loses its
 * data file and an equality delete loses every older data file of its
 * partition. Each time: the dry run counts and changes no file; the run
 * removes exactly the dangling files in one "replace" snapshot; every
 * other live entry keeps its sequence numbers and snapshot id; the live
 * rows (the planner and the row stream) are the same rows; every file
 * referenced exists; a second run finds nothing and commits nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/arrow/arrow.h"
#include "ops/remove_dangling_deletes.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit.h"
#include "ops_fixture.h"
#include "util/alloc.h"

static void report(char *out, size_t n, const char *ident,
                   const zb_dangling_result *r, int dry)
{
    zb_buf b;

    zb_buf_init(&b, 1 << 20);
    ZBT_EQ_INT(zb_dangling_report(&b, ident, r, dry), 0);
    snprintf(out, n, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
}

/* The delete files of a that b lacks (pointers into a), at most max. */
static size_t gone(const char **out, size_t max, const of_items *a,
                   const of_items *b)
{
    size_t i, j, n = 0;

    for (i = 0; i < a->n; i++) {
        int found = 0;

        for (j = 0; j < b->n && !found; j++)
            found = strcmp(a->v[i].path, b->v[j].path) == 0 &&
                    a->v[i].offset == b->v[j].offset;
        if (!found && n < max)
            out[n++] = a->v[i].path;
    }
    return n;
}

/*
 * The whole check on one table whose dangling files number n_dangling
 * (all removable); returns the removed paths' count.
 */
static void check_removal(of_env *e, uint64_t n_deletes, uint64_t n_dangling)
{
    zb_dangling_opts o = ZB_DANGLING_OPTS_INIT;
    zb_dangling_result r;
    of_items a, b;
    uint64_t rows0, h0, rows1, h1;
    char *before, *after, *op, text[1024];
    const char *rm[16];
    size_t n_rm, i, snaps;

    of_live(&a, e);
    of_rows(e, &rows0, &h0);
    of_check_files(e);
    snaps = of_snapshot_count(e);
    /* dry run */
    before = of_listing(e->dir);
    e->t.dry_run = 1;
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e->t, &e->ctx, &o, &r), &e->ctx);
    ZBT_EQ_U64(r.delete_files, n_deletes);
    ZBT_EQ_U64(r.dangling, n_dangling);
    ZBT_EQ_U64(r.removable, n_dangling);
    ZBT_EQ_U64(r.removed, n_dangling);
    ZBT_EQ_INT(r.committed, 0);
    after = of_listing(e->dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    report(text, sizeof text, "t", &r, 1);
    if (n_dangling > 0)
        ZBT_CONTAINS(text, "would remove");
    else
        ZBT_CONTAINS(text, ", 0 dangling\n");
    /* the run */
    e->t.dry_run = 0;
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e->t, &e->ctx, &o, &r), &e->ctx);
    ZBT_EQ_U64(r.dangling, n_dangling);
    ZBT_EQ_U64(r.removed, n_dangling);
    ZBT_EQ_INT(r.committed, n_dangling > 0);
    ZBT_EQ_U64(of_snapshot_count(e), snaps + (n_dangling > 0));
    if (n_dangling > 0) {
        op = of_summary(e, "operation");
        ZBT_EQ_STR(op, "replace");
        zb_free(op);
        ZBT_EQ_INT(of_current_id(e), r.snapshot_id);
    }
    of_live(&b, e);
    n_rm = gone(rm, 16, &a, &b);
    ZBT_EQ_U64(n_rm, n_dangling);
    for (i = 0; i < a.n; i++)
        if (a.v[i].content == 0)
            ZBT_CHECK(b.n > 0);
    for (i = 0; i < n_rm; i++) {
        size_t k;

        for (k = 0; k < a.n; k++)
            if (a.v[k].path == rm[i])
                ZBT_CHECK(a.v[k].content != 0);   /* only delete files */
    }
    of_items_same(&a, &b, rm, n_rm);
    ZBT_EQ_U64(of_count(&b, 0), of_count(&a, 0));
    of_rows(e, &rows1, &h1);
    ZBT_EQ_U64(rows1, rows0);
    ZBT_EQ_U64(h1, h0);
    of_check_files(e);
    /* again: nothing dangles, nothing committed */
    before = of_listing(e->dir);
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e->t, &e->ctx, &o, &r), &e->ctx);
    ZBT_EQ_U64(r.dangling, 0);
    ZBT_EQ_INT(r.committed, 0);
    after = of_listing(e->dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    of_items_free(&a);
    of_items_free(&b);
}

static void test_ops_tidy_dangling__fixtures(void)
{
    static const char *const names[] = { "impala-spark-compaction-dangling",
                                         "icebird-spark-bunnies" };
    size_t i;

    for (i = 0; i < 2; i++) {
        of_env e;
        of_items a;
        zb_dangling_result r;
        char text[512];

        if (!of_fixture(&e, names[i])) {
            of_close(&e);
            continue;
        }
        of_live(&a, &e);
        printf("  %s: %zu data, %zu pos, %zu eq\n", names[i], of_count(&a, 0),
               of_count(&a, 1), of_count(&a, 2));
        check_removal(&e, of_count(&a, 1) + of_count(&a, 2), 1);
        /* the report of a table without dangling files */
        e.t.dry_run = 1;
        ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r),
                   &e.ctx);
        report(text, sizeof text, "t", &r, 1);
        if (r.delete_files == 0)
            ZBT_EQ_STR(text, "t: no delete files\n");
        else
            ZBT_CONTAINS(text, ", 0 dangling\n");
        of_items_free(&a);
        of_close(&e);
    }
}

/* Removes a live data file (as the manifest names it) in a delete commit. */
static void drop_data_file(of_env *e, const char *path)
{
    zb_table *t = of_load(e), *t2 = NULL;
    ice_commit_op_opts oo = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_op *op = NULL;
    ice_commit_result cr = ICE_COMMIT_RESULT_INIT;

    oo.kind = ICE_OP_DELETE;
    oo.io = e->io;
    oo.root = t->root;
    oo.paths = &t->paths;
    ZBT_OK_CTX(ice_commit_op_new(&op, &e->ctx, &oo), &e->ctx);
    ZBT_OK_CTX(ice_commit_op_remove_file(op, &e->ctx, path), &e->ctx);
    ZBT_OK_CTX(ice_commit_op_build(op, &e->ctx, t->meta, &cr), &e->ctx);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, cr.requirements,
                                 cr.updates, &t2), &e->ctx);
    ice_commit_result_free(&cr);
    ice_commit_op_free(op);
    zb_table_free(t);
    zb_table_free(t2);
}

/* The data file of partition part in the live entries, or NULL. */
static const char *data_of(const of_items *it, size_t nth)
{
    size_t i, k = 0;

    for (i = 0; i < it->n; i++)
        if (it->v[i].content == 0 && k++ == nth)
            return it->v[i].path;
    return NULL;
}

static void delete_pos(of_env *e, const char *path, int part)
{
    zb_table *t = of_load(e);
    int64_t pos = 0;
    ice_value v = ice_value_int(part);
    zb_write_partition wp = { -1, 1, NULL, NULL };

    wp.values = &v;
    ZBT_OK_CTX(zb_ingest_delete_positions(&t, e->cat, e->io, &e->ctx,
                                          &path, &pos, 1, &wp), &e->ctx);
    zb_table_free(t);
}

static void delete_eq(of_env *e, int64_t id, int part)
{
    zb_table *t = of_load(e);
    ice_value v = ice_value_int(part);
    zb_write_partition wp = { -1, 1, NULL, NULL };
    struct ArrowSchema s;
    struct ArrowArray b;
    int32_t eq = 1;
    int64_t *idv;
    char *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", "1", NULL };

    wp.values = &v;
    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 1) == 0);
    ZBT_CHECK(zb_arrow_metadata(&md, &md_len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s.children[0], "l", "id", md, md_len, 0,
                                   0) == 0);
    zb_free(md);
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 1) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[0], 2, 0) == 0);
    idv = zb_malloc(sizeof *idv);
    ZBT_CHECK(idv != NULL);
    *idv = id;
    b.children[0]->buffers[1] = idv;
    b.length = b.children[0]->length = 1;
    ZBT_OK_CTX(zb_ingest_delete_equal(&t, e->cat, e->io, &e->ctx, &eq, 1, &s,
                                      &b, part < 0 ? NULL : &wp), &e->ctx);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
}

static void test_ops_tidy_dangling__generated(void)
{
    of_env e;
    of_items a;
    char *pa, *pb, text[512];
    zb_dangling_result r;

    of_open(&e, "gen");
    of_make_table(&e, 2, 1, 2, 2, 20);  /* A: part 0 ids 0..19, B: part 1 */
    e.t.dry_run = 1;
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r), &e.ctx);
    report(text, sizeof text, "t", &r, 1);
    ZBT_EQ_STR(text, "t: no delete files\n");
    e.t.dry_run = 0;
    of_live(&a, &e);
    pa = zb_strdup(data_of(&a, 0));   /* sorted by path: part=0 first */
    pb = zb_strdup(data_of(&a, 1));
    ZBT_CHECK(strstr(pa, "part=0") && strstr(pb, "part=1"));
    of_items_free(&a);
    delete_pos(&e, pa, 0);             /* row 0 of A */
    delete_eq(&e, 21, 1);              /* id 21 of B */
    /* both apply: nothing dangles */
    check_removal(&e, 2, 0);
    /* A goes: its position delete dangles, the equality delete does not */
    drop_data_file(&e, pa);
    check_removal(&e, 2, 1);
    /* a newer file in part 1, and B goes: the equality delete (older than
     * the new file) applies to nothing */
    of_append(&e, 1, 1000, 5);
    drop_data_file(&e, pb);
    check_removal(&e, 1, 1);
    zb_free(pa);
    zb_free(pb);
    of_close(&e);
}

static void test_ops_tidy_dangling__unpartitioned_eq(void)
{
    of_env e;
    of_items a;
    char *pa;

    /* an unpartitioned equality delete applies to older files of every
     * partition: it dangles only when none is older */
    of_open(&e, "ueq");
    of_make_table(&e, 2, 0, 1, 1, 10);
    delete_eq(&e, 3, -1);
    of_append(&e, -1, 100, 10);
    check_removal(&e, 1, 0);
    of_live(&a, &e);
    pa = zb_strdup(data_of(&a, 0));
    of_items_free(&a);
    of_live(&a, &e);
    /* drop the older file (the one holding id 0..9) */
    {
        size_t i;
        for (i = 0; i < a.n; i++)
            if (a.v[i].content == 0 && a.v[i].seq == 1) {
                zb_free(pa);
                pa = zb_strdup(a.v[i].path);
            }
    }
    of_items_free(&a);
    drop_data_file(&e, pa);
    check_removal(&e, 1, 1);
    zb_free(pa);
    of_close(&e);
}

static void test_ops_tidy_dangling__v1(void)
{
    of_env e;
    zb_dangling_result r;

    of_open(&e, "v1");
    of_make_table(&e, 1, 0, 1, 2, 5);
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r), &e.ctx);
    ZBT_EQ_U64(r.delete_files, 0);
    ZBT_EQ_INT(r.committed, 0);
    of_close(&e);
}

/* A child process appends while the removal runs: each run ends
 * committed, with nothing to do, or in ZB_ECONFLICT; in the end the
 * dangling file is gone and every data file of both writers is live. */
static void test_ops_tidy_dangling__concurrent_appends(void)
{
    of_env e;
    zb_dangling_opts o = ZB_DANGLING_OPTS_INIT;
    zb_dangling_result r;
    of_items a, b;
    char *pa;
    uint64_t rows, h;
    size_t runs = 0, commits = 0, conflicts = 0;
    int st = 0, done = 0;
    pid_t pid;

    of_open(&e, "dg-race");
    of_make_table(&e, 2, 1, 2, 2, 10);
    of_live(&a, &e);
    pa = zb_strdup(data_of(&a, 0));
    of_items_free(&a);
    delete_pos(&e, pa, 0);
    drop_data_file(&e, pa);
    o.max_attempts = 2;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        of_env c = e;
        zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
        int k, rc = 0;

        zb_ctx_init(&c.ctx);
        cfg.kind = ZB_CATALOG_PATH;
        if (zb_io_new(&c.io, &c.ctx) < 0 ||
            zb_catalog_open(&c.cat, &c.ctx, c.io, &cfg) < 0)
            _exit(3);
        for (k = 0; k < 15 && rc == 0; k++)
            rc = of_append_rc(&c, k % 2, 1000 + k * 4, 4);
        if (rc < 0)
            fprintf(stderr, "child: %s\n", c.ctx.err.msg);
        _exit(rc < 0 ? 1 : 0);
    }
    ZBT_CHECK(pid > 0);
    for (;;) {
        int rc;

        if (!done && waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        rc = zb_remove_dangling_deletes(&e.t, &e.ctx, &o, &r);
        runs++;
        if (rc == ZB_ECONFLICT) {
            conflicts++;
            continue;
        }
        ZBT_OK_CTX(rc, &e.ctx);
        commits += (size_t)r.committed;
        if (done && commits > 0 && r.dangling == 0)
            break;
        ZBT_CHECK(runs < 20000);
        if (commits > 0)
            nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
    }
    ZBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ZBT_EQ_U64(commits, 1);
    printf("  %zu run(s), %zu commit(s), %zu lost race(s)\n", runs, commits,
           conflicts);
    of_live(&b, &e);
    ZBT_EQ_U64(of_count(&b, 1), 0);
    ZBT_EQ_U64(of_count(&b, 0), 1 + 15);
    of_rows(&e, &rows, &h);
    ZBT_EQ_U64(rows, 10 + 15 * 4);
    of_check_files(&e);
    of_items_free(&b);
    zb_free(pa);
    of_close(&e);
}

/* Every fixture, dry run: the dangling count equals the planner's own
 * count of delete files that applied to no task, and only the two tables
 * the README names have any; nothing is written. */
static void test_ops_tidy_dangling__all_fixtures(void)
{
    static const char *const names[] = {
        "duckdb-eq-deletes", "duckdb-eq-deletes-partitioned",
        "duckdb-hive-part-evolution", "duckdb-lineitem",
        "duckdb-name-mapping", "duckdb-pyiceberg-defaults",
        "icebird-athena-example", "icebird-java-bunnies",
        "icebird-spark-bunnies", "icebird-spark-rename-column",
        "impala-lineitem-multiblock", "impala-spark-compaction-dangling",
        "impala-v1-alltypes-part", "impala-v1-non-partitioned",
        "impala-v1-partitioned", "impala-v2-eq-and-pos",
        "impala-v2-eq-delete", "impala-v2-eq-multi-ids",
        "impala-v2-eq-nulls", "impala-v2-eq-part-evolution",
        "impala-v2-eq-partitioned", "impala-v2-eq-schema-evolution",
        "impala-v2-null-delete-record", "impala-v2-pos-and-multi-eq",
        "impala-v2-pos-delete", "impala-v2-pos-delete-all",
        "impala-v2-pos-partitioned", "impala-v2-pos-some-files",
        "impala-v2-pos-update-all", "impala-v3-all-types",
        "impala-v3-default-part", "impala-v3-deletion-vectors",
        "impala-v3-row-lineage", "impala-v3-trino-variant" };
    /* README: a dangling position delete; and Iceberg Java's hand-made
     * equality delete tables whose first delete shares its commit (and
     * sequence number) with the data it names */
    static const char *const expect[] = {
        "icebird-spark-bunnies", "impala-spark-compaction-dangling",
        "impala-v2-eq-and-pos", "impala-v2-eq-delete",
        "impala-v2-eq-part-evolution", "impala-v2-eq-partitioned",
        "impala-v2-pos-and-multi-eq" };
    size_t i, with_dangling = 0;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        of_env e;
        zb_dangling_result r;
        zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
        zb_scan_plan *p = NULL;
        const zb_scan_task *task;
        zb_scan_stats st;
        zb_table *t;
        char *before, *after, text[512];
        int rc;

        if (!of_fixture(&e, names[i])) {
            of_close(&e);
            continue;
        }
        before = of_listing(e.dir);
        e.t.dry_run = 1;
        ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r),
                   &e.ctx);
        after = of_listing(e.dir);
        ZBT_EQ_STR(after, before);
        zb_free(before);
        zb_free(after);
        t = of_load(&e);
        memset(&st, 0, sizeof st);
        if (ice_metadata_current_snapshot(t->meta) != NULL) {
            po.manifest = &t->paths;
            ZBT_OK_CTX(zb_scan_plan_open(&p, e.io, &e.ctx, t->meta,
                                         ice_metadata_current_snapshot(t->meta),
                                         &po), &e.ctx);
            while ((rc = zb_scan_plan_next(p, &e.ctx, &task)) > 0)
                ;
            ZBT_OK_CTX(rc, &e.ctx);
            zb_scan_plan_stats(&st, p);
            zb_scan_plan_free(p);
        }
        zb_table_free(t);
        ZBT_EQ_U64(r.dangling, st.unused_delete_files);
        ZBT_EQ_U64(r.delete_files, st.pos_delete_files + st.eq_delete_files +
                   st.dv_files);
        report(text, sizeof text, names[i], &r, 1);
        printf("  %s", text);
        if (r.dangling > 0) {
            /* each one checked: by the spec's rules an equality delete
             * committed with the data it was written against (same
             * sequence number) applies to none of it */
            size_t k, listed = 0;

            for (k = 0; k < sizeof expect / sizeof expect[0]; k++)
                listed |= strcmp(expect[k], names[i]) == 0;
            ZBT_CHECK(listed);
            with_dangling++;
            check_removal(&e, r.delete_files, r.dangling);
        }
        of_close(&e);
    }
    ZBT_EQ_U64(with_dangling, sizeof expect / sizeof expect[0]);
}

/* Commits a deletion vector entry (v3) for data file ref in puffin at
 * offset. The Puffin file is not written: these cases read metadata only. */
static void add_dv(of_env *e, const char *ref, const char *puffin,
                   int64_t offset)
{
    zb_table *t = of_load(e);
    ice_data_file f;

    memset(&f, 0, sizeof f);
    f.content = ICE_CONTENT_POSITION_DELETES;
    f.file_path = puffin;
    f.file_format = "PUFFIN";
    f.record_count = 1;
    f.file_size_in_bytes = 200;
    f.block_size_in_bytes = ICE_NULL_LONG;
    f.first_row_id = ICE_NULL_LONG;
    f.referenced_data_file = ref;
    f.content_offset = offset;
    f.content_size_in_bytes = 40;
    ZBT_OK_CTX(zb_ingest_commit_files(&t, e->cat, e->io, &e->ctx, &f, NULL, 1),
               &e->ctx);
    zb_table_free(t);
}

/* Deletion vectors: one whose data file is gone dangles and is removed;
 * one in a Puffin file that also holds a live DV is counted, and kept. */
static void test_ops_tidy_dangling__deletion_vectors(void)
{
    of_env e;
    of_items a, b;
    zb_dangling_result r;
    char *p0, *p1, *p2, puf1[1200], puf2[1200], text[512];
    const char *gone_path[1];

    of_open(&e, "dv");
    of_make_table(&e, 3, 0, 1, 3, 10);
    of_live(&a, &e);
    p0 = zb_strdup(data_of(&a, 0));
    p1 = zb_strdup(data_of(&a, 1));
    p2 = zb_strdup(data_of(&a, 2));
    of_items_free(&a);
    snprintf(puf1, sizeof puf1, "%s/data/dv-1.puffin", e.dir);
    snprintf(puf2, sizeof puf2, "%s/data/dv-2.puffin", e.dir);
    add_dv(&e, p0, puf1, 4);           /* alone in its file */
    add_dv(&e, p1, puf2, 4);           /* two in one file */
    add_dv(&e, p2, puf2, 44);
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r), &e.ctx);
    ZBT_EQ_U64(r.dvs, 3);
    ZBT_EQ_U64(r.dangling, 0);
    drop_data_file(&e, p0);
    drop_data_file(&e, p1);
    of_live(&a, &e);
    e.t.dry_run = 1;
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r), &e.ctx);
    ZBT_EQ_U64(r.delete_files, 3);
    ZBT_EQ_U64(r.dangling, 2);
    ZBT_EQ_U64(r.removable, 1);
    ZBT_EQ_U64(r.kept_shared, 1);
    ZBT_EQ_U64(r.removable_bytes, 40);
    report(text, sizeof text, "t", &r, 1);
    ZBT_EQ_STR(text, "t: 3 delete file(s), 2 dangling\n"
               "  1 removable (40B) in 1 whole manifest(s)\n"
               "  would remove 1 delete file(s) (40B)\n"
               "  1 deletion vector(s) kept: their Puffin file holds live "
               "ones\n");
    e.t.dry_run = 0;
    ZBT_OK_CTX(zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r), &e.ctx);
    ZBT_EQ_INT(r.committed, 1);
    ZBT_EQ_U64(r.removed, 1);
    of_live(&b, &e);
    gone_path[0] = puf1;
    of_items_same(&a, &b, gone_path, 1);
    ZBT_EQ_U64(of_count(&b, 1), 2);
    of_items_free(&a);
    of_items_free(&b);
    zb_free(p0);
    zb_free(p1);
    zb_free(p2);
    of_close(&e);
}

const zbt_case test_ops_tidy_dangling[] = {
    ZBT_CASE(test_ops_tidy_dangling__fixtures),
    ZBT_CASE(test_ops_tidy_dangling__all_fixtures),
    ZBT_CASE(test_ops_tidy_dangling__generated),
    ZBT_CASE(test_ops_tidy_dangling__unpartitioned_eq),
    ZBT_CASE(test_ops_tidy_dangling__v1),
    ZBT_CASE(test_ops_tidy_dangling__deletion_vectors),
    ZBT_CASE(test_ops_tidy_dangling__concurrent_appends),
    ZBT_END
};

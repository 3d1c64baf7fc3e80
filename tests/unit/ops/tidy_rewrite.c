/*
 * rewrite-manifests: generated tables (v1, v2, v3; partitioned, with
 * delete manifests) made of one manifest per append, and copies of every
 * fixture table. After a rewrite: the live entries (path, content, spec,
 * data and file sequence numbers, snapshot id, first row id, records,
 * size) equal those before, total-records is unchanged, the snapshot is
 * a "replace" with Java's RewriteManifests summary, every referenced file
 * exists, and (generated tables and the fixtures the row stream reads)
 * the live rows are the same rows. Skips: too few data manifests, a
 * layout that would not improve; a bad target property is ZB_EUNSAFE;
 * dry runs change no file. With ZB_TIDY_OUT=<dir> the v2 and v3 tables
 * are kept there for tests/interop/tidy_manifests.mjs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ops/apply_properties.h"
#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "ops/ingest/table_write.h"
#include "ops_fixture.h"
#include "util/alloc.h"
#include "zamboni/budget.h"

static void report(char *out, size_t n, const char *ident,
                   const zb_rewrite_manifests_result *r, int dry)
{
    zb_buf b;

    zb_buf_init(&b, 1 << 20);
    ZBT_EQ_INT(zb_rewrite_manifests_report(&b, ident, r, dry), 0);
    snprintf(out, n, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
}

/* Runs a dry run and a rewrite and checks everything; returns whether
 * it committed. rows: compare the live rows too. */
static int rewrite_checked(of_env *e, const zb_rewrite_manifests_opts *o,
                           int rows, zb_rewrite_manifests_result *out)
{
    zb_rewrite_manifests_result r, d;
    of_items a, b;
    uint64_t rows0 = 0, h0 = 0, rows1, h1;
    char *before, *after, *tr0, *tr1, *op;
    size_t nd, ndel;

    of_live(&a, e);
    if (rows)
        of_rows(e, &rows0, &h0);
    tr0 = of_summary(e, "total-records");
    before = of_listing(e->dir);
    e->t.dry_run = 1;
    ZBT_OK_CTX(zb_rewrite_manifests(&e->t, &e->ctx, o, &d), &e->ctx);
    ZBT_EQ_INT(d.committed, 0);
    after = of_listing(e->dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    e->t.dry_run = 0;
    ZBT_OK_CTX(zb_rewrite_manifests(&e->t, &e->ctx, o, &r), &e->ctx);
    ZBT_EQ_INT(r.skipped, d.skipped);
    ZBT_EQ_U64(r.manifests_created, d.manifests_created);
    ZBT_EQ_U64(r.spread_after, d.spread_after);
    ZBT_EQ_INT(r.committed, !r.skipped);
    of_live(&b, e);
    of_items_same(&a, &b, NULL, 0);
    tr1 = of_summary(e, "total-records");
    ZBT_CHECK((tr0 == NULL) == (tr1 == NULL));
    if (tr0)
        ZBT_EQ_STR(tr1, tr0);
    if (r.committed) {
        char num[32];

        op = of_summary(e, "operation");
        ZBT_EQ_STR(op, "replace");
        zb_free(op);
        op = of_summary(e, "manifests-created");
        snprintf(num, sizeof num, "%llu",
                 (unsigned long long)r.manifests_created);
        ZBT_EQ_STR(op, num);
        zb_free(op);
        op = of_summary(e, "entries-processed");
        snprintf(num, sizeof num, "%llu", (unsigned long long)r.entries);
        ZBT_EQ_STR(op, num);
        zb_free(op);
        of_manifests(e, &nd, &ndel);
        ZBT_EQ_U64(nd, r.new_data_manifests);   /* data: all rewritten */
        ZBT_EQ_U64(nd + ndel, r.manifests_created + r.manifests_kept);
        ZBT_EQ_INT(of_current_id(e), r.snapshot_id);
    }
    if (rows) {
        of_rows(e, &rows1, &h1);
        ZBT_EQ_U64(rows1, rows0);
        ZBT_EQ_U64(h1, h0);
    }
    of_check_files(e);
    zb_free(tr0);
    zb_free(tr1);
    of_items_free(&a);
    of_items_free(&b);
    if (out)
        *out = r;
    return r.committed;
}

static void keep(of_env *e, const char *name)
{
    const char *dir = getenv("ZB_TIDY_OUT");
    char cmd[3000];

    if (dir == NULL || *dir == '\0')
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' && cp -R '%s' '%s/%s'", dir,
             name, e->dir, dir, name);
    ZBT_EQ_INT(system(cmd), 0);
}

static void generated(int fv, const char *name)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    char text[1024], *before, *after;

    of_open(&e, name);
    of_make_table(&e, fv, 1, 4, 12, 8);   /* 12 manifests over 4 parts */
    ZBT_CHECK(rewrite_checked(&e, &o, 1, &r));
    ZBT_EQ_U64(r.data_manifests, 12);
    ZBT_EQ_U64(r.entries, 12);
    ZBT_EQ_U64(r.partitions, 4);
    ZBT_EQ_U64(r.new_data_manifests, 1);
    ZBT_EQ_U64(r.spread_before, 12);
    ZBT_EQ_U64(r.spread_after, 4);
    ZBT_EQ_U64(r.manifests_replaced, 12);
    ZBT_EQ_U64(r.manifests_kept, 0);
    report(text, sizeof text, "t", &r, 0);
    ZBT_EQ_STR(text, "t: 12 data manifest(s) holding 12 entries -> 1\n"
               "  partition spread 12 -> 4\n  manifests 12 -> 1\n");
    keep(&e, name);
    /* again: one data manifest, skipped */
    before = of_listing(e.dir);
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.skipped, 1);
    report(text, sizeof text, "t", &r, 0);
    ZBT_EQ_STR(text, "t: skipped -- 1 data manifest(s), fewer than "
               "min_input_manifests=2\n");
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    of_close(&e);
}

static void test_ops_tidy_rewrite__v1(void) { generated(1, "rw-v1"); }
static void test_ops_tidy_rewrite__v2(void) { generated(2, "rw-v2"); }
static void test_ops_tidy_rewrite__v3(void) { generated(3, "rw-v3"); }

static void test_ops_tidy_rewrite__small_target(void)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    char *before, *after;

    /* 3 appends per partition; a target of about two entries: each
     * partition splits over two manifests, no manifest mixes partitions
     * that fit alone; spread 12 -> 8 (4 partitions x 2), 12 -> 8 */
    of_open(&e, "rw-small");
    of_make_table(&e, 2, 1, 4, 12, 8);
    o.target_bytes = 1;
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.skipped, 1);              /* one entry a manifest: no gain */
    ZBT_CONTAINS(r.reason, "already good");
    o.target_bytes = 0;
    o.max_open_writers = 1;                /* one pass per manifest */
    {
        int64_t est;
        of_items a;

        of_live(&a, &e);
        est = (int64_t)strlen(a.v[0].path) + 64 + 30 + 200;
        of_items_free(&a);
        o.target_bytes = 2 * est;
    }
    ZBT_CHECK(rewrite_checked(&e, &o, 1, &r));
    ZBT_CHECK(r.new_data_manifests >= 4 && r.new_data_manifests < 12);
    ZBT_CHECK(r.spread_after < r.spread_before);
    ZBT_EQ_U64(r.passes, r.new_data_manifests);
    /* a second run with the same target: no improvement */
    before = of_listing(e.dir);
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.skipped, 1);
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    of_close(&e);
}

static void test_ops_tidy_rewrite__bad_target(void)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    zb_apply_props_opts po = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result pr = ZB_APPLY_PROPS_RESULT_INIT;
    ice_kv set[] = { { ZB_PROP_WRITE_MANIFEST_TARGET, "lots" } };
    char *before, *after;

    of_open(&e, "rw-bad");
    of_make_table(&e, 2, 0, 1, 3, 4);
    po.set = set;
    po.n_set = 1;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &po, &pr), &e.ctx);
    zb_apply_props_result_free(&pr);
    before = of_listing(e.dir);
    ZBT_RC(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, ZB_PROP_WRITE_MANIFEST_TARGET);
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    /* the write.* name as a number works; commit.* wins over it */
    set[0].value = "100";
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &po, &pr), &e.ctx);
    zb_apply_props_result_free(&pr);
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.target_bytes, 100);
    set[0].key = "commit.manifest.target-size-bytes";
    set[0].value = "12345";
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &po, &pr), &e.ctx);
    zb_apply_props_result_free(&pr);
    e.t.dry_run = 1;
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.target_bytes, 12345);
    of_close(&e);
}

static void test_ops_tidy_rewrite__min_input(void)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;

    of_open(&e, "rw-min");
    of_make_table(&e, 2, 0, 1, 3, 4);
    o.min_input_manifests = 4;
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.skipped, 1);
    ZBT_EQ_STR(r.reason, "3 data manifest(s), fewer than "
               "min_input_manifests=4");
    o.min_input_manifests = 3;
    ZBT_CHECK(rewrite_checked(&e, &o, 1, &r));
    of_close(&e);
}

/* Every fixture table: rewritten when it has two data manifests or more,
 * its live entries unchanged. */
static void test_ops_tidy_rewrite__fixtures(void)
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
    /* read through the row stream as well */
    static const char *const with_rows[] = {
        "impala-v2-pos-some-files", "icebird-spark-bunnies",
        "impala-v2-eq-partitioned", "impala-v3-row-lineage",
        "impala-v2-pos-partitioned", "impala-spark-compaction-dangling" };
    size_t i, k, done = 0;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
        zb_rewrite_manifests_result r;
        of_env e;
        int rows = 0;
        char text[1024];

        if (!of_fixture(&e, names[i])) {
            of_close(&e);
            continue;
        }
        for (k = 0; k < sizeof with_rows / sizeof with_rows[0]; k++)
            rows |= strcmp(with_rows[k], names[i]) == 0;
        done += rewrite_checked(&e, &o, rows, &r);
        report(text, sizeof text, names[i], &r, 0);
        printf("  %s", text);
        of_close(&e);
    }
    printf("  %zu fixture table(s) rewritten\n", done);
    ZBT_CHECK(done >= 10);
}

/* A child process appends while rewrites run: every attempt ends
 * committed or in ZB_ECONFLICT (never anything else), and in the end
 * every file of both writers is live with its sequence numbers. */
static void test_ops_tidy_rewrite__concurrent_appends(void)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    of_items a, b;
    uint64_t rows, h;
    size_t i, j, commits = 0, conflicts = 0, runs = 0;
    int st = 0, done = 0;
    pid_t pid;

    of_open(&e, "rw-race");
    of_make_table(&e, 2, 1, 4, 8, 5);
    of_live(&a, &e);
    o.max_attempts = 2;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        of_env c = e;
        int k, rc = 0;

        zb_ctx_init(&c.ctx);
        if (zb_io_new(&c.io, &c.ctx) < 0)
            _exit(3);
        {
            zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
            cfg.kind = ZB_CATALOG_PATH;
            if (zb_catalog_open(&c.cat, &c.ctx, c.io, &cfg) < 0)
                _exit(3);
        }
        for (k = 0; k < 20 && rc == 0; k++)
            rc = of_append_rc(&c, k % 4, 1000 + k * 5, 5);
        if (rc < 0)
            fprintf(stderr, "child: %s\n", c.ctx.err.msg);
        _exit(rc < 0 ? 1 : 0);
    }
    ZBT_CHECK(pid > 0);
    while (!done || runs == 0 || commits == 0) {
        int rc;

        if (!done && waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        rc = zb_rewrite_manifests(&e.t, &e.ctx, &o, &r);
        runs++;
        if (rc == ZB_ECONFLICT) {
            conflicts++;
            continue;
        }
        ZBT_OK_CTX(rc, &e.ctx);
        commits += (size_t)r.committed;
        if (done && r.skipped)
            break;
        ZBT_CHECK(runs < 20000);
        if (r.skipped)
            nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
    }
    ZBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("  %zu rewrite run(s), %zu commit(s), %zu lost race(s)\n", runs,
           commits, conflicts);
    of_live(&b, &e);
    ZBT_EQ_U64(b.n, a.n + 20);
    for (i = 0; i < a.n; i++) {
        int found = 0;

        for (j = 0; j < b.n && !found; j++)
            found = strcmp(a.v[i].path, b.v[j].path) == 0 &&
                    a.v[i].seq == b.v[j].seq && a.v[i].fseq == b.v[j].fseq &&
                    a.v[i].snap == b.v[j].snap &&
                    a.v[i].records == b.v[j].records;
        ZBT_CHECK(found);
    }
    of_rows(&e, &rows, &h);
    ZBT_EQ_U64(rows, 8 * 5 + 20 * 5);
    of_check_files(&e);
    of_items_free(&a);
    of_items_free(&b);
    of_close(&e);
}

/* v3 with deletion vectors in two delete manifests: data and delete
 * manifests each regrouped, DV entries (offset, size, referenced file)
 * and first row ids kept. The Puffin files are not written. */
static void test_ops_tidy_rewrite__deletion_vectors(void)
{
    of_env e;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r;
    of_items a, b;
    size_t i, k = 0;
    size_t nd, ndel;

    of_open(&e, "rw-dv");
    of_make_table(&e, 3, 0, 1, 3, 10);
    of_live(&a, &e);
    for (i = 0; i < a.n; i++) {
        zb_table *t = of_load(&e);
        ice_data_file f;
        char puf[1200];

        snprintf(puf, sizeof puf, "%s/data/dv-%zu.puffin", e.dir, k++);
        memset(&f, 0, sizeof f);
        f.content = ICE_CONTENT_POSITION_DELETES;
        f.file_path = puf;
        f.file_format = "PUFFIN";
        f.record_count = 1;
        f.file_size_in_bytes = 100;
        f.block_size_in_bytes = ICE_NULL_LONG;
        f.first_row_id = ICE_NULL_LONG;
        f.referenced_data_file = a.v[i].path;
        f.content_offset = 4;
        f.content_size_in_bytes = 33;
        ZBT_OK_CTX(zb_ingest_commit_files(&t, e.cat, e.io, &e.ctx, &f, NULL,
                                          1), &e.ctx);
        zb_table_free(t);
    }
    of_items_free(&a);
    of_live(&a, &e);
    ZBT_EQ_U64(of_count(&a, 1), 3);
    ZBT_OK_CTX(zb_rewrite_manifests(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.committed, 1);
    ZBT_EQ_U64(r.delete_manifests, 3);
    ZBT_EQ_U64(r.new_data_manifests, 1);
    ZBT_EQ_U64(r.new_delete_manifests, 1);
    ZBT_EQ_U64(r.manifests_replaced, 6);
    of_live(&b, &e);
    of_items_same(&a, &b, NULL, 0);
    of_manifests(&e, &nd, &ndel);
    ZBT_EQ_U64(nd, 1);
    ZBT_EQ_U64(ndel, 1);
    for (i = 0; i < b.n; i++)
        if (b.v[i].content == 0)
            ZBT_CHECK(b.v[i].first_row_id >= 0);
    of_items_free(&a);
    of_items_free(&b);
    of_close(&e);
}

typedef struct rw_thread {
    of_env *e;
    const zb_rewrite_manifests_opts *o;
    zb_rewrite_manifests_result r;
    atomic_int rc;
} rw_thread;

static void *rewrite_thread(void *arg)
{
    rw_thread *t = arg;

    atomic_store(&t->rc, zb_rewrite_manifests(&t->e->t, &t->e->ctx, t->o,
                                              &t->r));
    return NULL;
}

/*
 * The groups and writers are reserved from ctx->budget: with another
 * holder taking the whole budget the run waits, and with a budget below
 * one writer's 2 MiB the window shrinks to one writer (one pass per new
 * manifest) and the rewrite is the one made without a budget: the same
 * manifests, entries and rows. Nothing is held after.
 */
static void test_ops_tidy_rewrite__budget(void)
{
    of_env e, f;
    zb_rewrite_manifests_opts o = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    zb_rewrite_manifests_result r0;
    zb_reservation other = ZB_RESERVATION_INIT;
    zb_budget *b = NULL;
    rw_thread th;
    pthread_t tid;
    of_items a, c;
    int64_t est;
    int i;

    of_open(&e, "rw-nobudget");
    of_make_table(&e, 2, 1, 4, 12, 8);
    of_live(&a, &e);
    est = (int64_t)strlen(a.v[0].path) + 64 + 30 + 200;
    of_items_free(&a);
    o.target_bytes = 2 * est;
    ZBT_CHECK(rewrite_checked(&e, &o, 1, &r0));
    ZBT_CHECK(r0.new_data_manifests >= 4);
    ZBT_EQ_U64(r0.passes, 1);              /* 64 writers at once */

    of_open(&f, "rw-budget");
    of_make_table(&f, 2, 1, 4, 12, 8);
    ZBT_OK_CTX(zb_budget_new(&b, 1 << 20, NULL), &f.ctx);
    ZBT_EQ_INT(zb_budget_reserve(&other, b, 1 << 20, NULL), ZB_OK);
    f.ctx.budget = b;
    th.e = &f;
    th.o = &o;
    atomic_init(&th.rc, 1);                /* 1: running */
    ZBT_EQ_INT(pthread_create(&tid, NULL, rewrite_thread, &th), 0);
    for (i = 0; i < 20000 && zb_budget_waiters(b) == 0; i++)
        nanosleep(&(struct timespec){ 0, 500000 }, NULL);
    ZBT_EQ_U64(zb_budget_waiters(b), 1);
    ZBT_EQ_INT(atomic_load(&th.rc), 1);    /* waiting for its groups */
    zb_budget_release(&other);
    ZBT_EQ_INT(pthread_join(tid, NULL), 0);
    ZBT_OK_CTX(atomic_load(&th.rc), &f.ctx);
    ZBT_EQ_INT(th.r.committed, 1);
    ZBT_EQ_U64(th.r.new_data_manifests, r0.new_data_manifests);
    ZBT_EQ_U64(th.r.spread_after, r0.spread_after);
    ZBT_EQ_U64(th.r.passes, th.r.new_data_manifests);  /* one writer */
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    f.ctx.budget = NULL;
    zb_budget_free(b);
    /* The same files in both tables, entry for entry (paths aside). */
    of_live(&a, &e);
    of_live(&c, &f);
    ZBT_EQ_U64(c.n, a.n);
    for (i = 0; i < (int)a.n; i++) {
        ZBT_EQ_INT(c.v[i].content, a.v[i].content);
        ZBT_EQ_INT(c.v[i].records, a.v[i].records);
    }
    of_items_free(&a);
    of_items_free(&c);
    of_check_files(&f);
    of_close(&f);
    of_close(&e);
}

const zbt_case test_ops_tidy_rewrite[] = {
    ZBT_CASE(test_ops_tidy_rewrite__v1),
    ZBT_CASE(test_ops_tidy_rewrite__v2),
    ZBT_CASE(test_ops_tidy_rewrite__v3),
    ZBT_CASE(test_ops_tidy_rewrite__small_target),
    ZBT_CASE(test_ops_tidy_rewrite__budget),
    ZBT_CASE(test_ops_tidy_rewrite__bad_target),
    ZBT_CASE(test_ops_tidy_rewrite__min_input),
    ZBT_CASE(test_ops_tidy_rewrite__deletion_vectors),
    ZBT_CASE(test_ops_tidy_rewrite__fixtures),
    ZBT_CASE(test_ops_tidy_rewrite__concurrent_appends),
    ZBT_END
};

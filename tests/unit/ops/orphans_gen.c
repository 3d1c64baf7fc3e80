/*
 * tests/unit/ops/orphans_gen.c - remove-orphans on generated tables
 * (SQLite catalog in the case's folder): old unreferenced files go, young
 * ones stay and are reported, referenced ones all stay (every snapshot
 * still reads whole); dry run changes no byte; a guard below 24 hours is
 * refused unless forced; and each exit-4 condition (a referenced file
 * missing from the listing, another table inside the location, no
 * reachable snapshot file under the location) deletes nothing: the full
 * listing is the same before and after.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops_fixture.h"
#include "ops/orphans/remove_orphans.h"
#include "table/commit/commit.h"
#include "zamboni/budget.h"

#define HOUR_MS ((int64_t)3600 * 1000)

static zb_op_target target(of_env *e, const char *ident, int dry_run)
{
    zb_op_target t;

    memset(&t, 0, sizeof t);
    t.catalog = e->cat;
    t.io = e->io;
    t.ident = ident;
    t.dry_run = dry_run;
    return t;
}

/* 6 appends, a position delete and a file removal: 8 snapshots. */
static zb_table *table8_at(of_env *e, const char *ident, const char *location)
{
    zb_table *t = of_make_catalog_table(e, ident, location, 6, 10);
    char *path;

    of_delete_row(e, &t);
    path = of_data_file(e, t, 1);
    of_remove_file(e, &t, path);
    free(path);
    return t;
}

static zb_table *table8(of_env *e, const char *ident)
{
    return table8_at(e, ident, NULL);
}

static void plant(const char *tdir)
{
    char p[1024];

    snprintf(p, sizeof p, "%s/data/orphan-old.parquet", tdir);
    of_make_file(p, 100, 10 * OF_DAY_MS);
    snprintf(p, sizeof p, "%s/metadata/stray-old.avro", tdir);
    of_make_file(p, 50, 10 * OF_DAY_MS);
    snprintf(p, sizeof p, "%s/data/nested/deep/old.bin", tdir);
    of_make_file(p, 10, 5 * OF_DAY_MS);
    snprintf(p, sizeof p, "%s/data/young.parquet", tdir);
    of_make_file(p, 30, HOUR_MS);
}

static void check_all_snapshots(of_env *e, const char *ident)
{
    zb_table *t = NULL;
    size_t i;

    of_reload(e, &t, ident);
    for (i = 0; i < t->meta->n_snapshots; i++)
        ZBT_CHECK(of_check_snapshot(e, t, &t->meta->snapshots[i],
                                    OF_CHECK_ALL) > 0);
    zb_table_free(t);
}

static void test_ops_orphans__generated_table(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    char tdir[700], *before, *after, *gone, want[2048];
    size_t n_files;

    const char *out = getenv("ZB_ORPHANS_OUT");
    int64_t ids[8], rows[8];
    size_t i;

    of_open_catalog(&e, 1);
    snprintf(tdir, sizeof tdir, "%s/events", out ? out : e.dir);
    t = table8_at(&e, "db.events", tdir);
    ZBT_EQ_INT(t->meta->n_snapshots, 8);
    for (i = 0; i < 8; i++) {
        ids[i] = t->meta->snapshots[i].snapshot_id;
        rows[i] = of_count_rows(&e, t, &t->meta->snapshots[i]);
    }
    plant(tdir);
    before = of_tree(tdir);
    n_files = of_lines(before);
    tg = target(&e, "db.events", 0);
    o.delete_threads = 2;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_scanned, n_files);
    ZBT_EQ_U64(r.files_unreferenced, 4);
    ZBT_EQ_U64(r.files_referenced, n_files - 4);
    ZBT_EQ_U64(r.files_deleted, 3);
    ZBT_EQ_U64(r.bytes_deleted, 160);
    ZBT_EQ_U64(r.files_left, 1);
    ZBT_EQ_U64(r.bytes_left, 30);
    after = of_tree(tdir);
    gone = of_tree_minus(before, after);
    ZBT_EQ_INT(of_lines(gone), 3);
    ZBT_CONTAINS(gone, "/data/orphan-old.parquet\t100\t");
    ZBT_CONTAINS(gone, "/metadata/stray-old.avro\t50\t");
    ZBT_CONTAINS(gone, "/data/nested/deep/old.bin\t10\t");
    ZBT_EQ_INT(of_lines(after), n_files - 3);
    check_all_snapshots(&e, "db.events");
    of_reload(&e, &t, "db.events");
    for (i = 0; i < 8; i++)
        ZBT_EQ_INT(of_count_rows(&e, t, &t->meta->snapshots[i]), rows[i]);
    if (out != NULL)
        of_keep_for_icebird(t, out, ids, rows, 8);
    ZBT_OK_CTX(zb_remove_orphans_report(&rep, "db.events", &r, 0), &e.ctx);
    snprintf(want, sizeof want,
             "db.events: scanned %zu file(s), %zu referenced, 4 unreferenced\n"
             "  deleted 3 file(s) (160B)\n"
             "  1 file(s) (30B) left in place: younger than the 3-day age "
             "guard\n", n_files, n_files - 4);
    ZBT_EQ_STR(zb_buf_cstr(&rep), want);

    /* Once more: nothing left to delete, the young file stays. */
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_deleted, 0);
    ZBT_EQ_U64(r.files_left, 1);
    zb_buf_free(&rep);
    free(before);
    free(after);
    free(gone);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_orphans__dry_run_changes_nothing(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r, r2;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    char tdir[700], *before, *after;

    of_open_catalog(&e, 1);
    t = table8(&e, "db.events");
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    before = of_tree(tdir);
    tg = target(&e, "db.events", 1);
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    ZBT_EQ_U64(r.files_deleted, 3);
    ZBT_OK_CTX(zb_remove_orphans_report(&rep, "db.events", &r, 1), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "  would delete 3 file(s) (160B)\n");
    tg.dry_run = 0;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r2), &e.ctx);
    ZBT_EQ_U64(r2.files_deleted, r.files_deleted);
    ZBT_EQ_U64(r2.bytes_deleted, r.bytes_deleted);
    zb_buf_free(&rep);
    free(before);
    free(after);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_orphans__guard(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    char tdir[700], *before, *after;

    of_open_catalog(&e, 1);
    t = of_make_catalog_table(&e, "db.events", NULL, 2, 5);
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    before = of_tree(tdir);
    tg = target(&e, "db.events", 0);
    o.older_than_ms = 12 * HOUR_MS;
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "below 24 hours");
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    free(after);
    /* Forced, 30 minutes: the hour-old file goes too. */
    o.older_than_ms = HOUR_MS / 2;
    o.force = 1;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_deleted, 4);
    ZBT_EQ_U64(r.files_left, 0);
    /* A 7-day guard leaves the 5-day-old and the young file, and says so. */
    plant(tdir);
    o.older_than_ms = 7 * OF_DAY_MS;
    o.force = 0;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_deleted, 2);
    ZBT_EQ_U64(r.files_left, 2);
    ZBT_OK_CTX(zb_remove_orphans_report(&rep, "db.events", &r, 0), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "  2 file(s) (40B) left in place: younger "
                                    "than the 7-day age guard\n");
    check_all_snapshots(&e, "db.events");
    zb_buf_free(&rep);
    free(before);
    zb_table_free(t);
    of_close(&e);
}

/* gc.enabled=false: the table's files may be shared, so nothing goes
 * (exit 3), as Iceberg refuses. */
static void test_ops_orphans__gc_disabled_refused(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    ice_kv kv = { "gc.enabled", "false" };
    char tdir[700], *before, *after;

    of_open_catalog(&e, 1);
    t = of_make_catalog_table(&e, "db.events", NULL, 2, 5);
    of_commit(&e, &t, (json_t *)ice_update_set_properties(&kv, 1));
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    before = of_tree(tdir);
    tg = target(&e, "db.events", 0);
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "gc.enabled=false");
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    free(after);
    free(before);
    zb_table_free(t);
    of_close(&e);
}

/* Exit 4: a file a snapshot references is missing from the listing. */
static void test_ops_orphans__unsafe_missing_file(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    zb_buf b = ZB_BUF_INIT(1 << 16);
    char tdir[700], *before, *after, *path;

    of_open_catalog(&e, 1);
    t = table8(&e, "db.events");
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    path = of_data_file(&e, t, 0);
    ZBT_OK_CTX(zb_table_resolve(&b, &e.ctx, t, path), &e.ctx);
    ZBT_CHECK(unlink(zb_buf_cstr(&b)) == 0);
    before = of_tree(tdir);
    tg = target(&e, "db.events", 0);
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, "aborted, nothing deleted");
    ZBT_CONTAINS(e.ctx.err.msg, "missing from the listing");
    ZBT_CONTAINS(e.ctx.err.msg, zb_buf_cstr(&b));
    ZBT_EQ_U64(r.files_deleted, 0);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    /* A missing manifest list: the same. */
    free(after);
    ZBT_CHECK(unlink(t->meta->snapshots[0].manifest_list) == 0);
    zbt_write_file(zb_buf_cstr(&b), "x", 1);    /* the data file is back */
    free(before);
    before = of_tree(tdir);
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, t->meta->snapshots[0].manifest_list);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    zb_buf_free(&b);
    free(path);
    free(before);
    free(after);
    zb_table_free(t);
    of_close(&e);
}

/* Exit 4: another table of the catalog lies inside this one's location. */
static void test_ops_orphans__unsafe_nested_table(void)
{
    of_env e;
    zb_table *a, *b;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    char adir[700], bdir[800], *before, *after;

    of_open_catalog(&e, 1);
    snprintf(adir, sizeof adir, "%s/a", e.dir);
    snprintf(bdir, sizeof bdir, "%s/a/nested_b", e.dir);
    a = of_make_catalog_table(&e, "db.a", adir, 2, 5);
    b = of_make_catalog_table(&e, "other.b", bdir, 2, 5);
    plant(adir);
    before = of_tree(e.dir);
    tg = target(&e, "db.a", 0);
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, "other.b lies at");
    ZBT_CONTAINS(e.ctx.err.msg, "nothing deleted");
    after = of_tree(adir);
    free(before);
    before = of_tree(adir);
    ZBT_EQ_STR(after, before);
    free(after);
    /* The inner table may be cleaned: the outer one is not inside it. */
    plant(bdir);
    tg = target(&e, "other.b", 0);
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_deleted, 3);
    after = of_tree(adir);
    ZBT_CONTAINS(after, "/a/data/orphan-old.parquet");   /* a's stay */
    check_all_snapshots(&e, "db.a");
    check_all_snapshots(&e, "other.b");
    free(before);
    free(after);
    zb_table_free(a);
    zb_table_free(b);
    of_close(&e);
}

/* Exit 4: the table's location moved away from its files: snapshots but
 * nothing of them under the location. */
static void test_ops_orphans__unsafe_nothing_reachable(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    char tdir[700], edir[700], p[800], *before, *after, *b2, *a2;
    json_t *u;

    of_open_catalog(&e, 1);
    t = table8(&e, "db.events");
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    snprintf(edir, sizeof edir, "%s/elsewhere", e.dir);
    u = json_pack("{s:s, s:s}", "action", "set-location", "location", edir);
    of_commit(&e, &t, u);
    snprintf(p, sizeof p, "%s/data/stray.parquet", edir);
    of_make_file(p, 10, 10 * OF_DAY_MS);
    before = of_tree(edir);
    b2 = of_tree(tdir);
    tg = target(&e, "db.events", 0);
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, "nothing deleted");
    ZBT_CONTAINS(e.ctx.err.msg, "the table has 8 snapshot(s) but none of");
    after = of_tree(edir);
    a2 = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    ZBT_EQ_STR(a2, b2);
    free(before);
    free(after);
    free(a2);
    free(b2);
    zb_table_free(t);
    of_close(&e);
}

typedef struct orphans_thread {
    of_env *e;
    zb_op_target tg;
    zb_remove_orphans_opts o;
    zb_remove_orphans_result r;
    atomic_int rc;
} orphans_thread;

static void *orphans_run(void *arg)
{
    orphans_thread *t = arg;

    atomic_store(&t->rc, zb_remove_orphans(&t->tg, &t->e->ctx, &t->o,
                                           &t->r));
    return NULL;
}

/*
 * The listing and the reachable set are reserved from ctx->budget: with
 * another holder taking the whole budget the run waits; then, at a budget
 * far below its streams' chunks (they spill), it deletes what the run
 * without a budget deletes. Nothing is held after.
 */
static void test_ops_orphans__budget(void)
{
    of_env e;
    zb_table *t;
    zb_reservation other = ZB_RESERVATION_INIT;
    zb_budget *b = NULL;
    orphans_thread th;
    pthread_t tid;
    char tdir[700], *before, *after, *gone;
    int i;

    of_open_catalog(&e, 1);
    t = table8(&e, "db.events");
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    before = of_tree(tdir);
    ZBT_OK_CTX(zb_budget_new(&b, 64 << 10, NULL), &e.ctx);
    ZBT_EQ_INT(zb_budget_reserve(&other, b, 64 << 10, NULL), ZB_OK);
    e.ctx.budget = b;
    memset(&th, 0, sizeof th);
    th.e = &e;
    th.tg = target(&e, "db.events", 0);
    th.o = (zb_remove_orphans_opts)ZB_REMOVE_ORPHANS_OPTS_INIT;
    th.o.max_memory_bytes = 0;          /* 1 MiB chunks, past the budget */
    atomic_init(&th.rc, 1);             /* 1: running */
    ZBT_EQ_INT(pthread_create(&tid, NULL, orphans_run, &th), 0);
    for (i = 0; i < 20000 && zb_budget_waiters(b) == 0; i++)
        nanosleep(&(struct timespec){ 0, 500000 }, NULL);
    ZBT_EQ_U64(zb_budget_waiters(b), 1);
    ZBT_EQ_INT(atomic_load(&th.rc), 1);
    zb_budget_release(&other);
    ZBT_EQ_INT(pthread_join(tid, NULL), 0);
    ZBT_OK_CTX(atomic_load(&th.rc), &e.ctx);
    ZBT_EQ_U64(th.r.files_deleted, 3);
    ZBT_EQ_U64(th.r.bytes_deleted, 160);
    ZBT_EQ_U64(th.r.files_left, 1);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    after = of_tree(tdir);
    gone = of_tree_minus(before, after);
    ZBT_EQ_INT(of_lines(gone), 3);
    ZBT_CONTAINS(gone, "/data/orphan-old.parquet\t100\t");
    check_all_snapshots(&e, "db.events");
    e.ctx.budget = NULL;
    zb_budget_free(b);
    free(before);
    free(after);
    free(gone);
    zb_table_free(t);
    of_close(&e);
}

/* Manifests of the reachable set read on 3 threads: the result of one
 * thread, field for field, with spilling streams and without, and then
 * the same deletions. */
static void test_ops_orphans__read_threads_same_result(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r1, r3;
    char tdir[700];
    int k;

    of_open_catalog(&e, 1);
    t = table8(&e, "db.events");
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    plant(tdir);
    tg = target(&e, "db.events", 1);
    for (k = 0; k < 2; k++) {
        o.max_memory_bytes = k ? 3 * 8192 : 0;
        o.read_threads = 1;
        ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r1), &e.ctx);
        o.read_threads = 3;
        ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r3), &e.ctx);
        ZBT_CHECK(memcmp(&r1, &r3, sizeof r1) == 0);
        ZBT_EQ_U64(r3.files_deleted, 3);
    }
    tg.dry_run = 0;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r3), &e.ctx);
    ZBT_EQ_U64(r3.files_deleted, 3);
    ZBT_EQ_U64(r3.bytes_deleted, r1.bytes_deleted);
    check_all_snapshots(&e, "db.events");
    zb_table_free(t);
    of_close(&e);
}

const zbt_case test_ops_orphans_gen[] = {
    ZBT_CASE(test_ops_orphans__generated_table),
    ZBT_CASE(test_ops_orphans__dry_run_changes_nothing),
    ZBT_CASE(test_ops_orphans__budget),
    ZBT_CASE(test_ops_orphans__read_threads_same_result),
    ZBT_CASE(test_ops_orphans__guard),
    ZBT_CASE(test_ops_orphans__gc_disabled_refused),
    ZBT_CASE(test_ops_orphans__unsafe_missing_file),
    ZBT_CASE(test_ops_orphans__unsafe_nested_table),
    ZBT_CASE(test_ops_orphans__unsafe_nothing_reachable),
    ZBT_END
};

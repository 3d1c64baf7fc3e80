/*
 * tests/unit/ops/expire_gen.c - expire on generated tables (SQLite
 * catalog in the case's folder: many appends, a position delete, a file
 * removal): the retention rules on metadata built snapshot by snapshot;
 * the files removed are exactly those a naive in-memory set difference
 * over the base metadata names (expired snapshots' lists, manifests and
 * every entry, minus retained snapshots' lists, manifests and live
 * entries); every retained snapshot still reads in full with the same
 * live rows (row stream); dry run changes no byte; gc.enabled=false
 * deletes nothing; refs past their age are dropped and reported; a
 * snapshot committed meanwhile that references a doomed file aborts the
 * deletion (ZB_EUNSAFE, nothing deleted); a lost race deletes nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops_fixture.h"
#include "util/buf.h"
#include "ops/expire/expire_int.h"
#include "table/commit/commit.h"
#include "zamboni/budget.h"

#define IDENT "db.events"

/* Path fields of a tree (of_tree), one a line. */
static char *paths_only(const char *tree)
{
    char *out = malloc(strlen(tree) + 1), *o = out;
    const char *p = tree;

    ZBT_CHECK(out != NULL);
    while (*p) {
        const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
        memcpy(o, p, (size_t)(tab - p));
        o += tab - p;
        *o++ = '\n';
        p = nl + 1;
    }
    *o = '\0';
    return out;
}

/* Files removed from under dir between two trees, paths only. */
static char *removed(const char *before, const char *after)
{
    char *pb = paths_only(before), *pa = paths_only(after);
    char *r = of_tree_minus(pb, pa);

    free(pb);
    free(pa);
    return r;
}

/* A statistics file (or a partition statistics file) for snapshot i. */
static void add_stats(of_env *e, zb_table **t, size_t i, int partition)
{
    int64_t id = (*t)->meta->snapshots[i].snapshot_id;
    char path[1024];
    json_t *u;

    snprintf(path, sizeof path, "%s/metadata/%s-%lld.puffin", (*t)->root,
             partition ? "partition-stats" : "stats", (long long)id);
    zbt_write_file(path, "PFA1stats", 9);
    if (partition)
        u = json_pack("{s:s, s:{s:I, s:s, s:I}}", "action",
                      "set-partition-statistics", "partition-statistics",
                      "snapshot-id", (json_int_t)id, "statistics-path", path,
                      "file-size-in-bytes", (json_int_t)9);
    else
        u = json_pack("{s:s, s:I, s:{s:I, s:s, s:I, s:I, s:[]}}", "action",
                      "set-statistics", "snapshot-id", (json_int_t)id,
                      "statistics", "snapshot-id", (json_int_t)id,
                      "statistics-path", path, "file-size-in-bytes",
                      (json_int_t)9, "file-footer-size-in-bytes",
                      (json_int_t)4, "blob-metadata");
    of_commit(e, t, u);
}

/* A table of 12 snapshots: 8 appends, a position delete, a removal of
 * the third data file, 2 more appends; statistics for snapshot 1 and
 * partition statistics for snapshot 10. */
static zb_table *twelve_at(of_env *e, const char *location)
{
    zb_table *t = of_make_catalog_table(e, IDENT, location, 8, 20);
    char *path;

    of_delete_row(e, &t);
    path = of_data_file(e, t, 2);
    of_remove_file(e, &t, path);
    free(path);
    of_append_to(e, &t, -1, 1000, 20);
    of_append_to(e, &t, -1, 2000, 20);
    ZBT_EQ_INT(t->meta->n_snapshots, 12);
    add_stats(e, &t, 1, 0);
    add_stats(e, &t, 10, 1);
    return t;
}

static zb_table *twelve(of_env *e)
{
    return twelve_at(e, NULL);
}

static zb_op_target target(of_env *e, int dry_run, int64_t now_ms)
{
    zb_op_target t;

    memset(&t, 0, sizeof t);
    t.catalog = e->cat;
    t.io = e->io;
    t.ident = IDENT;
    t.dry_run = dry_run;
    t.now_ms = now_ms;
    return t;
}

static void test_ops_expire__generated_table(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    unsigned char keep[12];
    int64_t rows[12], ids[12];
    char tdir[700], *before, *after, *gone, *doomed_naive, *a, *b;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    size_t i, j;

    const char *out = getenv("ZB_EXPIRE_OUT");

    of_open_catalog(&e, 1);
    snprintf(tdir, sizeof tdir, "%s/events", out ? out : e.dir);
    t = twelve_at(&e, tdir);
    for (i = 0; i < 12; i++) {
        keep[i] = i >= 9;        /* the 3 newest of main's line */
        ids[i] = t->meta->snapshots[i].snapshot_id;
        rows[i] = of_count_rows(&e, t, &t->meta->snapshots[i]);
        ZBT_CHECK(rows[i] > 0);
    }
    ZBT_EQ_INT(rows[8], 8 * 20 - 1);          /* the position delete */
    ZBT_EQ_INT(rows[9], 8 * 20 - 1 - 20);     /* the removed file */
    a = of_snapshot_paths(&e, t, keep, 0);
    b = of_snapshot_paths(&e, t, keep, 1);
    doomed_naive = of_tree_minus(a, b);
    ZBT_CHECK(of_lines(doomed_naive) >= 9 + 1);   /* lists + the file */
    before = of_tree(tdir);

    tg = target(&e, 0, of_now_ms() + 10 * OF_DAY_MS);
    o.min_snapshots_to_keep = 3;
    o.delete_threads = 3;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.snapshots_expired, 9);
    ZBT_EQ_U64(r.snapshots_retained, 3);
    ZBT_EQ_U64(r.files_not_deleted, 0);
    ZBT_CHECK(r.committed);
    ZBT_EQ_U64(r.planned_lists, 9);
    ZBT_EQ_U64(r.planned_data, 1);
    ZBT_EQ_U64(r.planned_stats, 1);      /* snapshot 1's, not 10's */

    after = of_tree(tdir);
    gone = removed(before, after);
    ZBT_EQ_STR(gone, doomed_naive);
    ZBT_EQ_U64(r.files_deleted, of_lines(gone));

    /* The table as committed: 3 snapshots, each whole, same rows. */
    of_reload(&e, &t, IDENT);
    ZBT_EQ_INT(t->meta->n_snapshots, 3);
    for (i = 0; i < t->meta->n_snapshots; i++) {
        const ice_snapshot *s = &t->meta->snapshots[i];
        ZBT_CHECK(of_check_snapshot(&e, t, s, OF_CHECK_ALL) > 0);
        for (j = 0; j < 12 && ids[j] != s->snapshot_id; j++)
            ;
        ZBT_CHECK(j >= 9 && j < 12);
        ZBT_EQ_INT(of_count_rows(&e, t, s), rows[j]);
    }
    if (out != NULL)
        of_keep_for_icebird(t, out, ids, rows, 12);
    ZBT_OK_CTX(zb_expire_report(&rep, IDENT, &r, 0), &e.ctx);
    {
        char want[128];
        snprintf(want, sizeof want, "db.events: expired 9 snapshot(s), "
                 "retained 3, deleted %llu file(s)\n",
                 (unsigned long long)r.files_deleted);
        ZBT_EQ_STR(zb_buf_cstr(&rep), want);
    }

    /* Again: nothing left to expire, nothing deleted, no commit. */
    zb_expire_result_free(&r);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.snapshots_expired, 0);
    ZBT_EQ_U64(r.files_deleted, 0);
    ZBT_CHECK(!r.committed);

    zb_buf_free(&rep);
    zb_expire_result_free(&r);
    free(a);
    free(b);
    free(doomed_naive);
    free(before);
    free(after);
    free(gone);
    zb_table_free(t);
    of_close(&e);
}

/* Dry run: real counts, not one byte of the table changed, the catalog
 * still points at the same metadata file. */
static void test_ops_expire__dry_run_changes_nothing(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT, r2 = ZB_EXPIRE_RESULT_INIT;
    char *before, *after;
    zb_buf rep = ZB_BUF_INIT(1 << 16);

    char tdir[700], *loc;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    before = of_tree(tdir);
    loc = strdup(t->metadata_location);
    tg = target(&e, 1, of_now_ms() + 10 * OF_DAY_MS);
    o.min_snapshots_to_keep = 2;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    of_reload(&e, &t, IDENT);
    ZBT_EQ_STR(t->metadata_location, loc);      /* the catalog's pointer */
    free(loc);
    ZBT_EQ_U64(r.snapshots_expired, 10);
    ZBT_CHECK(r.files_deleted >= 11);
    ZBT_CHECK(!r.committed);
    ZBT_OK_CTX(zb_expire_report(&rep, IDENT, &r, 1), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "retained 2, would delete");
    /* The real run deletes what the preview counted. */
    tg.dry_run = 0;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r2), &e.ctx);
    ZBT_EQ_U64(r2.files_deleted, r.files_deleted);
    ZBT_EQ_U64(r2.snapshots_expired, r.snapshots_expired);
    zb_expire_result_free(&r);
    zb_expire_result_free(&r2);
    zb_buf_free(&rep);
    free(before);
    free(after);
    zb_table_free(t);
    of_close(&e);
}

typedef struct expire_thread {
    of_env *e;
    zb_op_target tg;
    zb_expire_opts o;
    zb_expire_result r;
    atomic_int rc;
} expire_thread;

static void *expire_run(void *arg)
{
    expire_thread *t = arg;

    atomic_store(&t->rc, zb_expire(&t->tg, &t->e->ctx, &t->o, &t->r));
    return NULL;
}

/*
 * The reachable sets reserve from ctx->budget as one holder: with another
 * holder taking the whole budget the run waits; then, at a budget far
 * below their 1 MiB chunks, it deletes what the dry run without a budget
 * counted. Nothing is held after.
 */
static void test_ops_expire__budget(void)
{
    of_env e;
    zb_table *t;
    zb_expire_result d = ZB_EXPIRE_RESULT_INIT;
    zb_reservation other = ZB_RESERVATION_INIT;
    zb_budget *b = NULL;
    expire_thread th;
    pthread_t tid;
    int i;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    memset(&th, 0, sizeof th);
    th.e = &e;
    th.tg = target(&e, 1, of_now_ms() + 10 * OF_DAY_MS);
    th.o = (zb_expire_opts)ZB_EXPIRE_OPTS_INIT;
    th.o.min_snapshots_to_keep = 2;
    ZBT_OK_CTX(zb_expire(&th.tg, &e.ctx, &th.o, &d), &e.ctx);
    ZBT_CHECK(d.files_deleted >= 11);
    th.tg.dry_run = 0;
    ZBT_OK_CTX(zb_budget_new(&b, 64 << 10, NULL), &e.ctx);
    ZBT_EQ_INT(zb_budget_reserve(&other, b, 64 << 10, NULL), ZB_OK);
    e.ctx.budget = b;
    atomic_init(&th.rc, 1);             /* 1: running */
    ZBT_EQ_INT(pthread_create(&tid, NULL, expire_run, &th), 0);
    for (i = 0; i < 20000 && zb_budget_waiters(b) == 0; i++)
        nanosleep(&(struct timespec){ 0, 500000 }, NULL);
    ZBT_EQ_U64(zb_budget_waiters(b), 1);
    ZBT_EQ_INT(atomic_load(&th.rc), 1);
    zb_budget_release(&other);
    ZBT_EQ_INT(pthread_join(tid, NULL), 0);
    ZBT_OK_CTX(atomic_load(&th.rc), &e.ctx);
    ZBT_EQ_U64(th.r.files_deleted, d.files_deleted);
    ZBT_EQ_U64(th.r.snapshots_expired, d.snapshots_expired);
    ZBT_CHECK(th.r.committed);
    ZBT_EQ_U64(zb_budget_held_bytes(b), 0);
    ZBT_EQ_U64(zb_budget_holders(b), 0);
    e.ctx.budget = NULL;
    zb_budget_free(b);
    of_reload(&e, &t, IDENT);
    ZBT_EQ_INT(t->meta->n_snapshots, 2);
    for (i = 0; i < (int)t->meta->n_snapshots; i++)
        ZBT_CHECK(of_check_snapshot(&e, t, &t->meta->snapshots[i],
                                    OF_CHECK_ALL) > 0);
    zb_expire_result_free(&d);
    zb_expire_result_free(&th.r);
    zb_table_free(t);
    of_close(&e);
}

/* The doomed files of a plan, one "path tag size" a line (free()). */
static char *doomed_text(of_env *e, zb_expire_plan *p)
{
    zb_buf b = ZB_BUF_INIT(SIZE_MAX / 2);
    const zb_pathrec *r;
    char *out;
    int rc;

    ZBT_CHECK(p->doomed != NULL);
    ZBT_OK_CTX(zb_pathfile_rewind(p->doomed, &e->ctx), &e->ctx);
    while ((rc = zb_pathfile_next(p->doomed, &e->ctx, &r)) > 0)
        ZBT_CHECK(zb_buf_appendf(&b, "%s %u %llu\n", r->path, r->tag,
                                 (unsigned long long)r->size_bytes) == 0);
    ZBT_OK_CTX(rc, &e->ctx);
    out = strdup(zb_buf_cstr(&b));
    zb_buf_free(&b);
    return out;
}

/*
 * The reachable sets read with their manifests on 3 threads: the plan of
 * one thread (the same doomed files with their tags and sizes, the same
 * counts), with tiny path streams that spill and without.
 */
static void test_ops_expire__read_threads_same_plan(void)
{
    of_env e;
    zb_table *t;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    int64_t now = of_now_ms() + 10 * OF_DAY_MS;
    char *want = NULL;
    int k;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    o.min_snapshots_to_keep = 2;
    for (k = 0; k < 4; k++) {
        zb_expire_plan *p = NULL, *q = NULL;
        char *got;

        o.max_memory_bytes = k < 2 ? 0 : 4 * 4096;
        o.read_threads = 1;
        ZBT_OK_CTX(zb_expire__plan(&p, t, e.io, &e.ctx, &o, now), &e.ctx);
        o.read_threads = k % 2 ? 2 : 3;
        ZBT_OK_CTX(zb_expire__plan(&q, t, e.io, &e.ctx, &o, now), &e.ctx);
        if (want == NULL)
            want = doomed_text(&e, p);
        got = doomed_text(&e, p);
        ZBT_EQ_STR(got, want);
        free(got);
        got = doomed_text(&e, q);
        ZBT_EQ_STR(got, want);
        free(got);
        ZBT_EQ_U64(q->doomed_bytes, p->doomed_bytes);
        ZBT_CHECK(memcmp(q->by_tag, p->by_tag, sizeof p->by_tag) == 0);
        ZBT_EQ_INT(q->n_expired, p->n_expired);
        zb_expire__plan_free(p);
        zb_expire__plan_free(q);
    }
    ZBT_CHECK(strlen(want) > 0);
    free(want);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_expire__gc_disabled_deletes_nothing(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    ice_kv kv = { "gc.enabled", "false" };
    char tdir[700], *before, *after, *gone;
    zb_buf rep = ZB_BUF_INIT(1 << 16);

    of_open_catalog(&e, 1);
    t = twelve(&e);
    of_commit(&e, &t, (json_t *)ice_update_set_properties(&kv, 1));
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    before = of_tree(tdir);
    tg = target(&e, 0, of_now_ms() + 10 * OF_DAY_MS);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.snapshots_expired, 11);
    ZBT_EQ_U64(r.files_deleted, 0);
    ZBT_CHECK(r.gc_disabled && r.committed);
    after = of_tree(tdir);
    gone = removed(before, after);
    ZBT_EQ_STR(gone, "");
    of_reload(&e, &t, IDENT);
    ZBT_EQ_INT(t->meta->n_snapshots, 1);
    ZBT_OK_CTX(zb_expire_report(&rep, IDENT, &r, 0), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "gc.enabled=false");
    zb_buf_free(&rep);
    free(before);
    free(after);
    free(gone);
    zb_table_free(t);
    of_close(&e);
}

/* Refs past their max age go (the ref's own age first, then the option);
 * a young tag keeps its snapshot. */
static void test_ops_expire__refs(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    int64_t s0, s1, s2;

    of_open_catalog(&e, 1);
    t = of_make_catalog_table(&e, IDENT, NULL, 6, 5);
    s0 = t->meta->snapshots[0].snapshot_id;
    s1 = t->meta->snapshots[1].snapshot_id;
    s2 = t->meta->snapshots[2].snapshot_id;
    of_set_ref(&e, &t, "old-tag", 1, s0, OF_DAY_MS);
    of_set_ref(&e, &t, "old-branch", 0, s1, -1);
    of_set_ref(&e, &t, "keep-tag", 1, s2, 100 * OF_DAY_MS);
    tg = target(&e, 0, of_now_ms() + 10 * OF_DAY_MS);
    o.max_ref_age_ms = 2 * OF_DAY_MS;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.refs_dropped, 2);
    ZBT_EQ_U64(r.snapshots_expired, 4);
    ZBT_EQ_U64(r.snapshots_retained, 2);
    of_reload(&e, &t, IDENT);
    ZBT_CHECK(ice_metadata_ref(t->meta, "old-tag") == NULL);
    ZBT_CHECK(ice_metadata_ref(t->meta, "old-branch") == NULL);
    ZBT_CHECK(ice_metadata_ref(t->meta, "keep-tag") != NULL);
    ZBT_CHECK(ice_metadata_snapshot(t->meta, s2) != NULL);
    of_check_snapshot(&e, t, ice_metadata_snapshot(t->meta, s2), OF_CHECK_ALL);
    ZBT_EQ_INT(of_count_rows(&e, t, ice_metadata_snapshot(t->meta, s2)), 15);
    ZBT_OK_CTX(zb_expire_report(&rep, IDENT, &r, 0), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "  dropped 2 ref(s) past max-ref-age-ms: ");
    ZBT_CONTAINS(zb_buf_cstr(&rep), "old-tag");
    ZBT_CONTAINS(zb_buf_cstr(&rep), "old-branch");
    zb_buf_free(&rep);
    zb_expire_result_free(&r);
    zb_table_free(t);
    of_close(&e);
}

/* The spec's retention rules on snapshots with chosen timestamps. */
static void add_snap(ice_metadata *m, zb_ctx *ctx, int64_t id, int64_t parent,
                     int64_t ts, const char *branch)
{
    ice_snapshot_new s;
    char list[64];

    memset(&s, 0, sizeof s);
    snprintf(list, sizeof list, "/t/metadata/snap-%lld.avro", (long long)id);
    s.snapshot_id = id;
    s.parent_snapshot_id = parent;
    s.sequence_number = m->last_sequence_number + 1;
    s.timestamp_ms = ts;
    s.manifest_list = list;
    s.operation = "append";
    s.schema_id = -1;
    s.branch = branch;
    ZBT_OK_CTX(ice_metadata_add_snapshot(m, ctx, &s), ctx);
}

static void test_ops_expire__retention_rules(void)
{
    zb_ctx ctx;
    ice_metadata *m = NULL;
    json_t *schema = json_loads("{\"type\":\"struct\",\"schema-id\":0,"
                                "\"fields\":[{\"id\":1,\"name\":\"x\","
                                "\"required\":true,\"type\":\"long\"}]}",
                                0, NULL);
    zb_expire_rules rules;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    unsigned char keep[16], drop[8];
    int64_t T = 1000 * OF_DAY_MS;
    ice_ref ref;
    size_t i;
    char got[32];

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL,
                                   NULL, "/t", NULL,
                                   0, 2),
               &ctx);
    /* main: 1..6 at T-10d, -9d, -8d, -2d, -1d, T. */
    add_snap(m, &ctx, 1, ICE_NO_SNAPSHOT, T - 10 * OF_DAY_MS, NULL);
    add_snap(m, &ctx, 2, 1, T - 9 * OF_DAY_MS, NULL);
    add_snap(m, &ctx, 3, 2, T - 8 * OF_DAY_MS, NULL);
    add_snap(m, &ctx, 4, 3, T - 2 * OF_DAY_MS, NULL);
    add_snap(m, &ctx, 5, 4, T - 1 * OF_DAY_MS, NULL);
    /* branch b: 7 (parent 2) at T-7d; unreferenced 8 (young), 9 (old). */
    add_snap(m, &ctx, 7, 2, T - 7 * OF_DAY_MS, "b");
    add_snap(m, &ctx, 8, ICE_NO_SNAPSHOT, T - OF_DAY_MS, "tmp");
    add_snap(m, &ctx, 9, ICE_NO_SNAPSHOT, T - 6 * OF_DAY_MS, "tmp");
    ZBT_OK_CTX(ice_metadata_remove_ref(m, &ctx, "tmp"), &ctx);
    add_snap(m, &ctx, 6, 5, T, NULL);
    memset(&ref, 0, sizeof ref);
    ref.name = "t1";
    ref.type = ICE_REF_TAG;
    ref.snapshot_id = 1;
    ref.min_snapshots_to_keep = -1;
    ref.max_snapshot_age_ms = -1;
    ref.max_ref_age_ms = OF_DAY_MS;
    ZBT_OK_CTX(ice_metadata_set_ref(m, &ctx, &ref), &ctx);
    ZBT_CHECK(m->n_snapshots <= 16 && m->n_refs <= 8);

#define KEPT(out)                                                           \
    do {                                                                    \
        size_t k_ = 0;                                                      \
        for (i = 1; i <= 9; i++) {                                          \
            const ice_snapshot *s_ = ice_metadata_snapshot(m, (int64_t)i);  \
            if (s_ && keep[s_ - m->snapshots])                              \
                (out)[k_++] = (char)('0' + i);                              \
        }                                                                   \
        (out)[k_] = '\0';                                                   \
    } while (0)

    /* Defaults: 5 days, keep 1; t1 (1 day old max) is dropped. */
    ZBT_OK_CTX(zb_expire__rules(&rules, &ctx, m, &o), &ctx);
    ZBT_EQ_INT(rules.max_snapshot_age_ms, 5 * OF_DAY_MS);
    ZBT_EQ_INT(rules.min_snapshots_to_keep, 1);
    ZBT_OK_CTX(zb_expire__retain(keep, drop, &ctx, m, &rules, T), &ctx);
    KEPT(got);
    ZBT_EQ_STR(got, "45678");
    for (i = 0; i < m->n_refs; i++)
        ZBT_EQ_INT(drop[i], strcmp(m->refs[i].name, "t1") == 0);

    /* min-snapshots-to-keep 5 from the table property. */
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx,
                                         "history.expire.min-snapshots-to-keep",
                                         "5"),
               &ctx);
    ZBT_OK_CTX(zb_expire__rules(&rules, &ctx, m, &o), &ctx);
    ZBT_OK_CTX(zb_expire__retain(keep, drop, &ctx, m, &rules, T), &ctx);
    KEPT(got);
    ZBT_EQ_STR(got, "12345678");    /* b keeps 7, 2, 1 (5 to keep) */

    /* Options win over the property; the branch's own fields win. */
    o.min_snapshots_to_keep = 1;
    o.max_snapshot_age_ms = 0;
    ref.name = "b";
    ref.type = ICE_REF_BRANCH;
    ref.snapshot_id = 7;
    ref.min_snapshots_to_keep = 2;
    ref.max_ref_age_ms = -1;
    ZBT_OK_CTX(ice_metadata_set_ref(m, &ctx, &ref), &ctx);
    ZBT_OK_CTX(zb_expire__rules(&rules, &ctx, m, &o), &ctx);
    ZBT_OK_CTX(zb_expire__retain(keep, drop, &ctx, m, &rules, T), &ctx);
    KEPT(got);
    ZBT_EQ_STR(got, "267");         /* b: 7 and 2; main: 6; nothing young */

    /* A bad property is named. */
    o.min_snapshots_to_keep = -1;
    ZBT_OK_CTX(ice_metadata_set_property(m, &ctx,
                                         "history.expire.min-snapshots-to-keep",
                                         "five"),
               &ctx);
    ZBT_RC(zb_expire__rules(&rules, &ctx, m, &o), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "history.expire.min-snapshots-to-keep");
#undef KEPT
    ice_metadata_free(m);
    json_decref(schema);
}

/* A snapshot committed between the plan and the commit, on another
 * branch, reuses an expired snapshot's manifest list: the deletion is
 * refused after the commit and nothing is deleted. */
static void test_ops_expire__unsafe_after_commit(void)
{
    of_env e;
    zb_table *t, *t2 = NULL;
    zb_expire_plan *p = NULL;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    json_t *snap, *ups;
    char tdir[700], *before, *after, *gone;
    const ice_snapshot *old;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    o.min_snapshots_to_keep = 2;
    ZBT_OK_CTX(zb_expire__plan(&p, t, e.io, &e.ctx, &o,
                               of_now_ms() + 10 * OF_DAY_MS),
               &e.ctx);
    ZBT_EQ_INT(p->n_expired, 10);
    old = &t->meta->snapshots[3];
    snap = json_pack("{s:I, s:I, s:I, s:s, s:{s:s}, s:i}", "snapshot-id",
                     (json_int_t)777, "sequence-number",
                     (json_int_t)(t->meta->last_sequence_number + 1),
                     "timestamp-ms", (json_int_t)of_now_ms(), "manifest-list",
                     old->manifest_list, "summary", "operation", "append",
                     "schema-id", 0);
    ups = json_pack("[{s:s, s:o}, {s:s, s:s, s:s, s:I}]", "action",
                    "add-snapshot", "snapshot", snap, "action",
                    "set-snapshot-ref", "ref-name", "side", "type", "branch",
                    "snapshot-id", (json_int_t)777);
    ZBT_CHECK(ups != NULL);
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)ups,
                                 &t2), &e.ctx);
    json_decref(ups);
    zb_table_free(t2);
    t2 = NULL;

    before = of_tree(tdir);
    ZBT_RC(zb_expire__apply(&t2, p, e.cat, e.io, &e.ctx, &o, &r), ZB_EUNSAFE);
    ZBT_CONTAINS(e.ctx.err.msg, "nothing deleted");
    ZBT_CONTAINS(e.ctx.err.msg, "still referenced");
    ZBT_CHECK(r.committed);
    ZBT_EQ_U64(r.files_deleted, 0);
    after = of_tree(tdir);
    gone = removed(before, after);
    ZBT_EQ_STR(gone, "");
    /* Everything the committed metadata names still reads. */
    of_reload(&e, &t, IDENT);
    {
        size_t i;
        for (i = 0; i < t->meta->n_snapshots; i++)
            of_check_snapshot(&e, t, &t->meta->snapshots[i], OF_CHECK_ALL);
    }
    free(before);
    free(after);
    free(gone);
    zb_expire__plan_free(p);
    zb_table_free(t);
    of_close(&e);
}

/* Main moved between plan and commit: a conflict, nothing deleted. */
static void test_ops_expire__lost_race_deletes_nothing(void)
{
    of_env e;
    zb_table *t, *t2 = NULL;
    zb_expire_plan *p = NULL;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    char tdir[700], *before, *after, *gone;

    of_open_catalog(&e, 1);
    t = of_make_catalog_table(&e, IDENT, NULL, 5, 5);
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    ZBT_OK_CTX(zb_expire__plan(&p, t, e.io, &e.ctx, &o,
                               of_now_ms() + 10 * OF_DAY_MS),
               &e.ctx);
    ZBT_EQ_INT(p->n_expired, 4);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, IDENT, &t2), &e.ctx);
    of_append_to(&e, &t2, -1, 500, 5);
    before = of_tree(tdir);
    ZBT_RC(zb_expire__apply(NULL, p, e.cat, e.io, &e.ctx, &o, &r),
           ZB_ECONFLICT);
    ZBT_CHECK(!r.committed);
    after = of_tree(tdir);
    gone = removed(before, after);
    ZBT_EQ_STR(gone, "");
    free(before);
    free(after);
    free(gone);
    zb_expire__plan_free(p);
    zb_table_free(t);
    zb_table_free(t2);
    of_close(&e);
}

/* Spilled path streams give the same deletion as in-memory ones. */
static void test_ops_expire__small_memory(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r1 = ZB_EXPIRE_RESULT_INIT, r2 = ZB_EXPIRE_RESULT_INIT;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    tg = target(&e, 1, of_now_ms() + 10 * OF_DAY_MS);
    o.max_memory_bytes = 16 << 10;     /* 4 KiB a stream: spills at once */
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r1), &e.ctx);
    o.max_memory_bytes = 0;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r2), &e.ctx);
    ZBT_EQ_U64(r1.files_deleted, r2.files_deleted);
    ZBT_EQ_U64(r1.bytes_deleted, r2.bytes_deleted);
    ZBT_EQ_U64(r1.planned_manifests, r2.planned_manifests);
    ZBT_CHECK(r1.files_deleted > 10);
    zb_table_free(t);
    of_close(&e);
}

/* A retained snapshot's manifest list is gone: the plan fails, nothing is
 * committed or deleted. */
static void test_ops_expire__retained_file_missing(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    char tdir[700], *before, *after, *loc;
    const char *list;

    of_open_catalog(&e, 1);
    t = twelve(&e);
    snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    list = ice_metadata_current_snapshot(t->meta)->manifest_list;
    ZBT_CHECK(remove(list) == 0);
    before = of_tree(tdir);
    loc = strdup(t->metadata_location);
    tg = target(&e, 0, of_now_ms() + 10 * OF_DAY_MS);
    ZBT_RC(zb_expire(&tg, &e.ctx, &o, &r), ZB_ENOTFOUND);
    ZBT_CONTAINS(e.ctx.err.msg, "retained snapshot");
    ZBT_CHECK(!r.committed);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    of_reload(&e, &t, IDENT);
    ZBT_EQ_STR(t->metadata_location, loc);
    free(loc);
    free(before);
    free(after);
    zb_table_free(t);
    of_close(&e);
}

const zbt_case test_ops_expire_gen[] = {
    ZBT_CASE(test_ops_expire__generated_table),
    ZBT_CASE(test_ops_expire__dry_run_changes_nothing),
    ZBT_CASE(test_ops_expire__budget),
    ZBT_CASE(test_ops_expire__read_threads_same_plan),
    ZBT_CASE(test_ops_expire__gc_disabled_deletes_nothing),
    ZBT_CASE(test_ops_expire__refs),
    ZBT_CASE(test_ops_expire__retention_rules),
    ZBT_CASE(test_ops_expire__unsafe_after_commit),
    ZBT_CASE(test_ops_expire__lost_race_deletes_nothing),
    ZBT_CASE(test_ops_expire__small_memory),
    ZBT_CASE(test_ops_expire__retained_file_missing),
    ZBT_END
};

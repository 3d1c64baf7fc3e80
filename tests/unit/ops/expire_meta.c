/*
 * tests/unit/ops/expire_meta.c - expire deletes the metadata files older
 * than the metadata-log (src/ops/expire/expire_meta.c), and expire and
 * remove-orphans report progress (ops/ops.h).
 *
 * A table of 30 commits with write.metadata.previous-versions-max=5
 * (SQLite catalog: <N>-<uuid> names; PATH catalog: v<N> names and
 * version-hint.text): after expire exactly the current metadata file
 * and the entries of its log are left of the *.metadata.json files, every
 * retained snapshot reads whole with its rows, the table loads again;
 * the dry run counts the same files and changes no byte. With nothing
 * to expire the old files still go (no commit). gc.enabled=false and
 * write.metadata.delete-after-commit.enabled=false delete none. Another
 * table's metadata file, an unreadable one and one in a subfolder stay.
 * The progress callback sees, per stage, done rising to total.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ops_fixture.h"
#include "ops/expire/expire_int.h"
#include "ops/orphans/remove_orphans.h"
#include "table/commit/commit.h"

#define IDENT "db.events"

/* The *.metadata.json names directly in dir, sorted, one a line. */
static char *metadata_names(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v = NULL, *out;
    size_t n = 0, cap = 0, len = 1, i;

    ZBT_CHECK(d != NULL);
    while ((de = readdir(d)) != NULL) {
        size_t k = strlen(de->d_name);
        if (k < 14 || strcmp(de->d_name + k - 14, ".metadata.json") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            v = realloc(v, cap * sizeof *v);
            ZBT_CHECK(v != NULL);
        }
        v[n++] = strdup(de->d_name);
        len += k + 1;
    }
    closedir(d);
    for (i = 1; i < n; i++) {         /* insertion sort: a few dozen */
        char *x = v[i];
        size_t j = i;
        while (j > 0 && strcmp(v[j - 1], x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    out = malloc(len);
    ZBT_CHECK(out != NULL);
    out[0] = '\0';
    for (i = 0; i < n; i++) {
        strcat(out, v[i]);
        strcat(out, "\n");
        free(v[i]);
    }
    free(v);
    return out;
}

static const char *name_of(const char *p)
{
    const char *s = strrchr(p, '/');

    return s ? s + 1 : p;
}

/* The names the metadata of t references: current and log, sorted. */
static char *referenced_names(const zb_table *t)
{
    const ice_metadata *m = t->meta;
    size_t n = m->n_metadata_log + 1, i, j, len = 1;
    const char **v = calloc(n, sizeof *v);
    char *out;

    ZBT_CHECK(v != NULL);
    v[0] = name_of(t->metadata_location);
    for (i = 0; i < m->n_metadata_log; i++)
        v[i + 1] = name_of(m->metadata_log[i].metadata_file);
    for (i = 1; i < n; i++) {
        const char *x = v[i];
        for (j = i; j > 0 && strcmp(v[j - 1], x) > 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    for (i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    out = malloc(len);
    ZBT_CHECK(out != NULL);
    out[0] = '\0';
    for (i = 0; i < n; i++) {
        strcat(out, v[i]);
        strcat(out, "\n");
    }
    free(v);
    return out;
}

static void set_prop(of_env *e, zb_table **t, const char *k, const char *v)
{
    ice_kv kv;

    kv.key = k;
    kv.value = v;
    of_commit(e, t, (json_t *)ice_update_set_properties(&kv, 1));
}

/* 30 commits: create, 1 append, previous-versions-max=5, 27 appends. */
static zb_table *thirty(of_env *e, const char *ident)
{
    zb_table *t = of_make_catalog_table(e, ident, NULL, 1, 10);
    int i;

    set_prop(e, &t, ICE_PROP_PREVIOUS_VERSIONS_MAX, "5");
    for (i = 0; i < 27; i++)
        of_append_to(e, &t, -1, 100 * (i + 1), 10);
    ZBT_CHECK(t->meta->n_metadata_log <= 5);
    return t;
}

static zb_op_target target(of_env *e, const char *ident, int dry_run,
                           int64_t now_ms)
{
    zb_op_target tg;

    memset(&tg, 0, sizeof tg);
    tg.catalog = e->cat;
    tg.io = e->io;
    tg.ident = ident;
    tg.dry_run = dry_run;
    tg.now_ms = now_ms;
    return tg;
}

/* ---- progress ---- */

typedef struct prog {
    char stage[8][64];
    uint64_t done[8], total[8];
    int calls[8], n, bad;
} prog;

static void on_progress(const char *stage, uint64_t done, uint64_t total,
                        void *payload)
{
    prog *p = payload;
    int i;

    for (i = 0; i < p->n && strcmp(p->stage[i], stage) != 0; i++)
        ;
    if (i == p->n) {
        ZBT_CHECK(p->n < 8);
        snprintf(p->stage[p->n++], sizeof p->stage[0], "%s", stage);
        p->total[i] = total;
        p->done[i] = 0;
    }
    if (done < p->done[i] || done > total || total != p->total[i])
        p->bad++;
    p->done[i] = done;
    p->calls[i]++;
}

static int prog_find(const prog *p, const char *stage)
{
    int i;

    for (i = 0; i < p->n; i++)
        if (strcmp(p->stage[i], stage) == 0)
            return i;
    return -1;
}

/* ---- cases ---- */

static void run_thirty(int sqlite)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT, rd = ZB_EXPIRE_RESULT_INIT;
    char tdir[700], mdir[800], ident[700], *before, *after, *names, *want;
    int64_t rows[64], ids[64];
    size_t i, j, n_before, n_snap;
    zb_buf rep = ZB_BUF_INIT(1 << 16);
    prog pg;
    int k;

    of_open_catalog(&e, sqlite);
    if (sqlite) {
        snprintf(ident, sizeof ident, "%s", IDENT);
        snprintf(tdir, sizeof tdir, "%s/events", e.dir);
    } else {
        snprintf(ident, sizeof ident, "%s/events", e.dir);
        snprintf(tdir, sizeof tdir, "%s", ident);
    }
    t = thirty(&e, ident);
    snprintf(mdir, sizeof mdir, "%s/metadata", tdir);
    n_snap = t->meta->n_snapshots;
    ZBT_CHECK(n_snap == 28 && n_snap < 64);
    for (i = 0; i < n_snap; i++) {
        ids[i] = t->meta->snapshots[i].snapshot_id;
        rows[i] = of_count_rows(&e, t, &t->meta->snapshots[i]);
    }
    names = metadata_names(mdir);
    n_before = of_lines(names);
    ZBT_EQ_U64(n_before, 30);
    free(names);

    /* Dry run: counts, changes no byte. */
    before = of_tree(tdir);
    tg = target(&e, ident, 1, of_now_ms() + 10 * OF_DAY_MS);
    o.min_snapshots_to_keep = 3;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &rd), &e.ctx);
    after = of_tree(tdir);
    ZBT_EQ_STR(after, before);
    free(after);
    /* The commit adds one file; 6 stay (current and a log of 5). */
    ZBT_EQ_U64(rd.metadata_deleted, n_before + 1 - 6);
    ZBT_CHECK(rd.metadata_bytes_deleted > 0);
    ZBT_EQ_U64(rd.previous_versions_max, 5);
    ZBT_OK_CTX(zb_expire_report(&rep, ident, &rd, 1), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&rep), "  would delete 25 old metadata file(s) (");
    ZBT_CONTAINS(zb_buf_cstr(&rep),
                 ") beyond write.metadata.previous-versions-max=5\n");

    /* The real run, with progress. */
    memset(&pg, 0, sizeof pg);
    e.ctx.progress = on_progress;
    e.ctx.progress_payload = &pg;
    tg.dry_run = 0;
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    e.ctx.progress = NULL;
    ZBT_CHECK(r.committed);
    ZBT_EQ_U64(r.snapshots_expired, n_snap - 3);
    ZBT_EQ_U64(r.metadata_deleted, rd.metadata_deleted);
    ZBT_EQ_U64(r.metadata_bytes_deleted, rd.metadata_bytes_deleted);
    ZBT_EQ_U64(r.metadata_not_deleted, 0);
    ZBT_EQ_U64(r.metadata_skipped, 0);
    ZBT_EQ_INT(pg.bad, 0);
    k = prog_find(&pg, ZB_PROGRESS_EXPIRE_METADATA);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], r.metadata_deleted);
    ZBT_EQ_U64(pg.done[k], pg.total[k]);
    k = prog_find(&pg, ZB_PROGRESS_EXPIRE_FILES);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], r.files_deleted);
    ZBT_EQ_U64(pg.done[k], pg.total[k]);
    ZBT_CHECK(pg.calls[k] >= 2);

    /* Exactly the current file and its log are left. */
    of_reload(&e, &t, ident);
    ZBT_EQ_U64(t->meta->n_metadata_log, 5);
    names = metadata_names(mdir);
    want = referenced_names(t);
    ZBT_EQ_STR(names, want);
    free(names);
    free(want);
    if (!sqlite) {
        char hint[900];
        snprintf(hint, sizeof hint, "%s/version-hint.text", mdir);
        ZBT_CHECK(of_exists(hint));
    }
    /* Every retained snapshot reads whole, with its rows. */
    ZBT_EQ_INT(t->meta->n_snapshots, 3);
    for (i = 0; i < t->meta->n_snapshots; i++) {
        const ice_snapshot *s = &t->meta->snapshots[i];
        ZBT_CHECK(of_check_snapshot(&e, t, s, OF_CHECK_ALL) > 0);
        for (j = 0; j < n_snap && ids[j] != s->snapshot_id; j++)
            ;
        ZBT_CHECK(j < n_snap);
        ZBT_EQ_INT(of_count_rows(&e, t, s), rows[j]);
    }
    /* A further commit on the table still works. */
    of_append_to(&e, &t, -1, 99999, 10);

    /* Again: the append dropped one entry from the log, this expire's
     * commit (one more snapshot past the 3 kept) another. */
    zb_expire_result_free(&r);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.snapshots_expired, 1);
    ZBT_EQ_U64(r.metadata_deleted, 2);
    of_reload(&e, &t, ident);
    names = metadata_names(mdir);
    want = referenced_names(t);
    ZBT_EQ_STR(names, want);
    free(names);
    free(want);
    /* And once more: no commit, nothing older than the log left. */
    zb_expire_result_free(&r);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_CHECK(!r.committed);
    ZBT_EQ_U64(r.metadata_deleted, 0);
    free(before);
    zb_buf_free(&rep);
    zb_expire_result_free(&r);
    zb_expire_result_free(&rd);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_expire__metadata_sqlite(void)
{
    run_thirty(1);
}

static void test_ops_expire__metadata_path(void)
{
    run_thirty(0);
}

/* Nothing to expire: no commit, and the files older than the log go. */
static void test_ops_expire__metadata_without_commit(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    char mdir[800], *names, *want, *loc;

    of_open_catalog(&e, 1);
    t = thirty(&e, IDENT);
    snprintf(mdir, sizeof mdir, "%s/events/metadata", e.dir);
    loc = strdup(t->metadata_location);
    tg = target(&e, IDENT, 0, 0);          /* the real clock: all young */
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_CHECK(!r.committed);
    ZBT_EQ_U64(r.snapshots_expired, 0);
    ZBT_EQ_U64(r.metadata_deleted, 30 - 6);
    of_reload(&e, &t, IDENT);
    ZBT_EQ_STR(t->metadata_location, loc);
    names = metadata_names(mdir);
    want = referenced_names(t);
    ZBT_EQ_STR(names, want);
    ZBT_EQ_U64(of_lines(names), 6);
    for (size_t i = 0; i < t->meta->n_snapshots; i++)
        ZBT_CHECK(of_check_snapshot(&e, t, &t->meta->snapshots[i],
                                    OF_CHECK_ALL) > 0);
    free(names);
    free(want);
    free(loc);
    zb_expire_result_free(&r);
    zb_table_free(t);
    of_close(&e);
}

/* gc.enabled=false and delete-after-commit=false: no metadata file goes. */
static void keeps_all(const char *key, const char *value)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    char mdir[800], *names;

    of_open_catalog(&e, 1);
    t = thirty(&e, IDENT);
    set_prop(&e, &t, key, value);
    snprintf(mdir, sizeof mdir, "%s/events/metadata", e.dir);
    tg = target(&e, IDENT, 0, of_now_ms() + 10 * OF_DAY_MS);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_CHECK(r.committed);
    ZBT_EQ_U64(r.metadata_deleted, 0);
    names = metadata_names(mdir);
    ZBT_EQ_U64(of_lines(names), 32);       /* 30, the property, expire */
    free(names);
    zb_expire_result_free(&r);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_expire__metadata_gc_disabled(void)
{
    keeps_all("gc.enabled", "false");
}

static void test_ops_expire__metadata_delete_after_commit_false(void)
{
    keeps_all(ICE_PROP_DELETE_AFTER_COMMIT, "false");
}

/* As Java's Boolean.parseBoolean reads them: anything but "true" is
 * false, so these keep every file too. */
static void test_ops_expire__metadata_gc_not_true(void)
{
    keeps_all("gc.enabled", "no");
}

static void test_ops_expire__metadata_delete_after_commit_not_true(void)
{
    keeps_all(ICE_PROP_DELETE_AFTER_COMMIT, "0");
}

/* Files below the floor that are not provably this table's stay, and so
 * do files not named in the table's own scheme. */
#define OTHER_NAME "00000-11111111-2222-3333-4444-555555555555.metadata.json"
#define BROKEN_NAME "00001-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.metadata.json"
static void test_ops_expire__metadata_foreign_kept(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_expire_opts o = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    char mdir[800], p[1200], cmd[2600], *names;
    FILE *f;

    of_open_catalog(&e, 1);
    t = thirty(&e, IDENT);
    snprintf(mdir, sizeof mdir, "%s/events/metadata", e.dir);
    /* Another table's file: the first one with its table-uuid changed. */
    snprintf(cmd, sizeof cmd,
             "f=$(ls '%s' | grep '^00000-.*metadata.json$') && "
             "sed 's/\"table-uuid\" *: *\"[^\"]*\"/\"table-uuid\": "
             "\"11111111-2222-3333-4444-555555555555\"/' \"%s/$f\" > "
             "'%s/" OTHER_NAME "' && "
             "grep -q 11111111-2222 '%s/" OTHER_NAME "'",
             mdir, mdir, mdir, mdir);
    ZBT_CHECK(system(cmd) == 0);
    /* A truncated one, and one in a subfolder. */
    snprintf(p, sizeof p, "%s/" BROKEN_NAME, mdir);
    f = fopen(p, "w");
    ZBT_CHECK(f != NULL);
    fputs("{\"format-version\": 2, \"tab", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/sub' && cp \"$(ls -d '%s'/00002-*"
             ".metadata.json)\" '%s/sub/00002-copy.metadata.json'", mdir,
             mdir, mdir);
    ZBT_CHECK(system(cmd) == 0);
    /* This table's own bytes under names outside its naming scheme: a
     * Hadoop name (another writer's numbering, not comparable), a user's
     * copy, a writer's temporary file whose uuid starts with digits. */
    snprintf(cmd, sizeof cmd, "f=\"$(ls -d '%s'/00002-*.metadata.json)\" && "
             "cp \"$f\" '%s/v1.metadata.json' && "
             "cp \"$f\" '%s/1-copy.metadata.json' && "
             "cp \"$f\" '%s/00000123-aaaa-bbbb-cccc-dddddddddddd.metadata.json'",
             mdir, mdir, mdir, mdir);
    ZBT_CHECK(system(cmd) == 0);

    tg = target(&e, IDENT, 0, 0);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.metadata_deleted, 30 - 6);
    ZBT_EQ_U64(r.metadata_skipped, 2);
    names = metadata_names(mdir);
    ZBT_CONTAINS(names, OTHER_NAME "\n");
    ZBT_CONTAINS(names, BROKEN_NAME "\n");
    ZBT_CONTAINS(names, "v1.metadata.json\n");
    ZBT_CONTAINS(names, "1-copy.metadata.json\n");
    ZBT_CONTAINS(names, "00000123-aaaa-bbbb-cccc-dddddddddddd.metadata.json\n");
    ZBT_EQ_U64(of_lines(names), 11);
    snprintf(p, sizeof p, "%s/sub/00002-copy.metadata.json", mdir);
    ZBT_CHECK(of_exists(p));
    free(names);
    zb_expire_result_free(&r);
    zb_table_free(t);
    of_close(&e);
}

/* The floor and the prediction on metadata built by hand. */
static void test_ops_expire__metadata_plan_predict(void)
{
    of_env e;
    zb_table *t;
    zb_expire_meta mp, mq;

    of_open_catalog(&e, 1);
    t = thirty(&e, IDENT);
    ZBT_EQ_U64(t->meta->n_metadata_log, 5);
    /* As loaded: the log's oldest is version 24 (current 29). */
    ZBT_OK_CTX(zb_expire__meta_plan(&mp, t, NULL, 0, e.io, &e.ctx), &e.ctx);
    ZBT_EQ_INT(mp.floor_version, 24);
    ZBT_EQ_U64(zb_pathfile_count(mp.files), 24);
    /* After a commit the log would start one later. */
    ZBT_OK_CTX(zb_expire__meta_plan(&mq, t, NULL, 1, e.io, &e.ctx), &e.ctx);
    ZBT_EQ_INT(mq.floor_version, 25);
    ZBT_EQ_U64(zb_pathfile_count(mq.files), 25);
    ZBT_CHECK(mq.bytes > mp.bytes);
    zb_expire__meta_free(&mp);
    zb_expire__meta_free(&mq);
    zb_table_free(t);
    of_close(&e);
}

/* remove-orphans reports its deletions: done rises to total. */
static void test_ops_orphans__progress(void)
{
    of_env e;
    zb_table *t;
    zb_op_target tg;
    zb_remove_orphans_opts o = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    char p[1200];
    prog pg;
    int i, k;

    of_open_catalog(&e, 1);
    t = of_make_catalog_table(&e, IDENT, NULL, 2, 5);
    for (i = 0; i < 40; i++) {
        snprintf(p, sizeof p, "%s/events/data/stray-%d.parquet", e.dir, i);
        of_make_file(p, 10, 10 * OF_DAY_MS);
    }
    memset(&pg, 0, sizeof pg);
    e.ctx.progress = on_progress;
    e.ctx.progress_payload = &pg;
    tg = target(&e, IDENT, 0, 0);
    o.delete_threads = 2;
    ZBT_OK_CTX(zb_remove_orphans(&tg, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.files_deleted, 40);
    ZBT_EQ_INT(pg.bad, 0);
    k = prog_find(&pg, ZB_PROGRESS_ORPHANS_FILES);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], 40);
    ZBT_EQ_U64(pg.done[k], 40);
    zb_table_free(t);
    of_close(&e);
}

const zbt_case test_ops_expire_meta[] = {
    ZBT_CASE(test_ops_expire__metadata_sqlite),
    ZBT_CASE(test_ops_expire__metadata_path),
    ZBT_CASE(test_ops_expire__metadata_without_commit),
    ZBT_CASE(test_ops_expire__metadata_gc_disabled),
    ZBT_CASE(test_ops_expire__metadata_delete_after_commit_false),
    ZBT_CASE(test_ops_expire__metadata_gc_not_true),
    ZBT_CASE(test_ops_expire__metadata_delete_after_commit_not_true),
    ZBT_CASE(test_ops_expire__metadata_foreign_kept),
    ZBT_CASE(test_ops_expire__metadata_plan_predict),
    ZBT_CASE(test_ops_orphans__progress),
    ZBT_END
};

/*
 * tests/unit/ops/compact_race.c - compaction while another process keeps
 * writing: a forked child appends rows, commits equality deletes (on id
 * and part) of existing rows, and position deletes of rows it reads from
 * a live data file, while the parent compacts again and again. The child
 * logs what it did; a position delete counts only when the committed
 * snapshot still held its data file (otherwise the writer's delete is
 * dangling: its own business, not compaction's). Afterwards every
 * appended row is there and no deleted row is back: the live ids equal
 * initial + appended - deleted exactly. Also: a delete injected between
 * a group's write and its commit, and SIGKILL at random points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "compact_test.h"
#include "exec/arrow/arrow.h"
#include "format/parquet/parquet.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit.h"
#include "util/alloc.h"

#define PARTS 2
#define APPENDS 20
#define ROWS 50
#define CHILD_STEPS 40
#define MAX_ID (100000 + CHILD_STEPS * 10)

/* The id at row pos of the nth live data file of t, and its path. */
static int pick_row(zb_ctx *ctx, zb_io *io, const zb_table *t, size_t nth,
                    int64_t *id, char **path, int64_t *pos, int *part)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    size_t n = 0;
    int rc, found = 0;

    po.manifest = &t->paths;
    if ((rc = zb_scan_plan_open(&p, io, ctx, t->meta, s, &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(p, ctx, &task)) > 0 && !found) {
        pq_reader_opts ro = PQ_READER_OPTS_INIT;
        pq_reader *r = NULL;
        struct ArrowArray b;
        int32_t fid = 1;
        int64_t at = 0;

        if (n++ < nth || task->data.file->record_count == 0)
            continue;
        *pos = (int64_t)(nth * 13) % task->data.file->record_count;
        *part = task->data.file->partition[0].u.i;
        ro.field_ids = &fid;
        ro.n_field_ids = 1;
        if ((rc = pq_reader_open(&r, io, ctx, task->data.uri, &ro)) < 0)
            break;
        while ((rc = pq_reader_next(r, ctx, &b)) == 1) {
            if (*pos < at + b.length) {
                const int64_t *v = b.children[0]->buffers[1];

                *id = v[*pos - at + b.children[0]->offset];
                found = 1;
            }
            at += b.length;
            b.release(&b);
            if (found)
                break;
        }
        pq_reader_free(r);
        if (rc < 0)
            break;
        *path = zb_strdup(task->data.file->file_path);
    }
    zb_scan_plan_free(p);
    if (rc < 0)
        return rc;
    return found ? 1 : 0;
}

static int live_in(zb_ctx *ctx, zb_io *io, const zb_table *t,
                   const char *path)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    int rc, hit = 0;

    po.manifest = &t->paths;
    if ((rc = zb_scan_plan_open(&p, io, ctx, t->meta,
                                ice_metadata_current_snapshot(t->meta),
                                &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(p, ctx, &task)) > 0)
        hit |= strcmp(task->data.file->file_path, path) == 0;
    zb_scan_plan_free(p);
    return rc < 0 ? rc : hit;
}

static int child(of_env *c, FILE *log)
{
    int k, rc = 0;

    for (k = 0; k < CHILD_STEPS && rc >= 0; k++) {
        int64_t first = 100000 + (int64_t)k * 10;

        if ((rc = of_append_rc(c, k % PARTS, first, 10)) < 0)
            break;
        fprintf(log, "A %lld 10\n", (long long)first);
        if (k % 3 == 0) {
            int64_t id = (int64_t)(k * 37) % (APPENDS * ROWS);

            if ((rc = ct_delete_eq2_rc(c, &id, 1,
                                       (int)((id / ROWS) % PARTS))) < 0)
                break;
            fprintf(log, "E %lld\n", (long long)id);
        }
        if (k % 4 == 1) {
            zb_table *t = NULL;
            int64_t id = 0, pos = 0;
            char *path = NULL;
            int part = 0;

            if ((rc = zb_catalog_load_table(c->cat, &c->ctx, c->dir,
                                            &t)) < 0)
                break;
            rc = pick_row(&c->ctx, c->io, t, (size_t)k % 5, &id, &path,
                          &pos, &part);
            zb_table_free(t);
            t = NULL;
            if (rc <= 0) {
                zb_free(path);
                continue;
            }
            if ((rc = zb_catalog_load_table(c->cat, &c->ctx, c->dir,
                                            &t)) == 0)
                rc = zb_ingest_delete_positions(&t, c->cat, c->io, &c->ctx,
                                                (const char *const *)&path,
                                                &pos, 1,
                                                &(zb_write_partition){
                                                   -1, 1,
                                                   &(ice_value){
                                                       .type = ICE_INT,
                                                       .u.i = part },
                                                   NULL });
            if (rc == 0 && (rc = live_in(&c->ctx, c->io, t, path)) == 1)
                fprintf(log, "P %lld\n", (long long)id);
            zb_table_free(t);
            zb_free(path);
        }
        fflush(log);
    }
    if (rc < 0)
        fprintf(stderr, "child: %s\n", c->ctx.err.msg);
    return rc < 0 ? 1 : 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_ops_compact_race__writer(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    char logpath[1100], line[128];
    size_t runs = 0, commits = 0, conflicts = 0, dropped = 0, n_ids, i;
    size_t n_exp = 0;
    int64_t *ids, *exp;
    char *deleted;
    int st = 0, done = 0;
    FILE *log;
    pid_t pid;

    of_open(&e, "c-race");
    of_make_table(&e, 2, 1, PARTS, APPENDS, ROWS);
    snprintf(logpath, sizeof logpath, "%s/child.log", zbt_tmpdir());
    fflush(stdout);
    if ((pid = fork()) == 0) {
        of_env c = e;
        zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
        FILE *f = fopen(logpath, "w");

        zb_ctx_init(&c.ctx);
        cfg.kind = ZB_CATALOG_PATH;
        if (f == NULL || zb_io_new(&c.io, &c.ctx) < 0 ||
            zb_catalog_open(&c.cat, &c.ctx, c.io, &cfg) < 0)
            _exit(3);
        _exit(child(&c, f));
    }
    ZBT_CHECK(pid > 0);
    while (!done || runs < 3) {
        int rc;

        if (!done && waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        zb_err_clear(&e.ctx.err);
        rc = zb_compact(&e.t, &e.ctx, &o, &r);
        runs++;
        if (rc == ZB_ECONFLICT)
            conflicts++;
        else
            ZBT_OK_CTX(rc, &e.ctx);
        commits += r.commits;
        dropped += r.groups_dropped;
        zb_compact_result_free(&r);
        ZBT_CHECK(runs < 5000);
    }
    ZBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("  %zu compaction run(s), %zu commit(s), %zu group(s) dropped, "
           "%zu lost race(s)\n", runs, commits, dropped, conflicts);
    ZBT_CHECK(commits > 0);
    /* Expected: initial + appended - deleted. */
    exp = zb_malloc(100000 * sizeof *exp);
    deleted = zb_calloc(MAX_ID, 1);
    ZBT_CHECK(exp != NULL && deleted != NULL);
    ZBT_CHECK((log = fopen(logpath, "r")) != NULL);
    while (fgets(line, sizeof line, log) != NULL) {
        long long a = 0, b = 0;
        int64_t j;

        if (sscanf(line, "A %lld %lld", &a, &b) == 2) {
            for (j = 0; j < b; j++)
                exp[n_exp++] = a + j;
        } else if (sscanf(line, "E %lld", &a) == 1 ||
                   sscanf(line, "P %lld", &a) == 1) {
            ZBT_CHECK(a >= 0 && a < MAX_ID);
            deleted[a] = 1;
        }
    }
    fclose(log);
    for (i = 0; i < APPENDS * ROWS; i++)
        exp[n_exp++] = (int64_t)i;
    {
        size_t w = 0;

        for (i = 0; i < n_exp; i++)
            if (!deleted[exp[i]])
                exp[w++] = exp[i];
        n_exp = w;
    }
    qsort(exp, n_exp, sizeof *exp, cmp_i64);
    ids = ct_ids(&e, &n_ids);
    ZBT_EQ_U64(n_ids, n_exp);
    for (i = 0; i < n_ids; i++)
        if (ids[i] != exp[i]) {
            printf("  id %lld live, expected %lld\n", (long long)ids[i],
                   (long long)exp[i]);
            ZBT_CHECK(ids[i] == exp[i]);
        }
    of_check_files(&e);
    zb_free(ids);
    zb_free(exp);
    zb_free(deleted);
    of_close(&e);
}

/* Between the writes and the commit, another writer deletes a row of a
 * file of partition 1's group by position, and one row of partition 0
 * by equality. With its position map lost (as after a restart, the test
 * hook), group 1 is dropped (its files deleted), the report naming why;
 * group 0 commits
 * with the starting sequence number so the equality delete still
 * applies; both deleted rows stay deleted. */
typedef struct inject {
    of_env *e;
    char *path;                    /* a data file of partition 1 */
} inject;

static void before_commit(void *payload)
{
    inject *in = payload;
    int64_t pos = 3, id = 2 * ROWS + 7;   /* append 2: partition 0 */

    ZBT_OK_CTX(ct_delete_pos_rc(in->e, in->path, &pos, 1, 1), &in->e->ctx);
    ZBT_OK_CTX(ct_delete_eq2_rc(in->e, &id, 1, 0), &in->e->ctx);
}

static void test_ops_compact_race__injected(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    inject in;
    of_items live;
    int64_t *ids;
    size_t n, i;
    uint64_t rows0, h0;

    of_open(&e, "c-inject");
    of_make_table(&e, 2, 1, PARTS, 8, ROWS);
    of_rows(&e, &rows0, &h0);
    of_live(&live, &e);
    in.e = &e;
    in.path = NULL;
    for (i = 0; i < live.n && in.path == NULL; i++)
        if (live.v[i].content == 0 && strstr(live.v[i].path, "part=1"))
            in.path = zb_strdup(live.v[i].path);
    of_items_free(&live);
    ZBT_CHECK(in.path != NULL);
    hk.before_commit = before_commit;
    hk.payload = &in;
    hk.lose_maps = 1;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.groups_dropped, 1);
    ZBT_EQ_INT(r.plan.groups[r.plan.groups[0].state == ZB_GROUP_DROPPED
                                  ? 0 : 1].partition[1], '1');
    {
        zb_buf out = ZB_BUF_INIT(1 << 20);

        ZBT_OK_CTX(zb_compact_report(&out, "t", &r, 0), &e.ctx);
        ZBT_CONTAINS(zb_buf_cstr(&out), "dropped group");
        ZBT_CONTAINS(zb_buf_cstr(&out), "position map was lost");
        zb_buf_free(&out);
    }
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 2);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] != 2 * ROWS + 7);
    zb_free(ids);
    of_check_files(&e);
    /* A second run compacts partition 1 with its new delete applied. */
    hk.before_commit = NULL;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 2);
    zb_free(ids);
    zb_free(in.path);
    of_close(&e);
}

/*
 * Issue 21: the same concurrent position delete (v2: a position delete
 * file; v3: a deletion vector) and equality delete, with the maps kept:
 * both groups commit, the position delete carried onto the new file of
 * partition 1's group (a position delete file, or one DV for the one
 * new data file that holds the row), and both rows stay deleted.
 */
static void carried(int fv)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    zb_buf out = ZB_BUF_INIT(1 << 20);
    inject in;
    of_items live;
    int64_t *ids;
    size_t n, i, new_dvs = 0;
    uint64_t rows0, h0, carried_rows = 0, carried_files = 0;

    of_open(&e, fv >= 3 ? "c-carry-dv" : "c-carry");
    of_make_table(&e, fv, 1, PARTS, 8, ROWS);
    of_rows(&e, &rows0, &h0);
    of_live(&live, &e);
    in.e = &e;
    in.path = NULL;
    for (i = 0; i < live.n && in.path == NULL; i++)
        if (live.v[i].content == 0 && strstr(live.v[i].path, "part=1"))
            in.path = zb_strdup(live.v[i].path);
    of_items_free(&live);
    ZBT_CHECK(in.path != NULL);
    hk.before_commit = before_commit;
    hk.payload = &in;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 2);
    ZBT_EQ_U64(r.groups_dropped, 0);
    for (i = 0; i < r.plan.n_groups; i++) {
        carried_rows += r.plan.groups[i].carried_rows;
        carried_files += r.plan.groups[i].carried_deletes;
    }
    ZBT_EQ_U64(carried_rows, 1);
    ZBT_EQ_U64(carried_files, 1);
    /* The compaction's snapshot added one delete file: one DV naming the
     * new file that holds the row (v3), or one position delete file
     * (v2). (The outputs' paths live in the run's arena, gone now.) */
    for (i = 0; i < r.plan.n_groups; i++) {
        const zb_compact_group *g = &r.plan.groups[i];
        zb_table *t = NULL;
        ice_snapshot_iter *it = NULL;
        const ice_manifest_entry *en;
        const ice_manifest_file *mf;
        const ice_snapshot *cur;
        size_t hits = 0;

        if (g->carried_rows == 0)
            continue;
        ZBT_EQ_U64(g->out_files, 1);
        ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.dir, &t), &e.ctx);
        cur = ice_metadata_current_snapshot(t->meta);
        ZBT_CHECK(cur != NULL);
        ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta, cur,
                                          &t->paths), &e.ctx);
        while (ice_snapshot_iter_next(it, &e.ctx, &en, &mf) > 0) {
            const ice_data_file *d = &en->data_file;

            if (d->content != ICE_CONTENT_POSITION_DELETES)
                continue;
            /* Added by the compaction's own snapshot. */
            if (en->snapshot_id == cur->snapshot_id &&
                (fv < 3 || (ice_data_file_is_dv(d) &&
                            d->referenced_data_file != NULL)))
                hits++;
        }
        ice_snapshot_iter_free(it);
        zb_table_free(t);
        ZBT_EQ_U64(hits, 1);
    }
    ZBT_OK_CTX(zb_compact_report(&out, "t", &r, 0), &e.ctx);
    ZBT_CONTAINS(zb_buf_cstr(&out), "carried deletes: 1 group(s)");
    ZBT_CONTAINS(zb_buf_cstr(&out), "hiding 1 row(s)");
    zb_buf_free(&out);
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 2);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] != 2 * ROWS + 7);
    zb_free(ids);
    /* The carried delete is live beside the concurrent one (which names
     * only the replaced file now). */
    of_live(&live, &e);
    for (i = 0; i < live.n; i++)
        if (live.v[i].content == 1 &&
            strstr(live.v[i].path, fv >= 3 ? ".puffin" : ".parquet"))
            new_dvs++;
    of_items_free(&live);
    ZBT_CHECK(new_dvs >= 2);
    of_check_files(&e);
    zb_free(in.path);
    of_close(&e);
}

static void test_ops_compact_race__carried_v2(void)
{
    carried(2);
}

static void test_ops_compact_race__carried_dv_v3(void)
{
    carried(3);
}

/* SIGKILL at random points of a compaction: the table stays readable
 * with all its rows every time (a commit is all or nothing; files a
 * killed run wrote are orphans, never referenced). */
static void test_ops_compact_race__sigkill(void)
{
    of_env e;
    uint64_t rows0, h0, rows, h;
    int k, killed = 0, finished = 0;

    of_open(&e, "c-kill");
    of_make_table(&e, 2, 1, PARTS, 16, 500);
    {
        int64_t pos[] = { 1, 2 };
        char *p = ct_delete_pos(&e, 0, pos, 2, 0);

        zb_free(p);
    }
    of_rows(&e, &rows0, &h0);
    srand(12345);
    for (k = 0; k < 20; k++) {
        int st = 0;
        pid_t pid;

        fflush(stdout);
        if ((pid = fork()) == 0) {
            of_env c = e;
            zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
            zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
            zb_compact_result r;

            zb_ctx_init(&c.ctx);
            cfg.kind = ZB_CATALOG_PATH;
            if (zb_io_new(&c.io, &c.ctx) < 0 ||
                zb_catalog_open(&c.cat, &c.ctx, c.io, &cfg) < 0)
                _exit(3);
            c.t.catalog = c.cat;
            c.t.io = c.io;
            o.rewrite_all = 1;
            o.target_file_bytes = 2048 + 1024 * (k % 4);
            _exit(zb_compact(&c.t, &c.ctx, &o, &r) == ZB_OK ? 0 : 1);
        }
        ZBT_CHECK(pid > 0);
        nanosleep(&(struct timespec){ 0, (long)(rand() % 250000) * 1000L },
                  NULL);
        kill(pid, SIGKILL);
        ZBT_CHECK(waitpid(pid, &st, 0) == pid);
        if (WIFSIGNALED(st))
            killed++;
        else
            finished += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        of_rows(&e, &rows, &h);
        ZBT_EQ_U64(rows, rows0);
        ZBT_EQ_U64(h, h0);
        of_check_files(&e);
    }
    printf("  20 runs: %d killed, %d finished; rows intact each time\n",
           killed, finished);
    ZBT_CHECK(killed > 0);
    of_close(&e);
}

static void eq_only(void *payload)
{
    of_env *e = payload;
    int64_t id = 2 * ROWS + 9;      /* append 2: partition 0 */

    ZBT_OK_CTX(ct_delete_eq2_rc(e, &id, 1, 0), &e->ctx);
}

/* Without the starting sequence number an equality delete committed
 * after planning would not apply to the new files: that group is
 * dropped, and the row stays deleted. */
static void test_ops_compact_race__eq_without_starting_seq(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    int64_t *ids;
    size_t n, i;
    uint64_t rows0, h0;

    of_open(&e, "c-noseq");
    of_make_table(&e, 2, 1, PARTS, 8, ROWS);
    of_rows(&e, &rows0, &h0);
    o.use_starting_seq = 0;
    hk.before_commit = eq_only;
    hk.payload = &e;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_dropped, 1);
    ZBT_EQ_U64(r.groups_committed, 1);
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 1);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] != 2 * ROWS + 9);
    zb_free(ids);
    of_check_files(&e);
    of_close(&e);
}

/* ---- a dropped group's vectors and a shared Puffin file ---------------- */

static char *dropped_file;

static void dv_for_dropped(void *payload)
{
    of_env *e = payload;
    int64_t pos = 3;

    ZBT_OK_CTX(ct_delete_pos_rc(e, dropped_file, &pos, 1, 0), &e->ctx);
}

/*
 * v3: one Puffin file holds the vectors of A (group 1) and C (group 2).
 * A concurrent vector for D drops group 2; group 1 commits. The Puffin
 * file must stay for C's vector: removing it would bring C's rows back.
 */
static void test_ops_compact_race__dropped_group_keeps_shared_puffin(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    of_items it;
    uint64_t rows0, h0, rows1, h1, max = 0;
    char *a, *c;
    size_t i;

    of_open(&e, "c-shared-puffin");
    of_make_table(&e, 3, 1, 1, 4, ROWS);
    o.reset_row_lineage = 1;
    o.rewrite_all = 1;
    of_live(&it, &e);
    for (i = 0; i < it.n; i++)
        if ((uint64_t)it.v[i].size > max)
            max = (uint64_t)it.v[i].size;
    of_items_free(&it);
    o.max_group_bytes = 2 * max;   /* two groups of two files */
    e.t.dry_run = 1;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    e.t.dry_run = 0;
    ZBT_EQ_U64(r.plan.n_groups, 2);
    ZBT_EQ_U64(r.plan.groups[0].n_tasks, 2);
    ZBT_EQ_U64(r.plan.groups[1].n_tasks, 2);
    a = zb_strdup(r.plan.groups[0].tasks[0].data.file->file_path);
    c = zb_strdup(r.plan.groups[1].tasks[0].data.file->file_path);
    dropped_file = zb_strdup(r.plan.groups[1].tasks[1].data.file->file_path);
    zb_compact_result_free(&r);
    {
        zb_table *t = NULL;
        ice_value v = ice_value_int(0);
        zb_write_partition wp = { -1, 1, NULL, NULL };
        const char *paths[4];
        int64_t pos[4] = { 1, 2, 1, 2 };
        int lo = strcmp(a, c) < 0;

        wp.values = &v;
        paths[0] = paths[1] = lo ? a : c;
        paths[2] = paths[3] = lo ? c : a;
        ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, e.dir, &t), &e.ctx);
        ZBT_OK_CTX(zb_ingest_delete_positions(&t, e.cat, e.io, &e.ctx, paths,
                                              pos, 4, &wp), &e.ctx);
        zb_table_free(t);
    }
    of_rows(&e, &rows0, &h0);
    ZBT_EQ_U64(rows0, 4 * ROWS - 4);
    hk.before_commit = dv_for_dropped;
    hk.payload = &e;
    hk.lose_maps = 1;              /* else the vector is carried */
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.groups_dropped, 1);
    zb_compact_result_free(&r);
    of_rows(&e, &rows1, &h1);
    ZBT_EQ_U64(rows1, rows0 - 1);  /* only the hook's row went */
    of_check_files(&e);
    zb_free(a);
    zb_free(c);
    zb_free(dropped_file);
    of_close(&e);
}

/* ---- equality deletes while rows move to another spec ------------------- */

static void eq_field(struct ArrowSchema *s, const char *fmt,
                     const char *name, const char *id)
{
    char *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", id, NULL };

    ZBT_CHECK(zb_arrow_metadata(&md, &md_len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s, fmt, name, md, md_len, 0, 0) == 0);
    zb_free(md);
}

/* An equality delete of (id, part=0), written in spec spec_id. */
static int eq_delete_in_spec(of_env *e, int32_t spec_id, int64_t id)
{
    zb_table *t = NULL;
    ice_value v = ice_value_int(0);
    zb_write_partition wp = { spec_id, 1, NULL, NULL };
    struct ArrowSchema s;
    struct ArrowArray b;
    int32_t eq[2] = { 1, 2 };
    int64_t *idv;
    int32_t *pv;
    int rc;

    wp.values = &v;
    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    if ((rc = zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t)) < 0)
        return rc;
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 2) == 0);
    eq_field(s.children[0], "l", "id", "1");
    eq_field(s.children[1], "i", "part", "2");
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 2) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[0], 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[1], 2, 0) == 0);
    idv = zb_malloc(sizeof *idv);
    pv = zb_malloc(sizeof *pv);
    ZBT_CHECK(idv != NULL && pv != NULL);
    idv[0] = id;
    pv[0] = 0;
    b.children[0]->buffers[1] = idv;
    b.children[1]->buffers[1] = pv;
    b.length = b.children[0]->length = b.children[1]->length = 1;
    rc = zb_ingest_delete_equal(&t, e->cat, e->io, &e->ctx, eq, 2, &s, &b,
                                &wp);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
    return rc;
}

static int32_t race_spec;

static void eq_in_spec_hook(void *payload)
{
    of_env *e = payload;

    ZBT_OK_CTX(eq_delete_in_spec(e, race_spec, 7), &e->ctx);
}

/* identity(part) evolved to truncate[10](part): spec 1 is the default. */
static void evolve_to_truncate(of_env *e)
{
    ct_set_spec(e, "[{\"source-id\":2,\"field-id\":1001,\"name\":"
                   "\"part_t\",\"transform\":\"truncate[10]\"}]");
}

/*
 * Files of spec 0 rewritten into spec 1 keep the plan's sequence number;
 * an equality delete committed meanwhile, in either spec, must leave the
 * table as that delete alone would: in spec 0 it removes id 7 (rewritten
 * files of spec 1 would escape it), in spec 1 it removes nothing (the
 * rewritten files would fall under it).
 */
static void test_ops_compact_race__eq_while_changing_spec(void)
{
    int32_t spec;

    for (spec = 0; spec <= 1; spec++) {
        of_env e;
        zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
        zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
        zb_compact_result r;
        uint64_t want, h, got, h2;

        /* the delete alone, on a table made the same way */
        of_open(&e, spec ? "c-spec1-alone" : "c-spec0-alone");
        of_make_table(&e, 2, 1, 1, 4, ROWS);
        evolve_to_truncate(&e);
        ZBT_OK_CTX(eq_delete_in_spec(&e, spec, 7), &e.ctx);
        of_rows(&e, &want, &h);
        of_close(&e);

        of_open(&e, spec ? "c-spec1-race" : "c-spec0-race");
        of_make_table(&e, 2, 1, 1, 4, ROWS);
        evolve_to_truncate(&e);
        race_spec = spec;
        hk.before_commit = eq_in_spec_hook;
        hk.payload = &e;
        ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
        ZBT_CHECK(r.plan.n_groups >= 1);
        ZBT_EQ_INT(r.plan.groups[0].out_spec_id, 1);
        ZBT_EQ_U64(r.groups_committed, 0);
        zb_compact_result_free(&r);
        of_rows(&e, &got, &h2);
        ZBT_EQ_U64(got, want);
        ZBT_EQ_U64(h2, h);
        of_check_files(&e);
        of_close(&e);
    }
}

/* ---- position deletes carried while rows move to another spec -------- */

/* identity(part) evolved to bucket[2](id): one group's rows go to two
   partitions of spec 1. */
static void evolve_to_bucket(of_env *e)
{
    ct_set_spec(e, "[{\"source-id\":1,\"field-id\":1001,\"name\":"
                   "\"id_b\",\"transform\":\"bucket[2]\"}]");
}

typedef struct spec_inject {
    of_env *e;
    char *path;                    /* a data file of spec 0 */
    int part;                      /* its partition value */
} spec_inject;

/* Positions 0..9 of the file deleted (in its own spec, 0) meanwhile. */
static void delete_in_spec0(void *payload)
{
    spec_inject *in = payload;
    zb_table *t = of_load(in->e);
    ice_value v = ice_value_int(in->part);
    zb_write_partition wp = { 0, 1, NULL, NULL };
    const char *paths[10];
    int64_t pos[10];
    size_t i;

    wp.values = &v;
    for (i = 0; i < 10; i++) {
        paths[i] = in->path;
        pos[i] = (int64_t)i;
    }
    ZBT_OK_CTX(zb_ingest_delete_positions(&t, in->e->cat, in->e->io,
                                          &in->e->ctx, paths, pos, 10, &wp),
               &in->e->ctx);
    zb_table_free(t);
}

/* With ZB_CARRY_SPEC_KEEP set, the table is copied to
   $ZB_CARRY_SPEC_KEEP/vFV-tTHREADS for the independent reader
   (tests/interop/compact_carry_spec_check.mjs). */
static void keep_table(of_env *e, int fv, int threads)
{
    const char *keep = getenv("ZB_CARRY_SPEC_KEEP");
    char cmd[3000];

    if (keep == NULL || keep[0] == '\0')
        return;
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && rm -rf '%s/v%d-t%d' && "
             "cp -R '%s' '%s/v%d-t%d'", keep, keep, fv, threads, e->dir, keep,
             fv, threads);
    ZBT_EQ_INT(system(cmd), 0);
}

/*
 * Issue 21: binpack rewrites files of spec 0 into spec 1 (bucket[2] of
 * id: two partitions) while 10 rows of one input are deleted. The group
 * commits with the delete carried: v2 writes one position delete file
 * for each output partition the rows landed in (both, here), v3 one DV
 * per new data file holding them; the 10 rows stay deleted and no other.
 * With threads 2 the inputs are decoded ahead (whole, in order) and the
 * rows' sources counted in sequence.
 */
static void carried_into_new_spec(int fv, int threads)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    spec_inject in;
    zb_table *t;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    const ice_snapshot *cur;
    int64_t id0 = -1, pos0 = -1, *ids;
    size_t n, i, added = 0, parts_hit = 0;
    int32_t seen[2] = { -1, -1 };
    uint64_t rows0, h0, carried = 0;

    of_open(&e, fv >= 3
                    ? (threads > 1 ? "c-spec-carry-dv-t" : "c-spec-carry-dv")
                    : (threads > 1 ? "c-spec-carry-t" : "c-spec-carry"));
    o.threads = threads;           /* 2: inputs decoded ahead, in order */
    of_make_table(&e, fv, 1, 1, 4, ROWS);
    evolve_to_bucket(&e);
    of_rows(&e, &rows0, &h0);
    t = of_load(&e);
    in.e = &e;
    in.path = NULL;
    ZBT_EQ_INT(pick_row(&e.ctx, e.io, t, 0, &id0, &in.path, &pos0, &in.part),
               1);
    zb_table_free(t);
    ZBT_EQ_INT(pos0, 0);
    hk.before_commit = delete_in_spec0;
    hk.payload = &in;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.plan.n_groups, 1);
    ZBT_EQ_INT(r.plan.groups[0].out_spec_id, 1);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.groups_dropped, 0);
    carried = r.plan.groups[0].carried_rows;
    ZBT_EQ_U64(carried, 10);
    zb_compact_result_free(&r);
    /* what the compaction's snapshot added besides its data files */
    t = of_load(&e);
    cur = ice_metadata_current_snapshot(t->meta);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e.io, &e.ctx, t->meta, cur,
                                      &t->paths), &e.ctx);
    while (ice_snapshot_iter_next(it, &e.ctx, &en, &mf) > 0) {
        const ice_data_file *d = &en->data_file;

        if (d->content != ICE_CONTENT_POSITION_DELETES ||
            en->snapshot_id != cur->snapshot_id)
            continue;
        ZBT_EQ_INT(mf->partition_spec_id, 1);
        ZBT_EQ_U64(d->n_partition, 1);
        if (fv >= 3)
            ZBT_CHECK(ice_data_file_is_dv(d) &&
                      d->referenced_data_file != NULL);
        added++;
        for (i = 0; i < 2; i++)
            if (seen[i] == d->partition[0].u.i)
                break;
        if (i == 2) {
            ZBT_CHECK(parts_hit < 2);
            seen[parts_hit++] = d->partition[0].u.i;
        }
    }
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    /* the ten ids hash to both buckets: both partitions carry deletes,
       one file each in v2 */
    ZBT_EQ_U64(parts_hit, 2);
    if (fv < 3)
        ZBT_EQ_U64(added, 2);
    else
        ZBT_CHECK(added >= 2);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 10);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] < id0 || ids[i] > id0 + 9);
    zb_free(ids);
    of_check_files(&e);
    keep_table(&e, fv, threads);
    zb_free(in.path);
    of_close(&e);
}

static void test_ops_compact_race__carried_into_new_spec_v2(void)
{
    carried_into_new_spec(2, 1);
    carried_into_new_spec(2, 2);
}

static void test_ops_compact_race__carried_into_new_spec_v3(void)
{
    carried_into_new_spec(3, 1);
    carried_into_new_spec(3, 2);
}

/* ---- a table upgraded from v1 ------------------------------------------ */

static void upgrade_to_v2(of_env *e)
{
    zb_table *t = of_load(e), *t2 = NULL;
    json_t *reqs = json_array();
    json_t *updates = json_loads("[{\"action\":\"upgrade-format-version\","
                                 "\"format-version\":2}]", 0, NULL);

    ZBT_CHECK(reqs != NULL && updates != NULL);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)updates, &t2),
               &e->ctx);
    zb_table_free(t);
    zb_table_free(t2);
    json_decref(reqs);
    json_decref(updates);
}

/*
 * v1 written, upgraded to v2: its manifest lists and manifests have no
 * sequence numbers (read as 0, as the spec says). The head's sequence
 * number 0 cannot be the outputs' (every later one is above it), so an
 * equality delete committed during the compaction drops the group, and
 * the table stays readable through later commits.
 */
static void test_ops_compact_race__upgraded_from_v1(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_test_hooks hk = ZB_COMPACT_TEST_HOOKS_INIT;
    zb_compact_result r;
    uint64_t want, h, got, h2;

    of_open(&e, "c-v1-alone");
    of_make_table(&e, 1, 1, 1, 4, ROWS);
    upgrade_to_v2(&e);
    ZBT_OK_CTX(eq_delete_in_spec(&e, 0, 7), &e.ctx);
    of_rows(&e, &want, &h);
    ZBT_EQ_U64(want, 4 * ROWS - 1);
    of_close(&e);

    of_open(&e, "c-v1-race");
    of_make_table(&e, 1, 1, 1, 4, ROWS);
    upgrade_to_v2(&e);
    race_spec = 0;
    hk.before_commit = eq_in_spec_hook;
    hk.payload = &e;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 0);
    zb_compact_result_free(&r);
    of_rows(&e, &got, &h2);
    ZBT_EQ_U64(got, want);
    ZBT_EQ_U64(h2, h);
    /* and without a race it compacts, keeping the rows */
    hk.before_commit = NULL;
    ZBT_OK_CTX(ct_compact_hooked(&e, &o, &hk, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    zb_compact_result_free(&r);
    of_rows(&e, &got, &h2);
    ZBT_EQ_U64(got, want);
    ZBT_EQ_U64(h2, h);
    of_check_files(&e);
    of_close(&e);
}

/* ---- a commit on another branch ----------------------------------------- */

static int remove_on_branch(of_env *e, zb_table *base, const char *branch,
                            const char *path)
{
    ice_commit_op_opts oo = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_result cr = ICE_COMMIT_RESULT_INIT;
    ice_commit_op *op = NULL;
    zb_table *done = NULL;
    int rc;

    oo.kind = ICE_OP_DELETE;
    oo.io = e->io;
    oo.root = base->root;
    oo.paths = &base->paths;
    oo.branch = branch;
    ZBT_OK_CTX(ice_commit_op_new(&op, &e->ctx, &oo), &e->ctx);
    ZBT_OK_CTX(ice_commit_op_remove_file(op, &e->ctx, path), &e->ctx);
    rc = ice_commit_op_build(op, &e->ctx, base->meta, &cr);
    if (rc == ZB_OK)
        rc = zb_catalog_commit(e->cat, &e->ctx, base, cr.requirements,
                               cr.updates, &done);
    ice_commit_result_free(&cr);
    ice_commit_op_free(op);
    zb_table_free(done);
    return rc;
}

/* A commit on an audit branch moves the last sequence number and the
 * next row id on: a commit to main built before it is a conflict to
 * retry (on the table as it is now), not a failure. */
static void test_ops_compact_race__other_branch_is_retryable(void)
{
    of_env e;
    of_items it;
    zb_table *base, *other;

    of_open(&e, "c-branch");
    of_make_table(&e, 3, 1, 1, 2, 10);
    of_live(&it, &e);
    ZBT_EQ_U64(it.n, 2);
    base = of_load(&e);
    other = of_load(&e);
    ZBT_OK_CTX(remove_on_branch(&e, other, "audit", it.v[0].path), &e.ctx);
    ZBT_EQ_INT(remove_on_branch(&e, base, "main", it.v[1].path),
               ZB_ECONFLICT);
    ZBT_CHECK(ice_commit_conflict_retryable(&e.ctx));
    zb_err_clear(&e.ctx.err);
    of_items_free(&it);
    zb_table_free(base);
    zb_table_free(other);
    of_close(&e);
}

/* ---- a deletion vector filed under another partition -------------------- */

/* A DV naming a data file of partition 0 but filed under partition 1 is
 * corrupt metadata: planning refuses it (Java's scan does too) rather
 * than skip it, which would let the rewrite bring its row back. */
static void test_ops_compact_race__dv_in_wrong_partition_is_corrupt(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    int64_t pos = 1;
    uint64_t snaps;
    char *path;

    of_open(&e, "c-dv-wrong-part");
    of_make_table(&e, 3, 1, 1, 2, ROWS);
    path = ct_delete_pos(&e, 0, &pos, 1, 1);
    snaps = of_snapshot_count(&e);
    o.rewrite_all = 1;
    ZBT_RC(ct_compact(&e, &o, &r), ZB_ECORRUPT);
    ZBT_CONTAINS(e.ctx.err.msg, "corrupt");
    ZBT_CONTAINS(e.ctx.err.msg, path);
    zb_err_clear(&e.ctx.err);
    zb_compact_result_free(&r);
    ZBT_EQ_U64(of_snapshot_count(&e), snaps);
    zb_free(path);
    of_close(&e);
}

const zbt_case test_ops_compact_race[] = {
    ZBT_CASE(test_ops_compact_race__eq_without_starting_seq),
    ZBT_CASE(test_ops_compact_race__dropped_group_keeps_shared_puffin),
    ZBT_CASE(test_ops_compact_race__eq_while_changing_spec),
    ZBT_CASE(test_ops_compact_race__carried_into_new_spec_v2),
    ZBT_CASE(test_ops_compact_race__carried_into_new_spec_v3),
    ZBT_CASE(test_ops_compact_race__upgraded_from_v1),
    ZBT_CASE(test_ops_compact_race__other_branch_is_retryable),
    ZBT_CASE(test_ops_compact_race__dv_in_wrong_partition_is_corrupt),
    ZBT_CASE(test_ops_compact_race__sigkill),
    ZBT_CASE(test_ops_compact_race__injected),
    ZBT_CASE(test_ops_compact_race__carried_v2),
    ZBT_CASE(test_ops_compact_race__carried_dv_v3),
    ZBT_CASE(test_ops_compact_race__writer),
    ZBT_END
};

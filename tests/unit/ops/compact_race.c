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

#include "compact_test.h"
#include "format/parquet/parquet.h"
#include "ops/table_write.h"
#include "plan/scan_plan.h"
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

static int child(tt_env *c, FILE *log)
{
    int k, rc = 0;

    for (k = 0; k < CHILD_STEPS && rc >= 0; k++) {
        int64_t first = 100000 + (int64_t)k * 10;

        if ((rc = tt_append_rc(c, k % PARTS, first, 10)) < 0)
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
                rc = zb_table_delete_positions(&t, c->cat, c->io, &c->ctx,
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
    tt_env e;
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

    tt_open(&e, "c-race");
    tt_make_table(&e, 2, 1, PARTS, APPENDS, ROWS);
    snprintf(logpath, sizeof logpath, "%s/child.log", zbt_tmpdir());
    fflush(stdout);
    if ((pid = fork()) == 0) {
        tt_env c = e;
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
    tt_check_files(&e);
    zb_free(ids);
    zb_free(exp);
    zb_free(deleted);
    tt_close(&e);
}

/* Between the writes and the commit, another writer deletes a row of a
 * file of partition 1's group by position, and one row of partition 0
 * by equality: group 1 is dropped (its files deleted), group 0 commits
 * with the starting sequence number so the equality delete still
 * applies; both deleted rows stay deleted. */
typedef struct inject {
    tt_env *e;
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
    tt_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    inject in;
    tt_items live;
    int64_t *ids;
    size_t n, i;
    uint64_t rows0, h0;

    tt_open(&e, "c-inject");
    tt_make_table(&e, 2, 1, PARTS, 8, ROWS);
    tt_rows(&e, &rows0, &h0);
    tt_live(&live, &e);
    in.e = &e;
    in.path = NULL;
    for (i = 0; i < live.n && in.path == NULL; i++)
        if (live.v[i].content == 0 && strstr(live.v[i].path, "part=1"))
            in.path = zb_strdup(live.v[i].path);
    tt_items_free(&live);
    ZBT_CHECK(in.path != NULL);
    o.test_before_commit = before_commit;
    o.test_payload = &in;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 1);
    ZBT_EQ_U64(r.groups_dropped, 1);
    ZBT_EQ_INT(r.plan.groups[r.plan.groups[0].state == ZB_GROUP_DROPPED
                                  ? 0 : 1].partition[1], '1');
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 2);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] != 2 * ROWS + 7);
    zb_free(ids);
    tt_check_files(&e);
    /* A second run compacts partition 1 with its new delete applied. */
    o.test_before_commit = NULL;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 2);
    zb_free(ids);
    zb_free(in.path);
    tt_close(&e);
}

/* SIGKILL at random points of a compaction: the table stays readable
 * with all its rows every time (a commit is all or nothing; files a
 * killed run wrote are orphans, never referenced). */
static void test_ops_compact_race__sigkill(void)
{
    tt_env e;
    uint64_t rows0, h0, rows, h;
    int k, killed = 0, finished = 0;

    tt_open(&e, "c-kill");
    tt_make_table(&e, 2, 1, PARTS, 16, 500);
    {
        int64_t pos[] = { 1, 2 };
        char *p = ct_delete_pos(&e, 0, pos, 2, 0);

        zb_free(p);
    }
    tt_rows(&e, &rows0, &h0);
    srand(12345);
    for (k = 0; k < 20; k++) {
        int st = 0;
        pid_t pid;

        fflush(stdout);
        if ((pid = fork()) == 0) {
            tt_env c = e;
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
        tt_rows(&e, &rows, &h);
        ZBT_EQ_U64(rows, rows0);
        ZBT_EQ_U64(h, h0);
        tt_check_files(&e);
    }
    printf("  20 runs: %d killed, %d finished; rows intact each time\n",
           killed, finished);
    ZBT_CHECK(killed > 0);
    tt_close(&e);
}

static void eq_only(void *payload)
{
    tt_env *e = payload;
    int64_t id = 2 * ROWS + 9;      /* append 2: partition 0 */

    ZBT_OK_CTX(ct_delete_eq2_rc(e, &id, 1, 0), &e->ctx);
}

/* Without the starting sequence number an equality delete committed
 * after planning would not apply to the new files: that group is
 * dropped, and the row stays deleted. */
static void test_ops_compact_race__eq_without_starting_seq(void)
{
    tt_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    int64_t *ids;
    size_t n, i;
    uint64_t rows0, h0;

    tt_open(&e, "c-noseq");
    tt_make_table(&e, 2, 1, PARTS, 8, ROWS);
    tt_rows(&e, &rows0, &h0);
    o.use_starting_seq = 0;
    o.test_before_commit = eq_only;
    o.test_payload = &e;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_dropped, 1);
    ZBT_EQ_U64(r.groups_committed, 1);
    zb_compact_result_free(&r);
    ids = ct_ids(&e, &n);
    ZBT_EQ_U64(n, rows0 - 1);
    for (i = 0; i < n; i++)
        ZBT_CHECK(ids[i] != 2 * ROWS + 9);
    zb_free(ids);
    tt_check_files(&e);
    tt_close(&e);
}

const zbt_case test_ops_compact_race[] = {
    ZBT_CASE(test_ops_compact_race__eq_without_starting_seq),
    ZBT_CASE(test_ops_compact_race__sigkill),
    ZBT_CASE(test_ops_compact_race__injected),
    ZBT_CASE(test_ops_compact_race__writer),
    ZBT_END
};

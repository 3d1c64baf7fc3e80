/*
 * tests/unit/ops/progress_test.c - compaction reports its progress
 * (ops/ops.h): on a partitioned table of 4 partitions x 4 small files
 * (4 groups), with one thread and with two, each series (groups, files,
 * bytes) starts at 0 of its total, never falls, never passes its total,
 * keeps its total, and ends at done == total; the totals are the plan's
 * (groups, input files, input bytes). No callback: the run is the same.
 */
#include <stdio.h>
#include <string.h>

#include "ops/compact/compact.h"
#include "ops_fixture.h"

typedef struct prog {
    char stage[8][64];
    uint64_t done[8], total[8];
    int calls[8], n, bad, first_nonzero;
} prog;

static void on_progress(const char *stage, uint64_t done, uint64_t total,
                        void *payload)
{
    prog *p = payload;
    int i;

    for (i = 0; i < p->n && strcmp(p->stage[i], stage) != 0; i++)
        ;
    if (i == p->n) {
        if (p->n == 8) {
            p->bad++;
            return;
        }
        snprintf(p->stage[p->n++], sizeof p->stage[0], "%s", stage);
        p->total[i] = total;
        p->done[i] = 0;
        if (done != 0)
            p->first_nonzero++;
    }
    if (done < p->done[i] || done > total || total != p->total[i])
        p->bad++;
    p->done[i] = done;
    p->calls[i]++;
}

static int find(const prog *p, const char *stage)
{
    int i;

    for (i = 0; i < p->n; i++)
        if (strcmp(p->stage[i], stage) == 0)
            return i;
    return -1;
}

static void run(int threads)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    prog pg;
    uint64_t files = 0, bytes = 0, rows0, rows1, h0, h1;
    size_t i;
    int k;

    of_open(&e, "progress");
    of_make_table(&e, 2, 1, 4, 16, 50);
    of_rows(&e, &rows0, &h0);
    memset(&pg, 0, sizeof pg);
    e.ctx.progress = on_progress;
    e.ctx.progress_payload = &pg;
    o.max_concurrent = threads;
    ZBT_OK_CTX(zb_compact(&e.t, &e.ctx, &o, &r), &e.ctx);
    e.ctx.progress = NULL;
    ZBT_EQ_U64(r.plan.n_groups, 4);
    ZBT_EQ_U64(r.groups_committed, 4);
    for (i = 0; i < r.plan.n_groups; i++) {
        files += r.plan.groups[i].n_tasks;
        bytes += r.plan.groups[i].bytes;
    }
    ZBT_EQ_U64(files, 16);
    ZBT_EQ_INT(pg.bad, 0);
    ZBT_EQ_INT(pg.first_nonzero, 0);
    ZBT_EQ_INT(pg.n, 3);
    k = find(&pg, ZB_PROGRESS_COMPACT_GROUPS);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], 4);
    ZBT_EQ_U64(pg.done[k], 4);
    ZBT_EQ_INT(pg.calls[k], 5);               /* the start, each group */
    k = find(&pg, ZB_PROGRESS_COMPACT_FILES);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], files);
    ZBT_EQ_U64(pg.done[k], files);
    k = find(&pg, ZB_PROGRESS_COMPACT_BYTES);
    ZBT_CHECK(k >= 0);
    ZBT_EQ_U64(pg.total[k], bytes);
    ZBT_EQ_U64(pg.done[k], bytes);
    ZBT_EQ_U64(r.bytes_removed, bytes);
    of_rows(&e, &rows1, &h1);
    ZBT_EQ_U64(rows1, rows0);
    ZBT_EQ_U64(h1, h0);
    zb_compact_result_free(&r);
    of_close(&e);
}

static void test_ops_progress__compact_one_thread(void)
{
    run(1);
}

static void test_ops_progress__compact_two_threads(void)
{
    run(2);
}

/* Without a callback nothing is called and the run is the same. */
static void test_ops_progress__compact_no_callback(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;

    of_open(&e, "progress");
    of_make_table(&e, 2, 1, 2, 4, 20);
    o.max_concurrent = 2;
    ZBT_OK_CTX(zb_compact(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.groups_committed, 2);
    zb_compact_result_free(&r);
    of_close(&e);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_ops_progress__compact_one_thread),
    ZBT_CASE(test_ops_progress__compact_two_threads),
    ZBT_CASE(test_ops_progress__compact_no_callback),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

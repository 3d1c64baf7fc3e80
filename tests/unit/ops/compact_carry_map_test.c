/*
 * test_ops_compact_carry_map: the position map of a rewrite
 * (src/ops/compact/compact_carry_map.c): binpack runs from batches with
 * and without deletes, several inputs and outputs, the cap, and lookups
 * checked against a brute-force map of every row.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/compact/compact_carry_map.h"
#include "util/alloc.h"
#include "util/err.h"
#include "zbtest.h"

/* Runs merge across batches; a deleted row splits them. */
static void test_carry_map__runs(void)
{
    zb_carry_map m;
    const uint32_t sel[] = { 0, 1, 2, 5, 6, 9 };
    const zb_carry_run *r;

    zb_carry_map_init(&m, 0);
    ZBT_EQ_INT(zb_carry_map_add_sel(&m, 0, 0, NULL, 10), ZB_OK);
    ZBT_EQ_INT(zb_carry_map_add_sel(&m, 0, 10, NULL, 10), ZB_OK);
    ZBT_EQ_U64(m.runs.len, 1);
    ZBT_EQ_INT(zb_carry_map_add_sel(&m, 1, 0, sel, 6), ZB_OK);
    ZBT_EQ_U64(m.runs.len, 4);
    ZBT_EQ_U64(m.rows, 26);
    r = zb_vec_at(&m.runs, 2);
    ZBT_EQ_U64(r->task, 1);
    ZBT_EQ_U64(r->in_pos, 5);
    ZBT_EQ_U64(r->len, 2);
    zb_carry_map_free(&m);
}

/* Past the cap the map is lost, with its reason, and stays lost. */
static void test_carry_map__cap(void)
{
    zb_carry_map m;
    const uint32_t sel[] = { 0, 2, 4, 6 };

    zb_carry_map_init(&m, 3);
    ZBT_EQ_INT(zb_carry_map_add_sel(&m, 0, 0, sel, 4), ZB_OK);
    ZBT_CHECK(m.lost != NULL);
    ZBT_CONTAINS(m.lost, "cap");
    ZBT_EQ_U64(m.runs.len, 0);
    ZBT_EQ_INT(zb_carry_map_add(&m, 1, 0, 5), ZB_OK);
    ZBT_EQ_U64(m.runs.len, 0);
    zb_carry_map_free(&m);
}

/*
 * Random inputs with random deletes, in a random input order (copies
 * first, as the rewrite does), cut into random outputs: every input row
 * is found where the brute-force map put it, deleted rows nowhere.
 */
static void test_carry_map__random_vs_brute_force(void)
{
    enum { TASKS = 7, MAXROWS = 3000 };
    zb_ctx ctx;
    int round;

    zb_ctx_init(&ctx);
    srand(21);
    for (round = 0; round < 20; round++) {
        zb_carry_map m;
        zb_carry_index *ix = NULL;
        uint64_t rows[TASKS], total = 0, at = 0;
        int64_t *dst[TASKS], outs[64];
        uint32_t order[TASKS], *sel = zb_malloc(MAXROWS * sizeof *sel);
        size_t n_out = 0, t, i, k;

        ZBT_CHECK(sel != NULL);
        zb_carry_map_init(&m, 0);
        for (t = 0; t < TASKS; t++) {
            order[t] = (uint32_t)t;
            rows[t] = (uint64_t)(rand() % MAXROWS);
            dst[t] = zb_malloc((rows[t] + 1) * sizeof *dst[t]);
            ZBT_CHECK(dst[t] != NULL);
        }
        for (t = TASKS - 1; t > 0; t--) {
            size_t j = (size_t)rand() % (t + 1);
            uint32_t x = order[t];
            order[t] = order[j];
            order[j] = x;
        }
        for (k = 0; k < TASKS; k++) {
            uint32_t tk = order[k];
            int dense = rand() % 3 == 0;     /* a copy: every row */
            uint64_t pos0;

            /* Batches of up to 500 rows. */
            for (pos0 = 0; pos0 < rows[tk]; pos0 += 500) {
                uint64_t n = rows[tk] - pos0 < 500 ? rows[tk] - pos0 : 500;
                size_t nsel = 0;

                for (i = 0; i < n; i++) {
                    if (dense || rand() % 4 != 0) {
                        sel[nsel++] = (uint32_t)i;
                        dst[tk][pos0 + i] = (int64_t)at++;
                    } else {
                        dst[tk][pos0 + i] = -1;
                    }
                }
                ZBT_EQ_INT(zb_carry_map_add_sel(&m, tk, pos0,
                                                nsel == n ? NULL : sel,
                                                nsel), ZB_OK);
            }
        }
        ZBT_EQ_U64(m.rows, at);
        /* Outputs of random sizes summing to at. */
        while (total < at && n_out < 63) {
            uint64_t sz = (uint64_t)(rand() % 4000) + 1;
            if (total + sz > at || n_out == 62)
                sz = at - total;
            outs[n_out++] = (int64_t)sz;
            total += sz;
        }
        ZBT_OK_CTX(zb_carry_index_new(&ix, &ctx, m.runs.items, m.runs.len,
                                      outs, n_out), &ctx);
        for (t = 0; t < TASKS; t++)
            for (i = 0; i < rows[t]; i++) {
                size_t file = 0;
                uint64_t op = 0, want, acc = 0;
                int found = zb_carry_index_find(ix, (uint32_t)t, i, &file,
                                                &op);

                ZBT_EQ_INT(found, dst[t][i] >= 0);
                if (!found)
                    continue;
                want = (uint64_t)dst[t][i];
                for (k = 0; k < file; k++)
                    acc += (uint64_t)outs[k];
                ZBT_EQ_U64(acc + op, want);
                ZBT_CHECK(op < (uint64_t)outs[file]);
            }
        /* Past the end of an input, and an unknown input: nothing. */
        {
            size_t file;
            uint64_t op;
            ZBT_EQ_INT(zb_carry_index_find(ix, 0, rows[0] + 5, &file, &op),
                       0);
            ZBT_EQ_INT(zb_carry_index_find(ix, TASKS + 3, 0, &file, &op),
                       0);
        }
        zb_carry_index_free(ix);
        zb_carry_map_free(&m);
        for (t = 0; t < TASKS; t++)
            zb_free(dst[t]);
        zb_free(sel);
    }

}

/* Runs that do not cover the outputs' rows exactly are refused. */
static void test_carry_map__mismatch(void)
{
    zb_ctx ctx;
    zb_carry_map m;
    zb_carry_index *ix = NULL;
    int64_t outs[2] = { 5, 6 };

    zb_ctx_init(&ctx);
    zb_carry_map_init(&m, 0);
    ZBT_EQ_INT(zb_carry_map_add(&m, 0, 0, 10), ZB_OK);
    ZBT_RC(zb_carry_index_new(&ix, &ctx, m.runs.items, m.runs.len, outs, 2),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "10 rows");
    ZBT_CHECK(ix == NULL);
    /* The same position twice. */
    zb_err_clear(&ctx.err);
    ZBT_EQ_INT(zb_carry_map_add(&m, 0, 5, 1), ZB_OK);
    outs[1] = 6;
    ZBT_RC(zb_carry_index_new(&ix, &ctx, m.runs.items, m.runs.len, outs, 2),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "twice");
    zb_carry_map_free(&m);

}

static const zbt_case cases[] = {
    ZBT_CASE(test_carry_map__runs),
    ZBT_CASE(test_carry_map__cap),
    ZBT_CASE(test_carry_map__random_vs_brute_force),
    ZBT_CASE(test_carry_map__mismatch),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

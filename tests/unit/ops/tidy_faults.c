/*
 * Failures: allocation failure at every Nth allocation (a stride over
 * the whole run) of rewrite-manifests, remove-dangling-deletes and
 * apply-properties on small tables: a code and a message, never a
 * crash, and the table's live entries as before (the run under ASan
 * also shows nothing leaks on those paths); and truncated or corrupt
 * manifests and manifest lists of a fixture copy (4 data manifests,
 * position deletes): an error naming the file, nothing committed, no
 * file written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/apply_properties.h"
#include "ops/remove_dangling_deletes.h"
#include "ops/rewrite_manifests/rewrite_manifests.h"
#include "ops_fixture.h"
#include "util/alloc.h"

enum { OP_REWRITE, OP_DANGLING, OP_PROPS };

static int run_op(of_env *e, int op)
{
    switch (op) {
    case OP_REWRITE: {
        zb_rewrite_manifests_result r;
        return zb_rewrite_manifests(&e->t, &e->ctx, NULL, &r);
    }
    case OP_DANGLING: {
        zb_dangling_result r;
        return zb_remove_dangling_deletes(&e->t, &e->ctx, NULL, &r);
    }
    default: {
        ice_kv set[] = { { "a", "1" }, { "b", "2" } };
        zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
        zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
        int rc;

        o.set = set;
        o.n_set = 2;
        rc = zb_apply_properties(&e->t, &e->ctx, &o, &r);
        zb_apply_props_result_free(&r);
        return rc;
    }
    }
}

/* Copies src to a fresh folder name and points e at it. */
static void fresh_copy(of_env *e, const char *src, const char *name)
{
    char cmd[3000];

    of_open(e, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s' '%s'", e->dir, src,
             e->dir);
    ZBT_EQ_INT(system(cmd), 0);
}

static void torture(of_env *src, int op, const char *tag)
{
    of_items want;
    uint64_t total, n, stride, runs = 0, failed_runs = 0;
    int rc;

    of_live(&want, src);
    /* a clean run sizes the loop */
    {
        of_env e;
        uint64_t before;

        fresh_copy(&e, src->dir, "tort-size");
        before = zb_alloc__count();
        ZBT_OK_CTX(run_op(&e, op), &e.ctx);
        total = zb_alloc__count() - before;
        of_close(&e);
    }
    stride = total / 150 + 1;
    for (n = 1; n <= total + 1; n += stride) {
        of_env e;
        of_items got;
        uint64_t failed;
        char name[64];

        snprintf(name, sizeof name, "tort-%s-%llu", tag,
                 (unsigned long long)n);
        fresh_copy(&e, src->dir, name);
        zb_alloc__fail_at(n, 1);
        rc = run_op(&e, op);
        failed = zb_alloc__fail_at(0, 0);
        runs++;
        if (failed > 0 && rc < 0) {
            failed_runs++;
            ZBT_CHECK(e.ctx.err.msg[0] != '\0');
        }
        if (failed == 0)
            ZBT_OK_CTX(rc, &e.ctx);
        of_live(&got, &e);
        if (op == OP_DANGLING) {
            /* removed or not: the data files stay */
            ZBT_EQ_U64(of_count(&got, 0), of_count(&want, 0));
        } else {
            of_items_same(&want, &got, NULL, 0);
        }
        of_items_free(&got);
        of_close(&e);
    }
    printf("  %s: %llu allocations, %llu runs, %llu failed cleanly\n", tag,
           (unsigned long long)total, (unsigned long long)runs,
           (unsigned long long)failed_runs);
    ZBT_CHECK(failed_runs > 0);
    of_items_free(&want);
}

static void test_ops_tidy_faults__alloc_rewrite(void)
{
    of_env src;

    of_open(&src, "src-rw");
    of_make_table(&src, 2, 1, 2, 4, 3);
    torture(&src, OP_REWRITE, "rewrite");
    of_close(&src);
}

static void test_ops_tidy_faults__alloc_dangling(void)
{
    of_env src;

    if (of_fixture(&src, "impala-spark-compaction-dangling"))
        torture(&src, OP_DANGLING, "dangling");
    of_close(&src);
}

static void test_ops_tidy_faults__alloc_props(void)
{
    of_env src;

    of_open(&src, "src-props");
    of_make_table(&src, 2, 0, 1, 1, 3);
    torture(&src, OP_PROPS, "props");
    of_close(&src);
}

/* Cuts the file at path to len bytes (or flips a byte at len when flip). */
static void damage(const char *path, long len, int flip)
{
    FILE *f = fopen(path, flip ? "r+b" : "rb");
    char *buf;
    long size;

    ZBT_CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    if (flip) {
        int c;

        fseek(f, len < size ? len : size / 2, SEEK_SET);
        c = fgetc(f);
        fseek(f, len < size ? len : size / 2, SEEK_SET);
        fputc(c ^ 0x5a, f);
        fclose(f);
        return;
    }
    buf = zb_malloc((size_t)size + 1);
    ZBT_CHECK(buf != NULL);
    fseek(f, 0, SEEK_SET);
    ZBT_EQ_U64(fread(buf, 1, (size_t)size, f), (uint64_t)size);
    fclose(f);
    zbt_write_file(path, buf, (size_t)(len < size ? len : size));
    zb_free(buf);
}

/* The first data manifest of the current snapshot, resolved. */
static char *first_manifest(of_env *e, int want_list)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    zb_buf b;
    char *out;

    zb_buf_init(&b, 1 << 16);
    if (want_list) {
        ZBT_OK_CTX(zb_table_resolve(&b, &e->ctx, t, s->manifest_list),
                   &e->ctx);
    } else {
        ZBT_OK_CTX(ice_manifest_list_open(&lr, e->io, &e->ctx,
                                          s->manifest_list,
                                          t->meta->format_version, &t->paths),
                   &e->ctx);
        ZBT_CHECK(ice_manifest_list_next(lr, &e->ctx, &mf) == 1);
        ZBT_OK_CTX(zb_table_resolve(&b, &e->ctx, t, mf->manifest_path),
                   &e->ctx);
        ice_manifest_list_free(lr);
    }
    out = zb_strdup(zb_buf_cstr(&b) + (strncmp(zb_buf_cstr(&b), "file://",
                                               7) == 0 ? 7 : 0));
    zb_buf_free(&b);
    zb_table_free(t);
    return out;
}

static void test_ops_tidy_faults__corrupt(void)
{
    static const struct { int list; long at; int flip; } cases[] = {
        { 0, 0, 0 }, { 0, 10, 0 }, { 0, 200, 0 }, { 0, 30, 1 },
        { 1, 0, 0 }, { 1, 40, 0 }, { 1, 25, 1 } };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int op;

        for (op = OP_REWRITE; op <= OP_DANGLING; op++) {
            of_env e;
            char name[64], *path, *before, *after;
            int rc;

            (void)name;
            if (!of_fixture(&e, "impala-v2-pos-some-files")) {
                of_close(&e);
                return;
            }
            path = first_manifest(&e, cases[i].list);
            damage(path, cases[i].at, cases[i].flip);
            before = of_listing(e.dir);
            if (op == OP_DANGLING) {
                zb_dangling_result r;
                rc = zb_remove_dangling_deletes(&e.t, &e.ctx, NULL, &r);
            } else {
                zb_rewrite_manifests_result r;
                rc = zb_rewrite_manifests(&e.t, &e.ctx, NULL, &r);
            }
            after = of_listing(e.dir);
            /* a flipped byte may land where it changes nothing readable */
            if (!cases[i].flip || rc < 0) {
                if (rc >= 0)
                    printf("  case %zu op %d: no error\n", i, op);
                ZBT_CHECK(rc < 0);
                ZBT_CHECK(strstr(e.ctx.err.msg, strrchr(path, '/') + 1) ||
                          strstr(e.ctx.err.msg, "avro") ||
                          strstr(e.ctx.err.msg, "manifest"));
                ZBT_EQ_STR(after, before);
            }
            zb_free(before);
            zb_free(after);
            zb_free(path);
            of_close(&e);
        }
    }
}

const zbt_case test_ops_tidy_faults[] = {
    ZBT_CASE(test_ops_tidy_faults__alloc_rewrite),
    ZBT_CASE(test_ops_tidy_faults__alloc_dangling),
    ZBT_CASE(test_ops_tidy_faults__alloc_props),
    ZBT_CASE(test_ops_tidy_faults__corrupt),
    ZBT_END
};

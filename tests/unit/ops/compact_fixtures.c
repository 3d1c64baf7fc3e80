/*
 * tests/unit/ops/compact_fixtures.c - every fixture table
 * (../shared/fixtures) copied and compacted with a small target and
 * rewrite_all: the live rows before and after (count and an order-free
 * hash of every value, through the planner and the row stream) must be
 * equal, and every file the new snapshot names must exist. With
 * ZB_COMPACT_OUT set the compacted copies are kept there, for
 * tests/interop/compact_compare.mjs to read with the independent reader.
 * v3 tables keep their row lineage (the new files carry _row_id and
 * _last_updated_sequence_number; compact_lineage.c checks the values).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compact_test.h"
#include "util/alloc.h"

static int is_dir(const char *p)
{
    struct stat st;

    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The table folder of a fixture copy: itself, or its first subfolder
 * holding metadata/ (impala-multi-location). */
static void table_dir(char *out, size_t n, const char *root)
{
    char p[2048];
    struct dirent *d;
    DIR *dir;

    snprintf(p, sizeof p, "%s/metadata", root);
    snprintf(out, n, "%s", root);
    if (is_dir(p))
        return;
    ZBT_CHECK((dir = opendir(root)) != NULL);
    while ((d = readdir(dir)) != NULL) {
        if (d->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/metadata", root, d->d_name);
        if (is_dir(p)) {
            snprintf(out, n, "%s/%s", root, d->d_name);
            break;
        }
    }
    closedir(dir);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void compact_one(const char *out_root, const char *name)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    ice_path_remap remap;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    char root[1024], cmd[3000], remap_to[1100];
    uint64_t rows0, h0, rows1, h1;
    of_env e;
    int rc;

    memset(&e, 0, sizeof e);
    zb_ctx_init(&e.ctx);
    snprintf(root, sizeof root, "%s/%s", out_root, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s/%s' '%s'", root,
             ZB_FIXTURES_DIR, name, root);
    ZBT_EQ_INT(system(cmd), 0);
    table_dir(e.dir, sizeof e.dir, root);
    ZBT_OK_CTX(zb_io_new(&e.io, &e.ctx), &e.ctx);
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "fixtures";
    if (strcmp(name, "impala-multi-location") == 0) {
        snprintf(remap_to, sizeof remap_to, "%s", root);
        remap.from = "/test-warehouse/iceberg_test/hadoop_catalog/ice";
        remap.to = remap_to;
        cfg.remaps = &remap;
        cfg.n_remaps = 1;
    }
    ZBT_OK_CTX(zb_catalog_open(&e.cat, &e.ctx, e.io, &cfg), &e.ctx);
    e.t.catalog = e.cat;
    e.t.io = e.io;
    e.t.ident = e.dir;
    of_rows(&e, &rows0, &h0);
    o.target_file_bytes = 4096;
    o.rewrite_all = 1;
    rc = zb_compact(&e.t, &e.ctx, &o, &r);
    printf("  %-34s %s: %llu group(s), %llu file(s) -> %llu, %llu rows%s%s\n",
           name, zb_rc_name(rc), (unsigned long long)r.groups_committed,
           (unsigned long long)r.files_removed,
           (unsigned long long)r.files_added, (unsigned long long)rows0,
           rc < 0 ? ": " : "", rc < 0 ? e.ctx.err.msg : "");
    ZBT_OK_CTX(rc, &e.ctx);
    of_rows(&e, &rows1, &h1);
    ZBT_EQ_U64(rows1, rows0);
    ZBT_EQ_U64(h1, h0);
    of_check_files(&e);
    zb_compact_result_free(&r);
    of_close(&e);
}

static void test_ops_compact_fixtures__all(void)
{
    const char *keep = getenv("ZB_COMPACT_OUT");
    char out_root[1024];
    char *names[128];
    size_t n = 0, i;
    struct dirent *d;
    DIR *dir;

    if ((dir = opendir(ZB_FIXTURES_DIR)) == NULL) {
        printf("  (skipped: no %s)\n", ZB_FIXTURES_DIR);
        return;
    }
    while ((d = readdir(dir)) != NULL && n < 128) {
        char p[2048];

        snprintf(p, sizeof p, "%s/%s", ZB_FIXTURES_DIR, d->d_name);
        if (d->d_name[0] != '.' && is_dir(p))
            names[n++] = zb_strdup(d->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, cmp_str);
    snprintf(out_root, sizeof out_root, "%s", keep ? keep : zbt_tmpdir());
    for (i = 0; i < n; i++) {
        compact_one(out_root, names[i]);
        zb_free(names[i]);
    }
    ZBT_CHECK(n >= 30);
}

const zbt_case test_ops_compact_fixtures[] = {
    ZBT_CASE(test_ops_compact_fixtures__all),
    ZBT_END
};

/*
 * test_api: the public API for embedding (include/zamboni/catalog.h,
 * table.h, ops.h; src/ops/api/), built with include/ and the test harness
 * alone on its include path. Mostly its error paths, each with its code
 * and a message that names what was wrong:
 *   - catalog URIs: a scheme no catalog speaks, sqlite: without a path or
 *     with a host, a SQLite file that does not exist (and is not
 *     created), options of another version;
 *   - tables: a missing folder, a missing name in a SQLite catalog, a
 *     name without a namespace;
 *   - operations: each of the six on a missing table, each with options
 *     of another version, compaction's sort columns and strategy, the
 *     orphan age guard below 24 hours;
 * and, on a table zb-table-gen writes, what table.h reads and a dry-run
 * compaction's counts, with nothing changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zamboni/catalog.h"
#include "zamboni/ops.h"
#include "zamboni/table.h"
#include "zbtest.h"

static zb_catalog *folders(zb_ctx *ctx)
{
    zb_catalog *cat = NULL;

    zb_ctx_init(ctx);
    ZBT_OK_CTX(zb_catalog_new(&cat, ctx, NULL), ctx);
    ZBT_CHECK(cat != NULL);
    return cat;
}

/* A table folder of 3 appends x 10 rows: 3 data files, 3 snapshots. */
static const char *generated_table(void)
{
    static char table[4096];
    char cmd[8192];
    const char *tmp = zbt_tmpdir();

    snprintf(cmd, sizeof cmd, "'%s' --sqlite '%s/gen.db' --table db.t "
             "--location '%s/wh' --appends 3 --rows 10 >/dev/null",
             ZB_TABLE_GEN, tmp, tmp);
    ZBT_EQ_INT(system(cmd), 0);
    snprintf(table, sizeof table, "%s/wh/db/t", tmp);
    return table;
}

static void test_api_catalog__unknown_scheme(void)
{
    zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
    zb_catalog *cat = (zb_catalog *)&o;    /* must be cleared */
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    o.uri = "ftp://host/catalog";
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_EUSAGE);
    ZBT_CHECK(cat == NULL);
    ZBT_CONTAINS(ctx.err.msg, "ftp://host/catalog");
    ZBT_CONTAINS(ctx.err.msg, "names no catalog");
    ZBT_EQ_INT(ctx.err.code, ZB_EUSAGE);
}

static void test_api_catalog__sqlite_without_path(void)
{
    zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
    zb_catalog *cat = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    o.uri = "sqlite:";
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_EUSAGE);
    ZBT_CHECK(cat == NULL);
    ZBT_CONTAINS(ctx.err.msg, "names no database file");
    zb_ctx_init(&ctx);
    o.uri = "sqlite://host/cat.db";
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_EUSAGE);
    ZBT_CHECK(cat == NULL);
    ZBT_CONTAINS(ctx.err.msg, "sqlite:///PATH");
}

static void test_api_catalog__sqlite_missing_file(void)
{
    zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
    zb_catalog *cat = NULL;
    char uri[4200], path[4096];
    struct stat st;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    snprintf(path, sizeof path, "%s/none.db", zbt_tmpdir());
    snprintf(uri, sizeof uri, "sqlite:%s", path);
    o.uri = uri;
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_ENOTFOUND);
    ZBT_CHECK(cat == NULL);
    ZBT_CONTAINS(ctx.err.msg, "no catalog database at");
    ZBT_CONTAINS(ctx.err.msg, path);
    ZBT_CHECK(stat(path, &st) != 0);       /* not created */
    /* SQLAlchemy's form: sqlite:/// then the path, here absolute */
    zb_ctx_init(&ctx);
    snprintf(uri, sizeof uri, "sqlite:///%s", path);
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, path);
}

static void test_api_catalog__opts_version(void)
{
    zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
    zb_catalog *cat = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    o.version = 99;
    ZBT_RC(zb_catalog_new(&cat, &ctx, &o), ZB_EINVAL);
    ZBT_CHECK(cat == NULL);
    ZBT_CONTAINS(ctx.err.msg, "version 99");
}

static void test_api_table__missing_folder(void)
{
    zb_table *t = NULL;
    char dir[4096];
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    snprintf(dir, sizeof dir, "%s/no-table", zbt_tmpdir());
    ZBT_RC(zb_table_load(&t, cat, &ctx, dir), ZB_ENOTFOUND);
    ZBT_CHECK(t == NULL);
    ZBT_CONTAINS(ctx.err.msg, dir);
    zb_catalog_free(cat);
}

static void test_api_table__missing_in_sqlite(void)
{
    zb_catalog_opts o = ZB_CATALOG_OPTS_INIT;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    char uri[4200], path[4096];
    zb_ctx ctx;

    /* an empty file is an empty SQLite database: the catalog's tables
     * are made in it */
    snprintf(path, sizeof path, "%s/empty.db", zbt_tmpdir());
    zbt_write_file(path, "", 0);
    snprintf(uri, sizeof uri, "sqlite:%s", path);
    zb_ctx_init(&ctx);
    o.uri = uri;
    o.warehouse = "lake";
    ZBT_OK_CTX(zb_catalog_new(&cat, &ctx, &o), &ctx);
    ZBT_RC(zb_table_load(&t, cat, &ctx, "db.missing"), ZB_ENOTFOUND);
    ZBT_CHECK(t == NULL);
    ZBT_CONTAINS(ctx.err.msg, "db.missing");
    ZBT_CONTAINS(ctx.err.msg, "lake");
    zb_ctx_init(&ctx);
    ZBT_RC(zb_table_load(&t, cat, &ctx, "no_namespace"), ZB_EUSAGE);
    ZBT_CHECK(t == NULL);
    ZBT_CONTAINS(ctx.err.msg, "no_namespace");
    zb_catalog_free(cat);
}

/* Every operation on a table that is not there: ZB_ENOTFOUND naming it,
 * and a result that says nothing happened. */
static void test_api_ops__missing_table(void)
{
    zb_ops_compact_result cr;
    zb_ops_apply_properties_result ar;
    zb_ops_remove_dangling_deletes_result dr;
    zb_ops_rewrite_manifests_result mr;
    zb_ops_expire_result er;
    zb_ops_remove_orphans_result orr;
    char dir[4096];
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    snprintf(dir, sizeof dir, "%s/no-table", zbt_tmpdir());
    memset(&cr, 0x55, sizeof cr);
    ZBT_RC(zb_ops_compact(&cr, cat, &ctx, dir, NULL), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_INT(cr.snapshot_id, -1);
    ZBT_EQ_INT(cr.planned_snapshot_id, -1);
    ZBT_EQ_U64(cr.groups, 0);
    ZBT_EQ_U64(cr.files_rewritten, 0);
    ZBT_EQ_U64(cr.commits, 0);

    zb_ctx_init(&ctx);
    memset(&ar, 0x55, sizeof ar);
    ZBT_RC(zb_ops_apply_properties(&ar, cat, &ctx, dir, NULL), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_U64(ar.changes, 0);
    ZBT_EQ_INT(ar.committed, 0);

    zb_ctx_init(&ctx);
    memset(&dr, 0x55, sizeof dr);
    ZBT_RC(zb_ops_remove_dangling_deletes(&dr, cat, &ctx, dir, NULL),
           ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_INT(dr.snapshot_id, -1);
    ZBT_EQ_U64(dr.removed, 0);
    ZBT_EQ_INT(dr.committed, 0);

    zb_ctx_init(&ctx);
    memset(&mr, 0x55, sizeof mr);
    ZBT_RC(zb_ops_rewrite_manifests(&mr, cat, &ctx, dir, NULL), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_INT(mr.snapshot_id, -1);
    ZBT_EQ_INT(mr.committed, 0);
    ZBT_EQ_STR(mr.reason, "");

    zb_ctx_init(&ctx);
    memset(&er, 0x55, sizeof er);
    ZBT_RC(zb_ops_expire(&er, cat, &ctx, dir, NULL), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_U64(er.snapshots_expired, 0);
    ZBT_EQ_U64(er.files_deleted, 0);
    ZBT_EQ_INT(er.committed, 0);

    zb_ctx_init(&ctx);
    memset(&orr, 0x55, sizeof orr);
    ZBT_RC(zb_ops_remove_orphans(&orr, cat, &ctx, dir, NULL), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, dir);
    ZBT_EQ_U64(orr.files_scanned, 0);
    ZBT_EQ_U64(orr.files_deleted, 0);
    zb_catalog_free(cat);
}

/* Options of another version are refused before the table is touched
 * (the table here does not even exist). */
static void test_api_ops__opts_version(void)
{
    zb_ops_compact_opts co = ZB_OPS_COMPACT_OPTS_INIT;
    zb_ops_apply_properties_opts ao = ZB_OPS_APPLY_PROPERTIES_OPTS_INIT;
    zb_ops_remove_dangling_deletes_opts dop =
        ZB_OPS_REMOVE_DANGLING_DELETES_OPTS_INIT;
    zb_ops_rewrite_manifests_opts mo = ZB_OPS_REWRITE_MANIFESTS_OPTS_INIT;
    zb_ops_expire_opts eo = ZB_OPS_EXPIRE_OPTS_INIT;
    zb_ops_remove_orphans_opts oo = ZB_OPS_REMOVE_ORPHANS_OPTS_INIT;
    zb_ops_compact_result cr;
    zb_ops_apply_properties_result ar;
    zb_ops_remove_dangling_deletes_result dr;
    zb_ops_rewrite_manifests_result mr;
    zb_ops_expire_result er;
    zb_ops_remove_orphans_result orr;
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    co.version = ao.version = dop.version = mo.version = eo.version =
        oo.version = 0;
    ZBT_RC(zb_ops_compact(&cr, cat, &ctx, "/none", &co), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "zb_ops_compact_opts version 0");
    ZBT_RC(zb_ops_apply_properties(&ar, cat, &ctx, "/none", &ao), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "zb_ops_apply_properties_opts version 0");
    ZBT_RC(zb_ops_remove_dangling_deletes(&dr, cat, &ctx, "/none", &dop),
           ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg,
                 "zb_ops_remove_dangling_deletes_opts version 0");
    ZBT_RC(zb_ops_rewrite_manifests(&mr, cat, &ctx, "/none", &mo), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "zb_ops_rewrite_manifests_opts version 0");
    ZBT_RC(zb_ops_expire(&er, cat, &ctx, "/none", &eo), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "zb_ops_expire_opts version 0");
    ZBT_RC(zb_ops_remove_orphans(&orr, cat, &ctx, "/none", &oo), ZB_EINVAL);
    ZBT_CONTAINS(ctx.err.msg, "zb_ops_remove_orphans_opts version 0");
    zb_catalog_free(cat);
}

static void test_api_table__reads_generated(void)
{
    const char *dir = generated_table();
    zb_table *t = NULL;
    const char *ml;
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    ZBT_OK_CTX(zb_table_load(&t, cat, &ctx, dir), &ctx);
    ZBT_EQ_STR(zb_table_name(t), dir);
    ZBT_EQ_INT(zb_table_format_version(t), 2);
    ZBT_CHECK(zb_table_current_snapshot_id(t) != -1);
    ZBT_EQ_STR(zb_table_location(t), dir);  /* written where it lies */
    ml = zb_table_metadata_location(t);
    ZBT_CONTAINS(ml, "/metadata/");
    ZBT_CHECK(strlen(ml) > 14 &&
              strcmp(ml + strlen(ml) - 14, ".metadata.json") == 0);
    zb_table_free(t);
    zb_catalog_free(cat);
}

static void test_api_ops__compact_options(void)
{
    const char *dir = generated_table();
    zb_ops_compact_opts o = ZB_OPS_COMPACT_OPTS_INIT;
    zb_ops_sort_column col = { "nope", 0, 0 };
    zb_ops_compact_result r;
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    o.strategy = ZB_OPS_COMPACT_SORT;
    o.sort_columns = &col;
    o.n_sort_columns = 1;
    ZBT_RC(zb_ops_compact(&r, cat, &ctx, dir, &o), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "no top-level column 'nope'");
    ZBT_EQ_U64(r.commits, 0);

    zb_ctx_init(&ctx);
    o.strategy = ZB_OPS_COMPACT_BINPACK;
    col.name = "id";
    ZBT_RC(zb_ops_compact(&r, cat, &ctx, dir, &o), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "binpack");

    zb_ctx_init(&ctx);
    o.strategy = (zb_ops_compact_strategy)7;
    o.n_sort_columns = 0;
    ZBT_RC(zb_ops_compact(&r, cat, &ctx, dir, &o), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "no compaction strategy 7");
    zb_catalog_free(cat);
}

/* A dry run counts what it would do and leaves the table as it was. */
static void test_api_ops__compact_dry_run(void)
{
    const char *dir = generated_table();
    zb_ops_compact_opts o = ZB_OPS_COMPACT_OPTS_INIT;
    zb_ops_sort_column col = { "id", 1, 0 };
    zb_ops_compact_result r;
    zb_table *t = NULL;
    int64_t before;
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    ZBT_OK_CTX(zb_table_load(&t, cat, &ctx, dir), &ctx);
    before = zb_table_current_snapshot_id(t);
    zb_table_free(t);
    o.dry_run = 1;
    o.strategy = ZB_OPS_COMPACT_SORT;
    o.sort_columns = &col;
    o.n_sort_columns = 1;
    ZBT_OK_CTX(zb_ops_compact(&r, cat, &ctx, dir, &o), &ctx);
    ZBT_EQ_INT(r.planned_snapshot_id, before);
    ZBT_EQ_U64(r.groups, 1);
    ZBT_EQ_U64(r.files_rewritten, 3);
    ZBT_EQ_U64(r.files_written, 1);
    ZBT_EQ_U64(r.rows, 30);
    ZBT_EQ_U64(r.commits, 0);
    ZBT_EQ_INT(r.snapshot_id, -1);
    ZBT_OK_CTX(zb_table_load(&t, cat, &ctx, dir), &ctx);
    ZBT_EQ_INT(zb_table_current_snapshot_id(t), before);
    zb_table_free(t);
    zb_catalog_free(cat);
}

static void test_api_ops__orphan_guard(void)
{
    const char *dir = generated_table();
    zb_ops_remove_orphans_opts o = ZB_OPS_REMOVE_ORPHANS_OPTS_INIT;
    zb_ops_remove_orphans_result r;
    zb_ctx ctx;
    zb_catalog *cat = folders(&ctx);

    o.older_than_ms = 3600 * 1000;          /* an hour */
    ZBT_RC(zb_ops_remove_orphans(&r, cat, &ctx, dir, &o), ZB_EREFUSED);
    ZBT_EQ_U64(r.files_deleted, 0);
    /* forced, as a dry run: everything is referenced */
    zb_ctx_init(&ctx);
    o.force = 1;
    o.dry_run = 1;
    ZBT_OK_CTX(zb_ops_remove_orphans(&r, cat, &ctx, dir, &o), &ctx);
    ZBT_CHECK(r.files_scanned > 0);
    ZBT_EQ_U64(r.files_unreferenced, 0);
    ZBT_EQ_U64(r.files_deleted, 0);
    ZBT_EQ_INT(r.older_than_ms, 3600 * 1000);
    zb_catalog_free(cat);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_api_catalog__unknown_scheme),
    ZBT_CASE(test_api_catalog__sqlite_without_path),
    ZBT_CASE(test_api_catalog__sqlite_missing_file),
    ZBT_CASE(test_api_catalog__opts_version),
    ZBT_CASE(test_api_table__missing_folder),
    ZBT_CASE(test_api_table__missing_in_sqlite),
    ZBT_CASE(test_api_ops__missing_table),
    ZBT_CASE(test_api_ops__opts_version),
    ZBT_CASE(test_api_table__reads_generated),
    ZBT_CASE(test_api_ops__compact_options),
    ZBT_CASE(test_api_ops__compact_dry_run),
    ZBT_CASE(test_api_ops__orphan_guard),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

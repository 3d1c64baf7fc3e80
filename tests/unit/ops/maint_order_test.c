/*
 * test_ops_maintenance: the maintenance run of one table
 * (src/ops/maintenance_run.c) on copies of fixture tables, dry runs through
 * the PATH catalog:
 *   - the six operations run in the order DESIGN.md fixes, whatever
 *     order a subset is given in (a test must fail if it changes);
 *   - after an operation aborts (ZB_EUNSAFE) the rest of the table is
 *     STOPPED, naming it, and the run returns ZB_EUNSAFE;
 *   - a table config's disabled sections are DISABLED with their key;
 *   - a table that does not load reports no step;
 *   - the settings a run uses, each with its origin (zb_maint_settings);
 *   - the code ranks follow the exit codes (4 > 3 > 2 > 1 > 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ops/maintenance_run.h"
#include "zbtest.h"

static const char *const FIXED[ZB_MAINT_OP_COUNT] = {
    "compact",           "apply-properties", "remove-dangling-deletes",
    "rewrite-manifests", "expire",           "remove-orphans"
};

typedef struct seen {
    int n;
    zb_maint_op op[16];
    zb_maint_status status[16];
    int rc[16];
    char detail[16][64];
} seen;

static void record(const zb_maint_step *st, void *payload)
{
    seen *s = payload;

    if (s->n >= 16)
        return;
    s->op[s->n] = st->op;
    s->status[s->n] = st->status;
    s->rc[s->n] = st->rc;
    snprintf(s->detail[s->n], sizeof s->detail[s->n], "%s",
             st->detail ? st->detail : "");
    s->n++;
}

typedef struct env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_op_target t;
    char dir[1024];
} env;

static int open_fixture(env *e, const char *name)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    char src[1024], cmd[3400];
    struct stat st;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    snprintf(e->dir, sizeof e->dir, "%s/%s", zbt_tmpdir(), name);
    snprintf(src, sizeof src, "%s/%s", ZB_FIXTURES_DIR, name);
    if (stat(src, &st) != 0) {
        printf("  (skipped: no fixture %s)\n", src);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s' '%s'", e->dir, src,
             e->dir);
    ZBT_EQ_INT(system(cmd), 0);
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "test";
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    e->t.catalog = e->cat;
    e->t.io = e->io;
    e->t.ident = e->dir;
    e->t.dry_run = 1;
    return 1;
}

static void close_env(env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
}

static void test_ops_maintenance__names_in_fixed_order(void)
{
    int i;

    for (i = 0; i < ZB_MAINT_OP_COUNT; i++) {
        ZBT_EQ_STR(zb_maint_op_names[i], FIXED[i]);
        ZBT_EQ_INT(zb_maint_op_from_name(FIXED[i]), i);
    }
    ZBT_EQ_INT(zb_maint_op_from_name("vacuum"), -1);
}

static void test_ops_maintenance__runs_in_order(void)
{
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    seen s;
    env e;
    int i, rc;

    if (!open_fixture(&e, "impala-v2-pos-partitioned"))
        return;
    memset(&s, 0, sizeof s);
    rc = zb_maintenance_table(&e.t, &e.ctx, &o, record, &s);
    ZBT_OK_CTX(rc, &e.ctx);
    ZBT_EQ_INT(s.n, ZB_MAINT_OP_COUNT);
    for (i = 0; i < s.n; i++) {
        ZBT_EQ_STR(zb_maint_op_names[s.op[i]], FIXED[i]);
        ZBT_EQ_INT(s.status[i], ZB_MAINT_RAN);
    }
    close_env(&e);
}

static void test_ops_maintenance__subset_keeps_order(void)
{
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    seen s;
    env e;

    if (!open_fixture(&e, "impala-v2-pos-delete"))
        return;
    memset(o.run, 0, sizeof o.run);
    /* as a profile might list them: remove-orphans, expire, compact */
    o.run[ZB_MAINT_REMOVE_ORPHANS] = 1;
    o.run[ZB_MAINT_EXPIRE] = 1;
    o.run[ZB_MAINT_COMPACT] = 1;
    memset(&s, 0, sizeof s);
    ZBT_OK_CTX(zb_maintenance_table(&e.t, &e.ctx, &o, record, &s), &e.ctx);
    ZBT_EQ_INT(s.n, 3);
    ZBT_EQ_INT(s.op[0], ZB_MAINT_COMPACT);
    ZBT_EQ_INT(s.op[1], ZB_MAINT_EXPIRE);
    ZBT_EQ_INT(s.op[2], ZB_MAINT_REMOVE_ORPHANS);
    close_env(&e);
}

static void test_ops_maintenance__abort_stops_table(void)
{
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    char cmd[3400];
    seen s;
    env e;
    int rc;

    if (!open_fixture(&e, "impala-v2-pos-some-files"))
        return;
    /* a manifest target that is not a size: rewrite-manifests aborts */
    snprintf(cmd, sizeof cmd,
             "sed -i 's/\"properties\" : {/\"properties\" : { "
             "\"write.manifest.target-size-bytes\" : \"abc\",/' "
             "'%s/metadata/v7.metadata.json'",
             e.dir);
    ZBT_EQ_INT(system(cmd), 0);
    memset(&s, 0, sizeof s);
    rc = zb_maintenance_table(&e.t, &e.ctx, &o, record, &s);
    ZBT_RC(rc, ZB_EUNSAFE);
    ZBT_EQ_INT(s.n, ZB_MAINT_OP_COUNT);
    ZBT_EQ_INT(s.status[3], ZB_MAINT_RAN);
    ZBT_RC(s.rc[3], ZB_EUNSAFE);
    ZBT_EQ_INT(s.status[4], ZB_MAINT_STOPPED);
    ZBT_EQ_STR(s.detail[4], "rewrite-manifests");
    ZBT_EQ_INT(s.status[5], ZB_MAINT_STOPPED);
    close_env(&e);
}

static void test_ops_maintenance__config_disables(void)
{
    static const char tc_text[] =
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": {\"retention\":"
        " {\"expire_snapshots\": {\"enabled\": false},"
        " \"remove_orphan_files\": {\"enabled\": false},"
        " \"remove_dangling_deletes\": {\"enabled\": false}}}}";
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    zb_table_config *tc = NULL;
    seen s;
    env e;

    if (!open_fixture(&e, "impala-v2-pos-delete"))
        return;
    ZBT_OK_CTX(zb_table_config_parse(&tc, &e.ctx, "tc.json", tc_text,
                                     strlen(tc_text)),
               &e.ctx);
    o.config = tc;
    memset(&s, 0, sizeof s);
    ZBT_OK_CTX(zb_maintenance_table(&e.t, &e.ctx, &o, record, &s), &e.ctx);
    ZBT_EQ_INT(s.n, ZB_MAINT_OP_COUNT);
    ZBT_EQ_INT(s.status[2], ZB_MAINT_DISABLED);
    ZBT_EQ_STR(s.detail[2], "retention.remove_dangling_deletes.enabled");
    ZBT_EQ_INT(s.status[4], ZB_MAINT_DISABLED);
    ZBT_EQ_STR(s.detail[4], "retention.expire_snapshots.enabled");
    ZBT_EQ_INT(s.status[5], ZB_MAINT_DISABLED);
    ZBT_EQ_INT(s.status[0], ZB_MAINT_RAN);
    zb_table_config_free(tc);
    close_env(&e);
}

static void test_ops_maintenance__unloadable_table(void)
{
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    seen s;
    env e;
    int rc;

    if (!open_fixture(&e, "impala-v2-pos-delete"))
        return;
    e.t.ident = "/nonexistent/table";
    memset(&s, 0, sizeof s);
    rc = zb_maintenance_table(&e.t, &e.ctx, &o, record, &s);
    ZBT_CHECK(rc < 0);
    ZBT_EQ_INT(s.n, 0);
    close_env(&e);
}

/* zb_maint_settings: each setting from the flag (days turned into ms),
 * the table config or the default, as the run hands them on. */
static void test_ops_maintenance__settings_origins(void)
{
    static const char tc_text[] =
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": "
        "{\"min_input_files\": 4, \"retention\": {\"expire_snapshots\": "
        "{\"min_snapshots_to_keep\": 3}}}}";
    zb_maint_opts o = ZB_MAINT_OPTS_INIT;
    zb_table_config *tc = NULL;
    zb_table_settings s;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_parse(&tc, &ctx, "tc.json", tc_text,
                                     strlen(tc_text)),
               &ctx);
    o.config = tc;
    o.older_than_days = 2;
    o.target_file_size_bytes = 1000;
    ZBT_OK_CTX(zb_maint_settings(&s, &ctx, &o, "db.t", NULL), &ctx);
    ZBT_EQ_INT(s.v[ZB_TSET_TARGET_FILE_SIZE].value, 1000);
    ZBT_EQ_INT(s.v[ZB_TSET_TARGET_FILE_SIZE].origin, ZB_TSET_FROM_FLAG);
    ZBT_EQ_INT(s.v[ZB_TSET_ORPHAN_AGE].value, 2 * ZB_TSET_DAY_MS);
    ZBT_EQ_INT(s.v[ZB_TSET_ORPHAN_AGE].origin, ZB_TSET_FROM_FLAG);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_INPUT_FILES].value, 4);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_INPUT_FILES].origin,
               ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_SNAPSHOTS_TO_KEEP].value, 3);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_SNAPSHOTS_TO_KEEP].origin,
               ZB_TSET_FROM_TABLE_CONFIG);
    ZBT_EQ_INT(s.v[ZB_TSET_MAX_SNAPSHOT_AGE].value,
               ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS);
    ZBT_EQ_INT(s.v[ZB_TSET_MAX_SNAPSHOT_AGE].origin, ZB_TSET_FROM_DEFAULT);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_INPUT_MANIFESTS].value,
               ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS);
    /* without a config: flags and defaults only */
    o.config = NULL;
    ZBT_OK_CTX(zb_maint_settings(&s, &ctx, &o, "db.t", NULL), &ctx);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_INPUT_FILES].value,
               ZB_TSET_DEFAULT_MIN_INPUT_FILES);
    ZBT_EQ_INT(s.v[ZB_TSET_MIN_INPUT_FILES].origin, ZB_TSET_FROM_DEFAULT);
    zb_table_config_free(tc);
}

static void test_ops_maintenance__ranks(void)
{
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_OK), 0);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_EIO), 1);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_ECONFLICT), 1);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_EUSAGE), 2);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_EREFUSED), 3);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_EUNSUPPORTED), 3);
    ZBT_EQ_INT(zb_maint_rc_rank(ZB_EUNSAFE), 4);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_ops_maintenance__names_in_fixed_order),
    ZBT_CASE(test_ops_maintenance__runs_in_order),
    ZBT_CASE(test_ops_maintenance__subset_keeps_order),
    ZBT_CASE(test_ops_maintenance__abort_stops_table),
    ZBT_CASE(test_ops_maintenance__config_disables),
    ZBT_CASE(test_ops_maintenance__unloadable_table),
    ZBT_CASE(test_ops_maintenance__settings_origins),
    ZBT_CASE(test_ops_maintenance__ranks),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}

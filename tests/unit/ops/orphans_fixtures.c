/*
 * tests/unit/ops/orphans_fixtures.c - remove-orphans and expire on a copy
 * of every fixture table (PATH catalog; impala-multi-location with its
 * remap), with a clock far in the future so that every age rule applies.
 *
 * remove-orphans: a dry run changes no byte; the real run returns the
 * same code; when it succeeds, the files gone are exactly as many as it
 * reports and every snapshot that read whole before still does, with the
 * same live rows for the current one; when it aborts (ZB_EUNSAFE: a
 * fixture whose metadata names a file its source repository did not
 * keep), the listing is unchanged and the message names a file that is
 * indeed missing. expire: then runs on the same copy; every retained
 * snapshot that read whole before still does, the current snapshot's
 * live rows are unchanged, and the files gone are as many as reported.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_fixture.h"
#include "ops/expire/expire.h"
#include "ops/orphans/remove_orphans.h"

#define FAR_FUTURE(now) ((now) + 3650 * OF_DAY_MS)

typedef struct fx_state {
    size_t n;
    int64_t ids[512];
    int whole[512];
} fx_state;

static void record(of_env *e, const zb_table *t, fx_state *st)
{
    size_t i;

    st->n = t->meta->n_snapshots < 512 ? t->meta->n_snapshots : 512;
    for (i = 0; i < st->n; i++) {
        st->ids[i] = t->meta->snapshots[i].snapshot_id;
        st->whole[i] = of_check_snapshot(e, t, &t->meta->snapshots[i],
                                         OF_CHECK_SOFT) >= 0;
        zb_err_clear(&e->ctx.err);
    }
}

/* Every snapshot of t that read whole in st still does. */
static void still_whole(of_env *e, const zb_table *t, const fx_state *st,
                        const char *name)
{
    size_t i, j;

    for (i = 0; i < t->meta->n_snapshots; i++) {
        const ice_snapshot *s = &t->meta->snapshots[i];
        for (j = 0; j < st->n && st->ids[j] != s->snapshot_id; j++)
            ;
        if (j < st->n && st->whole[j] &&
            of_check_snapshot(e, t, s, OF_CHECK_SOFT) < 0)
            zbt__fail(__FILE__, __LINE__, "%s: snapshot %lld no longer "
                      "reads whole: %s", name, (long long)s->snapshot_id,
                      e->ctx.err.msg);
    }
}

/*
 * The files of gone as the operations count them: a Hadoop checksum file
 * ".X.crc" goes with X and is counted with it, so it is left out when X
 * went too; one whose X is still there must not have gone at all.
 */
static size_t counted_lines(const char *gone)
{
    const char *p = gone;
    size_t n = 0;

    while (*p) {
        const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
        const char *slash = p, *q;
        char owner[4096];

        ZBT_CHECK(tab != NULL && nl != NULL);
        for (q = p; q < tab; q++)
            if (*q == '/')
                slash = q + 1;
        if (tab - slash > 5 && slash[0] == '.' &&
            strncmp(tab - 4, ".crc", 4) == 0) {
            snprintf(owner, sizeof owner, "%.*s%.*s", (int)(slash - p), p,
                     (int)(tab - slash - 5), slash + 1);
            /* no live file's checksum file is deleted */
            ZBT_CHECK(!of_exists(owner));
            strcat(owner, "\t");
            if (strstr(gone, owner) == NULL)
                n++;             /* a checksum file whose file was gone */
        } else {
            n++;
        }
        p = nl + 1;
    }
    return n;
}

static void one_fixture(const char *name)
{
    of_env e;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    ice_path_remap remap;
    zb_table *t = NULL;
    zb_op_target tg;
    zb_remove_orphans_opts oo = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result orr;
    zb_expire_opts eo = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result er = ZB_EXPIRE_RESULT_INIT;
    fx_state st;
    char src[1024], copy[1024], folder[1200], *before, *after, *gone;
    int64_t rows, now = of_now_ms();
    int rc, multi = strcmp(name, "impala-multi-location") == 0;

    of_open_catalog(&e, 0);
    snprintf(src, sizeof src, "%s/%s", ZB_FIXTURES_DIR, name);
    snprintf(copy, sizeof copy, "%s/%s", e.dir, name);
    of_copy(src, copy);
    if (multi) {
        zb_catalog_free(e.cat);
        remap.from = "/test-warehouse/iceberg_test/hadoop_catalog/ice";
        remap.to = copy;
        cfg.kind = ZB_CATALOG_PATH;
        cfg.n_remaps = 1;
        cfg.remaps = &remap;
        ZBT_OK_CTX(zb_catalog_open(&e.cat, &e.ctx, e.io, &cfg), &e.ctx);
        snprintf(folder, sizeof folder, "%s/iceberg_multiple_storage_locations",
                 copy);
    } else {
        snprintf(folder, sizeof folder, "%s", copy);
    }
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t), &e.ctx);
    record(&e, t, &st);
    rows = t->meta->current_snapshot_id == ICE_NO_SNAPSHOT
               ? 0
               : of_count_rows(&e, t, ice_metadata_current_snapshot(t->meta));

    memset(&tg, 0, sizeof tg);
    tg.catalog = e.cat;
    tg.io = e.io;
    tg.ident = folder;
    tg.now_ms = FAR_FUTURE(now);

    /* remove-orphans, previewed then done. */
    before = of_tree(copy);
    tg.dry_run = 1;
    rc = zb_remove_orphans(&tg, &e.ctx, &oo, &orr);
    ZBT_CHECK(rc == ZB_OK || rc == ZB_EUNSAFE);
    after = of_tree(copy);
    ZBT_EQ_STR(after, before);
    free(after);
    tg.dry_run = 0;
    ZBT_RC(zb_remove_orphans(&tg, &e.ctx, &oo, &orr), rc);
    after = of_tree(copy);
    gone = of_tree_minus(before, after);
    if (rc == ZB_EUNSAFE) {
        char *p = strstr(e.ctx.err.msg, "such as ");
        ZBT_EQ_STR(gone, "");
        ZBT_CHECK(p != NULL);
        ZBT_CHECK(!of_exists(p + 8));
        printf("  %-34s remove-orphans: exit 4 (%s)\n", name,
               strstr(e.ctx.err.msg, "aborted"));
    } else {
        ZBT_EQ_U64(counted_lines(gone), orr.files_deleted);
        ZBT_EQ_U64(orr.files_not_deleted, 0);
        printf("  %-34s remove-orphans: scanned %llu, referenced %llu, "
               "deleted %llu\n", name, (unsigned long long)orr.files_scanned,
               (unsigned long long)orr.files_referenced,
               (unsigned long long)orr.files_deleted);
    }
    of_reload(&e, &t, folder);
    still_whole(&e, t, &st, name);
    if (t->meta->current_snapshot_id != ICE_NO_SNAPSHOT)
        ZBT_EQ_INT(of_count_rows(&e, t, ice_metadata_current_snapshot(t->meta)),
                   rows);
    free(before);
    free(after);
    free(gone);

    /* expire on what is left. */
    before = of_tree(copy);
    ZBT_OK_CTX(zb_expire(&tg, &e.ctx, &eo, &er), &e.ctx);
    after = of_tree(copy);
    gone = of_tree_minus(before, after);
    /* The commit adds a metadata file and rewrites version-hint.text. */
    ZBT_EQ_U64(counted_lines(gone) -
               (strstr(gone, "/version-hint.text\t") != NULL),
               er.files_deleted);
    ZBT_EQ_U64(er.files_not_deleted, 0);
    of_reload(&e, &t, folder);
    ZBT_EQ_U64(t->meta->n_snapshots, er.snapshots_retained);
    still_whole(&e, t, &st, name);
    if (t->meta->current_snapshot_id != ICE_NO_SNAPSHOT)
        ZBT_EQ_INT(of_count_rows(&e, t, ice_metadata_current_snapshot(t->meta)),
                   rows);
    printf("  %-34s expire: expired %llu, retained %llu, deleted %llu\n",
           name, (unsigned long long)er.snapshots_expired,
           (unsigned long long)er.snapshots_retained,
           (unsigned long long)er.files_deleted);
    zb_expire_result_free(&er);
    free(before);
    free(after);
    free(gone);
    zb_table_free(t);
    of_close(&e);
}

static void test_ops_orphans__fixtures(void)
{
    DIR *d = opendir(ZB_FIXTURES_DIR);
    struct dirent *de;
    char *names[64];
    size_t n = 0, i;

    if (d == NULL) {
        printf("  fixtures not found at %s: skipped\n", ZB_FIXTURES_DIR);
        return;
    }
    while ((de = readdir(d)) != NULL && n < 64)
        if (de->d_name[0] != '.' && strchr(de->d_name, '-') != NULL)
            names[n++] = strdup(de->d_name);
    closedir(d);
    ZBT_CHECK(n >= 30);
    for (i = 0; i < n; i++) {
        one_fixture(names[i]);
        free(names[i]);
    }
}

const zbt_case test_ops_orphans_fixtures[] = {
    ZBT_CASE(test_ops_orphans__fixtures),
    ZBT_END
};

/*
 * tests/unit/catalog/cat_path.c - the PATH catalog suite: every fixture
 * folder loads in place (its recorded location remapped to the folder;
 * Impala's hdfs:// delete-file paths stripped and remapped), commits to a
 * copied fixture write v<N+1> and version-hint.text and leave the older
 * files byte for byte, a lagging version hint is overtaken, failed
 * requirements conflict, a taken next version is a conflict, and a new
 * table can be created in an empty folder.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cat_test.h"
#include "table/commit/commit.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

static int open_path(cat_env *e)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    memset(e, 0, sizeof(*e));
    zb_ctx_init(&e->ctx);
    e->kind = ZB_CATALOG_PATH;
    snprintf(e->dir, sizeof(e->dir), "%s", zbt_tmpdir());
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    return 1;
}

static int exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

static void copy_tree(const char *from, const char *to)
{
    char cmd[2048];

    snprintf(cmd, sizeof(cmd), "cp -R '%s' '%s'", from, to);
    ZBT_CHECK(system(cmd) == 0);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    ZBT_CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ZBT_CHECK(buf != NULL);
    ZBT_CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = read_all(a, &la), *y = read_all(b, &lb);
    int same = la == lb && memcmp(x, y, la) == 0;

    free(x);
    free(y);
    return same;
}

/* Every fixture loads, and its current manifest list resolves into the
 * folder (impala-multi-location keeps data elsewhere, not metadata). */
static void test_catalog_path__fixtures_load_in_place(void)
{
    cat_env e;
    DIR *d;
    struct dirent *de;
    zb_buf uri = ZB_BUF_INIT(1 << 16);
    int loaded = 0;

    open_path(&e);
    d = opendir(ZB_FIXTURES_DIR);
    ZBT_CHECK(d != NULL);
    while ((de = readdir(d)) != NULL) {
        char folder[1024];
        zb_table *t = NULL;
        const ice_snapshot *s;

        if (de->d_name[0] == '.')
            continue;
        if (strstr(de->d_name, ".md"))
            continue;
        /* impala-multi-location holds the table and its data siblings. */
        snprintf(folder, sizeof(folder), "%s/%s%s", ZB_FIXTURES_DIR,
                 de->d_name, strcmp(de->d_name, "impala-multi-location") == 0
                                 ? "/iceberg_multiple_storage_locations" : "");
        if (zb_catalog_load_table(e.cat, &e.ctx, folder, &t) != 0)
            zbt__fail(__FILE__, __LINE__, "%s: %s", de->d_name, e.ctx.err.msg);
        ZBT_EQ_STR(t->root, folder);
        ZBT_EQ_STR(t->ident, folder);
        ZBT_CHECK(strncmp(t->metadata_location, folder, strlen(folder)) == 0);
        s = ice_metadata_current_snapshot(t->meta);
        if (s != NULL && s->manifest_list != NULL) {
            ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t, s->manifest_list),
                       &e.ctx);
            if (!exists(uri.ptr))
                zbt__fail(__FILE__, __LINE__, "%s: %s -> %s is missing",
                          de->d_name, s->manifest_list, uri.ptr);
        }
        loaded++;
        zb_table_free(t);
    }
    closedir(d);
    ZBT_CHECK(loaded >= 30);
    zb_buf_free(&uri);
    cat_env_close(&e);
}

static void test_catalog_path__hdfs_paths_resolve(void)
{
    cat_env e;
    zb_table *t = NULL;
    zb_buf uri = ZB_BUF_INIT(1 << 16);
    char folder[1024], want[2048];
    const char *loc;

    open_path(&e);
    snprintf(folder, sizeof(folder), "%s/impala-v2-pos-delete/",
             ZB_FIXTURES_DIR);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t), &e.ctx);
    folder[strlen(folder) - 1] = '\0';       /* the trailing '/' goes */
    ZBT_EQ_STR(t->root, folder);
    loc = t->meta->location;
    ZBT_EQ_STR(loc, "/test-warehouse/iceberg_test/hadoop_catalog/ice/"
                    "iceberg_v2_delete_positional");
    /* As written in manifests, and as Impala's delete files name them. */
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t,
                                "/test-warehouse/iceberg_test/hadoop_catalog/"
                                "ice/iceberg_v2_delete_positional/data/x.parquet"),
               &e.ctx);
    snprintf(want, sizeof(want), "%s/data/x.parquet", folder);
    ZBT_EQ_STR(uri.ptr, want);
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t,
                                "hdfs://localhost:20500/test-warehouse/"
                                "iceberg_test/hadoop_catalog/ice/"
                                "iceberg_v2_delete_positional/data/x.parquet"),
               &e.ctx);
    ZBT_EQ_STR(uri.ptr, want);
    /* Elsewhere stays as it is. */
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t, "s3://b/other/y.parquet"),
               &e.ctx);
    ZBT_EQ_STR(uri.ptr, "s3://b/other/y.parquet");
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t,
                                "/test-warehouse/iceberg_test/hadoop_catalog/"
                                "ice/iceberg_v2_delete_positional_2/z"),
               &e.ctx);
    ZBT_CONTAINS(uri.ptr, "/test-warehouse/");
    zb_table_free(t);

    /* A v3 table whose location itself carries hdfs://host:port. */
    snprintf(folder, sizeof(folder), "%s/impala-v3-deletion-vectors",
             ZB_FIXTURES_DIR);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t), &e.ctx);
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t,
                                "/test-warehouse/iceberg_v3_deletion_vectors/"
                                "data/a.parquet"), &e.ctx);
    snprintf(want, sizeof(want), "%s/data/a.parquet", folder);
    ZBT_EQ_STR(uri.ptr, want);
    zb_table_free(t);
    zb_buf_free(&uri);
    cat_env_close(&e);
}

/* Catalog remaps come first: impala-multi-location's sibling folders. */
static void test_catalog_path__remaps(void)
{
    cat_env e;
    zb_catalog *c = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    ice_path_remap r = { "/test-warehouse/iceberg_test/hadoop_catalog/ice",
                         ZB_FIXTURES_DIR "/impala-multi-location" };
    zb_table *t = NULL;
    zb_buf uri = ZB_BUF_INIT(1 << 16);
    char folder[1024];

    open_path(&e);
    cfg.kind = ZB_CATALOG_PATH;
    cfg.n_remaps = 1;
    cfg.remaps = &r;
    ZBT_OK_CTX(zb_catalog_open(&c, &e.ctx, e.io, &cfg), &e.ctx);
    snprintf(folder, sizeof(folder),
             "%s/impala-multi-location/iceberg_multiple_storage_locations",
             ZB_FIXTURES_DIR);
    ZBT_OK_CTX(zb_catalog_load_table(c, &e.ctx, folder, &t), &e.ctx);
    ZBT_OK_CTX(zb_table_resolve(&uri, &e.ctx, t,
                                "/test-warehouse/iceberg_test/hadoop_catalog/"
                                "ice/iceberg_multiple_storage_locations_data01/"
                                "f.parquet"), &e.ctx);
    ZBT_EQ_STR(uri.ptr, ZB_FIXTURES_DIR "/impala-multi-location/"
                        "iceberg_multiple_storage_locations_data01/f.parquet");
    zb_table_free(t);
    zb_catalog_free(c);
    zb_buf_free(&uri);
    cat_env_close(&e);
}

static void test_catalog_path__commit_to_copied_fixture(void)
{
    cat_env e;
    zb_table *t = NULL, *t2 = NULL, *t3 = NULL;
    json_t *u = NULL, *reqs = NULL;
    char src[1024], folder[1024], path[1200], fx[1200];
    size_t len;
    char *hint;
    int v;

    open_path(&e);
    snprintf(src, sizeof(src), "%s/impala-v2-pos-delete", ZB_FIXTURES_DIR);
    snprintf(folder, sizeof(folder), "%s/table", e.dir);
    copy_tree(src, folder);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t), &e.ctx);
    ZBT_CONTAINS(t->metadata_location, "/metadata/v2.metadata.json");
    u = cat_set_property("zamboni.test", "1");
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u,
                                 &t2), &e.ctx);
    json_decref(u);
    snprintf(path, sizeof(path), "%s/metadata/v3.metadata.json", folder);
    ZBT_EQ_STR(t2->metadata_location, path);
    ZBT_CHECK(exists(path));
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "zamboni.test"), "1");
    ZBT_EQ_STR(t2->meta->location, t->meta->location);   /* as recorded */
    ZBT_EQ_STR(t2->meta->metadata_log[t2->meta->n_metadata_log - 1]
                   .metadata_file, t->metadata_location);
    snprintf(path, sizeof(path), "%s/metadata/version-hint.text", folder);
    hint = read_all(path, &len);
    ZBT_EQ_STR(hint, "3");
    free(hint);
    /* The older files are untouched. */
    for (v = 1; v <= 2; v++) {
        snprintf(path, sizeof(path), "%s/metadata/v%d.metadata.json", folder, v);
        snprintf(fx, sizeof(fx), "%s/metadata/v%d.metadata.json", src, v);
        ZBT_CHECK(same_file(path, fx));
    }

    /* A hint left behind (a writer that stopped before updating it): the
     * newest version is still found, and the next commit follows it. */
    snprintf(path, sizeof(path), "%s/metadata/version-hint.text", folder);
    unlink(path);
    zbt_write_file(path, "2", 1);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t3), &e.ctx);
    ZBT_CONTAINS(t3->metadata_location, "/metadata/v3.metadata.json");
    zb_table_free(t3);
    t3 = NULL;

    /* A requirement that fails: a conflict, nothing written. */
    reqs = json_array();
    json_array_append_new(reqs, (json_t *)ice_requirement_table_uuid(
                                    "00000000-0000-0000-0000-000000000000"));
    u = cat_set_property("never", "1");
    ZBT_RC(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                             (const zb_json *)u, &t3), ZB_ECONFLICT);
    ZBT_CONTAINS(e.ctx.err.msg, folder);
    json_decref(reqs);
    json_decref(u);
    snprintf(path, sizeof(path), "%s/metadata/v4.metadata.json", folder);
    ZBT_CHECK(!exists(path));

    /* From the stale base, with a requirement that still holds: v4. */
    reqs = json_array();
    json_array_append_new(
        reqs, (json_t *)ice_requirement_table_uuid(t->meta->table_uuid));
    u = cat_set_property("again", "1");
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)u, &t3), &e.ctx);
    ZBT_EQ_STR(t3->metadata_location, path);
    ZBT_EQ_STR(ice_metadata_property(t3->meta, "zamboni.test"), "1");
    json_decref(reqs);
    json_decref(u);

    /* v5 taken between finding v4 and writing (a dangling link looks
     * absent to the probe, but its name is taken): a conflict, and v5
     * is not overwritten. */
    snprintf(path, sizeof(path), "%s/metadata/v5.metadata.json", folder);
    ZBT_CHECK(symlink("/nonexistent/target", path) == 0);
    u = cat_set_property("raced", "1");
    ZBT_RC(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u, NULL),
           ZB_ECONFLICT);
    ZBT_CONTAINS(e.ctx.err.msg, "another writer created");
    ZBT_CONTAINS(e.ctx.err.msg, "v5.metadata.json");
    ZBT_CHECK(unlink(path) == 0);
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u,
                                 NULL), &e.ctx);
    ZBT_CHECK(exists(path));
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    zb_table_free(t3);
    cat_env_close(&e);
}

/* The copied table's manifest list, via the folder: a fake append on a
 * copy resolves its parent's files and names its own under the folder. */
static void test_catalog_path__append_and_create(void)
{
    cat_env e;
    zb_table *t = NULL, *t2 = NULL;
    json_t *reqs = NULL, *u = NULL;
    ice_metadata *first = NULL;
    char folder[1024], path[1200];

    open_path(&e);
    snprintf(folder, sizeof(folder), "%s/new_table", e.dir);
    first = cat_first_metadata(&e, folder);
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first, &t),
               &e.ctx);
    snprintf(path, sizeof(path), "%s/metadata/v1.metadata.json", folder);
    ZBT_EQ_STR(t->metadata_location, path);
    ZBT_RC(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first, NULL),
           ZB_EEXISTS);
    ice_metadata_free(first);
    cat_fake_append(&reqs, &u, t, 55, cat_now_ms());
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)u, &t2), &e.ctx);
    ZBT_EQ_INT(t2->meta->current_snapshot_id, 55);
    json_decref(reqs);
    json_decref(u);
    /* The same append again from the old base: main moved, a conflict. */
    cat_fake_append(&reqs, &u, t, 56, cat_now_ms());
    ZBT_RC(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                             (const zb_json *)u, NULL), ZB_ECONFLICT);
    json_decref(reqs);
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    /* A folder without metadata: not found, named. */
    ZBT_RC(zb_catalog_load_table(e.cat, &e.ctx, e.dir, &t), ZB_ENOTFOUND);
    ZBT_CONTAINS(e.ctx.err.msg, "catalog path (path): table folder");
    cat_env_close(&e);
}

/* write.metadata.compression-codec=gzip: the next file is
 * v<N>.gz.metadata.json, gzip, found as the newest; a metadata file named
 * directly loads as it is, and a commit from it must start from the
 * newest (ZB_EREFUSED naming the newest otherwise). */
static void test_catalog_path__gzip_and_named_files(void)
{
    cat_env e;
    zb_table *t = NULL, *t2 = NULL, *t3 = NULL, *named = NULL;
    json_t *reqs = NULL, *u = NULL;
    ice_metadata *first = NULL;
    char folder[1024], path[1200], mdir[1100];
    unsigned char magic[2] = { 0, 0 };
    FILE *f;

    open_path(&e);
    snprintf(folder, sizeof(folder), "%s/gz_table", e.dir);
    snprintf(mdir, sizeof(mdir), "%s/metadata", folder);
    first = cat_first_metadata(&e, folder);
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first, &t),
               &e.ctx);
    ice_metadata_free(first);
    u = cat_set_property(ICE_PROP_METADATA_CODEC, "gzip");
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u,
                                 &t2), &e.ctx);
    json_decref(u);
    snprintf(path, sizeof(path), "%s/v2.gz.metadata.json", mdir);
    ZBT_EQ_STR(t2->metadata_location, path);
    ZBT_CHECK((f = fopen(path, "rb")) != NULL);
    ZBT_CHECK(fread(magic, 1, 2, f) == 2);
    fclose(f);
    ZBT_CHECK(magic[0] == 0x1f && magic[1] == 0x8b);
    zb_table_free(t);
    t = NULL;
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &t), &e.ctx);
    ZBT_EQ_STR(t->metadata_location, path);
    ZBT_EQ_STR(ice_metadata_property(t->meta, ICE_PROP_METADATA_CODEC),
               "gzip");
    cat_fake_append(&reqs, &u, t, 77, cat_now_ms());
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)u, &t3), &e.ctx);
    json_decref(reqs);
    json_decref(u);
    snprintf(path, sizeof(path), "%s/v3.gz.metadata.json", mdir);
    ZBT_EQ_STR(t3->metadata_location, path);
    ZBT_EQ_U64(cat_count_files(mdir, ".gz.metadata.json"), 2);

    /* v2 named directly: its state, its folder; a commit is refused */
    snprintf(path, sizeof(path), "%s/v2.gz.metadata.json", mdir);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, path, &named), &e.ctx);
    ZBT_EQ_STR(named->root, folder);
    ZBT_EQ_STR(named->metadata_location, path);
    ZBT_CHECK(named->meta->current_snapshot_id != 77);
    ZBT_RC(zb_catalog_check_writable(e.cat, &e.ctx, path), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "v3.gz.metadata.json is");
    cat_fake_append(&reqs, &u, named, 78, cat_now_ms());
    ZBT_RC(zb_catalog_commit(e.cat, &e.ctx, named, (const zb_json *)reqs,
                             (const zb_json *)u, NULL), ZB_EREFUSED);
    ZBT_CONTAINS(e.ctx.err.msg, "not the table's newest metadata file");
    json_decref(reqs);
    json_decref(u);
    snprintf(path, sizeof(path), "%s/v3.gz.metadata.json", mdir);
    ZBT_OK_CTX(zb_catalog_check_writable(e.cat, &e.ctx, path), &e.ctx);
    zb_table_free(named);
    zb_table_free(t);
    zb_table_free(t2);
    zb_table_free(t3);
    cat_env_close(&e);
}

/* Replaces a file's bytes with text that is not metadata. */
static void spoil(const char *path)
{
    FILE *f = fopen(path, "w");

    ZBT_CHECK(f != NULL);
    fputs("not metadata", f);
    fclose(f);
}

/* A commit whose base was loaded from the newest file starts from the
 * base's parsed metadata and does not read that file again (metadata
 * files never change): with the file's bytes spoiled after the load, the
 * commit still succeeds and logs it. A base that is not the newest still
 * reads the newest file, so spoiled bytes there fail the commit. */
static void test_catalog_path__commit_reuses_loaded_metadata(void)
{
    cat_env e;
    zb_table *t = NULL, *t2 = NULL, *t3 = NULL;
    json_t *reqs = NULL, *u = NULL;
    ice_metadata *first = NULL;
    char folder[1024], v2[1200], v3[1200];

    open_path(&e);
    snprintf(folder, sizeof(folder), "%s/reuse_table", e.dir);
    first = cat_first_metadata(&e, folder);
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first, &t),
               &e.ctx);
    ice_metadata_free(first);
    cat_fake_append(&reqs, &u, t, 55, cat_now_ms());
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)u, &t2), &e.ctx);
    json_decref(reqs);
    json_decref(u);
    snprintf(v2, sizeof(v2), "%s/metadata/v2.metadata.json", folder);
    ZBT_EQ_STR(t2->metadata_location, v2);
    spoil(v2);
    cat_fake_append(&reqs, &u, t2, 56, cat_now_ms());
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t2, (const zb_json *)reqs,
                                 (const zb_json *)u, &t3), &e.ctx);
    json_decref(reqs);
    json_decref(u);
    snprintf(v3, sizeof(v3), "%s/metadata/v3.metadata.json", folder);
    ZBT_EQ_STR(t3->metadata_location, v3);
    ZBT_EQ_INT(t3->meta->current_snapshot_id, 56);
    ZBT_EQ_INT(t3->meta->n_snapshots, 2);
    ZBT_CHECK(t3->meta->n_metadata_log >= 2);
    ZBT_EQ_STR(t3->meta->metadata_log[t3->meta->n_metadata_log - 1]
                   .metadata_file, v2);
    /* From the older base t2, the newest (v3) is read: spoil it too. */
    spoil(v3);
    cat_fake_append(&reqs, &u, t2, 57, cat_now_ms());
    ZBT_RC(zb_catalog_commit(e.cat, &e.ctx, t2, (const zb_json *)reqs,
                             (const zb_json *)u, NULL), ZB_ECORRUPT);
    ZBT_CONTAINS(e.ctx.err.msg, "v3.metadata.json");
    json_decref(reqs);
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    zb_table_free(t3);
    cat_env_close(&e);
}

const zbt_case test_catalog_path[] = {
    ZBT_CASE(test_catalog_path__fixtures_load_in_place),
    ZBT_CASE(test_catalog_path__hdfs_paths_resolve),
    ZBT_CASE(test_catalog_path__remaps),
    ZBT_CASE(test_catalog_path__commit_to_copied_fixture),
    ZBT_CASE(test_catalog_path__append_and_create),
    ZBT_CASE(test_catalog_path__gzip_and_named_files),
    ZBT_CASE(test_catalog_path__commit_reuses_loaded_metadata),
    ZBT_END
};

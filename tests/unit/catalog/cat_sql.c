/*
 * tests/unit/catalog/cat_sql.c - the SQL catalog suite, run on SQLite
 * always and on PostgreSQL when $ZB_TEST_PG_URL names a server (each case
 * in a warehouse of its own): namespaces and listings, create, register
 * (a fixture table too), load, drop, commits with the compare-and-swap
 * and requirement conflicts, the clock rule, pruning of old metadata
 * files, several processes committing through the retry policy, and the
 * errors of bad configuration and corrupt metadata.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cat_test.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

typedef struct strs {
    int n;
    char items[16][128];
} strs;

static int collect(const char *item, void *payload)
{
    strs *s = payload;

    if (s->n < 16)
        snprintf(s->items[s->n++], 128, "%s", item);
    return 0;
}

static int has(const strs *s, const char *item)
{
    int i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->items[i], item) == 0)
            return 1;
    return 0;
}

/* Creates the namespace of ident when missing (REST requires it). */
static void ensure_ns(cat_env *e, const char *ident)
{
    char ns[128];
    const char *dot = strrchr(ident, '.');
    int rc;

    snprintf(ns, sizeof(ns), "%.*s", (int)(dot - ident), ident);
    rc = zb_catalog_create_namespace(e->cat, &e->ctx, ns);
    ZBT_CHECK(rc == ZB_OK || rc == ZB_EEXISTS);
}

static zb_table *create_table(cat_env *e, const char *ident)
{
    zb_table *t = NULL;
    ice_metadata *first = cat_first_metadata(e, "/unused/location");

    ensure_ns(e, ident);
    ZBT_OK_CTX(zb_catalog_create_table(e->cat, &e->ctx, ident, NULL, first,
                                       &t), &e->ctx);
    ice_metadata_free(first);
    return t;
}

static void metadata_dir(char *out, size_t size, const zb_table *t)
{
    snprintf(out, size, "%s/metadata", t->meta->location);
}

/* ---- bodies, each run per backend ---- */

static void basics(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL;
    ice_metadata *first = NULL;
    strs s;
    char want[700];
    const char *kind = zb_catalog_kind_name(e->kind);

    ZBT_CHECK(zb_catalog_caps(e->cat) & ZB_CATALOG_CAP_CREATE);
    ZBT_EQ_STR(zb_catalog_name(e->cat), "test");
    ZBT_OK_CTX(zb_catalog_create_namespace(e->cat, &e->ctx, "db"), &e->ctx);
    ZBT_RC(zb_catalog_create_namespace(e->cat, &e->ctx, "db"), ZB_EEXISTS);
    ZBT_OK_CTX(zb_catalog_create_namespace(e->cat, &e->ctx, "a.b.c"), &e->ctx);
    t = create_table(e, "db.t1");
    snprintf(want, sizeof(want), "%s/warehouse/db/t1", e->dir);
    ZBT_EQ_STR(t->meta->location, want);
    snprintf(want, sizeof(want), "%s/warehouse/db/t1/metadata/00000-", e->dir);
    ZBT_CHECK(strncmp(t->metadata_location, want, strlen(want)) == 0);
    ZBT_EQ_STR(t->ident, "db.t1");
    /* A namespace that only tables name exists too. */
    ZBT_OK_CTX(zb_catalog_register_table(e->cat, &e->ctx, "implied.t",
                                         t->metadata_location, NULL), &e->ctx);
    ZBT_RC(zb_catalog_create_namespace(e->cat, &e->ctx, "implied"),
           ZB_EEXISTS);
    ZBT_OK_CTX(zb_catalog_drop_table(e->cat, &e->ctx, "implied.t"), &e->ctx);

    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_warehouses(e->cat, &e->ctx, collect, &s),
               &e->ctx);
    ZBT_CHECK(has(&s, e->warehouse));
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_namespaces(e->cat, &e->ctx, NULL, collect, &s),
               &e->ctx);
    ZBT_EQ_INT(s.n, 2);
    ZBT_EQ_STR(s.items[0], "a");
    ZBT_EQ_STR(s.items[1], "db");
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_namespaces(e->cat, &e->ctx, "a", collect, &s),
               &e->ctx);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.items[0], "a.b");
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_tables(e->cat, &e->ctx, "db", collect, &s),
               &e->ctx);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.items[0], "db.t1");

    /* The name is taken; the file written for it is removed again. */
    first = cat_first_metadata(e, "/unused");
    ZBT_RC(zb_catalog_create_table(e->cat, &e->ctx, "db.t1", NULL, first,
                                   NULL), ZB_EEXISTS);
    ZBT_CONTAINS(e->ctx.err.msg, "db.t1");
    ice_metadata_free(first);
    snprintf(want, sizeof(want), "%s/warehouse/db/t1/metadata", e->dir);
    ZBT_EQ_INT(cat_count_files(want, ".metadata.json"), 1);

    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t1", &t2), &e->ctx);
    ZBT_EQ_STR(t2->metadata_location, t->metadata_location);
    ZBT_EQ_STR(t2->meta->table_uuid, t->meta->table_uuid);
    ZBT_EQ_STR(t2->root, t->meta->location);
    zb_table_free(t2);
    t2 = NULL;

    ZBT_OK_CTX(zb_catalog_drop_table(e->cat, &e->ctx, "db.t1"), &e->ctx);
    ZBT_RC(zb_catalog_load_table(e->cat, &e->ctx, "db.t1", &t2), ZB_ENOTFOUND);
    snprintf(want, sizeof(want), "catalog test (%s)", kind);
    ZBT_CONTAINS(e->ctx.err.msg, want);
    ZBT_CONTAINS(e->ctx.err.msg, "db.t1 not found");
    ZBT_RC(zb_catalog_drop_table(e->cat, &e->ctx, "db.t1"), ZB_ENOTFOUND);
    ZBT_RC(zb_catalog_load_table(e->cat, &e->ctx, "nodot", &t2), ZB_EUSAGE);
    zb_table_free(t);
}

static void registering(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL;
    ice_metadata *fx = NULL;
    char path[1024];
    int rc;

    t = create_table(e, "db.t1");
    ZBT_OK_CTX(zb_catalog_register_table(e->cat, &e->ctx, "db.t2",
                                         t->metadata_location, &t2), &e->ctx);
    ZBT_EQ_STR(t2->meta->table_uuid, t->meta->table_uuid);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_RC(zb_catalog_register_table(e->cat, &e->ctx, "db.t2",
                                     t->metadata_location, NULL), ZB_EEXISTS);

    /* A fixture table written by Impala loads through the catalog. */
    snprintf(path, sizeof(path),
             "%s/impala-v2-pos-delete/metadata/v2.metadata.json",
             ZB_FIXTURES_DIR);
    ZBT_OK_CTX(ice_metadata_load(&fx, e->io, &e->ctx, path), &e->ctx);
    ensure_ns(e, "fx.pos");
    ZBT_OK_CTX(zb_catalog_register_table(e->cat, &e->ctx, "fx.pos", path,
                                         NULL), &e->ctx);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "fx.pos", &t2),
               &e->ctx);
    ZBT_EQ_STR(t2->meta->table_uuid, fx->table_uuid);
    ZBT_EQ_INT(t2->meta->n_snapshots, fx->n_snapshots);
    ZBT_EQ_INT(t2->meta->current_snapshot_id, fx->current_snapshot_id);
    zb_table_free(t2);
    ice_metadata_free(fx);

    /* Missing and corrupt metadata files: refused, named. */
    snprintf(path, sizeof(path), "%s/nothing.metadata.json", e->dir);
    rc = zb_catalog_register_table(e->cat, &e->ctx, "db.t3", path, NULL);
    /* A REST server answers in HTTP terms (404 or 400). */
    ZBT_CHECK(rc == ZB_ENOTFOUND ||
              (e->kind == ZB_CATALOG_REST && rc == ZB_EINVAL));
    ZBT_CONTAINS(e->ctx.err.msg, "db.t3");
    snprintf(path, sizeof(path), "%s/bad.metadata.json", e->dir);
    zbt_write_file(path, "{\"format-version\": 2, \"table-uu", 31);
    rc = zb_catalog_register_table(e->cat, &e->ctx, "db.t3", path, NULL);
    ZBT_CHECK(rc < 0);
    ZBT_CONTAINS(e->ctx.err.msg, "catalog test");
    if (e->kind != ZB_CATALOG_REST) {
        ZBT_EQ_INT(rc, ZB_ECORRUPT);
        ZBT_CONTAINS(e->ctx.err.msg, "bad.metadata.json");
    }
    ZBT_RC(zb_catalog_load_table(e->cat, &e->ctx, "db.t3", &t2), ZB_ENOTFOUND);
    zb_table_free(t);
}

static void committing(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL, *t3 = NULL;
    json_t *u = NULL;
    char dir[1024];

    t = create_table(e, "db.t");
    u = cat_set_property("owner", "zamboni");
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, NULL, (const zb_json *)u,
                                 &t2), &e->ctx);
    json_decref(u);
    ZBT_CONTAINS(t2->metadata_location, "/metadata/00001-");
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "owner"), "zamboni");
    ZBT_EQ_INT(t2->meta->n_metadata_log, 1);
    ZBT_EQ_STR(t2->meta->metadata_log[0].metadata_file, t->metadata_location);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &t3), &e->ctx);
    ZBT_EQ_STR(t3->metadata_location, t2->metadata_location);
    ZBT_EQ_STR(ice_metadata_property(t3->meta, "owner"), "zamboni");
    zb_table_free(t3);
    t3 = NULL;

    /* A stale base without requirements still commits onto the newest
     * state (requirements are what guard a commit, as in REST). */
    u = cat_set_property("second", "yes");
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, NULL, (const zb_json *)u,
                                 &t3), &e->ctx);
    json_decref(u);
    ZBT_CONTAINS(t3->metadata_location, "/metadata/00002-");
    ZBT_EQ_STR(ice_metadata_property(t3->meta, "owner"), "zamboni");
    ZBT_EQ_STR(ice_metadata_property(t3->meta, "second"), "yes");
    metadata_dir(dir, sizeof(dir), t);
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 3);
    zb_table_free(t);
    zb_table_free(t2);
    zb_table_free(t3);
}

static void conflicting(cat_env *e)
{
    zb_table *t = NULL, *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL;
    json_t *reqs = NULL, *u = NULL;
    char dir[1024];

    t = create_table(e, "db.t");
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &a), &e->ctx);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &b), &e->ctx);
    cat_fake_append(&reqs, &u, a, 101, cat_now_ms());
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, a, (const zb_json *)reqs,
                                 (const zb_json *)u, &a2), &e->ctx);
    json_decref(reqs);
    json_decref(u);
    ZBT_EQ_INT(a2->meta->current_snapshot_id, 101);
    cat_fake_append(&reqs, &u, b, 102, cat_now_ms());
    ZBT_RC(zb_catalog_commit(e->cat, &e->ctx, b, (const zb_json *)reqs,
                             (const zb_json *)u, &b2), ZB_ECONFLICT);
    ZBT_CHECK(b2 == NULL);
    ZBT_CHECK(ice_commit_conflict_retryable(&e->ctx));
    ZBT_CONTAINS(e->ctx.err.msg, "db.t");
    json_decref(reqs);
    json_decref(u);
    /* Nothing of the lost commit remains. */
    metadata_dir(dir, sizeof(dir), t);
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 2);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &b2), &e->ctx);
    ZBT_EQ_INT(b2->meta->current_snapshot_id, 101);
    ZBT_EQ_INT(b2->meta->n_snapshots, 1);
    zb_table_free(t);
    zb_table_free(a);
    zb_table_free(b);
    zb_table_free(a2);
    zb_table_free(b2);
}

static void clock_rule(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL;
    json_t *reqs = NULL, *u = NULL;
    char dir[1024];

    t = create_table(e, "db.t");
    cat_fake_append(&reqs, &u, t, 7, cat_now_ms() + 120000);
    ZBT_RC(zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                             (const zb_json *)u, &t2), ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "ahead of the catalog's clock");
    ZBT_CONTAINS(e->ctx.err.msg, "db.t");
    json_decref(reqs);
    json_decref(u);
    metadata_dir(dir, sizeof(dir), t);
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 1);
    /* Within a minute ahead is accepted. */
    cat_fake_append(&reqs, &u, t, 8, cat_now_ms() + 30000);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)u, &t2), &e->ctx);
    ZBT_EQ_INT(t2->meta->current_snapshot_id, 8);
    json_decref(reqs);
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
}

static void pruning(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL;
    ice_kv kv[2] = { { ICE_PROP_DELETE_AFTER_COMMIT, "true" },
                     { ICE_PROP_PREVIOUS_VERSIONS_MAX, "2" } };
    json_t *u = json_array();
    char dir[1024], key[32];
    int i;

    t = create_table(e, "db.t");
    metadata_dir(dir, sizeof(dir), t);
    /* Default (false): every version stays. */
    for (i = 0; i < 3; i++) {
        json_t *p;
        snprintf(key, sizeof(key), "k%d", i);
        p = cat_set_property(key, "v");
        ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, NULL,
                                     (const zb_json *)p, NULL),
                   &e->ctx);
        json_decref(p);
    }
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 4);
    json_array_append_new(u, (json_t *)ice_update_set_properties(kv, 2));
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, NULL, (const zb_json *)u,
                                 NULL), &e->ctx);
    json_decref(u);
    for (i = 0; i < 4; i++) {
        json_t *p;
        snprintf(key, sizeof(key), "p%d", i);
        p = cat_set_property(key, "v");
        ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, NULL,
                                     (const zb_json *)p, NULL),
                   &e->ctx);
        json_decref(p);
    }
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &t2), &e->ctx);
    ZBT_EQ_INT(t2->meta->n_metadata_log, 2);
    /* The current file and the two its log names. */
    ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 3);
    zb_table_free(t);
    zb_table_free(t2);
}

/* ---- several processes, one table ---- */

#define WRITERS 4
#define COMMITS_EACH 5

typedef struct append_payload {
    int64_t next_id;
    int cleanups;
} append_payload;

static void count_cleanup(zb_ctx *ctx, const zb_table *t, void *payload)
{
    (void)ctx;
    (void)t;
    ((append_payload *)payload)->cleanups++;
}

static int build_append(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                        const zb_table *t, void *payload)
{
    append_payload *p = payload;
    json_t *q = NULL, *u = NULL;

    (void)ctx;
    cat_fake_append(&q, &u, t, p->next_id, cat_now_ms());
    *reqs = (zb_json *)q;
    *updates = (zb_json *)u;
    return 0;
}

static int writer(cat_env *e, int w)
{
    zb_catalog *cat = NULL;
    zb_ctx ctx;
    int j, rc = 0, attempts = 0, cleanups = 0;

    zb_ctx_init(&ctx);
    cat_env_reopen(e, &cat);
    for (j = 0; j < COMMITS_EACH && rc == 0; j++) {
        append_payload p = { (int64_t)(w + 1) * 1000 + j, 0 };
        zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;
        o.cleanup = count_cleanup;
        o.num_retries = 200;
        o.min_wait_ms = 2;
        o.max_wait_ms = 100;
        rc = zb_catalog_commit_retry(cat, &ctx, "db.t", build_append, &p, &o,
                                     NULL);
        attempts += o.attempts;
        cleanups += p.cleanups;
        if (rc != 0)
            fprintf(stderr, "writer %d: %s: %s\n", w, zb_rc_name(rc),
                    ctx.err.msg);
    }
    zb_catalog_free(cat);
    fprintf(stderr, "  writer %d: %d commits in %d attempts\n", w, j, attempts);
    /* Every lost attempt, and only those, was cleaned up. */
    if (rc == 0 && cleanups != attempts - COMMITS_EACH) {
        fprintf(stderr, "writer %d: %d cleanups for %d lost attempts\n", w,
                cleanups, attempts - COMMITS_EACH);
        rc = 1;
    }
    return rc == 0 ? 0 : 1;
}

static void concurrent(cat_env *e)
{
    zb_table *t = NULL;
    const ice_snapshot *chain[WRITERS * COMMITS_EACH + 1];
    pid_t pids[WRITERS];
    int w, j, status, failed = 0;
    size_t n;

    t = create_table(e, "db.t");
    zb_table_free(t);
    t = NULL;
    fflush(NULL);
    for (w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        ZBT_CHECK(pids[w] >= 0);
        if (pids[w] == 0)
            _exit(writer(e, w));
    }
    for (w = 0; w < WRITERS; w++) {
        ZBT_CHECK(waitpid(pids[w], &status, 0) == pids[w]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    ZBT_EQ_INT(failed, 0);
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &t), &e->ctx);
    /* Every append is in main's history, once. */
    n = ice_metadata_ancestors(chain, WRITERS * COMMITS_EACH + 1, t->meta,
                               t->meta->current_snapshot_id);
    ZBT_EQ_INT(n, WRITERS * COMMITS_EACH);
    ZBT_EQ_INT(t->meta->n_snapshots, WRITERS * COMMITS_EACH);
    ZBT_EQ_INT(t->meta->last_sequence_number, WRITERS * COMMITS_EACH);
    for (w = 0; w < WRITERS; w++)
        for (j = 0; j < COMMITS_EACH; j++)
            ZBT_CHECK(ice_metadata_snapshot(t->meta,
                                            (int64_t)(w + 1) * 1000 + j));
    zb_table_free(t);
}

static void corrupt_metadata(cat_env *e)
{
    zb_table *t = NULL, *t2 = NULL;
    FILE *f;

    t = create_table(e, "db.t");
    f = fopen(t->metadata_location, "r+");
    ZBT_CHECK(f != NULL);
    ZBT_CHECK(ftruncate(fileno(f), 40) == 0);
    fclose(f);
    ZBT_RC(zb_catalog_load_table(e->cat, &e->ctx, "db.t", &t2), ZB_ECORRUPT);
    ZBT_CONTAINS(e->ctx.err.msg, "catalog test");
    ZBT_CONTAINS(e->ctx.err.msg, "table db.t");
    ZBT_CONTAINS(e->ctx.err.msg, "00000-");
    zb_table_free(t);
}

static void run(zb_catalog_kind kind, void (*body)(cat_env *))
{
    cat_env e;

    if (!cat_env_open(&e, kind))
        return;
    body(&e);
    cat_env_close(&e);
}

#define BOTH(body)                                                          \
    static void test_catalog_sql__##body##_sqlite(void)                     \
    {                                                                       \
        run(ZB_CATALOG_SQLITE, body);                                       \
    }                                                                       \
    static void test_catalog_sql__##body##_pg(void)                         \
    {                                                                       \
        run(ZB_CATALOG_POSTGRES, body);                                     \
    }
/* The cases whose contract is the catalog interface's, not the SQL
 * catalog's own, also run on the REST test server. */
#define ALL(body)                                                           \
    BOTH(body)                                                              \
    static void test_catalog_sql__##body##_rest(void)                       \
    {                                                                       \
        run(ZB_CATALOG_REST, body);                                         \
    }

BOTH(basics)
ALL(registering)
ALL(committing)
ALL(conflicting)
BOTH(clock_rule)
BOTH(pruning)
ALL(concurrent)
BOTH(corrupt_metadata)

/* ---- configuration errors (no server needed) ---- */

static void open_fails(zb_catalog_config *cfg, int want, const char *needle)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *c = NULL;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    ZBT_RC(zb_catalog_open(&c, &ctx, io, cfg), want);
    ZBT_CHECK(c == NULL);
    ZBT_CONTAINS(ctx.err.msg, needle);
    zb_io_free(io);
}

static void test_catalog_sql__bad_configuration(void)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    char path[700];

    cfg.kind = ZB_CATALOG_POSTGRES;
    cfg.name = "pgcat";
    cfg.pg_write_url = "host=127.0.0.1 port";
    open_fails(&cfg, ZB_EUSAGE, "catalog pgcat (postgres): bad PostgreSQL "
                                "write URL");
    cfg.pg_write_url = "postgresql://postgres@127.0.0.1:1/postgres";
    open_fails(&cfg, ZB_EIO, "catalog pgcat (postgres): connecting to "
                             "PostgreSQL (write URL, host 127.0.0.1, port 1)");
    cfg.pg_write_url = NULL;
    open_fails(&cfg, ZB_EUSAGE, "no PostgreSQL write URL");

    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = "lite";
    snprintf(path, sizeof(path), "%s/no/such/dir/catalog.db", zbt_tmpdir());
    cfg.sqlite_path = path;
    open_fails(&cfg, ZB_EIO, "catalog lite (sqlite): opening SQLite database");
    cfg.sqlite_path = NULL;
    open_fails(&cfg, ZB_EUSAGE, "no SQLite database file");
}

/* Tables in one warehouse are not seen from another. */
static void test_catalog_sql__warehouses_apart(void)
{
    cat_env e;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *other = NULL;
    zb_table *t = NULL;
    strs s;

    if (!cat_env_open(&e, ZB_CATALOG_SQLITE))
        return;
    zb_table_free(create_table(&e, "db.t"));
    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = "other";
    cfg.sqlite_path = e.db_path;
    ZBT_OK_CTX(zb_catalog_open(&other, &e.ctx, e.io, &cfg), &e.ctx);
    ZBT_RC(zb_catalog_load_table(other, &e.ctx, "db.t", &t), ZB_ENOTFOUND);
    ZBT_CONTAINS(e.ctx.err.msg, "warehouse other");
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_warehouses(other, &e.ctx, collect, &s), &e.ctx);
    ZBT_CHECK(has(&s, e.warehouse));
    zb_catalog_free(other);
    cat_env_close(&e);
}

/*
 * A database as PyIceberg's SqlCatalog makes it (no iceberg_type column),
 * with a table it registered and a namespace it created: found, listed,
 * committed, and the row keeps the previous location.
 */
static void test_catalog_sql__pyiceberg_database(void)
{
    const char *dir = zbt_tmpdir();
    char db_path[700], fx[1024], sql[2048], prev[1024] = "";
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *c = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_table *t = NULL, *t2 = NULL;
    json_t *u = NULL;
    strs s;

    snprintf(db_path, sizeof(db_path), "%s/pyiceberg.db", dir);
    snprintf(fx, sizeof(fx), "%s/table", dir);
    {
        char cmd[2200];
        snprintf(cmd, sizeof(cmd), "cp -R '%s/impala-v2-eq-delete' '%s'",
                 ZB_FIXTURES_DIR, fx);
        ZBT_CHECK(system(cmd) == 0);
    }
    ZBT_CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
    snprintf(sql, sizeof(sql),
             "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, "
             "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) "
             "NOT NULL, metadata_location VARCHAR(1000), "
             "previous_metadata_location VARCHAR(1000), PRIMARY KEY "
             "(catalog_name, table_namespace, table_name));"
             "CREATE TABLE iceberg_namespace_properties (catalog_name "
             "VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL, "
             "property_key VARCHAR(255) NOT NULL, property_value "
             "VARCHAR(1000) NOT NULL, PRIMARY KEY (catalog_name, namespace, "
             "property_key));"
             "INSERT INTO iceberg_namespace_properties VALUES "
             "('default', 'empty_ns', 'exists', 'true');"
             "INSERT INTO iceberg_tables VALUES ('default', 'db', 'events', "
             "'%s/metadata/v4.metadata.json', NULL);", fx);
    ZBT_CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = "default";
    cfg.sqlite_path = db_path;
    ZBT_OK_CTX(zb_catalog_open(&c, &ctx, io, &cfg), &ctx);
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_namespaces(c, &ctx, NULL, collect, &s), &ctx);
    ZBT_EQ_INT(s.n, 2);
    ZBT_EQ_STR(s.items[0], "db");
    ZBT_EQ_STR(s.items[1], "empty_ns");
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_catalog_list_tables(c, &ctx, NULL, collect, &s), &ctx);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.items[0], "db.events");
    ZBT_OK_CTX(zb_catalog_load_table(c, &ctx, "db.events", &t), &ctx);
    ZBT_CONTAINS(t->metadata_location, "v4.metadata.json");
    /* The fixture's location is not where it lies: remaps are the
     * caller's business in a SQL catalog, so new metadata goes to a
     * folder of its own via write.metadata.path. */
    {
        char mdir[1100];
        ice_kv kv = { "write.metadata.path", mdir };
        snprintf(mdir, sizeof(mdir), "%s/metadata", fx);
        u = json_array();
        json_array_append_new(u, (json_t *)ice_update_set_properties(&kv, 1));
    }
    ZBT_OK_CTX(zb_catalog_commit(c, &ctx, t, NULL, (const zb_json *)u, &t2),
               &ctx);
    json_decref(u);
    ZBT_CONTAINS(t2->metadata_location, fx);
    ZBT_CONTAINS(t2->metadata_location, "/metadata/00005-");
    ZBT_CHECK(sqlite3_prepare_v2(db, "SELECT metadata_location, "
                                 "previous_metadata_location FROM "
                                 "iceberg_tables", -1, &st, NULL) == SQLITE_OK);
    ZBT_CHECK(sqlite3_step(st) == SQLITE_ROW);
    ZBT_EQ_STR((const char *)sqlite3_column_text(st, 0), t2->metadata_location);
    snprintf(prev, sizeof(prev), "%s", (const char *)sqlite3_column_text(st, 1));
    ZBT_EQ_STR(prev, t->metadata_location);
    sqlite3_finalize(st);
    sqlite3_close(db);
    zb_table_free(t);
    zb_table_free(t2);
    zb_catalog_free(c);
    zb_io_free(io);
}

const zbt_case test_catalog_sql[] = {
    ZBT_CASE(test_catalog_sql__basics_sqlite),
    ZBT_CASE(test_catalog_sql__basics_pg),
    ZBT_CASE(test_catalog_sql__registering_sqlite),
    ZBT_CASE(test_catalog_sql__registering_pg),
    ZBT_CASE(test_catalog_sql__registering_rest),
    ZBT_CASE(test_catalog_sql__committing_sqlite),
    ZBT_CASE(test_catalog_sql__committing_pg),
    ZBT_CASE(test_catalog_sql__committing_rest),
    ZBT_CASE(test_catalog_sql__conflicting_sqlite),
    ZBT_CASE(test_catalog_sql__conflicting_pg),
    ZBT_CASE(test_catalog_sql__conflicting_rest),
    ZBT_CASE(test_catalog_sql__clock_rule_sqlite),
    ZBT_CASE(test_catalog_sql__clock_rule_pg),
    ZBT_CASE(test_catalog_sql__pruning_sqlite),
    ZBT_CASE(test_catalog_sql__pruning_pg),
    ZBT_CASE(test_catalog_sql__concurrent_sqlite),
    ZBT_CASE(test_catalog_sql__concurrent_pg),
    ZBT_CASE(test_catalog_sql__concurrent_rest),
    ZBT_CASE(test_catalog_sql__corrupt_metadata_sqlite),
    ZBT_CASE(test_catalog_sql__corrupt_metadata_pg),
    ZBT_CASE(test_catalog_sql__bad_configuration),
    ZBT_CASE(test_catalog_sql__warehouses_apart),
    ZBT_CASE(test_catalog_sql__pyiceberg_database),
    ZBT_END
};

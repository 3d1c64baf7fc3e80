/*
 * tests/unit/catalog/cat_retry.c - the retry policy (attempts, give-up,
 * validation conflicts that must not retry, builder errors, the cleanup
 * hook), allocation failures while loading (each one ZB_ENOMEM, nothing
 * leaked), and PostgreSQL connections that the server closes.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cat_test.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"

#ifdef ZB_TEST_HAVE_LIBPQ
#include <libpq-fe.h>
#endif
#ifdef ZB_TEST_HAVE_REST_SERVER
#include "rest_server.h"
#endif

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

typedef struct retry_payload {
    int builds;
    int cleanups;
    int mode;            /* 0 bad uuid, 1 validation conflict, 2 error,
                            3 conflict once then fine */
} retry_payload;

static int build(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                 const zb_table *t, void *payload)
{
    retry_payload *p = payload;
    const char *uuid = "00000000-0000-0000-0000-000000000000";
    json_t *q;

    p->builds++;
    if (p->mode == 1)
        return zb_err__set(&ctx->err, ZB_ECONFLICT, ICE_COMMIT_VALIDATE_MODULE,
                           "file x is no longer live");
    if (p->mode == 2)
        return zb_err__set(&ctx->err, ZB_EIO, "test", "writing failed");
    if (p->mode == 3 && p->builds > 1)
        uuid = t->meta->table_uuid;
    q = json_array();
    json_array_append_new(q, (json_t *)ice_requirement_table_uuid(uuid));
    *reqs = (zb_json *)q;
    *updates = (zb_json *)cat_set_property("built", "yes");
    return 0;
}

static void cleanup(zb_ctx *ctx, const zb_table *t, void *payload)
{
    retry_payload *p = payload;

    (void)ctx;
    (void)t;
    p->cleanups++;
}

static void test_catalog_retry__policy(void)
{
    cat_env e;
    zb_table *t = NULL;
    ice_metadata *first = NULL;
    retry_payload p;
    zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;
    int64_t t0;

    if (!cat_env_open(&e, ZB_CATALOG_SQLITE))
        return;
    first = cat_first_metadata(&e, "/unused");
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, "db.t", NULL, first,
                                       NULL), &e.ctx);
    ice_metadata_free(first);
    o.cleanup = cleanup;
    o.min_wait_ms = 20;
    o.max_wait_ms = 30;

    /* A requirement that never holds: 1 + num_retries attempts, waits
     * between them, each attempt cleaned up. */
    memset(&p, 0, sizeof(p));
    o.num_retries = 2;
    t0 = cat_now_ms();
    ZBT_RC(zb_catalog_commit_retry(e.cat, &e.ctx, "db.t", build, &p, &o, &t),
           ZB_ECONFLICT);
    ZBT_CHECK(cat_now_ms() - t0 >= 18 + 27);   /* waits less jitter */
    ZBT_EQ_INT(o.attempts, 3);
    ZBT_EQ_INT(p.builds, 3);
    ZBT_EQ_INT(p.cleanups, 3);
    ZBT_CONTAINS(e.ctx.err.msg, "gave up after 3 attempts");
    ZBT_CHECK(t == NULL);

    /* A validation conflict is not retried. */
    memset(&p, 0, sizeof(p));
    p.mode = 1;
    ZBT_RC(zb_catalog_commit_retry(e.cat, &e.ctx, "db.t", build, &p, &o, &t),
           ZB_ECONFLICT);
    ZBT_EQ_INT(o.attempts, 1);
    ZBT_EQ_INT(p.cleanups, 1);
    ZBT_CONTAINS(e.ctx.err.msg, "no longer live");

    /* Nor is a builder's error. */
    memset(&p, 0, sizeof(p));
    p.mode = 2;
    ZBT_RC(zb_catalog_commit_retry(e.cat, &e.ctx, "db.t", build, &p, &o, &t),
           ZB_EIO);
    ZBT_EQ_INT(o.attempts, 1);

    /* A conflict, then success on the reloaded table. */
    memset(&p, 0, sizeof(p));
    p.mode = 3;
    ZBT_OK_CTX(zb_catalog_commit_retry(e.cat, &e.ctx, "db.t", build, &p, &o,
                                       &t), &e.ctx);
    ZBT_EQ_INT(o.attempts, 2);
    ZBT_EQ_INT(p.cleanups, 1);
    ZBT_EQ_STR(ice_metadata_property(t->meta, "built"), "yes");
    zb_table_free(t);
    t = NULL;

    /* A missing table stops at the load. */
    ZBT_RC(zb_catalog_commit_retry(e.cat, &e.ctx, "db.none", build, &p, NULL,
                                   NULL), ZB_ENOTFOUND);
    cat_env_close(&e);
}

/*
 * An unknown outcome (the REST server applies the commit, then answers
 * 504): the policy stops at once, reports it, and cleans nothing up; the
 * commit did land. The server runs in this process for its fault hook;
 * no case forks after this suite's start.
 */
static void test_catalog_retry__unknown_outcome_stops(void)
{
#ifdef ZB_TEST_HAVE_REST_SERVER
    rest_server *srv = NULL;
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *c = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;
    zb_table *t = NULL;
    ice_metadata *first = NULL;
    retry_payload p;
    char root[700];

    zb_ctx_init(&ctx);
    snprintf(root, sizeof(root), "%s/rest", zbt_tmpdir());
    ZBT_CHECK(rest_server_start(&srv, root, NULL) == 0);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    cfg.kind = ZB_CATALOG_REST;
    cfg.name = "rt";
    cfg.uri = rest_server_uri(srv);
    cfg.max_retries = 0;
    ZBT_OK_CTX(zb_catalog_open(&c, &ctx, io, &cfg), &ctx);
    ZBT_OK_CTX(zb_catalog_create_namespace(c, &ctx, "db"), &ctx);
    {
        cat_env tmp;
        memset(&tmp, 0, sizeof(tmp));
        zb_ctx_init(&tmp.ctx);
        first = cat_first_metadata(&tmp, "/unused");
    }
    ZBT_OK_CTX(zb_catalog_create_table(c, &ctx, "db.t", NULL, first, NULL),
               &ctx);
    ice_metadata_free(first);
    memset(&p, 0, sizeof(p));
    p.mode = 3;                      /* fine from the second build on */
    p.builds = 1;
    o.cleanup = cleanup;
    rest_server_fault(srv, RS_FAULT_504_AFTER, 1, 0, "POST", "/tables/t");
    ZBT_RC(zb_catalog_commit_retry(c, &ctx, "db.t", build, &p, &o, &t),
           ZB_ETIMEOUT);
    ZBT_CHECK(t == NULL);
    ZBT_EQ_INT(o.attempts, 1);
    ZBT_EQ_INT(p.cleanups, 0);
    ZBT_CONTAINS(ctx.err.msg, "outcome unknown");
    ZBT_OK_CTX(zb_catalog_load_table(c, &ctx, "db.t", &t), &ctx);
    ZBT_EQ_STR(ice_metadata_property(t->meta, "built"), "yes");
    zb_table_free(t);
    zb_catalog_free(c);
    zb_io_free(io);
    rest_server_stop(srv);
#else
    printf("  (skipped: no REST test server) ");
#endif
}

/* Each allocation of a load, failed in turn: ZB_ENOMEM, nothing held. */
static void test_catalog_retry__load_allocation_failures(void)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *c = NULL;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    char folder[1024];
    uint64_t n, base;
    int done = 0;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_io_new(&io, &ctx), &ctx);
    cfg.kind = ZB_CATALOG_PATH;
    snprintf(folder, sizeof(folder), "%s/impala-v2-pos-delete",
             ZB_FIXTURES_DIR);
    base = zb_alloc_live_bytes();
    for (n = 1; !done && n < 20000; n++) {
        zb_table *t = NULL;
        int rc;

        zb_alloc__fail_at(n, 1);
        rc = zb_catalog_open(&c, &ctx, io, &cfg);
        if (rc == ZB_OK)
            rc = zb_catalog_load_table(c, &ctx, folder, &t);
        done = zb_alloc__fail_at(0, 0) == 0;
        if (done)
            ZBT_OK_CTX(rc, &ctx);
        else {
            if (rc != ZB_ENOMEM)
                zbt__fail(__FILE__, __LINE__, "allocation %llu: %s (%s)",
                          (unsigned long long)n, zb_rc_name(rc), ctx.err.msg);
            ZBT_CHECK(t == NULL);
        }
        zb_table_free(t);
        zb_catalog_free(c);
        c = NULL;
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
    zb_io_free(io);
}

/* Each allocation of a commit, failed in turn: ZB_ENOMEM and the table
 * as it was (same pointer, no stray metadata file), or committed. */
static void commit_torture(zb_catalog_kind kind)
{
    cat_env e;
    zb_table *t = NULL;
    ice_metadata *first = NULL;
    char dir[1024], folder[1024];
    uint64_t n, base;
    int done = 0;

    if (kind == ZB_CATALOG_PATH) {
        zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
        memset(&e, 0, sizeof(e));
        zb_ctx_init(&e.ctx);
        ZBT_OK_CTX(zb_io_new(&e.io, &e.ctx), &e.ctx);
        cfg.kind = ZB_CATALOG_PATH;
        ZBT_OK_CTX(zb_catalog_open(&e.cat, &e.ctx, e.io, &cfg), &e.ctx);
        snprintf(folder, sizeof(folder), "%s/t", zbt_tmpdir());
        first = cat_first_metadata(&e, folder);
        ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, folder, NULL, first,
                                           &t), &e.ctx);
    } else {
        if (!cat_env_open(&e, kind))
            return;
        first = cat_first_metadata(&e, "/unused");
        ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, "db.t", NULL, first,
                                           &t), &e.ctx);
        snprintf(folder, sizeof(folder), "db.t");
    }
    ice_metadata_free(first);
    snprintf(dir, sizeof(dir), "%s/metadata", t->root);
    base = zb_alloc_live_bytes();
    for (n = 1; !done && n < 20000; n++) {
        zb_table *t2 = NULL, *now = NULL;
        json_t *u = cat_set_property("torture", "1");
        int rc;

        zb_alloc__fail_at(n, 1);
        rc = zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u, &t2);
        done = zb_alloc__fail_at(0, 0) == 0;
        json_decref(u);
        if (done || rc == ZB_OK) {
            /* Committed; failures after the swap (the advisory version
             * hint, pruning) are not the commit's. */
            ZBT_OK_CTX(rc, &e.ctx);
            ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 2);
            ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &now),
                       &e.ctx);
            ZBT_EQ_STR(now->metadata_location, t2->metadata_location);
            zb_table_free(now);
            done = 1;
        } else {
            if (rc != ZB_ENOMEM)
                zbt__fail(__FILE__, __LINE__, "allocation %llu: %s (%s)",
                          (unsigned long long)n, zb_rc_name(rc), e.ctx.err.msg);
            ZBT_CHECK(t2 == NULL);
            ZBT_EQ_INT(cat_count_files(dir, ".metadata.json"), 1);
            ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, folder, &now),
                       &e.ctx);
            ZBT_EQ_STR(now->metadata_location, t->metadata_location);
            zb_table_free(now);
        }
        zb_table_free(t2);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
    zb_table_free(t);
    cat_env_close(&e);
}

static void test_catalog_retry__commit_allocation_failures_sqlite(void)
{
    commit_torture(ZB_CATALOG_SQLITE);
}

static void test_catalog_retry__commit_allocation_failures_path(void)
{
    commit_torture(ZB_CATALOG_PATH);
}

/* Threads sharing one catalog handle (pools of 2 for 4 threads): loads
 * and commits through the retry policy; every commit lands. */
#define THREADS 4
#define THREAD_COMMITS 5

typedef struct thread_arg {
    zb_catalog *cat;
    int index;
    int rc;
    char msg[256];
} thread_arg;

static int build_thread_append(zb_json **reqs, zb_json **updates,
                               zb_ctx *ctx, const zb_table *t, void *payload)
{
    json_t *q = NULL, *u = NULL;

    (void)ctx;
    cat_fake_append(&q, &u, t, *(int64_t *)payload, cat_now_ms());
    *reqs = (zb_json *)q;
    *updates = (zb_json *)u;
    return 0;
}

static void *thread_main(void *p)
{
    thread_arg *a = p;
    zb_ctx ctx;
    int j;

    zb_ctx_init(&ctx);
    for (j = 0; j < THREAD_COMMITS && a->rc == 0; j++) {
        zb_table *t = NULL;
        int64_t id = (int64_t)(a->index + 1) * 100 + j;
        zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;

        o.num_retries = 200;
        o.min_wait_ms = 1;
        o.max_wait_ms = 50;
        a->rc = zb_catalog_load_table(a->cat, &ctx, "db.t", &t);
        zb_table_free(t);
        if (a->rc == 0)
            a->rc = zb_catalog_commit_retry(a->cat, &ctx, "db.t",
                                            build_thread_append, &id, &o,
                                            NULL);
    }
    snprintf(a->msg, sizeof(a->msg), "%s", ctx.err.msg);
    return NULL;
}

static void threads_share(zb_catalog_kind kind)
{
    cat_env e;
    ice_metadata *first = NULL;
    zb_table *t = NULL;
    pthread_t th[THREADS];
    thread_arg args[THREADS];
    int i;

    if (!cat_env_open(&e, kind))
        return;
    first = cat_first_metadata(&e, "/unused");
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, "db.t", NULL, first,
                                       NULL), &e.ctx);
    ice_metadata_free(first);
    for (i = 0; i < THREADS; i++) {
        memset(&args[i], 0, sizeof(args[i]));
        args[i].cat = e.cat;
        args[i].index = i;
        ZBT_CHECK(pthread_create(&th[i], NULL, thread_main, &args[i]) == 0);
    }
    for (i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < THREADS; i++)
        if (args[i].rc != 0)
            zbt__fail(__FILE__, __LINE__, "thread %d: %s: %s", i,
                      zb_rc_name(args[i].rc), args[i].msg);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, "db.t", &t), &e.ctx);
    ZBT_EQ_INT(t->meta->n_snapshots, THREADS * THREAD_COMMITS);
    ZBT_EQ_INT(ice_metadata_ancestors(NULL, 0, t->meta,
                                      t->meta->current_snapshot_id),
               THREADS * THREAD_COMMITS);
    zb_table_free(t);
    cat_env_close(&e);
}

static void test_catalog_retry__threads_share_handle_sqlite(void)
{
    threads_share(ZB_CATALOG_SQLITE);
}

static void test_catalog_retry__threads_share_handle_pg(void)
{
    threads_share(ZB_CATALOG_POSTGRES);
}

/* The server closes the pooled connections: reads and writes reconnect. */
static void test_catalog_retry__pg_reconnects(void)
{
#ifdef ZB_TEST_HAVE_LIBPQ
    cat_env e;
    zb_table *t = NULL, *t2 = NULL;
    ice_metadata *first = NULL;
    json_t *u = NULL;
    PGconn *admin;
    PGresult *res;

    if (!cat_env_open(&e, ZB_CATALOG_POSTGRES))
        return;
    first = cat_first_metadata(&e, "/unused");
    ZBT_OK_CTX(zb_catalog_create_table(e.cat, &e.ctx, "db.t", NULL, first,
                                       NULL), &e.ctx);
    ice_metadata_free(first);
    admin = PQconnectdb(cat_pg_url());
    ZBT_CHECK(PQstatus(admin) == CONNECTION_OK);
    res = PQexec(admin, "SELECT pg_terminate_backend(pid) FROM "
                        "pg_stat_activity WHERE application_name = 'zamboni' "
                        "AND pid <> pg_backend_pid()");
    ZBT_CHECK(PQresultStatus(res) == PGRES_TUPLES_OK);
    ZBT_CHECK(PQntuples(res) >= 1);
    PQclear(res);
    PQfinish(admin);
    /* A write finds its pooled connection dead before sending: a new one
     * carries it, and the outcome is known. */
    ZBT_OK_CTX(zb_catalog_create_namespace(e.cat, &e.ctx, "after"), &e.ctx);
    ZBT_OK_CTX(zb_catalog_load_table(e.cat, &e.ctx, "db.t", &t), &e.ctx);
    u = cat_set_property("after", "restart");
    ZBT_OK_CTX(zb_catalog_commit(e.cat, &e.ctx, t, NULL, (const zb_json *)u,
                                 &t2), &e.ctx);
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "after"), "restart");
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    cat_env_close(&e);
#else
    printf("  (skipped: built without libpq) ");
#endif
}

/*
 * Reads go to the read URL, commits (and the reads they depend on) to
 * the write URL: a read URL whose role may not read the catalog fails
 * loads and listings, while creating and committing work; a role that
 * may only read fails commits with the server's reason.
 */
static void test_catalog_retry__pg_read_and_write_urls(void)
{
#ifdef ZB_TEST_HAVE_LIBPQ
    cat_env e;
    PGconn *admin;
    PGresult *res;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *split = NULL, *ro = NULL;
    zb_table *t = NULL, *t2 = NULL;
    ice_metadata *first = NULL;
    json_t *u = NULL;
    char url_noread[512], url_ro[512], loc[700];
    const char *at;

    if (!cat_env_open(&e, ZB_CATALOG_POSTGRES))
        return;
    admin = PQconnectdb(cat_pg_url());
    ZBT_CHECK(PQstatus(admin) == CONNECTION_OK);
    res = PQexec(admin,
                 "DO $$ BEGIN "
                 "IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                 "'zb_noread') THEN CREATE ROLE zb_noread LOGIN; END IF; "
                 "IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                 "'zb_ro') THEN CREATE ROLE zb_ro LOGIN; END IF; END $$; "
                 "GRANT SELECT ON iceberg_tables, iceberg_namespace_properties "
                 "TO zb_ro");
    ZBT_CHECK(PQresultStatus(res) == PGRES_COMMAND_OK);
    PQclear(res);
    PQfinish(admin);
    /* The test URL is postgresql://postgres@host:port/db. */
    at = strchr(cat_pg_url(), '@');
    ZBT_CHECK(at != NULL);
    snprintf(url_noread, sizeof(url_noread), "postgresql://zb_noread%s", at);
    snprintf(url_ro, sizeof(url_ro), "postgresql://zb_ro%s", at);
    snprintf(loc, sizeof(loc), "%s/wh", e.dir);

    cfg.kind = ZB_CATALOG_POSTGRES;
    cfg.name = "split";
    cfg.warehouse = e.warehouse;
    cfg.pg_write_url = cat_pg_url();
    cfg.pg_read_url = url_noread;
    cfg.warehouse_location = loc;
    ZBT_OK_CTX(zb_catalog_open(&split, &e.ctx, e.io, &cfg), &e.ctx);
    ZBT_OK_CTX(zb_catalog_create_namespace(split, &e.ctx, "db"), &e.ctx);
    first = cat_first_metadata(&e, "/unused");
    ZBT_OK_CTX(zb_catalog_create_table(split, &e.ctx, "db.t", NULL, first,
                                       &t), &e.ctx);
    ice_metadata_free(first);
    u = cat_set_property("via", "write-url");
    ZBT_OK_CTX(zb_catalog_commit(split, &e.ctx, t, NULL, (const zb_json *)u,
                                 &t2), &e.ctx);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_RC(zb_catalog_load_table(split, &e.ctx, "db.t", &t2), ZB_EIO);
    ZBT_CONTAINS(e.ctx.err.msg, "catalog split (postgres)");
    ZBT_CONTAINS(e.ctx.err.msg, "read URL");
    ZBT_CONTAINS(e.ctx.err.msg, "permission denied");

    /* A role that may only read: loads work, commits fail, named. */
    cfg.name = "readonly";
    cfg.pg_write_url = url_ro;
    cfg.pg_read_url = url_ro;
    ZBT_OK_CTX(zb_catalog_open(&ro, &e.ctx, e.io, &cfg), &e.ctx);
    zb_table_free(t2);
    t2 = NULL;
    ZBT_OK_CTX(zb_catalog_load_table(ro, &e.ctx, "db.t", &t2), &e.ctx);
    ZBT_EQ_STR(ice_metadata_property(t2->meta, "via"), "write-url");
    ZBT_RC(zb_catalog_commit(ro, &e.ctx, t2, NULL, (const zb_json *)u, NULL),
           ZB_EIO);
    ZBT_CONTAINS(e.ctx.err.msg, "catalog readonly (postgres): table db.t");
    ZBT_CONTAINS(e.ctx.err.msg, "permission denied");
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    zb_catalog_free(split);
    zb_catalog_free(ro);
    cat_env_close(&e);
#else
    printf("  (skipped: built without libpq) ");
#endif
}

const zbt_case test_catalog_retry[] = {
    ZBT_CASE(test_catalog_retry__policy),
    ZBT_CASE(test_catalog_retry__unknown_outcome_stops),
    ZBT_CASE(test_catalog_retry__load_allocation_failures),
    ZBT_CASE(test_catalog_retry__commit_allocation_failures_sqlite),
    ZBT_CASE(test_catalog_retry__commit_allocation_failures_path),
    ZBT_CASE(test_catalog_retry__threads_share_handle_sqlite),
    ZBT_CASE(test_catalog_retry__threads_share_handle_pg),
    ZBT_CASE(test_catalog_retry__pg_reconnects),
    ZBT_CASE(test_catalog_retry__pg_read_and_write_urls),
    ZBT_END
};

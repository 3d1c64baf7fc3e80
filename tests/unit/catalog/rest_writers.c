/*
 * tests/unit/catalog/rest_writers.c - several processes appending to one
 * table through the REST catalog at once, each with its own catalog
 * handle and the commit retry policy (catalog/catalog_retry.h): every
 * append must be in main's history exactly once, each lost attempt a
 * 409 the writer retried. The snapshots are fake (their manifest lists
 * are not written): the catalog's part is the history.
 *
 * The writers are fresh processes (this executable spawned again with
 * ZB_TEST_REST_WRITER set), not plain fork()s: the server's threads run
 * in the parent, and a child forked while one of them holds an allocator
 * lock (ASan's allocator has no fork handler) hangs in its first malloc.
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog_retry.h"
#include "rest_server.h"
#include "table/commit/commit.h"
#include "zbtest.h"

#define WRITERS 4
#define COMMITS_EACH 6

typedef struct append_payload {
    int64_t snapshot_id;
} append_payload;

/* add-snapshot + set-snapshot-ref main, asserting main's snapshot. */
static int build_append(zb_json **reqs_out, zb_json **updates_out,
                        zb_ctx *ctx, const zb_table *t, void *payload)
{
    const append_payload *p = payload;
    const ice_metadata *m = t->meta;
    char list[1024];
    json_t *snap, *reqs_arr, *updates_arr;
    json_t **reqs = &reqs_arr, **updates = &updates_arr;

    (void)ctx;
    snprintf(list, sizeof(list), "%s/metadata/snap-%lld-fake.avro", t->root,
             (long long)p->snapshot_id);
    snap = json_pack("{s:I,s:I,s:I,s:s,s:{s:s},s:i}", "snapshot-id",
                     (json_int_t)p->snapshot_id, "sequence-number",
                     (json_int_t)(m->last_sequence_number + 1),
                     "timestamp-ms", (json_int_t)t->meta->last_updated_ms + 1,
                     "manifest-list", list, "summary", "operation", "append",
                     "schema-id", 0);
    if (m->current_snapshot_id != ICE_NO_SNAPSHOT)
        json_object_set_new(snap, "parent-snapshot-id",
                            json_integer(m->current_snapshot_id));
    *updates = json_pack("[{s:s,s:o},{s:s,s:s,s:s,s:I}]", "action",
                         "add-snapshot", "snapshot", snap, "action",
                         "set-snapshot-ref", "ref-name", "main", "type",
                         "branch", "snapshot-id",
                         (json_int_t)p->snapshot_id);
    *reqs = json_array();
    *reqs_out = (zb_json *)*reqs;
    *updates_out = (zb_json *)*updates;
    if (!*updates || !*reqs)
        return ZB_ENOMEM;
    json_array_append_new(*reqs, (json_t *)ice_requirement_ref_snapshot_id(
                                     "main", m->current_snapshot_id));
    return ZB_OK;
}

static int writer(zb_io *io, const char *uri, int w)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *cat = NULL;
    zb_ctx ctx;
    int j, rc, attempts = 0;

    zb_ctx_init(&ctx);
    cfg.kind = ZB_CATALOG_REST;
    cfg.name = "rt";
    cfg.uri = uri;
    cfg.timeout_ms = 10000;
    if ((rc = zb_catalog_open(&cat, &ctx, io, &cfg)) < 0) {
        fprintf(stderr, "writer %d: %s\n", w, ctx.err.msg);
        return 1;
    }
    for (j = 0; j < COMMITS_EACH && rc == 0; j++) {
        append_payload p = { (int64_t)(w + 1) * 1000 + j };
        zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;
        o.num_retries = 200;
        o.min_wait_ms = 2;
        o.max_wait_ms = 50;
        rc = zb_catalog_commit_retry(cat, &ctx, "db.t", build_append, &p, &o,
                                     NULL);
        attempts += o.attempts;
        if (rc != 0)
            fprintf(stderr, "writer %d: %s: %s\n", w, zb_rc_name(rc),
                    ctx.err.msg);
    }
    zb_catalog_free(cat);
    fprintf(stderr, "  writer %d: %d commits in %d attempts\n", w, j,
            attempts);
    return rc == 0 ? 0 : 1;
}

int rest_writer_main(const char *spec)
{
    char uri[256];
    int w, rc;
    zb_io *io = NULL;
    zb_ctx ctx;

    if (sscanf(spec, "%d %255s", &w, uri) != 2) {
        fprintf(stderr, "ZB_TEST_REST_WRITER: want \"N URI\", got %s\n", spec);
        return 2;
    }
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0) {
        fprintf(stderr, "writer %d: %s\n", w, ctx.err.msg);
        return 1;
    }
    rc = writer(io, uri, w);
    zb_io_free(io);
    return rc;
}

extern char **environ;

/* This executable again, as writer w of the server at uri. */
static pid_t spawn_writer(const char *uri, int w)
{
    char var[320], *argv[] = { "test_catalog_rest (writer)", NULL };
    char **env;
    size_t n = 0, i;
    pid_t pid;

    snprintf(var, sizeof(var), "ZB_TEST_REST_WRITER=%d %s", w, uri);
    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof(*env));
    if (!env)
        return -1;
    for (i = 0; i < n; i++)
        env[i] = environ[i];
    env[n] = var;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, env) != 0)
        pid = -1;
    free(env);
    return pid;
}

/* Waits for every writer, at most deadline_s in all; a writer still
 * running then is killed and counted as failed (a hang fails the case
 * instead of the test's timeout). */
static int wait_writers(pid_t *pids, int n, int deadline_s)
{
    int failed = 0, left = n, w, status;
    time_t end = time(NULL) + deadline_s;

    while (left > 0 && time(NULL) < end) {
        for (w = 0; w < n; w++) {
            if (pids[w] <= 0 || waitpid(pids[w], &status, WNOHANG) != pids[w])
                continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                failed++;
            pids[w] = 0;
            left--;
        }
        rest_sleep_ms(20);
    }
    for (w = 0; w < n; w++) {
        if (pids[w] <= 0)
            continue;
        fprintf(stderr, "writer %d still running after %d s: killed\n", w,
                deadline_s);
        kill(pids[w], SIGKILL);
        waitpid(pids[w], &status, 0);
        failed++;
    }
    return failed;
}

static void test_catalog_rest__concurrent_writers(void)
{
    rest_fixture f;
    zb_table *t = NULL;
    ice_metadata *first = rest_first_metadata("file:///unused");
    const ice_snapshot *chain[WRITERS * COMMITS_EACH + 1];
    pid_t pids[WRITERS];
    int w, j;
    rest_server_stats st;

    rest_fixture_start(&f, NULL, NULL);
    ZBT_OK_CTX(zb_catalog_create_namespace(f.cat, &f.ctx, "db"), &f.ctx);
    ZBT_OK_CTX(zb_catalog_create_table(f.cat, &f.ctx, "db.t", NULL, first,
                                       NULL), &f.ctx);
    ice_metadata_free(first);
    fflush(NULL);
    for (w = 0; w < WRITERS; w++) {
        pids[w] = spawn_writer(rest_server_uri(f.srv), w);
        ZBT_CHECK(pids[w] > 0);
    }
    ZBT_EQ_INT(wait_writers(pids, WRITERS, 120), 0);
    st = rest_server_get_stats(f.srv);
    ZBT_EQ_U64(st.commits, WRITERS * COMMITS_EACH);
    ZBT_OK_CTX(zb_catalog_load_table(f.cat, &f.ctx, "db.t", &t), &f.ctx);
    ZBT_EQ_INT(ice_metadata_ancestors(chain, WRITERS * COMMITS_EACH + 1,
                                      t->meta, t->meta->current_snapshot_id),
               WRITERS * COMMITS_EACH);
    ZBT_EQ_INT(t->meta->n_snapshots, WRITERS * COMMITS_EACH);
    ZBT_EQ_INT(t->meta->last_sequence_number, WRITERS * COMMITS_EACH);
    for (w = 0; w < WRITERS; w++)
        for (j = 0; j < COMMITS_EACH; j++)
            ZBT_CHECK(ice_metadata_snapshot(t->meta,
                                            (int64_t)(w + 1) * 1000 + j));
    zb_table_free(t);
    rest_fixture_stop(&f);
}

const zbt_case test_catalog_rest_writers[] = {
    ZBT_CASE(test_catalog_rest__concurrent_writers),
    ZBT_END
};

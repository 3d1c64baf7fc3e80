/* tests/unit/catalog/cat_test.c - helpers of the catalog suites. */
#include "cat_test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "table/commit/commit.h"

#ifdef ZB_TEST_HAVE_REST_SERVER
#include "rest_server.h"
#endif

static int env_counter;

const char *cat_pg_url(void)
{
    const char *u = getenv("ZB_TEST_PG_URL");

    return u && u[0] ? u : NULL;
}

int64_t cat_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fill_config(cat_env *e, zb_catalog_config *cfg)
{
    static char location[600];

    cfg->kind = e->kind;
    cfg->name = "test";
    cfg->warehouse = e->warehouse;
    cfg->sqlite_path = e->db_path;
    cfg->pg_write_url = cat_pg_url();
    cfg->pg_read_url = cat_pg_url();
    cfg->pg_write_pool = 2;
    cfg->pg_read_pool = 2;
    snprintf(location, sizeof(location), "%s/warehouse", e->dir);
    cfg->warehouse_location = location;
    cfg->uri = e->rest_uri;
}

#ifdef ZB_TEST_HAVE_REST_SERVER
/*
 * The REST test server runs in a process of its own: its threads must not
 * be in the test's process, which forks writers (a child forked while
 * another thread holds an allocator lock deadlocks).
 */
static void start_rest_server(cat_env *e)
{
    int fds[2], life[2];
    ssize_t n;
    pid_t pid;
    char ch;

    /* life: the server reads it until the test process goes away, so a
     * case that fails before cat_env_close leaves no server behind. */
    ZBT_CHECK(pipe(fds) == 0 && pipe(life) == 0);
    fflush(NULL);
    pid = fork();
    ZBT_CHECK(pid >= 0);
    if (pid == 0) {
        rest_server *srv = NULL;
        char root[700];
        const char *uri;

        close(fds[0]);
        close(life[1]);
        snprintf(root, sizeof(root), "%s/rest", e->dir);
        uri = rest_server_start(&srv, root, NULL) == 0 ? rest_server_uri(srv)
                                                       : "";
        if (write(fds[1], uri, strlen(uri) + 1) < 0)
            _exit(1);
        close(fds[1]);
        for (;;) {                   /* until EOF or SIGTERM */
            ssize_t r = read(life[0], &ch, 1);
            if (r == 0 || (r < 0 && errno != EINTR))
                break;
        }
        _exit(0);
    }
    close(fds[1]);
    close(life[0]);
    e->rest_life = life[1];
    n = read(fds[0], e->rest_uri, sizeof(e->rest_uri) - 1);
    close(fds[0]);
    e->rest_pid = pid;
    ZBT_CHECK(n > 1);
    e->rest_uri[n] = '\0';
}
#endif

int cat_env_open(cat_env *e, zb_catalog_kind kind)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    memset(e, 0, sizeof(*e));
    if (kind == ZB_CATALOG_POSTGRES && cat_pg_url() == NULL) {
        printf("  (skipped: no ZB_TEST_PG_URL) ");
        return 0;
    }
    zb_ctx_init(&e->ctx);
    e->kind = kind;
    snprintf(e->dir, sizeof(e->dir), "%s", zbt_tmpdir());
    snprintf(e->warehouse, sizeof(e->warehouse), "w%ld_%d_%lld",
             (long)getpid(), ++env_counter, (long long)cat_now_ms());
    snprintf(e->db_path, sizeof(e->db_path), "%s/catalog.db", e->dir);
    if (kind == ZB_CATALOG_REST) {
#ifdef ZB_TEST_HAVE_REST_SERVER
        start_rest_server(e);
#else
        printf("  (skipped: no REST test server) ");
        return 0;
#endif
    }
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    fill_config(e, &cfg);
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    return 1;
}

void cat_env_reopen(cat_env *e, zb_catalog **out)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    fill_config(e, &cfg);
    ZBT_OK_CTX(zb_catalog_open(out, &e->ctx, e->io, &cfg), &e->ctx);
}

void cat_env_close(cat_env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
    e->cat = NULL;
    e->io = NULL;
    if (e->rest_pid > 0) {
        close(e->rest_life);
        kill(e->rest_pid, SIGTERM);
        waitpid(e->rest_pid, NULL, 0);
        e->rest_pid = 0;
    }
}

ice_metadata *cat_first_metadata(cat_env *e, const char *location)
{
    ice_metadata *m = NULL;
    json_error_t jerr;
    json_t *schema = json_loads(
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"v\",\"required\":false,\"type\":\"string\"}]}",
        0, &jerr);

    ZBT_CHECK(schema != NULL);
    ZBT_OK_CTX(ice_metadata_create(&m, &e->ctx, (const zb_json *)schema, NULL,
                                   NULL, location,
                                   NULL, 0, 2), &e->ctx);
    json_decref(schema);
    return m;
}

void cat_fake_append(json_t **reqs, json_t **updates, const zb_table *t,
                     int64_t snapshot_id, int64_t timestamp_ms)
{
    const ice_metadata *m = t->meta;
    char list[1024];
    json_t *snap;

    snprintf(list, sizeof(list), "%s/metadata/snap-%lld-fake.avro", t->root,
             (long long)snapshot_id);
    snap = json_pack("{s:I, s:I, s:I, s:s, s:{s:s}, s:i}",
                     "snapshot-id", (json_int_t)snapshot_id,
                     "sequence-number", (json_int_t)(m->last_sequence_number + 1),
                     "timestamp-ms", (json_int_t)timestamp_ms,
                     "manifest-list", list,
                     "summary", "operation", "append",
                     "schema-id", 0);
    ZBT_CHECK(snap != NULL);
    if (m->current_snapshot_id != ICE_NO_SNAPSHOT)
        json_object_set_new(snap, "parent-snapshot-id",
                            json_integer(m->current_snapshot_id));
    *updates = json_pack("[{s:s, s:o}, {s:s, s:s, s:s, s:I}]",
                         "action", "add-snapshot", "snapshot", snap,
                         "action", "set-snapshot-ref", "ref-name", "main",
                         "type", "branch", "snapshot-id",
                         (json_int_t)snapshot_id);
    *reqs = json_array();
    ZBT_CHECK(*updates != NULL && *reqs != NULL);
    json_array_append_new(*reqs, (json_t *)ice_requirement_ref_snapshot_id(
                                     "main", m->current_snapshot_id));
}

json_t *cat_set_property(const char *key, const char *value)
{
    ice_kv kv = { key, value };
    json_t *arr = json_array();

    ZBT_CHECK(arr != NULL);
    json_array_append_new(arr, (json_t *)ice_update_set_properties(&kv, 1));
    return arr;
}

size_t cat_count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0, sl = strlen(suffix);

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l >= sl && strcmp(de->d_name + l - sl, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

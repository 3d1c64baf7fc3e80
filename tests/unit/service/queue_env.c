/* tests/unit/service/queue_env.c - the queue suites' database per case. */
#include "queue_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int env_counter;

void q_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

int q_env_open_db(q_env *e, int pg)
{
    zb_sqldb_config cfg = ZB_SQLDB_CONFIG_INIT;
    char path[700];

    memset(e, 0, sizeof(*e));
    zb_ctx_init(&e->ctx);
    e->pg = pg;
    if (pg) {
        const char *u = getenv("ZB_TEST_PG_URL");
        zb_sqldb *admin = NULL;
        char sql[128];

        if (u == NULL || u[0] == '\0') {
            printf("  (skipped: no ZB_TEST_PG_URL) ");
            return 0;
        }
        snprintf(e->schema, sizeof(e->schema), "zbq_%ld_%d", (long)getpid(),
                 ++env_counter);
        cfg.pg_write_url = u;
        ZBT_OK_CTX(zb_sqldb_open(&admin, &e->ctx, &cfg), &e->ctx);
        snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE",
                 e->schema);
        ZBT_OK_CTX(zb_sqldb_exec(admin, &e->ctx, ZB_SQL_WRITE, sql, 0, NULL,
                                 NULL, NULL, NULL), &e->ctx);
        snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", e->schema);
        ZBT_OK_CTX(zb_sqldb_exec(admin, &e->ctx, ZB_SQL_WRITE, sql, 0, NULL,
                                 NULL, NULL, NULL), &e->ctx);
        zb_sqldb_close(admin);
        /* Every connection of the handle works in the case's schema. */
        snprintf(e->url, sizeof(e->url), "%s%soptions=-csearch_path%%3D%s",
                 u, strchr(u, '?') ? "&" : "?", e->schema);
        cfg.pg_write_url = e->url;
        cfg.pg_write_pool = 4;
        cfg.pg_read_pool = 2;
    } else {
        snprintf(e->dir, sizeof(e->dir), "%s", zbt_tmpdir());
        snprintf(path, sizeof(path), "%s/queue.db", e->dir);
        cfg.sqlite_path = path;
    }
    ZBT_OK_CTX(zb_sqldb_open(&e->db, &e->ctx, &cfg), &e->ctx);
    return 1;
}

int q_env_open(q_env *e, int pg)
{
    int from = -1, to = -1;

    if (!q_env_open_db(e, pg))
        return 0;
    ZBT_OK_CTX(zb_queue_migrate(e->db, &e->ctx, &from, &to), &e->ctx);
    ZBT_EQ_INT(from, 0);
    ZBT_EQ_INT(to, ZB_QUEUE_SCHEMA_VERSION);
    ZBT_OK_CTX(zb_queue_open(&e->q, &e->ctx, e->db), &e->ctx);
    return 1;
}

void q_env_close(q_env *e)
{
    zb_queue_close(e->q);
    e->q = NULL;
    if (e->pg && e->db != NULL) {
        char sql[128];

        snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE",
                 e->schema);
        zb_sqldb_exec(e->db, &e->ctx, ZB_SQL_WRITE, sql, 0, NULL, NULL, NULL,
                      NULL);
    }
    zb_sqldb_close(e->db);
    e->db = NULL;
}

void q_env_exec(q_env *e, const char *sql)
{
    ZBT_OK_CTX(zb_sqldb_exec(e->db, &e->ctx, ZB_SQL_WRITE, sql, 0, NULL, NULL,
                             NULL, NULL), &e->ctx);
}

int64_t q_env_add(q_env *e, const char *table, const char *op, int priority,
                  const char *size_class)
{
    zb_task_new t;
    int64_t id = 0;
    int inserted = 0;

    memset(&t, 0, sizeof(t));
    t.warehouse = "wh";
    t.table = table;
    t.operation = op;
    t.priority = priority;
    t.size_class = size_class;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &t, 0, &inserted, &id),
               &e->ctx);
    ZBT_EQ_INT(inserted, 1);
    ZBT_CHECK(id > 0);
    return id;
}

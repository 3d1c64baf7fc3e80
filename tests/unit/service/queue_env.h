/*
 * tests/unit/service/queue_env.h - a queue database per case: SQLite in
 * a fresh folder, or PostgreSQL from $ZB_TEST_PG_URL in a schema of its
 * own (dropped at close), so cases and other suites never meet.
 */
#ifndef QUEUE_ENV_H
#define QUEUE_ENV_H

#include "service/queue/queue.h"
#include "zbtest.h"

typedef struct q_env {
    zb_ctx ctx;
    zb_sqldb *db;
    zb_queue *q;
    int pg;
    char dir[512];
    char schema[64];
    char url[2048];
} q_env;

/* Opens the database (not migrated). 0: skipped (no server). */
int q_env_open_db(q_env *e, int pg);
/* q_env_open_db, zb_queue_migrate and zb_queue_open. */
int q_env_open(q_env *e, int pg);
void q_env_close(q_env *e);

/* Runs sql on e->db (a test's own look or change). */
void q_env_exec(q_env *e, const char *sql);

/* Enqueues one task; returns its id. */
int64_t q_env_add(q_env *e, const char *table, const char *op, int priority,
                  const char *size_class);

void q_sleep_ms(int ms);

#endif

/*
 * tests/unit/service/test_queue.c - the task queue (service/queue/queue.h)
 * on SQLite always and on PostgreSQL when $ZB_TEST_PG_URL names a server:
 * migrations and the schema check, enqueue's key and cap, the order of
 * take (priority, age, runbook order, class), heartbeats, finishing with
 * each outcome, fencing of past attempts, the sweep of lost workers,
 * cancel and requeue, the commit fence with an SQL catalog on the same
 * database, and threads taking at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "queue_env.h"
#include "table/commit/commit.h"

typedef void (*q_body)(q_env *e);

static void run_on(q_body body, int pg)
{
    q_env e;

    if (!q_env_open(&e, pg))
        return;
    body(&e);
    q_env_close(&e);
}

#define BOTH(name)                                                          \
    static void test_service_queue_##name##__sqlite(void)                   \
    {                                                                       \
        run_on(name, 0);                                                    \
    }                                                                       \
    static void test_service_queue_##name##__pg(void) { run_on(name, 1); }

static zb_take_opts take_opts(const char *cls, int64_t lease_ms)
{
    zb_take_opts o;

    o.worker_id = "test-worker";
    o.size_class = cls;
    o.lease_ms = lease_ms;
    return o;
}

static void take_one(q_env *e, const char *cls, zb_task *t)
{
    zb_take_opts o = take_opts(cls, 60000);
    int got = 0;

    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, t, &got), &e->ctx);
    ZBT_EQ_INT(got, 1);
}

static void take_none(q_env *e, const char *cls)
{
    zb_take_opts o = take_opts(cls, 60000);
    zb_task t;
    int got = 1;

    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &t, &got), &e->ctx);
    ZBT_EQ_INT(got, 0);
}

static zb_attempt_result outcome(const char *o, const char *msg)
{
    zb_attempt_result r;

    memset(&r, 0, sizeof(r));
    r.outcome = o;
    r.message = msg;
    r.started_ms = 1000;
    r.finished_ms = 2000;
    return r;
}

typedef struct attempts_seen {
    int n;
    zb_attempt last[8];
} attempts_seen;

static int collect_attempt(void *payload, const zb_attempt *a)
{
    attempts_seen *s = payload;

    if (s->n < 8)
        s->last[s->n] = *a;
    s->n++;
    return 0;
}

static attempts_seen attempts_of(q_env *e, int64_t id)
{
    attempts_seen s;

    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_queue_attempts(e->q, &e->ctx, id, 0, collect_attempt, &s),
               &e->ctx);
    return s;
}

/* ---- schema ---- */

static void migrate_twice(q_env *e)
{
    int from = -1, to = -1, v = 0;
    zb_queue *q2 = NULL;

    /* q_env_open migrated once (0 -> 1); again finds it done. */
    ZBT_OK_CTX(zb_queue_migrate(e->db, &e->ctx, &from, &to), &e->ctx);
    ZBT_EQ_INT(from, ZB_QUEUE_SCHEMA_VERSION);
    ZBT_EQ_INT(to, ZB_QUEUE_SCHEMA_VERSION);
    ZBT_OK_CTX(zb_queue_schema_version(e->db, &e->ctx, &v), &e->ctx);
    ZBT_EQ_INT(v, ZB_QUEUE_SCHEMA_VERSION);
    ZBT_OK_CTX(zb_queue_open(&q2, &e->ctx, e->db), &e->ctx);
    ZBT_CHECK(zb_queue_db(q2) == e->db);
    zb_queue_close(q2);
}
BOTH(migrate_twice)

static void unmigrated_refused_body(int pg)
{
    q_env e;
    zb_queue *q = NULL;
    int v = -1;

    if (!q_env_open_db(&e, pg))
        return;
    ZBT_OK_CTX(zb_queue_schema_version(e.db, &e.ctx, &v), &e.ctx);
    ZBT_EQ_INT(v, 0);
    ZBT_RC(zb_queue_open(&q, &e.ctx, e.db), ZB_EREFUSED);
    ZBT_CHECK(q == NULL);
    ZBT_CONTAINS(e.ctx.err.msg, "run `zamboni db migrate`");
    q_env_close(&e);
}

static void test_service_queue_unmigrated__sqlite(void)
{
    unmigrated_refused_body(0);
}

static void test_service_queue_unmigrated__pg(void)
{
    unmigrated_refused_body(1);
}

static void newer_refused(q_env *e)
{
    zb_queue *q = NULL;

    q_env_exec(e, "UPDATE zamboni_schema SET version = 99");
    ZBT_RC(zb_queue_open(&q, &e->ctx, e->db), ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "version 99");
    ZBT_CONTAINS(e->ctx.err.msg, "this build's 2");
    ZBT_RC(zb_queue_migrate(e->db, &e->ctx, NULL, NULL), ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "version 99");
    /* An older one (a build before this one's migrations) is refused too. */
    q_env_exec(e, "UPDATE zamboni_schema SET version = 0");
    ZBT_RC(zb_queue_open(&q, &e->ctx, e->db), ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "run `zamboni db migrate`");
}
BOTH(newer_refused)

/* ---- enqueue ---- */

static void enqueue_key_and_cap(q_env *e)
{
    zb_task_new t;
    zb_task got;
    int64_t id1, id2 = 0;
    int inserted = 1;

    id1 = q_env_add(e, "db.t1", "compact", 0, NULL);
    memset(&t, 0, sizeof(t));
    t.warehouse = "wh";
    t.table = "db.t1";
    t.operation = "compact";
    t.priority = 9;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &t, 0, &inserted, &id2),
               &e->ctx);
    ZBT_EQ_INT(inserted, 0);
    ZBT_CHECK(id2 == id1);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id1, &got), &e->ctx);
    ZBT_EQ_INT(got.priority, 0);    /* the conflict changed nothing */
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SCHEDULED);
    ZBT_EQ_STR(got.size_class, "standard");
    ZBT_EQ_INT(got.max_attempts, 5);
    ZBT_EQ_INT(got.attempt, 0);
    ZBT_EQ_INT(got.est_cores, 1);

    /* The cap: one live task already; a second key is refused, the
     * existing key still answers with its id. */
    t.operation = "expire";
    ZBT_RC(zb_queue_enqueue(e->q, &e->ctx, &t, 1, &inserted, &id2),
           ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "cap");
    t.operation = "compact";
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &t, 1, &inserted, &id2),
               &e->ctx);
    ZBT_EQ_INT(inserted, 0);
    t.operation = "vacuum";
    ZBT_RC(zb_queue_enqueue(e->q, &e->ctx, &t, 0, &inserted, &id2),
           ZB_EUSAGE);
    ZBT_CONTAINS(e->ctx.err.msg, "vacuum");
}
BOTH(enqueue_key_and_cap)

static void enqueue_picks_class(q_env *e)
{
    zb_size_classes cs;
    zb_task_new t;
    zb_task got;
    int64_t id = 0;
    int inserted = 0;

    ZBT_OK_CTX(zb_size_classes_parse_json(&cs, &e->ctx,
        "[{\"name\":\"small\",\"cores\":1,\"memory\":\"4Gi\",\"max_jobs\":1},"
        "{\"name\":\"large\",\"cores\":8,\"memory\":\"32Gi\",\"max_jobs\":1}]",
        "test"), &e->ctx);
    zb_queue_set_size_classes(e->q, &cs);
    memset(&t, 0, sizeof(t));
    t.warehouse = "wh";
    t.table = "db.big";
    t.operation = "compact";
    t.est_memory_bytes = (uint64_t)10 << 30;
    t.est_cores = 3;
    t.options = "{\"k\":1}";
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &t, 0, &inserted, &id),
               &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.size_class, "large");
    ZBT_EQ_U64(got.est_memory_bytes, (uint64_t)10 << 30);
    ZBT_EQ_INT(got.est_cores, 3);
    ZBT_EQ_STR(got.options, "{\"k\":1}");
    ZBT_CHECK(got.created_ms > 0);
}
BOTH(enqueue_picks_class)

/* ---- take ---- */

static void take_order(q_env *e)
{
    zb_task t;
    zb_task_new n;
    int64_t old, young, urgent, big, cmp4, exp4, cmp5, exp5;
    int inserted = 0;

    old = q_env_add(e, "db.old", "compact", 0, NULL);
    q_sleep_ms(5);
    young = q_env_add(e, "db.young", "compact", 0, NULL);
    urgent = q_env_add(e, "db.urgent", "compact", 5, NULL);
    big = q_env_add(e, "db.big", "compact", 9, "large");
    /* Not due yet. */
    memset(&n, 0, sizeof(n));
    n.warehouse = "wh";
    n.table = "db.later";
    n.operation = "compact";
    n.priority = 100;
    n.delay_ms = 600000;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &n, 0, &inserted, NULL),
               &e->ctx);

    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == urgent);
    ZBT_EQ_STR(t.state, ZB_TASK_STATE_RUNNING);
    ZBT_EQ_INT(t.attempt, 1);
    ZBT_EQ_STR(t.worker_id, "test-worker");
    ZBT_CHECK(t.lease_expires_ms > t.heartbeat_ms);
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == old);
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == young);
    take_none(e, "standard");
    take_one(e, "large", &t);
    ZBT_CHECK(t.id == big);
    take_none(e, "large");

    /* Runbook order: expire waits while the table's compact is live. */
    exp4 = q_env_add(e, "db.t4", "expire", 50, NULL);
    cmp4 = q_env_add(e, "db.t4", "compact", 0, NULL);
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == cmp4);
    take_none(e, "standard");      /* expire waits for the running one */
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_SUCCESS, NULL);
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == exp4);
    /* An excluded earlier operation does not block. */
    cmp5 = q_env_add(e, "db.t5", "compact", 0, NULL);
    exp5 = q_env_add(e, "db.t5", "remove-orphans", 0, NULL);
    {
        char sql[128];
        snprintf(sql, sizeof(sql), "UPDATE zamboni_tasks SET state = "
                 "'excluded' WHERE id = %lld", (long long)cmp5);
        q_env_exec(e, sql);
    }
    take_one(e, NULL, &t);         /* any class */
    ZBT_CHECK(t.id == exp5);
    take_none(e, NULL);
}
BOTH(take_order)

/* ---- heartbeat ---- */

static void heartbeat_states(q_env *e)
{
    zb_task t, stale;
    zb_lease_state st = ZB_LEASE_LOST;
    zb_task got;

    q_env_add(e, "db.hb", "compact", 0, NULL);
    take_one(e, "standard", &t);
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000,
                                  "{\"groups_done\":1}", &st), &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_HELD);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, t.id, &got), &e->ctx);
    ZBT_EQ_STR(got.progress, "{\"groups_done\":1}");
    /* NULL keeps the last progress. */
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000, NULL, &st),
               &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, t.id, &got), &e->ctx);
    ZBT_EQ_STR(got.progress, "{\"groups_done\":1}");

    stale = t;
    stale.attempt = t.attempt + 1;  /* not this task's attempt */
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &stale, 60000, "{}", &st),
               &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_LOST);

    ZBT_OK_CTX(zb_queue_cancel(e->q, &e->ctx, t.id), &e->ctx);
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000, NULL, &st),
               &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_STOP);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, t.id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SHOULD_STOP);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_CANCELLED, "stopped");
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_RC(zb_queue_get(e->q, &e->ctx, t.id, &got), ZB_ENOTFOUND);
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000, NULL, &st),
               &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_LOST);

    /* An expired lease is lost even before a sweep. */
    q_env_add(e, "db.hb2", "compact", 0, NULL);
    take_one(e, "standard", &t);
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 1, NULL, &st), &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_HELD);
    q_sleep_ms(30);
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000, NULL, &st),
               &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_LOST);
}
BOTH(heartbeat_states)

/* ---- finish ---- */

static void finish_outcomes(q_env *e)
{
    zb_task t, got;
    zb_task_new n;
    attempts_seen s;
    int64_t now = 0, id;
    int inserted = 0;

    /* success: gone, its attempt kept */
    id = q_env_add(e, "db.ok", "compact", 0, NULL);
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_SUCCESS, "rewrote 3 files");
        r.report = "db.ok: 3 files -> 1";
        r.before.known = 1;
        r.before.data_files = 3;
        r.before.data_bytes = 300;
        r.after.known = 1;
        r.after.data_files = 1;
        r.after.snapshots = 2;
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_RC(zb_queue_get(e->q, &e->ctx, id, &got), ZB_ENOTFOUND);
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.last[0].outcome, "success");
    ZBT_EQ_STR(s.last[0].message, "rewrote 3 files");
    ZBT_EQ_STR(s.last[0].worker_id, "test-worker");
    ZBT_EQ_STR(s.last[0].table, "db.ok");
    ZBT_EQ_INT(s.last[0].attempt, 1);
    ZBT_CHECK(s.last[0].before.known && s.last[0].before.data_files == 3);
    ZBT_CHECK(s.last[0].before.data_bytes == 300);
    ZBT_CHECK(s.last[0].after.known && s.last[0].after.data_files == 1);
    ZBT_CHECK(s.last[0].after.snapshots == 2);

    /* failed: scheduled again 30 s later, then 60 s */
    id = q_env_add(e, "db.fail", "compact", 0, NULL);
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_FAILED, "disk full");
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_OK_CTX(zb_sqldb_now_ms(e->db, &e->ctx, &now), &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SCHEDULED);
    ZBT_EQ_STR(got.last_message, "disk full");
    ZBT_EQ_STR(got.worker_id, "");
    ZBT_CHECK(got.scheduled_for_ms > now + 25000);
    ZBT_CHECK(got.scheduled_for_ms <= now + 30000);
    ZBT_EQ_INT(got.attempt, 1);
    take_none(e, "standard");      /* backing off */
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.last[0].outcome, "failed");

    /* excluded after max_attempts (2 here): the second failure */
    memset(&n, 0, sizeof(n));
    n.warehouse = "wh";
    n.table = "db.bad";
    n.operation = "expire";
    n.max_attempts = 2;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &n, 0, &inserted, &id),
               &e->ctx);
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_FAILED, "first");
        r.retry_delay_ms = 1;
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    q_sleep_ms(20);
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == id);
    ZBT_EQ_INT(t.attempt, 2);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_FAILED, "second");
        r.retry_delay_ms = 1;
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_EXCLUDED);
    ZBT_EQ_STR(got.last_message, "second");
    q_sleep_ms(20);
    take_none(e, "standard");
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 2);
    ZBT_EQ_INT(s.last[0].attempt, 2);   /* newest first */
    ZBT_EQ_INT(s.last[1].attempt, 1);

    /* abandoned: scheduled about 2 minutes later, not counted */
    memset(&n, 0, sizeof(n));
    n.warehouse = "wh";
    n.table = "db.drain";
    n.operation = "compact";
    n.max_attempts = 1;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &n, 0, &inserted, &id),
               &e->ctx);
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_ABANDONED, "drain timeout");
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_OK_CTX(zb_sqldb_now_ms(e->db, &e->ctx, &now), &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SCHEDULED);
    ZBT_EQ_INT(got.max_attempts, 2);
    ZBT_CHECK(got.scheduled_for_ms > now + 100000);
    ZBT_CHECK(got.scheduled_for_ms <= now + 120000);
    s = attempts_of(e, id);
    ZBT_EQ_STR(s.last[0].outcome, "abandoned");

    /* an outcome that is none of them */
    q_env_add(e, "db.odd", "compact", 0, NULL);
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome("lost", NULL);
        ZBT_RC(zb_queue_finish(e->q, &e->ctx, &t, &r), ZB_EINVAL);
    }
}
BOTH(finish_outcomes)

static void stale_attempt_fenced(q_env *e)
{
    zb_task t, stale, got;
    zb_attempt_result r = outcome(ZB_OUTCOME_SUCCESS, NULL);
    attempts_seen s;
    int64_t id;

    id = q_env_add(e, "db.stale", "compact", 0, NULL);
    take_one(e, "standard", &t);
    stale = t;
    stale.attempt = t.attempt - 1;
    ZBT_RC(zb_queue_finish(e->q, &e->ctx, &stale, &r), ZB_EFENCED);
    ZBT_CONTAINS(e->ctx.err.msg, "attempt 0");
    r = outcome(ZB_OUTCOME_FAILED, "x");
    ZBT_RC(zb_queue_finish(e->q, &e->ctx, &stale, &r), ZB_EFENCED);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_RUNNING);
    ZBT_EQ_INT(got.attempt, 1);
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 0);
    /* Finishing twice: the second is a past attempt too. */
    r = outcome(ZB_OUTCOME_SUCCESS, NULL);
    ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    ZBT_RC(zb_queue_finish(e->q, &e->ctx, &t, &r), ZB_EFENCED);
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 1);
}
BOTH(stale_attempt_fenced)

/* ---- sweep ---- */

static void sweep_lost(q_env *e)
{
    zb_size_classes cs;
    zb_take_opts o = take_opts("small", 1);
    zb_task t, got;
    zb_lease_state st;
    attempts_seen s;
    int64_t id, held;
    int n = -1, gotn = 0;

    ZBT_OK_CTX(zb_size_classes_parse_json(&cs, &e->ctx,
        "[{\"name\":\"large\",\"cores\":8,\"memory\":\"32Gi\",\"max_jobs\":1},"
        "{\"name\":\"small\",\"cores\":1,\"memory\":\"4Gi\",\"max_jobs\":2}]",
        "test"), &e->ctx);
    id = q_env_add(e, "db.lost", "compact", 0, "small");
    held = q_env_add(e, "db.held", "compact", 0, "small");
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &t, &gotn), &e->ctx);
    ZBT_CHECK(gotn && t.id == id);
    {
        zb_task h;
        o.lease_ms = 600000;
        ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &h, &gotn), &e->ctx);
        ZBT_CHECK(gotn && h.id == held);
    }
    q_sleep_ms(30);
    ZBT_OK_CTX(zb_queue_sweep(e->q, &e->ctx, &cs, &n), &e->ctx);
    ZBT_EQ_INT(n, 1);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SCHEDULED);
    ZBT_EQ_STR(got.size_class, "large");   /* one class up */
    ZBT_EQ_STR(got.worker_id, "");
    ZBT_CONTAINS(got.last_message, "test-worker");
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, held, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_RUNNING);   /* its lease holds */
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.last[0].outcome, "lost");
    ZBT_EQ_STR(s.last[0].size_class, "small");
    ZBT_CONTAINS(s.last[0].message, "lease");
    /* The dead attempt is fenced out of everything. */
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &t, 60000, NULL, &st),
               &e->ctx);
    ZBT_CHECK(st == ZB_LEASE_LOST);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_SUCCESS, NULL);
        ZBT_RC(zb_queue_finish(e->q, &e->ctx, &t, &r), ZB_EFENCED);
    }
    /* Taken again by the next class, attempt 2; lost again in the
     * largest class it stays there. */
    o = take_opts("large", 1);
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &t, &gotn), &e->ctx);
    ZBT_CHECK(gotn && t.id == id && t.attempt == 2);
    q_sleep_ms(30);
    ZBT_OK_CTX(zb_queue_sweep(e->q, &e->ctx, &cs, &n), &e->ctx);
    ZBT_EQ_INT(n, 1);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.size_class, "large");
    ZBT_OK_CTX(zb_queue_sweep(e->q, &e->ctx, &cs, &n), &e->ctx);
    ZBT_EQ_INT(n, 0);

    /* Lost attempts count: after max_attempts the task is excluded. */
    {
        char sql[128];
        snprintf(sql, sizeof(sql), "UPDATE zamboni_tasks SET max_attempts = "
                 "3 WHERE id = %lld", (long long)id);
        q_env_exec(e, sql);
    }
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &o, &t, &gotn), &e->ctx);
    ZBT_CHECK(gotn && t.attempt == 3);
    q_sleep_ms(30);
    ZBT_OK_CTX(zb_queue_sweep(e->q, &e->ctx, &cs, &n), &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_EXCLUDED);
    s = attempts_of(e, id);
    ZBT_EQ_INT(s.n, 3);
}
BOTH(sweep_lost)

/* ---- cancel and requeue ---- */

static void cancel_requeue(q_env *e)
{
    zb_task t, got;
    zb_task_new n;
    attempts_seen s;
    int64_t sched, bad;
    int inserted = 0;

    sched = q_env_add(e, "db.c1", "compact", 0, NULL);
    ZBT_OK_CTX(zb_queue_cancel(e->q, &e->ctx, sched), &e->ctx);
    ZBT_RC(zb_queue_get(e->q, &e->ctx, sched, &got), ZB_ENOTFOUND);
    s = attempts_of(e, sched);
    ZBT_EQ_INT(s.n, 1);
    ZBT_EQ_STR(s.last[0].outcome, "cancelled");
    ZBT_RC(zb_queue_cancel(e->q, &e->ctx, sched), ZB_ENOTFOUND);
    ZBT_RC(zb_queue_cancel(e->q, &e->ctx, 999999), ZB_ENOTFOUND);
    ZBT_CONTAINS(e->ctx.err.msg, "999999");

    memset(&n, 0, sizeof(n));
    n.warehouse = "wh";
    n.table = "db.c2";
    n.operation = "compact";
    n.max_attempts = 1;
    ZBT_OK_CTX(zb_queue_enqueue(e->q, &e->ctx, &n, 0, &inserted, &bad),
               &e->ctx);
    ZBT_RC(zb_queue_requeue(e->q, &e->ctx, bad), ZB_EREFUSED);
    ZBT_CONTAINS(e->ctx.err.msg, "not excluded");
    take_one(e, "standard", &t);
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_FAILED, "boom");
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, bad, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_EXCLUDED);
    ZBT_OK_CTX(zb_queue_requeue(e->q, &e->ctx, bad), &e->ctx);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, bad, &got), &e->ctx);
    ZBT_EQ_STR(got.state, ZB_TASK_STATE_SCHEDULED);
    ZBT_EQ_INT(got.max_attempts, 2);
    take_one(e, "standard", &t);
    ZBT_CHECK(t.id == bad && t.attempt == 2);
    ZBT_RC(zb_queue_requeue(e->q, &e->ctx, 999999), ZB_ENOTFOUND);

    /* An excluded task is cancelled too (deleted, logged). */
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_FAILED, "again");
        ZBT_OK_CTX(zb_queue_finish(e->q, &e->ctx, &t, &r), &e->ctx);
    }
    ZBT_OK_CTX(zb_queue_cancel(e->q, &e->ctx, bad), &e->ctx);
    ZBT_RC(zb_queue_get(e->q, &e->ctx, bad, &got), ZB_ENOTFOUND);
    s = attempts_of(e, bad);
    ZBT_EQ_INT(s.n, 3);
    ZBT_EQ_STR(s.last[0].outcome, "cancelled");
    ZBT_EQ_INT(s.last[0].attempt, 3);
}
BOTH(cancel_requeue)

typedef struct list_seen {
    int n;
    int64_t ids[8];
} list_seen;

static int collect_task(void *payload, const zb_task *t)
{
    list_seen *s = payload;

    if (s->n < 8)
        s->ids[s->n] = t->id;
    s->n++;
    return 0;
}

static void list_counts_workers(q_env *e)
{
    zb_queue_counts c;
    zb_task t;
    list_seen ls;
    attempts_seen s;
    zb_worker_row w = { "host-1-0", "host", "standard", 8ull << 30, 2,
                        100ull << 30 };
    zb_worker_figures f = { 0, 123, 0.5, 10, 20 };
    int64_t a, b;

    a = q_env_add(e, "db.l1", "compact", 0, NULL);
    b = q_env_add(e, "db.l2", "compact", 0, "large");
    take_one(e, "standard", &t);
    ZBT_OK_CTX(zb_queue_counts_get(e->q, &e->ctx, NULL, &c), &e->ctx);
    ZBT_CHECK(c.scheduled == 1 && c.due == 1 && c.running == 1);
    ZBT_CHECK(c.excluded == 0 && c.should_stop == 0);
    ZBT_OK_CTX(zb_queue_counts_get(e->q, &e->ctx, "standard", &c), &e->ctx);
    ZBT_CHECK(c.scheduled == 0 && c.running == 1);
    memset(&ls, 0, sizeof(ls));
    ZBT_OK_CTX(zb_queue_list(e->q, &e->ctx, NULL, collect_task, &ls),
               &e->ctx);
    ZBT_EQ_INT(ls.n, 2);
    ZBT_CHECK(ls.ids[0] == a && ls.ids[1] == b);
    memset(&ls, 0, sizeof(ls));
    ZBT_OK_CTX(zb_queue_list(e->q, &e->ctx, "scheduled", collect_task, &ls),
               &e->ctx);
    ZBT_EQ_INT(ls.n, 1);
    ZBT_CHECK(ls.ids[0] == b);

    ZBT_OK_CTX(zb_queue_worker_register(e->q, &e->ctx, &w), &e->ctx);
    ZBT_OK_CTX(zb_queue_worker_register(e->q, &e->ctx, &w), &e->ctx);
    f.task_id = t.id;
    ZBT_OK_CTX(zb_queue_worker_heartbeat(e->q, &e->ctx, w.id, &f), &e->ctx);
    ZBT_OK_CTX(zb_queue_worker_deregister(e->q, &e->ctx, w.id), &e->ctx);
    ZBT_RC(zb_queue_worker_heartbeat(e->q, &e->ctx, w.id, &f), ZB_ENOTFOUND);

    /* A run from the command line: no task, twice for one table. */
    {
        zb_attempt_result r = outcome(ZB_OUTCOME_SUCCESS, "cli");
        r.report = "db.x: nothing to do";
        ZBT_OK_CTX(zb_queue_record_run(e->q, &e->ctx, "wh", "db.x", "expire",
                                       &r), &e->ctx);
        ZBT_OK_CTX(zb_queue_record_run(e->q, &e->ctx, "wh", "db.x", "expire",
                                       &r), &e->ctx);
    }
    s = attempts_of(e, 0);
    ZBT_EQ_INT(s.n, 2);
    ZBT_CHECK(s.last[0].task_id == 0);
    ZBT_EQ_STR(s.last[0].operation, "expire");
    ZBT_EQ_STR(s.last[0].message, "cli");
    ZBT_CHECK(s.last[0].worker_id[0] != '\0');
    ZBT_CHECK(!s.last[0].before.known);
}
BOTH(list_counts_workers)

/* ---- the commit fence with an SQL catalog on the same database ---- */

static ice_metadata *first_metadata(zb_ctx *ctx, const char *location)
{
    ice_metadata *m = NULL;
    json_error_t jerr;
    json_t *schema = json_loads(
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}",
        0, &jerr);

    ZBT_CHECK(schema != NULL);
    ZBT_OK_CTX(ice_metadata_create(&m, ctx, (const zb_json *)schema, NULL,
                                   NULL, location, NULL, 0, 2), ctx);
    json_decref(schema);
    return m;
}

static int commit_property(zb_catalog *cat, zb_ctx *ctx, const char *ident,
                           const char *value)
{
    zb_table *t = NULL, *t2 = NULL;
    ice_kv kv = { "fenced", value };
    json_t *u = json_array();
    int rc;

    ZBT_OK_CTX(zb_catalog_load_table(cat, ctx, ident, &t), ctx);
    json_array_append_new(u, (json_t *)ice_update_set_properties(&kv, 1));
    rc = zb_catalog_commit(cat, ctx, t, NULL, (const zb_json *)u, &t2);
    json_decref(u);
    zb_table_free(t);
    zb_table_free(t2);
    return rc;
}

static void fenced_commit(q_env *e)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_catalog *cat = NULL;
    zb_io *io = NULL;
    zb_table *t = NULL;
    zb_task task, again;
    zb_commit_fence fence, fence2;
    zb_queue_fence_buf buf, buf2;
    zb_lease_state st;
    ice_metadata *m;
    char loc[700], before[2048];
    int n = 0;

    ZBT_OK_CTX(zb_io_new(&io, &e->ctx), &e->ctx);
    cfg.kind = e->pg ? ZB_CATALOG_POSTGRES : ZB_CATALOG_SQLITE;
    cfg.name = "test";
    cfg.warehouse = "wh";
    cfg.sqldb = e->db;
    snprintf(loc, sizeof(loc), "%s/warehouse", e->pg ? zbt_tmpdir() : e->dir);
    cfg.warehouse_location = loc;
    ZBT_OK_CTX(zb_catalog_open(&cat, &e->ctx, io, &cfg), &e->ctx);
    ZBT_CHECK(zb_catalog_sqldb(cat) == e->db);
    ZBT_OK_CTX(zb_catalog_create_namespace(cat, &e->ctx, "db"), &e->ctx);
    snprintf(loc + strlen(loc), sizeof(loc) - strlen(loc), "/db/f");
    m = first_metadata(&e->ctx, loc);
    ZBT_OK_CTX(zb_catalog_create_table(cat, &e->ctx, "db.f", NULL, m, &t),
               &e->ctx);
    ice_metadata_free(m);
    zb_table_free(t);
    t = NULL;

    q_env_add(e, "db.f", "compact", 0, NULL);
    take_one(e, "standard", &task);
    zb_queue_fence(e->q, &task, &fence, &buf);
    ZBT_CHECK(fence.db == e->db);
    ZBT_EQ_INT(fence.n_params, 2);
    ZBT_CONTAINS(fence.what, "attempt 1");
    zb_catalog_set_fence(cat, &fence);
    /* The lease holds: the commit goes through the fenced swap. */
    ZBT_OK_CTX(commit_property(cat, &e->ctx, "db.f", "one"), &e->ctx);

    /* The lease runs out, the sweep takes the task back, another attempt
     * takes it: the first one's commit is refused, nothing changes. */
    ZBT_OK_CTX(zb_queue_heartbeat(e->q, &e->ctx, &task, 1, NULL, &st),
               &e->ctx);
    q_sleep_ms(30);
    ZBT_RC(commit_property(cat, &e->ctx, "db.f", "expired"), ZB_EFENCED);
    ZBT_OK_CTX(zb_queue_sweep(e->q, &e->ctx, NULL, &n), &e->ctx);
    ZBT_EQ_INT(n, 1);
    take_one(e, "standard", &again);
    ZBT_EQ_INT(again.attempt, 2);
    ZBT_OK_CTX(zb_catalog_load_table(cat, &e->ctx, "db.f", &t), &e->ctx);
    snprintf(before, sizeof(before), "%s", t->metadata_location);
    zb_table_free(t);
    t = NULL;
    ZBT_RC(commit_property(cat, &e->ctx, "db.f", "stale"), ZB_EFENCED);
    ZBT_CONTAINS(e->ctx.err.msg, "task");
    ZBT_OK_CTX(zb_catalog_load_table(cat, &e->ctx, "db.f", &t), &e->ctx);
    ZBT_EQ_STR(t->metadata_location, before);
    zb_table_free(t);
    t = NULL;

    /* The new attempt's fence lets its commit stand. */
    zb_queue_fence(e->q, &again, &fence2, &buf2);
    zb_catalog_set_fence(cat, &fence2);
    ZBT_OK_CTX(commit_property(cat, &e->ctx, "db.f", "two"), &e->ctx);
    ZBT_OK_CTX(zb_catalog_load_table(cat, &e->ctx, "db.f", &t), &e->ctx);
    ZBT_CHECK(strcmp(t->metadata_location, before) != 0);
    zb_table_free(t);
    zb_catalog_set_fence(cat, NULL);
    zb_catalog_free(cat);
    zb_io_free(io);
}
BOTH(fenced_commit)

/* ---- threads taking at once ---- */

#define CONC_TASKS 200
#define CONC_THREADS 8

typedef struct conc {
    zb_queue *q;
    int index;
    int taken;
    int errors;
    char err[256];
    int *seen;                      /* per task index, shared */
    pthread_mutex_t *lock;
    int64_t first_id;
} conc;

static void *conc_worker(void *arg)
{
    conc *c = arg;
    zb_ctx ctx;
    zb_task *t = calloc(1, sizeof(*t));
    char wid[32];
    zb_take_opts o;
    int got = 1, rc;

    zb_ctx_init(&ctx);
    snprintf(wid, sizeof(wid), "w%d", c->index);
    o.worker_id = wid;
    o.size_class = "standard";
    o.lease_ms = 60000;
    while (t != NULL && got) {
        zb_attempt_result r;

        rc = zb_queue_take(c->q, &ctx, &o, t, &got);
        if (rc < 0) {
            c->errors++;
            snprintf(c->err, sizeof(c->err), "%s", ctx.err.msg);
            break;
        }
        if (!got) {
            /* PostgreSQL's SKIP LOCKED may pass over a row another worker
             * just finished with; the counts tell whether any is due. */
            zb_queue_counts cnt;
            if (zb_queue_counts_get(c->q, &ctx, "standard", &cnt) == ZB_OK &&
                cnt.scheduled > 0)
                got = 1;
            continue;
        }
        pthread_mutex_lock(c->lock);
        c->seen[t->id - c->first_id]++;
        pthread_mutex_unlock(c->lock);
        c->taken++;
        memset(&r, 0, sizeof(r));
        r.outcome = ZB_OUTCOME_SUCCESS;
        if (zb_queue_finish(c->q, &ctx, t, &r) < 0) {
            c->errors++;
            snprintf(c->err, sizeof(c->err), "%s", ctx.err.msg);
            break;
        }
    }
    free(t);
    return NULL;
}

static void concurrent_take(q_env *e)
{
    pthread_t th[CONC_THREADS];
    conc cs[CONC_THREADS];
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int seen[CONC_TASKS];
    int64_t first = 0, id;
    int i, total = 0;
    char name[32];
    attempts_seen s;

    for (i = 0; i < CONC_TASKS; i++) {
        snprintf(name, sizeof(name), "db.c%03d", i);
        id = q_env_add(e, name, "compact", 0, NULL);
        if (i == 0)
            first = id;
        ZBT_CHECK(id == first + i);
    }
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < CONC_THREADS; i++) {
        memset(&cs[i], 0, sizeof(cs[i]));
        cs[i].q = e->q;
        cs[i].index = i;
        cs[i].seen = seen;
        cs[i].lock = &lock;
        cs[i].first_id = first;
        ZBT_CHECK(pthread_create(&th[i], NULL, conc_worker, &cs[i]) == 0);
    }
    for (i = 0; i < CONC_THREADS; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < CONC_THREADS; i++) {
        if (cs[i].errors)
            printf("  thread %d: %s\n", i, cs[i].err);
        ZBT_EQ_INT(cs[i].errors, 0);
        total += cs[i].taken;
    }
    ZBT_EQ_INT(total, CONC_TASKS);
    for (i = 0; i < CONC_TASKS; i++)
        ZBT_EQ_INT(seen[i], 1);
    take_none(e, "standard");
    memset(&s, 0, sizeof(s));
    ZBT_OK_CTX(zb_queue_attempts(e->q, &e->ctx, 0, 1000, collect_attempt, &s),
               &e->ctx);
    ZBT_EQ_INT(s.n, CONC_TASKS);
}
BOTH(concurrent_take)

const zbt_case test_service_queue[] = {
    ZBT_CASE(test_service_queue_migrate_twice__sqlite),
    ZBT_CASE(test_service_queue_migrate_twice__pg),
    ZBT_CASE(test_service_queue_unmigrated__sqlite),
    ZBT_CASE(test_service_queue_unmigrated__pg),
    ZBT_CASE(test_service_queue_newer_refused__sqlite),
    ZBT_CASE(test_service_queue_newer_refused__pg),
    ZBT_CASE(test_service_queue_enqueue_key_and_cap__sqlite),
    ZBT_CASE(test_service_queue_enqueue_key_and_cap__pg),
    ZBT_CASE(test_service_queue_enqueue_picks_class__sqlite),
    ZBT_CASE(test_service_queue_enqueue_picks_class__pg),
    ZBT_CASE(test_service_queue_take_order__sqlite),
    ZBT_CASE(test_service_queue_take_order__pg),
    ZBT_CASE(test_service_queue_heartbeat_states__sqlite),
    ZBT_CASE(test_service_queue_heartbeat_states__pg),
    ZBT_CASE(test_service_queue_finish_outcomes__sqlite),
    ZBT_CASE(test_service_queue_finish_outcomes__pg),
    ZBT_CASE(test_service_queue_stale_attempt_fenced__sqlite),
    ZBT_CASE(test_service_queue_stale_attempt_fenced__pg),
    ZBT_CASE(test_service_queue_sweep_lost__sqlite),
    ZBT_CASE(test_service_queue_sweep_lost__pg),
    ZBT_CASE(test_service_queue_cancel_requeue__sqlite),
    ZBT_CASE(test_service_queue_cancel_requeue__pg),
    ZBT_CASE(test_service_queue_list_counts_workers__sqlite),
    ZBT_CASE(test_service_queue_list_counts_workers__pg),
    ZBT_CASE(test_service_queue_fenced_commit__sqlite),
    ZBT_CASE(test_service_queue_fenced_commit__pg),
    ZBT_CASE(test_service_queue_concurrent_take__sqlite),
    ZBT_CASE(test_service_queue_concurrent_take__pg),
    ZBT_END
};

/*
 * tests/unit/service/test_planner.c - serve's planner (service/planner/):
 * due decisions on generated tables (a SQLite catalog, ops_fixture.h),
 * the schedule's min interval, the capacity per class with workers'
 * rows, the cap with displacement, and the leader lease; the queue on
 * SQLite and on PostgreSQL ($ZB_TEST_PG_URL, a schema per case).
 */
#include <stdio.h>
#include <string.h>

#include "ops/maintenance_run.h"
#include "ops_fixture.h"
#include "queue_env.h"
#include "service/planner/planner.h"

#define BOTH(name)                                                          \
    static void test_service_planner_##name##__sqlite(void)                 \
    {                                                                       \
        run_on(name, 0);                                                    \
    }                                                                       \
    static void test_service_planner_##name##__pg(void) { run_on(name, 1); }

typedef void (*p_body)(q_env *e);

static void run_on(p_body body, int pg)
{
    q_env e;

    if (!q_env_open(&e, pg))
        return;
    body(&e);
    q_env_close(&e);
}

/* ---- the host: one warehouse "wh", its catalog and config ---- */

typedef struct host_state {
    of_env *of;
    zb_table_config *tc;
    int released;
} host_state;

static int host_open(void *payload, zb_ctx *ctx, const char *wh,
                     zb_catalog **out)
{
    host_state *h = payload;

    (void)ctx;
    *out = strcmp(wh, "wh") == 0 ? h->of->cat : NULL;
    return ZB_OK;
}

static const zb_table_config *host_tc(void *payload, const char *wh)
{
    host_state *h = payload;

    return strcmp(wh, "wh") == 0 ? h->tc : NULL;
}

static void host_release(void *payload, const char *wh, zb_catalog *cat)
{
    host_state *h = payload;

    (void)wh;
    (void)cat;
    h->released++;
}

static void host_log(const char *line, void *payload)
{
    (void)line;
    (void)payload;
}

static const char *const one_wh[] = { "wh" };

static zb_size_classes classes_of(int max_jobs)
{
    zb_size_classes cs;

    memset(&cs, 0, sizeof cs);
    cs.n = 2;
    snprintf(cs.c[0].name, sizeof cs.c[0].name, "small");
    cs.c[0].cores = 1;
    cs.c[0].memory_bytes = (uint64_t)1 << 30;
    cs.c[0].max_jobs = max_jobs;
    snprintf(cs.c[1].name, sizeof cs.c[1].name, "large");
    cs.c[1].cores = 4;
    cs.c[1].memory_bytes = (uint64_t)16 << 30;
    cs.c[1].max_jobs = max_jobs;
    return cs;
}

static zb_planner *planner_of(q_env *e, host_state *h,
                              const zb_size_classes *cs, const char *replica,
                              int64_t cap)
{
    zb_planner_opts o = ZB_PLANNER_OPTS_INIT;
    zb_planner *p = NULL;

    o.queue = e->q;
    o.classes = cs;
    o.n_warehouses = 1;
    o.warehouses = one_wh;
    o.replica_id = replica;
    o.max_tasks = cap;
    o.host.open_catalog = host_open;
    o.host.table_config = host_tc;
    o.host.release_catalog = host_release;
    o.host.log_line = host_log;
    o.host.payload = h;
    ZBT_OK_CTX(zb_planner_new(&p, &e->ctx, &o), &e->ctx);
    return p;
}

static const char tables_config[] =
    "{\"version\": 2, \"warehouse\": \"wh\", \"defaults\": {},"
    " \"namespaces\": {\"ns\": {\"tables\": {"
    "  \"small\": {},"
    "  \"healthy\": {},"
    "  \"old\": {\"min_input_files\": 10, \"retention\": {"
    "    \"expire_snapshots\": {\"max_snapshot_age_days\": 0},"
    "    \"rewrite_manifests\": {\"min_input_manifests\": 10}}},"
    "  \"off\": {\"min_input_files\": 10, \"retention\": {"
    "    \"expire_snapshots\": {\"enabled\": false,"
    "                           \"max_snapshot_age_days\": 0},"
    "    \"remove_orphan_files\": {\"enabled\": false},"
    "    \"rewrite_manifests\": {\"enabled\": false}}},"
    "  \"props\": {\"target_file_size_bytes\": 1000000}"
    "}}}}";

static void make_tables(of_env *of)
{
    zb_table *t;

    of_open_catalog(of, 1);
    t = of_make_catalog_table(of, "ns.small", NULL, 6, 10);
    zb_table_free(t);
    t = of_make_catalog_table(of, "ns.healthy", NULL, 1, 10);
    zb_table_free(t);
    t = of_make_catalog_table(of, "ns.old", NULL, 3, 10);
    zb_table_free(t);
    t = of_make_catalog_table(of, "ns.off", NULL, 3, 10);
    zb_table_free(t);
    t = of_make_catalog_table(of, "ns.props", NULL, 1, 10);
    zb_table_free(t);
}

/* "table op" lines of the live tasks, sorted by id, into buf. */
typedef struct task_text {
    char buf[4096];
    int n;
} task_text;

static int task_line(void *payload, const zb_task *t)
{
    task_text *s = payload;
    size_t len = strlen(s->buf);

    snprintf(s->buf + len, sizeof s->buf - len, "%s %s;", t->table,
             t->operation);
    s->n++;
    return 0;
}

static task_text live_tasks(q_env *e)
{
    task_text s;

    memset(&s, 0, sizeof s);
    ZBT_OK_CTX(zb_queue_list(e->q, &e->ctx, NULL, task_line, &s), &e->ctx);
    return s;
}

/* ---- due decisions on generated tables ---- */

static void due_tables(q_env *e)
{
    of_env of;
    host_state h;
    zb_size_classes cs = classes_of(100);
    zb_planner *p;
    zb_planner_counters c;
    task_text s;

    make_tables(&of);
    memset(&h, 0, sizeof h);
    h.of = &of;
    ZBT_OK_CTX(zb_table_config_parse(&h.tc, &e->ctx, "table-config.json",
                                     tables_config, strlen(tables_config)),
               &e->ctx);
    q_sleep_ms(5);                 /* snapshots strictly older than now */
    p = planner_of(e, &h, &cs, "r1", 10000);
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    s = live_tasks(e);
    /* by priority (ns.small has most to gain); old and off declare
     * max_snapshot_age_days, a property they lack: apply-properties; off's
     * disabled expire and rewrite-manifests are never due; healthy none */
    ZBT_EQ_STR(s.buf, "ns.small compact;ns.small rewrite-manifests;"
                      "ns.old apply-properties;ns.old expire;"
                      "ns.off apply-properties;ns.props apply-properties;");
    zb_planner_counters_get(p, &c);
    ZBT_EQ_INT(c.leader, 1);
    ZBT_EQ_U64(c.added, 6);
    ZBT_EQ_U64(c.tables_seen, 5);
    ZBT_EQ_U64(c.table_errors, 0);
    ZBT_EQ_INT(h.released, 1);
    /* live tasks are not planned twice */
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    ZBT_EQ_INT(live_tasks(e).n, 6);
    zb_planner_counters_get(p, &c);
    ZBT_EQ_U64(c.added, 6);
    ZBT_EQ_U64(c.cycles, 2);
    zb_planner_free(p);
    zb_table_config_free(h.tc);
    of_close(&of);
}
BOTH(due_tables)

/* ---- min_interval and the orphans rule (the pure rules) ---- */

static zb_planner_signals healthy_signals(void)
{
    zb_planner_signals s;

    memset(&s, 0, sizeof s);
    s.now_ms = (int64_t)1700000000000;
    s.has_snapshot = 1;
    s.data_files = 1;
    s.data_bytes = 100 << 20;
    s.manifests = 1;
    s.snapshots = 1;
    s.target_bytes = 128 << 20;
    s.min_input_files = 2;
    s.min_input_manifests = 2;
    s.min_snapshots_to_keep = 1;
    return s;
}

static void test_service_planner_rules(void)
{
    static const char cfg_text[] =
        "{\"version\": 2, \"warehouse\": \"wh\", \"defaults\": {"
        " \"schedule\": {\"compact\": {\"min_interval_minutes\": 10},"
        "               \"expire\": {\"min_interval_minutes\": 30}}},"
        " \"namespaces\": {\"ns\": {\"tables\": {\"t\": {"
        " \"schedule\": {\"compact\": {\"min_interval_minutes\": 0}}}}}}}";
    zb_table_config *tc = NULL;
    zb_tc_effective dflt, tbl;
    zb_planner_signals s = healthy_signals();
    zb_ctx ctx;
    int due[ZB_PLANNER_OPS];

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_table_config_parse(&tc, &ctx, "tc.json", cfg_text,
                                     strlen(cfg_text)), &ctx);
    zb_table_config_effective(&dflt, tc, "ns.other");
    zb_table_config_effective(&tbl, tc, "ns.t");
    /* per operation: the table's compact, the defaults' expire */
    ZBT_EQ_INT((int)zb_planner_min_interval_ms(&dflt, ZB_MAINT_COMPACT),
               600000);
    ZBT_EQ_INT((int)zb_planner_min_interval_ms(&tbl, ZB_MAINT_COMPACT), 0);
    ZBT_EQ_INT((int)zb_planner_min_interval_ms(&tbl, ZB_MAINT_EXPIRE),
               1800000);
    ZBT_EQ_INT((int)zb_planner_min_interval_ms(&tbl, ZB_MAINT_REMOVE_ORPHANS),
               ZB_PLANNER_ORPHANS_INTERVAL_MIN * 60000);
    /* a healthy table: nothing */
    zb_planner_due(due, &s, &dflt);
    for (int op = 0; op < ZB_PLANNER_OPS; op++)
        ZBT_EQ_INT(due[op], 0);
    ZBT_EQ_INT(zb_planner_priority(&s, due), 0);
    /* small files: due, unless it succeeded within the interval */
    s.data_files = 50;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 1);
    s.last_success_ms[ZB_MAINT_COMPACT] = s.now_ms - 5 * 60000;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 0);
    zb_planner_due(due, &s, &tbl);  /* interval 0 there */
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 1);
    s.last_success_ms[ZB_MAINT_COMPACT] = s.now_ms - 11 * 60000;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 1);
    /* fewer files than min_input_files: not due */
    s.data_files = 1;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 0);
    /* delete files: compact and remove-dangling-deletes */
    s.delete_files = 3;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_COMPACT], 1);
    ZBT_EQ_INT(due[ZB_MAINT_REMOVE_DANGLING], 1);
    s.delete_files = 0;
    /* remove-orphans after a compaction attempt, once per its interval */
    s.last_compact_attempt_ms = s.now_ms - 60000;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_REMOVE_ORPHANS], 1);
    s.last_success_ms[ZB_MAINT_REMOVE_ORPHANS] = s.now_ms - 30000;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_REMOVE_ORPHANS], 0);
    /* manifests at the minimum */
    s.manifests = 2;
    zb_planner_due(due, &s, &dflt);
    ZBT_EQ_INT(due[ZB_MAINT_REWRITE_MANIFESTS], 1);
    /* more to gain per byte ranks first; the age term lifts old ones */
    {
        zb_planner_signals a = healthy_signals(), b = healthy_signals();
        int da[ZB_PLANNER_OPS], db[ZB_PLANNER_OPS];

        a.data_files = 1000;
        b.data_files = 10;
        zb_planner_due(da, &a, &dflt);
        zb_planner_due(db, &b, &dflt);
        ZBT_CHECK(zb_planner_priority(&a, da) > zb_planner_priority(&b, db));
        a.last_success_ms[ZB_MAINT_COMPACT] = a.now_ms - 2 * 3600000;
        b.last_success_ms[ZB_MAINT_COMPACT] = b.now_ms - 300 * 3600000;
        ZBT_CHECK(zb_planner_priority(&b, db) >
                  zb_planner_priority(&b, db) - 1);
        {
            int pb_old = zb_planner_priority(&b, db);

            b.last_success_ms[ZB_MAINT_COMPACT] = b.now_ms - 3600000;
            ZBT_CHECK(pb_old > zb_planner_priority(&b, db));
        }
        /* compact's estimate: the data, at most 4 targets */
        ZBT_EQ_U64(zb_planner_estimate_memory(&a, ZB_MAINT_COMPACT),
                   (uint64_t)100 << 20);
        a.data_bytes = (int64_t)10 << 30;
        ZBT_EQ_U64(zb_planner_estimate_memory(&a, ZB_MAINT_COMPACT),
                   (uint64_t)512 << 20);
        ZBT_EQ_U64(zb_planner_estimate_memory(&a, ZB_MAINT_EXPIRE), 0);
    }
    zb_table_config_free(tc);
}

static void test_service_planner_schedule_validate(void)
{
    static const char *const bad[] = {
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": {\"schedule\":"
        " {\"compactt\": {\"min_interval_minutes\": 1}}}}",
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": {\"schedule\":"
        " {\"compact\": {\"min_interval_minutes\": -1}}}}",
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": {\"schedule\":"
        " {\"compact\": {\"interval\": 1}}}}",
        "{\"version\": 2, \"warehouse\": \"w\", \"defaults\": {\"schedule\":"
        " [1]}}",
        NULL
    };
    static const char *const want[] = {
        "defaults.schedule", "defaults.schedule.compact.min_interval_minutes",
        "defaults.schedule.compact", "defaults.schedule"
    };

    for (int i = 0; bad[i] != NULL; i++) {
        zb_table_config *tc = NULL;
        zb_ctx ctx;

        zb_ctx_init(&ctx);
        ZBT_RC(zb_table_config_parse(&tc, &ctx, "tc.json", bad[i],
                                     strlen(bad[i])), ZB_EUSAGE);
        ZBT_CONTAINS(ctx.err.msg, want[i]);
        ZBT_CHECK(tc == NULL);
    }
}

/* A success of expire recorded now holds it back for the interval. */
static void min_interval(q_env *e)
{
    of_env of;
    host_state h;
    zb_size_classes cs = classes_of(100);
    zb_attempt_result r;
    zb_planner *p;
    int64_t now = 0;
    task_text s;

    make_tables(&of);
    memset(&h, 0, sizeof h);
    h.of = &of;
    ZBT_OK_CTX(zb_table_config_parse(&h.tc, &e->ctx, "table-config.json",
                                     tables_config, strlen(tables_config)),
               &e->ctx);
    ZBT_OK_CTX(zb_sqldb_now_ms(e->db, &e->ctx, &now), &e->ctx);
    memset(&r, 0, sizeof r);
    r.outcome = ZB_OUTCOME_SUCCESS;
    r.started_ms = now - 1000;
    r.finished_ms = now;
    ZBT_OK_CTX(zb_queue_record_run(e->q, &e->ctx, "wh", "ns.old", "expire",
                                   &r), &e->ctx);
    ZBT_OK_CTX(zb_queue_record_run(e->q, &e->ctx, "wh", "ns.small",
                                   "compact", &r), &e->ctx);
    q_sleep_ms(5);
    p = planner_of(e, &h, &cs, "r1", 10000);
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    /* compact and old's expire succeeded just now: not due; compact ran,
     * so remove-orphans is due on ns.small */
    s = live_tasks(e);
    ZBT_EQ_STR(s.buf, "ns.small rewrite-manifests;ns.small remove-orphans;"
                      "ns.off apply-properties;ns.old apply-properties;"
                      "ns.props apply-properties;");
    zb_planner_free(p);
    zb_table_config_free(h.tc);
    of_close(&of);
}
BOTH(min_interval)

/* ---- capacity per class ---- */

static void register_worker(q_env *e, const char *id, const char *cls)
{
    zb_worker_row w;

    memset(&w, 0, sizeof w);
    w.id = id;
    w.host = "h";
    w.size_class = cls;
    w.memory_bytes = 1 << 30;
    w.cores = 1;
    ZBT_OK_CTX(zb_queue_worker_register(e->q, &e->ctx, &w), &e->ctx);
}

static void capacity(q_env *e)
{
    zb_size_classes cs = classes_of(3);
    zb_take_opts to;
    zb_task t;
    int64_t free_slots = -1, alive = -1;
    int got = 0;

    /* no worker: the class's max_jobs (scale from zero) */
    ZBT_OK_CTX(zb_planner_capacity(e->q, &e->ctx, &cs.c[0], 60000,
                                   &free_slots, &alive), &e->ctx);
    ZBT_EQ_INT((int)free_slots, 3);
    ZBT_EQ_INT((int)alive, 0);
    /* two live workers, one running a task: one free slot */
    register_worker(e, "wa", "small");
    register_worker(e, "wb", "small");
    register_worker(e, "wl", "large");
    q_env_add(e, "ns.a", "compact", 0, "small");
    to.worker_id = "wa";
    to.size_class = "small";
    to.lease_ms = 60000;
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &to, &t, &got), &e->ctx);
    ZBT_EQ_INT(got, 1);
    ZBT_OK_CTX(zb_planner_capacity(e->q, &e->ctx, &cs.c[0], 60000,
                                   &free_slots, &alive), &e->ctx);
    ZBT_EQ_INT((int)alive, 2);
    ZBT_EQ_INT((int)free_slots, 1);
    /* a scheduled task of the class takes the free slot */
    q_env_add(e, "ns.b", "compact", 0, "small");
    ZBT_OK_CTX(zb_planner_capacity(e->q, &e->ctx, &cs.c[0], 60000,
                                   &free_slots, &alive), &e->ctx);
    ZBT_EQ_INT((int)free_slots, 0);
    /* the large class: its own worker, idle */
    ZBT_OK_CTX(zb_planner_capacity(e->q, &e->ctx, &cs.c[1], 60000,
                                   &free_slots, &alive), &e->ctx);
    ZBT_EQ_INT((int)alive, 1);
    ZBT_EQ_INT((int)free_slots, 1);
    /* stale heartbeats: no live worker; max_jobs less running, queued */
    q_env_exec(e, "UPDATE zamboni_workers SET heartbeat_ms = 1");
    ZBT_OK_CTX(zb_planner_capacity(e->q, &e->ctx, &cs.c[0], 60000,
                                   &free_slots, &alive), &e->ctx);
    ZBT_EQ_INT((int)alive, 0);
    ZBT_EQ_INT((int)free_slots, 1);
}
BOTH(capacity)

/* A cycle creates no more than the free slots, the best tables first. */
static void capacity_cycle(q_env *e)
{
    of_env of;
    host_state h;
    zb_size_classes cs = classes_of(1);
    zb_planner *p;
    zb_planner_counters c;
    task_text s;

    make_tables(&of);
    memset(&h, 0, sizeof h);
    h.of = &of;
    ZBT_OK_CTX(zb_table_config_parse(&h.tc, &e->ctx, "table-config.json",
                                     tables_config, strlen(tables_config)),
               &e->ctx);
    q_sleep_ms(5);
    p = planner_of(e, &h, &cs, "r1", 10000);
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    s = live_tasks(e);
    ZBT_EQ_INT(s.n, 1);
    /* the queued one fills the class: the next cycle adds none */
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    ZBT_EQ_INT(live_tasks(e).n, 1);
    zb_planner_counters_get(p, &c);
    ZBT_EQ_U64(c.added, 1);
    zb_planner_free(p);
    zb_table_config_free(h.tc);
    of_close(&of);
}
BOTH(capacity_cycle)

/* ---- the cap and displacement ---- */

static zb_displace_result displace(q_env *e, const char *table, int prio,
                                   int64_t cap)
{
    zb_task_new t;
    zb_displace_result r;

    memset(&t, 0, sizeof t);
    t.warehouse = "wh";
    t.table = table;
    t.operation = "compact";
    t.size_class = "small";
    t.priority = prio;
    ZBT_OK_CTX(zb_queue_enqueue_displace(e->q, &e->ctx, &t, cap, &r),
               &e->ctx);
    return r;
}

typedef struct evicted_count {
    int evicted;
    int64_t task;
} evicted_count;

static int count_evicted(void *payload, const zb_attempt *a)
{
    evicted_count *c = payload;

    if (strcmp(a->outcome, ZB_OUTCOME_EVICTED) == 0 && a->task_id == c->task)
        c->evicted++;
    return 0;
}

static void cap_displace(q_env *e)
{
    zb_displace_result r;
    zb_take_opts to;
    zb_task t;
    evicted_count ec;
    int64_t ex5, ex1, run;
    char sql[160];
    int got = 0;

    ex5 = q_env_add(e, "ns.ex5", "compact", 5, "small");
    ex1 = q_env_add(e, "ns.ex1", "compact", 1, "small");
    run = q_env_add(e, "ns.run", "compact", 0, "small");
    q_env_add(e, "ns.sched", "compact", -5, "small");
    snprintf(sql, sizeof sql, "UPDATE zamboni_tasks SET state = 'excluded' "
             "WHERE id IN (%lld, %lld)", (long long)ex5, (long long)ex1);
    q_env_exec(e, sql);
    to.worker_id = "w";
    to.size_class = "small";
    to.lease_ms = 60000;
    ZBT_OK_CTX(zb_queue_take(e->q, &e->ctx, &to, &t, &got), &e->ctx);
    ZBT_EQ_INT(got, 1);
    ZBT_CHECK(t.id == run);        /* the only due scheduled one first */
    /* below the cap: inserted */
    r = displace(e, "ns.new0", 0, 5);
    ZBT_EQ_INT(r.outcome, ZB_DISPLACE_INSERTED);
    /* a live key: nothing */
    r = displace(e, "ns.new0", 0, 5);
    ZBT_EQ_INT(r.outcome, ZB_DISPLACE_LIVE);
    /* at the cap: the lowest-priority excluded one goes first */
    r = displace(e, "ns.new1", 0, 5);
    ZBT_EQ_INT(r.outcome, ZB_DISPLACE_EVICTED);
    ZBT_CHECK(r.evicted_id == ex1);
    r = displace(e, "ns.new2", 0, 5);
    ZBT_EQ_INT(r.outcome, ZB_DISPLACE_EVICTED);
    ZBT_CHECK(r.evicted_id == ex5);
    /* only scheduled and running ones left: refused */
    r = displace(e, "ns.new3", 100, 5);
    ZBT_EQ_INT(r.outcome, ZB_DISPLACE_REFUSED);
    ZBT_CHECK(r.id == 0);
    ZBT_EQ_INT(live_tasks(e).n, 5);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, run, &t), &e->ctx);
    ZBT_EQ_STR(t.state, "running");
    /* the evictions are in the run history */
    memset(&ec, 0, sizeof ec);
    ec.task = ex1;
    ZBT_OK_CTX(zb_queue_attempts(e->q, &e->ctx, 0, 0, count_evicted, &ec),
               &e->ctx);
    ZBT_EQ_INT(ec.evicted, 1);
}
BOTH(cap_displace)

/* The planner's counters at a full queue: refused, then evicted. */
static void cap_counters(q_env *e)
{
    of_env of;
    host_state h;
    zb_size_classes cs = classes_of(100);
    zb_planner *p;
    zb_planner_counters c;
    int64_t ex;
    char sql[128];

    make_tables(&of);
    memset(&h, 0, sizeof h);
    h.of = &of;
    ZBT_OK_CTX(zb_table_config_parse(&h.tc, &e->ctx, "table-config.json",
                                     tables_config, strlen(tables_config)),
               &e->ctx);
    q_sleep_ms(5);
    ex = q_env_add(e, "ns.x1", "compact", 0, "large");
    snprintf(sql, sizeof sql, "UPDATE zamboni_tasks SET state = 'excluded' "
             "WHERE id = %lld", (long long)ex);
    q_env_exec(e, sql);
    q_env_add(e, "ns.x2", "compact", 0, "large");
    p = planner_of(e, &h, &cs, "r1", 3);
    ZBT_OK_CTX(zb_planner_cycle(p, &e->ctx), &e->ctx);
    zb_planner_counters_get(p, &c);
    /* cap 3, 2 live: one inserted, one evicts the excluded, the rest
     * refused (one per table: its later operations wait) */
    ZBT_EQ_U64(c.added, 2);
    ZBT_EQ_U64(c.evicted, 1);
    ZBT_CHECK(c.refused >= 1);
    ZBT_EQ_INT(live_tasks(e).n, 3);
    zb_planner_free(p);
    zb_table_config_free(h.tc);
    of_close(&of);
}
BOTH(cap_counters)

/* ---- the leader lease ---- */

static void leader(q_env *e)
{
    host_state h;
    zb_size_classes cs = classes_of(1);
    zb_planner *p1, *p2;
    zb_planner_counters c;
    char holder[64];
    int64_t exp = 0;
    int held = -1;

    memset(&h, 0, sizeof h);      /* no table config: nothing planned */
    p1 = planner_of(e, &h, &cs, "replica-1", 10000);
    p2 = planner_of(e, &h, &cs, "replica-2", 10000);
    ZBT_OK_CTX(zb_planner_cycle(p1, &e->ctx), &e->ctx);
    ZBT_OK_CTX(zb_planner_cycle(p2, &e->ctx), &e->ctx);
    zb_planner_counters_get(p1, &c);
    ZBT_EQ_INT(c.leader, 1);
    ZBT_EQ_U64(c.cycles, 1);
    zb_planner_counters_get(p2, &c);
    ZBT_EQ_INT(c.leader, 0);
    ZBT_EQ_U64(c.cycles, 0);
    ZBT_OK_CTX(zb_queue_leader_get(e->q, &e->ctx, "planner", holder,
                                   sizeof holder, &exp), &e->ctx);
    ZBT_EQ_STR(holder, "replica-1");
    /* renewing keeps it */
    ZBT_OK_CTX(zb_planner_cycle(p1, &e->ctx), &e->ctx);
    zb_planner_counters_get(p1, &c);
    ZBT_EQ_INT(c.leader, 1);
    /* a clean stop hands it over at once */
    zb_planner_free(p1);
    ZBT_OK_CTX(zb_planner_cycle(p2, &e->ctx), &e->ctx);
    zb_planner_counters_get(p2, &c);
    ZBT_EQ_INT(c.leader, 1);
    zb_planner_free(p2);
    /* expiry: a lease not renewed is taken over */
    ZBT_OK_CTX(zb_queue_leader_acquire(e->q, &e->ctx, "l2", "a", 300, &held),
               &e->ctx);
    ZBT_EQ_INT(held, 1);
    ZBT_OK_CTX(zb_queue_leader_acquire(e->q, &e->ctx, "l2", "b", 300, &held),
               &e->ctx);
    ZBT_EQ_INT(held, 0);
    ZBT_OK_CTX(zb_queue_leader_acquire(e->q, &e->ctx, "l2", "a", 300, &held),
               &e->ctx);
    ZBT_EQ_INT(held, 1);
    q_sleep_ms(1100);              /* PostgreSQL's now(): ms; margin */
    ZBT_OK_CTX(zb_queue_leader_acquire(e->q, &e->ctx, "l2", "b", 300, &held),
               &e->ctx);
    ZBT_EQ_INT(held, 1);
    ZBT_OK_CTX(zb_queue_leader_get(e->q, &e->ctx, "l2", holder,
                                   sizeof holder, &exp), &e->ctx);
    ZBT_EQ_STR(holder, "b");
    /* releasing another's lease does nothing */
    ZBT_OK_CTX(zb_queue_leader_release(e->q, &e->ctx, "l2", "a"), &e->ctx);
    ZBT_OK_CTX(zb_queue_leader_get(e->q, &e->ctx, "l2", holder,
                                   sizeof holder, &exp), &e->ctx);
    ZBT_EQ_STR(holder, "b");
}
BOTH(leader)

/* A version-1 queue migrates to 2 (the lease table) and keeps its rows. */
static void migrate_from_1(q_env *e)
{
    int64_t id = q_env_add(e, "ns.keep", "compact", 0, "small");
    zb_task t;
    int from = -1, to = -1;

    q_env_exec(e, "DROP TABLE zamboni_leader");
    q_env_exec(e, "UPDATE zamboni_schema SET version = 1");
    ZBT_OK_CTX(zb_queue_migrate(e->db, &e->ctx, &from, &to), &e->ctx);
    ZBT_EQ_INT(from, 1);
    ZBT_EQ_INT(to, 2);
    ZBT_OK_CTX(zb_queue_get(e->q, &e->ctx, id, &t), &e->ctx);
    ZBT_EQ_STR(t.table, "ns.keep");
    q_env_exec(e, "SELECT count(*) FROM zamboni_leader");
}
BOTH(migrate_from_1)

const zbt_case test_service_planner[] = {
    ZBT_CASE(test_service_planner_rules),
    ZBT_CASE(test_service_planner_schedule_validate),
    ZBT_CASE(test_service_planner_due_tables__sqlite),
    ZBT_CASE(test_service_planner_due_tables__pg),
    ZBT_CASE(test_service_planner_min_interval__sqlite),
    ZBT_CASE(test_service_planner_min_interval__pg),
    ZBT_CASE(test_service_planner_capacity__sqlite),
    ZBT_CASE(test_service_planner_capacity__pg),
    ZBT_CASE(test_service_planner_capacity_cycle__sqlite),
    ZBT_CASE(test_service_planner_capacity_cycle__pg),
    ZBT_CASE(test_service_planner_cap_displace__sqlite),
    ZBT_CASE(test_service_planner_cap_displace__pg),
    ZBT_CASE(test_service_planner_cap_counters__sqlite),
    ZBT_CASE(test_service_planner_cap_counters__pg),
    ZBT_CASE(test_service_planner_leader__sqlite),
    ZBT_CASE(test_service_planner_leader__pg),
    ZBT_CASE(test_service_planner_migrate_from_1__sqlite),
    ZBT_CASE(test_service_planner_migrate_from_1__pg),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_service_planner, NULL };

    return zbt_main(argc, argv, suites);
}

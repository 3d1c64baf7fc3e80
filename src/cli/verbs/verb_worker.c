/*
 * cli/verbs/verb_worker.c - `zamboni worker`: the flags and settings of
 * the worker (durations, size class, workers), its resources (cgroup or
 * machine; the "Optimize:" line), the queue (queue_open.h), the host
 * callbacks the worker loops use (a catalog handle per loop sharing the
 * queue's database when the catalog lives there, each warehouse's table
 * config), SIGTERM/SIGINT raising the drain, then zb_worker_run
 * (service/worker/worker.h).
 *
 * For tests only: ZB_TEST_CGROUP_ROOT (a folder laid out like
 * /sys/fs/cgroup) with ZB_TEST_PROC_CGROUP (a file in /proc/self/cgroup's
 * format) replace the real cgroup files, ZB_TEST_WORKER_GROUP_DELAY_MS
 * pauses after each compaction group is written, ZB_TEST_WORKER_IGNORE_LOST=1
 * leaves a lost lease to the commit fence, and ZB_TEST_WORKER_POLL_MS the
 * idle poll interval (default 1000). They are not settings: no ZAMBONI_
 * prefix, never in zamboni.yml.
 */
#define _XOPEN_SOURCE 700   /* realpath, gethostname */
#define ZB_MODULE "cli"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit.h"
#include "cli/verbs/queue_open.h"
#include "cli/verbs/verbs.h"
#include "exec/spill.h"
#include "exec/sys_limits.h"
#include "service/worker/worker.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"

#define MAX_WAREHOUSES 64

typedef struct tc_entry {
    char warehouse[256];
    zb_table_config *tc;           /* NULL: none on disk (built-in values) */
} tc_entry;

typedef struct host_state {
    zb_verb_env *env;
    zb_queue *queue;
    int share_db;                  /* catalogs use the queue's zb_sqldb */
    pthread_mutex_t mu;            /* settings and the cache below */
    size_t n_tc;
    tc_entry tcs[MAX_WAREHOUSES];
} host_state;

static atomic_int drain_requested;

static void log_line(const char *line, void *payload)
{
    (void)payload;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static int host_open_catalog(zb_catalog **out, zb_ctx *ctx,
                             const char *warehouse, void *payload)
{
    host_state *h = payload;
    int rc;

    pthread_mutex_lock(&h->mu);
    rc = zb_verb_service_catalog(out, ctx, h->env, h->queue, h->share_db,
                                 warehouse);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* $ZAMBONI_ROOT/configs/<warehouse>/table-config.json, loaded once. */
static int host_table_config(const zb_table_config **out, zb_ctx *ctx,
                             const char *warehouse, void *payload)
{
    host_state *h = payload;
    const char *root = zb_settings_get(h->env->settings, ZB_SET_ROOT);
    zb_table_config *tc = NULL;
    char path[PATH_MAX];
    size_t i;
    int rc = ZB_OK;

    *out = NULL;
    if (strchr(warehouse, '/') != NULL || strcmp(warehouse, ".") == 0 ||
        strcmp(warehouse, "..") == 0 || warehouse[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "warehouse '%.200s' is not a plain "
                       "name", warehouse);
    pthread_mutex_lock(&h->mu);
    for (i = 0; i < h->n_tc; i++)
        if (strcmp(h->tcs[i].warehouse, warehouse) == 0) {
            *out = h->tcs[i].tc;
            goto done;
        }
    if (root == NULL || h->n_tc == MAX_WAREHOUSES)
        goto done;
    snprintf(path, sizeof path, "%s/configs/%s/table-config.json", root,
             warehouse);
    if (access(path, F_OK) == 0) {
        if ((rc = zb_table_config_load(&tc, ctx, path)) < 0 ||
            (rc = zb_table_config_check_warehouse(ctx, tc, warehouse)) < 0) {
            zb_table_config_free(tc);
            goto done;
        }
    }
    snprintf(h->tcs[h->n_tc].warehouse, sizeof h->tcs[0].warehouse, "%s",
             warehouse);
    h->tcs[h->n_tc++].tc = tc;
    *out = tc;
done:
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int duration(int64_t *out, zb_ctx *ctx, const zb_settings *s,
                    zb_setting_id id)
{
    return zb_settings_duration_ms(out, ctx, s, id);
}

static void read_limits(zb_sys_limits *l)
{
    const char *root = getenv("ZB_TEST_CGROUP_ROOT");
    const char *proc = getenv("ZB_TEST_PROC_CGROUP");

    if (root != NULL && proc != NULL)
        zb_sys_limits_read_tree(l, root, proc);
    else
        zb_sys_limits_read(l, NULL);
}

static int fail_usage(const char *msg)
{
    fprintf(stderr, "zamboni worker: %s\n", msg);
    return ZB_EXIT_USAGE;
}

int zb_cli_worker_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_verb_env env;
    zb_worker_opts o = ZB_WORKER_OPTS_INIT;
    zb_worker_resources res;
    zb_worker_summary sum;
    zb_size_classes classes;
    zb_catalog_config cfg;
    zb_sys_limits lim;
    host_state *h = NULL;
    zb_queue *q = NULL;
    const char *v;
    char line[1024], host[256];
    uint64_t spill_total = 0, workers = 1;
    int help = 0, code = ZB_EXIT_OK, rc;
    size_t i;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    memset(&env, 0, sizeof env);
    if ((a = zb_calloc(1, sizeof *a)) == NULL) {
        fputs("zamboni worker: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_WORKER, argc, argv, 0, 0, &help)) !=
        ZB_EXIT_OK || help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_WORKER);
        zb_free(a);
        return code;
    }
    env.no_tc = 1;                 /* each task's warehouse has its own */
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0)
        goto fail;

    /* durations, the lease rule, the class, the workers */
    if ((rc = duration(&o.drain_timeout_ms, &ctx, env.settings,
                       ZB_SET_DRAIN_TIMEOUT)) < 0 ||
        (rc = duration(&o.max_lifetime_ms, &ctx, env.settings,
                       ZB_SET_MAX_LIFETIME)) < 0 ||
        (rc = duration(&o.idle_exit_ms, &ctx, env.settings,
                       ZB_SET_IDLE_EXIT_AFTER)) < 0 ||
        (rc = duration(&o.lease_ms, &ctx, env.settings,
                       ZB_SET_LEASE_SECONDS)) < 0 ||
        (rc = duration(&o.heartbeat_ms, &ctx, env.settings,
                       ZB_SET_HEARTBEAT_SECONDS)) < 0)
        goto fail;
    if (o.lease_ms < 1000) {
        snprintf(line, sizeof line, "the lease (%s, %s) must be at least 1s",
                 zb_settings_get(env.settings, ZB_SET_LEASE_SECONDS),
                 zb_settings_origin(env.settings, ZB_SET_LEASE_SECONDS));
        code = fail_usage(line);
        goto done;
    }
    if (o.heartbeat_ms <= 0 || o.heartbeat_ms * 3 > o.lease_ms) {
        snprintf(line, sizeof line, "the heartbeat (%s, %s) must be more "
                 "than 0 and at most a third of the lease (%s, %s)",
                 zb_settings_get(env.settings, ZB_SET_HEARTBEAT_SECONDS),
                 zb_settings_origin(env.settings, ZB_SET_HEARTBEAT_SECONDS),
                 zb_settings_get(env.settings, ZB_SET_LEASE_SECONDS),
                 zb_settings_origin(env.settings, ZB_SET_LEASE_SECONDS));
        code = fail_usage(line);
        goto done;
    }
    /* ZAMBONI_SIZE_CLASSES, else size_classes: of zamboni.yml (the
     * settings' order), else the built-in class */
    if ((rc = zb_verb_size_classes(&classes, &env, &ctx)) < 0)
        goto fail;
    if ((v = zb_settings_get(env.settings, ZB_SET_SIZE_CLASS)) != NULL) {
        o.size_class = v;
        if (zb_size_class_find(&classes, v) == NULL) {
            snprintf(line, sizeof line, "size class '%.200s' (%.200s) is "
                     "not configured (size_classes: in zamboni.yml or "
                     "ZAMBONI_SIZE_CLASSES)", v,
                     zb_settings_origin(env.settings, ZB_SET_SIZE_CLASS));
            code = fail_usage(line);
            goto done;
        }
    } else {
        o.size_class = classes.c[0].name;
    }
    if ((v = zb_settings_get(env.settings, ZB_SET_WORKERS)) != NULL &&
        zb_str_to_u64(&workers, v) < 0)
        workers = 1;               /* settings checked it: 1..256 */
    if ((v = zb_settings_get(env.settings, ZB_SET_SPILL_DISK_LIMIT_BYTES)) !=
            NULL &&
        zb_str_to_u64(&spill_total, v) < 0)
        spill_total = 0;
    if ((v = getenv("ZB_TEST_WORKER_POLL_MS")) != NULL) {
        uint64_t ms;
        if (zb_str_to_u64(&ms, v) == 0 && ms > 0 && ms < 600000)
            o.poll_ms = (int64_t)ms;
    }
    if ((v = getenv("ZB_TEST_WORKER_IGNORE_LOST")) != NULL && v[0] == '1')
        o.test_ignore_lost = 1;
    if ((v = getenv("ZB_TEST_WORKER_GROUP_DELAY_MS")) != NULL) {
        uint64_t ms;
        if (zb_str_to_u64(&ms, v) == 0 && ms < 600000)
            o.test_group_delay_ms = (int64_t)ms;
    }

    /* resources: each worker's share; one line */
    read_limits(&lim);
    zb_worker_resources_compute(&res, &lim,
                                zb_resources_headroom(lim.mem_limit_bytes),
                                (int)workers, spill_total);
    if (res.no_limit)
        fprintf(stderr, "zamboni worker: warning: no cgroup memory or CPU "
                "limit found: sharing the machine's memory and cores\n");
    zb_worker_resources_line(line, sizeof line, &res, o.size_class);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    zb_spill_set_limit(spill_total);

    /* the queue, and whether the catalog shares its database */
    if ((rc = zb_verb_queue_open(&q, &env, &ctx)) < 0)
        goto fail;
    zb_verb_queue_clock_check(q, "worker");
    if ((h = zb_calloc(1, sizeof *h)) == NULL) {
        rc = zb_fail_oom(&ctx);
        goto fail;
    }
    pthread_mutex_init(&h->mu, NULL);
    h->env = &env;
    h->queue = q;
    memset(&cfg, 0, sizeof cfg);
    if ((rc = zb_settings_catalog_config(&cfg, &ctx, env.settings)) < 0)
        goto fail;
    h->share_db = zb_verb_catalog_in_queue_db(env.settings, &cfg);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';

    o.queue = q;
    o.classes = &classes;
    o.workers = (int)workers;
    o.memory_bytes = res.memory_bytes;
    o.cores = res.cores;
    o.spill_bytes = res.spill_bytes;
    o.host_name = host;
    o.drain = &drain_requested;
    o.host.open_catalog = host_open_catalog;
    o.host.table_config = host_table_config;
    o.host.log_line = log_line;
    o.host.payload = h;
    zb_verb_catch_stop_signals(&drain_requested);
    if ((rc = zb_worker_run(&o, &ctx, &sum)) < 0)
        goto fail;
    if (sum.left_running) {
        /* loops still run on what we would free: leave at once */
        fflush(stdout);
        fflush(stderr);
        _exit(ZB_EXIT_OK);
    }
    code = ZB_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "zamboni worker: %s\n",
            ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    code = zb_cli_exit_code(rc);
done:
    if (h != NULL) {
        for (i = 0; i < h->n_tc; i++)
            zb_table_config_free(h->tcs[i].tc);
        pthread_mutex_destroy(&h->mu);
        zb_free(h);
    }
    zb_queue_close(q);
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

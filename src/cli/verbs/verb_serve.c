/*
 * cli/verbs/verb_serve.c - `zamboni serve`: its flags and settings
 * (--listen, --warehouse repeated, --plan-interval, --queue-uri), the
 * queue (schema checked, never applied), the clock rule, the host
 * callbacks of the planner (a catalog handle per warehouse, sharing the
 * queue's database when the catalog lives there; each warehouse's table
 * config, loaded at start), a planner thread that runs a cycle every
 * interval, the HTTP server (service/http/http.h) answering meanwhile,
 * and SIGTERM/SIGINT: stop planning, give up the leader lease, stop HTTP,
 * exit 0. Log lines: see the verb's help (verb_args.c).
 */
#define _XOPEN_SOURCE 700   /* realpath, gethostname, nanosleep */
#define ZB_MODULE "cli"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/exit.h"
#include "cli/verbs/queue_open.h"
#include "cli/verbs/verbs.h"
#include "ops/compact/compact.h"
#include "service/http/http.h"
#include "service/planner/planner.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

#define MAX_WAREHOUSES 64
#define MAX_ARGS 512

typedef struct serve_state {
    zb_verb_env *env;
    zb_queue *queue;
    int share_db;                  /* catalogs use the queue's zb_sqldb */
    pthread_mutex_t mu;            /* the settings while a catalog opens */
    pthread_mutex_t pmu;           /* planner: HTTP reads it, stop frees it */
    size_t n_wh;
    char warehouses[MAX_WAREHOUSES][256];
    const char *wh_ptrs[MAX_WAREHOUSES];
    zb_table_config *tcs[MAX_WAREHOUSES];   /* NULL: none on disk */
    zb_planner *planner;
    int64_t interval_ms;
    char replica[300];
} serve_state;

static atomic_int stop_requested;

static void log_line(const char *line, void *payload)
{
    (void)payload;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static int open_catalog(void *payload, zb_ctx *ctx, const char *warehouse,
                        zb_catalog **out)
{
    serve_state *s = payload;
    int rc;

    pthread_mutex_lock(&s->mu);
    rc = zb_verb_service_catalog(out, ctx, s->env, s->queue, s->share_db,
                                 warehouse);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Each cycle opens its catalogs afresh (open_catalog), so each is freed
 * after its warehouse's pass; serve kept them before, one per cycle. */
static void release_catalog(void *payload, const char *warehouse,
                            zb_catalog *cat)
{
    (void)payload;
    (void)warehouse;
    zb_catalog_free(cat);
}

static const zb_table_config *table_config(void *payload,
                                           const char *warehouse)
{
    serve_state *s = payload;
    size_t i;

    for (i = 0; i < s->n_wh; i++)
        if (strcmp(s->warehouses[i], warehouse) == 0)
            return s->tcs[i];
    return NULL;
}

/* The dashboard's plan of one table: `zamboni plan`'s report (the same
 * calls, verb_describe.c), with the warehouse's table config. */
static int table_plan(void *payload, zb_ctx *ctx, const char *warehouse,
                      const char *table, zb_buf *out)
{
    serve_state *s = payload;
    zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
    zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
    zb_compact_plan plan;
    zb_op_target tg;
    zb_verb_env env;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    size_t i;
    int rc;

    for (i = 0; i < s->n_wh; i++)
        if (strcmp(s->warehouses[i], warehouse) == 0)
            break;
    if (i == s->n_wh)
        return zb_fail(ctx, ZB_ENOTFOUND, "serve does not plan warehouse "
                       "%.200s", warehouse);
    if ((rc = open_catalog(s, ctx, warehouse, &cat)) < 0)
        return rc;
    memset(&plan, 0, sizeof plan);
    memset(&tg, 0, sizeof tg);
    tg.catalog = cat;
    tg.io = s->env->io;
    tg.ident = table;
    tg.dry_run = 1;
    env = *s->env;                 /* read only: its table config swapped */
    env.tc = s->tcs[i];
    mo.config = s->tcs[i];
    zb_verb_plan_opts(&co, &env, &mo, table);
    rc = zb_compact_plan_table(&plan, &t, &tg, ctx, &co);
    if (rc == ZB_OK)
        rc = zb_compact_plan_report(out, table, &plan);
    zb_compact_plan_free(&plan);
    zb_table_free(t);
    zb_catalog_free(cat);
    return rc;
}

static void planner_counters(void *payload, zb_planner_counters *out)
{
    serve_state *s = payload;

    pthread_mutex_lock(&s->pmu);
    if (s->planner != NULL)
        zb_planner_counters_get(s->planner, out);
    pthread_mutex_unlock(&s->pmu);
}

static int plain_name(const char *w)
{
    return w[0] != '\0' && w[0] != '.' && strchr(w, '/') == NULL &&
           strlen(w) < 256;
}

static int cmp_names(const void *x, const void *y)
{
    return strcmp((const char *)x, (const char *)y);
}

/* Every configs/<W>/ folder under the root, sorted. */
static int scan_warehouses(serve_state *s, const char *root)
{
    char path[PATH_MAX], sub[PATH_MAX + 512];
    struct dirent *de;
    struct stat st;
    DIR *d;

    if (root == NULL)
        return 0;
    snprintf(path, sizeof path, "%s/configs", root);
    if ((d = opendir(path)) == NULL)
        return 0;
    while ((de = readdir(d)) != NULL && s->n_wh < MAX_WAREHOUSES) {
        if (!plain_name(de->d_name))
            continue;
        if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub)
            continue;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(s->warehouses[s->n_wh++], sizeof s->warehouses[0], "%s",
                     de->d_name);
    }
    closedir(d);
    qsort(s->warehouses, s->n_wh, sizeof s->warehouses[0], cmp_names);
    return 0;
}

/* $ZAMBONI_ROOT/configs/<W>/table-config.json of each warehouse, now, so
 * that a broken one stops serve at start rather than every cycle. */
static int load_table_configs(serve_state *s, zb_ctx *ctx)
{
    const char *root = zb_settings_get(s->env->settings, ZB_SET_ROOT);
    char path[PATH_MAX];
    size_t i;
    int rc;

    for (i = 0; i < s->n_wh; i++) {
        s->wh_ptrs[i] = s->warehouses[i];
        if (root == NULL)
            continue;
        snprintf(path, sizeof path, "%s/configs/%s/table-config.json", root,
                 s->warehouses[i]);
        if (access(path, F_OK) != 0)
            continue;
        if ((rc = zb_table_config_load(&s->tcs[i], ctx, path)) < 0 ||
            (rc = zb_table_config_check_warehouse(ctx, s->tcs[i],
                                                  s->warehouses[i])) < 0)
            return rc;
    }
    return ZB_OK;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* A cycle every interval until the stop; the wait is cut in short steps
 * so that a signal ends it at once. */
static void *planner_main(void *arg)
{
    serve_state *s = arg;
    char line[1400];
    int64_t waited;
    zb_ctx ctx;
    int rc;

    while (!atomic_load(&stop_requested)) {
        zb_ctx_init(&ctx);
        ctx.stop = &stop_requested;
        if ((rc = zb_planner_cycle(s->planner, &ctx)) < 0) {
            snprintf(line, sizeof line, "serve replica=%s event=cycle "
                     "error=%s message=%s", s->replica, zb_rc_name(rc),
                     ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
            log_line(line, NULL);
        }
        for (waited = 0; waited < s->interval_ms &&
                         !atomic_load(&stop_requested);
             waited += 100)
            sleep_ms(s->interval_ms - waited < 100 ? s->interval_ms - waited
                                                   : 100);
    }
    return NULL;
}

static int fail_usage(const char *msg)
{
    fprintf(stderr, "zamboni serve: %s\n", msg);
    return ZB_EXIT_USAGE;
}

/*
 * --warehouse (and its alias --db) may repeat: taken out of argv here
 * (the flag table keeps one value a setting), the rest goes to the
 * common parser. *n_args -1: a --warehouse without its value.
 */
static int take_warehouses(serve_state *s, int argc, char **argv,
                           char **rest, int *n_rest)
{
    int i, n = 0;

    if (argc > MAX_ARGS)
        return -4;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;

        if (i > 0 && (strcmp(a, "--warehouse") == 0 ||
                      strcmp(a, "--db") == 0)) {
            if (i + 1 >= argc)
                return -1;
            v = argv[++i];
        } else if (i > 0 && strncmp(a, "--warehouse=", 12) == 0) {
            v = a + 12;
        } else if (i > 0 && strncmp(a, "--db=", 5) == 0) {
            v = a + 5;
        }
        if (v == NULL) {
            rest[n++] = argv[i];
            continue;
        }
        if (!plain_name(v))
            return -2;
        if (s->n_wh == MAX_WAREHOUSES)
            return -3;
        snprintf(s->warehouses[s->n_wh++], sizeof s->warehouses[0], "%s", v);
    }
    *n_rest = n;
    return 0;
}

int zb_cli_serve_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_verb_env env;
    zb_planner_opts po = ZB_PLANNER_OPTS_INIT;
    zb_http_opts ho = ZB_HTTP_OPTS_INIT;
    zb_size_classes classes;
    zb_catalog_config cfg;
    serve_state *s = NULL;
    zb_queue *q = NULL;
    zb_http *http = NULL;
    pthread_t planner_thread;
    int thread_started = 0;
    char *rest[MAX_ARGS];
    char line[2048], host[256], lhost[256], list[1024];
    const char *v;
    uint64_t u;
    int n_rest = 0, help = 0, code = ZB_EXIT_OK, lport, rc;
    size_t i;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    memset(&env, 0, sizeof env);
    if ((a = zb_calloc(1, sizeof *a)) == NULL ||
        (s = zb_calloc(1, sizeof *s)) == NULL) {
        fputs("zamboni serve: out of memory\n", stderr);
        zb_free(a);
        return ZB_EXIT_FAILED;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->pmu, NULL);
    if ((rc = take_warehouses(s, argc, argv, rest, &n_rest)) < 0) {
        code = fail_usage(rc == -1 ? "--warehouse needs a value" :
                          rc == -2 ? "a --warehouse value must be a plain "
                                     "name (no '/', not starting with '.')" :
                          rc == -3 ? "too many --warehouse (at most 64)"
                                   : "too many arguments");
        goto done;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_SERVE, n_rest, rest, 0, 0,
                              &help)) != ZB_EXIT_OK || help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_SERVE);
        goto done;
    }
    env.no_tc = 1;                 /* each warehouse has its own */
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0)
        goto fail;
    s->env = &env;

    /* the listen address, the interval, the classes, the warehouses */
    v = zb_settings_get(env.settings, ZB_SET_LISTEN);
    if ((rc = zb_http_parse_listen(v, lhost, sizeof lhost, &lport,
                                   &ctx)) < 0) {
        snprintf(line, sizeof line, "%s (%s)", ctx.err.msg,
                 zb_settings_origin(env.settings, ZB_SET_LISTEN));
        code = fail_usage(line);
        goto done;
    }
    if ((rc = zb_settings_duration_ms(&s->interval_ms, &ctx, env.settings,
                                      ZB_SET_PLAN_INTERVAL)) < 0)
        goto fail;
    if (s->interval_ms < 1000) {
        snprintf(line, sizeof line, "the plan interval (%s, %s) must be at "
                 "least 1s",
                 zb_settings_get(env.settings, ZB_SET_PLAN_INTERVAL),
                 zb_settings_origin(env.settings, ZB_SET_PLAN_INTERVAL));
        code = fail_usage(line);
        goto done;
    }
    if ((rc = zb_verb_size_classes(&classes, &env, &ctx)) < 0)
        goto fail;
    if (s->n_wh == 0)
        scan_warehouses(s, zb_settings_get(env.settings, ZB_SET_ROOT));
    if (s->n_wh == 0) {
        snprintf(line, sizeof line, "no warehouse to serve: give --warehouse "
                 "W (repeatable) or create %s/configs/W/ for each",
                 zb_settings_get(env.settings, ZB_SET_ROOT)
                     ? zb_settings_get(env.settings, ZB_SET_ROOT)
                     : "$ZAMBONI_ROOT");
        code = fail_usage(line);
        goto done;
    }
    if ((rc = load_table_configs(s, &ctx)) < 0)
        goto fail;

    /* the queue (schema checked), the clock, the catalogs' database */
    if ((rc = zb_verb_queue_open(&q, &env, &ctx)) < 0)
        goto fail;
    s->queue = q;
    zb_verb_queue_clock_check(q, "serve");
    memset(&cfg, 0, sizeof cfg);
    if ((rc = zb_settings_catalog_config(&cfg, &ctx, env.settings)) < 0)
        goto fail;
    s->share_db = zb_verb_catalog_in_queue_db(env.settings, &cfg);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(s->replica, sizeof s->replica, "%s-%ld", host, (long)getpid());

    /* the planner */
    po.queue = q;
    po.classes = &classes;
    po.n_warehouses = s->n_wh;
    po.warehouses = s->wh_ptrs;
    if ((v = zb_settings_get(env.settings, ZB_SET_QUEUE_MAX_TASKS)) != NULL &&
        zb_str_to_u64(&u, v) == 0)
        po.max_tasks = (int64_t)u;
    if ((v = zb_settings_get(env.settings, ZB_SET_MAX_ATTEMPTS)) != NULL &&
        zb_str_to_u64(&u, v) == 0)
        po.max_attempts = (int)u;
    po.replica_id = s->replica;
    po.host.open_catalog = open_catalog;
    po.host.table_config = table_config;
    po.host.release_catalog = release_catalog;
    po.host.log_line = log_line;
    po.host.payload = s;
    if ((rc = zb_planner_new(&s->planner, &ctx, &po)) < 0)
        goto fail;

    list[0] = '\0';
    for (i = 0; i < s->n_wh; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i ? "," : "", s->warehouses[i]);
    snprintf(line, sizeof line, "serve replica=%s warehouses=%s "
             "plan_interval_ms=%lld event=start", s->replica, list,
             (long long)s->interval_ms);
    log_line(line, NULL);

    /* HTTP, then the planner thread; signals raise the stop */
    ho.listen = zb_settings_get(env.settings, ZB_SET_LISTEN);
    ho.queue = q;
    ho.classes = &classes;
    ho.token = zb_settings_get(env.settings, ZB_SET_SERVE_TOKEN);
    ho.planner_counters = planner_counters;
    ho.log_line = log_line;
    ho.payload = s;
    ho.warehouses = s->wh_ptrs;
    ho.n_warehouses = s->n_wh;
    ho.table_plan = table_plan;
    zb_verb_catch_stop_signals(&stop_requested);
    if ((rc = zb_http_start(&http, &ctx, &ho)) < 0)
        goto fail;
    if (pthread_create(&planner_thread, NULL, planner_main, s) != 0) {
        rc = zb_fail(&ctx, ZB_EIO, "cannot start the planner's thread");
        goto fail;
    }
    thread_started = 1;
    while (!atomic_load(&stop_requested))
        sleep_ms(100);
    snprintf(line, sizeof line, "serve replica=%s event=stop reason=signal",
             s->replica);
    log_line(line, NULL);
    code = ZB_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "zamboni serve: %s\n",
            ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    code = zb_cli_exit_code(rc);
done:
    atomic_store(&stop_requested, 1);
    if (thread_started)
        pthread_join(planner_thread, NULL);
    pthread_mutex_lock(&s->pmu);
    if (s->planner != NULL)
        zb_planner_free(s->planner);   /* gives up the leader lease */
    s->planner = NULL;
    pthread_mutex_unlock(&s->pmu);
    zb_http_stop(http);
    for (i = 0; i < s->n_wh; i++)
        zb_table_config_free(s->tcs[i]);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->pmu);
    zb_free(s);
    zb_queue_close(q);
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

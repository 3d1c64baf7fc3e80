/*
 * cli/verbs/verb_maintenance.c - `zamboni maintenance [TABLE...]`: the six
 * operations, in order, on every table of a warehouse (seed 003; the
 * run itself is ops/maintenance_run.h).
 *
 * Steps: parse the flags (cli/verbs/verb_args.c); load the settings and the
 * table config (its warehouse checked: exit 3 before anything is
 * touched); pick the tables (the TABLEs given, else the profile's
 * tables:, else every table of the table config, sorted); the profile's
 * operations: list selects a subset; with --status count every table
 * first. Then each table in turn, isolated: its catalog opened, its
 * operations run, each step printed as it ends
 *
 *     <blank line>
 *     TABLE
 *       --------------------------------------------------------------------
 *       compact: rewrote 12 file(s) (...) into 1 (...) across 1 group(s)
 *       expire: expired 30 snapshot(s), retained 1, deleted 95 file(s)
 *
 * (a step whose code is not 0 goes to stderr), and the worst code kept.
 * With --verbose each table's block starts with its settings, each with
 * where it came from (flag, table config, table property, default).
 * With --parallel N, N tables run at once on threads sharing the
 * process's budget; each table's lines are kept and printed in table
 * order, so the output and the exit code are those of N = 1.
 * SIGINT or SIGTERM raises ctx.stop: the running operation ends early
 * where it can (compaction starts no new group) and no new table starts.
 * Finally the --status totals and the list of failures on stderr
 * ("failed:" then "  TABLE OP (exit N)"). Exit code: the worst any table
 * produced.
 */
#define ZB_MODULE "cli"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/maintenance_parallel.h"
#include "cli/verbs/progress.h"
#include "cli/verbs/queue_open.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define MAX_FAILURES 256

typedef struct failure {
    const char *table;
    const char *op;
    int code;
} failure;

typedef struct run_state {
    const zb_verb_args *args;
    int worst;                      /* exit code */
    int stop_printed;
    int steps;                      /* steps reported for this table */
    json_t *doc;                    /* --json: the run's document */
    json_t *ops;                    /* --json: this table's operations */
    FILE *out, *err;                /* this table's streams */
    size_t n_failed;
    failure failed[MAX_FAILURES];
    zb_queue *queue;                /* the run history, or NULL */
    const char *warehouse;
} run_state;

static void add_failure(run_state *s, const char *table, const char *op,
                        int code)
{
    if (code > s->worst)
        s->worst = code;
    if (s->n_failed < MAX_FAILURES) {
        s->failed[s->n_failed].table = table;
        s->failed[s->n_failed].op = op;
        s->failed[s->n_failed].code = code;
        s->n_failed++;
    }
}

/* The op's report lines under "  OP: ": the first line's "T: " dropped. */
static void print_lines(FILE *out, const char *op, const char *table,
                        const char *text)
{
    size_t tl = strlen(table);
    const char *nl;
    int first = 1;

    if (text == NULL || text[0] == '\0') {
        fprintf(out, "  %s: done\n", op);
        return;
    }
    while (*text) {
        size_t n;

        nl = strchr(text, '\n');
        n = nl ? (size_t)(nl - text) : strlen(text);
        if (first) {
            const char *s = text;
            size_t m = n;

            if (m > tl + 1 && strncmp(s, table, tl) == 0 && s[tl] == ':') {
                s += tl + 1;
                m -= tl + 1;
                while (m > 0 && *s == ' ') {
                    s++;
                    m--;
                }
            }
            fprintf(out, "  %s: %.*s\n", op, (int)m, s);
            first = 0;
        } else if (n > 0) {
            fprintf(out, "  %.*s\n", (int)n, text);
        }
        text += n;
        if (*text == '\n')
            text++;
    }
}

/*
 * --verbose: every setting of the table with where it came from
 * (ops/table_settings.h), as the operations will resolve it. A table that
 * does not load prints none: the run reports that.
 */
static void print_table_settings(FILE *out, zb_verb_env *env, zb_ctx *ctx,
                                 const char *table, const zb_maint_opts *mo)
{
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    zb_table_settings set;
    zb_buf line;
    int owned = 0, i;

    zb_buf_init(&line, 4096);
    if (zb_verb_catalog(&cat, &owned, env, ctx, table) == ZB_OK &&
        zb_catalog_load_table(cat, ctx, table, &t) == ZB_OK) {
        /* an unusable expire property is shown; expire reports it */
        (void)zb_maint_settings(&set, NULL, mo, table, t->meta);
        zb_verb_print_s3(out, env, ctx, t->root, "  ");
        fprintf(out, "  settings:\n");
        for (i = 0; i < ZB_TSET_COUNT; i++) {
            zb_buf_clear(&line);
            if (zb_tset_format(&line, (zb_tset)i, &set.v[i]) == ZB_OK)
                fprintf(out, "    %s\n", zb_buf_cstr(&line));
        }
    }
    zb_err_clear(&ctx->err);
    zb_table_free(t);
    if (owned)
        zb_catalog_free(cat);
    zb_buf_free(&line);
}

/* --json: one object per step into the table's "operations". */
static void json_step(run_state *s, const zb_maint_step *st)
{
    static const char *const names[] = { "ran", "disabled", "not-selected",
                                         "stopped" };
    const char *op = zb_maint_op_names[st->op];
    json_t *o = json_object(), *lines = json_array();
    const char *t = st->detail, *nl;
    int code = st->status == ZB_MAINT_RAN ? zb_cli_exit_code(st->rc) : 0;

    if (o == NULL || lines == NULL) {
        json_decref(o);
        json_decref(lines);
        return;
    }
    json_object_set_new(o, "operation", json_string(op));
    json_object_set_new(o, "status", json_string(names[st->status]));
    json_object_set_new(o, "exit", json_integer(code));
    if (st->status == ZB_MAINT_RAN) {
        while (t && *t) {
            nl = strchr(t, '\n');
            json_array_append_new(lines,
                                  json_stringn(t, nl ? (size_t)(nl - t)
                                                     : strlen(t)));
            t = nl ? nl + 1 : t + strlen(t);
        }
        json_object_set_new(o, "elapsed_ms", json_integer(st->elapsed_ms));
        if (st->rc < 0)
            json_object_set_new(o, "error",
                                json_string(st->error ? st->error
                                                      : zb_rc_name(st->rc)));
    } else if (st->detail) {
        json_object_set_new(o, st->status == ZB_MAINT_STOPPED ? "aborted_by"
                                                              : "reason",
                            json_string(st->detail));
    }
    json_object_set_new(o, "report", lines);
    json_array_append_new(s->ops, o);
    if (code)
        add_failure(s, st->table, op, code);
}

/* Each operation that ran joins the run history when a queue database
 * is configured (queue_open.h); a failure to record stays a note. */
static void record_step(const run_state *s, const zb_maint_step *st)
{
    zb_attempt_result r;
    struct timespec ts;
    zb_ctx rctx;

    if (s->queue == NULL || st->status != ZB_MAINT_RAN || s->args->dry_run)
        return;
    zb_ctx_init(&rctx);
    clock_gettime(CLOCK_REALTIME, &ts);
    memset(&r, 0, sizeof r);
    r.outcome = st->rc < 0 ? ZB_OUTCOME_FAILED : ZB_OUTCOME_SUCCESS;
    r.message = st->error;
    r.report = st->detail;
    r.finished_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    r.started_ms = r.finished_ms - st->elapsed_ms;
    if (zb_queue_record_run(s->queue, &rctx, s->warehouse, st->table,
                            zb_maint_op_names[st->op], &r) < 0 &&
        s->args->verbose)
        fprintf(s->err, "    (run history not recorded: %s)\n",
                rctx.err.msg);
}

static void on_step(const zb_maint_step *st, void *payload)
{
    run_state *s = payload;
    const char *op = zb_maint_op_names[st->op];
    FILE *out;
    int code;

    s->steps++;
    record_step(s, st);
    zb_cli_progress_clear();
    if (s->doc != NULL) {
        json_step(s, st);
        return;
    }
    switch (st->status) {
    case ZB_MAINT_RAN:
        code = zb_cli_exit_code(st->rc);
        out = code ? s->err : s->out;
        fflush(s->out);
        print_lines(out, op, st->table, st->detail);
        if (st->rc < 0)
            fprintf(out, "    %s (exit %d)\n",
                    st->error ? st->error : zb_rc_name(st->rc), code);
        if (s->args->verbose)
            fprintf(out, "    %s took %lld ms\n", op,
                    (long long)st->elapsed_ms);
        fflush(out);
        if (code)
            add_failure(s, st->table, op, code);
        break;
    case ZB_MAINT_DISABLED:
        fprintf(s->out, "  %s: disabled in the config (%s)\n", op,
                st->detail);
        break;
    case ZB_MAINT_STOPPED:
        if (!s->stop_printed) {
            fflush(s->out);
            fprintf(s->err, "  stopping this table: %s aborted\n",
                    st->detail);
            s->stop_printed = 1;
        }
        break;
    default:
        break;
    }
}

/* SIGINT/SIGTERM: no new group or table starts (ctx.stop). */
static atomic_int stop_requested;

/* The worst exit code recorded for table. */
static int table_worst(const run_state *s, const char *table)
{
    size_t k;
    int w = 0;

    for (k = 0; k < s->n_failed; k++)
        if (s->failed[k].table == table && s->failed[k].code > w)
            w = s->failed[k].code;
    return w;
}

static json_t *row_json(const zb_status_row *r)
{
    return json_pack("{sssbsIsIsIsIsIsIsIsIsI}", "table", r->table, "read",
                     r->ok, "live_rows", (json_int_t)r->live_rows,
                     "data_files", (json_int_t)r->data_files,
                     "data_bytes", (json_int_t)r->data_bytes, "rows",
                     (json_int_t)r->data_rows, "delete_files",
                     (json_int_t)r->delete_files, "snapshots",
                     (json_int_t)r->snapshots, "metadata_bytes",
                     (json_int_t)r->metadata_bytes, "disk_files",
                     (json_int_t)r->disk_files, "disk_bytes",
                     (json_int_t)r->disk_bytes);
}

/* --status under --json: the rows before and after, and what went. */
static json_t *status_json(const zb_status_row *before,
                           const zb_status_row *after, size_t n)
{
    json_t *o = json_object(), *b = json_array(), *a = json_array();
    uint64_t bb = 0, ab = 0;
    size_t k;

    if (o == NULL || b == NULL || a == NULL) {
        json_decref(o);
        json_decref(b);
        json_decref(a);
        return NULL;
    }
    for (k = 0; k < n; k++) {
        json_array_append_new(b, row_json(&before[k]));
        json_array_append_new(a, row_json(&after[k]));
        if (before[k].disk_ok && after[k].disk_ok) {
            bb += before[k].disk_bytes;
            ab += after[k].disk_bytes;
        }
    }
    json_object_set_new(o, "before", b);
    json_object_set_new(o, "after", a);
    json_object_set_new(o, "reclaimed_bytes",
                        json_integer((json_int_t)(bb > ab ? bb - ab : 0)));
    return o;
}

int zb_verb_pick_tables(const char ***out, size_t *n, zb_verb_env *env,
                        const zb_verb_args *a)
{
    const char *const *pt;
    const char **list;
    size_t k, m;

    *out = NULL;
    *n = 0;
    if (a->n_pos > 0) {
        m = a->n_pos;
        pt = a->pos;
    } else if ((pt = zb_settings_tables(env->settings, &m, NULL)) != NULL &&
               m > 0) {
        /* the profile's tables */
    } else if (env->tc != NULL) {
        m = zb_table_config_table_count(env->tc);
        pt = NULL;
    } else {
        return -1;
    }
    if ((list = zb_calloc(m + 1, sizeof *list)) == NULL)
        return -2;
    for (k = 0; k < m; k++)
        list[k] = pt ? pt[k] : zb_table_config_table(env->tc, k);
    *out = list;
    *n = m;
    return 0;
}

/*
 * The table loop (--parallel N: N tables at once, cli/verbs/
 * maintenance_parallel.h). Each table gets its own context (its own err;
 * the run's log, metrics, budget and stop flag), its own report state
 * and its own streams; with N > 1 these are captured and written in
 * table order, and its failures join the run's in that order, so the
 * output and the exit code read as with N = 1.
 */
typedef struct table_job {
    run_state s;                    /* this table's steps and failures */
    zb_cli_table_out out;
    json_t *jt;                     /* --json: this table's object */
    int oom;
} table_job;

typedef struct table_loop {
    zb_verb_env *env;
    const zb_ctx *ctx;              /* the run's, copied per table */
    const char **tables;
    size_t n;
    run_state *s;                   /* the run's */
    table_job **jobs;               /* per table, from work to done */
    zb_status_row *rows;            /* --status: the counts to fill */
    int capture;
    int oom;
} table_loop;

/*
 * The configured catalog is opened on first use (zb_verb_configured_catalog):
 * that first use is serialised, so that tables on several threads open it
 * once and share it (the SQL and REST catalogs take their own locks). ZB_OK
 * for a table folder (each gets a catalog of its own), else the open's code.
 */
static int catalog_ready(zb_verb_env *env, zb_ctx *ctx, const char *table)
{
    static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;
    zb_catalog *cat = NULL;
    int rc;

    if (zb_verb_names_folder(table))
        return ZB_OK;
    pthread_mutex_lock(&opening);
    rc = zb_verb_configured_catalog(&cat, env, ctx);
    pthread_mutex_unlock(&opening);
    return rc;
}

static void table_work(size_t k, void *payload)
{
    table_loop *L = payload;
    const zb_verb_args *a = L->s->args;
    const char *table = L->tables[k];
    table_job *j = zb_calloc(1, sizeof *j);
    zb_ctx tctx = *L->ctx;
    run_state *s;
    int rc;

    L->jobs[k] = j;
    if (j == NULL)
        return;
    s = &j->s;
    if (zb_cli_table_out_open(&j->out, L->capture) < 0) {
        j->oom = 1;
        return;
    }
    s->args = a;
    s->doc = L->s->doc;             /* only tested: the table's is jt */
    s->queue = L->s->queue;
    s->warehouse = L->s->warehouse;
    s->out = j->out.out;
    s->err = j->out.err;
    zb_err_clear(&tctx.err);
    /* the tables' start and end, in time order (tests read the overlap) */
    zb_log_debug(&tctx, "maintenance: table %zu of %zu started: %s", k + 1,
                 L->n, table);
    if (s->doc) {
        j->jt = json_pack("{ss}", "table", table);
        s->ops = json_array();
        if (j->jt == NULL || s->ops == NULL) {
            json_decref(j->jt);
            json_decref(s->ops);
            j->jt = s->ops = NULL;
            j->oom = 1;
            return;
        }
        json_object_set_new(j->jt, "operations", s->ops);
    } else {
        fprintf(s->out, "\n%s\n  --------------------------------------------"
                        "------------------------\n", table);
    }
    rc = catalog_ready(L->env, &tctx, table);
    if (rc == ZB_OK) {
        if (!s->doc && a->verbose)
            print_table_settings(s->out, L->env, &tctx, table, &a->mo);
        zb_err_clear(&tctx.err);
        rc = zb_verb_run_table(L->env, &tctx, table, &a->mo, on_step, s);
    }
    if (rc < 0 && s->steps == 0) {
        /* the table did not load: no operation ran */
        const char *msg = tctx.err.msg[0] ? tctx.err.msg : zb_rc_name(rc);

        if (j->jt != NULL) {
            json_object_set_new(j->jt, "error", json_string(msg));
        } else {
            fflush(s->out);
            fprintf(s->err, "  %s\n", msg);
        }
        add_failure(s, table, "load", zb_cli_exit_code(rc));
    }
    if (j->jt != NULL)
        json_object_set_new(j->jt, "exit",
                            json_integer(table_worst(s, table)));
    fflush(s->out);
    zb_log_debug(&tctx, "maintenance: table %zu of %zu finished: %s", k + 1,
                 L->n, table);
}

/* In table order: the table's output, failures and --json object. */
static int table_done(size_t k, void *payload)
{
    table_loop *L = payload;
    table_job *j = L->jobs[k];
    size_t f;

    L->jobs[k] = NULL;
    if (j == NULL || j->oom)
        L->oom = 1;
    if (j != NULL && !L->oom) {
        zb_cli_table_out_replay(&j->out, stdout, stderr);
        for (f = 0; f < j->s.n_failed; f++)
            add_failure(L->s, j->s.failed[f].table, j->s.failed[f].op,
                        j->s.failed[f].code);
        if (j->s.worst > L->s->worst)
            L->s->worst = j->s.worst;
        if (j->jt != NULL)
            json_array_append_new(json_object_get(L->s->doc, "tables"),
                                  j->jt);
        j->jt = NULL;
    }
    if (j != NULL) {
        json_decref(j->jt);
        zb_cli_table_out_close(&j->out);
        zb_free(j);
    }
    return L->oom;
}

/* --status: one table's counts (no output; the rows are printed after). */
static void status_work(size_t k, void *payload)
{
    table_loop *L = payload;
    zb_ctx tctx = *L->ctx;

    zb_err_clear(&tctx.err);
    if (catalog_ready(L->env, &tctx, L->tables[k]) == ZB_OK) {
        (void)zb_status_collect(&L->rows[k], L->env, &tctx, L->tables[k]);
    } else {
        /* what zb_status_collect leaves when the catalog does not open */
        memset(&L->rows[k], 0, sizeof L->rows[k]);
        L->rows[k].table = L->tables[k];
    }
}

/* Long on purpose: the verb's steps in their order (arguments, settings,
 * tables, status before, each table, status after, the report), all
 * leaving through the one cleanup at done. */
int zb_cli_maintenance_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_verb_env env;
    run_state *s = NULL;
    zb_status_row *before = NULL, *after = NULL;
    const char **tables = NULL;
    const char *const *ops;
    size_t n = 0, k, n_ops;
    zb_ctx ctx;
    table_loop L;
    int help, code, rc, prc, par;

    memset(&env, 0, sizeof env);
    memset(&L, 0, sizeof L);
    zb_ctx_init(&ctx);
    a = zb_calloc(1, sizeof *a);
    s = zb_calloc(1, sizeof *s);
    if (a == NULL || s == NULL) {
        fputs("zamboni maintenance: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_MAINTENANCE, argc, argv, 0,
                              ZB_VERB_MAX_TABLES, &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_MAINTENANCE);
        goto done;
    }
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0) {
        fprintf(stderr, "zamboni maintenance: %s\n", ctx.err.msg);
        code = zb_cli_exit_code(rc);
        goto done;
    }
    if ((code = zb_verb_check_flags(a, &env)) != 0)
        goto done;
    prc = zb_verb_pick_tables(&tables, &n, &env, a);
    if (prc == -2) {
        fputs("zamboni maintenance: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if (prc < 0) {
        code = zb_verb_usage(a->verb,
                             "no tables: give TABLE, a tables: list in "
                             "zamboni.yml, or a table config (--table-config, "
                             "or --warehouse W with "
                             "$ZAMBONI_ROOT/configs/W/table-config.json)");
        goto done;
    }
    /* the profile's operations: a subset, run in the fixed order */
    ops = zb_settings_operations(env.settings, &n_ops, NULL);
    if (ops != NULL) {
        memset(a->mo.run, 0, sizeof a->mo.run);
        for (k = 0; k < n_ops; k++) {
            int op = zb_maint_op_from_name(ops[k]);
            if (op >= 0)
                a->mo.run[op] = 1;
        }
    }
    a->mo.config = env.tc;
    s->args = a;
    s->warehouse = zb_verb_warehouse(&env);
    {
        char why[ZB_ERR_MSG_SIZE];

        zb_verb_queue_for_records(&s->queue, why, sizeof why, &env, &ctx);
        if (s->queue == NULL && a->verbose && !a->json)
            printf("run history: not recorded (%s)\n", why);
    }
    if (a->json && (s->doc = json_object()) == NULL) {
        fputs("zamboni maintenance: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if (a->verbose && !a->json) {
        zb_buf d;

        zb_buf_init(&d, 1 << 20);
        if (zb_settings_describe(&d, env.settings) == ZB_OK)
            fputs(zb_buf_cstr(&d), stdout);
        zb_buf_free(&d);
        if (env.tc)
            printf("table config: %s\n", env.tc_path);
        zb_verb_print_resources(stdout, &env, "");
    }
    zb_verb_catch_stop_signals(&stop_requested);
    ctx.stop = &stop_requested;
    par = a->parallel > 1 ? a->parallel : 1;
    /* one progress line cannot show several tables: off with N > 1 */
    zb_cli_progress_install(&ctx, isatty(STDERR_FILENO) && !a->json &&
                                      par == 1);
    L.env = &env;
    L.ctx = &ctx;
    L.tables = tables;
    L.n = n;
    L.s = s;
    L.capture = par > 1;
    if ((L.jobs = zb_calloc(n + 1, sizeof *L.jobs)) == NULL) {
        fputs("zamboni maintenance: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if (a->status) {
        before = zb_calloc(n + 1, sizeof *before);
        after = zb_calloc(n + 1, sizeof *after);
        if (before == NULL || after == NULL) {
            fputs("zamboni maintenance: out of memory\n", stderr);
            code = ZB_EXIT_FAILED;
            goto done;
        }
        L.rows = before;
        (void)zb_cli_parallel_run(n, par, NULL, status_work, NULL, &L);
        if (!a->json)
            zb_status_print_totals(stdout, zb_verb_warehouse(&env), "before",
                                   before, n);
    }
    if (s->doc) {
        json_object_set_new(s->doc, "warehouse",
                            json_string(zb_verb_warehouse(&env)));
        json_object_set_new(s->doc, "dry_run", json_boolean(a->dry_run));
        json_object_set_new(s->doc, "tables", json_array());
    }
    k = zb_cli_parallel_run(n, par, &stop_requested, table_work,
                              table_done, &L);
    if (L.oom) {
        fputs("zamboni maintenance: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if (k < n) {
        fflush(stdout);
        fprintf(stderr, "zamboni maintenance: stopped by a signal; %zu "
                        "table(s) not started\n", n - k);
        add_failure(s, tables[k], "stopped", ZB_EXIT_FAILED);
    }
    zb_cli_progress_end(&ctx);
    if (a->status) {
        L.rows = after;
        (void)zb_cli_parallel_run(n, par, NULL, status_work, NULL, &L);
        if (s->doc) {
            json_object_set_new(s->doc, "status",
                                status_json(before, after, n));
        } else {
            printf("\n");
            zb_status_print_totals(stdout, zb_verb_warehouse(&env), "after",
                                   after, n);
            zb_status_print_change(stdout, before, after, n);
        }
    }
    if (s->doc) {
        json_object_set_new(s->doc, "budget", zb_verb_budget_json(&env));
        json_object_set_new(s->doc, "exit", json_integer(s->worst));
        if (json_dumpf(s->doc, stdout, JSON_INDENT(2)) == 0)
            fputc('\n', stdout);
    } else if (a->dry_run) {
        printf("\n  dry run -- nothing changed; re-run without --dry-run "
               "to %s\n", zb_verb_trailer(ZB_VERB_MAINTENANCE));
    }
    fflush(stdout);
    if (s->n_failed > 0 && !s->doc) {
        fputs("failed:\n", stderr);
        for (k = 0; k < s->n_failed; k++)
            fprintf(stderr, "  %s %s (exit %d)\n", s->failed[k].table,
                    s->failed[k].op, s->failed[k].code);
    }
    code = s->worst;
done:
    zb_cli_progress_end(&ctx);
    if (s != NULL) {
        json_decref(s->doc);
        zb_queue_close(s->queue);
    }
    zb_free(L.jobs);
    zb_free(before);
    zb_free(after);
    zb_free(tables);
    zb_verb_env_close(&env);
    zb_free(a);
    zb_free(s);
    return code;
}

/*
 * cli/verbs/verb_queue.c - `zamboni db migrate` (the queue's schema) and
 * `zamboni enqueue` (a warehouse's due operations onto the queue: the
 * producer when workers run without serve).
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/verb_queue.h"
#include "cli/verbs/verb_queue_args.h"
#include "ops/compact/compact.h"
#include "util/alloc.h"
#include "util/err.h"

static const char migrate_help[] =
    "Usage: zamboni db migrate [FLAGS]\n"
    "\n"
    "Applies the task queue's schema migrations the database lacks, in\n"
    "order, each in its own transaction, and prints the versions before\n"
    "and after. Safe to run again and from several hosts at once. serve,\n"
    "worker, enqueue, tasks and history only check the schema, never\n"
    "apply it (exit 3 until this ran); a database newer than this build is\n"
    "refused (exit 3).\n"
    "\n";


static void print_db(const zb_queue_args *qa, zb_verb_env *env,
                     zb_sqldb *db)
{
    zb_buf d;

    if (!qa->verbose || qa->json)
        return;
    zb_buf_init(&d, 1 << 20);
    if (zb_settings_describe(&d, env->settings) == ZB_OK)
        fputs(zb_buf_cstr(&d), stdout);
    zb_buf_free(&d);
    printf("queue database: %s\n", zb_sqldb_describe(db));
}

int zb_cli_db_run(int argc, char **argv)
{
    zb_queue_args qa;
    zb_verb_env env;
    zb_sqldb *db = NULL;
    zb_ctx ctx;
    int from = 0, to = 0, code, rc;

    memset(&env, 0, sizeof(env));
    zb_ctx_init(&ctx);
    if (argc < 2 || strcmp(argv[1], "migrate") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
                          strcmp(argv[1], "-h") == 0)) {
            fputs(migrate_help, stdout);
            fputs(ZB_QUEUE_COMMON_HELP, stdout);
            return ZB_EXIT_OK;
        }
        fprintf(stderr, "zamboni db: expected 'migrate'%s%s\nRun 'zamboni "
                "db migrate --help' for its flags.\n",
                argc >= 2 ? ", not " : "", argc >= 2 ? argv[1] : "");
        return ZB_EXIT_USAGE;
    }
    code = zb_queue_args_parse(&qa, "db migrate", migrate_help, argc, argv,
                               2, 0);
    if (code != 0) {
        zb_queue_args_free(&qa);
        return code < 0 ? ZB_EXIT_OK : code;
    }
    qa.va->table_config = NULL;
    env.no_tc = 1;
    if ((rc = zb_verb_env_open(&env, &ctx, qa.va)) < 0 ||
        (rc = zb_verb_queue_db(&db, &env, &ctx)) < 0) {
        code = zb_queue_verb_fail("db migrate", &ctx, rc);
        goto done;
    }
    print_db(&qa, &env, db);
    if ((rc = zb_queue_migrate(db, &ctx, &from, &to)) < 0) {
        code = zb_queue_verb_fail("db migrate", &ctx, rc);
        goto done;
    }
    if (qa.json)
        printf("{\"database\": \"%s\", \"from\": %d, \"to\": %d}\n",
               zb_sqldb_is_postgres(db) ? "postgresql" : "sqlite", from, to);
    else if (from == to)
        printf("queue schema: version %d, up to date (%s)\n", to,
               zb_sqldb_describe(db));
    else
        printf("queue schema: version %d -> %d (%s)\n", from, to,
               zb_sqldb_describe(db));
    code = fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED;
done:
    zb_sqldb_close(db);
    zb_verb_env_close(&env);
    zb_queue_args_free(&qa);
    return code;
}

/* ---- enqueue ---- */

static const char enqueue_help[] =
    "Usage: zamboni enqueue --warehouse W [FLAGS] [TABLE...]\n"
    "\n"
    "Puts the operations of the warehouse's tables on the task queue, one\n"
    "task per table and operation, for `zamboni worker` to take. Tables:\n"
    "the TABLE arguments, else the tables: list of zamboni.yml, else the\n"
    "table config's tables ($ZAMBONI_ROOT/configs/W/table-config.json or\n"
    "--table-config FILE), else every table the catalog lists in the\n"
    "warehouse. Operations: the operations: list of\n"
    "zamboni.yml (default all six), minus those the table config disables\n"
    "for the table. A table's later operation waits on the queue until its\n"
    "earlier ones finished (runbook order).\n"
    "\n"
    "A task already live for (warehouse, table, operation) is left as it\n"
    "is (printed 'live'). The queue's cap, ZAMBONI_QUEUE_MAX_TASKS live\n"
    "tasks, refuses the rest (exit 3). Each task may run\n"
    "ZAMBONI_MAX_ATTEMPTS times (--max-attempts, default 5).\n"
    "\n"
    "Size class: a compact task is planned here (the table's manifests\n"
    "are read) and carries its largest group's memory estimate, the part\n"
    "that cannot spill, and a core per work unit; it goes to the smallest\n"
    "class of ZAMBONI_SIZE_CLASSES (default: standard, 2 cores, 8 GiB)\n"
    "whose memory holds the estimate, else the largest. The other\n"
    "operations are not estimated yet and go to the smallest class. A task\n"
    "whose worker was lost runs again one class up.\n"
    "\n"
    "  --warehouse W     the warehouse (required; ZAMBONI_WAREHOUSE)\n"
    "  --priority N      higher is taken first (default 0)\n"
    "  --table-config FILE   the table config (default: by the warehouse)\n"
    "  --max-attempts N  attempts per task (default 5)\n"
    "  --json            one JSON object: the tasks and the counts\n";

/* Whether the table config leaves op enabled for ident (as
 * ops/maintenance_run.c decides; no config: every operation). */
static int op_enabled(const zb_table_config *tc, const char *ident, int op)
{
    zb_tc_effective eff;
    const zb_tc_retention *r;

    if (tc == NULL)
        return 1;
    zb_table_config_effective(&eff, tc, ident);
    r = &eff.block.retention;
    switch (op) {
    case ZB_MAINT_REMOVE_DANGLING:
        return r->dangling_enabled;
    case ZB_MAINT_REWRITE_MANIFESTS:
        return r->manifests_enabled;
    case ZB_MAINT_EXPIRE:
        return r->expire_enabled;
    case ZB_MAINT_REMOVE_ORPHANS:
        return r->orphans_enabled;
    default:
        return 1;
    }
}

/*
 * What compacting ident needs (queue.h, zb_task_new): its plan's largest
 * group estimate (read, sort and write memory, delete sets), the part a
 * unit cannot spill, and one core per work unit (at most 64). The plan
 * reads the table's manifests; a table that cannot be planned gets no
 * estimate (the worker finds the error itself) and a note on stderr.
 */
static void estimate_compact(zb_task_new *t, zb_verb_env *env,
                             const zb_verb_args *a, const char *ident)
{
    zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
    zb_compact_plan plan;
    zb_catalog *cat = NULL;
    zb_op_target tg;
    zb_ctx ctx;
    size_t i, units = 0;
    int owned = 0, rc;

    zb_ctx_init(&ctx);
    memset(&plan, 0, sizeof plan);
    memset(&tg, 0, sizeof tg);
    if ((rc = zb_verb_catalog(&cat, &owned, env, &ctx, ident)) == ZB_OK) {
        tg.catalog = cat;
        tg.io = env->io;
        tg.ident = ident;
        tg.dry_run = 1;
        zb_verb_plan_opts(&co, env, &a->mo, ident);
        rc = zb_compact_plan_table(&plan, NULL, &tg, &ctx, &co);
    }
    if (rc == ZB_OK) {
        t->est_memory_bytes = plan.est_peak_memory_bytes;
        t->est_unspillable_bytes = plan.est_unspillable_bytes;
        for (i = 0; i < plan.n_groups; i++)
            units += plan.groups[i].n_slices;
        t->est_cores = units < 1 ? 1 : units > 64 ? 64 : (int)units;
    } else {
        fprintf(stderr, "zamboni enqueue: %s: no memory estimate (%s); the "
                "task goes to the smallest class\n", ident, ctx.err.msg);
    }
    zb_compact_plan_free(&plan);
    if (owned)
        zb_catalog_free(cat);
}

static int64_t setting_int(const zb_settings *s, zb_setting_id id,
                           int64_t fallback)
{
    const char *v = zb_settings_get(s, id);

    return v != NULL && v[0] ? strtoll(v, NULL, 10) : fallback;
}

int zb_cli_enqueue_run(int argc, char **argv)
{
    zb_queue_args qa;
    zb_verb_env env;
    zb_queue *q = NULL;
    zb_ctx ctx;
    const char **tables = NULL;
    char **listed = NULL;          /* the catalog's tables, when listed */
    size_t n_listed = 0;
    const char *const *ops;
    const char *wh;
    json_t *doc = NULL, *arr = NULL;
    size_t n = 0, n_ops = 0, k, j;
    int run[ZB_MAINT_OP_COUNT];
    int64_t cap, inserted_n = 0, live_n = 0;
    int max_attempts, code, rc = ZB_OK, prc;

    memset(&env, 0, sizeof(env));
    zb_ctx_init(&ctx);
    code = zb_queue_args_parse(&qa, "enqueue", enqueue_help, argc, argv, 1,
                               -1);
    if (code != 0) {
        zb_queue_args_free(&qa);
        return code < 0 ? ZB_EXIT_OK : code;
    }
    if ((rc = zb_verb_env_open(&env, &ctx, qa.va)) < 0) {
        code = zb_queue_verb_fail("enqueue", &ctx, rc);
        goto done;
    }
    if ((wh = zb_settings_get(env.settings, ZB_SET_WAREHOUSE)) == NULL) {
        fputs("zamboni enqueue: give --warehouse W (or ZAMBONI_WAREHOUSE)\n"
              "Run 'zamboni enqueue --help' for its flags.\n", stderr);
        code = ZB_EXIT_USAGE;
        goto done;
    }
    prc = zb_verb_pick_tables(&tables, &n, &env, qa.va);
    if (prc == -1 || (prc == 0 && n == 0)) {
        /* Nothing names tables: every table the catalog lists. */
        size_t i;

        if ((rc = zb_verb_catalog_tables(&listed, &n_listed, &env,
                                         &ctx)) < 0) {
            code = zb_queue_verb_fail("enqueue", &ctx, rc);
            goto done;
        }
        zb_free(tables);
        if ((tables = zb_calloc(n_listed + 1, sizeof(*tables))) == NULL) {
            prc = -2;
        } else {
            for (i = 0; i < n_listed; i++)
                tables[i] = listed[i];
            n = n_listed;
            prc = 0;
        }
    }
    if (prc < 0) {
        fputs("zamboni enqueue: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    if ((rc = zb_verb_queue_open(&q, &env, &ctx)) < 0) {
        code = zb_queue_verb_fail("enqueue", &ctx, rc);
        goto done;
    }
    print_db(&qa, &env, zb_queue_db(q));
    ops = zb_settings_operations(env.settings, &n_ops, NULL);
    memset(run, 0, sizeof(run));
    for (k = 0; ops != NULL && k < n_ops; k++) {
        int op = zb_maint_op_from_name(ops[k]);
        if (op >= 0)
            run[op] = 1;
    }
    cap = setting_int(env.settings, ZB_SET_QUEUE_MAX_TASKS, 0);
    max_attempts = (int)setting_int(env.settings, ZB_SET_MAX_ATTEMPTS, 5);
    if (qa.json && ((doc = json_object()) == NULL ||
                    (arr = json_array()) == NULL ||
                    json_object_set_new(doc, "tasks", arr) < 0)) {
        fputs("zamboni enqueue: out of memory\n", stderr);
        code = ZB_EXIT_FAILED;
        goto done;
    }
    code = ZB_EXIT_OK;
    for (k = 0; k < n && rc == ZB_OK; k++) {
        for (j = 0; j < ZB_MAINT_OP_COUNT && rc == ZB_OK; j++) {
            zb_task_new t;
            zb_task *got;
            int64_t id = 0;
            int ins = 0;

            if (!run[j] || !op_enabled(env.tc, tables[k], (int)j))
                continue;
            memset(&t, 0, sizeof(t));
            t.warehouse = wh;
            t.table = tables[k];
            t.operation = zb_maint_op_names[j];
            t.priority = qa.priority;
            t.max_attempts = max_attempts;
            if (j == ZB_MAINT_COMPACT)
                estimate_compact(&t, &env, qa.va, tables[k]);
            rc = zb_queue_enqueue(q, &ctx, &t, cap, &ins, &id);
            if (rc < 0)
                break;
            if ((got = zb_calloc(1, sizeof(*got))) == NULL) {
                rc = zb_fail_oom(&ctx);
                break;
            }
            if (zb_queue_get(q, &ctx, id, got) < 0) {
                zb_err_clear(&ctx.err);    /* taken and done meanwhile */
                snprintf(got->state, sizeof(got->state), "done");
            }
            if (ins)
                inserted_n++;
            else
                live_n++;
            if (qa.json)
                json_array_append_new(arr, json_pack(
                    "{s:I, s:s, s:s, s:s, s:s, s:b}", "id", (json_int_t)id,
                    "table", t.table, "operation", t.operation,
                    "size_class", got->size_class, "state", got->state,
                    "inserted", ins));
            else
                printf("%-6s %lld  %s  %s  (class %s%s%s)\n",
                       ins ? "queued" : "live", (long long)id, t.table,
                       t.operation, got->size_class, ins ? "" : ", ",
                       ins ? "" : got->state);
            zb_free(got);
        }
    }
    if (qa.json) {
        json_object_set_new(doc, "queued", json_integer(inserted_n));
        json_object_set_new(doc, "live", json_integer(live_n));
        if (rc < 0)
            json_object_set_new(doc, "error", json_string(ctx.err.msg));
        if (json_dumpf(doc, stdout, JSON_INDENT(2)) == 0)
            putchar('\n');
    } else {
        printf("%lld task%s queued, %lld already live\n",
               (long long)inserted_n, inserted_n == 1 ? "" : "s",
               (long long)live_n);
    }
    if (rc < 0)
        code = zb_queue_verb_fail("enqueue", &ctx, rc);
    else if (fflush(stdout) != 0)
        code = ZB_EXIT_FAILED;
done:
    json_decref(doc);
    zb_free(tables);
    zb_verb_catalog_tables_free(listed, n_listed);
    zb_queue_close(q);
    zb_verb_env_close(&env);
    zb_queue_args_free(&qa);
    return code;
}

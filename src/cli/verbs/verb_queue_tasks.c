/*
 * cli/verbs/verb_queue_tasks.c - operating the queue by hand: `zamboni
 * tasks list|show|cancel|requeue` and `zamboni history` (the attempts).
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/verb_queue.h"
#include "cli/verbs/verb_queue_args.h"
#include "service/queue/queue_json.h"
#include "util/alloc.h"
#include "util/err.h"

static const char tasks_help[] =
    "Usage: zamboni tasks list [--state STATE] [--json] [FLAGS]\n"
    "       zamboni tasks show ID [--json]\n"
    "       zamboni tasks cancel ID\n"
    "       zamboni tasks requeue ID\n"
    "\n"
    "The live tasks of the queue. list: one line a task (id, state,\n"
    "operation, table, class, attempt/max, priority); --state keeps one\n"
    "of scheduled, running, should-stop, excluded. show: every field of\n"
    "one task. cancel: a scheduled or excluded task is removed (its\n"
    "attempt logged cancelled); a running one is asked to stop (should-stop:\n"
    "its worker stops at its next heartbeat). requeue: an excluded task\n"
    "(past its attempts) is scheduled now, its attempts allowed again.\n"
    "An ID that is not live: exit 1; requeue of a task not excluded: exit 3.\n"
    "\n"
    "  --state STATE     list: only tasks in STATE (default: all)\n"
    "  --json            list: a JSON array; show: a JSON object\n";

static const char history_help[] =
    "Usage: zamboni history [--warehouse W] [TABLE] [--task ID] [--limit N]\n"
    "                       [--json] [FLAGS]\n"
    "\n"
    "The run history: every finished attempt, newest first (the workers'\n"
    "and the runs `zamboni maintenance` recorded), with its outcome\n"
    "(success, failed, lost, abandoned, cancelled), message and the\n"
    "table's health before and after when measured.\n"
    "\n"
    "  --warehouse W     only the attempts on warehouse W (ZAMBONI_WAREHOUSE)\n"
    "  TABLE             only the attempts on TABLE (\"ns.table\")\n"
    "  --task ID         only the attempts of task ID (default: all)\n"
    "  --limit N         at most N attempts (default 100)\n"
    "  --json            a JSON array\n";


static int print_dump(json_t *doc)
{
    if (doc == NULL || json_dumpf(doc, stdout, JSON_INDENT(2)) != 0)
        return -1;
    putchar('\n');
    return 0;
}

typedef struct list_out {
    int json;
    json_t *arr;
    int64_t n;
} list_out;

static int list_one(void *payload, const zb_task *t)
{
    list_out *o = payload;

    o->n++;
    if (o->json)
        return json_array_append_new(o->arr, zb_queue_task_json(t)) < 0
                   ? ZB_ENOMEM : 0;
    printf("%lld  %-11s  %-23s  %s  class %s  attempt %d/%d  priority %d%s%s\n",
           (long long)t->id, t->state, t->operation, t->table, t->size_class,
           t->attempt, t->max_attempts, t->priority,
           t->worker_id[0] ? "  worker " : "", t->worker_id);
    return 0;
}

static int parse_id(int64_t *out, const char *verb, const char *s)
{
    char *end = NULL;
    long long v = s ? strtoll(s, &end, 10) : 0;

    if (s == NULL || end == s || *end != '\0' || v <= 0) {
        fprintf(stderr, "zamboni %s: give a task ID (a number), not '%s'\n"
                "Run 'zamboni tasks --help' for its flags.\n", verb,
                s ? s : "");
        return ZB_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static void print_task(const zb_task *t)
{
    printf("task %lld\n", (long long)t->id);
    printf("  warehouse     %s\n  table         %s\n  operation     %s\n",
           t->warehouse, t->table, t->operation);
    printf("  state         %s\n  size class    %s\n  priority      %d\n",
           t->state, t->size_class, t->priority);
    printf("  attempt       %d of %d\n", t->attempt, t->max_attempts);
    printf("  estimate      %llu bytes (%llu unspillable), %d cores\n",
           (unsigned long long)t->est_memory_bytes,
           (unsigned long long)t->est_unspillable_bytes, t->est_cores);
    printf("  scheduled for %lld ms\n  created       %lld ms\n",
           (long long)t->scheduled_for_ms, (long long)t->created_ms);
    if (t->worker_id[0])
        printf("  worker        %s\n  lease until   %lld ms\n"
               "  heartbeat     %lld ms\n", t->worker_id,
               (long long)t->lease_expires_ms, (long long)t->heartbeat_ms);
    if (t->progress[0])
        printf("  progress      %s\n", t->progress);
    if (t->options[0])
        printf("  options       %s\n", t->options);
    if (t->last_message[0])
        printf("  last message  %s\n", t->last_message);
}

int zb_cli_tasks_run(int argc, char **argv)
{
    zb_queue_args qa;
    zb_verb_env env;
    zb_queue *q = NULL;
    zb_task *t = NULL;
    zb_ctx ctx;
    const char *sub = argc >= 2 ? argv[1] : NULL;
    char verb[32];
    int64_t id = 0;
    int code, rc, show, list, cancel, requeue;

    memset(&env, 0, sizeof(env));
    zb_ctx_init(&ctx);
    if (sub != NULL && (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)) {
        fputs(tasks_help, stdout);
        fputs(ZB_QUEUE_COMMON_HELP, stdout);
        return ZB_EXIT_OK;
    }
    list = sub && strcmp(sub, "list") == 0;
    show = sub && strcmp(sub, "show") == 0;
    cancel = sub && strcmp(sub, "cancel") == 0;
    requeue = sub && strcmp(sub, "requeue") == 0;
    if (!list && !show && !cancel && !requeue) {
        fprintf(stderr, "zamboni tasks: expected list, show, cancel or "
                "requeue%s%s\nRun 'zamboni tasks --help' for its flags.\n",
                sub ? ", not " : "", sub ? sub : "");
        return ZB_EXIT_USAGE;
    }
    snprintf(verb, sizeof(verb), "tasks %s", sub);
    code = zb_queue_args_parse(&qa, verb, tasks_help, argc, argv, 2,
                               list ? 0 : 1);
    if (code != 0) {
        zb_queue_args_free(&qa);
        return code < 0 ? ZB_EXIT_OK : code;
    }
    if (!list && (code = parse_id(&id, verb, qa.va->n_pos ? qa.va->pos[0]
                                                          : NULL)) != 0)
        goto done;
    qa.va->table_config = NULL;
    env.no_tc = 1;
    if ((rc = zb_verb_env_open(&env, &ctx, qa.va)) < 0 ||
        (rc = zb_verb_queue_open(&q, &env, &ctx)) < 0) {
        code = zb_queue_verb_fail(verb, &ctx, rc);
        goto done;
    }
    if (qa.verbose && !qa.json)
        printf("queue database: %s\n", zb_sqldb_describe(zb_queue_db(q)));
    code = ZB_EXIT_OK;
    if (list) {
        list_out o;

        memset(&o, 0, sizeof(o));
        o.json = qa.json;
        if (o.json && (o.arr = json_array()) == NULL) {
            rc = zb_fail_oom(&ctx);
        } else {
            rc = zb_queue_list(q, &ctx, qa.state, list_one, &o);
            if (rc == ZB_ENOMEM && ctx.err.msg[0] == '\0')
                zb_fail_oom(&ctx);
        }
        if (rc == ZB_OK && o.json && print_dump(o.arr) < 0)
            rc = zb_fail_oom(&ctx);
        if (rc == ZB_OK && !o.json && o.n == 0)
            printf("no live tasks%s%s\n", qa.state ? " in state " : "",
                   qa.state ? qa.state : "");
        json_decref(o.arr);
    } else if (show) {
        if ((t = zb_calloc(1, sizeof(*t))) == NULL) {
            rc = zb_fail_oom(&ctx);
        } else if ((rc = zb_queue_get(q, &ctx, id, t)) == ZB_OK) {
            if (qa.json) {
                json_t *o = zb_queue_task_json(t);
                if (print_dump(o) < 0)
                    rc = zb_fail_oom(&ctx);
                json_decref(o);
            } else {
                print_task(t);
            }
        }
    } else if (cancel) {
        if ((rc = zb_queue_cancel(q, &ctx, id)) == ZB_OK)
            printf("task %lld cancelled (a running one stops at its next "
                   "heartbeat)\n", (long long)id);
    } else if ((rc = zb_queue_requeue(q, &ctx, id)) == ZB_OK) {
        printf("task %lld scheduled again\n", (long long)id);
    }
    if (rc < 0)
        code = zb_queue_verb_fail(verb, &ctx, rc);
    else if (fflush(stdout) != 0)
        code = ZB_EXIT_FAILED;
done:
    zb_free(t);
    zb_queue_close(q);
    zb_verb_env_close(&env);
    zb_queue_args_free(&qa);
    return code;
}

/* ---- history ---- */

typedef struct history_out {
    int json;
    json_t *arr;
    int64_t n;
} history_out;

static int history_one(void *payload, const zb_attempt *a)
{
    history_out *o = payload;

    o->n++;
    if (o->json) {
        json_t *j = zb_queue_attempt_json(a);

        if (j == NULL)
            return ZB_ENOMEM;
        return json_array_append_new(o->arr, j) < 0 ? ZB_ENOMEM : 0;
    }
    if (a->task_id > 0)
        printf("task %lld attempt %d", (long long)a->task_id, a->attempt);
    else
        printf("cli run");
    printf("  %s  %s  %s  %s  %.1fs  %s%s%s\n", a->outcome, a->operation,
           a->table, a->worker_id,
           (double)(a->finished_ms - a->started_ms) / 1000.0,
           a->size_class[0] ? a->size_class : "",
           a->message[0] ? "  " : "", a->message);
    return 0;
}

int zb_cli_history_run(int argc, char **argv)
{
    zb_queue_args qa;
    zb_verb_env env;
    zb_queue *q = NULL;
    zb_ctx ctx;
    history_out o;
    int code, rc;

    memset(&env, 0, sizeof(env));
    memset(&o, 0, sizeof(o));
    zb_ctx_init(&ctx);
    code = zb_queue_args_parse(&qa, "history", history_help, argc, argv, 1,
                               1);
    if (code != 0) {
        zb_queue_args_free(&qa);
        return code < 0 ? ZB_EXIT_OK : code;
    }
    qa.va->table_config = NULL;
    env.no_tc = 1;
    if ((rc = zb_verb_env_open(&env, &ctx, qa.va)) < 0 ||
        (rc = zb_verb_queue_open(&q, &env, &ctx)) < 0) {
        code = zb_queue_verb_fail("history", &ctx, rc);
        goto done;
    }
    o.json = qa.json;
    if (o.json && (o.arr = json_array()) == NULL)
        rc = zb_fail_oom(&ctx);
    else
        rc = zb_queue_attempts_where(q, &ctx, zb_settings_get(env.settings,
                                     ZB_SET_WAREHOUSE), qa.va->n_pos > 0
                                     ? qa.va->pos[0] : NULL, qa.task_id,
                                     qa.limit, history_one, &o);
    if (rc == ZB_ENOMEM && ctx.err.msg[0] == '\0')
        zb_fail_oom(&ctx);
    if (rc == ZB_OK && o.json && print_dump(o.arr) < 0)
        rc = zb_fail_oom(&ctx);
    if (rc == ZB_OK && !o.json && o.n == 0)
        printf("no attempts recorded\n");
    code = rc < 0 ? zb_queue_verb_fail("history", &ctx, rc)
                  : (fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED);
done:
    json_decref(o.arr);
    zb_queue_close(q);
    zb_verb_env_close(&env);
    zb_queue_args_free(&qa);
    return code;
}

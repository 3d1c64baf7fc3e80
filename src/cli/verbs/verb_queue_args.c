/*
 * cli/verbs/verb_queue_args.c - the queue verbs' command line
 * (verb_queue_args.h).
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/verbs/verb_queue_args.h"
#include "util/alloc.h"
#include "util/err.h"

/* "zamboni VERB: WHAT 'ARG'" and the hint. */
static int usage(const char *verb, const char *what, const char *arg)
{
    fprintf(stderr, "zamboni %s: %s '%s'", verb, what, arg);
    fprintf(stderr, "\nRun 'zamboni %s --help' for its flags.\n", verb);
    return ZB_EXIT_USAGE;
}

static int int_arg(int64_t *out, const char *verb, const char *flag,
                   const char *v, int64_t lo, int64_t hi)
{
    char *end = NULL;
    long long n;

    if (v == NULL)
        return usage(verb, "a value is needed by", flag);
    n = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || n < lo || n > hi)
        return usage(verb, "not a number in range:", v);
    *out = n;
    return 0;
}

int zb_queue_args_parse(zb_queue_args *qa, const char *verb,
                        const char *help, int argc, char **argv, int first,
                        int max_pos)
{
    zb_verb_args *a;
    int i, code;

    memset(qa, 0, sizeof(*qa));
    if ((a = qa->va = zb_calloc(1, sizeof(*a))) == NULL) {
        fprintf(stderr, "zamboni %s: out of memory\n", verb);
        return ZB_EXIT_FAILED;
    }
    a->verb = verb;
    {
        /* No compaction flags here: every override "not set". */
        zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
        a->mo = mo;
    }
    for (i = first; i < argc; i++) {
        const char *arg = argv[i], *eq, *val;
        char name[64];
        int64_t n = 0;
        int id;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(help, stdout);
            fputs(ZB_QUEUE_COMMON_HELP, stdout);
            return -1;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (max_pos >= 0 && (int)a->n_pos >= max_pos)
                return usage(verb, "unexpected argument", arg);
            if (a->n_pos >= ZB_VERB_MAX_TABLES)
                return usage(verb, "too many arguments at", arg);
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (strcmp(arg, "--json") == 0) {
            qa->json = a->json = 1;
            continue;
        }
        if (strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) {
            qa->verbose = a->verbose = 1;
            continue;
        }
        /* The rest take a value: --flag VALUE or --flag=VALUE. */
        eq = strchr(arg, '=');
        snprintf(name, sizeof(name), "%.*s",
                 (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
        val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (val == NULL)
            return usage(verb, "a value is needed by", name);
        if (strcmp(name, "--profile") == 0) {
            a->profile_path = val;
        } else if (strcmp(name, "--env") == 0) {
            a->env_path = val;
        } else if (strcmp(name, "--table-config") == 0) {
            a->table_config = val;
        } else if (strcmp(name, "--priority") == 0 &&
                   strcmp(verb, "enqueue") == 0) {
            if ((code = int_arg(&n, verb, name, val, -1000000, 1000000)))
                return code;
            qa->priority = (int)n;
        } else if (strcmp(name, "--state") == 0 &&
                   strncmp(verb, "tasks", 5) == 0) {
            qa->state = val;
        } else if (strcmp(name, "--task") == 0 &&
                   strcmp(verb, "history") == 0) {
            if ((code = int_arg(&n, verb, name, val, 1, INT64_MAX)))
                return code;
            qa->task_id = n;
        } else if (strcmp(name, "--limit") == 0 &&
                   strcmp(verb, "history") == 0) {
            if ((code = int_arg(&n, verb, name, val, 1, 100000)))
                return code;
            qa->limit = (int)n;
        } else if ((id = zb_settings_id_for_flag(name)) >= 0) {
            a->setting_flags[id] = val;
        } else {
            zb_ctx ctx;

            zb_ctx_init(&ctx);
            if (zb_settings_removed_flag(&ctx, name) < 0) {
                fprintf(stderr, "zamboni %s: %s\n", verb, ctx.err.msg);
                return ZB_EXIT_USAGE;
            }
            return usage(verb, "unknown flag", name);
        }
    }
    return 0;
}

void zb_queue_args_free(zb_queue_args *qa)
{
    zb_free(qa->va);
    qa->va = NULL;
}

int zb_queue_verb_fail(const char *verb, const zb_ctx *ctx, int rc)
{
    fprintf(stderr, "zamboni %s: %s\n", verb,
            ctx->err.msg[0] ? ctx->err.msg : zb_rc_name(rc));
    return zb_cli_exit_code(rc);
}

/*
 * cli/verbs/verb_queue_args.h - the command line of the queue verbs (db
 * migrate, enqueue, tasks, history): their few flags, every setting flag
 * (--queue-uri, --uri, --warehouse, --root, ...) and --profile/--env
 * handed to the settings, and the run environment opened from them.
 */
#ifndef ZB_CLI_VERB_QUEUE_ARGS_H
#define ZB_CLI_VERB_QUEUE_ARGS_H

#include <stdint.h>

#include "cli/verbs/queue_open.h"

typedef struct zb_queue_args {
    zb_verb_args *va;              /* settings flags and positionals */
    int json, verbose;
    int priority;                  /* enqueue --priority */
    const char *state;             /* tasks list --state */
    int64_t task_id;               /* history --task */
    int limit;                     /* history --limit */
} zb_queue_args;

/*
 * Parses argv from argv[first] (the verb's words before it). Returns 0 to
 * go on, 2 after a usage error (printed), or -1 when --help was asked
 * (help printed). max_pos: positionals allowed (-1: any).
 */
int zb_queue_args_parse(zb_queue_args *qa, const char *verb,
                        const char *help, int argc, char **argv, int first,
                        int max_pos);
void zb_queue_args_free(zb_queue_args *qa);

/* "zamboni VERB: message" on stderr; the exit code of rc. */
int zb_queue_verb_fail(const char *verb, const zb_ctx *ctx, int rc);

/* The flags every queue verb takes, for the help texts. */
#define ZB_QUEUE_COMMON_HELP                                                \
    "  --queue-uri URI   the queue database: sqlite:PATH or postgresql://\n" \
    "                    (ZAMBONI_QUEUE_URI). Default: the catalog's own\n"  \
    "                    database when the catalog is SQL (--uri), else\n"   \
    "                    sqlite:$ZAMBONI_ROOT/queue.db\n"                    \
    "  --uri URI         the catalog (ZAMBONI_URI); --root DIR, --profile\n" \
    "                    FILE, --env FILE and the other settings as for\n"   \
    "                    maintenance\n"                                      \
    "  --verbose         print the settings and the database used\n"         \
    "  --help            this text\n"

#endif

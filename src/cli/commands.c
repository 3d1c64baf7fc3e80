/*
 * cli/commands.c - the list of subcommands, in the order --help shows
 * them: the maintenance run, its six operations in their load-bearing
 * order, then the read-only and service commands.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "cli/verbs/verb_add_files.h"
#include "cli/verbs/verb_queue.h"
#include "cli/verbs/verb_scan.h"
#include "cli/verbs/verbs.h"

static int run_version(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "zamboni version: unexpected argument '%s'\n",
                argv[1]);
        return ZB_EXIT_USAGE;
    }
    printf("zamboni %s\n", zb_version());
    return ZB_EXIT_OK;
}

const zb_cli_command zb_cli_commands[] = {
    { "maintenance", "run the six operations, in order, on every table",
      NULL, zb_cli_maintenance_run },
    { "compact", "rewrite small and delete-laden data files", NULL,
      zb_cli_op_run },
    { "apply-properties", "set table properties from table-config.json",
      NULL, zb_cli_op_run },
    { "remove-dangling-deletes", "drop delete files that apply to nothing",
      NULL, zb_cli_op_run },
    { "rewrite-manifests", "regroup manifests by partition", NULL,
      zb_cli_op_run },
    { "expire", "expire old snapshots and delete the files only they used",
      NULL, zb_cli_op_run },
    { "remove-orphans", "delete old files that no metadata references",
      NULL, zb_cli_op_run },
    { "doctor", "check the setup and whether a table is usable", NULL,
      zb_cli_doctor_run },
    { "describe", "show a table's files, deletes and findings", NULL,
      zb_cli_describe_run },
    { "plan", "show the compaction plan of a table", NULL,
      zb_cli_plan_run },
    { "scan", "print a table's live rows or their count", NULL,
      zb_cli_scan_run },
    { "add-files", "register existing Parquet files as a table's data files",
      NULL, zb_cli_add_files_run },
    { "warehouses", "list the catalog's warehouses, one a line", NULL,
      zb_cli_warehouses_run },
    { "engines", "list each engine and what it supports", NULL,
      zb_cli_engines_run },
    { "table-config", "validate or summarise a table-config.json", NULL,
      zb_cli_table_config_run },
    { "validate-config", "same as table-config validate FILE", NULL,
      zb_cli_validate_config_run },
    { "demo", "create a demo warehouse to try maintenance on", NULL,
      zb_cli_demo_run },
#ifdef ZB_HAVE_SERVE
    { "serve", "schedule maintenance tasks for a worker fleet", NULL,
      zb_cli_serve_run },
#else
    { "serve", "schedule maintenance tasks for a worker fleet", NULL, NULL },
#endif
    { "db", "db migrate: apply the task queue's schema migrations", NULL,
      zb_cli_db_run },
    { "enqueue", "put a warehouse's operations on the task queue", NULL,
      zb_cli_enqueue_run },
    { "tasks", "list, show, cancel or requeue the queue's tasks", NULL,
      zb_cli_tasks_run },
    { "history", "the run history: every finished attempt", NULL,
      zb_cli_history_run },
    { "worker", "take maintenance tasks from the queue", NULL,
      zb_cli_worker_run },
    { "version", "print the version", "Usage: zamboni version\n",
      run_version },
    { "help", "show help for a command", "Usage: zamboni help [COMMAND]\n",
      zb_cli_run_help },
    { NULL, NULL, NULL, NULL }
};

const zb_cli_command *zb_cli_find(const char *name)
{
    const zb_cli_command *c;

    for (c = zb_cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

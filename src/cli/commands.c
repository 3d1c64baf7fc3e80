/*
 * cli/commands.c - the list of subcommands, in the order --help shows
 * them: the maintenance run, its six operations in their load-bearing
 * order, then the read-only and service commands.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/exit.h"
#ifdef ZB_CLI_HAVE_SCAN
#include "cli/scan.h"
#define ZB_CLI_SCAN_HELP zb_cli_scan_help
#define ZB_CLI_SCAN_RUN zb_cli_scan_run
#else
#define ZB_CLI_SCAN_HELP NULL
#define ZB_CLI_SCAN_RUN NULL
#endif

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
      NULL, NULL },
    { "compact", "rewrite small and delete-laden data files", NULL, NULL },
    { "apply-properties", "set table properties from table-config.json",
      NULL, NULL },
    { "remove-dangling-deletes", "drop delete files that apply to nothing",
      NULL, NULL },
    { "rewrite-manifests", "regroup manifests by partition", NULL, NULL },
    { "expire", "expire old snapshots and delete the files only they used",
      NULL, NULL },
    { "remove-orphans", "delete old files that no metadata references",
      NULL, NULL },
    { "describe", "show a table's files, deletes and findings", NULL, NULL },
    { "plan", "show the compaction plan of a table", NULL, NULL },
    { "scan", "print a table's live rows or their count", ZB_CLI_SCAN_HELP,
      ZB_CLI_SCAN_RUN },
    { "warehouses", "list the catalog's warehouses, one a line", NULL, NULL },
    { "engines", "list each engine and what it supports", NULL, NULL },
    { "table-config", "validate or summarise a table-config.json", NULL,
      NULL },
    { "serve", "schedule maintenance tasks for a worker fleet", NULL, NULL },
    { "worker", "take maintenance tasks from the queue", NULL, NULL },
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

/*
 * cli/cli.h - the table of subcommands shared by main.c and the commands.
 */
#ifndef ZB_CLI_CLI_H
#define ZB_CLI_CLI_H

#include "zamboni/zamboni.h"

typedef struct zb_cli_command {
    const char *name;
    const char *summary;   /* one line for --help */
    const char *help;      /* full help of `zamboni help NAME`, or NULL */
    /* argv[0] is the command's name; returns an exit code. NULL: the
     * command is planned but not in this build, and exits 3 saying so. */
    int (*run)(int argc, char **argv);
} zb_cli_command;

/* Terminated by an entry whose name is NULL. */
extern const zb_cli_command zb_cli_commands[];

const zb_cli_command *zb_cli_find(const char *name);

/* `zamboni help [COMMAND]`; lives in main.c beside the global usage. */
int zb_cli_run_help(int argc, char **argv);

#endif

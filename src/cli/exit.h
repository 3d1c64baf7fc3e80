/*
 * cli/exit.h - the one table from library return codes to process exit
 * codes, as DESIGN.md defines them:
 *   0 success, 1 failed, 2 usage, 3 refused, 4 a safety check aborted.
 */
#ifndef ZB_CLI_EXIT_H
#define ZB_CLI_EXIT_H

enum {
    ZB_EXIT_OK = 0,
    ZB_EXIT_FAILED = 1,
    ZB_EXIT_USAGE = 2,
    ZB_EXIT_REFUSED = 3,
    ZB_EXIT_UNSAFE = 4
};

int zb_cli_exit_code(int rc);

/* The worse of two exit codes, for runs over many tables. */
int zb_cli_exit_worst(int a, int b);

#endif

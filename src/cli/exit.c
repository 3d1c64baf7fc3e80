/*
 * cli/exit.c - return code to exit code (see cli/exit.h).
 */
#include "cli/exit.h"
#include "zamboni/error.h"

int zb_cli_exit_code(int rc)
{
    switch (rc) {
    case ZB_OK:
        return ZB_EXIT_OK;
    case ZB_EUSAGE:
        return ZB_EXIT_USAGE;
    case ZB_EREFUSED:
    case ZB_EUNSUPPORTED:
        return ZB_EXIT_REFUSED;
    case ZB_EUNSAFE:
        return ZB_EXIT_UNSAFE;
    default:
        return ZB_EXIT_FAILED;
    }
}

/* The codes are ordered by severity, so the worst is the largest. */
int zb_cli_exit_worst(int a, int b)
{
    return a > b ? a : b;
}

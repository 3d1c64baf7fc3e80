/*
 * cli/main.c - the zamboni executable: global options, logging setup and
 * subcommand dispatch.
 *
 * Order: parse the global options that come before the command, configure
 * the process default logger, then hand the remaining arguments to the
 * command. Every error ends here as a message on stderr and an exit code
 * from cli/exit.c; a usage error names the argument that was wrong.
 */
#define ZB_MODULE "cli"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "format/avro/avro.h"
#include "util/alloc.h"
#include "util/log.h"

static const char global_usage[] =
    "Usage: zamboni [global options] COMMAND [ARGS]\n"
    "\n"
    "Zamboni keeps Apache Iceberg tables healthy: it compacts small files,\n"
    "applies deletes, rewrites manifests, expires snapshots and removes\n"
    "orphan files, without losing a row or deleting a live file.\n"
    "\n"
    "Global options:\n"
    "  -h, --help             show this help, or a command's with COMMAND\n"
    "  --version              print the version and exit\n"
    "  -v, --verbose          log at debug level (same as --log-level debug)\n"
    "  --log-level LEVEL      error, warn, info (default), debug or trace\n"
    "  --log-format FORMAT    human (default) or json (one object per line)\n"
    "\n"
    "Logs go to stderr; results go to stdout. 'zamboni COMMAND --help'\n"
    "explains each of a command's flags with its default.\n"
    "\n"
    "Exit codes: 0 success, 1 failed, 2 usage error, 3 refused (valid but\n"
    "not done: unsupported, locked, wrong warehouse), 4 a safety check\n"
    "aborted and nothing was deleted.\n";

static void print_commands(FILE *out)
{
    const zb_cli_command *c;
    int any_missing = 0;

    fprintf(out, "\nCommands:\n");
    for (c = zb_cli_commands; c->name; c++) {
        if (c->run)
            fprintf(out, "  %-24s %s\n", c->name, c->summary);
        else
            any_missing = 1;
    }
    if (!any_missing)
        return;
    fprintf(out, "\nPlanned, not available in this build yet (they exit 3):\n");
    for (c = zb_cli_commands; c->name; c++)
        if (!c->run)
            fprintf(out, "  %-24s %s\n", c->name, c->summary);
}

static int usage_error(const char *fmt, ...) ZB_PRINTF(1, 2);

static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("zamboni: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'zamboni --help'.\n", stderr);
    return ZB_EXIT_USAGE;
}

static int bad_value(const char *option, const char *value)
{
    return usage_error("invalid value '%s' for %s", value, option);
}

int zb_cli_run_help(int argc, char **argv)
{
    const zb_cli_command *c;

    if (argc < 2) {
        fputs(global_usage, stdout);
        print_commands(stdout);
        return ZB_EXIT_OK;
    }
    if ((c = zb_cli_find(argv[1])) == NULL)
        return usage_error("unknown command '%s'", argv[1]);
    if (c->help) {
        fputs(c->help, stdout);
    } else if (c->run && c->run != zb_cli_run_help) {
        /* the command prints its own help, from its flag table */
        char *args[2];

        args[0] = (char *)c->name;
        args[1] = (char *)"--help";
        return c->run(2, args);
    } else {
        printf("zamboni %s: %s\n", c->name, c->summary);
    }
    return ZB_EXIT_OK;
}

int main(int argc, char **argv)
{
    zb_log_level level = ZB_LOG_INFO;
    zb_log_format format = ZB_LOG_HUMAN;
    const zb_cli_command *c;
    int i;

    zb_alloc_tune_process();
    /* manifests of one table share their schema text: parse it once */
    zb_avro_schema_cache_set(ZB_AVRO_SCHEMA_CACHE_MAX);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            return zb_cli_run_help(argc - i, argv + i);
        } else if (strcmp(a, "--version") == 0) {
            printf("zamboni %s\n", zb_version());
            return ZB_EXIT_OK;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            level = ZB_LOG_DEBUG;
        } else if (strcmp(a, "--log-level") == 0) {
            if (i + 1 >= argc)
                return usage_error("option '%s' needs a value", a);
            if (zb_log_parse_level(&level, argv[++i]) < 0)
                return bad_value(a, argv[i]);
        } else if (strcmp(a, "--log-format") == 0) {
            if (i + 1 >= argc)
                return usage_error("option '%s' needs a value", a);
            if (zb_log_parse_format(&format, argv[++i]) < 0)
                return bad_value(a, argv[i]);
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    zb_log_configure(zb_log_default(), level, format);
    if (i == argc) {
        fputs(global_usage, stderr);
        print_commands(stderr);
        return ZB_EXIT_USAGE;
    }
    if ((c = zb_cli_find(argv[i])) == NULL)
        return usage_error("unknown command '%s'", argv[i]);
    if (c->run == NULL) {
        fprintf(stderr,
                "zamboni %s: not available in this build (%s) yet\n",
                c->name, zb_version());
        return zb_cli_exit_code(ZB_EUNSUPPORTED);
    }
    return c->run(argc - i, argv + i);
}

/*
 * cli/verbs/progress.h - the progress line of long operations on a terminal.
 *
 *     zb_cli_progress_install(&ctx, isatty(STDERR_FILENO) && !json);
 *     ... run operations; before printing their output lines:
 *     zb_cli_progress_clear();
 *     ... at the end:
 *     zb_cli_progress_end(&ctx);
 *
 * The operations report (stage, done, total) through ctx->progress
 * (ops/ops.h). On a terminal one line on stderr is rewritten in place,
 * at most every 100 ms, for the series of the current operation:
 * "  compact: groups 3/10, files 30/100, bytes 1.2MiB/5.0MiB". It is
 * cleared before other output and at the end, so it never mixes with
 * the output lines. When stderr is not a terminal nothing is installed
 * and nothing is printed.
 */
#ifndef ZB_CLI_PROGRESS_H
#define ZB_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zamboni/zamboni.h"

/* Installs the printer in ctx when enabled (stderr a terminal and not
 * --json): returns 1, else 0 and ctx is unchanged. */
int zb_cli_progress_install(zb_ctx *ctx, int enabled);

/* Erases the line if one is shown (the printer stays installed). */
void zb_cli_progress_clear(void);

/* Erases the line and removes the printer from ctx. */
void zb_cli_progress_end(zb_ctx *ctx);

/* ---- for tests ---- */

/* The printer itself, writing to out with the given width (0: 80) and
 * minimum interval between lines (ms). */
void zb_cli__progress_open(FILE *out, unsigned width, int64_t interval_ms);
void zb_cli__progress_cb(const char *stage, uint64_t done, uint64_t total,
                         void *payload);
/* The line the current series make (without "\r" and erase). */
void zb_cli__progress_line(char *out, size_t out_size);

#endif

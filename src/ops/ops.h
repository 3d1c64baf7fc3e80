/*
 * ops/ops.h - what every maintenance operation shares: the table it works
 * on and how, and the shape of its result.
 *
 * Each operation (compact, apply-properties, remove-dangling-deletes,
 * rewrite-manifests, expire, remove-orphans) is one call on one table:
 *
 *     int zb_<op>(const zb_op_target *t, zb_ctx *ctx,
 *                 const zb_<op>_opts *o, zb_<op>_result *r);
 *
 * It takes the byte budget, stop flag, logger and metrics from ctx, fills
 * its result with counts (what it did, or with dry_run what it would do:
 * real counts, nothing changed), and returns ZB_OK or a code. The codes
 * the CLI maps to exit codes (DESIGN.md): ZB_EUNSAFE (a safety check
 * aborted: exit 4, nothing deleted), ZB_EREFUSED / ZB_EUNSUPPORTED (exit
 * 3), others (exit 1). Each operation also writes its report lines (the
 * output lines of ZAMBONI-INTERFACE.md section 5) with zb_<op>_report.
 * Nothing here knows argv, stdout or exit codes.
 */
#ifndef ZB_OPS_OPS_H
#define ZB_OPS_OPS_H

#include <stdint.h>

#include "catalog/catalog.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

typedef struct zb_op_target {
    zb_catalog *catalog;   /* loads and commits; borrowed */
    zb_io *io;             /* the table's files; borrowed */
    const char *ident;     /* "ns.table", or a folder for a PATH catalog */
    int dry_run;           /* count and report, change nothing */
    int64_t now_ms;        /* the clock for age rules; 0: the real clock */
} zb_op_target;

#endif

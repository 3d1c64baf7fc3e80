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

/*
 * Progress (ctx->progress, optional). A long operation reports each of
 * its series as (stage, done, total): total is fixed for the series, done
 * never falls and never passes total, and the last call of a series that
 * ran to its end has done == total. Calls come from the thread that runs
 * the operation, or (compaction groups) one at a time under a lock. A
 * stage is "OP: WHAT" (one of the constants below); a series whose WHAT
 * is "bytes" counts bytes. Rate: once at the start of a series, then per
 * unit of work (a compaction group, a wave of deletion batches), so a
 * callback that prints should throttle itself.
 */
#define ZB_PROGRESS_COMPACT_GROUPS "compact: groups"
#define ZB_PROGRESS_COMPACT_FILES "compact: files"
#define ZB_PROGRESS_COMPACT_BYTES "compact: bytes"
#define ZB_PROGRESS_EXPIRE_FILES "expire: files deleted"
#define ZB_PROGRESS_EXPIRE_METADATA "expire: metadata files deleted"
#define ZB_PROGRESS_ORPHANS_FILES "remove-orphans: files deleted"

static inline void zb_op__progress(zb_ctx *ctx, const char *stage,
                                   uint64_t done, uint64_t total)
{
    if (ctx != NULL && ctx->progress != NULL)
        ctx->progress(stage, done > total ? total : done, total,
                      ctx->progress_payload);
}

#endif

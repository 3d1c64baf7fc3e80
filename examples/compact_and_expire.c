/*
 * examples/compact_and_expire.c - Zamboni embedded in a program: compact a
 * table folder, then expire its old snapshots, through the public API
 * alone (include/zamboni/; this file is built with nothing else on its
 * include path).
 *
 * Usage: compact_and_expire TABLE_DIR [MAX_SNAPSHOT_AGE_MS]
 *   TABLE_DIR            the folder of an Iceberg table (metadata/ inside)
 *   MAX_SNAPSHOT_AGE_MS  expire snapshots older than this; default: the
 *                        table's history.expire.max-snapshot-age-ms, else
 *                        5 days. The current snapshot always stays.
 * Prints the table before, what each operation did, and the table after.
 * Exit status: 0 done, 1 an operation failed, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "zamboni/catalog.h"
#include "zamboni/ops.h"
#include "zamboni/table.h"
#include "zamboni/zamboni.h"

static int fail(const char *what, int rc, const zb_ctx *ctx)
{
    fprintf(stderr, "compact_and_expire: %s: %s: %s\n", what, zb_rc_name(rc),
            ctx->err.msg);
    return 1;
}

/* One line about the table as it is in the catalog now. */
static int show(zb_catalog *cat, zb_ctx *ctx, const char *dir,
                const char *when)
{
    zb_table *t = NULL;
    int rc = zb_table_load(&t, cat, ctx, dir);

    if (rc < 0)
        return fail("load", rc, ctx);
    printf("%s: format-version %d, snapshot %" PRId64 ", location %s\n",
           when, zb_table_format_version(t),
           zb_table_current_snapshot_id(t), zb_table_location(t));
    zb_table_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    zb_catalog_opts co = ZB_CATALOG_OPTS_INIT;   /* no uri: table folders */
    zb_ops_compact_opts copts = ZB_OPS_COMPACT_OPTS_INIT;
    zb_ops_expire_opts eopts = ZB_OPS_EXPIRE_OPTS_INIT;
    zb_ops_compact_result cr;
    zb_ops_expire_result er;
    zb_catalog *cat = NULL;
    zb_ctx ctx;
    const char *dir;
    char *end;
    int rc, status = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: compact_and_expire TABLE_DIR "
                        "[MAX_SNAPSHOT_AGE_MS]\n");
        return 2;
    }
    dir = argv[1];
    if (argc == 3) {
        eopts.max_snapshot_age_ms = strtoll(argv[2], &end, 10);
        if (*argv[2] == '\0' || *end != '\0' || eopts.max_snapshot_age_ms < 0) {
            fprintf(stderr, "compact_and_expire: MAX_SNAPSHOT_AGE_MS must "
                            "be a number of milliseconds\n");
            return 2;
        }
    }
    zb_ctx_init(&ctx);
    printf("zamboni %s\n", zb_version());
    if ((rc = zb_catalog_new(&cat, &ctx, &co)) < 0)
        return fail("catalog", rc, &ctx);
    if (show(cat, &ctx, dir, "before") != 0)
        goto done;

    /* binpack to the table's target size (its write.target-file-size-bytes,
     * else 128 MiB) */
    if ((rc = zb_ops_compact(&cr, cat, &ctx, dir, &copts)) < 0) {
        fail("compact", rc, &ctx);
        goto done;
    }
    printf("compact: %" PRIu64 " group(s), rewrote %" PRIu64 " file(s) (%"
           PRIu64 " bytes) into %" PRIu64 " (%" PRIu64 " bytes), %" PRIu64
           " row(s), %" PRIu64 " commit(s)\n",
           cr.groups, cr.files_rewritten, cr.bytes_rewritten,
           cr.files_written, cr.bytes_written, cr.rows, cr.commits);

    if ((rc = zb_ops_expire(&er, cat, &ctx, dir, &eopts)) < 0) {
        fail("expire", rc, &ctx);
        goto done;
    }
    printf("expire: expired %" PRIu64 " snapshot(s), retained %" PRIu64
           ", deleted %" PRIu64 " file(s) (%" PRIu64 " bytes), %" PRIu64
           " old metadata file(s)%s\n",
           er.snapshots_expired, er.snapshots_retained, er.files_deleted,
           er.bytes_deleted, er.metadata_files_deleted,
           er.gc_disabled ? " (gc.enabled=false: nothing deleted)" : "");
    if (er.files_not_deleted > 0)
        printf("expire: %" PRIu64 " file(s) could not be deleted\n",
               er.files_not_deleted);

    if (show(cat, &ctx, dir, "after") != 0)
        goto done;
    status = 0;
done:
    zb_catalog_free(cat);
    return status;
}

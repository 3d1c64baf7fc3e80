/*
 * cli/verbs/verb_scan.c - `zamboni scan TABLE [--snapshot ID] [--count]
 * [--format jsonl|csv] [--remap OLD=NEW]...`: prints a table's live rows
 * (every position delete, deletion vector and equality delete applied) so
 * that users and tests can compare a table before and after maintenance.
 *
 * Steps: parse the arguments (the shared flag table, cli/verbs/verbs.h); load
 * the table through the PATH catalog (catalog/catalog.h: newest metadata file,
 * remaps, the recorded location resolved into the folder) or, for
 * namespace.table, through the catalog the settings name
 * (cli/config/settings.h), both as every verb opens them; pick the snapshot
 * (--snapshot, else the current one) and its schema (the table's current
 * schema; with --snapshot, the schema-id that snapshot records, as time travel
 * reads); plan it (plan/scan/scan_plan.h) and read each task's live rows
 * (plan/read/scan_read.h), printing each batch (cli/verbs/scan_print.h) or
 * adding its length.
 *
 * Row order: data files in the planner's order (manifest list order, then
 * entry order in each manifest), each file's rows in file order.
 *
 * Tasks are copied (zb_scan_task_copy) into groups of up to GROUP_TASKS
 * data files or GROUP_BYTES of copies, and each group is read by one row
 * stream, so a delete file that applies to many data files of a group
 * is read once for the group (once per group over the table).
 *
 * --count reads a single column (the first that is not a variant) and
 * counts the rows that survive the deletes; the row stream still reads
 * the equality key columns it needs.
 */
#define ZB_MODULE "cli"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "cli/exit.h"
#include "cli/verbs/verb_scan.h"
#include "cli/verbs/scan_print.h"
#include "cli/verbs/verbs.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"

/* A group of tasks read by one row stream. */
#define GROUP_TASKS 4096
#define GROUP_BYTES ((size_t)64 << 20)
#define GROUP_ARENA_MAX ((size_t)256 << 20)

/* --count reads one column: the first that is not a variant. */
static int count_column(const ice_schema *schema, int32_t *id)
{
    size_t k;

    for (k = 0; k < schema->root->n_fields; k++) {
        const ice_field *f = &schema->root->fields[k];

        if (f->type->id != ICE_VARIANT) {
            *id = f->id;
            return 1;
        }
    }
    return 0;
}

typedef struct scan_run {
    const zb_verb_args *args;
    zb_io *io;
    zb_table *table;
    const ice_snapshot *snap;
    const ice_schema *schema;
    uint64_t rows;
    int header_done;
} scan_run;

/* Reads the live rows of tasks[0..n): prints them or counts them. */
static int read_group(scan_run *r, zb_ctx *ctx, const zb_scan_task *tasks,
                      size_t n)
{
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowArray batch;
    struct ArrowSchema sch;
    int32_t one_id;
    int rc;

    memset(&batch, 0, sizeof batch);
    memset(&sch, 0, sizeof sch);
    o.meta = r->table->meta;
    o.schema = r->schema;
    o.paths = &r->table->paths;
    if (r->args->count && count_column(r->schema, &one_id)) {
        o.field_ids = &one_id;
        o.n_field_ids = 1;
    }
    if ((rc = zb_rowstream_open(&rs, r->io, ctx, &o, tasks, n)) < 0)
        goto done;
    while ((rc = zb_rowstream_next(rs, ctx, &batch,
                                   r->args->count ? NULL : &sch)) == 1) {
        if (r->args->count) {
            r->rows += (uint64_t)batch.length;
        } else {
            if (!r->header_done) {
                if ((rc = zb_scan_print_header(stdout, ctx, r->args->format,
                                               &sch)) < 0)
                    goto done;
                r->header_done = 1;
            }
            if ((rc = zb_scan_print_batch(stdout, ctx, r->args->format, &sch,
                                          &batch)) < 0)
                goto done;
            zb_arrow_schema_release(&sch);
        }
        zb_arrow_array_release(&batch);
    }
done:
    zb_arrow_array_release(&batch);
    zb_arrow_schema_release(&sch);
    zb_rowstream_free(rs);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * Plans the snapshot and reads it group by group: tasks are copied into
 * the arena until the group is full, then read and dropped.
 */
static int read_snapshot(scan_run *r, zb_ctx *ctx)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *plan = NULL;
    zb_arena *arena = NULL;
    zb_scan_task *group = NULL;
    const zb_scan_task *task;
    size_t n = 0;
    int rc;

    po.manifest = &r->table->paths;
    if ((rc = zb_arena_new(&arena, GROUP_ARENA_MAX)) < 0 ||
        (group = zb_calloc(GROUP_TASKS, sizeof *group)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_scan_plan_open(&plan, r->io, ctx, r->table->meta, r->snap,
                                &po)) < 0)
        goto done;
    while ((rc = zb_scan_plan_next(plan, ctx, &task)) > 0) {
        rc = zb_scan_task_copy(&group[n], ctx, arena, task);
        if (rc == ZB_ENOMEM && n > 0) {
            /* the arena is full: read what it holds, then copy again */
            zb_err_clear(&ctx->err);
            if ((rc = read_group(r, ctx, group, n)) < 0)
                goto done;
            n = 0;
            zb_arena_reset(arena);
            rc = zb_scan_task_copy(&group[n], ctx, arena, task);
        }
        if (rc < 0)
            goto done;
        if (++n == GROUP_TASKS || zb_arena_held_bytes(arena) >= GROUP_BYTES) {
            if ((rc = read_group(r, ctx, group, n)) < 0)
                goto done;
            n = 0;
            zb_arena_reset(arena);
        }
    }
    if (rc == 0 && n > 0)
        rc = read_group(r, ctx, group, n);
done:
    zb_scan_plan_free(plan);
    zb_free(group);
    zb_arena_free(arena);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * The CSV header when no batch came (an empty table or snapshot): the
 * header still names the columns, from an empty stream's schema.
 */
static int empty_header(scan_run *r, zb_ctx *ctx)
{
    zb_rowstream_opts o = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    struct ArrowSchema sch;
    int rc;

    memset(&sch, 0, sizeof sch);
    o.meta = r->table->meta;
    o.schema = r->schema;
    if ((rc = zb_rowstream_open(&rs, r->io, ctx, &o, NULL, 0)) < 0)
        goto done;
    if ((rc = zb_rowstream_schema(&sch, rs, ctx)) < 0)
        goto done;
    rc = zb_scan_print_header(stdout, ctx, r->args->format, &sch);
done:
    zb_arrow_schema_release(&sch);
    zb_rowstream_free(rs);
    return rc;
}

static int scan_table(scan_run *r, zb_ctx *ctx)
{
    const ice_metadata *m = r->table->meta;
    int rc;

    if (r->args->have_snapshot) {
        r->snap = ice_metadata_snapshot(m, r->args->snapshot_id);
        if (r->snap == NULL)
            return zb_fail(ctx, ZB_ENOTFOUND, "no snapshot %lld in %s",
                           (long long)r->args->snapshot_id,
                           r->table->metadata_location);
    } else {
        r->snap = ice_metadata_current_snapshot(m);
    }
    /* time travel reads with the snapshot's schema; a plain scan with
     * the table's current one (as Iceberg's readers do) */
    r->schema = NULL;
    if (r->args->have_snapshot && r->snap->has_schema_id)
        r->schema = ice_metadata_schema(m, r->snap->schema_id);
    if (r->schema == NULL)
        r->schema = ice_metadata_current_schema(m);
    if (r->schema == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s has no current schema",
                       r->table->metadata_location);
    if (r->snap != NULL && (rc = read_snapshot(r, ctx)) < 0)
        return rc;
    rc = ZB_OK;
    if (r->args->count)
        printf("%llu\n", (unsigned long long)r->rows);
    else if (!r->header_done && r->args->format == ZB_SCAN_FORMAT_CSV)
        rc = empty_header(r, ctx);
    return rc;
}

int zb_cli_scan_run(int argc, char **argv)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    zb_verb_env env;
    scan_run run;
    zb_catalog *cat = NULL;
    zb_ctx ctx;
    int help = 0, owned = 0, code, rc;

    memset(&env, 0, sizeof env);
    memset(&run, 0, sizeof run);
    zb_ctx_init(&ctx);
    if (a == NULL) {
        fputs("zamboni scan: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_SCAN, argc, argv, 1, 1, &help)) !=
            ZB_EXIT_OK ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_SCAN);
        zb_free(a);
        return code;
    }
    run.args = a;
    /* a read-only verb: no table config is read */
    env.no_tc = 1;
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0 ||
        (rc = zb_verb_catalog(&cat, &owned, &env, &ctx, a->pos[0])) < 0)
        goto done;
    run.io = env.io;
    if ((rc = zb_catalog_load_table(cat, &ctx, a->pos[0], &run.table)) < 0)
        goto done;
    rc = scan_table(&run, &ctx);
    if (rc == ZB_OK && fflush(stdout) != 0)
        rc = zb_fail(&ctx, ZB_EIO, "cannot write the rows: %s",
                     strerror(errno));
done:
    if (rc < 0)
        fprintf(stderr, "zamboni scan: %s: %s\n", a->pos[0],
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    zb_table_free(run.table);
    if (owned)
        zb_catalog_free(cat);
    zb_verb_env_close(&env);
    zb_free(a);
    return zb_cli_exit_code(rc);
}

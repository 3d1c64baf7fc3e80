/*
 * ops/compact/compact_report.c - the output lines of compaction
 * (ZAMBONI-INTERFACE.md section 5, "plan" and "compact"): the plan with
 * its real counts, and what a run did.
 */
#define ZB_MODULE "compact"

#include <string.h>

#include "ops/compact/compact.h"
#include "util/err.h"

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

int zb_compact_plan_report(zb_buf *out, const char *table,
                           const zb_compact_plan *p)
{
    size_t i;
    int bad = 0;

    bad |= zb_buf_appendf(out, "%s: %zu group(s), %llu file(s), target %lld "
                          "bytes, snapshot %lld\n", table, p->n_groups,
                          (unsigned long long)p->files,
                          (long long)p->target_file_bytes,
                          (long long)p->snapshot_id) < 0;
    for (i = 0; i < p->n_groups; i++) {
        const zb_compact_group *g = &p->groups[i];

        bad |= zb_buf_appendf(out, "  group %zu: spec=%d partition=%s "
                              "files=%zu bytes=%llu rows=%llu deletes=%llu "
                              "est-files=%llu est-memory=%llu\n", i + 1,
                              (int)g->spec_id, g->partition, g->n_tasks,
                              (unsigned long long)g->bytes,
                              (unsigned long long)g->rows,
                              (unsigned long long)g->delete_files,
                              (unsigned long long)g->est_out_files,
                              (unsigned long long)g->est_memory_bytes) < 0;
    }
    for (i = 0; i < p->n_skipped; i++)
        bad |= zb_buf_appendf(out, "  skipped spec=%d partition=%s: %s\n",
                              (int)p->skipped[i].spec_id,
                              p->skipped[i].partition,
                              p->skipped[i].reason) < 0;
    return bad ? ZB_ENOMEM : ZB_OK;
}

/* Issue 21: deletes carried onto the rewritten files, and each dropped
 * group with the exception that dropped it. */
static int carried_lines(zb_buf *out, const zb_compact_result *r)
{
    const zb_compact_plan *p = &r->plan;
    size_t i;
    int bad = 0;

    if (r->groups_carried > 0)
        bad |= zb_buf_appendf(out, "  carried deletes: %llu group(s) "
                              "committed with %llu concurrent delete "
                              "file(s) carried, hiding %llu row(s)\n",
                              (unsigned long long)r->groups_carried,
                              (unsigned long long)r->carried_deletes,
                              (unsigned long long)r->carried_rows) < 0;
    for (i = 0; i < p->n_groups; i++) {
        const zb_compact_group *g = &p->groups[i];

        if (g->state == ZB_GROUP_DROPPED && g->dropped_why[0] != '\0')
            bad |= zb_buf_appendf(out, "  dropped group %zu partition=%s: "
                                  "%s\n", i + 1, g->partition,
                                  g->dropped_why) < 0;
    }
    return bad ? ZB_ENOMEM : ZB_OK;
}

int zb_compact_report(zb_buf *out, const char *table,
                      const zb_compact_result *r, int dry_run)
{
    const zb_compact_plan *p = &r->plan;
    size_t i;
    int bad = 0;

    if (dry_run) {
        if (zb_compact_plan_report(out, table, p) < 0)
            return ZB_ENOMEM;
        bad |= zb_buf_appendf(out, "  would rewrite %llu file(s) (%llu "
                              "bytes, %llu rows) into about %llu, peak "
                              "memory %llu bytes per group\n",
                              (unsigned long long)p->files,
                              (unsigned long long)p->bytes,
                              (unsigned long long)p->rows,
                              (unsigned long long)p->est_out_files,
                              (unsigned long long)
                                  p->est_peak_memory_bytes) < 0;
        return bad ? ZB_ENOMEM : ZB_OK;
    }
    if (r->groups_committed == 0)
        bad |= zb_buf_appendf(out, "%s: no groups\n", table) < 0;
    else
        bad |= zb_buf_appendf(out, "%s: rewrote %llu file(s) (%llu bytes) "
                              "into %llu (%llu bytes) across %llu "
                              "compaction group%s\n", table,
                              (unsigned long long)r->files_removed,
                              (unsigned long long)r->bytes_removed,
                              (unsigned long long)r->files_added,
                              (unsigned long long)r->bytes_added,
                              (unsigned long long)r->groups_committed,
                              plural(r->groups_committed)) < 0;
    for (i = 0; i < p->n_skipped; i++)
        bad |= zb_buf_appendf(out, "  skipped spec=%d partition=%s: %s\n",
                              (int)p->skipped[i].spec_id,
                              p->skipped[i].partition,
                              p->skipped[i].reason) < 0;
    if (r->groups_dropped > 0)
        bad |= zb_buf_appendf(out, "  warning: %llu group(s) dropped: a "
                              "concurrent commit changed their files' "
                              "deletes, or a stop request\n",
                              (unsigned long long)r->groups_dropped) < 0;
    bad |= carried_lines(out, r) < 0;
    if (r->groups_failed > 0)
        bad |= zb_buf_appendf(out, "  warning: %llu group(s) failed\n",
                              (unsigned long long)r->groups_failed) < 0;
    if (r->stopped)
        bad |= zb_buf_appendf(out, "  warning: stopped on request\n") < 0;
    return bad ? ZB_ENOMEM : ZB_OK;
}

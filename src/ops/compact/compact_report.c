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

static const char *const why_names[ZB_COMPACT_WHY_COUNT] = {
    "below min-file-size-bytes", "above max-file-size-bytes (split)",
    "delete files reach delete-file-threshold",
    "deleted rows reach delete-ratio-threshold",
    "of another spec than the output's", "rewrite-all"
};

int zb_compact_plan_files_report(zb_buf *out, const zb_compact_plan *p)
{
    int bad = 0;

    for (size_t i = 0; i < p->n_groups; i++) {
        const zb_compact_group *g = &p->groups[i];

        for (size_t k = 0; k < g->n_tasks; k++) {
            const ice_data_file *f = g->tasks[k].data.file;
            unsigned why = g->task_why != NULL ? g->task_why[k] : 0;
            const char *sep = ":";

            bad |= zb_buf_appendf(out, "  group %zu file %s bytes=%lld "
                                  "deletes=%zu", i + 1, f->file_path,
                                  (long long)f->file_size_in_bytes,
                                  g->tasks[k].n_deletes) < 0;
            for (unsigned b = 0; b < ZB_COMPACT_WHY_COUNT; b++)
                if (why & (1u << b)) {
                    bad |= zb_buf_appendf(out, "%s %s", sep,
                                          why_names[b]) < 0;
                    sep = ",";
                }
            bad |= zb_buf_putc(out, '\n') < 0;
        }
    }
    return bad ? ZB_ENOMEM : ZB_OK;
}

/* "    why: 3 below min-file-size-bytes 96, 1 above ...": what made
 * the group's files candidates, by reason (a file may count twice). */
static int why_line(zb_buf *out, const zb_compact_group *g,
                    const zb_compact_plan *p)
{
    const char *const *names = why_names;
    const char *sep = "";
    int bad = 0;

    bad |= zb_buf_appendf(out, "    why:") < 0;
    for (unsigned b = 0; b < ZB_COMPACT_WHY_COUNT; b++) {
        if (g->why[b] == 0)
            continue;
        bad |= zb_buf_appendf(out, "%s %u %s", sep, (unsigned)g->why[b],
                              names[b]) < 0;
        if (b == ZB_COMPACT_WHY_SMALL)
            bad |= zb_buf_appendf(out, " %lld",
                                  (long long)p->min_file_bytes) < 0;
        else if (b == ZB_COMPACT_WHY_LARGE)
            bad |= zb_buf_appendf(out, " %lld",
                                  (long long)p->max_file_bytes) < 0;
        sep = ",";
    }
    if (g->n_tasks == 1)
        bad |= zb_buf_appendf(out, "%s alone in its partition, rewritten "
                              "even so", sep) < 0;
    if (g->note != NULL)
        bad |= zb_buf_appendf(out, "; %s", g->note) < 0;
    bad |= zb_buf_putc(out, '\n') < 0;
    return bad ? ZB_ENOMEM : ZB_OK;
}

/* The files left as they are, by reason. */
static int kept_lines(zb_buf *out, const zb_compact_plan *p)
{
    int bad = 0;

    if (p->kept_in_range > 0)
        bad |= zb_buf_appendf(out, "  kept: %llu file(s) within "
                              "min-file-size-bytes %lld and "
                              "max-file-size-bytes %lld, without deletes\n",
                              (unsigned long long)p->kept_in_range,
                              (long long)p->min_file_bytes,
                              (long long)p->max_file_bytes) < 0;
    if (p->kept_deletes > 0)
        bad |= zb_buf_appendf(out, "  kept: %llu file(s) within the size "
                              "range whose deletes are below "
                              "delete-file-threshold and "
                              "delete-ratio-threshold\n",
                              (unsigned long long)p->kept_deletes) < 0;
    if (p->kept_filtered > 0)
        bad |= zb_buf_appendf(out, "  kept: %llu file(s) outside this "
                              "pass (partition evolution)\n",
                              (unsigned long long)p->kept_filtered) < 0;
    if (p->capped_files > 0)
        bad |= zb_buf_appendf(out, "  kept: %llu candidate file(s) over "
                              "max-files-to-rewrite\n",
                              (unsigned long long)p->capped_files) < 0;
    return bad ? ZB_ENOMEM : ZB_OK;
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
        bad |= why_line(out, g, p) < 0;
    }
    for (i = 0; i < p->n_skipped; i++)
        bad |= zb_buf_appendf(out, "  skipped spec=%d partition=%s: %s%s\n",
                              (int)p->skipped[i].spec_id,
                              p->skipped[i].partition,
                              p->skipped[i].reason,
                              p->skipped[i].candidates == 1
                                  ? " (alone in its partition: not above "
                                    "max-file-size-bytes, no deletes; "
                                    "--rewrite-all takes it)"
                                  : "") < 0;
    bad |= kept_lines(out, p) < 0;
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

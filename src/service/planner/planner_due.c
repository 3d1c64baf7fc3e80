/*
 * service/planner/planner_due.c - which operations a table's signals make
 * due, how soon one may run again, the table's priority and a task's
 * memory estimate: pure functions of the signals (planner.h has the
 * rules).
 */
#define ZB_MODULE "planner"

#include <math.h>
#include <string.h>

#include "ops/maintenance_run.h"
#include "ops/table_settings.h"
#include "service/planner/planner.h"

#define MINUTE_MS ((int64_t)60000)
#define AGE_TERM_MAX_HOURS 336     /* two weeks: never run counts this */
#define GAIN_TERM_MAX 600
#define DELETE_FILE_WEIGHT 4       /* a delete file costs every read */

int64_t zb_planner_min_interval_ms(const zb_tc_effective *cfg, int op)
{
    int64_t min = op == ZB_MAINT_REMOVE_ORPHANS
                      ? ZB_PLANNER_ORPHANS_INTERVAL_MIN
                      : ZB_PLANNER_DEFAULT_INTERVAL_MIN;

    if (cfg != NULL && op >= 0 && op < ZB_TC_SCHEDULE_OPS &&
        cfg->block.min_interval_minutes[op] >= 0)
        min = cfg->block.min_interval_minutes[op];
    return min * MINUTE_MS;
}

static int enabled(const zb_tc_effective *cfg, int op)
{
    const zb_tc_retention *r;

    if (cfg == NULL)
        return 1;
    r = &cfg->block.retention;
    switch (op) {
    case ZB_MAINT_EXPIRE: return r->expire_enabled;
    case ZB_MAINT_REMOVE_ORPHANS: return r->orphans_enabled;
    case ZB_MAINT_REMOVE_DANGLING: return r->dangling_enabled;
    case ZB_MAINT_REWRITE_MANIFESTS: return r->manifests_enabled;
    default: return 1;
    }
}

static int compact_due(const zb_planner_signals *s)
{
    if (s->delete_files > 0)
        return 1;
    if (s->data_files < s->min_input_files || s->data_files < 2 ||
        s->data_bytes < 0)
        return 0;
    /* average below half the target: "well below" */
    return s->data_bytes / s->data_files < s->target_bytes / 2;
}

void zb_planner_due(int due[ZB_PLANNER_OPS], const zb_planner_signals *s,
                    const zb_tc_effective *cfg)
{
    memset(due, 0, sizeof(int) * ZB_PLANNER_OPS);
    if (s->has_snapshot) {
        due[ZB_MAINT_COMPACT] = compact_due(s);
        due[ZB_MAINT_REMOVE_DANGLING] = s->delete_files > 0;
        due[ZB_MAINT_REWRITE_MANIFESTS] =
            s->manifests >= s->min_input_manifests && s->manifests >= 2;
    }
    due[ZB_MAINT_APPLY_PROPERTIES] = s->props_missing > 0;
    due[ZB_MAINT_EXPIRE] = s->expirable_snapshots > 0;
    due[ZB_MAINT_REMOVE_ORPHANS] =
        s->last_compact_attempt_ms >
        s->last_success_ms[ZB_MAINT_REMOVE_ORPHANS];
    for (int op = 0; op < ZB_PLANNER_OPS; op++) {
        int64_t last = s->last_success_ms[op];

        if (!enabled(cfg, op))
            due[op] = 0;
        else if (due[op] && last > 0 &&
                 s->now_ms - last < zb_planner_min_interval_ms(cfg, op))
            due[op] = 0;
    }
}

int zb_planner_priority(const zb_planner_signals *s,
                        const int due[ZB_PLANNER_OPS])
{
    double gain = 0, per_gib, bytes;
    int64_t oldest = -1, hours;
    int any = 0, g;

    for (int op = 0; op < ZB_PLANNER_OPS; op++) {
        if (!due[op])
            continue;
        any = 1;
        if (oldest < 0 || s->last_success_ms[op] < oldest)
            oldest = s->last_success_ms[op];
    }
    if (!any)
        return 0;
    if (due[ZB_MAINT_COMPACT] && s->data_bytes >= 0 && s->target_bytes > 0) {
        double needed = ceil((double)s->data_bytes / (double)s->target_bytes);
        double excess = (double)s->data_files - (needed < 1 ? 1 : needed);

        gain += excess > 0 ? excess : 0;
    }
    gain += (double)s->delete_files * DELETE_FILE_WEIGHT;
    if (due[ZB_MAINT_EXPIRE])
        gain += (double)s->expirable_snapshots;
    if (due[ZB_MAINT_REWRITE_MANIFESTS])
        gain += (double)s->manifests / 8.0;
    bytes = s->data_bytes > (1 << 20) ? (double)s->data_bytes
                                      : (double)(1 << 20);
    per_gib = gain * (double)(1u << 30) / bytes;
    g = (int)(40.0 * log2(1.0 + per_gib));
    if (g > GAIN_TERM_MAX)
        g = GAIN_TERM_MAX;
    hours = oldest <= 0 ? AGE_TERM_MAX_HOURS
                        : (s->now_ms - oldest) / (60 * MINUTE_MS);
    if (hours > AGE_TERM_MAX_HOURS)
        hours = AGE_TERM_MAX_HOURS;
    if (hours < 0)
        hours = 0;
    return g + (int)hours;
}

uint64_t zb_planner_estimate_memory(const zb_planner_signals *s, int op)
{
    uint64_t cap;

    if (op != ZB_MAINT_COMPACT || s->data_bytes <= 0)
        return 0;
    /* a compaction group reads about a few targets of input at once */
    cap = s->target_bytes > 0 ? (uint64_t)s->target_bytes * 4
                              : (uint64_t)ZB_TSET_DEFAULT_TARGET_FILE_BYTES * 4;
    return (uint64_t)s->data_bytes < cap ? (uint64_t)s->data_bytes : cap;
}

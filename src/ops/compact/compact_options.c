/*
 * ops/compact/compact_options.c - the rewrite_data_files options' value
 * and origin, and what they set in zb_compact_opts
 * (ops/compact/compact_options.h).
 */
#define ZB_MODULE "compact"

#include <string.h>

#include "ops/compact/compact_options.h"
#include "util/err.h"

static const char *const defaults[ZB_TC_RW_COUNT] = {
    [ZB_TC_RW_MIN_FILE_SIZE] = "75% of the target",
    [ZB_TC_RW_MAX_FILE_SIZE] = "180% of the target",
    [ZB_TC_RW_REWRITE_ALL] = "false",
    [ZB_TC_RW_DELETE_FILE_THRESHOLD] =
        "1, ours: any file with a delete file; Iceberg's: no limit",
    [ZB_TC_RW_DELETE_RATIO] = "0.3",
    [ZB_TC_RW_MAX_GROUP_SIZE] = "100 GiB",
    [ZB_TC_RW_PARTIAL_PROGRESS] = "false",
    [ZB_TC_RW_MAX_COMMITS] = "10",
    [ZB_TC_RW_MAX_FILES] = "no limit",
    [ZB_TC_RW_JOB_ORDER] = "none",
    [ZB_TC_RW_OUTPUT_SPEC] = "the table's default spec",
    [ZB_TC_RW_START_SEQ] = "true",
};

/* The default's figure, as zb_compact_optval.value gives it. */
static double default_value(zb_tc_rw id)
{
    switch (id) {
    case ZB_TC_RW_DELETE_FILE_THRESHOLD:
    case ZB_TC_RW_START_SEQ:
        return 1;
    case ZB_TC_RW_DELETE_RATIO:
        return 0.3;
    case ZB_TC_RW_MAX_GROUP_SIZE:
        return (double)ZB_COMPACT_MAX_GROUP_DEFAULT;
    case ZB_TC_RW_MAX_COMMITS:
        return 10;
    case ZB_TC_RW_MIN_FILE_SIZE:
    case ZB_TC_RW_MAX_FILE_SIZE:
    case ZB_TC_RW_MAX_FILES:
    case ZB_TC_RW_OUTPUT_SPEC:
        return -1;
    default:
        return 0;
    }
}

const char *zb_compact_option_default(zb_tc_rw id)
{
    return (unsigned)id < ZB_TC_RW_COUNT ? defaults[id] : "?";
}

void zb_compact_options_resolve(zb_compact_options *out,
                                const zb_tc_rw_values *flags,
                                const zb_tc_effective *cfg)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < ZB_TC_RW_COUNT; i++) {
        zb_compact_optval *v = &out->v[i];
        unsigned bit = 1u << i;

        v->value = default_value((zb_tc_rw)i);
        v->origin = ZB_TSET_FROM_DEFAULT;
        if (flags != NULL && (flags->given & bit)) {
            v->value = flags->v[i];
            v->origin = ZB_TSET_FROM_FLAG;
        } else if (cfg != NULL && (cfg->block.rw.given & bit)) {
            v->value = cfg->block.rw.v[i];
            v->origin = ZB_TSET_FROM_TABLE_CONFIG;
            v->table_entry = (cfg->rw_from_table & bit) != 0;
        }
    }
}

void zb_compact_options_apply(zb_compact_opts *co,
                              const zb_compact_options *r)
{
    for (int i = 0; i < ZB_TC_RW_COUNT; i++) {
        const zb_compact_optval *v = &r->v[i];

        if (v->origin == ZB_TSET_FROM_DEFAULT)
            continue;
        switch ((zb_tc_rw)i) {
        case ZB_TC_RW_MIN_FILE_SIZE:
            co->min_file_bytes = (int64_t)v->value;
            break;
        case ZB_TC_RW_MAX_FILE_SIZE:
            co->max_file_bytes = (int64_t)v->value;
            break;
        case ZB_TC_RW_REWRITE_ALL:
            co->rewrite_all = v->value != 0;
            break;
        case ZB_TC_RW_DELETE_FILE_THRESHOLD:
            co->delete_file_threshold = (int)v->value;
            break;
        case ZB_TC_RW_DELETE_RATIO:
            co->delete_ratio = v->value;
            break;
        case ZB_TC_RW_MAX_GROUP_SIZE:
            co->max_group_bytes = (uint64_t)v->value;
            break;
        case ZB_TC_RW_PARTIAL_PROGRESS:
            co->partial_progress = v->value != 0;
            break;
        case ZB_TC_RW_MAX_COMMITS:
            co->max_commits = (int)v->value;
            break;
        case ZB_TC_RW_MAX_FILES:
            co->max_files_to_rewrite = (int64_t)v->value;
            break;
        case ZB_TC_RW_JOB_ORDER:
            co->job_order = (int)v->value;
            break;
        case ZB_TC_RW_OUTPUT_SPEC:
            co->output_spec_id = (int32_t)v->value;
            break;
        case ZB_TC_RW_START_SEQ:
            co->use_starting_seq = v->value != 0;
            break;
        default:
            break;
        }
    }
}

static int append_value(zb_buf *out, zb_tc_rw id, const zb_compact_optval *v,
                        const zb_compact_plan *p)
{
    const zb_tc_rw_desc *d = &zb_tc_rw_opts[id];

    if (id == ZB_TC_RW_MIN_FILE_SIZE && p != NULL)
        return zb_buf_appendf(out, "%lld", (long long)p->min_file_bytes);
    if (id == ZB_TC_RW_MAX_FILE_SIZE && p != NULL)
        return zb_buf_appendf(out, "%lld", (long long)p->max_file_bytes);
    if (v->origin == ZB_TSET_FROM_DEFAULT && v->value < 0)
        return zb_buf_appendf(out, "-");
    switch (d->kind) {
    case ZB_TC_RW_BOOL:
        return zb_buf_appendf(out, "%s", v->value != 0 ? "true" : "false");
    case ZB_TC_RW_ORDER:
        return zb_buf_appendf(out, "%s", zb_tc_job_order_name((int)v->value));
    case ZB_TC_RW_RATIO:
        return zb_buf_appendf(out, "%g", v->value);
    default:
        return zb_buf_appendf(out, "%lld", (long long)v->value);
    }
}

int zb_compact_options_report(zb_buf *out, const zb_compact_options *r,
                              const zb_compact_plan *p)
{
    int bad = 0;

    for (int i = 0; i < ZB_TC_RW_COUNT; i++) {
        const zb_compact_optval *v = &r->v[i];
        const zb_tc_rw_desc *d = &zb_tc_rw_opts[i];

        bad |= zb_buf_appendf(out, "  %-16s%s %s ", i == 0 ? "options" : "",
                              i == 0 ? ":" : " ", d->iceberg) < 0;
        bad |= append_value(out, (zb_tc_rw)i, v, p) < 0;
        if (v->origin == ZB_TSET_FROM_FLAG)
            bad |= zb_buf_appendf(out, " (flag %s)\n", d->flag) < 0;
        else if (v->origin == ZB_TSET_FROM_TABLE_CONFIG)
            bad |= zb_buf_appendf(out, " (table config %s, %s)\n", d->key,
                                  v->table_entry ? "the table's entry"
                                                 : "defaults") < 0;
        else
            bad |= zb_buf_appendf(out, " (default: %s)\n", defaults[i]) < 0;
    }
    return bad ? ZB_ENOMEM : ZB_OK;
}

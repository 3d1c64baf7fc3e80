/*
 * ops/config/table_config_rewrite.c - the table-config keys of Iceberg's
 * rewrite_data_files options (table_config.h): their names, kinds and
 * ranges in one table, read from a block's JSON or from a flag's text.
 * Meaning and defaults are compaction's (ops/compact/compact_options.h).
 */
#define ZB_MODULE "config"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/config/table_config_int.h"

#define BIG INT64_MAX
#define I32 INT32_MAX

const zb_tc_rw_desc zb_tc_rw_opts[ZB_TC_RW_COUNT] = {
    [ZB_TC_RW_MIN_FILE_SIZE] = { "min-file-size-bytes",
        "min_file_size_bytes", "--min-file-size-bytes", ZB_TC_RW_BYTES,
        0, BIG },
    [ZB_TC_RW_MAX_FILE_SIZE] = { "max-file-size-bytes",
        "max_file_size_bytes", "--max-file-size-bytes", ZB_TC_RW_BYTES,
        1, BIG },
    [ZB_TC_RW_REWRITE_ALL] = { "rewrite-all", "rewrite_all",
        "--rewrite-all", ZB_TC_RW_BOOL, 0, 1 },
    [ZB_TC_RW_DELETE_FILE_THRESHOLD] = { "delete-file-threshold",
        "delete_file_threshold", "--delete-file-threshold", ZB_TC_RW_INT,
        1, I32 },
    [ZB_TC_RW_DELETE_RATIO] = { "delete-ratio-threshold",
        "delete_ratio_threshold", "--delete-ratio-threshold", ZB_TC_RW_RATIO,
        0, 1 },
    [ZB_TC_RW_MAX_GROUP_SIZE] = { "max-file-group-size-bytes",
        "max_file_group_size_bytes", "--max-file-group-size-bytes",
        ZB_TC_RW_BYTES, 1, BIG },
    [ZB_TC_RW_PARTIAL_PROGRESS] = { "partial-progress.enabled",
        "partial_progress_enabled", "--partial-progress-enabled", ZB_TC_RW_BOOL,
        0, 1 },
    [ZB_TC_RW_MAX_COMMITS] = { "partial-progress.max-commits",
        "partial_progress_max_commits", "--partial-progress-max-commits",
        ZB_TC_RW_INT, 1, I32 },
    [ZB_TC_RW_MAX_FILES] = { "max-files-to-rewrite", "max_files_to_rewrite",
        "--max-files-to-rewrite", ZB_TC_RW_INT, 1, I32 },
    [ZB_TC_RW_JOB_ORDER] = { "rewrite-job-order", "rewrite_job_order",
        "--rewrite-job-order", ZB_TC_RW_ORDER, 0, 4 },
    [ZB_TC_RW_OUTPUT_SPEC] = { "output-spec-id", "output_spec_id",
        "--output-spec-id", ZB_TC_RW_INT, 0, I32 },
    [ZB_TC_RW_START_SEQ] = { "use-starting-sequence-number",
        "use_starting_sequence_number", "--use-starting-sequence-number",
        ZB_TC_RW_BOOL, 0, 1 },
};

static const char *const job_orders[] = { "none", "bytes-asc", "bytes-desc",
                                          "files-asc", "files-desc" };

const char *zb_tc_job_order_name(int order)
{
    return order >= 0 && order < 5 ? job_orders[order] : "?";
}

int zb_tc_rw_for_flag(const char *flag)
{
    for (int i = 0; i < ZB_TC_RW_COUNT; i++)
        if (strcmp(zb_tc_rw_opts[i].flag, flag) == 0)
            return i;
    return -1;
}

/* ZB_EUSAGE, with the rule in why. */
static int why_fail(char *why, size_t n, const zb_tc_rw_desc *d)
{
    if (why == NULL || n == 0)
        return ZB_EUSAGE;
    switch (d->kind) {
    case ZB_TC_RW_BOOL:
        snprintf(why, n, "true or false");
        break;
    case ZB_TC_RW_ORDER:
        snprintf(why, n, "bytes-asc, bytes-desc, files-asc, files-desc or "
                 "none");
        break;
    case ZB_TC_RW_RATIO:
        snprintf(why, n, "a number above 0, at most 1");
        break;
    default:
        if (d->hi >= I32)
            snprintf(why, n, "a whole number >= %lld", (long long)d->lo);
        else
            snprintf(why, n, "a whole number from %lld to %lld",
                     (long long)d->lo, (long long)d->hi);
        break;
    }
    return ZB_EUSAGE;
}

int zb_tc_rw_parse(double *out, zb_tc_rw id, const char *text, char *why,
                   size_t n)
{
    const zb_tc_rw_desc *d;
    char *end;

    if ((unsigned)id >= ZB_TC_RW_COUNT || text == NULL)
        return ZB_EUSAGE;
    d = &zb_tc_rw_opts[id];
    switch (d->kind) {
    case ZB_TC_RW_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            *out = text[0] == 't';
            return ZB_OK;
        }
        return why_fail(why, n, d);
    case ZB_TC_RW_ORDER:
        for (int i = 0; i < 5; i++)
            if (strcmp(text, job_orders[i]) == 0) {
                *out = i;
                return ZB_OK;
            }
        return why_fail(why, n, d);
    case ZB_TC_RW_RATIO: {
        double x;

        errno = 0;
        x = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !(x > 0.0) ||
            x > 1.0)
            return why_fail(why, n, d);
        *out = x;
        return ZB_OK;
    }
    default: {
        long long x;

        errno = 0;
        x = strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0' || text[0] == '+' ||
            x < d->lo || x > d->hi)
            return why_fail(why, n, d);
        *out = (double)x;
        return ZB_OK;
    }
    }
}

int zb_tc__parse_rewrite(zb_tc_parser *p, const json_t *obj,
                         const char *path, zb_tc_rw_values *out)
{
    char kp[TC_PATH];

    for (int i = 0; i < ZB_TC_RW_COUNT; i++) {
        const zb_tc_rw_desc *d = &zb_tc_rw_opts[i];
        const json_t *v = zb_tc__opt(obj, d->key);
        int64_t x = 0;
        int b = 0, rc;

        if (v == NULL)
            continue;
        zb_tc__sub(kp, path, d->key);
        switch (d->kind) {
        case ZB_TC_RW_BOOL:
            if ((rc = zb_tc__want_bool(p, v, kp, &b)) < 0)
                return rc;
            out->v[i] = b;
            break;
        case ZB_TC_RW_ORDER: {
            size_t k = 0;

            if ((rc = zb_tc__want_enum(p, v, kp, job_orders, 5, &k)) < 0)
                return rc;
            out->v[i] = (double)k;
            break;
        }
        case ZB_TC_RW_RATIO:
            if (!json_is_number(v))
                return zb_tc__bad(p, kp, "must be a number above 0, at "
                                  "most 1 (got %s)", zb_tc__type_name(v));
            if (!(json_number_value(v) > 0.0) || json_number_value(v) > 1.0)
                return zb_tc__bad(p, kp, "must be a number above 0, at "
                                  "most 1 (got %g)", json_number_value(v));
            out->v[i] = json_number_value(v);
            break;
        default:
            if ((rc = zb_tc__want_int(p, v, kp, d->lo, d->hi, 0, &x)) < 0)
                return rc;
            out->v[i] = (double)x;
            break;
        }
        out->given |= 1u << i;
    }
    return ZB_OK;
}

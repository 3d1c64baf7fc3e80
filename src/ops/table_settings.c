/*
 * ops/table_settings.c - one resolver for the settings with several
 * sources (table_settings.h).
 *
 * Each setting is a row of `settings` (its flag, config key, properties,
 * default, range, and how an unusable property is treated);
 * zb_tset_resolve walks the layers highest first and stops at the first
 * that gives a value: flag, then config_value (the config block's field;
 * its "given" is a non-null key, or for the keys with a built-in value a
 * presence bit), then each property through ice_table_prop_i64, then the
 * default. Nothing is allocated.
 */
#define ZB_MODULE "ops"

#include <string.h>

#include "ops/table_settings.h"
#include "table/metadata/table_props.h"
#include "util/err.h"

typedef struct tset_desc {
    const char *name;
    const char *flag;              /* NULL: no command-line flag */
    const char *config_key;        /* the key path in a block */
    const char *props[2];          /* NULL-padded */
    int64_t def, lo, hi;
    int config_days;               /* the config counts days, value ms */
    int props_strict;              /* unusable property: ZB_EINVAL */
} tset_desc;

static const tset_desc settings[ZB_TSET_COUNT] = {
    [ZB_TSET_TARGET_FILE_SIZE] = {
        "target_file_size_bytes", "--target-file-size-bytes",
        "target_file_size_bytes",
        { "write.parquet.target-file-size-bytes",
          "write.target-file-size-bytes" },
        ZB_TSET_DEFAULT_TARGET_FILE_BYTES, ZB_TSET_MIN_TARGET_FILE_BYTES,
        INT64_MAX, 0, 0 },
    [ZB_TSET_MIN_INPUT_FILES] = {
        "min_input_files", "--min-input-files", "min_input_files",
        { NULL, NULL }, ZB_TSET_DEFAULT_MIN_INPUT_FILES, 1, INT32_MAX, 0, 0 },
    [ZB_TSET_MAX_SNAPSHOT_AGE] = {
        "max_snapshot_age_ms", "--max-snapshot-age-days",
        "retention.expire_snapshots.max_snapshot_age_days",
        { "history.expire.max-snapshot-age-ms", NULL },
        ZB_TSET_DEFAULT_MAX_SNAPSHOT_AGE_MS, 0, INT64_MAX, 1, 1 },
    [ZB_TSET_MIN_SNAPSHOTS_TO_KEEP] = {
        "min_snapshots_to_keep", "--min-snapshots-to-keep",
        "retention.expire_snapshots.min_snapshots_to_keep",
        { "history.expire.min-snapshots-to-keep", NULL },
        ZB_TSET_DEFAULT_MIN_SNAPSHOTS_TO_KEEP, 1, INT32_MAX, 0, 1 },
    [ZB_TSET_MAX_REF_AGE] = {
        "max_ref_age_ms", NULL,
        "retention.expire_snapshots.max_ref_age_days",
        { "history.expire.max-ref-age-ms", NULL },
        ZB_TSET_DEFAULT_MAX_REF_AGE_MS, 0, INT64_MAX, 1, 1 },
    [ZB_TSET_ORPHAN_AGE] = {
        "orphan_older_than_ms", "--older-than-days",
        "retention.remove_orphan_files.older_than_days", { NULL, NULL },
        ZB_TSET_DEFAULT_ORPHAN_AGE_MS, 0, INT64_MAX, 1, 0 },
    [ZB_TSET_MIN_INPUT_MANIFESTS] = {
        "min_input_manifests", "--min-input-manifests",
        "retention.rewrite_manifests.min_input_manifests", { NULL, NULL },
        ZB_TSET_DEFAULT_MIN_INPUT_MANIFESTS, 1, INT32_MAX, 0, 0 },
};

int64_t zb_tset_days_ms(int64_t days)
{
    if (days == ZB_UNSET)
        return ZB_UNSET;
    if (days < 0)
        return 0;
    return days > INT64_MAX / ZB_TSET_DAY_MS ? INT64_MAX
                                             : days * ZB_TSET_DAY_MS;
}

static int64_t clamp(const tset_desc *d, int64_t v)
{
    return v < d->lo ? d->lo : v > d->hi ? d->hi : v;
}

/* The block's value of id: 1 when the config gives one. */
static int config_value(int64_t *v, int *table_entry, zb_tset id,
                        const zb_tc_effective *cfg)
{
    const zb_tc_block *b = &cfg->block;
    const zb_tc_retention *r = &b->retention;
    zb_tc_section sec = ZB_TC_SEC_RETENTION;

    switch (id) {
    case ZB_TSET_TARGET_FILE_SIZE:
        sec = ZB_TC_SEC_TARGET_FILE_SIZE;
        *v = b->target_file_size_bytes;
        break;
    case ZB_TSET_MIN_INPUT_FILES:
        sec = ZB_TC_SEC_MIN_INPUT_FILES;
        *v = cfg->origin[sec] == ZB_TC_FROM_BUILTIN ? ZB_UNSET
                                                    : b->min_input_files;
        break;
    case ZB_TSET_MAX_SNAPSHOT_AGE:
        *v = r->max_snapshot_age_days;
        break;
    case ZB_TSET_MIN_SNAPSHOTS_TO_KEEP:
        *v = r->min_snapshots_to_keep;
        break;
    case ZB_TSET_MAX_REF_AGE:
        *v = r->max_ref_age_days;
        break;
    case ZB_TSET_ORPHAN_AGE:
        *v = r->given & ZB_TC_GIVEN_ORPHAN_DAYS ? r->orphans_older_than_days
                                                : ZB_UNSET;
        break;
    case ZB_TSET_MIN_INPUT_MANIFESTS:
        *v = r->given & ZB_TC_GIVEN_MIN_MANIFESTS ? r->min_input_manifests
                                                  : ZB_UNSET;
        break;
    default:
        *v = ZB_UNSET;
        break;
    }
    *table_entry = cfg->origin[sec] == ZB_TC_FROM_TABLE;
    return *v != ZB_UNSET;
}

static void set_default(zb_tset_value *out, const tset_desc *d)
{
    memset(out, 0, sizeof *out);
    out->value = d->def;
    out->origin = ZB_TSET_FROM_DEFAULT;
    out->source = "default";
}

int zb_tset_explicit(zb_tset_value *out, zb_tset id, int64_t flag,
                     const zb_tc_effective *cfg)
{
    const tset_desc *d;
    int64_t v;
    int entry;

    memset(out, 0, sizeof *out);
    out->value = ZB_UNSET;
    out->origin = ZB_TSET_FROM_DEFAULT;
    out->source = "default";
    if ((unsigned)id >= ZB_TSET_COUNT)
        return 0;
    d = &settings[id];
    if (flag != ZB_UNSET) {
        out->value = clamp(d, flag);
        out->origin = ZB_TSET_FROM_FLAG;
        out->source = d->flag ? d->flag : "option";
        return 1;
    }
    if (cfg != NULL && config_value(&v, &entry, id, cfg)) {
        out->value = clamp(d, d->config_days ? zb_tset_days_ms(v) : v);
        out->origin = ZB_TSET_FROM_TABLE_CONFIG;
        out->source = d->config_key;
        out->config_table_entry = entry;
        return 1;
    }
    return 0;
}

int zb_tset_resolve(zb_tset_value *out, zb_ctx *ctx, zb_tset id,
                    int64_t flag, const zb_tc_effective *cfg,
                    const ice_metadata *m)
{
    const tset_desc *d;
    size_t i;

    if (zb_tset_explicit(out, id, flag, cfg))
        return ZB_OK;
    if ((unsigned)id >= ZB_TSET_COUNT)
        return ctx ? zb_fail(ctx, ZB_EINVAL, "no setting %d", (int)id)
                   : ZB_EINVAL;
    d = &settings[id];
    set_default(out, d);
    for (i = 0; i < 2 && d->props[i] != NULL; i++) {
        const char *text;
        int64_t v = 0;
        ice_prop_read got = ice_table_prop_i64(&v, &text, m, d->props[i]);

        if (got == ICE_PROP_ABSENT)
            continue;
        if (got == ICE_PROP_OK && (d->props_strict ||
                                   (v >= d->lo && v <= d->hi))) {
            out->value = clamp(d, v);
            out->origin = ZB_TSET_FROM_PROPERTY;
            out->source = d->props[i];
            return ZB_OK;
        }
        if (out->ignored_key == NULL) {
            out->ignored_key = d->props[i];
            out->ignored_text = text;
        }
        if (d->props_strict && ctx == NULL)
            return ZB_EINVAL;
        if (d->props_strict)
            return zb_fail(ctx, ZB_EINVAL, "table property %s=\"%s\" is "
                           "not a non-negative integer", d->props[i], text);
    }
    return ZB_OK;
}

const char *zb_tset_name(zb_tset id)
{
    return (unsigned)id < ZB_TSET_COUNT ? settings[id].name : "?";
}

const char *zb_tset_origin_name(zb_tset_origin origin)
{
    switch (origin) {
    case ZB_TSET_FROM_FLAG:
        return "flag";
    case ZB_TSET_FROM_TABLE_CONFIG:
        return "table config";
    case ZB_TSET_FROM_PROPERTY:
        return "table property";
    default:
        return "default";
    }
}

int zb_tset_format(zb_buf *out, zb_tset id, const zb_tset_value *v)
{
    const tset_desc *d;
    int rc;

    if ((unsigned)id >= ZB_TSET_COUNT)
        return ZB_EINVAL;
    d = &settings[id];
    rc = v->value == INT64_MAX
             ? zb_buf_appendf(out, "%s never (", d->name)
             : zb_buf_appendf(out, "%s %lld (", d->name,
                              (long long)v->value);
    if (rc == ZB_OK && v->origin != ZB_TSET_FROM_DEFAULT)
        rc = zb_buf_appendf(out, "%s %s", zb_tset_origin_name(v->origin),
                            v->source);
    else if (rc == ZB_OK)
        rc = zb_buf_append(out, "default", 7);
    if (rc == ZB_OK && v->origin == ZB_TSET_FROM_TABLE_CONFIG)
        rc = zb_buf_appendf(out, ", %s",
                            v->config_table_entry ? "the table's entry"
                                                  : "defaults");
    if (rc == ZB_OK && v->ignored_key != NULL && d->props_strict)
        rc = zb_buf_appendf(out, "; table property %s=\"%s\" is not a "
                            "non-negative integer", v->ignored_key,
                            v->ignored_text ? v->ignored_text : "");
    else if (rc == ZB_OK && v->ignored_key != NULL)
        rc = zb_buf_appendf(out, "; table property %s=\"%s\" ignored: not "
                            "an integer >= %lld", v->ignored_key,
                            v->ignored_text ? v->ignored_text : "",
                            (long long)d->lo);
    if (rc == ZB_OK)
        rc = zb_buf_putc(out, ')');
    return rc;
}

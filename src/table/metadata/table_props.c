/*
 * table/metadata/table_props.c - table properties read as numbers
 * (table_props.h).
 *
 * One parse for every numeric property the operations read, so that the
 * compaction target, the expiry rules and the settings report agree on
 * what "128MB" is (malformed) instead of each reading it its own way.
 */
#define ZB_MODULE "table"

#include "table/metadata/table_props.h"
#include "util/str.h"

ice_prop_read ice_table_prop_i64(int64_t *out, const char **text,
                                 const ice_metadata *m, const char *key)
{
    const char *v = m != NULL ? ice_metadata_property(m, key) : NULL;
    uint64_t u;

    if (text != NULL)
        *text = v;
    if (v == NULL)
        return ICE_PROP_ABSENT;
    if (zb_str_to_u64(&u, v) < 0 || u > (uint64_t)INT64_MAX)
        return ICE_PROP_MALFORMED;
    *out = (int64_t)u;
    return ICE_PROP_OK;
}

/*
 * table/metadata/table_props.h - table properties read as numbers.
 *
 * Iceberg keeps every table property as a string; writers (Java's
 * PropertyUtil) store integers as plain decimal text. This reads one the
 * way the operations need it: a non-negative decimal integer that fits an
 * int64_t, nothing else ("128MB", "-1", " 5", "1e6" are malformed). What a
 * value means and which range is valid is the caller's business
 * (ops/table_settings.h).
 */
#ifndef ZB_TABLE_TABLE_PROPS_H
#define ZB_TABLE_TABLE_PROPS_H

#include <stdint.h>

#include "table/metadata/metadata.h"

typedef enum ice_prop_read {
    ICE_PROP_ABSENT = 0,           /* the table does not set it */
    ICE_PROP_OK,                   /* *out holds the value */
    ICE_PROP_MALFORMED             /* set, but not such an integer */
} ice_prop_read;

/*
 * Reads property key of m into *out (left alone unless ICE_PROP_OK).
 * *text (may be NULL) gets the property's text when it is set (borrowed
 * from m), else NULL. m may be NULL: ICE_PROP_ABSENT.
 */
ice_prop_read ice_table_prop_i64(int64_t *out, const char **text,
                                 const ice_metadata *m, const char *key);

#endif

/*
 * table/value/ice_type.h - Iceberg's primitive types (format/spec.md, "Schemas
 * and Data Types"), shared by the schema model, values, transforms and
 * manifests.
 */
#ifndef ZB_TABLE_ICE_TYPE_H
#define ZB_TABLE_ICE_TYPE_H

#include <stdint.h>

typedef enum ice_type_id {
    ICE_BOOLEAN = 1,
    ICE_INT,
    ICE_LONG,
    ICE_FLOAT,
    ICE_DOUBLE,
    ICE_DECIMAL,        /* precision, scale */
    ICE_DATE,
    ICE_TIME,           /* microseconds */
    ICE_TIMESTAMP,      /* microseconds, no zone */
    ICE_TIMESTAMPTZ,    /* microseconds, UTC */
    ICE_TIMESTAMP_NS,   /* v3 */
    ICE_TIMESTAMPTZ_NS, /* v3 */
    ICE_STRING,
    ICE_UUID,
    ICE_FIXED,          /* length */
    ICE_BINARY,
    ICE_UNKNOWN,        /* v3 */
    ICE_VARIANT,        /* v3 */
    ICE_GEOMETRY,       /* v3 */
    ICE_GEOGRAPHY,      /* v3 */
    /* nested */
    ICE_STRUCT = 100,
    ICE_LIST,
    ICE_MAP
} ice_type_id;

typedef struct ice_prim {
    ice_type_id id;
    int32_t precision;   /* DECIMAL */
    int32_t scale;       /* DECIMAL */
    int32_t length;      /* FIXED */
} ice_prim;

#endif

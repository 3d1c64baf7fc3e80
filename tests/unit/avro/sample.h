/*
 * tests/unit/avro/sample.h - a schema with every Avro type, Iceberg ids
 * on its nodes, and a deterministic record generator; shared by the unit
 * round trip (test_avro) and the interop file generator (zb-avro-gen).
 */
#ifndef ZB_TEST_AVRO_SAMPLE_H
#define ZB_TEST_AVRO_SAMPLE_H

#include <stdint.h>

#include "format/avro/avro.h"
#include "util/arena.h"

extern const char sample_schema_json[];

/* Record i of the sample; NULL when the arena is out of room. */
zb_avro_value *sample_record(zb_arena *a, uint64_t i);

/* Deep equality of two values of node (floats compared bit for bit). */
int sample_equal(const zb_avro_node *node, const zb_avro_value *a,
                 const zb_avro_value *b);

#endif

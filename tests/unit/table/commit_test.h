/*
 * Shared by the test_table_commit files: sample metadata and helpers.
 */
#ifndef ZB_TEST_COMMIT_TEST_H
#define ZB_TEST_COMMIT_TEST_H

#include <jansson.h>

#include "table/commit/commit.h"
#include "zbtest.h"

/* A v2 table with two snapshots (1 <- 2, main at 2, tag t1 at 1),
 * statistics for 1, two schemas, two specs, one sort order. */
extern const char ct_v2[];
/* A v1 table with only the deprecated "schema" and "partition-spec". */
extern const char ct_v1[];

/* Parses text (fails the case on error). */
ice_metadata *ct_parse(const char *json, zb_ctx *ctx);
/* The metadata written and parsed again with jansson (caller decrefs). */
json_t *ct_written(const ice_metadata *m);
/* Parses JSON text with jansson (fails the case on error). */
json_t *ct_json(const char *text);

#endif

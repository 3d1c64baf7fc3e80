/*
 * Shared by the table metadata test files: the synthetic documents and
 * small helpers (metadata.c), and jansson's test allocator
 * (metadata_update.c).
 */
#ifndef ZB_TEST_TABLE_METADATA_H
#define ZB_TEST_TABLE_METADATA_H

#include <jansson.h>

#include "table/metadata/metadata.h"

/* v2 with every nested form, a sort order, a tag, statistics and
 * unknown fields; v1 in the old form; v3 with the new types. */
extern const char mt_v1[], mt_v2[], mt_v3[];

/* Parses json (named "t.json"), failing the case on an error. */
ice_metadata *mt_parse(const char *json, zb_ctx *ctx);
/* The document m writes, parsed back by jansson. */
json_t *mt_written(const ice_metadata *m);
json_t *mt_loads(const char *s);
/* Fails the case unless a and b are json-equal; releases both. */
void mt_check_equal(json_t *a, json_t *b);

void *test_json_malloc(size_t n);
void test_json_free(void *p);

#endif

/*
 * tests/unit/ops/compact_test.h - helpers of the compaction suites
 * (compact_*.c), on top of the operation suites' fixture kit
 * (ops_fixture.h: generated tables of (id long, part int, payload string)
 * in folders opened through the PATH catalog).
 */
#ifndef COMPACT_TEST_H
#define COMPACT_TEST_H

#include <stdint.h>

#include "ops/compact/compact.h"
#include "ops/compact/compact_hooks.h"
#include "ops_fixture.h"

/* Position deletes of rows pos[0..n) of the nth live data file (returns
 * its path, a copy: zb_free); part -1: unpartitioned. ZB_OK or an rc
 * (the _rc form does no checks, for child processes). */
char *ct_delete_pos(of_env *e, size_t nth, const int64_t *pos, size_t n,
                    int part);
int ct_delete_pos_rc(of_env *e, const char *path, const int64_t *pos,
                     size_t n, int part);
/* Equality deletes on (id, part) of the given ids (all in part). */
void ct_delete_eq2(of_env *e, const int64_t *ids, size_t n, int part);
int ct_delete_eq2_rc(of_env *e, const int64_t *ids, size_t n, int part);

/* Adds spec 1 with fields_json (the JSON array of its fields) and makes
 * it the default, as a partition evolution would. */
void ct_set_spec(of_env *e, const char *fields_json);

/* The ids of the live rows, sorted (zb_free). */
int64_t *ct_ids(of_env *e, size_t *n);

/* compact_reference.c (needs ZB_SOURCE_DIR): the live ids by
 * tests/interop/scan_reference.mjs, sorted; NULL when node is missing.
 * ct_same_ids checks two sorted id lists are equal. */
int64_t *ct_reference_ids(of_env *e, size_t *n);
void ct_same_ids(const int64_t *a, size_t na, const int64_t *b, size_t nb);

/* Live data files and their bytes per partition value of column part
 * (unpartitioned: one bucket); checks files <= ceil(bytes / target) + 1
 * in every bucket (target <= 0: no check); returns the number of live
 * data files. */
size_t ct_check_file_counts(of_env *e, int64_t target);

/* Runs zb_compact; prints the report; returns the rc. */
int ct_compact(of_env *e, const zb_compact_opts *o, zb_compact_result *r);
/* The same with compaction's test hooks (ops/compact/compact_hooks.h). */
int ct_compact_hooked(of_env *e, const zb_compact_opts *o,
                      const zb_compact_test_hooks *h, zb_compact_result *r);

#endif

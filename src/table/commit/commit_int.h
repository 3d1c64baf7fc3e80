/*
 * table/commit/commit_int.h - private to the commit_*.c files: randomness
 * and the clock for new ids and timestamps. The metadata transaction and
 * the JSON helpers they use are the metadata module's (metadata_edit.h).
 */
#ifndef ZB_TABLE_COMMIT_INT_H
#define ZB_TABLE_COMMIT_INT_H

#include <jansson.h>

#include "table/commit/commit.h"
#include "table/metadata/metadata_edit.h"

/* 64 random bits (getrandom, else a mixed clock and counter). */
uint64_t ice_commit__random64(void);

/* Milliseconds since the epoch. */
int64_t ice_commit__now_ms(void);

#endif

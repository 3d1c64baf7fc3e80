/*
 * tests/unit/config/cfg_test.h - helpers shared by the configuration
 * tests: a fake environment for settings, and running a parser on every
 * prefix and on corrupted copies of a text.
 */
#ifndef CFG_TEST_H
#define CFG_TEST_H

#include <stddef.h>

#include "zamboni/zamboni.h"

/* A fake environment: NULL-terminated pairs "NAME", "VALUE". */
typedef struct cfg_env {
    const char *const *pairs;
} cfg_env;

const char *cfg_env_get(const char *name, void *payload);

/* Writes path with contents and mode (e.g. 0600). */
void cfg_write(const char *path, const char *text, unsigned mode);

/*
 * Runs parse on every prefix of text and on corrupted copies; each call
 * must return ZB_OK or want_rc (never crash), and an error message must
 * start with name. Returns how many calls failed.
 */
typedef int (*cfg_parse_fn)(zb_ctx *ctx, const char *name, const char *text,
                            size_t len);
size_t cfg_torture_text(cfg_parse_fn parse, const char *name,
                        const char *text, int want_rc);

/*
 * Runs fn with the Nth allocation failing, for N = 1, 2, ... until a run
 * sees no fault; each faulted run must return ZB_ENOMEM and leave the
 * allocator's live bytes as they were. Returns the number of runs.
 */
typedef int (*cfg_alloc_fn)(zb_ctx *ctx);
size_t cfg_torture_alloc(cfg_alloc_fn fn);

#endif

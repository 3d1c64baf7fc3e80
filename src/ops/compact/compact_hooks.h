/*
 * ops/compact/compact_hooks.h - TEST-ONLY hooks of compaction. Compiled in
 * every build (no test build differs from the shipped one), called only by the
 * tests under tests/unit/ops; nothing in src/ calls zb_compact_test_run. They
 * let a test fake a row-count mismatch and act between the writing of a
 * commit's groups and the commit (a concurrent writer, a stop request), which
 * no option of a real run should offer.
 *
 *     zb_compact_test_hooks h = ZB_COMPACT_TEST_HOOKS_INIT;
 *     h.before_commit = inject;  h.payload = &state;
 *     rc = zb_compact_test_run(&target, ctx, &o, &h, &r);
 */
#ifndef ZB_OPS_COMPACT_HOOKS_H
#define ZB_OPS_COMPACT_HOOKS_H

#include <stdint.h>

#include "ops/compact/compact.h"

typedef struct zb_compact_test_hooks {
    /* Rows added to what each group counts as written (default 0): a
     * non-zero skew makes the row-count check fail. */
    int64_t row_skew;
    /* Called after the groups of a commit are written, before the commit
     * (default NULL: nothing), with payload (default NULL). */
    void (*before_commit)(void *payload);
    void *payload;
    /* Issue 21: 1 forgets each group's position map after its rewrite
     * (as a restart would): concurrent deletes drop the group again. */
    int lose_maps;
} zb_compact_test_hooks;

#define ZB_COMPACT_TEST_HOOKS_INIT \
    { .row_skew = 0, .before_commit = NULL, .payload = NULL, \
      .lose_maps = 0 }

/* zb_compact with hooks (NULL: none, the same as zb_compact). */
int zb_compact_test_run(const zb_op_target *t, zb_ctx *ctx,
                        const zb_compact_opts *o,
                        const zb_compact_test_hooks *hooks,
                        zb_compact_result *r);

#endif

/*
 * tests/unit/ops/tidy_test.h - helpers shared by the apply-properties,
 * remove-dangling-deletes and rewrite-manifests suites (tidy_*.c):
 * tables in folders opened through the PATH catalog (generated, or
 * copies of ../shared/fixtures), the live entries of a snapshot, the
 * live rows through the planner and the row stream, a listing of every
 * file of a folder with sizes and times.
 */
#ifndef TIDY_TEST_H
#define TIDY_TEST_H

#include <stdint.h>

#include "catalog/catalog.h"
#include "exec/arrow/arrow.h"
#include "plan/scan/scan_task.h"
#include "util/arena.h"
#include "ops/ops.h"
#include "zbtest.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

typedef struct tt_env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    char dir[1024];                /* the table folder */
    zb_op_target t;                /* catalog, io, ident = dir */
} tt_env;

/* A PATH catalog; the table folder <tmpdir>/<name>. */
void tt_open(tt_env *e, const char *name);
/* Copies fixture name into a fresh folder; 0 (with a note) when absent. */
int tt_fixture(tt_env *e, const char *name);
void tt_close(tt_env *e);

/*
 * A generated table: (id long, part int, payload string), partitioned by
 * identity(part) when partitioned, n_appends appends of rows rows each
 * (append a goes to partition a % n_parts), format version fv.
 */
void tt_make_table(tt_env *e, int fv, int partitioned, int n_parts,
                   int n_appends, int rows);
/* Appends rows ids from first to partition part (-1: unpartitioned). */
void tt_append(tt_env *e, int part, int64_t first, int rows);
/* The same without checks (for child processes): ZB_OK or an rc. */
int tt_append_rc(tt_env *e, int part, int64_t first, int rows);

zb_table *tt_load(tt_env *e);

typedef struct tt_item {
    char *path;
    int content;
    int32_t spec_id;
    int64_t seq, fseq, snap, first_row_id, records, offset, size;
} tt_item;

typedef struct tt_items {
    tt_item *v;
    size_t n;
} tt_items;

/* The live entries of the current snapshot, sorted by path and offset. */
void tt_live(tt_items *out, tt_env *e);
void tt_items_free(tt_items *it);
/* Checks a and b hold the same files with the same values; files of a
 * whose path is in skip[0..n_skip) must be absent from b. */
void tt_items_same(const tt_items *a, const tt_items *b,
                   const char *const *skip, size_t n_skip);
size_t tt_count(const tt_items *it, int content);

/* The current snapshot's summary value of key, or NULL (a copy). */
char *tt_summary(tt_env *e, const char *key);
int64_t tt_current_id(tt_env *e);
size_t tt_snapshot_count(tt_env *e);

/* Live rows: count and an order-free hash of their values. */
/* Every scan task of snapshot s of t, copied into a new *arena (the
 * caller frees the array with zb_free and the arena). */
zb_scan_task *tt_plan_tasks(tt_env *e, const zb_table *t,
                            const ice_snapshot *s, zb_arena **arena,
                            size_t *n_out);
void tt_rows(tt_env *e, uint64_t *rows, uint64_t *hash);
/* Folds row `row` of one column into the FNV-1a hash h (fixed widths and
 * strings by value, nested columns by presence, null as its own mark). */
uint64_t tt_hash_value(uint64_t h, const struct ArrowSchema *s,
                       const struct ArrowArray *a, int64_t row);

/* Every manifest list, manifest and live file of the current snapshot
 * exists; returns how many files were checked. */
size_t tt_check_files(tt_env *e);

/* "path size mtime" per file under dir, sorted (zb_free). */
char *tt_listing(const char *dir);

/* Manifest paths of the current snapshot's list, and their contents. */
size_t tt_manifests(tt_env *e, size_t *data, size_t *deletes);

#endif

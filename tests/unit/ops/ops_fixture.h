/*
 * tests/unit/ops/ops_fixture.h - the one fixture kit of the operation
 * suites (expire, remove-orphans, apply-properties, remove-dangling-deletes,
 * rewrite-manifests, compaction, progress): a catalog in the case's
 * temporary folder (SQLite, or PATH with a table folder), generated tables
 * made of many small appends (ops/ingest/table_write.h) or copies of the fixture
 * tables, commits made directly (updates, refs, file removals), the live
 * entries and rows of a snapshot, checks that every file a snapshot needs
 * exists, and fingerprints of folder trees.
 *
 * Everything checks as it goes (a failure ends the case), except the _rc
 * forms, which child processes call. Strings and arrays a function returns
 * are the caller's: free() unless its comment says zb_free.
 */
#ifndef OPS_FIXTURE_H
#define OPS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "exec/arrow/arrow.h"
#include "ops/ops.h"
#include "plan/scan/scan_task.h"
#include "util/arena.h"
#include "zbtest.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
#endif

#define OF_DAY_MS ((int64_t)24 * 3600 * 1000)

/*
 * The columns of the tables the kit generates: id long (required) and
 * payload string ("row-<id>"); the wide layout adds part int (required,
 * the source of the identity partition) between them and leaves every
 * fifth payload null.
 */
typedef enum of_layout { OF_ID_PAYLOAD, OF_ID_PART_PAYLOAD } of_layout;

typedef struct of_env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    char dir[512];                 /* the table folder (of_open) or the
                                      case's temporary folder */
    zb_op_target t;                /* catalog, io, ident = dir */
    of_layout layout;              /* of the tables made and appended to */
} of_env;

/* A PATH catalog and the table folder <tmpdir>/<name>; wide tables. */
void of_open(of_env *e, const char *name);
/* A SQLite catalog (sqlite=1: <tmpdir>/catalog.db, warehouse "wh" at
 * <tmpdir>) or a PATH catalog, dir = <tmpdir>; narrow tables. */
void of_open_catalog(of_env *e, int sqlite);
/* of_open, then a copy of fixture name in the table folder; 0 (with a
 * note) when the fixture is absent. */
int of_fixture(of_env *e, const char *name);
void of_close(of_env *e);

/* ---- tables ---- */

/*
 * Creates ident (SQLite: ns.name, its namespace made when missing, located
 * at <dir>/<name> unless location is given; PATH: the folder ident,
 * starting with '/', located there unless given) in format version 2 and
 * appends n_appends batches of rows rows, one commit each. Returns the
 * table as last committed.
 */
zb_table *of_make_catalog_table(of_env *e, const char *ident,
                                const char *location, int n_appends,
                                int rows);
/*
 * The table of the folder dir (no location recorded), format version fv,
 * partitioned by identity(part) when partitioned, n_appends appends of
 * rows rows each (append a goes to partition a % n_parts).
 */
void of_make_table(of_env *e, int fv, int partitioned, int n_parts,
                   int n_appends, int rows);
/* One append of rows ids from first to *t (partition part, -1: none);
 * *t becomes the table as committed. */
void of_append_to(of_env *e, zb_table **t, int part, int64_t first,
                  int rows);
/* The same to the table of the folder dir; the _rc form without checks
 * (for child processes): ZB_OK or an rc. */
void of_append(of_env *e, int part, int64_t first, int rows);
int of_append_rc(of_env *e, int part, int64_t first, int rows);

/* The table of the folder dir, as loaded now. */
zb_table *of_load(of_env *e);
/* Replaces *t with ident as loaded now. */
void of_reload(of_env *e, zb_table **t, const char *ident);

/* A position delete of row 0 of the first data file of the current
 * snapshot. */
void of_delete_row(of_env *e, zb_table **t);
/* A "delete" snapshot removing the data file at path (as written). */
void of_remove_file(of_env *e, zb_table **t, const char *path);
/* The path (as written) of the i-th live data file of the current
 * snapshot, in manifest order. */
char *of_data_file(of_env *e, const zb_table *t, size_t i);
/* Commits one update (JSON object, taken) without requirements. */
void of_commit(of_env *e, zb_table **t, json_t *update);
/* Sets a ref (branch or tag) to snapshot_id, with max_ref_age_ms (-1:
 * none). */
void of_set_ref(of_env *e, zb_table **t, const char *name, int tag,
                int64_t snapshot_id, int64_t max_ref_age_ms);

/* ---- live entries ---- */

typedef struct of_item {
    char *path;
    int content;
    int32_t spec_id;
    int64_t seq, fseq, snap, first_row_id, records, offset, size;
} of_item;

typedef struct of_items {
    of_item *v;
    size_t n;
} of_items;

/* The live entries of the current snapshot of the table of dir, sorted by
 * path and offset. */
void of_live(of_items *out, of_env *e);
void of_items_free(of_items *it);
/* Checks a and b hold the same files with the same values; files of a
 * whose path is in skip[0..n_skip) must be absent from b. */
void of_items_same(const of_items *a, const of_items *b,
                   const char *const *skip, size_t n_skip);
size_t of_count(const of_items *it, int content);

/* ---- snapshots ---- */

/* The current snapshot's summary value of key, or NULL (zb_free). */
char *of_summary(of_env *e, const char *key);
int64_t of_current_id(of_env *e);
size_t of_snapshot_count(of_env *e);
/* Manifests of the current snapshot's list: data and delete ones. */
size_t of_manifests(of_env *e, size_t *data, size_t *deletes);

typedef enum of_check {
    OF_CHECK_ALL,   /* and the live record counts add up to the summary's
                       total-records (our own tables) */
    OF_CHECK_FILES, /* files only: other writers' summaries may not add up */
    OF_CHECK_SOFT   /* files only; -1 instead of failing the case, with
                       ctx->err's message when the snapshot does not read */
} of_check;

/*
 * Every file snapshot s of t needs exists: its manifest list, each
 * manifest the list names, every live data and delete file. Returns the
 * number of files checked.
 */
long of_check_snapshot(of_env *e, const zb_table *t, const ice_snapshot *s,
                       of_check how);
/* The same for the current snapshot of the table of dir (OF_CHECK_FILES);
 * 0 without one. */
size_t of_check_files(of_env *e);

/* ---- rows ---- */

/* Every scan task of snapshot s of t, copied into a new *arena (the
 * caller frees the array with zb_free and the arena). */
zb_scan_task *of_plan_tasks(of_env *e, const zb_table *t,
                            const ice_snapshot *s, zb_arena **arena,
                            size_t *n_out);
/* The live rows of s through the row stream (plan/read/scan_read.h), read with
 * the snapshot's schema, or -1 when the stream cannot read them
 * (unsupported types, missing files). */
int64_t of_count_rows(of_env *e, const zb_table *t, const ice_snapshot *s);
/* The live rows of the current snapshot of the table of dir, read with
 * the current schema: their count and an order-free hash of their
 * values. */
void of_rows(of_env *e, uint64_t *rows, uint64_t *hash);
/* Folds row `row` of one column into the FNV-1a hash h (fixed widths and
 * strings by value, nested columns by presence, null as its own mark). */
uint64_t of_hash_value(uint64_t h, const struct ArrowSchema *s,
                       const struct ArrowArray *a, int64_t row);

/*
 * Paths of every file a set of snapshots references, resolved: keep=1
 * collects the snapshots whose flag is 1 with live entries, keep=0 those
 * whose flag is 0 with all entries. One path a line, sorted, deduplicated.
 */
char *of_snapshot_paths(of_env *e, const zb_table *t,
                        const unsigned char *flags, int keep);

/* ---- files and trees ---- */

/* "path\tsize\thash\n" for every file under dir, sorted: what changed. */
char *of_tree(const char *dir);
/* "path size mtime\n" for every file under dir, sorted: what was touched
 * (zb_free). */
char *of_listing(const char *dir);
/* Lines of a that b lacks, as one string. */
char *of_tree_minus(const char *a, const char *b);
size_t of_lines(const char *s);
/* Copies a tree (cp -R). */
void of_copy(const char *from, const char *to);
/* Creates a file of len bytes whose mtime is age_ms in the past. */
void of_make_file(const char *path, size_t len, int64_t age_ms);
int of_exists(const char *path);
int64_t of_now_ms(void);

/*
 * Writes <out>/expected.json for expire_check.mjs, which reads every
 * snapshot with icebird: t's metadata file and, for each of its snapshots
 * in order, the rows[j] of ids[j] == its id (the live rows the row stream
 * read before the operation).
 */
void of_keep_for_icebird(const zb_table *t, const char *out,
                         const int64_t *ids, const int64_t *rows, size_t n);

#endif

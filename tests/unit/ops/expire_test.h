/*
 * tests/unit/ops/expire_test.h - helpers of the expire and remove-orphans
 * suites: a SQLite or PATH catalog in the case's temporary folder, tables
 * made of many small appends (ops/ingest/table_write.h), file removals and refs
 * committed directly, fingerprints of whole folder trees (path, size and
 * content hash of every file), and the checks that every snapshot of a
 * table still reads in full.
 */
#ifndef EXPIRE_TEST_H
#define EXPIRE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "zbtest.h"

#ifndef ZB_FIXTURES_DIR
#define ZB_FIXTURES_DIR "../shared/fixtures"
/*
 * Writes <out>/expected.json for expire_check.mjs: t's metadata file and,
 * for each of its snapshots in order, the rows[j] of ids[j] == its id.
 */
void keep_for_icebird(const zb_table *t, const char *out,
                      const int64_t *ids, const int64_t *rows, size_t n);

#endif

#define DAY_MS ((int64_t)24 * 3600 * 1000)

typedef struct xp_env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    char dir[512];                 /* the case's temporary folder */
} xp_env;

/* A SQLite catalog (sqlite=1) or a PATH catalog in a fresh folder. */
void xp_open(xp_env *e, int sqlite);
void xp_close(xp_env *e);

/*
 * Creates ns.name (SQLite; location <dir>/<name> or the given one; or a
 * PATH table when ident is a folder, starting with '/') with
 * columns (id long, payload string), v2, and appends n_appends batches of
 * rows rows, one commit each. Returns the table as last committed.
 */
zb_table *xp_make_table(xp_env *e, const char *ident, const char *location,
                        int n_appends, int rows);
/* One more append of rows rows. */
void xp_append(xp_env *e, zb_table **t, int rows, int64_t first_id);
/* A position delete of row 0 of the first data file of the current
 * snapshot. */
void xp_delete_row(xp_env *e, zb_table **t);
/* A "delete" snapshot removing the data file at path (as written). */
void xp_remove_file(xp_env *e, zb_table **t, const char *path);
/* The path (as written) of the i-th live data file of the current
 * snapshot; malloc'd. */
char *xp_data_file(xp_env *e, const zb_table *t, size_t i);
/* Commits one update (JSON object, taken) without requirements. */
void xp_commit(xp_env *e, zb_table **t, json_t *update);
/* Sets a ref (branch or tag) to snapshot_id, with max_ref_age_ms (-1:
 * none). */
void xp_set_ref(xp_env *e, zb_table **t, const char *name, int tag,
                int64_t snapshot_id, int64_t max_ref_age_ms);
void xp_reload(xp_env *e, zb_table **t, const char *ident);

/* ---- trees ---- */

/* "path size hash\n" for every file under dir, sorted; malloc'd. */
char *xp_tree(const char *dir);
/* Lines of a that b lacks, as one string (malloc'd). */
char *xp_tree_minus(const char *a, const char *b);
size_t xp_lines(const char *s);
/* Copies a tree (cp -R). */
void xp_copy(const char *from, const char *to);
/* Creates a file of len bytes whose mtime is age_ms in the past. */
void xp_make_file(const char *path, size_t len, int64_t age_ms);
int xp_exists(const char *path);
int64_t xp_now_ms(void);

/* ---- snapshots ---- */

/*
 * Every file snapshot s needs (manifest list or manifests, each manifest,
 * every live data and delete file) exists, and the sum of the live data
 * files' record counts equals the summary's total-records when it has
 * one. Returns the number of files checked; a missing one fails the case
 * (or, with soft, returns -1 and leaves ctx->err's message).
 */
long xp_check_snapshot(xp_env *e, const zb_table *t, const ice_snapshot *s,
                       int soft);
/* The live rows of s through the row stream (plan/read/scan_read.h), or -1
 * when the stream cannot read it (unsupported types, missing files). */
int64_t xp_count_rows(xp_env *e, const zb_table *t, const ice_snapshot *s);

/*
 * Paths of every file a set of snapshots references, resolved: keep=1
 * collects the snapshots whose flag is 1 with live entries, keep=0 those
 * whose flag is 0 with all entries. One path a line, sorted, deduplicated.
 */
char *xp_snapshot_paths(xp_env *e, const zb_table *t,
                        const unsigned char *flags, int keep);

/*
 * Writes <out>/expected.json for expire_check.mjs: t's metadata file and,
 * for each of its snapshots in order, the rows[j] of ids[j] == its id.
 */
void keep_for_icebird(const zb_table *t, const char *out,
                      const int64_t *ids, const int64_t *rows, size_t n);

#endif

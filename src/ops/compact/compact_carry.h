/*
 * ops/compact/compact_carry.h - concurrent deletes carried onto the
 * rewritten files (issue 21), for compact_commit.c.
 *
 * When validation finds a position delete file or deletion vector added
 * since the plan against a group's input files, the group is not dropped
 * if it kept a position map (ops/compact/compact_carry_map.h; sort and
 * z-order: ops/compact/compact_carry_sorted.h): the
 * validation notes the delete file (zb_carry_note), and before the
 * replace producer is built zb_carry_write reads the positions it names
 * in the group's inputs, sends them through the map, and writes them
 * against the outputs: on a v3 table one deletion vector per output
 * that has deleted rows (all of a group's in one Puffin file), on v2 one
 * position delete file per group (sorted by file_path, pos); the files
 * go into the same replace snapshot (zb_carry_add). Positions of rows
 * already deleted while rewriting map to nothing and are not counted.
 * The concurrent delete files stay as they are: they name only replaced
 * files (dangling, the job of remove-dangling-deletes).
 *
 * The notes last across commit attempts (each attempt validates only the
 * snapshots committed since the last; zb_carry_reset when the branch
 * moved elsewhere), and so do the positions read: an attempt reads only
 * the delete files noted since the last, and writes a group's files
 * again only when there are any (the superseded ones deleted). Files of
 * groups dropped are deleted (zb_carry_forget_group); at the end those
 * left are deleted (zb_carry_delete_pending) when the commit failed,
 * else kept (zb_carry_keep_pending).
 */
#ifndef ZB_OPS_COMPACT_CARRY_H
#define ZB_OPS_COMPACT_CARRY_H

#include "catalog/catalog.h"
#include "ops/compact/compact_carry_map.h"
#include "ops/compact/compact_int.h"
#include "table/commit/commit.h"

typedef struct zb_carry zb_carry;

int zb_carry_new(zb_carry **out, zb_ctx *ctx, size_t n_groups);
void zb_carry_free(zb_carry *c);

/* Forgets the notes, what they gave and the files written for them
 * (deleted: none is committed yet). */
int zb_carry_reset(zb_carry *c, zb_io *io, zb_ctx *ctx);

/* Deletes the files written for group gi (dropped) and forgets what
 * its notes gave. */
void zb_carry_forget_group(zb_carry *c, zb_io *io, zb_ctx *ctx, size_t gi);

/* NULL when g can take carried deletes, else why not. */
const char *zb_carry_cannot(const zb_compact_group *g);

/* Notes f (a position delete file or DV added since the plan that may
 * name inputs of group gi). ZB_ENOMEM. */
int zb_carry_note(zb_carry *c, zb_ctx *ctx, size_t gi,
                  const ice_data_file *f);
int zb_carry_has(const zb_carry *c, size_t gi);
uint64_t zb_carry_notes(const zb_carry *c, size_t gi);

/*
 * Writes group gi's noted deletes against g's outputs; *rows gets the
 * rows they hide. A failure (a delete file unreadable, no room) returns
 * its rc with the message in ctx; the caller drops the group.
 */
int zb_carry_write(zb_carry *c, zb_ctx *ctx, size_t gi,
                   const zb_compact_group *g, const zb_table *t, zb_io *io,
                   uint64_t *rows);

/* Adds what zb_carry_write wrote for gi to op. */
int zb_carry_add(zb_carry *c, zb_ctx *ctx, ice_commit_op *op, size_t gi,
                 int32_t spec_id);

void zb_carry_delete_pending(zb_carry *c, zb_io *io, zb_ctx *ctx);
void zb_carry_keep_pending(zb_carry *c);

/* g's position map from its slices[0..n) (compact_slice.c's
 * zb_compact__finish_group), in arena. */
void zb_compact__carry_gather(zb_compact_group *g,
                              const zb_compact_slice *slices, size_t n,
                              zb_arena *arena);

#endif

/*
 * ops/compact/compact_carry_sorted.h - the position map of a sort or
 * z-order rewrite (issue 21): where each surviving input row went, kept
 * on disk so that concurrent position deletes and deletion vectors can
 * be carried onto the outputs (ops/compact/compact_carry.h), as
 * compact_carry_map.h does for binpack.
 *
 * A sort permutes the rows, so the map is one entry a row. Each row's
 * source (input task, position in its file) rides through the external
 * sort as a hidden trailing int64 column (task in the high 24 bits,
 * position in the low 40) of an extended schema; as the sorted batches
 * come out, the column is stripped before the writer sees them and its
 * values appended, in output order, to a spill file (exec/spill.h: 8
 * bytes a row, counted against the spill-disk limit). Entry k is output
 * row k of the group: the outputs' record counts cut the sequence into
 * files. The in-memory part is the spill's write buffer (64 KiB),
 * reserved from the group's reservation before the sort takes it (when
 * the budget has no room at once, taken from the sort's share instead:
 * zb_carry_sorted_sort_cut), and
 * dropped once the outputs are written; the column's 8 bytes a row in
 * the sort count in the sort's own memory (it spills sooner). The spill
 * file lasts until the group's wave has committed.
 *
 * At carry time (only when concurrent deletes exist) the spill is read
 * once, each entry's source looked up in the per-task sets of deleted
 * positions, and each hit becomes (output file, position).
 *
 * The map is lost, with a named reason, when it cannot be kept: no room
 * for the buffer, a spill failure or the spill-disk limit, more than
 * 2^24 inputs or a position past 2^40, or entries that do not match the
 * rows written. The sort goes on either way (the column stays, with
 * zeros): only the map is gone, and the group then drops on concurrent
 * deletes as before.
 *
 *     zb_carry_sorted_new(&m, ctx, schema, n_tasks, res);
 *     sort over zb_carry_sorted_schema(m);
 *     zb_carry_sorted_tag(m, ctx, &batch, task, pos0, sel, nsel);  in
 *     zb_carry_sorted_untag(m, ctx, &sorted_batch);                out
 *     zb_carry_sorted_finish(m, ctx, rows_written);
 *     ... zb_carry_sorted_map(m, ctx, pos, n_tasks, counts, n, per_out,
 *                             &rows);
 */
#ifndef ZB_OPS_COMPACT_CARRY_SORTED_H
#define ZB_OPS_COMPACT_CARRY_SORTED_H

#include <stddef.h>
#include <stdint.h>

#include "exec/arrow/arrow.h"
#include "exec/roaring/roaring.h"
#include "plan/scan/scan_plan.h"
#include "zamboni/budget.h"
#include "zamboni/zamboni.h"

typedef struct zb_carry_sorted zb_carry_sorted;

/* Limits of the packed source. */
#define ZB_CARRY_SORTED_MAX_TASKS ((uint64_t)1 << 24)
#define ZB_CARRY_SORTED_MAX_POS ((uint64_t)1 << 40)

/*
 * A map for a sort of rows of schema (borrowed: must outlive m) from
 * n_tasks inputs; res (may be NULL or empty) is grown by the spill
 * buffer when the budget has room at once. ZB_OK or ZB_ENOMEM.
 */
int zb_carry_sorted_new(zb_carry_sorted **out, zb_ctx *ctx,
                        const struct ArrowSchema *schema, size_t n_tasks,
                        zb_reservation *res);

/* The bytes the sort's memory must give up for the buffer: 0, or the
 * buffer's when res could not grow (m NULL: 0). */
uint64_t zb_carry_sorted_sort_cut(const zb_carry_sorted *m);
void zb_carry_sorted_free(zb_carry_sorted *m);

/* The schema the sort must take: schema and the source column. */
const struct ArrowSchema *zb_carry_sorted_schema(const zb_carry_sorted *m);

/* NULL while kept, else why the map is gone. */
const char *zb_carry_sorted_lost(const zb_carry_sorted *m);
void zb_carry_sorted_lose(zb_carry_sorted *m, const char *why);

/*
 * Replaces *batch (a batch of schema, taken over, also on failure) with
 * the same rows and the source column: row i came from position
 * pos0 + sel[i] (sel NULL: pos0 + i) of input task; nsel must be the
 * batch's length (else the map is lost). ZB_OK or ZB_ENOMEM.
 */
int zb_carry_sorted_tag(zb_carry_sorted *m, zb_ctx *ctx,
                        struct ArrowArray *batch, uint32_t task,
                        uint64_t pos0, const uint32_t *sel, size_t nsel);

/*
 * The same for a stream of whole inputs with no deletes, one after
 * another (read-ahead): rows[i] rows of input task[i], i < n; m counts
 * where the stream is. The arrays must be the same on every call.
 */
int zb_carry_sorted_tag_seq(zb_carry_sorted *m, zb_ctx *ctx,
                            struct ArrowArray *batch, const uint32_t *task,
                            const int64_t *rows, size_t n);

/*
 * Strips the source column from a sorted batch (of the extended schema,
 * built by exec/arrow: its children live in its own block) and appends
 * the sources to the map. A spill failure loses the map (ctx->err kept
 * as it was). ZB_OK, or ZB_EINVAL when batch is not of the schema.
 */
int zb_carry_sorted_untag(zb_carry_sorted *m, zb_ctx *ctx,
                          struct ArrowArray *batch);

/* Ends writing: the map must hold rows_written entries (else lost); its
 * buffer is given back. */
void zb_carry_sorted_finish(zb_carry_sorted *m, zb_ctx *ctx,
                            uint64_t rows_written);

/*
 * Reads the map once: every entry whose source position is in
 * pos[task] (pos[0..n_tasks), NULL entries: none) goes into per_out[f]
 * (made when NULL) as position p of output f, the outputs holding
 * out_rows[0..n_out) rows in order; *rows counts them. ZB_EINVAL when
 * the map is lost or its entries do not cover the outputs' rows,
 * ZB_EIO, ZB_ENOMEM; message in ctx.
 */
int zb_carry_sorted_map(zb_carry_sorted *m, zb_ctx *ctx,
                        zb_roaring *const *pos, size_t n_tasks,
                        const int64_t *out_rows, size_t n_out,
                        zb_roaring **per_out, uint64_t *rows);

#endif

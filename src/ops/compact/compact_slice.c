/*
 * ops/compact/compact_slice.c - a compaction group's work units (ops/compact/
 * compact.h "Slices"): where a binpack group is cut, what each slice
 * reserves, and the group put back together from its slices (outputs in
 * slice order, the row-count verification over all of them).
 *
 * The cut depends on the plan alone (the inputs' order and sizes, the
 * target), never on the threads, so that the files written are the same
 * for any thread count. Row lineage needs nothing of it: a row's _row_id
 * and _last_updated_sequence_number come from its input file, whichever
 * slice reads it, and the new files get their first_row_ids at the
 * commit. Row-group copies happen inside a slice, of its own inputs.
 */
#define ZB_MODULE "compact"

#include <string.h>

#include "ops/compact/compact_carry.h"
#include "ops/compact/compact_int.h"
#include "util/alloc.h"
#include "util/err.h"

/*
 * Whether g may be cut. Sort and z-order: the group's files cover
 * disjoint key ranges only as one sorted stream. Repartitioning: every
 * slice would end each partition it meets in a file of its own, so the
 * partitions of the output spec would get a small file per slice.
 */
static int sliceable(const zb_compact_group *g, const zb_compact_opts *o)
{
    /* Small inputs: a file's bytes are then mostly its footer and page
     * headers and say little of what its rows take in a larger file (a
     * slice cut by them would write files far below the target). */
    if (g->n_tasks == 0 ||
        g->bytes / g->n_tasks < ZB_COMPACT_SLICE_MIN_INPUT_BYTES)
        return 0;
    return o->strategy == ZB_COMPACT_BINPACK && g->out_spec_id == g->spec_id;
}

static void put(zb_compact_slice *out, size_t i, size_t first, size_t n,
                uint64_t bytes)
{
    if (out == NULL)
        return;                    /* counting */
    memset(&out[i], 0, sizeof out[i]);
    out[i].first = first;
    out[i].n = n;
    out[i].bytes = bytes;
}

size_t zb_compact__slices(zb_compact_slice *out, zb_compact_group *g,
                          const zb_compact_opts *o, int64_t target)
{
    uint64_t t = target > 0 ? (uint64_t)target : 1, bytes = 0;
    size_t n = 0, i, first = 0;

    for (i = 0; i < g->n_tasks; i++) {
        bytes += (uint64_t)g->tasks[i].data.file->file_size_in_bytes;
        if (!sliceable(g, o) || i + 1 == g->n_tasks || bytes < t)
            continue;
        put(out, n++, first, i + 1 - first, bytes);
        first = i + 1;
        bytes = 0;
    }
    /* The rest; below half the target it joins the slice before. */
    if (n > 0 && bytes < t / 2) {
        if (out != NULL) {
            out[n - 1].n += g->n_tasks - first;
            out[n - 1].bytes += bytes;
        }
    } else {
        put(out, n++, first, g->n_tasks - first, bytes);
    }
    if (out == NULL)
        return n;
    for (i = 0; i < n; i++) {
        zb_compact_slice *s = &out[i];
        zb_compact_group part;
        size_t k;

        s->g = g;
        if (n == 1) {
            /* The group whole: its plan estimate, and the writer's
             * threads are the run's. */
            s->est_memory_bytes = g->est_memory_bytes;
            s->writer_threads = o->threads > 1 ? (unsigned)o->threads : 1;
            continue;
        }
        /* A slice's estimate as the plan makes a group's, over its
         * inputs (binpack: no sort part). Its writer is single-threaded:
         * the slices are the parallel work. */
        memset(&part, 0, sizeof part);
        part.tasks = g->tasks + s->first;
        part.n_tasks = s->n;
        part.bytes = s->bytes;
        for (k = 0; k < s->n; k++)
            if (part.tasks[k].data.file->record_count > 0)
                part.rows += (uint64_t)part.tasks[k].data.file->record_count;
        s->of_several = 1;
        s->est_memory_bytes = zb_compact__group_memory(
            &part, target, zb_compact__batch_rows(o, target, g),
            zb_compact__eq_memory(o));
        s->writer_threads = 1;
    }
    return n;
}

void zb_compact__drop_slices(zb_compact_slice *slices, size_t n,
                             zb_io *io, zb_ctx *ctx)
{
    zb_err saved;
    size_t i, k;

    zb_err_copy(&saved, &ctx->err);
    for (i = 0; i < n; i++) {
        for (k = 0; k < slices[i].n_outputs; k++)
            (void)zb_io_delete(io, ctx, slices[i].outputs[k].file_path);
        slices[i].n_outputs = 0;
    }
    zb_err_copy(&ctx->err, &saved);
}

static int verify(zb_compact_group *g, zb_ctx *ctx, const zb_table *table,
                  uint64_t rows_written, int64_t row_skew)
{
    uint64_t expect_read = 0, written;
    size_t i;

    for (i = 0; i < g->n_tasks; i++)
        expect_read += (uint64_t)g->tasks[i].data.file->record_count;
    written = rows_written + (uint64_t)row_skew;
    g->out_rows = written;
    if (g->rows_read != expect_read)
        return zb_fail(ctx, ZB_EUNSAFE, "%s partition %s: read %llu "
                       "rows, the manifests list %llu: nothing committed",
                       table->ident, g->partition,
                       (unsigned long long)g->rows_read,
                       (unsigned long long)expect_read);
    if (written != g->rows_read - g->rows_deleted)
        return zb_fail(ctx, ZB_EUNSAFE, "%s partition %s: wrote %llu "
                       "rows, expected %llu (read %llu - deleted %llu): "
                       "nothing committed", table->ident, g->partition,
                       (unsigned long long)written,
                       (unsigned long long)(g->rows_read - g->rows_deleted),
                       (unsigned long long)g->rows_read,
                       (unsigned long long)g->rows_deleted);
    return ZB_OK;
}

int zb_compact__finish_group(zb_compact_group *g, zb_compact_slice *slices,
                             size_t n, int ok, zb_arena *arena, zb_io *io,
                             zb_ctx *ctx, const zb_table *table,
                             int64_t row_skew)
{
    uint64_t written = 0;
    size_t i, files = 0, at = 0;
    int rc = ZB_OK;

    g->rows_read = g->rows_deleted = g->copied_files = 0;
    g->sort_runs = g->sort_spilled_bytes = g->eq_spilled = 0;
    g->out_files = g->out_bytes = g->out_rows = 0;
    g->outputs = NULL;
    for (i = 0; i < n; i++) {
        const zb_compact_slice *s = &slices[i];

        g->rows_read += s->rows_read;
        g->rows_deleted += s->rows_deleted;
        g->copied_files += s->copied_files;
        if (s->read_workers > g->read_workers)
            g->read_workers = s->read_workers;
        g->sort_runs += s->sort_runs;
        g->sort_spilled_bytes += s->sort_spilled_bytes;
        g->eq_spilled += s->eq_spilled;
        written += s->rows_written;
        files += s->n_outputs;
    }
    if (ok && files > 0 &&
        (g->outputs = zb_arena_calloc(arena, files, sizeof *g->outputs)) ==
            NULL)
        rc = zb_fail_oom(ctx);
    if (ok && rc == ZB_OK)
        rc = verify(g, ctx, table, written, row_skew);
    if (!ok || rc < 0) {
        zb_compact__drop_slices(slices, n, io, ctx);
        g->outputs = NULL;
        g->state = ZB_GROUP_FAILED;
        return rc;
    }
    for (i = 0; i < n; i++) {
        if (slices[i].n_outputs > 0)
            memcpy(g->outputs + at, slices[i].outputs,
                   slices[i].n_outputs * sizeof *g->outputs);
        at += slices[i].n_outputs;
    }
    g->out_files = files;
    zb_compact__carry_gather(g, slices, n, arena);
    /* A sorted group is one slice: its spilled map becomes the group's. */
    if (n == 1 && slices[0].carry_sorted != NULL && g->carry_lost == NULL) {
        g->carry_sorted = slices[0].carry_sorted;
        slices[0].carry_sorted = NULL;
    }
    for (i = 0; i < files; i++)
        g->out_bytes += (uint64_t)g->outputs[i].file_size_in_bytes;
    g->state = ZB_GROUP_WRITTEN;
    return ZB_OK;
}

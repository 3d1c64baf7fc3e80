/*
 * exec/sort/xsort_merge.c - run files and the k-way merge of the external sort
 * (see xsort.c for the input phase).
 *
 * A run file is one spill file that runs are appended to, block after
 * block; the blocks table (offset, bytes, rows) and the runs table (first
 * block, count) stay in memory. Blocks are read back with one pread each
 * into a scratch buffer shared by all cursors, and decoded.
 *
 * A merge has one cursor per run: its current block (in a slot of the slot
 * table) with the block's keys built anew (keys are never spilled), and the row
 * it is at. A binary heap orders cursors by (current key, run number); the run
 * number breaks ties so that equal keys come out in run order, and runs hold
 * consecutive stretches of the input, so the sort is stable. Keys are compared
 * past the bytes that every key merged starts with (the run file's common
 * prefix, narrowed by the rows held when they join): 8 bytes of each cursor's
 * current key, kept as an integer, decide most comparisons; the rest of the
 * keys only on ties. Output rows are (slot, row) references; a block that runs
 * out while references to it are pending is retired, not freed, until the
 * output batch has been gathered (zb_arrow_take). Output is cut early when
 * retired blocks grow past the output's own size.
 *
 * Fan-in. Each cursor costs its largest block decoded plus its keys; the
 * scratch buffer and the output batch are shared. The fan-in is what the
 * reservation holds divided by the cursor cost (at least 2, at most
 * opts.max_fan_in). While there are more runs than that, consecutive
 * groups of runs are merged into a new run file (a pass), which then
 * replaces the old one; the final merge feeds zb_xsort_next.
 */
#define ZB_MODULE "xsort"

#include <string.h>

#include "exec/sort/xsort_int.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct cursor {
    size_t next_block, end_block;   /* memory run: index entries */
    int mem;                     /* reads the sorted rows held */
    int slot;                    /* -1: exhausted */
    zb_keybuf kb;
    uint32_t row, nrows;
    uint32_t order;              /* run number, for ties */
    uint64_t pfx;                /* key bytes base..base+7 of row */
} cursor;

struct xs_merger {
    xs_runfile *rf;
    size_t base;                 /* every key merged starts with the same
                                    base bytes: compared past them */
    cursor *cur;
    size_t k;
    size_t *heap, hn;
    struct ArrowArray *slots;
    uint64_t *slot_bytes;
    int *retired;
    size_t nslots, nretired;
    const struct ArrowArray **srcs;
    zb_arrow_rowref *refs;
    size_t out_rows;
    uint8_t *frame;
    zb_arrow_pack *pk;           /* packed blocks: LZ4 and its buffer */
    uint64_t retired_bytes, out_bytes;
    uint64_t counted;            /* bytes accounted for this merger */
};

/* ---- run files --------------------------------------------------------- */

int zb_xsort__write_block(zb_xsort *xs, zb_ctx *ctx, xs_runfile *rf,
                          const struct ArrowArray *arr)
{
    zb_arrow_frame fr;
    uint64_t off, pk_bytes;
    int rc;

    if (rf->sp == NULL) {
        if ((rc = zb_spill_open(&rf->sp, ctx, "sort", 0)) < 0)
            return rc;
        zb_xsort__account(xs, ZB_SPILL_DEFAULT_BUF_BYTES);
    }
    if (rf->pk == NULL && (rc = zb_arrow_pack_new(&rf->pk, ctx)) < 0)
        return rc;
    if (rf->nblocks == rf->cap_blocks) {
        size_t c = rf->cap_blocks ? rf->cap_blocks * 2 : 64;
        xs_block *b = zb_realloc(rf->blocks, c * sizeof *b);
        if (b == NULL)
            return zb_fail_oom(ctx);
        rf->blocks = b;
        rf->cap_blocks = c;
    }
    off = zb_spill_size(rf->sp);
    pk_bytes = zb_arrow_pack_bytes(rf->pk);
    rc = zb_arrow_spill_write(rf->sp, ctx, xs->schema, arr, rf->pk, &fr);
    /* the compressor's buffers appear with the first packed block */
    zb_xsort__account(xs, (int64_t)(zb_arrow_pack_bytes(rf->pk) - pk_bytes));
    if (rc < 0)
        return rc;
    rf->blocks[rf->nblocks].off = off;
    rf->blocks[rf->nblocks].bytes = fr.bytes;
    rf->blocks[rf->nblocks].raw = fr.raw;
    rf->blocks[rf->nblocks].rows = (uint32_t)arr->length;
    rf->nblocks++;
    if (fr.bytes > rf->max_frame)
        rf->max_frame = fr.bytes;
    if (fr.raw > rf->max_raw)
        rf->max_raw = fr.raw;
    if (fr.packed && fr.raw > rf->max_packed)
        rf->max_packed = fr.raw;
    if ((uint32_t)arr->length > rf->max_rows)
        rf->max_rows = (uint32_t)arr->length;
    xs->st.bytes_spilled += fr.bytes;
    if (fr.packed)
        xs->st.bytes_packed += fr.raw;
    return ZB_OK;
}

int zb_xsort__end_run(zb_xsort *xs, zb_ctx *ctx, xs_runfile *rf,
                      size_t first)
{
    (void)xs;
    if (first == rf->nblocks)
        return ZB_OK;
    if (rf->nruns == rf->cap_runs) {
        size_t c = rf->cap_runs ? rf->cap_runs * 2 : 16;
        xs_run *r = zb_realloc(rf->runs, c * sizeof *r);
        if (r == NULL)
            return zb_fail_oom(ctx);
        rf->runs = r;
        rf->cap_runs = c;
    }
    rf->runs[rf->nruns].first = first;
    rf->runs[rf->nruns].n = rf->nblocks - first;
    rf->nruns++;
    return ZB_OK;
}

int zb_xsort__fold_prefix(zb_ctx *ctx, xs_runfile *rf, const uint8_t *key,
                          size_t lcp)
{
    if (key == NULL)
        return ZB_OK;
    if (!rf->cp_set) {
        if ((rf->cp = zb_malloc(lcp ? lcp : 1)) == NULL)
            return zb_fail_oom(ctx);
        memcpy(rf->cp, key, lcp);
        rf->cp_len = lcp;
        rf->cp_set = 1;
        return ZB_OK;
    }
    if (lcp < rf->cp_len)
        rf->cp_len = lcp;
    rf->cp_len = zb_xsort__common(rf->cp, key, rf->cp_len);
    return ZB_OK;
}

void zb_xsort__runfile_free(zb_xsort *xs, xs_runfile *rf)
{
    zb_free(rf->cp);
    if (rf->sp)
        zb_xsort__account(xs, -(int64_t)ZB_SPILL_DEFAULT_BUF_BYTES);
    zb_xsort__account(xs, -(int64_t)zb_arrow_pack_bytes(rf->pk));
    zb_arrow_pack_free(rf->pk);
    zb_spill_close(rf->sp);
    zb_free(rf->blocks);
    zb_free(rf->runs);
    memset(rf, 0, sizeof *rf);
}

/* ---- the merger -------------------------------------------------------- */

/* A merger's buffers for reading blocks: one frame as stored, and the
   decompressed payload of a packed one. */
static uint64_t read_cost(const xs_runfile *rf)
{
    return rf->max_frame + (rf->max_packed ? rf->max_packed + 256 * 1024 : 0);
}

static uint64_t cursor_cost(const zb_xsort *xs, const xs_runfile *rf)
{
    return 2 * rf->max_raw +
           (uint64_t)rf->max_rows * (uint64_t)(xs->avg_key_bytes * 2 + 16) +
           4096;
}

static uint64_t output_cost(const zb_xsort *xs, size_t rows)
{
    return (uint64_t)((double)rows * (xs->avg_row_bytes * 1.25 + 8)) + 4096;
}

/* The cursor's key prefix past the common bytes, for its row. */
static inline void set_pfx(const xs_merger *m, cursor *c)
{
    c->pfx = zb_xsort__prefix(c->kb.data + c->kb.offs[c->row],
                              (size_t)(c->kb.offs[c->row + 1] -
                                       c->kb.offs[c->row]), m->base);
}

static int cur_less(const xs_merger *m, size_t a, size_t b)
{
    const cursor *x = &m->cur[a], *y = &m->cur[b];
    uint64_t xo, yo, xl, yl, n, skip = m->base + 8;
    int r = 0;

    if (x->pfx != y->pfx)
        return x->pfx < y->pfx;
    xo = x->kb.offs[x->row];
    yo = y->kb.offs[y->row];
    xl = x->kb.offs[x->row + 1] - xo;
    yl = y->kb.offs[y->row + 1] - yo;
    n = xl < yl ? xl : yl;
    if (n > skip)
        r = memcmp(x->kb.data + xo + skip, y->kb.data + yo + skip,
                   (size_t)(n - skip));
    if (r == 0)
        r = (xl > yl) - (xl < yl);
    return r < 0 || (r == 0 && x->order < y->order);
}

static void sift_down(xs_merger *m, size_t i)
{
    size_t c, t;

    for (;;) {
        c = 2 * i + 1;
        if (c >= m->hn)
            return;
        if (c + 1 < m->hn && cur_less(m, m->heap[c + 1], m->heap[c]))
            c++;
        if (!cur_less(m, m->heap[c], m->heap[i]))
            return;
        t = m->heap[c];
        m->heap[c] = m->heap[i];
        m->heap[i] = t;
        i = c;
    }
}

static int free_slot(xs_merger *m)
{
    size_t i;

    for (i = 0; i < m->nslots; i++)
        if (m->slots[i].release == NULL)
            return (int)i;
    return -1;
}

/* Loads the cursor's next block into a free slot; slot -1 at the end. */
static int load_block(zb_xsort *xs, zb_ctx *ctx, xs_merger *m, cursor *c)
{
    const xs_block *b;
    uint32_t rows;
    int s, rc;

    c->slot = -1;
    if (c->next_block == c->end_block)
        return ZB_OK;
    if (zb_ctx_stopped(ctx))
        return zb_fail(ctx, ZB_ECANCELED, "sort stopped");
    if ((s = free_slot(m)) < 0)
        return zb_fail(ctx, ZB_ERROR, "sort: no free block slot");
    if (c->mem) {
        size_t n = c->end_block - c->next_block, per;
        per = zb_xsort__block_rows(xs);
        if (n > per)
            n = per;
        if ((rc = zb_xsort__gather(&m->slots[s], xs, ctx, c->next_block,
                                   n)) < 0)
            return rc;
        c->next_block += n;
        m->slot_bytes[s] = zb_arrow_array_bytes(xs->schema, &m->slots[s]);
        rows = (uint32_t)n;
    } else {
        b = &m->rf->blocks[c->next_block++];
        if ((rc = zb_spill_pread(m->rf->sp, ctx, m->frame, (size_t)b->bytes,
                                 b->off)) < 0 ||
            (rc = zb_arrow_decode(&m->slots[s], ctx, xs->schema, m->frame,
                                  (size_t)b->bytes, m->pk)) < 0)
            return rc;
        /* every block is read once: its disk can go now, which keeps a
           merge pass from holding its input and output in full */
        zb_spill_discard(m->rf->sp, b->off, b->bytes);
        if ((uint64_t)m->slots[s].length != b->rows || b->rows == 0) {
            zb_arrow_array_release(&m->slots[s]);
            return zb_fail(ctx, ZB_ECORRUPT, "sort: spilled block of %u "
                           "rows read back with %lld", b->rows,
                           (long long)m->slots[s].length);
        }
        m->slot_bytes[s] = b->raw;
        rows = b->rows;
    }
    m->retired[s] = 0;
    zb_keybuf_clear(&c->kb);
    if ((rc = zb_sortkey_build(&c->kb, ctx, xs->key, &m->slots[s])) < 0) {
        zb_arrow_array_release(&m->slots[s]);
        return rc;
    }
    c->slot = s;
    c->row = 0;
    c->nrows = rows;
    set_pfx(m, c);
    return ZB_OK;
}

void zb_xsort__merger_free(zb_xsort *xs, xs_merger *m)
{
    size_t i;

    if (m == NULL)
        return;
    for (i = 0; m->slots && i < m->nslots; i++)
        zb_arrow_array_release(&m->slots[i]);
    for (i = 0; m->cur && i < m->k; i++)
        zb_keybuf_free(&m->cur[i].kb);
    zb_free(m->cur);
    zb_free(m->heap);
    zb_free(m->slots);
    zb_free(m->slot_bytes);
    zb_free(m->retired);
    zb_free(m->srcs);
    zb_free(m->refs);
    zb_free(m->frame);
    zb_arrow_pack_free(m->pk);
    zb_xsort__account(xs, -(int64_t)m->counted);
    zb_free(m);
}

/*
 * Opens a merge of runs [lo, hi) of rf, and with with_mem the sorted rows
 * held as one more (the last) run, with output batches of out_rows.
 */
static int merger_new(xs_merger **out, zb_xsort *xs, zb_ctx *ctx,
                      xs_runfile *rf, size_t lo, size_t hi, int with_mem,
                      size_t out_rows)
{
    xs_merger *m;
    size_t k = hi - lo + (with_mem ? 1 : 0), i, ns = 2 * k + 2;
    int rc;

    *out = NULL;
    if ((m = zb_calloc(1, sizeof *m)) == NULL)
        return zb_fail_oom(ctx);
    m->rf = rf;
    m->k = k;
    /* the held rows share held_lcp bytes with their first key */
    m->base = rf->cp_set ? rf->cp_len : 0;
    if (with_mem && xs->held_key != NULL) {
        if (!rf->cp_set)
            m->base = xs->held_lcp;
        else if (xs->held_lcp < m->base)
            m->base = xs->held_lcp;
        if (rf->cp_set)
            m->base = zb_xsort__common(rf->cp, xs->held_key, m->base);
    } else if (with_mem || !rf->cp_set) {
        m->base = 0;
    }
    m->out_rows = out_rows;
    m->nslots = ns;
    m->out_bytes = output_cost(xs, out_rows);
    m->counted = read_cost(rf) + k * cursor_cost(xs, rf) + 2 * m->out_bytes;
    zb_xsort__account(xs, (int64_t)m->counted);
    if ((m->cur = zb_calloc(k, sizeof *m->cur)) == NULL ||
        (m->heap = zb_calloc(k, sizeof *m->heap)) == NULL ||
        (m->slots = zb_calloc(ns, sizeof *m->slots)) == NULL ||
        (m->slot_bytes = zb_calloc(ns, sizeof *m->slot_bytes)) == NULL ||
        (m->retired = zb_calloc(ns, sizeof *m->retired)) == NULL ||
        (m->srcs = zb_calloc(ns, sizeof *m->srcs)) == NULL ||
        (m->refs = zb_malloc(out_rows * sizeof *m->refs)) == NULL ||
        (m->frame = zb_malloc(rf->max_frame ? rf->max_frame : 1)) == NULL ||
        (rf->max_packed && zb_arrow_pack_new(&m->pk, ctx) < 0)) {
        rc = zb_fail_oom(ctx);
        goto fail;
    }
    for (i = 0; i < k; i++) {
        cursor *c = &m->cur[i];
        if (lo + i < hi) {
            c->next_block = rf->runs[lo + i].first;
            c->end_block = c->next_block + rf->runs[lo + i].n;
        } else {
            c->mem = 1;
            c->next_block = 0;
            c->end_block = xs->nents;
        }
        c->order = (uint32_t)i;
        if ((rc = load_block(xs, ctx, m, c)) < 0)
            goto fail;
        if (c->slot >= 0)
            m->heap[m->hn++] = i;
    }
    for (i = m->hn / 2; i-- > 0;)
        sift_down(m, i);
    *out = m;
    return ZB_OK;
fail:
    zb_xsort__merger_free(xs, m);
    return rc;
}

/* Next merged batch of at most out_rows rows; released at the end. */
static int merger_next(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx,
                       xs_merger *m)
{
    size_t n = 0, i;
    int rc = ZB_OK;

    memset(out, 0, sizeof *out);
    while (n < m->out_rows && m->hn > 0) {
        cursor *c = &m->cur[m->heap[0]];
        m->refs[n].src = (uint32_t)c->slot;
        m->refs[n++].row = c->row;
        if (++c->row < c->nrows) {
            set_pfx(m, c);
            sift_down(m, 0);
            continue;
        }
        m->retired[c->slot] = 1;
        m->nretired++;
        m->retired_bytes += m->slot_bytes[c->slot];
        if ((rc = load_block(xs, ctx, m, c)) < 0)
            break;
        if (c->slot < 0)
            m->heap[0] = m->heap[--m->hn];
        sift_down(m, 0);
        /* cut the batch before retired blocks take too much room, or
           the next load could find no free slot */
        if (m->retired_bytes > m->out_bytes || m->nretired + m->k >= m->nslots)
            break;
    }
    if (rc == ZB_OK && n > 0) {
        for (i = 0; i < m->nslots; i++)
            m->srcs[i] = m->slots[i].release ? &m->slots[i] : NULL;
        if ((rc = zb_arrow_take(out, xs->schema, m->srcs, m->refs, n)) < 0)
            rc = zb_fail(ctx, rc, "sort: gathering %zu merged rows", n);
    }
    for (i = 0; i < m->nslots; i++)
        if (m->retired[i]) {
            zb_arrow_array_release(&m->slots[i]);
            m->retired[i] = 0;
        }
    m->retired_bytes = 0;
    m->nretired = 0;
    return rc;
}

/* ---- passes ------------------------------------------------------------ */

static size_t fan_in(zb_xsort *xs, const xs_runfile *rf, size_t out_rows)
{
    uint64_t avail = zb_xsort__held(xs), shared;
    uint64_t per = cursor_cost(xs, rf);
    uint64_t f;

    /* the cap when there is one (as for the output batches in
       zb_xsort__merge): the passes then do not depend on how far the
       reservation grew for the caller's other work */
    if (xs->opts.max_memory_bytes)
        avail = xs->opts.max_memory_bytes;
    if (xs->budget == NULL && xs->opts.max_memory_bytes == 0)
        avail = UINT64_MAX / 4;
    shared = read_cost(rf) + 2 * output_cost(xs, out_rows) +
             ZB_SPILL_DEFAULT_BUF_BYTES;
    f = avail > shared ? (avail - shared) / per : 0;
    if (xs->opts.max_fan_in && f > xs->opts.max_fan_in)
        f = xs->opts.max_fan_in;
    if (f > 4096)
        f = 4096;
    return f < 2 ? 2 : (size_t)f;
}

static int merge_pass(zb_xsort *xs, zb_ctx *ctx, size_t f, size_t rows)
{
    xs_runfile nf;
    xs_merger *m = NULL;
    struct ArrowArray blk;
    size_t lo, hi, first;
    int rc = ZB_OK;

    memset(&nf, 0, sizeof nf);
    for (lo = 0; lo < xs->rf.nruns && rc == ZB_OK; lo = hi) {
        hi = lo + f < xs->rf.nruns ? lo + f : xs->rf.nruns;
        first = nf.nblocks;
        if ((rc = zb_xsort__ensure(xs, ctx, xs->used + read_cost(&xs->rf) +
                                   (hi - lo) * cursor_cost(xs, &xs->rf) +
                                   2 * output_cost(xs, rows) +
                                   ZB_SPILL_DEFAULT_BUF_BYTES, 1)) < 0 ||
            (rc = merger_new(&m, xs, ctx, &xs->rf, lo, hi, 0, rows)) < 0)
            break;
        for (;;) {
            if ((rc = merger_next(&blk, xs, ctx, m)) < 0 ||
                blk.release == NULL)
                break;
            rc = zb_xsort__write_block(xs, ctx, &nf, &blk);
            zb_arrow_array_release(&blk);
            if (rc < 0)
                break;
        }
        zb_xsort__merger_free(xs, m);
        m = NULL;
        if (rc == ZB_OK)
            rc = zb_xsort__end_run(xs, ctx, &nf, first);
    }
    if (rc < 0) {
        zb_xsort__runfile_free(xs, &nf);
        return rc;
    }
    /* its keys are the old file's: the same common prefix */
    if (xs->rf.cp_set &&
        (rc = zb_xsort__fold_prefix(ctx, &nf, xs->rf.cp,
                                    xs->rf.cp_len)) < 0) {
        zb_xsort__runfile_free(xs, &nf);
        return rc;
    }
    zb_xsort__runfile_free(xs, &xs->rf);
    xs->rf = nf;
    xs->st.merge_passes++;
    return ZB_OK;
}

/* Memory the final merge of n runs needs beyond what is in use: with
   the two batches it may run ahead of its reader on a thread
   (xsort_pipe.c), counted with one thread too, so that whether the last
   run is merged from memory does not depend on the threads. */
static uint64_t final_need(const zb_xsort *xs, size_t n)
{
    return read_cost(&xs->rf) + n * cursor_cost(xs, &xs->rf) +
           4 * output_cost(xs, xs->opts.out_batch_rows);
}

int zb_xsort__merge(zb_xsort *xs, zb_ctx *ctx)
{
    size_t rows = xs->rf.max_rows, f;
    uint64_t mem = zb_xsort__held(xs), fit;
    int rc;

    /* output batches take at most a sixteenth of the memory each (four
       are counted: final_need): of the cap when there is one, not of
       what the reservation reached (the caller's readers grow it too),
       so that the batches, and the files a caller cuts between them, do
       not depend on the threads */
    if (xs->opts.max_memory_bytes)
        mem = xs->opts.max_memory_bytes;
    fit = mem / 16 / (uint64_t)(xs->avg_row_bytes * 1.25 + 8);
    if (mem > 0 && (xs->budget || xs->opts.max_memory_bytes) &&
        fit < xs->opts.out_batch_rows)
        xs->opts.out_batch_rows = fit > 0 ? (size_t)fit : 1;
    if ((rc = zb_spill_flush(xs->rf.sp, ctx)) < 0)
        return rc;
    /* the rows still held join the final merge from memory when one
       merge of everything fits beside them; else they become a run */
    if (xs->nents > 0) {
        if ((xs->opts.max_fan_in == 0 ||
             xs->rf.nruns + 1 <= xs->opts.max_fan_in) &&
            zb_xsort__ensure(xs, ctx, xs->used + final_need(xs,
                             xs->rf.nruns + 1), 0) == ZB_OK) {
            xs->mem_run = 1;
            xs->st.rows_unspilled = xs->nents;
        } else {
            if ((rc = zb_xsort__write_run(xs, ctx)) < 0 ||
                (rc = zb_spill_flush(xs->rf.sp, ctx)) < 0)
                return rc;
            zb_xsort__free_index(xs);
        }
    } else {
        zb_xsort__free_index(xs);
    }
    while (!xs->mem_run) {
        f = fan_in(xs, &xs->rf, xs->opts.out_batch_rows > rows
                                ? xs->opts.out_batch_rows : rows);
        if (xs->rf.nruns <= f)
            break;
        if ((rc = merge_pass(xs, ctx, f, rows)) < 0)
            return rc;
        if ((rc = zb_spill_flush(xs->rf.sp, ctx)) < 0)
            return rc;
    }
    if ((rc = zb_xsort__ensure(xs, ctx, xs->used +
                               final_need(xs, xs->rf.nruns + xs->mem_run),
                               1)) < 0 ||
        (rc = merger_new(&xs->final, xs, ctx, &xs->rf, 0, xs->rf.nruns,
                         xs->mem_run, xs->opts.out_batch_rows)) < 0)
        return rc;
    xs->st.merge_passes++;
    return ZB_OK;
}

int zb_xsort__final_next(struct ArrowArray *out, zb_xsort *xs, zb_ctx *ctx)
{
    if (xs->final == NULL) {
        memset(out, 0, sizeof *out);
        return ZB_OK;
    }
    return merger_next(out, xs, ctx, xs->final);
}

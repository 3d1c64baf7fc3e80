/*
 * format/parquet/write/pq_writer_int.h - the writer's state, shared by its
 * files: pq_writer.c (the file: open, batches, close), pq_write_shred.c
 * (slots to levels and values), pq_write_page.c (data pages),
 * pq_write_jobs.c (their compression, and when they join the chunk),
 * pq_write_chunk.c (column chunks and row groups), pq_writer_copy.c
 * (row groups copied as they are) and pq_write_par.c (threads).
 */
#ifndef ZB_FORMAT_PARQUET_PQ_WRITER_INT_H
#define ZB_FORMAT_PARQUET_PQ_WRITER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "exec/pool.h"
#include "format/parquet/parquet_write.h"
#include "format/parquet/write/pq_dict.h"
#include "format/parquet/write/pq_write_schema.h"
#include "util/arena.h"
#include "util/buf.h"

#define STAT_MAX_BYTES 64   /* longer byte-array bounds are not written */

typedef struct stats {
    int has;                 /* a non-null value was seen */
    int skip_bounds;         /* a value too long for bounds */
    uint8_t min[STAT_MAX_BYTES], max[STAT_MAX_BYTES];
    size_t min_len, max_len;
    int64_t nulls;
} stats;

/* The whole file's view of a leaf, for Iceberg metrics
 * (pq_write_metrics.c): counts over every row group, and bounds kept as
 * prefixes of at most PQ_METRICS_BOUND_BYTES. */
typedef struct fstats {
    int has;                 /* a non-NaN, non-null value was seen */
    int lost;                /* a copied chunk had values but no bounds */
    uint8_t min[PQ_METRICS_BOUND_BYTES], max[PQ_METRICS_BOUND_BYTES];
    size_t min_len, max_len;
    int min_trunc, max_trunc;    /* the bound is a prefix of the value */
    int64_t values, nulls, nans;
    int nulls_unknown, nans_unknown;
    uint64_t bytes;
} fstats;

/* A data page of the current chunk, for the page index (page_index on). */
typedef struct page_rec {
    uint64_t off;            /* where its header starts in the chunk */
    uint32_t size;           /* its bytes, header included */
    int64_t first_row;       /* row-group index of its first row */
    int64_t nulls;
    uint8_t null_page;       /* no non-null value */
    uint8_t has_bounds;      /* min and max are known */
    uint8_t min_len, max_len;
    uint8_t min[STAT_MAX_BYTES], max[STAT_MAX_BYTES];
} page_rec;

/* A column chunk's finished pages, in blocks that never move (a growing
 * buffer would copy them at each doubling); kept for the next row group. */
typedef struct spool_block {
    struct spool_block *next;
    size_t len, cap;
    uint8_t data[];
} spool_block;

typedef struct spool {
    spool_block *head, *cur;     /* cur: the block appended to; NULL: none */
    size_t len;                  /* bytes in all blocks */
} spool;

/*
 * A data page flushed but not yet settled (pq_write_jobs.c): its body
 * uncompressed, owned here (the leaf's buffers are reused), compressed
 * by a pool thread or inline, and put into the chunk LAG slices later.
 */
typedef struct pq_page_job {
    struct pq_page_job *next;        /* the leaf's pending, or free list */
    struct pq_page_job *qprev, *qnext;   /* the queue of jobs not started */
    const char *column;
    uint64_t step;           /* the slice it was flushed in */
    zb_buf body;             /* levels and values, uncompressed */
    size_t in_off;           /* where the compressed part starts (v2:
                                after the levels, which stay as they are) */
    zb_buf compressed;
    pq_page_header h;        /* all but compressed_page_size */
    stats pst;               /* the page's statistics, for its header */
    page_rec rec;            /* page_index: all but off and size */
    int state;               /* PQ_JOB_*: under pq_jobs.mu */
    int rc;                  /* the compression's */
    zb_err err;
} pq_page_job;

typedef struct leaf {
    const pw_node *node;
    const pw_node **path;    /* root's child .. the leaf */
    size_t *path_child;      /* child index taken at each step */
    size_t depth;
    /* current page */
    zb_buf defs, reps;       /* uint16_t each */
    zb_buf values;           /* PLAIN bytes (booleans: one byte each) */
    zb_buf indices;          /* uint32_t dictionary indices, when use_dict */
    size_t page_levels, page_values;
    uint64_t page_plain_bytes;   /* what PLAIN would take for this page */
    /* dictionary of the current chunk */
    pq_dict dict;
    int use_dict;            /* values still go through the dictionary */
    int dict_pages;          /* data pages of this chunk that use it */
    /* current row group */
    spool chunk;             /* finished pages */
    uint64_t chunk_uncompressed;
    int64_t chunk_values;
    int64_t chunk_rows;      /* rows that start in its finished pages */
    zb_buf pages;            /* page_rec each, when page_index is on */
    pq_page_job *pend, *pend_tail;   /* flushed pages not settled, oldest
                                        first (pq_write_jobs.c) */
    uint64_t pend_bytes;     /* their bodies + PQ_PENDING_HEADER_BYTES each */
    /* PLAIN values of a byte-ordered leaf (PW_ORDER_BYTES): where the
     * page's least and greatest value sit in values, so that the page's
     * and the file's bounds take those two at flush instead of every
     * value (both are functions of the set of values: the same result). */
    int pext_has, pext_long;     /* a value seen; one over STAT_MAX_BYTES */
    size_t pmin_off, pmin_len, pmax_off, pmax_len;
    uint64_t pmin_key, pmax_key; /* their first 8 bytes, big-endian */
    stats st;                /* the current chunk's statistics */
    stats pst;               /* the current page's */
    fstats fs;               /* the file so far */
    /* At a row group's end: the chunk's dictionary page, compressed (on
     * the leaf's thread), until it is written; freed then. */
    zb_buf dict_header, dict_page;
} leaf;

/* What one thread needs to end a page or a dictionary: the header, the
 * codec's contexts. One per thread; index 0 is the calling thread's
 * (the pool's threads take page jobs' codecs from pq_jobs). */
typedef struct pq_scratch {
    zb_buf header;
    zb_codec_state *codec;
} pq_scratch;

/* What a step does to one leaf (pq_write_par.c); ZB_OK or an error in
 * ctx. */
typedef int (*pq_leaf_fn)(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                          leaf *l, void *arg);

/* With opts.threads > 1, one per thread: a step's share of the leaves
 * (pq_write_par.c). */
typedef struct pq_par_job {
    struct pq_writer *w;
    unsigned k;              /* its scratch */
    zb_ctx ctx;              /* its own: errors stay on its thread */
    size_t failed_leaf;      /* the leaf that failed; SIZE_MAX: none */
    int rc;
} pq_par_job;

/* The page jobs' shared state (pq_write_jobs.c); a pointer from the
 * writer so that the page flush, which gets a const writer, can queue. */
typedef struct pq_jobs {
    const struct pq_writer *w;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* a job ended */
    int sync_made;           /* mu and cv were initialised */
    pq_page_job *q_head, *q_tail;    /* queued, not started (under mu) */
    zb_codec_state **codecs; /* free codec contexts of the pool threads */
    size_t n_codecs;         /* how many are unused; under mu */
    pq_page_job *free_list;  /* settled jobs kept with their buffers */
    size_t n_free;
    uint64_t step;           /* the current slice's number */
} pq_jobs;

struct pq_writer {
    zb_arena *arena;
    zb_io_writer *out;
    char *uri;
    pq_writer_opts opts;
    pw_schema schema;
    leaf *leaves;
    uint64_t file_pos;
    uint64_t rows_in_group, rows_total;
    pq_row_group *groups;
    size_t n_groups, cap_groups;
    pq_scratch *scratch;     /* one per thread (n_threads) */
    unsigned n_threads;      /* 1: no pool */
    int algorithm;           /* the zb_codec of opts.codec */
    /* threads > 1 (pq_write_par.c): the pool (threads - 1 threads; the
     * calling thread is the last worker), one job per thread, the step
     * they run and the next leaf a job takes */
    zb_pool *pool;
    pq_par_job *jobs;
    pq_leaf_fn par_fn;
    void *par_arg;
    atomic_size_t next_leaf;
    atomic_int par_failed;   /* a job failed: the others take no more */
    pq_jobs *pj;             /* page jobs (pq_write_jobs.c) */
    /* page_index: the ColumnIndex and OffsetIndex structs of every chunk
     * written so far, encoded; the footer's offsets into them are made
     * file offsets at close, where they are written before the footer */
    zb_buf col_index, off_index;
};


/* ---- the current page and the batch (small enough to inline) ---- */

#define DICT_PROBE_VALUES 10000  /* values seen before judging a dictionary */

static inline void pq_writer__put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The current page's PLAIN values. */
static inline size_t pq_writer__vals_len(const leaf *l)
{
    return l->values.len;
}

static inline const uint8_t *pq_writer__vals_ptr(const leaf *l)
{
    return l->values.ptr ? (const uint8_t *)l->values.ptr
                         : (const uint8_t *)"";
}

static inline int64_t pq_writer__pidx(const struct ArrowArray *a, int64_t i)
{
    return a->offset + i;
}

/*
 * Whether to stop using the chunk's dictionary: it outgrew its size, or
 * after the first thousands of values nearly every value is new (ids,
 * payloads), where a dictionary only costs time. The switch happens at a
 * row boundary: the page is flushed and pq_writer__flush_page turns it off.
 */
static inline int pq_writer__dictionary_done(const pq_writer *w, const leaf *l)
{
    uint64_t seen = (uint64_t)l->chunk_values + l->page_values;

    return l->dict.plain.len >= w->opts.dict_bytes ||
           (seen >= DICT_PROBE_VALUES && l->dict.n * 4 > seen * 3);
}

/* ---- shredding (pq_write_shred.c) ---- */

/* Dremel shredding of slot i of array a at path step k. */
int pq_writer__shred(leaf *l, zb_ctx *ctx, size_t k,
                     const struct ArrowArray *a, int64_t i, int16_t def,
                     int16_t rep);

/* Rows from..to of top-level primitive column a into leaf l's pages. */
int pq_writer__shred_top(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                         leaf *l, const struct ArrowArray *a, int64_t from,
                         int64_t to);

/* ---- pages (pq_write_page.c) ---- */

/*
 * Ends leaf l's current page (if it has levels): to the chunk's spool.
 * Touches only l, s and ctx (w is read): leaves end pages on any thread.
 */
int pq_writer__flush_page(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                          leaf *l);

/* Compresses in[0..in_len) into out with codec's contexts; ZB_OK or an
 * error in ctx. */
int pq_writer__compress_page(const pq_writer *w, zb_codec_state *codec,
                             zb_ctx *ctx, const char *column,
                             const uint8_t *in, size_t in_len, zb_buf *out);

/* ---- page jobs (pq_write_jobs.c) ---- */

/*
 * The deterministic lag: a page flushed in slice k is settled (header,
 * spool, page index) at the end of slice k + PQ_PAGE_LAG, or at the row
 * group's end, never at another time; until then buffered bytes count
 * its uncompressed body plus PQ_PENDING_HEADER_BYTES. When the pending
 * bytes of all leaves pass PQ_PENDING_CAP_BYTES after a slice, the
 * oldest slices are settled until they do not: a rule on uncompressed
 * sizes, so the file is the same whatever the threads.
 */
#define PQ_PAGE_LAG 8
#define PQ_PENDING_HEADER_BYTES 32
#define PQ_PENDING_CAP_BYTES ((uint64_t)64 << 20)

enum { PQ_JOB_QUEUED, PQ_JOB_RUNNING, PQ_JOB_DONE };

/* Makes w->pj (after the pool is made); ZB_OK or an error in ctx. */
int pq_writer__jobs_open(pq_writer *w, zb_ctx *ctx);

/* Drops queued jobs, waits for running ones (via the pool, which must be
 * freed right after), frees every job. NULL pj is fine. */
void pq_writer__jobs_cancel(pq_writer *w);
void pq_writer__jobs_free(pq_writer *w);

/* A job for a new page (body empty); NULL on ENOMEM. */
pq_page_job *pq_writer__job_get(const pq_writer *w);

/* Gives back a job that was not submitted. */
void pq_writer__job_put(const pq_writer *w, pq_page_job *j);

/* Queues j's compression (inline with s's codec without a pool) and
 * appends it to l's pending pages. */
void pq_writer__job_submit(const pq_writer *w, pq_scratch *s, leaf *l,
                           pq_page_job *j);

/* Settles every pending page of every leaf (row group end). */
int pq_writer__settle_all(pq_writer *w, zb_ctx *ctx);

/* Ends a slice: settles what the lag and the cap say, and counts it. */
int pq_writer__slice_done(pq_writer *w, zb_ctx *ctx);

/* A page header's statistics from st (borrowing its bytes). */
void pq_writer__header_stats(pq_statistics *ps, const stats *st);

/* ---- column chunks (pq_write_chunk.c) ---- */

/* Appends n bytes to s; ZB_OK or ZB_ENOMEM. */
int pq_writer__spool_append(spool *s, const void *p, size_t n);

/* Frees s's blocks. */
void pq_writer__spool_free(spool *s);


/* Takes value v (PLAIN bytes of len) into the chunk's min and max. */
void pq_write_stats_update(stats *s, pw_order order, const uint8_t *v,
                           size_t len);

/* The byte width of values whose page statistics are taken in one pass
 * over the page at flush (pq_write_stats_scan), or 0 for the orders
 * taken value by value. */
int pq_write_stats_fixed_width(pw_order order);

/* Takes n PLAIN values of that width into s, skipping NaN. */
void pq_write_stats_scan(stats *s, pw_order order, const uint8_t *vals,
                         size_t n);

/* The type-defined order of two PLAIN values: <0, 0, >0 (floats: NaN
 * must not be passed; -0 == +0). */
int pq_write_stats__cmp(pw_order order, const uint8_t *a, size_t al,
                        const uint8_t *b, size_t bl);

/* ---- Iceberg metrics (pq_write_metrics.c) ---- */

/* Takes a value (PLAIN bytes of len) into the file's bounds when the
 * pages cannot carry it whole (byte arrays); NaN takes no part. */
void pq_write_metrics__value(leaf *l, const uint8_t *v, size_t len);

/* Takes a flushed page's bounds into the file's, where the pages bound
 * every value whole (fixed-size types). */
void pq_write_metrics__page(leaf *l, const stats *page);

/* Counts value v of a FLOAT or DOUBLE leaf if it is NaN (every value,
 * repeats included). */
void pq_write_metrics__nan(leaf *l, const uint8_t *v);

/* Counts a chunk just written (m: its footer entry; nulls: its nulls). */
void pq_write_metrics__chunk(fstats *f, const pq_column_meta *m,
                             int64_t nulls);

/* Counts a chunk copied from another file, from what its footer says. */
void pq_write_metrics__copied_chunk(fstats *f, pw_order order,
                                    const pq_column_meta *m);

/* Fills r's metrics and split offsets from the writer at close. */
int pq_write_metrics__result(pq_write_result *r, const pq_writer *w,
                             zb_ctx *ctx);

/* Takes from's bounds into into's (null counts are kept apart). */
void pq_write_stats_merge(stats *into, const stats *from, pw_order order);

/* Appends bytes to the file, advancing file_pos. */
int pq_writer__write_bytes(pq_writer *w, zb_ctx *ctx, const void *p,
                           size_t n);

/* Ends the current row group (if it has rows): its chunks go to the file. */
int pq_writer__flush_row_group(pq_writer *w, zb_ctx *ctx);

/* The per-leaf part of a row group's end (last page, dictionary page
 * compressed into l->dict_page): any thread. */
int pq_writer__finish_chunk(const pq_writer *w, pq_scratch *s, zb_ctx *ctx,
                            leaf *l);

/* ---- threads (pq_write_par.c) ---- */

/* Starts the pool and the jobs when opts.threads > 1. */
int pq_writer__par_open(pq_writer *w, zb_ctx *ctx);

/* Stops the pool; NULL pool is fine. */
void pq_writer__par_free(pq_writer *w);

/*
 * Runs fn on every leaf, leaves shared out among the threads (the calling
 * thread too), and returns when all are done: the first failing leaf's
 * error (in leaf order, as one thread would have met it) lands in ctx.
 * One thread: leaf after leaf on the calling thread.
 */
int pq_writer__par_leaves(pq_writer *w, zb_ctx *ctx, pq_leaf_fn fn,
                          void *arg);

/* Sets m's path_in_schema to leaf l's path in the writer's schema. */
int pq_writer__set_path(pq_writer *w, zb_ctx *ctx, const leaf *l,
                        pq_column_meta *m);

/* A zeroed row group at the end of the footer's list; NULL on ENOMEM. */
pq_row_group *pq_writer__new_row_group(pq_writer *w, zb_ctx *ctx);

#endif

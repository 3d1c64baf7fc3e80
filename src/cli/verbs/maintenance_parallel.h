/*
 * cli/verbs/maintenance_parallel.h - `maintenance --parallel N`: up to N
 * tables maintained at once on threads of one process, each table's
 * output kept apart and written in table order, so that the report reads
 * as with N = 1.
 *
 *     zb_cli_table_out o;                  one table's streams
 *     zb_cli_table_out_open(&o, capture);  capture 0: stdout and stderr
 *     fprintf(o.out, ...); fprintf(o.err, ...);
 *     zb_cli_table_out_replay(&o, stdout, stderr);   captured: in order
 *     zb_cli_table_out_close(&o);
 *
 *     k = zb_cli_parallel_run(n, N, &stop, work, done, payload);
 */
#ifndef ZB_CLI_MAINTENANCE_PARALLEL_H
#define ZB_CLI_MAINTENANCE_PARALLEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"
#include "util/vec.h"

/*
 * One table's output. Captured, out and err are unbuffered streams
 * into one memory log that keeps which stream each byte went to, so the
 * replay interleaves stdout and stderr as they were written.
 */
typedef struct zb_cli_table_out_tag {
    struct zb_cli_table_out *owner;
    int is_err;
} zb_cli_table_out_tag;

typedef struct zb_cli_table_out {
    FILE *out, *err;
    int captured;
    int lost;                      /* a write did not fit in memory */
    zb_buf text;                   /* captured bytes */
    zb_vec segs;                   /* where each stream's run ends */
    zb_cli_table_out_tag tags[2];
} zb_cli_table_out;

/* capture 0: out and err are stdout and stderr. -1 when out of memory.
 * Captured, the streams point into *o: it stays in place until closed. */
int zb_cli_table_out_open(zb_cli_table_out *o, int capture);
/* Writes what was captured to to_out and to_err, in the order written
 * (to_out flushed before each to_err run); a no-op when not captured. */
void zb_cli_table_out_replay(zb_cli_table_out *o, FILE *to_out, FILE *to_err);
void zb_cli_table_out_close(zb_cli_table_out *o);

/*
 * Runs work(k) for k = 0 .. n-1 in order of k, at most parallel at once
 * (parallel <= 1: in the calling thread, one after the other). done(k)
 * runs in the calling thread, in order of k, after work(k) has returned;
 * a non-zero return, like a raised *stop (may be NULL), starts no new k.
 * Every k started gets its done. Returns the first k not started (n: all).
 */
typedef void (*zb_cli_work_fn)(size_t k, void *payload);
typedef int (*zb_cli_done_fn)(size_t k, void *payload);

size_t zb_cli_parallel_run(size_t n, int parallel, const atomic_int *stop,
                             zb_cli_work_fn work, zb_cli_done_fn done,
                             void *payload);

#endif

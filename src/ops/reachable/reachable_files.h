/*
 * ops/reachable/reachable_files.h - the reachable-file set that expire and
 * remove-orphans share: paths normalized for comparison, sorted path streams
 * that spill to disk within a memory cap, a merge join of two sorted streams,
 * the walkers that put a table's files into a stream, and batched parallel
 * deletion.
 *
 *     zb_pathsort *keep = NULL;
 *     zb_pathsort_new(&keep, ctx, "expire", 64 << 20);
 *     zb_reach_add(keep, ctx, t, &scratch, path, ZB_REACH_CONTENT, size, 0);
 *     zb_pathsort_finish(keep, ctx);
 *     zb_reach_join(ctx, zb_pathsort_next_cb, cand, zb_pathsort_next_cb,
 *                   keep, fn, payload);   // fn sees each path once
 *
 * Sets of millions of paths stay within a fixed memory: a zb_pathsort
 * holds records in memory up to its cap (and what ctx->budget grants),
 * then sorts them and writes them to a spill file as a run (exec/spill.h);
 * reading merges the runs with the records still in memory. A set
 * difference is then one pass over two sorted streams (zb_reach_join).
 * Memory: the cap, plus one spill buffer per run while merging.
 *
 * Paths are compared in their normalized form (zb_reach_normalize) after
 * the table's path resolution (zb_table_resolve), so that a manifest's
 * file:/x, a listing's /x and an Impala delete file's hdfs://host:port/x
 * meet.
 */
#ifndef ZB_OPS_REACH_H
#define ZB_OPS_REACH_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "util/buf.h"
#include "zamboni/budget.h"
#include "zamboni/io.h"
#include "zamboni/zamboni.h"

/* Tag bits: what a path is, or where it came from. OR-ed for duplicates. */
#define ZB_REACH_METADATA 0x01u  /* the current metadata file */
#define ZB_REACH_METALOG  0x02u  /* metadata-log entries, version-hint.text */
#define ZB_REACH_LIST     0x04u  /* manifest lists */
#define ZB_REACH_MANIFEST 0x08u  /* manifests */
#define ZB_REACH_DATA     0x10u  /* data files */
#define ZB_REACH_DELETE   0x20u  /* delete files, deletion-vector Puffins */
#define ZB_REACH_STATS    0x40u  /* statistics, partition statistics */
#define ZB_REACH_LISTED   0x80u  /* found by a listing */
/* What a snapshot's readers need: these must exist. */
#define ZB_REACH_REQUIRED                                                   \
    (ZB_REACH_METADATA | ZB_REACH_LIST | ZB_REACH_MANIFEST |                \
     ZB_REACH_DATA | ZB_REACH_DELETE | ZB_REACH_STATS)

/* Longest path a stream takes (longer ones are ZB_EINVAL). */
#define ZB_REACH_MAX_PATH 65536

/* Default memory cap of a stream. */
#define ZB_REACH_DEFAULT_MEMORY ((uint64_t)64 << 20)

/*
 * The comparable form of uri, written to out (cleared first):
 * "file:///x", "file:/x" and "file://host/x" become "/x"; the schemes
 * s3a and s3n become s3; hdfs:// and viewfs:// lose scheme and
 * authority ("hdfs://nn:8020/w/t/f" -> "/w/t/f"); runs of '/' in the
 * path part collapse to one and a trailing '/' goes. ZB_OK or ZB_ENOMEM.
 */
int zb_reach_normalize(zb_buf *out, zb_ctx *ctx, const char *uri);

/* 1 when path lies at or under root (both normalized), at a '/'. */
int zb_reach_under(const char *path, const char *root);

/* One record of a stream. path is NUL-terminated, valid until the next
 * call on the stream. */
typedef struct zb_pathrec {
    const char *path;
    size_t len;
    uint32_t tag;
    uint64_t size_bytes;
    int64_t mtime_ms;
} zb_pathrec;

/* ---- sequential record files --------------------------------------- */

typedef struct zb_pathfile zb_pathfile;

int zb_pathfile_open(zb_pathfile **out, zb_ctx *ctx, const char *purpose);
int zb_pathfile_write(zb_pathfile *f, zb_ctx *ctx, const zb_pathrec *r);
/* Ends writing (or starts reading again) at the first record. */
int zb_pathfile_rewind(zb_pathfile *f, zb_ctx *ctx);
/* 1 with *out, 0 at the end, or an rc. */
int zb_pathfile_next(zb_pathfile *f, zb_ctx *ctx, const zb_pathrec **out);
uint64_t zb_pathfile_count(const zb_pathfile *f);
void zb_pathfile_free(zb_pathfile *f);

/* ---- sorted streams ------------------------------------------------- */

typedef struct zb_pathsort zb_pathsort;

/*
 * A stream that sorts what is added. max_memory_bytes caps the records
 * held in memory (0: ZB_REACH_DEFAULT_MEMORY); memory is also reserved
 * from ctx->budget (which must outlive the stream) with try-grow, and a
 * refused growth spills. ZB_OK or ZB_ENOMEM.
 */
int zb_pathsort_new(zb_pathsort **out, zb_ctx *ctx, const char *purpose,
                    uint64_t max_memory_bytes);

/*
 * One memory account for the streams of one task, which then reserve from
 * ctx->budget as a single holder: two holders of one task could each wait
 * for the other's bytes forever, whereas a sole holder is served past the
 * limit. Caller-owned, zeroed with ZB_PATHMEM_INIT; it must outlive its
 * streams and is released with zb_pathmem_release once they are freed
 * (until then the budget holds the most the streams held together).
 */
typedef struct zb_pathmem {
    zb_reservation res;
    uint64_t used;               /* bytes the streams hold now */
} zb_pathmem;

#define ZB_PATHMEM_INIT { ZB_RESERVATION_INIT, 0 }

/* zb_pathsort_new with the stream's memory counted in mem (NULL: its
 * own account, released by zb_pathsort_free). */
int zb_pathsort_new_in(zb_pathsort **out, zb_ctx *ctx, const char *purpose,
                       uint64_t max_memory_bytes, zb_pathmem *mem);

void zb_pathmem_release(zb_pathmem *m);

/* Adds one record (before finish). ZB_OK, ZB_ENOMEM, ZB_EIO, ZB_EINVAL. */
int zb_pathsort_add(zb_pathsort *s, zb_ctx *ctx, const char *path,
                    size_t len, uint32_t tag, uint64_t size_bytes,
                    int64_t mtime_ms);

/* Adds uri in its normalized form (zb_reach_normalize). */
int zb_pathsort_add_uri(zb_pathsort *s, zb_ctx *ctx, const char *uri,
                        uint32_t tag, uint64_t size_bytes, int64_t mtime_ms);

/* Ends adding; reading starts. */
int zb_pathsort_finish(zb_pathsort *s, zb_ctx *ctx);

/*
 * The next distinct path in byte order: records of one path are merged
 * (tags OR-ed, the largest size and mtime). 1 with *out, 0 at the end,
 * or an rc.
 */
int zb_pathsort_next(zb_pathsort *s, zb_ctx *ctx, const zb_pathrec **out);

uint64_t zb_pathsort_added(const zb_pathsort *s);   /* records added */
unsigned zb_pathsort_runs(const zb_pathsort *s);    /* runs spilled */
void zb_pathsort_free(zb_pathsort *s);

/* ---- joining two sorted streams ------------------------------------- */

typedef int (*zb_path_next_fn)(void *src, zb_ctx *ctx,
                               const zb_pathrec **out);
int zb_pathsort_next_cb(void *s, zb_ctx *ctx, const zb_pathrec **out);
int zb_pathfile_next_cb(void *f, zb_ctx *ctx, const zb_pathrec **out);

/*
 * Walks two streams sorted by path with distinct paths (a zb_pathsort,
 * or a zb_pathfile written in order) together and calls fn once per
 * path with the record of each side that has it (the other NULL). fn
 * returning non-zero stops the walk with that value.
 */
typedef int (*zb_join_fn)(const zb_pathrec *a, const zb_pathrec *b,
                          void *payload);
int zb_reach_join(zb_ctx *ctx, zb_path_next_fn next_a, void *a,
                  zb_path_next_fn next_b, void *b, zb_join_fn fn,
                  void *payload);

/* ---- a table's files ------------------------------------------------- */

/*
 * Adds path (as metadata names it: resolved through t's paths, then
 * normalized) to s. scratch is the caller's buffer.
 */
int zb_reach_add(zb_pathsort *s, zb_ctx *ctx, const zb_table *t,
                 zb_buf *scratch, const char *path, uint32_t tag,
                 uint64_t size_bytes);

/*
 * Adds snap's manifest list (tag ZB_REACH_LIST) to lists and each of its
 * manifests (ZB_REACH_MANIFEST, size manifest_length) to manifests; a
 * v1 snapshot with a "manifests" array has no list. Either stream may be
 * NULL. ZB_ENOTFOUND when the list is missing, ZB_ECORRUPT, ...
 */
int zb_reach_snapshot(zb_pathsort *lists, zb_pathsort *manifests,
                      zb_io *io, zb_ctx *ctx, const zb_table *t,
                      const ice_snapshot *snap);

/*
 * Adds the files a manifest lists (normalized path uri, opened without
 * further resolution) to out: ZB_REACH_DATA or ZB_REACH_DELETE, size
 * file_size_in_bytes. live_only: skip DELETED entries.
 */
int zb_reach_manifest(zb_pathsort *out, zb_io *io, zb_ctx *ctx,
                      const zb_table *t, const char *uri, int live_only);

/*
 * Adds the statistics and partition-statistics files of snapshot_id
 * (ICE_NO_SNAPSHOT: of every snapshot) to s.
 */
int zb_reach_stats(zb_pathsort *s, zb_ctx *ctx, const zb_table *t,
                   zb_buf *scratch, int64_t snapshot_id);

/* ---- many manifests at once ------------------------------------------ */

/*
 * Reads manifests on threads threads and adds their files, as
 * zb_reach_manifest does, to the stream each was queued for, in queue
 * order: the streams, the errors and their order are those of one thread
 * (threads <= 1: each manifest is read when queued, in the caller's
 * thread). done (may be NULL) is called in the owner's thread once per
 * manifest, in order, after its files went in, with its rc (ctx->err set
 * when it failed); what it returns is returned by the add or drain call
 * that reported it (ZB_OK to pass a failure over). zb_table_resolve on t
 * runs on the pool's threads. At most 2 x threads manifests are queued.
 */
typedef struct zb_reach_reader zb_reach_reader;
typedef int (*zb_reach_done_fn)(void *payload, zb_ctx *ctx, int rc);

int zb_reach_reader_new(zb_reach_reader **out, zb_ctx *ctx, zb_io *io,
                        const zb_table *t, unsigned threads,
                        zb_reach_done_fn done, void *payload);

/* Queues uri (copied); its files go to out (live_only: skip DELETED). */
int zb_reach_reader_add(zb_reach_reader *rr, zb_ctx *ctx, zb_pathsort *out,
                        const char *uri, int live_only);

/* Waits for every queued manifest and adds its files. */
int zb_reach_reader_drain(zb_reach_reader *rr, zb_ctx *ctx);

/* Drops what is still queued (after an error) and frees rr. */
void zb_reach_reader_free(zb_reach_reader *rr);

/* ---- Hadoop checksum files ------------------------------------------- */

/*
 * Hadoop's local filesystem writes ".NAME.crc" beside every file NAME. Such
 * a file belongs to NAME: it lives and goes with it and is counted with
 * it, never on its own unless NAME is gone.
 */
#define ZB_REACH_CRC 0x100u       /* a listed ".NAME.crc", keyed by NAME */

/* 1 and dir/NAME in out when path's last part is ".NAME.crc"; 0 when it
 * is not a checksum name; < 0 on failure. */
int zb_reach_crc_owner(zb_buf *out, zb_ctx *ctx, const char *path,
                       size_t len);
/* dir/.NAME.crc of dir/NAME into out. */
int zb_reach_crc_path(zb_buf *out, zb_ctx *ctx, const char *path,
                      size_t len);

/* ---- deleting -------------------------------------------------------- */

typedef struct zb_reach_deleted {
    uint64_t files;           /* deleted */
    uint64_t bytes;           /* their sizes as recorded */
    uint64_t failed;          /* deletions that failed */
    uint64_t missing;         /* already gone */
    char first_error[ZB_ERR_MSG_SIZE];   /* "" when none failed */
} zb_reach_deleted;

/*
 * Deletes every path of f (rewound first) in batches on threads (0: 4)
 * threads, and with each path deleted (or already gone) outside object
 * stores its checksum file .NAME.crc if there is one (not counted: it
 * goes with its file). A failed deletion is counted and logged, never
 * fatal; the first failure's message is left in ctx->err with code ZB_OK
 * returned.
 * Returns ZB_OK, ZB_ENOMEM, ZB_EIO (reading f), ZB_ECANCELED.
 */
int zb_reach_delete(zb_reach_deleted *out, zb_pathfile *f, zb_io *io,
                    zb_ctx *ctx, unsigned threads);

/* The same, reporting files handled (deleted, failed or missing) of the
 * file's count to ctx->progress under stage (NULL: none) once before
 * the first batch and after each wave of batches (ops/ops.h). */
int zb_reach_delete_stage(zb_reach_deleted *out, zb_pathfile *f, zb_io *io,
                          zb_ctx *ctx, unsigned threads, const char *stage);

#endif

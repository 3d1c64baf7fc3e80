/*
 * exec/spill.h - temporary files for data that does not fit the memory
 * budget (equality-delete key sets, sort runs).
 *
 * A spill file is created in $TMPDIR (default /tmp) and unlinked at once,
 * so nothing is left behind when the process dies; the descriptor is the
 * only name it has. It is written sequentially through a buffer, then
 * rewound and read sequentially (as often as wanted), or read at offsets.
 *
 * All spill files of the process share one disk limit, in bytes, counted
 * as data reaches the file: a write that would pass it fails with
 * ZB_ENOMEM and a message that names the limit. Closing a file gives its
 * bytes back. The limit is 0 (unlimited) until zb_spill_set_limit sets it.
 *
 * The write buffer is memory the caller should count in its reservation:
 * zb_spill_open takes its size. A zb_spill belongs to one thread at a time.
 */
#ifndef ZB_EXEC_SPILL_H
#define ZB_EXEC_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"

typedef struct zb_spill zb_spill;

#define ZB_SPILL_DEFAULT_BUF_BYTES (64 * 1024)

/*
 * Creates an empty, already unlinked temporary file. buf_bytes is the
 * size of its buffer (0: ZB_SPILL_DEFAULT_BUF_BYTES; at least 512 is
 * used). purpose is a short word used in error messages ("keyset").
 * Returns ZB_OK, ZB_EIO (message names the folder) or ZB_ENOMEM.
 */
int zb_spill_open(zb_spill **out, zb_ctx *ctx, const char *purpose,
                  size_t buf_bytes);

/* Closes the file, which the system then removes, and frees s. NULL ok. */
void zb_spill_close(zb_spill *s);

/*
 * Appends n bytes. Only before the first rewind. Returns ZB_OK, ZB_ENOMEM
 * (spill limit reached, or no memory) or ZB_EIO.
 */
int zb_spill_write(zb_spill *s, zb_ctx *ctx, const void *data, size_t n);

/* Writes out the buffer. ZB_OK, ZB_ENOMEM (limit) or ZB_EIO. */
int zb_spill_flush(zb_spill *s, zb_ctx *ctx);

/*
 * Ends writing (flushing the buffer) and positions reading at byte 0.
 * May be called again to read the file once more. ZB_OK, ZB_ENOMEM, ZB_EIO.
 */
int zb_spill_rewind(zb_spill *s, zb_ctx *ctx);

/*
 * Reads up to n bytes at the read position into dst; *got is how many (0
 * at the end). Returns ZB_OK or ZB_EIO.
 */
int zb_spill_read(zb_spill *s, zb_ctx *ctx, void *dst, size_t n,
                  size_t *got);

/* Reads exactly n bytes; fewer left is ZB_ECORRUPT. ZB_OK, ZB_EIO. */
int zb_spill_read_full(zb_spill *s, zb_ctx *ctx, void *dst, size_t n);

/*
 * Reads n bytes at offset, unbuffered, after the file has been flushed or
 * rewound. ZB_OK, ZB_ECORRUPT (past the end) or ZB_EIO.
 */
int zb_spill_pread(zb_spill *s, zb_ctx *ctx, void *dst, size_t n,
                   uint64_t offset);

/*
 * Writes out and frees the buffer, for a file that waits to be read while
 * many others are worked on; the next read or write allocates it again
 * (and may then fail with ZB_ENOMEM). ZB_OK, ZB_ENOMEM (limit), ZB_EIO.
 */
int zb_spill_drop_buffer(zb_spill *s, zb_ctx *ctx);

/* Bytes written so far (buffered ones included). */
uint64_t zb_spill_size(const zb_spill *s);

/*
 * The process-wide spill-disk limit in bytes (0: unlimited). Setting it
 * below what is held already only makes later writes fail.
 */
void zb_spill_set_limit(uint64_t limit_bytes);
uint64_t zb_spill_limit(void);

/* Bytes held in open spill files of the whole process. */
uint64_t zb_spill_used_bytes(void);

/*
 * Overwrites n bytes at off, which must lie inside what was written (a
 * length written ahead of the data it counts). Only before the first
 * rewind. ZB_OK, ZB_EINVAL or ZB_EIO.
 */
int zb_spill_patch(zb_spill *s, zb_ctx *ctx, uint64_t off, const void *data,
                   size_t n);

/*
 * Gives the disk under [off, off + n) back (a hole is punched; the file
 * keeps its size) and its bytes back to the limit, for data that has been
 * read for the last time. Reading the range afterwards gives zeros. Best
 * effort: where the file system cannot punch holes nothing changes.
 */
void zb_spill_discard(zb_spill *s, uint64_t off, uint64_t n);

/*
 * Whether writers that can compress what they spill should: ALWAYS,
 * NEVER, or AUTO (the default), which compresses once the spill folder's
 * free space is less than the spill files already hold plus what is to be
 * written plus ZB_SPILL_PACK_SLACK: compression costs CPU, and is only
 * worth it when the disk would run out. Process-wide; the executable
 * sets it from the spill_compression setting.
 */
typedef enum zb_spill_pack {
    ZB_SPILL_PACK_AUTO,
    ZB_SPILL_PACK_ALWAYS,
    ZB_SPILL_PACK_NEVER
} zb_spill_pack;

#define ZB_SPILL_PACK_SLACK (1024ull * 1024 * 1024)

void zb_spill_set_pack(zb_spill_pack mode);
zb_spill_pack zb_spill_pack_mode(void);

/* 1 when the next `more` bytes of spill should be compressed. */
int zb_spill_should_pack(uint64_t more);

/*
 * The folder spill files go to: $TMPDIR when set and not empty, else
 * /tmp. The string is the environment's or a constant; do not free it.
 */
const char *zb_spill_dir(void);

#endif

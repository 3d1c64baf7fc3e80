/*
 * exec/arrow/arrow_spill.h - Arrow batches to and from spill files, and the
 * row gather ("take") that sorted runs and merges are built with.
 *
 * Types: every layout that exec/arrow/arrow.h batches carry - null (n),
 * boolean (b), integers (c C s S i I l L), floats (e f g), decimals
 * (d:P,S and d:P,S,128; 128-bit), dates (tdD, tdm), times (tts ttm ttu
 * ttn), timestamps (ts[smun]:[zone]), durations (tD[smun]), intervals
 * (tiM tiD tin), strings and binary (u z, U Z with 64-bit offsets),
 * fixed-size binary (w:N), structs (+s), lists (+l, +L), fixed-size
 * lists (+w:N) and maps (+m). Dictionary-encoded arrays are not handled
 * (ZB_EUNSUPPORTED).
 *
 * Serialized form (little-endian, native to every platform Zamboni runs
 * on; a spill file never leaves the process that wrote it): a frame of
 * u32 magic "ZBA1", u32 flags, u64 payload bytes, then the payload. Flags
 * 0: the payload as below; 1 (packed): u64 bytes of that payload, then
 * the payload as one LZ4 frame. The payload:
 * per node, u64 length, u64 null_count, the validity bitmap re-aligned to
 * bit 0 (only when null_count > 0), then the type's buffers for exactly
 * the node's logical rows (offsets rebased to 0), then the children for
 * the rows that the node references. Slices (offset != 0, sliced
 * children) therefore cost nothing extra and read back with offset 0.
 *
 * Arrays read back own buffers from zb_malloc and are released with
 * zb_arrow_array_release. Schemas are never serialized: the caller passes
 * the same schema to write and read.
 */
#ifndef ZB_EXEC_ARROW_SPILL_H
#define ZB_EXEC_ARROW_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "zamboni/zamboni.h"
#include "exec/arrow/arrow.h"
#include "exec/spill.h"

/* Physical layouts of Arrow formats. */
typedef enum zb_arrow_kind {
    ZB_ARROW_NULL,      /* n: no buffers */
    ZB_ARROW_BOOL,      /* b: validity, bit data */
    ZB_ARROW_FIXED,     /* validity, width-byte values */
    ZB_ARROW_BIN32,     /* u z: validity, int32 offsets, data */
    ZB_ARROW_BIN64,     /* U Z: validity, int64 offsets, data */
    ZB_ARROW_STRUCT,    /* +s: validity; children */
    ZB_ARROW_LIST32,    /* +l +m: validity, int32 offsets; one child */
    ZB_ARROW_LIST64,    /* +L: validity, int64 offsets; one child */
    ZB_ARROW_FIXLIST    /* +w:N: validity; one child of N per row */
} zb_arrow_kind;

/*
 * The layout of format: *kind, and *width (bytes per value of FIXED, N of
 * FIXLIST, else 0). Returns ZB_OK or ZB_EUNSUPPORTED.
 */
int zb_arrow_kind_of(zb_arrow_kind *kind, int64_t *width, const char *format);

/*
 * Checks that schema and array agree in shape (kinds, buffer and child
 * counts, no dictionary) down the tree. Returns ZB_OK, ZB_EUNSUPPORTED
 * (a type not listed above) or ZB_EINVAL, with a message naming the
 * field.
 */
int zb_arrow_check(zb_ctx *ctx, const struct ArrowSchema *schema,
                   const struct ArrowArray *array);

/*
 * Bytes that the array's logical rows occupy (buffers and children, as
 * they would after a compact copy): what a batch costs in memory.
 */
uint64_t zb_arrow_array_bytes(const struct ArrowSchema *schema,
                              const struct ArrowArray *array);

/*
 * Compression state for frames: the LZ4 contexts and buffers of one
 * writer or reader, reused across frames. One thread at a time.
 * zb_arrow_pack_bytes is the memory it holds, to be counted by its owner.
 */
typedef struct zb_arrow_pack zb_arrow_pack;

int zb_arrow_pack_new(zb_arrow_pack **out, zb_ctx *ctx);
void zb_arrow_pack_free(zb_arrow_pack *p);   /* NULL ok */
uint64_t zb_arrow_pack_bytes(const zb_arrow_pack *p);

/* What a frame written costs: on disk, and once read back. */
typedef struct zb_arrow_frame {
    uint64_t bytes;      /* in the file: what a reader reads at its offset */
    uint64_t raw;        /* uncompressed, header included: about what
                            the decoded array holds */
    int packed;          /* LZ4-compressed */
} zb_arrow_frame;

/*
 * Appends a frame with the array's logical rows to s. The array must have
 * passed zb_arrow_check. With pk, the frame is LZ4-compressed when
 * zb_spill_should_pack says the disk is short (or compression is forced);
 * without, never. Returns ZB_OK, ZB_ENOMEM (spill limit or memory),
 * ZB_EIO or ZB_ERROR (the compressor failed). *info may be NULL.
 */
int zb_arrow_spill_write(zb_spill *s, zb_ctx *ctx,
                         const struct ArrowSchema *schema,
                         const struct ArrowArray *array, zb_arrow_pack *pk,
                         zb_arrow_frame *info);

/*
 * Reads the next frame of s into *out. At the end of the file *out is
 * left released (out->release == NULL) and ZB_OK is returned. pk (NULL:
 * one is made for each packed frame) decompresses packed frames. Returns
 * ZB_OK, ZB_ECORRUPT (a bad or truncated frame), ZB_ENOMEM or ZB_EIO.
 */
int zb_arrow_spill_read(struct ArrowArray *out, zb_spill *s, zb_ctx *ctx,
                        const struct ArrowSchema *schema, zb_arrow_pack *pk);

/*
 * Decodes one whole frame held in memory (as read with zb_spill_pread at
 * an offset that zb_arrow_spill_write reported), packed or not; pk as for
 * zb_arrow_spill_read, its buffer then holding the decompressed payload
 * (up to the frame's raw size). Every length and offset is checked
 * against the frame. Returns ZB_OK, ZB_ECORRUPT or ZB_ENOMEM.
 */
int zb_arrow_decode(struct ArrowArray *out, zb_ctx *ctx,
                    const struct ArrowSchema *schema, const void *frame,
                    size_t frame_bytes, zb_arrow_pack *pk);

/* A row of some batch: rows[i] of arrays[rows[i].src]. */
typedef struct zb_arrow_rowref {
    uint32_t src;
    uint32_t row;        /* logical row, before the array's offset */
} zb_arrow_rowref;

/*
 * Builds *out, a new array of n rows: row i is row refs[i].row of
 * srcs[refs[i].src]. All sources share schema and passed
 * zb_arrow_check; entries of srcs that no ref names may be NULL.
 * Returns ZB_OK or ZB_ENOMEM (out released).
 */
int zb_arrow_take(struct ArrowArray *out, const struct ArrowSchema *schema,
                  const struct ArrowArray *const *srcs,
                  const zb_arrow_rowref *refs, size_t n);

#endif

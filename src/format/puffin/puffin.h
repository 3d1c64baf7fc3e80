/*
 * format/puffin/puffin.h - Puffin files (apache/iceberg
 * format/puffin-spec.md) as Iceberg v3 tables keep deletion vectors in
 * them: the magic, the blobs one after another, then the footer (magic,
 * the FileMetadata JSON, its length, flags, magic). Only what writing
 * deletion vectors needs: uncompressed blobs and an uncompressed footer.
 * Readers of deletion vectors go to a blob by the offset and length the
 * manifest records, without the footer.
 */
#ifndef ZB_FORMAT_PUFFIN_PUFFIN_H
#define ZB_FORMAT_PUFFIN_PUFFIN_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "zamboni/zamboni.h"

/* "PFA1" */
#define ZB_PUFFIN_MAGIC "PFA1"

/* Blob type of a v3 deletion vector, and the field it covers (the
 * _pos metadata column). */
#define ZB_PUFFIN_DV_TYPE "deletion-vector-v1"
#define ZB_PUFFIN_DV_FIELD 2147483645

typedef struct zb_puffin_blob {
    const char *type;
    const int32_t *fields;
    size_t n_fields;
    int64_t snapshot_id;           /* -1 when not known yet (DVs) */
    int64_t sequence_number;       /* -1 likewise */
    const void *data;
    size_t len;
    /* Blob properties: a NULL-terminated key, value, ... array; may be
     * NULL. */
    const char *const *props;
    uint64_t offset;               /* out: where the blob starts */
} zb_puffin_blob;

/*
 * Appends a whole Puffin file holding blobs[0..n) to out (cleared first)
 * and sets each blob's offset. created_by goes into the file properties
 * (NULL: none). ZB_OK or ZB_ENOMEM.
 */
int zb_puffin_build(zb_buf *out, zb_ctx *ctx, zb_puffin_blob *blobs,
                    size_t n, const char *created_by);

/*
 * Fills b as the deletion vector r of the data file referenced: r
 * serialized into dv (initialised by the caller, who keeps it until the
 * file is built and frees it), the properties the spec asks for
 * (referenced-data-file, cardinality) in arena; referenced must outlive
 * the build. ZB_OK or ZB_ENOMEM.
 */
struct zb_roaring;
int zb_puffin_dv_blob(zb_puffin_blob *b, zb_buf *dv, zb_ctx *ctx,
                      zb_arena *arena, const struct zb_roaring *r,
                      const char *referenced);

#endif

/*
 * The sample table of manifest_sample.c, written by the unit tests and by
 * zb-manifest-gen (tests/interop/manifest).
 */
#ifndef ZB_TEST_MANIFEST_SAMPLE_H
#define ZB_TEST_MANIFEST_SAMPLE_H

#include "table/manifest/manifest.h"

typedef struct mfs_result {
    int n_manifests;
    int64_t snapshot_id;
    int64_t next_row_id;           /* v3: after the list's assignment */
    int64_t data_length;
} mfs_result;

/* Table metadata JSON (no snapshot) for version at location. */
int mfs_metadata_json(zb_buf *out, int version, const char *location,
                      int partitioned);

/* An entry with every optional value null. */
void mfs_entry_init(ice_manifest_entry *e);

/* Writes the sample table into dir (which need not exist). */
int mfs_write_table(zb_io *io, zb_ctx *ctx, const char *dir, int version,
                    int partitioned, mfs_result *res);

#endif

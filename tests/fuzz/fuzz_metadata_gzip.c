/*
 * libFuzzer target: gzip-compressed metadata files (.gz.metadata.json).
 *
 * Each input is parsed twice: as it is (the gzip magic decides), and with
 * the magic 1f 8b forced onto its first two bytes, so that every input
 * reaches the inflater. Both must give ZB_OK or ZB_ECORRUPT /
 * ZB_EUNSUPPORTED / ZB_ENOMEM with a message and no model, never crash,
 * read out of bounds or leak. What parses is written back gzipped under a
 * gzip name (ice_metadata_write_file) and must parse again to the same
 * counts.
 */
#include <stdlib.h>
#include <string.h>

#include "table/metadata/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *bytes, size_t size)
{
    ice_metadata *m = NULL, *again = NULL;
    zb_buf out = ZB_BUF_INIT((size_t)64 << 20);
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = ice_metadata_parse(&m, &ctx, bytes, size, "fuzz.gz.metadata.json");
    if (rc != ZB_OK) {
        if ((rc != ZB_ECORRUPT && rc != ZB_EUNSUPPORTED && rc != ZB_ENOMEM) ||
            ctx.err.msg[0] == 0 || m != NULL)
            abort();
        return;
    }
    if (ice_metadata_write_file(&out, m, &ctx, "v2.gz.metadata.json") !=
            ZB_OK || out.len < 2 || (unsigned char)out.ptr[0] != 0x1f ||
        (unsigned char)out.ptr[1] != 0x8b)
        abort();
    if (ice_metadata_parse(&again, &ctx, out.ptr, out.len, "again") != ZB_OK)
        abort();
    if (again->n_snapshots != m->n_snapshots ||
        again->n_schemas != m->n_schemas ||
        again->current_snapshot_id != m->current_snapshot_id)
        abort();
    ice_metadata_free(again);
    ice_metadata_free(m);
    zb_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *forced;

    one((const char *)data, size);
    if (size < 2 || (data[0] == 0x1f && data[1] == 0x8b))
        return 0;
    if ((forced = malloc(size)) == NULL)
        return 0;
    memcpy(forced, data, size);
    forced[0] = (char)0x1f;
    forced[1] = (char)0x8b;
    one(forced, size);
    free(forced);
    return 0;
}

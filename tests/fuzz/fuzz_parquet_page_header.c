/*
 * libFuzzer target: pq_page_header_parse on arbitrary bytes (a page
 * header followed by whatever comes after it).
 *
 * The parser allocates nothing; it must return ZB_OK or ZB_ECORRUPT
 * (with a message), never read outside the input, and on ZB_OK report a
 * header length within the input and sizes that are not negative.
 */
#include <stdlib.h>

#include "format/parquet/thrift/pq_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_page_header h;
    size_t header_len = 0;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = pq_page_header_parse(&h, &header_len, &ctx, data, size);
    if (rc == ZB_OK) {
        if (header_len == 0 || header_len > size ||
            h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
            (unsigned)h.type > PQ_DATA_PAGE_V2)
            abort();
    } else if (rc != ZB_ECORRUPT || ctx.err.msg[0] == 0 || header_len != 0) {
        abort();
    }
    return 0;
}

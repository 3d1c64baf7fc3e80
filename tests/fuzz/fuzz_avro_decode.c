/*
 * Fuzz target: a whole Avro object container file from memory, header
 * and every record (format/avro). Inputs must give ZB_OK or an error,
 * never a crash, a leak or a read outside the input; small caps keep a
 * hostile block count or size from running the fuzzer out of memory.
 */
#include <stddef.h>
#include <stdint.h>

#include "format/avro/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_avro_reader_opts o = ZB_AVRO_READER_OPTS_INIT;
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    zb_ctx ctx;
    int n = 0;

    o.max_block_bytes = 4u << 20;
    o.max_record_bytes = 16u << 20;
    o.max_header_bytes = 1u << 20;
    zb_ctx_init(&ctx);
    if (zb_avro_reader_open_mem(&r, &ctx, "fuzz.avro", data, size, &o) < 0)
        return 0;
    while (n++ < 100000 && zb_avro_reader_next(r, &ctx, &v) == 1)
        ;
    zb_avro_reader_free(r);
    return 0;
}

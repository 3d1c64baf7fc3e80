/*
 * format/avro/avro_int.h - shared by the files of format/avro only:
 * the schema's private struct, the block codecs and the varint helpers.
 */
#ifndef ZB_FORMAT_AVRO_AVRO_INT_H
#define ZB_FORMAT_AVRO_AVRO_INT_H

#include <stdatomic.h>

#include "format/avro/avro.h"
#include "util/arena.h"
#include "util/buf.h"

/* Nesting a datum may have while decoding or encoding (stack bound). */
#define ZB_AVRO_MAX_DEPTH 100

struct zb_avro_schema {
    atomic_int refs;          /* zb_avro_schema_get shares schemas */
    zb_arena *arena;          /* every node, name and string */
    zb_avro_node *root;
    char *json;               /* the text as given, NUL-terminated */
    size_t json_len;
};

/* Codec by its avro.codec name; -1 if unknown. */
int zb_avro__codec_from_name(const char *name, size_t len);
const char *zb_avro__codec_name(int codec);

/*
 * Decompresses one block into out (cleared first; its max_bytes caps the
 * result: ZB_ENOMEM past it). ZB_ECORRUPT for bad input. Messages name
 * the codec only; the caller adds the file and offset.
 */
int zb_avro__decompress(zb_ctx *ctx, int codec, const uint8_t *src,
                        size_t len, zb_buf *out);

/* Compresses one block into out (cleared first). */
int zb_avro__compress(zb_ctx *ctx, int codec, int level, const uint8_t *src,
                      size_t len, zb_buf *out);

/* Zig-zag varint encoding of a long into p (10 bytes); returns bytes. */
static inline size_t zb_avro__put_long(uint8_t *p, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;

    while (z >= 0x80) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

/*
 * Decodes a zig-zag varint long from p[0..len); returns the bytes used, 0
 * if the input ends first, or -1 for more than 10 bytes (or a 10th byte
 * with bits past 64).
 */
static inline int zb_avro__get_long(int64_t *out, const uint8_t *p,
                                    size_t len)
{
    uint64_t z = 0;
    size_t i;

    for (i = 0; i < 10; i++) {
        if (i >= len)
            return 0;
        z |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if ((p[i] & 0x80) == 0) {
            if (i == 9 && p[i] > 1)
                return -1;
            *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
            return (int)i + 1;
        }
    }
    return -1;
}

#endif

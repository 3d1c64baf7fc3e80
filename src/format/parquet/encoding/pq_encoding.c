/*
 * format/parquet/encoding/pq_encoding.c - the RLE / bit-packed hybrid, the
 * legacy BIT_PACKED levels, PLAIN BOOLEAN and BYTE_ARRAY, and BYTE_STREAM_SPLIT
 * (Encodings.md of apache/parquet-format). DELTA_* are in pq_delta.c; the
 * bit-unpacking kernels shared with it are in pq_bitpack.c.
 *
 * Every decoder is a pure function over buf[0..len): it reads exactly the
 * n values asked for, checks each length or count it reads against the
 * bytes that remain before using it, and never reads outside the range.
 * Nothing here allocates.
 *
 * RLE hybrid (pq_rle_decode). The data is a sequence of runs, each led by
 * a ULEB128 header h. If h & 1, h >> 1 groups of 8 values follow,
 * bit-packed least significant bit first (group = bit_width bytes); they
 * are unpacked straight into out by the per-width kernel. Otherwise h >> 1
 * copies of one value follow, stored in ceil(bit_width / 8) bytes little
 * endian; the value must fit bit_width bits. A run may hold more values
 * than are still wanted: the extra ones are ignored, and the last
 * bit-packed group of the data may be cut short as long as the wanted
 * values are all there. Bit width 0 means every value is 0 and no byte is
 * read.
 *
 * BIT_PACKED (legacy): values back to back, most significant bit first;
 * ceil(n * w / 8) bytes. Each value comes from a big-endian window of up
 * to 8 bytes at its first byte.
 *
 * BYTE_STREAM_SPLIT: byte k of value i is at buf[k * n + i]. The common
 * widths 4 and 8 get loops with a constant width.
 */
#include <string.h>

#include "format/parquet/encoding/pq_encoding.h"
#include "format/parquet/encoding/pq_encoding_int.h"
#include "util/alloc.h"

/* Bytes that hold the first count values of width w bits, rounded up;
 * computed so that it cannot overflow for any count the caller can hold. */
static size_t packed_bytes(size_t count, unsigned w)
{
    return (count / 8) * w + ((count % 8) * w + 7) / 8;
}

static void fill32(uint32_t *out, size_t n, uint32_t v)
{
    for (size_t i = 0; i < n; i++)
        out[i] = v;
}

/* A bit-packed run of groups groups, of which take values are wanted. */
static int rle_bitpacked_run(uint32_t *out, size_t take, const uint8_t *in,
                             size_t avail, unsigned w)
{
    size_t full = take / 8, rem = take % 8;

    if (packed_bytes(take, w) > avail)
        return ZB_ECORRUPT;
    pq_enc__unpack32(out, in, avail, full, w);
    if (rem) {
        /* The wanted values end inside a group that may be cut short. */
        uint8_t group[32];
        uint32_t vals[8];
        size_t have = avail - full * w;

        memset(group, 0, sizeof group);
        memcpy(group, in + full * w, have < w ? have : w);
        pq_enc__unpack32(vals, group, w, 1, w);
        memcpy(out + full * 8, vals, rem * sizeof *vals);
    }
    return ZB_OK;
}

int pq_rle_decode(uint32_t *out, size_t n, const uint8_t *buf, size_t len,
                  unsigned bit_width, size_t *used_out)
{
    const unsigned w = bit_width;
    const size_t value_bytes = (w + 7) / 8;
    size_t pos = 0, done = 0;
    int rc;

    if (used_out)
        *used_out = 0;
    if (w > 32)
        return ZB_ECORRUPT;
    if (w == 0) {
        if (n)
            memset(out, 0, n * sizeof *out);
        return ZB_OK;
    }
    while (done < n) {
        size_t want = n - done, take;
        uint64_t h;

        if ((rc = pq_enc__uleb(&h, buf, len, &pos)) < 0)
            return rc;
        if (h & 1) {
            uint64_t groups = h >> 1;
            size_t avail = len - pos;

            /* min(groups * 8, want) without overflowing groups * 8 */
            take = groups >= (want + 7) / 8 ? want : (size_t)groups * 8;
            if ((rc = rle_bitpacked_run(out + done, take, buf + pos, avail,
                                        w)) < 0)
                return rc;
            /* The run's bytes, or all that is left when it is cut short
             * after the wanted values (checked above). */
            pos += groups <= avail / w ? (size_t)groups * w : avail;
        } else {
            uint64_t count = h >> 1;
            uint32_t v = 0;

            if (value_bytes > len - pos)
                return ZB_ECORRUPT;
            for (size_t b = 0; b < value_bytes; b++)
                v |= (uint32_t)buf[pos + b] << (8 * b);
            if (w < 32 && (v >> w) != 0)
                return ZB_ECORRUPT;
            pos += value_bytes;
            take = count < want ? (size_t)count : want;
            fill32(out + done, take, v);
        }
        done += take;
    }
    if (used_out)
        *used_out = pos;
    return ZB_OK;
}

/* Up to 8 bytes at buf[pos..len) as a big-endian word, zeros past len. */
static uint64_t load_be_window(const uint8_t *buf, size_t len, size_t pos)
{
    uint64_t v = 0;

    for (unsigned k = 0; k < 8; k++)
        v = (v << 8) | (pos + k < len ? buf[pos + k] : 0);
    return v;
}

int pq_bitpacked_legacy_decode(uint32_t *out, size_t n, const uint8_t *buf,
                               size_t len, unsigned bit_width,
                               size_t *used_out)
{
    const unsigned w = bit_width;
    size_t need;

    if (used_out)
        *used_out = 0;
    if (w > 32)
        return ZB_ECORRUPT;
    need = packed_bytes(n, w);
    if (need > len)
        return ZB_ECORRUPT;
    if (w == 0) {
        if (n)
            memset(out, 0, n * sizeof *out);
    } else {
        uint64_t bit = 0;

        for (size_t i = 0; i < n; i++, bit += w) {
            size_t byte = (size_t)(bit >> 3);
            uint64_t win = load_be_window(buf, need, byte);

            /* s + w <= 7 + 32 < 64: the value is inside the window. */
            out[i] = (uint32_t)((win << (bit & 7)) >> (64 - w));
        }
    }
    if (used_out)
        *used_out = need;
    return ZB_OK;
}

int pq_plain_bool_decode(uint8_t *out, size_t n, const uint8_t *buf,
                         size_t len, size_t *used_out)
{
    size_t need = n / 8 + (n % 8 != 0);
    size_t full = n / 8;

    if (used_out)
        *used_out = 0;
    if (need > len)
        return ZB_ECORRUPT;
    for (size_t b = 0; b < full; b++) {
        unsigned byte = buf[b];

        for (unsigned k = 0; k < 8; k++)
            out[b * 8 + k] = (uint8_t)((byte >> k) & 1);
    }
    for (size_t i = full * 8; i < n; i++)
        out[i] = (uint8_t)((buf[i / 8] >> (i % 8)) & 1);
    if (used_out)
        *used_out = need;
    return ZB_OK;
}

int pq_plain_bytes_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                          size_t len, size_t *used_out)
{
    size_t pos = 0;

    if (used_out)
        *used_out = 0;
    /* Each value takes at least its 4-byte length. */
    if (n > len / 4)
        return ZB_ECORRUPT;
    for (size_t i = 0; i < n; i++) {
        uint32_t l;

        if (len - pos < 4)
            return ZB_ECORRUPT;
        l = (uint32_t)buf[pos] | (uint32_t)buf[pos + 1] << 8 |
            (uint32_t)buf[pos + 2] << 16 | (uint32_t)buf[pos + 3] << 24;
        pos += 4;
        if (l > len - pos)
            return ZB_ECORRUPT;
        out[i].ptr = buf + pos;
        out[i].len = l;
        pos += l;
    }
    if (used_out)
        *used_out = pos;
    return ZB_OK;
}

/* The inner loop with width a constant once inlined. */
static inline void bss_gather(uint8_t *out, size_t n, size_t width,
                              const uint8_t *buf)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < width; k++)
            out[i * width + k] = buf[k * n + i];
}

int pq_byte_stream_split_decode(uint8_t *out, size_t n, size_t width,
                                const uint8_t *buf, size_t len)
{
    size_t need;

    if (zb_mul_overflow(&need, n, width) || need > len)
        return ZB_ECORRUPT;
    switch (width) {
    case 4:
        bss_gather(out, n, 4, buf);
        break;
    case 8:
        bss_gather(out, n, 8, buf);
        break;
    case 2:
        bss_gather(out, n, 2, buf);
        break;
    default:
        bss_gather(out, n, width, buf);
        break;
    }
    return ZB_OK;
}

/*
 * format/parquet/encoding/pq_delta.c - DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (Encodings.md of
 * apache/parquet-format).
 *
 * DELTA_BINARY_PACKED is read by a small streaming decoder, delta_dec:
 *
 *   delta_init()  parses the header <block size> <miniblocks per block>
 *                 <total count> <first value (zigzag)>, checks its shape,
 *                 and checks that the bytes left could hold the blocks
 *                 that total count needs (each block is at least its min
 *                 delta varint and one width byte per miniblock), so a
 *                 hostile count fails before any work is done;
 *   delta_next()  returns the next k values, k <= values left;
 *   delta_skip()  walks past the values not wanted (block headers only);
 *   d.pos         is then the end of the stream.
 *
 * A block is <min delta (zigzag)> <one width byte per miniblock>
 * <miniblocks>; a miniblock of width w is (values per miniblock) * w / 8
 * bytes, bit-packed like the RLE hybrid. A miniblock is read only when a
 * wanted value is in it, and then all of it must be present (the writer
 * pads the last one); later widths of the last block may hold anything
 * and their miniblocks are absent. Whole groups of 8 go straight into the
 * output through the delta kernels of pq_bitpack.c, which unpack and keep
 * the running sum in one pass: value = previous + min delta + packed, all
 * in uint64_t so that it wraps modulo 2^64 as the specification requires.
 * When a caller's k ends inside a group, the group is decoded into d.pend
 * and handed out from there on the next call.
 *
 * The values per miniblock must be a multiple of 8 (the specification
 * asks for a multiple of 32 and block sizes that are multiples of 128;
 * the looser rule also reads its examples, which use blocks of 8).
 *
 * DELTA_LENGTH_BYTE_ARRAY: a delta stream of n lengths, then the bytes.
 * The lengths are decoded in chunks into out[i].len (no allocation); once
 * the stream's end is known the views are laid over the bytes.
 *
 * DELTA_BYTE_ARRAY: a delta stream of prefix lengths, then the suffixes as
 * DELTA_LENGTH_BYTE_ARRAY. Pass 1 puts prefix lengths in out[i].len. Pass
 * 2 decodes the suffix lengths, checks prefix <= previous value's length,
 * and leaves out[i].len = value length and out[i].ptr = provisional suffix
 * position (so suffix length i is ptr[i + 1] - ptr[i]). Pass 3 reserves
 * the whole result in the store at once, so it never moves while views are
 * made, and copies prefix and suffix of each value into it.
 */
#include <string.h>

#include "format/parquet/encoding/pq_encoding.h"
#include "format/parquet/encoding/pq_encoding_int.h"

/* Values decoded per chunk when a caller's output is not uint64_t. */
#define PQ_DELTA_CHUNK 256

typedef struct delta_dec {
    const uint8_t *buf;
    size_t len;
    size_t pos;             /* next unread byte of the stream */
    uint64_t mb_count;      /* miniblocks per block */
    uint64_t mb_groups;     /* groups of 8 per miniblock */
    uint64_t total;         /* values in the stream */
    uint64_t left;          /* values not yet returned */
    uint64_t last;          /* the last value decoded */
    uint64_t min_delta;     /* of the current block */
    size_t widths_pos;      /* the current block's width bytes */
    uint64_t mb_next;       /* index of the next miniblock in the block */
    uint64_t groups_left;   /* groups not yet decoded in this miniblock */
    size_t mb_pos;          /* next group of this miniblock */
    unsigned width;         /* of this miniblock */
    int first_done;         /* the header's first value was returned */
    unsigned pend_i, pend_n;
    uint64_t pend[8];       /* a decoded group, partly handed out */
} delta_dec;

static int delta_init(delta_dec *d, const uint8_t *buf, size_t len)
{
    uint64_t block_size, first, blocks;
    int rc;

    memset(d, 0, sizeof *d);
    d->buf = buf;
    d->len = len;
    if ((rc = pq_enc__uleb(&block_size, buf, len, &d->pos)) < 0 ||
        (rc = pq_enc__uleb(&d->mb_count, buf, len, &d->pos)) < 0 ||
        (rc = pq_enc__uleb(&d->total, buf, len, &d->pos)) < 0 ||
        (rc = pq_enc__uleb(&first, buf, len, &d->pos)) < 0)
        return rc;
    if (block_size == 0 || block_size > UINT32_MAX || d->mb_count == 0 ||
        block_size % d->mb_count != 0 || (block_size / d->mb_count) % 8 != 0)
        return ZB_ECORRUPT;
    d->mb_groups = block_size / d->mb_count / 8;
    /* Blocks that hold total - 1 deltas; each takes >= 1 + mb_count bytes. */
    blocks = d->total <= 1 ? 0
                           : (d->total - 1) / block_size +
                                 ((d->total - 1) % block_size != 0);
    if (blocks > (d->len - d->pos) / (1 + d->mb_count))
        return ZB_ECORRUPT;
    d->left = d->total;
    d->last = pq_enc__unzigzag(first);
    d->mb_next = d->mb_count;   /* the first delta starts a block */
    return ZB_OK;
}

/* Moves to the next miniblock, and to the next block after the last. */
static int delta_next_miniblock(delta_dec *d)
{
    uint64_t zz, bytes;
    unsigned w;
    int rc;

    if (d->mb_next == d->mb_count) {
        if ((rc = pq_enc__uleb(&zz, d->buf, d->len, &d->pos)) < 0)
            return rc;
        if (d->mb_count > d->len - d->pos)
            return ZB_ECORRUPT;
        d->min_delta = pq_enc__unzigzag(zz);
        d->widths_pos = d->pos;
        d->pos += (size_t)d->mb_count;
        d->mb_next = 0;
    }
    w = d->buf[d->widths_pos + d->mb_next++];
    if (w > 64)
        return ZB_ECORRUPT;
    /* mb_groups < 2^29 and w <= 64: no overflow */
    bytes = d->mb_groups * w;
    if (bytes > d->len - d->pos)
        return ZB_ECORRUPT;
    d->width = w;
    d->mb_pos = d->pos;
    d->pos += (size_t)bytes;
    d->groups_left = d->mb_groups;
    return ZB_OK;
}

/* The next k (<= d->left) values into out. */
static int delta_next(delta_dec *d, uint64_t *out, size_t k)
{
    size_t i = 0;
    int rc;

    if (k == 0)
        return ZB_OK;
    if (!d->first_done) {
        out[i++] = d->last;
        d->first_done = 1;
    }
    while (i < k) {
        size_t want = k - i, g;

        if (d->pend_i < d->pend_n) {
            size_t t = d->pend_n - d->pend_i;

            t = t < want ? t : want;
            memcpy(out + i, d->pend + d->pend_i, t * sizeof *out);
            d->pend_i += (unsigned)t;
            i += t;
            continue;
        }
        if (d->groups_left == 0 && (rc = delta_next_miniblock(d)) < 0)
            return rc;
        g = want / 8 < d->groups_left ? want / 8 : (size_t)d->groups_left;
        if (g > 0) {
            d->last = pq_enc__delta64(out + i, d->buf + d->mb_pos,
                                      d->len - d->mb_pos, g, d->width,
                                      d->last, d->min_delta);
            i += g * 8;
        } else {
            g = 1;
            d->last = pq_enc__delta64(d->pend, d->buf + d->mb_pos,
                                      d->len - d->mb_pos, 1, d->width,
                                      d->last, d->min_delta);
            d->pend_i = 0;
            d->pend_n = 8;
        }
        d->mb_pos += g * d->width;
        d->groups_left -= g;
    }
    d->left -= k;
    return ZB_OK;
}

/* Passes over the values left, reading block headers but no data. */
static int delta_skip(delta_dec *d)
{
    int rc;

    if (d->left > 0 && !d->first_done) {
        d->first_done = 1;
        d->left--;
    }
    if (d->left > 0 && d->pend_i < d->pend_n) {
        uint64_t t = d->pend_n - d->pend_i;

        d->left -= t < d->left ? t : d->left;
    }
    d->pend_i = d->pend_n = 0;
    while (d->left > 0) {
        uint64_t have;

        if (d->groups_left == 0 && (rc = delta_next_miniblock(d)) < 0)
            return rc;
        have = d->groups_left * 8;
        d->left -= have < d->left ? have : d->left;
        d->groups_left = 0;
    }
    return ZB_OK;
}

int pq_delta_binary_decode(int64_t *out, size_t n, const uint8_t *buf,
                           size_t len, size_t *used_out)
{
    delta_dec d;
    int rc;

    if (used_out)
        *used_out = 0;
    if (n == 0)
        return ZB_OK;
    if ((rc = delta_init(&d, buf, len)) < 0)
        return rc;
    if (n > d.total)
        return ZB_ECORRUPT;
    /* int64_t and uint64_t may alias (C11 6.5p7). */
    if ((rc = delta_next(&d, (uint64_t *)out, n)) < 0 ||
        (rc = delta_skip(&d)) < 0)
        return rc;
    if (used_out)
        *used_out = d.pos;
    return ZB_OK;
}

/*
 * Decodes a stream of exactly n lengths into out[i].len, each < 2^32 and
 * their sum no more than the bytes after the stream. *end_out is where the
 * stream ends, *sum_out the sum.
 */
static int delta_lengths(pq_bytes *out, size_t n, const uint8_t *buf,
                         size_t len, size_t *end_out, uint64_t *sum_out)
{
    uint64_t chunk[PQ_DELTA_CHUNK];
    uint64_t sum = 0;
    delta_dec d;
    int rc;

    if ((rc = delta_init(&d, buf, len)) < 0)
        return rc;
    if (d.total != n)
        return ZB_ECORRUPT;
    for (size_t i = 0; i < n;) {
        size_t k = n - i < PQ_DELTA_CHUNK ? n - i : PQ_DELTA_CHUNK;

        if ((rc = delta_next(&d, chunk, k)) < 0)
            return rc;
        for (size_t j = 0; j < k; j++) {
            if (chunk[j] > UINT32_MAX)
                return ZB_ECORRUPT;
            out[i + j].len = (uint32_t)chunk[j];
            sum += chunk[j];
        }
        /* sum stays below len + 2^40: no overflow before this check */
        if (sum > len - d.pos)
            return ZB_ECORRUPT;
        i += k;
    }
    *end_out = d.pos;
    *sum_out = sum;
    return ZB_OK;
}

int pq_delta_length_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                           size_t len, size_t *used_out)
{
    const uint8_t *p;
    uint64_t sum;
    size_t end;
    int rc;

    if (used_out)
        *used_out = 0;
    if (n == 0)
        return ZB_OK;
    if ((rc = delta_lengths(out, n, buf, len, &end, &sum)) < 0)
        return rc;
    p = buf + end;
    for (size_t i = 0; i < n; i++) {
        out[i].ptr = p;
        p += out[i].len;
    }
    if (used_out)
        *used_out = end + (size_t)sum;
    return ZB_OK;
}

int pq_delta_byte_array_decode(pq_bytes *out, size_t n, const uint8_t *buf,
                               size_t len, zb_buf *store, size_t *used_out)
{
    uint64_t chunk[PQ_DELTA_CHUNK];
    uint64_t cum = 0, total_bytes = 0, prev_len = 0;
    size_t sfx_start, data_start;
    const uint8_t *sfx_end;
    uint8_t *base;
    delta_dec d;
    int rc;

    if (used_out)
        *used_out = 0;
    if (n == 0)
        return ZB_OK;

    /* Pass 1: prefix lengths into out[i].len. They take no bytes of the
     * data, so delta_lengths() and its byte check do not apply. */
    if ((rc = delta_init(&d, buf, len)) < 0)
        return rc;
    if (d.total != n)
        return ZB_ECORRUPT;
    for (size_t i = 0; i < n;) {
        size_t k = n - i < PQ_DELTA_CHUNK ? n - i : PQ_DELTA_CHUNK;

        if ((rc = delta_next(&d, chunk, k)) < 0)
            return rc;
        for (size_t j = 0; j < k; j++) {
            if (chunk[j] > UINT32_MAX)
                return ZB_ECORRUPT;
            out[i + j].len = (uint32_t)chunk[j];
        }
        i += k;
    }
    sfx_start = d.pos;

    /* Pass 2: suffix lengths; value lengths and provisional positions. */
    if ((rc = delta_init(&d, buf + sfx_start, len - sfx_start)) < 0)
        return rc;
    if (d.total != n)
        return ZB_ECORRUPT;
    for (size_t i = 0; i < n;) {
        size_t k = n - i < PQ_DELTA_CHUNK ? n - i : PQ_DELTA_CHUNK;

        if ((rc = delta_next(&d, chunk, k)) < 0)
            return rc;
        for (size_t j = 0; j < k; j++) {
            uint64_t prefix = out[i + j].len, sfx = chunk[j], vlen;

            if (sfx > len - sfx_start - cum || prefix > prev_len)
                return ZB_ECORRUPT;
            vlen = prefix + sfx;
            if (vlen > UINT32_MAX)
                return ZB_ECORRUPT;
            out[i + j].ptr = buf + cum;     /* cum <= len: a valid pointer */
            out[i + j].len = (uint32_t)vlen;
            cum += sfx;
            total_bytes += vlen;            /* <= n * 2^32: no overflow */
            prev_len = vlen;
        }
        i += k;
    }
    data_start = sfx_start + d.pos;
    if (cum > len - data_start)
        return ZB_ECORRUPT;
    if (total_bytes > SIZE_MAX)
        return ZB_ENOMEM;

    /* Pass 3: one reservation, then the values side by side. */
    if ((rc = zb_buf_reserve(store, (size_t)total_bytes)) < 0)
        return rc;
    base = (uint8_t *)store->ptr + store->len;
    sfx_end = buf + cum;
    {
        size_t off = 0, prev_off = 0;

        for (size_t i = 0; i < n; i++) {
            const uint8_t *sfx = out[i].ptr;
            size_t sfx_len = (size_t)((i + 1 < n ? out[i + 1].ptr : sfx_end) -
                                      sfx);
            size_t vlen = out[i].len, prefix = vlen - sfx_len;

            if (prefix)
                memcpy(base + off, base + prev_off, prefix);
            if (sfx_len)
                memcpy(base + off + prefix, sfx + data_start, sfx_len);
            out[i].ptr = base + off;
            prev_off = off;
            off += vlen;
        }
    }
    store->len += (size_t)total_bytes;
    store->ptr[store->len] = '\0';
    if (used_out)
        *used_out = data_start + (size_t)cum;
    return ZB_OK;
}

/*
 * format/avro/avro.c - reading Avro object container files (Avro 1.11
 * spec, "Object Container Files", "Binary Encoding"), one record at a
 * time, for Iceberg manifests and manifest lists.
 *
 * DECISION: our own codec, not Debian's avro-c (libavro-dev 1.11.1).
 * Iceberg readers find columns by the "field-id" on record fields and the
 * "element-id", "key-id" and "value-id" on array and map nodes of the
 * schema stored in every manifest's header. We tested avro-c: a file
 * written by avro_file_writer_create() from a schema carrying those four
 * attributes (plus "doc" and "default") has in its header
 *   {"type":"record","name":"manifest_file","fields":[{"name":
 *    "manifest_path","type":{"type":"string"}},{"name":"partitions",
 *    "type":[{"type":"null"},{"type":"array","items":{"type":"int"}}]},...
 * - every attribute avro-c does not model is dropped, and
 * avro_schema_to_json() prints the same; the test and its output are in
 * tests/interop/avro/avro_c_decision.sh. Writing the header ourselves
 * around avro-c's datum encoder would leave us two schema models to keep
 * in step, and avro-c allocates through its own allocator (no budget, no
 * fault hook) and reports errors through a thread-local string without
 * the file offset. The binary encoding is small (varints, lengths,
 * blocks), so owning it costs a few hundred lines and keeps the schema
 * text byte for byte. Schema JSON is parsed with jansson
 * (avro_schema.c says why this module links it).
 *
 * Reader, in call order: open reads the header (magic "Obj\1", the
 * metadata map, the 16-byte sync marker), growing its window from 64 KiB
 * while the file is longer than the window and the header not done;
 * next loads a block when the last is used up (count and size varints,
 * checked against the bytes left in the file and the block cap before
 * anything is allocated; the sync marker after the data must match),
 * decompresses it (avro_codec.c), and decodes one record into a value
 * tree in an arena that is reset at every call. A block's count is also
 * checked against its size divided by the least size of a record, and
 * after its last record a block must be used up exactly.
 *
 * Every read of the file goes through a read-ahead window (fetch): a
 * file up to 8 MiB is read whole, a larger one in 1 MiB pieces, so that
 * on an object store a manifest costs one or two requests.
 *
 * Decoding follows the schema graph depth-first with the nesting bounded
 * (ZB_AVRO_MAX_DEPTH); array and map blocks are checked the same way as
 * file blocks. On error each record level puts "record R field F" in
 * front of the message, and next puts the file name and the block.
 */
#define ZB_MODULE "avro"

#include <stdio.h>
#include <string.h>

#include "format/avro/avro_int.h"
#include "io/io.h"
#include "util/alloc.h"
#include "util/err.h"

/* A record type whose datum may take no bytes: bound its count anyway. */
/* Read-ahead (fill_window): files up to this size are read whole... */
#define WINDOW_WHOLE_FILE_BYTES ((uint64_t)8 << 20)
/* ...larger ones in pieces of this size. */
#define WINDOW_PIECE_BYTES ((size_t)1 << 20)
#define MAX_EMPTY_RECORDS ((int64_t)1 << 24)

typedef struct meta_kv {
    char *key;
    char *value;
    size_t value_len;
} meta_kv;

struct zb_avro_reader {
    char *name;
    zb_io_file *file;           /* NULL when reading from memory */
    const uint8_t *mem;
    uint64_t size;
    zb_avro_reader_opts opts;
    zb_avro_schema *schema;
    int codec;
    uint8_t sync[16];
    zb_arena *meta_arena;
    meta_kv *meta;
    size_t n_meta;
    uint64_t next_off;          /* file offset of the next block */
    uint64_t block_off;         /* file offset of the current block */
    uint64_t data_off;          /* file offset of its data */
    uint64_t block_index;       /* counts from 1 once a block is loaded */
    zb_buf window;              /* read-ahead: bytes at window_off */
    uint64_t window_off;
    zb_buf raw;                 /* compressed bytes of the block */
    zb_buf data;                /* its records */
    const uint8_t *blk;
    size_t blk_len, pos;
    int64_t left, rec;          /* records left in the block, and read */
    zb_arena *arena;            /* the current record's values */
};

/* A cursor over bytes being decoded. */
typedef struct cur {
    zb_ctx *ctx;
    zb_arena *arena;
    const uint8_t *p;
    size_t len, pos;
    uint64_t base;              /* offset of p[0] */
    int in_file;                /* base is a file offset (else decompressed) */
    int depth;
} cur;

static int corrupt(cur *c, const char *what)
{
    return zb_fail(c->ctx, ZB_ECORRUPT, "offset %llu%s: %s",
                   (unsigned long long)(c->base + c->pos),
                   c->in_file ? "" : " of the decompressed block", what);
}

static int get_long(cur *c, int64_t *out)
{
    int n = zb_avro__get_long(out, c->p + c->pos, c->len - c->pos);

    if (n == 0)
        return corrupt(c, "truncated long");
    if (n < 0)
        return corrupt(c, "varint longer than 10 bytes");
    c->pos += (size_t)n;
    return ZB_OK;
}

/* A length or count: 0 <= v <= the bytes left divided by unit. */
static int get_len(cur *c, size_t *out, size_t unit, const char *what)
{
    int64_t v;
    int rc;

    if ((rc = get_long(c, &v)) < 0)
        return rc;
    if (v < 0 || (unit && (uint64_t)v > (c->len - c->pos) / unit)) {
        char msg[96];
        c->pos -= 1; /* point at the varint, roughly */
        snprintf(msg, sizeof msg, "%s %lld past the end of the data", what,
                 (long long)v);
        return corrupt(c, msg);
    }
    *out = (size_t)v;
    return ZB_OK;
}

static int need(cur *c, size_t n, const char *what)
{
    if (c->len - c->pos < n) {
        char msg[64];
        snprintf(msg, sizeof msg, "truncated %s", what);
        return corrupt(c, msg);
    }
    return ZB_OK;
}

static int nomem(cur *c)
{
    return zb_fail(c->ctx, ZB_ENOMEM, "offset %llu: out of memory or past "
                   "the record cap", (unsigned long long)(c->base + c->pos));
}

static int decode(cur *c, const zb_avro_node *node, zb_avro_value *v);

/* Array and map items: blocks of items ending with a zero count. */
static int decode_items(cur *c, const zb_avro_node *node, zb_avro_value *v)
{
    const zb_avro_node *item = node->items;
    int is_map = node->type == ZB_AVRO_MAP;
    size_t per = is_map ? sizeof(zb_avro_map_entry) : sizeof(zb_avro_value);
    size_t n = 0, cap = 0, unit = item->min_bytes + (is_map ? 1 : 0);
    void *arr = NULL;
    int rc;

    for (;;) {
        int64_t count;
        size_t cnt, i, want;
        if ((rc = get_long(c, &count)) < 0)
            return rc;
        if (count == 0)
            break;
        if (count < 0) {
            size_t skip_bytes;
            if (count == INT64_MIN)
                return corrupt(c, "bad block count");
            count = -count;
            if ((rc = get_len(c, &skip_bytes, 1, "block size")) < 0)
                return rc;
        }
        if ((uint64_t)count > (unit ? (c->len - c->pos) / unit
                                    : (uint64_t)MAX_EMPTY_RECORDS)) {
            char msg[80];
            snprintf(msg, sizeof msg, "%s block count %lld past the end of "
                     "the data", is_map ? "map" : "array", (long long)count);
            return corrupt(c, msg);
        }
        cnt = (size_t)count;
        if (zb_add_overflow(&want, n, cnt))
            return corrupt(c, "too many items");
        if (want > cap) {
            size_t newcap = cap ? cap * 2 : 4, bytes;
            void *grown;
            while (newcap < want)
                newcap *= 2;
            if (zb_mul_overflow(&bytes, newcap, per) ||
                (grown = zb_arena_alloc(c->arena, bytes)) == NULL)
                return nomem(c);
            if (n)
                memcpy(grown, arr, n * per);
            arr = grown;
            cap = newcap;
        }
        for (i = 0; i < cnt; i++, n++) {
            if (is_map) {
                zb_avro_map_entry *e = (zb_avro_map_entry *)arr + n;
                size_t klen;
                if ((rc = get_len(c, &klen, 1, "map key length")) < 0)
                    return rc;
                if ((e->key = zb_arena_strndup(c->arena,
                                               (const char *)c->p + c->pos,
                                               klen)) == NULL ||
                    (e->value = zb_arena_alloc(c->arena,
                                               sizeof *e->value)) == NULL)
                    return nomem(c);
                e->key_len = klen;
                c->pos += klen;
                if ((rc = decode(c, item, e->value)) < 0)
                    return zb_err_prefix(c->ctx, "map key \"%.40s\"",
                                         e->key);
            } else if ((rc = decode(c, item, (zb_avro_value *)arr + n)) < 0) {
                return zb_err_prefix(c->ctx, "array item %zu", n);
            }
        }
    }
    if (is_map) {
        v->v.map.entries = arr;
        v->v.map.n = n;
    } else {
        v->v.list.items = arr;
        v->v.list.n = n;
    }
    return ZB_OK;
}

static int decode(cur *c, const zb_avro_node *node, zb_avro_value *v)
{
    int64_t l;
    size_t n, i;
    int rc;

    v->type = node->type;
    switch (node->type) {
    case ZB_AVRO_NULL:
        return ZB_OK;
    case ZB_AVRO_BOOLEAN:
        if ((rc = need(c, 1, "boolean")) < 0)
            return rc;
        if (c->p[c->pos] > 1)
            return corrupt(c, "boolean is neither 0 nor 1");
        v->v.boolean = c->p[c->pos++];
        return ZB_OK;
    case ZB_AVRO_INT:
    case ZB_AVRO_ENUM:
        if ((rc = get_long(c, &l)) < 0)
            return rc;
        if (l < INT32_MIN || l > INT32_MAX)
            return corrupt(c, "int out of range");
        if (node->type == ZB_AVRO_ENUM && (l < 0 || (uint64_t)l >= node->n))
            return corrupt(c, "enum index out of range");
        v->v.i32 = (int32_t)l;
        return ZB_OK;
    case ZB_AVRO_LONG:
        return get_long(c, &v->v.i64);
    case ZB_AVRO_FLOAT: {
        uint32_t u;
        if ((rc = need(c, 4, "float")) < 0)
            return rc;
        u = (uint32_t)c->p[c->pos] | (uint32_t)c->p[c->pos + 1] << 8 |
            (uint32_t)c->p[c->pos + 2] << 16 |
            (uint32_t)c->p[c->pos + 3] << 24;
        memcpy(&v->v.f32, &u, 4);
        c->pos += 4;
        return ZB_OK;
    }
    case ZB_AVRO_DOUBLE: {
        uint64_t u = 0;
        if ((rc = need(c, 8, "double")) < 0)
            return rc;
        for (i = 0; i < 8; i++)
            u |= (uint64_t)c->p[c->pos + i] << (8 * i);
        memcpy(&v->v.f64, &u, 8);
        c->pos += 8;
        return ZB_OK;
    }
    case ZB_AVRO_BYTES:
    case ZB_AVRO_FIXED:
        if (node->type == ZB_AVRO_FIXED) {
            n = node->fixed_bytes;
            if ((rc = need(c, n, "fixed")) < 0)
                return rc;
        } else if ((rc = get_len(c, &n, 1, "bytes length")) < 0) {
            return rc;
        }
        /* Borrowed from the block: valid until the next record. */
        v->v.bytes.ptr = c->p + c->pos;
        v->v.bytes.len = n;
        c->pos += n;
        return ZB_OK;
    case ZB_AVRO_STRING:
        if ((rc = get_len(c, &n, 1, "string length")) < 0)
            return rc;
        if ((v->v.str.ptr = zb_arena_strndup(c->arena,
                                             (const char *)c->p + c->pos,
                                             n)) == NULL)
            return nomem(c);
        v->v.str.len = n;
        c->pos += n;
        return ZB_OK;
    default:
        break;
    }
    if (++c->depth > ZB_AVRO_MAX_DEPTH)
        return corrupt(c, "values nested too deep");
    switch (node->type) {
    case ZB_AVRO_RECORD:
        v->v.list.n = node->n;
        v->v.list.items = zb_arena_alloc(c->arena,
                                         (node->n ? node->n : 1) * sizeof *v);
        if (v->v.list.items == NULL)
            return nomem(c);
        for (i = 0; i < node->n; i++)
            if ((rc = decode(c, node->fields[i].type,
                             &v->v.list.items[i])) < 0)
                return zb_err_prefix(c->ctx, "record %s field %s",
                                     node->name, node->fields[i].name);
        break;
    case ZB_AVRO_ARRAY:
    case ZB_AVRO_MAP:
        if ((rc = decode_items(c, node, v)) < 0)
            return rc;
        break;
    case ZB_AVRO_UNION:
        if ((rc = get_long(c, &l)) < 0)
            return rc;
        if (l < 0 || (uint64_t)l >= node->n)
            return corrupt(c, "union branch out of range");
        v->v.u.branch = (int32_t)l;
        if ((v->v.u.value = zb_arena_alloc(c->arena, sizeof *v)) == NULL)
            return nomem(c);
        if ((rc = decode(c, node->branches[l], v->v.u.value)) < 0)
            return rc;
        break;
    default:
        return corrupt(c, "bad schema node");
    }
    c->depth--;
    return ZB_OK;
}

/*
 * Refills the read-ahead window so that it holds [off, off+len): the
 * whole file when it is small, else len and WINDOW_PIECE_BYTES more from
 * off, within the window's cap. Each file read is a request on an object store,
 * so a manifest costs one or two of them instead of three per block.
 */
static int fill_window(zb_avro_reader *r, zb_ctx *ctx, uint64_t off,
                       size_t len)
{
    uint64_t want;
    int rc;

    if (r->size <= WINDOW_WHOLE_FILE_BYTES) {
        off = 0;
        want = r->size;
    } else {
        /* What is asked and a piece beyond it: a block's 20-byte header
         * then brings most of the block, and a block the next one's
         * header, so blocks of about a piece cost a read each. */
        want = (uint64_t)len + WINDOW_PIECE_BYTES;
        if (want > r->window.max_bytes)
            want = len > r->window.max_bytes ? len : r->window.max_bytes;
        if (want > r->size - off)
            want = r->size - off;
    }
    zb_buf_clear(&r->window);
    r->window_off = off;
    if (zb_buf_reserve(&r->window, (size_t)want) < 0)
        return zb_fail(ctx, ZB_ENOMEM, "offset %llu: %llu bytes do not fit "
                       "in the read-ahead cap of %zu",
                       (unsigned long long)off, (unsigned long long)want,
                       r->window.max_bytes);
    if ((rc = zb_io_file_read(r->file, ctx, off, r->window.ptr,
                              (size_t)want)) < 0)
        return rc;
    r->window.len = (size_t)want;
    return ZB_OK;
}

/*
 * Makes bytes [off, off+len) of the file available at *out: a pointer
 * into the caller's memory or into the read-ahead window, valid until
 * the next fetch. buf's cap bounds len as it did when each fetch read
 * into buf.
 */
static int fetch(zb_avro_reader *r, zb_ctx *ctx, uint64_t off, size_t len,
                 zb_buf *buf, const uint8_t **out)
{
    int rc;

    if (off > r->size || len > r->size - off)
        return zb_fail(ctx, ZB_ECORRUPT, "offset %llu: %zu bytes past the "
                       "end of the file", (unsigned long long)off, len);
    if (r->file == NULL) {
        *out = r->mem + off;
        return ZB_OK;
    }
    if (len > buf->max_bytes)
        return zb_fail(ctx, ZB_ENOMEM, "offset %llu: %zu bytes do not fit "
                       "in the cap of %zu", (unsigned long long)off, len,
                       buf->max_bytes);
    if (r->window.ptr == NULL || off < r->window_off ||
        off - r->window_off > r->window.len ||
        len > r->window.len - (off - r->window_off))
        if ((rc = fill_window(r, ctx, off, len)) < 0)
            return rc;
    *out = (const uint8_t *)r->window.ptr + (off - r->window_off);
    return ZB_OK;
}

#define NEED_MORE 1

/* Parses the header in p[0..len); NEED_MORE if it goes past len. */
static int parse_header(zb_avro_reader *r, zb_ctx *ctx, const uint8_t *p,
                        size_t len, int complete)
{
    cur c = { ctx, r->meta_arena, p, len, 0, 0, 1, 0 };
    const char *schema = NULL, *codec = "null";
    size_t schema_len = 0, codec_len = 4, cap = 0;
    int rc;

    if (len < 4)
        return complete ? corrupt(&c, "file shorter than the magic")
                        : NEED_MORE;
    if (memcmp(p, "Obj\x01", 4) != 0)
        return corrupt(&c, "not an Avro object container file (bad magic)");
    c.pos = 4;
    zb_arena_reset(r->meta_arena);
    r->n_meta = 0;
    r->meta = NULL;
    for (;;) {
        int64_t count;
        size_t i, cnt;
        meta_kv *grown;
        if ((rc = get_long(&c, &count)) < 0)
            goto fail;
        if (count == 0)
            break;
        if (count < 0) {
            size_t skip;
            count = count == INT64_MIN ? INT64_MAX : -count;
            if ((rc = get_len(&c, &skip, 0, "block size")) < 0)
                goto fail;
        }
        if ((uint64_t)count > (len - c.pos) / 2) {
            if (!complete)
                return NEED_MORE;
            rc = corrupt(&c, "metadata count past the end of the header");
            goto fail;
        }
        cnt = (size_t)count;
        if ((grown = zb_arena_alloc(r->meta_arena, (cap + cnt) *
                                    sizeof *grown)) == NULL)
            return zb_fail_oom(ctx);
        if (r->n_meta)
            memcpy(grown, r->meta, r->n_meta * sizeof *grown);
        r->meta = grown;
        cap += cnt;
        for (i = 0; i < cnt; i++) {
            meta_kv *kv = &r->meta[r->n_meta];
            size_t kl = 0, vl = 0;
            if ((rc = get_len(&c, &kl, 1, "metadata key length")) < 0)
                goto fail;
            kv->key = zb_arena_strndup(r->meta_arena,
                                       (const char *)p + c.pos, kl);
            c.pos += kl;
            if ((rc = get_len(&c, &vl, 1, "metadata value length")) < 0)
                goto fail;
            /* Values are bytes: a NUL inside must not cut them. */
            if ((kv->value = zb_arena_alloc(r->meta_arena, vl + 1)) != NULL) {
                memcpy(kv->value, p + c.pos, vl);
                kv->value[vl] = '\0';
            }
            if (kv->key == NULL || kv->value == NULL)
                return zb_fail_oom(ctx);
            kv->value_len = vl;
            c.pos += vl;
            r->n_meta++;
            if (strcmp(kv->key, "avro.schema") == 0) {
                schema = kv->value;
                schema_len = vl;
            } else if (strcmp(kv->key, "avro.codec") == 0) {
                codec = kv->value;
                codec_len = vl;
            }
        }
    }
    if ((rc = need(&c, 16, "sync marker")) < 0)
        goto fail;
    memcpy(r->sync, p + c.pos, 16);
    c.pos += 16;
    r->next_off = c.pos;
    if (schema == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "header: no avro.schema");
    if ((r->codec = zb_avro__codec_from_name(codec, codec_len)) < 0)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "header: codec \"%.32s\" is not "
                       "supported", codec);
    return zb_avro_schema_get(&r->schema, ctx, schema, schema_len);
fail:
    if (!complete && rc == ZB_ECORRUPT)
        return NEED_MORE;
    return zb_err_prefix(ctx, "header");
}

static int read_header(zb_avro_reader *r, zb_ctx *ctx)
{
    size_t window = 65536;
    zb_buf hb = ZB_BUF_INIT(r->opts.max_header_bytes);
    int rc;

    for (;;) {
        const uint8_t *p = NULL;
        int complete = 0;
        if (window >= r->size) {
            window = (size_t)r->size;
            complete = 1;
        } else if (window >= r->opts.max_header_bytes) {
            window = r->opts.max_header_bytes;
            complete = 1;
        }
        if ((rc = fetch(r, ctx, 0, window, &hb, &p)) < 0)
            break;
        if ((rc = parse_header(r, ctx, p, window, complete)) != NEED_MORE)
            break;
        zb_err_clear(&ctx->err);
        window *= 2;
    }
    zb_buf_free(&hb);
    return rc;
}

/* The window holds a whole small file, or one header or block at most. */
static size_t read_ahead_cap(const zb_avro_reader_opts *o)
{
    size_t cap = (size_t)WINDOW_WHOLE_FILE_BYTES;

    if (o->max_block_bytes + 16 > cap)
        cap = o->max_block_bytes + 16;
    if (o->max_header_bytes > cap)
        cap = o->max_header_bytes;
    return cap;
}

static int reader_init(zb_avro_reader **out, zb_ctx *ctx, const char *name,
                       const zb_avro_reader_opts *opts, zb_avro_reader **rp)
{
    zb_avro_reader_opts def = ZB_AVRO_READER_OPTS_INIT;
    zb_avro_reader *r;

    *out = NULL;
    if ((r = zb_calloc(1, sizeof *r)) == NULL)
        return zb_fail_oom(ctx);
    *rp = r;
    r->opts = opts ? *opts : def;
    if ((r->name = zb_strdup(name)) == NULL ||
        zb_arena_new(&r->meta_arena, r->opts.max_header_bytes * 2 + 4096) < 0
        || zb_arena_new(&r->arena, r->opts.max_record_bytes) < 0)
        return zb_fail_oom(ctx);
    zb_buf_init(&r->window, read_ahead_cap(&r->opts));
    zb_buf_init(&r->raw, r->opts.max_block_bytes + 16);
    zb_buf_init(&r->data, r->opts.max_block_bytes);
    return ZB_OK;
}

static int reader_finish(zb_avro_reader **out, zb_ctx *ctx,
                         zb_avro_reader *r, int rc)
{
    if (rc == ZB_OK)
        rc = read_header(r, ctx);
    if (rc < 0) {
        if (r != NULL && r->name != NULL)
            zb_err_prefix(ctx, "%s", r->name);
        zb_avro_reader_free(r);
        return rc;
    }
    *out = r;
    return ZB_OK;
}

int zb_avro_reader_open(zb_avro_reader **out, zb_io *io, zb_ctx *ctx,
                        const char *uri, const zb_avro_reader_opts *opts)
{
    zb_avro_reader *r = NULL;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri);
    if ((rc = reader_init(out, ctx, uri, opts, &r)) == ZB_OK &&
        (rc = zb_io_open(&r->file, io, ctx, uri)) == ZB_OK)
        r->size = zb_io_file_size(r->file);
    return reader_finish(out, ctx, r, rc);
}

int zb_avro_reader_open_mem(zb_avro_reader **out, zb_ctx *ctx,
                            const char *name, const void *data, size_t len,
                            const zb_avro_reader_opts *opts)
{
    zb_avro_reader *r = NULL;
    int rc;

    ZB_ASSERT_ARG(out && ctx && name && (data || len == 0));
    if ((rc = reader_init(out, ctx, name, opts, &r)) == ZB_OK) {
        r->mem = data;
        r->size = len;
    }
    return reader_finish(out, ctx, r, rc);
}

/* Loads the block at next_off; 0 at the end of the file. */
static int load_block(zb_avro_reader *r, zb_ctx *ctx)
{
    uint8_t hdr[20];
    const uint8_t *p = NULL;
    size_t hlen = 20, size;
    int64_t count, bytes, max_count;
    cur c;
    int rc;

    if (r->next_off == r->size)
        return 0;
    r->block_off = r->next_off;
    if (r->size - r->block_off < hlen)
        hlen = (size_t)(r->size - r->block_off);
    if ((rc = fetch(r, ctx, r->block_off, hlen, &r->raw, &p)) < 0)
        return rc;
    memcpy(hdr, p, hlen);
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.p = hdr;
    c.len = hlen;
    c.base = r->block_off;
    c.in_file = 1;
    if ((rc = get_long(&c, &count)) < 0)
        return rc;
    if (count < 0)
        return corrupt(&c, "negative block count");
    if ((rc = get_long(&c, &bytes)) < 0)
        return rc;
    if (bytes < 0 || (uint64_t)bytes > r->size - r->block_off - c.pos ||
        r->size - r->block_off - c.pos - (uint64_t)bytes < 16)
        return corrupt(&c, "block size past the end of the file");
    if ((uint64_t)bytes > r->opts.max_block_bytes)
        return zb_fail(ctx, ZB_ENOMEM, "offset %llu: block of %lld bytes "
                       "passes the cap of %zu",
                       (unsigned long long)r->block_off, (long long)bytes,
                       r->opts.max_block_bytes);
    size = (size_t)bytes;
    r->data_off = r->block_off + c.pos;
    r->next_off = r->data_off + size + 16;
    if (r->codec == ZB_AVRO_CODEC_NULL) {
        if ((rc = fetch(r, ctx, r->data_off, size + 16, &r->data, &p)) < 0)
            return rc;
        r->blk = p;
        r->blk_len = size;
    } else {
        if ((rc = fetch(r, ctx, r->data_off, size + 16, &r->raw, &p)) < 0)
            return rc;
        if (memcmp(p + size, r->sync, 16) != 0)
            return zb_fail(ctx, ZB_ECORRUPT, "offset %llu: sync marker does "
                           "not match the header's",
                           (unsigned long long)(r->data_off + size));
        if ((rc = zb_avro__decompress(ctx, r->codec, p, size, &r->data)) < 0)
            return zb_err_prefix(ctx, "offset %llu",
                                 (unsigned long long)r->data_off);
        r->blk = (const uint8_t *)r->data.ptr;
        r->blk_len = r->data.len;
        p = NULL;
    }
    if (p != NULL && memcmp(p + size, r->sync, 16) != 0)
        return zb_fail(ctx, ZB_ECORRUPT, "offset %llu: sync marker does not "
                       "match the header's",
                       (unsigned long long)(r->data_off + size));
    max_count = r->schema->root->min_bytes
                    ? (int64_t)(r->blk_len / r->schema->root->min_bytes)
                    : MAX_EMPTY_RECORDS;
    if (count > max_count)
        return zb_fail(ctx, ZB_ECORRUPT, "offset %llu: block count %lld "
                       "cannot fit in %zu bytes",
                       (unsigned long long)r->block_off, (long long)count,
                       r->blk_len);
    r->pos = 0;
    r->left = count;
    r->rec = 0;
    r->block_index++;
    return 1;
}

int zb_avro_reader_next(zb_avro_reader *r, zb_ctx *ctx,
                        const zb_avro_value **out)
{
    zb_avro_value *v;
    cur c;
    int rc;

    ZB_ASSERT_ARG(r && ctx && out);
    *out = NULL;
    while (r->left == 0) {
        if (r->block_index > 0 && r->pos != r->blk_len) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "block at offset %llu: %zu bytes "
                         "left after its last record",
                         (unsigned long long)r->block_off,
                         r->blk_len - r->pos);
            r->pos = r->blk_len;
            return zb_err_prefix(ctx, "%s", r->name);
        }
        if ((rc = load_block(r, ctx)) <= 0) {
            if (rc < 0) {
                r->next_off = r->size; /* do not loop on a bad block */
                r->left = 0;
                r->pos = r->blk_len;
                zb_err_prefix(ctx, "%s: block %llu", r->name,
                              (unsigned long long)r->block_index);
            }
            return rc;
        }
    }
    zb_arena_reset(r->arena);
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.arena = r->arena;
    c.p = r->blk;
    c.len = r->blk_len;
    c.pos = r->pos;
    c.in_file = r->codec == ZB_AVRO_CODEC_NULL;
    c.base = c.in_file ? r->data_off : 0;
    if ((v = zb_arena_alloc(r->arena, sizeof *v)) == NULL)
        rc = nomem(&c);
    else
        rc = decode(&c, r->schema->root, v);
    if (rc < 0) {
        r->left = 0;
        r->pos = r->blk_len;
        r->next_off = r->size;
        return zb_err_prefix(ctx, "%s: block %llu at offset %llu, record "
                             "%lld", r->name,
                             (unsigned long long)r->block_index - 1,
                             (unsigned long long)r->block_off,
                             (long long)r->rec);
    }
    r->pos = c.pos;
    r->left--;
    r->rec++;
    *out = v;
    return 1;
}

const zb_avro_schema *zb_avro_reader_schema(const zb_avro_reader *r)
{
    return r->schema;
}

const char *zb_avro_reader_codec(const zb_avro_reader *r)
{
    return zb_avro__codec_name(r->codec);
}

size_t zb_avro_reader_meta_count(const zb_avro_reader *r)
{
    return r->n_meta;
}

const char *zb_avro_reader_meta_at(const zb_avro_reader *r, size_t i,
                                   const char **value, size_t *value_len)
{
    if (i >= r->n_meta)
        return NULL;
    if (value)
        *value = r->meta[i].value;
    if (value_len)
        *value_len = r->meta[i].value_len;
    return r->meta[i].key;
}

const char *zb_avro_reader_meta_get(const zb_avro_reader *r, const char *key,
                                    size_t *value_len)
{
    size_t i;

    for (i = 0; i < r->n_meta; i++)
        if (strcmp(r->meta[i].key, key) == 0) {
            if (value_len)
                *value_len = r->meta[i].value_len;
            return r->meta[i].value;
        }
    return NULL;
}

void zb_avro_reader_free(zb_avro_reader *r)
{
    if (r == NULL)
        return;
    zb_io_file_close(r->file);
    zb_avro_schema_free(r->schema);
    zb_arena_free(r->meta_arena);
    zb_arena_free(r->arena);
    zb_buf_free(&r->window);
    zb_buf_free(&r->raw);
    zb_buf_free(&r->data);
    zb_free(r->name);
    zb_free(r);
}

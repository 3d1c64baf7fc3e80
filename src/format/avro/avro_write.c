/*
 * format/avro/avro_write.c - writing Avro object container files (Avro
 * 1.11 spec, "Object Container Files", "Binary Encoding").
 *
 * Call order: open parses the schema (for checking values) and writes the
 * header through a zb_io_writer: magic "Obj\1", one metadata block with
 * avro.schema (the caller's text, byte for byte, so Iceberg's field-id and
 * other attributes are kept), avro.codec and the caller's entries, then a
 * 16-byte sync marker. append encodes one record into the block buffer,
 * walking the schema and the value together and refusing a value whose
 * type, union branch, enum index or fixed size does not fit (the buffer
 * is cut back to where the record started); when the buffer reaches
 * opts.block_bytes the block is compressed (avro_codec.c) and written as
 * count, size, data and the sync marker. commit writes the last block
 * and commits the file; abort drops it.
 *
 * The sync marker only has to be unlikely to occur in the data; it is
 * made from the clock, the writer's address and a counter through
 * splitmix64, which is enough for that and needs no entropy source.
 */
#define ZB_MODULE "avro"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "format/avro/avro_int.h"
#include "io/io.h"
#include "util/alloc.h"
#include "util/err.h"

/* A record larger than this is refused (the block buffer's cap). */
#define MAX_RECORD_BYTES ((size_t)256 << 20)

struct zb_avro_writer {
    char *name;
    zb_io_writer *out;
    zb_avro_schema *schema;
    zb_avro_writer_opts opts;
    uint8_t sync[16];
    zb_buf block;
    zb_buf comp;
    int64_t block_count;
    uint64_t records;
};

typedef struct enc {
    zb_ctx *ctx;
    zb_buf *b;
    int depth;
} enc;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void make_sync(uint8_t sync[16], const void *salt)
{
    static atomic_uint counter;   /* writers on several threads */
    struct timespec ts;
    uint64_t st, a, b;

    clock_gettime(CLOCK_REALTIME, &ts);
    st = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    st ^= (uint64_t)(uintptr_t)salt ^
          ((uint64_t)(atomic_fetch_add(&counter, 1) + 1) << 48);
    a = splitmix64(&st);
    b = splitmix64(&st);
    memcpy(sync, &a, 8);
    memcpy(sync + 8, &b, 8);
}

static int put(enc *e, const void *p, size_t n)
{
    if (zb_buf_append(e->b, p, n) < 0)
        return zb_fail(e->ctx, ZB_ENOMEM, "record passes %zu bytes or out "
                       "of memory", e->b->max_bytes);
    return ZB_OK;
}

static int put_long(enc *e, int64_t v)
{
    uint8_t tmp[10];

    return put(e, tmp, zb_avro__put_long(tmp, v));
}

static int mismatch(enc *e, const zb_avro_node *node, const char *what)
{
    return zb_fail(e->ctx, ZB_EINVAL, "%s %s: %s",
                   zb_avro_type_name(node->type),
                   node->name ? node->name : "value", what);
}

static int encode(enc *e, const zb_avro_node *node, const zb_avro_value *v)
{
    uint8_t tmp[8];
    size_t i;
    int rc;

    if (v == NULL || v->type != node->type) {
        char msg[64];
        snprintf(msg, sizeof msg, "value of type %s given",
                 v ? zb_avro_type_name(v->type) : "(none)");
        return mismatch(e, node, msg);
    }
    switch (node->type) {
    case ZB_AVRO_NULL:
        return ZB_OK;
    case ZB_AVRO_BOOLEAN:
        tmp[0] = v->v.boolean ? 1 : 0;
        return put(e, tmp, 1);
    case ZB_AVRO_INT:
        return put_long(e, v->v.i32);
    case ZB_AVRO_ENUM:
        if (v->v.i32 < 0 || (size_t)v->v.i32 >= node->n)
            return mismatch(e, node, "symbol index out of range");
        return put_long(e, v->v.i32);
    case ZB_AVRO_LONG:
        return put_long(e, v->v.i64);
    case ZB_AVRO_FLOAT: {
        uint32_t u;
        memcpy(&u, &v->v.f32, 4);
        for (i = 0; i < 4; i++)
            tmp[i] = (uint8_t)(u >> (8 * i));
        return put(e, tmp, 4);
    }
    case ZB_AVRO_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->v.f64, 8);
        for (i = 0; i < 8; i++)
            tmp[i] = (uint8_t)(u >> (8 * i));
        return put(e, tmp, 8);
    }
    case ZB_AVRO_FIXED:
        if (v->v.bytes.len != node->fixed_bytes)
            return mismatch(e, node, "wrong number of bytes");
        return put(e, v->v.bytes.ptr, v->v.bytes.len);
    case ZB_AVRO_BYTES:
        if ((rc = put_long(e, (int64_t)v->v.bytes.len)) < 0)
            return rc;
        return put(e, v->v.bytes.ptr, v->v.bytes.len);
    case ZB_AVRO_STRING:
        if ((rc = put_long(e, (int64_t)v->v.str.len)) < 0)
            return rc;
        return put(e, v->v.str.ptr, v->v.str.len);
    default:
        break;
    }
    if (++e->depth > ZB_AVRO_MAX_DEPTH)
        return mismatch(e, node, "values nested too deep");
    switch (node->type) {
    case ZB_AVRO_RECORD:
        if (v->v.list.n != node->n)
            return mismatch(e, node, "wrong number of fields");
        for (i = 0; i < node->n; i++)
            if ((rc = encode(e, node->fields[i].type,
                             &v->v.list.items[i])) < 0)
                return zb_err_prefix(e->ctx, "record %s field %s",
                                     node->name, node->fields[i].name);
        break;
    case ZB_AVRO_ARRAY:
    case ZB_AVRO_MAP: {
        size_t n = node->type == ZB_AVRO_MAP ? v->v.map.n : v->v.list.n;
        if (n > 0) {
            if ((rc = put_long(e, (int64_t)n)) < 0)
                return rc;
            for (i = 0; i < n; i++) {
                if (node->type == ZB_AVRO_MAP) {
                    const zb_avro_map_entry *me = &v->v.map.entries[i];
                    if ((rc = put_long(e, (int64_t)me->key_len)) < 0 ||
                        (rc = put(e, me->key, me->key_len)) < 0)
                        return rc;
                    if ((rc = encode(e, node->items, me->value)) < 0)
                        return zb_err_prefix(e->ctx, "map key \"%.40s\"",
                                             me->key);
                } else if ((rc = encode(e, node->items,
                                        &v->v.list.items[i])) < 0) {
                    return zb_err_prefix(e->ctx, "array item %zu", i);
                }
            }
        }
        if ((rc = put_long(e, 0)) < 0)
            return rc;
        break;
    }
    case ZB_AVRO_UNION:
        if (v->v.u.branch < 0 || (size_t)v->v.u.branch >= node->n)
            return mismatch(e, node, "branch out of range");
        if ((rc = put_long(e, v->v.u.branch)) < 0 ||
            (rc = encode(e, node->branches[v->v.u.branch], v->v.u.value)) < 0)
            return rc;
        break;
    default:
        return mismatch(e, node, "bad schema node");
    }
    e->depth--;
    return ZB_OK;
}

static int write_bytes(zb_avro_writer *w, zb_ctx *ctx, const void *p,
                       size_t n)
{
    return zb_io_writer_write(w->out, ctx, p, n);
}

static int write_long(zb_avro_writer *w, zb_ctx *ctx, int64_t v)
{
    uint8_t tmp[10];

    return write_bytes(w, ctx, tmp, zb_avro__put_long(tmp, v));
}

static int write_str(zb_avro_writer *w, zb_ctx *ctx, const char *s,
                     size_t n)
{
    int rc;

    if ((rc = write_long(w, ctx, (int64_t)n)) < 0)
        return rc;
    return write_bytes(w, ctx, s, n);
}

static int flush_block(zb_avro_writer *w, zb_ctx *ctx)
{
    int rc;

    if (w->block_count == 0)
        return ZB_OK;
    if ((rc = zb_avro__compress(ctx, w->opts.codec, w->opts.level,
                                (const uint8_t *)w->block.ptr, w->block.len,
                                &w->comp)) < 0 ||
        (rc = write_long(w, ctx, w->block_count)) < 0 ||
        (rc = write_long(w, ctx, (int64_t)w->comp.len)) < 0 ||
        (rc = write_bytes(w, ctx, w->comp.ptr, w->comp.len)) < 0 ||
        (rc = write_bytes(w, ctx, w->sync, 16)) < 0)
        return rc;
    zb_buf_clear(&w->block);
    w->block_count = 0;
    return ZB_OK;
}

int zb_avro_writer_open(zb_avro_writer **out, zb_io *io, zb_ctx *ctx,
                        const char *uri, const char *schema_json,
                        const zb_avro_meta *meta, size_t n_meta,
                        const zb_avro_writer_opts *opts)
{
    zb_avro_writer_opts def = ZB_AVRO_WRITER_OPTS_INIT;
    zb_avro_writer *w = NULL;
    const char *codec;
    size_t i, cap;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri && schema_json &&
                  (meta || n_meta == 0));
    *out = NULL;
    for (i = 0; i < n_meta; i++)
        if (strncmp(meta[i].key, "avro.", 5) == 0)
            return zb_fail(ctx, ZB_EINVAL, "%s: metadata key \"%s\" is "
                           "reserved", uri, meta[i].key);
    if ((w = zb_calloc(1, sizeof *w)) == NULL ||
        (w->name = zb_strdup(uri)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    w->opts = opts ? *opts : def;
    if (w->opts.block_bytes == 0)
        w->opts.block_bytes = def.block_bytes;
    if ((unsigned)w->opts.codec > ZB_AVRO_CODEC_ZSTD) {
        rc = zb_fail(ctx, ZB_EINVAL, "%s: unknown codec %d", uri,
                     (int)w->opts.codec);
        goto done;
    }
    cap = w->opts.block_bytes + MAX_RECORD_BYTES;
    zb_buf_init(&w->block, cap);
    zb_buf_init(&w->comp, cap * 2);
    make_sync(w->sync, w);
    if ((rc = zb_avro_schema_get(&w->schema, ctx, schema_json,
                                   strlen(schema_json))) < 0 ||
        (rc = zb_io_writer_open(&w->out, io, ctx, uri)) < 0)
        goto done;
    codec = zb_avro__codec_name(w->opts.codec);
    if ((rc = write_bytes(w, ctx, "Obj\x01", 4)) < 0 ||
        (rc = write_long(w, ctx, (int64_t)n_meta + 2)) < 0 ||
        (rc = write_str(w, ctx, "avro.schema", 11)) < 0 ||
        (rc = write_str(w, ctx, schema_json, strlen(schema_json))) < 0 ||
        (rc = write_str(w, ctx, "avro.codec", 10)) < 0 ||
        (rc = write_str(w, ctx, codec, strlen(codec))) < 0)
        goto done;
    for (i = 0; i < n_meta; i++)
        if ((rc = write_str(w, ctx, meta[i].key, strlen(meta[i].key))) < 0 ||
            (rc = write_str(w, ctx, meta[i].value, meta[i].value_len)) < 0)
            goto done;
    if ((rc = write_long(w, ctx, 0)) < 0 ||
        (rc = write_bytes(w, ctx, w->sync, 16)) < 0)
        goto done;
    *out = w;
    w = NULL;
done:
    if (w != NULL && rc < 0 && w->name != NULL)
        zb_err_prefix(ctx, "%s", w->name);
    zb_avro_writer_abort(w);
    return rc;
}

const zb_avro_schema *zb_avro_writer_schema(const zb_avro_writer *w)
{
    return w->schema;
}

int zb_avro_writer_append(zb_avro_writer *w, zb_ctx *ctx,
                          const zb_avro_value *record)
{
    enc e = { ctx, &w->block, 0 };
    size_t mark = w->block.len;
    int rc;

    ZB_ASSERT_ARG(w && ctx && record);
    if ((rc = encode(&e, w->schema->root, record)) < 0) {
        zb_buf_truncate(&w->block, mark);
        return zb_err_prefix(ctx, "%s: record %llu", w->name,
                             (unsigned long long)w->records);
    }
    w->block_count++;
    w->records++;
    if (w->block.len >= w->opts.block_bytes &&
        (rc = flush_block(w, ctx)) < 0)
        return zb_err_prefix(ctx, "%s", w->name);
    return ZB_OK;
}

uint64_t zb_avro_writer_records(const zb_avro_writer *w)
{
    return w->records;
}

int zb_avro_writer_commit(zb_avro_writer *w, zb_ctx *ctx)
{
    int rc;

    ZB_ASSERT_ARG(w && ctx);
    if ((rc = flush_block(w, ctx)) < 0) {
        zb_err_prefix(ctx, "%s", w->name);
        zb_avro_writer_abort(w);
        return rc;
    }
    rc = zb_io_writer_commit(w->out, ctx);
    w->out = NULL;
    zb_avro_writer_abort(w);
    return rc;
}

void zb_avro_writer_abort(zb_avro_writer *w)
{
    if (w == NULL)
        return;
    if (w->out != NULL)
        zb_io_writer_abort(w->out);
    zb_avro_schema_free(w->schema);
    zb_buf_free(&w->block);
    zb_buf_free(&w->comp);
    zb_free(w->name);
    zb_free(w);
}

/*
 * table/manifest/manifest_write.c - writes one manifest (format/spec.md
 * "Manifests") and sums it up as a manifest-list entry.
 *
 * Call order: ice_manifest_writer_open (derives the partition types from
 * the spec's transforms and the schema, generates the Avro schema in
 * manifest_schema.c, writes the header with the metadata keys schema,
 * schema-id, partition-spec, partition-spec-id, format-version and, for
 * v2+, content), ice_manifest_writer_add per entry, then
 * ice_manifest_writer_commit, which returns the ice_manifest_file to put
 * in a manifest list.
 *
 * Each entry is built as an Avro value tree in an arena that is reset per
 * entry, by walking the same field tables the schema came from, so
 * memory does not grow with the number of entries. Values are written as
 * given: bounds are the caller's Appendix D bytes, inherited values are
 * null unless their ICE_ENTRY_*_EXPLICIT bit is set.
 *
 * The partition summaries (contains_null, contains_nan, lower and upper
 * bound) are kept per field as serialized bytes; a candidate bound is
 * compared with ice_value_cmp after decoding the kept bytes, so the
 * writer never holds pointers into the caller's entries.
 */
#define ZB_MODULE "table"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "table/manifest/manifest_int.h"
#include "util/alloc.h"
#include "util/err.h"

typedef struct part_sum {
    int contains_null;
    int contains_nan;
    int has_bounds;
    zb_buf lower;
    zb_buf upper;
} part_sum;

struct ice_manifest_writer {
    zb_avro_writer *avro;
    zb_io *io;
    zb_arena *arena;
    char *uri;
    ice_manifest_writer_opts opts;
    int version;
    size_t n_part;
    ice_prim *types;
    part_sum *sums;
    int64_t counts[3];             /* files by status */
    int64_t rows[3];
    int64_t min_seq;
    int64_t n_live;
    zb_buf scratch;
};

int ice_manifest_writer_open(ice_manifest_writer **out, zb_io *io,
                             zb_ctx *ctx, const char *uri,
                             const ice_manifest_writer_opts *opts)
{
    ice_manifest_writer *w = NULL;
    zb_buf schema = ZB_BUF_INIT((size_t)16 << 20);
    zb_buf tschema = ZB_BUF_INIT((size_t)64 << 20);
    zb_buf pspec = ZB_BUF_INIT((size_t)16 << 20);
    char sid[16], pid[16], ver[8];
    zb_avro_meta meta[6];
    zb_avro_writer_opts ao = ZB_AVRO_WRITER_OPTS_INIT;
    size_t n_meta = 0, i;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri && opts && opts->schema &&
                  opts->spec);
    *out = NULL;
    if (opts->format_version < 1 || opts->format_version > 3)
        return zb_fail(ctx, ZB_EINVAL, "manifest: format version %d",
                       opts->format_version);
    if (opts->format_version == 1 && opts->content != ICE_MANIFEST_DATA)
        return zb_fail(ctx, ZB_EINVAL, "manifest: v1 has no delete"
                       " manifests");
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->io = io;
    w->opts = *opts;
    w->version = opts->format_version;
    w->n_part = opts->spec->n_fields;
    w->min_seq = INT64_MAX;
    zb_buf_init(&w->scratch, 1 << 20);
    if ((w->uri = zb_strdup(uri)) == NULL ||
        zb_arena_new(&w->arena, (size_t)64 << 20) < 0 ||
        (w->n_part > 0 &&
         ((w->types = zb_calloc(w->n_part, sizeof *w->types)) == NULL ||
          (w->sums = zb_calloc(w->n_part, sizeof *w->sums)) == NULL))) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < w->n_part; i++) {
        zb_buf_init(&w->sums[i].lower, 1 << 20);
        zb_buf_init(&w->sums[i].upper, 1 << 20);
    }
    if (w->n_part > 0 &&
        (rc = mf__partition_types(w->types, ctx, opts->schema, opts->spec)) < 0)
        goto done;
    if ((rc = ice_manifest_avro_schema(&schema, ctx, w->version,
                                       opts->schema, opts->spec)) < 0 ||
        (rc = ice_schema_to_json(&tschema, ctx, opts->schema)) < 0)
        goto done;
    if (ice_partition_fields_to_json(&pspec, opts->spec) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    snprintf(sid, sizeof sid, "%d", (int)opts->schema->schema_id);
    snprintf(pid, sizeof pid, "%d", (int)opts->spec->spec_id);
    snprintf(ver, sizeof ver, "%d", w->version);
    meta[n_meta++] = (zb_avro_meta){ "schema", tschema.ptr, tschema.len };
    meta[n_meta++] = (zb_avro_meta){ "schema-id", sid, strlen(sid) };
    meta[n_meta++] = (zb_avro_meta){ "partition-spec", pspec.ptr, pspec.len };
    meta[n_meta++] = (zb_avro_meta){ "partition-spec-id", pid, strlen(pid) };
    meta[n_meta++] = (zb_avro_meta){ "format-version", ver, strlen(ver) };
    if (w->version >= 2)
        meta[n_meta++] = (zb_avro_meta){ "content",
            opts->content == ICE_MANIFEST_DELETES ? "deletes" : "data",
            opts->content == ICE_MANIFEST_DELETES ? 7 : 4 };
    ao.codec = opts->codec;
    if ((rc = zb_avro_writer_open(&w->avro, io, ctx, uri, schema.ptr, meta,
                                  n_meta, &ao)) < 0)
        goto done;
    *out = w;
    w = NULL;
done:
    zb_buf_free(&schema);
    zb_buf_free(&tschema);
    zb_buf_free(&pspec);
    ice_manifest_writer_abort(w);
    return rc;
}

/* ---- partition values ---- */

static int type_matches(const ice_prim *t, const ice_value *v)
{
    return v->type == t->id;
}

/* The Avro value of partition value pv (type t) into slot. */
static int put_partition_value(ice_manifest_writer *w, zb_ctx *ctx,
                               mf_build *b, zb_avro_value *slot,
                               const ice_prim *t, const ice_value *pv,
                               const char *name)
{
    zb_avro_value *x;

    if (!pv->is_null && !type_matches(t, pv))
        return zb_fail(ctx, ZB_EINVAL, "%s: partition field %s: a %s value"
                       " for a %s field", w->uri, name,
                       ice_type_name(pv->type), ice_type_name(t->id));
    if ((x = mfb_field(b, slot, 1, !pv->is_null)) == NULL)
        return b->oom ? zb_fail_oom(ctx) : ZB_OK;
    switch (t->id) {
    case ICE_BOOLEAN: mfb_bool(x, pv->u.b); break;
    case ICE_INT:
    case ICE_DATE: mfb_int(x, pv->u.i); break;
    case ICE_LONG:
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS: mfb_long(x, pv->u.l); break;
    case ICE_FLOAT: x->type = ZB_AVRO_FLOAT; x->v.f32 = pv->u.f; break;
    case ICE_DOUBLE: x->type = ZB_AVRO_DOUBLE; x->v.f64 = pv->u.d; break;
    case ICE_STRING:
        x->type = ZB_AVRO_STRING;
        x->v.str.ptr = (const char *)pv->u.bin.ptr;
        x->v.str.len = pv->u.bin.len;
        break;
    case ICE_BINARY: mfb_bytes(x, pv->u.bin.ptr, pv->u.bin.len); break;
    case ICE_FIXED:
        if (pv->u.bin.len != (size_t)t->length)
            return zb_fail(ctx, ZB_EINVAL, "%s: partition field %s: %zu"
                           " bytes for fixed[%d]", w->uri, name,
                           pv->u.bin.len, (int)t->length);
        mfb_bytes(x, pv->u.bin.ptr, pv->u.bin.len);
        x->type = ZB_AVRO_FIXED;
        break;
    case ICE_UUID: {
        uint8_t *p = zb_arena_alloc(b->arena, 16);
        if (p == NULL)
            return zb_fail_oom(ctx);
        memcpy(p, pv->u.uuid, 16);
        mfb_bytes(x, p, 16);
        x->type = ZB_AVRO_FIXED;
        break;
    }
    case ICE_DECIMAL: {
        uint8_t be[16];
        size_t n = ice_i128_to_min_be(be, pv->u.dec.unscaled);
        size_t size = mf__decimal_bytes(t->precision);
        uint8_t *p;
        if (pv->u.dec.scale != t->scale || n > size)
            return zb_fail(ctx, ZB_EINVAL, "%s: partition field %s: decimal"
                           " does not fit decimal(%d, %d)", w->uri, name,
                           (int)t->precision, (int)t->scale);
        if ((p = zb_arena_alloc(b->arena, size)) == NULL)
            return zb_fail_oom(ctx);
        memset(p, (be[0] & 0x80) ? 0xff : 0x00, size - n);
        memcpy(p + size - n, be, n);
        mfb_bytes(x, p, size);
        x->type = ZB_AVRO_FIXED;
        break;
    }
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: partition field %s: type"
                       " %s", w->uri, name, ice_type_name(t->id));
    }
    return ZB_OK;
}

/* Widens the summary of field i with value pv. */
static int summarize(ice_manifest_writer *w, zb_ctx *ctx, size_t i,
                     const ice_value *pv)
{
    part_sum *s = &w->sums[i];
    ice_value cur;
    int rc;

    if (pv->is_null) {
        s->contains_null = 1;
        return ZB_OK;
    }
    if ((pv->type == ICE_FLOAT && isnan(pv->u.f)) ||
        (pv->type == ICE_DOUBLE && isnan(pv->u.d))) {
        s->contains_nan = 1;
        return ZB_OK;
    }
    zb_buf_clear(&w->scratch);
    if ((rc = ice_value_to_bytes(&w->scratch, ctx, pv)) < 0)
        return rc;
    if (!s->has_bounds) {
        s->has_bounds = 1;
        if (zb_buf_append(&s->lower, w->scratch.ptr, w->scratch.len) < 0 ||
            zb_buf_append(&s->upper, w->scratch.ptr, w->scratch.len) < 0)
            return zb_fail_oom(ctx);
        return ZB_OK;
    }
    if ((rc = ice_value_from_bytes(&cur, ctx, &w->types[i], s->lower.ptr,
                                   s->lower.len)) < 0)
        return rc;
    if (ice_value_cmp(pv, &cur) < 0) {
        zb_buf_clear(&s->lower);
        if (zb_buf_append(&s->lower, w->scratch.ptr, w->scratch.len) < 0)
            return zb_fail_oom(ctx);
    }
    if ((rc = ice_value_from_bytes(&cur, ctx, &w->types[i], s->upper.ptr,
                                   s->upper.len)) < 0)
        return rc;
    if (ice_value_cmp(pv, &cur) > 0) {
        zb_buf_clear(&s->upper);
        if (zb_buf_append(&s->upper, w->scratch.ptr, w->scratch.len) < 0)
            return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

/* ---- entries ---- */

static void put_long_map(mf_build *b, zb_avro_value *slot, int opt,
                         const ice_long_map *m)
{
    zb_avro_value *x = mfb_field(b, slot, opt, m->has), *items;
    size_t i;

    if (x == NULL || (items = mfb_array(b, x, m->n)) == NULL)
        return;
    for (i = 0; i < m->n; i++) {
        zb_avro_value *kv = mfb_record(b, &items[i], 2);
        if (kv == NULL)
            return;
        mfb_int(&kv[0], m->items[i].field_id);
        mfb_long(&kv[1], m->items[i].value);
    }
}

static void put_bytes_map(mf_build *b, zb_avro_value *slot, int opt,
                          const ice_bytes_map *m)
{
    zb_avro_value *x = mfb_field(b, slot, opt, m->has), *items;
    size_t i;

    if (x == NULL || (items = mfb_array(b, x, m->n)) == NULL)
        return;
    for (i = 0; i < m->n; i++) {
        zb_avro_value *kv = mfb_record(b, &items[i], 2);
        if (kv == NULL)
            return;
        mfb_int(&kv[0], m->items[i].field_id);
        mfb_bytes(&kv[1], m->items[i].ptr, m->items[i].len);
    }
}

static int check_entry(ice_manifest_writer *w, zb_ctx *ctx,
                       const ice_manifest_entry *e)
{
    const ice_data_file *f = &e->data_file;
    int deletes = f->content != ICE_CONTENT_DATA;

    if ((unsigned)e->status > 2 || (unsigned)f->content > 2 ||
        f->file_path == NULL || f->file_format == NULL)
        return zb_fail(ctx, ZB_EINVAL, "%s: entry lacks status, content,"
                       " file_path or file_format", w->uri);
    if (f->n_partition != w->n_part)
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: %zu partition values for %zu"
                       " partition fields", w->uri, f->file_path,
                       f->n_partition, w->n_part);
    if (deletes != (w->opts.content == ICE_MANIFEST_DELETES))
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: a %s file in a %s manifest",
                       w->uri, f->file_path, deletes ? "delete" : "data",
                       deletes ? "data" : "delete");
    if (w->version == 1 && e->snapshot_id == ICE_NULL_LONG)
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: v1 entries need a"
                       " snapshot_id", w->uri, f->file_path);
    if (w->version < 3 && (f->content_offset != ICE_NULL_LONG ||
                           f->content_size_in_bytes != ICE_NULL_LONG))
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: deletion vectors need"
                       " format version 3", w->uri, f->file_path);
    if (f->content == ICE_CONTENT_EQUALITY_DELETES && !f->has_equality_ids)
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: equality delete file without"
                       " equality_ids", w->uri, f->file_path);
    if (e->status != ICE_STATUS_ADDED && w->version >= 2 &&
        (!(e->explicit_mask & ICE_ENTRY_SEQ_EXPLICIT) ||
         !(e->explicit_mask & ICE_ENTRY_FILE_SEQ_EXPLICIT)))
        return zb_fail(ctx, ZB_EINVAL, "%s: %s: EXISTING and DELETED entries"
                       " need explicit sequence numbers", w->uri,
                       f->file_path);
    return ZB_OK;
}

static int build_data_file(ice_manifest_writer *w, zb_ctx *ctx, mf_build *b,
                           zb_avro_value *slot, const ice_manifest_entry *e)
{
    const ice_data_file *f = &e->data_file;
    const mf_desc *d;
    zb_avro_value *items;
    size_t n = 0, i, k;
    int rc;

    for (d = mf__data_file_fields; d->name; d++)
        n += (size_t)mf__desc_in(d, w->version);
    if ((items = mfb_record(b, slot, n)) == NULL)
        return zb_fail_oom(ctx);
    for (d = mf__data_file_fields, i = 0; d->name; d++) {
        int opt = mf__desc_optional(d, w->version);
        zb_avro_value *s, *x;
        if (!mf__desc_in(d, w->version))
            continue;
        s = &items[i++];
        switch (d->id) {
        case 134: mfb_int(s, (int32_t)f->content); break;
        case 100: mfb_str(s, f->file_path); break;
        case 101: mfb_str(s, f->file_format); break;
        case 102:
            if ((x = mfb_record(b, s, w->n_part)) == NULL)
                return zb_fail_oom(ctx);
            for (k = 0; k < w->n_part; k++) {
                const char *name = w->opts.spec->fields[k].name;
                if ((rc = put_partition_value(w, ctx, b, &x[k], &w->types[k],
                                              &f->partition[k], name)) < 0)
                    return rc;
            }
            break;
        case 103: mfb_long(s, f->record_count); break;
        case 104: mfb_long(s, f->file_size_in_bytes); break;
        case 105:
            mfb_long(s, f->block_size_in_bytes == ICE_NULL_LONG
                            ? (int64_t)64 << 20 : f->block_size_in_bytes);
            break;
        case 108: put_long_map(b, s, opt, &f->column_sizes); break;
        case 109: put_long_map(b, s, opt, &f->value_counts); break;
        case 110: put_long_map(b, s, opt, &f->null_value_counts); break;
        case 137: put_long_map(b, s, opt, &f->nan_value_counts); break;
        case 125: put_bytes_map(b, s, opt, &f->lower_bounds); break;
        case 128: put_bytes_map(b, s, opt, &f->upper_bounds); break;
        case 131:
            mfb_bytes(mfb_field(b, s, opt, f->key_metadata != NULL),
                      f->key_metadata, f->key_metadata_len);
            break;
        case 132:
            x = mfb_field(b, s, opt, f->has_split_offsets);
            if (x && (x = mfb_array(b, x, f->n_split_offsets)) != NULL)
                for (k = 0; k < f->n_split_offsets; k++)
                    mfb_long(&x[k], f->split_offsets[k]);
            break;
        case 135:
            x = mfb_field(b, s, opt, f->has_equality_ids);
            if (x && (x = mfb_array(b, x, f->n_equality_ids)) != NULL)
                for (k = 0; k < f->n_equality_ids; k++)
                    mfb_int(&x[k], f->equality_ids[k]);
            break;
        case 140:
            mfb_int(mfb_field(b, s, opt, f->has_sort_order_id),
                    f->sort_order_id);
            break;
        case 142:
            mfb_long(mfb_field(b, s, opt,
                               f->first_row_id != ICE_NULL_LONG &&
                               (e->explicit_mask &
                                ICE_ENTRY_FIRST_ROW_ID_EXPLICIT)),
                     f->first_row_id);
            break;
        case 143:
            x = mfb_field(b, s, opt, f->referenced_data_file != NULL);
            if (x)
                mfb_str(x, f->referenced_data_file);
            break;
        case 144:
            mfb_long(mfb_field(b, s, opt, f->content_offset != ICE_NULL_LONG),
                     f->content_offset);
            break;
        case 145:
            mfb_long(mfb_field(b, s, opt,
                               f->content_size_in_bytes != ICE_NULL_LONG),
                     f->content_size_in_bytes);
            break;
        default:
            break;
        }
    }
    return b->oom ? zb_fail_oom(ctx) : ZB_OK;
}

int ice_manifest_writer_add(ice_manifest_writer *w, zb_ctx *ctx,
                            const ice_manifest_entry *e)
{
    mf_build b = { w->arena, 0 };
    zb_avro_value rec, *items;
    const mf_desc *d;
    size_t n = 0, i;
    int rc;

    ZB_ASSERT_ARG(w && ctx && e);
    if ((rc = check_entry(w, ctx, e)) < 0)
        return rc;
    zb_arena_reset(w->arena);
    for (d = mf__entry_fields; d->name; d++)
        n += (size_t)mf__desc_in(d, w->version);
    memset(&rec, 0, sizeof rec);
    if ((items = mfb_record(&b, &rec, n)) == NULL)
        return zb_fail_oom(ctx);
    for (d = mf__entry_fields, i = 0; d->name; d++) {
        int opt = mf__desc_optional(d, w->version);
        zb_avro_value *s;
        if (!mf__desc_in(d, w->version))
            continue;
        s = &items[i++];
        switch (d->id) {
        case 0: mfb_int(s, (int32_t)e->status); break;
        case 1:
            mfb_long(mfb_field(&b, s, opt,
                               e->snapshot_id != ICE_NULL_LONG &&
                               (w->version == 1 ||
                                (e->explicit_mask &
                                 ICE_ENTRY_SNAPSHOT_ID_EXPLICIT))),
                     e->snapshot_id);
            break;
        case 3:
            mfb_long(mfb_field(&b, s, opt,
                               e->sequence_number != ICE_NULL_LONG &&
                               (e->explicit_mask & ICE_ENTRY_SEQ_EXPLICIT)),
                     e->sequence_number);
            break;
        case 4:
            mfb_long(mfb_field(&b, s, opt,
                               e->file_sequence_number != ICE_NULL_LONG &&
                               (e->explicit_mask &
                                ICE_ENTRY_FILE_SEQ_EXPLICIT)),
                     e->file_sequence_number);
            break;
        case 2:
            if ((rc = build_data_file(w, ctx, &b, s, e)) < 0)
                return rc;
            break;
        default:
            break;
        }
    }
    if (b.oom)
        return zb_fail_oom(ctx);
    if ((rc = zb_avro_writer_append(w->avro, ctx, &rec)) < 0)
        return zb_err_prefix(ctx, "%s: entry %s", w->uri,
                             e->data_file.file_path);
    for (i = 0; i < w->n_part; i++)
        if ((rc = summarize(w, ctx, i, &e->data_file.partition[i])) < 0)
            return zb_err_prefix(ctx, "%s: partition summary", w->uri);
    w->counts[e->status]++;
    w->rows[e->status] += e->data_file.record_count;
    if (e->status != ICE_STATUS_DELETED) {
        int64_t seq = (e->explicit_mask & ICE_ENTRY_SEQ_EXPLICIT) &&
                              e->sequence_number != ICE_NULL_LONG
                          ? e->sequence_number
                          : w->opts.sequence_number;
        if (seq < w->min_seq)
            w->min_seq = seq;
        w->n_live++;
    }
    return ZB_OK;
}

static uint8_t *arena_copy(zb_arena *a, const zb_buf *b)
{
    uint8_t *p = zb_arena_alloc(a, b->len ? b->len : 1);

    if (p && b->len)
        memcpy(p, b->ptr, b->len);
    return p;
}

int ice_manifest_writer_commit(ice_manifest_writer *w, zb_ctx *ctx,
                               ice_manifest_file *out, zb_arena *arena)
{
    zb_io_stat st;
    ice_field_summary *s = NULL;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(w && ctx && (out == NULL || arena != NULL));
    rc = zb_avro_writer_commit(w->avro, ctx);
    w->avro = NULL;
    if (rc < 0 || out == NULL)
        goto done;
    if ((rc = zb_io_stat_uri(&st, w->io, ctx, w->uri)) < 0)
        goto done;
    memset(out, 0, sizeof *out);
    if ((out->manifest_path = zb_arena_strdup(arena, w->uri)) == NULL ||
        (w->n_part > 0 &&
         (s = zb_arena_calloc(arena, w->n_part, sizeof *s)) == NULL)) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    out->manifest_length = (int64_t)st.size_bytes;
    out->partition_spec_id = w->opts.spec->spec_id;
    out->content = w->opts.content;
    out->sequence_number = w->opts.sequence_number;
    out->min_sequence_number = w->n_live ? w->min_seq
                                         : w->opts.sequence_number;
    out->added_snapshot_id = w->opts.snapshot_id;
    out->added_files_count = w->counts[ICE_STATUS_ADDED];
    out->existing_files_count = w->counts[ICE_STATUS_EXISTING];
    out->deleted_files_count = w->counts[ICE_STATUS_DELETED];
    out->added_rows_count = w->rows[ICE_STATUS_ADDED];
    out->existing_rows_count = w->rows[ICE_STATUS_EXISTING];
    out->deleted_rows_count = w->rows[ICE_STATUS_DELETED];
    out->has_partitions = 1;
    out->n_partitions = w->n_part;
    out->partitions = s;
    out->first_row_id = ICE_NULL_LONG;
    for (i = 0; i < w->n_part; i++) {
        const part_sum *p = &w->sums[i];
        int fp = w->types[i].id == ICE_FLOAT || w->types[i].id == ICE_DOUBLE;
        s[i].contains_null = p->contains_null;
        s[i].contains_nan = fp ? p->contains_nan : -1;
        if (p->has_bounds) {
            if ((s[i].lower_bound = arena_copy(arena, &p->lower)) == NULL ||
                (s[i].upper_bound = arena_copy(arena, &p->upper)) == NULL) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            s[i].lower_bound_len = p->lower.len;
            s[i].upper_bound_len = p->upper.len;
        }
    }
done:
    ice_manifest_writer_abort(w);
    return rc;
}

void ice_manifest_writer_abort(ice_manifest_writer *w)
{
    size_t i;

    if (w == NULL)
        return;
    zb_avro_writer_abort(w->avro);
    zb_arena_free(w->arena);
    for (i = 0; w->sums && i < w->n_part; i++) {
        zb_buf_free(&w->sums[i].lower);
        zb_buf_free(&w->sums[i].upper);
    }
    zb_free(w->sums);
    zb_free(w->types);
    zb_free(w->uri);
    zb_buf_free(&w->scratch);
    zb_free(w);
}

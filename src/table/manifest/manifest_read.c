/*
 * table/manifest/manifest_read.c - streams the entries of one manifest file
 * (format/spec.md "Manifests", "Manifest Entry Fields", "Data File
 * Fields") and applies inheritance from its manifest-list entry.
 *
 * Call order: ice_manifest_open (opens the Avro reader, reads the header,
 * binds the schema), ice_manifest_next until it returns 0,
 * ice_manifest_free.
 *
 * Binding: the file's own Avro schema is searched once, at open, for
 * each known field id (status 0, snapshot_id 1, sequence numbers 3 and 4,
 * data_file 2, and the data_file fields 100..145); the indexes found are
 * kept, so each record is decoded by index with no lookups. Fields the
 * table does not list (a newer writer's, or the deprecated 106/107/111)
 * are recorded as unknown for the caller to judge. Partition field types
 * come from the Avro types and their logicalType attributes, so a
 * manifest is read as the file describes itself, whatever spec it used.
 *
 * Memory: one Avro block plus one record's tree (the Avro reader's), and
 * this entry's arrays in an arena that is reset on every call, so a
 * manifest of any length is read in constant memory.
 *
 * Inheritance (manifest.h): applied per entry from the copied
 * manifest-list entry; the first_row_id of data files with a null value
 * advances a running counter through the manifest in file order.
 */
#define ZB_MODULE "table"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "table/manifest/manifest_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* The data_file fields we read, by their index into df[] below. */
enum {
    DF_CONTENT, DF_PATH, DF_FORMAT, DF_PARTITION, DF_RECORDS, DF_SIZE,
    DF_BLOCK, DF_COL_SIZES, DF_VALUE_COUNTS, DF_NULL_COUNTS, DF_NAN_COUNTS,
    DF_LOWER, DF_UPPER, DF_KEY_META, DF_SPLITS, DF_EQ_IDS, DF_SORT_ORDER,
    DF_FIRST_ROW_ID, DF_REF_FILE, DF_CONTENT_OFFSET, DF_CONTENT_SIZE,
    DF_COUNT
};

static const struct {
    int id;
    const char *name;
    int required;
} df_fields[DF_COUNT] = {
    { 134, "content", 0 },          /* required v2+, absent in v1 */
    { 100, "file_path", 1 },
    { 101, "file_format", 1 },
    { 102, "partition", 1 },
    { 103, "record_count", 1 },
    { 104, "file_size_in_bytes", 1 },
    { 105, "block_size_in_bytes", 0 },
    { 108, "column_sizes", 0 },
    { 109, "value_counts", 0 },
    { 110, "null_value_counts", 0 },
    { 137, "nan_value_counts", 0 },
    { 125, "lower_bounds", 0 },
    { 128, "upper_bounds", 0 },
    { 131, "key_metadata", 0 },
    { 132, "split_offsets", 0 },
    { 135, "equality_ids", 0 },
    { 140, "sort_order_id", 0 },
    { 142, "first_row_id", 0 },
    { 143, "referenced_data_file", 0 },
    { 144, "content_offset", 0 },
    { 145, "content_size_in_bytes", 0 },
};

#define MAX_UNKNOWN 32

struct ice_manifest_reader {
    zb_avro_reader *avro;
    zb_arena *arena;               /* this entry's arrays */
    char *uri;
    int format_version;
    int has_mf;
    ice_manifest_file mf;          /* scalars only; manifest_path owned */
    int64_t next_row_id;           /* first_row_id inheritance */
    mf_where where;
    /* binding */
    int i_status, i_snapshot, i_seq, i_fseq, i_data_file;
    int df[DF_COUNT];
    size_t n_part;
    ice_prim *part_types;
    const char **part_names;
    int32_t *part_ids;
    size_t n_unknown;
    const char *unknown[MAX_UNKNOWN];
    ice_manifest_entry entry;
};

static void note_unknown(ice_manifest_reader *r, const char *name)
{
    if (r->n_unknown < MAX_UNKNOWN)
        r->unknown[r->n_unknown++] = name;
}

static int is_known_df(int64_t id)
{
    size_t i;

    for (i = 0; i < DF_COUNT; i++)
        if (df_fields[i].id == id)
            return 1;
    return 0;
}

/*
 * The manifest's own format-version (its Avro metadata), which wins over
 * the table's: a table upgraded from v1 keeps its v1 manifests, and some
 * older writers put v2 fields (sequence_number) into them. 0 when the key
 * is absent (the schema decides then, in bind).
 */
static int declared_version(ice_manifest_reader *r, zb_ctx *ctx)
{
    size_t len;
    const char *v = zb_avro_reader_meta_get(r->avro, "format-version", &len);

    if (v == NULL)
        return 0;
    if (len == 1 && v[0] >= '1' && v[0] <= '3')
        return v[0] - '0';
    return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: manifest declares "
                   "format-version \"%.16s\" (1, 2 or 3 are read)", r->uri, v);
}

static int bind(ice_manifest_reader *r, zb_ctx *ctx)
{
    const zb_avro_node *root = zb_avro_schema_root(zb_avro_reader_schema(r->avro));
    const zb_avro_node *df, *part;
    size_t i;
    int rc, declared;

    if ((declared = declared_version(r, ctx)) < 0)
        return declared;
    if (declared > 0)
        r->format_version = declared;

    if ((rc = mf__field(&r->i_status, ctx, r->uri, root, 0, "status", 1)) < 0 ||
        (rc = mf__field(&r->i_snapshot, ctx, r->uri, root, 1, "snapshot_id",
                        r->format_version == 1)) < 0 ||
        (rc = mf__field(&r->i_seq, ctx, r->uri, root, 3, "sequence_number",
                        0)) < 0 ||
        (rc = mf__field(&r->i_fseq, ctx, r->uri, root, 4,
                        "file_sequence_number", 0)) < 0 ||
        (rc = mf__field(&r->i_data_file, ctx, r->uri, root, 2, "data_file",
                        1)) < 0)
        return rc;
    for (i = 0; i < root->n; i++) {
        int64_t id = root->fields[i].field_id;
        if (id != 0 && id != 1 && id != 2 && id != 3 && id != 4)
            note_unknown(r, root->fields[i].name);
    }
    df = mf__base(root->fields[r->i_data_file].type);
    for (i = 0; i < DF_COUNT; i++) {
        if ((rc = mf__field(&r->df[i], ctx, r->uri, df, df_fields[i].id,
                            df_fields[i].name, df_fields[i].required)) < 0)
            return rc;
    }
    /* v1 has no sequence numbers: fields some writers added anyway are
     * not read, the spec's defaults apply (inherited from the manifest,
     * 0 for one written before the upgrade). */
    if (declared == 1)
        r->i_seq = r->i_fseq = MF_ABSENT;
    /* No declared version, written before the table was upgraded from
     * v1: no sequence numbers and no content, which the spec's v2 reader
     * defaults (data, inherit the manifest's sequence number, 0). */
    if (declared == 0 && r->format_version >= 2 &&
        r->df[DF_CONTENT] == MF_ABSENT &&
        r->i_seq == MF_ABSENT && r->i_fseq == MF_ABSENT &&
        r->i_snapshot != MF_ABSENT)
        r->format_version = 1;
    if (r->format_version >= 2 && r->df[DF_CONTENT] == MF_ABSENT)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: v%d manifest: data_file lacks"
                       " required field content (id 134)", r->uri,
                       r->format_version);
    for (i = 0; i < df->n; i++)
        if (!is_known_df(df->fields[i].field_id))
            note_unknown(r, df->fields[i].name);
    part = mf__base(df->fields[r->df[DF_PARTITION]].type);
    if (part->type != ZB_AVRO_RECORD)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: data_file.partition is %s, not"
                       " a record", r->uri, zb_avro_type_name(part->type));
    r->n_part = part->n;
    if (part->n > 0) {
        r->part_types = zb_calloc(part->n, sizeof *r->part_types);
        r->part_names = zb_calloc(part->n, sizeof *r->part_names);
        r->part_ids = zb_calloc(part->n, sizeof *r->part_ids);
        if (!r->part_types || !r->part_names || !r->part_ids)
            return zb_fail_oom(ctx);
    }
    for (i = 0; i < part->n; i++) {
        const zb_avro_field *f = &part->fields[i];
        if (f->field_id == ZB_AVRO_NO_ID)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: partition field %s has no"
                           " field-id", r->uri, f->name);
        if ((rc = mf__avro_prim(&r->part_types[i], ctx, r->uri, f->name,
                                f->type)) < 0)
            return rc;
        r->part_names[i] = f->name;
        r->part_ids[i] = (int32_t)f->field_id;
    }
    return ZB_OK;
}

int ice_manifest_open(ice_manifest_reader **out, zb_io *io, zb_ctx *ctx,
                      const ice_manifest_file *mf, const char *path,
                      int format_version, const ice_manifest_opts *opts)
{
    ice_manifest_reader *r = NULL;
    zb_buf uri = ZB_BUF_INIT(64 * 1024);
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && (mf || path));
    *out = NULL;
    if (format_version < 1 || format_version > 3)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "manifest: format version %d",
                       format_version);
    if (mf)
        path = mf->manifest_path;
    if ((r = zb_calloc(1, sizeof *r)) == NULL)
        return zb_fail_oom(ctx);
    r->format_version = format_version;
    if ((rc = ice_manifest_resolve_path(&uri, ctx, opts, path)) < 0)
        goto done;
    if ((r->uri = zb_buf_detach(&uri)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    r->where.uri = r->uri;
    if (mf) {
        r->has_mf = 1;
        r->mf = *mf;
        r->mf.partitions = NULL;
        r->mf.n_partitions = 0;
        r->mf.key_metadata = NULL;
        r->mf.key_metadata_len = 0;
        r->mf.manifest_path = r->uri;
        r->next_row_id = mf->first_row_id;
    }
    if ((rc = zb_arena_new(&r->arena, (size_t)256 << 20)) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_avro_reader_open(&r->avro, io, ctx, r->uri,
                                  opts ? &opts->avro : NULL)) < 0)
        goto done;
    if ((rc = bind(r, ctx)) < 0)
        goto done;
    *out = r;
    r = NULL;
done:
    zb_buf_free(&uri);
    ice_manifest_free(r);
    return rc;
}

/* ---- decoding one entry ---- */

/* The number of entries of an Iceberg int-keyed map, which Avro holds as
 * an array of key/value records (or, from some writers, as a map). */
static int map_size(size_t *n, ice_manifest_reader *r, zb_ctx *ctx,
                    const char *name, const zb_avro_value *v)
{
    if (v->type != ZB_AVRO_ARRAY && v->type != ZB_AVRO_MAP)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: field %s: expected"
                       " a map, found %s", r->uri,
                       (unsigned long long)r->where.record, name,
                       zb_avro_type_name(v->type));
    *n = v->type == ZB_AVRO_ARRAY ? v->v.list.n : v->v.map.n;
    return ZB_OK;
}

/* Entry i of such a map: its field-id key and its (non-null) value. */
static int map_entry(int32_t *key, const zb_avro_value **val,
                     ice_manifest_reader *r, zb_ctx *ctx, const char *name,
                     const zb_avro_value *v, size_t i)
{
    const zb_avro_value *k;
    int rc;

    if (v->type == ZB_AVRO_MAP) {
        *key = (int32_t)strtol(v->v.map.entries[i].key, NULL, 10);
        *val = mf__unwrap(v->v.map.entries[i].value);
    } else {
        const zb_avro_value *kv = &v->v.list.items[i];
        if (kv->type != ZB_AVRO_RECORD || kv->v.list.n < 2)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: field %s:"
                           " map entry is not a key/value record",
                           r->uri, (unsigned long long)r->where.record,
                           name);
        if ((k = mf__unwrap(&kv->v.list.items[0])) == NULL)
            return mf__missing(ctx, &r->where, name);
        if ((rc = mf__int(key, ctx, &r->where, name, k)) < 0)
            return rc;
        *val = mf__unwrap(&kv->v.list.items[1]);
    }
    return *val ? ZB_OK : mf__missing(ctx, &r->where, name);
}

static int read_long_map(ice_long_map *out, ice_manifest_reader *r,
                         zb_ctx *ctx, const char *name,
                         const zb_avro_value *v)
{
    ice_metric_long *items;
    size_t i, n = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if (v == NULL)
        return ZB_OK;
    out->has = 1;
    if ((rc = map_size(&n, r, ctx, name, v)) < 0 || n == 0)
        return rc;
    if ((items = zb_arena_calloc(r->arena, n, sizeof *items)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        const zb_avro_value *val;
        if ((rc = map_entry(&items[i].field_id, &val, r, ctx, name, v,
                            i)) < 0 ||
            (rc = mf__long(&items[i].value, ctx, &r->where, name, val)) < 0)
            return rc;
    }
    out->n = n;
    out->items = items;
    return ZB_OK;
}

static int read_bytes_map(ice_bytes_map *out, ice_manifest_reader *r,
                          zb_ctx *ctx, const char *name,
                          const zb_avro_value *v)
{
    ice_metric_bytes *items;
    size_t i, n = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if (v == NULL)
        return ZB_OK;
    out->has = 1;
    if ((rc = map_size(&n, r, ctx, name, v)) < 0 || n == 0)
        return rc;
    if ((items = zb_arena_calloc(r->arena, n, sizeof *items)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        const zb_avro_value *val;
        if ((rc = map_entry(&items[i].field_id, &val, r, ctx, name, v,
                            i)) < 0 ||
            (rc = mf__bytes(&items[i].ptr, &items[i].len, ctx, &r->where,
                            name, val)) < 0)
            return rc;
    }
    out->n = n;
    out->items = items;
    return ZB_OK;
}

static int read_list(void **out, size_t *n_out, int is_long,
                     ice_manifest_reader *r, zb_ctx *ctx, const char *name,
                     const zb_avro_value *v)
{
    size_t i, n;
    int rc;

    *out = NULL;
    *n_out = 0;
    if (v->type != ZB_AVRO_ARRAY)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: field %s: expected"
                       " an array, found %s", r->uri,
                       (unsigned long long)r->where.record, name,
                       zb_avro_type_name(v->type));
    n = v->v.list.n;
    if (n == 0)
        return ZB_OK;
    if ((*out = zb_arena_calloc(r->arena, n, is_long ? 8 : 4)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        const zb_avro_value *it = mf__unwrap(&v->v.list.items[i]);
        if (it == NULL)
            return mf__missing(ctx, &r->where, name);
        rc = is_long ? mf__long((int64_t *)*out + i, ctx, &r->where, name, it)
                     : mf__int((int32_t *)*out + i, ctx, &r->where, name, it);
        if (rc < 0)
            return rc;
    }
    *n_out = n;
    return ZB_OK;
}

static int opt_long(int64_t *out, ice_manifest_reader *r, zb_ctx *ctx,
                    const zb_avro_value *rec, int idx, const char *name)
{
    const zb_avro_value *v = mf__get(rec, idx);

    *out = ICE_NULL_LONG;
    return v ? mf__long(out, ctx, &r->where, name, v) : ZB_OK;
}

static int decode_data_file(ice_manifest_reader *r, zb_ctx *ctx,
                            const zb_avro_value *d, ice_data_file *f)
{
    const zb_avro_value *v;
    ice_value *pv = NULL;
    size_t i;
    int32_t i32;
    int rc;

    memset(f, 0, sizeof *f);
    f->content = ICE_CONTENT_DATA;
    if ((v = mf__get(d, r->df[DF_CONTENT])) != NULL) {
        if ((rc = mf__int(&i32, ctx, &r->where, "content", v)) < 0)
            return rc;
        if (i32 < 0 || i32 > 2)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: data_file"
                           " content %d is not 0, 1 or 2", r->uri,
                           (unsigned long long)r->where.record, (int)i32);
        f->content = (ice_file_content)i32;
    } else if (r->df[DF_CONTENT] != MF_ABSENT) {
        return mf__missing(ctx, &r->where, "content");
    }
#define REQ(idx, name, getter, ...)                                   \
    do {                                                              \
        if ((v = mf__get(d, r->df[idx])) == NULL)                     \
            return mf__missing(ctx, &r->where, name);                 \
        if ((rc = getter(__VA_ARGS__, ctx, &r->where, name, v)) < 0)  \
            return rc;                                                \
    } while (0)
    REQ(DF_PATH, "file_path", mf__str, &f->file_path);
    REQ(DF_FORMAT, "file_format", mf__str, &f->file_format);
    REQ(DF_RECORDS, "record_count", mf__long, &f->record_count);
    REQ(DF_SIZE, "file_size_in_bytes", mf__long, &f->file_size_in_bytes);
#undef REQ
    if ((v = mf__get(d, r->df[DF_PARTITION])) == NULL ||
        v->type != ZB_AVRO_RECORD || v->v.list.n != r->n_part)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: data_file"
                       " partition is missing or malformed", r->uri,
                       (unsigned long long)r->where.record);
    if (r->n_part > 0 &&
        (pv = zb_arena_calloc(r->arena, r->n_part, sizeof *pv)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < r->n_part; i++) {
        if ((rc = mf__to_ice(&pv[i], ctx, &r->where, r->part_names[i],
                             &r->part_types[i],
                             mf__unwrap(&v->v.list.items[i]))) < 0)
            return rc;
    }
    f->n_partition = r->n_part;
    f->partition = pv;
    f->partition_names = r->part_names;
    f->partition_field_ids = r->part_ids;
    if ((rc = opt_long(&f->block_size_in_bytes, r, ctx, d, r->df[DF_BLOCK],
                       "block_size_in_bytes")) < 0 ||
        (rc = read_long_map(&f->column_sizes, r, ctx, "column_sizes",
                            mf__get(d, r->df[DF_COL_SIZES]))) < 0 ||
        (rc = read_long_map(&f->value_counts, r, ctx, "value_counts",
                            mf__get(d, r->df[DF_VALUE_COUNTS]))) < 0 ||
        (rc = read_long_map(&f->null_value_counts, r, ctx,
                            "null_value_counts",
                            mf__get(d, r->df[DF_NULL_COUNTS]))) < 0 ||
        (rc = read_long_map(&f->nan_value_counts, r, ctx, "nan_value_counts",
                            mf__get(d, r->df[DF_NAN_COUNTS]))) < 0 ||
        (rc = read_bytes_map(&f->lower_bounds, r, ctx, "lower_bounds",
                             mf__get(d, r->df[DF_LOWER]))) < 0 ||
        (rc = read_bytes_map(&f->upper_bounds, r, ctx, "upper_bounds",
                             mf__get(d, r->df[DF_UPPER]))) < 0)
        return rc;
    if ((v = mf__get(d, r->df[DF_KEY_META])) != NULL &&
        (rc = mf__bytes(&f->key_metadata, &f->key_metadata_len, ctx,
                        &r->where, "key_metadata", v)) < 0)
        return rc;
    if ((v = mf__get(d, r->df[DF_SPLITS])) != NULL) {
        void *p;
        f->has_split_offsets = 1;
        if ((rc = read_list(&p, &f->n_split_offsets, 1, r, ctx,
                            "split_offsets", v)) < 0)
            return rc;
        f->split_offsets = p;
    }
    if ((v = mf__get(d, r->df[DF_EQ_IDS])) != NULL) {
        void *p;
        f->has_equality_ids = 1;
        if ((rc = read_list(&p, &f->n_equality_ids, 0, r, ctx,
                            "equality_ids", v)) < 0)
            return rc;
        f->equality_ids = p;
    }
    if ((v = mf__get(d, r->df[DF_SORT_ORDER])) != NULL) {
        f->has_sort_order_id = 1;
        if ((rc = mf__int(&f->sort_order_id, ctx, &r->where, "sort_order_id",
                          v)) < 0)
            return rc;
    }
    if ((v = mf__get(d, r->df[DF_REF_FILE])) != NULL &&
        (rc = mf__str(&f->referenced_data_file, ctx, &r->where,
                      "referenced_data_file", v)) < 0)
        return rc;
    if ((rc = opt_long(&f->first_row_id, r, ctx, d, r->df[DF_FIRST_ROW_ID],
                       "first_row_id")) < 0 ||
        (rc = opt_long(&f->content_offset, r, ctx, d,
                       r->df[DF_CONTENT_OFFSET], "content_offset")) < 0 ||
        (rc = opt_long(&f->content_size_in_bytes, r, ctx, d,
                       r->df[DF_CONTENT_SIZE], "content_size_in_bytes")) < 0)
        return rc;
    if (f->content_offset != ICE_NULL_LONG &&
        f->content_size_in_bytes == ICE_NULL_LONG)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: content_offset"
                       " without content_size_in_bytes", r->uri,
                       (unsigned long long)r->where.record);
    return ZB_OK;
}

/* Sequence number inheritance for field name of entry e. */
static int inherit_seq(int64_t *val, unsigned *mask, unsigned bit,
                       ice_manifest_reader *r, zb_ctx *ctx,
                       const ice_manifest_entry *e, int present_in_schema,
                       const char *name)
{
    if (*val != ICE_NULL_LONG) {
        *mask |= bit;
        return ZB_OK;
    }
    if (!present_in_schema) {
        /* v1 manifests have no sequence numbers: they read 0 */
        *val = 0;
        return ZB_OK;
    }
    if (!r->has_mf)
        return ZB_OK;
    if (e->status == ICE_STATUS_ADDED || r->mf.sequence_number == 0) {
        *val = r->mf.sequence_number;
        return ZB_OK;
    }
    return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: %s entry with a null"
                   " %s (only ADDED entries inherit it)", r->uri,
                   (unsigned long long)r->where.record,
                   e->status == ICE_STATUS_EXISTING ? "EXISTING" : "DELETED",
                   name);
}

int ice_manifest_next(ice_manifest_reader *r, zb_ctx *ctx,
                      const ice_manifest_entry **out)
{
    const zb_avro_value *rec, *v;
    ice_manifest_entry *e = &r->entry;
    int32_t status;
    int rc;

    *out = NULL;
    zb_arena_reset(r->arena);
    if ((rc = zb_avro_reader_next(r->avro, ctx, &rec)) <= 0)
        return rc;
    memset(e, 0, sizeof *e);
    if ((v = mf__get(rec, r->i_status)) == NULL)
        return mf__missing(ctx, &r->where, "status");
    if ((rc = mf__int(&status, ctx, &r->where, "status", v)) < 0)
        return rc;
    if (status < 0 || status > 2)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: status %d is not"
                       " 0, 1 or 2", r->uri,
                       (unsigned long long)r->where.record, (int)status);
    e->status = (ice_entry_status)status;
    if ((rc = opt_long(&e->snapshot_id, r, ctx, rec, r->i_snapshot,
                       "snapshot_id")) < 0 ||
        (rc = opt_long(&e->sequence_number, r, ctx, rec, r->i_seq,
                       "sequence_number")) < 0 ||
        (rc = opt_long(&e->file_sequence_number, r, ctx, rec, r->i_fseq,
                       "file_sequence_number")) < 0)
        return rc;
    if ((v = mf__get(rec, r->i_data_file)) == NULL ||
        v->type != ZB_AVRO_RECORD)
        return mf__missing(ctx, &r->where, "data_file");
    if ((rc = decode_data_file(r, ctx, v, &e->data_file)) < 0)
        return rc;

    if (e->snapshot_id != ICE_NULL_LONG)
        e->explicit_mask |= ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
    else if (r->has_mf)
        e->snapshot_id = r->mf.added_snapshot_id;
    if ((rc = inherit_seq(&e->sequence_number, &e->explicit_mask,
                          ICE_ENTRY_SEQ_EXPLICIT, r, ctx, e,
                          r->i_seq != MF_ABSENT, "sequence_number")) < 0 ||
        (rc = inherit_seq(&e->file_sequence_number, &e->explicit_mask,
                          ICE_ENTRY_FILE_SEQ_EXPLICIT, r, ctx, e,
                          r->i_fseq != MF_ABSENT,
                          "file_sequence_number")) < 0)
        return rc;
    if (e->data_file.first_row_id != ICE_NULL_LONG) {
        e->explicit_mask |= ICE_ENTRY_FIRST_ROW_ID_EXPLICIT;
    } else if (e->data_file.content == ICE_CONTENT_DATA && r->has_mf &&
               r->next_row_id != ICE_NULL_LONG) {
        e->data_file.first_row_id = r->next_row_id;
        if (e->data_file.record_count < 0 ||
            r->next_row_id > INT64_MAX - e->data_file.record_count)
            return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: first_row_id"
                           " inheritance overflows (record_count %lld)",
                           r->uri, (unsigned long long)r->where.record,
                           (long long)e->data_file.record_count);
        r->next_row_id += e->data_file.record_count;
    }
    r->where.record++;
    *out = e;
    return 1;
}

const char *ice_manifest_reader_meta(const ice_manifest_reader *r,
                                     const char *key)
{
    size_t len;

    return zb_avro_reader_meta_get(r->avro, key, &len);
}

size_t ice_manifest_reader_unknown(const ice_manifest_reader *r)
{
    return r->n_unknown;
}

const char *ice_manifest_reader_unknown_name(const ice_manifest_reader *r,
                                             size_t i)
{
    return i < r->n_unknown ? r->unknown[i] : NULL;
}

const char *ice_manifest_reader_uri(const ice_manifest_reader *r)
{
    return r->uri;
}

void ice_manifest_free(ice_manifest_reader *r)
{
    if (r == NULL)
        return;
    zb_avro_reader_free(r->avro);
    zb_arena_free(r->arena);
    zb_free(r->part_types);
    zb_free(r->part_names);
    zb_free(r->part_ids);
    zb_free(r->uri);
    zb_free(r);
}

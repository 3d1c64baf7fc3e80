/*
 * table/manifest/manifest_list.c - manifest lists (format/spec.md "Manifest
 * Lists"), read as a stream and written.
 *
 * Reading: ice_manifest_list_open resolves the path, opens the Avro
 * reader and binds the manifest_file fields by id (500..520); each
 * ice_manifest_list_next decodes one record into an ice_manifest_file,
 * with the field summaries in an arena reset per call. Fields a version
 * lacks read as the spec says: v1 lists have content 0 and sequence
 * numbers 0; counts absent or null read -1.
 *
 * Writing: ice_manifest_list_writer_open writes the header (schema from
 * manifest_schema.c, metadata snapshot-id, parent-snapshot-id,
 * sequence-number, format-version and, in v3, first-row-id); each add
 * builds the record by walking mf__list_fields, so the record always
 * matches the schema. In v3 a data manifest without a first_row_id is
 * assigned the running next row id ("First Row ID Assignment"), which
 * then advances by its added and existing row counts.
 */
#define ZB_MODULE "table"

#include <stdio.h>
#include <string.h>

#include "table/manifest/manifest_int.h"
#include "util/alloc.h"
#include "util/err.h"

enum {
    ML_PATH, ML_LENGTH, ML_SPEC, ML_CONTENT, ML_SEQ, ML_MIN_SEQ, ML_SNAP,
    ML_ADDED_F, ML_EXISTING_F, ML_DELETED_F, ML_ADDED_R, ML_EXISTING_R,
    ML_DELETED_R, ML_PARTS, ML_KEY, ML_FIRST_ROW, ML_COUNT
};

static const struct {
    int id;
    const char *name;
    unsigned required;             /* bit v: required in version v */
} ml_fields[ML_COUNT] = {
    { 500, "manifest_path", 0xe },
    { 501, "manifest_length", 0xe },
    { 502, "partition_spec_id", 0xe },
    { 517, "content", 0xc },
    { 515, "sequence_number", 0xc },
    { 516, "min_sequence_number", 0xc },
    { 503, "added_snapshot_id", 0xc },
    { 504, "added_files_count", 0xc },
    { 505, "existing_files_count", 0xc },
    { 506, "deleted_files_count", 0xc },
    { 512, "added_rows_count", 0xc },
    { 513, "existing_rows_count", 0xc },
    { 514, "deleted_rows_count", 0xc },
    { 507, "partitions", 0 },
    { 519, "key_metadata", 0 },
    { 520, "first_row_id", 0 },
};

struct ice_manifest_list_reader {
    zb_avro_reader *avro;
    zb_arena *arena;
    char *uri;
    int format_version;
    int idx[ML_COUNT];
    int sum_idx[4];                /* 509, 518, 510, 511 in r508 */
    mf_where where;
    ice_manifest_file mf;
};

int ice_manifest_list_open(ice_manifest_list_reader **out, zb_io *io,
                           zb_ctx *ctx, const char *path, int format_version,
                           const ice_manifest_opts *opts)
{
    ice_manifest_list_reader *r = NULL;
    zb_buf uri = ZB_BUF_INIT(64 * 1024);
    const zb_avro_node *root;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && path);
    *out = NULL;
    if (format_version < 1 || format_version > 3)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "manifest list: format version"
                       " %d", format_version);
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
    if (zb_arena_new(&r->arena, (size_t)64 << 20) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_avro_reader_open(&r->avro, io, ctx, r->uri,
                                  opts ? &opts->avro : NULL)) < 0)
        goto done;
    root = zb_avro_schema_root(zb_avro_reader_schema(r->avro));
    /*
     * A list written before the table was upgraded from v1 has no
     * sequence numbers or content: the spec's v2 reader defaults them
     * (data, 0), so such a file is read by the v1 rules.
     */
    if (format_version >= 2 &&
        (rc = mf__field(&r->idx[ML_SEQ], ctx, r->uri, root,
                        ml_fields[ML_SEQ].id, ml_fields[ML_SEQ].name, 0)) == 0 &&
        r->idx[ML_SEQ] == MF_ABSENT)
        r->format_version = 1;
    for (i = 0; i < ML_COUNT; i++) {
        if ((rc = mf__field(&r->idx[i], ctx, r->uri, root, ml_fields[i].id,
                            ml_fields[i].name,
                            (ml_fields[i].required >> r->format_version) & 1))
            < 0)
            goto done;
    }
    for (i = 0; i < 4; i++)
        r->sum_idx[i] = MF_ABSENT;
    if (r->idx[ML_PARTS] != MF_ABSENT) {
        const zb_avro_node *arr = mf__base(root->fields[r->idx[ML_PARTS]].type);
        static const int ids[4] = { 509, 518, 510, 511 };
        static const char *const names[4] = { "contains_null", "contains_nan",
                                              "lower_bound", "upper_bound" };
        if (arr->type != ZB_AVRO_ARRAY) {
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: partitions is %s, not an"
                         " array", r->uri, zb_avro_type_name(arr->type));
            goto done;
        }
        for (i = 0; i < 4; i++)
            if ((rc = mf__field(&r->sum_idx[i], ctx, r->uri,
                                mf__base(arr->items), ids[i], names[i],
                                i == 0)) < 0)
                goto done;
    }
    *out = r;
    r = NULL;
done:
    zb_buf_free(&uri);
    ice_manifest_list_free(r);
    return rc;
}

static int get_opt_long(int64_t *out, ice_manifest_list_reader *r,
                        zb_ctx *ctx, const zb_avro_value *rec, int f,
                        int64_t dflt)
{
    const zb_avro_value *v = mf__get(rec, r->idx[f]);

    *out = dflt;
    if (v == NULL) {
        if (r->idx[f] != MF_ABSENT &&
            ((ml_fields[f].required >> r->format_version) & 1))
            return mf__missing(ctx, &r->where, ml_fields[f].name);
        return ZB_OK;
    }
    return mf__long(out, ctx, &r->where, ml_fields[f].name, v);
}

static int read_summaries(ice_manifest_list_reader *r, zb_ctx *ctx,
                          const zb_avro_value *v)
{
    ice_field_summary *s;
    size_t i, n;
    int rc;

    if (v->type != ZB_AVRO_ARRAY)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: partitions is"
                       " not an array", r->uri,
                       (unsigned long long)r->where.record);
    n = v->v.list.n;
    r->mf.has_partitions = 1;
    if (n == 0)
        return ZB_OK;
    if ((s = zb_arena_calloc(r->arena, n, sizeof *s)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        const zb_avro_value *it = mf__unwrap(&v->v.list.items[i]), *x;
        if (it == NULL || it->type != ZB_AVRO_RECORD)
            return mf__missing(ctx, &r->where, "partitions[]");
        if ((x = mf__get(it, r->sum_idx[0])) == NULL)
            return mf__missing(ctx, &r->where, "contains_null");
        if ((rc = mf__bool(&s[i].contains_null, ctx, &r->where,
                           "contains_null", x)) < 0)
            return rc;
        s[i].contains_nan = -1;
        if ((x = mf__get(it, r->sum_idx[1])) != NULL &&
            (rc = mf__bool(&s[i].contains_nan, ctx, &r->where,
                           "contains_nan", x)) < 0)
            return rc;
        if ((x = mf__get(it, r->sum_idx[2])) != NULL &&
            (rc = mf__bytes(&s[i].lower_bound, &s[i].lower_bound_len, ctx,
                            &r->where, "lower_bound", x)) < 0)
            return rc;
        if ((x = mf__get(it, r->sum_idx[3])) != NULL &&
            (rc = mf__bytes(&s[i].upper_bound, &s[i].upper_bound_len, ctx,
                            &r->where, "upper_bound", x)) < 0)
            return rc;
    }
    r->mf.n_partitions = n;
    r->mf.partitions = s;
    return ZB_OK;
}

int ice_manifest_list_next(ice_manifest_list_reader *r, zb_ctx *ctx,
                           const ice_manifest_file **out)
{
    const zb_avro_value *rec, *v;
    ice_manifest_file *mf = &r->mf;
    int64_t content = 0, spec;
    int rc;

    *out = NULL;
    zb_arena_reset(r->arena);
    if ((rc = zb_avro_reader_next(r->avro, ctx, &rec)) <= 0)
        return rc;
    memset(mf, 0, sizeof *mf);
    if ((v = mf__get(rec, r->idx[ML_PATH])) == NULL)
        return mf__missing(ctx, &r->where, "manifest_path");
    if ((rc = mf__str(&mf->manifest_path, ctx, &r->where, "manifest_path",
                      v)) < 0)
        return rc;
    if ((rc = get_opt_long(&mf->manifest_length, r, ctx, rec, ML_LENGTH,
                           -1)) < 0 ||
        (rc = get_opt_long(&spec, r, ctx, rec, ML_SPEC, 0)) < 0 ||
        (rc = get_opt_long(&content, r, ctx, rec, ML_CONTENT, 0)) < 0 ||
        (rc = get_opt_long(&mf->sequence_number, r, ctx, rec, ML_SEQ, 0)) < 0 ||
        (rc = get_opt_long(&mf->min_sequence_number, r, ctx, rec, ML_MIN_SEQ,
                           0)) < 0 ||
        (rc = get_opt_long(&mf->added_snapshot_id, r, ctx, rec, ML_SNAP,
                           ICE_NULL_LONG)) < 0 ||
        (rc = get_opt_long(&mf->added_files_count, r, ctx, rec, ML_ADDED_F,
                           -1)) < 0 ||
        (rc = get_opt_long(&mf->existing_files_count, r, ctx, rec,
                           ML_EXISTING_F, -1)) < 0 ||
        (rc = get_opt_long(&mf->deleted_files_count, r, ctx, rec,
                           ML_DELETED_F, -1)) < 0 ||
        (rc = get_opt_long(&mf->added_rows_count, r, ctx, rec, ML_ADDED_R,
                           -1)) < 0 ||
        (rc = get_opt_long(&mf->existing_rows_count, r, ctx, rec,
                           ML_EXISTING_R, -1)) < 0 ||
        (rc = get_opt_long(&mf->deleted_rows_count, r, ctx, rec,
                           ML_DELETED_R, -1)) < 0 ||
        (rc = get_opt_long(&mf->first_row_id, r, ctx, rec, ML_FIRST_ROW,
                           ICE_NULL_LONG)) < 0)
        return rc;
    if (mf->manifest_length == -1 && r->idx[ML_LENGTH] != MF_ABSENT)
        return mf__missing(ctx, &r->where, "manifest_length");
    if (spec < INT32_MIN || spec > INT32_MAX || content < 0 || content > 1)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: partition_spec_id"
                       " %lld or content %lld out of range", r->uri,
                       (unsigned long long)r->where.record, (long long)spec,
                       (long long)content);
    mf->partition_spec_id = (int32_t)spec;
    mf->content = (ice_manifest_content)content;
    if ((v = mf__get(rec, r->idx[ML_PARTS])) != NULL &&
        (rc = read_summaries(r, ctx, v)) < 0)
        return rc;
    if ((v = mf__get(rec, r->idx[ML_KEY])) != NULL &&
        (rc = mf__bytes(&mf->key_metadata, &mf->key_metadata_len, ctx,
                        &r->where, "key_metadata", v)) < 0)
        return rc;
    r->where.record++;
    *out = mf;
    return 1;
}

void ice_manifest_list_free(ice_manifest_list_reader *r)
{
    if (r == NULL)
        return;
    zb_avro_reader_free(r->avro);
    zb_arena_free(r->arena);
    zb_free(r->uri);
    zb_free(r);
}

/* ---- writing ---- */

struct ice_manifest_list_writer {
    zb_avro_writer *avro;
    zb_arena *arena;
    int format_version;
    int64_t next_row_id;
};

int ice_manifest_list_writer_open(ice_manifest_list_writer **out, zb_io *io,
                                  zb_ctx *ctx, const char *uri,
                                  const ice_manifest_list_writer_opts *opts)
{
    ice_manifest_list_writer *w = NULL;
    zb_buf schema = ZB_BUF_INIT((size_t)1 << 20);
    char snap[24], parent[24], seq[24], ver[8], row[24];
    zb_avro_meta meta[5];
    zb_avro_writer_opts ao = ZB_AVRO_WRITER_OPTS_INIT;
    size_t n_meta = 0;
    int rc;

    ZB_ASSERT_ARG(out && io && ctx && uri && opts);
    *out = NULL;
    if (opts->format_version < 1 || opts->format_version > 3)
        return zb_fail(ctx, ZB_EINVAL, "manifest list: format version %d",
                       opts->format_version);
    if ((w = zb_calloc(1, sizeof *w)) == NULL)
        return zb_fail_oom(ctx);
    w->format_version = opts->format_version;
    w->next_row_id = opts->first_row_id;
    if (zb_arena_new(&w->arena, (size_t)64 << 20) < 0 ||
        ice_manifest_list_avro_schema(&schema, opts->format_version) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    snprintf(snap, sizeof snap, "%lld", (long long)opts->snapshot_id);
    snprintf(parent, sizeof parent, "%lld",
             (long long)opts->parent_snapshot_id);
    snprintf(seq, sizeof seq, "%lld", (long long)opts->sequence_number);
    snprintf(ver, sizeof ver, "%d", opts->format_version);
    snprintf(row, sizeof row, "%lld", (long long)opts->first_row_id);
    meta[n_meta++] = (zb_avro_meta){ "snapshot-id", snap, strlen(snap) };
    meta[n_meta++] = (zb_avro_meta){ "parent-snapshot-id",
        opts->parent_snapshot_id == ICE_NO_SNAPSHOT ? "null" : parent,
        opts->parent_snapshot_id == ICE_NO_SNAPSHOT ? 4 : strlen(parent) };
    if (opts->format_version >= 2)
        meta[n_meta++] = (zb_avro_meta){ "sequence-number", seq,
                                         strlen(seq) };
    meta[n_meta++] = (zb_avro_meta){ "format-version", ver, strlen(ver) };
    if (opts->format_version >= 3)
        meta[n_meta++] = (zb_avro_meta){ "first-row-id", row, strlen(row) };
    ao.codec = opts->codec;
    if ((rc = zb_avro_writer_open(&w->avro, io, ctx, uri, schema.ptr, meta,
                                  n_meta, &ao)) < 0)
        goto done;
    *out = w;
    w = NULL;
done:
    zb_buf_free(&schema);
    ice_manifest_list_writer_abort(w);
    return rc;
}

static void put_count(zb_avro_value *slot, mf_build *b, int opt, int64_t v,
                      int is_int)
{
    zb_avro_value *x = mfb_field(b, slot, opt, v >= 0);

    if (is_int)
        mfb_int(x, (int32_t)(v < 0 ? 0 : v));
    else
        mfb_long(x, v < 0 ? 0 : v);
}

int ice_manifest_list_writer_add(ice_manifest_list_writer *w, zb_ctx *ctx,
                                 const ice_manifest_file *mf)
{
    mf_build b = { w->arena, 0 };
    zb_avro_value rec, *items;
    const mf_desc *d;
    size_t n = 0, i;
    int v = w->format_version, rc;
    int64_t first_row_id = mf->first_row_id;

    zb_arena_reset(w->arena);
    for (d = mf__list_fields; d->name; d++)
        n += (size_t)mf__desc_in(d, v);
    if (v >= 3 && mf->content == ICE_MANIFEST_DATA &&
        first_row_id == ICE_NULL_LONG) {
        int64_t add = (mf->added_rows_count > 0 ? mf->added_rows_count : 0) +
                      (mf->existing_rows_count > 0 ? mf->existing_rows_count
                                                   : 0);
        first_row_id = w->next_row_id;
        w->next_row_id += add;
    }
    if (v < 3)
        first_row_id = ICE_NULL_LONG;
    if (v == 1 && mf->content != ICE_MANIFEST_DATA)
        return zb_fail(ctx, ZB_EINVAL, "manifest list v1: %s is a delete"
                       " manifest", mf->manifest_path);
    memset(&rec, 0, sizeof rec);
    if ((items = mfb_record(&b, &rec, n)) == NULL)
        return zb_fail_oom(ctx);
    for (d = mf__list_fields, i = 0; d->name; d++) {
        zb_avro_value *s;
        int opt = mf__desc_optional(d, v);
        if (!mf__desc_in(d, v))
            continue;
        s = &items[i++];
        switch (d->id) {
        case 500: mfb_str(s, mf->manifest_path); break;
        case 501: mfb_long(s, mf->manifest_length); break;
        case 502: mfb_int(s, mf->partition_spec_id); break;
        case 517: mfb_int(s, (int32_t)mf->content); break;
        case 515: mfb_long(s, mf->sequence_number); break;
        case 516: mfb_long(s, mf->min_sequence_number); break;
        case 503: mfb_long(s, mf->added_snapshot_id); break;
        case 504: put_count(s, &b, opt, mf->added_files_count, 1); break;
        case 505: put_count(s, &b, opt, mf->existing_files_count, 1); break;
        case 506: put_count(s, &b, opt, mf->deleted_files_count, 1); break;
        case 512: put_count(s, &b, opt, mf->added_rows_count, 0); break;
        case 513: put_count(s, &b, opt, mf->existing_rows_count, 0); break;
        case 514: put_count(s, &b, opt, mf->deleted_rows_count, 0); break;
        case 507: {
            zb_avro_value *arr = mfb_field(&b, s, opt, mf->has_partitions);
            zb_avro_value *e = arr ? mfb_array(&b, arr, mf->n_partitions)
                                   : NULL;
            size_t k;
            for (k = 0; e != NULL && k < mf->n_partitions; k++) {
                const ice_field_summary *fs = &mf->partitions[k];
                zb_avro_value *f = mfb_record(&b, &e[k], 4);
                if (f == NULL)
                    break;
                mfb_bool(&f[0], fs->contains_null);
                mfb_bool(mfb_field(&b, &f[1], 1, fs->contains_nan >= 0),
                         fs->contains_nan > 0);
                mfb_bytes(mfb_field(&b, &f[2], 1, fs->lower_bound != NULL),
                          fs->lower_bound, fs->lower_bound_len);
                mfb_bytes(mfb_field(&b, &f[3], 1, fs->upper_bound != NULL),
                          fs->upper_bound, fs->upper_bound_len);
            }
            break;
        }
        case 519:
            mfb_bytes(mfb_field(&b, s, opt, mf->key_metadata != NULL),
                      mf->key_metadata, mf->key_metadata_len);
            break;
        case 520:
            mfb_long(mfb_field(&b, s, opt, first_row_id != ICE_NULL_LONG),
                     first_row_id);
            break;
        default:
            break;
        }
    }
    if (b.oom)
        return zb_fail_oom(ctx);
    if ((rc = zb_avro_writer_append(w->avro, ctx, &rec)) < 0)
        return zb_err_prefix(ctx, "manifest list entry %s",
                             mf->manifest_path);
    return ZB_OK;
}

int64_t ice_manifest_list_writer_next_row_id(const ice_manifest_list_writer *w)
{
    return w->next_row_id;
}

int ice_manifest_list_writer_commit(ice_manifest_list_writer *w, zb_ctx *ctx)
{
    int rc;

    if (w == NULL)
        return ZB_EINVAL;
    rc = zb_avro_writer_commit(w->avro, ctx);
    w->avro = NULL;
    ice_manifest_list_writer_abort(w);
    return rc;
}

void ice_manifest_list_writer_abort(ice_manifest_list_writer *w)
{
    if (w == NULL)
        return;
    zb_avro_writer_abort(w->avro);
    zb_arena_free(w->arena);
    zb_free(w);
}

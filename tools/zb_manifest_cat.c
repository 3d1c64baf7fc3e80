/*
 * zb-manifest-cat - prints the live entries of a table's current snapshot
 * (or of one manifest) as canonical JSON lines, the form that
 * tests/interop/manifest/avsc_manifests.mjs builds from what avsc decodes
 * out of the same files, so that the two can be compared entry by entry.
 *
 * Usage:
 *   zb-manifest-cat [--remap FROM=TO]... TABLE_DIR
 *       finds the newest metadata file, remaps the table's recorded
 *       location (and its "./"-less form) to TABLE_DIR, and walks the
 *       current snapshot with ice_snapshot_iter
 *   zb-manifest-cat --manifest FILE [--version N]
 *       one manifest, without inheritance context (all entries)
 *   zb-manifest-cat --list FILE [--version N]
 *       one manifest list, one line per manifest
 *
 * Output: a header line {"metadata":...,"format_version":N,
 * "snapshot_id":"...","manifest_list":...} (table mode), then one line per
 * entry: manifest (path as the list wrote it), status, snapshot_id and
 * sequence numbers after inheritance, and every data_file field. Longs are
 * decimal strings, bytes "0x" + hex, maps [[key, value], ...] in file
 * order, partition values as avsc gives them except decimals, which are
 * the unscaled integer and the scale as "123321e-3".
 *
 * Exit: 0; 1 on a read error (message on stderr, naming the file and
 * field); 3 when a manifest holds fields this reader does not interpret
 * (named on stderr: "not read yet: ..."); 2 on usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "table/manifest/manifest.h"
#include "util/alloc.h"

#define MAX_REMAPS 16

static void put_str(FILE *out, const char *s, size_t n)
{
    size_t i;

    fputc('"', out);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void put_cstr(FILE *out, const char *s)
{
    if (s == NULL)
        fputs("null", out);
    else
        put_str(out, s, strlen(s));
}

static void put_hex(FILE *out, const uint8_t *p, size_t n)
{
    size_t i;

    if (p == NULL) {
        fputs("null", out);
        return;
    }
    fputs("\"0x", out);
    for (i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
    fputc('"', out);
}

static void put_long(FILE *out, int64_t v)
{
    if (v == ICE_NULL_LONG)
        fputs("null", out);
    else
        fprintf(out, "\"%lld\"", (long long)v);
}

static void put_double(FILE *out, double d)
{
    if (isnan(d))
        fputs("\"NaN\"", out);
    else if (isinf(d))
        fputs(d > 0 ? "\"Infinity\"" : "\"-Infinity\"", out);
    else
        fprintf(out, "%.17g", d);
}

/* The unscaled value of a decimal as a decimal string. */
static void put_i128(FILE *out, ice_i128 v)
{
    char digits[64];
    size_t n = 0;
    int neg = v.hi < 0;
    uint64_t hi = (uint64_t)v.hi, lo = v.lo;

    if (neg) {               /* two's complement negate */
        hi = ~hi;
        lo = ~lo + 1;
        if (lo == 0)
            hi++;
    }
    do {                     /* divide the 128-bit magnitude by 10 */
        uint64_t rem = 0, parts[4] = { hi >> 32, hi & 0xffffffffu,
                                       lo >> 32, lo & 0xffffffffu };
        int i;
        for (i = 0; i < 4; i++) {
            uint64_t cur = (rem << 32) | parts[i];
            parts[i] = cur / 10;
            rem = cur % 10;
        }
        hi = (parts[0] << 32) | parts[1];
        lo = (parts[2] << 32) | parts[3];
        digits[n++] = (char)('0' + rem);
    } while (hi != 0 || lo != 0);
    if (neg)
        fputc('-', out);
    while (n > 0)
        fputc(digits[--n], out);
}

static void put_value(FILE *out, const ice_value *v)
{
    if (v->is_null) {
        fputs("null", out);
        return;
    }
    switch (v->type) {
    case ICE_BOOLEAN: fputs(v->u.b ? "true" : "false", out); break;
    case ICE_INT:
    case ICE_DATE: fprintf(out, "%d", (int)v->u.i); break;
    case ICE_LONG:
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS: put_long(out, v->u.l); break;
    case ICE_FLOAT: put_double(out, (double)v->u.f); break;
    case ICE_DOUBLE: put_double(out, v->u.d); break;
    case ICE_STRING:
        put_str(out, (const char *)v->u.bin.ptr, v->u.bin.len);
        break;
    case ICE_BINARY:
    case ICE_FIXED: put_hex(out, v->u.bin.ptr, v->u.bin.len); break;
    case ICE_UUID: put_hex(out, v->u.uuid, 16); break;
    case ICE_DECIMAL:
        fputc('"', out);
        put_i128(out, v->u.dec.unscaled);
        fprintf(out, "e-%d\"", (int)v->u.dec.scale);
        break;
    default: fputs("\"?\"", out); break;
    }
}

static void put_lmap(FILE *out, const ice_long_map *m)
{
    size_t i;

    if (!m->has) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (i = 0; i < m->n; i++)
        fprintf(out, "%s[%d,\"%lld\"]", i ? "," : "",
                (int)m->items[i].field_id, (long long)m->items[i].value);
    fputc(']', out);
}

static void put_bmap(FILE *out, const ice_bytes_map *m)
{
    size_t i;

    if (!m->has) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (i = 0; i < m->n; i++) {
        fprintf(out, "%s[%d,", i ? "," : "", (int)m->items[i].field_id);
        put_hex(out, m->items[i].ptr, m->items[i].len);
        fputc(']', out);
    }
    fputc(']', out);
}

static void put_entry(FILE *out, const ice_manifest_entry *e,
                      const ice_manifest_file *mf)
{
    const ice_data_file *f = &e->data_file;
    size_t i;

    fputs("{\"manifest\":", out);
    put_cstr(out, mf ? mf->manifest_path : NULL);
    fprintf(out, ",\"status\":%d,\"snapshot_id\":", (int)e->status);
    put_long(out, e->snapshot_id);
    fputs(",\"sequence_number\":", out);
    put_long(out, e->sequence_number);
    fputs(",\"file_sequence_number\":", out);
    put_long(out, e->file_sequence_number);
    fprintf(out, ",\"content\":%d,\"file_path\":", (int)f->content);
    put_cstr(out, f->file_path);
    fputs(",\"file_format\":", out);
    put_cstr(out, f->file_format);
    fputs(",\"partition\":{", out);
    for (i = 0; i < f->n_partition; i++) {
        fputs(i ? "," : "", out);
        put_cstr(out, f->partition_names[i]);
        fputc(':', out);
        put_value(out, &f->partition[i]);
    }
    fputs("},\"record_count\":", out);
    put_long(out, f->record_count);
    fputs(",\"file_size_in_bytes\":", out);
    put_long(out, f->file_size_in_bytes);
    fputs(",\"block_size_in_bytes\":", out);
    put_long(out, f->block_size_in_bytes);
    fputs(",\"column_sizes\":", out);
    put_lmap(out, &f->column_sizes);
    fputs(",\"value_counts\":", out);
    put_lmap(out, &f->value_counts);
    fputs(",\"null_value_counts\":", out);
    put_lmap(out, &f->null_value_counts);
    fputs(",\"nan_value_counts\":", out);
    put_lmap(out, &f->nan_value_counts);
    fputs(",\"lower_bounds\":", out);
    put_bmap(out, &f->lower_bounds);
    fputs(",\"upper_bounds\":", out);
    put_bmap(out, &f->upper_bounds);
    fputs(",\"key_metadata\":", out);
    put_hex(out, f->key_metadata, f->key_metadata_len);
    fputs(",\"split_offsets\":", out);
    if (!f->has_split_offsets) {
        fputs("null", out);
    } else {
        fputc('[', out);
        for (i = 0; i < f->n_split_offsets; i++) {
            fputs(i ? "," : "", out);
            put_long(out, f->split_offsets[i]);
        }
        fputc(']', out);
    }
    fputs(",\"equality_ids\":", out);
    if (!f->has_equality_ids) {
        fputs("null", out);
    } else {
        fputc('[', out);
        for (i = 0; i < f->n_equality_ids; i++)
            fprintf(out, "%s%d", i ? "," : "", (int)f->equality_ids[i]);
        fputc(']', out);
    }
    fputs(",\"sort_order_id\":", out);
    if (f->has_sort_order_id)
        fprintf(out, "%d", (int)f->sort_order_id);
    else
        fputs("null", out);
    fputs(",\"first_row_id\":", out);
    put_long(out, f->first_row_id);
    fputs(",\"referenced_data_file\":", out);
    put_cstr(out, f->referenced_data_file);
    fputs(",\"content_offset\":", out);
    put_long(out, f->content_offset);
    fputs(",\"content_size_in_bytes\":", out);
    put_long(out, f->content_size_in_bytes);
    fputs("}\n", out);
}

static void put_list_entry(FILE *out, const ice_manifest_file *mf)
{
    size_t i;

    fputs("{\"manifest_path\":", out);
    put_cstr(out, mf->manifest_path);
    fprintf(out, ",\"manifest_length\":\"%lld\",\"partition_spec_id\":%d,"
            "\"content\":%d,\"sequence_number\":\"%lld\","
            "\"min_sequence_number\":\"%lld\",\"added_snapshot_id\":",
            (long long)mf->manifest_length, (int)mf->partition_spec_id,
            (int)mf->content, (long long)mf->sequence_number,
            (long long)mf->min_sequence_number);
    put_long(out, mf->added_snapshot_id);
    fprintf(out, ",\"counts\":[%lld,%lld,%lld,%lld,%lld,%lld]",
            (long long)mf->added_files_count,
            (long long)mf->existing_files_count,
            (long long)mf->deleted_files_count,
            (long long)mf->added_rows_count,
            (long long)mf->existing_rows_count,
            (long long)mf->deleted_rows_count);
    fputs(",\"partitions\":", out);
    if (!mf->has_partitions) {
        fputs("null", out);
    } else {
        fputc('[', out);
        for (i = 0; i < mf->n_partitions; i++) {
            const ice_field_summary *s = &mf->partitions[i];
            fprintf(out, "%s{\"contains_null\":%s,\"contains_nan\":%s,"
                    "\"lower_bound\":", i ? "," : "",
                    s->contains_null ? "true" : "false",
                    s->contains_nan < 0 ? "null"
                    : s->contains_nan ? "true" : "false");
            put_hex(out, s->lower_bound, s->lower_bound_len);
            fputs(",\"upper_bound\":", out);
            put_hex(out, s->upper_bound, s->upper_bound_len);
            fputc('}', out);
        }
        fputc(']', out);
    }
    fputs(",\"key_metadata\":", out);
    put_hex(out, mf->key_metadata, mf->key_metadata_len);
    fputs(",\"first_row_id\":", out);
    put_long(out, mf->first_row_id);
    fputs("}\n", out);
}

static int fail(zb_ctx *ctx, const char *what)
{
    fprintf(stderr, "zb-manifest-cat: %s: %s: %s\n", what,
            zb_rc_name(ctx->err.code), ctx->err.msg);
    return 1;
}

static int cat_table(zb_io *io, zb_ctx *ctx, const char *dir,
                     ice_path_remap *remaps, size_t n_remaps)
{
    char *uri = NULL, *stripped = NULL;
    ice_metadata *m = NULL;
    ice_snapshot_iter *it = NULL;
    ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;
    const ice_snapshot *snap;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    size_t i;
    int rc, ret = 1;

    if (ice_metadata_find_latest(&uri, io, ctx, dir) < 0 ||
        ice_metadata_load(&m, io, ctx, uri) < 0) {
        ret = fail(ctx, dir);
        goto done;
    }
    /* the table's recorded location is this folder */
    remaps[n_remaps].from = m->location;
    remaps[n_remaps++].to = dir;
    if (strncmp(m->location, "./", 2) == 0) {
        remaps[n_remaps].from = m->location + 2;
        remaps[n_remaps++].to = dir;
    }
    o.remaps = remaps;
    o.n_remaps = n_remaps;
    printf("{\"metadata\":");
    put_cstr(stdout, uri);
    printf(",\"format_version\":%d,\"location\":", m->format_version);
    put_cstr(stdout, m->location);
    if ((snap = ice_metadata_current_snapshot(m)) == NULL) {
        printf(",\"snapshot_id\":null}\n");
        ret = 0;
        goto done;
    }
    printf(",\"snapshot_id\":\"%lld\",\"manifest_list\":",
           (long long)snap->snapshot_id);
    put_cstr(stdout, snap->manifest_list);
    printf("}\n");
    if (ice_snapshot_iter_open(&it, io, ctx, m, snap, &o) < 0) {
        ret = fail(ctx, dir);
        goto done;
    }
    while ((rc = ice_snapshot_iter_next(it, ctx, &e, &mf)) > 0)
        put_entry(stdout, e, mf);
    if (rc < 0) {
        ret = fail(ctx, dir);
        goto done;
    }
    ret = 0;
    for (i = 0; i < ice_snapshot_iter_unknown(it); i++) {
        fprintf(stderr, "zb-manifest-cat: %s: not read yet: manifest field"
                " %s\n", dir, ice_snapshot_iter_unknown_name(it, i));
        ret = 3;
    }
done:
    fflush(stdout);
    ice_snapshot_iter_free(it);
    ice_metadata_free(m);
    zb_free(uri);
    zb_free(stripped);
    return ret;
}

static int cat_manifest(zb_io *io, zb_ctx *ctx, const char *path, int version)
{
    ice_manifest_reader *r = NULL;
    const ice_manifest_entry *e;
    size_t i;
    int rc, ret = 0;

    if (ice_manifest_open(&r, io, ctx, NULL, path, version, NULL) < 0)
        return fail(ctx, path);
    while ((rc = ice_manifest_next(r, ctx, &e)) > 0)
        put_entry(stdout, e, NULL);
    if (rc < 0)
        ret = fail(ctx, path);
    for (i = 0; ret == 0 && i < ice_manifest_reader_unknown(r); i++) {
        fprintf(stderr, "zb-manifest-cat: %s: not read yet: manifest field"
                " %s\n", path, ice_manifest_reader_unknown_name(r, i));
        ret = 3;
    }
    ice_manifest_free(r);
    return ret;
}

static int cat_list(zb_io *io, zb_ctx *ctx, const char *path, int version)
{
    ice_manifest_list_reader *r = NULL;
    const ice_manifest_file *mf;
    int rc, ret = 0;

    if (ice_manifest_list_open(&r, io, ctx, path, version, NULL) < 0)
        return fail(ctx, path);
    while ((rc = ice_manifest_list_next(r, ctx, &mf)) > 0)
        put_list_entry(stdout, mf);
    if (rc < 0)
        ret = fail(ctx, path);
    ice_manifest_list_free(r);
    return ret;
}

int main(int argc, char **argv)
{
    ice_path_remap remaps[MAX_REMAPS + 2];
    size_t n_remaps = 0;
    const char *manifest = NULL, *list = NULL, *dir = NULL;
    int version = 2, i, ret;
    zb_io *io = NULL;
    zb_ctx ctx;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--remap") == 0 && i + 1 < argc &&
            n_remaps < MAX_REMAPS && strchr(argv[i + 1], '=')) {
            char *eq = strchr(argv[++i], '=');
            *eq = '\0';
            remaps[n_remaps].from = argv[i];
            remaps[n_remaps++].to = eq + 1;
        } else if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc) {
            manifest = argv[++i];
        } else if (strcmp(argv[i], "--list") == 0 && i + 1 < argc) {
            list = argv[++i];
        } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
            version = (int)strtol(argv[++i], NULL, 10);
        } else if (argv[i][0] != '-' && dir == NULL) {
            dir = argv[i];
        } else {
            dir = NULL;
            manifest = list = NULL;
            break;
        }
    }
    if (!dir && !manifest && !list) {
        fprintf(stderr, "usage: zb-manifest-cat [--remap FROM=TO]..."
                " TABLE_DIR\n       zb-manifest-cat --manifest FILE"
                " [--version N]\n       zb-manifest-cat --list FILE"
                " [--version N]\n");
        return 2;
    }
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        return fail(&ctx, "io");
    if (manifest)
        ret = cat_manifest(io, &ctx, manifest, version);
    else if (list)
        ret = cat_list(io, &ctx, list, version);
    else
        ret = cat_table(io, &ctx, dir, remaps, n_remaps);
    zb_io_free(io);
    return ret;
}

/*
 * table/manifest/manifest_schema.c - the Avro schemas that manifests and
 * manifest lists are written with, for format versions 1, 2 and 3, and the JSON
 * of the table schema and partition fields that go into a manifest's key-value
 * metadata.
 *
 * The schemas are generated from field tables (mf__list_fields,
 * mf__entry_fields, mf__data_file_fields below) that restate the spec's
 * "Manifest Lists", "Manifest Entry Fields" and "Data File Fields"
 * tables: id, name, Avro type, the versions that have the field and the
 * versions where it is optional. The writers build their records by
 * walking the same tables, so a record always matches its schema.
 * Optional fields are ["null", T] unions with a null default; maps with
 * int keys are arrays of key/value records with logicalType "map" and the
 * key and value ids, as the spec's Appendix A asks; record and map-entry
 * names follow the r<id> and k<id>_v<id> convention of the files in the
 * wild (a reader may not care, but people diffing files do).
 *
 * The partition struct (r102) is built from the spec: one optional field
 * per partition field, named after it (made a valid Avro name as Iceberg
 * Java does, with _xHH escapes), with the field id of the partition field
 * and the Avro type of the transform's result type (Appendix A).
 */
#define ZB_MODULE "table"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "table/manifest/manifest_int.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

#define V1 (1u << 1)
#define V2 (1u << 2)
#define V3 (1u << 3)
#define ALL (V1 | V2 | V3)

#define MAP_LL(k, v) \
    "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"k" #k \
    "_v" #v "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"," \
    "\"field-id\":" #k "},{\"name\":\"value\",\"type\":\"long\"," \
    "\"field-id\":" #v "}]},\"logicalType\":\"map\"}"
#define MAP_LB(k, v) \
    "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"k" #k \
    "_v" #v "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"," \
    "\"field-id\":" #k "},{\"name\":\"value\",\"type\":\"bytes\"," \
    "\"field-id\":" #v "}]},\"logicalType\":\"map\"}"

#define SUMMARY \
    "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"r508\"," \
    "\"fields\":[{\"name\":\"contains_null\",\"type\":\"boolean\"," \
    "\"field-id\":509},{\"name\":\"contains_nan\",\"type\":[\"null\"," \
    "\"boolean\"],\"default\":null,\"field-id\":518},{\"name\":" \
    "\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null," \
    "\"field-id\":510},{\"name\":\"upper_bound\",\"type\":[\"null\"," \
    "\"bytes\"],\"default\":null,\"field-id\":511}]},\"element-id\":508}"

const mf_desc mf__list_fields[] = {
    { 500, "manifest_path", "\"string\"", ALL, 0 },
    { 501, "manifest_length", "\"long\"", ALL, 0 },
    { 502, "partition_spec_id", "\"int\"", ALL, 0 },
    { 517, "content", "\"int\"", V2 | V3, 0 },
    { 515, "sequence_number", "\"long\"", V2 | V3, 0 },
    { 516, "min_sequence_number", "\"long\"", V2 | V3, 0 },
    { 503, "added_snapshot_id", "\"long\"", ALL, 0 },
    { 504, "added_files_count", "\"int\"", ALL, V1 },
    { 505, "existing_files_count", "\"int\"", ALL, V1 },
    { 506, "deleted_files_count", "\"int\"", ALL, V1 },
    { 512, "added_rows_count", "\"long\"", ALL, V1 },
    { 513, "existing_rows_count", "\"long\"", ALL, V1 },
    { 514, "deleted_rows_count", "\"long\"", ALL, V1 },
    { 507, "partitions", SUMMARY, ALL, ALL },
    { 519, "key_metadata", "\"bytes\"", ALL, ALL },
    { 520, "first_row_id", "\"long\"", V3, V3 },
    { 0, NULL, NULL, 0, 0 }
};

const mf_desc mf__entry_fields[] = {
    { 0, "status", "\"int\"", ALL, 0 },
    { 1, "snapshot_id", "\"long\"", ALL, V2 | V3 },
    { 3, "sequence_number", "\"long\"", V2 | V3, V2 | V3 },
    { 4, "file_sequence_number", "\"long\"", V2 | V3, V2 | V3 },
    { 2, "data_file", NULL, ALL, 0 },
    { 0, NULL, NULL, 0, 0 }
};

const mf_desc mf__data_file_fields[] = {
    { 134, "content", "\"int\"", V2 | V3, 0 },
    { 100, "file_path", "\"string\"", ALL, 0 },
    { 101, "file_format", "\"string\"", ALL, 0 },
    { 102, "partition", NULL, ALL, 0 },
    { 103, "record_count", "\"long\"", ALL, 0 },
    { 104, "file_size_in_bytes", "\"long\"", ALL, 0 },
    { 105, "block_size_in_bytes", "\"long\"", V1, 0 },
    { 108, "column_sizes", MAP_LL(117, 118), ALL, ALL },
    { 109, "value_counts", MAP_LL(119, 120), ALL, ALL },
    { 110, "null_value_counts", MAP_LL(121, 122), ALL, ALL },
    { 137, "nan_value_counts", MAP_LL(138, 139), ALL, ALL },
    { 125, "lower_bounds", MAP_LB(126, 127), ALL, ALL },
    { 128, "upper_bounds", MAP_LB(129, 130), ALL, ALL },
    { 131, "key_metadata", "\"bytes\"", ALL, ALL },
    { 132, "split_offsets",
      "{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}", ALL,
      ALL },
    { 135, "equality_ids",
      "{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}", V2 | V3,
      V2 | V3 },
    { 140, "sort_order_id", "\"int\"", ALL, ALL },
    { 142, "first_row_id", "\"long\"", V3, V3 },
    { 143, "referenced_data_file", "\"string\"", V2 | V3, V2 | V3 },
    { 144, "content_offset", "\"long\"", V3, V3 },
    { 145, "content_size_in_bytes", "\"long\"", V3, V3 },
    { 0, NULL, NULL, 0, 0 }
};

int mf__desc_in(const mf_desc *d, int version)
{
    return (d->versions & (1u << version)) != 0;
}

int mf__desc_optional(const mf_desc *d, int version)
{
    return (d->optional & (1u << version)) != 0;
}

/* {"name":N,"type":T,"field-id":ID} or the optional form. */
static int put_field(zb_buf *b, const char *name, const char *type,
                     int64_t id, int optional)
{
    int rc = zb_buf_puts(b, "{\"name\":");

    if (rc == ZB_OK)
        rc = mf__json_str(b, name);
    if (rc == ZB_OK)
        rc = optional ? zb_buf_appendf(b, ",\"type\":[\"null\",%s],"
                                       "\"default\":null", type)
                      : zb_buf_appendf(b, ",\"type\":%s", type);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, ",\"field-id\":%lld}", (long long)id);
    return rc;
}

/* Iceberg Java's rule for Avro names: [A-Za-z_][A-Za-z0-9_]*, others _xHH. */
static int put_avro_name(zb_buf *b, const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    int rc = ZB_OK;
    size_t i;

    for (i = 0; rc == ZB_OK && p[i]; i++) {
        int ok = (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z')
                 || p[i] == '_' || (i > 0 && p[i] >= '0' && p[i] <= '9');
        if (ok)
            rc = zb_buf_putc(b, (char)p[i]);
        else if (i == 0 && p[i] >= '0' && p[i] <= '9')
            rc = zb_buf_appendf(b, "_%c", p[i]);
        else
            rc = zb_buf_appendf(b, "_x%X", p[i]);
    }
    if (rc == ZB_OK && i == 0)
        rc = zb_buf_putc(b, '_');
    return rc;
}

size_t mf__decimal_bytes(int32_t precision)
{
    size_t n;

    for (n = 1; n < 16; n++)
        if ((double)precision <= floor((double)(8 * n - 1) * log10(2.0)))
            break;
    return n;
}

/* The Avro type of a partition field (Appendix A). named: types already
 * defined by name in this schema, so that a repeat is a reference. */
static int put_prim(zb_buf *b, zb_ctx *ctx, const ice_prim *p, zb_buf *named)
{
    char name[64] = "";
    int rc;

    switch (p->id) {
    case ICE_BOOLEAN: return zb_buf_puts(b, "\"boolean\"");
    case ICE_INT: return zb_buf_puts(b, "\"int\"");
    case ICE_LONG: return zb_buf_puts(b, "\"long\"");
    case ICE_FLOAT: return zb_buf_puts(b, "\"float\"");
    case ICE_DOUBLE: return zb_buf_puts(b, "\"double\"");
    case ICE_STRING: return zb_buf_puts(b, "\"string\"");
    case ICE_BINARY: return zb_buf_puts(b, "\"bytes\"");
    case ICE_DATE:
        return zb_buf_puts(b, "{\"type\":\"int\",\"logicalType\":\"date\"}");
    case ICE_TIME:
        return zb_buf_puts(b, "{\"type\":\"long\",\"logicalType\":"
                           "\"time-micros\"}");
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
        return zb_buf_appendf(b, "{\"type\":\"long\",\"logicalType\":"
                              "\"timestamp-micros\",\"adjust-to-utc\":%s}",
                              p->id == ICE_TIMESTAMPTZ ? "true" : "false");
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        return zb_buf_appendf(b, "{\"type\":\"long\",\"logicalType\":"
                              "\"timestamp-nanos\",\"adjust-to-utc\":%s}",
                              p->id == ICE_TIMESTAMPTZ_NS ? "true" : "false");
    case ICE_UUID:
        snprintf(name, sizeof name, "uuid_fixed");
        break;
    case ICE_FIXED:
        snprintf(name, sizeof name, "fixed_%d", (int)p->length);
        break;
    case ICE_DECIMAL:
        snprintf(name, sizeof name, "decimal_%d_%d", (int)p->precision,
                 (int)p->scale);
        break;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "manifest: no Avro type for a"
                       " %s partition field", ice_type_name(p->id));
    }
    {
        /* named holds ",name1,name2," */
        char key[72];
        snprintf(key, sizeof key, ",%s,", name);
        if (named->len > 0 && strstr(named->ptr, key) != NULL)
            return zb_buf_appendf(b, "\"%s\"", name);
        if ((named->len == 0 && (rc = zb_buf_putc(named, ',')) < 0) ||
            (rc = zb_buf_appendf(named, "%s,", name)) < 0)
            return rc;
    }
    if (p->id == ICE_UUID)
        return zb_buf_puts(b, "{\"type\":\"fixed\",\"name\":\"uuid_fixed\","
                           "\"size\":16,\"logicalType\":\"uuid\"}");
    if (p->id == ICE_FIXED)
        return zb_buf_appendf(b, "{\"type\":\"fixed\",\"name\":\"%s\","
                              "\"size\":%d}", name, (int)p->length);
    return zb_buf_appendf(b, "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%zu,"
                          "\"logicalType\":\"decimal\",\"precision\":%d,"
                          "\"scale\":%d}", name,
                          mf__decimal_bytes(p->precision), (int)p->precision,
                          (int)p->scale);
}

int mf__partition_types(ice_prim *out, zb_ctx *ctx, const ice_schema *schema,
                        const ice_partition_spec *spec)
{
    size_t i;
    int rc;

    for (i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *pf = &spec->fields[i];
        const ice_type *src = ice_schema_find_type(schema, pf->source_id);
        ice_transform t;
        if (src == NULL || src->id >= ICE_STRUCT)
            return zb_fail(ctx, ZB_EINVAL, "manifest: partition field %s:"
                           " source id %d is not a primitive field of schema"
                           " %d", pf->name, (int)pf->source_id,
                           (int)schema->schema_id);
        if ((rc = ice_transform_parse(&t, ctx, pf->transform)) < 0 ||
            (rc = ice_transform_result_type(&out[i], ctx, &t, &src->prim)) < 0)
            return zb_err_prefix(ctx, "manifest: partition field %s",
                                 pf->name);
    }
    return ZB_OK;
}

int ice_manifest_avro_schema(zb_buf *out, zb_ctx *ctx, int format_version,
                             const ice_schema *schema,
                             const ice_partition_spec *spec)
{
    zb_buf part = ZB_BUF_INIT((size_t)16 << 20);
    zb_buf df = ZB_BUF_INIT((size_t)16 << 20);
    zb_buf named = ZB_BUF_INIT(1 << 20);
    ice_prim *types = NULL;
    const mf_desc *d;
    size_t i;
    int rc = ZB_OK, first = 1;

    if (spec->n_fields > 0) {
        if ((types = zb_calloc(spec->n_fields, sizeof *types)) == NULL)
            return zb_fail_oom(ctx);
        if ((rc = mf__partition_types(types, ctx, schema, spec)) < 0)
            goto done;
    }
    rc = zb_buf_puts(&part, "{\"type\":\"record\",\"name\":\"r102\","
                     "\"fields\":[");
    for (i = 0; rc == ZB_OK && i < spec->n_fields; i++) {
        zb_buf t = ZB_BUF_INIT(1 << 20);
        if (i > 0)
            rc = zb_buf_putc(&part, ',');
        if (rc == ZB_OK)
            rc = zb_buf_puts(&part, "{\"name\":\"");
        if (rc == ZB_OK)
            rc = put_avro_name(&part, spec->fields[i].name);
        if (rc == ZB_OK)
            rc = put_prim(&t, ctx, &types[i], &named);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(&part, "\",\"type\":[\"null\",%s],"
                                "\"default\":null,\"field-id\":%d}",
                                t.ptr, (int)spec->fields[i].field_id);
        zb_buf_free(&t);
    }
    if (rc == ZB_OK)
        rc = zb_buf_puts(&part, "]}");
    if (rc == ZB_OK)
        rc = zb_buf_puts(&df, "{\"type\":\"record\",\"name\":\"r2\","
                         "\"fields\":[");
    for (d = mf__data_file_fields; rc == ZB_OK && d->name; d++) {
        if (!mf__desc_in(d, format_version))
            continue;
        if (!first)
            rc = zb_buf_putc(&df, ',');
        first = 0;
        if (rc == ZB_OK)
            rc = put_field(&df, d->name, d->id == 102 ? part.ptr : d->type,
                           d->id, mf__desc_optional(d, format_version));
    }
    if (rc == ZB_OK)
        rc = zb_buf_puts(&df, "]}");
    if (rc == ZB_OK)
        rc = zb_buf_puts(out, "{\"type\":\"record\",\"name\":"
                         "\"manifest_entry\",\"fields\":[");
    first = 1;
    for (d = mf__entry_fields; rc == ZB_OK && d->name; d++) {
        if (!mf__desc_in(d, format_version))
            continue;
        if (!first)
            rc = zb_buf_putc(out, ',');
        first = 0;
        if (rc == ZB_OK)
            rc = put_field(out, d->name, d->id == 2 ? df.ptr : d->type,
                           d->id, mf__desc_optional(d, format_version));
    }
    if (rc == ZB_OK)
        rc = zb_buf_puts(out, "]}");
    if (rc == ZB_ENOMEM && ctx->err.code != ZB_ENOMEM)
        rc = zb_fail_oom(ctx);
done:
    zb_free(types);
    zb_buf_free(&part);
    zb_buf_free(&df);
    zb_buf_free(&named);
    return rc;
}

int ice_manifest_list_avro_schema(zb_buf *out, int format_version)
{
    const mf_desc *d;
    int rc, first = 1;

    rc = zb_buf_puts(out, "{\"type\":\"record\",\"name\":\"manifest_file\","
                     "\"fields\":[");
    for (d = mf__list_fields; rc == ZB_OK && d->name; d++) {
        if (!mf__desc_in(d, format_version))
            continue;
        if (!first)
            rc = zb_buf_putc(out, ',');
        first = 0;
        if (rc == ZB_OK)
            rc = put_field(out, d->name, d->type, d->id,
                           mf__desc_optional(d, format_version));
    }
    if (rc == ZB_OK)
        rc = zb_buf_puts(out, "]}");
    return rc;
}

/* ---- table schema and partition fields as JSON (Appendix C) ---- */

static int type_json(zb_buf *b, zb_ctx *ctx, const ice_type *t, int depth);

static int struct_json(zb_buf *b, zb_ctx *ctx, const ice_type *t, int depth,
                       int32_t schema_id, int top)
{
    size_t i;
    int rc = zb_buf_puts(b, "{\"type\":\"struct\"");

    if (rc == ZB_OK && top)
        rc = zb_buf_appendf(b, ",\"schema-id\":%d", (int)schema_id);
    if (rc == ZB_OK)
        rc = zb_buf_puts(b, ",\"fields\":[");
    for (i = 0; rc == ZB_OK && i < t->n_fields; i++) {
        const ice_field *f = &t->fields[i];
        rc = zb_buf_appendf(b, "%s{\"id\":%d,\"name\":", i ? "," : "",
                            (int)f->id);
        if (rc == ZB_OK)
            rc = mf__json_str(b, f->name);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(b, ",\"required\":%s,\"type\":",
                                f->required ? "true" : "false");
        if (rc == ZB_OK)
            rc = type_json(b, ctx, f->type, depth + 1);
        if (rc == ZB_OK && f->doc) {
            rc = zb_buf_puts(b, ",\"doc\":");
            if (rc == ZB_OK)
                rc = mf__json_str(b, f->doc);
        }
        if (rc == ZB_OK && f->initial_default)
            rc = zb_buf_appendf(b, ",\"initial-default\":%s",
                                f->initial_default);
        if (rc == ZB_OK && f->write_default)
            rc = zb_buf_appendf(b, ",\"write-default\":%s", f->write_default);
        if (rc == ZB_OK)
            rc = zb_buf_putc(b, '}');
    }
    if (rc == ZB_OK)
        rc = zb_buf_puts(b, "]}");
    return rc;
}

static int type_json(zb_buf *b, zb_ctx *ctx, const ice_type *t, int depth)
{
    int rc;

    if (depth > ICE_MAX_TYPE_DEPTH)
        return zb_fail(ctx, ZB_EINVAL, "schema nested too deep");
    if (t->id < ICE_STRUCT)
        return mf__json_str(b, t->text ? t->text : ice_type_name(t->id));
    if (t->id == ICE_STRUCT)
        return struct_json(b, ctx, t, depth, 0, 0);
    if (t->id == ICE_LIST) {
        rc = zb_buf_appendf(b, "{\"type\":\"list\",\"element-id\":%d,"
                            "\"element-required\":%s,\"element\":",
                            (int)t->element_id,
                            t->element_required ? "true" : "false");
        if (rc == ZB_OK)
            rc = type_json(b, ctx, t->element, depth + 1);
        return rc == ZB_OK ? zb_buf_putc(b, '}') : rc;
    }
    rc = zb_buf_appendf(b, "{\"type\":\"map\",\"key-id\":%d,\"key\":",
                        (int)t->key_id);
    if (rc == ZB_OK)
        rc = type_json(b, ctx, t->key, depth + 1);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, ",\"value-id\":%d,\"value-required\":%s,"
                            "\"value\":", (int)t->value_id,
                            t->value_required ? "true" : "false");
    if (rc == ZB_OK)
        rc = type_json(b, ctx, t->value, depth + 1);
    return rc == ZB_OK ? zb_buf_putc(b, '}') : rc;
}

int ice_schema_to_json(zb_buf *out, zb_ctx *ctx, const ice_schema *schema)
{
    int rc = struct_json(out, ctx, schema->root, 0, schema->schema_id, 1);

    if (rc == ZB_ENOMEM)
        return zb_fail_oom(ctx);
    return rc;
}

int ice_partition_fields_to_json(zb_buf *out, const ice_partition_spec *spec)
{
    size_t i;
    int rc = zb_buf_putc(out, '[');

    for (i = 0; rc == ZB_OK && i < spec->n_fields; i++) {
        const ice_partition_field *f = &spec->fields[i];
        rc = zb_buf_appendf(out, "%s{\"name\":", i ? "," : "");
        if (rc == ZB_OK)
            rc = mf__json_str(out, f->name);
        if (rc == ZB_OK)
            rc = zb_buf_puts(out, ",\"transform\":");
        if (rc == ZB_OK)
            rc = mf__json_str(out, f->transform);
        if (rc == ZB_OK)
            rc = zb_buf_appendf(out, ",\"source-id\":%d,\"field-id\":%d}",
                                (int)f->source_id, (int)f->field_id);
    }
    if (rc == ZB_OK)
        rc = zb_buf_putc(out, ']');
    return rc;
}

/*
 * table/manifest/manifest_util.c - what the manifest readers and writers share:
 * path resolution (prefix remaps, then the caller's callback), finding a
 * field of a file's Avro schema by its Iceberg field id, checked getters
 * of Avro values whose errors name the file, the record and the field,
 * and the mapping between Avro partition field types (with their
 * logicalType attributes) and Iceberg primitive types (spec Appendix A);
 * and the rules about one data file that every layer above asks (is it
 * a deletion vector, how many bytes does it take).
 *
 * Field lookup is by id, never by name: writers have renamed fields over
 * the versions (Iceberg Java's v1 manifest lists say
 * "added_data_files_count" for field 504), while ids are the contract.
 */
#define ZB_MODULE "table"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "table/manifest/manifest_int.h"
#include "util/err.h"

/* ---- data files ---- */

int ice_data_file_is_dv(const ice_data_file *f)
{
    return f->content == ICE_CONTENT_POSITION_DELETES &&
        f->file_format != NULL && strcasecmp(f->file_format, "puffin") == 0;
}

int64_t ice_data_file_stored_bytes(const ice_data_file *f)
{
    if (ice_data_file_is_dv(f) && f->content_size_in_bytes >= 0)
        return f->content_size_in_bytes;
    return f->file_size_in_bytes;
}

/* ---- paths ---- */

static int prefix_match(const char *path, const char *from)
{
    size_t n = strlen(from);

    if (n == 0 || strncmp(path, from, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || from[n - 1] == '/';
}

int ice_manifest_resolve_path(zb_buf *out, zb_ctx *ctx,
                              const ice_manifest_opts *opts, const char *path)
{
    size_t i;
    int rc = ZB_OK;

    zb_buf_clear(out);
    if (opts != NULL) {
        for (i = 0; i < opts->n_remaps; i++) {
            const ice_path_remap *r = &opts->remaps[i];
            if (r->from && r->to && prefix_match(path, r->from)) {
                if ((rc = zb_buf_puts(out, r->to)) < 0 ||
                    (rc = zb_buf_puts(out, path + strlen(r->from))) < 0)
                    return zb_fail_oom(ctx);
                break;
            }
        }
    }
    if (out->len == 0 && zb_buf_puts(out, path) < 0)
        return zb_fail_oom(ctx);
    if (opts != NULL && opts->resolve != NULL) {
        zb_buf tmp = ZB_BUF_INIT(out->max_bytes);
        if (zb_buf_append(&tmp, out->ptr, out->len) < 0)
            return zb_fail_oom(ctx);
        rc = opts->resolve(out, ctx, tmp.ptr, opts->resolve_payload);
        zb_buf_free(&tmp);
    }
    return rc;
}

/* ---- schema lookup ---- */

int mf__field(int *idx_out, zb_ctx *ctx, const char *uri,
              const zb_avro_node *rec, int64_t id, const char *name,
              int required)
{
    size_t i;

    *idx_out = MF_ABSENT;
    if (rec == NULL || rec->type != ZB_AVRO_RECORD)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: looking for field %s (id %lld):"
                       " not a record", uri, name, (long long)id);
    for (i = 0; i < rec->n; i++) {
        if (rec->fields[i].field_id == id) {
            *idx_out = (int)i;
            return ZB_OK;
        }
    }
    for (i = 0; i < rec->n; i++) {
        if (rec->fields[i].field_id == ZB_AVRO_NO_ID &&
            strcmp(rec->fields[i].name, name) == 0)
            return zb_fail(ctx, ZB_ECORRUPT,
                           "%s: record %s: field %s has no field-id (want %lld)",
                           uri, rec->name ? rec->name : "?", name,
                           (long long)id);
    }
    if (required)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: record %s: required field %s (id %lld) missing"
                       " from the schema", uri, rec->name ? rec->name : "?",
                       name, (long long)id);
    return ZB_OK;
}

const zb_avro_node *mf__base(const zb_avro_node *n)
{
    size_t i;

    if (n == NULL || n->type != ZB_AVRO_UNION)
        return n;
    for (i = 0; i < n->n; i++)
        if (n->branches[i]->type != ZB_AVRO_NULL)
            return n->branches[i];
    return n;
}

const zb_avro_value *mf__unwrap(const zb_avro_value *v)
{
    while (v != NULL && v->type == ZB_AVRO_UNION)
        v = v->v.u.value;
    if (v == NULL || v->type == ZB_AVRO_NULL)
        return NULL;
    return v;
}

const zb_avro_value *mf__get(const zb_avro_value *rec, int idx)
{
    if (idx < 0 || rec == NULL || rec->type != ZB_AVRO_RECORD ||
        (size_t)idx >= rec->v.list.n)
        return NULL;
    return mf__unwrap(&rec->v.list.items[idx]);
}

/* ---- getters ---- */

static int mismatch(zb_ctx *ctx, const mf_where *w, const char *name,
                    const char *want, const zb_avro_value *v)
{
    return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: field %s: expected %s,"
                   " found %s", w->uri, (unsigned long long)w->record, name,
                   want, zb_avro_type_name(v->type));
}

int mf__missing(zb_ctx *ctx, const mf_where *w, const char *name)
{
    return zb_fail(ctx, ZB_ECORRUPT, "%s: record %llu: required field %s is"
                   " null", w->uri, (unsigned long long)w->record, name);
}

int mf__long(int64_t *out, zb_ctx *ctx, const mf_where *w, const char *name,
             const zb_avro_value *v)
{
    if (v->type == ZB_AVRO_LONG)
        *out = v->v.i64;
    else if (v->type == ZB_AVRO_INT)
        *out = v->v.i32;
    else
        return mismatch(ctx, w, name, "long", v);
    return ZB_OK;
}

int mf__int(int32_t *out, zb_ctx *ctx, const mf_where *w, const char *name,
            const zb_avro_value *v)
{
    if (v->type != ZB_AVRO_INT)
        return mismatch(ctx, w, name, "int", v);
    *out = v->v.i32;
    return ZB_OK;
}

int mf__bool(int *out, zb_ctx *ctx, const mf_where *w, const char *name,
             const zb_avro_value *v)
{
    if (v->type != ZB_AVRO_BOOLEAN)
        return mismatch(ctx, w, name, "boolean", v);
    *out = v->v.boolean != 0;
    return ZB_OK;
}

int mf__str(const char **out, zb_ctx *ctx, const mf_where *w,
            const char *name, const zb_avro_value *v)
{
    if (v->type != ZB_AVRO_STRING)
        return mismatch(ctx, w, name, "string", v);
    *out = v->v.str.ptr;
    return ZB_OK;
}

int mf__bytes(const uint8_t **out, size_t *len, zb_ctx *ctx,
              const mf_where *w, const char *name, const zb_avro_value *v)
{
    if (v->type != ZB_AVRO_BYTES && v->type != ZB_AVRO_FIXED)
        return mismatch(ctx, w, name, "bytes", v);
    *out = v->v.bytes.ptr;
    *len = v->v.bytes.len;
    return ZB_OK;
}

/* ---- partition types ---- */

/* The integer after "key": in a node's JSON attributes, or dflt. */
static long attr_int(const char *json, const char *key, long dflt)
{
    char pat[64];
    const char *p;

    if (json == NULL)
        return dflt;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    if ((p = strstr(json, pat)) == NULL)
        return dflt;
    p += strlen(pat);
    while (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n')
        p++;
    return strtol(p, NULL, 10);
}

/* Non-zero when "adjust-to-utc" is true in the attributes. */
static int attr_utc(const char *json)
{
    const char *p;

    if (json == NULL || (p = strstr(json, "\"adjust-to-utc\"")) == NULL)
        return 0;
    p += strlen("\"adjust-to-utc\"");
    while (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n')
        p++;
    return strncmp(p, "true", 4) == 0;
}

static int lt_is(const zb_avro_node *n, const char *lt)
{
    return n->logical_type != NULL && strcmp(n->logical_type, lt) == 0;
}

int mf__avro_prim(ice_prim *out, zb_ctx *ctx, const char *uri,
                  const char *field, const zb_avro_node *n)
{
    memset(out, 0, sizeof *out);
    n = mf__base(n);
    switch (n->type) {
    case ZB_AVRO_BOOLEAN:
        out->id = ICE_BOOLEAN;
        break;
    case ZB_AVRO_INT:
        out->id = lt_is(n, "date") ? ICE_DATE : ICE_INT;
        break;
    case ZB_AVRO_LONG:
        if (lt_is(n, "time-micros"))
            out->id = ICE_TIME;
        else if (lt_is(n, "timestamp-micros"))
            out->id = attr_utc(n->attrs_json) ? ICE_TIMESTAMPTZ
                                              : ICE_TIMESTAMP;
        else if (lt_is(n, "timestamp-nanos"))
            out->id = attr_utc(n->attrs_json) ? ICE_TIMESTAMPTZ_NS
                                              : ICE_TIMESTAMP_NS;
        else
            out->id = ICE_LONG;
        break;
    case ZB_AVRO_FLOAT:
        out->id = ICE_FLOAT;
        break;
    case ZB_AVRO_DOUBLE:
        out->id = ICE_DOUBLE;
        break;
    case ZB_AVRO_STRING:
        out->id = lt_is(n, "uuid") ? ICE_UUID : ICE_STRING;
        break;
    case ZB_AVRO_BYTES:
    case ZB_AVRO_FIXED:
        if (lt_is(n, "decimal")) {
            out->id = ICE_DECIMAL;
            out->precision = (int32_t)attr_int(n->attrs_json, "precision", 38);
            out->scale = (int32_t)attr_int(n->attrs_json, "scale", 0);
        } else if (n->type == ZB_AVRO_FIXED && lt_is(n, "uuid")) {
            out->id = ICE_UUID;
        } else if (n->type == ZB_AVRO_FIXED) {
            out->id = ICE_FIXED;
            out->length = (int32_t)n->fixed_bytes;
        } else {
            out->id = ICE_BINARY;
        }
        break;
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: partition field %s: Avro"
                       " type %s is not an Iceberg partition type", uri,
                       field, zb_avro_type_name(n->type));
    }
    return ZB_OK;
}

int mf__to_ice(ice_value *out, zb_ctx *ctx, const mf_where *w,
               const char *name, const ice_prim *prim,
               const zb_avro_value *v)
{
    if (v == NULL) {
        *out = ice_value_null(prim->id);
        return ZB_OK;
    }
    switch (prim->id) {
    case ICE_BOOLEAN:
        if (v->type != ZB_AVRO_BOOLEAN)
            return mismatch(ctx, w, name, "boolean", v);
        *out = ice_value_bool(v->v.boolean);
        return ZB_OK;
    case ICE_INT:
    case ICE_DATE:
        if (v->type != ZB_AVRO_INT)
            return mismatch(ctx, w, name, "int", v);
        *out = prim->id == ICE_INT ? ice_value_int(v->v.i32)
                                   : ice_value_date(v->v.i32);
        return ZB_OK;
    case ICE_LONG:
        if (v->type != ZB_AVRO_LONG)
            return mismatch(ctx, w, name, "long", v);
        *out = ice_value_long(v->v.i64);
        return ZB_OK;
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS:
        if (v->type != ZB_AVRO_LONG)
            return mismatch(ctx, w, name, "long", v);
        *out = ice_value_time(prim->id, v->v.i64);
        return ZB_OK;
    case ICE_FLOAT:
        if (v->type != ZB_AVRO_FLOAT)
            return mismatch(ctx, w, name, "float", v);
        *out = ice_value_float(v->v.f32);
        return ZB_OK;
    case ICE_DOUBLE:
        if (v->type != ZB_AVRO_DOUBLE)
            return mismatch(ctx, w, name, "double", v);
        *out = ice_value_double(v->v.f64);
        return ZB_OK;
    case ICE_STRING:
        if (v->type != ZB_AVRO_STRING)
            return mismatch(ctx, w, name, "string", v);
        *out = ice_value_string(v->v.str.ptr, v->v.str.len);
        return ZB_OK;
    case ICE_BINARY:
    case ICE_FIXED:
    case ICE_UUID:
    case ICE_DECIMAL:
        if (v->type == ZB_AVRO_STRING && prim->id == ICE_UUID)
            /* Avro's own uuid: the text form (needs no arena) */
            return ice_value_from_text(out, ctx, NULL, prim, v->v.str.ptr,
                                       v->v.str.len);
        if (v->type != ZB_AVRO_BYTES && v->type != ZB_AVRO_FIXED)
            return mismatch(ctx, w, name, "bytes", v);
        if (prim->id == ICE_BINARY) {
            *out = ice_value_binary(v->v.bytes.ptr, v->v.bytes.len);
            return ZB_OK;
        }
        if (prim->id == ICE_FIXED) {
            *out = ice_value_fixed(v->v.bytes.ptr, v->v.bytes.len);
            return ZB_OK;
        }
        {
            int rc = ice_value_from_bytes(out, ctx, prim, v->v.bytes.ptr,
                                          v->v.bytes.len);
            if (rc < 0)
                return zb_err_prefix(ctx, "%s: record %llu: field %s", w->uri,
                                     (unsigned long long)w->record, name);
            return rc;
        }
    default:
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: field %s: partition type %s"
                       " not supported", w->uri, name,
                       ice_type_name(prim->id));
    }
}

int mf__json_str(zb_buf *out, const char *s)
{
    int rc = zb_buf_putc(out, '"');

    for (; rc == ZB_OK && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            rc = zb_buf_appendf(out, "\\%c", c);
        else if (c < 0x20)
            rc = zb_buf_appendf(out, "\\u%04x", c);
        else
            rc = zb_buf_putc(out, (char)c);
    }
    if (rc == ZB_OK)
        rc = zb_buf_putc(out, '"');
    return rc;
}

/* ---- building values to write ---- */

static zb_avro_value mf_null_value = { ZB_AVRO_NULL, { 0 } };

zb_avro_value *mfb_alloc(mf_build *b, size_t n)
{
    zb_avro_value *v;

    if (n == 0)
        n = 1;
    if ((v = zb_arena_calloc(b->arena, n, sizeof *v)) == NULL)
        b->oom = 1;
    return v;
}

zb_avro_value *mfb_field(mf_build *b, zb_avro_value *slot, int optional,
                         int present)
{
    if (!optional)
        return slot;
    slot->type = ZB_AVRO_UNION;
    if (!present) {
        slot->v.u.branch = 0;
        slot->v.u.value = &mf_null_value;
        return NULL;
    }
    slot->v.u.branch = 1;
    if ((slot->v.u.value = mfb_alloc(b, 1)) == NULL) {
        slot->v.u.branch = 0;
        slot->v.u.value = &mf_null_value;
    }
    return slot->v.u.value == &mf_null_value ? NULL : slot->v.u.value;
}

void mfb_long(zb_avro_value *slot, int64_t v)
{
    if (slot) {
        slot->type = ZB_AVRO_LONG;
        slot->v.i64 = v;
    }
}

void mfb_int(zb_avro_value *slot, int32_t v)
{
    if (slot) {
        slot->type = ZB_AVRO_INT;
        slot->v.i32 = v;
    }
}

void mfb_str(zb_avro_value *slot, const char *s)
{
    if (slot) {
        slot->type = ZB_AVRO_STRING;
        slot->v.str.ptr = s;
        slot->v.str.len = strlen(s);
    }
}

void mfb_bytes(zb_avro_value *slot, const uint8_t *p, size_t n)
{
    if (slot) {
        slot->type = ZB_AVRO_BYTES;
        slot->v.bytes.ptr = p;
        slot->v.bytes.len = n;
    }
}

void mfb_bool(zb_avro_value *slot, int v)
{
    if (slot) {
        slot->type = ZB_AVRO_BOOLEAN;
        slot->v.boolean = v != 0;
    }
}

zb_avro_value *mfb_record(mf_build *b, zb_avro_value *slot, size_t n)
{
    zb_avro_value *items;

    if (slot == NULL || (items = mfb_alloc(b, n)) == NULL)
        return NULL;
    slot->type = ZB_AVRO_RECORD;
    slot->v.list.items = items;
    slot->v.list.n = n;
    return items;
}

zb_avro_value *mfb_array(mf_build *b, zb_avro_value *slot, size_t n)
{
    zb_avro_value *items;

    if (slot == NULL || (items = mfb_alloc(b, n)) == NULL)
        return NULL;
    slot->type = ZB_AVRO_ARRAY;
    slot->v.list.items = items;
    slot->v.list.n = n;
    return items;
}

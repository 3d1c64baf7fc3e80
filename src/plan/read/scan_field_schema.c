/*
 * plan/read/scan_field_schema.c - the Arrow form of read fields: their
 * Arrow schema (format strings, field-id and extension metadata, nested
 * children), the value width of each read type, and whether a source
 * column already has that exact form, so that it can be moved into a
 * batch as it is (see scan_project.c).
 */
#define ZB_MODULE "plan"

#include <stdio.h>
#include <string.h>

#include "plan/read/scan_read_int.h"
#include "util/alloc.h"

int zb_scan__value_width(ice_type_id id)
{
    switch (id) {
    case ICE_INT: case ICE_DATE: case ICE_FLOAT:
        return 4;
    case ICE_LONG: case ICE_TIME: case ICE_TIMESTAMP: case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS: case ICE_TIMESTAMPTZ_NS: case ICE_DOUBLE:
        return 8;
    case ICE_DECIMAL: case ICE_UUID:
        return 16;
    default:
        return 0;
    }
}

int zb_scan__is_varlen(ice_type_id id)
{
    return id == ICE_STRING || id == ICE_BINARY || id == ICE_GEOMETRY ||
           id == ICE_GEOGRAPHY;
}

/*
 * A variant reads as a struct of its two binary parts, metadata and value
 * (format/spec.md: stored as a Parquet group of two binary fields);
 * shredded variants (a typed_value part) are not read yet.
 */
const ice_type zb_scan__variant_part = { .id = ICE_BINARY,
                                         .prim = { .id = ICE_BINARY } };

int zb_scan__type_format(char *out, size_t size, const ice_type *t)
{
    const char *f = NULL;

    switch (t->id) {
    case ICE_BOOLEAN: f = "b"; break;
    case ICE_INT: f = "i"; break;
    case ICE_LONG: f = "l"; break;
    case ICE_FLOAT: f = "f"; break;
    case ICE_DOUBLE: f = "g"; break;
    case ICE_DECIMAL:
        snprintf(out, size, "d:%d,%d", (int)t->prim.precision,
                 (int)t->prim.scale);
        return ZB_OK;
    case ICE_DATE: f = "tdD"; break;
    case ICE_TIME: f = "ttu"; break;
    case ICE_TIMESTAMP: f = "tsu:"; break;
    case ICE_TIMESTAMPTZ: f = "tsu:UTC"; break;
    case ICE_TIMESTAMP_NS: f = "tsn:"; break;
    case ICE_TIMESTAMPTZ_NS: f = "tsn:UTC"; break;
    case ICE_STRING: f = "u"; break;
    case ICE_UUID: f = "w:16"; break;
    case ICE_FIXED:
        snprintf(out, size, "w:%d", (int)t->prim.length);
        return ZB_OK;
    case ICE_BINARY: case ICE_GEOMETRY: case ICE_GEOGRAPHY: f = "z"; break;
    case ICE_UNKNOWN: f = "n"; break;
    case ICE_VARIANT: f = "+s"; break;
    case ICE_STRUCT: f = "+s"; break;
    case ICE_LIST: f = "+l"; break;
    case ICE_MAP: f = "+m"; break;
    default:
        return ZB_EUNSUPPORTED;
    }
    snprintf(out, size, "%s", f);
    return ZB_OK;
}

static int node_schema(struct ArrowSchema *out, const char *name, int32_t id,
                       int required, const ice_type *t)
{
    char fmt[48], idtxt[16];
    const char *kv[5] = { NULL, NULL, NULL, NULL, NULL };
    char *meta = NULL;
    size_t meta_len = 0, k = 0, i;
    int64_t nch = 0;
    int rc;

    if ((rc = zb_scan__type_format(fmt, sizeof fmt, t)) < 0)
        return rc;
    if (id >= 0) {
        snprintf(idtxt, sizeof idtxt, "%d", (int)id);
        kv[k++] = "PARQUET:field_id";
        kv[k++] = idtxt;
    }
    if (t->id == ICE_UUID || t->id == ICE_VARIANT) {
        kv[k++] = "ARROW:extension:name";
        kv[k++] = t->id == ICE_UUID ? "arrow.uuid" : "arrow.parquet.variant";
    }
    if ((rc = zb_arrow_metadata(&meta, &meta_len, kv)) < 0)
        return rc;
    if (t->id == ICE_STRUCT)
        nch = (int64_t)t->n_fields;
    else if (t->id == ICE_VARIANT)
        nch = 2;
    else if (t->id == ICE_LIST || t->id == ICE_MAP)
        nch = 1;
    rc = zb_arrow_schema_init(out, fmt, name, meta, meta_len,
                              required ? 0 : ARROW_FLAG_NULLABLE, nch);
    zb_free(meta);
    if (rc < 0)
        return rc;
    if (t->id == ICE_STRUCT) {
        for (i = 0; i < t->n_fields && rc == ZB_OK; i++) {
            const ice_field *c = &t->fields[i];
            rc = node_schema(out->children[i], c->name, c->id, c->required,
                             c->type);
        }
    } else if (t->id == ICE_VARIANT) {
        rc = node_schema(out->children[0], "metadata", -1, 1,
                         &zb_scan__variant_part);
        if (rc == ZB_OK)
            rc = node_schema(out->children[1], "value", -1, 1,
                             &zb_scan__variant_part);
    } else if (t->id == ICE_LIST) {
        rc = node_schema(out->children[0], "element", t->element_id,
                         t->element_required, t->element);
    } else if (t->id == ICE_MAP) {
        struct ArrowSchema *e = out->children[0];
        rc = zb_arrow_schema_init(e, "+s", "entries", NULL, 0, 0, 2);
        if (rc == ZB_OK)
            rc = node_schema(e->children[0], "key", t->key_id, 1, t->key);
        if (rc == ZB_OK)
            rc = node_schema(e->children[1], "value", t->value_id,
                             t->value_required, t->value);
    }
    if (rc < 0)
        zb_arrow_schema_release(out);
    return rc;
}

int zb_scan__field_schema(struct ArrowSchema *out, const ice_field *f)
{
    return node_schema(out, f->name, f->id, f->required, f->type);
}

/*
 * Whether the source array already has the read type's exact Arrow form,
 * nested fields in the read order, so that it can be moved as it is.
 */
static int identical(const zb_proj_file *pf, const ice_type *t,
                     const zb_nm_field *nm, const struct ArrowSchema *ss)
{
    char fmt[48];
    size_t i;

    if (zb_scan__type_format(fmt, sizeof fmt, t) < 0 ||
        strcmp(fmt, ss->format) != 0)
        return 0;
    if (t->id == ICE_STRUCT) {
        if ((size_t)ss->n_children != t->n_fields)
            return 0;
        for (i = 0; i < t->n_fields; i++) {
            const zb_nm_field *cnm = NULL;
            if (zb_scan__src_child(pf, ss, &t->fields[i], nm, &cnm) != (int)i
                || !identical(pf, t->fields[i].type, cnm, ss->children[i]))
                return 0;
        }
        return 1;
    }
    if (t->id == ICE_LIST)
        return ss->n_children == 1 &&
               identical(pf, t->element, NULL, ss->children[0]);
    if (t->id == ICE_MAP)
        return ss->n_children == 1 && ss->children[0]->n_children == 2 &&
               identical(pf, t->key, NULL, ss->children[0]->children[0]) &&
               identical(pf, t->value, NULL, ss->children[0]->children[1]);
    return t->id != ICE_VARIANT;
}

int zb_scan__can_move(const zb_proj_file *pf, const ice_type *t,
                      const zb_nm_field *nm, const struct ArrowSchema *ss)
{
    return identical(pf, t, nm, ss);
}

/*
 * table/commit/commit_create.c - new table metadata and the names of metadata
 * files (see table/commit/commit.h).
 *
 * ice_metadata_create follows Iceberg Java's TableMetadata.newTableMetadata:
 * the schema gets fresh ids the way AssignFreshIds numbers them (the
 * fields of a struct first, 1, 2, ..., then each field's nested type, a
 * list's element id before its element, a map's key and value ids before
 * their types), and the partition spec and sort order have their source
 * ids moved along with an old -> new map; partition field ids start at
 * 1000, the spec id is 0, a sorted order gets id 1. The document's keys
 * come in the order Java's TableMetadataParser writes them.
 *
 * Naming: Java's BaseMetastoreTableOperations names the next file
 * "%05d-<uuid>.metadata.json" after the version parsed from the current
 * one; HadoopTableOperations names it v<N>.metadata.json.
 */
#define ZB_MODULE "commit"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "table/commit/commit_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* Milliseconds since the epoch (commit_int.h). */
int64_t ice_commit__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t ice_commit__random64(void)
{
    static atomic_uint_fast64_t counter;   /* callers on several threads */
    uint64_t r = 0, z;
    struct timespec ts;

    if (getrandom(&r, sizeof r, 0) == (ssize_t)sizeof r && r != 0)
        return r;
    /* splitmix64 over the clock, a counter and a stack address. */
    clock_gettime(CLOCK_REALTIME, &ts);
    z = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
        (atomic_fetch_add(&counter, 1) + 1) * 0x9E3779B97F4A7C15u +
        (uint64_t)(uintptr_t)&r;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void ice_commit_uuid(char out[37])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t b[16];
    uint64_t hi = ice_commit__random64(), lo = ice_commit__random64();
    size_t i, o = 0;

    for (i = 0; i < 8; i++) {
        b[i] = (uint8_t)(hi >> (8 * i));
        b[8 + i] = (uint8_t)(lo >> (8 * i));
    }
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);   /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);   /* RFC 4122 variant */
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

/* ---- fresh ids ------------------------------------------------------------ */

typedef struct fresh {
    zb_ctx *ctx;
    json_t *map;                   /* "old id" -> new id */
    int64_t next;                  /* the last id assigned */
} fresh;

/* Gives obj[key] the next id, recording old -> new. */
static int renumber(fresh *f, json_t *obj, const char *key)
{
    const json_t *old = json_object_get(obj, key);
    char k[24];
    int rc;

    if (!json_is_integer(old))
        return zb_fail(f->ctx, ZB_EINVAL, "new table schema: \"%s\" must be "
                       "an integer", key);
    snprintf(k, sizeof k, "%lld", (long long)json_integer_value(old));
    if (json_object_get(f->map, k) != NULL)
        return zb_fail(f->ctx, ZB_EINVAL, "new table schema: field id %s "
                       "appears twice", k);
    if ((rc = ice_cj__set(f->ctx, f->map, k, json_integer(++f->next))) < 0)
        return rc;
    return ice_cj__set(f->ctx, obj, key, json_integer(f->next));
}

static int fresh_type(fresh *f, json_t *t, int depth)
{
    json_t *fields;
    size_t i;
    int rc;

    if (!json_is_object(t))
        return ZB_OK;               /* a primitive type string */
    if (depth > ICE_MAX_TYPE_DEPTH)
        return zb_fail(f->ctx, ZB_EINVAL, "new table schema: types nest "
                       "deeper than %d", ICE_MAX_TYPE_DEPTH);
    if ((fields = json_object_get(t, "fields")) != NULL) {
        for (i = 0; i < json_array_size(fields); i++)
            if ((rc = renumber(f, json_array_get(fields, i), "id")) < 0)
                return rc;
        for (i = 0; i < json_array_size(fields); i++)
            if ((rc = fresh_type(f, json_object_get(json_array_get(fields, i),
                                                    "type"), depth + 1)) < 0)
                return rc;
        return ZB_OK;
    }
    if (json_object_get(t, "element-id") != NULL) {
        if ((rc = renumber(f, t, "element-id")) < 0)
            return rc;
        return fresh_type(f, json_object_get(t, "element"), depth + 1);
    }
    if (json_object_get(t, "key-id") != NULL) {
        if ((rc = renumber(f, t, "key-id")) < 0 ||
            (rc = renumber(f, t, "value-id")) < 0 ||
            (rc = fresh_type(f, json_object_get(t, "key"), depth + 1)) < 0)
            return rc;
        return fresh_type(f, json_object_get(t, "value"), depth + 1);
    }
    return ZB_OK;
}

/* obj[key] (an id or, with list, a list of ids) through the map. */
static int remap(fresh *f, json_t *obj, const char *key, int list,
                 const char *what)
{
    json_t *v = json_object_get(obj, key);
    size_t i, n = list ? json_array_size(v) : 1;

    if (v == NULL)
        return ZB_OK;
    for (i = 0; i < n; i++) {
        json_t *id = list ? json_array_get(v, i) : v;
        const json_t *to;
        char k[24];

        if (!json_is_integer(id))
            return zb_fail(f->ctx, ZB_EINVAL, "new table %s: \"%s\" must be "
                           "an integer", what, key);
        snprintf(k, sizeof k, "%lld", (long long)json_integer_value(id));
        if ((to = json_object_get(f->map, k)) == NULL)
            return zb_fail(f->ctx, ZB_EINVAL, "new table %s: field id %s is "
                           "not in the schema", what, k);
        if (json_integer_set(id, json_integer_value(to)) < 0)
            return zb_fail_oom(f->ctx);
    }
    return ZB_OK;
}

/* Source ids of each object of arr (spec or sort fields) remapped. */
static int remap_sources(fresh *f, json_t *arr, const char *what)
{
    size_t i;
    int rc;

    for (i = 0; i < json_array_size(arr); i++) {
        json_t *x = json_array_get(arr, i);

        if (!json_is_object(x))
            return zb_fail(f->ctx, ZB_EINVAL, "new table %s: field %zu is not "
                           "an object", what, i);
        if ((rc = remap(f, x, "source-id", 0, what)) < 0 ||
            (rc = remap(f, x, "source-ids", 1, what)) < 0)
            return rc;
    }
    return ZB_OK;
}

/* Iceberg Java's TableProperties.RESERVED_PROPERTIES. */
static int reserved(const char *key)
{
    static const char *const keys[] = {
        "format-version", "uuid", "snapshot-count", "current-snapshot-id",
        "current-snapshot-summary", "current-snapshot-timestamp-ms",
        "current-schema", "default-partition-spec", "default-sort-order" };
    size_t i;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

/* Everything but the document's skeleton: the fresh pieces. */
typedef struct pieces {
    json_t *schema, *spec_fields, *order_fields, *props;
    int64_t last_column_id, last_partition_id;
} pieces;

static int build_pieces(pieces *p, fresh *f, const json_t *schema,
                        const json_t *spec, const json_t *order,
                        const ice_kv *props, size_t n_props)
{
    zb_ctx *ctx = f->ctx;
    size_t i;
    int rc;

    if (!json_is_object(schema) ||
        !json_is_array(json_object_get(schema, "fields")))
        return zb_fail(ctx, ZB_EINVAL, "new table: the schema must be a "
                       "struct object with \"fields\"");
    if ((p->schema = json_deep_copy(schema)) == NULL)
        return zb_fail_oom(ctx);
    if ((rc = fresh_type(f, p->schema, 0)) < 0 ||
        (rc = remap(f, p->schema, "identifier-field-ids", 1, "schema")) < 0 ||
        (rc = ice_cj__set(ctx, p->schema, "schema-id", json_integer(0))) < 0)
        return rc;
    p->last_column_id = f->next;
    p->spec_fields = spec ? json_deep_copy(json_object_get(spec, "fields"))
                          : json_array();
    if (p->spec_fields == NULL || !json_is_array(p->spec_fields))
        return zb_fail(ctx, spec && !json_is_array(json_object_get(spec,
                       "fields")) ? ZB_EINVAL : ZB_ENOMEM,
                       "new table: the partition spec needs \"fields\"");
    if ((rc = remap_sources(f, p->spec_fields, "partition spec")) < 0)
        return rc;
    p->last_partition_id = 999;
    for (i = 0; i < json_array_size(p->spec_fields); i++)
        if ((rc = ice_cj__set(ctx, json_array_get(p->spec_fields, i),
                              "field-id",
                              json_integer(++p->last_partition_id))) < 0)
            return rc;
    p->order_fields = order ? json_deep_copy(json_object_get(order, "fields"))
                            : json_array();
    if (p->order_fields == NULL || !json_is_array(p->order_fields))
        return zb_fail(ctx, order && !json_is_array(json_object_get(order,
                       "fields")) ? ZB_EINVAL : ZB_ENOMEM,
                       "new table: the sort order needs \"fields\"");
    if ((rc = remap_sources(f, p->order_fields, "sort order")) < 0)
        return rc;
    /* Java's persistedProperties: zstd for Parquet unless given, and
     * the reserved keys (table facts, not settings) left out. */
    if ((p->props = json_object()) == NULL ||
        (rc = ice_cj__set(ctx, p->props, "write.parquet.compression-codec",
                          json_string("zstd"))) < 0)
        return zb_fail_oom(ctx);
    for (i = 0; i < n_props; i++)
        if (!reserved(props[i].key) &&
            (rc = ice_cj__set(ctx, p->props, props[i].key,
                              json_string(props[i].value))) < 0)
            return rc;
    return ZB_OK;
}

int ice_metadata_create(ice_metadata **out, zb_ctx *ctx,
                        const zb_json *schema_json, const zb_json *spec_json,
                        const zb_json *sort_order_json, const char *location,
                        const ice_kv *properties, size_t n_properties,
                        int format_version)
{
    const json_t *schema = (const json_t *)schema_json;
    const json_t *spec = (const json_t *)spec_json;
    const json_t *sort_order = (const json_t *)sort_order_json;
    fresh f = { ctx, NULL, 0 };
    pieces p;
    json_t *doc = NULL;
    char uuid[37];
    size_t i, loc_len;
    int64_t order_id;
    int rc;

    ZB_ASSERT_ARG(out && ctx && schema && location);
    *out = NULL;
    memset(&p, 0, sizeof p);
    for (i = 0; format_version == 0 && i < n_properties; i++)
        if (strcmp(properties[i].key, "format-version") == 0)
            format_version = (int)strtol(properties[i].value, NULL, 10);
    if (format_version == 0)
        format_version = 2;
    if (format_version < 1 || format_version > 3) {
        rc = zb_fail(ctx, ZB_EUNSUPPORTED, "new table at %s: format-version "
                     "%d is not supported (1 to 3 are)", location,
                     format_version);
        goto done;
    }
    if ((f.map = json_object()) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = build_pieces(&p, &f, schema, spec, sort_order, properties,
                           n_properties)) < 0)
        goto done;
    order_id = json_array_size(p.order_fields) ? 1 : 0;
    loc_len = strlen(location);
    while (loc_len > 1 && location[loc_len - 1] == '/')
        loc_len--;
    ice_commit_uuid(uuid);
    doc = json_pack("{sisssIsIsI}", "format-version", format_version,
                    "table-uuid", uuid, "location", (json_int_t)0,
                    "last-updated-ms", (json_int_t)ice_commit__now_ms(),
                    "last-column-id", (json_int_t)p.last_column_id);
    rc = ZB_ENOMEM;
    if (doc == NULL ||
        ice_cj__set(ctx, doc, "location",
                    json_stringn(location, loc_len)) < 0)
        goto oom;
    if (format_version >= 2) {
        /* Java writes last-sequence-number right after location. */
        json_t *lu = json_object_get(doc, "last-updated-ms");
        json_t *lc = json_object_get(doc, "last-column-id");

        json_incref(lu);
        json_incref(lc);
        json_object_del(doc, "last-updated-ms");
        json_object_del(doc, "last-column-id");
        if (ice_cj__set(ctx, doc, "last-sequence-number", json_integer(0)) < 0 ||
            (format_version >= 3 &&
             ice_cj__set(ctx, doc, "next-row-id", json_integer(0)) < 0) ||
            ice_cj__set(ctx, doc, "last-updated-ms", lu) < 0 ||
            ice_cj__set(ctx, doc, "last-column-id", lc) < 0)
            goto oom;
    }
    if ((format_version == 1 &&
         ice_cj__set(ctx, doc, "schema", json_deep_copy(p.schema)) < 0) ||
        ice_cj__set(ctx, doc, "current-schema-id", json_integer(0)) < 0 ||
        ice_cj__set(ctx, doc, "schemas", json_pack("[O]", p.schema)) < 0 ||
        (format_version == 1 &&
         ice_cj__set(ctx, doc, "partition-spec",
                     json_deep_copy(p.spec_fields)) < 0) ||
        ice_cj__set(ctx, doc, "default-spec-id", json_integer(0)) < 0 ||
        ice_cj__set(ctx, doc, "partition-specs",
                    json_pack("[{sIsO}]", "spec-id", (json_int_t)0, "fields",
                              p.spec_fields)) < 0 ||
        ice_cj__set(ctx, doc, "last-partition-id",
                    json_integer(p.last_partition_id)) < 0 ||
        ice_cj__set(ctx, doc, "default-sort-order-id",
                    json_integer(order_id)) < 0 ||
        ice_cj__set(ctx, doc, "sort-orders",
                    json_pack("[{sIsO}]", "order-id", (json_int_t)order_id,
                              "fields", p.order_fields)) < 0 ||
        ice_cj__set(ctx, doc, "properties", json_incref(p.props)) < 0 ||
        ice_cj__set(ctx, doc, "current-snapshot-id", json_integer(-1)) < 0 ||
        ice_cj__set(ctx, doc, "refs", json_object()) < 0 ||
        ice_cj__set(ctx, doc, "snapshots", json_array()) < 0 ||
        ice_cj__set(ctx, doc, "statistics", json_array()) < 0 ||
        ice_cj__set(ctx, doc, "partition-statistics", json_array()) < 0 ||
        ice_cj__set(ctx, doc, "snapshot-log", json_array()) < 0 ||
        ice_cj__set(ctx, doc, "metadata-log", json_array()) < 0)
        goto oom;
    if ((rc = ice_metadata__from_doc(out, ctx, doc, location)) == ZB_OK)
        doc = NULL;
    goto done;
oom:
    rc = zb_fail_oom(ctx);
done:
    json_decref(doc);
    json_decref(f.map);
    json_decref(p.schema);
    json_decref(p.spec_fields);
    json_decref(p.order_fields);
    json_decref(p.props);
    return rc;
}

/* ---- metadata file names ------------------------------------------------- */

int ice_commit_metadata_dir(char **out, zb_ctx *ctx, const ice_metadata *m,
                            const char *root)
{
    return ice_commit_metadata_dir_paths(out, ctx, m, root, NULL);
}

int ice_commit_metadata_dir_paths(char **out, zb_ctx *ctx,
                                  const ice_metadata *m, const char *root,
                                  const ice_manifest_opts *paths)
{
    const char *p = ice_metadata_property(m, ICE_PROP_METADATA_PATH);
    zb_buf b = ZB_BUF_INIT(1 << 16);
    size_t n;

    ZB_ASSERT_ARG(out && ctx && m);
    *out = NULL;
    if (p != NULL && *p != '\0') {
        if (paths != NULL) {
            int rc = ice_manifest_resolve_path(&b, ctx, paths, p);

            if (rc < 0) {
                zb_buf_free(&b);
                return rc;
            }
        } else if (zb_buf_puts(&b, p) < 0) {
            goto oom;
        }
        while (b.len > 1 && b.ptr[b.len - 1] == '/')
            b.len--;
    } else {
        if (root == NULL)
            root = m->location;
        n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
            n--;
        if (zb_buf_append(&b, root, n) < 0 || zb_buf_puts(&b, "/metadata") < 0)
            goto oom;
    }
    if ((*out = zb_strndup(zb_buf_cstr(&b), b.len)) == NULL)
        goto oom;
    zb_buf_free(&b);
    return ZB_OK;
oom:
    zb_buf_free(&b);
    return zb_fail_oom(ctx);
}

int64_t ice_commit_metadata_version(const char *uri)
{
    const char *name = strrchr(uri, '/'), *p;
    int64_t v = 0;

    name = name ? name + 1 : uri;
    p = name;
    if (*p == 'v')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (name[0] == 'v')
        return *p == '.' && strstr(p, ".metadata.json") != NULL ? v : -1;
    return *p == '-' ? v : -1;
}

int ice_commit_next_metadata_uri(char **out, zb_ctx *ctx,
                                 const ice_metadata *m, const char *root,
                                 const char *current,
                                 ice_metadata_naming naming)
{
    return ice_commit_next_metadata_uri_paths(out, ctx, m, root, NULL,
                                              current, naming);
}

int ice_commit_next_metadata_uri_paths(char **out, zb_ctx *ctx,
                                       const ice_metadata *m,
                                       const char *root,
                                       const ice_manifest_opts *paths,
                                       const char *current,
                                       ice_metadata_naming naming)
{
    char *dir = NULL, uuid[37];
    int64_t v = current ? ice_commit_metadata_version(current) : -1;
    int rc;

    ZB_ASSERT_ARG(out && ctx && m);
    *out = NULL;
    if ((rc = ice_commit_metadata_dir_paths(&dir, ctx, m, root, paths)) < 0)
        return rc;
    {
        zb_buf b = ZB_BUF_INIT(1 << 16);

        /* Java's names: the codec's extension before .metadata.json */
        const char *ext = ice_metadata_gzip_codec(m) ? ".gz" : "";

        if (naming == ICE_NAMING_HADOOP)
            rc = zb_buf_appendf(&b, "%s/v%lld%s.metadata.json", dir,
                                (long long)(v < 1 ? 1 : v + 1), ext);
        else {
            ice_commit_uuid(uuid);
            rc = zb_buf_appendf(&b, "%s/%05lld-%s%s.metadata.json", dir,
                                (long long)(v + 1), uuid, ext);
        }
        if (rc < 0 || (*out = zb_strndup(zb_buf_cstr(&b), b.len)) == NULL)
            rc = zb_fail_oom(ctx);
        zb_buf_free(&b);
    }
    zb_free(dir);
    return rc;
}

int ice_commit_metadata_to_prune(char ***out, size_t *n, zb_ctx *ctx,
                                 const ice_metadata *base,
                                 const ice_metadata *committed)
{
    const char *on = ice_metadata_property(committed,
                                           ICE_PROP_DELETE_AFTER_COMMIT);
    char **list = NULL;
    size_t i, j, k = 0;

    ZB_ASSERT_ARG(out && n && ctx && base && committed);
    *out = NULL;
    *n = 0;
    if (on == NULL || strcasecmp(on, "true") != 0 || base->n_metadata_log == 0)
        return ZB_OK;
    if ((list = zb_calloc(base->n_metadata_log, sizeof *list)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < base->n_metadata_log; i++) {
        const char *f = base->metadata_log[i].metadata_file;
        int kept = 0;

        for (j = 0; !kept && j < committed->n_metadata_log; j++)
            kept = strcmp(committed->metadata_log[j].metadata_file, f) == 0;
        if (kept)
            continue;
        if ((list[k] = zb_strdup(f)) == NULL) {
            while (k > 0)
                zb_free(list[--k]);
            zb_free(list);
            return zb_fail_oom(ctx);
        }
        k++;
    }
    if (k == 0) {
        zb_free(list);
        return ZB_OK;
    }
    *out = list;
    *n = k;
    return ZB_OK;
}

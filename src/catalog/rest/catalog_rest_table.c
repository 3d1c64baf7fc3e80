/*
 * catalog/rest/catalog_rest_table.c - the table calls of the REST catalog
 * backend (catalog_rest.c opens it and lists): loadTable, createTable,
 * registerTable, the commit (updateTable) and dropTable, and the
 * zb_table built from a LoadTableResult or CommitTableResponse.
 *
 * t->config gets, first, the storage credential whose prefix is the
 * longest prefix of the table location, then the "config" entries not
 * already given (the OpenAPI: clients check storage-credentials before
 * config). createTable sends the first version's current schema, default
 * spec and sort order, location and properties (format-version among
 * them); the server assigns ids. A commit posts {"identifier",
 * "requirements", "updates"} as given and reads the new metadata from
 * the reply; the new table keeps the base's config (its S3 settings, given
 * to the FileIO at load by catalog_rest_s3.c, stay). A commit whose 2xx
 * reply does not read is ZB_ETIMEOUT (outcome unknown).
 */
#define ZB_MODULE "catalog"

#include "catalog/rest/catalog_rest_int.h"

#include <stdio.h>
#include <string.h>

#include "catalog/catalog_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* A table from a LoadTableResult or CommitTableResponse. config_from:
 * a table whose config the new one takes instead of the reply's. */
static int table_from_reply(zb_table **out, zb_catalog *c, zb_ctx *ctx,
                            const char *ident, const char *label,
                            const json_t *doc, const zb_table *config_from)
{
    zb_rest_loaded ld;
    ice_metadata *meta = NULL;
    zb_table *t = NULL;
    const json_t *cred, *cfg, *v;
    const char *k;
    char *text = NULL;
    size_t n, i;
    int rc;

    *out = NULL;
    if ((rc = zb_rest__parse_loaded(&ld, ctx, label, doc)) < 0)
        return rc;
    n = json_dumpb(ld.metadata, NULL, 0, JSON_COMPACT);
    if (n == 0 || !(text = zb_malloc(n)))
        return zb_fail_oom(ctx);
    json_dumpb(ld.metadata, text, n, JSON_COMPACT);
    rc = ice_metadata_parse(&meta, ctx, text, n,
                            ld.metadata_location ? ld.metadata_location
                                                 : label);
    zb_free(text);
    if (rc < 0)
        return zb_err_prefix(ctx, "%s: table metadata in the reply", label);
    /* zb_table__new takes meta, also on failure; the metadata file is
     * named where the remaps put it, as the table's other files. */
    if ((rc = zb_catalog__remap(&text, ctx, c, ld.metadata_location
                                                    ? ld.metadata_location
                                                    : "")) < 0) {
        ice_metadata_free(meta);
        return rc;
    }
    rc = zb_table__new(&t, ctx, c, ident, text, meta, NULL);
    zb_free(text);
    text = NULL;
    if (rc < 0)
        return rc;
    if (config_from) {
        for (i = 0; i < config_from->n_config; i++)
            if ((rc = zb_table__add_config(t, ctx, config_from->config[i].key,
                                           config_from->config[i].value)) < 0)
                goto fail;
        *out = t;
        return ZB_OK;
    }
    cred = zb_rest__pick_credential(ld.credentials, t->meta->location);
    cfg = cred ? json_object_get(cred, "config") : NULL;
    if (cfg) {
        json_object_foreach((json_t *)cfg, k, v)
            if ((rc = zb_table__add_config(t, ctx, k,
                                           json_string_value(v))) < 0)
                goto fail;
    }
    if (ld.config) {
        json_object_foreach((json_t *)ld.config, k, v) {
            if (cfg && json_object_get(cfg, k))
                continue;
            if ((rc = zb_table__add_config(t, ctx, k,
                                           json_string_value(v))) < 0)
                goto fail;
        }
    }
    if ((rc = zb_rest__apply_s3(c, ctx, t, &ld)) < 0) {
        zb_err_prefix(ctx, "%s: the table's storage settings", label);
        goto fail;
    }
    *out = t;
    return ZB_OK;
fail:
    zb_table_free(t);
    return rc;
}

/* Sends a request about a table and builds the table from its reply. */
static int table_call(zb_table **out, zb_catalog *c, zb_ctx *ctx,
                      const char *ident, const char *method, const char *url,
                      const json_t *body, zb_rest_kind kind, const char *what,
                      const zb_table *config_from)
{
    json_t *doc = NULL;
    char label[300];
    int rc;

    if ((rc = zb_rest__call(&doc, c->backend, ctx, method, url, body, kind,
                            what)) < 0)
        return rc;
    snprintf(label, sizeof(label), "%s (%s %s)", what, method, url);
    rc = table_from_reply(out, c, ctx, ident, label, doc, config_from);
    json_decref(doc);
    return rc;
}

int zb_rest__load_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                        zb_table **out)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *ns = NULL, *name = NULL;
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "load table %s", ident);
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) == ZB_OK
        && (rc = zb_rest__url_table(&url, ctx, c->backend, ns, name)) == ZB_OK)
        rc = table_call(out, c, ctx, ident, "GET", url.ptr, NULL,
                        ZB_REST_READ, what, NULL);
    zb_free(ns);
    zb_free(name);
    zb_buf_free(&url);
    return rc;
}

/* The member of the array doc[list] whose doc[id_key] equals doc[cur_key]. */
static json_t *pick_by_id(json_t *doc, const char *list, const char *id_key,
                          const char *cur_key)
{
    json_t *arr = json_object_get(doc, list), *item;
    json_int_t want = json_integer_value(json_object_get(doc, cur_key));
    size_t i;

    json_array_foreach(arr, i, item)
        if (json_integer_value(json_object_get(item, id_key)) == want)
            return item;
    return NULL;
}

/* CreateTableRequest from the first version's metadata. */
static int create_request(json_t **out, zb_ctx *ctx, const char *name,
                          const char *location, const ice_metadata *first)
{
    zb_buf text = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    json_t *doc = NULL, *req = NULL, *props = NULL, *schema, *spec, *order;
    char fv[16];
    size_t i;
    int rc;

    *out = NULL;
    if ((rc = ice_metadata_write(&text, first, ctx)) < 0)
        goto done;
    if (!(doc = json_loadb(text.ptr, text.len, 0, NULL))) {
        rc = zb_fail(ctx, ZB_ECORRUPT, "create table %s: the first "
                     "metadata does not serialise", name);
        goto done;
    }
    schema = pick_by_id(doc, "schemas", "schema-id", "current-schema-id");
    if (!schema)
        schema = json_object_get(doc, "schema");
    spec = pick_by_id(doc, "partition-specs", "spec-id", "default-spec-id");
    order = pick_by_id(doc, "sort-orders", "order-id",
                       "default-sort-order-id");
    if (!json_is_object(schema)) {
        rc = zb_fail(ctx, ZB_EINVAL, "create table %s: the first metadata "
                     "has no current schema", name);
        goto done;
    }
    props = json_object();
    req = json_object();
    snprintf(fv, sizeof(fv), "%d", first->format_version);
    if (!props || !req
        || json_object_set_new(req, "name", json_string(name)) < 0
        || json_object_set(req, "schema", schema) < 0
        || (spec && json_object_set(req, "partition-spec", spec) < 0)
        || (order && json_object_set(req, "write-order", order) < 0)
        || (location && json_object_set_new(req, "location",
                                            json_string(location)) < 0)
        || json_object_set_new(req, "stage-create", json_false()) < 0
        || json_object_set_new(props, "format-version", json_string(fv)) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < first->n_properties; i++)
        if (json_object_set_new(props, first->properties[i].key,
                                json_string(first->properties[i].value)) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    if (json_object_set(req, "properties", props) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    *out = req;
    req = NULL;
done:
    json_decref(req);
    json_decref(props);
    json_decref(doc);
    zb_buf_free(&text);
    return rc;
}

int zb_rest__create_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                          const char *location, const ice_metadata *first,
                          zb_table **out)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *ns = NULL, *name = NULL;
    json_t *body = NULL;
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "create table %s", ident);
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) == ZB_OK
        && (rc = create_request(&body, ctx, name, location, first)) == ZB_OK
        && (rc = zb_rest__url_table(&url, ctx, c->backend, ns, NULL)) == ZB_OK)
        rc = table_call(out, c, ctx, ident, "POST", url.ptr, body,
                        ZB_REST_WRITE, what, NULL);
    json_decref(body);
    zb_free(ns);
    zb_free(name);
    zb_buf_free(&url);
    return rc;
}

int zb_rest__register_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            const char *metadata_location, zb_table **out)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *ns = NULL, *name = NULL;
    json_t *body = json_object();
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "register table %s", ident);
    if (!body) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0
        || (rc = zb_rest__url_namespaces(&url, ctx, c->backend, ns)) < 0)
        goto done;
    if (zb_buf_puts(&url, "/register") < 0
        || json_object_set_new(body, "name", json_string(name)) < 0
        || json_object_set_new(body, "metadata-location",
                               json_string(metadata_location)) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    rc = table_call(out, c, ctx, ident, "POST", url.ptr, body, ZB_REST_WRITE,
                    what, NULL);
done:
    json_decref(body);
    zb_free(ns);
    zb_free(name);
    zb_buf_free(&url);
    return rc;
}

int zb_rest__commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                    const zb_json *requirements_json,
                    const zb_json *updates_json,
                    zb_table **out)
{
    const json_t *requirements = (const json_t *)requirements_json;
    const json_t *updates = (const json_t *)updates_json;
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *ns = NULL, *name = NULL;
    json_t *body = json_object(), *id = json_object(), *arr = NULL;
    json_t *reply = NULL;
    char what[300], label[700];
    int rc;

    snprintf(what, sizeof(what), "commit to table %s", base->ident);
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, base->ident)) < 0)
        goto done;
    arr = zb_rest__namespace_array(ns);
    if (!body || !id || !arr || json_object_set(id, "namespace", arr) < 0
        || json_object_set_new(id, "name", json_string(name)) < 0
        || json_object_set(body, "identifier", id) < 0
        || json_object_set(body, "requirements", (json_t *)requirements) < 0
        || json_object_set(body, "updates", (json_t *)updates) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = zb_rest__url_table(&url, ctx, c->backend, ns, name)) < 0
        || (rc = zb_rest__call(&reply, c->backend, ctx, "POST", url.ptr, body,
                               ZB_REST_COMMIT, what)) < 0)
        goto done;
    snprintf(label, sizeof(label), "%s (POST %s)", what, url.ptr);
    /* The server answered 2xx, but a reply that does not read (or no
     * memory to read it) leaves the caller not knowing the new state:
     * outcome unknown, nothing it references may be deleted. */
    if ((rc = table_from_reply(out, c, ctx, base->ident, label, reply,
                               base)) < 0) {
        char msg[ZB_ERR_MSG_SIZE];
        snprintf(msg, sizeof(msg), "%s", ctx->err.msg);
        rc = zb_fail(ctx, ZB_ETIMEOUT, "%s (commit outcome unknown)", msg);
    }
done:
    json_decref(reply);
    json_decref(arr);
    json_decref(id);
    json_decref(body);
    zb_free(ns);
    zb_free(name);
    zb_buf_free(&url);
    return rc;
}

int zb_rest__drop_table(zb_catalog *c, zb_ctx *ctx, const char *ident)
{
    zb_buf url = ZB_BUF_INIT(ZB_REST_URL_MAX_BYTES);
    char *ns = NULL, *name = NULL;
    char what[300];
    int rc;

    snprintf(what, sizeof(what), "drop table %s", ident);
    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) == ZB_OK
        && (rc = zb_rest__url_table(&url, ctx, c->backend, ns, name))
               == ZB_OK) {
        if (zb_buf_puts(&url, "?purgeRequested=false") < 0)
            rc = zb_fail_oom(ctx);
        else
            rc = zb_rest__call(NULL, c->backend, ctx, "DELETE", url.ptr, NULL,
                               ZB_REST_WRITE, what);
    }
    zb_free(ns);
    zb_free(name);
    zb_buf_free(&url);
    return rc;
}

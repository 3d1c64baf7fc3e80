/*
 * catalog/sql/catalog_sql.c - the SQL catalog, in the schema of Iceberg's
 * JdbcCatalog and PyIceberg's SqlCatalog, so that tables either of them
 * registered are found and committed compatibly:
 *
 *   iceberg_tables(catalog_name, table_namespace, table_name,
 *                  metadata_location, previous_metadata_location,
 *                  [iceberg_type])             key: the first three
 *   iceberg_namespace_properties(catalog_name, namespace, property_key,
 *                  property_value)             key: the first three
 *
 * A warehouse is a catalog_name. iceberg_type ('TABLE' or 'VIEW', JDBC
 * schema V1) is created with new databases and used when present; rows
 * with NULL (and databases without the column, as PyIceberg makes them)
 * are tables. A namespace exists when a table or a property row names it;
 * creating one adds the property exists=true, as both writers do.
 *
 * Commit (sql_commit): read the current metadata_location on the write
 * connection, load it, check requirements, apply updates, extend the
 * metadata-log (catalog_commit.c; the clock rule with the database's
 * clock), write <metadata dir>/<NNNNN>-<uuid>.metadata.json
 * (write.metadata.path honoured) without overwriting, then
 *   UPDATE iceberg_tables SET metadata_location = new,
 *          previous_metadata_location = old
 *    WHERE <key> AND metadata_location = old
 * 0 rows: another writer moved the pointer: the new file is deleted and
 * the answer is ZB_ECONFLICT. A connection lost after the UPDATE was sent
 * is ZB_ETIMEOUT and the file is kept (it may be the table's state now).
 * Then old metadata files are pruned per the table's properties.
 */
#define ZB_MODULE "catalog"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog_commit.h"
#include "catalog/sql/catalog_sql.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"

#define SQL_MAX_BYTES 4096
#define URI_MAX_BYTES 8192

typedef struct sql_cat {
    zb_sqldb *db;                  /* one reference */
    char *warehouse;               /* the catalog_name of every row */
    char *warehouse_location;      /* NULL: tables need a location */
    int has_type;                  /* iceberg_type column present */
} sql_cat;

static const char *type_filter(const sql_cat *s)
{
    return s->has_type ? " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"
                       : "";
}

/* ---- collecting rows ---- */

typedef struct str_list {
    size_t n, cap;
    char **items;
    int oom;
} str_list;

static int list_add(str_list *l, const char *a, const char *b)
{
    char *s;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = zb_realloc(l->items, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        l->items = p;
        l->cap = cap;
    }
    if (b == NULL)
        s = zb_strdup(a);
    else {
        zb_buf buf = ZB_BUF_INIT(URI_MAX_BYTES);
        if (zb_buf_appendf(&buf, "%s.%s", a, b) < 0) {
            zb_buf_free(&buf);
            return -1;
        }
        s = zb_buf_detach(&buf);
    }
    if (s == NULL)
        return -1;
    l->items[l->n++] = s;
    return 0;
}

static void list_free(str_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        zb_free(l->items[i]);
    zb_free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

/* Rows of one or two non-NULL columns joined by '.'. */
static int collect_cb(void *payload, int n, const char *const *vals)
{
    str_list *l = payload;

    if (n < 1 || vals[0] == NULL || (n > 1 && vals[1] == NULL))
        return 0;
    if (list_add(l, vals[0], n > 1 ? vals[1] : NULL) < 0) {
        l->oom = 1;
        return ZB_ENOMEM;
    }
    return 0;
}

static int collect_rc(str_list *l, zb_ctx *ctx, int rc)
{
    if (l->oom)
        return zb_fail_oom(ctx);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- listing ---- */

static int emit_all(str_list *l, zb_catalog_list_cb fn, void *payload)
{
    size_t i;
    int rc;

    for (i = 0; i < l->n; i++)
        if ((rc = fn(l->items[i], payload)) != 0)
            return rc;
    return ZB_OK;
}

static int sql_list_warehouses(zb_catalog *c, zb_ctx *ctx,
                               zb_catalog_list_cb fn, void *payload)
{
    sql_cat *s = c->backend;
    str_list l = { 0, 0, NULL, 0 };
    int rc;

    rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_READ,
                      "SELECT catalog_name FROM iceberg_tables UNION "
                      "SELECT catalog_name FROM iceberg_namespace_properties "
                      "ORDER BY 1", 0, NULL, collect_cb, &l, NULL);
    if ((rc = collect_rc(&l, ctx, rc)) < 0)
        zb_err_prefix(ctx, "listing warehouses");
    else
        rc = emit_all(&l, fn, payload);
    list_free(&l);
    return rc;
}

static int sql_list_namespaces(zb_catalog *c, zb_ctx *ctx, const char *parent,
                               zb_catalog_list_cb fn, void *payload)
{
    sql_cat *s = c->backend;
    str_list l = { 0, 0, NULL, 0 };
    const char *params[2] = { s->warehouse, s->warehouse };
    size_t i, j, plen = parent ? strlen(parent) : 0;
    int rc;

    rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_READ,
                      "SELECT table_namespace FROM iceberg_tables "
                      "WHERE catalog_name = ? UNION "
                      "SELECT namespace FROM iceberg_namespace_properties "
                      "WHERE catalog_name = ?", 2, params, collect_cb, &l,
                      NULL);
    if ((rc = collect_rc(&l, ctx, rc)) < 0) {
        zb_err_prefix(ctx, "warehouse %s: listing namespaces", s->warehouse);
        goto done;
    }
    /* Keep the level below parent: "a.b.c" under "a" is "a.b". */
    for (i = j = 0; i < l.n; i++) {
        char *ns = l.items[i], *cut;
        if (plen > 0 && !(strncmp(ns, parent, plen) == 0 && ns[plen] == '.')) {
            zb_free(ns);
            continue;
        }
        cut = strchr(ns + (plen ? plen + 1 : 0), '.');
        if (cut != NULL)
            *cut = '\0';
        l.items[j++] = ns;
    }
    l.n = j;
    if (l.n > 1)
        qsort(l.items, l.n, sizeof(char *), cmp_str);
    for (i = 0; i < l.n; i++) {
        if (i > 0 && strcmp(l.items[i], l.items[i - 1]) == 0)
            continue;
        if ((rc = fn(l.items[i], payload)) != 0)
            break;
    }
done:
    list_free(&l);
    return rc;
}

static int sql_list_tables(zb_catalog *c, zb_ctx *ctx, const char *ns,
                           zb_catalog_list_cb fn, void *payload)
{
    sql_cat *s = c->backend;
    str_list l = { 0, 0, NULL, 0 };
    zb_buf q = ZB_BUF_INIT(SQL_MAX_BYTES);
    const char *params[2] = { s->warehouse, ns };
    int rc;

    if (zb_buf_appendf(&q, "SELECT table_namespace, table_name FROM "
                       "iceberg_tables WHERE catalog_name = ?%s%s "
                       "ORDER BY table_namespace, table_name",
                       ns ? " AND table_namespace = ?" : "",
                       type_filter(s)) < 0)
        return zb_fail_oom(ctx);
    rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_READ, q.ptr, ns ? 2 : 1, params, collect_cb,
                      &l, NULL);
    if ((rc = collect_rc(&l, ctx, rc)) < 0)
        zb_err_prefix(ctx, "warehouse %s: listing tables%s%s", s->warehouse,
                      ns ? " of " : "", ns ? ns : "");
    else
        rc = emit_all(&l, fn, payload);
    list_free(&l);
    zb_buf_free(&q);
    return rc;
}

typedef struct one_value {
    int found;
    int oom;
    char *value;                   /* NULL for SQL NULL */
} one_value;

static int one_cb(void *payload, int n, const char *const *vals)
{
    one_value *v = payload;

    if (v->found++ > 0 || n < 1)
        return 0;
    if (vals[0] != NULL && (v->value = zb_strdup(vals[0])) == NULL) {
        v->oom = 1;
        return ZB_ENOMEM;
    }
    return 0;
}

static int sql_create_namespace(zb_catalog *c, zb_ctx *ctx, const char *ns)
{
    sql_cat *s = c->backend;
    const char *params[2] = { s->warehouse, ns };
    int rc;

    if (ns[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "an empty namespace name");
    /* A namespace that tables name exists already (JdbcCatalog's view),
     * even without a property row. */
    {
        one_value v = { 0, 0, NULL };
        rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_PRIMARY,
                          "SELECT table_namespace FROM iceberg_tables WHERE "
                          "catalog_name = ? AND table_namespace = ? LIMIT 1",
                          2, params, one_cb, &v, NULL);
        zb_free(v.value);
        if (v.oom)
            return zb_fail_oom(ctx);
        if (rc < 0) {
            zb_err_prefix(ctx, "creating namespace %s", ns);
            return rc;
        }
        if (v.found)
            return zb_fail(ctx, ZB_EEXISTS, "namespace %s already exists in "
                           "warehouse %s", ns, s->warehouse);
    }
    rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_WRITE,
                      "INSERT INTO iceberg_namespace_properties (catalog_name, "
                      "namespace, property_key, property_value) "
                      "VALUES (?, ?, 'exists', 'true')", 2, params, NULL,
                      NULL, NULL);
    if (rc == ZB_EEXISTS)
        return zb_fail(ctx, ZB_EEXISTS, "namespace %s already exists in "
                       "warehouse %s", ns, s->warehouse);
    if (rc < 0)
        zb_err_prefix(ctx, "creating namespace %s", ns);
    return rc;
}

/* ---- tables ---- */

/*
 * The metadata_location of ns.name; ZB_ENOTFOUND when there is no such
 * row. write: read on the write connection (commits must see the
 * primary, not a replica that lags).
 */
static int current_location(char **out, zb_ctx *ctx, sql_cat *s, int write,
                            const char *ident, const char *ns,
                            const char *name)
{
    zb_buf q = ZB_BUF_INIT(SQL_MAX_BYTES);
    const char *params[3] = { s->warehouse, ns, name };
    one_value v = { 0, 0, NULL };
    int rc;

    *out = NULL;
    if (zb_buf_appendf(&q, "SELECT metadata_location FROM iceberg_tables "
                       "WHERE catalog_name = ? AND table_namespace = ? AND "
                       "table_name = ?%s", type_filter(s)) < 0)
        return zb_fail_oom(ctx);
    rc = zb_sqldb_exec(s->db, ctx, write ? ZB_SQL_PRIMARY : ZB_SQL_READ, q.ptr,
                      3, params, one_cb, &v, NULL);
    zb_buf_free(&q);
    if (v.oom)
        rc = zb_fail_oom(ctx);
    else if (rc < 0)
        zb_err_prefix(ctx, "table %s: reading its metadata location", ident);
    else if (v.found == 0)
        rc = zb_fail(ctx, ZB_ENOTFOUND, "table %s not found in warehouse %s",
                     ident, s->warehouse);
    else if (v.value == NULL || v.value[0] == '\0')
        rc = zb_fail(ctx, ZB_ECORRUPT, "table %s in warehouse %s has no "
                     "metadata_location", ident, s->warehouse);
    if (rc < 0) {
        zb_free(v.value);
        return rc;
    }
    *out = v.value;
    return ZB_OK;
}

/* Loads the metadata file the catalog names, read where the remaps put
 * it (a moved table). */
static int load_at(zb_table **out, zb_ctx *ctx, zb_catalog *c,
                   const char *ident, const char *uri)
{
    ice_metadata *m = NULL;
    char *at = NULL;
    int rc;

    if ((rc = zb_catalog__remap(&at, ctx, c, uri)) < 0)
        return rc;
    if ((rc = ice_metadata_load(&m, c->io, ctx, at)) < 0)
        zb_err_prefix(ctx, "table %s: loading its metadata", ident);
    else
        rc = zb_table__new(out, ctx, c, ident, at, m, NULL);
    zb_free(at);
    return rc;
}

static int sql_load(zb_catalog *c, zb_ctx *ctx, const char *ident,
                    zb_table **out)
{
    sql_cat *s = c->backend;
    char *ns = NULL, *name = NULL, *uri = NULL;
    int rc;

    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0)
        return rc;
    if ((rc = current_location(&uri, ctx, s, 0, ident, ns, name)) >= 0)
        rc = load_at(out, ctx, c, ident, uri);
    zb_free(ns);
    zb_free(name);
    zb_free(uri);
    return rc;
}

static int insert_row(zb_ctx *ctx, sql_cat *s, const char *ident,
                      const char *ns, const char *name, const char *uri)
{
    const char *params[4] = { s->warehouse, ns, name, uri };
    int rc;

    rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_WRITE,
                      s->has_type
                          ? "INSERT INTO iceberg_tables (catalog_name, "
                            "table_namespace, table_name, metadata_location, "
                            "previous_metadata_location, iceberg_type) "
                            "VALUES (?, ?, ?, ?, NULL, 'TABLE')"
                          : "INSERT INTO iceberg_tables (catalog_name, "
                            "table_namespace, table_name, metadata_location, "
                            "previous_metadata_location) "
                            "VALUES (?, ?, ?, ?, NULL)",
                      4, params, NULL, NULL, NULL);
    if (rc == ZB_EEXISTS)
        return zb_fail(ctx, ZB_EEXISTS, "table %s already exists in "
                       "warehouse %s", ident, s->warehouse);
    if (rc < 0)
        zb_err_prefix(ctx, "table %s: inserting its row", ident);
    return rc;
}

static int sql_register(zb_catalog *c, zb_ctx *ctx, const char *ident,
                        const char *metadata_location, zb_table **out)
{
    sql_cat *s = c->backend;
    char *ns = NULL, *name = NULL;
    zb_table *t = NULL;
    int rc;

    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0)
        return rc;
    if ((rc = load_at(&t, ctx, c, ident, metadata_location)) < 0 ||
        (rc = insert_row(ctx, s, ident, ns, name, metadata_location)) < 0)
        goto done;
    *out = t;
    t = NULL;
done:
    zb_table_free(t);
    zb_free(ns);
    zb_free(name);
    return rc;
}

/* <warehouse_location>/<ns levels as folders>/<name> */
static int default_location(char **out, zb_ctx *ctx, const sql_cat *s,
                            const char *ident, const char *ns,
                            const char *name)
{
    zb_buf b = ZB_BUF_INIT(URI_MAX_BYTES);
    size_t n, i;

    *out = NULL;
    if (s->warehouse_location == NULL)
        return zb_fail(ctx, ZB_EUSAGE, "table %s: no location given and the "
                       "catalog has no warehouse location", ident);
    n = strlen(s->warehouse_location);
    while (n > 0 && s->warehouse_location[n - 1] == '/')
        n--;
    if (zb_buf_append(&b, s->warehouse_location, n) < 0 ||
        zb_buf_putc(&b, '/') < 0)
        goto oom;
    for (i = 0; ns[i]; i++)
        if (zb_buf_putc(&b, ns[i] == '.' ? '/' : ns[i]) < 0)
            goto oom;
    if (zb_buf_appendf(&b, "/%s", name) < 0 ||
        (*out = zb_buf_detach(&b)) == NULL)
        goto oom;
    return ZB_OK;
oom:
    zb_buf_free(&b);
    return zb_fail_oom(ctx);
}

/* A copy of m with its location set to loc. */
static int copy_at(ice_metadata **out, zb_ctx *ctx, const ice_metadata *m,
                   const char *loc)
{
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    json_t *updates = NULL;
    int rc;

    *out = NULL;
    if ((rc = ice_metadata_write(&json, m, ctx)) < 0 ||
        (rc = ice_metadata_parse(out, ctx, json.ptr, json.len, NULL)) < 0)
        goto done;
    if (m->location == NULL || strcmp(m->location, loc) != 0) {
        updates = json_pack("[{s:s, s:s}]", "action", "set-location",
                            "location", loc);
        if (updates == NULL)
            rc = zb_fail_oom(ctx);
        else
            rc = ice_commit_apply_updates(*out, ctx, (const zb_json *)updates);
    }
done:
    if (rc < 0) {
        ice_metadata_free(*out);
        *out = NULL;
    }
    json_decref(updates);
    zb_buf_free(&json);
    return rc;
}

static int sql_create(zb_catalog *c, zb_ctx *ctx, const char *ident,
                      const char *location, const ice_metadata *first,
                      zb_table **out)
{
    sql_cat *s = c->backend;
    char *ns = NULL, *name = NULL, *loc = NULL, *uri = NULL;
    ice_metadata *m = NULL;
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    int written = 0, rc;

    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0)
        return rc;
    if (location != NULL)
        loc = zb_strdup(location);
    else if (s->warehouse_location == NULL && first->location != NULL &&
             first->location[0] != '\0')
        loc = zb_strdup(first->location);
    else if ((rc = default_location(&loc, ctx, s, ident, ns, name)) < 0)
        goto done;
    if (loc == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = copy_at(&m, ctx, first, loc)) < 0 ||
        (rc = ice_commit_next_metadata_uri(&uri, ctx, m, NULL, NULL,
                                           ICE_NAMING_SEQUENTIAL)) < 0 ||
        (rc = ice_metadata_write_file(&json, m, ctx, uri)) < 0 ||
        (rc = zb_io_write_new(c->io, ctx, uri, json.ptr, json.len)) < 0) {
        zb_err_prefix(ctx, "table %s: writing its first metadata", ident);
        goto done;
    }
    written = 1;
    if ((rc = insert_row(ctx, s, ident, ns, name, uri)) < 0)
        goto done;
    rc = zb_table__new(out, ctx, c, ident, uri, m, NULL);
    m = NULL;
done:
    if (rc < 0 && written) {
        zb_err saved;
        zb_err_copy(&saved, &ctx->err);
        zb_io_delete(c->io, ctx, uri);
        zb_err_copy(&ctx->err, &saved);
    }
    ice_metadata_free(m);
    zb_buf_free(&json);
    zb_free(ns);
    zb_free(name);
    zb_free(loc);
    zb_free(uri);
    return rc;
}

static int sql_commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                      const zb_json *requirements_json,
                      const zb_json *updates_json,
                      zb_table **out)
{
    const json_t *requirements = (const json_t *)requirements_json;
    const json_t *updates = (const json_t *)updates_json;
    sql_cat *s = c->backend;
    const char *ident = base->ident;
    char *ns = NULL, *name = NULL, *cur = NULL, *uri = NULL;
    char *cur_at = NULL;
    ice_metadata *next = NULL;
    zb_table *nt = NULL;
    zb_catalog_old_log old_log = { 0, NULL };
    const zb_commit_fence *fence;
    zb_buf json = ZB_BUF_INIT(ICE_METADATA_MAX_BYTES);
    zb_buf q = ZB_BUF_INIT(SQL_MAX_BYTES);
    int64_t now = 0, changes = 0;
    int written = 0, rc;

    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0)
        return rc;
    if ((rc = current_location(&cur, ctx, s, 1, ident, ns, name)) < 0)
        goto done;
    if ((rc = zb_sqldb_now_ms(s->db, ctx, &now)) < 0) {
        zb_err_prefix(ctx, "table %s: reading the catalog's clock", ident);
        goto done;
    }
    /* A moved table (remaps): the current file is read, and the next one
     * written, under the new location; the catalog then names the new
     * file by its new path. */
    if ((rc = zb_catalog__remap(&cur_at, ctx, c, cur)) < 0)
        goto done;
    if ((rc = zb_catalog__apply(&next, &old_log, ctx, c->io, base, cur_at,
                                (const zb_json *)requirements,
                                (const zb_json *)updates, now)) < 0) {
        zb_err_prefix(ctx, "table %s: commit", ident);
        goto done;
    }
    if ((rc = ice_commit_next_metadata_uri_paths(&uri, ctx, next, base->root,
                                                 &base->paths, cur_at,
                                                 ICE_NAMING_SEQUENTIAL)) < 0 ||
        (rc = ice_metadata_write_file(&json, next, ctx, uri)) < 0)
        goto done;
    rc = zb_io_write_new(c->io, ctx, uri, json.ptr, json.len);
    if (rc < 0) {
        if (rc == ZB_EEXISTS)
            rc = ZB_ECONFLICT;
        zb_err_prefix(ctx, "table %s: writing new metadata", ident);
        goto done;
    }
    written = 1;
    /* Everything that may fail is done before the swap: after it, the
     * commit has happened and must be reported so. */
    rc = zb_table__new(&nt, ctx, c, ident, uri, next, NULL);
    next = NULL;
    if (rc < 0)
        goto done;
    /* A fence in this database joins the swap (catalog.h). */
    fence = c->fence != NULL && c->fence->db == s->db ? c->fence : NULL;
    if (zb_buf_appendf(&q, "UPDATE iceberg_tables SET metadata_location = ?, "
                       "previous_metadata_location = ? WHERE catalog_name = ? "
                       "AND table_namespace = ? AND table_name = ? AND "
                       "metadata_location = ?%s%s%s%s", type_filter(s),
                       fence ? " AND (" : "",
                       fence ? fence->sql_condition : "",
                       fence ? ")" : "") < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    {
        const char *params[6 + 8] = { uri, cur, s->warehouse, ns, name, cur };
        int n = 6, k;

        for (k = 0; fence != NULL && k < fence->n_params && k < 8; k++)
            params[n++] = fence->params[k];
        rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_WRITE, q.ptr, n, params, NULL,
                           NULL, &changes);
    }
    if (rc == ZB_ETIMEOUT) {
        written = 0;               /* it may be the table's state now */
        zb_err_prefix(ctx, "table %s: commit outcome unknown (new metadata "
                      "%s kept)", ident, uri);
        goto done;
    }
    if (rc < 0) {
        zb_err_prefix(ctx, "table %s: swapping metadata_location", ident);
        goto done;
    }
    if (changes == 0) {
        /* Which condition failed: a refusal by the fence is no race. */
        if (fence != NULL && (rc = zb_catalog__fence_check(c, ctx)) < 0) {
            zb_err_prefix(ctx, "table %s", ident);
            goto done;
        }
        rc = zb_fail(ctx, ZB_ECONFLICT, "table %s: metadata_location is no "
                     "longer %s: another writer committed first", ident, cur);
        goto done;
    }
    written = 0;                   /* committed: the file is the table's */
    zb_catalog__prune(c->io, ctx, base, &old_log, nt->meta);
    *out = nt;
    nt = NULL;
done:
    zb_table_free(nt);
    if (written) {
        zb_err saved;
        zb_err_copy(&saved, &ctx->err);
        zb_io_delete(c->io, ctx, uri);
        zb_err_copy(&ctx->err, &saved);
    }
    zb_catalog__old_log_free(&old_log);
    ice_metadata_free(next);
    zb_buf_free(&json);
    zb_buf_free(&q);
    zb_free(ns);
    zb_free(name);
    zb_free(cur);
    zb_free(cur_at);
    zb_free(uri);
    return rc;
}

static int sql_drop(zb_catalog *c, zb_ctx *ctx, const char *ident)
{
    sql_cat *s = c->backend;
    char *ns = NULL, *name = NULL;
    zb_buf q = ZB_BUF_INIT(SQL_MAX_BYTES);
    int64_t changes = 0;
    int rc;

    if ((rc = zb_catalog__split_ident(&ns, &name, ctx, ident)) < 0)
        return rc;
    if (zb_buf_appendf(&q, "DELETE FROM iceberg_tables WHERE catalog_name = ? "
                       "AND table_namespace = ? AND table_name = ?%s",
                       type_filter(s)) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    {
        const char *params[3] = { s->warehouse, ns, name };
        rc = zb_sqldb_exec(s->db, ctx, ZB_SQL_WRITE, q.ptr, 3, params, NULL, NULL,
                          &changes);
    }
    if (rc < 0)
        zb_err_prefix(ctx, "table %s: deleting its row", ident);
    else if (changes == 0)
        rc = zb_fail(ctx, ZB_ENOTFOUND, "table %s not found in warehouse %s",
                     ident, s->warehouse);
done:
    zb_buf_free(&q);
    zb_free(ns);
    zb_free(name);
    return rc;
}

static void sql_destroy(zb_catalog *c)
{
    sql_cat *s = c->backend;

    if (s == NULL)
        return;
    zb_sqldb_close(s->db);
    zb_free(s->warehouse);
    zb_free(s->warehouse_location);
    zb_free(s);
    c->backend = NULL;
}

static const zb_catalog_ops sql_ops = {
    ZB_CATALOG_OPS_VERSION,
    sql_list_warehouses,
    sql_list_namespaces,
    sql_list_tables,
    sql_create_namespace,
    sql_load,
    sql_create,
    sql_register,
    sql_commit,
    sql_drop,
    sql_destroy
};

static const char *const schema_sql[] = {
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "iceberg_type VARCHAR(5), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))",
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255), "
    "property_value VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, namespace, property_key))"
};

static const char *const probe_sql[] = {
    "SELECT catalog_name FROM iceberg_tables WHERE 1 = 0",
    "SELECT catalog_name FROM iceberg_namespace_properties WHERE 1 = 0"
};

int zb_catalog__sql_open(zb_catalog *c, zb_ctx *ctx,
                         const zb_catalog_config *cfg, zb_sqldb *db)
{
    sql_cat *s = NULL;
    size_t i;
    int rc;

    if ((s = zb_calloc(1, sizeof(*s))) == NULL) {
        zb_sqldb_close(db);
        return zb_fail_oom(ctx);
    }
    s->db = db;
    c->backend = s;
    c->ops = &sql_ops;
    c->caps = ZB_CATALOG_CAP_WAREHOUSES | ZB_CATALOG_CAP_NAMESPACES |
              ZB_CATALOG_CAP_CREATE;
    s->warehouse = zb_strdup(cfg->warehouse && cfg->warehouse[0]
                                 ? cfg->warehouse : c->name);
    if (s->warehouse == NULL ||
        (cfg->warehouse_location != NULL &&
         (s->warehouse_location = zb_strdup(cfg->warehouse_location)) == NULL))
        return zb_fail_oom(ctx);
    for (i = 0; i < sizeof(schema_sql) / sizeof(schema_sql[0]); i++) {
        /* Probe first: a role that may only read (or a database whose
         * tables another tool made) needs no DDL. */
        rc = zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY, probe_sql[i], 0, NULL,
                          NULL, NULL, NULL);
        zb_err_clear(&ctx->err);
        if (rc >= 0)
            continue;
        rc = zb_sqldb_exec(db, ctx, ZB_SQL_WRITE, schema_sql[i], 0, NULL, NULL,
                          NULL, NULL);
        /* Two processes creating the tables at once: one wins. */
        if (rc == ZB_EEXISTS) {
            zb_err_clear(&ctx->err);
            rc = ZB_OK;
        }
        if (rc < 0) {
            zb_err_prefix(ctx, "creating the catalog tables");
            return rc;
        }
    }
    rc = zb_sqldb_exec(db, ctx, ZB_SQL_PRIMARY,
                      "SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0",
                      0, NULL, NULL, NULL, NULL);
    s->has_type = rc >= 0;
    zb_err_clear(&ctx->err);
    return ZB_OK;
}

int zb_catalog__sql_open_config(zb_catalog *c, zb_ctx *ctx,
                                const zb_catalog_config *cfg)
{
    zb_sqldb_config dc = ZB_SQLDB_CONFIG_INIT;
    zb_sqldb *db = NULL;
    int rc;

    if (cfg->sqldb != NULL) {
        c->kind = zb_sqldb_is_postgres(cfg->sqldb) ? ZB_CATALOG_POSTGRES
                                                   : ZB_CATALOG_SQLITE;
        return zb_catalog__sql_open(c, ctx, cfg, zb_sqldb_ref(cfg->sqldb));
    }
    if (cfg->kind == ZB_CATALOG_SQLITE) {
        if (cfg->sqlite_path == NULL || cfg->sqlite_path[0] == '\0')
            return zb_fail(ctx, ZB_EUSAGE, "no SQLite database file given");
        dc.sqlite_path = cfg->sqlite_path;
    } else {
        if (cfg->pg_write_url == NULL || cfg->pg_write_url[0] == '\0')
            return zb_fail(ctx, ZB_EUSAGE, "no PostgreSQL write URL given");
        dc.pg_write_url = cfg->pg_write_url;
        dc.pg_read_url = cfg->pg_read_url;
        dc.pg_write_pool = cfg->pg_write_pool;
        dc.pg_read_pool = cfg->pg_read_pool;
    }
    if ((rc = zb_sqldb_open(&db, ctx, &dc)) < 0)
        return rc;
    return zb_catalog__sql_open(c, ctx, cfg, db);
}

zb_sqldb *zb_catalog_sqldb(const zb_catalog *c)
{
    if (c == NULL || c->backend == NULL ||
        (c->kind != ZB_CATALOG_SQLITE && c->kind != ZB_CATALOG_POSTGRES))
        return NULL;
    return ((const sql_cat *)c->backend)->db;
}

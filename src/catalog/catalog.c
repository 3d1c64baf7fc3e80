/*
 * catalog/catalog.c - the public catalog functions: open a backend by
 * kind, dispatch each call through its vtable (catalog_int.h), and put
 * the catalog's name and kind in front of every error message; plus the
 * zb_table helpers the backends share.
 *
 * Call order: zb_catalog_open -> backend constructor (catalog_path.c,
 * sql/catalog_sql.c, rest/catalog_rest.c) -> ops -> ... ->
 * zb_catalog_free -> ops->destroy.
 *
 * Path resolution of a table (t->paths): the remaps run first (the
 * catalog's, then the backend's, such as a folder's recorded location ->
 * the folder); a table with strip_scheme set then gets one more chance in
 * resolve_cb: a path still carrying scheme://authority (Impala's delete
 * files name hdfs://host:port/... while manifests name /...) has them cut
 * off and is remapped again, and is used so only when a remap matched,
 * that is when it lands in a known place.
 */
#define ZB_MODULE "catalog"

#include <string.h>
#include <time.h>

#include <jansson.h>

#include "catalog/catalog_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

const char *zb_catalog_kind_name(zb_catalog_kind kind)
{
    switch (kind) {
    case ZB_CATALOG_SQLITE: return "sqlite";
    case ZB_CATALOG_POSTGRES: return "postgres";
    case ZB_CATALOG_REST: return "rest";
    case ZB_CATALOG_PATH: return "path";
    }
    return "unknown";
}

int64_t zb_catalog__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t zb_catalog__scheme_len(const char *path)
{
    size_t i = 0;

    if (path == NULL)
        return 0;
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
    if (!((path[0] >= 'a' && path[0] <= 'z') ||
          (path[0] >= 'A' && path[0] <= 'Z')))
        return 0;
    while ((path[i] >= 'a' && path[i] <= 'z') ||
           (path[i] >= 'A' && path[i] <= 'Z') ||
           (path[i] >= '0' && path[i] <= '9') || path[i] == '+' ||
           path[i] == '-' || path[i] == '.')
        i++;
    if (path[i] != ':' || i < 2)   /* "C:" is a drive, not a scheme */
        return 0;
    i++;
    if (path[i] == '/' && path[i + 1] == '/') {
        i += 2;
        while (path[i] != '\0' && path[i] != '/')
            i++;
    }
    return i;
}

/* ---- handle ---- */

static void catalog_free_common(zb_catalog *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < c->n_remaps; i++) {
        zb_free((char *)c->remaps[i].from);
        zb_free((char *)c->remaps[i].to);
    }
    zb_free(c->remaps);
    zb_free(c->name);
    zb_free(c);
}

int zb_catalog_open(zb_catalog **out, zb_ctx *ctx, zb_io *io,
                    const zb_catalog_config *cfg)
{
    zb_catalog *c = NULL;
    size_t i;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && io && cfg);
    *out = NULL;
    if (cfg->version != ZB_CATALOG_CONFIG_VERSION)
        return zb_fail(ctx, ZB_EINVAL, "catalog config version %u, expected %u",
                       cfg->version, ZB_CATALOG_CONFIG_VERSION);
    if ((c = zb_calloc(1, sizeof(*c))) == NULL)
        return zb_fail_oom(ctx);
    c->kind = cfg->kind;
    c->io = io;
    c->name = zb_strdup(cfg->name && cfg->name[0]
                            ? cfg->name : zb_catalog_kind_name(cfg->kind));
    if (c->name == NULL)
        goto oom;
    if (cfg->n_remaps > 0) {
        if ((c->remaps = zb_calloc(cfg->n_remaps, sizeof(*c->remaps))) == NULL)
            goto oom;
        for (i = 0; i < cfg->n_remaps; i++) {
            c->n_remaps++;
            c->remaps[i].from = zb_strdup(cfg->remaps[i].from ? cfg->remaps[i].from : "");
            c->remaps[i].to = zb_strdup(cfg->remaps[i].to ? cfg->remaps[i].to : "");
            if (c->remaps[i].from == NULL || c->remaps[i].to == NULL)
                goto oom;
        }
    }
    switch (cfg->kind) {
    case ZB_CATALOG_PATH:
        rc = zb_catalog__path_open(c, ctx, cfg);
        break;
    case ZB_CATALOG_SQLITE:
    case ZB_CATALOG_POSTGRES:
        rc = zb_catalog__sql_open_config(c, ctx, cfg);
        break;
    case ZB_CATALOG_REST:
        rc = zb_catalog__rest_open(c, ctx, cfg);
        break;
    default:
        rc = zb_fail(ctx, ZB_EUSAGE, "unknown catalog kind %d", (int)cfg->kind);
        break;
    }
    if (rc < 0) {
        zb_err_prefix(ctx, "catalog %s (%s)", c->name,
                      zb_catalog_kind_name(c->kind));
        if (c->ops != NULL && c->ops->destroy != NULL && c->backend != NULL)
            c->ops->destroy(c);
        catalog_free_common(c);
        return rc;
    }
    c->owns_io = cfg->owns_io;
    c->s3_pinned = cfg->s3_pinned;
    *out = c;
    return ZB_OK;
oom:
    catalog_free_common(c);
    return zb_fail_oom(ctx);
}

void zb_catalog_free(zb_catalog *c)
{
    zb_io *owned;

    if (c == NULL)
        return;
    owned = c->owns_io ? c->io : NULL;
    if (c->ops != NULL && c->ops->destroy != NULL)
        c->ops->destroy(c);
    catalog_free_common(c);
    zb_io_free(owned);
}

zb_catalog_kind zb_catalog_get_kind(const zb_catalog *c)
{
    return c->kind;
}

const char *zb_catalog_name(const zb_catalog *c)
{
    return c->name;
}

unsigned zb_catalog_caps(const zb_catalog *c)
{
    return c->caps;
}

zb_io *zb_catalog_io(const zb_catalog *c)
{
    return c->io;
}

/* ---- dispatch ---- */

static int with_context(const zb_catalog *c, zb_ctx *ctx, int rc)
{
    if (rc < 0)
        zb_err_prefix(ctx, "catalog %s (%s)", c->name,
                      zb_catalog_kind_name(c->kind));
    return rc;
}

static int unsupported(const zb_catalog *c, zb_ctx *ctx, const char *what)
{
    return zb_fail(ctx, ZB_EUNSUPPORTED, "catalog %s (%s): %s is not supported",
                   c->name, zb_catalog_kind_name(c->kind), what);
}

int zb_catalog_list_warehouses(zb_catalog *c, zb_ctx *ctx,
                               zb_catalog_list_cb fn, void *payload)
{
    ZB_ASSERT_ARG(c && ctx && fn);
    if (c->ops->list_warehouses == NULL)
        return unsupported(c, ctx, "listing warehouses");
    return with_context(c, ctx, c->ops->list_warehouses(c, ctx, fn, payload));
}

int zb_catalog_list_namespaces(zb_catalog *c, zb_ctx *ctx, const char *parent,
                               zb_catalog_list_cb fn, void *payload)
{
    ZB_ASSERT_ARG(c && ctx && fn);
    if (c->ops->list_namespaces == NULL)
        return unsupported(c, ctx, "listing namespaces");
    return with_context(c, ctx,
                        c->ops->list_namespaces(c, ctx, parent, fn, payload));
}

int zb_catalog_list_tables(zb_catalog *c, zb_ctx *ctx, const char *ns,
                           zb_catalog_list_cb fn, void *payload)
{
    ZB_ASSERT_ARG(c && ctx && fn);
    if (c->ops->list_tables == NULL)
        return unsupported(c, ctx, "listing tables");
    return with_context(c, ctx, c->ops->list_tables(c, ctx, ns, fn, payload));
}

int zb_catalog_create_namespace(zb_catalog *c, zb_ctx *ctx, const char *ns)
{
    ZB_ASSERT_ARG(c && ctx && ns);
    if (c->ops->create_namespace == NULL)
        return unsupported(c, ctx, "creating namespaces");
    return with_context(c, ctx, c->ops->create_namespace(c, ctx, ns));
}

int zb_catalog_load_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                          zb_table **out)
{
    ZB_ASSERT_ARG(c && ctx && ident && out);
    *out = NULL;
    if (c->ops->load_table == NULL)
        return unsupported(c, ctx, "loading tables");
    return with_context(c, ctx, c->ops->load_table(c, ctx, ident, out));
}

int zb_catalog_create_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            const char *location, const ice_metadata *first,
                            zb_table **out)
{
    zb_table *t = NULL;
    int rc;

    ZB_ASSERT_ARG(c && ctx && ident && first);
    if (out != NULL)
        *out = NULL;
    if (c->ops->create_table == NULL)
        return unsupported(c, ctx, "creating tables");
    rc = c->ops->create_table(c, ctx, ident, location, first, &t);
    if (rc >= 0 && out != NULL)
        *out = t;
    else
        zb_table_free(t);
    return with_context(c, ctx, rc);
}

int zb_catalog_register_table(zb_catalog *c, zb_ctx *ctx, const char *ident,
                              const char *metadata_location, zb_table **out)
{
    zb_table *t = NULL;
    int rc;

    ZB_ASSERT_ARG(c && ctx && ident && metadata_location);
    if (out != NULL)
        *out = NULL;
    if (c->ops->register_table == NULL)
        return unsupported(c, ctx, "registering tables");
    rc = c->ops->register_table(c, ctx, ident, metadata_location, &t);
    if (rc >= 0 && out != NULL)
        *out = t;
    else
        zb_table_free(t);
    return with_context(c, ctx, rc);
}

int zb_catalog_check_writable(zb_catalog *c, zb_ctx *ctx, const char *ident)
{
    ZB_ASSERT_ARG(c && ctx && ident);
    int rc;

    if (c->kind != ZB_CATALOG_PATH)
        return ZB_OK;
    if ((rc = zb_catalog__path_writable(ctx, ident)) < 0)
        return rc;
    return zb_catalog__path_check_named(c, ctx, ident);
}

int zb_catalog_check_current(zb_catalog *c, zb_ctx *ctx, const char *ident)
{
    ZB_ASSERT_ARG(c && ctx && ident);
    if (c->kind != ZB_CATALOG_PATH)
        return ZB_OK;
    return zb_catalog__path_check_named(c, ctx, ident);
}

int zb_catalog_commit(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                      const zb_json *requirements_json,
                      const zb_json *updates_json,
                      zb_table **out)
{
    const json_t *requirements = (const json_t *)requirements_json;
    const json_t *updates = (const json_t *)updates_json;
    zb_table *t = NULL;
    int rc;

    ZB_ASSERT_ARG(c && ctx && base);
    if (out != NULL)
        *out = NULL;
    if (c->ops->commit == NULL)
        return unsupported(c, ctx, "committing");
    if ((requirements != NULL && !json_is_array(requirements)) ||
        (updates != NULL && !json_is_array(updates)))
        return zb_fail(ctx, ZB_EINVAL,
                       "catalog %s (%s): table %s: requirements and updates "
                       "must be JSON arrays", c->name,
                       zb_catalog_kind_name(c->kind), base->ident);
    /* A fence the backend cannot fold into its swap is checked first
     * (catalog.h, zb_commit_fence). */
    if (c->fence != NULL && zb_catalog_sqldb(c) != c->fence->db &&
        (rc = zb_catalog__fence_check(c, ctx)) < 0)
        return with_context(c, ctx, rc);
    /* NULL means none: backends always get arrays. */
    if (requirements == NULL || updates == NULL) {
        json_t *none = json_array();
        if (none == NULL)
            return zb_fail_oom(ctx);
        rc = c->ops->commit(c, ctx, base,
                            (const zb_json *)(requirements ? requirements
                                                           : none),
                            (const zb_json *)(updates ? updates : none), &t);
        json_decref(none);
    } else {
        rc = c->ops->commit(c, ctx, base, (const zb_json *)requirements,
                            (const zb_json *)updates, &t);
    }
    if (rc >= 0 && out != NULL)
        *out = t;
    else
        zb_table_free(t);
    return with_context(c, ctx, rc);
}

int zb_catalog_drop_table(zb_catalog *c, zb_ctx *ctx, const char *ident)
{
    ZB_ASSERT_ARG(c && ctx && ident);
    if (c->ops->drop_table == NULL)
        return unsupported(c, ctx, "dropping tables");
    return with_context(c, ctx, c->ops->drop_table(c, ctx, ident));
}

/* ---- tables ---- */

void zb_table_free(zb_table *t)
{
    size_t i;

    if (t == NULL)
        return;
    if (t->internal != NULL) {
        struct zb_table_int *in = t->internal;
        for (i = 0; i < in->n_remaps; i++) {
            zb_free((char *)in->remaps[i].from);
            zb_free((char *)in->remaps[i].to);
        }
        zb_free(in->remaps);
        if (in->backend_free != NULL)
            in->backend_free(in->backend);
        zb_free(in);
    }
    for (i = 0; i < t->n_config; i++) {
        zb_free((char *)t->config[i].key);
        zb_free((char *)t->config[i].value);
    }
    zb_free(t->config);
    ice_metadata_free(t->meta);
    zb_free(t->ident);
    zb_free(t->metadata_location);
    zb_free(t->root);
    zb_free(t);
}

/*
 * The resolve step of a table with strip_scheme: out holds the path after
 * the remaps. A path with scheme://authority left whose rest a remap
 * catches is taken as that remapped path.
 */
static int strip_resolve_cb(zb_buf *out, zb_ctx *ctx, const char *path,
                            void *payload)
{
    const zb_table *t = payload;
    const struct zb_table_int *in = t->internal;
    size_t n = zb_catalog__scheme_len(path);
    size_t i;

    zb_buf_clear(out);
    if (n > 0 && path[n] == '/') {
        const char *rest = path + n;
        for (i = 0; i < in->n_remaps; i++) {
            const char *from = in->remaps[i].from;
            size_t fl = strlen(from);
            if (fl > 0 && strncmp(rest, from, fl) == 0 &&
                (rest[fl] == '\0' || rest[fl] == '/' || from[fl - 1] == '/')) {
                if (zb_buf_puts(out, in->remaps[i].to) < 0 ||
                    zb_buf_puts(out, rest + fl) < 0)
                    return zb_fail_oom(ctx);
                return ZB_OK;
            }
        }
    }
    if (zb_buf_puts(out, path) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

static void table_sync_paths(zb_table *t)
{
    t->paths.remaps = t->internal->remaps;
    t->paths.n_remaps = t->internal->n_remaps;
    if (t->internal->strip_scheme) {
        t->paths.resolve = strip_resolve_cb;
        t->paths.resolve_payload = t;
    }
}

int zb_table__add_remap(zb_table *t, zb_ctx *ctx, const char *from,
                        const char *to)
{
    struct zb_table_int *in = t->internal;
    ice_path_remap *r;
    char *f = NULL, *d = NULL;

    if ((f = zb_strdup(from)) == NULL || (d = zb_strdup(to)) == NULL)
        goto oom;
    r = zb_realloc(in->remaps, (in->n_remaps + 1) * sizeof(*r));
    if (r == NULL)
        goto oom;
    in->remaps = r;
    r[in->n_remaps].from = f;
    r[in->n_remaps].to = d;
    in->n_remaps++;
    table_sync_paths(t);
    return ZB_OK;
oom:
    zb_free(f);
    zb_free(d);
    return zb_fail_oom(ctx);
}

int zb_table__add_config(zb_table *t, zb_ctx *ctx, const char *key,
                         const char *value)
{
    zb_catalog_kv *kv;
    char *k = NULL, *v = NULL;

    if ((k = zb_strdup(key)) == NULL || (v = zb_strdup(value)) == NULL)
        goto oom;
    kv = zb_realloc(t->config, (t->n_config + 1) * sizeof(*kv));
    if (kv == NULL)
        goto oom;
    t->config = kv;
    kv[t->n_config].key = k;
    kv[t->n_config].value = v;
    t->n_config++;
    return ZB_OK;
oom:
    zb_free(k);
    zb_free(v);
    return zb_fail_oom(ctx);
}

int zb_catalog__remap(char **out, zb_ctx *ctx, const zb_catalog *c,
                      const char *uri)
{
    ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;
    zb_buf b = ZB_BUF_INIT(1 << 16);
    int rc;

    *out = NULL;
    o.remaps = c->remaps;
    o.n_remaps = c->n_remaps;
    if ((rc = ice_manifest_resolve_path(&b, ctx, &o, uri)) == ZB_OK &&
        (*out = zb_strndup(zb_buf_cstr(&b), b.len)) == NULL)
        rc = zb_fail_oom(ctx);
    zb_buf_free(&b);
    return rc;
}

int zb_table__new(zb_table **out, zb_ctx *ctx, const zb_catalog *c,
                  const char *ident, const char *metadata_location,
                  ice_metadata *meta, const char *root)
{
    zb_table *t = NULL;
    size_t i;
    int rc;

    *out = NULL;
    if ((t = zb_calloc(1, sizeof(*t))) == NULL) {
        ice_metadata_free(meta);
        return zb_fail_oom(ctx);
    }
    t->meta = meta;
    ice_manifest_opts init = ICE_MANIFEST_OPTS_INIT;
    t->paths = init;
    if ((t->internal = zb_calloc(1, sizeof(*t->internal))) == NULL ||
        (t->ident = zb_strdup(ident)) == NULL ||
        (t->metadata_location = zb_strdup(metadata_location)) == NULL) {
        zb_table_free(t);
        return zb_fail_oom(ctx);
    }
    if (root != NULL)
        t->root = zb_strdup(root);
    else if ((rc = zb_catalog__remap(&t->root, ctx, c,
                                     meta && meta->location ? meta->location
                                                            : "")) < 0) {
        zb_table_free(t);
        return rc;
    }
    if (t->root == NULL) {
        zb_table_free(t);
        return zb_fail_oom(ctx);
    }
    for (i = 0; i < c->n_remaps; i++) {
        if ((rc = zb_table__add_remap(t, ctx, c->remaps[i].from,
                                      c->remaps[i].to)) < 0) {
            zb_table_free(t);
            return rc;
        }
    }
    table_sync_paths(t);
    *out = t;
    return ZB_OK;
}

int zb_table_resolve(zb_buf *out, zb_ctx *ctx, const zb_table *t,
                     const char *path)
{
    ZB_ASSERT_ARG(out && ctx && t && path);
    return ice_manifest_resolve_path(out, ctx, &t->paths, path);
}

int zb_catalog__split_ident(char **ns_out, char **name_out, zb_ctx *ctx,
                            const char *ident)
{
    const char *dot = strrchr(ident, '.');

    *ns_out = NULL;
    *name_out = NULL;
    if (dot == NULL || dot == ident || dot[1] == '\0')
        return zb_fail(ctx, ZB_EUSAGE,
                       "table %s: expected <namespace>.<table>", ident);
    if ((*ns_out = zb_strndup(ident, (size_t)(dot - ident))) == NULL ||
        (*name_out = zb_strdup(dot + 1)) == NULL) {
        zb_free(*ns_out);
        *ns_out = NULL;
        return zb_fail_oom(ctx);
    }
    return ZB_OK;
}
